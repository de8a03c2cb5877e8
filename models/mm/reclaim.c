/* Page reclaim and the allocation slow path as Linux 3.10 does them for
 * file pages (mm/page_alloc.c __alloc_pages_slowpath, mm/vmscan.c,
 * mm/backing-dev.c, mm/page-writeback.c throttle_vm_writeout); read in the
 * Galaxy S6 kernel (jcadduono/android_kernel_samsung_universal7420
 * 4a185d09, mm/vmscan.c), which has 3.10's priority-scaled writeback
 * throttle and no ZONE_WRITEBACK / ZONE_TAIL_LRU_DIRTY (those are 3.11).
 *
 * One zone (arm64 3.10 puts the S6's 3 GB in ZONE_DMA32), file pages only
 * (anonymous memory is memory.reserved_bytes and never scanned: SCAN_FILE).
 * An allocation takes a page while free > low; otherwise it wakes kswapd
 * and takes one while free > min; otherwise the task reclaims itself:
 * throttle_direct_reclaim (a user task sleeps until kswapd brings free
 * above min/2; GFP_NOFS at most HZ), then do_try_to_free_pages from
 * DEF_PRIORITY down: each pass scans lru_size >> priority of the inactive
 * and (when inactive < active) the active file list in SWAP_CLUSTER_MAX
 * chunks; a chunk of shrink_inactive_list first waits while
 * too_many_isolated (congestion_wait(BLK_RW_ASYNC, HZ/10)), isolates under
 * zone->lru_lock, runs shrink_page_list (writeback pages get PG_reclaim and
 * stay, dirty pages get PG_reclaim and stay, referenced mapped pages are
 * activated or kept, clean pages leave the mapping under its tree_lock and
 * go to the per-cpu free list), puts the rest back under lru_lock and
 * calls wait_iff_congested when enough of the chunk was under writeback.
 * A pass ends with throttle_vm_writeout. The run stops at 32 reclaimed
 * pages (priority < 12) or after the pass that reaches them; past 48
 * scanned pages it wakes the flusher. The allocation then retries; if
 * free is still at or below min, wait_iff_congested(HZ/50) and again.
 * kswapd (balance_pgdat) reclaims the same way, never throttled by
 * too_many_isolated, until free > high, restarting at DEF_PRIORITY every
 * 32 pages; it wakes the pfmemalloc waiters when free > min/2.
 *
 * Waits: congestion_wait sleeps until an async request is freed below the
 * queue's congestion-off threshold (blk_queue_congested, asked at every
 * async writeback completion) or the timeout, counted in whole jiffies
 * of memory.hz from a tick at t = 0 (schedule_timeout). wait_iff_congested
 * sleeps only when the zone is ZONE_CONGESTED, which 3.10 sets when every
 * dirty page reclaim met was refused by pageout() on a congested queue;
 * direct reclaimers never call pageout() for file pages and kswapd has
 * PF_SWAPWRITE, so for file pages the flag is never set and the call is a
 * cond_resched: counted, never a sleep.
 * PG_reclaim: when writeback of such a page ends it moves to the tail of
 * the inactive list (rotate_reclaimable_page) to be reclaimed next.
 *
 * Left out: kswapd's own pageout() of dirty pages below DEF_PRIORITY - 2,
 * shrink_slab and the lowmemorykiller shrinker (docs/memory.md says why it
 * does not fire here), compaction and high orders, the HZ/10 nap kswapd
 * takes before it sleeps, VM_EXEC activation, memcg.
 */
#include <stddef.h>

#include <jansson.h>

#include "models/mm/mm.h"
#include "models/mm/mm.h"
#include "sim/sim.h"

/* include/linux/swap.h: SWAP_CLUSTER_MAX */
#define RC_CLUSTER STACK_SWAP_CLUSTER_MAX
_Static_assert(RC_CLUSTER <= 32, "mm_reclaim.free_mask has a bit per page of a chunk");

static int64_t jiffy_ns(const struct pagecache *pc)
{
	return 1000000000LL / (pc->mp.hz > 0 ? pc->mp.hz : 100);
}

/* schedule_timeout(timeout): the timer fires at the tick jiffies + timeout. */
int64_t mm_jiffies_timeout_ns(const struct pagecache *pc, int64_t now, int64_t jiffies)
{
	int64_t j = jiffy_ns(pc);
	return (now / j + jiffies) * j - now;
}

