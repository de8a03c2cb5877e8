#!/bin/bash
# docs/recording.md runs as written: every ```sh block of the guide is run,
# in order, with every ```yaml file=NAME block written to NAME first, in a
# directory that sees the repository's traces/, tests/ and configs/ (the
# guide's sample paths); each command must exit 0. Then the outcomes the
# guide states are checked: the fitted model's report is within tolerance,
# the composite ran both sources, and compare printed the foreground read
# median under both policy sets.
# usage: recording.sh MOBISIM_BIN SRC_DIR
set -u
BIN=${1:?mobisim binary}
SRC=${2:?source dir}
DOC=$SRC/docs/recording.md
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
cd "$TMP" || exit 1
for d in traces tests configs; do ln -s "$SRC/$d" "$d"; done
mkdir bin && ln -s "$BIN" bin/mobisim
export PATH="$TMP/bin:$PATH"

# Split the guide into its runnable blocks (sh commands, yaml files), in order.
python3 - "$DOC" > steps.txt <<'PY' || { echo "FAIL: cannot read the guide"; exit 1; }
import re, sys
text = open(sys.argv[1]).read()
n = 0
for m in re.finditer(r"^```(sh|yaml file=(\S+))\n(.*?)^```$", text, re.S | re.M):
    body = m.group(3)
    if m.group(1) == "sh":
        for line in body.splitlines():
            if line.strip() and not line.startswith("#"):
                print("run\t" + line)
    else:
        n += 1
        open("block%d.yaml" % n, "w").write(body)
        print("file\t%s\tblock%d.yaml" % (m.group(2), n))
PY
nrun=0
while IFS=$'\t' read -r kind a b; do
	case $kind in
	file) cp "$b" "$a" ;;
	run)
		nrun=$((nrun + 1))
		bash -c "$a" > "out$nrun.txt" 2> "err$nrun.txt" || { err "'$a' exited $?"; cat "err$nrun.txt" >&2; }
		;;
	esac
done < steps.txt
[ $nrun -ge 5 ] || err "only $nrun commands found in the guide's sh blocks"
grep -q 'mobisim workload fit' steps.txt || err "the guide runs no workload fit"
grep -q 'mobisim compare' steps.txt || err "the guide runs no compare"

# What the guide says happens.
[ -f app.yaml ] && [ -f app.workload.yaml ] || err "workload fit wrote no app.yaml/app.workload.yaml"
fitout=$(grep -l '^statistic ' out*.txt | head -1)
[ -n "$fitout" ] && grep -Eq '^([0-9]+) of \1 statistics within tolerance' "$fitout" ||
	err "fitted model not within tolerance: $(tail -1 "$fitout" 2>/dev/null)"
python3 - mix.json <<'PY' || err "the composite did not run both sources"
import json, sys
r = json.load(open(sys.argv[1]))
src = r["workload"]["sources"]
assert set(src) >= {"app", "bg"}, list(src)
assert src["app"]["ios_injected"] == 4364, src["app"]["ios_injected"]
PY
grep -Eq '^fg read p50 .*\(-[0-9.]+%\)' out*.txt || err "compare: the fg read median did not fall under expc,boost,fgcfq"
exit $fail
