/* Block layer internals shared by blk_core.c, blk_plug.c, blk_merge.c and
 * elevator.c (the kernel keeps the same split between blk-core.c,
 * blk-merge.c and elevator.c with block/blk.h as their private header).
 * Nothing outside those files may include this; the public interface is
 * models/block/block.h and models/block/elevator.h.
 */
#ifndef MODELS_BLK_INT_H
#define MODELS_BLK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/block/block.h"
#include "models/block/elevator.h"
#include "models/block/request.h"
#include "sim/list.h"
#include "sim/metrics.h"

/* include/linux/blkdev.h: BLK_MAX_REQUEST_COUNT (3.10 blk_queue_bio flushes
 * the plug when this many requests of the queue are already in it). */
#define BLK_MAX_REQUEST_COUNT 16

/* block/elevator.c: ELV_HASH_BITS 6 -> 64 buckets for the back-merge hash. */
#define BLK_HASH_BUCKETS 64

/* Where a request is (the kernel infers this from REQ_SORTED/REQ_STARTED
 * and list membership; an explicit state keeps the invariants checkable). */
enum blk_rq_state {
	BLK_RQ_FREE = 0,
	BLK_RQ_NEW,       /* allocated, not yet plugged or inserted */
	BLK_RQ_PLUGGED,   /* on a task's plug list */
	BLK_RQ_SORTED,    /* inside the scheduler (REQ_SORTED) */
	BLK_RQ_DISPATCH,  /* on the dispatch list q->queue_head */
	BLK_RQ_DEVICE,    /* handed to the device (REQ_STARTED) */
	BLK_RQ_DONE,      /* completion running */
};

/* The core's wrapper around a request: the public io_request plus state
 * the schedulers and devices need not see. */
struct blk_rq {
	struct io_request rq;
	enum blk_rq_state state;
	bool is_sync;        /* request_list slot it was counted in */
	bool elvpriv;        /* set_request succeeded: put_request owed */
	bool hashed;         /* on the back-merge hash */
	bool nomerge;        /* REQ_NOMERGE: a merge hit a limit; never merge again */
	bool softbarrier;    /* REQ_SOFTBARRIER: flush/FUA, dispatch_sort stops here */
	bool fg_dev;         /* counted in fg_in_flight (REQ_FG at dispatch, single queue) */
	/* blk-mq only (models/block/blk_mq.c): which software and hardware
	 * queue, which tags and whether the device budget is held. */
	uint16_t mq_ctx, mq_hctx;
	bool mq_sched_tag;   /* holds a scheduler tag (internal_tag) */
	bool mq_driver_tag;  /* holds a driver tag (tag) */
	bool mq_budget;      /* holds a SCSI device budget slot */
	bool mq_elv;         /* RQF_ELV: allocated with a scheduler, goes through it */
	struct blk_rq *free_next;
};

static inline struct blk_rq *blk_rq_of(struct io_request *rq)
{
	return container_of(rq, struct blk_rq, rq);
}

/* block/blk.h: a task that slept in get_request (or filled the list) may
 * allocate BLK_BATCH_REQ more requests within BLK_BATCH_TIME = HZ/50. */
#define BLK_BATCH_REQ 32
#define BLK_BATCH_TIME_NS 20000000LL

/* The kernel keeps nr_batch_requests/last_waited in the io_context; the
 * model keeps them per queue, keyed by the io_context (one queue per run). */
struct blk_batcher {
	const struct io_context *ioc;
	int32_t nr_batch_requests;
	int64_t last_waited;
};

#define BLK_RQ_CHUNK 64
struct blk_rq_chunk {
	struct blk_rq_chunk *next;
	struct blk_rq rqs[BLK_RQ_CHUNK];
};

struct blk_limits {
	uint64_t max_sectors_bytes;     /* max_sectors_kib */
	int64_t max_segments;
	uint64_t max_segment_size_bytes; /* max_segment_size_kib */
	int64_t nr_requests;
};

/* Plug flush reasons, for the counters. */
enum blk_unplug_reason {
	BLK_UNPLUG_COUNT = 0,  /* BLK_MAX_REQUEST_COUNT reached */
	BLK_UNPLUG_SLEEP,      /* the task went to sleep (from_schedule) */
	BLK_UNPLUG_FINISH,     /* blk_finish_plug */
	BLK_UNPLUG_NREASON
};

