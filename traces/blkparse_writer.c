/* blkparse text writer: prints records the way Debian's blkparse 1.2.0
 * prints them by default (`blkparse -i -`), and its end-of-run summary.
 *
 * Source: blktrace 1.2.0 blkparse_fmt.c (process_default: the header
 * "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s " and the per-action tails) and
 * blkparse.c (dump_trace_fs/dump_trace_pc accounting, dump_io_stats,
 * show_device_and_cpu_stats, size_cnv, handle_notify for 'm' lines).
 * Numbers are printed as in the C locale (blkparse's %' flag adds no
 * grouping there; under en_US it would print 6,741).
 *
 * Differences kept on purpose: events are printed in the order given
 * (blkparse sorts a window of 512 by time, device, sequence; readers hand
 * events over already in that order); sequence skips are counted per CPU
 * as gaps in the numbering (blkparse also re-fills gaps that arrive late).
 * blkparse's "-t" elapsed times and custom formats are not produced.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "models/block/request.h"
#include "traces/trace.h"

#define BPW_MAX_CPU 4096u

struct bpw_ios {
	uint64_t qreads, qwrites, creads, cwrites, mreads, mwrites, ireads, iwrites;
	uint64_t rrqueue, wrqueue;
	uint64_t qread_kb, qwrite_kb, cread_kb, cwrite_kb, iread_kb, iwrite_kb, mread_kb, mwrite_kb;
	uint64_t qread_b, qwrite_b, cread_b, cwrite_b, iread_b, iwrite_b, mread_b, mwrite_b;
	uint64_t qreads_pc, qwrites_pc, creads_pc, cwrites_pc, ireads_pc, iwrites_pc;
	uint64_t rrqueue_pc, wrqueue_pc;
	uint64_t qread_kb_pc, qwrite_kb_pc, iread_kb_pc, iwrite_kb_pc;
	uint64_t qread_b_pc, qwrite_b_pc, iread_b_pc, iwrite_b_pc;
	uint64_t io_unplugs, timer_unplugs;
};

struct bpw_cpu {
	struct bpw_ios ios;
	uint64_t nelems;
	uint32_t next_seq;      /* TRACE_BPW_NUMBER_SEQ */
	int64_t last_seq;       /* -1 before the first event */
};

struct bpw_dev {
	uint32_t major, minor;
	uint64_t events;
	int64_t first_time, last_time;
	uint32_t cur_depth[2], max_depth[2];
	uint64_t skips, seq_skips;
	struct bpw_cpu *cpus;
	uint32_t ncpus;
};

struct trace_blkparse_writer {
	FILE *out;
	uint32_t wflags;
	struct bpw_dev *devs;
	uint32_t ndevs, capdevs;
	struct bpw_dev *last;
	/* A per-CPU set read by name (blkparse -i NAME): its statistics are
	 * labelled NAME, sequence gaps are not counted (the per-CPU merge of
	 * blkparse 1.2.0 does not check them), and the files are listed. */
	char input[256];
	uint32_t input_files;
};

void trace_blkparse_writer_set_input(struct trace_blkparse_writer *w, const char *name,
				     uint32_t nfiles)
{
	snprintf(w->input, sizeof(w->input), "%s", name);
	w->input_files = nfiles;
}

int trace_blkparse_writer_create(FILE *out, uint32_t wflags, struct trace_blkparse_writer **w,
				 struct sim_error *err)
{
	struct trace_blkparse_writer *x = calloc(1, sizeof(*x));

	if (!x)
		return sim_errorf(err, SIM_E_NOMEM, "blkparse writer: out of memory");
	x->out = out;
	x->wflags = wflags;
	*w = x;
	return 0;
}

void trace_blkparse_writer_destroy(struct trace_blkparse_writer *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->ndevs; i++)
		free(w->devs[i].cpus);
	free(w->devs);
	free(w);
}

