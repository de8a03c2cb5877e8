#!/usr/bin/env bash
# A direct reclaimer under a writeback flood, as Linux 3.10 handles it
# (models/mm/reclaim.c, docs/memory.md): a foreground reader needs pages in a
# 64 MiB page cache while a background app writes 512 MiB through it with
# balance_dirty_pages off (throttle: false), so pages under writeback pile up
# past the dirty threshold. Asserts: the reader enters direct reclaim; reclaim
# meets pages under writeback, marks them PG_reclaim and rotates them when
# their writeback ends; it never sleeps in wait_iff_congested (3.10 sets
# ZONE_CONGESTED only from pageout(), which file-page reclaim never reaches
# here); throttle_vm_writeout makes the reader wait in congestion_wait
# (BLK_RW_ASYNC, HZ/10), each wait at most 10 jiffies of HZ = 100 (100 ms) and
# some ended early by an async completion; with the dirty throttle on (a
# phone's setting) the same flood never reaches throttle_vm_writeout;
# a run is deterministic.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src/tests/data/scenarios/reclaim-flood.yaml" "$tmp/flood.yaml"
run() { # name, then --set arguments
	local name=$1; shift
	if ! "$bin" run "$tmp/flood.yaml" "$@" --quiet --out "$tmp/$name.json" >/dev/null; then
		echo "FAIL: mobisim run flood.yaml $*"
		exit 1
	fi
}
run flood
run flood2
run throttled --set writeback.throttle=true

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed, JSON not checked"
	exit 0
fi
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
load = lambda n: json.load(open(f"{d}/{n}.json"))
a, b, t = load("flood"), load("flood2"), load("throttled")
def wait(doc, cls, cause, k="total_ns"):
    for w in doc["waits"]:
        if w["class"] == cls and w["cause"] == cause:
            return w[k]
    return 0
ok = True
def check(cond, msg):
    global ok
    if not cond:
        print("FAIL: " + msg); ok = False
r = a["pagecache"]["reclaim"]
print(f"flood: direct runs {r['direct_runs']}, writeback met {r['writeback_met']}, rotated "
      f"{r['rotated_reclaimable']}, vm_writeout waits {r['vm_writeout_throttled']}, FG waits "
      f"direct_reclaim {wait(a, 'fg', 'direct_reclaim')/1e6:.2f} ms, vm_writeout_throttle "
      f"{wait(a, 'fg', 'vm_writeout_throttle')/1e6:.1f} ms (max "
      f"{wait(a, 'fg', 'vm_writeout_throttle', 'max_ns')/1e6:.1f} ms)")
check(r["direct_runs"] > 0, "nobody entered direct reclaim")
check(wait(a, "fg", "direct_reclaim", "count") > 0, "the FG reader never reclaimed itself")
check(r["writeback_met"] > 0, "reclaim met no page under writeback")
check(r["rotated_reclaimable"] > 0, "no PG_reclaim page was rotated at the end of its writeback")
check(r["wait_iff_congested_calls"] > 0, "wait_iff_congested never called")
check(wait(a, "fg", "congestion_wait", "count") == 0 and wait(a, "bg", "congestion_wait", "count") == 0,
      "a task slept in wait_iff_congested / the retry nap")
n = wait(a, "fg", "vm_writeout_throttle", "count")
check(n > 0, "the FG never waited in throttle_vm_writeout")
check(wait(a, "fg", "vm_writeout_throttle", "max_ns") <= 100_000_000,
      "a congestion_wait(HZ/10) longer than 10 jiffies of HZ=100")
check(wait(a, "fg", "vm_writeout_throttle") < n * 100_000_000 - 1_000_000,
      "no congestion_wait ended early at an async completion")
rt = t["pagecache"]["reclaim"]
check(rt["vm_writeout_throttled"] == 0,
      "throttle_vm_writeout fired with balance_dirty_pages on")
for doc in (a, b):
    for k in ("wall_s", "events_per_s", "peak_rss_kib"):
        doc["engine"].pop(k, None)
check(json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True), "two runs differ")
sys.exit(0 if ok else 1)
PY
