/* Tests for models/iosched/cfq.c: each asserts a rule of Linux 3.10
 * block/cfq-iosched.c, by driving a real block queue over an ideal device
 * (fixed service time, queue depth 1) with closed-loop streams of bios.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/block/block.h"
#include "models/device/device.h"
#include "models/block/elevator.h"
#include "models/block/request.h"
#include "sim/config.h"
#include "sim/sim.h"
#include "sim/stats.h"

#include "tests/models/iosched/sched_harness.h"

#define DEV_QD1 "model: ideal\nservice: fixed\nmean_us: 100\nqueue_depth: 1\n"
/* A rotational queue: CFQ idles from the start (on flash it waits for
 * hw_tag detection, see test_cfq_nonrot_needs_hw_tag). */
#define CFQ_ROT "nonrot: false\n"

/* ------------------------------------------------------------ tests */

/* choose_wl_class_and_type: RT before BE before IDLE. */
static void test_cfq_class_order_rt_be_idle(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream idle, be, rt;

	/* all queued at once, the lowest class first */
	stream_init(&idle, h, 30, IOPRIO_CLASS_IDLE, 7, 0, 8, 3000000, 8, 0, 0);
	stream_init(&be, h, 20, IOPRIO_CLASS_BE, 4, 0, 8, 2000000, 8, 0, 0);
	stream_init(&rt, h, 10, IOPRIO_CLASS_RT, 4, 0, 8, 1000000, 8, 0, 0);
	idle.stop_ns = be.stop_ns = rt.stop_ns = 1; /* one batch each */
	h_run(h, 2000 * MS);
	assert_int_equal(h->norder, 24);
	/* the first IDLE request may already be on the device */
	size_t i = h->order[0] == 30 ? 1 : 0;
	int32_t last = 0;
	for (; i < h->norder; i++) {
		assert_true(h->order[i] >= last);
		last = h->order[i];
	}
	assert_int_equal(h->order[h->norder - 1], 30);
	h_free(h);
}

/* cfq_prio_slice: BE-0 gets 180 ms, BE-7 40 ms per round at HZ=1000. */
static void test_cfq_prio_slice_ratio(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream a, b;

	stream_init(&a, h, 1, IOPRIO_CLASS_BE, 0, 0, 8, 0, 1, 0, 0);
	stream_init(&b, h, 2, IOPRIO_CLASS_BE, 7, 0, 8, 50000000, 1, 0, 0);
	h_run(h, 4000 * MS);
	double ratio = (double)a.done / (double)b.done;
	print_message("BE-0 %" PRIu64 " BE-7 %" PRIu64 " requests: ratio %.2f\n", a.done, b.done, ratio);
	/* 180:40 = 4.5 */
	assert_true(ratio > 4.5 * 0.85 && ratio < 4.5 * 1.15);
	h_free(h);
}

/* Async is held back while sync readers keep the queue busy (async
 * workload slice x 0.4, slice_async_rq budget, no async dispatch with
 * sync in flight), and takes the device when they pause. */
static void test_cfq_async_starved_then_served(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream r1, r2, w;

	stream_init(&r1, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 0, 0);
	stream_init(&r2, h, 2, IOPRIO_CLASS_BE, 4, 0, 8, 40000000, 1, 0, 0);
	stream_init(&w, h, 3, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 256, 80000000, 32, 0, 0);
	/* readers pause in [2 s, 3 s) */
	r1.pause_from = r2.pause_from = 2000 * MS;
	r1.pause_to = r2.pause_to = 3000 * MS;
	h_run(h, 1000 * MS);
	uint64_t w_busy0 = w.done, r_busy0 = r1.done + r2.done;
	h_run(h, 2000 * MS);
	uint64_t w_busy = w.done - w_busy0, r_busy = r1.done + r2.done - r_busy0;
	h_run(h, 2100 * MS);
	uint64_t w_p0 = w.done;
	h_run(h, 2900 * MS);
	uint64_t w_pause = w.done - w_p0;

	print_message("async: %" PRIu64 " vs sync %" PRIu64 " while busy; %" PRIu64 " while paused\n",
		      w_busy, r_busy, w_pause);
	/* busy second: async gets well under a third of the device */
	assert_true(w_busy * 10 < (w_busy + r_busy));
	assert_true(w_busy > 0);
	/* paused: nearly all of the device (0.8 s / 100 us = 8000) */
	assert_true(w_pause > 7000);
	assert_true(w_pause > 5 * w_busy);
	h_free(h);
}

/* Idling: a reader thinking 2 ms (< slice_idle 8 ms) keeps its slice
 * while another reader's request waits. */
