#!/bin/sh
# make bench-overhead: what tracing adds to the work it watches.
#
# One interleaved run: for each round, for each tracer in order (none, the
# floor, the floor with BPF run-time statistics on (ptscope-floor --stats:
# what an empty program's run costs, timed as ptscope's are), ptscope top,
# export, stat -- CMD, export --metric
# mremap.folio_lookups, bpftrace with ptscope's counting, bpftrace with
# only @=count(), ptscope export --bpf-stats, then the parts ladder:
# export --bpf-stats --parts with one part more at each step, from the
# calls' state alone to every part), start the tracer, wait until it is ready (timed), run
# every workload (ptscope-bench loops, stress-ng bigheap), note its ns per
# operation and the tracer's RSS, stop the tracer.  Then per workload: the
# median ns/op and min-max over the rounds, the ns added against no
# tracer, and the ratios of added cost ptscope/floor and ptscope/bpftrace;
# per tracer: time to ready and RSS; per workload, what each of ptscope's
# BPF programs ran as the kernel timed it under --bpf-stats; per workload
# and part, what it added to the wall time and to the BPF run time per
# operation (a ladder step against the one before).  A tracer or workload that cannot run
# here gets a row saying why, never a number.  Raw rows go to
# $OUT/overhead-*.tsv.
#
# POSIX sh: it also runs inside the qemu matrix's busybox initramfs
# (--vm: static binaries on PATH, ratios only, since TCG distorts times).
#
# Usage: bench/overhead.sh [--rounds R] [--tiny] [--vm] [--mode MODE]
#                          [--out DIR] [--report]
#   --tiny   iteration counts for a smoke run (make check), 1 round unless
#            --rounds says otherwise
#   --mode   ptscope's --mode (auto, fentry, kprobe, tracepoint, patched)
#   --report only print the tables again, from the rows in --out
# Environment: PTSCOPE, BENCH, FLOOR, BPFTRACE, STRESS_NG, PORT, THP_SYSFS,
# BASELINE (another build's ptscope: its export, with and without
# --bpf-stats, runs in the same rounds, for before/after figures); the
# counts INPLACE_N, MOVE_PMD_N, MOVE_PTE_N, FAULT_MB, FAULT_N, THP_MB,
# THP_N, BIGHEAP_S, SYSCALL_N.  Needs root (BPF, and the THP knobs it sets for the
# mTHP loop and restores).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
ROUNDS=5
rounds_set=0
REPORT=0
TINY=0
VM=0
MODE=auto
OUT=$top/build/bench
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=$2; rounds_set=1; shift ;;
	--tiny) TINY=1 ;;
	--vm) VM=1 ;;
	--mode) MODE=$2; shift ;;
	--out) OUT=$2; shift ;;
	--report) REPORT=1 ;;
	*) echo "usage: $0 [--rounds R] [--tiny] [--vm] [--mode MODE] [--out DIR] [--report]" >&2
	   exit 2 ;;
	esac
	shift
done

# a binary of the build tree, else the one on PATH (the VM)
pick() {
	if [ -x "$top/build/$1" ]; then echo "$top/build/$1"; else echo "$1"; fi
}
PTSCOPE=${PTSCOPE:-$(pick ptscope)}
BENCH=${BENCH:-$(pick ptscope-bench)}
FLOOR=${FLOOR:-$(pick ptscope-floor)}
BPFTRACE=${BPFTRACE:-bpftrace}
STRESS_NG=${STRESS_NG:-stress-ng}
PORT=${PORT:-19477}
BT=$here/overhead.bt

if [ "$TINY" = 1 ]; then
	INPLACE_N=${INPLACE_N:-200} MOVE_PMD_N=${MOVE_PMD_N:-20}
	MOVE_PTE_N=${MOVE_PTE_N:-10} FAULT_MB=${FAULT_MB:-4} FAULT_N=${FAULT_N:-1}
	THP_MB=${THP_MB:-8} THP_N=${THP_N:-1} BIGHEAP_S=${BIGHEAP_S:-1}
	SYSCALL_N=${SYSCALL_N:-1000}
	[ "$rounds_set" = 1 ] || ROUNDS=1
fi
if [ "$VM" = 1 ]; then	# TCG runs these some 20 times slower
	INPLACE_N=${INPLACE_N:-5000} MOVE_PMD_N=${MOVE_PMD_N:-2000}
	MOVE_PTE_N=${MOVE_PTE_N:-200} FAULT_MB=${FAULT_MB:-16} FAULT_N=${FAULT_N:-2}
	THP_MB=${THP_MB:-16} THP_N=${THP_N:-2} SYSCALL_N=${SYSCALL_N:-20000}
fi
INPLACE_N=${INPLACE_N:-100000}	# 2 mremap calls each
MOVE_PMD_N=${MOVE_PMD_N:-100000}
MOVE_PTE_N=${MOVE_PTE_N:-10000}
FAULT_MB=${FAULT_MB:-64}
FAULT_N=${FAULT_N:-4}
THP_MB=${THP_MB:-64}
THP_N=${THP_N:-8}
BIGHEAP_S=${BIGHEAP_S:-3}
SYSCALL_N=${SYSCALL_N:-1000000}
READY_S=60
[ "$VM" = 1 ] && READY_S=300

