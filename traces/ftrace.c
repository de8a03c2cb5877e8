/* Streaming ftrace text reader (accepted layouts: ftrace.h): input from a
 * file, a stream or memory cut into lines (each parsed by
 * traces/ftrace_parse.c), the trace.h adapter that gives the block events
 * as struct trace_rec, and the pairing of atrace B/E and S/F markers into
 * regions.
 */
#define _GNU_SOURCE /* memmem */
#include "traces/ftrace.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/block/request.h"
#include "traces/trace.h"
#include "traces/trace_int.h"
#include "traces/ftrace_int.h"

#define FTRACE_CHUNK (256 * 1024)

/* ------------------------------------------------------------ input */

static int reader_new(const char *name, struct ftrace_reader **out, struct sim_error *err)
{
	struct ftrace_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", name);
	snprintf(r->name, sizeof(r->name), "%s", name);
	*out = r;
	return 0;
}

int ftrace_open_stream(FILE *f, const char *name, struct ftrace_reader **out,
		       struct sim_error *err)
{
	struct ftrace_reader *r = NULL;
	int rc = reader_new(name, &r, err);
	if (rc)
		return rc;
	r->buf = malloc(FTRACE_CHUNK + FTRACE_LINE_MAX);
	if (!r->buf) {
		free(r);
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", name);
	}
	r->f = f;
	*out = r;
	return 0;
}

/* Over an open source (stdin, pipe, decompressed file): takes it over. */
static int ftrace_open_src(struct trace_src *heap_src, struct ftrace_reader **out,
			   struct sim_error *err)
{
	char name[sizeof(heap_src->name)];
	snprintf(name, sizeof(name), "%s", heap_src->name);
	FILE *f = trace_src_fopen(heap_src);
	if (!f) {
		trace_src_close(heap_src);
		free(heap_src);
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", name);
	}
	int rc = ftrace_open_stream(f, name, out, err);
	if (rc) {
		fclose(f);
		return rc;
	}
	(*out)->own_file = true;
	return 0;
}

int ftrace_open(const char *path, struct ftrace_reader **out, struct sim_error *err)
{
	struct trace_src *src = malloc(sizeof(*src));
	if (!src)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	int rc = trace_src_open(src, path, TRACE_SRC_BUF, err);
	if (rc) {
		free(src);
		return rc;
	}
	FILE *f = trace_src_fopen(src);
	if (!f) {
		trace_src_close(src);
		free(src);
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	}
	rc = ftrace_open_stream(f, path, out, err);
	if (rc) {
		fclose(f);
		return rc;
	}
	(*out)->own_file = true;
	return 0;
}

int ftrace_open_mem(const void *buf, size_t len, const char *name, struct ftrace_reader **out,
		    struct sim_error *err)
{
	struct ftrace_reader *r = NULL;
	int rc = reader_new(name, &r, err);
	if (rc)
		return rc;
	r->mem = buf;
	r->mem_len = len;
	*out = r;
	return 0;
}

void ftrace_close(struct ftrace_reader *r)
{
	if (!r)
		return;
	if (r->own_file && r->f)
		fclose(r->f);
	free(r->buf);
	free(r);
}

const struct ftrace_stats *ftrace_get_stats(const struct ftrace_reader *r)
{
	return &r->st;
}

/* Next line as a span; false at end of input. Sets *too_long for a line
 * longer than FTRACE_LINE_MAX. */
static bool next_line(struct ftrace_reader *r, const char **lp, size_t *ll, bool *too_long,
		      bool *io_error)
{
	*too_long = false;
	*io_error = false;
	if (r->mem) {
		if (r->mem_pos >= r->mem_len)
			return false;
		const char *s = r->mem + r->mem_pos;
		size_t left = r->mem_len - r->mem_pos;
		const char *nl = memchr(s, '\n', left);
		size_t n = nl ? (size_t)(nl - s) : left;
		r->mem_pos += nl ? n + 1 : n;
		*lp = s;
		*ll = n;
		*too_long = n > FTRACE_LINE_MAX;
		return true;
	}
	for (;;) {
		char *s = r->buf + r->buf_pos;
		size_t left = r->buf_len - r->buf_pos;
		char *nl = left ? memchr(s, '\n', left) : NULL;
		if (nl) {
			*lp = s;
			*ll = (size_t)(nl - s);
			r->buf_pos += *ll + 1;
			*too_long = *ll > FTRACE_LINE_MAX;
			return true;
		}
		if (r->eof) {
			if (left == 0)
				return false;
			*lp = s;
			*ll = left;
			r->buf_pos = r->buf_len;
			return true;
		}
		if (left > FTRACE_LINE_MAX) {
			/* no newline within the limit */
			*lp = s;
			*ll = left;
			*too_long = true;
			return true;
		}
		memmove(r->buf, s, left);
		r->buf_pos = 0;
		r->buf_len = left;
		size_t got = fread(r->buf + left, 1, FTRACE_CHUNK + FTRACE_LINE_MAX - left, r->f);
		r->buf_len += got;
		if (got == 0) {
			if (ferror(r->f)) {
				*io_error = true;
				return false;
			}
			r->eof = true;
		}
	}
}

