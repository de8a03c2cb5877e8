/* ext4's multiblock allocator at delayed allocation, after Linux 5.10-6.6
 * fs/ext4/mballoc.c (read at torvalds/linux 002bba5; the logic is the same
 * over that range): which preallocation a request uses and how large a
 * window it asks for. Blocks are 4 KiB.
 *
 * ext4_mb_group_or_file: a data request of len blocks at logical block l
 * of a file whose size is max(l + len, i_size in blocks) uses the
 * locality group's preallocation when that size is at most
 * s_mb_stream_request (16 blocks, sysfs mb_stream_req) and
 * s_mb_group_prealloc > 0; larger files allocate as a stream from the
 * inode's own preallocation. ext4_mb_use_preallocated: an inode PA covering
 * l gives the blocks after the ones used, contiguous with them; the group
 * PA gives its next free blocks to any small file if it has len free.
 * Otherwise a new PA is made: ext4_mb_normalize_group_request asks for
 * s_mb_group_prealloc blocks (512 = 2 MiB; ext4_mb_init rounds it up to a
 * multiple of s_stripe), ext4_mb_normalize_request for a window by the
 * file's predicted size: up to 1 MiB the next of 16, 32 ... 1024 KiB from
 * logical 0; up to 4 MiB a 2 MiB window aligned to 2 MiB of the file; up
 * to 8 MiB 4 MiB aligned; requests up to 8 MiB an 8 MiB window aligned to
 * 8 MiB; larger ones exactly; clipped so it starts after the blocks
 * already allocated and fits one block group. A goal length that is a
 * multiple of s_stripe (mount -o stripe=) is placed on a stripe boundary
 * (ext4_mb_find_by_goal's and ext4_mb_scan_aligned's stripe checks). The
 * request takes what it needs of the window (up to its end: the caller,
 * mpage_map_and_submit_extent, asks again for the rest); the remainder
 * stays preallocated for the file's next writeback or the next small file.
 *
 * Placement is the bump cursor of fs.c: a stream allocation's global goal
 * (s_mb_last_group/start) and the block after the file's last extent are
 * both the cursor in a file system that never reuses freed space, so two
 * files written back in turn interleave at the granularity of their
 * windows, and small files share 2 MiB runs.
 * A request that ends at i_size of a file nobody holds open for writing
 * (closed after its last write: the workload's close) gets exactly its
 * blocks and no preallocation (EXT4_MB_HINT_NOPREALLOC; ext4_fs_is_busy is
 * taken as false). A file never closed counts as open.
 * Left out: per-CPU locality groups (one group: the flusher allocates on one CPU at a
 * time; range: up to one per core), PA discard at close and the
 * preallocation lists' orders, the buddy scan, bigalloc clusters.
 */
#include <stddef.h>

#include <jansson.h>

#include "models/fs/fs.h"
#include "sim/sim.h"

#define MB_BLOCK_SHIFT 12
#define MB_SECTORS_PER_BLOCK (1u << (MB_BLOCK_SHIFT - SECTOR_SHIFT))

static const struct cfg_param fs_mb_params_table[] = {
	{ "mb_stream_req", CFG_T_INT, offsetof(struct fs_mb_params, stream_req), "blocks", "16", 0,
	  1e9, "fs/ext4/mballoc.c: s_mb_stream_request default 16 blocks (sysfs mb_stream_req)",
	  "files of at most this many 4 KiB blocks allocate from the locality group's "
	  "preallocation, larger ones from their own", NULL },
	{ "mb_group_prealloc", CFG_T_INT, offsetof(struct fs_mb_params, group_prealloc), "blocks",
	  "512", 0, 1e9,
	  "fs/ext4/mballoc.c MB_DEFAULT_GROUP_PREALLOC 512 (4 KiB blocks, no bigalloc; sysfs "
	  "mb_group_prealloc)",
	  "locality-group preallocation size (0: none, every file a stream)", NULL },
	{ "stripe", CFG_T_INT, offsetof(struct fs_mb_params, stripe), "blocks", "0", 0, 1e9,
	  "ext4 mount -o stripe= (s_stripe; mke2fs -E stride/stripe_width sets it; 0 = none): "
	  "for a RAID0 of n members with chunk c, n * c / 4 KiB",
	  "RAID stripe width the allocator aligns and rounds to", NULL },
	CFG_PARAM_END,
};

