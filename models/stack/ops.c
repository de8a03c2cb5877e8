/* The op state machines a user task runs: the system-call side of the
 * upper stack (read, write, fault, fsync, open/create/unlink/rename/truncate,
 * regions, CPU and sleep ops) and the public task calls of
 * models/stack/stack.h. stack_user_run is the user task's thread function
 * (registered by stack_create; models/sched/task.c calls it).
 *
 * Each op is a small state machine that is re-entered after every wake:
 * progress lives in struct task_opstate (a page cursor and a phase), and
 * every step re-looks up the page cache at the cursor, so a wake-up that
 * races with reclaim or another task's insert is handled like the kernel
 * does it (find_get_page again).
 *
 * Left out: preemption inside an op (a task holds its op until it blocks),
 * per-open-file state (readahead state is per file). O_DIRECT reads and
 * writes go to models/fs/direct.c.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/mm/mm_inline.h"
#include "models/stack/stack_int.h"
#include "sim/assert.h"
#include "sim/sim.h"
#include "sim/timeline.h"

const char *const stack_op_names[STACK_NOPKIND] = {
	"read", "write", "fault", "fsync", "fdatasync", "cpu", "sleep",
	"begin", "end", "open", "close", "fg", "willneed", "plug", "unplug",
	"atomic_start", "atomic_commit", "create", "unlink", "rename", "truncate",
};


/* --------------------------------------------------------------- ops */

static bool op_is_measured(enum stack_op_kind k, enum sim_op *op)
{
	switch (k) {
	case STACK_OP_READ: *op = SIM_OP_READ; return true;
	case STACK_OP_WRITE: *op = SIM_OP_WRITE; return true;
	case STACK_OP_FSYNC:
	case STACK_OP_FDATASYNC: *op = SIM_OP_FSYNC; return true;
	case STACK_OP_FAULT: *op = SIM_OP_FAULT; return true;
	default: return false;
	}
}

static void op_begin(struct stack_task *t, const struct stack_op *op)
{
	memset(&t->os, 0, sizeof(t->os));
	t->os.active = true;
	t->os.op = *op;
	t->os.start_ns = sim_now(t->stack->sim);
	t->os.cls = task_class(t);
}

static void op_end(struct stack_task *t)
{
	struct stack *s = t->stack;
	enum sim_op mop;
	if (t->os.einval) {
		/* returned EINVAL before any work: counted (stack.direct, the
		 * task's direct_einval), not an op */
		t->ops_done++;
		t->os.active = false;
		return;
	}
	if (op_is_measured(t->os.op.kind, &mop)) {
		uint64_t bytes = t->os.op.kind == STACK_OP_FAULT ? STACK_PAGE_SIZE : t->os.op.len;
		if (mop == SIM_OP_FSYNC)
			bytes = 0;
		int64_t lat = sim_now(s->sim) - t->os.start_ns;
		if (!s->nested)
			sim_metrics_op(&s->sim->metrics, t->os.cls, mop, bytes, lat);
		struct task_iostat *io = &t->io[mop];
		if (io->count == 0 || lat < io->lat_min)
			io->lat_min = lat;
		if (lat > io->lat_max)
			io->lat_max = lat;
		io->count++;
		io->bytes += bytes;
		io->lat_sum += (double)lat;
	}
	if (t->os.op.kind == STACK_OP_READ)
		t->bytes_read += t->os.op.len;
	else if (t->os.op.kind == STACK_OP_WRITE)
		t->bytes_written += t->os.op.len;
	t->ops_done++;
	t->os.active = false;
}

/* Scope "global": every page lookup takes the page-cache lock (once per
 * cursor position, however often the step is re-entered). */
static enum step lookup_lock(struct stack_task *t, uint64_t idx)
{
	struct stack *s = t->stack;
	if (s->lock.p.scope != PGLOCK_SCOPE_GLOBAL || t->os.lookup_paid == idx + 1)
		return STEP_DONE;
	t->os.lookup_paid = idx + 1;
	if (task_pay_cpu(t) == STEP_BLOCK) {
		t->os.lookup_paid = 0;
		return STEP_BLOCK;
	}
	return pglock_take(t, s->lock.p.lookup_ns);
}

/* lock_page() on a page under I/O: the CPU spent so far is paid first,
 * then the task sleeps until the page is unlocked; either way the step
 * re-runs from its lookup. */
