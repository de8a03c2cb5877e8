/* mq-deadline (models/iosched/mq_deadline.c): a read behind a sector sweep
 * waits for read_expire and no longer; reads pass waiting writes
 * writes_starved times, so writes get one batch in three; in 6.1 an IDLE
 * class request waits while BE requests are queued or in flight until
 * prio_aging_expire, in 5.10 it is served at its read_expire. One command at a time (SCSI
 * budget 1) of a fixed 1 ms, 256 scheduler tags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/models/block/mq_rig.h"

#define BLK_QD1 "sdev_queue_depth: 1\nnr_requests: 256\n"

/* A single bio at a given time; records its latency. */
struct shot {
	struct sim_event ev;
	struct mq_rig *r;
	struct io_context ioc;
	struct bio bio;
	int64_t lat;
};

static void shot_end(struct sim *sim, struct bio *b)
{
	struct shot *s = b->private;

	s->lat = sim_now(sim) - b->t_queue;
}

static void shot_fire(struct sim *sim, struct sim_event *ev)
{
	struct shot *s = container_of(ev, struct shot, ev);

	(void)sim;
	blk_submit_bio(s->r->q, NULL, &s->bio, NULL);
}

static void shot_at(struct shot *s, struct mq_rig *r, int32_t pid, uint8_t ioclass, uint64_t sector,
		    uint32_t flags, int64_t at)
{
	memset(s, 0, sizeof(*s));
	s->r = r;
	s->ioc.pid = s->ioc.tgid = pid;
	s->ioc.ioprio_class = ioclass;
	s->ioc.ioprio_level = IOPRIO_NORM;
	s->bio.sector = sector;
	s->bio.nr_sectors = 8;
	s->bio.flags = flags;
	s->bio.ioc = &s->ioc;
	s->bio.end_io = shot_end;
	s->bio.private = s;
	s->lat = -1;
	sim_event_init(&s->ev, shot_fire);
	sim_at(r->sim, &s->ev, at);
}

static int64_t expiry_case(const char *sched_yaml)
{
	struct mq_rig *r = mq_rig_new("mq-deadline", 1000, 32, BLK_QD1, sched_yaml);
	struct mq_stream rd;
	struct shot probe;

	/* an ascending read stream 100 deep sweeps upward; the probe lies below it */
	mq_stream_start(&rd, r, 10, 1000000, 0, 8, 100, 0, 0, 2000 * MS);
	shot_at(&probe, r, 11, IOPRIO_CLASS_BE, 1000, 0, 50 * MS);
	mq_rig_run(r);
	mq_rig_free(r);
	return probe.lat;
}

static void test_mq_deadline_read_expire(void **state)
{
	(void)state;
	int64_t def = expiry_case(NULL), fast = expiry_case("read_expire_ms: 100\n");

	fprintf(stderr, "probe behind the sweep: %.1f ms (read_expire 500), %.1f ms (100)\n",
		def / 1e6, fast / 1e6);
	/* served at the first batch boundary after expiry: within fifo_batch services */
	assert_true(def >= 500 * MS && def <= 500 * MS + 17 * MS);
	assert_true(fast >= 100 * MS && fast <= 100 * MS + 17 * MS);
}

static void test_mq_deadline_writes_starved(void **state)
{
	(void)state;
	struct mq_rig *r = mq_rig_new("mq-deadline", 1000, 32, BLK_QD1, NULL);
	struct mq_stream rd, wr;
	int reads = 0, writes = 0, max_run = 0, run = 0;

	mq_stream_start(&rd, r, 10, 0, 0, 8, 100, 0, 0, 3000 * MS);
	mq_stream_start(&wr, r, 20, 100000000, REQ_WRITE, 8, 100, 0, 0, 3000 * MS);
	mq_rig_run(r);
	for (int i = 200; i < r->nd && i < MQ_RIG_MAX; i++) {
		if (r->ddir[i] == 'R') {
			reads++;
			run++;
			if (run > max_run)
				max_run = run;
		} else {
			writes++;
			run = 0;
		}
	}
	fprintf(stderr, "reads %d writes %d, longest read run %d\n", reads, writes, max_run);
	/* two read batches of 16, then a write batch of 16 */
	assert_true(writes * 3 > (reads + writes) * 9 / 10);
	assert_true(writes * 3 < (reads + writes) * 11 / 10);
	assert_int_equal(max_run, 32);
	mq_rig_free(r);
}

static int64_t prio_case(const char *kernel, const char *sched_yaml)
{
	char blk[128];
	struct mq_stream be;
	struct shot idle;

	snprintf(blk, sizeof(blk), BLK_QD1 "kernel: \"%s\"\n", kernel);
	struct mq_rig *r = mq_rig_new("mq-deadline", 1000, 32, blk, sched_yaml);
	mq_stream_start(&be, r, 10, 0, 0, 8, 4, 0, 0, 1000 * MS);
	shot_at(&idle, r, 30, IOPRIO_CLASS_IDLE, 500000000, 0, 10 * MS);
	mq_rig_run(r);
	mq_rig_free(r);
	return idle.lat;
}

static void test_mq_deadline_prio_classes_and_aging(void **state)
{
	(void)state;
	/* read_expire 20 ms: expiry alone would serve the IDLE read quickly */
	int64_t v61 = prio_case("6.1", "prio_aging_expire_ms: 200\nread_expire_ms: 20\n");
	int64_t v61_noage = prio_case("6.1", "read_expire_ms: 20\n");
	int64_t v510 = prio_case("5.10", "prio_aging_expire_ms: 200\nread_expire_ms: 20\n");

	fprintf(stderr, "IDLE read under a BE stream: 6.1 %.1f ms (aging 200 ms), 6.1 %.1f ms "
		"(aging 10 s), 5.10 %.1f ms\n", v61 / 1e6, v61_noage / 1e6, v510 / 1e6);
	/* 6.1: waits for aging; the default 10 s outlasts the 1 s BE stream */
	assert_true(v61 >= 200 * MS && v61 <= 200 * MS + 5 * MS);
	assert_true(v61_noage >= 990 * MS);
	/* 5.10: one set of queues, served when it expires */
	assert_true(v510 >= 20 * MS && v510 <= 20 * MS + 17 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mq_deadline_read_expire),
		cmocka_unit_test(test_mq_deadline_writes_starved),
		cmocka_unit_test(test_mq_deadline_prio_classes_and_aging),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
