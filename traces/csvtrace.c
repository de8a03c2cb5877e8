/* Readers of request-list text traces that other tools and trace archives
 * publish: one request per line, turned into 'Q' records.
 *
 * csv (trace_csv_ops):
 *   MSR Cambridge (SNIA IOTTA set 388, "MSR Cambridge Traces"): seven comma
 *     fields Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime;
 *     Timestamp and ResponseTime are Windows FILETIME 100 ns ticks, Type is
 *     Read or Write, Offset and Size are bytes. Detected from the content.
 *     Each request is a Q record and, ResponseTime later, a C record.
 *   SNIA CSV with a header line naming its columns
 *     "Timestamp,Response,IOType,LUN,Offset,Size" (the SNIA Systor '17
 *     layout; time and response in seconds, IOType R/W, bytes). Detected
 *     from that header.
 *     Response, as MSR's ResponseTime, times the C record.
 *   Any other text format through a column mapping (opts->columns,
 *   `--columns`), e.g. "time=1:us,op=2,offset=3:sector,size=4:sector,sep=ws"
 *   (see docs/traces.md, and csv_parse_columns below).
 * fio (trace_fio_ops): fio's iolog version 2 ("fio version 2 iolog": lines
 *   "FILE ACTION [OFFSET LENGTH]", wait OFFSET = milliseconds since the job
 *   started) and version 3 ("fio version 3 iolog": "USEC FILE ACTION [OFFSET
 *   LENGTH]", the time in microseconds since the start), as fio's iolog.c
 *   (read_iolog, log_io_u, read_iolog_get) writes and replays them. Files
 *   become devices 0,N in order of first sight; read/write/trim become Q
 *   records; sync/datasync, add/open/close are counted.
 *
 * Time is relative to the first request. Lines that cannot be read are an
 * error "FILE:LINE: ..." (SIM_E_INPUT). What the recording or replaying tool
 * itself skips -- an action fio does not know, a zero-length request, a
 * last line cut short -- is skipped with a warning and counted (trace stat
 * shows the count and the first one); opts->strict makes it an error.
 * Memory: the input buffer and, for fio, a fixed table of file names.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "models/block/request.h"
#include "traces/trace.h"
#include "traces/trace_int.h"

#define CSV_MAX_FIELDS 32
#define CSV_HOST_MAX 64
#define FIO_MAX_FILES 256
#define FIO_NAME_MAX 257 /* fio reads names with %256s */

enum csv_dialect { CSV_MSR, CSV_SNIA, CSV_COLUMNS, CSV_FIO2, CSV_FIO3 };

/* Completions outstanding at once; the completions of requests beyond
 * that are not returned, and counted. */
#define CSV_PENDING 4096

struct csv_done {
	int64_t t;
	uint64_t order, sector;
	uint32_t dev, nsec, bytes;
	uint8_t dir;
	char comm[CSV_HOST_MAX];
};

/* Unit multipliers: time to ns (FILETIME ticks are 100 ns), sizes to bytes. */
struct csv_col {
	int idx;       /* 0-based column, -1 = absent */
	uint64_t mul;  /* ns or bytes per unit */
};

struct csv_map {
	struct csv_col time, op, offset, size, dev, resp;
	char sep;          /* ',' ';' '\t' or ' ' (any run of blanks) */
	uint32_t skip;     /* header lines */
	char read[16], write[16]; /* op values; "" = by first letter */
};

struct csv_reader {
	struct trace_src src;
	enum csv_dialect dialect;
	struct csv_map map;
	bool strict, failed, have_t0;
	struct trace_diag *diag;
	unsigned __int128 t0;
	uint64_t nreq, lines, comments, warnings, backwards, unaligned;
	uint64_t fio_sync, fio_file_ops, fio_waits;
	int64_t fio_wait_ns, last_ns;
	char first_warning[SIM_ERRMSG_MAX];
	char host[CSV_HOST_MAX];
	/* completions due (response times): a min-heap by time */
	struct csv_done *pend;
	uint32_t npend;
	uint64_t pend_order, completions, late_completions;
	bool held, at_eof;
	struct trace_rec held_rec;
	char held_comm[CSV_HOST_MAX], done_comm[CSV_HOST_MAX];
	/* fio file table */
	uint32_t nfiles;
	char (*files)[FIO_NAME_MAX];
};

/* ---- helpers ------------------------------------------------------------ */

