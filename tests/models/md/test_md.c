/* Arrays as devices (models/md/md.c): a request is split at chunk (stripe)
 * or member (linear) ends into pieces that go to the members' own queues,
 * the pieces of one request that meet on a member merge there under its
 * plug, the parent completes when its last piece does (bio_chain), a
 * pre-flush reaches every member before the data, and every member's
 * queue ends empty. Members are fixed-time ideal devices (100 us), so
 * completion times are exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/block/block.h"
#include "models/device/device.h"
#include "models/md/md.h"
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

#define MEMBER "{device: {model: ideal, service: fixed, mean_us: 100}, " \
	       "block: {max_sectors_kib: 1024}, scheduler: noop, size: 64MiB}"

static void build_members(struct harness *h, const char *model, const char *extra,
			  const char *member)
{
	char yaml[1024];
	snprintf(yaml, sizeof(yaml), "model: %s\n%smembers:\n  - %s\n  - %s\n", model, extra,
		 member, member);
	struct sim_error err = { 0 };
	memset(h, 0, sizeof(*h));
	h->sim = sim_new_bare(1);
	assert_non_null(h->sim);
	if (cfg_load_string(yaml, strlen(yaml), "md.yaml", &h->doc, &err) ||
	    device_create(h->sim, cfg_root(h->doc), &h->dev, &err) ||
	    cfg_check_unused(cfg_root(h->doc), &err))
		fail_msg("%s", err.msg);
	h->dev->on_complete = on_done;
	h->dev->upper = h;
}

static void build(struct harness *h, const char *model, const char *extra)
{
	build_members(h, model, extra, MEMBER);
}

static void teardown_h(struct harness *h)
{
	for (uint32_t i = 0; i < md_members(h->dev); i++) {
		struct sim_error err = { 0 };
		if (blk_queue_check(md_member_queue(h->dev, i), true, &err))
			fail_msg("member %u: %s", i, err.msg);
	}
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

static void run_one(struct harness *h, uint64_t sector, uint32_t sectors, uint32_t flags)
{
	struct io_request rq;
	init_rq(&rq, sector, sectors, flags);
	device_submit(h->dev, &rq);
	sim_engine_run(&h->sim->engine, SIM_TIME_MAX);
	assert_int_equal(h->completed, 1);
}

static uint64_t member_requests(struct harness *h, uint32_t i)
{
	return md_member_device(h->dev, i)->requests;
}

static uint64_t member_bytes(struct harness *h, uint32_t i)
{
	return md_member_device(h->dev, i)->bytes;
}

/* 1 MiB at 0 over a 512 KiB chunk: half on each member, served at once,
 * so the parent takes one service time, not two. */
static void test_stripe_full_width_in_parallel(void **state)
{
	(void)state;
	struct harness h;
	build(&h, "stripe", "chunk_bytes: 512KiB\n");
	assert_int_equal(md_members(h.dev), 2);
	assert_int_equal(h.dev->capacity_bytes, 128u << 20);
	run_one(&h, 0, 2048, 0);
	assert_int_equal(h.last_complete, 100000);
	assert_int_equal(member_requests(&h, 0), 1);
	assert_int_equal(member_requests(&h, 1), 1);
	assert_int_equal(member_bytes(&h, 0), 512u << 10);
	assert_int_equal(member_bytes(&h, 1), 512u << 10);
	assert_int_equal(h.dev->requests, 1);
	assert_int_equal(h.dev->bytes, 1u << 20);
	teardown_h(&h);
}

/* 48 sectors at 1000 cross the chunk end at 1024: 24 on member 0, 24 on member 1. */
static void test_stripe_splits_at_chunk_boundary(void **state)
{
	(void)state;
	struct harness h;
	build(&h, "stripe", "chunk_bytes: 512KiB\n");
	run_one(&h, 1000, 48, 0);
	assert_int_equal(member_bytes(&h, 0), 24 * 512);
	assert_int_equal(member_bytes(&h, 1), 24 * 512);
	/* inside one chunk: no split, one member only */
	h.completed = 0;
	run_one(&h, 1024 + 8, 16, REQ_WRITE);
	assert_int_equal(member_requests(&h, 0), 1);
	assert_int_equal(member_requests(&h, 1), 2);
	json_t *o = device_to_json(h.dev);
	json_t *md = json_object_get(o, "md");
	assert_int_equal(json_integer_value(json_object_get(md, "split_requests")), 1);
	assert_int_equal(json_integer_value(json_object_get(md, "pieces")), 3);
	assert_int_equal(json_array_size(json_object_get(md, "members")), 2);
	json_decref(o);
	teardown_h(&h);
}

/* 2 MiB at 0: chunks 0 and 2 lie end to end on member 0 (its sectors
 * 0..2047), 1 and 3 on member 1; each pair merges in its member's plug. */
