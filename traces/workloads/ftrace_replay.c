/* The "ftrace" workload: replay of an ftrace text trace through the whole
 * simulated stack (docs/architecture.md). Every traced thread becomes a stack
 * task whose op stream is rebuilt from what the thread did:
 *
 *  sys_enter/sys_exit pairs (raw_syscalls or syscalls:sys_*_X, arm64 table
 *  in traces/ftrace.c):
 *    read, pread64     -> READ of the returned byte count (pread64 at its
 *                         pos argument, read at the fd's tracked position)
 *    write, pwrite64   -> WRITE of the returned byte count (O_SYNC/O_DSYNC
 *                         from openat's flags: a synchronous write)
 *    fsync, fdatasync  -> FSYNC, FDATASYNC
 *    openat            -> OPEN of the returned fd, close -> CLOSE
 *    mmap of an fd     -> remembered per process: a later
 *                         mm_filemap_add_to_page_cache by one of its threads
 *                         outside a read/write/fsync syscall is a FAULT
 *                         (contiguous adds of one thread coalesce into one
 *                         FAULT at the first page: the kernel's read-around
 *                         adds them in one go, and the stack models that)
 *  kprobes on vfs_read / vfs_write / vfs_fsync[_range] (the Android
 *  SliceDroid form: "(vfs_read+0x0/0x488) file=.. count=0x.. inode=..
 *  s_dev_inode=.. i_mode=.. pathname=".." [uid_writer=..]") -> READ / WRITE
 *  of the requested count / FSYNC; only regular files (i_mode S_IFREG);
 *  sockets, pipes, eventfds and devices are skipped and counted;
 *  tracing_mark_write B|pid|name and E|pid -> BEGIN/END regions of the
 *  thread that wrote them (at most 8 nested, the stack's region depth),
 *  paired per thread here (not with ftrace_regions_*, which pairs per
 *  marker pid, i.e. per process); the first FR_JSON_REGIONS as recorded go
 *  to the result's recorded_regions, beside the simulated "regions";
 *  the recorded gap between two ops of a thread -> CPU for the part the
 *  thread was on a CPU according to sched_switch, SLEEP (think time) for
 *  the rest; a trace without sched_switch makes every gap SLEEP.
 *
 * Files: the trace rarely names them. openat's path argument is a user
 * pointer in syscall events, so fd files are named "fd<N>@<tgid>" (one
 * simulated file per fd number and process: a reused fd number is the same
 * file - bounded, but a closed-and-reopened number shares its pages);
 * kprobe and page-cache events carry (device, inode), so those files are
 * "dev<MAJ>:<MIN>/ino<N>" and a kprobe read and a page-cache add of one
 * inode meet in one file. A file whose first op reads or faults is assumed
 * to exist with file_bytes of data (at least up to that op's end); one
 * whose first op writes starts empty.
 *
 * Foreground: ftrace has no uid for syscalls, so fg comes from fg_pid
 * (thread or process id), fg_comm (fnmatch on the thread's comm or on its
 * process's main-thread comm, when the trace showed it) and, when
 * a uid source exists (the kprobe's uid_writer= field), fg_uid; no rule at
 * all makes every thread foreground (as traces/workloads/replay.c). Fg tasks get the
 * foreground uid (fg_uid[0] or 10000), bg tasks their recorded uid when
 * known, else FR_BG_UID.
 *
 * Closed loop (default): a thread's next op is issued when its previous
 * one completed in the simulation plus the recorded gap (the CPU and SLEEP
 * ops above); its first op at its recorded time. Open loop: every op at
 * its recorded time (or when the thread's previous op completes, if that
 * is later: ops of one thread stay serialised); gaps keep only their CPU
 * part. Kprobe events are function entries: they have no completion, so
 * the gap after one includes the recorded op's own duration. The open
 * loop's backlog is the ops whose recorded time has passed and that have
 * not completed; it is guarded like the block replay's
 * (traces/workloads/overload.h: a warning past OVERLOAD_WARN_AT, a stop
 * past max_outstanding). It counts the ops read, so with window_ops below
 * max_outstanding the window bounds memory first and the warning remains.
 *
 * Perfetto input (docs/ftrace-replay.md): the android_fs start events
 * (android_fs_dataread_start, _datawrite_start, _fsync_start: path,
 * offset, bytes, i_size, pid, cmdline; the reader returns them as
 * TRACE_REC_FILE records) become READ, WRITE and FSYNC ops of the named
 * file, so a recorded launch goes through the simulated page cache,
 * readahead, writeback and journal; the file's recorded i_size is its
 * size. An event the kernel could not name (empty path) is not replayed
 * above the page cache: it is counted (its I/O stays in the recording's
 * block events, for `type: replay`). Block events are counted as the
 * text's are; atrace markers are not turned into regions for Perfetto.
 *
 * Memory: the trace is read line by line (FTRACE_LINE_MAX at most); ops
 * read ahead of the simulation are held per thread, window_ops in all
 * (the reader pauses when the window is full); per thread and per process
 * state lives as long as the run (bounded by the threads and fds seen).
 * Skipped events are counted by name (unknown events, from the reader's
 * table) and by reason (known events the replay does not turn into ops).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/stack/stack.h"
#include "sim/assert.h"
#include "sim/list.h"
#include "sim/rbtree.h"
#include "sim/sim.h"
#include "sim/workload.h"
#include "traces/ftrace.h"
#include "traces/trace.h"
#include "traces/workloads/overload.h"
#include "traces/workloads/replay_common.h"

#define FR_REGION_DEPTH 8        /* STACK_REGION_DEPTH in models/stack/stack_int.h */
#define FR_MAX_PATTERNS 64
#define FR_MAX_FD 65536          /* fds above this are not tracked (counted) */
#define FR_POS_SLOTS 4096        /* kprobe file positions, direct-mapped by struct file */
#define FR_JSON_TASKS 64         /* threads listed in the result */
#define FR_KPROBE_NAMES 16
#define FR_JSON_REGIONS 64       /* recorded regions listed in the result */
#define FR_DEFAULT_FG_UID 10000u /* AID_APP: the first app uid */
#define FR_BG_UID 99999u         /* an app uid that is never the default foreground */
/* Page-cache adds of one thread on consecutive pages within this time are
 * one fault's read-around (filemap_fault adds them in one call). */
#define FR_FAULT_COALESCE_NS 200000

enum fr_mode { FR_CLOSED = 0, FR_OPEN = 1 };
static const char *const fr_mode_names[] = { "closed", "open", NULL };
static const char *const fr_unopened_names[] = { "skip", "file", NULL };

/* Known events that do not become ops, by reason. */
enum fr_skip {
	FRS_BLOCK = 0,         /* block_*: the simulated block layer makes its own */
	FRS_WRITEBACK,         /* writeback_*: the simulated flusher makes its own */
	FRS_PC_DELETE,         /* page-cache deletions: reclaim is simulated */
	FRS_PC_IN_SYSCALL,     /* page-cache adds inside a read/write: part of that op */
	FRS_PC_NO_MMAP,        /* page-cache adds of a process without a file mmap */
	FRS_WAKEUP,            /* sched_wakeup: wake-ups follow from the simulation */
	FRS_MARK_OTHER,        /* counter and async atrace markers */
	FRS_MARK_DEEP,         /* B/E deeper than FR_REGION_DEPTH */
	FRS_MARK_E_UNPAIRED,   /* E without a B in this thread */
	FRS_SYS_OTHER,         /* syscalls that are not file I/O */
	FRS_SYS_UNPAIRED,      /* enter without exit or exit without enter */
	FRS_SYS_FAILED,        /* negative return (read/write/openat/fsync...) */
	FRS_SYS_ZERO,          /* read/write that moved no bytes */
	FRS_MMAP,              /* mmap itself (noted for faults) */
	FRS_MMAP_ANON,         /* anonymous mmap */
	FRS_FD_UNTRACKED,      /* fd number beyond FR_MAX_FD */
	FRS_FD_UNOPENED,       /* I/O on an fd not opened in the trace (unopened_fds: skip) */
	FRS_VFS_NOT_REGULAR,   /* kprobe on a socket, pipe, eventfd or device */
	FRS_VFS_ZERO,          /* kprobe with count 0 */
	FRS_UNFINISHED,        /* syscall still open at the end of the trace */
	FRS_FS_NO_PATH,        /* android_fs event without a path: left to the block level */
	FRS_FS_ZERO,           /* android_fs read/write of zero bytes */
	FRS_N
};

