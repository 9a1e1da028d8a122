#!/usr/bin/env bash
# gen-vmlinux.sh [ARCH...]     ARCH: x86 | arm64   (default: x86 arm64)
#
# Regenerate vmlinux/<arch>/vmlinux.h from the BTF of Debian's 6.12 cloud
# kernel for that architecture, and record where it came from in
# vmlinux/<arch>/VERSION.
#
#   x86:   linux-image-6.12.*-cloud-amd64-unsigned.  vmlinuz is a bzImage; its
#          compressed payload is located through the boot protocol setup
#          header, decompressed to the ELF vmlinux, and the .BTF section is
#          dumped with objcopy.
#   arm64: linux-image-6.12.*-cloud-arm64-unsigned.  vmlinuz is a raw
#          (possibly gzip-compressed) Image without ELF headers; the BTF blob
#          is located by extract-btf.py scanning for the BTF header.
#
# Kernels are downloaded and cached by tests/vm/infra/fetch-kernel.sh
# (see PTSCOPE_CACHE there).  Requires bpftool, objcopy, python3, and the
# decompressor Debian uses for the x86 payload (zstd).
set -euo pipefail

die() { echo "gen-vmlinux.sh: error: $*" >&2; exit 1; }
log() { echo "gen-vmlinux.sh: $*" >&2; }

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
FETCH=$TOP/tests/vm/infra/fetch-kernel.sh
EXTRACT_BTF=$HERE/extract-btf.py
KVERSION=6.12

# Types ptscope relies on; reported if missing, never fatal.
EXPECTED_TYPES=(
    "struct vm_area_struct"
    "struct mm_struct"
    "struct trace_event_raw_sys_enter"
    "struct trace_event_raw_mm_page_alloc"
    "struct trace_event_raw_mm_collapse_huge_page"
    "enum pgt_entry"
)

for tool in bpftool objcopy python3 od dd; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found"
done
[[ -x $FETCH ]] || die "$FETCH not found or not executable"

# Read an unsigned little-endian integer of WIDTH bytes at OFFSET of FILE.
read_le() {
    local file=$1 offset=$2 width=$3
    od -An -tu"$width" -j "$offset" -N "$width" --endian=little "$file" | tr -d ' '
}

# Decompress stdin to stdout according to the compression format MAGIC
# names; trailing garbage errors are tolerated (the result is checked to be
# an ELF file afterwards).
decompress() {
    case "$1" in
        gzip)  gzip -dc 2>/dev/null ;;
        xz)    xz -dc --single-stream 2>/dev/null ;;
        lzma)  xz -dc --format=lzma 2>/dev/null ;;
        zstd)  zstd -dc 2>/dev/null ;;
        bzip2) bzip2 -dc 2>/dev/null ;;
        lz4)   lz4 -dc 2>/dev/null ;;
        lzo)   lzop -dc 2>/dev/null ;;
        *)     return 1 ;;
    esac
}

# Name the compression format whose magic starts FILE at OFFSET.
compression_at() {
    local hex
    hex=$(od -An -tx1 -j "$2" -N 6 "$1" | tr -d ' \n')
    case "$hex" in
        1f8b08*)       echo gzip ;;
        fd377a585a00)  echo xz ;;
        28b52ffd*)     echo zstd ;;
        5d000000*)     echo lzma ;;
        425a68*)       echo bzip2 ;;
        02214c18*)     echo lz4 ;;
        894c5a4f*)     echo lzo ;;
        *)             return 1 ;;
    esac
}

is_elf() {
    [[ -s $1 && $(od -An -tx1 -N 4 "$1" | tr -d ' \n') == 7f454c46 ]]
}

