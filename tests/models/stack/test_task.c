/* Tasks and CPU: run queue and overlap of CPU with I/O, wait accounting
 * that adds up to op latency, regions, the fg_uid timeline, root never
 * background, default ioprio. */
#include "tests/models/stack/stack_harness.h"

#define T_YAML(extra)                                                               \
	"device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"     \
	"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"                    \
	"fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\n"                         \
	"journal: {enabled: false}\n" extra

static void test_task_run_queue_shares_one_core(void **state)
{
	(void)state;
	struct sh *h = sh_new(T_YAML("cpu: {cores: 1}\n"));
	struct sh_script a = { 0 }, b = { 0 };
	sh_op(&a, STACK_OP_CPU, NULL, 0, 0, 100 * MS);
	sh_op(&b, STACK_OP_CPU, NULL, 0, 0, 100 * MS);
	sh_script_task(h, "a", 10001, 0, &a);
	sh_script_task(h, "b", 10002, 0, &b);
	sh_run(h, SIM_TIME_MAX);
	int64_t last = a.exited_at > b.exited_at ? a.exited_at : b.exited_at;
	assert_int_equal(last, 200 * MS);
	/* fair sharing: both finish in the last slices */
	assert_true(a.exited_at >= 180 * MS && b.exited_at >= 180 * MS);
	/* runnable time not on the core is CPU wait: elapsed - 100 ms each */
	int64_t cpuw = sh_wait(h, SIM_CLASS_BG, SIM_WAIT_CPU);
	assert_int_equal(cpuw, a.exited_at + b.exited_at - 200 * MS);
	sh_free(h);

	h = sh_new(T_YAML("cpu: {cores: 2}\n"));
	struct sh_script c = { 0 }, d = { 0 };
	sh_op(&c, STACK_OP_CPU, NULL, 0, 0, 100 * MS);
	sh_op(&d, STACK_OP_CPU, NULL, 0, 0, 100 * MS);
	sh_script_task(h, "c", 10001, 0, &c);
	sh_script_task(h, "d", 10002, 0, &d);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(c.exited_at, 100 * MS);
	assert_int_equal(d.exited_at, 100 * MS);
	assert_int_equal(sh_wait(h, SIM_CLASS_BG, SIM_WAIT_CPU), 0);
	sh_free(h);
}

/* One core: a reader sleeping on I/O leaves the core to a computing task,
 * so the two overlap. */
static void test_task_cpu_overlaps_io(void **state)
{
	(void)state;
	struct sh *h = sh_new(T_YAML("cpu: {cores: 1}\nreadahead: {read_ahead_kib: 0}\n"));
	struct stack_file *f = sh_file(h, "data", 4 << 20);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 4096, .count = 500 };
	struct sh_script c = { 0 };
	sh_op(&c, STACK_OP_CPU, NULL, 0, 0, 50 * MS);
	sh_gen_task(h, "reader", 10001, 0, &g);
	sh_script_task(h, "cruncher", 10002, 0, &c);
	sh_run(h, SIM_TIME_MAX);
	/* 500 reads x 100 us = 50 ms of I/O, 50 ms of CPU: far less than 100 ms */
	assert_true(g.exited_at < 70 * MS);
	assert_true(c.exited_at < 70 * MS);
	sh_free(h);
}

/* The waits of a lone reader plus its run time are its op latency. */
static void test_task_waits_add_up_to_latency(void **state)
{
	(void)state;
	struct sh *h = sh_new(T_YAML("fg: 10050\n"));
	struct stack_file *f = sh_file(h, "data", 4 << 20);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_READ, f, 0, 1 << 20, 0);
	sh_script_task(h, "reader", 10050, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	struct sim_class_metrics *m = &h->sim->metrics.cls[SIM_CLASS_FG];
	assert_int_equal(m->op[SIM_OP_READ].count, 1);
	int64_t lat = m->op[SIM_OP_READ].lat.max;
	int64_t waits = 0;
	for (int w = 0; w < SIM_NWAIT; w++)
		waits += m->wait[w].total_ns;
	/* run time: copies plus every lock hold (lru_lock drains, the file's
	 * tree_lock inserts, zone->lock per-cpu refills) */
	int64_t run = 256 * h->st->pc.p.read_copy_ns + h->st->lock.l.hold_ns +
		      f->mapping.tree_lock.hold_ns + h->st->zone_lock.hold_ns;
	assert_true(m->wait[SIM_WAIT_READ_IO].total_ns > 0);
	assert_int_equal(lat, waits + run);
	assert_int_equal(s.exited_at, lat);
	sh_free(h);
}

