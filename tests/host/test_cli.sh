#!/bin/bash
# Command line behaviour: exit codes, probe's report, top's output, and a
# clean detach on Ctrl-C (no BPF link left behind).
. "$(dirname "$0")/lib.sh"
require_root

# expect_usage NAME ARGS...: exit code 2 and a message on stderr
expect_usage() {
	local name=$1 rc
	shift
	"$PTSCOPE" "$@" >/dev/null 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q 'ptscope:' "$TMP/err"; then
		ok "bad usage ($name) exits 2: $(head -n1 "$TMP/err")"
	else
		not_ok "bad usage ($name): exit $rc, stderr '$(head -n1 "$TMP/err")'"
	fi
}

expect_usage "unknown command" frobnicate
expect_usage "unknown option" top --nope
expect_usage "stat without command" stat
expect_usage "bad interval" top -i 0
expect_usage "bad pid" top -p abc
expect_usage "comm too long" top -c abcdefghijklmnopq
expect_usage "bad mode" probe --mode magic
expect_usage "extra argument" probe extra

"$PTSCOPE" --help >"$TMP/help" 2>&1
check_eq "--help exits 0 and lists stat" "0 yes" "$? $(grep -q 'stat \[OPTS\] -- CMD' "$TMP/help" && echo yes)"

# probe: every catalog metric with a status; unavailable ones say why
if "$PTSCOPE" probe --json >"$TMP/probe.json" 2>"$TMP/err"; then
	check_eq "probe --json: metrics listed" \
		"mremap.calls mremap.folio_lookups mremap.levels mremap.move_page_tables mremap.pte_batches task.exit thp.collapse thp.fault_alloc" \
		"$(json "$TMP/probe.json" "' '.join(sorted(d['metrics']))")"
	check_eq "probe --json: every status known" True \
		"$(json "$TMP/probe.json" "all(m['status'] in ('exact', 'inferred', 'unavailable') for m in d['metrics'].values())")"
	check_eq "probe --json: unavailable ones have a reason" True \
		"$(json "$TMP/probe.json" "all(m.get('reason') for m in d['metrics'].values() if m['status'] == 'unavailable')")"
	check_eq "probe --json: mremap.calls attached here" exact \
		"$(json "$TMP/probe.json" "d['metrics']['mremap.calls']['status']")"
else
	not_ok "ptscope probe --json failed: $(head -n1 "$TMP/err")"
fi

# This box refuses fentry (EPERM) and has no kprobes: probe must say so.
if [ -z "${PTSCOPE_KERNEL_HAS_FENTRY:-}" ]; then
	"$PTSCOPE" probe >"$TMP/probe.txt" 2>&1
	if grep -q 'fentry: load refused, EPERM' "$TMP/probe.txt" &&
	   grep -q 'move_pgt_entry: inlined, no symbol' "$TMP/probe.txt"; then
		ok "probe explains fentry refusal and inlining"
	else
		not_ok "probe text lacks the fentry/inlining reasons"
	fi
fi

# link_count: BPF links on the box; nothing (a failed check) when bpftool
# cannot list them, so "0 before, 0 after" is never a pass by default
link_count() {
	local out
	out=$(bpftool link show 2>"$TMP/bpftool.err") || {
		echo "# bpftool link show failed: $(head -n1 "$TMP/bpftool.err")" >&2
		return 1
	}
	grep -c '^[0-9]*:' <<<"$out"
}

# wait_tracing PID ERRFILE: until ptscope reports it is tracing
wait_tracing() {
	local i
	for i in $(seq 1 100); do
		grep -q 'tracing, Ctrl-C to stop' "$2" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# top, not on a tty: plain blocks; Ctrl-C detaches everything
before=$(link_count)
"$PTSCOPE" top -i 0.5 >"$TMP/top.out" 2>"$TMP/top.err" &
pid=$!
if wait_tracing $pid "$TMP/top.err"; then
	during=$(link_count)
	"$BENCH" mremap --size 16M --align pmd --count 4 >/dev/null
	sleep 1.2
	kill -INT $pid
	wait $pid
	rc=$?
	check_eq "top: exit code after Ctrl-C" 0 "$rc"
	# the witness: bpftool saw top's links appear
	if [[ $before =~ ^[0-9]+$ && $during =~ ^[0-9]+$ ]] &&
	   [ "$during" -gt "$before" ]; then
		ok "top: links attached while tracing > before ($before -> $during)"
		check_eq "top: no BPF link left after Ctrl-C" "$before" "$(link_count)"
	else
		not_ok "top: links while tracing: '$before' -> '$during', so no witness for the Ctrl-C detach"
	fi
	if [ -s "$TMP/top.out" ]; then
		check_eq "top: no screen control codes off a tty" 0 "$(grep -c $'\033' "$TMP/top.out")"
	else
		not_ok "top: no screen control codes off a tty: top printed nothing"
	fi
	check_eq "top: saw the bench's pmd moves" 4 \
		"$(awk '$2 == "ptscope-bench" { s += $5 } END { print s + 0 }' "$TMP/top.out")"
else
	kill $pid 2>/dev/null
	not_ok "top did not start tracing: $(head -n2 "$TMP/top.err")"
fi

# top --json -d: one JSON object per interval, ends by itself
"$PTSCOPE" top --json -i 0.5 -d 1.5 -c ptscope-bench >"$TMP/top.json" 2>"$TMP/top.err" &
pid=$!
if wait_tracing $pid "$TMP/top.err"; then
	"$BENCH" mremap --size 1036K --align page --count 7 >/dev/null
	wait $pid
	check_eq "top --json -d 1.5: exit code" 0 "$?"
	check_eq "top --json: 3 interval objects" 3 "$(wc -l <"$TMP/top.json")"
	check_eq "top --json: pte moves over the intervals" 7 \
		"$(python3 -c 'import json, sys
print(sum(json.loads(l)["mremap"]["classes"]["pte"]["calls"] for l in open(sys.argv[1])))' "$TMP/top.json")"
else
	kill $pid 2>/dev/null
	not_ok "top --json did not start tracing: $(head -n2 "$TMP/top.err")"
fi

# -p: only that process, while another runs the same workload
sh -c "sleep 1.5; exec $BENCH mremap --size 16M --align pmd --count 2" >/dev/null &
target=$!
"$PTSCOPE" top --json -i 0.5 -d 3.5 -p $target >"$TMP/pid.json" 2>"$TMP/pid.err" &
pid=$!
if wait_tracing $pid "$TMP/pid.err"; then
	"$BENCH" mremap --size 16M --align pmd --count 5 >/dev/null
	wait $target
	wait $pid
	check_eq "top -p: only the chosen process's pmd moves" 2 \
		"$(python3 -c 'import json, sys
print(sum(json.loads(l)["mremap"]["classes"]["pmd"]["calls"] for l in open(sys.argv[1])))' "$TMP/pid.json")"
else
	kill $pid $target 2>/dev/null
	not_ok "top -p did not start tracing: $(head -n2 "$TMP/pid.err")"
fi

finish
