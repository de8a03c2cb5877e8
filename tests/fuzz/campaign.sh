#!/bin/bash
# A fuzzing campaign over the reader harnesses, measured in CPU seconds:
# libFuzzer's -max_total_time is wall time, so on a shared machine each
# harness runs at nice 19 until its process has had CPU_S seconds of CPU
# (utime+stime from /proc), then is stopped with SIGINT (final stats).
# A harness that reports a finding stops early; its artifact is kept and a
# later run of this script resumes it from the working corpus and the CPU
# already spent (WORK/NAME/cpu, WORK/NAME/execs).
# Usage: tests/fuzz/campaign.sh BUILD_FUZZ_DIR WORK_DIR CPU_S NAME...
#   e.g. tests/fuzz/campaign.sh build-fuzz /tmp/fuzzwork 600 csv fio
# Afterwards minimise each working corpus against the seeds and keep what
# the merge adds in tests/fuzz/corpus/NAME/gen/ (tests/fuzz/campaign.md):
#   cp tests/fuzz/corpus/NAME/* T/; build-fuzz/fuzz_NAME -merge=1 T WORK/NAME/corpus
set -u
build=$1 work=$2 target=$3
shift 3
src=$(cd "$(dirname "$0")" && pwd)
tck=$(getconf CLK_TCK)
supp=$work/lsan.supp
mkdir -p "$work"
# known, not ours: a 16-byte leak inside libtracecmd / libtraceevent
printf 'leak:libtracecmd.so\nleak:libtraceevent.so\n' > "$supp"
export ASAN_OPTIONS="allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$supp"
for name in "$@"; do
	d=$work/$name
	mkdir -p "$d/corpus" "$d/artifacts"
	[ -f "$d/cpu" ] || echo 0 > "$d/cpu"
	[ -f "$d/execs" ] || echo 0 > "$d/execs"
	run=0
	while [ "$(cat "$d/cpu")" -lt "$target" ]; do
		run=$((run + 1))
		log=$d/run-$(date -u +%H%M%S).log
		before=$(cat "$d/cpu")
		nice -n 19 "$build/fuzz_$name" -rss_limit_mb=2048 -timeout=10 \
			-print_final_stats=1 -max_total_time=86400 \
			-artifact_prefix="$d/artifacts/" "$d/corpus" "$src/corpus/$name" \
			> "$log" 2>&1 &
		pid=$!
		used=0
		while kill -0 $pid 2> /dev/null; do
			sleep 5
			st=$(cat /proc/$pid/stat 2> /dev/null) || break
			set -- ${st#*) }
			used=$(( (${12} + ${13}) / tck ))
			if [ $((before + used)) -ge "$target" ]; then
				kill -INT $pid
				break
			fi
		done
		wait $pid
		rc=$?
		echo $((before + used)) > "$d/cpu"
		ex=$(sed -n 's/^stat::number_of_executed_units: //p' "$log" | tail -1)
		echo $(( $(cat "$d/execs") + ${ex:-0} )) > "$d/execs"
		echo "$name run $run rc=$rc cpu=$(cat "$d/cpu") execs=$(cat "$d/execs") log=$log"
		if ls "$d/artifacts/" | grep -q .; then
			echo "$name: FINDING in $d/artifacts/"; ls -l "$d/artifacts/"
			break
		fi
		[ $rc -eq 0 ] || [ $rc -eq 130 ] || [ $rc -eq 72 ] || { echo "$name: exit $rc, see $log"; break; }
	done
done
