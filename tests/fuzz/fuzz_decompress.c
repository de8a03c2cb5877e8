/* libFuzzer harness for the decompressing input layer (traces/trace.c):
 * the bytes are read as a gzip, xz or zstd stream when their magic says so
 * - through the stream buffer in odd-sized steps and line by line, then
 * through format detection and the reader it picks - so the decoders, the
 * buffer refills and the probe-in-place stay within their memory and end
 * every corrupt or cut stream with an error, never a crash or a hang.
 * Build: cmake -DMOBISIM_FUZZ=ON, run: fuzz_decompress tests/fuzz/corpus/decompress
 */
#include "tests/fuzz/fuzz_reader.h"
#include "traces/trace_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_src s;
	struct sim_error err;

	/* raw stream: fills of varying size (the size comes from the data) */
	if (trace_src_open_mem_z(&s, data, size, "fuzz", &err) == 0) {
		size_t step = size ? (size_t)(data[size - 1] % 97) + 1 : 1;
		for (int i = 0; i < 100000; i++) {
			long got = trace_src_fill(&s, step, &err);
			if (got <= 0)
				break;
			s.pos += (size_t)got;
			step = step * 7 % 4093 + 1;
		}
	}
	trace_src_close(&s);
	/* as text lines */
	if (trace_src_open_mem_z(&s, data, size, "fuzz", &err) == 0) {
		const char *line;
		size_t len;
		for (int i = 0; i < 100000 && trace_src_getline(&s, &line, &len, &err) == 1; i++)
			;
	}
	trace_src_close(&s);
	/* detection and whichever reader it picks */
	struct trace_reader r;
	if (trace_open_mem_auto(data, size, "fuzz", NULL, &r, &err) == 0) {
		fuzz_reader_drain(&r, NULL);
		trace_close(&r);
	}
	return 0;
}