static int csv_split(const char *p, const char *end, char sep, const char *tok[], size_t tl[])
{
	int n = 0;

	if (sep == ' ') {
		while (p < end) {
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (p >= end)
				break;
			if (n == CSV_MAX_FIELDS)
				return -1;
			tok[n] = p;
			while (p < end && *p != ' ' && *p != '\t')
				p++;
			tl[n] = (size_t)(p - tok[n]);
			n++;
		}
		return n;
	}
	for (;;) {
		const char *q = memchr(p, sep, (size_t)(end - p));
		const char *e = q ? q : end;
		if (n == CSV_MAX_FIELDS)
			return -1;
		/* trim blanks and one level of double quotes */
		const char *a = p, *b = e;
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (b - a >= 2 && *a == '"' && b[-1] == '"') {
			a++;
			b--;
		}
		tok[n] = a;
		tl[n] = (size_t)(b - a);
		n++;
		if (!q)
			return n;
		p = q + 1;
	}
}

/* An unsigned decimal "I" or "I.F" times mul, rounded to the nearest
 * integer, in 128 bits (FILETIME ticks in ns pass 2^63); false on anything
 * else or an integer part past 2^64. */
static bool csv_decimal_wide(const char *s, size_t l, uint64_t mul, unsigned __int128 *out)
{
	unsigned __int128 ip = 0, fp = 0, fscale = 1;
	size_t i = 0;

	if (l && s[0] == '+')
		i++;
	size_t d0 = i;
	while (i < l && isdigit((unsigned char)s[i])) {
		ip = ip * 10 + (unsigned)(s[i++] - '0');
		if (ip > UINT64_MAX)
			return false;
	}
	bool digits = i > d0;
	if (i < l && s[i] == '.') {
		i++;
		while (i < l && isdigit((unsigned char)s[i])) {
			if (fscale < 1000000000000000000ull) { /* beyond 18 digits: ignored */
				fp = fp * 10 + (unsigned)(s[i] - '0');
				fscale *= 10;
			}
			i++;
			digits = true;
		}
	}
	if (i != l || !digits)
		return false;
	*out = ip * mul + (fp * mul + fscale / 2) / fscale;
	return true;
}

/* The same, at most 2^63 - 1. */
static bool csv_decimal(const char *s, size_t l, uint64_t mul, uint64_t *out)
{
	unsigned __int128 v;
	if (!csv_decimal_wide(s, l, mul, &v) || v > INT64_MAX)
		return false;
	*out = (uint64_t)v;
	return true;
}

static bool tok_eq(const char *t, size_t l, const char *word)
{
	return strlen(word) == l && !strncasecmp(t, word, l);
}

