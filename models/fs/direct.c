/* O_DIRECT reads and writes: block-aligned I/O between the user buffer and
 * the device that bypasses the page cache (Linux 5.10-6.x fs/iomap/direct-io.c
 * __iomap_dio_rw and iomap_dio_bio_iter, ext4's fs/ext4/file.c
 * ext4_dio_read_iter / ext4_dio_write_iter and fs/ext4/inode.c
 * ext4_iomap_begin; 3.10 mm/filemap.c generic_file_aio_read /
 * generic_file_direct_write and fs/direct-io.c do_blockdev_direct_IO).
 *
 * One op, in order:
 *  0. alignment: offset, length and the buffer's address must be multiples
 *     of the queue's logical block size, else the call returns EINVAL at
 *     once (5.15 iomap_dio_bio_iter: (pos | length | align) & (1 << blkbits
 *     of bdev_logical_block_size) - 1; 3.10 do_blockdev_direct_IO tries the
 *     inode's block size, then the device's logical block size). Counted,
 *     never measured as an op, the run goes on.
 *  1. filemap_write_and_wait_range of the op's pages: dirty cached pages in
 *     the range are written (sync bios) and every page of it under
 *     writeback is waited for, for a read as for a write (both kernels).
 *  2. a write: invalidate_inode_pages2_range of the range - clean cached
 *     pages are dropped, a locked one (read in flight) is waited for first.
 *     A page dirtied or put under writeback again meanwhile is left and
 *     counted (5.15 returns -ENOTBLK and falls back to buffered I/O there;
 *     3.10 warns and writes anyway: neither is modelled).
 *  3. a write over blocks the file does not have: the file system allocates
 *     them (ext4_iomap_alloc in a jbd2 handle: the extent and bitmap changes
 *     join the running transaction as metadata; the data is not ordered
 *     data). An overwrite of allocated blocks needs no journal.
 *  4. bios straight from the user buffer, in extent runs of at most
 *     fs.max_bio_bytes, under a plug (blk_start_plug in __iomap_dio_rw);
 *     REQ_SYNC on writes (5.15 iomap_dio_bio_opflags: REQ_SYNC | REQ_IDLE).
 *     A read of a hole is zeroed without I/O (iomap_dio_hole_iter).
 *  5. the task sleeps until every bio completed (the sync kiocb path).
 *  6. a write: the range is invalidated again (iomap_dio_complete; 3.10's
 *     second invalidate_inode_pages2_range), and a write past i_size sets
 *     the new size in a handle (ext4_handle_inode_extension).
 * Every bio carries REQ_DIRECT: the completion path polls it when
 * completion.paths names the direct path (models/completion/completion.h).
 * Left out: the CPU of pinning user pages and of building the iomap (no
 * sourced figure; a direct read costs the device and completion only),
 * async (io_uring) submission, O_DSYNC's FUA, unwritten-extent conversion
 * at completion; on f2fs a direct overwrite keeps its blocks (in place)
 * and new blocks come from its map_for_write as at writeback.
 */
#include <stddef.h>

#include <jansson.h>

#include "models/fs/fs.h"
#include "models/mm/mm_inline.h"
#include "models/fs/fs.h"
#include "sim/sim.h"

static const struct cfg_param direct_params[] = {
	{ "logical_block_bytes", CFG_T_SIZE, offsetof(struct fs_direct_params, logical_block_bytes),
	  "B", "512", 512, 4096,
	  "block/blk-settings.c blk_set_default_limits: logical_block_size = 512 unless the driver "
	  "sets it (UFS and 4Kn NVMe report 4096)",
	  "the queue's logical block size: a direct I/O's offset, length and buffer must be "
	  "multiples of it (EINVAL otherwise)", NULL },
	CFG_PARAM_END,
};

int fs_direct_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	int rc = cfg_apply(direct_params, node, &s->fs.dio.p, err);
	if (rc)
		return rc;
	uint64_t b = s->fs.dio.p.logical_block_bytes;
	if (b & (b - 1))
		return cfg_errorf(err, node ? cfg_get(node, "logical_block_bytes") : NULL,
				  "logical_block_bytes must be a power of two (512 .. 4096)");
	return 0;
}

/* A direct bio completed: the last one wakes its task if it sleeps on them. */
static void dio_end_io(struct sim *sim, struct bio *bio)
{
	struct stack_bio *sb = container_of(bio, struct stack_bio, bio);
	struct stack_task *t = bio->private;
	(void)sim;
	if (t->dio_left > 0 && --t->dio_left == 0 && t->dio_waiting) {
		t->dio_waiting = false;
		task_wake(t);
	}
	sbio_free(sb->stack, sb);
}

