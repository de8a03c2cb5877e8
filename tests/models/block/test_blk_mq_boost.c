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

#include "tests/case_table.h"
#include "tests/models/block/mq_rig.h"

#define NW 10
#define STRIDE 1000u  /* sectors between the writes: nothing merges */
#define PLUG_BASE 900000u /* the plugged writes: four at PLUG_BASE, + STRIDE ... */

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
			bc_submit(c, NW + i, PLUG_BASE + (uint64_t)i * STRIDE, REQ_WRITE, &c->plug);
		c->target = PLUG_BASE + 2 * STRIDE;
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

/* Ten writes (flags wflags) at sectors 0, STRIDE, ...; boost the one at
 * target (or a plugged one) at 0.5 ms; run to the end. */
static void bc_run(struct boost_case *c, const char *sched, const char *blk, uint32_t wflags,
		   bool plugged, uint64_t target)
{
	struct blk_trace_sink sink = { bc_sink, c };

	memset(c, 0, sizeof(*c));
	c->r = mq_rig_new(sched, 1000, 32, blk, NULL);
	assert_int_equal(blk_add_trace_sink(c->r->q, &sink), 0);
	c->wflags = wflags;
	c->plugged = plugged;
	for (int i = 0; i < NW; i++)
		bc_submit(c, i, (uint64_t)i * STRIDE, wflags, NULL);
	c->target = target;
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

/* One boost: where the request was found, whether it was lifted, which
 * request the device got second, and the counter that took it. */
struct boost_row {
	const char *name;
	const char *sched;
	uint32_t wflags;       /* flags of the ten queued writes */
	bool plugged;          /* boost a request in a task's plug instead */
	uint64_t target;       /* sector of the queued write boosted */
	enum blk_where where;
	bool hit;
	uint64_t second;       /* start sector the device gets second */
	const char *counter;   /* boost counter that must read 1 */
	const char *counter2;  /* a second one, or NULL */
	bool first_checked;    /* the device got sector 0 first */
	bool third_is_stride;  /* ... and STRIDE third: the rest keep their order */
	int nd;                /* requests dispatched in all (0: not checked) */
	bool absent_after;     /* after the run, a sector nothing covers: a miss */
};

#define PLUGGED_ROW(s)                                                                           \
	{ .name = "boost in a plug, " s, .sched = s, .wflags = REQ_WRITE, .plugged = true,         \
	  .target = 8 * STRIDE, .where = BLK_WHERE_PLUGGED, .hit = true,                          \
	  .second = PLUG_BASE + 2 * STRIDE, .counter = "plug_marked",                             \
	  .counter2 = "plug_lifted_at_insert", .nd = NW + 4 }

static const struct boost_row boost_rows[] = {
	{ .name = "boost in mq-deadline", .sched = "mq-deadline", .wflags = REQ_WRITE,
	  .target = 8 * STRIDE, .where = BLK_WHERE_SCHEDULER, .hit = true,
	  .second = 8 * STRIDE, /* next, ahead of seven older writes */
	  .counter = "scheduler", .first_checked = true, .third_is_stride = true, .nd = NW },
	{ .name = "boost in kyber", .sched = "kyber", .wflags = REQ_WRITE, .target = 8 * STRIDE,
	  .where = BLK_WHERE_SCHEDULER, .hit = true, .second = 8 * STRIDE, .counter = "scheduler",
	  .nd = NW },
	{ .name = "boost in bfq", .sched = "bfq", .wflags = REQ_WRITE, .target = 8 * STRIDE,
	  .where = BLK_WHERE_SCHEDULER, .hit = true, .second = 8 * STRIDE, .counter = "scheduler",
	  .nd = NW },
	/* none: the writes behind the busy budget wait in the software queue. */
	{ .name = "boost in none's software queue", .sched = "none", .wflags = REQ_WRITE,
	  .target = 8 * STRIDE, .where = BLK_WHERE_SCHEDULER, .hit = true, .second = 8 * STRIDE,
	  .counter = "sw_queue", .nd = NW },
	/* FUA writes (a journal commit block) bypass the scheduler onto
	 * hctx->dispatch, FIFO: the boosted one goes to its head. */
	{ .name = "boost on hctx->dispatch", .sched = "mq-deadline", .wflags = REQ_WRITE | REQ_FUA,
	  .target = 8 * STRIDE, .where = BLK_WHERE_DISPATCHED, .hit = true, .second = 8 * STRIDE,
	  .counter = "hctx_dispatch", .third_is_stride = true },
	/* In a plug: marked, and the scheduler lifts it when the plug is
	 * flushed; it overtakes the eight writes queued before the plug and
	 * its own plug-mates. */
	PLUGGED_ROW("mq-deadline"),
	PLUGGED_ROW("kyber"),
	PLUGGED_ROW("bfq"),
	PLUGGED_ROW("none"),
	/* At the device nothing can be done (the order stays); nothing
	 * covering the sector: a miss. */
	{ .name = "boost at the device, then absent", .sched = "mq-deadline", .wflags = REQ_WRITE,
	  .target = 0, .where = BLK_WHERE_DEVICE, .hit = false, .second = STRIDE,
	  .counter = "device", .absent_after = true },
};

static void test_boost_row(void **state)
{
	const struct boost_row *row = *state;
	struct boost_case c;

	bc_run(&c, row->sched, QD1, row->wflags, row->plugged, row->target);
	assert_int_equal(c.where, row->where);
	assert_int_equal(c.hit, row->hit);
	if (row->first_checked)
		assert_int_equal(c.dsector[0], 0);
	if (row->hit)
		assert_int_equal(c.dsector[1], c.target);
	assert_int_equal(c.dsector[1], row->second);
	if (row->third_is_stride)
		assert_int_equal(c.dsector[2], STRIDE);
	assert_int_equal(bc_count(&c, row->counter), 1);
	if (row->counter2)
		assert_int_equal(bc_count(&c, row->counter2), 1);
	if (row->nd)
		assert_int_equal(c.nd, row->nd);
	if (row->absent_after) {
		assert_false(blk_boost_lba(c.r->q, 5 * STRIDE)); /* all done by now */
		assert_int_equal(bc_count(&c, "absent"), 1);
	}
	bc_free(&c);
}

int main(void)
{
	struct CMUnitTest tests[CASE_COUNT(boost_rows)];

	CASE_TESTS(tests, boost_rows, test_boost_row);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
