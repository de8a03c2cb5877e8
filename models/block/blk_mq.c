/* blk-mq: the multi-queue block layer of today's phones. Follows
 * block/blk-mq.c, blk-mq-sched.c and blk-mq-tag.c of Linux 5.10 and 6.1
 * (block.kernel picks which; 6.1 is the default, the android14-6.1 GKI):
 * blk_mq_submit_bio, blk_mq_get_tag, blk_mq_flush_plug_list,
 * blk_mq_sched_insert_request(s), blk_mq_try_issue_directly,
 * __blk_mq_sched_dispatch_requests, blk_mq_do_dispatch_sched/ctx,
 * blk_mq_dispatch_rq_list, blk_mq_update_dispatch_busy, and the SCSI
 * budget of drivers/scsi/scsi_lib.c (scsi_mq_get_budget).
 *
 * Life of a bio: merge into the task's plug (5.10: any plugged request;
 * 6.1: only the last one), then into the scheduler (dd and bfq through the
 * back-merge hash and their front-merge hook, kyber through its per-ctx
 * lists) or, with none, into the last 8 requests of the software queue.
 * Otherwise a tag: from the scheduler tags (nr_requests, default
 * 2 x min(queue_depth, 128), limited per request by the scheduler's
 * shallow depth) or, with none, straight from the driver tags (the tag
 * set's queue_depth). No tag: the task sleeps in blk_mq_get_tag (wait
 * cause get_request) after its plug is flushed, and is woken in batches
 * of wake_batch frees as sbitmap_queue does. The request goes to the
 * plug (flushed when it already holds BLK_MAX_REQUEST_COUNT requests,
 * 16 in 5.10 and 32 in 6.1, or its last request is >= 128 KiB), into the
 * scheduler, or - none, no plug, hardware queue not busy - is issued
 * directly (bypass). Dispatch takes hctx->dispatch first, then the
 * scheduler (one SCSI budget slot, then one request, then a driver tag)
 * or the software queues; a device that refuses a command
 * (BLK_STS_RESOURCE) gets it back on hctx->dispatch, and the queue runs
 * again at every completion (the SCHED_RESTART rerun). With a host-wide
 * tag set (UFS MCQ) a queue short of a driver tag instead joins one of
 * the tag map's 8 wait queues and runs when a batch of frees wakes that
 * wait queue (blk_mq_mark_tag_wait, blk_mq_dispatch_wake,
 * sbitmap_queue_wake_up).
 *
 * Modelling choices: tags are counted, not bit-exact (see blk_mq_int.h);
 * a task runs on software queue pid % nr_cpus (tasks do not migrate); 6.1
 * issues a plug in submission order (its rq_list is LIFO and the order
 * of direct issue varied across 6.x releases); flush/FUA requests skip
 * blk-flush.c and go to hctx->dispatch. Left out: reserved tags, shared
 * tag sets across LUNs, hctx types (read/poll queues), timeouts, polling
 * (models/completion covers the completion path), request splitting.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/block/blk_mq_int.h"
#include "models/block/block.h"
#include "sim/assert.h"
#include "sim/sim.h"

/* --------------------------------------------------------------- params */

static const char *const blk_mq_versions[] = { "5.10", "6.1", NULL };

static const struct cfg_param blk_mq_params_table[] = {
	{ .key = "kernel", .type = CFG_T_ENUM, .offset = offsetof(struct blk_mq_params, kernel),
	  .unit = "", .def = "6.1", .min = 1, .max = 0, .choices = blk_mq_versions,
	  .source = "android14-6.1 GKI (2024 phones); 5.10 = android12/13-5.10",
	  .help = "blk-mq version followed: plug limit and plug merge, mq-deadline priorities" },
	{ .key = "nr_hw_queues", .type = CFG_T_INT, .offset = offsetof(struct blk_mq_params, nr_hw_queues),
	  .unit = "", .def = "1", .min = 1, .max = 64,
	  .source = "drivers/scsi/hosts.c: shost->nr_hw_queues = 1 unless the driver sets it; "
		    "UFS without MCQ (5.10-6.1) keeps one",
	  .help = "hardware queues (UFS 4.0 MCQ: one per CPU, Linux 6.3+)" },
	{ .key = "nr_cpus", .type = CFG_T_INT, .offset = offsetof(struct blk_mq_params, nr_cpus),
	  .unit = "", .def = "8", .min = 1, .max = 256,
	  .source = "assumption: an octa-core phone SoC (one software queue per possible CPU)",
	  .help = "software queues (struct blk_mq_ctx)" },
	{ .key = "queue_depth", .type = CFG_T_INT, .offset = offsetof(struct blk_mq_params, queue_depth),
	  .unit = "", .def = "0", .min = 0, .max = 65536,
	  .source = "drivers/ufs ufshcd: host->can_queue = nutrs -> tag_set.queue_depth; "
		    "0 = the device model's queue_depth",
	  .help = "driver tags per hardware queue (0 = the device's queue depth)" },
	{ .key = "sdev_queue_depth", .type = CFG_T_INT,
	  .offset = offsetof(struct blk_mq_params, sdev_queue_depth), .unit = "", .def = "0",
	  .min = 0, .max = 65536,
	  .source = "drivers/scsi/scsi_lib.c scsi_mq_get_budget (sdev->queue_depth); ufshcd sets "
		    "min(bLUQueueDepth, nutrs); 0 = the tag set depth",
	  .help = "SCSI device budget: commands of this LU in flight" },
	{ .key = "nr_requests", .type = CFG_T_INT, .offset = offsetof(struct blk_mq_params, nr_requests),
	  .unit = "", .def = "0", .min = 0, .max = 65536,
	  .source = "block/blk-mq-sched.c blk_mq_init_sched: 2 * min(queue_depth, BLKDEV_MAX_RQ=128); "
		    "without a scheduler q->nr_requests = queue_depth",
	  .help = "scheduler tags per hardware queue (0 = kernel default)" },
	{ .key = "plug_max_requests", .type = CFG_T_INT,
	  .offset = offsetof(struct blk_mq_params, plug_max_requests), .unit = "", .def = "0",
	  .min = 0, .max = 4096,
	  .source = "BLK_MAX_REQUEST_COUNT: 16 (include/linux/blkdev.h, 5.10); 32 (block/blk.h, 5.16+); "
		    "0 = the version's",
	  .help = "requests a plug holds before it is flushed" },
	{ .key = "max_sectors_kib", .type = CFG_T_SIZE,
	  .offset = offsetof(struct blk_mq_params, max_sectors_bytes), .unit = "KiB", .def = "1024",
	  .min = 4, .max = 32768,
	  .source = "drivers/ufs ufshcd_driver_template .max_sectors = (1 << 20) / SECTOR_SIZE "
		    "(below BLK_DEF_MAX_SECTORS 2560)",
	  .help = "largest request built by merging (max_sectors_kb)" },
	{ .key = "max_segments", .type = CFG_T_INT, .offset = offsetof(struct blk_mq_params, max_segments),
	  .unit = "", .def = "128", .min = 1, .max = 65535,
	  .source = "ufshcd_driver_template .sg_tablesize = SG_ALL (128)",
	  .help = "scatter-gather segments per request" },
	{ .key = "max_segment_size_kib", .type = CFG_T_SIZE,
	  .offset = offsetof(struct blk_mq_params, max_segment_size_bytes), .unit = "KiB", .def = "256",
	  .min = 4, .max = 4096,
	  .source = "ufshcd: blk_queue_max_segment_size(PRDT_DATA_BYTE_COUNT_MAX = 256 KiB)",
	  .help = "largest physically contiguous segment" },
	CFG_PARAM_END,
};

/* ----------------------------------------------------------------- tags */

/* sbitmap_calculate_shift(): 64-bit words, shrunk so a small map spreads
 * over at least four words. */
static uint32_t blk_mq_sbitmap_shift(uint32_t depth)
{
	uint32_t shift = 6;

	if (depth >= 4)
		while ((4u << shift) > depth)
			shift--;
	return shift;
}

