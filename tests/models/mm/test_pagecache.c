/* Page cache: hits on re-read, memory bounded by the configured size with
 * kswapd reclaim, direct reclaim when everything is dirty, the LRU keeping
 * mapped (faulted) pages over streamed ones, the lru lock's pagevec
 * batching, and the per-file page index (lookup, ordered walk, last page)
 * through scattered inserts and evictions, reclaim's chunk-at-once free
 * against page-by-page, the cached pages at t = 0, and a warm start's
 * LRU position and counters (pagecache.warm). */
#include "tests/models/stack/stack_harness.h"

#define PC_DEV "device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"
#define PC_SMALL "memory: {total_bytes: 96MiB, reserved_bytes: 32MiB}\n"
#define PC_FS "fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\njournal: {enabled: false}\n"

static uint64_t read_sectors(const struct sh *h)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < h->nd; i++)
		if (!(h->d_flags[i] & REQ_WRITE))
			n += h->d_sectors[i];
	return n;
}

static void test_pagecache_reread_hits(void **state)
{
	(void)state;
	struct sh *h = sh_new(PC_DEV PC_SMALL PC_FS);
	struct stack_file *f = sh_file(h, "data", 1 << 20);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_READ, f, 0, 1 << 20, 0);
	sh_op(&s, STACK_OP_READ, f, 0, 1 << 20, 0);
	sh_script_task(h, "reader", 10001, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(read_sectors(h), (1 << 20) / 512); /* read from the device once */
	assert_true(h->st->pc.hits >= 256);
	assert_int_equal(stack_file_cached_pages(f), 256);
	sh_free(h);
}

/* Streaming 4x the cache through it: never more pages than the capacity,
 * kswapd evicts, the reader never stalls in direct reclaim. */
static void test_pagecache_bounded_by_memory(void **state)
{
	(void)state;
	struct sh *h = sh_new(PC_DEV PC_SMALL PC_FS);
	struct stack_file *f = sh_file(h, "movie", 256 << 20);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 128 << 10, .count = 2048 };
	sh_gen_task(h, "reader", 10001, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	assert_true(g.exited_at > 0);
	struct pagecache *pc = &h->st->pc;
	assert_true(pc->peak_used <= pc->capacity);
	assert_true(pc->evicted >= (256u << 20) / 4096 - pc->capacity);
	assert_true(pc->kswapd_batches > 0);
	assert_int_equal(sh_wait(h, SIM_CLASS_BG, SIM_WAIT_DIRECT_RECLAIM), 0);
	sh_free(h);
}

/* All memory dirty (no throttling, dirty_ratio 100): the allocating
 * writer stalls in direct reclaim until writeback cleans pages. */
