/* Readahead: the kernel's on-demand algorithm and mmap read-around
 * (Linux 3.10 mm/readahead.c: get_init_ra_size, get_next_ra_size,
 * count_history_pages / try_context_readahead, ondemand_readahead,
 * __do_page_cache_readahead; mm/filemap.c: do_sync_mmap_readahead,
 * do_async_mmap_readahead, MMAP_LOTSAMISS = 100), checked against the
 * stored AndreiLux/ref-3.10 mm/readahead.c (commit 147ee332).
 *
 * Windows, in pages, with max = read_ahead_kb / 4 (VM_MAX_READAHEAD 128
 * KiB -> 32 pages): the first window is the request size rounded up to a
 * power of two, x4 when <= max/32, x2 when <= max/4, else max; each next
 * window is x4 below max/16, else x2, capped at max. The page at
 * start + size - async_size gets PG_readahead; touching it starts the next
 * window asynchronously, so a sequential 4 KiB reader issues 16, 32, 64 and
 * then 128 KiB reads. A missing page at offset 0, right after the previous
 * read, or with cached history pages behind it starts a window; any other
 * miss is a random read of just the requested pages.
 * mmap faults read around the fault: ra_pages centred on it, async_size
 * ra_pages/4, and give up after MMAP_LOTSAMISS misses more than hits.
 *
 * The fill (allocate + insert + submit under a plug, like read_pages() with
 * mpage_readpages) is resumable: it can block in direct reclaim, on the
 * page-cache lock and in get_request. Readahead state is per file, not per
 * open file; no readahead thrashing detection and no bdi read congestion
 * check. VM_MIN_READAHEAD (16 KiB) is the floor of the bdi default only;
 * it does not enter the 3.10 window arithmetic.
 */
#include <stddef.h>
#include <string.h>

#include "models/mm/mm.h"
#include "sim/assert.h"
#include "sim/sim.h"

/* mm/filemap.c */
#define MMAP_LOTSAMISS 100

static const struct cfg_param ra_params_table[] = {
	{ "read_ahead_kib", CFG_T_SIZE, offsetof(struct ra_params, read_ahead_bytes), "KiB", "128",
	  0, 2048, "include/linux/mm.h: VM_MAX_READAHEAD 128 (kbytes); read_ahead_kb",
	  "largest readahead window (0 disables readahead)", NULL },
	{ "mmap_readaround", CFG_T_BOOL, offsetof(struct ra_params, mmap_readaround), "", "true",
	  CFG_NO_RANGE, "mm/filemap.c do_sync_mmap_readahead",
	  "read ra_pages around a faulting page", NULL },
	CFG_PARAM_END,
};

int readahead_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	return cfg_apply(ra_params_table, node, &s->ra, err);
}

uint64_t ra_max_pages(const struct stack *s)
{
	return s->ra.read_ahead_bytes >> STACK_PAGE_SHIFT;
}

static uint64_t roundup_pow2(uint64_t x)
{
	uint64_t r = 1;
	while (r < x)
		r <<= 1;
	return r;
}

static uint64_t get_init_ra_size(uint64_t size, uint64_t max)
{
	uint64_t n = roundup_pow2(size);
	if (n <= max / 32)
		n *= 4;
	else if (n <= max / 4)
		n *= 2;
	else
		n = max;
	return n;
}

static uint64_t get_next_ra_size(const struct ra_state *ra, uint64_t max)
{
	uint64_t cur = ra->size;
	uint64_t n = cur < max / 16 ? 4 * cur : 2 * cur;
	return n < max ? n : max;
}

/* Contiguous cached pages right before offset, at most max. */
static uint64_t count_history_pages(struct stack_file *f, uint64_t offset, uint64_t max)
{
	uint64_t n = 0;
	while (n < max && n < offset && pc_find(f, offset - 1 - n))
		n++;
	return n;
}

/* First index after offset that is not cached, within max; 0 if none. */
static uint64_t next_hole(struct stack_file *f, uint64_t offset, uint64_t max)
{
	for (uint64_t i = offset; i < offset + max; i++)
		if (!pc_find(f, i))
			return i;
	return 0;
}