static enum step wait_page_unlocked(struct stack_task *t, struct pc_page *pg)
{
	if (task_pay_cpu(t) != STEP_BLOCK)
		task_wait_page(t, pg, PG_LOCKED, pc_lock_wait_cause(pg));
	return STEP_BLOCK;
}

/* do_generic_file_read(): per page, find_get_page; on a miss sync
 * readahead then, if still absent, a single-page read; PG_readahead
 * triggers async readahead; a locked page is waited on (lock_page). */
static enum step read_step(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct task_opstate *os = &t->os;
	struct stack_file *f = os->op.file;

	if (os->phase == 0) {
		uint64_t end = os->op.off + os->op.len;
		if (end > f->size)
			end = f->size;
		if (os->op.off >= end) {
			os->idx = os->end = 0;
		} else {
			os->idx = os->op.off >> STACK_PAGE_SHIFT;
			os->end = ((end - 1) >> STACK_PAGE_SHIFT) + 1;
		}
		os->phase = 1;
	}
	while (os->idx < os->end) {
		if (t->mm.fill.active && fill_run(t) == STEP_BLOCK)
			return STEP_BLOCK;
		uint64_t idx = os->idx;
		if (lookup_lock(t, idx) == STEP_BLOCK)
			return STEP_BLOCK;
		struct pc_page *pg = pc_find(f, idx);
		if (!pg) {
			if (!os->ra_tried) {
				os->ra_tried = true;
				s->pc.misses++;
				ra_sync(t, f, idx, os->end - idx);
				if (t->mm.fill.active)
					continue;
			}
			fill_prepare(t, f, idx, 1, 0);
			s->pc.ra_single++;
			continue;
		}
		if (!os->ra_tried) {
			os->ra_tried = true;
			s->pc.hits++;
		}
		pc_warm_use(pg);
		if (pg->flags & PG_READAHEAD) {
			ra_async(t, f, pg, idx, os->end - idx);
			if (t->mm.fill.active)
				continue;
		}
		if (pg->flags & PG_LOCKED)
			return wait_page_unlocked(t, pg);
		pc_mark_accessed(s, pg);
		t->cpu_debt += s->pc.p.read_copy_ns;
		f->ra.prev_page = idx;
		os->idx++;
		os->ra_tried = false;
	}
	if (os->phase == 1) {
		if (task_pay_cpu(t) == STEP_BLOCK)
			return STEP_BLOCK;
		os->phase = 2;
	}
	/* file_accessed -> touch_atime, after the copy */
	return s->fs.ops->accessed ? s->fs.ops->accessed(t, f) : STEP_DONE;
}

/* filemap_fault(): a present page runs do_async_mmap_readahead, a
 * missing one do_sync_mmap_readahead (read-around) and then waits for it
 * (lock_page_or_retry). */
static enum step fault_step(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct task_opstate *os = &t->os;
	struct stack_file *f = os->op.file;

	if (os->phase == 0) {
		os->phase = 1;
		if (os->op.off >= f->size)
			return STEP_DONE; /* SIGBUS in the kernel; nothing to read here */
		os->idx = os->op.off >> STACK_PAGE_SHIFT;
	}
	if (os->phase == 2)
		return task_pay_cpu(t);
	for (;;) {
		if (t->mm.fill.active && fill_run(t) == STEP_BLOCK)
			return STEP_BLOCK;
		if (lookup_lock(t, os->idx) == STEP_BLOCK)
			return STEP_BLOCK;
		struct pc_page *pg = pc_find(f, os->idx);
		if (!pg) {
			if (!os->ra_tried) {
				os->ra_tried = true;
				s->pc.misses++;
				ra_fault_miss(t, f, os->idx);
				if (t->mm.fill.active)
					continue;
			}
			fill_prepare(t, f, os->idx, 1, 0);
			s->pc.ra_single++;
			continue;
		}
		pc_warm_use(pg);
		if (!os->ra_tried) {
			os->ra_tried = true;
			s->pc.hits++;
			ra_fault_hit(t, f, pg, os->idx);
			if (t->mm.fill.active)
				continue;
		}
		if (pg->flags & PG_LOCKED)
			return wait_page_unlocked(t, pg);
		pg->flags |= PG_MAPPED | PG_YOUNG;
		t->cpu_debt += s->pc.p.fault_map_ns;
		os->phase = 2;
		return task_pay_cpu(t);
	}
}

