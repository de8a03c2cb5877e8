/* bfq: Budget Fair Queueing on blk-mq. Follows block/bfq-iosched.c,
 * block/bfq-wf2q.c and block/bfq-cgroup.c of Linux 6.1, as the kernel splits
 * them: this file is bfq-iosched.c's part (queues, expiry and budgets,
 * idling and injection, weight raising, the elevator hooks), B-WF2Q+ and the
 * groups are models/iosched/bfq_wf2q.c, the shared structures
 * models/iosched/bfq_int.h:
 * - one queue per process for sync I/O, async queues shared per priority
 *   (class, level); weight = (8 - level) * 10 (bfq_ioprio_to_weight), so
 *   the default BE 4 weighs 40; RT, BE, IDLE served in strict order, an
 *   IDLE queue after 200 ms without service (BFQ_CL_IDLE_TIMEOUT);
 * - B-WF2Q+ per class: each busy queue has virtual start and finish
 *   times, finish = start + budget / weight; the eligible queue
 *   (start <= V) with the smallest finish is served next; V advances by
 *   the service over the sum of busy weights; a queue that goes back to
 *   busy starts at max(V, its old finish);
 * - budgets in sectors (async requests charged 3x, bfq_async_charge_factor):
 *   max_budget auto = peak rate x timeout_sync (16384 sectors until a rate
 *   is known), per-queue budgets grown or shrunk by why the queue was
 *   expired (__bfq_bfqq_recalc_budget), a budget timeout of timeout_sync
 *   (125 ms; x weight-raising factor for raised queues), and a queue that
 *   used its time without its budget is charged for the time
 *   (bfq_bfqq_charge_time);
 * - idling: when the in-service sync queue empties, BFQ keeps the device
 *   for it up to slice_idle (8 ms) when that buys throughput (a device
 *   without command queueing, or a sequential I/O-bound queue on a
 *   rotational one) or is needed for its guarantees (a weight-raised
 *   queue among others, different weights or classes busy), or always
 *   with strict_guarantees; a new queue preempts one that would not idle;
 * - low_latency weight raising: a sync default-weight queue that becomes
 *   busy after being idle for wr_min_idle_time (2 s; a new queue always)
 *   is interactive: weight x30 (wr_coeff) for
 *   bfq_wr_duration = rate_dur_prod / peak_rate clamped to [3 s, 13 s]
 *   (2.5 s x 33000 / peak rate for non-rotational devices), or until it
 *   got 120000 sectors (max_service_from_wr); a queue that comes back
 *   after soft_rt_next_start (its last burst's service at
 *   wr_max_softrt_rate 7000 sectors/s) is soft real-time: weight x3000
 *   for wr_rt_max_time (300 ms); raised queues get budgets of
 *   2 x min_budget;
 * - groups (CONFIG_BFQ_GROUP_IOSCHED): a bfq_group per blkio cgroup (the
 *   io_context's blkcg_id, placed there by Android's task profiles) with
 *   its own per-class service trees and async queues; a child group is an
 *   entity of class BE in its parent's trees with the cgroup's
 *   blkio.bfq.weight (default 100, 1..1000), so B-WF2Q+ shares the device
 *   between the root group's queues and the child groups by weight, then
 *   among the queues inside each group; service is charged to every
 *   level (bfq_bfqq_served), a group is requeued with the budget of its
 *   next child; a sync queue follows its task to a new group
 *   (bfq_bfqq_move); idling is needed whenever more than one group (root
 *   included) has requests pending (6.1 bfq_asymmetric_scenario:
 *   num_groups_with_pending_reqs > 1), besides different queue weights
 *   (non-raised queues with requests pending, unless the one in service
 *   has the smallest) or several classes busy; weight raising stays per
 *   queue, inside its group; preemption across groups compares the
 *   groups' weights (bfq_bfqq_higher_class_or_weight) and needs the
 *   root's next entity to lead to the newcomer. Writeback has no io_context
 *   here and goes to the root group: Android 12-14 mount blkio as cgroup
 *   v1 (cgroups.json), which has no cgroup writeback, so the kernel's
 *   flusher bios carry the root blkg as modelled;
 * - scheduler tags: async I/O may take half of each sbitmap word and sync
 *   writes 3/4, 3/16 and 6/16 while a queue is weight-raised
 *   (bfq_update_depths, bfq_limit_depth);
 * - a per-queue FIFO (fifo_expire 125 ms sync, 250 ms async) checked once
 *   per service slot, else the next request in sector order from the
 *   last position with backward seeks up to back_seek_max at
 *   back_seek_penalty.
 * Simplified or left out, and so named: the peak rate is a 7/8 moving
 *   average of the rate of busy intervals of at least 300 ms and 32
 *   requests (the kernel's bfq_update_peak_rate filters more); hw_tag is
 *   the device's queue depth > 3 rather than detected; I/O injection
 *   while idling follows bfq_choose_bfqq_for_injection and the inject
 *   limit's learning, but not the waker/blocked-queue and own-async-queue
 *   shortcuts of bfq_select_queue; no queue merging (cooperating processes), no large-burst
 *   detection, no think-time-based seekiness beyond BFQQ_SEEKY of 32
 *   requests; groups are one level deep under the root (Android's blkio
 *   tree), a weight change applies when the group is next idle, no
 *   per-device weights (blkio.bfq.weight_device), no group statistics
 *   files and no offlining of groups; the service trees are lists scanned
 *   in order (the kernel's augmented rbtrees give the same choice).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/iosched/bfq_int.h"

static const char *const bfq_reason_names[BFQQE_NREASON] = {
	"too_idle", "budget_timeout", "budget_exhausted", "no_more_requests", "preempted",
};

/* ------------------------------------------------------------ helpers */

int64_t bfq_now(const struct bfq_data *bfqd)
{
	return sim_now(blk_queue_sim(bfqd->e->q));
}

uint64_t bfq_delta(uint64_t service, uint32_t weight)
{
	return (service << WFQ_SERVICE_SHIFT) / (weight ? weight : 1);
}

uint64_t bfq_min_budget(const struct bfq_data *bfqd)
{
	return (bfqd->budgets_assigned < BFQ_STATS_MIN_BUDGETS ? BFQ_DEFAULT_MAX_BUDGET
							       : bfqd->max_budget) / 32;
}

static uint64_t bfq_serv_to_charge(const struct bfq_queue *bfqq, const struct io_request *rq)
{
	if (bfqq->sync || bfqq->wr_coeff > 1)
		return rq->nr_sectors;
	return (uint64_t)rq->nr_sectors * BFQ_ASYNC_CHARGE_FACTOR;
}

static uint64_t bfq_budget_left(const struct bfq_queue *bfqq)
{
	return bfqq->entity.budget > bfqq->entity.service ? bfqq->entity.budget - bfqq->entity.service : 0;
}

/* bfq_wr_duration(): longer on slower devices. */
static int64_t bfq_wr_duration(const struct bfq_data *bfqd)
{
	int64_t dur = (int64_t)(BFQ_REF_RATE_NONROT * (uint64_t)(BFQ_REF_WR_DURATION_NONROT_NS / 1000000) /
				(bfqd->peak_rate ? bfqd->peak_rate : 1)) * 1000000;

	return dur < BFQ_WR_MIN_DUR_NS ? BFQ_WR_MIN_DUR_NS : dur > BFQ_WR_MAX_DUR_NS ? BFQ_WR_MAX_DUR_NS : dur;
}

static struct bfq_queue *rq_bfqq(const struct io_request *rq)
{
	return rq->elv_priv[0];
}