static void test_pagecache_direct_reclaim_waits_for_writeback(void **state)
{
	(void)state;
	struct sh *h = sh_new("device: {model: ideal, service: fixed, mean_us: 20000, queue_depth: 1}\n"
			      PC_SMALL PC_FS "writeback: {throttle: false, dirty_ratio: 100, dirty_background_ratio: 50}\n");
	struct stack_file *f = sh_file(h, "dump", 0);
	struct sh_gen g = { .kind = STACK_OP_WRITE, .f = f, .len = 512 << 10, .count = 256 };
	sh_gen_task(h, "writer", 10001, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	assert_true(g.exited_at > 0);
	struct pagecache *pc = &h->st->pc;
	assert_true(pc->peak_used <= pc->capacity);
	assert_true(pc->direct_stalls > 0);
	assert_true(sh_wait(h, SIM_CLASS_BG, SIM_WAIT_DIRECT_RECLAIM) > 0);
	assert_int_equal(stack_file_size(f), 128u << 20);
	sh_free(h);
}

/* Faulted pages whose ptes are young get activated by the reclaim scan
 * and survive a stream that evicts pages read only once. */
static void test_pagecache_lru_keeps_mapped_pages(void **state)
{
	(void)state;
	struct sh *h = sh_new(PC_DEV PC_SMALL PC_FS);
	struct stack_file *lib = sh_file(h, "lib.so", 4 << 20);
	struct stack_file *once = sh_file(h, "once", 4 << 20);
	struct stack_file *movie = sh_file(h, "movie", 256 << 20);
	struct sh_gen fl = { .kind = STACK_OP_FAULT, .f = lib, .len = 4096, .count = 1024 };
	struct sh_script r = { 0 };
	sh_op(&r, STACK_OP_READ, once, 0, 4 << 20, 0);
	struct sh_gen st = { .kind = STACK_OP_READ, .f = movie, .len = 128 << 10, .count = 2048 };
	sh_gen_task(h, "app", 10001, 0, &fl);
	sh_script_task(h, "viewer", 10002, 0, &r);
	sh_gen_task(h, "stream", 10003, 500 * MS, &st);
	sh_run(h, SIM_TIME_MAX);
	assert_true(stack_file_cached_pages(lib) >= 1024 * 9 / 10);
	assert_true(stack_file_cached_pages(once) <= 1024 / 10);
	sh_free(h);
}

/* lru_lock: one acquisition per PAGEVEC_SIZE (14) inserted pages, and a
 * lone task never waits for it. */
static void test_pagecache_lock_batches_per_pagevec(void **state)
{
	(void)state;
	struct sh *h = sh_new(PC_DEV PC_SMALL PC_FS);
	struct stack_file *f = sh_file(h, "data", 14 << 20);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_READ, f, 0, 14 << 20, 0);
	sh_script_task(h, "reader", 10001, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->st->pc.inserted, 3584);
	assert_int_equal(h->st->lock.l.acquisitions, 3584 / 14);
	assert_int_equal(h->st->lock.l.wait_ns, 0);
	assert_int_equal(sh_wait(h, SIM_CLASS_BG, SIM_WAIT_PAGECACHE_LOCK), 0);
	sh_free(h);

	/* scope global: every lookup and every insert takes it as well */
	h = sh_new(PC_DEV PC_SMALL PC_FS "pagecache_lock: {scope: global}\n");
	f = sh_file(h, "data", 14 << 20);
	struct sh_script s2 = { 0 };
	sh_op(&s2, STACK_OP_READ, f, 0, 14 << 20, 0);
	sh_script_task(h, "reader", 10001, 0, &s2);
	sh_run(h, SIM_TIME_MAX);
	assert_true(h->st->lock.l.acquisitions >= 2 * 3584);
	assert_int_equal(h->st->lock.l.wait_ns, 0);
	sh_free(h);
}

/* The index of f against a walk of every index up to the last page:
 * pc_find, pc_find_ge and pc_next agree, the walk is ascending, counts
 * and the last page match. */
static void check_index(struct stack_file *f)
{
	uint64_t n = 0;
	struct pc_page *prev = NULL;
	for (struct pc_page *pg = pc_find_ge(f, 0); pg; pg = pc_next(pg)) {
		assert_ptr_equal(pg->file, f);
		assert_ptr_equal(pc_find(f, pg->index), pg);
		if (prev)
			assert_true(pg->index > prev->index);
		prev = pg;
		n++;
	}
	assert_int_equal(n, f->mapping.nr_pages);
	assert_ptr_equal(f->mapping.last, prev);
	if (!prev)
		return;
	struct pc_page *ge = NULL; /* the smallest page at or after i, from the top */
	for (uint64_t i = prev->index + 1; i-- > 0;) {
		struct pc_page *pg = pc_find(f, i);
		if (pg)
			ge = pg;
		assert_ptr_equal(pc_find_ge(f, i), ge);
	}
	assert_null(pc_find(f, (uint64_t)prev->index + 1));
	assert_null(pc_find_ge(f, (uint64_t)prev->index + 1));
}

