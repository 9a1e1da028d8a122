#!/bin/bash
# TAP helpers for the VM test drivers (sourced after $work is created).

n=0

ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}

fail() {
	n=$((n + 1))
	echo "not ok $n - $*"
	touch "$work/failed"
}

# renumber FILE: FILE's TAP lines, numbered on from ours; its plan line
# becomes a comment
renumber() {
	local word rest

	while read -r word rest; do
		case "$word $rest" in
		"ok "*) n=$((n + 1)); echo "ok $n ${rest#* }" ;;
		"not ok "*)
			n=$((n + 1)); rest=${rest#ok }
			echo "not ok $n ${rest#* }"
			touch "$work/failed"
			;;
		1..*) echo "# checker plan: ${word#1..} checks" ;;
		*) echo "$word $rest" ;;
		esac
	done <"$1"
}

# run_checker NAME CMD...: run a checker (tests/vm/check_*.py), pass its
# TAP lines on, and fail unless it exited 0 after making exactly the
# checks its plan line ("1..N") announced: a checker that crashes, or
# stops early, can never leave the run green.
run_checker() {
	local name=$1 out=$work/checker.tap err=$work/checker.err rc want made
	shift

	"$@" >"$out" 2>"$err"
	rc=$?
	renumber "$out"
	want=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out" | head -n 1)
	made=$(grep -c -E '^(ok|not ok) ' "$out")
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok ' "$out"; then
		fail "$name: checker exited $rc with no failed check"
	fi
	if [ -z "$want" ]; then
		fail "$name: checker printed no plan (made $made checks, exit $rc)"
	elif [ "$made" -ne "$want" ]; then
		fail "$name: checker made $made checks, its plan said $want (exit $rc)"
	fi
	if [ -s "$err" ]; then
		echo "# $name: checker stderr:"
		sed 's/^/#   /' "$err" | tail -n 30
	fi
	[ "$rc" -eq 0 ] || touch "$work/failed"
}

# check_console NAME LOG: a guest kernel that oopsed, warned or panicked
# fails the run, with the console lines around it
check_console() {
	local name=$1 log=$2 hits

	if [ ! -s "$log" ]; then
		fail "$name: no console log $log"
		return
	fi
	hits=$(tr -d '\r' <"$log" | grep -a -n -m 3 -E \
		'Oops|BUG:|Kernel panic|WARNING: CPU|general protection fault|Call Trace:' || true)
	if [ -n "$hits" ]; then
		fail "$name: the guest kernel reported: $(echo "$hits" | head -n 1 | cut -c 1-160)"
		tr -d '\r' <"$log" | grep -a -B 5 -A 25 -m 1 -E \
			'Oops|BUG:|Kernel panic|WARNING: CPU|general protection fault|Call Trace:' |
			sed 's/^/#   /'
	else
		ok "$name: no oops, warning or panic on the console"
	fi
}

# tap_finish: the plan; true when tests ran and none failed
tap_finish() {
	echo "1..$n"
	[ "$n" -gt 0 ] && [ ! -f "$work/failed" ]
}
