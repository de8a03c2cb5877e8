/* Policies (models/policies/policy.[ch] and the policies beside it): set parsing and
 * composition, and for each policy that its effect appears where its
 * mechanism applies and is absent where it cannot:
 *  - boost changes nothing without background writeback (byte for byte)
 *    and with it cuts the foreground's wait on async writeback;
 *  - expc puts background inserts to sleep only while a foreground task
 *    inserts pages, never delays root-uid tasks, and cuts the foreground's
 *    page-cache lock wait;
 *  - jprio moves the journal thread to RT and cuts the foreground's
 *    journal wait when sync readers keep CFQ's best-effort class busy.
 * Each scenario is small (well under a second of simulated time).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/policies/policy.h"
#include "models/stack/stack.h"
#include "sim/config.h"
#include "sim/metrics.h"
#include "sim/sim.h"

/* ---------------------------------------------------------- helpers */

#define COMMON                                                                                 \
	"seed: 1\n"                                                                            \
	"scheduler: cfq\n"                                                                     \
	"memory: {total_bytes: 1GiB, reserved_bytes: 512MiB, cached_bytes: 64MiB}\n"           \
	"writeback: {dirty_background_ratio: 5, dirty_ratio: 20, dirty_expire_ms: 2s,"         \
	" dirty_writeback_ms: 5s}\n"                                                           \
	"fg: 10050\n"

/* FG saves 16 MiB (rate-limited) and fsyncs while BG streams 256 MiB: the
 * flusher puts the FG file's pages under async writeback, fsync waits. */
static const char *const SC_WRITEBACK =
	"device: ufs20\n" COMMON
	"workload:\n  type: synthetic\n  tasks:\n"
	"    bg: {gen: writer, uid: 10060, start: 0s, bytes: 256MiB, chunk_bytes: 512KiB}\n"
	"    app: {gen: writer, uid: 10050, start: 200ms, bytes: 16MiB, chunk_bytes: 64KiB,"
	" rate: 40MB/s, fsync_end: true, region: save}\n";

/* FG alone: the same save, no background writer, fsync right after. */
static const char *const SC_FG_ONLY =
	"device: ufs20\n" COMMON
	"workload:\n  type: synthetic\n  tasks:\n"
	"    app: {gen: writer, uid: 10050, start: 10ms, bytes: 4MiB, chunk_bytes: 64KiB,"
	" fsync_end: true, region: save}\n"
	"    rd: {gen: reader, uid: 10050, start: 0s, file_bytes: 8MiB, chunk_bytes: 64KiB}\n";

/* FG reads a cold 16 MiB file while BG writes 64 MiB through the cache. */
static const char *const SC_READ_VS_WRITE =
	"device: ufs20\n" COMMON
	"pagecache_lock: {scope: global}\n"
	"workload:\n  type: synthetic\n  tasks:\n"
	"    bg: {gen: writer, uid: 10060, start: 0s, bytes: 64MiB, chunk_bytes: 512KiB}\n"
	"    app: {gen: reader, uid: 10050, start: 20ms, file_bytes: 16MiB, chunk_bytes: 128KiB,"
	" region: load}\n";

/* FG saves small files with fsync while four BG sequential readers hold
 * CFQ's sync best-effort queues (slices with idling) and a BG writer
 * rewrites an allocated file, on the QD1 eMMC preset. */
static const char *const SC_JOURNAL =
	"device: emmc45\n" COMMON
	"workload:\n  type: synthetic\n  tasks:\n"
	"    w: {gen: writer, uid: 10070, start: 0s, bytes: 32MiB, chunk_bytes: 512KiB,"
	" pattern: random, file_bytes: 256MiB}\n"
	"    r0: {gen: reader, uid: 10060, start: 0s, file_bytes: 48MiB, chunk_bytes: 128KiB}\n"
	"    r1: {gen: reader, uid: 10061, start: 0s, file_bytes: 48MiB, chunk_bytes: 128KiB}\n"
	"    r2: {gen: reader, uid: 10062, start: 0s, file_bytes: 48MiB, chunk_bytes: 128KiB}\n"
	"    r3: {gen: reader, uid: 10063, start: 0s, file_bytes: 48MiB, chunk_bytes: 128KiB}\n"
	"    app: {gen: burst, uid: 10050, start: 20ms, shots: 8, shot_bytes: 8KiB,"
	" chunk_bytes: 8KiB, cpu_between: 20ms, region: saves}\n";

