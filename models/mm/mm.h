/* The memory-management layer's interface: spinlocks in simulated time
 * (zone->lru_lock, zone->lock, mapping->tree_lock), the page cache and its
 * pages (pagecache.c, pglock.c), readahead (readahead.c), dirty writeback
 * (writeback.c) and the page reclaim of Linux 3.10 mm/vmscan.c +
 * mm/page_alloc.c (reclaim.c). mm calls down into the sched layer
 * (models/sched/sched.h) and the block layer. Its structures are in
 * models/mm/mm_types.h (embedded in struct stack, its tasks and files by
 * models/sched/task.h).
 */
#ifndef MODELS_MM_H
#define MODELS_MM_H

#include <stdbool.h>
#include <stdint.h>

#include "models/mm/mm_types.h"
#include "models/sched/task.h"
#include "sim/engine.h"
#include "sim/list.h"
#include "sim/metrics.h"
#include "sim/rbtree.h"

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

/* End of the last periodic hold to come (per_n > 0). */
static inline int64_t mm_lock_periodic_end(const struct mm_lock *l)
{
	return l->per_start + (int64_t)(l->per_n - 1) * l->per_period + l->per_hold;
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


void mm_reclaim_task_init(struct mm_reclaim *rc);


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
/* Clean pages of an idle file at t = 0 (clamped to leave free memory),
 * from index 0, at lru (enum pc_warm_lru: the inactive head, its tail or
 * the active head), each with extra_flags besides PG_UPTODATE. */
int pagecache_prefill(struct stack *s, struct stack_file *f, uint64_t npages, int lru,
		      uint16_t extra_flags, struct sim_error *err);
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
/* The end of a read bio (mpage_end_io): its pages become uptodate and are
 * unlocked, the bio is freed; a file system's read_post calls it once its
 * post-read work (decompression) is done. */
void mpage_read_done(struct stack *s, struct stack_bio *sb);
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
