#!/usr/bin/env bash
# `mobisim compare --plot` (and `sweep --plot`): latency CDFs drawn with gnuplot.
# Checks, on launch-demo with two policy sets: the PNG is a PNG (magic bytes);
# the data file beside it has, per block, non-decreasing CDF values from 0 to
# exactly 1, blocks for both sets and FG and BG, and counts matching the result;
# the script redraws the figure; the same run gives the same data and script;
# without gnuplot the data and script are written and the exit is 1; when
# gnuplot fails, or the run fails, nothing is left behind; a sweep draws one
# figure per point.
set -u
bin=$1 src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
scn=$src/configs/scenarios/launch-demo.yaml
sets="baseline;expc,boost"

# without gnuplot (an empty PATH): exit 1, a clear message, the data and script in place
mkdir "$tmp/empty" "$tmp/nogp"
PATH=$tmp/empty "$bin" compare "$scn" --policies "$sets" --quiet --plot "$tmp/nogp/c.png" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || { cat "$tmp/err"; fail "no gnuplot: exit $rc, expected 1"; }
grep -q "gnuplot not found" "$tmp/err" || { cat "$tmp/err"; fail "no gnuplot: message"; }
[ -s "$tmp/nogp/c.tsv" ] && [ -s "$tmp/nogp/c.gp" ] || fail "no gnuplot: data or script missing"
[ -e "$tmp/nogp/c.png" ] && fail "no gnuplot: a PNG was left"
[ "$(ls -A "$tmp/nogp" | sort | tr '\n' ' ')" = "c.gp c.tsv " ] || fail "no gnuplot: left $(ls -A "$tmp/nogp")"

# gnuplot that fails: nothing left, its message passed on
mkdir "$tmp/fake" "$tmp/bad"
printf '#!/bin/sh\necho "fake gnuplot: broken terminal" >&2\nexit 1\n' >"$tmp/fake/gnuplot"
chmod +x "$tmp/fake/gnuplot"
PATH=$tmp/fake "$bin" compare "$scn" --policies "$sets" --quiet --plot "$tmp/bad/c.png" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || { cat "$tmp/err"; fail "failing gnuplot: exit $rc, expected 1"; }
grep -q "gnuplot failed.*broken terminal" "$tmp/err" || { cat "$tmp/err"; fail "failing gnuplot: message"; }
[ -z "$(ls -A "$tmp/bad")" ] || fail "failing gnuplot left $(ls -A "$tmp/bad")"
# a failed run (bad input): nothing drawn, nothing left
"$bin" compare "$scn" --policies "$sets" --quiet --set device=nosuch --plot "$tmp/bad/c.png" 2>/dev/null
rc=$?
[ $rc -eq 2 ] || fail "bad scenario: exit $rc, expected 2"
[ -z "$(ls -A "$tmp/bad")" ] || fail "a failed run left $(ls -A "$tmp/bad")"
# a directory that does not exist: exit 1, nothing anywhere
"$bin" compare "$scn" --policies "$sets" --quiet --plot "$tmp/nosuch/c.png" 2>"$tmp/err"
rc=$?
[ $rc -ne 0 ] || fail "missing directory: exit 0"
[ -e "$tmp/nosuch" ] && fail "missing directory was created"

if ! command -v gnuplot >/dev/null; then
	echo "SKIP: gnuplot not installed (scripts/lib/deps.sh installs gnuplot-nox): PNG checks"
	exit 0
