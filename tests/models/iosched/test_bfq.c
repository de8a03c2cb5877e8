/* bfq (models/iosched/bfq.c): two backlogged readers of weights 80 and 40
 * (BE 0 and BE 4) get service 2:1; a service slot of a backlogged queue
 * ends at its budget timeout (timeout_sync); a new reader is raised as
 * interactive (weight x30) under low_latency and waits less for the
 * device than without it, beside a backlogged reader. One command at a
 * time (SCSI budget 1) of a fixed 1 ms.
 * Groups (bfq-cgroup.c): two groups of blkio.bfq.weight 1000 and 200 with
 * one backlogged reader each share 5:1; two groups of equal weight split
 * equally whatever their number of queues; a root-group reader (weight
 * 40) against Android's background group (blkio.bfq.weight 10) gets 4:1;
 * with two groups busy BFQ idles for a queue that empties even on a
 * queueing device, which it does not do with the same queues in one
 * group (bfq_asymmetric_scenario).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/models/block/mq_rig.h"

#define BLK_QD1 "sdev_queue_depth: 1\n"

static json_t *bfq_queue_stats(json_t *st, int32_t pid)
{
	json_t *qs = json_object_get(st, "queues"), *q;
	size_t i;

	json_array_foreach(qs, i, q)
		if (json_integer_value(json_object_get(q, "pid")) == pid &&
		    json_is_true(json_object_get(q, "sync")))
			return q;
	return NULL;
}

static void test_bfq_weight_ratio(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("bfq", 1000, 32, BLK_QD1, "low_latency: false\n");
	struct mq_stream hi, lo;

	mq_stream_start(&hi, r, 10, 0, 0, 8, 8, 0, 1, 6000 * MS);
	mq_stream_start(&lo, r, 20, 500000000, 0, 8, 8, 0, 1, 6000 * MS);
	hi.ioc.ioprio_level = 0; /* weight 80 */
	mq_rig_run(r);
	double ratio = (double)hi.done / (double)lo.done;

	fprintf(stderr, "weight 80: %llu requests, weight 40: %llu, ratio %.2f\n",
		(unsigned long long)hi.done, (unsigned long long)lo.done, ratio);
	assert_true(ratio > 1.8 && ratio < 2.2);
	mq_rig_free(r);
}

static void test_bfq_budget_timeout(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("bfq", 1000, 32, BLK_QD1,
				      "low_latency: false\nmax_budget: 1000000\n");
	struct mq_stream a, b;
	json_t *root, *st;
	int runs = 0, run = 0, long_runs = 0;

	mq_stream_start(&a, r, 10, 0, 0, 8, 8, 0, 1, 3000 * MS);
	mq_stream_start(&b, r, 20, 500000000, 0, 8, 8, 0, 1, 3000 * MS);
	mq_rig_run(r);
	for (int i = 1; i < r->nd && i < MQ_RIG_MAX; i++) {
		run++;
		if (r->dpid[i] != r->dpid[i - 1]) {
			runs++;
			if (run >= 120 && run <= 130)
				long_runs++;
			run = 0;
		}
	}
	st = mq_rig_sched_stats(r, &root);
	long long timeouts = json_integer_value(json_object_get(json_object_get(st, "expirations"),
								"budget_timeout"));
	fprintf(stderr, "%d slot switches, %d of 120-130 requests, %lld budget timeouts\n", runs,
		long_runs, timeouts);
	/* 125 ms slots of 1 ms requests, alternating */
	assert_true(runs >= 20);
	assert_true(long_runs >= runs - 2);
	assert_true(timeouts >= runs - 2);
	json_decref(root);
	mq_rig_free(r);
}

/* A backlogged BG reader from t = 0; a backlogged FG reader starts at 5 s,
 * after the BG queue's own interactive raising (3.75 s: a new queue is
 * interactive too) is over. Share of the FG reader over 5-6 s. */
static double interactive_case(bool low_latency, long long *raises)
{
	struct mq_rig *r = mq_rig_new("bfq", 1000, 32, BLK_QD1,
				      low_latency ? "low_latency: true\n" : "low_latency: false\n");
	struct mq_stream bg, fg;
	json_t *root, *st;
	int nfg = 0, nall = 0;

	mq_stream_start(&bg, r, 20, 500000000, 0, 8, 8, 0, 1, 6000 * MS);
	mq_stream_start(&fg, r, 30, 0, 0, 8, 8, 0, 5000 * MS, 6000 * MS);
	mq_rig_run(r);
	for (int i = 0; i < r->nd && i < MQ_RIG_MAX; i++)
		if (r->dtime[i] >= 5000 * MS && r->dtime[i] < 6000 * MS) {
			nall++;
			nfg += r->dpid[i] == 30;
		}
	st = mq_rig_sched_stats(r, &root);
	*raises = json_integer_value(json_object_get(bfq_queue_stats(st, 30), "interactive_raises"));
	fprintf(stderr, "low_latency %d: FG share %d of %d dispatches in its first second, "
		"mean latency %.2f ms; interactive raises %lld; wr duration %lld ms\n", low_latency,
		nfg, nall, mq_stream_mean_ms(&fg), *raises,
		(long long)json_integer_value(json_object_get(st, "wr_duration_ms")));
	json_decref(root);
	mq_rig_free(r);
	return (double)nfg / (nall ? nall : 1);
}

