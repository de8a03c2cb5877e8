/* mq-deadline: the deadline scheduler on blk-mq. Follows block/mq-deadline.c
 * of Linux 6.1 (block.kernel: "6.1", the default) and of 5.10
 * (block.kernel: "5.10"): per-direction sort trees and FIFOs served in
 * sector-ordered batches of fifo_batch, a new batch starting from the
 * oldest request when it expired (read_expire / write_expire), reads
 * preferred but a write batch after writes_starved read batches.
 *
 * 6.1 adds what 5.14 brought: one such set of queues per I/O priority
 * class (RT, BE, IDLE; NONE counts as BE); a lower class is served only
 * while no request of a higher class is queued or in flight (dd_queued =
 * inserted - completed), except that a request waiting longer than
 * prio_aging_expire (10 s) is served first (dd_dispatch_prio_aged_requests);
 * and async_depth, the share of scheduler tags writes and async requests
 * may take (3/4 of nr_requests). async_depth is applied as the kernel
 * applies it, as an sbitmap per-word shallow depth: with the default 64
 * scheduler tags in 16-bit words a per-word limit of 48 limits nothing
 * (the kernel fixed that in 6.10; this model keeps 6.1's behaviour).
 * 5.10 has one set of queues and no async_depth.
 *
 * Expiry is in nanoseconds rather than jiffies (read_expire = HZ / 2 is
 * 500 ms at any HZ). Left out: zoned-device write locking, the
 * dispatch-at-head list's use by requeues of passthrough requests.
 *
 * mobisim additions, ports of the thesis's mechanisms (SNU 2017,
 * docs/papers.md §1; the CFQ originals are in models/iosched/cfq.c):
 *  - boost_lba (mechanism 3, the boost policy): the queued request
 *    covering a sector leaves its sort tree and FIFO for a boost list that
 *    dispatch serves before everything, aging included, in boost order;
 *    it takes no more merges (as an at_head insert). CFQ's boost makes the
 *    request "dispatched next" with REQ_PRIO; mq-deadline's own "next"
 *    place is the per-level dispatch list, but putting it on the RT
 *    level's would also count it as an RT request in flight and hold every
 *    BE request back until it completes, which CFQ's boost does not do:
 *    the boost list is that dispatch list without the class accounting
 *    (the request stays counted in its own level).
 *  - fg_aware (mechanism 4, the fgcfq policy, dd_set_fg_aware in
 *    models/iosched/mq_deadline.h): FG-high requests (sync and tagged FG,
 *    or whose io_context is foreground at insert, or lifted by a boost:
 *    the same test as CFQ's mode) get a level of their own above RT,
 *    served first by deadline's own rules (reads first, sector batches,
 *    expiry); a lower level waits while FG requests are queued (FG first:
 *    fgcfq's FG list is served before any other queue and an FG arrival
 *    ends a BG slice at once), but not while they are only in flight
 *    (mq-deadline's rule between its own classes): on flash with tagged
 *    queueing CFQ does not idle, so fgcfq hands the device to BG queues as
 *    soon as the FG queues run dry, FG requests still in flight; holding
 *    BG writes back longer also holds the writeback of the FG task's own
 *    pages, which it may then wait on (thesis §3.3's inversion; with BG
 *    requests filling the scheduler tags, the flusher's next bio may sleep
 *    for a tag, where no boost reaches it). fg_bg_depth (0, off) optionally bounds
 *    BG writes at the device while FG requests are queued or in flight,
 *    as the S6's CFQ bounded async requests (cfq_max_async_dispatch = 4)
 *    under the thesis's mode: a property of that kernel's CFQ, not of the
 *    mode, kept as an ablation. With no FG request queued the scheduler is
 *    mq-deadline, bit for bit. A BG bio may not merge into an FG-high request and an FG bio
 *    not into a BG one (CFQ's mode lifts the BG request instead; here it
 *    would have to change level, so the FG bio gets its own request).
 *    Not ported: CFQ's idling (mq-deadline does not idle; on UFS, where
 *    CFQ learns hw_tag, CFQ does not idle either), per-queue FIFO order
 *    among FG tasks (deadline has no queues: FG requests of all tasks
 *    share the level's sort order and expiry).
 */
