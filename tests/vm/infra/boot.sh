#!/bin/bash
# Boot a Debian cloud kernel under qemu with an initramfs built by
# mkinitramfs.sh and report what its scenario printed.
#
#   tests/vm/infra/boot.sh VERSION ARCH INITRAMFS [TIMEOUT_S]
#
# VERSION ARCH: a kernel of tests/vm/infra/kernels.tsv (its version and arch
# columns, e.g. 6.12 amd64, 7.3 arm64-16k)    TIMEOUT_S: default 300
#
# stdout: the scenario's output (console text between the PTSCOPE-VM-BEGIN
#         and PTSCOPE-VM-EXIT markers, CRs stripped).
# stderr: progress, timings and the path of the full console log.
# exit:   the scenario's exit status; 1 if the VM never reached the end
#         marker (timeout, panic, qemu failure); 2 on bad usage.
#
# Environment:
#   PTSCOPE_FETCH_KERNEL  kernel fetcher (default: tests/vm/infra/fetch-kernel.sh)
#   PTSCOPE_VM_KERNEL_DIR boot the kernel in this directory (vmlinuz and
#                         release, e.g. from kernel/build) instead of
#                         fetching one; VERSION then only names the run
#   PTSCOPE_VM_LOG        console log file (default: a new file in $TMPDIR)
#   PTSCOPE_VM_MEM        guest RAM (default 4G)
#   PTSCOPE_VM_SMP        guest CPUs (default 2)
#   PTSCOPE_VM_ACCEL      tcg | kvm | auto (default auto: tcg, see below; kvm
#                         only when asked for).  The accelerator used is printed
#                         on stderr ("booting ... (7.3-amd64, kvm)") and
#                         written to PTSCOPE_VM_ACCEL_FILE if that is set.
#   PTSCOPE_VM_TCG_THREAD single | multi: TCG's threading (default single for
#                         amd64, multi for arm64; see below)
#   PTSCOPE_VM_ICOUNT     N: under TCG, -icount shift=N,sleep=off: the guest's
#                         clock counts executed instructions (2^N ns each)
#                         instead of host time, so a time measured in the
#                         guest is a count of instructions, the same whatever
#                         else the host runs.  Forces thread=single.
#   PTSCOPE_VM_CPU        qemu -cpu value (default under TCG: max,-cx16 for amd64
#                         6.x kernels, max for 7.x, max,pauth-impdef=on for
#                         arm64; else max)
#   PTSCOPE_VM_APPEND     extra kernel command line, e.g.
#                         "transparent_hugepage=madvise ptscope.loglevel=7"
#   PTSCOPE_VM_VERBOSE=1  also stream the console to stderr while booting
#   PTSCOPE_VM_MONITOR    a path: qemu's human monitor listens on this unix
#                         socket (info registers -a, x/i, ... on a guest
#                         that hangs); default: none
# shellcheck disable=SC2317 # cleanup is run from a trap
set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "$prog: error: $*" >&2; exit 1; }
note() { echo "$prog: $*" >&2; }
usage() {
	echo "usage: $prog VERSION ARCH INITRAMFS [TIMEOUT_S]" >&2
	echo "  VERSION ARCH: a kernel of tests/vm/infra/kernels.tsv (e.g. 6.12 amd64)   TIMEOUT_S: default 300" >&2
	exit 2
}

[ $# -ge 3 ] && [ $# -le 4 ] || usage
version=$1 arch=$2 initramfs=$3 timeout_s=${4:-300}
[[ $version =~ ^[0-9]+\.[0-9]+$ ]] || { echo "$prog: bad VERSION '$version'" >&2; usage; }
[[ $timeout_s =~ ^[0-9]+$ ]] && [ "$timeout_s" -gt 0 ] ||
	{ echo "$prog: bad TIMEOUT_S '$timeout_s'" >&2; usage; }

mem=${PTSCOPE_VM_MEM:-4G}
smp=${PTSCOPE_VM_SMP:-2}
accel=${PTSCOPE_VM_ACCEL:-auto}
# icount is a TCG feature: auto means TCG then
[ -n "${PTSCOPE_VM_ICOUNT:-}" ] && [ "$accel" = auto ] && accel=tcg

# auto is TCG.  KVM under nested virtualisation has failed three ways on
# the machines we build on: q35 aborting as the vCPUs' MSRs are set
# (QEMU 7.2: "failed to set MSR 0x10a"), a guest that starts and then
# stops in the kernel's decompressor ("KVM internal error. Suberror: 1,
# emulation failure" on a BMI2 instruction), and a PVH boot that works
# but runs slower than TCG.  No probe can tell the second from a working
# KVM before the boot, so KVM is only used when asked for.
if [ "$accel" = auto ]; then
	accel=tcg
	[ -e /dev/kvm ] && note "TCG, not KVM: nested KVM fails or is slower here (PTSCOPE_VM_ACCEL=kvm to try it)"
fi
case $arch in
amd64)
	qemu=qemu-system-x86_64 qpkg=qemu-system-x86 console=ttyS0
	cpu=max
	# TCG: hide CMPXCHG16B.  With QEMU 7.2 (Debian 12) Debian's
	# 6.12.95+deb12 kernel crashed in ~30% of boots right after the
	# "cmpxchg16b %gs:(...)" in kmem_cache_alloc (corrupted EFLAGS, double
	# fault); without cx16 the kernel takes its generic path and boots
	# reliably.  Override with PTSCOPE_VM_CPU.
	# 7.x needs CMPXCHG16B: BPF task storage allocates with
	# kmalloc_nolock() since f484f4a3e058 (6.19), which fails on every
	# call without it (mm/slub.c: no __CMPXCHG_DOUBLE), so ptscope's
	# per-thread state could never be created (every event a drop).
	# Debian's 7.3.4 cloud kernel booted with it in each of our runs.
	[ "$accel" = tcg ] && case $version in 6.*) cpu=max,-cx16 ;; esac
	# TCG: one host thread for all vCPUs.  x86 patches live kernel text
	# (text_poke_bp(): int3, then the tail, then the first byte) while the
	# other vCPUs run; under multi-threaded TCG on QEMU 7.2 a vCPU now and
	# then executed a half-written 5-byte call ("Oops: int3" at
	# __pte_offset_map_lock+0x5 as ptscope attached, once in
	# sched_clock_cpu before userspace).  With thread=single every vCPU
	# runs on one thread and sees each modification whole.
	tcg_thread=${PTSCOPE_VM_TCG_THREAD:-single}
	machine=(-M q35 -cpu "${PTSCOPE_VM_CPU:-$cpu}")
	;;
