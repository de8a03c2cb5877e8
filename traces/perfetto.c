/* Reader of Perfetto traces (the Android system tracer since Android 9):
 * a protobuf `Trace`, i.e. a run of `TracePacket`s each framed as field 1,
 * length-delimited. Decoded with traces/protowire.c over this subset of
 * perfetto's protos (field numbers from protos/perfetto/trace/...):
 *
 *   trace_packet.proto  TracePacket: ftrace_events 1, process_tree 2,
 *     trusted_uid 3, timestamp 8, trusted_packet_sequence_id 10,
 *     track_event 11, interned_data 12, sequence_flags 13 (1 = incremental
 *     state cleared), packages_list 47, compressed_packets 50,
 *     track_descriptor 60.
 *   ftrace/ftrace_event_bundle.proto  FtraceEventBundle: cpu 1, event 2,
 *     lost_events 3, compact_sched 4; CompactSched: switch_timestamp 1
 *     (first absolute, then deltas), switch_prev_state 2, switch_next_pid 3,
 *     switch_next_prio 4, intern_table 5, switch_next_comm_index 6,
 *     waking_timestamp 7, waking_pid 8, waking_target_cpu 9, waking_prio 10,
 *     waking_comm_index 11 (all packed varints).
 *   ftrace/ftrace_event.proto  FtraceEvent: timestamp 1, pid 2, then one of
 *     print 3, sched_switch 4, sched_wakeup 17, sched_waking 20,
 *     ext4_* 41-44 134-219 230-234, block_rq_issue 45, sched_wakeup_new 114,
 *     block_bio_backmerge 115, block_bio_complete 117, block_bio_frontmerge
 *     118, block_bio_queue 119, block_bio_remap 120, block_getrq 122,
 *     block_plug 123, block_rq_abort 124, block_rq_complete 125,
 *     block_rq_insert 126, block_rq_remap 128, block_rq_requeue 129,
 *     block_sleeprq 130, block_split 131, block_unplug 133, f2fs_* 243-273
 *     419-420, android_fs_dataread_start 432, android_fs_datawrite_start
 *     434, android_fs_fsync_start 436 (any other id is counted by number).
 *   ftrace/android_fs.proto  AndroidFsData{read,write}StartFtraceEvent:
 *     bytes 1, cmdline 2, i_size 3, ino 4, offset 5, pathbuf 6, pid 7;
 *     AndroidFsFsyncStartFtraceEvent: cmdline 1, i_size 2, ino 3, pathbuf 4,
 *     pid 5 (the kernel's include/trace/events/android_fs_template.h).
 *   ftrace/block.proto  Block*FtraceEvent: dev 1 (kernel dev_t, major << 20
 *     | minor), sector 2, nr_sector 3, then bytes 4 / rwbs 5 / comm 6
 *     (rq_issue, rq_insert), errors 4 / rwbs 5 / error 7 (rq_complete,
 *     rq_requeue), rwbs 4 / comm 5 (bio_*, getrq, sleeprq), new_sector 3
 *     (split), old_dev 4 / old_sector 5 (remaps), comm 1 (plug), nr_rq 1
 *     (unplug).
 *   ftrace/ftrace.proto  PrintFtraceEvent: buf 2 (atrace "B|pid|name",
 *     "E|pid", "S|pid|name|cookie", "F|pid|name|cookie", "C|...").
 *   ftrace/sched.proto  SchedSwitch: prev_comm 1, prev_pid 2, next_comm 5,
 *     next_pid 6; SchedWakeup / SchedWaking / SchedWakeupNew: comm 1, pid 2.
 *   ps/process_tree.proto  ProcessTree: processes 1 {pid 1, cmdline 3, uid
 *     5}, threads 2 {tid 1, name 2, tgid 3}.
 *   android/packages_list.proto  PackagesList: packages 1 {name 1, uid 2}.
 *   ps/process_stats.proto  ProcessStats (TracePacket process_stats 9):
 *     processes 1 {pid 1, oom_score_adj 10}; ftrace/oom.proto
 *     OomScoreAdjUpdateFtraceEvent (FtraceEvent 326): comm 1,
 *     oom_score_adj 2, pid 3. A block event of a process whose adj is 0
 *     (FOREGROUND_APP_ADJ, the top app) is marked TRACE_T_FG.
 *   track_event/track_event.proto  TrackEvent: type 9 (1 slice begin, 2
 *     slice end, 3 instant), name_iid 10, track_uuid 11, name 23;
 *     TrackDescriptor: uuid 1, process 3 {pid 1}, thread 4 {pid 1, tid 2};
 *     InternedData: event_names 2 {iid 1, name 2}.
 *
 * Records: the block events become trace.h records (Q M F G S R D C P U I
 * X A); block_bio_complete is counted, not returned (it would count C
 * twice, as in the ftrace text reader). atrace B/E and S/F prints and
 * track-event slices are paired into regions (traces/ftrace.h), names of
 * threads come from process_tree, sched_switch/waking and compact sched,
 * and uids name their packages; `trace stat` shows these counts. Bundles
 * of different CPUs overlap in time, so events pass through a reorder
 * window of PF_WINDOW events; one that still comes out of order is counted.
 * Times are the ftrace clock's (boot time on Android), relative to the
 * first event; clock snapshots are not applied.
 *
 * Bad input: a top-level field that is not a packet, or a packet longer
 * than PF_PACKET_MAX, is an error at its byte offset; a last packet cut
 * short, a malformed message inside a packet (the rest of that packet is
 * skipped) and deflate-compressed packets are skipped with a warning and
 * counted, refused under strict. Memory: the packet buffer, the reorder
 * window and fixed name tables (PF_THREADS, PF_PACKAGES, PF_TRACKS,
 * PF_INTERNED entries; more are counted, not kept).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "models/block/request.h"
#include "traces/ftrace.h"
#include "traces/protowire.h"
#include "traces/trace.h"
#include "traces/trace_int.h"

#define PF_PACKET_MAX (8u << 20)
#define PF_WINDOW 4096u
#define PF_THREADS_BITS 14
#define PF_THREADS (1u << PF_THREADS_BITS)  /* Android's default pid_max is 32768 */
#define PF_PACKAGES 4096u
#define PF_TRACKS 4096u
#define PF_INTERNED_BITS 11
#define PF_INTERNED (1u << PF_INTERNED_BITS)
#define PF_INTERN_TABLE 4096u
#define PF_IDS 1024u
#define PF_COMM 16
/* ActivityManager's ProcessList.FOREGROUND_APP_ADJ: the process of the app
 * on top (frameworks/base services/core/java/com/android/server/am/
 * ProcessList.java); visible apps are 100, services 500 and more. */
#define PF_FOREGROUND_APP_ADJ 0
#define PF_PATH 256   /* MAX_TRACE_PATHBUF_LEN of the android_fs tracepoints */

struct pf_thread {
	int32_t tid, tgid;
	int64_t uid;                 /* -1 unknown */
	int32_t oom_adj;             /* the process's oom_score_adj (oom_known) */
	bool oom_known;
	bool used;
	char comm[PF_COMM];
};

struct pf_package {
	uint64_t uid;
	char name[96];
};

struct pf_track {
	uint64_t uuid;
	int32_t pid, tid;
	bool used;
};

struct pf_interned {
	uint32_t seq;
	uint64_t iid;
	bool used;
	char name[FTRACE_NAME_MAX];
};

enum pf_kind { PF_BLOCK, PF_MARK, PF_FILE };