struct blk_counters {
	uint64_t bios, bios_ended;
	uint64_t back_merges, front_merges;       /* bio into request, elevator */
	uint64_t plug_back_merges, plug_front_merges;
	uint64_t rq_merges;                       /* request into request */
	uint64_t plug_flushes[BLK_UNPLUG_NREASON];
	uint64_t plugged_requests;
	uint64_t getrq_sleeps[2];                 /* [is_sync] */
	uint64_t rq_allocated, rq_freed;
	uint64_t inserted, dispatched, completed;
	uint64_t flush_requests;
	uint64_t boost_hits, boost_misses;
};

struct blk_queue {
	struct sim *sim;
	struct device *dev;
	bool nested;                  /* a VM host's queue: btt kept out of sim->metrics */
	struct elevator elv;
	bool elv_inited;
	struct blk_limits lim;
	uint32_t max_sectors;         /* lim.max_sectors_bytes in sectors */
	uint32_t max_seg_sectors;     /* lim.max_segment_size_bytes in sectors */

	struct list_head queue_head;  /* dispatch list */
	struct io_request *last_merge;/* one-hit merge cache */
	uint64_t end_sector;          /* boundary for elv_dispatch_sort */
	struct list_head hash[BLK_HASH_BUCKETS];
	uint32_t nr_sorted;

	/* request_list: allocation counts and sleepers per sync/async. */
	uint32_t rl_count[2];
	bool rl_full[2];              /* blk_rl_full: only batchers may allocate */
	bool congested[2];            /* blk_set/clear_queue_congested */
	uint32_t nr_congestion_on, nr_congestion_off;
	uint32_t rl_nwait[2];
	uint32_t rl_nwoken[2];        /* the first rl_nwoken sleepers have been woken */
	struct list_head rl_wait[2];
	struct blk_batcher *batchers; /* tasks allowed past a full list (ioc_batching) */
	uint32_t nbatchers, cap_batchers;
	uint32_t in_flight[2];        /* at the device, by sync */
	uint64_t next_id;
	struct blk_rq *free_list;     /* recycled wrappers: bounded by peak outstanding */
	struct blk_rq_chunk *chunks;  /* all wrappers ever allocated, freed at destroy */

	bool running, rerun;          /* blk_run_queue re-entrancy */
	struct sim_event wake_event;  /* woken get_request sleepers retry */
	struct sim_event run_event;   /* deferred run (kblockd) after a from_schedule unplug */

	struct blk_trace_sink sinks[BLK_MAX_TRACE_SINKS];
	int nsinks;
	struct blk_counters c;

	struct blk_mq *mq;            /* block.kind: mq (models/block/blk_mq.c); NULL = 3.10 path */

	/* issue gate (blk_set_issue_gate): a policy's hold on requests going
	 * to the device; gate_event runs the queue again when a hold ends */
	blk_issue_gate_fn gate;
	void *gate_ctx;
	struct sim_event gate_event;
	uint32_t fg_in_flight;        /* REQ_FG requests at the device */
	int64_t last_fg_done;         /* completion time of the last of them, INT64_MIN none */
	uint64_t gate_holds;          /* times the gate held the dispatch list's head */
};

/* blk_core.c */
/* A request is born in two steps, shared by get_request (3.10) and
 * __blk_mq_alloc_request (blk-mq) once the caller holds its slot (a
 * request-list count, a tag): blk_rq_new takes a zeroed wrapper from the
 * pool and fills it from bio (state NEW, sync class, id, lists, first
 * bio, G time), or fails the run and gives NULL when memory runs out;
 * the caller then sets its own fields (blk-mq: ctx, hctx, tags), and
 * blk_rq_allocated gives the scheduler its data (elv_data: the queue has
 * a scheduler that keeps any), counts the request and traces G.
 * A request dies in two steps too: blk_rq_unhook drops the scheduler's
 * data and takes the request out of the merge candidates (last_merge,
 * the back-merge hash); the caller then gives back its slot (request
 * list, tags), and blk_rq_put counts the free and returns the wrapper to
 * the pool. */