/* Tags a shallow allocation can reach: min(shallow, word) in every word. */
static uint32_t blk_mq_shallow_capacity(const struct blk_mq_tags *t, uint32_t shallow)
{
	uint32_t word = 1u << t->shift, s = shallow < word ? shallow : word;
	uint32_t rem = t->depth & (word - 1);

	return (t->depth >> t->shift) * s + (rem < s ? rem : s);
}

/* sbq_calc_wake_batch(): the batch must be small enough that the depth
 * reachable by the shallowest user can wake every wait queue. */
static void blk_mq_tags_calc_wake_batch(struct blk_mq_tags *t)
{
	uint32_t d = blk_mq_shallow_capacity(t, t->min_shallow), b = d / BLK_MQ_SBQ_WAIT_QUEUES;

	t->wake_batch = b < 1 ? 1 : b > BLK_MQ_SBQ_WAKE_BATCH ? BLK_MQ_SBQ_WAKE_BATCH : b;
}

static void blk_mq_tags_init(struct blk_mq_tags *t, uint32_t depth)
{
	memset(t, 0, sizeof(*t));
	t->depth = depth;
	t->shift = blk_mq_sbitmap_shift(depth);
	t->min_shallow = UINT32_MAX;
	list_init(&t->wait);
	for (int i = 0; i < BLK_MQ_SBQ_WAIT_QUEUES; i++)
		list_init(&t->hctx_ws[i]);
	blk_mq_tags_calc_wake_batch(t);
}

static bool blk_mq_tag_get(struct blk_mq_tags *t, uint32_t shallow)
{
	uint32_t limit = shallow ? blk_mq_shallow_capacity(t, shallow) : t->depth;

	if (t->used >= limit)
		return false;
	if (++t->used > t->peak_used)
		t->peak_used = t->used;
	return true;
}

/* sbitmap_queue_wake_up() for the hardware queues waiting on the map
 * (6.1 lib/sbitmap.c: __sbq_wake_up, sbq_wake_ptr; 6.2+ counts the frees
 * once per map, the same count here): each free counts while any queue
 * waits; at wake_batch frees the first wait queue holding one, from
 * wake_index on, is woken and wake_index moves past it. wake_up_nr wakes
 * every non-exclusive entry, so all the queues on it, newest first;
 * blk_mq_dispatch_wake takes each off (list_del_init) and runs it (here:
 * onto mq->woken, run first by the next blk_mq_run_waiters). A queue
 * that still finds no tag joins a wait queue again (blk_mq_mark_tag_wait). */
static void blk_mq_tag_wake_hctx(struct blk_mq *mq, struct blk_mq_tags *t)
{
	if (!t->hctx_waiting || ++t->hctx_wake_cnt < t->wake_batch)
		return;
	for (uint32_t i = 0; i < BLK_MQ_SBQ_WAIT_QUEUES; i++) {
		uint32_t w = (t->wake_index + i) % BLK_MQ_SBQ_WAIT_QUEUES;
		struct list_head *ws = &t->hctx_ws[w];

		if (list_empty(ws))
			continue;
		t->hctx_wake_cnt = 0;
		t->wake_index = (w + 1) % BLK_MQ_SBQ_WAIT_QUEUES;
		t->hctx_wakes++;
		while (!list_empty(ws)) {
			struct blk_mq_hw_ctx *h = list_first_entry(ws, struct blk_mq_hw_ctx, tag_wait);

			list_del_init(&h->tag_wait);
			t->hctx_waiting--;
			if (list_empty(&h->woken))
				list_add_tail(&h->woken, &mq->woken);
		}
		return;
	}
	SIM_ASSERT(0);
}

/* sbitmap_queue_clear(): every wake_batch frees wake up to wake_batch
 * sleepers; an idle map wakes everyone left (nothing else would). */
static void blk_mq_tag_put(struct blk_mq *mq, struct blk_mq_tags *t, struct sim *sim)
{
	uint32_t pending;

	SIM_ASSERT(t->used > 0);
	t->used--;
	blk_mq_tag_wake_hctx(mq, t);
	pending = t->nwait - t->nwoken;
	if (!pending)
		return;
	if (++t->wake_cnt < t->wake_batch && t->used > 0)
		return;
	t->wake_cnt = 0;
	t->nwoken += t->used == 0 ? pending : pending < t->wake_batch ? pending : t->wake_batch;
	if (!sim_event_pending(&mq->wake_event))
		sim_at(sim, &mq->wake_event, sim_now(sim));
}

/* --------------------------------------------------------------- budget */

static bool blk_mq_get_budget(struct blk_mq *mq)
{
	if (mq->budget_used >= mq->budget_depth) {
		mq->c.budget_stalls++;
		mq->restarts = true;
		return false;
	}
	mq->budget_used++;
	return true;
}

static void blk_mq_put_budget(struct blk_mq *mq)
{
	SIM_ASSERT(mq->budget_used > 0);
	mq->budget_used--;
}

/* ------------------------------------------------------- request alloc */

static uint32_t blk_mq_bio_ctx(const struct blk_mq *mq, const struct bio *bio)
{
	return bio->ioc ? (uint32_t)bio->ioc->pid % mq->nr_ctx : 0;
}

/* blk_mq_map_queue(): reads go to the read queues when there are any
 * (HCTX_TYPE_READ), everything else to the default ones; nothing in
 * mobisim is REQ_POLLED, so the poll queues stay idle. */
static uint32_t blk_mq_map_queue(const struct blk_mq *mq, uint32_t ctx, uint32_t flags)
{
	int t = !(flags & (REQ_WRITE | REQ_FLUSH)) && mq->map_nr[UFS_HCTX_READ] ? UFS_HCTX_READ
										  : UFS_HCTX_DEFAULT;

	return ufs_map_queue(ctx, mq->map_off[t], mq->map_nr[t]);
}

/* Hardware queues whose tag maps are their own: all, or with a shared tag
 * set only the first (whose pointers every queue shares). */
static uint32_t blk_mq_nr_tag_owners(const struct blk_mq *mq)
{
	return mq->shared_tags ? 1 : mq->nr_hw;
}

static struct blk_mq_hw_ctx *blk_mq_rq_hctx(struct blk_queue *q, const struct io_request *rq)
{
	return &q->mq->hctx[blk_rq_of((struct io_request *)rq)->mq_hctx];
}

static bool blk_mq_is_flush(uint32_t flags)
{
	return flags & (REQ_FLUSH | REQ_FUA);
}

/* Which tag map a request of bio comes from (blk_mq_tags_from_data). */
static struct blk_mq_tags *blk_mq_alloc_tags(struct blk_queue *q, const struct bio *bio)
{
	struct blk_mq *mq = q->mq;
	struct blk_mq_hw_ctx *hctx = &mq->hctx[blk_mq_map_queue(mq, blk_mq_bio_ctx(mq, bio), bio->flags)];

	return mq->has_elv ? hctx->sched_tags : hctx->tags;
}

/* __blk_mq_alloc_request() without sleeping: NULL when no tag is free. */
static struct io_request *blk_mq_alloc_request(struct blk_queue *q, struct bio *bio)
{
	struct blk_mq *mq = q->mq;
	struct elevator *e = &q->elv;
	uint32_t ctx = blk_mq_bio_ctx(mq, bio), shallow = 0;
	struct blk_mq_tags *tags = blk_mq_alloc_tags(q, bio);
	struct blk_rq *br;
	struct io_request *rq;

	if (mq->has_elv && !blk_mq_is_flush(bio->flags) && e->ops->limit_depth)
		shallow = e->ops->limit_depth(e, bio->flags, bio->ioc);
	if (!blk_mq_tag_get(tags, shallow))
		return NULL;
	rq = blk_rq_new(q, bio);
	if (!rq) {
		tags->used--;
		return NULL;
	}
	br = blk_rq_of(rq);
	br->mq_ctx = (uint16_t)ctx;
	br->mq_hctx = (uint16_t)blk_mq_map_queue(mq, ctx, bio->flags);
	br->mq_elv = mq->has_elv;
	br->mq_sched_tag = mq->has_elv;
	br->mq_driver_tag = !mq->has_elv;
	blk_rq_allocated(q, rq, mq->has_elv);
	return rq;
}

