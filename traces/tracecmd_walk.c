/* Structural walk of a trace-cmd trace.dat (trace-cmd.dat.v6(5), v7(5))
 * before Debian's libtracecmd 3.1 reads it. The library trusts the sizes,
 * counts and offsets it reads: it allocates what a count asks for, strdup()s
 * strings that may have no end, and its kbuffer reads as many bytes as a
 * page's commit field says. Each rule here stands for one such trust (most
 * were found by fuzzing, tests/fuzz/campaign.md) and turns a crash or a
 * multi-gigabyte allocation inside the library into one error naming the
 * byte offset of the bad field.
 *
 * v6 is one chain: header_page, header_event, format files, kallsyms, printk
 * formats, cmdlines, CPU count, options, flyrecord CPU table, CPU pages.
 * v7 is a chain of OPTIONS sections whose options name the other sections
 * (16..21: the same parts as v6) and the flyrecord buffers; sections may be
 * compressed (zstd or zlib, lib/trace-cmd/trace-compress-*.c) and are
 * uncompressed here to be walked; flyrecord data may be compressed in chunks.
 * Offsets inside an uncompressed section are given from that section's start
 * and the message says so.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "traces/tracecmd_walk.h"

/* Bound on an uncompressed v7 section or data chunk: trace-cmd writes
 * chunks of a few pages and sections of at most a few MB of formats. */
#define TCW_MAX_UNCOMPRESSED (64u << 20)
#define TCW_MAX_CPUS 4096u
#define TCW_MAX_OPTION_SECTIONS 64

enum {
	TCW_OPT_DONE = 0, TCW_OPT_DATE = 1, TCW_OPT_CPUSTAT = 2, TCW_OPT_BUFFER = 3,
	TCW_OPT_TRACECLOCK = 4, TCW_OPT_UNAME = 5, TCW_OPT_HOOK = 6, TCW_OPT_OFFSET = 7,
	TCW_OPT_CPUCOUNT = 8, TCW_OPT_VERSION = 9, TCW_OPT_PROCMAPS = 10, TCW_OPT_TIME_SHIFT = 12,
	TCW_OPT_GUEST = 13, TCW_OPT_HEADER_INFO = 16, TCW_OPT_CMDLINES = 21, TCW_OPT_BUFFER_TEXT = 22,
};
#define TCW_NPARTS (TCW_OPT_CMDLINES - TCW_OPT_HEADER_INFO + 1)

struct tc_walk {
	const uint8_t *p;   /* the file (or an uncompressed section) */
	uint64_t len, off;
	bool be;
	const char *name;   /* what offsets are counted in, for messages */
	struct sim_error *err;
};

struct tcw_file {
	struct tc_walk w;   /* the whole file */
	uint64_t page, longsz;
	bool v7;
	const char *alg;    /* v7 compression name */
	tracecmd_format_check_fn check;
	uint64_t part_at[TCW_NPARTS];   /* v7: section offsets, 0 = not named */
	uint64_t cpucount;              /* v6: a CPUCOUNT option's value, 0 = none */
	bool clock_option;              /* a TRACECLOCK option was seen */
	uint8_t *zbuf;                  /* one uncompressed data chunk */
	size_t zcap;
};

static int tc_need(struct tc_walk *w, uint64_t n, const char *what)
{
	if (n > w->len - w->off)
		return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %s needs %" PRIu64
				  " bytes, %" PRIu64 " left", w->name, w->off, what, n, w->len - w->off);
	return 0;
}

static int tc_num(struct tc_walk *w, unsigned size, const char *what, uint64_t *v)
{
	int rc = tc_need(w, size, what);
	if (rc)
		return rc;
	uint64_t x = 0;
	for (unsigned i = 0; i < size; i++) {
		unsigned k = w->be ? i : size - 1 - i;
		x = x << 8 | w->p[w->off + k];
	}
	w->off += size;
	*v = x;
	return 0;
}

static int tc_skip_sized(struct tc_walk *w, unsigned size_bytes, const char *what)
{
	uint64_t n, at = w->off;
	int rc = tc_num(w, size_bytes, what, &n);
	if (rc)
		return rc;
	if (n > w->len - w->off)
		return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %s of %" PRIu64
				  " bytes passes the end (%" PRIu64 " bytes)", w->name, at, what, n, w->len);
	w->off += n;
	return 0;
}

static int tc_string(struct tc_walk *w, const char *what, const char **s)
{
	const uint8_t *nul = memchr(w->p + w->off, '\0', (size_t)(w->len - w->off));
	if (!nul)
		return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %s has no end",
				  w->name, w->off, what);
	*s = (const char *)w->p + w->off;
	w->off = (uint64_t)(nul - w->p) + 1;
	return 0;
}

