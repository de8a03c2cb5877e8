#!/usr/bin/env bash
# `mobisim validate`: the fast subset (queueing theory, device presets) runs
# and passes where theory is exact; --doc replaces only the generated part of
# the document; --tsv has a row per check; a check far from its paper value
# is a MISS that exits 0, or 1 with --strict; ratio/change/diff/sum and the
# stats read the right summary-agg cells (a repeat: axis of known values);
# a bad validation file is an exit-2 error naming file:line before anything runs.
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
  - {name: mean, paper: 3000, tolerance: 0, reason: exact, model: {metric: rate, where: {device.mean_us: 50}}}
  - {name: max, paper: 6000, tolerance: 0, reason: exact, model: {metric: rate, where: {device.mean_us: 100}, stat: max}}
  - {name: ratio, paper: 2, tolerance: 1e-9, reason: exact,
     model: {ratio: [{metric: mu, where: {device.mean_us: 100}}, {metric: mu, where: {device.mean_us: 50}}]}}
  - {name: change, paper: 1, tolerance: 1e-9, reason: exact,
     model: {change: [{metric: mu, where: {device.mean_us: 100}}, {metric: mu, where: {device.mean_us: 50}}]}}
  - {name: sum, paper: 150, tolerance: 1e-9, reason: exact,
     model: {sum: [{metric: mu, where: {device.mean_us: 100}}, {metric: mu, where: {device.mean_us: 50}}]}}
  - {name: far off, paper: 1, tolerance: 10%, reason: a deliberate miss, model: {metric: rate, where: {device.mean_us: 50}, stat: min}}
EOF
"$bin" validate "$tmp/val" -j 2 >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "known: exit $?"; }
for c in mean max ratio change sum; do
	grep -Eq "^known +$c .* pass" "$tmp/out" || { cat "$tmp/out"; fail "known $c"; }
done
grep -Eq "^known +far off .* MISS" "$tmp/out" || { cat "$tmp/out"; fail "far off is not a miss"; }
grep -q "5 of 6 checks" "$tmp/out" || fail "count line"
"$bin" validate "$tmp/val/known.yaml" --strict --quiet 2>/dev/null
[ $? -eq 1 ] || fail "--strict with a miss does not exit 1"

cat >"$tmp/bad.yaml" <<'EOF'
name: bad
source: constructed
checks:
  - {name: x, paper: 1, tolerance: 5%, model: {device: {preset: ../devices/ufs20.yaml}}}
EOF
"$bin" validate "$tmp/bad.yaml" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "bad.yaml:4:.*reason" "$tmp/err" || { cat "$tmp/err"; fail "missing reason: exit $rc"; }
echo ok
