/* The task/scheduler/CPU layer's interface, below mm and fs as kernel/sched
 * is below mm/ and fs/ in Linux: a task blocks, is woken, is delayed, runs
 * on a core (a burst or a non-preemptible section), charges its waits to
 * their causes, plugs and submits bios. Every layer above may call down into
 * it; it calls up only through the thread function each task was created with
 * and the per-task init of the layers above that the stack registers. task.c is the machinery, cpu.c the CPU model (CFS-like run
 * queue over the cores). The structures (struct stack_task, struct stack,
 * stack_file, stack_bio) are in models/sched/task.h.
 */
#ifndef MODELS_SCHED_H
#define MODELS_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/config.h"
#include "sim/list.h"
#include "sim/metrics.h"

struct stack;
struct stack_task;
struct stack_bio;
struct cfg_node;
struct sim_error;
struct json_t;

/* Result of a step that may block. */
enum step { STEP_DONE = 0, STEP_BLOCK = 1 };

enum task_state {
	TS_NEW = 0,
	TS_RUNNING,     /* executing inline (inside task_run) */
	TS_READY,       /* run event scheduled */
	TS_BLOCKED,     /* sleeping or delayed: a wake-up will come */
	TS_CPU,         /* on a core or in the run queue */
	TS_IDLE,        /* kernel thread with nothing to do / user task waiting for its source */
	TS_EXITED,
};

/* What a task runs when it resumes (its thread function, kthread_create's
 * threadfn), given by the layer that creates it; and the per-task set-up of
 * the layers above, which the stack registers in struct stack before it
 * creates a task. */
typedef void (*task_fn)(struct stack_task *t);

struct cpu_params {
	int64_t cores;
	int64_t latency_ns;        /* sysctl_sched_latency (unscaled) */
	int64_t min_gran_ns;       /* sysctl_sched_min_granularity (unscaled) */
	int64_t wakeup_gran_ns;    /* sysctl_sched_wakeup_granularity (unscaled) */
};

/* CPU energy (cpu_energy.c, docs/energy.md): two clusters; the model's
 * cores [0, big_cores) are the big cluster's, the rest the little one's. */
struct cpu_energy_params {
	int64_t big_cores;
	double big_active_mw, big_idle_mw;       /* per core */
	double little_active_mw, little_idle_mw; /* per core */
};

/* Whose work a core's busy time was: a foreground or background task's, or
 * the kernel's I/O completion path (interrupts, polling; stack_cpu_*). */
enum { CPU_BUSY_FG = 0, CPU_BUSY_BG, CPU_BUSY_KERNEL, CPU_BUSY_N };
#define CPU_NCLUSTERS 2

struct cpu_model {
	struct cpu_params p;
	struct cpu_energy_params ep;
	int64_t busy_by[CPU_BUSY_N][CPU_NCLUSTERS]; /* busy_ns split by whose and cluster */
	int64_t latency, min_gran, wakeup_gran; /* scaled by 1 + ilog2(min(cores, 8)) */
	int64_t half_latency;      /* latency / 2: place_entity's sleeper credit */
	int64_t min_vruntime;
	struct stack_task **core;  /* running task per core */
	uint32_t on_cores;         /* cores with a task (core[i] not NULL) */
	bool *held;                /* core taken by a polling I/O completion (stack_cpu_hold) */
	struct list_head runq;
	uint32_t nr_running;       /* on a core or queued */
	uint64_t bursts, queued, preemptions;
	int64_t busy_ns;
};

/* ---------------------------------------------- task.c: the machinery */

enum sim_class task_class(const struct stack_task *t);
/* A kernel thread named name (kthread_create(fn, data, name)): root, BE at
 * IOPRIO_NORM; resumed, it runs fn(t), and t->data is
 * data. A user task is made one with task_set_user. */
