/* The task/stack core shared by the upper stack: struct stack (the run's
 * container of every layer's state), files, stack bios, tasks and their
 * machinery (task.c), the CPU model (cpu.c), task profiles and launch ops.
 * The page cache, readahead, writeback and reclaim are declared in
 * models/mm/mm.h, the file systems and journal in models/fs/fs.h; mm/ and
 * fs/ code still includes this for struct stack and the task calls (why:
 * docs/architecture.md, scripts/check-layers). The public interface is
 * models/stack/stack.h.
 */
#ifndef MODELS_STACK_INT_H
#define MODELS_STACK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/block/block.h"
#include "models/fs/fs.h"
#include "models/mm/mm.h"
#include "models/stack/stack.h"
#include "sim/engine.h"
#include "sim/list.h"
#include "sim/metrics.h"
#include "sim/rbtree.h"
#include "sim/rng.h"

struct sim;

/* Nested regions per task. */
#define STACK_REGION_DEPTH 8

/* ------------------------------------------------------------ params */

struct cpu_params {
	int64_t cores;
	int64_t latency_ns;        /* sysctl_sched_latency (unscaled) */
	int64_t min_gran_ns;       /* sysctl_sched_min_granularity (unscaled) */
	int64_t wakeup_gran_ns;    /* sysctl_sched_wakeup_granularity (unscaled) */
};

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
	struct rb_root pages;
	struct pc_page *finger;    /* last page found or inserted: sequential lookups start here */
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
	bool atomic;               /* inside F2FS_IOC_START_ATOMIC_WRITE .. COMMIT */
	uint64_t nr_atomic;        /* pages held (PG_ATOMIC) */
	void *fs_priv;             /* the file system's per-inode state (f2fs) */
};

/* --------------------------------------------------------------- bios */

enum stack_bio_kind {
	SBIO_READ = 0,
	SBIO_WB_ASYNC,
	SBIO_WB_SYNC,
	SBIO_JOURNAL,
	SBIO_META_READ,
	SBIO_FS,           /* the file system's own I/O (f2fs nodes, checkpoint, cleaning) */
};

struct stack_bio {
	struct bio bio;
	struct stack *stack;
	struct stack_file *file;
	uint64_t index;            /* first page */
	uint32_t npages;
	uint8_t kind;
	uint64_t epoch;            /* writeback bios: file->wb_epoch at submission */
	struct stack_task *owner;  /* journal bios: the jbd2 task to wake */
	struct stack_bio *free_next;
};

/* ------------------------------------------------------------- tasks */

enum task_kind { TASK_USER = 0, TASK_FLUSHER, TASK_JBD2, TASK_KSWAPD, TASK_FS };

enum task_state {
	TS_NEW = 0,
	TS_RUNNING,     /* executing inline (inside task_run) */
	TS_READY,       /* run event scheduled */
	TS_BLOCKED,     /* sleeping or delayed: a wake-up will come */
	TS_CPU,         /* on a core or in the run queue */
	TS_IDLE,        /* kernel thread with nothing to do / user task waiting for its source */
	TS_EXITED,
};

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
	bool own_plug;
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
	bool wb_wrapped;
	uint32_t zero_chunks;

	struct list_head all_node;
	struct list_head jwait_node; /* waiting for a commit */

	/* per-task figures */
	uint64_t ops_done, bytes_read, bytes_written;
	int64_t wait_total[SIM_NWAIT];
	int64_t start_ns, exit_ns;
	bool started;
};

/* ------------------------------------------------------------ modules */

struct cpu_model {
	struct cpu_params p;
	int64_t latency, min_gran, wakeup_gran; /* scaled by 1 + ilog2(min(cores, 8)) */
	int64_t min_vruntime;
	struct stack_task **core;  /* running task per core */
	bool *held;                /* core taken by a polling I/O completion (stack_cpu_hold) */
	struct list_head runq;
	uint32_t nr_running;       /* on a core or queued */
	uint64_t bursts, queued, preemptions;
	int64_t busy_ns;
};

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

	struct list_head tasks;       /* creation order */
	uint32_t ntasks, user_alive;
	struct list_head files;
	struct stack_file **fhash;
	uint32_t fhash_size, nfiles;

	struct stack_bio *bio_free;
	uint64_t bios_live;
	struct stack_bio **bio_slabs;
	uint32_t nbio_slabs;

	/* fg timeline */
	struct stack_fg_switch { int64_t at; uint32_t uid; } *fg_tl;
	uint32_t fg_n, fg_next;
	struct sim_event fg_ev;
};

