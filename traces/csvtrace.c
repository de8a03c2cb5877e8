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
/* Longest process name kept: Android names processes by package
 * (cmdline), longer than the kernel's 16-byte comm. */
#define CSV_COMM_MAX 64
/* Distinct process names given their own pid when the trace has names
 * and no pids; more are counted and share pid 0. */
#define CSV_NAMES 4096u
/* MSR hostnames told apart as devices' minor numbers; more are counted. */
#define CSV_HOSTS 16u
/* The marker row of the Pixel 6a traces (MobileBlockIOTraces README):
 * installation I/O before it, the app's run after it. */
#define CSV_PHASE_MARKER "preconditioning_ended"
#define FIO_MAX_FILES 256
#define FIO_NAME_MAX 257 /* fio reads names with %256s */

enum csv_dialect { CSV_MSR, CSV_SNIA, CSV_COLUMNS, CSV_FIO2, CSV_FIO3, CSV_PHONE };

/* Completions outstanding at once; the completions of requests beyond
 * that are not returned, and counted. */
#define CSV_PENDING 4096

struct csv_done {
	int64_t t;
	uint64_t order, sector;
	uint32_t dev, minor, nsec, bytes, uid;
	int32_t pid, tid;
	uint16_t tflags;
	uint8_t dir;
	char comm[CSV_COMM_MAX];
};

/* Unit multipliers: time to ns (FILETIME ticks are 100 ns), sizes to bytes. */
struct csv_col {
	int idx;       /* 0-based column, -1 = absent */
	uint64_t mul;  /* ns or bytes per unit */
};

struct csv_map {
	struct csv_col time, op, offset, size, dev, resp;
	struct csv_col comm, pid, tid, uid; /* who issued the request (mul unused) */
	bool devt;         /* dev is a kernel dev_t, major << 20 | minor (dev=N:devt) */
	bool comm_tid;     /* comm is ftrace's "comm-tid" (comm=N:tid): split it */
	char sep;          /* ',' ';' '\t' or ' ' (any run of blanks) */
	uint32_t skip;     /* header lines */
	char read[16], write[16]; /* op values; "" = by first letter */
};

struct csv_reader {
	struct trace_src src;
	enum csv_dialect dialect;
	struct csv_map map;
	int want;          /* fields a line has (exactly, or at least with --columns) */
	bool strict, failed, have_t0;
	struct trace_diag *diag;
	unsigned __int128 t0;
	uint64_t nreq, lines, comments, warnings, backwards, unaligned;
	uint64_t comm_tids, comm_unknown; /* rows whose comm-tid was split; of those "<...>" */
	uint64_t fio_sync, fio_file_ops, fio_waits;
	int64_t fio_wait_ns, last_ns;
	char first_warning[SIM_ERRMSG_MAX];
	char comm[CSV_COMM_MAX];
	/* MSR hostnames: the server a volume belongs to, as a device minor */
	char hosts[CSV_HOSTS][CSV_HOST_MAX];
	uint32_t nhosts;
	uint64_t hosts_over;
	/* process names of a trace without pids: name -> pid (index + 1) */
	char (*names)[CSV_COMM_MAX];
	uint32_t *name_slots;      /* open addressing, 2 * CSV_NAMES, 0 = empty */
	uint32_t nnames;
	uint64_t names_over, unnamed;
	uint64_t markers, marker_line;
	/* completions due (response times): a min-heap by time */
	struct csv_done *pend;
	uint32_t npend;
	uint64_t pend_order, completions, late_completions;
	bool held, at_eof;
	struct trace_rec held_rec;
	char held_comm[CSV_COMM_MAX], done_comm[CSV_COMM_MAX];
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
	/* 64-bit digit loops (the integer part may not pass 2^64, the fraction
	 * keeps 18 digits); 128-bit arithmetic only where the product needs it */
	uint64_t ip = 0, fp = 0, fscale = 1;
	size_t i = 0;

