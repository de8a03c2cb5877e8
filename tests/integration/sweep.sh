#!/usr/bin/env bash
# `mobisim sweep` end to end on the M/M/1 scenario: --count and
# --list, a -j 2 run whose summary.tsv is byte-identical to a -j 1 run,
# --point idempotence (skip when present, same bytes apart from wall-clock
# fields with --force), resume after a SIGKILL loses no finished point and
# gives the same summary as an uninterrupted run, SIGTERM/SIGINT to the
# parent stop its workers too and leave a resumable directory, --collect from two
# directories, a failing and a crashing point that fail alone, scripts/slurm-sweep.sbatch
# with a stand-in sbatch, and a run through GNU parallel when installed.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap '[ -f "$tmp/bg.pid" ] && kill -KILL -- "-$(cat "$tmp/bg.pid")" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

# Rows of a summary (without the header).
rows() { grep -vc '^#' "$1"; }

cat >"$tmp/mm1.yaml" <<EOF
# 4 rates x 2 service times x 3 repetitions = 24 points
base: $src/configs/scenarios/mm1.yaml
set:
  source.requests: 2000
axes:
  source.rate_per_s: {range: {from: 1000, to: 7000, step: 2000}}
  device.mean_us: [50, 100]
repetitions: 3
metrics:
  mean_us: {path: classes.fg.read.lat_ns.mean, scale: 1e-3}
  p99_ns: classes.fg.read.lat_ns.p99
  requests: device.requests
EOF
sweep=$tmp/mm1.yaml

# --count and --list
n=$("$bin" sweep "$sweep" --count) || say "--count failed"
[ "$n" = 24 ] || say "--count says '$n', wanted 24"
"$bin" sweep "$sweep" --list >"$tmp/list" || say "--list failed"
[ "$(wc -l <"$tmp/list")" -eq 24 ] || say "--list has $(wc -l <"$tmp/list") lines, wanted 24"
grep -Eq $'^0000-[0-9a-f]{8}\tsource.rate_per_s=1000 device.mean_us=50 rep=0 seed=[0-9]+$' "$tmp/list" ||
	say "--list line 1 is '$(head -1 "$tmp/list")'"
grep -Eq $'^0023-[0-9a-f]{8}\tsource.rate_per_s=7000 device.mean_us=100 rep=2 ' "$tmp/list" ||
	say "--list last line is '$(tail -1 "$tmp/list")'"
[ "$(cut -f1 "$tmp/list" | sort -u | wc -l)" -eq 24 ] || say "point ids are not unique"

# -j 2 and -j 1 give the same summary
"$bin" sweep "$sweep" -j 2 --out "$tmp/a" || say "sweep -j 2 failed"
"$bin" sweep "$sweep" -j 1 --out "$tmp/b" || say "sweep -j 1 failed"
[ -f "$tmp/a/summary.tsv" ] || say "no summary.tsv"
head -1 "$tmp/a/summary.tsv" | grep -q $'^# id\tsource.rate_per_s\tdevice.mean_us\trep\tseed\tmean_us\tp99_ns\trequests$' ||
	say "summary header is '$(head -1 "$tmp/a/summary.tsv")'"
[ "$(rows "$tmp/a/summary.tsv")" -eq 24 ] || say "summary has $(rows "$tmp/a/summary.tsv") rows"
[ "$(ls "$tmp/a/points" | wc -l)" -eq 24 ] || say "points/ has $(ls "$tmp/a/points" | wc -l) files"
cmp -s "$tmp/a/summary.tsv" "$tmp/b/summary.tsv" || say "summary differs between -j 2 and -j 1"
# M/M/1 sanity: at rate 7000/s and 100 us service the mean response is
# well above the one at 1000/s (rho 0.7 vs 0.1), and every point saw 2000
# requests.
awk -F'\t' '!/^#/ && $8 != 2000 { bad = 1 } END { exit bad }' "$tmp/a/summary.tsv" ||
	say "a point did not complete 2000 requests"
lo=$(awk -F'\t' '$2 == 1000 && $3 == 100 && $4 == 0 { print $6 }' "$tmp/a/summary.tsv")
hi=$(awk -F'\t' '$2 == 7000 && $3 == 100 && $4 == 0 { print $6 }' "$tmp/a/summary.tsv")
awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo > 100 && lo < 130 && hi > 2 * lo) }' ||
	say "mean response at rho 0.1 / 0.7: $lo / $hi us"