void blk_mq_free_request(struct blk_queue *q, struct io_request *rq)
{
	struct blk_mq *mq = q->mq;
	struct blk_rq *br = blk_rq_of(rq);
	struct blk_mq_hw_ctx *hctx = blk_mq_rq_hctx(q, rq);

	SIM_ASSERT(!br->mq_budget);
	blk_rq_unhook(q, rq);
	if (br->mq_driver_tag)
		blk_mq_tag_put(mq, hctx->tags, q->sim);
	if (br->mq_sched_tag)
		blk_mq_tag_put(mq, hctx->sched_tags, q->sim);
	br->mq_driver_tag = br->mq_sched_tag = false;
	blk_rq_put(q, br);
}

/* --------------------------------------------------------------- insert */

static void blk_mq_run_hw_queue_async(struct blk_mq_hw_ctx *hctx)
{
	struct sim *sim = hctx->q->sim;

	if (!sim_event_pending(&hctx->run_event))
		sim_at(sim, &hctx->run_event, sim_now(sim));
}

static void blk_mq_stamp_insert(struct blk_queue *q, struct io_request *rq)
{
	rq->t_insert = sim_now(q->sim);
	blk_trace(q, 'I', rq, NULL, 0);
	q->c.inserted++;
}

/* blk_mq_request_bypass_insert(): onto hctx->dispatch, no I event. */
/* Put rq on its hardware queue's dispatch list; a list that was empty
 * starts waiting now (the order blk_mq_run_queues serves waiters in). */
static void blk_mq_dispatch_add(struct blk_queue *q, struct io_request *rq, bool at_head)
{
	struct blk_mq_hw_ctx *hctx = blk_mq_rq_hctx(q, rq);

	if (list_empty(&hctx->dispatch))
		hctx->wait_seq = ++q->mq->wait_seq;
	if (at_head)
		list_add(&rq->queuelist, &hctx->dispatch);
	else
		list_add_tail(&rq->queuelist, &hctx->dispatch);
}

static void blk_mq_bypass_insert(struct blk_queue *q, struct io_request *rq, bool at_head)
{
	blk_rq_of(rq)->state = BLK_RQ_DISPATCH;
	if (!rq->t_insert)
		rq->t_insert = sim_now(q->sim);
	blk_mq_dispatch_add(q, rq, at_head);
	q->mq->c.bypass_inserts++;
}

/* A plugged request marked by blk_mq_boost_lba reached the scheduler
 * (possibly merged into a queued one): the scheduler lifts it now. */
static void blk_mq_boost_inserted(struct blk_queue *q, uint64_t sector)
{
	struct elevator *e = &q->elv;

	if (e->ops->boost_lba && e->ops->boost_lba(e, sector))
		q->mq->c.boost_plug_lifted++;
}

/* blk_mq_sched_insert_request() for one request: flush/FUA to
 * hctx->dispatch, else the scheduler (after an insert merge for the
 * hash users, as dd_insert_request does) or the software queue. */
static void blk_mq_sched_insert(struct blk_queue *q, struct io_request *rq)
{
	struct blk_mq *mq = q->mq;
	struct elevator *e = &q->elv;
	struct blk_rq *br = blk_rq_of(rq);

	if (blk_mq_is_flush(rq->flags)) {
		blk_mq_stamp_insert(q, rq);
		q->c.flush_requests++;
		blk_mq_bypass_insert(q, rq, false);
		return;
	}
	if (mq->has_elv) {
		struct list_head one;
		uint64_t sector = rq->sector;
		bool boosted = rq->flags & REQ_BOOSTED;

		if (e->ops->use_hash && elv_attempt_insert_merge(q, rq)) {
			if (boosted)
				blk_mq_boost_inserted(q, sector);
			return;
		}
		blk_mq_stamp_insert(q, rq);
		br->state = BLK_RQ_SORTED;
		q->nr_sorted++;
		if (e->ops->use_hash && !br->nomerge) {
			elv_rqhash_add(q, rq);
			if (!q->last_merge)
				q->last_merge = rq;
		}
		list_init(&one);
		list_add_tail(&rq->queuelist, &one);
		e->ops->insert_requests(e, &one, false);
		if (boosted)
			blk_mq_boost_inserted(q, sector);
		return;
	}
	if (rq->flags & REQ_BOOSTED) {
		/* none: a boosted plugged request skips the software queue */
		blk_mq_stamp_insert(q, rq);
		mq->c.boost_plug_lifted++;
		blk_mq_bypass_insert(q, rq, true);
		return;
	}
	blk_mq_stamp_insert(q, rq);
	br->state = BLK_RQ_SORTED;
	q->nr_sorted++;
	list_add_tail(&rq->queuelist, &mq->ctx[br->mq_ctx].rq_list);
	mq->ctx[br->mq_ctx].nr++;
	mq->c.sw_queue_inserts++;
}

/* ------------------------------------------------------------- dispatch */

enum blk_mq_prep { BLK_MQ_OK = 0, BLK_MQ_NO_BUDGET, BLK_MQ_NO_TAG, BLK_MQ_RESOURCE };

/* blk_mq_update_dispatch_busy(): only without a scheduler. */
static void blk_mq_update_dispatch_busy(struct blk_mq *mq, struct blk_mq_hw_ctx *hctx, bool busy)
{
	uint32_t ewma = hctx->dispatch_busy;

	if (mq->has_elv || (!ewma && !busy))
		return;
	ewma *= BLK_MQ_DISPATCH_BUSY_EWMA_WEIGHT - 1;
	if (busy)
		ewma += 1u << BLK_MQ_DISPATCH_BUSY_EWMA_FACTOR;
	hctx->dispatch_busy = ewma / BLK_MQ_DISPATCH_BUSY_EWMA_WEIGHT;
}

/* blk_mq_mark_tag_wait() (6.1 block/blk-mq.c) for a queue of a host-wide
 * tag set: unless already waiting, hctx->dispatch_wait joins the wait
 * queue bt_wait_ptr picks (hctx->wait_index, which then moves on to the
 * next of the SBQ_WAIT_QUEUES) at its head (__add_wait_queue, not
 * exclusive). Its own tags: the SCHED_RESTART rerun at its own completion
 * instead (blk_mq_run_after_completion). The kernel's retry of the tag
 * right after joining cannot succeed here: nothing frees in between. */
static void blk_mq_mark_tag_wait(struct blk_mq *mq, struct blk_mq_hw_ctx *hctx)
{
	struct blk_mq_tags *t = hctx->tags;

	if (!mq->shared_tags || !list_empty(&hctx->tag_wait))
		return;
	list_add(&hctx->tag_wait, &t->hctx_ws[hctx->wait_index]);
	hctx->wait_index = (hctx->wait_index + 1) % BLK_MQ_SBQ_WAIT_QUEUES;
	t->hctx_waiting++;
}

/* Budget (unless held), driver tag, then ->queue_rq. rq is on no list.
 * On failure nothing is held but what the request owned before (a
 * scheduler request gives its driver tag back, __blk_mq_requeue_request). */
static enum blk_mq_prep blk_mq_issue(struct blk_queue *q, struct io_request *rq, bool have_budget)
{
	struct blk_mq *mq = q->mq;
	struct blk_mq_hw_ctx *hctx = blk_mq_rq_hctx(q, rq);
	struct blk_rq *br = blk_rq_of(rq);

	if (!have_budget && !blk_mq_get_budget(mq))
		return BLK_MQ_NO_BUDGET;
	if (!br->mq_driver_tag) {
		if (!blk_mq_tag_get(hctx->tags, 0)) {
			mq->c.driver_tag_stalls++;
			blk_mq_put_budget(mq);
			blk_mq_mark_tag_wait(mq, hctx);
			return BLK_MQ_NO_TAG;
		}
		br->mq_driver_tag = true;
	}
	if (!device_can_accept(q->dev, rq)) {
		blk_mq_put_budget(mq);
		if (br->mq_sched_tag) {
			br->mq_driver_tag = false;
			blk_mq_tag_put(mq, hctx->tags, q->sim);
		}
		mq->c.resource_requeues++;
		blk_mq_update_dispatch_busy(mq, hctx, true);
		return BLK_MQ_RESOURCE;
	}
	blk_mq_update_dispatch_busy(mq, hctx, false);
	br->mq_budget = true;
	br->state = BLK_RQ_DEVICE;
	q->in_flight[br->is_sync]++;
	mq->in_driver++;
	if (!rq->t_insert)
		rq->t_insert = sim_now(q->sim);
	rq->t_dispatch = sim_now(q->sim);
	blk_trace(q, 'D', rq, NULL, 0);
	q->c.dispatched++;
	hctx->dispatched++;
	device_submit(q->dev, rq);
	return BLK_MQ_OK;
}