struct pf_item {
	int64_t t;
	uint64_t order;              /* ties: input order, for determinism */
	uint8_t kind;
	struct trace_rec r;
	char comm[PF_COMM];
	char mtype;                  /* B E S F */
	int32_t mpid, mtid;
	int64_t mvalue;
	char mname[FTRACE_NAME_MAX];
	char path[PF_PATH];          /* PF_FILE */
};

struct pf_stats {
	uint64_t packets, bundles, ftrace_events, by_id[PF_IDS], other_ids;
	uint64_t lost_bundles, compact_switch, compact_waking;
	uint64_t packet_fields[PF_IDS];
	uint64_t track_events, slices_begin, slices_end, marks, counters;
	uint64_t threads, thread_overflow, packages, package_overflow, processes_with_uid;
	uint64_t oom_updates, block_fg_known, block_fg;
	uint64_t block_returned, bio_complete, late, warnings, compressed;
	uint64_t regions, region_ns;
	uint64_t file_returned, file_no_path;
};

struct pf_reader {
	struct trace_src src;
	bool strict, failed, eof, file_events;
	struct trace_diag *diag;
	/* the packet being decoded (in src's buffer) */
	const uint8_t *pkt;
	size_t pkt_len;
	uint64_t pkt_off;
	bool in_bundle;
	struct pw_reader bundle;     /* events still to read */
	const uint8_t *bundle_base;
	uint32_t cpu;
	struct pw_field compact;
	bool have_compact;
	/* reorder window: a binary heap of item indexes */
	struct pf_item *items;
	uint32_t *heap, *freel;
	uint32_t nheap, nfree;
	uint64_t order;
	bool have_t0;
	int64_t t0, last_t;
	uint32_t seq;
	char out_comm[PF_COMM];
	char out_path[PF_PATH];
	/* tables */
	struct pf_thread *threads;
	struct pf_package *packages;
	struct pf_track *tracks;
	struct pf_interned *interned;
	const uint8_t **intern_tab;
	struct ftrace_regions *regions;
	struct ftrace_rec mark_rec;
	struct pf_stats st;
	char first_warning[SIM_ERRMSG_MAX];
};

/* ---- small tables --------------------------------------------------------- */

static uint32_t pf_hash(uint64_t k, uint32_t bits)
{
	return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

static struct pf_thread *pf_thread(struct pf_reader *f, int32_t tid, bool create)
{
	uint32_t h = pf_hash((uint32_t)tid, PF_THREADS_BITS);
	for (uint32_t k = 0; k < 64; k++) {
		struct pf_thread *t = &f->threads[(h + k) & (PF_THREADS - 1)];
		if (t->used && t->tid == tid)
			return t;
		if (!t->used) {
			if (!create)
				return NULL;
			t->used = true;
			t->tid = tid;
			t->tgid = -1;
			t->uid = -1;
			f->st.threads++;
			return t;
		}
	}
	if (create)
		f->st.thread_overflow++;
	return NULL;
}

static void pf_oom(struct pf_reader *f, int64_t pid, int64_t adj);

static void pf_copy(char *dst, size_t cap, const uint8_t *p, size_t len)
{
	size_t n = len < cap - 1 ? len : cap - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = (p[i] >= 32 && p[i] < 127) ? (char)p[i] : '?';
	dst[n] = '\0';
}

/* TracePacket.system_info (45): SystemInfo.utsname (1) .release (3), the
 * kernel's `uname -r` (protos/perfetto/trace/system_info.proto), kept for
 * `workload fit`'s choice of a stack of the recording's era. */
static void pf_system_info(struct pf_reader *f, const struct pw_field *si)
{
	struct pw_field u, r;
	if (f->diag && pw_find(si->p, si->len, 1, &u) && u.wt == PW_LEN &&
	    pw_find(u.p, u.len, 3, &r) && r.wt == PW_LEN)
		pf_copy(f->diag->kernel_release, sizeof(f->diag->kernel_release), r.p, r.len);
}

static void pf_name_thread(struct pf_reader *f, int32_t tid, const uint8_t *p, size_t len)
{
	if (tid < 0 || !len)
		return;
	struct pf_thread *t = pf_thread(f, tid, true);
	if (t)
		pf_copy(t->comm, sizeof(t->comm), p, len);
}

static struct pf_track *pf_track(struct pf_reader *f, uint64_t uuid, bool create)
{
	uint32_t h = pf_hash(uuid, 12);
	for (uint32_t k = 0; k < 64; k++) {
		struct pf_track *t = &f->tracks[(h + k) & (PF_TRACKS - 1)];
		if (t->used && t->uuid == uuid)
			return t;
		if (!t->used) {
			if (!create)
				return NULL;
			t->used = true;
			t->uuid = uuid;
			t->pid = t->tid = -1;
			return t;
		}
	}
	return NULL;
}

static struct pf_interned *pf_interned(struct pf_reader *f, uint32_t seq, uint64_t iid, bool create)
{
	uint32_t h = pf_hash(iid * 31 + seq, PF_INTERNED_BITS);
	for (uint32_t k = 0; k < 64; k++) {
		struct pf_interned *e = &f->interned[(h + k) & (PF_INTERNED - 1)];
		if (e->used && e->seq == seq && e->iid == iid)
			return e;
		if (!e->used) {
			if (!create)
				return NULL;
			e->used = true;
			e->seq = seq;
			e->iid = iid;
			return e;
		}
	}
	return NULL;
}

/* ---- warnings and errors --------------------------------------------------- */

static int pf_warn(struct pf_reader *f, struct sim_error *err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int pf_warn(struct pf_reader *f, struct sim_error *err, uint64_t off, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (f->strict)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %s (--strict)",
				  f->src.name, off, what);
	trace_diag_note(f->diag, "%s: byte offset %" PRIu64 ": %s", f->src.name, off, what);
	if (!f->st.warnings++) {
		struct sim_error w;
		sim_errorf(&w, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": %s", f->src.name, off, what);
		memcpy(f->first_warning, w.msg, sizeof(f->first_warning));
	}
	return 0;
}

/* ---- reorder window -------------------------------------------------------- */

static bool pf_less(const struct pf_reader *f, uint32_t a, uint32_t b)
{
	const struct pf_item *x = &f->items[a], *y = &f->items[b];
	return x->t != y->t ? x->t < y->t : x->order < y->order;
}

static struct pf_item *pf_alloc(struct pf_reader *f)
{
	/* next() pops before the window is full and a step pushes at most
	 * one item, so a slot is free; NULL only guards that promise */
	if (!f->nfree)
		return NULL;
	struct pf_item *it = &f->items[f->freel[--f->nfree]];
	memset(it, 0, sizeof(*it));
	return it;
}

static void pf_push(struct pf_reader *f, struct pf_item *it)
{
	uint32_t idx = (uint32_t)(it - f->items), i = f->nheap++;
	it->order = f->order++;
	f->heap[i] = idx;
	while (i && pf_less(f, f->heap[i], f->heap[(i - 1) / 2])) {
		uint32_t p = (i - 1) / 2, tmp = f->heap[p];
		f->heap[p] = f->heap[i];
		f->heap[i] = tmp;
		i = p;
	}
}

static uint32_t pf_pop(struct pf_reader *f)
{
	uint32_t top = f->heap[0], i = 0;
	f->heap[0] = f->heap[--f->nheap];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < f->nheap && pf_less(f, f->heap[l], f->heap[m]))
			m = l;
		if (r < f->nheap && pf_less(f, f->heap[r], f->heap[m]))
			m = r;
		if (m == i)
			break;
		uint32_t tmp = f->heap[m];
		f->heap[m] = f->heap[i];
		f->heap[i] = tmp;
		i = m;
	}
	f->freel[f->nfree++] = top;
	return top;
}