static int tc_expect(struct tc_walk *w, const char *lit, size_t n, const char *what)
{
	int rc = tc_need(w, n, what);
	if (rc)
		return rc;
	if (memcmp(w->p + w->off, lit, n))
		return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": expected \"%s\"",
				  w->name, w->off, what);
	w->off += n;
	return 0;
}

static int tc_format(struct tcw_file *f, struct tc_walk *w, const char *sys, const char *what)
{
	uint64_t at = w->off;
	int rc = tc_skip_sized(w, 8, what);
	if (rc || !f->check)
		return rc;
	return f->check(sys, w->p + at + 8, w->off - at - 8, at + 8, w->name, w->err);
}

/* ---- the parts v6 chains and v7 puts in sections 16..21 ------------------ */

static int tcw_header_info(struct tcw_file *f, struct tc_walk *w)
{
	(void)f;
	int rc;
	if ((rc = tc_expect(w, "header_page", 12, "header_page")) ||
	    (rc = tc_skip_sized(w, 8, "header_page")) ||
	    (rc = tc_expect(w, "header_event", 13, "header_event")))
		return rc;
	return tc_skip_sized(w, 8, "header_event");
}

static int tcw_ftrace_events(struct tcw_file *f, struct tc_walk *w)
{
	uint64_t n;
	int rc = tc_num(w, 4, "the ftrace format count", &n);
	for (uint64_t i = 0; !rc && i < n; i++)
		rc = tc_format(f, w, "ftrace", "an ftrace event format");
	return rc;
}

static int tcw_event_formats(struct tcw_file *f, struct tc_walk *w)
{
	uint64_t nsys, n;
	int rc = tc_num(w, 4, "the event system count", &nsys);
	for (uint64_t s = 0; !rc && s < nsys; s++) {
		const char *sys;
		if ((rc = tc_string(w, "an event system name", &sys)) ||
		    (rc = tc_num(w, 4, "an event count", &n)))
			return rc;
		for (uint64_t i = 0; !rc && i < n; i++)
			rc = tc_format(f, w, sys, "an event format");
	}
	return rc;
}

static int tcw_kallsyms(struct tcw_file *f, struct tc_walk *w)
{
	(void)f;
	return tc_skip_sized(w, 4, "kallsyms");
}

/* trace_printk formats, a line "ADDR : FORMAT" each (printk_formats in
 * tracefs): libtraceevent 1.7.1 takes the format from one byte past the
 * ':' and, a leading quote dropped, looks at its last three bytes without
 * checking its length (tep_register_print_string: read before the heap
 * block). The library reads up to the first NUL. */
static int tcw_printk(struct tcw_file *f, struct tc_walk *w)
{
	(void)f;
	uint64_t at = w->off + 4;
	int rc = tc_skip_sized(w, 4, "printk formats");
	if (rc)
		return rc;
	const uint8_t *t = w->p + at;
	uint64_t n = w->off - at;
	const uint8_t *nul = memchr(t, '\0', (size_t)n);
	if (nul)
		n = (uint64_t)(nul - t);
	for (uint64_t i = 0; i < n;) {
		uint64_t e = i, k = i;
		while (e < n && t[e] != '\n')
			e++;
		while (k < e && t[k] == ':')
			k++;
		if (k < e) {
			while (k < e && t[k] != ':')
				k++;
			uint64_t fmt = k + 2;  /* past ':' and the byte after it */
			if (fmt < e && t[fmt] == '"')
				fmt++;
			if (k == e || fmt > e || e - fmt < 3)
				return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": a printk "
						  "format line is not \"ADDR : FORMAT\" with a format of 3 or more "
						  "bytes", w->name, at + i);
		}
		i = e + 1;
	}
	return 0;
}

static int tcw_cmdlines(struct tcw_file *f, struct tc_walk *w)
{
	(void)f;
	return tc_skip_sized(w, 8, "saved cmdlines");
}

static const struct {
	const char *name;
	int (*walk)(struct tcw_file *, struct tc_walk *);
} tcw_parts[TCW_NPARTS] = {
	{ "HEADER INFO", tcw_header_info },   { "FTRACE EVENT FORMATS", tcw_ftrace_events },
	{ "EVENT FORMATS", tcw_event_formats }, { "KALLSYMS", tcw_kallsyms },
	{ "TRACE_PRINTK", tcw_printk },       { "SAVED COMMAND LINES", tcw_cmdlines },
};

/* ---- compression (v7) ----------------------------------------------------- */