static void ondemand_readahead(struct stack_task *t, struct stack_file *f, bool hit_marker,
			       uint64_t offset, uint64_t req)
{
	struct stack *s = t->stack;
	struct ra_state *ra = &f->ra;
	uint64_t max = ra_max_pages(s);

	if (offset == 0)
		goto initial;
	if (offset == ra->start + ra->size - ra->async_size || offset == ra->start + ra->size) {
		ra->start += ra->size;
		ra->size = get_next_ra_size(ra, max);
		ra->async_size = ra->size;
		goto readit;
	}
	if (hit_marker) {
		uint64_t start = next_hole(f, offset + 1, max);
		if (!start || start - offset > max)
			return;
		ra->start = start;
		ra->size = start - offset + req;
		ra->size = get_next_ra_size(ra, max);
		ra->async_size = ra->size;
		goto readit;
	}
	if (req > max)
		goto initial;
	if (offset - ra->prev_page <= 1)
		goto initial;
	{
		uint64_t hist = count_history_pages(f, offset, max);
		if (hist == 0) {
			/* standalone small random read: as is, state untouched */
			fill_prepare(t, f, offset, req, 0);
			return;
		}
		if (hist >= offset)
			hist *= 2;
		ra->start = offset;
		ra->size = get_init_ra_size(hist + req, max);
		ra->async_size = ra->size;
		goto readit;
	}
initial:
	ra->start = offset;
	ra->size = get_init_ra_size(req, max);
	ra->async_size = ra->size > req ? ra->size - req : ra->size;
readit:
	if (offset == ra->start && ra->size == ra->async_size) {
		ra->async_size = get_next_ra_size(ra, max);
		ra->size += ra->async_size;
	}
	fill_prepare(t, f, ra->start, ra->size, ra->async_size);
}

void ra_sync(struct stack_task *t, struct stack_file *f, uint64_t index, uint64_t req_pages)
{
	struct stack *s = t->stack;
	if (ra_max_pages(s) == 0)
		return;
	s->pc.ra_sync++;
	ondemand_readahead(t, f, false, index, req_pages ? req_pages : 1);
}

void ra_async(struct stack_task *t, struct stack_file *f, struct pc_page *pg, uint64_t index,
	      uint64_t req_pages)
{
	struct stack *s = t->stack;
	if (ra_max_pages(s) == 0)
		return;
	/* The same bit is PG_reclaim for pages under writeback. */
	if (pg->flags & PG_WRITEBACK)
		return;
	pg->flags &= (uint16_t)~PG_READAHEAD;
	s->pc.ra_async++;
	ondemand_readahead(t, f, true, index, req_pages ? req_pages : 1);
}

void ra_fault_miss(struct stack_task *t, struct stack_file *f, uint64_t index)
{
	struct stack *s = t->stack;
	struct ra_state *ra = &f->ra;
	uint64_t ra_pages = ra_max_pages(s);
	if (!s->ra.mmap_readaround || ra_pages == 0)
		return;
	if (ra->mmap_miss < MMAP_LOTSAMISS * 10)
		ra->mmap_miss++;
	if (ra->mmap_miss > MMAP_LOTSAMISS)
		return;
	s->pc.ra_readaround++;
	ra->start = index > ra_pages / 2 ? index - ra_pages / 2 : 0;
	ra->size = ra_pages;
	ra->async_size = ra_pages / 4;
	fill_prepare(t, f, ra->start, ra->size, ra->async_size);
}

void ra_fault_hit(struct stack_task *t, struct stack_file *f, struct pc_page *pg, uint64_t index)
{
	struct stack *s = t->stack;
	struct ra_state *ra = &f->ra;
	if (!s->ra.mmap_readaround)
		return;
	if (ra->mmap_miss > 0)
		ra->mmap_miss--;
	if (pg->flags & PG_READAHEAD)
		ra_async(t, f, pg, index, ra_max_pages(s));
}

/* ------------------------------------------------------------- fill */

void fill_prepare(struct stack_task *t, struct stack_file *f, uint64_t start, uint64_t nr,
		  uint64_t async_size)
{
	struct pc_fill *fl = &t->mm.fill;
	uint64_t eof = pages_of(f->size);
	if (f->is_meta)
		eof = UINT64_MAX;
	uint64_t mark = async_size ? start + nr - async_size : UINT64_MAX;
	if (nr > STACK_FILL_MAX_PAGES)
		nr = STACK_FILL_MAX_PAGES;
	if (start >= eof)
		return;
	if (nr > eof - start)
		nr = eof - start;
	if (nr == 0)
		return;
	memset(fl, 0, sizeof(*fl));
	fl->active = true;
	fl->file = f;
	fl->start = start;
	fl->nr = nr;
	fl->mark = mark;
	fl->cursor = start;
	t->stack->pc.ra_pages += nr;
}

static bool fill_is_new(const struct pc_fill *fl, uint64_t idx)
{
	uint64_t i = idx - fl->start;
	return fl->newmask[i / 64] & (1ull << (i % 64));
}

/* The read bios' end_io (3.10 fs/mpage.c mpage_end_io): each page of the
 * bio becomes uptodate and is unlocked, which wakes its read_io sleepers. */
void mpage_read_done(struct stack *s, struct stack_bio *sb)
{
	struct pc_page *pg = pc_find(sb->file, sb->index);
	for (uint32_t i = 0; i < sb->npages && pg; i++) {
		struct pc_page *next = pc_next(pg);
		/* the read owns the page lock from add_to_page_cache_lru to here */
		SIM_ASSERT(pg->flags & PG_LOCKED);
		pg->flags |= PG_UPTODATE;
		pc_clear_flags(s, pg, PG_LOCKED | PG_READIO);
		pg = next;
	}
	sbio_free(s, sb);
}

