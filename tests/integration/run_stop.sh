#!/usr/bin/env bash
# run.stop: fg_done ends a run once every foreground task has finished, and
# changes nothing the foreground measured: on Fig. 1 (CFQ, ext4) and the
# modern launch (f2fs, blk-mq) the launch region, the fg class and the fg
# waits are the same as in the full run, event for event; the run is shorter
# and says why it ended (engine.end). A scenario without a foreground task
# is refused (exit 2), and the default is still the full run.
set -u
bin=$1 src=$2
fail=0
say() { echo "FAIL: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fgpart='[.regions, .classes.fg, [.waits[] | select(.class == "fg")],
	 [.stack.tasks[] | select(.uid == 10050) | del(.io)]]'
for scn in thesis-fig01-launch modern-fig01-launch; do
	f=$src/configs/scenarios/$scn.yaml
	"$bin" run "$f" --quiet --out "$tmp/full.json" || { say "$scn: full run exited $?"; continue; }
	"$bin" run "$f" --set run.stop=fg_done --quiet --out "$tmp/fg.json" ||
		{ say "$scn: fg_done run exited $?"; continue; }
	[ "$(jq -r .engine.end "$tmp/full.json")" = done ] || say "$scn: the default run did not end as done"
	[ "$(jq -r .engine.end "$tmp/fg.json")" = fg_done ] || say "$scn: engine.end is not fg_done"
	a=$(jq -c "$fgpart" "$tmp/full.json") b=$(jq -c "$fgpart" "$tmp/fg.json")
	[ "$a" = "$b" ] || say "$scn: the foreground's figures differ with run.stop: fg_done"
	[ "$(jq '.regions | length' "$tmp/fg.json")" -ge 1 ] || say "$scn: no launch region"
	tf=$(jq .engine.sim_ns "$tmp/full.json") tg=$(jq .engine.sim_ns "$tmp/fg.json")
	[ "$tg" -lt "$tf" ] || say "$scn: the fg_done run ($tg ns) is not shorter than the full one ($tf ns)"
	le=$(jq '[.regions[] | .start_ns + .duration_ns] | max' "$tmp/fg.json")
	[ "$tg" -ge "$le" ] || say "$scn: the run ended ($tg ns) before the launch did ($le ns)"
done
# no foreground task: refused, with the key's place
msg=$("$bin" run "$src/configs/scenarios/thesis-fig01-launch.yaml" --set run.stop=fg_done \
	--set workload.tasks.photos.enabled=false --quiet 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] || say "a run.stop: fg_done run without a foreground task exited $rc, wanted 2"
grep -q "run.stop: fg_done: the synthetic workload has no foreground task" <<<"$msg" ||
	say "no-foreground message: $msg"
msg=$("$bin" run "$src/configs/scenarios/thesis-fig01-launch.yaml" --set run.stop=fg_end --quiet 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] || say "run.stop: fg_end (a typo) exited $rc, wanted 2"
exit $fail
