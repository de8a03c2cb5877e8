#!/usr/bin/env bash
# Fork at a phase: a sweep whose points differ only in when a task starts
# (workload.tasks.KEY.start) runs the shared prefix once and forks at each
# start; every point's result must be the run from t = 0, byte for byte
# (host timing fields aside). Checked on Fig. 1 (Galaxy S6: CFQ, ext4;
# with and without the BG write, full runs and run.stop: fg_done), on the
# modern launch (Pixel: blk-mq, f2fs; with BFQ too) and on Fig. 2's two
# zipped starts (camera and gallery: a child releases its second start
# itself). Phases include one at a 10 ms tick (ties with the kernel's timers)
# and two points with the same phase. What cannot be forked says why, once,
# and runs the plain way with the same results.
set -u
bin=$1 src=$(cd "$2" && pwd)
fail=0
say() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strip() { grep -v '"wall_s"\|"events_per_s"\|"peak_rss_kib"' "$1"; }

# same: run sweep file $1 forked and with --no-fork, compare every point file
same() {
	local name=$1 f=$tmp/$1.yaml
	"$bin" sweep "$f" -j 2 -o "$tmp/$name.fk" --quiet 2>"$tmp/$name.fk.err" ||
		{ say "$name: forked sweep exited $?: $(cat "$tmp/$name.fk.err")"; return; }
	"$bin" sweep "$f" -j 2 -o "$tmp/$name.nf" --quiet --no-fork 2>"$tmp/$name.nf.err" ||
		{ say "$name: --no-fork sweep exited $?"; return; }
	local n=0
	for p in "$tmp/$name.nf/points/"*.json; do
		n=$((n + 1))
		cmp -s <(strip "$p") <(strip "$tmp/$name.fk/points/$(basename "$p")") ||
			say "$name: point $(basename "$p") differs forked and from t = 0"
	done
	[ "$n" -ge 2 ] || say "$name: only $n points"
	cmp -s "$tmp/$name.nf/summary.tsv" "$tmp/$name.fk/summary.tsv" || say "$name: summaries differ"
	[ -s "$tmp/$name.nf.err" ] && say "$name: --no-fork said something: $(cat "$tmp/$name.nf.err")"
	return 0
}

cat >"$tmp/fig1.yaml" <<YAML
base: $src/configs/scenarios/thesis-fig01-launch.yaml
axes:
  run.stop: [done, fg_done]
  workload.tasks.bg.enabled: [true, false]
  workload.tasks.photos.start: [0s, 1.5s, 4s, 4s, 9.99s]
metrics:
  launch_s: {path: "regions[name=launch].duration_ns", scale: 1e-9}
YAML
same fig1
[ -s "$tmp/fig1.fk.err" ] && say "fig1: the forked sweep said something: $(cat "$tmp/fig1.fk.err")"

cat >"$tmp/modern.yaml" <<YAML
base: $src/configs/scenarios/modern-fig01-launch.yaml
set:
  run.stop: fg_done
axes:
  scheduler: [mq-deadline, bfq]
  workload.tasks.photos.start: [0.5s, 1s, 2.01s]
metrics:
  launch_s: {path: "regions[name=launch].duration_ns", scale: 1e-9}
YAML
same modern
[ -s "$tmp/modern.fk.err" ] && say "modern: the forked sweep said something: $(cat "$tmp/modern.fk.err")"

cat >"$tmp/fig2.yaml" <<YAML
base: $src/configs/scenarios/thesis-fig02-burst.yaml
set:
  run.stop: fg_done
axes:
  - zip:
      workload.tasks.camera.start: [2s, 4s, 6s]
      workload.tasks.gallery.start: [3.5s, 5.5s, 6s]
metrics:
  switch_s: {path: "regions[name=switch].duration_ns", scale: 1e-9}
YAML
same fig2
[ -s "$tmp/fig2.fk.err" ] && say "fig2: the forked sweep said something: $(cat "$tmp/fig2.fk.err")"

# not forkable: a random start is drawn per seed at set-up
cat >"$tmp/rand.yaml" <<YAML
base: $src/configs/scenarios/thesis-fig01-launch.yaml
set:
  run.stop: fg_done
  workload.tasks.bg.bytes: 256MiB
axes:
  workload.tasks.photos.start: ["{uniform: [1s, 3s]}", 2s]
metrics:
  launch_s: {path: "regions[name=launch].duration_ns", scale: 1e-9}
YAML
same rand
grep -q "every point runs from t = 0: .*random start" "$tmp/rand.fk.err" ||
	say "a random start does not say why it is not forked: $(cat "$tmp/rand.fk.err")"
# not forkable: a launch planner hears of the launch at t = 0
"$bin" run "$src/configs/scenarios/thesis-fig01-launch.yaml" --set 'policies=[prefetch]' \
	--set prefetch.mode=record --set prefetch.profile="$tmp/launch.prof" --set run.stop=fg_done \
	--set workload.tasks.bg.enabled=false --quiet || say "recording a launch profile exited $?"
