/* CPU: N identical cores with a CFS-like scheduler of equal-weight tasks
 * (Linux 3.10 kernel/sched/fair.c, much reduced), so that an app's
 * computation overlaps its own and other tasks' I/O as on a phone, and
 * runnable-but-waiting time is visible (SIM_WAIT_CPU).
 *
 * Chosen over a FIFO run queue because FIFO with a quantum lets a CPU hog
 * delay every wake-up of an I/O-bound task by a whole quantum, which CFS
 * avoids: each task has a virtual runtime (ns it ran; all weights equal,
 * i.e. nice 0); the queued task with the smallest one runs next; a task
 * waking from sleep is placed at max(its vruntime, min_vruntime -
 * latency/2) (place_entity's sleeper credit) and preempts the running
 * task whose vruntime exceeds its own by more than wakeup_granularity
 * (check_preempt_wakeup); a running task's slice is latency/nr_running,
 * at least min_granularity, after which it yields to a smaller vruntime.
 * The three tunables are scaled like the kernel's default
 * (SCHED_TUNABLESCALING_LOG): x (1 + ilog2(min(cores, 8))).
 * Left out: nice weights, cgroups, big.LITTLE speed differences, load
 * balancing and migration costs (a task takes any free core), frequency
 * scaling, and the CPU time of kernel threads (flusher, jbd2, kswapd),
 * which run off the model's cores. Page-cache work (copying, reclaim) is
 * charged as CPU time of the task doing it; spinning on the page-cache
 * lock is not charged to a core.
 */
#include <stddef.h>
#include <stdlib.h>

#include <jansson.h>

#include "models/sched/sched.h"
#include "models/sched/task.h"
#include "sim/assert.h"
#include "sim/sim.h"

const struct cfg_param cpu_params_table[] = {
	{ "cores", CFG_T_INT, offsetof(struct cpu_params, cores), "", "8", 1, 1024,
	  "Galaxy S6 Exynos 7420: 4x Cortex-A57 + 4x Cortex-A53 (Samsung spec sheet)",
	  "cores that run tasks", NULL },
	{ "sched_latency_us", CFG_T_TIME, offsetof(struct cpu_params, latency_ns), "us", "6000", 10,
	  1e7, "kernel/sched/fair.c sysctl_sched_latency = 6 ms (before log scaling)",
	  "targeted preemption latency", NULL },
	{ "min_granularity_us", CFG_T_TIME, offsetof(struct cpu_params, min_gran_ns), "us", "750", 1,
	  1e7, "kernel/sched/fair.c sysctl_sched_min_granularity = 0.75 ms (before scaling)",
	  "shortest slice", NULL },
	{ "wakeup_granularity_us", CFG_T_TIME, offsetof(struct cpu_params, wakeup_gran_ns), "us",
	  "1000", 0, 1e7, "kernel/sched/fair.c sysctl_sched_wakeup_granularity = 1 ms (before scaling)",
	  "vruntime lead a waking task needs to preempt", NULL },
	CFG_PARAM_END,
};

static void cpu_event(struct sim *sim, struct sim_event *ev);

/* Busy time: the total, and for the energy model (cpu_energy.c) by whose
 * work it was and by the cluster of the core it ran on. */
static inline __attribute__((always_inline)) void cpu_account(struct cpu_model *c, int core,
								int who, int64_t ns)
{
	c->busy_ns += ns;
	c->busy_by[who][cpu_energy_cluster(c, core)] += ns;
}

static inline int cpu_who(const struct stack_task *t)
{
	return t->ioc.fg ? CPU_BUSY_FG : CPU_BUSY_BG;
}