/* Scattered 4 KiB reads over a file 8x the cache: pages land all over the
 * index and reclaim takes them out again; then pages are freed by hand in
 * a scattered order, the last page among them. */
static void test_pagecache_index_scattered(void **state)
{
	(void)state;
	struct sh *h = sh_new(PC_DEV PC_SMALL PC_FS "readahead: {read_ahead_kib: 0}\n");
	struct stack_file *f = sh_file(h, "db", 512 << 20);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 4096, .count = 40000,
			    .stride = 4096 * 4099 + 4096, .wrap = 512 << 20 };
	sh_gen_task(h, "reader", 10001, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	assert_true(g.exited_at > 0);
	assert_true(h->st->pc.evicted > 0);
	assert_true(f->mapping.nr_pages > 1000);
	check_index(f);
	uint64_t n = f->mapping.nr_pages, k = 0;
	struct pc_page **all = malloc(n * sizeof(*all));
	assert_non_null(all);
	for (struct pc_page *pg = pc_find_ge(f, 0); pg; pg = pc_next(pg))
		all[k++] = pg;
	assert_int_equal(k, n);
	for (uint64_t i = 0; i < n; i++) { /* every 7th page in a stride order, last first */
		uint64_t j = (n - 1 + i * 7919) % n;
		if (j % 7 == 0 || j == n - 1) {
			pc_page_free(h->st, all[j]);
			all[j] = NULL;
		}
	}
	check_index(f);
	for (uint64_t i = n; i-- > 0;) /* the rest from the top: last moves down each time */
		if (all[i]) {
			pc_page_free(h->st, all[i]);
			if (i % 97 == 0)
				check_index(f);
		}
	check_index(f);
	assert_null(f->mapping.last);
	free(all);
	sh_free(h);
}

/* Reclaim frees a chunk's pages in one call (pc_pages_free_isolated): the
 * same index, counts, last pages and pool order as pc_page_free page by
 * page, for chunks that mix two files, cross leaves, empty a leaf and
 * take each file's last page. */
#define FB_PAGES 256
static struct sh *freed_batch_run(struct stack_file **fa, struct stack_file **fb)
{
	struct sh *h = sh_new(PC_DEV PC_SMALL PC_FS);
	*fa = sh_file(h, "a", FB_PAGES * 4096);
	*fb = sh_file(h, "b", FB_PAGES * 4096);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_READ, *fa, 0, FB_PAGES * 4096, 0);
	sh_op(&s, STACK_OP_READ, *fb, 0, FB_PAGES * 4096, 0);
	sh_script_task(h, "reader", 10001, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal((*fa)->mapping.nr_pages, FB_PAGES);
	assert_int_equal((*fb)->mapping.nr_pages, FB_PAGES);
	return h;
}

