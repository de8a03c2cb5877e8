/* Upper-stack internals shared by stack.c, task.c, cpu.c, pagecache.c,
 * pglock.c, readahead.c, writeback.c, fsync.c, fs.c and journal.c. Nothing
 * outside those files includes this; the public interface is
 * models/stack/stack.h.
 */
#ifndef MODELS_STACK_INT_H
#define MODELS_STACK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/block/block.h"
#include "models/mm/mm.h"
#include "models/stack/stack.h"
#include "sim/engine.h"
#include "sim/list.h"
#include "sim/metrics.h"
#include "sim/rbtree.h"
#include "sim/rng.h"

struct sim;

/* include/linux/pagevec.h: PAGEVEC_SIZE 14 (3.10). */
#define STACK_PAGEVEC_SIZE 14
/* include/linux/swap.h: SWAP_CLUSTER_MAX 32, the reclaim batch. */
#define STACK_SWAP_CLUSTER_MAX 32
/* Largest readahead / read-around job in pages (read_ahead_kb <= 2048). */
#define STACK_FILL_MAX_PAGES 512
/* Nested regions per task. */
#define STACK_REGION_DEPTH 8
/* Hashed page wait queues (mm/filemap.c page_waitqueue()). */
#define STACK_WAITQ_BUCKETS 256

/* ------------------------------------------------------------ params */

struct cpu_params {
	int64_t cores;
	int64_t latency_ns;        /* sysctl_sched_latency (unscaled) */
	int64_t min_gran_ns;       /* sysctl_sched_min_granularity (unscaled) */
	int64_t wakeup_gran_ns;    /* sysctl_sched_wakeup_granularity (unscaled) */
};

struct mem_params {
	uint64_t total_bytes;      /* RAM */
	uint64_t reserved_bytes;   /* kernel, anonymous memory of running apps: never page cache */
	uint64_t cached_bytes;     /* clean page cache of other files at t=0 (reclaim fodder) */
	uint64_t min_free_bytes;   /* 0: derived like min_free_kbytes = sqrt(16 * lowmem_kbytes) */
	int64_t hz;                /* CONFIG_HZ: reclaim's congestion waits are in jiffies */
	uint64_t extra_free_bytes; /* Android's extra_free_kbytes: added to low and high */
};

struct pc_params {
	int64_t read_copy_ns;      /* per page copied to user */
	int64_t write_copy_ns;     /* per page in generic_perform_write */
	int64_t fault_map_ns;      /* per fault: map the page */
	int64_t reclaim_page_ns;   /* per page reclaimed (shrink_page_list) */
};

enum pglock_scope { PGLOCK_SCOPE_LRU = 0, PGLOCK_SCOPE_GLOBAL = 1 };

struct pglock_params {
	int scope;                 /* enum pglock_scope */
	int64_t lru_add_batch_ns;  /* __pagevec_lru_add of one pagevec: fixed part */
	int64_t lru_add_page_ns;   /* ... per page */
	int64_t reclaim_batch_ns;  /* isolate a SWAP_CLUSTER_MAX batch */
	int64_t lookup_ns;         /* find_get_page (global scope only) */
	int64_t insert_ns;         /* radix insert per page (global scope only) */
	int64_t delete_ns;         /* radix delete per page (global scope only) */
	int64_t batch_pages;       /* pages per lru_lock acquisition (PAGEVEC_SIZE) */
	int64_t putback_batch_ns;  /* putback_inactive_pages: fixed part */
	int64_t putback_page_ns;   /* ... per page put back */
	int64_t zone_batch_ns;     /* rmqueue_bulk / free_pcppages_bulk: fixed part */
	int64_t zone_page_ns;      /* ... per page */
};

struct ra_params {
	uint64_t read_ahead_bytes; /* read_ahead_kb */
	bool mmap_readaround;
};

struct wb_params {
	int64_t dirty_background_ratio;
	uint64_t dirty_background_bytes;
	int64_t dirty_ratio;
	uint64_t dirty_bytes;
	int64_t dirty_expire_ns;
	int64_t dirty_writeback_ns;
	int64_t max_pause_ns;
	int64_t chunk_pages;       /* 0: writeback_chunk_size (3.2+); else fixed */
	double init_bw_bps;        /* INIT_BW */
	bool throttle;             /* balance_dirty_pages on */
	int64_t ioprio_class, ioprio_level;
};