static void test_task_regions_recorded(void **state)
{
	(void)state;
	struct sh *h = sh_new(T_YAML(""));
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_CPU, NULL, 0, 0, 1 * MS);
	sh_op(&s, STACK_OP_BEGIN, NULL, 0, 0, 0);
	s.ops[s.n - 1].name = "launch";
	sh_op(&s, STACK_OP_CPU, NULL, 0, 0, 5 * MS);
	sh_op(&s, STACK_OP_SLEEP, NULL, 0, 0, 2 * MS);
	sh_op(&s, STACK_OP_END, NULL, 0, 0, 0);
	s.ops[s.n - 1].name = "launch";
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->sim->metrics.nregions, 1);
	assert_string_equal(h->sim->metrics.regions[0].name, "launch");
	assert_string_equal(h->sim->metrics.regions[0].task, "app");
	assert_int_equal(h->sim->metrics.regions[0].start_ns, 1 * MS);
	assert_int_equal(h->sim->metrics.regions[0].duration_ns, 7 * MS);
	sh_free(h);
}

/* fg_uid timeline: the same task's ops count as fg, then as bg. */
static void test_task_fg_timeline_switches_class(void **state)
{
	(void)state;
	struct sh *h = sh_new(T_YAML("fg: [{at: 0s, uid: 10050}, {at: 50ms, uid: 10060}]\n"));
	struct stack_file *f = sh_file(h, "data", 1 << 20);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_READ, f, 0, 4096, 0);
	sh_op(&s, STACK_OP_SLEEP, NULL, 0, 0, 100 * MS);
	sh_op(&s, STACK_OP_READ, f, 512 << 10, 4096, 0);
	struct stack_task *t = sh_script_task(h, "app", 10050, 0, &s);
	assert_true(stack_task_is_fg(t));
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->sim->metrics.cls[SIM_CLASS_FG].op[SIM_OP_READ].count, 1);
	assert_int_equal(h->sim->metrics.cls[SIM_CLASS_BG].op[SIM_OP_READ].count, 1);
	assert_false(stack_task_is_fg(t));
	assert_true(stack_task_is_bg(t));
	assert_int_equal(stack_fg_uid(h->st), 10060);
	sh_free(h);
}

static void test_task_root_never_background(void **state)
{
	(void)state;
	struct sh *h = sh_new(T_YAML("fg: 10050\n"));
	struct sh_script s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
	struct stack_task *root = sh_script_task(h, "netd", 0, 0, &s1);
	struct stack_task *bg = sh_script_task(h, "bgapp", 10060, 0, &s2);
	struct stack_task *fg = sh_script_task(h, "fgapp", 10050, 0, &s3);
	assert_false(stack_task_is_bg(root));
	assert_false(stack_task_is_fg(root));
	assert_true(stack_task_is_bg(bg));
	assert_true(stack_task_is_fg(fg));
	stack_set_fg_uid(h->st, 0);
	assert_false(stack_task_is_fg(root)); /* root is never "the" foreground app either */
	/* no ioprio set: CFQ's view is BE at level (nice + 20) / 5 = 4 */
	assert_int_equal(stack_task_ioc(bg)->ioprio_class, IOPRIO_CLASS_BE);
	assert_int_equal(stack_task_ioc(bg)->ioprio_level, 4);
	sh_run(h, SIM_TIME_MAX);
	assert_true(stack_tasks_done(h->st));
	sh_free(h);
}

/* Bad stack sections are input errors naming the place, and a failure in
 * an early section leaves nothing half-built behind (ASan). */
static void test_task_bad_config_is_an_input_error(void **state)
{
	(void)state;
	static const char *bad[] = {
		"memory: {total_bytes: 1GiB, reserved_bytes: 2GiB}\n",
		"cpu: {cores: 0}\n",
		"fg: [{at: 2s, uid: 1}, {at: 1s, uid: 2}]\n",
		"writeback: {dirty_ratio: 300}\n",
		"journal: 5\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char yaml[512];
		snprintf(yaml, sizeof(yaml),
			 "device: {model: ideal, service: fixed, mean_us: 100}\n%s", bad[i]);
		struct sim_error err = { 0 };
		struct cfg_doc *doc = NULL;
		struct sim *sim = sim_new_bare(1);
		assert_int_equal(cfg_load_string(yaml, strlen(yaml), "bad.yaml", &doc, &err), 0);
		sim->doc = doc;
		struct cfg_node *root = cfg_root(doc);
		assert_int_equal(device_create(sim, cfg_get(root, "device"), &sim->device, &err), 0);
		assert_int_equal(blk_queue_create(sim, sim->device, NULL, "noop", NULL, &sim->blk, &err), 0);
		struct stack *st = NULL;
		assert_int_equal(stack_create(sim, root, &st, &err), SIM_E_INPUT);
		assert_null(st);
		assert_non_null(strstr(err.msg, "bad.yaml:"));
		sim_destroy(sim);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task_run_queue_shares_one_core),
		cmocka_unit_test(test_task_cpu_overlaps_io),
		cmocka_unit_test(test_task_waits_add_up_to_latency),
		cmocka_unit_test(test_task_regions_recorded),
		cmocka_unit_test(test_task_fg_timeline_switches_class),
		cmocka_unit_test(test_task_root_never_background),
		cmocka_unit_test(test_task_bad_config_is_an_input_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
