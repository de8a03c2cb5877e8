/* The memory-management layer's interface: spinlocks in simulated time
 * (zone->lru_lock, zone->lock, mapping->tree_lock), the page cache and its
 * pages (pagecache.c, pglock.c), readahead (readahead.c), dirty writeback
 * (writeback.c) and the page reclaim of Linux 3.10 mm/vmscan.c +
 * mm/page_alloc.c (reclaim.c). mm calls down into the sched layer
 * (models/sched/sched.h) and the block layer; models/stack/stack_types.h
 * embeds these structures in struct stack, its tasks and files, and nothing
 * here includes it (the stack's types are only named by pointer).
 */
#ifndef MODELS_MM_H
#define MODELS_MM_H

#include <stdbool.h>
#include <stdint.h>

#include "models/sched/sched.h"
#include "sim/engine.h"
#include "sim/list.h"
#include "sim/metrics.h"
#include "sim/rbtree.h"

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

/* Count n acquisitions of l by class c, each held hold_ns, the first
 * after spinning wait. */
static inline void mm_lock_count(struct mm_lock *l, int64_t wait, int64_t hold_ns,
				 enum sim_class c, uint32_t n)
{
	l->acquisitions += n;
	l->acq_cls[c] += n;
	l->hold_ns += hold_ns * n;
	if (wait > 0) {
		l->contended++;
		l->wait_ns += wait;
		l->wait_cls_ns[c] += wait;
		if (wait > l->max_wait_ns)
			l->max_wait_ns = wait;
	}
}

/* Spin time before the holder gets l at now; l is then held for hold_ns. */
int64_t mm_lock_acquire_slow(struct mm_lock *l, int64_t now, int64_t hold_ns, enum sim_class c);
/* Taken per page inserted: a free lock with no reclaimer's holds to come
 * is taken here without a call. */
static inline int64_t mm_lock_acquire(struct mm_lock *l, int64_t now, int64_t hold_ns,
				      enum sim_class c)
{
	if (l->per_n || l->free_at > now)
		return mm_lock_acquire_slow(l, now, hold_ns, c);
	if (now + hold_ns > l->free_at)
		l->free_at = now + hold_ns;
	mm_lock_count(l, 0, hold_ns, c, 1);
	return 0;
}
/* n holds of hold_ns every period_ns from start (a loop taking the lock
 * once per page): returns the spin before the first; the lock stays free
 * between them for others. */
int64_t mm_lock_reserve_periodic(struct mm_lock *l, int64_t start, int64_t period_ns,
				 int64_t hold_ns, uint32_t n, enum sim_class c);
struct json_t *mm_lock_to_json(const struct mm_lock *l);

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

void mm_reclaim_task_init(struct mm_reclaim *rc);

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
/* First page of f with index in [from, last] under writeback, or NULL
 * (by the leaves' writeback tags). */
struct pc_page *pc_find_writeback(const struct stack_file *f, uint64_t from, uint64_t last);
/* Pages in the run from start (present, dirty, not under writeback)
 * through start + 1, start + 2, ... while each is present, dirty and not
 * under writeback, at most lim (>= 1) in all. */
uint64_t pc_dirty_run(const struct stack_file *f, uint64_t start, uint64_t lim);
/* Free a file's page index (its pages belong to the pool). */
void pc_index_free(struct pc_index *ix);
/* Allocate and insert a new locked page (not uptodate) at index for t.
 * *out NULL with STEP_BLOCK when t must wait (reclaim, policy, lock);
 * the caller retries at the same index after the wake. */
enum step pc_add_page(struct stack_task *t, struct stack_file *f, uint64_t index,
		      struct pc_page **out);
/* mark_page_accessed */
void pc_mark_accessed(struct stack *s, struct pc_page *pg);
/* Clear bits and wake sleepers on the page. */
void pc_clear_flags_slow(struct stack *s, struct pc_page *pg, uint16_t bits);
/* Per page written and per page whose writeback ends: without PG_reclaim
 * or sleepers only the bits change. */
static inline void pc_clear_flags(struct stack *s, struct pc_page *pg, uint16_t bits)
{
	if (pg->flags & (PG_RECLAIM | PG_WAITERS))
		pc_clear_flags_slow(s, pg, bits);
	else
		pg->flags &= (uint16_t)~bits;
}
void pc_wake_page(struct stack *s, struct pc_page *pg);
/* submit_bio of pg's read: PG_READIO on, and a task sleeping on the lock
 * since before (page_lock) waits from now on for the read (read_io). */
void pc_page_read_submitted(struct stack *s, struct pc_page *pg);
/* Why a lock_page on a PG_LOCKED page sleeps: its read bio is in flight
 * (read_io, from the filler's submit_bio on, get_request sleep included),
 * or the locker has not submitted it yet (page_lock: the filler is still
 * inserting the window's pages, in direct reclaim or on the page-cache
 * locks, or submitting the window's earlier bios). */
