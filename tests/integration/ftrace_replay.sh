#!/usr/bin/env bash
# Full-stack ftrace replay from the CLI: the bundled
# ftrace-replay.yaml runs the shared Android sample closed loop and says
# so; --set replay=open switches it; --set workload.trace=FILE takes a
# hand-written syscall trace whose read lands in the fg class; a broken
# line exits 2 naming file:line; a block trace is refused with exit 2.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
key() { # key FILE PYTHON-EXPR
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
sc="$src/configs/scenarios/ftrace-replay.yaml"

"$bin" run "$sc" --quiet --out "$tmp/c.json" || say "ftrace-replay exited $?"
[ "$(key "$tmp/c.json" "d['mobisim']['replay']")" = closed ] || say "not closed loop"
[ "$(key "$tmp/c.json" "d['workload']['lines']")" = 2000 ] || say "sample: not 2000 lines read"
[ "$(key "$tmp/c.json" "d['workload']['ops']['read']")" -gt 1000 ] || say "sample: too few reads"
[ "$(key "$tmp/c.json" "d['workload']['unknown_events']['__arm64_sys_mprotect']")" = 836 ] ||
	say "sample: mprotect kprobes not counted as unknown"
[ "$(key "$tmp/c.json" "d['classes']['fg']['read']['count']")" -gt 1000 ] || say "sample: fg reads missing"

"$bin" run "$sc" --set replay=open --quiet --out "$tmp/o.json" || say "--set replay=open exited $?"
[ "$(key "$tmp/o.json" "d['mobisim']['replay']")" = open ] || say "--set replay=open ignored"
[ "$(key "$tmp/o.json" "d['workload']['ops'].get('sleep', 0)")" = 0 ] || say "open loop made think-time sleeps"

cat >"$tmp/t.trace" <<'TR'
# tracer: nop
  app-100 (  100) [000] ..... 10.000000: sys_enter: NR 56 (ffffff9c, 7ffd1000, 0, 0, 0, 0)
  app-100 (  100) [000] ..... 10.000005: sys_exit: NR 56 = 3
  app-100 (  100) [000] ..... 10.000010: sys_enter: NR 63 (3, 7ffd2000, 4000, 0, 0, 0)
  app-100 (  100) [000] ..... 10.000020: sys_exit: NR 63 = 16384
  bg-200 (  200) [001] ..... 10.000030: sys_enter: NR 82 (5, 0, 0, 0, 0, 0)
  bg-200 (  200) [001] ..... 10.000040: sys_exit: NR 82 = 0
TR
"$bin" run "$sc" --set "workload.trace=$tmp/t.trace" --set 'workload.fg_comm=app' --quiet \
	--out "$tmp/t.json" || say "syscall trace exited $?"
[ "$(key "$tmp/t.json" "d['classes']['fg']['read']['bytes']")" = 16384 ] || say "read of 16 KiB not in fg"
[ "$(key "$tmp/t.json" "d['workload']['skipped']['io_on_fd_not_opened_in_trace']")" = 1 ] ||
	say "fsync on an unopened fd not counted"

printf '# tracer: nop\n  app-100 (  100) [000] ..... 10.000000: sys_exit: NR 56 = x\n' >"$tmp/bad.trace"
"$bin" run "$sc" --set "workload.trace=$tmp/bad.trace" --quiet 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || say "broken line: exit $rc, not 2"
grep -q "bad.trace:2:" "$tmp/err" || say "broken line: no file:2: in '$(cat "$tmp/err")'"

"$bin" run "$sc" --set "workload.trace=$src/traces/samples/disksim/tpcc-small.trace" --quiet 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || say "block trace: exit $rc, not 2"

exit $fail
