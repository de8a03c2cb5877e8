/* Block layer: request queue, per-task plugging, merging, request limits
 * (Linux 3.10-4.4 block/blk-core.c, blk-merge.c, elevator.c).
 *
 * Life of a bio: blk_submit_bio() stamps Q; tries a merge into the task's
 * plug list (blk_attempt_plug_merge), then into the scheduler (back-merge
 * hash, elevator merge hook); otherwise get_request allocates a request
 * (G) - or, when nr_requests of that direction class (sync/async) are in
 * use, parks the bio and reports BLK_SUBMIT_SLEEP: the submitter must
 * sleep until its waiter's wake() is called (wait cause get_request). A
 * new request goes to the plug list (flushed at BLK_MAX_REQUEST_COUNT = 16,
 * when the task sleeps, and at blk_finish_plug) or straight to the
 * scheduler (I). Dispatch (D) and completion (C) follow; at completion
 * every bio's end_io runs.
 */
#ifndef MODELS_BLOCK_H
#define MODELS_BLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "models/device/device.h"
#include "models/block/elevator.h"
#include "models/block/request.h"
#include "sim/config.h"
#include "sim/error.h"

struct sim;
struct blk_queue;
struct json_t;

struct blk_plug {
	struct list_head list;   /* requests, in submission order */
	uint32_t count;
	struct io_context *ioc;
	bool active;
};

/* A submitter that may have to sleep in get_request. */
struct blk_waiter {
	void (*wake)(struct sim *sim, struct blk_waiter *w);
	struct list_head node;
	struct bio *bio;         /* the parked bio, submitted when woken */
	struct blk_plug *plug;
	int64_t since;
	/* The submitter records the sleep as SIM_WAIT_GET_REQUEST itself (the
	 * task model does, per task); when false the block layer records it
	 * in sim->metrics for the bio's class (REQ_FG or ioc->fg). */
	bool accounts_wait;
};

enum blk_submit_result {
	BLK_SUBMIT_DONE = 0,     /* queued, merged or plugged; the caller goes on */
	BLK_SUBMIT_SLEEP = 1,    /* no free request: caller sleeps until w->wake */
};

/* Trace point emitted for every btt-visible event, for --trace-out and
 * trace tests. action is blkparse's letter: Q G I D C M F P U S(sleeprq). */
struct blk_trace_event {
	int64_t time_ns;
	char action;
	uint64_t sector;
	uint32_t nr_sectors;
	uint32_t flags;          /* enum req_flag */
	int32_t pid;
	const char *comm;
	uint32_t depth;          /* U: requests unplugged */
	int error;
};

struct blk_trace_sink {
	void (*event)(void *ctx, const struct blk_trace_event *ev);
	void *ctx;
};

/* Build a queue over dev with the scheduler named sched; block_cfg is the
 * scenario's `block:` map (limits), sched_cfg the scheduler's section
 * (`cfq:`, `deadline:`); either may be NULL for defaults. */
int blk_queue_create(struct sim *sim, struct device *dev, struct cfg_node *block_cfg,
		     const char *sched, struct cfg_node *sched_cfg, struct blk_queue **out,
		     struct sim_error *err);
/* As blk_queue_create with the scheduler given by its ops table (tests,
 * plugins). */
int blk_queue_create_ops(struct sim *sim, struct device *dev, struct cfg_node *block_cfg,
			 const struct elevator_ops *ops, struct cfg_node *sched_cfg,
			 struct blk_queue **out, struct sim_error *err);
void blk_queue_destroy(struct blk_queue *q);
/* q serves a VM host's stack under a guest's virtual disk
 * (models/virt/virtio_blk.c): its btt stays out of the run's metrics. */
void blk_queue_set_nested(struct blk_queue *q);
/* The `block:` tunables (for `mobisim list` and --help). */
const struct cfg_param *blk_queue_params(void);

void blk_start_plug(struct blk_plug *plug, struct io_context *ioc);
/* Explicit unplug: flush the plug to the scheduler and run the queue. */
void blk_finish_plug(struct blk_queue *q, struct blk_plug *plug);
/* The owner task is going to sleep (schedule() -> blk_schedule_flush_plug). */
void blk_flush_plug_on_sleep(struct blk_queue *q, struct blk_plug *plug);

/* plug may be NULL (no plugging); w may be NULL only for callers that can
 * never sleep (then a full queue still parks the bio and it is submitted
 * when a request frees up). */
enum blk_submit_result blk_submit_bio(struct blk_queue *q, struct blk_plug *plug,
				      struct bio *bio, struct blk_waiter *w);

/* Let the scheduler dispatch and feed the device while it accepts. */
void blk_run_queue(struct blk_queue *q);

/* Policy hook (thesis elv_boost_lba): lift the request covering sector;
 * true when something was done. Single queue: the elevator's boost_lba,
 * as in the thesis. blk-mq: wherever the request is (blk_mq_boost_lba,
 * models/block/blk_mq.c): a plugged one is marked and lifted by the
 * scheduler when the plug is flushed, a queued one by the scheduler's
 * boost_lba (or, with none, moved from its software queue), one on
 * hctx->dispatch to its head; one at the device is a miss. Counts hits
 * and misses. */