static const char *const fr_skip_names[FRS_N] = {
	[FRS_BLOCK] = "block_events_simulated_by_the_model",
	[FRS_WRITEBACK] = "writeback_events_simulated_by_the_model",
	[FRS_PC_DELETE] = "pagecache_delete_simulated_by_the_model",
	[FRS_PC_IN_SYSCALL] = "pagecache_add_inside_a_syscall",
	[FRS_PC_NO_MMAP] = "pagecache_add_without_file_mmap",
	[FRS_WAKEUP] = "sched_wakeup",
	[FRS_MARK_OTHER] = "counter_or_async_markers",
	[FRS_MARK_DEEP] = "markers_nested_too_deep",
	[FRS_MARK_E_UNPAIRED] = "end_marker_without_begin",
	[FRS_SYS_OTHER] = "syscall_not_file_io",
	[FRS_SYS_UNPAIRED] = "syscall_enter_exit_unpaired",
	[FRS_SYS_FAILED] = "syscall_failed",
	[FRS_SYS_ZERO] = "read_write_of_zero_bytes",
	[FRS_MMAP] = "mmap_noted_for_faults",
	[FRS_MMAP_ANON] = "mmap_anonymous",
	[FRS_FD_UNTRACKED] = "fd_beyond_tracked_range",
	[FRS_FD_UNOPENED] = "io_on_fd_not_opened_in_trace",
	[FRS_VFS_NOT_REGULAR] = "vfs_kprobe_not_a_regular_file",
	[FRS_VFS_ZERO] = "vfs_kprobe_zero_count",
	[FRS_UNFINISHED] = "syscall_unfinished_at_trace_end",
	[FRS_FS_NO_PATH] = "android_fs_event_without_path_kept_at_block_level",
	[FRS_FS_ZERO] = "android_fs_event_of_zero_bytes",
};

struct fr_state;

struct fr_op {
	struct list_head node;
	struct stack_op op;
	int64_t t_rec;              /* recorded start, ns from the first event */
	char *name;                 /* BEGIN/END: owned */
	uint64_t fault_next;        /* FAULT: next page index that coalesces */
	int64_t fault_t;            /* FAULT: time of its last page-cache add */
};

struct fr_fd {
	struct stack_file *f;
	uint64_t pos;
	bool sync;                  /* opened with O_SYNC or O_DSYNC */
};

/* openat flags, include/uapi/asm-generic/fcntl.h (arm64 uses these) */
#define FR_O_TRUNC 01000
#define FR_O_DSYNC 010000       /* also part of O_SYNC (04010000) */

struct fr_proc {
	struct rb_node node;
	int32_t tgid;
	int64_t uid;                /* -1 unknown */
	char comm[FTRACE_COMM_MAX]; /* of the main thread (tid == tgid), "" until seen */
	bool mmapped;               /* mapped a file: page-cache adds can be faults */
	uint32_t nfd;
	struct fr_fd *fd;
};

struct fr_thread {
	struct rb_node node;
	struct fr_state *st;
	int32_t tid, tgid;
	char comm[FTRACE_COMM_MAX];
	struct fr_proc *proc;
	struct stack_task *task;
	bool fg, exited, starving, comm_known;
	bool busy;                  /* an op handed to the stack has not completed */
	struct list_head fifo;      /* ops read ahead of the simulation */
	struct fr_op *tail_fault;   /* the fifo's tail when it is a FAULT */

	/* the recorded thread */
	int64_t last_end;           /* end of its last op, -1 before the first */
	bool running;
	int64_t run_since, run_acc; /* time on a CPU since last_end */
	bool in_sys;
	enum ftrace_syscall call;
	int32_t sys_nr;
	uint64_t args[6];
	int64_t t_enter, gap_run;   /* at sys_enter: the gap's CPU part */
	uint32_t rdepth;            /* B markers open (all, also beyond the limit) */
	char rnames[FR_REGION_DEPTH][FTRACE_NAME_MAX];
	int64_t rstart[FR_REGION_DEPTH];

	/* the simulated thread */
	uint32_t sdepth;
	char *snames[FR_REGION_DEPTH]; /* names of BEGINs handed to the stack */
	char *free_next[2];         /* END names, freed when the END op is done */
	uint64_t ops_read, ops_issued;
	int64_t first_ns;
};

struct fr_rec_region {
	char name[FTRACE_NAME_MAX];
	int32_t tid;
	int64_t start_ns, duration_ns;
};

struct fr_state {
	/* tunables */
	const char *trace;
	int mode;
	double time_scale;
	int64_t window_ops;
	uint64_t file_bytes;
	int64_t max_lines;
	int unopened_fds;
	struct rpc_ident id;

	struct sim *sim;
	struct stack *stack;
	char path[4096];
	FILE *f;
	char *line;
	struct ftrace_reader *rd;   /* parses single lines; keeps the event tables */
	bool perfetto;              /* the input is Perfetto: read through prd */
	struct trace_reader prd;
	uint64_t fs_events;         /* android_fs records read */
	uint64_t lineno;
	bool eof, reading, have_t0, have_sched;
	int64_t t0;
	struct sim_event rd_ev;

	const char *fg_comm[FR_MAX_PATTERNS];
	uint32_t nfg_comm;
	int64_t fg_pid[FR_MAX_PATTERNS];
	uint32_t nfg_pid;
	int64_t fg_uid[FR_MAX_PATTERNS];
	uint32_t nfg_uid;
	uint32_t fg_uid_value;

	struct rb_root threads, procs;
	uint32_t nthreads, nprocs, ntasks, live_tasks, nstarving;
	struct fr_op *free_ops;
	uint64_t queued, peak_queued, window_stalls;
	/* open loop: recorded times of the ops read and not yet due, in read
	 * order (a ring, at most the ops held), and the backlog's counts */
	struct overload ovl;
	int64_t *due_at;
	size_t due_cap, due_head, due_len;
	uint64_t ops_due, ops_done;

	struct {
		uint64_t key;           /* struct file pointer (+1; 0 = empty) */
		uint64_t pos;
	} pos[FR_POS_SLOTS];

	/* counters */
	uint64_t events, by_kind[STACK_NOPKIND], skip[FRS_N];
	uint64_t fault_pages_coalesced, fd_before_trace, open_waits;
	uint64_t regions_begun, regions_ended;
	struct fr_rec_region rec_regions[FR_JSON_REGIONS]; /* the first ones, as recorded */
	uint32_t nrec_regions;
	uint64_t files_created;
	struct {
		char name[48];
		uint64_t count;
	} kprobe[FR_KPROBE_NAMES];
	uint32_t nkprobe;
	uint64_t kprobe_other;
};

#define FR_OFF(f) offsetof(struct fr_state, f)

static const struct cfg_param fr_params[] = {
	{ "trace", CFG_T_STRING, FR_OFF(trace), "", NULL, CFG_NO_RANGE, "required",
	  "ftrace text (trace, trace_pipe or trace-cmd report) or a Perfetto trace with android_fs "
	  "events", NULL },
	{ "replay", CFG_T_ENUM, FR_OFF(mode), "", "closed", CFG_NO_RANGE,
	  "docs/architecture.md: closed loop is the default",
	  "closed: next op after the previous completes + recorded gap; open: recorded times",
	  fr_mode_names },
	{ "time_scale", CFG_T_DOUBLE, FR_OFF(time_scale), "", "1.0", 0, 1e6, "1 = as recorded",
	  "multiply recorded times and gaps by this", NULL },
	{ "window_ops", CFG_T_INT, FR_OFF(window_ops), "", "65536", 1, 1e9,
	  "choice: bounds memory (~6 MiB); a thread lagging further stalls the reader",
	  "ops read ahead of the simulation at most", NULL },
	{ "file_bytes", CFG_T_SIZE, FR_OFF(file_bytes), "MiB", "16MiB", 0.004, 1e7,
	  "choice: ftrace records no file sizes",
	  "assumed size of a file the trace first reads (at least up to that read's end)", NULL },
	{ "max_lines", CFG_T_INT, FR_OFF(max_lines), "", "0", 0, 1e15, "0 = the whole trace",
	  "stop reading after this many lines", NULL },
	{ "unopened_fds", CFG_T_ENUM, FR_OFF(unopened_fds), "", "skip", CFG_NO_RANGE,
	  "choice: such fds are mostly sockets, pipes and eventfds (Looper wake-ups)",
	  "I/O on an fd the trace never opened: skip (counted) or file (opened before the trace)",
	  fr_unopened_names },
	RPC_IDENT_PARAMS(struct fr_state, id, "99999", "an app uid never the default foreground"),
	{ "max_outstanding", CFG_T_INT, FR_OFF(ovl.max), "", "1000000", 1, 1e12,
	  "choice: as the block replay's (traces/workloads/replay.c)",
	  "open loop: ops past their recorded time and not completed before the run stops", NULL },
	CFG_PARAM_END,
};

/* ------------------------------------------------------------ helpers */

static int64_t fr_scale(const struct fr_state *st, int64_t t)
{
	if (t <= 0)
		return 0;
	return st->time_scale == 1.0 ? t : (int64_t)((double)t * st->time_scale + 0.5);
}

static struct fr_op *fr_op_alloc(struct fr_state *st)
{
	struct fr_op *o = st->free_ops;
	if (o)
		st->free_ops = *(struct fr_op **)o;
	else
		o = malloc(sizeof(*o));
	if (!o)
		return NULL;
	memset(o, 0, sizeof(*o));
	list_init(&o->node);
	return o;
}

static void fr_op_free(struct fr_state *st, struct fr_op *o)
{
	*(struct fr_op **)o = st->free_ops;
	st->free_ops = o;
}

static void fr_oom(struct fr_state *st)
{
	sim_fail(st->sim, SIM_E_NOMEM, "ftrace replay: out of memory");
	st->eof = true;
}

static struct fr_proc *fr_proc_get(struct fr_state *st, int32_t tgid)
{
	struct rb_node **link = &st->procs.node, *parent = NULL;
	while (*link) {
		struct fr_proc *p = rb_entry(*link, struct fr_proc, node);
		parent = *link;
		if (tgid == p->tgid)
			return p;
		link = tgid < p->tgid ? &parent->left : &parent->right;
	}
	struct fr_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tgid = tgid;
	p->uid = -1;
	rb_link_node(&p->node, parent, link);
	rb_insert_color(&p->node, &st->procs);
	st->nprocs++;
	return p;
}

