/* Writeback (mm/page-writeback.c, fs/fs-writeback.c 3.10): dirty limits
 * from the presets, balance_dirty_pages capping dirty memory, background
 * writeback above the background threshold, kupdate after dirty_expire,
 * and the flusher's async bios. */
#include "tests/models/stack/stack_harness.h"


#define WB_DEV_SLOW "device: {model: ideal, service: fixed, mean_us: 5000, queue_depth: 1}\n"
#define WB_DEV_FAST "device: {model: ideal, service: fixed, mean_us: 200, queue_depth: 1}\n"
#define WB_MEM "memory: {total_bytes: 512MiB, reserved_bytes: 256MiB}\n"

static uint32_t first_write(const struct sh *h)
{
	for (uint32_t i = 0; i < h->nd; i++)
		if (h->d_flags[i] & REQ_WRITE)
			return i;
	return UINT32_MAX;
}

static void test_writeback_presets_set_thresholds(void **state)
{
	(void)state;
	struct sh *h = sh_new(WB_DEV_FAST WB_MEM
			      "writeback: {include: configs/writeback/android.yaml}\n");
	uint64_t cap = h->st->pc.capacity;
	assert_int_equal(h->st->wb.bg_thresh, cap * 5 / 100);
	assert_int_equal(h->st->wb.thresh, cap * 20 / 100);
	assert_int_equal(h->st->wb.p.dirty_expire_ns, 2 * SEC);
	sh_free(h);
	h = sh_new(WB_DEV_FAST WB_MEM "writeback: {include: configs/writeback/linux.yaml}\n");
	assert_int_equal(h->st->wb.bg_thresh, cap * 10 / 100);
	assert_int_equal(h->st->wb.p.dirty_expire_ns, 30 * SEC);
	assert_int_equal(h->st->wb.p.dirty_writeback_ns, 5 * SEC);
	sh_free(h);
}

/* A writer faster than the device: dirty + writeback pages stay at or
 * below dirty_ratio of dirtyable memory, and the writer is paused. */