static void test_pagecache_free_batch_as_page_by_page(void **state)
{
	(void)state;
	/* (file, first index, pages): a chunk is up to 32 of them in order */
	static const struct { int file; uint32_t first, n; } order[] = {
		{ 0, 50, 30 },  { 1, 250, 6 }, { 0, 255, 1 }, { 1, 0, 64 }, { 0, 100, 1 },
		{ 1, 100, 1 },  { 0, 254, 1 }, { 0, 120, 20 }, { 1, 249, 1 }, { 0, 0, 50 },
		{ 1, 64, 3 },   { 0, 253, 1 },
	};
	struct stack_file *a1, *b1, *a2, *b2;
	struct sh *h1 = freed_batch_run(&a1, &b1), *h2 = freed_batch_run(&a2, &b2);
	struct pc_page *chunk[32];
	uint32_t n = 0, total = 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		for (uint32_t k = 0; k < order[i].n; k++) {
			uint64_t index = order[i].first + k;
			struct pc_page *p1 = pc_find(order[i].file ? b1 : a1, index);
			struct pc_page *p2 = pc_find(order[i].file ? b2 : a2, index);
			assert_non_null(p1);
			assert_non_null(p2);
			pc_lru_del(&h1->st->pc, p1); /* isolated: on no list */
			chunk[n++] = p1;
			pc_page_free(h2->st, p2);
			total++;
			if (n == 32) {
				pc_pages_free_isolated(h1->st, chunk, n);
				n = 0;
			}
		}
	}
	pc_pages_free_isolated(h1->st, chunk, n);
	struct stack_file *f1[2] = { a1, b1 }, *f2[2] = { a2, b2 };
	for (int f = 0; f < 2; f++) {
		check_index(f1[f]);
		check_index(f2[f]);
		assert_int_equal(f1[f]->mapping.nr_pages, f2[f]->mapping.nr_pages);
		assert_int_equal(f1[f]->mapping.last->index, f2[f]->mapping.last->index);
		for (uint64_t i = 0; i < FB_PAGES; i++) {
			assert_int_equal(!pc_find(f1[f], i), !pc_find(f2[f], i));
			uint64_t l = i >> PC_LEAF_SHIFT;
			assert_int_equal(!f1[f]->mapping.pages.leaf[l], !f2[f]->mapping.pages.leaf[l]);
		}
	}
	assert_null(b1->mapping.pages.leaf[0]); /* emptied by one chunk */
	assert_int_equal(a1->mapping.nr_pages + b1->mapping.nr_pages, 2 * FB_PAGES - total);
	assert_int_equal(h1->st->pc.used, h2->st->pc.used);
	assert_int_equal(h1->st->pc.evicted, h2->st->pc.evicted);
	/* the pool: the same pages (by file and index) in the same order */
	const struct list_head *q1 = h1->st->pc.free_pages.next, *q2 = h2->st->pc.free_pages.next;
	for (uint32_t i = 0; i < total; i++, q1 = q1->next, q2 = q2->next) {
		assert_ptr_not_equal(q1, &h1->st->pc.free_pages);
		assert_ptr_equal(q1->next->prev, q1);
		const struct pc_page *p1 = list_entry(q1, struct pc_page, lru);
		const struct pc_page *p2 = list_entry(q2, struct pc_page, lru);
		assert_int_equal(p1->index, p2->index);
		assert_null(p1->file);
	}
	assert_ptr_equal(q1, &h1->st->pc.free_pages);
	assert_ptr_equal(q2, &h2->st->pc.free_pages);
	sh_free(h1);
	sh_free(h2);
}

/* The cached pages at t = 0 (pagecache_prefill, a leaf at a time): every
 * index 0..n-1 present and clean, the last one last, n more pages used,
 * and on the inactive list ahead of the pages already there, in the
 * order inserting them one by one at its head gives (highest first). */
static void test_pagecache_prefill(void **state)
{
	(void)state;
	struct sh *h = sh_new(PC_DEV PC_SMALL PC_FS);
	struct pagecache *pc = &h->st->pc;
	struct stack_file *pre = sh_file(h, "pre", 70 * 4096);
	struct sim_error err = { 0 };
	assert_int_equal(pagecache_prefill(h->st, pre, 70, PC_WARM_INACTIVE_NEWEST, 0, &err), 0);
	struct stack_file *f = sh_file(h, "other", 300 * 4096);
	uint64_t used = pc->used, inactive = pc->nr_inactive;
	const struct list_head *old_first = pc->inactive.next;
	assert_int_equal(pagecache_prefill(h->st, f, 300, PC_WARM_INACTIVE_NEWEST, 0, &err), 0);
	check_index(f);
	assert_int_equal(f->mapping.nr_pages, 300);
	assert_int_equal(f->mapping.last->index, 299);
	assert_int_equal(pc->used, used + 300);
	assert_int_equal(pc->nr_inactive, inactive + 300);
	assert_int_equal(f->mapping.pages.leaf[4]->map, (1ull << 44) - 1); /* 300 = 4 x 64 + 44 */
	const struct list_head *q = pc->inactive.next;
	for (uint64_t i = 300; i-- > 0; q = q->next) {
		assert_ptr_equal(q->next->prev, q);
		const struct pc_page *pg = list_entry(q, struct pc_page, lru);
		assert_ptr_equal(pg, pc_find(f, i));
		assert_int_equal(pg->flags, PG_UPTODATE);
		assert_int_equal(pg->lru_list, PC_LRU_INACTIVE);
	}
	assert_ptr_equal(q, old_first);
	assert_ptr_equal(q->prev, &pc_find(f, 0)->lru);
	check_index(pre);
	assert_int_equal(pre->mapping.nr_pages, 70);
	sh_free(h);
}