struct stack_task *task_new(struct stack *s, const char *name, task_fn fn, void *data);
/* Its I/O priority (IOPRIO_CLASS_NONE: BE at task_nice_ioprio(0) = 4). */
void task_set_ioprio(struct stack_task *t, uint8_t ioprio_class, uint8_t ioprio_level);
/* Make t an app's thread of uid (no longer a kernel thread; its kind
 * "user"), foreground when uid is the current fg_uid. */
void task_set_user(struct stack_task *t, uint32_t uid);
void task_free(struct stack_task *t);
/* Sleep until task_wake(); cause accounted from now until the wake. The
 * task's plug is flushed (schedule()). */
void task_block(struct stack_task *t, enum sim_wait cause);
/* A blocked task's wait goes on for another reason: book it so far under
 * its cause, from now under cause. */
void task_rebook_wait(struct stack_task *t, enum sim_wait cause);
/* Charge ns of wait to cause without blocking (one part of a compound delay). */
void task_charge(struct stack_task *t, enum sim_wait cause, int64_t ns);
/* Charge the wait from since_ns until now (it is over). */
void task_charge_since(struct stack_task *t, enum sim_wait cause, int64_t since_ns);
/* A state slice of t on the run's timeline (no-op without --timeline). */
void task_timeline_slice(struct stack_task *t, const char *cat, const char *name,
			 int64_t start_ns, int64_t ns);
/* The task's timeline track (pid, tid): apps under their process, kernel
 * threads together; named on first use. */
void task_track(struct stack_task *t, int64_t *pid, int64_t *tid);
/* Become runnable again (resume at the current instant, via an event). */
void task_wake(struct stack_task *t);
/* Blocked for wait_ns (accounted to cause) then busy_ns more (not a wait),
 * then resumes. sleeps: a real sleep (flush the plug). Returns STEP_DONE
 * when both are zero (nothing happens), else STEP_BLOCK. */
enum step task_delay(struct stack_task *t, int64_t wait_ns, enum sim_wait cause, int64_t busy_ns,
		     bool sleeps);
/* Submit a bio from task context: STEP_BLOCK if it had to sleep in get_request. */
enum step task_submit_bio(struct stack_task *t, struct stack_bio *sb);
void task_start_plug(struct stack_task *t);
void task_finish_plug(struct stack_task *t);
/* Resume the task now (from an event or a wake): runs its task_fn. */
void task_run(struct stack_task *t);

/* ------------------------------------------------------------ cpu.c */

int cpu_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
void cpu_free(struct stack *s);
/* Run ns on a core (FIFO run queue, round-robin quantum); the task is
 * resumed with task_run when done. Queueing time is SIM_WAIT_CPU. True
 * when the burst already ran to its end (nothing could happen before it):
 * the task is running again and the caller goes on instead. */
bool cpu_run(struct stack_task *t, int64_t ns);
/* Run a section on a core: when t takes one, on_core(t, now) does its lock
 * acquisitions, charges its waits and returns its length; it is never
 * preempted (spinlocks disable preemption). may_inline: as cpu_run's
 * return, for a caller that can go on by itself (true: the section ran). */
bool cpu_run_section(struct stack_task *t, int64_t (*on_core)(struct stack_task *t, int64_t now),
		     bool may_inline);
/* Run accumulated cpu_debt (its lock spins charged as waits first):
 * STEP_DONE if none, or when the burst ran to its end at once (cpu_run). */
enum step task_pay_cpu(struct stack_task *t);
/* A run of debts that t pays one after another while nothing else
 * happens in the model (the write loop's pages, models/stack/ops.c):
 * each takes task_pay_cpu's one-function path (no lock spin, no section,
 * no --timeline, nobody queued, a free core, one slice, the clock's fast
 * advance), alone on the cores or beside tasks that keep running on
 * theirs, as long as the clock stays at or before last_at. */