void mm_reclaim_task_init(struct mm_reclaim *rc)
{
	rc->phase = MM_RC_IDLE;
}

/* ------------------------------------------------------------ sleeping */

/* congestion_wait(BLK_RW_ASYNC, jiffies) charged to cause. */
static void congestion_wait(struct stack_task *t, enum sim_wait cause, int64_t jiffies)
{
	struct stack *s = t->stack;
	struct pagecache *pc = &s->pc;
	pc->congestion_waits++;
	list_add_tail(&t->waitq_node, &pc->congestion_wq);
	task_block(t, cause);
	sim_after(s->sim, &t->timer_ev, mm_jiffies_timeout_ns(pc, sim_now(s->sim), jiffies));
}

/* wait_iff_congested(zone, BLK_RW_ASYNC, timeout): no zone is ever
 * ZONE_CONGESTED for file pages (top of file), so it only yields. */
static void wait_iff_congested(struct pagecache *pc)
{
	pc->wait_iff_congested++;
}

void mm_async_write_done(struct stack *s)
{
	struct pagecache *pc = &s->pc;
	if (list_empty(&pc->congestion_wq) || (s->q && blk_queue_congested(s->q, false)))
		return;
	struct list_head *pos, *tmp;
	list_for_each_safe(pos, tmp, &pc->congestion_wq) {
		struct stack_task *w = list_entry(pos, struct stack_task, waitq_node);
		task_wake(w);
	}
}

static bool pfmemalloc_ok(const struct pagecache *pc)
{
	return pc_free_pages(pc) > pc->wmark_min / 2;
}

static void wake_pfmemalloc(struct stack *s)
{
	struct pagecache *pc = &s->pc;
	if (list_empty(&pc->pfmemalloc_wq) || !pfmemalloc_ok(pc))
		return;
	struct list_head *pos, *tmp;
	list_for_each_safe(pos, tmp, &pc->pfmemalloc_wq) {
		struct stack_task *w = list_entry(pos, struct stack_task, waitq_node);
		task_wake(w);
	}
}

void mm_wake_kswapd(struct stack *s)
{
	struct stack_task *k = s->pc.kswapd;
	if (k && k->state == TS_IDLE) {
		k->state = TS_READY;
		sim_at(s->sim, &k->run_ev, sim_now(s->sim));
	}
}

/* ------------------------------------------------------ timed sections */

/* On a core: spin for and hold the lru_lock for hold_ns, then cpu_ns of
 * work; all of it charged to cause (the lock spin to pagecache_lock). */
static int64_t rc_lru_section(struct stack_task *t, int64_t now)
{
	struct stack *s = t->stack;
	int64_t w = mm_lock_acquire(&s->lock.l, now, t->sect_hold, task_class(t));
	task_charge(t, SIM_WAIT_PAGECACHE_LOCK, w);
	if (!t->mm.rc.kswapd)
		task_charge(t, SIM_WAIT_DIRECT_RECLAIM, t->sect_hold + t->sect_cpu);
	return w + t->sect_hold + t->sect_cpu;
}

/* True when the section already ran (kswapd, nothing else could happen
 * before its end: cpu_run_section) and rc_step goes on by itself; a direct
 * reclaimer is re-entered through its allocation instead. */
static bool rc_run_lru(struct stack_task *t, int64_t hold, int64_t cpu)
{
	t->sect_hold = hold;
	t->sect_cpu = cpu;
	return cpu_run_section(t, rc_lru_section, t->mm.rc.kswapd);
}

/* shrink_page_list's time: per page work, __remove_mapping of every
 * freed page under its file's tree_lock, and the per-cpu list drain under
 * zone->lock (free_pcppages_bulk) when the list passes pcp->high. The
 * tree_lock is taken once per freed page: a run of freed pages of one file
 * reserves its holds one page's work apart, others take the lock between
 * them. Walking the chunk page by page, the k-th page's work ends at now +
 * (k + 1) x reclaim_page_ns + delete_ns x (freed pages before it) + the
 * spins of the runs before it, so a run's first hold starts there and
 * shrink_page_list's runs (rc->runs) give every reservation without the
 * walk. */