/* A warm start (stack_file_prefill) at each memory.warm_lru position:
 * newest at the inactive head, oldest at its tail (page 0 last, reclaimed
 * first), active at the active head with PG_active; every page PG_warm and
 * counted as prefilled. */
static void test_pagecache_warm_positions(void **state)
{
	(void)state;
	static const char *const where[] = { "inactive-newest", "inactive-oldest", "active" };
	for (int w = 0; w < 3; w++) {
		char yaml[512];
		snprintf(yaml, sizeof(yaml),
			 PC_DEV "memory: {total_bytes: 96MiB, reserved_bytes: 32MiB, warm_lru: %s}\n" PC_FS,
			 where[w]);
		struct sh *h = sh_new(yaml);
		struct pagecache *pc = &h->st->pc;
		struct sim_error err = { 0 };
		struct stack_file *other = sh_file(h, "other", 70 * 4096);
		assert_int_equal(pagecache_prefill(h->st, other, 70, PC_WARM_INACTIVE_NEWEST, 0, &err), 0);
		struct stack_file *f = sh_file(h, "app/ws0", 10 * 4096);
		uint64_t inactive = pc->nr_inactive, active = pc->nr_active;
		assert_int_equal(stack_file_prefill(h->st, f, 10, 10080, &err), 0);
		assert_int_equal(f->mapping.warm_prefilled, 10);
		assert_int_equal(stack_file_owner_uid(f), 10080);
		for (uint64_t i = 0; i < 10; i++)
			assert_true(pc_find(f, i)->flags & PG_WARM);
		const struct pc_page *newest = list_entry(pc->inactive.next, struct pc_page, lru);
		const struct pc_page *oldest = list_entry(pc->inactive.prev, struct pc_page, lru);
		switch (w) {
		case 0:
			assert_ptr_equal(newest, pc_find(f, 9));
			assert_ptr_equal(oldest->file, other);
			assert_int_equal(pc->nr_inactive, inactive + 10);
			break;
		case 1:
			assert_ptr_equal(oldest, pc_find(f, 0));
			assert_ptr_equal(newest->file, other);
			assert_int_equal(pc->nr_inactive, inactive + 10);
			break;
		default:
			assert_ptr_equal(list_entry(pc->active.next, struct pc_page, lru), pc_find(f, 9));
			assert_true(pc_find(f, 0)->flags & PG_ACTIVE);
			assert_int_equal(pc_find(f, 0)->lru_list, PC_LRU_ACTIVE);
			assert_int_equal(pc->nr_active, active + 10);
			assert_int_equal(pc->nr_inactive, inactive);
			break;
		}
		check_index(f);
		sh_free(h);
	}
}

/* The warm counters: a page used counts a hit once; a warm page freed
 * before its file's first use is reclaimed_before_use, one freed after it
 * unused; a page read from the device is a miss; the result's
 * pagecache.warm holds the totals and the app's. */
