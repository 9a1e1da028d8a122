#!/bin/bash
# bench/overhead.sh (make bench-overhead) keeps working: one round with
# tiny counts, and the table has a row for every workload and tracer, with
# a number or a reason.  No timing is checked: this is no benchmark.
. "$(dirname "$0")/lib.sh"
require_root

FLOOR=${FLOOR:-build/ptscope-floor}
out=$TMP/bench
PTSCOPE=$PTSCOPE BENCH=$BENCH FLOOR=$FLOOR PORT=$((20000 + $$ % 20000)) \
	./bench/overhead.sh --tiny --out "$out" >"$TMP/table.txt" 2>"$TMP/err.txt"
rc=$?
if [ $rc -eq 0 ]; then
	ok "overhead.sh --tiny exits 0"
else
	not_ok "overhead.sh --tiny exits $rc"
	sed 's/^/#   /' "$TMP/err.txt" | tail -n 20
fi
sed 's/^/# /' "$TMP/table.txt"

WORKLOADS="inplace move_pmd move_pte fault_4k fault_mthp fault_pmd bigheap syscall"
LABELS=("none" "floor (empty programs)" "floor, BPF statistics on"
	"ptscope top" "ptscope export"
	"ptscope stat -- CMD" "ptscope export --metric mremap.folio_lookups"
	"bpftrace, same counts" "bpftrace, @=count() on mremap"
	"ptscope export --bpf-stats" "export --bpf-stats --parts none"
	"  ... --parts counts" "  ... + hists" "  ... + proc-rows"
	"  ... + cgroup-rows" "  ... + pte-marker (every part)")
PARTS=("empty programs (the floor)" "none (the calls state only)" counts hists proc-rows cgroup-rows pte-marker)

# row TABLE LABEL: the rest of LABEL's row in one section of the table
row() {
	awk -v l="  $2 " 'index($0, l) == 1 { print substr($0, length(l) + 1); exit }' "$1"
}

for w in $WORKLOADS; do
	awk -v w="$w:" '$1 == w { on = 1; print; next } /^$/ { on = 0 } on' \
		"$TMP/table.txt" >"$TMP/$w.txt"
	if [ ! -s "$TMP/$w.txt" ]; then
		not_ok "$w: no section in the table"
		continue
	fi
	for l in "${LABELS[@]}"; do
		r=$(row "$TMP/$w.txt" "$l" | sed 's/^ *//')
		if [[ $r =~ ^[0-9]+\.[0-9] || $r =~ ^not\ run:\ .+ ]]; then
			ok "$w / $l: ${r:0:60}"
		else
			not_ok "$w / $l: neither a number nor a reason: '$r'"
		fi
	done
	# ptscope itself must have numbers here (tracepoints attach on this box)
	r=$(row "$TMP/$w.txt" "ptscope export" | sed 's/^ *//')
	case $w in
	inplace|move_pmd|move_pte|fault_4k|syscall)
		if [[ $r =~ ^[0-9] ]]; then
			ok "$w: ptscope export has a number"
		else
			not_ok "$w: ptscope export has no number: '$r'"
		fi ;;
	esac
done

awk '/^tracers:/ { on = 1 } on' "$TMP/table.txt" >"$TMP/tracers.txt"
for l in "${LABELS[@]:1}"; do
	r=$(row "$TMP/tracers.txt" "$l" | sed 's/^ *//')
	if [[ $r =~ ^(-|[0-9.]+|\(tcg\))\ +[0-9.-]+ || $r =~ ^not\ run:\ .+ ]]; then
		ok "tracer $l: ${r:0:60}"
	else
		not_ok "tracer $l: neither figures nor a reason: '$r'"
	fi
done
# --bpf-stats: the kernel ran ptscope's sys_enter_mremap program once per
# mremap call the loops made (their ops), as its own statistics count;
# and the floor's empty program on the same tracepoint (ptscope-floor
# --stats) as often
awk '/^BPF programs under ptscope export --bpf-stats/ { on = 1; next }
	/^BPF programs under/ { on = 0 } on' "$TMP/table.txt" >"$TMP/programs.txt"
awk '/^BPF programs under the floor/ { on = 1; next }
	/^BPF programs under/ { on = 0 } on' "$TMP/table.txt" >"$TMP/floor-programs.txt"
for w in inplace move_pte; do
	r=$(awk -v w="$w:" '$1 == w { on = 1; next } /^[a-z_0-9]+:$/ { on = 0 }
		on && $1 == "mremap_tp_enter" { print $2 }' "$TMP/programs.txt")
	check_eq "--bpf-stats $w: mremap_tp_enter runs per mremap call" "1.00" "$r"
	r=$(awk -v w="$w:" '$1 == w { on = 1; next } /^[a-z_0-9]+:$/ { on = 0 }
		on && $1 == "tracepoint:syscalls/sys_enter_mremap" { print $2 }' \
		"$TMP/floor-programs.txt")
	check_eq "floor --stats $w: the empty sys_enter_mremap program's runs per mremap call" "1.00" "$r"
done

# the parts ladder: per workload a row per part, with figures or a reason;
# on the tracepoint path every step ran the mremap programs
awk '/^what each part adds/ { on = 1 } on' "$TMP/table.txt" >"$TMP/parts.txt"
for w in $WORKLOADS; do
	awk -v w="$w:" '$1 == w { on = 1; next } /^[a-z_0-9]+:$/ { on = 0 } on' \
		"$TMP/parts.txt" >"$TMP/parts-$w.txt"
	for p in "${PARTS[@]}"; do
		r=$(row "$TMP/parts-$w.txt" "$p" | sed 's/^ *//')
		if [[ $r =~ ^[0-9]+\.[0-9]+\ +([-+]?[0-9.]+|n/a)\ +([0-9.]+|n/a) ||
		      $r =~ ^not\ run:\ .+ ]]; then
			ok "parts $w / $p: ${r:0:60}"
		else
			not_ok "parts $w / $p: neither figures nor a reason: '$r'"
		fi
	done
done
for p in part_none part_counts part_marker; do
	r=$(awk -F'\t' -v t="$p" '$1 == "inplace" && $2 == t && $4 == "mremap_tp_enter" { print "ran" }' \
		"$out/overhead-programs.tsv" | head -n1)
	check_eq "--parts ladder, $p: mremap_tp_enter has a row for inplace" ran "$r"
done

for f in overhead-runs.tsv overhead-tracers.tsv overhead-skips.tsv overhead-programs.tsv; do
	if [ -s "$out/$f" ]; then
		ok "$f written"
	else
		not_ok "$f missing"
	fi
done
tap_finish