# --point: runs one point, skips it when present, --force gives the same
# bytes apart from wall-clock fields
id=$(sed -n 6p "$tmp/list" | cut -f1)
"$bin" sweep "$sweep" --point 5 --out "$tmp/c" || say "--point 5 failed"
f=$tmp/c/points/$id.json
[ -f "$f" ] || say "--point 5 did not write $id.json"
[ "$(ls "$tmp/c/points")" = "$id.json" ] || say "--point wrote more than its point"
grep -q "\"id\": \"$id\"" "$f" || say "point file lacks sweep.id"
grep -q '"assignment"' "$f" || say "point file lacks sweep.assignment"
cp "$f" "$tmp/first.json"
"$bin" sweep "$sweep" --point "$id" --out "$tmp/c" || say "--point ID failed"
cmp -s "$f" "$tmp/first.json" || say "--point rewrote an existing point without --force"
"$bin" sweep "$sweep" --point 5 --out "$tmp/c" --force || say "--point --force failed"
"$bin" sweep --canonical "$tmp/first.json" >"$tmp/c1" || say "--canonical failed"
"$bin" sweep --canonical "$f" >"$tmp/c2"
"$bin" sweep --canonical "$tmp/a/points/$id.json" >"$tmp/c3"
cmp -s "$tmp/c1" "$tmp/c2" || say "--point --force gave different bytes (wall-clock fields removed)"
cmp -s "$tmp/c1" "$tmp/c3" || say "--point differs from the same point of the pool run"
grep -q wall_s "$tmp/c1" && say "--canonical left wall_s in"
"$bin" sweep "$sweep" --point 24 --out "$tmp/c" 2>/dev/null
[ $? -eq 2 ] || say "--point 24 (out of range) did not exit 2"