/* t takes core at now; a section's locks are taken now that it has one. */
static void cpu_take_core(struct cpu_model *c, struct stack_task *t, int core, int64_t now)
{
	/* a core is free, or already t's (a slice that goes on), and t runs
	 * on no other one */
	SIM_ASSERT(c->core[core] == NULL || c->core[core] == t);
	SIM_ASSERT(t->core == -1 || t->core == core);
	c->on_cores += c->core[core] == NULL; /* a slice that goes on keeps its core */
	c->core[core] = t;
	t->core = core;
	if (t->on_core) {
		int64_t (*fn)(struct stack_task *, int64_t) = t->on_core;
		t->on_core = NULL;
		t->cpu_left = fn(t, now);
		if (t->cpu_left <= 0)
			t->cpu_left = 1;
	}
}

/* t, on its core, runs its next slice from now. */
static void cpu_slice(struct cpu_model *c, struct stack_task *t, int64_t now)
{
	struct sim *sim = t->stack->sim;
	int64_t slice = c->latency / (c->nr_running ? c->nr_running : 1);
	if (slice < c->min_gran || t->nopreempt)
		slice = t->cpu_left;
	if (slice > t->cpu_left)
		slice = t->cpu_left;
	t->slice_start = now;
	t->slice_len = slice;
	if (!t->cpu_ev.fire)
		sim_event_init(&t->cpu_ev, cpu_event);
	sim_at(sim, &t->cpu_ev, now + slice);
}

static void cpu_start(struct cpu_model *c, struct stack_task *t, int core, int64_t now)
{
	cpu_take_core(c, t, core, now);
	cpu_slice(c, t, now);
}

/* The queued task with the smallest vruntime (first queued on ties). */
static struct stack_task *cpu_pick(struct cpu_model *c)
{
	struct stack_task *best = NULL;
	struct list_head *pos;
	list_for_each(pos, &c->runq) {
		struct stack_task *t = list_entry(pos, struct stack_task, rq_node);
		if (!best || t->vruntime < best->vruntime)
			best = t;
	}
	return best;
}

static void cpu_enqueue(struct cpu_model *c, struct stack_task *t, int64_t now)
{
	t->cpu_ready_since = now;
	list_add_tail(&t->rq_node, &c->runq);
	c->queued++;
}

static void cpu_dispatch(struct cpu_model *c, int core, int64_t now)
{
	struct stack_task *u = cpu_pick(c);
	if (!u)
		return;
	list_del_init(&u->rq_node);
	task_charge_since(u, SIM_WAIT_CPU, u->cpu_ready_since);
	cpu_start(c, u, core, now);
}

/* Raise min_vruntime to the smallest vruntime of the running and queued
 * tasks at now; returns that smallest one (INT64_MAX: none). */
static inline __attribute__((always_inline)) int64_t cpu_update_min(struct cpu_model *c,
								    int64_t now)
{
	int64_t m = INT64_MAX;
	struct stack_task *const *core = c->core;
	/* the cores in order until every task on one is seen */
	for (uint32_t i = 0, k = c->on_cores; k; i++) {
		SIM_ASSERT(i < (uint32_t)c->p.cores);
		if (core[i]) {
			k--;
			int64_t v = core[i]->vruntime + (now - core[i]->slice_start);
			if (v < m)
				m = v;
		}
	}
	struct list_head *pos;
	list_for_each(pos, &c->runq) {
		struct stack_task *t = list_entry(pos, struct stack_task, rq_node);
		if (t->vruntime < m)
			m = t->vruntime;
	}
	if (m != INT64_MAX && m > c->min_vruntime)
		c->min_vruntime = m;
	return m;
}

static void cpu_event(struct sim *sim, struct sim_event *ev)
{
	struct stack_task *t = container_of(ev, struct stack_task, cpu_ev);
	(void)sim;
	cpu_burst_event(t);
}

/* t's burst ended at now: free its core for the next queued task. */
static void cpu_burst_end(struct cpu_model *c, struct stack_task *t, int core, int64_t now)
{
	SIM_ASSERT(core >= 0 && c->core[core] == t && c->on_cores > 0);
	c->core[core] = NULL;
	c->on_cores--;
	t->core = -1;
	t->nopreempt = false;
	c->nr_running--;
	cpu_update_min(c, now);
	cpu_dispatch(c, core, now);
}

