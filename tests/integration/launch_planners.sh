#!/usr/bin/env bash
# The launch planners from the CLI: FAST prefetch (record a profile, then
# replay it: launches shorter, every touched page prefetched, the same bytes
# twice; the profile recorded with the scenario's seed replays unchanged with
# another --seed, as the apps and the disk are fixed), ESL'20 padding (merge and pad load no slower than reorder and
# merge, larger requests), and a broken profile is a bad-input error naming
# file:line (exit 2).
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fast="$src/configs/scenarios/fast-prefetch.yaml"
esl="$src/configs/scenarios/esl20-padding.yaml"
prof="$tmp/sub/fast.prof" # the directory does not exist yet: the recorder creates it

run() {
	if ! "$bin" run "$@" --quiet >/dev/null 2>"$tmp/err"; then
		echo "FAIL: mobisim run $*"; cat "$tmp/err"; exit 1
	fi
}
run "$fast" --out "$tmp/cold.json"
run "$fast" --set policies=prefetch --set prefetch.mode=record --set prefetch.profile="$prof" \
	--out "$tmp/rec.json"
[ -s "$prof" ] || { echo "FAIL: no profile written"; exit 1; }
head -1 "$prof" | grep -q "mobisim launch profile 1" || { echo "FAIL: profile header"; exit 1; }
run "$fast" --set policies=prefetch --set prefetch.profile="$prof" --out "$tmp/fast.json"
run "$fast" --set policies=prefetch --set prefetch.profile="$prof" --out "$tmp/fast2.json"
run "$fast" --set policies=prefetch --set prefetch.profile="$prof" --seed 7 --out "$tmp/fast7.json"

eprof="$tmp/esl.prof"
run "$esl" --set padding.mode=record --set padding.profile="$eprof" --out "$tmp/esl-rec.json"
for m in baseline reorder merge pad; do
	run "$esl" --set padding.mode=$m --set padding.profile="$eprof" --out "$tmp/esl-$m.json"
done

# a broken profile: exit 2, message names the file and line
cp "$prof" "$tmp/bad.prof"
printf 'firefox\t1\tdata\tfirefox/ws0\tnot-a-number\t4096\t0\n' >>"$tmp/bad.prof"
lines=$(wc -l <"$tmp/bad.prof")
"$bin" run "$fast" --set policies=prefetch --set prefetch.profile="$tmp/bad.prof" --quiet \
	--out "$tmp/bad.json" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: broken profile exit $rc (want 2)"; cat "$tmp/bad.err"; exit 1; }
grep -q "bad.prof:$lines:" "$tmp/bad.err" || { echo "FAIL: message"; cat "$tmp/bad.err"; exit 1; }
# a missing profile: exit 2 and says how to record one
"$bin" run "$fast" --set policies=prefetch --set prefetch.profile="$tmp/none.prof" --quiet \
	>/dev/null 2>"$tmp/none.err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: missing profile exit $rc (want 2)"; exit 1; }
grep -q "prefetch.mode=record" "$tmp/none.err" || { echo "FAIL: hint"; cat "$tmp/none.err"; exit 1; }

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
def launches(r):
    return {x["task"]: x["duration_ns"] for x in r["regions"] if x["name"] == "launch"}
ok = True
cold, rec, fast, fast2 = load("cold"), load("rec"), load("fast"), load("fast2")
c, f = launches(cold), launches(fast)
if launches(rec) != c:
    print("FAIL: recording changed the cold launches"); ok = False
if launches(fast2) != f or fast2["policies"] != fast["policies"]:
    print("FAIL: two replays differ"); ok = False
tc, tf = sum(c.values()), sum(f.values())
pf = fast["policies"]["prefetch"]
print(f"fast-prefetch: {len(c)} launches, {tc/1e6:.0f} ms cold -> {tf/1e6:.0f} ms with FAST, "
      f"hit {pf['hit_ratio']:.3f} miss {pf['miss_ratio']:.3f} unused {pf['unused_ratio']:.3f}")
if not all(f[k] < c[k] for k in c):
    print("FAIL: some launch not shorter with the prefetcher"); ok = False
if pf["hit_ratio"] < 0.99:
    print("FAIL: hit ratio"); ok = False
f7 = load("fast7")
if launches(f7) != f or f7["policies"]["prefetch"]["miss_ratio"] != 0:
    print("FAIL: the profile does not replay the same with --seed 7"); ok = False
esl = {m: load(f"esl-{m}")["policies"]["padding"] for m in ("baseline", "reorder", "merge", "pad")}
load_ms = {m: esl[m]["mean_load_ns"] / 1e6 for m in ("reorder", "merge", "pad")}
kib = {m: esl[m]["avg_request_kib"] for m in esl}
print("esl20-padding: mean load " + ", ".join(f"{m} {v:.0f} ms" for m, v in load_ms.items()) +
      "; avg request " + ", ".join(f"{m} {v:.0f} KiB" for m, v in kib.items()))
if not (load_ms["pad"] <= load_ms["merge"] <= load_ms["reorder"]):
    print("FAIL: load times not pad <= merge <= reorder"); ok = False
if not (kib["pad"] >= kib["merge"] > kib["reorder"]):
    print("FAIL: request sizes not pad >= merge > reorder"); ok = False
sys.exit(0 if ok else 1)
PY