#include <stddef.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/block/elevator.h"
#include "models/iosched/mq_deadline.h"
#include "sim/list.h"
#include "sim/rbtree.h"
#include "sim/sim.h"

enum { DD_READ = 0, DD_WRITE = 1 };
enum { DD_RT_PRIO = 0, DD_BE_PRIO = 1, DD_IDLE_PRIO = 2, DD_PRIO_COUNT = 3 };
/* fg_aware: the FG level, served before DD_RT_PRIO (the array has one
 * more slot; the kernel's levels keep their indices). */
enum { DD_FG_PRIO = DD_PRIO_COUNT, DD_LEVELS = DD_PRIO_COUNT + 1 };
static const int dd_order[DD_LEVELS] = { DD_FG_PRIO, DD_RT_PRIO, DD_BE_PRIO, DD_IDLE_PRIO };

struct dd_per_prio {
	struct list_head dispatch;      /* at_head inserts */
	struct rb_root sort_list[2];
	struct list_head fifo_list[2];
	struct io_request *next_rq[2];  /* next in sort order, for batching */
	uint64_t inserted, completed, dispatched, merged;
};

struct dd_data {
	/* tunables */
	int64_t read_expire_ns;
	int64_t write_expire_ns;
	int64_t writes_starved;
	int64_t fifo_batch;
	bool front_merges;
	int64_t async_depth;            /* 0 = 3/4 nr_requests (dd_depth_updated) */
	int64_t prio_aging_expire_ns;
	int64_t fg_bg_depth;            /* fg_aware: BG writes at the device while FG is active */

	bool prio_aware;                /* 6.1 (5.14+) */
	bool fg_aware;                  /* thesis mechanism 4 (dd_set_fg_aware) */
	struct dd_per_prio per_prio[DD_LEVELS];
	struct list_head boosted;       /* boost_lba: dispatched next, in boost order */
	uint32_t bg_writes_in_flight;   /* fg_aware: BG-level writes dispatched, not finished */
	int last_dir;
	int64_t batching;
	int64_t starved;
	uint32_t async_depth_eff;

	uint64_t dispatched[2];
	uint64_t expired_starts, write_starts_starved, aged_dispatches;
	uint64_t boost_hits, boost_misses, boost_dispatched;
	uint64_t fg_dispatched, fg_bg_throttled, fg_merges_refused;
};

/* Per-request state: elv_priv[1] = level + 1 (NULL: not inserted);
 * elv_priv[0] = DD_RQ_BG_WRITE while counted in bg_writes_in_flight. */
#define DD_RQ_BG_WRITE ((void *)(intptr_t)1)

static inline int dd_dir(const struct io_request *rq)
{
	return req_is_write(rq->flags) ? DD_WRITE : DD_READ;
}

/* fg_aware: FG-high is what CFQ's mode calls so (cfq_rq_fg_high): sync
 * and tagged FG (or from a task that is foreground now), or boosted. */
static bool dd_fg_high(uint32_t flags, const struct io_context *ioc)
{
	return (flags & REQ_BOOSTED) || (req_is_sync(flags) && ((flags & REQ_FG) || (ioc && ioc->fg)));
}

/* ioprio_class_to_prio[]: NONE -> BE. 5.10 has one level. */
static int dd_prio(const struct dd_data *dd, const struct io_context *ioc)
{
	if (!dd->prio_aware || !ioc)
		return DD_BE_PRIO;
	switch (ioc_io_class(ioc)) { /* with blk-ioprio's cgroup policy */
	case IOPRIO_CLASS_RT:
		return DD_RT_PRIO;
	case IOPRIO_CLASS_IDLE:
		return DD_IDLE_PRIO;
	default:
		return DD_BE_PRIO;
	}
}

