/* Block layer core: the request queue, the request pool with its
 * sync/async limits and sleepers, the submit path of a bio, dispatch to
 * the device and completion. Follows block/blk-core.c of Linux 3.10-4.4
 * (blk_queue_bio, get_request/__get_request, freed_request,
 * __elv_add_request, __blk_run_queue, blk_finish_request).
 *
 * Modelling choices, each deliberate:
 * - get_request follows __get_request: the allocation that fills a list
 *   makes its task a batcher (BLK_BATCH_REQ = 32 more requests within
 *   BLK_BATCH_TIME = 20 ms), a full list admits only batchers and
 *   ELV_MQUEUE_MUST, nobody passes 3/2 nr_requests; every free below
 *   nr_requests wakes the oldest sleeper (exclusive wake-up), which
 *   retries as a batcher from an event at the same instant. Batching
 *   state lives per queue keyed by io_context rather than in it.
 * - Flush/FUA requests skip the blk-flush.c state machine: they go to the
 *   tail of the dispatch list (ELEVATOR_INSERT_FLUSH) and act as a soft
 *   barrier there; the device model sees the flags.
 * - At completion the scheduler hears of it and the request is freed
 *   before the bios' end_io run. The kernel calls end_io first, but the
 *   tasks those wake run later; calling back in this order keeps any I/O
 *   a callback submits at once behind the scheduler's bookkeeping, as it
 *   is in the kernel.
 * - The scheduler is asked to dispatch only when the device has a free
 *   command slot (the driver's request_fn / mmcqd fetching), so it can
 *   base its choice on what is really in flight.
 * Left out: bio splitting (a bio larger than max_sectors stays one
 * request), bounce buffers, integrity, discard, requeue, timeouts, the
 * rl->starved corner of allocation failure, blk-mq.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/block/blk_int.h"
#include "models/block/block.h"
#include "sim/assert.h"
#include "sim/sim.h"
#include "sim/zero.h"

/* --------------------------------------------------------------- limits */

static const struct cfg_param blk_params[] = {
	{ .key = "max_sectors_kib", .type = CFG_T_SIZE,
	  .offset = offsetof(struct blk_limits, max_sectors_bytes), .unit = "KiB", .def = "512",
	  .min = 4, .max = 32768,
	  .source = "include/linux/blkdev.h BLK_DEF_MAX_SECTORS = 1024 sectors (Linux 3.10-4.4)",
	  .help = "largest request the block layer builds by merging (sysfs max_sectors_kb)" },
	{ .key = "max_segments", .type = CFG_T_INT,
	  .offset = offsetof(struct blk_limits, max_segments), .unit = "", .def = "128",
	  .min = 1, .max = 65535,
	  .source = "include/linux/blkdev.h BLK_MAX_SEGMENTS = 128",
	  .help = "scatter-gather segments per request" },
	{ .key = "max_segment_size_kib", .type = CFG_T_SIZE,
	  .offset = offsetof(struct blk_limits, max_segment_size_bytes), .unit = "KiB",
	  .def = "64", .min = 4, .max = 4096,
	  .source = "include/linux/blkdev.h BLK_MAX_SEGMENT_SIZE = 65536",
	  .help = "largest physically contiguous segment" },
	{ .key = "nr_requests", .type = CFG_T_INT,
	  .offset = offsetof(struct blk_limits, nr_requests), .unit = "", .def = "128",
	  .min = 4, .max = 1000000,
	  .source = "include/linux/blkdev.h BLKDEV_MAX_RQ = 128 (min BLKDEV_MIN_RQ = 4); "
		    "counted separately for sync and async (struct request_list)",
	  .help = "requests per sync/async class before submitters sleep in get_request" },
	CFG_PARAM_END,
};

const struct cfg_param *blk_queue_params(void)
{
	return blk_params;
}

/* ---------------------------------------------------------------- trace */

void blk_trace_emit(struct blk_queue *q, char action, const struct io_request *rq,
		    const struct bio *bio, uint32_t depth)
{
	struct blk_trace_event ev;
	const struct io_context *ioc = rq ? rq->ioc : bio ? bio->ioc : NULL;

	memset(&ev, 0, sizeof(ev));
	ev.time_ns = sim_now(q->sim);
	ev.action = action;
	if (rq) {
		ev.sector = rq->sector;
		ev.nr_sectors = rq->nr_sectors;
		ev.flags = rq->flags;
	} else if (bio) {
		ev.sector = bio->sector;
		ev.nr_sectors = bio->nr_sectors;
		ev.flags = bio->flags;
		ev.error = bio->error;
	}
	ev.pid = ioc ? ioc->pid : 0;
	ev.comm = ioc && ioc->comm ? ioc->comm : "kworker";
	ev.depth = depth;
	for (int i = 0; i < q->nsinks; i++)
		q->sinks[i].event(q->sinks[i].ctx, &ev);
}

void blk_queue_set_nested(struct blk_queue *q)
{
	q->nested = true;
}

int blk_add_trace_sink(struct blk_queue *q, const struct blk_trace_sink *sink)
{
	if (!sink || !sink->event || q->nsinks >= BLK_MAX_TRACE_SINKS)
		return -1;
	q->sinks[q->nsinks++] = *sink;
	return 0;
}