static struct bpw_dev *get_dev(struct trace_blkparse_writer *w, uint32_t major, uint32_t minor)
{
	if (w->last && w->last->major == major && w->last->minor == minor)
		return w->last;
	for (uint32_t i = 0; i < w->ndevs; i++)
		if (w->devs[i].major == major && w->devs[i].minor == minor)
			return w->last = &w->devs[i];
	if (w->ndevs == w->capdevs) {
		uint32_t cap = w->capdevs ? 2 * w->capdevs : 4;
		struct bpw_dev *d = realloc(w->devs, cap * sizeof(*d));
		if (!d)
			return NULL;
		w->devs = d;
		w->capdevs = cap;
	}
	struct bpw_dev *d = &w->devs[w->ndevs++];
	memset(d, 0, sizeof(*d));
	d->major = major;
	d->minor = minor;
	return w->last = d;
}

static struct bpw_cpu *get_cpu(struct bpw_dev *d, uint32_t cpu)
{
	if (cpu >= BPW_MAX_CPU)
		return NULL;
	if (cpu >= d->ncpus) {
		uint32_t n = cpu + 1;
		struct bpw_cpu *c = realloc(d->cpus, n * sizeof(*c));
		if (!c)
			return NULL;
		for (uint32_t i = d->ncpus; i < n; i++) {
			memset(&c[i], 0, sizeof(c[i]));
			c[i].next_seq = 1;
			c[i].last_seq = -1;
		}
		d->cpus = c;
		d->ncpus = n;
	}
	return &d->cpus[cpu];
}

/* ---- accounting (blkparse.c account_*) --------------------------------- */

static void account(struct bpw_dev *d, struct bpw_ios *s, const struct trace_rec *r)
{
	int w = (r->flags & REQ_WRITE) != 0;
	uint64_t kb = r->bytes >> 10, b = r->bytes & 1023;

	if (r->tflags & TRACE_T_PC) {
		switch (r->action) {
		case TRACE_A_QUEUE:
			/* blkparse adds PC read kilobytes to qread_kb (not _pc): kept. */
			if (w) { s->qwrites_pc++; s->qwrite_kb_pc += kb; s->qwrite_b_pc += b; }
			else { s->qreads_pc++; s->qread_kb += kb; s->qread_b_pc += b; }
			break;
		case TRACE_A_REQUEUE:
			if (d->cur_depth[w])
				d->cur_depth[w]--;
			if (w) { s->wrqueue_pc++; s->iwrite_kb_pc -= kb; s->iwrite_b_pc -= b; }
			else { s->rrqueue_pc++; s->iread_kb_pc -= kb; s->iread_b_pc -= b; }
			break;
		case TRACE_A_ISSUE:
			if (w) { s->iwrites_pc++; s->iwrite_kb_pc += kb; s->iwrite_b_pc += b; }
			else { s->ireads_pc++; s->iread_kb_pc += kb; s->iread_b_pc += b; }
			if (++d->cur_depth[w] > d->max_depth[w])
				d->max_depth[w] = d->cur_depth[w];
			break;
		case TRACE_A_COMPLETE:
			if (d->cur_depth[w])
				d->cur_depth[w]--;
			if (w) s->cwrites_pc++; else s->creads_pc++;
			break;
		default:
			break;
		}
		return;
	}
	switch (r->action) {
	case TRACE_A_QUEUE:
		if (w) { s->qwrites++; s->qwrite_kb += kb; s->qwrite_b += b; }
		else { s->qreads++; s->qread_kb += kb; s->qread_b += b; }
		break;
	case TRACE_A_BACKMERGE:
	case TRACE_A_FRONTMERGE:
		if (w) { s->mwrites++; s->mwrite_kb += kb; s->mwrite_b += b; }
		else { s->mreads++; s->mread_kb += kb; s->mread_b += b; }
		break;
	case TRACE_A_REQUEUE:
		if (d->cur_depth[w])
			d->cur_depth[w]--;
		if (w) { s->wrqueue++; s->iwrite_kb -= kb; s->iwrite_b -= b; }
		else { s->rrqueue++; s->iread_kb -= kb; s->iread_b -= b; }
		break;
	case TRACE_A_ISSUE:
		if (w) { s->iwrites++; s->iwrite_kb += kb; s->iwrite_b += b; }
		else { s->ireads++; s->iread_kb += kb; s->iread_b += b; }
		if (++d->cur_depth[w] > d->max_depth[w])
			d->max_depth[w] = d->cur_depth[w];
		break;
	case TRACE_A_COMPLETE:
		if (d->cur_depth[w])
			d->cur_depth[w]--;
		if (w) { s->cwrites++; s->cwrite_kb += kb; s->cwrite_b += b; }
		else { s->creads++; s->cread_kb += kb; s->cread_b += b; }
		break;
	case TRACE_A_UNPLUG_IO:
		s->io_unplugs++;
		break;
	case TRACE_A_UNPLUG_TIMER:
		s->timer_unplugs++;
		break;
	default:
		break;
	}
}

