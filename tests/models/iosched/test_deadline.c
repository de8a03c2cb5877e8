/* deadline scheduler: reads are preferred and their expiry bounds their
 * latency, writes_starved lets writes through a read flood, batches are
 * fifo_batch long, boost_lba jumps the queue. Closed-loop streams over an
 * ideal QD1 device with a fixed 1 ms service, so every bound is exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/block/block.h"
#include "models/device/device.h"
#include "models/block/elevator.h"
#include "sim/config.h"
#include "sim/sim.h"

#define SVC_NS 1000000LL /* device service time */
#define MS 1000000LL

struct rig {
	struct sim *sim;
	struct cfg_doc *dev_doc;
	struct device *dev;
	struct blk_queue *q;
	char dirs[20000]; /* 'R' / 'W' per dispatch, in order */
	uint64_t sec[20000];
	int nd;
	int64_t record_until; /* 0 = always */
};

static void rig_sink(void *ctx, const struct blk_trace_event *e)
{
	struct rig *r = ctx;

	if (e->action == 'D' && r->nd < (int)sizeof(r->dirs) &&
	    (!r->record_until || e->time_ns < r->record_until)) {
		r->sec[r->nd] = e->sector;
		r->dirs[r->nd++] = req_is_write(e->flags) ? 'W' : 'R';
	}
}

static struct rig *rig_new(const char *sched, const char *sched_yaml)
{
	static const char dev[] = "model: ideal\nservice: fixed\nmean_us: 1000\nqueue_depth: 1\n";
	struct rig *r = calloc(1, sizeof(*r));
	struct sim_error err = { 0 };
	struct cfg_doc *sdoc = NULL;