static void mpage_end_io(struct sim *sim, struct bio *bio)
{
	struct stack_bio *sb = container_of(bio, struct stack_bio, bio);
	(void)sim;
	mpage_read_done(sb->stack, sb);
}

/* A bio of a compressed cluster (f2fs_read_end_io with STEP_DECOMPRESS):
 * the file system decompresses before the pages become uptodate. */
static void mpage_end_io_post(struct sim *sim, struct bio *bio)
{
	struct stack_bio *sb = container_of(bio, struct stack_bio, bio);
	struct stack *s = sb->stack;
	(void)sim;
	if (!s->fs.ops->read_post || !s->fs.ops->read_post(s, sb))
		mpage_read_done(s, sb);
}

enum step fill_run(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct pc_fill *fl = &t->mm.fill;
	struct stack_file *f = fl->file;
	uint64_t end = fl->start + fl->nr;

	if (fl->phase == 0) {
		while (fl->cursor < end) {
			if (pc_find(f, fl->cursor)) {
				fl->cursor++;
				continue;
			}
			if (task_pay_cpu(t) == STEP_BLOCK)
				return STEP_BLOCK;
			struct pc_page *pg = NULL;
			enum step r = pc_add_page(t, f, fl->cursor, &pg);
			if (pg) {
				uint64_t i = fl->cursor - fl->start;
				if (f->mapping.warm_prefilled)
					f->mapping.warm_misses++;
				fl->newmask[i / 64] |= 1ull << (i % 64);
				if (fl->cursor == fl->mark)
					pg->flags |= PG_READAHEAD;
				fl->cursor++;
			}
			if (r == STEP_BLOCK)
				return STEP_BLOCK;
		}
		fl->phase = 1;
		fl->cursor = fl->start;
		fl->own_plug = !t->plug.active;
		if (s->q)
			task_start_plug(t);
	}
	if (fl->phase == 1) {
		uint64_t maxp = s->fs.p.max_bio_bytes >> STACK_PAGE_SHIFT;
		while (fl->cursor < end) {
			uint64_t idx = fl->cursor;
			if (!fill_is_new(fl, idx)) {
				fl->cursor++;
				continue;
			}
			uint64_t run = 0;
			struct fs_cluster_map cm;
			bool cl = s->fs.ops->cluster_map && !f->is_meta &&
				  s->fs.ops->cluster_map(f, idx, &cm);
			uint64_t lba = cl ? cm.lba : s->fs.ops->bmap(f, idx, &run);
			if (cl) /* the cluster's pages from idx, read in one bio */
				run = cm.first + cm.npages - idx;
			if (lba == UINT64_MAX) {
				/* a hole (or not yet allocated): zero-filled, no I/O */
				struct pc_page *pg = pc_find(f, idx);
				if (pg) {
					pg->flags |= PG_UPTODATE;
					pc_clear_flags(s, pg, PG_LOCKED);
				}
				fl->cursor++;
				continue;
			}
			uint64_t n = 1;
			while (idx + n < end && n < run && n < maxp && fill_is_new(fl, idx + n))
				n++;
			struct stack_bio *sb = sbio_alloc(s);
			if (!sb) {
				sim_fail(s->sim, SIM_E_NOMEM, "out of memory allocating a bio");
				fl->active = false;
				return STEP_DONE;
			}
			sb->bio.end_io = cl ? mpage_end_io_post : mpage_end_io;
			sb->file = f;
			sb->index = idx;
			sb->npages = (uint32_t)n;
			sb->bio.sector = lba;
			sb->bio.nr_sectors = cl ? cm.nsect
						: (uint32_t)(n << (STACK_PAGE_SHIFT - SECTOR_SHIFT));
			sb->bio.flags = f->is_meta ? REQ_META : 0;
			/* the path for completion.paths: a user task's fault or read */
			if (!f->is_meta && !t->kthread)
				sb->bio.flags |= t->os.active && t->os.op.kind == STACK_OP_FAULT
							 ? REQ_MMAP
							 : REQ_PCREAD;
			s->pc.read_bios++;
			s->pc.read_pages += n;
			/* submit_bio: from here a sleeper on these pages waits
			 * for read I/O, not for the filler (pc_lock_wait_cause) */
			struct pc_page *rp = pc_find(f, idx);
			for (uint64_t k = 0; k < n && rp; k++, rp = pc_next(rp))
				pc_page_read_submitted(s, rp);
			fl->cursor += n;
			if (task_submit_bio(t, sb) == STEP_BLOCK)
				return STEP_BLOCK;
		}
		fl->phase = 2;
	}
	if (fl->own_plug)
		task_finish_plug(t);
	fl->active = false;
	return STEP_DONE;
}
