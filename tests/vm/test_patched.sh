#!/bin/bash
# The kernel/ patch set on real kernels: build (or reuse) the patched,
# patched+batching and patched+batching+fix kernels with kernel/build, boot
# each under qemu with static ptscope, and check the reports against the
# workload geometry and the kernel's counters (tests/vm/check_patched.py).
# Then ptscope diff of the batching and fix recordings must name the folio
# lookup count and time as what changed.  x86_64 only: see kernel/README.md.
# PATCHED_VARIANTS picks a subset.  A kernel that does not build, boot or
# attach is a failure, never a skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
variants=${PATCHED_VARIANTS:-patched batching fix}
bin=$top/build/static/x86
work=$(mktemp -d /tmp/ptscope-patched.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$here/tap.sh"
# the differential level test on the patched kernel (bench/mremap-cases.c):
# a new seed each run, printed; LEVELS_SEED=... reproduces a failure
seed=${LEVELS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
cases=${LEVELS_CASES:-300}
echo "# levels: ptscope-cases --seed $seed --count $cases per mode"

# boot_variant VARIANT: build or reuse its kernel, boot it, check the output
boot_variant() {
	local v=$1 kdir start rc

	start=$(date +%s)
	if ! kdir=$("$top/kernel/build" "$v" 2>"$work/$v.build"); then
		fail "$v: kernel/build failed: $(tail -n 3 "$work/$v.build" | tr '\n' ' ')"
		return
	fi
	kdir=$(printf '%s\n' "$kdir" | tail -n 1)
	echo "# $v: kernel $(cat "$kdir/release") ready in $(( $(date +%s) - start )) s"
	start=$(date +%s)
	PTSCOPE_VM_KERNEL_DIR=$kdir PTSCOPE_VM_LOG="$work/$v.console" \
	PTSCOPE_VM_APPEND="ptscope.seed=$seed ptscope.cases=$cases" \
		"$here/boot.sh" 6.12 amd64 "$work/initrd.cpio.gz" "${VM_TIMEOUT:-1500}" \
		>"$work/$v.out" 2>"$work/$v.err"
	rc=$?
	echo "# $v: $(( $(date +%s) - start )) s in the VM (boot.sh rc $rc)"
	check_console "$v" "$work/$v.console"
	if [ $rc -ne 0 ]; then
		fail "$v: VM failed (rc $rc): $(tail -n 2 "$work/$v.err" | tr '\n' ' ')"
		tail -n 20 "$work/$v.console" 2>/dev/null | sed 's/^/#   /'
		return
	fi
	run_checker "$v" python3 "$here/check_patched.py" "$v" "$work/$v.out" "$work" "$cases"
}

# The lab's regression in ptscope diff: lookups and their time are gone.
check_diff() {
	local base=$work/batching.json new=$work/fix.json

	if [ ! -f "$base" ] || [ ! -f "$new" ]; then
		fail "diff batching -> fix: no recordings to compare"
		return
	fi
	if ! "$top/build/ptscope" diff "$base" "$new" >"$work/diff.txt" 2>&1 ||
	   ! "$top/build/ptscope" diff --json "$base" "$new" >"$work/diff.json" 2>&1; then
		fail "diff batching -> fix: ptscope diff failed: $(head -n 2 "$work/diff.txt")"
		return
	fi
	sed 's/^/#   /' "$work/diff.txt" | sed -n '/what changed/,$p'
	if grep -q '^  gone (zero in new): .*folio_lookups\.calls' "$work/diff.txt" &&
	   grep -q '^  gone (zero in new): .*folio_lookups\.time_ns' "$work/diff.txt"; then
		ok "diff batching -> fix names folio_lookups.calls and folio_lookups.time_ns as gone"
	else
		fail "diff batching -> fix does not name the folio lookups as what changed"
	fi
	cat >"$work/diff_check.py" <<-'PY'
	import json, sys
	print("1..1")
	rows = {r["metric"]: r for r in json.load(open(sys.argv[1]))["rows"]}
	calls = rows["folio_lookups.calls"]
	want = (1 << 30) // 4096 - 1024
	good = calls["base"] == want and calls["new"] == 0
	print("%s 1 - diff row folio_lookups.calls %s -> %s (want %d -> 0)" % (
	    "ok" if good else "not ok", calls["base"], calls["new"], want))
	sys.exit(0 if good else 1)
	PY
	run_checker "diff batching -> fix" python3 "$work/diff_check.py" "$work/diff.json"
	if [ -f "$work/batching.median_ns" ] && [ -f "$work/fix.median_ns" ]; then
		awk -v b="$(cat "$work/batching.median_ns")" -v f="$(cat "$work/fix.median_ns")" \
			'BEGIN { printf "# lab_off4k without probes, median of 5 calls: " \
				"batching %.1f ms, fix %.1f ms, batching/fix %.2f\n",
				b / 1e6, f / 1e6, b / f }'
	fi
}

if [ ! -x "$bin/ptscope" ] || [ ! -x "$top/build/ptscope" ]; then
	fail "no ptscope binaries in $bin and $top/build (make all static)"
elif ! "$here/mkinitramfs.sh" "$work/initrd.cpio.gz" amd64 "$here/scenarios/patched.sh" \
	"$bin/ptscope" "$bin/ptscope-bench" "$bin/ptscope-cases" \
	"$here/scenarios/lib.sh:/lib/ptscope-scenarios.sh" >"$work/mkinitramfs.log" 2>&1; then
	fail "initramfs: $(tail -n 1 "$work/mkinitramfs.log")"
else
	for v in $variants; do
		boot_variant "$v"
	done
	if [[ " $variants " == *" batching "* && " $variants " == *" fix "* ]]; then
		check_diff
	fi
fi
tap_finish
