/* Tests for traces/workloads/synthetic.c: a launch spends exactly its
 * cpu_total (spread over the I/Os it actually issues); `start:
 * {uniform: [LO, HI]}` draws a start in range, the same for a seed and
 * different across seeds, without changing what the task does; the
 * workload's `offset` moves every start; a bad distribution is refused
 * naming the node. The device is the ideal fixed-service model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/stack/stack.h"
#include "sim/config.h"
#include "sim/sim.h"
#include "sim/workload.h"

#define MS 1000000LL

/* Build (and run when run is true) a scenario whose workload tasks are
 * given as YAML text indented under `tasks:`. Returns 0 or the error code. */
static int build(struct sim **out, uint64_t seed, const char *wl_extra, const char *tasks, bool run,
		 struct sim_error *err)
{
	char yaml[4096];
	snprintf(yaml, sizeof(yaml),
		 "device: {model: ideal, service: fixed, mean_us: 100, servers: 1}\n"
		 "scheduler: noop\n"
		 "workload:\n"
		 "  type: synthetic\n"
		 "%s"
		 "  tasks:\n"
		 "%s",
		 wl_extra ? wl_extra : "", tasks);
	struct cfg_doc *doc;
	if (cfg_load_string(yaml, strlen(yaml), "test.yaml", &doc, err))
		return err->code;
	struct sim_options opt = { .seed = seed, .seed_given = true, .quiet = true };
	int rc = sim_create(doc, "test.yaml", &opt, out, err);
	if (rc)
		return rc;
	if (run)
		return sim_run(*out, err);
	return 0;
}

static json_t *task_stats(struct sim *s, const char *name)
{
	json_t *o = json_object();
	s->workload->ops->stats_json(s, s->workload->state, o);
	json_t *tasks = json_object_get(o, "tasks");
	for (size_t i = 0; i < json_array_size(tasks); i++) {
		json_t *t = json_array_get(tasks, i);
		if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0) {
			json_incref(t);
			json_decref(o);
			return t;
		}
	}
	json_decref(o);
	fail_msg("task %s not in the stats", name);
	return NULL;
}

static int64_t start_of(struct sim *s, const char *name)
{
	json_t *t = task_stats(s, name);
	int64_t v = (int64_t)json_integer_value(json_object_get(t, "start_ns"));
	json_decref(t);
	return v;
}

static int64_t cpu_busy_ns(struct sim *s)
{
	json_t *o = stack_stats_json(s->stack);
	int64_t v = (int64_t)json_integer_value(json_object_get(json_object_get(o, "cpu"), "busy_ns"));
	json_decref(o);
	return v;
}

/* The old launch spread cpu_total over the I/O count expected from the
 * means (755 ops here) and so spent 0.6 of it or more; it must spend all. */
static void test_launch_spends_exactly_cpu_total(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, NULL,
			       "    app: {gen: launch, bytes: 4MiB, files: 8, cpu_total: 500ms}\n",
			       true, &err), 0);
	int64_t busy = cpu_busy_ns(s);
	/* the CPU ops sum to cpu_total less < 1 ns per op; the rest is the
	 * stack's own charges (context switches), well under 1 % */
	assert_true(busy >= 499 * MS);
	assert_true(busy <= 505 * MS);
	sim_destroy(s);
}

static void test_random_start_in_range_and_deterministic(void **state)
{
	(void)state;
	const char *tasks = "    bg: {gen: writer, bytes: 1MiB}\n"
			    "    app: {gen: reader, file_bytes: 64KiB, start: {uniform: [2s, 30s]}}\n";
	int64_t first = -1;
	bool differs = false;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct sim *a, *b;
		struct sim_error err;
		assert_int_equal(build(&a, seed, NULL, tasks, false, &err), 0);
		assert_int_equal(build(&b, seed, NULL, tasks, false, &err), 0);
		int64_t sa = start_of(a, "app"), sb = start_of(b, "app");
		assert_int_equal(sa, sb);
		assert_true(sa >= 2000 * MS && sa <= 30000 * MS);
		assert_int_equal(start_of(a, "bg"), 0);
		if (first < 0)
			first = sa;
		else if (sa != first)
			differs = true;
		sim_destroy(a);
		sim_destroy(b);
	}
	assert_true(differs);
}

/* The start's stream is its own: a random phase does not change the
 * launch's working set, so its op count equals that of a fixed start. */
static void test_random_start_keeps_the_task_stream(void **state)
{
	(void)state;
	struct sim *a, *b;
	struct sim_error err;
	assert_int_equal(build(&a, 3, NULL,
			       "    app: {gen: launch, bytes: 2MiB, files: 4, start: 1s}\n", true, &err),
			 0);
	assert_int_equal(build(&b, 3, NULL,
			       "    app: {gen: launch, bytes: 2MiB, files: 4, "
			       "start: {uniform: [1s, 9s]}}\n",
			       true, &err),
			 0);
	json_t *ta = task_stats(a, "app"), *tb = task_stats(b, "app");
	assert_int_equal(json_integer_value(json_object_get(ta, "ops")),
			 json_integer_value(json_object_get(tb, "ops")));
	assert_true(start_of(b, "app") > 1000 * MS);
	json_decref(ta);
	json_decref(tb);
	sim_destroy(a);
	sim_destroy(b);
}

static void test_offset_moves_every_start(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, "  offset: 3s\n",
			       "    a: {gen: reader, file_bytes: 64KiB, start: 1s}\n"
			       "    b: {gen: reader, file_bytes: 64KiB}\n",
			       false, &err),
			 0);
	assert_int_equal(start_of(s, "a"), 4000 * MS);
	assert_int_equal(start_of(s, "b"), 3000 * MS);
	sim_destroy(s);
}

static void test_bad_start_distribution_is_refused(void **state)
{
	(void)state;
	const char *bad[] = {
		"    a: {gen: reader, start: {normal: [1s, 2s]}}\n",
		"    a: {gen: reader, start: {uniform: [3s, 1s]}}\n",
		"    a: {gen: reader, start: {uniform: [1s]}}\n",
		"    a: {gen: reader, start: {uniform: [1s, xs]}}\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sim *s = NULL;
		struct sim_error err;
		assert_int_equal(build(&s, 1, NULL, bad[i], false, &err), SIM_E_INPUT);
		assert_non_null(strstr(err.msg, "test.yaml:"));
		assert_non_null(strstr(err.msg, "start"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_spends_exactly_cpu_total),
		cmocka_unit_test(test_random_start_in_range_and_deterministic),
		cmocka_unit_test(test_random_start_keeps_the_task_stream),
		cmocka_unit_test(test_offset_moves_every_start),
		cmocka_unit_test(test_bad_start_distribution_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
