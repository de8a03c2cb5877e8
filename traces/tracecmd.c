/* Reader of trace-cmd's binary trace.dat (file format versions 6 and 7,
 * trace-cmd.dat.v6(5) / trace-cmd.dat.v7(5); v7 sections may be zlib or
 * zstd compressed) through Debian's libtracecmd and libtraceevent: the
 * library reads the event format files stored in the file and the per-CPU
 * ring-buffer pages; this file merges the CPUs by timestamp (one record
 * held per CPU) and turns the block events into trace.h records, as the
 * ftrace text reader's adapter does for `trace-cmd report` output:
 *   block_bio_queue -> Q, block_rq_insert -> I, block_rq_issue -> D,
 *   block_rq_complete -> C, block_plug -> P, block_unplug -> U
 * (include/trace/events/block.h: dev is the kernel dev_t, major << 20 |
 * minor; rwbs a string; comm the submitter). block_bio_complete is
 * counted, not returned (it would count C twice). Every other event
 * (sched_switch, ext4_*, f2fs_*, print, ...) is counted by name for
 * `trace stat`; records the ring buffer dropped are counted too.
 *
 * Before the library sees a file its v6 header chain is walked here --
 * header_page, header_event, format files, kallsyms, printk formats,
 * cmdlines, options, the flyrecord CPU table -- so that a cut or corrupt
 * file is an error naming the byte offset of the bad size (the library
 * only says that it failed). A CPU's data that runs past the end of the
 * file (trace-cmd killed while writing) is an error as well: the library
 * maps whole pages of it. v7 files are checked up to their first section
 * offset, the rest is the library's.
 *
 * Built only when pkg-config finds libtracecmd (MOBISIM_HAVE_TRACECMD);
 * otherwise the reader says how to get it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/block/request.h"
#include "traces/trace.h"

static const uint8_t tc_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

static int tc_probe(const uint8_t *buf, size_t len)
{
	return len >= sizeof(tc_magic) && !memcmp(buf, tc_magic, sizeof(tc_magic)) ? 100 : 0;
}

/* ---- header walk (no library) ------------------------------------------- */

struct tc_walk {
	const uint8_t *p;   /* the whole file, or its mapping */
	uint64_t len, off;
	bool be;
	const char *name;
	struct sim_error *err;
};

static int tc_need(struct tc_walk *w, uint64_t n, const char *what)
{
	if (n > w->len - w->off)
		return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %s needs %" PRIu64
				  " bytes, the file has %" PRIu64 " left", w->name, w->off, what, n,
				  w->len - w->off);
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
	uint64_t n;
	uint64_t at = w->off;
	int rc = tc_num(w, size_bytes, what, &n);
	if (rc)
		return rc;
	if (n > w->len - w->off)
		return sim_errorf(w->err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %s of %" PRIu64
				  " bytes passes the end of the file (%" PRIu64 " bytes)", w->name, at, what,
				  n, w->len);
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

/* Check one event format file before libtracecmd parses it; NULL = no check. */
static int (*tc_format_check)(const char *sys, const uint8_t *fmt, uint64_t size, uint64_t off,
			      const char *name, struct sim_error *err);

static int tc_format(struct tc_walk *w, const char *sys, const char *what)
{
	uint64_t at = w->off;
	int rc = tc_skip_sized(w, 8, what);
	if (rc || !tc_format_check)
		return rc;
	return tc_format_check(sys, w->p + at + 8, w->off - at - 8, at + 8, w->name, w->err);
}

