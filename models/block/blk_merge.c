/* Merge rules and queue limits: may a bio join a request, may two
 * requests join, and do the results stay within max_sectors and
 * max_segments. Follows block/blk-merge.c and the merge helpers of
 * block/blk-core.c in Linux 3.10-4.4 (blk_rq_merge_ok, blk_try_merge,
 * ll_back_merge_fn, ll_front_merge_fn, ll_merge_requests_fn,
 * attempt_merge, bio_attempt_back_merge, bio_attempt_front_merge).
 *
 * Segments. A bio is taken to be a run of physically contiguous pages, so
 * it counts ceil(bytes / max_segment_size) segments (the kernel's
 * __blk_recount_segments with clustering). Two bios are never joined
 * into one segment: in blk-merge.c a bio merge (ll_new_hw_segment) always
 * adds the bio's segments, and a request merge joins the boundary pair
 * only when blk_phys_contig_segment finds the memory contiguous - page
 * cache pages of different bios almost never are, so LBA contiguity is
 * not taken as physical contiguity here.
 *
 * A merge refused for size or segments marks the request REQ_NOMERGE, as
 * the kernel does, so it is never considered again.
 */
#include "models/block/blk_int.h"
#include "sim/assert.h"
#include "sim/sim.h"

/* What the kernel keeps mobisim's own tags on when requests merge: the
 * foreground tag follows the data it covers. */
#define BLK_MERGE_INHERIT (REQ_FG)

uint32_t blk_bio_segments(const struct blk_queue *q, const struct bio *bio)
{
	if (bio->nr_sectors == 0)
		return 0;
	return (bio->nr_sectors + q->max_seg_sectors - 1) / q->max_seg_sectors;
}

/* rq_mergeable()/bio_mergeable(): REQ_NOMERGE_FLAGS include FLUSH, FUA,
 * STARTED and NOMERGE. Only requests still plugged or inside the
 * scheduler can grow. */
static bool blk_rq_mergeable(const struct io_request *rq)
{
	const struct blk_rq *br = container_of(rq, struct blk_rq, rq);

	if (br->nomerge || (rq->flags & (REQ_FLUSH | REQ_FUA)))
		return false;
	return br->state == BLK_RQ_NEW || br->state == BLK_RQ_PLUGGED || br->state == BLK_RQ_SORTED;
}

bool blk_rq_merge_ok(const struct io_request *rq, const struct bio *bio)
{
	if (!blk_rq_mergeable(rq))
		return false;
	if ((bio->flags & (REQ_FLUSH | REQ_FUA)) || bio->nr_sectors == 0)
		return false;
	/* blk_rq_merge_ok() (block/blk-merge.c, 3.10): discards merge only
	 * with discards */
	if ((bio->flags & REQ_DISCARD) != (rq->flags & REQ_DISCARD))
		return false;
	/* Same data direction. Sync and async may merge as far as the core
	 * is concerned; CFQ forbids it in its allow_merge hook. */
	return req_is_write(bio->flags) == req_is_write(rq->flags);
}

enum elv_merge blk_try_merge(const struct io_request *rq, const struct bio *bio)
{
	if (rq_end_sector(rq) == bio->sector)
		return ELV_BACK_MERGE;
	if (rq->sector == bio->sector + bio->nr_sectors)
		return ELV_FRONT_MERGE;
	return ELV_NO_MERGE;
}

static void blk_rq_mark_nomerge(struct blk_queue *q, struct io_request *rq)
{
	blk_rq_of(rq)->nomerge = true;
	if (q->last_merge == rq)
		q->last_merge = NULL;
}

/* ll_back_merge_fn / ll_front_merge_fn: size, then segments. */
static bool blk_ll_bio_merge_fn(struct blk_queue *q, struct io_request *rq, struct bio *bio)
{
	uint32_t segs = blk_bio_segments(q, bio);

	if ((uint64_t)rq->nr_sectors + bio->nr_sectors > q->max_sectors ||
	    (uint64_t)rq->nr_segments + segs > (uint64_t)q->lim.max_segments) {
		blk_rq_mark_nomerge(q, rq);
		return false;
	}
	rq->nr_segments += segs;
	return true;
}