/* ---- event lines (blkparse_fmt.c process_default) --------------------- */

static void print_pdu(FILE *o, const uint8_t *p, uint32_t n)
{
	/* dump_pdu: hex bytes separated by spaces; stops at a zero byte
	 * followed only by zeroes and appends " ..". */
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			fputc(' ', o);
		fprintf(o, "%02x", p[i]);
		if (!p[i]) {
			uint32_t j = i;
			while (j < n && !p[j])
				j++;
			if (j == n) {
				fputs(" ..", o);
				break;
			}
		}
	}
}

/* A line is formatted into a buffer and written once: stdio's parsing of
 * the header's nine conversions cost more than reading the trace. The
 * characters are those printf gives in the C locale. */
enum { PUT_RIGHT, PUT_LEFT, PUT_ZERO };

/* Digits of u (1 for 0). */
static inline int dec_digits(uint64_t u)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
	};
	/* log10 from log2 (1233 / 4096 ~ log10(2)), then one correction */
	int l2 = 63 - __builtin_clzll(u | 1);
	int d = (l2 * 1233) >> 12;
	return d + 1 + (d < 19 && u >= pow10[d + 1]);
}

/* n copies of c at p (n >= 0); up to 16 is one 16-byte store (the line
 * buffer has the room past p). Returns p + n. */
static inline __attribute__((always_inline)) char *put_fill(char *p, char c, int n)
{
	if (n <= 0)
		return p;
	if (n <= 16) {
		char run[16];
		memset(run, c, sizeof(run));
		memcpy(p, run, sizeof(run));
	} else {
		memset(p, c, (size_t)n);
	}
	return p + n;
}

/* The number right-aligned, left-aligned or zero-filled in width, written
 * straight into the line: its length known first, the digits go from the
 * end two at a time, and padding of up to 16 is one 16-byte store (the
 * line buffer has the room past p). */
static inline __attribute__((always_inline)) char *put_num(char *p, uint64_t u, bool neg, int width,
							     int how)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	int n = dec_digits(u);
	int body = how == PUT_ZERO && width > n ? width : n; /* digits with the zeros */
	int len = body + neg;
	int pad = width > len ? width - len : 0;
	if (how == PUT_RIGHT)
		p = put_fill(p, ' ', pad);
	if (neg)
		*p++ = '-';
	put_fill(p, '0', body - n); /* inside body: p stays */
	char *e = p + body, *q = e;
	while (u >= 100) {
		unsigned d = (unsigned)(u % 100);
		u /= 100;
		q -= 2;
		memcpy(q, pairs + 2 * d, 2);
	}
	if (u >= 10) {
		q -= 2;
		memcpy(q, pairs + 2 * u, 2);
	} else {
		*--q = (char)('0' + u);
	}
	p = e;
	if (how == PUT_LEFT)
		p = put_fill(p, ' ', pad);
	return p;
}