static int64_t rc_shrink_section(struct stack_task *t, int64_t now)
{
	struct stack *s = t->stack;
	struct pagecache *pc = &s->pc;
	struct mm_reclaim *rc = &t->mm.rc;
	enum sim_class c = task_class(t);
	int64_t page_ns = pc->p.reclaim_page_ns, delete_ns = s->lock.p.delete_ns;
	int64_t per_page = page_ns + delete_ns;
	int64_t spin_tree = 0, spin_zone = 0;
	uint32_t freed_before = 0;
	for (uint32_t r = 0; r < rc->nruns; r++) {
		const struct mm_free_run *run = &rc->runs[r];
		int64_t start = now + spin_tree + (int64_t)(run->first + 1) * page_ns +
				(int64_t)freed_before * delete_ns;
		spin_tree += mm_lock_reserve_periodic(&run->file->mapping.tree_lock, start, per_page,
						      delete_ns, run->n, c);
		freed_before += run->n;
	}
	int64_t at = now + spin_tree + (int64_t)rc->taken * page_ns + (int64_t)rc->freed * delete_ns;
	rc->pcp_count += rc->freed;
	while (rc->pcp_count >= pc->pcp_high) {
		int64_t hold = s->lock.p.zone_batch_ns + pc->pcp_batch * s->lock.p.zone_page_ns;
		int64_t w = mm_lock_acquire(&s->zone_lock, at, hold, c);
		spin_zone += w;
		at += w + hold;
		rc->pcp_count -= pc->pcp_batch;
	}
	task_charge(t, SIM_WAIT_TREE_LOCK, spin_tree);
	task_charge(t, SIM_WAIT_ZONE_LOCK, spin_zone);
	if (!rc->kswapd)
		task_charge(t, SIM_WAIT_DIRECT_RECLAIM, at - now - spin_tree - spin_zone);
	return at - now;
}

/* --------------------------------------------------------- one chunk */

static bool too_many_isolated(const struct stack_task *t)
{
	const struct pagecache *pc = &t->stack->pc;
	if (t->mm.rc.kswapd)
		return false;
	uint64_t inactive = pc->nr_inactive;
	if (!t->mm.rc.nofs)
		inactive >>= 3; /* GFP_IOFS callers may isolate less */
	return pc->nr_isolated > inactive;
}

/* isolate_lru_pages from the inactive tail (isolate_mode 0: may_unmap
 * and may_writepage are set, every page on the list is taken): the last
 * min(nr, nr_inactive) pages, cut off the list as one piece. */
static void isolate_chunk(struct stack_task *t, uint32_t nr)
{
	struct pagecache *pc = &t->stack->pc;
	uint32_t taken = nr < pc->nr_inactive ? nr : (uint32_t)pc->nr_inactive;
	struct list_head *pos = &pc->inactive;
	for (uint32_t i = 0; i < taken; i++) {
		pos = pos->prev;
		struct pc_page *pg = list_entry(pos, struct pc_page, lru);
		pg->lru_list = PC_LRU_NONE;
		t->mm.rc.isolated[i] = pg;
	}
	if (taken) {
		pos->prev->next = &pc->inactive;
		pc->inactive.prev = pos->prev;
		pc->nr_inactive -= taken;
	}
	t->mm.rc.taken = taken;
	t->mm.rc.nr_scanned += taken;
	pc->nr_isolated += taken;
	if (pc->nr_isolated > pc->peak_isolated)
		pc->peak_isolated = pc->nr_isolated;
	pc->scanned += taken;
}

/* shrink_page_list's decision for one isolated page: true when it is
 * freed (at putback, after the timed section), false when it stays. */
