#!/usr/bin/env bash
# The results database (--db, docs/results-db.md) against the result
# document of the same run: one requests row per request the device served,
# latency_ns = complete_ns - queue_ns (btt's Q2C: counts and sums per class
# as in classes.*.btt.q2c_ns), the waits per class and cause as the waits
# table, the regions; --requests-csv holds the same rows; --db changes no
# byte of the result JSON; compare gives one run_id per set, a sweep of
# three points one database with three run_ids (WAL), which --resume leaves
# alone and a rerun replaces; bad paths exit 2 and a failed run leaves
# no file behind.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for t in sqlite3 python3; do
	command -v $t >/dev/null || { echo "SKIP: $t not installed (scripts/check installs it)"; exit 0; }
done
q() { sqlite3 -batch -noheader "$@"; }

# run: a launch under a background writer (stack, regions, fg and bg), a
# closed-loop block replay (the replay's own waits, no upper stack) and the
# M/M/1 source (no block layer: the device's requests)
check_run() { # NAME SCENARIO [ARGS...]
	local name=$1 scn=$2; shift 2
	"$bin" run "$scn" "$@" --quiet --out "$tmp/$name.json" --db "$tmp/$name.sqlite" \
		--requests-csv "$tmp/$name.csv" || fail "$name: run --db"
	"$bin" run "$scn" "$@" --quiet --out "$tmp/$name.plain.json" || fail "$name: run"
	"$bin" sweep x --canonical "$tmp/$name.json" >"$tmp/a"
	"$bin" sweep x --canonical "$tmp/$name.plain.json" >"$tmp/b"
	cmp -s "$tmp/a" "$tmp/b" || fail "$name: --db changed the result JSON"
	q -json "$tmp/$name.sqlite" "SELECT * FROM runs" >"$tmp/$name.runs"
	q "$tmp/$name.sqlite" "SELECT class, count(*), sum(latency_ns) FROM requests GROUP BY class" \
		>"$tmp/$name.req"
	q "$tmp/$name.sqlite" "SELECT count(*) FROM requests WHERE latency_ns != complete_ns - queue_ns
		OR dispatch_ns < queue_ns OR complete_ns < dispatch_ns OR size_bytes < 0" >"$tmp/$name.bad"
	q "$tmp/$name.sqlite" "SELECT class, cause, count(*), sum(end_ns - start_ns) FROM waits
		WHERE class != 'kernel' GROUP BY class, cause" >"$tmp/$name.waits"
	q "$tmp/$name.sqlite" "SELECT name, task, start_ns, duration_ns FROM regions" >"$tmp/$name.regions"
	python3 - "$tmp" "$name" <<'PY' || fail "$name: the database disagrees with the result"
import csv, json, sys
d, name = sys.argv[1], sys.argv[2]
res = json.load(open(f"{d}/{name}.json"))
rows = lambda ext: [l.split("|") for l in open(f"{d}/{name}.{ext}").read().split("\n") if l]
bad = []
run = json.load(open(f"{d}/{name}.runs"))
if len(run) != 1: bad.append(f"runs has {len(run)} rows")
run = run[0]
if run["run_id"] != "run" or run["command"] != "run": bad.append(f"run_id/command {run}")
if run["seed"] != res["mobisim"]["seed"]: bad.append("seed")
if not run["git_revision"]: bad.append("no git revision")
if run["end_reason"] != res["engine"]["end"] or run["sim_ns"] != res["engine"]["sim_ns"]: bad.append("engine")
served = res["device"]["requests"]
if "block" in res and res["block"]["counters"]["requests"]["completed"] != served:
    bad.append("block completed != device requests")
req = {c: (int(n), int(s)) for c, n, s in rows("req")}
if sum(n for n, _ in req.values()) != served or run["requests"] != served:
    bad.append(f"requests rows {req} vs device.requests {served}")
if "block" in res:
    for c in ("fg", "bg"):
        q2c = res["classes"][c]["btt"]["q2c_ns"]
        n, s = req.get(c, (0, 0))
        if q2c["N"] != n or (n and abs(s / n - q2c["mean"]) > 1e-6 * q2c["mean"] + 1):
            bad.append(f"{c}: {n} rows mean {s / n if n else 0} vs btt q2c {q2c['N']} {q2c.get('mean')}")
if int(open(f"{d}/{name}.bad").read()) != 0: bad.append("rows with inconsistent times")
waits = {(c, w): (int(n), int(t)) for c, w, n, t in rows("waits")}
want = {(w["class"], w["cause"]): (w["count"], w["total_ns"]) for w in res["waits"]}
if waits != want: bad.append(f"waits {waits} vs result {want}")
regions = [(n, t, int(s), int(du)) for n, t, s, du in rows("regions")]
if regions != [(r["name"], r["task"], r["start_ns"], r["duration_ns"]) for r in res["regions"]]:
    bad.append(f"regions {regions}")
with open(f"{d}/{name}.csv") as f:
    c = list(csv.reader(f))
if c[0][:6] != ["run_id", "seq", "queue_ns", "dispatch_ns", "complete_ns", "latency_ns"] or len(c) != served + 1:
    bad.append(f"csv: {c[0]} and {len(c) - 1} rows")
for b in bad: print(f"{name}: {b}")
sys.exit(1 if bad else 0)
PY
}
check_run launch "$src/configs/scenarios/launch-demo.yaml"
[ "$(q "$tmp/launch.sqlite" "SELECT count(*) FROM regions")" -ge 1 ] || fail "launch: no region"
[ "$(q "$tmp/launch.sqlite" "SELECT count(DISTINCT class) FROM requests")" = 2 ] || fail "launch: not fg and bg"
[ "$(q "$tmp/launch.sqlite" "SELECT count(*) FROM requests WHERE app = 'app'")" -ge 1 ] ||
	fail "launch: no request of the app"