fi
mkdir "$tmp/ok"
"$bin" compare "$scn" --policies "$sets" --quiet --out "$tmp/ok/c.json" --plot "$tmp/ok/cdf.png" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "compare --plot"; }
[ "$(head -c 8 "$tmp/ok/cdf.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "cdf.png is not a PNG"
[ "$(ls -A "$tmp/ok" | sort | tr '\n' ' ')" = "c.json cdf.gp cdf.png cdf.tsv " ] ||
	fail "left in the directory: $(ls -A "$tmp/ok")"
check_data() { # TSV RESULT.json SETS...
	python3 - "$@" <<'PY' || exit 1
import json, sys
tsv, res, sets = sys.argv[1], sys.argv[2], sys.argv[3:]
blocks = [b for b in open(tsv).read().split("\n\n\n") if b.strip()]
runs = json.load(open(res))
runs = runs.get("runs", {sets[0]: runs})
seen = set()
for b in blocks:
    head = [l for l in b.splitlines() if l.startswith("# index ")]
    assert len(head) == 1, b[:200]
    what, label, n = head[0].split(": ", 1)[1].rsplit(", ", 2)
    cls, op = what.split()
    n = int(n[2:])
    rows = [l.split("\t") for l in b.splitlines() if l and not l.startswith("#")]
    x = [int(r[0]) for r in rows]
    cdf = [float(r[3]) for r in rows]
    cnt = [int(r[2]) for r in rows]
    assert all(a <= b for a, b in zip(cdf, cdf[1:])), f"{head[0]}: CDF decreases"
    assert all(a < b for a, b in zip(x, x[1:])), f"{head[0]}: latencies not increasing"
    assert cdf[-1] == 1.0 and rows[-1][3] == "1", f"{head[0]}: ends at {rows[-1][3]}"
    assert cnt[-1] == n, f"{head[0]}: last count {cnt[-1]} != n {n}"
    lat = runs[label]["classes"][cls][op]
    assert lat["count"] == n, f"{head[0]}: result count {lat['count']}"
    assert x[-1] == lat["lat_ns"]["max"], f"{head[0]}: last x {x[-1]} != max"
    if lat["lat_ns"]["min"] > 0:
        assert cdf[0] == 0 and x[0] == lat["lat_ns"]["min"] - 1, f"{head[0]}: first row"
    seen.add((cls, label))
for s in sets:
    for c in ("fg", "bg"):
        assert (c, s) in seen, f"no {c} curve for {s}: {sorted(seen)}"
PY
}
check_data "$tmp/ok/cdf.tsv" "$tmp/ok/c.json" baseline expc,boost || fail "data file"
grep -q "^if (!exists(\"data\")) data = 'cdf.tsv'" "$tmp/ok/cdf.gp" || fail "script does not read cdf.tsv"
# the script redraws the figure from its directory
(cd "$tmp/ok" && rm cdf.png && gnuplot cdf.gp 2>"$tmp/gperr") || { cat "$tmp/gperr"; fail "gnuplot cdf.gp"; }
[ -s "$tmp/ok/cdf.png" ] || fail "cdf.gp drew nothing"
# determinism: the same data and script, and the no-gnuplot data is the same too
mkdir "$tmp/ok2"
"$bin" compare "$scn" --policies "$sets" --quiet --plot "$tmp/ok2/cdf.png" 2>/dev/null || fail "second compare --plot"
cmp -s "$tmp/ok/cdf.tsv" "$tmp/ok2/cdf.tsv" && cmp -s "$tmp/ok/cdf.gp" "$tmp/ok2/cdf.gp" ||
	fail "a second run gave other data or script"
cmp -s "$tmp/ok/cdf.tsv" "$tmp/nogp/c.tsv" || fail "the no-gnuplot data differs"
# --plot does not change the result
"$bin" compare "$scn" --policies "$sets" --quiet --out "$tmp/c0.json" 2>/dev/null || fail "compare"
python3 - "$tmp/c0.json" "$tmp/ok/c.json" <<'PY' || fail "--plot changed the result"
import json, sys
def canon(d):
    if isinstance(d, dict):
        return {k: canon(v) for k, v in d.items() if k not in ("wall_s", "events_per_s", "peak_rss_kib")}
    if isinstance(d, list):
        return [canon(v) for v in d]
    return d
a, b = (canon(json.load(open(p))) for p in sys.argv[1:])
sys.exit(a != b)
PY
# --repeat pools every repetition's operations into its set's curve: the count is
# the sum of the repetitions' own (their seeds are in the JSON)
"$bin" compare "$scn" --policies "$sets" --quiet --repeat 2 --out "$tmp/rep.json" \
	--plot "$tmp/ok/rep.png" 2>/dev/null || fail "compare --repeat --plot"
want=0
for seed in $(python3 -c "import json,sys; print(*json.load(open(sys.argv[1]))['seeds'])" "$tmp/rep.json"); do
	"$bin" compare "$scn" --policies "$sets" --quiet --seed "$seed" --out "$tmp/s.json" 2>/dev/null ||
		fail "compare --seed $seed"
	want=$((want + $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs']['baseline']['classes']['fg']['read']['count'])" "$tmp/s.json")))
done
got=$(grep -m1 '^# index 0: fg read, baseline' "$tmp/ok/rep.tsv" | sed 's/.*n=//')
[ "$got" = "$want" ] || fail "--repeat 2 pooled $got fg reads, the repetitions had $want"

# sweep --plot DIR: one figure per point, named by its id
cat >"$tmp/sw.yaml" <<YAML
base: $scn
axes:
  policies: [[baseline], [expc]]
metrics:
  launch_s: {path: "regions[name=launch].duration_ns", scale: 1e-9}
YAML
"$bin" sweep "$tmp/sw.yaml" -j 2 --out "$tmp/sw.out" --plot "$tmp/swplot" --quiet 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "sweep --plot"; }
n=0
for id in $("$bin" sweep "$tmp/sw.yaml" --list | cut -f1); do
	[ "$(head -c 4 "$tmp/swplot/$id.png" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] ||
		fail "sweep: no PNG for point $id"
	check_data "$tmp/swplot/$id.tsv" "$tmp/sw.out/points/$id.json" "$id" || fail "sweep: data of $id"
	n=$((n + 1))
done
[ $n -eq 2 ] || fail "sweep: $n points listed"
[ "$(ls -A "$tmp/swplot" | wc -l)" -eq 6 ] || fail "sweep: left $(ls -A "$tmp/swplot")"
echo ok
