#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# extract-rmath.sh ARCH DIR: R's standalone math library (Debian's
# r-mathlib: Rmath.h and libRmath.a) for ARCH (x86 or arm64) unpacked
# into DIR/usr, for the static ptscope binaries.  r-mathlib installs into
# /usr/lib, not a multiarch directory, so its arm64 build cannot be
# installed beside the native one: the package is downloaded and unpacked
# instead (apt-get download checks it against the archive's signatures).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 x86|arm64 DIR" >&2; exit 2; }
case "$1" in
x86) arch=amd64 ;;
arm64) arch=arm64 ;;
*) echo "extract-rmath: unknown architecture $1" >&2; exit 2 ;;
esac
dir=$(realpath -m "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && apt-get download -qq "r-mathlib:$arch" >/dev/null); then
	apt-get update -qq
	(cd "$tmp" && apt-get download -qq "r-mathlib:$arch" >/dev/null)
fi
rm -rf "$dir"
mkdir -p "$dir"
dpkg-deb -x "$tmp"/r-mathlib_*.deb "$dir"
[ -f "$dir/usr/lib/libRmath.a" ] && [ -f "$dir/usr/include/Rmath.h" ] || {
	echo "extract-rmath: r-mathlib:$arch has no libRmath.a and Rmath.h" >&2
	exit 1
}
