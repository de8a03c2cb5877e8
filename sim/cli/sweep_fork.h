/* Fork at a phase (sim/cli/sweep_fork.c): run the points of a sweep that
 * differ only in a task's start from one shared prefix, forking at each
 * start. */
#ifndef SIM_CLI_SWEEP_FORK_H
#define SIM_CLI_SWEEP_FORK_H

#include "sim/cli/sweep.h"

/* Run what can be forked among the points todo[0..*ntodo) (each family of
 * two or more points that differ only in workload.tasks.KEY.start) and
 * leave in todo, in order, the points still to run the plain way; *nforked
 * gets how many were forked (their files written, or their failure said on
 * o->log), *worst the error code of their failures as the pool counts
 * them (0: none failed; SIM_E_INPUT when every one exited 2; else
 * SIM_E_RUNTIME). Says on o->log, in one line, why it cannot fork when it
 * cannot. Nothing when o->no_fork. Returns 0 or SIM_E_NOMEM. */
int sweep_fork_run(const struct sweep *sw, const struct sweep_run_opts *o, int *todo, int *ntodo,
		   int *nforked, int *worst, struct sim_error *err);

#endif
