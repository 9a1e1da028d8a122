#!/bin/bash
# make bench: the upstream mremap experiment on this machine.  A populated
# 1 GiB region is moved at PUD, PMD and page alignment (ptscope-bench
# table: user-side medians); ptscope times the same calls in the kernel
# (sys_enter -> sys_exit of mremap, mean per alignment class).  Only
# ratios within this one run mean anything on a shared or virtual box.
set -euo pipefail
PTSCOPE=${PTSCOPE:-build/ptscope}
BENCH=${BENCH:-build/ptscope-bench}
SIZE=${BENCH_SIZE:-1G}
RUNS=${BENCH_RUNS:-5}
out=$(mktemp /tmp/ptscope-bench.XXXXXX.json)
trap 'rm -f "$out"' EXIT

echo "== ptscope-bench table --size $SIZE --runs $RUNS (user side)"
"$PTSCOPE" stat --json -o "$out" -- "$BENCH" table --size "$SIZE" --runs "$RUNS"
echo
echo "== the same calls, kernel side (ptscope, mean of warm-up + timed runs)"
python3 - "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
classes = d["counters"]["mremap"]["classes"]
rows = []
for name, label in (("pud", "pud"), ("pmd", "pmd"), ("pte", "page")):
    h = classes[name]["latency_ns"]
    if h["count"]:
        rows.append((label, h["count"], h["sum"] / h["count"] / 1000.0))
base = rows[0][2] if rows and rows[0][0] == "pud" else None
print("%-6s %6s %14s %14s" % ("align", "calls", "kernel_mean_us", "ratio_vs_pud"))
for label, count, mean in rows:
    ratio = "%.1f" % (mean / base) if base else "-"
    print("%-6s %6d %14.1f %14s" % (label, count, mean, ratio))
PY