# the parts ladder: each step keeps one part more (export --parts)
LADDER="part_none part_counts part_hists part_procs part_cgroups part_marker"
# BASELINE: another build's ptscope, for before/after rows in the same run
BASELINE=${BASELINE:-}
if [ -n "$BASELINE" ]; then
	TRACERS=${TRACERS:-"none floor floor_stats top export base_export stat folio bpftrace bpftrace_count bpf_stats base_bpf_stats $LADDER"}
else
	TRACERS=${TRACERS:-"none floor floor_stats top export stat folio bpftrace bpftrace_count bpf_stats $LADDER"}
fi
WORKLOADS=${WORKLOADS:-"inplace move_pmd move_pte fault_4k fault_mthp fault_pmd bigheap syscall"}

TMP=$(mktemp -d /tmp/ptscope-overhead.XXXXXX)
mkdir -p "$OUT"
RES=$OUT/overhead-runs.tsv	# workload tracer round ns_per_op
TRC=$OUT/overhead-tracers.tsv	# tracer round ready_ms vmhwm_kb vmrss_kb
WHY=$OUT/overhead-skips.tsv	# tracer workload reason
PRG=$OUT/overhead-programs.tsv	# workload tracer round program runs run_ns ops
if [ "$REPORT" = 0 ]; then
	printf 'workload\ttracer\tround\tns_per_op\n' >"$RES"
	printf 'tracer\tround\tready_ms\tvmhwm_kb\tvmrss_kb\n' >"$TRC"
	printf 'tracer\tworkload\treason\n' >"$WHY"
	printf 'workload\ttracer\tround\tprogram\truns\trun_ns\tops\n' >"$PRG"
fi

THP=${THP_SYSFS:-/sys/kernel/mm/transparent_hugepage}
PAGE_KB=$(($("$BENCH" fault-loop --size 1M --count 0 |
	sed -n 's/.*page_size=\([0-9]*\).*/\1/p') / 1024))
PMD_KB=$((PAGE_KB * PAGE_KB * 1024 / 8))	# a page of 8-byte entries
MTHP_KB=64
tpid=

# ------------------------------------------------------------ helpers

now_ms() {
	t=$(date +%s%N 2>/dev/null)
	case $t in
	*[!0-9]*|'') awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime ;;
	*) echo $((t / 1000000)) ;;
	esac
}

skip() {	# skip TRACER WORKLOAD REASON
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$WHY"
}

has_skip() {	# has_skip TRACER WORKLOAD
	awk -F'\t' -v t="$1" -v w="$2" '$1 == t && ($2 == w || $2 == "*") { f = 1 }
		END { exit !f }' "$WHY"
}

knob() {	# knob FILE: the [selected] word of a THP knob, or nothing
	[ -r "$1" ] && sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$1"
}

set_knob() {	# set_knob FILE VALUE, when the kernel has it
	[ -w "$1" ] && echo "$2" >"$1" 2>/dev/null
	return 0
}

# THP knobs the fault loops change, put back on exit
saved_enabled=$(knob "$THP/enabled")
saved_mthp=$(knob "$THP/hugepages-${MTHP_KB}kB/enabled")
saved_pmd=$(knob "$THP/hugepages-${PMD_KB}kB/enabled")
restore() {
	stop_tracer
	[ -n "$saved_enabled" ] && set_knob "$THP/enabled" "$saved_enabled"
	[ -n "$saved_mthp" ] && set_knob "$THP/hugepages-${MTHP_KB}kB/enabled" "$saved_mthp"
	[ -n "$saved_pmd" ] && set_knob "$THP/hugepages-${PMD_KB}kB/enabled" "$saved_pmd"
	rm -rf "$TMP"
}
trap restore EXIT
trap 'exit 1' INT TERM

# fetch_metrics [FILE]: the tracer's /metrics page (to FILE, else dropped)
fetch_metrics() {
	if command -v curl >/dev/null; then
		curl -sf --max-time 5 -o "${1:-/dev/null}" "http://127.0.0.1:$PORT/metrics"
	else
		timeout 5 wget -q -O "${1:-/dev/null}" "http://127.0.0.1:$PORT/metrics" \
			2>/dev/null
	fi
}

