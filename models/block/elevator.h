/* I/O scheduler interface (kernel: struct elevator_type / elevator_ops in
 * include/linux/elevator.h, Linux 3.10-4.4) and the scheduler registry.
 *
 * Division of labour, as in block/elevator.c: the block core owns the
 * back-merge hash, the dispatch list (q->queue_head) and the request pool;
 * the scheduler owns its queues. When the device can take a command and the
 * dispatch list is empty the core calls dispatch(), which moves one or more
 * requests onto the dispatch list with elv_dispatch_add_tail() /
 * elv_dispatch_sort() and returns how many it moved. A scheduler that
 * wants to be called again later (CFQ's idle timer, deadline's nothing)
 * arms its own sim_event and calls blk_run_queue() from it.
 */
#ifndef MODELS_ELEVATOR_H
#define MODELS_ELEVATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/block/request.h"
#include "sim/config.h"
#include "sim/error.h"

struct elevator;
struct json_t;

enum elv_merge {
	ELV_NO_MERGE = 0,
	ELV_FRONT_MERGE = 1,
	ELV_BACK_MERGE = 2,
};

struct elevator_ops {
	const char *name;
	const char *summary;
	const struct cfg_param *params; /* applied to priv (zeroed, priv_size) before init */
	size_t priv_size;

	int (*init)(struct elevator *e, struct sim_error *err);
	void (*exit)(struct elevator *e);

	/* Look for a request bio can merge into besides the core's back-merge
	 * hash (deadline and cfq: front merge through the sort tree). */
	enum elv_merge (*merge)(struct elevator *e, struct bio *bio, struct io_request **rq);
	/* May bio join rq? (cfq: same cfqq, never sync bio into async rq). NULL = yes. */
	bool (*allow_merge)(struct elevator *e, struct io_request *rq, struct bio *bio);
	/* rq grew by a bio (type says where); re-position it in sort trees. */
	void (*merged)(struct elevator *e, struct io_request *rq, enum elv_merge type);
	/* next was merged into rq and is going away: unlink next. */
	void (*merged_requests)(struct elevator *e, struct io_request *rq, struct io_request *next);
	/* Neighbours in sector order for attempt_back/front_merge (NULL = none). */
	struct io_request *(*former_request)(struct elevator *e, struct io_request *rq);
	struct io_request *(*latter_request)(struct elevator *e, struct io_request *rq);

	/* A request was allocated for bio (get_request): bind scheduler state. */
	int (*set_request)(struct elevator *e, struct io_request *rq, struct bio *bio);
	void (*put_request)(struct elevator *e, struct io_request *rq);
	/* May the submitter get another request? NULL = yes (cfq: ELV_MQUEUE_MUST).
	 * Asked on every allocation (as elv_may_queue); the answer matters
	 * only when the request list of that sync class is full (count >=
	 * nr_requests): true lets the allocation through anyway
	 * (ELV_MQUEUE_MUST, bounded by the kernel's hard cap of 3/2
	 * nr_requests), false or NULL makes the submitter sleep. */
	bool (*may_queue)(struct elevator *e, struct io_context *ioc, uint32_t flags);

	void (*add_request)(struct elevator *e, struct io_request *rq);
	/* Move requests to the dispatch list; force = drain everything. */
	int (*dispatch)(struct elevator *e, bool force);
	/* rq left the dispatch list for the device / came back done. */
	void (*activate_request)(struct elevator *e, struct io_request *rq);
	void (*completed_request)(struct elevator *e, struct io_request *rq);
	/* Is any request queued inside the scheduler? */
	bool (*queue_empty)(struct elevator *e);

	/* Policy hook (thesis §3.3 elv_boost_lba): find a queued request that
	 * covers sector, move it to the front with top priority, return true;
	 * false when it is not in the scheduler (still plugged or dispatched).
	 * On blk-mq the core calls it for a request in the scheduler and for
	 * a plugged request marked REQ_BOOSTED once it is inserted; requests
	 * in a plug, on hctx->dispatch or in a software queue (none) are the
	 * core's (blk_mq_boost_lba in models/block/blk_mq.c). */
	bool (*boost_lba)(struct elevator *e, uint64_t sector);

	void (*stats_json)(const struct elevator *e, struct json_t *obj);