check_run replay "$src/configs/scenarios/block-replay.yaml"
check_run mm1 "$src/configs/scenarios/mm1.yaml" --set source.requests=2000
[ "$(q "$tmp/replay.sqlite" "SELECT count(*) FROM waits WHERE cause = 'sync_io'")" -ge 1 ] ||
	fail "replay: no sync_io waits"
# the same query on the CSV and the table
[ "$(q "$tmp/launch.sqlite" "SELECT sum(latency_ns) FROM requests")" = \
  "$(python3 -c 'import csv,sys; print(sum(int(r["latency_ns"]) for r in csv.DictReader(open(sys.argv[1]))))' "$tmp/launch.csv")" ] ||
	fail "the CSV's latencies differ from the table's"

# compare: one run_id per set, all in one file
scn="$src/configs/scenarios/launch-demo.yaml"
"$bin" compare "$scn" --policies "baseline;expc,boost" --quiet --db "$tmp/cmp.sqlite" 2>/dev/null ||
	fail "compare --db"
[ "$(q "$tmp/cmp.sqlite" "SELECT group_concat(run_id || '=' || policy, ' ') FROM (SELECT * FROM runs ORDER BY run_id)")" = \
  "baseline=baseline expc,boost=expc,boost" ] || fail "compare runs: $(q "$tmp/cmp.sqlite" "SELECT * FROM runs")"
[ "$(q "$tmp/cmp.sqlite" "SELECT count(DISTINCT run_id) FROM requests")" = 2 ] || fail "compare: requests of 2 runs"

# sweep: three points in parallel into one database
cat >"$tmp/sw.yaml" <<EOF
base: $src/configs/scenarios/mm1.yaml
set:
  source.requests: 400
axes:
  source.rate_per_s: [2000, 4000, 6000]
metrics:
  mean_ns: classes.fg.read.lat_ns.mean
EOF
"$bin" sweep "$tmp/sw.yaml" -j 2 --quiet --out "$tmp/sw.out" --db "$tmp/sw.sqlite" \
	--requests-csv "$tmp/sw.csv" || fail "sweep --db"
[ "$(q "$tmp/sw.sqlite" "PRAGMA journal_mode")" = wal ] || fail "sweep database not WAL"
[ "$(q "$tmp/sw.sqlite" "SELECT count(DISTINCT run_id) FROM requests")" = 3 ] || fail "sweep: not 3 run_ids"
[ "$(q "$tmp/sw.sqlite" "SELECT count(*) FROM runs WHERE requests = 400 AND command = 'sweep'")" = 3 ] ||
	fail "sweep: runs rows $(q "$tmp/sw.sqlite" "SELECT * FROM runs")"
