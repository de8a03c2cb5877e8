/* File system layout: files as LBA extents on one partition, inode blocks,
 * block groups, and a block allocator (ext4-like, Linux 3.10 fs/ext4).
 *
 * Partition layout: [journal | inode tables | data]. Existing files (an
 * app's APK, odex, libraries) get their blocks when created, in extents
 * whose sizes are exponentially distributed around extent_mean_bytes with
 * holes (other files' data) of mean gap_mean_bytes between them, drawn
 * from the seeded stream "fs" - this is the configurable fragmentation
 * (layout_seed: the same placement whatever the run's seed).
 * Files written by the workload get blocks at writeback (delayed
 * allocation) at the allocator's cursor: ext4 through mballoc's inode and
 * locality-group preallocation (models/fs/mballoc.c), ext3 from a window of
 * alloc_extent_bytes (fs_alloc_upto), so a streaming writer is contiguous
 * while interleaved writers fragment each other as far as the
 * preallocation lets them. Inodes are 256 bytes, 16 per 4 KiB inode-table block; an inode's
 * block group (128 MiB) holds the block bitmap its allocations dirty.
 * Left out: free-space reuse (the cursor wraps around), extent-tree index
 * blocks, directories, checkpointing of journalled metadata in place.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <jansson.h>

#include "models/fs/fs.h"
#include "models/fs/fs.h"
#include "sim/rng.h"
#include "sim/sim.h"

static const struct cfg_param fs_params_table[] = {
	{ "partition_bytes", CFG_T_SIZE, offsetof(struct fs_params, partition_bytes), "GiB", "24GiB",
	  0.01, 65536, "Galaxy S6 32 GB: userdata partition of about 24 GiB (INFER)",
	  "size of the data partition", NULL },
	{ "partition_start_bytes", CFG_T_SIZE, offsetof(struct fs_params, partition_start_bytes),
	  "MiB", "4GiB", 0, 1e9, "INFER: system and other partitions come first",
	  "offset of the partition on the device", NULL },
	{ "extent_mean_bytes", CFG_T_SIZE, offsetof(struct fs_params, extent_mean_bytes), "KiB",
	  "1MiB", 4, 1e9, "fitted: aged Android ext4 file fragmentation (INFER)",
	  "mean extent size of pre-existing files (exponential)", NULL },
	{ "gap_mean_bytes", CFG_T_SIZE, offsetof(struct fs_params, gap_mean_bytes), "KiB", "512KiB",
	  0, 1e9, "fitted (INFER)", "mean hole between a file's extents", NULL },
	{ "alloc_extent_bytes", CFG_T_SIZE, offsetof(struct fs_params, alloc_extent_bytes), "KiB",
	  "8MiB", 4, 1e9,
	  "fs/ext4/mballoc.c ext4_mb_normalize_request (5.10-6.6): its largest window is 8 MiB; "
	  "a smaller value clips it (a what-if: no kernel tunable)",
	  "largest inode preallocation a file's allocation may take (ext4; ext3: the "
	  "reservation window)", NULL },
	{ "max_bio_bytes", CFG_T_SIZE, offsetof(struct fs_params, max_bio_bytes), "KiB", "512", 4,
	  1 << 20, "BLK_DEF_MAX_SECTORS 1024 = 512 KiB limits bio_add_page",
	  "largest bio the file system builds", NULL },
	{ "group_bytes", CFG_T_SIZE, offsetof(struct fs_params, group_bytes), "MiB", "128MiB", 1,
	  1e6, "ext4: 32768 blocks of 4 KiB per block group", "block group size", NULL },
	{ "cold_metadata", CFG_T_BOOL, offsetof(struct fs_params, cold_metadata), "", "true",
	  CFG_NO_RANGE, "cold launch: inodes not in the cache",
	  "open() of an uncached inode reads its inode-table block", NULL },
	{ "layout_seed", CFG_T_INT, offsetof(struct fs_params, layout_seed), "", "0", 0,
	  9007199254740991.0, "scenario: a phone's files stay where they are from run to run",
	  "seed of the placement of existing files (stream fs) instead of the run's (0: the run's): "
	  "the same disk in every run, e.g. under a launch profile recorded in another run", NULL },
	{ "atime", CFG_T_ENUM, offsetof(struct fs_params, atime), "", "noatime", CFG_NO_RANGE,
	  "Android fstabs mount /data noatime (RECALL: AOSP device fstab.*; 3.10's own default "
	  "is relatime)",
	  "atime updates on read: noatime, relatime (atime <= mtime or a day old), strictatime",
	  fs_atime_names },
	{ "atime_age_ms", CFG_T_TIME, offsetof(struct fs_params, atime_age_ns), "ms", "60min", 0,
	  2.592e9,
	  "ASSUMPTION (0-30 days): files that exist at the start were last read an hour ago and "
	  "written before that",
	  "age of the atime of files that exist when the run starts (relatime's day rule)", NULL },
	CFG_PARAM_END,
};

#define FS_SECTORS_PER_PAGE (STACK_PAGE_SIZE >> SECTOR_SHIFT)
#define FS_INODES_PER_BLOCK 16

int fs_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	struct fs *fs = &s->fs;
	int rc = cfg_apply(fs_params_table, node, &fs->p, err);
	if (rc)
		return rc;
	fs->start_sector = fs->p.partition_start_bytes >> SECTOR_SHIFT;
	fs->end_sector = fs->start_sector + (fs->p.partition_bytes >> SECTOR_SHIFT);
	return fs_rng_open(s, err);
}

int fs_rng_open(struct stack *s, struct sim_error *err)
{
	struct fs *fs = &s->fs;
	fs->rng = sim_rng_fixed(s->sim, fs->p.layout_seed, "fs", &fs->layout_rngs);
	return fs->rng ? 0 : sim_errorf(err, SIM_E_NOMEM, "out of memory");
}

void fs_layout(struct stack *s, uint64_t journal_sectors)
{
	struct fs *fs = &s->fs;
	uint64_t meta = 64ull << (20 - SECTOR_SHIFT); /* 64 MiB of inode tables */
	fs->meta_start = fs->start_sector + journal_sectors;
	fs->cursor = fs->meta_start + meta;
	if (fs->cursor >= fs->end_sector)
		fs->cursor = fs->start_sector;
}

