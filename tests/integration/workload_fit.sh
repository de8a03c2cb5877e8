#!/bin/bash
# `mobisim workload fit` (docs/workloads.md, "Fitted models"): on shipped
# traces the model's run reproduces the trace's statistics within the
# tolerances the report states (--check fails otherwise); the written
# scenario runs, the workload file composes with a synthetic background;
# the same seed writes the same model and report; bad input exits 2 and
# writes nothing.
# usage: workload_fit.sh MOBISIM_BIN SRC_DIR
set -u
BIN=${1:?mobisim binary}
SRC=${2:?source dir}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
cd "$TMP" || exit 1

# 1. Held tolerances on three shipped traces: one process of mixed reads and
#    writes (TPC-C), two processes (a reader and a writer), 60 s of web search.
for t in traces/samples/disksim/tpcc-small.trace traces/samples/synthetic/reader-writer.blkparse \
	 tests/data/disksim-ascii/wsrch-small.trace; do
	"$BIN" workload fit "$SRC/$t" --check > rep.txt 2> rep.err || { err "$t: --check exited $?"; cat rep.txt rep.err >&2; }
	grep -Eq '^([0-9]+) of \1 statistics within tolerance' rep.txt || err "$t: $(tail -1 rep.txt)"
done
# 10 ms chunks keep the 10 ms burstiness too (held then, shown otherwise).
"$BIN" workload fit "$SRC/traces/samples/disksim/tpcc-small.trace" --chunk 10ms --check > c10.txt || err "--chunk 10ms --check exited $?"
grep -q '^burstiness (IDC 10ms) .* ok$' c10.txt || err "IDC 10ms not held with 10 ms chunks: $(grep IDC c10.txt)"

# Per app: a request list with comm, pid and uid columns (two apps, five threads), fitted by
# uid, keeps each app's threads and requests, and its uid picks the foreground in the model.
python3 - <<'PY'
import random
random.seed(3)
with open("apps.csv", "w") as f:
    t = 0.0
    for i in range(3000):
        t += random.expovariate(2000)
        app = random.choice([0, 1])
        pid = [[1001, 1002], [2001, 2002, 2003]][app][random.randrange([2, 3][app])]
        f.write("%.6f,%s,%d,%d,%s,%d,%d\n" % (t, "R" if random.random() < 0.7 else "W",
                random.randrange(0, 1 << 20) * 8, random.choice([8, 8, 8, 16, 64, 256]),
                ["com.a", "com.b"][app], pid, [10050, 10060][app]))
PY
COLS='time=1:s,op=2,offset=3:sector,size=4:sector,comm=5,pid=6,uid=7,sep=comma,read=R,write=W'
"$BIN" workload fit apps.csv --columns "$COLS" --by uid -o u.yaml --check > u.txt || { err "--by uid --check exited $?"; cat u.txt >&2; }
grep -q '^model: .* 2 streams by uid' u.txt || err "--by uid: $(grep '^model:' u.txt)"
grep -Eq '^threads \(pids\) +5 +5 ' u.txt || err "--by uid lost threads: $(grep '^threads' u.txt)"
grep -Eq '^[0-9]+ +com\.a +10050 +1497 +1497 ' u.txt || err "--by uid: com.a's requests: $(grep com.a u.txt)"
"$BIN" run u.yaml --quiet --set 'workload.fg_uid=[10050]' --out u.json || err "run of the per-uid model exited $?"
python3 - u.json <<'PY' || err "fg_uid did not pick the app's pids in the model"
import json, sys
w = json.load(open(sys.argv[1]))["workload"]
assert w["fg_pids"] == [1001, 1002], w["fg_pids"]
PY

# Completion times: the NVMe trace's reads each follow the previous one's completion; its model
# replayed closed loop on nvme lasts as the recording (0.3455 s) within 5 %, and without the
# completion times (svc) longer, each request then waiting for the device and the whole gap.
"$BIN" workload fit "$SRC/tests/data/blktrace-nvme-readahead/sample.blktrace.0" -o nv.yaml --device nvme --no-run > /dev/null || err "fit of the NVMe trace exited $?"
grep -q 'svc: {[0-9]' nv.workload.yaml || err "the NVMe model has no completion times"
sed -E 's/, svc: \{[^}]*\}//' nv.workload.yaml > nv2.workload.yaml
sed 's/nv\.workload\.yaml/nv2.workload.yaml/' nv.yaml > nv2.yaml
"$BIN" run nv.yaml --set replay=closed --quiet --out nvc.json || err "closed run of the NVMe model exited $?"
"$BIN" run nv2.yaml --set replay=closed --quiet --out nvc2.json || err "closed run without svc exited $?"
python3 - nvc.json nvc2.json <<'PY' || err "closed-loop model: wrong duration"
import json, sys
a = json.load(open(sys.argv[1]))["engine"]["sim_ns"] / 1e9
b = json.load(open(sys.argv[2]))["engine"]["sim_ns"] / 1e9
print("closed loop: %.4f s with completion times, %.4f s without (recording 0.3455 s)" % (a, b))
assert abs(a - 0.3455) <= 0.05 * 0.3455, a
assert b > a * 1.05, (a, b)
PY