# extract_bzimage_vmlinux BZIMAGE OUT: write the ELF vmlinux in BZIMAGE to OUT.
extract_bzimage_vmlinux() {
    local img=$1 out=$2 setup_sects proto payload_off payload_len start fmt

    # x86 boot protocol (Documentation/arch/x86/boot.rst): "HdrS" at 0x202,
    # protocol version at 0x206, setup_sects at 0x1f1, payload_offset and
    # payload_length (protocol >= 2.08) at 0x248 / 0x24c, relative to the
    # start of the protected-mode code at (setup_sects + 1) * 512.
    if [[ $(dd if="$img" bs=1 skip=$((0x202)) count=4 status=none) == HdrS ]]; then
        proto=$(read_le "$img" $((0x206)) 2)
        if (( proto >= 0x208 )); then
            setup_sects=$(read_le "$img" $((0x1f1)) 1)
            (( setup_sects == 0 )) && setup_sects=4
            payload_off=$(read_le "$img" $((0x248)) 4)
            payload_len=$(read_le "$img" $((0x24c)) 4)
            start=$(( (setup_sects + 1) * 512 + payload_off ))
            if fmt=$(compression_at "$img" "$start"); then
                log "bzImage payload: $fmt, $payload_len bytes at offset $start"
                # Formats other than gzip get the uncompressed size appended
                # as 4 extra bytes; drop them so the decompressor sees
                # exactly one stream.
                [[ $fmt == gzip ]] || payload_len=$((payload_len - 4))
                dd if="$img" iflag=skip_bytes,count_bytes skip="$start" \
                    count="$payload_len" bs=1M status=none | decompress "$fmt" >"$out" || true
                if is_elf "$out"; then
                    return 0
                fi
                log "decompressing the payload described by the setup header failed"
            else
                log "unknown compression at the bzImage payload offset $start"
            fi
        fi
    fi

    # Fallback: try every compression magic found in the file, like the
    # kernel's scripts/extract-vmlinux.
    log "scanning $img for compressed streams"
    local pattern offset
    for fmt in zstd xz gzip lzma bzip2 lz4 lzo; do
        case $fmt in
            gzip)  pattern='\x1f\x8b\x08' ;;
            xz)    pattern='\xfd\x37\x7a\x58\x5a\x00' ;;
            zstd)  pattern='\x28\xb5\x2f\xfd' ;;
            lzma)  pattern='\x5d\x00\x00\x00' ;;
            bzip2) pattern='BZh' ;;
            lz4)   pattern='\x02\x21\x4c\x18' ;;
            lzo)   pattern='\x89\x4c\x5a\x4f' ;;
        esac
        command -v "${fmt/lzma/xz}" >/dev/null 2>&1 || [[ $fmt == lzo ]] || continue
        while read -r offset; do
            tail -c +"$((offset + 1))" "$img" | decompress "$fmt" >"$out" || true
            if is_elf "$out"; then
                log "found $fmt-compressed ELF at offset $offset"
                return 0
            fi
        done < <(LC_ALL=C grep -obUaP "$pattern" "$img" 2>/dev/null | cut -d: -f1)
    done
    rm -f "$out"
    return 1
}

gen_one() {
    local arch=$1 deb_arch dir release package work btf out_dir
    case "$arch" in
        x86)   deb_arch=amd64 ;;
        arm64) deb_arch=arm64 ;;
        *)     die "unsupported arch '$arch' (expected x86 or arm64)" ;;
    esac

    dir=$("$FETCH" "$KVERSION" "$deb_arch" | tail -n 1) \
        || die "fetch-kernel.sh $KVERSION $deb_arch failed"
    [[ -s $dir/vmlinuz && -s $dir/release && -s $dir/package ]] \
        || die "incomplete kernel cache in '$dir'"
    release=$(cat "$dir/release")
    package=$(cat "$dir/package")
    log "$arch: kernel $release ($package)"

    work=$(mktemp -d)
    WORKDIRS+=("$work")
    btf=$work/vmlinux.btf

    case "$arch" in
        x86)
            extract_bzimage_vmlinux "$dir/vmlinuz" "$work/vmlinux" \
                || die "could not extract the ELF vmlinux from $dir/vmlinuz"
            objcopy --dump-section .BTF="$work/btf.section" "$work/vmlinux" "$work/scratch" \
                || die "no .BTF section in the extracted vmlinux"
            # Validate the section (and normalise it) with the same checker.
            python3 "$EXTRACT_BTF" "$work/btf.section" "$btf" \
                || die "the .BTF section of $release failed validation"
            ;;
        arm64)
            python3 "$EXTRACT_BTF" "$dir/vmlinuz" "$btf" \
                || die "could not find BTF in $dir/vmlinuz"
            ;;
    esac

    out_dir=$HERE/$arch
    mkdir -p "$out_dir"
    bpftool btf dump file "$btf" format c >"$work/vmlinux.h" \
        || die "bpftool btf dump failed for $arch"

    local missing=() t
    for t in "${EXPECTED_TYPES[@]}"; do
        grep -q "^$t {" "$work/vmlinux.h" || missing+=("$t")
    done

    mv "$work/vmlinux.h" "$out_dir/vmlinux.h"
    {
        echo "release: $release"
        echo "package: $package ($deb_arch)"
        echo "btf-sha256: $(sha256sum "$btf" | cut -d' ' -f1)"
    } >"$out_dir/VERSION"
    log "$arch: wrote $out_dir/vmlinux.h ($(wc -l <"$out_dir/vmlinux.h") lines)"
    if (( ${#missing[@]} )); then
        log "$arch: WARNING: missing types: $(IFS=,; echo "${missing[*]}")"
    else
        log "$arch: all expected types present"
    fi
    rm -rf "$work"
}

WORKDIRS=()
cleanup() { (( ${#WORKDIRS[@]} )) && rm -rf "${WORKDIRS[@]}"; return 0; }
trap cleanup EXIT

if (( $# == 0 )); then
    set -- x86 arm64
fi
for a in "$@"; do
    gen_one "$a"
done
