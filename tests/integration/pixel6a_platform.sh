#!/usr/bin/env bash
# End to end: the Pixel 6a platform (configs/platforms/pixel6a.yaml) is listed, its launch scenario runs, and runs on platforms with known validation misses say so on stderr.
# `mobisim list platforms` names pixel6a; configs/scenarios/pixel6a-launch.yaml runs on
# blk-mq 5.10 + BFQ (slice_idle 0), F2FS, UFS 3.1, 6 GiB, kept short as modern_platform.sh
# (a 2 GiB background write, a 256 MiB WriteBooster buffer) and the launch is slower with the
# background write than alone; the run prints one note naming its device's known misses
# (sim/cli/known_misses.c), the result JSON carries none of it, a scenario without a
# platform prints no note, `--set device=ufs40` names ufs40's; and every row of the table
# is a **miss** row of docs/validation.md with the same numbers. compare notes it once, a
# sweep once per distinct platform and device of its first points.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$bin" list platforms >"$tmp/list" || fail "list platforms"
grep -qx pixel6a "$tmp/list" || fail "list platforms lacks pixel6a: $(tr '\n' ' ' <"$tmp/list")"
grep -qx pixel9pro "$tmp/list" || fail "list platforms lacks pixel9pro"
scn="$src/configs/scenarios/pixel6a-launch.yaml"
common=(--quiet --set workload.tasks.bg.bytes=2GiB --set device.slc_cache_mib=256
	--set memory.cached_bytes=256MiB --set fs.partition_bytes=16GiB)
"$bin" run "$scn" "${common[@]}" --out "$tmp/bg.json" 2>"$tmp/bg.err" || fail "run with BG: $(cat "$tmp/bg.err")"
"$bin" run "$scn" "${common[@]}" --set workload.tasks.bg.enabled=false --out "$tmp/fg.json" \
	2>"$tmp/fg.err" || fail "run without BG"
[ "$(grep -c '^mobisim: note: platform' "$tmp/bg.err")" = 1 ] || fail "not one note: $(cat "$tmp/bg.err")"
grep -q '^mobisim: note: platform pixel6a (device ufs31-wb): known validation misses' "$tmp/bg.err" ||
	fail "note: $(cat "$tmp/bg.err")"
grep -q 'Pixel 9 Pro XL sequential read vs ufs31-wb: 911 MB/s published, 1487 modelled (+63.2 %)' "$tmp/bg.err" ||
	fail "note lacks the +63.2 % miss"
"$bin" run "$src/configs/scenarios/launch-demo.yaml" --quiet --out "$tmp/demo.json" 2>"$tmp/demo.err" ||
	fail "launch-demo"
! grep -q 'note: platform' "$tmp/demo.err" || fail "a scenario without a platform printed a note"
"$bin" run "$src/configs/scenarios/modern-fig01-launch.yaml" --quiet --set device=ufs40 \
	--set workload.tasks.bg.bytes=256MiB --set memory.cached_bytes=256MiB --set fs.partition_bytes=16GiB --out "$tmp/u40.json" \
	2>"$tmp/u40.err" || fail "pixel9pro on ufs40: $(cat "$tmp/u40.err")"
grep -q '^mobisim: note: platform pixel9pro (device ufs40):.*vs ufs40: 911 MB/s published, 2215 modelled' "$tmp/u40.err" ||
	fail "ufs40 note: $(cat "$tmp/u40.err")"
! grep -q 'ufs31-wb' "$tmp/u40.err" || fail "ufs31-wb's misses named on ufs40"
# compare says it once for all its sets; a sweep once per distinct platform of its points
"$bin" compare "$scn" "${common[@]}" --set workload.tasks.bg.bytes=256MiB --policies "baseline;expc" \
	--out "$tmp/cmp.json" 2>"$tmp/cmp.err" || fail "compare: $(cat "$tmp/cmp.err")"
[ "$(grep -c '^mobisim: note: platform pixel6a (device ufs31-wb)' "$tmp/cmp.err")" = 1 ] ||
	fail "compare: not one note: $(cat "$tmp/cmp.err")"
printf 'base: %s\nset:\n  workload.tasks.bg.bytes: 256MiB\n  memory.cached_bytes: 256MiB\n  fs.partition_bytes: 16GiB\n  device.slc_cache_mib: 256\naxes:\n  device: [ufs31-wb, ufs40, ufs31-wb]\nmetrics:\n  launch_s: {path: "regions[name=launch].duration_ns", scale: 1e-9}\n' \
	"$scn" >"$tmp/sw.yaml"
"$bin" sweep "$tmp/sw.yaml" --out "$tmp/sw" -j 2 2>"$tmp/sw.err" || fail "sweep: $(cat "$tmp/sw.err")"
[ "$(grep -c '^mobisim: note: platform pixel6a (device ufs31-wb)' "$tmp/sw.err")" = 1 ] &&
	[ "$(grep -c '^mobisim: note: platform pixel6a (device ufs40)' "$tmp/sw.err")" = 1 ] ||
	fail "sweep: not one note per device: $(cat "$tmp/sw.err")"
python3 - "$tmp/bg.json" "$tmp/fg.json" "$src" <<'PY' || exit 1
import json, re, sys
bg, fg = (json.load(open(p)) for p in sys.argv[1:3])
src = sys.argv[3]
def launch(d):
    return next(r["duration_ns"] for r in d["regions"] if r["name"] == "launch")
b = bg["block"]
assert b["scheduler"] == "bfq" and b["kind"] == "mq", (b["scheduler"], b["kind"])
assert b["mq"]["params"]["kernel"] == "5.10", b["mq"]["params"]
assert b["scheduler_params"]["slice_idle_us"] == 0, b["scheduler_params"]
assert bg["stack"]["fs"]["kind"] == "f2fs", bg["stack"]["fs"]["kind"]
assert bg["config"]["memory"]["total_bytes"] == "6GiB", bg["config"]["memory"]
assert "note: platform" not in json.dumps(bg), "the note went into the result"
assert launch(bg) > launch(fg), (launch(bg), launch(fg))
# every row of the table is a miss row of docs/validation.md with its numbers
table = open(src + "/sim/cli/known_misses.c").read()
doc = open(src + "/docs/validation.md").read().splitlines()
rows = re.findall(r'\.check = "([^"]+)", \.paper = "([^ "]+)[^"]*",\s*\.model = "([^"]+)",\s*\.error = "([^"]+)"', table)
assert len(rows) >= 6, rows
for check, paper, model, err in rows:
    hit = [l for l in doc if l.startswith("| " + check + " (") and "**miss**" in l]
    assert hit, "no miss row in docs/validation.md for " + check
    cells = [c.strip() for c in hit[0].split("|")]
    assert cells[2:5] == [paper, model, err], (check, cells[2:5], (paper, model, err))
print("pixel6a: launch %.3f s alone, %.3f s with BG; %d known-miss rows match docs/validation.md"
      % (launch(fg) / 1e9, launch(bg) / 1e9, len(rows)))
PY
