/* fsync, fdatasync and O_SYNC writes (Linux 3.10 fs/ext4/fsync.c
 * ext4_sync_file -> filemap_write_and_wait_range -> jbd2 commit).
 *
 * 1. __filemap_fdatawrite_range(WB_SYNC_ALL): the file's dirty pages
 *    become sync bios (WRITE_SYNC) issued by the task itself under its
 *    plug, a bio at a time as the flusher's (mm/writeback.c); a page that
 *    is dirty and already under writeback is waited on first
 *    (write_cache_pages waits in WB_SYNC_ALL mode).
 * 2. filemap_fdatawait_range: wait_on_page_writeback on every page under
 *    writeback: the task's own sync pages (wait cause fsync_io) and pages
 *    the flusher put under *async* writeback earlier (wait cause
 *    writeback) - the latter sit in CFQ's shared async queue, which is why
 *    fsync is slow under background writes. Before sleeping on such a page
 *    the stack calls hooks.on_wait_writeback(task, page_lba) (the boost
 *    policy lifts the request that carries it).
 * 3. If the inode's metadata (fsync) or its size/allocation (fdatasync)
 *    is in an uncommitted transaction, ask jbd2 to commit it and wait
 *    (jbd2_complete_transaction; wait cause journal).
 * Left out: the fast path that skips the commit for overwrites of
 * allocated blocks without mtime change, and barrier-less mounts.
 */
#include "models/fs/fs.h"
#include "models/fs/fs.h"
#include "sim/sim.h"

enum step task_submit_pending(struct stack_task *t)
{
	while (t->wb.pend) {
		struct stack_bio *sb = t->wb.pend;
		t->wb.pend = sb->free_next;
		sb->free_next = NULL;
		if (task_submit_bio(t, sb) == STEP_BLOCK)
			return STEP_BLOCK;
	}
	return STEP_DONE;
}

static void wait_writeback(struct stack_task *t, struct pc_page *pg)
{
	struct stack *s = t->stack;
	if (pg->flags & PG_SYNCWB) {
		task_wait_page(t, pg, PG_WRITEBACK, SIM_WAIT_FSYNC_IO);
		return;
	}
	if (s->hooks.on_wait_writeback) {
		uint64_t lba = fs_map(pg->file, pg->index, NULL);
		s->hooks.on_wait_writeback(t, lba, s->hooks.ctx);
	}
	task_wait_page(t, pg, PG_WRITEBACK, SIM_WAIT_WRITEBACK);
}

enum step fsync_write_and_wait(struct stack_task *t, struct stack_file *f)
{
	return fs_write_and_wait_range(t, f, 0, UINT64_MAX);
}

enum step fs_write_and_wait_range(struct stack_task *t, struct stack_file *f, uint64_t first,
				  uint64_t last)
{
	struct stack *s = t->stack;
	struct task_opstate *os = &t->os;

	if (os->fsync.phase == 0) {
		os->fsync.cursor = first;
		os->fsync.map_start = os->fsync.map_end = 0;
		os->fsync.phase = 1;
		if (s->q)
			task_start_plug(t);
	}
	while (os->fsync.phase == 1) {
		if (task_submit_pending(t) == STEP_BLOCK)
			return STEP_BLOCK;
		struct pc_page *pg = pc_find_ge(f, os->fsync.cursor);
		while (pg && pg->index <= last && !(pg->flags & PG_DIRTY))
			pg = pc_next(pg);
		if (!pg || pg->index > last) {
			task_finish_plug(t);
			os->fsync.phase = 2;
			os->fsync.cursor = first;
			break;
		}
		if (pg->flags & PG_WRITEBACK) {
			os->fsync.cursor = pg->index;
			wait_writeback(t, pg);
			return STEP_BLOCK;
		}
		/* the run is mapped once; unless the file system locks it, its
		 * bios are built and submitted one at a time, so a sleep
		 * submitting one leaves the rest dirty */
		uint64_t start = pg->index;
		if (start < os->fsync.map_start || start >= os->fsync.map_end) {
			/* ext4_da_writepages' handle: waits while T_LOCKED (the
			 * fsync's own handle is not counted in t_updates) */
			if (journal_handle_start(t, false) == STEP_BLOCK)
				return STEP_BLOCK;
			uint64_t n = pc_dirty_run(f, start, last == UINT64_MAX ? UINT64_MAX
									     : last - start + 1);
			if (wb_map_run(s, f, start, n, true))
				return STEP_DONE;
			os->fsync.map_start = start;
			os->fsync.map_end = start + n;
			if (s->fs.ops->writeback_cpu && s->fs.ops->writeback_cpu(t) == STEP_BLOCK)
				return STEP_BLOCK;
		}
		uint64_t n = wb_build_bios(s, f, start, os->fsync.map_end, true, &t->wb.pend);
		if (!n)
			return STEP_DONE;
		os->fsync.cursor = start + n;
	}
	if (os->fsync.phase == 2) {
		struct pc_page *pg = pc_find_writeback(f, os->fsync.cursor, last);
		if (pg) {
			os->fsync.cursor = pg->index;
			wait_writeback(t, pg);
			return STEP_BLOCK;
		}
		os->fsync.phase = 3;
	}
	return STEP_DONE;
}

enum step fs_wait_all_writeback(struct stack_task *t, struct stack_file *f)
{
	struct task_opstate *os = &t->os;
	struct pc_page *pg = pc_find_writeback(f, os->fsync.cursor, UINT64_MAX);
	if (!pg)
		return STEP_DONE;
	os->fsync.cursor = pg->index;
	wait_writeback(t, pg);
	return STEP_BLOCK;
}

enum step fsync_step(struct stack_task *t, struct stack_file *f, bool datasync)
{
	struct task_opstate *os = &t->os;
	if (os->fsync.phase < 3 && fsync_write_and_wait(t, f) == STEP_BLOCK)
		return STEP_BLOCK;
	if (os->fsync.phase == 3) {
		uint64_t tid = datasync ? f->ei.datasync_tid : f->ei.meta_tid;
		os->fsync.phase = 4;
		if (tid && journal_wait_commit(t, tid) == STEP_BLOCK)
			return STEP_BLOCK;
	}
	return STEP_DONE;
}
