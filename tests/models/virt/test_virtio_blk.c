/* virtio-blk over a host stack (models/virt/virtio_blk.c): the per-request
 * costs add up to what the guest's completion path sees, a read the host's
 * page cache holds never reaches the host's drive, cache=none reaches it
 * every time, the interrupt path pays injection and vCPU wake-up and polling
 * neither, and the host stack stays out of the run's fg/bg metrics. Small
 * guests on a 64 MiB image, so each test runs in milliseconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/device/device.h"
#include "models/virt/virtio_blk.h"
#include "sim/sim.h"

/* A guest reading file_bytes of a file bytes at a time (direct or
 * buffered) on a virtio-blk disk with distinct costs, over a host whose
 * drive is a fixed 50 us ideal device. */
static struct sim *run_guest(const char *cache, double warm, const char *cpl, bool direct,
			     const char *file_bytes, const char *bytes, const char *pattern)
{
	char yaml[4096];
	snprintf(yaml, sizeof(yaml),
		 "seed: 1\n"
		 "device:\n"
		 "  model: virtio-blk\n"
		 "  cache: %s\n"
		 "  notify_exit_us: 1.1\n"
		 "  backend_wake_us: 2.2\n"
		 "  vq_pop_us: 0.7\n"
		 "  vq_push_us: 0.3\n"
		 "  inject_us: 0.4\n"
		 "  vcpu_wake_us: 3.3\n"
		 "  eoi_exit_us: 0.6\n"
		 "  image_bytes: 64MiB\n"
		 "  host_cache_warm: %g\n"
		 "  workers: 2\n"
		 "  host_stack:\n"
		 "    device: {model: ideal, service: fixed, mean_us: 50}\n"
		 "    block: {kind: mq}\n"
		 "    scheduler: none\n"
		 "    memory: {total_bytes: 1GiB, reserved_bytes: 256MiB}\n"
		 "block: {kind: mq}\n"
		 "scheduler: none\n"
		 "fs: {partition_start_bytes: 1MiB, partition_bytes: 63MiB, group_bytes: 8MiB}\n"
		 "%s"
		 "workload:\n"
		 "  type: synthetic\n"
		 "  tasks:\n"
		 "    reader: {gen: reader, uid: 10001, become_fg: true, file_bytes: %s, bytes: %s,\n"
		 "             chunk_bytes: 4KiB, pattern: %s, direct: %s}\n",
		 cache, warm, cpl, file_bytes, bytes, pattern, direct ? "true" : "false");
	struct sim_error err = { 0 };
	struct cfg_doc *doc = NULL;
	if (cfg_load_string(yaml, strlen(yaml), "guest.yaml", &doc, &err))
		fail_msg("%s", err.msg);
	struct sim_options opt = { .quiet = true };
	struct sim *sim = NULL;
	if (sim_create(doc, NULL, &opt, &sim, &err))
		fail_msg("%s", err.msg);
	if (sim_run(sim, &err))
		fail_msg("%s", err.msg);
	return sim;
}

static double jnum(json_t *root, const char *a, const char *b, const char *c)
{
	json_t *o = json_object_get(root, a);
	if (b)
		o = json_object_get(o, b);
	if (c)
		o = json_object_get(o, c);
	assert_non_null(o);
	return json_number_value(o);
}

static const char *const IRQ = "completion: {model: interrupt, irq_us: 1.5, ctxsw_us: 1.5, "
			       "wakeup_us: 1, paths: all}\n";
static const char *const POLL = "completion: {model: poll, irq_us: 1.5, ctxsw_us: 1.5, "
				"wakeup_us: 1, poll_check_ns: 0, paths: all}\n";

/* Exact identities: device time = kick exit + back-end wake-up + host
 * time; host time = pop + the host's own read op + push; the guest's
 * completion latency = device time + injection + vCPU wake + EOI exit +
 * guest irq + wake-up + context switch. */
