#!/bin/sh
# Guest side of tests/vm/fuzz_levels.sh: only the seeded mremap cases of
# the differential level test, under each mode of ptscope.modes= (default
# patched fentry kprobe), for long runs.  Runs under busybox sh.

. /lib/ptscope-scenarios.sh

echo madvise >$THP/enabled
echo madvise >$THP/defrag
echo advise >$THP/shmem_enabled
echo "@@KERNEL $(uname -r) $(uname -m)"
for mode in $(cmdline_value modes patched,fentry,kprobe | tr , ' '); do
	probe "$mode"
	levels_cases "$mode"
done
