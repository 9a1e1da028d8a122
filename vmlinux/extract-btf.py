#!/usr/bin/env python3
"""Extract the kernel's raw BTF blob from a kernel image.

Usage: extract-btf.py [-q] INPUT OUTPUT

INPUT may be
  * an ELF vmlinux: the .BTF section is taken as is (and validated);
  * a raw kernel image (e.g. arm64 "Image"), optionally compressed with
    gzip or xz/lzma: the (decompressed) bytes are scanned for a BTF header.

The scan looks for struct btf_header (see include/uapi/linux/btf.h):

    __u16 magic;     0xeB9F, little-endian
    __u8  version;   1
    __u8  flags;
    __u32 hdr_len;   24
    __u32 type_off;  relative to the end of the header
    __u32 type_len;
    __u32 str_off;   relative to the end of the header
    __u32 str_len;

Each candidate is validated by walking the whole type section (every type
record must have a known kind and the records must exactly fill the
section) and by checking the string section.  The largest valid blob is
written to OUTPUT.  Only little-endian BTF is handled (x86-64, arm64).

Standard library only.
"""

import gzip
import lzma
import struct
import sys

BTF_MAGIC_LE = b"\x9f\xeb"
BTF_VERSION = 1
BTF_HDR_LEN = 24

# Extra bytes following struct btf_type (12 bytes) for each kind:
# (fixed extra bytes, bytes per vlen entry).
KIND_LAYOUT = {
    1: (4, 0),    # INT
    2: (0, 0),    # PTR
    3: (12, 0),   # ARRAY
    4: (0, 12),   # STRUCT
    5: (0, 12),   # UNION
    6: (0, 8),    # ENUM
    7: (0, 0),    # FWD
    8: (0, 0),    # TYPEDEF
    9: (0, 0),    # VOLATILE
    10: (0, 0),   # CONST
    11: (0, 0),   # RESTRICT
    12: (0, 0),   # FUNC
    13: (0, 8),   # FUNC_PROTO
    14: (4, 0),   # VAR
    15: (0, 12),  # DATASEC
    16: (0, 0),   # FLOAT
    17: (4, 0),   # DECL_TAG
    18: (0, 0),   # TYPE_TAG
    19: (0, 12),  # ENUM64
}

# A vmlinux BTF has tens of thousands of types; anything tiny is noise.
MIN_TYPES = 1000


class Invalid(Exception):
    pass


def log(msg):
    if not QUIET:
        print("extract-btf.py: " + msg, file=sys.stderr)


QUIET = False


def validate(data, off):
    """Validate a BTF blob starting at data[off].

    Returns (total_size, nr_types) or raises Invalid.
    """
    if len(data) - off < BTF_HDR_LEN:
        raise Invalid("truncated header")
    magic, version, flags, hdr_len, type_off, type_len, str_off, str_len = \
        struct.unpack_from("<HBBIIIII", data, off)
    if magic != 0xEB9F:
        raise Invalid("bad magic")
    if version != BTF_VERSION:
        raise Invalid("version %d" % version)
    if flags != 0:
        raise Invalid("flags %#x" % flags)
    if hdr_len != BTF_HDR_LEN:
        raise Invalid("hdr_len %d" % hdr_len)
    if type_off % 4 or type_len % 4:
        raise Invalid("misaligned type section")
    if str_len == 0 or type_len == 0:
        raise Invalid("empty section")
    # The kernel requires the type section to precede the string section
    # without overlap.
    if type_off + type_len > str_off:
        raise Invalid("sections overlap")
    total = hdr_len + max(type_off + type_len, str_off + str_len)
    if off + total > len(data):
        raise Invalid("blob runs past the end of the input")

    base = off + hdr_len
    strs = data[base + str_off: base + str_off + str_len]
    if strs[0] != 0 or strs[-1] != 0:
        raise Invalid("string section not NUL-delimited")

    pos = base + type_off
    end = pos + type_len
    nr_types = 0
    while pos < end:
        if end - pos < 12:
            raise Invalid("truncated type record")
        name_off, info, _size_type = struct.unpack_from("<III", data, pos)
        kind = (info >> 24) & 0x1F
        vlen = info & 0xFFFF
        layout = KIND_LAYOUT.get(kind)
        if layout is None:
            raise Invalid("unknown kind %d at type %d" % (kind, nr_types + 1))
        if name_off >= str_len:
            raise Invalid("name offset out of range at type %d" % (nr_types + 1))
        pos += 12 + layout[0] + vlen * layout[1]
        nr_types += 1
    if pos != end:
        raise Invalid("type records do not fill the type section")
    if nr_types < MIN_TYPES:
        raise Invalid("only %d types" % nr_types)
    return total, nr_types