/* Warn (lenient) or fail (strict). Returns 0 to skip the line, or the error. */
static int csv_warn(struct csv_reader *c, struct sim_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int csv_warn(struct csv_reader *c, struct sim_error *err, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (c->strict)
		return sim_errorf(err, SIM_E_INPUT, "%s:%llu: %s (--strict)", c->src.name,
				  (unsigned long long)c->src.line, what);
	trace_diag_note(c->diag, "%s:%llu: %s", c->src.name, (unsigned long long)c->src.line, what);
	if (!c->warnings++) {
		struct sim_error w;
		sim_errorf(&w, SIM_E_INPUT, "%s:%llu: %s", c->src.name, (unsigned long long)c->src.line, what);
		memcpy(c->first_warning, w.msg, sizeof(c->first_warning));
	}
	return 0;
}

static int csv_fail(struct csv_reader *c, struct sim_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int csv_fail(struct csv_reader *c, struct sim_error *err, const char *fmt, ...)
{
	char what[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return sim_errorf(err, SIM_E_INPUT, "%s:%llu: %s", c->src.name,
			  (unsigned long long)c->src.line, what);
}

/* Is the line in buf[0..len) the last one and cut short (no newline)? */
static bool csv_last_line_cut(const struct csv_reader *c)
{
	return c->src.eof && c->src.pos == c->src.len && c->src.len > 0 &&
	       c->src.buf[c->src.len - 1] != '\n';
}

/* Fill a Q record; returns 1, or 0 when skipped (zero size) with a warning. */
static int csv_emit(struct csv_reader *c, struct trace_rec *rec, unsigned __int128 t, uint8_t dir,
		    uint32_t dev, uint64_t offset, uint64_t bytes, const char *comm,
		    struct sim_error *err)
{
	if (bytes == 0) {
		int rc = csv_warn(c, err, "zero-length request skipped");
		return rc ? rc : 0;
	}
	if (bytes > UINT32_MAX - 511)
		return csv_fail(c, err, "size %" PRIu64 " bytes is larger than a request can be (4 GiB)",
				bytes);
	uint64_t sector = offset >> 9;
	uint64_t nsec = ((offset & 511) + bytes + 511) >> 9;
	if (sector > UINT64_MAX - nsec)
		return csv_fail(c, err, "offset %" PRIu64 " + size passes 2^64 bytes", offset);
	if ((offset | bytes) & 511)
		c->unaligned++;
	if (!c->have_t0) {
		c->have_t0 = true;
		c->t0 = t;
	}
	__int128 d = (__int128)(t - c->t0);
	if (t < c->t0)
		d = -(__int128)(c->t0 - t);
	if (d > INT64_MAX || d < -INT64_MAX)
		return csv_fail(c, err, "time is more than 292 years from the first request");
	int64_t rel = (int64_t)d;
	if (c->nreq && rel < c->last_ns)
		c->backwards++;
	c->last_ns = rel;
	memset(rec, 0, sizeof(*rec));
	rec->kind = TRACE_REC_BLOCK;
	rec->action = TRACE_A_QUEUE;
	rec->act = 'Q';
	rec->time_ns = rel;
	rec->seq = (uint32_t)++c->nreq;
	rec->dev_major = dev;
	rec->sector = sector;
	rec->nr_sectors = (uint32_t)nsec;
	rec->bytes = (uint32_t)bytes;
	rec->dir = dir;
	rec->flags = dir == TRACE_DIR_READ ? 0 : REQ_WRITE;
	rec->comm = comm;
	return 1;
}

/* R.../W.../D.../T... by first letter, or the mapping's values. */
static int csv_op(const struct csv_map *m, const char *t, size_t l)
{
	if (m->read[0] || m->write[0]) {
		if (tok_eq(t, l, m->read))
			return TRACE_DIR_READ;
		if (tok_eq(t, l, m->write))
			return TRACE_DIR_WRITE;
		return -1;
	}
	if (!l)
		return -1;
	switch (t[0]) {
	case 'R': case 'r': return TRACE_DIR_READ;
	case 'W': case 'w': return TRACE_DIR_WRITE;
	case 'D': case 'd': case 'T': case 't': return TRACE_DIR_DISCARD;
	default: return -1;
	}
}

/* ---- column mapping ----------------------------------------------------- */

static bool unit_mul(const char *u, size_t l, bool time, uint64_t *mul)
{
	static const struct { const char *name; bool time; uint64_t mul; } units[] = {
		{ "s", true, 1000000000ull }, { "ms", true, 1000000ull }, { "us", true, 1000ull },
		{ "ns", true, 1 }, { "filetime", true, 100 }, { "B", false, 1 },
		{ "sector", false, 512 }, { "KiB", false, 1024 }, { "4KiB", false, 4096 },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].time == time && tok_eq(u, l, units[i].name)) {
			*mul = units[i].mul;
			return true;
		}
	return false;
}

/* "time=1:us,op=2,offset=3:sector,size=4:B[,dev=5][,sep=ws][,skip=1][,read=R,write=W]" */
static int csv_parse_columns(const char *spec, struct csv_map *m, struct sim_error *err)
{
	const char *p = spec;

	memset(m, 0, sizeof(*m));
	m->time.idx = m->op.idx = m->offset.idx = m->size.idx = m->dev.idx = m->resp.idx = -1;
	m->time.mul = m->resp.mul = 1000000000ull;
	m->offset.mul = m->size.mul = 1;
	m->sep = ',';
	while (*p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		const char *eq = memchr(p, '=', l);
		if (!eq)
			return sim_errorf(err, SIM_E_INPUT, "--columns: '%.*s' is not KEY=VALUE", (int)l, p);
		size_t kl = (size_t)(eq - p);
		const char *v = eq + 1;
		size_t vl = l - kl - 1;
		struct csv_col *col = NULL;
		bool time = false;
		if (tok_eq(p, kl, "time")) { col = &m->time; time = true; }
		else if (tok_eq(p, kl, "op")) col = &m->op;
		else if (tok_eq(p, kl, "offset")) col = &m->offset;
		else if (tok_eq(p, kl, "size")) col = &m->size;
		else if (tok_eq(p, kl, "dev")) col = &m->dev;
		else if (tok_eq(p, kl, "response")) { col = &m->resp; time = true; }
		if (col) {
			const char *colon = memchr(v, ':', vl);
			size_t nl = colon ? (size_t)(colon - v) : vl;
			uint64_t n = 0;
			if (!csv_decimal(v, nl, 1, &n) || memchr(v, '.', nl) || n < 1 || n > CSV_MAX_FIELDS)
				return sim_errorf(err, SIM_E_INPUT, "--columns: %.*s: column '%.*s' is not 1..%d",
						  (int)kl, p, (int)nl, v, CSV_MAX_FIELDS);
			col->idx = (int)n - 1;
			if (colon) {
				bool ok = (col == &m->time || col == &m->resp || col == &m->offset || col == &m->size) &&
					  unit_mul(colon + 1, vl - nl - 1, time, &col->mul);
				if (!ok)
					return sim_errorf(err, SIM_E_INPUT, "--columns: %.*s: unknown unit '%.*s' "
							  "(time: s ms us ns filetime; offset, size: B sector KiB 4KiB)",
							  (int)kl, p, (int)(vl - nl - 1), colon + 1);
			}
		} else if (tok_eq(p, kl, "sep")) {
			if (tok_eq(v, vl, "ws") || tok_eq(v, vl, "space"))
				m->sep = ' ';
			else if (tok_eq(v, vl, "tab"))
				m->sep = '\t';
			else if (tok_eq(v, vl, "comma"))
				m->sep = ',';
			else if (tok_eq(v, vl, "semicolon") || tok_eq(v, vl, ";"))
				m->sep = ';';
			else
				return sim_errorf(err, SIM_E_INPUT, "--columns: sep: expected comma, semicolon, tab or ws");
		} else if (tok_eq(p, kl, "skip")) {
			uint64_t n;
			if (!csv_decimal(v, vl, 1, &n) || memchr(v, '.', vl) || n > 1000)
				return sim_errorf(err, SIM_E_INPUT, "--columns: skip: expected 0..1000 header lines");
			m->skip = (uint32_t)n;
		} else if (tok_eq(p, kl, "read") || tok_eq(p, kl, "write")) {
			char *dst = tolower((unsigned char)p[0]) == 'r' ? m->read : m->write;
			if (vl == 0 || vl >= sizeof(m->read))
				return sim_errorf(err, SIM_E_INPUT, "--columns: %.*s: value of 1..15 characters",
						  (int)kl, p);
			memcpy(dst, v, vl);
			dst[vl] = '\0';
		} else {
			return sim_errorf(err, SIM_E_INPUT, "--columns: unknown key '%.*s' "
					  "(time op offset size dev response sep skip read write)", (int)kl, p);
		}
		p += l;
		if (*p == ',')
			p++;
	}
	if (m->time.idx < 0 || m->op.idx < 0 || m->offset.idx < 0 || m->size.idx < 0)
		return sim_errorf(err, SIM_E_INPUT, "--columns: time, op, offset and size are required");
	if ((m->read[0] != 0) != (m->write[0] != 0))
		return sim_errorf(err, SIM_E_INPUT, "--columns: give both read= and write= or neither");
	return 0;
}

/* ---- probes ------------------------------------------------------------- */

static bool first_line(const uint8_t *buf, size_t len, const char **p, const char **end)
{
	const uint8_t *nl = memchr(buf, '\n', len);
	if (!nl)
		return false;
	*p = (const char *)buf;
	*end = (const char *)nl;
	if (*end > *p && (*end)[-1] == '\r')
		(*end)--;
	return true;
}

static bool msr_line(const char *p, const char *end)
{
	const char *tok[CSV_MAX_FIELDS];
	size_t tl[CSV_MAX_FIELDS];
	int n = csv_split(p, end, ',', tok, tl);
	if (n != 7 || tl[0] < 10)
		return false;
	for (size_t i = 0; i < tl[0]; i++)
		if (!isdigit((unsigned char)tok[0][i]))
			return false;
	return tok_eq(tok[3], tl[3], "Read") || tok_eq(tok[3], tl[3], "Write");
}

static const char snia_header[] = "Timestamp,Response,IOType,LUN,Offset,Size";

static int csv_probe(const uint8_t *buf, size_t len)
{
	const char *p, *end;
	if (!first_line(buf, len, &p, &end))
		return 0;
	if ((size_t)(end - p) == sizeof(snia_header) - 1 && !strncasecmp(p, snia_header, (size_t)(end - p)))
		return 95;
	return msr_line(p, end) ? 95 : 0;
}

static int fio_version(const uint8_t *buf, size_t len)
{
	static const char v2[] = "fio version 2 iolog", v3[] = "fio version 3 iolog";
	if (len >= sizeof(v2) - 1 && !memcmp(buf, v2, sizeof(v2) - 1))
		return 2;
	if (len >= sizeof(v3) - 1 && !memcmp(buf, v3, sizeof(v3) - 1))
		return 3;
	return 0;
}

static int fio_probe(const uint8_t *buf, size_t len)
{
	return fio_version(buf, len) ? 100 : 0;
}

/* ---- open / close ------------------------------------------------------- */

static void csv_close(void *state)
{
	struct csv_reader *c = state;
	if (!c)
		return;
	trace_src_close(&c->src);
	free(c->pend);
	free(c->files);
	free(c);
}

/* Choose the dialect from the first line (or the mapping). */
static int csv_setup(struct csv_reader *c, bool fio, const struct trace_opts *opts,
		     struct sim_error *err)
{
	c->strict = opts && opts->strict;
	c->diag = opts ? opts->diag : NULL;
	if (c->diag)
		c->diag->files = 1;
	long n = trace_src_fill(&c->src, TRACE_PROBE_BYTES, err);
	if (n < 0)
		return (int)n;
	const uint8_t *b = c->src.buf + c->src.pos;
	if (fio) {
		int v = fio_version(b, (size_t)n);
		if (!v)
			return sim_errorf(err, SIM_E_INPUT, "%s:1: not a fio iolog: the first line must be "
					  "\"fio version 2 iolog\" or \"fio version 3 iolog\"", c->src.name);
		c->dialect = v == 2 ? CSV_FIO2 : CSV_FIO3;
		c->files = calloc(FIO_MAX_FILES, sizeof(*c->files));
		if (!c->files)
			return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", c->src.name);
		return 0;
	}
	c->pend = calloc(CSV_PENDING, sizeof(*c->pend));
	if (!c->pend)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", c->src.name);
	if (opts && opts->columns) {
		c->dialect = CSV_COLUMNS;
		return csv_parse_columns(opts->columns, &c->map, err);
	}
	const char *p, *end;
	bool have = first_line(b, (size_t)n, &p, &end);
	if (!have && c->src.eof && n > 0) {
		p = (const char *)b;
		end = p + n;
		have = true;
	}
	if (have && (size_t)(end - p) == sizeof(snia_header) - 1 &&
	    !strncasecmp(p, snia_header, sizeof(snia_header) - 1)) {
		c->dialect = CSV_SNIA;
		return 0;
	}
	if (have && msr_line(p, end)) {
		c->dialect = CSV_MSR;
		return 0;
	}
	return sim_errorf(err, SIM_E_INPUT, "%s:1: byte offset 0: not MSR Cambridge or SNIA CSV "
			  "(give the layout with --columns, see docs/traces.md)", c->src.name);
}

static int csv_open_any(const char *path, const void *buf, size_t len, bool fio,
			const struct trace_opts *opts, void **state, struct sim_error *err)
{
	struct csv_reader *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	if (buf) {
		trace_src_open_mem(&c->src, buf, len, path);
	} else if ((rc = trace_src_open(&c->src, path, TRACE_SRC_BUF, err))) {
		free(c);
		return rc;
	}
	rc = csv_setup(c, fio, opts, err);
	if (rc) {
		csv_close(c);
		return rc;
	}
	*state = c;
	return 0;
}

/* A source trace.c opened and probed (standard input, a pipe, decompressed data). */
static int csv_open_src_any(void *src, bool fio, const struct trace_opts *opts, void **state,
			    struct sim_error *err)
{
	struct trace_src *s = src;
	struct csv_reader *c = calloc(1, sizeof(*c));

	if (!c)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", s->name);
	trace_src_move(&c->src, s);
	int rc = csv_setup(c, fio, opts, err);
	if (rc) {
		trace_src_move(s, &c->src); /* the caller closes it */
		csv_close(c);
		return rc;
	}
	*state = c;
	return 0;
}

static int csv_open_src(void *src, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	return csv_open_src_any(src, false, opts, state, err);
}

static int fio_open_src(void *src, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	return csv_open_src_any(src, true, opts, state, err);
}

static int csv_open(const char *path, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	return csv_open_any(path, NULL, 0, false, opts, state, err);
}

static int csv_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
			void **state, struct sim_error *err)
{
	return csv_open_any(name ? name : "<memory>", buf, len, false, opts, state, err);
}

static int fio_open(const char *path, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	return csv_open_any(path, NULL, 0, true, opts, state, err);
}

static int fio_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
			void **state, struct sim_error *err)
{
	return csv_open_any(name ? name : "<memory>", buf, len, true, opts, state, err);
}

