#!/usr/bin/env bash
# end to end: `mobisim list completions` names the six
# models; both completion scenarios (UFS 3.1 and NVMe-class 4 KiB random
# reads at QD1, shortened here) run under every model; the task's read()
# is fastest with poll and slowest with interrupt, CPU per I/O is highest
# with poll and lowest with interrupt; a bad model name is exit 2 naming it.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$bin" list completions) || { echo "FAIL: list completions"; exit 1; }
for m in none interrupt poll hybrid pas dpas timer-irq; do
	echo "$out" | grep -q "^$m " || { echo "FAIL: list completions lacks $m"; exit 1; }
done

"$bin" run "$src/configs/scenarios/completion-nvme.yaml" --quiet --set completion.model=polling \
	>"$tmp/err.txt" 2>&1
rc=$?
if [ $rc -ne 2 ] || ! grep -q "unknown completion model 'polling'" "$tmp/err.txt"; then
	echo "FAIL: bad model: exit $rc: $(cat "$tmp/err.txt")"
	exit 1
fi

for dev in ufs31 nvme; do
	for m in interrupt poll hybrid pas dpas timer-irq; do
		"$bin" run "$src/configs/scenarios/completion-$dev.yaml" --quiet \
			--set completion.model=$m --set workload.tasks.reader.bytes=4MiB \
			--out "$tmp/$dev-$m.json" >/dev/null || { echo "FAIL: $dev $m"; exit 1; }
	done
done

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed, JSON not checked"
	exit 0
fi
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
ok = True
for dev in ("ufs31", "nvme"):
    r = {}
    for m in ("interrupt", "poll", "hybrid", "pas", "dpas", "timer-irq"):
        with open(f"{d}/{dev}-{m}.json") as f:
            j = json.load(f)
        c = j["completion"]
        r[m] = (j["classes"]["fg"]["read"]["lat_ns"]["mean"], c["cpu_per_io_ns"]["mean"], c["ios"])
        print(f"{dev} {m:9s} read {r[m][0]/1e3:6.2f} us  cpu/io {r[m][1]/1e3:6.2f} us  ios {r[m][2]}")
    if not all(v[2] > 900 for v in r.values()):
        print(f"FAIL: {dev}: too few I/Os"); ok = False
    if r["poll"][0] > min(v[0] for v in r.values()) + 10:
        print(f"FAIL: {dev}: poll not the fastest"); ok = False
    if max(r, key=lambda m: r[m][0]) != "interrupt":
        print(f"FAIL: {dev}: interrupt not the slowest"); ok = False
    if max(r, key=lambda m: r[m][1]) != "poll" or min(r, key=lambda m: r[m][1]) != "interrupt":
        print(f"FAIL: {dev}: CPU per I/O not poll highest, interrupt lowest"); ok = False
sys.exit(0 if ok else 1)
PY