/* %Nd, %-Nd */
static char *put_int(char *p, int v, int width, int how)
{
	return put_num(p, v < 0 ? 0 - (uint64_t)(int64_t)v : (uint64_t)v, v < 0, width, how);
}

static char *put_u(char *p, uint64_t v) { return put_num(p, v, false, 0, PUT_RIGHT); }

/* %Ns */
static char *put_str(char *p, const char *s, int width)
{
	size_t l = strlen(s);
	if ((size_t)width > l) {
		memset(p, ' ', (size_t)width - l);
		p += (size_t)width - l;
	}
	memcpy(p, s, l);
	return p + l;
}

static char *put_name(char *p, const char *name, size_t len)
{
	*p++ = '[';
	memcpy(p, name, len);
	p += len;
	*p++ = ']';
	return p;
}

#define BPW_NAME_FAST 1024 /* longer names take fprintf */

/* process_default's common lines: every action but messages, passthrough
 * records and the rare ones with a payload. Returns false when the record
 * is not one of them (nothing written). */
static bool print_event_fast(struct trace_blkparse_writer *w, const struct trace_rec *r,
			     uint32_t seq, const char *name)
{
	size_t nl = strlen(name);
	if (r->action == TRACE_A_MESSAGE || (r->tflags & TRACE_T_PC) || nl > BPW_NAME_FAST)
		return false;
	char line[BPW_NAME_FAST + 256], *p = line, rwbs[8];
	char act[3] = { r->act, '\0', '\0' };
	uint64_t t = (uint64_t)r->time_ns;
	unsigned nsec = r->bytes >> 9;

	if (r->action == TRACE_A_UNPLUG_TIMER)
		act[0] = 'U', act[1] = 'T';
	trace_rwbs(r, rwbs);
	/* "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s " */
	p = put_int(p, (int)r->dev_major, 3, PUT_RIGHT);
	*p++ = ',';
	p = put_int(p, (int)r->dev_minor, 3, PUT_LEFT);
	*p++ = ' ';
	p = put_int(p, (int)r->cpu, 2, PUT_RIGHT);
	*p++ = ' ';
	p = put_int(p, (int)seq, 8, PUT_RIGHT);
	*p++ = ' ';
	p = put_int(p, (int)(t / 1000000000u), 5, PUT_RIGHT);
	*p++ = '.';
	p = put_num(p, t % 1000000000u, false, 9, PUT_ZERO);
	*p++ = ' ';
	p = put_num(p, (unsigned)r->pid, false, 5, PUT_RIGHT);
	*p++ = ' ';
	p = put_str(p, act, 2);
	*p++ = ' ';
	p = put_str(p, rwbs, 3);
	*p++ = ' ';
	switch (r->act) {
	case 'R':
	case 'C':
		p = put_u(p, r->sector);
		if (nsec) {
			memcpy(p, " + ", 3);
			p = put_u(p + 3, nsec);
		}
		memcpy(p, " [", 2);
		p = put_int(p + 2, r->error, 0, PUT_RIGHT);
		*p++ = ']';
		break;
	case 'D':
	case 'I':
	case 'Q':
	case 'B':
	case 'M':
	case 'F':
	case 'G':
	case 'S':
		if (nsec) {
			p = put_u(p, r->sector);
			memcpy(p, " + ", 3);
			p = put_u(p + 3, nsec);
			*p++ = ' ';
		}
		p = put_name(p, name, nl);
		break;
	case 'P':
		p = put_name(p, name, nl);
		break;
	case 'U':
	case 'T':
		p = put_name(p, name, nl);
		*p++ = ' ';
		p = put_u(p, (unsigned)r->pdu_u64);
		break;
	case 'A':
		p = put_u(p, r->sector);
		memcpy(p, " + ", 3);
		p = put_u(p + 3, nsec);
		memcpy(p, " <- (", 5);
		p = put_int(p + 5, (int)r->from_major, 0, PUT_RIGHT);
		*p++ = ',';
		p = put_int(p, (int)r->from_minor, 0, PUT_RIGHT);
		memcpy(p, ") ", 2);
		p = put_u(p + 2, r->from_sector);
		break;
	case 'X':
		p = put_u(p, r->sector);
		memcpy(p, " / ", 3);
		p = put_u(p + 3, (unsigned)r->pdu_u64);
		*p++ = ' ';
		p = put_name(p, name, nl);
		break;
	default:
		break;
	}
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), w->out);
	return true;
}

