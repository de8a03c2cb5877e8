/* The upper stack's shared types: struct stack (the run's container of the
 * sched, mm and fs state), struct stack_file (the inode with its page cache
 * and file-system fields), struct stack_bio (a bio with what its completion
 * needs) and struct stack_task (the task_struct, with the per-task state of
 * every layer). Like Linux's include/linux/sched.h, fs.h and mm_types.h,
 * these definitions are read by every layer of the upper stack (sched, mm,
 * fs, stack); they declare no function, so what a layer may call is still
 * its own and lower layers' headers (scripts/check-layers checks both).
 * The sched layer's calls are in models/sched/sched.h, mm's in
 * models/mm/mm.h, fs's in models/fs/fs.h, the stack's in
 * models/stack/stack.h and stack_int.h.
 */
#ifndef MODELS_STACK_TYPES_H
#define MODELS_STACK_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "models/block/block.h"
#include "models/fs/fs.h"
#include "models/mm/mm.h"
#include "models/sched/latencytop.h"
#include "models/sched/sched.h"
#include "models/stack/stack.h"
#include "sim/engine.h"
#include "sim/list.h"
#include "sim/metrics.h"
#include "sim/rbtree.h"
#include "sim/rng.h"

/* Nested regions per task. */
#define STACK_REGION_DEPTH 8

struct tp_params {
	bool enabled;
	int64_t root_weight, bg_weight, bg_bfq_weight;
	int bg_prio_policy;
	const char *foreground_uids;
};

/* ------------------------------------------------------------- files */

struct stack_file {
	uint32_t id;
	char *name;
	uint64_t size;             /* i_size */
	struct pc_index pages;
	struct pc_page *last;      /* the page of highest index (appends look past it) */
	uint64_t nr_pages, nr_dirty, nr_writeback;
	struct mm_lock tree_lock;  /* mapping->tree_lock */

	struct fs_extent *ext;     /* sorted by page */
	uint32_t next_ext, cap_ext;
	uint64_t alloc_pages;      /* pages [0, alloc_pages) have blocks */
	uint64_t inode_lba;
	uint32_t inode_group;
	bool inode_cached;

	/* writeback: b_dirty list (dirtied_when order) */
	struct list_head dirty_node;
	bool on_dirty_list;
	int64_t dirtied_when;
	uint64_t writeback_index;

	struct ra_state ra;

	/* journal */
	uint64_t meta_tid;         /* transaction holding this inode's metadata, 0 none */
	uint64_t datasync_tid;     /* last tx that changed size/allocation */
	uint64_t ordered_tid;      /* tx whose ordered list holds this inode */
	struct list_head ordered_node;
	bool ordered_next;         /* allocated again while its tx commits: join the next one */
	uint64_t prealloc_lba, prealloc_left; /* mballoc-like per-inode preallocation (sectors) */
	uint64_t wb_old, wb_cur;   /* pages under writeback before / since the last epoch flip */
	uint64_t wb_epoch;         /* bumped when a commit starts waiting for this inode's data */

	struct list_head all_node; /* stack->files, creation order */
	struct stack_file *hnext;  /* name hash chain */
	bool is_meta;              /* the block device's metadata mapping */
	uint32_t owner_uid;        /* uid of the first non-root task that inserted one of its pages
	                            * (or stack_file_prefill's), 0 none: whose app it is */
	bool atomic;               /* inside F2FS_IOC_START_ATOMIC_WRITE .. COMMIT */
	uint64_t nr_atomic;        /* pages held (PG_ATOMIC) */
	void *fs_priv;             /* the file system's per-inode state (f2fs) */
	/* atime and mtime (= ctime), ns of the run's clock (models/fs/atime.c);
	 * times_set false: not yet given (a file that exists at the start) */
	int64_t atime_ns, mtime_ns;
	bool times_set;
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
	int fphase;                /* fsync machine (also after an O_SYNC write) */
	uint64_t lookup_paid;      /* scope global: idx + 1 whose lookup took the lock */
	uint64_t fcursor;
	uint64_t fmap_start, fmap_end; /* fsync: run mapped, its bios built one at a time */
	bool own_plug;
	/* O_DIRECT (models/fs/direct.c): byte cursor and end of the bios to
	 * submit; einval: the op failed its alignment check (not measured) */
	uint64_t dpos, dend;
	bool einval;
};

struct stack_task {
	struct stack *stack;
	enum task_kind kind;
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
	struct pc_fill fill;
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

	/* dirty throttling (task_struct nr_dirtied, nr_dirtied_pause) */
	uint64_t nr_dirtied, nr_dirtied_pause;
	int bdp_phase;

	/* lru pagevec fill */
	uint32_t pvec;
	/* reclaim this task is doing (direct reclaim, or kswapd's) */
	struct mm_reclaim rc;
	/* a section run on a core (cpu_run_section): its length is known when
	 * the core is taken (lock spins); it cannot be preempted */
	int64_t (*on_core)(struct stack_task *t, int64_t now);
	int64_t sect_hold, sect_cpu;
	bool nopreempt;
	/* lock spins inside cpu_debt, charged to their cause when it is paid */
	int64_t spin_debt[MM_NSPIN];

	/* kernel threads: writeback chunk in progress */
	struct stack_bio *pend;    /* built, not yet submitted (chained by free_next) */
	struct stack_file *wb_file;
	uint64_t wb_cursor, wb_left, wb_wrote;
	uint64_t wb_map_start, wb_map_end; /* run mapped, its bios built one at a time */
	bool wb_wrapped;
	uint32_t zero_chunks;

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

struct task_profiles {
	struct tp_params p;
	uint64_t moves;               /* group changes applied */
};

struct stack {
	struct sim *sim;
	struct blk_queue *q;
	struct stack_hooks hooks;
	uint32_t fg_uid;
	int32_t next_pid;
	uint32_t next_file_id;

	struct cpu_model cpu;
	struct pglock lock;
	struct mm_lock zone_lock;     /* zone->lock (buddy allocator) */
	struct pagecache pc;
	struct ra_params ra;
	struct writeback wb;
	struct fs fs;
	struct journal jn;
	struct task_profiles tp;
	struct latencytop lt;         /* models/sched/latencytop.c */

	struct list_head tasks;       /* creation order */
	uint32_t ntasks, user_alive;
	struct list_head files;
	struct stack_file **fhash;
	uint32_t fhash_size, nfiles;

	struct bio_pool bios;         /* struct stack_bio (sbio_alloc) */

	/* registered by stack_create before its first task (models/sched/sched.h) */
	task_fn task_run_fn[TASK_NKINDS]; /* what each kind of task runs */
	task_fn task_init;            /* per-task set-up of the layers above sched */

	/* fg timeline */
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