static void test_cfq_idling_keeps_slice(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream a, b;

	stream_init(&a, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 2 * MS, 0);
	stream_init(&b, h, 2, IOPRIO_CLASS_BE, 4, 0, 8, 50000000, 1, 0, 0);
	h_run(h, 2000 * MS);
	print_message("run of A %.1f, idle waits %" PRId64 "\n", h_mean_run(h, 1), h_stat(h, "idle_waits"));
	/* 100 ms slice / 2.1 ms per request: long runs of A */
	assert_true(h_mean_run(h, 1) > 20.0);
	assert_true(h_stat(h, "idle_waits") > 100);
	h_free(h);
}

/* slice_idle = 0: no idle window, the thinking reader loses the device at
 * every request. */
static void test_cfq_slice_idle_zero_disables_idling(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT "slice_idle_ms: 0\ngroup_idle_ms: 0\n");
	struct stream a, b;

	stream_init(&a, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 2 * MS, 0);
	stream_init(&b, h, 2, IOPRIO_CLASS_BE, 4, 0, 8, 50000000, 1, 0, 0);
	h_run(h, 2000 * MS);
	assert_true(h_mean_run(h, 1) < 2.0);
	assert_int_equal(h_stat(h, "idle_waits"), 0);
	h_free(h);
}

/* HZ=100: slice_idle = HZ/125 = 0, forced to 1 jiffy (cfq_init), and the
 * idle timer fires at the next 10 ms tick: a reader thinking 6 ms loses
 * its slice whenever it completes late in a jiffy, which it never does at
 * HZ=1000 (8 jiffies). */
static void test_cfq_hz100_slice_idle_one_jiffy(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT "hz: 100\n");
	struct harness *k = h_new("cfq", DEV_QD1, CFQ_ROT "hz: 1000\n");
	struct stream a, b, ka, kb;

	assert_int_equal(h_stat(h, "slice_idle_jiffies"), 1);
	assert_int_equal(h_stat(k, "slice_idle_jiffies"), 8);
	stream_init(&a, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 6 * MS, 0);
	stream_init(&b, h, 2, IOPRIO_CLASS_BE, 4, 0, 8, 50000000, 1, 0, 0);
	stream_init(&ka, k, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 6 * MS, 0);
	stream_init(&kb, k, 2, IOPRIO_CLASS_BE, 4, 0, 8, 50000000, 1, 0, 0);
	h_run(h, 2000 * MS);
	h_run(k, 2000 * MS);
	double run100 = h_mean_run(h, 1), run1000 = h_mean_run(k, 1);
	print_message("run of A: HZ=100 %.2f HZ=1000 %.2f; HZ=100 idle waits %" PRId64 " total %" PRId64 " ns\n",
		      run100, run1000, h_stat(h, "idle_waits"), h_stat(h, "idle_wait_ns"));
	assert_true(run1000 > 8.0);
	assert_true(run100 < run1000 / 3.0);
	/* every idle wait ends on a 10 ms jiffy boundary: at most one jiffy */
	int64_t waits = h_stat(h, "idle_waits"), ns = h_stat(h, "idle_wait_ns");
	assert_true(waits > 0);
	assert_true(ns <= waits * 10 * MS);
	h_free(h);
	h_free(k);
}

/* cfq_merge: a bio ending where a queued request of its own queue starts
 * front-merges; cfq_allow_merge refuses a sync bio into an async request. */
static void test_cfq_front_merge_and_no_sync_into_async(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream busy, w;
	struct tio t[3];

	/* keep the device busy so the writes stay queued */
	stream_init(&busy, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 0, 0);
	busy.stop_ns = 1;
	stream_init(&w, h, 2, IOPRIO_CLASS_BE, 4, REQ_WRITE, 8, 1000, 0, 0, 0);
	h_run(h, 10 * US);
	for (int i = 0; i < 3; i++) {
		t[i].s = &w;
		sim_event_init(&t[i].ev, tio_fire);
	}
	w.next_sector = 1000;
	w.stride = 0;
	stream_issue(&w, &t[0]);          /* async write [1000, 1008) */
	w.next_sector = 992;
	stream_issue(&w, &t[1]);          /* async write [992, 1000): front merge */
	w.next_sector = 984;
	w.flags = REQ_WRITE | REQ_SYNC;
	stream_issue(&w, &t[2]);          /* sync write [984, 992): must not merge */
	w.stop_ns = 0;
	h_run(h, 100 * MS);
	assert_int_equal(w.done, 3);
	/* the read, the merged async request and the sync write */
	assert_int_equal(h->dev->requests, 3);
	assert_int_equal(h->dev->writes, 2);
	assert_true(h_stat(h, "front_merges") >= 1);
	h_free(h);
}

