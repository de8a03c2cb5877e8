#!/bin/bash
# End-to-end test of the readers in traces/csvtrace.c, traces/perfetto.c,
# traces/tracecmd.c and traces/systrace.c: every broken input of their fuzz corpora exits 2 with
# a line number or byte offset; the valid-* seeds parse; lenient-* inputs
# parse with a warning counted and are refused under --strict; a trace.dat
# gives the same blkparse text as `trace-cmd report` of it read by the
# ftrace text reader; each format replays through the block layer
# (workload.trace=).
# usage: trace_readers.sh MOBISIM_BIN SRC_DIR
set -u
BIN=${1:?mobisim binary}
SRC=${2:?source dir}
# libtracecmd trusts section sizes in v7 files and asks malloc for up to
# 4 GiB (tests/fuzz/corpus/tracecmd/found-v7-huge-section); glibc says no and
# the reader exits 2, ASan would abort instead: let it say no as glibc does.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

have_tracecmd=false
"$BIN" --version | grep -q '^trace.dat reader: yes' && have_tracecmd=true
for r in csv fio perfetto tracecmd systrace; do
	d="$SRC/tests/fuzz/corpus/$r"
	[ -d "$d" ] || continue
	for f in "$d"/*; do
		[ -f "$f" ] || continue
		name=$(basename "$f")
		if [ $r = tracecmd ] && ! $have_tracecmd && case $name in valid-* | lenient-*) true ;; *) false ;; esac; then
			# the structure checks out; reading the records needs the library
			msg=$("$BIN" trace stat "$f" 2>&1 >/dev/null); rc=$?
			[ $rc -eq 2 ] && echo "$msg" | grep -q "built without libtracecmd" || err "$f without libtracecmd: $rc $msg"
			continue
		fi
		case "$name" in
		valid-*)
			"$BIN" trace stat "$f" > "$TMP/out" 2>&1 || err "$f: exit $?: $(head -c 300 "$TMP/out")"
			;;
		lenient-*)
			"$BIN" trace stat "$f" > "$TMP/out" 2>&1 || err "$f: exit $?: $(head -c 300 "$TMP/out")"
			grep -q "^warnings: " "$TMP/out" || err "$f: no warning in the report"
			msg=$("$BIN" trace stat --strict "$f" 2>&1 >/dev/null)
			rc=$?
			[ $rc -eq 2 ] || err "$f --strict: exit $rc, expected 2"
			echo "$msg" | grep -Eq '^mobisim: .*: byte offset [0-9]+: .*\(--strict\)$' ||
				err "$f --strict: $msg"
			;;
		*)
			msg=$("$BIN" trace stat "$f" 2>&1 >/dev/null)
			rc=$?
			[ $rc -eq 2 ] || { err "$f: exit $rc, expected 2: $msg"; continue; }
			echo "$msg" | grep -Eq '^mobisim: .*(: byte offset [0-9]+: |:[0-9]+: )' ||
				err "$f: message names no offset or line: $msg"
			;;
		esac
	done
done

# Lenient by default, refused under --strict: an MSR line with an operation
# the format does not have.
printf '128166372003061629,wdev,0,Write,0,4096,1\n128166372003061639,wdev,0,Flush,0,0,0\n' > "$TMP/f.csv"
"$BIN" trace stat "$TMP/f.csv" > "$TMP/stat" || err "lenient stat exited $?"
grep -q "warnings: 1 lines skipped" "$TMP/stat" || err "no warning count in stat: $(cat "$TMP/stat")"
"$BIN" trace stat --strict "$TMP/f.csv" > /dev/null 2>&1
[ $? -eq 2 ] || err "--strict did not refuse the skipped line"

# fio v3 -> blkparse text, and a mapped text format -> MQSim ASCII.
"$BIN" trace convert "$SRC/tests/fuzz/corpus/fio/valid-v3" --to blkparse > "$TMP/fio.txt" || err "fio convert exited $?"
grep -q ' Q   R 0 + 8 ' "$TMP/fio.txt" || err "fio convert: no read at sector 0: $(head -3 "$TMP/fio.txt")"
printf '0.5 R 100 8\n1.25 W 200 16\n' > "$TMP/gen.txt"
"$BIN" trace convert "$TMP/gen.txt" --columns time=1:ms,op=2,offset=3:sector,size=4:sector,sep=ws \
	--to mqsim > "$TMP/ops.txt" || err "--columns convert exited $?"
grep -qx '750000 0 200 16 0' "$TMP/ops.txt" || err "--columns: $(cat "$TMP/ops.txt")"

# trace.dat and `trace-cmd report` of it (read as ftrace text) agree.
TD=$SRC/tests/data/tracecmd
if $have_tracecmd; then
	for v in 6 7; do
		"$BIN" trace convert "$TD/block-v$v.dat" --to blkparse > "$TMP/dat$v.txt" 2> "$TMP/dat.err" ||
			err "trace.dat v$v convert exited $?: $(cat "$TMP/dat.err")"
	done
	"$BIN" trace convert "$TD/block.report.txt" --to blkparse > "$TMP/report.txt" || err "report convert exited $?"
	cmp -s "$TMP/dat6.txt" "$TMP/report.txt" || { err "trace.dat v6 and its trace-cmd report differ"; diff "$TMP/dat6.txt" "$TMP/report.txt" | head -6 >&2; }
	cmp -s "$TMP/dat7.txt" "$TMP/dat6.txt" || err "trace.dat v7 and v6 differ"
	if command -v trace-cmd >/dev/null 2>&1; then
		trace-cmd report -t -i "$TD/block-v6.dat" > "$TMP/live.report" 2>/dev/null
		cmp -s "$TMP/live.report" "$TD/block.report.txt" || err "trace-cmd report of block-v6.dat changed"
	fi
else
	echo "SKIP: trace.dat checks: this mobisim was built without libtracecmd"
	msg=$("$BIN" trace stat "$TD/block-v6.dat" 2>&1 >/dev/null); rc=$?
	[ $rc -eq 2 ] && echo "$msg" | grep -q "built without libtracecmd" || err "trace.dat without libtracecmd: $rc $msg"
fi

# The Perfetto trace of a Pixel 7 Pro: counts of its packets and slices.
"$BIN" trace stat "$SRC/tests/data/perfetto-pixel/trace.perfetto-trace" > "$TMP/pixel" || err "pixel stat exited $?"
grep -q "^packets:  7676 (ftrace bundles 177" "$TMP/pixel" || err "pixel: $(grep packets "$TMP/pixel")"
grep -q "^regions: 3123 closed" "$TMP/pixel" || err "pixel: $(grep regions "$TMP/pixel")"
grep -q "^packages: 425" "$TMP/pixel" || err "pixel: $(grep packages "$TMP/pixel")"

# Block replay takes the new formats by content.
for f in "$SRC/tests/fuzz/corpus/csv/valid-msr" "$SRC/tests/fuzz/corpus/fio/valid-v2" \
	"$SRC/tests/fuzz/corpus/perfetto/valid-synthetic" $($have_tracecmd && echo "$TD/block-v7.dat"); do
	"$BIN" run "$SRC/configs/scenarios/block-replay.yaml" --set "workload.trace=$f" --quiet \
		--out "$TMP/r.json" > "$TMP/run.log" 2>&1 || err "replay of $f exited $?: $(tail -2 "$TMP/run.log")"
done

exit $fail