static bool tcw_alg_known(const char *alg)
{
	return !strcmp(alg, "zstd") || !strcmp(alg, "zlib");
}

/* As trace-compress-zstd.c / -zlib.c do; the output must be exactly n bytes. */
static bool tcw_uncompress(const char *alg, const uint8_t *in, uint64_t in_n, uint8_t *out, uint64_t n)
{
	if (!strcmp(alg, "zstd")) {
		size_t r = ZSTD_decompress(out, (size_t)n, in, (size_t)in_n);
		return !ZSTD_isError(r) && r == n;
	}
	uLongf got = (uLongf)n;
	return uncompress(out, &got, in, (uLong)in_n) == Z_OK && got == n;
}

/* Opens the section at `at` (16-byte header: id, flags, string id, size) as
 * a walk over its contents; a compressed one is uncompressed into *owned. */
static int tcw_section(struct tcw_file *f, uint64_t at, const char *what, struct tc_walk *sub,
		       uint8_t **owned, char *subname, size_t subcap, uint64_t *id)
{
	struct tc_walk h = f->w;
	uint64_t flags, str, size, csize, usize;
	int rc;

	*owned = NULL;
	if (at < 18 || at >= h.len)
		return sim_errorf(h.err, SIM_E_INPUT, "%s: %s section at byte offset %" PRIu64 " is outside "
				  "the file (%" PRIu64 " bytes)", h.name, what, at, h.len);
	h.off = at;
	if ((rc = tc_num(&h, 2, "a section id", id)) || (rc = tc_num(&h, 2, "section flags", &flags)) ||
	    (rc = tc_num(&h, 4, "a section name", &str)) || (rc = tc_num(&h, 8, "a section size", &size)))
		return rc;
	if (size > h.len - h.off)
		return sim_errorf(h.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %s section of %" PRIu64
				  " bytes passes the end of the file", h.name, at + 8, what, size);
	*sub = h;
	sub->len = h.off + size;
	if (!(flags & 1))
		return 0;
	if (!tcw_alg_known(f->alg))
		return sim_errorf(h.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": a compressed %s section, "
				  "but the file's compression is '%.16s' (libtracecmd knows zstd and zlib)",
				  h.name, at, what, f->alg);
	if ((rc = tc_num(sub, 4, "a compressed size", &csize)) ||
	    (rc = tc_num(sub, 4, "an uncompressed size", &usize)))
		return rc;
	if (csize > sub->len - sub->off || usize > TCW_MAX_UNCOMPRESSED)
		return sim_errorf(h.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": compressed %s section "
				  "sizes %" PRIu64 " -> %" PRIu64 " do not fit (section %" PRIu64 " bytes, at most %u "
				  "uncompressed)", h.name, at + 16, what, csize, usize, size, TCW_MAX_UNCOMPRESSED);
	*owned = malloc(usize ? (size_t)usize : 1);
	if (!*owned)
		return sim_errorf(h.err, SIM_E_NOMEM, "%s: out of memory", h.name);
	if (!tcw_uncompress(f->alg, sub->p + sub->off, csize, *owned, usize))
		return sim_errorf(h.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %s section does not "
				  "uncompress (%s) to its %" PRIu64 " bytes", h.name, at + 24, what, f->alg, usize);
	snprintf(subname, subcap, "%s: %s section at byte offset %" PRIu64 ", uncompressed", h.name, what, at);
	sub->p = *owned;
	sub->len = usize;
	sub->off = 0;
	sub->name = subname;
	return 0;
}

/* ---- CPU data --------------------------------------------------------------- */

/* Pages of one CPU in w->p[start, start + size): each begins with its
 * timestamp and commit, the bytes of events in it (top bits: missed-events
 * flags); libtraceevent's kbuffer reads that many without checking them
 * against the page (fuzzing: a SEGV). */
static int tcw_pages(const struct tcw_file *f, const struct tc_walk *w, uint64_t start, uint64_t size,
		     uint64_t cpu)
{
	struct tc_walk pw = *w;
	for (uint64_t pg = start; pg < start + size; pg += f->page) {
		uint64_t commit;
		int rc;
		pw.off = pg + 8;
		if ((rc = tc_num(&pw, (unsigned)f->longsz, "a data page's commit", &commit)))
			return rc;
		commit &= (1u << 27) - 1;
		if (commit > f->page - 8 - f->longsz)
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": CPU %" PRIu64
					  " data page holds %" PRIu64 " bytes of events, more than its %" PRIu64
					  " bytes", w->name, pg + 8, cpu, commit, f->page - 8 - f->longsz);
	}
	return 0;
}

