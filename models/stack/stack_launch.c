/* What the launch planners (FAST prefetch, ESL'20 padding) need from the
 * upper stack: an fadvise(WILLNEED)-like op, explicit plugging, a view of
 * a file's extents and of a page's state, and op-source interposition.
 *
 * STACK_OP_WILLNEED follows Linux 3.10 mm/fadvise.c POSIX_FADV_WILLNEED ->
 * force_page_cache_readahead(): the range is read in chunks of at most
 * 2 MiB (max_sane_readahead caps; STACK_FILL_MAX_PAGES here) by
 * __do_page_cache_readahead, which allocates the missing pages, inserts
 * them locked and submits their reads under a plug (read_pages), and
 * returns without waiting. No readahead window is involved, so the
 * requests are exactly the range asked for, cut only at extent ends and
 * max_bio_bytes. The same path serves pread() on a file opened with
 * POSIX_FADV_RANDOM (page_cache_sync_readahead -> force_page_cache_readahead
 * for FMODE_RANDOM), which is how explicit loading is modelled: WILLNEED
 * then READ of the same range (the READ waits on the locked pages and
 * copies them). STACK_OP_PLUG/UNPLUG bracket a batch (blk_start_plug /
 * blk_finish_plug in the FAST dissertation's prefetcher).
 */
#include <string.h>

#include "models/mm/mm_inline.h"
#include "models/stack/stack_int.h"
#include "sim/sim.h"

enum step launch_op_step(struct stack_task *t)
{
	struct task_opstate *os = &t->os;
	switch (os->op.kind) {
	case STACK_OP_PLUG:
		if (t->stack->q)
			task_start_plug(t);
		return STEP_DONE;
	case STACK_OP_UNPLUG:
		task_finish_plug(t);
		return STEP_DONE;
	default:
		break;
	}
	struct stack_file *f = os->op.file;
	if (!f || os->op.len == 0)
		return STEP_DONE;
	if (os->phase == 0) {
		uint64_t end = os->op.off + os->op.len;
		if (!f->is_meta && end > f->size)
			end = f->size;
		os->idx = os->op.off >> STACK_PAGE_SHIFT;
		os->end = end > os->op.off ? ((end - 1) >> STACK_PAGE_SHIFT) + 1 : os->idx;
		os->phase = 1;
	}
	while (os->phase == 1) {
		if (t->mm.fill.active && fill_run(t) == STEP_BLOCK)
			return STEP_BLOCK;
		if (os->idx >= os->end) {
			os->phase = 2;
			os->idx = os->op.off >> STACK_PAGE_SHIFT;
			break;
		}
		uint64_t n = os->end - os->idx;
		if (n > STACK_FILL_MAX_PAGES)
			n = STACK_FILL_MAX_PAGES;
		fill_prepare(t, f, os->idx, n, 0);
		os->idx += n;
	}
	/* pread: wait for each page (lock_page in do_generic_file_read) and
	 * copy it; a page reclaimed meanwhile is simply not copied. */
	if (os->op.flags & STACK_OPF_WAIT) {
		struct stack *s = t->stack;
		while (os->idx < os->end) {
			struct pc_page *pg = pc_find(f, os->idx);
			if (pg && (pg->flags & PG_LOCKED)) {
				if (task_pay_cpu(t) == STEP_BLOCK)
					return STEP_BLOCK;
				task_wait_page(t, pg, PG_LOCKED, pc_lock_wait_cause(pg));
				return STEP_BLOCK;
			}
			if (pg) {
				pc_warm_use(pg);
				pc_mark_accessed(s, pg);
				t->cpu_debt += s->pc.p.read_copy_ns;
			}
			os->idx++;
		}
	}
	return task_pay_cpu(t);
}

const char *stack_file_name(const struct stack_file *f) { return f->name; }
bool stack_file_is_blockdev(const struct stack_file *f) { return f->is_meta; }
uint32_t stack_file_extent_count(const struct stack_file *f) { return f->ei.next_ext; }
uint64_t stack_file_inode_lba(const struct stack_file *f) { return f->ei.inode_lba; }
uint32_t stack_file_owner_uid(const struct stack_file *f) { return f->owner_uid; }

int stack_file_prefill(struct stack *s, struct stack_file *f, uint64_t npages, uint32_t uid,
		       struct sim_error *err)
{
	uint64_t fpages = (f->size + STACK_PAGE_SIZE - 1) >> STACK_PAGE_SHIFT;
	if (f->mapping.nr_pages)
		return sim_errorf(err, SIM_E_INPUT, "%s: a warm start needs a file with no cached pages",
				  f->name);
	if (npages > fpages)
		npages = fpages;
	if (!npages)
		return 0;
	if (uid && !f->owner_uid)
		f->owner_uid = uid;
	return pagecache_prefill(s, f, npages, s->pc.mp.warm_lru, PG_WARM, err);
}

void stack_file_extent(const struct stack_file *f, uint32_t i, uint64_t *page, uint64_t *lba,
		       uint64_t *npages)
{
	const struct fs_extent *e = &f->ei.ext[i];
	*page = e->page;
	*lba = e->lba;
	*npages = e->npages;
}

enum stack_page_state stack_file_page_state(struct stack_file *f, uint64_t index)
{
	struct pc_page *pg = pc_find(f, index);
	if (!pg)
		return STACK_PAGE_ABSENT;
	if (pg->flags & PG_LOCKED)
		return STACK_PAGE_INFLIGHT;
	return (pg->flags & PG_UPTODATE) ? STACK_PAGE_UPTODATE : STACK_PAGE_INFLIGHT;
}

void stack_task_set_source(struct stack_task *t, const struct stack_op_source *src,
			   struct stack_op_source *prev)
{
	if (prev)
		*prev = t->src;
	t->src = *src;
}
