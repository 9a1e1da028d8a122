#!/bin/bash
# Run test programs and scripts, count their test cases, and end with
# "N passed, N failed".  cmocka binaries report "[       OK ]" per case;
# scripts speak TAP ("ok N - ...", "not ok N - ...", a plan "1..N").
# tests/harness/test_run.sh proves that short or dying runs turn it red.
set -u
suite=$1
shift
passed=0
failed=0
logdir=${PTSCOPE_TEST_LOGS:-build/test-logs}
mkdir -p "$logdir"

# cmocka: every group prints "Running N test(s)" and one "[       OK ]" per
# passing case.  Fewer OKs than announced, no announcement at all, or a
# non-zero exit (a crash, an abort) is a failure.
count_cmocka() {
	local log=$1 rc=$2 total ok
	total=$(sed -n 's/^\[==========\] Running \([0-9]*\) test(s)\./\1/p' "$log" |
		awk '{ s += $1; n++ } END { if (n) print s }')
	ok=$(grep -c '^\[       OK \]' "$log")
	if [ -z "$total" ]; then
		total=$((ok + 1))	# crashed before starting
		echo "not ok - $(basename "$log" .log) ran no cmocka group"
	elif [ "$ok" -gt "$total" ]; then
		echo "not ok - $(basename "$log" .log): $ok OKs for $total announced"
		total=$((ok + 1))
	elif [ "$rc" -ne 0 ] && [ "$ok" -eq "$total" ]; then
		total=$((ok + 1))
		echo "not ok - $(basename "$log" .log) exited $rc"
	fi
	passed=$((passed + ok))
	failed=$((failed + total - ok))
}

# tap_unparsed LOG PLAN: why a count is off, as comments: the result
# numbers of 1..PLAN that start no line, and the lines where a result
# starts somewhere other than at the line's start (output from another
# writer without its newline)
tap_unparsed() {
	local missing
	missing=$(sed -n 's/^\(not \)\{0,1\}ok \([0-9]*\).*/\2/p' "$1" |
		sort | comm -13 - <(seq "$2" | sort) | sort -n | head -n 20 | tr '\n' ' ')
	[ -n "$missing" ] && echo "#   results missing from the plan: $missing"
	grep -nE '.(not )?ok [0-9]+ - ' "$1" | grep -vE '^[0-9]+:(not )?ok ' |
		head -n 5 | sed 's/^/#   result inside a line: /'
	return 0
}

# TAP: "ok" and "not ok" lines and one plan "1..N", first or last.  An
# "ok ... # SKIP" checked nothing and counts as a failure.  No plan, a plan
# that is not the number of results, or a non-zero exit is one more failure.
count_tap() {
	local log=$1 rc=$2 ok bad skip plan plans results why=
	ok=$(grep -c '^ok ' "$log")
	bad=$(grep -c '^not ok ' "$log")
	skip=$(grep -ciE '^ok [^#]*# *skip' "$log")
	plans=$(grep -cE '^1\.\.[0-9]+$' "$log")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | head -n1)
	results=$((ok + bad))
	if [ "$plans" -ne 1 ]; then
		why="$plans plans"
	elif [ "$plan" -ne "$results" ]; then
		why="plan 1..$plan but $results results"
	elif [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		why="exited $rc"
	fi
	if [ "$skip" -gt 0 ]; then
		echo "not ok - $(basename "$log" .log): $skip skipped (a skip is not a pass)"
		ok=$((ok - skip))
		bad=$((bad + skip))
	fi
	if [ -n "$why" ]; then
		echo "not ok - $(basename "$log" .log): $why"
		tap_unparsed "$log" "${plan:-0}"
		bad=$((bad + 1))
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
}

# "--suite NAME VAR=VALUE..." between tests: the tests after it run as
# suite NAME (logs NAME.TEST.log) with those variables in their
# environment, so one run (and one summary) can repeat tests, e.g. with the
# sanitizer build of ptscope.
prefix=
while [ $# -gt 0 ]; do
	t=$1
	shift
	if [ "$t" = --suite ]; then
		suite=$1
		prefix=$1.
		shift
		while [ $# -gt 0 ] && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
			export "${1?}"
			shift
		done
		continue
	fi
	name=$(basename "$t")
	log="$logdir/$prefix$name.log"
	echo "# $suite: $name"
	start=$SECONDS
	case "$t" in
	*.sh)
		bash "$t" 2>&1 | tee "$log"
		count_tap "$log" "${PIPESTATUS[0]}"
		;;
	*)
		"$t" 2>&1 | tee "$log"
		count_cmocka "$log" "${PIPESTATUS[0]}"
		;;
	esac
	# what make check's time goes to (it must stay under 70 minutes)
	echo "# $suite: $name took $((SECONDS - start)) s"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