static struct cfg_doc *load(const char *yaml, const char *const *sets)
{
	struct cfg_doc *doc = NULL;
	struct sim_error err = { 0 };
	int rc = cfg_load_string(yaml, strlen(yaml), "policy-test.yaml", &doc, &err);
	if (rc)
		fail_msg("%s", err.msg);
	for (size_t i = 0; sets && sets[i]; i++)
		if (cfg_set(doc, sets[i], &err))
			fail_msg("%s: %s", sets[i], err.msg);
	return doc;
}

/* Build (not run) a simulator; returns the error code, *out on success. */
static int build(const char *yaml, const char *const *sets, struct sim **out,
		 struct sim_error *err)
{
	struct sim_options opt = { .quiet = true };
	return sim_create(load(yaml, sets), NULL, &opt, out, err);
}

/* Run the scenario with `policies` set to spec (plus extra --set
 * assignments) and return its result document. */
static json_t *run_with(const char *yaml, const char *spec, const char *extra)
{
	char assign[256];
	snprintf(assign, sizeof(assign), "policies=%s", spec);
	const char *sets[] = { assign, extra, NULL };
	struct sim *s = NULL;
	struct sim_error err = { 0 };
	if (build(yaml, sets, &s, &err))
		fail_msg("build: %s", err.msg);
	if (sim_run(s, &err))
		fail_msg("run: %s", err.msg);
	json_t *res = sim_result_json(s);
	sim_destroy(s);
	return res;
}

static double wait_total_s(const json_t *res, const char *cause, const char *cls)
{
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(res, "waits"), i, w) {
		if (strcmp(json_string_value(json_object_get(w, "cause")), cause) == 0 &&
		    strcmp(json_string_value(json_object_get(w, "class")), cls) == 0)
			return (double)json_integer_value(json_object_get(w, "total_ns")) / 1e9;
	}
	return 0.0;
}

static json_int_t pstat(const json_t *res, const char *policy, const char *key)
{
	json_t *p = json_object_get(json_object_get(res, "policies"), policy);
	assert_non_null(p);
	json_t *v = json_object_get(p, key);
	assert_non_null(v);
	return json_integer_value(v);
}

/* The simulated behaviour of two runs is the same, byte for byte: every
 * section that the model fills (not the config echo, wall-clock engine
 * figures or the policies' own counters). */
static void assert_same_behaviour(const json_t *a, const json_t *b)
{
	static const char *const keys[] = { "classes", "regions", "device", "block", "pagecache",
					     "waits", "stack", "workload" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *x = json_dumps(json_object_get(a, keys[i]), JSON_SORT_KEYS | JSON_COMPACT);
		char *y = json_dumps(json_object_get(b, keys[i]), JSON_SORT_KEYS | JSON_COMPACT);
		if (!x || !y || strcmp(x, y) != 0)
			fail_msg("section '%s' differs", keys[i]);
		free(x);
		free(y);
	}
	assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "engine"), "events")),
			 json_integer_value(json_object_get(json_object_get(b, "engine"), "events")));
}

/* ------------------------------------------------------------ parsing */