static inline bool shrink_page(struct pagecache *pc, struct mm_reclaim *rc, struct pc_page *pg,
			       struct stack_task *t)
{
	uint16_t fl = pg->flags;
	/* most pages: clean, unlocked, not under writeback and not mapped
	 * (so no young pte), where every test below falls through to the end */
	if (!(fl & (PG_LOCKED | PG_ATOMIC | PG_WRITEBACK | PG_DIRTY | PG_MAPPED))) {
		struct stack *s = t->stack;
		if (s->hooks.reclaim_protect && pg->file &&
		    s->hooks.reclaim_protect(pg->file, t, s->hooks.ctx)) {
			/* a policy keeps it: activated, as PAGEREF_ACTIVATE */
			pg->flags = fl | PG_REFERENCED | PG_ACTIVE;
			return false;
		}
		pg->flags = (uint16_t)(fl & ~(PG_YOUNG | PG_REFERENCED));
		return true;
	}
	if (fl & (PG_LOCKED | PG_ATOMIC))
		return false; /* trylock_page fails / held by an atomic write */
	if (fl & PG_WRITEBACK) {
		pg->flags = fl | PG_RECLAIM;
		rc->writeback++;
		pc->reclaim_writeback++;
		return false;
	}
	bool ref_ptes = (fl & (PG_MAPPED | PG_YOUNG)) == (PG_MAPPED | PG_YOUNG);
	fl &= (uint16_t)~(PG_YOUNG | PG_REFERENCED);
	if (ref_ptes) {
		/* page_check_references: a young pte activates the page
		 * when it was referenced before or its mapping is VM_EXEC;
		 * the model does not know which mappings are code and
		 * treats every faulted page as such (assumed) */
		pg->flags = fl | PG_REFERENCED | PG_ACTIVE; /* PAGEREF_ACTIVATE */
		return false;
	}
	if (fl & PG_DIRTY) {
		/* direct reclaim, and kswapd above DEF_PRIORITY - 2, leave
		 * file pages to the flusher: PG_reclaim, keep */
		pg->flags = fl | PG_RECLAIM;
		pc->reclaim_dirty++;
		return false;
	}
	pg->flags = fl;
	return true;
}

/* shrink_page_list: decide every isolated page; freed pages leave the
 * cache at putback, after the timed section, which takes the file's
 * tree_lock for each: their runs of one file are noted here. */
static void shrink_page_list(struct stack_task *t)
{
	struct pagecache *pc = &t->stack->pc;
	struct mm_reclaim *rc = &t->mm.rc;
	struct stack_file *run_file = NULL; /* the file of the run going on */
	uint32_t nruns = 0, run_first = 0, taken = rc->taken, mask = 0;
	rc->writeback = 0;
	for (uint32_t k = 0; k < taken; k++) {
		struct pc_page *pg = rc->isolated[k];
		if (!shrink_page(pc, rc, pg, t)) {
			if (run_file)
				rc->runs[nruns++] =
					(struct mm_free_run){ run_file, run_first, k - run_first };
			run_file = NULL;
			continue;
		}
		if (pg->file != run_file) { /* a page has a file: a new run */
			if (run_file)
				rc->runs[nruns++] =
					(struct mm_free_run){ run_file, run_first, k - run_first };
			run_file = pg->file;
			run_first = k;
		}
		mask |= 1u << k;
	}
	if (run_file)
		rc->runs[nruns++] = (struct mm_free_run){ run_file, run_first, taken - run_first };
	rc->freed = (uint32_t)__builtin_popcount(mask);
	rc->nruns = nruns;
	rc->free_mask = mask;
}

/* Remove the freed pages (after the timed section) and put the rest back
 * at the head of their list (putback_inactive_pages). */
static void putback_chunk(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct pagecache *pc = &s->pc;
	struct mm_reclaim *rc = &t->mm.rc;
	struct pc_page *gone[RC_CLUSTER];
	uint32_t freed = 0, taken = rc->taken, mask = rc->free_mask;
	for (uint32_t k = 0; k < taken; k++) {
		struct pc_page *pg = rc->isolated[k];
		/* to be freed, and __remove_mapping fails if the page was used
		 * meanwhile */
		if ((mask >> k & 1) &&
		    !(pg->flags & (PG_DIRTY | PG_WRITEBACK | PG_LOCKED | PG_ATOMIC | PG_WAITERS))) {
			gone[freed++] = pg;
			continue;
		}
		if (pg->flags & PG_ACTIVE) {
			pc_lru_add_head(pc, pg, PC_LRU_ACTIVE);
			pc->activations++;
		} else {
			pc_lru_add_head(pc, pg, PC_LRU_INACTIVE);
			pc->rotated++;
		}
	}
	/* after the loop, in the same order: the free pool and the LRU are
	 * separate lists */
	pc_pages_free_isolated(s, gone, freed);
	pc->nr_isolated -= rc->taken;
	rc->nr_reclaimed += freed;
}

/* shrink_active_list of nr pages (inactive_file_is_low): under lru_lock,
 * to the inactive head with PG_referenced cleared; young mapped pages
 * count as referenced but only VM_EXEC ones would stay (not modelled). */
