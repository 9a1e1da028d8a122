#!/usr/bin/env bash
# fetch-kernel.sh VERSION ARCH
#
# Download (and cache) Debian's cloud kernel image package for the given
# kernel series and architecture, then extract the kernel image from it.
#
#   VERSION: 6.1 | 6.12 | 7.3
#   ARCH:    amd64 | arm64 | arm64-16k (7.3 only: 16 KiB pages)
#
# 6.1 and 6.12 come from the machine's own apt sources (bookworm,
# bookworm-security), newest first.  7.3 comes from trixie-backports
# through a private apt configuration under the cache (its own sources
# list, lists and archive directories; the machine's sources are never
# touched), pinned to one version whose .deb SHA-256 sums are below.
#
# The cache directory is ${PTSCOPE_CACHE:-/var/cache/ptscope}/kernels/VERSION-ARCH/
# and ends up containing:
#   vmlinuz   the compressed kernel image (boot/vmlinuz-*)
#   release   the kernel release string (e.g. 6.12.57+deb13-cloud-amd64)
#   config    the kernel config (boot/config-*), for reference
#   package   "<package name> <package version>" the image came from
#
# Only `apt-get download` is used; nothing is installed.  For a foreign
# architecture, the architecture is added to dpkg and the package lists are
# refreshed if no candidate package is known.
#
# The last line printed on stdout is the cache directory.  Progress and
# errors go to stderr.  Set PTSCOPE_REFRESH=1 to ignore an existing cache
# entry and re-resolve the newest package.
set -euo pipefail

die() { echo "fetch-kernel.sh: error: $*" >&2; exit 1; }
log() { echo "fetch-kernel.sh: $*" >&2; }

usage() {
    echo "usage: $0 VERSION ARCH   (VERSION: 6.1|6.12|7.3, ARCH: amd64|arm64|arm64-16k)" >&2
    exit 2
}
[[ $# -eq 2 ]] || usage
VERSION=$1
ARCH=$2

case "$VERSION-$ARCH" in
    6.1-amd64|6.1-arm64|6.12-amd64|6.12-arm64|7.3-amd64|7.3-arm64|7.3-arm64-16k) ;;
    *) echo "$0: unsupported kernel '$VERSION-$ARCH'" >&2; usage ;;
esac
case "$VERSION" in
    6.1)  name_re='^linux-image-6\.1\.0-[0-9]+-cloud-'"$ARCH"'-unsigned$' ;;
    6.12) name_re='^linux-image-6\.12\.[0-9]+\+deb[0-9]+-cloud-'"$ARCH"'-unsigned$' ;;
esac

for tool in apt-get apt-cache dpkg dpkg-deb; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found (a Debian system is required)"
done

CACHE_ROOT=${PTSCOPE_CACHE:-/var/cache/ptscope}
DIR=$CACHE_ROOT/kernels/$VERSION-$ARCH

cache_complete() {
    [[ -s $DIR/vmlinuz && -s $DIR/release && -s $DIR/package ]]
}

# Fast path: nothing to do.
if [[ ${PTSCOPE_REFRESH:-0} != 1 ]] && cache_complete; then
    echo "$DIR"
    exit 0
fi

mkdir -p "$CACHE_ROOT/kernels" || die "cannot create cache directory $CACHE_ROOT/kernels"

# Serialise concurrent runs for the same VERSION-ARCH.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE_ROOT/kernels/.$VERSION-$ARCH.lock"
    flock 9
    # Another run may have filled the cache while we waited.
    if [[ ${PTSCOPE_REFRESH:-0} != 1 ]] && cache_complete; then
        echo "$DIR"
        exit 0
    fi
fi

# ---------------------------------------------------------------- 7.3
# Debian 13 backports, pinned: the kernel image is in linux-binary-*, its
# config in linux-base-* (the linux-image-* packages are meta packages).
BPO_VERSION=7.3.4-1~bpo13+1
BPO_RELEASE=7.3.4+deb13
# flavour, dpkg architecture, SHA-256 of the linux-binary and linux-base .debs
bpo_pin() {
    case $1 in
    amd64) echo "cloud-amd64 amd64" \
        c4fbc8e404958693b28825474c20742d70594d65ca58aea7be6a279c81eb6fa0 \
        e08baa43706ba6e8daff58029b039f46beecfb3b3750c6fa0d6d5ca508a46a43 ;;
    arm64) echo "cloud-arm64 arm64" \
        34dc0e1a6320440cc3f6e34d12ae099041a2e10555061d50ff4e5af602121788 \
        6fa3dd2209af21a9a73da38a82102e223c98804cb4b5128062df1819d5c5239a ;;
    arm64-16k) echo "arm64-16k arm64" \
        40420b132c7ac6628f2e0f81de762a82423cc41b9df596f07fe5f9168a601185 \
        21ceca0e801514d3836bb2e409b907c6415f9a64cd87e4ee7d33f30c0d1a262d ;;
    esac
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../kernel/bpo-apt.sh
. "$here/../../kernel/bpo-apt.sh"

