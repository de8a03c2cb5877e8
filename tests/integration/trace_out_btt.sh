#!/usr/bin/env bash
# --trace-out: a simulated run written as blktrace binary
# is read by Debian's blkparse into exactly the text --trace-out writes,
# and btt's D2C and Q2C averages equal the simulator's own btt figures.
# Skips the oracle parts (exit 0 with a note) when blkparse/btt are absent.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run=("$bin" run "$src/configs/scenarios/mm1.yaml" --set source.requests=3000
	--set scheduler=cfq --set source.target=block --set source.write_fraction=0.3 --quiet)

"${run[@]}" --trace-out "$tmp/sim.blkparse" --out "$tmp/r.json" || { echo "FAIL: text run"; exit 1; }
"${run[@]}" --trace-out "$tmp/sim.blktrace.0" || { echo "FAIL: binary run"; exit 1; }
[ -s "$tmp/sim.blkparse" ] && [ -s "$tmp/sim.blktrace.0" ] || { echo "FAIL: empty trace"; exit 1; }
grep -q "^  8,0    0        1     0.000000000 " "$tmp/sim.blkparse" || { echo "FAIL: first line"; fail=1; }
ls -a "$tmp" | grep -q '\.tmp\.' && { echo "FAIL: temporary file left behind"; fail=1; }

if command -v blkparse >/dev/null; then
	blkparse -i - <"$tmp/sim.blktrace.0" >"$tmp/real.txt" 2>/dev/null
	if ! cmp -s "$tmp/real.txt" "$tmp/sim.blkparse"; then
		echo "FAIL: blkparse of the binary differs from --trace-out text:"
		diff "$tmp/real.txt" "$tmp/sim.blkparse" | head -5
		fail=1
	fi
else
	echo "note: blkparse not installed; binary/text agreement not checked"
fi

# The simulator's fg averages (ns), from the first d2c_ns / q2c_ns objects (fg comes first).
sim_mean() { awk -v k="\"$1\"" '$1 == k":" { f = 1 } f && $1 == "\"mean\":" { gsub(",", "", $2); print $2; exit }' "$tmp/r.json"; }
if command -v btt >/dev/null; then
	(cd "$tmp" && btt -i sim.blktrace.0 >btt.txt 2>/dev/null)
	for pair in D2C:d2c_ns Q2C:q2c_ns; do
		name=${pair%%:*} key=${pair##*:}
		got=$(awk -v n="$name" '$1 == n { print $3; exit }' "$tmp/btt.txt")
		want=$(sim_mean "$key")
		if [ -z "$got" ] || [ -z "$want" ]; then
			echo "FAIL: $name missing (btt '$got', simulator '$want')"
			fail=1
			continue
		fi
		# btt prints seconds with 9 decimals: agree to within 1 ns.
		if ! awk -v g="$got" -v w="$want" 'BEGIN { d = g * 1e9 - w; exit !(d < 1.0 && d > -1.0) }'; then
			echo "FAIL: btt $name avg $got s, simulator $want ns"
			fail=1
		fi
	done
else
	echo "note: btt not installed; averages not checked"
fi
exit $fail
