#!/bin/sh
# Guest side of tests/vm/test_matrix.sh: for each attach mode this kernel
# supports, run the mremap and the hugepage fault scenarios under
# "ptscope stat --json" and print every report in @@BEGIN/@@END blocks for
# the host to check.
# Runs under busybox sh in the initramfs; helpers in lib.sh.

. /lib/ptscope-scenarios.sh
. /lib/ptscope-maps.sh
. /lib/ptscope-cgroup.sh

echo madvise >$THP/enabled
echo madvise >$THP/defrag
# MADV_HUGEPAGE on the shared (shmem) cases of ptscope-cases
echo advise >$THP/shmem_enabled

# three PMD-aligned 8-PMD moves (16 MiB with 4 KiB pages) seen by top (one
# JSON object per second) and by the /metrics the same process serves,
# scraped before and after
top_scenario() {
	rm -f /tmp/top.err	# see wait_tracing
	ptscope top --json --mode "$mode" -c ptscope-bench -i 1 -d 8 \
		--listen 127.0.0.1:9477 >/tmp/top.json 2>/tmp/top.err &
	tpid=$!
	wait_tracing /tmp/top.err
	scrape /tmp/scrape0.txt
	ptscope-bench mremap --size "$((8 * PMD_KB))K" --align pmd --thp never \
		--count 3 >/dev/null
	scrape /tmp/scrape1.txt
	wait $tpid
	block top "mode=$mode scenario=pmd3" /tmp/top.json
	block toperr "mode=$mode scenario=pmd3" /tmp/top.err
	block scrape0 "mode=$mode scenario=pmd3" /tmp/scrape0.txt
	block scrape1 "mode=$mode scenario=pmd3" /tmp/scrape1.txt
}

# one mixed mremap seen through snoop: the event carries its level moves
snoop_scenario() {
	rm -f /tmp/snoop.err	# see wait_tracing
	ptscope snoop --json --mode "$mode" -c ptscope-bench -o /tmp/snoop.json \
		2>/tmp/snoop.err &
	spid=$!
	wait_tracing /tmp/snoop.err
	ptscope-bench mremap --size "$(mixed_kb)K" --align pud --thp never \
		--count 1 --populate "$POP_PUD" >/dev/null
	sleep 1
	kill -INT $spid
	wait $spid
	block snoop "mode=$mode scenario=mixed" /tmp/snoop.json
	block snooperr "mode=$mode scenario=mixed" /tmp/snoop.err
}

# bench/overhead.sh keeps working on this kernel: tiny counts, three
# tracers, two workloads (make bench-overhead-vm runs all of it)
overhead_tiny() {
	TRACERS="none floor export" WORKLOADS="inplace fault_4k" \
		sh /lib/overhead.sh --vm --tiny --mode "$1" --out "/tmp/ov-$1" \
		>/tmp/overhead.out 2>&1
	echo "overhead.sh exit $?" >>/tmp/overhead.out
	block overhead "mode=$1" /tmp/overhead.out
}

# ptscope export under the default attach (where top_scenario does not
# run: no mode gives levels): three PMD-aligned 8-PMD moves between two
# scrapes, then the runtime's SIGTERM
export_scenario() {
	rm -f /tmp/export.err	# see wait_tracing
	ptscope export --listen 127.0.0.1:9478 2>/tmp/export.err &
	epid=$!
	wait_tracing /tmp/export.err
	scrape /tmp/escrape0.txt 9478
	ptscope-bench mremap --size "$((8 * PMD_KB))K" --align pmd --thp never \
		--count 3 >/dev/null
	scrape /tmp/escrape1.txt 9478
	kill -TERM $epid
	wait $epid
	echo "export exit $?" >>/tmp/export.err
	block escrape0 "mode=auto scenario=export" /tmp/escrape0.txt
	block escrape1 "mode=auto scenario=export" /tmp/escrape1.txt
	block exporterr "mode=auto scenario=export" /tmp/export.err
}

echo "@@KERNEL $(uname -r) $(uname -m)"
geometry
# what is mapped now (ptscope maps): procfs only, the same in every mode
maps_scenarios
echo madvise >$THP/enabled
for mode in fentry kprobe; do
	probe "$mode"
	if grep -Eq '^  thp\.fault_alloc +exact +'"$mode" /tmp/probe.txt; then
		fault_scenarios
	fi
	# only modes that give the level breakdown are worth the time
	if ! grep -Eq '^  mremap\.levels +(exact|inferred) +'"$mode" /tmp/probe.txt; then
		continue
	fi
	mremap_scenarios
	# per cgroup: in one mode (check_cgroup.py), the rows count alike in all
	if [ -z "${cgroups_done:-}" ]; then
		cgroup_scenarios
		cgroups_done=1
	fi
	batch_scenarios
	snoop_scenario
	top_scenario
	levels_cases "$mode"
	overhead_tiny "$mode"
	levels_seen=1
done
# no mode gave the level breakdown (5.10: no PUD marker): what the default
# attach gives a stock-kernel user, once
if [ -z "${levels_seen:-}" ]; then
	mode=auto
	probe auto
	fault_scenarios
	class_scenarios
	cgroup_scenarios
	export_scenario
	overhead_tiny auto
fi
