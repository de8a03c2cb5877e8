#!/usr/bin/env bash
# UFS 4.0 MCQ against the single doorbell on configs/scenarios/mcq-randread.yaml (32 threads of
# 4 KiB random reads, 0.3 s): MCQ configures 8 default queues and a poll queue sharing 31 tags,
# every default queue dispatches and the poll queue none; with `none` MCQ and SDB with the same
# 31 tags give the same run (the device is the bottleneck); main's SDB default of 32 tags reads
# within 1 %; an MCQ host the configuration cannot satisfy is refused with exit 2 when MCQ is
# required, and falls back to SDB otherwise.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scn="$src/configs/scenarios/mcq-randread.yaml"

run() { # name, then --set arguments
	local name=$1; shift
	if ! "$bin" run "$scn" --set run.until_s=0.3 "$@" --quiet --out "$tmp/$name.json" >/dev/null; then
		echo "FAIL: mobisim run $scn $*"
		exit 1
	fi
}
run mcq
run sdb31 --set device.host.mode=sdb --set block.queue_depth=31 --set block.sdev_queue_depth=32
run sdb32 --set device.host.mode=sdb
run fallback --set device.host.maxq=1

"$bin" run "$scn" --set device.host.maxq=1 --set device.host.mode=mcq --quiet >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "device.host.mode" "$tmp/err"; then
	echo "FAIL: MCQ required on a 1-queue controller: exit $rc, $(cat "$tmp/err")"
	exit 1
fi

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed, JSON not checked"
	exit 0
fi
python3 - "$tmp" <<'EOF'
import json, sys
d = sys.argv[1]
r = {n: json.load(open(f"{d}/{n}.json")) for n in ("mcq", "sdb31", "sdb32", "fallback")}
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)
mq = r["mcq"]["block"]["mq"]
if mq["ufs_host"]["mode"] != "mcq" or len(mq["hw_queues"]) != 9:
    fail(f"MCQ set-up: {mq.get('ufs_host')}, {len(mq['hw_queues'])} queues")
if mq["shared_tags"]["driver_tags"]["depth"] != 31 or mq["shared_tags"]["driver_tags"]["peak_used"] != 31:
    fail(f"shared tags: {mq['shared_tags']}")
disp = [q["dispatched"] for q in mq["hw_queues"]]
if min(disp[:8]) == 0 or disp[8] != 0:
    fail(f"per-queue dispatches {disp}")
reads = {n: x["device"]["reads"] for n, x in r.items()}
if reads["mcq"] < 10000 or reads["mcq"] != reads["sdb31"]:
    fail(f"MCQ and SDB with 31 tags differ: {reads}")
if abs(reads["sdb32"] - reads["sdb31"]) > reads["sdb31"] // 100:
    fail(f"one tag more changed the reads by more than 1 %: {reads}")
fb = r["fallback"]["block"]["mq"]
if fb.get("ufs_host", {}).get("mode") != "sdb" or "mcq_disabled" not in fb["ufs_host"] \
        or len(fb["hw_queues"]) != 1:
    fail(f"a controller that cannot take the queues did not fall back to SDB: {fb.get('ufs_host')}")
print(f"ok: reads MCQ {reads['mcq']} = SDB-31 {reads['sdb31']}, SDB-32 {reads['sdb32']}; "
      f"per-queue {disp}")
EOF
