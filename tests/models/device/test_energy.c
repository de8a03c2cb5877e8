/* Device energy (models/device/energy.c) through the device core: a known
 * request sequence on the ideal model (fixed 100 us service) against the
 * hand sum of its per-request, idle and sleep terms; idle power over an
 * idle stretch; the sleep state after the timeout and its wake-up; the
 * `energy` map's errors with their position. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/device/device.h"
#include "sim/sim.h"

struct harness {
	struct sim *sim;
	struct cfg_doc *doc;
	struct device *dev;
};

static void on_done(void *upper, struct io_request *rq)
{
	(void)upper;
	(void)rq;
}

static int build(struct harness *h, const char *yaml, struct sim_error *err)
{
	memset(h, 0, sizeof(*h));
	h->sim = sim_new_bare(1);
	assert_non_null(h->sim);
	int rc = cfg_load_string(yaml, strlen(yaml), "dev.yaml", &h->doc, err);
	if (rc)
		return rc;
	rc = device_create(h->sim, cfg_root(h->doc), &h->dev, err);
	if (rc)
		return rc;
	rc = cfg_check_unused(cfg_root(h->doc), err);
	if (rc)
		return rc;
	h->dev->on_complete = on_done;
	h->dev->upper = h;
	return 0;
}

static void teardown_h(struct harness *h)
{
	device_destroy(h->dev);
	cfg_free(h->doc);
	sim_destroy(h->sim);
}

static void init_rq(struct io_request *rq, uint64_t sector, uint32_t sectors, uint32_t flags)
{
	memset(rq, 0, sizeof(*rq));
	list_init(&rq->queuelist);
	list_init(&rq->dev_node);
	list_init(&rq->hash);
	rq->sector = sector;
	rq->nr_sectors = sectors;
	rq->flags = flags;
}

struct later {
	struct sim_event ev;
	struct harness *h;
	struct io_request *rq;
};

static void later_submit(struct sim *sim, struct sim_event *e)
{
	(void)sim;
	struct later *l = container_of(e, struct later, ev);
	device_submit(l->h->dev, l->rq);
}

static double total_at(const struct harness *h, int64_t now, struct device_energy_total *t)
{
	device_energy_at(&h->dev->energy, now, t);
	return device_energy_total_j(t);
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) <= 1e-12 + 1e-9 * fabs(b))

/* The parameters of every case: round numbers, so the hand sums are plain. */
#define DEV "model: ideal\nservice: fixed\nmean_us: 100\nservers: 1\n"
#define EN(sleep_after)                                                                    \
	"energy:\n  read_nj_per_kib: 1000\n  write_nj_per_kib: 2000\n  cmd_read_uj: 10\n"     \
	"  cmd_write_uj: 20\n  idle_mw: 5\n  sleep_mw: 1\n  sleep_after_ms: " sleep_after "\n" \
	"  wake_uj: 50\n"

static void test_energy_of_a_request_sequence_is_the_hand_sum(void **state)
{
	(void)state;
	struct harness h;
	struct sim_error err = { 0 };
	if (build(&h, DEV EN("0"), &err))
		fail_msg("%s", err.msg);
	/* a 4 KiB FG read and an 8 KiB BG write at 0 (back to back, 200 us busy),
	 * a 128 KiB read at 1 ms, and a flush-like empty write at 2 ms */
	struct io_request r[4];
	init_rq(&r[0], 0, 8, REQ_FG);
	init_rq(&r[1], 8, 16, REQ_WRITE);
	init_rq(&r[2], 100, 256, 0);
	init_rq(&r[3], 0, 0, REQ_WRITE | REQ_FLUSH);
	device_submit(h.dev, &r[0]);
	device_submit(h.dev, &r[1]);
	struct later l2 = { .h = &h, .rq = &r[2] }, l3 = { .h = &h, .rq = &r[3] };
	sim_event_init(&l2.ev, later_submit);
	sim_event_init(&l3.ev, later_submit);
	sim_at(h.sim, &l2.ev, 1000000);
	sim_at(h.sim, &l3.ev, 2000000);
	sim_engine_run(&h.sim->engine, SIM_TIME_MAX);
	assert_int_equal(r[3].t_complete, 2100000);

	double fg = 10e-6 + 4 * 1000e-9;            /* 4 KiB read */
	double bg = (20e-6 + 8 * 2000e-9)           /* 8 KiB write */
		    + (10e-6 + 128 * 1000e-9)       /* 128 KiB read */
		    + 20e-6;                        /* empty write: its command */
	/* idle: 0.8 ms (200 us .. 1 ms), 0.9 ms (1.1 .. 2 ms), 0.9 ms after, at 5 mW */
	double idle = 5e-3 * (0.8e-3 + 0.9e-3 + 0.9e-3);
	struct device_energy_total t;
	double all = total_at(&h, 3000000, &t);
	NEAR(t.by_class_j[SIM_CLASS_FG], fg);
	NEAR(t.by_class_j[SIM_CLASS_BG], bg);
	NEAR(t.active_j, fg + bg);
	NEAR(t.idle_j, idle);
	assert_int_equal(t.idle_ns, 2600000);
	assert_int_equal(t.sleep_ns, 0);
	assert_int_equal(t.sleeps, 0);
	NEAR(all, fg + bg + idle);
	NEAR(device_energy_request_j(&h.dev->energy.p, true, 8192), 20e-6 + 8 * 2000e-9);

	/* the result's piece says the same and echoes the parameters */
	json_t *o = device_energy_json(&h.dev->energy, 3000000);
	NEAR(json_real_value(json_object_get(o, "total_j")), all);
	NEAR(json_real_value(json_object_get(o, "active_j")), fg + bg);
	json_t *p = json_object_get(o, "params");
	NEAR(json_real_value(json_object_get(p, "idle_mw")), 5.0);
	json_decref(o);
	teardown_h(&h);
}