static void test_policy_parse_list(void **state)
{
	(void)state;
	char buf[128];
	const char *names[4];
	size_t n;
	struct sim_error err;
	assert_int_equal(policy_parse_list(" expc , boost", buf, sizeof(buf), names, 4, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "expc");
	assert_string_equal(names[1], "boost");
	assert_int_equal(policy_parse_list("baseline", buf, sizeof(buf), names, 4, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(policy_parse_list("", buf, sizeof(buf), names, 4, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(policy_parse_list("expc,,boost", buf, sizeof(buf), names, 4, &n, &err),
			 SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "empty item"));
	assert_int_equal(policy_parse_list("baseline,expc", buf, sizeof(buf), names, 4, &n, &err),
			 SIM_E_INPUT);
	assert_int_equal(policy_parse_list("a,b,c,d,e", buf, sizeof(buf), names, 4, &n, &err),
			 SIM_E_INPUT);
}

/* A YAML list and a comma string name the same set, in order; baseline
 * and an empty list are no policy and install no hook. */
static void test_policy_set_forms(void **state)
{
	(void)state;
	static const char *const forms[] = { "policies=[boost, expc]", "policies=boost,expc" };
	for (int i = 0; i < 2; i++) {
		const char *sets[] = { forms[i], NULL };
		struct sim *s;
		struct sim_error err;
		assert_int_equal(build(SC_FG_ONLY, sets, &s, &err), 0);
		assert_int_equal(policy_set_count(s->policies), 2);
		assert_string_equal(policy_set_at(s->policies, 0)->ops->name, "boost");
		assert_string_equal(policy_set_at(s->policies, 1)->ops->name, "expc");
		struct stack_hooks *h = stack_hooks(s->stack);
		assert_non_null(h->pagecache_may_insert);
		assert_non_null(h->on_wait_writeback);
		assert_null(h->classify_bio); /* no policy classifies */
		sim_destroy(s);
	}
	static const char *const none[] = { "policies=baseline", "policies=[]", "policies=[baseline]" };
	for (int i = 0; i < 3; i++) {
		const char *sets[] = { none[i], NULL };
		struct sim *s;
		struct sim_error err;
		assert_int_equal(build(SC_FG_ONLY, sets, &s, &err), 0);
		assert_int_equal(policy_set_count(s->policies), 0);
		struct stack_hooks *h = stack_hooks(s->stack);
		assert_null(h->pagecache_may_insert);
		assert_null(h->on_page_insert);
		assert_null(h->on_wait_writeback);
		sim_destroy(s);
	}
	/* tunables from the policy's own section */
	const char *sets[] = { "policies=expc", "expc.window_us=250", NULL };
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(SC_FG_ONLY, sets, &s, &err), 0);
	json_t *j = policy_set_json(s->policies);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_object_get(j, "expc"), "params"), "window_us")),
			 250);
	json_decref(j);
	sim_destroy(s);
}

static void expect_error(const char *const *sets, const char *needle)
{
	struct sim *s = NULL;
	struct sim_error err = { 0 };
	assert_int_equal(build(SC_FG_ONLY, sets, &s, &err), SIM_E_INPUT);
	assert_null(s);
	if (!strstr(err.msg, needle))
		fail_msg("expected '%s' in: %s", needle, err.msg);
}

static void test_policy_set_errors(void **state)
{
	(void)state;
	expect_error((const char *const[]){ "policies=[expc, nope]", NULL }, "unknown policy 'nope'");
	expect_error((const char *const[]){ "policies=nope", NULL }, "unknown policy 'nope'");
	expect_error((const char *const[]){ "policies=[expc, expc]", NULL }, "listed twice");
	expect_error((const char *const[]){ "policies=[baseline, expc]", NULL }, "cannot be combined");
	expect_error((const char *const[]){ "policies=expc", "expc.window_us=-5", NULL }, "window_us");
	expect_error((const char *const[]){ "policies=expc", "expc.bogus=1", NULL }, "bogus");
	/* the section of a policy that is not in the set is still checked */
	expect_error((const char *const[]){ "policies=expc", "boost.fg_only=maybe", NULL }, "fg_only");
	expect_error((const char *const[]){ "policies=expc", "jprio.level=9", NULL }, "level");
	/* ... and accepted when valid */
	const char *ok[] = { "policies=expc", "jprio.level=0", NULL };
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(SC_FG_ONLY, ok, &s, &err), 0);
	sim_destroy(s);
}

/* ------------------------------------------------------- composition */

struct probe {
	int64_t delay;
	char tag;
};

static char probe_log[64];
static size_t probe_n;

static void probe_log_add(char c)
{
	if (probe_n + 1 < sizeof(probe_log)) {
		probe_log[probe_n++] = c;
		probe_log[probe_n] = '\0';
	}
}

static int probe_init(struct policy *p, struct sim *sim, struct sim_error *err)
{
	struct probe *pr = p->priv;
	(void)sim;
	(void)err;
	pr->tag = p->ops->name[6];
	return 0;
}

