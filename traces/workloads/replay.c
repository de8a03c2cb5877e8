/* Block-level trace replay (docs/architecture.md): every I/O of a recorded block
 * trace becomes a bio injected at the block layer, with the io_context of
 * its pid, so the scheduler, merging and request limits of the simulated
 * stack act on it.
 *
 * Which records are I/Os: the Q events of a trace (blktrace, blkparse,
 * ftrace block_bio_queue); a trace with no Q at all (some blkparse
 * outputs keep only D and C) replays its D events; DiskSim/MQSim ASCII
 * lines are Q records already. The choice is made by a pre-scan of the
 * first REPLAY_PRESCAN records.
 *
 * Closed loop (default, the semantics the thesis' launch-time results
 * need): a pid issues its next I/O only after its previous sync I/O
 * completed in the simulation, plus the recorded think time: the gap in
 * the trace from that I/O's recorded completion (C matched by device and
 * sector range) - or its queue time when the trace records no completions
 * - to the pid's next Q. Two refinements keep the recorded concurrency:
 * an async predecessor (a write without REQ_SYNC) does not block, and a
 * predecessor whose recorded completion came after the next Q (the pid
 * had both in flight, e.g. readahead) does not block either; in both
 * cases the next I/O follows the previous one's issue by the recorded
 * Q-to-Q gap. A pid's first I/O is issued at its recorded time.
 * Open loop: every I/O at its recorded time (device-level studies).
 * Recorded gaps are multiplied by time_scale.
 *
 * Memory: the trace is read incrementally. Open loop holds one read-ahead
 * I/O plus those in flight. Closed loop holds, per pid, the I/Os read
 * ahead of where that pid is in the simulation, at most window_ios in
 * all: when the window is full the reader waits (a pid that needs its
 * next I/O waits with it, counted as window_stalls), so memory is bounded
 * by the window, the I/Os in flight and the pids seen - not by trace
 * length. io_contexts are kept for every pid seen, as the scheduler's
 * per-process state refers to them until the end of the run.
 * Skipped (and counted): records without data (flush barriers) and
 * discards, which no device model implements.
 * Foreground: by class, or by rules on who issued each I/O (fg_comm
 * globs, fg_pid, fg_uid, fg: "comm=REGEX|pid=N|uid=N" as `trace stat
 * --fg`); uids where the trace records them (Perfetto, a csv uid column).
 * Rules on what the trace does not record (an MSR CSV has no process, a
 * DiskSim list none, a blktrace dump without notify records no names) are
 * an error, or with --lenient a warning in the result: they would call
 * every I/O background without a word.
 * Filters (workload.filter: {comm, pid, app}, as `trace stat --comm/--pid/
 * --app`) and gap cutting (max_gap, gap: compress|cut) are the reader
 * layer's (traces/tracefilter.c): a dropped process's requests never reach
 * the replay, D and C included. A filter that keeps nothing is an error, or
 * with --lenient a warning in the result, as fg rules that match nothing.
 * Not modelled: the trace's own plugging (bios are submitted unplugged;
 * merging happens in the scheduler).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/block/request.h"
#include "sim/assert.h"
#include "sim/rbtree.h"
#include "sim/sim.h"
#include "sim/workload.h"
#include "sim/zero.h"
#include "traces/workloads/fitgen.h"
#include "traces/workloads/overload.h"
#include "traces/workloads/replay_common.h"
#include "traces/trace.h"

#define REPLAY_PRESCAN 50000    /* records looked at to choose Q or D */
#define REPLAY_MAX_PATTERNS 64
#define REPLAY_COMM_MAX 32
#define REPLAY_JSON_PIDS 64      /* pids listed in the result */

enum replay_mode { REPLAY_CLOSED = 0, REPLAY_OPEN = 1 };
static const char *const replay_mode_names[] = { "closed", "open", NULL };
static const char *const replay_gap_names[] = { "compress", "cut", NULL };

struct rp_pid;

struct rp_io {
	struct bio bio;
	struct rp_pid *pid;
	uint64_t seq;               /* order in the trace */
	int64_t t_q;                /* recorded queue (or issue) time, ns from the first record */
	int64_t t_c;                /* recorded completion, -1 while unknown */
	uint64_t dev;               /* major << 32 | minor */
	bool sync;
	bool in_tree, issued, done;
	int64_t sim_issue, sim_done;
	struct list_head node;      /* pid fifo, or the pid's list of blocked submissions */
	struct list_head age;       /* trace-pending age list (oldest first) */
	struct rb_node tnode;       /* trace-pending tree by (dev, sector) */
	struct sim_event ev;        /* open loop: arrival */
	struct rp_io *next_free;
	struct rp_io *next_all;     /* every object allocated, for teardown */
};

enum rp_pid_state {
	RP_IDLE = 0,     /* nothing planned (new, or out of I/Os) */
	RP_NEED_NEXT,    /* wants its next I/O, not read yet (window full) */
	RP_WAIT_TIMER,   /* next I/O scheduled on ev */
	RP_WAIT_IO,      /* blocked on its sync predecessor */
};

struct rp_pid {
	struct rb_node node;
	struct replay *r;           /* its workload (one of several in a composite) */
	struct io_context ioc;
	char comm[REPLAY_COMM_MAX];
	bool comm_known;
	bool uid_known;             /* ioc.uid is the recording's */
	uint16_t fg_state;          /* TRACE_T_FG_KNOWN / TRACE_T_FG of its last record */
	enum rp_pid_state state;
	struct list_head fifo;      /* read ahead, not issued */
	struct list_head blocked;   /* submitted while asleep in get_request */
	struct list_head want;      /* on replay.want while RP_NEED_NEXT */
	struct rp_io *last;         /* most recent issued I/O (closed loop) */
	struct sim_event ev;
	struct blk_waiter waiter;
	bool sleeping;
	uint32_t inflight;
	uint64_t ios, bytes;
	int64_t lat_sum_ns;
};

struct replay {
	/* tunables */
	const char *trace;
	const char *columns;        /* csv column map ("" = detect the format) */
	const char *from, *until;   /* time window ("" = all; as trace --from/--until) */
	struct trace_fg *keep;      /* filter: the processes kept (NULL = all) */
	int64_t max_gap_ns;         /* gaps longer are compressed or cut (0 = off) */
	int gap_mode;               /* enum trace_gap_mode */
	int64_t segment;            /* capture segment replayed (1-based; 0 = all) */
	char kept_nothing[2400];    /* --lenient: the filter kept nothing ("" = it kept some) */
	int mode;
	double time_scale;
	int64_t max_records;
	int64_t window_ios;
	int64_t pending_cap;
	struct rpc_ident id;
	struct overload ovl;        /* open loop: max_outstanding and the warning */

	struct sim *sim;
	char path[4096];
	struct trace_reader rd;
	bool open_, eof;
	uint16_t io_action;         /* TRACE_A_QUEUE or TRACE_A_ISSUE */
	bool trace_has_c;
	bool have_t0;
	int64_t t0;
	const char *format;