# prom_stats PAGE: "program runs run_ns" (tab-separated) per BPF program
# of an --bpf-stats /metrics page
prom_stats() {
	awk '
	function prog(s) { sub(/^[^"]*"/, "", s); sub(/".*/, "", s); return s }
	/^ptscope_bpf_program_runs_total\{/ { k = prog($1); runs[k] = $2 }
	/^ptscope_bpf_program_run_seconds_total\{/ { k = prog($1); secs[k] = $2 }
	END {
		for (k in runs)
			printf "%s\t%s\t%.0f\n", k, runs[k], secs[k] * 1e9
	}' "$1"
}

# floor_stats FILE: ptscope-floor --stats's next report ($tpid: SIGUSR1,
# then its "stats" lines up to "end N") as "program runs run_ns"
floor_stats() {
	seen=$(grep -c '^end ' "$TMP/t.out")
	kill -USR1 "$tpid" 2>/dev/null || return 1
	i=0
	while [ "$(grep -c '^end ' "$TMP/t.out")" -le "$seen" ]; do
		[ $i -ge 500 ] && return 1	# 5 s
		sleep 0.01
		i=$((i + 1))
	done
	awk -F'\t' -v n="$((seen + 1))" '
	$1 == "stats" { row[++k] = $2 "\t" $3 "\t" $4 }
	$0 == "end " n { for (i = 1; i <= k; i++) print row[i]; exit }
	/^end / { k = 0 }' "$TMP/t.out" >"$1"
}

# stats_page TRACER FILE: the BPF run-time statistics TRACER shows now
stats_page() {
	if [ "$1" = floor_stats ]; then
		floor_stats "$2"
	else
		fetch_metrics "$TMP/page.prom" && prom_stats "$TMP/page.prom" >"$2"
	fi
}

# is_stats_tracer TRACER: does it run with BPF run-time statistics on?
is_stats_tracer() {
	case $1 in
	floor_stats|bpf_stats|base_bpf_stats|part_*) return 0 ;;
	esac
	return 1
}

# program_rows WORKLOAD TRACER ROUND BEFORE AFTER: one $PRG row per BPF
# program that ran between two stats_page snapshots (runs, and run time
# in ns, as the kernel's bpf_prog_stats counted them), with the workload's ops
program_rows() {
	ops=$(workload_ops "$1")
	awk -F'\t' -v w="$1" -v t="$2" -v r="$3" -v ops="$ops" '
	FILENAME == ARGV[1] { r0[$1] = $2; s0[$1] = $3; next }
	{ r1[$1] = $2; s1[$1] = $3; seen[$1] = 1 }
	END {
		for (k in seen)
			if (r1[k] - r0[k] > 0)
				printf "%s\t%s\t%s\t%s\t%d\t%.0f\t%s\n", w, t, r,
					k, r1[k] - r0[k], s1[k] - s0[k], ops
	}' "$4" "$5" >>"$PRG"
}

# ------------------------------------------------------------ workloads

# why WORKLOAD cannot run here, or nothing
workload_why() {
	case $1 in
	fault_mthp)
		[ -w "$THP/hugepages-${MTHP_KB}kB/enabled" ] ||
			echo "no $THP/hugepages-${MTHP_KB}kB (mTHP: 6.8+)" ;;
	fault_pmd)
		[ -w "$THP/enabled" ] || echo "no $THP/enabled (THP not built in)" ;;
	bigheap)
		if [ "$VM" = 1 ]; then
			echo "not in the VM image (static binaries only)"
		elif ! command -v "$STRESS_NG" >/dev/null; then
			echo "stress-ng not installed (make deps)"
		fi ;;
	esac
}

# the THP settings a fault loop needs
workload_knobs() {
	case $1 in
	fault_mthp)
		set_knob "$THP/hugepages-${MTHP_KB}kB/enabled" always
		set_knob "$THP/hugepages-${PMD_KB}kB/enabled" never ;;
	fault_pmd)
		[ "$saved_enabled" = never ] && set_knob "$THP/enabled" madvise
		set_knob "$THP/hugepages-${MTHP_KB}kB/enabled" never
		set_knob "$THP/hugepages-${PMD_KB}kB/enabled" inherit ;;
	esac
}

# run_workload WORKLOAD [WRAPPER...]: run it (under WRAPPER, e.g. ptscope
# stat --), output in $TMP/wl.out; $TMP/wl.pid holds the pid to watch
run_workload() {
	w=$1
	shift
	workload_knobs "$w"
	case $w in
	inplace) set -- "$@" "$BENCH" inplace-loop --count "$INPLACE_N" ;;
	move_pmd) set -- "$@" "$BENCH" move-loop --class pmd --count "$MOVE_PMD_N" ;;
	move_pte) set -- "$@" "$BENCH" move-loop --class page --count "$MOVE_PTE_N" ;;
	fault_4k) set -- "$@" "$BENCH" fault-loop --size "${FAULT_MB}M" \
		--count "$FAULT_N" --thp never ;;
	fault_mthp) set -- "$@" "$BENCH" fault-loop --size "${THP_MB}M" \
		--count "$THP_N" --thp default --folio "${MTHP_KB}K" ;;
	fault_pmd) set -- "$@" "$BENCH" fault-loop --size "${THP_MB}M" \
		--count "$THP_N" --thp always --folio pmd ;;
	syscall) set -- "$@" "$BENCH" syscall-loop --count "$SYSCALL_N" ;;
	# bigheap grows the heap until realloc fails: cap stress-ng alone at
	# 2 GiB, never a tracer in front of it (an ASan ptscope stat reserves
	# terabytes of shadow memory)
	# shellcheck disable=SC2016,SC3045 # $@ of the inner sh; ulimit -v
	bigheap) set -- "$@" sh -c 'ulimit -v 2097152 2>/dev/null; exec "$@"' \
		sh "$STRESS_NG" --bigheap 1 -t "${BIGHEAP_S}s" --metrics-brief ;;
	esac
	"$@" >"$TMP/wl.out" 2>&1 &
	wpid=$!
	hwm=
	if [ "${watch:-0}" = 1 ]; then
		while kill -0 "$wpid" 2>/dev/null; do
			h=$(vm_kb "$wpid" VmHWM)
			[ -n "$h" ] && hwm=$h
			sleep 0.2
		done
	fi
	wait "$wpid"
}

