/* blk-mq on a UFS 4.0 host in MCQ mode (models/device/ufs_host.c,
 * models/block/blk_mq.c): the host configures one hardware queue per CPU
 * plus a poll queue, every queue draws on one host-wide tag set of
 * min(MAC, bQueueDepth) - 1 tags so the commands in flight never exceed
 * it, each CPU's software queue goes to its own hardware queue, the
 * default scheduler stays mq-deadline (shared tags), and a host without
 * MCQ leaves blk-mq exactly as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/models/block/mq_rig.h"

#define MCQ_HOST "host:\n  mcq_supported: true\n  maxq: 16\n  mac: 64\n"

/* Commands at the device, counted from the D and C trace points. */
struct inflight_probe {
	int in, peak, dispatched;
};

static void probe_sink(void *ctx, const struct blk_trace_event *e)
{
	struct inflight_probe *p = ctx;

	if (e->action == 'D') {
		p->dispatched++;
		if (++p->in > p->peak)
			p->peak = p->in;
	} else if (e->action == 'C') {
		p->in--;
	}
}

static json_t *mq_json(struct mq_rig *r, json_t **root)
{
	*root = blk_queue_to_json(r->q);
	return json_object_get(*root, "mq");
}

static json_int_t jint(json_t *o, const char *a, const char *b, const char *c)
{
	json_t *x = json_object_get(o, a);

	if (b)
		x = json_object_get(x, b);
	if (c)
		x = json_object_get(x, c);
	assert_non_null(x);
	return json_integer_value(x);
}

/* ufshcd_mcq_config_nr_queues on 8 CPUs, 16 controller queues: 8 default
 * (one per CPU) + 1 poll; the tag set is min(MAC 64, bQueueDepth 32) - 1. */
static void test_mcq_queues_and_tags(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new_dev(NULL, 100, 32, 32, MCQ_HOST, NULL, NULL);
	json_t *root, *mq = mq_json(r, &root), *hw = json_object_get(mq, "hw_queues");

	assert_int_equal(json_array_size(hw), 9);
	assert_string_equal(json_string_value(json_object_get(json_array_get(hw, 0), "type")),
			    "default");
	assert_string_equal(json_string_value(json_object_get(json_array_get(hw, 8), "type")),
			    "poll");
	assert_int_equal(jint(mq, "ufs_host", "queues", "default"), 8);
	assert_int_equal(jint(mq, "ufs_host", "nutrs", NULL), 32);
	assert_int_equal(jint(mq, "shared_tags", "driver_tags", "depth"), 31);
	/* 2 * min(queue_depth, 128), shared too */
	assert_int_equal(jint(mq, "shared_tags", "sched_tags", "depth"), 62);
	/* host-wide tags keep mq-deadline the default (elevator_get_default) */
	assert_string_equal(blk_queue_elevator(r->q)->ops->name, "mq-deadline");
	json_decref(root);
	mq_rig_free(r);

	/* a 4-queue controller: 3 default + 1 poll, fewer queues than CPUs */
	r = mq_rig_new_dev(NULL, 100, 32, 32, "host:\n  mcq_supported: true\n  maxq: 4\n", NULL, NULL);
	mq = mq_json(r, &root);
	assert_int_equal(json_array_size(json_object_get(mq, "hw_queues")), 4);
	assert_int_equal(jint(mq, "ufs_host", "queues", "default"), 3);
	json_decref(root);
	mq_rig_free(r);
}

/* Eight tasks on eight CPUs, 16 reads each outstanding (20 us between a
 * completion and the next read, so that woken tag sleepers get their
 * turn): every queue has work, yet the device never holds more than can_queue (31) commands
 * although it would take 64 (bQueueDepth 64, MAC 32: nutrs 32). */
