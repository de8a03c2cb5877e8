/* Writer of the blktrace binary format (struct blk_io_trace, version 7,
 * little-endian as on the phones and PCs that record it), so that a
 * simulated run can be read by the real blkparse, btt and iowatcher. */
#ifndef TRACES_BLKTRACE_WRITER_H
#define TRACES_BLKTRACE_WRITER_H

#include <stdio.h>

#include "sim/error.h"
#include "traces/trace.h"

struct trace_blktrace_writer;

/* out stays the caller's. Returns 0 or SIM_E_NOMEM. */
int trace_blktrace_writer_create(FILE *out, struct trace_blktrace_writer **w, struct sim_error *err);
/* Write one block event (Q M F G S D C P U I and the rest of trace_action);
 * a process-name notify record precedes the first event of each pid.
 * Returns 0 or SIM_E_IO. */
int trace_blktrace_writer_event(struct trace_blktrace_writer *w, const struct trace_rec *rec,
				struct sim_error *err);
/* Flush. Returns 0 or SIM_E_IO. */
int trace_blktrace_writer_finish(struct trace_blktrace_writer *w, struct sim_error *err);
void trace_blktrace_writer_destroy(struct trace_blktrace_writer *w);

#endif