struct fs_params {
	uint64_t partition_bytes;
	uint64_t partition_start_bytes;
	uint64_t extent_mean_bytes;   /* existing files: mean extent (exponential, >= 1 page) */
	uint64_t gap_mean_bytes;      /* hole between a file's extents (other files' data) */
	uint64_t alloc_extent_bytes;  /* delayed allocation: contiguous run the allocator grants */
	uint64_t max_bio_bytes;       /* bio_add_page limit (queue max_sectors) */
	uint64_t group_bytes;         /* ext4 block group */
	bool cold_metadata;           /* inode blocks not cached at start */
	int64_t layout_seed;          /* placement stream's seed (0: the run's) */
};

struct tp_params {
	bool enabled;
	int64_t root_weight, bg_weight, bg_bfq_weight;
	int bg_prio_policy;
	const char *foreground_uids;
};

struct journal_params {
	bool enabled;
	int64_t commit_interval_ns;
	uint64_t journal_bytes;
	int64_t ioprio_class, ioprio_level;
	bool ordered;                 /* data=ordered: commit waits for the data it allocated */
	int ordered_wait;             /* enum journal_ordered_wait */
	bool async_commit;            /* ext4 journal_async_commit (JBD2 ASYNC_COMMIT) */
};

/* What the ordered-mode commit waits for in each inode of its list. */
enum journal_ordered_wait {
	JOURNAL_WAIT_RANGE = 0,      /* the pages under writeback when the commit began */
	JOURNAL_WAIT_WHOLE_FILE = 1, /* 3.10 filemap_fdatawait(): walk the whole file */
};

/* -------------------------------------------------------------- pages */

enum pc_flag {
	PG_UPTODATE = 1u << 0,
	PG_DIRTY = 1u << 1,
	PG_WRITEBACK = 1u << 2,
	PG_LOCKED = 1u << 3,       /* read I/O in flight */
	PG_READAHEAD = 1u << 4,    /* async readahead marker */
	PG_REFERENCED = 1u << 5,
	PG_ACTIVE = 1u << 6,
	PG_WAITERS = 1u << 7,      /* some task sleeps on this page */
	PG_SYNCWB = 1u << 8,       /* writeback issued as sync (fsync), not by the flusher */
	PG_MAPPED = 1u << 9,       /* faulted into a mapping */
	PG_YOUNG = 1u << 10,       /* pte accessed since the last reclaim scan */
	PG_WBEPOCH = 1u << 11,     /* writeback epoch parity (journal ordered wait) */
	PG_ATOMIC = 1u << 12,      /* held by an f2fs atomic write until commit (not dirty) */
	PG_RECLAIM = 1u << 13,     /* reclaim met it dirty or under writeback (rotate at the end) */
	PG_RECLAIM_FREE = 1u << 14, /* isolated and about to be freed by a reclaimer */
};

enum pc_lru { PC_LRU_NONE = 0, PC_LRU_INACTIVE, PC_LRU_ACTIVE };

struct pc_page {
	struct rb_node node;       /* file->pages, by index */
	struct list_head lru;      /* inactive/active list, or the free pool */
	struct stack_file *file;
	uint32_t index;
	uint16_t flags;
	uint8_t lru_list;
};

/* ------------------------------------------------------------- files */

struct fs_extent {
	uint64_t page;     /* first file page */
	uint64_t lba;      /* first sector */
	uint64_t npages;
};

struct ra_state {          /* struct file_ra_state */
	uint64_t start, size, async_size;
	uint64_t prev_page;    /* page of the last byte read (prev_pos >> PAGE_SHIFT), UINT64_MAX none */
	uint32_t mmap_miss;
};

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

