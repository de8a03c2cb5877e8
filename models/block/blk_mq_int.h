/* blk-mq internals: software queues (struct blk_mq_ctx), hardware queues
 * (struct blk_mq_hw_ctx) with their driver and scheduler tag maps, and the
 * SCSI device budget. Private to models/block/blk_mq*.c and the mq tests
 * that inspect counters; the interface is models/block/block.h.
 * Follows block/blk-mq.h, blk-mq-tag.h and include/linux/sbitmap.h of
 * Linux 5.10 and 6.1.
 */
#ifndef MODELS_BLK_MQ_INT_H
#define MODELS_BLK_MQ_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/block/blk_int.h"
#include "models/device/ufs_host.h"
#include "sim/engine.h"
#include "sim/list.h"

/* The kernel versions whose blk-mq this model follows (block.kernel). */
enum blk_mq_version { BLK_MQ_V5_10 = 0, BLK_MQ_V6_1 = 1 };

/* include/linux/sbitmap.h: SBQ_WAIT_QUEUES 8, SBQ_WAKE_BATCH 8. */
#define BLK_MQ_SBQ_WAIT_QUEUES 8
#define BLK_MQ_SBQ_WAKE_BATCH 8
/* block/blk-mq.c: blk_mq_update_dispatch_busy's EWMA. */
#define BLK_MQ_DISPATCH_BUSY_EWMA_WEIGHT 8
#define BLK_MQ_DISPATCH_BUSY_EWMA_FACTOR 4
/* include/linux/blkdev.h (5.10) and block/blk.h (6.1):
 * BLK_PLUG_FLUSH_SIZE (128 * 1024). */
#define BLK_MQ_PLUG_FLUSH_SIZE (128u * 1024u)
/* block/blk-merge.c blk_bio_list_merge: checks the last 8 requests. */
#define BLK_MQ_BIO_LIST_CHECK 8

/* One sbitmap_queue of tags. Counted, not bit-exact: an allocation with a
 * shallow depth succeeds while fewer tags are in use than that depth
 * allows over all words (sum over words of min(shallow, bits per word)),
 * which is what sbitmap_get_shallow gives when the bits fill evenly. */
struct blk_mq_tags {
	uint32_t depth;          /* tags in the map */
	uint32_t shift;          /* sbitmap_calculate_shift(depth): bits per word = 1 << shift */
	uint32_t used;
	uint32_t min_shallow;    /* sbitmap_queue_min_shallow_depth (UINT32_MAX = none) */
	uint32_t wake_batch;     /* sbq_calc_wake_batch */
	uint32_t wake_cnt;       /* frees since the last batch woke */
	struct list_head wait;   /* struct blk_waiter, FIFO (prepare_to_wait_exclusive) */
	uint32_t nwait;
	uint32_t nwoken;         /* the first nwoken sleepers have been woken */
	uint64_t sleeps;         /* allocations that slept (blk_mq_get_tag io_schedule) */
	uint32_t peak_used;
	/* Hardware queues waiting for a driver tag (blk_mq_mark_tag_wait):
	 * hctx->dispatch_wait on one of the sbitmap_queue's SBQ_WAIT_QUEUES
	 * wait queues. Only a scheduler's driver tags get these and only
	 * tasks sleep on scheduler tags, so they never share a count with
	 * the task sleepers above. */
	struct list_head hctx_ws[BLK_MQ_SBQ_WAIT_QUEUES]; /* struct blk_mq_hw_ctx, newest first */
	uint32_t hctx_waiting;   /* entries on hctx_ws (sbq->ws_active) */
	uint32_t hctx_wake_cnt;  /* frees since the last wake of an hctx_ws */
	uint32_t wake_index;     /* sbq->wake_index: the wait queue woken next */
	uint64_t hctx_wakes;     /* wait queues woken */
};

struct blk_mq_ctx {
	struct list_head rq_list; /* ctx->rq_lists[HCTX_TYPE_DEFAULT] */
	uint32_t nr;
};

