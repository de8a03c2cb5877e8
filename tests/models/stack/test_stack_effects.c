/* The effects the upper stack must reproduce, on the
 * real block layer, CFQ and the UFS 2.0 preset:
 *  - a foreground launch is much slower next to a background buffered writer;
 *  - page-cache lock waits are zero without contention and grow with the
 *    writer's rate;
 *  - fsync while the flusher has the file's pages under writeback waits on
 *    writeback (and calls the on_wait_writeback hook with the page's LBA);
 *  - dirty throttling caps dirty memory at dirty_ratio;
 *  - readahead turns a sequential 4 KiB reader into 128 KiB requests. */
#include "tests/models/stack/stack_harness.h"

#define UFS "device: {include: configs/devices/ufs20.yaml}\nscheduler: cfq\n"

static int64_t launch_time(bool with_bg)
{
	struct cfg_doc *doc = NULL;
	struct sim_error err = { 0 };
	struct sim *s = NULL;
	if (cfg_load_file("configs/scenarios/launch-demo.yaml", &doc, &err))
		fail_msg("%s", err.msg);
	if (!with_bg && cfg_set(doc, "workload.tasks.bg.enabled=false", &err))
		fail_msg("%s", err.msg);
	struct sim_options opt = { .quiet = true };
	if (sim_create(doc, "configs/scenarios/launch-demo.yaml", &opt, &s, &err))
		fail_msg("%s", err.msg);
	if (sim_run(s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s->metrics.nregions, 1);
	assert_string_equal(s->metrics.regions[0].name, "launch");
	int64_t d = s->metrics.regions[0].duration_ns;
	if (with_bg) /* the slowdown has causes in the waits table */
		assert_true(s->metrics.cls[SIM_CLASS_FG].wait[SIM_WAIT_READ_IO].total_ns > 0);
	sim_destroy(s);
	return d;
}

static void test_stack_effects_launch_slower_with_bg_writer(void **state)
{
	(void)state;
	int64_t alone = launch_time(false), bg = launch_time(true);
	assert_true(alone > 0);
	assert_true(bg >= 2 * alone);
}

/* FG reader plus a BG writer at rate r; returns the FG's lock wait. */
static int64_t fg_lock_wait(double rate_bps)
{
	struct sh *h = sh_new("device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 4}\n"
			      "memory: {total_bytes: 3GiB, reserved_bytes: 1GiB}\n"
			      "journal: {enabled: false}\nfg: 10050\n"
			      "pagecache_lock: {lru_add_batch_ns: 2000, lru_add_page_ns: 500}\n");
	struct stack_file *in = sh_file(h, "photos.db", 32 << 20);
	struct stack_file *out = sh_file(h, "bg.bin", 0);
	struct sh_gen r = { .kind = STACK_OP_READ, .f = in, .len = 4096, .count = 8192 };
	struct sh_gen w = { .kind = STACK_OP_WRITE, .f = out, .len = 64 << 10, .count = 512,
			    .rate_bps = rate_bps };
	sh_gen_task(h, "photos", 10050, 0, &r);
	if (rate_bps > 0)
		sh_gen_task(h, "bgwriter", 10060, 0, &w);
	sh_run(h, SIM_TIME_MAX);
	assert_true(r.exited_at > 0);
	int64_t wfg = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_PAGECACHE_LOCK);
	assert_int_equal(wfg, h->st->lock.l.wait_cls_ns[SIM_CLASS_FG]);
	sh_free(h);
	return wfg;
}

static void test_stack_effects_lock_waits_grow_with_writer_rate(void **state)
{
	(void)state;
	int64_t none = fg_lock_wait(0);
	int64_t slow = fg_lock_wait(50e6);
	int64_t fast = fg_lock_wait(1000e6);
	assert_int_equal(none, 0);
	assert_true(slow > 0);
	assert_true(fast > 2 * slow);
}

static int hook_calls;
static uint64_t hook_lba_min, hook_lba_max;

static void count_hook(struct stack_task *t, uint64_t lba, void *ctx)
{
	(void)t;
	(void)ctx;
	hook_calls++;
	if (lba < hook_lba_min)
		hook_lba_min = lba;
	if (lba > hook_lba_max)
		hook_lba_max = lba;
}

/* An app writes 32 MiB; the background threshold is tiny, so the flusher
 * puts its pages under async writeback while it writes; its fsync must
 * then wait on those pages (cause writeback), calling the hook. */
