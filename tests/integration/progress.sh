#!/usr/bin/env bash
# Progress line: nothing on stderr when it is not a terminal; with
# MOBISIM_PROGRESS=1 a carriage-return line with simulated time and
# events/s (and an ETA when run.until bounds the run), cleared at the end;
# the result is the same bytes with and without it.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
scn="$src/configs/scenarios/launch-demo.yaml"
"$bin" run "$scn" --quiet --out "$tmp/a.json" 2>"$tmp/a.err" || fail "plain run"
[ -s "$tmp/a.err" ] && { cat "$tmp/a.err"; fail "stderr not empty without a terminal"; }
MOBISIM_PROGRESS=1 "$bin" run "$scn" --quiet --out "$tmp/b.json" --set run.until_s=0.2s 2>"$tmp/b.err" ||
	fail "run with progress"
grep -q $'^\rmobisim: simulated .* M events/s, .* elapsed, ETA ' "$tmp/b.err" || { od -c "$tmp/b.err" | head; fail "no progress line with ETA"; }
tail -c 4 "$tmp/b.err" | od -c | grep -q '\\r 033   \[   K' || fail "line not cleared at the end"
MOBISIM_PROGRESS=1 "$bin" run "$scn" --quiet --out "$tmp/c.json" 2>/dev/null || fail "run"
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("engine"); print(json.dumps(d, sort_keys=True))' "$1"; }
[ "$(strip "$tmp/a.json")" = "$(strip "$tmp/c.json")" ] || fail "progress changed the result"
echo ok