void blk_set_trace_sink(struct blk_queue *q, const struct blk_trace_sink *sink)
{
	q->nsinks = 0;
	blk_add_trace_sink(q, sink);
}

void blk_remove_trace_sink(struct blk_queue *q, const void *ctx)
{
	for (int i = 0; i < q->nsinks; i++)
		if (q->sinks[i].ctx == ctx) {
			memmove(&q->sinks[i], &q->sinks[i + 1],
				(size_t)(q->nsinks - i - 1) * sizeof(q->sinks[0]));
			q->nsinks--;
			return;
		}
}

/* --------------------------------------------------------- request pool */

static struct blk_rq *blk_rq_get_wrapper(struct blk_queue *q)
{
	struct blk_rq *br = q->free_list;

	if (!br) {
		struct blk_rq_chunk *c = calloc(1, sizeof(*c));

		if (!c)
			return NULL;
		c->next = q->chunks;
		q->chunks = c;
		for (int i = BLK_RQ_CHUNK - 1; i >= 0; i--) {
			c->rqs[i].free_next = q->free_list;
			q->free_list = &c->rqs[i];
		}
		br = q->free_list;
	}
	q->free_list = br->free_next;
	sim_zero(br, sizeof(*br));
	return br;
}

struct io_request *blk_rq_new(struct blk_queue *q, struct bio *bio)
{
	struct blk_rq *br = blk_rq_get_wrapper(q);
	struct io_request *rq;

	if (!br) {
		sim_fail(q->sim, SIM_E_NOMEM, "block: out of memory allocating a request");
		return NULL;
	}
	br->state = BLK_RQ_NEW;
	br->is_sync = req_is_sync(bio->flags);
	rq = &br->rq;
	rq->id = q->next_id++;
	rq->q = q;
	list_init(&rq->queuelist);
	list_init(&rq->hash);
	list_init(&rq->dev_node);
	rb_clear_node(&rq->rb_node);
	sim_event_init(&rq->dev_event, NULL);
	blk_rq_bio_prep(q, rq, bio);
	rq->t_getrq = sim_now(q->sim);
	return rq;
}

void blk_rq_allocated(struct blk_queue *q, struct io_request *rq, bool elv_data)
{
	struct elevator *e = &q->elv;

	/* blk_rq_should_init_elevator(): no scheduler data for flush/FUA. */
	if (elv_data && !(rq->flags & (REQ_FLUSH | REQ_FUA)) && e->ops->set_request)
		blk_rq_of(rq)->elvpriv = e->ops->set_request(e, rq, rq->bio) == 0;
	q->c.rq_allocated++;
	blk_trace(q, 'G', rq, NULL, 0);
}

void blk_rq_unhook(struct blk_queue *q, struct io_request *rq)
{
	struct elevator *e = &q->elv;
	struct blk_rq *br = blk_rq_of(rq);

	SIM_ASSERT(br->state != BLK_RQ_FREE);
	if (br->elvpriv && e->ops->put_request)
		e->ops->put_request(e, rq);
	br->elvpriv = false;
	if (q->last_merge == rq)
		q->last_merge = NULL;
	elv_rqhash_del(q, rq);
}

void blk_rq_put(struct blk_queue *q, struct blk_rq *br)
{
	q->c.rq_freed++;
	br->state = BLK_RQ_FREE;
	br->free_next = q->free_list;
	q->free_list = br;
}

/* ------------------------------------------------------------ batching */

static struct blk_batcher *blk_batcher_find(struct blk_queue *q, const struct io_context *ioc)
{
	for (uint32_t i = 0; i < q->nbatchers; i++)
		if (q->batchers[i].ioc == ioc)
			return &q->batchers[i];
	return NULL;
}

/* ioc_batching(): fresh batchers, or ones with requests left in time. */
static bool blk_ioc_batching(struct blk_queue *q, const struct io_context *ioc)
{
	struct blk_batcher *b;

	if (!ioc || !(b = blk_batcher_find(q, ioc)))
		return false;
	if (b->nr_batch_requests == BLK_BATCH_REQ ||
	    (b->nr_batch_requests > 0 && sim_now(q->sim) < b->last_waited + BLK_BATCH_TIME_NS))
		return true;
	/* spent: forget it, so the table holds only live batchers */
	*b = q->batchers[--q->nbatchers];
	return false;
}

/* ioc_set_batching() */
static void blk_ioc_set_batching(struct blk_queue *q, const struct io_context *ioc)
{
	struct blk_batcher *b;

	if (!ioc || blk_ioc_batching(q, ioc))
		return;
	b = blk_batcher_find(q, ioc);
	if (!b) {
		if (q->nbatchers == q->cap_batchers) {
			uint32_t cap = q->cap_batchers ? 2 * q->cap_batchers : 8;
			struct blk_batcher *nb = realloc(q->batchers, cap * sizeof(*nb));

			if (!nb)
				return; /* no batching for this one: a fairness detail, not a failure */
			q->batchers = nb;
			q->cap_batchers = cap;
		}
		b = &q->batchers[q->nbatchers++];
		b->ioc = ioc;
	}
	b->nr_batch_requests = BLK_BATCH_REQ;
	b->last_waited = sim_now(q->sim);
}

/* --------------------------------------------------------- request pool */

