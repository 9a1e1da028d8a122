#!/bin/bash
# Hugepage faults through the tracepoint path: ptscope's per-order counts
# must equal the kernel's own counters (hugepages-*/stats, /proc/vmstat)
# and the geometry of the workload.  The test sets the THP knobs it needs
# (only MADV_HUGEPAGE regions get hugepages, so the rest of the box stays
# out of the counters) and restores them.
. "$(dirname "$0")/lib.sh"
require_root

KNOBS="enabled hugepages-64kB/enabled hugepages-2048kB/enabled"

if [ ! -e "$THP/hugepages-64kB/stats/anon_fault_alloc" ]; then
	not_ok "no mTHP stats in $THP (kernel before 6.8?)"
	tap_finish
	exit
fi

# shellcheck disable=SC2086 # one argument per knob
thp_knobs_save $KNOBS
echo madvise >"$THP/enabled"
echo inherit >"$THP/hugepages-2048kB/enabled"
echo madvise >"$THP/hugepages-64kB/enabled"

a64=$(mthp_stat 64 anon_fault_alloc)
a2m=$(mthp_stat 2048 anon_fault_alloc)
f64=$(mthp_stat 64 anon_fault_fallback)
f2m=$(mthp_stat 2048 anon_fault_fallback)
vm_alloc=$(vmstat_of thp_fault_alloc)

# 3 x 4 MiB, 2 MiB aligned: 6 PMD hugepages; 5 x 1 MiB: too small for a
# PMD, so 16 x 64 KiB each = 80 mTHP folios
if stat_json "$TMP/thp.json" sh -c "$BENCH fault --size 4M --count 3 --thp always && $BENCH fault --size 1M --count 5 --thp always"; then
	got4=$(order_count "$TMP/thp.json" 4 alloc)
	got9=$(order_count "$TMP/thp.json" 9 alloc)
	check_eq "order 9 allocs = hugepages-2048kB anon_fault_alloc delta" \
		"$(minus "$(mthp_stat 2048 anon_fault_alloc)" "$a2m")" "$got9"
	check_eq "order 4 allocs = hugepages-64kB anon_fault_alloc delta" \
		"$(minus "$(mthp_stat 64 anon_fault_alloc)" "$a64")" "$got4"
	check_eq "order 9 allocs = /proc/vmstat thp_fault_alloc delta" \
		"$(minus "$(vmstat_of thp_fault_alloc)" "$vm_alloc")" "$got9"
	check_eq "order 9 allocs = geometry (3 x 4M)" 6 "$got9"
	check_eq "order 4 allocs = geometry (5 x 1M / 64K)" 80 "$got4"
	check_eq "order 4 fallbacks = hugepages-64kB anon_fault_fallback delta" \
		"$(minus "$(mthp_stat 64 anon_fault_fallback)" "$f64")" "$(order_count "$TMP/thp.json" 4 fallback)"
	check_eq "order 9 fallbacks = hugepages-2048kB anon_fault_fallback delta" \
		"$(minus "$(mthp_stat 2048 anon_fault_fallback)" "$f2m")" "$(order_count "$TMP/thp.json" 9 fallback)"
	check_eq "no other orders" 0 \
		"$(json "$TMP/thp.json" "sum(o['alloc'] for o in d['counters']['hugepage_faults']['orders'] if o['order'] not in (4, 9))")"
	check_eq "the bench saw 2M folios (AnonHugePages kB)" $((3 * 4096)) \
		"$(awk -F'anon_huge_kb=' '/^fault size=4194304/ { s += $2 } END { print s }' "$TMP/workload.out")"
	check_eq "per-process: the bench processes own the 64K folios" 80 \
		"$(json "$TMP/thp.json" "sum(p['fault_alloc'].get('64K', 0) for p in d['counters']['processes'] if p['comm'] == 'ptscope-bench')")"
	check_eq "JSON records the THP settings" madvise \
		"$(json "$TMP/thp.json" "d['system']['thp']['sizes']['hugepages-64kB']")"
else
	not_ok "ptscope stat on the fault workload"
fi

# MADV_COLLAPSE: every collapse_huge_page() attempt allocates first (and
# counts thp_collapse_alloc or _failed), then reports one result; the
# allocations are not faults.  The workload's collapses are MADV_COLLAPSE
# ones, not khugepaged's (which may collapse elsewhere meanwhile).  With
# enabled=never khugepaged's thread is stopped (start_stop_khugepaged())
# while MADV_COLLAPSE ignores the sysfs settings: on a loaded machine a
# khugepaged pass between the bench's MADV_HUGEPAGE and its MADV_COLLAPSE
# collapsed one of its ranges first (7 of 8 SCAN_SUCCEED, 8 hugepages).
echo never >"$THP/enabled"
if stat_json "$TMP/collapse.json" "$BENCH" collapse --size 8M --count 2; then
	check_eq "collapse results = thp_collapse_alloc + _failed" \
		"$(json "$TMP/collapse.json" "d['kernel_counters']['vmstat']['thp_collapse_alloc'] + d['kernel_counters']['vmstat']['thp_collapse_alloc_failed']")" \
		"$(json "$TMP/collapse.json" "sum(d['counters']['khugepaged_collapse'].values()) + sum(d['counters']['madv_collapse'].values())")"
	check_eq "collapse: MADV_COLLAPSE SCAN_SUCCEED = geometry (2 x 8M / 2M)" 8 \
		"$(json "$TMP/collapse.json" "d['counters']['madv_collapse'].get('SCAN_SUCCEED', 0)")"
	check_eq "collapse: the bench saw its 2M folios (AnonHugePages kB after)" $((2 * 8192)) \
		"$(awk -F'anon_huge_kb_after=' '/^collapse size=/ { split($2, a, " "); s += a[1] } END { print s }' "$TMP/workload.out")"
	check_eq "collapse: the text report names MADV_COLLAPSE" 1 \
		"$("$PTSCOPE" stat -- "$BENCH" collapse --size 2M --count 1 2>&1 | grep -c '^MADV_COLLAPSE collapses (traced processes): SCAN_SUCCEED=1')"
	check_eq "collapse: thp.fault_alloc attached" yes \
		"$(attached "$TMP/collapse.json" thp.fault_alloc)"
	check_eq "collapse: no fault allocations inferred from MADV_COLLAPSE" 0 \
		"$(order_count "$TMP/collapse.json" 9 alloc)"
else
	not_ok "ptscope stat on the collapse workload"
fi
echo madvise >"$THP/enabled"

# no hugepages where the workload opts out
if stat_json "$TMP/nothp.json" "$BENCH" fault --size 4M --count 2 --thp never; then
	check_eq "MADV_NOHUGEPAGE: thp.fault_alloc attached" yes \
		"$(attached "$TMP/nothp.json" thp.fault_alloc)"
	check_eq "MADV_NOHUGEPAGE: no hugepage allocations" 0 \
		"$(json "$TMP/nothp.json" "sum(o['alloc'] for o in d['counters']['hugepage_faults']['orders'])")"
else
	not_ok "ptscope stat on the MADV_NOHUGEPAGE workload"
fi

tap_finish
