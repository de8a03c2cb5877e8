/* Poisson source: the reference open workload for validating the engine
 * and the device models against queueing theory. Requests arrive with
 * exponential inter-arrival times at rate_per_s, each a read (or a write,
 * with write_fraction) of size_kib at a uniformly random aligned sector.
 * Response time (arrival to completion) goes into the fg (or bg) class.
 *
 * target: device submits straight to the device model (the textbook
 * queue; the device's own FIFO holds the backlog), block goes through the
 * block layer and the configured scheduler. Requests come from a free list,
 * so memory follows the number outstanding, not the number issued.
 */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <jansson.h>

#include "models/block/block.h"
#include "models/device/device.h"
#include "sim/sim.h"
#include "sim/workload.h"
#include "traces/workloads/overload.h"

enum poisson_target { POISSON_TO_DEVICE, POISSON_TO_BLOCK };
static const char *const poisson_target_names[] = { "device", "block", NULL };
static const char *const poisson_class_names[] = { "fg", "bg", NULL };

struct poisson_req {
	struct io_request rq;   /* target device */
	struct bio bio;         /* target block */
	int64_t arrival;
	struct poisson_req *next_free;
	struct poisson_req *next_all; /* every object ever allocated, for teardown */
};

struct poisson {
	/* tunables */
	double rate_per_s;
	int64_t requests;
	uint64_t size_bytes;
	double write_fraction;
	uint64_t span_bytes;
	int target;
	int cls;
	bool sync_writes;
	struct overload ovl;

	struct sim *sim;
	gsl_rng *rng;
	struct sim_event arrival_ev;
	struct io_context ioc;
	struct list_head backlog;   /* device target: waiting for can_accept */
	struct poisson_req *free, *all;
	uint64_t issued, completed, allocated;
	uint64_t next_id;
};

#define PS_OFF(f) offsetof(struct poisson, f)

static const struct cfg_param poisson_params[] = {
	{ "rate_per_s", CFG_T_DOUBLE, PS_OFF(rate_per_s), "1/s", "5000", 1e-6, 1e10,
	  "choice: rho = 0.5 on the ideal device's 100 us default", "mean arrival rate", NULL },
	{ "requests", CFG_T_INT, PS_OFF(requests), "", "1000000", 1, 1e12,
	  "10^6 requests for 1 % agreement", "requests to issue", NULL },
	{ "size_kib", CFG_T_SIZE, PS_OFF(size_bytes), "KiB", "4", 0.5, 1048576,
	  "AndroBench random-I/O convention (docs/references.md §1.1)", "request size", NULL },
	{ "write_fraction", CFG_T_DOUBLE, PS_OFF(write_fraction), "", "0", 0, 1,
	  "choice", "probability that a request is a write", NULL },
	{ "span_gib", CFG_T_SIZE, PS_OFF(span_bytes), "GiB", "8", 0.001, 1048576,
	  "choice", "LBA range the sectors are drawn from", NULL },
	{ "target", CFG_T_ENUM, PS_OFF(target), "", "device", CFG_NO_RANGE,
	  "device = the textbook queue", "where requests enter: device or block layer",
	  poisson_target_names },
	{ "class", CFG_T_ENUM, PS_OFF(cls), "", "fg", CFG_NO_RANGE,
	  "choice", "task class the latencies are reported under", poisson_class_names },
	{ "sync_writes", CFG_T_BOOL, PS_OFF(sync_writes), "", "true", CFG_NO_RANGE,
	  "choice: direct I/O writes are REQ_SYNC", "mark writes REQ_SYNC", NULL },
	{ "max_outstanding", CFG_T_INT, PS_OFF(ovl.max), "", "1000000", 1, 1e12,
	  "choice: about 340 MB at the measured 340 B a request; an M/M/1 at rho < 1 rarely passes 100",
	  OVERLOAD_HELP, NULL },
	CFG_PARAM_END,
};