/* __get_request(): a request for bio, or NULL when its list is full for
 * this submitter. The allocation that fills the list makes its task a
 * batcher; once full, only batchers and ELV_MQUEUE_MUST allocate, and
 * nobody beyond 3/2 nr_requests. */
static struct io_request *blk_alloc_request(struct blk_queue *q, struct bio *bio)
{
	struct elevator *e = &q->elv;
	bool sync = req_is_sync(bio->flags);
	uint32_t nr = (uint32_t)q->lim.nr_requests;
	const struct io_context *ioc = bio->ioc;
	struct io_request *rq;
	bool must = e->ops->may_queue && e->ops->may_queue(e, bio->ioc, bio->flags);

	if (q->rl_count[sync] + 1 >= q->nr_congestion_on) {
		if (q->rl_count[sync] + 1 >= nr) {
			if (!q->rl_full[sync]) {
				blk_ioc_set_batching(q, ioc);
				q->rl_full[sync] = true;
			} else if (!must && !blk_ioc_batching(q, ioc)) {
				return NULL;
			}
		}
		q->congested[sync] = true;
	}
	if (q->rl_count[sync] >= 3 * nr / 2)
		return NULL;

	rq = blk_rq_new(q, bio);
	if (!rq)
		return NULL;
	q->rl_count[sync]++;
	if (blk_ioc_batching(q, ioc))
		blk_batcher_find(q, ioc)->nr_batch_requests--;
	blk_rq_allocated(q, rq, true);
	return rq;
}

/* freed_request()/__freed_request(): congestion off below its threshold;
 * below nr_requests the list is no longer full and one sleeper wakes
 * (an exclusive wake-up). The woken task retries from an event at the
 * same instant, as a batcher. */
static void blk_release_slot(struct blk_queue *q, bool sync)
{
	SIM_ASSERT(q->rl_count[sync] > 0);
	q->rl_count[sync]--;
	if (q->rl_count[sync] < q->nr_congestion_off)
		q->congested[sync] = false;
	if (q->rl_count[sync] + 1 <= (uint32_t)q->lim.nr_requests) {
		if (q->rl_nwait[sync] > q->rl_nwoken[sync]) {
			q->rl_nwoken[sync]++;
			if (!sim_event_pending(&q->wake_event))
				sim_at(q->sim, &q->wake_event, sim_now(q->sim));
		}
		q->rl_full[sync] = false;
	}
}

void blk_free_request(struct blk_queue *q, struct io_request *rq)
{
	struct blk_rq *br = blk_rq_of(rq);

	if (q->mq) {
		blk_mq_free_request(q, rq);
		return;
	}
	blk_rq_unhook(q, rq);
	blk_release_slot(q, br->is_sync);
	blk_rq_put(q, br);
}

/* ----------------------------------------------------- insert and run */

void blk_insert_request(struct blk_queue *q, struct io_request *rq, bool merge)
{
	struct elevator *e = &q->elv;
	struct blk_rq *br = blk_rq_of(rq);

	rq->t_insert = sim_now(q->sim);
	blk_trace(q, 'I', rq, NULL, 0);
	q->c.inserted++;
	if (rq->flags & (REQ_FLUSH | REQ_FUA)) {
		br->softbarrier = true;
		br->state = BLK_RQ_DISPATCH;
		list_add_tail(&rq->queuelist, &q->queue_head);
		q->c.flush_requests++;
		return;
	}
	if (merge && elv_attempt_insert_merge(q, rq))
		return;
	br->state = BLK_RQ_SORTED;
	q->nr_sorted++;
	if (!br->nomerge) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	e->ops->add_request(e, rq);
}

static bool blk_device_has_slot(const struct device *dev)
{
	/* Only a depth check before asking the scheduler: a model with its
	 * own can_accept decides per request below. */
	return dev->ops->can_accept || dev->queue_depth == 0 || dev->inflight < dev->queue_depth;
}

void blk_run_queue(struct blk_queue *q)
{
	struct elevator *e = &q->elv;

	if (q->mq) {
		blk_mq_run_queues(q);
		return;
	}
	if (q->running) {
		q->rerun = true;
		return;
	}
	q->running = true;
	do {
		q->rerun = false;
		while (blk_device_has_slot(q->dev)) {
			struct io_request *rq;
			struct blk_rq *br;

			if (list_empty(&q->queue_head) &&
			    (!e->ops->dispatch(e, false) || list_empty(&q->queue_head)))
				break;
			rq = list_first_entry(&q->queue_head, struct io_request, queuelist);
			if (!device_can_accept(q->dev, rq))
				break;
			if (q->gate) {
				int64_t until = q->gate(q->gate_ctx, q, rq);
				if (until) {
					q->gate_holds++;
					if (until > sim_now(q->sim)) {
						if (sim_event_pending(&q->gate_event))
							sim_cancel(q->sim, &q->gate_event);
						sim_at(q->sim, &q->gate_event, until);
					}
					break;
				}
			}
			br = blk_rq_of(rq);
			list_del_init(&rq->queuelist);
			br->state = BLK_RQ_DEVICE;
			if (!br->softbarrier && e->ops->activate_request)
				e->ops->activate_request(e, rq);
			q->in_flight[br->is_sync]++;
			br->fg_dev = (rq->flags & REQ_FG) != 0;
			q->fg_in_flight += br->fg_dev;
			rq->t_dispatch = sim_now(q->sim);
			blk_trace(q, 'D', rq, NULL, 0);
			q->c.dispatched++;
			device_submit(q->dev, rq);
		}
	} while (q->rerun);
	q->running = false;
}

