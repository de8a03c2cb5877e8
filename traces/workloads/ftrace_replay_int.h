/* Internals the two files of the ftrace replay workload share: the
 * workload's state, the recorded threads and processes, the ops read ahead
 * of the simulation and the skip reasons. traces/workloads/ftrace_replay.c
 * is the workload (parameters, the tasks' op source, reading the input,
 * results); traces/workloads/ftrace_replay_rec.c turns each recorded event
 * into ops of its thread. Not for use outside these two files. */
#ifndef TRACES_WORKLOADS_FTRACE_REPLAY_INT_H
#define TRACES_WORKLOADS_FTRACE_REPLAY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/stack/stack.h"
#include "sim/list.h"
#include "sim/rbtree.h"
#include "sim/sim.h"
#include "traces/ftrace.h"
#include "traces/trace.h"
#include "traces/workloads/overload.h"
#include "traces/workloads/replay_common.h"

#define FR_REGION_DEPTH 8        /* STACK_REGION_DEPTH in models/sched/task.h */
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
/* ftrace_replay.c: the op stream */
int64_t fr_scale(const struct fr_state *st, int64_t t);
void fr_oom(struct fr_state *st);
struct fr_op *fr_push(struct fr_state *st, struct fr_thread *th, enum stack_op_kind k,
		      struct stack_file *f, uint64_t off, uint64_t len, int64_t ns,
		      int64_t t_rec);

/* ftrace_replay_rec.c: recorded events -> ops */
bool fr_is_fg(const struct fr_state *st, const struct fr_thread *th);
void fr_record(struct fr_state *st, const struct ftrace_rec *rec, int64_t t);
bool fr_fs_text(struct fr_state *st, const char *line, size_t len,
		const struct ftrace_rec *rec, int64_t t);
bool fr_kprobe(struct fr_state *st, const char *line, size_t len,
	       const struct ftrace_rec *rec, int64_t t);
void fr_fs_event(struct fr_state *st, const struct trace_rec *rec, int32_t tgid, int64_t t);

#endif