/* ---- line parsers ------------------------------------------------------- */

static int parse_u64_tok(const char *t, size_t l, uint64_t *v)
{
	return csv_decimal(t, l, 1, v) && !memchr(t, '.', l);
}

/* ---- completions from response times -------------------------------------- */

static bool done_less(const struct csv_done *a, const struct csv_done *b)
{
	return a->t != b->t ? a->t < b->t : a->order < b->order;
}

static void done_pop(struct csv_reader *c, struct csv_done *out)
{
	*out = c->pend[0];
	c->pend[0] = c->pend[--c->npend];
	for (uint32_t i = 0;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < c->npend && done_less(&c->pend[l], &c->pend[m]))
			m = l;
		if (r < c->npend && done_less(&c->pend[r], &c->pend[m]))
			m = r;
		if (m == i)
			break;
		struct csv_done tmp = c->pend[m];
		c->pend[m] = c->pend[i];
		c->pend[i] = tmp;
		i = m;
	}
}

/* The completion of the queue record q, resp ns after it. */
static void csv_due(struct csv_reader *c, const struct trace_rec *q, int64_t resp)
{
	if (!c->pend)
		return;
	if (c->npend == CSV_PENDING) {
		c->late_completions++; /* not kept: counted */
		return;
	}
	struct csv_done *d = &c->pend[c->npend];
	/* resp >= 0: saturate only when the queue time is positive (fuzzing found
	 * the overflow of INT64_MAX - a negative time) */
	d->t = q->time_ns > 0 && resp > INT64_MAX - q->time_ns ? INT64_MAX : q->time_ns + resp;
	d->order = c->pend_order++;
	d->dev = q->dev_major;
	d->sector = q->sector;
	d->nsec = q->nr_sectors;
	d->bytes = q->bytes;
	d->dir = q->dir;
	snprintf(d->comm, sizeof(d->comm), "%s", q->comm ? q->comm : "");
	for (uint32_t i = c->npend++; i && done_less(&c->pend[i], &c->pend[(i - 1) / 2]); i = (i - 1) / 2) {
		struct csv_done tmp = c->pend[i];
		c->pend[i] = c->pend[(i - 1) / 2];
		c->pend[(i - 1) / 2] = tmp;
	}
}

