#!/bin/sh
# Guest side of tests/vm/test_matrix.sh: for each attach mode this kernel
# supports, run the mremap scenarios under "ptscope stat --json" and print
# every report in @@BEGIN/@@END blocks for the host to check.
# Runs under busybox sh in the initramfs.

THP=/sys/kernel/mm/transparent_hugepage
echo madvise >$THP/enabled
echo madvise >$THP/defrag

block() {	# block KIND ATTRS FILE
	echo "@@BEGIN $1 $2"
	cat "$3"
	echo "@@END"
}

# scenario NAME BENCH-ARGS...
scenario() {
	name=$1
	shift
	if ptscope stat --json --mode "$mode" -o /tmp/stat.json -- \
		ptscope-bench mremap "$@" >/tmp/bench.out 2>/tmp/stat.err; then
		block stat "mode=$mode scenario=$name" /tmp/stat.json
		block bench "mode=$mode scenario=$name" /tmp/bench.out
	else
		block error "mode=$mode scenario=$name" /tmp/stat.err
	fi
}

echo "@@KERNEL $(uname -r) $(uname -m)"
for mode in fentry kprobe; do
	ptscope probe --json --mode "$mode" >/tmp/probe.json 2>/tmp/probe.err
	block probe "mode=$mode" /tmp/probe.json
	# only modes that give the level breakdown are worth the time
	ptscope probe --mode "$mode" >/tmp/probe.txt 2>&1
	if ! grep -Eq '^  mremap\.levels +(exact|inferred) +'"$mode" /tmp/probe.txt; then
		continue
	fi
	scenario pud --size 1G --align pud --thp never --count 1
	scenario pmd --size 16M --align pmd --thp never --count 1
	scenario huge_pmd --size 16M --align pmd --thp always --count 1
	scenario pte --size 1036K --align page --thp never --count 1
	scenario off4k --size 1G --align pud --dst-offset 4K --thp never --count 1
	scenario mixed --size 1052684K --align pud --thp never --count 1
	scenario split --size 4M --align pmd --dst-offset 4K --thp always --count 1
done