# resume after SIGKILL: a slower variant of the sweep, killed (the whole
# process group, pool and points) once a few points are done
sed 's/requests: 2000/requests: 20000/' "$sweep" >"$tmp/slow.yaml"
"$bin" sweep "$tmp/slow.yaml" -j 2 --out "$tmp/full" || say "slow sweep failed"
# (in a subshell with stderr closed, so bash's "Killed" notice stays quiet)
(
	setsid "$bin" sweep "$tmp/slow.yaml" -j 1 --out "$tmp/killed" &
	echo $! >"$tmp/bg.pid"
	for _ in $(seq 1 2000); do
		[ "$(ls "$tmp/killed/points" 2>/dev/null | grep -c '\.json$')" -ge 3 ] && break
		sleep 0.005
	done
	kill -KILL -- "-$(cat "$tmp/bg.pid")"
	wait
) 2>/dev/null
rm -f "$tmp/bg.pid"
done_before=$(ls "$tmp/killed/points" | grep -c '^[0-9].*\.json$')
echo "note: killed after $done_before of 24 points"
for p in "$tmp/killed/points"/*.json; do
	"$bin" sweep --canonical "$p" >/dev/null 2>&1 || say "a killed run left a broken $p"
done
[ -e "$tmp/killed/summary.tsv" ] && [ "$done_before" -lt 24 ] && say "a killed run wrote a summary"
cp -r "$tmp/killed/points" "$tmp/before"
"$bin" sweep "$tmp/slow.yaml" -j 2 --out "$tmp/killed" --resume || say "--resume failed"
for p in "$tmp/before"/*.json; do
	cmp -s "$p" "$tmp/killed/points/${p##*/}" || say "--resume reran finished point ${p##*/}"
done
cmp -s "$tmp/full/summary.tsv" "$tmp/killed/summary.tsv" ||
	say "summary after kill + resume differs from an uninterrupted run"

# SIGTERM / SIGINT to the pool's parent only (as `kill PID` or a batch
# system would send it): the running workers are stopped too, none is left
# behind, no temporary stays, and --resume finishes the sweep with the
# summary of an uninterrupted run.
# Job control on: its own process group, and SIGINT not ignored.
set -m
# On a loaded machine the whole sweep can end before the signal is sent:
# then (the pool no longer running when it would be signalled) the round is
# run again, at most 3 times; a pool that was running must obey.
for sig in TERM INT; do
	for attempt in 1 2 3; do
		d=$tmp/sig-$sig-$attempt
		"$bin" sweep "$tmp/slow.yaml" -j 2 --out "$d" 2>"$tmp/sig.err" &
		pool=$!
		echo "$pool" >"$tmp/bg.pid"
		workers=
		for _ in $(seq 1 2000); do
			if [ "$(ls "$d/points" 2>/dev/null | grep -c '\.json$')" -ge 2 ]; then
				workers=$(for st in /proc/[0-9]*/stat; do
					{ read -r cpid _ _ ppid _ <"$st"; } 2>/dev/null && [ "$ppid" = "$pool" ] && echo "$cpid"
				done)
				[ -n "$workers" ] && break
			fi
			sleep 0.005
	done
	state=$( { read -r _ _ st _ <"/proc/$pool/stat"; echo "$st"; } 2>/dev/null)
	if [ -z "$state" ] || [ "$state" = Z ]; then
		wait "$pool"
		echo "note: SIG$sig: the sweep ended before the signal (attempt $attempt)"
		rm -f "$tmp/bg.pid"
		[ $attempt = 3 ] && say "sweep SIG$sig: the sweep ended before the signal 3 times"
		continue
	fi
	kill -$sig "$pool"
	wait "$pool"
	rc=$?
	want=$((128 + $(kill -l $sig)))
	[ $rc = $want ] || say "sweep SIG$sig: exit $rc, wanted $want"
	grep -q "interrupted by SIG$sig" "$tmp/sig.err" || say "sweep SIG$sig: message '$(cat "$tmp/sig.err")'"
	left=$(pgrep -g "$pool")
	[ -z "$left" ] || say "sweep SIG$sig left workers running: $left"
	[ -n "$workers" ] || echo "note: SIG$sig: no worker seen running"
	kill -KILL -- "-$pool" 2>/dev/null
	rm -f "$tmp/bg.pid"
	ls -A "$d/points" | grep -q '^\.' && say "sweep SIG$sig left temporaries: $(ls -A "$d/points" | grep '^\.')"
	"$bin" sweep "$tmp/slow.yaml" -j 2 --out "$d" --resume 2>/dev/null || say "--resume after SIG$sig failed"
	cmp -s "$tmp/full/summary.tsv" "$d/summary.tsv" ||
		say "summary after SIG$sig + resume differs from an uninterrupted run"
	break
	done
done
set +m

# --collect from two directories (points split as if by two machines)
mkdir -p "$tmp/m1/points" "$tmp/m2"
i=0
for p in "$tmp/a/points"/*.json; do
	if [ $((i % 2)) -eq 0 ]; then cp "$p" "$tmp/m1/points/"; else cp "$p" "$tmp/m2/"; fi
	i=$((i + 1))
done
"$bin" sweep "$sweep" --collect "$tmp/m1" --collect "$tmp/m2" --out "$tmp/merged" ||
	say "--collect failed"
cmp -s "$tmp/a/summary.tsv" "$tmp/merged/summary.tsv" || say "collected summary differs"
[ "$(ls "$tmp/merged/points" | wc -l)" -eq 24 ] || say "--collect did not copy the points"
"$bin" sweep "$sweep" --collect "$tmp/m1" --out "$tmp/half" 2>/dev/null
[ $? -eq 1 ] || say "--collect with half the points did not exit 1"
[ "$(rows "$tmp/half/summary.tsv")" -eq 12 ] || say "half collect has $(rows "$tmp/half/summary.tsv") rows"

# a point with a bad value fails alone, named by the sweep file's line
cat >"$tmp/bad.yaml" <<EOF
base: $src/configs/scenarios/mm1.yaml
set: {source.requests: 200}
axes:
  device.mean_us: [50, -1, 100]
EOF
"$bin" sweep "$tmp/bad.yaml" -j 2 --out "$tmp/bad" 2>"$tmp/bad.err"
rc=$?
[ $rc -eq 2 ] || say "a bad point: exit $rc, wanted 2"
grep -q 'bad.yaml:4:[0-9]*: point 0001-' "$tmp/bad.err" || say "bad point message: $(cat "$tmp/bad.err")"
[ "$(rows "$tmp/bad/summary.tsv")" -eq 2 ] || say "the good points of a failing sweep are missing"
# a point that dies (here: SIGKILL while it runs, as the OOM killer would;
# ASan would catch a SIGSEGV) fails alone; the sweep reports the signal
# and exits 1
cat >"$tmp/crash.yaml" <<EOF
base: $src/configs/scenarios/mm1.yaml
axes:
  source.requests: [2000, 100000000, 2000]
EOF
setsid "$bin" sweep "$tmp/crash.yaml" -j 2 --out "$tmp/crash" 2>"$tmp/crash.err" &
pool=$!
echo "$pool" >"$tmp/bg.pid" # its own process group, so the trap can end it all
victim=
for _ in $(seq 1 2000); do
	if [ "$(ls "$tmp/crash/points" 2>/dev/null | grep -c '\.json$')" -ge 2 ]; then
		for st in /proc/[0-9]*/stat; do
			{ read -r cpid _ _ ppid _ <"$st"; } 2>/dev/null && [ "$ppid" = "$pool" ] && victim="$victim $cpid"
		done
		break
	fi
	sleep 0.005
done
if [ -n "$victim" ]; then
	kill -KILL $victim # a finished point may still be a zombie: no harm
	wait "$pool"
	rc=$?
	[ $rc -eq 1 ] || say "a crashed point: exit $rc, wanted 1"
	grep -q 'point 0001-.*crashed (signal 9' "$tmp/crash.err" || say "crash report: $(cat "$tmp/crash.err")"
	[ "$(rows "$tmp/crash/summary.tsv")" -eq 2 ] || say "the points next to a crashed one are missing"
else
	kill -KILL -- "-$pool" 2>/dev/null
	wait "$pool" 2>/dev/null
	echo "note: no running point to crash, skipped"
fi
rm -f "$tmp/bg.pid"

# a bad key fails before any point runs
printf 'base: %s\naxes:\n  device.mean_usx: [1, 2]\n' "$src/configs/scenarios/mm1.yaml" >"$tmp/badkey.yaml"
out=$("$bin" sweep "$tmp/badkey.yaml" --out "$tmp/badkey" 2>&1)
[ $? -eq 2 ] || say "a bad key did not exit 2"
grep -q 'badkey.yaml:3:[0-9]*: .*unknown key' <<<"$out" || say "bad key message: $out"
[ "$(wc -l <<<"$out")" -eq 1 ] || say "bad key: wanted one line, got: $out"
[ -e "$tmp/badkey" ] && say "a sweep that cannot start created its output directory"

# scripts/slurm-sweep.sbatch against a stand-in sbatch that runs the array
# tasks and the collect step in turn (5 tasks for 24 points: strided)
mkdir -p "$tmp/fakebin"
cat >"$tmp/fakebin/sbatch" <<'EOF2'
#!/usr/bin/env bash
array= wrap= args=()
while [ $# -gt 0 ]; do
	case $1 in
	--array=*) array=${1#--array=} ;;
	--wrap) wrap=$2; shift ;;
	--*) ;;
	*) args+=("$1") ;;
	esac
	shift
