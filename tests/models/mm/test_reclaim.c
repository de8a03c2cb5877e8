/* Reclaim as Linux 3.10 does it (models/mm/reclaim.c): watermarks from
 * min_free_kbytes, the per-cpu batch, kswapd woken at low and run to high,
 * SWAP_CLUSTER_MAX isolation batches, congestion waits in jiffies of the
 * platform's HZ, too_many_isolated, PG_reclaim on writeback pages, and a
 * direct reclaimer under a writeback flood. */
#include <jansson.h>

#include "tests/models/stack/stack_harness.h"

#define RC_DEV "device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"
#define RC_FS "fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\njournal: {enabled: false}\n"

static const struct sim_waitstat *wstat(struct sh *h, enum sim_class c, enum sim_wait w)
{
	return &h->sim->metrics.cls[c].wait[w];
}

/* __setup_per_zone_wmarks: low = min + min/4, high = min + min/2, from the
 * platform's min_free_kbytes or init_per_zone_wmark_min's sqrt(16 x KiB);
 * zone_batchsize: 3 GiB -> 31, pcp->high 6 x 31. */
static void test_reclaim_watermarks(void **state)
{
	(void)state;
	struct sh *h = sh_new(RC_DEV RC_FS "memory: {total_bytes: 3GiB, reserved_bytes: 1792MiB,"
					  " min_free_bytes: 32MiB, hz: 100}\n");
	struct pagecache *pc = &h->st->pc;
	assert_int_equal(pc->wmark_min, 8192);
	assert_int_equal(pc->wmark_low, 10240);
	assert_int_equal(pc->wmark_high, 12288);
	assert_int_equal(pc->pcp_batch, 31);
	assert_int_equal(pc->pcp_high, 186);
	sh_free(h);

	/* derived: sqrt(16 x 3145728 KiB) = 7094 KiB = 1773 pages */
	h = sh_new(RC_DEV RC_FS "memory: {total_bytes: 3GiB, reserved_bytes: 1792MiB}\n");
	pc = &h->st->pc;
	assert_int_equal(pc->wmark_min, 1773);
	assert_int_equal(pc->wmark_low, 1773 + 443);
	assert_int_equal(pc->wmark_high, 1773 + 886);
	sh_free(h);

	/* Android's extra_free_kbytes raises low and high, not min (1440x2560 x 4
	 * bytes x 3 screens = 43200 KiB = 10800 pages) */
	h = sh_new(RC_DEV RC_FS "memory: {total_bytes: 3GiB, reserved_bytes: 1792MiB,"
			       " min_free_bytes: 32MiB, extra_free_bytes: 43200KiB}\n");
	pc = &h->st->pc;
	assert_int_equal(pc->wmark_min, 8192);
	assert_int_equal(pc->wmark_low, 8192 + 10800 + 2048);
	assert_int_equal(pc->wmark_high, 8192 + 10800 + 4096);
	sh_free(h);

	/* 96 MiB: batch 24576 / 1024 / 4 = 6 -> rounddown_pow_of_two(9) - 1 = 7 */
	h = sh_new(RC_DEV RC_FS "memory: {total_bytes: 96MiB, reserved_bytes: 32MiB}\n");
	assert_int_equal(h->st->pc.pcp_batch, 7);
	assert_int_equal(h->st->pc.pcp_high, 42);
	sh_free(h);
}

/* schedule_timeout(j) ends at the j-th tick after now: between j - 1 and j
 * jiffies, ticks of 1/HZ from t = 0. */
static void test_reclaim_timeouts_in_jiffies(void **state)
{
	(void)state;
	struct sh *h = sh_new(RC_DEV RC_FS "memory: {total_bytes: 96MiB, reserved_bytes: 32MiB,"
					  " hz: 100}\n");
	struct pagecache *pc = &h->st->pc;
	/* congestion_wait(BLK_RW_ASYNC, HZ/10) at HZ = 100: 10 jiffies of 10 ms */
	assert_int_equal(mm_jiffies_timeout_ns(pc, 0, 100 / 10), 100 * MS);
	assert_int_equal(mm_jiffies_timeout_ns(pc, 5 * MS, 10), 95 * MS);
	assert_int_equal(mm_jiffies_timeout_ns(pc, 10 * MS, 10), 100 * MS);
	/* HZ/50: 2 jiffies */
	assert_int_equal(mm_jiffies_timeout_ns(pc, 12 * MS, 100 / 50), 18 * MS);
	sh_free(h);

	h = sh_new(RC_DEV RC_FS "memory: {total_bytes: 96MiB, reserved_bytes: 32MiB, hz: 250}\n");
	pc = &h->st->pc;
	/* HZ/10 = 25 jiffies of 4 ms */
	assert_int_equal(mm_jiffies_timeout_ns(pc, 1 * MS, 250 / 10), 99 * MS);
	assert_int_equal(mm_jiffies_timeout_ns(pc, 4 * MS, 25), 100 * MS);
	sh_free(h);
}