/* ---- decoding -------------------------------------------------------------- */

/* Fields of one block event message (ftrace/block.proto layouts). */
static void pf_block(struct pf_reader *f, uint32_t id, const struct pw_field *ev, int64_t t, int32_t pid)
{
	uint16_t action;
	uint32_t rwbs_f = 4, comm_f = 5;

	switch (id) {
	case 45: action = TRACE_A_ISSUE; rwbs_f = 5; comm_f = 6; break;
	case 126: action = TRACE_A_INSERT; rwbs_f = 5; comm_f = 6; break;
	case 125: action = TRACE_A_COMPLETE; rwbs_f = 5; comm_f = 0; break;
	case 129: action = TRACE_A_REQUEUE; rwbs_f = 5; comm_f = 0; break;
	case 124: action = TRACE_A_ABORT; rwbs_f = 5; comm_f = 0; break;
	case 119: action = TRACE_A_QUEUE; break;
	case 115: action = TRACE_A_BACKMERGE; break;
	case 118: action = TRACE_A_FRONTMERGE; break;
	case 122: action = TRACE_A_GETRQ; break;
	case 130: action = TRACE_A_SLEEPRQ; break;
	case 131: action = TRACE_A_SPLIT; break;
	case 120: action = TRACE_A_REMAP; rwbs_f = 6; comm_f = 0; break;
	case 128: action = TRACE_A_REMAP; rwbs_f = 7; comm_f = 0; break;
	case 123: action = TRACE_A_PLUG; rwbs_f = 0; comm_f = 1; break;
	case 133: action = TRACE_A_UNPLUG_IO; rwbs_f = 0; comm_f = 2; break;
	default: return;
	}
	struct pf_item *it = pf_alloc(f);
	if (!it)
		return;
	struct trace_rec *r = &it->r;
	struct pw_reader m;
	struct pw_field x;
	uint64_t dev = 0, errors = 0;
	bool have_bytes = false;

	it->kind = PF_BLOCK;
	it->t = t;
	r->kind = TRACE_REC_BLOCK;
	r->action = action;
	r->act = trace_action_letter(action);
	r->cpu = f->cpu;
	r->pid = pid;
	pw_init(&m, ev->p, ev->len);
	while (pw_next(&m, &x) == 1) {
		if (action == TRACE_A_PLUG || action == TRACE_A_UNPLUG_IO) {
			if (x.id == comm_f && x.wt == PW_LEN)
				pf_copy(it->comm, sizeof(it->comm), x.p, x.len);
			else if (x.id == 1 && x.wt == PW_VARINT)
				r->pdu_u64 = (uint32_t)x.v;
			continue;
		}
		if (x.wt == PW_LEN) {
			if (x.id == rwbs_f)
				(void)trace_rwbs_parse((const char *)x.p, x.len, r);
			else if (x.id == comm_f)
				pf_copy(it->comm, sizeof(it->comm), x.p, x.len);
			continue;
		}
		if (x.wt != PW_VARINT)
			continue;
		switch (x.id) {
		case 1: dev = x.v; break;
		case 2: r->sector = x.v; break;
		case 3:
			if (action == TRACE_A_SPLIT)
				r->pdu_u64 = x.v;
			else
				r->nr_sectors = (uint32_t)x.v;
			break;
		case 4:
			if (action == TRACE_A_ISSUE || action == TRACE_A_INSERT) {
				r->bytes = (uint32_t)x.v;
				have_bytes = true;
			} else if (action == TRACE_A_COMPLETE || action == TRACE_A_REQUEUE) {
				errors = x.v;
			} else if (action == TRACE_A_REMAP) {
				r->from_major = (uint32_t)(x.v >> 20);
				r->from_minor = (uint32_t)(x.v & 0xfffff);
			}
			break;
		case 5:
			if (action == TRACE_A_REMAP)
				r->from_sector = x.v;
			break;
		case 7:
			if (action == TRACE_A_COMPLETE)
				errors = x.v;
			break;
		default: break;
		}
	}
	struct pf_thread *th = pf_thread(f, pid, false);
	if (!it->comm[0] && th && th->comm[0])
		memcpy(it->comm, th->comm, sizeof(it->comm));
	/* the app's uid: process_tree gives it per process, a thread through its tgid */
	if (th && th->uid < 0 && th->tgid > 0 && th->tgid != pid)
		th = pf_thread(f, th->tgid, false);
	if (th && th->uid >= 0 && th->uid <= UINT32_MAX) {
		r->uid = (uint32_t)th->uid;
		r->tflags |= TRACE_T_HAS_UID;
	}
	/* foreground as Android had it: the process's oom_score_adj at this
	 * event (as read; bundles of CPUs overlap by at most the window) */
	struct pf_thread *proc = pf_thread(f, pid, false);
	if (proc && !proc->oom_known && proc->tgid > 0 && proc->tgid != pid)
		proc = pf_thread(f, proc->tgid, false);
	if (proc && proc->oom_known) {
		r->tflags |= TRACE_T_FG_KNOWN;
		f->st.block_fg_known++;
		if (proc->oom_adj == PF_FOREGROUND_APP_ADJ) {
			r->tflags |= TRACE_T_FG;
			f->st.block_fg++;
		}
	}
	if (action != TRACE_A_PLUG && action != TRACE_A_UNPLUG_IO) {
		r->dev_major = (uint32_t)(dev >> 20);
		r->dev_minor = (uint32_t)(dev & 0xfffff);
		r->error = (int32_t)errors;
		/* as the ftrace text reader: the data's bytes, not a passthrough payload's */
		(void)have_bytes;
		r->bytes = r->nr_sectors << 9;
		if (r->bytes == 0 && r->dir != TRACE_DIR_DISCARD)
			r->dir = TRACE_DIR_NONE;
	}
	pf_push(f, it);
}

/* An android_fs start event (432 read, 434 write, 436 fsync) as a file
 * record; counted by pf_event whether returned or not. */
static void pf_file(struct pf_reader *f, uint32_t id, const struct pw_field *ev, int64_t t, int32_t tid)
{
	bool fsync = id == 436;
	/* field numbers of the data and the fsync messages */
	uint32_t cmd_f = fsync ? 1 : 2, size_f = fsync ? 2 : 3, ino_f = fsync ? 3 : 4,
		 path_f = fsync ? 4 : 6, pid_f = fsync ? 5 : 7;
	struct pf_item *it = pf_alloc(f);
	if (!it)
		return;
	struct trace_rec *r = &it->r;
	struct pw_reader m;
	struct pw_field x;
	it->kind = PF_FILE;
	it->t = t;
	r->kind = TRACE_REC_FILE;
	r->dir = fsync ? TRACE_DIR_NONE : id == 432 ? TRACE_DIR_READ : TRACE_DIR_WRITE;
	r->flags = id == 434 ? REQ_WRITE : 0;
	r->cpu = f->cpu;
	r->pid = tid;
	pw_init(&m, ev->p, ev->len);
	while (pw_next(&m, &x) == 1) {
		if (x.wt == PW_LEN) {
			if (x.id == path_f)
				pf_copy(it->path, sizeof(it->path), x.p, x.len);
			else if (x.id == cmd_f)
				pf_copy(it->comm, sizeof(it->comm), x.p, x.len);
		} else if (x.wt == PW_VARINT) {
			if (!fsync && x.id == 1)
				r->bytes = (uint32_t)x.v;
			else if (!fsync && x.id == 5)
				r->file_off = (uint64_t)((int64_t)x.v < 0 ? 0 : x.v);
			else if (x.id == size_f)
				r->file_size = (uint64_t)((int64_t)x.v < 0 ? 0 : x.v);
			else if (x.id == ino_f)
				r->ino = x.v;
			else if (x.id == pid_f && (int32_t)x.v > 0)
				r->pid = (int32_t)x.v;
		}
	}
	/* the tracepoint writes "<unknown>"-like names only when d_path fails; an
	 * empty path is one the kernel could not name */
	if (!it->path[0])
		f->st.file_no_path++;
	pf_push(f, it);
}

