/* ext3 with kjournald, as in Linux 2.6.23 (fs/ext3/, fs/jbd/; read in the
 * 2.6.23.17 tree zheharry/linux-sh4-2.6.23.17_stm23_A18B, whose fs/ and
 * block/ are mainline's), data=ordered, as the fs kind `fs: {kind: ext3}`.
 *
 * It shares ext4's placement (fs.c), fsync (fsync.c) and the journal
 * (journal.c) and differs where 2.6.23 differs:
 *  - no delayed allocation: write() allocates the blocks of the pages past
 *    the allocated end at once (ext3_prepare_write -> ext3_get_block), in a
 *    handle, so the bitmap and the inode join the running transaction then;
 *    the allocator's reservation window is 8 blocks
 *    (EXT3_DEFAULT_RESERVE_BLOCKS, include/linux/ext3_fs.h) rather than
 *    mballoc's preallocation;
 *  - every buffered write() puts the inode's data on the running
 *    transaction's data list (ext3_ordered_commit_write ->
 *    walk_page_buffers(journal_dirty_data_fn)), overwrite or not, and the
 *    commit writes that data itself and waits for it before the log
 *    (journal.c ordered_submit: journal_submit_data_buffers, t_locked_list);
 *  - the log and the commit block are plain WRITEs (submit_bh(WRITE),
 *    sync_dirty_buffer), async to CFQ; no barrier (2.6.23 ext3 sets
 *    BARRIER only with -o barrier=1: parse_options, no default), no
 *    checksums, no async commit (jbd has neither);
 *  - do_get_write_access waits on BH_Shadow (every jbd has it) and start_this_handle
 *    waits while the transaction is T_LOCKED (jbd's commit waits for
 *    t_updates; ext3_ordered_writepage holds a handle across
 *    block_write_full_page, so a writepage asleep submitting delays it);
 *  - ->writepage writes a page at a time (block_write_full_page: no run
 *    locked).
 * The commit thread is "kjournald" (fs/jbd/journal.c kjournald, nice 0:
 * CFQ's BE/4 from task_nice_ioprio). atime: 2007's strictatime by default
 * (fs/atime.c).
 * Left out: checkpointing (so do_get_write_access's lock_buffer wait on an
 * in-place metadata write never happens), journal_dirty_data's synchronous
 * write of a buffer the committing transaction still holds dirty, indirect
 * blocks, the reservation window's own bookkeeping.
 */
#include <stddef.h>

#include "models/fs/fs.h"
#include "sim/sim.h"

/* The keys whose 2.6.23 ext3 defaults differ from 3.10 ext4's, applied over
 * journal.c's table (the user's value wins either way). */
static const struct cfg_param ext3_journal_table[] = {
	{ "commit_interval_ms", CFG_T_TIME, offsetof(struct journal_params, commit_interval_ns),
	  "ms", "5s", 1, 3.6e6, "include/linux/jbd.h JBD_DEFAULT_MAX_COMMIT_AGE 5 (s)",
	  "age at which the running transaction is committed", NULL },
	{ "ordered_submit", CFG_T_BOOL, offsetof(struct journal_params, ordered_submit), "", "true",
	  CFG_NO_RANGE, "2.6.23 fs/jbd/commit.c journal_submit_data_buffers (submit_bh(WRITE))",
	  "the commit thread writes the ordered data itself", NULL },
	{ "barrier", CFG_T_BOOL, offsetof(struct journal_params, barrier), "", "false", CFG_NO_RANGE,
	  "2.6.23 fs/ext3/super.c: BARRIER only with -o barrier=1 (journal_write_commit_record)",
	  "the commit block goes out with FLUSH|FUA", NULL },
	{ "sync_writes", CFG_T_BOOL, offsetof(struct journal_params, sync_writes), "", "false",
	  CFG_NO_RANGE,
	  "2.6.23 fs/jbd/commit.c submit_bh(WRITE, bh) for log blocks, sync_dirty_buffer "
	  "(WRITE) for the commit block",
	  "log and commit blocks are sync requests", NULL },
	{ "shadow_wait", CFG_T_BOOL, offsetof(struct journal_params, shadow_wait), "", "true",
	  CFG_NO_RANGE, "2.6.23 fs/jbd/transaction.c do_get_write_access: BJ_Shadow -> wait_on_bit",
	  "a handle modifying a buffer the commit is logging waits for the log write", NULL },
	{ "t_locked", CFG_T_BOOL, offsetof(struct journal_params, t_locked), "", "true",
	  CFG_NO_RANGE,
	  "2.6.23 fs/jbd/commit.c T_LOCKED, wait for t_updates; transaction.c start_this_handle; "
	  "fs/ext3/inode.c ext3_ordered_writepage holds a handle across block_write_full_page",
	  "the commit waits for open handles, new handles for the switch", NULL },
	{ "async_commit", CFG_T_BOOL, offsetof(struct journal_params, async_commit), "", "false",
	  CFG_NO_RANGE, "jbd has no async commit", "(ext4 only)", NULL },
	CFG_PARAM_END,
};

