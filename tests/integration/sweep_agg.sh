#!/usr/bin/env bash
# summary-agg.tsv and repeat: axes (sweep statistics). Checks: a repeat:
# axis whose values are the metric itself gives the known mean, sd,
# t-interval and percentiles through the whole pipeline; the aggregate has
# one row per assignment of the ordinary axes and gnuplot's columnheader
# names; M/M/1 repetitions put the theoretical mean response time
# 1/(mu - lambda) inside the 95 % interval, which is narrow; a filter on a
# repeat: key is an exit-2 error naming the line.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# column NAME of row ROW (1 = first data row) of a TSV with a plain header
col() {
	awk -F'\t' -v name="$2" -v row="$3" \
		'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		 NR == row + 1 { if (!c) exit 1; print $c }' "$1"
}
near() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol) }'; }

cat >"$tmp/known.yaml" <<EOF
base: $src/configs/scenarios/mm1.yaml
set: {source.requests: 200}
axes:
  device.mean_us: [50, 100]
repeat:
  source.rate_per_s: [1000, 2000, 6000]
metrics:
  rate: config.source.rate_per_s
EOF
"$bin" sweep "$tmp/known.yaml" -j 2 --quiet --out "$tmp/k" || fail "known sweep"
agg=$tmp/k/summary-agg.tsv
[ "$(wc -l <"$agg")" -eq 3 ] || { cat "$agg"; fail "want a header and 2 groups"; }
head -1 "$agg" | grep -q $'^group\tdevice.mean_us\tn\trate.mean\trate.sd\trate.ci95' ||
	fail "header: $(head -1 "$agg")"
head -1 "$agg" | grep -q 'source.rate_per_s' && fail "the repeat key is a column of the aggregate"
[ "$(col "$agg" n 2)" = 3 ] || fail "n = $(col "$agg" n 2)"
[ "$(col "$agg" device.mean_us 2)" = 100 ] || fail "second group is not 1/mu = 100"
# values 1000 2000 6000: mean 3000, sd sqrt(7e6), t_{.975,2} = 4.302653
near "$(col "$agg" rate.mean 1)" 3000 1e-6 || fail "mean $(col "$agg" rate.mean 1)"
near "$(col "$agg" rate.sd 1)" 2645.75131106 1e-4 || fail "sd $(col "$agg" rate.sd 1)"
near "$(col "$agg" rate.ci95 1)" "$(awk 'BEGIN { print 4.30265272975 * sqrt(7e6) / sqrt(3) }')" 1e-2 ||
	fail "ci95 $(col "$agg" rate.ci95 1)"
near "$(col "$agg" rate.p50 1)" 2000 0 || fail "p50"
near "$(col "$agg" rate.p95 1)" 5600 1e-6 || fail "p95 $(col "$agg" rate.p95 1)" # 2000 + 0.9 * 4000
near "$(col "$agg" rate.max 2)" 6000 0 || fail "max"
# the plain summary keeps a row per point with the repeat key
[ "$(grep -vc '^#' "$tmp/k/summary.tsv")" -eq 6 ] || fail "summary.tsv rows"
if command -v gnuplot >/dev/null; then
	gnuplot -e "set datafile separator '\t'; set term dumb; set key autotitle columnheader;
		plot '$agg' using 2:(column('rate.mean')):(column('rate.ci95')) with yerrorbars" \
		>/dev/null 2>"$tmp/gp.err" || { cat "$tmp/gp.err"; fail "gnuplot columnheader"; }
	grep -qi "warning\|error" "$tmp/gp.err" && { cat "$tmp/gp.err"; fail "gnuplot complains"; }
fi

# M/M/1, lambda = 5000/s, 1/mu = 100 us: W = 200 us
cat >"$tmp/mm1.yaml" <<EOF
base: $src/configs/scenarios/mm1.yaml
set: {source.requests: 20000}
repetitions: 12
metrics:
  mean_us: {path: classes.fg.read.lat_ns.mean, scale: 1e-3}
EOF
"$bin" sweep "$tmp/mm1.yaml" -j 2 --quiet --out "$tmp/m" || fail "mm1 sweep"
agg=$tmp/m/summary-agg.tsv
lo=$(col "$agg" mean_us.ci_lo 1) hi=$(col "$agg" mean_us.ci_hi 1) hw=$(col "$agg" mean_us.ci95 1)
awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo <= 200 && 200 <= hi) }' ||
	fail "M/M/1: W = 200 us outside the 95 % CI [$lo, $hi]"
awk -v hw="$hw" 'BEGIN { exit !(hw > 0 && hw < 10) }' || fail "M/M/1: CI half-width $hw us"
[ "$(col "$agg" n 1)" = 12 ] || fail "M/M/1: n"

cat >"$tmp/bad.yaml" <<EOF
base: $src/configs/scenarios/mm1.yaml
axes: {device.mean_us: [50, 100]}
repeat: {source.rate_per_s: [1000, 2000]}
exclude_points:
  - {source.rate_per_s: 1000}
EOF
"$bin" sweep "$tmp/bad.yaml" --count >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "bad.yaml:5:.*repeat: axis" "$tmp/err" || { cat "$tmp/err"; fail "filter on a repeat key: exit $rc"; }
echo ok
