#!/usr/bin/env bash
# `mobisim compare --repeat N`: each policy set runs N times with derived
# seeds. Checks: the JSON's mean, sd and CI of the launch equal those
# computed here from N `mobisim run --seed S` runs with the listed seeds
# (t_{.975,3} = 3.182446); a set identical to the baseline is flagged n.s.
# (difference 0, CI includes zero); a policy with a large effect (fgcfq on
# the launch's read waits) is not; the same command gives the same bytes;
# bad --repeat values are exit-2 errors; repetitions that cannot differ (fixed
# starts) are said, by compare and sweep, with the start key to draw.
set -u
bin=$1 src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
scn="$src/configs/scenarios/launch-demo.yaml"

"$bin" compare "$scn" --policies "baseline;expc;fgcfq" --repeat 4 --out "$tmp/a.json" >"$tmp/table" ||
	fail "compare --repeat"
grep -q "4 repetitions" "$tmp/table" || fail "no repetition count in the table"
grep -q "n.s." "$tmp/table" || fail "no n.s. flag in the table"
"$bin" compare "$scn" --policies "baseline;expc;fgcfq" --repeat 4 --quiet --out "$tmp/b.json" || fail "second"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "two identical compares differ"

python3 - "$tmp/a.json" "$bin" "$scn" <<'EOF' || fail "statistics"
import json, math, subprocess, sys, tempfile, os
doc = json.load(open(sys.argv[1]))
binp, scn = sys.argv[2], sys.argv[3]
assert doc["repeat"] == 4 and len(doc["seeds"]) == 4 and len(set(doc["seeds"])) == 4, doc["seeds"]
assert "runs" not in doc
rows = {r["metric"]: r for r in doc["table"]}
row = rows["region launch (app)"]
xs = []
with tempfile.TemporaryDirectory() as d:
    for s in doc["seeds"]:
        out = os.path.join(d, "r.json")
        subprocess.run([binp, "run", scn, "--seed", str(s), "--quiet", "--out", out], check=True)
        res = json.load(open(out))
        xs.append(next(r["duration_ns"] for r in res["regions"] if r["name"] == "launch") / 1e9)
n = len(xs); m = sum(xs) / n
sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
v = row["values"]["baseline"]
assert v["n"] == 4
assert abs(v["mean"] - m) < 1e-9 * max(1, m), (v, m)
assert abs(v["sd"] - sd) < 1e-9 * max(1, sd), (v, sd)
assert abs(v["ci95"] - 3.182446305 * sd / 2) < 1e-6 * max(1, sd), v
assert v["min"] == min(xs) and v["max"] == max(xs)
assert sd > 0, "seeds do not change the launch: the test would not see a wrong CI"
# expc cannot act here: identical runs, zero difference, flagged
d = row["diff"]["expc"]
assert d["mean"] == 0 and d["includes_zero"] is True, d
# fgcfq cuts the FG read waits far outside the noise
d = rows["fg wait read_io"]["diff"]["fgcfq"]
assert d["includes_zero"] is False and d["hi"] < 0, d
EOF

expect2() {
	"$bin" compare "$scn" --policies "baseline;expc" --repeat "$1" >/dev/null 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] && grep -q -- "--repeat" "$tmp/err" || { cat "$tmp/err"; fail "--repeat $1: exit $rc"; }
}
expect2 1
expect2 x
expect2 -3

# a scenario nothing seeded moves (a block replay, fixed times): the repetitions are one
# run, which compare says (stderr and the JSON) instead of printing a CI of zero width
for i in $(seq 0 20); do
	printf '  8,0    0 %8d %5d.%09d  100  Q   R %d + 8 [app]\n' $((i + 1)) 1 $((i * 1000000)) $((i * 8))
done > "$tmp/t.txt"
cat > "$tmp/fixed.yaml" <<YAML
name: fixed
device: {model: ideal, service: fixed, mean_us: 100, servers: 1}
scheduler: noop
workload: {type: replay, trace: $tmp/t.txt}
YAML
"$bin" compare "$tmp/fixed.yaml" --policies baseline --repeat 3 --quiet --out "$tmp/f.json" 2>"$tmp/ferr" ||
	fail "compare of a fixed replay"
grep -q "3 repetitions gave every set the same value of every metric" "$tmp/ferr" ||
	fail "no one-phase warning: $(cat "$tmp/ferr")"
python3 -c "import json,sys; assert 'fixed starts' in json.load(open(sys.argv[1]))['repeat_identical']" "$tmp/f.json" ||
	fail "no repeat_identical in the JSON"
"$bin" compare "$scn" --policies "baseline" --repeat 3 --quiet 2>"$tmp/lerr" >/dev/null || fail "launch-demo"
grep -q "same value of every metric" "$tmp/lerr" && fail "a seeded scenario warned of one phase"
# a synthetic launch at a fixed start: the advice names the task's start key, and
# drawing it as advised makes the repetitions differ; a sweep's repetitions say the same
f1=$src/configs/scenarios/thesis-fig01-launch.yaml
"$bin" compare "$f1" --policies baseline --repeat 2 --quiet --set run.until_s=3 2>"$tmp/ferr" >/dev/null ||
	fail "fig01 compare"
grep -q "draw a start, e.g. --set 'workload.tasks.photos.start={uniform: \[0s, 5s\]}'" "$tmp/ferr" ||
	fail "the advice names no start key: $(cat "$tmp/ferr")"
"$bin" compare "$f1" --policies baseline --repeat 2 --quiet --set run.until_s=3 \
	--set 'workload.tasks.photos.start={uniform: [0s, 5s]}' 2>"$tmp/ferr" >/dev/null || fail "fig01 drawn start"
grep -q "same value of every metric" "$tmp/ferr" && fail "a drawn start still warned of one phase"
cat >"$tmp/sw.yaml" <<YAML
base: $f1
set: {run.until_s: 3}
axes:
  policies: [[baseline], [expc]]
repetitions: 2
metrics:
  events: engine.events
YAML
"$bin" sweep "$tmp/sw.yaml" --out "$tmp/sw.out" -j 2 --quiet 2>"$tmp/serr" || fail "sweep"
grep -q "set: {workload.tasks.photos.start: {uniform: \[0s, 5s\]}}" "$tmp/serr" ||
	fail "sweep: no one-phase advice: $(cat "$tmp/serr")"
echo ok