static void bfq_set_weight(struct bfq_data *bfqd, struct bfq_queue *bfqq, uint32_t wr_coeff)
{
	uint32_t w = bfqq->orig_weight * wr_coeff;

	if (bfqq->entity.busy) {
		struct bfq_group *g = bfqq->entity.parent;

		g->wsum[bfqq->cls] = g->wsum[bfqq->cls] - bfqq->entity.weight + w;
		if (bfqq->wr_coeff > 1 && wr_coeff == 1)
			bfqd->wr_busy_queues--;
		else if (bfqq->wr_coeff == 1 && wr_coeff > 1)
			bfqd->wr_busy_queues++;
	}
	bfqq->wr_coeff = wr_coeff;
	bfqq->entity.weight = w;
}

static void bfq_end_wr(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfq_set_weight(bfqd, bfqq, 1);
	bfqq->wr_cur_max_time = 0;
	bfqq->last_wr_start_finish = bfq_now(bfqd);
}

/* ------------------------------------------------- queues and requests */

static struct bfq_queue *bfq_queue_new(struct bfq_data *bfqd, struct bfq_group *g,
				       const struct io_context *ioc, bool sync, int cls, int level)
{
	struct bfq_queue *bfqq = calloc(1, sizeof(*bfqq));

	if (!bfqq)
		return NULL;
	bfqq->bfqd = bfqd;
	bfqq->bfqg = g;
	bfqq->entity.parent = g;
	bfqq->entity.bfqq = bfqq;
	bfqq->entity.cls = cls;
	bfqq->ioc = sync ? ioc : NULL;
	bfqq->pid = ioc ? ioc->pid : 0;
	bfqq->sync = sync;
	bfqq->cls = cls;
	bfqq->level = level;
	bfqq->sort_list = RB_ROOT;
	list_init(&bfqq->fifo);
	list_init(&bfqq->entity.busy_node);
	bfqq->orig_weight = bfqq->entity.weight = (uint32_t)(8 - level) * BFQ_WEIGHT_CONVERSION_COEFF;
	bfqq->wr_coeff = 1;
	bfqq->max_budget = 2 * bfqd->max_budget / 3; /* bfq_init_bfqq */
	bfqq->budget_new = true;
	/* bfq_smallest_from_now(): a new queue counts as idle for long */
	bfqq->budget_timeout = INT64_MIN / 2;
	/* no bandwidth consumed so far (bfq_init_bfqq) */
	bfqq->soft_rt_next_start = bfq_now(bfqd);
	bfqq->wr_start_at_switch_to_srt = INT64_MIN / 2;
	bfqq->last_wr_start_finish = INT64_MIN / 2;
	bfqq->last_idle_bklogged = bfq_now(bfqd);
	bfqq->decrease_time = bfq_now(bfqd);
	list_add_tail(&bfqq->node, &bfqd->queues);
	return bfqq;
}

static void bfq_ioprio(const struct io_context *ioc, int *cls, int *level)
{
	*cls = 1;
	*level = IOPRIO_NORM;
	if (!ioc)
		return;
	if (ioc->ioprio_class == IOPRIO_CLASS_RT)
		*cls = 0;
	else if (ioc->ioprio_class == IOPRIO_CLASS_IDLE)
		*cls = 2;
	if (ioc->ioprio_class != IOPRIO_CLASS_NONE && ioc->ioprio_level < 8)
		*level = ioc->ioprio_level;
}

static void bfq_reset_inject_limit(struct bfq_data *bfqd, struct bfq_queue *bfqq);

/* bfq_get_queue(): the process's sync queue, or the async queue of its
 * priority in its group (bfqg->async_bfqq). With move, a sync queue whose
 * task changed cgroup is moved first (bfq_bic_update_cgroup, done when a
 * request is prepared or a bio merged). */
static struct bfq_queue *bfq_get_queue(struct bfq_data *bfqd, struct io_context *ioc, uint32_t flags,
				       bool move)
{
	bool sync = req_is_sync(flags);
	int cls, level;
	struct bfq_queue *bfqq;
	struct bfq_group *g = bfq_group_of(bfqd, ioc);

	if (!g)
		return NULL;
	bfq_ioprio(ioc, &cls, &level);
	if (!sync || !ioc) {
		if (!g->async[cls][level])
			g->async[cls][level] = bfq_queue_new(bfqd, g, NULL, false, cls, level);
		return g->async[cls][level];
	}
	/* sync queues per process, found by a scan (few processes per run) */
	bfq_list_for_each(bfqq, &bfqd->queues, node)
		if (bfqq->sync && bfqq->ioc == ioc) {
			if (bfqq->bfqg != g && move)
				bfq_move_queue(bfqd, bfqq, g);
			return bfqq;
		}
	return bfq_queue_new(bfqd, g, ioc, true, cls, level);
}

/* bfq_choose_req(): of the requests just after and just before the head
 * position, the nearer, a backward seek costing back_seek_penalty times
 * its distance and allowed up to back_seek_max. */
static struct io_request *bfq_next_rq(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct rb_node *n = bfqq->sort_list.node;
	struct io_request *after = NULL, *before = NULL;
	uint64_t back_max = bfqd->back_max_bytes >> SECTOR_SHIFT;

	if (!n)
		return NULL;
	if (!bfqq->fifo_checked) {
		struct io_request *rq = list_first_entry(&bfqq->fifo, struct io_request, queuelist);

		bfqq->fifo_checked = true;
		if (bfq_now(bfqd) >= rq->fifo_time)
			return rq;
	}
	while (n) {
		struct io_request *rq = rb_entry(n, struct io_request, rb_node);

		if (rq->sector >= bfqq->last_pos) {
			after = rq;
			n = n->left;
		} else {
			before = rq;
			n = n->right;
		}
	}
	if (before && bfqq->last_pos - before->sector > back_max)
		before = NULL;
	if (!after && !before) {
		/* wrap to the lowest sector */
		n = bfqq->sort_list.node;
		while (n->left)
			n = n->left;
		return rb_entry(n, struct io_request, rb_node);
	}
	if (!before)
		return after;
	if (!after)
		return before;
	return after->sector - bfqq->last_pos <=
	       (bfqq->last_pos - before->sector) * (uint64_t)bfqd->back_penalty ? after : before;
}

/* ----------------------------------------------------------- expiring */

/* __bfq_bfqq_recalc_budget() */
static void bfq_recalc_budget(struct bfq_data *bfqd, struct bfq_queue *bfqq,
			      enum bfq_expire_reason reason)
{
	uint64_t min_budget = bfq_min_budget(bfqd), budget;

	budget = bfqq->wr_coeff == 1 ? bfqq->max_budget : 2 * min_budget;
	if (bfqq->sync && bfqq->wr_coeff == 1) {
		switch (reason) {
		case BFQQE_TOO_IDLE:
			if (bfqq->dispatched > 0)
				budget = budget * 2 < bfqd->max_budget ? budget * 2 : bfqd->max_budget;
			else
				budget = budget > 5 * min_budget ? budget - 4 * min_budget : min_budget;
			break;
		case BFQQE_BUDGET_TIMEOUT:
			budget = budget * 2 < bfqd->max_budget ? budget * 2 : bfqd->max_budget;
			break;
		case BFQQE_BUDGET_EXHAUSTED:
			budget = budget * 4 < bfqd->max_budget ? budget * 4 : bfqd->max_budget;
			break;
		case BFQQE_NO_MORE_REQUESTS:
			budget = bfqq->entity.service > min_budget ? bfqq->entity.service : min_budget;
			break;
		default:
			return;
		}
	} else if (!bfqq->sync) {
		budget = bfqd->max_budget;
	}
	bfqq->max_budget = budget;
	if (bfqd->budgets_assigned >= BFQ_STATS_MIN_BUDGETS && bfqq->max_budget > bfqd->max_budget)
		bfqq->max_budget = bfqd->max_budget;
}