arm64 | arm64-16k)
	qemu=qemu-system-aarch64 qpkg=qemu-system-arm console=ttyAMA0
	# pauth-impdef: QEMU's architected pointer-auth algorithm is very slow
	# under TCG; the implementation-defined one behaves the same for us.
	cpu=max
	[ "$accel" = tcg ] && cpu=max,pauth-impdef=on
	tcg_thread=${PTSCOPE_VM_TCG_THREAD:-multi}
	machine=(-M virt -cpu "${PTSCOPE_VM_CPU:-$cpu}")
	;;
*) echo "$prog: unknown ARCH '$arch' (want amd64, arm64 or arm64-16k)" >&2; usage ;;
esac
case $accel in tcg | kvm) ;; *) die "PTSCOPE_VM_ACCEL must be tcg, kvm or auto (got '$accel')" ;; esac
case $tcg_thread in single | multi) ;; *) die "PTSCOPE_VM_TCG_THREAD must be single or multi (got '$tcg_thread')" ;; esac
[ -z "${PTSCOPE_VM_ACCEL_FILE:-}" ] || echo "$accel" >"$PTSCOPE_VM_ACCEL_FILE"
icount=()
if [ -n "${PTSCOPE_VM_ICOUNT:-}" ]; then
	[[ $PTSCOPE_VM_ICOUNT =~ ^[0-9]+$ ]] || die "PTSCOPE_VM_ICOUNT must be a number (got '$PTSCOPE_VM_ICOUNT')"
	[ "$accel" = tcg ] || die "PTSCOPE_VM_ICOUNT needs TCG (PTSCOPE_VM_ACCEL=tcg)"
	icount=(-icount "shift=$PTSCOPE_VM_ICOUNT,sleep=off")
	tcg_thread=single
fi
accel_opt=$accel
[ "$accel" = tcg ] && accel_opt=tcg,thread=$tcg_thread
[ -f "$initramfs" ] || die "initramfs '$initramfs' not found (build it with mkinitramfs.sh)"
# Catch an initramfs built for the other ARCH (its init would just fail).
case $arch in amd64) want_machine=62 ;; arm64*) want_machine=183 ;; esac
bb_machine=$({ gzip -dc "$initramfs" | cpio -i --quiet --to-stdout bin/busybox |
	od -An -t u2 -j 18 -N 2 | tr -d ' \n'; } 2>/dev/null || true)
if [ -n "$bb_machine" ] && [ "$bb_machine" != "$want_machine" ]; then
	die "initramfs '$initramfs' was not built for $arch (its busybox has ELF machine $bb_machine)"
fi
command -v "$qemu" >/dev/null || die "$qemu not found (apt-get install $qpkg)"

# ---------------------------------------------------------------- kernel
if [ -n "${PTSCOPE_VM_KERNEL_DIR:-}" ]; then
	kdir=$PTSCOPE_VM_KERNEL_DIR
	[ -f "$kdir/vmlinuz" ] && [ -f "$kdir/release" ] ||
		die "PTSCOPE_VM_KERNEL_DIR '$kdir' has no vmlinuz and release (build one with kernel/build)"
else
	fetch=${PTSCOPE_FETCH_KERNEL:-$here/fetch-kernel.sh}
	[ -x "$fetch" ] || die "kernel fetcher '$fetch' not found or not executable"
	fetch_out=$("$fetch" "$version" "$arch") || die "'$fetch $version $arch' failed"
	kdir=$(printf '%s\n' "$fetch_out" | tail -n 1)
	printf '%s\n' "$fetch_out" | sed '$d' >&2
	[ -f "$kdir/vmlinuz" ] || die "fetcher printed '$kdir', which has no vmlinuz"