static void test_writeback_throttle_caps_dirty_at_dirty_ratio(void **state)
{
	(void)state;
	struct sh *h = sh_new(WB_DEV_SLOW WB_MEM "journal: {enabled: false}\n");
	struct stack_file *f = sh_file(h, "big", 0);
	struct sh_gen g = { .kind = STACK_OP_WRITE, .f = f, .len = 512 << 10, .count = 512 };
	sh_gen_task(h, "writer", 10060, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	assert_true(g.exited_at > 0);
	uint64_t thresh = h->st->wb.thresh, freerun = (h->st->wb.bg_thresh + thresh) / 2;
	uint64_t peak = h->st->wb.peak_dirty;
	assert_true(peak <= thresh + thresh / 50);
	assert_true(peak > freerun);
	assert_true(sh_wait(h, SIM_CLASS_BG, SIM_WAIT_DIRTY_THROTTLE) > 0);
	/* 256 MiB at ~100 MB/s: the writer is paced by the device */
	assert_true(g.exited_at > 1 * SEC);
	sh_free(h);

	/* without throttling the same writer blows through the limit */
	h = sh_new(WB_DEV_SLOW WB_MEM "journal: {enabled: false}\nwriteback: {throttle: false}\n");
	f = sh_file(h, "big", 0);
	struct sh_gen g2 = { .kind = STACK_OP_WRITE, .f = f, .len = 512 << 10, .count = 512 };
	sh_gen_task(h, "writer", 10060, 0, &g2);
	sh_run(h, SIM_TIME_MAX);
	assert_true(h->st->wb.peak_dirty > h->st->wb.thresh * 3 / 2);
	assert_int_equal(sh_wait(h, SIM_CLASS_BG, SIM_WAIT_DIRTY_THROTTLE), 0);
	sh_free(h);
}

/* Below the background threshold nothing is written until kupdate finds
 * the inode older than dirty_expire at a dirty_writeback tick. */
static void test_writeback_kupdate_after_expire(void **state)
{
	(void)state;
	static const char *presets[] = { "android", "linux" };
	static const int64_t expect[] = { 5 * SEC, 30 * SEC };
	for (int p = 0; p < 2; p++) {
		char yaml[512];
		snprintf(yaml, sizeof(yaml),
			 WB_DEV_FAST WB_MEM "journal: {enabled: false}\n"
					    "writeback: {include: configs/writeback/%s.yaml}\n",
			 presets[p]);
		struct sh *h = sh_new(yaml);
		struct stack_file *f = sh_file(h, "small", 0);
		struct sh_gen g = { .kind = STACK_OP_WRITE, .f = f, .len = 64 << 10, .count = 16 };
		sh_gen_task(h, "writer", 10060, 0, &g);
		sh_run(h, SIM_TIME_MAX);
		uint32_t i = first_write(h);
		assert_true(i != UINT32_MAX);
		assert_int_equal(h->d_time[i], expect[p]);
		assert_false(h->d_flags[i] & REQ_SYNC);
		/* everything was written back, once */
		uint64_t sectors = 0;
		for (uint32_t k = 0; k < h->nd; k++)
			sectors += h->d_sectors[k];
		assert_int_equal(sectors, (1 << 20) / 512);
		assert_int_equal(h->st->wb.nr_dirty, 0);
		assert_int_equal(h->st->wb.nr_writeback, 0);
		sh_free(h);
	}
}

/* Above the background threshold the flusher starts at once, with async
 * bios of at most 512 KiB. */
static void test_writeback_background_starts_above_threshold(void **state)
{
	(void)state;
	struct sh *h = sh_new(WB_DEV_FAST WB_MEM "journal: {enabled: false}\n"
					    "writeback: {include: configs/writeback/linux.yaml}\n");
	uint64_t over = (h->st->wb.bg_thresh + 2048) * 4096;
	struct stack_file *f = sh_file(h, "mid", 0);
	struct sh_gen g = { .kind = STACK_OP_WRITE, .f = f, .len = 256 << 10,
			    .count = over / (256 << 10) };
	sh_gen_task(h, "writer", 10060, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	uint32_t i = first_write(h);
	assert_true(i != UINT32_MAX);
	assert_true(h->d_time[i] < 100 * MS);
	for (uint32_t k = 0; k < h->nd; k++) {
		assert_true(h->d_sectors[k] <= 1024);
		assert_false(h->d_flags[k] & REQ_SYNC);
	}
	assert_true(h->st->wb.pages_async > 0);
	assert_int_equal(h->st->wb.pages_sync, 0);
	sh_free(h);
}

/* writeback_chunk_size (3.2+): min(bw / 2, limit / 8) + 1024 rounded
 * down to 1024 pages; a fixed chunk_pages overrides it. */
static void test_writeback_chunk_size_follows_limit(void **state)
{
	(void)state;
	struct sh *h = sh_new(WB_DEV_FAST WB_MEM "journal: {enabled: false}\n");
	/* INIT_BW 100 MiB/s: bw / 2 = 12800 pages; limit / 8 is smaller */
	uint64_t scope = h->st->wb.thresh / 8;
	assert_true(scope < 12800);
	json_t *o = writeback_to_json(h->st);
	assert_int_equal(json_integer_value(json_object_get(o, "chunk_pages")),
			 (scope + 1024) / 1024 * 1024);
	json_decref(o);
	sh_free(h);
	h = sh_new(WB_DEV_FAST WB_MEM "journal: {enabled: false}\nwriteback: {chunk_pages: 1024}\n");
	o = writeback_to_json(h->st);
	assert_int_equal(json_integer_value(json_object_get(o, "chunk_pages")), 1024);
	json_decref(o);
	sh_free(h);
}

/* 3.10 b_io order: a file dirtied while the flusher writes a big one waits
 * for the pass in progress and for the big file's requeued (b_more_io)
 * chunk, then is written with async bios like the big one. */
static void test_writeback_new_inode_after_more_io(void **state)
{
	(void)state;
	struct sh *h = sh_new(WB_DEV_SLOW WB_MEM "journal: {enabled: false}\n"
					    "writeback: {dirty_background_bytes: 1MiB, dirty_bytes: 200MiB, "
					    "throttle: false, chunk_pages: 1024}\n"
					    "fs: {alloc_extent_bytes: 4KiB}\n");
	struct stack_file *a = sh_file(h, "big", 0), *b = sh_file(h, "small", 0);
	struct sh_gen ga = { .kind = STACK_OP_WRITE, .f = a, .len = 512 << 10, .count = 256 };
	struct sh_gen gb = { .kind = STACK_OP_WRITE, .f = b, .len = 16 << 10, .count = 1 };
	sh_gen_task(h, "bigwriter", 10060, 0, &ga);
	sh_gen_task(h, "smallwriter", 10050, 100 * MS, &gb);
	/* blocks are taken at the allocator's cursor as the flusher writes
	 * (one-page preallocation windows): big's pages allocated before
	 * small's first block were handed to bios before small's */
	uint64_t at_dirty = UINT64_MAX;
	for (int64_t t = 1 * MS; t < 10 * SEC && at_dirty == UINT64_MAX; t += MS / 4) {
		sh_run(h, t);
		if (b->mapping.nr_dirty > 0)
			at_dirty = a->ei.alloc_pages;
	}
	sh_run(h, SIM_TIME_MAX);
	assert_true(ga.exited_at > 0 && ga.exited_at < 100 * MS);
	uint64_t blba = stack_file_lba(b, 0), before = 0;
	assert_true(blba != UINT64_MAX);
	for (uint32_t i = 0; i < stack_file_extent_count(a); i++) {
		uint64_t page, lba, n;
		stack_file_extent(a, i, &page, &lba, &n);
		if (lba < blba)
			before += n;
	}
	/* the rest of the chunk in progress, then big's requeued chunk
	 * (b_more_io) goes first: more than one chunk, at most two (a single
	 * list would take small right after the chunk in progress) */
	assert_true(at_dirty != UINT64_MAX);
	assert_true(before - at_dirty > 1024);
	assert_true(before - at_dirty <= 2048);
	assert_int_equal(h->st->wb.pages_sync, 0);
	sh_free(h);
}

/* The flusher asleep in get_request (the async request list is full)
 * while it writes a chunk: with f2fs, which marks a page as it goes into
 * the bio it submits next (f2fs_write_cache_pages), only the pages of the
 * bios it submitted are under writeback and tagged, the rest of the chunk
 * still dirty and no bio built ahead; ext4 keeps the run it mapped locked
 * until it is submitted (mpage_da_submit_io), modelled as built and
 * marked together: there the rest of the run is under writeback in bios
 * not yet submitted. */
static void wb_sleeper_check(const char *fs, bool locks_run)
{
	char yaml[1024];
	snprintf(yaml, sizeof yaml,
		 WB_DEV_SLOW WB_MEM "%s\n"
		 "writeback: {dirty_background_bytes: 1MiB, dirty_bytes: 400MiB, "
		 "throttle: false, chunk_pages: 16384}\n",
		 fs);
	struct sh *h = sh_new(yaml);
	struct stack_file *f = sh_file(h, "big", 0);
	struct sh_gen g = { .kind = STACK_OP_WRITE, .f = f, .len = 1 << 20, .count = 128 };
	sh_gen_task(h, "writer", 10060, 0, &g);
	struct stack_task *fl = h->st->wb.flusher;
	bool seen = false;
	for (int64_t t = MS; t < 20 * SEC && !seen; t += MS) {
		sh_run(h, t);
		if (fl->state != TS_BLOCKED || fl->wait_cause != SIM_WAIT_GET_REQUEST ||
		    fl->wb.file != f || f->mapping.nr_dirty == 0)
			continue;
		seen = true;
		uint64_t pend = 0;
		for (const struct stack_bio *sb = fl->wb.pend; sb; sb = sb->free_next)
			pend += sb->npages;
		/* the page after the last one handed to a bio */
		uint64_t next = fl->wb.cursor;
		const struct pc_page *pg = pc_find(f, next);
		assert_non_null(pg);
		const struct pc_leaf *lf = f->mapping.pages.leaf[next >> PC_LEAF_SHIFT];
		bool tagged = (lf->wb >> (next & ((1u << PC_LEAF_SHIFT) - 1))) & 1;
		if (locks_run) {
			assert_true(pend > 0);
			assert_true(pc_find(f, next - 1)->flags & PG_WRITEBACK);
		} else {
			assert_int_equal(pend, 0);
			assert_null(fl->wb.pend);
			assert_true(pg->flags & PG_DIRTY);
			assert_false(pg->flags & PG_WRITEBACK);
			assert_false(tagged);
			/* more of the chunk is left to write, all of it dirty */
			assert_true(fl->wb.left > 0);
			assert_true(next < fl->wb.map_end);
			assert_int_equal(pc_dirty_run(f, next, fl->wb.map_end - next),
					 fl->wb.map_end - next);
		}
		/* the pages under writeback are those of bios built: submitted
		 * ones (in the queue or the device) and, ext4, pending ones */
		assert_int_equal(f->mapping.nr_writeback, h->st->wb.pages_async - h->st->wb.written_total);
	}
	assert_true(seen);
	sh_run(h, 30 * SEC); /* f2fs's kthreads never end */
	assert_int_equal(f->mapping.nr_writeback, 0);
	assert_int_equal(f->mapping.nr_dirty, 0);
	assert_int_equal(h->st->wb.pages_async, 128 * 256);
	sh_free(h);
}

static void test_writeback_sleeping_flusher_leaves_rest_dirty(void **state)
{
	(void)state;
	wb_sleeper_check("fs: {kind: f2fs, partition_bytes: 2GiB, reserved_segments: 16}", false);
	wb_sleeper_check("journal: {enabled: false}", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writeback_chunk_size_follows_limit),
		cmocka_unit_test(test_writeback_new_inode_after_more_io),
		cmocka_unit_test(test_writeback_sleeping_flusher_leaves_rest_dirty),
		cmocka_unit_test(test_writeback_presets_set_thresholds),
		cmocka_unit_test(test_writeback_throttle_caps_dirty_at_dirty_ratio),
		cmocka_unit_test(test_writeback_kupdate_after_expire),
		cmocka_unit_test(test_writeback_background_starts_above_threshold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
