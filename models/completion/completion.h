/* Host-side I/O completion path (docs/papers.md §4, docs/references.md §4.6):
 * how the task that waits for an I/O learns that the device has finished -
 * by interrupt, by polling, or by sleeping for a predicted time and then
 * polling - and what that costs in latency and in CPU time.
 *
 * Where it sits (docs/architecture.md): between the device and whatever set
 * dev->on_complete (the block layer, or a source talking to the device
 * directly). device_submit() tells the completion path that an I/O left the
 * host (completion_submit), device_complete() hands it the finished command
 * (completion_device_done) instead of calling upward, and the path calls
 * dev->on_complete(dev->upper, rq) at the instant the waiting task resumes.
 * So everything above - bio end_io, page unlock, task wake-up, the next
 * dispatch - happens at the time the application would see the
 * completion; the device's own figures (busy time, D2C) are unchanged.
 * With no `completion:` key (or `completion: none`) nothing is attached
 * and runs are byte-identical to a build without this module.
 *
 * A model only chooses, per I/O at submit, one of four plans and learns
 * the outcome when the task resumes; the core executes the plan, charges
 * CPU (a spinning task holds a core of the stack's CPU model, so it
 * competes with tasks' computation) and keeps the statistics.
 */
#ifndef MODELS_COMPLETION_H
#define MODELS_COMPLETION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/block/request.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/stats.h"

struct sim;
struct device;
struct completion;
struct json_t;

enum cpl_plan_kind {
	CPL_PLAN_IRQ = 0,    /* sleep; the device interrupt wakes the task */
	CPL_PLAN_POLL,       /* spin on a core from submit until completion */
	CPL_PLAN_SLEEP_POLL, /* hrtimer sleep of sleep_ns, then spin (interrupt masked) */
	CPL_PLAN_TIMER_IRQ,  /* timer at sleep_ns and interrupt armed: first one wakes */
	CPL_NPLAN
};

extern const char *const cpl_plan_names[CPL_NPLAN];

struct cpl_plan {
	enum cpl_plan_kind kind;
	int64_t sleep_ns;    /* SLEEP_POLL, TIMER_IRQ: timer delay from submit */
};

/* What happened to one I/O, given to the model when the task resumes. */
struct cpl_outcome {
	struct cpl_plan plan;
	uint32_t qd;         /* commands at the device when it was submitted, itself included */
	bool write;          /* the request's direction */
	uint32_t stream;     /* submitter's slot, cpl_stream_of() */
	int64_t device_ns;   /* submit -> device completion */
	int64_t latency_ns;  /* submit -> task resumes (what the application sees) */
	int64_t spin_ns;     /* busy-polling time */
	int64_t cpu_ns;      /* spin + interrupt/timer handlers + context switches */
	bool polled;         /* completion found by polling (not by the interrupt) */
	/* SLEEP_POLL / TIMER_IRQ: the device finished after the task was awake
	 * and polling (UNDER: woke early and spun); else OVER (overslept, or
	 * the interrupt came first). */
	bool under;
};

struct completion_ops {
	const char *name;
	const char *summary;
	/* Tunables of the model, applied to a zeroed priv of priv_size bytes. */
	const struct cfg_param *params;
	size_t priv_size;
	/* Derive state after the tunables are set. May be NULL. */
	int (*init)(struct completion *c, struct sim_error *err);
	/* Choose how the I/O rq (qd commands now at the device) is waited for. */
	struct cpl_plan (*plan)(struct completion *c, const struct io_request *rq, uint32_t qd);
	/* The task resumed; learn from it. May be NULL. */
	void (*done)(struct completion *c, const struct cpl_outcome *o);
	/* Current mode for reporting (DPAS); NULL: the model's name. */
	const char *(*mode_name)(const struct completion *c);
	/* Model figures for the result's "completion" object. May be NULL. */
	void (*stats_json)(const struct completion *c, struct json_t *obj);
};

/* Costs of the host path shared by every model (the `completion:` map). */
struct cpl_costs {
	int64_t irq_ns;          /* device interrupt handler + request completion (CPU) */
	int64_t ctxsw_ns;        /* one context switch (CPU); a sleep/wake cycle costs two */
	int64_t wakeup_ns;       /* wake_up -> the woken task runs (latency, core idle) */
	int64_t timer_ns;        /* hrtimer expiry interrupt (CPU and latency) */
	int64_t timer_slack_ns;  /* added to every hrtimer expiry */
	int64_t poll_check_ns;   /* one completion-queue check while spinning */
	int64_t cores;           /* cores for the CPU figures when there is no stack */
	int paths;               /* enum cpl_paths: which I/O paths the model may poll */
};

