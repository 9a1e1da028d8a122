#!/bin/bash
# make bench-overhead-vm: bench/overhead.sh inside one qemu kernel of the
# matrix (static binaries, busybox), in fentry and kprobe modes, printing
# its ratio tables.  Under TCG only the ratios mean something.
#
#   tests/vm/bench_overhead.sh KERNEL [ROUNDS] [--tiny]
#   KERNEL: a kernel of tests/vm/infra/kernels.tsv, e.g. 6.12-amd64
#   TRACERS, WORKLOADS (environment): bench/overhead.sh's lists, to run
#   fewer of them in the guest
#   BASELINE (environment): another build's static ptscope for the guest's
#   arch, run as bench/overhead.sh's BASELINE (before/after in one run)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kernel=${1:?usage: $0 KERNEL [ROUNDS] [--tiny]}
rounds=${2:-3}
tiny=0
[ "${3:-}" = --tiny ] && tiny=1
. "$here/infra/kernels.sh"
if ! version=$(kernel_field "$kernel" version); then
	echo "$0: KERNEL is one of: $(kernel_field '*' label | tr '\n' ' ')" >&2
	exit 2
fi
arch=$(kernel_field "$kernel" arch)
guest_arch=$(kernel_field "$kernel" deb_arch)
case $guest_arch in
amd64) bin=$top/build/static/x86 ;;
arm64) bin=$top/build/static/arm64 ;;
esac
lists=
[ -n "${TRACERS:-}" ] && lists="ptscope.tracers=$(echo "$TRACERS" | tr ' ' ,)"
[ -n "${WORKLOADS:-}" ] && lists="$lists ptscope.workloads=$(echo "$WORKLOADS" | tr ' ' ,)"
baseline=()
if [ -n "${BASELINE:-}" ]; then
	baseline=("$BASELINE:/bin/ptscope-baseline")
	lists="$lists ptscope.baseline=1"
fi
work=$(mktemp -d /tmp/ptscope-overhead-vm.XXXXXX)
trap 'rm -rf "$work"' EXIT
if ! "$here/infra/mkinitramfs.sh" "$work/initrd.cpio.gz" "$guest_arch" \
	"$here/scenarios/overhead.sh" "$bin/ptscope" "$bin/ptscope-bench" \
	"$bin/ptscope-floor" "$top/bench/overhead.sh:/lib/overhead.sh" \
	"$top/bench/overhead.bt:/lib/overhead.bt" \
	"$here/scenarios/lib.sh:/lib/ptscope-scenarios.sh" "${baseline[@]}" \
	>"$work/mkinitramfs.log" 2>&1; then
	echo "$0: initramfs: $(tail -n1 "$work/mkinitramfs.log")" >&2
	exit 1
fi
PTSCOPE_VM_LOG="$work/console" \
PTSCOPE_VM_APPEND="ptscope.rounds=$rounds ptscope.tiny=$tiny $lists" \
	"$here/infra/boot.sh" "$version" "$arch" "$work/initrd.cpio.gz" \
	"${VM_TIMEOUT:-3000}" >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -ne 0 ]; then
	echo "$0: $kernel: VM failed (rc $rc)" >&2
	tail -n 20 "$work/err" "$work/console" >&2
fi
# the tables, without the block markers
sed -e 's/^@@BEGIN overhead mode=\(.*\)/== '"$kernel"', ptscope --mode \1 ==/' \
	-e '/^@@END/d' -e 's/^@@KERNEL /kernel: /' "$work/out"
exit $rc
