/* Reader of blkparse's default text output (blktrace 1.2.0 blkparse_fmt.c
 * process_default), e.g.
 *
 *   259,0    1        2     0.000000184 21279  Q  RA 2348060440 + 8 [(null)]
 *
 * Line shapes by action: Q D I B "sector + n [comm]" (or "[comm]", or for
 * SCSI passthrough "bytes (cdb) [comm]"); M F G S "sector + n [comm]";
 * C R "sector + n [error]" ("sector [error]", "(cdb) [error]"); P "[comm]";
 * U UT "[comm] depth"; X "sector / new_sector [comm]"; A "sector + n <-
 * (maj,min) from_sector"; m "<text>". blkparse's "-t" elapsed field
 * "(%8llu)" before the bracket is accepted and ignored. "[(null)]" (no
 * process name in the trace) reads back as comm NULL.
 *
 * The summary blkparse prints at the end (per-CPU and Total blocks,
 * Throughput, Events, Skips lines, per-program blocks of -s), blank lines
 * and "Input file ... added" lines are skipped; anything else is an error
 * "FILE:LINE: ...".
 *
 * Order: blkparse sorts by time, but output made from several sources or
 * edited by hand may have CPUs out of order. The reader holds a bounded
 * window of events (trace_opts.blkparse_reorder_window, default 512 =
 * blkparse's own batch; 1 = input order) in a heap and returns them by
 * (time, input order); an event displaced by more than the window comes
 * out late, still exactly once. In-order events skip the heap (a FIFO
 * beside it), so sorted input pays no heap work. Memory: the window, fixed
 * at open.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "models/block/request.h"
#include "traces/trace.h"
#include "traces/trace_int.h"

/* include/linux/threads.h PID_MAX_LIMIT on 64-bit kernels: no task id is
 * larger, so a bigger number is a corrupt line, not a pid. */
#define BP_PID_MAX 4194304u

#define BP_DEFAULT_WINDOW 512u
#define BP_MAX_WINDOW 65536u
#define BP_COMM_MAX 64u
#define BP_MSG_MAX 512u

struct bp_slot {
	struct trace_rec rec;
	uint64_t ord;
	char comm[BP_COMM_MAX];
	uint8_t msg[BP_MSG_MAX];
};

struct bp_reader {
	struct trace_src src;
	uint32_t window;
	struct bp_slot *slots;   /* window entries */
	uint32_t *heap;          /* slot indexes of events that came in out of order */
	uint32_t *fifo;          /* ring of slot indexes in (time, input order): the in-order events */
	uint32_t *free;          /* free slot stack */
	uint32_t nheap, nfree;
	uint32_t fifo_head, nfifo;
	uint64_t ord;
	bool in_summary, eof, failed;
	char comm_out[BP_COMM_MAX];
	uint8_t msg_out[BP_MSG_MAX];
};

/* ---- scanning helpers ------------------------------------------------- */

struct cur {
	const char *p, *end;
};