void cpu_burst_event(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct cpu_model *c = &s->cpu;
	int64_t now = sim_now(s->sim);
	int core = t->core;
	task_timeline_slice(t, "cpu", "running", t->slice_start, t->slice_len);
	t->vruntime += t->slice_len;
	t->cpu_left -= t->slice_len;
	cpu_account(c, core, cpu_who(t), t->slice_len);
	if (t->cpu_left > 0) {
		struct stack_task *next = cpu_pick(c);
		if (!next || next->vruntime >= t->vruntime) {
			cpu_start(c, t, core, now);
			return;
		}
		c->core[core] = NULL;
		c->on_cores--;
		t->core = -1;
		cpu_enqueue(c, t, now);
		cpu_dispatch(c, core, now);
		return;
	}
	cpu_burst_end(c, t, core, now);
	task_run(t);
}

/* A burst (or a section, its length now known) that took a free core with
 * nobody queued, min_at_start the running tasks' smallest
 * vruntime at its start (cpu_update_min): when it fits in one slice and
 * its end would be the next event of the run, nothing can happen to the
 * model before that end, so run it to its end at once (the steps of
 * cpu_start and cpu_burst_event, the clock moved to its end) and let the
 * task go on from where it paid, which is where task_run would re-enter
 * it. A per-page loop then costs no event per page while its timing,
 * waits and counters stay those of the per-event path (run.per_event
 * keeps that path for the comparison). */
/* cpu_slice would run all of left in one slice (nr: nr_running). */
static inline bool cpu_one_slice(const struct cpu_model *c, const struct stack_task *t,
				 int64_t left, uint32_t nr)
{
	return !(left > c->min_gran && !t->nopreempt && c->latency / (nr ? nr : 1) < left);
}

static bool cpu_burst_inline(struct cpu_model *c, struct stack_task *t, int64_t now,
			     int64_t min_at_start)
{
	struct stack *s = t->stack;
	if (!cpu_one_slice(c, t, t->cpu_left, c->nr_running))
		return false; /* cpu_start would give it a shorter slice */
	if (!sim_engine_advance(&s->sim->engine, now + t->cpu_left))
		return false;
	int64_t len = t->cpu_left;
	/* slice_start and slice_len are read only while t is on a core with
	 * its burst event pending (cpu_slice sets them first), so they are
	 * not kept here; the timeline test is task_timeline_slice's own,
	 * made before the call */
	if (s->sim->timeline)
		task_timeline_slice(t, "cpu", "running", now, len);
	t->vruntime += len;
	cpu_account(c, t->core, cpu_who(t), len);
	t->cpu_left = 0;
	t->nopreempt = false;
	c->nr_running--;
	/* cpu_burst_end's cpu_update_min at now + len: the same tasks run on
	 * the other cores (nothing happened), each len further on, and none
	 * is queued, so nobody is dispatched either */
	if (min_at_start != INT64_MAX && min_at_start + len > c->min_vruntime)
		c->min_vruntime = min_at_start + len;
	t->state = TS_RUNNING;
	return true;
}

/* The first core with no task that is not held, -1 when none. */
static inline int cpu_free_core(const struct cpu_model *c)
{
	for (int i = 0; i < (int)c->p.cores; i++)
		if (!c->core[i] && !c->held[i])
			return i;
	return -1;
}

/* t (cpu_run, may_inline) takes the free core i: its burst runs to its
 * end at once when it can (true), else its first slice starts. */
static inline bool cpu_take_free(struct cpu_model *c, struct stack_task *t, int i, int64_t now,
				 int64_t min_now)
{
	cpu_take_core(c, t, i, now);
	if (list_empty(&c->runq) && cpu_burst_inline(c, t, now, min_now)) {
		c->core[i] = NULL;
		c->on_cores--;
		t->core = -1;
		return true;
	}
	cpu_slice(c, t, now);
	return false;
}