static void print_event(struct trace_blkparse_writer *w, const struct trace_rec *r, uint32_t seq)
{
	FILE *o = w->out;
	const char *name = r->comm ? r->comm : "(null)";
	uint64_t t = (uint64_t)r->time_ns;
	char rwbs[8];
	const char *act;
	char actbuf[2] = { r->act, '\0' };

	if (print_event_fast(w, r, seq, name))
		return;
	if (r->action == TRACE_A_MESSAGE) {
		fprintf(o, "%3d,%-3d %2d %8s %5d.%09lu %5u %2s %3s ", (int)r->dev_major,
			(int)r->dev_minor, (int)r->cpu, "0", (int)(t / 1000000000u),
			(unsigned long)(t % 1000000000u), 0u, "m", "N");
		if (r->pdu_len) {
			/* handle_notify prints the payload up to its first NUL. */
			size_t l = strnlen((const char *)r->pdu, r->pdu_len);
			fwrite(r->pdu, 1, l, o);
		}
		fputc('\n', o);
		return;
	}
	trace_rwbs(r, rwbs);
	act = r->action == TRACE_A_UNPLUG_TIMER ? "UT" : actbuf;
	fprintf(o, "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s ", (int)r->dev_major, (int)r->dev_minor,
		(int)r->cpu, (int)seq, (int)(t / 1000000000u), (unsigned long)(t % 1000000000u),
		(unsigned)r->pid, act, rwbs);
	/* t_sec(t) = bytes >> 9: blkparse derives sectors from bytes. */
	unsigned nsec = r->bytes >> 9;
	bool pc = r->tflags & TRACE_T_PC;
	/* dump_trace_pc hands the CDB only to D, C and I (log_pc). */
	uint32_t pdu_len = pc && strchr("DCI", r->act) ? r->pdu_len : 0;

	switch (r->act) {
	case 'R':
	case 'C':
		if (pc) {
			if (pdu_len) {
				fputc('(', o);
				print_pdu(o, r->pdu, pdu_len);
				fputs(") ", o);
			}
			fprintf(o, "[%d]\n", r->error);
		} else if (nsec) {
			fprintf(o, "%" PRIu64 " + %u [%d]\n", r->sector, nsec, r->error);
		} else {
			fprintf(o, "%" PRIu64 " [%d]\n", r->sector, r->error);
		}
		break;
	case 'D':
	case 'I':
	case 'Q':
	case 'B':
		if (pc) {
			fprintf(o, "%u ", r->bytes);
			if (pdu_len) {
				fputc('(', o);
				print_pdu(o, r->pdu, pdu_len);
				fputs(") ", o);
			}
			fprintf(o, "[%s]\n", name);
			break;
		}
		/* fall through */
	case 'M':
	case 'F':
	case 'G':
	case 'S':
		if (nsec)
			fprintf(o, "%" PRIu64 " + %u [%s]\n", r->sector, nsec, name);
		else
			fprintf(o, "[%s]\n", name);
		break;
	case 'P':
		fprintf(o, "[%s]\n", name);
		break;
	case 'U':
	case 'T':
		fprintf(o, "[%s] %u\n", name, (unsigned)r->pdu_u64);
		break;
	case 'A':
		fprintf(o, "%" PRIu64 " + %u <- (%d,%d) %" PRIu64 "\n", r->sector, nsec,
			(int)r->from_major, (int)r->from_minor, r->from_sector);
		break;
	case 'X':
		fprintf(o, "%" PRIu64 " / %u [%s]\n", r->sector, (unsigned)r->pdu_u64, name);
		break;
	default:
		fputc('\n', o);
		break;
	}
}

