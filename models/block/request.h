/* bio and request: the units the block layer, the schedulers and the device
 * exchange. Follows include/linux/blk_types.h and blkdev.h of Linux 3.10-4.4
 * (struct bio, struct request, REQ_* flags, struct io_context), keeping only
 * what the models use. Sectors are 512 bytes.
 */
#ifndef MODELS_REQUEST_H
#define MODELS_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine.h"
#include "sim/list.h"
#include "sim/rbtree.h"

struct sim;
struct blk_queue;

#define SECTOR_SHIFT 9
#define SECTOR_SIZE 512u

/* Request flags (a subset of the kernel's REQ_*; FG and BOOSTED are
 * mobisim's tags for the foreground-aware policies). */
enum req_flag {
	REQ_WRITE = 1u << 0,   /* data direction: set = write */
	REQ_SYNC = 1u << 1,    /* reads are always treated as sync (cfq_bio_sync) */
	REQ_META = 1u << 2,    /* file-system metadata */
	REQ_PRIO = 1u << 3,    /* boosted priority inside a queue */
	REQ_FUA = 1u << 4,     /* forced unit access */
	REQ_FLUSH = 1u << 5,   /* pre-flush of the device write cache */
	REQ_RAHEAD = 1u << 6,  /* readahead: may be dropped, never waited on first */
	REQ_NOIDLE = 1u << 7,  /* don't anticipate more I/O after this one */
	REQ_FG = 1u << 8,      /* issued on behalf of a foreground task */
	REQ_BOOSTED = 1u << 9, /* lifted by boost_lba */
	REQ_JOURNAL = 1u << 10,/* journal (jbd2) write */
	REQ_DISCARD = 1u << 11,/* discard/TRIM of the sectors (with REQ_WRITE, as the kernel's) */
	/* Which path of the upper stack a bio comes from, for the completion
	 * path's per-path choice of polling (models/completion/completion.h,
	 * completion.paths). Never merged into a request's flags and read by
	 * nothing else (no scheduler, trace or merge decision looks at them). */
	REQ_DIRECT = 1u << 12,   /* an O_DIRECT read or write (5.15: may carry REQ_HIPRI) */
	REQ_PAGECACHE = 1u << 13,/* any other bio of the upper stack: page cache, fs, kthreads */
	REQ_PCREAD = 1u << 14,   /* with PAGECACHE: a user task's buffered read / readahead fill */
	REQ_MMAP = 1u << 15,     /* with PAGECACHE: a fill for a page fault (read-around) */
};

static inline bool req_is_write(uint32_t flags) { return flags & REQ_WRITE; }
/* cfq_bio_sync(): reads and REQ_SYNC writes are sync. */
static inline bool req_is_sync(uint32_t flags) { return !(flags & REQ_WRITE) || (flags & REQ_SYNC); }

enum ioprio_class {
	IOPRIO_CLASS_NONE = 0,
	IOPRIO_CLASS_RT = 1,
	IOPRIO_CLASS_BE = 2,
	IOPRIO_CLASS_IDLE = 3,
};
#define IOPRIO_BE_NR 8
#define IOPRIO_NORM 4

/* Per-process I/O context (kernel: struct io_context + the scheduler's
 * cfq_io_cq). Owned by the task model; the elevator keeps its per-process
 * state behind elv_data and frees it in its exit hook. */
struct io_context {
	int32_t pid;
	int32_t tgid;
	uint32_t uid;
	uint8_t ioprio_class; /* enum ioprio_class */
	uint8_t ioprio_level; /* 0 (highest) .. 7 */
	bool fg;              /* currently foreground (from the fg_uid timeline) */
	const char *comm;     /* process name, for traces */
	void *elv_data;
	/* The task's blkio cgroup as Android's task profiles place it
	 * (models/stack/task_profiles.c); all zero = the root group, no policy.
	 * Group-aware schedulers (bfq: blkio.bfq.weight; cfq groups:
	 * blkio.weight) read these; blk-ioprio's policy via ioc_io_class(). */
	uint16_t blkcg_id;          /* tasks with the same id share a group; 0 = root */
	uint16_t blkcg_weight;      /* blkio.weight of the group (10..1000), 0 = not set */
	uint16_t blkcg_bfq_weight;  /* blkio.bfq.weight (1..1000), 0 = not set (bfq: 100) */
	uint8_t blkcg_prio_policy;  /* blkio.prio.class: 0 no-change, 1 none-to-rt,
				     * 2 restrict-to-be, 3 idle (values as the classes) */
};

/* The I/O class a request of ioc gets with blk-ioprio (Linux 5.15
 * block/blk-ioprio.c blkcg_ioprio_track: bi_ioprio = max(bi_ioprio,
 * policy << IOPRIO_CLASS_SHIFT), so the class is the larger of the two). */
static inline uint8_t ioc_io_class(const struct io_context *ioc)
{
	return ioc->blkcg_prio_policy > ioc->ioprio_class ? ioc->blkcg_prio_policy
							  : ioc->ioprio_class;
}

struct bio {
	uint64_t sector;
	uint32_t nr_sectors;
	uint32_t flags;             /* enum req_flag */
	struct io_context *ioc;     /* submitter; NULL = kernel thread with default prio */
	int64_t t_queue;            /* Q: when it entered the block layer */
	struct bio *bi_next;        /* chain inside a request */
	/* Called once when the request carrying this bio completes. The bio
	 * belongs to its submitter, which may free it here. */
	void (*end_io)(struct sim *sim, struct bio *bio);
	void *private;
	int error;
};

struct io_request {
	uint64_t id;                /* monotonic per queue: deterministic tie-breaks and traces */
	uint64_t sector;
	uint32_t nr_sectors;
	uint32_t nr_segments;
	uint32_t flags;
	struct io_context *ioc;
	struct blk_queue *q;
	struct bio *bio, *biotail;

	/* btt timestamps (ns): first bio queued, request allocated, inserted
	 * into the scheduler, dispatched to the device, completed. */
	int64_t t_queue, t_getrq, t_insert, t_dispatch, t_complete;
	int64_t fifo_time;          /* scheduler FIFO deadline */

	struct list_head queuelist; /* plug list, scheduler FIFO or dispatch list */
	struct rb_node rb_node;     /* scheduler sort tree */
	struct list_head hash;      /* block core's back-merge hash */
	void *elv_priv[2];          /* scheduler's per-request state (cfq: the cfqq) */

	struct sim_event dev_event; /* free for the device model's completion timer */
	struct list_head dev_node;  /* free for the device model's internal queues */
	void *dev_priv;
	void *cpl_priv;             /* host completion path's per-I/O state (models/completion/completion.c) */
};

static inline uint64_t rq_end_sector(const struct io_request *rq) { return rq->sector + rq->nr_sectors; }
static inline uint64_t rq_bytes(const struct io_request *rq) { return (uint64_t)rq->nr_sectors << SECTOR_SHIFT; }

#endif