struct io_request *blk_rq_new(struct blk_queue *q, struct bio *bio);
void blk_rq_allocated(struct blk_queue *q, struct io_request *rq, bool elv_data);
void blk_rq_unhook(struct blk_queue *q, struct io_request *rq);
void blk_rq_put(struct blk_queue *q, struct blk_rq *br);
/* What both queue kinds build alike. blk_check_sector_limits: the
 * byte limits are whole sectors (else a config error at block_cfg).
 * blk_queue_setup, once q->lim is known: the limits in sectors, the
 * dispatch list, the merge hash, the request-list sleepers and the
 * scheduler (elv_init). blk_queue_attach: completions of q's device come
 * to on_complete. */
int blk_check_sector_limits(uint64_t max_sectors_bytes, uint64_t max_segment_size_bytes,
			    struct cfg_node *block_cfg, struct sim_error *err);
int blk_queue_setup(struct blk_queue *q, const struct elevator_ops *ops, struct cfg_node *sched_cfg,
		    struct sim_error *err);
void blk_queue_attach(struct blk_queue *q, void (*on_complete)(void *upper, struct io_request *rq));
/* The middle of a completion, alike in both queue kinds: the request is
 * done and leaves the in-flight count, the C event
 * (stamping the completion time if the device did not), the counters
 * and btt intervals, then the scheduler hears of it (tell_elv: the
 * request went through it). Gives the bio chain, now detached from rq,
 * for blk_end_bios once the request is freed. */
struct bio *blk_rq_completed(struct blk_queue *q, struct io_request *rq, bool tell_elv);
/* Run end_io of every bio of a completed request's chain, in order. */
void blk_end_bios(struct blk_queue *q, struct bio *bio);
void blk_trace_emit(struct blk_queue *q, char action, const struct io_request *rq,
		    const struct bio *bio, uint32_t depth);
/* Inline: five per request, and most runs have no sink. */
static inline void blk_trace(struct blk_queue *q, char action, const struct io_request *rq,
			     const struct bio *bio, uint32_t depth)
{
	if (q->nsinks)
		blk_trace_emit(q, action, rq, bio, depth);
}
void blk_free_request(struct blk_queue *q, struct io_request *rq);
/* __elv_add_request(): I event; flush/FUA go to the dispatch list tail
 * (ELEVATOR_INSERT_FLUSH), others into the scheduler, first trying back
 * merges when merge is set (ELEVATOR_INSERT_SORT_MERGE, the plug flush). */
void blk_insert_request(struct blk_queue *q, struct io_request *rq, bool merge);

/* elv_merge() and the bio merge it finds, then the request merge with
 * the neighbour (blk_queue_bio's merge step; blk-mq's
 * blk_mq_sched_try_merge is the same). True when bio was merged. */
bool blk_elv_bio_merge(struct blk_queue *q, struct bio *bio);

/* Park bio of a submitter that must sleep (get_request, blk_mq_get_tag)
 * on wait: w, or a block-owned waiter when w is NULL (freed once woken,
 * or by blk_waiters_drop). Counts the sleep and traces S. NULL on out of
 * memory (the run has failed). */
struct blk_waiter *blk_waiter_park(struct blk_queue *q, struct bio *bio, struct blk_plug *plug,
				   struct blk_waiter *w, struct list_head *wait);
/* A woken sleeper got its request: its wait goes into the run's metrics
 * (unless the waiter's owner accounts for it) and the bio is no longer
 * parked. */
void blk_waiter_got_request(struct blk_queue *q, struct blk_waiter *w);
/* Empty a wait list at destroy, freeing the block-owned waiters. */
void blk_waiters_drop(struct list_head *wait);
/* A bio enters the queue: its Q time, the count, the Q event. */
void blk_bio_queued(struct blk_queue *q, struct bio *bio);

/* Run the queue at the current instant from an event (kblockd). */
void blk_run_queue_async(struct blk_queue *q);

/* blk_merge.c */
uint32_t blk_bio_segments(const struct blk_queue *q, const struct bio *bio);
/* blk_rq_merge_ok(): flags, direction, mergeability (no elevator hook). */
bool blk_rq_merge_ok(const struct io_request *rq, const struct bio *bio);
/* blk_try_merge(): where would bio join rq by position. */
enum elv_merge blk_try_merge(const struct io_request *rq, const struct bio *bio);
/* bio_attempt_back/front_merge(): limits checked; on success the bio is
 * linked, sizes updated and M/F traced. */
bool blk_bio_attempt_back_merge(struct blk_queue *q, struct io_request *rq, struct bio *bio);
bool blk_bio_attempt_front_merge(struct blk_queue *q, struct io_request *rq, struct bio *bio);
/* attempt_back_merge()/attempt_front_merge(): merge rq with its latter /
 * former neighbour in the scheduler. True when a request went away. */
