/* blktrace binary writer: records as struct blk_io_trace version 7 (the
 * layout of Linux include/uapi/linux/blktrace_api.h), little-endian, one
 * combined stream like `blkparse -d` writes, so that btt, blkparse and
 * iowatcher read it (`btt -i FILE`, `blkparse -i - < FILE`).
 *
 * Action words follow what 3.x-4.x kernels emit (kernel/trace/blktrace.c
 * __blk_add_trace): the action code, its category (QUEUE for Q M F G S P U
 * T I A, REQUEUE, ISSUE, COMPLETE), the direction category (READ or WRITE,
 * DISCARD), SYNC/META/FUA/FLUSH/AHEAD from the request flags, and FS on
 * request events (D C R) as in the recorded sample. Payloads: remap
 * (struct blk_io_trace_remap, big-endian), unplug depth and split sector
 * (__be64), message text (BLK_TN_MESSAGE), passthrough CDB. A process
 * notify record (BLK_TN_PROCESS) precedes the first event of each named
 * pid; the table of named pids is fixed (4096; beyond it names repeat).
 */
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "models/block/request.h"
#include "traces/trace.h"

#define BTW_PIDS 4096u
#define BTW_MAX_CPU 4096u
#define BTW_TIME_BASE_NS 1000000000ull

enum {
	BTW_TC_READ = 1 << 0, BTW_TC_WRITE = 1 << 1, BTW_TC_FLUSH = 1 << 2, BTW_TC_SYNC = 1 << 3,
	BTW_TC_QUEUE = 1 << 4, BTW_TC_REQUEUE = 1 << 5, BTW_TC_ISSUE = 1 << 6,
	BTW_TC_COMPLETE = 1 << 7, BTW_TC_FS = 1 << 8, BTW_TC_PC = 1 << 9, BTW_TC_NOTIFY = 1 << 10,
	BTW_TC_AHEAD = 1 << 11, BTW_TC_META = 1 << 12, BTW_TC_DISCARD = 1 << 13, BTW_TC_FUA = 1 << 15,
};

struct trace_blktrace_writer {
	FILE *out;
	int32_t *pids;          /* open addressing; 0 = empty slot (pid 0 kept apart) */
	bool pid0_named;
	uint32_t npids;
	uint32_t *next_seq;     /* per CPU, for records without TRACE_T_HAS_SEQ */
};

int trace_blktrace_writer_create(FILE *out, struct trace_blktrace_writer **w, struct sim_error *err)
{
	struct trace_blktrace_writer *x = calloc(1, sizeof(*x));

	if (x) {
		x->pids = calloc(BTW_PIDS, sizeof(*x->pids));
		x->next_seq = calloc(BTW_MAX_CPU, sizeof(*x->next_seq));
	}
	if (!x || !x->pids || !x->next_seq) {
		trace_blktrace_writer_destroy(x);
		return sim_errorf(err, SIM_E_NOMEM, "blktrace writer: out of memory");
	}
	x->out = out;
	*w = x;
	return 0;
}

void trace_blktrace_writer_destroy(struct trace_blktrace_writer *w)
{
	if (!w)
		return;
	free(w->pids);
	free(w->next_seq);
	free(w);
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[3 - i] = (uint8_t)(v >> (8 * i));
}

static void be64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[7 - i] = (uint8_t)(v >> (8 * i));
}

static void put_rec(FILE *o, uint32_t seq, uint64_t t, uint64_t sector, uint32_t bytes, uint32_t action,
		    uint32_t pid, uint32_t dev, uint32_t cpu, uint16_t error, const void *pdu,
		    uint16_t pdu_len)
{
	uint8_t h[48];

	le32(h, 0x65617407u);
	le32(h + 4, seq);
	le64(h + 8, t);
	le64(h + 16, sector);
	le32(h + 24, bytes);
	le32(h + 28, action);
	le32(h + 32, pid);
	le32(h + 36, dev);
	le32(h + 40, cpu);
	h[44] = (uint8_t)error;
	h[45] = (uint8_t)(error >> 8);
	h[46] = (uint8_t)pdu_len;
	h[47] = (uint8_t)(pdu_len >> 8);
	fwrite(h, 1, sizeof(h), o);
	if (pdu_len)
		fwrite(pdu, 1, pdu_len, o);
}

/* True the first time pid is seen (while the table has room). */
static bool pid_first(struct trace_blktrace_writer *w, int32_t pid)
{
	if (pid == 0) {
		bool first = !w->pid0_named;
		w->pid0_named = true;
		return first;
	}
	uint32_t h = ((uint32_t)pid * 2654435761u) % BTW_PIDS;
	for (uint32_t i = 0; i < BTW_PIDS; i++) {
		int32_t *s = &w->pids[(h + i) % BTW_PIDS];
		if (*s == pid)
			return false;
		if (*s == 0) {
			if (w->npids + 1 >= BTW_PIDS)
				return true; /* full: name it again, never lose a name */
			*s = pid;
			w->npids++;
			return true;
		}
	}
	return true;
}

