#!/usr/bin/env bash
# scripts/figures end to end in its --quick mode: one small figure
# (FAST cold start vs prefetcher: a recording run, a two-point sweep, the data
# TSV, the gnuplot script, PNG and PDF, the notes) into a temporary directory,
# so CI checks the figure pipeline without the full run. docs/ is not touched.
# Checks: exit status, PNG and PDF signatures, the data table (8 apps, launch
# times > 0, the prefetcher not slower than a cold start by more than 5 %), the
# notes' section, that a second run gives the same data bytes, and that a run
# whose gnuplot fails mid-way replaces none of the earlier outputs.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

for t in gnuplot python3; do
	if ! command -v $t >/dev/null; then
		echo "SKIP: $t not installed (scripts/lib/deps.sh installs it)"
		echo "0 passed, 0 failed, 1 skipped"
		exit 0
	fi
done
if ! gnuplot -e 'set terminal' 2>&1 | grep -q pdfcairo; then
	echo "SKIP: this gnuplot has no pdfcairo terminal"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

doc_before=$(cat "$src/docs/reproduction.md" 2>/dev/null | md5sum)
if ! bash "$src/scripts/figures" --quick --bin "$bin" --out "$tmp/a" -j 2 >"$tmp/log" 2>&1; then
	cat "$tmp/log"
	say "scripts/figures --quick failed"
fi
png=$tmp/a/fast-launch.png pdf=$tmp/a/fast-launch.pdf tsv=$tmp/a/data/fast-launch.tsv
[ "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || say "no PNG at $png"
[ "$(head -c 5 "$pdf" 2>/dev/null)" = "%PDF-" ] || say "no PDF at $pdf"
[ "$(stat -c %s "$png" 2>/dev/null || echo 0)" -gt 10000 ] || say "PNG suspiciously small"
rows=$(grep -vc '^#' "$tsv" 2>/dev/null || echo 0)
[ "$rows" = 8 ] || say "fast-launch.tsv has $rows rows, expected 8 apps"
awk -F'\t' '!/^#/ && !($2 > 0 && $3 > 0 && $3 <= $2 * 1.05) { bad = 1; print "bad row: " $0 } END { exit bad }' "$tsv" ||
	say "launch times not positive or FAST slower than cold"
grep -q '^### FAST: cold start vs the FAST prefetcher' "$tmp/a/reproduction.md" 2>/dev/null ||
	say "notes lack the FAST section"
grep -q '^## User-centric' "$tmp/a/reproduction.md" 2>/dev/null && say "quick notes hold more than one figure"
[ "$(cat "$src/docs/reproduction.md" 2>/dev/null | md5sum)" = "$doc_before" ] || say "--quick changed docs/reproduction.md"

# same inputs, same data
if bash "$src/scripts/figures" --quick --bin "$bin" --out "$tmp/b" -j 1 >"$tmp/log2" 2>&1; then
	cmp -s "$tsv" "$tmp/b/data/fast-launch.tsv" || say "a second run (-j 1) gave other data"
	cmp -s "$tmp/a/reproduction.md" "$tmp/b/reproduction.md" || say "a second run gave other notes"
else
	cat "$tmp/log2"
	say "second scripts/figures --quick failed"
fi

# nothing half-written: gnuplot failing at the PDF (after the PNG was drawn)
# leaves the earlier figures, data and notes as they were, and no staging
# directory (before, the PNG was replaced and the notes were new)
mkdir -p "$tmp/fake"
real=$(command -v gnuplot)
printf '#!/bin/sh\ncase "$*" in *"fmt='"'"'pdf'"'"'"*) echo "fake gnuplot: no pdf" >&2; exit 1 ;; esac\nexec %s "$@"\n' "$real" >"$tmp/fake/gnuplot"
chmod +x "$tmp/fake/gnuplot"
sums() { (cd "$tmp/a" && md5sum fast-launch.png fast-launch.pdf data/fast-launch.tsv reproduction.md); }
before=$(sums)
if PATH=$tmp/fake:$PATH bash "$src/scripts/figures" --quick --bin "$bin" --out "$tmp/a" -j 2 >"$tmp/log3" 2>&1; then
	say "scripts/figures with a failing gnuplot exited 0"
fi
grep -q 'gnuplot scripts/fast-launch.gp (pdf) failed' "$tmp/log3" || say "the gnuplot failure is not named: $(tail -3 "$tmp/log3")"
[ "$(sums)" = "$before" ] || say "a failed scripts/figures replaced an earlier output"
! ls -A "$tmp/a" | grep -q '^\.figures\.' || say "a failed scripts/figures left its staging directory"

if [ $fail = 0 ]; then
	echo "1 passed, 0 failed"
else
	echo "0 passed, 1 failed"
fi
exit $fail
