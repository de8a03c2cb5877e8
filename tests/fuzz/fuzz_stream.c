/* libFuzzer harness for the stream side of trace input: the bytes arrive
 * once through a pipe (the path standard input and `zcat x |` take: probed
 * in the reader's own buffer, never re-read) and once as a regular file
 * (memfd), both through trace_open_auto, so content detection, gzip / xz /
 * zstd decompression (traces/trace.c) and every reader's open_src run on
 * arbitrary bytes. Records are drained to the end, the first error or
 * 100000 records. Inputs longer than a pipe buffer go only the file way.
 * Build: cmake -DMOBISIM_FUZZ=ON, run: fuzz_stream tests/fuzz/corpus/stream
 */
#define _GNU_SOURCE /* memfd_create */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void drain_path(const char *path)
{
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	int n = 0;
	if (trace_open_auto(path, NULL, &r, &err) != 0)
		return;
	while (trace_next(&r, &rec, &err) == 1 && n++ < 100000)
		;
	trace_close(&r);
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int p[2];
	if (size <= 60000 && pipe(p) == 0) {
		if (write_all(p[1], data, size) == 0) {
			close(p[1]);
			p[1] = -1;
			snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
			drain_path(path);
		}
		if (p[1] >= 0)
			close(p[1]);
		close(p[0]);
	}
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd >= 0) {
		if (write_all(fd, data, size) == 0) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			drain_path(path);
		}
		close(fd);
	}
	return 0;
}
