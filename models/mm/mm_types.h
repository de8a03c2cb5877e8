/* The memory-management layer's structures, types only: the locks, the
 * page cache and its pages, readahead and writeback state (models/mm/mm.h
 * declares the calls), and mm's parts of a task and of an inode, which
 * models/sched/task.h embeds in struct stack_task and struct stack_file
 * as Linux's task_struct holds nr_dirtied and reclaim_state and its inode
 * the address_space. scripts/check-layers lists this header as a part
 * the sched layer's task may embed and checks that it declares no call.
 */
#ifndef MODELS_MM_TYPES_H
#define MODELS_MM_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/engine.h"
#include "sim/list.h"
#include "sim/metrics.h"

struct stack;
struct stack_task;
struct stack_file;
struct pagecache;
struct pc_page;
struct json_t;
struct cfg_node;
struct sim_error;
struct stack_bio;

/* Lock spins a task owes inside its CPU debt (charged when it pays). */
enum mm_spin { MM_SPIN_LRU = 0, MM_SPIN_ZONE, MM_SPIN_TREE, MM_NSPIN };

/* include/linux/mmzone.h: DEF_PRIORITY 12 (scan lru_size >> priority). */
#define MM_DEF_PRIORITY 12

/* A spinlock in simulated time (FIFO ticket lock, holders never sleep):
 * an acquirer arriving at t spins max(0, free_at - t) then holds. */
struct mm_lock {
	int64_t free_at;
	/* a reclaimer's per-page holds to come: at per_start + i x per_period
	 * for per_hold, i < per_n; others fit in the gaps */
	int64_t per_start, per_period, per_hold;
	uint32_t per_n;
	uint64_t acquisitions, contended;
	int64_t wait_ns, hold_ns, max_wait_ns;
	int64_t wait_cls_ns[SIM_NCLASS];
	uint64_t acq_cls[SIM_NCLASS];
};

/* What a task is doing inside reclaim (one per task: a task allocates one
 * page at a time). */
enum mm_rc_phase {
	MM_RC_IDLE = 0,
	MM_RC_THROTTLE,      /* throttle_direct_reclaim */
	MM_RC_PRIORITY,      /* start of one priority pass of do_try_to_free_pages */
	MM_RC_CHUNK,         /* next SWAP_CLUSTER_MAX chunk of the pass */
	MM_RC_ISOLATED,      /* isolate_lru_pages done under lru_lock */
	MM_RC_SHRUNK,        /* shrink_page_list done; put back under lru_lock */
	MM_RC_PUTBACK,       /* put back; throttle checks of the chunk */
	MM_RC_PASS_END,      /* throttle_vm_writeout, priority nap */
	MM_RC_DONE,          /* reclaim returned; retry the allocation */
};

/* include/linux/swap.h: SWAP_CLUSTER_MAX 32, the reclaim batch. */
#define STACK_SWAP_CLUSTER_MAX 32

/* A run of consecutive isolated pages of one file that shrink_page_list
 * frees: their __remove_mapping holds of the file's tree_lock. */
struct mm_free_run {
	struct stack_file *file;
	uint32_t first;          /* position of its first page in the chunk */
	uint32_t n;              /* pages */
};

struct mm_reclaim {
	uint8_t phase;           /* enum mm_rc_phase */
	int8_t priority;
	bool kswapd;
	bool nofs;               /* GFP_NOFS allocation (ext4 write_begin) */
	uint32_t nr_reclaimed;   /* this reclaim run (sc->nr_reclaimed) */
	uint32_t nr_scanned;     /* this priority pass (sc->nr_scanned) */
	uint64_t total_scanned;  /* this run (do_try_to_free_pages) */
	uint64_t scan_inactive, scan_active; /* get_scan_count targets left in the pass */
	uint32_t taken, writeback, freed;    /* the chunk being processed */
	/* the chunk's pages in isolation order (inactive tail first); while
	 * isolated a page is on no list (lru_list PC_LRU_NONE) and only its
	 * reclaimer touches its lru links */
	struct pc_page *isolated[STACK_SWAP_CLUSTER_MAX];
	struct mm_free_run runs[STACK_SWAP_CLUSTER_MAX]; /* the chunk's freed pages */
	uint32_t nruns;
	uint32_t free_mask;      /* bit k: shrink_page_list frees isolated[k] */
	bool vmw_waited;         /* GFP_NOFS: throttle_vm_writeout waits once */
	uint32_t pcp_count;      /* per-cpu free list of the core it allocates on */
};

/* ------------------------------------- page cache, readahead, writeback */

/* include/linux/pagevec.h: PAGEVEC_SIZE 14 (3.10). */
#define STACK_PAGEVEC_SIZE 14
/* Largest readahead / read-around job in pages (read_ahead_kb <= 2048). */
#define STACK_FILL_MAX_PAGES 512

/* Hashed page wait queues (mm/filemap.c page_waitqueue()). */
#define STACK_WAITQ_BUCKETS 256

struct mem_params {
	uint64_t total_bytes;      /* RAM */
	uint64_t reserved_bytes;   /* kernel, anonymous memory of running apps: never page cache */
	uint64_t cached_bytes;     /* clean page cache of other files at t=0 (reclaim fodder) */
	uint64_t min_free_bytes;   /* 0: derived like min_free_kbytes = sqrt(16 * lowmem_kbytes) */
	int64_t hz;                /* CONFIG_HZ: reclaim's congestion waits are in jiffies */
	uint64_t extra_free_bytes; /* Android's extra_free_kbytes: added to low and high */
	int warm_lru;              /* enum pc_warm_lru: where a warm start's pages sit at t = 0 */
};

