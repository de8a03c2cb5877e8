/* The ftrace text line parser (accepted layouts: ftrace.h): a line's prefix
 * (comm-pid, tgid, CPU, flags, timestamp) and event body as struct
 * ftrace_rec, the event and syscall tables, the skipped-event counts and
 * the format probe. The streaming input around it, the trace.h block
 * adapter and the atrace region pairing are in traces/ftrace.c.
 *
 * Formats follow the TP_printk strings of Linux 3.10-6.x:
 *   include/trace/events/block.h     block_rq_insert/issue/complete, block_bio_queue/complete,
 *                                    block_plug/unplug ("%d,%d %s %u (%s) %llu + %u [%s]" ...;
 *                                    6.x adds an ioprio token before the bracket)
 *   include/trace/events/filemap.h   mm_filemap_* ("dev %d:%d ino %lx page=%p pfn=%lu ofs=%lu";
 *                                    newer kernels print pfn=0x%lx and add order=)
 *   include/trace/events/writeback.h writeback_* ("bdi %s: key=value ...")
 *   include/trace/events/sched.h     sched_switch / sched_wakeup (key=value; trace-cmd's
 *                                    plugin form "comm:pid [prio] S ==> comm:pid [prio]")
 *   include/trace/events/syscalls.h  raw_syscalls sys_enter "NR %ld (%lx, ...)", sys_exit "NR %ld = %ld"
 *   kernel/trace/trace_syscalls.c    syscalls:sys_enter_X as the kernel prints it
 *                                    ("sys_read(fd: 3, ...)", "sys_read -> 0x5") and as
 *                                    trace-cmd prints it ("sys_enter_read: fd: 0x3, ...")
 *   Android atrace markers           tracing_mark_write: B|pid|name, E|pid, C|pid|name|value,
 *                                    S|pid|name|cookie, F|pid|name|cookie
 * Syscall numbers are arm64's (include/uapi/asm-generic/unistd.h).
 *
 * The parser works on (pointer, length) spans and never relies on NUL
 * termination, so the memory reader needs no copy.
 */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "models/block/request.h"
#include "traces/ftrace_int.h"
#include "traces/trace_int.h"

/* include/linux/threads.h PID_MAX_LIMIT (64-bit): no task id is larger. */
#define FTRACE_PID_MAX 4194304
/* fs/read_write.c MAX_RW_COUNT = INT_MAX & PAGE_MASK (4 KiB pages): no
 * read or write transfers more in one call. */
#define FTRACE_MAX_RW_COUNT 2147479552LL
/* The CPU field is searched for only in the first bytes of a line: a comm
 * is at most 16 characters, padded to 16, plus "-PID" and "(TGID)". */
#define FTRACE_PREFIX_SCAN 256

/* ------------------------------------------------------------ cursor */

struct cur {
	const char *p, *e;
};

static inline void cur_ws(struct cur *c)
{
	while (c->p < c->e && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static inline bool cur_lit(struct cur *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->e - c->p) < n || memcmp(c->p, s, n) != 0)
		return false;
	c->p += n;
	return true;
}

static bool cur_u64(struct cur *c, uint64_t *out)
{
	return trace_dec_u64(&c->p, c->e, out);
}

