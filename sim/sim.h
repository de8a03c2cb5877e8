/* The simulator object: everything a run owns hangs off one struct sim
 * (docs/architecture.md §6), so tests and sweeps can build many in one process.
 *
 * Layers are created by sim_create() from a scenario document
 * (sim/scenario.c): device, then block queue (unless the workload feeds the
 * device directly), then the upper stack and policies, then the workload.
 * Models schedule events on sim->engine and report into sim->metrics.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/config.h"
#include "sim/engine.h"
#include "sim/error.h"
#include "sim/metrics.h"
#include "sim/rng.h"

struct device;
struct blk_queue;
struct stack;
struct policy_set;
struct workload;
struct sim_trace_out;
struct sim_timeline;
struct sim_timeline_out;
struct io_request;
struct json_t;

/* The seed's range, for `seed:` and --seed alike: below 2^63 so that the
 * result's JSON integer (int64) records it exactly; larger seeds are
 * refused rather than recorded lossily. */
#define SIM_SEED_MAX UINT64_C(9200000000000000000)

/* Parse a --seed value like `seed:` (decimal or 0x hex integer in
 * 0..SIM_SEED_MAX). SIM_E_INPUT with a one-line message otherwise. */
int sim_seed_parse(const char *text, uint64_t *out, struct sim_error *err);

struct sim_options {
	uint64_t seed;              /* used when the scenario has no `seed:` or --seed given */
	bool seed_given;            /* --seed overrides the scenario's */
	bool quiet;
	/* --lenient: what a workload would refuse as unanswerable (a replay
	 * classifying by process a trace that records none) is a warning
	 * counted in the result instead */
	bool lenient;
	const char *const *plugins; /* --plugin paths, NULL-terminated, may be NULL */
};

/* A CPU model that host-side work competes with for cores (a polling
 * completion spins on one, interrupt handlers take time), registered at
 * set-up by the layer that owns it (the upper stack's CPU model, models/sched/cpu.c),
 * so that the completion path below calls it without naming that layer.
 * hold: a free core or -1; release: give it back, busy_ns counted busy;
 * charge: busy time without a core; cores: how many. */
struct sim_cpu_ops {
	int (*hold)(void *ctx);
	void (*release)(void *ctx, int core, int64_t busy_ns);
	void (*charge)(void *ctx, int64_t ns);
	uint32_t (*cores)(const void *ctx);
};

/* One wait of a task or of a replayed process: [start_ns, start_ns + ns)
 * charged to cause. pid is the process (tgid), tid the thread; kernel:
 * a kernel thread, whose waits stay out of the fg/bg metrics. */
struct sim_wait_rec {
	const char *task;
	int32_t pid, tid;
	enum sim_class cls;
	bool kernel;
	enum sim_wait cause;
	int64_t start_ns, ns;
};

/* Row observers the program attaches for its per-request outputs (--db,
 * --requests-csv: sim/cli/rows_out.c). Called from inside the models, in
 * simulated-time order: request_done when the device has served rq (its
 * C stamped; device_finish), task_wait for every wait charged. They must
 * not change the run; either may be NULL. sim->observer NULL: none, and a
 * run pays one pointer test per request and per wait. */
struct sim_observer {
	void (*request_done)(void *ctx, const struct io_request *rq);
	void (*task_wait)(void *ctx, const struct sim_wait_rec *w);
	void *ctx;
};

struct sim {
	struct sim_engine engine;
	struct sim_rng_set *rng;
	uint64_t seed;
	struct sim_metrics metrics;
	struct cfg_doc *doc;        /* the resolved scenario; owned */
	struct cfg_doc *device_doc; /* preset loaded for `device: NAME`; owned */
	const char *scenario_path;

	struct device *device;
	struct blk_queue *blk;      /* NULL when the workload talks to the device directly */
	struct stack *stack;        /* tasks, page cache, writeback, fs; NULL when unused */
	const struct sim_cpu_ops *cpu_ops; /* the registered CPU model, NULL when none */
	void *cpu_ctx;
	struct policy_set *policies;
	struct workload *workload;
	const char *replay;         /* "closed", "open" or "synthetic" */
	bool lenient;               /* sim_options.lenient */

	int64_t until_ns;           /* run.until: stop the clock here (SIM_TIME_MAX) */
	bool stop_fg_done;          /* run.stop: fg_done: end when the FG tasks have finished */
	/* Output adapters the program attaches after sim_create and finishes
	 * or frees before sim_destroy (sim/cli/trace_out.h, timeline_out.h). */
	struct sim_trace_out *trace_out; /* --trace-out writer, or NULL */
	struct sim_timeline *timeline;   /* --timeline recorder the models feed, or NULL */
	struct sim_timeline_out *timeline_out; /* its file and block-layer tracks */
	const struct sim_observer *observer;   /* per-row outputs, or NULL */

	/* A failure detected inside an event handler: the run stops and
	 * sim_run() returns it. */
	struct sim_error fail;
	bool failed;
	double wall_s;              /* wall-clock time of sim_run, for the result only */

	/* Called by sim_run between slices of simulated time (about every
	 * millisecond of it); the program's progress line. NULL: none. */
	void (*on_progress)(struct sim *s, void *ctx);
	void *progress_ctx;
	const char *end_reason;     /* "done", "fg_done", "until", "max_events" (engine.end) */

