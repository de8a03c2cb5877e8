#!/bin/bash
# Traces as they come from the field (issue: messy blktrace sets, compressed
# and piped input): a generated 4-CPU blktrace set with merges, requeues,
# splits, pid reuse across CPUs and a cut last record must print byte for
# byte as Debian's blkparse prints it and give btt's D2C/Q2C; compressed
# files and pipes read like plain files; a missing CPU file, time going
# backwards, a clock offset, a C-only trace and a missing input are each
# reported; --strict refuses what the default reads past.
# usage: trace_field.sh MOBISIM_BIN SRC_DIR
set -u
BIN=${1:?mobisim binary}
SRC=${2:?source dir}
BT=$SRC/tests/data/blktrace-nvme-readahead/sample.blktrace.0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
cd "$TMP" || exit 1

# 1. The multi-CPU set, written by mobisim's own blktrace writer, one file per CPU.
python3 "$SRC/scripts/gen-field-trace" g.txt 3000 || err "generator failed"
"$BIN" trace convert g.txt --to blktrace -o s.blktrace.0 || err "convert to a per-CPU set exited $?"
[ -f s.blktrace.3 ] && [ ! -e s.blktrace.4 ] || err "expected s.blktrace.0..3: $(ls)"
# blktrace killed mid-write: CPU 2's last record is cut.
sz=$(stat -c %s s.blktrace.2)
truncate -s $((sz - 20)) s.blktrace.2
"$BIN" trace stat s > stat.txt 2> stat.err || err "stat of the set exited $?"
grep -q 'last record cut' stat.err || err "no warning for the cut record: $(cat stat.err)"
grep -q '^cut last records skipped: 1 ' stat.txt || err "cut record not counted in the summary"
grep -q '^files:    4 ' stat.txt || err "stat does not say it read the 4 CPU files"
"$BIN" trace stat s.blktrace.2 2>/dev/null | grep -q '^files:    4 ' || err "stat NAME.blktrace.2 did not read the whole set"
"$BIN" trace stat --strict s > /dev/null 2> strict.err
rc=$?
[ $rc -eq 2 ] || err "--strict on a cut record exited $rc, expected 2"
grep -Eq 's\.blktrace\.2: byte offset [0-9]+: truncated record' strict.err || err "--strict message: $(cat strict.err)"

if command -v blkparse >/dev/null 2>&1; then
	blkparse -i s -d s.bin > bp.txt 2>/dev/null
	"$BIN" trace convert s --to blkparse 2>/dev/null > mb.txt || err "convert of the set exited $?"
	cmp -s bp.txt mb.txt || { err "set: differs from blkparse -i s"; diff bp.txt mb.txt | head -4 >&2; }
	grep -q 'kworker/1:2' bp.txt && err "blkparse kept a later name for pid 4242?"
	# and the set written from text reads back in blkparse with every event
	n1=$(grep -c '^  8,16 ' g.txt); n2=$(blkparse -i s 2>/dev/null | grep -c '^  8,16 ')
	[ "$n2" -ge $((n1 - 1)) ] || err "blkparse -i s reads $n2 of $n1 events"
	if command -v btt >/dev/null 2>&1; then
		for lat in D2C Q2C; do
			b=$(btt -i s.bin 2>/dev/null | awk -v l=$lat '$1 == l && NF == 5 { print $2, $3, $4, $5; exit }')
			m=$(awk -v l=$lat '$1 == l && NF == 5 { print $2, $3, $4, $5; exit }' stat.txt)
			[ -n "$b" ] && [ "$b" = "$m" ] || err "$lat: btt '$b' vs mobisim '$m'"
			echo "$lat btt:     $b" >&2
			echo "$lat mobisim: $m" >&2
		done
	fi
else
	echo "note: blkparse not installed; comparison skipped" >&2
fi

# A CPU file missing in the middle: read the others, warn; --strict refuses.
mkdir gap && cp s.blktrace.0 s.blktrace.2 s.blktrace.3 gap/
"$BIN" trace stat gap/s > gap.txt 2> gap.err || err "stat with a missing CPU file exited $?"
grep -q 'gap/s.blktrace.1: missing' gap.err || err "no warning for the missing CPU file: $(cat gap.err)"
grep -q '^missing CPU files:        1' gap.txt || err "missing CPU file not counted"
"$BIN" trace stat --strict gap/s > /dev/null 2>&1
[ $? -eq 2 ] || err "--strict with a missing CPU file should exit 2"

# 2. Compressed and piped input: the same statistics as the plain file.
"$BIN" trace stat "$BT" | sed 1d > plain.txt
for z in gzip xz zstd; do
	command -v $z >/dev/null 2>&1 || { echo "note: $z not installed; skipped" >&2; continue; }
	$z -c < "$BT" > bt.$z
	"$BIN" trace stat bt.$z | sed 1d | cmp -s - plain.txt || err "$z file reads differently"
	$z -dc < bt.$z | "$BIN" trace stat - | sed 1d | cmp -s - plain.txt || err "$z | stat - differs"
	cat bt.$z | "$BIN" trace stat /dev/stdin | sed 1d | cmp -s - plain.txt || err "$z via /dev/stdin differs"
	head -c 3000 bt.$z > cut.$z
	"$BIN" trace stat cut.$z > /dev/null 2> cut.err
	rc=$?
	[ $rc -eq 2 ] && grep -q "data ends early\|truncated\|corrupt" cut.err || err "cut $z: exit $rc: $(cat cut.err)"
