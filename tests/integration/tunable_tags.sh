#!/usr/bin/env bash
# Every tunable a platform file sets has the tag its comment gives: a value
# the file calls assumed ([INFER], [RECALL], fitted) is "assumed" in
# `sensitivity --list`, so the default study perturbs it, and a value the file
# sources is not assumed in the code. A mismatch names file, key and both tags.
set -u
bin=$1 src=$2
fail() { echo "FAIL: $*"; exit 1; }
cd "$src" || fail "cd"
# platform -> a scenario that includes it
pairs="configs/platforms/galaxy-s6.yaml:configs/scenarios/thesis-fig01-launch.yaml
configs/platforms/pixel9pro.yaml:configs/scenarios/modern-fig01-launch.yaml
configs/platforms/aosp5-sopia7420.yaml:configs/scenarios/thesis-fig01-launch-aosp.yaml
configs/platforms/pixel6a.yaml:configs/scenarios/pixel6a-launch.yaml
configs/platforms/nexus5.yaml:configs/scenarios/fasttrack-multibg-nexus5.yaml
configs/platforms/nexus6.yaml:configs/scenarios/fasttrack-multibg-nexus6.yaml
configs/platforms/pixel.yaml:configs/scenarios/fasttrack-multibg-pixel.yaml
configs/platforms/desktop-kvm.yaml:configs/scenarios/hotstorage24-guest-randread-buffered.yaml
configs/platforms/pixel-pkvm.yaml:configs/scenarios/hotstorage24-pkvm-randread.yaml
configs/platforms/galaxy-nexus.yaml:configs/scenarios/fast-gnexus.yaml"
for p in configs/platforms/*.yaml; do
	echo "$pairs" | grep -q "^$p:" || fail "$p: no scenario listed here to read its tunables"
done
for pair in $pairs; do
	plat=${pair%%:*} scn=${pair#*:}
	grep -q "platforms/$(basename "$plat")" "$scn" || fail "$scn does not include $plat"
	python3 - "$plat" "$scn" "$bin" <<'PY' || fail "$plat: tags differ (above)"
import re, subprocess, sys
TAG = re.compile(r'assum|\[INFER\]|\[RECALL\]|fitted', re.I)
plat, scen, mobisim = sys.argv[1:4]
tags, stack, last = {}, [], None      # dotted key -> its comment (continued lines joined)
for line in open(plat):
    s = line.rstrip('\n')
    if not s.strip():
        continue
    ind = len(s) - len(s.lstrip(' '))
    body = s.strip()
    if body.startswith('#'):
        if last and ind > last[1]:
            tags[last[0]] += ' ' + body[1:]
        else:
            last = None
        continue
    m = re.match(r'([A-Za-z0-9_.-]+):\s*(.*)$', body)
    if not m:
        last = None
        continue
    while stack and stack[-1][0] >= ind:
        stack.pop()
    key, rest = m.group(1), m.group(2)
    val, _, com = rest.partition('#')
    if not val.strip():
        stack.append((ind, key))
        last = None
        continue
    last = None
    if key == 'include':
        continue
    dotted = '.'.join([k for _, k in stack] + [key])
    tags[dotted] = com
    last = (dotted, ind)
out = subprocess.run([mobisim, 'sensitivity', scen, '--list'], capture_output=True, text=True)
if out.returncode:
    sys.exit(out.stderr)
code = {}
for l in out.stdout.splitlines():
    f = l.split('\t')
    if not l.startswith('#') and len(f) >= 5:
        # f[5]: the range of a scenario's assumptions: entry ('-' if none)
        code[f[0]] = (f[3], f[4], f[5] if len(f) > 5 else '-')
bad, seen = 0, 0
for k, com in tags.items():
    if k not in code:
        continue          # not a tunable (scheduler:, name:, fs.kind: select modules)
    seen += 1
    # a value sourced for the platform is still assumed by a scenario whose
    # assumptions: map gives it a range (which platform an experiment ran on)
    want = 'assumed' if TAG.search(com) or code[k][2] != '-' else 'sourced'
    if want != code[k][0]:
        bad += 1
        print(f'{plat}: {k}: the file says {want} ({com.strip()[:70]}); '
              f'sensitivity --list says {code[k][0]} ({code[k][1][:70]})')
if seen < 8:
    sys.exit(f'{plat}: only {seen} tunables matched: the parser is broken')
sys.exit(1 if bad else 0)
PY
done
echo ok
