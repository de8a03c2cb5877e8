#!/usr/bin/env bash
# Output files under faults (docs/output.md): a character device, a FIFO or
# a symlink is written through and never replaced (mobisim runs as root on
# lab machines); a temporary planted at the old predictable name
# .NAME.tmp.PID is not followed; SIGTERM/SIGINT/SIGHUP remove the hidden
# temporary (every per-CPU one of `trace convert -o NAME.blktrace.0`) and
# exit 128+signal; stdout write errors (> /dev/full) exit 1
# with "stdout: <strerror>"; write errors name the file and errno; --out
# and --trace-out naming one file is refused.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'kill -KILL $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

mm1=$src/configs/scenarios/mm1.yaml
small=(--set source.requests=300 --quiet)

# Private device nodes, so that the old behaviour (replace the node with a
# regular file) can never hit the machine's /dev. mknod needs root and
# CAP_MKNOD; without them the device cases use the FIFO only.
devs=0
if mknod "$tmp/null" c 1 3 2>/dev/null && mknod "$tmp/full" c 1 7 2>/dev/null; then
	devs=1
fi

if [ $devs = 1 ]; then
	"$bin" run "$mm1" "${small[@]}" --out "$tmp/null" || say "--out a null device exited $?"
	[ -c "$tmp/null" ] || say "--out replaced a character device: $(ls -l "$tmp/null")"
	ln -s "$tmp/null" "$tmp/null-link"
	"$bin" run "$mm1" "${small[@]}" --out "$tmp/null-link" || say "--out a symlink to a null device exited $?"
	[ -L "$tmp/null-link" ] && [ -c "$tmp/null" ] || say "--out replaced a symlink to a device"
	msg=$("$bin" run "$mm1" "${small[@]}" --out "$tmp/full" 2>&1); rc=$?
	[ $rc = 1 ] || say "--out a full device exited $rc, wanted 1"
	grep -q "$tmp/full: .*No space left on device" <<<"$msg" || say "--out full device: message '$msg'"
	[ -c "$tmp/full" ] || say "--out replaced the full device"
	msg=$("$bin" run "$src/configs/scenarios/cfq-vs-noop.yaml" --quiet --trace-out "$tmp/full" 2>&1); rc=$?
	[ $rc = 1 ] && grep -q "$tmp/full: .*No space left on device" <<<"$msg" ||
		say "--trace-out a full device: exit $rc, '$msg'"
	[ -c "$tmp/full" ] || say "--trace-out replaced the full device"
	printf '8,0 0 1 0.000001000 10 Q R 0 + 8 [a]\n8,0 0 2 0.000002000 10 D R 0 + 8 [a]\n8,0 0 3 0.000100000 10 C R 0 + 8 [0]\n' >"$tmp/t.blkparse"
	msg=$("$bin" trace convert "$tmp/t.blkparse" --to blkparse -o "$tmp/full" 2>&1); rc=$?
	[ $rc = 1 ] && grep -q "$tmp/full: .*No space left on device" <<<"$msg" ||
		say "trace convert -o a full device: exit $rc, '$msg'"
	msg=$("$bin" calibrate "$tmp/t.blkparse" -o "$tmp/full" 2>&1); rc=$?
	[ $rc = 1 ] && grep -q "$tmp/full: .*No space left on device" <<<"$msg" ||
		say "calibrate -o a full device: exit $rc, '$msg'"
	"$bin" calibrate "$tmp/t.blkparse" -o "$tmp/null" || say "calibrate -o a null device exited $?"
	"$bin" trace convert "$tmp/t.blkparse" --to mqsim -o "$tmp/null" || say "trace convert -o a null device exited $?"
	[ -c "$tmp/full" ] && [ -c "$tmp/null" ] || say "calibrate or trace convert replaced a device node"

	# stdout: every command checks its writes and the final flush
	sweep="$tmp/s.yaml"
	printf 'base: %s\nset:\n  source.requests: 200\naxes:\n  device.mean_us: [50, 100]\nmetrics:\n  n: device.requests\n' "$mm1" >"$sweep"
	while IFS= read -r cmd; do
		eval "set -- $cmd"
		msg=$("$bin" "$@" 2>&1 >"$tmp/full"); rc=$?
		[ $rc = 1 ] || say "'$cmd' > full device exited $rc, wanted 1"
		grep -q "^mobisim: stdout: No space left on device" <<<"$msg" || say "'$cmd' > full device: '$msg'"
	done <<EOF
run "$mm1" --set source.requests=300
trace stat "$tmp/t.blkparse"
device curve "$src/configs/devices/emmc51.yaml"
list devices
list policies
sweep "$sweep" --count
compare "$mm1" --set source.requests=300 --policies "baseline;expc"
calibrate "$tmp/t.blkparse"
trace convert "$tmp/t.blkparse" --to mqsim
run "$mm1" --set source.requests=300 --quiet --out -
--help
EOF
else
	echo "note: mknod not permitted here; device-node cases skipped, FIFO and symlink cases run"
fi

# A FIFO is written directly, never replaced.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from-fifo" &
"$bin" run "$mm1" "${small[@]}" --out "$tmp/fifo" || say "--out a FIFO exited $?"
wait
[ -p "$tmp/fifo" ] || say "--out replaced a FIFO"
grep -q '"mobisim"' "$tmp/from-fifo" || say "--out a FIFO: the reader got no result"

