/* Reader of the ASCII request lists of DiskSim, MQSim and SSDSim: one
 * request per line, five whitespace-separated fields
 *
 *     arrival_time  devno  lba  size_sectors  type
 *
 * Two dialects differ in the time unit and the last field:
 *   MQSim / SSDSim: arrival in integer nanoseconds, type 1 = read, 0 = write
 *     (MQSim src/exec/ASCII_Trace_Definition.h, SSDSim's trace format);
 *   DiskSim 4.0 "ascii" input: arrival in milliseconds as a float, flags
 *     with bit 0 = read (DiskSim's DISKSIM_READ = 1).
 * TRACE_DISKSIM_AUTO picks per file from the first request line: a time
 * written with '.' or an exponent is DiskSim milliseconds, an integer is
 * MQSim nanoseconds. In the MQSim dialect a type other than 0 or 1 is an
 * error; in the DiskSim dialect any flags value is accepted (bit 0 read).
 *
 * Every request becomes one 'Q' record on device devno,0 (pid 0, cpu 0,
 * sequence = request number). Blank lines and lines starting with '#' are
 * skipped; the last line may lack its newline. Errors: "FILE:LINE: ...".
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/block/request.h"
#include "sim/zero.h"
#include "traces/trace.h"
#include "traces/trace_int.h"

struct ds_reader {
	struct trace_src src;
	enum trace_disksim_time mode;
	uint64_t nreq;
	bool failed;
};

static bool ds_line_fields(const char *p, const char *end, const char *tok[6], size_t tl[6], int *n)
{
	*n = 0;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		if (*n == 6)
			return false;
		tok[*n] = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		tl[*n] = (size_t)(p - tok[*n]);
		(*n)++;
	}
	return true;
}

/* Parse an unsigned decimal integer occupying the whole token. */
static bool parse_u64(const char *s, size_t l, uint64_t *v)
{
	const char *p = s;
	return trace_dec_u64(&p, s + l, v) && p == s + l;
}

static bool is_float_token(const char *s, size_t l)
{
	for (size_t i = 0; i < l; i++)
		if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
			return true;
	return false;
}

/* Milliseconds written "I", "I." or "I.F" with at most 9 integer and 6
 * fraction digits, to integer nanoseconds without strtod (a third of the
 * replay's time went to strtod). Below 10^15 ns the double path
 * llround(strtod(s) * 1e6) is exact for such strings too, so both give the
 * same value; anything else (exponents, signs, longer parts) returns
 * false and takes the strtod path. */
static bool ds_parse_ms_fast(const char *s, size_t l, int64_t *ns)
{
	size_t i = 0;
	int64_t ip = 0, fp = 0;

	/* stop at the digit limits before accumulating, so no overflow */
	while (i < l && s[i] >= '0' && s[i] <= '9') {
		if (i == 9)
			return false;
		ip = ip * 10 + (s[i++] - '0');
	}
	if (i == 0)
		return false;
	if (i < l) {
		if (s[i++] != '.')
			return false;
		size_t f0 = i;
		while (i < l && s[i] >= '0' && s[i] <= '9') {
			if (i - f0 == 6)
				return false;
			fp = fp * 10 + (s[i++] - '0');
		}
		if (i != l)
			return false;
		for (size_t k = i - f0; k < 6; k++)
			fp *= 10;
	}
	*ns = ip * 1000000 + fp;
	return true;
}

/* One unsigned decimal token at *pp after blanks, ended by a blank or the
 * line's end; false on anything else (the careful path then parses the
 * line and words the error). */
static inline bool ds_fast_u64(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!trace_dec_u64(&p, end, v) || (p < end && *p != ' ' && *p != '\t'))
		return false;
	*pp = p;
	return true;
}

/* The whole line in one pass when it is the usual five plain numbers
 * (arrival an integer in the MQSim dialect, "I" or "I.F" milliseconds
 * with short parts in DiskSim's) and within every range ds_next checks:
 * the same values the careful path gives, since both read the same
 * digits. false sends the line to that path, which also words the error. */
static bool ds_fast_line(enum trace_disksim_time mode, const char *p, const char *end, int64_t *t,
			 uint64_t v[5])
{
	if (mode == TRACE_DISKSIM_MQSIM_NS) {
		if (!ds_fast_u64(&p, end, &v[0]) || v[0] > INT64_MAX)
			return false;
		*t = (int64_t)v[0];
	} else {
		const char *s = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if (!ds_parse_ms_fast(s, (size_t)(p - s), t))
			return false;
	}
	for (int k = 1; k < 5; k++)
		if (!ds_fast_u64(&p, end, &v[k]))
			return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p == end && v[3] != 0 && v[3] <= (UINT32_MAX >> 9) && v[2] <= UINT64_MAX - v[3] &&
	       v[1] <= 0xfff && (mode != TRACE_DISKSIM_MQSIM_NS || v[4] <= 1);
}