static void bfq_set_budget(struct bfq_queue *bfqq)
{
	struct io_request *next = bfqq->sort_list.node ? bfq_next_rq(bfqq->bfqd, bfqq) : NULL;
	uint64_t need = next ? bfq_serv_to_charge(bfqq, next) : 0;

	/* bfq_next_rq may have consumed the FIFO check: it is a new slot */
	bfqq->fifo_checked = false;
	bfqq->entity.budget = bfqq->max_budget > need ? bfqq->max_budget : need;
}

/* bfq_bfqq_softrt_next_start(): when the queue's last burst would have
 * been served at wr_max_softrt_rate, never earlier than now + slice_idle
 * + 4 jiffies, never before the previous value. */
static int64_t bfq_softrt_next_start(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	int64_t a = bfqq->last_idle_bklogged +
		    (int64_t)(bfqq->service_from_backlogged * 1000000000ull /
			      (uint64_t)(bfqd->wr_max_softrt_rate ? bfqd->wr_max_softrt_rate : 1));
	int64_t b = bfq_now(bfqd) + bfqd->slice_idle_ns + 4 * BFQ_JIFFY_NS;
	int64_t m = a > b ? a : b;

	return m > bfqq->soft_rt_next_start ? m : bfqq->soft_rt_next_start;
}

static void bfq_cancel_idle(struct bfq_data *bfqd)
{
	bfqd->wait_request = false;
	sim_cancel(blk_queue_sim(bfqd->e->q), &bfqd->idle_timer);
}

/* bfq_bfqq_expire(): charge the slot, recompute the budget and requeue
 * (or let the queue go idle). */
void bfq_expire(struct bfq_data *bfqd, struct bfq_queue *bfqq, enum bfq_expire_reason reason)
{
	int64_t now = bfq_now(bfqd);
	bool empty = bfqq->sort_list.node == NULL;

	bfq_cancel_idle(bfqd);
	bfqd->expirations[reason]++;
	/* charged for its time when it used it without its budget */
	if (bfqq->wr_coeff == 1 && !bfqq->budget_new &&
	    (reason == BFQQE_BUDGET_TIMEOUT || reason == BFQQE_TOO_IDLE) &&
	    bfq_budget_left(bfqq) >= bfqq->entity.budget / 3) {
		int64_t slot = now - (bfqq->budget_timeout - bfqd->timeout_ns);
		uint64_t charge = (uint64_t)((double)bfqd->max_budget *
					     (double)(slot < bfqd->timeout_ns ? slot : bfqd->timeout_ns) /
					     (double)bfqd->timeout_ns);

		if (charge > bfqq->entity.service) {
			bfqd->charged_time++;
			if (charge > bfqq->entity.budget)
				bfqq->entity.budget = charge;
			bfq_served(bfqd, bfqq, charge - bfqq->entity.service);
		}
	}
	if (bfqd->low_latency && bfqq->wr_coeff == 1)
		bfqq->last_wr_start_finish = now;
	/* (the kernel defers this to the last completion when requests are
	 * out: softrt_update) */
	if (bfqd->low_latency && bfqd->wr_max_softrt_rate > 0 && empty)
		bfqq->soft_rt_next_start = bfq_softrt_next_start(bfqd, bfqq);
	bfq_recalc_budget(bfqd, bfqq, reason);
	bfqd->budgets_assigned = (bfqd->budgets_assigned * 7 + 256) / 8;

	bfqd->in_service = NULL;
	bfq_requeue_path(bfqd, bfqq, empty);
}

void bfq_requeue_path(struct bfq_data *bfqd, struct bfq_queue *bfqq, bool empty)
{
	struct bfq_entity *ent = &bfqq->entity;

	/* the charged service closes the slot: finish = start + service / weight */
	ent->finish = ent->start + bfq_delta(ent->service, ent->weight);
	ent->service = 0;
	if (ent->busy) {
		if (empty) {
			bfq_del_busy(bfqd, bfqq);
		} else {
			ent->start = ent->finish;
			bfq_set_budget(bfqq);
			ent->finish = ent->start + bfq_delta(ent->budget, ent->weight);
		}
	}
	/* the groups on its path: bfq_del_busy already took out those left
	 * without active children; the others are requeued */
	while (ent->parent != bfqd->root) {
		struct bfq_group *g = ent->parent;

		ent = &g->entity;
		ent->finish = ent->start + bfq_delta(ent->service, ent->weight);
		ent->service = 0;
		if (ent->busy) {
			struct bfq_group *pg = ent->parent;

			/* requeued: out of the tree and back with its new budget,
			 * the finish just charged as its start */
			pg->wsum[ent->cls] -= ent->weight;
			list_del_init(&ent->busy_node);
			pg->busy_children--;
			ent->budget = bfq_group_next_budget(bfqd, g);
			bfq_entity_enqueue(ent);
		}
	}
}

/* --------------------------------------------------------------- idling */

/* bfq_asymmetric_scenario() of 6.1: idling is needed to keep the
 * guarantees when the queues with requests pending do not all weigh the
 * same (the weights tree holds non-raised queues; a queue of the
 * smallest weight does not need it), when queues of several classes are
 * busy, or when more than one group (the root counted) has requests
 * pending - then BFQ idles even for seeky queues, so that a group's
 * share does not leak to the others when its queue briefly empties. */
static bool bfq_groups_asymmetric(const struct bfq_data *bfqd)
{
	const struct bfq_group *g;
	int n = bfqd->root->queues_with_pending > 0;

	bfq_for_each(g, &bfqd->groups, struct bfq_group, node)
		n += g->queues_with_pending > 0;
	return bfqd->group_iosched && n > 1;
}

static bool bfq_asymmetric(const struct bfq_data *bfqd, const struct bfq_queue *bfqq)
{
	uint32_t wmin = UINT32_MAX, wmax = 0;
	int classes = 0;
	const struct bfq_queue *q;
	bool smallest;

	bfq_list_for_each(q, &bfqd->queues, node) {
		if (!q->pending || q->wr_coeff > 1)
			continue;
		if (q->entity.weight < wmin)
			wmin = q->entity.weight;
		if (q->entity.weight > wmax)
			wmax = q->entity.weight;
	}
	smallest = bfqq && bfqq->pending && bfqq->wr_coeff == 1 && bfqq->entity.weight == wmin;
	for (int c = 0; c < BFQ_NCLASS; c++)
		classes += bfqd->busy_per_class[c] > 0;
	return (!smallest && wmax > wmin && wmin != UINT32_MAX) || classes > 1 ||
	       bfq_groups_asymmetric(bfqd);
}

static bool bfq_seeky(const struct bfq_queue *bfqq)
{
	return __builtin_popcount(bfqq->seek_history) > 19;
}

static bool bfq_short_ttime(const struct bfq_data *bfqd, const struct bfq_queue *bfqq)
{
	return bfqq->ttime_samples <= BFQ_SAMPLE_VALID ||
	       bfqq->ttime_mean <= (uint64_t)bfqd->slice_idle_ns;
}

/* bfq_better_to_idle() */
static bool bfq_better_to_idle(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bool boosts, needed;

	if (bfqd->strict_guarantees)
		return true;
	if (!bfqd->slice_idle_ns || !bfqq->sync || bfqq->cls == 2)
		return false;
	/* idling_boosts_thr_without_issues(): non-rotational flash boosts only
	 * without command queueing */
	boosts = !bfqd->hw_tag && !bfq_seeky(bfqq) && bfq_short_ttime(bfqd, bfqq) &&
		 bfqd->wr_busy_queues == 0;
	needed = (bfqq->wr_coeff > 1 && (bfqd->wr_busy_queues < bfqd->busy_queues ||
					 bfqd->rq_in_driver >= bfqq->dispatched + 4)) ||
		 bfq_asymmetric(bfqd, bfqq);
	return boosts || needed;
}

