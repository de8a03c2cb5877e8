/* blk-mq core (models/block/blk_mq.c): with none and no plug a request is
 * issued straight to the device (no insert), a task sleeps in
 * blk_mq_get_tag when every tag is taken and is woken by a completion,
 * plugs flush at BLK_MAX_REQUEST_COUNT (16 in 5.10, 32 in 6.1) and behind
 * a request of 128 KiB, a device that refuses a command gets it again from
 * hctx->dispatch, the default scheduler is the kernel's, and schedulers
 * only run on the queue kind they were written for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/models/block/mq_rig.h"

/* A task-like submitter: records when it was woken. */
struct sleeper {
	struct blk_waiter w;
	int64_t woke_at;
	int wakes;
};

static void sleeper_wake(struct sim *sim, struct blk_waiter *w)
{
	struct sleeper *s = container_of(w, struct sleeper, w);

	s->woke_at = sim_now(sim);
	s->wakes++;
}

static void bio_init(struct bio *b, struct io_context *ioc, uint64_t sector, uint32_t nr,
		     uint32_t flags)
{
	memset(b, 0, sizeof(*b));
	b->sector = sector;
	b->nr_sectors = nr;
	b->flags = flags;
	b->ioc = ioc;
}

static void test_blk_mq_none_issues_directly(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("none", 100, 32, NULL, NULL);
	struct io_context ioc = { .pid = 3, .tgid = 3, .ioprio_class = IOPRIO_CLASS_BE };
	struct bio b;

	bio_init(&b, &ioc, 1000, 8, 0);
	assert_int_equal(blk_submit_bio(r->q, NULL, &b, NULL), BLK_SUBMIT_DONE);
	/* dispatched at once, never inserted anywhere */
	assert_int_equal(r->nd, 1);
	assert_int_equal(r->ni, 0);
	assert_int_equal(r->dtime[0], 0);
	mq_rig_run(r);
	assert_int_equal(blk_queue_outstanding(r->q), 0);
	mq_rig_free(r);
}

/* Four driver tags (device queue depth 4) and no scheduler: the fifth
 * request's task sleeps until the first completion frees a tag. */
static void test_blk_mq_tag_exhaustion_sleeps(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("none", 1000, 4, NULL, NULL);
	struct io_context ioc = { .pid = 5, .tgid = 5, .ioprio_class = IOPRIO_CLASS_BE };
	struct bio b[6];
	struct sleeper sl = { 0 };

	sl.w.wake = sleeper_wake;
	sl.w.accounts_wait = true;
	for (int i = 0; i < 4; i++) {
		bio_init(&b[i], &ioc, 1000u + 100u * (unsigned)i, 8, 0);
		assert_int_equal(blk_submit_bio(r->q, NULL, &b[i], NULL), BLK_SUBMIT_DONE);
	}
	bio_init(&b[4], &ioc, 5000, 8, 0);
	assert_int_equal(blk_submit_bio(r->q, NULL, &b[4], &sl.w), BLK_SUBMIT_SLEEP);
	assert_int_equal(r->ns, 1);
	assert_int_equal(blk_locate_sector(r->q, 5000), BLK_WHERE_WAITING);
	mq_rig_run(r);
	assert_int_equal(sl.wakes, 1);
	assert_int_equal(sl.woke_at, 1000 * 1000); /* the first completion, 1 ms */
	assert_int_equal(r->nd, 5);
	mq_rig_free(r);
}

/* Plugging: the plug is flushed when it already holds
 * BLK_MAX_REQUEST_COUNT requests and another one comes. */
static void plug_count_case(const char *kernel, uint32_t expect)
{
	char blk[64];
	struct io_context ioc = { .pid = 9, .tgid = 9, .ioprio_class = IOPRIO_CLASS_BE };
	struct bio b[40];
	struct blk_plug plug;

	snprintf(blk, sizeof(blk), "kernel: \"%s\"\n", kernel);
	struct mq_rig *r = mq_rig_new("none", 100, 64, blk, NULL);
	blk_start_plug(&plug, &ioc);
	for (uint32_t i = 0; i < expect; i++) {
		bio_init(&b[i], &ioc, 1000u * (i + 1), 8, 0);
		blk_submit_bio(r->q, &plug, &b[i], NULL);
	}
	assert_int_equal(r->nu, 0);
	assert_int_equal(r->nd, 0);
	bio_init(&b[expect], &ioc, 1000u * (expect + 1), 8, 0);
	blk_submit_bio(r->q, &plug, &b[expect], NULL);
	assert_int_equal(r->nu, 1);
	assert_int_equal(r->last_unplug_depth, expect);
	assert_int_equal(r->nd, (int)expect); /* none: issued directly from the plug */
	blk_finish_plug(r->q, &plug);
	assert_int_equal(r->nd, (int)expect + 1);
	mq_rig_run(r);
	mq_rig_free(r);
}

static void test_blk_mq_plug_flush_at_16_in_5_10(void **state)
{
	(void)state;
	plug_count_case("5.10", 16);
}

static void test_blk_mq_plug_flush_at_32_in_6_1(void **state)
{
	(void)state;
	plug_count_case("6.1", 32);
}

/* BLK_PLUG_FLUSH_SIZE: a plugged request of 128 KiB flushes the plug
 * when the next request comes. */