/* boost_lba finds a request in the shared async queue and CFQ dispatches
 * it next, ahead of the sync readers and the rest of the async queue. */
static void test_cfq_boost_lba_async_dispatched_next(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream r, w;

	stream_init(&r, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 0, 0);
	/* two writers of class NONE share the BE-4 async queue */
	stream_init(&w, h, 2, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 256, 10000000, 16, 0, 0);
	w.stride = 1024;
	w.stop_ns = 1;
	h_run(h, 50 * MS);
	uint64_t before = w.done;
	assert_true(before < 16);
	/* a sector inside the last write issued */
	uint64_t target = 10000000 + 15 * 1024 + 100;
	assert_true(blk_boost_lba(h->q, target));
	/* not queued anywhere */
	assert_false(blk_boost_lba(h->q, 999999999));
	size_t mark = h->norder;
	h_run(h, 60 * MS);
	/* the completion after the one in flight is the boosted write */
	assert_true(h->norder >= mark + 2);
	assert_int_equal(h->order[mark + 1], 2);
	assert_int_equal(h->osec[mark + 1], 10000000 + 15 * 1024);
	assert_int_equal(h_stat(h, "boost_hits"), 1);
	assert_int_equal(h_stat(h, "boost_misses"), 1);
	h_free(h);
}

/* cfq_check_fifo: a request left behind the head (further back than
 * back_seek_max) is served once its fifo_expire_sync (125 ms) passed, at
 * the next slice start, instead of waiting for the forward stream to end. */
static void test_cfq_fifo_expiry_serves_old_request(void **state)
{
	(void)state;
	for (int variant = 0; variant < 2; variant++) {
		struct harness *h = h_new("cfq", DEV_QD1,
					  variant ? CFQ_ROT "fifo_expire_sync_ms: 100000\n" : CFQ_ROT);
		struct stream fwd, old;
		/* one process: a deep forward stream, then one request far
		 * behind the head (more than back_seek_max) */
		stream_init(&fwd, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 50000000, 4, 0, 0);
		fwd.stop_ns = 1500 * MS;
		stream_init(&old, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 0, 2 * US);
		old.iocp = &fwd.ioc;
		old.stop_ns = 0;
		h_run(h, 3000 * MS);
		assert_int_equal(old.done, 1);
		int64_t lat = old.lat.max;
		print_message("old request latency %.1f ms (fifo_expire %s)\n", (double)lat / 1e6,
			      variant ? "100 s" : "125 ms");
		if (!variant) {
			assert_true(lat >= 125 * MS);
			assert_true(lat < 400 * MS);
			assert_true(h_stat(h, "fifo_expired") >= 1);
		} else {
			assert_true(lat > 1400 * MS);
		}
		h_free(h);
	}
}

/* Preemption: an RT request preempts a BE slice (cfq_should_preempt). */
static void test_cfq_rt_preempts_be(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream be, rt;

	stream_init(&be, h, 1, IOPRIO_CLASS_BE, 0, 0, 8, 0, 1, 0, 0);
	stream_init(&rt, h, 2, IOPRIO_CLASS_RT, 4, 0, 8, 50000000, 1, 0, 20 * MS);
	rt.stop_ns = 20 * MS + 1;
	h_run(h, 100 * MS);
	assert_int_equal(rt.done, 1);
	/* served right after the BE request on the device */
	assert_true(rt.lat.max <= 200 * US + 1);
	assert_true(h_stat(h, "preemptions") >= 1);
	h_free(h);
}

/* Two readers interleaving in one region (each next request within
 * CFQQ_CLOSE_THR of the head) take turns: the close request preempts the
 * queue idling for its own (cfq_should_preempt, cfq_rq_close) or is
 * picked as its cooperator (cfq_select_queue, cfq_close_cooperator).
 * The same readers far apart: the idling one keeps its slice. */
static void run_pair(uint64_t b_start, double *run_a, int64_t *coop, int64_t *idle)
{
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream a, b;

	stream_init(&a, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 500 * US, 0);
	stream_init(&b, h, 2, IOPRIO_CLASS_BE, 4, 0, 8, b_start, 1, 500 * US, 0);
	a.stride = b.stride = 16;  /* A reads 0, 16, 32..; B 8, 24, 40.. */
	h_run(h, 1000 * MS);
	*run_a = h_mean_run(h, 1);
	*coop = h_stat(h, "close_cooperators");
	*idle = h_stat(h, "idle_wait_ns") / (h_stat(h, "idle_waits") ? h_stat(h, "idle_waits") : 1);
	h_free(h);
}

