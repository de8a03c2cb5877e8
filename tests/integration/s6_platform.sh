#!/usr/bin/env bash
# The thesis's Fig. 1 on the sourced Galaxy S6 platform (configs/platforms/galaxy-s6.yaml,
# docs/platforms.md): direction and size of the platform's effects, not the thesis's
# numbers. Samsung's CFQ variant (at most 4 async requests in flight) must cut the launch
# under the 4 GiB background write well below the same platform with mainline 3.10 CFQ,
# whose drain rule keeps the FG reads behind the 32 writes in the UFS queue; the launch
# must end long before the background writer does (the FG is not starved for the whole
# write); the result must echo the platform's kernel settings.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scn="$src/configs/scenarios/thesis-fig01-launch.yaml"

run() { "$bin" run "$scn" "$@" --quiet >/dev/null; }
run --out "$tmp/s6.json" || { echo "FAIL: mobisim run $scn"; exit 1; }
run --set cfq.kernel_variant=3.10 --out "$tmp/mainline.json" ||
	{ echo "FAIL: mobisim run $scn --set cfq.kernel_variant=3.10"; exit 1; }

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed, JSON not checked"
	exit 0
fi
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
def load(n):
    with open(f"{d}/{n}.json") as f:
        return json.load(f)
s6, ml = load("s6"), load("mainline")
def launch(r):
    x = [g for g in r["regions"] if g["name"] == "launch"][0]
    return x["start_ns"] / 1e9, x["duration_ns"] / 1e9
(st, t6), (_, tm) = launch(s6), launch(ml)
end = s6["engine"]["sim_ns"] / 1e9
p = s6["block"]["scheduler_params"]
print(f"launch with BG: S6 {t6:.2f} s, mainline CFQ {tm:.2f} s; launch ends {st + t6:.1f} s, run {end:.1f} s")
ok = True
if not (p["kernel_variant"] == "samsung-exynos7420" and p["hz"] == 100 and p["max_async_dispatch"] == 4):
    print(f"FAIL: platform's CFQ settings not in the result: {p}"); ok = False
if not t6 < 0.6 * tm:
    print("FAIL: Samsung's CFQ did not cut the launch below 60 % of mainline's"); ok = False
if not st + t6 < end - 5:
    print("FAIL: the launch ends with the background write (FG starved)"); ok = False
print("1 passed, 0 failed" if ok else "0 passed, 1 failed")
sys.exit(0 if ok else 1)
PY
