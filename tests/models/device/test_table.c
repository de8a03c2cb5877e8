/* Table device (models/device/table.c): exact at its points, monotone between
 * them (Steffen), bandwidth-linear outside, per-queue-depth curves with
 * queue_depth servers, validation errors with positions, and the issue's
 * acceptance test: a table built from a flash preset's own QD1 curve
 * reproduces that preset's QD1 latencies within 2 %. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/device/device.h"
#include "models/device/device_curve.h"
#include "sim/sim.h"

struct tx {
	struct sim *sim;
	struct cfg_doc *doc;
	struct device *dev;
	uint32_t done;
};

static void tx_done(void *upper, struct io_request *rq)
{
	(void)rq;
	((struct tx *)upper)->done++;
}

static int tx_build(struct tx *t, const char *yaml, struct sim_error *err)
{
	memset(t, 0, sizeof(*t));
	t->sim = sim_new_bare(1);
	assert_non_null(t->sim);
	int rc = cfg_load_string(yaml, strlen(yaml), "table.yaml", &t->doc, err);
	if (!rc)
		rc = device_create(t->sim, cfg_root(t->doc), &t->dev, err);
	if (!rc)
		rc = cfg_check_unused(cfg_root(t->doc), err);
	if (!rc) {
		t->dev->on_complete = tx_done;
		t->dev->upper = t;
	}
	return rc;
}

static void tx_free(struct tx *t)
{
	device_destroy(t->dev);
	cfg_free(t->doc);
	sim_destroy(t->sim);
}

static const char *const simple =
	"model: table\n"
	"read: [[4, 200], [16, 260], [128, 700], [512, 2300]]\n"
	"write: [[4, 400], [64, 900], [256, 2500]]\n";

static int64_t lat(struct tx *t, bool w, uint64_t bytes)
{
	return t->dev->ops->idle_latency_ns(t->dev, w, bytes);
}

static void test_table_exact_at_points_and_monotone_between(void **state)
{
	(void)state;
	struct tx t;
	struct sim_error err = { 0 };
	if (tx_build(&t, simple, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.dev->queue_depth, 1);
	assert_int_equal(lat(&t, false, 4096), 200000);
	assert_int_equal(lat(&t, false, 16384), 260000);
	assert_int_equal(lat(&t, false, 128 * 1024), 700000);
	assert_int_equal(lat(&t, true, 64 * 1024), 900000);
	for (int w = 0; w < 2; w++) {
		int64_t prev = 0;
		for (uint64_t b = 512; b <= (4u << 20); b += 512) {
			int64_t l = lat(&t, w, b);
			if (l < prev)
				fail_msg("%s latency falls at %llu B", w ? "write" : "read",
					 (unsigned long long)b);
			prev = l;
		}
	}
	/* beyond the last point: the last segment's marginal bandwidth,
	 * (2300 - 700) us per 384 KiB */
	double per_kib = 1600.0 / 384.0;
	assert_true(llabs(lat(&t, false, 1024 * 1024) - llround((2300 + 512 * per_kib) * 1000)) <= 1);
	/* below the first: the first segment's slope (60 us / 12 KiB), so
	 * 2 KiB costs 200 - 10 us */
	assert_true(llabs(lat(&t, false, 2048) - 190000) <= 1);
	/* ... never below constant bandwidth */
	assert_true(lat(&t, false, 512) >= 200000 / 8);
	tx_free(&t);
}

static void test_table_per_queue_depth_curves(void **state)
{
	(void)state;
	struct tx t;
	struct sim_error err = { 0 };
	if (tx_build(&t,
		     "model: table\n"
		     "qd:\n"
		     "  1: {read: [[4, 100], [64, 400]], write: [[4, 150], [64, 500]]}\n"
		     "  8: {read: [[4, 300], [64, 1600]], write: [[4, 450], [64, 2000]]}\n",
		     &err))
		fail_msg("%s", err.msg);
	assert_int_equal(t.dev->queue_depth, 8);
	/* one alone: the QD1 curve */
	struct io_request rq[8];
	memset(rq, 0, sizeof(rq));
	rq[0].nr_sectors = 8;
	device_submit(t.dev, &rq[0]);
	sim_engine_run(&t.sim->engine, SIM_TIME_MAX);
	assert_int_equal(rq[0].t_complete - rq[0].t_dispatch, 100000);
	/* eight at once: all eight served in parallel; the 8th sees depth 8 */
	int64_t start = sim_now(t.sim);
	for (int i = 0; i < 8; i++) {
		memset(&rq[i], 0, sizeof(rq[i]));
		rq[i].nr_sectors = 8;
		device_submit(t.dev, &rq[i]);
	}
	assert_false(device_can_accept(t.dev, NULL));
	sim_engine_run(&t.sim->engine, SIM_TIME_MAX);
	assert_int_equal(t.done, 9);
	assert_int_equal(rq[0].t_complete - start, 100000);
	assert_int_equal(rq[7].t_complete - start, 300000);
	tx_free(&t);
}

