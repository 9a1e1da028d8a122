#!/bin/sh
# Guest side of bench/kernel-off.sh: the mremap and fault loops of
# bench/overhead.sh with no tracer attached, on a kernel built by
# kernel/build, so that stock 7.3 and 7.3 with the tracepoint series
# (built in, not enabled) can be compared.  ptscope.reps=N runs of each
# workload (default 3), one "@@OFF WORKLOAD NS_PER_OP" line per run.
# Runs under busybox sh in the initramfs; helpers in lib.sh.

. /lib/ptscope-scenarios.sh

reps=$(cmdline_value reps 3)
echo "@@KERNEL $(uname -r) $(uname -m)"
# the 4 KiB fault loop must get 4 KiB folios: no mTHP size on
[ -w $THP/hugepages-64kB/enabled ] && echo never >$THP/hugepages-64kB/enabled

# workload_cmd WORKLOAD: the ptscope-bench command line of the workload
workload_cmd() {
	case $1 in
	move_pte) echo "move-loop --class page --count 200" ;;
	move_pmd) echo "move-loop --class pmd --count 2000" ;;
	inplace) echo "inplace-loop --count 5000" ;;
	fault_4k) echo "fault-loop --size 16M --count 2 --thp never" ;;
	fault_pmd) echo "fault-loop --size 16M --count 2 --thp always --folio pmd" ;;
	esac
}

i=0
while [ $i -lt "$reps" ]; do
	for w in move_pte move_pmd inplace fault_4k fault_pmd; do
		# shellcheck disable=SC2046 # the command line is words
		ns=$(ptscope-bench $(workload_cmd $w) 2>&1 |
			sed -n 's/^loop=.* ns_per_op=\([0-9.]*\)$/\1/p')
		echo "@@OFF $w ${ns:-none}"
	done
	i=$((i + 1))
done
