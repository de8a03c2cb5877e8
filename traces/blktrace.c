/* Reader of blktrace's binary output: struct blk_io_trace records (48 bytes
 * each, then pdu_len payload bytes), as written per CPU by blktrace
 * (NAME.blktrace.N) or as one combined stream by `blkparse -d`.
 *
 * Layout and codes: Linux include/uapi/linux/blktrace_api.h (magic
 * 0x65617400 | version 7; actions __BLK_TA_*, categories BLK_TC_* in the
 * upper 16 bits, notify records __BLK_TN_* under BLK_TC_NOTIFY). Behaviour
 * follows blktrace 1.2.0 blkparse.c: byte order detected from the first
 * magic; process-name notify records name a pid (the first name wins, as
 * in add_ppm_hash) and are not events; timestamp notifies are consumed;
 * message notifies become 'm' records; remap, unplug and split payloads
 * are big-endian whatever the record order (get_pdu_remap/get_pdu_int).
 *
 * Order: a per-CPU set is merged as blkparse's do_file merges its input
 * streams (ms_sort, ms_resort, ms_deq): a list of the CPU files ordered
 * by the time of each one's next event, built in CPU order; a file whose
 * next time equals another's goes after the head but before the others
 * of that time, and the head keeps printing while its next event is no
 * later than the second file's (so equal times of different CPUs come
 * out in that list's order, not by CPU number). A single file (a per-CPU file or a combined dump, which blkparse
 * writes sorted) is returned in file order. Times are made relative to the
 * first event returned (blkparse's genesis_time). Memory is a fixed buffer
 * per file and a fixed pid -> name table (BT_COMM_SLOTS; when full, new
 * names are dropped).
 *
 * Lenient where blkparse is: a last record cut short (blktrace killed) ends
 * that file with a warning, and a per-CPU set with a CPU file missing in
 * the middle is read from the files that exist, with a warning; both are
 * counted in the reader's diagnostics. opts->strict refuses both.
 *
 * Errors: "FILE: byte offset N: ..." (SIM_E_INPUT) for bad magic, an
 * unsupported version, a payload longer than BT_PDU_MAX, a pid above the
 * kernel's PID_MAX_LIMIT or a request whose end passes 2^64 sectors.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/block/request.h"
#include "traces/trace.h"
#include "traces/trace_int.h"

#define BT_MAGIC 0x65617400u
#define BT_VERSION 0x07u
#define BT_REC_BYTES 48u
/* Longest payload accepted: kernel payloads are at most a few dozen bytes
 * (remap 16, unplug/split 8, messages up to BLK_TN_MAX_MSG = 128, SCSI
 * CDBs); blkparse's dump_pdu buffer is 4096 characters. */
#define BT_PDU_MAX 1024u
#define BT_MAX_FILES 1024u
#define BT_MAX_CPU 4095u
#define BT_COMM_SLOTS 4096u
#define BT_COMM_LEN 16u
/* include/linux/threads.h PID_MAX_LIMIT on 64-bit kernels (4 * 1024 * 1024):
 * no task id is larger. */
#define BT_PID_MAX 4194304u
/* blkparse.c RB_BATCH_DEFAULT: events read per CPU file at a time. */
#define BT_BATCH 512u

/* Categories, BLK_TC_ACT(x) = x << 16. */
enum {
	BT_TC_READ = 1 << 0, BT_TC_WRITE = 1 << 1, BT_TC_FLUSH = 1 << 2, BT_TC_SYNC = 1 << 3,
	BT_TC_QUEUE = 1 << 4, BT_TC_REQUEUE = 1 << 5, BT_TC_ISSUE = 1 << 6,
	BT_TC_COMPLETE = 1 << 7, BT_TC_FS = 1 << 8, BT_TC_PC = 1 << 9, BT_TC_NOTIFY = 1 << 10,
	BT_TC_AHEAD = 1 << 11, BT_TC_META = 1 << 12, BT_TC_DISCARD = 1 << 13,
	BT_TC_DRV_DATA = 1 << 14, BT_TC_FUA = 1 << 15,
};
enum { BT_TN_PROCESS = 0, BT_TN_TIMESTAMP = 1, BT_TN_MESSAGE = 2 };
#define BT_TA_CGROUP (1u << 8)