static void test_virtio_blk_costs_add_up(void **state)
{
	(void)state;
	struct sim *sim = run_guest("writeback", 1, IRQ, true, "1MiB", "256KiB", "random");
	const struct virtio_blk_stats *st = virtio_blk_stats(sim->device);
	assert_non_null(st);
	assert_int_equal(st->requests, 64);
	assert_int_equal(st->injections, 64);
	assert_int_equal(st->front_ns, 64 * (1100 + 2200));
	json_t *r = sim_result_json(sim);
	double dev_ns = jnum(r, "completion", "device_ns", "mean");
	double lat_ns = jnum(r, "completion", "latency_ns", "mean");
	double host_mean = (double)st->host_ns / 64;
	assert_true(dev_ns - (3300 + host_mean) < 1e-6 && (3300 + host_mean) - dev_ns < 1e-6);
	double deliver = 400 + 3300 + 600 + 1500 + 1000 + 1500;
	assert_true(lat_ns - dev_ns - deliver < 1e-6 && deliver - (lat_ns - dev_ns) < 1e-6);
	/* the host's read: its worker tasks' read ops, pop and push around them */
	json_t *tasks = json_object_get(
		json_object_get(json_object_get(json_object_get(r, "device"), "host"), "stack"),
		"tasks");
	double rd_sum = 0, rd_n = 0;
	for (size_t i = 0; i < json_array_size(tasks); i++) {
		json_t *io = json_object_get(json_object_get(json_array_get(tasks, i), "io"), "read");
		if (!io)
			continue;
		double n = json_number_value(json_object_get(io, "count"));
		rd_n += n;
		rd_sum += n * json_number_value(
				      json_object_get(json_object_get(io, "clat_ns"), "mean"));
	}
	assert_int_equal((int)rd_n, 64);
	double host_rd = rd_sum / rd_n;
	assert_true(host_mean - (700 + host_rd + 300) < 1e-3 &&
		    (700 + host_rd + 300) - host_mean < 1e-3);
	json_decref(r);
	sim_destroy(sim);
}

/* Cached on the host: every guest read is a host page-cache hit, and the
 * host's drive sees nothing. */
static void test_virtio_blk_host_cache_hit_skips_host_device(void **state)
{
	(void)state;
	struct sim *sim = run_guest("writeback", 1, IRQ, false, "4MiB", "1MiB", "random");
	const struct virtio_blk_stats *st = virtio_blk_stats(sim->device);
	struct device *hd = virtio_blk_host_device(sim->device);
	assert_true(st->host_ops > 200);
	assert_int_equal(st->host_ops, st->requests);
	assert_int_equal(hd->requests, 0);
	sim_destroy(sim);
}

/* cache=none: the image is read O_DIRECT, so every guest read (the same
 * block read twice included) is a host drive request, warm cache or not;
 * under writeback with a cold host cache the second read of a block hits
 * the page cache the first one filled. */
static void test_virtio_blk_cache_none_reaches_host_device(void **state)
{
	(void)state;
	struct sim *none = run_guest("none", 1, IRQ, true, "64KiB", "128KiB", "seq");
	const struct virtio_blk_stats *st = virtio_blk_stats(none->device);
	assert_int_equal(st->requests, 32);
	assert_int_equal(virtio_blk_host_device(none->device)->requests, 32);
	sim_destroy(none);

	struct sim *wb = run_guest("writeback", 0, IRQ, true, "64KiB", "128KiB", "seq");
	st = virtio_blk_stats(wb->device);
	assert_int_equal(st->requests, 32);
	uint64_t hreq = virtio_blk_host_device(wb->device)->requests;
	assert_true(hreq >= 1 && hreq <= 16); /* the first pass only (host readahead merges it) */
	sim_destroy(wb);
}

/* Polling the used ring: no injection, no vCPU wake-up; the guest's read is
 * faster than on the interrupt path by at least those two. */
static void test_virtio_blk_poll_skips_injection(void **state)
{
	(void)state;
	struct sim *irq = run_guest("writeback", 1, IRQ, true, "1MiB", "256KiB", "random");
	struct sim *poll = run_guest("writeback", 1, POLL, true, "1MiB", "256KiB", "random");
	assert_int_equal(virtio_blk_stats(poll->device)->injections, 0);
	json_t *a = sim_result_json(irq), *b = sim_result_json(poll);
	double li = jnum(a, "completion", "latency_ns", "mean");
	double lp = jnum(b, "completion", "latency_ns", "mean");
	assert_true(li - lp >= 400 + 3300 + 600);
	json_decref(a);
	json_decref(b);
	sim_destroy(irq);
	sim_destroy(poll);
}

/* The host's worker tasks are not the run's: the fg/bg read counts are the
 * guest reader's alone. */
static void test_virtio_blk_host_out_of_metrics(void **state)
{
	(void)state;
	struct sim *sim = run_guest("writeback", 1, IRQ, true, "1MiB", "256KiB", "random");
	json_t *r = sim_result_json(sim);
	json_t *cls = json_object_get(r, "classes");
	double fg = json_number_value(json_object_get(
		json_object_get(json_object_get(cls, "fg"), "read"), "count"));
	double bg = json_number_value(json_object_get(
		json_object_get(json_object_get(cls, "bg"), "read"), "count"));
	assert_int_equal((int)fg, 64);
	assert_int_equal((int)bg, 0);
	json_decref(r);
	sim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_virtio_blk_costs_add_up),
		cmocka_unit_test(test_virtio_blk_host_cache_hit_skips_host_device),
		cmocka_unit_test(test_virtio_blk_cache_none_reaches_host_device),
		cmocka_unit_test(test_virtio_blk_poll_skips_injection),
		cmocka_unit_test(test_virtio_blk_host_out_of_metrics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