/* One CPU's data at file offset off: whole pages, or (compressed) a chunk
 * table the library loads whole (tracecmd_load_chunks_info callocs the count
 * it reads: fuzzing, 8 GB) and chunks of whole pages. */
static int tcw_cpu_data(struct tcw_file *f, uint64_t cpu, uint64_t off, uint64_t size, uint64_t at,
			bool compressed)
{
	const char *name = f->w.name;
	if (off > f->w.len || size > f->w.len - off)
		return sim_errorf(f->w.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": CPU %" PRIu64
				  " data (%" PRIu64 " bytes at %" PRIu64 ") passes the end of the file (%"
				  PRIu64 " bytes): cut short?", name, at, cpu, size, off, f->w.len);
	if (!compressed) {
		if (size % f->page)
			return sim_errorf(f->w.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": CPU %" PRIu64
					  " data size %" PRIu64 " is not whole pages of %" PRIu64, name, at, cpu,
					  size, f->page);
		return tcw_pages(f, &f->w, off, size, cpu);
	}
	if (!size)
		return 0;
	/* trace-cmd 3.1 records a size a few bytes short of the chunk table
	 * and the library reads the table regardless: bounded by the file */
	struct tc_walk c = f->w;
	uint64_t count, zsize, usize;
	int rc;
	c.off = off;
	if ((rc = tc_num(&c, 4, "a chunk count", &count)))
		return rc;
	if (count > (c.len - c.off) / 8)
		return sim_errorf(f->w.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": CPU %" PRIu64 " has %"
				  PRIu64 " compressed chunks, more than the rest of the file can hold", name,
				  off, cpu, count);
	for (uint64_t i = 0; i < count; i++) {
		uint64_t ch = c.off;
		if ((rc = tc_num(&c, 4, "a chunk's compressed size", &zsize)) ||
		    (rc = tc_num(&c, 4, "a chunk's uncompressed size", &usize)))
			return rc;
		if (zsize > c.len - c.off)
			return sim_errorf(f->w.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": a chunk of %"
					  PRIu64 " compressed bytes (CPU %" PRIu64 ") passes the end of the file",
					  name, ch, zsize, cpu);
		if (usize % f->page || usize > TCW_MAX_UNCOMPRESSED)
			return sim_errorf(f->w.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": a chunk of %"
					  PRIu64 " uncompressed bytes is not whole pages of %" PRIu64 " (at most %u)",
					  name, ch + 4, usize, f->page, TCW_MAX_UNCOMPRESSED);
		if (usize > f->zcap) {
			uint8_t *nb = realloc(f->zbuf, (size_t)usize);
			if (!nb)
				return sim_errorf(f->w.err, SIM_E_NOMEM, "%s: out of memory", name);
			f->zbuf = nb;
			f->zcap = (size_t)usize;
		}
		if (!tcw_uncompress(f->alg, c.p + c.off, zsize, f->zbuf, usize))
			return sim_errorf(f->w.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": CPU %" PRIu64
					  " chunk does not uncompress (%s) to its %" PRIu64 " bytes", name, ch + 8,
					  cpu, f->alg, usize);
		char zname[600];
		snprintf(zname, sizeof(zname), "%s: CPU %" PRIu64 " chunk at byte offset %" PRIu64
			 ", uncompressed", name, cpu, ch);
		struct tc_walk z = { f->zbuf, usize, 0, f->w.be, zname, f->w.err };
		if ((rc = tcw_pages(f, &z, 0, usize, cpu)))
			return rc;
		c.off += zsize;
	}
	return 0;
}

/* ---- options ------------------------------------------------------------------ */

static int tcw_bad_option(const struct tc_walk *w, uint64_t at, const char *why)
{
	return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %s", w->name, at, why);
}

/* A v7 BUFFER option (offset, name, clock, page size, CPU count, then per
 * CPU: id, offset, size; trace-input.c handle_buffer_option): the library
 * callocs the count and the highest id + 1. The top buffer's data is walked. */
