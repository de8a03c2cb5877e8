#!/usr/bin/env bash
# A launch built from a recorded cold start (gen: recorded,
# configs/scenarios/launch-recorded.yaml): the bundled recordings are what
# scripts/gen-launch-recording writes; the three threads replay their recorded
# reads, from blkparse text, the blktrace binary or ftrace text alike; FAST profiled on
# launch 1 makes launch 1 at least 15 % shorter, misses on launch 2 (the assumed
# variation) and gains less there; recording does not move the cold launch;
# with two recordings launch 2 is the second, and FAST trained on the first is
# faster on it and misses; a broken recording is bad input naming file:line
# (exit 2).
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sc="$src/configs/scenarios/launch-recorded.yaml"
prof="$tmp/rec.prof"

run() {
	if ! "$bin" run "$@" --quiet >/dev/null 2>"$tmp/err"; then
		echo "FAIL: mobisim run $*"; cat "$tmp/err"; exit 1
	fi
}
run "$sc" --out "$tmp/cold1.json"
run "$sc" --set policies=prefetch --set prefetch.mode=record --set prefetch.profile="$prof" \
	--out "$tmp/rec.json"
run "$sc" --set workload.tasks.demoapp.launch_no=2 --out "$tmp/cold2.json"
run "$sc" --set workload.tasks.demoapp.launch_no=2 --set policies=prefetch \
	--set prefetch.profile="$prof" --out "$tmp/fast2.json"
run "$sc" --set policies=prefetch --set prefetch.profile="$prof" --out "$tmp/fast1.json"
run "$sc" --set workload.tasks.demoapp.variation=0 --set workload.tasks.demoapp.cpu_jitter=0 \
	--out "$tmp/exact.json"

# the same recording as a blktrace binary: the same launch
"$bin" trace convert "$src/traces/samples/launch/demoapp-cold.blkparse" --to blktrace \
	-o "$tmp/demoapp.bin" >/dev/null 2>&1 || { echo "FAIL: trace convert"; exit 1; }
run "$sc" --set workload.tasks.demoapp.trace="$tmp/demoapp.bin" --out "$tmp/bin.json"

# recordings of repeated launches: launch 2 replays the second one
two="[$src/traces/samples/launch/demoapp-cold.blkparse,$src/traces/samples/launch/demoapp-cold-2.blkparse]"
set2=(--set workload.tasks.demoapp.trace="$two" --set workload.tasks.demoapp.variation=0
	--set workload.tasks.demoapp.cpu_jitter=0)
run "$sc" "${set2[@]}" --set policies=prefetch --set prefetch.mode=record \
	--set prefetch.profile="$tmp/two.prof" --out "$tmp/two-rec.json"
run "$sc" "${set2[@]}" --set workload.tasks.demoapp.launch_no=2 --out "$tmp/two-cold2.json"
run "$sc" "${set2[@]}" --set workload.tasks.demoapp.launch_no=2 --set policies=prefetch \
	--set prefetch.profile="$tmp/two.prof" --out "$tmp/two-fast2.json"

# bad input: a broken line of the recording names the file and line, exit 2
head -20 "$src/traces/samples/launch/demoapp-cold.blkparse" >"$tmp/bad.blkparse"
echo "  8,0    0       21     0.00x000000  2001  Q   R 4096 + 8 [demoapp]" >>"$tmp/bad.blkparse"
"$bin" run "$sc" --set workload.tasks.demoapp.trace="$tmp/bad.blkparse" --quiet \
	>/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: broken recording exit $rc (want 2)"; cat "$tmp/bad.err"; exit 1; }
grep -q "bad.blkparse:21:" "$tmp/bad.err" || { echo "FAIL: message"; cat "$tmp/bad.err"; exit 1; }
# no thread of the app selected: exit 2, says which key
"$bin" run "$sc" --set workload.tasks.demoapp.comm='^nosuchapp$' --quiet >/dev/null 2>"$tmp/none.err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: empty selection exit $rc (want 2)"; exit 1; }
grep -q "no read request" "$tmp/none.err" || { echo "FAIL: message"; cat "$tmp/none.err"; exit 1; }

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed, JSON not checked"
	exit 0
fi
# the same recording as ftrace text (block_bio_queue / block_rq_complete, times
# to the microsecond as ftrace prints them)
python3 - "$src/traces/samples/launch/demoapp-cold.blkparse" >"$tmp/demoapp.ftrace" <<'PY'
import sys
for line in open(sys.argv[1]):
    dev, cpu, seq, t, pid, act, rwbs, sec, _, n = line.split()[:10]
    comm = line[line.rindex("[") + 1:line.rindex("]")]
    s, ns = t.split(".")
    if act == "Q":
        print("%16s-%-5s [000] ....  %s.%s: block_bio_queue: %s %s %s + %s [%s]"
              % (comm, pid, s, ns[:6], dev, rwbs, sec, n, comm))
    elif act == "C":
        print("%16s-%-5s [000] d.h.  %s.%s: block_rq_complete: %s %s () %s + %s [0]"
              % ("<idle>", "0", s, ns[:6], dev, rwbs, sec, n))