static void test_cfq_close_cooperators_take_turns(void **state)
{
	(void)state;
	double run_near, run_far;
	int64_t coop_near, coop_far, idle_near, idle_far;

	run_pair(8, &run_near, &coop_near, &idle_near);
	run_pair(50000000, &run_far, &coop_far, &idle_far);
	print_message("interleaved: run %.1f, cooperator switches %" PRId64 ", mean idle wait %" PRId64
		      " ns; far apart: run %.1f, %" PRId64 ", %" PRId64 " ns\n",
		      run_near, coop_near, idle_near, run_far, coop_far, idle_far);
	assert_true(coop_near > 100);
	assert_true(run_near < 3.0);
	assert_int_equal(coop_far, 0);
	assert_true(run_far > 50.0);
}

/* cfq_should_preempt: between two BE sync queues a REQ_PRIO (metadata)
 * request preempts a slice that has none pending; a plain one waits for
 * the active slice to end. */
static int64_t prio_read_latency(uint32_t flags)
{
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream a, b;
	int64_t lat;

	stream_init(&a, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 0, 0);
	stream_init(&b, h, 2, IOPRIO_CLASS_BE, 4, flags, 8, 50000000, 1, 0, 30 * MS);
	b.stop_ns = 30 * MS + 1;
	h_run(h, 500 * MS);
	assert_int_equal(b.done, 1);
	lat = b.lat.max;
	h_free(h);
	return lat;
}

static void test_cfq_prio_request_preempts(void **state)
{
	(void)state;
	int64_t meta = prio_read_latency(REQ_PRIO | REQ_META);
	int64_t plain = prio_read_latency(0);
	print_message("read from a second BE queue at 30 ms: REQ_PRIO %.3f ms, plain %.3f ms\n",
		      (double)meta / 1e6, (double)plain / 1e6);
	assert_true(meta <= 200 * US + 1);
	/* A's 100 ms slice started at its first completion (0.1 ms) */
	assert_true(plain > 60 * MS);
}

/* On a non-rotational queue hw_tag starts at -1 ("assume NCQ") and CFQ
 * does not idle until 50 loaded samples show the driver never held
 * CFQ_HW_QUEUE_MIN requests; a QD1 reader pair alone never loads it. */
static void test_cfq_nonrot_needs_hw_tag(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, "nonrot: true\n");
	struct stream a, b;

	stream_init(&a, h, 1, IOPRIO_CLASS_BE, 4, 0, 64, 0, 1, 2 * MS, 0);
	stream_init(&b, h, 2, IOPRIO_CLASS_BE, 4, 0, 64, 50000000, 1, 0, 0);
	h_run(h, 1000 * MS);
	assert_int_equal(h_stat(h, "hw_tag"), -1);
	assert_int_equal(h_stat(h, "idle_waits"), 0);
	/* the result JSON echoes the tunables and carries the figures */
	json_t *o = blk_queue_to_json(h->q);
	json_t *p = json_object_get(o, "scheduler_params");
	assert_non_null(p);
	assert_non_null(json_object_get(p, "slice_idle_ms"));
	assert_non_null(json_object_get(p, "kernel_variant"));
	json_t *st = json_object_get(o, "scheduler_stats");
	assert_non_null(st);
	assert_true(json_integer_value(json_object_get(json_object_get(st, "dispatched"), "be_sync_noidle")) +
		    json_integer_value(json_object_get(json_object_get(st, "dispatched"), "be_sync")) > 100);
	char *txt = json_dumps(p, JSON_SORT_KEYS | JSON_COMPACT);
	print_message("scheduler_params %s\n", txt);
	free(txt);
	json_decref(o);
	h_free(h);
}

/* cfq_scaled_cfqq_slice (low_latency): with 4 busy BE readers the
 * expected latency 4 x 100 ms exceeds target_latency 300 ms, so each
 * slice shrinks to 100 x 300/400 = 75 ms; without low_latency it stays
 * 100 ms. */
static double run_four_readers(const char *cfq_yaml)
{
	struct harness *h = h_new("cfq", DEV_QD1, cfq_yaml);
	struct stream r[4];
	for (int i = 0; i < 4; i++)
		stream_init(&r[i], h, i + 1, IOPRIO_CLASS_BE, 4, 0, 8, (uint64_t)i * 50000000, 1, 0, 0);
	h_run(h, 3000 * MS);
	double run = 0;
	for (int i = 0; i < 4; i++)
		run += h_mean_run(h, i + 1) / 4;
	h_free(h);
	return run;
}

