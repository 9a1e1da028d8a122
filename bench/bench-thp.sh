#!/bin/bash
# The fine-grained THP experiment: read bandwidth (ptscope-bench bw, like
# lmbench bw_mem rd) over buffers backed by 4 KiB pages, 64 KiB mTHP and
# 2 MiB THP, each run under "ptscope stat" so the table shows which folio
# sizes the faults really got.  On this virtual machine the noise is
# large: only ratios within one run mean anything, never the absolute
# MB/s or a comparison across runs or machines.
#
# Needs root: it switches /sys/kernel/mm/transparent_hugepage/enabled and
# the hugepages-*kB/enabled sizes for each configuration and restores all
# of them on exit.
set -euo pipefail
PTSCOPE=${PTSCOPE:-build/ptscope}
BENCH=${BENCH:-build/ptscope-bench}
SIZES=${BENCH_SIZES:-16K,64K,256K,1M,4M,16M,64M}
RUNS=${BENCH_RUNS:-7}
THP=/sys/kernel/mm/transparent_hugepage

if [ "$(id -u)" -ne 0 ]; then
	echo "bench-thp.sh: needs root (ptscope, and the THP sysfs settings)" >&2
	exit 2
fi
for f in "$THP/enabled" "$THP/hugepages-64kB/enabled" \
	"$THP/hugepages-2048kB/enabled"; do
	if [ ! -w "$f" ]; then
		echo "bench-thp.sh: $f missing or not writable (no mTHP here?)" >&2
		exit 1
	fi
done

# the selected word of a sysfs choice file: "always [madvise] never"
current() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "$1"
}

# Save enabled and every mTHP size (other sizes are set to never below so
# that only the size under test can back the buffers).
size_files=("$THP"/hugepages-*kB/enabled)
saved=()
for f in "$THP/enabled" "${size_files[@]}"; do
	saved+=("$f=$(current "$f")")
done
tmp=$(mktemp -d /tmp/ptscope-bench-thp.XXXXXX)

restore() {
	local entry
	for entry in "${saved[@]}"; do
		echo "${entry#*=}" >"${entry%%=*}" || true
	done
	rm -rf "$tmp"
}
trap restore EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# configure ENABLED SIZE_64K SIZE_2M: all other mTHP sizes never
configure() {
	local f
	for f in "${size_files[@]}"; do
		echo never >"$f"
	done
	echo "$1" >"$THP/enabled"
	echo "$2" >"$THP/hugepages-64kB/enabled"
	echo "$3" >"$THP/hugepages-2048kB/enabled"
}

# run NAME BW_THP: one configuration under ptscope stat
run() {
	echo "== $1: enabled=$(current "$THP/enabled")" \
		"64kB=$(current "$THP/hugepages-64kB/enabled")" \
		"2048kB=$(current "$THP/hugepages-2048kB/enabled")," \
		"$BENCH bw --thp $2 --sizes $SIZES --runs $RUNS"
	"$PTSCOPE" stat --json -o "$tmp/$1.json" -- \
		"$BENCH" bw --thp "$2" --sizes "$SIZES" --runs "$RUNS" \
		>"$tmp/$1.txt"
}

echo "# bench-thp: VM noise is large, only ratios within this run mean anything"
configure madvise never inherit
run 4K never
configure madvise madvise never
run 64K always
configure madvise never inherit
run 2M always

python3 - "$tmp" 4K 64K 2M <<'PY'
import json, os, sys

tmp, names = sys.argv[1], sys.argv[2:]


def bw_rows(name):
    """size_kb -> (mb_per_s, anon_huge_kb) from ptscope-bench bw output."""
    rows = {}
    with open(os.path.join(tmp, name + ".txt")) as f:
        for line in f:
            cols = line.split()
            if len(cols) == 3 and cols[0].isdigit():
                rows[int(cols[0])] = (float(cols[1]), int(cols[2]))
    return rows


bw = {n: bw_rows(n) for n in names}
js = {n: json.load(open(os.path.join(tmp, n + ".json"))) for n in names}

print()
print("read bandwidth, MB/s (median; AnonHugePages counts PMD THPs only)")
head = "%8s" % "size_kb"
for n in names:
    head += " %10s" % (n + "_MB/s")
for n in names[1:]:
    head += " %8s" % (n + "/" + names[0])
for n in names:
    head += " %9s" % (n + "_ahp_kb")
print(head)
for size in sorted(bw[names[0]]):
    line = "%8d" % size
    for n in names:
        line += " %10.0f" % bw[n][size][0] if size in bw[n] else " %10s" % "-"
    base = bw[names[0]].get(size, (0, 0))[0]
    for n in names[1:]:
        if base and size in bw[n]:
            line += " %8.2f" % (bw[n][size][0] / base)
        else:
            line += " %8s" % "-"
    for n in names:
        line += " %9d" % bw[n][size][1] if size in bw[n] else " %9s" % "-"
    print(line)

print()
print("faults counted by ptscope (this process tree), per folio order")
print("%-6s %-10s %12s %12s %12s  %s" % ("config", "path", "order0_alloc",
      "order4_alloc", "order9_alloc", "mean_fault_us (order 0/4/9)"))
for n in names:
    d = js[n]
    metric = d.get("metrics", {}).get("thp.fault_alloc", {})
    faults = d.get("counters", {}).get("hugepage_faults")
    if faults is None:
        why = metric.get("reason", "no counters.hugepage_faults")
        print("%-6s %-10s n/a (%s)" % (n, "-", why))
        continue
    orders = {o["order"]: o for o in faults.get("orders", [])}
    allocs, lats = [], []
    for order in (0, 4, 9):
        o = orders.get(order)
        allocs.append("%12s" % (o["alloc"] if o else "n/a"))
        h = o.get("latency_ns") if o else None
        if h is None:
            lats.append(None)
        elif h.get("count"):
            lats.append("%.2f" % (h["sum"] / h["count"] / 1000.0))
        else:
            lats.append("-")
    if all(x is None for x in lats):
        lat = "n/a (needs fentry/kprobe)"
    else:
        lat = " / ".join(x if x is not None else "n/a" for x in lats)
    print("%-6s %-10s %s  %s" % (n, metric.get("path", "-"),
          " ".join(allocs), lat))

print()
print("kernel's own counters over each run (system wide)")
print("%-6s %26s %28s" % ("config", "hugepages-64kB.fault_alloc",
      "hugepages-2048kB.fault_alloc"))
for n in names:
    kc = js[n].get("kernel_counters", {})
    vals = []
    for size in ("hugepages-64kB", "hugepages-2048kB"):
        v = kc.get(size, {}).get("anon_fault_alloc")
        vals.append("n/a" if v is None else str(v))
    print("%-6s %26s %28s" % (n, vals[0], vals[1]))
PY