/* 10^(6 - k): a fraction of k digits in millionths of a millisecond
 * (ds_parse_ms_fast's trailing "fp *= 10" loop). */
static const int64_t ds_frac_scale[7] = { 1000000, 100000, 10000, 1000, 100, 10, 1 };

/* The digits at *pp: their count, *pp past them, and their value, exact
 * when there are at most 19 (callers refuse more). The first 8 bytes are
 * classified and converted at once, as in trace_dec_u64 (a digit is a
 * byte 0x30..0x39, i.e. high nibble 3 before and after adding 6); the
 * caller makes sure 8 bytes can be read at *pp, and the rest of the scan
 * needs no bound: its line ends in a '\n', which is not a digit. */
static inline unsigned ds_digits(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	const uint64_t k30 = 0x3030303030303030ull, kf0 = 0xf0f0f0f0f0f0f0f0ull;
	uint64_t w;
	memcpy(&w, p, 8);
	uint64_t bad = ((w & kf0) ^ k30) | (((w + 0x0606060606060606ull) & kf0) ^ k30);
	unsigned n = bad ? (unsigned)__builtin_ctzll(bad) >> 3 : 8;
	if (n <= 1) {
		/* devno and type: one digit (or none: refused) */
		*v = n ? (w & 0xff) - '0' : 0;
		*pp = p + n;
		return n;
	}
	/* the first digit in the low byte; the bytes past the n digits
	 * shifted out */
	uint64_t y = (w - k30) << (8 * (8 - n));
	y = (y * 10 + (y >> 8)) & 0x00ff00ff00ff00ffull;
	y = (y * 100 + (y >> 16)) & 0x0000ffff0000ffffull;
	y = (y * 10000 + (y >> 32)) & 0xffffffffull;
	const char *q = p + n;
	if (n == 8) {
		unsigned d;
		while ((d = (unsigned)(*q - '0')) < 10) {
			y = y * 10 + d;
			q++;
		}
	}
	*v = y;
	*pp = q;
	return (unsigned)(q - p);
}

static inline const char *ds_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The usual line straight from the source's buffer, without
 * trace_src_getline's copy-free but separate NUL scan and ds_fast_line's
 * token pass: one memchr for the line's end (looked for within
 * TRACE_LINE_MAX bytes, so the line is not too long), then one pass that
 * accepts only blanks, the five numbers, a '\r' before the '\n' and
 * nothing else (so no NUL): "I", "I." or "I.F" milliseconds with at most
 * 9 and 6 digits (ds_parse_ms_fast's forms) or integer nanoseconds, and
 * numbers of at most 19 digits, within every range ds_fast_line tests.
 * Such a line is one ds_fast_line accepts, and the same digits give the
 * same values; s->pos and s->line then move as trace_src_getline moves
 * them. Anything else returns false with nothing moved, and ds_next
 * takes the line through trace_src_getline as before (comments, blank
 * lines, the last line without newline, a line cut by the buffer's end,
 * errors). */
static bool ds_fast_take(struct ds_reader *d, int64_t *t, uint64_t v[5])
{
	struct trace_src *s = &d->src;
	const char *start = (const char *)s->buf + s->pos;
	size_t avail = s->len - s->pos;
	const char *nl = memchr(start, '\n', avail > TRACE_LINE_MAX + 1 ? TRACE_LINE_MAX + 1 : avail);
	/* ds_digits reads 8 bytes at any point of the line */
	if (!nl || avail - (size_t)(nl - start) < 8)
		return false;
	const char *p = ds_blanks(start);

	if (d->mode == TRACE_DISKSIM_MQSIM_NS) {
		unsigned n = ds_digits(&p, &v[0]);
		if (n == 0 || n > 19 || v[0] > INT64_MAX)
			return false;
		*t = (int64_t)v[0];
	} else {
		uint64_t ip, fp = 0;
		unsigned ni = ds_digits(&p, &ip), nf = 0;
		if (ni == 0 || ni > 9)
			return false;
		if (*p == '.') {
			p++;
			nf = ds_digits(&p, &fp);
			if (nf > 6)
				return false;
		}
		*t = (int64_t)ip * 1000000 + (int64_t)fp * ds_frac_scale[nf];
	}
	/* a field ends at a non-digit: the next one parses only after blanks */
	for (int k = 1; k < 5; k++) {
		const char *q = ds_blanks(p);
		if (q == p)
			return false;
		p = q;
		unsigned n = ds_digits(&p, &v[k]);
		if (n == 0 || n > 19)
			return false;
	}
	p = ds_blanks(p);
	if (*p == '\r')
		p++;
	if (p != nl)
		return false;
	if (!(v[3] != 0 && v[3] <= (UINT32_MAX >> 9) && v[2] <= UINT64_MAX - v[3] && v[1] <= 0xfff &&
	      (d->mode != TRACE_DISKSIM_MQSIM_NS || v[4] <= 1)))
		return false;
	s->pos = (size_t)(nl + 1 - (const char *)s->buf);
	s->line++;
	return true;
}

static int ds_probe(const uint8_t *buf, size_t len)
{
	/* The first non-comment line must have five numeric fields. */
	size_t i = 0;
	int good = 0;

	while (i < len && good < 3) {
		size_t e = i;
		while (e < len && buf[e] != '\n')
			e++;
		if (e == len && len == TRACE_PROBE_BYTES)
			break; /* a cut line says nothing */
		const char *p = (const char *)buf + i, *end = (const char *)buf + e;
		if (end > p && end[-1] == '\r')
			end--;
		i = e + 1;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p == '#')
			continue;
		const char *tok[6];
		size_t tl[6];
		int n;
		/* A bad line after good ones is the reader's to report. */
		if (!ds_line_fields(p, end, tok, tl, &n) || n != 5)
			break;
		bool num = true;
		for (int k = 0; k < 5; k++)
			for (size_t c = 0; c < tl[k]; c++)
				if (!isdigit((unsigned char)tok[k][c]) && !strchr(".eE+-", tok[k][c]))
					num = false;
		if (!num)
			break;
		good++;
	}
	return good ? 60 : 0;
}

