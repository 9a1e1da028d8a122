#!/bin/sh
# Guest side of tests/vm/bench_overhead.sh: bench/overhead.sh --vm in each
# attach mode this kernel may offer besides tracepoints (fentry, kprobe),
# its table in an @@BEGIN/@@END block per mode.  Rounds, --tiny and the
# tracer and workload lists come from the kernel command line
# (ptscope.rounds=N, ptscope.tiny=1, ptscope.tracers=A,B,
# ptscope.workloads=A,B; commas for spaces; ptscope.baseline=1: the
# initramfs has another build as /bin/ptscope-baseline).
# Runs under busybox sh in the initramfs; helpers in lib.sh.

. /lib/ptscope-scenarios.sh

echo madvise >$THP/enabled
rounds=$(cmdline_value rounds 3)
tiny=
[ "$(cmdline_value tiny 0)" = 1 ] && tiny=--tiny
tracers=$(cmdline_value tracers '')
workloads=$(cmdline_value workloads '')
[ -n "$tracers" ] && export TRACERS="$(echo "$tracers" | tr , ' ')"
[ -n "$workloads" ] && export WORKLOADS="$(echo "$workloads" | tr , ' ')"
[ "$(cmdline_value baseline 0)" = 1 ] && export BASELINE=/bin/ptscope-baseline
echo "@@KERNEL $(uname -r) $(uname -m)"
for mode in fentry kprobe; do
	# shellcheck disable=SC2086
	sh /lib/overhead.sh --vm --mode "$mode" --rounds "$rounds" $tiny \
		--out /tmp/bench-$mode >/tmp/overhead.out 2>&1
	echo "overhead.sh exit $?" >>/tmp/overhead.out
	block overhead "mode=$mode" /tmp/overhead.out
done
