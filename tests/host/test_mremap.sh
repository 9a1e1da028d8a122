#!/bin/bash
# mremap on this kernel through the tracepoint path: ptscope's counts must
# equal the geometry of the bench workload (and strace's count).
. "$(dirname "$0")/lib.sh"
require_root

GiB=1073741824
MiB=1048576

# expect_classes NAME FILE PUD PMD PTE IN_PLACE FAILED
expect_classes() {
	local name=$1 file=$2 got
	got="$(mremap_field "$file" pud calls) $(mremap_field "$file" pmd calls)"
	got="$got $(mremap_field "$file" pte calls) $(mremap_field "$file" in_place calls)"
	got="$got $(mremap_field "$file" failed calls)"
	check_eq "$name: calls pud/pmd/pte/in_place/failed" "$3 $4 $5 $6 $7" "$got"
}

# 1 GiB, both ends 1 GiB aligned: a PUD move is possible, twice
if stat_json "$TMP/pud.json" "$BENCH" mremap --size 1G --align pud --count 2; then
	expect_classes "1G pud-aligned x2" "$TMP/pud.json" 2 0 0 0 0
	check_eq "1G pud-aligned: old bytes" $((2 * GiB)) "$(mremap_field "$TMP/pud.json" pud old_bytes)"
	check_eq "1G pud-aligned: new bytes" $((2 * GiB)) "$(mremap_field "$TMP/pud.json" pud new_bytes)"
	check_eq "1G pud-aligned: latency samples" 2 \
		"$(json "$TMP/pud.json" "d['counters']['mremap']['classes']['pud']['latency_ns']['count']")"
	check_eq "1G pud-aligned: bucket counts add up" 2 \
		"$(json "$TMP/pud.json" "sum(b['count'] for b in d['counters']['mremap']['classes']['pud']['latency_ns']['buckets'])")"
else
	not_ok "ptscope stat on 1G pud-aligned mremap"
fi

# 16 MiB, 2 MiB aligned: PMD moves only
if stat_json "$TMP/pmd.json" "$BENCH" mremap --size 16M --align pmd --thp never --count 3; then
	expect_classes "16M pmd-aligned x3" "$TMP/pmd.json" 0 3 0 0 0
	check_eq "16M pmd-aligned: old bytes" $((48 * MiB)) "$(mremap_field "$TMP/pmd.json" pmd old_bytes)"
else
	not_ok "ptscope stat on 16M pmd-aligned mremap"
fi

# MREMAP_DONTUNMAP: moves like any other, and is counted as such; the
# plain moves above and below made none
if stat_json "$TMP/dontunmap.json" "$BENCH" mremap --size 4M --align pmd --count 4 --dontunmap; then
	expect_classes "4M pmd-aligned, MREMAP_DONTUNMAP x4" "$TMP/dontunmap.json" 0 4 0 0 0
	check_eq "MREMAP_DONTUNMAP x4: dontunmap calls" 4 \
		"$(json "$TMP/dontunmap.json" "d['counters']['mremap']['dontunmap_calls']")"
	check_eq "plain 16M pmd-aligned x3: dontunmap calls" 0 \
		"$(json "$TMP/pmd.json" "d['counters']['mremap']['dontunmap_calls']")"
else
	not_ok "ptscope stat on MREMAP_DONTUNMAP mremap"
fi

# 16 MiB at 1 GiB-aligned addresses: too short for a whole PUD
# 6.17+: one mremap() moves three VMAs (two PMD spans, half a PMD span
# plus three pages, one PMD span; 12 MiB with the gaps, 4 KiB pages): one
# call of the pmd class (both ends PMD aligned) covering all of it
if stat_json "$TMP/multi.json" "$BENCH" multi; then
	expect_classes "multi-VMA move" "$TMP/multi.json" 0 1 0 0 0
	check_eq "multi-VMA move: old bytes (gaps included)" $((12 * MiB)) \
		"$(mremap_field "$TMP/multi.json" pmd old_bytes)"
else
	not_ok "ptscope stat -- ptscope-bench multi"
fi

if stat_json "$TMP/short.json" "$BENCH" mremap --size 16M --align pud --count 1; then
	expect_classes "16M at pud-aligned addresses" "$TMP/short.json" 0 1 0 0 0
else
	not_ok "ptscope stat on 16M at pud-aligned addresses"
fi

# 1 MiB + 3 pages at addresses that differ mod 2 MiB: PTE level only
if stat_json "$TMP/pte.json" "$BENCH" mremap --size 1036K --align page --count 2; then
	expect_classes "1M+3 pages unaligned x2" "$TMP/pte.json" 0 0 2 0 0
	check_eq "1M+3 pages: old bytes" $((2 * 1036 * 1024)) "$(mremap_field "$TMP/pte.json" pte old_bytes)"
else
	not_ok "ptscope stat on unaligned mremap"
fi

# 1 GiB whose destination is off by 4 KiB: neither PUD nor PMD moves
if stat_json "$TMP/off.json" "$BENCH" mremap --size 1G --align pud --dst-offset 4K --count 1; then
	expect_classes "1G, destination off by 4K" "$TMP/off.json" 0 0 1 0 0
else
	not_ok "ptscope stat on 1G off-by-4K mremap"
fi

# off by 2 MiB: PMD-congruent, not PUD-congruent
if stat_json "$TMP/off2m.json" "$BENCH" mremap --size 1G --align pud --dst-offset 2M --count 1; then
	expect_classes "1G, destination off by 2M" "$TMP/off2m.json" 0 1 0 0 0
else
	not_ok "ptscope stat on 1G off-by-2M mremap"
fi

