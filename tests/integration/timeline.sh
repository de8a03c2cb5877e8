#!/usr/bin/env bash
# --timeline: the run as Chrome/Perfetto trace-event JSON. The launch demo
# (FG launch beside a BG writer) must give a document that passes the
# structure check of scripts/check-timeline, whose wait slices add up to
# the result's waits and whose regions are the result's; the file must be
# the same bytes on a second run, the result must not change because a
# timeline was written, and the checker must catch a broken document.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
scn="$src/configs/scenarios/launch-demo.yaml"
chk="$src/scripts/check-timeline"

"$bin" run "$scn" --quiet --timeline "$tmp/a.json" --out "$tmp/ra.json" || fail "run --timeline"
"$bin" run "$scn" --quiet --timeline "$tmp/b.json" --out "$tmp/rb.json" || fail "second run"
"$bin" run "$scn" --quiet --out "$tmp/rc.json" || fail "run without timeline"
python3 "$chk" "$tmp/a.json" --result "$tmp/ra.json" || fail "structure or read-back check"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "timeline differs between two runs"
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("engine"); print(json.dumps(d, sort_keys=True))' "$1"; }
[ "$(strip "$tmp/ra.json")" = "$(strip "$tmp/rc.json")" ] || fail "writing a timeline changed the result"

# what a reader looks for is there: FG and BG task tracks with waits, the
# launch region, device slots with requests, dirty-page and queue counters
python3 - "$tmp/a.json" <<'PY' || fail "timeline content"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["args"]["name"] for e in ev if e["ph"] == "M"}
cats = {e.get("cat") for e in ev if e["ph"] == "X"}
counters = {e["name"] for e in ev if e["ph"] == "C"}
waits = {e["name"] for e in ev if e["ph"] == "X" and e["cat"] == "wait"}
for need in ("device", "memory", "slot 0"):
    assert need in names, need
assert {"cpu", "wait", "region", "device"} <= cats, cats
assert {"dirty pages", "device in flight", "scheduler queued"} <= counters, counters
assert {"read_io", "dirty_throttle"} <= waits, waits
PY

# the checker is not blind: an overlapping slice and an unnamed track fail
python3 - "$tmp/a.json" "$tmp/bad1.json" "$tmp/bad2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
x = next(e for e in d["traceEvents"] if e["ph"] == "X" and e["cat"] == "wait")
y = dict(x, ts=x["ts"] + x["dur"] / 2 if x["dur"] > 0 else x["ts"], dur=x["dur"] + 5)
d1 = dict(d, traceEvents=d["traceEvents"] + [y])
json.dump(d1, open(sys.argv[2], "w"))
d2 = dict(d, traceEvents=[e for e in d["traceEvents"] if e.get("name") != "thread_name"])
json.dump(d2, open(sys.argv[3], "w"))
PY
python3 "$chk" "$tmp/bad1.json" >/dev/null && fail "checker accepted overlapping slices"
python3 "$chk" "$tmp/bad2.json" >/dev/null && fail "checker accepted unnamed tracks"

# an unwritable timeline is refused before the run, nothing left behind
"$bin" run "$scn" --quiet --timeline "$tmp/no/such/dir/t.json" 2>"$tmp/err" && fail "unwritable path accepted"
grep -q "t.json" "$tmp/err" || fail "error does not name the file"
echo "ok"
