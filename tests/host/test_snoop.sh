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
	python3 -c 'import datetime, json, sys
n = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if eval(sys.argv[2]):
        n += 1
print(n)' "$TMP/snoop.out" "$1"
}

json_start=$(date -u +%s)
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
	check_eq "snoop --json: every event has an ISO 8601 UTC time after the start" \
		"$total" "$(events "abs(datetime.datetime.strptime(e['time'], '%Y-%m-%dT%H:%M:%S.%fZ').replace(tzinfo=datetime.timezone.utc).timestamp() - $json_start) < 60")"
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

# --time: rel (the default) is seconds since tracing began, wall the local
# time of day with microseconds, both checked against the clock around
# the run; the two events are the bench's two failed calls
# seconds_of_day HH:MM:SS.frac: seconds since local midnight
seconds_of_day() {
	awk -F: '{ printf "%.6f", $1 * 3600 + $2 * 60 + $3 }' <<<"$1"
}

before=$(date +%H:%M:%S.%N)
held_bench fail --count 2
if snoop_start -p $target -d 3 --time wall; then
	touch "$TMP/go"
	wait $target $snoop_pid
	after=$(date +%H:%M:%S.%N)
	check_eq "snoop --time wall: header" "TIME COMM" \
		"$(awk 'NR == 1 { print $1, $2 }' "$TMP/snoop.out")"
	check_eq "snoop --time wall: HH:MM:SS.micro events between the clock readings" \
		"2 2" "$(awk -v a="$(seconds_of_day "$before")" -v b="$(seconds_of_day "$after")" '
		$1 ~ /^[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]+$/ &&
		length($1) == 15 && / class=failed/ {
			n++; split($1, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3]
			# a run across midnight wraps
			if (b < a ? (s >= a || s <= b) : (s >= a && s <= b)) inside++
		} END { print n + 0, inside + 0 }' "$TMP/snoop.out")"
else
	kill $target 2>/dev/null
	not_ok "snoop --time wall did not start: $(head -n2 "$TMP/snoop.err")"
fi

held_bench fail --count 2
if snoop_start -p $target -d 3; then
	touch "$TMP/go"
	wait $target $snoop_pid
	check_eq "snoop (--time rel): header" "TIME(s) COMM" \
		"$(awk 'NR == 1 { print $1, $2 }' "$TMP/snoop.out")"
	check_eq "snoop (--time rel): events at seconds within the 3 s run" 2 \
		"$(awk '$1 ~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$/ && $1 < 3 && / class=failed/ { n++ } END { print n + 0 }' "$TMP/snoop.out")"
else
	kill $target 2>/dev/null
	not_ok "snoop (--time rel) did not start: $(head -n2 "$TMP/snoop.err")"
fi

"$PTSCOPE" snoop --time utc >/dev/null 2>"$TMP/bad.err"
check_eq "snoop --time utc: usage error" 2 "$?"
check_eq "snoop --time utc: says what it takes" 1 \
	"$(grep -c "invalid value 'utc' for --time: rel or wall" "$TMP/bad.err")"

tap_finish
