#!/bin/bash
# Faults of a fork-at-phase sweep (issue 38, item 3; the plain pool's are in
# sweep.sh): 120 launches of Fig. 1 at phases 0.1 s apart, -j 2.
#  1. SIGKILL of the sweep's main process alone, mid-way: nothing of it goes
#     on (its forking run and its runs end with it), and --resume keeps every
#     finished point as it was, runs each of the others once, and writes the
#     summary of an uninterrupted run;
#  2. SIGKILL of its whole process group, the same;
#  3. SIGKILL of one forked run (as the OOM killer would): that point is
#     reported as crashed with its id and the signal, the others are all
#     there, exit 1, no hang; --resume runs that one point;
#  4. SIGKILL of the run that forks them: said with the signal; the points it
#     did not fork run from t = 0, the same results, exit 0.
# usage: sweep_kill.sh MOBISIM_BIN SRC_DIR
set -u
BIN=${1:?mobisim binary}
SRC=$(cd "${2:?source dir}" && pwd)
TMP=$(mktemp -d)
trap '[ -f "$TMP/bg.pid" ] && kill -KILL -- "-$(cat "$TMP/bg.pid")" 2>/dev/null; rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
cd "$TMP" || exit 1
N=120
cat > f.yaml <<EOF
base: $SRC/configs/scenarios/thesis-fig01-launch.yaml
set:
  run.stop: fg_done
axes:
  workload.tasks.photos.start: {range: {from: 0.1s, to: 12s, step: 0.1s}}
metrics:
  launch_s: {path: "regions[name=launch].duration_ns", scale: 1e-9}
EOF
[ "$("$BIN" sweep f.yaml --count)" = $N ] || err "the sweep has $("$BIN" sweep f.yaml --count) points, not $N"
timeout 300 "$BIN" sweep f.yaml -j 2 -o full --quiet 2> full.err || err "uninterrupted sweep exited $?: $(cat full.err)"
[ -s full.err ] && err "the uninterrupted sweep said: $(cat full.err)"
points() { ls "$1/points" 2>/dev/null | grep -c '^[0-9].*\.json$'; }
# processes whose parent is $1
kids() { for st in /proc/[0-9]*/stat; do { read -r p _ _ pp _ <"$st"; } 2>/dev/null && [ "$pp" = "$1" ] && echo "$p"; done; }
# start the sweep into $1 in its own session (pid in bg.pid), wait for $2 points
start() {
	setsid "$BIN" sweep f.yaml -j 2 -o "$1" --quiet 2>"$1.err" &
	echo $! > bg.pid
	for _ in $(seq 1 6000); do
		[ "$(points "$1")" -ge "$2" ] && return 0
		sleep 0.01
	done
	err "$1: no $2 points in 60 s"
	return 1
}
# the session of bg.pid has no process left within 10 s
gone() {
	local sid; sid=$(cat bg.pid)
	for _ in $(seq 1 1000); do
		pgrep -s "$sid" > /dev/null || return 0
		sleep 0.01
	done
	err "$1: processes left: $(pgrep -a -s "$sid")"
}
# resume $1 and compare with the uninterrupted run
resume_same() {
	local d=$1
	cp -r "$d/points" "$d.before"
	timeout 300 "$BIN" sweep f.yaml -j 2 -o "$d" --resume --quiet 2> "$d.rerr" || err "$d: --resume exited $?: $(cat "$d.rerr")"
	for p in "$d.before"/*.json; do
		cmp -s "$p" "$d/points/${p##*/}" || err "$d: --resume reran or changed finished point ${p##*/}"
	done
	[ "$(points "$d")" = $N ] || err "$d: $(points "$d") points after --resume"
	cmp -s full/summary.tsv "$d/summary.tsv" || err "$d: the summary after --resume differs from an uninterrupted run's"
	[ -z "$(grep -v '^#' "$d/summary.tsv" | cut -f1 | sort | uniq -d)" ] || err "$d: a point twice in the summary"
	! ls -A "$d/points" | grep -q '^\.' || err "$d: a temporary is left in points/"
}

# 1. the main process alone (kill PID, as a user or the OOM killer would)
if start k1 20; then
	kill -KILL "$(cat bg.pid)"
	gone "SIGKILL of the main process"
	n=$(points k1)
	echo "note: main killed after $n of $N points"
	[ "$n" -lt $N ] || echo "note: the sweep had finished: the resume checks hold trivially"
	[ -e k1/summary.tsv ] && err "a killed sweep wrote a summary"
	resume_same k1
fi
rm -f bg.pid

# 2. the whole process group
if start k2 20; then
	kill -KILL -- "-$(cat bg.pid)"
	gone "SIGKILL of the process group"
	resume_same k2
fi
rm -f bg.pid

# 3. one forked run: stopped first, so it cannot end between being picked and
#    killed, then SIGKILL; the runs are children of the forking run
if start k3 20; then
	main=$(cat bg.pid) victim=
	for _ in $(seq 1 500); do
		for m in $(kids "$main"); do
			for v in $(kids "$m"); do
				kill -STOP "$v" 2>/dev/null || continue
				if [ "$(awk '{ print $3 }' "/proc/$v/stat" 2>/dev/null)" = T ]; then victim=$v; break 3; fi
				kill -CONT "$v" 2>/dev/null
			done
		done
		sleep 0.01
	done
	if [ -n "$victim" ]; then
		kill -KILL "$victim"
		timeout 300 tail --pid="$main" -f /dev/null; wait "$main"; rc=$?
		[ $rc = 1 ] || err "a killed forked run: exit $rc, wanted 1"
		[ "$(grep -c 'crashed (signal 9' k3.err)" = 1 ] || err "a killed forked run: $(cat k3.err)"
		id=$(sed -n 's/^mobisim: point \([0-9a-f-]*\) (.*crashed (signal 9.*/\1/p' k3.err)
		[ -n "$id" ] && ! grep -q "^$id" k3/summary.tsv || err "the crashed point '$id' is in the summary"
		[ "$(grep -vc '^#' k3/summary.tsv)" = $((N - 1)) ] || err "a killed forked run: $(grep -vc '^#' k3/summary.tsv) rows"
		grep -q "1 of $N points failed" k3.err || err "a killed forked run: not counted: $(cat k3.err)"
		cmp -s <(grep -v "^$id" full/summary.tsv) k3/summary.tsv || err "the points next to the killed run differ"
		resume_same k3
	else
		err "no forked run to kill"
	fi
fi
rm -f bg.pid

# 4. the forking run (the main process's child)
if start k4 20; then
	m=$(kids "$(cat bg.pid)" | head -1)
	kill -KILL "$m"
	timeout 300 tail --pid="$(cat bg.pid)" -f /dev/null; wait "$(cat bg.pid)"; rc=$?
	[ $rc = 0 ] || err "a killed forking run: exit $rc: $(cat k4.err)"
	grep -q "the run forking $N points at their phases was killed (signal 9, Killed) after [0-9]* of them" k4.err ||
		err "a killed forking run: $(cat k4.err)"
	cmp -s full/summary.tsv k4/summary.tsv || err "a killed forking run: the summary differs"
fi
rm -f bg.pid
exit $fail