bool blk_boost_lba(struct blk_queue *q, uint64_t sector);

/* Where the I/O covering sector is now, for a policy that wants to say
 * why a boost missed. */
enum blk_where {
	BLK_WHERE_NONE = 0,      /* no request or parked bio covers it */
	BLK_WHERE_WAITING,       /* its bio sleeps in get_request (no request yet) */
	BLK_WHERE_PLUGGED,       /* allocated, on a plug list (or not yet inserted) */
	BLK_WHERE_SCHEDULER,     /* queued inside the elevator */
	BLK_WHERE_DISPATCHED,    /* on the dispatch list (sq queue_head, mq hctx->dispatch) */
	BLK_WHERE_DEVICE,        /* handed to the device */
};
/* Scans the live requests (bounded by the request pool) and the
 * get_request sleepers: O(outstanding); meant for the rare miss path. */
enum blk_where blk_locate_sector(const struct blk_queue *q, uint64_t sector);

/* Trace points go to every sink added (--trace-out, --timeline, the launch
 * recorder ...), in the order they were added. Add: 0, or -1 when
 * BLK_MAX_TRACE_SINKS are in place. Remove: the sink whose ctx is ctx. */
#define BLK_MAX_TRACE_SINKS 8
int blk_add_trace_sink(struct blk_queue *q, const struct blk_trace_sink *sink);
void blk_remove_trace_sink(struct blk_queue *q, const void *ctx);
/* Make sink the only one (NULL: none); for tests that watch one queue. */
void blk_set_trace_sink(struct blk_queue *q, const struct blk_trace_sink *sink);

/* An issue gate (a policy's preemption at the device queue): asked for
 * the request at the head of the dispatch list before it goes to the
 * device. 0 lets it go; -1 holds it (and the list behind it) until a
 * request completes; a time > now holds it until then (the queue is run
 * again at that time). Single queue only: on blk-mq SIM_E_INPUT. fn NULL
 * removes the gate. */
typedef int64_t (*blk_issue_gate_fn)(void *ctx, const struct blk_queue *q,
				     const struct io_request *rq);
int blk_set_issue_gate(struct blk_queue *q, blk_issue_gate_fn fn, void *ctx);
/* REQ_FG requests at the device now (single queue), and the gate's holds. */
uint32_t blk_queue_fg_in_flight(const struct blk_queue *q);
uint64_t blk_queue_gate_holds(const struct blk_queue *q);
/* When the last REQ_FG request completed (single queue), INT64_MIN never. */
int64_t blk_queue_last_fg_done(const struct blk_queue *q);
struct sim *blk_queue_sim(const struct blk_queue *q);
struct elevator *blk_queue_elevator(const struct blk_queue *q);
struct device *blk_queue_device(const struct blk_queue *q);
/* Requests allocated and not yet completed (conservation check at the end). */
uint64_t blk_queue_outstanding(const struct blk_queue *q);
/* Is the sync (or async) request list congested (blk_set_queue_congested:
 * on at nr_requests - nr/8 + 1 allocated, off below nr - nr/8 - nr/16 - 1)?
 * Writeback asks this as bdi_write_congested. */
bool blk_queue_congested(const struct blk_queue *q, bool sync);
/* Requests at the device, by sync class (the kernel's q->in_flight[]). */
uint32_t blk_queue_in_flight(const struct blk_queue *q, bool sync);
/* Request and bio conservation: allocated = freed + counted in the
 * request lists, no bio ended twice; with drained, also nothing left
 * anywhere (requests, bios, sleepers, scheduler). 0 or SIM_E_RUNTIME. */
int blk_queue_check(const struct blk_queue *q, bool drained, struct sim_error *err);

/* Limits and counters for the result JSON. */
struct json_t *blk_queue_to_json(const struct blk_queue *q);

/* ------------------------------------------------------------ bio pool */

/* Slab pool of objects that embed a struct bio, for the layers that submit
 * bios (bio_alloc from a bio_set, block/bio.c): slabs of per_slab objects,
 * never returned before bio_pool_destroy; a freed object is reused first.
 * An object comes back zeroed, as bio_init leaves a bio: the submitter sets
 * its bio's end_io and private (bi_end_io, bi_private), so the completion
 * returns to the layer that built it. The free list is chained through the
 * pointer at link_off of each object. */
struct bio_pool {
	size_t size, link_off;
	uint32_t per_slab;
	void *free;
	void **slabs;
	uint32_t nslabs;
	uint64_t live;
};

void bio_pool_init(struct bio_pool *p, size_t size, size_t link_off, uint32_t per_slab);
/* NULL when out of memory. */
void *bio_pool_alloc(struct bio_pool *p);
void bio_pool_free(struct bio_pool *p, void *obj);
void bio_pool_destroy(struct bio_pool *p);

#endif
