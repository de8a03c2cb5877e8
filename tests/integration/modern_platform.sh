#!/usr/bin/env bash
# The 2024-phone platform (configs/platforms/pixel9pro.yaml) through the thesis's Fig. 1
# scenario, kept short (a 2 GiB background write on the platform's UFS 3.1 preset with a 256 MiB
# WriteBooster buffer, so that the device saturates):
# the run uses blk-mq + mq-deadline and F2FS, the background app sits in Android's
# background blkio group and the launch in the root group, the launch is slower with the
# background write than alone, and the FG fsyncs never wait for a checkpoint or a journal.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
scn="$src/configs/scenarios/modern-fig01-launch.yaml"
common=(--quiet --set workload.tasks.bg.bytes=2GiB --set device.slc_cache_mib=256
	--set memory.cached_bytes=256MiB --set fs.partition_bytes=16GiB)
"$bin" run "$scn" "${common[@]}" --out "$tmp/bg.json" || fail "run with BG"
"$bin" run "$scn" "${common[@]}" --set workload.tasks.bg.enabled=false --out "$tmp/fg.json" ||
	fail "run without BG"
python3 - "$tmp/bg.json" "$tmp/fg.json" <<'PY' || exit 1
import json, sys
bg, fg = (json.load(open(p)) for p in sys.argv[1:3])
def launch(d):
    return next(r["duration_ns"] for r in d["regions"] if r["name"] == "launch")
st = bg["stack"]
assert st["fs"]["kind"] == "f2fs", st["fs"]["kind"]
tasks = {t["name"]: t for t in st["tasks"]}
assert tasks["bg"]["blkcg"] == 1 and tasks["photos"]["blkcg"] == 0, "task profile groups"
assert st["fs"]["fsync"]["count"] > 0 and st["fs"]["checkpoint"]["requests_fsync"] == 0
waits = {(w["cause"], w["class"]) for w in bg["waits"]}
assert ("journal", "fg") not in waits and ("checkpoint", "fg") not in waits, waits
assert launch(bg) > launch(fg), (launch(bg), launch(fg))
print("modern platform: launch %.3f s alone, %.3f s with BG" % (launch(fg) / 1e9, launch(bg) / 1e9))
PY