static const struct cfg_param ext3_fs_table[] = {
	{ "alloc_extent_bytes", CFG_T_SIZE, offsetof(struct fs_params, alloc_extent_bytes), "KiB",
	  "32KiB", 4, 1e9, "include/linux/ext3_fs.h EXT3_DEFAULT_RESERVE_BLOCKS 8 (4 KiB blocks)",
	  "contiguous window a file's allocation takes at once", NULL },
	{ "atime", CFG_T_ENUM, offsetof(struct fs_params, atime), "", "strictatime", CFG_NO_RANGE,
	  "2.6.23 fs/inode.c touch_atime: atime on every read unless -o noatime/relatime "
	  "(relatime became the default in 2.6.30)",
	  "atime updates on read", fs_atime_names },
	CFG_PARAM_END,
};

static int ext3_init(struct stack *s, struct cfg_node *fs, struct cfg_node *jn,
		     struct sim_error *err)
{
	int rc = fs_init(s, fs, err);
	if (!rc)
		rc = cfg_apply(ext3_fs_table, fs, &s->fs.p, err);
	if (rc || (rc = journal_init_kind(s, jn, ext3_journal_table, "kjournald", err)))
		return rc;
	fs_layout(s, s->jn.nr_sectors);
	return 0;
}

/* The pages past the allocated end get blocks now (ext3_get_block, in the
 * write's handle): the bitmap joins the running transaction. */
static void ext3_alloc_to_size(struct stack *s, struct stack_file *f)
{
	uint64_t pages = pages_of(f->size);
	if (pages > f->ei.alloc_pages && fs_alloc_upto(s, f, pages))
		sim_fail(s->sim, SIM_E_RUNTIME, "file system full writing %s", f->name);
}

/* mark_inode_dirty from a write: file_update_time (datasync false) once per
 * write(), generic_commit_write's i_size (true). Every write's data joins
 * the running transaction's data list; a size change allocated first. */
static void ext3_dirty_inode(struct stack *s, struct stack_file *f, bool datasync)
{
	if (datasync)
		ext3_alloc_to_size(s, f);
	else
		fs_update_mtime(s, f);
	journal_dirty_inode(s, f, datasync);
	journal_add_ordered(s, f);
}

/* ->writepage of a page without blocks (a hole written below i_size, or a
 * write the size hook has not seen): ext3_get_block allocates it. */
static int ext3_map_for_write(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n,
			      bool sync)
{
	(void)sync;
	if (index + n <= f->ei.alloc_pages)
		return 0;
	if (fs_alloc_upto(s, f, index + n))
		return SIM_E_RUNTIME;
	journal_dirty_inode(s, f, true);
	return 0;
}

static enum step ext3_atomic(struct stack_task *t, struct stack_file *f, bool commit)
{
	return commit ? fsync_step(t, f, false) : STEP_DONE;
}

const struct fs_ops ext3_fs_ops = {
	.name = "ext3",
	.init = ext3_init,
	.free = ext4_free,
	.new_file = fs_new_file,
	.alloc_existing = fs_alloc_existing,
	.map_for_write = ext3_map_for_write,
	.locks_run = false,
	.handle_start = journal_handle_start,
	.handle_stop = journal_handle_stop,
	.bmap = fs_map,
	.dirty_inode = ext3_dirty_inode,
	.fsync = fsync_step,
	.accessed = fs_touch_atime,
	.atomic = ext3_atomic,
	.namespace = ext4_namespace,
	.to_json = fs_to_json,
};