static void test_pagecache_warm_counters(void **state)
{
	(void)state;
	struct sh *h = sh_new(PC_DEV PC_SMALL PC_FS);
	struct sim_error err = { 0 };
	struct stack_file *a = sh_file(h, "app/ws0", 8 * 4096);
	struct stack_file *b = sh_file(h, "app/ws1", 8 * 4096);
	assert_int_equal(stack_file_prefill(h->st, a, 8, 10080, &err), 0);
	assert_int_equal(stack_file_prefill(h->st, b, 8, 10080, &err), 0);
	pc_page_free(h->st, pc_find(b, 7)); /* before b's first use */
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_READ, a, 0, 4 * 4096, 0);
	sh_op(&s, STACK_OP_READ, a, 0, 4 * 4096, 0); /* again: no second hit */
	sh_op(&s, STACK_OP_READ, b, 0, 8 * 4096, 0); /* 7 cached, page 7 from the device */
	sh_script_task(h, "gallery", 10080, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	pc_page_free(h->st, pc_find(a, 6)); /* a in use, page 6 never read */
	assert_int_equal(a->mapping.warm_hits, 4);
	assert_int_equal(b->mapping.warm_hits, 7);
	assert_int_equal(b->mapping.warm_reclaimed, 1);
	assert_int_equal(a->mapping.warm_unused, 1);
	assert_int_equal(a->mapping.warm_misses, 0);
	assert_int_equal(b->mapping.warm_misses, 1);
	json_t *o = pagecache_to_json(h->st);
	json_t *w = json_object_get(o, "warm");
	assert_non_null(w);
	assert_int_equal(json_integer_value(json_object_get(w, "files")), 2);
	assert_int_equal(json_integer_value(json_object_get(w, "prefilled")), 16);
	assert_int_equal(json_integer_value(json_object_get(w, "hits")), 11);
	assert_int_equal(json_integer_value(json_object_get(w, "misses")), 1);
	assert_int_equal(json_integer_value(json_object_get(w, "reclaimed_before_use")), 1);
	assert_int_equal(json_integer_value(json_object_get(w, "reclaimed_unused")), 1);
	assert_string_equal(json_string_value(json_object_get(w, "lru")), "inactive-newest");
	json_t *app = json_array_get(json_object_get(w, "apps"), 0);
	assert_int_equal(json_integer_value(json_object_get(app, "uid")), 10080);
	assert_int_equal(json_integer_value(json_object_get(app, "prefilled")), 16);
	json_decref(o);
	sh_free(h);
}

/* No warm start, no pagecache.warm. */
static void test_pagecache_warm_absent(void **state)
{
	(void)state;
	struct sh *h = sh_new(PC_DEV PC_SMALL PC_FS);
	json_t *o = pagecache_to_json(h->st);
	assert_null(json_object_get(o, "warm"));
	json_decref(o);
	sh_free(h);
}

/* The writeback tags and the leaf-at-a-time walks against the page by
 * page ones: every present page's tag bit is its PG_WRITEBACK,
 * pc_find_writeback is the first PG_WRITEBACK page of a pc_next walk (up
 * to last), pc_dirty_run the run a pc_next walk of contiguous dirty pages
 * not under writeback finds. */
