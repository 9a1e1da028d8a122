#!/bin/bash
# ptscope top on a terminal (a pseudo-terminal from tests/host/pty_run.py):
# its keys, the terminal mode put back on every way out, frames that fit
# the window, -d honoured inside a long interval, rates and counts
# labelled, and a wall-clock time in every JSON frame.  Counts are checked
# against the bench workload's geometry.
. "$(dirname "$0")/lib.sh"
require_root
PTY="python3 $(dirname "$0")/pty_run.py"

# screen LOG: the captured output without escape sequences, one line each
screen() {
	sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\r$//' "$1"
}

# result LINE KEY: "exit", "secs" or "restored" of pty_run.py's last line
result() {
	sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" <<<"$1"
}

# wider LOG COLS: how many screen lines are wider than COLS
wider() {
	screen "$1" | awk -v c="$2" 'length($0) > c { n++ } END { print n + 0 }'
}

# quits_at_once NAME RESULT: exit code 0, under 3 s after the key (top
# runs with -i 5, so not at the end of its interval)
quits_at_once() {
	local secs
	check_eq "$1: exit code" 0 "$(result "$2" exit)"
	secs=$(result "$2" secs)
	if [[ $secs =~ ^[0-9.]+$ ]] && awk -v s="$secs" 'BEGIN { exit !(s < 3) }'; then
		ok "$1: ended ${secs} s after the key, inside a 5 s interval"
	else
		not_ok "$1: ended '$secs' s after the key (want < 3 s)"
	fi
}

# q quits at once, cleanly
r=$($PTY 80 "$TMP/q.log" expect:'Ctrl-C to stop' mark send:q -- \
	"$PTSCOPE" top -i 5)
quits_at_once "top q" "$r"
check_eq "top q: terminal back in canonical mode with echo" yes \
	"$(result "$r" restored)"

# the note on syscall tracepoints' cost, said at the start, is covered by
# the screen: it stays in each frame as a "cost:" line, and after q it is
# said again below the last screen; where fentry takes the syscalls there
# is none of the three
r=$($PTY 100 "$TMP/cost.log" expect:'Ctrl-C to stop' expect:'mremap calls' \
	send:q -- "$PTSCOPE" top -i 0.3)
check_eq "top q (cost note): exit code" 0 "$(result "$r" exit)"
notes=$(screen "$TMP/cost.log" | grep -c '^ptscope: note: .*slow every')
if [ "$notes" -gt 0 ]; then
	check_eq "top on a terminal: the cost note at the start and again after q, a cost line in the frame" \
		"2 yes yes" "$notes $(screen "$TMP/cost.log" | grep -q '^cost: every syscall +[0-9]* ns' && echo yes) $(awk -v RS='\033' 'END { print }' "$TMP/cost.log" | grep -q 'ptscope: note: .*slow every' && echo yes)"
else
	check_eq "top on a terminal, no syscall tracepoint: no cost line" 0 \
		"$(screen "$TMP/cost.log" | grep -c '^cost: ')"
fi

# q while serving /metrics between refreshes (--listen)
port=$(free_port)
r=$($PTY 80 "$TMP/listen.log" expect:'Ctrl-C to stop' mark send:q -- \
	"$PTSCOPE" top -i 5 --listen "127.0.0.1:$port")
quits_at_once "top --listen q" "$r"

# Ctrl-C in cbreak mode: still SIGINT, still detaches, mode put back
r=$($PTY 80 "$TMP/int.log" expect:'Ctrl-C to stop' send:'\x03' -- \
	"$PTSCOPE" top -i 5)
check_eq "top Ctrl-C on a terminal: exit code" 0 "$(result "$r" exit)"
check_eq "top Ctrl-C: terminal mode put back" yes "$(result "$r" restored)"

# a write error ends top with exit 1, and the mode is put back then too
r=$($PTY 80 "$TMP/full.log" expect:'Ctrl-C to stop' -- \
	"$PTSCOPE" top -i 0.2 -o /dev/full)
check_eq "top -o /dev/full on a terminal: exit code" 1 "$(result "$r" exit)"
check_eq "top -o /dev/full: terminal mode put back" yes "$(result "$r" restored)"