static uint32_t deactivate(struct pagecache *pc, uint64_t nr)
{
	uint32_t n = 0;
	while (n < nr && pc->nr_active > 0) {
		struct pc_page *pg = list_last_entry(&pc->active, struct pc_page, lru);
		pc_lru_del(pc, pg);
		pg->flags &= (uint16_t)~(PG_REFERENCED | PG_YOUNG);
		pc_lru_add_head(pc, pg, PC_LRU_INACTIVE);
		n++;
	}
	pc->deactivated += n;
	return n;
}

/* ------------------------------------------------------ the machine */

static void start_pass(struct stack_task *t)
{
	struct pagecache *pc = &t->stack->pc;
	struct mm_reclaim *rc = &t->mm.rc;
	rc->nr_scanned = 0;
	rc->scan_inactive = pc->nr_inactive >> rc->priority;
	rc->scan_active = pc->nr_active >> rc->priority;
	if (rc->kswapd && rc->scan_inactive == 0 && rc->scan_active == 0)
		rc->scan_inactive = pc->nr_inactive < RC_CLUSTER ? pc->nr_inactive : RC_CLUSTER;
	rc->phase = MM_RC_CHUNK;
}

static bool kswapd_balanced(const struct pagecache *pc)
{
	return pc_free_pages(pc) > pc->wmark_high;
}

/* Advance t's reclaim until it blocks (STEP_BLOCK) or the run is over
 * (phase MM_RC_DONE). */