def maybe_decompress(data):
    if data[:2] == b"\x1f\x8b":
        log("input is gzip-compressed, decompressing")
        return gzip.decompress(data)
    if data[:6] == b"\xfd7zXZ\x00" or data[:3] == b"\x5d\x00\x00":
        log("input is xz/lzma-compressed, decompressing")
        return lzma.decompress(data)
    if data[:4] == b"\x28\xb5\x2f\xfd":
        raise SystemExit("extract-btf.py: zstd input is not supported by the "
                         "python standard library; decompress it first "
                         "(zstd -dc)")
    return data


def elf_btf_section(data):
    """Return (offset, size) of the .BTF section of an ELF file, or None."""
    if data[:4] != b"\x7fELF":
        return None
    ei_class, ei_data = data[4], data[5]
    end = "<" if ei_data == 1 else ">"
    if ei_class == 2:
        shoff, = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x3A)
        shdr = end + "IIQQQQIIQQ"
    elif ei_class == 1:
        shoff, = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x2E)
        shdr = end + "IIIIIIIIII"
    else:
        raise SystemExit("extract-btf.py: unknown ELF class %d" % ei_class)
    if shoff == 0 or shnum == 0:
        return None

    def section(i):
        f = struct.unpack_from(shdr, data, shoff + i * shentsize)
        # name, type, flags, addr, offset, size, ...
        return f[0], f[1], f[4], f[5]

    _, _, str_sec_off, _ = section(shstrndx)
    for i in range(shnum):
        name_off, sh_type, off, size = section(i)
        nstart = str_sec_off + name_off
        name = data[nstart:data.index(b"\0", nstart)]
        if name == b".BTF":
            if sh_type == 8:  # SHT_NOBITS
                raise SystemExit("extract-btf.py: .BTF section has no data")
            return off, size
    return None


def scan(data):
    """Return a list of (offset, size, nr_types) of valid BTF blobs."""
    found = []
    pos = 0
    while True:
        pos = data.find(BTF_MAGIC_LE, pos)
        if pos < 0:
            break
        try:
            size, nr = validate(data, pos)
        except Invalid:
            pos += 1
            continue
        found.append((pos, size, nr))
        pos += size
    return found


def main(argv):
    global QUIET
    args = argv[1:]
    if args and args[0] == "-q":
        QUIET = True
        args = args[1:]
    if len(args) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    src, dst = args

    with open(src, "rb") as f:
        data = f.read()

    sec = elf_btf_section(data)
    if sec is not None:
        off, size = sec
        try:
            total, nr = validate(data, off)
        except Invalid as e:
            print("extract-btf.py: .BTF section of %s is invalid: %s" % (src, e),
                  file=sys.stderr)
            return 1
        if total != size:
            print("extract-btf.py: .BTF section size %d != BTF size %d"
                  % (size, total), file=sys.stderr)
            return 1
        log("ELF .BTF section at %#x: %d bytes, %d types" % (off, size, nr))
        blob = data[off:off + size]
    else:
        if data[:4] == b"\x7fELF":
            log("ELF input without .BTF section, scanning raw bytes")
        data = maybe_decompress(data)
        found = scan(data)
        if not found:
            print("extract-btf.py: no valid BTF blob found in %s" % src,
                  file=sys.stderr)
            return 1
        for off, size, nr in found:
            log("BTF candidate at %#x: %d bytes, %d types" % (off, size, nr))
        off, size, nr = max(found, key=lambda c: c[1])
        if len(found) > 1:
            log("several BTF blobs found, using the largest (at %#x)" % off)
        blob = data[off:off + size]

    with open(dst, "wb") as f:
        f.write(blob)
    log("wrote %d bytes of BTF to %s" % (len(blob), dst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