static void blk_run_event(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	blk_run_queue(container_of(ev, struct blk_queue, run_event));
}

static void blk_gate_event(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	blk_run_queue(container_of(ev, struct blk_queue, gate_event));
}

int blk_set_issue_gate(struct blk_queue *q, blk_issue_gate_fn fn, void *ctx)
{
	if (q->mq && fn)
		return SIM_E_INPUT;
	q->gate = fn;
	q->gate_ctx = ctx;
	if (!fn && sim_event_pending(&q->gate_event))
		sim_cancel(q->sim, &q->gate_event);
	return 0;
}

uint32_t blk_queue_fg_in_flight(const struct blk_queue *q) { return q->fg_in_flight; }
uint64_t blk_queue_gate_holds(const struct blk_queue *q) { return q->gate_holds; }
int64_t blk_queue_last_fg_done(const struct blk_queue *q) { return q->last_fg_done; }

void blk_run_queue_async(struct blk_queue *q)
{
	if (!sim_event_pending(&q->run_event))
		sim_at(q->sim, &q->run_event, sim_now(q->sim));
}

/* ------------------------------------------------------------- submit */

bool blk_elv_bio_merge(struct blk_queue *q, struct bio *bio)
{
	struct io_request *rq = NULL;
	enum elv_merge how = elv_merge(q, &rq, bio);

	if (how == ELV_BACK_MERGE && blk_bio_attempt_back_merge(q, rq, bio)) {
		q->c.back_merges++;
		if (!blk_attempt_back_merge(q, rq))
			elv_merged_request(q, rq, ELV_BACK_MERGE);
		return true;
	}
	if (how == ELV_FRONT_MERGE && blk_bio_attempt_front_merge(q, rq, bio)) {
		q->c.front_merges++;
		if (!blk_attempt_front_merge(q, rq))
			elv_merged_request(q, rq, ELV_FRONT_MERGE);
		return true;
	}
	return false;
}

/* A fresh request: onto the plug, or straight into the scheduler. */
static void blk_queue_new_request(struct blk_queue *q, struct blk_plug *plug,
				  struct io_request *rq, uint32_t request_count)
{
	if (plug && plug->active) {
		blk_plug_add(q, plug, rq, request_count);
	} else {
		blk_insert_request(q, rq, false);
		blk_run_queue(q);
	}
}

static enum sim_class blk_bio_class(const struct bio *bio)
{
	return (bio->flags & REQ_FG) || (bio->ioc && bio->ioc->fg) ? SIM_CLASS_FG : SIM_CLASS_BG;
}

static void blk_internal_wake(struct sim *sim, struct blk_waiter *w)
{
	(void)sim;
	free(w);
}

void blk_waiters_drop(struct list_head *wait)
{
	while (!list_empty(wait)) {
		struct blk_waiter *w = list_first_entry(wait, struct blk_waiter, node);

		list_del_init(&w->node);
		if (w->wake == blk_internal_wake)
			free(w);
	}
}

void blk_waiter_got_request(struct blk_queue *q, struct blk_waiter *w)
{
	struct sim *sim = q->sim;

	if (!w->accounts_wait) {
		sim_metrics_wait(&sim->metrics, blk_bio_class(w->bio), SIM_WAIT_GET_REQUEST,
				 sim_now(sim) - w->since);
		if (sim->observer) {
			const struct io_context *ioc = w->bio->ioc;
			struct sim_wait_rec r = { .task = ioc && ioc->comm ? ioc->comm : "kworker",
						  .pid = ioc ? ioc->tgid : 0, .tid = ioc ? ioc->pid : 0,
						  .cls = blk_bio_class(w->bio), .kernel = !ioc,
						  .cause = SIM_WAIT_GET_REQUEST, .start_ns = w->since,
						  .ns = sim_now(sim) - w->since };
			sim_observe_wait(sim, &r);
		}
	}
	w->bio = NULL;
}

void blk_bio_queued(struct blk_queue *q, struct bio *bio)
{
	bio->t_queue = sim_now(q->sim);
	bio->bi_next = NULL;
	q->c.bios++;
	blk_trace(q, 'Q', NULL, bio, 0);
}

struct blk_waiter *blk_waiter_park(struct blk_queue *q, struct bio *bio, struct blk_plug *plug,
				   struct blk_waiter *w, struct list_head *wait)
{
	if (!w) {
		w = calloc(1, sizeof(*w));
		if (!w) {
			sim_fail(q->sim, SIM_E_NOMEM, "block: out of memory parking a bio");
			return NULL;
		}
		w->wake = blk_internal_wake;
		w->accounts_wait = false;
	}
	w->bio = bio;
	w->plug = plug;
	w->since = sim_now(q->sim);
	list_add_tail(&w->node, wait);
	q->c.getrq_sleeps[req_is_sync(bio->flags)]++;
	blk_trace(q, 'S', NULL, bio, 0);
	return w;
}