/* atrace text in a print event: B|pid|name, E|pid, S|pid|name|cookie, F|pid|name|cookie. */
static void pf_print(struct pf_reader *f, const uint8_t *p, size_t len, int64_t t, int32_t tid)
{
	while (len && (p[len - 1] == '\n' || p[len - 1] == '\0'))
		len--;
	if (len < 1 || (len > 1 && p[1] != '|'))
		return;
	char type = (char)p[0];
	if (type == 'C') {
		f->st.counters++;
		return;
	}
	if (type != 'B' && type != 'E' && type != 'S' && type != 'F')
		return;
	size_t i = 2;
	int64_t pid = 0;
	bool have_pid = false;
	while (i < len && p[i] >= '0' && p[i] <= '9' && pid < 1000000000) {
		pid = pid * 10 + (p[i++] - '0');
		have_pid = true;
	}
	struct pf_item *it = pf_alloc(f);
	if (!it)
		return;
	f->st.marks++;
	it->kind = PF_MARK;
	it->t = t;
	it->mtype = type;
	it->mtid = tid;
	it->mpid = have_pid ? (int32_t)pid : tid;
	if (i < len && p[i] == '|') {
		i++;
		size_t s = i;
		while (i < len && p[i] != '|')
			i++;
		pf_copy(it->mname, sizeof(it->mname), p + s, i - s);
		if (i < len && p[i] == '|') {
			int64_t v = 0;
			bool neg = ++i < len && p[i] == '-';
			for (i += neg; i < len && p[i] >= '0' && p[i] <= '9' && v < INT64_MAX / 10 - 9; i++)
				v = v * 10 + (p[i] - '0');
			it->mvalue = neg ? -v : v;
		}
	}
	pf_push(f, it);
}

static void pf_sched_names(struct pf_reader *f, uint32_t id, const struct pw_field *ev)
{
	struct pw_reader m;
	struct pw_field x;
	const uint8_t *c1 = NULL, *c2 = NULL;
	size_t l1 = 0, l2 = 0;
	int64_t p1 = -1, p2 = -1;

	pw_init(&m, ev->p, ev->len);
	while (pw_next(&m, &x) == 1) {
		if (id == 4) { /* sched_switch */
			if (x.id == 1 && x.wt == PW_LEN) { c1 = x.p; l1 = x.len; }
			else if (x.id == 2 && x.wt == PW_VARINT) p1 = pw_int(x.v);
			else if (x.id == 5 && x.wt == PW_LEN) { c2 = x.p; l2 = x.len; }
			else if (x.id == 6 && x.wt == PW_VARINT) p2 = pw_int(x.v);
		} else {
			if (x.id == 1 && x.wt == PW_LEN) { c1 = x.p; l1 = x.len; }
			else if (x.id == 2 && x.wt == PW_VARINT) p1 = pw_int(x.v);
		}
	}
	if (c1 && p1 > 0 && p1 <= INT32_MAX)
		pf_name_thread(f, (int32_t)p1, c1, l1);
	if (c2 && p2 > 0 && p2 <= INT32_MAX)
		pf_name_thread(f, (int32_t)p2, c2, l2);
}

/* One FtraceEvent. Returns 0 or -1 (malformed). */
static int pf_event(struct pf_reader *f, const struct pw_field *e)
{
	struct pw_reader m;
	struct pw_field x, payload = { 0 };
	int64_t t = 0;
	int32_t pid = 0;
	int rc;

	pw_init(&m, e->p, e->len);
	while ((rc = pw_next(&m, &x)) == 1) {
		if (x.id == 1 && x.wt == PW_VARINT)
			t = (int64_t)(x.v & INT64_MAX);
		else if (x.id == 2 && x.wt == PW_VARINT)
			pid = (int32_t)x.v;
		else if (x.id >= 3 && x.id != 5 && x.wt == PW_LEN)
			payload = x;
	}
	if (rc < 0)
		return -1;
	f->st.ftrace_events++;
	if (!payload.id)
		return 0;
	if (payload.id < PF_IDS)
		f->st.by_id[payload.id]++;
	else
		f->st.other_ids++;
	switch (payload.id) {
	case 3: {
		struct pw_field b;
		if (pw_find(payload.p, payload.len, 2, &b) && b.wt == PW_LEN)
			pf_print(f, b.p, b.len, t, pid);
		break;
	}
	case 4: case 17: case 20: case 114:
		pf_sched_names(f, payload.id, &payload);
		break;
	case 117:
		f->st.bio_complete++;
		break;
	case 326: { /* oom_score_adj_update: comm 1, oom_score_adj 2, pid 3 */
		struct pw_field a, p;
		if (pw_find(payload.p, payload.len, 2, &a) && a.wt == PW_VARINT &&
		    pw_find(payload.p, payload.len, 3, &p) && p.wt == PW_VARINT)
			pf_oom(f, (int64_t)p.v, (int64_t)a.v);
		break;
	}
	case 432: case 434: case 436:
		if (f->file_events)
			pf_file(f, payload.id, &payload, t, pid);
		break;
	default:
		pf_block(f, payload.id, &payload, t, pid);
		break;
	}
	return 0;
}

/* Compact sched: counts and next_comm names. Returns 0 or -1. */
static int pf_compact(struct pf_reader *f, const struct pw_field *cs)
{
	struct pw_reader m;
	struct pw_field x, sw_pid = { 0 }, sw_comm = { 0 }, wk_pid = { 0 }, wk_comm = { 0 }, sw_ts = { 0 },
			wk_ts = { 0 };
	uint32_t nintern = 0;
	int rc;

	pw_init(&m, cs->p, cs->len);
	while ((rc = pw_next(&m, &x)) == 1) {
		if (x.wt != PW_LEN)
			continue;
		switch (x.id) {
		case 1: sw_ts = x; break;
		case 3: sw_pid = x; break;
		case 5:
			if (nintern < PF_INTERN_TABLE) {
				f->intern_tab[2 * nintern] = x.p;
				f->intern_tab[2 * nintern + 1] = x.p + x.len;
				nintern++;
			}
			break;
		case 6: sw_comm = x; break;
		case 7: wk_ts = x; break;
		case 8: wk_pid = x; break;
		case 11: wk_comm = x; break;
		default: break;
		}
	}
	if (rc < 0)
		return -1;
	const struct pw_field *ts[2] = { &sw_ts, &wk_ts }, *pids[2] = { &sw_pid, &wk_pid },
			      *comms[2] = { &sw_comm, &wk_comm };
	uint64_t *cnt[2] = { &f->st.compact_switch, &f->st.compact_waking };
	for (int k = 0; k < 2; k++) {
		/* absent arrays have p == NULL: no arithmetic on it */
		const uint8_t *p = ts[k]->p, *end = p ? p + ts[k]->len : NULL;
		uint64_t v;
		while (p && p < end) {
			if (!pw_varint(&p, end, &v))
				return -1;
			(*cnt[k])++;
		}
		const uint8_t *pp = pids[k]->p, *pe = pp ? pp + pids[k]->len : NULL;
		const uint8_t *cp = comms[k]->p, *ce = cp ? cp + comms[k]->len : NULL;
		while (pp && cp && pp < pe && cp < ce) {
			uint64_t pid, ci;
			if (!pw_varint(&pp, pe, &pid) || !pw_varint(&cp, ce, &ci))
				return -1;
			if (ci < nintern && (int64_t)pid > 0 && pid <= INT32_MAX)
				pf_name_thread(f, (int32_t)pid, f->intern_tab[2 * ci],
					       (size_t)(f->intern_tab[2 * ci + 1] - f->intern_tab[2 * ci]));
		}
	}
	return 0;
}