# 2. Written files: a runnable scenario and a composable workload.
"$BIN" workload fit "$SRC/traces/samples/synthetic/reader-writer.blkparse" -o rw.yaml > rw.txt || err "fit -o exited $?"
[ -f rw.yaml ] && [ -f rw.workload.yaml ] || err "expected rw.yaml and rw.workload.yaml: $(ls)"
"$BIN" run rw.yaml --quiet --out r.json || err "run of the fitted scenario exited $?"
python3 - r.json <<'PY' || err "fitted run: wrong request count"
import json, sys
r = json.load(open(sys.argv[1]))
w = r["workload"]
assert w["format"] == "model", w["format"]
assert w["ios_injected"] == 4364, w["ios_injected"]
PY
cat > comp.yaml <<'Y'
name: fit-composite
device: ufs21
scheduler: cfq
workload:
  type: composite
  sources:
    app: {include: rw.workload.yaml}
    bg:
      type: synthetic
      tasks:
        writer: {gen: writer, uid: 10060, bytes: 64MiB}
Y
"$BIN" run comp.yaml --quiet --out c.json || err "composite with the fitted workload exited $?"

# 3. Deterministic: the same trace and seed, the same bytes.
"$BIN" workload fit "$SRC/traces/samples/synthetic/reader-writer.blkparse" -o rw2.yaml > rw2.txt || err "second fit exited $?"
cmp -s <(grep -v "^#" rw.workload.yaml) <(grep -v "^#" rw2.workload.yaml) || err "two fits wrote different models"
diff <(sed 1,4d rw.txt) <(sed 1,4d rw2.txt) > /dev/null || err "two fits printed different reports"

# 4. Bad input: one message, exit 2, nothing written.
"$BIN" workload fit nonexistent.trace -o x.yaml > /dev/null 2> e1.txt
rc=$?
[ $rc -eq 2 ] || err "missing trace exited $rc, expected 2"
[ ! -e x.yaml ] && [ ! -e x.workload.yaml ] || err "a failed fit left files"
grep -q 'nonexistent.trace' e1.txt || err "message does not name the file: $(cat e1.txt)"
printf 'not a trace\n' > junk.txt
"$BIN" workload fit junk.txt -o y.yaml > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && [ ! -e y.yaml ] || err "junk input exited $rc or left files"
"$BIN" workload fit "$SRC/traces/samples/disksim/tpcc-small.trace" --chunk 0 > /dev/null 2>&1
[ $? -eq 2 ] || err "--chunk 0 accepted"
"$BIN" workload frob > /dev/null 2>&1
[ $? -eq 2 ] || err "unknown workload subcommand accepted"
# 5. A long trace: the default 100 ms chunk would write more YAML nodes than the
#    reader holds, so fit widens the chunk, says so, and its model runs; a --chunk
#    that cannot fit is refused before anything is written; an unknown --device
#    is the user's (exit 2, nothing left); a blk-mq scheduler gets block.kind: mq.
awk 'BEGIN { print "proces,device,rw_flag,sector,size,timestamp";
	for (i = 0; i < 40000; i++) printf "app-100,8388608,%s,%d,8,%.3f\n", (i % 3 ? "R" : "W"), (i * 977) % 4000000 * 8, i * 0.05 }' > long.csv
