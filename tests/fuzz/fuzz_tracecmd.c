/* libFuzzer harness for the trace-cmd reader (traces/tracecmd.c): its
 * header walk and, for inputs that pass it, Debian's libtracecmd over a
 * memfd copy. Any input ends in records, end of input or SIM_E_INPUT
 * naming a byte offset. The library itself is not instrumented, so
 * coverage inside it is not seen; crashes in it are.
 * Build: cmake -DMOBISIM_FUZZ=ON, run: fuzz_tracecmd tests/fuzz/corpus/tracecmd
 */
#include "tests/fuzz/fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader_run(&trace_tracecmd_ops, data, size);
}
