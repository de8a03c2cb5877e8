#!/usr/bin/env bash
# Process filters and gap cutting (issue 37 item 3): --comm/--pid/--app on
# trace stat, trace convert and workload fit, and workload.filter on a
# replay, keep exactly the requests whose Q was by a matching process, with
# their D and C logged under other tasks; a filter that matches nothing is a
# warning in stat/convert and an error in a replay unless --lenient; a 6-day
# gap in a phone CSV compressed by --max-gap gives the expected duration
# and count, and the clock-jump warning does not blame CPUs the CSV lacks.
set -u
bin=$1
src=${2:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

# A 4-CPU blkparse trace: C events carry pid 0, D events whichever CPU's
# task; the reader process is pid 100.
python3 "$src/scripts/gen-field-trace" "$tmp/f.txt" 3000 || { echo "FAIL: gen-field-trace"; exit 1; }
# Expected, from the text itself: the reader's Qs, and the D and C events
# whose start sector is one of them (the generator's I/Os never overlap).
read -r nq nd nc nc0 < <(python3 - "$tmp/f.txt" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) > 8]
qs = {int(f[7]) for f in rows if f[5] == "Q" and f[-1] == "[reader]"}
d = [f for f in rows if f[5] == "D" and int(f[7]) in qs]
c = [f for f in rows if f[5] == "C" and int(f[7]) in qs]
print(sum(1 for f in rows if f[5] == "Q" and f[-1] == "[reader]"), len(d), len(c),
      sum(1 for f in c if f[4] == "0"))
PY
)
[ "$nc" -gt 100 ] && [ "$nc0" = "$nc" ] || say "generator: $nc reader completions, $nc0 under pid 0"
act() { awk -v a="$2" '$1 == a { print $3 }' "$1"; }
"$bin" trace stat "$tmp/f.txt" --comm '^reader$' > "$tmp/s" 2> "$tmp/s.err" || say "stat --comm exited $?"
[ "$(act "$tmp/s" Q)" = "$nq" ] || say "stat --comm: Q $(act "$tmp/s" Q), expected $nq"
[ "$(act "$tmp/s" D)" = "$nd" ] || say "stat --comm: D $(act "$tmp/s" D), expected $nd"
[ "$(act "$tmp/s" C)" = "$nc" ] || say "stat --comm: C $(act "$tmp/s" C), expected $nc (pid 0's)"
grep -q "^filter:   comm=^reader\$: $nq requests kept" "$tmp/s" || say "filter line: $(grep filter: "$tmp/s")"
[ "$(sed -n '/^# per process/,/^$/p' "$tmp/s" | grep -c '^[0-9]')" = 1 ] ||
	say "other processes left: $(sed -n '/^# per process/,/^$/p' "$tmp/s")"
[ -s "$tmp/s.err" ] && say "a matching filter warned: $(cat "$tmp/s.err")"
# the same requests by pid; convert keeps the C lines of pid 0
"$bin" trace stat "$tmp/f.txt" --pid 100 > "$tmp/sp" || say "stat --pid exited $?"
[ "$(act "$tmp/sp" C)" = "$nc" ] || say "stat --pid 100: C $(act "$tmp/sp" C)"
"$bin" trace convert "$tmp/f.txt" --to blkparse --comm '^reader$' -o "$tmp/c.txt" || say "convert exited $?"
[ "$(awk '$6 == "C" && $5 == 0' "$tmp/c.txt" | wc -l)" = "$nc" ] ||
	say "convert: $(awk '$6 == "C"' "$tmp/c.txt" | wc -l) C lines, expected $nc under pid 0"
[ "$(awk '$6 == "Q" && $NF != "[reader]"' "$tmp/c.txt" | wc -l)" = 0 ] || say "convert kept another's Q"
# repeatable: any match keeps
"$bin" trace stat "$tmp/f.txt" --comm '^reader$' --comm '^db$' > "$tmp/s2" || say "two --comm exited $?"
[ "$(sed -n '/^# per process/,/^$/p' "$tmp/s2" | grep -c '^[0-9]')" = 2 ] || say "two --comm: $(grep -A4 'per process' "$tmp/s2")"

# A filter that matches nothing: a warning in stat and convert...
"$bin" trace stat "$tmp/f.txt" --app org.example.nothing > /dev/null 2> "$tmp/z.err" || say "zero-match stat exited $?"
grep -q "warning: .*process filter (app=org.example.nothing .*) matched none of the" "$tmp/z.err" ||
	say "zero-match stat warning: $(cat "$tmp/z.err")"
"$bin" trace convert "$tmp/f.txt" --to mqsim --comm nobody -o "$tmp/z.mq" 2> "$tmp/z.err" || say "zero-match convert exited $?"
grep -q "matched none of the" "$tmp/z.err" || say "zero-match convert warning: $(cat "$tmp/z.err")"
# ...an error in a replay, a counted warning with --lenient
cat > "$tmp/r.yaml" <<YAML
name: filt
device: {model: ideal, service: fixed, mean_us: 100, servers: 1}
scheduler: noop
workload:
  type: replay
  trace: $tmp/f.txt
  filter: {comm: '^reader\$'}