# operations the workload made (its ops=, stress-ng's bogo ops)
workload_ops() {
	case $1 in
	bigheap) awk '$4 == "bigheap" { print $5 }' "$TMP/wl.out" ;;
	*) sed -n 's/^loop=.* ops=\([0-9]*\) .*/\1/p' "$TMP/wl.out" ;;
	esac
}

# ns per operation from the workload's output, or nothing
workload_ns() {
	case $1 in
	bigheap)
		# "stress-ng: info: [pid] bigheap OPS REAL USR SYS OPS/S ..."
		awk '$4 == "bigheap" && $9 + 0 > 0 { printf "%.1f\n", 1e9 / $9 }' \
			"$TMP/wl.out" ;;
	*)
		sed -n 's/^loop=.* ns_per_op=\([0-9.]*\)$/\1/p' "$TMP/wl.out" ;;
	esac
}

vm_kb() {	# vm_kb PID FIELD: VmHWM/VmRSS in kB
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null
}

# ------------------------------------------------------------ tracers

# why TRACER cannot run here, or nothing (asked once, before round 1)
tracer_why() {
	case $1 in
	floor|floor_stats)
		if ! "$PTSCOPE" probe --json --mode "$MODE" -o "$TMP/hooks.json" \
			2>"$TMP/probe.err"; then
			echo "ptscope probe failed: $(tail -n1 "$TMP/probe.err")"
		elif ! command -v "$FLOOR" >/dev/null; then
			echo "no $FLOOR (make all)"
		fi ;;
	folio)
		"$PTSCOPE" probe --mode "$MODE" --metric mremap.folio_lookups \
			>"$TMP/folio.txt" 2>&1
		sed -n 's/^  mremap\.folio_lookups *unavailable: //p' "$TMP/folio.txt" |
			cut -c1-160 ;;
	base_*)
		if [ -z "$BASELINE" ]; then
			echo "no BASELINE=PATH to another build's ptscope"
		elif ! [ -x "$BASELINE" ]; then
			echo "BASELINE $BASELINE is no executable"
		fi ;;
	bpftrace|bpftrace_count)
		if [ "$VM" = 1 ]; then
			echo "not in the VM image (static binaries only)"
		elif ! command -v "$BPFTRACE" >/dev/null; then
			echo "bpftrace not installed (make deps)"
		fi ;;
	esac
}

# part_list TRACER: export --parts of a step of the ladder, or nothing
part_list() {
	case $1 in
	part_none) echo none ;;
	part_counts) echo counts ;;
	part_hists) echo counts,hists ;;
	part_procs) echo counts,hists,proc-rows ;;
	part_cgroups) echo counts,hists,proc-rows,cgroup-rows ;;
	part_marker) echo counts,hists,proc-rows,cgroup-rows,pte-marker ;;
	esac
}