static void test_mcq_shared_tags_bound_inflight(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new_dev("none", 200, 64, 64,
					  "host:\n  mcq_supported: true\n  mac: 32\n", NULL, NULL);
	struct inflight_probe p = { 0 };
	struct blk_trace_sink sink = { probe_sink, &p };
	static struct mq_stream s[8];
	json_t *root, *mq, *hw;

	blk_set_trace_sink(r->q, &sink);
	for (int i = 0; i < 8; i++)
		mq_stream_start(&s[i], r, i, 1000000u * (unsigned)(i + 1), 0, 8, 16, 20000, 0, 20 * MS);
	mq_rig_run(r);
	assert_true(p.dispatched > 1000);
	assert_int_equal(p.peak, 31);
	mq = mq_json(r, &root);
	assert_int_equal(jint(mq, "shared_tags", "driver_tags", "peak_used"), 31);
	assert_true(jint(mq, "shared_tags", "driver_tags", "sleeps") > 0);
	hw = json_object_get(mq, "hw_queues");
	for (int i = 0; i < 8; i++)
		assert_true(json_integer_value(json_object_get(json_array_get(hw, (size_t)i),
							       "dispatched")) > 50);
	json_decref(root);
	mq_rig_free(r);
}

/* blk_mq_map_queues: CPU c -> queue c % 8; tasks on different CPUs use
 * different queues, two tasks on one CPU the same one, the poll queue none. */
static void test_mcq_cpu_to_queue(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new_dev("none", 100, 32, 32, MCQ_HOST, NULL, NULL);
	struct io_context ioc[10];
	struct bio b[10];
	json_t *root, *hw;

	for (int i = 0; i < 10; i++) {
		/* pids 0..7, then 8 and 13 share CPUs 0 and 5 */
		int32_t pid = i < 8 ? i : i == 8 ? 8 : 13;

		memset(&ioc[i], 0, sizeof(ioc[i]));
		ioc[i].pid = ioc[i].tgid = pid;
		ioc[i].ioprio_class = IOPRIO_CLASS_BE;
		memset(&b[i], 0, sizeof(b[i]));
		b[i].sector = 10000u * (unsigned)(i + 1);
		b[i].nr_sectors = 8;
		b[i].ioc = &ioc[i];
		blk_submit_bio(r->q, NULL, &b[i], NULL);
	}
	mq_rig_run(r);
	hw = json_object_get(mq_json(r, &root), "hw_queues");
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(json_integer_value(json_object_get(json_array_get(hw, i), "dispatched")),
				 i == 0 || i == 5 ? 2 : 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(hw, 8), "dispatched")), 0);
	json_decref(root);
	mq_rig_free(r);
}

/* With read queues reads and writes of one CPU take different queues. */
static void test_mcq_read_queues(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new_dev("none", 100, 32, 32,
					  MCQ_HOST "  read_queues: 2\n  poll_queues: 0\n", NULL, NULL);
	struct io_context ioc = { .pid = 3, .tgid = 3, .ioprio_class = IOPRIO_CLASS_BE };
	struct bio rd, wr;
	json_t *root, *mq, *hw;

	memset(&rd, 0, sizeof(rd));
	rd.sector = 1000, rd.nr_sectors = 8, rd.ioc = &ioc;
	wr = rd;
	wr.sector = 5000, wr.flags = REQ_WRITE;
	blk_submit_bio(r->q, NULL, &rd, NULL);
	blk_submit_bio(r->q, NULL, &wr, NULL);
	mq_rig_run(r);
	mq = mq_json(r, &root);
	hw = json_object_get(mq, "hw_queues");
	/* 8 default (CPU 3 -> 3), 2 read (CPU 3 -> 8 + 3 % 2 = 9) */
	assert_int_equal(json_array_size(hw), 10);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(hw, 3), "dispatched")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(hw, 9), "dispatched")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(hw, 9), "type")), "read");
	json_decref(root);
	mq_rig_free(r);
}

/* The same streams on a device without a host and with an SDB host
 * (mcq_supported false, or mode sdb) give the same queue, byte for byte. */
static void test_sdb_unchanged(void **state)
{
	(void)state;
	static const char *const hosts[] = { NULL, "host:\n  mcq_supported: false\n",
					     MCQ_HOST "  mode: sdb\n" };
	char *dump[3];

	for (int h = 0; h < 3; h++) {
		struct mq_rig *r = mq_rig_new_dev(NULL, 150, 32, 8, hosts[h], NULL, NULL);
		static struct mq_stream s[4];
		json_t *root = blk_queue_to_json(r->q);

		json_decref(root);
		for (int i = 0; i < 4; i++)
			mq_stream_start(&s[i], r, 10 + i, 500000u * (unsigned)(i + 1),
					i == 3 ? REQ_WRITE : 0, 8, 12, 0, 0, 10 * MS);
		mq_rig_run(r);
		root = blk_queue_to_json(r->q);
		assert_null(json_object_get(json_object_get(root, "mq"), "ufs_host"));
		dump[h] = json_dumps(root, JSON_SORT_KEYS);
		json_decref(root);
		assert_true(r->nd > 300);
		mq_rig_free(r);
	}
	assert_string_equal(dump[0], dump[1]);
	assert_string_equal(dump[0], dump[2]);
	for (int h = 0; h < 3; h++)
		free(dump[h]);
}

