#!/usr/bin/env bash
# The fasttrack policy (issue 40; models/policies/fasttrack.c, after Hahn et
# al., USENIX ATC'18): listed with its tunables; `mobisim compare` of the
# Fig. 2 switch with a warm Gallery runs baseline;fgcfq;fasttrack and
# reports each mechanism's counters; the warm Gallery reads (almost) nothing
# from flash; and on the multi-background-app scenario with six updates the
# direction of effect: the launch and the switch are shorter with fasttrack
# than without, and every mechanism switched off gives the baseline's run.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" list policies | grep -q "^fasttrack " || fail "list policies lacks fasttrack"
for k in pagecache sched device protect active_window_us device_bg_depth; do
	"$bin" list policies | grep -q "fasttrack\.$k " || fail "list policies lacks fasttrack.$k"
done

f2="$src/configs/scenarios/thesis-fig02-burst.yaml"
"$bin" compare "$f2" --policies "baseline;fgcfq;fasttrack" --quiet --out "$tmp/f2.json" ||
	fail "compare fig02 baseline;fgcfq;fasttrack"
"$bin" run "$f2" --set workload.tasks.gallery.warm=0 --quiet --out "$tmp/f2cold.json" || fail "cold run"
python3 - "$tmp/f2.json" "$tmp/f2cold.json" <<'PY' || fail "fig02 checks"
import json, sys
d = json.load(open(sys.argv[1])); cold = json.load(open(sys.argv[2]))
runs = d["runs"]
assert list(runs) == ["baseline", "fgcfq", "fasttrack"], list(runs)
ft = runs["fasttrack"]["policies"]["fasttrack"]
for m in ("pagecache", "sched", "device", "protect"):
    assert m in ft, m
def reads(r):
    return sum(x["count"] for x in r["waits"] if x["cause"] == "read_io" and x["class"] == "fg")
w, c = reads(runs["baseline"]), reads(cold)
assert w * 10 < c, (w, c)  # the warm Gallery reads (almost) nothing from flash
PY

mb="$src/configs/scenarios/fasttrack-multibg.yaml"
"$bin" run "$mb" --set workload.tasks.bg.copies=6 --quiet --out "$tmp/b.json" || fail "multibg baseline"
"$bin" run "$mb" --set workload.tasks.bg.copies=6 --set policies=fasttrack --quiet --out "$tmp/f.json" ||
	fail "multibg fasttrack"
"$bin" run "$mb" --set workload.tasks.bg.copies=6 --set policies=fasttrack --set fasttrack.pagecache=false \
	--set fasttrack.sched=false --set fasttrack.device=false --set fasttrack.protect=false \
	--quiet --out "$tmp/o.json" 2>/dev/null || fail "multibg all off"
python3 - "$tmp/b.json" "$tmp/f.json" "$tmp/o.json" <<'PY' || fail "multibg direction"
import json, sys
def regs(p):
    return {x["name"]: x["duration_ns"] for x in json.load(open(p))["regions"]}
b, f, o = (regs(p) for p in sys.argv[1:4])
assert f["launch"] < b["launch"], (f, b)
assert f["switch"] < b["switch"], (f, b)
assert o == b, (o, b)
PY
echo ok
