/* Closed-loop measurement of a device model (see device_curve.h). The
 * method follows fio's: keep qd commands in flight, issue a new one at each
 * completion, report the mean completion latency and the throughput over
 * the window after the first quarter of completions (so a write buffer
 * that starts empty does not flatter sustained writes, as AndroBench's
 * long runs would not).
 */
#include "models/device/device_curve.h"

#include <stdlib.h>
#include <string.h>

#include "models/device/device.h"
#include "sim/sim.h"

struct curve_ctx {
	struct device *dev;
	const struct device_curve_opts *opt;
	gsl_rng *rng;
	struct io_request *rqs;  /* qd slots */
	struct io_request **free_rqs;
	uint32_t nfree;
	uint32_t issued, completed, warm, n;
	uint64_t next_sector, span_units, id;
	int64_t t_start, t_end;
	__int128 lat_sum;
	uint64_t measured;
	int64_t min_lat;
};

static void curve_issue(struct curve_ctx *c)
{
	while (c->issued < c->n && c->nfree && device_can_accept(c->dev, NULL)) {
		struct io_request *rq = c->free_rqs[--c->nfree];
		uint32_t sectors = (uint32_t)(c->opt->bytes >> SECTOR_SHIFT);
		memset(rq, 0, sizeof(*rq));
		list_init(&rq->queuelist);
		list_init(&rq->hash);
		list_init(&rq->dev_node);
		rq->id = ++c->id;
		if (c->opt->pattern == DEVICE_CURVE_SEQ) {
			rq->sector = c->next_sector;
			c->next_sector += sectors;
		} else {
			rq->sector = (uint64_t)gsl_rng_uniform_int(c->rng, c->span_units) * sectors;
		}
		rq->nr_sectors = sectors;
		rq->nr_segments = 1;
		rq->flags = (c->opt->write ? REQ_WRITE : 0) | c->opt->flags;
		int64_t now = sim_now(c->dev->sim);
		rq->t_queue = rq->t_getrq = rq->t_insert = now;
		c->issued++;
		device_submit(c->dev, rq);
	}
}

static void curve_complete(void *upper, struct io_request *rq)
{
	struct curve_ctx *c = upper;
	int64_t now = rq->t_complete;
	c->completed++;
	if (c->min_lat < 0 || rq->t_complete - rq->t_dispatch < c->min_lat)
		c->min_lat = rq->t_complete - rq->t_dispatch;
	if (c->completed == c->warm)
		c->t_start = now;
	else if (c->completed > c->warm) {
		c->lat_sum += rq->t_complete - rq->t_dispatch;
		c->measured++;
		c->t_end = now;
	}
	c->free_rqs[c->nfree++] = rq;
	curve_issue(c);
}

int device_curve_measure(struct cfg_node *node, const struct device_curve_opts *opt,
			 struct device_curve_result *out, struct sim_error *err)
{
	memset(out, 0, sizeof(*out));
	if (opt->bytes < SECTOR_SIZE || opt->bytes % SECTOR_SIZE)
		return sim_errorf(err, SIM_E_INPUT, "request size must be a positive multiple of 512");
	struct sim *sim = sim_new_bare(opt->seed);
	if (!sim)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory building a simulator");
	struct device *dev;
	int rc = device_create(sim, node, &dev, err);
	if (rc) {
		sim_destroy(sim);
		return rc;
	}
	struct curve_ctx c = { .dev = dev, .opt = opt, .min_lat = -1 };
	uint32_t qd = opt->qd ? opt->qd : 1;
	if (dev->queue_depth && qd > dev->queue_depth)
		qd = dev->queue_depth;
	c.n = opt->nreq;
	if (!c.n) {
		/* enough bytes that a write buffer filling at (link - drain)
		 * rate is full before the measured window opens */
		uint64_t by_bytes = (256ull << 20) / opt->bytes;
		c.n = by_bytes > 256 ? (uint32_t)(by_bytes < 65536 ? by_bytes : 65536) : 256;
	}
	if (c.n < 4 * qd)
		c.n = 4 * qd;
	c.warm = c.n / 4;
	/* a device with a geometry is measured over all of it (a disk's
	 * random reads are full-stroke), others over 4 GiB */
	uint64_t span = opt->span_bytes ? opt->span_bytes
			: dev->capacity_bytes ? dev->capacity_bytes : (4ull << 30);
	c.span_units = span / opt->bytes ? span / opt->bytes : 1;
	c.rng = sim_rng(sim, "device.curve");
	c.rqs = calloc(qd, sizeof(*c.rqs));
	c.free_rqs = calloc(qd, sizeof(*c.free_rqs));
	if (!c.rqs || !c.free_rqs) {
		free(c.rqs);
		free(c.free_rqs);
		device_destroy(dev);
		sim_destroy(sim);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < qd; i++)
		c.free_rqs[c.nfree++] = &c.rqs[i];
	dev->on_complete = curve_complete;
	dev->upper = &c;
	curve_issue(&c);
	sim_engine_run(&sim->engine, SIM_TIME_MAX);
	rc = 0;
	if (sim->failed) {
		*err = sim->fail;
		rc = sim->fail.code ? sim->fail.code : SIM_E_RUNTIME;
	} else if (c.completed != c.n) {
		rc = sim_errorf(err, SIM_E_RUNTIME, "device completed %u of %u commands", c.completed,
				c.n);
	}
	if (!rc && c.measured) {
		out->lat_us = (double)c.lat_sum / (double)c.measured / 1000.0;
		int64_t win = c.t_end - c.t_start;
		out->mbps = win > 0 ? (double)(c.measured * opt->bytes) / ((double)win / 1e9) / 1e6 : 0;
		out->measured = c.measured;
	}
	out->qd_used = qd;
	out->min_lat_us = (double)c.min_lat / 1000.0;
	out->link_bps = dev->link_bps;
	free(c.rqs);
	free(c.free_rqs);
	device_destroy(dev);
	sim_destroy(sim);
	return rc;
}