YAML
"$bin" run "$tmp/r.yaml" --quiet --out "$tmp/r.json" || say "replay with filter exited $?"
python3 - "$tmp/r.json" "$nq" <<'PY' || say "replay filter counts"
import json, sys
w = json.load(open(sys.argv[1]))["workload"]
nq = int(sys.argv[2])
assert w["ios_injected"] == nq, (w["ios_injected"], nq)
assert w["pids"] == 1, w["pids"]
assert w["recorded_completions_unmatched"] == 0, w["recorded_completions_unmatched"]
assert w["filter"]["requests_kept"] == nq, w["filter"]
PY
msg=$("$bin" run "$tmp/r.yaml" --quiet --set "workload.filter.comm=^nobody\$" --out "$tmp/z.json" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$msg" | grep -qF 'workload.filter (comm=^nobody$) matched none' &&
	echo "$msg" | grep -q -- "--lenient" ||
	say "zero-match replay: exit $rc: $msg"
[ -e "$tmp/z.json" ] && say "a failed replay wrote its result"
"$bin" run "$tmp/r.yaml" --quiet --lenient --set "workload.filter.comm=^nobody\$" --out "$tmp/z.json" 2> /dev/null ||
	say "zero-match --lenient exited $?"
python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["workload"]; assert w["filter_kept_nothing"] and w["ios_injected"] == 0' \
	"$tmp/z.json" || say "zero-match --lenient result"
# a rule on what the format does not record
printf '0.0 0 1000 8 1\n1.0 0 2000 8 0\n' > "$tmp/d.txt"
msg=$("$bin" trace stat "$tmp/d.txt" --comm app 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$msg" | grep -q "records no process names" || say "filter on DiskSim: $rc $msg"
msg=$("$bin" trace stat "$tmp/f.txt" --comm '(' 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$msg" | grep -q "^mobisim: --comm '(': bad regular expression" || say "bad --comm: $rc $msg"
msg=$("$bin" trace stat "$tmp/f.txt" --gap cut 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$msg" | grep -q "needs --max-gap" || say "--gap alone: $rc $msg"

# A phone CSV with a 6-day gap (522108 s after row 148, as the issue's).
python3 - "$tmp/p.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("proces,device,rw_flag,sector,size,timestamp\n")
    for i in range(148):
        f.write("egram.messenger-2951,8388608,R,%d,8,%.2f\n" % (1000 + 8 * i, 100 + i / 100))
    for j in range(52):
        f.write("kworker/u17:0-21515,8388608,W,%d,8,%.2f\n" % (90000 + 8 * j, 101.47 + 522108 + j / 100))
PY
dur() { awk '/^duration:/ { print $2 }' "$1"; }
"$bin" trace stat "$tmp/p.csv" > "$tmp/p0" 2> "$tmp/p0.err" || say "phone stat exited $?"
grep -q "gaps longer than 3600 s .*a pause in the recording" "$tmp/p0.err" || say "CSV gap warning: $(cat "$tmp/p0.err")"
grep -q "CPU" "$tmp/p0.err" && say "a CSV's gap blamed on CPUs: $(cat "$tmp/p0.err")"
"$bin" trace stat "$tmp/p.csv" --max-gap 10s > "$tmp/p1" 2> "$tmp/p1.err" || say "--max-gap stat exited $?"
python3 - "$(dur "$tmp/p1")" <<'PY' || say "compressed duration $(dur "$tmp/p1"), expected 11.98 s"
import sys
assert abs(float(sys.argv[1]) - 11.98) < 1e-6, sys.argv[1]
PY
grep -Eq "^gaps:     1 longer than 10\.000000000 s compressed to it \(522098\.0000[0-9]* s removed" "$tmp/p1" ||
	say "gap line: $(grep gaps: "$tmp/p1")"
[ -s "$tmp/p1.err" ] && say "compressed trace still warned: $(cat "$tmp/p1.err")"
"$bin" trace stat "$tmp/p.csv" --max-gap 10s --gap cut > "$tmp/p2" || say "--gap cut exited $?"
[ "$(awk '/^events:/ { print $2 }' "$tmp/p2")" = 148 ] || say "cut kept $(grep events: "$tmp/p2")"
"$bin" workload fit "$tmp/p.csv" --max-gap 10s --no-run -o "$tmp/fit.yaml" > "$tmp/fit" || say "fit --max-gap exited $?"
grep -q "^model:    200 requests" "$tmp/fit" || say "fit --max-gap: $(grep model: "$tmp/fit")"
"$bin" workload fit "$tmp/f.txt" --comm '^reader$' --no-run -o "$tmp/fit2.yaml" > "$tmp/fit2" || say "fit --comm exited $?"
grep -q "^model:    $nq requests, 1 streams" "$tmp/fit2" || say "fit --comm: $(grep model: "$tmp/fit2")"
cat > "$tmp/g.yaml" <<YAML
name: gap
device: {model: ideal, service: fixed, mean_us: 100, servers: 1}
scheduler: noop
replay: open
workload:
  type: replay
  trace: $tmp/p.csv
  max_gap: 10s
YAML
"$bin" run "$tmp/g.yaml" --quiet --out "$tmp/g.json" 2> "$tmp/g.err" || say "replay max_gap exited $?"
python3 - "$tmp/g.json" <<'PY' || say "replay gaps"
import json, sys
d = json.load(open(sys.argv[1]))
g = d["workload"]["gaps"]
assert g["gaps"] == 1 and g["mode"] == "compress", g
assert abs(g["seconds_removed"] - 522098) < 1e-6, g
assert d["workload"]["ios_injected"] == 200
# the last I/O arrives 11.98 s after the first
assert abs(d["engine"]["sim_ns"] / 1e9 - 11.98) < 0.01, d["engine"]["sim_ns"]
PY
[ -s "$tmp/g.err" ] && say "compressed replay warned: $(cat "$tmp/g.err")"
exit $fail
