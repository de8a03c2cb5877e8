#!/usr/bin/env bash
# Energy (docs/energy.md) end to end on the launch demo (an app launch beside a
# background writer on the UFS 2.0 preset): the result's "energy" block adds
# up (device + cpu, by class, per region, within the run); the launch region
# has its energy; a short idle timeout puts the device to sleep without moving
# any timing; `compare` prints the region's energy per policy set and its JSON
# holds a value for every set; bad energy keys are exit-2 errors naming the key.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
scn="$src/configs/scenarios/launch-demo.yaml"

"$bin" run "$scn" --quiet --out "$tmp/a.json" || fail "run"
"$bin" run "$scn" --quiet --out "$tmp/b.json" || fail "second run"
"$bin" run "$scn" --quiet --set device.energy.sleep_after_ms=1 --out "$tmp/sleep.json" ||
	fail "run with a 1 ms idle timeout"
"$bin" run "$scn" --quiet --set device.energy.sleep_after_ms=0 --out "$tmp/awake.json" ||
	fail "run that never sleeps"
"$bin" compare "$scn" --policies "baseline;expc,boost,fgcfq" --out "$tmp/c.json" >"$tmp/table.txt" ||
	fail "compare"
grep -q "^energy region launch (app) *J " "$tmp/table.txt" ||
	{ cat "$tmp/table.txt"; fail "no energy row for the launch region"; }
grep -q "^energy (whole run) *J " "$tmp/table.txt" || fail "no whole-run energy row"

expect2() {
	local what=$1 needle=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] || { cat "$tmp/err"; fail "$what: exit $rc, expected 2"; }
	grep -q -- "$needle" "$tmp/err" || { cat "$tmp/err"; fail "$what: no '$needle' in the message"; }
	[ ! -e "$tmp/bad.json" ] || fail "$what: a result was written"
}
expect2 "negative idle power" "device.energy.idle_mw" \
	"$bin" run "$scn" --quiet --set device.energy.idle_mw=-1 --out "$tmp/bad.json"
expect2 "misspelt key" "idle_mv" \
	"$bin" run "$scn" --quiet --set device.energy.idle_mv=1 --out "$tmp/bad.json"
expect2 "cpu energy not a map" "cpu.energy" \
	"$bin" run "$scn" --quiet --set cpu.energy=5 --out "$tmp/bad.json"

command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not installed, JSON not checked"; exit 0; }
python3 - "$tmp" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
def load(n):
    return json.load(open(f"{d}/{n}.json"))
def near(a, b, what):
    if abs(a - b) > 1e-9 + 1e-9 * abs(b):
        sys.exit(f"FAIL: {what}: {a} != {b}")
a, b = load("a"), load("b")
e = a["energy"]
if e != b["energy"]:
    sys.exit("FAIL: the same run gave another energy block")
near(e["total_j"], e["device_j"] + e["cpu_j"], "total = device + cpu")
bc = e["by_class"]
near(sum(bc[k]["device_j"] for k in bc), e["device_j"], "device by class")
near(sum(bc[k]["cpu_j"] for k in bc), e["cpu_j"], "cpu by class")
near(e["device"]["total_j"], e["device_j"], "device part")
near(e["cpu"]["total_j"], e["cpu_j"], "cpu part")
if not (bc["fg"]["device_j"] > 0 and bc["bg"]["device_j"] > 0 and bc["fg"]["cpu_j"] > 0):
    sys.exit(f"FAIL: a launch beside a writer should charge both classes: {bc}")
regs = [r for r in e["regions"] if r["name"] == "launch" and r["task"] == "app"]
if len(regs) != 1:
    sys.exit(f"FAIL: expected one launch region in energy.regions: {e['regions']}")
r = regs[0]
lr = [x for x in a["regions"] if x["name"] == "launch"][0]
if (r["start_ns"], r["duration_ns"]) != (lr["start_ns"], lr["duration_ns"]):
    sys.exit("FAIL: the region's energy is not over the region's own span")
near(r["total_j"], r["device_j"] + r["cpu_j"], "region total")
if not (0 < r["total_j"] < e["total_j"]):
    sys.exit(f"FAIL: region energy {r['total_j']} not within the run's {e['total_j']}")
if e["device"]["params"]["sleep_after_ms"] != 150:
    sys.exit("FAIL: the UFS preset's auto-hibernate timeout is not 150 ms")

# the idle timeout changes what the device draws, never when anything happens
s, w = load("sleep"), load("awake")
if not (s["energy"]["device"]["sleeps"] > 0 and s["energy"]["device"]["sleep_j"] > 0):
    sys.exit("FAIL: a 1 ms idle timeout never put the device to sleep")
if w["energy"]["device"]["sleeps"] != 0 or w["energy"]["device"]["sleep_j"] != 0:
    sys.exit("FAIL: sleep_after_ms 0 still slept")
if s["energy"]["device_j"] >= w["energy"]["device_j"]:
    sys.exit("FAIL: sleeping at 0.3 mW did not use less than idling at 1 mW")
for k in ("classes", "regions", "waits", "engine", "device", "block"):
    x, y = s.get(k), w.get(k)
    if k == "engine":
        x = {i: v for i, v in x.items() if i not in ("wall_s", "events_per_s", "peak_rss_kib")}
        y = {i: v for i, v in y.items() if i not in ("wall_s", "events_per_s", "peak_rss_kib")}
    if k == "device":
        x, y = dict(x, params=None), dict(y, params=None)
    if x != y:
        sys.exit(f"FAIL: the idle timeout moved '{k}'")

# compare: the launch region's energy for every set, equal to that set's run
c = json.load(open(f"{d}/c.json"))
rows = {row["metric"]: row for row in c["table"]}
row = rows.get("energy region launch (app)")
if not row:
    sys.exit(f"FAIL: compare JSON has no region energy row: {sorted(rows)}")
vals = row["values"]
if set(vals) != {"baseline", "expc,boost,fgcfq"} or any(v is None or v <= 0 for v in vals.values()):
    sys.exit(f"FAIL: region energy per set: {vals}")
near(vals["baseline"], r["total_j"], "compare's baseline = run's region energy")
print("energy: ok")
PY