struct bt_raw {
	uint32_t magic, sequence;
	uint64_t time, sector;
	uint32_t bytes, action, pid, device, cpu;
	uint16_t error, pdu_len;
};

struct bt_file {
	struct trace_src src;
	/* Per-CPU sets: a second reader of the same file runs one batch ahead
	 * and applies its process names, as blkparse's ms_prime does. */
	struct trace_src scout;
	bool scouting;
	uint32_t cpu;            /* the N of NAME.blktrace.N */
	uint32_t batch_left;     /* events of the current batch not yet returned */
	bool order_known, swap;
	bool have;              /* raw/pdu hold the file's next event */
	bool done;
	struct bt_raw raw;
	uint64_t raw_off;       /* byte offset of raw in the file */
	uint8_t pdu[BT_PDU_MAX];
};

struct bt_comm {
	int32_t pid;
	bool used;
	char comm[BT_COMM_LEN + 1];
};

struct bt_reader {
	uint32_t nfiles;
	struct bt_file *files;
	int32_t *next;          /* blkparse's ms_stream list: file after each, -1 at the end */
	int32_t head;           /* the file whose event prints next, -1 when none */
	int32_t refill;         /* file to advance before the next pop, or -1 */
	bool primed;
	bool genesis_set;
	uint64_t genesis;
	struct bt_comm *comms;  /* BT_COMM_SLOTS, open addressing */
	char comm_out[BT_COMM_LEN + 1];
	uint8_t pdu_out[BT_PDU_MAX];
	bool failed;
	bool strict;
	struct trace_diag *diag;
};

/* ---- decoding --------------------------------------------------------- */