/* Completions seen before and when the lone read of task 1 was dispatched. */
struct lone_probe {
	int completions, at_submit, at_dispatch;
	int64_t dispatch_ns;
	struct sim_event ev;
	struct io_context ioc;
	struct bio bio;
	struct blk_queue *q;
};

static void lone_sink(void *ctx, const struct blk_trace_event *e)
{
	struct lone_probe *p = ctx;

	if (e->action == 'C')
		p->completions++;
	else if (e->action == 'D' && e->pid == 1 && p->at_dispatch < 0) {
		p->at_dispatch = p->completions;
		p->dispatch_ns = e->time_ns;
	}
}

static void lone_submit(struct sim *sim, struct sim_event *ev)
{
	struct lone_probe *p = container_of(ev, struct lone_probe, ev);

	(void)sim;
	p->at_submit = p->completions;
	blk_submit_bio(p->q, NULL, &p->bio, NULL);
}

/* Two hardware queues on one tag set of 31 (wake_batch 31 / 8 = 3): task 0
 * keeps 60 FUA writes going, which bypass the scheduler onto its queue's
 * dispatch list, so that list never empties and that queue always waits
 * for a tag; task 1 then reads once. In the kernel a queue woken for a tag
 * leaves its wait queue (blk_mq_dispatch_wake) and joins the next one
 * when it fails again (blk_mq_mark_tag_wait, hctx->wait_index), at its
 * head; a wake takes the first busy wait queue from wake_index on and
 * moves wake_index past it (sbq_wake_ptr), so the read's wait queue is
 * woken within SBQ_WAIT_QUEUES wakes; if task 0's queue was woken with it
 * and, newer, ran first and took the tag, the read's queue heads the next
 * wait queue and the next wake serves it: at most (8 + 1) wakes of
 * wake_batch frees, 27 completions. */
static void test_mcq_lone_request_gets_a_tag(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new_dev(NULL, 100, 32, 1, MCQ_HOST, NULL, NULL);
	static struct lone_probe p;
	struct blk_trace_sink sink = { lone_sink, &p };
	static struct mq_stream a;
	json_t *root, *mq;
	json_int_t wake_batch;

	memset(&p, 0, sizeof(p));
	p.at_dispatch = -1;
	p.q = r->q;
	p.ioc.pid = p.ioc.tgid = 1;
	p.ioc.ioprio_class = IOPRIO_CLASS_BE;
	p.bio.sector = 90000000u, p.bio.nr_sectors = 8, p.bio.ioc = &p.ioc;
	sim_event_init(&p.ev, lone_submit);
	blk_set_trace_sink(r->q, &sink);
	/* 1 us between a completion and the next write: the writer is a task */
	mq_stream_start(&a, r, 0, 1000000u, REQ_WRITE | REQ_FUA, 8, 60, 1000, 0, 40 * MS);
	sim_at(r->sim, &p.ev, 10 * MS);
	mq_rig_run(r);

	mq = mq_json(r, &root);
	wake_batch = jint(mq, "shared_tags", "driver_tags", "wake_batch");
	assert_int_equal(wake_batch, 3);
	assert_true(jint(mq, "shared_tags", "driver_tags", "hctx_wakes") > 0);
	json_decref(root);
	/* the writer's queue had leftovers the whole time */
	assert_true(a.done > 300);
	assert_true(p.at_dispatch >= p.at_submit);
	assert_true(p.dispatch_ns < 40 * MS);
	assert_true(p.at_dispatch - p.at_submit <= (8 + 1) * wake_batch);
	mq_rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mcq_queues_and_tags),
		cmocka_unit_test(test_mcq_shared_tags_bound_inflight),
		cmocka_unit_test(test_mcq_cpu_to_queue),
		cmocka_unit_test(test_mcq_read_queues),
		cmocka_unit_test(test_sdb_unchanged),
		cmocka_unit_test(test_mcq_lone_request_gets_a_tag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