/* A resumable page-cache fill (readahead, read-around, single page read). */
struct pc_fill {
	bool active;
	struct stack_file *file;
	uint64_t start, nr, mark;  /* mark: index that gets PG_readahead, UINT64_MAX none */
	uint64_t cursor;
	int phase;
	bool own_plug;
	uint64_t newmask[STACK_FILL_MAX_PAGES / 64];
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

struct pglock {
	struct pglock_params p;
	struct mm_lock l;          /* zone->lru_lock (or the global lock, scope global) */
};

struct pagecache {
	struct mem_params mp;
	struct pc_params p;
	uint64_t capacity;         /* pages the cache may use */
	uint64_t used;             /* pages allocated to the cache */
	uint64_t wmark_min, wmark_low, wmark_high;
	struct list_head inactive, active;
	uint64_t nr_inactive, nr_active;
	/* page pool: slabs, free list */
	struct pc_page **slabs;
	uint32_t nslabs, cap_slabs, slab_used;
	struct list_head free_pages;
	struct list_head waitq[STACK_WAITQ_BUCKETS];
	struct list_head congestion_wq; /* congestion_wait(BLK_RW_ASYNC) sleepers */
	struct list_head pfmemalloc_wq; /* throttle_direct_reclaim sleepers */
	uint64_t nr_isolated;           /* NR_ISOLATED_FILE */
	int64_t pcp_batch, pcp_high;    /* zone_batchsize(), 6 x batch */
	struct stack_task *kswapd;
	/* counters */
	uint64_t hits, misses, inserted, evicted, activations, rotated;
	uint64_t kswapd_batches, kswapd_runs, direct_batches, direct_stalls, direct_runs;
	uint64_t alloc_retries, scanned, deactivated, reclaim_writeback, reclaim_dirty;
	uint64_t rotated_reclaimable, congestion_waits, wait_iff_congested;
	uint64_t isolation_throttled, vm_writeout_throttled, pfmemalloc_throttled, pcp_refills;
	uint64_t min_free_seen, peak_isolated; /* lowest free after an allocation; most isolated */
	uint64_t kswapd_sleep_free;     /* lowest free at which kswapd went to sleep */
	uint64_t ra_sync, ra_async, ra_readaround, ra_pages, ra_single;
	uint64_t read_bios, read_pages;
	uint64_t peak_used;
};

struct writeback {
	struct wb_params p;
	struct stack_task *flusher;
	struct list_head dirty_inodes;  /* b_dirty, eldest first */
	struct list_head b_io;          /* queued for this pass, next first */
	struct list_head b_more_io;     /* chunk used up: after this pass */
	uint32_t nr_dirty_inodes;       /* on any of the three */
	uint64_t nr_dirty, nr_writeback;
	uint64_t bg_thresh, thresh;     /* pages */
	uint64_t reclaim_request;       /* pages reclaim asked the flusher to write */
	bool kupdate_due;
	struct sim_event periodic;
	/* bandwidth estimate (bdi->write_bandwidth) */
	double write_bw_pps;
	uint64_t written_since, written_total;
	int64_t bw_stamp;
	struct list_head wb_wait;       /* tasks waiting for any writeback completion */
	/* counters */
	uint64_t pages_async, pages_sync, bios_async, bios_sync, chunks;
	uint64_t throttle_pauses;
	int64_t throttle_ns;
	uint64_t peak_dirty;
	uint64_t kupdate_runs, bg_runs;
};

struct journal_tx {
	uint64_t tid;
	uint64_t nr_meta;             /* metadata blocks to log */
	int64_t start_ns;
	bool has_handles;
	struct list_head ordered;     /* inodes (stack_file.ordered_node) */
};

struct journal {
	struct journal_params p;
	struct stack_task *jbd2;
	struct journal_tx running, committing;
	bool committing_active;
	uint64_t commit_request;      /* highest tid someone asked to commit */
	uint64_t committed;           /* highest committed tid */
	uint64_t head_lba, start_lba, nr_sectors;
	struct sim_event timer;
	struct list_head waiters;     /* tasks waiting for a commit */
	uint64_t *group_tid;          /* per block group: tx whose bitmap is dirty */
	uint32_t ngroups;
	/* counters */
	uint64_t commits, commits_fsync, commits_timer, blocks_written, ordered_waits;
	int64_t commit_ns_total, commit_ns_max;
	/* whole-file ordered wait: the page it sleeps on (index in ow_file) */
	struct stack_file *ow_file;
	uint64_t ow_index, ow_last;
	uint64_t ordered_pages_waited, flushes;
	int64_t ordered_wait_ns_total, ordered_wait_ns_max;
	int64_t ordered_start_ns;
};

struct task_profiles {
	struct tp_params p;
	uint64_t moves;               /* group changes applied */
};

struct fs_ops;
struct f2fs;

struct fs {
	const struct fs_ops *ops;     /* ext4 or f2fs (fs: {kind: ...}) */
	struct f2fs *f2;              /* f2fs state (models/fs/f2fs_int.h), NULL for ext4 */
	struct fs_params p;
	uint64_t start_sector, end_sector;
	uint64_t cursor;              /* next free sector for the bump allocator */
	uint64_t meta_start, meta_cursor;
	uint64_t allocated_sectors;
	struct stack_file *meta;      /* block-device mapping for inode blocks */
	gsl_rng *rng;
	struct sim_rng_set *layout_rngs; /* layout_seed: the set rng comes from */
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

/* Result of a step that may block. */
enum step { STEP_DONE = 0, STEP_BLOCK = 1 };

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
 * resumed with task_run when done. Queueing time is SIM_WAIT_CPU. */
void cpu_run(struct stack_task *t, int64_t ns);
/* Run a section on a core: when t takes one, on_core(t, now) does its lock
 * acquisitions, charges its waits and returns its length; it is never
 * preempted (spinlocks disable preemption). */
void cpu_run_section(struct stack_task *t, int64_t (*on_core)(struct stack_task *t, int64_t now));
/* Core of a task that finished a burst (from the burst's event). */
void cpu_burst_event(struct stack_task *t);
struct json_t *cpu_to_json(const struct cpu_model *c);
extern const struct cfg_param cpu_params_table[];

/* --------------------------------------------------------- pglock.c */

int pglock_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* Task-context helper: acquire and delay the task (wait -> pagecache_lock). */
enum step pglock_take(struct stack_task *t, int64_t hold_ns);
struct json_t *pglock_to_json(const struct pglock *l);

/* ------------------------------------------------------ pagecache.c */

int pagecache_init(struct stack *s, struct cfg_node *mem, struct cfg_node *pc,
		   struct sim_error *err);
void pagecache_free(struct stack *s);
struct pc_page *pc_find(struct stack_file *f, uint64_t index);
/* First page of f with index >= index, or NULL. */
struct pc_page *pc_find_ge(struct stack_file *f, uint64_t index);
struct pc_page *pc_next(struct pc_page *pg);
/* Allocate and insert a new locked page (not uptodate) at index for t.
 * *out NULL with STEP_BLOCK when t must wait (reclaim, policy, lock);
 * the caller retries at the same index after the wake. */
enum step pc_add_page(struct stack_task *t, struct stack_file *f, uint64_t index,
		      struct pc_page **out);
/* mark_page_accessed */
void pc_mark_accessed(struct stack *s, struct pc_page *pg);
/* Clear bits and wake sleepers on the page. */
void pc_clear_flags(struct stack *s, struct pc_page *pg, uint16_t bits);
void pc_wake_page(struct stack *s, struct pc_page *pg);
uint64_t pc_free_pages(const struct pagecache *pc);
/* Clean pages of an idle file at t = 0 (clamped to leave free memory). */
int pagecache_prefill(struct stack *s, struct stack_file *f, uint64_t npages,
		      struct sim_error *err);
struct json_t *pagecache_to_json(const struct stack *s);

/* ------------------------------------------------------ readahead.c */

int readahead_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
uint64_t ra_max_pages(const struct stack *s);
/* page_cache_sync_readahead: prepare t->fill (may leave it inactive). */
void ra_sync(struct stack_task *t, struct stack_file *f, uint64_t index, uint64_t req_pages);
/* page_cache_async_readahead at a PG_readahead page. */
void ra_async(struct stack_task *t, struct stack_file *f, struct pc_page *pg, uint64_t index,
	      uint64_t req_pages);
/* do_sync_mmap_readahead / do_async_mmap_readahead */
void ra_fault_miss(struct stack_task *t, struct stack_file *f, uint64_t index);
void ra_fault_hit(struct stack_task *t, struct stack_file *f, struct pc_page *pg, uint64_t index);
/* A single page read (no_cached_page). */
void fill_prepare(struct stack_task *t, struct stack_file *f, uint64_t start, uint64_t nr,
		  uint64_t async_size);
/* Resume t->fill: allocate, insert, submit under a plug. */
enum step fill_run(struct stack_task *t);

/* ------------------------------------------------------ writeback.c */

int writeback_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
void writeback_free(struct stack *s);
/* A clean page became dirty (account_page_dirtied, __mark_inode_dirty). */
void wb_page_dirtied(struct stack *s, struct pc_page *pg);
/* balance_dirty_pages_ratelimited: STEP_BLOCK while paused. */
enum step wb_balance_dirty(struct stack_task *t);
/* Mark pages [index, index+n) of f under writeback and build bios of at
 * most max_bio bytes within extents; sync selects REQ_SYNC. Allocates
 * blocks first (delayed allocation). Bios are appended to *list via
 * free_next, in order. Returns the number of bios. */
uint32_t wb_build_bios(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n,
		       bool sync, struct stack_bio **list);
void wb_bio_done(struct stack *s, struct stack_bio *sb);
void wb_wake_flusher(struct stack *s, bool background);
void flusher_run(struct stack_task *t);
void wb_update_thresholds(struct stack *s);
struct json_t *writeback_to_json(const struct stack *s);
/* Wait for any writeback completion (reclaim, flusher congestion). */
void wb_wait_any(struct stack_task *t, enum sim_wait cause, int64_t timeout_ns);

/* ---------------------------------------------------------- fsync.c */

/* The FSYNC / FDATASYNC op and O_SYNC writes: STEP_DONE when finished. */
enum step fsync_step(struct stack_task *t, struct stack_file *f, bool datasync);

/* ------------------------------------------------------------- fs.c */

int fs_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* Place journal, inode tables and data once the journal size is known. */
void fs_layout(struct stack *s, uint64_t journal_sectors);
/* Inode placement of a new file. */
void fs_new_file(struct stack *s, struct stack_file *f);
void fs_free(struct stack *s);
/* s->fs.rng: the stream "fs" of the run's seed, or of layout_seed. */
int fs_rng_open(struct stack *s, struct sim_error *err);
/* Allocate blocks for an existing file of npages (fragmented). */
int fs_alloc_existing(struct stack *s, struct stack_file *f, uint64_t npages);
/* Delayed allocation at writeback: cover [alloc_pages, upto). */
int fs_alloc_upto(struct stack *s, struct stack_file *f, uint64_t upto);
/* Sector of page index and pages left in its extent (*run), UINT64_MAX if unallocated. */
uint64_t fs_map(const struct stack_file *f, uint64_t index, uint64_t *run);
struct json_t *fs_to_json(const struct stack *s);

/* ------------------------------------------------ fs kinds (fs_kind.c) */

/* A file system kind, selected by `fs: {kind: NAME}` (models/fs/fs_kind.c).
 * Every hook is called by the upper stack at the point the kernel's VFS
 * calls the file system. */
struct fs_ops {
	const char *name;
	/* Parse `fs:` (and `journal:`, ext4 only) and lay out the partition. */
	int (*init)(struct stack *s, struct cfg_node *fs, struct cfg_node *jn,
		    struct sim_error *err);
	void (*free)(struct stack *s);
	void (*new_file)(struct stack *s, struct stack_file *f);
	int (*alloc_existing)(struct stack *s, struct stack_file *f, uint64_t npages);
	/* ->writepages: pages [index, index + n) are about to be written
	 * (sync: from fsync); give them blocks. */
	int (*map_for_write)(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n,
			     bool sync);
	/* mark_inode_dirty: mtime (datasync false) or size/allocation (true). */
	void (*dirty_inode)(struct stack *s, struct stack_file *f, bool datasync);
	/* ->fsync (and the tail of an O_SYNC write). */
	enum step (*fsync)(struct stack_task *t, struct stack_file *f, bool datasync);
	/* Before write() dirties pages (f2fs_balance_fs); NULL: nothing. */
	enum step (*write_begin)(struct stack_task *t, struct stack_file *f);
	/* F2FS_IOC_START_ATOMIC_WRITE (commit false) / COMMIT (true). */
	enum step (*atomic)(struct stack_task *t, struct stack_file *f, bool commit);
	/* STACK_OP_CREATE / UNLINK / RENAME / TRUNCATE of f (t->os.op); NULL: no
	 * metadata modelled. */
	enum step (*namespace)(struct stack_task *t, struct stack_file *f, enum stack_op_kind kind);
	void (*kthread_run)(struct stack_task *t);   /* TASK_FS */
	void (*bio_done)(struct stack *s, struct stack_bio *sb);   /* SBIO_FS */
	struct json_t *(*to_json)(const struct stack *s);
};

const struct fs_ops *fs_kind_find(const char *name);
extern const struct fs_ops ext4_fs_ops;
extern const struct fs_ops f2fs_fs_ops;

/* fsync.c: filemap_write_and_wait_range over the whole file (fphase 0..2);
 * STEP_DONE with fphase 3 when every dirty page is written and waited. */
enum step fsync_write_and_wait(struct stack_task *t, struct stack_file *f);
/* Submit the bios chained on t->pend in order; STEP_BLOCK if one slept. */
enum step task_submit_pending(struct stack_task *t);

/* -------------------------------------------------------- journal.c */

int journal_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
void journal_free(struct stack *s);
/* A handle dirtied f's inode (and, if alloc, a bitmap of group): joins the running tx. */
void journal_dirty_inode(struct stack *s, struct stack_file *f, bool datasync);
void journal_dirty_group(struct stack *s, uint32_t group);
/* Delayed allocation for f happened in the running tx (ordered data). */
void journal_add_ordered(struct stack *s, struct stack_file *f);
/* Ask for tid to be committed; STEP_BLOCK with t waiting (SIM_WAIT_JOURNAL). */
enum step journal_wait_commit(struct stack_task *t, uint64_t tid);
uint64_t journal_running_tid(const struct stack *s);
void jbd2_run(struct stack_task *t);
/* f's writeback from before the last epoch flip has drained. */
void journal_ordered_progress(struct stack *s, struct stack_file *f);
void journal_bio_done(struct stack *s, struct stack_bio *sb);
struct json_t *journal_to_json(const struct stack *s);

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
