/* Device core (models/device/device.c): registry lookups, construction errors that
 * name file:line:col, dispatch/complete stamps, counters, busy time and the
 * "device" object of the result. The ideal model with a fixed service
 * time gives exact expected values. */
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
	uint32_t completed;
	int64_t last_complete;
};

static void on_done(void *upper, struct io_request *rq)
{
	struct harness *h = upper;
	h->completed++;
	h->last_complete = rq->t_complete;
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

static void test_device_registry_lookup(void **state)
{
	(void)state;
	assert_non_null(device_find("flash"));
	assert_non_null(device_find("table"));
	assert_non_null(device_find("ideal"));
	assert_non_null(device_find("hdd"));
	assert_null(device_find("tape"));
	assert_null(device_find(NULL));
	int n = 0;
	for (const struct device_ops *const *d = device_registry(); *d; d++) {
		assert_ptr_equal(device_find((*d)->name), *d);
		assert_non_null((*d)->submit);
		n++;
	}
	assert_int_equal(n, 7); /* flash, table, ideal, hdd, virtio-blk, stripe, linear */
}

static void expect_error(const char *yaml, const char *where, const char *what)
{
	struct harness h;
	struct sim_error err = { 0 };
	int rc = build(&h, yaml, &err);
	assert_int_equal(rc, SIM_E_INPUT);
	if (!strstr(err.msg, where) || !strstr(err.msg, what))
		fail_msg("expected '%s' and '%s' in: %s", where, what, err.msg);
	device_destroy(h.dev); /* built when only cfg_check_unused failed */
	cfg_free(h.doc);
	sim_destroy(h.sim);
}

static void test_device_create_errors_name_position(void **state)
{
	(void)state;
	expect_error("dies: 4\n", "dev.yaml:1:1", "model");
	expect_error("model: tape\n", "dev.yaml:1:8", "unknown device model 'tape'");
	expect_error("model: [flash]\n", "dev.yaml:1:8", "model name");
	expect_error("model: flash\ndies: 3\nchannels: 2\n", "dev.yaml:2:7", "multiple of channels");
	expect_error("model: flash\nread_us: -5\n", "dev.yaml:2:", "read_us");
	expect_error("model: flash\nlink: sata\n", "dev.yaml:2:7", "link");
	expect_error("model: flash\nlink: emmc_hs200\nlanes: 2\n", "dev.yaml:3:8", "lanes must be 1");
	expect_error("model: flash\nplanes: 4\npage_kib: 64\nwbuf_kib: 128\n", "dev.yaml:4:11",
		     "write buffer");
	expect_error("model: flash\ndeis: 4\n", "dev.yaml:2:", "deis");
}

struct later {
	struct sim_event ev;
	struct harness *h;
	struct io_request *rq;
};

static void later_submit(struct sim *sim, struct sim_event *e)
{
	struct later *l = container_of(e, struct later, ev);
	device_submit(l->h->dev, l->rq);
}

static void test_device_counters_and_busy_time(void **state)
{
	(void)state;
	struct harness h;
	struct sim_error err = { 0 };
	if (build(&h, "model: ideal\nservice: fixed\nmean_us: 100\nservers: 1\n", &err))
		fail_msg("%s", err.msg);
	struct io_request r[3];
	init_rq(&r[0], 0, 8, 0);
	init_rq(&r[1], 8, 16, REQ_WRITE);
	init_rq(&r[2], 100, 8, 0);
	r[1].t_dispatch = 5; /* already stamped by the caller: kept */
	assert_true(device_can_accept(h.dev, &r[0]));
	device_submit(h.dev, &r[0]);
	device_submit(h.dev, &r[1]);
	assert_int_equal(h.dev->inflight, 2);
	assert_int_equal(r[0].t_dispatch, 0);
	assert_int_equal(r[1].t_dispatch, 5);
	sim_engine_run(&h.sim->engine, SIM_TIME_MAX);
	assert_int_equal(h.completed, 2);
	assert_int_equal(h.dev->inflight, 0);
	/* one server: 100 us each, back to back */
	assert_int_equal(r[0].t_complete, 100000);
	assert_int_equal(r[1].t_complete, 200000);
	assert_int_equal(h.dev->busy_ns, 200000);

	/* an idle gap is not busy time */
	struct later ev = { .h = &h, .rq = &r[2] };
	sim_event_init(&ev.ev, later_submit);
	sim_at(h.sim, &ev.ev, 1000000);
	sim_engine_run(&h.sim->engine, SIM_TIME_MAX);
	assert_int_equal(r[2].t_dispatch, 1000000);
	assert_int_equal(h.dev->busy_ns, 300000);
	assert_int_equal(h.dev->requests, 3);
	assert_int_equal(h.dev->reads, 2);
	assert_int_equal(h.dev->writes, 1);
	assert_int_equal(h.dev->read_bytes, 16 * 512);
	assert_int_equal(h.dev->write_bytes, 16 * 512);
	assert_int_equal(h.dev->bytes, 32 * 512);

	json_t *o = device_to_json(h.dev);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "busy_ns")), 300000);
	assert_int_equal(json_integer_value(json_object_get(o, "requests")), 3);
	assert_int_equal(json_integer_value(json_object_get(o, "bytes")), 32 * 512);
	assert_int_equal(json_integer_value(json_object_get(o, "reads")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "writes")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "read_bytes")), 16 * 512);
	assert_int_equal(json_integer_value(json_object_get(o, "write_bytes")), 16 * 512);
	assert_string_equal(json_string_value(json_object_get(o, "model")), "ideal");
	assert_string_equal(json_string_value(json_object_get(o, "preset")), "inline");
	json_t *p = json_object_get(o, "params");
	assert_true(json_is_object(p));
	assert_non_null(json_object_get(p, "mean_us"));
	json_decref(o);
	teardown_h(&h);
}

static void test_device_queue_depth_limits_accept(void **state)
{
	(void)state;
	struct harness h;
	struct sim_error err = { 0 };
	if (build(&h, "model: flash\nlink: emmc_hs200\n", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(h.dev->queue_depth, 1); /* eMMC without CMDQ */
	struct io_request a, b;
	init_rq(&a, 0, 8, 0);
	init_rq(&b, 1024, 8, 0);
	device_submit(h.dev, &a);
	assert_false(device_can_accept(h.dev, &b));
	sim_engine_run(&h.sim->engine, SIM_TIME_MAX);
	assert_true(device_can_accept(h.dev, &b));
	teardown_h(&h);

	if (build(&h, "model: flash\nlink: emmc_hs400\ncmdq: true\n", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(h.dev->queue_depth, 32);
	teardown_h(&h);
	if (build(&h, "model: flash\nlink: ufs_hs_g3\nlanes: 2\n", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(h.dev->queue_depth, 32);
	teardown_h(&h);
	if (build(&h, "model: flash\nlink: ufs_hs_g3\nqueue_depth: 8\n", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(h.dev->queue_depth, 8);
	teardown_h(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_registry_lookup),
		cmocka_unit_test(test_device_create_errors_name_position),
		cmocka_unit_test(test_device_counters_and_busy_time),
		cmocka_unit_test(test_device_queue_depth_limits_accept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
