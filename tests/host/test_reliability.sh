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
# the report names the command as a shell reads it back, and starts
# with its title, not a blank line
check_eq "stat -- sh -c 'exit 3': the first line of the report quotes the command" \
	"ptscope stat: sh -c 'exit 3' exited 3" \
	"$(grep -v '^ptscope: ' "$TMP/rc.err" | head -n 1 | sed 's/ after .*//')"
expect_rc "stat -- echo \"it's\"" 0 stat -- echo "it's"
check_eq "stat: a ' in an argument quoted as '\"'\"'" \
	"ptscope stat: echo 'it'\"'\"'s' exited 0" \
	"$(grep -m1 '^ptscope stat: ' "$TMP/rc.err" | sed 's/ after .*//')"
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

# expect_write_error NAME WHERE ARGS...: exit 1, WHERE and ENOSPC's text
# said; WHERE "standard output" runs with stdout on /dev/full
expect_write_error() {
	local name=$1 where=$2 out=/dev/null rc
	shift 2
	[ "$where" = "standard output" ] && out=/dev/full
	"$PTSCOPE" "$@" >"$out" 2>"$TMP/wr.err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "writing $where: No space left on device" "$TMP/wr.err"; then
		ok "$name: exit 1, '$(tail -n1 "$TMP/wr.err")'"
	else
		not_ok "$name: exit $rc, stderr '$(tail -n1 "$TMP/wr.err")'"
	fi
}

# every writer reports a full disk, never exits 0 on a truncated report
expect_write_error "stat -o /dev/full" /dev/full stat -o /dev/full -- true
expect_write_error "stat --json -o /dev/full" /dev/full stat --json -o /dev/full -- true
# -o could be opened at the start but the write failed: the report is
# not lost, it follows on stderr (the bench's 3 pmd moves in it)
"$PTSCOPE" stat -o /dev/full -- "$BENCH" mremap --size 2M --align pmd \
	--count 3 >/dev/null 2>"$TMP/wr.err"
check_eq "stat -o /dev/full: exit 1, the report on stderr with the bench's 3 moves" \
	"1 1 3" "$? $(grep -c '^ptscope: the report follows on standard error instead$' "$TMP/wr.err") $(awk '$2 == "ptscope-bench" { print $3 }' "$TMP/wr.err")"
"$PTSCOPE" stat --json -o /dev/full -- "$BENCH" mremap --size 2M --align pmd \
	--count 3 >/dev/null 2>"$TMP/wr.err"
check_eq "stat --json -o /dev/full: exit 1, the recording on stderr with the 3 moves" \
	"1 3" "$? $(sed -n '/^{/,$p' "$TMP/wr.err" | python3 -c 'import json, sys
print(json.load(sys.stdin)["counters"]["mremap"]["classes"]["pmd"]["calls"])')"
# stat reports on stderr: a full one is exit 1 (its message has nowhere to go)
"$PTSCOPE" stat -- true 2>/dev/full
check_eq "stat 2>/dev/full: the report not written, exit 1" 1 "$?"
"$PTSCOPE" stat --json -- true 2>/dev/full
check_eq "stat --json 2>/dev/full: the report not written, exit 1" 1 "$?"
expect_write_error "top >/dev/full" "standard output" top -i 0.5 -d 1
expect_write_error "top --json -o /dev/full" /dev/full top --json -i 0.5 -d 1 -o /dev/full
expect_write_error "snoop >/dev/full" "standard output" snoop -d 1
expect_write_error "probe --json -o /dev/full" /dev/full probe --json -o /dev/full
if "$PTSCOPE" stat --json -o "$TMP/rec.json" -- true 2>/dev/null; then
	expect_write_error "diff >/dev/full" "standard output" \
		diff "$TMP/rec.json" "$TMP/rec.json"
else
	not_ok "stat --json -o FILE failed: no recording to diff"
fi

# until the background snoop says it traces (at most 5 s)
wait_tracing() {
	for _ in $(seq 1 50); do
		grep -q 'tracing, Ctrl-C to stop' "$TMP/snoop.err" 2>/dev/null && return
		sleep 0.1
	done
}

# wait_exit TENTHS: until the background snoop has written its exit status
wait_exit() {
	for _ in $(seq 1 "$1"); do
		[ -s "$TMP/snoop.rc" ] && return
		sleep 0.1
	done
}

# snoop behind a reader that stalls for 8 s: -d 1 still ends it in time,
# with its drop summary, and exit 0 (it was asked to stop)
rm -f "$TMP/snoop.rc"
start=$(date +%s%N)
( "$PTSCOPE" snoop -d 1 -c ptscope-bench 2>"$TMP/snoop.err"
  echo $? >"$TMP/snoop.rc"; date +%s%N >"$TMP/snoop.end" ) |
	(sleep 8; cat >/dev/null) &
stalled=$!
wait_tracing
"$BENCH" mremap --size 1036K --align page --count 3000 >/dev/null
wait_exit 60
if [ -s "$TMP/snoop.rc" ]; then
	took=$(( ($(cat "$TMP/snoop.end") - start) / 1000000 ))
	check_eq "snoop -d 1 behind a stalled reader: ends within 5 s" yes \
		"$([ $took -lt 5000 ] && echo yes || echo "no, ${took} ms")"
	check_eq "snoop -d 1 behind a stalled reader: exit status" 0 "$(cat "$TMP/snoop.rc")"
	check_eq "snoop behind a stalled reader: drop summary" 1 \
		"$(grep -c 'events, [0-9]* dropped' "$TMP/snoop.err")"
