/* The body shared by the libFuzzer harnesses of the block-trace readers
 * (fuzz_blkparse.c, fuzz_blktrace.c, fuzz_disksim.c): parse the input from
 * memory with one reader to its end or first error, and print every record
 * through the blkparse writer, so both must stay within their buffers and
 * never crash; then run that reader's format probe and the auto-detecting
 * open over the same bytes. Included by one harness each (static).
 */
#ifndef TESTS_FUZZ_FUZZ_READER_H
#define TESTS_FUZZ_FUZZ_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read r to its end, its first error or 100000 records; with a sink,
 * print each record there through the blkparse writer. */
static void fuzz_reader_drain(struct trace_reader *r, FILE *sink)
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

/* One fuzz input through the reader ops (see the top of this file). The
 * sink is /dev/null, opened once per process as libFuzzer calls this
 * once per input. Always 0: a finding is a crash or a sanitizer report. */
static int fuzz_reader_run(const struct trace_reader_ops *ops, const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct trace_reader r;
	struct sim_error err;

	if (!sink)
		sink = fopen("/dev/null", "w");
	/* every field trace_next and trace_close read (a filter, a window)
	 * starts empty, as trace_open leaves it */
	memset(&r, 0, sizeof(r));
	r.ops = ops;
	if (ops->open_mem(data, size, "fuzz", NULL, &r.state, &err) == 0) {
		fuzz_reader_drain(&r, sink);
		trace_close(&r);
	}
	(void)ops->probe(data, size < TRACE_PROBE_BYTES ? size : TRACE_PROBE_BYTES);
	if (trace_open_mem_auto(data, size, "fuzz", NULL, &r, &err) == 0) {
		fuzz_reader_drain(&r, NULL);
		trace_close(&r);
	}
	return 0;
}

#endif
