#!/usr/bin/env bash
# `mobisim compare`: one run per policy set on the same workload
# and seed. Checks: the table and JSON name every set; the baseline run is
# the same simulation as `mobisim run` of the scenario; two compares give
# the same table; a policy that cannot act (boost without FG writeback
# waits) changes nothing; bad --policies lists are exit-2 errors.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
scn="$src/configs/scenarios/launch-demo.yaml"

"$bin" compare "$scn" --policies "baseline;expc;boost;expc,boost" --out "$tmp/c1.json" >"$tmp/table.txt" ||
	fail "compare"
grep -q "region launch (app)" "$tmp/table.txt" || { cat "$tmp/table.txt"; fail "no region row"; }
head -3 "$tmp/table.txt" | grep -q "expc,boost" || fail "set not in the table header"
"$bin" compare "$scn" --policies "baseline;expc;boost;expc,boost" --quiet --out "$tmp/c2.json" ||
	fail "second compare"
"$bin" run "$scn" --quiet --out "$tmp/run.json" || fail "run"

expect2() {
	local what=$1 needle=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] || { cat "$tmp/err"; fail "$what: exit $rc, expected 2"; }
	grep -q -- "$needle" "$tmp/err" || { cat "$tmp/err"; fail "$what: no '$needle' in the message"; }
}
expect2 "unknown policy" "unknown policy 'bogus'" "$bin" compare "$scn" --policies "baseline;bogus"
expect2 "empty set" "empty set" "$bin" compare "$scn" --policies "baseline;;expc"
expect2 "repeated set" "given twice" "$bin" compare "$scn" --policies "expc;expc"
expect2 "no --policies" "policies" "$bin" compare "$scn"

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed, JSON not checked"
	exit 0
fi
python3 - "$tmp" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
c1, c2 = json.load(open(f"{d}/c1.json")), json.load(open(f"{d}/c2.json"))
run = json.load(open(f"{d}/run.json"))
ok = True
if list(c1["runs"]) != ["baseline", "expc", "boost", "expc,boost"]:
    print("FAIL: runs", list(c1["runs"])); ok = False
if json.dumps(c1["table"], sort_keys=True) != json.dumps(c2["table"], sort_keys=True):
    print("FAIL: two compares disagree"); ok = False
sim = ("classes", "regions", "device", "block", "pagecache", "waits", "stack")
def same(a, b):
    return all(json.dumps(a.get(k), sort_keys=True) == json.dumps(b.get(k), sort_keys=True) for k in sim)
if not same(c1["runs"]["baseline"], run):
    print("FAIL: the baseline run differs from `mobisim run`"); ok = False
# launch-demo's FG never waits on async writeback: boost cannot act
b = c1["runs"]["boost"]
if b["policies"]["boost"]["waits_boosted_class"] != 0 or not same(b, c1["runs"]["baseline"]):
    print("FAIL: boost changed a run without FG writeback waits"); ok = False
row = next(r for r in c1["table"] if r["metric"].startswith("region launch"))
if set(row["values"]) != set(c1["runs"]) or set(row["change"]) != {"expc", "boost", "expc,boost"}:
    print("FAIL: table row", row); ok = False
sys.exit(0 if ok else 1)
PY
echo "ok"
