#!/bin/bash
# Boot every test kernel with scenarios/smoke.sh plus a static hello binary
# built for the guest, and check what it printed.
#
#   tests/vm/smoke-test.sh [VERSION-ARCH...]
#     default: every kernel of tests/vm/infra/kernels.tsv
#
# Environment: PTSCOPE_VM_TIMEOUT (default 300), PTSCOPE_KEEP=1 keeps the work
# directory (it is always kept on failure); CC_amd64 / CC_arm64 override the
# compilers (default gcc / aarch64-linux-gnu-gcc).  Everything boot.sh and
# mkinitramfs.sh read (PTSCOPE_CACHE, PTSCOPE_VM_*) is passed through.
# shellcheck disable=SC2317 # cleanup is run from a trap
set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "$prog: error: $*" >&2; exit 1; }
# shellcheck source=infra/kernels.sh
. "$here/infra/kernels.sh"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(kernel_field '*' label)
for t in "${targets[@]}"; do
	kernel_field "$t" label >/dev/null ||
		{ echo "usage: $prog [VERSION-ARCH...]  (of tests/vm/infra/kernels.tsv, e.g. 6.1-amd64 6.12-arm64)" >&2; exit 2; }
done
timeout_s=${PTSCOPE_VM_TIMEOUT:-300}

work=$(mktemp -d "${TMPDIR:-/tmp}/ptscope-smoke.XXXXXX")
failed=0
finish() {
	if [ "$failed" != 0 ] || [ "${PTSCOPE_KEEP:-0}" = 1 ]; then
		echo "$prog: work directory kept: $work" >&2
	else
		rm -rf "$work"
	fi
}
trap finish EXIT

declare -A built=()
build_arch() { # ARCH: static hello + initramfs, once per arch
	local arch=$1 cc
	[ -n "${built[$arch]:-}" ] && return 0
	case $arch in
	amd64) cc=${CC_amd64:-gcc} ;;
	arm64) cc=${CC_arm64:-aarch64-linux-gnu-gcc} ;;
	esac
	command -v "$cc" >/dev/null || die "$cc not found (apt-get install gcc / gcc-aarch64-linux-gnu)"
	"$cc" -static -O2 -Wall -o "$work/hello-static.$arch" "$here/infra/hello.c" ||
		die "building hello.c with $cc -static failed (needs libc6-dev / libc6-dev-arm64-cross)"
	"$here/infra/mkinitramfs.sh" "$work/smoke-$arch.cpio.gz" "$arch" "$here/scenarios/smoke.sh" \
		"$work/hello-static.$arch:/bin/hello-static"
	built[$arch]=1
}

expect() { # FILE REGEX WHAT
	if ! grep -Eq -- "$2" "$1"; then
		echo "$prog: FAIL $cur: $3 (no line matching '$2')" >&2
		return 1
	fi
}

summary=()
for t in "${targets[@]}"; do
	version=$(kernel_field "$t" version) arch=$(kernel_field "$t" arch) cur=$t
	guest=$(kernel_field "$t" deb_arch)	# the initramfs binaries' arch
	build_arch "$guest"
	out=$work/$t.out err=$work/$t.err
	echo "$prog: === $t" >&2
	start=$EPOCHREALTIME
	rc=0
	PTSCOPE_VM_LOG=$work/$t.console.log PTSCOPE_VM_APPEND="${PTSCOPE_VM_APPEND:+$PTSCOPE_VM_APPEND }ptscope.smoke=1" \
		"$here/infra/boot.sh" "$version" "$arch" "$work/smoke-$guest.cpio.gz" "$timeout_s" >"$out" 2>"$err" || rc=$?
	wall=$(echo "$EPOCHREALTIME $start" | awk '{ printf "%.1f", $1 - $2 }')
	cat "$err" >&2
	sed 's/^/    /' "$out" >&2
	ok=1
	[ "$rc" = 0 ] || { echo "$prog: FAIL $t: boot.sh exited $rc" >&2; ok=0; }
	case $guest in amd64) m=x86_64 ;; arm64) m=aarch64 ;; esac
	expect "$out" "^uname-r: ${version//./\\.}\.[0-9].*-$arch\$" "kernel release" || ok=0
	expect "$out" "^uname-m: $m\$" "machine" || ok=0
	expect "$out" '^kallsyms-lines: [0-9]{5,}$' "kallsyms" || ok=0
	expect "$out" '^btf: /sys/kernel/btf/vmlinux$' "BTF" || ok=0
	expect "$out" '^thp: .*\[(always|madvise|never)\]' "THP setting" || ok=0
	expect "$out" '^cmdline: .*ptscope\.smoke=1' "PTSCOPE_VM_APPEND passed through" || ok=0
	for fs in 'tracing tracefs' 'debug debugfs' 'bpf bpf' 'cgroup cgroup2'; do
		expect "$out" "^mount: /sys/[a-z]+/${fs% *} ${fs#* }\$" "${fs#* } mounted" || ok=0
	done
	expect "$out" "^hello-static: machine=$m release=.* argc=3\$" "static $arch binary ran" || ok=0
	boot=$(sed -n 's/.*scenario started at \([0-9.?]*\)s.*/\1/p' "$err")
	if [ "$ok" = 1 ]; then
		summary+=("PASS $t  boot-to-scenario ${boot:-?}s  total ${wall}s")
	else
		failed=1
		summary+=("FAIL $t  (console log: $work/$t.console.log)")
	fi
done

echo "$prog: summary:" >&2
printf '  %s\n' "${summary[@]}" >&2
exit "$failed"
