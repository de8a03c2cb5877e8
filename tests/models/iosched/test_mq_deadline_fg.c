/* mq-deadline's foreground-aware mode (models/iosched/mq_deadline.c,
 * dd_set_fg_aware; the fgcfq policy on blk-mq): an FG read or FG sync write
 * goes ahead of queued BG writes, even in the middle of a write batch,
 * where plain mq-deadline makes it wait for the batch or the sector sweep;
 * with fg_bg_depth set, BG writes at the device stay within it while FG
 * requests are queued or in flight, and without it they are not bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "models/iosched/mq_deadline.h"
#include "tests/models/block/mq_rig.h"

#define NBG 40
#define BG_PID 100
#define FG_PID 7

struct fg_case {
	struct mq_rig *r;
	struct io_context bg_ioc, fg_ioc;
	struct bio bg[NBG], fg;
	struct sim_event ev;
	uint32_t fg_flags;
	int64_t fg_lat;
	int bg_inflight, bg_inflight_max;
};

static void fc_sink(void *ctx, const struct blk_trace_event *e)
{
	struct fg_case *c = ctx;

	if (e->pid != BG_PID)
		return;
	if (e->action == 'D' && ++c->bg_inflight > c->bg_inflight_max)
		c->bg_inflight_max = c->bg_inflight;
	else if (e->action == 'C')
		c->bg_inflight--;
}

static void fc_end(struct sim *sim, struct bio *b)
{
	(void)sim;
	(void)b;
}

static void fc_fg_end(struct sim *sim, struct bio *b)
{
	struct fg_case *c = b->private;

	c->fg_lat = sim_now(sim) - b->t_queue;
}

static void fc_fg_fire(struct sim *sim, struct sim_event *ev)
{
	struct fg_case *c = container_of(ev, struct fg_case, ev);

	(void)sim;
	c->fg.sector = 50000000;
	c->fg.nr_sectors = 8;
	c->fg.flags = c->fg_flags;
	c->fg.ioc = &c->fg_ioc;
	c->fg.end_io = fc_fg_end;
	c->fg.private = c;
	blk_submit_bio(c->r->q, NULL, &c->fg, NULL);
}

static void fc_init(struct fg_case *c, bool fg_mode, const char *blk, const char *sched_yaml)
{
	struct blk_trace_sink sink = { fc_sink, c };

	memset(c, 0, sizeof(*c));
	c->r = mq_rig_new_servers("mq-deadline", 1000, 32, 32, blk, sched_yaml);
	assert_int_equal(blk_add_trace_sink(c->r->q, &sink), 0);
	if (fg_mode)
		assert_int_equal(dd_set_fg_aware(blk_queue_elevator(c->r->q), true), 0);
	c->bg_ioc.pid = c->bg_ioc.tgid = BG_PID;
	c->bg_ioc.ioprio_class = IOPRIO_CLASS_BE;
	c->bg_ioc.ioprio_level = IOPRIO_NORM;
	c->fg_ioc = c->bg_ioc;
	c->fg_ioc.pid = c->fg_ioc.tgid = FG_PID;
	c->fg_ioc.fg = true;
}

static void fc_submit_bg(struct fg_case *c)
{
	for (int i = 0; i < NBG; i++) {
		c->bg[i].sector = (uint64_t)i * 1000;
		c->bg[i].nr_sectors = 8;
		c->bg[i].flags = REQ_WRITE;
		c->bg[i].ioc = &c->bg_ioc;
		c->bg[i].end_io = fc_end;
		assert_int_equal(blk_submit_bio(c->r->q, NULL, &c->bg[i], NULL), BLK_SUBMIT_DONE);
	}
}

/* One command at a time: 40 BG writes queue, a write batch starts; the FG
 * request comes at 0.5 ms. Its latency. */
static int64_t fg_latency(bool fg_mode, uint32_t fg_flags)
{
	struct fg_case c;
	int64_t lat;

	fc_init(&c, fg_mode, "sdev_queue_depth: 1\nnr_requests: 256\n", NULL);
	c.fg_flags = fg_flags;
	fc_submit_bg(&c);
	sim_event_init(&c.ev, fc_fg_fire);
	sim_at(c.r->sim, &c.ev, MS / 2);
	mq_rig_run(c.r);
	lat = c.fg_lat;
	mq_rig_free(c.r);
	return lat;
}