/* place_entity: sleeper credit of half a latency period */
static inline void cpu_place(struct cpu_model *c, struct stack_task *t)
{
	if (t->vruntime < c->min_vruntime - c->half_latency)
		t->vruntime = c->min_vruntime - c->half_latency;
}

/* cpu_run_ex with t among others: nr_running (t included) counts the
 * tasks on cores and queued. */
static __attribute__((noinline)) bool cpu_run_shared(struct cpu_model *c, struct stack_task *t,
						     int64_t now, bool may_inline)
{
	struct stack *s = t->stack;
	c->nr_running++;
	/* alone, there is no smallest vruntime to move min_vruntime to */
	int64_t min_now = c->nr_running > 1 ? cpu_update_min(c, now) : INT64_MAX;
	cpu_place(c, t);
	int victim = -1;
	int64_t worst = INT64_MIN;
	for (int i = 0; i < (int)c->p.cores; i++) {
		struct stack_task *u = c->core[i];
		if (!u) {
			if (c->held[i])
				continue;
			if (!may_inline) {
				cpu_start(c, t, i, now);
				return false;
			}
			return cpu_take_free(c, t, i, now, min_now);
		}
		if (u->nopreempt)
			continue;
		int64_t v = u->vruntime + (now - u->slice_start);
		if (v > worst) {
			worst = v;
			victim = i;
		}
	}
	if (victim >= 0 && worst - t->vruntime > c->wakeup_gran) {
		struct stack_task *u = c->core[victim];
		int64_t ran = now - u->slice_start;
		task_timeline_slice(u, "cpu", "running", u->slice_start, ran);
		sim_cancel(s->sim, &u->cpu_ev);
		u->vruntime += ran;
		u->cpu_left -= ran;
		cpu_account(c, victim, cpu_who(u), ran);
		c->core[victim] = NULL;
		c->on_cores--;
		u->core = -1;
		c->preemptions++;
		if (u->cpu_left > 0) {
			cpu_enqueue(c, u, now);
		} else {
			/* its burst ended this very instant: let it go on */
			c->nr_running--;
			u->state = TS_READY;
			sim_at(s->sim, &u->run_ev, now);
		}
		cpu_start(c, t, victim, now);
		return false;
	}
	cpu_enqueue(c, t, now);
	return false;
}

/* cpu_run_shared when nobody is on a core or queued (nr_running 0) and
 * the caller can go on by itself, the common case of a per-page loop.
 * The same steps: nr_running becomes 1, so there is no smallest vruntime
 * (min_now INT64_MAX, min_vruntime does not move); every core has no
 * task, so the loop takes the first core not held, or, all held, finds
 * no victim and queues t; the run queue is empty. */
static inline bool cpu_run_alone(struct cpu_model *c, struct stack_task *t, int64_t now)
{
	c->nr_running = 1;
	cpu_place(c, t);
	int i = cpu_free_core(c);
	if (i < 0) {
		cpu_enqueue(c, t, now);
		return false;
	}
	return cpu_take_free(c, t, i, now, INT64_MAX);
}

/* cpu_run, may_inline: the caller goes on by itself when the burst ran
 * to its end at once (cpu_burst_inline). */
static inline bool cpu_run_ex(struct stack_task *t, int64_t ns, bool may_inline)
{
	struct cpu_model *c = &t->stack->cpu;
	int64_t now = sim_now(t->stack->sim);
	t->state = TS_CPU;
	t->cpu_left = ns > 0 ? ns : 1;
	c->bursts++;
	if (c->nr_running == 0 && may_inline)
		return cpu_run_alone(c, t, now);
	return cpu_run_shared(c, t, now, may_inline);
}

