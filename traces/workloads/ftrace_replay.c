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
 *
 * This file is the workload: parameters, the tasks' op source, reading the
 * input and the results. What each recorded event becomes is in
 * traces/workloads/ftrace_replay_rec.c; the state they share in
 * traces/workloads/ftrace_replay_int.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim/assert.h"
#include "sim/workload.h"
#include "traces/workloads/ftrace_replay_int.h"

static const char *const fr_mode_names[] = { "closed", "open", NULL };
static const char *const fr_unopened_names[] = { "skip", "file", NULL };

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

int64_t fr_scale(const struct fr_state *st, int64_t t)
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

void fr_oom(struct fr_state *st)
{
	sim_fail(st->sim, SIM_E_NOMEM, "ftrace replay: out of memory");
	st->eof = true;
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
struct fr_op *fr_push(struct fr_state *st, struct fr_thread *th, enum stack_op_kind k,
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

/* ------------------------------------------------------------ reading */

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
	uint64_t total = 0;
	for (int k = 0; k < STACK_NOPKIND; k++)
		total += st->by_kind[k];
	json_object_set_new(obj, "ops", stack_op_counts_json(st->by_kind));
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
