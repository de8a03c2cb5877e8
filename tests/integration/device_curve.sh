#!/usr/bin/env bash
# `mobisim device curve` (docs/architecture.md §5): for every bundled flash preset, a TSV
# with a '#' header, 9 sizes 4 KiB..1 MiB per block, a QD1 block and - for
# devices that queue - a deeper block; read bandwidth at 1 MiB above that at
# 4 KiB; the same seed gives the same bytes. Bad device YAML exits 2 with one
# line naming file:line:col.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for p in emmc45 emmc51 ufs20 ufs21 ufs31 ufs31-wb ufs40; do
	out="$tmp/$p.tsv"
	if ! "$bin" device curve "$src/configs/devices/$p.yaml" >"$out" 2>"$tmp/err"; then
		echo "FAIL: $p: $(cat "$tmp/err")"; fail=1; continue
	fi
	head -1 "$out" | grep -q '^# mobisim device curve' || { echo "FAIL: $p: no header"; fail=1; }
	grep -q $'^# size_kib\tread_us\twrite_us\tread_mbps\twrite_mbps$' "$out" ||
		{ echo "FAIL: $p: no column header"; fail=1; }
	blocks=$(grep -c '^# qd=' "$out")
	rows=$(grep -c $'^[0-9]' "$out")
	want=1; [ "$p" != emmc45 ] && want=2
	[ "$blocks" -eq "$want" ] || { echo "FAIL: $p: $blocks blocks, wanted $want"; fail=1; }
	[ "$rows" -eq $((9 * want)) ] || { echo "FAIL: $p: $rows rows"; fail=1; }
	awk -F'\t' '!/^#/ && NF == 5 { if (n++ == 0) a = $4; if (n == 9) b = $4 }
		END { exit !(b > 4 * a) }' "$out" || { echo "FAIL: $p: 1 MiB not > 4 x 4 KiB"; fail=1; }
	"$bin" device curve "$src/configs/devices/$p.yaml" | cmp -s - "$out" ||
		{ echo "FAIL: $p: not deterministic"; fail=1; }
done
printf 'model: flash\nchannels: 2\ndies: 3\n' >"$tmp/bad.yaml"
msg=$("$bin" device curve "$tmp/bad.yaml" 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: bad yaml exited $rc"; fail=1; }
grep -Eq "bad.yaml:3:7: .*multiple of channels" <<<"$msg" || { echo "FAIL: message: $msg"; fail=1; }
printf 'model: table\nread: [[4, 100], [2, 50]]\nwrite: [[4, 1], [8, 2]]\n' >"$tmp/t.yaml"
msg=$("$bin" device curve "$tmp/t.yaml" 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] && grep -q "t.yaml:2:19" <<<"$msg" || { echo "FAIL: table error ($rc): $msg"; fail=1; }
"$bin" device curve "$src/configs/devices/ufs21.yaml" --set wbuf_kib=4KiB >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || { echo "FAIL: small buffer accepted"; fail=1; }
# the header says which depths were measured and why there is one block
h=$("$bin" device curve ufs20 --qd 1 | head -1)
grep -q 'device queue depth 32, .*block 0 = QD1 only (--qd 1)$' <<<"$h" || { echo "FAIL: --qd 1 header: $h"; fail=1; }
h=$("$bin" device curve ufs20 --qd 8 | head -1)
grep -q 'block 0 = QD1, block 1 = QD8 (gnuplot index 1)$' <<<"$h" || { echo "FAIL: --qd 8 header: $h"; fail=1; }
h=$("$bin" device curve emmc45 | head -1)
grep -q 'block 0 = QD1 only (the device accepts one command)$' <<<"$h" || { echo "FAIL: emmc45 header: $h"; fail=1; }
[ "$fail" -eq 0 ] && echo "device curve: all checks passed"
exit "$fail"
