/* Per-task plugging: a task collects its requests on its own list for a
 * while so that sequential bios merge before the scheduler sees them, and
 * hands them over in one batch. Follows block/blk-core.c of Linux 3.10
 * (blk_start_plug, blk_attempt_plug_merge, blk_flush_plug_list,
 * queue_unplugged, blk_finish_plug) and the BLK_MAX_REQUEST_COUNT check
 * in blk_queue_bio.
 *
 * The flush sorts the list by queue, then by start sector (list_sort with
 * plug_rq_cmp, stable), and inserts with ELEVATOR_INSERT_SORT_MERGE so
 * that adjacent requests merge on the way in. The kernel orders queues by
 * address; here they go in order of first appearance in the plug, which
 * is deterministic and changes nothing within a queue. A flush from
 * schedule() defers the queue run to kblockd (an event at the same
 * instant); an explicit one runs the queue at once.
 */
#include "models/block/blk_int.h"
#include "sim/assert.h"
#include "sim/sim.h"

void blk_start_plug(struct blk_plug *plug, struct io_context *ioc)
{
	list_init(&plug->list);
	plug->count = 0;
	plug->ioc = ioc;
	plug->active = true;
}

bool blk_plug_merge_one(struct blk_queue *q, struct io_request *rq, struct bio *bio)
{
	enum elv_merge how;

	if (!blk_rq_merge_ok(rq, bio))
		return false;
	how = blk_try_merge(rq, bio);
	if (how == ELV_BACK_MERGE && blk_bio_attempt_back_merge(q, rq, bio)) {
		q->c.plug_back_merges++;
		return true;
	}
	if (how == ELV_FRONT_MERGE && blk_bio_attempt_front_merge(q, rq, bio)) {
		q->c.plug_front_merges++;
		return true;
	}
	return false;
}

bool blk_attempt_plug_merge(struct blk_queue *q, struct blk_plug *plug, struct bio *bio,
			    uint32_t *request_count)
{
	struct list_head *pos;

	*request_count = 0;
	/* Newest first: a sequential stream hits its last request at once. */
	for (pos = plug->list.prev; pos != &plug->list; pos = pos->prev) {
		struct io_request *rq = list_entry(pos, struct io_request, queuelist);

		if (rq->q != q)
			continue;
		(*request_count)++;
		if (blk_plug_merge_one(q, rq, bio))
			return true;
	}
	return false;
}

static void blk_trace_plug(struct blk_queue *q, struct blk_plug *plug, char action, uint32_t depth)
{
	struct bio dummy = { .ioc = plug->ioc };

	/* P and U carry only the task (and U the depth), as in blkparse. */
	blk_trace(q, action, NULL, &dummy, depth);
}

void blk_plug_add(struct blk_queue *q, struct blk_plug *plug, struct io_request *rq,
		  uint32_t request_count)
{
	if (list_empty(&plug->list)) {
		blk_trace_plug(q, plug, 'P', 0);
	} else if (request_count >= BLK_MAX_REQUEST_COUNT) {
		blk_flush_plug_list(q, plug, BLK_UNPLUG_COUNT);
		blk_trace_plug(q, plug, 'P', 0);
	}
	blk_rq_of(rq)->state = BLK_RQ_PLUGGED;
	list_add_tail(&rq->queuelist, &plug->list);
	plug->count++;
	q->c.plugged_requests++;
}

/* Stable insertion of rq into a list kept sorted by start sector. */
static void blk_plug_sorted_add(struct list_head *sorted, struct io_request *rq)
{
	struct list_head *pos;

	for (pos = sorted->prev; pos != sorted; pos = pos->prev)
		if (list_entry(pos, struct io_request, queuelist)->sector <= rq->sector)
			break;
	list_add(&rq->queuelist, pos);
}

/* queue_unplugged(): U with the depth, then run the queue. */
static void blk_queue_unplugged(struct blk_queue *q, struct blk_plug *plug, uint32_t depth,
				enum blk_unplug_reason why)
{
	blk_trace_plug(q, plug, 'U', depth);
	q->c.plug_flushes[why]++;
	if (why == BLK_UNPLUG_SLEEP)
		blk_run_queue_async(q);
	else
		blk_run_queue(q);
}

void blk_flush_plug_list(struct blk_queue *q, struct blk_plug *plug, enum blk_unplug_reason why)
{
	(void)q;
	while (!list_empty(&plug->list)) {
		struct blk_queue *rq_q = list_first_entry(&plug->list, struct io_request, queuelist)->q;
		struct list_head sorted, *pos, *tmp;
		uint32_t depth = 0;

		list_init(&sorted);
		list_for_each_safe(pos, tmp, &plug->list) {
			struct io_request *rq = list_entry(pos, struct io_request, queuelist);

			if (rq->q != rq_q)
				continue;
			list_del_init(pos);
			SIM_ASSERT(plug->count > 0);
			plug->count--;
			blk_plug_sorted_add(&sorted, rq);
		}
		while (!list_empty(&sorted)) {
			struct io_request *rq = list_first_entry(&sorted, struct io_request, queuelist);

			list_del_init(&rq->queuelist);
			blk_insert_request(rq_q, rq, true);
			depth++;
		}
		blk_queue_unplugged(rq_q, plug, depth, why);
	}
}

void blk_finish_plug(struct blk_queue *q, struct blk_plug *plug)
{
	if (!plug || !plug->active)
		return;
	if (q->mq) {
		blk_mq_flush_plug_list(q, plug, BLK_UNPLUG_FINISH);
		plug->active = false;
		return;
	}
	blk_flush_plug_list(q, plug, BLK_UNPLUG_FINISH);
	plug->active = false;
}

void blk_flush_plug_on_sleep(struct blk_queue *q, struct blk_plug *plug)
{
	if (!plug || !plug->active)
		return;
	if (q->mq) {
		blk_mq_flush_plug_list(q, plug, BLK_UNPLUG_SLEEP);
		return;
	}
	blk_flush_plug_list(q, plug, BLK_UNPLUG_SLEEP);
}
