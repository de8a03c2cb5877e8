#!/usr/bin/env bash
# --seed is validated like `seed:` in a scenario (an integer in
# [0, 9200000000000000000], decimal or 0x hex) and recorded exactly:
# -1, 2^64, 1e26 and 2^63 are refused with exit 2 (they used to run as
# seed -1 and be recorded as -9223372036854776000), for run, compare and
# device curve alike.
set -u
bin=$1 src=$2
fail=0
say() { echo "FAIL: $*"; fail=1; }
mm1=$src/configs/scenarios/mm1.yaml
for v in -1 18446744073709551616 1e26 9223372036854775808 9200000000000000001 12abc "" " "; do
	for cmd in "run $mm1 --set source.requests=10 --quiet" \
		"compare $mm1 --set source.requests=10 --policies baseline;expc --quiet" \
		"device curve emmc45 --requests 16"; do
		IFS=' ' read -r -a argv <<<"$cmd"
		msg=$("$bin" "${argv[@]}" --seed "$v" 2>&1 >/dev/null); rc=$?
		[ $rc = 2 ] || say "${argv[0]} --seed '$v' exited $rc, wanted 2"
		grep -q "^mobisim: --seed: .*not an integer in \[0, 9200000000000000000\]" <<<"$msg" ||
			say "${argv[0]} --seed '$v': message '$msg'"
	done
done
# the largest seed is recorded exactly, as a JSON integer
out=$("$bin" run "$mm1" --set source.requests=10 --quiet --seed 9200000000000000000 --out -) ||
	say "--seed 9200000000000000000 exited $?"
grep -q '"seed": 9200000000000000000,' <<<"$out" || say "the seed is not recorded exactly: $(grep '"seed"' <<<"$out" | head -1)"
# hex as in YAML, and --seed equals seed:
a=$("$bin" run "$mm1" --set source.requests=500 --quiet --seed 0x10 --out - | grep -v wall_s | grep -v events_per_s | grep -v peak_rss | grep -v '"seed"')
b=$("$bin" run "$mm1" --set source.requests=500 --set seed=16 --quiet --out - | grep -v wall_s | grep -v events_per_s | grep -v peak_rss | grep -v '"seed"')
[ "$a" = "$b" ] || say "--seed 0x10 and seed: 16 give different runs"
exit $fail
