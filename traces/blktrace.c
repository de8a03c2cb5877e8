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
 * Order: a per-CPU set is merged by (time, CPU file) with a heap over its
 * files; a single file (a per-CPU file or a combined dump, which blkparse
 * writes sorted) is returned in file order. Times are made relative to the
 * first event returned (blkparse's genesis_time). Memory is a fixed buffer
 * per file and a fixed pid -> name table (BT_COMM_SLOTS; when full, new
 * names are dropped).
 *
 * Errors: "FILE: byte offset N: ..." (SIM_E_INPUT) for a truncated record,
 * bad magic, unsupported version or a payload longer than BT_PDU_MAX.
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
	uint32_t *heap;         /* file indexes ordered by (raw.time, index) */
	uint32_t nheap;
	int32_t refill;         /* file to advance before the next pop, or -1 */
	bool primed;
	bool genesis_set;
	uint64_t genesis;
	struct bt_comm *comms;  /* BT_COMM_SLOTS, open addressing */
	char comm_out[BT_COMM_LEN + 1];
	uint8_t pdu_out[BT_PDU_MAX];
	bool failed;
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
			return sim_errorf(err, SIM_E_INPUT,
					  "%s: byte offset %llu: truncated record (%ld of %u bytes)",
					  f->src.name, (unsigned long long)off, got, BT_REC_BYTES);
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
			return sim_errorf(err, SIM_E_INPUT,
					  "%s: byte offset %llu: truncated record (payload of %u bytes, %ld left)",
					  f->src.name, (unsigned long long)off, r.pdu_len,
					  got - (long)BT_REC_BYTES);
		p = f->src.buf + f->src.pos;
		const uint8_t *pdu = p + BT_REC_BYTES;
		f->src.pos += BT_REC_BYTES + r.pdu_len;

		if (is_notify_consumed(&r)) {
			if ((r.action & 0xff) == BT_TN_PROCESS)
				comm_add(br, (int32_t)r.pid, pdu, r.pdu_len);
			/* BT_TN_TIMESTAMP gives the wall clock of the start; only
			 * blkparse's -z format prints it. Unknown notifies are
			 * ignored, as blkparse does. */
			continue;
		}
		f->raw = r;
		f->raw_off = off;
		memcpy(f->pdu, pdu, r.pdu_len);
		return 1;
	}
}

/* ---- merge heap ------------------------------------------------------- */

static bool heap_less(const struct bt_reader *br, uint32_t a, uint32_t b)
{
	const struct bt_raw *x = &br->files[a].raw, *y = &br->files[b].raw;
	if (x->time != y->time)
		return x->time < y->time;
	return a < b;
}

static void heap_down(struct bt_reader *br, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < br->nheap && heap_less(br, br->heap[l], br->heap[m]))
			m = l;
		if (r < br->nheap && heap_less(br, br->heap[r], br->heap[m]))
			m = r;
		if (m == i)
			return;
		uint32_t t = br->heap[i];
		br->heap[i] = br->heap[m];
		br->heap[m] = t;
		i = m;
	}
}

