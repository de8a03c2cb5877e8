#!/usr/bin/env bash
# The FAST prefetcher's experiments, short (docs/papers.md §2): on the desktop disk
# (configs/scenarios/fast-hdd.yaml) three apps launched together, where the cold starts'
# reads of three apps interleave and seek, and the prefetcher's LBA-sorted sequences must
# shorten every launch (gain > 10 %); on the SSD (fast-ssd.yaml) two apps one after the
# other. At both, the user level (FAST'11) against the kernel level (the dissertation's
# in-kernel prefetcher): the user level makes a system call per fadvise and two per file,
# spends CPU on them and starts spawn_us after the exec; the kernel level makes none and
# starts at the exec; both hit what the app touches as well (the same plan), and the
# launch times of the two differ by less than 10 %.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
S=$src/configs/scenarios
run() {
	if ! "$bin" run "$@" --quiet >/dev/null 2>"$tmp/err"; then
		echo "FAIL: mobisim run $*"; cat "$tmp/err"; exit 1
	fi
}
hdd=(--set workload.tasks.acroread.start=0s --set workload.tasks.firefox.start=0s
	--set workload.tasks.thunderbird.start=0s)
for t in eclipse oowriter matlab gimp gnome-terminal; do hdd+=(--set workload.tasks.$t.enabled=false); done
ssd=()
for t in acroread eclipse oowriter matlab gimp thunderbird; do ssd+=(--set workload.tasks.$t.enabled=false); done
for e in hdd ssd; do
	declare -n a=$e
	sc=$S/fast-$e.yaml
	pf=(--set policies=prefetch --set prefetch.profile="$tmp/$e.prof")
	run "$sc" "${a[@]}" "${pf[@]}" --set prefetch.mode=record --seed 1 --out "$tmp/$e-rec.json"
	run "$sc" "${a[@]}" --seed 2 --out "$tmp/$e-cold.json"
	for lv in user kernel; do
		run "$sc" "${a[@]}" "${pf[@]}" --set prefetch.level=$lv --seed 2 --out "$tmp/$e-$lv.json"
	done
done
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed, JSON not checked"
	exit 0
fi
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
def load(n):
    with open(f"{d}/{n}.json") as f:
        return json.load(f)
def launches(r):
    return {x["task"]: x["duration_ns"] for x in r["regions"] if x["name"] == "launch"}
bad = []
for e, napps in (("hdd", 3), ("ssd", 2)):
    cold = launches(load(f"{e}-cold"))
    if len(cold) != napps:
        bad.append(f"{e}: {len(cold)} launches, want {napps}")
    res = {lv: load(f"{e}-{lv}") for lv in ("user", "kernel")}
    for lv, r in res.items():
        t = launches(r)
        for app, c in cold.items():
            g = 1 - t[app] / c
            print(f"{e} {lv} {app}: cold {c/1e9:.3f} s, prefetch {t[app]/1e9:.3f} s, gain {100*g:+.1f} %")
            if e == "hdd" and g <= 0.10:
                bad.append(f"hdd {lv} {app}: gain {100*g:.1f} % (want > 10 %: seeks dominate)")
        p = r["policies"]["prefetch"]
        if p["level"] != lv:
            bad.append(f"{e} {lv}: level {p['level']}")
        for a in p["apps"]:
            if a["hit_ratio"] < 0.9 or a["miss_ratio"] <= 0:
                bad.append(f"{e} {lv} {a['app']}: hit {a['hit_ratio']}, miss {a['miss_ratio']} "
                           "(want > 0.9 and > 0: the launch varies by 5 %)")
            if lv == "user":
                if a["prefetch_syscalls"] < a["plan"]["extents"] + 2 * a["prefetch_files_opened"] \
                        or a["prefetch_files_opened"] < 1 or a["prefetch_cpu_ns"] <= 0 \
                        or a["prefetch_start_delay_ns"] != 500000:
                    bad.append(f"{e} user {a['app']}: syscalls {a['prefetch_syscalls']}, "
                               f"opened {a['prefetch_files_opened']}, cpu {a['prefetch_cpu_ns']}, "
                               f"delay {a['prefetch_start_delay_ns']}")
            elif a["prefetch_syscalls"] or a["prefetch_files_opened"] or a["prefetch_cpu_ns"] \
                    or a["prefetch_start_delay_ns"]:
                bad.append(f"{e} kernel {a['app']}: syscalls {a['prefetch_syscalls']}, "
                           f"opened {a['prefetch_files_opened']}, cpu {a['prefetch_cpu_ns']}")
    u, k = launches(res["user"]), launches(res["kernel"])
    for app in cold:
        if abs(u[app] - k[app]) > 0.10 * u[app]:
            bad.append(f"{e} {app}: user {u[app]} vs kernel {k[app]} differ by more than 10 %")
    up, kp = res["user"]["policies"]["prefetch"], res["kernel"]["policies"]["prefetch"]
    if not (up["prefetch_syscalls"] > 0 and kp["prefetch_syscalls"] == 0 and up["prefetch_cpu_ns"] > 0):
        bad.append(f"{e}: totals user {up['prefetch_syscalls']} kernel {kp['prefetch_syscalls']}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
