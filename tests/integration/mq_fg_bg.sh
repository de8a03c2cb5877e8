#!/usr/bin/env bash
# blk-mq schedulers on configs/scenarios/mq-fg-bg.yaml (a foreground random
# 4 KiB reader against a background buffered writer, UFS 3.1, Linux 6.1
# blk-mq): run it under none, mq-deadline, kyber and bfq (and bfq without
# low_latency), and assert directions: BFQ with low_latency gives the
# reader a lower mean and p99 latency than none, at least 2x and 5x, and
# than BFQ without low_latency; BFQ holds the writer back (its mean write
# latency rises); every run completes all 1024 reads; an mq scheduler on
# the single-queue path is refused with exit 2; a run is deterministic.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scn="$src/configs/scenarios/mq-fg-bg.yaml"

run() { # name, then --set arguments
	local name=$1; shift
	if ! "$bin" run "$scn" "$@" --quiet --out "$tmp/$name.json" >/dev/null; then
		echo "FAIL: mobisim run $scn $*"
		exit 1
	fi
}
run none --set scheduler=none
run mq-deadline --set scheduler=mq-deadline
run kyber --set scheduler=kyber
run bfq --set scheduler=bfq
run bfq-nolat --set scheduler=bfq --set bfq.low_latency=false
run bfq2 --set scheduler=bfq

"$bin" run "$scn" --set block.kind=sq --set scheduler=bfq --quiet >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "block.kind: mq" "$tmp/err"; then
	echo "FAIL: bfq on the single-queue path: exit $rc, $(cat "$tmp/err")"
	exit 1
fi

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed, JSON not checked"
	exit 0
fi
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
def load(name):
    with open(f"{d}/{name}.json") as f:
        return json.load(f)
runs = {n: load(n) for n in ("none", "mq-deadline", "kyber", "bfq", "bfq-nolat", "bfq2")}
ok = True
for n, r in runs.items():
    fg = r["classes"]["fg"]["read"]
    bg = r["classes"]["bg"]["write"]
    print(f"{n:12s} fg read mean {fg['lat_ns']['mean']/1e3:8.1f} us  p99 {fg['lat_ns']['p99']/1e3:8.1f} us"
          f"  ({fg['count']} reads)   bg write mean {bg['lat_ns']['mean']/1e3:8.1f} us")
    if fg["count"] != 1024:
        print(f"FAIL: {n}: {fg['count']} of 1024 reads"); ok = False
    if r["block"]["kind"] != "mq":
        print(f"FAIL: {n}: block kind {r['block']['kind']}"); ok = False
fg = lambda n, k: runs[n]["classes"]["fg"]["read"]["lat_ns"][k]
bgw = lambda n: runs[n]["classes"]["bg"]["write"]["lat_ns"]["mean"]
if not fg("bfq", "mean") * 2 < fg("none", "mean"):
    print("FAIL: bfq mean FG read latency not 2x below none's"); ok = False
if not fg("bfq", "p99") * 5 < fg("none", "p99"):
    print("FAIL: bfq p99 FG read latency not 5x below none's"); ok = False
if not fg("bfq", "p99") < fg("bfq-nolat", "p99"):
    print("FAIL: low_latency does not lower the FG p99"); ok = False
if not bgw("bfq") > bgw("none"):
    print("FAIL: bfq does not hold the BG writer back"); ok = False
a, b = runs["bfq"], runs["bfq2"]
for doc in (a, b):
    for k in ("wall_s", "events_per_s", "peak_rss_kib"):
        doc["engine"].pop(k, None)
if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
    print("FAIL: two runs of the same scenario differ"); ok = False
sys.exit(0 if ok else 1)
PY
