#!/bin/bash
# The qemu kernel matrix: boot each Debian cloud kernel with static ptscope
# and the bench, run tests/vm/scenarios/mremap-matrix.sh inside, and check
# every report against the workload geometry (tests/vm/checkers/check_matrix.py).
# VM_KERNELS picks a subset of the kernels of tests/vm/infra/kernels.tsv (all by
# default), e.g. VM_KERNELS="6.12-amd64"; VM_JOBS guests boot at a time
# (default 2).  A kernel that does not boot or attach is a failure, never
# a skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/infra/kernels.sh"
kernels=${VM_KERNELS:-$(kernel_field '*' label)}
work=$(mktemp -d /tmp/ptscope-vm.XXXXXX)
# PTSCOPE_KEEP=1 keeps the consoles and reports for a look afterwards
if [ "${PTSCOPE_KEEP:-0}" = 1 ]; then
	echo "# work directory kept: $work"
else
	trap 'rm -rf "$work"' EXIT
fi
. "$here/lib.sh"
# the seeded mremap cases (tests/vm/cases/mremap-cases.c) of the differential level
# test: a new seed each run, printed so that a failure reproduces with
# LEVELS_SEED=...
seed=${LEVELS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
cases=${LEVELS_CASES:-100}
echo "# levels: ptscope-cases --seed $seed --count $cases per mode"

static_dir() {	# static_dir DEB_ARCH
	case $1 in
	amd64) echo "$top/build/static/x86" ;;
	arm64) echo "$top/build/static/arm64" ;;
	esac
}

# boot_one KERNEL: boot it with the matrix scenario; its console, output,
# exit status and seconds land in $work/KERNEL.*
boot_one() {
	local k=$1 version arch guest_arch initrd start append
	version=$(kernel_field "$k" version)
	append="ptscope.seed=$seed ptscope.cases=$cases"
	arch=$(kernel_field "$k" arch)
	guest_arch=$(kernel_field "$k" deb_arch)	# what the initramfs binaries are built for
	initrd="$work/$guest_arch.cpio.gz"
	start=$(date +%s)
	PTSCOPE_VM_LOG="$work/$k.console" \
	PTSCOPE_VM_APPEND="$append" \
		"$here/infra/boot.sh" "$version" "$arch" "$initrd" \
		"${VM_TIMEOUT:-1500}" >"$work/$k.out" 2>"$work/$k.err"
	echo $? >"$work/$k.rc"
	echo $(( $(date +%s) - start )) >"$work/$k.seconds"
}

# the initramfs per guest arch, once
booted=
for k in $kernels; do
	if ! guest_arch=$(kernel_field "$k" deb_arch); then
		not_ok "$k: not a kernel of tests/vm/infra/kernels.tsv"
		continue
	fi
	bin=$(static_dir "$guest_arch")
	initrd="$work/$guest_arch.cpio.gz"
	if [ ! -x "$bin/ptscope" ]; then
		not_ok "$k: no static ptscope in $bin (make static)"
		continue
	fi
	if [ ! -f "$initrd" ] &&
	   ! "$here/infra/mkinitramfs.sh" "$initrd" "$guest_arch" "$here/scenarios/mremap-matrix.sh" \
		"$bin/ptscope" "$bin/ptscope-bench" "$bin/ptscope-cases" \
		"$bin/ptscope-floor" "$top/bench/overhead.sh:/lib/overhead.sh" \
		"$here/scenarios/lib.sh:/lib/ptscope-scenarios.sh" \
		"$here/scenarios/maps.sh:/lib/ptscope-maps.sh" \
		"$here/scenarios/cgroup.sh:/lib/ptscope-cgroup.sh" >"$work/mkinitramfs.log" 2>&1; then
		not_ok "$k: initramfs: $(tail -n1 "$work/mkinitramfs.log")"
		continue
	fi
	booted="$booted $k"
done

# VM_JOBS guests at a time (default 2): an amd64 guest runs TCG on one
# host thread (boot.sh), so a second guest uses the other core; the
# checks below run in the kernels' order either way
jobs=${VM_JOBS:-2}
running=0
for k in $booted; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	boot_one "$k" &
	running=$((running + 1))
done
wait

for k in $booted; do
	rc=$(cat "$work/$k.rc" 2>/dev/null || echo "?")
	echo "# $k: $(cat "$work/$k.seconds" 2>/dev/null) s in the VM (boot.sh rc $rc)"
	check_console "$k" "$work/$k.console"
	if [ "$rc" != 0 ]; then
		not_ok "$k: VM failed (rc $rc): $(tail -n2 "$work/$k.err" | tr '\n' ' ')"
		tail -n 20 "$work/$k.console" 2>/dev/null | sed 's/^/#   /'
		continue
	fi
	# continue the TAP numbering across kernels
	run_checker "$k" python3 "$here/checkers/check_matrix.py" "$k" "$work/$k.out" "$cases"
	run_checker "$k maps" python3 "$here/checkers/check_maps.py" "$k" "$work/$k.out"
	run_checker "$k cgroup" python3 "$here/checkers/check_cgroup.py" "$k" "$work/$k.out"
done

tap_finish
