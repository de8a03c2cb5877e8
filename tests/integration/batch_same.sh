#!/usr/bin/env bash
# Work done without an event per step gives the same results as one event
# per step (docs/architecture.md, "Cost per simulated work"): each scenario
# runs twice, as it is and with run.per_event=true (every CPU burst an event
# of its own, the path the inline one is checked against), and the result
# JSON must be byte-identical apart from the engine section (event counts,
# host timing) and the echoed run.per_event; the default run must have used
# fewer events (else the inline path was not exercised). Scenarios: Fig. 1 and
# Fig. 12 of the thesis (Galaxy S6, 3.10, CFQ; Fig. 12 with its policies),
# the reclaim flood of reclaim_flood.sh (direct reclaim, throttle_vm_writeout)
# with and without the dirty throttle, and the modern F2FS / blk-mq Fig. 1.
# The flood's --timeline and --trace-out files must be identical too.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed, JSON not compared"
	exit 0
fi
fail=0
files=() # also compare --timeline and --trace-out (files=(tl.json blk))
pair() { # name scenario [--set ...]
	local name=$1 scen=$2
	shift 2
	for mode in batched per_event; do
		local extra=()
		[ $mode = per_event ] && extra=(--set run.per_event=true)
		[ ${#files[@]} -gt 0 ] && extra+=(--timeline "$tmp/$name.$mode.tl.json"
			--trace-out "$tmp/$name.$mode.blk")
		if ! "$bin" run "$scen" "$@" "${extra[@]}" --quiet --out "$tmp/$name.$mode.json" >/dev/null; then
			echo "FAIL: mobisim run $scen $* ${extra[*]}"
			fail=1
			return
		fi
	done
	python3 - "$tmp/$name" "$name" <<'PY' || fail=1
import json, sys
base, name = sys.argv[1], sys.argv[2]
docs = {}
for mode in ("batched", "per_event"):
    d = json.load(open(f"{base}.{mode}.json"))
    docs[mode] = (d.pop("engine"), d)
    d["config"].get("run", {}).pop("per_event", None)
    if not d["config"].get("run", True):
        d["config"].pop("run")
(eb, b), (ep, p) = docs["batched"], docs["per_event"]
def first_diff(x, y, path=""):
    if type(x) != type(y):
        return path
    if isinstance(x, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y:
                return f"{path}.{k}"
            r = first_diff(x[k], y[k], f"{path}.{k}")
            if r:
                return r
    elif isinstance(x, list):
        if len(x) != len(y):
            return path
        for i, (u, v) in enumerate(zip(x, y)):
            r = first_diff(u, v, f"{path}[{i}]")
            if r:
                return r
    elif x != y:
        return f"{path}: {x} vs {y}"
    return None
ok = True
d = first_diff(b, p)
if d:
    print(f"FAIL: {name}: batched and per-event results differ at {d}")
    ok = False
if ep["sim_ns"] != eb["sim_ns"]:
    print(f"FAIL: {name}: simulated time differs ({eb['sim_ns']} vs {ep['sim_ns']})")
    ok = False
if not eb["events"] < ep["events"]:
    print(f"FAIL: {name}: the batched run used {eb['events']} events, per-event {ep['events']}")
    ok = False
print(f"{name}: same results; events {ep['events']} per event, {eb['events']} batched")
sys.exit(0 if ok else 1)
PY
	for f in "${files[@]}"; do
		if ! cmp -s "$tmp/$name.batched.$f" "$tmp/$name.per_event.$f"; then
			echo "FAIL: $name: the $f output differs between batched and per-event runs"
			fail=1
		fi
	done
}
pair fig01 "$src/configs/scenarios/thesis-fig01-launch.yaml"
pair fig12 "$src/configs/scenarios/thesis-fig12-launch.yaml"
files=(tl.json blk)
pair flood "$src/tests/data/scenarios/reclaim-flood.yaml"
pair flood-throttled "$src/tests/data/scenarios/reclaim-flood.yaml" --set writeback.throttle=true
files=()
pair modern-f2fs-mq "$src/configs/scenarios/modern-fig01-launch.yaml"
exit $fail