static int64_t probe_may_insert(struct policy *p, struct stack_task *t)
{
	struct probe *pr = p->priv;
	(void)t;
	probe_log_add(pr->tag);
	return pr->delay;
}

static void probe_insert(struct policy *p, struct stack_task *t)
{
	(void)t;
	probe_log_add((char)(((struct probe *)p->priv)->tag - 'a' + 'A'));
}

static const struct cfg_param probe_params[] = {
	{ "delay_ns", CFG_T_TIME, offsetof(struct probe, delay), "ns", "0", 0, 1e9, "test", "delay",
	  NULL },
	CFG_PARAM_END,
};

static const struct policy_ops probe_a = {
	.name = "probe-a", .params = probe_params, .priv_size = sizeof(struct probe),
	.init = probe_init, .pagecache_may_insert = probe_may_insert, .on_page_insert = probe_insert,
};
static const struct policy_ops probe_b = {
	.name = "probe-b", .params = probe_params, .priv_size = sizeof(struct probe),
	.init = probe_init, .pagecache_may_insert = probe_may_insert, .on_page_insert = probe_insert,
};

static const struct policy_ops dup_expc = { .name = "expc" };

/* Hooks are called in list order and the largest may_insert delay wins;
 * a name already registered is refused. */
static void test_policy_compose_order_and_max_delay(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(SC_FG_ONLY, NULL, &s, &err), 0);
	struct policy_registry *reg = policy_registry_new();
	assert_non_null(reg);
	assert_int_equal(policy_registry_add(reg, &probe_a), 0);
	assert_int_equal(policy_registry_add(reg, &probe_b), 0);
	assert_int_equal(policy_registry_add(reg, &probe_b), SIM_E_INPUT);
	assert_int_equal(policy_registry_add(reg, &dup_expc), SIM_E_INPUT); /* a built-in's name */

	struct cfg_doc *doc = load("policies: [probe-b, probe-a]\n"
				   "probe-a: {delay_ns: 300}\nprobe-b: {delay_ns: 200}\n",
				   NULL);
	policy_set_destroy(s->policies);
	s->policies = NULL;
	struct policy_set *ps;
	assert_int_equal(policy_set_create(s, cfg_root(doc), reg, &ps, &err), 0);
	struct stack_hooks *h = stack_hooks(s->stack);
	probe_n = 0;
	probe_log[0] = '\0';
	assert_int_equal(h->pagecache_may_insert(NULL, h->ctx), 300);
	h->on_page_insert(NULL, h->ctx);
	assert_string_equal(probe_log, "baBA");
	policy_set_destroy(ps);
	assert_null(h->pagecache_may_insert); /* unhooked */
	cfg_free(doc);
	sim_destroy(s);
}

/* ------------------------------------------------------------- boost */

static void test_policy_boost_inert_without_background_writeback(void **state)
{
	(void)state;
	json_t *a = run_with(SC_FG_ONLY, "baseline", NULL);
	json_t *b = run_with(SC_FG_ONLY, "boost", NULL);
	assert_same_behaviour(a, b);
	assert_int_equal(pstat(b, "boost", "hits"), 0);
	assert_int_equal(pstat(b, "boost", "misses"), 0);
	json_decref(a);
	json_decref(b);
}

/* The FG save's fsync needs a jbd2 commit, which in data=ordered mode
 * waits on the BG file's async writeback: that wait_on_page_writeback is
 * the commit thread's, so the thesis's boost (FG waiters only) counts it
 * and lifts nothing; `journal: true` (an extension) tries those pages. */
static void test_policy_boost_leaves_journal_wait(void **state)
{
	(void)state;
	json_t *b = run_with(SC_WRITEBACK, "boost", "journal.ordered_wait=whole-file");
	assert_true(pstat(b, "boost", "journal_waits") > 0);
	assert_true(pstat(b, "boost", "journal_waits_fg_behind") > 0);
	assert_int_equal(pstat(b, "boost", "journal_hits"), 0);
	assert_int_equal(pstat(b, "boost", "hits") + pstat(b, "boost", "misses"),
			 pstat(b, "boost", "waits_boosted_class"));
	assert_true(wait_total_s(b, "journal", "fg") > 0);
	json_t *e = run_with(SC_WRITEBACK, "boost", "boost.journal=true");
	/* every ordered-data wait behind an FG fsync was tried */
	assert_true(pstat(e, "boost", "waits_boosted_class") >=
		    pstat(e, "boost", "journal_waits_fg_behind"));
	assert_int_equal(pstat(e, "boost", "hits") + pstat(e, "boost", "misses"),
			 pstat(e, "boost", "waits_boosted_class"));
	json_decref(b);
	json_decref(e);
}