/* generic_perform_write(): per page balance_dirty_pages_ratelimited,
 * write_begin (find or add the page; read it first when the write covers
 * only part of a page that holds data), copy, mark_page_accessed,
 * write_end (dirty the page, extend i_size). O_SYNC then syncs the file. */
/* A buffered write() in the kernel's order (3.10 __generic_file_aio_write,
 * ext4_file_write / f2fs_file_write_iter): file_update_time, then
 * generic_perform_write page by page (->write_begin, the copy,
 * ->write_end and balance_dirty_pages_ratelimited), then, for O_SYNC,
 * generic_write_sync. */
enum write_phase {
	WRITE_START = 0,           /* the inode's journal access and mtime */
	WRITE_BALANCE,             /* f2fs_balance_fs (fs_ops.write_begin) */
	WRITE_COPY,                /* generic_perform_write: the pages, one at a time */
	WRITE_SYNC,                /* generic_write_sync -> vfs_fsync_range (O_SYNC) */
	WRITE_DONE,
};

/* The pages of a write() that appends whole pages to its file, while
 * nothing but the writer happens in the model: the write loop's pages one
 * after another (each pays its debt, is inserted and dirtied) with the
 * tests that no page of the run changes made once and the counters added
 * at the end. Page by page the loop would take the same path every time:
 * no fill, no dirty throttling (nr_dirtied below its pause), no locked
 * journal, no page at or past idx (pc_lookup NULL, no partial page to
 * read), task_pay_cpu's one-function path (cpu_pay_run_open: the clock's
 * fast advance each time, so no event comes in between), mm_alloc_page's
 * without reclaim (room above the low watermark; an empty per-cpu list
 * refilled under a free zone->lock), a record at hand in the pool (its
 * index leaf made first when missing, as pc_index_insert makes it), the
 * tree_lock free (a reclaimer's periodic holds of it over) and, at a
 * pagevec drain, the lru_lock free (a free lock adds no spin, so every
 * debt after the first is write_copy_ns), and wb_dirtied without its
 * slow part. The policies' insert hooks are called
 * at each page as pc_insert calls them, the clock kept current for them;
 * they see no other counter (stack_hooks.insert_hooks_local), and a delay
 * from pagecache_may_insert blocks the writer there as pc_insert does.
 * size_dirtied: the step already marked the inode dirty for i_size (each
 * page then only moves f->size). The run stops before the first page
 * that would take another path, which the loop then takes as before.
 * *done: the pages written (0 with STEP_DONE: nothing changed). */
