#!/usr/bin/env bash
# A warm app switch under background writing (issue 40; pagecache.warm,
# memory.warm_lru): the Fig. 2 Gallery switch moved after the camera burst
# (gallery.start 8 s, when the 4 GiB writer's pages push reclaim into
# Gallery's prefilled pages) loses some of them before it uses them under
# baseline, keeps more of them under fasttrack, and is faster warm than
# cold; the counters add up (hits + reclaimed <= prefilled, hits + misses
# cover the pages read); `mobisim compare` shows them; memory.warm_lru moves
# the pages: inactive-oldest loses them all before the switch, active none.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
f2="$src/configs/scenarios/thesis-fig02-burst.yaml"
late="--set workload.tasks.gallery.start=8s"

run() { # out args...
	local o=$1
	shift
	"$bin" run "$f2" $late "$@" --quiet --out "$tmp/$o.json" 2>/dev/null || fail "run $o: $*"
}
run base
run ft --set policies=fasttrack
run cold --set workload.tasks.gallery.warm=0
run oldest --set memory.warm_lru=inactive-oldest
run active --set memory.warm_lru=active
python3 - "$tmp" <<'PY' || fail "warm checks"
import json, sys
d = sys.argv[1]
def load(n):
    return json.load(open(f"{d}/{n}.json"))
def warm(r):
    return r["pagecache"]["warm"]
def switch(r):
    return next(x["duration_ns"] for x in r["regions"] if x["name"] == "switch")
base, ft, cold = load("base"), load("ft"), load("cold")
wb, wf = warm(base), warm(ft)
print("baseline", wb, "switch", switch(base) / 1e9)
print("fasttrack", wf, "switch", switch(ft) / 1e9)
print("cold switch", switch(cold) / 1e9)
for w in (wb, wf):
    assert w["prefilled"] == 2176, w
    assert w["hits"] + w["reclaimed_before_use"] + w["reclaimed_unused"] <= w["prefilled"], w
    assert w["apps"][0]["uid"] == 10080, w
    assert w["lru"] == "inactive-newest", w
# background writing evicts part of the switched-to app before it runs ...
assert wb["reclaimed_before_use"] > 0 and wb["misses"] > 0, wb
assert wb["hits"] > 0, wb
# ... fasttrack keeps more of it: reclaim reaches Gallery's files while it
# switches (each file's pages count as before use until Gallery reaches that
# file), and protect keeps the pages of the app in front
# (--set fasttrack.protect=false loses as many as baseline)
assert wf["reclaimed_before_use"] < wb["reclaimed_before_use"], (wf, wb)
assert wf["hits"] > wb["hits"] and wf["misses"] < wb["misses"], (wf, wb)
assert switch(ft) < switch(base), (switch(ft), switch(base))
# warm is faster than cold, by at least a tenth
assert "warm" not in cold["pagecache"], cold["pagecache"].keys()
assert switch(base) < 0.9 * switch(cold), (switch(base), switch(cold))
# the LRU position decides how much reclaim takes
wo, wa = warm(load("oldest")), warm(load("active"))
assert wo["lru"] == "inactive-oldest" and wa["lru"] == "active", (wo, wa)
assert wo["reclaimed_before_use"] == wo["prefilled"] and wo["hits"] == 0, wo
assert wa["reclaimed_before_use"] < wb["reclaimed_before_use"], (wa, wb)
PY

# compare shows the counters (issue 40's done-when command)
"$bin" compare "$f2" --policies "baseline;fgcfq;fasttrack" >"$tmp/cmp.txt" 2>/dev/null || fail "compare fig02"
for k in prefilled reclaimed_before_use hits misses reclaimed_unused; do
	grep -q "^warm pages $k " "$tmp/cmp.txt" || fail "compare lacks the warm pages $k row"
done
echo ok
