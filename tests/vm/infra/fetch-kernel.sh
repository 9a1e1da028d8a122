#!/usr/bin/env bash
# fetch-kernel.sh VERSION ARCH
#
# Download (and cache) Debian's cloud kernel image package for the given
# kernel series and architecture, then extract the kernel image from it.
#
#   VERSION-ARCH: a kernel of tests/vm/infra/kernels.tsv, e.g. 6.12 amd64
#
# A kernel without a pin there (6.1, 6.12) comes from the machine's own apt
# sources (bookworm, bookworm-security), newest first.  A pinned one comes
# from the suite the table names (7.3 from trixie-backports, 5.10 from
# bullseye) through a private apt configuration under
# the cache (its own sources list, lists and archive directories; the
# machine's sources are never touched), at the pinned version, its .deb
# SHA-256 sums checked against the table's.
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

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=kernels.sh
. "$here/kernels.sh"

usage() {
    echo "usage: $0 VERSION ARCH   (VERSION-ARCH: $(kernel_field '*' label | tr '\n' ' ' | sed 's/ $//'))" >&2
    exit 2
}
[[ $# -eq 2 ]] || usage
VERSION=$1
ARCH=$2

# the package (a name regex, or the pinned backports image) and its pin
package=$(kernel_field "$VERSION-$ARCH" package) && pin=$(kernel_field "$VERSION-$ARCH" pin) ||
    { echo "$0: unsupported kernel '$VERSION-$ARCH'" >&2; usage; }
name_re=$package

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

# ---------------------------------------------------------------- pinned
# A pinned kernel comes from a Debian suite the machine's sources lack,
# through a private apt configuration (kernel/bpo-apt.sh), its .debs'
# SHA-256 sums checked against the table's.  Debian 13 backports split
# the image (linux-binary-*, under usr/lib/modules/RELEASE/) from its
# config (linux-base-*; the linux-image-* packages there are meta
# packages); Debian 11's linux-image-* holds boot/vmlinuz-* and
# boot/config-* itself.
# shellcheck source=../../../kernel/bpo-apt.sh
. "$here/../../../kernel/bpo-apt.sh"

# download_checked SUITE PACKAGE SHA: PACKAGE (name:arch=version) into
# $work, checked, and extracted into $work/root
download_checked() {
    local suite=$1 spec=$2 sha=$3 name=${2%%:*} debs
    (cd "$work" && suite_apt "$suite" download "$spec" >&2) ||
        die "apt-get download of $spec from $suite failed; the pinned version may have left $suite"
    debs=("$work/${name}_"*.deb)
    [[ -f ${debs[0]} ]] || die "apt-get download left no $name .deb in $work"
    echo "$sha  ${debs[0]}" | sha256sum -c --quiet - >&2 ||
        die "${debs[0]##*/}: SHA-256 differs from the pinned $sha"
    dpkg -x "${debs[0]}" "$work/root" || die "dpkg -x ${debs[0]##*/} failed"
}

# the image and config of linux-binary-RELEASE + linux-base-RELEASE
extract_backports() {
    local release=$1 modules=$work/root/usr/lib/modules/$1
    [[ -s $modules/vmlinuz ]] || die "no vmlinuz in linux-binary-$release"
    cp "$modules/vmlinuz" "$work/out/vmlinuz"
    cp "$modules/config" "$work/out/config" 2>/dev/null || true
}

# the image and config of linux-image-RELEASE
extract_image() {
    local release=$1
    [[ -s $work/root/boot/vmlinuz-$release ]] || die "no boot/vmlinuz-$release in linux-image-$release"
    cp "$work/root/boot/vmlinuz-$release" "$work/out/vmlinuz"
    cp "$work/root/boot/config-$release" "$work/out/config" 2>/dev/null || true
}

fetch_pinned() {
    local suite deb_arch bin_sha base_sha release
    suite=$(kernel_field "$VERSION-$ARCH" suite)
    deb_arch=$(kernel_field "$VERSION-$ARCH" deb_arch)
    bin_sha=$(kernel_field "$VERSION-$ARCH" sha256_binary)
    base_sha=$(kernel_field "$VERSION-$ARCH" sha256_base)
    [[ $suite != - ]] || die "$VERSION-$ARCH is pinned but names no suite in kernels.tsv"
    log "updating the private $suite lists in $(suite_root "$suite")"
    suite_update "$suite" || die "apt-get update of $suite failed (network? mirror: set PTSCOPE_DEBIAN_MIRROR)"
    work=$(mktemp -d "$CACHE_ROOT/kernels/.tmp.$VERSION-$ARCH.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    chmod 755 "$work"
    id _apt >/dev/null 2>&1 && chown _apt "$work" 2>/dev/null
    mkdir "$work/out"
    download_checked "$suite" "$package:$deb_arch=$pin" "$bin_sha"
    if [[ $package == linux-binary-* ]]; then
        release=${package#linux-binary-}	# 7.3.4+deb13-cloud-amd64
        download_checked "$suite" "linux-base-$release:$deb_arch=$pin" "$base_sha"
        extract_backports "$release"
    else
        release=${package#linux-image-}		# 5.10.0-32-cloud-amd64
        extract_image "$release"
    fi
    echo "$release" >"$work/out/release"
    echo "$package $pin" >"$work/out/package"
    rm -rf "$DIR"
    mv "$work/out" "$DIR"
    log "cached $release in $DIR"
    echo "$DIR"
}

if [[ $pin != - ]]; then
    fetch_pinned
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