	/* ---- blk-mq schedulers (struct elevator_mq_ops, Linux 5.10-6.1) ----
	 * A scheduler with mq set is chosen only with block.kind: mq and uses
	 * these hooks instead of add_request/dispatch; merge, merged,
	 * merged_requests, former/latter_request, boost_lba, stats_json,
	 * set_request (prepare_request), put_request (finish_request) and
	 * completed_request keep their meaning. `none` is registered with mq
	 * set and no insert_requests: the queue then runs without a scheduler.
	 * Requests reach insert_requests with their hash and merge state
	 * handled by the core (blk_mq_sched_try_insert_merge and the rqhash
	 * add when use_hash is set, as dd_insert_request and bfq do). */
	bool mq;
	bool use_hash;        /* the core keeps the back-merge hash (dd, bfq); kyber, none: no */
	/* limit_depth: the shallow depth (sbitmap per-word limit) of the
	 * scheduler tags for a request of these flags; 0 = no limit. */
	uint32_t (*limit_depth)(struct elevator *e, uint32_t flags, const struct io_context *ioc);
	/* nr_requests (scheduler tags) set or changed; word_shift is the
	 * sbitmap's bits-per-word shift (sb.shift). */
	void (*depth_updated)(struct elevator *e, uint32_t nr_requests, uint32_t word_shift);
	/* bio_merge: a scheduler-specific merge before allocation (kyber's
	 * per-ctx lists); NULL = the core's elv_merge path (hash + merge). */
	bool (*bio_merge)(struct elevator *e, struct bio *bio, uint32_t ctx);
	/* Take the requests of list (unlinking each); at_head for requeues. */
	void (*insert_requests)(struct elevator *e, struct list_head *list, bool at_head);
	/* Pick the next request for the hardware queue or NULL (nothing, or
	 * throttled: the scheduler then reruns the queue itself later). */
	struct io_request *(*dispatch_request)(struct elevator *e);
	bool (*has_work)(struct elevator *e);
	/* A request handed out by dispatch_request came back (BLK_STS_RESOURCE
	 * path puts it on hctx->dispatch; only bookkeeping here). */
	void (*requeue_request)(struct elevator *e, struct io_request *rq);
};

struct elevator {
	const struct elevator_ops *ops;
	struct blk_queue *q;
	void *priv;
	uint64_t boost_hits, boost_misses;
};

const struct elevator_ops *elevator_find(const char *name);
const struct elevator_ops *const *elevator_registry(void);

/* blk-mq helpers the mq schedulers call (models/block/blk_mq.c). */
/* blk_bio_list_merge(): try bio against the last 8 requests of list
 * (a software queue or kyber's per-ctx list). True when merged. */
bool elv_mq_bio_list_merge(struct elevator *e, struct list_head *list, struct bio *bio);
/* Software queue (per-CPU ctx) a request was allocated on, and how many. */
uint32_t elv_mq_rq_ctx(const struct io_request *rq);
uint32_t elv_mq_nr_ctx(const struct elevator *e);
/* Run the hardware queue from an event at the current instant
 * (blk_mq_run_hw_queue(hctx, true)): a scheduler's timer or token wake. */
void elv_mq_run_queue_async(struct elevator *e);
/* Requests of this scheduler now at the device. */
uint32_t elv_mq_in_driver(const struct elevator *e);
/* The blk-mq version followed (block.kernel): 510 for 5.10, 601 for 6.1. */
int elv_mq_kernel(const struct elevator *e);
/* sbitmap_queue_min_shallow_depth() on the scheduler tags: the smallest
 * shallow depth limit_depth will hand out, so wake-ups come in batches
 * that such allocations can complete. */
void elv_mq_min_shallow_depth(struct elevator *e, uint32_t min_shallow);
/* Queue depth the device advertises (tag set depth). */
uint32_t elv_mq_hw_depth(const struct elevator *e);

/* Dispatch-list helpers the schedulers call (block/elevator.c). */
void elv_dispatch_add_tail(struct blk_queue *q, struct io_request *rq);
void elv_dispatch_sort(struct blk_queue *q, struct io_request *rq);

/* elv_rq_merge_ok(): may bio be merged into rq at all - the core's rules
 * (direction, flush/FUA, a request that hit a limit) plus allow_merge.
 * Schedulers call it from their merge hook (deadline_merge, cfq_merge). */
bool elv_rq_merge_ok(struct elevator *e, struct io_request *rq, struct bio *bio);

/* Sort-tree helpers keyed by start sector (block/elevator.c elv_rb_*):
 * equal keys go right, so insertion order breaks ties. */
void elv_rb_add(struct rb_root *root, struct io_request *rq);
void elv_rb_del(struct rb_root *root, struct io_request *rq);
struct io_request *elv_rb_find(const struct rb_root *root, uint64_t sector);
struct io_request *elv_rb_former_request(struct io_request *rq);
struct io_request *elv_rb_latter_request(struct io_request *rq);
/* The request of root whose range covers sector (the one starting at or
 * before it with the highest start), or NULL: a boost_lba look-up. */
struct io_request *elv_rb_cover(const struct rb_root *root, uint64_t sector);

/* rq takes no more merges (off the back-merge hash and the one-hit
 * cache), as a request the kernel inserts at the head of dispatch: what a
 * scheduler's boost_lba calls when it lifts rq out of its sort order. */
void elv_rq_no_merge(struct elevator *e, struct io_request *rq);

#endif