	/* foreground selection */
	const char *fg_comm[REPLAY_MAX_PATTERNS];
	uint32_t nfg_comm;
	int64_t fg_pid[REPLAY_MAX_PATTERNS];
	uint32_t nfg_pid;
	int64_t fg_uid[REPLAY_MAX_PATTERNS];
	uint32_t nfg_uid;
	struct trace_fg *fg;        /* fg: rules */
	bool any_fg_rule;
	bool fg_matched;             /* a rule matched some pid */
	char zero_match[2400];        /* --lenient: the rules matched no pid ("" = they did) */
	struct trace_opts topts;
	uint32_t identity;          /* enum trace_identity of the trace */
	uint64_t prescan_named;     /* I/O records of the pre-scan with a process name */
	uint64_t prescan_fg_known;  /* ... with the recording's foreground state */
	char unanswerable[5200];     /* --lenient: why the fg rules cannot act ("" = they can) */

	struct rb_root pids;
	uint32_t npids;
	struct rb_root pending;     /* recorded I/Os waiting for their recorded C */
	struct list_head pending_age;
	uint64_t npending;
	struct list_head want;      /* pids in RP_NEED_NEXT, in the order they asked */

	struct sim_event tick;      /* reader clock: discover pids at their recorded time */
	struct rp_io *held;         /* open loop: read ahead, waiting for its time */
	bool reading;               /* re-entrancy guard */

	struct rp_io *free_ios, *all_ios;
	uint64_t live_ios, peak_live_ios, allocated_ios;
	uint64_t queued;            /* read, not yet issued */
	uint64_t peak_queued;
	uint64_t inflight;

	/* counters */
	uint64_t records, injected, completed, skipped_action, skipped_empty, skipped_kind;
	uint64_t skipped_discard;
	uint64_t matched_c, unmatched_c, evicted, window_stalls, dependent, overlapped;
	uint64_t prescan_q, prescan_d, prescan_c;
};

#define RP_OFF(f) offsetof(struct replay, f)

static const struct cfg_param replay_params[] = {
	{ "trace", CFG_T_STRING, RP_OFF(trace), "", "", CFG_NO_RANGE,
	  "required unless model: is given",
	  "block trace file (blktrace, blkparse text, ftrace, DiskSim ASCII; detected from content)",
	  NULL },
	{ "columns", CFG_T_STRING, RP_OFF(columns), "", "", CFG_NO_RANGE,
	  "\"\" = the format is detected", "text request lists: the column map `trace --columns` "
	  "takes (time=1:us,op=2,offset=3:sector,size=4:sector,comm=5,...; docs/traces.md)", NULL },
	{ "from", CFG_T_STRING, RP_OFF(from), "", "", CFG_NO_RANGE, "\"\" = from the first record",
	  "replay only records from this time after the trace's first (10s), or @TIME on the "
	  "recording's clock (`trace --from`)", NULL },
	{ "until", CFG_T_STRING, RP_OFF(until), "", "", CFG_NO_RANGE, "\"\" = to the last record",
	  "replay only records up to this time after the trace's first, or @TIME (`trace --until`)",
	  NULL },
	{ "replay", CFG_T_ENUM, RP_OFF(mode), "", "closed", CFG_NO_RANGE,
	  "docs/architecture.md: closed loop is the default", "closed: wait for sync predecessors; open: recorded times",
	  replay_mode_names },
	{ "time_scale", CFG_T_DOUBLE, RP_OFF(time_scale), "", "1.0", 0, 1e6,
	  "1 = as recorded", "multiply recorded gaps (arrivals, think times) by this", NULL },
	{ "max_records", CFG_T_INT, RP_OFF(max_records), "", "0", 0, 1e15,
	  "0 = the whole trace", "stop reading after this many trace records", NULL },
	{ "window_ios", CFG_T_INT, RP_OFF(window_ios), "", "8192", 1, 1e9,
	  "choice: bounds memory (~2 MiB); a pid lagging further stalls the reader",
	  "closed loop: I/Os read ahead of the simulation at most", NULL },
	{ "pending_cap", CFG_T_INT, RP_OFF(pending_cap), "", "65536", 16, 1e9,
	  "choice: blktrace's own outstanding I/O is far below this",
	  "recorded I/Os awaiting their recorded completion before the oldest is dropped", NULL },
	RPC_IDENT_PARAMS(struct replay, id, "0", "most block traces carry no uid: root, never background"),
	{ "max_outstanding", CFG_T_INT, RP_OFF(ovl.max), "", "1000000", 1, 1e12,
	  "choice: 250-350 MB at the measured 250-350 B a request; real queues hold hundreds",
	  "open loop: " OVERLOAD_HELP, NULL },
	CFG_PARAM_END,
};

/* Gap cutting: a table of its own, so a replay that does not use it keeps
 * its result's params as they were; they are reported under "gaps". */
static const struct cfg_param replay_gap_params[] = {
	{ "max_gap", CFG_T_TIME, RP_OFF(max_gap_ns), "s", "0", 0, 1e9,
	  "0 = every gap as recorded; a threshold is the user's choice (a pause, traces joined)",
	  "a gap between consecutive records longer than this is compressed to it or cuts the "
	  "trace (`trace --max-gap`)", NULL },
	{ "gap", CFG_T_ENUM, RP_OFF(gap_mode), "", "compress", CFG_NO_RANGE,
	  "choice: compress keeps the records after the gap",
	  "compress: later records move back by the excess; cut: the replay ends at the gap",
	  replay_gap_names },
	CFG_PARAM_END,
};

/* The capture segment: likewise a table of its own, reported under "segment". */
static const struct cfg_param replay_segment_params[] = {
	{ "segment", CFG_T_INT, RP_OFF(segment), "", "0", 0, 4294967295.0,
	  "0 = the whole trace; which part of a recording is the user's choice",
	  "replay only this capture segment (1 = the first): the trace is cut where consecutive "
	  "records lie more than max_gap (or an hour) apart, either way; from/until count from "
	  "its start (`trace --segment`)", NULL },
	CFG_PARAM_END,
};

/* ------------------------------------------------------------ objects */

static void rp_open_fire(struct sim *sim, struct sim_event *ev);

static struct rp_io *rp_io_alloc(struct replay *r)
{
	struct rp_io *io = r->free_ios;
	struct rp_io *all;
	if (io) {
		r->free_ios = io->next_free;
		all = io->next_all;
	} else {
		io = malloc(sizeof(*io));
		if (!io)
			return NULL;
		r->allocated_ios++;
		all = r->all_ios;
		r->all_ios = io;
	}
	sim_zero(io, sizeof(*io));
	io->next_all = all;
	sim_event_init(&io->ev, rp_open_fire);
	io->t_c = -1;
	list_init(&io->node);
	list_init(&io->age);
	rb_clear_node(&io->tnode);
	if (++r->live_ios > r->peak_live_ios)
		r->peak_live_ios = r->live_ios;
	return io;
}

/* Free io once nothing refers to it: done in the simulation, no longer
 * waiting for its recorded C, and not the pid's dependency anchor. */
static void rp_io_maybe_free(struct replay *r, struct rp_io *io)
{
	if (!io || !io->done || io->in_tree || (io->pid && io->pid->last == io))
		return;
	io->next_free = r->free_ios;
	r->free_ios = io;
	r->live_ios--;
}

