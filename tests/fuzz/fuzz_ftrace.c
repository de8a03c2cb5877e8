/* libFuzzer harness for the ftrace text reader (traces/ftrace.c): any
 * input must end in a record stream, end of input, or SIM_E_INPUT with a
 * "name:LINE" message; never a crash, a leak or undefined behaviour.
 * Also drives the region pairing and the trace.h adapter over the same bytes.
 * Build: cmake -DMOBISIM_FUZZ=ON, run: fuzz_ftrace tests/fuzz/corpus/ftrace
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "traces/ftrace.h"
#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftrace_reader *r;
	struct sim_error err;
	struct ftrace_rec rec;
	struct ftrace_regions *rg = ftrace_regions_new();
	struct ftrace_region reg;
	if (rg && ftrace_open_mem(data, size, "fuzz", &r, &err) == 0) {
		int rc;
		while ((rc = ftrace_next(r, &rec, &err)) == 1)
			(void)ftrace_regions_feed(rg, &rec, &reg);
		if (rc < 0 && (rc != SIM_E_INPUT || strncmp(err.msg, "fuzz:", 5) != 0))
			abort();
		ftrace_close(r);
	}
	ftrace_regions_free(rg);
	(void)ftrace_probe(data, size);

	void *st = NULL;
	struct trace_rec tr;
	if (trace_ftrace_ops.open_mem(data, size, "fuzz", NULL, &st, &err) == 0) {
		while (trace_ftrace_ops.next(st, &tr, &err) == 1)
			;
		trace_ftrace_ops.close(st);
	}
	return 0;
}