/* blk_mq_dispatch_rq_list() over hctx->dispatch: stops at the first
 * request that cannot go, which stays at the head. True when emptied. */
static bool blk_mq_dispatch_list(struct blk_queue *q, struct blk_mq_hw_ctx *hctx)
{
	while (!list_empty(&hctx->dispatch)) {
		struct io_request *rq = list_first_entry(&hctx->dispatch, struct io_request, queuelist);

		list_del_init(&rq->queuelist);
		if (blk_mq_issue(q, rq, false) != BLK_MQ_OK) {
			blk_mq_dispatch_add(q, rq, true);
			return false;
		}
	}
	return true;
}

/* blk_mq_do_dispatch_sched(): budget, ->dispatch_request, driver tag. */
static void blk_mq_do_dispatch_sched(struct blk_queue *q, struct blk_mq_hw_ctx *hctx)
{
	struct elevator *e = &q->elv;

	while (e->ops->has_work(e)) {
		struct io_request *rq;

		if (!blk_mq_get_budget(q->mq))
			return;
		rq = e->ops->dispatch_request(e);
		if (!rq) {
			blk_mq_put_budget(q->mq);
			return;
		}
		elv_leave_scheduler(q, rq);
		if (blk_mq_issue(q, rq, true) != BLK_MQ_OK) {
			if (e->ops->requeue_request)
				e->ops->requeue_request(e, rq);
			/* the scheduler serves every hardware queue; a leftover goes
			 * back to its own (6.1 blk_mq_dispatch_hctx_list) */
			blk_mq_dispatch_add(q, rq, true);
			return;
		}
		if (q->sim->failed)
			return;
	}
}

/* The oldest request of ctx bound for hardware queue hw (one list per
 * software queue: with read queues it holds both types), or NULL. */
static struct io_request *blk_mq_ctx_take(struct blk_queue *q, struct blk_mq_ctx *ctx, uint32_t hw)
{
	struct io_request *rq = NULL;
	struct list_head *pos;

	list_for_each(pos, &ctx->rq_list) {
		struct io_request *r = list_entry(pos, struct io_request, queuelist);

		if (blk_rq_of(r)->mq_hctx == hw) {
			rq = r;
			break;
		}
	}
	if (!rq)
		return NULL;
	list_del_init(&rq->queuelist);
	ctx->nr--;
	elv_leave_scheduler(q, rq);
	return rq;
}

/* Without a scheduler: blk_mq_do_dispatch_ctx() (one request per software
 * queue in turn, each with a budget first) while the hardware queue is
 * busy, else blk_mq_flush_busy_ctxs() and dispatch the lot. */
static void blk_mq_dispatch_ctxs(struct blk_queue *q, struct blk_mq_hw_ctx *hctx)
{
	struct blk_mq *mq = q->mq;

	for (;;) {
		struct io_request *rq = NULL;
		uint32_t i, c = 0;

		/* the budget comes first (blk_mq_do_dispatch_ctx) */
		if (mq->budget_used >= mq->budget_depth) {
			mq->c.budget_stalls++;
			mq->restarts = true;
			return;
		}
		for (i = 0; i < mq->nr_ctx && !rq; i++) {
			c = (hctx->dispatch_from + i) % mq->nr_ctx;
			if (!list_empty(&mq->ctx[c].rq_list))
				rq = blk_mq_ctx_take(q, &mq->ctx[c], hctx->index);
		}
		if (!rq)
			return;
		if (hctx->dispatch_busy)
			hctx->dispatch_from = (c + 1) % mq->nr_ctx;
		/* leftovers of blk_mq_dispatch_rq_list go to hctx->dispatch */
		if (blk_mq_issue(q, rq, false) != BLK_MQ_OK) {
			blk_mq_dispatch_add(q, rq, true);
			return;
		}
		if (q->sim->failed)
			return;
	}
}

/* __blk_mq_sched_dispatch_requests(): hctx->dispatch first; only when it
 * drained, the scheduler or the software queues. */
static void blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx)
{
	struct blk_queue *q = hctx->q;

	if (hctx->running) {
		hctx->rerun = true;
		return;
	}
	hctx->running = true;
	do {
		hctx->rerun = false;
		if (!blk_mq_dispatch_list(q, hctx))
			continue;
		if (q->mq->has_elv)
			blk_mq_do_dispatch_sched(q, hctx);
		else
			blk_mq_dispatch_ctxs(q, hctx);
	} while (hctx->rerun && !q->sim->failed);
	hctx->running = false;
}

static void blk_mq_run_once(struct blk_queue *q, struct blk_mq_hw_ctx *h, uint64_t epoch)
{
	if (h->run_epoch == epoch || q->sim->failed)
		return;
	h->run_epoch = epoch;
	blk_mq_run_hw_queue(h);
}

/* The hardware queues waiting to dispatch leftovers of hctx->dispatch.
 * First those a freed tag woke (blk_mq_tag_wake_hctx), in the order
 * blk_mq_dispatch_wake queued their runs. A queue still on a tag wait
 * queue waits for its wake: in the kernel only the wake (or its own
 * SCHED_RESTART rerun, or a run for new work) runs it, and it keeps no
 * place once woken, so a queue whose dispatch list never empties cannot
 * take every freed tag. Then the others (their own tags, or refused by
 * the device), longest waiting first. */
static void blk_mq_run_waiters(struct blk_queue *q, uint64_t epoch)
{
	struct blk_mq *mq = q->mq;

	while (!list_empty(&mq->woken) && !q->sim->failed) {
		struct blk_mq_hw_ctx *h = list_first_entry(&mq->woken, struct blk_mq_hw_ctx, woken);

		list_del_init(&h->woken);
		blk_mq_run_once(q, h, epoch);
	}
	for (;;) {
		struct blk_mq_hw_ctx *next = NULL;

		for (uint32_t i = 0; i < mq->nr_hw; i++) {
			struct blk_mq_hw_ctx *h = &mq->hctx[i];

			if (h->run_epoch != epoch && !list_empty(&h->dispatch) &&
			    list_empty(&h->tag_wait) && (!next || h->wait_seq < next->wait_seq))
				next = h;
		}
		if (!next || q->sim->failed)
			break;
		blk_mq_run_once(q, next, epoch);
	}
}

/* Every hardware queue once, the waiting ones first. */
void blk_mq_run_queues(struct blk_queue *q)
{
	struct blk_mq *mq = q->mq;
	uint64_t epoch = ++mq->run_epoch;

	blk_mq_run_waiters(q, epoch);
	for (uint32_t i = 0; i < mq->nr_hw && !q->sim->failed; i++)
		blk_mq_run_once(q, &mq->hctx[i], epoch);
}

/* After a command ended (6.1): the tag's waiters run, then the ended
 * request's own hardware queue (blk_mq_sched_restart) and queues with
 * requests on their software queues; every queue only after the SCSI
 * budget ran out (scsi_run_queue_async on sdev->restarts). Other queues
 * are not run, so they do not pull requests out of a shared scheduler
 * that no tag awaits. One hardware queue: that one. */
static void blk_mq_run_after_completion(struct blk_queue *q, uint32_t hw)
{
	struct blk_mq *mq = q->mq;
	uint64_t epoch;

	if (mq->nr_hw == 1 || mq->restarts) {
		mq->restarts = false;
		blk_mq_run_queues(q);
		return;
	}
	epoch = ++mq->run_epoch;
	blk_mq_run_waiters(q, epoch);
	blk_mq_run_once(q, &mq->hctx[hw], epoch);
	for (uint32_t c = 0; c < mq->nr_ctx; c++) {
		struct list_head *pos;

		list_for_each(pos, &mq->ctx[c].rq_list) {
			struct io_request *r = list_entry(pos, struct io_request, queuelist);

			blk_mq_run_once(q, &mq->hctx[blk_rq_of(r)->mq_hctx], epoch);
			if (q->sim->failed)
				return;
		}
	}
}

