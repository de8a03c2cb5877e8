#!/usr/bin/env python3
"""Write the broken trace.dat inputs of tests/fuzz/corpus/tracecmd/ whose
names start 'opt-', 'printk-' and 'v7-', and one valid one, from the fixtures
here (block-v6.dat made by make_tracedat.py, block-v7.dat by `trace-cmd
convert --file-version 7 --compression zstd` of it, block-v6-tc.dat by
`trace-cmd convert --file-version 6` of that: trace-cmd's own v6 layout,
with the trace clock text after the CPU table). Each holds one field that Debian's libtracecmd 3.1.6
trusts and that crashes it or makes it allocate gigabytes (read from its
trace-input.c); traces/tracecmd_walk.c must refuse each with a byte offset.
Needs the zstd command. usage: make_bad_tracedat.py OUTDIR
"""
import os, struct, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
V6 = open(os.path.join(HERE, "block-v6.dat"), "rb").read()
V7 = open(os.path.join(HERE, "block-v7.dat"), "rb").read()
V6TC = open(os.path.join(HERE, "block-v6-tc.dat"), "rb").read()


def add_option_v6(oid, data, base=V6, clock_size=None):
    """The option goes first in the options section; a padding option of an
    unknown id keeps the CPU pages page aligned; the CPU table is moved.
    clock_size: a new size for the trace clock text after the CPU table."""
    d = bytearray(base)
    fly = d.index(b"flyrecord\0")
    at = d.index(b"options  \0") + 10
    body = struct.pack("<HI", oid, len(data)) + data
    pad = 4096 - len(body) % 4096
    if pad < 6:
        pad += 4096
    body += struct.pack("<HI", 100, pad - 6) + b"\0" * (pad - 6)
    ncpu = struct.unpack_from("<I", d, d.index(b"options  \0") - 4)[0]
    for c in range(ncpu):
        off = struct.unpack_from("<Q", d, fly + 10 + 16 * c)[0]
        struct.pack_into("<Q", d, fly + 10 + 16 * c, off + len(body))
    if clock_size is not None:
        struct.pack_into("<Q", d, fly + 10 + 16 * ncpu, clock_size)
    d[at:at] = body
    return bytes(d)


def replace_printk_v6(text):
    """The printk formats replaced by `text`, NUL padded (the library reads
    to the first NUL) so the CPU pages stay page aligned."""
    d = bytearray(V6)
    i = d.index(b"header_page\0") + 12
    i += 8 + struct.unpack_from("<Q", d, i)[0]
    i += 13
    i += 8 + struct.unpack_from("<Q", d, i)[0]
    n = struct.unpack_from("<I", d, i)[0]
    i += 4
    for _ in range(n):
        i += 8 + struct.unpack_from("<Q", d, i)[0]
    nsys = struct.unpack_from("<I", d, i)[0]
    i += 4
    for _ in range(nsys):
        i = d.index(b"\0", i) + 1
        n = struct.unpack_from("<I", d, i)[0]
        i += 4
        for _ in range(n):
            i += 8 + struct.unpack_from("<Q", d, i)[0]
    i += 4 + struct.unpack_from("<I", d, i)[0]  # kallsyms
    old = 4 + struct.unpack_from("<I", d, i)[0]
    data = text + b"\0" * ((old - 4 - len(text)) % 4096)
    blob = struct.pack("<I", len(data)) + data
    shift = len(blob) - old
    fly = d.index(b"flyrecord\0")
    ncpu = struct.unpack_from("<I", d, d.index(b"options  \0") - 4)[0]
    for c in range(ncpu):
        off = struct.unpack_from("<Q", d, fly + 10 + 16 * c)[0]
        struct.pack_into("<Q", d, fly + 10 + 16 * c, off + shift)
    d[i:i + old] = blob
    return bytes(d)


def v7_sections(d):
    """(offset of the last DONE's next-offset field, {option id: (field offset, value)})"""
    i = d.index(b"\0", 10) + 1 + 6
    i = d.index(b"\0", i) + 1
    i = d.index(b"\0", i) + 1
    o = struct.unpack_from("<Q", d, i)[0]
    opts, last = {}, None
    while o:
        p, nxt = o + 16, 0
        while True:
            oid, sz = struct.unpack_from("<HI", d, p)
            if oid == 0:
                last, nxt = p + 6, struct.unpack_from("<Q", d, p + 6)[0]
                break
            opts.setdefault(oid, []).append(p + 6)
            p += 6 + sz
        o = nxt
    return last, opts