static inline __attribute__((always_inline)) enum step
write_append_run_as(struct stack_task *t, struct stack_file *f, uint64_t end, bool size_dirtied,
		    uint64_t *done, const bool hooks)
{
	struct stack *s = t->stack;
	struct task_opstate *os = &t->os;
	struct pagecache *pc = &s->pc;
	struct writeback *wb = &s->wb;
	struct mm_reclaim *rc = &t->mm.rc;
	struct mm_lock *tl = &f->mapping.tree_lock, *ll = &s->lock.l;
	struct sim_engine *e = &s->sim->engine;
	const struct stack_hooks *hk = &s->hooks;
	uint64_t idx = os->idx;

	*done = 0;
	if (!size_dirtied || t->mm.fill.active || t->mm.bdp_phase || s->jn.locked ||
	    f->ei.atomic || s->lock.p.scope == PGLOCK_SCOPE_GLOBAL)
		return STEP_DONE;
	if (hooks && (!hk->insert_hooks_local || f->is_meta))
		return STEP_DONE;
	if (s->sim->timeline || !f->mapping.on_dirty_list || !sim_event_pending(&wb->periodic))
		return STEP_DONE;
	if ((f->mapping.last && idx <= f->mapping.last->index) ||
	    (idx << STACK_PAGE_SHIFT) < os->op.off)
		return STEP_DONE;
	/* whole pages: those before end's page */
	uint64_t n_max = end >> STACK_PAGE_SHIFT;
	if (n_max <= idx || t->mm.nr_dirtied >= t->mm.nr_dirtied_pause)
		return STEP_DONE;
	n_max -= idx;
	if (n_max > t->mm.nr_dirtied_pause - t->mm.nr_dirtied)
		n_max = t->mm.nr_dirtied_pause - t->mm.nr_dirtied;
	if (rc->phase != MM_RC_IDLE || pc->used + pc->wmark_low >= pc->capacity)
		return STEP_DONE;
	if (n_max > pc->capacity - pc->wmark_low - pc->used)
		n_max = pc->capacity - pc->wmark_low - pc->used;
	struct cpu_pay_run pay;
	if (!cpu_pay_run_open(t, &pay))
		return STEP_DONE;

	const int64_t copy_ns = pc->p.write_copy_ns, insert_ns = s->lock.p.insert_ns;
	const uint32_t batch = (uint32_t)s->lock.p.batch_pages;
	const enum sim_class cls = pc_task_class(t);
	const struct pc_index *ix = &f->mapping.pages;
	int64_t now = e->now, debt = t->cpu_debt, delay = 0;
	int64_t tree_free_at = tl->free_at;
	/* a reclaimer's periodic holds of the tree_lock: a page at or after
	 * their end takes it free (periodic_fit clears them), one before them
	 * is left to the loop */
	bool tree_periodic = tl->per_n != 0;
	const int64_t tree_periodic_end = tree_periodic ? mm_lock_periodic_end(tl) : 0;
	struct mm_lock *zl = &s->zone_lock;
	const int64_t zone_hold = s->lock.p.zone_batch_ns + pc->pcp_batch * s->lock.p.zone_page_ns;
	uint32_t pvec = t->mm.pvec, pcp = rc->pcp_count;
	uint64_t refills = 0;
	struct pc_page *pg = NULL;
	uint64_t n = 0;
	for (; n < n_max; n++) {
		/* every test of page n before any change */
		int64_t at = now;
		if (debt > 0) {
			at = now + debt;
			if (debt > pay.slice_max || at > pay.last_at)
				break;
		}
		if (tree_free_at > at || (tree_periodic && at < tree_periodic_end))
			break;
		/* an empty per-cpu list: mm_alloc_page's refill (pcp_take) under a
		 * free zone->lock */
		if (pcp == 0 && (zl->per_n || zl->free_at > at))
			break;
		int64_t lru_hold = 0;
		const bool drain = pvec + 1 >= batch;
		if (drain) {
			lru_hold = s->lock.p.lru_add_batch_ns +
				   (int64_t)(pvec + 1) * s->lock.p.lru_add_page_ns;
			if (lru_hold > 0 && (ll->per_n || ll->free_at > at))
				break;
		}
		uint64_t i = idx + n, l = i >> PC_LEAF_SHIFT;
		if (!pc_page_alloc_at_hand(pc))
			break;
		/* the page's leaf: made first when missing (a record at hand
		 * comes from the pool without an allocation, so the allocations
		 * are in pc_insert's order) */
		struct pc_leaf *lf = l < ix->nleaf ? ix->leaf[l] : NULL;
		if (!lf && !(lf = pc_index_leaf(f, l)))
			break;
		if (debt > 0) {
			cpu_pay_run_add(&pay, now, debt);
			now = at;
			if (hooks) /* the clock the hooks read */
				e->now = at;
			debt = 0;
		}
		if (hooks && hk->pagecache_may_insert) {
			delay = hk->pagecache_may_insert(t, hk->ctx);
			if (delay > 0)
				break;
		}
		/* pc_insert's page, then the copy's flags: PG_locked cleared
		 * (no sleeper), referenced (pc_accessed of a new page), dirty */
		if (pcp == 0) {
			if (at + zone_hold > zl->free_at)
				zl->free_at = at + zone_hold;
			mm_lock_count(zl, 0, zone_hold, cls, 1);
			pcp = (uint32_t)pc->pcp_batch;
			refills++;
		}
		pcp--;
		pg = pc_page_alloc(pc);
		pg->file = f;
		pg->index = (uint32_t)i;
		unsigned b = (unsigned)(i & ((1u << PC_LEAF_SHIFT) - 1));
		lf->slot[b] = pg;
		lf->map |= 1ull << b;
		pg->flags = PG_UPTODATE | PG_REFERENCED | PG_DIRTY;
		list_add(&pg->lru, &pc->inactive);
		pg->lru_list = PC_LRU_INACTIVE;
		if (hooks && hk->on_page_insert)
			hk->on_page_insert(t, hk->ctx);
		/* mm_lock_acquire of a free lock */
		tree_periodic = false;
		if (at + insert_ns > tree_free_at)
			tree_free_at = at + insert_ns;
		pvec++;
		if (drain) {
			if (lru_hold > 0) {
				if (at + lru_hold > ll->free_at)
					ll->free_at = at + lru_hold;
				mm_lock_count(ll, 0, lru_hold, cls, 1);
			}
			pvec = 0;
		}
		debt += copy_ns;
	}
	cpu_pay_run_close(t, &pay, now);
	t->cpu_debt = debt;
	if (n > 0) {
		/* mm_alloc_page_fast's: the least free after a page is the last one's */
		rc->pcp_count = pcp;
		pc->pcp_refills += refills;
		if (!tree_periodic)
			tl->per_n = 0;
		if (pc->capacity - pc->used - n < pc->min_free_seen)
			pc->min_free_seen = pc->capacity - pc->used - n;
		pc->used += n;
		pc->inserted += n;
		if (pc->used > pc->peak_used)
			pc->peak_used = pc->used;
		pc->nr_inactive += n;
		f->mapping.nr_pages += n;
		if (!f->owner_uid && !f->is_meta)
			f->owner_uid = t->uid;
		f->mapping.last = pg;
		tl->free_at = tree_free_at;
		mm_lock_count(tl, 0, insert_ns, cls, (uint32_t)n);
		t->mm.pvec = pvec;
		wb->nr_dirty += n;
		f->mapping.nr_dirty += n;
		if (wb->nr_dirty + wb->nr_writeback > wb->peak_dirty)
			wb->peak_dirty = wb->nr_dirty + wb->nr_writeback;
		t->mm.nr_dirtied += n;
		if (((idx + n) << STACK_PAGE_SHIFT) > f->size)
			f->size = (idx + n) << STACK_PAGE_SHIFT;
		os->idx += n;
	}
	*done = n;
	if (delay > 0) /* pc_insert's policy sleep, the page's debt paid */
		return task_delay(t, delay, SIM_WAIT_POLICY, 0, true);
	return STEP_DONE;
}