static void csv_complete(struct csv_reader *c, struct trace_rec *rec)
{
	struct csv_done d;
	done_pop(c, &d);
	memset(rec, 0, sizeof(*rec));
	rec->kind = TRACE_REC_BLOCK;
	rec->action = TRACE_A_COMPLETE;
	rec->act = 'C';
	rec->time_ns = d.t;
	rec->seq = (uint32_t)(c->nreq + ++c->completions);
	rec->dev_major = d.dev;
	rec->sector = d.sector;
	rec->nr_sectors = d.nsec;
	rec->bytes = d.bytes;
	rec->dir = d.dir;
	rec->flags = d.dir == TRACE_DIR_READ ? 0 : REQ_WRITE;
	memcpy(c->done_comm, d.comm, sizeof(c->done_comm));
	rec->comm = c->done_comm[0] ? c->done_comm : NULL;
}

/* One CSV line (MSR, SNIA, mapped). 1 = record, 0 = skipped, < 0 error. */
static int csv_line(struct csv_reader *c, const char *p, const char *end, struct trace_rec *rec,
		    struct sim_error *err)
{
	const char *tok[CSV_MAX_FIELDS];
	size_t tl[CSV_MAX_FIELDS];
	char sep = c->dialect == CSV_COLUMNS ? c->map.sep : ',';
	int n = csv_split(p, end, sep, tok, tl);
	int want;
	struct csv_map m;

