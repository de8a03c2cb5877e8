/* libFuzzer harness for the DiskSim/MQSim ASCII reader: parse the input from memory to
 * its end or first error, and print every record through the blkparse
 * writer, so both must stay within their buffers and never crash. Also
 * runs format detection over the same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void drain(struct trace_reader *r, FILE *sink)
{
	struct trace_blkparse_writer *w = NULL;
	struct trace_rec rec;
	struct sim_error err;
	int n = 0;

	if (sink && trace_blkparse_writer_create(sink, TRACE_BPW_NUMBER_SEQ, &w, &err))
		w = NULL;
	while (trace_next(r, &rec, &err) == 1 && n++ < 100000)
		if (w && trace_blkparse_writer_event(w, &rec, &err))
			break;
	if (w)
		trace_blkparse_writer_finish(w, &err);
	trace_blkparse_writer_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct trace_reader r;
	struct sim_error err;

	if (!sink)
		sink = fopen("/dev/null", "w");
	r.ops = &trace_disksim_ops;
	r.state = NULL;
	if (trace_disksim_ops.open_mem(data, size, "fuzz", NULL, &r.state, &err) == 0) {
		drain(&r, sink);
		trace_close(&r);
	}
	(void)trace_disksim_ops.probe(data, size < TRACE_PROBE_BYTES ? size : TRACE_PROBE_BYTES);
	if (trace_open_mem_auto(data, size, "fuzz", NULL, &r, &err) == 0) {
		drain(&r, NULL);
		trace_close(&r);
	}
	return 0;
}