/* The level of a request or bio of these flags: FG first in fg_aware. */
static int dd_level(const struct dd_data *dd, uint32_t flags, const struct io_context *ioc)
{
	if (dd->fg_aware && dd_fg_high(flags, ioc))
		return DD_FG_PRIO;
	return dd_prio(dd, ioc);
}

/* The level a request was inserted at (elv_priv[1] = level + 1). */
static inline int dd_rq_prio(const struct dd_data *dd, const struct io_request *rq)
{
	return rq->elv_priv[1] ? (int)(intptr_t)rq->elv_priv[1] - 1 : dd_prio(dd, rq->ioc);
}

static int64_t dd_expire(const struct dd_data *dd, int dir)
{
	return dir == DD_READ ? dd->read_expire_ns : dd->write_expire_ns;
}

static uint64_t dd_queued(const struct dd_data *dd, int prio)
{
	return dd->per_prio[prio].inserted - dd->per_prio[prio].completed;
}

/* ------------------------------------------------------------- helpers */

static void dd_del_rq_rb(struct dd_per_prio *pp, struct io_request *rq)
{
	int dir = dd_dir(rq);

	if (pp->next_rq[dir] == rq)
		pp->next_rq[dir] = elv_rb_latter_request(rq);
	elv_rb_del(&pp->sort_list[dir], rq);
}

static void dd_remove_request(struct dd_per_prio *pp, struct io_request *rq)
{
	list_del_init(&rq->queuelist);
	if (!RB_EMPTY_NODE(&rq->rb_node))
		dd_del_rq_rb(pp, rq);
}

static void dd_move_request(struct dd_per_prio *pp, struct io_request *rq)
{
	int dir = dd_dir(rq);

	pp->next_rq[DD_READ] = NULL;
	pp->next_rq[DD_WRITE] = NULL;
	pp->next_rq[dir] = elv_rb_latter_request(rq);
	dd_remove_request(pp, rq);
}

static bool dd_check_fifo(int64_t now, struct dd_per_prio *pp, int dir)
{
	struct io_request *rq = list_first_entry(&pp->fifo_list[dir], struct io_request, queuelist);

	return now >= rq->fifo_time;
}

static bool dd_has_queued(const struct dd_per_prio *pp)
{
	return !list_empty(&pp->dispatch) || !list_empty(&pp->fifo_list[DD_READ]) ||
	       !list_empty(&pp->fifo_list[DD_WRITE]);
}

/* started_after(): inserted after latest_start (fifo_time - expire). */
static bool dd_started_after(const struct dd_data *dd, const struct io_request *rq,
			     int64_t latest_start)
{
	return rq->fifo_time - dd_expire(dd, dd_dir(rq)) > latest_start;
}

/* __dd_dispatch_request(): one request of this priority level, or NULL.
 * reads_only (fg_aware, BG writes at their bound): no write leaves. */