	if (l && s[0] == '+')
		i++;
	size_t d0 = i;
	while (i < l && (unsigned)(s[i] - '0') < 10u) {
		if (__builtin_mul_overflow(ip, 10, &ip) ||
		    __builtin_add_overflow(ip, (uint64_t)(s[i] - '0'), &ip))
			return false;
		i++;
	}
	bool digits = i > d0;
	if (i < l && s[i] == '.') {
		i++;
		while (i < l && (unsigned)(s[i] - '0') < 10u) {
			if (fscale < 1000000000000000000ull) { /* beyond 18 digits: ignored */
				fp = fp * 10 + (uint64_t)(s[i] - '0');
				fscale *= 10;
			}
			i++;
			digits = true;
		}
	}
	if (i != l || !digits)
		return false;
	uint64_t fmul;
	if (fp == 0)
		fmul = 0;
	else if (mul % fscale == 0)
		fmul = fp * (mul / fscale); /* exact: fp < fscale */
	else if (fp <= (UINT64_MAX - fscale / 2) / mul)
		fmul = (fp * mul + fscale / 2) / fscale;
	else
		fmul = (uint64_t)(((unsigned __int128)fp * mul + fscale / 2) / fscale);
	*out = (unsigned __int128)ip * mul + fmul;
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

/* snprintf(dst, n, "%s", src) without the format machinery (per record). */
static void copy_name(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);
	memcpy(dst, src, l);
	dst[l] = '\0';
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
		    uint32_t dev, uint32_t minor, uint64_t offset, uint64_t bytes, const char *comm,
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
	rec->dev_minor = minor;
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

static void csv_map_clear(struct csv_map *m)
{
	memset(m, 0, sizeof(*m));
	m->time.idx = m->op.idx = m->offset.idx = m->size.idx = m->dev.idx = m->resp.idx = -1;
	m->comm.idx = m->pid.idx = m->tid.idx = m->uid.idx = -1;
	m->time.mul = m->resp.mul = 1000000000ull;
	m->offset.mul = m->size.mul = 1;
	m->sep = ',';
}

/* "time=1:us,op=2,offset=3:sector,size=4:B[,dev=5[:devt]][,comm=6][,pid=7]
 * [,tid=8][,uid=9][,sep=ws][,skip=1][,read=R,write=W]" */
static int csv_parse_columns(const char *spec, struct csv_map *m, struct sim_error *err)
{
	const char *p = spec;

	csv_map_clear(m);
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
		else if (tok_eq(p, kl, "comm")) col = &m->comm;
		else if (tok_eq(p, kl, "pid")) col = &m->pid;
		else if (tok_eq(p, kl, "tid")) col = &m->tid;
		else if (tok_eq(p, kl, "uid")) col = &m->uid;
		if (col) {
			const char *colon = memchr(v, ':', vl);
			size_t nl = colon ? (size_t)(colon - v) : vl;
			uint64_t n = 0;
			if (!csv_decimal(v, nl, 1, &n) || memchr(v, '.', nl) || n < 1 || n > CSV_MAX_FIELDS)
				return sim_errorf(err, SIM_E_INPUT, "--columns: %.*s: column '%.*s' is not 1..%d",
						  (int)kl, p, (int)nl, v, CSV_MAX_FIELDS);
			col->idx = (int)n - 1;
			if (colon && col == &m->dev) {
				if (!tok_eq(colon + 1, vl - nl - 1, "devt"))
					return sim_errorf(err, SIM_E_INPUT, "--columns: dev: unknown unit '%.*s' "
							  "(devt: a kernel dev_t, major << 20 | minor; without it "
							  "a device number or MAJOR:MINOR)",
							  (int)(vl - nl - 1), colon + 1);
				m->devt = true;
			} else if (colon && col == &m->comm) {
				if (!tok_eq(colon + 1, vl - nl - 1, "tid"))
					return sim_errorf(err, SIM_E_INPUT, "--columns: comm: unknown unit '%.*s' "
							  "(tid: ftrace's \"comm-tid\", split into the name and "
							  "the thread id)",
							  (int)(vl - nl - 1), colon + 1);
				m->comm_tid = true;
			} else if (colon) {
				bool ok = (col == &m->time || col == &m->resp || col == &m->offset || col == &m->size) &&
					  unit_mul(colon + 1, vl - nl - 1, time, &col->mul);
				if (!ok)
					return sim_errorf(err, SIM_E_INPUT, "--columns: %.*s: unknown unit '%.*s' "
							  "(time: s ms us ns filetime; offset, size: B sector KiB 4KiB; "
							  "dev: devt; comm: tid; pid, tid, uid: none)",
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
			return sim_errorf(err, SIM_E_INPUT, "--columns: unknown key '%.*s' (time op offset "
					  "size dev response comm pid tid uid sep skip read write)", (int)kl, p);
		}
		p += l;
		if (*p == ',')
			p++;
	}
	if (m->time.idx < 0 || m->op.idx < 0 || m->offset.idx < 0 || m->size.idx < 0)
		return sim_errorf(err, SIM_E_INPUT, "--columns: time, op, offset and size are required");
	if ((m->read[0] != 0) != (m->write[0] != 0))
		return sim_errorf(err, SIM_E_INPUT, "--columns: give both read= and write= or neither");
	const struct csv_col *cols[] = { &m->time, &m->op, &m->offset, &m->size, &m->dev, &m->resp,
					 &m->comm, &m->pid, &m->tid, &m->uid };
	static const char *const names[] = { "time", "op", "offset", "size", "dev", "response",
					     "comm", "pid", "tid", "uid" };
	for (size_t i = 0; i < 10; i++)
		for (size_t j = i + 1; j < 10; j++)
			if (cols[i]->idx >= 0 && cols[i]->idx == cols[j]->idx)
				return sim_errorf(err, SIM_E_INPUT, "--columns: %s and %s both name column %d",
						  names[i], names[j], cols[i]->idx + 1);
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

/* The Pixel 6a eBPF recorder's header (MobileBlockIOTraces README, which
 * spells the first column "process"; the files say "proces"). */
static bool phone_header(const char *p, const char *end)
{
	static const char *const cols[] = { "device", "rw_flag", "sector", "size", "timestamp" };
	const char *tok[CSV_MAX_FIELDS];
	size_t tl[CSV_MAX_FIELDS];
	int n = csv_split(p, end, ',', tok, tl);
	if (n != 6 || !(tok_eq(tok[0], tl[0], "proces") || tok_eq(tok[0], tl[0], "process")))
		return false;
	for (int i = 1; i < 6; i++)
		if (!tok_eq(tok[i], tl[i], cols[i - 1]))
			return false;
	return true;
}

static int csv_probe(const uint8_t *buf, size_t len)
{
	const char *p, *end;
	if (!first_line(buf, len, &p, &end))
		return 0;
	if ((size_t)(end - p) == sizeof(snia_header) - 1 && !strncasecmp(p, snia_header, (size_t)(end - p)))
		return 95;
	if (phone_header(p, end))
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
	free(c->names);
	free(c->name_slots);
	free(c);
}

/* After the map is known: the fields a line has, who the records name. */
static int csv_ready(struct csv_reader *c, struct sim_error *err)
{
	const struct csv_map *m = &c->map;
	const int cols[] = { m->time.idx, m->op.idx, m->offset.idx, m->size.idx, m->dev.idx,
			     m->resp.idx, m->comm.idx, m->pid.idx, m->tid.idx, m->uid.idx };
	c->want = 0;
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (cols[i] + 1 > c->want)
			c->want = cols[i] + 1;
	if (c->dialect == CSV_MSR)
		c->want = 7;
	if (m->comm.idx >= 0 && m->pid.idx < 0 && m->tid.idx < 0) {
		c->names = calloc(CSV_NAMES, sizeof(*c->names));
		c->name_slots = calloc(2 * CSV_NAMES, sizeof(*c->name_slots));
		if (!c->names || !c->name_slots)
			return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", c->src.name);
	}
	if (c->diag) {
		uint32_t id = 0;
		if (m->comm.idx >= 0)
			id |= TRACE_ID_COMM;
		if (m->pid.idx >= 0 || m->tid.idx >= 0)
			id |= TRACE_ID_PID;
		if (m->tid.idx >= 0)
			id |= TRACE_ID_TID;
		if (m->uid.idx >= 0)
			id |= TRACE_ID_UID;
		c->diag->identity = id;
		c->diag->identity_set = true;
		c->diag->request_list = m->resp.idx < 0;
	}
	return 0;
}

/* Choose the dialect from the first line (or the mapping). */
static int csv_setup(struct csv_reader *c, bool fio, const struct trace_opts *opts,
		     struct sim_error *err)
{
	c->strict = opts && opts->strict;
	c->diag = opts ? opts->diag : NULL;
	if (c->diag) {
		c->diag->files = 1;
		c->diag->identity = 0;
		c->diag->identity_set = true;
	}
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
		int rc = csv_parse_columns(opts->columns, &c->map, err);
		return rc ? rc : csv_ready(c, err);
	}
	const char *p, *end;
	bool have = first_line(b, (size_t)n, &p, &end);
	if (!have && c->src.eof && n > 0) {
		p = (const char *)b;
		end = p + n;
		have = true;
	}
	struct csv_map *m = &c->map;
	csv_map_clear(m);
	if (have && (size_t)(end - p) == sizeof(snia_header) - 1 &&
	    !strncasecmp(p, snia_header, sizeof(snia_header) - 1)) {
		/* time and response in seconds, IOType R/W, LUN, bytes */
		c->dialect = CSV_SNIA;
		m->time = (struct csv_col){ 0, 1000000000ull };
		m->resp = (struct csv_col){ 1, 1000000000ull };
		m->op.idx = 2;
		m->dev.idx = 3;
		m->offset.idx = 4;
		m->size.idx = 5;
		m->skip = 1;
		return csv_ready(c, err);
	}
	if (have && phone_header(p, end)) {
		/* MobileBlockIOTraces README: sector and size in 512-byte
		 * sectors, time in seconds, R or W; device a kernel dev_t
		 * (8388608 = 8:0, sda, the UFS disk) */
		c->dialect = CSV_PHONE;
		m->comm.idx = 0;
		m->comm_tid = true; /* the recorder writes ftrace's comm-tid ("loop40-2757") */
		m->dev.idx = 1;
		m->devt = true;
		m->op.idx = 2;
		m->offset = (struct csv_col){ 3, 512 };
		m->size = (struct csv_col){ 4, 512 };
		m->time = (struct csv_col){ 5, 1000000000ull };
		memcpy(m->read, "R", 2);
		memcpy(m->write, "W", 2);
		m->skip = 1;
		return csv_ready(c, err);
	}
	if (have && msr_line(p, end)) {
		/* Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime:
		 * FILETIME ticks, bytes; the hostname names the server the
		 * volume belongs to (a device), not a process */
		c->dialect = CSV_MSR;
		m->time = (struct csv_col){ 0, 100 };
		m->dev.idx = 2;
		m->op.idx = 3;
		m->offset.idx = 4;
		m->size.idx = 5;
		m->resp = (struct csv_col){ 6, 100 };
		return csv_ready(c, err);
	}
	return sim_errorf(err, SIM_E_INPUT, "%s:1: byte offset 0: not MSR Cambridge, SNIA or phone "
			  "block CSV (give the layout with --columns, see docs/traces.md)", c->src.name);
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
	d->minor = q->dev_minor;
	d->pid = q->pid;
	d->tid = q->tid;
	d->uid = q->uid;
	d->tflags = q->tflags;
	d->sector = q->sector;
	d->nsec = q->nr_sectors;
	d->bytes = q->bytes;
	d->dir = q->dir;
	copy_name(d->comm, sizeof(d->comm), q->comm ? q->comm : "");
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
	rec->dev_minor = d.minor;
	rec->pid = d.pid;
	rec->tid = d.tid;
	rec->uid = d.uid;
	rec->tflags = d.tflags;
	rec->sector = d.sector;
	rec->nr_sectors = d.nsec;
	rec->bytes = d.bytes;
	rec->dir = d.dir;
	rec->flags = d.dir == TRACE_DIR_READ ? 0 : REQ_WRITE;
	memcpy(c->done_comm, d.comm, sizeof(c->done_comm));
	rec->comm = c->done_comm[0] ? c->done_comm : NULL;
}

/* "259:0" (as Android's ls -l and /proc/partitions print), a kernel dev_t
 * with map->devt, or a bare device number 0..4095 (the major). */
static bool csv_dev(const struct csv_map *m, const char *t, size_t l, uint32_t *major,
		    uint32_t *minor)
{
	const char *colon = memchr(t, ':', l);
	uint64_t a, b;
	if (colon) {
		size_t al = (size_t)(colon - t);
		if (!parse_u64_tok(t, al, &a) || !parse_u64_tok(colon + 1, l - al - 1, &b) ||
		    a > 0xfff || b > 0xfffff)
			return false;
		*major = (uint32_t)a;
		*minor = (uint32_t)b;
		return true;
	}
	if (!parse_u64_tok(t, l, &a))
		return false;
	if (m->devt) {
		if (a > UINT32_MAX)
			return false;
		*major = (uint32_t)(a >> 20);
		*minor = (uint32_t)(a & 0xfffff);
		return true;
	}
	if (a > 0xfff)
		return false;
	*major = (uint32_t)a;
	*minor = 0;
	return true;
}

/* The pid the reader gives a process name when the trace has no pids:
 * 1, 2, ... in order of first sight; 0 once CSV_NAMES names are known. */
static int32_t csv_name_pid(struct csv_reader *c, const char *name)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (const char *q = name; *q; q++)
		h = (h ^ (uint8_t)*q) * 16777619u;
	for (uint32_t i = h & (2 * CSV_NAMES - 1);; i = (i + 1) & (2 * CSV_NAMES - 1)) {
		uint32_t v = c->name_slots[i];
		if (!v) {
			if (c->nnames == CSV_NAMES) {
				c->names_over++;
				return 0;
			}
			snprintf(c->names[c->nnames], CSV_COMM_MAX, "%s", name);
			c->name_slots[i] = ++c->nnames;
			return (int32_t)c->nnames;
		}
		if (!strcmp(c->names[v - 1], name))
			return (int32_t)v;
	}
}

/* MSR: the minor number of a hostname (the server of the volume). */
static uint32_t csv_host(struct csv_reader *c, const char *t, size_t l)
{
	if (l >= CSV_HOST_MAX)
		l = CSV_HOST_MAX - 1;
	for (uint32_t i = 0; i < c->nhosts; i++)
		if (strlen(c->hosts[i]) == l && !memcmp(c->hosts[i], t, l))
			return i;
	if (c->nhosts == CSV_HOSTS) {
		c->hosts_over++;
		return CSV_HOSTS;
	}
	memcpy(c->hosts[c->nhosts], t, l);
	c->hosts[c->nhosts][l] = '\0';
	return c->nhosts++;
}

/* One CSV line (MSR, SNIA, phone, mapped). 1 = record, 0 = skipped, < 0 error. */
static int csv_line(struct csv_reader *c, const char *p, const char *end, struct trace_rec *rec,
		    struct sim_error *err)
{
	const char *tok[CSV_MAX_FIELDS];
	size_t tl[CSV_MAX_FIELDS];
	const struct csv_map *m = &c->map;
	char sep = c->dialect == CSV_COLUMNS ? m->sep : ',';
	int n = csv_split(p, end, sep, tok, tl);
	int want = c->want;