/* task_pay_cpu in general: task.c's machinery for a task's accumulated
 * CPU debt, here so that the burst it starts is cpu_run_ex inlined. */
static __attribute__((noinline)) enum step task_pay_cpu_slow(struct stack_task *t)
{
	int64_t ns = t->cpu_debt;
	t->cpu_debt = 0;
	return cpu_run_ex(t, ns, true) ? STEP_DONE : STEP_BLOCK;
}

/* The lock spins inside a debt are waits, not run time: charged to their
 * causes, then the debt is paid. (Charging touches neither the debt nor
 * the CPU model nor the clock, so it may come first.) */
static __attribute__((noinline)) enum step task_pay_spins(struct stack_task *t)
{
	static const enum sim_wait spin_cause[MM_NSPIN] = {
		SIM_WAIT_PAGECACHE_LOCK, SIM_WAIT_ZONE_LOCK, SIM_WAIT_TREE_LOCK
	};
	for (int i = 0; i < MM_NSPIN; i++)
		if (t->spin_debt[i] > 0) {
			task_charge(t, spin_cause[i], t->spin_debt[i]);
			t->spin_debt[i] = 0;
		}
	return task_pay_cpu(t);
}

/* The changes of task_pay_cpu's path once its tests passed (the clock
 * moved to the end of the burst), min_now cpu_update_min's result. */
static inline __attribute__((always_inline)) enum step cpu_paid(struct cpu_model *c,
								struct stack_task *t, int64_t ns,
								int64_t min_now, int core)
{
	t->cpu_debt = 0;
	c->bursts++;
	cpu_place(c, t);
	t->vruntime += ns;
	cpu_account(c, core, cpu_who(t), ns);
	t->cpu_left = 0;
	t->nopreempt = false;
	t->core = -1;
	/* cpu_burst_inline's min_vruntime at the end of the burst */
	if (min_now != INT64_MAX && min_now + ns > c->min_vruntime)
		c->min_vruntime = min_now + ns;
	t->state = TS_RUNNING;
	return STEP_DONE;
}

/* task_pay_cpu's path with other tasks on cores (nr_running not 0). */
static __attribute__((noinline)) enum step task_pay_cpu_shared(struct stack_task *t, int64_t ns)
{
	struct cpu_model *c = &t->stack->cpu;
	struct sim_engine *e = &t->stack->sim->engine;
	int64_t now = e->now;
	int64_t min_now = cpu_update_min(c, now);
	int core = cpu_free_core(c);
	if (core < 0 || !cpu_one_slice(c, t, ns, c->nr_running + 1) ||
	    !sim_engine_advance_fast(e, now + ns))
		return task_pay_cpu_slow(t);
	return cpu_paid(c, t, ns, min_now, core);
}

/* The debt of nearly every page of a write(), paid by a task when a core
 * is free and nobody is queued, is task_pay_cpu_slow -> cpu_run_ex ->
 * (cpu_run_alone or cpu_run_shared) -> cpu_take_free -> cpu_burst_inline
 * with sim_engine_advance's fast test, here in one function that calls
 * nothing: the same tests first, then the same changes, less those undone
 * before the end (nr_running and on_cores one up then down again, core[i]
 * t then NULL, state TS_CPU then TS_RUNNING, cpu_left ns then 0). The
 * tests: no section (on_core is set only by cpu_run_section), no
 * --timeline, an empty run queue, the first core without a task that is
 * not held (the general path walks the cores in order and takes it), one
 * slice with t counted in nr_running, and the clock's fast advance.
 * cpu_update_min comes before them as in cpu_run_shared (only with other
 * tasks running: nr_running was not 0); it only raises min_vruntime to
 * what the tasks on cores and queued have, so when a test fails the
 * general path, which makes every step again from the start, finds the
 * same. */
