#!/usr/bin/env bash
# The scheduler's isolation of a sync reader: one sync reader and one async writer flood
# (configs/scenarios/cfq-vs-noop.yaml) under CFQ and under noop. CFQ serves
# the reader's sync queue ahead of the writes, noop queues its reads behind
# them: the reader's mean latency must differ by more than 20x, its p99 by
# more than 10x, and two runs of the same scenario must agree byte for
# byte (apart from wall-clock figures).
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scn="$src/configs/scenarios/cfq-vs-noop.yaml"

for s in cfq noop; do
	if ! "$bin" run "$scn" --set scheduler=$s --quiet --out "$tmp/$s.json" >/dev/null; then
		echo "FAIL: mobisim run $scn --set scheduler=$s"
		exit 1
	fi
done
"$bin" run "$scn" --quiet --out "$tmp/cfq2.json" >/dev/null || { echo "FAIL: second run"; exit 1; }

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
cfq, noop, cfq2 = load("cfq"), load("noop"), load("cfq2")
rc, rn = cfq["classes"]["fg"]["read"], noop["classes"]["fg"]["read"]
mc, mn = rc["lat_ns"]["mean"], rn["lat_ns"]["mean"]
pc, pn = rc["lat_ns"]["p99"], rn["lat_ns"]["p99"]
print(f"reader: cfq mean {mc/1e3:.0f} us p99 {pc/1e3:.0f} us ({rc['count']} reads); "
      f"noop mean {mn/1e3:.0f} us p99 {pn/1e3:.0f} us ({rn['count']} reads)")
ok = True
if not (rc["count"] > 0 and rn["count"] > 0):
    print("FAIL: no reads completed"); ok = False
if not mc * 20 < mn:
    print("FAIL: CFQ mean read latency not 20x below noop's"); ok = False
if not pc * 10 < pn:
    print("FAIL: CFQ p99 read latency not 10x below noop's"); ok = False
for doc in (cfq, cfq2):
    for k in ("wall_s", "events_per_s", "peak_rss_kib"):
        doc["engine"].pop(k, None)
if json.dumps(cfq, sort_keys=True) != json.dumps(cfq2, sort_keys=True):
    print("FAIL: two runs of the same scenario differ"); ok = False
sys.exit(0 if ok else 1)
PY
