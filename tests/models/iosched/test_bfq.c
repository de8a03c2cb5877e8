/* bfq (models/iosched/bfq.c): two backlogged readers of weights 80 and 40
 * (BE 0 and BE 4) get service 2:1; a service slot of a backlogged queue
 * ends at its budget timeout (timeout_sync); a new reader is raised as
 * interactive (weight x30) under low_latency and waits less for the
 * device than without it, beside a backlogged reader. One command at a
 * time (SCSI budget 1) of a fixed 1 ms.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bfq_weight_ratio),
		cmocka_unit_test(test_bfq_budget_timeout),
		cmocka_unit_test(test_bfq_interactive_weight_raising),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
