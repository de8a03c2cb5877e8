#!/usr/bin/env bash
# A trace with D (issue) and C (complete) events but no Q (issue 37 item 2):
# trace stat gives sizes, processes and D2C from the D events, and says they
# are not btt's; a trace with Qs keeps btt's figures (the D stand-in is
# dropped at the first Q).
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
# 10 reads of 8 sectors (4 KiB) by pid 100, each D at i ms and C 200 us later
{
	n=1
	for i in $(seq 0 9); do
		printf '  8,0    0 %8d %5d.%09d  100  D   R %d + 8 [app]\n' $n 1 $((i * 1000000)) $((i * 8))
		n=$((n + 1))
		printf '  8,0    0 %8d %5d.%09d    0  C   R %d + 8 [0]\n' $n 1 $((i * 1000000 + 200000)) $((i * 8))
		n=$((n + 1))
	done
} > "$tmp/dc.txt"
"$bin" trace stat "$tmp/dc.txt" > "$tmp/s" || say "stat exited $?"
grep -q "^# request sizes (D events: the trace has no Q)" "$tmp/s" || say "no D size table: $(grep -A2 'request sizes' "$tmp/s")"
grep -Eq '^4 +10 +0$' "$tmp/s" || say "size row: $(grep -A3 'request sizes' "$tmp/s")"
grep -Eq '^100 +app +10 +40$' "$tmp/s" || say "process row: $(grep -A3 'per process' "$tmp/s")"
grep -Eq '^D2C +0\.000200000 +0\.000200000 +0\.000200000 +10$' "$tmp/s" || say "D2C: $(grep '^D2C ' "$tmp/s")"
grep -q "not btt's" "$tmp/s" || say "the D2C is not said to be not btt's"
# the same with a Q before each D: btt's pairing, Q2C and D2C, no stand-in
awk '/ D / { q = $0; sub(/ D /, " Q ", q); print q } { print }' "$tmp/dc.txt" > "$tmp/qdc.txt"
"$bin" trace stat "$tmp/qdc.txt" > "$tmp/q" || say "stat with Q exited $?"
grep -q "^# request sizes (Q events)" "$tmp/q" || say "with Qs the table is not of Q events"
grep -Eq '^Q2C +0\.000200000 .* 10$' "$tmp/q" || say "Q2C with Qs: $(grep '^Q2C ' "$tmp/q")"
grep -q "not btt's" "$tmp/q" && say "a trace with Qs was called not btt's"
exit $fail