/* Walk the file's headers (trace-cmd.dat.v6(5), v7(5)). 0 or SIM_E_INPUT. */
static int tc_walk(const uint8_t *p, uint64_t len, const char *name, struct sim_error *err)
{
	struct tc_walk w = { p, len, 0, false, name, err };
	const char *ver;
	uint64_t v, n;
	int rc;

	if ((rc = tc_expect(&w, (const char *)tc_magic, sizeof(tc_magic), "trace-cmd magic")) ||
	    (rc = tc_string(&w, "the version string", &ver)))
		return rc;
	if (strcmp(ver, "6") && strcmp(ver, "7"))
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset 10: trace.dat version '%.8s', "
				  "this reader knows 6 and 7", name, ver);
	if ((rc = tc_num(&w, 1, "the endian flag", &v)))
		return rc;
	if (v > 1)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": endian flag %" PRIu64
				  " is not 0 or 1", name, w.off - 1, v);
	w.be = v == 1;
	if ((rc = tc_num(&w, 1, "the long size", &v)))
		return rc;
	if (v != 4 && v != 8)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": long size %" PRIu64
				  " is not 4 or 8", name, w.off - 1, v);
	uint64_t longsz = v;
	uint64_t page_at = w.off, page;
	if ((rc = tc_num(&w, 4, "the page size", &page)))
		return rc;
	if (page < 4096 || page > (1u << 20) || (page & (page - 1)))
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": page size %" PRIu64
				  " is not a power of two in 4 KiB..1 MiB", name, page_at, page);
	if (!strcmp(ver, "7")) {
		const char *alg, *algver;
		if ((rc = tc_string(&w, "the compression name", &alg)) ||
		    (rc = tc_string(&w, "the compression version", &algver)))
			return rc;
		uint64_t at = w.off;
		if ((rc = tc_num(&w, 8, "the first section offset", &v)))
			return rc;
		if (v < w.off || v >= len)
			return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": first section at %"
					  PRIu64 " is outside the file (%" PRIu64 " bytes)", name, at, v, len);
		/* The chain of OPTIONS sections (id 0), each ending in DONE (id 0,
		 * 8 bytes: the next section's offset): libtracecmd 1.3 allocates
		 * option sizes as given and leaks them when the rest fails, so
		 * every option must fit in its section before the library sees it.
		 * Compressed sections are checked for their sizes only. */
		for (unsigned nsec = 0; v; nsec++) {
			uint64_t id, flags, str, size, csize, usize;
			if (nsec == 64)
				return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": more than 64 "
						  "options sections", name, v);
			w.off = v;
			if ((rc = tc_num(&w, 2, "a section id", &id)) || (rc = tc_num(&w, 2, "section flags", &flags)) ||
			    (rc = tc_num(&w, 4, "a section name", &str)) || (rc = tc_num(&w, 8, "a section size", &size)))
				return rc;
			if (id != 0)
				return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": section %" PRIu64
						  " where an options section (0) belongs", name, v, id);
			if (size > len - w.off)
				return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": section of %"
						  PRIu64 " bytes passes the end of the file", name, v + 8, size);
			if (flags & 1) {
				if ((rc = tc_num(&w, 4, "a compressed size", &csize)) ||
				    (rc = tc_num(&w, 4, "an uncompressed size", &usize)))
					return rc;
				if (csize + 8 > size || usize > (64u << 20))
					return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": compressed "
							  "section sizes %" PRIu64 " -> %" PRIu64 " do not fit", name,
							  w.off - 8, csize, usize);
				return 0; /* the options inside are the library's */
			}
			uint64_t end = w.off + size;
			v = 0;
			for (bool done = false; !done;) {
				uint64_t oid, osize, at2 = w.off;
				if (w.off + 6 > end)
					return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": options "
							  "section ends without its DONE option", name, at2);
				if ((rc = tc_num(&w, 2, "an option id", &oid)) || (rc = tc_num(&w, 4, "an option size", &osize)))
					return rc;
				if (osize > end - w.off)
					return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": option %"
							  PRIu64 " of %" PRIu64 " bytes passes the end of its section",
							  name, at2, oid, osize);
				if (oid == 0) {
					if (osize != 8 || (rc = tc_num(&w, 8, "the next options offset", &v)))
						return rc ? rc : sim_errorf(err, SIM_E_INPUT, "%s: byte offset %"
									    PRIu64 ": DONE option of %" PRIu64
									    " bytes, not 8", name, at2, osize);
					if (v && (v >= len || v < 18))
						return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64
								  ": next options section at %" PRIu64
								  " is outside the file", name, at2 + 6, v);
					done = true;
				} else {
					w.off += osize;
				}
			}
		}
		return 0;
	}
	if ((rc = tc_expect(&w, "header_page", 12, "header_page")) ||
	    (rc = tc_skip_sized(&w, 8, "header_page")) ||
	    (rc = tc_expect(&w, "header_event", 13, "header_event")) ||
	    (rc = tc_skip_sized(&w, 8, "header_event")))
		return rc;
	if ((rc = tc_num(&w, 4, "the ftrace format count", &n)))
		return rc;
	for (uint64_t i = 0; i < n; i++)
		if ((rc = tc_format(&w, "ftrace", "an ftrace event format")))
			return rc;
	uint64_t nsys;
	if ((rc = tc_num(&w, 4, "the event system count", &nsys)))
		return rc;
	for (uint64_t s = 0; s < nsys; s++) {
		const char *sys;
		if ((rc = tc_string(&w, "an event system name", &sys)) ||
		    (rc = tc_num(&w, 4, "an event count", &n)))
			return rc;
		for (uint64_t i = 0; i < n; i++)
			if ((rc = tc_format(&w, sys, "an event format")))
				return rc;
	}
	if ((rc = tc_skip_sized(&w, 4, "kallsyms")) || (rc = tc_skip_sized(&w, 4, "printk formats")) ||
	    (rc = tc_skip_sized(&w, 8, "saved cmdlines")))
		return rc;
	uint64_t ncpu;
	uint64_t cpu_at = w.off;
	if ((rc = tc_num(&w, 4, "the CPU count", &ncpu)))
		return rc;
	if (ncpu == 0 || ncpu > 4096)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %" PRIu64
				  " CPUs (expected 1..4096)", name, cpu_at, ncpu);
	for (;;) {
		if ((rc = tc_need(&w, 10, "a section name")))
			return rc;
		const char *sec = (const char *)p + w.off;
		if (!memcmp(sec, "options  \0", 10)) {
			w.off += 10;
			for (;;) {
				uint64_t id;
				if ((rc = tc_num(&w, 2, "an option id", &id)))
					return rc;
				if (!id)
					break;
				if ((rc = tc_skip_sized(&w, 4, "an option")))
					return rc;
			}
			continue;
		}
		if (!memcmp(sec, "latency  \0", 10))
			/* a latency tracer's text, no per-CPU records: libtracecmd
			 * would read records from it anyway (fuzzing: a SEGV) */
			return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": a latency-tracer "
					  "trace.dat (text, no per-CPU event records): nothing to read",
					  name, w.off);
		if (memcmp(sec, "flyrecord\0", 10))
			return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": expected \"options\", "
					  "\"latency\" or \"flyrecord\"", name, w.off);
		w.off += 10;
		break;
	}
	for (uint64_t c = 0; c < ncpu; c++) {
		uint64_t at = w.off, off, size;
		if ((rc = tc_num(&w, 8, "a CPU data offset", &off)) || (rc = tc_num(&w, 8, "a CPU data size", &size)))
			return rc;
		if (off > len || size > len - off)
			return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": CPU %" PRIu64
					  " data (%" PRIu64 " bytes at %" PRIu64 ") passes the end of the file (%"
					  PRIu64 " bytes): cut short?", name, at, c, size, off, len);
		if (size % page)
			return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": CPU %" PRIu64
					  " data size %" PRIu64 " is not whole pages of %" PRIu64, name, at + 8, c,
					  size, page);
		/* Each page starts with its timestamp and commit (the bytes of
		 * events in it; the top bits are the missed-events flags):
		 * libtraceevent's kbuffer reads that many bytes of events without
		 * checking them against the page (fuzzing: a SEGV). */
		struct tc_walk pw = w;
		for (uint64_t pg = off; pg < off + size; pg += page) {
			uint64_t commit;
			pw.off = pg + 8;
			if ((rc = tc_num(&pw, longsz, "a data page's commit", &commit)))
				return rc;
			commit &= (1u << 27) - 1;
			if (commit > page - 8 - longsz)
				return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": CPU %" PRIu64
						  " data page holds %" PRIu64 " bytes of events, more than its %"
						  PRIu64 " bytes", name, pg + 8, c, commit, page - 8 - longsz);
		}
	}
	return 0;
}

