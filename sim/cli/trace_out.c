/* --trace-out: adapts the block layer's trace points (struct
 * blk_trace_event) to the blkparse text writer of traces/trace.h or, for a
 * path ending in .blktrace, .blktrace.N or .bin, to the blktrace binary
 * writer (what btt and iowatcher read), into a file that appears only
 * when the run succeeded (sim/cli/blk_sink_out.h).
 * The simulated disk is reported as device 8,0 on CPU 0, as one
 * single-queue disk traced with blktrace would be. */
#include "sim/cli/trace_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/block/block.h"
#include "sim/cli/blk_sink_out.h"
#include "sim/sim.h"
#include "traces/blktrace_writer.h"
#include "traces/trace.h"

struct sim_trace_out {
	char *path;
	struct blk_sink_out o;
	struct trace_blkparse_writer *w;
	struct trace_blktrace_writer *bw;
};

static void trace_out_event(void *ctx, const struct blk_trace_event *ev)
{
	struct sim_trace_out *t = ctx;
	struct trace_rec rec = { 0 };
	rec.kind = TRACE_REC_BLOCK;
	rec.act = ev->action;
	rec.action = trace_action_from_letter(ev->action);
	rec.flags = ev->flags & (REQ_WRITE | REQ_SYNC | REQ_META | REQ_FUA | REQ_FLUSH | REQ_RAHEAD);
	rec.dir = ev->nr_sectors == 0 && (ev->flags & REQ_FLUSH) ? TRACE_DIR_NONE
		  : req_is_write(ev->flags)			 ? TRACE_DIR_WRITE
								 : TRACE_DIR_READ;
	rec.time_ns = ev->time_ns;
	rec.pid = ev->pid;
	rec.comm = ev->comm;
	rec.dev_major = 8;
	rec.dev_minor = 0;
	rec.sector = ev->sector;
	rec.nr_sectors = ev->nr_sectors;
	rec.bytes = ev->nr_sectors << SECTOR_SHIFT;
	rec.error = ev->error;
	rec.pdu_u64 = ev->depth;
	struct sim_error err;
	int rc = t->bw ? trace_blktrace_writer_event(t->bw, &rec, &err)
		       : trace_blkparse_writer_event(t->w, &rec, &err);
	if (rc)
		sim_fail(t->o.sim, err.code, "%s: %s", t->path, err.msg);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static bool is_binary_path(const char *path)
{
	const char *dot = strstr(path, ".blktrace.");
	bool per_cpu = dot && dot[10] >= '0' && dot[10] <= '9';
	return ends_with(path, ".blktrace") || ends_with(path, ".bin") || per_cpu;
}

void sim_trace_out_free(struct sim_trace_out *t)
{
	if (!t)
		return;
	trace_blkparse_writer_destroy(t->w);
	trace_blktrace_writer_destroy(t->bw);
	blk_sink_out_release(&t->o);
	free(t->path);
	free(t);
}

int sim_trace_out_open(struct sim *s, const char *path, struct sim_error *err)
{
	if (!s->blk)
		return sim_errorf(err, SIM_E_INPUT,
				  "--trace-out: this scenario has no block layer (give it a scheduler:)");
	struct sim_trace_out *t = calloc(1, sizeof(*t));
	if (!t)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	t->path = strdup(path);
	if (!t->path) {
		sim_trace_out_free(t);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	int rc = blk_sink_out_open(&t->o, s, path, err);
	if (!rc) {
		FILE *f = blk_sink_out_file(&t->o);
		rc = is_binary_path(path) ? trace_blktrace_writer_create(f, &t->bw, err)
					  : trace_blkparse_writer_create(f, TRACE_BPW_NUMBER_SEQ, &t->w, err);
	}
	if (!rc)
		rc = blk_sink_out_hook(&t->o, trace_out_event, t, "--trace-out", err);
	if (rc) {
		sim_trace_out_free(t);
		return rc;
	}
	s->trace_out = t;
	return 0;
}

int sim_trace_out_finish(struct sim *s, struct sim_error *err)
{
	struct sim_trace_out *t = s->trace_out;
	if (!t)
		return 0;
	int rc = t->bw ? trace_blktrace_writer_finish(t->bw, err)
		       : trace_blkparse_writer_finish(t->w, err);
	if (rc) {
		char msg[SIM_ERRMSG_MAX];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		sim_errorf(err, rc, "%s: %s", t->path, msg);
	} else {
		rc = blk_sink_out_commit(&t->o, err);
	}
	sim_trace_out_free(t);
	s->trace_out = NULL;
	return rc;
}