int trace_blkparse_writer_event(struct trace_blkparse_writer *w, const struct trace_rec *r,
				struct sim_error *err)
{
	struct bpw_dev *d = get_dev(w, r->dev_major, r->dev_minor);
	struct bpw_cpu *c = d ? get_cpu(d, r->cpu) : NULL;
	uint32_t seq;

	if (!d)
		return sim_errorf(err, SIM_E_NOMEM, "blkparse writer: out of memory");
	if (!c)
		return sim_errorf(err, r->cpu >= BPW_MAX_CPU ? SIM_E_INPUT : SIM_E_NOMEM,
				  "blkparse writer: cpu %u out of range (max %u)", r->cpu,
				  BPW_MAX_CPU - 1);
	if ((w->wflags & TRACE_BPW_NUMBER_SEQ) && !(r->tflags & TRACE_T_HAS_SEQ))
		seq = c->next_seq++;
	else
		seq = r->seq;

	/* Abort and driver-data records are counted but, as in blkparse 1.2.0,
	 * not printed; nor are passthrough actions dump_trace_pc does not know
	 * ("Bad pc action"). */
	bool shown = r->action != TRACE_A_ABORT && r->action != TRACE_A_DRV_DATA &&
		     r->action != TRACE_A_NONE;
	if ((r->tflags & TRACE_T_PC) && !strchr("QGSRDCI", r->act))
		shown = false;
	if (shown)
		print_event(w, r, seq);
	if (r->action != TRACE_A_MESSAGE) {
		account(d, &c->ios, r);
		/* check_sequence: a forward gap in a CPU's numbering is a skip. */
		if (!w->input_files && c->last_seq >= 0 && (int64_t)seq > c->last_seq + 1) {
			d->skips++;
			d->seq_skips += (uint64_t)((int64_t)seq - c->last_seq - 1);
		}
		c->last_seq = seq;
	}
	if (!d->events)
		d->first_time = r->time_ns;
	d->events++;
	d->last_time = r->time_ns;
	c->nelems++;
	if (ferror(w->out))
		return sim_errorf(err, SIM_E_IO, "blkparse writer: write failed: %s", strerror(errno));
	return 0;
}

/* ---- summary (blkparse.c show_device_and_cpu_stats) ------------------- */

/* size_cnv: at most 8 digits, scaling by 1000 with K M G P suffixes. */
static const char *size_cnv(char *dst, uint64_t num, int in_kb)
{
	static const char suff[] = { '\0', 'K', 'M', 'G', 'P' };
	unsigned i = in_kb ? 1 : 0;

	while (num > 1000 * 1000ULL && i < sizeof(suff) - 1) {
		i++;
		num /= 1000;
	}
	if (suff[i])
		sprintf(dst, "%8" PRIu64 "%c", num, suff[i]);
	else
		sprintf(dst, "%8" PRIu64, num);
	return dst;
}