static void test_stripe_pieces_merge_on_member(void **state)
{
	(void)state;
	struct harness h;
	build(&h, "stripe", "chunk_bytes: 512KiB\n");
	run_one(&h, 0, 4096, 0);
	assert_int_equal(member_requests(&h, 0), 1);
	assert_int_equal(member_requests(&h, 1), 1);
	assert_int_equal(member_bytes(&h, 0), 1u << 20);
	assert_int_equal(h.last_complete, 100000);
	teardown_h(&h);
}

/* A pre-flush goes to every member as an empty flush; the data follows when
 * both are done: two service times. */
static void test_stripe_flush_reaches_every_member_first(void **state)
{
	(void)state;
	struct harness h;
	build(&h, "stripe", "chunk_bytes: 512KiB\n");
	run_one(&h, 0, 8, REQ_WRITE | REQ_SYNC | REQ_FLUSH | REQ_FUA);
	assert_int_equal(member_requests(&h, 0), 2); /* its flush, then the data */
	assert_int_equal(member_requests(&h, 1), 1); /* its flush only */
	assert_int_equal(h.last_complete, 200000);
	teardown_h(&h);
}

/* linear: 64 MiB then 64 MiB; a request over the end of member 0 splits there. */
static void test_linear_splits_at_member_end(void **state)
{
	(void)state;
	struct harness h;
	build(&h, "linear", "");
	uint64_t end0 = (64u << 20) >> 9;
	run_one(&h, end0 - 8, 24, 0);
	assert_int_equal(member_bytes(&h, 0), 8 * 512);
	assert_int_equal(member_bytes(&h, 1), 16 * 512);
	h.completed = 0;
	run_one(&h, 100, 64, 0); /* member 0 only */
	assert_int_equal(member_requests(&h, 0), 2);
	assert_int_equal(member_requests(&h, 1), 1);
	teardown_h(&h);
}

/* CFQ on both members: one process's I/O gets a cfq_io_cq on each queue
 * (the kernel's per-queue io_cq), and each member serves its half. */
static void test_stripe_cfq_members_share_an_ioc(void **state)
{
	(void)state;
	struct harness h;
	build_members(&h, "stripe", "chunk_bytes: 512KiB\n",
		      "{device: {model: ideal, service: fixed, mean_us: 100}, scheduler: cfq, "
		      "size: 64MiB}");
	struct io_context ioc = { .pid = 7, .tgid = 7, .ioprio_class = IOPRIO_CLASS_BE,
				  .ioprio_level = IOPRIO_NORM, .comm = "reader" };
	struct io_request rq[4];
	for (int i = 0; i < 4; i++) {
		init_rq(&rq[i], (uint64_t)i * 1024, 1024, 0);
		rq[i].ioc = &ioc;
		device_submit(h.dev, &rq[i]);
	}
	sim_engine_run(&h.sim->engine, SIM_TIME_MAX);
	assert_int_equal(h.completed, 4);
	assert_int_equal(member_bytes(&h, 0), 1u << 20);
	assert_int_equal(member_bytes(&h, 1), 1u << 20);
	teardown_h(&h);
}

/* Bad members: one clear message naming the node. */
static void test_md_config_errors(void **state)
{
	(void)state;
	const char *bad[] = {
		"model: stripe\n",
		"model: stripe\nmembers: [{scheduler: noop}]\n",
		"model: stripe\nchunk_bytes: 6KiB\nmembers: [{device: {model: ideal}}]\n",
		"model: linear\nmembers: [{device: {model: ideal}, scheduler: nope}]\n",
		"model: linear\nmembers: [{device: {model: ideal}, block: {kind: mq}, scheduler: cfq}]\n",
	};
	const char *want[] = { "members", "device", "multiple of 4 KiB", "unknown scheduler",
			       "members[0].scheduler: scheduler 'cfq' is a single-queue" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sim *sim = sim_new_bare(1);
		struct cfg_doc *doc = NULL;
		struct device *dev = NULL;
		struct sim_error err = { 0 };
		assert_int_equal(cfg_load_string(bad[i], strlen(bad[i]), "md.yaml", &doc, &err), 0);
		assert_int_equal(device_create(sim, cfg_root(doc), &dev, &err), SIM_E_INPUT);
		assert_non_null(strstr(err.msg, want[i]));
		assert_non_null(strstr(err.msg, "md.yaml:"));
		cfg_free(doc);
		sim_destroy(sim);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stripe_full_width_in_parallel),
		cmocka_unit_test(test_stripe_splits_at_chunk_boundary),
		cmocka_unit_test(test_stripe_pieces_merge_on_member),
		cmocka_unit_test(test_stripe_flush_reaches_every_member_first),
		cmocka_unit_test(test_linear_splits_at_member_end),
		cmocka_unit_test(test_stripe_cfq_members_share_an_ioc),
		cmocka_unit_test(test_md_config_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
