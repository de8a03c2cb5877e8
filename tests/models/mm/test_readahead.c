/* Readahead (mm/readahead.c 3.10) and mmap read-around (mm/filemap.c):
 * window sizes on the device, random reads left alone, read-around centred
 * on the fault, MMAP_LOTSAMISS, and read_ahead_kb = 0. */
#include "tests/models/stack/stack_harness.h"

#define RA_YAML(extra)                                                              \
	"device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"     \
	"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"                    \
	"fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\n"                         \
	"journal: {enabled: false}\n" extra

static void reads_only(struct sh *h)
{
	for (uint32_t i = 0; i < h->nd; i++)
		assert_false(h->d_flags[i] & REQ_WRITE);
}

/* A sequential 4 KiB reader: 16, 32, 64 KiB, then 128 KiB requests. */
static void test_readahead_sequential_ramp_to_128k(void **state)
{
	(void)state;
	struct sh *h = sh_new(RA_YAML(""));
	struct stack_file *f = sh_file(h, "seq", 8 << 20);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 4096, .count = 2048 };
	sh_gen_task(h, "reader", 10001, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	assert_true(g.exited_at > 0);
	reads_only(h);
	assert_true(h->nd >= 4);
	assert_int_equal(h->d_sectors[0], 32);
	assert_int_equal(h->d_sectors[1], 64);
	assert_int_equal(h->d_sectors[2], 128);
	assert_int_equal(h->d_sectors[3], 256);
	uint64_t big = 0, total = 0;
	for (uint32_t i = 0; i < h->nd; i++) {
		total += h->d_sectors[i];
		if (h->d_sectors[i] == 256)
			big += 256;
	}
	assert_int_equal(total, (8 << 20) / 512);
	assert_true(big * 100 >= total * 95);
	/* the first request starts at the file's first block */
	assert_int_equal(h->d_sector[0], stack_file_lba(f, 0));
	sh_free(h);
}

/* Small reads far apart: no readahead, one page per request. */
static void test_readahead_random_reads_stay_small(void **state)
{
	(void)state;
	struct sh *h = sh_new(RA_YAML(""));
	struct stack_file *f = sh_file(h, "rnd", 256 << 20);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 4096, .count = 200,
			    .stride = (1 << 20) + 3 * 4096, .wrap = 256 << 20 };
	sh_gen_task(h, "reader", 10001, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	reads_only(h);
	assert_int_equal(h->nd, 200);
	/* offset 0 always starts a window (ondemand_readahead: !offset) */
	assert_int_equal(h->d_sectors[0], 32);
	for (uint32_t i = 1; i < h->nd; i++)
		assert_int_equal(h->d_sectors[i], 8);
	sh_free(h);
}

/* A fault reads ra_pages around the faulting page (start = index - 16). */
static void test_readahead_fault_readaround_centred(void **state)
{
	(void)state;
	struct sh *h = sh_new(RA_YAML(""));
	struct stack_file *f = sh_file(h, "lib.so", 8 << 20);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_FAULT, f, 4 << 20, 4096, 0);
	sh_op(&s, STACK_OP_FAULT, f, (4 << 20) + 4 * 4096, 4096, 0); /* inside the window: hit */
	sh_script_task(h, "app", 10001, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->nd, 1);
	assert_int_equal(h->d_sectors[0], 256);
	assert_int_equal(h->d_sector[0], stack_file_lba(f, (1024 - 16) * 4096ull));
	assert_int_equal(h->st->pc.hits, 1);
	assert_int_equal(h->st->pc.misses, 1);
	sh_free(h);

	/* touching the PG_readahead page (window end - async_size = +8)
	 * starts the next window asynchronously */
	h = sh_new(RA_YAML(""));
	f = sh_file(h, "lib.so", 8 << 20);
	struct sh_script s2 = { 0 };
	sh_op(&s2, STACK_OP_FAULT, f, 4 << 20, 4096, 0);
	sh_op(&s2, STACK_OP_FAULT, f, (4 << 20) + 8 * 4096, 4096, 0);
	sh_script_task(h, "app", 10001, 0, &s2);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->nd, 2);
	assert_int_equal(h->d_sector[1], stack_file_lba(f, (1024 + 16) * 4096ull));
	sh_free(h);
}

/* After MMAP_LOTSAMISS (100) more misses than hits read-around stops. */
static void test_readahead_mmap_lotsamiss_stops_readaround(void **state)
{
	(void)state;
	struct sh *h = sh_new(RA_YAML(""));
	struct stack_file *f = sh_file(h, "big.apk", 256 << 20);
	struct sh_gen g = { .kind = STACK_OP_FAULT, .f = f, .len = 4096, .count = 130,
			    .stride = (3 << 19) + 4096, .wrap = 256 << 20 };
	sh_gen_task(h, "app", 10001, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->nd, 130);
	for (uint32_t i = 0; i < 100; i++)
		assert_int_equal(h->d_sectors[i], 256);
	for (uint32_t i = 101; i < 130; i++)
		assert_int_equal(h->d_sectors[i], 8);
	sh_free(h);
}

/* read_ahead_kb = 0: every page is its own request. */
static void test_readahead_disabled_reads_pages(void **state)
{
	(void)state;
	struct sh *h = sh_new(RA_YAML("readahead: {read_ahead_kib: 0}\n"));
	struct stack_file *f = sh_file(h, "seq", 1 << 20);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 4096, .count = 256 };
	sh_gen_task(h, "reader", 10001, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->nd, 256);
	for (uint32_t i = 0; i < h->nd; i++)
		assert_int_equal(h->d_sectors[i], 8);
	sh_free(h);
}

/* A larger read_ahead_kb lets the window grow further. */
static void test_readahead_window_follows_read_ahead_kb(void **state)
{
	(void)state;
	struct sh *h = sh_new(RA_YAML("readahead: {read_ahead_kib: 512}\nblock: {}\n"));
	struct stack_file *f = sh_file(h, "seq", 16 << 20);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 4096, .count = 4096 };
	sh_gen_task(h, "reader", 10001, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	uint32_t maxs = 0;
	for (uint32_t i = 0; i < h->nd; i++)
		if (h->d_sectors[i] > maxs)
			maxs = h->d_sectors[i];
	assert_int_equal(maxs, 1024); /* 512 KiB windows (also the bio limit) */
	sh_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readahead_sequential_ramp_to_128k),
		cmocka_unit_test(test_readahead_random_reads_stay_small),
		cmocka_unit_test(test_readahead_fault_readaround_centred),
		cmocka_unit_test(test_readahead_mmap_lotsamiss_stops_readaround),
		cmocka_unit_test(test_readahead_disabled_reads_pages),
		cmocka_unit_test(test_readahead_window_follows_read_ahead_kb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