static void bfq_idle_timer_fn(struct sim *sim, struct sim_event *ev)
{
	struct bfq_data *bfqd = container_of(ev, struct bfq_data, idle_timer);
	struct bfq_queue *bfqq = bfqd->in_service;

	bfqd->wait_request = false;
	if (bfqq) {
		if (!bfqq->budget_new && sim_now(sim) >= bfqq->budget_timeout)
			bfq_expire(bfqd, bfqq, BFQQE_BUDGET_TIMEOUT);
		else if (!bfqq->sort_list.node)
			bfq_expire(bfqd, bfqq, BFQQE_TOO_IDLE);
	}
	elv_mq_run_queue_async(bfqd->e);
}

static void bfq_arm_slice_timer(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	int64_t idle = bfqd->slice_idle_ns;

	/* a raised queue that waits for its own requests idles at least BFQ_MIN_TT */
	(void)bfqq;
	bfqd->wait_request = true;
	bfqd->idle_arms++;
	bfqd->last_idling_start = bfq_now(bfqd);
	sim_at(blk_queue_sim(bfqd->e->q), &bfqd->idle_timer, bfq_now(bfqd) + idle);
}

/* ----------------------------------------------------- weight raising */

/* bfq_bfqq_handle_idle_busy_switch(): an empty queue gets a request. */
static void bfq_idle_busy_switch(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	int64_t now = bfq_now(bfqd);
	bool idle_long = bfqq->dispatched == 0 && now > bfqq->budget_timeout + bfqd->wr_min_idle_time_ns;
	bool default_w = bfqq->orig_weight == BFQ_DEFAULT_WEIGHT;
	bool soft_rt = bfqd->wr_max_softrt_rate > 0 && now > bfqq->soft_rt_next_start &&
		       bfqq->dispatched == 0 && default_w;
	bool interactive = idle_long && default_w;
	uint32_t old = bfqq->wr_coeff;
	bool deserves = bfqd->low_latency && (old > 1 || (bfqq->sync && (interactive || soft_rt)));

	if (old == 1 && deserves) {
		if (interactive) {
			bfqq->service_from_wr = 0;
			bfq_set_weight(bfqd, bfqq, (uint32_t)bfqd->wr_coeff_param);
			bfqq->wr_cur_max_time = bfq_wr_duration(bfqd);
			bfqq->interactive_raises++;
		} else {
			bfqq->wr_start_at_switch_to_srt = INT64_MIN / 2;
			bfq_set_weight(bfqd, bfqq, (uint32_t)bfqd->wr_coeff_param * BFQ_SOFTRT_WEIGHT_FACTOR);
			bfqq->wr_cur_max_time = bfqd->wr_rt_max_time_ns;
			bfqq->softrt_raises++;
		}
		bfqq->last_wr_start_finish = now;
	} else if (old > 1 && bfqd->low_latency) {
		if (interactive) {
			bfq_set_weight(bfqd, bfqq, (uint32_t)bfqd->wr_coeff_param);
			bfqq->wr_cur_max_time = bfq_wr_duration(bfqd);
		} else if (soft_rt) {
			if (bfqq->wr_cur_max_time != bfqd->wr_rt_max_time_ns) {
				bfqq->wr_start_at_switch_to_srt = bfqq->last_wr_start_finish;
				bfqq->wr_cur_max_time = bfqd->wr_rt_max_time_ns;
				bfq_set_weight(bfqd, bfqq,
					       (uint32_t)bfqd->wr_coeff_param * BFQ_SOFTRT_WEIGHT_FACTOR);
				bfqq->softrt_raises++;
			}
			bfqq->last_wr_start_finish = now;
		}
	}
	if (bfqq->wr_coeff > 1) {
		uint64_t cap = 2 * bfq_min_budget(bfqd);

		if (bfqq->max_budget > cap)
			bfqq->max_budget = cap;
	}
	if (bfqd->low_latency && (old == 1 || bfqq->wr_coeff == 1 || interactive))
		bfqq->last_wr_start_finish = now;
	if (!bfqq->entity.busy) {
		bfqq->last_idle_bklogged = now;
		bfqq->service_from_backlogged = 0;
		bfq_set_budget(bfqq);
		bfqq->budget_new = true;
		bfq_add_busy(bfqd, bfqq);
	}
	/* preemption: the newcomer would finish first with at least the same
	 * raising, is of a higher class or weight, or the queue in service
	 * would not idle anyway - and it is the one to be served next
	 * (next_queue_may_preempt) */
	if (bfqd->in_service && bfqd->in_service != bfqq) {
		struct bfq_queue *in = bfqd->in_service;
		struct bfq_entity *top = bfq_top_entity(bfqd, &bfqq->entity);
		struct bfq_entity *in_top = bfq_top_entity(bfqd, &in->entity);
		bool same = bfqq->bfqg == in->bfqg;
		/* bfq_bfqq_higher_class_or_weight(): across groups, the groups'
		 * weights (a root-group queue's own weight) */
		uint32_t w = same || bfqq->bfqg == bfqd->root ? bfqq->entity.weight : bfqq->bfqg->weight;
		uint32_t in_w = same || in->bfqg == bfqd->root ? in->entity.weight : in->bfqg->weight;
		bool wants = (same ? bfqq->entity.finish < in->entity.finish : top->finish < in_top->finish) &&
			     bfqq->wr_coeff >= in->wr_coeff;
		bool higher = bfqq->cls < in->cls || (bfqq->cls == in->cls && w > in_w);
		struct bfq_entity *next = bfq_peek_next_root(bfqd, in);

		/* next_queue_may_preempt(): the root's next entity is not the
		 * one in service (a group in service stays next while it has
		 * other active children); and it leads to the newcomer */
		if ((wants || higher || !bfq_better_to_idle(bfqd, in)) && next == top && top != in_top) {
			bfqd->preemptions++;
			bfq_expire(bfqd, in, BFQQE_PREEMPTED);
		}
	}
}

/* bfq_update_wr_data(): raising ends after its time (a soft real-time
 * period inside an interactive one falls back to the interactive one) or
 * after max_service_from_wr sectors of interactive raising. */
static void bfq_update_wr_data(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	int64_t now = bfq_now(bfqd);

	if (bfqq->wr_coeff == 1)
		return;
	if (now > bfqq->last_wr_start_finish + bfqq->wr_cur_max_time) {
		if (bfqq->wr_cur_max_time != bfqd->wr_rt_max_time_ns ||
		    now > bfqq->wr_start_at_switch_to_srt + bfq_wr_duration(bfqd)) {
			bfq_end_wr(bfqd, bfqq);
		} else {
			/* switch_back_to_interactive_wr() */
			bfq_set_weight(bfqd, bfqq, (uint32_t)bfqd->wr_coeff_param);
			bfqq->wr_cur_max_time = bfq_wr_duration(bfqd);
			bfqq->last_wr_start_finish = bfqq->wr_start_at_switch_to_srt;
		}
	}
	if (bfqq->wr_coeff > 1 && bfqq->wr_cur_max_time != bfqd->wr_rt_max_time_ns &&
	    bfqq->service_from_wr > BFQ_MAX_SERVICE_FROM_WR)
		bfq_end_wr(bfqd, bfqq);
}

/* ---------------------------------------------------------- peak rate */

static void bfq_update_rate(struct bfq_data *bfqd, const struct io_request *rq)
{
	int64_t now = bfq_now(bfqd);

	if (bfqd->rq_in_driver == 0 && now - bfqd->rate_start > 20 * 1000000LL) {
		/* the device was idle: a new observation interval */
		bfqd->rate_start = now;
		bfqd->rate_sectors = bfqd->rate_samples = 0;
	}
	bfqd->rate_sectors += rq->nr_sectors;
	bfqd->rate_samples++;
	if (bfqd->rate_samples >= BFQ_RATE_MIN_SAMPLES &&
	    now - bfqd->rate_start >= BFQ_RATE_MIN_INTERVAL_NS) {
		uint64_t rate = bfqd->rate_sectors * 1000000000ull / (uint64_t)(now - bfqd->rate_start);

		bfqd->peak_rate = (bfqd->peak_rate * 7 + rate) / 8;
		if (!bfqd->max_budget_user)
			bfqd->max_budget = bfqd->peak_rate * (uint64_t)bfqd->timeout_ns / 1000000000ull;
		if (bfqd->max_budget < 32)
			bfqd->max_budget = 32;
		bfqd->rate_start = now;
		bfqd->rate_sectors = bfqd->rate_samples = 0;
	}
}