/* A process is named after its main thread (Android: the package name),
 * so fg_comm patterns also select the app's other threads. */
static void fr_name_proc(struct fr_thread *th)
{
	if (th->comm_known && th->tid == th->tgid && !th->proc->comm[0])
		snprintf(th->proc->comm, sizeof(th->proc->comm), "%s", th->comm);
}

/* The thread tid (created when new); comm and tgid (-1: unknown) fill in
 * what an earlier sighting did not know, until it has a task. */
static struct fr_thread *fr_thread_get(struct fr_state *st, int32_t tid, int32_t tgid,
				       const char *comm)
{
	struct rb_node **link = &st->threads.node, *parent = NULL;
	while (*link) {
		struct fr_thread *th = rb_entry(*link, struct fr_thread, node);
		parent = *link;
		if (tid == th->tid) {
			if (th->task)
				return th;
			if (comm && comm[0] && strcmp(comm, "<...>") != 0) {
				snprintf(th->comm, sizeof(th->comm), "%s", comm);
				th->comm_known = true;
			}
			if (tgid > 0 && tgid != th->tgid) {
				/* first seen in sched_switch, which has no tgid */
				struct fr_proc *p = fr_proc_get(st, tgid);
				if (p) {
					th->tgid = tgid;
					th->proc = p;
				}
			}
			fr_name_proc(th);
			return th;
		}
		link = tid < th->tid ? &parent->left : &parent->right;
	}
	struct fr_thread *th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->st = st;
	th->tid = tid;
	th->tgid = tgid > 0 ? tgid : tid;
	th->proc = fr_proc_get(st, th->tgid);
	if (!th->proc) {
		free(th);
		return NULL;
	}
	if (comm && comm[0] && strcmp(comm, "<...>") != 0) {
		snprintf(th->comm, sizeof(th->comm), "%s", comm);
		th->comm_known = true;
	} else {
		snprintf(th->comm, sizeof(th->comm), "tid%d", tid);
	}
	fr_name_proc(th);
	th->last_end = -1;
	list_init(&th->fifo);
	rb_link_node(&th->node, parent, link);
	rb_insert_color(&th->node, &st->threads);
	st->nthreads++;
	return th;
}

static bool fr_any_fg_rule(const struct fr_state *st)
{
	return st->nfg_comm || st->nfg_pid || st->nfg_uid;
}

static bool fr_is_fg(const struct fr_state *st, const struct fr_thread *th)
{
	if (st->id.cls != RPC_CLASS_AUTO)
		return st->id.cls == RPC_CLASS_FG;
	if (!fr_any_fg_rule(st))
		return true;
	for (uint32_t i = 0; i < st->nfg_pid; i++)
		if (st->fg_pid[i] == th->tid || st->fg_pid[i] == th->tgid)
			return true;
	if (rpc_comm_matches(st->fg_comm, st->nfg_comm, th->comm) ||
	    (th->proc->comm[0] && rpc_comm_matches(st->fg_comm, st->nfg_comm, th->proc->comm)))
		return true;
	for (uint32_t i = 0; i < st->nfg_uid && th->proc->uid >= 0; i++)
		if (st->fg_uid[i] == th->proc->uid)
			return true;
	return false;
}

/* ------------------------------------------------------------ the op source */

static void fr_want_read(struct fr_state *st);
static bool fr_due_check(struct fr_state *st);

static int fr_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	struct fr_thread *th = ctx;
	struct fr_state *st = th->st;
	(void)t;
	for (int i = 0; i < 2; i++) {
		free(th->free_next[i]);
		th->free_next[i] = NULL;
	}
	if (th->busy) {
		th->busy = false;
		st->ops_done++;
	}
	if (st->mode == FR_OPEN && !fr_due_check(st))
		return 0;
	if (list_empty(&th->fifo)) {
		if (st->eof)
			return 0;
		if (!th->starving) {
			th->starving = true;
			st->nstarving++;
		}
		fr_want_read(st);
		return -1;
	}
	struct fr_op *o = list_first_entry(&th->fifo, struct fr_op, node);
	int64_t now = sim_now(st->sim);
	if (st->mode == FR_OPEN) {
		int64_t at = fr_scale(st, o->t_rec) + st->id.offset_ns;
		if (at > now) {
			memset(op, 0, sizeof(*op));
			op->kind = STACK_OP_SLEEP;
			op->ns = at - now;
			st->open_waits++;
			return 1;
		}
	}
	list_del_init(&o->node);
	if (th->tail_fault == o)
		th->tail_fault = NULL;
	*op = o->op;
	if (o->op.kind == STACK_OP_BEGIN) {
		SIM_ASSERT(th->sdepth < FR_REGION_DEPTH);
		th->snames[th->sdepth++] = o->name; /* the stack keeps the pointer until END */
		op->name = o->name;
	} else if (o->op.kind == STACK_OP_END) {
		op->name = o->name;
		th->free_next[0] = o->name;
		if (th->sdepth > 0)
			th->free_next[1] = th->snames[--th->sdepth];
	}
	th->ops_issued++;
	th->busy = true;
	fr_op_free(st, o);
	st->queued--;
	if (!st->eof && (st->nstarving || st->queued <= (uint64_t)st->window_ops / 2))
		fr_want_read(st);
	return 1;
}

static void fr_exited(struct stack_task *t, void *ctx)
{
	struct fr_thread *th = ctx;
	(void)t;
	th->exited = true;
	th->st->live_tasks--;
	sim_workload_progress(th->st->sim);
}

/* Give th a task the first time it has an op; its first op is due at t_rec. */
static bool fr_task_ensure(struct fr_state *st, struct fr_thread *th, int64_t t_rec)
{
	if (th->task)
		return true;
	th->fg = fr_is_fg(st, th);
	uint32_t uid;
	if (th->fg)
		uid = st->fg_uid_value;
	else if (st->id.cls == RPC_CLASS_BG)
		uid = (uint32_t)st->id.uid;
	else if (th->proc->uid >= 0 && (uint32_t)th->proc->uid != st->fg_uid_value)
		uid = (uint32_t)th->proc->uid;
	else
		uid = st->fg_uid_value == FR_BG_UID ? FR_BG_UID - 1 : FR_BG_UID;
	struct stack_task_attr a = {
		.name = th->comm,
		.pid = th->tgid + (int32_t)st->id.pid_offset,
		.tid = th->tid + (int32_t)st->id.pid_offset,
		.uid = uid,
	};
	struct stack_op_source src = { .next = fr_next, .exited = fr_exited, .ctx = th };
	struct sim_error err;
	th->task = stack_task_create(st->stack, &a, &src, &err);
	if (!th->task) {
		sim_fail(st->sim, err.code, "%s", err.msg);
		st->eof = true;
		return false;
	}
	st->ntasks++;
	st->live_tasks++;
	th->first_ns = fr_scale(st, t_rec) + st->id.offset_ns;
	stack_task_start(th->task, th->first_ns);
	return true;
}

/* Open loop: remember when an op read falls due. false: out of memory. */
static bool fr_due_push(struct fr_state *st, int64_t at)
{
	if (st->due_len == st->due_cap) {
		size_t cap = st->due_cap ? 2 * st->due_cap : 1024;
		int64_t *n = malloc(cap * sizeof(*n));
		if (!n)
			return false;
		for (size_t i = 0; i < st->due_len; i++)
			n[i] = st->due_at[(st->due_head + i) % st->due_cap];
		free(st->due_at);
		st->due_at = n;
		st->due_cap = cap;
		st->due_head = 0;
	}
	st->due_at[(st->due_head + st->due_len++) % st->due_cap] = at;
	return true;
}

/* Open loop: count the ops now due and check the backlog against
 * max_outstanding. false when the run has been stopped. */
static bool fr_due_check(struct fr_state *st)
{
	int64_t now = sim_now(st->sim);
	while (st->due_len && st->due_at[st->due_head] <= now) {
		st->due_head = (st->due_head + 1) % st->due_cap;
		st->due_len--;
		st->ops_due++;
	}
	uint64_t backlog = st->ops_due > st->ops_done ? st->ops_due - st->ops_done : 0;
	return overload_admit(&st->ovl, st->sim, "workload.max_outstanding", backlog, st->ops_done,
			      st->ops_due);
}

/* Append an op to th's stream (creating its task on the first one). */
static struct fr_op *fr_push(struct fr_state *st, struct fr_thread *th, enum stack_op_kind k,
			     struct stack_file *f, uint64_t off, uint64_t len, int64_t ns,
			     int64_t t_rec)
{
	if (!fr_task_ensure(st, th, t_rec))
		return NULL;
	struct fr_op *o = fr_op_alloc(st);
	if (!o) {
		fr_oom(st);
		return NULL;
	}
	o->op.kind = k;
	o->op.file = f;
	o->op.off = off;
	o->op.len = len;
	o->op.ns = ns;
	o->t_rec = t_rec;
	list_add_tail(&o->node, &th->fifo);
	th->tail_fault = k == STACK_OP_FAULT ? o : NULL;
	th->ops_read++;
	st->by_kind[k]++;
	if (st->mode == FR_OPEN && !fr_due_push(st, fr_scale(st, t_rec) + st->id.offset_ns)) {
		fr_oom(st);
		return NULL;
	}
	if (++st->queued > st->peak_queued)
		st->peak_queued = st->queued;
	if (th->starving) {
		th->starving = false;
		st->nstarving--;
		stack_task_kick(th->task);
	}
	return o;
}