int fs_mb_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	struct fs_mb *mb = &s->fs.mb;
	int rc = cfg_apply(fs_mb_params_table, node, &mb->p, err);
	if (rc)
		return rc;
	mb->enabled = true;
	/* ext4_mb_init: the lowest multiple of s_stripe not below the default */
	if (mb->p.stripe > 1 && mb->p.group_prealloc > 0)
		mb->p.group_prealloc = (mb->p.group_prealloc + mb->p.stripe - 1) / mb->p.stripe *
				       mb->p.stripe;
	return 0;
}

void fs_mb_normalize(uint64_t lblk, uint64_t len, uint64_t isize, uint64_t *start, uint64_t *size)
{
	uint64_t bytes = (lblk + len) << MB_BLOCK_SHIFT;
	if (bytes < isize)
		bytes = isize;
	uint64_t st = 0, sz;
	if (bytes <= 16 << 10) {
		sz = 16 << 10;
	} else if (bytes <= 1 << 20) {
		sz = 32 << 10;
		while (sz < bytes)
			sz <<= 1;
	} else if (bytes <= 4 << 20) {
		st = (lblk >> (21 - MB_BLOCK_SHIFT)) << (21 - MB_BLOCK_SHIFT);
		sz = 2 << 20;
	} else if (bytes <= 8 << 20) {
		st = (lblk >> (22 - MB_BLOCK_SHIFT)) << (22 - MB_BLOCK_SHIFT);
		sz = 4 << 20;
	} else if (len <= (8 << 20) >> MB_BLOCK_SHIFT) {
		st = (lblk >> (23 - MB_BLOCK_SHIFT)) << (23 - MB_BLOCK_SHIFT);
		sz = 8 << 20;
	} else {
		*start = lblk;
		*size = len;
		return;
	}
	*start = st;
	*size = sz >> MB_BLOCK_SHIFT;
}

/* The cursor moved up to a stripe boundary when a goal of blocks is a
 * whole number of stripes. */
static void mb_stripe_align(struct fs *fs, uint64_t blocks)
{
	uint64_t stripe = (uint64_t)fs->mb.p.stripe;
	if (stripe <= 1 || blocks % stripe)
		return;
	uint64_t unit = stripe * MB_SECTORS_PER_BLOCK;
	uint64_t rel = fs->cursor - fs->start_sector;
	if (rel % unit == 0)
		return;
	fs->cursor = fs->start_sector + (rel / unit + 1) * unit;
	fs->mb.stripe_aligned++;
}

/* A new preallocation of blocks at the cursor; its first sector. */
static uint64_t mb_new_pa(struct fs *fs, uint64_t blocks)
{
	mb_stripe_align(fs, blocks);
	fs->mb.pa_blocks += blocks;
	return fs_take(fs, blocks * MB_SECTORS_PER_BLOCK);
}

/* Give pages [alloc_pages, +np) the sectors at lba (the on-disk bitmap of
 * their group is marked now: ext4_mb_mark_diskspace_used). */
static int mb_use(struct stack *s, struct stack_file *f, uint64_t lba, uint64_t np)
{
	journal_dirty_group(s, fs_group_of(s, lba));
	if (fs_add_extent(f, f->ei.alloc_pages, lba, np))
		return SIM_E_NOMEM;
	f->ei.alloc_pages += np;
	return 0;
}