static void test_blk_mq_plug_flush_by_size(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("none", 100, 64, NULL, NULL);
	struct io_context ioc = { .pid = 9, .tgid = 9, .ioprio_class = IOPRIO_CLASS_BE };
	struct bio b[2];
	struct blk_plug plug;

	blk_start_plug(&plug, &ioc);
	bio_init(&b[0], &ioc, 0, 256, REQ_WRITE); /* 128 KiB */
	blk_submit_bio(r->q, &plug, &b[0], NULL);
	bio_init(&b[1], &ioc, 100000, 8, REQ_WRITE);
	blk_submit_bio(r->q, &plug, &b[1], NULL);
	assert_int_equal(r->nu, 1);
	assert_int_equal(r->last_unplug_depth, 1);
	blk_finish_plug(r->q, &plug);
	mq_rig_run(r);
	mq_rig_free(r);
}

/* Sequential bios in a plug merge into one request. */
static void test_blk_mq_plug_merges(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("none", 100, 64, NULL, NULL);
	struct io_context ioc = { .pid = 9, .tgid = 9, .ioprio_class = IOPRIO_CLASS_BE };
	struct bio b[8];
	struct blk_plug plug;

	blk_start_plug(&plug, &ioc);
	for (int i = 0; i < 8; i++) {
		bio_init(&b[i], &ioc, 8u * (unsigned)i, 8, REQ_WRITE);
		blk_submit_bio(r->q, &plug, &b[i], NULL);
	}
	blk_finish_plug(r->q, &plug);
	assert_int_equal(r->nd, 1);
	mq_rig_run(r);
	mq_rig_free(r);
}

static void test_blk_mq_scheduler_kinds(void **state)
{
	(void)state;
	struct sim *sim = sim_new_bare(1);
	struct sim_error err = { 0 };
	struct cfg_doc *dd, *bd;
	struct device *dev;
	struct blk_queue *q = NULL;
	static const char dev_y[] = "model: ideal\nservice: fixed\nmean_us: 100\nqueue_depth: 32\n";
	static const char mq_y[] = "kind: mq\n";

	assert_int_equal(cfg_load_string(dev_y, strlen(dev_y), "dev", &dd, &err), 0);
	assert_int_equal(device_create(sim, cfg_root(dd), &dev, &err), 0);
	assert_int_equal(cfg_load_string(mq_y, strlen(mq_y), "block", &bd, &err), 0);
	/* none needs blk-mq */
	assert_int_equal(blk_queue_create(sim, dev, NULL, "none", NULL, &q, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "block.kind: mq"));
	/* cfq needs the single queue */
	assert_int_equal(blk_queue_create(sim, dev, cfg_root(bd), "cfq", NULL, &q, &err),
			 SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "single-queue"));
	assert_null(q);
	cfg_free(bd);
	device_destroy(dev);
	cfg_free(dd);
	sim_destroy(sim);
}

/* A device that takes fewer commands than the tags and budget allow:
 * BLK_STS_RESOURCE puts the request on hctx->dispatch, the hardware
 * queue turns busy, and every request still completes. */
static void test_blk_mq_resource_requeue(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("none", 1000, 4, "queue_depth: 16\n", NULL);
	struct io_context ioc = { .pid = 3, .tgid = 3, .ioprio_class = IOPRIO_CLASS_BE };
	struct bio b[10];
	json_t *root, *c;

	for (int i = 0; i < 10; i++) {
		bio_init(&b[i], &ioc, 1000u * (unsigned)(i + 1), 8, 0);
		blk_submit_bio(r->q, NULL, &b[i], NULL);
	}
	assert_int_equal(r->nd, 4);
	mq_rig_run(r);
	assert_int_equal(r->nd, 10);
	root = blk_queue_to_json(r->q);
	c = json_object_get(json_object_get(json_object_get(root, "mq"), "counters"), "resource_requeues");
	assert_true(json_integer_value(c) >= 1);
	json_decref(root);
	mq_rig_free(r);
}

/* elevator_get_default(): mq-deadline on one hardware queue, none on more. */
static void test_blk_mq_default_scheduler(void **state)
{
	(void)state;
	struct mq_rig *one = mq_rig_new(NULL, 100, 32, NULL, NULL);
	struct mq_rig *two = mq_rig_new(NULL, 100, 32, "nr_hw_queues: 2\n", NULL);

	assert_string_equal(blk_queue_elevator(one->q)->ops->name, "mq-deadline");
	assert_string_equal(blk_queue_elevator(two->q)->ops->name, "none");
	mq_rig_free(one);
	mq_rig_free(two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blk_mq_none_issues_directly),
		cmocka_unit_test(test_blk_mq_tag_exhaustion_sleeps),
		cmocka_unit_test(test_blk_mq_plug_flush_at_16_in_5_10),
		cmocka_unit_test(test_blk_mq_plug_flush_at_32_in_6_1),
		cmocka_unit_test(test_blk_mq_plug_flush_by_size),
		cmocka_unit_test(test_blk_mq_plug_merges),
		cmocka_unit_test(test_blk_mq_scheduler_kinds),
		cmocka_unit_test(test_blk_mq_resource_requeue),
		cmocka_unit_test(test_blk_mq_default_scheduler),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
