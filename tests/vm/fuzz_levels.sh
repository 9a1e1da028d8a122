#!/bin/bash
# Long runs of the differential level test: boot the patched 7.3 kernel
# (kernel/build patched) with only the seeded mremap cases, under the
# patched tracepoints (the oracle), then the fentry and the kprobe
# markers, and compare every call.  make fuzz-levels SEED=... N=...
# (defaults: a new seed, 2000 cases per mode).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=$top/build/static/x86
work=$(mktemp -d /tmp/ptscope-fuzz-levels.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$here/lib.sh"
seed=${LEVELS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
cases=${LEVELS_CASES:-2000}
echo "# levels: ptscope-cases --seed $seed --count $cases per mode"

if ! kdir=$("$top/kernel/build" patched 2>"$work/build.err"); then
	not_ok "kernel/build patched failed: $(tail -n 3 "$work/build.err" | tr '\n' ' ')"
elif ! "$here/infra/mkinitramfs.sh" "$work/initrd.cpio.gz" amd64 "$here/scenarios/levels.sh" \
	"$bin/ptscope" "$bin/ptscope-cases" \
	"$here/scenarios/lib.sh:/lib/ptscope-scenarios.sh" >"$work/mkinitramfs.log" 2>&1; then
	not_ok "initramfs: $(tail -n 1 "$work/mkinitramfs.log")"
else
	kdir=$(printf '%s\n' "$kdir" | tail -n 1)
	PTSCOPE_VM_KERNEL_DIR=$kdir PTSCOPE_VM_LOG="$work/console" \
	PTSCOPE_VM_APPEND="ptscope.seed=$seed ptscope.cases=$cases" \
		"$here/infra/boot.sh" 7.3 amd64 "$work/initrd.cpio.gz" "${VM_TIMEOUT:-7200}" \
		>"$work/out" 2>"$work/err"
	rc=$?
	check_console patched "$work/console"
	if [ $rc -ne 0 ]; then
		not_ok "VM failed (rc $rc): $(tail -n 2 "$work/err" | tr '\n' ' ')"
	else
		run_checker levels python3 "$here/checkers/check_levels.py" 7.3-patched \
			"$work/out" "$cases" patched fentry kprobe
	fi
fi
tap_finish