[ "$(q "$tmp/sw.sqlite" "SELECT count(*) FROM requests")" = 1200 ] || fail "sweep: requests rows"
[ "$(wc -l <"$tmp/sw.csv")" = 1201 ] || fail "sweep: csv rows"
ls "$tmp/sw.out/points/"*.sqlite >/dev/null 2>&1 && fail "sweep: point row files left behind"
# each point's mean latency from the database is its summary's
q "$tmp/sw.sqlite" "SELECT run_id, avg(latency_ns) FROM requests GROUP BY run_id ORDER BY run_id" >"$tmp/sw.means"
python3 - "$tmp" <<'PY' || fail "sweep: the database's means differ from the summary"
import sys
d = sys.argv[1]
db = {r: float(m) for r, m in (l.split("|") for l in open(f"{d}/sw.means").read().split())}
summ = {l.split("\t")[0]: float(l.split("\t")[-1]) for l in open(f"{d}/sw.out/summary.tsv") if not l.startswith("#")}
sys.exit(0 if db.keys() == summ.keys() and all(abs(db[k] - summ[k]) < 1e-6 * summ[k] for k in db) else 1)
PY
# --resume with every point in the database runs nothing and keeps the rows;
# a point missing from the database is run again; a rerun replaces
sqlite3 "$tmp/sw.sqlite" "SELECT run_id FROM runs ORDER BY run_id LIMIT 1" >"$tmp/first"
sqlite3 "$tmp/sw.sqlite" "DELETE FROM requests WHERE run_id = '$(cat "$tmp/first")';
	DELETE FROM runs WHERE run_id = '$(cat "$tmp/first")'"
"$bin" sweep "$tmp/sw.yaml" -j 2 --quiet --out "$tmp/sw.out" --db "$tmp/sw.sqlite" --resume ||
	fail "sweep --resume"
[ "$(q "$tmp/sw.sqlite" "SELECT count(*) FROM requests")" = 1200 ] || fail "resume: the dropped point not rerun"
"$bin" sweep "$tmp/sw.yaml" -j 1 --quiet --out "$tmp/sw.out" --db "$tmp/sw.sqlite" || fail "sweep again"
[ "$(q "$tmp/sw.sqlite" "SELECT count(*) FROM requests")/$(q "$tmp/sw.sqlite" "SELECT count(*) FROM runs")" = 1200/3 ] ||
	fail "a rerun did not replace the points' rows"

# bad paths are the user's (exit 2); a failed run leaves no database
expect() { # STATUS NEEDLE CMD...
	local want=$1 needle=$2; shift 2
	"$@" >/dev/null 2>"$tmp/err"
	local rc=$?
	[ $rc -eq "$want" ] || { cat "$tmp/err"; fail "$*: exit $rc, expected $want"; }
	grep -q -- "$needle" "$tmp/err" || { cat "$tmp/err"; fail "$*: no '$needle'"; }
}
mm1="$src/configs/scenarios/mm1.yaml"
expect 2 "regular file" "$bin" run "$mm1" --quiet --db /dev/null
expect 2 "is a directory" "$bin" run "$mm1" --quiet --db "$tmp"
expect 2 "cannot write in" "$bin" run "$mm1" --quiet --db "$tmp/no/such/dir.sqlite"
expect 2 "same file" "$bin" run "$mm1" --quiet --db "$tmp/x.sqlite" --requests-csv "$tmp/x.sqlite"
echo "not a database" >"$tmp/junk.sqlite"
expect 2 "not a database" "$bin" sweep "$tmp/sw.yaml" --quiet --out "$tmp/sw2.out" --db "$tmp/junk.sqlite"
expect 2 "give --db too" "$bin" sweep "$tmp/sw.yaml" --quiet --requests-csv "$tmp/r.csv"
expect 2 "local sweep" "$bin" sweep "$tmp/sw.yaml" --point 0 --db "$tmp/p.sqlite"
mkdir "$tmp/fail"
expect 1 "max_outstanding" "$bin" run "$mm1" --quiet --set source.rate_per_s=50000 \
	--set source.max_outstanding=100 --db "$tmp/fail/r.sqlite" --requests-csv "$tmp/fail/r.csv"
[ -z "$(ls -A "$tmp/fail")" ] || fail "a failed run left $(ls -A "$tmp/fail")"
exit 0
