/* Test rig for blk-mq and its schedulers: an ideal device with a fixed
 * service time and a chosen queue depth under a blk-mq queue, a trace
 * sink that records dispatches, inserts and unplugs, closed-loop streams
 * and periodic probes. Header-only, included by the mq tests.
 */
#ifndef TESTS_MQ_RIG_H
#define TESTS_MQ_RIG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/device/device.h"
#include "models/block/elevator.h"
#include "sim/config.h"
#include "sim/sim.h"

#define MS 1000000LL
#define MQ_RIG_MAX 40000

struct mq_rig {
	struct sim *sim;
	struct cfg_doc *dev_doc, *blk_doc;
	struct device *dev;
	struct blk_queue *q;
	int nd, ni, nu, ns;
	int32_t dpid[MQ_RIG_MAX];  /* pid per dispatch, in order */
	char ddir[MQ_RIG_MAX];     /* 'R'/'W' per dispatch */
	int64_t dtime[MQ_RIG_MAX];
	uint32_t last_unplug_depth;
};

static inline void mq_rig_sink(void *ctx, const struct blk_trace_event *e)
{
	struct mq_rig *r = ctx;

	switch (e->action) {
	case 'D':
		if (r->nd < MQ_RIG_MAX) {
			r->dpid[r->nd] = e->pid;
			r->ddir[r->nd] = req_is_write(e->flags) ? 'W' : 'R';
			r->dtime[r->nd] = e->time_ns;
		}
		r->nd++;
		break;
	case 'I':
		r->ni++;
		break;
	case 'U':
		r->nu++;
		r->last_unplug_depth = e->depth;
		break;
	case 'S':
		r->ns++;
		break;
	default:
		break;
	}
}

/* svc_us: device service time; qd: device queue depth, served by
 * `servers` commands at once; dev_yaml extra device keys (a UFS `host:`
 * map); block_yaml extra `block:` keys (kind: mq is added); sched_yaml the
 * scheduler's section. */