cat >"$tmp/plan.yaml" <<YAML
base: $src/configs/scenarios/thesis-fig01-launch.yaml
set:
  run.stop: fg_done
  workload.tasks.bg.bytes: 256MiB
  policies: [prefetch]
  prefetch.profile: $tmp/launch.prof
axes:
  workload.tasks.photos.start: [1s, 2s]
metrics:
  launch_s: {path: "regions[name=launch].duration_ns", scale: 1e-9}
YAML
same plan
grep -q "runs from t = 0 where it cannot fork: .*launch planner" "$tmp/plan.fk.err" ||
	say "a launch planner does not say why it is not forked: $(cat "$tmp/plan.fk.err")"
# a forked run that fails is named like any other failed point (its id,
# its keys, its exit status), whether its master reaped it or it ended
# after its master and the main process reaped it: every point but the
# first cannot write its result (a directory stands where the file goes);
# with -j 2 the master waits for slots, so the main process's list of
# live runs (at most -j) is reused. MOBISIM_TEST_FORK_LATE_REPORTS (a test
# hook) makes the main process read the master's reports only after the
# master and every run have ended, so each run it reaps ended before its
# report was read.
cat >"$tmp/fails.yaml" <<YAML
base: $src/configs/scenarios/thesis-fig01-launch.yaml
set:
  run.stop: fg_done
  workload.tasks.bg.bytes: 256MiB
axes:
  workload.tasks.photos.start: [1s, 1.5s, 2s, 2.5s, 3s, 3.5s]
YAML
"$bin" sweep "$tmp/fails.yaml" --list >"$tmp/fails.list"
for late in "" 1; do
	rm -rf "$tmp/fails"
	sed 1d "$tmp/fails.list" | while read -r id _; do mkdir -p "$tmp/fails/points/$id.json"; done
	MOBISIM_TEST_FORK_LATE_REPORTS=$late "$bin" sweep "$tmp/fails.yaml" -j 2 -o "$tmp/fails" \
		--quiet 2>"$tmp/fails.err"
	rc=$?
	# bad output only: 2, as the pool gives
	[ $rc -eq 2 ] || say "failed forked runs${late:+ (late reports)}: exit $rc, wanted 2"
	while read -r id keys; do
		grep -qF "mobisim: point $id ($keys): failed (exit status 2); its stderr is the sweep's" \
			"$tmp/fails.err" ||
			say "failed forked run $id${late:+ (late reports)} not named: $(cat "$tmp/fails.err")"
		grep -q "^mobisim: point $id: .*is a directory" "$tmp/fails.err" ||
			say "failed forked run $id${late:+ (late reports)}: its own message is missing"
	done < <(sed 1d "$tmp/fails.list")
	[ "$(grep -c ': failed (exit status' "$tmp/fails.err")" -eq 5 ] ||
		say "failed forked runs${late:+ (late reports)}: not 5 failure lines: $(cat "$tmp/fails.err")"
	[ -s "$tmp/fails/points/$(head -1 "$tmp/fails.list" | cut -f1).json" ] ||
		say "the good point next to failed forked runs is missing"
done
# a forked run killed by a signal is named with the signal: a file size
# limit (ulimit -f, in KiB) below a point file's size kills every run with
# SIGXFSZ as it writes its result
for late in "" 1; do
	rm -rf "$tmp/xfsz"
	(
		ulimit -f 8
		MOBISIM_TEST_FORK_LATE_REPORTS=$late exec "$bin" sweep "$tmp/fails.yaml" -j 2 \
			-o "$tmp/xfsz" --quiet 2>"$tmp/xfsz.err"
	)
	rc=$?
	[ $rc -eq 1 ] || say "crashed forked runs${late:+ (late reports)}: exit $rc, wanted 1"
	while read -r id keys; do
		grep -qF "mobisim: point $id ($keys): crashed (signal $(kill -l XFSZ)," \
			"$tmp/xfsz.err" ||
			say "crashed forked run $id${late:+ (late reports)} not named: $(cat "$tmp/xfsz.err")"
	done <"$tmp/fails.list"
done
# no phase axis: nothing to fork, nothing said
cat >"$tmp/nophase.yaml" <<YAML
base: $src/configs/scenarios/thesis-fig01-launch.yaml
set:
  run.stop: fg_done
  workload.tasks.bg.bytes: 256MiB
axes:
  workload.tasks.photos.main_cpu: [1s, 2s]
metrics:
  launch_s: {path: "regions[name=launch].duration_ns", scale: 1e-9}
YAML
same nophase
[ -s "$tmp/nophase.fk.err" ] && say "no phase axis: $(cat "$tmp/nophase.fk.err")"
exit $fail
