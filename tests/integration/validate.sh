#!/usr/bin/env bash
# `mobisim validate`: the fast subset (queueing theory, device presets) runs
# and passes where theory is exact; --doc replaces only the generated part of
# the document; --tsv has a row per check; a check far from its paper value
# is a MISS that exits 0, or 1 with --strict; ratio/change/diff/sum and the
# stats read the right summary-agg cells (a repeat: axis of known values);
# a bad validation file is an exit-2 error naming file:line before anything runs.
# What a row proves: every check has kind: prediction|fit|calibration, a fit
# or calibration names what was fitted, a file that fits a value has no
# predictions, and the summary counts predictions apart. Independent
# workloads: a check is computed per workload and the mean's CI is Student's
# t over the workloads (known values); side_by_side evaluates every check
# per value of an axis; at_max_of, nested operations and report stats read
# the right cells.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$src" || fail "cd"

cat >"$tmp/doc.md" <<'EOF'
# Validation
prose before
<!-- BEGIN mobisim validate (generated; do not edit by hand) -->
old table
<!-- END mobisim validate -->
prose after
EOF
"$bin" validate --fast -j 2 --doc "$tmp/doc.md" --tsv "$tmp/v.tsv" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "validate --fast exit $?"; }
grep -q "M/M/1 mean response W (us) .* pass" "$tmp/out" || { cat "$tmp/out"; fail "M/M/1 row"; }
grep -q "M/M/4 mean response W (us) .* pass" "$tmp/out" || { cat "$tmp/out"; fail "M/M/4 row"; }
grep -q "UFS 2.0 (Galaxy S6) random write 4 KiB" "$tmp/out" || fail "device row"
grep -q "thesis-fig01" "$tmp/out" && fail "--fast ran a slow file"
grep -q "old table" "$tmp/doc.md" && fail "--doc kept the old table"
grep -q "prose before" "$tmp/doc.md" && grep -q "prose after" "$tmp/doc.md" || fail "--doc lost the prose"
grep -q "| M/M/1 mean response W (us) | 200 |" "$tmp/doc.md" || { cat "$tmp/doc.md"; fail "doc row"; }
[ "$(head -1 "$tmp/v.tsv" | cut -f1-5)" = "$(printf 'file\tcheck\tunit\tpaper\tmodel')" ] || fail "tsv header"
[ "$(grep -c . "$tmp/v.tsv")" -eq "$(grep -c ' pass\| MISS' "$tmp/out")" ] || true
n=$(tail -n +2 "$tmp/v.tsv" | wc -l)
[ "$n" -eq 27 ] || fail "tsv has $n rows, want 27 (3 queueing + 20 device + 4 Pixel storage)"

# known values through a repeat: axis (the metric is the axis value itself)
mkdir -p "$tmp/val"
cat >"$tmp/val/known.yaml" <<EOF
name: known
source: constructed
sweep:
  base: $src/configs/scenarios/mm1.yaml
  set: {source.requests: 100}
  axes: {device.mean_us: [50, 100]}
  repeat: {source.rate_per_s: [1000, 2000, 6000]}
  metrics:
    rate: config.source.rate_per_s
    mu: config.device.mean_us
checks:
  - {name: mean, kind: prediction, paper: 3000, tolerance: 0, reason: exact, model: {metric: rate, where: {device.mean_us: 50}}}
  - {name: max, kind: prediction, paper: 6000, tolerance: 0, reason: exact, model: {metric: rate, where: {device.mean_us: 100}, stat: max}}
  - {name: ratio, kind: prediction, paper: 2, tolerance: 1e-9, reason: exact,
     model: {ratio: [{metric: mu, where: {device.mean_us: 100}}, {metric: mu, where: {device.mean_us: 50}}]}}
  - {name: change, kind: prediction, paper: 1, tolerance: 1e-9, reason: exact,
     model: {change: [{metric: mu, where: {device.mean_us: 100}}, {metric: mu, where: {device.mean_us: 50}}]}}
  - {name: sum, kind: prediction, paper: 150, tolerance: 1e-9, reason: exact,
     model: {sum: [{metric: mu, where: {device.mean_us: 100}}, {metric: mu, where: {device.mean_us: 50}}]}}
  - {name: far off, kind: prediction, paper: 1, tolerance: 10%, reason: a deliberate miss, model: {metric: rate, where: {device.mean_us: 50}, stat: min}}
EOF
"$bin" validate "$tmp/val" -j 2 >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "known: exit $?"; }
for c in mean max ratio change sum; do
	grep -Eq "^known +$c .* pass" "$tmp/out" || { cat "$tmp/out"; fail "known $c"; }
