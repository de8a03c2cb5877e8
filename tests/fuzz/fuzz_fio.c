/* libFuzzer harness for the fio reader (traces/csvtrace.c, trace_fio_ops):
 * any input ends in records, end of input or SIM_E_INPUT naming its line;
 * never a crash, a leak or undefined behaviour. Body: fuzz_reader.h.
 * Build: cmake -DMOBISIM_FUZZ=ON, run: fuzz_fio tests/fuzz/corpus/fio
 */
#include "tests/fuzz/fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader_run(&trace_fio_ops, data, size);
}