static int tcw_buffer(struct tcw_file *f, struct tc_walk *w, uint64_t size)
{
	struct tc_walk b = *w;
	uint64_t boff, bpage, ncpu, at = w->off;
	const char *bname, *clock;
	int rc;

	b.len = w->off + size;
	if ((rc = tc_num(&b, 8, "a buffer's section offset", &boff)) ||
	    (rc = tc_string(&b, "a buffer's name", &bname)) || (rc = tc_string(&b, "a buffer's clock", &clock)) ||
	    (rc = tc_num(&b, 4, "a buffer's page size", &bpage)) || (rc = tc_num(&b, 4, "a buffer's CPU count", &ncpu)))
		return rc;
	if (ncpu > TCW_MAX_CPUS || ncpu * 20 > b.len - b.off)
		return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": a buffer of %" PRIu64
				  " CPUs (at most %u, 20 bytes each in its option)", w->name, b.off - 4, ncpu,
				  TCW_MAX_CPUS);
	bool top = !*bname, compressed = false;
	if (top) {
		if (bpage != f->page)
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": the top buffer's "
					  "page size %" PRIu64 " is not the file's %" PRIu64, w->name, b.off - 8,
					  bpage, f->page);
		struct tc_walk h = f->w;
		uint64_t id, flags;
		if (boff < 18 || boff > h.len)
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": flyrecord section "
					  "at %" PRIu64 " is outside the file (%" PRIu64 " bytes)", w->name, at,
					  boff, h.len);
		h.off = boff;
		if ((rc = tc_num(&h, 2, "the flyrecord section id", &id)) ||
		    (rc = tc_num(&h, 2, "the flyrecord section flags", &flags)))
			return rc;
		compressed = flags & 1;
		if (compressed && !tcw_alg_known(f->alg))
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": compressed trace "
					  "data, but the file's compression is '%.16s'", f->w.name, boff, f->alg);
	}
	for (uint64_t c = 0; c < ncpu; c++) {
		uint64_t id, off, sz, cat = b.off;
		if ((rc = tc_num(&b, 4, "a CPU id", &id)) || (rc = tc_num(&b, 8, "a CPU data offset", &off)) ||
		    (rc = tc_num(&b, 8, "a CPU data size", &sz)))
			return rc;
		if (id >= TCW_MAX_CPUS)
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": CPU id %" PRIu64
					  " (at most %u)", w->name, cat, id, TCW_MAX_CPUS - 1);
		if (top && (rc = tcw_cpu_data(f, id, off, sz, cat + 4, compressed)))
			return rc;
	}
	return 0;
}

/* The tracefs trace_clock text, "local [global] ...", to its first NUL or
 * n bytes: the first space-separated word starting '[' is the current
 * clock, and one of brackets only leaves libtracecmd (extract_trace_clock)
 * sscanf()ing NULL. */
static bool tcw_clock_named(const uint8_t *s, uint64_t n)
{
	const uint8_t *nul = memchr(s, '\0', (size_t)n);
	if (nul)
		n = (uint64_t)(nul - s);
	for (uint64_t k = 0; k < n;) {
		uint64_t e = k;
		while (e < n && s[e] != ' ')
			e++;
		if (s[k] == '[') {
			for (uint64_t j = k; j < e; j++)
				if (s[j] != '[' && s[j] != ']')
					return true;
			return false;
		}
		k = e;
		while (k < n && s[k] == ' ')
			k++;
	}
	return true;
}

/* One option of `size` bytes at w->off (v6 and v7; handle_options in
 * trace-input.c). The walk's position is left at the option's data. */
