#!/bin/bash
# Nothing half-written (issue 38, item 2): a command that writes several files
# writes them all to temporaries and puts them in place only when all are
# complete; a failure leaves the files it would replace as they were, no
# temporary, and exits 1 when mobisim's own output failed (a full disk, a
# file size limit), 2 when the input is at fault.
#   workload fit: the model and its scenario (FIT.workload.yaml, FIT.yaml);
#   validate: --doc and --tsv;
#   sweep: summary.tsv, summary-agg.tsv and warnings.txt.
# A full disk is a small tmpfs (root only: skipped otherwise, said so) or a
# file size limit (ulimit -f, SIGXFSZ ignored so a write fails with EFBIG).
# usage: outputs_atomic.sh MOBISIM_BIN SRC_DIR
set -u
BIN=${1:?mobisim binary}
SRC=$(cd "${2:?source dir}" && pwd)
TMP=$(mktemp -d)
MNT=$TMP/mnt
mounted=0
trap '[ $mounted = 1 ] && umount "$MNT"; rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
cd "$TMP" || exit 1
# a tmpfs of SIZE at $MNT (fresh); false where this user cannot mount
small_disk() {
	[ $mounted = 1 ] && { umount "$MNT"; mounted=0; }
	mkdir -p "$MNT"
	[ "$(id -u)" = 0 ] && mount -t tmpfs -o "size=$1" tmpfs "$MNT" 2>/dev/null && mounted=1
}
# no hidden temporary (.NAME.XXXXXX) in directory $1
no_temps() { ! ls -A "$1" | grep -q '^\.'; }
TRACE=$SRC/traces/samples/disksim/tpcc-small.trace

# ---- workload fit
# the model (1.9 KB) fits a one-page disk, the scenario next to it does not:
# before, the model was put in place and left behind
if small_disk 4k; then
	"$BIN" workload fit "$TRACE" --no-run -o "$MNT/f.yaml" > /dev/null 2> f.err; rc=$?
	[ $rc = 1 ] && grep -q 'f.yaml: write failed: No space left on device' f.err ||
		err "fit on a full disk: exit $rc, $(cat f.err)"
	[ -z "$(ls -A "$MNT")" ] || err "fit on a full disk left: $(ls -A "$MNT")"
else
	echo "note: not root or no tmpfs: the full-disk cases are skipped"
fi
# a file size limit (1 KiB) below the model's size: the earlier pair stays
echo old-model > g.workload.yaml
echo old-scenario > g.yaml
(trap '' XFSZ; ulimit -f 1; exec "$BIN" workload fit "$TRACE" --no-run -o g.yaml > /dev/null 2> g.err); rc=$?
[ $rc = 1 ] && grep -q 'g.workload.yaml: write failed: File too large' g.err ||
	err "fit over a file size limit: exit $rc, $(cat g.err)"
[ "$(cat g.workload.yaml)" = old-model ] && [ "$(cat g.yaml)" = old-scenario ] ||
	err "fit over a file size limit replaced the earlier files"
no_temps . || err "fit left a temporary: $(ls -A)"
# and with room: both replaced
"$BIN" workload fit "$TRACE" --no-run -o g.yaml > /dev/null || err "fit -o g.yaml exited $?"
grep -q '^type: replay' g.workload.yaml && grep -q 'include: g.workload.yaml' g.yaml ||
	err "fit did not replace the earlier pair"

# ---- validate --doc --tsv
mkdir -p val
cat > val/known.yaml <<EOF
name: known
source: constructed
sweep:
  base: $SRC/configs/scenarios/mm1.yaml
  set: {source.requests: 100}
  axes: {device.mean_us: [50, 100]}
  metrics:
    mu: config.device.mean_us
checks:
  - {name: mu, kind: prediction, paper: 50, tolerance: 0, reason: exact, model: {metric: mu, where: {device.mean_us: 50}}}
