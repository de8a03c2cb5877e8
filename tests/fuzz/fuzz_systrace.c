/* libFuzzer harness for the systrace HTML reader (traces/systrace.c over
 * the ftrace text reader): any input ends in records, end of input or
 * SIM_E_INPUT naming a line or byte offset; never a crash, a leak or
 * undefined behaviour. The shared body (fuzz_reader.h), then the report.
 * Build: cmake -DMOBISIM_FUZZ=ON, run: fuzz_systrace tests/fuzz/corpus/systrace
 */
#include "tests/fuzz/fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;

	if (!sink)
		sink = fopen("/dev/null", "w");
	fuzz_reader_run(&trace_systrace_ops, data, size);
	struct trace_reader r = { .ops = &trace_systrace_ops };
	struct sim_error err;
	if (trace_systrace_ops.open_mem(data, size, "fuzz", NULL, &r.state, &err) == 0) {
		fuzz_reader_drain(&r, NULL);
		if (sink)
			trace_systrace_ops.report(r.state, sink);
		trace_close(&r);
	}
	return 0;
}
