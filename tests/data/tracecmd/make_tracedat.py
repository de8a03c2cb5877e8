#!/usr/bin/env python3
"""Write a small trace-cmd trace.dat (file format version 6, trace-cmd.dat.v6(5))
holding block events as Linux 5.10 records them (include/trace/events/block.h:
block_bio_queue, block_rq_insert, block_rq_issue, block_rq_complete) and one
sched_switch, on two CPUs, for tests of traces/tracecmd.c. No tracefs is
needed: the event format files are written out here field by field.
usage: make_tracedat.py OUT [--cut N] (--cut: keep only the first N bytes)
"""
import struct, sys

PAGE = 4096
COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
MAJ = "((unsigned int) ((REC->dev) >> 20))"
MIN = "((unsigned int) ((REC->dev) & ((1U << 20) - 1)))"

def fmt(name, eid, fields, pfmt):
    body = "".join("\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n" % f for f in fields)
    return ("name: %s\nID: %d\nformat:\n%s%s\nprint fmt: %s\n" % (name, eid, COMMON, body, pfmt)).encode()

RQ = [("dev_t dev", 8, 4, 0), ("sector_t sector", 16, 8, 0), ("unsigned int nr_sector", 24, 4, 0),
      ("unsigned int bytes", 28, 4, 0), ("char rwbs[8]", 32, 8, 1), ("char comm[16]", 40, 16, 1),
      ("__data_loc char[] cmd", 56, 4, 1)]
RQ_PF = ('"%d,%d %s %u (%s) %llu + %u [%s]", ' + MAJ + ", " + MIN +
         ", REC->rwbs, REC->bytes, __get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, REC->comm")
EVENTS = {
    "block": [
        fmt("block_rq_issue", 1101, RQ, RQ_PF),
        fmt("block_rq_insert", 1102, RQ, RQ_PF),
        fmt("block_rq_complete", 1103,
            [("dev_t dev", 8, 4, 0), ("sector_t sector", 16, 8, 0), ("unsigned int nr_sector", 24, 4, 0),
             ("int error", 28, 4, 1), ("char rwbs[8]", 32, 8, 1), ("__data_loc char[] cmd", 40, 4, 1)],
            '"%d,%d %s (%s) %llu + %u [%d]", ' + MAJ + ", " + MIN +
            ", REC->rwbs, __get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, REC->error"),
        fmt("block_bio_queue", 1104,
            [("dev_t dev", 8, 4, 0), ("sector_t sector", 16, 8, 0), ("unsigned int nr_sector", 24, 4, 0),
             ("char rwbs[8]", 28, 8, 1), ("char comm[16]", 36, 16, 1)],
            '"%d,%d %s %llu + %u [%s]", ' + MAJ + ", " + MIN +
            ", REC->rwbs, (unsigned long long)REC->sector, REC->nr_sector, REC->comm"),
    ],
    "sched": [
        fmt("sched_switch", 1201,
            [("char prev_comm[16]", 8, 16, 1), ("pid_t prev_pid", 24, 4, 1), ("int prev_prio", 28, 4, 1),
             ("long prev_state", 32, 8, 1), ("char next_comm[16]", 40, 16, 1), ("pid_t next_pid", 56, 4, 1),
             ("int next_prio", 60, 4, 1)],
            '"prev_comm=%s prev_pid=%d prev_prio=%d ==> next_comm=%s next_pid=%d next_prio=%d", '
            "REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->next_comm, REC->next_pid, REC->next_prio"),
    ],
}

def s(b, n):
    return b.encode().ljust(n, b"\0")[:n]

def common(eid, pid):
    return struct.pack("<HBBi", eid, 0, 0, pid)

def rq(eid, pid, dev, sector, nr, rwbs, comm, bytes_=None, error=None):
    if error is None:
        rec = common(eid, pid) + struct.pack("<I4xQII", dev, sector, nr, bytes_) + s(rwbs, 8) + s(comm, 16)
        rec += struct.pack("<I", (1 << 16) | (len(rec) + 4)) + b"\0"
    else:
        rec = common(eid, pid) + struct.pack("<I4xQIi", dev, sector, nr, error) + s(rwbs, 8)
        rec += struct.pack("<I", (1 << 16) | (len(rec) + 4)) + b"\0"
    return rec