static uint16_t ld16(const uint8_t *p, bool be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t ld32(const uint8_t *p, bool be)
{
	return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t ld64(const uint8_t *p, bool be)
{
	uint64_t a = ld32(p, be), b = ld32(p + 4, be);
	return be ? a << 32 | b : b << 32 | a;
}

static void decode_raw(const uint8_t *p, bool be, struct bt_raw *r)
{
	r->magic = ld32(p, be);
	r->sequence = ld32(p + 4, be);
	r->time = ld64(p + 8, be);
	r->sector = ld64(p + 16, be);
	r->bytes = ld32(p + 24, be);
	r->action = ld32(p + 28, be);
	r->pid = ld32(p + 32, be);
	r->device = ld32(p + 36, be);
	r->cpu = ld32(p + 40, be);
	r->error = ld16(p + 44, be);
	r->pdu_len = ld16(p + 46, be);
}

/* ---- pid -> name ------------------------------------------------------ */

static uint32_t comm_hash(int32_t pid)
{
	uint32_t h = (uint32_t)pid * 2654435761u;
	return h % BT_COMM_SLOTS;
}

static void comm_add(struct bt_reader *br, int32_t pid, const uint8_t *name, size_t len)
{
	uint32_t h = comm_hash(pid);

	for (uint32_t i = 0; i < BT_COMM_SLOTS; i++) {
		struct bt_comm *c = &br->comms[(h + i) % BT_COMM_SLOTS];
		if (c->used && c->pid == pid)
			return; /* blkparse keeps the first name it saw */
		if (!c->used) {
			size_t l = strnlen((const char *)name, len < BT_COMM_LEN ? len : BT_COMM_LEN - 1);
			c->used = true;
			c->pid = pid;
			memcpy(c->comm, name, l);
			c->comm[l] = '\0';
			return;
		}
	}
}

static const char *comm_find(const struct bt_reader *br, int32_t pid)
{
	uint32_t h = comm_hash(pid);

	for (uint32_t i = 0; i < BT_COMM_SLOTS; i++) {
		const struct bt_comm *c = &br->comms[(h + i) % BT_COMM_SLOTS];
		if (!c->used)
			return NULL;
		if (c->pid == pid)
			return c->comm;
	}
	return NULL;
}

/* ---- reading one file ------------------------------------------------- */

static bool is_notify_consumed(const struct bt_raw *r)
{
	if (!((r->action >> 16) & BT_TC_NOTIFY))
		return false;
	return (r->action & 0xff) != BT_TN_MESSAGE;
}

/* A record cut short by the end of the file: blktrace was stopped while
 * writing. blkparse reads the complete records before it; so do we, with a
 * warning, unless strict. Returns 0 (end of this file) or the error. */
static int bt_cut(struct bt_reader *br, struct bt_file *f, uint64_t off, uint64_t got,
		  uint32_t want, struct sim_error *err)
{
	if (br->strict)
		return sim_errorf(err, SIM_E_INPUT,
				  "%s: byte offset %llu: truncated record (%llu of %u bytes)",
				  f->src.name, (unsigned long long)off, (unsigned long long)got, want);
	if (br->diag) {
		br->diag->truncated_files++;
		br->diag->truncated_bytes += got;
	}
	trace_diag_note(br->diag, "%s: byte offset %llu: last record cut (%llu of %u bytes); skipped",
			f->src.name, (unsigned long long)off, (unsigned long long)got, want);
	f->src.pos = f->src.len;
	f->src.eof = true;
	return 0;
}

static void bt_prime(struct bt_reader *br, struct bt_file *f);

/* Read the next record of f into f->raw/f->pdu; notify records that are
 * not events are consumed here (as blkparse does at read time). Returns
 * 1, 0 at end of file, or an error. */
static int bt_file_read(struct bt_reader *br, struct bt_file *f, struct sim_error *err)
{
	for (;;) {
		uint64_t off = trace_src_offset(&f->src);
		long got = trace_src_fill(&f->src, BT_REC_BYTES, err);

		if (got < 0)
			return (int)got;
		if (got == 0)
			return 0;
		if (got < (long)BT_REC_BYTES)
			return bt_cut(br, f, off, (uint64_t)got, BT_REC_BYTES, err);
		const uint8_t *p = f->src.buf + f->src.pos;
		if (!f->order_known) {
			uint32_t le = ld32(p, false), be = ld32(p, true);
			if ((le & 0xffffff00u) == BT_MAGIC)
				f->swap = false;
			else if ((be & 0xffffff00u) == BT_MAGIC)
				f->swap = true;
			else
				return sim_errorf(err, SIM_E_INPUT,
						  "%s: byte offset %llu: bad magic 0x%08x (not a blktrace file)",
						  f->src.name, (unsigned long long)off, le);
			f->order_known = true;
		}
		struct bt_raw r;
		decode_raw(p, f->swap, &r);
		if ((r.magic & 0xffffff00u) != BT_MAGIC)
			return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %llu: bad magic 0x%08x",
					  f->src.name, (unsigned long long)off, r.magic);
		if ((r.magic & 0xff) != BT_VERSION)
			return sim_errorf(err, SIM_E_INPUT,
					  "%s: byte offset %llu: unsupported trace version %u (expected %u)",
					  f->src.name, (unsigned long long)off, r.magic & 0xff, BT_VERSION);
		if (r.pdu_len > BT_PDU_MAX)
			return sim_errorf(err, SIM_E_INPUT,
					  "%s: byte offset %llu: payload length %u too large (max %u)",
					  f->src.name, (unsigned long long)off, r.pdu_len, BT_PDU_MAX);
		if (r.cpu > BT_MAX_CPU)
			return sim_errorf(err, SIM_E_INPUT,
					  "%s: byte offset %llu: cpu %u out of range (max %u)",
					  f->src.name, (unsigned long long)off, r.cpu, BT_MAX_CPU);
		got = trace_src_fill(&f->src, BT_REC_BYTES + r.pdu_len, err);
		if (got < 0)
			return (int)got;
		if (got < (long)(BT_REC_BYTES + r.pdu_len))
			return bt_cut(br, f, off, (uint64_t)got, BT_REC_BYTES + r.pdu_len, err);
		if (!is_notify_consumed(&r) && !((r.action >> 16) & BT_TC_NOTIFY)) {
			if (r.pid > BT_PID_MAX)
				return sim_errorf(err, SIM_E_INPUT,
						  "%s: byte offset %llu: pid %u out of range (0..%u)",
						  f->src.name, (unsigned long long)off, r.pid, BT_PID_MAX);
			if (r.sector > UINT64_MAX - (r.bytes >> 9))
				return sim_errorf(err, SIM_E_INPUT,
						  "%s: byte offset %llu: sector %llu + %u sectors passes 2^64",
						  f->src.name, (unsigned long long)off,
						  (unsigned long long)r.sector, r.bytes >> 9);
		}
		p = f->src.buf + f->src.pos;
		const uint8_t *pdu = p + BT_REC_BYTES;
		f->src.pos += BT_REC_BYTES + r.pdu_len;

		if (is_notify_consumed(&r)) {
			if ((r.action & 0xff) == BT_TN_PROCESS && !f->scouting)
				comm_add(br, (int32_t)r.pid, pdu, r.pdu_len);
			/* BT_TN_TIMESTAMP gives the wall clock of the start; only
			 * blkparse's -z format prints it. Unknown notifies are
			 * ignored, as blkparse does. */
			continue;
		}
		if (f->scouting && r.cpu != f->cpu) {
			/* blkparse: "cpu N trace info has error cpu M", dropped */
			if (br->diag)
				br->diag->wrong_cpu++;
			if (f->batch_left && --f->batch_left == 0)
				bt_prime(br, f);
			continue;
		}
		f->raw = r;
		f->raw_off = off;
		if (r.pdu_len) /* most records carry none: no call for nothing */
			memcpy(f->pdu, pdu, r.pdu_len);
		return 1;
	}
}

/* Read the next batch of f's events ahead (ms_prime): process names in it
 * take effect now, before its first event is returned. Errors are left
 * for the main reader to report. */
static void bt_prime(struct bt_reader *br, struct bt_file *f)
{
	struct sim_error e;
	uint32_t n = 0, queued = 0;

	while (n < BT_BATCH) {
		long got = trace_src_fill(&f->scout, BT_REC_BYTES, &e);
		if (got < (long)BT_REC_BYTES)
			break;
		const uint8_t *p = f->scout.buf + f->scout.pos;
		bool be = (ld32(p, false) & 0xffffff00u) != BT_MAGIC;
		struct bt_raw r;
		decode_raw(p, be, &r);
		if ((r.magic & 0xffffff00u) != BT_MAGIC || (r.magic & 0xff) != BT_VERSION ||
		    r.pdu_len > BT_PDU_MAX)
			break;
		got = trace_src_fill(&f->scout, BT_REC_BYTES + r.pdu_len, &e);
		if (got < (long)(BT_REC_BYTES + r.pdu_len))
			break;
		p = f->scout.buf + f->scout.pos;
		f->scout.pos += BT_REC_BYTES + r.pdu_len;
		if (is_notify_consumed(&r)) {
			if ((r.action & 0xff) == BT_TN_PROCESS)
				comm_add(br, (int32_t)r.pid, p + BT_REC_BYTES, r.pdu_len);
			continue;
		}
		n++;
		if (r.cpu == f->cpu)
			queued++;
	}
	f->batch_left = n;
	(void)queued;
}

/* ---- stream list (blkparse.c ms_sort / ms_resort) -------------------- */

/* ms_sort: put file i (which has an event) in the list by that event's
 * time. Before the head only when strictly earlier; otherwise after the
 * last file that is strictly earlier, starting at the head -- so an
 * equal time goes after the head when the head ties, and before the other
 * files that tie. */
static void ms_insert(struct bt_reader *br, int32_t i)
{
	uint64_t t = br->files[i].raw.time;
	int32_t p = br->head;

	if (p < 0) {
		br->next[i] = -1;
		br->head = i;
		return;
	}
	if (t < br->files[p].raw.time) {
		br->next[i] = p;
		br->head = i;
		return;
	}
	while (br->next[p] >= 0 && br->files[br->next[p]].raw.time < t)
		p = br->next[p];
	br->next[i] = br->next[p];
	br->next[p] = i;
}

/* ms_resort: the head stays while its next event is no later than the
 * second file's; else it is taken out and put back by ms_insert. */
static void ms_resort(struct bt_reader *br)
{
	int32_t h = br->head, n = br->next[h];
	if (n >= 0 && br->files[h].raw.time > br->files[n].raw.time) {
		br->head = n;
		br->next[h] = -1;
		ms_insert(br, h);
	}
}

/* ---- conversion to the common record ---------------------------------- */

static uint64_t be64_at(const uint8_t *p) { return ld64(p, true); }

static void bt_convert(struct bt_reader *br, const struct bt_file *f, struct trace_rec *rec)
{
	const struct bt_raw *r = &f->raw;
	uint32_t tc = r->action >> 16;
	uint32_t low = r->action & 0xffff;
	const uint8_t *pdu = br->pdu_out;
	uint32_t pdu_len = r->pdu_len;

	if (r->pdu_len)
		memcpy(br->pdu_out, f->pdu, r->pdu_len);
	memset(rec, 0, sizeof(*rec));
	rec->kind = TRACE_REC_BLOCK;
	if (!br->genesis_set) {
		br->genesis_set = true;
		br->genesis = r->time;
	}
	rec->time_ns = (int64_t)(r->time - br->genesis);
	rec->cpu = r->cpu;
	rec->seq = r->sequence;
	rec->tflags = TRACE_T_HAS_SEQ;
	rec->pid = (int32_t)r->pid;
	rec->dev_major = r->device >> 20;
	rec->dev_minor = r->device & 0xfffff;
	rec->sector = r->sector;
	rec->bytes = r->bytes;
	rec->nr_sectors = r->bytes >> 9;
	rec->error = (int16_t)r->error;

	/* Cgroup-tagged records carry an 8-byte cgroup id before the payload. */
	if ((low & BT_TA_CGROUP) && pdu_len >= 8) {
		pdu += 8;
		pdu_len -= 8;
	}
	rec->pdu = pdu_len ? pdu : NULL;
	rec->pdu_len = pdu_len;

	if (tc & BT_TC_NOTIFY) {
		rec->action = TRACE_A_MESSAGE;
		rec->act = 'm';
		rec->dir = TRACE_DIR_NONE;
		rec->comm = NULL;
		return;
	}
	rec->action = (uint16_t)(low & 0xff);
	rec->act = trace_action_letter(rec->action);
	if (rec->action >= TRACE_A_NR_BLOCK) {
		rec->action = TRACE_A_NONE;
		rec->act = '?';
	}
	if (tc & BT_TC_DISCARD)
		rec->dir = TRACE_DIR_DISCARD;
	else if (tc & BT_TC_WRITE)
		rec->dir = TRACE_DIR_WRITE;
	else if (r->bytes)
		rec->dir = TRACE_DIR_READ;
	else
		rec->dir = TRACE_DIR_NONE;
	if (tc & (BT_TC_WRITE | BT_TC_DISCARD))
		rec->flags |= REQ_WRITE;
	if (tc & BT_TC_SYNC)
		rec->flags |= REQ_SYNC;
	if (tc & BT_TC_META)
		rec->flags |= REQ_META;
	if (tc & BT_TC_FUA)
		rec->flags |= REQ_FUA;
	if (tc & BT_TC_FLUSH)
		rec->flags |= REQ_FLUSH;
	if (tc & BT_TC_AHEAD)
		rec->flags |= REQ_RAHEAD;
	if (tc & BT_TC_PC)
		rec->tflags |= TRACE_T_PC;

	const char *name = comm_find(br, rec->pid);
	if (name) {
		memcpy(br->comm_out, name, sizeof(br->comm_out));
		rec->comm = br->comm_out;
	}

	switch (rec->action) {
	case TRACE_A_REMAP:
		/* struct blk_io_trace_remap { __be32 device_from, device_to; __be64 sector_from; } */
		if (pdu_len >= 16) {
			uint32_t from = ld32(pdu, true), to = ld32(pdu + 4, true);
			rec->from_major = from >> 20;
			rec->from_minor = from & 0xfffff;
			rec->from_sector = be64_at(pdu + 8);
			/* blkparse prints the remap under the target device. */
			rec->dev_major = to >> 20;
			rec->dev_minor = to & 0xfffff;
		}
		break;
	case TRACE_A_UNPLUG_IO:
	case TRACE_A_UNPLUG_TIMER:
	case TRACE_A_SPLIT:
		if (pdu_len >= 8)
			rec->pdu_u64 = be64_at(pdu);
		break;
	default:
		break;
	}
}

/* ---- ops -------------------------------------------------------------- */

static int bt_probe(const uint8_t *buf, size_t len)
{
	if (len < 4)
		return 0;
	uint32_t le = ld32(buf, false), be = ld32(buf, true);
	if ((le & 0xffffff00u) == BT_MAGIC || (be & 0xffffff00u) == BT_MAGIC)
		return 100;
	return 0;
}

static struct bt_reader *bt_alloc(uint32_t nfiles)
{
	struct bt_reader *br = calloc(1, sizeof(*br));
	if (!br)
		return NULL;
	br->files = calloc(nfiles, sizeof(*br->files));
	br->next = calloc(nfiles, sizeof(*br->next));
	br->head = -1;
	br->comms = calloc(BT_COMM_SLOTS, sizeof(*br->comms));
	if (!br->files || !br->next || !br->comms) {
		free(br->files);
		free(br->next);
		free(br->comms);
		free(br);
		return NULL;
	}
	for (uint32_t i = 0; i < nfiles; i++)
		br->files[i].src.fd = br->files[i].scout.fd = -1;
	br->refill = -1;
	return br;
}

static void bt_close(void *state)
{
	struct bt_reader *br = state;

	if (!br)
		return;
	for (uint32_t i = 0; i < br->nfiles; i++) {
		trace_src_close(&br->files[i].src);
		trace_src_close(&br->files[i].scout);
	}
	free(br->files);
	free(br->next);
	free(br->comms);
	free(br);
}

/* If path is BASE.blktrace.N (N all digits), copy BASE into base and
 * return true. */
static bool percpu_base(const char *path, char *base, size_t basesz)
{
	const char *tag = strstr(path, ".blktrace."), *last = NULL;

	while (tag) {
		last = tag;
		tag = strstr(tag + 1, ".blktrace.");
	}
	if (!last)
		return false;
	const char *num = last + strlen(".blktrace.");
	if (!*num)
		return false;
	for (const char *q = num; *q; q++)
		if (!isdigit((unsigned char)*q))
			return false;
	size_t bl = (size_t)(last - path);
	if (bl + 1 > basesz)
		return false;
	memcpy(base, path, bl);
	base[bl] = '\0';
	return true;
}

/* Which of BASE.blktrace.0 .. BT_MAX_FILES-1 exist: returns one past the
 * highest that does (0 if none) and the count of gaps below it. blkparse
 * 1.2.0 stops at the first missing CPU file; we read every file there is
 * and report the gaps. */
static uint32_t percpu_scan(const char *base, uint32_t *gaps, uint32_t *first_gap)
{
	char name[4200];
	struct stat st;
	uint32_t top = 0, have = 0;

	*first_gap = UINT32_MAX;
	for (uint32_t n = 0; n < BT_MAX_FILES; n++) {
		snprintf(name, sizeof(name), "%s.blktrace.%u", base, n);
		if (stat(name, &st) == 0) {
			top = n + 1;
			have++;
		}
	}
	*gaps = top - have;
	for (uint32_t n = 0; *gaps && n < top; n++) {
		snprintf(name, sizeof(name), "%s.blktrace.%u", base, n);
		if (stat(name, &st) < 0) {
			*first_gap = n;
			break;
		}
	}
	return top;
}

static void bt_setup(struct bt_reader *br, const struct trace_opts *opts)
{
	br->strict = opts && opts->strict;
	br->diag = opts ? opts->diag : NULL;
}

static int bt_open(const char *path, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	char base[4096];
	struct stat st;
	bool named = percpu_base(path, base, sizeof(base));
	bool exists = !strcmp(path, "-") || stat(path, &st) == 0;
	uint32_t top = 0, gaps = 0, first_gap = UINT32_MAX;

	*state = NULL;
	if (!exists && !named) {
		/* A base name: NAME.blktrace.0 ... */
		snprintf(base, sizeof(base), "%s", path);
		named = true;
	}
	if (named)
		top = percpu_scan(base, &gaps, &first_gap);
	if (!exists && !top)
		return sim_errorf(err, SIM_E_INPUT, "%s: %s", path, strerror(ENOENT));
	/* A single file: one not named like a set, or the only file of its set. */
	if (!named || top - gaps <= 1) {
		if (!exists)
			snprintf(base + strlen(base), sizeof(base) - strlen(base), ".blktrace.%u", top - 1);
		struct bt_reader *br = bt_alloc(1);
		if (!br)
			return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
		bt_setup(br, opts);
		br->nfiles = 1;
		int rc = trace_src_open(&br->files[0].src, exists ? path : base, TRACE_SRC_BUF, err);
		if (rc) {
			bt_close(br);
			return rc;
		}
		if (br->diag)
			br->diag->files = 1;
		if (named && gaps)
			trace_diag_note(br->diag, "%s.blktrace.%u: missing; read %s only", base, first_gap,
					br->files[0].src.name);
		*state = br;
		return 0;
	}
	if (gaps && opts && opts->strict)
		return sim_errorf(err, SIM_E_INPUT,
				  "%s.blktrace.%u: missing from the per-CPU set (%u of %u CPU files)",
				  base, first_gap, top - gaps, top);
	struct bt_reader *br = bt_alloc(top - gaps);
	if (!br)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	bt_setup(br, opts);
	for (uint32_t cpu = 0; cpu < top; cpu++) {
		char name[4200];
		snprintf(name, sizeof(name), "%s.blktrace.%u", base, cpu);
		if (stat(name, &st) < 0)
			continue;
		struct bt_file *f = &br->files[br->nfiles];
		int rc = trace_src_open(&f->src, name, TRACE_SRC_BUF / 4, err);
		if (!rc)
			rc = trace_src_open(&f->scout, name, TRACE_SRC_BUF / 4, err);
		if (rc) {
			trace_src_close(&f->src);
			bt_close(br);
			return rc;
		}
		f->cpu = cpu;
		f->scouting = true;
		br->nfiles++;
	}
	/* blkparse primes every CPU stream at the start, in CPU order. */
	for (uint32_t i = 0; i < br->nfiles; i++)
		bt_prime(br, &br->files[i]);
	if (br->diag) {
		br->diag->files = br->nfiles;
		br->diag->missing_files = gaps;
		size_t bl = strnlen(base, sizeof(br->diag->set_base) - 1);
		memcpy(br->diag->set_base, base, bl);
		br->diag->set_base[bl] = '\0';
	}
	if (gaps)
		trace_diag_note(br->diag, "%s.blktrace.%u: missing from the per-CPU set; read the other "
				"%u of %u CPU files (blkparse 1.2.0 stops at the gap)",
				base, first_gap, top - gaps, top);
	*state = br;
	return 0;
}

static int bt_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
		       void **state, struct sim_error *err)
{
	struct bt_reader *br = bt_alloc(1);
	if (!br)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", name);
	bt_setup(br, opts);
	br->nfiles = 1;
	trace_src_open_mem(&br->files[0].src, buf, len, name);
	*state = br;
	return 0;
}