static void test_cfq_low_latency_scales_slices(void **state)
{
	(void)state;
	double lat = run_four_readers(CFQ_ROT);
	double nolat = run_four_readers(CFQ_ROT "low_latency: false\n");
	print_message("mean run of 100 us requests: low_latency %.0f, off %.0f\n", lat, nolat);
	/* 75 ms and 100 ms of 100 us requests (the first slice is full) */
	assert_true(lat > 650 && lat < 800);
	assert_true(nolat > 900 && nolat < 1050);
}

/* Async queues are shared per (class, prio): processes of class NONE and
 * BE-4 put their writes in one queue, so one's bio front-merges into the
 * other's request; a BE-7 writer has its own queue and does not. */
static void test_cfq_async_queue_shared_per_prio(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream busy, a, b, c;
	struct tio ta, tb[2], tc[2];

	stream_init(&busy, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 0, 0);
	busy.stop_ns = 1;
	stream_init(&a, h, 2, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 8, 0, 0, 0, 0);
	stream_init(&b, h, 3, IOPRIO_CLASS_BE, 4, REQ_WRITE, 8, 0, 0, 0, 0);
	stream_init(&c, h, 4, IOPRIO_CLASS_BE, 7, REQ_WRITE, 8, 0, 0, 0, 0);
	a.stop_ns = b.stop_ns = c.stop_ns = 0;
	h_run(h, 10 * US);
	ta.s = &a;
	sim_event_init(&ta.ev, tio_fire);
	for (int i = 0; i < 2; i++) {
		tb[i].s = &b;
		tc[i].s = &c;
		sim_event_init(&tb[i].ev, tio_fire);
		sim_event_init(&tc[i].ev, tio_fire);
	}
	/* cfq_find_rq_fmerge looks only in a queue the process already has:
	 * B and C write once elsewhere first */
	b.next_sector = 500000;
	stream_issue(&b, &tb[0]);
	c.next_sector = 600000;
	stream_issue(&c, &tc[0]);
	a.next_sector = 1000;
	stream_issue(&a, &ta);            /* NONE -> the BE-4 async queue */
	b.next_sector = 992;
	stream_issue(&b, &tb[1]);         /* BE-4: same queue, front merge */
	c.next_sector = 984;
	stream_issue(&c, &tc[1]);         /* BE-7: its own queue, no merge */
	h_run(h, 100 * MS);
	assert_int_equal(a.done + b.done + c.done, 5);
	/* the read, B's and C's first writes, NONE+BE-4 merged, BE-7 alone */
	assert_int_equal(h->dev->requests, 5);
	h_free(h);
}

/* Trace-sink view of the device: reads in flight at each write dispatch. */
struct inflight_probe {
	int reads_in_flight;
	uint64_t writes_dispatched, writes_with_reads;
	int max_in_flight, in_flight;
	int writes_in_flight, max_writes_in_flight;
};

static void probe_event(void *ctx, const struct blk_trace_event *ev)
{
	struct inflight_probe *p = ctx;
	bool write = req_is_write(ev->flags);
	if (ev->action == 'D') {
		if (write) {
			p->writes_dispatched++;
			if (p->reads_in_flight)
				p->writes_with_reads++;
			if (++p->writes_in_flight > p->max_writes_in_flight)
				p->max_writes_in_flight = p->writes_in_flight;
		} else {
			p->reads_in_flight++;
		}
		if (++p->in_flight > p->max_in_flight)
			p->max_in_flight = p->in_flight;
	} else if (ev->action == 'C') {
		if (!write)
			p->reads_in_flight--;
		else
			p->writes_in_flight--;
		p->in_flight--;
	}
}

/* cfq_may_dispatch: an async queue does not dispatch while any sync
 * request is in flight, even on a device with 32 free tags. */
static void test_cfq_no_async_while_sync_in_flight(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", "model: ideal\nservice: fixed\nmean_us: 200\nservers: 32\n"
				  "queue_depth: 32\n", CFQ_ROT);
	struct inflight_probe p = { 0 };
	struct blk_trace_sink sink = { .event = probe_event, .ctx = &p };
	struct stream r, w;

	blk_set_trace_sink(h->q, &sink);
	stream_init(&r, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 3 * MS, 0);
	stream_init(&w, h, 2, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 256, 100000000, 32, 0, 0);
	w.stride = 512;
	h_run(h, 2000 * MS);
	print_message("writes dispatched %" PRIu64 ", with a read in flight %" PRIu64 ", max depth %d\n",
		      p.writes_dispatched, p.writes_with_reads, p.max_in_flight);
	assert_true(p.writes_dispatched > 1000);
	assert_int_equal(p.writes_with_reads, 0);
	h_free(h);
}