# A symlink to a regular file keeps the link; the target gets the result.
echo old >"$tmp/target.json"
ln -s target.json "$tmp/link.json"
"$bin" run "$mm1" "${small[@]}" --out "$tmp/link.json" || say "--out a symlink exited $?"
[ -L "$tmp/link.json" ] || say "--out replaced a symlink with a file"
grep -q '"mobisim"' "$tmp/target.json" || say "--out a symlink: the target was not written"
# dangling symlinks, directories: refused, exit 2, nothing created
ln -s "$tmp/nowhere/x.json" "$tmp/dangling.json"
"$bin" run "$mm1" "${small[@]}" --out "$tmp/dangling.json" 2>/dev/null; rc=$?
[ $rc = 2 ] && [ -L "$tmp/dangling.json" ] || say "--out a dangling symlink: exit $rc"
mkdir "$tmp/dir"
msg=$("$bin" run "$mm1" "${small[@]}" --out "$tmp/dir" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "is a directory" <<<"$msg" || say "--out a directory: exit $rc, '$msg'"

# A symlink planted at the old predictable temporary name is not followed
# (exec keeps the shell's pid, which was the name's suffix).
echo precious >"$tmp/victim"
mkdir "$tmp/plant"
bash -c 'ln -s "$1" "$2/.r.json.tmp.$$"; exec "$3" run "$4" --set source.requests=300 --quiet --out "$2/r.json"' \
	_ "$tmp/victim" "$tmp/plant" "$bin" "$mm1" || say "run with a planted symlink exited $?"
[ "$(cat "$tmp/victim")" = precious ] || say "a planted temporary symlink was followed: victim overwritten"
grep -q '"mobisim"' "$tmp/plant/r.json" || say "planted symlink: no result written"
printf 'base: %s\nset:\n  source.requests: 200\naxes:\n  device.mean_us: [50, 100]\nmetrics:\n  n: device.requests\n' "$mm1" >"$tmp/s2.yaml"
mkdir "$tmp/sw"
bash -c 'ln -s "$1" "$2/.summary.tsv.tmp.$$"; exec "$3" sweep "$4" -j 1 --out "$2" --quiet' \
	_ "$tmp/victim" "$tmp/sw" "$bin" "$tmp/s2.yaml" >/dev/null 2>&1 || say "sweep with a planted symlink exited $?"
[ "$(cat "$tmp/victim")" = precious ] || say "sweep summary followed a planted temporary symlink"
[ -f "$tmp/sw/summary.tsv" ] || say "sweep with a planted symlink wrote no summary"
# A replaced file keeps its mode.
chmod 600 "$tmp/plant/r.json"
"$bin" run "$mm1" "${small[@]}" --out "$tmp/plant/r.json" || say "rerun exited $?"
[ "$(stat -c %a "$tmp/plant/r.json")" = 600 ] || say "a replaced result lost its mode: $(stat -c %a "$tmp/plant/r.json")"

# --out and --trace-out naming the same file
msg=$("$bin" run "$mm1" "${small[@]}" --set scheduler=noop --out "$tmp/same" --trace-out "$tmp/./same" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "same file" <<<"$msg" || say "--out = --trace-out: exit $rc, '$msg'"
[ -e "$tmp/same" ] && say "--out = --trace-out left a file"

# Signals: the hidden temporary goes, the run says it was interrupted.
# Job control on: a background job of a non-interactive shell ignores SIGINT.
set -m
for sig in TERM INT HUP; do
	d="$tmp/sig-$sig"
	mkdir "$d"
	"$bin" run "$mm1" --set scheduler=noop --set source.requests=50000000 --quiet \
		--trace-out "$d/big.blkparse" --out "$d/r.json" 2>"$d/err" &
	pid=$!
	for _ in $(seq 200); do
		ls -A "$d" | grep -q '^\.big' && break
		sleep 0.05
	done
	ls -A "$d" | grep -q '^\.big' || say "SIG$sig: no temporary appeared"
	kill -$sig $pid
	wait $pid; rc=$?
	want=$((128 + $(kill -l $sig)))
	[ $rc = $want ] || say "SIG$sig: exit $rc, wanted $want"
	grep -q "interrupted by SIG$sig" "$d/err" || say "SIG$sig: no 'interrupted' message: $(cat "$d/err")"
	left=$(ls -A "$d" | grep -v '^err$')
	[ -z "$left" ] || say "SIG$sig left files behind: $left"
done

# The same for `trace convert` to a per-CPU blktrace set: one temporary per
# CPU file, all removed. The input is a FIFO held open after 3000 records
# (CPU 1), so the conversion is mid-way, with two temporaries, when signalled.
sample=$src/tests/data/blktrace-nvme-readahead/sample.blkparse.txt
for sig in TERM INT HUP; do
	d="$tmp/conv-$sig"
	mkdir -p "$d/out"
	mkfifo "$d/in"
	(head -3000 "$sample"; sleep 30) > "$d/in" &
	feeder=$!
	"$bin" trace convert "$d/in" --to blktrace -o "$d/out/set.blktrace.0" 2>"$d/err" &
	pid=$!
	for _ in $(seq 200); do
		[ "$(ls -A "$d/out" | grep -c '^\.set\.blktrace\.[01]\.')" = 2 ] && break
		sleep 0.05
	done
	[ "$(ls -A "$d/out" | grep -c '^\.set\.blktrace\.[01]\.')" = 2 ] ||
		say "convert SIG$sig: no per-CPU temporaries appeared: $(ls -A "$d/out")"
	kill -$sig $pid
	wait $pid; rc=$?
	kill -KILL $feeder 2>/dev/null
	wait $feeder 2>/dev/null
	want=$((128 + $(kill -l $sig)))
	[ $rc = $want ] || say "convert SIG$sig: exit $rc, wanted $want"
	grep -q "interrupted by SIG$sig" "$d/err" || say "convert SIG$sig: no 'interrupted' message: $(cat "$d/err")"
	left=$(ls -A "$d/out")
	[ -z "$left" ] || say "convert SIG$sig left files behind: $left"
done
set +m

exit $fail
