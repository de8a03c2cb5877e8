/* atime: touch_atime at the end of a read (2.6.23 fs/inode.c touch_atime,
 * called by do_generic_mapping_read's file_accessed; 2.6.30+
 * relatime_need_update for relatime) and the ext3/ext4 handle it costs.
 *
 * Rules, by the mount's `fs.atime`:
 *  - noatime: never;
 *  - strictatime: every read whose current_fs_time differs from i_atime,
 *    at the superblock's 1 s granularity (fs/super.c alloc_super
 *    s_time_gran = 1000000000; 2.6.23 ext3 keeps it);
 *  - relatime (the default since 2.6.30): only when atime <= mtime or
 *    ctime, or atime is at least a day old (2.6.23's relatime had the first
 *    rule only).
 * An update is ext3_dirty_inode / ext4_dirty_inode: a handle
 * (start_this_handle: waits while the transaction is T_LOCKED), then
 * do_get_write_access on the inode-table buffer (waits while the commit
 * logs it, BH_Shadow), and the inode joins the running transaction. The
 * waits are the reader's and LatencyTOP names them "updating atime"
 * (models/sched/latencytop.c). mtime and ctime are one time here; files
 * that exist at the start were read fs.atime_age_ms ago and written before.
 * Left out: nodiratime (no directories are read), the inode-table read
 * when the inode is not cached (an open already read it).
 */
#include "models/fs/fs.h"
#include "sim/sim.h"

#define ATIME_GRAN_NS 1000000000LL
#define RELATIME_DAY_NS (24LL * 3600 * ATIME_GRAN_NS)

const char *const fs_atime_names[] = { "noatime", "relatime", "strictatime", NULL };

/* A file that exists at the start: read atime_age ago, written a second before. */
static void atime_times_init(const struct stack *s, struct stack_file *f)
{
	if (f->ei.times_set)
		return;
	f->ei.atime_ns = -s->fs.p.atime_age_ns;
	f->ei.mtime_ns = f->ei.atime_ns - ATIME_GRAN_NS;
	f->ei.times_set = true;
}

static int64_t atime_trunc(int64_t ns)
{
	int64_t q = ns / ATIME_GRAN_NS;
	if (ns < 0 && q * ATIME_GRAN_NS != ns)
		q--;
	return q * ATIME_GRAN_NS;
}

void fs_update_mtime(struct stack *s, struct stack_file *f)
{
	atime_times_init(s, f);
	f->ei.mtime_ns = atime_trunc(sim_now(s->sim));
}

enum step fs_touch_atime(struct stack_task *t, struct stack_file *f)
{
	struct stack *s = t->stack;
	if (s->fs.p.atime == FS_NOATIME || !f || f->is_meta)
		return STEP_DONE;
	atime_times_init(s, f);
	int64_t now = atime_trunc(sim_now(s->sim));
	if (s->fs.p.atime == FS_RELATIME && f->ei.mtime_ns < f->ei.atime_ns &&
	    now - f->ei.atime_ns < RELATIME_DAY_NS)
		return STEP_DONE;
	if (now == f->ei.atime_ns)
		return STEP_DONE;
	if (journal_handle_start(t, false) == STEP_BLOCK)
		return STEP_BLOCK;
	if (journal_get_write_access(t, f) == STEP_BLOCK)
		return STEP_BLOCK;
	f->ei.atime_ns = now;
	s->fs.atime_updates++;
	journal_dirty_inode(s, f, false);
	return STEP_DONE;
}
