#!/bin/bash
# Build a gzip'd newc initramfs that boots straight into a test scenario.
#
#   tests/vm/infra/mkinitramfs.sh OUT.cpio.gz ARCH SCENARIO.sh [FILE...]
#
# ARCH is amd64 or arm64.  The archive contains a static busybox for ARCH,
# an /init (see init_script below) and SCENARIO.sh as /scenario.sh.
#
# FILE arguments (static binaries, helper scripts, data):
#   path/to/foo          -> /bin/foo
#   path/to/foo:/dst     -> /dst            (absolute guest path)
#   path/to/foo:/dir/    -> /dir/foo        (trailing slash: keep basename)
#   path/to/dir:/dst     -> directory copied recursively to /dst
# The split is on the last ':'.  ELF files are checked: they must be for ARCH
# and statically linked (there is no libc in the initramfs).
#
# Environment:
#   PTSCOPE_CACHE    cache root (default /var/cache/ptscope); the arm64
#                    busybox is kept in $PTSCOPE_CACHE/busybox/arm64/.
#   PTSCOPE_BUSYBOX  use this static busybox instead of the default one.
set -euo pipefail

prog=${0##*/}
die() { echo "$prog: error: $*" >&2; exit 1; }
note() { echo "$prog: $*" >&2; }
usage() {
	cat >&2 <<-EOF
	usage: $prog OUT.cpio.gz ARCH SCENARIO.sh [FILE...]
	  ARCH: amd64 | arm64
	  FILE: SRC (-> /bin/NAME) | SRC:/GUEST/PATH | SRC:/GUEST/DIR/
	EOF
	exit 2
}

[ $# -ge 3 ] || usage
out=$1 arch=$2 scenario=$3
shift 3
case $arch in
amd64) elf_machine=62 ;;   # EM_X86_64
arm64) elf_machine=183 ;;  # EM_AARCH64
*) echo "$prog: unknown ARCH '$arch' (want amd64 or arm64)" >&2; usage ;;
esac
[ -f "$scenario" ] || die "scenario '$scenario' not found"
case $out in
*.cpio.gz) ;;
*) note "warning: output '$out' does not end in .cpio.gz (it is gzip'd newc anyway)" ;;
esac

cache=${PTSCOPE_CACHE:-/var/cache/ptscope}

for tool in cpio gzip readelf od; do
	command -v "$tool" >/dev/null || die "'$tool' not found (packages: cpio gzip binutils coreutils)"
done

# is_elf FILE: true if FILE starts with the ELF magic.
is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' \n')" = '177ELF' ]; }

# check_elf FILE WHAT: must be an ELF for ARCH without a program interpreter.
check_elf() {
	local f=$1 what=$2 m
	m=$(od -An -t u2 -j 18 -N 2 "$f" | tr -d ' ')
	[ "$m" = "$elf_machine" ] ||
		die "$what '$f' is not an $arch ELF (e_machine=$m, want $elf_machine)"
	if readelf -lW "$f" 2>/dev/null | grep -q 'Requesting program interpreter'; then
		die "$what '$f' is dynamically linked; only static binaries work in the initramfs (build with -static)"
	fi
}

# ---------------------------------------------------------------- busybox
arm64_busybox() {
	local dir=$cache/busybox/arm64 tmp
	if [ -x "$dir/busybox" ]; then
		echo "$dir/busybox"
		return
	fi
	command -v apt-get >/dev/null || die "apt-get not found; set PTSCOPE_BUSYBOX to a static arm64 busybox"
	if ! { dpkg --print-architecture; dpkg --print-foreign-architectures; } | grep -qx arm64; then
		[ "$(id -u)" = 0 ] ||
			die "dpkg does not know arm64; run as root: dpkg --add-architecture arm64 && apt-get update"
		note "adding dpkg architecture arm64 (dpkg --add-architecture arm64 && apt-get update)"
		dpkg --add-architecture arm64
		apt-get update -qq >&2 || die "apt-get update failed"
	fi
	mkdir -p "$dir" || die "cannot create $dir (set PTSCOPE_CACHE to a writable directory)"
	tmp=$(mktemp -d "$dir/.dl.XXXXXX")
	# apt drops privileges to _apt for downloads; let it write here.
	if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$tmp"; fi
	note "downloading busybox-static:arm64 into $dir (not installing it)"
	if ! (cd "$tmp" && apt-get download -q busybox-static:arm64 >&2); then
		rm -rf "$tmp"
		die "apt-get download busybox-static:arm64 failed (try: apt-get update)"
	fi
	dpkg -x "$tmp"/busybox-static_*_arm64.deb "$tmp/root" || { rm -rf "$tmp"; die "dpkg -x failed"; }
	[ -f "$tmp/root/bin/busybox" ] || { rm -rf "$tmp"; die "busybox-static:arm64 has no /bin/busybox"; }
	mv "$tmp/root/bin/busybox" "$tmp/busybox"
	mv -f "$tmp/busybox" "$dir/busybox"   # atomic for concurrent callers
	rm -rf "$tmp"
	echo "$dir/busybox"
}

if [ -n "${PTSCOPE_BUSYBOX:-}" ]; then
	busybox=$PTSCOPE_BUSYBOX
