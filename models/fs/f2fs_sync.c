/* F2FS fsync by node chain and atomic writes (Linux 5.15 fs/f2fs/file.c
 * f2fs_do_sync_file, node.c f2fs_fsync_node_pages, segment.c
 * f2fs_issue_flush; atomic write ioctls of the same version).
 *
 * fsync: (1) with FI_NEED_IPU set when the file has at most
 * min_fsync_blocks dirty pages (or for fdatasync), write and wait the
 * dirty data (file_write_and_wait_range); (2) if the inode changed
 * (mtime or, for fdatasync, size) it is written into its node page;
 * (3) with no new block since the last sync (no APPEND_INO), only in-place
 * updates need a cache flush and nothing else anything; (4) if
 * need_do_checkpoint() holds - 2 active logs, or no room for roll-forward
 * recovery (free space low) - a checkpoint replaces the rest; (5) else
 * the file's dirty direct node blocks (at least the inode) are written to
 * the warm node log with the fsync mark, waited for, and (6) one cache
 * FLUSH is issued unless fsync_mode=nobarrier. No checkpoint, no journal:
 * after a crash roll-forward recovery replays the marked node chain.
 *
 * Atomic writes (SQLite's F2FS_IOC_START_ATOMIC_WRITE / COMMIT): pages
 * written between the two are held in memory (PG_ATOMIC: neither dirty for
 * writeback nor reclaimable); commit writes them out of place to the hot
 * data log with REQ_SYNC, waits for them, then submits the node chain
 * whose last block carries REQ_PREFLUSH | REQ_FUA and returns without
 * waiting for it (the node chain keeps the order; f2fs_do_sync_file with
 * atomic=true issues no separate flush).
 * Left out: the per-inode i_sem/gc locks, abort (F2FS_IOC_ABORT_...),
 * the flush_merge thread (each fsync sends its own flush), the fsync
 * of directories and the strict fsync_mode's dentry checks.
 */
#include "models/fs/f2fs_int.h"
#include "sim/sim.h"

enum {
	FS_START = 0,   /* 0..2: fsync_write_and_wait */
	FS_AFTER_DATA = 3,
	FS_NODES,
	FS_NODES_WAIT,
	FS_FLUSH,
	FS_FLUSH_WAIT,
	FS_CP,
	FS_DONE,
};

uint32_t f2fs_write_nodes(struct stack *s, struct stack_task *owner, struct stack_file *f,
			  uint32_t flags, uint32_t flags_last)
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_inode *fi = f2fs_i(f);
	struct stack_bio **tail = &owner->wb.pend;
	while (*tail)
		tail = &(*tail)->free_next;
	uint32_t n = 0;
	struct stack_bio *last = NULL;
	uint64_t maxs = s->fs.p.max_bio_bytes >> SECTOR_SHIFT;
	for (uint32_t k = 0; k < fi->nnodes && fi->ndirty_nodes > 0; k++) {
		if (!fi->node_dirty[k])
			continue;
		struct f2fs_sum sum = { (f->id + 1) | F2FS_SUM_NODE, k };
		uint64_t blk = f2fs_alloc_block(s, F2FS_WARM_NODE, sum);
		if (blk == UINT64_MAX) {
			sim_fail(s->sim, SIM_E_RUNTIME, "f2fs: no free segment for node blocks");
			return n;
		}
		if (fi->node_blk[k] != UINT64_MAX)
			f2fs_invalidate(s, fi->node_blk[k]);
		fi->node_blk[k] = blk;
		if (k == 0)
			f->ei.inode_lba = f2fs_blk_lba(fs, blk);
		fi->node_dirty[k] = 0;
		fi->ndirty_nodes--;
		fs->dirty_nodes--;
		fs->dirty_nat++;
		n++;
		uint64_t lba = f2fs_blk_lba(fs, blk);
		if (last && last->bio.sector + last->bio.nr_sectors == lba &&
		    last->bio.nr_sectors + F2FS_SECTORS_PER_BLK <= maxs) {
			last->bio.nr_sectors += F2FS_SECTORS_PER_BLK;
			continue;
		}
		struct stack_bio *sb = f2fs_bio(s, (flags_last & REQ_FUA) ? NULL : owner, lba,
						F2FS_SECTORS_PER_BLK, flags);
		if (!sb)
			return n;
		*tail = sb;
		tail = &sb->free_next;
		last = sb;
	}
	if (last)
		last->bio.flags |= flags_last;
	if (fi->ndirty_nodes == 0 && !list_empty(&fi->dirty_node))
		list_del_init(&fi->dirty_node);
	return n;
}

/* need_do_checkpoint() of file.c for what the model knows. */
static bool need_do_checkpoint(const struct stack *s)
{
	const struct f2fs *fs = s->fs.f2;
	return fs->p.active_logs == 2 || f2fs_low_free(s);
}

