/* Tasks: the threads whose waits mobisim explains, and the machinery that
 * blocks, wakes, delays and accounts them (kernel/sched/core.c's part).
 *
 * A task has an identity (pid, uid, comm, ioprio -> struct io_context), a
 * foreground flag derived from the fg_uid timeline, a per-task block plug
 * and get_request waiter. What it runs when it resumes is the task_fn its
 * creator gave task_new: a user task's op state machines
 * (models/stack/ops.c), the flusher and kswapd (models/mm/), jbd2 and the
 * f2fs threads (models/fs/).
 *
 * Blocking: task_block() (sleep until task_wake), task_delay() (known
 * length: lock spin, throttle pause, reclaim batch) and cpu_run(). Every
 * interval a task is not running is charged to exactly one wait cause of
 * sim/metrics.h, so the waits of a task add up to its op latency minus its
 * run time. Like schedule() -> blk_schedule_flush_plug(), every real sleep
 * flushes the task's plug; spinning on a lock or waiting for a core does
 * not.
 *
 * Left out: signals.
 */
#include <stdlib.h>
#include <string.h>

#include "models/sched/sched.h"
#include "models/sched/task.h"
#include "sim/assert.h"
#include "sim/sim.h"
#include "sim/timeline.h"

/* ------------------------------------------------------------ basics */

enum sim_class task_class(const struct stack_task *t)
{
	return t->ioc.fg ? SIM_CLASS_FG : SIM_CLASS_BG;
}

/* The task's timeline track: apps under their process (tgid), kernel
 * threads together. Named on first use. */
void task_track(struct stack_task *t, int64_t *pid, int64_t *tid)
{
	struct sim_timeline *tl = t->stack->sim->timeline;
	bool user = !t->kthread;
	*pid = user ? t->ioc.tgid : TIMELINE_PID_KERNEL;
	*tid = t->ioc.pid;
	sim_timeline_track(tl, *pid, *tid, user ? (t->ioc.comm ? t->ioc.comm : t->name) : NULL,
			   t->name);
}

void task_timeline_slice(struct stack_task *t, const char *cat, const char *name,
			 int64_t start_ns, int64_t ns)
{
	if (!t->stack->sim->timeline || ns <= 0)
		return;
	int64_t pid, tid;
	task_track(t, &pid, &tid);
	sim_timeline_slice(t->stack->sim->timeline, pid, tid, cat, name, start_ns, ns, true,
			   sim_class_names[task_class(t)], NULL, 0);
}

/* Kernel threads keep their own totals (stack_stats_json) but stay out of
 * the fg/bg metrics, which describe the apps. */
static void task_account(struct stack_task *t, enum sim_wait cause, int64_t start_ns, int64_t ns)
{
	if (cause >= SIM_NWAIT || ns <= 0)
		return;
	t->wait_total[cause] += ns;
	if (!t->kthread && !t->stack->nested)
		sim_metrics_wait(&t->stack->sim->metrics, task_class(t), cause, ns);
	latencytop_account(t, cause, ns);
	task_timeline_slice(t, "wait", sim_wait_names[cause], start_ns, ns);
	if (t->stack->sim->observer) {
		struct sim_wait_rec w = { .task = t->name, .pid = t->ioc.tgid, .tid = t->ioc.pid,
					  .cls = task_class(t), .kernel = t->kthread,
					  .cause = cause, .start_ns = start_ns, .ns = ns };
		sim_observe_wait(t->stack->sim, &w);
	}
}

void task_charge(struct stack_task *t, enum sim_wait cause, int64_t ns)
{
	task_account(t, cause, sim_now(t->stack->sim), ns);
}

void task_charge_since(struct stack_task *t, enum sim_wait cause, int64_t since_ns)
{
	task_account(t, cause, since_ns, sim_now(t->stack->sim) - since_ns);
}

static void task_run_event(struct sim *sim, struct sim_event *ev)
{
	struct stack_task *t = container_of(ev, struct stack_task, run_ev);
	(void)sim;
	task_run(t);
}

static void task_timer_event(struct sim *sim, struct sim_event *ev)
{
	struct stack_task *t = container_of(ev, struct stack_task, timer_ev);
	(void)sim;
	task_wake(t);
}

static void task_waiter_wake(struct sim *sim, struct blk_waiter *w)
{
	struct stack_task *t = container_of(w, struct stack_task, waiter);
	(void)sim;
	task_wake(t);
}

struct stack_task *task_new(struct stack *s, const char *name, task_fn fn, void *data)
{
	struct stack_task *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->name = strdup(name ? name : "task");
	if (!t->name) {
		free(t);
		return NULL;
	}
	t->stack = s;
	t->fn = fn;
	t->data = data;
	t->kthread = true; /* PF_KTHREAD */
	t->kind = "kthread";
	int32_t pid = ++s->next_pid;
	t->ioc.pid = pid;
	t->ioc.tgid = pid;
	task_set_ioprio(t, IOPRIO_CLASS_BE, IOPRIO_NORM);
	t->ioc.comm = t->name;
	sim_event_init(&t->run_ev, task_run_event);
	sim_event_init(&t->timer_ev, task_timer_event);
	t->waiter.wake = task_waiter_wake;
	/* The task charges its get_request sleeps like every other wait (kernel
	 * threads' to their own totals only), so the block layer must not. */
	t->waiter.accounts_wait = true;
	list_init(&t->waiter.node);
	list_init(&t->waitq_node);
	list_init(&t->rq_node);
	list_init(&t->jwait_node);
	t->core = -1;
	t->wait_cause = SIM_NWAIT;
	if (s->task_init)
		s->task_init(t);
	list_add_tail(&t->all_node, &s->tasks);
	s->ntasks++;
	return t;
}