static void test_bfq_interactive_weight_raising(void **state)
{
	(void)state;
	long long raised_on, raised_off;
	double on = interactive_case(true, &raised_on), off = interactive_case(false, &raised_off);

	assert_int_equal(raised_on, 1);
	assert_int_equal(raised_off, 0);
	/* weight 1200 against 40: most of the service (B-WF2Q+ still lets the
	 * BG queue in for one 125 ms slot whenever the FG queue's next start
	 * is not yet eligible, about one second in eight here); without: ~1/2 */
	assert_true(on > 0.8);
	assert_true(off > 0.4 && off < 0.6);
}

static void stream_in_group(struct mq_stream *s, uint16_t blkcg, uint16_t bfq_weight)
{
	s->ioc.blkcg_id = blkcg;
	s->ioc.blkcg_bfq_weight = bfq_weight;
}

static uint64_t group_served(json_t *st, int blkcg)
{
	json_t *gs = json_object_get(st, "groups"), *g;
	size_t i;

	json_array_foreach(gs, i, g)
		if (json_integer_value(json_object_get(g, "blkcg")) == blkcg)
			return (uint64_t)json_integer_value(json_object_get(g, "served_sectors"));
	return 0;
}

/* Two groups of blkio.bfq.weight 1000 and 200, a backlogged reader each,
 * counted after the first second (the start-up slots before the peak
 * rate and budgets settle follow B-WF2Q+'s eligibility, not the ratio). */
static void test_bfq_group_weights(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("bfq", 1000, 32, BLK_QD1, "low_latency: false\n");
	struct mq_stream hi, lo;
	json_t *root, *st;
	int nhi = 0, nlo = 0;

	mq_stream_start(&hi, r, 10, 0, 0, 8, 8, 0, 1, 16000 * MS);
	mq_stream_start(&lo, r, 20, 500000000, 0, 8, 8, 0, 1, 16000 * MS);
	stream_in_group(&hi, 1, 1000);
	stream_in_group(&lo, 2, 200);
	mq_rig_run(r);
	st = mq_rig_sched_stats(r, &root);
	for (int i = 0; i < r->nd && i < MQ_RIG_MAX; i++)
		if (r->dtime[i] >= 1000 * MS && r->dtime[i] < 16000 * MS) {
			nhi += r->dpid[i] == 10;
			nlo += r->dpid[i] == 20;
		}
	double ratio = (double)nhi / (double)nlo;

	if (getenv("BFQ_DEBUG")) {
		int run = 1;
		for (int i = 1; i <= r->nd && i < MQ_RIG_MAX; i++) {
			if (i == r->nd || r->dpid[i] != r->dpid[i - 1]) {
				fprintf(stderr, "%d:%d ", r->dpid[i - 1], run);
				run = 0;
			}
			run++;
		}
		fprintf(stderr, "\n");
	}
	fprintf(stderr, "groups 1000:200: %d and %d requests in 1-16 s, ratio %.2f; "
		"whole run %llu and %llu; group sectors %llu and %llu\n", nhi, nlo, ratio,
		(unsigned long long)hi.done, (unsigned long long)lo.done,
		(unsigned long long)group_served(st, 1), (unsigned long long)group_served(st, 2));
	assert_true(ratio > 4.6 && ratio < 5.4);
	assert_int_equal(group_served(st, 0), 0);
	json_decref(root);
	mq_rig_free(r);
}

/* Equal group weights: group 1 has one reader, group 2 three; the groups
 * split 1:1, so group 2's readers get 1/6 each. */
static void test_bfq_groups_split_per_group(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("bfq", 1000, 32, BLK_QD1, "low_latency: false\n");
	struct mq_stream a, b[3];

	mq_stream_start(&a, r, 10, 0, 0, 8, 8, 0, 1, 6000 * MS);
	stream_in_group(&a, 1, 0); /* default weight 100 */
	for (int i = 0; i < 3; i++) {
		mq_stream_start(&b[i], r, 20 + i, 500000000ull * (uint64_t)(i + 1), 0, 8, 8, 0, 1,
				6000 * MS);
		stream_in_group(&b[i], 2, 100);
	}
	mq_rig_run(r);
	uint64_t nb = b[0].done + b[1].done + b[2].done;
	double ratio = (double)a.done / (double)nb;

	fprintf(stderr, "one queue vs three in equal groups: %llu vs %llu (%llu/%llu/%llu), ratio %.2f\n",
		(unsigned long long)a.done, (unsigned long long)nb, (unsigned long long)b[0].done,
		(unsigned long long)b[1].done, (unsigned long long)b[2].done, ratio);
	assert_true(ratio > 0.9 && ratio < 1.1);
	for (int i = 0; i < 3; i++)
		assert_true((double)b[i].done > 0.25 * (double)nb && (double)b[i].done < 0.42 * (double)nb);
	mq_rig_free(r);
}