static enum step rc_step(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct pagecache *pc = &s->pc;
	struct mm_reclaim *rc = &t->mm.rc;
	for (;;) {
		switch (rc->phase) {
		case MM_RC_THROTTLE:
			/* throttle_direct_reclaim: kernel threads never wait */
			if (!t->kthread && !pfmemalloc_ok(pc)) {
				pc->pfmemalloc_throttled++;
				mm_wake_kswapd(s);
				list_add_tail(&t->waitq_node, &pc->pfmemalloc_wq);
				task_block(t, SIM_WAIT_RECLAIM_THROTTLE);
				if (rc->nofs) /* !__GFP_FS: at most HZ */
					sim_after(s->sim, &t->timer_ev,
						  mm_jiffies_timeout_ns(pc, sim_now(s->sim), pc->mp.hz));
				rc->phase = MM_RC_PRIORITY; /* no re-check after the wake */
				rc->priority = MM_DEF_PRIORITY;
				rc->nr_reclaimed = 0;
				rc->total_scanned = 0;
				pc->direct_runs++;
				return STEP_BLOCK;
			}
			rc->priority = MM_DEF_PRIORITY;
			rc->nr_reclaimed = 0;
			rc->total_scanned = 0;
			pc->direct_runs++;
			rc->phase = MM_RC_PRIORITY;
			break;
		case MM_RC_PRIORITY:
			if (rc->kswapd && kswapd_balanced(pc)) {
				rc->phase = MM_RC_DONE;
				break;
			}
			start_pass(t);
			break;
		case MM_RC_CHUNK: {
			bool stop = !rc->kswapd && rc->nr_reclaimed >= RC_CLUSTER &&
				    rc->priority < MM_DEF_PRIORITY;
			if (stop || (rc->scan_inactive == 0 && rc->scan_active == 0)) {
				rc->phase = MM_RC_PASS_END;
				break;
			}
			if (rc->scan_active > 0 && rc->scan_inactive == 0) {
				uint64_t n = rc->scan_active < RC_CLUSTER ? rc->scan_active : RC_CLUSTER;
				rc->scan_active -= n;
				if (pc->nr_inactive < pc->nr_active) {
					uint32_t d = deactivate(pc, n);
					rc->nr_scanned += d;
					if (rc_run_lru(t, s->lock.p.reclaim_batch_ns +
								  2 * (int64_t)d * s->lock.p.putback_page_ns,
						       0))
						break;
					return STEP_BLOCK;
				}
				break;
			}
			if (too_many_isolated(t)) {
				pc->isolation_throttled++;
				congestion_wait(t, SIM_WAIT_ISOLATION, pc->mp.hz / 10);
				return STEP_BLOCK;
			}
			uint64_t n = rc->scan_inactive < RC_CLUSTER ? rc->scan_inactive : RC_CLUSTER;
			rc->scan_inactive -= n;
			/* lru_add_drain: the task's own pagevec goes first */
			int64_t hold = s->lock.p.reclaim_batch_ns;
			if (t->mm.pvec > 0) {
				hold += s->lock.p.lru_add_batch_ns +
					(int64_t)t->mm.pvec * s->lock.p.lru_add_page_ns;
				t->mm.pvec = 0;
			}
			isolate_chunk(t, (uint32_t)n);
			if (rc->taken == 0) {
				rc->scan_inactive = 0;
				break;
			}
			if (rc->kswapd)
				pc->kswapd_batches++;
			else
				pc->direct_batches++;
			rc->phase = MM_RC_ISOLATED;
			if (rc_run_lru(t, hold, 0))
				break;
			return STEP_BLOCK;
		}
		case MM_RC_ISOLATED:
			shrink_page_list(t);
			rc->phase = MM_RC_SHRUNK;
			if (cpu_run_section(t, rc_shrink_section, rc->kswapd))
				break;
			return STEP_BLOCK;
		case MM_RC_SHRUNK: {
			uint32_t kept = rc->taken - rc->freed;
			putback_chunk(t);
			rc->phase = MM_RC_PUTBACK;
			if (rc_run_lru(t, s->lock.p.putback_batch_ns +
						  (int64_t)kept * s->lock.p.putback_page_ns,
				       0))
				break;
			return STEP_BLOCK;
		}
		case MM_RC_PUTBACK: {
			int shift = MM_DEF_PRIORITY - rc->priority;
			if (rc->writeback && rc->writeback >= (rc->taken >> shift))
				wait_iff_congested(pc);
			if (rc->kswapd)
				wake_pfmemalloc(s);
			rc->phase = MM_RC_CHUNK;
			if (rc->kswapd && (kswapd_balanced(pc) || rc->nr_reclaimed >= RC_CLUSTER))
				rc->phase = MM_RC_PASS_END;
			break;
		}
		case MM_RC_PASS_END:
			/* throttle_vm_writeout (end of shrink_lruvec) */
			if (!rc->kswapd && !rc->vmw_waited &&
			    s->wb.nr_writeback > s->wb.thresh + s->wb.thresh / 10) {
				pc->vm_writeout_throttled++;
				/* a GFP_NOFS caller waits once and goes on */
				rc->vmw_waited = rc->nofs;
				congestion_wait(t, SIM_WAIT_VM_WRITEOUT, pc->mp.hz / 10);
				return STEP_BLOCK;
			}
			rc->vmw_waited = false;
			rc->total_scanned += rc->nr_scanned;
			if (rc->kswapd) {
				if (kswapd_balanced(pc)) {
					rc->phase = MM_RC_DONE;
					break;
				}
				/* balance_pgdat: 32 pages -> loop_again at DEF_PRIORITY */
				if (rc->nr_reclaimed >= RC_CLUSTER || rc->priority == 0) {
					bool idle_cycle = rc->priority == 0 && rc->total_scanned == 0;
					rc->priority = MM_DEF_PRIORITY;
					rc->nr_reclaimed = 0;
					rc->total_scanned = 0;
					if (idle_cycle) {
						/* nothing on the LRU to scan (all isolated by
						 * others): the kernel loops with cond_resched;
						 * the model naps HZ/10 so time moves */
						rc->phase = MM_RC_PRIORITY;
						congestion_wait(t, SIM_NWAIT, pc->mp.hz / 10);
						return STEP_BLOCK;
					}
				} else {
					rc->priority--;
				}
				rc->phase = MM_RC_PRIORITY;
				break;
			}
			if (rc->nr_reclaimed >= RC_CLUSTER || rc->priority == 0) {
				rc->phase = MM_RC_DONE;
				break;
			}
			if (rc->total_scanned > RC_CLUSTER + RC_CLUSTER / 2)
				wb_wake_flusher(s, false);
			if (rc->nr_scanned && rc->priority < MM_DEF_PRIORITY - 2)
				wait_iff_congested(pc);
			rc->priority--;
			rc->phase = MM_RC_PRIORITY;
			break;
		case MM_RC_DONE:
		case MM_RC_IDLE:
		default:
			return STEP_DONE;
		}
	}
}

/* ------------------------------------------------------------ entries */