static struct io_request *dd_dispatch_prio(struct dd_data *dd, struct dd_per_prio *pp,
					   int64_t now, int64_t latest_start, bool reads_only)
{
	struct io_request *rq, *next_rq;
	int dir;

	if (!list_empty(&pp->dispatch)) {
		rq = list_first_entry(&pp->dispatch, struct io_request, queuelist);
		if (dd_started_after(dd, rq, latest_start) || (reads_only && dd_dir(rq) == DD_WRITE))
			return NULL;
		list_del_init(&rq->queuelist);
		dir = dd_dir(rq);
		goto done;
	}

	/* batches are reads XOR writes */
	rq = pp->next_rq[dd->last_dir];
	if (rq && dd->batching < dd->fifo_batch && !(reads_only && dd->last_dir == DD_WRITE))
		goto dispatch_request;

	if (!list_empty(&pp->fifo_list[DD_READ])) {
		if (!reads_only && !list_empty(&pp->fifo_list[DD_WRITE]) &&
		    dd->starved++ >= dd->writes_starved) {
			dd->write_starts_starved++;
			goto dispatch_writes;
		}
		dir = DD_READ;
		goto dispatch_find_request;
	}
	if (!reads_only && !list_empty(&pp->fifo_list[DD_WRITE])) {
dispatch_writes:
		dd->starved = 0;
		dir = DD_WRITE;
		goto dispatch_find_request;
	}
	return NULL;

dispatch_find_request:
	/* expired, a change of direction, or the end of the sweep: restart
	 * from the oldest; else go on in sector order */
	next_rq = pp->next_rq[dir];
	if (dd_check_fifo(now, pp, dir) || !next_rq) {
		if (dd_check_fifo(now, pp, dir))
			dd->expired_starts++;
		rq = list_first_entry(&pp->fifo_list[dir], struct io_request, queuelist);
	} else {
		rq = next_rq;
	}
	dd->last_dir = dir;
	dd->batching = 0;

dispatch_request:
	if (dd_started_after(dd, rq, latest_start))
		return NULL;
	dd->batching++;
	dd_move_request(pp, rq);
	dir = dd_dir(rq);
done:
	pp->dispatched++;
	dd->dispatched[dir]++;
	return rq;
}

/* --------------------------------------------------------------- hooks */

static int dd_init(struct elevator *e, struct sim_error *err)
{
	struct dd_data *dd = e->priv;

	(void)err;
	dd->prio_aware = elv_mq_kernel(e) >= 514;
	list_init(&dd->boosted);
	for (int p = 0; p < DD_LEVELS; p++) {
		list_init(&dd->per_prio[p].dispatch);
		for (int d = 0; d < 2; d++) {
			dd->per_prio[p].sort_list[d] = RB_ROOT;
			list_init(&dd->per_prio[p].fifo_list[d]);
		}
	}
	return 0;
}

/* dd_depth_updated(): async_depth = max(1, 3 * nr_requests / 4). */
static void dd_depth_updated(struct elevator *e, uint32_t nr_requests, uint32_t word_shift)
{
	struct dd_data *dd = e->priv;
	uint32_t d = 3 * nr_requests / 4;

	(void)word_shift;
	dd->async_depth_eff = dd->async_depth ? (uint32_t)dd->async_depth : d < 1 ? 1 : d;
	if (dd->prio_aware)
		elv_mq_min_shallow_depth(e, dd->async_depth_eff);
}

/* dd_limit_depth(): writes and async requests get the shallow depth. */
static uint32_t dd_limit_depth(struct elevator *e, uint32_t flags, const struct io_context *ioc)
{
	struct dd_data *dd = e->priv;

	(void)ioc;
	if (!dd->prio_aware || (req_is_sync(flags) && !req_is_write(flags)))
		return 0;
	return dd->async_depth_eff;
}

static void dd_insert_requests(struct elevator *e, struct list_head *list, bool at_head)
{
	struct dd_data *dd = e->priv;
	int64_t now = sim_now(blk_queue_sim(e->q));

	while (!list_empty(list)) {
		struct io_request *rq = list_first_entry(list, struct io_request, queuelist);
		int prio = dd_level(dd, rq->flags, rq->ioc), dir = dd_dir(rq);
		struct dd_per_prio *pp = &dd->per_prio[prio];

		list_del_init(&rq->queuelist);
		if (!rq->elv_priv[1]) {
			/* counted once, requeues included (rq->elv.priv[0] in 6.1) */
			rq->elv_priv[1] = (void *)(intptr_t)(prio + 1);
			pp->inserted++;
		}
		rq->fifo_time = now + dd_expire(dd, dir);
		if (at_head) {
			list_add(&rq->queuelist, &pp->dispatch);
		} else {
			elv_rb_add(&pp->sort_list[dir], rq);
			list_add_tail(&rq->queuelist, &pp->fifo_list[dir]);
		}
	}
}

