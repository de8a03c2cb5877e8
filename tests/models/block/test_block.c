/* Block layer: merge rules and limits, plugging, request limits and
 * sleepers, conservation and btt ordering, the device's view.
 * Every test builds its own simulator (sim_new_bare) over an ideal device
 * with a fixed service time, so timings are exact.
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

#include "models/block/block.h"
#include "models/device/device.h"
#include "models/block/elevator.h"
#include "sim/config.h"
#include "sim/sim.h"

extern const struct elevator_ops noop_elevator_ops;

/* ------------------------------------------------------------ harness */

#define MAX_EV 4096
#define MAX_BIO 4096

struct tb {
	struct sim *sim;
	struct cfg_doc *dev_doc, *blk_doc;
	struct device *dev;
	struct blk_queue *q;
	struct blk_trace_event ev[MAX_EV];
	int nev;
	struct bio bios[MAX_BIO];
	int ended[MAX_BIO];
	int nbio;
	uint32_t max_inflight_at_d;
	/* btt order check: wraps the queue's completion callback */
	void (*orig_complete)(void *upper, struct io_request *rq);
	void *orig_upper;
	int btt_checked, btt_bad;
};

static void tb_sink(void *ctx, const struct blk_trace_event *e)
{
	struct tb *t = ctx;

	if (e->action == 'D' && t->dev->inflight + 1 > t->max_inflight_at_d)
		t->max_inflight_at_d = t->dev->inflight + 1;
	if (t->nev < MAX_EV)
		t->ev[t->nev++] = *e;
}

static void tb_check_complete(void *upper, struct io_request *rq)
{
	struct tb *t = upper;

	t->btt_checked++;
	if (!(rq->t_queue <= rq->t_getrq && rq->t_getrq <= rq->t_insert &&
	      rq->t_insert <= rq->t_dispatch && rq->t_dispatch <= rq->t_complete))
		t->btt_bad++;
	t->orig_complete(t->orig_upper, rq);
}