# start_tracer TRACER: starts it in the background ($tpid), waits until it
# is ready and sets $ready to the ms that took; or fails with a reason in
# $TMP/t.why.  Not in a subshell: $tpid must stay this shell's child.
start_tracer() {
	t=$1
	tpid=
	rm -f "$TMP/t.out" "$TMP/t.err"
	: >"$TMP/t.out"
	: >"$TMP/t.err"
	t0=$(now_ms)
	case $t in
	none|stat) ready=; return 0 ;;
	floor) "$FLOOR" --hooks "$TMP/hooks.json" >"$TMP/t.out" 2>"$TMP/t.err" & ;;
	floor_stats) "$FLOOR" --stats --hooks "$TMP/hooks.json" >"$TMP/t.out" \
		2>"$TMP/t.err" & ;;
	top) "$PTSCOPE" top --mode "$MODE" -i 1 >/dev/null 2>"$TMP/t.err" & ;;
	export) "$PTSCOPE" export --mode "$MODE" --listen "127.0.0.1:$PORT" \
		>"$TMP/t.out" 2>"$TMP/t.err" & ;;
	folio) "$PTSCOPE" export --mode "$MODE" --metric mremap.folio_lookups \
		--listen "127.0.0.1:$PORT" >"$TMP/t.out" 2>"$TMP/t.err" & ;;
	bpf_stats) "$PTSCOPE" export --mode "$MODE" --bpf-stats \
		--listen "127.0.0.1:$PORT" >"$TMP/t.out" 2>"$TMP/t.err" & ;;
	base_export) "$BASELINE" export --mode "$MODE" \
		--listen "127.0.0.1:$PORT" >"$TMP/t.out" 2>"$TMP/t.err" & ;;
	base_bpf_stats) "$BASELINE" export --mode "$MODE" --bpf-stats \
		--listen "127.0.0.1:$PORT" >"$TMP/t.out" 2>"$TMP/t.err" & ;;
	part_*) "$PTSCOPE" export --mode "$MODE" --bpf-stats \
		--parts "$(part_list "$t")" --listen "127.0.0.1:$PORT" \
		>"$TMP/t.out" 2>"$TMP/t.err" & ;;
	bpftrace) "$BPFTRACE" "$BT" >"$TMP/t.out" 2>"$TMP/t.err" & ;;
	bpftrace_count) "$BPFTRACE" -e 'tracepoint:syscalls:sys_enter_mremap,
		tracepoint:syscalls:sys_exit_mremap { @ = count(); }' \
		>"$TMP/t.out" 2>"$TMP/t.err" & ;;
	esac
	tpid=$!
	deadline=$(($(now_ms) + READY_S * 1000))
	while :; do
		case $t in
		floor|floor_stats) grep -q '^ready' "$TMP/t.out" && break ;;
		top) grep -q 'tracing, Ctrl-C' "$TMP/t.err" && break ;;
		export|folio|bpf_stats|base_*|part_*) fetch_metrics && break ;;
		bpftrace*) grep -q '^Attaching' "$TMP/t.out" && break ;;
		esac
		if ! kill -0 "$tpid" 2>/dev/null; then
			wait "$tpid"
			echo "exited $?: $(tail -n1 "$TMP/t.err" | cut -c1-160)" >"$TMP/t.why"
			tpid=
			return 1
		fi
		if [ "$(now_ms)" -gt "$deadline" ]; then
			echo "not ready after $READY_S s" >"$TMP/t.why"
			stop_tracer
			return 1
		fi
		sleep 0.01
	done
	ready=$(($(now_ms) - t0))
}

# Ctrl-C, then SIGTERM after 10 s
stop_tracer() {
	[ -n "$tpid" ] || return 0
	kill -INT "$tpid" 2>/dev/null
	i=0
	while kill -0 "$tpid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -TERM "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
	tpid=
}

# ------------------------------------------------------------ the run

[ "$REPORT" = 1 ] && ROUNDS=0	# only the tables, from $OUT's rows
for t in $TRACERS; do
	[ "$REPORT" = 1 ] && break
	why=$(tracer_why "$t")
	[ -n "$why" ] && skip "$t" '*' "$why"
done
for w in $WORKLOADS; do
	[ "$REPORT" = 1 ] && break
	why=$(workload_why "$w")
	[ -n "$why" ] && skip '*' "$w" "$why"
done

# one untimed pass first: the first THP faults of a run pay for compaction
for w in $WORKLOADS; do
	[ "$REPORT" = 1 ] && break
	has_skip '*' "$w" || watch=0 run_workload "$w"
done

round=1
while [ "$round" -le "$ROUNDS" ]; do
	for t in $TRACERS; do
		has_skip "$t" '*' && continue
		if ! start_tracer "$t"; then
			skip "$t" '*' "round $round: $(cat "$TMP/t.why")"
			continue
		fi
		hwm='' rss='' shwm=''
		for w in $WORKLOADS; do
			has_skip '*' "$w" && continue
			if [ "$t" = stat ]; then
				watch=1 run_workload "$w" "$PTSCOPE" stat --mode "$MODE" \
					-o "$TMP/stat.txt" --
			elif is_stats_tracer "$t"; then
				# both snapshots or no row (a missing one is no zero)
				rm -f "$TMP/before.tsv" "$TMP/after.tsv"
				stats_page "$t" "$TMP/before.tsv"
				watch=0 run_workload "$w"
				rc=$?
				[ -s "$TMP/before.tsv" ] && stats_page "$t" "$TMP/after.tsv" &&
					program_rows "$w" "$t" "$round" "$TMP/before.tsv" \
						"$TMP/after.tsv"
				(exit $rc)
			else
				watch=0 run_workload "$w"
			fi
			rc=$?
			ns=$(workload_ns "$w")
			if [ $rc -ne 0 ] || [ -z "$ns" ]; then
				skip "$t" "$w" "round $round: exit $rc: $(tail -n1 "$TMP/wl.out" | cut -c1-160)"
				continue
			fi
			printf '%s\t%s\t%s\t%s\n' "$w" "$t" "$round" "$ns" >>"$RES"
			[ "$t" = stat ] && [ -n "$hwm" ] &&
				[ "$hwm" -gt "${shwm:-0}" ] && shwm=$hwm
		done
		if [ -n "$tpid" ]; then
			hwm=$(vm_kb "$tpid" VmHWM)
			rss=$(vm_kb "$tpid" VmRSS)
		elif [ "$t" = stat ]; then
			hwm=$shwm
		fi
		stop_tracer
		printf '%s\t%s\t%s\t%s\t%s\n' "$t" "$round" "$ready" "${hwm:-}" \
			"${rss:-}" >>"$TRC"
	done
	round=$((round + 1))