static void expect_error(const char *yaml, const char *where, const char *what)
{
	struct tx t;
	struct sim_error err = { 0 };
	int rc = tx_build(&t, yaml, &err);
	assert_int_equal(rc, SIM_E_INPUT);
	if (!strstr(err.msg, where) || !strstr(err.msg, what))
		fail_msg("expected '%s' and '%s' in: %s", where, what, err.msg);
	tx_free(&t);
}

static void test_table_validation_errors(void **state)
{
	(void)state;
	expect_error("model: table\nread: [[4, 100], [4, 200]]\nwrite: [[4, 1], [8, 2]]\n",
		     "table.yaml:2:19", "increase strictly");
	expect_error("model: table\nread: [[4, 100], [8, 200]]\nwrite: [[4, -1], [8, 2]]\n",
		     "table.yaml:3:13", "negative");
	expect_error("model: table\nread: [[4, 100]]\nwrite: [[4, 1], [8, 2]]\n", "table.yaml:2:7",
		     "at least 2 points");
	expect_error("model: table\nread: [[4, 100], [8, 200]]\n", "table.yaml:1:1", "write");
	expect_error("model: table\nread: [[4, 100], [8]]\nwrite: [[4, 1], [8, 2]]\n",
		     "table.yaml:2:18", "pair");
	expect_error("model: table\nread: [[4, fast], [8, 200]]\nwrite: [[4, 1], [8, 2]]\n",
		     "table.yaml:2:12", "latency_us");
	expect_error("model: table\nqd:\n  8: {read: [[4, 1], [8, 2]], write: [[4, 1], [8, 2]]}\n",
		     "table.yaml:3:", "queue depth 1");
	expect_error("model: table\nqd:\n  x: {read: [[4, 1], [8, 2]], write: [[4, 1], [8, 2]]}\n",
		     "table.yaml:3:", "integer");
	expect_error("model: table\nread: [[4, 1], [8, 2]]\nwrite: [[4, 1], [8, 2]]\nwirte: 1\n",
		     "table.yaml:4:", "wirte");
}

/* The acceptance test of measure a preset's QD1 curve (random
 * offsets, as `mobisim device curve` does), write it as a table device,
 * measure the table the same way: every point within 2 %. */
static void test_table_from_preset_curve_reproduces_qd1(void **state)
{
	(void)state;
	static const char *const presets[] = { "emmc45", "ufs21", NULL };
	for (const char *const *p = presets; *p; p++) {
		char path[4096];
		const char *src = getenv("MOBISIM_SRC");
		snprintf(path, sizeof(path), "%s/configs/devices/%s.yaml", src ? src : ".", *p);
		struct sim_error err = { 0 };
		struct cfg_doc *flash;
		if (cfg_load_file(path, &flash, &err))
			fail_msg("%s", err.msg);
		double ref[2][9];
		char yaml[4096];
		size_t off = (size_t)snprintf(yaml, sizeof(yaml), "model: table\n");
		for (int w = 0; w < 2; w++) {
			off += (size_t)snprintf(yaml + off, sizeof(yaml) - off, "%s: [", w ? "write" : "read");
			int i = 0;
			for (uint64_t kib = 4; kib <= 1024; kib *= 2, i++) {
				struct device_curve_opts o = { .write = w, .bytes = kib << 10, .qd = 1,
							       .nreq = 512, .seed = 9 };
				struct device_curve_result r;
				if (device_curve_measure(cfg_root(flash), &o, &r, &err))
					fail_msg("%s", err.msg);
				ref[w][i] = r.lat_us;
				off += (size_t)snprintf(yaml + off, sizeof(yaml) - off, "%s[%llu, %.3f]",
							i ? ", " : "", (unsigned long long)kib, r.lat_us);
			}
			off += (size_t)snprintf(yaml + off, sizeof(yaml) - off, "]\n");
		}
		cfg_free(flash);
		struct cfg_doc *table;
		if (cfg_load_string(yaml, strlen(yaml), "from-curve.yaml", &table, &err))
			fail_msg("%s", err.msg);
		for (int w = 0; w < 2; w++) {
			int i = 0;
			for (uint64_t kib = 4; kib <= 1024; kib *= 2, i++) {
				struct device_curve_opts o = { .write = w, .bytes = kib << 10, .qd = 1,
							       .nreq = 64, .seed = 10 };
				struct device_curve_result r;
				if (device_curve_measure(cfg_root(table), &o, &r, &err))
					fail_msg("%s", err.msg);
				double e = fabs(r.lat_us - ref[w][i]) / ref[w][i];
				if (e > 0.02)
					fail_msg("%s %s %llu KiB: table %.2f us vs flash %.2f us", *p,
						 w ? "write" : "read", (unsigned long long)kib, r.lat_us,
						 ref[w][i]);
			}
		}
		cfg_free(table);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_exact_at_points_and_monotone_between),
		cmocka_unit_test(test_table_per_queue_depth_curves),
		cmocka_unit_test(test_table_validation_errors),
		cmocka_unit_test(test_table_from_preset_curve_reproduces_qd1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
