#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh BINARY VERSION OUTDIR: ptscope's OCI image (deploy/image/
# Containerfile) from the static BINARY, with buildah and no network.
# Writes OUTDIR/ptscope-VERSION-ARCH.oci.tar (an OCI archive, named ptscope:VERSION)
# and OUTDIR/ptscope-VERSION-ARCH.digest (its manifest's sha256 digest).
# Timestamps are pinned (--timestamp 0), so the same inputs give the same
# digest.  buildah's own storage keeps nothing: the image is removed once
# it is written out.
set -euo pipefail

die() {
	echo "build-image: $*" >&2
	exit 1
}

[ $# -eq 3 ] || { echo "usage: $0 BINARY VERSION OUTDIR" >&2; exit 2; }
bin=$1 version=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
for tool in buildah skopeo; do
	command -v "$tool" >/dev/null ||
		die "'$tool' not found; run 'make deps-image' as root"
done
[ -x "$bin" ] || die "no binary $bin"
# a binary that needs a loader or libraries does not run on an empty base
if readelf -l "$bin" | grep -q 'program interpreter'; then
	die "$bin is dynamically linked: the image needs the static one"
fi
arch=$(dpkg --print-architecture)
name=ptscope-$version-$arch
mkdir -p "$out"
ctx=$(mktemp -d "$out/context.XXXXXX")
ref=localhost/ptscope-build-$$:$version
cleanup() {
	rm -rf "$ctx"
	buildah rmi "$ref" >/dev/null 2>&1 || true
}
trap cleanup EXIT

# the files the .deb puts under /usr/share/ptscope and its copyright
install -m 0755 "$bin" "$ctx/ptscope"
install -d "$ctx/share"
install -m 0644 "$top"/dashboards/*.json "$top"/dashboards/*.yml "$ctx/share/"
install -m 0644 "$top/debian/copyright" "$ctx/copyright"

buildah bud --quiet --format oci --timestamp 0 --arch "$arch" \
	--build-arg "VERSION=$version" -f "$here/Containerfile" -t "$ref" \
	"$ctx" >/dev/null
rm -f "$out/$name.oci.tar"
buildah push --quiet "$ref" "oci-archive:$out/$name.oci.tar:ptscope:$version" >/dev/null
skopeo inspect --format '{{.Digest}}' "oci-archive:$out/$name.oci.tar" \
	>"$out/$name.digest"
echo "$out/$name.oci.tar $(cat "$out/$name.digest")"
