#!/usr/bin/env bash
# end to end: several devices in one space and ext4's mballoc.
# 1. configs/scenarios/raid0-ufs21.yaml (two UFS 2.1 parts, md RAID0, 512 KiB chunk) reads
#    1 MiB O_DIRECT chunks x1.4-2.0 faster than single-ufs21.yaml (one part; the model gives
#    x1.69: a read straddling a chunk goes out in three pieces), each member serves about
#    half the bytes (45-55 %), the array's request count equals the single device's, pieces
#    and splits are counted, `mobisim list devices` shows stripe and linear, and a linear
#    array with f2fs and an fsync runs (its flush reaches both members).
# 2. fs.alloc_extent_bytes changes request sizes: 200 open 100 KiB files written back
#    together keep 28 KiB holes inside 128 KiB windows at the default (no merging across
#    files: ~105 KiB writes), packed with 4 KiB (merged: > 2x larger, fewer writes); the
#    locality group packs 20 KiB files likewise against fs.mb_group_prealloc=0.
set -u
bin=$1 src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
S=$src/configs/scenarios
run() { # name scenario args...
	local n=$1 sc=$2
	shift 2
	"$bin" run "$sc" --quiet "$@" --out "$tmp/$n.json" >/dev/null 2>"$tmp/$n.err" ||
		{ echo "FAIL: run $n"; cat "$tmp/$n.err"; exit 1; }
}
"$bin" list devices | grep -q '^  stripe ' || { echo "FAIL: list devices lacks stripe"; exit 1; }
"$bin" list devices | grep -q '^  linear ' || { echo "FAIL: list devices lacks linear"; exit 1; }
run raid0 "$S/raid0-ufs21.yaml" --set workload.tasks.reader.bytes=64MiB
"$bin" run "$S/raid0-ufs21.yaml" --set workload.tasks.reader.bytes=8MiB | grep -q '^  member 1 flash: ' ||
	{ echo "FAIL: the summary lacks the members"; exit 1; }
run single "$S/single-ufs21.yaml" --set workload.tasks.reader.bytes=64MiB
sed -e '/chunk_bytes: 512KiB/d' -e 's/model: stripe/model: linear/' -e '/^  stripe: 256/d' -e 's/^fs:$/fs: {}/' \
    -e "s|\.\./devices|$src/configs/devices|" "$S/raid0-ufs21.yaml" >"$tmp/linear.yaml"
run linear "$tmp/linear.yaml" --set fs.kind=f2fs --set workload.tasks.reader.gen=writer \
	--set workload.tasks.reader.direct=false --set workload.tasks.reader.bytes=16MiB \
	--set workload.tasks.reader.fsync_end=true

# many open files written back together (writer tasks never close), the run kept alive
# past the flusher's expiry by a late reader
mk() { # file bytes
	{
		printf 'seed: 1\ndevice: ufs20\nblock: {kind: sq}\nscheduler: cfq\n'
		printf 'workload:\n  type: synthetic\n  tasks:\n'
		for i in $(seq 1 200); do
			printf '    w%d: {gen: writer, uid: %d, bytes: %s, chunk_bytes: 20KiB}\n' \
				"$i" $((10100 + i)) "$2"
		done
		printf '    late: {gen: reader, uid: 10002, start: 40s, file_bytes: 8KiB}\n'
	} >"$1"
}
mk "$tmp/mid.yaml" 100KiB
mk "$tmp/small.yaml" 20KiB
run pa8m "$tmp/mid.yaml"
run pa4k "$tmp/mid.yaml" --set fs.alloc_extent_bytes=4KiB
run lg "$tmp/small.yaml"
run nolg "$tmp/small.yaml" --set fs.mb_group_prealloc=0

python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
ok = True
def load(n):
    with open(f"{d}/{n}.json") as f:
        return json.load(f)
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok = ok and cond
r0, s1 = load("raid0"), load("single")
t0, t1 = r0["engine"]["sim_ns"], s1["engine"]["sim_ns"]
check(1.4 <= t1 / t0 <= 2.0, f"RAID0 speed-up x{t1 / t0:.2f} in [1.4, 2.0]")
md = r0["device"]["md"]
tot = sum(m["device"]["bytes"] for m in md["members"])
check(tot == r0["device"]["bytes"] == 64 << 20, f"members' bytes {tot} = the array's")
for i, m in enumerate(md["members"]):
    f = m["device"]["bytes"] / tot
    check(0.45 <= f <= 0.55, f"member {i} serves {f:.2f} of the bytes")
    check(m["block"] is not None and m["device"]["model"] == "flash", f"member {i} has its queue")
check(md["pieces"] > md["requests"] and md["split_requests"] > 0,
      f"pieces {md['pieces']} > requests {md['requests']}, {md['split_requests']} split")
check(r0["device"]["requests"] == s1["device"]["requests"],
      f"array requests {r0['device']['requests']} = single's {s1['device']['requests']}")
lm = load("linear")["device"]["md"]
check(lm["flushes"] >= 1 and all(m["flushes"] >= 1 for m in lm["members"]),
      f"linear + f2fs: {lm['flushes']} flushes reach both members")
def wsize(j):
    dv = j["device"]
    return dv["write_bytes"] / dv["writes"], dv["writes"]
(a8, n8), (a4, n4) = wsize(load("pa8m")), wsize(load("pa4k"))
check(a4 > 2 * a8 and n4 < n8 / 2,
      f"alloc_extent_bytes 8MiB: {n8} writes of {a8 / 1024:.0f} KiB; 4KiB: {n4} of {a4 / 1024:.0f} KiB")
m8 = load("pa8m")["stack"]["fs"]["mballoc"]
check(m8["pa_blocks"] > m8["inode_pa_blocks"], "default windows reserve more than the files use")
(g1, ng1), (g0, ng0) = wsize(load("lg")), wsize(load("nolg"))
check(g1 > 2 * g0 and ng1 < ng0 / 2,
      f"locality group: {ng1} writes of {g1 / 1024:.0f} KiB; without: {ng0} of {g0 / 1024:.0f} KiB")
sys.exit(0 if ok else 1)
PY