/* dd_prepare_request(): nothing to do but to get finish_request called. */
static int dd_prepare_request(struct elevator *e, struct io_request *rq, struct bio *bio)
{
	(void)e;
	(void)bio;
	rq->elv_priv[0] = NULL;
	rq->elv_priv[1] = NULL;
	return 0;
}

/* dd_finish_request(): completion of an inserted request. */
static void dd_finish_request(struct elevator *e, struct io_request *rq)
{
	struct dd_data *dd = e->priv;

	if (rq->elv_priv[1])
		dd->per_prio[(intptr_t)rq->elv_priv[1] - 1].completed++;
	if (rq->elv_priv[0] == DD_RQ_BG_WRITE)
		dd->bg_writes_in_flight--;
	rq->elv_priv[0] = NULL;
	rq->elv_priv[1] = NULL;
}

/* fg_aware: may a BG bio join an FG-high request, or the reverse? No. */
static bool dd_allow_merge(struct elevator *e, struct io_request *rq, struct bio *bio)
{
	struct dd_data *dd = e->priv;

	if (!dd->fg_aware || dd_fg_high(rq->flags, rq->ioc) == dd_fg_high(bio->flags, bio->ioc))
		return true;
	dd->fg_merges_refused++;
	return false;
}

static enum elv_merge dd_request_merge(struct elevator *e, struct bio *bio, struct io_request **out)
{
	struct dd_data *dd = e->priv;
	struct dd_per_prio *pp = &dd->per_prio[dd_level(dd, bio->flags, bio->ioc)];
	struct io_request *rq;

	if (!dd->front_merges)
		return ELV_NO_MERGE;
	rq = elv_rb_find(&pp->sort_list[req_is_write(bio->flags) ? DD_WRITE : DD_READ],
			 bio->sector + bio->nr_sectors);
	if (rq && elv_rq_merge_ok(e, rq, bio)) {
		*out = rq;
		return ELV_FRONT_MERGE;
	}
	return ELV_NO_MERGE;
}

static void dd_request_merged(struct elevator *e, struct io_request *rq, enum elv_merge type)
{
	struct dd_data *dd = e->priv;
	struct dd_per_prio *pp = &dd->per_prio[dd_rq_prio(dd, rq)];

	if (type == ELV_FRONT_MERGE) {
		elv_rb_del(&pp->sort_list[dd_dir(rq)], rq);
		elv_rb_add(&pp->sort_list[dd_dir(rq)], rq);
	}
}

static void dd_merged_requests(struct elevator *e, struct io_request *rq, struct io_request *next)
{
	struct dd_data *dd = e->priv;
	struct dd_per_prio *pp = &dd->per_prio[dd_rq_prio(dd, next)];

	pp->merged++;
	if (!list_empty(&rq->queuelist) && !list_empty(&next->queuelist) &&
	    next->fifo_time < rq->fifo_time) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	dd_remove_request(pp, next);
}

/* fg_aware bookkeeping of a request leaving a level. */
static struct io_request *dd_fg_account(struct dd_data *dd, struct io_request *rq, int level)
{
	if (!rq || !dd->fg_aware)
		return rq;
	if (level == DD_FG_PRIO) {
		dd->fg_dispatched++;
	} else if (dd_dir(rq) == DD_WRITE) {
		rq->elv_priv[0] = DD_RQ_BG_WRITE;
		dd->bg_writes_in_flight++;
	}
	return rq;
}

/* A lifted request: first of all (boost_lba). */
static struct io_request *dd_dispatch_boosted(struct dd_data *dd)
{
	struct io_request *rq = list_first_entry(&dd->boosted, struct io_request, queuelist);
	int level = dd_rq_prio(dd, rq);

	list_del_init(&rq->queuelist);
	dd->per_prio[level].dispatched++;
	dd->dispatched[dd_dir(rq)]++;
	dd->boost_dispatched++;
	return dd_fg_account(dd, rq, level);
}