struct blk_mq_hw_ctx {
	struct blk_queue *q;
	uint32_t index;
	struct list_head dispatch; /* hctx->dispatch: bypass inserts and requeues */
	/* driver tags (tag set queue_depth) and scheduler tags (nr_requests,
	 * with a scheduler): this queue's own, or with a host-wide tag set
	 * (UFS MCQ, BLK_MQ_F_TAG_HCTX_SHARED) struct blk_mq's shared ones */
	struct blk_mq_tags *tags, *sched_tags;
	struct blk_mq_tags own_tags, own_sched_tags;
	uint32_t type;             /* enum ufs_hctx_type: default, read, poll */
	uint64_t dispatched;       /* requests this queue gave the device */
	uint64_t run_epoch;        /* last blk_mq_run_queues pass that ran it */
	uint64_t wait_seq;         /* when its dispatch list last became non-empty */
	struct list_head tag_wait; /* hctx->dispatch_wait: on a tags->hctx_ws, else empty */
	struct list_head woken;    /* on blk_mq.woken: woken for a tag, not yet run */
	uint32_t wait_index;       /* hctx->wait_index: the wait queue it joins next (bt_wait_ptr) */
	uint32_t dispatch_busy;    /* EWMA of BLK_STS_RESOURCE (no scheduler only) */
	uint32_t dispatch_from;    /* round-robin ctx cursor of blk_mq_do_dispatch_ctx */
	bool running, rerun;
	struct sim_event run_event; /* blk_mq_run_hw_queue(hctx, true): kblockd */
};

struct blk_mq_params {
	int kernel;                  /* enum blk_mq_version */
	int64_t nr_hw_queues;
	int64_t nr_cpus;             /* software queues (one per possible CPU) */
	int64_t queue_depth;         /* tag set depth; 0 = the device's queue_depth */
	int64_t sdev_queue_depth;    /* SCSI budget; 0 = the tag set depth */
	int64_t nr_requests;         /* scheduler tags; 0 = kernel default */
	int64_t plug_max_requests;   /* 0 = the version's BLK_MAX_REQUEST_COUNT */
	uint64_t max_sectors_bytes;
	int64_t max_segments;
	uint64_t max_segment_size_bytes;
};

struct blk_mq_counters {
	uint64_t direct_issues;      /* blk_mq_try_issue_directly reached the device */
	uint64_t bypass_inserts;     /* went to hctx->dispatch (bypass or requeue) */
	uint64_t resource_requeues;  /* BLK_STS_RESOURCE from the device */
	uint64_t budget_stalls;      /* dispatch stopped for want of SCSI budget */
	uint64_t driver_tag_stalls;  /* dispatch stopped for want of a driver tag */
	uint64_t plug_size_flushes;  /* last plugged request >= BLK_PLUG_FLUSH_SIZE */
	uint64_t sw_queue_inserts;   /* requests queued on a software queue (no scheduler) */
	/* boost_lba (blk_mq_boost_lba): where the request was found */
	uint64_t boost_plug_marked;  /* in a plug: marked REQ_BOOSTED */
	uint64_t boost_plug_lifted;  /* ... and lifted by the scheduler at insert */
	uint64_t boost_sched;        /* in the scheduler, lifted by its boost_lba */
	uint64_t boost_sched_miss;   /* in the scheduler, which did not lift it */
	uint64_t boost_swq;          /* none: software queue -> head of hctx->dispatch */
	uint64_t boost_hctx;         /* on hctx->dispatch: moved to its head */
	uint64_t boost_device;       /* at the device: nothing to do */
	uint64_t boost_absent;       /* no request covers it (bio asleep for a tag, or gone) */
};

struct blk_mq {
	struct blk_mq_params p;
	bool has_elv;                /* a scheduler with insert_requests (not none) */
	uint32_t nr_hw, nr_ctx;
	struct blk_mq_hw_ctx *hctx;
	struct blk_mq_ctx *ctx;
	/* blk_mq_queue_map per hctx type: ctx c goes to map_off + c % map_nr
	 * (map_nr 0: the type falls back to the default map) */
	uint32_t map_off[UFS_HCTX_TYPES], map_nr[UFS_HCTX_TYPES];
	const struct ufs_host *host; /* the device's UFS host in MCQ mode, else NULL */
	bool shared_tags;            /* one tag set for every hardware queue */
	struct blk_mq_tags shared_driver_tags, shared_sched_tags;
	uint32_t budget_depth, budget_used;
	uint32_t plug_max;
	uint32_t in_driver;          /* requests at the device */
	uint64_t run_epoch;          /* blk_mq_run_queues passes */
	uint64_t wait_seq;           /* dispatch lists that became non-empty */
	bool restarts;               /* the SCSI budget ran out since the last rerun */
	struct list_head woken;      /* hardware queues woken for a tag, in wake order */
	struct sim_event wake_event; /* woken tag sleepers retry at this instant */
	struct blk_mq_counters c;
};

#endif