#ifdef MOBISIM_HAVE_TRACECMD

#include <trace-cmd.h>

#define TC_NAMES 256

enum tc_kind { TC_Q, TC_I, TC_D, TC_C, TC_P, TC_U, TC_BIO_COMPLETE, TC_NKINDS };

static const struct { const char *name; uint16_t action; } tc_events[TC_NKINDS] = {
	[TC_Q] = { "block_bio_queue", TRACE_A_QUEUE },
	[TC_I] = { "block_rq_insert", TRACE_A_INSERT },
	[TC_D] = { "block_rq_issue", TRACE_A_ISSUE },
	[TC_C] = { "block_rq_complete", TRACE_A_COMPLETE },
	[TC_P] = { "block_plug", TRACE_A_PLUG },
	[TC_U] = { "block_unplug", TRACE_A_UNPLUG_IO },
	[TC_BIO_COMPLETE] = { "block_bio_complete", TRACE_A_NONE },
};

struct tc_fields {
	int id;                              /* -1: not in this file */
	struct tep_format_field *dev, *sector, *nr_sector, *rwbs, *comm, *error, *nr_rq;
};

struct tc_count {
	char name[48];
	uint64_t n;
};

struct tc_reader {
	struct tracecmd_input *h;
	struct tep_handle *tep;
	int ncpu;
	struct tep_record **head;
	struct tc_fields ev[TC_NKINDS];
	char name[512];
	bool have_t0, failed;
	struct trace_diag *diag;
	uint64_t t0;
	uint32_t seq;
	char comm[17];
	uint64_t records, block, missed, bio_complete, other_names;
	uint32_t ncount;
	struct tc_count counts[TC_NAMES];
};