static bool cur_i64(struct cur *c, int64_t *out)
{
	bool neg = false;
	struct cur t = *c;
	if (t.p < t.e && (*t.p == '-' || *t.p == '+')) {
		neg = *t.p == '-';
		t.p++;
	}
	uint64_t v;
	if (!cur_u64(&t, &v) || v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	*c = t;
	return true;
}

static bool cur_i32(struct cur *c, int32_t *out)
{
	int64_t v;
	struct cur t = *c;
	if (!cur_i64(&t, &v) || v < INT32_MIN || v > INT32_MAX)
		return false;
	*out = (int32_t)v;
	*c = t;
	return true;
}

static inline int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Hex number with an optional 0x prefix, at most 16 digits. */
static bool cur_hex(struct cur *c, uint64_t *out)
{
	const char *p = c->p;
	if (c->e - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	uint64_t v = 0;
	int n = 0;
	while (p < c->e && hexval(*p) >= 0) {
		if (++n > 16)
			return false;
		v = (v << 4) | (uint64_t)hexval(*p);
		p++;
	}
	if (n == 0)
		return false;
	c->p = p;
	*out = v;
	return true;
}

/* Number written as 0x... (hex) or decimal. */
static bool cur_num(struct cur *c, uint64_t *out)
{
	if (c->e - c->p >= 2 && c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X'))
		return cur_hex(c, out);
	return cur_u64(c, out);
}

static const char *span_find(const char *p, const char *e, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0 || p >= e || (size_t)(e - p) < n)
		return NULL;
	return memmem(p, (size_t)(e - p), needle, n);
}

static void copy_span(char *dst, size_t cap, const char *p, const char *e)
{
	size_t n = (size_t)(e - p);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
	/* A NUL inside the input would silently shorten the string; that is
	 * harmless for names and keeps strlen consistent. */
}

static const char *trim_right(const char *p, const char *e)
{
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return e;
}

/* Value of "key=" inside [p, e): the cursor spans up to the next space. */
static bool span_kv(const char *p, const char *e, const char *key, struct cur *val)
{
	size_t n = strlen(key);
	const char *q = p;
	while ((q = span_find(q, e, key)) != NULL) {
		if (q == p || q[-1] == ' ' || q[-1] == ':' || q[-1] == ',') {
			val->p = q + n;
			const char *v = val->p;
			while (v < e && *v != ' ' && *v != ',')
				v++;
			val->e = v;
			return true;
		}
		q += n;
	}
	return false;
}

/* ------------------------------------------------------------ errors */

static int line_error(struct ftrace_reader *r, struct sim_error *err, const char *line,
		      const char *at, const char *what)
{
	long col = at ? (long)(at - line) + 1 : 1;
	return sim_errorf(err, SIM_E_INPUT, "%s:%llu:%ld: %s", r->name,
			  (unsigned long long)r->lineno, col, what);
}

/* ------------------------------------------------------------ tables */

static const char *const type_names[FTRACE_NTYPES] = {
	[FTRACE_NONE] = "none",
	[FTRACE_BLOCK_RQ_INSERT] = "block_rq_insert",
	[FTRACE_BLOCK_RQ_ISSUE] = "block_rq_issue",
	[FTRACE_BLOCK_RQ_COMPLETE] = "block_rq_complete",
	[FTRACE_BLOCK_BIO_QUEUE] = "block_bio_queue",
	[FTRACE_BLOCK_BIO_COMPLETE] = "block_bio_complete",
	[FTRACE_BLOCK_PLUG] = "block_plug",
	[FTRACE_BLOCK_UNPLUG] = "block_unplug",
	[FTRACE_PAGECACHE_ADD] = "mm_filemap_add_to_page_cache",
	[FTRACE_PAGECACHE_DELETE] = "mm_filemap_delete_from_page_cache",
	[FTRACE_WRITEBACK] = "writeback",
	[FTRACE_SCHED_SWITCH] = "sched_switch",
	[FTRACE_SCHED_WAKEUP] = "sched_wakeup",
	[FTRACE_SYS_ENTER] = "sys_enter",
	[FTRACE_SYS_EXIT] = "sys_exit",
	[FTRACE_MARK_BEGIN] = "mark_begin",
	[FTRACE_MARK_END] = "mark_end",
	[FTRACE_MARK_COUNTER] = "mark_counter",
	[FTRACE_MARK_ASYNC_BEGIN] = "mark_async_begin",
	[FTRACE_MARK_ASYNC_END] = "mark_async_end",
};

const char *ftrace_type_name(enum ftrace_type t)
{
	return (unsigned)t < FTRACE_NTYPES ? type_names[t] : "?";
}

static const char *const syscall_names[FTRACE_NSYSCALLS] = {
	[FTRACE_SYS_OTHER] = "other",   [FTRACE_SYS_READ] = "read",
	[FTRACE_SYS_PREAD64] = "pread64", [FTRACE_SYS_WRITE] = "write",
	[FTRACE_SYS_PWRITE64] = "pwrite64", [FTRACE_SYS_FSYNC] = "fsync",
	[FTRACE_SYS_FDATASYNC] = "fdatasync", [FTRACE_SYS_OPENAT] = "openat",
	[FTRACE_SYS_CLOSE] = "close",   [FTRACE_SYS_MMAP] = "mmap",
};

const char *ftrace_syscall_name(enum ftrace_syscall c)
{
	return (unsigned)c < FTRACE_NSYSCALLS ? syscall_names[c] : "?";
}

/* arm64 uses the generic table: include/uapi/asm-generic/unistd.h. */
enum ftrace_syscall ftrace_syscall_from_nr(int32_t nr)
{
	switch (nr) {
	case 56: return FTRACE_SYS_OPENAT;
	case 57: return FTRACE_SYS_CLOSE;
	case 63: return FTRACE_SYS_READ;
	case 64: return FTRACE_SYS_WRITE;
	case 67: return FTRACE_SYS_PREAD64;
	case 68: return FTRACE_SYS_PWRITE64;
	case 82: return FTRACE_SYS_FSYNC;
	case 83: return FTRACE_SYS_FDATASYNC;
	case 222: return FTRACE_SYS_MMAP;
	default: return FTRACE_SYS_OTHER;
	}
}

static const int32_t syscall_nr_arm64[FTRACE_NSYSCALLS] = {
	[FTRACE_SYS_OTHER] = -1, [FTRACE_SYS_READ] = 63, [FTRACE_SYS_PREAD64] = 67,
	[FTRACE_SYS_WRITE] = 64, [FTRACE_SYS_PWRITE64] = 68, [FTRACE_SYS_FSYNC] = 82,
	[FTRACE_SYS_FDATASYNC] = 83, [FTRACE_SYS_OPENAT] = 56, [FTRACE_SYS_CLOSE] = 57,
	[FTRACE_SYS_MMAP] = 222,
};

static enum ftrace_syscall syscall_from_name(const char *p, const char *e)
{
	size_t n = (size_t)(e - p);
	for (int c = 1; c < FTRACE_NSYSCALLS; c++)
		if (strlen(syscall_names[c]) == n && memcmp(syscall_names[c], p, n) == 0)
			return (enum ftrace_syscall)c;
	/* mmap2 / pread / pwrite aliases on other architectures */
	if (n == 5 && memcmp(p, "mmap2", 5) == 0)
		return FTRACE_SYS_MMAP;
	return FTRACE_SYS_OTHER;
}

/* ------------------------------------------------------------ skip table */

static void count_skip(struct ftrace_reader *r, const char *p, const char *e)
{
	size_t n = (size_t)(e - p);
	if (n >= sizeof(r->st.skip[0].name))
		n = sizeof(r->st.skip[0].name) - 1;
	r->st.skipped++;
	if (r->last_skip < r->st.nskip) {
		struct ftrace_skip *s = &r->st.skip[r->last_skip];
		if (s->len == n && memcmp(s->name, p, n) == 0) {
			s->count++;
			return;
		}
	}
	for (uint32_t i = 0; i < r->st.nskip; i++) {
		struct ftrace_skip *s = &r->st.skip[i];
		if (s->len == n && memcmp(s->name, p, n) == 0) {
			s->count++;
			r->last_skip = i;
			return;
		}
	}
	if (r->st.nskip == FTRACE_MAX_SKIP_NAMES) {
		r->st.skipped_other++;
		return;
	}
	struct ftrace_skip *s = &r->st.skip[r->st.nskip];
	memcpy(s->name, p, n);
	s->name[n] = '\0';
	s->len = (uint32_t)n;
	s->count = 1;
	r->last_skip = r->st.nskip++;
}

/* ------------------------------------------------------------ prefix */

struct prefix {
	const char *comm_p, *comm_e;
	int32_t pid, tgid, cpu;
	int64_t time_ns;
	const char *rest;        /* first byte after "TIMESTAMP:" */
	const char *bad;         /* where parsing failed, for the message */
	const char *why;
};

static bool digits_only(const char *p, const char *e)
{
	if (p >= e)
		return false;
	for (; p < e; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

static bool parse_int32_span(const char *p, const char *e, int32_t *out)
{
	struct cur c = { p, e };
	return cur_i32(&c, out) && c.p == e;
}

/* Try the CPU field at b ("[NNN]"): the text before it must end in
 * "-PID" or "-PID (TGID)". */
static bool prefix_at(const char *line, const char *b, const char *e, struct prefix *px)
{
	const char *q = b + 1;
	while (q < e && isdigit((unsigned char)*q))
		q++;
	if (q == b + 1 || q >= e || *q != ']' || q - (b + 1) > 6)
		return false;
	if (!parse_int32_span(b + 1, q, &px->cpu))
		return false;

	const char *t = trim_right(line, b);
	px->tgid = -1;
	if (t > line && t[-1] == ')') {
		const char *open = t - 1;
		while (open > line && *open != '(')
			open--;
		if (*open != '(')
			return false;
		const char *ip = open + 1, *ie = t - 1;
		while (ip < ie && *ip == ' ')
			ip++;
		ie = trim_right(ip, ie);
		if (digits_only(ip, ie)) {
			if (!parse_int32_span(ip, ie, &px->tgid))
				return false;
		} else {
			for (const char *d = ip; d < ie; d++)
				if (*d != '-')
					return false;
			if (ip == ie)
				return false;
		}
		t = trim_right(line, open);
	}
	const char *dash;
	if (!trace_comm_tid_split(line, t, &dash, &px->pid))
		return false;
	px->comm_e = dash;
	px->comm_p = line;
	while (px->comm_p < px->comm_e && (*px->comm_p == ' ' || *px->comm_p == '\t'))
		px->comm_p++;
	if (px->comm_p == px->comm_e)
		return false;
	return true;
}

static bool is_flag_char(char ch)
{
	return ch == '.' || isalnum((unsigned char)ch);
}

/* Timestamp "SECONDS[.FRACTION]:" at the cursor. */
static bool parse_timestamp(struct cur *c, int64_t *ns)
{
	uint64_t s;
	if (!cur_u64(c, &s) || s > 9000000000ull)
		return false;
	int64_t frac = 0;
	if (c->p < c->e && *c->p == '.') {
		c->p++;
		int nd = 0;
		if (c->p >= c->e || !isdigit((unsigned char)*c->p))
			return false;
		while (c->p < c->e && isdigit((unsigned char)*c->p)) {
			if (nd < 9) {
				frac = frac * 10 + (*c->p - '0');
				nd++;
			}
			c->p++;
		}
		for (; nd < 9; nd++)
			frac *= 10;
	}
	if (c->p >= c->e || *c->p != ':')
		return false;
	c->p++;
	*ns = (int64_t)s * 1000000000 + frac;
	return true;
}

static bool parse_prefix(const char *line, const char *e, struct prefix *px)
{
	px->bad = line;
	px->why = "expected an ftrace event line \"COMM-PID [CPU] TIMESTAMP: EVENT: ...\"";
	const char *lim = line + FTRACE_PREFIX_SCAN < e ? line + FTRACE_PREFIX_SCAN : e;
	const char *b = line;
	bool found = false;
	while ((b = memchr(b, '[', (size_t)(lim - b))) != NULL) {
		if (b > line && prefix_at(line, b, e, px)) {
			found = true;
			break;
		}
		b++;
	}
	if (!found)
		return false;

	struct cur c = { memchr(b, ']', (size_t)(e - b)) + 1, e };
	cur_ws(&c);
	/* Optional irqs-off/need-resched/hardirq/preempt(/migrate) column. */
	const char *tok = c.p;
	while (c.p < c.e && *c.p != ' ' && *c.p != '\t')
		c.p++;
	if (c.p > tok && c.p[-1] != ':') {
		size_t n = (size_t)(c.p - tok);
		bool ok = n >= 4 && n <= 5;
		for (const char *f = tok; ok && f < c.p; f++)
			ok = is_flag_char(*f);
		if (!ok) {
			px->bad = tok;
			px->why = "expected a flags column of 4 or 5 characters (e.g. \"d..2\") or a timestamp";
			return false;
		}
		cur_ws(&c);
	} else {
		c.p = tok;
	}
	const char *ts = c.p;
	if (!parse_timestamp(&c, &px->time_ns)) {
		px->bad = ts;
		px->why = "expected a timestamp \"SECONDS.MICROS:\"";
		return false;
	}
	px->rest = c.p;
	return true;
}

/* ------------------------------------------------------------ bodies */

static uint32_t rwbs_flags(const char *p, const char *e)
{
	uint32_t f = 0;
	bool seen_dir = false;
	for (; p < e; p++) {
		switch (*p) {
		case 'F': f |= seen_dir ? REQ_FUA : REQ_FLUSH; break;
		case 'W': f |= REQ_WRITE; seen_dir = true; break;
		case 'R': case 'D': case 'N': seen_dir = true; break;
		case 'S': f |= REQ_SYNC; break;
		case 'M': f |= REQ_META; break;
		case 'A': f |= REQ_RAHEAD; break;
		default: break;
		}
	}
	return f;
}

/* "MAJ,MIN RWBS [BYTES] [(CMD)] SECTOR + NR [...] [COMM|ERR]" */
static int parse_block(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
		       struct cur c, struct sim_error *err)
{
	uint64_t maj, min;
	cur_ws(&c);
	const char *at = c.p;
	if (!cur_u64(&c, &maj) || !cur_lit(&c, ",") || !cur_u64(&c, &min) || maj > UINT32_MAX ||
	    min > UINT32_MAX)
		return line_error(r, err, line, at, "expected a device \"MAJOR,MINOR\"");
	rec->u.blk.major = (uint32_t)maj;
	rec->u.blk.minor = (uint32_t)min;
	cur_ws(&c);
	const char *rw = c.p;
	while (c.p < c.e && isalpha((unsigned char)*c.p))
		c.p++;
	if (c.p == rw || (c.p < c.e && *c.p != ' '))
		return line_error(r, err, line, rw, "expected an RWBS field (e.g. \"WS\")");
	copy_span(rec->u.blk.rwbs, sizeof(rec->u.blk.rwbs), rw, c.p);
	rec->u.blk.flags = rwbs_flags(rw, c.p);
	cur_ws(&c);

	/* Optional byte count, then optional (cmd), then SECTOR + NR. */
	uint64_t a = 0, sector = 0, nr = 0;
	struct cur save = c;
	bool have_a = cur_u64(&c, &a);
	cur_ws(&c);
	if (c.p < c.e && *c.p == '(') {
		const char *close = memchr(c.p, ')', (size_t)(c.e - c.p));
		if (!close)
			return line_error(r, err, line, c.p, "unterminated \"(cmd)\" field");
		c.p = close + 1;
		cur_ws(&c);
	} else if (have_a && c.p < c.e && *c.p == '+') {
		/* no byte count: what we read was the sector */
		c = save;
		have_a = false;
	}
	if (have_a && !(c.p < c.e && isdigit((unsigned char)*c.p))) {
		/* "a" was the sector of a form without bytes and cmd */
		c = save;
		have_a = false;
	}
	rec->u.blk.bytes = have_a && a <= UINT32_MAX ? (uint32_t)a : 0;
	at = c.p;
	if (!cur_u64(&c, &sector))
		return line_error(r, err, line, at, "expected \"SECTOR + NR_SECTORS\"");
	cur_ws(&c);
	if (!cur_lit(&c, "+"))
		return line_error(r, err, line, c.p, "expected '+' between sector and size");
	cur_ws(&c);
	at = c.p;
	if (!cur_u64(&c, &nr))
		return line_error(r, err, line, at, "expected a sector count");
	/* what the DiskSim reader checks: the bytes fit the record's 32 bits,
	 * the request ends inside 2^64 sectors */
	if (nr > (UINT32_MAX >> 9))
		return line_error(r, err, line, at, "sector count out of range (at most 8388607)");
	if (sector > UINT64_MAX - nr)
		return line_error(r, err, line, at, "sector + count passes 2^64");
	rec->u.blk.sector = sector;
	rec->u.blk.nr_sectors = (uint32_t)nr;

	/* Trailing "[comm]" or "[error]" (after an optional ioprio token). */
	const char *e = trim_right(c.p, c.e);
	const char *lb = c.p < e ? memchr(c.p, '[', (size_t)(e - c.p)) : NULL;
	if (lb && e[-1] != ']')
		return line_error(r, err, line, lb, "unterminated \"[...]\" field");
	if (e > c.p && e[-1] == ']') {
		const char *open = e - 1;
		while (open > c.p && *open != '[')
			open--;
		if (*open == '[') {
			bool is_complete = rec->type == FTRACE_BLOCK_RQ_COMPLETE ||
					   rec->type == FTRACE_BLOCK_BIO_COMPLETE;
			if (is_complete) {
				int32_t v;
				if (parse_int32_span(open + 1, e - 1, &v))
					rec->u.blk.error = v;
			} else {
				copy_span(rec->u.blk.comm, sizeof(rec->u.blk.comm), open + 1, e - 1);
			}
		}
	}
	return 1;
}

/* block_plug "[comm]", block_unplug "[comm] NR" */
static int parse_plug(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
		      struct cur c, struct sim_error *err)
{
	cur_ws(&c);
	rec->u.blk.sector = UINT64_MAX;
	if (c.p >= c.e || *c.p != '[')
		return line_error(r, err, line, c.p, "expected \"[comm]\"");
	const char *close = NULL;
	for (const char *q = c.e; q > c.p; q--)
		if (q[-1] == ']') {
			close = q - 1;
			break;
		}
	if (!close)
		return line_error(r, err, line, c.p, "unterminated \"[comm]\"");
	copy_span(rec->u.blk.comm, sizeof(rec->u.blk.comm), c.p + 1, close);
	c.p = close + 1;
	if (rec->type == FTRACE_BLOCK_UNPLUG) {
		cur_ws(&c);
		uint64_t n;
		if (c.p < c.e) {
			if (!cur_u64(&c, &n) || n > UINT32_MAX)
				return line_error(r, err, line, c.p, "expected the unplug depth");
			rec->u.blk.nr_rq = (uint32_t)n;
		}
	}
	return 1;
}

/* "dev MAJ:MIN ino INO page=... pfn=PFN ofs=OFS" */
static int parse_filemap(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
			 struct cur c, struct sim_error *err)
{
	uint64_t maj, min, ino, pfn = 0, ofs;
	cur_ws(&c);
	const char *at = c.p;
	if (!cur_lit(&c, "dev ") || !cur_u64(&c, &maj) || !cur_lit(&c, ":") ||
	    !cur_u64(&c, &min) || maj > UINT32_MAX || min > UINT32_MAX)
		return line_error(r, err, line, at, "expected \"dev MAJOR:MINOR\"");
	cur_ws(&c);
	at = c.p;
	if (!cur_lit(&c, "ino ") || !cur_hex(&c, &ino))
		return line_error(r, err, line, at, "expected \"ino HEX\"");
	struct cur v;
	if (span_kv(c.p, c.e, "pfn=", &v) && !cur_num(&v, &pfn))
		return line_error(r, err, line, v.p, "expected a number after pfn=");
	if (!span_kv(c.p, c.e, "ofs=", &v) || !cur_u64(&v, &ofs))
		return line_error(r, err, line, c.p, "expected \"ofs=BYTES\"");
	rec->u.pc.major = (uint32_t)maj;
	rec->u.pc.minor = (uint32_t)min;
	rec->u.pc.ino = ino;
	rec->u.pc.pfn = pfn;
	/* ofs is index << PAGE_SHIFT; Android arm64 uses 4 KiB pages. */
	rec->u.pc.index = ofs >> 12;
	return 1;
}

/* "bdi NAME: key=value ..." (the bdi part is absent in a few events) */
static int parse_writeback(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
			   const char *name_p, const char *name_e, struct cur c,
			   struct sim_error *err)
{
	copy_span(rec->u.wb.name, sizeof(rec->u.wb.name), name_p + strlen("writeback_"), name_e);
	rec->u.wb.nr_pages = -1;
	cur_ws(&c);
	if (cur_lit(&c, "bdi ")) {
		const char *b = c.p;
		while (c.p < c.e && *c.p != ':' && *c.p != ' ')
			c.p++;
		copy_span(rec->u.wb.bdi, sizeof(rec->u.wb.bdi), b, c.p);
	}
	struct cur v;
	uint64_t x;
	if (span_kv(c.p, c.e, "ino=", &v)) {
		if (!cur_num(&v, &x))
			return line_error(r, err, line, v.p, "expected a number after ino=");
		rec->u.wb.ino = x;
	}
	if (span_kv(c.p, c.e, "index=", &v) && cur_num(&v, &x))
		rec->u.wb.index = x;
	int64_t n;
	if ((span_kv(c.p, c.e, "nr_pages=", &v) || span_kv(c.p, c.e, "wrote=", &v) ||
	     span_kv(c.p, c.e, "nr_to_write=", &v)) && cur_i64(&v, &n))
		rec->u.wb.nr_pages = n;
	if (span_kv(c.p, c.e, "reason=", &v))
		copy_span(rec->u.wb.reason, sizeof(rec->u.wb.reason), v.p, v.e);
	return 1;
}

/* "comm:pid [prio]" of trace-cmd's sched plugin; c ends at the end of it. */
static bool parse_comm_pid_prio(struct cur *c, char *comm, size_t cap, int32_t *pid,
				int32_t *prio)
{
	const char *lb = NULL;
	for (const char *q = c->e; q > c->p; q--)
		if (q[-1] == '[') {
			lb = q - 1;
			break;
		}
	if (!lb)
		return false;
	const char *rb = memchr(lb, ']', (size_t)(c->e - lb));
	if (!rb || !parse_int32_span(lb + 1, rb, prio))
		return false;
	const char *cp = trim_right(c->p, lb);
	const char *colon = NULL;
	for (const char *q = cp; q > c->p; q--)
		if (q[-1] == ':') {
			colon = q - 1;
			break;
		}
	if (!colon || !parse_int32_span(colon + 1, cp, pid))
		return false;
	copy_span(comm, cap, c->p, colon);
	c->p = rb + 1;
	return true;
}

static int parse_sched_switch(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
			      struct cur c, struct sim_error *err)
{
	cur_ws(&c);
	const char *arrow = span_find(c.p, c.e, " ==> ");
	if (!arrow)
		return line_error(r, err, line, c.p, "expected \"... ==> ...\" in sched_switch");
	if (cur_lit(&c, "prev_comm=")) {
		const char *pp = span_find(c.p, arrow, " prev_pid=");
		const char *pr = span_find(c.p, arrow, " prev_prio=");
		const char *ps = span_find(c.p, arrow, " prev_state=");
		const char *nc = span_find(arrow, c.e, "next_comm=");
		const char *np = nc ? span_find(nc, c.e, " next_pid=") : NULL;
		const char *nx = nc ? span_find(nc, c.e, " next_prio=") : NULL;
		if (!pp || !pr || !ps || !nc || !np || !nx)
			return line_error(r, err, line, c.p,
					  "expected prev_comm= prev_pid= prev_prio= prev_state= ==> next_comm= next_pid= next_prio=");
		copy_span(rec->u.sw.prev_comm, sizeof(rec->u.sw.prev_comm), c.p, pp);
		struct cur v = { pp + strlen(" prev_pid="), pr };
		if (!cur_i32(&v, &rec->u.sw.prev_pid))
			return line_error(r, err, line, v.p, "expected a number after prev_pid=");
		v = (struct cur){ pr + strlen(" prev_prio="), ps };
		if (!cur_i32(&v, &rec->u.sw.prev_prio))
			return line_error(r, err, line, v.p, "expected a number after prev_prio=");
		copy_span(rec->u.sw.prev_state, sizeof(rec->u.sw.prev_state),
			  ps + strlen(" prev_state="), arrow);
		copy_span(rec->u.sw.next_comm, sizeof(rec->u.sw.next_comm),
			  nc + strlen("next_comm="), np);
		v = (struct cur){ np + strlen(" next_pid="), nx };
		if (!cur_i32(&v, &rec->u.sw.next_pid))
			return line_error(r, err, line, v.p, "expected a number after next_pid=");
		v = (struct cur){ nx + strlen(" next_prio="), c.e };
		if (!cur_i32(&v, &rec->u.sw.next_prio))
			return line_error(r, err, line, v.p, "expected a number after next_prio=");
		return 1;
	}
	/* trace-cmd: "prev:pid [prio] STATE ==> next:pid [prio]" */
	struct cur left = { c.p, arrow };
	const char *st = trim_right(left.p, left.e);
	const char *sb = st;
	while (sb > left.p && sb[-1] != ' ')
		sb--;
	copy_span(rec->u.sw.prev_state, sizeof(rec->u.sw.prev_state), sb, st);
	left.e = trim_right(left.p, sb);
	struct cur right = { arrow + strlen(" ==> "), trim_right(arrow, c.e) };
	if (!parse_comm_pid_prio(&left, rec->u.sw.prev_comm, sizeof(rec->u.sw.prev_comm),
				 &rec->u.sw.prev_pid, &rec->u.sw.prev_prio) ||
	    !parse_comm_pid_prio(&right, rec->u.sw.next_comm, sizeof(rec->u.sw.next_comm),
				 &rec->u.sw.next_pid, &rec->u.sw.next_prio))
		return line_error(r, err, line, c.p,
				  "expected \"COMM:PID [PRIO] STATE ==> COMM:PID [PRIO]\"");
	return 1;
}

static int parse_sched_wakeup(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
			      struct cur c, struct sim_error *err)
{
	cur_ws(&c);
	rec->u.wake.target_cpu = -1;
	if (cur_lit(&c, "comm=")) {
		const char *pp = span_find(c.p, c.e, " pid=");
		const char *pr = pp ? span_find(pp, c.e, " prio=") : NULL;
		if (!pp || !pr)
			return line_error(r, err, line, c.p, "expected comm= pid= prio=");
		copy_span(rec->u.wake.comm, sizeof(rec->u.wake.comm), c.p, pp);
		struct cur v = { pp + strlen(" pid="), pr };
		if (!cur_i32(&v, &rec->u.wake.pid))
			return line_error(r, err, line, v.p, "expected a number after pid=");
		v = (struct cur){ pr + strlen(" prio="), c.e };
		if (!cur_i32(&v, &rec->u.wake.prio))
			return line_error(r, err, line, v.p, "expected a number after prio=");
		if (span_kv(pr, c.e, "target_cpu=", &v))
			(void)cur_i32(&v, &rec->u.wake.target_cpu);
		return 1;
	}
	/* trace-cmd: "comm:pid [prio] [success=1] CPU:003" */
	const char *cpu = span_find(c.p, c.e, " CPU:");
	const char *lb_end = c.e;
	if (cpu) {
		struct cur v = { cpu + strlen(" CPU:"), c.e };
		(void)cur_i32(&v, &rec->u.wake.target_cpu);
		lb_end = cpu;
	}
	const char *succ = span_find(c.p, lb_end, " success=");
	if (succ)
		lb_end = succ;
	struct cur who = { c.p, trim_right(c.p, lb_end) };
	if (!parse_comm_pid_prio(&who, rec->u.wake.comm, sizeof(rec->u.wake.comm),
				 &rec->u.wake.pid, &rec->u.wake.prio))
		return line_error(r, err, line, c.p, "expected \"comm=.. pid=.. prio=..\" or \"COMM:PID [PRIO]\"");
	return 1;
}

/* raw_syscalls: "NR 63 (3, 7ffd, 1000, 0, 0, 0)" / "NR 63 = 4096" */
static int parse_raw_syscall(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
			     struct cur c, struct sim_error *err)
{
	cur_ws(&c);
	const char *at = c.p;
	if (!cur_lit(&c, "NR ") || !cur_i32(&c, &rec->u.sys.nr))
		return line_error(r, err, line, at, "expected \"NR NUMBER\"");
	rec->u.sys.call = ftrace_syscall_from_nr(rec->u.sys.nr);
	cur_ws(&c);
	if (rec->type == FTRACE_SYS_ENTER) {
		if (!cur_lit(&c, "("))
			return line_error(r, err, line, c.p, "expected \"(ARG, ...)\"");
		for (int i = 0; i < 6; i++) {
			cur_ws(&c);
			if (c.p < c.e && *c.p == ')')
				break;
			if (!cur_hex(&c, &rec->u.sys.args[i]))
				return line_error(r, err, line, c.p, "expected a hex syscall argument");
			cur_ws(&c);
			if (!cur_lit(&c, ","))
				break;
		}
		cur_ws(&c);
		if (!cur_lit(&c, ")"))
			return line_error(r, err, line, c.p, "expected ')' after the syscall arguments");
	} else {
		if (!cur_lit(&c, "=")) 
			return line_error(r, err, line, c.p, "expected \"= RET\"");
		cur_ws(&c);
		if (!cur_i64(&c, &rec->u.sys.ret))
			return line_error(r, err, line, c.p, "expected a return value");
	}
	return 1;
}

/* "fd: 0x3, buf: 0x7ffd, count: 0x1000" (either closed by ')' or not) */
static int parse_named_args(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
			    struct cur c, struct sim_error *err)
{
	for (int i = 0; i < 6; i++) {
		cur_ws(&c);
		if (c.p >= c.e || *c.p == ')')
			break;
		const char *colon = memchr(c.p, ':', (size_t)(c.e - c.p));
		if (!colon)
			return line_error(r, err, line, c.p, "expected \"NAME: VALUE\" syscall argument");
		c.p = colon + 1;
		cur_ws(&c);
		if (!cur_hex(&c, &rec->u.sys.args[i]))
			return line_error(r, err, line, c.p, "expected a hex syscall argument");
		cur_ws(&c);
		if (!cur_lit(&c, ","))
			break;
	}
	return 1;
}

static int parse_ret_hex(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
			 struct cur c, struct sim_error *err)
{
	cur_ws(&c);
	uint64_t v;
	if (c.p < c.e && *c.p == '-') {
		if (!cur_i64(&c, &rec->u.sys.ret))
			return line_error(r, err, line, c.p, "expected a return value");
		return 1;
	}
	if (!cur_hex(&c, &v))
		return line_error(r, err, line, c.p, "expected a hex return value");
	rec->u.sys.ret = (int64_t)v;
	return 1;
}

/* Android atrace marker body. Returns 1 (record), 0 (free-form text). */
static int parse_marker(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
			struct cur c, struct sim_error *err)
{
	cur_ws(&c);
	c.e = trim_right(c.p, c.e);
	if (c.e - c.p < 1 || (c.e - c.p >= 2 && c.p[1] != '|'))
		return 0;
	char kind = *c.p;
	switch (kind) {
	case 'B': rec->type = FTRACE_MARK_BEGIN; break;
	case 'E': rec->type = FTRACE_MARK_END; break;
	case 'C': rec->type = FTRACE_MARK_COUNTER; break;
	case 'S': rec->type = FTRACE_MARK_ASYNC_BEGIN; break;
	case 'F': rec->type = FTRACE_MARK_ASYNC_END; break;
	default: return 0;
	}
	rec->u.mark.pid = rec->tgid >= 0 ? rec->tgid : rec->pid;
	c.p++;
	if (c.p >= c.e) {
		if (kind != 'E')
			return line_error(r, err, line, c.p, "expected \"|PID|NAME\" after the marker kind");
		return 1;
	}
	c.p++; /* '|' */
	const char *pid_p = c.p;
	const char *bar = memchr(c.p, '|', (size_t)(c.e - c.p));
	const char *pid_e = bar ? bar : c.e;
	if (pid_e > pid_p && !parse_int32_span(pid_p, pid_e, &rec->u.mark.pid))
		return line_error(r, err, line, pid_p, "expected a pid in the marker");
	if (!bar) {
		if (kind != 'E')
			return line_error(r, err, line, pid_e, "expected \"|NAME\" in the marker");
		return 1;
	}
	const char *name_p = bar + 1, *name_e = c.e;
	if (kind == 'C' || kind == 'S' || kind == 'F') {
		/* the value or cookie is the field after the name; names may
		 * contain spaces but not '|' */
		const char *vb = memchr(name_p, '|', (size_t)(c.e - name_p));
		if (vb) {
			name_e = vb;
			struct cur v = { vb + 1, c.e };
			const char *ve = memchr(v.p, '|', (size_t)(v.e - v.p));
			if (ve)
				v.e = ve;
			if (!cur_i64(&v, &rec->u.mark.value) || v.p != v.e)
				return line_error(r, err, line, vb + 1, "expected a number in the marker");
		} else if (kind == 'C') {
			return line_error(r, err, line, c.e, "expected \"|VALUE\" in a counter marker");
		}
	}
	copy_span(rec->u.mark.name, sizeof(rec->u.mark.name), name_p, name_e);
	return 1;
}

/* ------------------------------------------------------------ events */

enum ev_kind { K_BLOCK, K_PLUG, K_FILEMAP, K_SWITCH, K_WAKEUP, K_RAWSYS, K_MARK, K_PRINT };

struct ev_name {
	const char *name;
	uint8_t len;
	enum ftrace_type type;
	enum ev_kind kind;
};

#define EV(n, t, k) { n, sizeof(n) - 1, t, k }

static const struct ev_name ev_table[] = {
	EV("block_rq_insert", FTRACE_BLOCK_RQ_INSERT, K_BLOCK),
	EV("block_rq_issue", FTRACE_BLOCK_RQ_ISSUE, K_BLOCK),
	EV("block_rq_complete", FTRACE_BLOCK_RQ_COMPLETE, K_BLOCK),
	EV("block_bio_queue", FTRACE_BLOCK_BIO_QUEUE, K_BLOCK),
	EV("block_bio_complete", FTRACE_BLOCK_BIO_COMPLETE, K_BLOCK),
	EV("block_plug", FTRACE_BLOCK_PLUG, K_PLUG),
	EV("block_unplug", FTRACE_BLOCK_UNPLUG, K_PLUG),
	EV("mm_filemap_add_to_page_cache", FTRACE_PAGECACHE_ADD, K_FILEMAP),
	EV("mm_filemap_delete_from_page_cache", FTRACE_PAGECACHE_DELETE, K_FILEMAP),
	EV("sched_switch", FTRACE_SCHED_SWITCH, K_SWITCH),
	EV("sched_wakeup", FTRACE_SCHED_WAKEUP, K_WAKEUP),
	EV("sched_wakeup_new", FTRACE_SCHED_WAKEUP, K_WAKEUP),
	EV("sys_enter", FTRACE_SYS_ENTER, K_RAWSYS),
	EV("sys_exit", FTRACE_SYS_EXIT, K_RAWSYS),
	EV("tracing_mark_write", FTRACE_NONE, K_MARK),
	EV("print", FTRACE_NONE, K_PRINT),
	EV("0", FTRACE_NONE, K_PRINT), /* trace-cmd prints an unresolved print ip as "0" */
};

static bool span_eq(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(e - p) == n && memcmp(p, s, n) == 0;
}

static bool span_starts(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(e - p) >= n && memcmp(p, s, n) == 0;
}

static void fill_sys_by_name(struct ftrace_rec *rec, const char *p, const char *e)
{
	rec->u.sys.call = syscall_from_name(p, e);
	rec->u.sys.nr = syscall_nr_arm64[rec->u.sys.call];
}

/* Decode the event part (after "TIMESTAMP:"). */
static int parse_event(struct ftrace_reader *r, struct ftrace_rec *rec, const char *line,
		       const char *p, const char *e, struct sim_error *err)
{
	struct cur c = { p, e };
	cur_ws(&c);
	const char *np = c.p;
	while (c.p < c.e && *c.p != ':' && *c.p != '(' && *c.p != ' ')
		c.p++;
	const char *ne = c.p;
	if (ne == np)
		return line_error(r, err, line, np, "expected an event name");

	/* Kernel-printed syscalls events: "sys_read(fd: 3, ...)", "sys_read -> 0x5". */
	if (c.p >= c.e || *c.p != ':') {
		if (c.p < c.e && span_starts(np, ne, "sys_")) {
			if (*c.p == '(') {
				rec->type = FTRACE_SYS_ENTER;
				fill_sys_by_name(rec, np + 4, ne);
				c.p++;
				return parse_named_args(r, rec, line, c, err);
			}
			struct cur t = c;
			cur_ws(&t);
			if (cur_lit(&t, "->")) {
				rec->type = FTRACE_SYS_EXIT;
				fill_sys_by_name(rec, np + 4, ne);
				return parse_ret_hex(r, rec, line, t, err);
			}
		}
		/* function tracer output and other free-form lines */
		count_skip(r, np, ne);
		return 0;
	}
	c.p++; /* ':' */

	size_t nlen = (size_t)(ne - np);
	for (size_t i = 0; i < sizeof(ev_table) / sizeof(ev_table[0]); i++) {
		const struct ev_name *ev = &ev_table[i];
		if (ev->len != nlen || ev->name[0] != np[0] || memcmp(ev->name, np, nlen) != 0)
			continue;
		rec->type = ev->type;
		switch (ev->kind) {
		case K_BLOCK: return parse_block(r, rec, line, c, err);
		case K_PLUG: return parse_plug(r, rec, line, c, err);
		case K_FILEMAP: return parse_filemap(r, rec, line, c, err);
		case K_SWITCH: return parse_sched_switch(r, rec, line, c, err);
		case K_WAKEUP: return parse_sched_wakeup(r, rec, line, c, err);
		case K_RAWSYS: return parse_raw_syscall(r, rec, line, c, err);
		case K_PRINT: {
			/* "print: tracing_mark_write: B|..." or "print: IP: B|..." */
			cur_ws(&c);
			const char *colon = c.p < c.e ? memchr(c.p, ':', (size_t)(c.e - c.p)) : NULL;
			if (colon && colon + 1 < c.e && colon[1] == ' ' &&
			    memchr(c.p, ' ', (size_t)(colon - c.p)) == NULL &&
			    memchr(c.p, '|', (size_t)(colon - c.p)) == NULL)
				c.p = colon + 1;
		}
			/* fall through */
		case K_MARK: {
			int rc = parse_marker(r, rec, line, c, err);
			if (rc == 0)
				count_skip(r, np, ne);
			return rc;
		}
		}
	}
	if (span_starts(np, ne, "writeback_")) {
		rec->type = FTRACE_WRITEBACK;
		return parse_writeback(r, rec, line, np, ne, c, err);
	}
	if (span_starts(np, ne, "sys_enter_")) {
		rec->type = FTRACE_SYS_ENTER;
		fill_sys_by_name(rec, np + strlen("sys_enter_"), ne);
		return parse_named_args(r, rec, line, c, err);
	}
	if (span_starts(np, ne, "sys_exit_")) {
		rec->type = FTRACE_SYS_EXIT;
		fill_sys_by_name(rec, np + strlen("sys_exit_"), ne);
		return parse_ret_hex(r, rec, line, c, err);
	}
	count_skip(r, np, ne);
	return 0;
}

/* Lines that are not events but belong to the format. */
static bool is_header_line(const char *p, const char *e)
{
	if (span_starts(p, e, "version = ") || span_starts(p, e, "cpus=") ||
	    span_starts(p, e, "trace-cmd:"))
		return true;
	/* trace-cmd: "CPU 3 is empty", "CPU0 data recorded at offset=..." */
	if (span_starts(p, e, "CPU")) {
		if (span_find(p, e, " is empty") || span_find(p, e, "data recorded at offset"))
			return true;
	}
	return false;
}

/* "CPU:N [LOST M EVENTS]"; also trace-cmd's "CPU:N [M EVENTS DROPPED]". */
static bool lost_line(const char *p, const char *e, uint64_t *m)
{
	struct cur c = { p, e };
	uint64_t cpu;
	if (!cur_lit(&c, "CPU:") || !cur_u64(&c, &cpu))
		return false;
	cur_ws(&c);
	if (!cur_lit(&c, "["))
		return false;
	bool lost = cur_lit(&c, "LOST ");
	if (!cur_u64(&c, m))
		return false;
	return lost ? span_eq(c.p, c.e, " EVENTS]") : span_eq(c.p, c.e, " EVENTS DROPPED]");
}

int ftrace_parse_line(struct ftrace_reader *r, const char *line, size_t len,
		      struct ftrace_rec *rec, struct sim_error *err)
{
	const char *e = line + len;
	if (e > line && e[-1] == '\r')
		e--;
	e = trim_right(line, e);
	const char *p = line;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	r->st.lines++;
	/* A NUL is never part of ftrace text (the kernel prints comm with %s):
	 * refused here, so `trace stat`, block replay and ftrace replay give
	 * the one verdict the other text readers give. */
	if (memchr(line, '\0', len))
		return sim_errorf(err, SIM_E_INPUT, "%s:%llu: NUL byte in a text line", r->name,
				  (unsigned long long)r->lineno);
	if (p == e || *p == '#' || is_header_line(p, e)) {
		r->st.comments++;
		return 0;
	}
	uint64_t m;
	if (lost_line(p, e, &m)) {
		r->st.lost_markers++;
		r->st.lost_events += m;
		return 0;
	}
	struct prefix px;
	if (!parse_prefix(line, e, &px))
		return line_error(r, err, line, px.bad, px.why);
	rec->type = FTRACE_NONE;
	rec->time_ns = px.time_ns;
	rec->pid = px.pid;
	rec->tgid = px.tgid;
	rec->cpu = px.cpu;
	rec->line = r->lineno;
	copy_span(rec->comm, sizeof(rec->comm), px.comm_p, px.comm_e);
	memset(&rec->u, 0, sizeof(rec->u));
	if (px.pid < 0 || px.pid > FTRACE_PID_MAX)
		return line_error(r, err, line, px.rest, "pid out of range (0..4194304)");
	int rc = parse_event(r, rec, line, px.rest, e, err);
	if (rc == 1 && rec->type == FTRACE_SYS_EXIT && rec->u.sys.ret > FTRACE_MAX_RW_COUNT &&
	    (rec->u.sys.call == FTRACE_SYS_READ || rec->u.sys.call == FTRACE_SYS_PREAD64 ||
	     rec->u.sys.call == FTRACE_SYS_WRITE || rec->u.sys.call == FTRACE_SYS_PWRITE64))
		return line_error(r, err, line, px.rest,
				  "read/write returned more than MAX_RW_COUNT (2147479552) bytes");
	if (rc == 1) {
		r->st.events++;
		r->st.by_type[rec->type]++;
	}
	return rc;
}

bool ftrace_probe(const void *buf, size_t len)
{
	const char *p = buf, *end = p + len;
	int lines = 0;
	while (p < end && lines < 32) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if (!nl && lines > 0 && e - p < 8)
			break; /* a cut partial last line says nothing */
		lines++;
		const char *s = p;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		const char *t = trim_right(s, e);
		if (t > s && t[-1] == '\r')
			t--;
		if (s == t) {
			p = nl ? nl + 1 : end;
			continue;
		}
		if (*s == '#') {
			if (span_find(s, t, "tracer:") || span_find(s, t, "TASK-PID"))
				return true;
			p = nl ? nl + 1 : end;
			continue;
		}
		uint64_t m;
		if (is_header_line(s, t) || lost_line(s, t, &m)) {
			p = nl ? nl + 1 : end;
			continue;
		}
		struct prefix px;
		return parse_prefix(p, t, &px);
	}
	return false;
}