/* A sync reader (think 3 ms) against a deep buffered writer on dev, from
 * t = 0; the probe counts from warm_ns on (after hw_tag detection). */
static void run_reader_writer(const char *dev, const char *cfq, int64_t warm_ns,
			      struct inflight_probe *p, int64_t *hw_tag)
{
	struct harness *h = h_new("cfq", dev, cfq);
	struct blk_trace_sink sink = { .event = probe_event, .ctx = p };
	struct stream r, w;

	blk_set_trace_sink(h->q, &sink);
	stream_init(&r, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 3 * MS, 0);
	stream_init(&w, h, 2, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 256, 100000000, 32, 0, 0);
	w.stride = 512;
	h_run(h, warm_ns);
	/* keep the in-flight counts, restart the tallies */
	p->writes_dispatched = p->writes_with_reads = 0;
	p->max_writes_in_flight = p->writes_in_flight;
	h_run(h, warm_ns + 2000 * MS);
	*hw_tag = h_stat(h, "hw_tag");
	h_free(h);
}

#define DEV_32TAGS "model: ideal\nservice: fixed\nmean_us: 200\nservers: 32\nqueue_depth: 32\n"
#define DEV_4TAGS "model: ideal\nservice: fixed\nmean_us: 200\nservers: 4\nqueue_depth: 4\n"
/* slice_idle 0: the reader does not idle, so reads do not wait for writes
 * to drain (cfq_may_dispatch's first rule) and only the async rules under
 * test keep writes and reads apart. */
#define CFQ_NOIDLE "nonrot: false\nslice_idle_ms: 0\n"
#define CFQ_SAMSUNG CFQ_NOIDLE "kernel_variant: samsung-exynos7420\n"

/* Samsung's cfq_may_dispatch (universal7420): never more than
 * max_async_dispatch (4) async requests in flight, and on a queue with
 * tagged queueing (hw_tag 1) async no longer waits behind in-flight sync.
 * Mainline 3.10 on the same queue: deeper async, none beside a read. */
static void test_cfq_samsung_async_cap(void **state)
{
	(void)state;
	struct inflight_probe s = { 0 }, m = { 0 }, c = { 0 };
	int64_t tag_s, tag_m, tag_c;

	run_reader_writer(DEV_32TAGS, CFQ_SAMSUNG, 500 * MS, &s, &tag_s);
	run_reader_writer(DEV_32TAGS, CFQ_NOIDLE, 500 * MS, &m, &tag_m);
	run_reader_writer(DEV_32TAGS, CFQ_SAMSUNG "max_async_dispatch: 2\n", 500 * MS, &c, &tag_c);
	print_message("samsung: writes %" PRIu64 " beside a read %" PRIu64 " max async in flight %d"
		      " hw_tag %" PRId64 "; mainline: %" PRIu64 " %" PRIu64 " %d; cap 2: max %d\n",
		      s.writes_dispatched, s.writes_with_reads, s.max_writes_in_flight, tag_s,
		      m.writes_dispatched, m.writes_with_reads, m.max_writes_in_flight,
		      c.max_writes_in_flight);
	assert_int_equal(tag_s, 1);
	assert_true(s.writes_dispatched > 1000);
	assert_int_equal(s.max_writes_in_flight, 4);
	assert_true(s.writes_with_reads > 0);
	assert_int_equal(c.max_writes_in_flight, 2);
	assert_true(m.max_writes_in_flight > 4);
	assert_int_equal(m.writes_with_reads, 0);
}

/* Samsung's throttle rule: async waits behind in-flight sync only when
 * !hw_tag && throttle_async. A 4-tag queue never reaches CFQ_HW_QUEUE_MIN
 * in the driver, so hw_tag becomes 0: then throttle_async 1 keeps writes
 * away from reads and throttle_async 0 lets them share the device. */