enum step task_pay_cpu(struct stack_task *t)
{
	int64_t ns = t->cpu_debt;
	if (ns <= 0)
		return STEP_DONE;
	if (t->spin_debt[MM_SPIN_LRU] | t->spin_debt[MM_SPIN_ZONE] | t->spin_debt[MM_SPIN_TREE])
		return task_pay_spins(t);
	struct stack *s = t->stack;
	struct cpu_model *c = &s->cpu;
	struct sim_engine *e = &s->sim->engine;
	if (t->on_core || s->sim->timeline || !list_empty(&c->runq))
		return task_pay_cpu_slow(t);
	if (c->nr_running)
		return task_pay_cpu_shared(t, ns);
	/* alone: core 0 has no task, and min_vruntime has nothing to move to */
	int core = c->held[0] ? cpu_free_core(c) : 0;
	if (core < 0 || !cpu_one_slice(c, t, ns, 1) || !sim_engine_advance_fast(e, e->now + ns))
		return task_pay_cpu_slow(t);
	return cpu_paid(c, t, ns, INT64_MAX, core);
}

/* task_pay_cpu's tests that no debt of the run changes: no section
 * (on_core), no --timeline, an empty run queue, a free core (the first
 * not held: alone, core 0 unless held), nothing scheduled since the
 * advance's bound was taken (so the tasks on cores stay there); and
 * those the pays themselves keep: no lock spin (the caller stops before
 * one), nopreempt clear. */
bool cpu_pay_run_open(struct stack_task *t, struct cpu_pay_run *r)
{
	struct stack *s = t->stack;
	struct cpu_model *c = &s->cpu;
	struct sim_engine *e = &s->sim->engine;
	if (t->spin_debt[MM_SPIN_LRU] | t->spin_debt[MM_SPIN_ZONE] | t->spin_debt[MM_SPIN_TREE])
		return false;
	if (t->on_core || s->sim->timeline || !list_empty(&c->runq) || t->nopreempt ||
	    e->peek_seq != e->next_seq)
		return false;
	if ((c->held[0] || c->nr_running) && cpu_free_core(c) < 0)
		return false;
	/* sim_engine_advance_fast: when <= adv_max and when < barrier */
	r->last_at = e->barrier - 1 < e->adv_max ? e->barrier - 1 : e->adv_max;
	/* cpu_one_slice with t counted in nr_running, nopreempt clear */
	int64_t share = c->latency / (c->nr_running + 1);
	r->slice_max = c->min_gran > share ? c->min_gran : share;
	r->rel_min = INT64_MAX;
	if (c->nr_running) {
		/* cpu_update_min's walk (the run queue is empty) */
		struct stack_task *const *core = c->core;
		for (uint32_t i = 0, k = c->on_cores; k; i++) {
			SIM_ASSERT(i < (uint32_t)c->p.cores);
			if (core[i]) {
				k--;
				int64_t v = core[i]->vruntime - core[i]->slice_start;
				if (v < r->rel_min)
					r->rel_min = v;
			}
		}
	}
	r->half_latency = c->half_latency;
	r->vruntime = t->vruntime;
	r->min_vruntime = c->min_vruntime;
	r->n = 0;
	r->sum_ns = 0;
	return true;
}

/* cpu_paid r->n times, their vruntime and min_vruntime as
 * cpu_pay_run_add left them. */
void cpu_pay_run_close(struct stack_task *t, const struct cpu_pay_run *r, int64_t now_ns)
{
	if (r->n == 0)
		return;
	struct stack *s = t->stack;
	struct cpu_model *c = &s->cpu;
	struct sim_engine *e = &s->sim->engine;
	int core = cpu_free_core(c);
	SIM_ASSERT(now_ns >= e->now && core >= 0);
	e->now = now_ns;
	e->skipped += r->n;
	t->cpu_debt = 0;
	c->bursts += r->n;
	t->vruntime = r->vruntime;
	c->min_vruntime = r->min_vruntime;
	cpu_account(c, core, cpu_who(t), r->sum_ns);
	t->cpu_left = 0;
	t->nopreempt = false;
	t->core = -1;
	t->state = TS_RUNNING;
}

