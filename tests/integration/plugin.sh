#!/usr/bin/env bash
# Out-of-tree policy plugin: install mobisim's headers into a
# temporary prefix, build examples/plugin/noop_counter.c against them
# with plain cc, and check that `mobisim list policies --plugin` lists it,
# that `run --plugin` puts its hook counters in the result without
# changing the simulated behaviour, that `compare --plugin` accepts it,
# and that a missing file, a missing symbol and a duplicate name are
# exit-2 errors naming the problem.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cc=${CC:-cc}
build=$(cd "$(dirname "$bin")" && pwd)

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "cmake --install"; }
[ -f "$tmp/prefix/include/mobisim/models/policies/policy.h" ] || fail "policy.h not installed"
[ -f "$tmp/prefix/include/mobisim/sim/config.h" ] || fail "sim/config.h not installed"
[ ! -e "$tmp/prefix/include/mobisim/models/stack/stack_int.h" ] || fail "private header installed"

"$cc" -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -I"$tmp/prefix/include/mobisim" \
	"$src/examples/plugin/noop_counter.c" -o "$tmp/noop_counter.so" ||
	fail "plugin does not build against the installed headers"

out=$("$bin" list policies --plugin "$tmp/noop_counter.so") || fail "list policies --plugin"
echo "$out" | grep -q '^example-noop-counter .*\[plugin\]' || { echo "$out"; fail "plugin not listed"; }
echo "$out" | grep -q '^expc ' || fail "built-ins not listed with a plugin"

scn="$src/configs/scenarios/launch-demo.yaml"
"$bin" run "$scn" --plugin "$tmp/noop_counter.so" --set policies=example-noop-counter \
	--set example-noop-counter.tag=it --quiet --out "$tmp/p.json" || fail "run --plugin"
"$bin" run "$scn" --quiet --out "$tmp/b.json" || fail "baseline run"

# compare with the plugin: runs keyed by set
"$bin" compare "$scn" --plugin "$tmp/noop_counter.so" --policies "baseline;example-noop-counter" \
	--quiet --out "$tmp/c.json" || fail "compare --plugin"

# errors: exit 2 and a message naming the problem
expect2() {
	local what=$1 needle=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc -eq 2 ] || { cat "$tmp/err"; fail "$what: exit $rc, expected 2"; }
	grep -q -- "$needle" "$tmp/err" || { cat "$tmp/err"; fail "$what: no '$needle' in the message"; }
}
expect2 "missing plugin" "no such file" "$bin" run "$scn" --plugin "$tmp/absent.so" --quiet
printf 'int unrelated(void);\nint unrelated(void) { return 1; }\n' >"$tmp/nosym.c"
"$cc" -shared -fPIC "$tmp/nosym.c" -o "$tmp/nosym.so" || fail "cc nosym"
expect2 "no register symbol" "mobisim_policy_register" "$bin" list policies --plugin "$tmp/nosym.so"
cat >"$tmp/dup.c" <<'C'
#include "models/policies/policy.h"
static const struct policy_ops dup_ops = { .name = "expc", .abi = MOBISIM_POLICY_ABI };
int mobisim_policy_register(struct policy_registry *reg);
int mobisim_policy_register(struct policy_registry *reg) { return policy_registry_add(reg, &dup_ops); }
C
"$cc" -std=gnu11 -shared -fPIC -I"$tmp/prefix/include/mobisim" "$tmp/dup.c" -o "$tmp/dup.so" ||
	fail "cc dup"
expect2 "duplicate name" "already registered" "$bin" run "$scn" --plugin "$tmp/dup.so" --quiet
expect2 "unknown policy in compare" "unknown policy 'nope'" \
	"$bin" compare "$scn" --policies "baseline;expc,nope" --quiet
expect2 "unknown policy in run" "unknown policy 'nope'" \
	"$bin" run "$scn" --set policies=nope --quiet

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not installed, JSON not checked"
	exit 0
fi
python3 - "$tmp" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
p = json.load(open(f"{d}/p.json"))
b = json.load(open(f"{d}/b.json"))
c = json.load(open(f"{d}/c.json"))
ok = True
pc = p.get("policies", {}).get("example-noop-counter")
if not pc:
    print("FAIL: no policies.example-noop-counter in the result"); sys.exit(1)
print("plugin counters:", {k: v for k, v in pc.items() if k != "params"})
for k in ("pagecache_may_insert", "on_page_insert", "classify_request"):
    if not pc.get(k, 0) > 0:
        print(f"FAIL: counter {k} is {pc.get(k)}"); ok = False
if pc.get("tag") != "it":
    print("FAIL: tunable not applied"); ok = False
for k in ("classes", "regions", "device", "waits", "stack"):
    if json.dumps(p[k], sort_keys=True) != json.dumps(b[k], sort_keys=True):
        print(f"FAIL: the no-op plugin changed '{k}'"); ok = False
if set(c.get("runs", {})) != {"baseline", "example-noop-counter"} or not c.get("table"):
    print("FAIL: compare document"); ok = False
sys.exit(0 if ok else 1)
PY
echo "ok"
