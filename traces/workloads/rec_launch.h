/* A launch replayed from a recorded cold start, the `recorded` generator of
 * the synthetic workload (traces/workloads/synthetic.c): one process whose
 * threads are the recording's, each issuing its recorded reads with its
 * recorded CPU time between them (traces/workloads/launch_build.c). */
#ifndef TRACES_WORKLOADS_REC_LAUNCH_H
#define TRACES_WORKLOADS_REC_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/config.h"
#include "sim/error.h"
#include "traces/workloads/app_launch.h"

struct sim;
struct stack;
struct stack_task;
struct json_t;
struct rec_launch;

/* Read the recording named by n's keys, build the launch (its variation
 * from the stream workload.KEY.launchN) and create its files and tasks.
 * 0, SIM_E_INPUT naming the node or the trace's file and line, or
 * SIM_E_NOMEM. */
int rec_launch_create(struct sim *sim, struct stack *s, struct cfg_node *n,
		      const struct app_launch_id *id, struct rec_launch **out,
		      struct sim_error *err);
void rec_launch_start(struct rec_launch *a, int64_t at_ns);
bool rec_launch_done(const struct rec_launch *a);
struct stack_task *rec_launch_main(struct rec_launch *a);
void rec_launch_stats_json(const struct rec_launch *a, struct json_t *obj);
void rec_launch_destroy(struct rec_launch *a);

#endif