/* dd_dispatch_request(): boosted requests (mobisim), aged lower-priority
 * requests, then the highest level with anything queued or in flight; in
 * fg_aware the FG level first, which holds the others only while it has
 * requests queued, and BG writes bounded while FG is active. */
static struct io_request *dd_dispatch_request(struct elevator *e)
{
	struct dd_data *dd = e->priv;
	int64_t now = sim_now(blk_queue_sim(e->q));
	struct io_request *rq;
	bool reads_only = false;

	if (!list_empty(&dd->boosted))
		return dd_dispatch_boosted(dd);
	if (dd->fg_aware && dd_queued(dd, DD_FG_PRIO) && dd->fg_bg_depth &&
	    dd->bg_writes_in_flight >= (uint64_t)dd->fg_bg_depth)
		reads_only = true;
	if (dd->prio_aware) {
		int cnt = !!dd_queued(dd, DD_RT_PRIO) + !!dd_queued(dd, DD_BE_PRIO) +
			  !!dd_queued(dd, DD_IDLE_PRIO) + !!dd_queued(dd, DD_FG_PRIO);

		if (cnt >= 2) {
			for (int p = DD_BE_PRIO; p < DD_PRIO_COUNT; p++) {
				rq = dd_dispatch_prio(dd, &dd->per_prio[p], now,
						      now - dd->prio_aging_expire_ns, reads_only);
				if (rq) {
					dd->aged_dispatches++;
					return dd_fg_account(dd, rq, p);
				}
			}
		}
	}
	for (int i = dd->fg_aware ? 0 : 1; i < DD_LEVELS; i++) {
		int p = dd_order[i];
		bool fg = p == DD_FG_PRIO;

		rq = dd_dispatch_prio(dd, &dd->per_prio[p], now, now, !fg && reads_only);
		if (rq)
			return dd_fg_account(dd, rq, p);
		if (fg) {
			/* FG first: BG waits while FG requests are queued */
			if (dd_has_queued(&dd->per_prio[p]))
				return NULL;
			continue;
		}
		if (dd_queued(dd, p)) {
			if (reads_only && !list_empty(&dd->per_prio[p].fifo_list[DD_WRITE]))
				dd->fg_bg_throttled++;
			return NULL;
		}
	}
	return NULL;
}

static bool dd_has_work(struct elevator *e)
{
	struct dd_data *dd = e->priv;

	if (!list_empty(&dd->boosted))
		return true;
	for (int p = 0; p < DD_LEVELS; p++)
		if (dd_has_queued(&dd->per_prio[p]))
			return true;
	return false;
}

/* boost_lba: the queued request covering sector goes to the boost list
 * (see the top of the file). One already there counts as lifted. */
static bool dd_boost_lba(struct elevator *e, uint64_t sector)
{
	struct dd_data *dd = e->priv;
	struct io_request *rq = NULL;
	struct list_head *pos;

	list_for_each(pos, &dd->boosted) {
		struct io_request *b = list_entry(pos, struct io_request, queuelist);

		if (sector >= b->sector && sector < rq_end_sector(b)) {
			dd->boost_hits++;
			return true;
		}
	}
	for (int p = 0; p < DD_LEVELS && !rq; p++) {
		struct dd_per_prio *pp = &dd->per_prio[p];

		for (int d = 0; d < 2 && !rq; d++)
			rq = elv_rb_cover(&pp->sort_list[d], sector);
		if (rq) {
			dd_del_rq_rb(pp, rq);
			break;
		}
		list_for_each(pos, &pp->dispatch) {
			struct io_request *b = list_entry(pos, struct io_request, queuelist);

			if (sector >= b->sector && sector < rq_end_sector(b)) {
				rq = b;
				break;
			}
		}
	}
	if (!rq) {
		dd->boost_misses++;
		return false;
	}
	list_del_init(&rq->queuelist);
	list_add_tail(&rq->queuelist, &dd->boosted);
	rq->flags |= REQ_PRIO | REQ_BOOSTED;
	elv_rq_no_merge(e, rq);
	dd->boost_hits++;
	return true;
}