done

# ------------------------------------------------------------ the tables

[ "$REPORT" = 1 ] &&
	ROUNDS=$(awk -F'\t' 'NR > 1 && $3 > m { m = $3 } END { print m + 0 }' "$RES")

echo "ptscope overhead: kernel $(uname -r) $(uname -m), page size ${PAGE_KB} KiB," \
	"ptscope --mode $MODE, $ROUNDS round(s), $(date -u '+%Y-%m-%d %H:%M UTC')"
[ "$TINY" = 1 ] && echo "(--tiny: smoke-test counts, the numbers mean nothing)"
[ "$VM" = 1 ] && echo "(--vm: under TCG only ratios mean something)"
# awk functions both tables use: the median of val[key, 1..cnt[key]]
# (lo[key] and hi[key] set to its range), the reason a cell has no data
AWK_COMMON='
function median(key,   n, i, j, v, a) {
	n = cnt[key]
	for (i = 1; i <= n; i++) a[i] = val[key, i]
	for (i = 2; i <= n; i++) {	# insertion sort
		v = a[i]
		for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]
		a[j + 1] = v
	}
	lo[key] = a[1]; hi[key] = a[n]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function reason(t, w) {
	if ((t, w) in why) return why[t, w]
	if ((t, "*") in why) return why[t, "*"]
	if (("*", w) in why) return why["*", w]
	return ""
}
FILENAME ~ /skips/ && FNR > 1 { if (!(($1, $2) in why)) why[$1, $2] = $3 }
'
awk -F'\t' -v vm="$VM" -v tracers="$TRACERS" -v workloads="$WORKLOADS" \
	-v page_kb="$PAGE_KB" -v pmd_kb="$PMD_KB" -v mthp_kb="$MTHP_KB" "$AWK_COMMON"'
# a / b; n/a when either is not above 0 (the added cost lost in noise)
function ratio(a, b) {
	return (a != "" && a > 0 && b > 0) ? sprintf("%.2f", a / b) : "n/a"
}
FILENAME ~ /runs/ && FNR > 1 {
	k = $1 SUBSEP $2; val[k, ++cnt[k]] = $4
}
FILENAME ~ /tracers/ && FNR > 1 {
	if ($3 != "") { rk = $1; rv[rk, ++rc[rk]] = $3 }
	if ($4 != "" && $4 + 0 > hwm[$1]) hwm[$1] = $4 + 0
	if ($5 != "") rss[$1] = $5
}
END {
	label["none"] = "none"; label["floor"] = "floor (empty programs)"
	label["floor_stats"] = "floor, BPF statistics on"
	label["top"] = "ptscope top"; label["export"] = "ptscope export"
	label["stat"] = "ptscope stat -- CMD"
	label["folio"] = "ptscope export --metric mremap.folio_lookups"
	label["bpf_stats"] = "ptscope export --bpf-stats"
	label["base_export"] = "export, the BASELINE build"
	label["base_bpf_stats"] = "export --bpf-stats, the BASELINE build"
	label["bpftrace"] = "bpftrace, same counts"
	label["bpftrace_count"] = "bpftrace, @=count() on mremap"
	label["part_none"] = "export --bpf-stats --parts none"
	label["part_counts"] = "  ... --parts counts"
	label["part_hists"] = "  ... + hists"
	label["part_procs"] = "  ... + proc-rows"
	label["part_cgroups"] = "  ... + cgroup-rows"
	label["part_marker"] = "  ... + pte-marker (every part)"
	title["inplace"] = page_kb " KiB in-place grow/shrink mremap loop, ns per mremap"
	title["move_pmd"] = "moving mremap, PMD class (" 2 * pmd_kb / 1024 " MiB ping-pong), ns per mremap"
	title["move_pte"] = "moving mremap, PTE class (" 2 * pmd_kb / 1024 " MiB, a page off), ns per mremap"
	title["fault_4k"] = page_kb " KiB fault loop, ns per fault"
	title["fault_mthp"] = mthp_kb " KiB mTHP fault loop, ns per fault"
	title["fault_pmd"] = pmd_kb / 1024 " MiB THP fault loop (MADV_HUGEPAGE), ns per fault"
	title["bigheap"] = "stress-ng --bigheap 1, ns per bogo op (realloc)"
	title["syscall"] = "getppid() loop, a syscall ptscope does not trace: what every other syscall pays, ns per syscall"
	nt = split(tracers, T, " "); nw = split(workloads, W, " ")
	for (i = 1; i <= nw; i++) {
		w = W[i]
		printf "\n%s: %s\n", w, title[w]
		if (vm)
			printf "  %-46s %8s %8s %10s\n", "tracer", "x none", "/floor", "/bpftrace"
		else
			printf "  %-46s %9s %19s %9s %7s %9s\n", "tracer", "median",
				"min-max", "added", "/floor", "/bpftrace"
		base = ""
		for (j = 1; j <= nt; j++) {
			t = T[j]; k = w SUBSEP t
			med[t] = cnt[k] ? median(k) : ""
			if (t == "none") base = med[t]
		}
		for (j = 1; j <= nt; j++) {
			t = T[j]
			add[t] = (base == "" || med[t] == "") ? "" : med[t] - base
		}
		for (j = 1; j <= nt; j++) {
			t = T[j]; k = w SUBSEP t
			if (med[t] == "") {
				r = reason(t, w)
				if (r == "") r = "no data"
				printf "  %-46s not run: %s\n", label[t], r
				continue
			}
			rf = rb = ""
			if (t != "none" && t !~ /^floor/ && t !~ /^bpftrace/) {
				rf = ratio(add[t], add["floor"])
				rb = ratio(add[t], add["bpftrace"])
			}
			if (vm) {
				printf "  %-46s %8s %8s %10s\n", label[t],
					ratio(med[t], base), rf, rb
				continue
			}
			as = "-"
			if (t != "none")
				as = add[t] == "" ? "n/a" : sprintf("%+.1f", add[t])
			printf "  %-46s %9.1f %9.1f-%-9.1f %9s %7s %9s\n", label[t],
				med[t], lo[k], hi[k], as, rf, rb
		}
	}
	printf "\ntracers: time to ready (median), peak and last RSS\n"
	printf "  %-46s %9s %10s %10s\n", "tracer", "ready s", "VmHWM MB", "VmRSS MB"
	for (j = 1; j <= nt; j++) {
		t = T[j]
		if (t == "none") continue
		if (!((t, 1) in rv) && !(t in hwm)) {
			r = reason(t, "*")
			if (r == "") r = "no data"
			printf "  %-46s not run: %s\n", label[t], r
			continue
		}
		rdy = "-"
		if (vm && t != "stat")
			rdy = "(tcg)"
		else if (rc[t] > 0) {
			cnt["ready"] = rc[t]
			for (i = 1; i <= rc[t]; i++) val["ready", i] = rv[t, i]
			rdy = sprintf("%.3f", median("ready") / 1000)
		}
		h = "-"; r = "-"
		if (t in hwm) h = sprintf("%.1f", hwm[t] / 1024)
		if (t in rss) r = sprintf("%.1f", rss[t] / 1024)
		printf "  %-46s %9s %10s %10s\n", label[t], rdy, h, r
	}
}' "$RES" "$WHY" "$TRC" | tee "$OUT/overhead-table.txt"

