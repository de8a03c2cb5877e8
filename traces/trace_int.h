/* Private helpers shared by the trace readers: a fixed-size input buffer
 * over a file descriptor or a caller's memory, with exact-size reads for
 * binary formats and line reads for text formats. Not for use outside
 * traces/.
 */
#ifndef TRACES_TRACE_INT_H
#define TRACES_TRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"
#include "traces/trace.h"

#define TRACE_SRC_BUF (64u * 1024u)
/* Longest text line a reader accepts (bytes, without the newline). */
#define TRACE_LINE_MAX 4096u

struct trace_src {
	int fd;                  /* -1 for memory */
	uint8_t *buf;            /* owned for fd sources; the caller's bytes for memory */
	size_t cap, pos, len;
	uint64_t base;           /* file offset of buf[0] */
	bool eof;
	uint64_t line;           /* number of the last line returned (text readers) */
	char name[512];          /* the file name used in messages */
};

/* Open path for reading with a buffer of bufsize bytes. Returns 0 or
 * SIM_E_IO / SIM_E_NOMEM with err filled. */
int trace_src_open(struct trace_src *s, const char *path, size_t bufsize, struct sim_error *err);
/* Wrap memory (not copied; must outlive s). Never fails. */
void trace_src_open_mem(struct trace_src *s, const void *buf, size_t len, const char *name);
void trace_src_close(struct trace_src *s);

/* Byte offset of the next unread byte. */
static inline uint64_t trace_src_offset(const struct trace_src *s) { return s->base + s->pos; }

/* Make n bytes (n <= cap) readable at s->buf + s->pos. Returns how many are
 * available (less than n only at end of input), or SIM_E_IO with err. */
long trace_src_fill(struct trace_src *s, size_t n, struct sim_error *err);

/* Next line, without its "\n" (and a "\r" before it). *line points into
 * the buffer and stays valid until the next call. Returns 1, 0 at end of
 * input, or SIM_E_INPUT (line too long, NUL byte) / SIM_E_IO with err. */
int trace_src_getline(struct trace_src *s, const char **line, size_t *len, struct sim_error *err);

/* Read up to n bytes of the start of path (probe). Returns the count or -1. */
long trace_src_peek_file(const char *path, uint8_t *buf, size_t n);

#endif
