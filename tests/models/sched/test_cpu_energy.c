/* CPU energy (models/sched/cpu_energy.c): busy time per cluster at its
 * active power and idle time at its idle power against hand sums; a
 * region's energy counts the slice running at its begin and end only for
 * the part inside it; the `cpu.energy` map's errors. */
#include <math.h>

#include "tests/models/stack/stack_harness.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) <= 1e-12 + 1e-9 * fabs(b))

#define C_YAML(cpu)                                                                       \
	"device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1,\n"           \
	"         energy: {idle_mw: 0}}\n"                                                 \
	"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"                          \
	"fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\n"                               \
	"journal: {enabled: false}\n"                                                      \
	"cpu: " cpu "\n"

#define TWO_CLUSTERS                                                                      \
	"{cores: 2, energy: {big_cores: 1, big_active_mw: 1000, big_idle_mw: 10,\n"         \
	"  little_active_mw: 200, little_idle_mw: 5}}"

static void test_busy_and_idle_per_cluster_are_the_hand_sum(void **state)
{
	(void)state;
	struct sh *h = sh_new(C_YAML(TWO_CLUSTERS));
	struct sh_script a = { 0 }, b = { 0 };
	sh_op(&a, STACK_OP_CPU, NULL, 0, 0, 100 * MS);
	sh_op(&b, STACK_OP_CPU, NULL, 0, 0, 100 * MS);
	sh_script_task(h, "a", 10001, 0, &a);
	sh_script_task(h, "b", 10002, 0, &b);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(a.exited_at, 100 * MS);
	assert_int_equal(b.exited_at, 100 * MS);
	struct cpu_model *c = &h->st->cpu;
	/* one task on each core (first free core: 0 = big, 1 = little) */
	int64_t sum = 0;
	for (int w = 0; w < CPU_BUSY_N; w++)
		for (int k = 0; k < CPU_NCLUSTERS; k++)
			sum += c->busy_by[w][k];
	assert_int_equal(sum, c->busy_ns);
	assert_int_equal(c->busy_by[CPU_BUSY_BG][0], 100 * MS);
	assert_int_equal(c->busy_by[CPU_BUSY_BG][1], 100 * MS);
	struct cpu_energy_total t;
	cpu_energy_at(c, 100 * MS, &t);
	NEAR(t.cluster_active_j[0], 1.0 * 0.1);
	NEAR(t.cluster_active_j[1], 0.2 * 0.1);
	NEAR(t.by_who_j[CPU_BUSY_BG], 0.12);
	NEAR(t.idle_j, 0.0);
	/* 100 ms more of nothing: each core idle at its cluster's idle power */
	cpu_energy_at(c, 200 * MS, &t);
	NEAR(t.active_j, 0.12);
	NEAR(t.cluster_idle_j[0], 10e-3 * 0.1);
	NEAR(t.cluster_idle_j[1], 5e-3 * 0.1);
	json_t *o = cpu_energy_json(c, 200 * MS);
	NEAR(json_real_value(json_object_get(o, "total_j")), 0.12 + 1.5e-3);
	json_t *big = json_array_get(json_object_get(o, "clusters"), 0);
	assert_string_equal(json_string_value(json_object_get(big, "name")), "big");
	assert_int_equal(json_integer_value(json_object_get(big, "cores")), 1);
	json_decref(o);
	sh_free(h);
}

/* A region from 3 ms to 13 ms of a sleeping task while another computes on
 * the other big core for 100 ms in 6 ms slices: the region's CPU energy is
 * 10 ms of one busy core, not the slices booked inside it (12 ms). */
static void test_region_energy_counts_running_slices_inside_it(void **state)
{
	(void)state;
	struct sh *h = sh_new(C_YAML("{cores: 2, energy: {big_cores: 2, big_active_mw: 1000}}"));
	struct sh_script a = { 0 }, b = { 0 };
	sh_op(&a, STACK_OP_CPU, NULL, 0, 0, 100 * MS);
	sh_op(&b, STACK_OP_SLEEP, NULL, 0, 0, 3 * MS);
	sh_op(&b, STACK_OP_BEGIN, NULL, 0, 0, 0);
	b.ops[b.n - 1].name = "launch";
	sh_op(&b, STACK_OP_SLEEP, NULL, 0, 0, 10 * MS);
	sh_op(&b, STACK_OP_END, NULL, 0, 0, 0);
	b.ops[b.n - 1].name = "launch";
	sh_script_task(h, "cruncher", 10001, 0, &a);
	sh_script_task(h, "app", 10050, 0, &b);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->sim->metrics.nregions, 1);
	const struct sim_region *r = &h->sim->metrics.regions[0];
	assert_string_equal(r->name, "launch");
	assert_string_equal(r->task, "app");
	assert_int_equal(r->start_ns, 3 * MS);
	assert_int_equal(r->duration_ns, 10 * MS);
	NEAR(r->cpu_j, 1.0 * 0.010);
	NEAR(r->device_j, 0.0); /* no I/O, idle_mw 0 */
	json_t *j = sim_metrics_region_energy_json(&h->sim->metrics);
	NEAR(json_real_value(json_object_get(json_array_get(j, 0), "total_j")), 0.010);
	json_decref(j);
	sh_free(h);
}

/* Builds the stack from yaml and checks every key was read: the first error. */
static int try_build(const char *yaml, struct sim_error *err)
{
	struct cfg_doc *doc = NULL;
	struct sim *sim = sim_new_bare(1);
	assert_int_equal(cfg_load_string(yaml, strlen(yaml), "bad.yaml", &doc, err), 0);
	sim->doc = doc;
	struct cfg_node *root = cfg_root(doc);
	assert_int_equal(device_create(sim, cfg_get(root, "device"), &sim->device, err), 0);
	assert_int_equal(blk_queue_create(sim, sim->device, NULL, "noop", NULL, &sim->blk, err), 0);
	int rc = stack_create(sim, root, &sim->stack, err);
	if (rc == 0)
		rc = cfg_check_unused(root, err);
	sim_destroy(sim);
	return rc;
}

static void test_cpu_energy_map_errors(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"{cores: 2, energy: 3}",
		"{cores: 2, energy: {big_active_mw: -5}}",
		"{cores: 2, energy: {big_activ_mw: 5}}",
	};
	static const char *const what[] = { "cpu.energy", "big_active_mw", "big_activ_mw" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char yaml[1024];
		snprintf(yaml, sizeof(yaml), C_YAML("%s"), bad[i]);
		struct sim_error err = { 0 };
		assert_int_equal(try_build(yaml, &err), SIM_E_INPUT);
		if (!strstr(err.msg, what[i]) || !strstr(err.msg, "bad.yaml:6:"))
			fail_msg("expected '%s' at bad.yaml:6 in: %s", what[i], err.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_and_idle_per_cluster_are_the_hand_sum),
		cmocka_unit_test(test_region_energy_counts_running_slices_inside_it),
		cmocka_unit_test(test_cpu_energy_map_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