else
	not_ok "snoop -d 1 behind a stalled reader still runs after 6 s"
fi
kill $stalled 2>/dev/null
wait $stalled 2>/dev/null

# snoop | head -n 2: the reader leaves; snoop stops with its summary
rm -f "$TMP/snoop.rc"
( "$PTSCOPE" snoop -c ptscope-bench 2>"$TMP/snoop.err" &
  echo $! >"$TMP/snoop.pid"; wait $!; echo $? >"$TMP/snoop.rc" ) |
	head -n 2 >/dev/null &
wait_tracing
"$BENCH" mremap --size 1036K --align page --count 200 >/dev/null
wait_exit 30
if [ -s "$TMP/snoop.rc" ]; then
	check_eq "snoop | head: exit status" 0 "$(cat "$TMP/snoop.rc")"
	check_eq "snoop | head: drop summary and why it stopped" "1 1" \
		"$(grep -c 'events, [0-9]* dropped' "$TMP/snoop.err") $(grep -c 'closed by its reader' "$TMP/snoop.err")"
else
	not_ok "snoop | head: still running 3 s after head left (SIGPIPE ignored?)"
	kill -INT "$(cat "$TMP/snoop.pid")" 2>/dev/null
fi
wait

# A process names itself with ESC, BEL and a C1 CSI (UTF-8 0xc2 0x9b),
# then mremaps (Python's mmap.resize): its comm must reach no terminal raw.
cat >"$TMP/evil.py" <<'PY'
import ctypes, mmap, sys, time
name = b"\x1b[31mX\x07\xc2\x9b2J"
ctypes.CDLL(None).prctl(15, ctypes.c_char_p(name), 0, 0, 0)	# PR_SET_NAME
if len(sys.argv) > 1:
    open(sys.argv[1]).readline()	# until the tracer is there
else:
    time.sleep(1.5)
m = mmap.mmap(-1, 1 << 20)
m.resize(2 << 20)	# mremap
PY
ESCAPED='\x1b[31mX\x07\xc2\x9b2J'
JSON_ESCAPED='\u001b[31mX\u0007\u009b2J'

# raw FILE: how many ESC, BEL and 0x9b (C1 CSI) bytes FILE holds
raw() {
	tr -cd '\033\007\233' <"$1" | wc -c
}

# check_escaped NAME FILE WITNESS: WITNESS is there, no raw control byte
check_escaped() {
	check_eq "$1: the string, escaped" yes \
		"$(grep -qF "$3" "$2" && echo yes || echo no)"
	check_eq "$1: no raw ESC, BEL or CSI" 0 "$(raw "$2")"
}

"$PTSCOPE" stat -- python3 "$TMP/evil.py" >"$TMP/evil.stat" 2>&1
check_escaped "stat text" "$TMP/evil.stat" "$ESCAPED"
"$PTSCOPE" stat --json -o "$TMP/evil.json" -- python3 "$TMP/evil.py" 2>&1
check_escaped "stat --json" "$TMP/evil.json" "$JSON_ESCAPED"
# snoop_escapes WHERE: snoop -p of the evil process alone (other work on
# the box is not its events), text and JSON; the process waits on a FIFO
# until snoop traces
snoop_escapes() {
	local where=$1 mode flag evil snoop
	for mode in text json; do
		flag=
		[ $mode = json ] && flag=--json
		rm -f "$TMP/evil.go" "$TMP/snoop.err"
		mkfifo "$TMP/evil.go"
		python3 "$TMP/evil.py" "$TMP/evil.go" &
		evil=$!
		"$PTSCOPE" snoop $flag -d 4 -p $evil >"$TMP/evil.snoop" 2>"$TMP/snoop.err" &
		snoop=$!
		wait_tracing
		echo go >"$TMP/evil.go"
		wait $evil
		wait $snoop
		if [ $mode = json ]; then
			check_escaped "snoop --json$where" "$TMP/evil.snoop" "$JSON_ESCAPED"
		else
			check_escaped "snoop text$where" "$TMP/evil.snoop" "$ESCAPED"
		fi
	done
}
snoop_escapes ""
beside_other_ptscope snoop_escapes " beside a second ptscope"

# a recording's strings, command and counter names, come from anywhere
python3 - "$TMP/evil.json" "$TMP/evil2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["run"]["command"] = "evil \x1b]0;pwned\x07 \x9b"
d["kernel_counters"]["x\x1b[2J"] = {"k\x07": 5}
for run in d["runs"]:
    run["kernel_counters"]["x\x1b[2J"] = {"k\x07": 5}
json.dump(d, open(sys.argv[2], "w"))
PY
"$PTSCOPE" diff "$TMP/evil.json" "$TMP/evil2.json" >"$TMP/evil.diff" 2>&1
check_escaped "diff text: command" "$TMP/evil.diff" '\x1b]0;pwned\x07 \xc2\x9b'
check_eq "diff text: counter name escaped" 1 \
	"$(grep -cF 'kernel.x\x1b[2J.k\x07 = 5' "$TMP/evil.diff")"
"$PTSCOPE" diff --json "$TMP/evil.json" "$TMP/evil2.json" >"$TMP/evil.diffj" 2>&1
check_escaped "diff --json: command" "$TMP/evil.diffj" '\u001b]0;pwned\u0007 \u009b'

tap_finish
