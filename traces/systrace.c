/* Reader of Android systrace / atrace HTML: the ftrace text an HTML page
 * carries for the trace viewer, read by the ftrace text reader
 * (traces/ftrace.c) as if it were the text file.
 *
 * Layouts (catapult systrace/systrace/output_generator.py and
 * tracing/tracing_build/trace2html.py):
 *   systrace -o trace.html: the viewer, then "<!-- BEGIN TRACE -->" and one
 *     <script class="trace-data" type="application/text"> block per tracing
 *     agent, its data written as is: ftrace text ("# tracer: nop" and
 *     event lines) from atrace, a process dump, JSON of other agents;
 *   trace2html: <script id="viewer-data" type="text/plain"> blocks holding
 *     base64 of gzip of the data.
 * Every block is decoded; a block whose first bytes ftrace_probe() takes
 * for ftrace text is passed on (several are concatenated), the others
 * (JSON, process dumps) are counted and skipped. The whole file may be
 * gzip, xz or zstd compressed (trace_src).
 *   systrace.py before catapult (Android SDK tools of 2012-2014): a plain
 *     <script> whose body is `var linuxPerfData = "\` and then the ftrace
 *     text as one JavaScript string, each line ending in "\n\" (an escaped
 *     newline, then a line continuation), closed by `\n";`. The string is
 *     unescaped as JavaScript does (continuations dropped; \n \t \r \\ \"
 *     and \' decoded, any other \c as c) and read as a trace-data block.
 *
 * Streaming: the page is scanned byte by byte with a fixed buffer; a
 * block's first SYS_HEAD bytes are held to decide, the rest streams.
 * Line numbers in messages count lines of the extracted text; bad HTML
 * data (a bad base64 character, corrupt gzip) is an error at its byte
 * offset in the page.
 */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "traces/ftrace.h"
#include "traces/trace.h"
#include "traces/trace_int.h"

#define SYS_HEAD 4096u        /* a block's first bytes, held to choose ftrace or not */
#define SYS_QUEUE (64u * 1024u) /* decoded bytes waiting for the ftrace reader */
#define SYS_TAG_MAX 512u      /* longest <script ...> tag looked at */

enum sys_state { SYS_SCAN, SYS_TAG, SYS_BODY };

struct sys_filter {
	struct trace_src src;
	enum sys_state st;
	size_t match;             /* bytes of "<script" or "</script>" matched */
	char tag[SYS_TAG_MAX];
	size_t taglen;
	/* the current block */
	bool data_block, b64, gz_checked, gz, decided, keep;
	/* a plain <script>: its first bytes say whether it is the old layout's
	 * `var linuxPerfData = "` (js_probe while deciding); then the string's
	 * escapes (js_esc after a backslash, js_cr after a continuation's \r,
	 * js_done at its closing quote) */
	bool js_probe, js, js_esc, js_cr, js_done;
	char jshead[40];
	size_t jslen;
	uint32_t acc;
	int nbits;
	z_stream zs;
	bool z_init, z_end;
	uint8_t head[SYS_HEAD];
	size_t headlen;
	uint64_t block_start;      /* byte offset of the block's data */
	/* output */
	uint8_t q[SYS_QUEUE];
	size_t qlen, qpos;
	bool eof;
	/* counts */
	uint64_t blocks, kept, skipped_json, skipped_other;
	bool failed;
	struct sim_error err;
};

static int sys_fail(struct sys_filter *f, const char *what)
{
	if (!f->failed)
		sim_errorf(&f->err, SIM_E_INPUT, "%s: byte offset %llu: %s", f->src.name,
			   (unsigned long long)trace_src_offset(&f->src), what);
	f->failed = true;
	return -1;
}

static void sys_emit(struct sys_filter *f, const uint8_t *p, size_t n)
{
	/* the caller keeps n within the free room */
	memcpy(f->q + f->qlen, p, n);
	f->qlen += n;
}

static size_t sys_room(const struct sys_filter *f)
{
	return SYS_QUEUE - f->qlen;
}