/* memory.warm_lru: where stack_file_prefill puts a warm app's pages. */
enum pc_warm_lru {
	PC_WARM_INACTIVE_NEWEST = 0, /* inactive head: newer than the other apps' cached pages */
	PC_WARM_INACTIVE_OLDEST,     /* inactive tail: reclaim takes them first */
	PC_WARM_ACTIVE,              /* active head: reclaim reaches them after deactivation */
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
	PG_READIO = 1u << 14,      /* locked, and its read bio is submitted (cleared with PG_LOCKED) */
	PG_WARM = 1u << 15,        /* put in by a warm start and not used since (accounting only) */
};

enum pc_lru { PC_LRU_NONE = 0, PC_LRU_INACTIVE, PC_LRU_ACTIVE };

struct pc_page {
	struct list_head lru;      /* inactive/active list, or the free pool */
	struct stack_file *file;
	uint32_t index;
	uint16_t flags;
	uint8_t lru_list;
};

/* A file's pages by index, as mapping->page_tree: leaves of 64 slots
 * with a bitmap of the present ones, reached through a directory indexed
 * by index / 64 (grown to the highest leaf used; a leaf is freed with its
 * last page). Lookup, insert and remove are O(1); the next present page
 * is a bit scan. */
#define PC_LEAF_SHIFT 6
struct pc_leaf {
	uint64_t map;
	/* PAGECACHE_TAG_WRITEBACK: bit set exactly while that slot's page has
	 * PG_WRITEBACK (wb_build_bio sets both, wb_bio_done clears both; a page
	 * under writeback is never freed), so waits find the next page under
	 * writeback a word at a time, as pagevec_lookup_tag does */
	uint64_t wb;
	struct pc_page *slot[1u << PC_LEAF_SHIFT];
};
struct pc_index {
	struct pc_leaf **leaf;     /* by index >> PC_LEAF_SHIFT; NULL: no page there */
	uint32_t nleaf;            /* entries of leaf[] */
};

struct ra_state {          /* struct file_ra_state */
	uint64_t start, size, async_size;
	uint64_t prev_page;    /* page of the last byte read (prev_pos >> PAGE_SHIFT), UINT64_MAX none */
	uint32_t mmap_miss;
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
	/* A writeback bio of f completed (its pages' PG_WRITEBACK cleared):
	 * registered by the layer above that waits on a file's writeback (the
	 * ext4 journal's ordered-mode commit, models/fs/journal.c); NULL none. */
	void (*on_progress)(struct stack *s, struct stack_file *f);
	/* counters */
	uint64_t pages_async, pages_sync, bios_async, bios_sync, chunks;
	uint64_t throttle_pauses;
	int64_t throttle_ns;
	uint64_t peak_dirty;
	uint64_t kupdate_runs, bg_runs;
};

/* ------------------------------------------------ mm's part of a task */

/* The page allocator's and dirty throttling's per-task state
 * (task_struct's nr_dirtied, nr_dirtied_pause, reclaim_state; the lru
 * pagevec being filled; a page-cache fill in progress). */
struct mm_task {
	uint64_t nr_dirtied, nr_dirtied_pause; /* dirty throttling (balance_dirty_pages) */
	int bdp_phase;
	uint32_t pvec;             /* lru pagevec fill */
	struct mm_reclaim rc;      /* reclaim this task is doing (direct, or kswapd's) */
	struct pc_fill fill;       /* readahead, read-around or single-page read in progress */
};

/* A writeback chunk in progress (the flusher's writeback_sb_inodes, an
 * fsync's or a file system thread's run of bios). */
struct wb_task {
	struct stack_bio *pend;    /* built, not yet submitted (chained by free_next) */
	struct stack_file *file;
	uint64_t cursor, left, wrote; /* left: also the bios a thread waits for */
	uint64_t map_start, map_end;  /* run mapped, its bios built one at a time */
	bool wrapped;
	uint32_t zero_chunks;
};

/* ---------------------------------------------- mm's part of an inode */

/* The page-cache mapping of a file (struct address_space: page_tree,
 * nrpages, tree_lock) and its writeback state (the inode's i_wb_list,
 * dirtied_when, writeback_index; the writeback epoch that the journal's
 * ordered-mode commit waits on). */
struct pc_mapping {
	struct pc_index pages;
	struct pc_page *last;      /* the page of highest index (appends look past it) */
	uint64_t nr_pages, nr_dirty, nr_writeback;
	struct mm_lock tree_lock;  /* mapping->tree_lock */
	/* writeback: b_dirty list (dirtied_when order) */
	struct list_head dirty_node;
	bool on_dirty_list;
	int64_t dirtied_when;
	uint64_t writeback_index;
	uint64_t wb_old, wb_cur;   /* pages under writeback before / since the last epoch flip */
	uint64_t wb_epoch;         /* bumped when a commit starts waiting for this inode's data */
	/* a warm start's accounting (stack_file_prefill; pagecache.warm in the result) */
	uint64_t warm_prefilled;   /* pages put in at t = 0, 0: not a warm file */
	uint64_t warm_reclaimed;   /* ... of them freed before the file's first use */
	uint64_t warm_unused;      /* ... freed unused after the file's first use */
	uint64_t warm_hits;        /* ... of them found cached at their first use */
	uint64_t warm_misses;      /* pages of the file read from storage after t = 0 */
};

#endif