static inline struct mq_rig *mq_rig_new_dev(const char *sched, int svc_us, int qd, int servers,
					    const char *dev_yaml, const char *block_yaml,
					    const char *sched_yaml)
{
	char dev[512], blk[512];
	struct mq_rig *r = calloc(1, sizeof(*r));
	struct sim_error err = { 0 };
	struct cfg_doc *sdoc = NULL;
	int rc;

	assert_non_null(r);
	r->sim = sim_new_bare(7);
	snprintf(dev, sizeof(dev),
		 "model: ideal\nservice: fixed\nmean_us: %d\nqueue_depth: %d\nservers: %d\n%s", svc_us,
		 qd, servers, dev_yaml ? dev_yaml : "");
	snprintf(blk, sizeof(blk), "kind: mq\n%s", block_yaml ? block_yaml : "");
	assert_int_equal(cfg_load_string(dev, strlen(dev), "dev", &r->dev_doc, &err), 0);
	assert_int_equal(device_create(r->sim, cfg_root(r->dev_doc), &r->dev, &err), 0);
	assert_int_equal(cfg_load_string(blk, strlen(blk), "block", &r->blk_doc, &err), 0);
	if (sched_yaml)
		assert_int_equal(cfg_load_string(sched_yaml, strlen(sched_yaml), "sched", &sdoc, &err), 0);
	rc = blk_queue_create(r->sim, r->dev, cfg_root(r->blk_doc), sched,
			      sdoc ? cfg_root(sdoc) : NULL, &r->q, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	assert_int_equal(rc, 0);
	if (sdoc)
		cfg_free(sdoc);
	struct blk_trace_sink sink = { mq_rig_sink, r };
	blk_set_trace_sink(r->q, &sink);
	return r;
}

static inline struct mq_rig *mq_rig_new_servers(const char *sched, int svc_us, int qd, int servers,
						const char *block_yaml, const char *sched_yaml)
{
	return mq_rig_new_dev(sched, svc_us, qd, servers, NULL, block_yaml, sched_yaml);
}

static inline struct mq_rig *mq_rig_new(const char *sched, int svc_us, int qd,
					const char *block_yaml, const char *sched_yaml)
{
	return mq_rig_new_servers(sched, svc_us, qd, 1, block_yaml, sched_yaml);
}

/* The scheduler's stats object of the queue's JSON (caller decrefs root). */
static inline json_t *mq_rig_sched_stats(struct mq_rig *r, json_t **root)
{
	*root = blk_queue_to_json(r->q);
	return json_object_get(*root, "scheduler_stats");
}

static inline void mq_rig_free(struct mq_rig *r)
{
	struct sim_error err = { 0 };
	int rc = blk_queue_check(r->q, true, &err);

	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	assert_int_equal(rc, 0);
	blk_queue_destroy(r->q);
	device_destroy(r->dev);
	cfg_free(r->dev_doc);
	cfg_free(r->blk_doc);
	sim_destroy(r->sim);
	free(r);
}

static inline void mq_rig_run(struct mq_rig *r)
{
	sim_engine_run(&r->sim->engine, SIM_TIME_MAX);
}

/* A closed-loop stream of one process: depth bios outstanding, sectors
 * spaced so nothing merges, a think time after each completion, issuing
 * until stop_ns. */
struct mq_stream;
struct mq_slot {
	struct sim_event ev;
	struct bio bio;
	struct mq_stream *s;
};

struct mq_stream {
	struct mq_rig *r;
	struct io_context ioc;
	struct mq_slot slot[128];
	uint64_t next;
	uint32_t flags, nr_sectors;
	int64_t stop_ns, think_ns;
	uint64_t done, bytes;
	int64_t lat_sum, max_lat;
};

static void mq_stream_end_io(struct sim *sim, struct bio *b);

static void mq_stream_issue(struct mq_stream *s, struct mq_slot *sl)
{
	struct bio *b = &sl->bio;

	memset(b, 0, sizeof(*b));
	b->sector = s->next;
	s->next += 2 * s->nr_sectors;
	b->nr_sectors = s->nr_sectors;
	b->flags = s->flags;
	b->ioc = &s->ioc;
	b->end_io = mq_stream_end_io;
	b->private = sl;
	blk_submit_bio(s->r->q, NULL, b, NULL);
}

static void mq_stream_think(struct sim *sim, struct sim_event *ev)
{
	struct mq_slot *sl = container_of(ev, struct mq_slot, ev);

	(void)sim;
	mq_stream_issue(sl->s, sl);
}

static void mq_stream_end_io(struct sim *sim, struct bio *b)
{
	struct mq_slot *sl = b->private;
	struct mq_stream *s = sl->s;
	int64_t lat = sim_now(sim) - b->t_queue;

	s->done++;
	s->bytes += (uint64_t)b->nr_sectors * 512;
	s->lat_sum += lat;
	if (lat > s->max_lat)
		s->max_lat = lat;
	if (sim_now(sim) >= s->stop_ns)
		return;
	if (s->think_ns)
		sim_after(sim, &sl->ev, s->think_ns);
	else
		mq_stream_issue(s, sl);
}

/* Start at time `at` (0 = now). */
static inline void mq_stream_start(struct mq_stream *s, struct mq_rig *r, int32_t pid, uint64_t first,
			    uint32_t flags, uint32_t nr_sectors, int depth, int64_t think_ns,
			    int64_t at, int64_t stop_ns)
{
	memset(s, 0, sizeof(*s));
	s->r = r;
	s->ioc.pid = s->ioc.tgid = pid;
	s->ioc.ioprio_class = IOPRIO_CLASS_BE;
	s->ioc.ioprio_level = IOPRIO_NORM;
	s->ioc.comm = "stream";
	s->next = first;
	s->flags = flags;
	s->nr_sectors = nr_sectors;
	s->think_ns = think_ns;
	s->stop_ns = stop_ns;
	for (int i = 0; i < depth; i++) {
		s->slot[i].s = s;
		sim_event_init(&s->slot[i].ev, mq_stream_think);
		if (at > 0)
			sim_at(r->sim, &s->slot[i].ev, at);
		else
			mq_stream_issue(s, &s->slot[i]);
	}
}

static inline double mq_stream_mean_ms(const struct mq_stream *s)
{
	return s->done ? (double)s->lat_sum / (double)s->done / 1e6 : 0.0;
}

#endif