/* The print fmt line as the kernel writes it (trace_events.c f_show):
 * a quoted format, then arguments whose parentheses and brackets balance.
 * libtraceevent 1.7.1 dereferences NULL on one cut inside its arguments
 * (found by fuzzing: "((unsigr rwbs[8];..."). */
static bool tc_print_fmt_ok(const char *l, size_t n)
{
	size_t k = 0;
	while (k < n && l[k] == ' ')
		k++;
	if (k == n || l[k++] != '"')
		return false;
	for (; k < n && l[k] != '"'; k++)
		if (l[k] == '\\')
			k++;
	if (k >= n)
		return false;
	int paren = 0, bracket = 0;
	bool quoted = false;
	for (k++; k < n; k++) {
		char c = l[k];
		if (quoted) {
			if (c == '\\')
				k++;
			else if (c == '"')
				quoted = false;
			continue;
		}
		if (c == '"')
			quoted = true;
		/* the arguments are C expressions as the kernel prints them:
		 * no ';', tab or other byte outside this set (fuzzing: a print
		 * fmt running into a field line crashed the library's parser) */
		if (!isalnum((unsigned char)c) && !strchr(" _()[]{},.-><&|^~!?:+*/%='\"", c))
			return false;
		paren += (c == '(') - (c == ')');
		bracket += (c == '[') - (c == ']');
		if (paren < 0 || bracket < 0)
			return false;
	}
	return !quoted && paren == 0 && bracket == 0;
}

/* libtracecmd 1.3.1 crashes in its own clean-up (tracecmd_close on a half
 * built handle, found by fuzzing) when a format file does not parse; so
 * each is parsed here first with libtraceevent alone, and refused at its
 * byte offset. */
static int tc_check_format(const char *sys, const uint8_t *fmt, uint64_t size, uint64_t off,
			   const char *name, struct sim_error *err)
{
	/* libtraceevent 1.7.1 itself dereferences NULL on some malformed
	 * formats (fuzzing: a non-digit array size, a misspelt "field:"), so
	 * the layout the kernel writes (kernel/trace/trace_events.c f_show) is
	 * checked first: printable ASCII; after "format:" each line blank,
	 * "print fmt: ..." or "\tfield:TYPE NAME[DIGITS];\toffset:D;\tsize:D;..." */
	bool in_fields = false;
	for (uint64_t i = 0, ls = 0; i <= size; i++) {
		if (i < size && fmt[i] != '\n') {
			if ((fmt[i] < 32 || fmt[i] > 126) && fmt[i] != '\t')
				return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": byte 0x%02x in "
						  "an event format", name, off + i, fmt[i]);
			continue;
		}
		const char *l = (const char *)fmt + ls;
		size_t n = (size_t)(i - ls);
		ls = i + 1;
		if (n == 7 && !memcmp(l, "format:", 7)) {
			in_fields = true;
			continue;
		}
		if (n >= 10 && !memcmp(l, "print fmt:", 10)) {
			if (!tc_print_fmt_ok(l + 10, n - 10))
				return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": an event "
						  "format's print fmt is not a quoted format and balanced "
						  "arguments", name, off + (uint64_t)(l - (const char *)fmt));
			continue;
		}
		if (!in_fields || n == 0)
			continue;
		bool ok = n > 7 && !memcmp(l, "\tfield:", 7);
		for (size_t k = 0; ok && k < n; k++)
			if (l[k] == '[')
				for (k++; ok && k < n && l[k] != ']'; k++)
					ok = l[k] >= '0' && l[k] <= '9';
		if (!ok)
			return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": an event format "
					  "line is not \"\\tfield:TYPE NAME;\\toffset:...\"", name,
					  off + (uint64_t)(l - (const char *)fmt));
	}
	struct tep_handle *tep = tep_alloc();
	if (!tep)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", name);
	tep_set_loglevel(TEP_LOG_NONE);
	enum tep_errno e = tep_parse_event(tep, (const char *)fmt, (unsigned long)size, sys);
	tep_free(tep);
	if (e)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": an event format of "
				  "system '%.32s' does not parse", name, off, sys);
	return 0;
}

