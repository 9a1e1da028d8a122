#!/bin/bash
# The VM test drivers' helpers (sourced after $work is created): the TAP
# of tests/tap.sh, and a guest console's check.
# shellcheck shell=bash
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# check_console NAME LOG: a guest kernel that oopsed, warned or panicked
# fails the run, with the console lines around it
check_console() {
	local name=$1 log=$2 hits

	if [ ! -s "$log" ]; then
		not_ok "$name: no console log $log"
		return
	fi
	hits=$(tr -d '\r' <"$log" | grep -a -n -m 3 -E \
		'Oops|BUG:|Kernel panic|WARNING: CPU|general protection fault|Call Trace:' || true)
	if [ -n "$hits" ]; then
		not_ok "$name: the guest kernel reported: $(echo "$hits" | head -n 1 | cut -c 1-160)"
		tr -d '\r' <"$log" | grep -a -B 5 -A 25 -m 1 -E \
			'Oops|BUG:|Kernel panic|WARNING: CPU|general protection fault|Call Trace:' |
			sed 's/^/#   /'
	else
		ok "$name: no oops, warning or panic on the console"
	fi
}
