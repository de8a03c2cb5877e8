/* --trace-out: the simulated block-layer events as blkparse text, so that
 * btt and iowatcher read a simulated run like a recorded one. */
#ifndef SIM_TRACE_OUT_H
#define SIM_TRACE_OUT_H

#include "sim/error.h"

struct sim;
struct sim_trace_out;

/* Start writing to a temporary file next to path and hook the block
 * queue's trace sink. Needs s->blk. Returns 0, SIM_E_INPUT (no block
 * layer in this scenario) or SIM_E_IO. */
int sim_trace_out_open(struct sim *s, const char *path, struct sim_error *err);
/* Print the summary and move the file into place. */
int sim_trace_out_finish(struct sim *s, struct sim_error *err);
/* Drop an unfinished trace (its temporary file is removed). */
void sim_trace_out_free(struct sim_trace_out *t);

#endif
