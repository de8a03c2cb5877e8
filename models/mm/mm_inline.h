/* The mm layer's per-page steps that a write() runs for every page, as
 * inlines, kept out of models/mm/mm.h so that only their callers compile
 * them (the mm files and the stack's op machines, models/stack/ops.c). Each is
 * the body of the mm.h function of the same job (pc_find,
 * pc_mark_accessed, wb_page_dirtied, pc_add_page), which calls it.
 */
#ifndef MODELS_MM_INLINE_H
#define MODELS_MM_INLINE_H

#include "models/mm/mm.h"
#include "sim/assert.h"
#include "sim/engine.h"
#include "sim/list.h"
#include "sim/sim.h"

/* pc_find: the page of f at index, or NULL; an append looks past the
 * last page and stops there. */
static inline struct pc_page *pc_lookup(const struct stack_file *f, uint64_t index)
{
	if (!f->mapping.last || index > f->mapping.last->index)
		return NULL;
	uint64_t l = index >> PC_LEAF_SHIFT;
	const struct pc_leaf *lf = l < f->mapping.pages.nleaf ? f->mapping.pages.leaf[l] : NULL;
	return lf ? lf->slot[index & ((1u << PC_LEAF_SHIFT) - 1)] : NULL;
}

/* pc_mark_accessed (mark_page_accessed): a referenced inactive page is
 * activated, any other gets PG_referenced. */
static inline void pc_accessed(struct pagecache *pc, struct pc_page *pg)
{
	if (!(pg->flags & PG_ACTIVE) && (pg->flags & PG_REFERENCED) &&
	    pg->lru_list == PC_LRU_INACTIVE) {
		pc_lru_del(pc, pg);
		pc_lru_add_head(pc, pg, PC_LRU_ACTIVE);
		pg->flags &= (uint16_t)~PG_REFERENCED;
		pc->activations++;
	} else {
		pg->flags |= PG_REFERENCED;
	}
}

/* A warm start's page at its first use: a hit of its file's warm start
 * (the flag goes, so each prefilled page counts once). */
static inline void pc_warm_use(struct pc_page *pg)
{
	if (pg->flags & PG_WARM) {
		pg->flags &= (uint16_t)~PG_WARM;
		pg->file->mapping.warm_hits++;
	}
}

/* wb_page_dirtied (account_page_dirtied, __mark_inode_dirty): the counts
 * here; the timeline sample, the file's move to b_dirty and the periodic
 * writeback's arming in wb_dirtied_slow, which is called unless each of
 * them has nothing to do (no timeline, the file already on b_dirty, the
 * periodic timer already pending). */
void wb_dirtied_slow(struct stack *s, struct stack_file *f);
static inline void wb_dirtied(struct stack *s, struct pc_page *pg)
{
	struct writeback *wb = &s->wb;
	struct stack_file *f = pg->file;
	/* the caller set PG_dirty on a page that was clean (TestSetPageDirty) */
	SIM_ASSERT((pg->flags & (PG_DIRTY | PG_ATOMIC)) == PG_DIRTY);
	wb->nr_dirty++;
	f->mapping.nr_dirty++;
	SIM_ASSERT(f->mapping.nr_dirty <= f->mapping.nr_pages);
	if (wb->nr_dirty + wb->nr_writeback > wb->peak_dirty)
		wb->peak_dirty = wb->nr_dirty + wb->nr_writeback;
	if (s->sim->timeline || !f->mapping.on_dirty_list || !sim_event_pending(&wb->periodic))
		wb_dirtied_slow(s, f);
}

/* ------------------------------------------------------ insert */

/* Page records come in slabs of this many (malloc'ed whole, never freed
 * before the run ends; freed pages go to a free list). */
#define PC_SLAB_PAGES 4096u

/* The out-of-line halves (pagecache.c): a new slab of page records when
 * the free list is empty and the last slab is full; the leaf for
 * directory slot l of f, growing the directory and allocating the leaf
 * (once per 64 pages of an append). NULL when out of memory. */
struct pc_page *pc_page_alloc_slab(struct pagecache *pc);
struct pc_leaf *pc_index_leaf(struct stack_file *f, uint64_t l);

/* A page record: a freed one first, else the next of the last slab. */
static inline struct pc_page *pc_page_alloc(struct pagecache *pc)
{
	if (!list_empty(&pc->free_pages)) {
		/* unlinked, not re-initialised: every caller links pg->lru next */
		struct pc_page *pg = list_first_entry(&pc->free_pages, struct pc_page, lru);
		pc->free_pages.next = pg->lru.next;
		pg->lru.next->prev = &pc->free_pages;
		return pg;
	}
	if (pc->nslabs == 0 || pc->slab_used == PC_SLAB_PAGES)
		return pc_page_alloc_slab(pc);
	return &pc->slabs[pc->nslabs - 1][pc->slab_used++];
}

/* pc_page_alloc has a record without calling out (the slab growth). */
static inline bool pc_page_alloc_at_hand(const struct pagecache *pc)
{
	return !list_empty(&pc->free_pages) || (pc->nslabs != 0 && pc->slab_used < PC_SLAB_PAGES);
}

