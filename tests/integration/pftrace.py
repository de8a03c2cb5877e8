#!/usr/bin/env python3
"""Decode a Perfetto protobuf trace written by `mobisim run --timeline X.pftrace`
with no protobuf library (the wire format:
developers.google.com/protocol-buffers/docs/encoding; field numbers as
sim/cli/timeline_proto.c lists them from perfetto's protos/perfetto/trace) and
rebuild its slices as trace_processor would: packets sorted by timestamp,
equal ones in file order, an END closing the track's innermost open slice.

  pftrace.py X.pftrace [X.json]
      prints the counts; with the JSON timeline of the same run, exits 1
      unless both hold the same tracks, slices (name, category, start, end,
      args) and counter samples."""
import collections
import decimal
import json
import struct
import sys


def varint(b, i):
    x = s = 0
    while True:
        c = b[i]
        i += 1
        x |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return x, i


def fields(b):
    """{field number: [values]}; LEN values as bytes, I64 as 8 bytes."""
    i, out = 0, collections.defaultdict(list)
    while i < len(b):
        k, i = varint(b, i)
        f, wt = k >> 3, k & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise SystemExit("byte %d: wire type %d" % (i, wt))
        if i > len(b):
            raise SystemExit("field %d cut short" % f)
        out[f].append(v)
    return out


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def read_proto(path):
    data = open(path, "rb").read()
    top = fields(data)
    if set(top) - {1}:
        raise SystemExit("%s: not a Trace (fields %s)" % (path, sorted(top)))
    name_of = {}  # uuid -> name
    parent, counter_tracks = {}, set()
    interned = {1: {}, 2: {}, 3: {}}
    events = []  # (ts, order, uuid, type, body)
    for order, raw in enumerate(top[1]):
        pkt = fields(raw)
        if pkt[10] != [1]:
            raise SystemExit("packet %d: trusted_packet_sequence_id %s" % (order, pkt[10]))
        flags = pkt[13][0] if pkt[13] else 0
        if order == 0 and not flags & 1:
            raise SystemExit("first packet does not clear the incremental state")
        for idata in pkt[12]:
            for table, entries in fields(idata).items():
                for e in entries:
                    e = fields(e)
                    iid, name = e[1][0], e[2][0].decode()
                    if iid in interned[table]:
                        raise SystemExit("packet %d: iid %d interned twice" % (order, iid))
                    interned[table][iid] = name
        for td in pkt[60]:
            td = fields(td)
            u = td[1][0]
            name_of[u] = td[2][0].decode() if td[2] else None
            if td[5]:
                parent[u] = td[5][0]
            if td[8]:
                counter_tracks.add(u)
        for te in pkt[11]:
            te = fields(te)
            if te[10] and not flags & 2:
                raise SystemExit("packet %d: interned names, no SEQ_NEEDS_INCREMENTAL_STATE" % order)
            u = te[11][0]
            if u not in name_of:
                raise SystemExit("packet %d: event on undescribed track %d" % (order, u))
            events.append((pkt[8][0], order, u, te[9][0], te))
    events.sort(key=lambda e: (e[0], e[1]))
    key = lambda u: (name_of.get(parent.get(u)), name_of[u])
    slices, counters = collections.Counter(), collections.Counter()
    stack = collections.defaultdict(list)
    for ts, order, u, typ, te in events:
        if typ == 1:
            args = []
            for a in te[4]:
                a = fields(a)
                v = a[6][0].decode() if a[6] else s64(a[4][0])
                args.append((interned[3][a[1][0]], v))
            stack[u].append((ts, interned[2][te[10][0]], interned[1][te[3][0]], tuple(sorted(args))))
        elif typ == 2:
            if not stack[u]:
                raise SystemExit("END with no open slice on %s" % (key(u),))
            start, name, cat, args = stack[u].pop()
            if not any(a == "ns" for a, _ in args):  # written only where it is not end - start
                args = tuple(sorted(args + (("ns", ts - start),)))
            slices[(key(u), name, cat, start, ts, args)] += 1
        elif typ == 4:
            if u not in counter_tracks:
                raise SystemExit("counter on a slice track %s" % (key(u),))
            counters[(key(u), ts, struct.unpack("<d", te[44][0])[0])] += 1
        else:
            raise SystemExit("event type %d" % typ)
    if any(stack.values()):
        raise SystemExit("slices left open")
    return name_of, interned, slices, counters


def read_json(path):
    ev = json.load(open(path), parse_float=decimal.Decimal)["traceEvents"]
    pn, tn = {}, {}
    for e in ev:
        if e["ph"] == "M":
            (pn if e["name"] == "process_name" else tn)[
                e["pid"] if e["name"] == "process_name" else (e["pid"], e["tid"])] = e["args"]["name"]
    ns = lambda us: int(decimal.Decimal(us) * 1000)
    slices, counters = collections.Counter(), collections.Counter()
    for e in ev:
        if e["ph"] == "X":
            k = (pn.get(e["pid"]), tn.get((e["pid"], e["tid"])))
            args = tuple(sorted((a, v if isinstance(v, str) else int(v)) for a, v in e["args"].items()))
            slices[(k, e["name"], e["cat"], ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), args)] += 1
        elif e["ph"] == "C":
            counters[((pn.get(e["pid"]), e["name"]), ns(e["ts"]), float(e["args"]["value"]))] += 1
    return slices, counters


def main():
    tracks, interned, slices, counters = read_proto(sys.argv[1])
    per = collections.Counter(k[0] for k in slices.elements())
    print("tracks %d, slices %d, counter samples %d, names %d" %
          (len(tracks), sum(slices.values()), sum(counters.values()), len(interned[2])))
    if len(sys.argv) < 3:
        return 0
    js, jc = read_json(sys.argv[2])
    bad = 0
    for what, a, b in (("slices", js, slices), ("counter samples", jc, counters)):
        for k in sorted((a - b).keys(), key=str)[:5]:
            print("only in the JSON %s: %s" % (what, k))
            bad = 1
        for k in sorted((b - a).keys(), key=str)[:5]:
            print("only in the proto %s: %s" % (what, k))
            bad = 1
    if not bad:
        print("same as the JSON: %d tracks with slices" % len(per))
    return bad


if __name__ == "__main__":
    sys.exit(main())