static int pf_process_tree(struct pf_reader *f, const struct pw_field *pt)
{
	struct pw_reader m, q;
	struct pw_field x, y;
	int rc;

	pw_init(&m, pt->p, pt->len);
	while ((rc = pw_next(&m, &x)) == 1) {
		if ((x.id != 1 && x.id != 2) || x.wt != PW_LEN)
			continue;
		int64_t id = -1, tgid = -1, uid = -1;
		const uint8_t *name = NULL;
		size_t nl = 0;
		int rc2;
		pw_init(&q, x.p, x.len);
		while ((rc2 = pw_next(&q, &y)) == 1) {
			if (y.id == 1 && y.wt == PW_VARINT)
				id = pw_int(y.v);
			else if (x.id == 1 && y.id == 3 && y.wt == PW_LEN && !name) {
				/* cmdline[0]; its last path element names the process */
				name = y.p;
				nl = y.len;
				for (size_t i = 0; i < y.len; i++)
					if (y.p[i] == '/' && i + 1 < y.len) {
						name = y.p + i + 1;
						nl = y.len - i - 1;
					}
			} else if (x.id == 1 && y.id == 5 && y.wt == PW_VARINT)
				uid = pw_int(y.v);
			else if (x.id == 2 && y.id == 2 && y.wt == PW_LEN) {
				name = y.p;
				nl = y.len;
			} else if (x.id == 2 && y.id == 3 && y.wt == PW_VARINT)
				tgid = pw_int(y.v);
		}
		if (rc2 < 0)
			return -1;
		if (id <= 0 || id > INT32_MAX)
			continue;
		struct pf_thread *t = pf_thread(f, (int32_t)id, true);
		if (!t)
			continue;
		if (name && nl)
			pf_copy(t->comm, sizeof(t->comm), name, nl);
		if (x.id == 1) {
			t->tgid = (int32_t)id;
			if (uid >= 0 && t->uid < 0)
				f->st.processes_with_uid++;
			if (uid >= 0)
				t->uid = uid;
		} else if (tgid > 0 && tgid <= INT32_MAX) {
			t->tgid = (int32_t)tgid;
		}
	}
	return rc < 0 ? -1 : 0;
}

/* A process's oom_score_adj (varints of int32/int64 fields: a negative
 * value is its two's complement in 64 bits). */
static void pf_oom(struct pf_reader *f, int64_t pid, int64_t adj)
{
	if (pid <= 0 || pid > INT32_MAX || adj < -1000 || adj > 1000)
		return;
	struct pf_thread *t = pf_thread(f, (int32_t)pid, true);
	if (!t)
		return;
	if (t->tgid < 0)
		t->tgid = (int32_t)pid;
	t->oom_adj = (int32_t)adj;
	t->oom_known = true;
	f->st.oom_updates++;
}

/* ProcessStats (process_stats.proto): processes 1 {pid 1, oom_score_adj 10}. */
static int pf_process_stats(struct pf_reader *f, const struct pw_field *ps)
{
	struct pw_reader m;
	struct pw_field x, pid, adj;
	int rc;

	pw_init(&m, ps->p, ps->len);
	while ((rc = pw_next(&m, &x)) == 1) {
		if (x.id != 1 || x.wt != PW_LEN)
			continue;
		if (pw_find(x.p, x.len, 1, &pid) && pid.wt == PW_VARINT &&
		    pw_find(x.p, x.len, 10, &adj) && adj.wt == PW_VARINT)
			pf_oom(f, (int64_t)pid.v, (int64_t)adj.v);
	}
	return rc < 0 ? -1 : 0;
}

static int pf_packages(struct pf_reader *f, const struct pw_field *pl)
{
	struct pw_reader m, q;
	struct pw_field x, y;
	int rc;

	pw_init(&m, pl->p, pl->len);
	while ((rc = pw_next(&m, &x)) == 1) {
		if (x.id != 1 || x.wt != PW_LEN)
			continue;
		struct pf_package pk = { 0 };
		bool have_uid = false;
		int rc2;
		pw_init(&q, x.p, x.len);
		while ((rc2 = pw_next(&q, &y)) == 1) {
			if (y.id == 1 && y.wt == PW_LEN)
				pf_copy(pk.name, sizeof(pk.name), y.p, y.len);
			else if (y.id == 2 && y.wt == PW_VARINT) {
				pk.uid = y.v;
				have_uid = true;
			}
		}
		if (rc2 < 0)
			return -1;
		if (!have_uid || !pk.name[0])
			continue;
		bool dup = false;
		for (uint64_t i = 0; i < f->st.packages && !dup; i++)
			dup = f->packages[i].uid == pk.uid && !strcmp(f->packages[i].name, pk.name);
		if (dup)
			continue;
		if (f->st.packages == PF_PACKAGES) {
			f->st.package_overflow++;
			continue;
		}
		f->packages[f->st.packages++] = pk;
	}
	return rc < 0 ? -1 : 0;
}

static int pf_track_descriptor(struct pf_reader *f, const struct pw_field *td)
{
	struct pw_field x, y;
	struct pw_reader m;
	uint64_t uuid = 0;
	int64_t pid = -1, tid = -1;
	int rc;

	pw_init(&m, td->p, td->len);
	while ((rc = pw_next(&m, &x)) == 1) {
		if (x.id == 1 && x.wt == PW_VARINT)
			uuid = x.v;
		else if ((x.id == 3 || x.id == 4) && x.wt == PW_LEN) {
			if (pw_find(x.p, x.len, 1, &y) && y.wt == PW_VARINT)
				pid = pw_int(y.v);
			if (x.id == 4 && pw_find(x.p, x.len, 2, &y) && y.wt == PW_VARINT)
				tid = pw_int(y.v);
		}
	}
	if (rc < 0)
		return -1;
	struct pf_track *t = pf_track(f, uuid, true);
	if (t) {
		t->pid = pid >= 0 && pid <= INT32_MAX ? (int32_t)pid : -1;
		t->tid = tid >= 0 && tid <= INT32_MAX ? (int32_t)tid : t->pid;
	}
	return 0;
}

static int pf_interned_data(struct pf_reader *f, const struct pw_field *id, uint32_t seq)
{
	struct pw_reader m;
	struct pw_field x, y;
	int rc;

	pw_init(&m, id->p, id->len);
	while ((rc = pw_next(&m, &x)) == 1) {
		if (x.id != 2 || x.wt != PW_LEN) /* event_names */
			continue;
		uint64_t iid = 0;
		if (pw_find(x.p, x.len, 1, &y) && y.wt == PW_VARINT)
			iid = y.v;
		if (pw_find(x.p, x.len, 2, &y) && y.wt == PW_LEN) {
			struct pf_interned *e = pf_interned(f, seq, iid, true);
			if (e)
				pf_copy(e->name, sizeof(e->name), y.p, y.len);
		}
	}
	return rc < 0 ? -1 : 0;
}