	if (c->dialect == CSV_MSR) {
		want = 7;
		m = (struct csv_map){ .time = { 0, 100 }, .dev = { 2, 1 }, .op = { 3, 1 },
				      .offset = { 4, 1 }, .size = { 5, 1 }, .resp = { 6, 100 } };
	} else if (c->dialect == CSV_SNIA) {
		want = 6;
		m = (struct csv_map){ .time = { 0, 1000000000ull }, .resp = { 1, 1000000000ull },
				      .op = { 2, 1 }, .dev = { 3, 1 }, .offset = { 4, 1 }, .size = { 5, 1 } };
	} else {
		m = c->map;
		want = 1 + m.time.idx;
		int cols[] = { m.op.idx, m.offset.idx, m.size.idx, m.dev.idx, m.resp.idx };
		for (int i = 0; i < 5; i++)
			if (cols[i] + 1 > want)
				want = cols[i] + 1;
	}
	bool exact = c->dialect != CSV_COLUMNS;
	if (n < 0 || (exact ? n != want : n < want)) {
		if (csv_last_line_cut(c))
			return csv_warn(c, err, "last line cut short (%d of %d fields), skipped", n, want);
		return csv_fail(c, err, "expected %s%d fields, found %s%d", exact ? "" : "at least ",
				want, n < 0 ? "more than " : "", n < 0 ? CSV_MAX_FIELDS : n);
	}
	unsigned __int128 t;
	uint64_t off, size, dev = 0;
	if (!csv_decimal_wide(tok[m.time.idx], tl[m.time.idx], m.time.mul, &t))
		return csv_fail(c, err, "time '%.*s' is not a non-negative number", (int)tl[m.time.idx],
				tok[m.time.idx]);
	if (!csv_decimal(tok[m.offset.idx], tl[m.offset.idx], m.offset.mul, &off))
		return csv_fail(c, err, "offset '%.*s' is not a non-negative number",
				(int)tl[m.offset.idx], tok[m.offset.idx]);
	if (!csv_decimal(tok[m.size.idx], tl[m.size.idx], m.size.mul, &size))
		return csv_fail(c, err, "size '%.*s' is not a non-negative number", (int)tl[m.size.idx],
				tok[m.size.idx]);
	if (m.dev.idx >= 0 && (!parse_u64_tok(tok[m.dev.idx], tl[m.dev.idx], &dev) || dev > 0xfff))
		return csv_fail(c, err, "device '%.*s' is not an integer 0..4095", (int)tl[m.dev.idx],
				tok[m.dev.idx]);
	int dir = csv_op(&m, tok[m.op.idx], tl[m.op.idx]);
	if (dir < 0)
		return csv_warn(c, err, "unknown operation '%.*s' skipped", (int)(tl[m.op.idx] > 32 ? 32 : tl[m.op.idx]),
				tok[m.op.idx]);
	const char *comm = NULL;
	if (c->dialect == CSV_MSR) {
		size_t hl = tl[1] < CSV_HOST_MAX - 1 ? tl[1] : CSV_HOST_MAX - 1;
		memcpy(c->host, tok[1], hl);
		c->host[hl] = '\0';
		comm = c->host;
	}
	uint64_t resp = 0;
	if (m.resp.idx >= 0 && !csv_decimal(tok[m.resp.idx], tl[m.resp.idx], m.resp.mul, &resp))
		return csv_fail(c, err, "response time '%.*s' is not a non-negative number",
				(int)tl[m.resp.idx], tok[m.resp.idx]);
	int rc = csv_emit(c, rec, t, (uint8_t)dir, (uint32_t)dev, off, size, comm, err);
	if (rc == 1 && m.resp.idx >= 0)
		csv_due(c, rec, (int64_t)resp);
	return rc;
}