/* write_append_run_as with and without the hook calls, each a function
 * of its own, so that the page loop without hooks calls nothing (flatten:
 * every inline it uses in line). */
static __attribute__((noinline, flatten)) enum step
write_append_run_plain(struct stack_task *t, struct stack_file *f, uint64_t end,
		       bool size_dirtied, uint64_t *done)
{
	return write_append_run_as(t, f, end, size_dirtied, done, false);
}

static __attribute__((noinline)) enum step
write_append_run_hooked(struct stack_task *t, struct stack_file *f, uint64_t end,
			bool size_dirtied, uint64_t *done)
{
	return write_append_run_as(t, f, end, size_dirtied, done, true);
}

static inline enum step write_append_run(struct stack_task *t, struct stack_file *f, uint64_t end,
					 bool size_dirtied, uint64_t *done)
{
	const struct stack_hooks *hk = &t->stack->hooks;
	if (hk->pagecache_may_insert || hk->on_page_insert)
		return write_append_run_hooked(t, f, end, size_dirtied, done);
	return write_append_run_plain(t, f, end, size_dirtied, done);
}

static enum step write_step(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct task_opstate *os = &t->os;
	struct stack_file *f = os->op.file;
	uint64_t off = os->op.off, end = os->op.off + os->op.len;

	for (;;) {
		switch ((enum write_phase)os->phase) {
		case WRITE_START:
			if (os->op.len == 0) {
				os->phase = WRITE_DONE;
				break;
			}
			/* ext4_dirty_inode -> do_get_write_access on the inode's
			 * buffer: wait while the commit journals it (BH_Shadow) */
			if (journal_get_write_access(t, f) == STEP_BLOCK)
				return STEP_BLOCK;
			os->idx = off >> STACK_PAGE_SHIFT;
			os->end = ((end - 1) >> STACK_PAGE_SHIFT) + 1;
			os->phase = s->fs.ops->write_begin ? WRITE_BALANCE : WRITE_COPY;
			/* file_update_time(): the inode joins the running transaction. */
			s->fs.ops->dirty_inode(s, f, false);
			break;
		case WRITE_BALANCE:
			/* f2fs_balance_fs: foreground cleaning when free sections run low */
			if (s->fs.ops->write_begin(t, f) == STEP_BLOCK)
				return STEP_BLOCK;
			os->phase = WRITE_COPY;
			break;
		case WRITE_COPY: {
			/* i_size grew and the inode was marked dirty in this step */
			bool size_dirtied = false;
			/* nothing the loop calls changes t's op phase */
			while (os->idx < os->end) {
				uint64_t run;
				if (write_append_run(t, f, end, size_dirtied, &run) == STEP_BLOCK)
					return STEP_BLOCK;
				if (run)
					continue;
				if (t->mm.fill.active && fill_run(t) == STEP_BLOCK)
					return STEP_BLOCK;
				if (t->mm.bdp_phase || t->mm.nr_dirtied >= t->mm.nr_dirtied_pause) {
					if (task_pay_cpu(t) == STEP_BLOCK)
						return STEP_BLOCK;
					if (wb_balance_dirty(t) == STEP_BLOCK)
						return STEP_BLOCK;
				}
				/* ext4_da_write_begin -> ext4_journal_start: a page's
				 * handle waits while the running tx is T_LOCKED (held only
				 * for the copy: not counted in t_updates) */
				if (s->jn.locked) {
					if (task_pay_cpu(t) != STEP_BLOCK)
						journal_handle_start(t, false);
					return STEP_BLOCK;
				}
				uint64_t idx = os->idx;
				uint64_t pstart = idx << STACK_PAGE_SHIFT, pend = pstart + STACK_PAGE_SIZE;
				if (lookup_lock(t, idx) == STEP_BLOCK)
					return STEP_BLOCK;
				struct pc_page *pg = pc_lookup(f, idx);
				if (!pg) {
					/* a partial page (first or last) over data is read first */
					if (pstart < f->size && (off > pstart || end < pend) &&
					    fs_map(f, idx, NULL) != UINT64_MAX) {
						fill_prepare(t, f, idx, 1, 0);
						s->pc.misses++;
						continue;
					}
					if (task_pay_cpu(t) == STEP_BLOCK)
						return STEP_BLOCK;
					/* ext4's write_begin allocates GFP_NOFS (pc_add_page) */
					if (pc_insert(t, f, idx, &pg, true) == STEP_BLOCK)
						return STEP_BLOCK;
					pg->flags |= PG_UPTODATE;
					pc_clear_flags(s, pg, PG_LOCKED);
				}
				if (pg->flags & PG_LOCKED)
					return wait_page_unlocked(t, pg);
				t->cpu_debt += s->pc.p.write_copy_ns;
				pc_accessed(&s->pc, pg);
				pg->flags |= PG_UPTODATE;
				if (f->ei.atomic) {
					/* f2fs_set_data_page_dirty of an atomic file registers the
					 * page in memory instead of dirtying it */
					if (!(pg->flags & (PG_DIRTY | PG_ATOMIC))) {
						pg->flags |= PG_ATOMIC;
						f->ei.nr_atomic++;
					}
				} else {
					if (!(pg->flags & PG_DIRTY)) {
						pg->flags |= PG_DIRTY;
						wb_dirtied(s, pg);
					}
					t->mm.nr_dirtied++;
				}
				uint64_t wend = end < pend ? end : pend;
				if (wend > f->size) {
					f->size = wend;
					/* generic_write_end marks the inode dirty per page; a
					 * repeat in the same step records nothing new (see
					 * fs_ops.dirty_inode), so it is asked once per step */
					if (!size_dirtied) {
						s->fs.ops->dirty_inode(s, f, true);
						size_dirtied = true;
					}
				}
				os->idx++;
			}
			if (task_pay_cpu(t) == STEP_BLOCK)
				return STEP_BLOCK;
			os->phase = (os->op.flags & STACK_OPF_SYNC) ? WRITE_SYNC : WRITE_DONE;
			break;
		}
		case WRITE_SYNC:
			/* generic_write_sync() -> vfs_fsync_range(): the fs's fsync,
			 * with its own cursor (os->fsync, untouched until now) */
			return s->fs.ops->fsync(t, f, false);
		case WRITE_DONE:
		default:
			return STEP_DONE;
		}
	}
}