static void test_cfq_samsung_throttle_async_without_hw_tag(void **state)
{
	(void)state;
	struct inflight_probe on = { 0 }, off = { 0 };
	int64_t tag_on, tag_off;

	run_reader_writer(DEV_4TAGS, CFQ_SAMSUNG, 500 * MS, &on, &tag_on);
	run_reader_writer(DEV_4TAGS, CFQ_SAMSUNG "throttle_async: 0\n", 500 * MS, &off, &tag_off);
	print_message("throttle 1: writes %" PRIu64 " beside a read %" PRIu64 "; throttle 0: %" PRIu64
		      " %" PRIu64 " (hw_tag %" PRId64 "/%" PRId64 ")\n",
		      on.writes_dispatched, on.writes_with_reads, off.writes_dispatched,
		      off.writes_with_reads, tag_on, tag_off);
	assert_int_equal(tag_on, 0);
	assert_int_equal(tag_off, 0);
	assert_true(on.writes_dispatched > 1000);
	assert_int_equal(on.writes_with_reads, 0);
	assert_true(off.writes_with_reads > 0);
}

/* The Samsung tunables are files of that kernel only. */
static void test_cfq_samsung_tunables_need_variant(void **state)
{
	(void)state;
	struct sim *sim = sim_new_bare(1);
	struct cfg_doc *dd = NULL, *cd = NULL;
	struct device *dev = NULL;
	struct blk_queue *q = NULL;
	struct sim_error err = { 0 };
	const char *dy = DEV_QD1, *cy = "max_async_dispatch: 8\n";

	assert_int_equal(cfg_load_string(dy, strlen(dy), "dev", &dd, &err), 0);
	assert_int_equal(device_create(sim, cfg_root(dd), &dev, &err), 0);
	assert_int_equal(cfg_load_string(cy, strlen(cy), "cfq.yaml", &cd, &err), 0);
	assert_int_equal(blk_queue_create(sim, dev, NULL, "cfq", cfg_root(cd), &q, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "samsung-exynos7420"));
	device_destroy(dev);
	sim_destroy(sim);
	cfg_free(dd);
	cfg_free(cd);
}

/* cfq_update_hw_tag: a deep device (32 tags) that the driver fills with
 * >= CFQ_HW_QUEUE_MIN requests sets hw_tag = 1 after 50 samples, and a
 * non-rotational queue with hw_tag does not idle. */
static void test_cfq_hw_tag_detected_on_deep_device(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", "model: ideal\nservice: fixed\nmean_us: 200\nservers: 32\n"
				  "queue_depth: 32\n", "nonrot: true\n");
	struct stream r[4];

	for (int i = 0; i < 4; i++)
		stream_init(&r[i], h, i + 1, IOPRIO_CLASS_BE, 4, 0, 64, (uint64_t)i * 50000000, 8, 0, 0);
	h_run(h, 500 * MS);
	assert_int_equal(h_stat(h, "hw_tag"), 1);
	int64_t w0 = h_stat(h, "idle_waits");
	h_run(h, 1000 * MS);
	assert_int_equal(h_stat(h, "idle_waits"), w0);
	h_free(h);
}

/* Tunables go through the cfg_param table: out of range is an input
 * error that names the key and its position. */
static void test_cfq_rejects_bad_tunable(void **state)
{
	(void)state;
	struct sim *sim = sim_new_bare(1);
	struct cfg_doc *dd = NULL, *cd = NULL;
	struct device *dev = NULL;
	struct blk_queue *q = NULL;
	struct sim_error err = { 0 };
	const char *dy = DEV_QD1, *cy = "hz: 5\n";

	assert_int_equal(cfg_load_string(dy, strlen(dy), "dev", &dd, &err), 0);
	assert_int_equal(device_create(sim, cfg_root(dd), &dev, &err), 0);
	assert_int_equal(cfg_load_string(cy, strlen(cy), "cfq.yaml", &cd, &err), 0);
	assert_int_equal(blk_queue_create(sim, dev, NULL, "cfq", cfg_root(cd), &q, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "cfq.yaml:1:"));
	assert_non_null(strstr(err.msg, "hz"));
	device_destroy(dev);
	sim_destroy(sim);
	cfg_free(dd);
	cfg_free(cd);
}

/* >= 4.x cfq_registered_queue(): slice_idle = 0 on a non-rotational
 * queue; 3.10 keeps HZ/125. */
static void test_cfq_kernel_44_nonrot_slice_idle_zero(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, "kernel_variant: \"4.4\"\nnonrot: true\n");
	struct harness *k = h_new("cfq", DEV_QD1, "kernel_variant: \"3.10\"\nnonrot: true\n");
	assert_int_equal(h_stat(h, "slice_idle_jiffies"), 0);
	assert_int_equal(h_stat(k, "slice_idle_jiffies"), 8);
	h_free(h);
	h_free(k);
}

