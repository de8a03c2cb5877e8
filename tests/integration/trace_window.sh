#!/usr/bin/env bash
# Time windows (issue 37 item 3): --from/--until on trace stat, trace convert
# and workload fit, and workload.from/until on a replay, keep exactly the
# records inside the window (relative to the first record, or @T on the
# recording's clock), count the rest, and refuse a window that ends before
# it starts. Capture segments (--segment, workload.segment): a trace of three
# recordings joined end to end (a 2 h pause, then a reboot that restarted the
# clock) is cut into three; only the one asked for is read, windows count
# from its start, and a segment past the last is refused.
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

# Three captures: 20 reads from t = 100 s, 30 from t = 7300 s (2 h later),
# 40 from t = 20000 s, each 0.1 s apart; joined() writes such a file.
joined() {
	n=0
	for seg in "$@"; do
		set -- $seg
		for i in $(seq 0 $(($2 - 1))); do
			n=$((n + 1))
			printf '  8,0    0 %8d %5d.%09d  100  Q   R %d + 8 [app]\n' $n $(($1 + i / 10)) \
				$(((i % 10) * 100000000)) $((n * 8))
		done
	done
}
joined "100 20" "7300 30" "20000 40" > "$tmp/s.txt"
for want in "1 20" "2 30" "3 40"; do
	set -- $want
	"$bin" trace stat "$tmp/s.txt" --segment $1 > "$tmp/s$1" 2>/dev/null || say "--segment $1 exited $?"
	[ "$(ev "$tmp/s$1")" = $2 ] || say "--segment $1: $(ev "$tmp/s$1") events, expected $2"
done
grep -q "^segment:  2 of at least 3 .*: 20 records before it .*the rest not read" "$tmp/s2" ||
	say "segment 2 line: $(grep segment: "$tmp/s2")"
grep -q "^segment:  3 of 3 .*: 50 records before it" "$tmp/s3" || say "segment 3 line: $(grep segment: "$tmp/s3")"
# a window inside segment 2, from its own first record: [1 s, 2 s] keeps 11
"$bin" trace stat "$tmp/s.txt" --segment 2 --from 1s --until 2s > "$tmp/s2w" 2>/dev/null || say "segment window exited $?"
[ "$(ev "$tmp/s2w")" = 11 ] || say "--segment 2 --from 1s --until 2s: $(ev "$tmp/s2w") events, expected 11"
# --max-gap sets the cut: at 1 h 59 min the 2 h pause still cuts, the reboot too
"$bin" trace stat "$tmp/s.txt" --segment 3 --max-gap 7000s > "$tmp/s3g" 2>/dev/null || say "--max-gap segment exited $?"
[ "$(ev "$tmp/s3g")" = 40 ] || say "--segment 3 --max-gap 7000s: $(ev "$tmp/s3g") events"
msg=$("$bin" trace stat "$tmp/s.txt" --segment 4 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$msg" | grep -q "capture segment 4 asked for: the trace has 3" || say "segment 4: $rc $msg"
msg=$("$bin" trace stat "$tmp/s.txt" --segment 0 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$msg" | grep -q "^mobisim: --segment '0'" || say "segment 0: $rc $msg"
"$bin" workload fit "$tmp/s.txt" --segment 3 > "$tmp/sfit" 2>/dev/null || say "fit --segment exited $?"
grep -q "^model:    40 requests" "$tmp/sfit" || say "fit --segment 3: $(grep model: "$tmp/sfit")"
# a reboot restarts the clock: a step back of more than an hour cuts too
# (blkparse text is read through a reorder window, which would sort the
# second capture first: --window 1 keeps the file's order)
joined "9000 20" "5 30" > "$tmp/b.txt"
"$bin" trace stat "$tmp/b.txt" --window 1 --segment 2 > "$tmp/b2" 2>/dev/null || say "reboot segment exited $?"
[ "$(ev "$tmp/b2")" = 30 ] || say "reboot --segment 2: $(ev "$tmp/b2") events, expected 30"
cat > "$tmp/rs.yaml" <<YAML
name: seg
device: {model: ideal, service: fixed, mean_us: 100, servers: 1}
scheduler: noop
workload:
  type: replay
  trace: $tmp/s.txt
  segment: 2
YAML
"$bin" run "$tmp/rs.yaml" --quiet --out "$tmp/rs.json" 2>/dev/null || say "replay with segment: exited $?"
python3 - "$tmp/rs.json" <<'PY' || say "replay segment"
import json, sys
w = json.load(open(sys.argv[1]))["workload"]
assert w["ios_injected"] == 30, w["ios_injected"]
assert w["segment"] == {"number": 2, "records_before": 20, "rest_not_read": True}, w["segment"]
PY
exit $fail
