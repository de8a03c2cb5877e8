#!/usr/bin/env bash
# blkparse exactness on a big multi-CPU set (issue 25 item 5): the 40-CPU set
# scripts/gen-blktrace-set writes (renamed threads: pids announced under
# several names in different CPU files; colliding timestamps across CPUs;
# several 512-event batches per CPU) converts with `trace convert --to
# blkparse` byte for byte as Debian's blkparse 1.2.0 prints it: against its
# stored output, and against the blkparse on this machine for a bigger set
# and other seeds when it is installed.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
cd "$tmp" || exit 1

python3 "$src/scripts/gen-blktrace-set" o 40 3000 25 || say "generator failed"
sum=$(cat $(for i in $(seq 0 39); do echo o.blktrace.$i; done) | sha256sum | cut -d' ' -f1)
if [ "$sum" != 522dd4de40190c13f3e304610560fdd1fd06dcd7e0ec7eb715d29e91f4774a06 ]; then
	say "the generator wrote another set (sha256 $sum): Python's random changed? regenerate tests/data/blkparse-40cpu"
else
	xz -dc "$src/tests/data/blkparse-40cpu/o.blkparse.xz" > want.txt
	"$bin" trace convert o --to blkparse > got.txt || say "convert exited $?"
	cmp -s want.txt got.txt || { say "40-CPU set: $(diff want.txt got.txt | grep -c '^<') of $(wc -l < want.txt) lines differ from blkparse 1.2.0"; diff want.txt got.txt | head -6; }
fi

if command -v blkparse > /dev/null 2>&1; then
	for args in "40 20000 7" "64 8000 11" "8 4000 3"; do
		rm -f s.blktrace.*
		python3 "$src/scripts/gen-blktrace-set" s $args || say "generator failed ($args)"
		blkparse -i s > bp.txt 2> /dev/null
		"$bin" trace convert s --to blkparse > mb.txt 2> /dev/null || say "convert exited $? ($args)"
		cmp -s bp.txt mb.txt || say "set $args: $(diff bp.txt mb.txt | grep -c '^<') of $(wc -l < bp.txt) lines differ from blkparse"
	done
fi
exit $fail