EOF
# a document without the markers is the user's (exit 2); the TSV is not written
# either (before, it was)
echo "no markers here" > plain.md
"$BIN" validate val --quiet --doc plain.md --tsv v.tsv 2> v.err; rc=$?
[ $rc = 2 ] && grep -q "plain.md: has no" v.err || err "--doc without markers: exit $rc, $(cat v.err)"
[ ! -e v.tsv ] || err "--doc without markers: the TSV was written"
[ "$(cat plain.md)" = "no markers here" ] || err "--doc without markers changed the document"
printf 'prose\n<!-- BEGIN mobisim validate (generated; do not edit by hand) -->\nold\n<!-- END mobisim validate -->\n' > doc.md
cp doc.md doc.orig
echo old-tsv > v.tsv
# no file can be written (ulimit -f 0; stderr through a pipe, which the limit
# does not hold): the runs fail, and a table of runs that failed is not
# written over the document (before, it was, counting them as misses)
(trap '' XFSZ; ulimit -f 0; exec "$BIN" validate val --quiet --doc doc.md --tsv v.tsv) 2>&1 | cat > v2.err; rc=${PIPESTATUS[0]}
[ $rc = 1 ] || err "validate over a size limit: exit $rc"
grep -q 'write failed: File too large' v2.err && grep -q 'a run failed (above): doc.md and v.tsv not written' v2.err ||
	err "validate over a size limit: $(cat v2.err)"
cmp -s doc.md doc.orig && [ "$(cat v.tsv)" = old-tsv ] || err "validate over a size limit replaced a file"
no_temps . || err "validate left a temporary: $(ls -A)"
"$BIN" validate val --quiet --doc doc.md --tsv v.tsv || err "validate --doc --tsv exited $?"
grep -q '^known' v.tsv && ! grep -q '^old$' doc.md && grep -q '^prose' doc.md || err "validate did not write both"
if small_disk 8k; then
	# the document's page and its temporary's fill the disk: the TSV cannot
	# be written, so the document is not replaced either
	cp doc.orig "$MNT/doc.md"
	"$BIN" validate val --quiet --doc "$MNT/doc.md" --tsv "$MNT/v.tsv" 2> v3.err; rc=$?
	[ $rc = 1 ] && grep -q 'No space left on device' v3.err || err "validate on a full disk: exit $rc, $(cat v3.err)"
	cmp -s "$MNT/doc.md" doc.orig && [ ! -e "$MNT/v.tsv" ] && no_temps "$MNT" ||
		err "validate on a full disk: $(ls -A "$MNT")"
fi

# ---- sweep: summary.tsv, summary-agg.tsv, warnings.txt
cat > s.yaml <<EOF
base: $SRC/configs/scenarios/mm1.yaml
set: {source.requests: 200}
axes: {device.mean_us: [50, 100, 150]}
metrics:
  mean_us: {path: classes.fg.read.lat_ns.mean, scale: 1e-3}