/* vfs open: the inode must be read (ext4_iget -> sb_bread of the inode
 * table block) unless it is cached. */
static enum step open_step(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct task_opstate *os = &t->os;
	struct stack_file *f = os->op.file;
	struct stack_file *meta = s->fs.meta;
	if (f->ei.inode_cached || !meta)
		return STEP_DONE;
	uint64_t idx = f->ei.inode_lba >> (STACK_PAGE_SHIFT - SECTOR_SHIFT);
	for (;;) {
		if (t->mm.fill.active && fill_run(t) == STEP_BLOCK)
			return STEP_BLOCK;
		struct pc_page *pg = pc_find(meta, idx);
		if (!pg) {
			fill_prepare(t, meta, idx, 1, 0);
			continue;
		}
		if (pg->flags & PG_LOCKED) {
			task_wait_page(t, pg, PG_LOCKED, pc_lock_wait_cause(pg));
			return STEP_BLOCK;
		}
		pc_mark_accessed(s, pg);
		f->ei.inode_cached = true;
		(void)os;
		return STEP_DONE;
	}
}

static void region_begin(struct stack_task *t, const char *name)
{
	if (t->nregions >= STACK_REGION_DEPTH)
		return;
	t->regions[t->nregions] = name ? name : "region";
	t->region_start[t->nregions] = sim_now(t->stack->sim);
	stack_energy_now(t->stack, &t->region_energy_j[t->nregions][0],
			 &t->region_energy_j[t->nregions][1]);
	t->nregions++;
}

