/* LatencyTOP (Arjan van de Ven, 2007; the LKML journal-priority thread of
 * October 2007 quotes its table): every uninterruptible sleep of a task is
 * recorded, on wake-up, under a cause name - what the task was doing - with
 * the longest single sleep and the average. In the kernel that is
 * account_scheduler_latency, called from the scheduler when the sleeper
 * wakes (kernel/latencytop.c of 2.6.25; the 2.6.23-era patch annotated the
 * same syscall paths). Here: task_account's every wait interval of a user
 * task (one sleep), named by the op the task is in:
 *   read -> "Reading from file", except the sleeps of its touch_atime
 *     (the handle's T_LOCKED wait and the inode buffer's BH_Shadow wait,
 *     the only journal waits a read has in the model) -> "updating atime";
 *   write -> "Writing to file" (dirty throttling, the write's handle and
 *     buffer waits, an O_SYNC tail); fsync/fdatasync (and an atomic commit)
 *     -> "fsync() on a file".
 * Those four names are the thread's (docs/papers.md §5). The others are
 * mobisim's labels for what the thread did not list: "Page fault",
 * "Opening file", "Unlinking/renaming/truncating", "Other".
 * Not recorded: runnable time (waiting for a core) and spinning on a lock
 * (page-cache, zone, tree locks), which are not sleeps. Kernel threads
 * (flusher, kjournald) are left out, as the other wait tables do.
 * Left out: LatencyTOP's per-process view, the 30 s decay of its
 * global table (the table here is the whole run), and "fork() system
 * call" (no process creation sleeps in the model).
 */
#include <stddef.h>

#include <jansson.h>

#include "models/sched/latencytop.h"
#include "models/sched/task.h"
#include "sim/config.h"

const char *const latencytop_names[LT_NREASON] = {
	[LT_READ] = "Reading from file",
	[LT_ATIME] = "updating atime",
	[LT_WRITE] = "Writing to file",
	[LT_FSYNC] = "fsync() on a file",
	[LT_FAULT] = "Page fault",
	[LT_OPEN] = "Opening file",
	[LT_NAMESPACE] = "Unlinking/renaming/truncating",
	[LT_OTHER] = "Other",
};

static const struct cfg_param latencytop_params[] = {
	{ "enabled", CFG_T_BOOL, offsetof(struct latencytop, enabled), "", "false", CFG_NO_RANGE,
	  "mobisim: off so that results without it stay as they are",
	  "put the LatencyTOP table (cause, count, total, max) in the result (stack.latencytop)",
	  NULL },
	CFG_PARAM_END,
};

int latencytop_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	return cfg_apply(latencytop_params, node, &s->lt, err);
}

enum lt_reason latencytop_reason(bool in_op, enum stack_op_kind op, enum sim_wait cause)
{
	switch (cause) {
	case SIM_WAIT_CPU:
	case SIM_WAIT_PAGECACHE_LOCK:
	case SIM_WAIT_ZONE_LOCK:
	case SIM_WAIT_TREE_LOCK:
	case SIM_NWAIT:
		return LT_NREASON;
	default:
		break;
	}
	if (!in_op)
		return LT_OTHER;
	switch (op) {
	case STACK_OP_READ:
		if (cause == SIM_WAIT_JOURNAL_LOCKED || cause == SIM_WAIT_JOURNAL_BUFFER)
			return LT_ATIME;
		return LT_READ;
	case STACK_OP_WRITE:
		return LT_WRITE;
	case STACK_OP_FSYNC:
	case STACK_OP_FDATASYNC:
	case STACK_OP_ATOMIC_COMMIT:
		return LT_FSYNC;
	case STACK_OP_FAULT:
		return LT_FAULT;
	case STACK_OP_OPEN:
	case STACK_OP_CREATE:
		return LT_OPEN;
	case STACK_OP_UNLINK:
	case STACK_OP_RENAME:
	case STACK_OP_TRUNCATE:
		return LT_NAMESPACE;
	default:
		return LT_OTHER;
	}
}

void latencytop_account(struct stack_task *t, enum sim_wait cause, int64_t ns)
{
	if (t->kthread || ns <= 0)
		return;
	enum lt_reason r = latencytop_reason(t->os.active, t->os.op.kind, cause);
	if (r == LT_NREASON)
		return;
	struct sim_waitstat *w = &t->stack->lt.st[task_class(t)][r];
	w->count++;
	w->total_ns += ns;
	if (ns > w->max_ns)
		w->max_ns = ns;
}

struct json_t *latencytop_to_json(const struct stack *s)
{
	if (!s->lt.enabled)
		return NULL;
	json_t *a = json_array();
	for (int c = 0; c < SIM_NCLASS; c++)
		for (int r = 0; r < LT_NREASON; r++) {
			const struct sim_waitstat *w = &s->lt.st[c][r];
			if (!w->count)
				continue;
			json_t *o = json_object();
			json_object_set_new(o, "cause", json_string(latencytop_names[r]));
			json_object_set_new(o, "class", json_string(sim_class_names[c]));
			json_object_set_new(o, "count", json_integer((json_int_t)w->count));
			json_object_set_new(o, "total_ns", json_integer(w->total_ns));
			json_object_set_new(o, "max_ns", json_integer(w->max_ns));
			json_object_set_new(o, "avg_ns", json_real((double)w->total_ns / (double)w->count));
			json_array_append_new(a, o);
		}
	return a;
}