static uint64_t fs_data_start(const struct fs *fs)
{
	return fs->meta_start + (64ull << (20 - SECTOR_SHIFT));
}

uint32_t fs_group_of(const struct stack *s, uint64_t lba)
{
	uint64_t g = (lba - s->fs.start_sector) / (s->fs.p.group_bytes >> SECTOR_SHIFT);
	return (uint32_t)g;
}

/* Take sectors at the cursor (wrapping to the data start). */
uint64_t fs_take(struct fs *fs, uint64_t sectors)
{
	if (fs->cursor + sectors > fs->end_sector)
		fs->cursor = fs_data_start(fs);
	uint64_t lba = fs->cursor;
	fs->cursor += sectors;
	fs->allocated_sectors += sectors;
	return lba;
}

int fs_add_extent(struct stack_file *f, uint64_t page, uint64_t lba, uint64_t npages)
{
	if (f->ei.next_ext > 0) {
		struct fs_extent *last = &f->ei.ext[f->ei.next_ext - 1];
		if (last->page + last->npages == page &&
		    last->lba + last->npages * FS_SECTORS_PER_PAGE == lba) {
			last->npages += npages;
			return 0;
		}
	}
	if (f->ei.next_ext == f->ei.cap_ext) {
		uint32_t cap = f->ei.cap_ext ? f->ei.cap_ext * 2 : 4;
		struct fs_extent *n = realloc(f->ei.ext, cap * sizeof(*n));
		if (!n)
			return SIM_E_NOMEM;
		f->ei.ext = n;
		f->ei.cap_ext = cap;
	}
	f->ei.ext[f->ei.next_ext++] = (struct fs_extent){ .page = page, .lba = lba, .npages = npages };
	return 0;
}

static void fs_assign_inode(struct stack *s, struct stack_file *f)
{
	struct fs *fs = &s->fs;
	f->ei.inode_lba = fs->meta_start + (uint64_t)(f->id / FS_INODES_PER_BLOCK) * FS_SECTORS_PER_PAGE;
	f->ei.inode_group = fs_group_of(s, f->ei.inode_lba);
	f->ei.inode_cached = !fs->p.cold_metadata;
}