/* invalidate_inode_pages2_range over [first, last]: clean pages go; a
 * locked page is returned for its caller to wait on (lock_page). */
static struct pc_page *dio_invalidate(struct stack *s, struct stack_file *f, uint64_t first,
				      uint64_t last)
{
	struct fs_direct *d = &s->fs.dio;
	struct pc_page *pg = pc_find_ge(f, first);
	while (pg && pg->index <= last) {
		struct pc_page *next = pc_next(pg);
		if (pg->flags & PG_LOCKED)
			return pg;
		if (pg->flags & (PG_DIRTY | PG_WRITEBACK | PG_ATOMIC)) {
			d->invalidate_busy++;
		} else {
			pc_page_free(s, pg);
			d->invalidated_pages++;
		}
		pg = next;
	}
	return NULL;
}

static uint64_t dirty_in_range(struct stack_file *f, uint64_t first, uint64_t last)
{
	uint64_t n = 0;
	for (struct pc_page *pg = pc_find_ge(f, first); pg && pg->index <= last; pg = pc_next(pg))
		n += (pg->flags & PG_DIRTY) != 0;
	return n;
}

enum dio_phase {
	DIO_START = 0, DIO_FLUSH, DIO_INVALIDATE, DIO_ALLOC, DIO_SUBMIT, DIO_WAIT, DIO_FINISH
};

enum step fs_direct_step(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct fs_direct *d = &s->fs.dio;
	struct task_opstate *os = &t->os;
	struct stack_file *f = os->op.file;
	bool write = os->op.kind == STACK_OP_WRITE;
	uint64_t lbs = d->p.logical_block_bytes;

	if (os->phase == DIO_START) {
		if ((os->op.off | os->op.len | os->op.buf_align) & (lbs - 1)) {
			os->einval = true;
			t->dio_einval++;
			if (write)
				d->einval_writes++;
			else
				d->einval_reads++;
			return STEP_DONE;
		}
		uint64_t end = os->op.off + os->op.len;
		if (!write) {
			/* a read stops at the block holding i_size */
			uint64_t eof = (f->size + lbs - 1) & ~(lbs - 1);
			if (end > eof)
				end = eof;
		}
		if (os->op.len == 0 || os->op.off >= end) {
			if (write)
				d->writes++;
			else
				d->reads++;
			return STEP_DONE;
		}
		if (write) {
			/* file_modified -> ext4_dirty_inode, as a buffered write */
			if (journal_get_write_access(t, f) == STEP_BLOCK)
				return STEP_BLOCK;
			s->fs.ops->dirty_inode(s, f, false);
		}
		os->dpos = os->op.off;
		os->dend = end;
		os->idx = os->op.off >> STACK_PAGE_SHIFT;
		os->end = (end - 1) >> STACK_PAGE_SHIFT; /* last page, inclusive */
		os->fsync.phase = 0;
		d->flushed_pages += dirty_in_range(f, os->idx, os->end);
		os->phase = DIO_FLUSH;
	}
	if (os->phase == DIO_FLUSH) {
		if (fs_write_and_wait_range(t, f, os->idx, os->end) == STEP_BLOCK)
			return STEP_BLOCK;
		if (s->sim->failed)
			return STEP_DONE;
		os->phase = write ? DIO_INVALIDATE : DIO_SUBMIT;
	}
	if (os->phase == DIO_INVALIDATE) {
		struct pc_page *pg = dio_invalidate(s, f, os->idx, os->end);
		if (pg) {
			task_wait_page(t, pg, PG_LOCKED, pc_lock_wait_cause(pg));
			return STEP_BLOCK;
		}
		os->phase = DIO_ALLOC;
	}
	if (os->phase == DIO_ALLOC) {
		uint64_t n = os->end + 1 - os->idx, unmapped = 0;
		for (uint64_t p = os->idx; p <= os->end; p++)
			unmapped += s->fs.ops->bmap(f, p, NULL) == UINT64_MAX;
		if (unmapped) {
			/* ext4_iomap_alloc's handle: waits while the running tx is
			 * T_LOCKED (not held across the I/O) */
			if (s->fs.ops->handle_start &&
			    s->fs.ops->handle_start(t, false) == STEP_BLOCK)
				return STEP_BLOCK;
			int rc = s->fs.ops->map_direct ? s->fs.ops->map_direct(s, f, os->idx, n)
						       : s->fs.ops->map_for_write(s, f, os->idx, n, true);
			if (rc) {
				sim_fail(s->sim, SIM_E_RUNTIME, "file system full writing %s", f->name);
				return STEP_DONE;
			}
			d->alloc_pages += unmapped;
		}
		os->phase = DIO_SUBMIT;
	}
	if (os->phase == DIO_SUBMIT) {
		if (!os->own_plug && !t->plug.active && s->q) {
			os->own_plug = true;
			task_start_plug(t);
		}
		uint64_t maxb = s->fs.p.max_bio_bytes;
		while (os->dpos < os->dend) {
			uint64_t pos = os->dpos, idx = pos >> STACK_PAGE_SHIFT;
			uint64_t in_page = pos & (STACK_PAGE_SIZE - 1);
			uint64_t run = 0;
			uint64_t lba = s->fs.ops->bmap(f, idx, &run);
			if (lba == UINT64_MAX) {
				/* a hole: zeroed into the buffer, no I/O (reads only:
				 * a write's blocks were allocated above) */
				uint64_t next = (idx + 1) << STACK_PAGE_SHIFT;
				os->dpos = next < os->dend ? next : os->dend;
				d->hole_pages++;
				continue;
			}
			uint64_t bytes = run * STACK_PAGE_SIZE - in_page;
			if (bytes > os->dend - pos)
				bytes = os->dend - pos;
			if (bytes > maxb)
				bytes = maxb;
			struct stack_bio *sb = sbio_alloc(s);
			if (!sb) {
				sim_fail(s->sim, SIM_E_NOMEM, "out of memory allocating a bio");
				return STEP_DONE;
			}
			sb->bio.end_io = dio_end_io;
			sb->bio.private = t;
			sb->file = f;
			sb->index = idx;
			sb->npages = 0; /* carries no page-cache page */
			sb->bio.sector = lba + (in_page >> SECTOR_SHIFT);
			sb->bio.nr_sectors = (uint32_t)(bytes >> SECTOR_SHIFT);
			sb->bio.flags = REQ_DIRECT | (write ? REQ_WRITE | REQ_SYNC : 0);
			d->bios++;
			t->dio_left++;
			os->dpos = pos + bytes;
			if (task_submit_bio(t, sb) == STEP_BLOCK)
				return STEP_BLOCK;
		}
		if (os->own_plug) {
			task_finish_plug(t);
			os->own_plug = false;
		}
		os->phase = DIO_WAIT;
	}
	if (os->phase == DIO_WAIT) {
		if (t->dio_left > 0) {
			if (task_pay_cpu(t) == STEP_BLOCK)
				return STEP_BLOCK;
			t->dio_waiting = true;
			task_block(t, write ? SIM_WAIT_FSYNC_IO : SIM_WAIT_READ_IO);
			return STEP_BLOCK;
		}
		os->phase = DIO_FINISH;
	}
	if (os->phase == DIO_FINISH) {
		if (write) {
			struct pc_page *pg = dio_invalidate(s, f, os->idx, os->end);
			if (pg) {
				task_wait_page(t, pg, PG_LOCKED, pc_lock_wait_cause(pg));
				return STEP_BLOCK;
			}
			if (os->dend > f->size) {
				f->size = os->dend;
				s->fs.ops->dirty_inode(s, f, true);
			}
			d->writes++;
			d->bytes_written += os->dend - os->op.off;
		} else {
			d->reads++;
			d->bytes_read += os->dend - os->op.off;
		}
		os->phase = DIO_FINISH + 1;
	}
	return task_pay_cpu(t);
}

