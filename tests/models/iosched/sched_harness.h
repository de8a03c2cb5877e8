/* A scheduler test bench shared by the I/O scheduler tests
 * (tests/models/iosched/test_cfq.c, tests/models/policies/test_fgcfq.c): a
 * real block queue with the scheduler under test over an ideal device,
 * driven by closed-loop streams of bios of given pid, class and priority,
 * recording every completion's pid, sector and time in order. Static
 * inline functions: a test uses what it needs.
 */
#ifndef TESTS_SCHED_HARNESS_H
#define TESTS_SCHED_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/block/elevator.h"
#include "models/block/request.h"
#include "models/device/device.h"
#include "sim/config.h"
#include "sim/sim.h"
#include "sim/stats.h"

#define MS 1000000LL
#define US 1000LL
#define MAXD 64

struct harness;

struct tio {
	struct bio bio;
	struct sim_event ev;
	struct stream *s;
	int64_t t_done;                   /* when it last completed */
};

/* A closed-loop submitter: depth bios outstanding; each completion issues
 * the next one after think_ns (never inside the completion callback). */
struct stream {
	struct harness *h;
	struct io_context ioc;
	struct io_context *iocp;          /* submitter: &ioc, or another stream's */
	uint32_t flags;
	uint32_t nr_sectors;
	uint64_t next_sector, stride;
	int depth;
	int64_t think_ns;
	int64_t stop_ns;                  /* issue nothing at or after this */
	int64_t pause_from, pause_to;     /* issue nothing in [from, to) */
	struct tio io[MAXD];
	uint64_t issued, done;
	struct stats_dist lat;
	struct stats_dist lat_window;     /* completions in [win_from, win_to) */
	int64_t win_from, win_to;
	uint64_t done_window;
};

struct harness {
	struct sim *sim;
	struct cfg_doc *dev_doc, *cfq_doc;
	struct device *dev;
	struct blk_queue *q;
	int32_t *order;                   /* pid of each completion, in order */
	uint64_t *osec;                   /* and its first sector */
	int64_t *otime;                   /* and its time */
	size_t norder, cap;
	struct stream *streams[8];
	int nstreams;
};

static inline struct harness *h_new(const char *sched, const char *dev_yaml, const char *cfq_yaml)
{
	struct harness *h = calloc(1, sizeof(*h));
	struct sim_error err = { 0 };
	assert_non_null(h);
	h->sim = sim_new_bare(1);
	assert_non_null(h->sim);
	assert_int_equal(cfg_load_string(dev_yaml, strlen(dev_yaml), "dev", &h->dev_doc, &err), 0);
	assert_int_equal(device_create(h->sim, cfg_root(h->dev_doc), &h->dev, &err), 0);
	if (cfq_yaml)
		assert_int_equal(cfg_load_string(cfq_yaml, strlen(cfq_yaml), "cfq", &h->cfq_doc, &err), 0);
	int rc = blk_queue_create(h->sim, h->dev, NULL, sched, h->cfq_doc ? cfg_root(h->cfq_doc) : NULL,
				  &h->q, &err);
	if (rc)
		fprintf(stderr, "blk_queue_create: %s\n", err.msg);
	assert_int_equal(rc, 0);
	return h;
}

static inline void stream_free(struct stream *s);

/* Stop every stream and drain the run (requests may still be on the
 * device, events embedded in them), check the queue's invariants, then
 * tear down. */
static inline void h_free(struct harness *h)
{
	for (int i = 0; i < h->nstreams; i++)
		h->streams[i]->stop_ns = 0;
	sim_engine_run(&h->sim->engine, SIM_TIME_MAX);
	assert_int_equal(sim_engine_pending(&h->sim->engine), 0);
	assert_int_equal(blk_queue_outstanding(h->q), 0);
	struct sim_error err = { 0 };
	assert_int_equal(blk_queue_check(h->q, true, &err), 0);
	for (int i = 0; i < h->nstreams; i++)
		stream_free(h->streams[i]);
	blk_queue_destroy(h->q);
	device_destroy(h->dev);
	sim_destroy(h->sim);
	cfg_free(h->dev_doc);
	cfg_free(h->cfq_doc);
	free(h->order);
	free(h->osec);
	free(h->otime);
	free(h);
}

static inline void h_run(struct harness *h, int64_t until)
{
	sim_engine_run(&h->sim->engine, until);
	assert_false(h->sim->failed);
}

static inline void stream_issue(struct stream *s, struct tio *t);

