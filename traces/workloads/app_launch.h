/* A multi-threaded Android app cold launch, the `app` generator of the
 * synthetic workload (traces/workloads/synthetic.c): one process whose
 * threads (main, RenderThread, image workers, a SQLite worker) each issue
 * their own op stream, with the launch's hand-offs between them. See
 * traces/workloads/app_launch.c for the model and its sources. */
#ifndef TRACES_WORKLOADS_APP_LAUNCH_H
#define TRACES_WORKLOADS_APP_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "sim/config.h"
#include "sim/error.h"

struct sim;
struct stack;
struct stack_task;
struct json_t;
struct app_launch;

/* Who the app is: set by the synthetic task that holds it. */
struct app_launch_id {
	const char *key;      /* task key: thread names and file names derive from it */
	const char *comm;     /* main thread's comm (default key) */
	uint32_t uid;
	int32_t pid;          /* 0: assigned by the stack */
	uint8_t ioprio_class, ioprio_level;
	const char *region;   /* launch region on the main thread ("" or NULL: none) */
	bool become_fg;       /* the main thread makes uid the foreground uid */
};

extern const struct cfg_param app_launch_params[];

/* Read the app's keys from n, plan every thread's ops (drawing from rng)
 * and create its tasks. 0, SIM_E_INPUT naming the node, or SIM_E_NOMEM. */
int app_launch_create(struct sim *sim, struct stack *s, struct cfg_node *n,
		      const struct app_launch_id *id, gsl_rng *rng, struct app_launch **out,
		      struct sim_error *err);
/* The main thread starts at at_ns; the others when the main thread spawns them. */
void app_launch_start(struct app_launch *a, int64_t at_ns);
/* Every thread has exited. */
bool app_launch_done(const struct app_launch *a);
struct stack_task *app_launch_main(struct app_launch *a);
/* Threads with their ops by kind, into obj under "threads". */
void app_launch_stats_json(const struct app_launch *a, struct json_t *obj);
void app_launch_destroy(struct app_launch *a);

#endif
