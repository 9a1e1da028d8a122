#!/bin/bash
# ptscope snoop: one event per mremap call and per hugepage fault, each
# matching the workload; the ring buffer's drops are reported.
. "$(dirname "$0")/lib.sh"
require_root

THP=/sys/kernel/mm/transparent_hugepage
saved=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$THP/enabled")
trap 'echo "$saved" >"$THP/enabled"; rm -rf "$TMP"' EXIT
echo madvise >"$THP/enabled"

# snoop_start ARGS...: background snoop, waits until it traces
snoop_start() {
	"$PTSCOPE" snoop "$@" >"$TMP/snoop.out" 2>"$TMP/snoop.err" &
	snoop_pid=$!
	for _ in $(seq 1 100); do
		grep -q 'tracing, Ctrl-C to stop' "$TMP/snoop.err" && return 0
		kill -0 $snoop_pid 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

snoop_stop() {
	kill -INT $snoop_pid
	wait $snoop_pid
}

events() {	# events PYTHON-FILTER: count JSON lines matching e
	python3 -c 'import json, sys
n = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if eval(sys.argv[2]):
        n += 1
print(n)' "$TMP/snoop.out" "$1"
}

if snoop_start --json -c ptscope-bench; then
	"$BENCH" mremap --size 16M --align pmd --thp never --count 3 >/dev/null
	"$BENCH" fail --count 2 >/dev/null
	"$BENCH" fault --size 4M --count 1 --thp always >/dev/null
	sleep 0.5
	snoop_stop
	check_eq "snoop: exit code after Ctrl-C" 0 "$?"
	check_eq "snoop --json: pmd-class mremap events" 3 \
		"$(events "e['type'] == 'mremap' and e['mremap']['class'] == 'pmd' and e['mremap']['old_len'] == 16 << 20")"
	check_eq "snoop --json: failed mremap events (EINVAL)" 2 \
		"$(events "e['type'] == 'mremap' and e['mremap']['class'] == 'failed' and e['mremap']['result'] == -22")"
	check_eq "snoop --json: 2M fault allocations" 2 \
		"$(events "e['type'] == 'fault' and e['fault']['order'] == 9 and e['fault']['result'] == 'alloc'")"
	total=$(events True)
	if [[ $total =~ ^[0-9]+$ ]] && [ "$total" -gt 0 ]; then
		check_eq "snoop --json: only the filtered command (of $total events)" 0 \
			"$(events "e['comm'] != 'ptscope-bench'")"
	else
		not_ok "snoop --json: only the filtered command: no events to check ('$total')"
	fi
	check_eq "snoop: drops reported" 1 \
		"$(grep -c 'events, 0 dropped' "$TMP/snoop.err")"
else
	snoop_stop 2>/dev/null
	not_ok "snoop did not start: $(head -n2 "$TMP/snoop.err")"
fi

# text mode: one line per call, ends by itself with -d
if snoop_start -c ptscope-bench -d 2; then
	"$BENCH" mremap --size 1036K --align page --count 4 >/dev/null
	wait $snoop_pid
	check_eq "snoop -d 2: exit code" 0 "$?"
	check_eq "snoop text: one line per pte-class mremap" 4 \
		"$(grep -c 'mremap .* class=pte' "$TMP/snoop.out")"
else
	not_ok "snoop -d did not start: $(head -n2 "$TMP/snoop.err")"
fi

finish