static void blk_mq_run_event(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	blk_mq_run_hw_queue(container_of(ev, struct blk_mq_hw_ctx, run_event));
}

static void blk_mq_run_all_async(struct blk_queue *q)
{
	for (uint32_t i = 0; i < q->mq->nr_hw; i++)
		blk_mq_run_hw_queue_async(&q->mq->hctx[i]);
}

/* ------------------------------------------------------- direct issue */

/* blk_mq_try_issue_directly(): no budget -> the software queue (the
 * insert: label); BLK_STS_RESOURCE -> hctx->dispatch and a queue run. */
static void blk_mq_try_issue_directly(struct blk_queue *q, struct io_request *rq)
{
	struct blk_mq_hw_ctx *hctx = blk_mq_rq_hctx(q, rq);

	if (q->mq->budget_used >= q->mq->budget_depth) {
		q->mq->c.budget_stalls++;
		q->mq->restarts = true;
		blk_mq_sched_insert(q, rq);
		blk_mq_run_hw_queue(hctx);
		return;
	}
	blk_rq_of(rq)->state = BLK_RQ_DISPATCH;
	if (blk_mq_issue(q, rq, false) == BLK_MQ_OK) {
		q->mq->c.direct_issues++;
		return;
	}
	blk_mq_bypass_insert(q, rq, false);
	blk_mq_run_hw_queue_async(hctx);
}

/* ------------------------------------------------------------- plugging */

static void blk_mq_trace_plug(struct blk_queue *q, struct blk_plug *plug, char action,
			      uint32_t depth)
{
	struct bio dummy = { .ioc = plug->ioc };

	blk_trace(q, action, NULL, &dummy, depth);
}

/* plug_rq_cmp() of 5.10: by software queue, then by start sector; stable. */
static void blk_mq_plug_sorted_add(struct list_head *sorted, struct io_request *rq)
{
	struct list_head *pos;
	uint16_t c = blk_rq_of(rq)->mq_ctx;

	for (pos = sorted->prev; pos != sorted; pos = pos->prev) {
		struct io_request *o = list_entry(pos, struct io_request, queuelist);
		uint16_t oc = blk_rq_of(o)->mq_ctx;

		if (oc < c || (oc == c && o->sector <= rq->sector))
			break;
	}
	list_add(&rq->queuelist, pos);
}

/* blk_mq_flush_plug_list(): with a scheduler every request goes in
 * through insert_requests; without one, unless called from schedule() or
 * the hardware queue is busy, each is issued directly until the device
 * refuses one (blk_mq_try_issue_list_directly / blk_mq_plug_issue_direct),
 * the rest go to the software queues. A flush from schedule() runs the
 * queue from kblockd (an event at this instant). */
void blk_mq_flush_plug_list(struct blk_queue *q, struct blk_plug *plug, enum blk_unplug_reason why)
{
	struct blk_mq *mq = q->mq;
	struct list_head list;
	uint32_t depth = 0;
	bool from_schedule = why == BLK_UNPLUG_SLEEP, direct;

	if (list_empty(&plug->list))
		return;
	list_init(&list);
	while (!list_empty(&plug->list)) {
		struct io_request *rq = list_first_entry(&plug->list, struct io_request, queuelist);

		list_del_init(&rq->queuelist);
		if (mq->p.kernel == BLK_MQ_V5_10)
			blk_mq_plug_sorted_add(&list, rq);
		else
			list_add_tail(&rq->queuelist, &list);
		depth++;
	}
	plug->count = 0;
	blk_mq_trace_plug(q, plug, 'U', depth);
	q->c.plug_flushes[why]++;

	direct = !mq->has_elv && !from_schedule;
	while (!list_empty(&list)) {
		struct io_request *rq = list_first_entry(&list, struct io_request, queuelist);
		struct blk_mq_hw_ctx *hctx = blk_mq_rq_hctx(q, rq);

		list_del_init(&rq->queuelist);
		if (direct && !hctx->dispatch_busy && !blk_mq_is_flush(rq->flags)) {
			enum blk_mq_prep st;

			blk_rq_of(rq)->state = BLK_RQ_DISPATCH;
			st = blk_mq_issue(q, rq, false);
			if (st == BLK_MQ_OK) {
				mq->c.direct_issues++;
				continue;
			}
			/* blk_mq_request_issue_directly(..., bypass_insert=true) */
			blk_mq_bypass_insert(q, rq, false);
			direct = false;
			continue;
		}
		blk_mq_sched_insert(q, rq);
	}
	if (from_schedule)
		blk_mq_run_all_async(q);
	else
		blk_mq_run_queues(q);
}

static void blk_mq_plug_add(struct blk_queue *q, struct blk_plug *plug, struct io_request *rq)
{
	struct blk_mq *mq = q->mq;

	if (list_empty(&plug->list)) {
		blk_mq_trace_plug(q, plug, 'P', 0);
	} else {
		struct io_request *last = list_last_entry(&plug->list, struct io_request, queuelist);
		bool by_size = rq_bytes(last) >= BLK_MQ_PLUG_FLUSH_SIZE;

		if (plug->count >= mq->plug_max || by_size) {
			if (by_size && plug->count < mq->plug_max)
				mq->c.plug_size_flushes++;
			blk_mq_flush_plug_list(q, plug, BLK_UNPLUG_COUNT);
			blk_mq_trace_plug(q, plug, 'P', 0);
		}
	}
	blk_rq_of(rq)->state = BLK_RQ_PLUGGED;
	list_add_tail(&rq->queuelist, &plug->list);
	plug->count++;
	q->c.plugged_requests++;
}

/* blk_attempt_plug_merge() of 6.1: only the most recent plugged request. */
static bool blk_mq_plug_merge_last(struct blk_queue *q, struct blk_plug *plug, struct bio *bio)
{
	struct io_request *rq;

	if (list_empty(&plug->list))
		return false;
	rq = list_last_entry(&plug->list, struct io_request, queuelist);
	return rq->q == q && blk_plug_merge_one(q, rq, bio);
}

/* ------------------------------------------------------------- submit */

/* A fresh request: the plug, the scheduler, or a direct issue. */
static void blk_mq_queue_new_request(struct blk_queue *q, struct blk_plug *plug,
				     struct io_request *rq)
{
	struct blk_mq_hw_ctx *hctx = blk_mq_rq_hctx(q, rq);

	if (blk_mq_is_flush(rq->flags)) {
		blk_mq_sched_insert(q, rq);
		blk_mq_run_hw_queue_async(hctx);
	} else if (plug && plug->active) {
		blk_mq_plug_add(q, plug, rq);
	} else if (q->mq->has_elv || (hctx->dispatch_busy &&
				      (q->mq->nr_hw == 1 || !req_is_sync(rq->flags)))) {
		blk_mq_sched_insert(q, rq);
		blk_mq_run_hw_queue_async(hctx);
	} else {
		blk_mq_try_issue_directly(q, rq);
	}
}

/* blk_mq_sched_bio_merge(): the scheduler's way, or with none the last
 * requests of this CPU's software queue. */
static bool blk_mq_sched_bio_merge(struct blk_queue *q, struct bio *bio)
{
	struct blk_mq *mq = q->mq;
	struct elevator *e = &q->elv;
	uint32_t ctx = blk_mq_bio_ctx(mq, bio);

	if (mq->has_elv) {
		if (e->ops->bio_merge)
			return e->ops->bio_merge(e, bio, ctx);
		return blk_elv_bio_merge(q, bio);
	}
	return elv_mq_bio_list_merge(e, &mq->ctx[ctx].rq_list, bio);
}

enum blk_submit_result blk_mq_submit_bio(struct blk_queue *q, struct blk_plug *plug,
					 struct bio *bio, struct blk_waiter *w)
{
	struct blk_mq *mq = q->mq;
	struct io_request *rq;
	struct blk_mq_tags *tags;