static void test_policy_boost_cuts_fg_writeback_wait(void **state)
{
	(void)state;
	/* the pre-3.2 chunk (MAX_WRITEBACK_PAGES) spreads the FG file over
	 * several flusher turns queued behind the BG's; with 3.2+'s
	 * writeback_chunk_size (4096 pages here) the whole file goes in one
	 * turn and most of it reaches the device before fsync walks to it */
	json_t *a = run_with(SC_WRITEBACK, "baseline", "writeback.chunk_pages=1024");
	json_t *b = run_with(SC_WRITEBACK, "boost", "writeback.chunk_pages=1024");
	double wa = wait_total_s(a, "writeback", "fg"), wb = wait_total_s(b, "writeback", "fg");
	assert_true(wa > 0.05);
	assert_true(wb < 0.8 * wa);
	assert_true(pstat(b, "boost", "hits") > 0);
	/* every FG wait was tried once: hits + misses */
	assert_int_equal(pstat(b, "boost", "hits") + pstat(b, "boost", "misses"),
			 pstat(b, "boost", "waits_boosted_class"));
	/* every miss has a reason; the block layer counted the same attempts */
	json_t *reasons = json_object_get(json_object_get(json_object_get(b, "policies"), "boost"),
					  "miss_reasons");
	json_int_t sum = 0;
	const char *key;
	json_t *val;
	json_object_foreach(reasons, key, val)
		sum += json_integer_value(val);
	assert_int_equal(sum, pstat(b, "boost", "misses"));
	json_t *bb = json_object_get(json_object_get(json_object_get(b, "block"), "counters"), "boost");
	assert_int_equal(json_integer_value(json_object_get(bb, "hits")), pstat(b, "boost", "hits"));
	assert_int_equal(json_integer_value(json_object_get(bb, "misses")), pstat(b, "boost", "misses"));
	/* the save (the FG region) finishes sooner */
	double ra = (double)json_integer_value(json_object_get(
		json_array_get(json_object_get(a, "regions"), 0), "duration_ns"));
	double rb = (double)json_integer_value(json_object_get(
		json_array_get(json_object_get(b, "regions"), 0), "duration_ns"));
	assert_true(rb < ra);
	json_decref(a);
	json_decref(b);
}

/* -------------------------------------------------------------- expc */

static void test_policy_expc_sleeps_only_while_fg_inserts(void **state)
{
	(void)state;
	/* no FG task inserting pages: no sleep, same run as the baseline */
	json_t *a = run_with(SC_READ_VS_WRITE, "baseline", "workload.tasks.app.enabled=false");
	json_t *b = run_with(SC_READ_VS_WRITE, "expc", "workload.tasks.app.enabled=false");
	assert_same_behaviour(a, b);
	assert_int_equal(pstat(b, "expc", "bg_sleeps"), 0);
	assert_true(pstat(b, "expc", "bg_checks") > 0);
	json_decref(a);
	json_decref(b);
	/* with the FG reader: BG sleeps, charged as wait cause policy */
	b = run_with(SC_READ_VS_WRITE, "expc", NULL);
	json_int_t sleeps = pstat(b, "expc", "bg_sleeps");
	assert_true(sleeps > 0);
	assert_int_equal(pstat(b, "expc", "bg_delay_ns"), sleeps * 100000);
	assert_true(wait_total_s(b, "policy", "bg") > 0);
	assert_true(wait_total_s(b, "policy", "fg") == 0);
	json_decref(b);
}