/* Which paths' I/Os the model plans (`completion.paths`); the others sleep
 * for the device interrupt, as the kernel completes a bio without
 * REQ_HIPRI (5.15 blk_mq_poll only polls HIPRI requests on poll queues).
 * A request's path is its bio's REQ_DIRECT / REQ_PAGECACHE / REQ_PCREAD /
 * REQ_MMAP (models/block/request.h); a request with none of them comes
 * from no page cache (block-trace replay, the Poisson source: raw block
 * I/O, what fio issues to a device with direct=1) and is on the direct
 * path. HotStorage'24 (docs/papers.md §4) extends polling from direct
 * I/O to buffered readahead and then to mmap read-around. */
enum cpl_paths {
	CPL_PATHS_DIRECT = 0,       /* stock 5.15: O_DIRECT (with RWF_HIPRI / io_uring IOPOLL) */
	CPL_PATHS_DIRECT_RA,        /* + buffered reads and readahead of user tasks */
	CPL_PATHS_DIRECT_RA_MMAP,   /* + page-fault read-around */
	CPL_PATHS_ALL,              /* every I/O, writeback, journal and metadata too (no kernel does
				     * this; mobisim's behaviour before the key existed) */
};
/* Whether the model plans rq (else the interrupt path). */
bool completion_path_polled(int paths, uint32_t rq_flags);

struct cpl_stats {
	uint64_t ios;
	uint64_t plans[CPL_NPLAN];
	uint64_t polled, under, over;
	uint64_t path_irq;           /* I/Os on a path `paths` does not poll: interrupt, model not asked */
	struct stats_dist latency;   /* submit -> task resumes */
	struct stats_dist device;    /* submit -> device completion */
	struct stats_dist overhead;  /* latency - device */
	struct stats_dist cpu;       /* CPU ns per I/O */
	struct stats_dist sleep;     /* planned sleep of SLEEP_POLL / TIMER_IRQ I/Os */
	int64_t spin_ns, irq_ns, ctxsw_ns, timer_ns; /* CPU totals by kind */
	uint64_t spin_no_core;       /* spins that found every core busy */
	uint32_t held, max_held;     /* cores held by spinning tasks now / at most */
};

struct completion {
	const struct completion_ops *ops;
	struct sim *sim;
	struct device *dev;
	void *priv;
	struct cpl_costs costs;
	struct cpl_stats st;
	/* per-I/O state, from a free list (bounded by the commands in flight) */
	struct cpl_io *free, *all;
	uint64_t live;
};

/* Predictors are kept per submitter, as the kernel keeps them per CPU
 * (one polling task per core): the slot of a request's submitter (pid of
 * its io_context modulo CPL_STREAMS; 0 without one). */
#define CPL_STREAMS 16
static inline uint32_t cpl_stream_of(const struct io_request *rq)
{
	return rq->ioc ? (uint32_t)rq->ioc->pid % CPL_STREAMS : 0;
}

/* Registry: one table, in the order `mobisim list completions` prints. */
const struct completion_ops *completion_find(const char *name);
const struct completion_ops *const *completion_registry(void);
/* The shared cost tunables (for `mobisim list completions`). */
const struct cfg_param *completion_cost_params(void);

/* Build the model named by node - a scalar (`completion: pas`) or a map
 * with `model:` and the model's and the shared tunables - and attach it to
 * dev. `none` attaches nothing (*out = NULL). Returns 0 or SIM_E_INPUT
 * naming the node. The device owns the result (device_destroy frees it). */
int completion_attach(struct sim *sim, struct device *dev, struct cfg_node *node,
		      struct completion **out, struct sim_error *err);
void completion_destroy(struct completion *c);

/* Called by the device core: rq has been handed to the device model. */
void completion_submit(struct completion *c, struct io_request *rq);
/* Called by the device core when the model finished rq (C stamped,
 * counters done): the path calls dev->on_complete when the task resumes. */
void completion_device_done(struct completion *c, struct io_request *rq);

const struct cpl_stats *completion_stats(const struct completion *c);
const char *completion_mode_name(const struct completion *c);
/* The result's "completion" object. Caller owns. */
struct json_t *completion_to_json(const struct completion *c);

#endif