PY
run "$sc" --set workload.tasks.demoapp.trace="$tmp/demoapp.ftrace" --out "$tmp/ftrace.json"
python3 "$src/scripts/gen-launch-recording" "$tmp/gen.blkparse"
cmp -s "$tmp/gen.blkparse" "$src/traces/samples/launch/demoapp-cold.blkparse" ||
	{ echo "FAIL: scripts/gen-launch-recording does not write the bundled recording"; exit 1; }
python3 "$src/scripts/gen-launch-recording" "$tmp/gen2.blkparse" 2
cmp -s "$tmp/gen2.blkparse" "$src/traces/samples/launch/demoapp-cold-2.blkparse" ||
	{ echo "FAIL: scripts/gen-launch-recording does not write the bundled launch 2"; exit 1; }
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
def load(n):
    with open(f"{d}/{n}.json") as f:
        return json.load(f)
def launch(r):
    (x,) = [x["duration_ns"] for x in r["regions"] if x["name"] == "launch"]
    return x
ok = True
c1, rec, c2, f2, f1, ex = (load(n) for n in ("cold1", "rec", "cold2", "fast2", "fast1", "exact"))
t = c1["workload"]["tasks"][0]
if (t["recording"]["reads"], len(t["threads"]), t["recording"]["writes_not_replayed"]) != (342, 3, 4):
    print("FAIL: recording read", t["recording"], len(t["threads"])); ok = False
if ex["workload"]["tasks"][0]["recording"]["reads_moved"] != 0:
    print("FAIL: variation 0 moved reads"); ok = False
ft = load("ftrace")
if ft["workload"]["tasks"][0]["recording"]["reads"] != 342 or abs(launch(ft) / launch(c1) - 1) > 0.001:
    print("FAIL: the ftrace text of the recording gives another launch", launch(ft), launch(c1)); ok = False
if launch(load("bin")) != launch(c1):
    print("FAIL: the blktrace binary of the recording gives another launch"); ok = False
if launch(rec) != launch(c1):
    print("FAIL: recording changed the cold launch"); ok = False
pf2 = f2["policies"]["prefetch"]
pf1 = f1["policies"]["prefetch"]
gain2 = 1 - launch(f2) / launch(c2)
gain1 = 1 - launch(f1) / launch(c1)
print(f"recorded launch: cold {launch(c1)/1e6:.1f} ms, FAST on the profiled launch {launch(f1)/1e6:.1f} ms "
      f"({gain1*100:+.1f} %); launch 2 cold {launch(c2)/1e6:.1f} ms, FAST {launch(f2)/1e6:.1f} ms "
      f"({gain2*100:+.1f} %), miss ratio {pf2['miss_ratio']:.3f}")
if not pf2["miss_ratio"] > 0.01:
    print("FAIL: no misses on the next launch"); ok = False
if pf1["miss_ratio"] != 0:
    print("FAIL: misses on the profiled launch itself"); ok = False
if not launch(f1) < 0.85 * launch(c1):
    print("FAIL: FAST not faster on the launch it profiled"); ok = False
# with misses the gain is near zero over seeds (docs/workloads.md): held to
# not losing more than 5 %, not to a sign
if not launch(f2) < 1.05 * launch(c2):
    print("FAIL: FAST much slower on launch 2"); ok = False
if not gain1 > gain2 + 0.05:
    print("FAIL: misses did not cost gain"); ok = False
if not launch(c2) != launch(c1):
    print("FAIL: launch 2 the same as launch 1"); ok = False
tr, tc, tf = load("two-rec"), load("two-cold2"), load("two-fast2")
rr = tc["workload"]["tasks"][0]["recording"]
if rr["recordings"] != 2 or not rr["trace"].endswith("demoapp-cold-2.blkparse") or rr["reads"] != 344:
    print("FAIL: launch 2 of two recordings", rr); ok = False
pt = tf["policies"]["prefetch"]
print(f"two recordings: launch 2 cold {launch(tc)/1e6:.1f} ms, FAST (launch 1's profile) "
      f"{launch(tf)/1e6:.1f} ms, miss ratio {pt['miss_ratio']:.4f}")
if not (launch(tf) < launch(tc) and pt["miss_ratio"] > 0):
    print("FAIL: two recordings: FAST not faster, or no miss"); ok = False
sys.exit(0 if ok else 1)
PY
