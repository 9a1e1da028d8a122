#!/bin/sh
# Guest side of ptscope maps (busybox sh, sourced after lib.sh): regions of
# known backing held by "ptscope-bench hold", sized in PMDs of the running
# kernel's page size, each printed for tests/vm/checkers/check_maps.py as
#   @@BEGIN hold scenario=NAME       the holder's line (its own smaps)
#   @@BEGIN kcounters scenario=NAME  /proc/vmstat thp_* and the 64 KiB mTHP
#                                    stats, "before KEY N" and "after KEY N"
#   @@BEGIN maps scenario=NAME       ptscope maps --json -p HOLDER
# or "@@BEGIN error scenario=NAME" with what failed.  maps_scenarios sets
# the THP knobs it needs (enabled=madvise, 2 MiB inherit, 64 KiB never
# but for the mTHP cases) and leaves them so.

# the counters check_maps.py compares with, one "KEY N" a line
maps_kcounters() {
	grep -E '^thp_(fault_alloc|fault_fallback|split_pmd|split_page) ' \
		/proc/vmstat
	for f in anon_fault_alloc anon_fault_fallback; do
		if [ -r "$THP/hugepages-64kB/stats/$f" ]; then
			echo "mthp64_$f $(cat "$THP/hugepages-64kB/stats/$f")"
		fi
	done
}

# maps_wait_hold PID: until the holder printed its line (300 s at most)
maps_wait_hold() {
	i=0
	while ! grep -qs '^hold ' /tmp/hold.out; do
		if [ $i -ge 300 ] || ! kill -0 "$1" 2>/dev/null; then
			return 1
		fi
		sleep 1
		i=$((i + 1))
	done
}

# maps_hold NAME HOLD-ARGS...: one region, held while ptscope maps reads it
maps_hold() {
	name=$1
	shift
	maps_kcounters | sed 's/^/before /' >/tmp/maps.kc
	rm -f /tmp/hold.out
	ptscope-bench hold "$@" --pause >/tmp/hold.out 2>/tmp/hold.err &
	hpid=$!
	if ! maps_wait_hold $hpid; then
		echo "hold $* did not start:" | cat - /tmp/hold.err >/tmp/maps.err
		block error "scenario=$name" /tmp/maps.err
		kill -TERM $hpid 2>/dev/null
		wait $hpid
		return
	fi
	maps_kcounters | sed 's/^/after /' >>/tmp/maps.kc
	if ptscope maps --json -p $hpid -o /tmp/maps.json 2>/tmp/maps.err; then
		block maps "scenario=$name" /tmp/maps.json
	else
		block error "scenario=$name" /tmp/maps.err
	fi
	block hold "scenario=$name" /tmp/hold.out
	block kcounters "scenario=$name" /tmp/maps.kc
	kill -TERM $hpid
	wait $hpid
}

maps_scenarios() {
	# page and PMD size: a holder whose stdin is at end of file ends at once
	line=$(ptscope-bench hold --size 64K </dev/null)
	page=$(echo "$line" | sed -n 's/.* page_size=\([0-9]*\).*/\1/p')
	pmd=$(echo "$line" | sed -n 's/.* pmd_size=\([0-9]*\).*/\1/p')
	if [ -z "$page" ] || [ -z "$pmd" ]; then
		echo "no page size from ptscope-bench hold: $line" >/tmp/maps.err
		block error "scenario=geometry" /tmp/maps.err
		return
	fi
	echo madvise >"$THP/enabled"
	set_size 2048 inherit
	set_size 64 never
	maps_hold thp --size $((4 * pmd)) --thp always
	# the page at 2.5 PMDs: read-only, or unmapped
	maps_hold mprotect --size $((4 * pmd)) --thp always \
		--split-mprotect $((2 * pmd + pmd / 2))
	maps_hold punch --size $((4 * pmd)) --thp always \
		--punch $((2 * pmd + pmd / 2))
	maps_hold moved --size $((2 * pmd)) --thp always --move-offset "$page"
	maps_hold small --size $((2 * pmd)) --thp never
	if [ -w "$THP/hugepages-64kB/enabled" ]; then
		# 1 MiB is below a PMD with any page size: 64 KiB folios only
		set_size 64 madvise
		maps_hold mthp --size 1M --thp always
		maps_hold mthp_moved --size 1M --thp always --move-offset "$page"
		set_size 64 never
	fi
}