static void test_policy_expc_never_delays_root(void **state)
{
	(void)state;
	json_t *a = run_with(SC_READ_VS_WRITE, "baseline", "workload.tasks.bg.uid=0");
	json_t *b = run_with(SC_READ_VS_WRITE, "expc", "workload.tasks.bg.uid=0");
	assert_same_behaviour(a, b);
	assert_int_equal(pstat(b, "expc", "bg_sleeps"), 0);
	assert_true(pstat(b, "expc", "root_unchecked") > 0);
	json_decref(a);
	json_decref(b);
}

static void test_policy_expc_cuts_fg_lock_wait(void **state)
{
	(void)state;
	json_t *a = run_with(SC_READ_VS_WRITE, "baseline", NULL);
	json_t *b = run_with(SC_READ_VS_WRITE, "expc", NULL);
	double la = wait_total_s(a, "pagecache_lock", "fg");
	double lb = wait_total_s(b, "pagecache_lock", "fg");
	assert_true(la > 0);
	assert_true(lb < 0.9 * la);
	json_decref(a);
	json_decref(b);
}

/* ------------------------------------------------------------- jprio */

static void test_policy_jprio_cuts_fg_journal_wait(void **state)
{
	(void)state;
	json_t *a = run_with(SC_JOURNAL, "baseline", NULL);
	json_t *b = run_with(SC_JOURNAL, "jprio", NULL);
	double ja = wait_total_s(a, "journal", "fg"), jb = wait_total_s(b, "journal", "fg");
	assert_true(ja > 0.1);
	assert_true(jb < 0.6 * ja);
	assert_int_equal(pstat(b, "jprio", "ioprio_class"), 1);
	assert_int_equal(pstat(b, "jprio", "ioprio_level"), 4);
	/* the stack reports the jbd2 thread in the RT class */
	size_t i;
	json_t *t;
	bool seen = false;
	json_array_foreach(json_object_get(json_object_get(b, "stack"), "tasks"), i, t) {
		if (strcmp(json_string_value(json_object_get(t, "kind")), "jbd2") == 0) {
			assert_int_equal(json_integer_value(json_object_get(t, "ioprio_class")), 1);
			seen = true;
		}
	}
	assert_true(seen);
	json_decref(a);
	json_decref(b);
}

static void test_policy_jprio_inert_without_journal(void **state)
{
	(void)state;
	json_t *b = run_with(SC_FG_ONLY, "jprio", "journal.enabled=false");
	json_t *p = json_object_get(json_object_get(b, "policies"), "jprio");
	assert_false(json_is_true(json_object_get(p, "applied")));
	json_decref(b);
}

/* ------------------------------------------------------------ plugins */

static void test_policy_plugin_errors(void **state)
{
	(void)state;
	struct policy_registry *reg = policy_registry_new();
	struct sim_error err;
	assert_int_equal(policy_registry_load_plugin(reg, "/nonexistent/x.so", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "/nonexistent/x.so"));
	assert_non_null(strstr(err.msg, "no such file"));
	/* a file that is not a shared object */
	assert_int_equal(policy_registry_load_plugin(reg, "CMakeLists.txt", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "cannot load"));
	policy_registry_free(reg);
	/* through the scenario path: --plugin given to sim_create */
	const char *plugins[] = { "/nonexistent/x.so", NULL };
	struct sim_options opt = { .quiet = true, .plugins = plugins };
	struct sim *s = NULL;
	assert_int_equal(sim_create(load(SC_FG_ONLY, NULL), NULL, &opt, &s, &err), SIM_E_INPUT);
	assert_null(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_parse_list),
		cmocka_unit_test(test_policy_set_forms),
		cmocka_unit_test(test_policy_set_errors),
		cmocka_unit_test(test_policy_compose_order_and_max_delay),
		cmocka_unit_test(test_policy_boost_inert_without_background_writeback),
		cmocka_unit_test(test_policy_boost_cuts_fg_writeback_wait),
		cmocka_unit_test(test_policy_boost_leaves_journal_wait),
		cmocka_unit_test(test_policy_expc_sleeps_only_while_fg_inserts),
		cmocka_unit_test(test_policy_expc_never_delays_root),
		cmocka_unit_test(test_policy_expc_cuts_fg_lock_wait),
		cmocka_unit_test(test_policy_jprio_cuts_fg_journal_wait),
		cmocka_unit_test(test_policy_jprio_inert_without_journal),
		cmocka_unit_test(test_policy_plugin_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