static void skip_ws(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/* A decimal digit without the locale lookup of isdigit(). */
static inline bool is_digit(char ch)
{
	return (unsigned)(ch - '0') < 10u;
}

static bool take_u64(struct cur *c, uint64_t *v)
{
	skip_ws(c);
	return trace_dec_u64(&c->p, c->end, v);
}

static bool take_u32(struct cur *c, uint32_t *v)
{
	uint64_t x;
	if (!take_u64(c, &x) || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool take_char(struct cur *c, char ch)
{
	skip_ws(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

static bool peek_char(struct cur *c, char ch)
{
	skip_ws(c);
	return c->p < c->end && *c->p == ch;
}

/* A whitespace-delimited word. */
static bool take_word(struct cur *c, const char **w, size_t *l)
{
	skip_ws(c);
	*w = c->p;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
		c->p++;
	*l = (size_t)(c->p - *w);
	return *l > 0;
}

static bool at_end(struct cur *c)
{
	skip_ws(c);
	return c->p == c->end;
}

/* Skip an optional "(...)" group (blkparse -t elapsed, or a PC cdb). */
static bool skip_paren(struct cur *c)
{
	skip_ws(c);
	if (c->p >= c->end || *c->p != '(')
		return false;
	const char *q = memchr(c->p, ')', (size_t)(c->end - c->p));
	if (!q)
		return false;
	c->p = q + 1;
	return true;
}

/* "[comm]" up to the last ']' before end (or before the last ']' followed
 * by digits for U); stores into comm. */
static bool take_bracket(struct cur *c, const char *limit, char *comm, const char **cp)
{
	skip_ws(c);
	if (c->p >= limit || *c->p != '[')
		return false;
	const char *open = c->p + 1, *close = NULL;
	for (const char *q = limit - 1; q >= open; q--)
		if (*q == ']') {
			close = q;
			break;
		}
	if (!close)
		return false;
	size_t l = (size_t)(close - open);
	if (l >= BP_COMM_MAX)
		l = BP_COMM_MAX - 1;
	memcpy(comm, open, l);
	comm[l] = '\0';
	*cp = (l == 6 && !memcmp(comm, "(null)", 6)) ? NULL : comm;
	c->p = close + 1;
	return true;
}

static bool parse_int_bracket(struct cur *c, int32_t *v)
{
	skip_ws(c);
	if (!take_char(c, '['))
		return false;
	bool neg = take_char(c, '-');
	uint64_t x;
	if (!take_u64(c, &x) || x > INT32_MAX || !take_char(c, ']'))
		return false;
	*v = neg ? -(int32_t)x : (int32_t)x;
	return true;
}

/* ---- line classification ---------------------------------------------- */

static bool starts(const char *l, size_t n, const char *pfx)
{
	size_t k = strlen(pfx);
	return n >= k && !memcmp(l, pfx, k);
}

/* Summary and decoration lines blkparse prints around the events. */
static bool summary_header(const char *l, size_t n)
{
	if (starts(l, n, "CPU") && n > 3 && isdigit((unsigned char)l[3]) && memchr(l, '(', n))
		return true;
	if (starts(l, n, "Total ("))
		return true;
	return false;
}

static bool summary_line(const char *l, size_t n)
{
	if (n == 0 || l[0] == ' ' || l[0] == '\t')
		return true;
	return summary_header(l, n) || starts(l, n, "Throughput (R/W):") ||
	       starts(l, n, "Events (") || starts(l, n, "Skips:") ||
	       /* -s per-program blocks: "comm (pid)" or "comm (pid, ...)" */
	       (n > 3 && l[n - 1] == ')' && memchr(l, '(', n));
}

/* ---- the common line, fast ------------------------------------------- */

/* The first byte at or after p (before end) that is not a space; tabs and
 * the rest are left to the caller, which then declines. */
static inline const char *fast_spaces(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (end - p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		w ^= 0x2020202020202020ull; /* a space becomes 0 */
		if (w)
			return p + (__builtin_ctzll(w) >> 3);
		p += 8;
	}
#endif
	while (p < end && *p == ' ')
		p++;
	return p;
}

/* Spaces, then a decimal: false (the caller declines) unless both are there. */
static inline bool fast_num(const char **p, const char *end, uint64_t *v)
{
	*p = fast_spaces(*p, end);
	return trace_dec_u64(p, end, v);
}

/* blkparse's own layout of the events most lines hold: "maj,min cpu seq
 * secs.nnnnnnnnn pid ACT RWBS sector + n [comm]" for Q M F G S D I B and
 * "... sector + n [error]" for C R, fields apart by spaces. Returns 0 with
 * s filled exactly as parse_event's general path fills it, or -1 where
 * the line is anything else (tabs, a "(...)" group, another action, a
 * field out of range, ...): the general path then reads it, with its
 * leniency and its messages. */
static int parse_event_fast(const char *line, size_t len, struct bp_slot *s)
{
	const char *p = line, *end = line + len;
	struct trace_rec *r = &s->rec;
	uint64_t maj, min, cpu, seq, secs, ns, pid, sector, nr;

	if (len < 2 || end[-1] != ']')
		return -1;
	if (!fast_num(&p, end, &maj) || maj > UINT32_MAX || p == end || *p++ != ',' ||
	    !trace_dec_u64(&p, end, &min) || min > UINT32_MAX)
		return -1;
	if (!fast_num(&p, end, &cpu) || cpu > UINT32_MAX || !fast_num(&p, end, &seq) || seq > UINT32_MAX)
		return -1;
	if (!fast_num(&p, end, &secs) || p == end || *p++ != '.')
		return -1;
	const char *f = p;
	if (!trace_dec_u64(&p, end, &ns) || p - f != 9)
		return -1;
	if (secs > (uint64_t)INT64_MAX / 1000000000u - 1)
		return -1;
	if (!fast_num(&p, end, &pid) || pid > BP_PID_MAX)
		return -1;
	p = fast_spaces(p, end);
	if (end - p < 3 || p[1] != ' ')
		return -1;
	char act = p[0];
	bool done = act == 'C' || act == 'R';
	if (!done && !memchr("QMFGSDIB", act, 8))
		return -1;
	p = fast_spaces(p + 1, end);
	const char *w = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	memset(r, 0, sizeof(*r));
	if (trace_rwbs_parse(w, (size_t)(p - w), r))
		return -1;
	if (!fast_num(&p, end, &sector))
		return -1;
	p = fast_spaces(p, end);
	if (p == end || *p++ != '+' || !fast_num(&p, end, &nr) || nr > (UINT32_MAX >> 9) ||
	    sector > UINT64_MAX - nr)
		return -1;
	p = fast_spaces(p, end);
	if (p == end || *p != '[')
		return -1;
	const char *open = p + 1, *close = end - 1;
	const char *cp = NULL;
	if (done) {
		uint64_t e;
		const char *q = open;
		if (!trace_dec_u64(&q, close, &e) || q != close || e > INT32_MAX)
			return -1;
		r->error = (int32_t)e;
	} else {
		size_t l = (size_t)(close - open);
		if (l >= BP_COMM_MAX)
			l = BP_COMM_MAX - 1;
		memcpy(s->comm, open, l);
		s->comm[l] = '\0';
		cp = (l == 6 && !memcmp(s->comm, "(null)", 6)) ? NULL : s->comm;
	}
	r->kind = TRACE_REC_BLOCK;
	r->tflags = TRACE_T_HAS_SEQ;
	r->dev_major = (uint32_t)maj;
	r->dev_minor = (uint32_t)min;
	r->cpu = (uint32_t)cpu;
	r->seq = (uint32_t)seq;
	r->time_ns = (int64_t)(secs * 1000000000u + ns);
	r->pid = (int32_t)pid;
	r->action = trace_action_from_letter(act);
	r->act = act;
	r->sector = sector;
	r->nr_sectors = (uint32_t)nr;
	r->bytes = (uint32_t)nr << 9;
	r->comm = cp;
	return 0;
}

/* ---- event parsing ---------------------------------------------------- */

/* Parse an event line into s. Returns 0, or -1 with *why set. */
static int parse_event(const char *line, size_t len, struct bp_slot *s, const char **why)
{
	struct cur c = { line, line + len };
	struct trace_rec *r = &s->rec;
	uint64_t secs, v;
	const char *w;
	size_t wl;

	if (parse_event_fast(line, len, s) == 0)
		return 0;
	memset(r, 0, sizeof(*r));
	r->kind = TRACE_REC_BLOCK;
	r->tflags = TRACE_T_HAS_SEQ;
	*why = "expected 'maj,min cpu seq secs.nsecs pid action rwbs ...'";
	if (!take_u32(&c, &r->dev_major) || !take_char(&c, ',') || !take_u32(&c, &r->dev_minor))
		return -1;
	if (!take_u32(&c, &r->cpu) || !take_u32(&c, &r->seq))
		return -1;
	if (!take_u64(&c, &secs) || c.p >= c.end || *c.p != '.')
		return -1;
	c.p++;
	{
		const char *f = c.p;
		uint64_t ns = 0;
		int digits = 0;
		while (c.p < c.end && is_digit(*c.p)) {
			if (digits < 9)
				ns = ns * 10 + (uint64_t)(*c.p - '0');
			digits++;
			c.p++;
		}
		if (c.p == f)
			return -1;
		for (; digits < 9; digits++)
			ns *= 10;
		if (secs > (uint64_t)INT64_MAX / 1000000000u - 1) {
			*why = "time out of range";
			return -1;
		}
		r->time_ns = (int64_t)(secs * 1000000000u + ns);
	}
	if (!take_u64(&c, &v))
		return -1;
	if (v > BP_PID_MAX) {
		*why = "pid out of range (0..4194304, the kernel's PID_MAX_LIMIT)";
		return -1;
	}
	r->pid = (int32_t)v;
	if (!take_word(&c, &w, &wl))
		return -1;
	if (wl == 2 && w[0] == 'U' && w[1] == 'T') {
		r->action = TRACE_A_UNPLUG_TIMER;
		r->act = 'T';
	} else if (wl == 1 && (r->action = trace_action_from_letter(w[0])) != TRACE_A_NONE) {
		r->act = w[0];
	} else {
		*why = "unknown action (expected one of Q M F G S R D C P U UT I X B A m)";
		return -1;
	}
	if (!take_word(&c, &w, &wl) || trace_rwbs_parse(w, wl, r)) {
		*why = "bad rwbs field (expected e.g. R, WS, FWFSM, N)";
		return -1;
	}

	const char *cp = NULL;
	switch (r->act) {
	case 'm': {
		/* The text follows one separating space. */
		const char *t = c.p < c.end ? c.p + 1 : c.p;
		size_t tl = (size_t)(c.end - t);
		if (tl > BP_MSG_MAX) {
			*why = "message longer than 512 bytes";
			return -1;
		}
		memcpy(s->msg, t, tl);
		r->pdu = s->msg;
		r->pdu_len = (uint32_t)tl;
		r->tflags = 0;
		r->dir = TRACE_DIR_NONE;
		r->flags = 0;
		return 0;
	}
	case 'P':
		*why = "expected '[comm]'";
		if (!take_bracket(&c, c.end, s->comm, &cp) || !at_end(&c))
			return -1;
		break;
	case 'U':
	case 'T': {
		*why = "expected '[comm] depth'";
		const char *q = c.end;
		while (q > c.p && isdigit((unsigned char)q[-1]))
			q--;
		if (q == c.end)
			return -1;
		struct cur tail = { q, c.end };
		if (!take_u64(&tail, &r->pdu_u64))
			return -1;
		if (!take_bracket(&c, q, s->comm, &cp) || c.p > q)
			return -1;
		c.p = q;
		struct cur mid = { c.p, q };
		(void)mid;
		break;
	}
	case 'A':
		*why = "expected 'sector + n <- (maj,min) from_sector'";
		if (!take_u64(&c, &r->sector) || !take_char(&c, '+') || !take_u32(&c, &r->nr_sectors))
			return -1;
		if (!take_char(&c, '<') || c.p >= c.end || *c.p != '-')
			return -1;
		c.p++;
		if (!take_char(&c, '(') || !take_u32(&c, &r->from_major) || !take_char(&c, ',') ||
		    !take_u32(&c, &r->from_minor) || !take_char(&c, ')') ||
		    !take_u64(&c, &r->from_sector) || !at_end(&c))
			return -1;
		break;
	case 'X':
		*why = "expected 'sector / new_sector [comm]'";
		if (!take_u64(&c, &r->sector) || !take_char(&c, '/') || !take_u64(&c, &r->pdu_u64))
			return -1;
		if (!take_bracket(&c, c.end, s->comm, &cp) || !at_end(&c))
			return -1;
		break;
	case 'C':
	case 'R':
		*why = "expected 'sector + n [error]'";
		if (peek_char(&c, '(')) {
			r->tflags |= TRACE_T_PC;
			skip_paren(&c);
		} else if (!peek_char(&c, '[')) {
			if (!take_u64(&c, &r->sector))
				return -1;
			if (take_char(&c, '+') && !take_u32(&c, &r->nr_sectors))
				return -1;
			skip_paren(&c);
		}
		if (!parse_int_bracket(&c, &r->error) || !at_end(&c))
			return -1;
		break;
	default: /* Q M F G S D I B */
		*why = "expected 'sector + n [comm]'";
		if (!peek_char(&c, '[')) {
			uint64_t a;
			if (!take_u64(&c, &a))
				return -1;
			if (take_char(&c, '+')) {
				r->sector = a;
				if (!take_u32(&c, &r->nr_sectors))
					return -1;
				skip_paren(&c);
			} else if (strchr("QDIB", r->act)) {
				/* SCSI passthrough: "bytes (cdb) [comm]" */
				if (a > UINT32_MAX)
					return -1;
				r->tflags |= TRACE_T_PC;
				r->bytes = (uint32_t)a;
				skip_paren(&c);
			} else {
				return -1;
			}
		} else {
			skip_paren(&c);
		}
		if (!take_bracket(&c, c.end, s->comm, &cp) || !at_end(&c))
			return -1;
		break;
	}
	if (r->nr_sectors > (UINT32_MAX >> 9)) {
		*why = "sector count out of range";
		return -1;
	}
	if (r->sector > UINT64_MAX - r->nr_sectors) {
		*why = "sector + count passes 2^64";
		return -1;
	}
	if (!(r->tflags & TRACE_T_PC))
		r->bytes = r->nr_sectors << 9;
	r->comm = cp;
	return 0;
}

/* ---- heap ------------------------------------------------------------- */

static bool slot_less(const struct bp_reader *b, uint32_t x, uint32_t y)
{
	const struct bp_slot *p = &b->slots[x], *q = &b->slots[y];
	if (p->rec.time_ns != q->rec.time_ns)
		return p->rec.time_ns < q->rec.time_ns;
	return p->ord < q->ord;
}

static void bp_heap_up(struct bp_reader *b, uint32_t i)
{
	while (i) {
		uint32_t p = (i - 1) / 2;
		if (!slot_less(b, b->heap[i], b->heap[p]))
			return;
		uint32_t t = b->heap[i];
		b->heap[i] = b->heap[p];
		b->heap[p] = t;
		i = p;
	}
}

static void bp_heap_down(struct bp_reader *b, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < b->nheap && slot_less(b, b->heap[l], b->heap[m]))
			m = l;
		if (r < b->nheap && slot_less(b, b->heap[r], b->heap[m]))
			m = r;
		if (m == i)
			return;
		uint32_t t = b->heap[i];
		b->heap[i] = b->heap[m];
		b->heap[m] = t;
		i = m;
	}
}

/* The window: events that arrive in (time, input order) wait in a FIFO,
 * the few that arrive earlier than its tail in the heap; the next out is
 * the smaller of the two heads, so the order is the heap's alone but a
 * sorted trace (blkparse's own output) costs one comparison per event. */
static void window_push(struct bp_reader *b, uint32_t si)
{
	if (!b->nfifo ||
	    !slot_less(b, si, b->fifo[(b->fifo_head + b->nfifo - 1) % b->window])) {
		b->fifo[(b->fifo_head + b->nfifo++) % b->window] = si;
		return;
	}
	b->heap[b->nheap++] = si;
	bp_heap_up(b, b->nheap - 1);
}

static uint32_t window_pop(struct bp_reader *b)
{
	uint32_t si;
	if (b->nfifo && (!b->nheap || slot_less(b, b->fifo[b->fifo_head], b->heap[0]))) {
		si = b->fifo[b->fifo_head];
		b->fifo_head = (b->fifo_head + 1) % b->window;
		b->nfifo--;
		return si;
	}
	si = b->heap[0];
	b->heap[0] = b->heap[--b->nheap];
	if (b->nheap)
		bp_heap_down(b, 0);
	return si;
}

/* ---- ops -------------------------------------------------------------- */

static int bp_probe(const uint8_t *buf, size_t len)
{
	/* Count event lines among the first few non-decoration lines. */
	size_t i = 0;
	int good = 0, seen = 0;
	struct bp_slot *s = malloc(sizeof(*s));

	if (!s)
		return 0;
	while (i < len && seen < 8) {
		size_t e = i;
		while (e < len && buf[e] != '\n')
			e++;
		if (e == len && len == TRACE_PROBE_BYTES)
			break;
		const char *l = (const char *)buf + i;
		size_t n = e - i;
		if (n && l[n - 1] == '\r')
			n--;
		i = e + 1;
		if (n == 0 || starts(l, n, "Input file "))
			continue;
		const char *why;
		seen++;
		if (parse_event(l, n, s, &why) == 0)
			good++;
		else if (!summary_line(l, n))
			break;
	}
	free(s);
	if (!good)
		return 0;
	return good == seen ? 90 : 50;
}

static void bp_close(void *state)
{
	struct bp_reader *b = state;

	if (!b)
		return;
	trace_src_close(&b->src);
	free(b->slots);
	free(b->heap);
	free(b->fifo);
	free(b->free);
	free(b);
}

static struct bp_reader *bp_alloc(const struct trace_opts *opts)
{
	struct bp_reader *b = calloc(1, sizeof(*b));
	uint32_t w = opts && opts->blkparse_reorder_window ? opts->blkparse_reorder_window
							   : BP_DEFAULT_WINDOW;

	if (!b)
		return NULL;
	if (w > BP_MAX_WINDOW)
		w = BP_MAX_WINDOW;
	b->window = w;
	b->src.fd = -1;
	b->slots = calloc(w, sizeof(*b->slots));
	b->heap = calloc(w, sizeof(*b->heap));
	b->fifo = calloc(w, sizeof(*b->fifo));
	b->free = calloc(w, sizeof(*b->free));
	if (!b->slots || !b->heap || !b->fifo || !b->free) {
		bp_close(b);
		return NULL;
	}
	for (uint32_t i = 0; i < w; i++)
		b->free[b->nfree++] = w - 1 - i;
	return b;
}

static int bp_open(const char *path, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	struct bp_reader *b = bp_alloc(opts);

	if (!b)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	int rc = trace_src_open(&b->src, path, TRACE_SRC_BUF, err);
	if (rc) {
		bp_close(b);
		return rc;
	}
	*state = b;
	return 0;
}

static int bp_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
		       void **state, struct sim_error *err)
{
	struct bp_reader *b = bp_alloc(opts);

	if (!b)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", name);
	trace_src_open_mem(&b->src, buf, len, name);
	*state = b;
	return 0;
}

static int bp_open_src(void *src, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	struct trace_src *s = src;
	struct bp_reader *b = bp_alloc(opts);

	if (!b)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", s->name);
	trace_src_move(&b->src, s);
	if (opts && opts->diag)
		opts->diag->files = 1;
	*state = b;
	return 0;
}

/* Read lines until one event is parsed into a free slot and pushed.
 * Returns 1, 0 at end of input, or an error. */
static int bp_fill_one(struct bp_reader *b, struct sim_error *err)
{
	const char *line;
	size_t len;

	for (;;) {
		int rc = trace_src_getline(&b->src, &line, &len, err);
		if (rc <= 0)
			return rc;
		if (len == 0 || starts(line, len, "Input file "))
			continue;
		uint32_t si = b->free[b->nfree - 1];
		struct bp_slot *s = &b->slots[si];
		const char *why;
		if (parse_event(line, len, s, &why) == 0) {
			b->in_summary = false;
			b->nfree--;
			s->ord = b->ord++;
			window_push(b, si);
			return 1;
		}
		if (summary_header(line, len))
			b->in_summary = true;
		if (b->in_summary && summary_line(line, len))
			continue;
		/* A summary line before any header (a trace cut after the
		 * events, e.g. "Throughput" alone) is also fine. */
		if (!b->in_summary && summary_line(line, len) && line[0] != ' ' && line[0] != '\t' &&
		    (starts(line, len, "Throughput") || starts(line, len, "Events (") ||
		     starts(line, len, "Skips:"))) {
			b->in_summary = true;
			continue;
		}
		return sim_errorf(err, SIM_E_INPUT, "%s:%llu: %s: '%.*s'", b->src.name,
				  (unsigned long long)b->src.line, why, len > 80 ? 80 : (int)len, line);
	}
}

static int bp_next(void *state, struct trace_rec *rec, struct sim_error *err)
{
	struct bp_reader *b = state;

	if (b->failed)
		return sim_errorf(err, SIM_E_INPUT, "%s: read after an error", b->src.name);
	while (!b->eof && b->nheap + b->nfifo < b->window) {
		int rc = bp_fill_one(b, err);
		if (rc < 0) {
			b->failed = true;
			return rc;
		}
		if (rc == 0)
			b->eof = true;
	}
	if (!b->nheap && !b->nfifo)
		return 0;
	uint32_t si = window_pop(b);
	b->free[b->nfree++] = si;
	struct bp_slot *s = &b->slots[si];
	*rec = s->rec;
	if (s->rec.comm) {
		memcpy(b->comm_out, s->comm, sizeof(b->comm_out));
		rec->comm = b->comm_out;
	}
	if (s->rec.pdu_len) {
		memcpy(b->msg_out, s->msg, s->rec.pdu_len);
		rec->pdu = b->msg_out;
	} else {
		rec->pdu = NULL;
	}
	return 1;
}

const struct trace_reader_ops trace_blkparse_ops = {
	.name = "blkparse",
	.summary = "blkparse default text output (events; summary skipped)",
	.cpus = true,
	.identity = TRACE_ID_PID | TRACE_ID_COMM,
	.probe = bp_probe,
	.open = bp_open,
	.open_mem = bp_open_mem,
	.open_src = bp_open_src,
	.next = bp_next,
	.close = bp_close,
};
