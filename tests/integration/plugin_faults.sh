#!/usr/bin/env bash
# A policy plugin that crashes, loops or returns what no policy may (issue
# 38 item 3): the run fails naming the policy, its plugin and the hook; a
# crash stays a signal death, a loop ends after MOBISIM_PLUGIN_TIMEOUT
# seconds of CPU with exit 1, a bad value is exit 2; a sweep whose points
# use it goes on past the failed points and names them.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
cc=${CC:-cc}
build=$(cd "$(dirname "$bin")" && pwd)
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }

cat >"$tmp/faulty.c" <<'C'
#include <stddef.h>
#include <string.h>
#include "models/policies/policy.h"
struct faulty { const char *mode; };
static int is(const struct policy *p, const char *m) { return !strcmp(((struct faulty *)p->priv)->mode, m); }
static int64_t f_may_insert(struct policy *p, struct stack_task *t)
{
	(void)t;
	return is(p, "neg_delay") ? -5 : 0;
}
static void f_page_insert(struct policy *p, struct stack_task *t)
{
	(void)t;
	if (is(p, "crash")) {
		volatile int *np = NULL;
		*np = 1;
	}
}
static void f_classify(struct policy *p, struct stack_task *t, struct bio *bio)
{
	(void)t;
	if (is(p, "loop"))
		for (volatile unsigned long i = 0;; i++)
			;
	if (is(p, "bad_bio"))
		bio->sector += 8;
}
static int f_init(struct policy *p, struct sim *sim, struct sim_error *err)
{
	(void)sim;
	(void)err;
	return is(p, "init_silent") ? 1 : 0;
}
static const struct cfg_param f_params[] = {
	{ "mode", CFG_T_STRING, offsetof(struct faulty, mode), "", "none", CFG_NO_RANGE, "test",
	  "none, crash, loop, neg_delay, bad_bio, init_silent", NULL },
	CFG_PARAM_END,
};
static const struct policy_ops f_ops = {
	.name = "faulty", .summary = "misbehaves on purpose (tests)", .abi = MOBISIM_POLICY_ABI,
	.params = f_params, .priv_size = sizeof(struct faulty), .init = f_init,
	.pagecache_may_insert = f_may_insert, .on_page_insert = f_page_insert,
	.classify_request = f_classify,
};
int mobisim_policy_register(struct policy_registry *reg);
int mobisim_policy_register(struct policy_registry *reg) { return policy_registry_add(reg, &f_ops); }
C
"$cc" -std=gnu11 -O0 -shared -fPIC -I"$tmp/prefix/include/mobisim" "$tmp/faulty.c" -o "$tmp/faulty.so" ||
	{ echo "FAIL: cc faulty"; exit 1; }
scn="$(cd "$src" && pwd)/configs/scenarios/launch-demo.yaml"
run() { # MODE: the run's exit status in $rc, stderr in $tmp/err
	"$bin" run "$scn" --plugin "$tmp/faulty.so" --set policies=faulty --set faulty.mode=$1 \
		--quiet --out "$tmp/$1.json" 2>"$tmp/err"
	rc=$?
}
run none
[ $rc -eq 0 ] || say "mode none: exit $rc: $(cat "$tmp/err")"
run crash
# a signal death, or a sanitizer's exit 1 (the guard hands the signal on to
# whatever handled it before: under ASan, ASan's report)
[ $rc -gt 128 ] || { [ $rc -eq 1 ] && grep -q Sanitizer "$tmp/err"; } || say "crash: exit $rc, expected a signal death"
grep -q "policy 'faulty' (plugin $tmp/faulty.so) crashed in its on_page_insert hook (signal 11" "$tmp/err" ||
	say "crash message: $(cat "$tmp/err")"
[ ! -e "$tmp/crash.json" ] || say "crash: a result was written"
start=$(date +%s)
MOBISIM_PLUGIN_TIMEOUT=0.5 run loop
[ $rc -eq 1 ] || say "loop: exit $rc, expected 1"
grep -q "policy 'faulty' (plugin .*) did not return from its classify_request hook within 500 ms of CPU" "$tmp/err" ||
	say "loop message: $(cat "$tmp/err")"
[ $(($(date +%s) - start)) -lt 60 ] || say "loop: took over a minute"
run neg_delay
[ $rc -eq 2 ] || say "neg_delay: exit $rc, expected 2"
grep -q "policy 'faulty' (plugin .*): pagecache_may_insert returned a delay of -5 ns" "$tmp/err" ||
	say "neg_delay message: $(cat "$tmp/err")"
run bad_bio
[ $rc -eq 2 ] || say "bad_bio: exit $rc, expected 2"
grep -q "classify_request changed a bio's sector" "$tmp/err" || say "bad_bio message: $(cat "$tmp/err")"
run init_silent
[ $rc -eq 2 ] || say "init_silent: exit $rc, expected 2"
grep -q "policy 'faulty': init failed (returned 1) without saying why" "$tmp/err" ||
	say "init_silent message: $(cat "$tmp/err")"
msg=$(MOBISIM_PLUGIN_TIMEOUT=soon "$bin" run "$scn" --plugin "$tmp/faulty.so" --quiet 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$msg" | grep -q "MOBISIM_PLUGIN_TIMEOUT 'soon'" || say "bad timeout: $rc $msg"

# a sweep over the modes: the good points finish, the bad ones are named
cat >"$tmp/sw.yaml" <<YAML
base: $scn
set:
  policies: faulty
axes:
  faulty.mode: [none, crash, neg_delay, loop]
metrics:
  launch_s: {path: "regions[name=launch].duration_ns", scale: 1e-9}
YAML
MOBISIM_PLUGIN_TIMEOUT=0.5 "$bin" sweep "$tmp/sw.yaml" --plugin "$tmp/faulty.so" -j 2 --quiet \
	--out "$tmp/swout" 2>"$tmp/swerr"
rc=$?
[ $rc -ne 0 ] || say "sweep with failed points exited 0"
n=$(ls "$tmp/swout/points/"*.json 2>/dev/null | wc -l)
[ "$n" = 1 ] || say "sweep: $n point results, expected 1 (mode none): $(ls "$tmp/swout/points")"
for m in crash neg_delay loop; do
	grep -q "faulty.mode=$m" "$tmp/swerr" || say "sweep does not name the $m point: $(cat "$tmp/swerr")"
done
grep -q "crashed in its on_page_insert hook" "$tmp/swerr" || say "sweep: no crash message"
[ $fail -eq 0 ] && echo ok
exit $fail