"$BIN" workload fit long.csv -o long.yaml > long.txt 2> long.err || { err "long trace fit exited $?"; cat long.err >&2; }
grep -q '^chunk: .*would write a model of .* YAML nodes.* chosen' long.txt || err "no chunk widening line: $(head -2 long.txt)"
grep -Eq '^([0-9]+) of [0-9]+ statistics within tolerance' long.txt || err "long model did not run: $(tail -1 long.txt)"
"$BIN" run long.yaml --quiet --out long.json || err "the widened model does not run"
rm -f long2.yaml long2.workload.yaml
"$BIN" workload fit long.csv -o long2.yaml --chunk 10ms > /dev/null 2> long2.err
rc=$?
[ $rc -eq 2 ] && grep -q "choose a longer chunk" long2.err || err "--chunk 10ms on a long trace: exit $rc $(cat long2.err)"
[ ! -e long2.yaml ] && [ ! -e long2.workload.yaml ] || err "a refused chunk left files"
"$BIN" workload fit "$SRC/traces/samples/disksim/tpcc-small.trace" -o dev.yaml --device nosuch > /dev/null 2> dev.err
rc=$?
[ $rc -eq 2 ] && grep -q "unknown device preset 'nosuch'" dev.err || err "--device nosuch: exit $rc $(cat dev.err)"
[ ! -e dev.yaml ] && [ ! -e dev.workload.yaml ] || err "a fit whose model did not run left files"
"$BIN" workload fit "$SRC/traces/samples/disksim/tpcc-small.trace" -o mq.yaml --scheduler mq-deadline > mq.txt 2>&1 ||
	err "--scheduler mq-deadline exited $?: $(tail -2 mq.txt)"
grep -q '^  kind: mq$' mq.yaml || err "mq scheduler without block.kind: mq"
# --set: into the scenario (merged with the keys fit writes), so runs use it; the user's
# mistakes are exit 2 with nothing left
"$BIN" workload fit "$SRC/traces/samples/disksim/tpcc-small.trace" -o set.yaml --scheduler mq-deadline \
	--set block.nr_requests=64 --set mq-deadline.read_expire_ms=100 --set device=ufs31 > set.txt 2>&1 ||
	err "--set exited $?: $(tail -2 set.txt)"
grep -Eq '^([0-9]+) of [0-9]+ statistics within tolerance' set.txt || err "--set: the model did not run"
"$BIN" run set.yaml --quiet --out set.json || err "the --set scenario does not run"
python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["config"]
assert c["block"] == {"kind": "mq", "nr_requests": 64}, c["block"]
assert c["mq-deadline"]["read_expire_ms"] == 100, c["mq-deadline"]' set.json || err "--set keys not in the scenario"
grep -qx 'device: ufs31' set.yaml && [ "$(grep -c '^block:' set.yaml)" = 1 ] || err "--set: device not replaced or block twice: $(cat set.yaml)"
for bad in "device.x=1" "block=3" "nosuch.key=1"; do
	rm -f bad.yaml bad.workload.yaml
	"$BIN" workload fit "$SRC/traces/samples/disksim/tpcc-small.trace" -o bad.yaml --scheduler kyber --set "$bad" > /dev/null 2> bad.err
	rc=$?
	[ $rc -eq 2 ] || err "--set $bad: exit $rc, expected 2: $(cat bad.err)"
	[ ! -e bad.yaml ] && [ ! -e bad.workload.yaml ] || err "--set $bad left files"
done
# The stack of the trace's era (sim/cli/fit_era.c): a Perfetto trace whose SystemInfo says
# Linux 5.10 gets blk-mq with mq-deadline, said on stdout; --scheduler overrides it
python3 - era.pftrace "$SRC/tests/fuzz/corpus/perfetto/valid-synthetic" <<'PY'
import sys
def varint(n):
    out = b""
    while True:
        b, n = n & 0x7f, n >> 7
        if not n:
            return out + bytes([b])
        out += bytes([b | 0x80])
def ld(fid, payload):  # a length-delimited field
    return varint(fid << 3 | 2) + varint(len(payload)) + payload
# Trace.packet (1) { system_info (45) { utsname (1) { release (3) } } }, then the corpus trace
si = ld(1, ld(45, ld(1, ld(3, b"5.10.107-android13"))))
open(sys.argv[1], "wb").write(si + open(sys.argv[2], "rb").read())
PY
"$BIN" workload fit era.pftrace -o era.yaml > era.txt 2>&1 || err "fit of a 5.10 Perfetto trace exited $?: $(tail -2 era.txt)"
grep -q '^stack:    scheduler mq-deadline: recorded on Linux 5.10.107-android13' era.txt || err "no era line: $(cat era.txt)"
grep -qx 'scheduler: mq-deadline' era.yaml && grep -qx '  kind: mq' era.yaml || err "5.10 trace: not blk-mq/mq-deadline: $(cat era.yaml)"
"$BIN" run era.yaml --quiet --out era.json || err "the era scenario does not run"
"$BIN" workload fit era.pftrace -o era2.yaml --scheduler cfq > era2.txt 2>&1 || err "fit --scheduler cfq exited $?"
grep -q '^stack:    scheduler' era2.txt && err "--scheduler given, yet an era line: $(cat era2.txt)"
grep -qx 'scheduler: cfq' era2.yaml || err "--scheduler cfq not kept: $(cat era2.yaml)"
exit $fail