static int fio_file(struct csv_reader *c, const char *t, size_t l, struct sim_error *err)
{
	if (l >= FIO_NAME_MAX)
		return csv_fail(c, err, "file name longer than %d bytes", FIO_NAME_MAX - 1);
	for (uint32_t i = 0; i < c->nfiles; i++)
		if (strlen(c->files[i]) == l && !memcmp(c->files[i], t, l))
			return (int)i;
	if (c->nfiles == FIO_MAX_FILES)
		return csv_fail(c, err, "more than %d files", FIO_MAX_FILES);
	memcpy(c->files[c->nfiles], t, l);
	c->files[c->nfiles][l] = '\0';
	return (int)c->nfiles++;
}

static int fio_line(struct csv_reader *c, const char *p, const char *end, struct trace_rec *rec,
		    struct sim_error *err)
{
	const char *tok[CSV_MAX_FIELDS];
	size_t tl[CSV_MAX_FIELDS];
	int n = csv_split(p, end, ' ', tok, tl);
	int b = c->dialect == CSV_FIO3 ? 1 : 0; /* first field after the time */
	uint64_t t = 0;

	if (n < 0 || n < 2 + b || n > 4 + b || n == 3 + b) {
		if (csv_last_line_cut(c))
			return csv_warn(c, err, "last line cut short, skipped");
		return csv_fail(c, err, "expected %s\"FILE ACTION [OFFSET LENGTH]\"",
				b ? "\"USEC \" then " : "");
	}
	if (b && !csv_decimal(tok[0], tl[0], 1000, &t))
		return csv_fail(c, err, "time '%.*s' is not microseconds", (int)tl[0], tok[0]);
	const char *act = tok[b + 1];
	size_t al = tl[b + 1];
	if (n == 2 + b) {
		bool add = tok_eq(act, al, "add");
		if (!add && !tok_eq(act, al, "open") && !tok_eq(act, al, "close"))
			return csv_warn(c, err, "unknown file action '%.*s' skipped", (int)(al > 32 ? 32 : al), act);
		int f = fio_file(c, tok[b], tl[b], err);
		if (f < 0)
			return f;
		c->fio_file_ops++;
		return 0;
	}
	uint64_t off, len;
	if (!parse_u64_tok(tok[b + 2], tl[b + 2], &off))
		return csv_fail(c, err, "offset '%.*s' is not a non-negative integer", (int)tl[b + 2], tok[b + 2]);
	if (!parse_u64_tok(tok[b + 3], tl[b + 3], &len) || len > UINT32_MAX)
		return csv_fail(c, err, "length '%.*s' is not an integer 0..2^32-1", (int)tl[b + 3], tok[b + 3]);
	if (tok_eq(act, al, "wait")) {
		if (b)
			return csv_warn(c, err, "wait is not allowed in a version 3 iolog, skipped");
		/* read_iolog_get: the job sleeps until OFFSET ms since it began */
		if (off > (uint64_t)INT64_MAX / 1000000)
			return csv_fail(c, err, "wait %" PRIu64 " ms out of range", off);
		if ((int64_t)(off * 1000000) > c->fio_wait_ns)
			c->fio_wait_ns = (int64_t)(off * 1000000);
		c->fio_waits++;
		return 0;
	}
	if (tok_eq(act, al, "sync") || tok_eq(act, al, "datasync")) {
		c->fio_sync++;
		return 0;
	}
	int dir;
	if (tok_eq(act, al, "read"))
		dir = TRACE_DIR_READ;
	else if (tok_eq(act, al, "write"))
		dir = TRACE_DIR_WRITE;
	else if (tok_eq(act, al, "trim"))
		dir = TRACE_DIR_DISCARD;
	else
		return csv_warn(c, err, "unknown action '%.*s' skipped", (int)(al > 32 ? 32 : al), act);
	int f = fio_file(c, tok[b], tl[b], err);
	if (f < 0)
		return f;
	if (!b) {
		/* v2 has no times: requests follow each other, waits move the clock */
		t = (uint64_t)c->fio_wait_ns;
		if (!c->have_t0) {
			c->have_t0 = true;
			c->t0 = 0;
		}
	}
	return csv_emit(c, rec, t, (uint8_t)dir, (uint32_t)f, off, len, NULL, err);
}