/* A reader streaming 4x the cache alone: kswapd is woken at low and
 * reclaims until free > high, in isolation batches of SWAP_CLUSTER_MAX;
 * the reader never drops free to min (no direct reclaim). */
static void test_reclaim_kswapd_low_to_high(void **state)
{
	(void)state;
	struct sh *h = sh_new(RC_DEV RC_FS "memory: {total_bytes: 96MiB, reserved_bytes: 32MiB}\n");
	struct stack_file *f = sh_file(h, "movie", 256 << 20);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 128 << 10, .count = 2048 };
	sh_gen_task(h, "reader", 10001, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	struct pagecache *pc = &h->st->pc;
	assert_true(g.exited_at > 0);
	assert_true(pc->kswapd_runs > 0);
	assert_int_equal(pc->direct_runs, 0);
	assert_true(pc->min_free_seen > pc->wmark_min);
	assert_true(pc->min_free_seen <= pc->wmark_low); /* it had to be woken */
	assert_true(pc->kswapd_sleep_free > pc->wmark_high); /* it ran to high */
	assert_true(pc->kswapd_sleep_free <= pc->wmark_high + 32); /* and no further */
	/* one reclaimer: chunks of min(lru_size >> priority left, 32); with
	 * ~16k inactive pages DEF_PRIORITY scans 3, then 7, 15, 31 ... */
	assert_true(pc->peak_isolated <= 32);
	assert_true(pc->peak_isolated >= 15);
	assert_true(pc->scanned <= 32 * pc->kswapd_batches);
	assert_int_equal(pc->nr_isolated, 0);
	sh_free(h);

	/* enough memory: free never reaches low, kswapd never runs */
	h = sh_new(RC_DEV RC_FS "memory: {total_bytes: 512MiB, reserved_bytes: 32MiB}\n");
	f = sh_file(h, "movie", 64 << 20);
	struct sh_gen g2 = { .kind = STACK_OP_READ, .f = f, .len = 128 << 10, .count = 512 };
	sh_gen_task(h, "reader", 10001, 0, &g2);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->st->pc.kswapd_runs, 0);
	assert_int_equal(h->st->pc.scanned, 0);
	sh_free(h);
}

/* A writer of 128 MiB into a 64 MiB cache on a slow device, balance_dirty_pages
 * off, with the given writeback ratios; returns the finished harness. */
static struct sh *flood(const char *ratios, struct stack_file **out)
{
	char yaml[512];
	snprintf(yaml, sizeof(yaml),
		 "device: {model: ideal, service: fixed, mean_us: 20000, queue_depth: 1}\n" RC_FS
		 "memory: {total_bytes: 96MiB, reserved_bytes: 32MiB, hz: 100}\n"
		 "writeback: {throttle: false, %s}\n",
		 ratios);
	struct sh *h = sh_new(yaml);
	struct stack_file *f = sh_file(h, "dump", 0);
	static struct sh_gen g;
	g = (struct sh_gen){ .kind = STACK_OP_WRITE, .f = f, .len = 512 << 10, .count = 256 };
	sh_gen_task(h, "writer", 10001, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	assert_true(g.exited_at > 0);
	assert_int_equal(h->st->pc.nr_isolated, 0);
	*out = f;
	return h;
}

/* Direct reclaim under a writeback flood (the whole cache dirty): the
 * writer's allocations find free <= min and reclaim themselves; reclaim
 * meets pages under writeback, sets PG_reclaim and keeps them; their end of
 * writeback moves them to the inactive tail (rotate_reclaimable_page),
 * where the next scan frees them. */
static void test_reclaim_direct_under_writeback_flood(void **state)
{
	(void)state;
	struct stack_file *f;
	struct sh *h = flood("dirty_ratio: 100, dirty_background_ratio: 50", &f);
	struct pagecache *pc = &h->st->pc;
	assert_true(pc->peak_used <= pc->capacity);
	assert_true(pc->direct_runs > 0);
	assert_true(pc->reclaim_writeback > 0 || pc->reclaim_dirty > 0);
	assert_true(pc->rotated_reclaimable > 0);
	assert_true(sh_wait(h, SIM_CLASS_BG, SIM_WAIT_DIRECT_RECLAIM) > 0);
	assert_int_equal(stack_file_size(f), 128u << 20);
	/* the result lists every reclaim and lock wait per class, zeros too */
	json_t *j = pagecache_to_json(h->st);
	json_t *bg = json_object_get(json_object_get(json_object_get(j, "reclaim"), "waits"), "bg");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(bg, "direct_reclaim"),
							    "total_ns")),
			 sh_wait(h, SIM_CLASS_BG, SIM_WAIT_DIRECT_RECLAIM));
	assert_non_null(json_object_get(bg, "isolation_throttle"));
	assert_non_null(json_object_get(bg, "tree_lock"));
	json_decref(j);
	sh_free(h);
}