static void tc_close(void *state)
{
	struct tc_reader *t = state;
	if (!t)
		return;
	if (t->head)
		for (int c = 0; c < t->ncpu; c++)
			if (t->head[c])
				tracecmd_free_record(t->head[c]);
	free(t->head);
	if (t->h)
		tracecmd_close(t->h);
	free(t);
}

/* Handles whose data did not load (tc_setup): never closed. */
static struct tracecmd_input *tc_unclosed[64];
static unsigned tc_nunclosed;

static int tc_setup(struct tc_reader *t, int fd, struct sim_error *err)
{
	char fdpath[64];

	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* Headers and data in two steps: libtracecmd 1.3.1 crashes in its own
	 * clean-up (tracecmd_close of a half-built handle, found by fuzzing)
	 * when the CPU data does not load, so then the handle is left alone. */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	t->h = tracecmd_open_head(fdpath, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	close(fd);
	if (!t->h)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset 0: libtracecmd could not read the "
				  "headers of this trace.dat (they passed mobisim's checks)", t->name);
	if (tracecmd_init_data(t->h) < 0) {
		/* not closed (see above): kept reachable, freed at exit */
		if (tc_nunclosed < 64)
			tc_unclosed[tc_nunclosed++] = t->h;
		t->h = NULL;
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset 0: libtracecmd could not load the "
				  "per-CPU data of this trace.dat", t->name);
	}
	t->tep = tracecmd_get_tep(t->h);
	t->ncpu = t->tep ? tep_get_cpus(t->tep) : 0;
	if (t->ncpu <= 0 || t->ncpu > 4096)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset 0: %d CPUs in the file", t->name, t->ncpu);
	t->head = calloc((size_t)t->ncpu, sizeof(*t->head));
	if (!t->head)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", t->name);
	for (int k = 0; k < TC_NKINDS; k++) {
		struct tc_fields *f = &t->ev[k];
		struct tep_event *e = tep_find_event_by_name(t->tep, "block", tc_events[k].name);
		f->id = -1;
		if (!e)
			continue;
		f->id = e->id;
		f->dev = tep_find_field(e, "dev");
		f->sector = tep_find_field(e, "sector");
		f->nr_sector = tep_find_field(e, "nr_sector");
		f->rwbs = tep_find_field(e, "rwbs");
		f->comm = tep_find_field(e, "comm");
		f->error = tep_find_field(e, "error");
		if (!f->error)
			f->error = tep_find_field(e, "errors");
		f->nr_rq = tep_find_field(e, "nr_rq");
	}
	for (int c = 0; c < t->ncpu; c++)
		t->head[c] = tracecmd_read_data(t->h, c);
	return 0;
}

/* Headers already walked; fd goes to the library (closed by tracecmd_close). */
static int tc_open_fd(const char *name, int fd, const struct trace_opts *opts, void **state,
		      struct sim_error *err)
{
	int rc;
	struct tc_reader *t = calloc(1, sizeof(*t));
	if (!t) {
		close(fd);
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", name);
	}
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->diag = opts ? opts->diag : NULL;
	if (t->diag)
		t->diag->files = 1;
	rc = tc_setup(t, fd, err);
	if (rc) {
		tc_close(t);
		return rc;
	}
	*state = t;
	return 0;
}