bool cpu_run(struct stack_task *t, int64_t ns)
{
	return cpu_run_ex(t, ns, true);
}

bool cpu_run_section(struct stack_task *t, int64_t (*on_core)(struct stack_task *t, int64_t now),
		     bool may_inline)
{
	t->on_core = on_core;
	t->nopreempt = true;
	return cpu_run_ex(t, 1, may_inline);
}

int cpu_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	struct cpu_model *c = &s->cpu;
	int rc = cfg_apply(cpu_params_table, node, &c->p, err);
	if (rc == 0)
		rc = cpu_energy_init(c, cfg_get(node, "energy"), err);
	if (rc)
		return rc;
	int64_t n = c->p.cores < 8 ? c->p.cores : 8, factor = 1;
	while (n > 1) {
		factor++;
		n >>= 1;
	}
	c->latency = c->p.latency_ns * factor;
	c->min_gran = c->p.min_gran_ns * factor;
	c->wakeup_gran = c->p.wakeup_gran_ns * factor;
	c->half_latency = c->latency / 2;
	c->core = calloc((size_t)c->p.cores, sizeof(*c->core));
	c->held = calloc((size_t)c->p.cores, sizeof(*c->held));
	if (!c->core || !c->held)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	list_init(&c->runq);
	return 0;
}

void cpu_free(struct stack *s)
{
	free(s->cpu.core);
	s->cpu.core = NULL;
	free(s->cpu.held);
	s->cpu.held = NULL;
}

int stack_cpu_hold(struct stack *s)
{
	struct cpu_model *c = &s->cpu;
	int i = cpu_free_core(c);
	if (i >= 0)
		c->held[i] = true;
	return i;
}

void stack_cpu_release(struct stack *s, int core, int64_t busy_ns)
{
	struct cpu_model *c = &s->cpu;
	if (core < 0 || core >= (int)c->p.cores || !c->held[core])
		return;
	c->held[core] = false;
	cpu_account(c, core, CPU_BUSY_KERNEL, busy_ns);
	cpu_dispatch(c, core, sim_now(s->sim));
}

void stack_cpu_charge(struct stack *s, int64_t ns)
{
	/* no core taken: booked to the first cluster (cpu_energy.c) */
	cpu_account(&s->cpu, 0, CPU_BUSY_KERNEL, ns);
}

uint32_t stack_cpu_cores(const struct stack *s)
{
	return (uint32_t)s->cpu.p.cores;
}

static int cpu_ops_hold(void *ctx) { return stack_cpu_hold(ctx); }
static void cpu_ops_release(void *ctx, int core, int64_t busy_ns)
{
	stack_cpu_release(ctx, core, busy_ns);
}
static void cpu_ops_charge(void *ctx, int64_t ns) { stack_cpu_charge(ctx, ns); }
static uint32_t cpu_ops_cores(const void *ctx) { return stack_cpu_cores(ctx); }

/* What stack_create registers in struct sim for the completion path. */
const struct sim_cpu_ops stack_cpu_ops = {
	.hold = cpu_ops_hold,
	.release = cpu_ops_release,
	.charge = cpu_ops_charge,
	.cores = cpu_ops_cores,
};

struct json_t *cpu_to_json(const struct cpu_model *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "cores", json_integer(c->p.cores));
	json_object_set_new(o, "bursts", json_integer((json_int_t)c->bursts));
	json_object_set_new(o, "runq_waits", json_integer((json_int_t)c->queued));
	json_object_set_new(o, "preemptions", json_integer((json_int_t)c->preemptions));
	json_object_set_new(o, "busy_ns", json_integer(c->busy_ns));
	json_object_set_new(o, "params", cfg_params_to_json(cpu_params_table, &c->p));
	return o;
}