static void check_walks(struct stack_file *f)
{
	struct pc_page *next_wb = NULL; /* the first page under writeback at or after i */
	uint64_t run = 0;               /* contiguous dirty, not under writeback, from i */
	uint64_t top = f->mapping.last ? (uint64_t)f->mapping.last->index + 2 : 1;
	for (uint64_t i = top; i-- > 0;) {
		struct pc_page *pg = pc_find(f, i);
		if (pg) {
			const struct pc_leaf *lf = f->mapping.pages.leaf[i >> PC_LEAF_SHIFT];
			bool tagged = (lf->wb >> (i & ((1u << PC_LEAF_SHIFT) - 1))) & 1;
			assert_int_equal(tagged, !!(pg->flags & PG_WRITEBACK));
			if (pg->flags & PG_WRITEBACK)
				next_wb = pg;
		} else if (i >> PC_LEAF_SHIFT < f->mapping.pages.nleaf && f->mapping.pages.leaf[i >> PC_LEAF_SHIFT]) {
			const struct pc_leaf *lf = f->mapping.pages.leaf[i >> PC_LEAF_SHIFT];
			assert_false((lf->wb >> (i & ((1u << PC_LEAF_SHIFT) - 1))) & 1);
		}
		run = pg && (pg->flags & (PG_DIRTY | PG_WRITEBACK)) == PG_DIRTY ? run + 1 : 0;
		if (i % 13 && !(pg && next_wb == pg))
			continue; /* the tag scans are O(leaves): a sample, every tagged page */
		assert_ptr_equal(pc_find_writeback(f, i, UINT64_MAX), next_wb);
		if (next_wb) { /* a last below the page hides it */
			assert_ptr_equal(pc_find_writeback(f, i, next_wb->index), next_wb);
			if (next_wb->index > i)
				assert_null(pc_find_writeback(f, i, (uint64_t)next_wb->index - 1));
		}
		if (run) {
			assert_int_equal(pc_dirty_run(f, i, UINT64_MAX), run);
			assert_int_equal(pc_dirty_run(f, i, 1), 1);
			uint64_t lim = 1 + (i * 7) % 150; /* limits inside and across leaves */
			assert_int_equal(pc_dirty_run(f, i, lim), run < lim ? run : lim);
		}
	}
}

/* A writer 2x the cache on a slow device, with fsyncs: pages dirty, under
 * async and sync writeback, clean and evicted (holes) all at once; the
 * tags and walks are checked at many instants, and once everything is
 * written no tag is left. */
static void test_pagecache_writeback_tags(void **state)
{
	(void)state;
	struct sh *h = sh_new("device: {model: ideal, service: fixed, mean_us: 3000, queue_depth: 1}\n"
			      PC_SMALL PC_FS "writeback: {dirty_background_bytes: 2MiB}\n");
	struct stack_file *f = sh_file(h, "log", 0);
	struct sh_script s = { 0 };
	for (int i = 0; i < 32; i++) {
		sh_op(&s, STACK_OP_WRITE, f, (uint64_t)i << 22, 4 << 20, 0);
		if (i % 8 == 7)
			sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	}
	sh_script_task(h, "writer", 10001, 0, &s);
	uint64_t seen_wb = 0, seen_holes = 0;
	for (int64_t t = 20 * MS; t < 4 * SEC; t += 97 * MS) {
		sh_run(h, t);
		check_walks(f);
		seen_wb += f->mapping.nr_writeback > 0;
		seen_holes += f->mapping.last && f->mapping.nr_pages < (uint64_t)f->mapping.last->index + 1;
	}
	assert_true(seen_wb > 5);
	assert_true(seen_holes > 5);
	sh_run(h, SIM_TIME_MAX);
	assert_true(s.exited_at > 0);
	assert_true(h->st->wb.pages_sync > 0 && h->st->wb.pages_async > 0);
	check_walks(f);
	assert_null(pc_find_writeback(f, 0, UINT64_MAX));
	sh_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pagecache_reread_hits),
		cmocka_unit_test(test_pagecache_bounded_by_memory),
		cmocka_unit_test(test_pagecache_direct_reclaim_waits_for_writeback),
		cmocka_unit_test(test_pagecache_lru_keeps_mapped_pages),
		cmocka_unit_test(test_pagecache_lock_batches_per_pagevec),
		cmocka_unit_test(test_pagecache_index_scattered),
		cmocka_unit_test(test_pagecache_free_batch_as_page_by_page),
		cmocka_unit_test(test_pagecache_prefill),
		cmocka_unit_test(test_pagecache_warm_positions),
		cmocka_unit_test(test_pagecache_warm_counters),
		cmocka_unit_test(test_pagecache_warm_absent),
		cmocka_unit_test(test_pagecache_writeback_tags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