/* The allocation itself: one page off the task's per-cpu free list,
 * refilled by rmqueue_bulk(pcp->batch) under zone->lock when empty; the
 * spin joins the task's CPU debt, and so does the hold except in a write
 * (GFP_NOFS here), whose fitted write_copy_ns covers the allocation. */
static void pcp_take(struct stack_task *t, bool nofs)
{
	struct stack *s = t->stack;
	struct pagecache *pc = &s->pc;
	if (t->mm.rc.pcp_count == 0) {
		int64_t hold = s->lock.p.zone_batch_ns + pc->pcp_batch * s->lock.p.zone_page_ns;
		int64_t w = mm_lock_acquire(&s->zone_lock, sim_now(s->sim), hold, task_class(t));
		t->cpu_debt += w + (nofs ? 0 : hold);
		t->spin_debt[MM_SPIN_ZONE] += w;
		t->mm.rc.pcp_count = (uint32_t)pc->pcp_batch;
		pc->pcp_refills++;
	}
	t->mm.rc.pcp_count--;
}

bool mm_alloc_page(struct stack_task *t, bool nofs)
{
	struct stack *s = t->stack;
	struct pagecache *pc = &s->pc;
	struct mm_reclaim *rc = &t->mm.rc;
	for (;;) {
		if (rc->phase == MM_RC_IDLE) {
			uint64_t free_pages = pc_free_pages(pc);
			if (free_pages > pc->wmark_low)
				break; /* fast path: ALLOC_WMARK_LOW */
			mm_wake_kswapd(s);
			if (free_pages > pc->wmark_min)
				break; /* ALLOC_WMARK_MIN after waking kswapd */
			rc->kswapd = false;
			rc->nofs = nofs;
			rc->phase = MM_RC_THROTTLE;
			pc->direct_stalls++;
		} else if (rc->phase == MM_RC_DONE) {
			if (pc_free_pages(pc) > pc->wmark_min)
				break;
			/* should_alloc_retry (order 0: always) ->
			 * wait_iff_congested(HZ/50) -> rebalance */
			pc->alloc_retries++;
			mm_wake_kswapd(s);
			rc->phase = MM_RC_THROTTLE;
			if (rc->total_scanned == 0) {
				/* nothing on the LRU to scan: the kernel would head
				 * for the OOM killer; the model naps HZ/50 instead */
				congestion_wait(t, SIM_WAIT_CONGESTION, pc->mp.hz / 50 ? pc->mp.hz / 50 : 1);
				return true;
			}
			wait_iff_congested(pc);
		}
		if (rc_step(t) == STEP_BLOCK)
			return true;
	}
	rc->phase = MM_RC_IDLE;
	pcp_take(t, nofs);
	uint64_t left = pc_free_pages(pc) - 1; /* the page about to be taken */
	if (left < pc->min_free_seen)
		pc->min_free_seen = left;
	return false;
}

/* kswapd: balance_pgdat until free > high, then sleep until woken. */
struct stack_task *mm_kswapd_new(struct stack *s)
{
	struct stack_task *t = task_new(s, "kswapd0", kswapd_run, &s->pc);
	if (t) {
		t->kind = "kswapd";
		t->state = TS_IDLE;
	}
	return t;
}

void kswapd_run(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct pagecache *pc = &s->pc;
	struct mm_reclaim *rc = &t->mm.rc;
	if (rc->phase == MM_RC_IDLE || rc->phase == MM_RC_DONE) {
		if (kswapd_balanced(pc)) {
			rc->phase = MM_RC_IDLE;
			if (pc_free_pages(pc) < pc->kswapd_sleep_free)
				pc->kswapd_sleep_free = pc_free_pages(pc);
			wake_pfmemalloc(s);
			t->state = TS_IDLE;
			return;
		}
		rc->kswapd = true;
		rc->priority = MM_DEF_PRIORITY;
		rc->nr_reclaimed = 0;
		rc->total_scanned = 0;
		rc->phase = MM_RC_PRIORITY;
		pc->kswapd_runs++;
	}
	if (rc_step(t) == STEP_BLOCK)
		return;
	/* balanced: go round once more to sleep */
	t->state = TS_READY;
	sim_at(s->sim, &t->run_ev, sim_now(s->sim));
}