/* Latest simulated time a replay schedules an I/O at: a quarter of the
 * int64 range (73 years) leaves the models headroom to add service times
 * without overflow. Records later than that after the first one
 * are an input error; scaled gaps and sums saturate at it. */
#define RP_TIME_MAX (INT64_MAX / 4)

static int64_t rp_scale(const struct replay *r, int64_t gap)
{
	if (gap <= 0)
		return 0;
	if (r->time_scale == 1.0)
		return gap < RP_TIME_MAX ? gap : RP_TIME_MAX;
	double x = (double)gap * r->time_scale + 0.5;
	return x < (double)RP_TIME_MAX ? (int64_t)x : RP_TIME_MAX;
}

/* a + b for a, b in [0, RP_TIME_MAX], saturating at RP_TIME_MAX. */
static int64_t rp_add(int64_t a, int64_t b)
{
	return a > RP_TIME_MAX - b ? RP_TIME_MAX : a + b;
}

/* Simulated time of recorded time t (from the trace's start). */
static int64_t rp_at(const struct replay *r, int64_t t)
{
	return rp_add(rp_scale(r, t), r->id.offset_ns);
}

static enum sim_class rp_class(const struct rp_pid *p)
{
	return p->ioc.fg ? SIM_CLASS_FG : SIM_CLASS_BG;
}

static void rp_classify(struct replay *r, struct rp_pid *p)
{
	if (r->id.cls != RPC_CLASS_AUTO) {
		p->ioc.fg = r->id.cls == RPC_CLASS_FG;
		return;
	}
	if (!r->any_fg_rule) {
		p->ioc.fg = true;
		return;
	}
	bool fg = false;
	for (uint32_t i = 0; i < r->nfg_pid && !fg; i++)
		fg = r->fg_pid[i] + r->id.pid_offset == p->ioc.pid;
	for (uint32_t i = 0; i < r->nfg_uid && !fg; i++)
		fg = p->uid_known && r->fg_uid[i] == p->ioc.uid;
	/* an unknown name is "pidN" until the trace names the process */
	if (!fg)
		fg = rpc_comm_matches(r->fg_comm, r->nfg_comm, p->comm);
	if (!fg && r->fg) {
		struct trace_rec who = { .pid = p->ioc.pid - (int32_t)r->id.pid_offset,
					 .comm = p->comm_known ? p->comm : NULL, .uid = p->ioc.uid,
					 .tflags = (uint16_t)((p->uid_known ? TRACE_T_HAS_UID : 0) | p->fg_state) };
		fg = trace_fg_match(r->fg, &who);
	}
	p->ioc.fg = fg;
	r->fg_matched |= fg;
}

/* At the end of the trace: fg rules that matched no process leave every
 * I/O background, which reads as a result but is a typo or a name the
 * trace spells otherwise: an error, or with --lenient a warning. */
static void rp_check_fg_matched(struct replay *r)
{
	if (!r->any_fg_rule || r->id.cls != RPC_CLASS_AUTO || r->fg_matched || !r->npids ||
	    r->sim->failed || r->unanswerable[0])
		return;
	snprintf(r->zero_match, sizeof(r->zero_match),
		 "%.1000s: the fg rules matched none of the trace's %u processes, so every I/O is "
		 "background (the names and ids it holds: `mobisim trace stat %.1000s`)", r->path,
		 (unsigned)r->npids, r->path);
	if (!r->sim->lenient)
		sim_fail(r->sim, SIM_E_INPUT, "%s; fix the rules, or run with --lenient", r->zero_match);
}

/* At the end of the trace: a filter that kept none of its requests leaves
 * nothing to replay; as fg rules that match nothing, an error or with
 * --lenient a warning. */
static void rp_check_kept(struct replay *r)
{
	const struct trace_diag *d = &r->rd.diag;
	if (!r->keep || !trace_filter_kept_nothing(d) || r->sim->failed)
		return;
	snprintf(r->kept_nothing, sizeof(r->kept_nothing),
		 "%.1000s: workload.filter (%s) matched none of the trace's %llu requests, so nothing "
		 "is replayed (the names and ids it holds: `mobisim trace stat %.1000s`)", r->path,
		 d->filter, (unsigned long long)d->dropped_requests, r->path);
	if (!r->sim->lenient)
		sim_fail(r->sim, SIM_E_INPUT, "%s; fix the filter, or run with --lenient", r->kept_nothing);
}

static void rp_pid_fire(struct sim *sim, struct sim_event *ev);
static void rp_wake(struct sim *sim, struct blk_waiter *w);

static struct rp_pid *rp_pid_get(struct replay *r, const struct trace_rec *rec)
{
	int32_t pid = rec->pid + (int32_t)r->id.pid_offset;
	const char *comm = rec->comm;
	struct rb_node **link = &r->pids.node, *parent = NULL;
	while (*link) {
		struct rp_pid *p = rb_entry(*link, struct rp_pid, node);
		parent = *link;
		if (pid < p->ioc.pid) {
			link = &parent->left;
		} else if (pid > p->ioc.pid) {
			link = &parent->right;
		} else {
			if (!p->comm_known && comm && *comm) {
				snprintf(p->comm, sizeof(p->comm), "%s", comm);
				p->comm_known = true;
				rp_classify(r, p);
			}
			/* fg: recorded follows the recording: the app moves to the
			 * background and back as its oom_score_adj says */
			uint16_t st = rec->tflags & (TRACE_T_FG_KNOWN | TRACE_T_FG);
			if ((st & TRACE_T_FG_KNOWN) && st != p->fg_state) {
				p->fg_state = st;
				rp_classify(r, p);
			}
			return p;
		}
	}
	struct rp_pid *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->r = r;
	p->ioc = (struct io_context){ .pid = pid, .tgid = pid, .uid = (uint32_t)r->id.uid,
				      .ioprio_class = IOPRIO_CLASS_BE, .ioprio_level = IOPRIO_NORM,
				      .comm = p->comm };
	if (comm && *comm) {
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
		p->comm_known = true;
	} else {
		snprintf(p->comm, sizeof(p->comm), "pid%d", pid);
	}
	if (rec->tflags & TRACE_T_HAS_UID) {
		p->ioc.uid = rec->uid;
		p->uid_known = true;
	}
	p->fg_state = rec->tflags & (TRACE_T_FG_KNOWN | TRACE_T_FG);
	list_init(&p->fifo);
	list_init(&p->blocked);
	list_init(&p->want);
	sim_event_init(&p->ev, rp_pid_fire);
	p->waiter.wake = rp_wake;
	list_init(&p->waiter.node);
	rp_classify(r, p);
	rb_link_node(&p->node, parent, link);
	rb_insert_color(&p->node, &r->pids);
	r->npids++;
	return p;
}

/* ------------------------------------------------------------ recorded completions */

static int rp_key_cmp(uint64_t dev_a, uint64_t sec_a, uint64_t seq_a, const struct rp_io *b)
{
	if (dev_a != b->dev)
		return dev_a < b->dev ? -1 : 1;
	if (sec_a != b->bio.sector)
		return sec_a < b->bio.sector ? -1 : 1;
	if (seq_a != b->seq)
		return seq_a < b->seq ? -1 : 1;
	return 0;
}