	/* Fork at a phase (sim/cli/sweep_fork.c): sim_run pauses before any
	 * event of time pause_ns fires and calls on_pause, which may release
	 * held starts (sim_at_reserved), fork, and set the next pause_ns
	 * (SIM_TIME_MAX: none); false from on_pause ends sim_run there
	 * (end_reason "paused"). The pause is taken as an event of that time
	 * for the slicing below, as the held start is one in a run from t = 0. */
	int64_t pause_ns;
	bool (*on_pause)(struct sim *s, void *ctx);
	/* Called from inside an event when the model would move the clock
	 * inline (sim_engine_advance) to when >= pause_ns: true lets it (it
	 * may fork first, and move pause_ns past when), false refuses, as a
	 * pending held start would. */
	bool (*on_cross)(struct sim *s, void *ctx, int64_t when);
	void *pause_ctx;
	bool halted;                /* sim_halt: sim_run returns 0, end_reason "paused" */
	bool at_reserved;           /* the next sim_at takes reserved_seq */
	uint64_t reserved_seq;
	uint32_t reserved_used;     /* sim_at calls that took it */
	double run_t0;              /* host clock at sim_run's start (a fork child resets it) */
	struct cfg_doc *prefix_doc; /* a fork child's first doc, which models still point into */
};

static inline int64_t sim_now(const struct sim *s) { return s->engine.now; }

/* Schedule ev at absolute time / after a delay. Heap growth failure marks
 * the run failed (checked after every event batch). */
void sim_at(struct sim *s, struct sim_event *ev, int64_t when);
void sim_after(struct sim *s, struct sim_event *ev, int64_t delay_ns);
static inline void sim_cancel(struct sim *s, struct sim_event *ev)
{
	sim_engine_cancel(&s->engine, ev);
}

/* Take the event sequence number the next sim_at would use, for an event
 * held back now and scheduled later with sim_at_reserved (engine.h). */
static inline uint64_t sim_reserve_seq(struct sim *s) { return sim_engine_reserve_seq(&s->engine); }
/* The next sim_at (made by a model's own start path) takes seq instead of
 * a new number: it sorts at its time as if scheduled when seq was reserved. */
static inline void sim_at_reserved(struct sim *s, uint64_t seq)
{
	s->at_reserved = true;
	s->reserved_seq = seq;
}

/* End sim_run after the current event, as finished (fork at a phase: a
 * master whose last point has forked). */
static inline void sim_halt(struct sim *s)
{
	s->halted = true;
	sim_engine_stop(&s->engine);
}

/* A workload calls this whenever it may have finished (a task exited, the
 * last request completed): once its done() is true the run stops, even if
 * periodic kernel work (flusher, journal timer) still has events pending.
 * Cheap: it only calls done(). */
void sim_workload_progress(struct sim *s);
/* The workload has finished (done(), or fg_done() under run.stop: fg_done). */
bool sim_workload_done(struct sim *s);

static inline void sim_observe_wait(struct sim *s, const struct sim_wait_rec *w)
{
	if (s->observer && s->observer->task_wait)
		s->observer->task_wait(s->observer->ctx, w);
}

/* Record a runtime failure from inside the model; stops the run. */
void sim_fail(struct sim *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A random stream for consumer name (see rng.h). Never NULL: allocation
 * failure aborts, as nothing sensible can follow. */
gsl_rng *sim_rng(struct sim *s, const char *name);
/* The stream name as a run with seed `seed` would have it, whatever this
 * run's seed (a phone's files and apps stay the same from run to run);
 * seed 0 is sim_rng's. *own gets the set to free with sim_rng_set_free
 * (NULL for the run's). NULL only on allocation failure. */
gsl_rng *sim_rng_fixed(struct sim *s, int64_t seed, const char *name, struct sim_rng_set **own);

/* A simulator with engine, rng streams and metrics but no layers, for unit
 * tests and tools (device curve, calibrate) that assemble models by hand.
 * NULL on allocation failure. Free with sim_destroy. */
struct sim *sim_new_bare(uint64_t seed);

/* Build a simulator from a scenario document; takes ownership of doc
 * (freed by sim_destroy, also on failure). */
int sim_create(struct cfg_doc *doc, const char *scenario_path, const struct sim_options *opt,
	       struct sim **out, struct sim_error *err);
/* Run to completion (workload done and queues drained) or run.until. */
int sim_run(struct sim *s, struct sim_error *err);
/* The docs/architecture.md §5 result document. Caller owns. */
struct json_t *sim_result_json(struct sim *s);
void sim_destroy(struct sim *s);

/* The data directory, laid out like the source tree: configs/ (device
 * presets, scenarios, validation files), traces/samples/ and the ftrace
 * sample under tests/data/ (which the scenarios replay), scripts/ (figures).
 * $MOBISIM_DATADIR, else PREFIX/share/mobisim beside an installed
 * PREFIX/bin/mobisim, else the source tree this binary was built from, else
 * the configured install prefix's. */
const char *sim_datadir(void);

/* `git describe --always --dirty` of the tree this binary was built from,
 * "unknown" without git (sim/revision.c). */
const char *sim_git_revision(void);

#endif
