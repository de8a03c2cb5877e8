/* The mm layer's per-page steps that a write() runs for every page, as
 * inlines: they read struct stack and struct stack_file, which
 * models/mm/mm.h names by pointer only, so they live here (included by
 * the mm files and the stack's op machines, models/stack/ops.c). Each is
 * the body of the mm.h function of the same job (pc_find,
 * pc_mark_accessed, wb_page_dirtied), which calls it.
 */
#ifndef MODELS_MM_INLINE_H
#define MODELS_MM_INLINE_H

#include "models/mm/mm.h"
#include "models/stack/stack_types.h"
#include "sim/engine.h"
#include "sim/sim.h"

/* pc_find: the page of f at index, or NULL; an append looks past the
 * last page and stops there. */
static inline struct pc_page *pc_lookup(const struct stack_file *f, uint64_t index)
{
	if (!f->last || index > f->last->index)
		return NULL;
	uint64_t l = index >> PC_LEAF_SHIFT;
	const struct pc_leaf *lf = l < f->pages.nleaf ? f->pages.leaf[l] : NULL;
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
	wb->nr_dirty++;
	f->nr_dirty++;
	if (wb->nr_dirty + wb->nr_writeback > wb->peak_dirty)
		wb->peak_dirty = wb->nr_dirty + wb->nr_writeback;
	if (s->sim->timeline || !f->on_dirty_list || !sim_event_pending(&wb->periodic))
		wb_dirtied_slow(s, f);
}

#endif