int ftrace_next(struct ftrace_reader *r, struct ftrace_rec *rec, struct sim_error *err)
{
	if (r->failed) {
		if (err)
			*err = r->saved;
		return r->failed;
	}
	const char *lp;
	size_t ll;
	bool too_long, io_error;
	while (next_line(r, &lp, &ll, &too_long, &io_error)) {
		r->lineno++;
		int rc;
		if (too_long)
			rc = sim_errorf(err, SIM_E_INPUT, "%s:%llu: line longer than %d bytes",
					r->name, (unsigned long long)r->lineno, FTRACE_LINE_MAX);
		else
			rc = ftrace_parse_line(r, lp, ll, rec, err);
		if (rc == 1)
			return 1;
		if (rc < 0) {
			r->failed = rc;
			if (err)
				r->saved = *err;
			return rc;
		}
	}
	if (io_error) {
		r->failed = sim_errorf(err, SIM_E_IO, "%s: read error after line %llu", r->name,
				       (unsigned long long)r->lineno);
		if (err)
			r->saved = *err;
		return r->failed;
	}
	return 0;
}

/* ------------------------------------------------------------ trace.h adapter */

/* The block events of an ftrace text as struct trace_rec, so that `trace
 * stat`, block replay and calibrate read ftrace like any block trace.
 * block_bio_queue -> Q, block_rq_insert -> I, block_rq_issue -> D,
 * block_rq_complete -> C, block_plug -> P, block_unplug -> U. Other events
 * (and block_bio_complete, which would double-count C) are skipped. Times
 * are relative to the first event of the file, like blkparse's. */
struct ftrace_block_state {
	struct trace_diag *diag;
	struct ftrace_reader *r;
	struct ftrace_rec rec;
	bool have_t0;
	int64_t t0;
	uint32_t seq;
};

static int ftb_wrap(struct ftrace_reader *r, void **state, struct sim_error *err)
{
	struct ftrace_block_state *s = calloc(1, sizeof(*s));
	if (!s) {
		ftrace_close(r);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	s->r = r;
	*state = s;
	return 0;
}

static int ftb_done(int rc, const struct trace_opts *opts, void **state)
{
	if (rc == 0 && opts && opts->diag) {
		((struct ftrace_block_state *)*state)->diag = opts->diag;
		opts->diag->files = 1;
	}
	return rc;
}

int ftrace_block_open_stream(FILE *f, const char *name, const struct trace_opts *opts, void **state,
			     struct sim_error *err)
{
	struct ftrace_reader *r = NULL;
	int rc = ftrace_open_stream(f, name, &r, err);
	return ftb_done(rc ? rc : ftb_wrap(r, state, err), opts, state);
}

static int ftb_open(const char *path, const struct trace_opts *opts, void **state,
		    struct sim_error *err)
{
	struct ftrace_reader *r = NULL;
	int rc = ftrace_open(path, &r, err);
	return ftb_done(rc ? rc : ftb_wrap(r, state, err), opts, state);
}

static int ftb_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
			void **state, struct sim_error *err)
{
	struct ftrace_reader *r = NULL;
	int rc = ftrace_open_mem(buf, len, name, &r, err);
	return ftb_done(rc ? rc : ftb_wrap(r, state, err), opts, state);
}

