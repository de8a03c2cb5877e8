#!/usr/bin/env bash
# A policy with nothing to act on is said, not silently accepted (issue 28):
# on a block-level replay (no page cache, file system or tasks) expc and
# boost leave every number as the baseline's; run and compare warn, naming
# the policy and why, and compare's --out document carries the warning. A
# policy that acted there (fgcfq in the scheduler) gets no such warning.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
why='it acts above the block layer \(page cache, file system, tasks\), which this scenario does not have'

"$bin" run block-replay --set policies=expc --quiet 2>"$tmp/run.err" || say "run: $(cat "$tmp/run.err")"
grep -Eq "^mobisim: warning: policy expc had nothing to act on: $why" "$tmp/run.err" ||
	say "run expc on block replay: '$(cat "$tmp/run.err")'"

"$bin" compare block-replay --policies "baseline;expc;boost;fgcfq" --out "$tmp/c.json" \
	>"$tmp/c.out" 2>"$tmp/c.err" || say "compare: $(cat "$tmp/c.err")"
for p in expc boost; do
	grep -Eq "^mobisim: warning: policy $p had nothing to act on: $why.* \(1 of 4 runs, first set '$p'\)" "$tmp/c.err" ||
		say "compare does not say $p had nothing to act on: '$(cat "$tmp/c.err")'"
done
grep -q "policy fgcfq" "$tmp/c.err" && say "fgcfq acted but was warned about: $(cat "$tmp/c.err")"
python3 - "$tmp/c.json" <<'PY' || say "compare --out lacks the warning"
import json, sys
d = json.load(open(sys.argv[1]))
w = [x["warning"] for x in d.get("warnings", [])]
sys.exit(0 if any(s.startswith("policy expc had nothing to act on") for s in w) else 1)
PY
# the numbers are the baseline's indeed (what the warning explains)
grep -E '^fg read p99 ' "$tmp/c.out" | grep -q ' (+0.0%) .* (+0.0%) ' || say "expc/boost changed fg read p99: $(grep '^fg read p99' "$tmp/c.out")"

# applied, yet every counter 0: said too
"$bin" run launch-demo --set policies=boost --quiet 2>"$tmp/b.err"
grep -q "policy boost had nothing to act on: its counters are all 0 (nothing in this run triggered it)" "$tmp/b.err" ||
	say "boost on launch-demo: '$(cat "$tmp/b.err")'"
exit $fail
