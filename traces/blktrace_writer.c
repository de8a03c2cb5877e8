/* blktrace binary writer: each event as the kernel's __blk_add_trace()
 * emits it (kernel/trace/blktrace.c, Linux 3.10; include/uapi/linux/
 * blktrace_api.h): a 48-byte struct blk_io_trace whose action carries the
 * action code in the low 16 bits and the categories in the high 16 (the
 * data direction of ddir_act[], SYNC/META/DISCARD/FLUSH/FUA from the
 * request flags, and the category of the action itself); unplugs carry
 * the depth as a big-endian 64-bit payload; a BLK_TN_PROCESS notify
 * record with the 16-byte comm names a pid before its first event, as
 * trace_note_tsk() does.
 */
#include "traces/blktrace_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "models/request.h"
#include "traces/trace_int.h"

#define BTW_MAGIC_VERSION 0x65617407u
#define BTW_COMM_LEN 16u
#define BTW_PIDS 4096u /* pids remembered as named; more are named again */

enum {
	BTW_TC_READ = 1 << 0, BTW_TC_WRITE = 1 << 1, BTW_TC_FLUSH = 1 << 2, BTW_TC_SYNC = 1 << 3,
	BTW_TC_QUEUE = 1 << 4, BTW_TC_REQUEUE = 1 << 5, BTW_TC_ISSUE = 1 << 6,
	BTW_TC_COMPLETE = 1 << 7, BTW_TC_FS = 1 << 8, BTW_TC_NOTIFY = 1 << 10,
	BTW_TC_AHEAD = 1 << 11, BTW_TC_META = 1 << 12, BTW_TC_DISCARD = 1 << 13,
	BTW_TC_FUA = 1 << 15,
};
#define BTW_TN_PROCESS 0u

struct trace_blktrace_writer {
	FILE *out;
	uint32_t sequence;
	int32_t named[BTW_PIDS]; /* direct-mapped cache of pids already named (+1) */
};

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* The category an action is traced under (BLK_TA_* in blktrace_api.h). */
static uint32_t action_category(uint16_t a)
{
	switch (a) {
	case TRACE_A_REQUEUE:
		return BTW_TC_REQUEUE;
	case TRACE_A_ISSUE:
		return BTW_TC_ISSUE;
	case TRACE_A_COMPLETE:
		return BTW_TC_COMPLETE;
	case TRACE_A_SPLIT:
	case TRACE_A_BOUNCE:
		return 0;
	default:
		return BTW_TC_QUEUE;
	}
}

static int emit(struct trace_blktrace_writer *w, const uint8_t *rec, const uint8_t *pdu,
		uint16_t pdu_len, struct sim_error *err)
{
	if (fwrite(rec, 1, 48, w->out) != 48 || (pdu_len && fwrite(pdu, 1, pdu_len, w->out) != pdu_len))
		return sim_errorf(err, SIM_E_IO, "write failed: %s", strerror(errno));
	return 0;
}

static void header(uint8_t *b, uint32_t seq, const struct trace_rec *rec, uint32_t action,
		   uint16_t pdu_len)
{
	memset(b, 0, 48);
	put32(b + 0, BTW_MAGIC_VERSION);
	put32(b + 4, seq);
	/* blkparse takes a zero genesis time for "not set yet" and would rebase
	 * its second batch of events; real traces never start at 0, so ours
	 * start at 1 ns (blkparse prints times relative to the first event). */
	put64(b + 8, (uint64_t)rec->time_ns + 1);
	put64(b + 16, rec->sector);
	put32(b + 24, rec->bytes);
	put32(b + 28, action);
	put32(b + 32, (uint32_t)rec->pid);
	put32(b + 36, (rec->dev_major << 20) | rec->dev_minor); /* kernel MKDEV, MINORBITS 20 */
	put32(b + 40, rec->cpu);
	put16(b + 44, (uint16_t)rec->error);
	put16(b + 46, pdu_len);
}

int trace_blktrace_writer_create(FILE *out, struct trace_blktrace_writer **w, struct sim_error *err)
{
	*w = calloc(1, sizeof(**w));
	if (!*w)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	(*w)->out = out;
	return 0;
}

int trace_blktrace_writer_event(struct trace_blktrace_writer *w, const struct trace_rec *rec,
				struct sim_error *err)
{
	uint8_t b[48];
	uint32_t slot = (uint32_t)rec->pid % BTW_PIDS;
	if (w->named[slot] != rec->pid + 1) {
		uint8_t comm[BTW_COMM_LEN] = { 0 };
		if (rec->comm)
			strncpy((char *)comm, rec->comm, BTW_COMM_LEN - 1);
		struct trace_rec note = *rec;
		note.sector = 0;
		note.bytes = 0;
		note.error = 0;
		header(b, 0, &note, ((uint32_t)BTW_TC_NOTIFY << 16) | BTW_TN_PROCESS, BTW_COMM_LEN);
		int rc = emit(w, b, comm, BTW_COMM_LEN, err);
		if (rc)
			return rc;
		w->named[slot] = rec->pid + 1;
	}

	uint32_t tc = action_category(rec->action);
	tc |= req_is_write(rec->flags) || rec->dir == TRACE_DIR_WRITE ? BTW_TC_WRITE : BTW_TC_READ;
	if (rec->dir == TRACE_DIR_DISCARD)
		tc |= BTW_TC_DISCARD;
	if (rec->flags & REQ_SYNC)
		tc |= BTW_TC_SYNC;
	if (rec->flags & REQ_META)
		tc |= BTW_TC_META;
	if (rec->flags & REQ_FLUSH)
		tc |= BTW_TC_FLUSH;
	if (rec->flags & REQ_FUA)
		tc |= BTW_TC_FUA;
	if (rec->flags & REQ_RAHEAD)
		tc |= BTW_TC_AHEAD;
	uint32_t action = (tc << 16) | rec->action;

	uint8_t pdu[8];
	uint16_t pdu_len = 0;
	if (rec->action == TRACE_A_UNPLUG_IO || rec->action == TRACE_A_UNPLUG_TIMER) {
		for (int i = 0; i < 8; i++)
			pdu[i] = (uint8_t)(rec->pdu_u64 >> (56 - 8 * i)); /* __be64 depth */
		pdu_len = 8;
	}
	header(b, ++w->sequence, rec, action, pdu_len);
	return emit(w, b, pdu, pdu_len, err);
}

int trace_blktrace_writer_finish(struct trace_blktrace_writer *w, struct sim_error *err)
{
	if (fflush(w->out) != 0)
		return sim_errorf(err, SIM_E_IO, "write failed: %s", strerror(errno));
	return 0;
}

void trace_blktrace_writer_destroy(struct trace_blktrace_writer *w)
{
	free(w);
}