/* ------------------------------------------------------------ the recorded threads */

/* Time th spent on a CPU since its last op ended, up to t, and restart the
 * count at t. */
static int64_t fr_take_run(struct fr_state *st, struct fr_thread *th, int64_t t)
{
	if (!st->have_sched)
		return 0;
	int64_t run = th->run_acc;
	if (th->running) {
		int64_t from = th->run_since > th->last_end ? th->run_since : th->last_end;
		if (t > from)
			run += t - from;
		th->run_since = t;
	}
	th->run_acc = 0;
	return run;
}

/* Any event of a thread shows it on a CPU at t (when the trace tracks
 * scheduling at all). */
static void fr_seen_running(struct fr_state *st, struct fr_thread *th, int64_t t)
{
	if (st->have_sched && !th->running) {
		th->running = true;
		th->run_since = t;
	}
}

/* The gap from th's last op to an op starting at t: CPU for the run part,
 * SLEEP for the rest (closed loop only: open loop waits for t itself). */
static void fr_gap(struct fr_state *st, struct fr_thread *th, int64_t t, int64_t run)
{
	if (th->last_end < 0 || t <= th->last_end)
		return;
	int64_t gap = t - th->last_end;
	if (run > gap)
		run = gap;
	if (run < 0)
		run = 0;
	if (run > 0 && !fr_push(st, th, STACK_OP_CPU, NULL, 0, 0, fr_scale(st, run), th->last_end))
		return;
	if (st->mode == FR_CLOSED && gap - run > 0)
		(void)fr_push(st, th, STACK_OP_SLEEP, NULL, 0, 0, fr_scale(st, gap - run),
			      th->last_end + run);
}

/* An op that took [t_start, t_end] in the trace. */
static struct fr_op *fr_op_at(struct fr_state *st, struct fr_thread *th, enum stack_op_kind k,
			      struct stack_file *f, uint64_t off, uint64_t len, int64_t t_start,
			      int64_t t_end, int64_t run)
{
	fr_gap(st, th, t_start, run);
	if (st->sim->failed)
		return NULL;
	struct fr_op *o = fr_push(st, th, k, f, off, len, 0, t_start);
	if (o && t_end > th->last_end) {
		th->last_end = t_end;
		if (th->running)
			th->run_since = t_end;
		th->run_acc = 0;
	}
	return o;
}

/* The simulated file of name; created (see the top comment for sizes) the
 * first time an op uses it: reading (existing data) or writing (empty). */
static struct stack_file *fr_file(struct fr_state *st, const char *name, bool reading,
				  uint64_t end)
{
	struct stack_file *f = stack_file_find(st->stack, name);
	if (f)
		return f;
	uint64_t size = 0;
	if (reading) {
		size = st->file_bytes;
		if (end > size)
			size = (end + STACK_PAGE_SIZE - 1) & ~(uint64_t)(STACK_PAGE_SIZE - 1);
	}
	struct sim_error err;
	f = stack_file_get(st->stack, name, size, &err);
	if (!f) {
		sim_fail(st->sim, err.code, "%s", err.msg);
		st->eof = true;
		return NULL;
	}
	st->files_created++;
	return f;
}

/* The fd entry of a process, or NULL beyond FR_MAX_FD (counted). */
static struct fr_fd *fr_fd(struct fr_state *st, struct fr_proc *p, int64_t fd)
{
	if (fd < 0 || fd >= FR_MAX_FD) {
		st->skip[FRS_FD_UNTRACKED]++;
		return NULL;
	}
	if ((uint64_t)fd >= p->nfd) {
		uint32_t n = p->nfd ? p->nfd : 16;
		while (n <= (uint64_t)fd)
			n *= 2;
		struct fr_fd *a = realloc(p->fd, n * sizeof(*a));
		if (!a) {
			fr_oom(st);
			return NULL;
		}
		memset(a + p->nfd, 0, (n - p->nfd) * sizeof(*a));
		p->fd = a;
		p->nfd = n;
	}
	return &p->fd[fd];
}

/* The file behind fd (named fd<N>@<tgid>). An fd never opened in the
 * trace is skipped (counted), or with unopened_fds: file taken for a file
 * opened before the trace started. */
static struct stack_file *fr_fd_file(struct fr_state *st, struct fr_proc *p, struct fr_fd *d,
				     int64_t fd, bool reading, uint64_t end)
{
	if (d->f)
		return d->f;
	if (st->unopened_fds == 0) {
		st->skip[FRS_FD_UNOPENED]++;
		return NULL;
	}
	char name[64];
	snprintf(name, sizeof(name), "fd%lld@%d", (long long)fd, p->tgid);
	d->f = fr_file(st, name, reading, end);
	st->fd_before_trace++;
	return d->f;
}

static void fr_sys_exit(struct fr_state *st, struct fr_thread *th, const struct ftrace_rec *rec,
			int64_t t)
{
	if (!th->in_sys || (rec->u.sys.nr >= 0 && th->sys_nr >= 0 && rec->u.sys.nr != th->sys_nr) ||
	    (rec->u.sys.call != th->call)) {
		th->in_sys = false;
		st->skip[FRS_SYS_UNPAIRED]++;
		return;
	}
	th->in_sys = false;
	int64_t ret = rec->u.sys.ret;
	struct fr_proc *p = th->proc;
	enum ftrace_syscall c = th->call;
	int64_t fd = (int64_t)(int32_t)th->args[0];

	if (c == FTRACE_SYS_OTHER) {
		st->skip[FRS_SYS_OTHER]++;
		return;
	}
	if (ret < 0) {
		st->skip[FRS_SYS_FAILED]++;
		return;
	}
	switch (c) {
	case FTRACE_SYS_READ:
	case FTRACE_SYS_PREAD64:
	case FTRACE_SYS_WRITE:
	case FTRACE_SYS_PWRITE64: {
		if (ret == 0) {
			st->skip[FRS_SYS_ZERO]++;
			return;
		}
		struct fr_fd *d = fr_fd(st, p, fd);
		if (!d)
			return;
		bool positional = c == FTRACE_SYS_PREAD64 || c == FTRACE_SYS_PWRITE64;
		uint64_t off = positional ? th->args[3] : d->pos;
		bool rd = c == FTRACE_SYS_READ || c == FTRACE_SYS_PREAD64;
		struct stack_file *f = fr_fd_file(st, p, d, fd, rd, off + (uint64_t)ret);
		if (!f)
			return;
		if (!positional)
			d->pos += (uint64_t)ret;
		struct fr_op *o = fr_op_at(st, th, rd ? STACK_OP_READ : STACK_OP_WRITE, f, off,
					   (uint64_t)ret, th->t_enter, t, th->gap_run);
		if (o && !rd && d->sync)
			o->op.flags |= STACK_OPF_SYNC;
		return;
	}
	case FTRACE_SYS_FSYNC:
	case FTRACE_SYS_FDATASYNC: {
		struct fr_fd *d = fr_fd(st, p, fd);
		struct stack_file *f = d ? fr_fd_file(st, p, d, fd, false, 0) : NULL;
		if (!f)
			return;
		(void)fr_op_at(st, th, c == FTRACE_SYS_FSYNC ? STACK_OP_FSYNC : STACK_OP_FDATASYNC, f,
			       0, 0, th->t_enter, t, th->gap_run);
		return;
	}
	case FTRACE_SYS_OPENAT: {
		struct fr_fd *d = fr_fd(st, p, ret);
		if (!d)
			return;
		char name[64];
		snprintf(name, sizeof(name), "fd%lld@%d", (long long)ret, p->tgid);
		/* O_TRUNC (01000) makes an empty file; otherwise it is taken to
		 * hold file_bytes of data (the trace has no sizes). */
		struct stack_file *f = stack_file_find(st->stack, name);
		bool trunc = (th->args[2] & FR_O_TRUNC) != 0;
		if (!f)
			f = fr_file(st, name, !trunc, 0);
		if (!f)
			return;
		d->f = f;
		d->pos = 0;
		d->sync = (th->args[2] & FR_O_DSYNC) != 0;
		(void)fr_op_at(st, th, STACK_OP_OPEN, f, 0, 0, th->t_enter, t, th->gap_run);
		return;
	}
	case FTRACE_SYS_CLOSE: {
		struct fr_fd *d = fr_fd(st, p, fd);
		if (!d)
			return;
		struct stack_file *f = fr_fd_file(st, p, d, fd, false, 0);
		if (f)
			(void)fr_op_at(st, th, STACK_OP_CLOSE, f, 0, 0, th->t_enter, t, th->gap_run);
		d->f = NULL; /* the number may be reused: the name maps to the same file */
		d->pos = 0;
		d->sync = false;
		return;
	}
	case FTRACE_SYS_MMAP: {
		int64_t mfd = (int64_t)(int32_t)th->args[4];
		if (mfd < 0) {
			st->skip[FRS_MMAP_ANON]++;
			return;
		}
		p->mmapped = true;
		st->skip[FRS_MMAP]++;
		return;
	}
	default:
		st->skip[FRS_SYS_OTHER]++;
		return;
	}
}