static void test_mq_deadline_fg_read_ahead_of_bg_writes(void **state)
{
	(void)state;
	int64_t plain = fg_latency(false, REQ_FG), fg = fg_latency(true, REQ_FG);

	fprintf(stderr, "FG read behind 40 BG writes: plain %.1f ms, fg_aware %.1f ms\n",
		plain / 1e6, fg / 1e6);
	/* next after the write at the device: 0.5 ms + 1 ms */
	assert_true(fg <= 2 * MS);
	/* plain: the write batch (fifo_batch 16) runs first */
	assert_true(plain >= 10 * MS);
}

/* An fsync write of the FG task: plain mq-deadline sorts it among the BG
 * writes (its sector is the highest: last of the sweep). */
static void test_mq_deadline_fg_sync_write_ahead(void **state)
{
	(void)state;
	uint32_t f = REQ_WRITE | REQ_SYNC | REQ_FG;
	int64_t plain = fg_latency(false, f), fg = fg_latency(true, f);

	fprintf(stderr, "FG sync write behind 40 BG writes: plain %.1f ms, fg_aware %.1f ms\n",
		plain / 1e6, fg / 1e6);
	assert_true(fg <= 2 * MS);
	assert_true(plain >= 30 * MS);
}

/* 32 commands at once; an FG read stream (QD1, no think time) runs the
 * whole time, so FG is always active. */
static int bg_depth_max(bool fg_mode, const char *sched_yaml, json_t **fgstats)
{
	struct fg_case c;
	struct mq_stream fg;
	json_t *root;
	int m;

	fc_init(&c, fg_mode, "nr_requests: 256\n", sched_yaml);
	mq_stream_start(&fg, c.r, FG_PID, 60000000, REQ_FG, 8, 1, 0, 0, 30 * MS);
	fg.ioc.fg = true;
	fc_submit_bg(&c);
	mq_rig_run(c.r);
	m = c.bg_inflight_max;
	assert_int_equal(c.bg_inflight, 0);
	*fgstats = json_incref(json_object_get(mq_rig_sched_stats(c.r, &root), "fg"));
	json_decref(root);
	mq_rig_free(c.r);
	return m;
}

static void test_mq_deadline_fg_bg_depth_bound(void **state)
{
	(void)state;
	json_t *s_plain, *s_free, *s_bound;
	int plain = bg_depth_max(false, NULL, &s_plain);
	int free_ = bg_depth_max(true, NULL, &s_free);
	int bound = bg_depth_max(true, "fg_bg_depth: 2\n", &s_bound);

	fprintf(stderr, "BG writes at the device with an FG stream: plain %d, fg_aware %d, "
		"fg_bg_depth 2: %d\n", plain, free_, bound);
	assert_null(s_plain); /* no fg stats without the mode */
	assert_true(plain > 8);
	assert_true(free_ > 8);   /* default: not bounded */
	assert_int_equal(bound, 2);
	assert_true(json_integer_value(json_object_get(s_bound, "bg_throttled")) > 0);
	assert_int_equal(json_integer_value(json_object_get(s_bound, "bg_write_bound")), 2);
	assert_true(json_integer_value(json_object_get(s_free, "dispatched")) > 10);
	json_decref(s_free);
	json_decref(s_bound);
}

static void test_mq_deadline_fg_set_only_on_mq_deadline(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("kyber", 1000, 32, NULL, NULL);

	assert_false(dd_is(blk_queue_elevator(r->q)));
	assert_int_equal(dd_set_fg_aware(blk_queue_elevator(r->q), true), SIM_E_INPUT);
	assert_false(dd_is(NULL));
	mq_rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mq_deadline_fg_read_ahead_of_bg_writes),
		cmocka_unit_test(test_mq_deadline_fg_sync_write_ahead),
		cmocka_unit_test(test_mq_deadline_fg_bg_depth_bound),
		cmocka_unit_test(test_mq_deadline_fg_set_only_on_mq_deadline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
