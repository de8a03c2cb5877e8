/* The task (task_struct), the inode and the run's container of the upper
 * stack, and the stack bio: the sched layer's structures, which the layers
 * above it read. Each embeds the parts its layers own, defined in their
 * types-only headers (as Linux's task_struct embeds nr_dirtied and
 * reclaim_state, and ext4_inode_info embeds the inode and its mapping):
 * mm's per-task state, writeback's chunk and the page-cache mapping
 * (models/mm/mm_types.h); the fsync cursor and the file system's inode
 * info (models/fs/fs_types.h); each layer's state in struct stack. The
 * calls are in each layer's own header (models/sched/sched.h, mm/mm.h,
 * fs/fs.h); scripts/check-layers lets this header, and only it, include
 * those types-only parts of the layers above.
 */
#ifndef MODELS_SCHED_TASK_H
#define MODELS_SCHED_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include "models/block/block.h"
#include "models/fs/fs_types.h"
#include "models/mm/mm_types.h"
#include "models/policies/policy_hooks.h"
#include "models/sched/latencytop.h"
#include "models/sched/sched.h"
#include "models/stack/stack_op.h"
#include "sim/engine.h"
#include "sim/list.h"
#include "sim/metrics.h"

struct task_profiles;

/* Nested regions per task. */
#define STACK_REGION_DEPTH 8

/* ------------------------------------------------------------- files */

/* The inode of a file (or of the block device's metadata mapping). */
struct stack_file {
	uint32_t id;
	char *name;
	uint64_t size;             /* i_size */
	struct pc_mapping mapping; /* mm's: its pages and writeback (models/mm/mm_types.h) */
	struct ra_state ra;        /* mm's: file_ra_state */
	struct fs_inode ei;        /* fs's: block map, journal (models/fs/fs_types.h) */
	struct list_head all_node; /* stack->files, creation order */
	struct stack_file *hnext;  /* name hash chain */
	bool is_meta;              /* the block device's metadata mapping */
	uint32_t owner_uid;        /* uid of the first non-root task that inserted one of its pages
	                            * (or stack_file_prefill's), 0 none: whose app it is */
};

/* --------------------------------------------------------------- bios */

/* A bio of the upper stack. Its submitter sets bio.end_io and bio.private
 * when it builds it (bi_end_io, bi_private: mpage_end_io, ext4_end_bio,
 * end_bio_bh_io_sync, f2fs_write_end_io), so the completion comes back to
 * the layer that sent it; that end_io frees it with sbio_free. */
struct stack_bio {
	struct bio bio;
	struct stack *stack;
	/* page-cache bios: the pages it carries (a bio's bvecs) */
	struct stack_file *file;
	uint64_t index;            /* first page */
	uint32_t npages;
	uint64_t epoch;            /* writeback bios: file->wb_epoch at submission */
	struct stack_bio *free_next;
};

/* ------------------------------------------------------------- tasks */

/* Per-op progress of the running op. */
struct task_opstate {
	bool active;
	struct stack_op op;
	int64_t start_ns;
	enum sim_class cls;
	int phase;
	uint64_t idx, end;         /* page cursor */
	uint64_t tid;              /* fsync: transaction to wait for */
	bool ra_tried;             /* sync readahead done for idx */
	uint64_t lookup_paid;      /* scope global: idx + 1 whose lookup took the lock */
	struct fsync_cursor fsync; /* fs's: an fsync's progress (models/fs/fs_types.h) */
	bool own_plug;
	/* O_DIRECT (models/fs/direct.c): byte cursor and end of the bios to
	 * submit; einval: the op failed its alignment check (not measured) */
	uint64_t dpos, dend;
	bool einval;
};

struct stack_task {
	struct stack *stack;
	task_fn fn;                /* what it runs when it resumes (task_new) */
	void *data;                /* fn's argument (kthread_create's data) */
	bool kthread;              /* PF_KTHREAD: not an app's thread */
	const char *kind;          /* its role, the result's tasks[].kind: "user", "jbd2" ... */
	char *name;
	uint32_t uid;
	struct io_context ioc;
	struct blk_plug plug;
	struct blk_waiter waiter;

	enum task_state state;
	struct sim_event run_ev;   /* resume the state machine */
	struct sim_event timer_ev; /* delays, pauses, timeouts: fire = task_wake */
	struct sim_event cpu_ev;   /* end of a CPU slice */

	/* the current wait, accounted when it ends */
	enum sim_wait wait_cause;  /* SIM_NWAIT: not a wait (voluntary sleep, busy time) */
	int64_t wait_since;
	int64_t wait_ns;           /* delay-type waits: known length */
	struct pc_page *wait_page; /* page it sleeps on */
	uint16_t wait_mask;        /* flags that must clear */
	struct list_head waitq_node;
	uint64_t wait_tid;         /* journal commit it waits for */
	bool jhandle;              /* holds a jbd2 handle (counted in t_updates) */