static int tcw_option(struct tcw_file *f, struct tc_walk *w, uint64_t id, uint64_t size)
{
	const uint8_t *d = w->p + w->off;
	uint64_t at = w->off;
	bool nul = size && memchr(d, '\0', (size_t)size);

	switch (id) {
	case TCW_OPT_DATE:
	case TCW_OPT_OFFSET:
	case TCW_OPT_UNAME:
	case TCW_OPT_VERSION:
		/* strtoll() / strdup() of the option's bytes */
		return nul ? 0 : tcw_bad_option(w, at, "a text option without its terminating NUL");
	case TCW_OPT_CPUSTAT:
		/* the library writes buf[size - 1] */
		return size ? 0 : tcw_bad_option(w, at, "an empty CPUSTAT option");
	case TCW_OPT_TRACECLOCK:
		/* trace-cmd record writes it empty, as a marker: a v6 file then
		 * holds the trace_clock text after its CPU table (tcw_v6) */
		f->clock_option = true;
		return tcw_clock_named(d, size) ? 0 : tcw_bad_option(w, at, "a trace clock whose current "
								     "clock (\"[name]\") has no name");
	case TCW_OPT_HOOK:
		/* tracecmd_create_event_hook() printf()s each hook to stdout
		 * (where mobisim writes its output) and a malformed one leaves
		 * handle_options following NULL */
		return tcw_bad_option(w, at, "an event-hook option (trace-cmd record -H): libtracecmd "
				      "prints hooks on stdout, so this reader refuses them");
	case TCW_OPT_CPUCOUNT: {
		if (size > 8)
			return 0;  /* the library ignores it */
		if (size < 4)
			return tcw_bad_option(w, at, "a CPUCOUNT option shorter than 4 bytes");
		uint64_t n = 0;
		struct tc_walk v = *w;
		tc_num(&v, 4, "a CPU count", &n);
		if (n == 0 || n > TCW_MAX_CPUS)
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": CPUCOUNT %" PRIu64
					  " (expected 1..%u)", w->name, at, n, TCW_MAX_CPUS);
		f->cpucount = n;
		return 0;
	}
	case TCW_OPT_PROCMAPS: {
		if (!size)
			return tcw_bad_option(w, at, "an empty PROCMAPS option");
		if (d[size - 1])
			return 0;  /* the library skips it */
		/* "PID NLIBS NAME\n" then NLIBS lines "START END PATH\n" of 6
		 * bytes or more: the library callocs NLIBS entries (a map whose
		 * lines are fewer only makes it drop the option) */
		unsigned pid, nlibs;
		if (sscanf((const char *)d, "%x %x", &pid, &nlibs) != 2)
			return 0;
		if (nlibs > size / 6)
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": a PROCMAPS option "
					  "announces %u libraries in %" PRIu64 " bytes", w->name, at, nlibs, size);
		return 0;
	}
	case TCW_OPT_TIME_SHIFT: {
		if (size < 16)
			return 0;  /* the library ignores it */
		/* peer id, flags, CPU count, then per CPU a sample count and three
		 * arrays of 8-byte values: the library callocs both counts */
		struct tc_walk v = *w;
		uint64_t ncpu = 0, n = 0;
		v.len = w->off + size;
		v.off += 12;
		tc_num(&v, 4, "a CPU count", &ncpu);
		if (ncpu > (v.len - v.off) / 4)
			return tcw_bad_option(w, at, "a TIME_SHIFT option announces more CPUs than it holds");
		for (uint64_t c = 0; c < ncpu; c++) {
			int rc = tc_num(&v, 4, "a time-shift sample count", &n);
			if (rc)
				return rc;
			if (n > (v.len - v.off) / 24)
				return tcw_bad_option(w, v.off - 4, "a TIME_SHIFT option announces more samples "
						      "than it holds");
			v.off += 24 * n;
		}
		return 0;
	}
	case TCW_OPT_GUEST: {
		/* name, trace id, vCPU count, then per vCPU its id and a PID: the
		 * library callocs the count (a bad id only drops the option) */
		if (!nul)
			return tcw_bad_option(w, at, "a GUEST option whose name has no end");
		struct tc_walk v = *w;
		const char *gname;
		uint64_t nv = 0;
		v.len = w->off + size;
		tc_string(&v, "a guest name", &gname);
		int rc;
		if ((rc = tc_need(&v, 12, "a guest's trace id and vCPU count")))
			return rc;
		v.off += 8;
		tc_num(&v, 4, "a vCPU count", &nv);
		if (nv > (v.len - v.off) / 8)
			return tcw_bad_option(w, v.off - 4, "a GUEST option announces more vCPUs than it holds");
		return 0;
	}
	case TCW_OPT_BUFFER:
	case TCW_OPT_BUFFER_TEXT:
		if (id == TCW_OPT_BUFFER_TEXT && f->v7)
			return tcw_bad_option(w, at, "a latency-tracer trace.dat (text, no per-CPU event "
					      "records): nothing to read");
		if (f->v7)
			return tcw_buffer(f, w, size);
		/* v6: an offset and the instance's name, strdup()ed */
		if (size < 8 || !memchr(d + 8, '\0', (size_t)(size - 8)))
			return tcw_bad_option(w, at, "a BUFFER option without its offset and name");
		return 0;
	default:
		if (f->v7 && id >= TCW_OPT_HEADER_INFO && id <= TCW_OPT_CMDLINES && size >= 8) {
			struct tc_walk v = *w;
			return tc_num(&v, 8, "a section offset", &f->part_at[id - TCW_OPT_HEADER_INFO]);
		}
		return 0;
	}
}

/* ---- v7 ---------------------------------------------------------------------- */

/* The options inside one OPTIONS section (w over its contents); *next is
 * what its DONE says. */
