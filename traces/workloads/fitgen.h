/* Requests from a fitted workload model (the `model:` map that `mobisim
 * workload fit` writes, traces/tracefit.h): a record source the replay
 * workload reads like a trace. Not for use outside traces/workloads/.
 */
#ifndef TRACES_WORKLOADS_FITGEN_H
#define TRACES_WORKLOADS_FITGEN_H

#include <stdbool.h>

#include "sim/config.h"
#include "sim/error.h"
#include "traces/trace.h"

struct sim;

/* Parse model (marking its keys used) and set r up to generate its
 * requests in time order, with random streams of sim named after the
 * model's path. 0, SIM_E_INPUT naming the node, or SIM_E_NOMEM. */
int fitgen_open(struct sim *sim, struct cfg_node *model, struct trace_reader *r,
		struct sim_error *err);

/* Does the model opened in r make completions (it has think times)? */
bool fitgen_has_completions(const struct trace_reader *r);

#endif