static enum step sync_file(struct stack_task *t, struct stack_file *f, bool datasync, bool atomic)
{
	struct stack *s = t->stack;
	struct f2fs *fs = s->fs.f2;
	struct f2fs_inode *fi = f2fs_i(f);
	struct task_opstate *os = &t->os;
	if (!fi)
		return STEP_DONE;
	if (os->fsync.phase == FS_START) {
		f2fs_note_request(s);
		if (atomic) {
			/* commit: the held pages become dirty and go out now */
			for (struct pc_page *pg = pc_find_ge(f, 0); pg; pg = pc_next(pg)) {
				if (!(pg->flags & PG_ATOMIC))
					continue;
				pg->flags &= (uint16_t)~PG_ATOMIC;
				fs->atomic_pages++;
				if (!(pg->flags & PG_DIRTY)) {
					pg->flags |= PG_DIRTY;
					wb_page_dirtied(s, pg);
				}
			}
			f->ei.nr_atomic = 0;
			f->ei.atomic = false;
			fi->need_ipu = false;
			fi->atomic_commit = true; /* still FI_ATOMIC_FILE: not compressed */
		} else {
			fi->need_ipu = datasync || f->mapping.nr_dirty <= (uint64_t)fs->p.min_fsync_blocks;
		}
	}
	if (os->fsync.phase < FS_AFTER_DATA) {
		enum step r = fsync_write_and_wait(t, f);
		if (r == STEP_BLOCK)
			return STEP_BLOCK;
		fi->need_ipu = false;
		fi->atomic_commit = false;
	}
	if (os->fsync.phase == FS_AFTER_DATA) {
		fs->fsyncs += atomic ? 0 : 1;
		bool inode_upd = datasync ? fi->size_dirty : fi->inode_dirty;
		if (inode_upd) {
			f2fs_mark_node_dirty(s, f, 0);
			fi->inode_dirty = false;
			fi->size_dirty = false;
			fi->append_write = true; /* goto go_write */
		}
		if (!fi->append_write) {
			if (!fi->update_write && !atomic) {
				fs->fsync_no_io++;
				os->fsync.phase = FS_DONE;
				return STEP_DONE;
			}
			os->fsync.phase = atomic ? FS_DONE : FS_FLUSH;
		} else if (need_do_checkpoint(s)) {
			fs->cp_fsync++;
			os->fsync.phase = FS_CP;
		} else {
			os->fsync.phase = FS_NODES;
		}
	}
	if (os->fsync.phase == FS_CP) {
		if (f2fs_wait_checkpoint(t) == STEP_BLOCK)
			return STEP_BLOCK;
		fi->append_write = fi->update_write = false;
		os->fsync.phase = FS_DONE;
		return STEP_DONE;
	}
	if (os->fsync.phase == FS_NODES) {
		if (fi->ndirty_nodes == 0)
			f2fs_mark_node_dirty(s, f, 0); /* the inode carries the fsync mark */
		t->wb.left = 0;
		if (s->q)
			task_start_plug(t);
		uint32_t n = f2fs_write_nodes(s, t, f, REQ_WRITE | REQ_SYNC,
					      atomic ? (REQ_FLUSH | REQ_FUA) : 0);
		fs->fsync_node_blocks += n;
		os->fsync.phase = FS_NODES_WAIT;
	}
	if (os->fsync.phase == FS_NODES_WAIT) {
		if (task_submit_pending(t) == STEP_BLOCK)
			return STEP_BLOCK;
		task_finish_plug(t);
		fi->append_write = false;
		if (atomic) {
			/* the node chain orders itself: no wait (file.c) */
			fs->atomic_commits++;
			os->fsync.phase = FS_DONE;
			return STEP_DONE;
		}
		if (t->wb.left > 0) {
			task_block(t, SIM_WAIT_FSYNC_IO);
			return STEP_BLOCK;
		}
		os->fsync.phase = FS_FLUSH;
	}
	if (os->fsync.phase == FS_FLUSH) {
		fi->update_write = false;
		if (fs->p.fsync_mode == F2FS_FSYNC_NOBARRIER) {
			os->fsync.phase = FS_DONE;
			return STEP_DONE;
		}
		t->wb.left = 0;
		struct stack_bio *sb = f2fs_bio(s, t, 0, 0, REQ_WRITE | REQ_SYNC | REQ_FLUSH);
		if (!sb)
			return STEP_DONE;
		sb->free_next = t->wb.pend;
		t->wb.pend = sb;
		fs->fsync_flushes++;
		os->fsync.phase = FS_FLUSH_WAIT;
	}
	if (os->fsync.phase == FS_FLUSH_WAIT) {
		if (task_submit_pending(t) == STEP_BLOCK)
			return STEP_BLOCK;
		if (t->wb.left > 0) {
			task_block(t, SIM_WAIT_FSYNC_IO);
			return STEP_BLOCK;
		}
		os->fsync.phase = FS_DONE;
	}
	return STEP_DONE;
}

enum step f2fs_fsync(struct stack_task *t, struct stack_file *f, bool datasync)
{
	return sync_file(t, f, datasync, false);
}

enum step f2fs_atomic(struct stack_task *t, struct stack_file *f, bool commit)
{
	struct f2fs_inode *fi = f2fs_i(f);
	if (!commit) {
		if (t->os.fsync.phase == FS_START) {
			f->ei.atomic = true;
			if (fi)
				fi->log = F2FS_HOT_DATA; /* atomic files are hot (segment.c) */
			t->os.fsync.phase = FS_DONE;
		}
		return STEP_DONE;
	}
	if (!f->ei.atomic && t->os.fsync.phase == FS_START)
		return STEP_DONE; /* commit without start: -EINVAL, nothing written */
	return sync_file(t, f, false, true);
}
