/* The memory-management layer's own interface: spinlocks in simulated
 * time (zone->lru_lock, zone->lock, mapping->tree_lock) and the page
 * reclaim of Linux 3.10 mm/vmscan.c + mm/page_alloc.c (reclaim.c).
 * Included by models/stack/stack_int.h, which embeds these structures in
 * its tasks, files and page cache; nothing here includes the stack.
 */
#ifndef MODELS_MM_H
#define MODELS_MM_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/list.h"
#include "sim/metrics.h"

struct stack;
struct stack_task;
struct stack_file;
struct pagecache;
struct pc_page;
struct json_t;

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

/* Spin time before the holder gets l at now; l is then held for hold_ns. */
int64_t mm_lock_acquire(struct mm_lock *l, int64_t now, int64_t hold_ns, enum sim_class c);
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
	struct list_head isolated;           /* the chunk's pages (page->lru) */
	bool vmw_waited;         /* GFP_NOFS: throttle_vm_writeout waits once */
	uint32_t pcp_count;      /* per-cpu free list of the core it allocates on */
};

void mm_reclaim_task_init(struct mm_reclaim *rc);

/* ---------------------------------------------------------- reclaim.c */

/* __alloc_pages for one page-cache page by t (nofs: GFP_NOFS, as ext4's
 * write_begin): true when t blocked (reclaim, throttling); it calls
 * again after the wake. The zone->lock of a per-cpu list refill is added
 * to t's CPU debt. */
bool mm_alloc_page(struct stack_task *t, bool nofs);
/* wakeup_kswapd */
void mm_wake_kswapd(struct stack *s);
/* kswapd's state machine step (TASK_KSWAPD). */
void kswapd_run(struct stack_task *t);
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

/* LRU primitives reclaim uses (lru: enum pc_lru). */
void pc_lru_del(struct pagecache *pc, struct pc_page *pg);
void pc_lru_add_head(struct pagecache *pc, struct pc_page *pg, int lru);
/* Remove pg from its file and return it to the pool (__remove_mapping). */
void pc_page_free(struct stack *s, struct pc_page *pg);

#endif