static void fr_pagecache_add(struct fr_state *st, struct fr_thread *th,
			     const struct ftrace_rec *rec, int64_t t)
{
	if (th->in_sys && th->call != FTRACE_SYS_OTHER && th->call != FTRACE_SYS_MMAP) {
		st->skip[FRS_PC_IN_SYSCALL]++;
		return;
	}
	if (!th->proc->mmapped) {
		st->skip[FRS_PC_NO_MMAP]++;
		return;
	}
	char name[96];
	snprintf(name, sizeof(name), "dev%u:%u/ino%llu", rec->u.pc.major, rec->u.pc.minor,
		 (unsigned long long)rec->u.pc.ino);
	uint64_t idx = rec->u.pc.index;
	struct fr_op *tail = th->tail_fault;
	if (tail && tail->fault_next == idx && t - tail->fault_t <= FR_FAULT_COALESCE_NS &&
	    strcmp(stack_file_name(tail->op.file), name) == 0) {
		tail->fault_next++;
		tail->fault_t = t;
		tail->op.len += STACK_PAGE_SIZE;
		st->fault_pages_coalesced++;
		return;
	}
	struct stack_file *f = fr_file(st, name, true, (idx + 1) << STACK_PAGE_SHIFT);
	if (!f)
		return;
	int64_t run = fr_take_run(st, th, t);
	struct fr_op *o = fr_op_at(st, th, STACK_OP_FAULT, f, idx << STACK_PAGE_SHIFT,
				   STACK_PAGE_SIZE, t, t, run);
	if (o) {
		o->fault_next = idx + 1;
		o->fault_t = t;
	}
}

static void fr_marker(struct fr_state *st, struct fr_thread *th, const struct ftrace_rec *rec,
		      int64_t t)
{
	if (rec->type == FTRACE_MARK_BEGIN) {
		uint32_t d = th->rdepth++;
		if (d >= FR_REGION_DEPTH) {
			st->skip[FRS_MARK_DEEP]++;
			return;
		}
		snprintf(th->rnames[d], sizeof(th->rnames[d]), "%s", rec->u.mark.name);
		th->rstart[d] = t;
		char *name = strdup(rec->u.mark.name);
		if (!name) {
			fr_oom(st);
			return;
		}
		int64_t run = fr_take_run(st, th, t);
		struct fr_op *o = fr_op_at(st, th, STACK_OP_BEGIN, NULL, 0, 0, t, t, run);
		if (!o) {
			free(name);
			return;
		}
		o->name = name;
		o->op.name = name;
		st->regions_begun++;
		return;
	}
	if (th->rdepth == 0) {
		st->skip[FRS_MARK_E_UNPAIRED]++;
		return;
	}
	uint32_t d = --th->rdepth;
	if (d >= FR_REGION_DEPTH) {
		st->skip[FRS_MARK_DEEP]++;
		return;
	}
	if (st->nrec_regions < FR_JSON_REGIONS) {
		struct fr_rec_region *rr = &st->rec_regions[st->nrec_regions++];
		snprintf(rr->name, sizeof(rr->name), "%s", th->rnames[d]);
		rr->tid = th->tid;
		rr->start_ns = fr_scale(st, th->rstart[d]);
		rr->duration_ns = fr_scale(st, t - th->rstart[d]);
	}
	char *name = strdup(th->rnames[d]);
	if (!name) {
		fr_oom(st);
		return;
	}
	int64_t run = fr_take_run(st, th, t);
	struct fr_op *o = fr_op_at(st, th, STACK_OP_END, NULL, 0, 0, t, t, run);
	if (!o) {
		free(name);
		return;
	}
	o->name = name;
	o->op.name = name;
	st->regions_ended++;
}

/* ------------------------------------------------------------ kprobes */

/* Event name and body of a line the reader skipped: after "TIMESTAMP: ". */
static bool fr_event_span(const char *line, size_t len, const char **np, const char **ne,
			  const char **body)
{
	const char *e = line + len;
	for (const char *p = line; p + 1 < e; p++) {
		if (p[0] != ':' || p[1] != ' ')
			continue;
		/* digits '.' digits right before the colon, preceded by a blank */
		const char *q = p;
		int frac = 0, intg = 0;
		while (q > line && q[-1] >= '0' && q[-1] <= '9') {
			q--;
			frac++;
		}
		if (!frac || q == line || q[-1] != '.')
			continue;
		q--;
		while (q > line && q[-1] >= '0' && q[-1] <= '9') {
			q--;
			intg++;
		}
		if (!intg || (q > line && q[-1] != ' ' && q[-1] != '\t'))
			continue;
		const char *n = p + 2;
		while (n < e && *n == ' ')
			n++;
		const char *m = n;
		while (m < e && *m != ':' && *m != ' ')
			m++;
		if (m == n || m >= e || *m != ':')
			return false;
		*np = n;
		*ne = m;
		*body = m + 1;
		return true;
	}
	return false;
}

/* Value of " key=" in [p, e): number (0x hex or decimal) into *v. */
static bool fr_kv_num(const char *p, const char *e, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	for (const char *s = p; s + kl + 1 < e; s++) {
		if ((s != p && s[-1] != ' ') || memcmp(s, key, kl) != 0 || s[kl] != '=')
			continue;
		const char *q = s + kl + 1;
		int base = 10;
		if (q + 1 < e && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
			base = 16;
			q += 2;
		}
		uint64_t x = 0;
		const char *d0 = q;
		for (; q < e; q++) {
			int dv;
			if (*q >= '0' && *q <= '9')
				dv = *q - '0';
			else if (base == 16 && *q >= 'a' && *q <= 'f')
				dv = *q - 'a' + 10;
			else if (base == 16 && *q >= 'A' && *q <= 'F')
				dv = *q - 'A' + 10;
			else
				break;
			x = x * (uint64_t)base + (uint64_t)dv;
		}
		if (q == d0)
			return false;
		*v = x;
		return true;
	}
	return false;
}

static void fr_kprobe_count(struct fr_state *st, const char *np, const char *ne)
{
	size_t n = (size_t)(ne - np);
	if (n >= sizeof(st->kprobe[0].name))
		n = sizeof(st->kprobe[0].name) - 1;
	for (uint32_t i = 0; i < st->nkprobe; i++)
		if (strlen(st->kprobe[i].name) == n && memcmp(st->kprobe[i].name, np, n) == 0) {
			st->kprobe[i].count++;
			return;
		}
	if (st->nkprobe == FR_KPROBE_NAMES) {
		st->kprobe_other++;
		return;
	}
	memcpy(st->kprobe[st->nkprobe].name, np, n);
	st->kprobe[st->nkprobe].name[n] = 0;
	st->kprobe[st->nkprobe++].count = 1;
}

/* A kprobe on the VFS entry points. Returns true when the line was one
 * (turned into an op or skipped by reason). */
static bool fr_kprobe(struct fr_state *st, const char *line, size_t len,
		      const struct ftrace_rec *rec, int64_t t)
{
	const char *np, *ne, *body;
	if (!fr_event_span(line, len, &np, &ne, &body))
		return false;
	const char *e = line + len;
	while (body < e && *body == ' ')
		body++;
	if (body >= e || *body != '(')
		return false;
	const char *sym = body + 1, *se = sym;
	while (se < e && *se != '+' && *se != ')')
		se++;
	size_t sl = (size_t)(se - sym);
	enum stack_op_kind k;
#define SYM(s) (sl == sizeof(s) - 1 && memcmp(sym, s, sl) == 0)
	if (SYM("vfs_read") || SYM("__vfs_read") || SYM("ksys_read"))
		k = STACK_OP_READ;
	else if (SYM("vfs_write") || SYM("__vfs_write") || SYM("ksys_write"))
		k = STACK_OP_WRITE;
	else if (SYM("vfs_fsync") || SYM("vfs_fsync_range"))
		k = STACK_OP_FSYNC;
	else
		return false;
#undef SYM
	fr_kprobe_count(st, np, ne);
	struct fr_thread *th = fr_thread_get(st, rec->pid, rec->tgid, rec->comm);
	if (!th) {
		fr_oom(st);
		return true;
	}
	fr_seen_running(st, th, t);
	uint64_t mode, count = 0, ino, dev, fptr = 0, pos, v;
	if (fr_kv_num(se, e, "i_mode", &mode) && (mode & 0170000) != 0100000) {
		st->skip[FRS_VFS_NOT_REGULAR]++;
		return true;
	}
	if (fr_kv_num(se, e, "uid_writer", &v) || fr_kv_num(se, e, "fsuid", &v))
		th->proc->uid = (int64_t)v;
	if (k == STACK_OP_FSYNC) {
		if (fr_kv_num(se, e, "datasync", &v) && v)
			k = STACK_OP_FDATASYNC;
	} else if (!fr_kv_num(se, e, "count", &count) || count == 0) {
		st->skip[FRS_VFS_ZERO]++;
		return true;
	}
	(void)fr_kv_num(se, e, "file", &fptr);
	char name[FTRACE_NAME_MAX + 64];
	if (fr_kv_num(se, e, "inode", &ino) || fr_kv_num(se, e, "ino", &ino)) {
		if (!fr_kv_num(se, e, "s_dev_inode", &dev) && !fr_kv_num(se, e, "s_dev", &dev) &&
		    !fr_kv_num(se, e, "dev", &dev))
			dev = 0;
		/* kernel dev_t: MAJOR = dev >> 20, MINOR = dev & 0xfffff */
		snprintf(name, sizeof(name), "dev%u:%u/ino%llu", (unsigned)(dev >> 20),
			 (unsigned)(dev & 0xfffff), (unsigned long long)ino);
	} else if (fptr) {
		snprintf(name, sizeof(name), "file@0x%llx", (unsigned long long)fptr);
	} else {
		snprintf(name, sizeof(name), "file@%d", th->tgid);
	}
	/* position: a pos= field, else sequential per struct file */
	uint32_t slot = (uint32_t)((fptr >> 6) * 2654435761u) % FR_POS_SLOTS;
	if (!fr_kv_num(se, e, "pos", &pos)) {
		if (st->pos[slot].key != fptr + 1) {
			st->pos[slot].key = fptr + 1;
			st->pos[slot].pos = 0;
		}
		pos = st->pos[slot].pos;
		st->pos[slot].pos += count;
	}
	struct stack_file *f = fr_file(st, name, k == STACK_OP_READ, pos + count);
	if (!f)
		return true;
	int64_t run = fr_take_run(st, th, t);
	if (k == STACK_OP_FSYNC || k == STACK_OP_FDATASYNC)
		(void)fr_op_at(st, th, k, f, 0, 0, t, t, run);
	else
		(void)fr_op_at(st, th, k, f, pos, count, t, t, run);
	return true;
}