	assert_non_null(r);
	r->sim = sim_new_bare(7);
	assert_int_equal(cfg_load_string(dev, strlen(dev), "dev", &r->dev_doc, &err), 0);
	assert_int_equal(device_create(r->sim, cfg_root(r->dev_doc), &r->dev, &err), 0);
	if (sched_yaml)
		assert_int_equal(cfg_load_string(sched_yaml, strlen(sched_yaml), "sched", &sdoc, &err), 0);
	int rc = blk_queue_create(r->sim, r->dev, NULL, sched, sdoc ? cfg_root(sdoc) : NULL, &r->q,
				  &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	assert_int_equal(rc, 0);
	if (sdoc)
		cfg_free(sdoc);
	struct blk_trace_sink sink = { rig_sink, r };
	blk_set_trace_sink(r->q, &sink);
	return r;
}

static void rig_free(struct rig *r)
{
	struct sim_error err = { 0 };

	assert_int_equal(blk_queue_check(r->q, true, &err), 0);
	blk_queue_destroy(r->q);
	device_destroy(r->dev);
	cfg_free(r->dev_doc);
	sim_destroy(r->sim);
	free(r);
}

/* A closed-loop stream: depth bios outstanding, ascending sectors with a
 * gap so nothing merges; stops issuing at stop_ns. */
struct stream {
	struct rig *r;
	struct bio bio[64];
	uint64_t next;
	uint32_t flags;
	int64_t stop_ns;
	uint64_t done;
	int64_t max_lat;
};

static void stream_issue(struct stream *s, struct bio *b)
{
	b->sector = s->next;
	s->next += 16;
	b->nr_sectors = 8;
	b->flags = s->flags;
	blk_submit_bio(s->r->q, NULL, b, NULL);
}

static void stream_end_io(struct sim *sim, struct bio *b)
{
	struct stream *s = b->private;
	int64_t lat = sim_now(sim) - b->t_queue;

	s->done++;
	if (lat > s->max_lat)
		s->max_lat = lat;
	if (sim_now(sim) < s->stop_ns)
		stream_issue(s, b);
}

static void stream_start(struct stream *s, struct rig *r, uint64_t first, uint32_t flags,
			 int depth, int64_t stop_ns)
{
	memset(s, 0, sizeof(*s));
	s->r = r;
	s->next = first;
	s->flags = flags;
	s->stop_ns = stop_ns;
	for (int i = 0; i < depth; i++) {
		s->bio[i].end_io = stream_end_io;
		s->bio[i].private = s;
		stream_issue(s, &s->bio[i]);
	}
}

/* One bio submitted at a given time; records its latency. */
struct probe {
	struct sim_event ev;
	struct rig *r;
	struct bio bio;
	int64_t period;      /* 0 = once */
	int64_t until;
	uint64_t sector;
	uint32_t flags;
	uint64_t n;
	int64_t max_lat, last_lat;
	bool inflight;
};

static void probe_end_io(struct sim *sim, struct bio *b)
{
	struct probe *p = b->private;
	int64_t lat = sim_now(sim) - b->t_queue;

	p->inflight = false;
	p->n++;
	p->last_lat = lat;
	if (lat > p->max_lat)
		p->max_lat = lat;
}

static void probe_fire(struct sim *sim, struct sim_event *ev)
{
	struct probe *p = container_of(ev, struct probe, ev);

	if (!p->inflight) {
		p->inflight = true;
		memset(&p->bio, 0, sizeof(p->bio));
		p->bio.sector = p->sector;
		p->sector += 100000;
		p->bio.nr_sectors = 8;
		p->bio.flags = p->flags;
		p->bio.end_io = probe_end_io;
		p->bio.private = p;
		blk_submit_bio(p->r->q, NULL, &p->bio, NULL);
	}
	if (p->period && sim_now(sim) + p->period < p->until)
		sim_after(sim, &p->ev, p->period);
}

static void probe_start(struct probe *p, struct rig *r, uint64_t sector, uint32_t flags,
			int64_t at, int64_t period, int64_t until)
{
	memset(p, 0, sizeof(*p));
	p->r = r;
	p->sector = sector;
	p->period = period;
	p->until = until;
	p->flags = flags;
	sim_event_init(&p->ev, probe_fire);
	sim_at(r->sim, &p->ev, at);
}

static void rig_run(struct rig *r)
{
	sim_engine_run(&r->sim->engine, SIM_TIME_MAX);
}

/* ---------------------------------------------------------------- tests */

/* A write flood keeps 64 async writes queued; a read every 50 ms. Under
 * deadline a read waits at most for the write batch in progress
 * (fifo_batch services) - well inside read_expire + service - while
 * noop puts it behind the whole flood. */
static void test_deadline_read_latency_bounded_under_write_flood(void **state)
{
	(void)state;
	int64_t dl_max = 0, noop_max = 0;

	for (int pass = 0; pass < 2; pass++) {
		struct rig *r = rig_new(pass == 0 ? "deadline" : "noop", NULL);
		struct stream w;
		struct probe rd;

		stream_start(&w, r, 0, REQ_WRITE, 64, 2000 * MS);
		probe_start(&rd, r, 50000000, 0, 10 * MS, 50 * MS, 1900 * MS);
		rig_run(r);
		fprintf(stderr, "%s: %llu reads, max latency %.3f ms, %llu writes\n",
			pass == 0 ? "deadline" : "noop", (unsigned long long)rd.n,
			rd.max_lat / 1e6, (unsigned long long)w.done);
		assert_true(rd.n >= 15);
		assert_true(w.done > 1500);
		if (pass == 0)
			dl_max = rd.max_lat;
		else
			noop_max = rd.max_lat;
		rig_free(r);
	}
	assert_true(dl_max <= 500 * MS + SVC_NS);
	assert_true(dl_max <= (16 + 2) * SVC_NS);
	assert_true(noop_max >= 60 * SVC_NS); /* behind 64 queued writes */
	assert_true(dl_max * 3 < noop_max);
}

/* A lone read below an ascending read stream is never next in sector
 * order; only its expiry gets it served: latency tracks read_expire
 * (plus at most a batch), and without expiry it waits for the stream. */
static void test_deadline_read_expire_bounds_starved_read(void **state)
{
	(void)state;
	static const struct {
		const char *yaml;
		int64_t expire;
	} cases[] = {
		{ NULL, 500 * MS },
		{ "read_expire_ms: 100\n", 100 * MS },
		{ "read_expire_ms: 60000\n", 60000 * MS },
	};
	const int64_t stream_ns = 1000 * MS;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig *r = rig_new("deadline", cases[i].yaml);
		struct stream s;
		struct probe lone;

		stream_start(&s, r, 1000000, 0, 32, stream_ns);
		probe_start(&lone, r, 0, 0, 5 * MS, 0, 0);
		rig_run(r);
		assert_int_equal(lone.n, 1);
		if (cases[i].expire < stream_ns) {
			assert_true(lone.max_lat >= cases[i].expire);
			assert_true(lone.max_lat <= cases[i].expire + 17 * SVC_NS);
		} else {
			/* no expiry in sight: starved until the stream dries up */
			assert_true(lone.max_lat >= stream_ns - 5 * MS);
		}
		rig_free(r);
	}
}