/* Android: a top-app reader in the root group (a queue of weight 40 in
 * the root's tree) against a reader in /background (blkio.bfq.weight 10). */
static void test_bfq_android_background_group(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("bfq", 1000, 32, BLK_QD1, "low_latency: false\n");
	struct mq_stream fg, bg;

	mq_stream_start(&fg, r, 10, 0, 0, 8, 8, 0, 1, 6000 * MS);
	mq_stream_start(&bg, r, 20, 500000000, 0, 8, 8, 0, 1, 6000 * MS);
	stream_in_group(&bg, 1, 10);
	mq_rig_run(r);
	double ratio = (double)fg.done / (double)bg.done;

	fprintf(stderr, "root queue 40 vs background group 10: ratio %.2f\n", ratio);
	assert_true(ratio > 3.6 && ratio < 4.4);
	mq_rig_free(r);
}

/* Two readers with 2 ms think time on a queueing device (32 tags):
 * equal weights in one group need no idling; in two groups BFQ idles
 * when the queue in service empties, and fills the idle time with the
 * other queue's requests (injection), so the throughput stays. */
static uint64_t asym_case(bool groups, long long *arms, long long *gidles, long long *inj)
{
	struct mq_rig *r = mq_rig_new("bfq", 500, 32, "", "low_latency: false\n");
	struct mq_stream a, b;
	json_t *root, *st;

	mq_stream_start(&a, r, 10, 0, 0, 8, 1, 2 * MS, 1, 2000 * MS);
	mq_stream_start(&b, r, 20, 500000000, 0, 8, 1, 2 * MS, 1, 2000 * MS);
	if (groups) {
		stream_in_group(&a, 1, 100);
		stream_in_group(&b, 2, 100);
	}
	mq_rig_run(r);
	st = mq_rig_sched_stats(r, &root);
	*arms = json_integer_value(json_object_get(st, "idle_arms"));
	*gidles = json_integer_value(json_object_get(st, "group_idles"));
	*inj = json_integer_value(json_object_get(st, "injected"));
	fprintf(stderr, "%s: idle arms %lld (with several groups pending %lld), injected %lld, "
		"%llu + %llu requests\n", groups ? "two groups" : "one group", *arms, *gidles, *inj,
		(unsigned long long)a.done, (unsigned long long)b.done);
	json_decref(root);
	mq_rig_free(r);
	return a.done + b.done;
}

static void test_bfq_group_idling(void **state)
{
	(void)state;
	long long arms_flat, gidles_flat, inj_flat, arms_groups, gidles_groups, inj_groups;
	uint64_t flat = asym_case(false, &arms_flat, &gidles_flat, &inj_flat);
	uint64_t grouped = asym_case(true, &arms_groups, &gidles_groups, &inj_groups);

	assert_int_equal(arms_flat, 0);
	assert_int_equal(gidles_flat, 0);
	assert_int_equal(inj_flat, 0);
	assert_true(arms_groups > 0);
	assert_int_equal(gidles_groups, arms_groups);
	assert_true(inj_groups > 0);
	assert_true((double)grouped > 0.9 * (double)flat);
}

/* A task that changes cgroup (an fg switch) takes its sync queue along. */
static void test_bfq_group_move(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("bfq", 1000, 32, BLK_QD1, "low_latency: false\n");
	struct mq_stream a;
	json_t *root, *st;

	mq_stream_start(&a, r, 10, 0, 0, 8, 2, 0, 1, 400 * MS);
	stream_in_group(&a, 1, 10);
	sim_engine_run(&r->sim->engine, 200 * MS);
	stream_in_group(&a, 0, 0);
	mq_rig_run(r);
	st = mq_rig_sched_stats(r, &root);
	assert_true(json_integer_value(json_object_get(st, "group_moves")) >= 1);
	assert_true(group_served(st, 1) > 0);
	assert_true(group_served(st, 0) > 0);
	assert_int_equal(json_integer_value(json_object_get(bfq_queue_stats(st, 10), "blkcg")), 0);
	json_decref(root);
	mq_rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bfq_weight_ratio),
		cmocka_unit_test(test_bfq_budget_timeout),
		cmocka_unit_test(test_bfq_interactive_weight_raising),
		cmocka_unit_test(test_bfq_group_weights),
		cmocka_unit_test(test_bfq_groups_split_per_group),
		cmocka_unit_test(test_bfq_android_background_group),
		cmocka_unit_test(test_bfq_group_idling),
		cmocka_unit_test(test_bfq_group_move),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