static void region_end(struct stack_task *t, const char *name)
{
	struct sim *sim = t->stack->sim;
	for (int i = t->nregions - 1; i >= 0; i--) {
		if (name && strcmp(t->regions[i], name) != 0)
			continue;
		double dev_j, cpu_j;
		stack_energy_now(t->stack, &dev_j, &cpu_j);
		if (sim_metrics_region(&sim->metrics, t->regions[i], t->name, t->region_start[i],
				       sim_now(sim) - t->region_start[i], dev_j - t->region_energy_j[i][0],
				       cpu_j - t->region_energy_j[i][1]))
			sim_fail(sim, SIM_E_NOMEM, "out of memory recording a region");
		if (sim->timeline) {
			int64_t pid, tid;
			char label[96];
			task_track(t, &pid, &tid);
			snprintf(label, sizeof(label), "%s regions", t->name);
			sim_timeline_track(sim->timeline, pid, TIMELINE_REGION_TID(tid), NULL, label);
			sim_timeline_slice(sim->timeline, pid, TIMELINE_REGION_TID(tid), "region",
					   t->regions[i], t->region_start[i],
					   sim_now(sim) - t->region_start[i], false,
					   sim_class_names[task_class(t)], NULL, 0);
		}
		t->nregions = i;
		return;
	}
}

static enum step op_step(struct stack_task *t)
{
	struct task_opstate *os = &t->os;
	switch (os->op.kind) {
	case STACK_OP_READ:
		return (os->op.flags & STACK_OPF_DIRECT) ? fs_direct_step(t) : read_step(t);
	case STACK_OP_WRITE:
		if (os->op.file)
			os->op.file->ei.write_closed = false;
		return (os->op.flags & STACK_OPF_DIRECT) ? fs_direct_step(t) : write_step(t);
	case STACK_OP_FAULT:
		return fault_step(t);
	case STACK_OP_FSYNC:
	case STACK_OP_FDATASYNC:
		return t->stack->fs.ops->fsync(t, os->op.file, os->op.kind == STACK_OP_FDATASYNC);
	case STACK_OP_CPU:
		if (os->phase == 0 && os->op.ns > 0) {
			os->phase = 1;
			return cpu_run(t, os->op.ns) ? STEP_DONE : STEP_BLOCK;
		}
		return STEP_DONE;
	case STACK_OP_SLEEP:
		if (os->phase == 0) {
			os->phase = 1;
			return task_delay(t, 0, SIM_NWAIT, os->op.ns, true);
		}
		return STEP_DONE;
	case STACK_OP_BEGIN:
		region_begin(t, os->op.name);
		return STEP_DONE;
	case STACK_OP_END:
		region_end(t, os->op.name);
		return STEP_DONE;
	case STACK_OP_OPEN:
		return open_step(t);
	case STACK_OP_CLOSE:
		/* the last writer is gone (inode_is_open_for_write, what mballoc asks) */
		if (os->op.file)
			os->op.file->ei.write_closed = true;
		return STEP_DONE;
	case STACK_OP_FG:
		stack_set_fg_uid(t->stack, (uint32_t)os->op.len);
		return STEP_DONE;
	case STACK_OP_ATOMIC_START:
	case STACK_OP_ATOMIC_COMMIT:
		if (!os->op.file)
			return STEP_DONE;
		return t->stack->fs.ops->atomic(t, os->op.file, os->op.kind == STACK_OP_ATOMIC_COMMIT);
	case STACK_OP_WILLNEED:
	case STACK_OP_PLUG:
	case STACK_OP_UNPLUG:
		return launch_op_step(t);
	case STACK_OP_CREATE:
	case STACK_OP_UNLINK:
	case STACK_OP_RENAME:
	case STACK_OP_TRUNCATE:
		if (!os->op.file || !t->stack->fs.ops->namespace)
			return STEP_DONE;
		return t->stack->fs.ops->namespace(t, os->op.file, os->op.kind);
	default:
		return STEP_DONE;
	}
}