static struct tb *tb_new_ops(const char *devcfg, const char *blkcfg, const struct elevator_ops *ops,
			     const char *sched_yaml)
{
	struct tb *t = calloc(1, sizeof(*t));
	struct sim_error err = { 0 };
	struct cfg_doc *sdoc = NULL;

	assert_non_null(t);
	t->sim = sim_new_bare(1);
	assert_non_null(t->sim);
	assert_int_equal(cfg_load_string(devcfg, strlen(devcfg), "dev", &t->dev_doc, &err), 0);
	assert_int_equal(device_create(t->sim, cfg_root(t->dev_doc), &t->dev, &err), 0);
	if (blkcfg)
		assert_int_equal(cfg_load_string(blkcfg, strlen(blkcfg), "blk", &t->blk_doc, &err), 0);
	if (sched_yaml)
		assert_int_equal(cfg_load_string(sched_yaml, strlen(sched_yaml), "sched", &sdoc, &err), 0);
	int rc = blk_queue_create_ops(t->sim, t->dev, blkcfg ? cfg_root(t->blk_doc) : NULL, ops,
				      sdoc ? cfg_root(sdoc) : NULL, &t->q, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	assert_int_equal(rc, 0);
	if (sdoc)
		cfg_free(sdoc);
	struct blk_trace_sink sink = { tb_sink, t };
	blk_set_trace_sink(t->q, &sink);
	t->orig_complete = t->dev->on_complete;
	t->orig_upper = t->dev->upper;
	t->dev->on_complete = tb_check_complete;
	t->dev->upper = t;
	return t;
}

#define DEV_QD1 "model: ideal\nservice: fixed\nmean_us: 100\nqueue_depth: 1\n"

static struct tb *tb_new(const char *blkcfg, const char *sched)
{
	return tb_new_ops(DEV_QD1, blkcfg, elevator_find(sched), NULL);
}

static void tb_free(struct tb *t)
{
	blk_queue_destroy(t->q);
	device_destroy(t->dev);
	cfg_free(t->dev_doc);
	if (t->blk_doc)
		cfg_free(t->blk_doc);
	sim_destroy(t->sim);
	free(t);
}

static void tb_end_io(struct sim *sim, struct bio *bio)
{
	(void)sim;
	(*(int *)bio->private)++;
}

static struct bio *tb_bio(struct tb *t, uint64_t sector, uint32_t nr, uint32_t flags)
{
	assert_true(t->nbio < MAX_BIO);
	struct bio *b = &t->bios[t->nbio];
	memset(b, 0, sizeof(*b));
	b->sector = sector;
	b->nr_sectors = nr;
	b->flags = flags;
	b->end_io = tb_end_io;
	b->private = &t->ended[t->nbio];
	t->nbio++;
	return b;
}

static enum blk_submit_result tb_submit(struct tb *t, struct blk_plug *plug, uint64_t sector,
					uint32_t nr, uint32_t flags)
{
	return blk_submit_bio(t->q, plug, tb_bio(t, sector, nr, flags), NULL);
}

static int tb_count(const struct tb *t, char action)
{
	int n = 0;
	for (int i = 0; i < t->nev; i++)
		n += t->ev[i].action == action;
	return n;
}

/* The i-th event with this action, or NULL. */
static const struct blk_trace_event *tb_nth(const struct tb *t, char action, int i)
{
	for (int k = 0; k < t->nev; k++)
		if (t->ev[k].action == action && i-- == 0)
			return &t->ev[k];
	return NULL;
}

static void tb_run(struct tb *t)
{
	sim_engine_run(&t->sim->engine, SIM_TIME_MAX);
}

static void tb_assert_all_ended_once(const struct tb *t)
{
	for (int i = 0; i < t->nbio; i++)
		assert_int_equal(t->ended[i], 1);
	struct sim_error err = { 0 };
	int rc = blk_queue_check(t->q, true, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	assert_int_equal(rc, 0);
}

/* A far-away read that keeps the QD1 device busy so that what follows
 * stays queued in the scheduler. */
static void tb_block_device(struct tb *t)
{
	assert_int_equal(tb_submit(t, NULL, 1u << 30, 8, 0), BLK_SUBMIT_DONE);
}

/* -------------------------------------------------------------- merges */

static void test_block_back_merge_into_queued_request(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "noop");
	tb_block_device(t);
	tb_submit(t, NULL, 0, 8, REQ_WRITE);
	tb_submit(t, NULL, 8, 8, REQ_WRITE);
	tb_submit(t, NULL, 16, 8, REQ_WRITE);
	assert_int_equal(tb_count(t, 'M'), 2);
	assert_int_equal(tb_count(t, 'G'), 2); /* the blocker and one write */
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 2);
	assert_int_equal(tb_nth(t, 'D', 1)->nr_sectors, 24);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

static void test_block_front_merge_through_sort_tree(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "deadline");
	tb_block_device(t);
	tb_submit(t, NULL, 100, 8, REQ_WRITE);
	tb_submit(t, NULL, 5000, 8, REQ_WRITE); /* becomes nobody's last_merge target */
	tb_submit(t, NULL, 92, 8, REQ_WRITE);   /* ends where the first starts */
	assert_int_equal(tb_count(t, 'F'), 1);
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 3);
	int found = 0;
	for (int i = 0; i < 3; i++) {
		const struct blk_trace_event *d = tb_nth(t, 'D', i);
		if (d->sector == 92 && d->nr_sectors == 16)
			found = 1;
	}
	assert_true(found);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

static void test_block_no_merge_across_direction_or_flush(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "noop");
	tb_block_device(t);
	tb_submit(t, NULL, 0, 8, REQ_WRITE);
	tb_submit(t, NULL, 8, 8, 0);                   /* a read after a write */
	tb_submit(t, NULL, 16, 8, REQ_WRITE | REQ_FUA); /* FUA never merges */
	tb_submit(t, NULL, 24, 8, REQ_WRITE);          /* nor does anything into it */
	assert_int_equal(tb_count(t, 'M') + tb_count(t, 'F'), 0);
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 5);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* 64 KiB bios, contiguous: max_sectors_kib 512 caps a request at 8. */
static void test_block_max_sectors_512k(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "noop");
	tb_block_device(t);
	for (int i = 0; i < 12; i++)
		tb_submit(t, NULL, (uint64_t)i * 128, 128, REQ_WRITE);
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 3);
	assert_int_equal(tb_nth(t, 'D', 1)->nr_sectors, 1024); /* 512 KiB exactly */
	assert_int_equal(tb_nth(t, 'D', 2)->nr_sectors, 4 * 128);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* max_segments binds before max_sectors; a bio bigger than
 * max_segment_size counts several segments. */