	if (plug && !plug->active)
		plug = NULL;
	blk_bio_queued(q, bio);

	if (!blk_mq_is_flush(bio->flags)) {
		uint32_t unused;

		if (plug && (mq->p.kernel == BLK_MQ_V5_10
				     ? blk_attempt_plug_merge(q, plug, bio, &unused)
				     : blk_mq_plug_merge_last(q, plug, bio)))
			return BLK_SUBMIT_DONE;
		if (blk_mq_sched_bio_merge(q, bio))
			return BLK_SUBMIT_DONE;
	}

	rq = blk_mq_alloc_request(q, bio);
	if (rq) {
		blk_mq_queue_new_request(q, plug, rq);
		return BLK_SUBMIT_DONE;
	}
	if (q->sim->failed)
		return BLK_SUBMIT_DONE;

	/* blk_mq_get_tag(): no tag. Run the queue, then io_schedule(), which
	 * flushes the plug first. */
	tags = blk_mq_alloc_tags(q, bio);
	if (!blk_waiter_park(q, bio, plug, w, &tags->wait))
		return BLK_SUBMIT_DONE;
	tags->nwait++;
	tags->sleeps++;
	if (plug)
		blk_mq_flush_plug_list(q, plug, BLK_UNPLUG_SLEEP);
	blk_mq_run_queues(q);
	return BLK_SUBMIT_SLEEP;
}

/* Woken tag sleepers retry, oldest first; one that still finds no tag
 * (a shallow limit, or another task was faster) sleeps again at the tail. */
static void blk_mq_wake_tags(struct blk_queue *q, struct blk_mq_tags *t)
{
	struct sim *sim = q->sim;
	uint32_t n = t->nwoken;

	t->nwoken = 0;
	while (n-- > 0 && !list_empty(&t->wait)) {
		struct blk_waiter *w = list_first_entry(&t->wait, struct blk_waiter, node);
		struct bio *bio = w->bio;
		struct blk_plug *plug = w->plug && w->plug->active ? w->plug : NULL;
		struct io_request *rq;

		list_del_init(&w->node);
		t->nwait--;
		rq = blk_mq_alloc_request(q, bio);
		if (!rq) {
			if (sim->failed)
				return;
			list_add_tail(&w->node, &t->wait);
			t->nwait++;
			continue;
		}
		blk_waiter_got_request(q, w);
		blk_mq_queue_new_request(q, plug, rq);
		if (w->wake)
			w->wake(sim, w);
	}
}

static void blk_mq_wake_event(struct sim *sim, struct sim_event *ev)
{
	struct blk_mq *mq = container_of(ev, struct blk_mq, wake_event);
	struct blk_queue *q = mq->hctx[0].q;

	(void)sim;
	for (uint32_t i = 0; i < blk_mq_nr_tag_owners(mq); i++) {
		blk_mq_wake_tags(q, mq->hctx[i].sched_tags);
		blk_mq_wake_tags(q, mq->hctx[i].tags);
	}
}

/* ----------------------------------------------------------- completion */

/* blk_mq_end_request -> __blk_mq_end_request: the budget goes back when
 * the command ends (scsi_mq_put_budget), the scheduler hears of it
 * (blk_mq_sched_completed_request), the request and its tags are freed
 * (finish_request), the bios end, and the queue runs again. */
static void blk_mq_device_complete(void *upper, struct io_request *rq)
{
	struct blk_queue *q = upper;
	struct blk_mq *mq = q->mq;
	struct blk_rq *br = blk_rq_of(rq);
	uint32_t hw = br->mq_hctx;
	struct bio *bio;

	SIM_ASSERT(mq->in_driver > 0);
	mq->in_driver--;
	if (br->mq_budget) {
		br->mq_budget = false;
		blk_mq_put_budget(mq);
	}
	bio = blk_rq_completed(q, rq, br->mq_elv);
	blk_mq_free_request(q, rq);
	blk_end_bios(q, bio);
	blk_mq_run_after_completion(q, hw);
}

/* ------------------------------------------------------ create, destroy */

/* The hardware queues: block.nr_hw_queues of the default type, or what
 * the device's UFS host configures in MCQ mode (ufshcd_map_queues: the
 * default, read and poll maps one after the other, every queue sharing
 * one tag set of can_queue tags). */
static int blk_mq_host_setup(struct blk_mq *mq, struct device *dev, struct cfg_node *block_cfg,
			     struct sim_error *err)
{
	struct ufs_host *h = dev->host;
	int rc;

	mq->nr_hw = (uint32_t)mq->p.nr_hw_queues;
	mq->map_off[UFS_HCTX_DEFAULT] = 0;
	mq->map_nr[UFS_HCTX_DEFAULT] = mq->nr_hw;
	mq->map_off[UFS_HCTX_READ] = mq->map_off[UFS_HCTX_POLL] = mq->nr_hw;
	if (!h)
		return 0;
	rc = ufs_host_config(h, dev->queue_depth, (uint32_t)mq->p.nr_cpus, err);
	if (rc || !h->mcq)
		return rc;
	if (mq->p.nr_hw_queues != 1) {
		struct cfg_node *n = cfg_get(block_cfg, "nr_hw_queues");

		return cfg_errorf(err, n ? n : block_cfg, "under UFS MCQ the host sets the hardware "
				  "queues (device.host.rw_queues, read_queues, poll_queues)");
	}
	mq->host = h;
	mq->shared_tags = true;
	mq->nr_hw = h->nr_hw_queues;
	for (int t = 0, off = 0; t < UFS_HCTX_TYPES; t++) {
		mq->map_off[t] = (uint32_t)off;
		mq->map_nr[t] = h->nr_queues[t];
		off += (int)h->nr_queues[t];
	}
	return 0;
}

int blk_mq_queue_create(struct sim *sim, struct device *dev, struct cfg_node *block_cfg,
			const struct elevator_ops *ops, struct cfg_node *sched_cfg,
			struct blk_queue **out, struct sim_error *err)
{
	struct blk_queue *q;
	struct blk_mq *mq;
	uint32_t qd, nr_req;
	int rc;

	*out = NULL;
	q = calloc(1, sizeof(*q));
	mq = calloc(1, sizeof(*mq));
	if (!q || !mq) {
		free(q);
		free(mq);
		return sim_errorf(err, SIM_E_NOMEM, "block: out of memory");
	}
	q->sim = sim;
	q->dev = dev;
	q->mq = mq;
	rc = cfg_apply(blk_mq_params_table, block_cfg, &mq->p, err);
	if (!rc)
		rc = blk_check_sector_limits(mq->p.max_sectors_bytes, mq->p.max_segment_size_bytes,
					     block_cfg, err);
	if (!rc)
		rc = blk_mq_host_setup(mq, dev, block_cfg, err);
	if (rc)
		goto fail;
	/* elevator_get_default(): mq-deadline for one hardware queue or a
	 * host-wide tag set (6.1: blk_mq_is_shared_tags), else none */
	if (!ops)
		ops = elevator_find(mq->p.nr_hw_queues == 1 || mq->shared_tags ? "mq-deadline" : "none");
	if (!ops)
		ops = elevator_find("none");
	if (!ops->mq) {
		rc = sim_errorf(err, SIM_E_INPUT, "scheduler '%s' is a single-queue (Linux 3.10) "
				"scheduler; blk-mq (block.kind: mq) has none, mq-deadline, bfq, kyber",
				ops->name);
		goto fail;
	}
	q->lim.max_sectors_bytes = mq->p.max_sectors_bytes;
	q->lim.max_segments = mq->p.max_segments;
	q->lim.max_segment_size_bytes = mq->p.max_segment_size_bytes;

