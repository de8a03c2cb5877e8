#!/bin/bash
# The sweep's point index (OUT/points-index.jsonl, sim/cli/sweep_index.c) is
# a cache the summary and --resume read instead of parsing each point file;
# it must never give a row the point file would not. A 12-point M/M/1 sweep,
# then each way the index can go stale, each followed by --resume (which
# runs nothing and writes the summary) and a check against the summary made
# with no index at all:
#   1. the index removed: the same summary, from the point files;
#   2. a torn last line and a garbage line: the same summary;
#   3. a point file rewritten with another value (as a user's edit, or a
#      --point --force rerun would): its row follows the file, not the index;
#   4. a metric's scale changed in the sweep file: every row follows the
#      new spec;
#   5. a hand-edited index line of the wrong shape: not used;
#   6. a point file removed: that point runs again and is in the summary.
# usage: sweep_index.sh MOBISIM_BIN SRC_DIR
set -u
BIN=${1:?mobisim binary}
SRC=$(cd "${2:?source dir}" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
cd "$TMP" || exit 1
mk() {
	cat > s.yaml <<EOF
base: $SRC/configs/scenarios/mm1.yaml
set:
  source.requests: 200
axes:
  source.rate_per_s: {range: {from: 1000, to: 6000, step: 1000}}
  device.mean_us: [50, 100]
metrics:
  mean_us: {path: classes.fg.read.lat_ns.mean, scale: $1}
  n: classes.fg.read.lat_ns.N
EOF
}
mk 1e-3
"$BIN" sweep s.yaml -j 2 -o o --quiet 2>/dev/null || err "the sweep failed"
[ -s o/points-index.jsonl ] || err "no index after a sweep"
[ "$(grep -c '"id"' o/points-index.jsonl)" = 12 ] || err "the index has $(grep -c '"id"' o/points-index.jsonl) rows, not 12"
[ "$(ls o/points | grep -vc '\.json$')" = 0 ] || err "points/ holds more than point files: $(ls o/points)"
cp o/summary.tsv first.tsv
# the summary from the point files alone
noindex() { rm -f o/points-index.jsonl; "$BIN" sweep s.yaml -j 2 -o o --resume --quiet 2>/dev/null; cp o/summary.tsv "$1"; }
resume() { "$BIN" sweep s.yaml -j 2 -o o --resume --quiet 2>/dev/null || err "$1: --resume failed"; }

cp o/points-index.jsonl keep
noindex plain.tsv
cmp -s first.tsv plain.tsv || err "1: the summary from the index differs from the one from the point files"
[ -e o/points-index.jsonl ] && err "1: --resume with nothing to run wrote an index"

cp keep o/points-index.jsonl
printf 'garbage {\n{"id": "0000' >> o/points-index.jsonl
resume 2
cmp -s first.tsv o/summary.tsv || err "2: a torn index line changed the summary"

cp keep o/points-index.jsonl
f=$(ls o/points/*.json | sed -n 3p)
id=$(basename "$f" .json)
sleep 0.01
sed -i 's/"N": 200,/"N": 199,/' "$f"
grep -q '"N": 199,' "$f" || err "3: could not edit $f"
resume 3
row=$(grep "^$id" o/summary.tsv | cut -f5)
[ "$row" = 199 ] || err "3: the row of an edited point file says n = '$row', not 199 (a stale index row)"
cp o/points-index.jsonl keep3
noindex edited.tsv
cmp -s o/summary.tsv edited.tsv || err "3: summary differs from the point files'"

cp keep3 o/points-index.jsonl
mk 1e-6
resume 4
noindex rescaled.tsv
cp keep3 o/points-index.jsonl
resume 4
cmp -s o/summary.tsv rescaled.tsv || err "4: a changed metric scale did not reach every row"
cmp -s o/summary.tsv edited.tsv && err "4: the scale change had no effect (the check cannot see it)"

mk 1e-3
cp keep3 o/points-index.jsonl
# a valid line for point 0 under the current spec, with one metric too few
line=$(grep -m1 '"id":"0000' keep3 | sed 's/"metrics":\["[^"]*",/"metrics":[/')
printf '\n%s\n' "$line" >> o/points-index.jsonl
resume 5
cmp -s o/summary.tsv edited.tsv || err "5: an index line of the wrong shape was used"

rm -f "$f"
"$BIN" sweep s.yaml -j 2 -o o --resume --quiet 2>/dev/null || err "6: --resume failed"
[ -f "$f" ] || err "6: the removed point did not run again"
cmp -s o/summary.tsv first.tsv || err "6: after rerunning the removed point the summary is not the first one"
exit $fail
