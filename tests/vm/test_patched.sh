#!/bin/bash
# The kernel/ patch set on real kernels: build (or reuse) Linux 7.3 with the
# tracepoint series (patched: 7.3 as shipped, with the 6.17-rc2 fix) and the
# lab kernel (regression: the folio lookup per present PTE of 6.17-rc1
# again) with kernel/build, boot each under qemu with static ptscope, and
# check the reports against the workload geometry and the kernel's counters
# (tests/vm/checkers/check_patched.py).  Then ptscope diff of the regression and
# patched recordings (3 runs each), through the tracepoints and through the
# fentry markers alone, must call it a change and name the folio lookups,
# exactly.  PATCHED_ARCH=arm64 runs the same on arm64 (not in
# make check: see kernel/README.md).
# PATCHED_VARIANTS picks a subset.  A kernel that does not build, boot or
# attach is a failure, never a skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
variants=${PATCHED_VARIANTS:-patched regression}
arch=${PATCHED_ARCH:-amd64}
case $arch in
amd64) bin=$top/build/static/x86 ;;
arm64) bin=$top/build/static/arm64 ;;
*) echo "test_patched.sh: PATCHED_ARCH is amd64 or arm64, not '$arch'" >&2; exit 2 ;;
esac
work=$(mktemp -d /tmp/ptscope-patched.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$here/lib.sh"
# the differential level test on the patched kernel (tests/vm/cases/mremap-cases.c):
# a new seed each run, printed; LEVELS_SEED=... reproduces a failure
seed=${LEVELS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
cases=${LEVELS_CASES:-300}
echo "# levels: ptscope-cases --seed $seed --count $cases per mode"

# boot_variant VARIANT: build or reuse its kernel, boot it, check the output
boot_variant() {
	local v=$1 kdir start rc

	start=$(date +%s)
	if ! kdir=$("$top/kernel/build" -a "$arch" "$v" 2>"$work/$v.build"); then
		not_ok "$v: kernel/build failed: $(tail -n 3 "$work/$v.build" | tr '\n' ' ')"
		return
	fi
	kdir=$(printf '%s\n' "$kdir" | tail -n 1)
	echo "# $v: kernel $(cat "$kdir/release") ready in $(( $(date +%s) - start )) s"
	start=$(date +%s)
	PTSCOPE_VM_KERNEL_DIR=$kdir PTSCOPE_VM_LOG="$work/$v.console" \
	PTSCOPE_VM_ACCEL_FILE="$work/$v.accel" \
	PTSCOPE_VM_APPEND="ptscope.seed=$seed ptscope.cases=$cases" \
		"$here/infra/boot.sh" 7.3 "$arch" "$work/initrd.cpio.gz" "${VM_TIMEOUT:-1500}" \
		>"$work/$v.out" 2>"$work/$v.err"
	rc=$?
	echo "# $v: $(( $(date +%s) - start )) s in the VM (boot.sh rc $rc)"
	check_console "$v" "$work/$v.console"
	if [ $rc -ne 0 ]; then
		not_ok "$v: VM failed (rc $rc): $(tail -n 2 "$work/$v.err" | tr '\n' ' ')"
		tail -n 20 "$work/$v.console" 2>/dev/null | sed 's/^/#   /'
		return
	fi
	run_checker "$v" python3 "$here/checkers/check_patched.py" "$v" "$work/$v.out" "$work" "$cases"
}

# lab_times ACCEL_REGRESSION ACCEL_PATCHED NS_REGRESSION NS_PATCHED: the
# workload's times, with the accelerator that produced each.  Only a time
# from KVM on both sides is a measurement; under TCG the guest's page-table
# work is emulated, so a ratio there is not evidence of a regression.
lab_times() {
	local what="(qemu $1 and $2: not evidence of a regression)"

	[ "$1" = "$2" ] && what="(qemu $1: not evidence of a regression)"
	[ "$1" = kvm ] && [ "$2" = kvm ] && what="(qemu kvm)"
	awk -v b="$3" -v f="$4" -v what="$what" 'BEGIN {
		printf "# lab_off4k without probes, median of 5 calls: regression " \
			"%.1f ms, patched %.1f ms, regression/patched %.2f %s\n",
			b / 1e6, f / 1e6, b / f, what }'
}

# The lab's regression in ptscope diff, 3 runs a variant: "changed", and
# the folio lookups are among the changes, exactly (the same count in
# every run: 128 MiB of 4 KiB PTEs less the last of each of the 128
# extents, against none with the fix).
# check_diff SUFFIX NAME...: the recordings VARIANTSUFFIX.json, and the
# diff rows NAME that must carry the lookups
check_diff() {
	local suffix=$1 base=$work/regression$1.json new=$work/patched$1.json
	local what="diff regression$1 -> patched$1"

	shift
	if [ ! -f "$base" ] || [ ! -f "$new" ]; then
		not_ok "$what: no recordings to compare"
		return
	fi
	if ! "$top/build/ptscope" diff "$base" "$new" >"$work/diff$suffix.txt" 2>&1 ||
	   ! "$top/build/ptscope" diff --json "$base" "$new" >"$work/diff$suffix.json" 2>&1; then
		not_ok "$what: ptscope diff failed: $(head -n 2 "$work/diff$suffix.txt")"
		return
	fi
	sed 's/^/#   /' "$work/diff$suffix.txt"
	cat >"$work/diff_check.py" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	what, names = sys.argv[2], sys.argv[3:]
	changed = {r["name"]: r for r in d["changed"]}
	want = (128 << 20) // 4096 - 128
	print("1..%d" % (1 + len(names)))
	print("%s 1 - %s, 3 runs a side: verdict %s" % (
	    "ok" if d["verdict"] == "changed" else "not ok", what, d["verdict"]))
	for i, name in enumerate(names):
	    r = changed.get(name, {})
	    got = (r.get("base"), r.get("new"), r.get("test"))
	    print("%s %d - %s names %s as changed, exactly: %s (want %s)" % (
	        "ok" if got == (want, 0, "exact") else "not ok", i + 2, what, name,
	        got, (want, 0, "exact")))
	PY
	run_checker "$what" python3 "$work/diff_check.py" "$work/diff$suffix.json" \
		"$what" "$@"
}

# lab_times_note: the lab workload's times, if both variants gave one
lab_times_note() {
	if [ -f "$work/regression.median_ns" ] && [ -f "$work/patched.median_ns" ]; then
		lab_times "$(cat "$work/regression.accel" 2>/dev/null)" \
			"$(cat "$work/patched.accel" 2>/dev/null)" \
			"$(cat "$work/regression.median_ns")" "$(cat "$work/patched.median_ns")"
	fi
}

if [ ! -x "$bin/ptscope" ] || [ ! -x "$top/build/ptscope" ]; then
	not_ok "no ptscope binaries in $bin and $top/build (make all static)"
elif ! "$here/infra/mkinitramfs.sh" "$work/initrd.cpio.gz" "$arch" "$here/scenarios/patched.sh" \
	"$bin/ptscope" "$bin/ptscope-bench" "$bin/ptscope-cases" \
	"$here/scenarios/lib.sh:/lib/ptscope-scenarios.sh" >"$work/mkinitramfs.log" 2>&1; then
	not_ok "initramfs: $(tail -n 1 "$work/mkinitramfs.log")"
else
	for v in $variants; do
		boot_variant "$v"
	done
	if [[ " $variants " == *" regression "* && " $variants " == *" patched "* ]]; then
		check_diff "" folio_lookups.calls levels.folio_lookups
		# through the markers alone, as on a stock kernel
		check_diff -markers levels.folio_lookups
		lab_times_note
	fi
fi
tap_finish