elif [ "$arch" = amd64 ]; then
	busybox=/bin/busybox
	[ -f "$busybox" ] || die "$busybox not found (apt-get install busybox-static)"
else
	busybox=$(arm64_busybox)
fi
[ -f "$busybox" ] || die "busybox '$busybox' not found"
is_elf "$busybox" || die "busybox '$busybox' is not an ELF binary"
check_elf "$busybox" busybox

# ---------------------------------------------------------------- staging
stage=$(mktemp -d "${TMPDIR:-/tmp}/ptscope-initramfs.XXXXXX")
tmp_out=
trap 'rm -rf "$stage" ${tmp_out:+"$tmp_out"}' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,root,etc,mnt}
chmod 1777 "$stage/tmp"
cp "$busybox" "$stage/bin/busybox"
chmod 0755 "$stage/bin/busybox"
# /bin/sh must exist before /init runs "busybox --install".
ln -s busybox "$stage/bin/sh"
cp "$scenario" "$stage/scenario.sh"
chmod 0755 "$stage/scenario.sh"
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"

cat >"$stage/init" <<'INIT'
#!/bin/sh
# ptscope test VM init (generated by tests/vm/infra/mkinitramfs.sh).
/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TERM=dumb
umask 022

# (Debian's busybox-static has no "mountpoint" applet.)
is_mounted() { [ -r /proc/mounts ] && grep -q "^[^ ]* $1 " /proc/mounts; }
try_mount() { # TYPE DIR [OPTS]
	mkdir -p "$2" 2>/dev/null
	is_mounted "$2" && return 0
	mount -t "$1" ${3:+-o "$3"} "$1" "$2" ||
		echo "ptscope-init: warning: mount -t $1 $2 failed"
}

try_mount proc /proc
try_mount sysfs /sys
try_mount devtmpfs /dev
# From here on all output goes to the console, whatever the kernel gave us.
exec </dev/console >/dev/console 2>&1
try_mount devpts /dev/pts
try_mount tmpfs /dev/shm mode=1777
try_mount tmpfs /run mode=0755
try_mount tmpfs /tmp mode=1777
try_mount tracefs /sys/kernel/tracing
try_mount debugfs /sys/kernel/debug
try_mount bpf /sys/fs/bpf
try_mount cgroup2 /sys/fs/cgroup
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
ip link set lo up 2>/dev/null
hostname ptscope-vm

# Console log level while the scenario runs (kernel cmdline
# ptscope.loglevel=N, default 1).  Keeps printk from interleaving with the
# scenario's output; oopses/panics still reach the console (they raise the
# level themselves) and "dmesg" shows everything.
loglevel=1
for arg in $(cat /proc/cmdline); do
	case $arg in
	ptscope.loglevel=*) loglevel=${arg#*=} ;;
	esac
done
echo "$loglevel" >/proc/sys/kernel/printk

cd /tmp || cd /
echo "PTSCOPE-VM-BEGIN"
/bin/sh /scenario.sh </dev/null
rc=$?
echo "PTSCOPE-VM-EXIT rc=$rc"
sync
reboot -f
# Not reached; if it were, init exiting makes the kernel panic (panic=-1
# then resets the VM and qemu -no-reboot exits).
sleep 5
INIT
chmod 0755 "$stage/init"

# ---------------------------------------------------------------- FILEs
for spec in "$@"; do
	src=$spec dst=
	case $spec in
	*:*) src=${spec%:*} dst=${spec##*:} ;;
	esac
	[ -e "$src" ] || die "FILE '$src' not found (from argument '$spec')"
	if [ -z "$dst" ]; then
		[ -d "$src" ] && die "directory '$src' needs an explicit destination: '$src:/guest/path'"
		dst=/bin/${src##*/}
	fi
	case $dst in
	/*) ;;
	*) die "destination '$dst' in '$spec' must be an absolute guest path" ;;
	esac
	case $dst in */) dst=$dst${src##*/} ;; esac
	case $dst in
	/init | /scenario.sh | /bin/busybox | /bin/sh) die "'$spec' would overwrite $dst" ;;
	*/../* | */..) die "destination '$dst' must not contain '..'" ;;
	esac
	if [ -d "$src" ]; then
		mkdir -p "$stage$dst"
		cp -a "$src/." "$stage$dst/"
		while IFS= read -r -d '' f; do
			if is_elf "$f"; then check_elf "$f" FILE; fi
		done < <(find "$src" -type f -print0)
	else
		if is_elf "$src"; then check_elf "$src" FILE; fi
		mkdir -p "$stage$(dirname "$dst")"
		cp -L "$src" "$stage$dst"
		chmod u+rw,go+r "$stage$dst"
		if [ -x "$src" ] || is_elf "$src" || [ "$(head -c 2 "$src")" = '#!' ]; then
			chmod 0755 "$stage$dst"
		fi
	fi
done

# ---------------------------------------------------------------- archive
mkdir -p "$(dirname "$out")"
tmp_out=$(mktemp "$out.XXXXXX")
(
	cd "$stage"
	find . -mindepth 1 -print0 | LC_ALL=C sort -z |
		cpio --null --create --format=newc --owner=0:0 --reproducible --quiet
) | gzip -9 -n >"$tmp_out"
mv -f "$tmp_out" "$out"
tmp_out=
note "wrote $out ($(du -k "$out" | cut -f1) KiB, $arch)"