static void rp_pending_add(struct replay *r, struct rp_io *io)
{
	struct rb_node **link = &r->pending.node, *parent = NULL;
	while (*link) {
		struct rp_io *o = rb_entry(*link, struct rp_io, tnode);
		parent = *link;
		link = rp_key_cmp(io->dev, io->bio.sector, io->seq, o) < 0 ? &parent->left : &parent->right;
	}
	rb_link_node(&io->tnode, parent, link);
	rb_insert_color(&io->tnode, &r->pending);
	list_add_tail(&io->age, &r->pending_age);
	io->in_tree = true;
	r->npending++;
}

static void rp_pending_del(struct replay *r, struct rp_io *io)
{
	rb_erase(&io->tnode, &r->pending);
	rb_clear_node(&io->tnode);
	list_del_init(&io->age);
	io->in_tree = false;
	r->npending--;
}

/* A recorded C for [sector, sector + nr) on dev completes every recorded
 * I/O that starts inside it (the bios merged into that request). */
static void rp_complete_recorded(struct replay *r, uint64_t dev, uint64_t sector, uint32_t nr,
				 int64_t t)
{
	/* lowest node with key >= (dev, sector, 0) */
	struct rb_node *n = r->pending.node, *best = NULL;
	while (n) {
		struct rp_io *o = rb_entry(n, struct rp_io, tnode);
		if (rp_key_cmp(dev, sector, 0, o) <= 0) {
			best = n;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	uint64_t end = sector + (nr ? nr : 1);
	bool any = false;
	while (best) {
		struct rp_io *o = rb_entry(best, struct rp_io, tnode);
		if (o->dev != dev || o->bio.sector >= end)
			break;
		best = rb_next(best);
		o->t_c = t;
		rp_pending_del(r, o);
		any = true;
		rp_io_maybe_free(r, o);
	}
	if (any)
		r->matched_c++;
	else
		r->unmatched_c++;
}

/* ------------------------------------------------------------ submission */

static void rp_plan_next(struct replay *r, struct rp_pid *p);
static void rp_read_more(struct replay *r);

static void rp_end_io(struct sim *sim, struct bio *bio)
{
	struct rp_io *io = bio->private;
	struct rp_pid *p = io->pid;
	struct replay *r = p->r;
	int64_t lat = sim_now(sim) - io->sim_issue;

	sim_metrics_op(&sim->metrics, rp_class(p), req_is_write(bio->flags) ? SIM_OP_WRITE : SIM_OP_READ,
		       (uint64_t)bio->nr_sectors << SECTOR_SHIFT, lat);
	p->lat_sum_ns += lat;
	io->done = true;
	io->sim_done = sim_now(sim);
	p->inflight--;
	r->inflight--;
	r->completed++;
	if (r->mode == REPLAY_CLOSED && p->state == RP_WAIT_IO && p->last == io) {
		sim_metrics_wait(&sim->metrics, rp_class(p), SIM_WAIT_SYNC_IO, lat);
		if (sim->observer) {
			struct sim_wait_rec w = { .task = p->ioc.comm, .pid = p->ioc.tgid,
						  .tid = p->ioc.pid, .cls = rp_class(p),
						  .cause = SIM_WAIT_SYNC_IO,
						  .start_ns = io->sim_issue, .ns = lat };
			sim_observe_wait(sim, &w);
		}
		rp_plan_next(r, p);
	}
	rp_io_maybe_free(r, io);
}

static void rp_submit_now(struct replay *r, struct rp_io *io)
{
	struct rp_pid *p = io->pid;
	enum blk_submit_result res = blk_submit_bio(r->sim->blk, NULL, &io->bio, &p->waiter);
	if (res == BLK_SUBMIT_SLEEP)
		p->sleeping = true;
}

/* Issue io now: it leaves the read-ahead window and enters the block layer
 * (or waits behind its pid's earlier bio parked in get_request). */
static void rp_issue(struct replay *r, struct rp_io *io)
{
	struct rp_pid *p = io->pid;
	io->issued = true;
	io->sim_issue = sim_now(r->sim);
	r->queued--;
	r->injected++;
	r->inflight++;
	p->inflight++;
	if (r->mode == REPLAY_OPEN)
		(void)overload_admit(&r->ovl, r->sim, "workload.max_outstanding", r->inflight,
				     r->completed, r->injected);
	p->ios++;
	p->bytes += (uint64_t)io->bio.nr_sectors << SECTOR_SHIFT;
	if (p->ioc.fg)
		io->bio.flags |= REQ_FG;
	if (p->sleeping) {
		list_add_tail(&io->node, &p->blocked);
		return;
	}
	rp_submit_now(r, io);
}

static void rp_wake(struct sim *sim, struct blk_waiter *w)
{
	struct rp_pid *p = container_of(w, struct rp_pid, waiter);
	struct replay *r = p->r;
	p->sleeping = false;
	while (!p->sleeping && !list_empty(&p->blocked)) {
		struct rp_io *io = list_first_entry(&p->blocked, struct rp_io, node);
		list_del_init(&io->node);
		rp_submit_now(r, io);
	}
}

/* ------------------------------------------------------------ closed loop */

/* Decide when p issues the head of its fifo, given its last issued I/O. */
static void rp_plan_next(struct replay *r, struct rp_pid *p)
{
	if (list_empty(&p->fifo)) {
		if (r->eof) {
			p->state = RP_IDLE;
			return;
		}
		if (p->state != RP_NEED_NEXT) {
			p->state = RP_NEED_NEXT;
			list_add_tail(&p->want, &r->want);
		}
		rp_read_more(r);
		return;
	}
	struct rp_io *next = list_first_entry(&p->fifo, struct rp_io, node);
	struct rp_io *last = p->last;
	int64_t now = sim_now(r->sim), at;

	if (!last) {
		at = rp_at(r, next->t_q);
	} else if (!last->sync || (r->trace_has_c && (last->t_c < 0 || last->t_c > next->t_q))) {
		/* async, or the trace shows both in flight at once */
		at = rp_add(last->sim_issue, rp_scale(r, next->t_q - last->t_q));
		if (last->sync)
			r->overlapped++;
	} else if (!last->done) {
		p->state = RP_WAIT_IO;
		return;
	} else {
		int64_t base = last->t_c >= 0 ? last->t_c : last->t_q;
		at = rp_add(last->sim_done, rp_scale(r, next->t_q - base));
		r->dependent++;
	}
	p->state = RP_WAIT_TIMER;
	sim_at(r->sim, &p->ev, at > now ? at : now);
}

static void rp_pid_fire(struct sim *sim, struct sim_event *ev)
{
	struct rp_pid *p = container_of(ev, struct rp_pid, ev);
	struct replay *r = p->r;
	SIM_ASSERT(!list_empty(&p->fifo));
	struct rp_io *io = list_first_entry(&p->fifo, struct rp_io, node);
	list_del_init(&io->node);
	struct rp_io *old = p->last;
	p->last = io;
	p->state = RP_IDLE;
	rp_issue(r, io);
	rp_io_maybe_free(r, old);
	rp_plan_next(r, p);
	/* the window has room again: let waiting pids and the clock read on */
	if (!list_empty(&r->want) || !sim_event_pending(&r->tick))
		rp_read_more(r);
}

/* ------------------------------------------------------------ reading */

/* Take one record into the replay. Returns true when reading may go on
 * (open loop: false once a record lies in the future). */
static bool rp_take(struct replay *r, const struct trace_rec *rec)
{
	r->records++;
	if (rec->kind != TRACE_REC_BLOCK) {
		r->skipped_kind++;
		return true;
	}
	if (!r->have_t0) {
		r->have_t0 = true;
		r->t0 = rec->time_ns;
	}
	int64_t t = rec->time_ns - r->t0;
	uint64_t dev = ((uint64_t)rec->dev_major << 32) | rec->dev_minor;

	if (t > RP_TIME_MAX) {
		sim_fail(r->sim, SIM_E_INPUT,
			 "%s: record %llu: time %lld ns after the first record is beyond the simulated "
			 "range (%lld ns, 73 years)", r->path, (unsigned long long)r->records,
			 (long long)t, (long long)RP_TIME_MAX);
		r->eof = true;
		return false;
	}

	if (rec->action == TRACE_A_COMPLETE) {
		if (r->trace_has_c)
			rp_complete_recorded(r, dev, rec->sector, rec->nr_sectors, t);
		return true;
	}
	if (rec->action != r->io_action) {
		r->skipped_action++;
		return true;
	}
	if (rec->nr_sectors == 0 || rec->dir == TRACE_DIR_NONE) {
		r->skipped_empty++; /* flushes without data, barriers */
		return true;
	}
	if (rec->dir == TRACE_DIR_DISCARD) {
		r->skipped_discard++; /* the device models have no discard/trim */
		return true;
	}
	struct rp_pid *p = rp_pid_get(r, rec);
	struct rp_io *io = p ? rp_io_alloc(r) : NULL;
	if (!io) {
		sim_fail(r->sim, SIM_E_NOMEM, "replay: out of memory");
		r->eof = true;
		return false;
	}
	io->pid = p;
	io->seq = r->records;
	io->t_q = t;
	io->dev = dev;
	io->bio.sector = rec->sector;
	io->bio.nr_sectors = rec->nr_sectors;
	io->bio.flags = rec->flags & (REQ_WRITE | REQ_SYNC | REQ_META | REQ_FUA | REQ_FLUSH | REQ_RAHEAD);
	io->bio.ioc = &p->ioc;
	io->bio.end_io = rp_end_io;
	io->bio.private = io;
	io->sync = req_is_sync(io->bio.flags);
	r->queued++;
	if (r->queued > r->peak_queued)
		r->peak_queued = r->queued;
	if (r->trace_has_c) {
		if (r->npending >= (uint64_t)r->pending_cap) {
			struct rp_io *old = list_first_entry(&r->pending_age, struct rp_io, age);
			rp_pending_del(r, old);
			r->evicted++;
			rp_io_maybe_free(r, old);
		}
		rp_pending_add(r, io);
	}

	if (r->mode == REPLAY_OPEN) {
		int64_t at = rp_at(r, t);
		if (at <= sim_now(r->sim)) {
			rp_issue(r, io);
			return true;
		}
		sim_event_init(&io->ev, rp_open_fire);
		r->held = io;
		sim_at(r->sim, &io->ev, at);
		return false;
	}
	list_add_tail(&io->node, &p->fifo);
	if (p->state == RP_NEED_NEXT) {
		list_del_init(&p->want);
		rp_plan_next(r, p);
	} else if (p->state == RP_IDLE) {
		rp_plan_next(r, p); /* a pid's first I/O */
	}
	/* the clock: stop reading at the first record beyond now */
	if (rp_at(r, t) > sim_now(r->sim)) {
		sim_at(r->sim, &r->tick, rp_at(r, t));
		return false;
	}
	return true;
}

static void rp_read_one(struct replay *r, bool *more)
{
	struct trace_rec rec;
	struct sim_error err;
	if (r->max_records && r->records >= (uint64_t)r->max_records) {
		r->eof = true;
		*more = false;
		return;
	}
	int rc = trace_next(&r->rd, &rec, &err);
	if (rc < 0) {
		sim_fail(r->sim, rc, "%s", err.msg);
		r->eof = true;
		*more = false;
		return;
	}
	if (rc == 0) {
		r->eof = true;
		*more = false;
		return;
	}
	*more = rp_take(r, &rec);
}

/* Read until the clock is ahead of now, every waiting pid has its next
 * I/O, or the window is full. */
static void rp_read_more(struct replay *r)
{
	if (r->reading || r->eof || r->held)
		return;
	r->reading = true;
	bool more = r->mode == REPLAY_OPEN || !sim_event_pending(&r->tick);
	for (;;) {
		if (r->eof || r->sim->failed)
			break;
		if (r->mode == REPLAY_CLOSED && r->queued >= (uint64_t)r->window_ios) {
			if (!list_empty(&r->want))
				r->window_stalls++;
			break;
		}
		/* reading on for a waiting pid overrides the clock */
		if (!more && list_empty(&r->want))
			break;
		rp_read_one(r, &more);
		if (r->mode == REPLAY_OPEN && !more)
			break;
	}
	r->reading = false;
	if (r->eof) {
		sim_cancel(r->sim, &r->tick);
		rp_check_kept(r);
		rp_check_fg_matched(r);
		/* pids that were waiting for more input are finished */
		while (!list_empty(&r->want)) {
			struct rp_pid *p = list_first_entry(&r->want, struct rp_pid, want);
			list_del_init(&p->want);
			p->state = RP_IDLE;
			rp_plan_next(r, p);
		}
	}
}

static void rp_tick(struct sim *sim, struct sim_event *ev)
{
	struct replay *r = container_of(ev, struct replay, tick);
	rp_read_more(r);
}

static void rp_open_fire(struct sim *sim, struct sim_event *ev)
{
	struct rp_io *io = container_of(ev, struct rp_io, ev);
	struct replay *r = io->pid->r;
	SIM_ASSERT(r->held == io);
	r->held = NULL;
	rp_issue(r, io);
	rp_read_more(r);
}

/* ------------------------------------------------------------ set-up */

static int rp_patterns(struct replay *r, struct cfg_node *wl, struct sim_error *err)
{
	int rc = rpc_parse_fg_comm(wl, r->fg_comm, &r->nfg_comm, REPLAY_MAX_PATTERNS, err);
	if (rc)
		return rc;
	rc = rpc_parse_id_list(wl, "fg_pid", INT32_MAX, r->fg_pid, &r->nfg_pid, REPLAY_MAX_PATTERNS,
			       err);
	if (!rc)
		rc = rpc_parse_id_list(wl, "fg_uid", UINT32_MAX, r->fg_uid, &r->nfg_uid,
				       REPLAY_MAX_PATTERNS, err);
	if (rc)
		return rc;
	/* fg: the rules of `trace stat --fg`, a string or a list */
	struct cfg_node *fgn = cfg_get(wl, "fg");
	if (fgn) {
		cfg_mark_used(fgn, true);
		struct cfg_node *one = fgn->kind == CFG_SCALAR ? fgn : fgn->kind == CFG_SEQ ? fgn->child : NULL;
		if (fgn->kind == CFG_MAP)
			return cfg_errorf(err, fgn, "expected a rule comm=REGEX, pid=N or uid=N, or a list of them");
		for (struct cfg_node *c = one; c; c = fgn->kind == CFG_SCALAR ? NULL : c->next) {
			struct sim_error sub;
			if (c->kind != CFG_SCALAR)
				return cfg_errorf(err, c, "expected a rule comm=REGEX, pid=N or uid=N");
			if (trace_fg_add(&r->fg, c->value, &sub))
				return cfg_errorf(err, c, "%s", sub.msg);
		}
	}
	r->any_fg_rule = r->nfg_comm || r->nfg_pid || r->nfg_uid || r->fg;
	return 0;
}

/* filter: {comm: REGEX, pid: N, app: PACKAGE}, each a value or a list: the
 * processes whose requests are replayed (any match keeps a request). */
static int rp_filter(struct replay *r, struct cfg_node *wl, struct sim_error *err)
{
	struct cfg_node *fn = cfg_get(wl, "filter");
	if (!fn)
		return 0;
	cfg_mark_used(fn, false);
	if (fn->kind != CFG_MAP)
		return cfg_errorf(err, fn, "expected a map {comm: REGEX, pid: N, app: PACKAGE} (each a "
				  "value or a list)");
	for (struct cfg_node *k = fn->child; k; k = k->next) {
		cfg_mark_used(k, true);
		char opt[64];
		snprintf(opt, sizeof(opt), "workload.filter.%.40s", k->key);
		struct cfg_node *one = k->kind == CFG_SEQ ? k->child : k;
		if (k->kind == CFG_MAP || (k->kind == CFG_SEQ && !one))
			return cfg_errorf(err, k, "expected a value or a list of values");
		for (struct cfg_node *c = one; c; c = k->kind == CFG_SEQ ? c->next : NULL) {
			struct sim_error sub;
			if (c->kind != CFG_SCALAR)
				return cfg_errorf(err, c, "expected a value");
			if (trace_keep_add(&r->keep, k->key, c->value, opt, &sub))
				return cfg_errorf(err, c, "%s", sub.msg);
		}
	}
	return 0;
}

/* Whether the fg rules read this part of who issued an I/O. */
static bool rp_needs(const struct replay *r, uint32_t id)
{
	if (r->id.cls != RPC_CLASS_AUTO)
		return false; /* class: fg|bg decides alone */
	uint32_t need = trace_fg_needs(r->fg);
	/* "*" matches every process, named or not */
	for (uint32_t i = 0; i < r->nfg_comm; i++)
		if (strcmp(r->fg_comm[i], "*"))
			need |= TRACE_ID_COMM;
	if (r->nfg_pid)
		need |= TRACE_ID_PID;
	if (r->nfg_uid)
		need |= TRACE_ID_UID;
	return (need & id) != 0;
}

/* The fg rules against what the trace records (after the pre-scan): a
 * rule on what it lacks would call every I/O background. An error at the
 * rule's key, or with --lenient a warning the result carries. */
static int rp_check_identity(struct replay *r, struct cfg_node *wl, struct sim_error *err)
{
	uint32_t have = r->identity;
	/* a format that can name processes, but whose first records name none
	 * (a blktrace dump without its notify records) */
	if ((have & TRACE_ID_COMM) && !r->prescan_named && (r->prescan_q || r->prescan_d))
		have &= ~TRACE_ID_COMM;
	/* a Perfetto trace without process_stats or oom_score_adj_update */
	if ((have & TRACE_ID_FG) && !r->prescan_fg_known && (r->prescan_q || r->prescan_d))
		have &= ~TRACE_ID_FG;
	uint32_t need = 0;
	static const uint32_t bits[] = { TRACE_ID_COMM, TRACE_ID_PID, TRACE_ID_UID, TRACE_ID_FG };
	for (size_t i = 0; i < 4; i++)
		if (rp_needs(r, bits[i]))
			need |= bits[i];
	char lacks[160];
	if (!trace_identity_lacks(need, have, lacks, sizeof(lacks)))
		return 0;
	const char *key = (need & ~have & TRACE_ID_COMM) && r->nfg_comm ? "fg_comm" :
			  (need & ~have & TRACE_ID_PID) && r->nfg_pid ? "fg_pid" :
			  (need & ~have & TRACE_ID_UID) && r->nfg_uid ? "fg_uid" : "fg";
	struct cfg_node *at = cfg_get(wl, key);
	if (!at)
		at = wl;
	char why[5000];
	snprintf(why, sizeof(why), "trace '%s' (format %s) records no %s%s%s, so %s would call every I/O "
		 "background", r->path, r->format, lacks,
		 (have & need) == (r->identity & need) ? "" : " in its first records",
		 trace_identity_hint(r->format), key);
	if (!r->sim->lenient)
		return cfg_errorf(err, at, "%s; map its columns (workload.columns: ...,comm=N,pid=N,uid=N), "
				  "choose class: fg or bg, or run with --lenient (any command: --set lenient=true)",
				  why);
	snprintf(r->unanswerable, sizeof(r->unanswerable), "%s (--lenient: every I/O is background)", why);
	return 0;
}

/* Choose the I/O action from the first records: Q when there is any. */
static int rp_prescan(struct replay *r, struct sim_error *err)
{
	struct trace_reader rd;
	int rc = trace_open_named(r->path, r->topts.columns ? "csv" : NULL, &r->topts, &rd, err);
	if (rc)
		return rc;
	r->format = rd.ops->name;
	r->identity = rd.diag.identity;
	struct trace_rec rec;
	uint32_t seen = 0;
	for (; seen < REPLAY_PRESCAN; seen++) {
		rc = trace_next(&rd, &rec, err);
		if (rc <= 0)
			break;
		if (rec.kind != TRACE_REC_BLOCK)
			continue;
		r->prescan_q += rec.action == TRACE_A_QUEUE;
		r->prescan_d += rec.action == TRACE_A_ISSUE;
		r->prescan_c += rec.action == TRACE_A_COMPLETE;
		r->prescan_named += (rec.action == TRACE_A_QUEUE || rec.action == TRACE_A_ISSUE) &&
				    rec.comm && rec.comm[0];
		r->prescan_fg_known += (rec.action == TRACE_A_QUEUE || rec.action == TRACE_A_ISSUE) &&
				       (rec.tflags & TRACE_T_FG_KNOWN);
		/* a request list has no C to wait for */
		if (r->prescan_q && (r->prescan_c || rd.diag.request_list) &&
		    (r->prescan_named || !rp_needs(r, TRACE_ID_COMM)) &&
		    (r->prescan_fg_known || !rp_needs(r, TRACE_ID_FG)))
			break; /* every question answered */
	}
	/* dropped records are not returned: a filter that kept nothing has
	 * read the whole trace here */
	bool none_kept = trace_filter_kept_nothing(&rd.diag);
	uint64_t dropped = rd.diag.dropped_requests;
	trace_close(&rd);
	if (rc < 0)
		return rc;
	if (!r->prescan_q && !r->prescan_d && none_kept) {
		char rules[512];
		trace_fg_describe(r->keep, rules, sizeof(rules));
		if (!r->sim->lenient)
			return sim_errorf(err, SIM_E_INPUT, "%s: workload.filter (%s) matched none of the "
					  "trace's %llu requests, so nothing is replayed (the names and ids it "
					  "holds: `mobisim trace stat %s`); fix the filter, or run with --lenient",
					  r->path, rules, (unsigned long long)dropped, r->path);
		r->io_action = TRACE_A_QUEUE; /* nothing comes: the result says why */
		return 0;
	}
	if (r->prescan_q)
		r->io_action = TRACE_A_QUEUE;
	else if (r->prescan_d)
		r->io_action = TRACE_A_ISSUE;
	else
		return sim_errorf(err, SIM_E_INPUT, "%s: no Q or D (block queue or issue) events in %s%u "
				  "records of format %s: nothing to replay", r->path,
				  seen == REPLAY_PRESCAN ? "the first " : "its ", seen, r->format);
	r->trace_has_c = r->prescan_c > 0;
	return 0;
}

static void replay_destroy(void *state);

static int replay_create(struct sim *sim, struct cfg_node *node, void **state,
			 struct sim_error *err)
{
	struct replay *r = calloc(1, sizeof(*r));
	if (!r)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	r->sim = sim;
	r->pids = RB_ROOT;
	r->pending = RB_ROOT;
	list_init(&r->pending_age);
	list_init(&r->want);
	sim_event_init(&r->tick, rp_tick);
	int rc = cfg_apply(replay_params, node, r, err);
	if (rc)
		goto fail;
	/* The scenario's top-level `replay:` (what --set replay=open sets)
	 * wins over workload.replay. */
	struct cfg_node *top = sim->doc ? cfg_lookup(cfg_root(sim->doc), "replay") : NULL;
	if (top) {
		cfg_mark_used(top, true);
		if (top->kind != CFG_SCALAR || (strcmp(top->value, "closed") && strcmp(top->value, "open"))) {
			rc = cfg_errorf(err, top, "expected closed or open");
			goto fail;
		}
		r->mode = strcmp(top->value, "open") == 0 ? REPLAY_OPEN : REPLAY_CLOSED;
	}
	rc = rp_patterns(r, node, err);
	if (!rc)
		rc = rp_filter(r, node, err);
	if (!rc)
		rc = cfg_apply(replay_gap_params, node, r, err);
	if (!rc)
		rc = cfg_apply(replay_segment_params, node, r, err);
	if (rc)
		goto fail;
	if (!sim->blk) {
		rc = sim_errorf(err, SIM_E_INPUT, "replay needs the block layer");
		goto fail;
	}
	struct cfg_node *model = cfg_get(node, "model");
	if (model && r->trace[0]) {
		rc = cfg_errorf(err, model, "give trace: or model:, not both");
		goto fail;
	}
	if (model) {
		/* a fitted model (`mobisim workload fit`): Q records, and C
		 * records where it has think times */
		if (r->keep || r->max_gap_ns || r->segment) {
			rc = cfg_errorf(err, model, "filter:, max_gap: and segment: act on a trace: as it is read; "
					"fit the model from the filtered trace instead (`workload fit --comm ...`)");
			goto fail;
		}
		rc = fitgen_open(sim, model, &r->rd, err);
		if (rc)
			goto fail;
		cfg_mark_used(model, false);
		rc = cfg_check_unused(node, err);
		if (rc) {
			trace_close(&r->rd);
			goto fail;
		}
		snprintf(r->path, sizeof(r->path), "model");
		r->format = "model";
		r->io_action = TRACE_A_QUEUE;
		r->trace_has_c = fitgen_has_completions(&r->rd);
		r->open_ = true;
		sim->replay = replay_mode_names[r->mode];
		*state = r;
		return 0;
	}
	if (!r->trace[0]) {
		rc = cfg_errorf(err, node, "replay needs trace: (a block trace) or model: (a fitted model)");
		goto fail;
	}
	/* A mistyped key (trace_opts:) is said before the trace is read: a
	 * reader's "not a known trace format" must not hide it. */
	rc = cfg_check_unused(node, err);
	if (rc)
		goto fail;
	rc = rpc_resolve_path(r->trace, cfg_get(node, "trace"), r->path, sizeof(r->path), err);
	if (rc)
		goto fail;
	r->topts.columns = r->columns && r->columns[0] ? r->columns : NULL;
	r->topts.keep = r->keep;
	r->topts.gap = (struct trace_gap){ .max_ns = r->max_gap_ns, .mode = r->gap_mode };
	r->topts.segment = (uint32_t)r->segment;
	if (r->from && r->from[0] &&
	    trace_window_parse(&r->topts.window, false, r->from, "workload.from", err)) {
		char msg[SIM_ERRMSG_MAX];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		rc = cfg_errorf(err, cfg_get(node, "from"), "%s", msg);
		goto fail;
	}
	if (r->until && r->until[0] &&
	    trace_window_parse(&r->topts.window, true, r->until, "workload.until", err)) {
		char msg[SIM_ERRMSG_MAX];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		rc = cfg_errorf(err, cfg_get(node, "until"), "%s", msg);
		goto fail;
	}
	rc = rp_prescan(r, err);
	if (rc == SIM_E_INPUT) {
		/* say which key of which scenario named the trace */
		char msg[SIM_ERRMSG_MAX];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		cfg_errorf(err, cfg_get(node, r->topts.columns ? "columns" : "trace"), "%s", msg);
	}
	if (rc)
		goto fail;
	rc = rp_check_identity(r, node, err);
	if (rc)
		goto fail;
	rc = trace_open_named(r->path, r->topts.columns ? "csv" : NULL, &r->topts, &r->rd, err);
	if (rc)
		goto fail;
	r->open_ = true;
	sim->replay = replay_mode_names[r->mode];
	*state = r;
	return 0;
fail:
	replay_destroy(r);
	return rc;
}

static void replay_start(struct sim *sim, void *state)
{
	struct replay *r = state;
	rp_read_more(r);
}

static bool replay_done(struct sim *sim, void *state)
{
	struct replay *r = state;
	return r->eof && r->queued == 0 && r->inflight == 0;
}

static void replay_stats_json(struct sim *sim, void *state, json_t *obj)
{
	struct replay *r = state;
	json_object_set_new(obj, "trace", json_string(r->path));
	json_object_set_new(obj, "format", json_string(r->format ? r->format : "?"));
	json_object_set_new(obj, "replay", json_string(replay_mode_names[r->mode]));
	char act[2] = { trace_action_letter(r->io_action), 0 };
	json_object_set_new(obj, "io_event", json_string(act));
	json_object_set_new(obj, "records_read", json_integer((json_int_t)r->records));
	json_object_set_new(obj, "ios_injected", json_integer((json_int_t)r->injected));
	json_object_set_new(obj, "ios_completed", json_integer((json_int_t)r->completed));
	json_object_set_new(obj, "skipped", json_integer((json_int_t)(r->skipped_action + r->skipped_empty +
								     r->skipped_kind + r->skipped_discard)));
	json_object_set_new(obj, "skipped_discards", json_integer((json_int_t)r->skipped_discard));
	json_object_set_new(obj, "skipped_other_actions", json_integer((json_int_t)r->skipped_action));
	json_object_set_new(obj, "skipped_no_data", json_integer((json_int_t)r->skipped_empty));
	json_object_set_new(obj, "recorded_completions_matched", json_integer((json_int_t)r->matched_c));
	json_object_set_new(obj, "recorded_completions_unmatched", json_integer((json_int_t)r->unmatched_c));
	json_object_set_new(obj, "recorded_pending_evicted", json_integer((json_int_t)r->evicted));
	json_object_set_new(obj, "dependent_ios", json_integer((json_int_t)r->dependent));
	json_object_set_new(obj, "overlapped_ios", json_integer((json_int_t)r->overlapped));
	json_object_set_new(obj, "window_stalls", json_integer((json_int_t)r->window_stalls));
	json_object_set_new(obj, "pids", json_integer((json_int_t)r->npids));
	json_object_set_new(obj, "peak_live_ios", json_integer((json_int_t)r->peak_live_ios));
	json_object_set_new(obj, "peak_read_ahead_ios", json_integer((json_int_t)r->peak_queued));
	/* What the reader read past (lenient as blkparse): counted here. */
	const struct trace_diag *dg = &r->rd.diag;
	json_t *rw = json_object();
	json_object_set_new(rw, "files", json_integer((json_int_t)dg->files));
	json_object_set_new(rw, "missing_cpu_files", json_integer((json_int_t)dg->missing_files));
	json_object_set_new(rw, "cut_last_records", json_integer((json_int_t)dg->truncated_files));
	json_object_set_new(rw, "time_backwards", json_integer((json_int_t)dg->backwards));
	json_object_set_new(rw, "clock_jumps", json_integer((json_int_t)dg->jumps));
	json_object_set_new(rw, "outside_window", json_integer((json_int_t)dg->outside_window));
	json_t *notes = json_array();
	for (unsigned i = 0; i < dg->nnotes; i++)
		json_array_append_new(notes, json_string(dg->notes[i]));
	json_object_set_new(rw, "notes", notes);
	json_object_set_new(rw, "notes_total", json_integer((json_int_t)dg->notes_total));
	json_object_set_new(obj, "reader_warnings", rw);
	if (dg->filter[0]) {
		json_t *f = json_object();
		json_object_set_new(f, "rules", json_string(dg->filter));
		json_object_set_new(f, "requests_kept", json_integer((json_int_t)dg->kept_requests));
		json_object_set_new(f, "requests_dropped", json_integer((json_int_t)dg->dropped_requests));
		json_object_set_new(f, "events_dropped", json_integer((json_int_t)dg->filtered_events));
		json_object_set_new(f, "completions_unowned", json_integer((json_int_t)dg->unowned_events));
		json_object_set_new(f, "requests_forgotten", json_integer((json_int_t)dg->filter_evicted));
		json_object_set_new(obj, "filter", f);
	}
	if (r->max_gap_ns) {
		json_t *g = json_object();
		json_object_set_new(g, "max_gap_s", json_real((double)r->max_gap_ns / 1e9));
		json_object_set_new(g, "mode", json_string(replay_gap_names[r->gap_mode]));
		json_object_set_new(g, "gaps", json_integer((json_int_t)dg->gaps));
		json_object_set_new(g, "seconds_removed", json_real((double)dg->gap_removed_ns / 1e9));
		json_object_set_new(g, "longest_s", json_real((double)dg->max_gap_ns / 1e9));
		json_object_set_new(g, "cut", json_boolean(dg->gap_cut));
		if (dg->gap_cut)
			json_object_set_new(g, "cut_at_s", json_real((double)dg->gap_cut_at_ns / 1e9));
		json_object_set_new(obj, "gaps", g);
	}
	if (r->segment) {
		json_t *g = json_object();
		json_object_set_new(g, "number", json_integer((json_int_t)r->segment));
		json_object_set_new(g, "records_before", json_integer((json_int_t)dg->outside_segment));
		json_object_set_new(g, "rest_not_read", json_boolean(dg->segment_done));
		json_object_set_new(obj, "segment", g);
	}
	if (r->mode == REPLAY_OPEN)
		overload_json(&r->ovl, obj);
	if (r->kept_nothing[0]) {
		json_object_set_new(obj, "filter_kept_nothing", json_true());
		rpc_json_warning(obj, r->kept_nothing);
	}
	if (r->zero_match[0]) {
		json_object_set_new(obj, "fg_rules_matched_nothing", json_true());
		rpc_json_warning(obj, r->zero_match);
	}
	if (r->unanswerable[0]) {
		json_object_set_new(obj, "fg_rules_unanswerable", json_true());
		rpc_json_warning(obj, r->unanswerable);
	}
	/* per pid, in pid order; the first REPLAY_JSON_PIDS only, so the
	 * document stays small for traces of many processes */
	json_t *fg = json_array(), *per = json_array();
	uint32_t nfg = 0, nper = 0;
	for (struct rb_node *n = rb_first(&r->pids); n; n = rb_next(n)) {
		struct rp_pid *p = rb_entry(n, struct rp_pid, node);
		if (p->ioc.fg && nfg++ < REPLAY_JSON_PIDS)
			json_array_append_new(fg, json_integer(p->ioc.pid));
		if (nper++ >= REPLAY_JSON_PIDS)
			continue;
		uint64_t done = p->ios - p->inflight;
		json_array_append_new(per, json_pack("{s:i, s:s, s:s, s:I, s:I, s:f}", "pid", p->ioc.pid,
						     "comm", p->comm, "class", p->ioc.fg ? "fg" : "bg",
						     "ios", (json_int_t)p->ios, "bytes", (json_int_t)p->bytes,
						     "mean_lat_ns", done ? (double)p->lat_sum_ns / (double)done : 0.0));
	}
	json_object_set_new(obj, "fg_pids", fg);
	json_object_set_new(obj, "per_pid", per);
	json_object_set_new(obj, "params", cfg_params_to_json(replay_params, r));
}

static void replay_destroy(void *state)
{
	struct replay *r = state;
	if (!r)
		return;
	if (r->open_)
		trace_close(&r->rd);
	trace_fg_free(r->fg);
	trace_fg_free(r->keep);
	if (r->sim)
		sim_cancel(r->sim, &r->tick);
	struct rb_node *n;
	while ((n = r->pids.node) != NULL) {
		struct rp_pid *p = rb_entry(n, struct rp_pid, node);
		rb_erase(n, &r->pids);
		if (r->sim)
			sim_cancel(r->sim, &p->ev);
		/* asleep in get_request when the run stopped: leave the queue's list */
		if (p->sleeping)
			list_del_init(&p->waiter.node);
		free(p);
	}
	while (r->all_ios) {
		struct rp_io *io = r->all_ios;
		r->all_ios = io->next_all;
		if (r->sim)
			sim_cancel(r->sim, &io->ev);
		free(io);
	}
	free(r);
}

const struct workload_ops replay_workload_ops = {
	.name = "replay",
	.summary = "block-level replay of a recorded trace (closed loop by default, or open)",
	.create = replay_create,
	.start = replay_start,
	.done = replay_done,
	.stats_json = replay_stats_json,
	.destroy = replay_destroy,
	.needs_block = true,
	.needs_stack = false,
};