done
if [ -n "$wrap" ]; then bash -c "$wrap" >&2 || exit 1; echo 2; exit 0; fi
range=${array%%%*}
for t in $(seq "${range%-*}" "${range#*-}"); do
	SLURM_ARRAY_TASK_ID=$t bash "${args[@]}" >&2 || exit 1
done
echo 1
EOF2
chmod +x "$tmp/fakebin/sbatch"
PATH=$tmp/fakebin:$PATH MOBISIM=$bin MOBISIM_ARRAY_MAX=5 \
	bash "$src/scripts/slurm-sweep.sbatch" "$sweep" "$tmp/slurm" >/dev/null || say "slurm-sweep.sbatch failed"
cmp -s "$tmp/a/summary.tsv" "$tmp/slurm/summary.tsv" || say "slurm-sweep.sbatch summary differs"

# GNU parallel runs one point per job; collect writes the same summary
if command -v parallel >/dev/null 2>&1; then
	seq 0 $((n - 1)) | parallel -j 2 --halt now,fail=1 \
		"$bin" sweep "$sweep" --point {} --out "$tmp/par" || say "GNU parallel run failed"
	"$bin" sweep "$sweep" --collect "$tmp/par" --out "$tmp/par" || say "collect after parallel failed"
	cmp -s "$tmp/a/summary.tsv" "$tmp/par/summary.tsv" || say "GNU parallel summary differs"
else
	echo "note: GNU parallel not installed, skipping that part"
fi

exit $fail
