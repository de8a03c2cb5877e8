/* libFuzzer harness for the Perfetto reader (traces/perfetto.c over
 * traces/protowire.c): any input ends in records, end of input or
 * SIM_E_INPUT naming a byte offset; never a crash, a leak or undefined
 * behaviour. The shared body (fuzz_reader.h), then the same bytes lenient
 * and strict with the reader's report printed.
 * Build: cmake -DMOBISIM_FUZZ=ON, run: fuzz_perfetto tests/fuzz/corpus/perfetto
 */
#include "tests/fuzz/fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;

	if (!sink)
		sink = fopen("/dev/null", "w");
	fuzz_reader_run(&trace_perfetto_ops, data, size);
	for (int strict = 0; strict < 2; strict++) {
		struct trace_opts o = { .strict = strict };
		struct trace_reader r = { .ops = &trace_perfetto_ops };
		struct sim_error err;
		if (trace_perfetto_ops.open_mem(data, size, "fuzz", &o, &r.state, &err) == 0) {
			fuzz_reader_drain(&r, NULL);
			if (sink)
				trace_perfetto_ops.report(r.state, sink);
			trace_close(&r);
		}
	}
	return 0;
}