/* --------------------------------------------------------------- hooks */

/* bfq_update_depths(): per-word shallow depths of the scheduler tags for
 * async I/O and sync writes, leaving 25 % of each word to sync reads, or
 * ~63 % while a queue is weight-raised. */
static void bfq_depth_updated(struct elevator *e, uint32_t nr_requests, uint32_t word_shift)
{
	struct bfq_data *bfqd = e->priv;
	uint32_t d = 1u << word_shift, m = UINT32_MAX;

	(void)nr_requests;
	bfqd->word_depths[0][0] = d >> 1 ? d >> 1 : 1;
	bfqd->word_depths[0][1] = (d * 3) >> 2 ? (d * 3) >> 2 : 1;
	bfqd->word_depths[1][0] = (d * 3) >> 4 ? (d * 3) >> 4 : 1;
	bfqd->word_depths[1][1] = (d * 6) >> 4 ? (d * 6) >> 4 : 1;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (bfqd->word_depths[i][j] < m)
				m = bfqd->word_depths[i][j];
	elv_mq_min_shallow_depth(e, m);
}

/* bfq_limit_depth(): sync reads unlimited. */
static uint32_t bfq_limit_depth(struct elevator *e, uint32_t flags, const struct io_context *ioc)
{
	struct bfq_data *bfqd = e->priv;

	(void)ioc;
	if (req_is_sync(flags) && !req_is_write(flags))
		return 0;
	return bfqd->word_depths[bfqd->wr_busy_queues > 0][req_is_sync(flags)];
}

static int bfq_init(struct elevator *e, struct sim_error *err)
{
	struct bfq_data *bfqd = e->priv;

	(void)err;
	bfqd->e = e;
	list_init(&bfqd->queues);
	list_init(&bfqd->boosted);
	list_init(&bfqd->groups);
	bfqd->root = calloc(1, sizeof(*bfqd->root));
	if (!bfqd->root)
		return sim_errorf(err, SIM_E_NOMEM, "bfq: out of memory");
	for (int c = 0; c < BFQ_NCLASS; c++)
		list_init(&bfqd->root->busy[c]);
	list_init(&bfqd->root->entity.busy_node);
	bfqd->root->entity.my_group = bfqd->root;
	bfqd->max_budget = bfqd->max_budget_user ? (uint64_t)bfqd->max_budget_user : BFQ_DEFAULT_MAX_BUDGET;
	bfqd->peak_rate = BFQ_REF_RATE_NONROT * 2 / 3;
	bfqd->hw_tag = elv_mq_hw_depth(e) > 3;
	sim_event_init(&bfqd->idle_timer, bfq_idle_timer_fn);
	return 0;
}

static void bfq_exit(struct elevator *e)
{
	struct bfq_data *bfqd = e->priv;

	sim_cancel(blk_queue_sim(e->q), &bfqd->idle_timer);
	while (!list_empty(&bfqd->queues)) {
		struct bfq_queue *bfqq = list_first_entry(&bfqd->queues, struct bfq_queue, node);

		list_del_init(&bfqq->node);
		free(bfqq);
	}
	while (!list_empty(&bfqd->groups)) {
		struct bfq_group *g = list_first_entry(&bfqd->groups, struct bfq_group, node);

		list_del_init(&g->node);
		free(g);
	}
	free(bfqd->root);
	bfqd->root = NULL;
}

static int bfq_prepare_request(struct elevator *e, struct io_request *rq, struct bio *bio)
{
	struct bfq_data *bfqd = e->priv;
	struct bfq_queue *bfqq = bfq_get_queue(bfqd, bio->ioc, bio->flags, true);

	if (!bfqq)
		return -1;
	rq->elv_priv[0] = bfqq;
	return 0;
}

static void bfq_finish_request(struct elevator *e, struct io_request *rq)
{
	(void)e;
	rq->elv_priv[0] = NULL;
}

static bool bfq_allow_merge(struct elevator *e, struct io_request *rq, struct bio *bio)
{
	struct bfq_data *bfqd = e->priv;

	return rq_bfqq(rq) && rq_bfqq(rq) == bfq_get_queue(bfqd, bio->ioc, bio->flags, false);
}

static void bfq_add_rq(struct bfq_data *bfqd, struct io_request *rq, bool at_head)
{
	struct bfq_queue *bfqq = rq_bfqq(rq);
	int64_t now = bfq_now(bfqd);
	bool was_empty = bfqq->sort_list.node == NULL;

	/* think time: from the last completion to this arrival (7/8 EWMA) */
	if (bfqq->sync && bfqq->last_end_request && was_empty && bfqq->dispatched == 0) {
		uint64_t tt = (uint64_t)(now - bfqq->last_end_request);

		if (tt > 2 * (uint64_t)bfqd->slice_idle_ns)
			tt = 2 * (uint64_t)bfqd->slice_idle_ns;
		bfqq->ttime_samples = (7 * bfqq->ttime_samples + 256) / 8;
		bfqq->ttime_total = (7 * bfqq->ttime_total + 256 * tt) / 8;
		bfqq->ttime_mean = (bfqq->ttime_total + 128) / bfqq->ttime_samples;
	}
	/* BFQ_RQ_SEEKY over the last 32 requests */
	{
		uint64_t d = rq->sector > bfqq->last_pos ? rq->sector - bfqq->last_pos
							  : bfqq->last_pos - rq->sector;

		bfqq->seek_history = (bfqq->seek_history << 1) |
				     (d > BFQQ_SEEK_THR && rq->nr_sectors < BFQQ_SECT_THR_NONROT);
	}
	/* injection bookkeeping (bfq_add_request): restart the limit every
	 * second; measure the total service time of a request of the queue in
	 * service that arrives with the drive empty (or with injected I/O in
	 * flight and a baseline known) */
	if (now >= bfqq->decrease_time + 1000 * 1000000LL)
		bfq_reset_inject_limit(bfqd, bfqq);
	if (bfqq == bfqd->in_service &&
	    (bfqd->rq_in_driver == 0 ||
	     (bfqq->last_serv_time_ns > 0 && bfqd->rqs_injected && bfqd->rq_in_driver > 0)) &&
	    now >= bfqq->decrease_time + 10 * 1000000LL) {
		bfqd->last_empty_occupied = now;
		bfqd->wait_dispatch = true;
		if (bfqd->rq_in_driver == 0)
			bfqd->rqs_injected = false;
	}
	rq->fifo_time = now + bfqd->fifo_expire_ns[bfqq->sync];
	elv_rb_add(&bfqq->sort_list, rq);
	if (at_head)
		list_add(&rq->queuelist, &bfqq->fifo);
	else
		list_add_tail(&rq->queuelist, &bfqq->fifo);
	bfqq->queued++;
	bfqd->queued++;
	if (was_empty && !bfqq->entity.busy)
		bfq_idle_busy_switch(bfqd, bfqq);
	else if (was_empty && bfqd->in_service == bfqq && bfqd->wait_request)
		bfq_cancel_idle(bfqd); /* bfq_rq_enqueued: the awaited request came */
}

static void bfq_insert_requests(struct elevator *e, struct list_head *list, bool at_head)
{
	struct bfq_data *bfqd = e->priv;

	while (!list_empty(list)) {
		struct io_request *rq = list_first_entry(list, struct io_request, queuelist);

		list_del_init(&rq->queuelist);
		bfq_add_rq(bfqd, rq, at_head);
	}
}