enum blk_submit_result blk_submit_bio(struct blk_queue *q, struct blk_plug *plug,
				      struct bio *bio, struct blk_waiter *w)
{
	struct io_request *rq = NULL;
	uint32_t request_count = 0;
	bool sync = req_is_sync(bio->flags);

	if (q->mq)
		return blk_mq_submit_bio(q, plug, bio, w);
	if (plug && !plug->active)
		plug = NULL;
	blk_bio_queued(q, bio);

	if (!(bio->flags & (REQ_FLUSH | REQ_FUA))) {
		if (plug && blk_attempt_plug_merge(q, plug, bio, &request_count))
			return BLK_SUBMIT_DONE;
		if (blk_elv_bio_merge(q, bio))
			return BLK_SUBMIT_DONE;
	}

	rq = blk_alloc_request(q, bio);
	if (rq) {
		blk_queue_new_request(q, plug, rq, request_count);
		return BLK_SUBMIT_DONE;
	}
	if (q->sim->failed)
		return BLK_SUBMIT_DONE;

	/* get_request() sleeps: park the bio, trace S, and let io_schedule()
	 * flush the plug (blk_schedule_flush_plug). */
	if (!blk_waiter_park(q, bio, plug, w, &q->rl_wait[sync]))
		return BLK_SUBMIT_DONE;
	q->rl_nwait[sync]++;
	if (plug)
		blk_flush_plug_list(q, plug, BLK_UNPLUG_SLEEP);
	return BLK_SUBMIT_SLEEP;
}

static uint32_t blk_plug_count_queue(const struct blk_queue *q, const struct blk_plug *plug)
{
	const struct list_head *pos;
	uint32_t n = 0;

	list_for_each(pos, &plug->list)
		if (list_entry(pos, struct io_request, queuelist)->q == q)
			n++;
	return n;
}

/* The woken sleepers retry get_request, oldest first, now as batchers.
 * One that still finds no request (a task without io_context, or the
 * 3/2 cap) sleeps again at the tail, as prepare_to_wait_exclusive does. */
static void blk_wake_event(struct sim *sim, struct sim_event *ev)
{
	struct blk_queue *q = container_of(ev, struct blk_queue, wake_event);

	for (int sync = 1; sync >= 0; sync--) {
		uint32_t n = q->rl_nwoken[sync];

		q->rl_nwoken[sync] = 0;
		while (n-- > 0 && !list_empty(&q->rl_wait[sync])) {
			struct blk_waiter *w = list_first_entry(&q->rl_wait[sync], struct blk_waiter, node);
			struct bio *bio = w->bio;
			struct blk_plug *plug = w->plug && w->plug->active ? w->plug : NULL;
			struct io_request *rq;

			list_del_init(&w->node);
			q->rl_nwait[sync]--;
			blk_ioc_set_batching(q, bio->ioc);
			rq = blk_alloc_request(q, bio);
			if (!rq) {
				if (sim->failed)
					return;
				list_add_tail(&w->node, &q->rl_wait[sync]);
				q->rl_nwait[sync]++;
				q->c.getrq_sleeps[sync]++;
				blk_trace(q, 'S', NULL, bio, 0);
				continue;
			}
			blk_waiter_got_request(q, w);
			blk_queue_new_request(q, plug, rq, plug ? blk_plug_count_queue(q, plug) : 0);
			if (w->wake)
				w->wake(sim, w);
		}
	}
}

/* ----------------------------------------------------------- completion */

void blk_end_bios(struct blk_queue *q, struct bio *bio)
{
	while (bio) {
		struct bio *next = bio->bi_next;

		bio->bi_next = NULL;
		q->c.bios_ended++;
		if (bio->end_io)
			bio->end_io(q->sim, bio);
		bio = next;
	}
}

static void blk_account_completion(struct blk_queue *q, const struct io_request *rq)
{
	struct sim *sim = q->sim;
	enum sim_class cls = (rq->flags & REQ_FG) || (rq->ioc && rq->ioc->fg) ? SIM_CLASS_FG
									       : SIM_CLASS_BG;
	if (q->nested)
		return;

	sim_metrics_btt(&sim->metrics, cls, SIM_BTT_Q2G, rq->t_getrq - rq->t_queue);
	sim_metrics_btt(&sim->metrics, cls, SIM_BTT_G2I, rq->t_insert - rq->t_getrq);
	sim_metrics_btt(&sim->metrics, cls, SIM_BTT_I2D, rq->t_dispatch - rq->t_insert);
	sim_metrics_btt(&sim->metrics, cls, SIM_BTT_D2C, rq->t_complete - rq->t_dispatch);
	sim_metrics_btt(&sim->metrics, cls, SIM_BTT_Q2C, rq->t_complete - rq->t_queue);
}

struct bio *blk_rq_completed(struct blk_queue *q, struct io_request *rq, bool tell_elv)
{
	struct elevator *e = &q->elv;
	struct blk_rq *br = blk_rq_of(rq);
	struct bio *bio;