static int ftb_open_src(void *src, const struct trace_opts *opts, void **state,
			struct sim_error *err)
{
	/* The stdio stream frees the source: give it a heap copy. */
	struct trace_src *heap = malloc(sizeof(*heap));
	struct ftrace_reader *r = NULL;
	if (!heap)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	trace_src_move(heap, src);
	int rc = ftrace_open_src(heap, &r, err);
	return ftb_done(rc ? rc : ftb_wrap(r, state, err), opts, state);
}

static int ftb_next(void *state, struct trace_rec *out, struct sim_error *err)
{
	struct ftrace_block_state *s = state;
	for (;;) {
		int rc = ftrace_next(s->r, &s->rec, err);
		if (rc == 0 && s->diag) {
			/* every event of the file, decoded or of a name we skip */
			const struct ftrace_stats *st = ftrace_get_stats(s->r);
			s->diag->other_events = st->events + st->skipped - s->seq;
		}
		if (rc <= 0)
			return rc;
		const struct ftrace_rec *fr = &s->rec;
		if (!s->have_t0) {
			s->have_t0 = true;
			s->t0 = fr->time_ns;
		}
		uint16_t action;
		switch (fr->type) {
		case FTRACE_BLOCK_BIO_QUEUE: action = TRACE_A_QUEUE; break;
		case FTRACE_BLOCK_RQ_INSERT: action = TRACE_A_INSERT; break;
		case FTRACE_BLOCK_RQ_ISSUE: action = TRACE_A_ISSUE; break;
		case FTRACE_BLOCK_RQ_COMPLETE: action = TRACE_A_COMPLETE; break;
		case FTRACE_BLOCK_PLUG: action = TRACE_A_PLUG; break;
		case FTRACE_BLOCK_UNPLUG: action = TRACE_A_UNPLUG_IO; break;
		default:
			continue;
		}
		memset(out, 0, sizeof(*out));
		out->kind = TRACE_REC_BLOCK;
		out->action = action;
		out->act = trace_action_letter(action);
		out->time_ns = fr->time_ns - s->t0;
		out->cpu = fr->cpu >= 0 ? (uint32_t)fr->cpu : 0;
		out->seq = ++s->seq;
		out->pid = fr->pid;
		out->comm = fr->u.blk.comm[0] ? fr->u.blk.comm : fr->comm;
		if (action == TRACE_A_PLUG || action == TRACE_A_UNPLUG_IO) {
			out->pdu_u64 = fr->u.blk.nr_rq;
			return 1;
		}
		out->dev_major = fr->u.blk.major;
		out->dev_minor = fr->u.blk.minor;
		out->sector = fr->u.blk.sector;
		out->nr_sectors = fr->u.blk.nr_sectors;
		out->bytes = fr->u.blk.nr_sectors << SECTOR_SHIFT;
		out->error = fr->u.blk.error;
		if (trace_rwbs_parse(fr->u.blk.rwbs, strlen(fr->u.blk.rwbs), out) < 0) {
			out->flags = fr->u.blk.flags;
			out->dir = req_is_write(out->flags) ? TRACE_DIR_WRITE : TRACE_DIR_READ;
		}
		if (out->bytes == 0 && out->dir != TRACE_DIR_DISCARD)
			out->dir = TRACE_DIR_NONE;
		return 1;
	}
}

static void ftb_close(void *state)
{
	struct ftrace_block_state *s = state;
	if (!s)
		return;
	ftrace_close(s->r);
	free(s);
}

static int ftb_probe(const uint8_t *buf, size_t len)
{
	return ftrace_probe(buf, len) ? 90 : 0;
}

const struct trace_reader_ops trace_ftrace_ops = {
	.name = "ftrace",
	.summary = "ftrace text (trace, trace_pipe, trace-cmd report): block events",
	.cpus = true,
	.identity = TRACE_ID_PID | TRACE_ID_COMM,
	.probe = ftb_probe,
	.open = ftb_open,
	.open_mem = ftb_open_mem,
	.open_src = ftb_open_src,
	.next = ftb_next,
	.close = ftb_close,
};

/* ------------------------------------------------------------ regions */

struct rg_slice {
	char name[FTRACE_NAME_MAX];
	int64_t start;
};

struct rg_pid {
	int32_t pid;                 /* valid when depth > 0 */
	uint32_t depth;
	struct rg_slice *stack;      /* FTRACE_REGION_DEPTH entries, allocated on first use */
};

struct rg_async {
	bool used;
	int32_t pid;
	int64_t cookie;
	struct rg_slice s;
};

