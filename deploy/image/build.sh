#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh VERSION OUTDIR AMD64_BINARY ARM64_BINARY: ptscope's OCI image
# (deploy/image/Containerfile) for amd64 and arm64, from the two static
# binaries, with buildah and no network.  Writes
#   OUTDIR/ptscope-VERSION.oci.tar  an OCI archive whose index.json names
#                                   (ptscope:VERSION) one image index of
#                                   the linux/amd64 and linux/arm64 images
#   OUTDIR/ptscope-VERSION.digest   that image index's sha256 digest, the
#                                   one a registry shows after a push
# The Containerfile only copies files (no RUN), so the arm64 image needs
# no emulator.  Timestamps are pinned (--timestamp 0) and the index is
# written by hand in a fixed order, so the same inputs give the same
# digest.  buildah's own storage keeps nothing: the images are removed
# once written out.
set -euo pipefail

die() {
	echo "build-image: $*" >&2
	exit 1
}

[ $# -eq 4 ] || { echo "usage: $0 VERSION OUTDIR AMD64_BINARY ARM64_BINARY" >&2; exit 2; }
version=$1 out=$2
declare -A bins=([amd64]=$3 [arm64]=$4)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
for tool in buildah skopeo python3; do
	command -v "$tool" >/dev/null ||
		die "'$tool' not found; run 'make deps-image' as root"
done
for arch in amd64 arm64; do
	bin=${bins[$arch]}
	[ -x "$bin" ] || die "no $arch binary $bin: run 'make static'"
	# a binary that needs a loader or libraries does not run on an empty base
	if readelf -l "$bin" | grep -q 'program interpreter'; then
		die "$bin is dynamically linked: the image needs the static one"
	fi
done
name=ptscope-$version
mkdir -p "$out"
work=$(mktemp -d "$out/work.XXXXXX")
refs=()
cleanup() {
	rm -rf "$work"
	for r in "${refs[@]}"; do
		buildah rmi "$r" >/dev/null 2>&1 || true
	done
}
trap cleanup EXIT

# one image per architecture, pushed into one OCI layout: they share its
# blobs directory, and its index.json gets one entry each
for arch in amd64 arm64; do
	ctx=$work/context-$arch
	ref=localhost/ptscope-build-$$-$arch:$version
	refs+=("$ref")
	# the files the .deb puts under /usr/share/ptscope and its copyright
	install -D -m 0755 "${bins[$arch]}" "$ctx/ptscope"
	install -d "$ctx/share"
	install -m 0644 "$top"/dashboards/*.json "$top"/dashboards/*.yml "$ctx/share/"
	install -m 0644 "$top/debian/copyright" "$ctx/copyright"
	buildah bud --quiet --format oci --timestamp 0 --os linux --arch "$arch" \
		--build-arg "VERSION=$version" -f "$here/Containerfile" -t "$ref" \
		"$ctx" >/dev/null
	buildah push --quiet "$ref" "oci:$work/layout:$arch" >/dev/null
done

# index.json: the two manifests become one image index blob, named
# ptscope:VERSION; then the layout is tarred with fixed owners, modes and
# times, in name order
python3 "$here/index.py" "$work/layout" "ptscope:$version" >"$out/$name.digest"
rm -f "$out/$name.oci.tar"
tar -C "$work/layout" --sort=name --owner=0 --group=0 --numeric-owner \
	--mtime=@0 --mode=u=rwX,go=rX --format=posix \
	--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
	-cf "$out/$name.oci.tar" .
echo "$out/$name.oci.tar $(cat "$out/$name.digest")"