/* cfq_forced_dispatch: force drains every queue onto the dispatch list. */
static void test_cfq_forced_dispatch_drains(void **state)
{
	(void)state;
	struct harness *h = h_new("cfq", DEV_QD1, CFQ_ROT);
	struct stream r, w;
	struct elevator *e = blk_queue_elevator(h->q);

	stream_init(&r, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 4, 0, 0);
	stream_init(&w, h, 2, IOPRIO_CLASS_IDLE, 0, REQ_WRITE, 256, 10000000, 8, 0, 0);
	r.stop_ns = w.stop_ns = 1;
	h_run(h, 1 * US);
	assert_false(e->ops->queue_empty(e));
	/* one read on the device, 3 reads and 8 writes queued */
	assert_int_equal(e->ops->dispatch(e, true), 11);
	assert_true(e->ops->queue_empty(e));
	assert_int_equal(e->ops->dispatch(e, false), 0);
	h_run(h, 100 * MS);
	assert_int_equal(r.done + w.done, 12);
	assert_int_equal(blk_queue_outstanding(h->q), 0);
	h_free(h);
}

/* One sync 4 KiB reader at QD1 and a flood of 128 KiB async writes: CFQ
 * keeps read latency far below noop's, where reads queue behind writes. */
static void run_reader_vs_writer(const char *sched, const char *cfq_yaml, double *mean_us,
				 double *p99_us)
{
	struct harness *h = h_new(sched, "model: ideal\nservice: fixed\nmean_us: 100\n"
					 "per_kib_ns: 2000\nqueue_depth: 1\n",
				  cfq_yaml);
	struct stream r, w;

	stream_init(&r, h, 1, IOPRIO_CLASS_BE, 4, 0, 8, 0, 1, 1 * MS, 0);
	stream_init(&w, h, 2, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 256, 100000000, 32, 0, 0);
	w.stride = 512;
	r.stride = 100003; /* random-ish: far apart */
	r.win_from = 500 * MS;
	r.win_to = 5000 * MS;
	h_run(h, 5000 * MS);
	*mean_us = stats_dist_mean(&r.lat_window) / 1000.0;
	print_message("%s: reads %" PRIu64 " max %.0f us, writes %" PRIu64 "\n", sched, r.lat_window.n,
		      (double)r.lat_window.max / 1000.0, w.done);
	*p99_us = (double)stats_dist_percentile(&r.lat_window, 99.0) / 1000.0;
	h_free(h);
}

static void test_cfq_read_latency_vs_noop(void **state)
{
	(void)state;
	double cm, cp, nm, np;
	run_reader_vs_writer("cfq", NULL, &cm, &cp);
	run_reader_vs_writer("noop", NULL, &nm, &np);
	print_message("reader vs writer flood: cfq mean %.0f us p99 %.0f us; noop mean %.0f us p99 %.0f us\n",
		      cm, cp, nm, np);
	assert_true(cm * 3 < nm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfq_class_order_rt_be_idle),
		cmocka_unit_test(test_cfq_prio_slice_ratio),
		cmocka_unit_test(test_cfq_async_starved_then_served),
		cmocka_unit_test(test_cfq_idling_keeps_slice),
		cmocka_unit_test(test_cfq_slice_idle_zero_disables_idling),
		cmocka_unit_test(test_cfq_hz100_slice_idle_one_jiffy),
		cmocka_unit_test(test_cfq_front_merge_and_no_sync_into_async),
		cmocka_unit_test(test_cfq_boost_lba_async_dispatched_next),
		cmocka_unit_test(test_cfq_fifo_expiry_serves_old_request),
		cmocka_unit_test(test_cfq_rt_preempts_be),
		cmocka_unit_test(test_cfq_close_cooperators_take_turns),
		cmocka_unit_test(test_cfq_prio_request_preempts),
		cmocka_unit_test(test_cfq_nonrot_needs_hw_tag),
		cmocka_unit_test(test_cfq_low_latency_scales_slices),
		cmocka_unit_test(test_cfq_async_queue_shared_per_prio),
		cmocka_unit_test(test_cfq_no_async_while_sync_in_flight),
		cmocka_unit_test(test_cfq_hw_tag_detected_on_deep_device),
		cmocka_unit_test(test_cfq_samsung_async_cap),
		cmocka_unit_test(test_cfq_samsung_throttle_async_without_hw_tag),
		cmocka_unit_test(test_cfq_samsung_tunables_need_variant),
		cmocka_unit_test(test_cfq_kernel_44_nonrot_slice_idle_zero),
		cmocka_unit_test(test_cfq_rejects_bad_tunable),
		cmocka_unit_test(test_cfq_forced_dispatch_drains),
		cmocka_unit_test(test_cfq_read_latency_vs_noop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