static void test_block_segment_limits(void **state)
{
	(void)state;
	struct tb *t = tb_new("max_segments: 4\n", "noop");
	tb_block_device(t);
	for (int i = 0; i < 6; i++)
		tb_submit(t, NULL, (uint64_t)i * 8, 8, REQ_WRITE); /* 4 KiB, one segment each */
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 3);
	assert_int_equal(tb_nth(t, 'D', 1)->nr_sectors, 32);
	assert_int_equal(tb_nth(t, 'D', 2)->nr_sectors, 16);
	tb_assert_all_ended_once(t);
	tb_free(t);

	t = tb_new("max_segments: 4\nmax_segment_size_kib: 64\n", "noop");
	tb_block_device(t);
	for (int i = 0; i < 3; i++)
		tb_submit(t, NULL, (uint64_t)i * 256, 256, REQ_WRITE); /* 128 KiB = 2 segments */
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 3);
	assert_int_equal(tb_nth(t, 'D', 1)->nr_sectors, 512);
	assert_int_equal(tb_nth(t, 'D', 2)->nr_sectors, 256);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* A scheduler that forbids sync bios into async requests, as CFQ does
 * (cfq_allow_merge). */
static bool forbid_sync_into_async(struct elevator *e, struct io_request *rq, struct bio *bio)
{
	(void)e;
	return !(req_is_sync(bio->flags) && !req_is_sync(rq->flags));
}

static void test_block_no_sync_into_async_when_elevator_forbids(void **state)
{
	(void)state;
	struct elevator_ops ops = noop_elevator_ops;
	ops.allow_merge = forbid_sync_into_async;
	struct tb *t = tb_new_ops(DEV_QD1, NULL, &ops, NULL);
	tb_block_device(t);
	tb_submit(t, NULL, 0, 8, REQ_WRITE);             /* async */
	tb_submit(t, NULL, 8, 8, REQ_WRITE | REQ_SYNC);  /* sync: refused */
	assert_int_equal(tb_count(t, 'M'), 0);
	tb_submit(t, NULL, 100, 8, REQ_WRITE | REQ_SYNC);
	tb_submit(t, NULL, 108, 8, REQ_WRITE);           /* async into sync: fine */
	assert_int_equal(tb_count(t, 'M'), 1);
	tb_run(t);
	tb_assert_all_ended_once(t);
	tb_free(t);

	/* The core alone (noop) lets them merge, as blk_rq_merge_ok does. */
	t = tb_new(NULL, "noop");
	tb_block_device(t);
	tb_submit(t, NULL, 0, 8, REQ_WRITE);
	tb_submit(t, NULL, 8, 8, REQ_WRITE | REQ_SYNC);
	assert_int_equal(tb_count(t, 'M'), 1);
	tb_run(t);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* After a bio fills the gap between two queued requests, they merge
 * (attempt_back_merge). */
static void test_block_merge_fills_gap_between_requests(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "deadline");
	tb_block_device(t);
	tb_submit(t, NULL, 0, 8, REQ_WRITE);
	tb_submit(t, NULL, 16, 8, REQ_WRITE);
	tb_submit(t, NULL, 8, 8, REQ_WRITE); /* back-merges into [0,8), then [16,24) joins */
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 2);
	assert_int_equal(tb_nth(t, 'D', 1)->sector, 0);
	assert_int_equal(tb_nth(t, 'D', 1)->nr_sectors, 24);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* A flush/FUA request bypasses the scheduler (ELEVATOR_INSERT_FLUSH): it
 * goes ahead of everything queued there. */
