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

# configs/validation/templates/platforms.yaml must hold the platform files' values: its
# retail/samsung-cfq row (index 0) what the scenario reads through galaxy-s6.yaml, its AOSP/3.10 row
# (index 3) what it reads through aosp5-sopia7420.yaml (the same scenario, include swapped).
sed "s|include: ../platforms/galaxy-s6.yaml|include: $src/configs/platforms/aosp5-sopia7420.yaml|" \
	"$scn" >"$tmp/aosp.yaml"
"$bin" sensitivity "$scn" --list >"$tmp/retail.list" 2>&1 &&
	"$bin" sensitivity "$tmp/aosp.yaml" --list >"$tmp/aosp.list" 2>&1 ||
	{ echo "FAIL: mobisim sensitivity --list on the two platforms"; exit 1; }
python3 - "$src/configs/validation/templates/platforms.yaml" "$tmp/retail.list" "$tmp/aosp.list" <<'PY2' || exit 1
import sys
tpl, lists = sys.argv[1], sys.argv[2:]
def values(path):
    v = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 2:
            v[f[0]] = f[1]
    return v
rows = {}
for line in open(tpl):
    line = line.split("#")[0].strip()
    if not line or ":" not in line:
        continue
    k, _, rest = line.partition(":")
    rest = rest.strip()
    if rest.startswith("["):
        rows[k.strip()] = [x.strip().strip('"') for x in rest[1:-1].split(",")]
bad = 0
for listing, col in zip(lists, (0, 3)):
    got = values(listing)
    for k, vals in rows.items():
        if k == "platform":
            continue
        if got.get(k) != vals[col]:
            print(f"FAIL: templates/platforms.yaml {k}[{col}] = {vals[col]}, platform gives {got.get(k)}")
            bad += 1
print(f"platforms template: {len(rows) - 1} keys x 2 platforms, {bad} differ")
sys.exit(1 if bad else 0)
PY2
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
