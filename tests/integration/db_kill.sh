#!/bin/bash
# A results database survives a killed sweep (issue 38, item 4): an 80-point
# M/M/1 sweep with --db, -j 2, killed with SIGKILL (its whole process group,
# then its main process alone) once the database holds some points, then
# --resume'd into the same database: every point is there exactly once, each
# point's rows equal an uninterrupted run's (count and latency sum per run),
# `PRAGMA integrity_check` says ok after the kill and after the resume, and
# summary.tsv equals the uninterrupted one.
# usage: db_kill.sh MOBISIM_BIN SRC_DIR
set -u
BIN=$(cd "$(dirname "${1:?mobisim binary}")" && pwd)/$(basename "$1")
SRC=$(cd "${2:?source dir}" && pwd)
TMP=$(mktemp -d)
trap '[ -f "$TMP/bg.pid" ] && kill -KILL -- "-$(cat "$TMP/bg.pid")" 2>/dev/null; rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 CLI"; exit 0; }
cd "$TMP" || exit 1
cat > sw.yaml <<EOF
base: $SRC/configs/scenarios/mm1.yaml
set:
  source.requests: 3000
  device: {service: exponential}
axes:
  source.rate_per_s: {range: {from: 1000, to: 8000, step: 1000}}
  device.mean_us: [50, 100]
repetitions: 5
metrics:
  mean_us: {path: classes.fg.read.lat_ns.mean, scale: 1e-3}
EOF
N=80
timeout 300 "$BIN" sweep sw.yaml -j 2 --out full --db full.sqlite --quiet || err "uninterrupted sweep exited $?"
rows() { sqlite3 "$1" "SELECT run_id, count(*), sum(latency_ns) FROM requests GROUP BY run_id ORDER BY run_id"; }
rows full.sqlite > full.rows
[ "$(wc -l < full.rows)" = $N ] || err "uninterrupted: $(wc -l < full.rows) runs with rows, not $N"
# read-only, and only once the file is there (the CLI would create an empty one)
runs_in() { [ -f "$1" ] && sqlite3 "file:$1?mode=ro" "SELECT count(*) FROM runs" 2>/dev/null || echo 0; }

# kill WHO (group|main) once the database holds at least AT runs
trial() {
	local who=$1 at=$2 d=k-$1 pid n t
	rm -rf "$d" "$d.sqlite"*
	setsid "$BIN" sweep sw.yaml -j 2 --out "$d" --db "$d.sqlite" --quiet 2>"$d.err" &
	pid=$!
	echo "$pid" > bg.pid
	for t in $(seq 600); do
		n=$(runs_in "$d.sqlite")
		[ "${n:-0}" -ge "$at" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	if [ "$who" = group ]; then kill -KILL -- "-$pid" 2>/dev/null; else kill -KILL "$pid" 2>/dev/null; fi
	wait "$pid" 2>/dev/null
	# a main process killed alone leaves its runs: they end with it (no orphan writes later)
	sleep 1
	kill -KILL -- "-$pid" 2>/dev/null
	rm -f bg.pid
	n=$(runs_in "$d.sqlite")
	[ "$n" -lt $N ] || err "$who: the sweep finished before the kill ($n runs): the trial proves nothing"
	[ "$(sqlite3 "$d.sqlite" 'PRAGMA integrity_check')" = ok ] || err "$who: integrity_check after the kill"
	timeout 300 "$BIN" sweep sw.yaml -j 2 --out "$d" --db "$d.sqlite" --quiet --resume 2>>"$d.err" ||
		err "$who: --resume exited $?: $(cat "$d.err")"
	[ "$(sqlite3 "$d.sqlite" 'PRAGMA integrity_check')" = ok ] || err "$who: integrity_check after the resume"
	[ "$(sqlite3 "$d.sqlite" 'SELECT count(*), count(DISTINCT run_id) FROM runs')" = "$N|$N" ] ||
		err "$who: runs after the resume: $(sqlite3 "$d.sqlite" 'SELECT count(*), count(DISTINCT run_id) FROM runs')"
	rows "$d.sqlite" > "$d.rows"
	cmp -s full.rows "$d.rows" || { err "$who: rows differ from the uninterrupted run's"; diff full.rows "$d.rows" | head -4 >&2; }
	cmp -s full/summary.tsv "$d/summary.tsv" || err "$who: summary.tsv differs"
	echo "$who: killed at $n of $N runs in the database; resumed to $N"
}
trial group 10
trial main 30
# an empty file in the database's place (touch, or a reader that opened the path
# first) takes the schema; a file that holds something else is still refused
: > empty.sqlite
"$BIN" sweep sw.yaml -j 2 --out e --db empty.sqlite --quiet || err "an empty --db file refused: exit $?"
[ "$(sqlite3 empty.sqlite 'SELECT count(*) FROM runs')" = $N ] || err "empty --db: not $N runs"
sqlite3 other.sqlite "CREATE TABLE t(x)"
"$BIN" sweep sw.yaml -j 2 --out o --db other.sqlite --quiet 2>o.err
[ $? -eq 2 ] && grep -q "not a mobisim results database" o.err || err "a foreign database was not refused: $(cat o.err)"
exit $fail
