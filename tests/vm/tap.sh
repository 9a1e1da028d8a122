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

# renumber FILE: FILE's TAP lines, numbered on from ours
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
		*) echo "$word $rest" ;;
		esac
	done <"$1"
}

# tap_finish: the plan; true when tests ran and none failed
tap_finish() {
	echo "1..$n"
	[ "$n" -gt 0 ] && [ ! -f "$work/failed" ]
}