fetch_backports() {
    local flavour deb_arch bin_sha base_sha root f pkg sha debs
    read -r flavour deb_arch bin_sha base_sha <<<"$(bpo_pin "$ARCH")"
    root=$CACHE_ROOT/apt-bpo
    log "updating the private trixie-backports lists in $root"
    bpo_update || die "apt-get update of trixie-backports failed (network? mirror: set PTSCOPE_DEBIAN_MIRROR)"
    work=$(mktemp -d "$CACHE_ROOT/kernels/.tmp.$VERSION-$ARCH.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    chmod 755 "$work"
    id _apt >/dev/null 2>&1 && chown _apt "$work" 2>/dev/null
    (cd "$work" && bpo_apt download \
        "linux-binary-$BPO_RELEASE-$flavour:$deb_arch=$BPO_VERSION" \
        "linux-base-$BPO_RELEASE-$flavour:$deb_arch=$BPO_VERSION" >&2) ||
        die "apt-get download of the $BPO_RELEASE-$flavour kernel ($BPO_VERSION) failed; the pinned version may have left trixie-backports"
    for f in "linux-binary $bin_sha" "linux-base $base_sha"; do
        read -r pkg sha <<<"$f"
        debs=("$work/$pkg-$BPO_RELEASE-${flavour}_"*"_$deb_arch.deb")
        [[ -f ${debs[0]} ]] || die "apt-get download left no $pkg-$BPO_RELEASE-$flavour .deb in $work"
        echo "$sha  ${debs[0]}" | sha256sum -c --quiet - >&2 ||
            die "${debs[0]##*/}: SHA-256 differs from the pinned $sha"
        dpkg -x "${debs[0]}" "$work/root" || die "dpkg -x ${debs[0]##*/} failed"
    done
    local modules=$work/root/usr/lib/modules/$BPO_RELEASE-$flavour
    [[ -s $modules/vmlinuz ]] || die "no vmlinuz in linux-binary-$BPO_RELEASE-$flavour"
    mkdir "$work/out"
    cp "$modules/vmlinuz" "$work/out/vmlinuz"
    cp "$modules/config" "$work/out/config" 2>/dev/null || true
    echo "$BPO_RELEASE-$flavour" >"$work/out/release"
    echo "linux-binary-$BPO_RELEASE-$flavour $BPO_VERSION" >"$work/out/package"
    rm -rf "$DIR"
    mv "$work/out" "$DIR"
    log "cached $BPO_RELEASE-$flavour in $DIR"
    echo "$DIR"
}

if [[ $VERSION == 7.3 ]]; then
    fetch_backports
    exit 0
fi

native_arch=$(dpkg --print-architecture)
if [[ $ARCH == "$native_arch" ]]; then
    pkg_suffix=""
else
    pkg_suffix=":$ARCH"
fi

# Print "<name> <candidate version>" of the newest package matching name_re
# that apt can download, or nothing.
find_package() {
    local names name cand
    # apt-cache search prints "name - description"; names embed the kernel
    # version, so a version sort of the names puts the newest last.
    names=$(apt-cache search --names-only "$name_re" 2>/dev/null \
            | awk '{print $1}' | sort -u -V -r) || true
    for name in $names; do
        cand=$(apt-cache policy "$name$pkg_suffix" 2>/dev/null \
               | awk '/^[[:space:]]*Candidate:/ {print $2; exit}') || true
        if [[ -n $cand && $cand != "(none)" ]]; then
            echo "$name $cand"
            return 0
        fi
    done
    return 0
}

pkg_line=$(find_package)
if [[ -z $pkg_line ]]; then
    if [[ $ARCH != "$native_arch" ]] && ! dpkg --print-foreign-architectures | grep -qx "$ARCH"; then
        log "adding foreign architecture $ARCH to dpkg (for apt-get download only)"
        dpkg --add-architecture "$ARCH" || die "dpkg --add-architecture $ARCH failed (root required)"
    fi
    log "no candidate package found, running apt-get update"
    apt-get update >&2 || die "apt-get update failed"
    pkg_line=$(find_package)
fi
[[ -n $pkg_line ]] || die "no package matching /$name_re/ with a download candidate for $ARCH (check apt sources: bookworm-security carries the 6.12 cloud kernels)"

pkg_name=${pkg_line%% *}
pkg_ver=${pkg_line#* }
log "using $pkg_name $pkg_ver ($ARCH)"

work=$(mktemp -d "$CACHE_ROOT/kernels/.tmp.$VERSION-$ARCH.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Let apt download sandboxed as its unprivileged _apt user when it exists.
if id _apt >/dev/null 2>&1; then
    chown _apt "$work" 2>/dev/null || true
fi
chmod 755 "$work"

(
    cd "$work"
    apt-get download "$pkg_name$pkg_suffix=$pkg_ver" >&2
) || die "apt-get download $pkg_name$pkg_suffix=$pkg_ver failed"

shopt -s nullglob
debs=("$work"/*.deb)
[[ ${#debs[@]} -eq 1 ]] || die "expected exactly one downloaded .deb in $work, found ${#debs[@]}"

mkdir "$work/root" "$work/out"
dpkg -x "${debs[0]}" "$work/root" || die "dpkg -x ${debs[0]} failed"

images=("$work"/root/boot/vmlinuz-*)
[[ ${#images[@]} -eq 1 ]] || die "expected exactly one boot/vmlinuz-* in $pkg_name, found ${#images[@]}"
release=${images[0]##*/vmlinuz-}
[[ -n $release ]] || die "could not derive the kernel release from ${images[0]}"

cp "${images[0]}" "$work/out/vmlinuz"
echo "$release" > "$work/out/release"
echo "$pkg_name $pkg_ver" > "$work/out/package"
configs=("$work"/root/boot/config-*)
if [[ ${#configs[@]} -eq 1 ]]; then
    cp "${configs[0]}" "$work/out/config"
fi

# Replace the cache entry in one step.
rm -rf "$DIR"
mv "$work/out" "$DIR"
log "cached $release in $DIR"
echo "$DIR"