/* end_page_writeback of a PG_reclaim page: rotate_reclaimable_page. */
void mm_writeback_end(struct stack *s, struct pc_page *pg)
{
	struct pagecache *pc = &s->pc;
	if (!(pg->flags & PG_RECLAIM))
		return;
	pg->flags &= (uint16_t)~PG_RECLAIM;
	if (pg->lru_list != PC_LRU_INACTIVE || (pg->flags & (PG_DIRTY | PG_LOCKED)))
		return;
	pc_lru_del(pc, pg);
	list_add_tail(&pg->lru, &pc->inactive);
	pc->nr_inactive++;
	pg->lru_list = PC_LRU_INACTIVE;
	pc->rotated_reclaimable++;
}

/* The user tasks' waits on reclaim and the page-cache locks, per class,
 * zeros included (the run's waits table lists only causes that occurred). */
static json_t *reclaim_waits_json(const struct stack *s)
{
	static const enum sim_wait causes[] = {
		SIM_WAIT_DIRECT_RECLAIM, SIM_WAIT_ISOLATION,     SIM_WAIT_VM_WRITEOUT,
		SIM_WAIT_CONGESTION,     SIM_WAIT_RECLAIM_THROTTLE, SIM_WAIT_PAGECACHE_LOCK,
		SIM_WAIT_ZONE_LOCK,      SIM_WAIT_TREE_LOCK,
	};
	json_t *o = json_object();
	for (int c = 0; c < SIM_NCLASS; c++) {
		json_t *cls = json_object();
		for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++) {
			const struct sim_waitstat *w = &s->sim->metrics.cls[c].wait[causes[i]];
			json_t *e = json_object();
			json_object_set_new(e, "count", json_integer((json_int_t)w->count));
			json_object_set_new(e, "total_ns", json_integer(w->total_ns));
			json_object_set_new(e, "max_ns", json_integer(w->max_ns));
			json_object_set_new(cls, sim_wait_names[causes[i]], e);
		}
		json_object_set_new(o, sim_class_names[c], cls);
	}
	return o;
}

struct json_t *mm_reclaim_to_json(const struct stack *s)
{
	const struct pagecache *pc = &s->pc;
	json_t *o = json_object();
	json_object_set_new(o, "waits", reclaim_waits_json(s));
	json_object_set_new(o, "hz", json_integer(pc->mp.hz));
	json_object_set_new(o, "pcp_batch", json_integer(pc->pcp_batch));
	json_object_set_new(o, "pcp_high", json_integer(pc->pcp_high));
	json_object_set_new(o, "kswapd_runs", json_integer((json_int_t)pc->kswapd_runs));
	json_object_set_new(o, "direct_runs", json_integer((json_int_t)pc->direct_runs));
	json_object_set_new(o, "alloc_retries", json_integer((json_int_t)pc->alloc_retries));
	json_object_set_new(o, "scanned", json_integer((json_int_t)pc->scanned));
	json_object_set_new(o, "deactivated", json_integer((json_int_t)pc->deactivated));
	json_object_set_new(o, "writeback_met", json_integer((json_int_t)pc->reclaim_writeback));
	json_object_set_new(o, "dirty_met", json_integer((json_int_t)pc->reclaim_dirty));
	json_object_set_new(o, "rotated_reclaimable",
			    json_integer((json_int_t)pc->rotated_reclaimable));
	json_object_set_new(o, "congestion_waits", json_integer((json_int_t)pc->congestion_waits));
	json_object_set_new(o, "wait_iff_congested_calls",
			    json_integer((json_int_t)pc->wait_iff_congested));
	json_object_set_new(o, "isolation_throttled",
			    json_integer((json_int_t)pc->isolation_throttled));
	json_object_set_new(o, "vm_writeout_throttled",
			    json_integer((json_int_t)pc->vm_writeout_throttled));
	json_object_set_new(o, "pfmemalloc_throttled",
			    json_integer((json_int_t)pc->pfmemalloc_throttled));
	json_object_set_new(o, "pcp_refills", json_integer((json_int_t)pc->pcp_refills));
	json_object_set_new(o, "min_free_pages", json_integer((json_int_t)pc->min_free_seen));
	json_object_set_new(o, "peak_isolated", json_integer((json_int_t)pc->peak_isolated));
	json_object_set_new(o, "kswapd_sleep_free_pages",
			    pc->kswapd_sleep_free == UINT64_MAX
				    ? json_null()
				    : json_integer((json_int_t)pc->kswapd_sleep_free));
	return o;
}