bool blk_attempt_back_merge(struct blk_queue *q, struct io_request *rq);
bool blk_attempt_front_merge(struct blk_queue *q, struct io_request *rq);
/* blk_attempt_req_merge(): next (not necessarily sorted) joins rq's back. */
bool blk_attempt_req_merge(struct blk_queue *q, struct io_request *rq, struct io_request *next);
/* init_request_from_bio(): first bio of a fresh request. */
void blk_rq_bio_prep(struct blk_queue *q, struct io_request *rq, struct bio *bio);

/* blk_plug.c */
/* Back or front merge of bio into plugged rq of q (counted). */
bool blk_plug_merge_one(struct blk_queue *q, struct io_request *rq, struct bio *bio);
/* blk_attempt_plug_merge(): try to merge bio into a plugged request of q;
 * *request_count = requests of q already plugged. */
bool blk_attempt_plug_merge(struct blk_queue *q, struct blk_plug *plug, struct bio *bio,
			    uint32_t *request_count);
/* Add a fresh request to the plug (P when it is the first; flush at the limit). */
void blk_plug_add(struct blk_queue *q, struct blk_plug *plug, struct io_request *rq,
		  uint32_t request_count);
void blk_flush_plug_list(struct blk_queue *q, struct blk_plug *plug, enum blk_unplug_reason why);

/* block.kind from the `block:` map ("sq" unless given); marks it used. */
int blk_queue_kind(struct cfg_node *block_cfg, const char **kind, struct sim_error *err);

/* blk_mq.c: the blk-mq queue behind the same struct blk_queue; the
 * public entry points above branch here when q->mq is set. ops NULL =
 * the kernel's default scheduler (elevator_get_default). */
int blk_mq_queue_create(struct sim *sim, struct device *dev, struct cfg_node *block_cfg,
			const struct elevator_ops *ops, struct cfg_node *sched_cfg,
			struct blk_queue **out, struct sim_error *err);
void blk_mq_queue_destroy(struct blk_queue *q);
enum blk_submit_result blk_mq_submit_bio(struct blk_queue *q, struct blk_plug *plug,
					 struct bio *bio, struct blk_waiter *w);
void blk_mq_flush_plug_list(struct blk_queue *q, struct blk_plug *plug, enum blk_unplug_reason why);
void blk_mq_run_queues(struct blk_queue *q);
void blk_mq_free_request(struct blk_queue *q, struct io_request *rq);
enum blk_where blk_mq_locate_waiting(const struct blk_queue *q, uint64_t sector);
bool blk_mq_boost_lba(struct blk_queue *q, uint64_t sector);
int blk_mq_queue_check(const struct blk_queue *q, bool drained, struct sim_error *err);
struct json_t *blk_mq_to_json(const struct blk_queue *q);

/* elevator.c */
void elv_rqhash_add(struct blk_queue *q, struct io_request *rq);
void elv_rqhash_del(struct blk_queue *q, struct io_request *rq);
void elv_rqhash_reposition(struct blk_queue *q, struct io_request *rq);
struct io_request *elv_rqhash_find(struct blk_queue *q, uint64_t end_sector);
/* elv_merge(): one-hit cache, back-merge hash, then ops->merge. */
enum elv_merge elv_merge(struct blk_queue *q, struct io_request **rq, struct bio *bio);
/* elv_attempt_insert_merge(): back merges of a request being inserted. */
bool elv_attempt_insert_merge(struct blk_queue *q, struct io_request *rq);
/* elv_merge_requests(): next joined rq; tell the scheduler, fix the hash. */
void elv_merge_requests(struct blk_queue *q, struct io_request *rq, struct io_request *next);
/* elv_merged_request(): rq grew by a bio. */
void elv_merged_request(struct blk_queue *q, struct io_request *rq, enum elv_merge type);
/* The request leaves the scheduler for dispatch: off the hash and the
 * merge cache, no longer counted as sorted. */
void elv_leave_scheduler(struct blk_queue *q, struct io_request *rq);
int elv_init(struct blk_queue *q, const struct elevator_ops *ops, struct cfg_node *sched_cfg,
	     struct sim_error *err);
void elv_exit(struct blk_queue *q);

#endif