json_t *fs_direct_to_json(const struct stack *s)
{
	const struct fs_direct *d = &s->fs.dio;
	if (!d->reads && !d->writes && !d->einval_reads && !d->einval_writes)
		return NULL;
	json_t *o = json_object();
	json_object_set_new(o, "logical_block_bytes", json_integer((json_int_t)d->p.logical_block_bytes));
	json_object_set_new(o, "reads", json_integer((json_int_t)d->reads));
	json_object_set_new(o, "writes", json_integer((json_int_t)d->writes));
	json_object_set_new(o, "bytes_read", json_integer((json_int_t)d->bytes_read));
	json_object_set_new(o, "bytes_written", json_integer((json_int_t)d->bytes_written));
	json_object_set_new(o, "einval_reads", json_integer((json_int_t)d->einval_reads));
	json_object_set_new(o, "einval_writes", json_integer((json_int_t)d->einval_writes));
	json_object_set_new(o, "bios", json_integer((json_int_t)d->bios));
	json_object_set_new(o, "flushed_pages", json_integer((json_int_t)d->flushed_pages));
	json_object_set_new(o, "invalidated_pages", json_integer((json_int_t)d->invalidated_pages));
	json_object_set_new(o, "invalidate_busy", json_integer((json_int_t)d->invalidate_busy));
	json_object_set_new(o, "hole_pages", json_integer((json_int_t)d->hole_pages));
	json_object_set_new(o, "alloc_pages", json_integer((json_int_t)d->alloc_pages));
	return o;
}