static int tcw_options_v7(struct tcw_file *f, struct tc_walk *w, uint64_t *next)
{
	for (;;) {
		uint64_t oid = 0, osize = 0, at = w->off;
		int rc;
		if (w->len - w->off < 6)
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": options section "
					  "ends without its DONE option", w->name, at);
		tc_num(w, 2, "an option id", &oid);
		tc_num(w, 4, "an option size", &osize);
		if (osize > w->len - w->off)
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": option %" PRIu64
					  " of %" PRIu64 " bytes passes the end of its section", w->name, at, oid, osize);
		if (oid == TCW_OPT_DONE) {
			if (osize != 8)
				return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": DONE option of %"
						  PRIu64 " bytes, not 8", w->name, at, osize);
			tc_num(w, 8, "the next options offset", next);
			if (*next && (*next >= f->w.len || *next < 18))
				return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": next options "
						  "section at %" PRIu64 " is outside the file", w->name, at + 6, *next);
			return 0;
		}
		if ((rc = tcw_option(f, w, oid, osize)))
			return rc;
		w->off += osize;
	}
}

/* libtracecmd's first read of a v7 file (read_metadata_strings, from
 * tracecmd_alloc_fd) steps through the sections one after another from the
 * first one, each by its size, until a header does not fit, and appends
 * every STRINGS section (id 15) to one buffer: it reallocs by the size the
 * section gives, truncated to 32 bits (fuzzing: 4 GB), before reading it. */
static int tcw_strings_v7(struct tcw_file *f, uint64_t first)
{
	struct tc_walk h = f->w;
	h.off = first;
	while (h.len - h.off >= 16) {
		uint64_t at = h.off, id = 0, flags = 0, str = 0, size = 0, csize = 0, usize = 0;
		tc_num(&h, 2, "a section id", &id);
		tc_num(&h, 2, "section flags", &flags);
		tc_num(&h, 4, "a section name", &str);
		tc_num(&h, 8, "a section size", &size);
		if (id == 15) {
			uint64_t need = size;
			if (flags & 1) {
				int rc;
				if ((rc = tc_num(&h, 4, "a compressed size", &csize)) ||
				    (rc = tc_num(&h, 4, "an uncompressed size", &usize)))
					return rc;
				h.off -= 8;
				need = csize + 8;
				if (usize > TCW_MAX_UNCOMPRESSED)
					return sim_errorf(h.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": a "
							  "compressed STRINGS section of %" PRIu64 " bytes (at most %u)",
							  h.name, at + 20, usize, TCW_MAX_UNCOMPRESSED);
			}
			if (need > h.len - h.off || size > h.len - h.off)
				return sim_errorf(h.err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": STRINGS section "
						  "of %" PRIu64 " bytes passes the end of the file (%" PRIu64 " bytes)",
						  h.name, at + 8, size, h.len);
		}
		if (size > h.len - h.off)
			break;  /* the library's next read fails here */
		h.off += size;
	}
	return 0;
}

