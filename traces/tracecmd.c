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
 * Before the library sees a file, traces/tracecmd_walk.c walks all of it
 * (v6 chain, v7 sections and options, compressed or not, CPU pages), so that
 * a cut or corrupt file is an error naming the byte offset of the bad field
 * (the library only says that it failed, or crashes).
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
#include "traces/tracecmd_walk.h"

static const uint8_t tc_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

static int tc_probe(const uint8_t *buf, size_t len)
{
	return len >= sizeof(tc_magic) && !memcmp(buf, tc_magic, sizeof(tc_magic)) ? 100 : 0;
}

/* Open path as a regular file and walk its structure (tracecmd_walk) before
 * any library sees it, so a cut or corrupt file is refused with a byte offset
 * in every build. On success *fd is the open file for the library. */
static int tc_open_walked(const char *path, tracecmd_format_check_fn check, int *fd,
			  struct sim_error *err)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return sim_errorf(err, SIM_E_INPUT, "-: the tracecmd reader reads regular files only "
				  "(libtracecmd seeks in them)");
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(errno));
	int rc = 0;
	if (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		rc = sim_errorf(err, SIM_E_INPUT, "%s: byte offset 0: a trace.dat must be a regular, "
				"non-empty file (the library seeks in it)", path);
	} else {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, *fd, 0);
		if (map == MAP_FAILED) {
			rc = sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(errno));
		} else {
			rc = tracecmd_walk(map, (uint64_t)st.st_size, path, check, err);
			munmap(map, (size_t)st.st_size);
		}
	}
	if (rc) {
		close(*fd);
		*fd = -1;
	}
	return rc;
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
	uint64_t *next_off;   /* per CPU: least offset of its next record */
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
		/* member access is REC->field only (TP_printk's __entry->
		 * rewritten); libtraceevent 1.7.1 follows NULL on "->" after
		 * anything else (fuzzing: "RECchar[16]->dev") */
		if (c == '-' && k + 1 < n && l[k + 1] == '>' &&
		    (k < 3 || memcmp(l + k - 3, "REC", 3) || (k > 3 && (isalnum((unsigned char)l[k - 4]) ||
									 l[k - 4] == '_'))))
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
	free(t->next_off);
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
	t->next_off = calloc((size_t)t->ncpu, sizeof(*t->next_off));
	if (!t->head || !t->next_off)
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
	int fd = -1;
	int rc = tc_open_walked(path, tc_check_format, &fd, err);
	return rc ? rc : tc_open_fd(path, fd, opts, state, err);
}

static int tc_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
		       void **state, struct sim_error *err)
{
	name = name ? name : "<memory>";
	int rc = tracecmd_walk(buf, len, name, tc_check_format, err);
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
		/* a CPU's records come in file order; libtraceevent's kbuffer
		 * can return one record forever on a corrupt page (fuzzing: a
		 * hang), so a record that does not move forward ends the read */
		if (r->offset < t->next_off[best]) {
			t->failed = true;
			return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %llu: CPU %d: libtracecmd read "
					  "a ring-buffer record that does not follow the previous one (a "
					  "corrupt page)", t->name, r->offset, best);
		}
		t->next_off[best] = r->offset + 1;
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

const bool trace_tracecmd_built = true;

#else /* !MOBISIM_HAVE_TRACECMD */

const bool trace_tracecmd_built = false;

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
	int fd = -1;
	int rc = tc_open_walked(path, NULL, &fd, err);
	if (rc)
		return rc;
	close(fd);
	return tc_absent(path, err);
}

static int tc_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
		       void **state, struct sim_error *err)
{
	(void)opts;
	(void)state;
	int rc = tracecmd_walk(buf, len, name ? name : "<memory>", NULL, err);
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
	.cpus = true,
	.identity = TRACE_ID_PID | TRACE_ID_COMM,
	.probe = tc_probe,
	.open = tc_open,
	.open_mem = tc_open_mem,
	.next = tc_next,
	.close = tc_close,
	.report = tc_report,
};
