#!/bin/bash
# A 10,000-point sweep killed and resumed (issue 38, item 3, at the issue's
# scale; sweep_kill.sh does the fork-at-phase faults on 120 points). The plain
# pool, -j 2, 10^4 M/M/1 points of 10 requests each. Three interruptions in
# turn, each followed by --resume of the same directory:
#   SIGKILL of the main process alone, SIGKILL of its whole process group,
#   SIGTERM of the main process (as a batch system's time limit sends it);
# then a last --resume that finishes. Checks: no process outlives a kill;
# every point is in points/ and in summary.tsv exactly once; a point finished
# before a kill is never run again (its file keeps its inode: a rerun would
# rename a new file over it); no temporary is left; 40 points picked across
# the sweep are byte-identical to the same points run alone (--point), the
# host's wall time, event rate and RSS apart.
# usage: sweep_kill_10k.sh MOBISIM_BIN SRC_DIR
set -u
BIN=${1:?mobisim binary}
SRC=$(cd "${2:?source dir}" && pwd)
TMP=$(mktemp -d)
trap '[ -f "$TMP/bg.pid" ] && kill -KILL -- "-$(cat "$TMP/bg.pid")" 2>/dev/null; rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
cd "$TMP" || exit 1
N=10000
cat > s.yaml <<EOF
base: $SRC/configs/scenarios/mm1.yaml
set:
  source.requests: 10
axes:
  source.rate_per_s: {range: {from: 1, to: $N, step: 1}}
metrics:
  mean_us: {path: classes.fg.read.lat_ns.mean, scale: 1e-3}
EOF
[ "$("$BIN" sweep s.yaml --count)" = $N ] || { err "the sweep has $("$BIN" sweep s.yaml --count) points"; exit 1; }
points() { find "$1/points" -maxdepth 1 -name '[0-9]*.json' 2>/dev/null | wc -l; }
# inode and name of every finished point
inodes() { find "$1/points" -maxdepth 1 -name '[0-9]*.json' -printf '%i %f\n' | sort -k2; }
start() {
	setsid "$BIN" sweep s.yaml -j 2 -o o $1 --quiet 2>>o.err &
	echo $! > bg.pid
	for _ in $(seq 1 3000); do
		[ "$(points o)" -ge "$2" ] && return 0
		kill -0 "$(cat bg.pid)" 2>/dev/null || break
		sleep 0.1
	done
	err "no $2 points in 300 s (or the sweep ended): $(points o), $(tail -3 o.err)"
	return 1
}
gone() {
	local sid; sid=$(cat bg.pid)
	for _ in $(seq 1 1000); do
		pgrep -s "$sid" > /dev/null || return 0
		sleep 0.01
	done
	err "$1: processes left: $(pgrep -a -s "$sid")"
}
# every point finished before the interruption still has its file
kept() {
	local missing
	missing=$(join -1 2 -2 2 -v 1 "$1" <(inodes o) | head -3)
	[ -z "$missing" ] || err "$2: finished points lost: $missing"
	missing=$(join -1 2 -2 2 -o 1.1,2.1,0 "$1" <(inodes o) | awk '$1 != $2' | head -3)
	[ -z "$missing" ] || err "$2: finished points run again (inode changed): $missing"
}

resume=
for step in main:2500 group:5000 term:7500; do
	how=${step%%:*} at=${step#*:}
	start "$resume" "$at" || break
	case $how in
	main) kill -KILL "$(cat bg.pid)" ;;
	group) kill -KILL -- "-$(cat bg.pid)" ;;
	term) kill -TERM "$(cat bg.pid)" ;;
	esac
	gone "$how"
	[ -e o/summary.tsv ] && err "$how: an interrupted sweep wrote a summary"
	n=$(points o)
	echo "note: $how at $n of $N points"
	inodes o > "before-$how"
	rm -f bg.pid
	resume=--resume
	[ "$n" -lt $N ] || echo "note: the sweep had finished before the $how signal"
done
timeout 600 "$BIN" sweep s.yaml -j 2 -o o --resume --quiet 2>>o.err || err "the last --resume exited $?: $(tail -3 o.err)"
for how in main group term; do
	[ -f "before-$how" ] && kept "before-$how" "$how"
done
[ "$(points o)" = $N ] || err "$(points o) points after the last --resume, not $N"
rows=$(grep -vc '^#' o/summary.tsv)
[ "$rows" = $N ] || err "summary.tsv has $rows rows, not $N"
dup=$(grep -v '^#' o/summary.tsv | cut -f1 | sort | uniq -d | head -3)
[ -z "$dup" ] && [ "$(grep -v '^#' o/summary.tsv | cut -f1 | sort -u | wc -l)" = $N ] ||
	err "summary.tsv ids not each once: duplicates '$dup'"
! ls -A o/points | grep -q '^\.' || err "a temporary is left in points/: $(ls -A o/points | grep '^\.' | head -3)"
grep -q 'mobisim: .*\(crash\|failed\)' o.err && err "a run failed: $(grep -m3 'crash\|failed' o.err)"
"$BIN" sweep s.yaml --list > list
for k in $(seq 0 251 $((N - 1))); do
	id=$(sed -n "$((k + 1))p" list | cut -f1)
	"$BIN" sweep s.yaml --point "$k" -o alone --quiet 2>/dev/null || { err "--point $k failed"; continue; }
	# the host's own figures (wall time, events per second, peak RSS) apart
	cmp -s <(grep -Ev '"(wall_s|events_per_s|peak_rss_kib)"' "o/points/$id.json") \
		<(grep -Ev '"(wall_s|events_per_s|peak_rss_kib)"' "alone/points/$id.json") ||
		err "point $id differs from the same point run alone"
done
exit $fail
