#!/bin/bash
# Reliability and security: stat's exit status is its command's, writers
# report full disks, kernel-provided strings never reach a terminal raw.
. "$(dirname "$0")/lib.sh"
require_root

# expect_rc NAME WANT ARGS...: ptscope ARGS exits WANT
expect_rc() {
	local name=$1 want=$2 rc
	shift 2
	"$PTSCOPE" "$@" >"$TMP/rc.out" 2>"$TMP/rc.err"
	rc=$?
	check_eq "$name: exit status" "$want" "$rc"
}

# stat exits as its command did, like a shell
printf 'echo not run\n' >"$TMP/noexec"
chmod 0644 "$TMP/noexec"
expect_rc "stat -- sh -c 'exit 3'" 3 stat -- sh -c 'exit 3'
expect_rc "stat -- true" 0 stat -- true
expect_rc "stat --json -- false" 1 stat --json -- false
expect_rc "stat -- command killed by SIGTERM" 143 stat -- sh -c 'kill -TERM $$'
expect_rc "stat -- command killed by SIGKILL" 137 stat -- sh -c 'kill -KILL $$'
expect_rc "stat -- command not found" 127 stat -- /nonexistent/ptscope-no-such-cmd
check_eq "stat -- not found: says why" 1 \
	"$(grep -c 'No such file or directory' "$TMP/rc.err")"
expect_rc "stat -- not executable" 126 stat -- "$TMP/noexec"
check_eq "stat -- not executable: says why" 1 \
	"$(grep -c 'Permission denied' "$TMP/rc.err")"
expect_rc "stat -- usage error stays 2" 2 stat --bogus -- true

finish