static int csv_read(struct csv_reader *c, struct trace_rec *rec, struct sim_error *err);

/* Queue records in file order; each completion (MSR, SNIA or a mapped
 * response column) when no later-queued record comes before it. */
static int csv_next(void *state, struct trace_rec *rec, struct sim_error *err)
{
	struct csv_reader *c = state;

	if (c->failed)
		return sim_errorf(err, SIM_E_INPUT, "%s: read after an error", c->src.name);
	for (;;) {
		if (c->held) {
			if (c->npend && c->pend[0].t < c->held_rec.time_ns) {
				csv_complete(c, rec);
				return 1;
			}
			*rec = c->held_rec;
			if (rec->comm)
				rec->comm = c->held_comm;
			c->held = false;
			return 1;
		}
		if (c->at_eof) {
			if (!c->npend)
				return 0;
			csv_complete(c, rec);
			return 1;
		}
		int rc = csv_read(c, &c->held_rec, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			c->at_eof = true;
			continue;
		}
		c->held = true;
		if (c->held_rec.comm) {
			snprintf(c->held_comm, sizeof(c->held_comm), "%s", c->held_rec.comm);
			c->held_rec.comm = c->held_comm;
		}
	}
}

static int csv_read(struct csv_reader *c, struct trace_rec *rec, struct sim_error *err)
{
	const char *line;
	size_t len;
	int rc;

	while ((rc = trace_src_getline(&c->src, &line, &len, err)) > 0) {
		c->lines++;
		const char *p = line, *end = line + len;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		bool header = c->src.line == 1 && (c->dialect == CSV_SNIA || c->dialect == CSV_FIO2 ||
						   c->dialect == CSV_FIO3);
		if (c->dialect == CSV_COLUMNS && c->src.line <= c->map.skip)
			header = true;
		if (header || p == end || *p == '#') {
			c->comments++;
			continue;
		}
		if (c->dialect == CSV_FIO2 || c->dialect == CSV_FIO3)
			rc = fio_line(c, p, end, rec, err);
		else
			rc = csv_line(c, p, end, rec, err);
		if (rc)
			break;
	}
	if (rc < 0)
		c->failed = true;
	return rc;
}

static void csv_report(void *state, FILE *out)
{
	static const char *const names[] = { "MSR Cambridge CSV", "SNIA CSV (header)", "mapped columns",
					     "fio iolog v2", "fio iolog v3" };
	struct csv_reader *c = state;

	fprintf(out, "dialect:  %s\nlines:    %" PRIu64 " (%" PRIu64 " header, blank or comment)\n",
		names[c->dialect], c->lines, c->comments);
	if (c->unaligned)
		fprintf(out, "unaligned requests (offset or size not a multiple of 512 B): %" PRIu64 "\n",
			c->unaligned);
	if (c->backwards)
		fprintf(out, "requests earlier than the one before: %" PRIu64 "\n", c->backwards);
	if (c->completions)
		fprintf(out, "completions (queue time + response time): %" PRIu64 "\n", c->completions);
	if (c->late_completions)
		fprintf(out, "completions not returned (more than %u outstanding): %" PRIu64 "\n",
			CSV_PENDING, c->late_completions);
	if (c->dialect == CSV_FIO2 || c->dialect == CSV_FIO3)
		fprintf(out, "fio: files %u, file actions %" PRIu64 ", waits %" PRIu64
			", sync/datasync %" PRIu64 " (not replayed)\n",
			c->nfiles, c->fio_file_ops, c->fio_waits, c->fio_sync);
	if (c->warnings)
		fprintf(out, "warnings: %" PRIu64 " lines skipped (first: %s)\n", c->warnings,
			c->first_warning);
}

const struct trace_reader_ops trace_csv_ops = {
	.name = "csv",
	.summary = "MSR Cambridge / SNIA CSV request lists, or any text through --columns",
	.probe = csv_probe,
	.open = csv_open,
	.open_mem = csv_open_mem,
	.open_src = csv_open_src,
	.next = csv_next,
	.close = csv_close,
	.report = csv_report,
};

const struct trace_reader_ops trace_fio_ops = {
	.name = "fio",
	.summary = "fio iolog version 2 and 3 (write_iolog / read_iolog)",
	.probe = fio_probe,
	.open = fio_open,
	.open_mem = fio_open_mem,
	.open_src = fio_open_src,
	.next = csv_next,
	.close = csv_close,
	.report = csv_report,
};
