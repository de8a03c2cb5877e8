#!/usr/bin/env bash
# A wrong metric path is an error before any point runs (issue 28): exit 2,
# one line with the sweep file's line, the path and the nearest valid keys
# or values, and no point written; the same for `sensitivity --metric`.
# Every shipped sweep's metrics pass the check, and the Fig. 1 sweep writes
# no NaN (an absent wait is a zero there: `missing: 0`).
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

one_error() { # one_error PATTERN OUT_DIR -- command...
	local pat=$1 dir=$2
	shift 3
	local out rc
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 2 ] || say "'$*' exited $rc, wanted 2: $out"
	grep -Eq -- "$pat" <<<"$out" || say "'$*': '$out' does not match /$pat/"
	[ "$(wc -l <<<"$out")" -eq 1 ] || say "'$*': wanted one line, got: $out"
	[ ! -e "$dir/points" ] || say "'$*' ran points before failing"
}

cat >"$tmp/typo.yaml" <<EOT
base: $src/configs/scenarios/mm1.yaml
axes:
  source.requests: [100, 200]
metrics:
  p99: classes.fg.read.lat_ns.p99
  mean_ms: {path: classes.fg.read.lat_ns.meen, scale: 1e-6}
EOT
one_error "typo.yaml:6:[0-9]+: .*'classes\.fg\.read\.lat_ns\.meen' is not in the result: classes\.fg\.read\.lat_ns has no key 'meen' \(nearest: mean" \
	"$tmp/o1" -- "$bin" sweep "$tmp/typo.yaml" --out "$tmp/o1"
# --point too: nothing runs
one_error "lat_ns has no key 'meen'" "$tmp/o1" -- "$bin" sweep "$tmp/typo.yaml" --point 0 --out "$tmp/o1"

# a selector value: the nearest values of that field
sed -i 's|^  mean_ms:.*|  j: "waits[cause=jounral,class=fg].total_ns"|' "$tmp/typo.yaml"
one_error "no element of waits has cause=jounral \(nearest: journal" "$tmp/o2" -- \
	"$bin" sweep "$tmp/typo.yaml" --out "$tmp/o2"
# an object is not a number
sed -i 's|^  j:.*|  j: classes.fg.read|' "$tmp/typo.yaml"
one_error "classes\.fg\.read is an object, not a number \(keys: count" "$tmp/o3" -- \
	"$bin" sweep "$tmp/typo.yaml" --out "$tmp/o3"

# sensitivity: before any run
one_error "--metric 'classes\.fg\.read\.lat_ns\.p99x' is not in the result: .*nearest: p99" "$tmp/s" -- \
	"$bin" sensitivity "$src/configs/scenarios/mm1.yaml" --metric classes.fg.read.lat_ns.p99x \
	--params device.mean_us --out "$tmp/s"
[ ! -e "$tmp/s" ] || say "sensitivity with a wrong --metric wrote $tmp/s"

# a sum of paths: each term checked (the wrong one named), values added
cat >"$tmp/sum.yaml" <<EOT
base: $src/configs/scenarios/mm1.yaml
axes:
  source.requests: [100]
metrics:
  p50: classes.fg.read.lat_ns.p50
  p99: classes.fg.read.lat_ns.p99
  both: "classes.fg.read.lat_ns.p50 + classes.fg.read.lat_ns.p99"
  absent: {path: "waits[cause=journal,class=fg].total_ns + waits[cause=journal_ordered,class=fg].total_ns", missing: 0}
EOT
"$bin" sweep "$tmp/sum.yaml" --out "$tmp/sum" >/dev/null 2>"$tmp/sum.err" || say "sum sweep: $(cat "$tmp/sum.err")"
python3 - "$tmp/sum/summary.tsv" <<'PY' || say "sum metric: $(cat "$tmp/sum/summary.tsv")"
import csv, sys
r = next(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
assert abs(float(r["both"]) - float(r["p50"]) - float(r["p99"])) <= 1e-6 * float(r["both"]), r
assert float(r["absent"]) == 0, r
PY
sed -i 's|^  both:.*|  both: "classes.fg.read.lat_ns.p50 + classes.fg.read.lat_ns.meen"|' "$tmp/sum.yaml"
one_error "sum.yaml:7:[0-9]+: .*'classes\\.fg\\.read\\.lat_ns\\.meen' is not in the result: .*nearest: mean" "$tmp/o5" -- \
	"$bin" sweep "$tmp/sum.yaml" --out "$tmp/o5"

# every shipped sweep passes the check (an out-of-range --point fails after it)
for f in "$src"/configs/sweeps/*.yaml; do
	out=$("$bin" sweep "$f" --point 99999999 --out "$tmp/x" 2>&1)
	grep -q -- "--point 99999999: the sweep has points" <<<"$out" || say "$(basename "$f"): $out"
done

# the Fig. 1 sweep: FG alone writes numbers, not NaN, and no warning
"$bin" sweep "$src/configs/sweeps/thesis-fig01.yaml" --point 0 --out "$tmp/f1" 2>"$tmp/f1.err" ||
	say "fig01 point 0: $(cat "$tmp/f1.err")"
"$bin" sweep "$src/configs/sweeps/thesis-fig01.yaml" --collect "$tmp/f1" --out "$tmp/f1c" 2>"$tmp/f1c.err"
grep -q "NaN" "$tmp/f1c.err" && say "fig01 collect warns: $(grep NaN "$tmp/f1c.err")"
row=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c["fg_journal_s"] }' "$tmp/f1c/summary.tsv")
# FG alone waits for the journal only in its SharedPreferences fsync (a new
# inode's commit, no BG data to wait for): a number of milliseconds, not NaN
python3 -c "import sys; v = float(sys.argv[1]); sys.exit(0 if 0 <= v < 0.05 else 1)" "$row" ||
	say "fig01 FG-only fg_journal_s is '$row', wanted a number under 0.05 s"

exit $fail
