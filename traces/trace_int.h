/* Private helpers shared by the trace readers: a fixed-size input buffer
 * over a file, standard input ("-"), a pipe or a caller's memory, with
 * exact-size reads for binary formats and line reads for text formats.
 * gzip, xz and zstd input is recognised by its magic bytes and
 * decompressed as it streams (zlib, liblzma, libzstd), so memory stays a
 * fixed buffer plus the decoder's window. Offsets in messages count bytes
 * of the decompressed stream. Not for use outside traces/.
 */
#ifndef TRACES_TRACE_INT_H
#define TRACES_TRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim/error.h"
#include "traces/trace.h"

#define TRACE_SRC_BUF (64u * 1024u)
/* Longest text line a reader accepts (bytes, without the newline). */
#define TRACE_LINE_MAX 4096u

enum trace_zkind { TRACE_Z_NONE = 0, TRACE_Z_GZIP, TRACE_Z_XZ, TRACE_Z_ZSTD };

struct trace_src {
	int fd;                  /* -1 for memory */
	bool own_fd;             /* false for standard input */
	bool own_buf;            /* buf is ours (fd sources, decompressed memory) */
	bool is_regular;         /* a regular file (can be opened again by name) */
	uint8_t *buf;            /* decoded bytes */
	size_t cap, pos, len;
	uint64_t base;           /* stream offset of buf[0] */
	bool eof;
	uint64_t line;           /* number of the last line returned (text readers) */
	char name[512];          /* the file name used in messages */
	/* compressed input: raw bytes from fd or from the caller's memory */
	int zkind;               /* enum trace_zkind */
	void *z;                 /* decoder state */
	uint8_t *zin;            /* raw input (owned for fd, the caller's memory otherwise) */
	size_t zin_pos, zin_len, zin_cap;
	bool zin_eof, z_end;
	bool z_frame_open;       /* zstd: inside a frame (its end not yet decoded) */
};

/* Open path ("-" = standard input) for reading with a buffer of bufsize
 * bytes; compressed input is detected from its first bytes. Returns 0 or
 * SIM_E_IO / SIM_E_NOMEM / SIM_E_INPUT with err filled. */
int trace_src_open(struct trace_src *s, const char *path, size_t bufsize, struct sim_error *err);
/* Wrap memory (not copied; must outlive s). Never fails. */
void trace_src_open_mem(struct trace_src *s, const void *buf, size_t len, const char *name);
/* The same, but compressed memory is decompressed as it is read. Returns 0
 * or SIM_E_NOMEM / SIM_E_INPUT. */
int trace_src_open_mem_z(struct trace_src *s, const void *buf, size_t len, const char *name,
			 struct sim_error *err);
/* Compression format of the first bytes of buf (TRACE_Z_NONE if none). */
int trace_zkind_of(const uint8_t *buf, size_t len);
const char *trace_zkind_name(int zkind);
void trace_src_close(struct trace_src *s);
/* Move an open source (the destination takes ownership; src is left closed). */
void trace_src_move(struct trace_src *dst, struct trace_src *src);
/* A read-only stdio stream over the source (fopencookie); closing the
 * stream closes and frees the source, which must be heap-allocated. */
#include <stdio.h>
FILE *trace_src_fopen(struct trace_src *heap_src);

/* The unsigned decimal at *p (before end): true with *v and *p past its
 * digits; false, *p unmoved, when there is no digit or the value passes
 * 2^64 - 1. No isdigit (its locale table) and, as 19 digits never pass
 * 2^64, the overflow test only past them: the readers' hot loop. With 8
 * bytes before end, the first 8 are classified and converted at once
 * (SWAR: a digit is a byte 0x30..0x39, i.e. high nibble 3 before and
 * after adding 6), so a number of up to 7 digits costs no loop at all. */