static void bfq_remove_request(struct bfq_queue *bfqq, struct io_request *rq)
{
	list_del_init(&rq->queuelist);
	elv_rb_del(&bfqq->sort_list, rq);
	bfqq->queued--;
	bfqq->bfqd->queued--;
}

static enum elv_merge bfq_request_merge(struct elevator *e, struct bio *bio, struct io_request **out)
{
	struct bfq_data *bfqd = e->priv;
	struct bfq_queue *bfqq = bfq_get_queue(bfqd, bio->ioc, bio->flags, true);
	struct io_request *rq;

	if (!bfqq)
		return ELV_NO_MERGE;
	rq = elv_rb_find(&bfqq->sort_list, bio->sector + bio->nr_sectors);
	if (rq && elv_rq_merge_ok(e, rq, bio)) {
		*out = rq;
		return ELV_FRONT_MERGE;
	}
	return ELV_NO_MERGE;
}

static void bfq_request_merged(struct elevator *e, struct io_request *rq, enum elv_merge type)
{
	(void)e;
	if (type == ELV_FRONT_MERGE) {
		elv_rb_del(&rq_bfqq(rq)->sort_list, rq);
		elv_rb_add(&rq_bfqq(rq)->sort_list, rq);
	}
}

static void bfq_requests_merged(struct elevator *e, struct io_request *rq, struct io_request *next)
{
	struct bfq_queue *bfqq = rq_bfqq(next);

	(void)e;
	if (rq_bfqq(rq) == bfqq && !list_empty(&rq->queuelist) && !list_empty(&next->queuelist) &&
	    next->fifo_time < rq->fifo_time) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	bfq_remove_request(bfqq, next);
}

static struct io_request *bfq_former_request(struct elevator *e, struct io_request *rq)
{
	(void)e;
	return elv_rb_former_request(rq);
}

static struct io_request *bfq_latter_request(struct elevator *e, struct io_request *rq)
{
	(void)e;
	return elv_rb_latter_request(rq);
}

/* bfq_dispatch_rq_from_bfqq(): the service is charged up the queue's
 * path, whether it is in service or injected. */
static void bfq_dispatch_rq(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct io_request *rq)
{
	uint64_t charge = bfq_serv_to_charge(bfqq, rq);

	bfq_remove_request(bfqq, rq);
	bfq_served(bfqd, bfqq, charge);
	bfqq->served += rq->nr_sectors;
	bfqq->bfqg->served += rq->nr_sectors;
	bfqq->service_from_backlogged += rq->nr_sectors;
	if (bfqq->wr_coeff > 1)
		bfqq->service_from_wr += rq->nr_sectors;
	bfqq->last_pos = rq_end_sector(rq);
	bfqq->dispatched++;
	bfqd->rq_in_driver++;
	if (bfqd->rq_in_driver > bfqd->max_rq_in_driver)
		bfqd->max_rq_in_driver = bfqd->rq_in_driver;
	if (bfqd->wait_dispatch && bfqq == bfqd->in_service) {
		bfqd->wait_dispatch = false;
		bfqd->waited_rq = rq;
	}
	bfq_update_rate(bfqd, rq);
	bfq_update_wr_data(bfqd, bfqq);
}

/* I/O injection while the device is kept for the empty queue in service
 * (bfq_select_queue + bfq_choose_bfqq_for_injection): when idling does
 * not buy throughput and the queue in service is not alone in being
 * raised with a short think time, a busy queue whose next request fits
 * its budget is served, as long as fewer requests are in flight than the
 * in-service queue's inject_limit (learned by bfq_update_inject_limit;
 * one request once a whole slice_idle has passed with no baseline yet);
 * a non-raised queue in service lets any queue in, a raised one only
 * raised queues; one large request at a time on flash. */
static struct io_request *bfq_inject(struct bfq_data *bfqd, struct bfq_queue *in)
{
	bool boosts = !bfqd->hw_tag && !bfq_seeky(in) && bfq_short_ttime(bfqd, in) &&
		      bfqd->wr_busy_queues == 0;
	bool always = in->wr_coeff == 1 || !bfq_short_ttime(bfqd, in);
	uint32_t limit = in->inject_limit;
	struct bfq_queue *q;

	if (boosts || !(in->wr_coeff == 1 || bfqd->wr_busy_queues > 1 || !bfq_short_ttime(bfqd, in)))
		return NULL;
	if (limit == 0 && in->last_serv_time_ns == 0 && bfqd->wait_request &&
	    bfq_now(bfqd) >= bfqd->last_idling_start + bfqd->slice_idle_ns)
		limit = 1;
	if (bfqd->rq_in_driver >= limit)
		return NULL;
	bfq_list_for_each(q, &bfqd->queues, node) {
		struct io_request *rq;

		if (q == in || !q->entity.busy || !q->sort_list.node || !(always || q->wr_coeff > 1))
			continue;
		rq = bfq_next_rq(bfqd, q);
		q->fifo_checked = false;
		if (bfq_serv_to_charge(q, rq) > bfq_budget_left(q))
			continue;
		if (rq->nr_sectors >= BFQQ_SECT_THR_NONROT && bfqd->rq_in_driver >= 1)
			continue;
		bfqd->rqs_injected = true;
		bfqd->injected++;
		bfq_dispatch_rq(bfqd, q, rq);
		return rq;
	}
	return NULL;
}

/* bfq_reset_inject_limit(): every second a queue starts over - from 0
 * with a short think time (an injected request may delay its next one),
 * else from 1. */
static void bfq_reset_inject_limit(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfqq->last_serv_time_ns = 0;
	bfqd->waited_rq = NULL;
	bfqq->inject_limit = bfq_short_ttime(bfqd, bfqq) ? 0 : 1;
	bfqq->decrease_time = bfq_now(bfqd);
}

/* bfq_update_inject_limit(): at the completion of the request whose
 * total service time was being measured, grow the limit while the time
 * stays under 3/2 of the baseline (measured without injection), shrink
 * it otherwise. */
static void bfq_update_inject_limit(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	int64_t tot = bfq_now(bfqd) - bfqd->last_empty_occupied;
	uint32_t old = bfqq->inject_limit;

	if (bfqq->last_serv_time_ns > 0 && bfqd->rqs_injected) {
		int64_t threshold = (bfqq->last_serv_time_ns * 3) >> 1;

		if (tot >= threshold && old > 0) {
			bfqq->inject_limit--;
			bfqq->decrease_time = bfq_now(bfqd);
		} else if (tot < threshold && old <= bfqd->max_rq_in_driver) {
			bfqq->inject_limit++;
		}
	}
	/* rq_in_driver still counts the completing request here */
	if ((bfqq->last_serv_time_ns == 0 && bfqd->rq_in_driver == 1) || tot < bfqq->last_serv_time_ns) {
		if (bfqq->last_serv_time_ns == 0)
			bfqq->inject_limit = old > 1 ? old : 1;
		bfqq->last_serv_time_ns = tot;
	} else if (!bfqd->rqs_injected && bfqd->rq_in_driver == 1) {
		bfqq->last_serv_time_ns = tot;
	}
	bfqd->waited_rq = NULL;
	bfqd->rqs_injected = false;
}

/* bfq_select_queue() + bfq_dispatch_rq_from_bfqq() */
static struct io_request *bfq_dispatch_request(struct elevator *e)
{
	struct bfq_data *bfqd = e->priv;
	int64_t now = bfq_now(bfqd);