static int bt_open_src(void *src, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	struct trace_src *s = src;
	struct bt_reader *br = bt_alloc(1);
	if (!br)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", s->name);
	bt_setup(br, opts);
	br->nfiles = 1;
	if (br->diag)
		br->diag->files = 1;
	/* A per-CPU file given by name: the whole set it belongs to. */
	char base[4096];
	uint32_t gaps, first_gap;
	if (s->is_regular && percpu_base(s->name, base, sizeof(base)) &&
	    percpu_scan(base, &gaps, &first_gap) - gaps > 1) {
		bt_close(br);
		char name[sizeof(s->name)];
		snprintf(name, sizeof(name), "%s", s->name);
		int rc = bt_open(name, opts, state, err);
		if (!rc)
			trace_src_close(s);
		return rc;
	}
	trace_src_move(&br->files[0].src, s);
	*state = br;
	return 0;
}

static int bt_advance(struct bt_reader *br, uint32_t i, struct sim_error *err)
{
	struct bt_file *f = &br->files[i];
	int rc = bt_file_read(br, f, err);

	if (rc < 0)
		return rc;
	f->have = rc == 1;
	f->done = rc == 0;
	return 0;
}

static int bt_next(void *state, struct trace_rec *rec, struct sim_error *err)
{
	struct bt_reader *br = state;
	int rc;

	if (br->failed)
		return sim_errorf(err, SIM_E_INPUT, "%s: read after an error", br->files[0].src.name);
	if (!br->primed) {
		br->primed = true;
		for (uint32_t i = 0; i < br->nfiles; i++) {
			rc = bt_advance(br, i, err);
			if (rc < 0)
				goto fail;
			if (br->files[i].have)
				ms_insert(br, (int32_t)i);
		}
	} else if (br->refill >= 0) {
		uint32_t i = (uint32_t)br->refill;
		br->refill = -1;
		rc = bt_advance(br, i, err);
		if (rc < 0)
			goto fail;
		if (br->files[i].have) {
			ms_resort(br);
		} else {
			br->head = br->next[i]; /* ms_deq: the file is done */
			br->next[i] = -1;
		}
	}
	if (br->head < 0)
		return 0;
	uint32_t top = (uint32_t)br->head;
	struct bt_file *f = &br->files[top];
	bt_convert(br, f, rec);
	br->refill = (int32_t)top;
	/* The batch is used up: blkparse reads the next one (and its names)
	 * now, after this event is out. */
	if (f->scouting && f->batch_left && --f->batch_left == 0)
		bt_prime(br, f);
	return 1;
fail:
	br->failed = true;
	return rc;
}

const struct trace_reader_ops trace_blktrace_ops = {
	.name = "blktrace",
	.summary = "blktrace binary (struct blk_io_trace v7, either byte order; per-CPU sets merged)",
	.cpus = true,
	.identity = TRACE_ID_PID | TRACE_ID_COMM,
	.probe = bt_probe,
	.open = bt_open,
	.open_mem = bt_open_mem,
	.open_src = bt_open_src,
	.next = bt_next,
	.close = bt_close,
};