static void test_block_flush_bypasses_scheduler(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "deadline");
	tb_block_device(t);
	tb_submit(t, NULL, 0, 8, REQ_WRITE);
	tb_submit(t, NULL, 1000, 8, REQ_WRITE);
	tb_submit(t, NULL, 5000, 0, REQ_WRITE | REQ_FLUSH | REQ_SYNC);
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 4);
	assert_true(tb_nth(t, 'D', 1)->flags & REQ_FLUSH);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* A scheduler that hands everything over at once through
 * elv_dispatch_sort: ascending sector order within a direction, never
 * sorted past a request of the other direction. */
struct sortall {
	struct list_head q;
};

static int sortall_init(struct elevator *e, struct sim_error *err)
{
	(void)err;
	list_init(&((struct sortall *)e->priv)->q);
	return 0;
}

static void sortall_add(struct elevator *e, struct io_request *rq)
{
	list_add_tail(&rq->queuelist, &((struct sortall *)e->priv)->q);
}

static int sortall_dispatch(struct elevator *e, bool force)
{
	struct sortall *sa = e->priv;
	int n = 0;

	(void)force;
	while (!list_empty(&sa->q)) {
		struct io_request *rq = list_first_entry(&sa->q, struct io_request, queuelist);
		list_del_init(&rq->queuelist);
		elv_dispatch_sort(e->q, rq);
		n++;
	}
	return n;
}

static bool sortall_empty(struct elevator *e)
{
	return list_empty(&((struct sortall *)e->priv)->q);
}

static void test_block_dispatch_sort_order(void **state)
{
	(void)state;
	static const struct elevator_ops sortall_ops = {
		.name = "sortall",
		.priv_size = sizeof(struct sortall),
		.init = sortall_init,
		.add_request = sortall_add,
		.dispatch = sortall_dispatch,
		.queue_empty = sortall_empty,
	};
	struct tb *t = tb_new_ops(DEV_QD1, NULL, &sortall_ops, NULL);

	/* held in the scheduler while the device is busy, then handed over
	 * in one dispatch call, in this (arrival) order */
	tb_block_device(t);
	tb_submit(t, NULL, 500, 8, 0);
	tb_submit(t, NULL, 100, 8, 0);
	tb_submit(t, NULL, 300, 8, 0);
	tb_submit(t, NULL, 50, 8, REQ_WRITE);
	tb_submit(t, NULL, 200, 8, 0);
	tb_run(t);
	/* reads sorted among themselves; the write stops the walk, so it and
	 * the read after it stay behind */
	static const uint64_t want[] = { 1u << 30, 100, 300, 500, 50, 200 };
	for (int i = 0; i < 6; i++)
		assert_int_equal(tb_nth(t, 'D', i)->sector, want[i]);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* ------------------------------------------------------------ plugging */

static void test_block_plug_flush_at_16(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "noop");
	struct blk_plug plug;
	blk_start_plug(&plug, NULL);
	for (int i = 0; i < 16; i++)
		tb_submit(t, &plug, (uint64_t)i * 1000, 8, REQ_WRITE);
	assert_int_equal(tb_count(t, 'I'), 0);
	assert_int_equal(tb_count(t, 'P'), 1);
	assert_int_equal(plug.count, 16);
	tb_submit(t, &plug, 99000, 8, REQ_WRITE); /* the 17th flushes the 16 */
	assert_int_equal(tb_count(t, 'U'), 1);
	assert_int_equal(tb_nth(t, 'U', 0)->depth, 16);
	assert_int_equal(tb_count(t, 'I'), 16);
	assert_int_equal(tb_count(t, 'D'), 1);    /* explicit unplug runs the queue */
	assert_int_equal(plug.count, 1);
	assert_int_equal(tb_count(t, 'P'), 2);
	blk_finish_plug(t->q, &plug);
	assert_int_equal(tb_count(t, 'U'), 2);
	assert_int_equal(tb_nth(t, 'U', 1)->depth, 1);
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 17);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