	if (!list_empty(&bfqd->boosted)) {
		struct io_request *rq = list_first_entry(&bfqd->boosted, struct io_request, queuelist);

		list_del_init(&rq->queuelist);
		rq_bfqq(rq)->dispatched++;
		bfqd->rq_in_driver++;
		return rq;
	}
	for (int guard = 0; guard < 1024; guard++) {
		struct bfq_queue *bfqq = bfqd->in_service;
		struct io_request *rq;

		if (!bfqq) {
			if (bfqd->strict_guarantees && bfqd->rq_in_driver > 0)
				return NULL;
			bfqq = bfq_lookup_next(bfqd);
			if (!bfqq)
				return NULL;
			bfqd->in_service = bfqq;
			bfqq->fifo_checked = false;
			bfqq->budget_new = true;
		}
		if (bfqd->wait_request)
			return bfq_inject(bfqd, bfqq); /* idling for bfqq */
		if (!bfqq->budget_new && now >= bfqq->budget_timeout) {
			bfq_expire(bfqd, bfqq, BFQQE_BUDGET_TIMEOUT);
			continue;
		}
		if (!bfqq->sort_list.node) {
			/* keep the device for bfqq while its requests are out */
			if (bfqq->dispatched && bfq_better_to_idle(bfqd, bfqq))
				return bfq_inject(bfqd, bfqq);
			bfq_expire(bfqd, bfqq, BFQQE_NO_MORE_REQUESTS);
			continue;
		}
		rq = bfq_next_rq(bfqd, bfqq);
		if (bfq_serv_to_charge(bfqq, rq) > bfq_budget_left(bfqq)) {
			bfq_expire(bfqd, bfqq, BFQQE_BUDGET_EXHAUSTED);
			continue;
		}
		if (bfqd->strict_guarantees && bfqd->rq_in_driver > 0)
			return NULL;
		/* dispatch */
		if (bfqq->budget_new) {
			uint32_t coeff = bfqq->wr_cur_max_time == bfqd->wr_rt_max_time_ns
						 ? 1 : bfqq->entity.weight / bfqq->orig_weight;

			bfqq->budget_new = false;
			bfqq->budget_timeout = now + bfqd->timeout_ns * (int64_t)coeff;
		}
		bfq_dispatch_rq(bfqd, bfqq, rq);
		if (!bfqq->sort_list.node && !bfq_better_to_idle(bfqd, bfqq))
			bfq_expire(bfqd, bfqq, BFQQE_NO_MORE_REQUESTS);
		return rq;
	}
	return NULL;
}

/* bfq_has_work(): requests inside, whatever the idling state. */
static bool bfq_has_work(struct elevator *e)
{
	struct bfq_data *bfqd = e->priv;

	return bfqd->queued > 0 || !list_empty(&bfqd->boosted);
}

/* mobisim: boost_lba (the thesis's elv_boost_lba, the boost policy): the
 * queued request covering sector leaves its queue for a list dispatch
 * serves before any queue, as the kernel serves bfqd->dispatch (at-head
 * inserts); it is not charged to its queue's budget, and its queue keeps
 * it as dispatched for completion and idling. O(queues x log n). */
static bool bfq_boost_lba(struct elevator *e, uint64_t sector)
{
	struct bfq_data *bfqd = e->priv;
	struct bfq_queue *bfqq;

	bfq_list_for_each(bfqq, &bfqd->queues, node) {
		struct io_request *rq = elv_rb_cover(&bfqq->sort_list, sector);

		if (rq) {
			bfq_remove_request(bfqq, rq);
			list_add_tail(&rq->queuelist, &bfqd->boosted);
			rq->flags |= REQ_PRIO | REQ_BOOSTED;
			elv_rq_no_merge(e, rq);
			bfqd->boost_hits++;
			return true;
		}
	}
	{
		struct list_head *pos;

		list_for_each(pos, &bfqd->boosted) {
			struct io_request *rq = list_entry(pos, struct io_request, queuelist);

			if (sector >= rq->sector && sector < rq_end_sector(rq)) {
				bfqd->boost_hits++;
				return true;
			}
		}
	}
	bfqd->boost_misses++;
	return false;
}

static bool bfq_queue_empty(struct elevator *e)
{
	return !bfq_has_work(e);
}

/* bfq_completed_request(): think-time clock, and idling or expiry of the
 * queue in service once its last request is back. */
static void bfq_completed_request(struct elevator *e, struct io_request *rq)
{
	struct bfq_data *bfqd = e->priv;
	struct bfq_queue *bfqq = rq_bfqq(rq);
	int64_t now = bfq_now(bfqd);

	if (!bfqq)
		return;
	if (rq == bfqd->waited_rq)
		bfq_update_inject_limit(bfqd, bfqq);
	bfqq->dispatched--;
	bfqd->rq_in_driver--;
	bfqq->last_end_request = now;
	bfq_update_pending(bfqq);
	if (bfqd->in_service != bfqq)
		return;
	if (!bfqq->sort_list.node && bfq_better_to_idle(bfqd, bfqq)) {
		if (bfqq->dispatched == 0 && !bfqd->wait_request) {
			if (bfq_groups_asymmetric(bfqd))
				bfqd->group_idles++;
			bfq_arm_slice_timer(bfqd, bfqq);
		}
		return;
	}
	if (!bfqq->budget_new && now >= bfqq->budget_timeout)
		bfq_expire(bfqd, bfqq, BFQQE_BUDGET_TIMEOUT);
	else if (!bfqq->sort_list.node && (bfqq->dispatched == 0 || !bfq_better_to_idle(bfqd, bfqq)))
		bfq_expire(bfqd, bfqq, BFQQE_NO_MORE_REQUESTS);
}

static void bfq_stats_json(const struct elevator *e, struct json_t *obj)
{
	const struct bfq_data *bfqd = e->priv;
	json_t *ex = json_object(), *qs = json_array();
	const struct bfq_queue *bfqq;

	for (int i = 0; i < BFQQE_NREASON; i++)
		json_object_set_new(ex, bfq_reason_names[i], json_integer((json_int_t)bfqd->expirations[i]));
	json_object_set_new(obj, "expirations", ex);
	json_object_set_new(obj, "idle_arms", json_integer((json_int_t)bfqd->idle_arms));
	json_object_set_new(obj, "preemptions", json_integer((json_int_t)bfqd->preemptions));
	if (bfqd->boost_hits + bfqd->boost_misses) {
		json_object_set_new(obj, "boost_hits", json_integer((json_int_t)bfqd->boost_hits));
		json_object_set_new(obj, "boost_misses", json_integer((json_int_t)bfqd->boost_misses));
	}
	json_object_set_new(obj, "charged_time", json_integer((json_int_t)bfqd->charged_time));
	json_object_set_new(obj, "peak_rate_sectors_per_s", json_integer((json_int_t)bfqd->peak_rate));
	json_object_set_new(obj, "max_budget_sectors", json_integer((json_int_t)bfqd->max_budget));
	json_object_set_new(obj, "wr_duration_ms", json_integer(bfq_wr_duration(bfqd) / 1000000));
	json_object_set_new(obj, "group_idles", json_integer((json_int_t)bfqd->group_idles));
	json_object_set_new(obj, "group_moves", json_integer((json_int_t)bfqd->group_moves));
	json_object_set_new(obj, "injected", json_integer((json_int_t)bfqd->injected));
	{
		json_t *gs = json_array(), *o = json_object();
		const struct bfq_group *g;

		json_object_set_new(o, "blkcg", json_integer(0));
		json_object_set_new(o, "weight", json_null());
		json_object_set_new(o, "served_sectors", json_integer((json_int_t)bfqd->root->served));
		json_array_append_new(gs, o);
		bfq_for_each(g, &bfqd->groups, struct bfq_group, node) {
			o = json_object();
			json_object_set_new(o, "blkcg", json_integer(g->id));
			json_object_set_new(o, "weight", json_integer(g->weight));
			json_object_set_new(o, "served_sectors", json_integer((json_int_t)g->served));
			json_array_append_new(gs, o);
		}
		json_object_set_new(obj, "groups", gs);
	}
	bfq_list_for_each(bfqq, &bfqd->queues, node) {
		json_t *o = json_object();

		json_object_set_new(o, "pid", json_integer(bfqq->pid));
		json_object_set_new(o, "sync", json_boolean(bfqq->sync));
		json_object_set_new(o, "blkcg", json_integer(bfqq->bfqg->id));
		json_object_set_new(o, "weight", json_integer(bfqq->orig_weight));
		json_object_set_new(o, "served_sectors", json_integer((json_int_t)bfqq->served));
		json_object_set_new(o, "interactive_raises", json_integer(bfqq->interactive_raises));
		json_object_set_new(o, "softrt_raises", json_integer(bfqq->softrt_raises));
		json_array_append_new(qs, o);
	}
	json_object_set_new(obj, "queues", qs);
}

