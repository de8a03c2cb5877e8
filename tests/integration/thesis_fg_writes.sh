#!/usr/bin/env bash
# The foreground's own writes under the thesis's background write (Figs. 12, 14, 16;
# issue 24): direction of the effects, not the thesis's numbers.
#  - Fig. 12/14: the Photos launch's SharedPreferences fsync needs a jbd2 commit, which in
#    3.10's data=ordered mode waits on the BG file's async writeback: the FG waits in
#    `journal`, the commit thread's page waits reach boost's hook and are counted, and the
#    thesis's boost (FG waiters only) lifts none of them; the techniques still shorten the
#    launch, and they never add to the FG's own wait_on_page_writeback (`writeback`).
#  - Fig. 12's boost acts when the flusher has taken the FG's pages before its sync: with a
#    longer gap between the SQLite worker's writes and its fdatasync (db_cpu 1 s instead of
#    100 ms) the worker waits on its own page under async writeback and boost hits. With
#    the scenario's assumed 100 ms the gap is shorter than the flusher's turns on the BG
#    file and there is none (the report of issue 24 has the numbers).
#  - Fig. 16: over four phases of the recording against the BG write (the FG's own
#    writeback wait depends on where the flusher is when the fsync comes), the techniques
#    cut the recording's final fsync by at least 10 % on average and never lengthen the
#    FG's wait_on_page_writeback; boost is tried on every FG page wait (hits + misses =
#    waits), its journal part counted apart.
#  - One SQLite insert (a one-page transaction, synchronous FULL) on the S6's ext4: with
#    fsync, as SQLite does without Android's -Dfdatasync=fdatasync, at least 11 writes reach
#    the device (Lee & Won, EMSOFT'12: "at least 11 write operations"; a prediction, nothing
#    fitted to it) in PERSIST and TRUNCATE mode; Android 5.0's fdatasync needs no commit for
#    PERSIST's overwrites and sends 4.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f12="$src/configs/scenarios/thesis-fig12-launch.yaml"
f16="$src/configs/scenarios/thesis-fig16-video.yaml"
fail() { echo "FAIL: $*"; exit 1; }
run() { local out=$1; shift; "$bin" run "$@" --quiet --out "$tmp/$out.json" >/dev/null || fail "run $*"; }

run b12 "$f12" --set policies=baseline
run t12 "$f12" --set policies=expc,boost,fgcfq
run g12 "$f12" --set policies=boost --set workload.tasks.photos.db_cpu=1000ms
cat >"$tmp/ins.yaml" <<EOF
include: $(cd "$src" && pwd)/configs/platforms/galaxy-s6.yaml
name: one-insert
seed: 1
memory: {reserved_bytes: 1792MiB, cached_bytes: 0}
fg: 10050
workload:
  type: synthetic
  tasks:
    app: {gen: app, uid: 10050, main_bytes: 64KiB, main_files: 1, images: 0, workers: 0,
          render_bytes: 0, db_reads: 1, db_txn_pages: 1, main_cpu: 0, render_cpu: 0, db_cpu: 0}
EOF
for m in persist:fsync truncate:fsync persist:fdatasync; do
	for n in 0 1; do
		run "ins_${m/:/_}_$n" "$tmp/ins.yaml" --set workload.tasks.app.journal_mode=${m%%:*} \
			--set workload.tasks.app.sync_call=${m##*:} --set workload.tasks.app.db_txns=$n
	done
done
phases="3s 6s 9s 12s"
for ph in $phases; do
	run "b16_$ph" "$f16" --set policies=baseline --set workload.tasks.camera.start=$ph
	run "t16_$ph" "$f16" --set policies=expc,boost,fgcfq --set workload.tasks.camera.start=$ph
done

python3 - "$tmp" $phases <<'PY' || exit 1
import json, sys
phases = sys.argv[2:]
keys = ["b12", "t12", "g12"] + [f"{s}16_{p}" for p in phases for s in "bt"]
d = {k: json.load(open(f"{sys.argv[1]}/{k}.json")) for k in keys}
def region(r, name):
    return next(x["duration_ns"] for x in r["regions"] if x["name"] == name) / 1e9
def wait(r, cause):
    return sum(w["total_ns"] for w in r["waits"] if w["class"] == "fg" and w["cause"] == cause) / 1e9
def jwait(r):  # a commit's waiters are booked by its step (journal.wait_by_phase, S6 platform)
    return wait(r, "journal") + wait(r, "journal_ordered") + wait(r, "journal_locked")
def fsync_ms(r):
    return r["classes"]["fg"]["fsync"]["lat_ns"]["mean"] / 1e6
def accounted(b):
    return (b["hits"] + b["misses"] == b["waits_boosted_class"]
            and sum(b["miss_reasons"].values()) == b["misses"])

b, t = d["b12"], d["t12"]
assert jwait(b) > 0.1, jwait(b)
bt = t["policies"]["boost"]
assert accounted(bt), bt
assert bt["journal_waits"] > 0 and bt["journal_waits_fg_behind"] > 0, bt
assert bt["journal_hits"] == 0, bt
assert region(t, "launch") < 0.7 * region(b, "launch"), (region(b, "launch"), region(t, "launch"))
assert wait(t, "writeback") <= wait(b, "writeback") + 0.02, (wait(b, "writeback"), wait(t, "writeback"))

g = d["g12"]["policies"]["boost"]
assert accounted(g), g
assert g["hits"] > 0, g

def ins(m):
    a, b = (json.load(open(f"{sys.argv[1]}/ins_{m}_{n}.json")) for n in (0, 1))
    return b["device"]["writes"] - a["device"]["writes"]
assert ins("persist_fsync") >= 11 and ins("truncate_fsync") >= 11, (ins("persist_fsync"),
                                                                      ins("truncate_fsync"))
assert ins("persist_fdatasync") == 4, ins("persist_fdatasync")

fb = sum(fsync_ms(d[f"b16_{p}"]) for p in phases) / len(phases)
ft = sum(fsync_ms(d[f"t16_{p}"]) for p in phases) / len(phases)
assert ft < 0.9 * fb, (fb, ft)
for p in phases:
    assert wait(d[f"t16_{p}"], "writeback") <= wait(d[f"b16_{p}"], "writeback") + 0.02, p
    assert accounted(d[f"t16_{p}"]["policies"]["boost"]), p
print("one insert: %d writes (persist, fsync), %d (truncate, fsync), %d (persist, fdatasync); "
      % (ins("persist_fsync"), ins("truncate_fsync"), ins("persist_fdatasync")), end="")
print("fig12 launch %.2f -> %.2f s, FG journal wait %.2f s, boost journal waits %d (hits 0); "
      "db_cpu 1 s: boost hits %d; fig16 fsync %.0f -> %.0f ms" %
      (region(b, "launch"), region(t, "launch"), jwait(b), bt["journal_waits"],
       g["hits"], fb, ft))
PY
