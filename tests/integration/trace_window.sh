#!/usr/bin/env bash
# Time windows (issue 37 item 3): --from/--until on trace stat, trace convert
# and workload fit, and workload.from/until on a replay, keep exactly the
# records inside the window (relative to the first record, or @T on the
# recording's clock), count the rest, and refuse a window that ends before
# it starts.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

# 100 queued reads of one process, 0.1 s apart, starting at t = 50 s.
{
	for i in $(seq 0 99); do
		printf '  8,0    0 %8d %5d.%09d  100  Q   R %d + 8 [app]\n' $((i + 1)) $((50 + i / 10)) \
			$(((i % 10) * 100000000)) $((i * 8))
	done
} > "$tmp/t.txt"
ev() { awk '/^events:/ { print $2 }' "$1"; }
"$bin" trace stat "$tmp/t.txt" > "$tmp/all" || say "stat exited $?"
[ "$(ev "$tmp/all")" = 100 ] || say "all: $(ev "$tmp/all") events"
# [1 s, 2 s] after the first record: records 10..20 (both ends kept)
"$bin" trace stat "$tmp/t.txt" --from 1s --until 2s > "$tmp/w" || say "window stat exited $?"
[ "$(ev "$tmp/w")" = 11 ] || say "--from 1s --until 2s: $(ev "$tmp/w") events, expected 11"
grep -q "^window:   89 records outside --from/--until" "$tmp/w" || say "outside count: $(grep window "$tmp/w")"
# the same on the recording's own clock
"$bin" trace stat "$tmp/t.txt" --from @51s --until @52s > "$tmp/wa" || say "@ window exited $?"
[ "$(ev "$tmp/wa")" = 11 ] || say "--from @51s --until @52s: $(ev "$tmp/wa") events"
"$bin" trace convert "$tmp/t.txt" --to blkparse --from 9s > "$tmp/c.txt" || say "convert exited $?"
[ "$(grep -c ' Q ' "$tmp/c.txt")" = 10 ] || say "convert --from 9s kept $(grep -c ' Q ' "$tmp/c.txt") records"
msg=$("$bin" trace stat "$tmp/t.txt" --from 2s --until 1s 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$msg" | grep -q "ends before it starts" || say "reversed window: $rc $msg"
msg=$("$bin" trace stat "$tmp/t.txt" --from soon 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$msg" | grep -q "^mobisim: --from 'soon'" || say "bad --from: $rc $msg"
"$bin" workload fit "$tmp/t.txt" --until 4.95s > "$tmp/fit" || say "fit --until exited $?"
grep -q "^model:    50 requests" "$tmp/fit" || say "fit --until: $(grep model: "$tmp/fit")"
cat > "$tmp/r.yaml" <<YAML
name: win
device: {model: ideal, service: fixed, mean_us: 100, servers: 1}
scheduler: noop
workload:
  type: replay
  trace: $tmp/t.txt
  from: 5s
YAML
"$bin" run "$tmp/r.yaml" --quiet --out "$tmp/r.json" || say "replay with from: exited $?"
python3 - "$tmp/r.json" <<'PY' || say "replay window"
import json, sys
w = json.load(open(sys.argv[1]))["workload"]
assert w["ios_injected"] == 50, w["ios_injected"]
assert w["reader_warnings"]["outside_window"] == 50, w["reader_warnings"]
PY
exit $fail
