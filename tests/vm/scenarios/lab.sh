#!/bin/sh
# Guest side of bench/lab.sh, on a kernel built by kernel/build: the
# bigheap-like workload (ptscope-bench realloc: glibc realloc() growth)
# RUNS times with no tracer, for its own rate, then RUNS times under one
# ptscope stat --repeat through the fentry markers alone, as a user of a
# stock kernel traces it.  ptscope.runs= and ptscope.count= on the kernel
# command line.  Runs under busybox sh.

. /lib/ptscope-scenarios.sh

echo madvise >$THP/enabled
echo "@@KERNEL $(uname -r) $(uname -m)"
runs=$(cmdline_value runs 5)
args="--start 1M --step 64K --count $(cmdline_value count 2000)"
i=0
: >/tmp/raw.out
while [ $i -lt "$runs" ]; do
	# shellcheck disable=SC2086
	ptscope-bench realloc $args >>/tmp/raw.out 2>&1
	i=$((i + 1))
done
block bench "mode=none scenario=realloc" /tmp/raw.out
mode=fentry
extra="--repeat $runs"
# shellcheck disable=SC2086
run realloc ptscope-bench realloc $args