def bio(pid, dev, sector, nr, rwbs, comm):
    return common(1104, pid) + struct.pack("<I4xQI", dev, sector, nr) + s(rwbs, 8) + s(comm, 16)

def switch(pid, prev, ppid, nxt, npid):
    return common(1201, pid) + s(prev, 16) + struct.pack("<iiq", ppid, 120, 1) + s(nxt, 16) + struct.pack("<ii", npid, 120)

def page(base_ts, events):
    """events: [(ts, payload)] in time order, all within 2^27 ns of the last."""
    data, last = b"", base_ts
    for ts, payload in events:
        payload += b"\0" * (-len(payload) % 4)
        assert 4 <= len(payload) <= 112
        data += struct.pack("<I", (len(payload) // 4) | ((ts - last) << 5)) + payload
        last = ts
    return struct.pack("<QQ", base_ts, len(data)) + data.ljust(PAGE - 16, b"\0")

DEV = (259 << 20) | 0   # an NVMe / UFS disk, MKDEV(259, 0)
T0 = 5_000_000_000
cpu0 = [page(T0, [(T0 + 1000, bio(4001, DEV, 2048, 8, "RS", "RenderThread")),
                  (T0 + 3000, rq(1102, 4001, DEV, 2048, 8, "RS", "RenderThread", bytes_=4096)),
                  (T0 + 3500, rq(1101, 4001, DEV, 2048, 8, "RS", "RenderThread", bytes_=4096)),
                  (T0 + 9000, switch(4001, "RenderThread", 4001, "swapper/0", 0))])]
cpu1 = [page(T0, [(T0 + 2000, bio(4100, DEV, 4096, 16, "WS", "kworker/u16:2")),
                  (T0 + 4000, rq(1101, 4100, DEV, 4096, 16, "WS", "kworker/u16:2", bytes_=8192)),
                  (T0 + 52000, rq(1103, 0, DEV, 2048, 8, "RS", "", error=0)),
                  (T0 + 61000, rq(1103, 0, DEV, 4096, 16, "WS", "", error=0))])]

HEADER_PAGE = (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
               b"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
               b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
               b"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n")
HEADER_EVENT = (b"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
                b"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                b"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")

out = bytearray(b"\x17\x08\x44tracing6\0" + bytes([0, 8]) + struct.pack("<I", PAGE))
out += b"header_page\0" + struct.pack("<Q", len(HEADER_PAGE)) + HEADER_PAGE
out += b"header_event\0" + struct.pack("<Q", len(HEADER_EVENT)) + HEADER_EVENT
out += struct.pack("<I", 0)                       # ftrace event formats
out += struct.pack("<I", len(EVENTS))
for system, fmts in EVENTS.items():
    out += system.encode() + b"\0" + struct.pack("<I", len(fmts))
    for f in fmts:
        out += struct.pack("<Q", len(f)) + f
out += struct.pack("<I", 0) + struct.pack("<I", 0)  # kallsyms, printk formats
cmdlines = b"4001 RenderThread\n4100 kworker/u16:2\n"
out += struct.pack("<Q", len(cmdlines)) + cmdlines
out += struct.pack("<I", 2) + b"options  \0" + struct.pack("<H", 0) + b"flyrecord\0"
table = len(out)
out += b"\0" * 32
data_start = (len(out) + PAGE - 1) // PAGE * PAGE
out += b"\0" * (data_start - len(out))
offs = []
for pages in (cpu0, cpu1):
    offs.append((len(out), PAGE * len(pages)))
    for p in pages:
        out += p
struct.pack_into("<QQQQ", out, table, offs[0][0], offs[0][1], offs[1][0], offs[1][1])
if len(sys.argv) > 3 and sys.argv[2] == "--cut":
    out = out[:int(sys.argv[3])]
open(sys.argv[1], "wb").write(out)