static void fsync_case(bool flusher_busy, int64_t *wb_wait, int64_t *own_wait, int *calls,
		       uint64_t *lba_lo, uint64_t *lba_hi, struct stack_file **fout)
{
	struct sh *h = sh_new(flusher_busy
				      ? UFS "fg: 10050\nwriteback: {dirty_background_bytes: 1MiB}\n"
				      : UFS "fg: 10050\nwriteback: {include: configs/writeback/linux.yaml}\n");
	hook_calls = 0;
	hook_lba_min = UINT64_MAX;
	hook_lba_max = 0;
	stack_hooks(h->st)->on_wait_writeback = count_hook;
	struct stack_file *f = sh_file(h, "video.mp4", 0);
	struct sh_script s = { 0 };
	for (int i = 0; i < 64; i++)
		sh_op(&s, STACK_OP_WRITE, f, (uint64_t)i << 19, 512 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "camera", 10050, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_true(s.exited_at > 0);
	assert_int_equal(h->sim->metrics.cls[SIM_CLASS_FG].op[SIM_OP_FSYNC].count, 1);
	*wb_wait = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_WRITEBACK);
	*own_wait = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_FSYNC_IO);
	*calls = hook_calls;
	*lba_lo = hook_lba_min;
	*lba_hi = hook_lba_max;
	uint64_t first = stack_file_lba(f, 0), last = stack_file_lba(f, (32u << 20) - 4096);
	if (hook_calls) {
		assert_true(hook_lba_min >= first);
		assert_true(hook_lba_max <= last);
	}
	*fout = NULL;
	sh_free(h);
}

static void test_stack_effects_fsync_waits_on_async_writeback(void **state)
{
	(void)state;
	int64_t wb, own;
	int calls;
	uint64_t lo, hi;
	struct stack_file *f;
	fsync_case(true, &wb, &own, &calls, &lo, &hi, &f);
	assert_true(wb > 0);
	assert_true(calls > 0);
	/* the same fsync with nothing under async writeback: only its own I/O */
	fsync_case(false, &wb, &own, &calls, &lo, &hi, &f);
	assert_int_equal(wb, 0);
	assert_int_equal(calls, 0);
	assert_true(own > 0);
}

static void test_stack_effects_throttle_caps_dirty(void **state)
{
	(void)state;
	struct sh *h = sh_new(UFS "memory: {total_bytes: 1GiB, reserved_bytes: 512MiB}\n"
			      "writeback: {include: configs/writeback/android.yaml}\n");
	struct stack_file *f = sh_file(h, "bg.bin", 0);
	struct sh_gen w = { .kind = STACK_OP_WRITE, .f = f, .len = 512 << 10, .count = 768 };
	sh_gen_task(h, "bgwriter", 10060, 0, &w);
	sh_run(h, SIM_TIME_MAX);
	assert_true(w.exited_at > 0);
	uint64_t thresh = h->st->wb.thresh;
	assert_int_equal(thresh, h->st->pc.capacity * 20 / 100);
	assert_true(h->st->wb.peak_dirty <= thresh + thresh / 50);
	assert_true(h->st->wb.peak_dirty >= thresh * 6 / 10);
	assert_true(sh_wait(h, SIM_CLASS_BG, SIM_WAIT_DIRTY_THROTTLE) > 0);
	sh_free(h);
}

static void test_stack_effects_readahead_makes_128k_requests(void **state)
{
	(void)state;
	struct sh *h = sh_new(UFS "fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\n");
	struct stack_file *f = sh_file(h, "app.apk", 16 << 20);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 4096, .count = 4096 };
	sh_gen_task(h, "reader", 10050, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	uint64_t total = 0, big = 0;
	for (uint32_t i = 0; i < h->nd; i++) {
		if (h->d_flags[i] & REQ_WRITE)
			continue;
		total += h->d_sectors[i];
		if (h->d_sectors[i] == 256)
			big += 256;
	}
	assert_int_equal(total, (16u << 20) / 512);
	assert_true(big * 100 >= total * 95);
	sh_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_effects_launch_slower_with_bg_writer),
		cmocka_unit_test(test_stack_effects_lock_waits_grow_with_writer_rate),
		cmocka_unit_test(test_stack_effects_fsync_waits_on_async_writeback),
		cmocka_unit_test(test_stack_effects_throttle_caps_dirty),
		cmocka_unit_test(test_stack_effects_readahead_makes_128k_requests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