/* ---------------------------------------------------------- parameters */

#define BFQ_SRC "block/bfq-iosched.c (Linux 6.1)"

static const struct cfg_param bfq_params[] = {
	{ .key = "slice_idle_us", .type = CFG_T_TIME,
	  .offset = offsetof(struct bfq_data, slice_idle_ns), .unit = "us", .def = "8000",
	  .min = 0, .max = 1e6, .source = BFQ_SRC " bfq_slice_idle = NSEC_PER_SEC / 125",
	  .help = "how long the device is kept for an empty in-service sync queue" },
	{ .key = "timeout_sync_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct bfq_data, timeout_ns), .unit = "ms", .def = "125",
	  .min = 1, .max = 60000, .source = BFQ_SRC " bfq_timeout = HZ / 8",
	  .help = "budget timeout of a service slot" },
	{ .key = "max_budget", .type = CFG_T_INT,
	  .offset = offsetof(struct bfq_data, max_budget_user), .unit = "sectors", .def = "0",
	  .min = 0, .max = 1e9,
	  .source = BFQ_SRC " bfq_calc_max_budget: peak rate x timeout; 0 = auto "
		    "(bfq_default_max_budget 16384 until a rate is measured)",
	  .help = "largest budget of a queue (0 = auto)" },
	{ .key = "fifo_expire_async_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct bfq_data, fifo_expire_ns[0]), .unit = "ms", .def = "250",
	  .min = 0, .max = 60000, .source = BFQ_SRC " bfq_fifo_expire[0] = HZ / 4",
	  .help = "an async request older than this is served first in its queue's slot" },
	{ .key = "fifo_expire_sync_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct bfq_data, fifo_expire_ns[1]), .unit = "ms", .def = "125",
	  .min = 0, .max = 60000, .source = BFQ_SRC " bfq_fifo_expire[1] = HZ / 8",
	  .help = "same for sync requests" },
	{ .key = "back_seek_max_kib", .type = CFG_T_SIZE,
	  .offset = offsetof(struct bfq_data, back_max_bytes), .unit = "KiB", .def = "16384",
	  .min = 0, .max = 1e9, .source = BFQ_SRC " bfq_back_max = 16 * 1024 (KiB)",
	  .help = "longest backward seek taken for the next request" },
	{ .key = "back_seek_penalty", .type = CFG_T_INT,
	  .offset = offsetof(struct bfq_data, back_penalty), .unit = "", .def = "2",
	  .min = 1, .max = 1000, .source = BFQ_SRC " bfq_back_penalty = 2",
	  .help = "cost factor of a backward seek" },
	{ .key = "low_latency", .type = CFG_T_BOOL,
	  .offset = offsetof(struct bfq_data, low_latency), .unit = "", .def = "true",
	  .min = 1, .max = 0, .source = BFQ_SRC " bfqd->low_latency = true",
	  .help = "weight raising of interactive and soft real-time queues" },
	{ .key = "strict_guarantees", .type = CFG_T_BOOL,
	  .offset = offsetof(struct bfq_data, strict_guarantees), .unit = "", .def = "false",
	  .min = 1, .max = 0, .source = BFQ_SRC " bfqd->strict_guarantees = false",
	  .help = "always idle, one request at a time at the device" },
	{ .key = "wr_coeff", .type = CFG_T_INT,
	  .offset = offsetof(struct bfq_data, wr_coeff_param), .unit = "", .def = "30",
	  .min = 1, .max = 1000, .source = BFQ_SRC " bfqd->bfq_wr_coeff = 30 (no sysfs knob)",
	  .help = "weight factor of an interactive queue (x100 more for soft real-time)" },
	{ .key = "wr_rt_max_time_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct bfq_data, wr_rt_max_time_ns), .unit = "ms", .def = "300",
	  .min = 1, .max = 60000, .source = BFQ_SRC " bfq_wr_rt_max_time = msecs_to_jiffies(300)",
	  .help = "duration of soft real-time raising" },
	{ .key = "wr_min_idle_time_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct bfq_data, wr_min_idle_time_ns), .unit = "ms", .def = "2000",
	  .min = 0, .max = 600000, .source = BFQ_SRC " bfq_wr_min_idle_time = msecs_to_jiffies(2000)",
	  .help = "idle time after which a queue's next I/O counts as interactive" },
	{ .key = "wr_max_softrt_rate", .type = CFG_T_INT,
	  .offset = offsetof(struct bfq_data, wr_max_softrt_rate), .unit = "sectors/s", .def = "7000",
	  .min = 0, .max = 1e9, .source = BFQ_SRC " bfq_wr_max_softrt_rate = 7000",
	  .help = "rate below which a periodic queue is soft real-time" },
	{ .key = "group_iosched", .type = CFG_T_BOOL,
	  .offset = offsetof(struct bfq_data, group_iosched), .unit = "", .def = "true",
	  .min = 1, .max = 0,
	  .source = "block/Kconfig.iosched CONFIG_BFQ_GROUP_IOSCHED (assumed =y, as in distribution "
		    "6.1 configs; without it blkio.bfq.weight does not exist and all queues share the root)",
	  .help = "hierarchical scheduling: a group per blkio cgroup, scheduled with blkio.bfq.weight" },
	{ .key = "group_weight_default", .type = CFG_T_INT,
	  .offset = offsetof(struct bfq_data, group_weight_default), .unit = "", .def = "100",
	  .min = 1, .max = 1000,
	  .source = "block/bfq-iosched.h (6.1) BFQ_WEIGHT_LEGACY_DFL 100 (v2: CGROUP_WEIGHT_DFL 100), "
		    "range BFQ_MIN_WEIGHT 1 .. BFQ_MAX_WEIGHT 1000",
	  .help = "blkio.bfq.weight of a group whose cgroup did not set one" },
	CFG_PARAM_END,
};

const struct elevator_ops bfq_elevator_ops = {
	.name = "bfq",
	.summary = "[blk-mq] B-WF2Q+ budgets, idling, low_latency weight raising, blkio groups "
		   "(block/bfq-iosched.c, bfq-cgroup.c 6.1)",
	.params = bfq_params,
	.priv_size = sizeof(struct bfq_data),
	.mq = true,
	.use_hash = true,
	.init = bfq_init,
	.exit = bfq_exit,
	.depth_updated = bfq_depth_updated,
	.limit_depth = bfq_limit_depth,
	.set_request = bfq_prepare_request,
	.put_request = bfq_finish_request,
	.allow_merge = bfq_allow_merge,
	.merge = bfq_request_merge,
	.merged = bfq_request_merged,
	.merged_requests = bfq_requests_merged,
	.former_request = bfq_former_request,
	.latter_request = bfq_latter_request,
	.insert_requests = bfq_insert_requests,
	.dispatch_request = bfq_dispatch_request,
	.has_work = bfq_has_work,
	.boost_lba = bfq_boost_lba,
	.queue_empty = bfq_queue_empty,
	.completed_request = bfq_completed_request,
	.stats_json = bfq_stats_json,
};