static uint32_t action_category(uint16_t action)
{
	switch (action) {
	case TRACE_A_QUEUE: case TRACE_A_BACKMERGE: case TRACE_A_FRONTMERGE: case TRACE_A_GETRQ:
	case TRACE_A_SLEEPRQ: case TRACE_A_PLUG: case TRACE_A_UNPLUG_IO: case TRACE_A_UNPLUG_TIMER:
	case TRACE_A_INSERT: case TRACE_A_REMAP: case TRACE_A_ABORT:
		return BTW_TC_QUEUE;
	case TRACE_A_REQUEUE:
		return BTW_TC_REQUEUE | BTW_TC_FS;
	case TRACE_A_ISSUE:
		return BTW_TC_ISSUE | BTW_TC_FS;
	case TRACE_A_COMPLETE:
		return BTW_TC_COMPLETE | BTW_TC_FS;
	default:
		return 0;
	}
}

int trace_blktrace_writer_event(struct trace_blktrace_writer *w, const struct trace_rec *r,
				struct sim_error *err)
{
	uint32_t dev = r->dev_major << 20 | (r->dev_minor & 0xfffff);
	/* blkparse treats a first timestamp of 0 as "genesis not found yet"
	 * and re-bases every batch; kernel clocks never read 0, so shift all
	 * times by a constant it subtracts again. */
	uint64_t t = BTW_TIME_BASE_NS + (r->time_ns > 0 ? (uint64_t)r->time_ns : 0);
	uint8_t pdu[16];
	uint32_t seq;

	if (r->cpu >= BTW_MAX_CPU)
		return sim_errorf(err, SIM_E_INPUT, "blktrace writer: cpu %u out of range (max %u)", r->cpu,
				  BTW_MAX_CPU - 1);
	if (r->action == TRACE_A_MESSAGE) {
		uint16_t l = (uint16_t)(r->pdu_len > 0xffff ? 0xffff : r->pdu_len);
		put_rec(w->out, 0, t, 0, 0, (uint32_t)BTW_TC_NOTIFY << 16 | 2, 0, dev, r->cpu, 0, r->pdu, l);
		goto out;
	}
	if (r->comm && pid_first(w, r->pid)) {
		char name[16] = { 0 };
		strncpy(name, r->comm, sizeof(name) - 1);
		put_rec(w->out, 0, t, 0, 0, (uint32_t)BTW_TC_NOTIFY << 16 | 0, (uint32_t)r->pid, dev, r->cpu,
			0, name, sizeof(name));
	}
	seq = (r->tflags & TRACE_T_HAS_SEQ) ? r->seq : ++w->next_seq[r->cpu];

	uint32_t tc = action_category(r->action);
	if (r->dir == TRACE_DIR_DISCARD)
		tc |= BTW_TC_DISCARD;
	/* ddir_act[]: everything that is not a write carries READ, plug
	 * events included (as in the recorded sample). */
	if ((r->flags & REQ_WRITE) || r->dir == TRACE_DIR_WRITE)
		tc |= BTW_TC_WRITE;
	else
		tc |= BTW_TC_READ;
	if (r->flags & REQ_SYNC)
		tc |= BTW_TC_SYNC;
	if (r->flags & REQ_META)
		tc |= BTW_TC_META;
	if (r->flags & REQ_FUA)
		tc |= BTW_TC_FUA;
	if (r->flags & REQ_FLUSH)
		tc |= BTW_TC_FLUSH;
	if (r->flags & REQ_RAHEAD)
		tc |= BTW_TC_AHEAD;
	if (r->tflags & TRACE_T_PC)
		tc |= BTW_TC_PC;

	const void *p = NULL;
	uint16_t plen = 0;
	switch (r->action) {
	case TRACE_A_REMAP:
		be32(pdu, r->from_major << 20 | (r->from_minor & 0xfffff));
		be32(pdu + 4, dev);
		be64(pdu + 8, r->from_sector);
		p = pdu;
		plen = 16;
		break;
	case TRACE_A_UNPLUG_IO:
	case TRACE_A_UNPLUG_TIMER:
	case TRACE_A_SPLIT:
		be64(pdu, r->pdu_u64);
		p = pdu;
		plen = 8;
		break;
	default:
		if ((r->tflags & TRACE_T_PC) && r->pdu_len) {
			p = r->pdu;
			plen = (uint16_t)(r->pdu_len > 1024 ? 1024 : r->pdu_len);
		}
		break;
	}
	put_rec(w->out, seq, t, r->sector, r->bytes, tc << 16 | r->action, (uint32_t)r->pid, dev,
		r->cpu, (uint16_t)r->error, p, plen);
out:
	if (ferror(w->out))
		return sim_errorf(err, SIM_E_IO, "blktrace writer: write failed: %s", strerror(errno));
	return 0;
}

int trace_blktrace_writer_finish(struct trace_blktrace_writer *w, struct sim_error *err)
{
	if (fflush(w->out) || ferror(w->out))
		return sim_errorf(err, SIM_E_IO, "blktrace writer: write failed: %s", strerror(errno));
	return 0;
}