	qd = mq->p.queue_depth ? (uint32_t)mq->p.queue_depth
	     : mq->host ? mq->host->can_queue
	     : dev->queue_depth ? dev->queue_depth : 32;
	mq->has_elv = ops->insert_requests != NULL;
	nr_req = mq->p.nr_requests ? (uint32_t)mq->p.nr_requests
		 : mq->has_elv ? 2 * (qd < 128 ? qd : 128) : qd;
	q->lim.nr_requests = nr_req;
	/* ufshcd_set_queue_depth(): a shared-queueing device (bLUQueueDepth 0)
	 * gets nutrs, one above can_queue under MCQ */
	mq->budget_depth = mq->p.sdev_queue_depth ? (uint32_t)mq->p.sdev_queue_depth
			   : mq->host ? mq->host->nutrs : qd;
	mq->plug_max = mq->p.plug_max_requests ? (uint32_t)mq->p.plug_max_requests
			: mq->p.kernel == BLK_MQ_V5_10 ? 16 : 32;
	mq->nr_ctx = (uint32_t)mq->p.nr_cpus;
	mq->hctx = calloc(mq->nr_hw, sizeof(*mq->hctx));
	mq->ctx = calloc(mq->nr_ctx, sizeof(*mq->ctx));
	if (!mq->hctx || !mq->ctx) {
		rc = sim_errorf(err, SIM_E_NOMEM, "block: out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < mq->nr_ctx; i++)
		list_init(&mq->ctx[i].rq_list);
	for (uint32_t i = 0; i < mq->nr_hw; i++) {
		struct blk_mq_hw_ctx *h = &mq->hctx[i];

		h->q = q;
		h->index = i;
		list_init(&h->dispatch);
		list_init(&h->tag_wait);
		list_init(&h->woken);
		h->type = i < mq->map_off[UFS_HCTX_READ] ? UFS_HCTX_DEFAULT
			  : i < mq->map_off[UFS_HCTX_POLL] ? UFS_HCTX_READ : UFS_HCTX_POLL;
		blk_mq_tags_init(&h->own_tags, qd);
		blk_mq_tags_init(&h->own_sched_tags, mq->has_elv ? nr_req : 0);
		h->tags = mq->shared_tags ? &mq->shared_driver_tags : &h->own_tags;
		h->sched_tags = mq->shared_tags ? &mq->shared_sched_tags : &h->own_sched_tags;
		sim_event_init(&h->run_event, blk_mq_run_event);
	}
	blk_mq_tags_init(&mq->shared_driver_tags, qd);
	blk_mq_tags_init(&mq->shared_sched_tags, mq->has_elv ? nr_req : 0);
	list_init(&mq->woken);
	sim_event_init(&mq->wake_event, blk_mq_wake_event);
	sim_event_init(&q->run_event, NULL);
	sim_event_init(&q->wake_event, NULL);
	sim_event_init(&q->gate_event, NULL); /* no issue gate on blk-mq */
	q->last_fg_done = INT64_MIN;
	rc = blk_queue_setup(q, ops, sched_cfg, err);
	if (rc)
		goto fail;
	if (mq->has_elv && ops->depth_updated)
		ops->depth_updated(&q->elv, nr_req, mq->hctx[0].sched_tags->shift);
	blk_queue_attach(q, blk_mq_device_complete);
	*out = q;
	return 0;
fail:
	free(mq->hctx);
	free(mq->ctx);
	free(mq);
	free(q);
	return rc;
}

/* Called by blk_queue_destroy before it frees the common parts. */
void blk_mq_queue_destroy(struct blk_queue *q)
{
	struct blk_mq *mq = q->mq;

	sim_cancel(q->sim, &mq->wake_event);
	for (uint32_t i = 0; i < mq->nr_hw; i++) {
		struct blk_mq_tags *maps[2] = { mq->hctx[i].tags, mq->hctx[i].sched_tags };

		sim_cancel(q->sim, &mq->hctx[i].run_event);
		for (int m = 0; m < 2 && i < blk_mq_nr_tag_owners(mq); m++)
			blk_waiters_drop(&maps[m]->wait);
	}
	free(mq->hctx);
	free(mq->ctx);
	free(mq);
	q->mq = NULL;
}

/* ------------------------------------------------------------- queries */

enum blk_where blk_mq_locate_waiting(const struct blk_queue *q, uint64_t sector)
{
	const struct blk_mq *mq = q->mq;

	for (uint32_t i = 0; i < blk_mq_nr_tag_owners(mq); i++) {
		const struct list_head *heads[2] = { &mq->hctx[i].tags->wait, &mq->hctx[i].sched_tags->wait };

		for (int m = 0; m < 2; m++) {
			const struct list_head *pos;

			list_for_each(pos, heads[m]) {
				const struct blk_waiter *w = list_entry(pos, struct blk_waiter, node);

				if (w->bio && sector >= w->bio->sector &&
				    sector < w->bio->sector + w->bio->nr_sectors)
					return BLK_WHERE_WAITING;
			}
		}
	}
	return BLK_WHERE_NONE;
}

/* The live request covering sector (O(outstanding), as blk_locate_sector). */
static struct blk_rq *blk_mq_find_rq(struct blk_queue *q, uint64_t sector)
{
	for (struct blk_rq_chunk *c = q->chunks; c; c = c->next)
		for (int i = 0; i < BLK_RQ_CHUNK; i++) {
			struct blk_rq *r = &c->rqs[i];

			if (r->state != BLK_RQ_FREE && r->state != BLK_RQ_DONE &&
			    sector >= r->rq.sector && sector < rq_end_sector(&r->rq))
				return r;
		}
	return NULL;
}

/* The thesis's boost (elv_boost_lba: the request carrying the page an FG
 * task waits on goes to the front with top priority) wherever blk-mq
 * holds the request:
 *  - in a plug (allocated, not inserted): the plug is its submitter's,
 *    on that task's stack and walked without a lock, so no other task may
 *    take a request out of it; it is marked REQ_BOOSTED and the scheduler
 *    lifts it when the plug is flushed (blk_mq_sched_insert);
 *  - in the scheduler: the scheduler's boost_lba (mq-deadline, kyber, bfq);
 *    with none the request sits in a software queue, which the core owns:
 *    it goes to the head of hctx->dispatch, which every run serves first;
 *  - on hctx->dispatch (a requeue or a bypass insert): to its head;
 *  - at the device: nothing can be done (counted).
 * A request is lifted once per wait; a second waiter finds it lifted. */
bool blk_mq_boost_lba(struct blk_queue *q, uint64_t sector)
{
	struct blk_mq *mq = q->mq;
	struct elevator *e = &q->elv;
	struct blk_rq *br = blk_mq_find_rq(q, sector);
	struct io_request *rq = br ? &br->rq : NULL;

	if (!br) {
		mq->c.boost_absent++;
		return false;
	}
	switch (br->state) {
	case BLK_RQ_NEW:
	case BLK_RQ_PLUGGED:
		rq->flags |= REQ_BOOSTED;
		mq->c.boost_plug_marked++;
		return true;
	case BLK_RQ_SORTED:
		if (mq->has_elv) {
			if (e->ops->boost_lba && e->ops->boost_lba(e, sector)) {
				mq->c.boost_sched++;
				return true;
			}
			mq->c.boost_sched_miss++;
			return false;
		}
		list_del_init(&rq->queuelist);
		mq->ctx[br->mq_ctx].nr--;
		elv_leave_scheduler(q, rq);
		rq->flags |= REQ_PRIO | REQ_BOOSTED;
		list_add(&rq->queuelist, &blk_mq_rq_hctx(q, rq)->dispatch);
		mq->c.boost_swq++;
		return true;
	case BLK_RQ_DISPATCH:
		rq->flags |= REQ_PRIO | REQ_BOOSTED;
		list_move(&rq->queuelist, &blk_mq_rq_hctx(q, rq)->dispatch);
		mq->c.boost_hctx++;
		return true;
	default:
		mq->c.boost_device++;
		return false;
	}
}

int blk_mq_queue_check(const struct blk_queue *q, bool drained, struct sim_error *err)
{
	const struct blk_counters *c = &q->c;
	const struct blk_mq *mq = q->mq;
	const struct elevator *e = &q->elv;
	uint64_t tags = 0, waiters = 0, queued = 0;

	for (uint32_t i = 0; i < mq->nr_hw; i++) {
		const struct blk_mq_hw_ctx *h = &mq->hctx[i];

		if (i < blk_mq_nr_tag_owners(mq)) {
			tags += mq->has_elv ? h->sched_tags->used : h->tags->used;
			waiters += h->tags->nwait + h->sched_tags->nwait;
		}
		queued += !list_empty(&h->dispatch);
	}
	for (uint32_t i = 0; i < mq->nr_ctx; i++)
		queued += mq->ctx[i].nr;
	if (c->rq_freed > c->rq_allocated || tags != c->rq_allocated - c->rq_freed)
		return sim_errorf(err, SIM_E_RUNTIME,
				  "block: blk-mq tag conservation broken: %llu allocated, %llu freed, "
				  "%llu tags held",
				  (unsigned long long)c->rq_allocated, (unsigned long long)c->rq_freed,
				  (unsigned long long)tags);
	if (c->bios_ended > c->bios || c->completed > c->dispatched)
		return sim_errorf(err, SIM_E_RUNTIME, "block: more bios ended or requests completed "
				  "than submitted");
	if (!drained)
		return 0;
	if (c->rq_allocated != c->rq_freed || c->bios != c->bios_ended || waiters || queued ||
	    q->nr_sorted || mq->in_driver || mq->budget_used ||
	    (mq->has_elv && e->ops->has_work((struct elevator *)e)))
		return sim_errorf(err, SIM_E_RUNTIME,
				  "block: blk-mq queue not drained at the end: %llu of %llu requests and "
				  "%llu of %llu bios outstanding, %llu tag sleepers, %u in the scheduler",
				  (unsigned long long)(c->rq_allocated - c->rq_freed),
				  (unsigned long long)c->rq_allocated,
				  (unsigned long long)(c->bios - c->bios_ended),
				  (unsigned long long)c->bios, (unsigned long long)waiters, q->nr_sorted);
	return 0;
}

#define JU(v) json_integer((json_int_t)(v))

static json_t *blk_mq_tags_json(const struct blk_mq_tags *t)
{
	json_t *o = json_object();

	json_object_set_new(o, "depth", JU(t->depth));
	json_object_set_new(o, "bits_per_word", JU(1u << t->shift));
	json_object_set_new(o, "wake_batch", JU(t->wake_batch));
	json_object_set_new(o, "peak_used", JU(t->peak_used));
	json_object_set_new(o, "sleeps", JU(t->sleeps));
	return o;
}

struct json_t *blk_mq_to_json(const struct blk_queue *q)
{
	const struct blk_mq *mq = q->mq;
	json_t *o = json_object(), *c = json_object(), *h = json_array();

	json_object_set_new(o, "params", cfg_params_to_json(blk_mq_params_table, &mq->p));
	json_object_set_new(o, "nr_requests", JU(q->lim.nr_requests));
	json_object_set_new(o, "sdev_queue_depth", JU(mq->budget_depth));
	json_object_set_new(o, "plug_max_requests", JU(mq->plug_max));
	for (uint32_t i = 0; i < mq->nr_hw; i++) {
		static const char *const types[] = { "default", "read", "poll" };
		json_t *x = json_object();

		if (mq->shared_tags) {
			json_object_set_new(x, "type", json_string(types[mq->hctx[i].type]));
			json_object_set_new(x, "dispatched", JU(mq->hctx[i].dispatched));
		} else {
			json_object_set_new(x, "driver_tags", blk_mq_tags_json(mq->hctx[i].tags));
			if (mq->has_elv)
				json_object_set_new(x, "sched_tags", blk_mq_tags_json(mq->hctx[i].sched_tags));
		}
		json_array_append_new(h, x);
	}
	json_object_set_new(o, "hw_queues", h);
	/* MCQ, or why a host able to run it fell back; a plain SDB host adds
	 * nothing, so that SDB results keep their bytes */
	if (q->dev->host && (q->dev->host->mcq || q->dev->host->why))
		json_object_set_new(o, "ufs_host", ufs_host_to_json(q->dev->host));
	if (mq->host) {
		json_t *t = json_object(), *d = blk_mq_tags_json(&mq->shared_driver_tags);

		/* wait queues of hardware queues woken (blk_mq_tag_wake_hctx) */
		json_object_set_new(d, "hctx_wakes", JU(mq->shared_driver_tags.hctx_wakes));
		json_object_set_new(t, "driver_tags", d);
		if (mq->has_elv)
			json_object_set_new(t, "sched_tags", blk_mq_tags_json(&mq->shared_sched_tags));
		json_object_set_new(o, "shared_tags", t);
	}
	json_object_set_new(c, "direct_issues", JU(mq->c.direct_issues));
	json_object_set_new(c, "bypass_inserts", JU(mq->c.bypass_inserts));
	json_object_set_new(c, "resource_requeues", JU(mq->c.resource_requeues));
	json_object_set_new(c, "budget_stalls", JU(mq->c.budget_stalls));
	json_object_set_new(c, "driver_tag_stalls", JU(mq->c.driver_tag_stalls));
	json_object_set_new(c, "plug_size_flushes", JU(mq->c.plug_size_flushes));
	json_object_set_new(c, "sw_queue_inserts", JU(mq->c.sw_queue_inserts));
	if (mq->c.boost_plug_marked + mq->c.boost_sched + mq->c.boost_sched_miss + mq->c.boost_swq +
	    mq->c.boost_hctx + mq->c.boost_device + mq->c.boost_absent) {
		json_t *b = json_object();

		json_object_set_new(b, "plug_marked", JU(mq->c.boost_plug_marked));
		json_object_set_new(b, "plug_lifted_at_insert", JU(mq->c.boost_plug_lifted));
		json_object_set_new(b, "scheduler", JU(mq->c.boost_sched));
		json_object_set_new(b, "scheduler_no_lift", JU(mq->c.boost_sched_miss));
		json_object_set_new(b, "sw_queue", JU(mq->c.boost_swq));
		json_object_set_new(b, "hctx_dispatch", JU(mq->c.boost_hctx));
		json_object_set_new(b, "device", JU(mq->c.boost_device));
		json_object_set_new(b, "absent", JU(mq->c.boost_absent));
		json_object_set_new(c, "boost", b);
	}
	json_object_set_new(o, "counters", c);
	return o;
}

/* ------------------------------------------- helpers for mq schedulers */

bool elv_mq_bio_list_merge(struct elevator *e, struct list_head *list, struct bio *bio)
{
	struct blk_queue *q = e->q;
	struct list_head *pos;
	int checked = BLK_MQ_BIO_LIST_CHECK;

	for (pos = list->prev; pos != list; pos = pos->prev) {
		struct io_request *rq = list_entry(pos, struct io_request, queuelist);
		enum elv_merge how;

		if (!checked--)
			break;
		if (!elv_rq_merge_ok(e, rq, bio))
			continue;
		how = blk_try_merge(rq, bio);
		if (how == ELV_BACK_MERGE && blk_bio_attempt_back_merge(q, rq, bio)) {
			q->c.back_merges++;
			return true;
		}
		if (how == ELV_FRONT_MERGE && blk_bio_attempt_front_merge(q, rq, bio)) {
			q->c.front_merges++;
			return true;
		}
	}
	return false;
}

uint32_t elv_mq_rq_ctx(const struct io_request *rq)
{
	return blk_rq_of((struct io_request *)rq)->mq_ctx;
}

uint32_t elv_mq_nr_ctx(const struct elevator *e)
{
	return e->q->mq->nr_ctx;
}

void elv_mq_run_queue_async(struct elevator *e)
{
	blk_mq_run_all_async(e->q);
}

uint32_t elv_mq_in_driver(const struct elevator *e)
{
	return e->q->mq->in_driver;
}

uint32_t elv_mq_hw_depth(const struct elevator *e)
{
	return e->q->mq->hctx[0].tags->depth;
}

int elv_mq_kernel(const struct elevator *e)
{
	return e->q->mq->p.kernel == BLK_MQ_V5_10 ? 510 : 601;
}

void elv_mq_min_shallow_depth(struct elevator *e, uint32_t min_shallow)
{
	struct blk_mq *mq = e->q->mq;

	for (uint32_t i = 0; i < blk_mq_nr_tag_owners(mq); i++) {
		mq->hctx[i].sched_tags->min_shallow = min_shallow ? min_shallow : 1;
		blk_mq_tags_calc_wake_batch(mq->hctx[i].sched_tags);
	}
}
