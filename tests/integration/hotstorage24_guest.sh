#!/usr/bin/env bash
# end to end: HotStorage'24 in a KVM guest (configs/platforms/desktop-kvm.yaml, virtio-blk over
# the host page cache) beside bare metal, 4 KiB random buffered reads shortened to 4 MiB.
# Polling (paths direct+readahead+mmap) gains more in the guest than on bare metal: the
# guest's interrupt path also pays injection and the halted vCPU's wake-up, and its device
# time (a host page-cache hit) is short. Sizes: bare metal NVMe-class x1.05-1.15, the guest
# x1.5-2.5 (the sourced model gives x1.08 and x1.89; the paper's VM x3.16 is beyond it:
# docs/virt.md). No guest read reaches the host's drive with the image cached; with
# cache=none every one does. The phone's protected VM and the small-file copy run.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
S=$src/configs/scenarios
short="--set workload.tasks.reader.bytes=4MiB"
poll="--set completion.model=poll --set completion.paths=direct+readahead+mmap"
run() { # name scenario args...
	local n=$1 sc=$2
	shift 2
	"$bin" run "$S/$sc.yaml" --quiet "$@" --out "$tmp/$n.json" >/dev/null ||
		{ echo "FAIL: run $n"; exit 1; }
}
run metal-irq hotstorage24-randread-buffered $short
run metal-poll hotstorage24-randread-buffered $short $poll
run guest-irq hotstorage24-guest-randread-buffered $short
run guest-poll hotstorage24-guest-randread-buffered $short $poll
run guest-none hotstorage24-guest-randread-direct $short --set device.cache=none
run pkvm-irq hotstorage24-pkvm-randread $short
run pkvm-poll hotstorage24-pkvm-randread $short $poll
run copy-guest hotstorage24-copy-guest --set workload.tasks.cp.files=100
run copy-host hotstorage24-copy-host --set workload.tasks.cp.files=100

python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
ok = True
def load(n):
    with open(f"{d}/{n}.json") as f:
        return json.load(f)
def bw(j):
    return [t for t in j["stack"]["tasks"] if t["name"] == "reader"][0]["io"]["read"]["bw_bytes"] / 1e6
def check(cond, msg):
    global ok
    if not cond:
        print("FAIL: " + msg); ok = False
m = bw(load("metal-poll")) / bw(load("metal-irq"))
gi, gp = load("guest-irq"), load("guest-poll")
g = bw(gp) / bw(gi)
print(f"polling gain: bare metal x{m:.2f}, guest x{g:.2f} "
      f"({bw(gi):.1f} -> {bw(gp):.1f} MB/s; paper's VM 105 -> 332, x3.16)")
check(g > m, "polling gains more in the guest than on bare metal")
check(1.05 <= m <= 1.15, f"bare-metal gain x{m:.2f} outside 1.05-1.15")
check(1.5 <= g <= 2.5, f"guest gain x{g:.2f} outside 1.5-2.5")
for n, j in (("guest-irq", gi), ("guest-poll", gp)):
    check(j["device"]["model"] == "virtio-blk", n + ": the guest's device is virtio-blk")
    check(j["device"]["host"]["device"]["requests"] == 0, n + ": host cache hit reached the drive")
    check(j["device"]["virtio"]["host_ops"] == j["device"]["requests"], n + ": one host op a request")
check(gi["device"]["virtio"]["injections"] == gi["device"]["requests"], "irq: one injection a request")
check(gp["device"]["virtio"]["injections"] == 0, "poll: no injection")
check(gi["classes"]["bg"]["read"]["count"] == 0, "the host's workers stay out of the bg class")
none = load("guest-none")
check(none["device"]["host"]["device"]["requests"] == none["device"]["requests"],
      "cache=none: every guest request reaches the host drive")
pk = bw(load("pkvm-poll")) / bw(load("pkvm-irq"))
print(f"pKVM guest: x{pk:.2f}")
check(pk > m, "pKVM: polling gains more than on bare metal")
ch = [r for r in load("copy-host")["regions"] if r["name"] == "copy"][0]["duration_ns"]
cg = [r for r in load("copy-guest")["regions"] if r["name"] == "copy"][0]["duration_ns"]
print(f"copy of 100 x 16 KiB: host {ch/1e6:.2f} ms, guest {cg/1e6:.2f} ms")
check(ch > 0 and cg > 0, "both copies ran")
sys.exit(0 if ok else 1)
PY