static void dump_io_stats(FILE *o, const struct bpw_dev *d, const struct bpw_ios *s, const char *msg)
{
	char x[64], y[64];

	fprintf(o, "%s\n", msg);
	fprintf(o, " Reads Queued:    %s, %siB\t", size_cnv(x, s->qreads, 0),
		size_cnv(y, s->qread_kb + (s->qread_b >> 10), 1));
	fprintf(o, " Writes Queued:    %s, %siB\n", size_cnv(x, s->qwrites, 0),
		size_cnv(y, s->qwrite_kb + (s->qwrite_b >> 10), 1));
	fprintf(o, " Read Dispatches: %s, %siB\t", size_cnv(x, s->ireads, 0),
		size_cnv(y, s->iread_kb + (s->iread_b >> 10), 1));
	fprintf(o, " Write Dispatches: %s, %siB\n", size_cnv(x, s->iwrites, 0),
		size_cnv(y, s->iwrite_kb + (s->iwrite_b >> 10), 1));
	fprintf(o, " Reads Requeued:  %s\t\t", size_cnv(x, s->rrqueue, 0));
	fprintf(o, " Writes Requeued:  %s\n", size_cnv(x, s->wrqueue, 0));
	fprintf(o, " Reads Completed: %s, %siB\t", size_cnv(x, s->creads, 0),
		size_cnv(y, s->cread_kb + (s->cread_b >> 10), 1));
	fprintf(o, " Writes Completed: %s, %siB\n", size_cnv(x, s->cwrites, 0),
		size_cnv(y, s->cwrite_kb + (s->cwrite_b >> 10), 1));
	fprintf(o, " Read Merges:     %s, %siB\t", size_cnv(x, s->mreads, 0),
		size_cnv(y, s->mread_kb + (s->mread_b >> 10), 1));
	fprintf(o, " Write Merges:     %s, %siB\n", size_cnv(x, s->mwrites, 0),
		size_cnv(y, s->mwrite_kb + (s->mwrite_b >> 10), 1));
	if (d) {
		fprintf(o, " Read depth:      %8u%8c\t", d->max_depth[0], ' ');
		fprintf(o, " Write depth:      %8u\n", d->max_depth[1]);
	}
	if (s->qreads_pc || s->qwrites_pc || s->ireads_pc || s->iwrites_pc || s->rrqueue_pc ||
	    s->wrqueue_pc || s->creads_pc || s->cwrites_pc) {
		fprintf(o, " PC Reads Queued: %s, %siB\t", size_cnv(x, s->qreads_pc, 0),
			size_cnv(y, s->qread_kb_pc + (s->qread_b_pc >> 10), 1));
		fprintf(o, " PC Writes Queued: %s, %siB\n", size_cnv(x, s->qwrites_pc, 0),
			size_cnv(y, s->qwrite_kb_pc + (s->qwrite_b_pc >> 10), 1));
		fprintf(o, " PC Read Disp.:   %s, %siB\t", size_cnv(x, s->ireads_pc, 0),
			size_cnv(y, s->iread_kb_pc + (s->iread_b_pc >> 10), 1));
		fprintf(o, " PC Write Disp.:   %s, %siB\n", size_cnv(x, s->iwrites_pc, 0),
			size_cnv(y, s->iwrite_kb_pc + (s->iwrite_b_pc >> 10), 1));
		fprintf(o, " PC Reads Req.:   %s\t\t", size_cnv(x, s->rrqueue_pc, 0));
		fprintf(o, " PC Writes Req.:   %s\n", size_cnv(x, s->wrqueue_pc, 0));
		fprintf(o, " PC Reads Compl.: %s\t\t", size_cnv(x, s->creads_pc, 0));
		fprintf(o, " PC Writes Compl.: %s\n", size_cnv(x, s->cwrites_pc, 0));
	}
	fprintf(o, " IO unplugs:      %8" PRIu64 "%8c\t", s->io_unplugs, ' ');
	fprintf(o, " Timer unplugs:    %8" PRIu64 "\n", s->timer_unplugs);
}