static int pf_track_event(struct pf_reader *f, const struct pw_field *te, int64_t t, uint32_t seq)
{
	struct pw_reader m;
	struct pw_field x;
	uint64_t type = 0, uuid = 0, iid = 0;
	const uint8_t *name = NULL;
	size_t nl = 0;
	int rc;

	pw_init(&m, te->p, te->len);
	while ((rc = pw_next(&m, &x)) == 1) {
		if (x.id == 9 && x.wt == PW_VARINT)
			type = x.v;
		else if (x.id == 11 && x.wt == PW_VARINT)
			uuid = x.v;
		else if (x.id == 10 && x.wt == PW_VARINT)
			iid = x.v;
		else if (x.id == 23 && x.wt == PW_LEN) {
			name = x.p;
			nl = x.len;
		}
	}
	if (rc < 0)
		return -1;
	f->st.track_events++;
	if (type != 1 && type != 2)
		return 0;
	if (type == 1)
		f->st.slices_begin++;
	else
		f->st.slices_end++;
	struct pf_track *tr = pf_track(f, uuid, false);
	struct pf_item *it = pf_alloc(f);
	if (!it)
		return 0;
	it->kind = PF_MARK;
	it->t = t;
	it->mtype = type == 1 ? 'B' : 'E';
	/* regions pair per key: the track's thread, else the track itself */
	int32_t key = tr && tr->tid >= 0 ? tr->tid : (int32_t)(0x40000000u | (uint32_t)(uuid & 0x3fffffff));
	it->mpid = key;
	it->mtid = key;
	if (name)
		pf_copy(it->mname, sizeof(it->mname), name, nl);
	else if (iid) {
		struct pf_interned *e = pf_interned(f, seq, iid, false);
		snprintf(it->mname, sizeof(it->mname), "%s", e ? e->name : "(interned)");
	}
	pf_push(f, it);
	return 0;
}

/* ---- packets ---------------------------------------------------------------- */

/* Read the next packet into f->pkt. 1 = packet, 0 = end, < 0 error. */
static int pf_read_packet(struct pf_reader *f, struct sim_error *err)
{
	long n = trace_src_fill(&f->src, 20, err);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return 0;
	uint64_t off = trace_src_offset(&f->src);
	const uint8_t *p = f->src.buf + f->src.pos, *end = p + n;
	uint64_t key, len;
	/* a varint cut by the end of the file, not one past 10 bytes */
	if (!pw_varint(&p, end, &key)) {
		if (f->src.eof && n < 10) {
			f->src.pos = f->src.len;
			return pf_warn(f, err, off, "last packet cut short (%ld bytes), skipped", n);
		}
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": bad field key", f->src.name, off);
	}
	if (key != (1u << 3 | PW_LEN))
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": expected a TracePacket "
				  "(field 1, length-delimited), found field %" PRIu64 " wire type %u",
				  f->src.name, off, key >> 3, (unsigned)(key & 7));
	if (!pw_varint(&p, end, &len)) {
		if (f->src.eof && end - p < 10) {
			f->src.pos = f->src.len;
			return pf_warn(f, err, off, "last packet cut short (%ld bytes), skipped", n);
		}
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": bad packet length", f->src.name, off);
	}
	size_t hdr = (size_t)(p - (f->src.buf + f->src.pos));
	if (len > PF_PACKET_MAX - hdr)
		return sim_errorf(err, SIM_E_INPUT, "%s: byte offset %" PRIu64 ": packet of %" PRIu64
				  " bytes, more than the %u MiB this reader takes", f->src.name, off, len,
				  PF_PACKET_MAX >> 20);
	n = trace_src_fill(&f->src, hdr + len, err);
	if (n < 0)
		return (int)n;
	if ((uint64_t)n < hdr + len) {
		f->src.pos = f->src.len;
		return pf_warn(f, err, off, "last packet cut short (%" PRIu64 " of %" PRIu64 " bytes), skipped",
			       (uint64_t)n - hdr, len);
	}
	f->pkt = f->src.buf + f->src.pos + hdr;
	f->pkt_len = (size_t)len;
	f->pkt_off = off + hdr;
	f->src.pos += hdr + (size_t)len;
	f->st.packets++;
	return 1;
}

/* Decode the packet's non-ftrace content, or set up its bundle. 0 or < 0. */
static int pf_packet(struct pf_reader *f, struct sim_error *err)
{
	struct pw_reader m;
	struct pw_field x, bundle = { 0 };
	int64_t ts = 0;
	uint32_t seq = 0;
	unsigned te_done = 0;
	int rc;

	/* packet-level fields first: they may follow the payload */
	pw_init(&m, f->pkt, f->pkt_len);
	while ((rc = pw_next(&m, &x)) == 1) {
		if (x.id < PF_IDS)
			f->st.packet_fields[x.id]++;
		if (x.id == 8 && x.wt == PW_VARINT)
			ts = (int64_t)(x.v & INT64_MAX);
		else if (x.id == 10 && x.wt == PW_VARINT)
			seq = (uint32_t)x.v;
	}
	if (rc < 0)
		return pf_warn(f, err, f->pkt_off + (uint64_t)(m.p - f->pkt),
			       "malformed TracePacket, rest of the packet skipped");
	pw_init(&m, f->pkt, f->pkt_len);
	while (pw_next(&m, &x) == 1) {
		int bad = 0;
		if (x.wt != PW_LEN)
			continue;
		switch (x.id) {
		case 1: bundle = x; break;
		case 2: bad = pf_process_tree(f, &x); break;
		case 9: bad = pf_process_stats(f, &x); break;
		case 47: bad = pf_packages(f, &x); break;
		case 45: pf_system_info(f, &x); break;
		case 60: bad = pf_track_descriptor(f, &x); break;
		case 12: bad = pf_interned_data(f, &x, seq); break;
		case 11: /* one per packet (a step pushes at most one item) */
			if (!te_done++)
				bad = pf_track_event(f, &x, ts, seq);
			break;
		case 50:
			f->st.compressed++;
			rc = pf_warn(f, err, f->pkt_off, "deflate-compressed packets are not read, skipped");
			if (rc)
				return rc;
			break;
		default: break;
		}
		if (bad)
			return pf_warn(f, err, f->pkt_off + (uint64_t)(x.p - f->pkt),
				       "malformed field %u of a TracePacket, skipped", x.id);
	}
	if (!bundle.id)
		return 0;
	f->st.bundles++;
	f->cpu = 0;
	f->have_compact = false;
	pw_init(&m, bundle.p, bundle.len);
	while ((rc = pw_next(&m, &x)) == 1) {
		if (x.id == 1 && x.wt == PW_VARINT)
			f->cpu = (uint32_t)x.v;
		else if (x.id == 3 && x.wt == PW_VARINT && x.v)
			f->st.lost_bundles++;
		else if (x.id == 4 && x.wt == PW_LEN) {
			f->compact = x;
			f->have_compact = true;
		}
	}
	if (rc < 0)
		return pf_warn(f, err, f->pkt_off + (uint64_t)(m.p - f->pkt),
			       "malformed FtraceEventBundle, skipped");
	pw_init(&f->bundle, bundle.p, bundle.len);
	f->in_bundle = true;
	return 0;
}