# ? shows the keys; s moves to the next sort key (-s mremap -> faults)
r=$($PTY 80 "$TMP/keys.log" expect:'sort mremap' send:'?' \
	expect:'ptscope top: keys' send:s expect:'sort faults' send:q -- \
	"$PTSCOPE" top -i 0.3 -s mremap)
check_eq "top ? then s then q: exit code" 0 "$(result "$r" exit)"
check_eq "top ?: the quit key is listed" 1 \
	"$(screen "$TMP/keys.log" | grep -c '^  q  *quit')"
check_eq "top s: the header names the next sort key" 1 \
	"$(screen "$TMP/keys.log" | grep -m1 -c 'sort faults')"

# stdin not a terminal: no keys, and the usual start message
"$PTSCOPE" top -i 0.2 -d 0.5 </dev/null >"$TMP/nokeys.out" 2>"$TMP/nokeys.err"
check_eq "top, stdin not a tty: exit code" 0 "$?"
check_eq "top, stdin not a tty: no key hint" 1 \
	"$(grep -cx 'ptscope: tracing, Ctrl-C to stop' "$TMP/nokeys.err")"

# a background job of the terminal's shell (job control on): no keys, so
# no tcsetattr() that would stop it with SIGTTOU (wait gives 150 then)
r=$($PTY 80 "$TMP/bg.log" -- bash -c 'set -m; "$1" top -i 0.3 -d 1 -o "$2" &
	wait $!; echo "job rc=$?"' sh "$PTSCOPE" "$TMP/bg.out")
check_eq "top in the background of a terminal: runs to its end" "job rc=0" \
	"$(screen "$TMP/bg.log" | grep -o 'job rc=[0-9]*')"

# busy_loops: 8 shells of short in-place loops (one row each) until
# "$TMP/stop" exists (top may take a while to attach on a busy box), $TMP
# is gone (the script ended early) or a minute has passed
busy_loops() {
	local i end=$((SECONDS + 60))
	for i in 1 2 3 4 5 6 7 8; do
		while [ -d "$TMP" ] && [ ! -e "$TMP/stop" ] && [ $SECONDS -lt $end ]; do
			"$BENCH" inplace-loop --count 3000 >/dev/null
		done &
	done
	wait
}
rm -f "$TMP/stop"
busy_loops &
busy=$!

# an 80-column terminal with busy rows: nothing wider, columns dropped
# by priority and named; at 132 columns every column is there
r=$($PTY 80 "$TMP/w80.log" expect:'ptscope-bench' expect:'sort activity' \
	send:q -- "$PTSCOPE" top -i 0.5)
check_eq "top at 80 columns: exit code" 0 "$(result "$r" exit)"
check_eq "top at 80 columns: lines wider than 80" 0 "$(wider "$TMP/w80.log" 80)"
check_eq "top at 80 columns: the dropped columns are named, INPLACE (most of a realloc loop's calls) kept" \
	"1 1" \
	"$(screen "$TMP/w80.log" | grep -m1 -c '^hidden at 80 columns: PUD F-FALLBK$') $(screen "$TMP/w80.log" | grep -m1 -c '^ *PID COMM .*INPLACE')"
r=$($PTY 132 "$TMP/w132.log" expect:'ptscope-bench' send:q -- \
	"$PTSCOPE" top -i 0.5)
check_eq "top at 132 columns: lines wider than 132" 0 "$(wider "$TMP/w132.log" 132)"
check_eq "top at 132 columns: F-FALLBK shown, nothing hidden" "1 0" \
	"$(screen "$TMP/w132.log" | grep -m1 -c 'INPLACE.*F-FALLBK') $(screen "$TMP/w132.log" | grep -c '^hidden')"

# a small terminal (50 x 16) with those rows: no frame is taller than the
# window less one line, or wider than it, and the rows still show them
r=$($PTY 50x16 "$TMP/small.log" expect:'ptscope-bench' sleep:2 send:q -- \
	"$PTSCOPE" top -i 0.5)
check_eq "top at 50 x 16: exit code" 0 "$(result "$r" exit)"
check_eq "top at 50 x 16: frames, tallest under 16 lines, with bench rows" \
	"True True" "$(python3 -c 'import sys
# a frame ends at its erase-below; the note after q is below the screen
frames = [f.split(b"\x1b[J")[0] for f in open(sys.argv[1], "rb").read().split(b"\x1b[H")[1:]]
print(len(frames) > 1 and max(f.count(b"\n") for f in frames) <= 15,
      any(b"ptscope-bench" in f for f in frames))' "$TMP/small.log")"
check_eq "top at 50 x 16: lines wider than 50" 0 "$(wider "$TMP/small.log" 50)"
touch "$TMP/stop"
wait $busy

# -i 2: rates say /s, counts say per 2 s; 6 moves in one 2 s frame
held_bench mremap --size 16M --align pmd --count 6
"$PTSCOPE" top -i 2 -d 2 -p $target >"$TMP/rates.out" 2>"$TMP/rates.err" &
pid=$!
if wait_for 10 grep -q 'tracing' "$TMP/rates.err"; then
	touch "$TMP/go"
	wait $target
	wait $pid
	check_eq "top -i 2: mremap line labels rate and count" 1 \
		"$(grep -c '^mremap calls [0-9.]*/s, per 2 s: pud 0 pmd 6 ' "$TMP/rates.out")"
	check_eq "top -i 2: fault line labels rate and count" 1 \
		"$(grep -c '^hugepage faults [0-9.]*/s, per 2 s: ' "$TMP/rates.out")"
	check_eq "top -i 2: the fault counts' self-check agrees" 1 \
		"$(grep -c '^self-check: [0-9]* hugepage fault counts, none above the kernel.s$' "$TMP/rates.out")"
else
	kill $pid $target 2>/dev/null
	not_ok "top -i 2 did not start: $(head -n2 "$TMP/rates.err")"
fi

# -d inside a longer interval: ends at -d, the frame says it is partial
# and still holds the workload's moves
held_bench mremap --size 16M --align pmd --count 3
"$PTSCOPE" top -i 10 -d 2 -p $target >"$TMP/d.out" 2>"$TMP/d.err" &
pid=$!
if wait_for 10 grep -q 'tracing' "$TMP/d.err"; then
	start=$(date +%s.%N)	# -d counts from here, after the attach
	touch "$TMP/go"
	wait $target
	wait $pid
	rc=$?
	took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	check_eq "top -i 10 -d 2: exit code" 0 "$rc"
	if awk -v t="$took" 'BEGIN { exit !(t < 4) }'; then
		ok "top -i 10 -d 2: ended $took s after it began tracing (< 4 s)"
	else
		not_ok "top -i 10 -d 2: ran $took s (want < 4 s)"
	fi
	check_eq "top -i 10 -d 2: the frame says it was cut short" 1 \
		"$(grep -c '^last frame: 2 s of the 10 s interval, -d ended the run$' "$TMP/d.out")"
	check_eq "top -i 10 -d 2: the partial frame's pmd moves" 3 \
		"$(top_column "$TMP/d.out" ptscope-bench PMD)"
else
	kill $pid $target 2>/dev/null
	not_ok "top -i 10 -d 2 did not start: $(head -n2 "$TMP/d.err")"
fi

# --json: every frame has an ISO 8601 UTC time, increasing, near now;
# the -d frame inside the interval is marked partial
before=$(date -u +%s)
"$PTSCOPE" top --json -i 0.4 -d 1 >"$TMP/top.json" 2>"$TMP/json.err"
check_eq "top --json -i 0.4 -d 1: exit code" 0 "$?"
check_eq "top --json: frames, times (UTC, increasing, after the start), partial last" \
	"3 3 True [False, False, True]" "$(python3 -c 'import json, sys, datetime
frames = [json.loads(l) for l in open(sys.argv[1])]
times = [datetime.datetime.strptime(f["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
         .replace(tzinfo=datetime.timezone.utc) for f in frames]
start = float(sys.argv[2])
ok = all(b > a for a, b in zip(times, times[1:])) and \
    all(0 <= t.timestamp() - start < 30 for t in times)
print(len(frames), len(times), ok, [f.get("partial", False) for f in frames])' \
	"$TMP/top.json" "$before")"

tap_finish