	SIM_ASSERT(br->state == BLK_RQ_DEVICE);
	br->state = BLK_RQ_DONE;
	SIM_ASSERT(q->in_flight[br->is_sync] > 0);
	q->in_flight[br->is_sync]--;
	if (br->fg_dev) {
		SIM_ASSERT(q->fg_in_flight > 0);
		q->fg_in_flight--;
		q->last_fg_done = sim_now(q->sim);
		br->fg_dev = false;
	}
	if (rq->t_complete < rq->t_dispatch)
		rq->t_complete = sim_now(q->sim);
	blk_trace(q, 'C', rq, NULL, 0);
	q->c.completed++;
	blk_account_completion(q, rq);
	bio = rq->bio;
	rq->bio = rq->biotail = NULL;
	if (tell_elv && e->ops->completed_request)
		e->ops->completed_request(e, rq);
	return bio;
}

static void blk_device_complete(void *upper, struct io_request *rq)
{
	struct blk_queue *q = upper;
	struct bio *bio = blk_rq_completed(q, rq, !blk_rq_of(rq)->softbarrier);

	blk_free_request(q, rq);
	blk_end_bios(q, bio);
	blk_run_queue(q);
}

/* ------------------------------------------------------ create, destroy */

/* blk_queue_congestion_threshold(): on at nr - nr/8 + 1 (capped at nr),
 * off below nr - nr/8 - nr/16 - 1 (at least 1): 113 and 103 for 128. */
static void blk_queue_congestion_threshold(struct blk_queue *q)
{
	int64_t nr = q->lim.nr_requests, on, off;

	on = nr - nr / 8 + 1;
	if (on > nr)
		on = nr;
	off = nr - nr / 8 - nr / 16 - 1;
	if (off < 1)
		off = 1;
	q->nr_congestion_on = (uint32_t)on;
	q->nr_congestion_off = (uint32_t)off;
}

int blk_check_sector_limits(uint64_t max_sectors_bytes, uint64_t max_segment_size_bytes,
			    struct cfg_node *block_cfg, struct sim_error *err)
{
	if (max_sectors_bytes % SECTOR_SIZE || max_segment_size_bytes % SECTOR_SIZE)
		return cfg_errorf(err, block_cfg, "max_sectors_kib and max_segment_size_kib must be "
				  "whole sectors (multiples of 512 bytes)");
	return 0;
}

int blk_queue_setup(struct blk_queue *q, const struct elevator_ops *ops, struct cfg_node *sched_cfg,
		    struct sim_error *err)
{
	q->max_sectors = (uint32_t)(q->lim.max_sectors_bytes >> SECTOR_SHIFT);
	q->max_seg_sectors = (uint32_t)(q->lim.max_segment_size_bytes >> SECTOR_SHIFT);
	list_init(&q->queue_head);
	for (int i = 0; i < BLK_HASH_BUCKETS; i++)
		list_init(&q->hash[i]);
	list_init(&q->rl_wait[0]);
	list_init(&q->rl_wait[1]);
	return elv_init(q, ops, sched_cfg, err);
}

void blk_queue_attach(struct blk_queue *q, void (*on_complete)(void *upper, struct io_request *rq))
{
	q->dev->on_complete = on_complete;
	q->dev->upper = q;
}

int blk_queue_create_ops(struct sim *sim, struct device *dev, struct cfg_node *block_cfg,
			 const struct elevator_ops *ops, struct cfg_node *sched_cfg,
			 struct blk_queue **out, struct sim_error *err)
{
	struct blk_queue *q;
	const char *kind = NULL;
	int rc;

	*out = NULL;
	rc = blk_queue_kind(block_cfg, &kind, err);
	if (rc)
		return rc;
	if (strcmp(kind, "mq") == 0)
		return blk_mq_queue_create(sim, dev, block_cfg, ops, sched_cfg, out, err);
	if (ops && ops->mq)
		return sim_errorf(err, SIM_E_INPUT, "scheduler '%s' runs on blk-mq only; set block.kind: mq "
				  "(the single-queue 3.10 path has noop, deadline, cfq)", ops->name);
	if (!ops || !ops->add_request || !ops->dispatch)
		return sim_errorf(err, SIM_E_INPUT, "scheduler '%s' lacks add_request/dispatch",
				  ops && ops->name ? ops->name : "?");
	q = calloc(1, sizeof(*q));
	if (!q)
		return sim_errorf(err, SIM_E_NOMEM, "block: out of memory");
	q->sim = sim;
	q->dev = dev;
	rc = cfg_apply(blk_params, block_cfg, &q->lim, err);
	if (!rc)
		rc = blk_check_sector_limits(q->lim.max_sectors_bytes, q->lim.max_segment_size_bytes,
					     block_cfg, err);
	if (rc)
		goto fail;
	blk_queue_congestion_threshold(q);
	sim_event_init(&q->run_event, blk_run_event);
	sim_event_init(&q->gate_event, blk_gate_event);
	q->last_fg_done = INT64_MIN;
	sim_event_init(&q->wake_event, blk_wake_event);
	rc = blk_queue_setup(q, ops, sched_cfg, err);
	if (rc)
		goto fail;
	blk_queue_attach(q, blk_device_complete);
	*out = q;
	return 0;
fail:
	free(q);
	return rc;
}

int blk_queue_kind(struct cfg_node *block_cfg, const char **kind, struct sim_error *err)
{
	struct cfg_node *n = cfg_get(block_cfg, "kind");

	*kind = "sq";
	if (!n)
		return 0;
	cfg_mark_used(n, false);
	if (n->kind != CFG_SCALAR || (strcmp(n->value, "sq") != 0 && strcmp(n->value, "mq") != 0))
		return cfg_errorf(err, n, "expected sq (Linux 3.10 single queue) or mq (blk-mq)");
	*kind = n->value;
	return 0;
}

