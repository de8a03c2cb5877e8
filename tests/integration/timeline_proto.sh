#!/usr/bin/env bash
# --timeline X.pftrace: the run as a Perfetto protobuf trace
# (sim/cli/timeline_proto.c). On the launch demo and on Fig. 1's launch
# beside a BG writer, the decoder tests/integration/pftrace.py must rebuild
# from it, as trace_processor sorts and pairs, the same tracks, slices
# (name, category, start, end, args) and counter samples as the JSON
# timeline of the same run holds; .perfetto-trace and --timeline-format
# proto choose it too, --timeline-format json keeps JSON; the file is the
# same bytes on a second run; the result does not change; mobisim's own
# Perfetto reader reads it (no block events, its slices as regions); a bad
# --timeline-format is refused with exit 2; the decoder is not blind.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
dec="$src/tests/integration/pftrace.py"
demo="$src/configs/scenarios/launch-demo.yaml"

"$bin" run "$demo" --quiet --timeline "$tmp/a.json" --out "$tmp/ra.json" || fail "run --timeline json"
"$bin" run "$demo" --quiet --timeline "$tmp/a.pftrace" --out "$tmp/rb.json" || fail "run --timeline pftrace"
"$bin" run "$demo" --quiet --timeline "$tmp/b.pftrace" || fail "second run"
cmp -s "$tmp/a.pftrace" "$tmp/b.pftrace" || fail "proto timeline differs between two runs"
python3 "$dec" "$tmp/a.pftrace" "$tmp/a.json" >"$tmp/out" || { cat "$tmp/out"; fail "proto and JSON differ"; }
grep -q "slices 375, counter samples 1844" "$tmp/out" || fail "counts: $(cat "$tmp/out")"
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("engine"); print(json.dumps(d, sort_keys=True))' "$1"; }
[ "$(strip "$tmp/ra.json")" = "$(strip "$tmp/rb.json")" ] || fail "the timeline's format changed the result"

# the other ways to choose a format
"$bin" run "$demo" --quiet --timeline "$tmp/c.perfetto-trace" || fail "run .perfetto-trace"
cmp -s "$tmp/a.pftrace" "$tmp/c.perfetto-trace" || fail ".perfetto-trace is not the proto"
"$bin" run "$demo" --quiet --timeline "$tmp/d.bin" --timeline-format proto || fail "--timeline-format proto"
cmp -s "$tmp/a.pftrace" "$tmp/d.bin" || fail "--timeline-format proto is not the proto"
"$bin" run "$demo" --quiet --timeline "$tmp/e.pftrace" --timeline-format json || fail "--timeline-format json"
cmp -s "$tmp/a.json" "$tmp/e.pftrace" || fail "--timeline-format json is not the JSON"
"$bin" run "$demo" --quiet --timeline "$tmp/f.pftrace" --timeline-format xml 2>"$tmp/err"
[ $? = 2 ] || fail "a bad --timeline-format did not exit 2"
grep -q "timeline-format 'xml'" "$tmp/err" || fail "bad format message: $(cat "$tmp/err")"
[ -e "$tmp/f.pftrace" ] && fail "a refused run left a file"
"$bin" run "$demo" --quiet --timeline-format proto 2>"$tmp/err"
[ $? = 2 ] || fail "--timeline-format without --timeline did not exit 2"

# nested regions, counters and thousands of slices: Fig. 1's launch under a
# 256 MiB write (a few seconds simulated)
fig1=(--set workload.tasks.bg.bytes=256MiB --quiet)
"$bin" run "$src/configs/scenarios/thesis-fig01-launch.yaml" "${fig1[@]}" --timeline "$tmp/f1.json" 2>/dev/null ||
	fail "fig01 json"
"$bin" run "$src/configs/scenarios/thesis-fig01-launch.yaml" "${fig1[@]}" --timeline "$tmp/f1.pftrace" 2>/dev/null ||
	fail "fig01 proto"
python3 "$dec" "$tmp/f1.pftrace" "$tmp/f1.json" >"$tmp/out" || { cat "$tmp/out"; fail "fig01: proto and JSON differ"; }
[ "$(stat -c %s "$tmp/f1.pftrace")" -lt "$(( $(stat -c %s "$tmp/f1.json") / 2 ))" ] ||
	fail "the proto is not under half the JSON"

# mobisim's Perfetto reader: no block events, the slices as regions, exit 0
"$bin" trace stat "$tmp/a.pftrace" >"$tmp/stat" 2>&1 || fail "trace stat exited $?: $(cat "$tmp/stat")"
grep -q "^format: *perfetto" "$tmp/stat" || fail "not read as Perfetto"
grep -q "(0 block," "$tmp/stat" || fail "block events in a timeline?"
grep -q "track-event slices: 375 begin, 375 end" "$tmp/stat" || fail "reader's slices: $(grep slices "$tmp/stat")"

# the decoder is not blind: an END dropped, a slice moved by 1 ns, a file
# cut short, another run's JSON
python3 - "$dec" "$tmp/a.pftrace" "$tmp" <<'PY' || fail "could not make the broken files"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("pftrace", sys.argv[1])
pf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pf)
d = open(sys.argv[2], "rb").read()
i, packets = 0, []
while i < len(d):
    n, j = pf.varint(d, i + 1)
    packets.append(d[i:j + n])
    i = j + n
def kind(p):
    f = pf.fields(pf.fields(p)[1][0])
    return pf.fields(f[11][0])[9][0] if f[11] else 0
end = next(k for k, p in enumerate(packets) if kind(p) == 2)
open(sys.argv[3] + "/x1.pftrace", "wb").write(b"".join(packets[:end] + packets[end + 1:]))
# the END's timestamp (TracePacket field 8, a varint) one more
body = pf.fields(packets[end])[1][0]
ts = pf.fields(body)[8][0]
def varint(v):
    out = b""
    while True:
        out += bytes([(v & 0x7F) | (0x80 if v >> 7 else 0)])
        v >>= 7
        if not v:
            return out
old, new = b"\x40" + varint(ts), b"\x40" + varint(ts + 1)
assert body.count(old) == 1
nb = body.replace(old, new)
moved = b"\x0a" + varint(len(nb)) + nb
open(sys.argv[3] + "/x2.pftrace", "wb").write(b"".join(packets[:end] + [moved] + packets[end + 1:]))
open(sys.argv[3] + "/x3.pftrace", "wb").write(d[:-3])
PY
python3 "$dec" "$tmp/x1.pftrace" "$tmp/a.json" >/dev/null 2>&1 && fail "decoder accepted a dropped END"
python3 "$dec" "$tmp/x2.pftrace" "$tmp/a.json" >/dev/null 2>&1 && fail "decoder accepted a moved END"
python3 "$dec" "$tmp/x3.pftrace" "$tmp/a.json" >/dev/null 2>&1 && fail "decoder accepted a cut file"
python3 "$dec" "$tmp/a.pftrace" "$tmp/f1.json" >/dev/null 2>&1 && fail "decoder matched another run's JSON"
echo "ok"
