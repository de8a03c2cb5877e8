#!/usr/bin/env bash
# scripts/slurm-sweep.sbatch on a real one-node Slurm cluster (Debian's
# slurm-wlm 22.05 and munge): munged, slurmctld and slurmd are started on
# localhost with a configuration written to a temporary directory, and
# stopped at the end. A sweep runs as a job array with a collect job; one
# array task is cancelled (scancel), so the first collect reports a
# missing point; the same command resubmitted runs only that point; the
# collected summary.tsv must be byte-identical to `mobisim sweep -j 2`.
# Skips (exit 77) only where the daemons are missing or cannot run here
# (not root, no munged/slurmctld/slurmd binaries, daemons fail to start).
set -u
bin=$1 src=$2
skip() { echo "SKIP: $*"; exit 77; }
for b in munged slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
	command -v $b >/dev/null || skip "$b not installed (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || skip "starting slurmd needs root"
bin=$(realpath "$bin")
tmp=$(mktemp -d /tmp/mobisim-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
t0=$SECONDS

# munge with its own key and socket, so the machine's munged (if any) is untouched
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge.key"
munged --foreground --force --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" \
	--pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munge.seed" &
pids+=($!)

# free TCP ports for slurmctld and slurmd (other test runs may have a cluster up)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cport=$(port) dport=$(port)
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk "/MemTotal/ {print int(\$2 / 1024)}" /proc/meminfo)
mkdir -p "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<CONF
ClusterName=mobisimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=60
SlurmctldTimeout=10
SlurmdTimeout=10
InactiveLimit=0
KillWait=1
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
mkdir -p "$tmp/spool/$host"
export SLURM_CONF=$tmp/slurm.conf
for _ in $(seq 50); do [ -S "$tmp/munge.sock" ] && break; sleep 0.1; done
[ -S "$tmp/munge.sock" ] || skip "munged did not start: $(cat "$tmp/munged.log" 2>/dev/null)"
slurmctld -D -i -f "$tmp/slurm.conf" 2>"$tmp/slurmctld.err" &
pids+=($!)
slurmd -D -f "$tmp/slurm.conf" 2>"$tmp/slurmd.err" &
pids+=($!)
up=0
for _ in $(seq 100); do
	if sinfo -h -o %t 2>/dev/null | grep -Eq '^idle'; then up=1; break; fi
	sleep 0.2
done
if [ $up = 0 ]; then
	echo "--- slurmctld"; tail -5 "$tmp/slurmctld.log" "$tmp/slurmctld.err" 2>/dev/null
	echo "--- slurmd"; tail -5 "$tmp/slurmd.log" "$tmp/slurmd.err" 2>/dev/null
	skip "the one-node Slurm cluster did not come up here (logs above)"
fi
echo "cluster up after $((SECONDS - t0)) s"

cat >"$tmp/mm1.yaml" <<YAML
base: $src/configs/scenarios/mm1.yaml
set:
  source.requests: 2000
axes:
  source.rate_per_s: [1000, 3000, 5000]
  device.mean_us: [50, 100]
metrics:
  mean_us: {path: classes.fg.read.lat_ns.mean, scale: 1e-3}
  requests: device.requests
YAML
"$bin" sweep "$tmp/mm1.yaml" -j 2 --out "$tmp/local" --quiet >/dev/null 2>&1 || say "sweep -j 2 exited $?"

# wait until job $1 (and its array tasks) left the queue
wait_job() {
	for _ in $(seq 300); do
		[ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	say "job $1 still queued after 30 s: $(squeue -j "$1")"
	return 1
}

# Submit held, cancel task 1 of the array, release the rest.
export MOBISIM=$bin
sub=$(bash "$src/scripts/slurm-sweep.sbatch" "$tmp/mm1.yaml" "$tmp/out" --hold \
	--output="$tmp/task-%A_%a.out" 2>&1) || say "slurm-sweep.sbatch failed: $sub"
jid=$(sed -n 's/.*as array job \([0-9]*\).*/\1/p' <<<"$sub")
cid=$(sed -n 's/.*collect job \([0-9]*\).*/\1/p' <<<"$sub")
[ -n "$jid" ] && [ -n "$cid" ] || { say "no job ids in: $sub"; exit 1; }
scancel "${jid}_1" || say "scancel ${jid}_1 failed"
scontrol release "$jid" || say "scontrol release $jid failed"
scontrol release "$cid" || say "scontrol release $cid failed"
wait_job "$jid"
wait_job "$cid"
n=$(ls "$tmp/out/points" 2>/dev/null | wc -l)
[ "$n" = 5 ] || say "after cancelling one task: $n point files, wanted 5"
grep -q "no result" "$tmp"/task-*.out 2>/dev/null || say "the first collect did not name the missing point"

# Resubmit the same command: only the missing point runs.
before=$(stat -c %Y "$tmp"/out/points/*.json | sort | tail -1)
sub=$(bash "$src/scripts/slurm-sweep.sbatch" "$tmp/mm1.yaml" "$tmp/out" \
	--output="$tmp/task2-%A_%a.out" 2>&1) || say "resubmitting failed: $sub"
jid=$(sed -n 's/.*as array job \([0-9]*\).*/\1/p' <<<"$sub")
cid=$(sed -n 's/.*collect job \([0-9]*\).*/\1/p' <<<"$sub")
wait_job "$jid"
wait_job "$cid"
n=$(ls "$tmp/out/points" | wc -l)
[ "$n" = 6 ] || say "after resubmitting: $n point files, wanted 6"
cmp "$tmp/local/summary.tsv" "$tmp/out/summary.tsv" || say "Slurm summary.tsv differs from sweep -j 2"
echo "slurm test took $((SECONDS - t0)) s"
exit $fail