/* throttle_vm_writeout: a direct reclaimer finding more pages under
 * writeback than dirty_thresh + 10 % waits in congestion_wait(BLK_RW_ASYNC,
 * HZ/10): each wait ends at an async completion below the queue's
 * congestion-off threshold or after 10 jiffies (HZ = 100: 100 ms). */
static void test_reclaim_vm_writeout_throttle_in_jiffies(void **state)
{
	(void)state;
	struct stack_file *f;
	struct sh *h = flood("dirty_ratio: 5, dirty_background_ratio: 1", &f);
	struct pagecache *pc = &h->st->pc;
	assert_true(pc->vm_writeout_throttled > 0);
	const struct sim_waitstat *w = wstat(h, SIM_CLASS_BG, SIM_WAIT_VM_WRITEOUT);
	assert_int_equal(w->count, pc->vm_writeout_throttled);
	assert_true(w->max_ns <= 100 * MS);
	assert_true(w->total_ns > 0);
	sh_free(h);
}

/* too_many_isolated: many readers on a fast device allocate faster than
 * kswapd frees and reclaim at once from a small inactive list; a GFP_IOFS
 * reclaimer (a reader) waits in congestion_wait(BLK_RW_ASYNC, HZ/10) while
 * the isolated pages outnumber an eighth of the inactive list. */
static void test_reclaim_too_many_isolated(void **state)
{
	(void)state;
	struct sh *h = sh_new("device: {model: ideal, service: fixed, mean_us: 20, queue_depth: 32}\n"
			      RC_FS "memory: {total_bytes: 48MiB, reserved_bytes: 40MiB, hz: 100}\n"
			      "cpu: {cores: 8}\n");
	enum { NR = 16 };
	struct sh_gen g[NR];
	char name[16];
	for (int i = 0; i < NR; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		struct stack_file *f = sh_file(h, name, 16 << 20);
		g[i] = (struct sh_gen){ .kind = STACK_OP_READ, .f = f, .len = 256 << 10, .count = 64 };
		snprintf(name, sizeof(name), "r%d", i);
		sh_gen_task(h, name, 10001 + (uint32_t)i, 0, &g[i]);
	}
	sh_run(h, SIM_TIME_MAX);
	struct pagecache *pc = &h->st->pc;
	for (int i = 0; i < NR; i++)
		assert_true(g[i].exited_at > 0);
	assert_true(pc->direct_runs > 0);
	assert_true(pc->isolation_throttled > 0);
	assert_true(pc->peak_isolated > 32); /* several reclaimers at once */
	const struct sim_waitstat *w = wstat(h, SIM_CLASS_BG, SIM_WAIT_ISOLATION);
	assert_int_equal(w->count, pc->isolation_throttled);
	/* only reads: no async request is freed to end the wait early, so
	 * each one lasts its HZ/10 timeout, 9 to 10 jiffies of 10 ms */
	assert_true(w->max_ns <= 100 * MS);
	assert_true(w->total_ns >= (int64_t)w->count * 90 * MS);
	assert_int_equal(pc->nr_isolated, 0);
	sh_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reclaim_watermarks),
		cmocka_unit_test(test_reclaim_timeouts_in_jiffies),
		cmocka_unit_test(test_reclaim_kswapd_low_to_high),
		cmocka_unit_test(test_reclaim_direct_under_writeback_flood),
		cmocka_unit_test(test_reclaim_vm_writeout_throttle_in_jiffies),
		cmocka_unit_test(test_reclaim_too_many_isolated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