static int tcw_v7(struct tcw_file *f)
{
	struct tc_walk *w = &f->w;
	const char *algver;
	uint64_t v, at;
	int rc;

	if ((rc = tc_string(w, "the compression name", &f->alg)) ||
	    (rc = tc_string(w, "the compression version", &algver)))
		return rc;
	at = w->off;
	if ((rc = tc_num(w, 8, "the first section offset", &v)))
		return rc;
	if (v < w->off || v >= w->len)
		return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": first section at %"
				  PRIu64 " is outside the file (%" PRIu64 " bytes)", w->name, at, v, w->len);
	/* handle_option_done follows each DONE's offset: a loop would recurse */
	for (unsigned nsec = 0; v; nsec++) {
		struct tc_walk s;
		uint8_t *owned;
		uint64_t id;
		char sname[600];
		if (nsec == TCW_MAX_OPTION_SECTIONS)
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": more than %d "
					  "options sections", w->name, v, TCW_MAX_OPTION_SECTIONS);
		rc = tcw_section(f, v, "OPTIONS", &s, &owned, sname, sizeof(sname), &id);
		if (!rc && id != 0)
			rc = sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": section %" PRIu64
					" where an options section (0) belongs", w->name, v, id);
		if (!rc)
			rc = tcw_options_v7(f, &s, &v);
		free(owned);
		if (rc)
			return rc;
	}
	if ((rc = tcw_strings_v7(f, at + 8)))
		return rc;
	for (int k = 0; k < TCW_NPARTS; k++) {
		struct tc_walk s;
		uint8_t *owned;
		uint64_t id;
		char sname[600];
		if (!f->part_at[k])
			continue;
		rc = tcw_section(f, f->part_at[k], tcw_parts[k].name, &s, &owned, sname, sizeof(sname), &id);
		if (!rc)
			rc = tcw_parts[k].walk(f, &s);
		free(owned);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- v6 ---------------------------------------------------------------------- */

static int tcw_v6(struct tcw_file *f)
{
	struct tc_walk *w = &f->w;
	uint64_t ncpu, cpu_at;
	int rc;

	for (int k = 0; k < TCW_NPARTS; k++)
		if ((rc = tcw_parts[k].walk(f, w)))
			return rc;
	cpu_at = w->off;
	if ((rc = tc_num(w, 4, "the CPU count", &ncpu)))
		return rc;
	if (ncpu == 0 || ncpu > TCW_MAX_CPUS)
		return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %" PRIu64
				  " CPUs (expected 1..%u)", w->name, cpu_at, ncpu, TCW_MAX_CPUS);
	for (;;) {
		if ((rc = tc_need(w, 10, "a section name")))
			return rc;
		const char *sec = (const char *)w->p + w->off;
		if (!memcmp(sec, "options  \0", 10)) {
			w->off += 10;
			for (;;) {
				uint64_t id, size;
				if ((rc = tc_num(w, 2, "an option id", &id)))
					return rc;
				if (id == TCW_OPT_DONE)
					break;
				uint64_t at = w->off;
				if ((rc = tc_num(w, 4, "an option size", &size)))
					return rc;
				if (size > w->len - w->off)
					return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": an option "
							  "of %" PRIu64 " bytes passes the end of the file", w->name,
							  at, size);
				if ((rc = tcw_option(f, w, id, size)))
					return rc;
				w->off += size;
			}
			continue;
		}
		if (!memcmp(sec, "latency  \0", 10))
			/* a latency tracer's text, no per-CPU records: libtracecmd
			 * would read records from it anyway (fuzzing: a SEGV) */
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": a latency-tracer "
					  "trace.dat (text, no per-CPU event records): nothing to read",
					  w->name, w->off);
		if (memcmp(sec, "flyrecord\0", 10))
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": expected \"options\", "
					  "\"latency\" or \"flyrecord\"", w->name, w->off);
		w->off += 10;
		break;
	}
	/* read_cpu_data reads as many CPUs as a CPUCOUNT option said last */
	if (f->cpucount)
		ncpu = f->cpucount;
	for (uint64_t c = 0; c < ncpu; c++) {
		uint64_t at = w->off, off, size;
		if ((rc = tc_num(w, 8, "a CPU data offset", &off)) || (rc = tc_num(w, 8, "a CPU data size", &size)))
			return rc;
		if ((rc = tcw_cpu_data(f, c, off, size, at, false)))
			return rc;
	}
	/* with a TRACECLOCK option, init_data_v6 reads the trace_clock text
	 * here, mallocing the size it reads (read_data_and_size) */
	if (f->clock_option) {
		uint64_t at = w->off, size;
		if ((rc = tc_num(w, 8, "the trace clock size", &size)))
			return rc;
		if (size > w->len - w->off)
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": trace clock of %"
					  PRIu64 " bytes passes the end of the file", w->name, at, size);
		if (!tcw_clock_named(w->p + w->off, size))
			return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": a trace clock "
					  "whose current clock (\"[name]\") has no name", w->name, at + 8);
	}
	return 0;
}

static const uint8_t tcw_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

int tracecmd_walk(const uint8_t *p, uint64_t len, const char *name, tracecmd_format_check_fn check,
		  struct sim_error *err)
{
	struct tcw_file f = { .w = { p, len, 0, false, name, err }, .check = check };
	struct tc_walk *w = &f.w;
	const char *ver;
	uint64_t v;
	int rc;

	if ((rc = tc_expect(w, (const char *)tcw_magic, sizeof(tcw_magic), "trace-cmd magic")) ||
	    (rc = tc_string(w, "the version string", &ver)))
		return rc;
	if (strcmp(ver, "6") && strcmp(ver, "7"))
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset 10: trace.dat version '%.8s', "
				  "this reader knows 6 and 7", name, ver);
	f.v7 = !strcmp(ver, "7");
	if ((rc = tc_num(w, 1, "the endian flag", &v)))
		return rc;
	if (v > 1)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": endian flag %" PRIu64
				  " is not 0 or 1", name, w->off - 1, v);
	w->be = v == 1;
	if ((rc = tc_num(w, 1, "the long size", &f.longsz)))
		return rc;
	if (f.longsz != 4 && f.longsz != 8)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": long size %" PRIu64
				  " is not 4 or 8", name, w->off - 1, f.longsz);
	uint64_t page_at = w->off;
	if ((rc = tc_num(w, 4, "the page size", &f.page)))
		return rc;
	if (f.page < 4096 || f.page > (1u << 20) || (f.page & (f.page - 1)))
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": page size %" PRIu64
				  " is not a power of two in 4 KiB..1 MiB", name, page_at, f.page);
	rc = f.v7 ? tcw_v7(&f) : tcw_v6(&f);
	free(f.zbuf);
	return rc;
}
