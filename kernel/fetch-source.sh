#!/bin/bash
# Fetch (and cache) Debian's linux-source-7.3, pinned, from trixie-backports
# through a private apt configuration (kernel/bpo-apt.sh); nothing is
# installed and the machine's apt sources are not touched.
#
#   kernel/fetch-source.sh
#
# stdout: the path of the source tarball,
#   ${PTSCOPE_CACHE:-/var/cache/ptscope}/src/linux-source-7.3.tar.xz
# (with "version" beside it: the package version).  exit: 0 ok, 1 failure.
set -euo pipefail

prog=kernel/fetch-source.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "$prog: error: $*" >&2; exit 1; }
[ $# -eq 0 ] || { echo "usage: $prog" >&2; exit 2; }

SRC_PACKAGE=linux-source-7.3
SRC_VERSION=7.3.4-1~bpo13+1
SRC_SHA256=703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3

CACHE_ROOT=${PTSCOPE_CACHE:-/var/cache/ptscope}
dir=$CACHE_ROOT/src
tarball=$dir/$SRC_PACKAGE.tar.xz
# shellcheck source=bpo-apt.sh
. "$here/bpo-apt.sh"

if [ -s "$tarball" ] && [ "$(cat "$dir/version" 2>/dev/null)" = "$SRC_VERSION" ]; then
	echo "$tarball"
	exit 0
fi
mkdir -p "$dir" || die "cannot create $dir"
bpo_update || die "apt-get update of trixie-backports failed (network? mirror: set PTSCOPE_DEBIAN_MIRROR)"
work=$(mktemp -d "$dir/.tmp.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
id _apt >/dev/null 2>&1 && chown _apt "$work" 2>/dev/null
(cd "$work" && bpo_apt download "$SRC_PACKAGE=$SRC_VERSION" >&2) ||
	die "apt-get download of $SRC_PACKAGE=$SRC_VERSION failed; the pinned version may have left trixie-backports"
debs=("$work/${SRC_PACKAGE}_"*_all.deb)
[ -f "${debs[0]}" ] || die "apt-get download left no $SRC_PACKAGE .deb in $work"
echo "$SRC_SHA256  ${debs[0]}" | sha256sum -c --quiet - >&2 ||
	die "${debs[0]##*/}: SHA-256 differs from the pinned $SRC_SHA256"
dpkg-deb --fsys-tarfile "${debs[0]}" |
	tar -xf - -C "$work" "./usr/src/$SRC_PACKAGE.tar.xz" ||
	die "extracting $SRC_PACKAGE.tar.xz from ${debs[0]##*/} failed"
mv "$work/usr/src/$SRC_PACKAGE.tar.xz" "$tarball"
echo "$SRC_VERSION" >"$dir/version"
echo "$tarball"