/* The block's head is complete (or the block ended): keep or skip it. */
static void sys_decide(struct sys_filter *f)
{
	size_t i = 0;
	while (i < f->headlen && (f->head[i] == '\n' || f->head[i] == '\r' || f->head[i] == ' ' ||
				  f->head[i] == '\t'))
		i++;
	f->decided = true;
	f->keep = f->headlen > i && ftrace_probe(f->head + i, f->headlen - i);
	if (f->keep) {
		f->kept++;
		if (f->kept > 1)
			sys_emit(f, (const uint8_t *)"\n", 1);
		sys_emit(f, f->head + i, f->headlen - i);
	} else if (f->headlen > i && (f->head[i] == '{' || f->head[i] == '[')) {
		f->skipped_json++;
	} else {
		f->skipped_other++;
	}
}

/* Decoded data of the current block. Needs n + SYS_HEAD + 1 bytes of room. */
static void sys_data(struct sys_filter *f, const uint8_t *p, size_t n)
{
	while (n && !f->decided) {
		size_t k = SYS_HEAD - f->headlen < n ? SYS_HEAD - f->headlen : n;
		memcpy(f->head + f->headlen, p, k);
		f->headlen += k;
		p += k;
		n -= k;
		if (f->headlen == SYS_HEAD)
			sys_decide(f);
	}
	if (n && f->keep)
		sys_emit(f, p, n);
}