void task_set_ioprio(struct stack_task *t, uint8_t ioprio_class, uint8_t ioprio_level)
{
	/* IOPRIO_CLASS_NONE: CFQ uses BE at task_nice_ioprio() = (nice+20)/5
	 * = 4 for nice 0 (include/linux/ioprio.h). */
	if (ioprio_class == IOPRIO_CLASS_NONE) {
		ioprio_class = IOPRIO_CLASS_BE;
		ioprio_level = IOPRIO_NORM;
	}
	t->ioc.ioprio_class = ioprio_class;
	t->ioc.ioprio_level = ioprio_level > 7 ? 7 : ioprio_level;
}

void task_set_user(struct stack_task *t, uint32_t uid)
{
	t->kthread = false;
	t->kind = "user";
	t->uid = uid;
	t->ioc.uid = uid;
	t->ioc.fg = uid != 0 && uid == t->stack->fg_uid;
}

void task_free(struct stack_task *t)
{
	struct sim *sim = t->stack->sim;
	sim_cancel(sim, &t->run_ev);
	sim_cancel(sim, &t->timer_ev);
	if (t->cpu_ev.fire)
		sim_cancel(sim, &t->cpu_ev);
	free(t->name);
	free(t);
}

/* ---------------------------------------------------------- blocking */

static void task_sleep_flush(struct stack_task *t)
{
	if (t->plug.active && t->stack->q)
		blk_flush_plug_on_sleep(t->stack->q, &t->plug);
}

void task_block(struct stack_task *t, enum sim_wait cause)
{
	t->state = TS_BLOCKED;
	t->wait_cause = cause;
	t->wait_since = sim_now(t->stack->sim);
	task_sleep_flush(t);
}

void task_rebook_wait(struct stack_task *t, enum sim_wait cause)
{
	int64_t now = sim_now(t->stack->sim);
	if (t->state != TS_BLOCKED || t->wait_cause == SIM_NWAIT || t->wait_cause == cause)
		return;
	task_account(t, t->wait_cause, t->wait_since, now - t->wait_since);
	t->wait_cause = cause;
	t->wait_since = now;
}

void task_wake(struct stack_task *t)
{
	struct sim *sim = t->stack->sim;
	if (t->state == TS_EXITED || t->state == TS_READY || t->state == TS_RUNNING ||
	    t->state == TS_CPU)
		return;
	/* A task waits for one thing; leave every wait list and timeout. */
	if (!list_empty(&t->waitq_node))
		list_del_init(&t->waitq_node);
	if (!list_empty(&t->jwait_node))
		list_del_init(&t->jwait_node);
	t->wait_page = NULL;
	if (sim_event_pending(&t->timer_ev))
		sim_cancel(sim, &t->timer_ev);
	if (t->wait_cause != SIM_NWAIT)
		task_account(t, t->wait_cause, t->wait_since, sim_now(sim) - t->wait_since);
	t->wait_cause = SIM_NWAIT;
	t->state = TS_READY;
	sim_at(sim, &t->run_ev, sim_now(sim));
}

enum step task_delay(struct stack_task *t, int64_t wait_ns, enum sim_wait cause, int64_t busy_ns,
		     bool sleeps)
{
	if (wait_ns < 0)
		wait_ns = 0;
	if (busy_ns < 0)
		busy_ns = 0;
	if (wait_ns + busy_ns == 0)
		return STEP_DONE;
	task_account(t, cause, sim_now(t->stack->sim), wait_ns);
	t->state = TS_BLOCKED;
	t->wait_cause = SIM_NWAIT;
	t->wait_since = sim_now(t->stack->sim);
	if (sleeps)
		task_sleep_flush(t);
	sim_after(t->stack->sim, &t->timer_ev, wait_ns + busy_ns);
	return STEP_BLOCK;
}

void task_start_plug(struct stack_task *t)
{
	if (!t->plug.active)
		blk_start_plug(&t->plug, &t->ioc);
}

void task_finish_plug(struct stack_task *t)
{
	if (t->plug.active && t->stack->q)
		blk_finish_plug(t->stack->q, &t->plug);
	t->plug.active = false;
}

enum step task_submit_bio(struct stack_task *t, struct stack_bio *sb)
{
	struct stack *s = t->stack;
	sb->bio.ioc = &t->ioc;
	sb->bio.t_queue = sim_now(s->sim);
	if (t->ioc.fg)
		sb->bio.flags |= REQ_FG;
	/* everything but an O_DIRECT bio is the page cache's or a kernel
	 * thread's (the completion path's `paths` tells them apart) */
	if (!(sb->bio.flags & REQ_DIRECT))
		sb->bio.flags |= REQ_PAGECACHE;
	if (s->hooks.classify_bio)
		s->hooks.classify_bio(t, &sb->bio, s->hooks.ctx);
	enum blk_submit_result r =
		blk_submit_bio(s->q, t->plug.active ? &t->plug : NULL, &sb->bio, &t->waiter);
	if (r == BLK_SUBMIT_SLEEP) {
		task_block(t, SIM_WAIT_GET_REQUEST);
		return STEP_BLOCK;
	}
	return STEP_DONE;
}

void task_run(struct stack_task *t)
{
	if (t->state == TS_EXITED)
		return;
	t->state = TS_RUNNING;
	t->fn(t);
	if (t->state == TS_RUNNING)
		t->state = TS_IDLE;
}
