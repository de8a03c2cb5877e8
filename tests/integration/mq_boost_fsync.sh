#!/usr/bin/env bash
# The thesis's boost on blk-mq where the kernel makes a foreground task wait on async
# writeback: Pixel 9 Pro platform (modern-fig12-launch.yaml: blk-mq 6.1, mq-deadline, F2FS,
# UFS 3.1), an 8 GiB background write flooding the flusher, and 16 foreground writers
# (64 MiB at 20 MB/s each, fsync at the end) started 50 ms apart so that their fsyncs fall
# at different phases of the flusher's turns.
# Why these FG tasks wait: in background writeback the flusher turns between the BG file's
# requeued chunk (writeback_chunk_size: min(bw/2, limit/8) + 1024 pages, ~156 MB here) and
# each FG file dirtied before the turn began (6.1 fs-writeback.c queue_io/requeue_inode),
# writing all of an FG file's dirty pages as async WRITEs; f2fs_do_sync_file ->
# file_write_and_wait_range -> __filemap_fdatawait_range then sleeps on those pages when the
# fsync comes while they are in flight. f2fs_write_begin does not (its
# f2fs_wait_on_page_writeback(page, DATA, false, true) is wait_for_stable_page: only with
# SB_I_STABLE_WRITES, which UFS without integrity does not set), so rewrites add nothing.
# Why boost seldom finds the request: blk-mq 6.1 has 2 x 32 = 64 scheduler tags, which
# mq-deadline's async_depth (48) does not limit (a per-word limit on 16-bit sbitmap words,
# docs/modern-stack.md), and the UFS queue holds 32, so at most 32 requests wait in the
# scheduler, and mq-deadline serves F2FS's log-ordered writes about in submission order; the
# fsync waits in index order, i.e. first on the FG's oldest async request, which has
# usually reached the device by then. Asserted: every FG
# wait on async writeback goes through the hook to blk_mq_boost_lba (hits + misses = waits,
# blk-mq's counters agree), some are lifted in mq-deadline (hits > 0), and most misses are
# at the device (the shallow scheduler queue), with boost never lengthening the FG's
# writeback wait by more than 10 % against the same run without it.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
scn="$src/configs/scenarios/modern-fig12-launch.yaml"
args=(--quiet --set device=ufs31-wb --set workload.tasks.bg.bytes=8GiB
	--set workload.tasks.photos.enabled=false)
for ((i = 0; i < 16; i++)); do
	args+=(--set "workload.tasks.fg$i={gen: writer, uid: 10050, start: $((1000 + i * 50))ms, bytes: 64MiB, rate: 20MB/s, fsync_end: true}")
done
"$bin" run "$scn" "${args[@]}" --set policies=boost --out "$tmp/boost.json" || fail "boost run"
"$bin" run "$scn" "${args[@]}" --set policies=baseline --out "$tmp/base.json" || fail "baseline run"
python3 - "$tmp/boost.json" "$tmp/base.json" <<'PY' || exit 1
import json, sys
d, base = (json.load(open(p)) for p in sys.argv[1:3])
assert d["block"]["kind"] == "mq" and d["block"]["scheduler"] == "mq-deadline", d["block"]["kind"]
b = d["policies"]["boost"]
def fgwb(r):
    return next((w for w in r["waits"] if w["class"] == "fg" and w["cause"] == "writeback"),
                {"count": 0, "total_ns": 0})
wb = fgwb(d)
# every FG sleep on a page under async writeback went through the hook
assert b["waits_boosted_class"] == wb["count"] >= 16, (b, wb)
assert b["hits"] + b["misses"] == b["waits_boosted_class"], b
assert sum(b["hits_where"].values()) == b["hits"], b
assert sum(b["miss_reasons"].values()) == b["misses"], b
mq = d["block"]["mq"]["counters"]["boost"]
assert mq["scheduler"] + mq["plug_marked"] + mq["hctx_dispatch"] + mq["sw_queue"] == b["hits"], (mq, b)
assert mq["device"] == b["miss_reasons"]["device"], (mq, b)
assert b["hits"] > 0, b
assert b["miss_reasons"]["device"] >= b["misses"] // 2, b
assert b["hits"] < b["misses"], b
wb0 = fgwb(base)
assert wb0["count"] > 0, wb0
assert wb["total_ns"] <= 1.1 * wb0["total_ns"], (wb, wb0)
print("mq boost under fsync: %d FG waits on async writeback, %d lifted (%s), %d misses (%s); "
      "FG writeback wait %.0f ms (%.0f ms without boost)" %
      (b["waits_boosted_class"], b["hits"], b["hits_where"], b["misses"],
       {k: v for k, v in b["miss_reasons"].items() if v}, wb["total_ns"] / 1e6,
       wb0["total_ns"] / 1e6))
PY