int fs_alloc_existing(struct stack *s, struct stack_file *f, uint64_t npages)
{
	struct fs *fs = &s->fs;
	fs_assign_inode(s, f);
	double mean = (double)(fs->p.extent_mean_bytes >> STACK_PAGE_SHIFT);
	double gap = (double)(fs->p.gap_mean_bytes >> STACK_PAGE_SHIFT);
	uint64_t page = 0;
	while (page < npages) {
		uint64_t len = 1 + (uint64_t)gsl_ran_exponential(fs->rng, mean > 1 ? mean - 1 : 0.5);
		if (len > npages - page)
			len = npages - page;
		if (gap > 0 && page > 0)
			(void)fs_take(fs, (uint64_t)gsl_ran_exponential(fs->rng, gap) * FS_SECTORS_PER_PAGE);
		uint64_t lba = fs_take(fs, len * FS_SECTORS_PER_PAGE);
		if (fs_add_extent(f, page, lba, len))
			return SIM_E_NOMEM;
		page += len;
	}
	f->ei.alloc_pages = npages;
	return 0;
}

int fs_alloc_upto(struct stack *s, struct stack_file *f, uint64_t upto)
{
	struct fs *fs = &s->fs;
	while (f->ei.alloc_pages < upto) {
		uint64_t need = (upto - f->ei.alloc_pages) * FS_SECTORS_PER_PAGE;
		if (f->ei.prealloc_left == 0) {
			uint64_t win = fs->p.alloc_extent_bytes >> SECTOR_SHIFT;
			if (win < need)
				win = need;
			f->ei.prealloc_lba = fs_take(fs, win);
			f->ei.prealloc_left = win;
			journal_dirty_group(s, fs_group_of(s, f->ei.prealloc_lba));
		}
		uint64_t take = need < f->ei.prealloc_left ? need : f->ei.prealloc_left;
		uint64_t np = take / FS_SECTORS_PER_PAGE;
		if (fs_add_extent(f, f->ei.alloc_pages, f->ei.prealloc_lba, np))
			return SIM_E_NOMEM;
		f->ei.prealloc_lba += take;
		f->ei.prealloc_left -= take;
		f->ei.alloc_pages += np;
	}
	return 0;
}

uint64_t fs_map(const struct stack_file *f, uint64_t index, uint64_t *run)
{
	if (f->is_meta) {
		if (run)
			*run = 1;
		return index * FS_SECTORS_PER_PAGE;
	}
	if (index >= f->ei.alloc_pages || f->ei.next_ext == 0)
		return UINT64_MAX;
	uint32_t lo = 0, hi = f->ei.next_ext;
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (f->ei.ext[mid].page <= index)
			lo = mid;
		else
			hi = mid;
	}
	const struct fs_extent *e = &f->ei.ext[lo];
	if (index < e->page || index >= e->page + e->npages)
		return UINT64_MAX;
	if (run)
		*run = e->page + e->npages - index;
	return e->lba + (index - e->page) * FS_SECTORS_PER_PAGE;
}

void fs_new_file(struct stack *s, struct stack_file *f)
{
	fs_assign_inode(s, f);
}

void fs_free(struct stack *s)
{
	sim_rng_set_free(s->fs.layout_rngs);
	s->fs.layout_rngs = NULL;
	s->fs.rng = NULL;
}

/* ext4_writepages -> mpage_map_and_submit_extent: delayed allocation of
 * the pages past the allocated end, which joins the running transaction
 * (the inode's new size/extents, data=ordered). Overwrites keep their blocks. */
static int ext4_map_for_write(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n,
			      bool sync)
{
	(void)sync;
	if (index + n <= f->ei.alloc_pages)
		return 0;
	if (fs_mb_alloc_upto(s, f, index + n))
		return SIM_E_RUNTIME;
	journal_add_ordered(s, f);
	journal_dirty_inode(s, f, true);
	return 0;
}

/* ext4_iomap_begin -> ext4_iomap_alloc (5.15): blocks for a direct write
 * past the allocated end, in a jbd2 handle - the extent tree, the bitmap and
 * the inode join the running transaction as metadata; a direct write's data
 * is not ordered data (it is on disk before the write returns). */