/* Decoded (base64) bytes: gzip is inflated. 0 or -1. */
static int sys_decoded(struct sys_filter *f, const uint8_t *p, size_t n)
{
	if (!f->gz_checked) {
		f->gz_checked = true;
		f->gz = n >= 1 && p[0] == 0x1f; /* gzip's first magic byte; the second is checked by zlib */
		if (f->gz) {
			memset(&f->zs, 0, sizeof(f->zs));
			if (inflateInit2(&f->zs, 15 + 16) != Z_OK)
				return sys_fail(f, "out of memory (gzip)");
			f->z_init = true;
		}
	}
	if (!f->gz) {
		sys_data(f, p, n);
		return 0;
	}
	if (f->z_end)
		return 0; /* bytes after the gzip member: ignored as the viewer does */
	uint8_t out[1024];
	f->zs.next_in = (Bytef *)p;
	f->zs.avail_in = (uInt)n;
	do {
		f->zs.next_out = out;
		f->zs.avail_out = sizeof(out);
		int zr = inflate(&f->zs, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			return sys_fail(f, "corrupt gzip data in a trace-data block");
		sys_data(f, out, sizeof(out) - f->zs.avail_out);
		if (zr == Z_STREAM_END) {
			f->z_end = true;
			break;
		}
		if (zr == Z_BUF_ERROR)
			break;
	} while (f->zs.avail_out == 0 && sys_room(f) >= sizeof(out) + SYS_HEAD + 1);
	if (f->zs.avail_in)
		return sys_fail(f, "a trace-data block inflates to more than the reader holds at once");
	return 0;
}

static int b64_value(uint8_t c)
{
	if (c >= 'A' && c <= 'Z') return c - 'A';
	if (c >= 'a' && c <= 'z') return c - 'a' + 26;
	if (c >= '0' && c <= '9') return c - '0' + 52;
	if (c == '+') return 62;
	if (c == '/') return 63;
	return -1;
}

/* One byte of the old layout's JavaScript string. */
static void sys_js_byte(struct sys_filter *f, uint8_t c)
{
	if (f->js_done)
		return; /* after the closing quote: `;` and blanks */
	if (f->js_cr) {
		f->js_cr = false;
		if (c == '\n')
			return; /* "\\\r\n": one continuation */
	}
	if (f->js_esc) {
		f->js_esc = false;
		switch (c) {
		case '\n': return;
		case '\r': f->js_cr = true; return;
		case 'n': c = '\n'; break;
		case 't': c = '\t'; break;
		case 'r': c = '\r'; break;
		default: break; /* \\ \" \' and any other \c: c */
		}
		sys_data(f, &c, 1);
		return;
	}
	if (c == '\\') {
		f->js_esc = true;
		return;
	}
	if (c == '"') {
		f->js_done = true;
		return;
	}
	sys_data(f, &c, 1); /* a raw newline is not JavaScript, but its text is clear */
}

static void sys_block_start(struct sys_filter *f, bool b64)
{
	f->data_block = true;
	f->blocks++;
	f->b64 = b64;
	f->acc = 0;
	f->nbits = 0;
	f->gz_checked = f->gz = f->decided = f->keep = false;
	f->headlen = 0;
	f->js_esc = f->js_cr = f->js_done = false;
	f->block_start = trace_src_offset(&f->src);
}

/* A plain <script>'s first bytes: `var linuxPerfData = "` (blanks around
 * the `=` as they come) makes it a data block of the old layout. */
static void sys_js_probe(struct sys_filter *f, uint8_t c)
{
	static const char ident[] = "var linuxPerfData";
	const size_t il = sizeof(ident) - 1;
	if (f->jslen == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
		return;
	if (f->jslen < il) {
		if (c != (uint8_t)ident[f->jslen]) {
			f->js_probe = false;
			return;
		}
		f->jshead[f->jslen++] = (char)c;
		return;
	}
	/* after the name: blanks, one '=', blanks, the opening quote */
	if (c == ' ' || c == '\t')
		return;
	bool eq = f->jslen > il;
	if (!eq && c == '=') {
		f->jshead[f->jslen++] = '=';
		return;
	}
	f->js_probe = false;
	if (eq && c == '"') {
		sys_block_start(f, false);
		f->js = true;
	}
}

/* One byte of a block's body (not part of "</script>"). */
static int sys_body_byte(struct sys_filter *f, uint8_t c)
{
	if (f->js) {
		sys_js_byte(f, c);
		return 0;
	}
	if (!f->b64) {
		sys_data(f, &c, 1);
		return 0;
	}
	if (c == '=' || c == '\n' || c == '\r' || c == ' ' || c == '\t')
		return 0;
	int v = b64_value(c);
	if (v < 0)
		return sys_fail(f, "not base64 in a viewer-data block");
	f->acc = f->acc << 6 | (uint32_t)v;
	f->nbits += 6;
	if (f->nbits >= 8) {
		f->nbits -= 8;
		uint8_t b = (uint8_t)(f->acc >> f->nbits);
		return sys_decoded(f, &b, 1);
	}
	return 0;
}

static void sys_block_end(struct sys_filter *f)
{
	if (f->gz && !f->z_end && !f->failed)
		sys_fail(f, "the gzip data of a viewer-data block ends early");
	if (!f->decided)
		sys_decide(f);
	if (f->z_init)
		inflateEnd(&f->zs);
	f->z_init = f->z_end = false;
	f->data_block = f->js = false;
}

/* Is the tag just read a trace-data block, and of which kind? */
static void sys_tag(struct sys_filter *f)
{
	f->tag[f->taglen < SYS_TAG_MAX ? f->taglen : SYS_TAG_MAX - 1] = '\0';
	bool raw = strstr(f->tag, "trace-data") != NULL;
	bool viewer = strstr(f->tag, "viewer-data") != NULL;
	f->data_block = f->js = false;
	f->js_probe = !raw && !viewer;
	f->jslen = 0;
	if (raw || viewer)
		sys_block_start(f, viewer);
}

/* Scan input until the queue has data, or the end. 0 or -1. */
static int sys_fill(struct sys_filter *f)
{
	static const char open_tag[] = "<script", close_tag[] = "</script>";
	struct sim_error err;

	while (f->qpos == f->qlen && !f->eof && !f->failed) {
		f->qpos = f->qlen = 0;
		long n = trace_src_fill(&f->src, f->src.cap < 65536 ? f->src.cap : 65536, &err);
		if (n < 0) {
			f->err = err;
			f->failed = true;
			return -1;
		}
		if (n == 0) {
			if (f->st == SYS_BODY && f->data_block)
				sys_block_end(f); /* a page cut inside a block: what came is read */
			f->eof = true;
			break;
		}
		const uint8_t *p = f->src.buf + f->src.pos;
		long i = 0;
		/* stop early enough that one more byte cannot overflow the queue */
		for (; i < n && sys_room(f) >= 2 * 1024 + SYS_HEAD + 16 && !f->failed; i++) {
			uint8_t c = p[i];
			f->src.pos++;
			switch (f->st) {
			case SYS_SCAN:
				if (c == (uint8_t)open_tag[f->match] ||
				    (f->match && c >= 'A' && c <= 'Z' && c + 32 == (uint8_t)open_tag[f->match])) {
					if (!open_tag[++f->match]) {
						f->st = SYS_TAG;
						f->taglen = 0;
						f->match = 0;
					}
				} else {
					f->match = c == '<' ? 1 : 0;
				}
				break;
			case SYS_TAG:
				if (c == '>') {
					sys_tag(f);
					f->st = SYS_BODY;
					f->match = 0;
				} else if (f->taglen < SYS_TAG_MAX - 1) {
					f->tag[f->taglen++] = (char)c;
				}
				break;
			case SYS_BODY:
				if (c == (uint8_t)close_tag[f->match]) {
					if (!close_tag[++f->match]) {
						if (f->data_block)
							sys_block_end(f);
						f->st = SYS_SCAN;
						f->match = 0;
					}
					break;
				}
				/* the bytes of a partial "</script" were data */
				if (f->data_block)
					for (size_t k = 0; k < f->match && !f->failed; k++)
						sys_body_byte(f, (uint8_t)close_tag[k]);
				else if (f->js_probe && f->match)
					f->js_probe = false;
				f->match = 0;
				if (c == '<')
					f->match = 1;
				else if (f->data_block)
					sys_body_byte(f, c);
				else if (f->js_probe)
					sys_js_probe(f, c);
				break;
			}
		}
	}
	return f->failed ? -1 : 0;
}

static ssize_t sys_cookie_read(void *c, char *buf, size_t size)
{
	struct sys_filter *f = c;
	if (sys_fill(f) < 0) {
		errno = EIO;
		return -1;
	}
	size_t n = f->qlen - f->qpos < size ? f->qlen - f->qpos : size;
	memcpy(buf, f->q + f->qpos, n);
	f->qpos += n;
	return (ssize_t)n;
}

static int sys_cookie_close(void *c)
{
	(void)c; /* the reader's state frees the filter */
	return 0;
}

/* A stream of its own (the ftrace whole-stack replay reads lines with
 * stdio): closing it frees the filter and its source. */
static int sys_cookie_close_own(void *c)
{
	struct sys_filter *f = c;
	if (f->z_init)
		inflateEnd(&f->zs);
	trace_src_close(&f->src);
	free(f);
	return 0;
}

int systrace_text_fopen(const char *path, FILE **out, struct sim_error *err)
{
	struct sys_filter *f = calloc(1, sizeof(*f));
	if (!f)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	int rc = trace_src_open(&f->src, path, TRACE_SRC_BUF, err);
	if (rc) {
		free(f);
		return rc;
	}
	cookie_io_functions_t io = { .read = sys_cookie_read, .close = sys_cookie_close_own };
	*out = fopencookie(f, "r", io);
	if (!*out) {
		sys_cookie_close_own(f);
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	}
	return 0;
}

/* ---- reader ------------------------------------------------------------- */

struct sys_reader {
	struct sys_filter *f;
	FILE *fp;
	void *ftb;                 /* the ftrace block reader over fp */
	char name[600];
};

static void sys_close(void *state)
{
	struct sys_reader *s = state;
	if (!s)
		return;
	if (s->ftb)
		trace_ftrace_ops.close(s->ftb);
	if (s->fp)
		fclose(s->fp);
	if (s->f) {
		if (s->f->z_init)
			inflateEnd(&s->f->zs);
		trace_src_close(&s->f->src);
		free(s->f);
	}
	free(s);
}

/* Over an opened source (taken over). */
static int sys_open_over(struct trace_src *src, const struct trace_opts *opts, void **state,
			 struct sim_error *err)
{
	struct sys_reader *s = calloc(1, sizeof(*s));
	if (s)
		s->f = calloc(1, sizeof(*s->f));
	if (!s || !s->f) {
		free(s);
		trace_src_close(src);
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", src->name);
	}
	trace_src_move(&s->f->src, src);
	snprintf(s->name, sizeof(s->name), "%s (ftrace text of its trace-data blocks)", s->f->src.name);
	cookie_io_functions_t io = { .read = sys_cookie_read, .close = sys_cookie_close };
	s->fp = fopencookie(s->f, "r", io);
	int rc = s->fp ? ftrace_block_open_stream(s->fp, s->name, opts, &s->ftb, err)
		       : sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", s->name);
	if (rc) {
		sys_close(s);
		return rc;
	}
	*state = s;
	return 0;
}

static int sys_open(const char *path, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	struct trace_src src;
	int rc = trace_src_open(&src, path, TRACE_SRC_BUF, err);
	return rc ? rc : sys_open_over(&src, opts, state, err);
}

static int sys_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
			void **state, struct sim_error *err)
{
	struct trace_src src;
	int rc = trace_src_open_mem_z(&src, buf, len, name ? name : "<memory>", err);
	if (rc) {
		trace_src_close(&src);
		return rc;
	}
	return sys_open_over(&src, opts, state, err);
}

static int sys_open_src(void *src, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	return sys_open_over(src, opts, state, err);
}

static int sys_next(void *state, struct trace_rec *rec, struct sim_error *err)
{
	struct sys_reader *s = state;
	int rc = trace_ftrace_ops.next(s->ftb, rec, err);
	if (rc < 0 && s->f->failed) {
		*err = s->f->err;
		return SIM_E_INPUT;
	}
	if (rc == 0 && !s->f->kept)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %llu: no trace-data block holds ftrace "
				  "text (%llu blocks: %llu JSON, %llu other); record with atrace/systrace "
				  "and its ftrace categories (e.g. disk)", s->f->src.name,
				  (unsigned long long)trace_src_offset(&s->f->src),
				  (unsigned long long)s->f->blocks, (unsigned long long)s->f->skipped_json,
				  (unsigned long long)s->f->skipped_other);
	return rc;
}

