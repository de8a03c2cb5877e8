/* Workload registry: one explicit table of the sources a scenario can name
 * (docs/architecture.md §6). Each entry lives in its own file under traces/. */
#include "sim/workload.h"

#include <string.h>

extern const struct workload_ops poisson_workload_ops;
extern const struct workload_ops replay_workload_ops;  /* traces/workloads/replay.c */
extern const struct workload_ops synthetic_workload_ops; /* traces/workloads/synthetic.c */
extern const struct workload_ops ftrace_workload_ops;  /* traces/workloads/ftrace_replay.c */
extern const struct workload_ops composite_workload_ops; /* traces/workloads/composite.c */

static const struct workload_ops *const workload_table[] = {
	&poisson_workload_ops,
	&replay_workload_ops,
	&synthetic_workload_ops,
	&ftrace_workload_ops,
	&composite_workload_ops,
	NULL,
};

const struct workload_ops *workload_find(const char *name)
{
	for (const struct workload_ops *const *w = workload_table; *w; w++)
		if (strcmp((*w)->name, name) == 0)
			return *w;
	return NULL;
}

const struct workload_ops *const *workload_registry(void)
{
	return workload_table;
}
