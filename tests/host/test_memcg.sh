#!/bin/bash
# Hugepage faults in a memory cgroup too small for them: the kernel
# allocates each 2 MiB folio, then refuses to charge it and falls back
# (THP_FAULT_FALLBACK_CHARGE).  ptscope must count those as charge
# fallbacks, not allocations, on the attach path this kernel offers:
# against the geometry of the workload (16 PMD-sized stretches, the 2 MiB
# folios the bench finds mapped in its own smaps) and the kernel's own
# counters over the same window.  Once per memory-controller hierarchy
# the host has (cgroup v2, v1).
. "$(dirname "$0")/lib.sh"
require_root

LIMIT=$((5 * 1024 * 1024))
REGION=32M
STRETCHES=16	# REGION / 2 MiB
CG_NAME=ptscope-test-memcg.$$

if [ ! -e "$THP/hugepages-2048kB/stats/anon_fault_fallback_charge" ]; then
	not_ok "no hugepages-2048kB stats in $THP (kernel before 6.8?)"
	tap_finish
	exit
fi
if [ "$(getconf PAGESIZE)" -ne 4096 ]; then
	not_ok "the geometry here assumes 2 MiB PMD hugepages (4 KiB pages)"
	tap_finish
	exit
fi

thp_knobs_save enabled hugepages-2048kB/enabled
roots=()	# where a cgroup of ours may be left
cleanup() {
	local root
	for root in "${roots[@]}"; do
		# EBUSY while the workload's last task is still being torn down
		[ -d "$root/$CG_NAME" ] &&
			! wait_for 10 rmdir "$root/$CG_NAME" 2>/dev/null &&
			echo "# could not remove $root/$CG_NAME"
	done
	thp_knobs_restore
}
trap cleanup EXIT
echo madvise >"$THP/enabled"
echo inherit >"$THP/hugepages-2048kB/enabled"

# memcg_case VERSION ROOT
memcg_case() {
	local v=$1 cg out=$TMP/memcg-$1.json
	local a0 c0 va0 vc0 got_a got_c got_f mapped

	roots+=("$2")
	cg=$(limited_cgroup "$v" "$2") || {
		not_ok "$v: cannot make a cgroup limited to $LIMIT bytes under $2"
		return
	}
	a0=$(mthp_stat 2048 anon_fault_alloc)
	c0=$(mthp_stat 2048 anon_fault_fallback_charge)
	va0=$(vmstat_of thp_fault_alloc)
	vc0=$(vmstat_of thp_fault_fallback_charge)
	# one write per 2 MiB: a refused folio falls back to one 4 KiB page,
	# so the workload fits the limit
	if ! stat_json "$out" sh -c "echo \$\$ >$cg/cgroup.procs && exec $BENCH fault --size $REGION --stride 2M --count 1 --thp always"; then
		not_ok "$v: ptscope stat on the fault workload in $cg"
		return
	fi
	check_eq "$v: thp.fault_alloc attached" yes "$(attached "$out" thp.fault_alloc)"
	got_a=$(order_count "$out" 9 alloc)
	got_c=$(order_count "$out" 9 fallback_charge)
	got_f=$(order_count "$out" 9 fallback)
	mapped=$(awk -F'anon_huge_kb=' '/^fault size=/ { s += $2 } END { print s / 2048 }' "$TMP/workload.out")
	check_eq "$v: 2M allocs = 2M folios the bench found mapped" "$mapped" "$got_a"
	check_eq "$v: 2M allocs + charge fallbacks = $STRETCHES stretches" \
		"$STRETCHES" "$(json "$out" "$got_a + $got_c")"
	check_eq "$v: the limit refused some folios" True \
		"$(json "$out" "$got_c >= 1 and $got_a < $STRETCHES")"
	check_eq "$v: every 2M fallback was a charge fallback" "$got_c" "$got_f"
	# system-wide: another workload may add to the kernel's counts, never
	# take from them
	check_eq "$v: 2M allocs <= hugepages-2048kB anon_fault_alloc delta" True \
		"$(json "$out" "$got_a <= $(minus "$(mthp_stat 2048 anon_fault_alloc)" "$a0")")"
	check_eq "$v: 2M charge fallbacks <= hugepages-2048kB anon_fault_fallback_charge delta" True \
		"$(json "$out" "$got_c <= $(minus "$(mthp_stat 2048 anon_fault_fallback_charge)" "$c0")")"
	check_eq "$v: 2M allocs <= /proc/vmstat thp_fault_alloc delta" True \
		"$(json "$out" "$got_a <= $(minus "$(vmstat_of thp_fault_alloc)" "$va0")")"
	check_eq "$v: 2M charge fallbacks <= /proc/vmstat thp_fault_fallback_charge delta" True \
		"$(json "$out" "$got_c <= $(minus "$(vmstat_of thp_fault_fallback_charge)" "$vc0")")"
	check_eq "$v: per-process charge fallbacks" "$got_c" \
		"$(json "$out" "sum(p['fault_fallback_charge'].get('2M', 0) for p in d['counters']['processes'] if p['comm'] == 'ptscope-bench')")"
}

ran=0
root=$(v2_memory)
if [ -n "$root" ]; then
	memcg_case v2 "$root"
	ran=1
else
	echo "# cgroup v2 memory controller not available on this host (not mounted, or bound to v1)"
fi
root=$(v1_memory)
if [ -n "$root" ]; then
	memcg_case v1 "$root"
	ran=1
else
	echo "# cgroup v1 memory controller not mounted on this host"
fi
[ $ran -eq 1 ] || not_ok "no memory controller on cgroup v2 or v1: the charge case cannot run"

tap_finish