static int tc_open(const char *path, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return sim_errorf(err, SIM_E_INPUT, "-: the tracecmd reader reads regular files only "
				  "(libtracecmd seeks in them)");
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset 0: a trace.dat must be a regular, "
				  "non-empty file (the library seeks in it)", path);
	}
	tc_format_check = tc_check_format;
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(errno));
	}
	int rc = tc_walk(map, (uint64_t)st.st_size, path, err);
	munmap(map, (size_t)st.st_size);
	if (rc) {
		close(fd);
		return rc;
	}
	return tc_open_fd(path, fd, opts, state, err);
}

static int tc_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
		       void **state, struct sim_error *err)
{
	name = name ? name : "<memory>";
	tc_format_check = tc_check_format;
	int rc = tc_walk(buf, len, name, err);
	if (rc)
		return rc;
	/* the library reads a file descriptor: give it one over a copy */
	int fd = memfd_create("mobisim-tracecmd", MFD_CLOEXEC);
	if (fd < 0)
		return sim_errorf(err, SIM_E_IO, "%s: memfd_create: %s", name, strerror(errno));
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, (const uint8_t *)buf + done, len - done);
		if (w <= 0) {
			close(fd);
			return sim_errorf(err, SIM_E_IO, "%s: %s", name, strerror(errno));
		}
		done += (size_t)w;
	}
	lseek(fd, 0, SEEK_SET);
	return tc_open_fd(name, fd, opts, state, err);
}

static void tc_count(struct tc_reader *t, const char *name)
{
	for (uint32_t i = 0; i < t->ncount; i++)
		if (!strcmp(t->counts[i].name, name)) {
			t->counts[i].n++;
			return;
		}
	if (t->ncount == TC_NAMES) {
		t->other_names++;
		return;
	}
	snprintf(t->counts[t->ncount].name, sizeof(t->counts[0].name), "%s", name);
	t->counts[t->ncount++].n = 1;
}

static uint64_t tc_val(const struct tep_record *r, struct tep_format_field *f)
{
	unsigned long long v = 0;
	if (!f || f->offset < 0 || f->size <= 0 || f->offset + f->size > r->size)
		return 0;
	if (tep_read_number_field(f, r->data, &v))
		return 0;
	return v;
}

static void tc_str(const struct tep_record *r, struct tep_format_field *f, char *out, size_t cap)
{
	out[0] = '\0';
	if (!f || f->offset < 0 || f->size <= 0 || f->offset + f->size > r->size)
		return;
	size_t n = (size_t)f->size < cap - 1 ? (size_t)f->size : cap - 1;
	const char *s = (const char *)r->data + f->offset;
	size_t i = 0;
	for (; i < n && s[i]; i++)
		out[i] = s[i];
	out[i] = '\0';
}

