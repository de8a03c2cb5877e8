/* The thesis's boost on blk-mq (models/block/blk_mq.c blk_mq_boost_lba and
 * the schedulers' boost_lba): the request covering a sector is found
 * wherever blk-mq holds it and goes next, counted by where it was:
 *  - in mq-deadline, kyber and bfq (their boost list), in none's software
 *    queue (to the head of hctx->dispatch), on hctx->dispatch (to its head),
 *    in a plug (marked, lifted when the plug is flushed);
 *  - at the device: a miss, counted; nothing covering it: a miss.
 * One command at a time (SCSI budget 1) of a fixed 1 ms: ten writes queue
 * behind the first, the boost comes 0.5 ms later, and the test checks
 * which request the device gets second.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/models/block/mq_rig.h"

#define NW 10
#define STRIDE 1000u  /* sectors between the writes: nothing merges */

struct boost_case {
	struct mq_rig *r;
	struct io_context ioc[NW + 4];
	struct bio bio[NW + 4];
	struct blk_plug plug;
	struct sim_event ev;
	uint64_t dsector[64];  /* dispatch order, by start sector */
	int nd;
	uint32_t wflags;       /* flags of the queued writes */
	bool plugged;          /* the boost targets a plugged request */
	uint64_t target;
	bool hit;
	enum blk_where where;
};

static void bc_sink(void *ctx, const struct blk_trace_event *e)
{
	struct boost_case *c = ctx;

	if (e->action == 'D' && c->nd < 64)
		c->dsector[c->nd++] = e->sector;
}

static void bc_end(struct sim *sim, struct bio *b)
{
	(void)sim;
	(void)b;
}

static void bc_submit(struct boost_case *c, int i, uint64_t sector, uint32_t flags,
		      struct blk_plug *plug)
{
	c->ioc[i].pid = c->ioc[i].tgid = 100 + i;
	c->ioc[i].ioprio_class = IOPRIO_CLASS_BE;
	c->ioc[i].ioprio_level = IOPRIO_NORM;
	c->bio[i].sector = sector;
	c->bio[i].nr_sectors = 8;
	c->bio[i].flags = flags;
	c->bio[i].ioc = &c->ioc[i];
	c->bio[i].end_io = bc_end;
	assert_int_equal(blk_submit_bio(c->r->q, plug, &c->bio[i], NULL), BLK_SUBMIT_DONE);
}

/* 0.5 ms: the first write is at the device, the rest queued. */
static void bc_boost(struct sim *sim, struct sim_event *ev)
{
	struct boost_case *c = container_of(ev, struct boost_case, ev);

	(void)sim;
	if (c->plugged) {
		/* a task's plug holding four writes, the third the target */
		blk_start_plug(&c->plug, &c->ioc[NW]);
		for (int i = 0; i < 4; i++)
			bc_submit(c, NW + i, 900000 + (uint64_t)i * STRIDE, REQ_WRITE, &c->plug);
		c->target = 900000 + 2 * STRIDE;
	}
	c->where = blk_locate_sector(c->r->q, c->target + 3);
	c->hit = blk_boost_lba(c->r->q, c->target + 3);
	if (c->plugged)
		blk_finish_plug(c->r->q, &c->plug);
}

static json_t *bc_counters(struct boost_case *c, json_t **root)
{
	*root = blk_queue_to_json(c->r->q);
	return json_object_get(json_object_get(json_object_get(*root, "mq"), "counters"), "boost");
}

/* Ten writes (flags wflags) at sectors 0, STRIDE, ...; boost the 9th (or
 * a plugged one) at 0.5 ms; run to the end. */
static void bc_run(struct boost_case *c, const char *sched, const char *blk, uint32_t wflags,
		   bool plugged)
{
	struct blk_trace_sink sink = { bc_sink, c };

	memset(c, 0, sizeof(*c));
	c->r = mq_rig_new(sched, 1000, 32, blk, NULL);
	assert_int_equal(blk_add_trace_sink(c->r->q, &sink), 0);
	c->wflags = wflags;
	c->plugged = plugged;
	for (int i = 0; i < NW; i++)
		bc_submit(c, i, (uint64_t)i * STRIDE, wflags, NULL);
	c->target = 8 * STRIDE;
	sim_event_init(&c->ev, bc_boost);
	sim_at(c->r->sim, &c->ev, MS / 2);
	mq_rig_run(c->r);
}

static int64_t bc_count(struct boost_case *c, const char *key)
{
	json_t *root, *b = bc_counters(c, &root);
	int64_t v = json_integer_value(json_object_get(b, key));

	json_decref(root);
	return v;
}

static void bc_free(struct boost_case *c)
{
	mq_rig_free(c->r);
}

#define QD1 "sdev_queue_depth: 1\nnr_requests: 256\n"

static void test_boost_mq_deadline_scheduler(void **state)
{
	struct boost_case c;

	(void)state;
	bc_run(&c, "mq-deadline", QD1, REQ_WRITE, false);
	assert_int_equal(c.where, BLK_WHERE_SCHEDULER);
	assert_true(c.hit);
	assert_int_equal(c.dsector[0], 0);
	assert_int_equal(c.dsector[1], c.target); /* next, ahead of seven older writes */
	assert_int_equal(c.dsector[2], STRIDE);
	assert_int_equal(bc_count(&c, "scheduler"), 1);
	assert_int_equal(c.nd, NW);
	bc_free(&c);
}