done
grep -Eq "^known +far off .* MISS" "$tmp/out" || { cat "$tmp/out"; fail "far off is not a miss"; }
grep -q "^5 of 6 predictions within tolerance (0 of 0 only by direction); 0 calibration points (0 within), 0 fits (0 within)" "$tmp/out" || { tail -2 "$tmp/out"; fail "count line"; }
"$bin" validate "$tmp/val/known.yaml" --strict --quiet 2>/dev/null
[ $? -eq 1 ] || fail "--strict with a miss does not exit 1"

cat >"$tmp/bad.yaml" <<'EOF'
name: bad
source: constructed
checks:
  - {name: x, kind: prediction, paper: 1, tolerance: 5%, model: {device: {preset: ../devices/ufs20.yaml}}}
EOF
"$bin" validate "$tmp/bad.yaml" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "bad.yaml:4:.*reason" "$tmp/err" || { cat "$tmp/err"; fail "missing reason: exit $rc"; }
# what a row proves: each rule is an exit-2 error at the check's line
dev="model: {device: {preset: $src/configs/devices/ufs20.yaml}}, reason: r"
bad() { # name, expected message, lines of the file after name: and source:
	local name=$1 want=$2
	shift 2
	{ echo "name: $name"; echo "source: constructed"; printf '%s\n' "$@"; } >"$tmp/$name.yaml"
	"$bin" validate "$tmp/$name.yaml" >/dev/null 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] && grep -qF "$want" "$tmp/err" && grep -q "$name.yaml:[0-9]*:[0-9]*: " "$tmp/err" ||
		{ cat "$tmp/err"; fail "$name: exit $rc, want 2 and '$want'"; }
}
bad nokind "needs kind: prediction, fit or calibration" "checks:" "  - {name: x, paper: 1, tolerance: 5%, $dev}"
bad badkind "kind: 'guess': expected prediction" "checks:" "  - {name: x, kind: guess, paper: 1, tolerance: 5%, $dev}"
bad predfitted "a prediction has nothing fitted to it" "checks:" \
	"  - {name: x, kind: prediction, fitted: prog_us to it, paper: 1, tolerance: 5%, $dev}"
bad calnofit "is a calibration: fitted: must name" "checks:" "  - {name: x, kind: calibration, paper: 1, tolerance: 5%, $dev}"
bad fitnofit "is a fit: fitted: must name" "checks:" "  - {name: x, kind: fit, paper: 1, tolerance: 5%, $dev}"
bad filefit "cannot be a prediction: this file's experiment has a fitted value (cpu fitted to the alone time)" \
	"fitted: [{value: cpu, target: the alone time}]" "checks:" \
	"  - {name: x, kind: calibration, fitted: a to b, paper: 1, tolerance: 5%, $dev}" \
	"  - {name: y, kind: prediction, paper: 1, tolerance: 5%, $dev}"
bad filefitbad "expected {value: KEY, target" "fitted: [{value: cpu}]" "checks:" \
	"  - {name: y, kind: prediction, paper: 1, tolerance: 5%, $dev}"
bad indepnosweep "independent: needs a sweep" "independent: {key: x}" "checks:" \
	"  - {name: y, kind: prediction, paper: 1, tolerance: 5%, $dev}"

# independent workloads, side by side, at_max_of, nested operations, stats
mkdir -p "$tmp/ind"
cat >"$tmp/ind/ind.yaml" <<EOF
name: ind
source: constructed
independent: {key: source.rate_per_s, what: rates}
side_by_side: {key: device.mean_us, labels: {50: fifty, 100: hundred}}
sweep:
  base: $src/configs/scenarios/mm1.yaml
  axes:
    device.mean_us: [50, 100]
    source.rate_per_s: [1000, 2000, 6000]
  repeat: {source.requests: [100, 200]}
  metrics:
    rate: config.source.rate_per_s
    mu: config.device.mean_us
    req: config.source.requests
checks:
  - {name: rate mean, kind: prediction, paper: 3000, tolerance: 0, reason: exact, model: {metric: rate}}
  - {name: rate max, kind: prediction, paper: 6000, tolerance: 0, reason: exact, across: max, model: {metric: rate}}
  - {name: mu, kind: prediction, paper: 50, tolerance: 0, reason: one column passes, model: {metric: mu}}
  - {name: nested, kind: prediction, paper: 0.6666666666667, tolerance: 1e-9, reason: exact,
     model: {ratio: [{diff: [{metric: req, stat: max}, {metric: req, stat: min}]}, {metric: req}]}}
  - {name: at max, kind: prediction, paper: 200, tolerance: 0, reason: exact,
     model: {metric: source.requests, at_max_of: req}}
  - {name: one workload, kind: prediction, paper: 2000, tolerance: 0, reason: no mean over workloads,
     model: {metric: rate, where: {source.rate_per_s: 2000}}}
  - {name: sign, kind: prediction, paper: -1, tolerance: sign, reason: a direction, model: {metric: mu}}