# failing calls
if stat_json "$TMP/fail.json" "$BENCH" fail --count 5; then
	expect_classes "5 failing calls" "$TMP/fail.json" 0 0 0 0 5
else
	not_ok "ptscope stat on failing mremap"
fi

# bigheap-like growth: the bench reports which calls moved
if stat_json "$TMP/grow.json" "$BENCH" grow --start 128K --step 64K --count 300; then
	moved=$(sed -n 's/.* moved=\([0-9]*\) in_place=.*/\1/p' "$TMP/workload.out")
	in_place=$(sed -n 's/.* in_place=\([0-9]*\).*/\1/p' "$TMP/workload.out")
	check_eq "grow x300: total calls" 300 "$(json "$TMP/grow.json" "d['counters']['mremap']['calls']")"
	check_eq "grow x300: in place (bench says $in_place)" "$in_place" \
		"$(mremap_field "$TMP/grow.json" in_place calls)"
	check_eq "grow x300: moved (bench says $moved)" "$moved" \
		"$(json "$TMP/grow.json" "sum(d['counters']['mremap']['classes'][c]['calls'] for c in ('pud','pmd','pte'))")"
	check_eq "grow x300: per-process calls" 300 \
		"$(json "$TMP/grow.json" "sum(sum(p['mremap_calls'].values()) for p in d['counters']['processes'] if p['comm'] == 'ptscope-bench')")"
else
	not_ok "ptscope stat on grow"
fi

# strace as a second witness; -c keeps strace's own calls out
if command -v strace >/dev/null; then
	# the recording holds strace's exit status, strace exits with the
	# bench's: a strace that could not trace must not make "0 = 0" a pass
	"$PTSCOPE" stat --json -c ptscope-bench -o "$TMP/strace.json" -- \
		strace -f -qq -e trace=mremap -e signal=none -o "$TMP/strace.txt" \
		"$BENCH" grow --start 64K --step 64K --count 50 >/dev/null 2>"$TMP/strace.err"
	rc="$? $(json "$TMP/strace.json" "d['run']['exit_status']" 2>/dev/null)"
	if [ "$rc" = "0 0" ] && [ -s "$TMP/strace.txt" ]; then
		n=$(grep -c 'mremap(' "$TMP/strace.txt")
		check_eq "strace saw the bench's 50 mremap calls" 50 "$n"
		check_eq "strace count = ptscope count" "$n" \
			"$(json "$TMP/strace.json" "d['counters']['mremap']['calls']")"
	else
		not_ok "strace under ptscope stat: exit (ptscope, strace) $rc, $(wc -l <"$TMP/strace.txt" 2>/dev/null || echo no) trace lines: $(head -c 200 "$TMP/strace.err")"
	fi
else
	not_ok "strace not installed (make deps installs it)"
fi

# MREMAP_FIXED calls against strace's flags: the mremap workload moves with
# MREMAP_FIXED, grow lets the kernel choose (MREMAP_MAYMOVE alone)
if command -v strace >/dev/null; then
	"$PTSCOPE" stat --json -c ptscope-bench -o "$TMP/fixed.json" -- \
		strace -f -qq -e trace=mremap -e signal=none -o "$TMP/fixed.txt" \
		sh -c "$BENCH mremap --size 4M --align pmd --count 5 && $BENCH grow --start 64K --step 64K --count 20" \
		>/dev/null 2>"$TMP/fixed.err"
	rc="$? $(json "$TMP/fixed.json" "d['run']['exit_status']" 2>/dev/null)"
	if [ "$rc" = "0 0" ] && [ -s "$TMP/fixed.txt" ]; then
		n=$(grep -c 'mremap(.*MREMAP_FIXED' "$TMP/fixed.txt")
		check_eq "strace saw the 5 MREMAP_FIXED moves" 5 "$n"
		check_eq "fixed calls = strace's MREMAP_FIXED calls" "$n" \
			"$(json "$TMP/fixed.json" "sum(c['fixed_calls'] for c in d['counters']['mremap']['classes'].values())")"
		check_eq "fixed calls: all in the pmd class (geometry)" 5 \
			"$(mremap_field "$TMP/fixed.json" pmd fixed_calls)"
		check_eq "calls without MREMAP_FIXED = strace's" \
			"$(grep 'mremap(' "$TMP/fixed.txt" | grep -vc MREMAP_FIXED)" \
			"$(json "$TMP/fixed.json" "d['counters']['mremap']['calls'] - sum(c['fixed_calls'] for c in d['counters']['mremap']['classes'].values())")"
	else
		not_ok "strace under ptscope stat (MREMAP_FIXED): exit (ptscope, strace) $rc: $(head -c 200 "$TMP/fixed.err")"
	fi
else
	not_ok "strace not installed (make deps installs it)"
fi

# children are followed: two workloads started by a shell
if stat_json "$TMP/tree.json" sh -c "$BENCH mremap --size 16M --align pmd --count 2 && $BENCH mremap --size 1036K --align page --count 3"; then
	expect_classes "children of sh" "$TMP/tree.json" 0 2 3 0 0
else
	not_ok "ptscope stat on a process tree"
fi

# a comm filter that matches nothing
if "$PTSCOPE" stat --json -c no-such-comm -o "$TMP/none.json" -- "$BENCH" mremap --size 16M --align pmd --count 2 >/dev/null 2>&1; then
	check_eq "-c no-such-comm: mremap.calls attached" yes "$(attached "$TMP/none.json" mremap.calls)"
	check_eq "-c no-such-comm: calls" 0 "$(json "$TMP/none.json" "d['counters']['mremap']['calls']")"
else
	not_ok "ptscope stat -c no-such-comm"
fi

tap_finish
