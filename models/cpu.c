/* CPU: N identical cores and one FIFO run queue with a round-robin
 * quantum, so that an app's computation overlaps its own and other tasks'
 * I/O as on a phone, and runnable-but-waiting time is visible
 * (SIM_WAIT_CPU).
 *
 * Chosen over a CFS-like weighted model because the scenarios mobisim
 * reproduces have fewer runnable tasks than cores most of the time (an
 * app's main thread plus one background writer on an octa-core Exynos
 * 7420); the run queue matters only under overload, where FIFO with a
 * quantum equal to CFS's sched_latency (6 ms, kernel/sched/fair.c) is a
 * fair first approximation. Left out: nice weights, big.LITTLE speed
 * differences, migration costs, frequency scaling, and the CPU time of
 * kernel threads (flusher, jbd2, kswapd) which run off the model's cores.
 * Page-cache work (copying, reclaim) is charged as CPU time of the task
 * doing it; spinning on the page-cache lock is not charged to a core.
 */
#include <stddef.h>
#include <stdlib.h>

#include <jansson.h>

#include "models/stack_int.h"
#include "sim/sim.h"

const struct cfg_param cpu_params_table[] = {
	{ "cores", CFG_T_INT, offsetof(struct cpu_params, cores), "", "8", 1, 1024,
	  "Galaxy S6 Exynos 7420: 4x Cortex-A57 + 4x Cortex-A53 (Samsung spec sheet)",
	  "cores that run tasks", NULL },
	{ "timeslice_us", CFG_T_TIME, offsetof(struct cpu_params, timeslice_ns), "us", "6000", 10,
	  1e7, "kernel/sched/fair.c: sysctl_sched_latency = 6 ms",
	  "round-robin quantum of the FIFO run queue", NULL },
	CFG_PARAM_END,
};

static void cpu_start(struct cpu_model *c, struct stack_task *t, int core)
{
	struct sim *sim = t->stack->sim;
	c->core[core] = t;
	t->core = core;
	int64_t slice = t->cpu_left < c->p.timeslice_ns ? t->cpu_left : c->p.timeslice_ns;
	t->cpu_left -= slice;
	c->busy_ns += slice;
	sim_after(sim, &t->cpu_ev, slice);
}

static void cpu_dispatch(struct cpu_model *c, int core, int64_t now)
{
	if (list_empty(&c->runq))
		return;
	struct stack_task *u = list_first_entry(&c->runq, struct stack_task, rq_node);
	list_del_init(&u->rq_node);
	int64_t w = now - u->cpu_ready_since;
	task_charge(u, SIM_WAIT_CPU, w);
	cpu_start(c, u, core);
}

static void cpu_event(struct sim *sim, struct sim_event *ev)
{
	struct stack_task *t = container_of(ev, struct stack_task, cpu_ev);
	(void)sim;
	cpu_burst_event(t);
}

void cpu_burst_event(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct cpu_model *c = &s->cpu;
	int64_t now = sim_now(s->sim);
	int core = t->core;
	if (t->cpu_left > 0 && list_empty(&c->runq)) {
		cpu_start(c, t, core);
		return;
	}
	c->core[core] = NULL;
	t->core = -1;
	if (t->cpu_left > 0) {
		/* quantum expired with others waiting: back of the queue */
		t->cpu_ready_since = now;
		list_add_tail(&t->rq_node, &c->runq);
		c->queued++;
		cpu_dispatch(c, core, now);
		return;
	}
	cpu_dispatch(c, core, now);
	task_run(t);
}

void cpu_run(struct stack_task *t, int64_t ns)
{
	struct stack *s = t->stack;
	struct cpu_model *c = &s->cpu;
	if (!t->cpu_ev.fire)
		sim_event_init(&t->cpu_ev, cpu_event);
	t->state = TS_CPU;
	t->cpu_left = ns > 0 ? ns : 1;
	c->bursts++;
	for (int i = 0; i < (int)c->p.cores; i++) {
		if (!c->core[i]) {
			cpu_start(c, t, i);
			return;
		}
	}
	t->cpu_ready_since = sim_now(s->sim);
	list_add_tail(&t->rq_node, &c->runq);
	c->queued++;
}

int cpu_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	struct cpu_model *c = &s->cpu;
	int rc = cfg_apply(cpu_params_table, node, &c->p, err);
	if (rc)
		return rc;
	c->core = calloc((size_t)c->p.cores, sizeof(*c->core));
	if (!c->core)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	list_init(&c->runq);
	return 0;
}

void cpu_free(struct stack *s)
{
	free(s->cpu.core);
	s->cpu.core = NULL;
}

struct json_t *cpu_to_json(const struct cpu_model *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "cores", json_integer(c->p.cores));
	json_object_set_new(o, "bursts", json_integer((json_int_t)c->bursts));
	json_object_set_new(o, "runq_waits", json_integer((json_int_t)c->queued));
	json_object_set_new(o, "busy_ns", json_integer(c->busy_ns));
	return o;
}
