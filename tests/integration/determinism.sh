#!/usr/bin/env bash
# Determinism: a run is a pure function of its scenario,
# seed and inputs.
#  1. The same scenario run twice - a synthetic launch (launch-demo.yaml,
#     upper stack, CFQ, writeback) and a closed-loop block replay through
#     CFQ (block-replay.yaml) - writes the same result JSON, byte for byte,
#     once the three wall-clock figures engine.wall_s, engine.events_per_s
#     and engine.peak_rss_kib are taken out.
#  2. A copy of each scenario with its top-level blocks in reverse order
#     gives the same result. What "the same" means for the `config` echo:
#     the echo is the configuration as written, so its keys follow the
#     file's order; it must be equal as a mapping (same keys, same values
#     at every depth) and its top-level keys must come in the copy's
#     order. Everything outside `config` must be byte-identical, except
#     the paths that name where the copy lives: mobisim.scenario and the
#     replay's resolved trace path (workload.trace, workload.params.trace).
#  3. The same scenario as points of a sweep (block-replay, replay closed
#     and open), run with -j 1 and with -j 2 (points in other processes):
#     the point files are byte-identical once the wall-clock figures are
#     out, and the closed point equals the plain `mobisim run ... --set
#     replay=closed` result apart from the sweep's own `sweep` record.
# The reordered copies live in a temporary tree whose configs/devices,
# configs/writeback and traces are links to the source tree's, so the
# scenarios' relative includes and trace paths still resolve.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

# strip IN OUT: the result without the wall-clock figures, as canonical bytes
# (key order kept as written by mobisim).
strip() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("wall_s", "events_per_s", "peak_rss_kib"):
    d["engine"].pop(k, None)
open(sys.argv[2], "w").write(json.dumps(d, indent=1) + "\n")
EOF
}

mkdir -p "$tmp/tree/configs/scenarios"
ln -s "$src/configs/devices" "$tmp/tree/configs/devices"
ln -s "$src/configs/writeback" "$tmp/tree/configs/writeback"
ln -s "$src/traces" "$tmp/tree/traces"

for sc in launch-demo block-replay; do
	yaml=$src/configs/scenarios/$sc.yaml
	for i in 1 2; do
		"$bin" run "$yaml" --quiet --out "$tmp/$sc.$i.json" >/dev/null || say "$sc run $i exited $?"
		strip "$tmp/$sc.$i.json" "$tmp/$sc.$i.s.json" || say "$sc run $i: no result"
	done
	cmp -s "$tmp/$sc.1.s.json" "$tmp/$sc.2.s.json" ||
		say "$sc: two runs differ: $(diff "$tmp/$sc.1.s.json" "$tmp/$sc.2.s.json" | head -5)"

	# Reverse the top-level blocks: a block is a line at column 0 that is
	# not a comment, with the indented, blank and comment lines after it;
	# the file's leading comment stays first. No YAML parser involved.
	rev=$tmp/tree/configs/scenarios/$sc-reversed.yaml
	python3 - "$yaml" "$rev" <<'EOF'
import sys
head, blocks = [], []
for line in open(sys.argv[1]):
    top = line[:1] not in ("", " ", "\t", "#", "\n")
    if top:
        blocks.append([line])
    elif blocks:
        blocks[-1].append(line)
    else:
        head.append(line)
if len(blocks) < 3:
    sys.exit("too few top-level keys to reorder")
with open(sys.argv[2], "w") as f:
    f.writelines(head)
    for b in reversed(blocks):
        if not b[-1].endswith("\n"):
            b[-1] += "\n"
        f.writelines(b)
EOF
	[ -s "$rev" ] || { say "$sc: could not reorder"; continue; }
	"$bin" run "$rev" --quiet --out "$tmp/$sc.r.json" >/dev/null || say "$sc reversed exited $?"
	strip "$tmp/$sc.r.json" "$tmp/$sc.r.s.json" || { say "$sc reversed: no result"; continue; }
	python3 - "$tmp/$sc.1.s.json" "$tmp/$sc.r.s.json" "$yaml" "$rev" <<'EOF' || fail=1
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
def keys(path):
    return [l.split(":", 1)[0] for l in open(path) if l[:1] not in ("", " ", "\t", "#", "\n")]
ok = True
if a["config"] != b["config"]:
    print("FAIL: %s: config echo differs as a mapping" % sys.argv[3]); ok = False
want = keys(sys.argv[4])
got = [k for k in b["config"] if k in want]
if got != [k for k in want if k in b["config"]]:
    print("FAIL: %s: config echo is not in the reordered file's order: %s" % (sys.argv[4], got)); ok = False
for d in (a, b):
    d.pop("config")
    d["mobisim"].pop("scenario", None)
    w = d.get("workload", {})
    w.pop("trace", None)                    # the resolved trace path
    w.get("params", {}).pop("trace", None)
ja, jb = json.dumps(a, indent=1), json.dumps(b, indent=1)
if ja != jb:
    import difflib
    print("FAIL: %s: the result changes with the key order:" % sys.argv[3])
    print("".join(list(difflib.unified_diff(ja.splitlines(1), jb.splitlines(1)))[:20]))
    ok = False
sys.exit(0 if ok else 1)
EOF
done

printf 'base: %s\naxes:\n  replay: [closed, open]\n' "$src/configs/scenarios/block-replay.yaml" >"$tmp/s.yaml"
for j in 1 2; do
	"$bin" sweep "$tmp/s.yaml" -j $j --out "$tmp/sw$j" --quiet >/dev/null 2>&1 || say "sweep -j $j exited $?"
done
"$bin" run "$src/configs/scenarios/block-replay.yaml" --set replay=closed --quiet --out "$tmp/closed.json" >/dev/null ||
	say "run --set replay=closed exited $?"
python3 - "$tmp/sw1/points" "$tmp/sw2/points" "$tmp/closed.json" <<'PY' || fail=1
import glob, json, os, sys
def load(f):
    d = json.load(open(f))
    for k in ("wall_s", "events_per_s", "peak_rss_kib"):
        d["engine"].pop(k, None)
    return d
a = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))
b = sorted(glob.glob(os.path.join(sys.argv[2], "*.json")))
if len(a) != 2 or [os.path.basename(x) for x in a] != [os.path.basename(x) for x in b]:
    sys.exit("FAIL: sweep: point files differ between -j 1 and -j 2: %s %s" % (a, b))
for x, y in zip(a, b):
    if json.dumps(load(x)) != json.dumps(load(y)):
        sys.exit("FAIL: sweep: %s differs between -j 1 and -j 2" % os.path.basename(x))
p = load(a[0])
if p["sweep"]["assignment"] != {"replay": "closed"}:
    sys.exit("FAIL: sweep: point 0 is not replay=closed: %s" % p["sweep"])
p.pop("sweep")
if json.dumps(p) != json.dumps(load(sys.argv[3])):
    sys.exit("FAIL: sweep: the closed point differs from the plain run")
PY

[ $fail = 0 ] && echo "determinism: ok"
exit $fail