	/* CPU */
	int64_t cpu_left;          /* ns of the current burst */
	int64_t cpu_debt;          /* accumulated per-page costs, run before the next step */
	int64_t cpu_ready_since;
	int64_t vruntime;          /* CFS virtual runtime (equal weights: ns on a core) */
	int64_t slice_start, slice_len;
	struct list_head rq_node;
	int core;                  /* -1 when not on a core */

	/* op stream */
	struct stack_op_source src;
	struct task_opstate os;
	const char *regions[STACK_REGION_DEPTH];
	int64_t region_start[STACK_REGION_DEPTH];
	double region_energy_j[STACK_REGION_DEPTH][2]; /* device, CPU at the begin */
	int nregions;

	/* per-op totals of this task, for its fio-style numbers (no histogram:
	 * replays may hold thousands of threads) */
	struct task_iostat {
		uint64_t count, bytes;
		int64_t lat_min, lat_max;
		double lat_sum;
	} io[SIM_NOP];

	/* mm's: dirty throttling, the lru pagevec, reclaim, a page-cache fill
	 * (models/mm/mm_types.h) */
	struct mm_task mm;
	/* a section run on a core (cpu_run_section): its length is known when
	 * the core is taken (lock spins); it cannot be preempted */
	int64_t (*on_core)(struct stack_task *t, int64_t now);
	int64_t sect_hold, sect_cpu;
	bool nopreempt;
	/* lock spins inside cpu_debt, charged to their cause when it is paid */
	int64_t spin_debt[MM_NSPIN];

	/* writeback's: the chunk a kernel thread or an fsync is writing
	 * (models/mm/mm_types.h) */
	struct wb_task wb;

	struct list_head all_node;
	struct list_head jwait_node; /* waiting for a commit */

	/* O_DIRECT: the op's bios in flight; asleep waiting for them */
	uint32_t dio_left;
	bool dio_waiting;

	/* per-task figures */
	uint64_t ops_done, bytes_read, bytes_written;
	uint64_t dio_einval;       /* direct reads/writes that returned EINVAL */
	int64_t wait_total[SIM_NWAIT];
	int64_t start_ns, exit_ns;
	bool started;
};

/* ------------------------------------------------------------ the stack */

struct stack {
	struct sim *sim;
	struct blk_queue *q;
	bool nested;                  /* a host stack under a virtual disk (stack_create_nested):
				       * kept out of sim->metrics */
	struct stack_hooks hooks;
	uint32_t fg_uid;
	int32_t next_pid;
	uint32_t next_file_id;

	/* each layer's state: sched's (sched.h), mm's (mm_types.h), fs's (fs_types.h) */
	struct cpu_model cpu;
	struct pglock lock;
	struct mm_lock zone_lock;     /* zone->lock (buddy allocator) */
	struct pagecache pc;
	struct ra_params ra;
	struct writeback wb;
	struct fs fs;
	struct journal jn;
	struct task_profiles *tp;     /* the stack's (models/stack/task_profiles.c) */
	struct latencytop lt;         /* models/sched/latencytop.c */

	struct list_head tasks;       /* creation order */
	uint32_t ntasks, user_alive;
	struct list_head files;       /* the file table (fs's, models/fs/vfs.c) */
	struct stack_file **fhash;
	uint32_t fhash_size, nfiles;

	struct bio_pool bios;         /* struct stack_bio (sbio_alloc) */

	/* registered by stack_create before its first task (models/sched/sched.h) */
	task_fn task_init;            /* per-task set-up of the layers above sched */

	/* fg timeline (the stack's, models/stack/stack.c) */
	struct stack_fg_switch { int64_t at; uint32_t uid; } *fg_tl;
	uint32_t fg_n, fg_next;
	struct sim_event fg_ev;
};

/* sbio_alloc/sbio_free: the stack's bios come from its pool (models/block/bio_pool.c). */
static inline struct stack_bio *sbio_alloc(struct stack *s)
{
	struct stack_bio *sb = bio_pool_alloc(&s->bios);
	if (sb)
		sb->stack = s;
	return sb;
}

static inline void sbio_free(struct stack *s, struct stack_bio *sb)
{
	bio_pool_free(&s->bios, sb);
}

static inline uint64_t pages_of(uint64_t bytes)
{
	return (bytes + STACK_PAGE_SIZE - 1) >> STACK_PAGE_SHIFT;
}

#endif