bool dd_is(const struct elevator *e)
{
	return e && e->ops == &mq_deadline_elevator_ops;
}

int dd_set_fg_aware(struct elevator *e, bool on)
{
	struct dd_data *dd;

	if (!dd_is(e))
		return SIM_E_INPUT;
	dd = e->priv;
	/* Requests already queued stay at their level; only new ones are
	 * sorted by the mode (policies switch it before I/O starts). */
	dd->fg_aware = on;
	return 0;
}

static bool dd_queue_empty(struct elevator *e)
{
	return !dd_has_work(e);
}

static struct io_request *dd_former_request(struct elevator *e, struct io_request *rq)
{
	(void)e;
	return elv_rb_former_request(rq);
}

static struct io_request *dd_latter_request(struct elevator *e, struct io_request *rq)
{
	(void)e;
	return elv_rb_latter_request(rq);
}

static void dd_stats_json(const struct elevator *e, struct json_t *obj)
{
	const struct dd_data *dd = e->priv;
	static const char *const names[DD_PRIO_COUNT] = { "rt", "be", "idle" };
	json_t *pp = json_object();

	json_object_set_new(obj, "prio_aware", json_boolean(dd->prio_aware));
	json_object_set_new(obj, "async_depth", json_integer(dd->async_depth_eff));
	json_object_set_new(obj, "dispatched_reads", json_integer((json_int_t)dd->dispatched[DD_READ]));
	json_object_set_new(obj, "dispatched_writes", json_integer((json_int_t)dd->dispatched[DD_WRITE]));
	json_object_set_new(obj, "expired_batch_starts", json_integer((json_int_t)dd->expired_starts));
	json_object_set_new(obj, "starved_write_batches",
			    json_integer((json_int_t)dd->write_starts_starved));
	json_object_set_new(obj, "prio_aged_dispatches", json_integer((json_int_t)dd->aged_dispatches));
	if (dd->boost_hits + dd->boost_misses) {
		json_object_set_new(obj, "boost_hits", json_integer((json_int_t)dd->boost_hits));
		json_object_set_new(obj, "boost_misses", json_integer((json_int_t)dd->boost_misses));
		json_object_set_new(obj, "boost_dispatched", json_integer((json_int_t)dd->boost_dispatched));
	}
	if (dd->fg_aware) {
		json_t *fg = json_object();
		const struct dd_per_prio *f = &dd->per_prio[DD_FG_PRIO];

		json_object_set_new(fg, "inserted", json_integer((json_int_t)f->inserted));
		json_object_set_new(fg, "dispatched", json_integer((json_int_t)dd->fg_dispatched));
		json_object_set_new(fg, "merged", json_integer((json_int_t)f->merged));
		json_object_set_new(fg, "bg_write_bound", json_integer((json_int_t)dd->fg_bg_depth));
		json_object_set_new(fg, "bg_throttled", json_integer((json_int_t)dd->fg_bg_throttled));
		json_object_set_new(fg, "merges_refused", json_integer((json_int_t)dd->fg_merges_refused));
		json_object_set_new(obj, "fg", fg);
	}
	for (int p = 0; p < DD_PRIO_COUNT; p++) {
		json_t *o = json_object();

		json_object_set_new(o, "inserted", json_integer((json_int_t)dd->per_prio[p].inserted));
		json_object_set_new(o, "dispatched", json_integer((json_int_t)dd->per_prio[p].dispatched));
		json_object_set_new(o, "merged", json_integer((json_int_t)dd->per_prio[p].merged));
		json_object_set_new(pp, names[p], o);
	}
	json_object_set_new(obj, "per_prio", pp);
}

/* ---------------------------------------------------------- parameters */

#define DD_SRC "block/mq-deadline.c (Linux 5.10, 6.1)"