/* ------------------------------------------------------------ reading */

static void fr_sched_switch(struct fr_state *st, const struct ftrace_rec *rec, int64_t t)
{
	st->have_sched = true;
	struct fr_thread *prev = NULL, *next = NULL;
	if (rec->u.sw.prev_pid > 0)
		prev = fr_thread_get(st, rec->u.sw.prev_pid, -1, rec->u.sw.prev_comm);
	if (rec->u.sw.next_pid > 0)
		next = fr_thread_get(st, rec->u.sw.next_pid, -1, rec->u.sw.next_comm);
	if ((rec->u.sw.prev_pid > 0 && !prev) || (rec->u.sw.next_pid > 0 && !next)) {
		fr_oom(st);
		return;
	}
	if (prev && prev->running) {
		int64_t from = prev->run_since > prev->last_end ? prev->run_since : prev->last_end;
		if (t > from)
			prev->run_acc += t - from;
		prev->running = false;
	}
	if (next) {
		next->running = true;
		next->run_since = t;
	}
}

/* One decoded record. */
static void fr_record(struct fr_state *st, const struct ftrace_rec *rec, int64_t t)
{
	switch (rec->type) {
	case FTRACE_SCHED_SWITCH:
		fr_sched_switch(st, rec, t);
		return;
	case FTRACE_SCHED_WAKEUP:
		st->skip[FRS_WAKEUP]++;
		return;
	case FTRACE_BLOCK_RQ_INSERT:
	case FTRACE_BLOCK_RQ_ISSUE:
	case FTRACE_BLOCK_RQ_COMPLETE:
	case FTRACE_BLOCK_BIO_QUEUE:
	case FTRACE_BLOCK_BIO_COMPLETE:
	case FTRACE_BLOCK_PLUG:
	case FTRACE_BLOCK_UNPLUG:
		st->skip[FRS_BLOCK]++;
		return;
	case FTRACE_WRITEBACK:
		st->skip[FRS_WRITEBACK]++;
		return;
	case FTRACE_PAGECACHE_DELETE:
		st->skip[FRS_PC_DELETE]++;
		return;
	case FTRACE_MARK_COUNTER:
	case FTRACE_MARK_ASYNC_BEGIN:
	case FTRACE_MARK_ASYNC_END:
		st->skip[FRS_MARK_OTHER]++;
		return;
	default:
		break;
	}
	struct fr_thread *th = fr_thread_get(st, rec->pid, rec->tgid, rec->comm);
	if (!th) {
		fr_oom(st);
		return;
	}
	fr_seen_running(st, th, t);
	switch (rec->type) {
	case FTRACE_SYS_ENTER:
		if (th->in_sys)
			st->skip[FRS_SYS_UNPAIRED]++;
		th->in_sys = true;
		th->call = rec->u.sys.call;
		th->sys_nr = rec->u.sys.nr;
		memcpy(th->args, rec->u.sys.args, sizeof(th->args));
		th->t_enter = t;
		th->gap_run = fr_take_run(st, th, t);
		return;
	case FTRACE_SYS_EXIT:
		fr_sys_exit(st, th, rec, t);
		return;
	case FTRACE_PAGECACHE_ADD:
		fr_pagecache_add(st, th, rec, t);
		return;
	case FTRACE_MARK_BEGIN:
	case FTRACE_MARK_END:
		fr_marker(st, th, rec, t);
		return;
	default:
		return;
	}
}

static void fr_fs_event(struct fr_state *st, const struct trace_rec *rec, int32_t tgid, int64_t t);

/* Value of "key " up to the next ',' (or the end) in [p, e). */
static bool fr_kv_word(const char *p, const char *e, const char *key, const char **vp,
		       const char **ve)
{
	size_t kl = strlen(key);
	for (const char *s = p; s + kl < e; s++) {
		if ((s != p && s[-1] != ' ') || memcmp(s, key, kl) != 0 || s[kl] != ' ')
			continue;
		const char *q = s + kl + 1, *r = q;
		while (r < e && *r != ',')
			r++;
		*vp = q;
		*ve = r;
		return true;
	}
	return false;
}

static bool fr_kv_dec(const char *p, const char *e, const char *key, uint64_t *v)
{
	const char *q, *r;
	if (!fr_kv_word(p, e, key, &q, &r) || q == r)
		return false;
	uint64_t x = 0;
	for (const char *c = q; c < r; c++) {
		if (*c < '0' || *c > '9')
			return false;
		x = x * 10 + (uint64_t)(*c - '0');
	}
	*v = x;
	return true;
}

/* The file events in ftrace text: Android's android_fs_dataread_start,
 * _datawrite_start, _fsync_start and f2fs's f2fs_dataread_start and
 * f2fs_datawrite_start (include/trace/events/android_fs_template.h,
 * f2fs.h: "entry_name %s, offset %llu, bytes %d, cmdline %s, pid %d,
 * i_size %llu, ino %lu", spaces in names replaced by '_'), as the
 * Perfetto reader returns them. Returns true when the line was one. */
static bool fr_fs_text(struct fr_state *st, const char *line, size_t len,
		       const struct ftrace_rec *rec, int64_t t)
{
	const char *np, *ne, *body;
	if (!fr_event_span(line, len, &np, &ne, &body))
		return false;
	size_t nl = (size_t)(ne - np);
	uint8_t dir;
#define EV(s) (nl == sizeof(s) - 1 && memcmp(np, s, nl) == 0)
	if (EV("android_fs_dataread_start") || EV("f2fs_dataread_start"))
		dir = TRACE_DIR_READ;
	else if (EV("android_fs_datawrite_start") || EV("f2fs_datawrite_start"))
		dir = TRACE_DIR_WRITE;
	else if (EV("android_fs_fsync_start"))
		dir = TRACE_DIR_NONE;
	else
		return false;
#undef EV
	fr_kprobe_count(st, np, ne); /* used: not an unknown event */
	const char *e = line + len, *pv, *pe, *cv, *ce;
	char path[FTRACE_NAME_MAX * 2], cmd[FTRACE_COMM_MAX];
	uint64_t v;
	struct trace_rec fr = { 0 };
	fr.kind = TRACE_REC_FILE;
	fr.dir = dir;
	fr.pid = rec->pid;
	path[0] = 0;
	if (fr_kv_word(body, e, "entry_name", &pv, &pe))
		snprintf(path, sizeof(path), "%.*s", (int)(pe - pv), pv);
	fr.path = path;
	if (fr_kv_word(body, e, "cmdline", &cv, &ce) && ce > cv) {
		snprintf(cmd, sizeof(cmd), "%.*s", (int)(ce - cv), cv);
		fr.comm = cmd;
	} else {
		fr.comm = rec->comm;
	}
	if (fr_kv_dec(body, e, "offset", &v))
		fr.file_off = v;
	if (fr_kv_dec(body, e, "bytes", &v))
		fr.bytes = (uint32_t)v;
	if (fr_kv_dec(body, e, "i_size", &v))
		fr.file_size = v;
	if (fr_kv_dec(body, e, "ino", &v))
		fr.ino = v;
	fr_fs_event(st, &fr, rec->tgid, t);
	return true;
}

/* "NAME:0:COL: what" from ftrace_parse_line (which does not know the line
 * number) -> "NAME:LINE:COL: what". */
static void fr_fail_line(struct fr_state *st, const struct sim_error *err)
{
	size_t n = strlen(st->path);
	const char *m = err->msg;
	if (strncmp(m, st->path, n) == 0 && strncmp(m + n, ":0:", 3) == 0)
		sim_fail(st->sim, err->code ? err->code : SIM_E_INPUT, "%s:%llu:%s", st->path,
			 (unsigned long long)st->lineno, m + n + 3);
	else
		sim_fail(st->sim, err->code ? err->code : SIM_E_INPUT, "%s:%llu: %s", st->path,
			 (unsigned long long)st->lineno, m);
	st->eof = true;
}