static void heap_up(struct bt_reader *br, uint32_t i)
{
	while (i) {
		uint32_t p = (i - 1) / 2;
		if (!heap_less(br, br->heap[i], br->heap[p]))
			return;
		uint32_t t = br->heap[i];
		br->heap[i] = br->heap[p];
		br->heap[p] = t;
		i = p;
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
	br->heap = calloc(nfiles, sizeof(*br->heap));
	br->comms = calloc(BT_COMM_SLOTS, sizeof(*br->comms));
	if (!br->files || !br->heap || !br->comms) {
		free(br->files);
		free(br->heap);
		free(br->comms);
		free(br);
		return NULL;
	}
	for (uint32_t i = 0; i < nfiles; i++)
		br->files[i].src.fd = -1;
	br->refill = -1;
	return br;
}

static void bt_close(void *state)
{
	struct bt_reader *br = state;

	if (!br)
		return;
	for (uint32_t i = 0; i < br->nfiles; i++)
		trace_src_close(&br->files[i].src);
	free(br->files);
	free(br->heap);
	free(br->comms);
	free(br);
}

/* If path is BASE.blktrace.N, the number of consecutive files
 * BASE.blktrace.0, 1, ... that exist (as blkparse's setup_file loop);
 * 0 if path is not named that way or is not among them. */
static uint32_t percpu_count(const char *path, char *base, size_t basesz)
{
	const char *tag = strstr(path, ".blktrace.");
	const char *last = NULL;
	struct stat st;
	char name[4200];
	uint32_t n = 0;
	bool found = false;

	while (tag) {
		last = tag;
		tag = strstr(tag + 1, ".blktrace.");
	}
	if (!last)
		return 0;
	const char *num = last + strlen(".blktrace.");
	if (!*num)
		return 0;
	for (const char *q = num; *q; q++)
		if (!isdigit((unsigned char)*q))
			return 0;
	size_t bl = (size_t)(last - path);
	if (bl + 1 > basesz)
		return 0;
	memcpy(base, path, bl);
	base[bl] = '\0';
	for (n = 0; n < BT_MAX_FILES; n++) {
		snprintf(name, sizeof(name), "%s.blktrace.%u", base, n);
		if (stat(name, &st) < 0)
			break;
		if (!strcmp(name, path))
			found = true;
	}
	return found ? n : 0;
}

static int bt_open(const char *path, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	char base[4096];
	struct stat st;
	uint32_t n = percpu_count(path, base, sizeof(base));
	bool set = n > 1;

	(void)opts;
	*state = NULL;
	if (!n && stat(path, &st) < 0) {
		/* A base name: NAME.blktrace.0 ... */
		char first[4200];
		snprintf(first, sizeof(first), "%s.blktrace.0", path);
		if (stat(first, &st) == 0) {
			n = percpu_count(first, base, sizeof(base));
			set = n > 0;
		}
		if (!n)
			return sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(ENOENT));
	}
	if (!set)
		n = 1;
	struct bt_reader *br = bt_alloc(n);
	if (!br)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	br->nfiles = n;
	for (uint32_t i = 0; i < n; i++) {
		char name[4200];
		if (set)
			snprintf(name, sizeof(name), "%s.blktrace.%u", base, i);
		else
			snprintf(name, sizeof(name), "%s", path);
		int rc = trace_src_open(&br->files[i].src, name,
					n > 1 ? TRACE_SRC_BUF / 4 : TRACE_SRC_BUF, err);
		if (rc) {
			bt_close(br);
			return rc;
		}
	}
	*state = br;
	return 0;
}

static int bt_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
		       void **state, struct sim_error *err)
{
	(void)opts;
	struct bt_reader *br = bt_alloc(1);
	if (!br)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", name);
	br->nfiles = 1;
	trace_src_open_mem(&br->files[0].src, buf, len, name);
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
			if (br->files[i].have) {
				br->heap[br->nheap++] = i;
				heap_up(br, br->nheap - 1);
			}
		}
	} else if (br->refill >= 0) {
		uint32_t i = (uint32_t)br->refill;
		br->refill = -1;
		rc = bt_advance(br, i, err);
		if (rc < 0)
			goto fail;
		if (br->files[i].have) {
			br->heap[0] = i;
			heap_down(br, 0);
		} else {
			br->heap[0] = br->heap[--br->nheap];
			if (br->nheap)
				heap_down(br, 0);
		}
	}
	if (!br->nheap)
		return 0;
	uint32_t top = br->heap[0];
	bt_convert(br, &br->files[top], rec);
	br->refill = (int32_t)top;
	return 1;
fail:
	br->failed = true;
	return rc;
}

const struct trace_reader_ops trace_blktrace_ops = {
	.name = "blktrace",
	.summary = "blktrace binary (struct blk_io_trace v7, either byte order; per-CPU sets merged)",
	.probe = bt_probe,
	.open = bt_open,
	.open_mem = bt_open_mem,
	.next = bt_next,
	.close = bt_close,
};
