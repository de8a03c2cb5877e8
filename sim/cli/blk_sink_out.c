/* The file and block trace sink that --trace-out and --timeline share
 * (see blk_sink_out.h). */
#include "sim/cli/blk_sink_out.h"

#include "sim/results.h"
#include "sim/sim.h"

int blk_sink_out_open(struct blk_sink_out *o, struct sim *s, const char *path,
		      struct sim_error *err)
{
	o->sim = s;
	return results_out_open(path, &o->out, err);
}

FILE *blk_sink_out_file(const struct blk_sink_out *o)
{
	return results_out_file(o->out);
}

int blk_sink_out_hook(struct blk_sink_out *o, void (*event)(void *ctx, const struct blk_trace_event *ev),
		      void *ctx, const char *opt, struct sim_error *err)
{
	o->sink.event = event;
	o->sink.ctx = ctx;
	if (blk_add_trace_sink(o->sim->blk, &o->sink))
		return sim_errorf(err, SIM_E_RUNTIME, "%s: too many block trace sinks", opt);
	o->hooked = true;
	return 0;
}

static void blk_sink_out_unhook(struct blk_sink_out *o)
{
	if (o->hooked && o->sim->blk)
		blk_remove_trace_sink(o->sim->blk, o->sink.ctx);
	o->hooked = false;
}

int blk_sink_out_commit(struct blk_sink_out *o, struct sim_error *err)
{
	int rc;

	blk_sink_out_unhook(o);
	rc = results_out_commit(o->out, err);
	o->out = NULL;
	return rc;
}

void blk_sink_out_release(struct blk_sink_out *o)
{
	blk_sink_out_unhook(o);
	results_out_abort(o->out);
	o->out = NULL;
}