/* One write during a read stream gets through after writes_starved read
 * batches, far sooner than write_expire; with a huge writes_starved it
 * waits for the stream to end. */
static void test_deadline_writes_starved_lets_writes_through(void **state)
{
	(void)state;
	const int64_t stream_ns = 1000 * MS;

	for (int pass = 0; pass < 2; pass++) {
		struct rig *r = rig_new("deadline", pass == 0 ? NULL : "writes_starved: 100000\n");
		struct stream s;
		struct probe wr;

		stream_start(&s, r, 1000000, 0, 32, stream_ns);
		probe_start(&wr, r, 0, REQ_WRITE, 5 * MS, 0, 0);
		rig_run(r);
		assert_int_equal(wr.n, 1);
		if (pass == 0)
			assert_true(wr.max_lat <= (2 + 1) * 16 * SVC_NS + 2 * SVC_NS);
		else
			assert_true(wr.max_lat >= 500 * MS); /* write_expire (5 s) never came */
		rig_free(r);
	}
}

/* Longest run of dir, ignoring the first run (the very first dispatch
 * finds an empty sort tree, so it has no successor and ends its batch). */
static void runs(const struct rig *r, char dir, int *max_run)
{
	int cur = 0, i = 1;

	*max_run = 0;
	while (i < r->nd && r->dirs[i] == r->dirs[0])
		i++;
	for (; i < r->nd; i++) {
		cur = r->dirs[i] == dir ? cur + 1 : 0;
		if (cur > *max_run)
			*max_run = cur;
	}
}

/* Both directions flooded: a write batch is exactly fifo_batch requests,
 * reads get writes_starved batches in a row. */
static void test_deadline_fifo_batch_sets_batch_length(void **state)
{
	(void)state;
	static const struct {
		const char *yaml;
		int batch;
	} cases[] = { { NULL, 16 }, { "fifo_batch: 4\n", 4 } };

	for (size_t i = 0; i < 2; i++) {
		struct rig *r = rig_new("deadline", cases[i].yaml);
		struct stream rs, ws;
		int rmax, wmax;

		/* only the steady state: the drain at the end is all one direction */
		r->record_until = 450 * MS;
		stream_start(&rs, r, 0, 0, 32, 500 * MS);
		stream_start(&ws, r, 100000000, REQ_WRITE, 32, 500 * MS);
		rig_run(r);
		runs(r, 'W', &wmax);
		runs(r, 'R', &rmax);
		assert_int_equal(wmax, cases[i].batch);
		assert_int_equal(rmax, 2 * cases[i].batch); /* writes_starved = 2 */
		rig_free(r);
	}
}

struct boost_probe {
	struct sim_event ev;
	struct rig *r;
	uint64_t sector;
	bool hit;
	int nd_at_boost;
};

static void boost_fire(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	struct boost_probe *b = container_of(ev, struct boost_probe, ev);
	b->nd_at_boost = b->r->nd;
	b->hit = blk_boost_lba(b->r->q, b->sector);
}

static void test_deadline_boost_lba_dispatches_next(void **state)
{
	(void)state;
	struct rig *r = rig_new("deadline", NULL);
	struct stream w;
	struct boost_probe b = { .r = r };

	/* 64 writes at 0, 16, 32, ...; the 60th is deep in the queue at 10 ms */
	stream_start(&w, r, 0, REQ_WRITE, 64, 100 * MS);
	b.sector = 60 * 16 + 4;
	sim_event_init(&b.ev, boost_fire);
	sim_at(r->sim, &b.ev, 10 * MS + 1);
	rig_run(r);
	assert_true(b.hit);
	assert_int_equal(blk_queue_elevator(r->q)->boost_hits, 1);
	/* at 10 ms the sweep was near sector 160; the boosted one went next */
	assert_true(b.nd_at_boost < 20);
	assert_int_equal(r->sec[b.nd_at_boost], 60 * 16);
	for (int i = 0; i < b.nd_at_boost; i++)
		assert_true(r->sec[i] != 60 * 16);
	rig_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadline_read_latency_bounded_under_write_flood),
		cmocka_unit_test(test_deadline_read_expire_bounds_starved_read),
		cmocka_unit_test(test_deadline_writes_starved_lets_writes_through),
		cmocka_unit_test(test_deadline_fifo_batch_sets_batch_length),
		cmocka_unit_test(test_deadline_boost_lba_dispatches_next),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