static struct poisson_req *poisson_alloc(struct poisson *p)
{
	struct poisson_req *r = p->free;
	if (r) {
		p->free = r->next_free;
		struct poisson_req *all = r->next_all;
		memset(r, 0, sizeof(*r));
		r->next_all = all;
		return r;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->next_all = p->all;
	p->all = r;
	p->allocated++;
	return r;
}

static void poisson_release(struct poisson *p, struct poisson_req *r)
{
	r->next_free = p->free;
	p->free = r;
}

static void poisson_record(struct poisson *p, struct poisson_req *r, uint32_t flags)
{
	int64_t lat = sim_now(p->sim) - r->arrival;
	sim_metrics_op(&p->sim->metrics, (enum sim_class)p->cls,
		       req_is_write(flags) ? SIM_OP_WRITE : SIM_OP_READ, p->size_bytes, lat);
	p->completed++;
	poisson_release(p, r);
	if (p->completed == (uint64_t)p->requests)
		sim_workload_progress(p->sim);
}

static void poisson_feed_device(struct poisson *p)
{
	while (!list_empty(&p->backlog)) {
		struct io_request *rq = list_first_entry(&p->backlog, struct io_request, queuelist);
		if (!device_can_accept(p->sim->device, rq))
			return;
		list_del_init(&rq->queuelist);
		device_submit(p->sim->device, rq);
	}
}

static void poisson_device_done(void *upper, struct io_request *rq)
{
	struct poisson *p = upper;
	struct poisson_req *r = container_of(rq, struct poisson_req, rq);
	poisson_record(p, r, rq->flags);
	poisson_feed_device(p);
}

static void poisson_bio_done(struct sim *sim, struct bio *bio)
{
	struct poisson *p = bio->private;
	struct poisson_req *r = container_of(bio, struct poisson_req, bio);
	poisson_record(p, r, bio->flags);
}

static void poisson_arrival(struct sim *sim, struct sim_event *ev)
{
	struct poisson *p = container_of(ev, struct poisson, arrival_ev);
	if (!overload_admit(&p->ovl, sim, "source.max_outstanding", p->issued + 1 - p->completed,
			    p->completed, p->issued + 1))
		return;
	struct poisson_req *r = poisson_alloc(p);
	if (!r) {
		sim_fail(sim, SIM_E_NOMEM, "poisson source: out of memory");
		return;
	}
	uint64_t sectors = p->size_bytes >> SECTOR_SHIFT;
	uint64_t slots = p->span_bytes / p->size_bytes;
	uint64_t sector = gsl_rng_uniform_int(p->rng, slots ? slots : 1) * sectors;
	uint32_t flags = 0;
	if (p->write_fraction > 0 && gsl_rng_uniform(p->rng) < p->write_fraction)
		flags = REQ_WRITE | (p->sync_writes ? REQ_SYNC : 0);
	if (p->cls == SIM_CLASS_FG)
		flags |= REQ_FG;
	r->arrival = sim_now(sim);

	if (p->target == POISSON_TO_DEVICE) {
		struct io_request *rq = &r->rq;
		rq->id = p->next_id++;
		rq->sector = sector;
		rq->nr_sectors = (uint32_t)sectors;
		rq->nr_segments = 1;
		rq->flags = flags;
		rq->ioc = &p->ioc;
		rq->t_queue = rq->t_getrq = rq->t_insert = r->arrival;
		list_init(&rq->queuelist);
		list_init(&rq->dev_node);
		list_add_tail(&rq->queuelist, &p->backlog);
		poisson_feed_device(p);
	} else {
		struct bio *bio = &r->bio;
		bio->sector = sector;
		bio->nr_sectors = (uint32_t)sectors;
		bio->flags = flags;
		bio->ioc = &p->ioc;
		bio->end_io = poisson_bio_done;
		bio->private = p;
		blk_submit_bio(sim->blk, NULL, bio, NULL);
	}

	if (++p->issued < (uint64_t)p->requests) {
		double gap_s = gsl_ran_exponential(p->rng, 1.0 / p->rate_per_s);
		int64_t gap = (int64_t)(gap_s * 1e9 + 0.5);
		sim_after(sim, ev, gap);
	}
}

static int poisson_create(struct sim *sim, struct cfg_node *node, void **state,
			  struct sim_error *err)
{
	struct poisson *p = calloc(1, sizeof(*p));
	if (!p)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = cfg_apply(poisson_params, node, p, err);
	if (rc) {
		free(p);
		return rc;
	}
	if (p->size_bytes % SECTOR_SIZE) {
		free(p);
		return cfg_errorf(err, cfg_get(node, "size_kib"), "size must be a multiple of 512 bytes");
	}
	if (p->target == POISSON_TO_BLOCK && !sim->blk) {
		free(p);
		return cfg_errorf(err, cfg_get(node, "target"),
				  "target: block needs a `scheduler:` in the scenario");
	}
	p->sim = sim;
	sim->replay = "open"; /* arrivals do not wait for completions */
	p->rng = sim_rng(sim, "source.poisson");
	p->ioc = (struct io_context){ .pid = 1000, .tgid = 1000, .uid = 10000,
				      .ioprio_class = IOPRIO_CLASS_BE, .ioprio_level = IOPRIO_NORM,
				      .fg = p->cls == SIM_CLASS_FG, .comm = "poisson" };
	list_init(&p->backlog);
	sim_event_init(&p->arrival_ev, poisson_arrival);
	if (p->target == POISSON_TO_DEVICE) {
		sim->device->on_complete = poisson_device_done;
		sim->device->upper = p;
	}
	*state = p;
	return 0;
}

static void poisson_start(struct sim *sim, void *state)
{
	struct poisson *p = state;
	sim_at(sim, &p->arrival_ev, sim_now(sim));
}

static bool poisson_done(struct sim *sim, void *state)
{
	struct poisson *p = state;
	return p->issued == (uint64_t)p->requests && p->completed == p->issued;
}

static void poisson_stats_json(struct sim *sim, void *state, json_t *obj)
{
	struct poisson *p = state;
	json_object_set_new(obj, "issued", json_integer((json_int_t)p->issued));
	json_object_set_new(obj, "completed", json_integer((json_int_t)p->completed));
	json_object_set_new(obj, "request_objects", json_integer((json_int_t)p->allocated));
	overload_json(&p->ovl, obj);
	json_object_set_new(obj, "params", cfg_params_to_json(poisson_params, p));
}

static void poisson_destroy(void *state)
{
	struct poisson *p = state;
	if (!p)
		return;
	while (p->all) {
		struct poisson_req *r = p->all;
		p->all = r->next_all;
		free(r);
	}
	free(p);
}

/* target: block needs a `scheduler:` in the scenario, which is what makes
 * sim_create build the block queue. */
const struct workload_ops poisson_workload_ops = {
	.name = "poisson",
	.summary = "open Poisson arrivals of fixed-size random I/O (queueing reference)",
	.create = poisson_create,
	.start = poisson_start,
	.done = poisson_done,
	.stats_json = poisson_stats_json,
	.destroy = poisson_destroy,
	.needs_block = false,
	.needs_stack = false,
};