reports:
  - {name: spread, stats: [min, p50, max], model: {metric: req}, reason: stats of one cell}
  - {name: worst, stats: [max], worst_of: req, model: {metric: rate}, reason: the value in the run of largest req}
EOF
"$bin" validate "$tmp/ind" --tsv "$tmp/ind.tsv" --doc "$tmp/ind.md" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "ind: exit $?"; }
row() { awk -F'\t' -v c="$1" -v k="$2" '$2 == c && $11 == k' "$tmp/ind.tsv"; }
# mean 3000 over the three rates; CI = t(0.975, 2) * sd / sqrt(3) = 4.302653 * 2645.751 / 1.732051 = 6572.41
[ "$(row 'rate mean' 50 | cut -f5)" = 3000 ] || { cat "$tmp/ind.tsv"; fail "rate mean"; }
ci=$(row 'rate mean' 100 | cut -f6)
awk -v c="$ci" 'BEGIN { exit !(c > 6572.40 && c < 6572.42) }' || fail "CI over workloads $ci, want 6572.41"
[ "$(row 'rate mean' 100 | cut -f12)" = 3 ] || fail "workload count"
[ "$(row 'rate max' 50 | cut -f5,6)" = "$(printf '6000\tnan')" ] || { row 'rate max' 50; fail "across: max"; }
[ "$(row mu 50 | cut -f9)" = pass ] && [ "$(row mu 100 | cut -f9)" = miss ] || fail "side by side columns"
[ "$(row nested 50 | cut -f9)" = pass ] || { row nested 50; fail "nested ratio of a diff"; }
[ "$(row 'at max' 100 | cut -f9)" = pass ] || { row 'at max' 100; fail "at_max_of"; }
[ "$(row 'one workload' 50 | cut -f5,6,12)" = "$(printf '2000\tnan\t0')" ] ||
	{ row 'one workload' 50; fail "a check naming the workload is one value, no CI"; }
[ "$(row spread 50 | cut -f9,10)" = "$(printf 'reported\treport')" ] || fail "report row"
grep -q "| spread: min / p50 / max | 100 / 150 / 200 | 100 / 150 / 200 |" "$tmp/ind.md" || { cat "$tmp/ind.md"; fail "stats row"; }
grep -q "| worst: max / in the run of largest req | 1000 / 1000 | 1000 / 1000 |" "$tmp/ind.md" || { grep worst "$tmp/ind.md"; fail "worst_of"; }
grep -q "fifty: model (± 95 % CI) | error | result | hundred: model" "$tmp/ind.md" || fail "side-by-side header"
grep -q "mean over 3 independent workloads (rates" "$tmp/ind.md" || fail "doc says what the CI is over"
# a check counts once over its columns: mu passes in one only, sign in neither
grep -q "^5 of 7 predictions within tolerance (0 of 1 only by direction); 1 more pass in one variant only; 0 calibration points" "$tmp/out" ||
	{ tail -1 "$tmp/out"; fail "ind count line"; }
grep -q "^- fifty: 6 of 7 predictions" "$tmp/ind.md" || { grep fifty "$tmp/ind.md"; fail "per-column count"; }
grep -q "^- hundred: 5 of 7 predictions" "$tmp/ind.md" || { grep hundred "$tmp/ind.md"; fail "per-column count"; }
# the launch templates: every column of app-launch.yaml has one value per template, and the
# IORap templates' fitted values are those of app-launch-iorap.yaml (their one source)
python3 - "$src/configs/validation/templates" <<'PY' || fail "launch templates"
import re, sys
def cols(path):
    out = {}
    for line in open(path):
        m = re.match(r"^([\w.]+):\s*\[(.*)\]\s*$", line)
        if m:
            out[m.group(1)] = [v.strip() for v in m.group(2).split(",")]
    return out
a, b = cols(sys.argv[1] + "/app-launch.yaml"), cols(sys.argv[1] + "/app-launch-iorap.yaml")
n = len(a["description"])
bad = [k for k, v in a.items() if len(v) != n]
for i, name in enumerate(b["description"]):
    if name not in a["description"]:
        bad.append("template %s missing" % name)
        continue
    j = a["description"].index(name)
    bad += ["%s %s: %s here, %s in app-launch-iorap.yaml" % (name, k, a[k][j], v[i])
            for k, v in b.items() if k != "description" and a.get(k, [None] * n)[j] != v[i]]
if bad:
    sys.exit("; ".join(bad))
PY
echo ok