fi
release=$(cat "$kdir/release" 2>/dev/null || echo unknown)

# ---------------------------------------------------------------- boot
if [ -n "${PTSCOPE_VM_LOG:-}" ]; then
	log=$PTSCOPE_VM_LOG
	mkdir -p "$(dirname "$log")"
	: >"$log"
else
	log=$(mktemp "${TMPDIR:-/tmp}/ptscope-vm-$version-$arch.XXXXXX.log")
fi
qerr=$(mktemp "${TMPDIR:-/tmp}/ptscope-qemu.XXXXXX.err")

monitor=none
[ -n "${PTSCOPE_VM_MONITOR:-}" ] && monitor="unix:${PTSCOPE_VM_MONITOR//,/,,},server,nowait"
cmdline="console=$console panic=-1 rdinit=/init${PTSCOPE_VM_APPEND:+ $PTSCOPE_VM_APPEND}"
qemu_args=(
	"${machine[@]}" -accel "$accel_opt" "${icount[@]}" -m "$mem" -smp "$smp"
	-nodefaults -no-user-config -display none -no-reboot
	-monitor "$monitor"
	-chardev "file,id=con,path=${log//,/,,}" -serial chardev:con
	-kernel "$kdir/vmlinuz" -initrd "$initramfs" -append "$cmdline"
)

qpid='' tpid=''
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null && wait "$qpid" 2>/dev/null
	rm -f "$qerr"
	return 0
}
trap cleanup EXIT
trap 'note "interrupted"; exit 1' INT TERM

note "booting $release ($version-$arch, $accel_opt, timeout ${timeout_s}s); console log: $log"
start=$EPOCHREALTIME
"$qemu" "${qemu_args[@]}" </dev/null >"$qerr" 2>&1 &
qpid=$!
if [ "${PTSCOPE_VM_VERBOSE:-0}" = 1 ]; then
	tail -n +1 -f --pid="$qpid" "$log" >&2 &
	tpid=$!
fi

elapsed() { echo "$EPOCHREALTIME $start" | awk '{ printf "%.1f", $1 - $2 }'; }
t_begin='' t_end='' timed_out=0
deadline=$((${start%.*} + timeout_s))
while kill -0 "$qpid" 2>/dev/null; do
	if [ -z "$t_begin" ] && grep -aq 'PTSCOPE-VM-BEGIN' "$log"; then
		t_begin=$(elapsed)
	fi
	if grep -aq 'PTSCOPE-VM-EXIT rc=' "$log"; then
		t_end=$(elapsed)
		# reboot -f follows immediately; give qemu a moment to exit.
		for _ in $(seq 50); do kill -0 "$qpid" 2>/dev/null || break; sleep 0.1; done
		break
	fi
	if grep -q 'KVM internal error' "$qerr"; then
		break   # qemu stops the guest but does not exit
	fi
	if [ "${EPOCHREALTIME%.*}" -ge "$deadline" ]; then
		timed_out=1
		break
	fi
	sleep 0.2
done
qrc=0
if kill -0 "$qpid" 2>/dev/null; then
	kill "$qpid" 2>/dev/null || true
	wait "$qpid" 2>/dev/null || true
else
	wait "$qpid" || qrc=$?
fi
qpid=
[ -n "$tpid" ] && { sleep 0.3; kill "$tpid" 2>/dev/null || true; wait "$tpid" 2>/dev/null || true; tpid=; }
total=$(elapsed)
[ -z "$t_end" ] && grep -aq 'PTSCOPE-VM-EXIT rc=' "$log" && t_end=$total

marker=$(grep -ao 'PTSCOPE-VM-EXIT rc=[0-9]*' "$log" | tail -n 1 || true)
if [ -z "$marker" ]; then
	if [ "$timed_out" = 1 ]; then
		echo "$prog: error: $version-$arch did not reach the end marker within ${timeout_s}s" >&2
	else
		echo "$prog: error: qemu exited (status $qrc) after ${total}s before the end marker (kernel panic? bad initramfs?)" >&2
	fi
	panic=$(tr -d '\r' <"$log" | grep -a -m 1 'Kernel panic - not syncing' || true)
	[ -n "$panic" ] && echo "$prog: guest: $panic" >&2
	[ -s "$qerr" ] && { echo "--- qemu stderr:" >&2; cat "$qerr" >&2; }
	echo "--- last 40 console lines ($log):" >&2
	tail -n 40 "$log" | tr -d '\r' >&2
	exit 1
fi
rc=${marker##*rc=}

# Scenario output: everything after the BEGIN line up to the EXIT marker.
tr -d '\r' <"$log" | LC_ALL=C awk '
	!begun { if (index($0, "PTSCOPE-VM-BEGIN")) begun = 1; next }
	{
		i = index($0, "PTSCOPE-VM-EXIT rc=")
		if (i) { if (i > 1) print substr($0, 1, i - 1); exit }
		print
	}'

note "$version-$arch: scenario started at ${t_begin:-?}s, ended at ${t_end:-?}s, total ${total}s wall; rc=$rc; console log: $log"
exit "$rc"