static void task_exit(struct stack_task *t)
{
	struct stack *s = t->stack;
	/* between ops: no jbd2 handle held, no lock section running */
	SIM_ASSERT(!t->jhandle && !t->nopreempt && !t->os.active);
	task_finish_plug(t);
	t->state = TS_EXITED;
	t->exit_ns = sim_now(s->sim);
	if (!t->kthread && s->user_alive > 0)
		s->user_alive--;
	if (t->src.exited)
		t->src.exited(t, t->src.ctx);
}

void stack_user_run(struct stack_task *t)
{
	for (;;) {
		if (!t->os.active) {
			struct stack_op op;
			int r = t->src.next(t, &op, t->src.ctx);
			if (r < 0) {
				t->state = TS_IDLE;
				return;
			}
			if (r == 0) {
				task_exit(t);
				return;
			}
			if (op.kind >= STACK_NOPKIND) {
				sim_fail(t->stack->sim, SIM_E_RUNTIME, "task %s: bad op kind %d", t->name,
					 (int)op.kind);
				task_exit(t);
				return;
			}
			op_begin(t, &op);
		}
		if (op_step(t) == STEP_BLOCK)
			return;
		op_end(t);
	}
}

/* ---------------------------------------------------------- public API */

struct stack_task *stack_task_create(struct stack *s, const struct stack_task_attr *attr,
				     const struct stack_op_source *src, struct sim_error *err)
{
	if (!src || !src->next) {
		sim_errorf(err, SIM_E_INPUT, "task %s: no op source", attr->name ? attr->name : "?");
		return NULL;
	}
	struct stack_task *t = task_new(s, attr->name, stack_user_run, NULL);
	if (t) {
		task_set_user(t, attr->uid);
		task_set_ioprio(t, attr->ioprio_class, attr->ioprio_level);
	}
	if (!t) {
		sim_errorf(err, SIM_E_NOMEM, "out of memory creating a task");
		return NULL;
	}
	if (attr->pid > 0) {
		t->ioc.pid = attr->tid > 0 ? attr->tid : attr->pid;
		t->ioc.tgid = attr->pid;
	}
	t->src = *src;
	s->user_alive++;
	task_profiles_apply(s, t);
	return t;
}

void stack_task_start(struct stack_task *t, int64_t at_ns)
{
	struct sim *sim = t->stack->sim;
	if (t->started)
		return;
	t->started = true;
	t->start_ns = at_ns;
	t->state = TS_READY;
	sim_at(sim, &t->run_ev, at_ns < sim_now(sim) ? sim_now(sim) : at_ns);
}

void stack_task_kick(struct stack_task *t)
{
	if (t->state != TS_IDLE)
		return;
	t->state = TS_READY;
	sim_at(t->stack->sim, &t->run_ev, sim_now(t->stack->sim));
}

const char *stack_task_name(const struct stack_task *t) { return t->name; }
uint32_t stack_task_uid(const struct stack_task *t) { return t->uid; }
int32_t stack_task_pid(const struct stack_task *t) { return t->ioc.pid; }
bool stack_task_exited(const struct stack_task *t) { return t->state == TS_EXITED; }
bool stack_task_is_fg(const struct stack_task *t) { return t->ioc.fg; }
bool stack_task_is_bg(const struct stack_task *t) { return !t->ioc.fg && t->uid != 0; }
struct io_context *stack_task_ioc(struct stack_task *t) { return &t->ioc; }
struct stack *stack_task_stack(const struct stack_task *t) { return t->stack; }

bool stack_tasks_done(const struct stack *s)
{
	return s->user_alive == 0;
}

void stack_set_fg_uid(struct stack *s, uint32_t uid)
{
	s->fg_uid = uid;
	struct list_head *pos;
	list_for_each(pos, &s->tasks) {
		struct stack_task *t = list_entry(pos, struct stack_task, all_node);
		t->ioc.fg = t->uid != 0 && t->uid == uid;
	}
	/* the activity manager applies SCHED_SP_TOP_APP / _BACKGROUND too */
	task_profiles_apply_all(s);
}

uint32_t stack_fg_uid(const struct stack *s)
{
	return s->fg_uid;
}