/* ---------------------------------------------- task.c: the machinery */

enum sim_class task_class(const struct stack_task *t);
struct stack_task *task_new(struct stack *s, enum task_kind kind, const char *name, uint32_t uid,
			    uint8_t ioprio_class, uint8_t ioprio_level);
void task_free(struct stack_task *t);
/* Sleep until task_wake(); cause accounted from now until the wake. The
 * task's plug is flushed (schedule()). */
void task_block(struct stack_task *t, enum sim_wait cause);
/* Charge ns of wait to cause without blocking (one part of a compound delay). */
void task_charge(struct stack_task *t, enum sim_wait cause, int64_t ns);
/* Charge the wait from since_ns until now (it is over). */
void task_charge_since(struct stack_task *t, enum sim_wait cause, int64_t since_ns);
/* A state slice of t on the run's timeline (no-op without --timeline). */
void task_timeline_slice(struct stack_task *t, const char *cat, const char *name,
			 int64_t start_ns, int64_t ns);
/* Become runnable again (resume at the current instant, via an event). */
void task_wake(struct stack_task *t);
/* Blocked for wait_ns (accounted to cause) then busy_ns more (not a wait),
 * then resumes. sleeps: a real sleep (flush the plug). Returns STEP_DONE
 * when both are zero (nothing happens), else STEP_BLOCK. */
enum step task_delay(struct stack_task *t, int64_t wait_ns, enum sim_wait cause, int64_t busy_ns,
		     bool sleeps);
/* Sleep on page until none of mask's flags is set. */
void task_wait_page(struct stack_task *t, struct pc_page *pg, uint16_t mask, enum sim_wait cause);
/* Run accumulated cpu_debt: STEP_DONE if none. */
enum step task_pay_cpu(struct stack_task *t);
/* Submit a bio from task context: STEP_BLOCK if it had to sleep in get_request. */
enum step task_submit_bio(struct stack_task *t, struct stack_bio *sb);
void task_start_plug(struct stack_task *t);
void task_finish_plug(struct stack_task *t);
/* Resume the state machine now (from an event or a wake). */
void task_run(struct stack_task *t);

/* ------------------------------------------------------------ cpu.c */

int cpu_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
void cpu_free(struct stack *s);
/* Run ns on a core (FIFO run queue, round-robin quantum); the task is
 * resumed with task_run when done. Queueing time is SIM_WAIT_CPU. True
 * when the burst already ran to its end (nothing could happen before it):
 * the task is running again and the caller goes on instead. */
bool cpu_run(struct stack_task *t, int64_t ns);
/* Run a section on a core: when t takes one, on_core(t, now) does its lock
 * acquisitions, charges its waits and returns its length; it is never
 * preempted (spinlocks disable preemption). may_inline: as cpu_run's
 * return, for a caller that can go on by itself (true: the section ran). */
bool cpu_run_section(struct stack_task *t, int64_t (*on_core)(struct stack_task *t, int64_t now),
		     bool may_inline);
/* Core of a task that finished a burst (from the burst's event). */
void cpu_burst_event(struct stack_task *t);
struct json_t *cpu_to_json(const struct cpu_model *c);
extern const struct cfg_param cpu_params_table[];
/* The CPU model as struct sim's cpu_ops (ctx: the stack). */
extern const struct sim_cpu_ops stack_cpu_ops;

/* ------------------------------------------------- task_profiles.c */

int task_profiles_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* Place t in its blkio group for its current state (no-op when disabled). */
void task_profiles_apply(struct stack *s, struct stack_task *t);
void task_profiles_apply_all(struct stack *s);
struct json_t *task_profiles_to_json(const struct stack *s);

/* -------------------------------------------------- stack_launch.c */

/* The WILLNEED, PLUG and UNPLUG ops. */
enum step launch_op_step(struct stack_task *t);

/* -------------------------------------------------------- stack.c */

struct stack_bio *sbio_alloc(struct stack *s);
void sbio_free(struct stack *s, struct stack_bio *sb);
/* end_io of every stack bio: dispatch by kind. */
void sbio_end_io(struct sim *sim, struct bio *bio);

static inline uint64_t pages_of(uint64_t bytes)
{
	return (bytes + STACK_PAGE_SIZE - 1) >> STACK_PAGE_SHIFT;
}

#endif
