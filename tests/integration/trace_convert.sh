#!/bin/bash
# End-to-end test of `mobisim trace`: convert the shared blktrace sample and
# diff it against the checked-in blkparse 1.2.0 output (and against a live
# `blkparse -i - < FILE` when blkparse is installed); round-trip the text;
# check -o is atomic; and run `trace stat` over every broken input of the
# fuzz corpora: each must exit 2 with a byte offset or line number, never
# crash.
# usage: trace_convert.sh MOBISIM_BIN SRC_DIR
set -u
BIN=${1:?mobisim binary}
SRC=${2:?source dir}
DATA=$SRC/tests/data
BT=$DATA/blktrace-nvme-readahead/sample.blktrace.0
ORACLE=$DATA/blktrace-nvme-readahead/sample.blkparse.txt
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

# 1. binary -> blkparse text, byte for byte against the oracle.
"$BIN" trace convert "$BT" --to blkparse > "$TMP/conv.txt" || err "convert exited $?"
cmp -s "$TMP/conv.txt" "$ORACLE" || { err "convert differs from $ORACLE"; diff "$TMP/conv.txt" "$ORACLE" | head -5 >&2; }

# 2. against the live blkparse, when installed.
if command -v blkparse >/dev/null 2>&1; then
	blkparse -i - < "$BT" > "$TMP/live.txt" 2>/dev/null
	cmp -s "$TMP/conv.txt" "$TMP/live.txt" || err "convert differs from live blkparse"
	# A big-endian copy of the sample: both must still agree.
	if command -v python3 >/dev/null 2>&1; then
		python3 - "$BT" "$TMP/be.bin" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read(); out = bytearray(); off = 0
while off + 48 <= len(d):
    f = struct.unpack_from('<IIQQIIIIIHH', d, off)
    out += struct.pack('>IIQQIIIIIHH', *f) + d[off + 48: off + 48 + f[10]]
    off += 48 + f[10]
open(sys.argv[2], 'wb').write(out)
PY
		"$BIN" trace convert "$TMP/be.bin" --to blkparse > "$TMP/be.txt" || err "convert big-endian exited $?"
		cmp -s "$TMP/be.txt" "$ORACLE" || err "big-endian convert differs from the oracle"
	fi
else
	echo "note: blkparse not installed; live comparison skipped" >&2
fi

# 2b. binary out: the sample through --to blktrace reads back to the same text,
# in mobisim and (when installed) in blkparse and btt.
"$BIN" trace convert "$BT" --to blktrace -o "$TMP/rt.bin" || err "convert --to blktrace exited $?"
"$BIN" trace convert "$TMP/rt.bin" --to blkparse | cmp -s - "$ORACLE" || err "blktrace round trip differs"
if command -v blkparse >/dev/null 2>&1; then
	blkparse -i - < "$TMP/rt.bin" 2>/dev/null | cmp -s - "$ORACLE" || err "blkparse reads our blktrace output differently"
fi
if command -v btt >/dev/null 2>&1; then
	(cd "$TMP" && btt -i "$BT" > btt-orig.txt 2>/dev/null && btt -i rt.bin > btt-rt.txt 2>/dev/null)
	a=$(grep -E '^(D2C|Q2C) ' "$TMP/btt-orig.txt"); b=$(grep -E '^(D2C|Q2C) ' "$TMP/btt-rt.txt")
	[ -n "$a" ] && [ "$a" = "$b" ] || err "btt D2C/Q2C differ on our blktrace output: '$a' vs '$b'"
fi

# 3. blkparse text reads back and prints identically.
"$BIN" trace convert "$ORACLE" --to blkparse > "$TMP/rt.txt" || err "text round trip exited $?"
cmp -s "$TMP/rt.txt" "$ORACLE" || err "text round trip differs"

# 4. -o is atomic: written whole on success, absent on failure.
"$BIN" trace convert "$BT" --to blkparse -o "$TMP/out.txt" || err "convert -o exited $?"
cmp -s "$TMP/out.txt" "$ORACLE" || err "convert -o output differs"
"$BIN" trace convert "$SRC/tests/fuzz/corpus/blktrace/truncated-last" --strict --to blkparse -o "$TMP/bad.txt" 2>/dev/null
rc=$?
[ $rc -eq 2 ] || err "convert of a broken trace exited $rc, expected 2"
[ ! -e "$TMP/bad.txt" ] || err "convert of a broken trace left $TMP/bad.txt"
ls "$TMP" | grep -q '\.tmp\.' && err "temporary file left behind"
out=$("$BIN" trace convert "$SRC/tests/fuzz/corpus/blktrace/wrong-magic" --to blkparse 2>/dev/null)
[ -z "$out" ] || err "convert to stdout of a broken trace printed events"

# 5. MQSim form of the TPC-C sample: one line per request plus the header,
# and mobisim reads it back to the same requests.
"$BIN" trace convert "$DATA/disksim-ascii/tpcc-small.trace" --to mqsim -o "$TMP/mq.txt" || err "mqsim exited $?"
n=$(grep -vc '^#' "$TMP/mq.txt")
[ "$n" -eq 6999 ] || err "mqsim: $n lines, expected 6999"
head -2 "$TMP/mq.txt" | tail -1 | grep -qx '938513000 4 264719034 16 0' || err "mqsim: first line $(head -2 "$TMP/mq.txt" | tail -1)"
"$BIN" trace convert "$TMP/mq.txt" --to mqsim | cmp -s - "$TMP/mq.txt" || err "mqsim output does not read back to itself"
"$BIN" trace convert "$DATA/disksim-ascii/tpcc-small.trace" --to ops >/dev/null 2>&1
[ $? -eq 2 ] || err "--to ops should be refused with a pointer to mqsim"

# 6. stat on every shared sample.
for f in "$BT" "$ORACLE" "$DATA/disksim-ascii/tpcc-small.trace" "$DATA/disksim-ascii/wsrch-small.trace"; do
	"$BIN" trace stat "$f" > "$TMP/stat.txt" || err "stat $f exited $?"
done
"$BIN" trace stat "$BT" | grep -Eq '^D2C +0\.000052471 +0\.000055949 +0\.000102460 +963$' ||
	err "stat: D2C differs from btt's (0.000052471 0.000055949 0.000102460 963)"

# 7. broken inputs: exit 2 with an offset or a line, never a crash.
for r in blktrace blkparse disksim; do
	for f in "$SRC/tests/fuzz/corpus/$r"/*; do
		[ -f "$f" ] || continue
		msg=$("$BIN" trace stat --strict "$f" 2>&1 >/dev/null)
		rc=$?
		[ $rc -eq 2 ] || { err "$f: exit $rc, expected 2: $msg"; continue; }
		echo "$msg" | grep -Eq '^mobisim: .*(: byte offset [0-9]+: |:[0-9]+: )' ||
			err "$f: message names no offset or line: $msg"
	done
done

exit $fail