struct cpu_pay_run {
	int64_t last_at;     /* the latest instant a debt may end at */
	int64_t slice_max;   /* the longest debt one slice takes */
	/* the tasks on cores: the least vruntime - slice_start (their
	 * vruntimes at now are it + now, cpu_update_min); INT64_MAX alone */
	int64_t rel_min;
	int64_t half_latency;
	int64_t vruntime, min_vruntime; /* t's and the model's, as they go */
	uint32_t n;          /* debts paid */
	int64_t sum_ns;
};
/* Whether the path applies to t now; r set for the run. */
bool cpu_pay_run_open(struct stack_task *t, struct cpu_pay_run *r);
/* Pay ns (> 0, at most slice_max, now + ns at most last_at) at now:
 * cpu_update_min (with tasks on cores), cpu_place, then cpu_paid's
 * vruntime and min_vruntime. */
static inline __attribute__((always_inline)) void cpu_pay_run_add(struct cpu_pay_run *r, int64_t now,
								   int64_t ns)
{
	if (r->rel_min == INT64_MAX) {
		if (r->vruntime < r->min_vruntime - r->half_latency)
			r->vruntime = r->min_vruntime - r->half_latency;
		r->vruntime += ns;
	} else {
		int64_t m = r->rel_min + now;
		if (m > r->min_vruntime)
			r->min_vruntime = m;
		if (r->vruntime < r->min_vruntime - r->half_latency)
			r->vruntime = r->min_vruntime - r->half_latency;
		r->vruntime += ns;
		if (m + ns > r->min_vruntime)
			r->min_vruntime = m + ns;
	}
	r->n++;
	r->sum_ns += ns;
}
/* The changes of r's debts, the clock moved to now_ns, exactly as
 * r->n calls of task_pay_cpu make them (none when r->n is 0). */
void cpu_pay_run_close(struct stack_task *t, const struct cpu_pay_run *r, int64_t now_ns);
/* Core of a task that finished a burst (from the burst's event). */
void cpu_burst_event(struct stack_task *t);
struct json_t *cpu_to_json(const struct cpu_model *c);

/* ------------------------------------------------------ cpu_energy.c */

extern const struct cfg_param cpu_energy_params_table[];
/* Parameters from the cpu map's `energy:` map (NULL: defaults). */
int cpu_energy_init(struct cpu_model *c, struct cfg_node *node, struct sim_error *err);
/* The cluster of core i: 0 big, 1 little. */
static inline int cpu_energy_cluster(const struct cpu_model *c, int core)
{
	return core >= c->ep.big_cores;
}
/* Energy from t = 0 until now (J): busy core time at each cluster's active
 * power (the slices running at now included up to now), the rest of every
 * core's time at its idle power. */
struct cpu_energy_total {
	double active_j, idle_j;
	double by_who_j[CPU_BUSY_N];
	double cluster_active_j[CPU_NCLUSTERS], cluster_idle_j[CPU_NCLUSTERS];
	int64_t cluster_busy_ns[CPU_NCLUSTERS];
};
void cpu_energy_at(const struct cpu_model *c, int64_t now, struct cpu_energy_total *t);
/* The "cpu" part of the result's "energy" object. */
struct json_t *cpu_energy_json(const struct cpu_model *c, int64_t now);
extern const struct cfg_param cpu_params_table[];
/* The CPU model as struct sim's cpu_ops (ctx: the stack). */
extern const struct sim_cpu_ops stack_cpu_ops;

/* CPU time of the I/O completion path (models/completion/completion.c, which
 * reaches these through struct sim's cpu_ops, registered by stack_create), so
 * that it competes with the tasks' computation. stack_cpu_hold() takes a free
 * core for a task that busy-polls for its I/O (no task is dispatched to
 * it until stack_cpu_release); returns the core, or -1 when every core is
 * running a task (the caller then only charges the time). release gives
 * the core back, counts busy_ns as CPU busy time and lets a queued task
 * run. stack_cpu_charge() counts short work (interrupt handlers, context
 * switches) as busy time without taking a core. */
int stack_cpu_hold(struct stack *s);
void stack_cpu_release(struct stack *s, int core, int64_t busy_ns);
void stack_cpu_charge(struct stack *s, int64_t ns);
uint32_t stack_cpu_cores(const struct stack *s);

#endif
