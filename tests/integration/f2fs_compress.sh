#!/usr/bin/env bash
# F2FS compression (configs/scenarios/f2fs-compress-pixel.yaml, Pixel 9 Pro platform): with lz4
# the device is written and read markedly fewer bytes than with compression off (assumed ratio
# 2.0: at least 25 % fewer, f2fs's 24-byte header making half the 4-page clusters 3 blocks);
# the compression CPU ran on the writer's core (its fsync ends later) and decompression on
# cores at read; 5.10's workqueue does the same work in its kernel thread; zstd saves more than
# lz4 and costs more CPU; an incompressible ratio writes every cluster raw yet still pays the
# compression CPU, and its reads are those of compression off; a bad algorithm is one clear
# error, exit code 2.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
scn="$src/configs/scenarios/f2fs-compress-pixel.yaml"
run() { local o=$1; shift; "$bin" run "$scn" --quiet --out "$tmp/$o.json" "$@" 2>/dev/null || fail "run $o"; }
run lz4
run off --set fs.compress.algorithm=off
run wq --set fs.compress.decompress_context=workqueue
run zstd --set fs.compress.algorithm=zstd
run incomp --set fs.compress.ratio=1.0 --set fs.compress.ratio_spread=0
python3 - "$tmp" <<'PY' || exit 1
import json, sys, os
d = {n: json.load(open(os.path.join(sys.argv[1], n + ".json"))) for n in ("lz4", "off", "wq", "zstd", "incomp")}
dev = lambda n: d[n]["device"]
comp = lambda n: d[n]["stack"]["fs"].get("compression")
assert comp("off") is None, "compression counters with compression off"
c = comp("lz4")
assert c["clusters"]["compressed"] == 4096, c["clusters"]
assert dev("lz4")["write_bytes"] < 0.75 * dev("off")["write_bytes"], (dev("lz4")["write_bytes"], dev("off")["write_bytes"])
assert dev("lz4")["read_bytes"] < 0.75 * dev("off")["read_bytes"], (dev("lz4")["read_bytes"], dev("off")["read_bytes"])
assert c["bytes_saved"] > 16 << 20, c["bytes_saved"]
assert c["compress_cpu_ns"] > 0 and sum(c["compress_cpu_ns_by_core"]) == c["compress_cpu_ns"]
assert c["decompress_cpu_ns"] > 0 and sum(c["decompress_cpu_ns_by_core"]) == c["decompress_cpu_ns"]
assert c["clusters"]["reads"] == 4096, c["clusters"]
w = comp("wq")
assert w["decompress_cpu_ns"] == c["decompress_cpu_ns"]
assert any(t["kind"] == "f2fs_post_read" for t in d["wq"]["stack"]["tasks"])
assert not any(t["kind"] == "f2fs_post_read" for t in d["lz4"]["stack"]["tasks"])
z = comp("zstd")
assert z["bytes_saved"] > c["bytes_saved"] and z["compress_cpu_ns"] > c["compress_cpu_ns"]
assert z["decompress_cpu_ns"] > c["decompress_cpu_ns"]
i = comp("incomp")
assert i["clusters"]["compressed"] == 0 and i["clusters"]["raw_no_saving"] == 4096, i["clusters"]
assert i["compress_cpu_ns"] == c["compress_cpu_ns"] and i["bytes_saved"] == 0
assert dev("incomp")["write_bytes"] == dev("off")["write_bytes"], (dev("incomp")["write_bytes"], dev("off")["write_bytes"])
# raw clusters of a compressed file lie and read as an uncompressed file's
task = lambda n, k: next(t for t in d[n]["stack"]["tasks"] if t["name"] == k)
dur = lambda n: task(n, "reader")["exit_ns"] - task(n, "reader")["start_ns"]
assert dur("incomp") == dur("off"), (dur("incomp"), dur("off"))
assert dev("incomp")["read_bytes"] == dev("off")["read_bytes"]
# the writer pays the compression CPU: its fsync ends later than without
assert task("lz4", "writer")["exit_ns"] > task("off", "writer")["exit_ns"]
PY
"$bin" run "$scn" --quiet --set fs.compress.algorithm=lz5 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "bad algorithm: exit $rc, not 2"
grep -q "algorithm" "$tmp/err" || fail "bad algorithm: $(cat "$tmp/err")"
echo ok
