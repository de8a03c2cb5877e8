#!/usr/bin/env bash
# A run's warnings (a trace reader's, an open loop's) are said by every
# command that runs simulations, once per source with how many runs had
# them, and kept in what the command writes: `run` (the result), `compare`
# (the document's "warnings", also with --repeat), `sweep` (OUT/warnings.txt,
# removed again when a rerun has none) and `trace stat`.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
key() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# the blktrace sample with its last record cut: read past with a warning
bt=$src/tests/data/blktrace-nvme-readahead/sample.blktrace.0
head -c $(($(stat -c %s "$bt") - 10)) "$bt" >"$tmp/cut.blktrace.0"
br=$src/configs/scenarios/block-replay.yaml
cut=(--set "workload.trace=$tmp/cut.blktrace.0" --quiet)
pat='warning: .*cut.blktrace.0: byte offset [0-9]*: last record cut'

"$bin" run "$br" "${cut[@]}" --out "$tmp/r.json" 2>"$tmp/run.err" || say "run exited $?"
[ "$(grep -c "^mobisim: $pat" "$tmp/run.err")" = 1 ] || say "run: $(cat "$tmp/run.err")"
[ "$(key "$tmp/r.json" "d['workload']['reader_warnings']['cut_last_records']")" = 1 ] ||
	say "run: the cut record is not in the result"

"$bin" compare "$br" "${cut[@]}" --policies 'baseline;boost' --out "$tmp/c.json" 2>"$tmp/cmp.err" ||
	say "compare exited $?"
[ "$(grep -c "$pat" "$tmp/cmp.err")" = 1 ] && grep -q "(2 of 2 runs, first set 'baseline')" "$tmp/cmp.err" ||
	say "compare: $(cat "$tmp/cmp.err")"
[ "$(key "$tmp/c.json" "d['warnings'][0]['runs']")" = 2 ] || say "compare: no warnings in the document"

"$bin" compare "$br" "${cut[@]}" --policies 'baseline;boost' --repeat 2 --out "$tmp/cr.json" 2>"$tmp/rep.err" ||
	say "compare --repeat exited $?"
[ "$(grep -c "$pat" "$tmp/rep.err")" = 1 ] && grep -q "(4 of 4 runs, first set 'baseline' repetition 1)" "$tmp/rep.err" ||
	say "compare --repeat: $(cat "$tmp/rep.err")"
[ "$(key "$tmp/cr.json" "d['warnings'][0]['runs']")" = 4 ] || say "compare --repeat: no warnings in the document"

cat >"$tmp/s.yaml" <<YAML
base: $br
set:
  workload.trace: $tmp/cut.blktrace.0
axes:
  scheduler: [noop, cfq]
YAML
"$bin" sweep "$tmp/s.yaml" -j 2 --out "$tmp/sw" 2>"$tmp/sw.err" || say "sweep exited $?"
[ "$(grep -c "$pat" "$tmp/sw.err")" = 1 ] && grep -q "(2 of 2 points, first 0000-" "$tmp/sw.err" ||
	say "sweep: $(cat "$tmp/sw.err")"
grep -q "last record cut.*(2 of 2 points" "$tmp/sw/warnings.txt" || say "sweep: no warnings.txt"
grep -q "cut" "$tmp/sw/summary.tsv" && say "sweep: warnings in summary.tsv"
# the same sweep over the whole trace: no warning, the stale file goes
sed -i "s|$tmp/cut.blktrace.0|$bt|" "$tmp/s.yaml"
"$bin" sweep "$tmp/s.yaml" -j 2 --out "$tmp/sw" 2>"$tmp/sw2.err" || say "clean sweep exited $?"
[ -s "$tmp/sw2.err" ] && say "clean sweep said: $(cat "$tmp/sw2.err")"
[ -e "$tmp/sw/warnings.txt" ] && say "clean sweep kept a stale warnings.txt"

"$bin" trace stat "$tmp/cut.blktrace.0" >/dev/null 2>"$tmp/stat.err" || say "trace stat exited $?"
[ "$(grep -c "$pat" "$tmp/stat.err")" = 1 ] || say "trace stat: $(cat "$tmp/stat.err")"
exit $fail