static void add_ios(struct bpw_ios *t, const struct bpw_ios *s)
{
	/* The fields show_device_and_cpu_stats sums (not cread/cwrite _pc kb). */
	t->qreads += s->qreads; t->qwrites += s->qwrites;
	t->creads += s->creads; t->cwrites += s->cwrites;
	t->mreads += s->mreads; t->mwrites += s->mwrites;
	t->ireads += s->ireads; t->iwrites += s->iwrites;
	t->rrqueue += s->rrqueue; t->wrqueue += s->wrqueue;
	t->qread_kb += s->qread_kb; t->qwrite_kb += s->qwrite_kb;
	t->cread_kb += s->cread_kb; t->cwrite_kb += s->cwrite_kb;
	t->iread_kb += s->iread_kb; t->iwrite_kb += s->iwrite_kb;
	t->mread_kb += s->mread_kb; t->mwrite_kb += s->mwrite_kb;
	t->qread_b += s->qread_b; t->qwrite_b += s->qwrite_b;
	t->cread_b += s->cread_b; t->cwrite_b += s->cwrite_b;
	t->iread_b += s->iread_b; t->iwrite_b += s->iwrite_b;
	t->mread_b += s->mread_b; t->mwrite_b += s->mwrite_b;
	t->qreads_pc += s->qreads_pc; t->qwrites_pc += s->qwrites_pc;
	t->creads_pc += s->creads_pc; t->cwrites_pc += s->cwrites_pc;
	t->ireads_pc += s->ireads_pc; t->iwrites_pc += s->iwrites_pc;
	t->rrqueue_pc += s->rrqueue_pc; t->wrqueue_pc += s->wrqueue_pc;
	t->qread_kb_pc += s->qread_kb_pc; t->qwrite_kb_pc += s->qwrite_kb_pc;
	t->iread_kb_pc += s->iread_kb_pc; t->iwrite_kb_pc += s->iwrite_kb_pc;
	t->qread_b_pc += s->qread_b_pc; t->qwrite_b_pc += s->qwrite_b_pc;
	t->iread_b_pc += s->iread_b_pc; t->iwrite_b_pc += s->iwrite_b_pc;
	t->timer_unplugs += s->timer_unplugs; t->io_unplugs += s->io_unplugs;
}

int trace_blkparse_writer_finish(struct trace_blkparse_writer *w, struct sim_error *err)
{
	FILE *o = w->out;

	if (!(w->wflags & TRACE_BPW_NO_SUMMARY)) {
		for (uint32_t i = 0; i < w->ndevs; i++) {
			const struct bpw_dev *d = &w->devs[i];
			struct bpw_ios total;
			char line[320], name[260];
			int pci_events = 0;

			memset(&total, 0, sizeof(total));
			if (w->input_files)
				snprintf(name, sizeof(name), "%s", w->input);
			else
				snprintf(name, sizeof(name), "%u,%u", d->major, d->minor);
			if (i > 0)
				fputc('\n', o);
			for (uint32_t c = 0; c < d->ncpus; c++) {
				if (!d->cpus[c].nelems)
					continue;
				add_ios(&total, &d->cpus[c].ios);
				snprintf(line, sizeof(line), "CPU%u (%s):", c, name);
				dump_io_stats(o, d, &d->cpus[c].ios, line);
				pci_events++;
			}
			if (pci_events > 1) {
				fputc('\n', o);
				snprintf(line, sizeof(line), "Total (%s):", name);
				dump_io_stats(o, NULL, &total, line);
			}
			uint64_t rrate = 0, wrate = 0;
			/* unsigned like blkparse's __u64 times: defined for any pair */
			uint64_t msec = ((uint64_t)d->last_time - (uint64_t)d->first_time) / 1000000u;
			if (msec) {
				rrate = (1000 * total.cread_kb + total.cread_b) / msec;
				wrate = (1000 * total.cwrite_kb + total.cwrite_b) / msec;
			}
			fprintf(o, "\nThroughput (R/W): %" PRIu64 "KiB/s / %" PRIu64 "KiB/s\n", rrate, wrate);
			fprintf(o, "Events (%s): %" PRIu64 " entries\n", name, d->events);
			double ratio = 0.0;
			if (d->skips || d->events)
				ratio = 100.0 * ((double)d->seq_skips / (double)(d->events + d->seq_skips));
			fprintf(o, "Skips: %" PRIu64 " forward (%" PRIu64 " - %5.1lf%%)\n", d->skips,
				d->seq_skips, ratio);
		}
		for (uint32_t i = 0; i < w->input_files; i++)
			fprintf(o, "Input file %s.blktrace.%u added\n", w->input, i);
	}
	if (fflush(o) || ferror(o))
		return sim_errorf(err, SIM_E_IO, "blkparse writer: write failed: %s", strerror(errno));
	return 0;
}