/* Read one line. Returns false at the end of input or on an error. */
static bool fr_read_line(struct fr_state *st)
{
	if (st->max_lines && st->lineno >= (uint64_t)st->max_lines)
		return false;
	if (!fgets(st->line, FTRACE_LINE_MAX + 2, st->f)) {
		if (ferror(st->f)) {
			sim_fail(st->sim, SIM_E_IO, "%s: read error after line %llu", st->path,
				 (unsigned long long)st->lineno);
		}
		return false;
	}
	st->lineno++;
	size_t len = strlen(st->line);
	if (len > 0 && st->line[len - 1] == '\n') {
		len--;
	} else if (len > FTRACE_LINE_MAX) {
		sim_fail(st->sim, SIM_E_INPUT, "%s:%llu: line longer than %d bytes", st->path,
			 (unsigned long long)st->lineno, FTRACE_LINE_MAX);
		return false;
	}
	struct ftrace_rec rec;
	struct sim_error err = { 0 };
	uint64_t skipped = ftrace_get_stats(st->rd)->skipped;
	int rc = ftrace_parse_line(st->rd, st->line, len, &rec, &err);
	if (rc < 0) {
		fr_fail_line(st, &err);
		return false;
	}
	if (rc == 0 && ftrace_get_stats(st->rd)->skipped == skipped)
		return true; /* comment, header, lost-events line */
	st->events++;
	if (!st->have_t0) {
		st->have_t0 = true;
		st->t0 = rec.time_ns;
	}
	int64_t t = rec.time_ns - st->t0;
	if (rc == 0 && !fr_fs_text(st, st->line, len, &rec, t))
		(void)fr_kprobe(st, st->line, len, &rec, t);
	else
		fr_record(st, &rec, t);
	return !st->sim->failed;
}

/* An android_fs record of a Perfetto trace: an op on the named file. */
static void fr_fs_event(struct fr_state *st, const struct trace_rec *rec, int32_t tgid, int64_t t)
{
	st->fs_events++;
	if (!rec->path || !rec->path[0]) {
		st->skip[FRS_FS_NO_PATH]++;
		return;
	}
	enum stack_op_kind k = rec->dir == TRACE_DIR_READ ? STACK_OP_READ
			       : rec->dir == TRACE_DIR_WRITE ? STACK_OP_WRITE : STACK_OP_FSYNC;
	if (k != STACK_OP_FSYNC && !rec->bytes) {
		st->skip[FRS_FS_ZERO]++;
		return;
	}
	struct fr_thread *th = fr_thread_get(st, rec->pid, tgid, rec->comm ? rec->comm : "");
	if (!th) {
		fr_oom(st);
		return;
	}
	fr_seen_running(st, th, t);
	/* the recorded size when the trace has it (a file first read holds
	 * i_size bytes), else as a text trace's file */
	uint64_t end = rec->file_off + rec->bytes;
	struct stack_file *f = stack_file_find(st->stack, rec->path);
	if (!f && k == STACK_OP_READ && rec->file_size) {
		struct sim_error err;
		uint64_t size = rec->file_size > end ? rec->file_size : end;
		f = stack_file_get(st->stack, rec->path,
				   (size + STACK_PAGE_SIZE - 1) & ~(uint64_t)(STACK_PAGE_SIZE - 1), &err);
		if (!f) {
			sim_fail(st->sim, err.code, "%s", err.msg);
			st->eof = true;
			return;
		}
		st->files_created++;
	}
	if (!f)
		f = fr_file(st, rec->path, k == STACK_OP_READ, end);
	if (!f)
		return;
	int64_t run = fr_take_run(st, th, t);
	if (k == STACK_OP_FSYNC)
		(void)fr_op_at(st, th, k, f, 0, 0, t, t, run);
	else
		(void)fr_op_at(st, th, k, f, rec->file_off, rec->bytes, t, t, run);
}

/* One record of a Perfetto input. Returns false at the end or on an error. */
static bool fr_read_perfetto(struct fr_state *st)
{
	struct trace_rec rec;
	struct sim_error err = { 0 };
	if (st->max_lines && st->events >= (uint64_t)st->max_lines)
		return false;
	int rc = trace_next(&st->prd, &rec, &err);
	if (rc < 0) {
		sim_fail(st->sim, rc, "%s", err.msg);
		return false;
	}
	if (rc == 0)
		return false;
	st->events++;
	if (!st->have_t0) {
		st->have_t0 = true;
		st->t0 = rec.time_ns;
	}
	int64_t t = rec.time_ns - st->t0;
	if (rec.kind == TRACE_REC_FILE)
		fr_fs_event(st, &rec, -1, t);
	else
		st->skip[FRS_BLOCK]++;
	return !st->sim->failed;
}

static void fr_finish_input(struct fr_state *st)
{
	st->eof = true;
	for (struct rb_node *n = rb_first(&st->threads); n; n = rb_next(n)) {
		struct fr_thread *th = rb_entry(n, struct fr_thread, node);
		if (th->in_sys) {
			th->in_sys = false;
			st->skip[FRS_UNFINISHED]++;
		}
		if (th->starving) {
			th->starving = false;
			st->nstarving--;
			stack_task_kick(th->task);
		}
	}
}

static void fr_read_more(struct fr_state *st)
{
	if (st->reading || st->eof)
		return;
	st->reading = true;
	while (!st->eof && !st->sim->failed) {
		if (st->queued >= (uint64_t)st->window_ops) {
			if (st->nstarving)
				st->window_stalls++;
			break;
		}
		if (!(st->perfetto ? fr_read_perfetto(st) : fr_read_line(st)))
			fr_finish_input(st);
	}
	st->reading = false;
	if (st->sim->failed)
		st->eof = true;
}

static void fr_rd_fire(struct sim *sim, struct sim_event *ev)
{
	struct fr_state *st = container_of(ev, struct fr_state, rd_ev);
	(void)sim;
	fr_read_more(st);
	sim_workload_progress(st->sim);
}

/* Read on from an event, never from inside a task's next(). */
static void fr_want_read(struct fr_state *st)
{
	if (st->eof || st->reading || sim_event_pending(&st->rd_ev))
		return;
	sim_at(st->sim, &st->rd_ev, sim_now(st->sim));
}

/* ------------------------------------------------------------ set-up */

static int fr_patterns(struct fr_state *st, struct cfg_node *wl, struct sim_error *err)
{
	int rc = rpc_parse_fg_comm(wl, st->fg_comm, &st->nfg_comm, FR_MAX_PATTERNS, err);
	if (rc)
		return rc;
	rc = rpc_parse_id_list(wl, "fg_pid", INT32_MAX, st->fg_pid, &st->nfg_pid, FR_MAX_PATTERNS,
			       err);
	if (!rc)
		rc = rpc_parse_id_list(wl, "fg_uid", UINT32_MAX, st->fg_uid, &st->nfg_uid,
				       FR_MAX_PATTERNS, err);
	if (rc)
		return rc;
	st->fg_uid_value = st->nfg_uid ? (uint32_t)st->fg_uid[0] : FR_DEFAULT_FG_UID;
	if (st->fg_uid_value == 0)
		return cfg_errorf(err, cfg_get(wl, "fg_uid"), "fg_uid 0 (root) is never foreground");
	return 0;
}

static void fr_destroy(void *state);

static int fr_create(struct sim *sim, struct cfg_node *node, void **state, struct sim_error *err)
{
	*state = NULL;
	if (!sim->stack)
		return cfg_errorf(err, node, "the ftrace replay needs the upper stack");
	struct fr_state *st = calloc(1, sizeof(*st));
	if (!st)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	st->sim = sim;
	st->stack = sim->stack;
	st->threads = RB_ROOT;
	st->procs = RB_ROOT;
	sim_event_init(&st->rd_ev, fr_rd_fire);
	cfg_mark_used(node, false);
	(void)cfg_get_str(node, "type");
	int rc = cfg_apply(fr_params, node, st, err);
	if (rc)
		goto fail;
	/* the scenario's top-level `replay:` (--set replay=open) wins */
	struct cfg_node *top = sim->doc ? cfg_lookup(cfg_root(sim->doc), "replay") : NULL;
	if (top) {
		cfg_mark_used(top, true);
		if (top->kind != CFG_SCALAR ||
		    (strcmp(top->value, "closed") && strcmp(top->value, "open"))) {
			rc = cfg_errorf(err, top, "expected closed or open");
			goto fail;
		}
		st->mode = strcmp(top->value, "open") == 0 ? FR_OPEN : FR_CLOSED;
	}
	rc = fr_patterns(st, node, err);
	if (rc)
		goto fail;
	rc = rpc_resolve_path(st->trace, cfg_get(node, "trace"), st->path, sizeof(st->path), err);
	if (rc)
		goto fail;
	/* the content must be ftrace text */
	st->f = fopen(st->path, "rb");
	if (!st->f) {
		rc = sim_errorf(err, SIM_E_IO, "%s: cannot open", st->path);
		goto fail;
	}
	char head[4096];
	size_t got = fread(head, 1, sizeof(head), st->f);
	if (trace_perfetto_ops.probe((const uint8_t *)head, got) >= 50) {
		/* Perfetto: its android_fs file events drive the replay */
		struct trace_opts o = { .file_events = true };
		fclose(st->f);
		st->f = NULL;
		rc = trace_open_named(st->path, "perfetto", &o, &st->prd, err);
		if (rc)
			goto fail;
		st->perfetto = true;
		rc = ftrace_open_mem("", 0, st->path, &st->rd, err);
		if (rc)
			goto fail;
		sim->replay = fr_mode_names[st->mode];
		*state = st;
		return 0;
	}
	bool html = trace_systrace_ops.probe((const uint8_t *)head, got) >= 50;
	if (!html && !ftrace_probe(head, got)) {
		rc = sim_errorf(err, SIM_E_INPUT, "%s: not ftrace text (the ftrace workload replays "
				"syscall, page-cache and marker events; use `type: replay` for block traces)",
				st->path);
		goto fail;
	}
	if (html) {
		/* systrace/atrace HTML: the ftrace text of its trace-data blocks */
		fclose(st->f);
		st->f = NULL;
		rc = systrace_text_fopen(st->path, &st->f, err);
		if (rc)
			goto fail;
	} else {
		rewind(st->f);
	}
	st->line = malloc(FTRACE_LINE_MAX + 2);
	if (!st->line) {
		rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
		goto fail;
	}
	rc = ftrace_open_mem("", 0, st->path, &st->rd, err);
	if (rc)
		goto fail;
	sim->replay = fr_mode_names[st->mode];
	*state = st;
	return 0;
fail:
	fr_destroy(st);
	return rc;
}