def add_option_v7(oid, data, base=V7):
    """An uncompressed options section appended and chained from the last DONE."""
    d = bytearray(base)
    last, _ = v7_sections(d)
    opts = struct.pack("<HI", oid, len(data)) + data + struct.pack("<HIQ", 0, 8, 0)
    struct.pack_into("<Q", d, last, len(d))
    d += struct.pack("<HHIQ", 0, 0, 0, len(opts)) + opts
    return bytes(d)


def zstd(data, decompress=False):
    args = ["zstd", "-q", "-c"] + (["-d"] if decompress else ["-19", "--no-check"])
    return subprocess.run(args, input=data, stdout=subprocess.PIPE, check=True).stdout


def v7_section_replaced(oid, change):
    """Section `oid` (16..21) uncompressed, changed, and appended (not
    compressed); its option points at the copy."""
    d = bytearray(V7)
    _, opts = v7_sections(d)
    field = opts[oid][0]
    at = struct.unpack_from("<Q", d, field)[0]
    sid, flags, sname, size = struct.unpack_from("<HHIQ", d, at)
    body = bytes(d[at + 16:at + 16 + size])
    if flags & 1:
        csize, usize = struct.unpack_from("<II", body, 0)
        body = zstd(body[8:8 + csize], decompress=True)
        assert len(body) == usize
    body = change(body)
    struct.pack_into("<Q", d, field, len(d))
    d += struct.pack("<HHIQ", sid, 0, sname, len(body)) + body
    return bytes(d)


def v7_corrupt_compressed_section(oid):
    d = bytearray(V7)
    _, opts = v7_sections(d)
    at = struct.unpack_from("<Q", d, opts[oid][0])[0]
    assert struct.unpack_from("<H", d, at + 2)[0] & 1, "that section is not compressed"
    for k in range(at + 16 + 8 + 6, at + 16 + 8 + 14):  # inside the zstd frame
        d[k] ^= 0xA5
    return bytes(d)


def v7_chunk_with_commit(commit):
    """CPU 0's first chunk uncompressed, its first page's commit set, and
    recompressed into a chunk table appended to the file."""
    d = bytearray(V7)
    _, opts = v7_sections(d)
    b = opts[3][0]
    q = b + 8
    q = d.index(b"\0", q) + 1
    q = d.index(b"\0", q) + 1
    q += 8  # page size, CPU count
    cpu0_off = struct.unpack_from("<Q", d, q + 4)[0]
    count, zsize, usize = struct.unpack_from("<III", d, cpu0_off)
    page = bytearray(zstd(bytes(d[cpu0_off + 12:cpu0_off + 12 + zsize]), decompress=True))
    assert len(page) == usize
    struct.pack_into("<Q", page, 8, commit)
    z = zstd(bytes(page))
    table = struct.pack("<III", 1, len(z), usize) + z
    struct.pack_into("<Q", d, q + 4, len(d))
    struct.pack_into("<Q", d, q + 12, len(table))
    d += table
    return bytes(d)


def v7_as_zlib(change_formats):
    """block-v7.dat with every compressed section and CPU chunk recompressed
    with zlib (appended, offsets repointed; the header names zlib), and the
    EVENT FORMATS changed: Debian's libtracecmd 3.1.6 has no zlib, so this
    only shows the walk reads zlib as it reads zstd."""
    import zlib
    d = bytearray(V7)
    k = d.index(b"zstd\0")
    d[k:k + 11] = b"zlib\0" + b"1.2.1\0"
    _, opts = v7_sections(d)
    for oid in range(16, 22):
        field = opts[oid][0]
        at = struct.unpack_from("<Q", d, field)[0]
        sid, flags, sname, size = struct.unpack_from("<HHIQ", d, at)
        if not flags & 1:
            continue
        csize, usize = struct.unpack_from("<II", d, at + 16)
        body = zstd(bytes(d[at + 24:at + 24 + csize]), decompress=True)
        if oid == 18:
            body = change_formats(body)
        z = zlib.compress(body, 9)
        struct.pack_into("<Q", d, field, len(d))
        d += struct.pack("<HHIQII", sid, flags, sname, 8 + len(z), len(z), len(body)) + z
    q = opts[3][0] + 8
    q = d.index(b"\0", q) + 1
    q = d.index(b"\0", q) + 1
    ncpu = struct.unpack_from("<I", d, q + 4)[0]
    q += 8
    for c in range(ncpu):
        off, size = struct.unpack_from("<QQ", d, q + 20 * c + 4)
        if not size:
            continue
        count = struct.unpack_from("<I", d, off)[0]
        p, table = off + 4, struct.pack("<I", count)
        for _ in range(count):
            zsize, usize = struct.unpack_from("<II", d, p)
            z = zlib.compress(zstd(bytes(d[p + 8:p + 8 + zsize]), decompress=True), 9)
            table += struct.pack("<II", len(z), usize) + z
            p += 8 + zsize
        struct.pack_into("<QQ", d, q + 20 * c + 4, len(d), len(table))
        d += table
    return bytes(d)