EOF
"$BIN" sweep s.yaml -j 2 -o sw --quiet || err "sweep exited $?"
cp sw/summary.tsv sum.orig
echo "# marker" >> sw/summary.tsv
# summary-agg.tsv cannot be replaced (a directory in its way): summary.tsv
# is kept as it was (before, it was replaced and the aggregate was stale)
rm sw/summary-agg.tsv && mkdir sw/summary-agg.tsv
"$BIN" sweep s.yaml -j 2 -o sw --resume --quiet 2> s.err; rc=$?
[ $rc = 2 ] && grep -q 'summary-agg.tsv: is a directory' s.err || err "sweep with its aggregate blocked: exit $rc, $(cat s.err)"
grep -q '^# marker' sw/summary.tsv || err "sweep replaced summary.tsv though its aggregate failed"
no_temps sw || err "sweep left a temporary: $(ls -A sw)"
rmdir sw/summary-agg.tsv
(trap '' XFSZ; ulimit -f 0; exec "$BIN" sweep s.yaml -j 2 -o sw --resume --quiet) 2>&1 | cat > s2.err; rc=${PIPESTATUS[0]}
[ $rc = 1 ] && grep -q 'write failed: File too large' s2.err || err "sweep summary over a size limit: exit $rc, $(cat s2.err)"
grep -q '^# marker' sw/summary.tsv && [ ! -e sw/summary-agg.tsv ] || err "sweep over a size limit replaced its summary"
no_temps sw || err "sweep left a temporary: $(ls -A sw)"
"$BIN" sweep s.yaml -j 2 -o sw --resume --quiet || err "sweep --resume exited $?"
cmp -s sw/summary.tsv sum.orig && [ -s sw/summary-agg.tsv ] || err "sweep --resume did not rewrite its summary"
if small_disk 4m; then
	# room for the points and one more page: the summary's temporary takes
	# it, its aggregate's finds none
	cp -r sw/points "$MNT/points"
	used=$(df -k --output=used "$MNT" | tail -1)
	umount "$MNT"; mounted=0
	small_disk $(((used + 4) * 1024)) && cp -r sw/points "$MNT/points"
	"$BIN" sweep s.yaml -j 2 -o "$MNT" --resume --quiet 2> s3.err; rc=$?
	[ $rc = 1 ] && grep -q 'No space left on device' s3.err || err "sweep on a full disk: exit $rc, $(cat s3.err)"
	[ ! -e "$MNT/summary.tsv" ] && [ ! -e "$MNT/summary-agg.tsv" ] && no_temps "$MNT" ||
		err "sweep on a full disk left: $(ls -A "$MNT")"
fi
# ---- run: --out, --trace-out, --timeline and --requests-csv appear together or not
# at all; the result JSON (28 KB) is the one over a 20 KiB limit, the others fit:
# before, they were each put in place and left behind
head -20 "$SRC/traces/samples/disksim/tpcc-small.trace" > tiny.trace
mkdir -p runo
run_all() { "$BIN" run "$SRC/configs/scenarios/block-replay.yaml" --quiet --set workload.trace="$TMP/tiny.trace" \
	--out runo/r.json --trace-out runo/t.blkparse --timeline runo/tl.json --requests-csv runo/q.csv; }
run_all 2> run1.err || err "run with four outputs exited $?: $(cat run1.err)"
[ -s runo/r.json ] && [ -s runo/t.blkparse ] && [ -s runo/tl.json ] && [ -s runo/q.csv ] || err "run: not all four outputs"
rsize=$(stat -c %s runo/r.json) tsize=$(stat -c %s runo/tl.json)
rm -f runo/*
[ "$rsize" -gt 20480 ] && [ "$tsize" -lt 20480 ] || err "run: sizes ($rsize, $tsize) do not put only the JSON over 20 KiB"
(trap '' XFSZ; ulimit -f 20; run_all) 2> run2.err; rc=$?
[ $rc = 1 ] && grep -q 'r.json: write failed: File too large' run2.err || err "run over a file size limit: exit $rc, $(cat run2.err)"
[ -z "$(ls -A runo)" ] || err "run over a file size limit left: $(ls -A runo)"
# compare: its result (69 KB for two sets) over the limit, the CSV (3 KB) not
(trap '' XFSZ; ulimit -f 20; exec "$BIN" compare "$SRC/configs/scenarios/block-replay.yaml" --policies "baseline;boost" \
	--set workload.trace="$TMP/tiny.trace" --out runo/c.json --requests-csv runo/q.csv > /dev/null) 2> cmp.err; rc=$?
[ $rc = 1 ] && grep -q 'c.json: write failed: File too large' cmp.err || err "compare over a file size limit: exit $rc, $(cat cmp.err)"
[ -z "$(ls -A runo)" ] || err "compare over a file size limit left: $(ls -A runo)"
exit $fail