static void fr_start(struct sim *sim, void *state)
{
	struct fr_state *st = state;
	(void)sim;
	/* a background trace leaves the foreground to the other sources */
	if (st->id.cls != RPC_CLASS_BG)
		stack_set_fg_uid(st->stack, st->fg_uid_value);
	fr_read_more(st);
}

static bool fr_done(struct sim *sim, void *state)
{
	struct fr_state *st = state;
	(void)sim;
	return st->eof && st->live_tasks == 0;
}

static json_t *fr_u(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static void fr_stats_json(struct sim *sim, void *state, json_t *obj)
{
	struct fr_state *st = state;
	(void)sim;
	const struct ftrace_stats *fs = ftrace_get_stats(st->rd);
	json_object_set_new(obj, "trace", json_string(st->path));
	json_object_set_new(obj, "format", json_string(st->perfetto ? "perfetto" : "ftrace"));
	if (st->perfetto || st->fs_events)
		json_object_set_new(obj, "android_fs_events", fr_u(st->fs_events));
	json_object_set_new(obj, "replay", json_string(fr_mode_names[st->mode]));
	json_object_set_new(obj, "lines", fr_u(st->lineno));
	json_object_set_new(obj, "events", fr_u(st->events));
	json_object_set_new(obj, "threads_seen", fr_u(st->nthreads));
	json_object_set_new(obj, "processes_seen", fr_u(st->nprocs));
	json_object_set_new(obj, "tasks", fr_u(st->ntasks));
	json_object_set_new(obj, "files", fr_u(st->files_created));
	json_t *ops = json_object();
	uint64_t total = 0;
	for (int k = 0; k < STACK_NOPKIND; k++) {
		total += st->by_kind[k];
		if (st->by_kind[k])
			json_object_set_new(ops, stack_op_names[k], fr_u(st->by_kind[k]));
	}
	json_object_set_new(obj, "ops", ops);
	json_object_set_new(obj, "ops_total", fr_u(total));
	json_object_set_new(obj, "regions_begun", fr_u(st->regions_begun));
	json_object_set_new(obj, "regions_ended", fr_u(st->regions_ended));
	/* the recorded durations, to hold against the simulated "regions" */
	json_t *rr = json_array();
	for (uint32_t i = 0; i < st->nrec_regions; i++)
		json_array_append_new(rr, json_pack("{s:s, s:i, s:I, s:I}", "name",
						    st->rec_regions[i].name, "tid", st->rec_regions[i].tid,
						    "start_ns", (json_int_t)st->rec_regions[i].start_ns,
						    "duration_ns", (json_int_t)st->rec_regions[i].duration_ns));
	json_object_set_new(obj, "recorded_regions", rr);
	json_object_set_new(obj, "fault_pages_coalesced", fr_u(st->fault_pages_coalesced));
	json_object_set_new(obj, "fds_opened_before_trace", fr_u(st->fd_before_trace));
	json_object_set_new(obj, "open_loop_waits", fr_u(st->open_waits));
	json_object_set_new(obj, "sched_switch_seen", json_boolean(st->have_sched));
	json_object_set_new(obj, "peak_read_ahead_ops", fr_u(st->peak_queued));
	json_object_set_new(obj, "window_stalls", fr_u(st->window_stalls));
	if (st->mode == FR_OPEN)
		overload_json(&st->ovl, obj);

	/* known events not turned into ops, by reason */
	json_t *sk = json_object();
	uint64_t nsk = 0;
	for (int i = 0; i < FRS_N; i++) {
		nsk += st->skip[i];
		if (st->skip[i])
			json_object_set_new(sk, fr_skip_names[i], fr_u(st->skip[i]));
	}
	json_object_set_new(obj, "skipped", sk);
	json_object_set_new(obj, "skipped_total", fr_u(nsk));
	/* kprobe events used, and events the reader does not know (by name) */
	json_t *kp = json_object(), *unk = json_object();
	uint64_t nunk = 0;
	for (uint32_t i = 0; i < st->nkprobe; i++)
		json_object_set_new(kp, st->kprobe[i].name, fr_u(st->kprobe[i].count));
	for (uint32_t i = 0; i < fs->nskip; i++) {
		uint64_t c = fs->skip[i].count;
		for (uint32_t j = 0; j < st->nkprobe; j++)
			if (strcmp(st->kprobe[j].name, fs->skip[i].name) == 0)
				c = c >= st->kprobe[j].count ? c - st->kprobe[j].count : 0;
		if (c) {
			json_object_set_new(unk, fs->skip[i].name, fr_u(c));
			nunk += c;
		}
	}
	if (fs->skipped_other)
		json_object_set_new(unk, "(other)", fr_u(fs->skipped_other));
	nunk += fs->skipped_other;
	json_object_set_new(obj, "vfs_kprobes", kp);
	json_object_set_new(obj, "unknown_events", unk);
	json_object_set_new(obj, "unknown_total", fr_u(nunk));
	json_object_set_new(obj, "lost_events", fr_u(fs->lost_events));

	json_t *fgp = json_array(), *per = json_array();
	uint32_t nper = 0;
	for (struct rb_node *n = rb_first(&st->threads); n; n = rb_next(n)) {
		struct fr_thread *th = rb_entry(n, struct fr_thread, node);
		if (!th->task)
			continue;
		if (th->fg && json_array_size(fgp) < FR_JSON_TASKS)
			json_array_append_new(fgp, json_integer(th->tid));
		if (nper++ >= FR_JSON_TASKS)
			continue;
		json_array_append_new(per, json_pack("{s:i, s:i, s:s, s:s, s:I, s:I, s:I, s:I, s:b}",
						     "tid", th->tid, "tgid", th->tgid, "comm", th->comm,
						     "class", th->fg ? "fg" : "bg", "uid",
						     (json_int_t)stack_task_uid(th->task), "start_ns",
						     (json_int_t)th->first_ns, "ops_read",
						     (json_int_t)th->ops_read, "ops_issued",
						     (json_int_t)th->ops_issued, "exited", th->exited));
	}
	json_object_set_new(obj, "fg_tids", fgp);
	json_object_set_new(obj, "per_thread", per);
	json_object_set_new(obj, "params", cfg_params_to_json(fr_params, st));
}

static void fr_destroy(void *state)
{
	struct fr_state *st = state;
	if (!st)
		return;
	if (st->sim)
		sim_cancel(st->sim, &st->rd_ev);
	struct rb_node *n;
	while ((n = st->threads.node) != NULL) {
		struct fr_thread *th = rb_entry(n, struct fr_thread, node);
		rb_erase(n, &st->threads);
		while (!list_empty(&th->fifo)) {
			struct fr_op *o = list_first_entry(&th->fifo, struct fr_op, node);
			list_del_init(&o->node);
			free(o->name);
			free(o);
		}
		for (uint32_t i = 0; i < th->sdepth; i++)
			free(th->snames[i]);
		free(th->free_next[0]);
		free(th->free_next[1]);
		free(th);
	}
	while ((n = st->procs.node) != NULL) {
		struct fr_proc *p = rb_entry(n, struct fr_proc, node);
		rb_erase(n, &st->procs);
		free(p->fd);
		free(p);
	}
	while (st->free_ops) {
		struct fr_op *o = st->free_ops;
		st->free_ops = *(struct fr_op **)o;
		free(o);
	}
	if (st->rd)
		ftrace_close(st->rd);
	if (st->perfetto)
		trace_close(&st->prd);
	if (st->f)
		fclose(st->f);
	free(st->line);
	free(st->due_at);
	free(st);
}

const struct workload_ops ftrace_workload_ops = {
	.name = "ftrace",
	.summary = "full-stack replay of an ftrace text trace (syscalls, faults, markers; closed or open loop)",
	.create = fr_create,
	.start = fr_start,
	.done = fr_done,
	.stats_json = fr_stats_json,
	.destroy = fr_destroy,
	.needs_block = true,
	.needs_stack = true,
};
