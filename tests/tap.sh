#!/bin/bash
# TAP for the shell tests (sourced): ok and not_ok print a numbered
# result, tap_finish the plan "1..N" after the last one.
# shellcheck shell=bash
tap_n=0
tap_fails=0

ok() {
	tap_line ok "- $*"
}

not_ok() {
	tap_line "not ok" "- $*"
}

# tap_status STATUS TEXT: ok when STATUS (an exit status) is 0, else not_ok
tap_status() {
	if [ "$1" = 0 ]; then ok "$2"; else not_ok "$2"; fi
}

# tap_line ok|"not ok" TAIL: the next result, TAIL after its number
tap_line() {
	tap_n=$((tap_n + 1))
	[ "$1" = ok ] || tap_fails=$((tap_fails + 1))
	echo "$1 $tap_n $2"
}

# tap_detail TEXT: TEXT's first 20 lines as comments under a result
tap_detail() {
	[ -z "$1" ] || printf '%s\n' "$1" | head -n 20 | sed 's/^/#   /'
}

# renumber FILE: FILE's TAP lines, numbered on from ours; its plan line
# becomes a comment
renumber() {
	local word rest

	while read -r word rest; do
		case "$word $rest" in
		"ok "*) tap_line ok "${rest#* }" ;;
		"not ok "*) rest=${rest#ok }; tap_line "not ok" "${rest#* }" ;;
		1..*) echo "# checker plan: ${word#1..} checks" ;;
		*) echo "$word $rest" ;;
		esac
	done <"$1"
}

# run_checker NAME CMD...: run a checker (tests/vm/checkers/check_*.py), pass its
# TAP lines on, and fail unless it exited 0 after making exactly the
# checks its plan line ("1..N") announced: a checker that crashes, or
# stops early, can never leave the run green.  Its files go in $work.
run_checker() {
	local name=$1 out=$work/checker.tap err=$work/checker.err rc want made
	shift

	"$@" >"$out" 2>"$err"
	rc=$?
	renumber "$out"
	want=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out" | head -n 1)
	made=$(grep -c -E '^(ok|not ok) ' "$out")
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok ' "$out"; then
		not_ok "$name: checker exited $rc with no failed check"
	fi
	if [ -z "$want" ]; then
		not_ok "$name: checker printed no plan (made $made checks, exit $rc)"
	elif [ "$made" -ne "$want" ]; then
		not_ok "$name: checker made $made checks, its plan said $want (exit $rc)"
	fi
	if [ -s "$err" ]; then
		echo "# $name: checker stderr:"
		sed 's/^/#   /' "$err" | tail -n 30
	fi
}

# tap_finish: the plan; true when checks were made and none failed
tap_finish() {
	echo "1..$tap_n"
	[ "$tap_n" -gt 0 ] && [ "$tap_fails" -eq 0 ]
}