static int ds_open_common(struct ds_reader *d, const struct trace_opts *opts)
{
	d->mode = opts ? opts->disksim_time : TRACE_DISKSIM_AUTO;
	if (opts && opts->diag)
		opts->diag->request_list = true;
	return 0;
}

static int ds_open(const char *path, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	struct ds_reader *d = calloc(1, sizeof(*d));

	if (!d)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	int rc = trace_src_open(&d->src, path, TRACE_SRC_BUF, err);
	if (rc) {
		free(d);
		return rc;
	}
	ds_open_common(d, opts);
	*state = d;
	return 0;
}

static int ds_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
		       void **state, struct sim_error *err)
{
	struct ds_reader *d = calloc(1, sizeof(*d));

	if (!d)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", name);
	trace_src_open_mem(&d->src, buf, len, name);
	ds_open_common(d, opts);
	*state = d;
	return 0;
}

static int ds_open_src(void *src, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	struct trace_src *s = src;
	struct ds_reader *d = calloc(1, sizeof(*d));

	if (!d)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", s->name);
	trace_src_move(&d->src, s);
	ds_open_common(d, opts);
	if (opts && opts->diag)
		opts->diag->files = 1;
	*state = d;
	return 0;
}

static void ds_close(void *state)
{
	struct ds_reader *d = state;

	if (!d)
		return;
	trace_src_close(&d->src);
	free(d);
}