/* Put pg in its file's index: 0, or SIM_E_NOMEM. */
static inline int pc_index_insert(struct stack_file *f, struct pc_page *pg)
{
	struct pc_index *ix = &f->mapping.pages;
	uint64_t l = pg->index >> PC_LEAF_SHIFT;
	struct pc_leaf *lf = l < ix->nleaf ? ix->leaf[l] : NULL;
	if (!lf && !(lf = pc_index_leaf(f, l)))
		return SIM_E_NOMEM;
	unsigned b = pg->index & ((1u << PC_LEAF_SHIFT) - 1);
	lf->slot[b] = pg;
	lf->map |= 1ull << b;
	if (!f->mapping.last || pg->index > f->mapping.last->index)
		f->mapping.last = pg;
	return 0;
}

/* task_class(t) (models/sched/task.c), inline for the per-page lock
 * counts of an insert: a task's class is its io_context's fg flag. */
static inline enum sim_class pc_task_class(const struct stack_task *t)
{
	return t->ioc.fg ? SIM_CLASS_FG : SIM_CLASS_BG;
}

/* pc_add_page with its GFP_NOFS choice given (pc_add_page works it out
 * from t's op; the write loop knows it): inline, so that a write's copy
 * in its per-page loop drops the branches nofs decides and the call. A
 * write (nofs) blocks only before it adds the page: *out NULL. */
static inline __attribute__((always_inline)) enum step
pc_insert(struct stack_task *t, struct stack_file *f, uint64_t index, struct pc_page **out,
	  bool nofs)
{
	struct stack *s = t->stack;
	struct pagecache *pc = &s->pc;
	*out = NULL;
	if (s->hooks.pagecache_may_insert && !f->is_meta && t->mm.rc.phase == MM_RC_IDLE) {
		int64_t d = s->hooks.pagecache_may_insert(t, s->hooks.ctx);
		if (d > 0)
			return task_delay(t, d, SIM_WAIT_POLICY, 0, true);
	}
	if (!mm_alloc_page_fast(pc, &t->mm.rc) && mm_alloc_page(t, nofs))
		return STEP_BLOCK;
	struct pc_page *pg = pc_page_alloc(pc);
	if (!pg) {
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory allocating a page");
		return task_delay(t, 0, SIM_NWAIT, 1, false);
	}
	pg->file = f;
	pg->index = (uint32_t)index;
	if (pc_index_insert(f, pg)) {
		pg->flags = PG_LOCKED;
		pg->lru_list = PC_LRU_NONE;
		list_add(&pg->lru, &pc->free_pages);
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory indexing a page");
		return task_delay(t, 0, SIM_NWAIT, 1, false);
	}
	f->mapping.nr_pages++;
	if (!f->owner_uid && !f->is_meta)
		f->owner_uid = t->uid;
	pc->used++;
	pc->inserted++;
	if (pc->used > pc->peak_used)
		pc->peak_used = pc->used;
	/* a new locked page at the inactive head (pc_lru_add_head of a page
	 * on no list: PG_active clear) */
	pg->flags = PG_LOCKED;
	list_add(&pg->lru, &pc->inactive);
	pc->nr_inactive++;
	pg->lru_list = PC_LRU_INACTIVE;
	*out = pg;
	if (s->hooks.on_page_insert && !f->is_meta)
		s->hooks.on_page_insert(t, s->hooks.ctx);

	/* add_to_page_cache_locked: the radix insert under the file's
	 * tree_lock (scope global: under the one lock instead). Its spin joins
	 * the task's CPU debt, and so does its hold except in a write, whose
	 * fitted write_copy_ns already covers grab_cache_page_write_begin. */
	int64_t now = sim_now(s->sim);
	enum sim_class c = pc_task_class(t);
	int64_t hold = 0;
	if (s->lock.p.scope == PGLOCK_SCOPE_GLOBAL) {
		hold += s->lock.p.insert_ns;
	} else {
		int64_t w = mm_lock_acquire(&f->mapping.tree_lock, now, s->lock.p.insert_ns, c);
		if (!nofs)
			t->cpu_debt += s->lock.p.insert_ns;
		if (w) { /* a spin (a free lock adds nothing) */
			t->cpu_debt += w;
			t->spin_debt[MM_SPIN_TREE] += w;
		}
	}
	/* lru_cache_add: the pagevec drains under lru_lock every batch_pages */
	if (++t->mm.pvec >= (uint32_t)s->lock.p.batch_pages) {
		hold += s->lock.p.lru_add_batch_ns + (int64_t)t->mm.pvec * s->lock.p.lru_add_page_ns;
		t->mm.pvec = 0;
	}
	if (hold > 0 && nofs) {
		/* a write: the hold is inside write_copy_ns, the spin is not */
		int64_t w = mm_lock_acquire(&s->lock.l, now, hold, c);
		t->cpu_debt += w;
		t->spin_debt[MM_SPIN_LRU] += w;
		return STEP_DONE;
	}
	if (hold > 0)
		return pglock_take(t, hold);
	return STEP_DONE;
}

#endif
