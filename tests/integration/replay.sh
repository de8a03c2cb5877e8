#!/usr/bin/env bash
# Block replay from the CLI: the bundled *replay*.yaml
# scenarios run on the TPC-C sample and say which replay ran; --set
# replay=open|closed and --set workload.trace=FILE switch them (format
# detected from content: the shared blktrace sample and an ftrace text);
# a broken trace exits 2 naming file:line; calibrate, when the CLI has
# it, fits a table device that a replay scenario accepts.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
key() { # key FILE PYTHON-EXPR
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

for sc in block-replay device-replay; do
	"$bin" run "$src/configs/scenarios/$sc.yaml" --quiet --out "$tmp/$sc.json" || say "$sc exited $?"
done
[ "$(key "$tmp/block-replay.json" "d['mobisim']['replay']")" = closed ] || say "block-replay is not closed loop"
[ "$(key "$tmp/device-replay.json" "d['mobisim']['replay']")" = open ] || say "device-replay is not open loop"
[ "$(key "$tmp/block-replay.json" "d['workload']['ios_injected']")" = 6999 ] || say "TPC-C: not 6999 I/Os injected"
p50=$(key "$tmp/block-replay.json" "d['classes']['fg']['read']['lat_ns']['p50']")
[ "$p50" -gt 0 ] 2>/dev/null || say "TPC-C: no read p50 ($p50)"

"$bin" run "$src/configs/scenarios/block-replay.yaml" --set replay=open --quiet --out "$tmp/o.json" ||
	say "--set replay=open exited $?"
[ "$(key "$tmp/o.json" "d['mobisim']['replay']")" = open ] || say "--set replay=open ignored"

# ftrace text as a block trace
cat >"$tmp/t.trace" <<'TR'
# tracer: nop
  app-100 (  100) [000] ..... 10.000000: block_bio_queue: 179,0 R 2048 + 8 [app]
  app-100 (  100) [000] ..... 10.000010: block_rq_issue: 179,0 R 4096 () 2048 + 8 [app]
  <idle>-0 (    0) [000] d.h1. 10.000200: block_rq_complete: 179,0 R () 2048 + 8 [0]
  app-100 (  100) [000] ..... 10.000300: block_bio_queue: 179,0 R 4096 + 8 [app]
TR
"$bin" run "$src/configs/scenarios/device-replay.yaml" --set "workload.trace=$tmp/t.trace" --quiet \
	--out "$tmp/f.json" || say "ftrace replay exited $?"
[ "$(key "$tmp/f.json" "d['workload']['format']")" = ftrace ] || say "ftrace not detected"
[ "$(key "$tmp/f.json" "d['workload']['ios_injected']")" = 2 ] || say "ftrace: not 2 I/Os"

shared=$src/tests/data/blktrace-nvme-readahead/sample.blktrace.0
"$bin" run "$src/configs/scenarios/block-replay.yaml" --set "workload.trace=$shared" --quiet \
	--out "$tmp/b.json" || say "blktrace replay exited $?"
[ "$(key "$tmp/b.json" "d['workload']['ios_injected']")" = 963 ] || say "blktrace: not 963 I/Os"

# broken input: exit 2, one message naming file:line
printf '# tracer: nop\n  app-1 [000] .... 1.0: block_bio_queue: 8,0 R 8 + 8 [a]\nnot an event\n' >"$tmp/bad.trace"
out=$("$bin" run "$src/configs/scenarios/block-replay.yaml" --set "workload.trace=$tmp/bad.trace" \
	--quiet --out "$tmp/bad.json" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] || say "broken trace exited $rc, wanted 2: $out"
grep -q "bad.trace:3:" <<<"$out" || say "broken trace message does not name line 3: $out"
[ ! -e "$tmp/bad.json" ] || say "a result was written for a broken trace"
"$bin" run "$src/configs/scenarios/block-replay.yaml" --set "workload.trace=$tmp/none" --quiet \
	>/dev/null 2>&1
[ $? -eq 2 ] || say "missing trace did not exit 2"

# calibrate -> table device -> replay
if "$bin" calibrate --help >/dev/null 2>&1 && [ -r "$shared" ]; then
	"$bin" calibrate "$shared" -o "$tmp/dev.yaml" || say "calibrate exited $?"
	grep -q '^model: table' "$tmp/dev.yaml" || say "calibrate: no model: table"
	"$bin" run "$src/configs/scenarios/device-replay.yaml" --set "device=$tmp/dev.yaml" \
		--set "workload.trace=$shared" --quiet --out "$tmp/c.json" || say "replay on calibrated device exited $?"
else
	echo "note: calibrate not dispatched by this mobisim or no shared sample; skipped"
fi
exit $fail