static int ext4_map_direct(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n)
{
	if (index + n <= f->ei.alloc_pages)
		return 0;
	if (fs_mb_alloc_upto(s, f, index + n))
		return SIM_E_RUNTIME;
	journal_dirty_inode(s, f, true);
	return 0;
}

static int ext4_init(struct stack *s, struct cfg_node *fs, struct cfg_node *jn,
		     struct sim_error *err)
{
	int rc = fs_init(s, fs, err);
	if (rc || (rc = fs_mb_init(s, fs, err)) || (rc = journal_init(s, jn, err)))
		return rc;
	fs_layout(s, s->jn.nr_sectors);
	return 0;
}

void ext4_free(struct stack *s)
{
	journal_free(s);
	fs_free(s);
}

/* Without F2FS's ioctl SQLite keeps its own rollback journal; the model
 * treats START as nothing and COMMIT as an fsync of the file. */
static enum step ext4_atomic(struct stack_task *t, struct stack_file *f, bool commit)
{
	return commit ? fsync_step(t, f, false) : STEP_DONE;
}

/* ext4_truncate: the blocks of pages >= keep go back to their groups'
 * bitmaps; the extents end at keep. */
static void ext4_free_blocks_from(struct stack *s, struct stack_file *f, uint64_t keep)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->ei.next_ext; i++) {
		struct fs_extent *e = &f->ei.ext[i];
		if (e->page + e->npages > keep) {
			uint64_t first = e->page < keep ? keep - e->page : 0;
			journal_dirty_group(s, fs_group_of(s, e->lba + first * FS_SECTORS_PER_PAGE));
			journal_free_extent(s, e->lba + first * FS_SECTORS_PER_PAGE,
					    (e->npages - first) * FS_SECTORS_PER_PAGE);
		}
		if (e->page >= keep)
			continue;
		if (e->page + e->npages > keep)
			e->npages = keep - e->page;
		f->ei.ext[n++] = *e;
	}
	f->ei.next_ext = n;
	if (f->ei.alloc_pages > keep)
		f->ei.alloc_pages = keep;
	f->ei.prealloc_left = 0; /* ext4_discard_preallocations */
	if (f->mapping.writeback_index > keep)
		f->mapping.writeback_index = 0;
}

/* The directory that holds f: the name up to its last '/' (one per app
 * directory; its inode and entry block are what namespace changes dirty). */
static struct stack_file *ext4_parent_dir(struct stack *s, struct stack_file *f)
{
	char name[512];
	const char *slash = strrchr(f->name, '/');
	int n = slash ? (int)(slash - f->name) : 0;
	struct sim_error err = { 0 };
	snprintf(name, sizeof(name), "%.*s/", n, f->name);
	struct stack_file *dir = stack_file_get(s, name, 0, &err);
	if (dir)
		dir->ei.inode_cached = true;
	return dir;
}

/* Namespace changes (Linux 3.10 fs/ext4/namei.c, ialloc.c, inode.c), each
 * in one handle of the running transaction:
 *  create  ext4_create -> ext4_new_inode (inode bitmap and group
 *          descriptor of the inode's group, the inode-table block; the new
 *          inode's i_sync_tid and i_datasync_tid are this transaction, so its
 *          first fsync or fdatasync commits it) + ext4_add_entry (the
 *          directory block and the directory inode's mtime);
 *  unlink  truncate_inode_pages first waits for each page under writeback
 *          (wait_on_page_writeback), then ext4_unlink (directory block and
 *          inode, orphan list) and, at the last iput, ext4_evict_inode ->
 *          ext4_truncate + ext4_free_inode (block bitmaps of the groups its
 *          extents lie in, inode bitmap);
 *  rename  ext4_rename in one directory: the directory block and inode, the
 *          renamed inode's ctime;
 *  truncate to a smaller size: truncate_inode_pages_range from the new end
 *          waits for each page there under writeback, then ext4_truncate
 *          frees the blocks past it (block bitmaps of their groups, the
 *          inode's size and extents: its next fdatasync commits) and drops
 *          the inode's preallocation.
 * The journal counts a directory's inode and entry block as one metadata
 * block, and an inode bitmap with the block bitmap of its group. Left out:
 * dropping an unlinked or truncated file's pages from the cache (clean ones
 * stay until reclaimed; the generators unlink and truncate only files they
 * synced or never wrote), the orphan list's superblock write,
 * htree directories, auto_da_alloc's flush on a rename over an existing
 * file. */