static int ds_next(void *state, struct trace_rec *rec, struct sim_error *err)
{
	struct ds_reader *d = state;
	const char *line;
	size_t len;
	int rc;

	if (d->failed)
		return sim_errorf(err, SIM_E_INPUT, "%s: read after an error", d->src.name);
	for (;;) {
		int64_t t;
		uint64_t dev, lba, size, type;
		uint64_t fv[5];
		if (d->mode != TRACE_DISKSIM_AUTO && ds_fast_take(d, &t, fv)) {
			dev = fv[1];
			lba = fv[2];
			size = fv[3];
			type = fv[4];
			goto emit;
		}
		rc = trace_src_getline(&d->src, &line, &len, err);
		if (rc <= 0)
			break;
		const char *p = line, *end = line + len;
		unsigned long long ln = (unsigned long long)d->src.line;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p == '#')
			continue;
		if (d->mode != TRACE_DISKSIM_AUTO && ds_fast_line(d->mode, p, end, &t, fv)) {
			dev = fv[1];
			lba = fv[2];
			size = fv[3];
			type = fv[4];
			goto emit;
		}
		const char *tok[6];
		size_t tl[6];
		int n;
		if (!ds_line_fields(p, end, tok, tl, &n) || n != 5) {
			rc = sim_errorf(err, SIM_E_INPUT,
					"%s:%llu: expected 5 fields (arrival devno lba sectors type), found %s%d",
					d->src.name, ln, n == 6 ? "more than " : "", n == 6 ? 5 : n);
			break;
		}
		if (d->mode == TRACE_DISKSIM_AUTO)
			d->mode = is_float_token(tok[0], tl[0]) ? TRACE_DISKSIM_DISKSIM_MS
								: TRACE_DISKSIM_MQSIM_NS;
		if (d->mode == TRACE_DISKSIM_MQSIM_NS) {
			uint64_t v;
			if (!parse_u64(tok[0], tl[0], &v) || v > INT64_MAX) {
				rc = sim_errorf(err, SIM_E_INPUT,
						"%s:%llu: arrival time '%.*s' is not a non-negative integer (ns)",
						d->src.name, ln, (int)tl[0], tok[0]);
				break;
			}
			t = (int64_t)v;
		} else if (ds_parse_ms_fast(tok[0], tl[0], &t)) {
			/* "I.F" with short parts: the exact nanoseconds (below). */
		} else {
			char buf[64];
			char *e;
			if (tl[0] >= sizeof(buf)) {
				rc = sim_errorf(err, SIM_E_INPUT, "%s:%llu: arrival time too long",
						d->src.name, ln);
				break;
			}
			memcpy(buf, tok[0], tl[0]);
			buf[tl[0]] = '\0';
			errno = 0;
			double ms = strtod(buf, &e);
			if (*e || errno || !isfinite(ms) || ms < 0 || ms > 9.2e12) {
				rc = sim_errorf(err, SIM_E_INPUT,
						"%s:%llu: arrival time '%s' is not a non-negative number (ms)",
						d->src.name, ln, buf);
				break;
			}
			t = (int64_t)llround(ms * 1e6);
		}
		static const char *const names[] = { "arrival", "devno", "lba", "size", "type" };
		uint64_t *vals[] = { NULL, &dev, &lba, &size, &type };
		int bad = 0;
		for (int k = 1; k < 5 && !bad; k++)
			if (!parse_u64(tok[k], tl[k], vals[k]))
				bad = k;
		if (bad) {
			rc = sim_errorf(err, SIM_E_INPUT, "%s:%llu: %s '%.*s' is not a non-negative integer",
					d->src.name, ln, names[bad], (int)tl[bad], tok[bad]);
			break;
		}
		if (size == 0 || size > (UINT32_MAX >> 9)) {
			rc = sim_errorf(err, SIM_E_INPUT, "%s:%llu: size %llu sectors out of range (1..%u)",
					d->src.name, ln, (unsigned long long)size, UINT32_MAX >> 9);
			break;
		}
		if (lba > UINT64_MAX - size) {
			rc = sim_errorf(err, SIM_E_INPUT, "%s:%llu: lba %llu + size %llu sectors passes 2^64",
					d->src.name, ln, (unsigned long long)lba, (unsigned long long)size);
			break;
		}
		if (dev > 0xfff) {
			rc = sim_errorf(err, SIM_E_INPUT, "%s:%llu: devno %llu out of range (0..4095)",
					d->src.name, ln, (unsigned long long)dev);
			break;
		}
		if (d->mode == TRACE_DISKSIM_MQSIM_NS && type > 1) {
			rc = sim_errorf(err, SIM_E_INPUT,
					"%s:%llu: type %llu is not 1 (read) or 0 (write)", d->src.name, ln,
					(unsigned long long)type);
			break;
		}
	emit:;
		bool read = type & 1;
		sim_zero(rec, sizeof(*rec));
		rec->kind = TRACE_REC_BLOCK;
		rec->action = TRACE_A_QUEUE;
		rec->act = 'Q';
		rec->time_ns = t;
		rec->seq = (uint32_t)++d->nreq;
		rec->dev_major = (uint32_t)dev;
		rec->sector = lba;
		rec->nr_sectors = (uint32_t)size;
		rec->bytes = (uint32_t)size << 9;
		rec->dir = read ? TRACE_DIR_READ : TRACE_DIR_WRITE;
		rec->flags = read ? 0 : REQ_WRITE;
		return 1;
	}
	if (rc < 0)
		d->failed = true;
	return rc;
}

const struct trace_reader_ops trace_disksim_ops = {
	.name = "disksim",
	.summary = "DiskSim / MQSim / SSDSim ASCII (arrival devno lba sectors type)",
	.identity = 0,
	.probe = ds_probe,
	.open = ds_open,
	.open_mem = ds_open_mem,
	.open_src = ds_open_src,
	.next = ds_next,
	.close = ds_close,
};