static inline bool trace_dec_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p, *q = s, *fast = end - s > 19 ? s + 19 : end;
	uint64_t x = 0;
	unsigned d;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - s >= 8) {
		const uint64_t k30 = 0x3030303030303030ull, kf0 = 0xf0f0f0f0f0f0f0f0ull;
		uint64_t w;
		memcpy(&w, s, 8);
		/* a byte >= 0xfa carries into the next one, but only past the
		 * first non-digit, which is all that is looked at */
		uint64_t bad = ((w & kf0) ^ k30) | (((w + 0x0606060606060606ull) & kf0) ^ k30);
		unsigned n = bad ? (unsigned)__builtin_ctzll(bad) >> 3 : 8;
		if (n == 0)
			return false;
		/* digit values, the first (most significant) in the low byte;
		 * the bytes past the n digits shifted out (and a borrow from
		 * the first non-digit only runs into them) */
		uint64_t y = (w - k30) << (8 * (8 - n));
		y = (y * 10 + (y >> 8)) & 0x00ff00ff00ff00ffull;
		y = (y * 100 + (y >> 16)) & 0x0000ffff0000ffffull;
		y = (y * 10000 + (y >> 32)) & 0xffffffffull;
		if (n < 8) {
			*v = y;
			*p = s + n;
			return true;
		}
		x = y;
		q = s + 8;
	}
#endif
	while (q < fast && (d = (unsigned)(*q - '0')) < 10) {
		x = x * 10 + d;
		q++;
	}
	while (q < end && (d = (unsigned)(*q - '0')) < 10) {
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
		q++;
	}
	if (q == s)
		return false;
	*v = x;
	*p = q;
	return true;
}

/* Byte offset of the next unread byte. */
static inline uint64_t trace_src_offset(const struct trace_src *s) { return s->base + s->pos; }

/* Make n bytes (n <= cap) readable at s->buf + s->pos. Returns how many are
 * available (less than n only at end of input), or SIM_E_IO with err. */
long trace_src_fill_more(struct trace_src *s, size_t n, struct sim_error *err);
/* The common case (n bytes already buffered) inline: a binary reader asks
 * twice per record. */
static inline long trace_src_fill(struct trace_src *s, size_t n, struct sim_error *err)
{
	if (s->len - s->pos >= n)
		return (long)n;
	return trace_src_fill_more(s, n, err);
}

/* Next line, without its "\n" (and a "\r" before it). *line points into
 * the buffer and stays valid until the next call. Returns 1, 0 at end of
 * input, or SIM_E_INPUT (line too long, NUL byte) / SIM_E_IO with err. */
int trace_src_getline(struct trace_src *s, const char **line, size_t *len, struct sim_error *err);

/* Read up to n bytes of the (decompressed) start of path (probe).
 * Returns the count or -1. */
long trace_src_peek_file(const char *path, uint8_t *buf, size_t n);

/* ftrace's "COMM-TID" (trace_print_context: "%16s-%-7d") in [s, e): the
 * decimal thread id (1 to 10 digits, at most INT32_MAX) after the last
 * '-', a non-empty name before it (which may hold '-' itself). True with
 * *dash at that '-' and *tid; false when the text does not end so. */
bool trace_comm_tid_split(const char *s, const char *e, const char **dash, int32_t *tid);

/* The process filter's per-request state (traces/tracefilter.c), made at
 * open for trace_opts.keep (name: the input, for messages; id: the diag
 * the reader states its identity in); pass() says whether trace_next()
 * returns rec (1) or not (0), counting in d, or refuses (SIM_E_INPUT) a
 * rule on what the trace does not record, once its first record says. */
struct trace_filter;
int trace_filter_create(const struct trace_fg *keep, const char *name, const struct trace_diag *id,
			struct trace_filter **f, struct sim_error *err);
int trace_filter_pass(struct trace_filter *f, const struct trace_rec *rec, struct trace_diag *d,
		      struct sim_error *err);
void trace_filter_free(struct trace_filter *f);

/* Diagnostics a reader reports while reading (opts->diag; may be NULL). */
void trace_diag_note(struct trace_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
