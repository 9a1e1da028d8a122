#!/bin/bash
# The qemu kernel matrix: boot each Debian cloud kernel with static ptscope
# and the bench, run tests/vm/scenarios/mremap-matrix.sh inside, and check
# every report against the workload geometry (tests/vm/check_matrix.py).
# VM_KERNELS picks a subset, e.g. VM_KERNELS="6.12-amd64".  A kernel that
# does not boot or attach is a failure, never a skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
kernels=${VM_KERNELS:-6.1-amd64 6.1-arm64 6.12-amd64 6.12-arm64}
work=$(mktemp -d /tmp/ptscope-vm.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$here/tap.sh"
# the seeded mremap cases (bench/mremap-cases.c) of the differential level
# test: a new seed each run, printed so that a failure reproduces with
# LEVELS_SEED=...
seed=${LEVELS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
cases=${LEVELS_CASES:-100}
echo "# levels: ptscope-cases --seed $seed --count $cases per mode"

static_dir() {
	case $1 in
	amd64) echo "$top/build/static/x86" ;;
	arm64*) echo "$top/build/static/arm64" ;;
	esac
}

for k in $kernels; do
	version=${k%%-*}
	arch=${k#*-}		# amd64, arm64 or arm64-16k
	guest_arch=${arch%-16k}	# what the initramfs binaries are built for
	bin=$(static_dir "$arch")
	initrd="$work/$guest_arch.cpio.gz"
	if [ ! -x "$bin/ptscope" ]; then
		fail "$k: no static ptscope in $bin (make static)"
		continue
	fi
	if [ ! -f "$initrd" ] &&
	   ! "$here/mkinitramfs.sh" "$initrd" "$guest_arch" "$here/scenarios/mremap-matrix.sh" \
		"$bin/ptscope" "$bin/ptscope-bench" "$bin/ptscope-cases" \
		"$bin/ptscope-floor" "$top/bench/overhead.sh:/lib/overhead.sh" \
		"$here/scenarios/lib.sh:/lib/ptscope-scenarios.sh" >"$work/mkinitramfs.log" 2>&1; then
		fail "$k: initramfs: $(tail -n1 "$work/mkinitramfs.log")"
		continue
	fi
	start=$(date +%s)
	PTSCOPE_VM_LOG="$work/$k.console" \
	PTSCOPE_VM_APPEND="ptscope.seed=$seed ptscope.cases=$cases" \
		"$here/boot.sh" "$version" "$arch" "$initrd" \
		"${VM_TIMEOUT:-1500}" >"$work/$k.out" 2>"$work/$k.err"
	rc=$?
	echo "# $k: $(( $(date +%s) - start )) s in the VM (boot.sh rc $rc)"
	check_console "$k" "$work/$k.console"
	if [ $rc -ne 0 ]; then
		fail "$k: VM failed (rc $rc): $(tail -n2 "$work/$k.err" | tr '\n' ' ')"
		tail -n 20 "$work/$k.console" 2>/dev/null | sed 's/^/#   /'
		continue
	fi
	# continue the TAP numbering across kernels
	run_checker "$k" python3 "$here/check_matrix.py" "$k" "$work/$k.out" "$cases"
done
tap_finish