static int tc_next(void *state, struct trace_rec *rec, struct sim_error *err)
{
	struct tc_reader *t = state;

	if (t->failed)
		return sim_errorf(err, SIM_E_INPUT, "%s: read after an error", t->name);
	for (;;) {
		int best = -1;
		for (int c = 0; c < t->ncpu; c++)
			if (t->head[c] && (best < 0 || t->head[c]->ts < t->head[best]->ts))
				best = c;
		if (best < 0) {
			if (t->diag)
				t->diag->other_events = t->records - t->block;
			return 0;
		}
		struct tep_record *r = t->head[best];
		t->head[best] = tracecmd_read_data(t->h, best);
		t->records++;
		if (r->missed_events > 0)
			t->missed += (uint64_t)r->missed_events;
		int type = tep_data_type(t->tep, r);
		int k = 0;
		while (k < TC_NKINDS && t->ev[k].id != type)
			k++;
		if (k == TC_NKINDS || k == TC_BIO_COMPLETE) {
			struct tep_event *e = tep_find_event_by_record(t->tep, r);
			tc_count(t, e && e->name ? e->name : "(unknown id)");
			if (k == TC_BIO_COMPLETE)
				t->bio_complete++;
			tracecmd_free_record(r);
			continue;
		}
		const struct tc_fields *f = &t->ev[k];
		uint16_t action = tc_events[k].action;
		char rwbs[16];
		memset(rec, 0, sizeof(*rec));
		if (!t->have_t0) {
			t->have_t0 = true;
			t->t0 = r->ts;
		}
		rec->kind = TRACE_REC_BLOCK;
		rec->action = action;
		rec->act = trace_action_letter(action);
		rec->time_ns = (int64_t)(r->ts - t->t0);
		rec->cpu = (uint32_t)best;
		rec->seq = ++t->seq;
		rec->pid = tep_data_pid(t->tep, r);
		tc_str(r, f->comm, t->comm, sizeof(t->comm));
		if (!t->comm[0]) {
			const char *c = tep_data_comm_from_pid(t->tep, rec->pid);
			snprintf(t->comm, sizeof(t->comm), "%s", c && strcmp(c, "<...>") ? c : "");
		}
		rec->comm = t->comm[0] ? t->comm : NULL;
		if (action == TRACE_A_PLUG || action == TRACE_A_UNPLUG_IO) {
			rec->pdu_u64 = tc_val(r, f->nr_rq);
		} else {
			uint64_t dev = tc_val(r, f->dev);
			rec->dev_major = (uint32_t)(dev >> 20);
			rec->dev_minor = (uint32_t)(dev & 0xfffff);
			rec->sector = tc_val(r, f->sector);
			rec->nr_sectors = (uint32_t)tc_val(r, f->nr_sector);
			rec->bytes = rec->nr_sectors << SECTOR_SHIFT;
			rec->error = (int32_t)tc_val(r, f->error);
			tc_str(r, f->rwbs, rwbs, sizeof(rwbs));
			if (trace_rwbs_parse(rwbs, strlen(rwbs), rec) < 0)
				rec->dir = TRACE_DIR_NONE;
			if (rec->bytes == 0 && rec->dir != TRACE_DIR_DISCARD)
				rec->dir = TRACE_DIR_NONE;
		}
		t->block++;
		tracecmd_free_record(r);
		return 1;
	}
}

static void tc_report(void *state, FILE *out)
{
	struct tc_reader *t = state;

	fprintf(out, "records:  %" PRIu64 " on %d CPUs (block records returned: %" PRIu64
		"; block_bio_complete counted, not returned: %" PRIu64 ")\n",
		t->records, t->ncpu, t->block, t->bio_complete);
	if (t->missed)
		fprintf(out, "events the ring buffer dropped: %" PRIu64 "\n", t->missed);
	if (t->ncount)
		fprintf(out, "other events by name:\n");
	for (uint32_t i = 0; i < t->ncount; i++)
		fprintf(out, "  %-26s %12" PRIu64 "\n", t->counts[i].name, t->counts[i].n);
	if (t->other_names)
		fprintf(out, "  %-26s %12" PRIu64 "\n", "(more names)", t->other_names);
}

#else /* !MOBISIM_HAVE_TRACECMD */

static int tc_absent(const char *name, struct sim_error *err)
{
	return sim_errorf(err, SIM_E_INPUT, "%s: byte offset 0: a trace-cmd trace.dat, but this mobisim "
			  "was built without libtracecmd (Debian: libtracecmd-dev; or convert it with "
			  "`trace-cmd report` and read the text)", name);
}

static int tc_open(const char *path, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	(void)opts;
	(void)state;
	return tc_absent(path, err);
}

static int tc_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
		       void **state, struct sim_error *err)
{
	(void)opts;
	(void)state;
	int rc = tc_walk(buf, len, name ? name : "<memory>", err);
	return rc ? rc : tc_absent(name ? name : "<memory>", err);
}

static int tc_next(void *state, struct trace_rec *rec, struct sim_error *err)
{
	(void)state;
	(void)rec;
	return sim_errorf(err, SIM_E_INPUT, "trace-cmd reader not built");
}

static void tc_close(void *state)
{
	(void)state;
}

#define tc_report NULL

#endif

const struct trace_reader_ops trace_tracecmd_ops = {
	.name = "tracecmd",
	.summary = "trace-cmd trace.dat v6/v7 (libtracecmd): block events",
	.probe = tc_probe,
	.open = tc_open,
	.open_mem = tc_open_mem,
	.next = tc_next,
	.close = tc_close,
	.report = tc_report,
};