int blk_queue_create(struct sim *sim, struct device *dev, struct cfg_node *block_cfg,
		     const char *sched, struct cfg_node *sched_cfg, struct blk_queue **out,
		     struct sim_error *err)
{
	const struct elevator_ops *ops;
	const char *kind;
	int rc = blk_queue_kind(block_cfg, &kind, err);

	if (rc)
		return rc;
	/* No scheduler named: noop on the 3.10 path; on blk-mq the kernel's
	 * elevator_get_default() (blk_mq.c decides). */
	if (!sched && strcmp(kind, "mq") == 0)
		return blk_mq_queue_create(sim, dev, block_cfg, NULL, sched_cfg, out, err);
	ops = elevator_find(sched ? sched : "noop");
	*out = NULL;
	if (!ops) {
		char names[128];
		size_t off = 0;

		names[0] = '\0';
		for (const struct elevator_ops *const *p = elevator_registry(); *p && off < sizeof(names);
		     p++)
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
						off ? ", " : "", (*p)->name);
		return sim_errorf(err, SIM_E_INPUT, "scheduler: unknown scheduler '%s' (expected one of %s)",
				  sched, names);
	}
	return blk_queue_create_ops(sim, dev, block_cfg, ops, sched_cfg, out, err);
}

void blk_queue_destroy(struct blk_queue *q)
{
	if (!q)
		return;
	if (q->mq)
		blk_mq_queue_destroy(q);
	sim_cancel(q->sim, &q->run_event);
	sim_cancel(q->sim, &q->gate_event);
	sim_cancel(q->sim, &q->wake_event);
	blk_waiters_drop(&q->rl_wait[0]);
	blk_waiters_drop(&q->rl_wait[1]);
	elv_exit(q);
	free(q->batchers);
	if (q->dev && q->dev->upper == q) {
		q->dev->on_complete = NULL;
		q->dev->upper = NULL;
	}
	while (q->chunks) {
		struct blk_rq_chunk *c = q->chunks;

		q->chunks = c->next;
		free(c);
	}
	free(q);
}

/* ------------------------------------------------------------- queries */

bool blk_boost_lba(struct blk_queue *q, uint64_t sector)
{
	struct elevator *e = &q->elv;
	bool hit = q->mq ? blk_mq_boost_lba(q, sector)
			 : e->ops->boost_lba && e->ops->boost_lba(e, sector);

	if (hit) {
		e->boost_hits++;
		q->c.boost_hits++;
		blk_run_queue(q);
	} else {
		e->boost_misses++;
		q->c.boost_misses++;
	}
	return hit;
}

enum blk_where blk_locate_sector(const struct blk_queue *q, uint64_t sector)
{
	for (const struct blk_rq_chunk *c = q->chunks; c; c = c->next)
		for (int i = 0; i < BLK_RQ_CHUNK; i++) {
			const struct blk_rq *r = &c->rqs[i];
			if (r->state == BLK_RQ_FREE || r->state == BLK_RQ_DONE ||
			    sector < r->rq.sector || sector >= rq_end_sector(&r->rq))
				continue;
			switch (r->state) {
			case BLK_RQ_NEW:
			case BLK_RQ_PLUGGED:
				return BLK_WHERE_PLUGGED;
			case BLK_RQ_SORTED:
				return BLK_WHERE_SCHEDULER;
			case BLK_RQ_DISPATCH:
				return BLK_WHERE_DISPATCHED;
			default:
				return BLK_WHERE_DEVICE;
			}
		}
	if (q->mq)
		return blk_mq_locate_waiting(q, sector);
	for (int s = 0; s < 2; s++) {
		const struct list_head *pos;
		list_for_each(pos, &q->rl_wait[s]) {
			const struct blk_waiter *w = list_entry(pos, struct blk_waiter, node);
			if (w->bio && sector >= w->bio->sector &&
			    sector < w->bio->sector + w->bio->nr_sectors)
				return BLK_WHERE_WAITING;
		}
	}
	return BLK_WHERE_NONE;
}

struct sim *blk_queue_sim(const struct blk_queue *q) { return q->sim; }
struct elevator *blk_queue_elevator(const struct blk_queue *q) { return (struct elevator *)&q->elv; }
struct device *blk_queue_device(const struct blk_queue *q) { return q->dev; }

uint64_t blk_queue_outstanding(const struct blk_queue *q)
{
	return q->c.rq_allocated - q->c.rq_freed;
}

bool blk_queue_congested(const struct blk_queue *q, bool sync)
{
	/* blk-mq never sets the bdi congestion bits (removed altogether in
	 * 5.18), so writeback never sees a congested mq queue. */
	return q->mq ? false : q->congested[sync];
}

uint32_t blk_queue_in_flight(const struct blk_queue *q, bool sync)
{
	return q->in_flight[sync];
}

