#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-microhttpd.sh ARCH PREFIX: a static libmicrohttpd without TLS for
# the static ptscope binaries of the qemu matrix, built from Debian 12's
# source package (Debian's own patches applied by dpkg-source).
#
# Why not Debian's libmicrohttpd.a: it is built with GnuTLS, and a static
# GnuTLS needs p11-kit, of which Debian ships no static library.  The
# exporter serves plain HTTP only, so TLS is left out here.
#
# ARCH is x86 or arm64; the result is PREFIX/lib/libmicrohttpd.a and
# PREFIX/include/microhttpd.h.  PTSCOPE_DEBIAN_MIRROR overrides the mirror.
set -euo pipefail

VERSION=0.9.75-6
# the .dsc lists the checksums of the tarballs; dpkg-source checks those
DSC_SHA256=c0f8a9cd77c41285d2d48fc68bbee2e460a55042fcd5d3f6b9946c017d4b6846
MIRROR=${PTSCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
POOL=$MIRROR/pool/main/libm/libmicrohttpd

die() {
	echo "build-microhttpd: $*" >&2
	exit 1
}

[ $# -eq 2 ] || { echo "usage: $0 x86|arm64 PREFIX" >&2; exit 2; }
arch=$1
prefix=$(realpath -m "$2")
case "$arch" in
x86) host=x86_64-linux-gnu ;;
arm64) host=aarch64-linux-gnu ;;
*) echo "build-microhttpd: unknown arch '$arch' (x86 or arm64)" >&2; exit 2 ;;
esac
for tool in curl dpkg-source sha256sum make "$host-gcc"; do
	command -v "$tool" >/dev/null ||
		die "'$tool' not found; run 'make deps-static' as root"
done

work=$(dirname "$prefix")/microhttpd-src
src=$work/libmicrohttpd-${VERSION%-*}
dsc=$work/libmicrohttpd_$VERSION.dsc
mkdir -p "$work"

fetch() {	# fetch FILE: from the Debian pool into $work, once
	[ -s "$work/$1" ] && return 0
	curl -fsSL --retry 3 -o "$work/$1.part" "$POOL/$1" ||
		die "downloading $POOL/$1 failed (network or mirror; set PTSCOPE_DEBIAN_MIRROR)"
	mv "$work/$1.part" "$work/$1"
}

if [ ! -d "$src" ]; then
	fetch "libmicrohttpd_$VERSION.dsc"
	echo "$DSC_SHA256  $dsc" | sha256sum -c --quiet - ||
		die "$dsc does not match its pinned checksum"
	for f in $(awk '/^Files:/ { on = 1; next } /^[^ ]/ { on = 0 }
			on { print $3 }' "$dsc"); do
		fetch "$f"
	done
	rm -rf "$src.tmp"
	(cd "$work" && dpkg-source -q -x "$dsc" "$src.tmp") ||
		die "dpkg-source -x $dsc failed"
	mv "$src.tmp" "$src"
fi

build=$work/build-$arch
rm -rf "$build" && mkdir -p "$build"
log=$build/build.log
echo "build-microhttpd: building libmicrohttpd $VERSION for $host (log: $log)"
(
	cd "$build"
	"$src/configure" --host="$host" --prefix="$prefix" --disable-https \
		--without-gnutls --disable-shared --enable-static \
		--disable-curl --disable-doc --disable-examples --enable-epoll=yes
	make -j"$(nproc)" -C src/microhttpd
	make -C src/microhttpd install
	make -C src/include install
) >"$log" 2>&1 || die "the build failed; see $log"
[ -s "$prefix/lib/libmicrohttpd.a" ] || die "no $prefix/lib/libmicrohttpd.a; see $log"