static void test_boost_kyber_scheduler(void **state)
{
	struct boost_case c;

	(void)state;
	bc_run(&c, "kyber", QD1, REQ_WRITE, false);
	assert_int_equal(c.where, BLK_WHERE_SCHEDULER);
	assert_true(c.hit);
	assert_int_equal(c.dsector[1], c.target);
	assert_int_equal(bc_count(&c, "scheduler"), 1);
	assert_int_equal(c.nd, NW);
	bc_free(&c);
}

static void test_boost_bfq_scheduler(void **state)
{
	struct boost_case c;

	(void)state;
	bc_run(&c, "bfq", QD1, REQ_WRITE, false);
	assert_int_equal(c.where, BLK_WHERE_SCHEDULER);
	assert_true(c.hit);
	assert_int_equal(c.dsector[1], c.target);
	assert_int_equal(bc_count(&c, "scheduler"), 1);
	assert_int_equal(c.nd, NW);
	bc_free(&c);
}

/* none: the writes behind the busy budget wait in the software queue. */
static void test_boost_none_software_queue(void **state)
{
	struct boost_case c;

	(void)state;
	bc_run(&c, "none", QD1, REQ_WRITE, false);
	assert_int_equal(c.where, BLK_WHERE_SCHEDULER);
	assert_true(c.hit);
	assert_int_equal(c.dsector[1], c.target);
	assert_int_equal(bc_count(&c, "sw_queue"), 1);
	assert_int_equal(c.nd, NW);
	bc_free(&c);
}

/* FUA writes (a journal commit block) bypass the scheduler onto
 * hctx->dispatch, FIFO: the boosted one goes to its head. */
static void test_boost_hctx_dispatch(void **state)
{
	struct boost_case c;

	(void)state;
	bc_run(&c, "mq-deadline", QD1, REQ_WRITE | REQ_FUA, false);
	assert_int_equal(c.where, BLK_WHERE_DISPATCHED);
	assert_true(c.hit);
	assert_int_equal(c.dsector[1], c.target);
	assert_int_equal(c.dsector[2], STRIDE);
	assert_int_equal(bc_count(&c, "hctx_dispatch"), 1);
	bc_free(&c);
}

/* In a plug: marked, and the scheduler lifts it when the plug is flushed;
 * it overtakes the eight writes queued before the plug and its own
 * plug-mates. */
static void test_boost_plugged(void **state)
{
	const char *scheds[] = { "mq-deadline", "kyber", "bfq", "none" };

	(void)state;
	for (int s = 0; s < 4; s++) {
		struct boost_case c;

		bc_run(&c, scheds[s], QD1, REQ_WRITE, true);
		assert_int_equal(c.where, BLK_WHERE_PLUGGED);
		assert_true(c.hit);
		assert_int_equal(c.dsector[1], c.target);
		assert_int_equal(bc_count(&c, "plug_marked"), 1);
		assert_int_equal(bc_count(&c, "plug_lifted_at_insert"), 1);
		assert_int_equal(c.nd, NW + 4);
		bc_free(&c);
	}
}

/* At the device nothing can be done; nothing covering the sector: a miss. */
static void test_boost_device_and_absent(void **state)
{
	struct boost_case c;

	(void)state;
	memset(&c, 0, sizeof(c));
	bc_run(&c, "mq-deadline", QD1, REQ_WRITE, false);
	bc_free(&c);
	/* again, boosting the request at the device (the first write) */
	struct blk_trace_sink sink = { bc_sink, &c };
	memset(&c, 0, sizeof(c));
	c.r = mq_rig_new("mq-deadline", 1000, 32, QD1, NULL);
	assert_int_equal(blk_add_trace_sink(c.r->q, &sink), 0);
	for (int i = 0; i < NW; i++)
		bc_submit(&c, i, (uint64_t)i * STRIDE, REQ_WRITE, NULL);
	c.target = 0;
	sim_event_init(&c.ev, bc_boost);
	sim_at(c.r->sim, &c.ev, MS / 2);
	mq_rig_run(c.r);
	assert_int_equal(c.where, BLK_WHERE_DEVICE);
	assert_false(c.hit);
	assert_int_equal(c.dsector[1], STRIDE); /* order unchanged */
	assert_int_equal(bc_count(&c, "device"), 1);
	assert_false(blk_boost_lba(c.r->q, 5 * STRIDE)); /* all done by now */
	assert_int_equal(bc_count(&c, "absent"), 1);
	bc_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boost_mq_deadline_scheduler),
		cmocka_unit_test(test_boost_kyber_scheduler),
		cmocka_unit_test(test_boost_bfq_scheduler),
		cmocka_unit_test(test_boost_none_software_queue),
		cmocka_unit_test(test_boost_hctx_dispatch),
		cmocka_unit_test(test_boost_plugged),
		cmocka_unit_test(test_boost_device_and_absent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
