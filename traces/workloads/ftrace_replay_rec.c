/* The ftrace replay's reading of a recorded thread (the workload itself and
 * what each event becomes are described at the top of
 * traces/workloads/ftrace_replay.c): threads and processes by id, the gap
 * between two ops as CPU and SLEEP from sched_switch, fds and files, and
 * each event - syscall exit, page-cache add (a fault), atrace marker,
 * vfs_* kprobe, android_fs / f2fs file event, sched_switch - turned into ops
 * of its thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/assert.h"
#include "traces/workloads/ftrace_replay_int.h"


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

bool fr_is_fg(const struct fr_state *st, const struct fr_thread *th)
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
bool fr_kprobe(struct fr_state *st, const char *line, size_t len,
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

/* ------------------------------------------------------------ one record */

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
void fr_record(struct fr_state *st, const struct ftrace_rec *rec, int64_t t)
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
bool fr_fs_text(struct fr_state *st, const char *line, size_t len,
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

/* An android_fs record of a Perfetto trace: an op on the named file. */
void fr_fs_event(struct fr_state *st, const struct trace_rec *rec, int32_t tgid, int64_t t)
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