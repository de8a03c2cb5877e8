#!/usr/bin/env bash
# --uncertainty on the M/M/1 reference: a validation file whose scenario
# assumes 1/mu in [80, 120] us gets W's median and 5-95 % interval, which
# must lie inside the closed forms' span (1/(mu - lambda) at the ends:
# 133-300 us), hold the published 200 us (consistent), be wider than the
# 2 % band (not informative) and credit the service time with the variance;
# the same seed gives the same bytes, another seed another design;
# compare --uncertainty reports the band per set; sensitivity --list shows
# the range and its reason; bad values exit 2.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat >"$tmp/scn.yaml" <<YAML
include: $src/configs/scenarios/mm1.yaml
source: {requests: 4000}
assumptions:
  device.mean_us: {range: [80, 120], reason: "test: a flash read of 80-120 us"}
YAML
cat >"$tmp/v.yaml" <<YAML
name: uq
title: test
source: closed form
sweep:
  base: $tmp/scn.yaml
  metrics:
    w_us: {path: classes.fg.read.lat_ns.mean, scale: 1e-3}
checks:
  - name: M/M/1 W
    kind: prediction
    unit: us
    paper: 200
    model: {metric: w_us}
    tolerance: 2%
    reason: test
YAML
"$bin" validate "$tmp/v.yaml" --uncertainty 8 -j 2 --work "$tmp/w" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "validate --uncertainty"; }
line=$(grep '^M/M/1 W' "$tmp/out" | tail -1)
[ -n "$line" ] || { cat "$tmp/out"; fail "no interval row"; }
read -r med lo hi c i share <<<"$(echo "$line" | sed -E 's/.* ([0-9.]+) \[([0-9.]+), ([0-9.]+)\] +([yn]) ([yn])  device.mean_us ([0-9]+) %.*/\1 \2 \3 \4 \5 \6/')"
awk -v m="$med" -v l="$lo" -v h="$hi" 'BEGIN { exit !(l >= 120 && h <= 330 && l < m && m < h) }' ||
	fail "interval $lo $med $hi outside 1/(mu - lambda) over [80, 120] us: $line"
[ "$c" = y ] && [ "$i" = n ] || fail "consistent/informative: $line"
[ "$share" -ge 80 ] || fail "service time share $share %: $line"
grep -q '^one set-up: predictions 1 consistent, 0 informative, of 1' "$tmp/out" || fail "counts: $(tail -2 "$tmp/out")"
[ "$(wc -l <"$tmp/w/uq.uq-design.tsv")" = 9 ] || fail "design file"
"$bin" validate "$tmp/v.yaml" --uncertainty 8 -j 2 --quiet --work "$tmp/w2" --tsv "$tmp/t2" 2>/dev/null || fail "rerun"
cmp -s "$tmp/w/uq.uq-design.tsv" "$tmp/w2/uq.uq-design.tsv" || fail "same seed, another design"
"$bin" validate "$tmp/v.yaml" --uncertainty 8 --uq-seed 9 -j 2 --quiet --work "$tmp/w3" 2>/dev/null || fail "seed 9"
! cmp -s "$tmp/w/uq.uq-design.tsv" "$tmp/w3/uq.uq-design.tsv" || fail "--uq-seed does not move the design"
"$bin" validate "$tmp/v.yaml" --uncertainty 0 >/dev/null 2>&1; [ $? = 2 ] || fail "--uncertainty 0 accepted"
"$bin" validate "$tmp/v.yaml" --uncertainty 4 --design grid >/dev/null 2>&1; [ $? = 2 ] || fail "--design grid accepted"

# design rows whose values the build refuses (cv below 0) are failed rows: named with their
# values on stderr, left out of the interval with a count, and the rest still run (exit 0)
cat >"$tmp/scnf.yaml" <<YAML
include: $src/configs/scenarios/mm1.yaml
source: {requests: 2000}
device: {service: gamma}
assumptions:
  device.mean_us: {range: [80, 120], reason: "test"}
  device.cv: {range: [-1.0, 1.0], reason: "test: below 0 the build refuses"}
YAML
sed "s|$tmp/scn.yaml|$tmp/scnf.yaml|" "$tmp/v.yaml" > "$tmp/vf.yaml"
"$bin" validate "$tmp/vf.yaml" --uncertainty 8 -j 2 --work "$tmp/wf" >"$tmp/fout" 2>"$tmp/ferr" ||
	{ cat "$tmp/ferr"; fail "validate --uncertainty with refused rows: exit $?"; }
nbad=$(awk -F'\t' 'NR > 1 && $3 + 0 < 0' "$tmp/wf/uq.uq-design.tsv" | wc -l)
[ "$nbad" -ge 1 ] && [ "$nbad" -lt 8 ] || fail "the design has $nbad refused rows of 8: the test proves nothing"
[ "$(grep -c 'design row [0-9]* (device.mean_us=[0-9.]*, device.cv=-[0-9.]*): 1 of 1 runs failed, left out' "$tmp/ferr")" = "$nbad" ] ||
	{ cat "$tmp/ferr"; fail "not one message with its values per refused row"; }
grep -q "($((8 - nbad)) of 8 rows)" "$tmp/fout" || { cat "$tmp/fout"; fail "the interval does not say over how many rows"; }
grep -q "uq: $nbad of 8 design rows had a failed run" "$tmp/fout" || fail "no count of failed rows"

"$bin" compare "$tmp/scn.yaml" --policies "baseline;expc" --uncertainty 4 -o "$tmp/c.json" \
	>"$tmp/cout" 2>/dev/null || fail "compare --uncertainty"
[ "$(jq '.design | length' "$tmp/c.json")" = 4 ] || fail "compare design rows"
jq -e '.table[] | select(.metric == "fg read p50") | .values.baseline.lo < .values.baseline.hi' \
	"$tmp/c.json" >/dev/null || fail "compare: no band for fg read p50"
"$bin" compare "$src/configs/scenarios/mm1.yaml" --policies "baseline;expc" --uncertainty 4 \
	>/dev/null 2>"$tmp/cerr"; [ $? = 2 ] && grep -q "declares no assumptions" "$tmp/cerr" ||
	fail "compare without assumptions: $(cat "$tmp/cerr")"

"$bin" sensitivity "$tmp/scn.yaml" --list >"$tmp/list" || fail "--list"
grep -q $'^device.mean_us\t100\tus\tassumed\t.*\t\\[80, 120\\]\ttest: a flash read' "$tmp/list" ||
	{ grep mean_us "$tmp/list"; fail "--list lacks the range"; }
echo ok