static void test_block_plug_flush_on_sleep_defers_run(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "noop");
	struct blk_plug plug;
	blk_start_plug(&plug, NULL);
	for (int i = 0; i < 3; i++)
		tb_submit(t, &plug, (uint64_t)i * 1000, 8, 0);
	blk_flush_plug_on_sleep(t->q, &plug);
	assert_int_equal(tb_count(t, 'U'), 1);
	assert_int_equal(tb_nth(t, 'U', 0)->depth, 3);
	assert_int_equal(tb_count(t, 'I'), 3);
	assert_int_equal(tb_count(t, 'D'), 0); /* kblockd runs the queue */
	sim_engine_step(&t->sim->engine);
	assert_int_equal(tb_count(t, 'D'), 1);
	blk_finish_plug(t->q, &plug);          /* nothing left: no second U */
	assert_int_equal(tb_count(t, 'U'), 1);
	tb_run(t);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

static void test_block_plug_merge_and_sorted_flush(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "noop");
	struct blk_plug plug;
	blk_start_plug(&plug, NULL);
	tb_submit(t, &plug, 16, 8, REQ_WRITE); /* A */
	tb_submit(t, &plug, 0, 8, REQ_WRITE);  /* B */
	tb_submit(t, &plug, 8, 8, REQ_WRITE);  /* back-merges into B inside the plug */
	assert_int_equal(tb_count(t, 'M'), 1);
	assert_int_equal(plug.count, 2);
	tb_submit(t, &plug, 3000, 8, REQ_WRITE);
	tb_submit(t, &plug, 1000, 8, REQ_WRITE);
	blk_finish_plug(t->q, &plug);
	/* Sorted by sector on the way out; B+A merge on insertion. */
	assert_int_equal(tb_nth(t, 'I', 0)->sector, 0);
	assert_int_equal(tb_nth(t, 'I', 1)->sector, 16);
	assert_int_equal(tb_nth(t, 'I', 2)->sector, 1000);
	assert_int_equal(tb_nth(t, 'I', 3)->sector, 3000);
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 3);
	assert_int_equal(tb_nth(t, 'D', 0)->sector, 0);
	assert_int_equal(tb_nth(t, 'D', 0)->nr_sectors, 24);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* ----------------------------------------------------------- get_request */

struct wake_rec {
	struct blk_waiter w;
	int order;
	int *counter;
};

static void rec_wake(struct sim *sim, struct blk_waiter *w)
{
	(void)sim;
	struct wake_rec *r = container_of(w, struct wake_rec, w);
	r->order = ++*r->counter;
}