static inline void tio_end(struct sim *sim, struct bio *bio)
{
	struct tio *t = container_of(bio, struct tio, bio);
	struct stream *s = t->s;
	struct harness *h = s->h;
	int64_t now = sim_now(sim);
	int64_t lat = now - bio->t_queue;

	s->done++;
	t->t_done = now;
	stats_dist_add(&s->lat, lat);
	if (now >= s->win_from && now < s->win_to) {
		s->done_window++;
		stats_dist_add(&s->lat_window, lat);
	}
	if (h->norder == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 4096;
		h->order = realloc(h->order, h->cap * sizeof(*h->order));
		h->osec = realloc(h->osec, h->cap * sizeof(*h->osec));
		h->otime = realloc(h->otime, h->cap * sizeof(*h->otime));
		assert_non_null(h->order);
		assert_non_null(h->osec);
		assert_non_null(h->otime);
	}
	h->osec[h->norder] = bio->sector;
	h->otime[h->norder] = now;
	h->order[h->norder++] = s->iocp->pid;

	int64_t when = now + s->think_ns;
	if (when >= s->pause_from && when < s->pause_to)
		when = s->pause_to;
	if (when < s->stop_ns)
		sim_at(sim, &t->ev, when);
}

static inline void tio_fire(struct sim *sim, struct sim_event *ev)
{
	struct tio *t = container_of(ev, struct tio, ev);
	(void)sim;
	stream_issue(t->s, t);
}

/* Fill t's bio with s's next request (without submitting it). */
static inline void stream_bio(struct stream *s, struct tio *t)
{
	struct bio *b = &t->bio;

	memset(b, 0, sizeof(*b));
	b->sector = s->next_sector;
	b->nr_sectors = s->nr_sectors;
	b->flags = s->flags;
	b->ioc = s->iocp;
	b->t_queue = sim_now(s->h->sim);
	b->end_io = tio_end;
	b->private = s;
	s->next_sector += s->stride;
	s->issued++;
}

static inline void stream_issue(struct stream *s, struct tio *t)
{
	stream_bio(s, t);
	blk_submit_bio(s->h->q, NULL, &t->bio, NULL);
}

/* A stream of pid with class/prio; starts issuing at start_ns. */
static inline void stream_init(struct stream *s, struct harness *h, int32_t pid, int cls, int prio,
			uint32_t flags, uint32_t nr_sectors, uint64_t first_sector, int depth,
			int64_t think_ns, int64_t start_ns)
{
	memset(s, 0, sizeof(*s));
	s->h = h;
	s->ioc.pid = pid;
	s->ioc.tgid = pid;
	s->ioc.ioprio_class = (uint8_t)cls;
	s->ioc.ioprio_level = (uint8_t)prio;
	s->ioc.comm = "test";
	s->iocp = &s->ioc;
	s->flags = flags;
	s->nr_sectors = nr_sectors;
	s->next_sector = first_sector;
	/* a gap after each request: sequential for seekiness, never merging */
	s->stride = nr_sectors + 8;
	s->depth = depth;
	s->think_ns = think_ns;
	s->stop_ns = SIM_TIME_MAX;
	s->pause_from = s->pause_to = -1;
	s->win_from = s->win_to = -1;
	stats_dist_init(&s->lat);
	stats_dist_init(&s->lat_window);
	assert_true(depth <= MAXD);
	assert_true(h->nstreams < 8);
	h->streams[h->nstreams++] = s;
	for (int i = 0; i < depth; i++) {
		s->io[i].s = s;
		sim_event_init(&s->io[i].ev, tio_fire);
		sim_at(h->sim, &s->io[i].ev, start_ns);
	}
}

static inline void stream_free(struct stream *s)
{
	stats_dist_free(&s->lat);
	stats_dist_free(&s->lat_window);
}

/* One bio of s, issued by hand (depth 0 streams). */
static inline void tio_init(struct tio *t, struct stream *s)
{
	memset(t, 0, sizeof(*t));
	t->s = s;
	sim_event_init(&t->ev, tio_fire);
}

static inline json_t *h_cfq_stats(struct harness *h)
{
	struct elevator *e = blk_queue_elevator(h->q);
	json_t *o = json_object();
	assert_non_null(e->ops->stats_json);
	e->ops->stats_json(e, o);
	return o;
}

static inline int64_t h_stat(struct harness *h, const char *key)
{
	json_t *o = h_cfq_stats(h);
	json_t *v = json_object_get(o, key);
	assert_non_null(v);
	int64_t r = json_integer_value(v);
	json_decref(o);
	return r;
}

/* Mean length of runs of consecutive completions by pid. */
static inline double h_mean_run(const struct harness *h, int32_t pid)
{
	uint64_t runs = 0, items = 0;
	for (size_t i = 0; i < h->norder; i++) {
		if (h->order[i] != pid)
			continue;
		items++;
		if (i == 0 || h->order[i - 1] != pid)
			runs++;
	}
	return runs ? (double)items / (double)runs : 0.0;
}

#endif