bool blk_bio_attempt_back_merge(struct blk_queue *q, struct io_request *rq, struct bio *bio)
{
	if (!blk_ll_bio_merge_fn(q, rq, bio))
		return false;
	blk_trace(q, 'M', NULL, bio, 0);
	bio->bi_next = NULL;
	rq->biotail->bi_next = bio;
	rq->biotail = bio;
	rq->nr_sectors += bio->nr_sectors;
	rq->flags |= bio->flags & BLK_MERGE_INHERIT;
	return true;
}

bool blk_bio_attempt_front_merge(struct blk_queue *q, struct io_request *rq, struct bio *bio)
{
	if (!blk_ll_bio_merge_fn(q, rq, bio))
		return false;
	blk_trace(q, 'F', NULL, bio, 0);
	bio->bi_next = rq->bio;
	rq->bio = bio;
	rq->sector = bio->sector;
	rq->nr_sectors += bio->nr_sectors;
	rq->flags |= bio->flags & BLK_MERGE_INHERIT;
	return true;
}

/* attempt_merge(): next joins the back of rq. The kernel applies no
 * scheduler veto here (3.10); CFQ sorts out queue ownership in its
 * merged_requests hook. */
static bool blk_attempt_merge(struct blk_queue *q, struct io_request *rq, struct io_request *next)
{
	if (!blk_rq_mergeable(rq) || !blk_rq_mergeable(next))
		return false;
	if (rq_end_sector(rq) != next->sector)
		return false;
	if (req_is_write(rq->flags) != req_is_write(next->flags))
		return false;
	/* ll_merge_requests_fn: no REQ_NOMERGE marking on this path. */
	if ((uint64_t)rq->nr_sectors + next->nr_sectors > q->max_sectors)
		return false;
	if ((uint64_t)rq->nr_segments + next->nr_segments > (uint64_t)q->lim.max_segments)
		return false;

	/* The older start time stands for the merged request (btt Q). */
	if (next->t_queue < rq->t_queue)
		rq->t_queue = next->t_queue;
	if (next->t_getrq && (rq->t_getrq == 0 || next->t_getrq < rq->t_getrq))
		rq->t_getrq = next->t_getrq;
	rq->biotail->bi_next = next->bio;
	rq->biotail = next->biotail;
	rq->nr_sectors += next->nr_sectors;
	rq->nr_segments += next->nr_segments;
	rq->flags |= next->flags & BLK_MERGE_INHERIT;

	elv_merge_requests(q, rq, next);
	q->c.rq_merges++;
	next->bio = next->biotail = NULL;
	next->nr_sectors = 0;
	blk_free_request(q, next);
	return true;
}

bool blk_attempt_req_merge(struct blk_queue *q, struct io_request *rq, struct io_request *next)
{
	return blk_attempt_merge(q, rq, next);
}

bool blk_attempt_back_merge(struct blk_queue *q, struct io_request *rq)
{
	struct elevator *e = &q->elv;
	struct io_request *next = e->ops->latter_request ? e->ops->latter_request(e, rq) : NULL;

	return next && blk_attempt_merge(q, rq, next);
}

bool blk_attempt_front_merge(struct blk_queue *q, struct io_request *rq)
{
	struct elevator *e = &q->elv;
	struct io_request *prev = e->ops->former_request ? e->ops->former_request(e, rq) : NULL;

	return prev && blk_attempt_merge(q, prev, rq);
}

void blk_rq_bio_prep(struct blk_queue *q, struct io_request *rq, struct bio *bio)
{
	bio->bi_next = NULL;
	rq->sector = bio->sector;
	rq->nr_sectors = bio->nr_sectors;
	rq->nr_segments = blk_bio_segments(q, bio);
	rq->flags = bio->flags;
	rq->ioc = bio->ioc;
	rq->bio = rq->biotail = bio;
	rq->t_queue = bio->t_queue;
}
