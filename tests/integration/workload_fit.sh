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
exit $fail
