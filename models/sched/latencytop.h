/* LatencyTOP's view of the tasks' sleeps (models/sched/latencytop.c):
 * per cause name and class, the count, total and longest single sleep. */
#ifndef MODELS_SCHED_LATENCYTOP_H
#define MODELS_SCHED_LATENCYTOP_H

#include <stdbool.h>
#include <stdint.h>

#include "models/stack/stack_op.h"
#include "sim/metrics.h"

enum lt_reason {
	LT_READ = 0,    /* "Reading from file" */
	LT_ATIME,       /* "updating atime" */
	LT_WRITE,       /* "Writing to file" */
	LT_FSYNC,       /* "fsync() on a file" */
	LT_FAULT,       /* page fault */
	LT_OPEN,        /* open / create */
	LT_NAMESPACE,   /* unlink, rename, truncate */
	LT_OTHER,
	LT_NREASON
};

extern const char *const latencytop_names[LT_NREASON];

struct latencytop {
	bool enabled;   /* tunable latencytop.enabled: put the table in the result */
	struct sim_waitstat st[SIM_NCLASS][LT_NREASON];
};

struct stack;
struct stack_task;
struct cfg_node;
struct sim_error;
struct json_t;

int latencytop_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* The cause name LatencyTOP gives a sleep of cause during op (in_op false:
 * between ops), or LT_NREASON for time it does not record (runnable,
 * spinning). */
enum lt_reason latencytop_reason(bool in_op, enum stack_op_kind op, enum sim_wait cause);
/* A user task's sleep of ns ended. */
void latencytop_account(struct stack_task *t, enum sim_wait cause, int64_t ns);
/* The result's stack.latencytop array, NULL when not enabled. */
struct json_t *latencytop_to_json(const struct stack *s);

#endif