static inline enum sim_wait pc_lock_wait_cause(const struct pc_page *pg)
{
	return (pg->flags & PG_READIO) ? SIM_WAIT_READ_IO : SIM_WAIT_PAGE_LOCK;
}
/* Sleep on page until none of mask's flags is set (wait_on_page_bit). */
void task_wait_page(struct stack_task *t, struct pc_page *pg, uint16_t mask, enum sim_wait cause);
/* Free pages: asked at every allocation, hence inline. */
static inline uint64_t pc_free_pages(const struct pagecache *pc)
{
	return pc->used >= pc->capacity ? 0 : pc->capacity - pc->used;
}
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
/* ->writepages' block mapping of the run of n dirty pages of f from index
 * (delayed allocation), done once for the run before its first bio; sync:
 * for an fsync. Nonzero (and the run failed) when the file system is full. */
int wb_map_run(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n, bool sync);
/* The next bios of a mapped run: from index (dirty and not under
 * writeback) to at most end, its next bio, or every bio to end if the file
 * system locks the run (fs_ops.locks_run). A bio holds dirty pages of one
 * extent, at most max_bio bytes, marked under writeback (PG_dirty off) as
 * it is built; sync selects REQ_SYNC. Bios are appended to *list via
 * free_next, in order. Returns the number of pages taken (0 after a
 * failure). */
uint64_t wb_build_bios(struct stack *s, struct stack_file *f, uint64_t index, uint64_t end,
		       bool sync, struct stack_bio **list);
void wb_wake_flusher(struct stack *s, bool background);
void flusher_run(struct stack_task *t);
void wb_update_thresholds(struct stack *s);
struct json_t *writeback_to_json(const struct stack *s);
/* Wait for any writeback completion (reclaim, flusher congestion). */
void wb_wait_any(struct stack_task *t, enum sim_wait cause, int64_t timeout_ns);

/* ---------------------------------------------------------- reclaim.c */

/* __alloc_pages for one page-cache page by t (nofs: GFP_NOFS, as ext4's
 * write_begin): true when t blocked (reclaim, throttling); it calls
 * again after the wake. The zone->lock of a per-cpu list refill is added
 * to t's CPU debt. */
bool mm_alloc_page(struct stack_task *t, bool nofs);
/* mm_alloc_page's common case, asked first at every page allocation: a
 * task in no reclaim, free above the low watermark and a page on its
 * per-cpu list. mm_alloc_page does the same there (takes the page, no
 * kswapd wake, no refill) and returns false; true here means taken. */
static inline bool mm_alloc_page_fast(struct pagecache *pc, struct mm_reclaim *rc)
{
	/* free > low, free = capacity - used clamped at 0: as low >= 0, the
	 * same as used + low < capacity (page counts, far from overflow) */
	uint64_t used = pc->used, cap = pc->capacity;
	if (rc->phase != MM_RC_IDLE || rc->pcp_count == 0 || used + pc->wmark_low >= cap)
		return false;
	rc->pcp_count--;
	uint64_t left = cap - used - 1; /* free after the page about to be taken */
	if (left < pc->min_free_seen)
		pc->min_free_seen = left;
	return true;
}
/* wakeup_kswapd */
void mm_wake_kswapd(struct stack *s);
/* kswapd's state machine step (its thread function). */
void kswapd_run(struct stack_task *t);
/* Create kswapd0, idle until mm_wake_kswapd (NULL: out of memory). */
struct stack_task *mm_kswapd_new(struct stack *s);
/* An async writeback bio completed: congestion_wait sleepers wake when
 * the async request list is below its congestion-off threshold. */
void mm_async_write_done(struct stack *s);
/* end_page_writeback of pg: a PG_reclaim page goes to the inactive tail. */
void mm_writeback_end(struct stack *s, struct pc_page *pg);
/* Length of schedule_timeout(jiffies) started at now (ticks of memory.hz
 * from t = 0). */
int64_t mm_jiffies_timeout_ns(const struct pagecache *pc, int64_t now, int64_t jiffies);
struct json_t *mm_reclaim_to_json(const struct stack *s);

/* -------------------------------------------------------- pagecache.c */

/* LRU primitives reclaim uses (lru: enum pc_lru); per page inserted,
 * reclaimed or put back, hence inline. */
static inline void pc_lru_del(struct pagecache *pc, struct pc_page *pg)
{
	if (pg->lru_list == PC_LRU_INACTIVE)
		pc->nr_inactive--;
	else if (pg->lru_list == PC_LRU_ACTIVE)
		pc->nr_active--;
	list_del_init(&pg->lru);
	pg->lru_list = PC_LRU_NONE;
}

static inline void pc_lru_add_head(struct pagecache *pc, struct pc_page *pg, int which)
{
	if (which == PC_LRU_ACTIVE) {
		list_add(&pg->lru, &pc->active);
		pc->nr_active++;
		pg->flags |= PG_ACTIVE;
	} else {
		list_add(&pg->lru, &pc->inactive);
		pc->nr_inactive++;
		pg->flags &= (uint16_t)~PG_ACTIVE;
	}
	pg->lru_list = (uint8_t)which;
}

/* Remove pg from its file and return it to the pool (__remove_mapping). */
void pc_page_free(struct stack *s, struct pc_page *pg);
/* The same for n pages on no list (a reclaimer's isolated pages), in order. */
void pc_pages_free_isolated(struct stack *s, struct pc_page *const *pages, uint32_t n);

#endif
