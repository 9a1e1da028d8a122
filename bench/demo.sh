#!/bin/bash
# make demo: show what ptscope sees on this kernel, running the default
# workload (mremap at PUD, PMD and PTE alignment, a bigheap-like growth
# loop, and hugepage faults of 2 MB and 64 KB) under "ptscope stat".
# The 64 KB mTHP size is switched to "madvise" for the run and restored.
set -euo pipefail
PTSCOPE=${PTSCOPE:-build/ptscope}
BENCH=${BENCH:-build/ptscope-bench}
THP=/sys/kernel/mm/transparent_hugepage

restore=""
if [ -w "$THP/hugepages-64kB/enabled" ]; then
	restore=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$THP/hugepages-64kB/enabled")
	trap 'echo "$restore" > "$THP/hugepages-64kB/enabled"' EXIT
	echo madvise >"$THP/hugepages-64kB/enabled"
fi

echo "== ptscope probe: what this kernel offers"
"$PTSCOPE" probe
echo
echo "== ptscope stat: the default workload"
"$PTSCOPE" stat -- sh -c "{
	$BENCH mremap --size 1G --align pud --count 2 &&
	$BENCH mremap --size 16M --align pmd --thp never --count 4 &&
	$BENCH mremap --size 1036K --align page --count 8 &&
	$BENCH grow --start 128K --step 64K --count 500 &&
	$BENCH fault --size 4M --count 4 --thp always &&
	$BENCH fault --size 1M --count 4 --thp always; } >/dev/null"