/* One step of decoding: an event of the current bundle, or the next packet. */
static int pf_step(struct pf_reader *f, struct sim_error *err)
{
	struct pw_field x;

	while (f->in_bundle) {
		int rc = pw_next(&f->bundle, &x);
		if (rc == 1 && x.id == 2 && x.wt == PW_LEN) {
			if (pf_event(f, &x) < 0) {
				f->in_bundle = false;
				return pf_warn(f, err, f->pkt_off + (uint64_t)(x.p - f->pkt),
					       "malformed FtraceEvent, rest of the bundle skipped");
			}
			return 0;
		}
		if (rc == 1)
			continue;
		f->in_bundle = false;
		if (f->have_compact && pf_compact(f, &f->compact) < 0)
			return pf_warn(f, err, f->pkt_off + (uint64_t)(f->compact.p - f->pkt),
				       "malformed compact_sched, skipped");
		return 0;
	}
	int rc = pf_read_packet(f, err);
	if (rc <= 0) {
		if (rc == 0)
			f->eof = true;
		return rc;
	}
	return pf_packet(f, err);
}

static int pf_next(void *state, struct trace_rec *rec, struct sim_error *err)
{
	struct pf_reader *f = state;

	if (f->failed)
		return sim_errorf(err, SIM_E_INPUT, "%s: read after an error", f->src.name);
	for (;;) {
		/* keep one slot free for the next step (which pushes at most one) */
		if (f->nheap && (f->nheap >= PF_WINDOW || f->eof)) {
			struct pf_item *it = &f->items[pf_pop(f)];
			if (f->have_t0 && it->t < f->last_t)
				f->st.late++;
			else
				f->last_t = it->t;
			if (!f->have_t0) {
				f->have_t0 = true;
				f->t0 = it->t;
				f->last_t = it->t;
			}
			if (it->kind == PF_FILE) {
				*rec = it->r;
				rec->time_ns = it->t - f->t0;
				memcpy(f->out_comm, it->comm, sizeof(f->out_comm));
				memcpy(f->out_path, it->path, sizeof(f->out_path));
				rec->comm = f->out_comm[0] ? f->out_comm : NULL;
				rec->path = f->out_path;
				f->st.file_returned++;
				return 1;
			}
			if (it->kind == PF_BLOCK) {
				*rec = it->r;
				rec->time_ns = it->t - f->t0;
				rec->seq = ++f->seq;
				memcpy(f->out_comm, it->comm, sizeof(f->out_comm));
				rec->comm = f->out_comm[0] ? f->out_comm : NULL;
				f->st.block_returned++;
				return 1;
			}
			struct ftrace_rec *m = &f->mark_rec;
			struct ftrace_region reg;
			m->type = it->mtype == 'B' ? FTRACE_MARK_BEGIN : it->mtype == 'E' ? FTRACE_MARK_END
				: it->mtype == 'S' ? FTRACE_MARK_ASYNC_BEGIN : FTRACE_MARK_ASYNC_END;
			m->time_ns = it->t;
			m->pid = it->mtid;
			m->u.mark.pid = it->mpid;
			m->u.mark.value = it->mvalue;
			memcpy(m->u.mark.name, it->mname, sizeof(m->u.mark.name));
			if (ftrace_regions_feed(f->regions, m, &reg)) {
				f->st.regions++;
				f->st.region_ns += (uint64_t)(reg.duration_ns > 0 ? reg.duration_ns : 0);
			}
			continue;
		}
		if (f->eof) {
			if (f->diag)
				f->diag->other_events = f->st.ftrace_events + f->st.compact_switch +
							f->st.compact_waking + f->st.track_events -
							f->st.block_returned - f->st.file_returned;
			return 0;
		}
		int rc = pf_step(f, err);
		if (rc < 0) {
			f->failed = true;
			return rc;
		}
	}
}

/* ---- open / probe / report ---------------------------------------------------- */

static void pf_close(void *state)
{
	struct pf_reader *f = state;
	if (!f)
		return;
	trace_src_close(&f->src);
	free(f->items);
	free(f->heap);
	free(f->freel);
	free(f->threads);
	free(f->packages);
	free(f->tracks);
	free(f->interned);
	free(f->intern_tab);
	ftrace_regions_free(f->regions);
	free(f);
}

static int pf_setup(struct pf_reader *f, const struct trace_opts *opts, struct sim_error *err)
{
	f->strict = opts && opts->strict;
	f->file_events = opts && opts->file_events;
	f->diag = opts ? opts->diag : NULL;
	if (f->diag)
		f->diag->files = 1;
	f->items = calloc(PF_WINDOW + 1, sizeof(*f->items));
	f->heap = calloc(PF_WINDOW + 1, sizeof(*f->heap));
	f->freel = calloc(PF_WINDOW + 1, sizeof(*f->freel));
	f->threads = calloc(PF_THREADS, sizeof(*f->threads));
	f->packages = calloc(PF_PACKAGES, sizeof(*f->packages));
	f->tracks = calloc(PF_TRACKS, sizeof(*f->tracks));
	f->interned = calloc(PF_INTERNED, sizeof(*f->interned));
	f->intern_tab = calloc(2 * PF_INTERN_TABLE, sizeof(*f->intern_tab));
	f->regions = ftrace_regions_new();
	if (!f->items || !f->heap || !f->freel || !f->threads || !f->packages || !f->tracks ||
	    !f->interned || !f->intern_tab || !f->regions)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", f->src.name);
	for (uint32_t i = 0; i <= PF_WINDOW; i++)
		f->freel[i] = PF_WINDOW - i;
	f->nfree = PF_WINDOW + 1;
	return 0;
}

static int pf_open_any(const char *path, const void *buf, size_t len, const struct trace_opts *opts,
		       void **state, struct sim_error *err)
{
	struct pf_reader *f = calloc(1, sizeof(*f));
	int rc;

	if (!f)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", path);
	if (buf) {
		trace_src_open_mem(&f->src, buf, len, path);
	} else if ((rc = trace_src_open(&f->src, path, PF_PACKET_MAX, err))) {
		free(f);
		return rc;
	}
	rc = pf_setup(f, opts, err);
	if (rc) {
		pf_close(f);
		return rc;
	}
	*state = f;
	return 0;
}

/* A source trace.c opened and probed (standard input, a pipe, decompressed
 * data): its buffer grows to the largest packet this reader takes. */
static int pf_open_src(void *src, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	struct trace_src *s = src;
	struct pf_reader *f = calloc(1, sizeof(*f));

	if (!f)
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", s->name);
	if (s->own_buf && s->cap < PF_PACKET_MAX) {
		uint8_t *nb = realloc(s->buf, PF_PACKET_MAX);
		if (!nb) {
			free(f);
			return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", s->name);
		}
		s->buf = nb;
		s->cap = PF_PACKET_MAX;
	}
	trace_src_move(&f->src, s);
	int rc = pf_setup(f, opts, err);
	if (rc) {
		trace_src_move(s, &f->src);
		pf_close(f);
		return rc;
	}
	*state = f;
	return 0;
}

static int pf_open(const char *path, const struct trace_opts *opts, void **state, struct sim_error *err)
{
	return pf_open_any(path, NULL, 0, opts, state, err);
}

static int pf_open_mem(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
		       void **state, struct sim_error *err)
{
	return pf_open_any(name ? name : "<memory>", buf, len, opts, state, err);
}

