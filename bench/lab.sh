#!/bin/bash
# make bench-lab: the 6.17-rc1 mremap regression as the lab kernels show
# it to a user of a stock kernel.  Boots the regression kernel (7.3 with
# the fix 0b5be138ce00 undone) and 7.3 as shipped, both with kernel/patches
# (built by kernel/build), under qemu TCG with -icount, and in each runs
# tests/vm/scenarios/lab.sh: the bigheap-like workload (ptscope-bench
# realloc) RUNS times untraced, then RUNS times under ptscope stat
# --repeat through the fentry markers.  Prints the lab table
# (bench/lab_table.py) and ptscope diff of the two recordings.
#
#   bench/lab.sh [RUNS]     (default 5; COUNT=N realloc calls a run, default 2000;
#                            ARCH=amd64|arm64, default amd64)
#
# Under -icount shift=0 the guest's clock counts one ns per executed
# instruction: "realloc calls/s" are calls per 10^9 guest instructions,
# repeatable whatever the host does, and not a hardware time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
vm=$top/tests/vm
runs=${1:-5}
count=${COUNT:-2000}
arch=${ARCH:-amd64}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [RUNS]" >&2; exit 2; }
[[ $count =~ ^[1-9][0-9]*$ ]] || { echo "$0: COUNT must be a positive number" >&2; exit 2; }
case $arch in
amd64) bin=$top/build/static/x86 ;;
arm64) bin=$top/build/static/arm64 ;;
*) echo "$0: ARCH is amd64 or arm64, not '$arch'" >&2; exit 2 ;;
esac
work=$(mktemp -d /tmp/ptscope-lab.XXXXXX)
trap 'rm -rf "$work"' EXIT
die() { echo "$0: $*" >&2; exit 1; }

export PTSCOPE_VM_ICOUNT=0
"$vm/infra/mkinitramfs.sh" "$work/initrd.cpio.gz" "$arch" "$vm/scenarios/lab.sh" \
	"$bin/ptscope" "$bin/ptscope-bench" \
	"$vm/scenarios/lib.sh:/lib/ptscope-scenarios.sh" \
	>"$work/mkinitramfs.log" 2>&1 || die "initramfs: $(tail -n 1 "$work/mkinitramfs.log")"
for v in regression patched; do
	kdir=$("$top/kernel/build" -a "$arch" "$v" 2>"$work/$v.build" | tail -n 1) ||
		die "kernel/build $v failed: $(tail -n 3 "$work/$v.build")"
	PTSCOPE_VM_KERNEL_DIR=$kdir PTSCOPE_VM_LOG="$work/$v.console" \
	PTSCOPE_VM_APPEND="ptscope.runs=$runs ptscope.count=$count" \
		"$vm/infra/boot.sh" 7.3 "$arch" "$work/initrd.cpio.gz" "${VM_TIMEOUT:-3600}" \
		>"$work/$v.out" 2>"$work/$v.err" || {
		tail -n 20 "$work/$v.err" "$work/$v.console" >&2
		die "$v: VM failed"
	}
	echo "# $v booted: $(tail -n 1 "$work/$v.err")" >&2
done
python3 "$here/lab_table.py" "$work" "ptscope-bench realloc --start 1M --step 64K --count $count" ||
	die "no lab table: $(tail -n 5 "$work/regression.out")"
echo
"$top/build/ptscope" diff "$work/regression.json" "$work/patched.json"