static void test_block_get_request_sleeps_at_nr_requests(void **state)
{
	(void)state;
	struct tb *t = tb_new("nr_requests: 4\n", "noop");
	int counter = 0;
	struct wake_rec w[3] = { 0 };
	for (int i = 0; i < 3; i++) {
		w[i].w.wake = rec_wake;
		w[i].counter = &counter;
	}
	w[1].w.accounts_wait = true; /* this one records its wait itself */
	for (int i = 0; i < 4; i++)
		assert_int_equal(tb_submit(t, NULL, (uint64_t)i * 1000, 8, REQ_WRITE), BLK_SUBMIT_DONE);
	assert_int_equal(blk_queue_outstanding(t->q), 4);
	/* async list full */
	assert_int_equal(blk_submit_bio(t->q, NULL, tb_bio(t, 9000, 8, REQ_WRITE), &w[0].w),
			 BLK_SUBMIT_SLEEP);
	assert_int_equal(tb_count(t, 'S'), 1);
	/* sync requests are counted apart */
	for (int i = 0; i < 4; i++)
		assert_int_equal(tb_submit(t, NULL, 50000 + (uint64_t)i * 1000, 8, 0), BLK_SUBMIT_DONE);
	assert_int_equal(blk_submit_bio(t->q, NULL, tb_bio(t, 90000, 8, 0), &w[1].w),
			 BLK_SUBMIT_SLEEP);
	assert_int_equal(blk_submit_bio(t->q, NULL, tb_bio(t, 9100, 8, REQ_WRITE), &w[2].w),
			 BLK_SUBMIT_SLEEP);
	assert_int_equal(tb_count(t, 'S'), 3);
	assert_int_equal(blk_queue_outstanding(t->q), 8);
	tb_run(t);
	/* the two async sleepers woke in the order they slept */
	assert_true(w[0].order > 0 && w[2].order > 0 && w[1].order > 0);
	assert_true(w[0].order < w[2].order);
	const struct sim_waitstat *ws = &t->sim->metrics.cls[SIM_CLASS_BG].wait[SIM_WAIT_GET_REQUEST];
	assert_int_equal(ws->count, 2);
	assert_true(ws->max_ns >= 100000); /* at least one service time */
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* The task whose allocation fills the list becomes a batcher and may go on
 * to 3/2 nr_requests; anybody else sleeps (__get_request). */
static void test_block_get_request_batcher_passes_full_list(void **state)
{
	(void)state;
	struct tb *t = tb_new("nr_requests: 8\n", "noop");
	struct io_context a = { .pid = 1, .comm = "flusher" }, b = { .pid = 2, .comm = "other" };
	struct bio *bio;

	for (int i = 0; i < 8; i++) {
		bio = tb_bio(t, (uint64_t)i * 1000, 8, REQ_WRITE);
		bio->ioc = &a;
		assert_int_equal(blk_submit_bio(t->q, NULL, bio, NULL), BLK_SUBMIT_DONE);
	}
	bio = tb_bio(t, 50000, 8, REQ_WRITE);
	bio->ioc = &b;
	assert_int_equal(blk_submit_bio(t->q, NULL, bio, NULL), BLK_SUBMIT_SLEEP);
	for (int i = 0; i < 4; i++) {
		bio = tb_bio(t, 100000 + (uint64_t)i * 1000, 8, REQ_WRITE);
		bio->ioc = &a;
		assert_int_equal(blk_submit_bio(t->q, NULL, bio, NULL), BLK_SUBMIT_DONE);
	}
	assert_int_equal(blk_queue_outstanding(t->q), 12); /* 3/2 nr_requests */
	bio = tb_bio(t, 200000, 8, REQ_WRITE);
	bio->ioc = &a;
	assert_int_equal(blk_submit_bio(t->q, NULL, bio, NULL), BLK_SUBMIT_SLEEP);
	tb_run(t);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* Congestion on at nr - nr/8 + 1 = 113 requests, off below 103. */
static void test_block_congestion_thresholds(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "noop");

	for (int i = 0; i < 112; i++)
		tb_submit(t, NULL, (uint64_t)i * 1000, 8, REQ_WRITE);
	assert_false(blk_queue_congested(t->q, false));
	tb_submit(t, NULL, 112 * 1000, 8, REQ_WRITE);
	assert_true(blk_queue_congested(t->q, false));
	assert_false(blk_queue_congested(t->q, true));
	while (blk_queue_outstanding(t->q) >= 103) {
		assert_true(blk_queue_congested(t->q, false));
		assert_true(sim_engine_step(&t->sim->engine));
	}
	assert_false(blk_queue_congested(t->q, false));
	tb_run(t);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* Sleeping in get_request flushes the sleeper's plug. */
static void test_block_get_request_sleep_flushes_plug(void **state)
{
	(void)state;
	struct tb *t = tb_new("nr_requests: 4\n", "noop");
	struct blk_plug plug;
	blk_start_plug(&plug, NULL);
	for (int i = 0; i < 4; i++)
		tb_submit(t, &plug, (uint64_t)i * 1000, 8, REQ_WRITE);
	assert_int_equal(tb_count(t, 'I'), 0);
	assert_int_equal(tb_submit(t, &plug, 9000, 8, REQ_WRITE), BLK_SUBMIT_SLEEP);
	assert_int_equal(tb_count(t, 'U'), 1);
	assert_int_equal(tb_count(t, 'I'), 4);
	tb_run(t);
	/* The woken bio went to the still-active plug. */
	assert_int_equal(plug.count, 1);
	blk_finish_plug(t->q, &plug);
	tb_run(t);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* ------------------------------------------------- conservation and btt */

struct loop {
	struct tb *t;
	struct bio bio[12];
	int left;
	uint64_t next;
	int ended;
};

static void loop_end_io(struct sim *sim, struct bio *bio)
{
	(void)sim;
	struct loop *l = bio->private;
	l->ended++;
	if (l->left-- > 0) {
		bio->sector = l->next;
		l->next += (l->left % 3 == 0) ? 8 : 64; /* some contiguous, some not */
		bio->error = 0;
		blk_submit_bio(l->t->q, NULL, bio, NULL);
	}
}

static void test_block_conservation_and_btt_order(void **state)
{
	(void)state;
	struct tb *t = tb_new_ops("model: ideal\nservice: exponential\nmean_us: 100\nqueue_depth: 4\n",
				  "nr_requests: 4\n", elevator_find("deadline"), NULL);
	struct loop l = { .t = t, .left = 2000, .next = 0 };
	for (int i = 0; i < 12; i++) {
		struct bio *b = &l.bio[i];
		b->sector = l.next;
		l.next += 8;
		b->nr_sectors = 8;
		b->flags = (i & 1) ? REQ_WRITE : 0;
		b->end_io = loop_end_io;
		b->private = &l;
		blk_submit_bio(t->q, NULL, b, NULL);
	}
	tb_run(t);
	assert_int_equal(l.ended, 2000 + 12);
	assert_true(t->btt_checked > 100);
	assert_int_equal(t->btt_bad, 0);
	assert_true(t->max_inflight_at_d <= 4);
	/* 12 submitters, 4 requests per class: some slept */
	assert_true(tb_count(t, 'S') > 0);
	struct sim_error err = { 0 };
	assert_int_equal(blk_queue_check(t->q, true, &err), 0);
	assert_int_equal(blk_queue_outstanding(t->q), 0);
	const struct stats_dist *q2c = &t->sim->metrics.cls[SIM_CLASS_BG].btt[SIM_BTT_Q2C];
	const struct stats_dist *d2c = &t->sim->metrics.cls[SIM_CLASS_BG].btt[SIM_BTT_D2C];
	assert_true(q2c->n > 0 && q2c->n == d2c->n);
	assert_true(stats_dist_mean(q2c) >= stats_dist_mean(d2c));
	tb_free(t);
}

static void test_block_qd1_device_sees_one_command_at_a_time(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "noop");
	for (int i = 0; i < 50; i++)
		tb_submit(t, NULL, (uint64_t)i * 1000, 8, i & 1 ? REQ_WRITE : 0);
	tb_run(t);
	assert_int_equal(tb_count(t, 'D'), 50);
	assert_int_equal(t->max_inflight_at_d, 1);
	/* back to back: 50 services of 100 us */
	assert_int_equal(sim_now(t->sim), 50 * 100000);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

static void test_block_fg_class_goes_to_fg_btt(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "noop");
	struct io_context fg = { .pid = 10, .fg = true, .comm = "app" };
	struct bio *b = tb_bio(t, 0, 8, 0);
	b->ioc = &fg;
	blk_submit_bio(t->q, NULL, b, NULL);
	tb_submit(t, NULL, 1000, 8, REQ_FG);
	tb_submit(t, NULL, 2000, 8, 0);
	tb_run(t);
	assert_int_equal(t->sim->metrics.cls[SIM_CLASS_FG].btt[SIM_BTT_Q2C].n, 2);
	assert_int_equal(t->sim->metrics.cls[SIM_CLASS_BG].btt[SIM_BTT_Q2C].n, 1);
	assert_int_equal(tb_nth(t, 'Q', 0)->pid, 10);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

/* ------------------------------------------------------------- boost */

static void test_block_boost_lba_noop(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "noop");
	tb_block_device(t);
	tb_submit(t, NULL, 0, 8, REQ_WRITE);
	tb_submit(t, NULL, 1000, 8, REQ_WRITE);
	tb_submit(t, NULL, 2000, 8, REQ_WRITE);
	assert_true(blk_boost_lba(t->q, 2004));   /* covered by [2000, 2008) */
	assert_false(blk_boost_lba(t->q, 5000));  /* nobody */
	assert_false(blk_boost_lba(t->q, 1u << 30)); /* at the device already */
	tb_run(t);
	assert_int_equal(tb_nth(t, 'D', 1)->sector, 2000);
	assert_true(tb_nth(t, 'D', 1)->flags & REQ_BOOSTED);
	assert_int_equal(t->q ? blk_queue_elevator(t->q)->boost_hits : 0, 1);
	assert_int_equal(blk_queue_elevator(t->q)->boost_misses, 2);
	tb_assert_all_ended_once(t);
	tb_free(t);
}

static void test_block_registry_and_bad_scheduler(void **state)
{
	(void)state;
	assert_non_null(elevator_find("noop"));
	assert_non_null(elevator_find("deadline"));
	assert_non_null(elevator_find("cfq"));
	assert_null(elevator_find("anticipatory"));
	/* bfq exists, but only on blk-mq: the single-queue path refuses it */
	assert_non_null(elevator_find("bfq"));
	assert_true(elevator_find("bfq")->mq);
	struct sim *sim = sim_new_bare(1);
	struct cfg_doc *doc;
	struct sim_error err = { 0 };
	struct device *dev;
	struct blk_queue *q;
	assert_int_equal(cfg_load_string(DEV_QD1, strlen(DEV_QD1), "dev", &doc, &err), 0);
	assert_int_equal(device_create(sim, cfg_root(doc), &dev, &err), 0);
	assert_int_equal(blk_queue_create(sim, dev, NULL, "bfq", NULL, &q, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "bfq"));
	struct cfg_doc *bdoc;
	const char *bad = "nr_requests: 2\n";
	assert_int_equal(cfg_load_string(bad, strlen(bad), "blk.yaml", &bdoc, &err), 0);
	assert_int_equal(blk_queue_create(sim, dev, cfg_root(bdoc), "noop", NULL, &q, &err),
			 SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "blk.yaml:1"));
	cfg_free(bdoc);
	device_destroy(dev);
	cfg_free(doc);
	sim_destroy(sim);
}

static void test_block_json_counters(void **state)
{
	(void)state;
	struct tb *t = tb_new(NULL, "deadline");
	tb_block_device(t);
	tb_submit(t, NULL, 0, 8, REQ_WRITE);
	tb_submit(t, NULL, 8, 8, REQ_WRITE);
	tb_run(t);
	struct json_t *j = blk_queue_to_json(t->q);
	assert_non_null(j);
	char *s = json_dumps(j, JSON_SORT_KEYS);
	assert_non_null(strstr(s, "\"max_sectors_kib\": 512"));
	assert_non_null(strstr(s, "\"back\": 1"));
	assert_non_null(strstr(s, "\"read_expire_ms\": 500"));
	free(s);
	json_decref(j);
	tb_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_back_merge_into_queued_request),
		cmocka_unit_test(test_block_front_merge_through_sort_tree),
		cmocka_unit_test(test_block_no_merge_across_direction_or_flush),
		cmocka_unit_test(test_block_max_sectors_512k),
		cmocka_unit_test(test_block_segment_limits),
		cmocka_unit_test(test_block_no_sync_into_async_when_elevator_forbids),
		cmocka_unit_test(test_block_merge_fills_gap_between_requests),
		cmocka_unit_test(test_block_flush_bypasses_scheduler),
		cmocka_unit_test(test_block_dispatch_sort_order),
		cmocka_unit_test(test_block_plug_flush_at_16),
		cmocka_unit_test(test_block_plug_flush_on_sleep_defers_run),
		cmocka_unit_test(test_block_plug_merge_and_sorted_flush),
		cmocka_unit_test(test_block_get_request_sleeps_at_nr_requests),
		cmocka_unit_test(test_block_get_request_sleep_flushes_plug),
		cmocka_unit_test(test_block_get_request_batcher_passes_full_list),
		cmocka_unit_test(test_block_congestion_thresholds),
		cmocka_unit_test(test_block_conservation_and_btt_order),
		cmocka_unit_test(test_block_qd1_device_sees_one_command_at_a_time),
		cmocka_unit_test(test_block_fg_class_goes_to_fg_btt),
		cmocka_unit_test(test_block_boost_lba_noop),
		cmocka_unit_test(test_block_registry_and_bad_scheduler),
		cmocka_unit_test(test_block_json_counters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