static const struct cfg_param dd_params[] = {
	{ .key = "read_expire_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct dd_data, read_expire_ns), .unit = "ms", .def = "500",
	  .min = 0, .max = 600000, .source = DD_SRC " read_expire = HZ / 2",
	  .help = "time after which a queued read is served before sector order" },
	{ .key = "write_expire_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct dd_data, write_expire_ns), .unit = "ms", .def = "5000",
	  .min = 0, .max = 600000, .source = DD_SRC " write_expire = 5 * HZ",
	  .help = "same for writes (a soft limit)" },
	{ .key = "writes_starved", .type = CFG_T_INT,
	  .offset = offsetof(struct dd_data, writes_starved), .unit = "", .def = "2",
	  .min = 0, .max = 1000000, .source = DD_SRC " writes_starved = 2",
	  .help = "read batches that may pass waiting writes before a write batch" },
	{ .key = "fifo_batch", .type = CFG_T_INT,
	  .offset = offsetof(struct dd_data, fifo_batch), .unit = "", .def = "16",
	  .min = 1, .max = 1000000, .source = DD_SRC " fifo_batch = 16",
	  .help = "requests dispatched in sector order before expiry is checked again" },
	{ .key = "front_merges", .type = CFG_T_BOOL,
	  .offset = offsetof(struct dd_data, front_merges), .unit = "", .def = "true",
	  .min = 1, .max = 0, .source = DD_SRC " dd->front_merges = 1",
	  .help = "look for front merges in the sort tree" },
	{ .key = "async_depth", .type = CFG_T_INT,
	  .offset = offsetof(struct dd_data, async_depth), .unit = "", .def = "0",
	  .min = 0, .max = 65536,
	  .source = "block/mq-deadline.c dd_depth_updated (5.14+): max(1, 3 * nr_requests / 4); "
		    "0 = that",
	  .help = "per-word shallow depth of scheduler tags for writes and async requests (6.1 only)" },
	{ .key = "prio_aging_expire_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct dd_data, prio_aging_expire_ns), .unit = "ms", .def = "10000",
	  .min = 0, .max = 600000,
	  .source = "block/mq-deadline.c prio_aging_expire = 10 * HZ (6.0+)",
	  .help = "a lower-priority request waiting this long is served first (6.1 only)" },
	{ .key = "fg_bg_depth", .type = CFG_T_INT,
	  .offset = offsetof(struct dd_data, fg_bg_depth), .unit = "requests", .def = "0",
	  .min = 0, .max = 65536,
	  .source = "mobisim ablation, off; the S6 kernel's value is 4 (universal7420 "
		    "block/cfq-iosched.c cfq_max_async_dispatch)",
	  .help = "fg_aware mode only (policy fgcfq): at most this many BG writes at the device while "
		  "FG requests are queued or in flight; 0 = no bound" },
	CFG_PARAM_END,
};

const struct elevator_ops mq_deadline_elevator_ops = {
	.name = "mq-deadline",
	.summary = "[blk-mq] deadline with I/O priority classes and aging (block/mq-deadline.c 5.10/6.1)",
	.params = dd_params,
	.priv_size = sizeof(struct dd_data),
	.mq = true,
	.use_hash = true,
	.init = dd_init,
	.depth_updated = dd_depth_updated,
	.limit_depth = dd_limit_depth,
	.set_request = dd_prepare_request,
	.put_request = dd_finish_request,
	.merge = dd_request_merge,
	.allow_merge = dd_allow_merge,
	.merged = dd_request_merged,
	.merged_requests = dd_merged_requests,
	.former_request = dd_former_request,
	.latter_request = dd_latter_request,
	.insert_requests = dd_insert_requests,
	.dispatch_request = dd_dispatch_request,
	.has_work = dd_has_work,
	.queue_empty = dd_queue_empty,
	.boost_lba = dd_boost_lba,
	.stats_json = dd_stats_json,
};
