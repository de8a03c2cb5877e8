#!/bin/bash
# Memory bounded by the work, not by the trace's length (issue 38, item 1):
# `workload fit` (with and without its check run), `trace stat` and `trace
# convert` on a generated 10^6-row phone block CSV, each under an
# address-space limit (ulimit -v) of 96 MiB. Before the fit kept only the
# model it can write (traces/tracefit.c), the fit of this trace needed
# 224 MiB of resident memory and fails here; now about 16 MiB (36 MiB with the
# run). 10^7 rows: `BIG=1 scripts/bench fit-memory` (docs/workloads.md, "Fitted models").
# usage: fit_memory.sh MOBISIM_BIN SRC_DIR
set -u
BIN=${1:?mobisim binary}
SRC=${2:?source dir}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
cd "$TMP" || exit 1

# 12 threads about 1 ms apart over 1000 s (scripts/gen-phone-csv)
N=1000000
"$SRC/scripts/gen-phone-csv" $N > big.csv
[ "$(wc -l < big.csv)" = $((N + 1)) ] || err "generator wrote $(wc -l < big.csv) lines"

# ASan reserves terabytes of address space: no limit under it (the leak
# check still runs)
lim=98304
ldd "$BIN" 2>/dev/null | grep -q libasan && lim=unlimited
limited() { (ulimit -v $lim; "$@"); }

limited "$BIN" workload fit big.csv -o fit.yaml > fit.txt 2> fit.err || { err "fit exited $?: $(tail -2 fit.err)"; }
grep -q '^model: .* 12 streams by pid' fit.txt || err "fit: $(grep '^model:' fit.txt)"
# the default chunk (100 ms) makes a model past what mobisim reads back: widened
grep -q '^chunk: .* chosen' fit.txt || err "fit did not widen the chunk: $(head -3 fit.txt)"
grep -Eq '^requests +1e\+06 +1e\+06 ' fit.txt || err "fit: $(grep '^requests' fit.txt)"
limited "$BIN" workload fit big.csv --no-run -o nr.yaml > nr.txt 2> nr.err || err "fit --no-run exited $?: $(tail -2 nr.err)"
cmp -s <(sed 9d fit.workload.yaml) <(sed 9d nr.workload.yaml) || err "fit with and without the run wrote different models"
# a --chunk past the bound is refused without holding the model
limited "$BIN" workload fit big.csv --chunk 1s --no-run -o c1.yaml > c1.txt 2> c1.err; rc=$?
[ $rc = 2 ] && grep -q 'more than mobisim reads back' c1.err || err "--chunk 1s: exit $rc, $(cat c1.err)"
[ ! -e c1.yaml ] && [ ! -e c1.workload.yaml ] || err "--chunk 1s left files"
limited "$BIN" trace stat big.csv > st.txt 2> st.err || err "trace stat exited $?: $(tail -2 st.err)"
grep -q "$N" st.txt || err "trace stat did not count $N requests"
limited "$BIN" trace convert big.csv --to blktrace -o big.bin 2> cv.err || err "convert --to blktrace exited $?: $(tail -2 cv.err)"
limited "$BIN" trace convert big.csv --to blkparse -o big.txt 2> cv2.err || err "convert --to blkparse exited $?: $(tail -2 cv2.err)"
[ -s big.bin ] && [ -s big.txt ] || err "convert wrote nothing"
exit $fail
