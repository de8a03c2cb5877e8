/* Workload sources (docs/architecture.md): the thing that drives a run. Registered
 * by name in sim/workload.c; the scenario's `workload.type` (or the
 * top-level `source:` map for the Poisson reference source) selects one.
 *
 * A source is created after the device, block queue, stack and policies;
 * it schedules its first events in start(), and sim_run() ends when
 * done() is true and no event is left.
 */
#ifndef SIM_WORKLOAD_H
#define SIM_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/config.h"
#include "sim/error.h"

struct sim;
struct json_t;

struct workload_ops {
	const char *name;
	const char *summary;
	/* node: the workload's map. Set *state. Returns 0 or SIM_E_INPUT. */
	int (*create)(struct sim *sim, struct cfg_node *node, void **state, struct sim_error *err);
	void (*start)(struct sim *sim, void *state);
	/* All input consumed and every op it issued completed. */
	bool (*done)(struct sim *sim, void *state);
	/* Optional, for run.stop: fg_done: how many of its tasks are
	 * foreground ones (their uid is in the scenario's fg: or they
	 * become_fg), and whether all of those have finished. */
	int (*fg_count)(struct sim *sim, void *state);
	bool (*fg_done)(struct sim *sim, void *state);
	/* Optional, fork at a phase (sim/cli/sweep_fork.c). hold: before
	 * start(), hold task KEY's start back: start() reserves the event
	 * sequence number its start would take and schedules nothing; or say
	 * why it cannot be held (a random start, copies, a launch planner that
	 * hears of it at t = 0 ...). held_start: the absolute start the text
	 * VALUE of the task's `start` gives, parsed as create() parses it.
	 * release: start a held task at at_ns (>= now) with its reserved
	 * number, so that the run goes on as one from t = 0 with that start;
	 * false when the start did not take exactly that one event. */
	int (*hold)(struct sim *sim, void *state, const char *task, struct sim_error *err);
	int (*held_start)(struct sim *sim, void *state, const char *task, const char *value,
			  int64_t *at_ns, struct sim_error *err);
	bool (*release)(struct sim *sim, void *state, const char *task, int64_t at_ns);
	/* Optional: figures for the result's "workload" object. */
	void (*stats_json)(struct sim *sim, void *state, struct json_t *obj);
	void (*destroy)(void *state);
	/* Does it need the block layer (false: it submits to the device itself)? */
	bool needs_block;
	/* Does it need the upper stack (tasks, page cache)? */
	bool needs_stack;
};

struct workload {
	const struct workload_ops *ops;
	void *state;
};

const struct workload_ops *workload_find(const char *name);
const struct workload_ops *const *workload_registry(void);

#endif