int blk_queue_check(const struct blk_queue *q, bool drained, struct sim_error *err)
{
	const struct blk_counters *c = &q->c;
	uint64_t counted = (uint64_t)q->rl_count[0] + q->rl_count[1];

	if (q->mq)
		return blk_mq_queue_check(q, drained, err);
	if (c->rq_freed > c->rq_allocated || counted != c->rq_allocated - c->rq_freed)
		return sim_errorf(err, SIM_E_RUNTIME,
				  "block: request conservation broken: %llu allocated, %llu freed, "
				  "%llu counted in the request lists",
				  (unsigned long long)c->rq_allocated, (unsigned long long)c->rq_freed,
				  (unsigned long long)counted);
	if (c->bios_ended > c->bios)
		return sim_errorf(err, SIM_E_RUNTIME, "block: %llu bios ended but only %llu submitted",
				  (unsigned long long)c->bios_ended, (unsigned long long)c->bios);
	if (c->completed > c->dispatched)
		return sim_errorf(err, SIM_E_RUNTIME, "block: more completions than dispatches");
	if (!drained)
		return 0;
	if (c->rq_allocated != c->rq_freed || c->bios != c->bios_ended ||
	    q->rl_nwait[0] + q->rl_nwait[1] != 0 || !list_empty(&q->queue_head) || q->nr_sorted ||
	    q->in_flight[0] + q->in_flight[1] != 0 ||
	    (q->elv.ops->queue_empty && !q->elv.ops->queue_empty((struct elevator *)&q->elv)))
		return sim_errorf(err, SIM_E_RUNTIME,
				  "block: queue not drained at the end: %llu of %llu requests and "
				  "%llu of %llu bios outstanding, %u sleepers, %u in the scheduler",
				  (unsigned long long)(c->rq_allocated - c->rq_freed),
				  (unsigned long long)c->rq_allocated,
				  (unsigned long long)(c->bios - c->bios_ended),
				  (unsigned long long)c->bios, q->rl_nwait[0] + q->rl_nwait[1],
				  q->nr_sorted);
	return 0;
}

#define JU(v) json_integer((json_int_t)(v))

struct json_t *blk_queue_to_json(const struct blk_queue *q)
{
	const struct blk_counters *c = &q->c;
	const struct elevator *e = &q->elv;
	json_t *o = json_object(), *cnt, *m, *pf, *gs, *rqs, *b;

	if (!o)
		return NULL;
	json_object_set_new(o, "scheduler", json_string(e->ops->name));
	json_object_set_new(o, "kind", json_string(q->mq ? "mq" : "sq"));
	if (q->mq)
		json_object_set_new(o, "mq", blk_mq_to_json(q));
	else
		json_object_set_new(o, "limits", cfg_params_to_json(blk_params, &q->lim));
	if (e->ops->params)
		json_object_set_new(o, "scheduler_params", cfg_params_to_json(e->ops->params, e->priv));

	cnt = json_object();
	json_object_set_new(cnt, "bios", JU(c->bios));
	json_object_set_new(cnt, "bios_completed", JU(c->bios_ended));
	m = json_object();
	json_object_set_new(m, "back", JU(c->back_merges + c->plug_back_merges));
	json_object_set_new(m, "front", JU(c->front_merges + c->plug_front_merges));
	json_object_set_new(m, "plug_back", JU(c->plug_back_merges));
	json_object_set_new(m, "plug_front", JU(c->plug_front_merges));
	json_object_set_new(m, "elevator_back", JU(c->back_merges));
	json_object_set_new(m, "elevator_front", JU(c->front_merges));
	json_object_set_new(m, "requests", JU(c->rq_merges));
	json_object_set_new(cnt, "merges", m);
	pf = json_object();
	json_object_set_new(pf, "count", JU(c->plug_flushes[BLK_UNPLUG_COUNT]));
	json_object_set_new(pf, "sleep", JU(c->plug_flushes[BLK_UNPLUG_SLEEP]));
	json_object_set_new(pf, "finish", JU(c->plug_flushes[BLK_UNPLUG_FINISH]));
	json_object_set_new(cnt, "plug_flushes", pf);
	json_object_set_new(cnt, "plugged_requests", JU(c->plugged_requests));
	gs = json_object();
	json_object_set_new(gs, "sync", JU(c->getrq_sleeps[1]));
	json_object_set_new(gs, "async", JU(c->getrq_sleeps[0]));
	json_object_set_new(cnt, "get_request_sleeps", gs);
	rqs = json_object();
	json_object_set_new(rqs, "allocated", JU(c->rq_allocated));
	json_object_set_new(rqs, "freed", JU(c->rq_freed));
	json_object_set_new(rqs, "inserted", JU(c->inserted));
	json_object_set_new(rqs, "dispatched", JU(c->dispatched));
	json_object_set_new(rqs, "completed", JU(c->completed));
	json_object_set_new(rqs, "flush_fua", JU(c->flush_requests));
	json_object_set_new(rqs, "outstanding", JU(c->rq_allocated - c->rq_freed));
	json_object_set_new(cnt, "requests", rqs);
	b = json_object();
	json_object_set_new(b, "hits", JU(c->boost_hits));
	json_object_set_new(b, "misses", JU(c->boost_misses));
	json_object_set_new(cnt, "boost", b);
	json_object_set_new(o, "counters", cnt);
	if (e->ops->stats_json) {
		json_t *s = json_object();

		e->ops->stats_json(e, s);
		json_object_set_new(o, "scheduler_stats", s);
	}
	return o;
}
