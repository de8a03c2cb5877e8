/* libFuzzer harness for the blkparse text reader: the body shared by the
 * block-trace readers (fuzz_reader.h) over trace_blkparse_ops - parse from
 * memory, print every record through the blkparse writer, probe,
 * auto-detect.
 * Build: cmake -DMOBISIM_FUZZ=ON, run: fuzz_blkparse tests/fuzz/corpus/blkparse
 */
#include "tests/fuzz/fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader_run(&trace_blkparse_ops, data, size);
}