	if (n == 1 && tok_eq(tok[0], tl[0], CSV_PHASE_MARKER)) {
		if (!c->markers++)
			c->marker_line = c->src.line;
		return 0;
	}
	bool exact = c->dialect != CSV_COLUMNS;
	if (n < 0 || (exact ? n != want : n < want)) {
		if (csv_last_line_cut(c))
			return csv_warn(c, err, "last line cut short (%d of %d fields), skipped", n, want);
		return csv_fail(c, err, "expected %s%d fields, found %s%d", exact ? "" : "at least ",
				want, n < 0 ? "more than " : "", n < 0 ? CSV_MAX_FIELDS : n);
	}
#define COLV(col) (int)tl[(col).idx], tok[(col).idx]
	unsigned __int128 t;
	uint64_t off, size, v;
	uint32_t major = 0, minor = 0;
	if (!csv_decimal_wide(tok[m->time.idx], tl[m->time.idx], m->time.mul, &t))
		return csv_fail(c, err, "column %d (time): '%.*s' is not a non-negative number",
				m->time.idx + 1, COLV(m->time));
	if (!csv_decimal(tok[m->offset.idx], tl[m->offset.idx], m->offset.mul, &off))
		return csv_fail(c, err, "column %d (offset): '%.*s' is not a non-negative number",
				m->offset.idx + 1, COLV(m->offset));
	if (!csv_decimal(tok[m->size.idx], tl[m->size.idx], m->size.mul, &size))
		return csv_fail(c, err, "column %d (size): '%.*s' is not a non-negative number",
				m->size.idx + 1, COLV(m->size));
	if (m->dev.idx >= 0 && !csv_dev(m, tok[m->dev.idx], tl[m->dev.idx], &major, &minor))
		return csv_fail(c, err, "column %d (dev): '%.*s' is not %s", m->dev.idx + 1, COLV(m->dev),
				m->devt ? "a kernel dev_t (major << 20 | minor) or MAJOR:MINOR"
					: "a device number 0..4095 or MAJOR:MINOR (259:0)");
	int dir = csv_op(m, tok[m->op.idx], tl[m->op.idx]);
	if (dir < 0)
		return csv_warn(c, err, "column %d (op): unknown operation '%.*s' skipped", m->op.idx + 1,
				(int)(tl[m->op.idx] > 32 ? 32 : tl[m->op.idx]), tok[m->op.idx]);
	if (c->dialect == CSV_MSR)
		minor = csv_host(c, tok[1], tl[1]);
	/* who issued it */
	const char *comm = NULL;
	int32_t pid = 0, tid = 0;
	uint32_t uid = 0;
	uint16_t tf = 0;
	bool split = false;
	if (m->comm.idx >= 0) {
		size_t cl = tl[m->comm.idx];
		const char *dash;
		int32_t ctid;
		if (m->comm_tid &&
		    trace_comm_tid_split(tok[m->comm.idx], tok[m->comm.idx] + cl, &dash, &ctid)) {
			/* ftrace's "comm-tid": the thread id is blktrace's pid;
			 * "<...>" is ftrace's unknown name */
			split = true;
			/* ids known from the rows themselves (a bare name has none) */
			if (!c->comm_tids++ && c->diag)
				c->diag->identity |= TRACE_ID_PID | TRACE_ID_TID;
			tid = pid = ctid;
			tf |= TRACE_T_HAS_TID;
			cl = (size_t)(dash - tok[m->comm.idx]);
			if (cl == 5 && !memcmp(tok[m->comm.idx], "<...>", 5)) {
				c->comm_unknown++;
				cl = 0;
			}
		}
		if (!cl) {
			if (!split) /* "<...>-TID" keeps its thread: counted apart */
				c->unnamed++;
			if (c->diag)
				c->diag->unnamed++;
		} else {
			if (cl >= CSV_COMM_MAX)
				cl = CSV_COMM_MAX - 1;
			memcpy(c->comm, tok[m->comm.idx], cl);
			c->comm[cl] = '\0';
			comm = c->comm;
		}
	}
	if (m->pid.idx >= 0) {
		if (!parse_u64_tok(tok[m->pid.idx], tl[m->pid.idx], &v) || v > INT32_MAX)
			return csv_fail(c, err, "column %d (pid): '%.*s' is not a process id 0..2^31-1",
					m->pid.idx + 1, COLV(m->pid));
		pid = (int32_t)v;
	}
	if (m->tid.idx >= 0) {
		if (!parse_u64_tok(tok[m->tid.idx], tl[m->tid.idx], &v) || v > INT32_MAX)
			return csv_fail(c, err, "column %d (tid): '%.*s' is not a thread id 0..2^31-1",
					m->tid.idx + 1, COLV(m->tid));
		tid = (int32_t)v;
		tf |= TRACE_T_HAS_TID;
		if (m->pid.idx < 0)
			pid = tid;
	}
	if (m->uid.idx >= 0) {
		if (!parse_u64_tok(tok[m->uid.idx], tl[m->uid.idx], &v) || v > UINT32_MAX)
			return csv_fail(c, err, "column %d (uid): '%.*s' is not a user id 0..2^32-1",
					m->uid.idx + 1, COLV(m->uid));
		uid = (uint32_t)v;
		tf |= TRACE_T_HAS_UID;
	}
	if (comm && c->names && !split)
		pid = csv_name_pid(c, comm);
	uint64_t resp = 0;
	if (m->resp.idx >= 0 && !csv_decimal(tok[m->resp.idx], tl[m->resp.idx], m->resp.mul, &resp))
		return csv_fail(c, err, "column %d (response): '%.*s' is not a non-negative number",
				m->resp.idx + 1, COLV(m->resp));
#undef COLV
	int rc = csv_emit(c, rec, t, (uint8_t)dir, major, minor, off, size, comm, err);
	if (rc == 1) {
		rec->pid = pid;
		rec->tid = tid;
		rec->uid = uid;
		rec->tflags |= tf;
		if (m->resp.idx >= 0)
			csv_due(c, rec, (int64_t)resp);
	}
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
	return csv_emit(c, rec, t, (uint8_t)dir, (uint32_t)f, 0, off, len, NULL, err);
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
			copy_name(c->held_comm, sizeof(c->held_comm), c->held_rec.comm);
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
		bool header = c->src.line == 1 && (c->dialect == CSV_FIO2 || c->dialect == CSV_FIO3);
		if (c->dialect != CSV_FIO2 && c->dialect != CSV_FIO3 && c->src.line <= c->map.skip)
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

/* The column map with each column's unit, as the reader applies it. */
static void csv_report_columns(const struct csv_reader *c, FILE *out)
{
	const struct csv_map *m = &c->map;
	struct { const char *name; const struct csv_col *col; } cols[] = {
		{ "time", &m->time }, { "op", &m->op }, { "offset", &m->offset }, { "size", &m->size },
		{ "dev", &m->dev }, { "response", &m->resp }, { "comm", &m->comm }, { "pid", &m->pid },
		{ "tid", &m->tid }, { "uid", &m->uid },
	};
	fprintf(out, "columns: ");
	for (int idx = 0; idx < CSV_MAX_FIELDS; idx++)
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
			const struct csv_col *col = cols[i].col;
			if (col->idx != idx)
				continue;
			fprintf(out, " %d=%s", idx + 1, cols[i].name);
			if (col == &m->time || col == &m->resp) {
				const char *u = col->mul == 1000000000ull ? "s" : col->mul == 1000000ull ? "ms" :
						col->mul == 1000ull ? "us" : col->mul == 100 ? "FILETIME 100 ns ticks" : "ns";
				fprintf(out, " (%s)", u);
			} else if (col == &m->offset || col == &m->size) {
				fprintf(out, " (%s)", col->mul == 512 ? "512 B sectors" : col->mul == 1024 ? "KiB" :
						      col->mul == 4096 ? "4 KiB blocks" : "bytes");
			} else if (col == &m->comm && m->comm_tid) {
				fprintf(out, " (ftrace comm-tid: name and thread id)");
			} else if (col == &m->dev) {
				fprintf(out, " (%s)", m->devt ? "kernel dev_t: major << 20 | minor" :
						      "device number, or MAJOR:MINOR");
			} else if (col == &m->op) {
				if (m->read[0])
					fprintf(out, " (read %s, write %s)", m->read, m->write);
				else
					fprintf(out, " (by first letter: R read, W write, D/T discard)");
			}
		}
	fprintf(out, "\n");
}

static void csv_report(void *state, FILE *out)
{
	static const char *const names[] = { "MSR Cambridge CSV", "SNIA CSV (header)", "mapped columns",
					     "fio iolog v2", "fio iolog v3",
					     "phone block CSV (proces,device,rw_flag,sector,size,timestamp)" };
	struct csv_reader *c = state;

	fprintf(out, "dialect:  %s\nlines:    %" PRIu64 " (%" PRIu64 " header, blank or comment)\n",
		names[c->dialect], c->lines, c->comments);
	if (c->dialect != CSV_FIO2 && c->dialect != CSV_FIO3)
		csv_report_columns(c, out);
	if (c->markers)
		fprintf(out, "phase markers: %" PRIu64 " (\"" CSV_PHASE_MARKER "\" first at line %" PRIu64
			": installation I/O before it, the app's run after it)\n", c->markers, c->marker_line);
	if (c->dialect == CSV_MSR && c->nhosts) {
		fprintf(out, "hosts:    ");
		for (uint32_t i = 0; i < c->nhosts; i++)
			fprintf(out, "%s%s = device minor %u", i ? ", " : "", c->hosts[i], i);
		if (c->hosts_over)
			fprintf(out, ", %" PRIu64 " requests of more hosts = minor %u", c->hosts_over, CSV_HOSTS);
		fprintf(out, " (the server the volume belongs to; the trace names no process)\n");
	}
	if (c->comm_tids)
		fprintf(out, "comm-tid split: %" PRIu64 " rows (name and thread id; pid = tid)\n",
			c->comm_tids);
	if (c->comm_unknown)
		fprintf(out, "rows whose name ftrace did not know (\"<...>-TID\": no name): %" PRIu64 "\n",
			c->comm_unknown);
	if (c->names && c->nnames)
		fprintf(out, "process names: %u (no pid column: pid N = the Nth name seen)\n", c->nnames);
	if (c->names_over)
		fprintf(out, "requests of names beyond the first %u (pid 0): %" PRIu64 "\n", CSV_NAMES,
			c->names_over);
	if (c->unnamed)
		fprintf(out, "requests with an empty process name (pid 0, no name): %" PRIu64 "\n", c->unnamed);
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