static void sys_report(void *state, FILE *out)
{
	struct sys_reader *s = state;
	fprintf(out, "trace-data blocks: %llu (ftrace text %llu, JSON %llu, other %llu: skipped)\n",
		(unsigned long long)s->f->blocks, (unsigned long long)s->f->kept,
		(unsigned long long)s->f->skipped_json, (unsigned long long)s->f->skipped_other);
	if (trace_ftrace_ops.report)
		trace_ftrace_ops.report(s->ftb, out);
}

/* HTML whose first bytes say systrace (its title, a trace-data block) or
 * at least HTML (no other reader takes it; one without ftrace data is an
 * error saying so). */
static int sys_probe(const uint8_t *buf, size_t len)
{
	size_t i = 0;
	while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
		i++;
	if (len - i < 5 || buf[i] != '<')
		return 0;
	bool html = !strncasecmp((const char *)buf + i, "<!DOCTYPE html", len - i < 14 ? len - i : 14) ||
		    !strncasecmp((const char *)buf + i, "<html", 5);
	if (!html)
		return 0;
	if (memmem(buf, len, "Android System Trace", 20) || memmem(buf, len, "trace-data", 10) ||
	    memmem(buf, len, "viewer-data", 11))
		return 90;
	return 50;
}

const struct trace_reader_ops trace_systrace_ops = {
	.name = "systrace",
	.summary = "Android systrace / atrace HTML (the ftrace text of its trace-data blocks), plain or gz",
	.cpus = true,
	.identity = TRACE_ID_PID | TRACE_ID_COMM,
	.probe = sys_probe,
	.open = sys_open,
	.open_mem = sys_open_mem,
	.open_src = sys_open_src,
	.next = sys_next,
	.close = sys_close,
	.report = sys_report,
};