struct ftrace_regions {
	struct rg_pid pids[FTRACE_REGION_PIDS]; /* open addressing on pid */
	struct rg_async async[FTRACE_REGION_ASYNC];
	uint64_t dropped, open;
};

struct ftrace_regions *ftrace_regions_new(void)
{
	return calloc(1, sizeof(struct ftrace_regions));
}

void ftrace_regions_free(struct ftrace_regions *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < FTRACE_REGION_PIDS; i++)
		free(t->pids[i].stack);
	free(t);
}

uint64_t ftrace_regions_dropped(const struct ftrace_regions *t) { return t->dropped; }
uint64_t ftrace_regions_open(const struct ftrace_regions *t) { return t->open; }

/* Slot of pid: its own, or (create) the first free one on its probe path.
 * Slots with depth 0 are free; deletion keeps probe paths intact because a
 * lookup walks over free slots to the end of the cluster bound. */
static struct rg_pid *rg_slot(struct ftrace_regions *t, int32_t pid, bool create)
{
	uint32_t h = ((uint32_t)pid * 2654435761u) % FTRACE_REGION_PIDS;
	struct rg_pid *free_slot = NULL;
	for (uint32_t k = 0; k < FTRACE_REGION_PIDS; k++) {
		struct rg_pid *s = &t->pids[(h + k) % FTRACE_REGION_PIDS];
		if (s->depth > 0 && s->pid == pid)
			return s;
		if (s->depth == 0 && !free_slot)
			free_slot = s;
		if (s->depth == 0 && s->stack == NULL)
			break; /* never used: the probe path ends here */
	}
	if (!create || !free_slot)
		return NULL;
	if (!free_slot->stack) {
		free_slot->stack = calloc(FTRACE_REGION_DEPTH, sizeof(*free_slot->stack));
		if (!free_slot->stack)
			return NULL;
	}
	free_slot->pid = pid;
	return free_slot;
}

int ftrace_regions_feed(struct ftrace_regions *t, const struct ftrace_rec *rec,
			struct ftrace_region *out)
{
	int32_t pid = rec->u.mark.pid;
	switch (rec->type) {
	case FTRACE_MARK_BEGIN: {
		struct rg_pid *s = rg_slot(t, pid, true);
		if (!s || s->depth == FTRACE_REGION_DEPTH) {
			t->dropped++;
			return 0;
		}
		struct rg_slice *sl = &s->stack[s->depth++];
		snprintf(sl->name, sizeof(sl->name), "%s", rec->u.mark.name);
		sl->start = rec->time_ns;
		t->open++;
		return 0;
	}
	case FTRACE_MARK_END: {
		struct rg_pid *s = rg_slot(t, pid, false);
		if (!s) {
			t->dropped++;
			return 0;
		}
		struct rg_slice *sl = &s->stack[--s->depth];
		t->open--;
		out->pid = pid;
		out->tid = rec->pid;
		out->async = false;
		memcpy(out->name, sl->name, sizeof(out->name));
		out->start_ns = sl->start;
		out->duration_ns = rec->time_ns - sl->start;
		return 1;
	}
	case FTRACE_MARK_ASYNC_BEGIN:
		for (uint32_t i = 0; i < FTRACE_REGION_ASYNC; i++) {
			struct rg_async *a = &t->async[i];
			if (a->used)
				continue;
			a->used = true;
			a->pid = pid;
			a->cookie = rec->u.mark.value;
			snprintf(a->s.name, sizeof(a->s.name), "%s", rec->u.mark.name);
			a->s.start = rec->time_ns;
			t->open++;
			return 0;
		}
		t->dropped++;
		return 0;
	case FTRACE_MARK_ASYNC_END:
		for (uint32_t i = 0; i < FTRACE_REGION_ASYNC; i++) {
			struct rg_async *a = &t->async[i];
			if (!a->used || a->pid != pid || a->cookie != rec->u.mark.value ||
			    strcmp(a->s.name, rec->u.mark.name) != 0)
				continue;
			a->used = false;
			t->open--;
			out->pid = pid;
			out->tid = rec->pid;
			out->async = true;
			memcpy(out->name, a->s.name, sizeof(out->name));
			out->start_ns = a->s.start;
			out->duration_ns = rec->time_ns - a->s.start;
			return 1;
		}
		t->dropped++;
		return 0;
	default:
		return 0;
	}
}
