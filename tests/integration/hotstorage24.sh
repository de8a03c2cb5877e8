#!/usr/bin/env bash
# end to end: the HotStorage'24 bare-metal scenarios (4 KiB random reads, direct,
# buffered and mmap; shortened here). Direct reads poll under the stock paths and beat
# the interrupt; buffered and mmap reads poll only when completion.paths names their
# path; buffered reads that all hit the page cache (a warm 16 MiB file) take the same
# time under interrupt and poll; direct reads leave the page cache empty. A bad
# completion.paths is exit 2 naming the choices; a misaligned direct read (1000-byte
# chunks on 512-byte blocks) returns EINVAL, counted, and the run goes on.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
S=$src/configs/scenarios
short="--set workload.tasks.reader.bytes=4MiB"

run() { # name scenario args...
	local n=$1 sc=$2
	shift 2
	"$bin" run "$S/hotstorage24-randread-$sc.yaml" --quiet $short "$@" --out "$tmp/$n.json" \
		>/dev/null || { echo "FAIL: run $n"; exit 1; }
}
for m in direct buffered mmap; do
	run "$m-irq" $m
	run "$m-poll" $m --set completion.model=poll
	run "$m-pollall" $m --set completion.model=poll --set completion.paths=direct+readahead+mmap
done
run "buffered-ra-poll" buffered --set completion.model=poll --set completion.paths=direct+readahead
warm="--set workload.tasks.reader.file_bytes=16MiB --set workload.tasks.reader.warm=1"
run warm-irq buffered $warm
run warm-poll buffered $warm --set completion.model=poll --set completion.paths=direct+readahead+mmap
run einval direct --set workload.tasks.reader.chunk_bytes=1000B

"$bin" run "$S/hotstorage24-randread-direct.yaml" --quiet --set completion.paths=buffered \
	>"$tmp/err.txt" 2>&1
rc=$?
if [ $rc -ne 2 ] || ! grep -q "completion.paths" "$tmp/err.txt" ||
	! grep -q "direct+readahead+mmap" "$tmp/err.txt"; then
	echo "FAIL: bad paths: exit $rc: $(cat "$tmp/err.txt")"
	exit 1
fi

python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
ok = True
def load(n):
    with open(f"{d}/{n}.json") as f:
        return json.load(f)
def fig(n, op):
    j = load(n)
    t = [x for x in j["stack"]["tasks"] if x["name"] == "reader"][0]
    return t["io"][op]["bw_bytes"] / 1e6, j["classes"]["fg"][op]["lat_ns"]["mean"], j
def check(cond, msg):
    global ok
    if not cond:
        print("FAIL: " + msg); ok = False
for m, op in (("direct", "read"), ("buffered", "read"), ("mmap", "fault")):
    for k in ("irq", "poll", "pollall"):
        bw, lat, j = fig(f"{m}-{k}", op)
        print(f"{m:8s} {k:8s} {bw:7.2f} MB/s  {lat/1e3:6.2f} us  polled {j['completion']['polled']}")
bw_i, lat_i, ji = fig("direct-irq", "read")
bw_p, lat_p, jp = fig("direct-poll", "read")
check(bw_p > bw_i * 1.03 and lat_p < lat_i, "direct: poll does not beat interrupt")
check(jp["completion"]["polled"] == jp["stack"]["direct"]["bios"] > 900, "direct: not every bio polled")
check(jp["pagecache"]["inserted"] == ji["pagecache"]["inserted"] and
      jp["stack"]["direct"]["reads"] == 1024, "direct: page cache touched or reads missing")
for m, op in (("buffered", "read"), ("mmap", "fault")):
    a, _, _ = fig(f"{m}-irq", op)
    b, _, jb = fig(f"{m}-poll", op)
    c, _, jc = fig(f"{m}-pollall", op)
    check(a == b and jb["completion"]["polled"] == 0, f"{m}: polled under the stock paths")
    check(c > a * 1.03 and jc["completion"]["polled"] > 900, f"{m}: the expanded paths do not poll it")
_, _, jr = fig("buffered-ra-poll", "read")
check(jr["completion"]["polled"] > 900, "buffered: direct+readahead does not poll")
w_i, wl_i, jwi = fig("warm-irq", "read")
w_p, wl_p, jwp = fig("warm-poll", "read")
check(jwi["pagecache"]["misses"] == 0 and jwp["pagecache"]["misses"] == 0, "warm: misses")
check(wl_i == wl_p and w_i == w_p, f"warm: cached reads moved ({wl_i} vs {wl_p} ns)")
je = load("einval")
dio = je["stack"]["direct"]
t = [x for x in je["stack"]["tasks"] if x["name"] == "reader"][0]
# 4 MiB in 1000-byte reads: 4195 read() calls, every one misaligned, none measured
check(dio["einval_reads"] == 4195 == t.get("direct_einval") and dio["reads"] == 0 and
      dio["bios"] == 0 and je["classes"]["fg"]["read"]["count"] == 0,
      f"einval: counts {dio} {t.get('direct_einval')}")
print(f"einval: {dio['einval_reads']} misaligned reads counted")
sys.exit(0 if ok else 1)
PY