done
# the broken compressed corpus: exit 2, with a byte offset
for f in "$SRC"/tests/fuzz/corpus/decompress/cut.* "$SRC"/tests/fuzz/corpus/decompress/corrupt.gz; do
	msg=$("$BIN" trace stat "$f" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && echo "$msg" | grep -Eq ': byte offset [0-9]+: ' || err "$f: exit $rc: $msg"
done
gzip -c g.txt > g.txt.gz
"$BIN" trace convert g.txt.gz --to blkparse --window 1 > a.txt && "$BIN" trace convert g.txt --to blkparse --window 1 > b.txt &&
	cmp -s a.txt b.txt || err "gzip'd blkparse text converts differently"
cat g.txt | "$BIN" trace convert - --to blktrace -o p.blktrace.0 2>/dev/null || err "convert from a pipe exited $?"
cmp -s p.blktrace.0 s.blktrace.0 || err "convert from a pipe wrote a different set"

# 3. Clock offset between CPUs, time going backwards, C-only traces.
awk '$2 == 1 { split($4, t, "."); $4 = sprintf("%d.%s", t[1] + 1266874889, t[2]) } { print }' g.txt > off.txt
"$BIN" trace stat off.txt > off.out 2> off.err
grep -q 'clock offset between CPUs' off.err || err "no warning for a per-CPU clock offset: $(cat off.err)"
grep -q 'spans a clock jump' off.out || err "duration not flagged"
"$BIN" trace stat --window 1 off.txt > back.out 2> back.err
grep -q 'time goes backwards' back.err || err "no warning for time going backwards"
grep -q '^duration: -' back.out && err "negative duration printed"
grep ' C ' g.txt > conly.txt
"$BIN" trace stat conly.txt 2>/dev/null | grep -q 'latencies cannot be computed' || err "C-only trace: no word about latencies"
# A request list (DiskSim ASCII, a CSV without responses) can never pair: it is
# said so, and 70,000 queued requests are not "outstanding" in a full table.
awk 'BEGIN { for (i = 0; i < 70000; i++) printf "%.6f 0 %d 8 1\n", i * 0.01, i * 64 }' > list.trace
"$BIN" trace stat list.trace > list.out 2>/dev/null || err "request list: exit $?"
grep -q 'holds queued requests only, no completions' list.out || err "request list: no word: $(tail -3 list.out)"
grep -q 'untracked I/Os' list.out && err "request list counted as untracked outstanding I/Os"

# 4. Usage: missing input exits 2; an unwritable -o is found before reading.
"$BIN" trace stat no-such-file > /dev/null 2>&1
[ $? -eq 2 ] || err "missing input should exit 2"
"$BIN" calibrate no-such-file > /dev/null 2>&1
[ $? -eq 2 ] || err "calibrate of a missing input should exit 2"
msg=$("$BIN" trace convert g.txt --to blkparse -o no-dir/out.txt 2>&1)
[ $? -ne 0 ] && echo "$msg" | grep -q 'no-dir' || err "unwritable -o: $msg"
"$BIN" list --help > /dev/null 2>&1 || err "list --help failed"
msg=$("$BIN" run "$SRC/configs/scenarios/block-replay.yaml" --quiet --out no-dir/r.json 2>&1)
rc=$?
[ $rc -eq 2 ] && echo "$msg" | grep -q 'cannot write in no-dir' || err "run --out no-dir/...: exit $rc: $msg"

# 5. run takes a per-CPU set by its base name, and counts what the reader read past.
"$BIN" run "$SRC/configs/scenarios/block-replay.yaml" --set workload.trace="$TMP/s" --quiet --out r.json ||
	err "run with a per-CPU set's base name exited $?"
grep -q '"cut_last_records": 1' r.json || err "run result does not count the cut record"
msg=$("$BIN" run "$SRC/configs/scenarios/block-replay.yaml" --set workload.trace="$TMP/none" --quiet 2>&1)
echo "$msg" | grep -q 'cannot be read: No such file' || err "run with a missing trace gives no reason: $msg"
msg=$("$BIN" run "$SRC/configs/scenarios/block-replay.yaml" --set run.max_events=1000 --quiet 2>&1)
echo "$msg" | grep -q 'stopped early' || err "a run cut by run.max_events does not say so: $msg"

# 6. A NUL in [comm]: one verdict from trace stat, block replay and ftrace replay.
printf '  app-100 [000] .... 1.000000: block_rq_issue: 8,0 R 0 () 1000 + 8 [ap\0p]\n' > nul.trace
printf '  <idle>-0 [000] d.h. 1.000100: block_rq_complete: 8,0 R () 1000 + 8 [0]\n' >> nul.trace
"$BIN" trace stat nul.trace > /dev/null 2>&1; a=$?
"$BIN" run "$SRC/configs/scenarios/block-replay.yaml" --set workload.trace="$TMP/nul.trace" --quiet > /dev/null 2>&1; b=$?
"$BIN" run "$SRC/configs/scenarios/ftrace-replay.yaml" --set workload.trace="$TMP/nul.trace" --quiet > /dev/null 2>&1; c=$?
[ $a -eq 2 ] && [ $b -eq 2 ] && [ $c -eq 2 ] || err "NUL in [comm]: stat $a, block replay $b, ftrace replay $c (want 2 2 2)"

# 7. ftrace: stat counts every event, not only block ones.
"$BIN" trace stat "$SRC/tests/data/android-ftrace/trace-head2000.trace" | grep -Eq '^events: +[1-9]' ||
	err "ftrace stat counts no events"
exit $fail