/* A Trace starts with field 1 (a packet), length-delimited, whose content
 * parses as protobuf fields as far as the probe bytes go. */
static int pf_probe(const uint8_t *buf, size_t len)
{
	const uint8_t *p = buf, *end = buf + len;
	uint64_t key, plen;

	if (len < 4 || buf[0] != 0x0a || !pw_varint(&p, end, &key) || !pw_varint(&p, end, &plen) ||
	    plen < 2 || plen > PF_PACKET_MAX)
		return 0;
	size_t have = (size_t)(end - p) < plen ? (size_t)(end - p) : (size_t)plen;
	struct pw_reader r;
	struct pw_field x;
	int n = 0, rc;
	pw_init(&r, p, have);
	while ((rc = pw_next(&r, &x)) == 1)
		n++;
	if (rc < 0 && have == plen)
		return 0;
	if (n == 0)
		return 0;
	return have == plen ? 90 : 70;
}

static const char *pf_event_name(uint32_t id)
{
	switch (id) {
	case 3: return "print";
	case 4: return "sched_switch";
	case 17: return "sched_wakeup";
	case 20: return "sched_waking";
	case 41: return "ext4_da_write_begin";
	case 42: return "ext4_da_write_end";
	case 43: return "ext4_sync_file_enter";
	case 44: return "ext4_sync_file_exit";
	case 45: return "block_rq_issue";
	case 114: return "sched_wakeup_new";
	case 326: return "oom_score_adj_update";
	case 115: return "block_bio_backmerge";
	case 117: return "block_bio_complete";
	case 118: return "block_bio_frontmerge";
	case 119: return "block_bio_queue";
	case 120: return "block_bio_remap";
	case 122: return "block_getrq";
	case 123: return "block_plug";
	case 124: return "block_rq_abort";
	case 125: return "block_rq_complete";
	case 126: return "block_rq_insert";
	case 128: return "block_rq_remap";
	case 129: return "block_rq_requeue";
	case 130: return "block_sleeprq";
	case 131: return "block_split";
	case 133: return "block_unplug";
	case 243: return "f2fs_do_submit_bio";
	case 251: return "f2fs_readpage";
	case 254: return "f2fs_submit_write_page";
	case 255: return "f2fs_sync_file_enter";
	case 256: return "f2fs_sync_file_exit";
	case 272: return "f2fs_write_checkpoint";
	case 419: return "f2fs_iostat";
	case 420: return "f2fs_iostat_latency";
	case 432: return "android_fs_dataread_start";
	case 434: return "android_fs_datawrite_start";
	case 436: return "android_fs_fsync_start";
	default: break;
	}
	if ((id >= 134 && id <= 219) || (id >= 230 && id <= 234))
		return "ext4_*";
	if (id >= 243 && id <= 273)
		return "f2fs_*";
	return NULL;
}

static void pf_report(void *state, FILE *out)
{
	struct pf_reader *f = state;
	const struct pf_stats *s = &f->st;
	uint64_t ext4 = 0, f2fs = 0;

	fprintf(out, "packets:  %" PRIu64 " (ftrace bundles %" PRIu64 ", process trees %" PRIu64
		", package lists %" PRIu64 ", track events %" PRIu64 ")\n",
		s->packets, s->bundles, s->packet_fields[2], s->packet_fields[47], s->track_events);
	fprintf(out, "ftrace events: %" PRIu64 " (+ compact sched: %" PRIu64 " switch, %" PRIu64
		" waking); bundles with lost events: %" PRIu64 "\n",
		s->ftrace_events, s->compact_switch, s->compact_waking, s->lost_bundles);
	for (uint32_t id = 3; id < PF_IDS; id++) {
		if (!s->by_id[id])
			continue;
		const char *nm = pf_event_name(id);
		if ((id >= 41 && id <= 44) || (id >= 134 && id <= 234))
			ext4 += s->by_id[id];
		if ((id >= 243 && id <= 273) || id == 419 || id == 420)
			f2fs += s->by_id[id];
		if (nm && nm[strlen(nm) - 1] == '*')
			continue;
		if (nm)
			fprintf(out, "  %-26s %12" PRIu64 "\n", nm, s->by_id[id]);
		else
			fprintf(out, "  ftrace event field %-7u %12" PRIu64 "\n", id, s->by_id[id]);
	}
	if (ext4 || f2fs)
		fprintf(out, "  ext4 events (all): %" PRIu64 ", f2fs events (all): %" PRIu64 "\n", ext4, f2fs);
	fprintf(out, "block records: %" PRIu64 " (block_bio_complete not returned: %" PRIu64 ")\n",
		s->block_returned, s->bio_complete);
	if (s->file_returned)
		fprintf(out, "file records: %" PRIu64 " (android_fs; %" PRIu64 " without a path)\n",
			s->file_returned, s->file_no_path);
	fprintf(out, "atrace markers: %" PRIu64 " B/E/S/F, %" PRIu64 " counters; track-event slices: %"
		PRIu64 " begin, %" PRIu64 " end\n", s->marks, s->counters, s->slices_begin, s->slices_end);
	fprintf(out, "regions: %" PRIu64 " closed (%.6f s in all), %" PRIu64 " still open, %" PRIu64
		" unpaired\n", s->regions, (double)s->region_ns / 1e9, ftrace_regions_open(f->regions),
		ftrace_regions_dropped(f->regions));
	fprintf(out, "names: %" PRIu64 " threads/processes%s, %" PRIu64 " processes with a uid\n",
		s->threads, s->thread_overflow ? " (table full, more not kept)" : "", s->processes_with_uid);
	if (s->oom_updates || s->block_fg_known)
		fprintf(out, "foreground (oom_score_adj %d, the top app): %" PRIu64 " updates (process_stats, "
			"oom_score_adj_update); block records with a known state %" PRIu64 ", foreground %" PRIu64
			"\n", PF_FOREGROUND_APP_ADJ, s->oom_updates, s->block_fg_known, s->block_fg);
	fprintf(out, "packages: %" PRIu64 "%s\n", s->packages,
		s->package_overflow ? " (table full, more not kept)" : "");
	/* the packages of uids that processes in the trace ran as */
	uint32_t shown = 0;
	for (uint32_t i = 0; i < PF_THREADS && shown < 10; i++) {
		const struct pf_thread *t = &f->threads[i];
		if (!t->used || t->uid < 10000 || t->tgid != t->tid)
			continue;
		for (uint64_t k = 0; k < s->packages; k++)
			if (f->packages[k].uid == (uint64_t)t->uid) {
				fprintf(out, "  pid %d %s: uid %" PRId64 " %s\n", t->tid, t->comm, t->uid,
					f->packages[k].name);
				shown++;
				break;
			}
	}
	if (s->late)
		fprintf(out, "events later than the reorder window (%u): %" PRIu64 "\n", PF_WINDOW, s->late);
	if (s->warnings)
		fprintf(out, "warnings: %" PRIu64 " (first: %s)\n", s->warnings, f->first_warning);
}

const struct trace_reader_ops trace_perfetto_ops = {
	.name = "perfetto",
	.summary = "Perfetto protobuf trace (Android 9+): ftrace block events, atrace/track slices, names",
	.cpus = true,
	.identity = TRACE_ID_PID | TRACE_ID_COMM | TRACE_ID_UID | TRACE_ID_FG,
	.probe = pf_probe,
	.open = pf_open,
	.open_mem = pf_open_mem,
	.open_src = pf_open_src,
	.next = pf_next,
	.close = pf_close,
	.report = pf_report,
};