# what each BPF program cost per workload operation, as the kernel timed
# it (--bpf-stats): summed over the rounds; the share is of the
# operation's mean time under the same tracer, so it holds under TCG
# program_table TRACER TITLE
program_table() {
awk -F'\t' -v vm="$VM" -v workloads="$WORKLOADS" -v tracer="$1" \
	-v title="$2" '
FILENAME ~ /programs/ && FNR > 1 && $2 == tracer {
	k = $1 SUBSEP $4
	if (!(k in runs)) progs[$1] = progs[$1] " " $4
	runs[k] += $5; ns[k] += $6; ops[k] += $7
}
FILENAME ~ /runs/ && FNR > 1 && $2 == tracer {
	op_ns[$1] += $4; op_n[$1]++
}
END {
	printf "\nBPF programs under %s, per workload operation, costliest first\n", title
	nw = split(workloads, W, " ")
	for (i = 1; i <= nw; i++) {
		w = W[i]
		if (!(w in progs)) {
			printf "%s: no program ran (or the tracer did not)\n", w
			continue
		}
		printf "%s:\n  %-34s %9s %9s %9s %8s\n", w, "program", "runs/op",
			"ns/run", "ns/op", "of op"
		np = split(progs[w], P, " ")
		for (j = 1; j <= np; j++)
			cost[j] = ops[w SUBSEP P[j]] ? ns[w SUBSEP P[j]] / ops[w SUBSEP P[j]] : 0
		for (j = 2; j <= np; j++) {	# insertion sort, costliest first
			p = P[j]; c = cost[j]
			for (m = j - 1; m >= 1 && cost[m] < c; m--) {
				P[m + 1] = P[m]; cost[m + 1] = cost[m]
			}
			P[m + 1] = p; cost[m + 1] = c
		}
		for (j = 1; j <= np; j++) {
			k = w SUBSEP P[j]
			per_op = cost[j]
			share = op_n[w] ? sprintf("%.1f%%", 100 * per_op / (op_ns[w] / op_n[w])) : "n/a"
			printf "  %-34s %9.2f %9s %9s %8s\n", P[j],
				ops[k] ? runs[k] / ops[k] : 0,
				vm ? "(tcg)" : sprintf("%.1f", ns[k] / runs[k]),
				vm ? "(tcg)" : sprintf("%.1f", per_op), share
		}
	}
}' "$PRG" "$RES" | tee -a "$OUT/overhead-table.txt"
}
case " $TRACERS " in
*" floor_stats "*)
	program_table floor_stats "the floor's empty programs (ptscope-floor --stats)" ;;