def cut_print_fmt(body):
    k = body.index(b'print fmt: "')
    e = body.index(b"\n", k)
    return body[:k + 12] + b"%d" + body[e:]  # the format loses its closing quote


def text(s):
    return s.encode() + b"\0"


CASES = {
    # strdup()/strtoll() of a string with no end: heap-buffer-overflow
    "opt-text-no-nul-v6": add_option_v6(5, b"abcd"),
    "opt-text-no-nul-v7": add_option_v7(9, b"3.1."),
    # extract_trace_clock sscanf()s NULL: SEGV
    "opt-clock-brackets-v6": add_option_v6(4, text("local [[]] global")),
    "opt-clock-brackets-v7": add_option_v7(4, text("[[[[")),
    # tracecmd_create_event_hook returns NULL, handle_options follows it: SEGV
    "opt-hook-v6": add_option_v6(6, text("garbage")),
    # buf[size - 1] of a 0-byte option
    "opt-cpustat-empty-v7": add_option_v7(2, b""),
    # calloc(NLIBS, 24) of a count the option cannot hold: 6 GB
    "opt-procmaps-count-v6": add_option_v6(10, text("1 fffffff app\n")),
    # calloc of the CPU count and of each sample count: 4 and 8 GB
    "opt-time-shift-cpus-v7": add_option_v7(12, bytes(12) + struct.pack("<I", 0x0fffffff)),
    "opt-time-shift-samples-v6": add_option_v6(12, bytes(12) + struct.pack("<II", 1, 0x0fffffff)),
    # calloc(vCPU count, 4): 8 GB
    "opt-guest-vcpus-v6": add_option_v6(13, b"vm\0" + bytes(8) + struct.pack("<I", 0x7fffffff)),
    # tep_register_print_string reads before a format shorter than 3 bytes;
    # a line without ':' leaves the format one byte past the line's end
    "printk-short-format-v6": replace_printk_v6(b'ffffffff81000000 : "a"\n'),
    "printk-no-colon-v6": replace_printk_v6(b"ffffffff81000000\n"),
    # trace-cmd record writes an empty TRACECLOCK option; a v6 reader then
    # mallocs the size of the clock text after the CPU table (read_data_and_size)
    "opt-clock-data-size-v6": add_option_v6(4, b"", V6TC, clock_size=3 << 30),
    # the rest exit 2 in the library too; here they name their byte offset.
    # CPUCOUNT sets how many CPUs read_cpu_data reads (v6)
    "opt-cpucount-v6": add_option_v6(8, struct.pack("<I", 100000)),
    # v7 sections are walked like v6's parts, compressed or not
    "v7-section-print-fmt-cut": v7_section_replaced(18, cut_print_fmt),
    "v7-section-bad-zstd": v7_corrupt_compressed_section(18),
    "v7-zlib-print-fmt-cut": v7_as_zlib(cut_print_fmt),
    # kbuffer reads `commit` bytes of events from a 4 KiB page
    "v7-chunk-page-commit": v7_chunk_with_commit((1 << 27) - 1),
}

# what trace-cmd record writes (an empty TRACECLOCK option) must pass
CASES["valid-v6-clock-option"] = add_option_v6(4, b"", V6TC)

if __name__ == "__main__":
    out = sys.argv[1]
    for name, data in CASES.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
