/* libFuzzer harness for the blktrace binary records reader: the body shared by the
 * block-trace readers (fuzz_reader.h) over trace_blktrace_ops - parse from
 * memory, print every record through the blkparse writer, probe,
 * auto-detect.
 * Build: cmake -DMOBISIM_FUZZ=ON, run: fuzz_blktrace tests/fuzz/corpus/blktrace
 */
#include "tests/fuzz/fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader_run(&trace_blktrace_ops, data, size);
}
