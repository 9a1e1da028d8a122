#!/bin/bash
# Run test programs and scripts, count their test cases, and end with
# "N passed, N failed".  cmocka binaries report "[       OK ]" per case;
# scripts speak TAP ("ok N - ...", "not ok N - ...").
set -u
suite=$1
shift
passed=0
failed=0
logdir=${PTSCOPE_TEST_LOGS:-build/test-logs}
mkdir -p "$logdir"

count_cmocka() {
	local log=$1 rc=$2 total ok
	total=$(sed -n 's/^\[==========\] Running \([0-9]*\) test(s)\./\1/p' "$log" | head -n1)
	ok=$(grep -c '^\[       OK \]' "$log")
	[ -n "$total" ] || total=$((ok + 1))	# crashed before starting
	[ "$rc" -eq 0 ] || [ "$ok" -lt "$total" ] || total=$((ok + 1))
	passed=$((passed + ok))
	failed=$((failed + total - ok))
}

count_tap() {
	local log=$1 rc=$2 ok bad
	ok=$(grep -c '^ok ' "$log")
	bad=$(grep -c '^not ok ' "$log")
	# a script that died without saying why still counts as a failure
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		bad=1
		echo "not ok - $(basename "$log" .log) exited $rc"
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
}

for t in "$@"; do
	name=$(basename "$t")
	log="$logdir/$name.log"
	echo "# $suite: $name"
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
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