int fs_mb_alloc_upto(struct stack *s, struct stack_file *f, uint64_t upto)
{
	struct fs *fs = &s->fs;
	struct fs_mb *mb = &fs->mb;
	const uint64_t spb = MB_SECTORS_PER_BLOCK;
	while (f->ei.alloc_pages < upto) {
		uint64_t l = f->ei.alloc_pages, need = upto - l;
		/* the inode's PA continues where its used blocks end */
		if (f->ei.prealloc_left >= spb) {
			uint64_t np = need < f->ei.prealloc_left / spb ? need : f->ei.prealloc_left / spb;
			uint64_t lba = f->ei.prealloc_lba;
			f->ei.prealloc_lba += np * spb;
			f->ei.prealloc_left -= np * spb;
			mb->inode_pa_blocks += np;
			if (mb_use(s, f, lba, np))
				return SIM_E_NOMEM;
			continue;
		}
		uint64_t isize_blk = (f->size + (1u << MB_BLOCK_SHIFT) - 1) >> MB_BLOCK_SHIFT;
		uint64_t fsize = l + need > isize_blk ? l + need : isize_blk;
		if (l + need == isize_blk && f->ei.write_closed) {
			/* the file's tail, nobody writing it: exactly what it needs */
			uint64_t lba = fs_take(fs, need * spb);
			mb->noprealloc_blocks += need;
			if (mb_use(s, f, lba, need))
				return SIM_E_NOMEM;
			continue;
		}
		if (mb->p.group_prealloc > 0 && fsize <= (uint64_t)mb->p.stream_req) {
			/* a small file: the locality group's PA, from its start to its end */
			if (mb->lg_left < need * spb) {
				mb->lg_lba = mb_new_pa(fs, (uint64_t)mb->p.group_prealloc);
				mb->lg_left = (uint64_t)mb->p.group_prealloc * spb;
				mb->group_pas++;
			}
			uint64_t lba = mb->lg_lba;
			mb->lg_lba += need * spb;
			mb->lg_left -= need * spb;
			mb->group_pa_blocks += need;
			if (mb_use(s, f, lba, need))
				return SIM_E_NOMEM;
			continue;
		}
		/* a stream: a new inode PA over the normalised window */
		uint64_t start, size;
		fs_mb_normalize(l, need, f->size, &start, &size);
		if (start < l) {
			size -= l - start;
			start = l;
		}
		uint64_t group_blk = fs->p.group_bytes >> MB_BLOCK_SHIFT;
		if (group_blk && size > group_blk)
			size = group_blk;
		uint64_t cap = fs->p.alloc_extent_bytes >> MB_BLOCK_SHIFT;
		if (cap < 1)
			cap = 1;
		if (size > cap)
			size = cap;
		f->ei.prealloc_lba = mb_new_pa(fs, size);
		f->ei.prealloc_left = size * spb;
		mb->inode_pas++;
	}
	return 0;
}

json_t *fs_mb_to_json(const struct stack *s)
{
	const struct fs_mb *mb = &s->fs.mb;
	if (!mb->enabled)
		return NULL;
	json_t *o = json_object();
	json_object_set_new(o, "inode_pas", json_integer((json_int_t)mb->inode_pas));
	json_object_set_new(o, "group_pas", json_integer((json_int_t)mb->group_pas));
	json_object_set_new(o, "inode_pa_blocks", json_integer((json_int_t)mb->inode_pa_blocks));
	json_object_set_new(o, "group_pa_blocks", json_integer((json_int_t)mb->group_pa_blocks));
	json_object_set_new(o, "pa_blocks", json_integer((json_int_t)mb->pa_blocks));
	json_object_set_new(o, "noprealloc_blocks", json_integer((json_int_t)mb->noprealloc_blocks));
	json_object_set_new(o, "stripe_aligned", json_integer((json_int_t)mb->stripe_aligned));
	json_object_set_new(o, "params", cfg_params_to_json(fs_mb_params_table, &mb->p));
	return o;
}
