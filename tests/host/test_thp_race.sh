#!/bin/bash
# Hugepage faults racing: four threads write the same page of each range
# at once (ptscope-bench fault --threads 4), one hugepage size at a time
# (the PMD size and every mTHP size this kernel offers from order 2 on).
# The kernel maps one thread's folio per range and counts it; the others
# put theirs back and count nothing (__do_huge_pmd_anonymous_page(),
# do_anonymous_page(), 6.18).  ptscope's per-order alloc, fallback and
# fallback_charge must equal the kernel's own counters over the run
# (hugepages-*kB/stats, /proc/vmstat for the PMD size), without and with
# a memory cgroup limit that refuses charges (sizes of 64 pages and up:
# see below; the output names the smaller ones).  The test sets the THP
# knobs (madvise: only the bench's MADV_HUGEPAGE ranges get hugepages)
# and restores them.
. "$(dirname "$0")/lib.sh"
require_root

THREADS=4
RANGES=128
# memcg case: the limit refuses charges once about LIMIT is used; a range
# refused falls back to 4 KiB pages, which must still fit under it
LIMIT=$((6 * 1024 * 1024))
# shellcheck disable=SC2034 # read by limited_cgroup (lib.sh)
CG_NAME=ptscope-test-race.$$
PAGE_KB=$(($(getconf PAGESIZE) / 1024))
PMD_KB=$((PAGE_KB * $(getconf PAGESIZE) / 8))

if [ ! -e "$THP/hugepages-${PMD_KB}kB/stats/anon_fault_alloc" ]; then
	not_ok "no per-size stats in $THP (kernel before 6.8?)"
	tap_finish
	exit
fi

