#!/usr/bin/env bash
# Composite workloads and the multi-threaded app launch, end to end:
# composed-launch-bgwrite.yaml holds a recorded FG ftrace, a synthetic BG
# writer and a replayed BG block trace; the BG writer must slow the
# recorded FG stream (its span and its read waits grow); each source keeps
# its identity (offset, bg class, uid, pid offset) and reports under
# workload.sources; it runs under `compare`; a bad source is an exit-2
# error naming the node. The thesis Fig. 1 app launch (gen: app) is
# several threads of one process and is slowed by the BG writer too.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"; }
sc="$src/configs/scenarios/composed-launch-bgwrite.yaml"
small=(--set workload.sources.bg.tasks.writer.bytes=512MiB --set workload.sources.launch.offset=1s)

"$bin" run "$sc" "${small[@]}" --set workload.sources.bg.tasks.writer.enabled=false --quiet \
	--out "$tmp/alone.json" || say "alone exited $?"
"$bin" run "$sc" "${small[@]}" --quiet --out "$tmp/bg.json" || say "with BG exited $?"
# span of the recorded FG threads (uid 10050) and their read-I/O wait
span='t=[x for x in d["stack"]["tasks"] if x["uid"]==10050]; print(max(x["exit_ns"] for x in t)-min(x["start_ns"] for x in t))'
wait='print(sum(w["total_ns"] for w in d["waits"] if w["class"]=="fg"))'
a=$(py "$tmp/alone.json" "$span") b=$(py "$tmp/bg.json" "$span")
[ "$b" -gt $((a * 2)) ] || say "BG writer did not slow the recorded launch: span $a -> $b ns"
a=$(py "$tmp/alone.json" "$wait") b=$(py "$tmp/bg.json" "$wait")
[ "$b" -gt $((a * 2)) ] || say "BG writer did not add FG read waits: $a -> $b ns"
py "$tmp/bg.json" '
s=d["workload"]["sources"]; assert sorted(s)==["bg","bgtrace","launch"], sorted(s)
assert s["bgtrace"]["ios_completed"]==6999 and s["bgtrace"]["fg_pids"]==[], s["bgtrace"]
assert [p["pid"] for p in s["bgtrace"]["per_pid"]]==[100000], "pid_offset not applied"
t=[x for x in d["stack"]["tasks"] if x["uid"]==10050]
assert t and min(x["start_ns"] for x in t) >= 1000000000, "offset not applied"
assert any(x["uid"]==10060 for x in d["stack"]["tasks"]), "no BG writer task"
assert d["mobisim"]["replay"]=="closed"
' || say "composite result"

"$bin" compare "$sc" "${small[@]}" --policies "baseline;expc,boost,fgcfq" \
	--out "$tmp/cmp.json" >"$tmp/cmp.txt" || say "compare exited $?"
grep -q "expc,boost,fgcfq" "$tmp/cmp.txt" || say "compare table lacks the policy set"

expect2() {
	local what=$1 needle=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] || { cat "$tmp/err"; say "$what: exit $rc, expected 2"; return; }
	grep -q -- "$needle" "$tmp/err" || { cat "$tmp/err"; say "$what: no '$needle' in the message"; }
}
expect2 "unknown source type" "unknown workload type 'nope'" \
	"$bin" run "$sc" --set workload.sources.bg.type=nope
expect2 "poisson source" "must go through the block layer" \
	"$bin" run "$sc" --set workload.sources.bg.type=poisson
expect2 "no sources" "expected \`sources:\`" \
	"$bin" run "$sc" --set workload.sources=1
expect2 "unknown key in a source" "unknown key" \
	"$bin" run "$sc" --set workload.sources.launch.bogus=1

# the app launch: one process of several threads, slowed by the BG writer
f1="$src/configs/scenarios/thesis-fig01-launch.yaml"
"$bin" run "$f1" --set workload.tasks.bg.enabled=false --quiet --out "$tmp/f1a.json" || say "fig01 alone"
"$bin" run "$f1" --set workload.tasks.bg.bytes=1GiB --quiet --out "$tmp/f1b.json" || say "fig01 with BG"
py "$tmp/f1a.json" '
t=[x for x in d["workload"]["tasks"] if x["name"]=="photos"][0]
assert t["gen"]=="app" and len(t["threads"])==5, t
assert {x["role"] for x in t["threads"]}=={"main","render","db","worker"}
db=[x for x in t["threads"] if x["role"]=="db"][0]["ops"]
# 4 SQLite transactions x 4 fdatasyncs; one SharedPreferences write (fsync)
assert db["fdatasync"]==16 and db.get("fsync")==1, db
' || say "fig01 app launch threads"
a=$(py "$tmp/f1a.json" 'print(d["regions"][0]["duration_ns"])')
b=$(py "$tmp/f1b.json" 'print(d["regions"][0]["duration_ns"])')
[ "$b" -gt "$a" ] || say "fig01: BG writer did not slow the app launch ($a -> $b ns)"
exit $fail
