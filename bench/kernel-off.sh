#!/bin/bash
# make bench-kernel-off: what the tracepoint series costs while its events
# are off.  Boots stock 7.3 and 7.3 with kernel/patches (both built by
# kernel/build) in turn, ROUNDS times each, alternating which goes first,
# and runs the mremap and fault loops with no tracer in each boot
# (tests/vm/scenarios/offcost.sh).  Prints, per workload, the ratio
# patched/stock of the median ns per operation of each pair of boots:
# the median over the rounds and its spread (min..max).
#
#   bench/kernel-off.sh [ROUNDS]     (default 3; REPS=N runs per boot, default 3)
#
# By default the guests run under TCG with -icount (PTSCOPE_VM_ICOUNT=0):
# the guest's clock then counts executed instructions, one per ns, so a
# "ns/op" is the instructions the kernel ran per operation, repeatable to
# within a percent whatever else the host does.  Set PTSCOPE_VM_ICOUNT= (empty)
# for real time, with KVM where qemu starts with it; under plain TCG the
# times drift by tens of percent between boots.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
vm=$top/tests/vm
rounds=${1:-3}
reps=${REPS:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [ROUNDS]" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "$0: REPS must be a positive number" >&2; exit 2; }
bin=$top/build/static/x86
work=$(mktemp -d /tmp/ptscope-kernel-off.XXXXXX)
trap 'rm -rf "$work"' EXIT
die() { echo "$0: $*" >&2; exit 1; }

export PTSCOPE_VM_ICOUNT=${PTSCOPE_VM_ICOUNT-0}
clock="guest time"
[ -n "$PTSCOPE_VM_ICOUNT" ] && clock="icount shift=$PTSCOPE_VM_ICOUNT: ns/op are instructions x $((1 << PTSCOPE_VM_ICOUNT))"
declare -A kdir
for v in stock patched; do
	kdir[$v]=$("$top/kernel/build" "$v" | tail -n 1) || die "kernel/build $v failed"
done
"$vm/infra/mkinitramfs.sh" "$work/initrd.cpio.gz" amd64 "$vm/scenarios/offcost.sh" \
	"$bin/ptscope-bench" "$vm/scenarios/lib.sh:/lib/ptscope-scenarios.sh" \
	>"$work/mkinitramfs.log" 2>&1 || die "initramfs: $(tail -n 1 "$work/mkinitramfs.log")"

# boot VARIANT ROUND: one boot; "VARIANT ROUND WORKLOAD NS" lines to runs.tsv
boot() {
	PTSCOPE_VM_KERNEL_DIR=${kdir[$1]} PTSCOPE_VM_LOG="$work/$1.$2.console" \
	PTSCOPE_VM_ACCEL_FILE="$work/accel" PTSCOPE_VM_APPEND="ptscope.reps=$reps" \
		"$vm/infra/boot.sh" 7.3 amd64 "$work/initrd.cpio.gz" "${VM_TIMEOUT:-1800}" \
		>"$work/out" 2>"$work/err" || {
		tail -n 20 "$work/err" "$work/$1.$2.console" >&2
		die "$1 (round $2): VM failed"
	}
	awk -v v="$1" -v r="$2" '$1 == "@@OFF" { print v, r, $2, $3 }' \
		"$work/out" >>"$work/runs.tsv"
	echo "# round $2: $1 booted ($(grep -c . "$work/out") lines)" >&2
}

for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then order="stock patched"; else order="patched stock"; fi
	for v in $order; do boot "$v" "$r"; done
done
if grep -q ' none$' "$work/runs.tsv"; then
	die "a workload printed no ns_per_op: $(grep ' none$' "$work/runs.tsv" | head -n 3 | tr '\n' ';')"
fi

echo "kernel: $(cat "${kdir[stock]}/release") against $(cat "${kdir[patched]}/release")," \
	"qemu $(cat "$work/accel") ($clock), $rounds rounds of $reps runs per boot"
# per round and workload the median of the runs per variant, then the
# ratio patched/stock per round; median and min..max of those ratios
awk '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	k = $3 SUBSEP $2 SUBSEP $1
	runs[k] = runs[k] " " $4
	if (!($3 in seen)) { seen[$3] = 1; order[++nw] = $3 }
	if ($2 > nr) nr = $2
}
END {
	printf "%-10s %14s %14s %10s %16s\n", "workload", "stock ns/op", "patched ns/op",
		"ratio", "spread"
	for (i = 1; i <= nw; i++) {
		w = order[i]; ratios = ""; s_all = ""; p_all = ""
		lo = 1e9; hi = 0
		for (r = 1; r <= nr; r++) {
			s = median(runs[w, r, "stock"]); p = median(runs[w, r, "patched"])
			s_all = s_all " " s; p_all = p_all " " p
			q = p / s; ratios = ratios " " q
			if (q < lo) lo = q
			if (q > hi) hi = q
		}
		printf "%-10s %14.0f %14.0f %9.3fx %7.3f..%.3f\n", w, median(s_all),
			median(p_all), median(ratios), lo, hi
	}
}' "$work/runs.tsv"