# the sizes ptscope sees (order >= 2) up to the PMD size, in kB
sizes=()
for d in "$THP"/hugepages-*kB; do
	kb=${d##*/hugepages-}
	kb=${kb%kB}
	[ "$kb" -ge $((PAGE_KB * 4)) ] && [ "$kb" -le "$PMD_KB" ] && sizes+=("$kb")
done
mapfile -t sizes < <(printf '%s\n' "${sizes[@]}" | sort -n)
knobs="enabled"
for kb in "${sizes[@]}"; do
	knobs="$knobs hugepages-${kb}kB/enabled"
done
# shellcheck disable=SC2086 # one argument per knob
thp_knobs_save $knobs
cgroup=
cleanup() {
	[ -n "$cgroup" ] && remove_cgroup "$cgroup"
	thp_knobs_restore
}
trap cleanup EXIT
echo madvise >"$THP/enabled"

# only_size KB: KB kB folios at fault time, no other size
only_size() {
	local k
	for k in "${sizes[@]}"; do
		echo never >"$THP/hugepages-${k}kB/enabled"
	done
	echo madvise >"$THP/hugepages-$1kB/enabled"
}

order_of() {
	local kb=$1 o=0
	while [ $((PAGE_KB << o)) -lt "$kb" ]; do
		o=$((o + 1))
	done
	echo $o
}

# kstats KB: the kernel's alloc fallback fallback_charge for KB kB (and
# for the PMD size /proc/vmstat's three after them)
kstats() {
	local n
	for n in anon_fault_alloc anon_fault_fallback anon_fault_fallback_charge; do
		printf '%s ' "$(mthp_stat "$1" $n)"
	done
	for n in thp_fault_alloc thp_fault_fallback thp_fault_fallback_charge; do
		printf '%s ' "$(vmstat_of $n)"
	done
}

# run_race NAME KB REGION [CGROUP]: THREADS threads fault REGION bytes,
# one write per KB kB, in CGROUP if given, under ptscope stat into $out;
# the kernel's counters for KB kB before and after in $before, $after
run_race() {
	local kb=$2 cg=${4:-}
	local run="exec $BENCH fault --size $3 --count 1 --stride ${kb}K --threads $THREADS --thp always"

	out=$TMP/race-$1.json
	[ -n "$cg" ] && run="echo \$\$ >$cg/cgroup.procs && $run"
	read -ra before <<<"$(kstats "$kb")"
	stat_json "$out" sh -c "$run" || return 1
	read -ra after <<<"$(kstats "$kb")"
}

# race_case NAME KB REGION [CGROUP]: run_race, then ptscope's counts of
# KB kB folios against the kernel's deltas.  The kernel's counters are
# system-wide: a run is taken when its allocation delta is ptscope's,
# else (another process faulted hugepages meanwhile, or ptscope missed
# some) run again, at most 5 times.
race_case() {
	local name=$1 kb=$2 order try got b a i
	local keys=(alloc fallback fallback_charge)

	order=$(order_of "$kb")
	for try in 1 2 3 4 5; do
		if ! run_race "$@"; then
			not_ok "$name: ptscope stat on the racing workload"
			return 1
		fi
		got=$(order_count "$out" "$order" alloc)
		[ "$got" = "$(minus "${after[0]}" "${before[0]}")" ] && break
		echo "# $name, run $try: hugepages-${kb}kB anon_fault_alloc +$(minus "${after[0]}" "${before[0]}"), ptscope $got"
	done
	check_eq "$name: thp.fault_alloc attached" yes "$(attached "$out" thp.fault_alloc)"
	for i in 0 1 2; do
		b=${before[$i]} a=${after[$i]}
		check_eq "$name: ${keys[$i]} = hugepages-${kb}kB ${keys[$i]} delta" \
			"$(minus "$a" "$b")" "$(order_count "$out" "$order" "${keys[$i]}")"
		[ "$kb" -eq "$PMD_KB" ] || continue
		b=${before[$((i + 3))]} a=${after[$((i + 3))]}
		check_eq "$name: ${keys[$i]} = /proc/vmstat thp_fault_${keys[$i]} delta" \
			"$(minus "$a" "$b")" "$(order_count "$out" "$order" "${keys[$i]}")"
	done
	# with the fault boundaries seen (exceptions:page_fault_user, x86)
	# every unmapped free is told apart: no ambiguous count at all
	check_eq "$name: no ambiguous count where the fault boundaries are seen" False \
		"$(json "$out" "any('ambiguous' in o for o in d['counters']['hugepage_faults']['orders'])")"
	echo "# $name: $(json "$out" "[(o['alloc'], o['fallback_charge'], o['race_lost']) for o in d['counters']['hugepage_faults']['orders'] if o['order'] == $order][0]") (alloc, charge fallbacks, races lost)"
}

# how often a thread loses depends on how long a fault of the size takes
# against the threads' wake-up: not every size races every run
lost=0
for kb in "${sizes[@]}"; do
	only_size "$kb"
	race_case "${kb}K" "$kb" $((RANGES * kb))K || continue
	check_eq "${kb}K: one folio per range" "$RANGES" \
		"$(order_count "$out" "$(order_of "$kb")" alloc)"
	lost=$((lost + $(order_count "$out" "$(order_of "$kb")" race_lost)))
done
check_eq "the threads raced: some lost a range ($lost races lost)" True \
	"$([ "$lost" -ge 1 ] && echo True || echo False)"

# The exporter, system-wide, over the same race at the PMD size: the
# fallbacks it serves are the kernel's, and its self-check agrees
only_size "$PMD_KB"
port=$(free_port)
"$PTSCOPE" export --listen "127.0.0.1:$port" 2>"$TMP/export.err" &
exporter=$!
if wait_for 20 grep -qxF "ptscope: tracing, Ctrl-C to stop" "$TMP/export.err"; then
	read -ra before <<<"$(kstats "$PMD_KB")"
	"$BENCH" fault --size $((RANGES * PMD_KB))K --count 1 --stride "${PMD_KB}K" \
		--threads $THREADS --thp always >/dev/null
	read -ra after <<<"$(kstats "$PMD_KB")"
	curl -sS --max-time 10 -o "$TMP/page.txt" "http://127.0.0.1:$port/metrics"
	sz="{size=\"$((PMD_KB / 1024))M\",order=\"$(order_of "$PMD_KB")\"}"
	check_eq "export: fallbacks = /proc/vmstat thp_fault_fallback delta" \
		"$(minus "${after[4]}" "${before[4]}")" \
		"$(value "$TMP/page.txt" "ptscope_hugepage_fault_fallbacks_total$sz")"
	check_eq "export: the self-check agrees" 1 \
		"$(value "$TMP/page.txt" "ptscope_hugepage_fault_selfcheck$sz")"
	echo "# export: $(grep -E "^ptscope_hugepage_fault_(allocs|races_lost)_total\{size=" "$TMP/page.txt" | grep -F "$sz" | tr '\n' ' ')"
else
	not_ok "export did not start: $(head -c 300 "$TMP/export.err")"
fi
kill -INT $exporter
wait $exporter

# Under a limit.  Once a size is refused, each range refused falls back
# to 4 KiB pages; with a region of twice the limit those fit under it
# only for sizes of 64 pages or more (fewer: the cgroup runs out of
# memory at order 0, which the kernel settles by killing the bench).
memroot=$(v2_memory)
memv=v2
if [ -z "$memroot" ]; then
	memroot=$(v1_memory)
	memv=v1
	echo "# cgroup v2 has no memory controller here: the limit is cgroup v1's memory.limit_in_bytes"
fi
if [ -z "$memroot" ]; then
	not_ok "no memory controller on cgroup v2 or v1: the limited case cannot run"
	tap_finish
	exit
fi
for kb in "${sizes[@]}"; do
	if [ "$kb" -lt $((PAGE_KB * 64)) ]; then
		echo "# ${kb}K is not run under a limit: its refused ranges' 4 KiB fallbacks outgrow any limit that refuses ${kb}K"
		continue
	fi
	only_size "$kb"
	cgroup=$(limited_cgroup "$memv" "$memroot") || {
		not_ok "cannot make a cgroup limited to $LIMIT bytes under $memroot"
		break
	}
	if race_case "${kb}K-memcg" "$kb" $((2 * LIMIT / 1024))K "$cgroup"; then
		check_eq "${kb}K-memcg: the limit refused some charges" True \
			"$(json "$out" "$(order_count "$out" "$(order_of "$kb")" fallback_charge) >= 1")"
	fi
	remove_cgroup "$cgroup"
	cgroup=
done

tap_finish