esac
program_table bpf_stats "ptscope export --bpf-stats"
case " $TRACERS " in
*" base_bpf_stats "*)
	program_table base_bpf_stats "the baseline's export --bpf-stats" ;;
esac

# what each part adds: one step of the ladder against the step before
# (--parts none against the floor's empty programs on the same hooks:
# with their BPF statistics on where floor_stats ran, as every step runs
# with ptscope's on, else the plain floor's wall time and no BPF time);
# the BPF run time
# per operation of the workload is summed over programs, its median over
# the rounds given (this box is bimodal: a sum would follow its slow rounds)
awk -F'\t' -v vm="$VM" -v workloads="$WORKLOADS" -v ladder="$LADDER" \
	-v tracers="$TRACERS" "$AWK_COMMON"'
FILENAME ~ /runs/ && FNR > 1 { k = $1 SUBSEP $2; val[k, ++cnt[k]] = $4 }
FILENAME ~ /programs/ && FNR > 1 && $7 > 0 {
	k = $1 SUBSEP $2
	if (!((k, $3) in bpf_round)) rounds[k] = rounds[k] " " $3
	bpf_round[k, $3] += $6 / $7
}
END {
	# the BPF time per operation of each round, as val[] for median()
	for (k in rounds) {
		nr = split(rounds[k], R, " ")
		for (r = 1; r <= nr; r++) val["bpf" SUBSEP k, r] = bpf_round[k, R[r]]
		cnt["bpf" SUBSEP k] = nr
	}
	if (index(" " tracers " ", " part_none ") == 0)
		exit
	n = split(ladder, L, " ")
	name["part_none"] = "none (the calls state only)"
	name["part_counts"] = "counts"; name["part_hists"] = "hists"
	name["part_procs"] = "proc-rows"; name["part_cgroups"] = "cgroup-rows"
	name["part_marker"] = "pte-marker"
	printf "\nwhat each part adds per operation (export --bpf-stats --parts, one part more per step)\n"
	nw = split(workloads, W, " ")
	for (i = 1; i <= nw; i++) {
		w = W[i]
		base = cnt[w SUBSEP "none"] ? median(w SUBSEP "none") : ""
		prev = cnt[w SUBSEP "floor"] ? median(w SUBSEP "floor") : ""
		prev_bpf = 0
		if (vm)
			printf "%s:\n  %-30s %10s %10s %10s\n", w, "part",
				"x none", "BPF of op", "added"
		else
			printf "%s:\n  %-30s %10s %10s %10s %10s\n", w, "part",
				"wall ns", "added", "BPF ns", "added"
		# the empty programs, timed as the steps are (floor_stats)
		k = w SUBSEP "floor_stats"
		if (cnt[k] && cnt["bpf" SUBSEP k]) {
			m = median(k); b = median("bpf" SUBSEP k)
			if (vm) {
				bs = 100 * b / m
				xs = base > 0 ? sprintf("%.3f", m / base) : "n/a"
				printf "  %-30s %10s %9.2f%% %+10.2f\n",
					"empty programs (the floor)", xs, bs, bs
				prev_bpf = bs
			} else {
				as = base == "" ? "n/a" : sprintf("%+.1f", m - base)
				printf "  %-30s %10.1f %10s %10.1f %+10.1f\n",
					"empty programs (the floor)", m, as, b, b
				prev = m; prev_bpf = b
			}
		}
		for (j = 1; j <= n; j++) {
			t = L[j]; k = w SUBSEP t
			if (!cnt[k]) {
				r = reason(t, w)
				printf "  %-30s not run: %s\n", name[t], r == "" ? "no data" : r
				prev = ""; prev_bpf = ""
				continue
			}
			m = median(k)
			b = cnt["bpf" SUBSEP k] ? median("bpf" SUBSEP k) : ""
			if (vm) {
				# under TCG: the BPF time as a share of the operation
				bs = b == "" ? "" : 100 * b / m
				xs = base > 0 ? sprintf("%.3f", m / base) : "n/a"
				ps = bs == "" ? "n/a" : sprintf("%.2f%%", bs)
				ds = (bs == "" || prev_bpf == "") ? "n/a" : sprintf("%+.2f", bs - prev_bpf)
				printf "  %-30s %10s %10s %10s\n", name[t], xs, ps, ds
				prev_bpf = bs
				continue
			}
			as = prev == "" ? "n/a" : sprintf("%+.1f", m - prev)
			bs = b == "" ? "n/a" : sprintf("%.1f", b)
			ds = (b == "" || prev_bpf == "") ? "n/a" : sprintf("%+.1f", b - prev_bpf)
			printf "  %-30s %10.1f %10s %10s %10s\n", name[t], m, as, bs, ds
			prev = m; prev_bpf = b
		}
	}
}' "$RES" "$WHY" "$PRG" | tee -a "$OUT/overhead-table.txt"
echo "raw rows: $RES $TRC $WHY $PRG"