enum step ext4_namespace(struct stack_task *t, struct stack_file *f, enum stack_op_kind kind)
{
	struct stack *s = t->stack;
	struct task_opstate *os = &t->os;
	if (kind == STACK_OP_TRUNCATE) {
		uint64_t len = os->op.len;
		if (len >= f->size) {
			f->size = len;
			journal_dirty_inode(s, f, true);
			return STEP_DONE;
		}
		uint64_t keep = (len + STACK_PAGE_SIZE - 1) >> STACK_PAGE_SHIFT;
		if (os->phase == 0) {
			os->phase = 1;
			os->fsync.cursor = keep;
		}
		if (fs_wait_all_writeback(t, f) == STEP_BLOCK)
			return STEP_BLOCK;
		ext4_free_blocks_from(s, f, keep);
		f->size = len;
		journal_dirty_inode(s, f, true);
		return STEP_DONE;
	}
	if (kind == STACK_OP_UNLINK && fs_wait_all_writeback(t, f) == STEP_BLOCK)
		return STEP_BLOCK;
	struct stack_file *dir = ext4_parent_dir(s, f);
	if (!dir) {
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory creating a directory for %s", f->name);
		return STEP_DONE;
	}
	journal_dirty_inode(s, dir, false);
	switch (kind) {
	case STACK_OP_CREATE:
		f->ei.inode_cached = true;
		journal_dirty_group(s, f->ei.inode_group);
		journal_dirty_inode(s, f, true);
		break;
	case STACK_OP_UNLINK:
		journal_dirty_inode(s, f, true);
		journal_dirty_group(s, f->ei.inode_group);
		for (uint32_t i = 0; i < f->ei.next_ext; i++) {
			journal_dirty_group(s, fs_group_of(s, f->ei.ext[i].lba));
			/* ext4_truncate at evict: freed after the commit (discard) */
			journal_free_extent(s, f->ei.ext[i].lba, f->ei.ext[i].npages * FS_SECTORS_PER_PAGE);
		}
		break;
	default:
		journal_dirty_inode(s, f, false);
		break;
	}
	return STEP_DONE;
}

/* ext4_dirty_inode: file_update_time (datasync false) also sets mtime. */
static void ext4_dirty_inode(struct stack *s, struct stack_file *f, bool datasync)
{
	if (!datasync)
		fs_update_mtime(s, f);
	journal_dirty_inode(s, f, datasync);
}

const struct fs_ops ext4_fs_ops = {
	.name = "ext4",
	.init = ext4_init,
	.free = ext4_free,
	.new_file = fs_new_file,
	.alloc_existing = fs_alloc_existing,
	.map_for_write = ext4_map_for_write,
	.map_direct = ext4_map_direct,
	.locks_run = true,
	.handle_start = journal_handle_start,
	.handle_stop = journal_handle_stop,
	.bmap = fs_map,
	.dirty_inode = ext4_dirty_inode,
	.fsync = fsync_step,
	.accessed = fs_touch_atime,
	.atomic = ext4_atomic,
	.namespace = ext4_namespace,
	.to_json = fs_to_json,
};

struct json_t *fs_to_json(const struct stack *s)
{
	const struct fs *fs = &s->fs;
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(fs->ops ? fs->ops->name : "ext4"));
	if (fs->p.atime != FS_NOATIME)
		json_object_set_new(o, "atime_updates", json_integer((json_int_t)fs->atime_updates));
	json_object_set_new(o, "files", json_integer(s->nfiles));
	json_object_set_new(o, "allocated_bytes",
			    json_integer((json_int_t)(fs->allocated_sectors << SECTOR_SHIFT)));
	json_object_set_new(o, "params", cfg_params_to_json(fs_params_table, &fs->p));
	json_t *mb = fs_mb_to_json(s);
	if (mb)
		json_object_set_new(o, "mballoc", mb);
	return o;
}
