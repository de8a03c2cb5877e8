/* What --trace-out and --timeline share: an output file written through
 * results_out (sim/results.h), so that it appears only when the run
 * succeeded, fed by a trace sink on the run's block queue. Each adapter
 * embeds one and turns the events into its own format. */
#ifndef SIM_CLI_BLK_SINK_OUT_H
#define SIM_CLI_BLK_SINK_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "models/block/block.h"
#include "sim/error.h"

struct sim;
struct results_out;

struct blk_sink_out {
	struct sim *sim;
	struct results_out *out;
	struct blk_trace_sink sink;
	bool hooked;
};

/* Start writing path (a temporary file next to it until commit), for the
 * run s. 0 or the error of results_out_open. */
int blk_sink_out_open(struct blk_sink_out *o, struct sim *s, const char *path,
		      struct sim_error *err);
FILE *blk_sink_out_file(const struct blk_sink_out *o);
/* Hand the events of the run's block queue to event(ctx, ev); opt names
 * the option in the error when the queue has no free sink. */
int blk_sink_out_hook(struct blk_sink_out *o, void (*event)(void *ctx, const struct blk_trace_event *ev),
		      void *ctx, const char *opt, struct sim_error *err);
/* Stop the events and move the file into place: 0 or the error of
 * results_out_commit, which names the file. */
int blk_sink_out_commit(struct blk_sink_out *o, struct sim_error *err);
/* Stop the events and drop a file not committed. */
void blk_sink_out_release(struct blk_sink_out *o);

#endif
