#!/usr/bin/env bash
# Open-loop overload is bounded and said (issue: 10^6 requests at t = 0 took
# 254 MB silently, an M/M/1 at rho = 100 1.7 GB): past 10,000 outstanding
# requests a run warns on stderr and in the result (workload.warnings);
# past workload.max_outstanding / source.max_outstanding it stops, exit 1,
# naming the key and what was served. A stable queue says nothing. The
# block replay and the ftrace replay (open loop) are guarded the same way.
# Also memory: a page cache larger than the machine is refused up front.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
mm1=$src/configs/scenarios/mm1.yaml

# M/M/1 at rho = 100 (lambda 10^6/s, 1/mu 100 us): stopped at the cap
msg=$("$bin" run "$mm1" --set source.rate_per_s=1000000 --set source.requests=100000000 \
	--set source.max_outstanding=20000 --quiet --out "$tmp/r.json" 2>&1); rc=$?
[ $rc = 1 ] || say "rho = 100: exit $rc, wanted 1"
grep -Eq "20001 requests outstanding .* passes source.max_outstanding = 20000: .* served [0-9]+ of 20[0-9]+ issued" <<<"$msg" ||
	say "rho = 100: message '$msg'"
[ -e "$tmp/r.json" ] && say "rho = 100: a stopped run wrote a result"
# rho = 2 for 30,000 requests: finishes, with a warning
msg=$("$bin" run "$mm1" --set source.rate_per_s=20000 --set source.requests=30000 --quiet \
	--out "$tmp/w.json" 2>&1); rc=$?
[ $rc = 0 ] || say "rho = 2: exit $rc"
grep -q "^mobisim: warning: open-loop overload: 10000 requests outstanding" <<<"$msg" || say "rho = 2: no warning: '$msg'"
grep -q '"warnings"' "$tmp/w.json" || say "rho = 2: no warnings in the result"
# rho = 0.5: silent
msg=$("$bin" run "$mm1" --set source.requests=30000 --quiet --out "$tmp/s.json" 2>&1); rc=$?
[ $rc = 0 ] && [ -z "$msg" ] || say "rho = 0.5: exit $rc, '$msg'"
grep -q '"warnings"' "$tmp/s.json" && say "rho = 0.5: warnings in the result"

# block replay, open loop: 30,000 reads recorded at one instant
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "8,0 0 %d 0.000001000 10 Q R %d + 8 [a]\n", i + 1, i * 8 }' >"$tmp/burst.blkparse"
br=$src/configs/scenarios/block-replay.yaml
msg=$("$bin" run "$br" --set workload.trace="$tmp/burst.blkparse" --set replay=open \
	--set workload.max_outstanding=5000 --quiet 2>&1); rc=$?
[ $rc = 1 ] && grep -q "5001 requests outstanding at t = 0.000000 s passes workload.max_outstanding = 5000" <<<"$msg" ||
	say "replay burst over the cap: exit $rc, '$msg'"
msg=$("$bin" run "$br" --set workload.trace="$tmp/burst.blkparse" --set replay=open --quiet 2>&1); rc=$?
[ $rc = 0 ] && grep -q "warning: open-loop overload" <<<"$msg" || say "replay burst: exit $rc, '$msg'"
# the closed loop has no such backlog
msg=$("$bin" run "$br" --set workload.trace="$tmp/burst.blkparse" --set workload.max_outstanding=5000 --quiet 2>&1); rc=$?
[ $rc = 0 ] && [ -z "$msg" ] || say "closed-loop replay: exit $rc, '$msg'"

# ftrace replay, open loop: one thread's 30,000 reads recorded at one
# instant (a thread's ops stay serialised, so all but one wait past their
# recorded time)
fr=$src/configs/scenarios/ftrace-replay.yaml
awk 'BEGIN {
	print "# tracer: nop"
	print "  app-100 (  100) [000] ..... 10.000000: sys_enter: NR 56 (ffffff9c, 7ffd1000, 0, 0, 0, 0)"
	print "  app-100 (  100) [000] ..... 10.000001: sys_exit: NR 56 = 3"
	for (i = 0; i < 30000; i++) {
		printf "  app-100 (  100) [000] ..... 10.000002: sys_enter: NR 67 (3, 7ffd2000, 1000, %x, 0, 0)\n", (i % 2048) * 4096
		print "  app-100 (  100) [000] ..... 10.000002: sys_exit: NR 67 = 4096"
	}
}' >"$tmp/burst.trace"
msg=$("$bin" run "$fr" --set workload.trace="$tmp/burst.trace" --set replay=open \
	--set workload.max_outstanding=5000 --quiet --out "$tmp/fr.json" 2>&1); rc=$?
[ $rc = 1 ] && grep -Eq "[0-9]+ requests outstanding at t = [0-9.]+ s passes workload.max_outstanding = 5000: .* served [0-9]+ of [0-9]+ issued" <<<"$msg" ||
	say "ftrace burst over the cap: exit $rc, '$msg'"
[ -e "$tmp/fr.json" ] && say "ftrace burst over the cap wrote a result"
msg=$("$bin" run "$fr" --set workload.trace="$tmp/burst.trace" --set replay=open --quiet \
	--out "$tmp/frw.json" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^mobisim: warning: open-loop overload: 10000 requests outstanding" <<<"$msg" ||
	say "ftrace burst: exit $rc, '$msg'"
grep -q '"peak_outstanding": 300[0-9][0-9]' "$tmp/frw.json" || say "ftrace burst: peak_outstanding $(grep -o '"peak_outstanding": [0-9]*' "$tmp/frw.json")"
# the closed loop waits for each read: no backlog, no message
msg=$("$bin" run "$fr" --set workload.trace="$tmp/burst.trace" --set workload.max_outstanding=5000 \
	--quiet 2>&1); rc=$?
[ $rc = 0 ] && [ -z "$msg" ] || say "closed-loop ftrace replay: exit $rc, '$msg'"

# A page cache asking for more page records than the machine (or the
# process's address-space limit) holds is refused at once with the figure
# (it used to allocate for minutes and die out of memory); a large
# memory.total_bytes alone is fine (lazy slabs).
scn=$src/configs/scenarios/thesis-fig02-burst.yaml
# a memory cap (4 GB) makes 1000 GiB of 40-byte records too many on any
# machine and keeps an old binary from taking the machine down; ASan
# reserves terabytes of address space, so no cap and no such check under it
lim=4000000
ldd "$bin" 2>/dev/null | grep -q libasan && lim=unlimited
if [ $lim != unlimited ]; then
	msg=$(ulimit -v $lim; timeout 20 "$bin" run "$scn" --set memory.total_bytes=1TiB \
		--set memory.cached_bytes=1000GiB --quiet 2>&1); rc=$?
	[ $rc = 2 ] && grep -q "memory.cached_bytes: .* asks for [0-9]* page records of [0-9]* bytes = .* GiB of simulator memory" <<<"$msg" ||
		say "cached_bytes 1000GiB: exit $rc, '$msg'"
fi
msg=$(ulimit -v $lim; timeout 20 "$bin" run "$scn" --set memory.total_bytes=1TiB --set run.until_s=0.5 --quiet 2>&1); rc=$?
[ $rc = 0 ] || say "total_bytes 1TiB: exit $rc, '$msg'"
exit $fail