static void test_idle_power_integrates_over_idle_time(void **state)
{
	(void)state;
	struct harness h;
	struct sim_error err = { 0 };
	if (build(&h, DEV EN("0"), &err))
		fail_msg("%s", err.msg);
	struct device_energy_total t;
	/* never busy: idle from t = 0; 5 mW x 2 s = 10 mJ, linear in time */
	NEAR(total_at(&h, 2000000000, &t), 10e-3);
	NEAR(total_at(&h, 500000000, &t), 2.5e-3);
	assert_int_equal(t.idle_ns, 500000000);
	NEAR(total_at(&h, 0, &t), 0.0);
	teardown_h(&h);

	/* idle_mw: 0 draws nothing however long */
	if (build(&h, DEV "energy:\n  idle_mw: 0\n  sleep_after_ms: 0\n", &err))
		fail_msg("%s", err.msg);
	NEAR(total_at(&h, 5000000000, &t), 0.0);
	teardown_h(&h);
}

static void test_sleep_after_the_idle_timeout(void **state)
{
	(void)state;
	struct harness h;
	struct sim_error err = { 0 };
	if (build(&h, DEV EN("100"), &err))
		fail_msg("%s", err.msg);
	struct device_energy_total t;
	/* an open idle stretch: awake 100 ms at 5 mW, then asleep at 1 mW */
	total_at(&h, 50000000, &t);
	assert_int_equal(t.sleep_ns, 0);
	assert_int_equal(t.sleeps, 0);
	NEAR(t.idle_j + t.sleep_j, 5e-3 * 0.05);
	total_at(&h, 1000000000, &t);
	assert_int_equal(t.idle_ns, 100000000);
	assert_int_equal(t.sleep_ns, 900000000);
	assert_int_equal(t.sleeps, 1);
	NEAR(t.idle_j, 5e-3 * 0.1);
	NEAR(t.sleep_j, 1e-3 * 0.9);
	NEAR(t.wake_j, 0.0); /* not woken yet */

	/* a read at 1 s wakes it (wake_uj once); a second read 50 ms after the
	 * first completes finds it awake (shorter than the timeout) */
	struct io_request a, b;
	init_rq(&a, 0, 8, 0);
	init_rq(&b, 64, 8, 0);
	struct later la = { .h = &h, .rq = &a }, lb = { .h = &h, .rq = &b };
	sim_event_init(&la.ev, later_submit);
	sim_event_init(&lb.ev, later_submit);
	sim_at(h.sim, &la.ev, 1000000000);
	sim_at(h.sim, &lb.ev, 1000100000 + 50000000);
	sim_engine_run(&h.sim->engine, SIM_TIME_MAX);
	double all = total_at(&h, 1050200000, &t);
	assert_int_equal(t.sleeps, 1);
	NEAR(t.wake_j, 50e-6);
	assert_int_equal(t.sleep_ns, 900000000);
	assert_int_equal(t.idle_ns, 100000000 + 50000000);
	double hand = 5e-3 * 0.15 + 1e-3 * 0.9 + 50e-6 + 2 * (10e-6 + 4 * 1000e-9);
	NEAR(all, hand);
	NEAR(device_energy_idle_period_j(&h.dev->energy.p, 1000000000), 5e-3 * 0.1 + 1e-3 * 0.9);
	NEAR(device_energy_idle_period_j(&h.dev->energy.p, 50000000), 5e-3 * 0.05);
	teardown_h(&h);
}

static void expect_error(const char *yaml, const char *where, const char *what)
{
	struct harness h;
	struct sim_error err = { 0 };
	int rc = build(&h, yaml, &err);
	assert_int_equal(rc, SIM_E_INPUT);
	if (!strstr(err.msg, where) || !strstr(err.msg, what))
		fail_msg("expected '%s' and '%s' in: %s", where, what, err.msg);
	device_destroy(h.dev);
	cfg_free(h.doc);
	sim_destroy(h.sim);
}

static void test_energy_map_errors_name_position(void **state)
{
	(void)state;
	expect_error(DEV "energy: 5\n", "dev.yaml:5:9", "energy");
	expect_error(DEV "energy:\n  idle_mw: -1\n", "dev.yaml:6:", "idle_mw");
	expect_error(DEV "energy:\n  idle_mv: 1\n", "dev.yaml:6:", "idle_mv");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_energy_of_a_request_sequence_is_the_hand_sum),
		cmocka_unit_test(test_idle_power_integrates_over_idle_time),
		cmocka_unit_test(test_sleep_after_the_idle_timeout),
		cmocka_unit_test(test_energy_map_errors_name_position),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
