#!/usr/bin/env bash
# Numeric limits of block replay, on both replay
# scenarios (open loop through noop, closed loop through CFQ):
#  - a 73-year gap between two requests (the replay's limit, 2^61 - 1 ns)
#    replays at once - the run skips the empty done()-check slices instead
#    of stepping through 10^15 of them - and ends there;
#  - a request 2^63 - 1 ns after the first is refused with exit 2 and a
#    message naming the file and record, instead of overflowing the clock;
#  - arrival times near INT64_MAX themselves are fine (only gaps count),
#    and so is the largest request (8388607 sectors) at the top of the LBA
#    space.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

printf '0 0 8 8 1\n2305843009213693951 0 16 8 1\n' >"$tmp/gap.trace"
printf '0 0 8 8 1\n9223372036854775807 0 16 8 1\n' >"$tmp/far.trace"
printf '9223372036854775000 0 8 8 1\n9223372036854775807 0 18446744073701163008 8388607 0\n' >"$tmp/top.trace"

for sc in device-replay:open block-replay:closed; do
	name=${sc%%:*} mode=${sc##*:}
	run() { timeout 60 "$bin" run "$src/configs/scenarios/$name.yaml" --set workload.trace="$1" \
		--set replay="$mode" --quiet --out "$2"; }

	run "$tmp/gap.trace" "$tmp/gap.json" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] || say "$name: a 73-year gap: exit $rc $(cat "$tmp/err")"
	[ $rc = 0 ] && python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['workload']['ios_completed'] == 2, d['workload']
assert d['engine']['sim_ns'] >= 2305843009213693951, d['engine']
" "$tmp/gap.json" || say "$name: a 73-year gap: wrong result"

	run "$tmp/far.trace" "$tmp/far.json" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] || say "$name: a 2^63 ns gap: exit $rc, want 2"
	grep -q "far.trace: record 2: time 9223372036854775807 ns after the first record is beyond" "$tmp/err" ||
		say "$name: a 2^63 ns gap: message: $(cat "$tmp/err")"

	run "$tmp/top.trace" "$tmp/top.json" >/dev/null 2>"$tmp/err" ||
		say "$name: times near INT64_MAX, the largest request at the top LBA: exit $? $(cat "$tmp/err")"
done

[ $fail = 0 ] && echo "limits: ok"
exit $fail
