/* libFuzzer harness for the CSV reader (traces/csvtrace.c, trace_csv_ops):
 * any input ends in records, end of input or SIM_E_INPUT naming its line;
 * never a crash, a leak or undefined behaviour. The shared body
 * (fuzz_reader.h) covers MSR/SNIA detection; a second pass reads the same
 * bytes through --columns mappings (with the process-identity columns and
 * a dev_t device), lenient and strict, and prints the reader's report.
 * Build: cmake -DMOBISIM_FUZZ=ON, run: fuzz_csv tests/fuzz/corpus/csv
 */
#include "tests/fuzz/fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	static const char *const specs[] = {
		"time=1:filetime,op=4,offset=5,size=6,dev=3",
		"time=1:us,op=2,offset=3:sector,size=4:4KiB,sep=ws,skip=1,read=0,write=1",
		"time=6:s,op=3,offset=4:sector,size=5:sector,dev=2:devt,comm=1,skip=1,read=R,write=W",
		"time=1:s,op=2,offset=3:sector,size=4:sector,comm=5,pid=6,tid=7,uid=8,dev=9,sep=semicolon",
	};

	if (!sink)
		sink = fopen("/dev/null", "w");
	fuzz_reader_run(&trace_csv_ops, data, size);
	for (unsigned i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct trace_opts o = { .columns = specs[i], .strict = i % 2 == 1 };
		struct trace_reader r = { .ops = &trace_csv_ops };
		struct sim_error err;
		if (trace_csv_ops.open_mem(data, size, "fuzz", &o, &r.state, &err) == 0) {
			fuzz_reader_drain(&r, NULL);
			if (sink)
				trace_csv_ops.report(r.state, sink);
			trace_close(&r);
		}
	}
	return 0;
}
