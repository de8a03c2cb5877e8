/* ext4's mballoc (models/fs/mballoc.c) against fs/ext4/mballoc.c (5.10-6.6)
 * worked by hand: ext4_mb_normalize_request's window table, inode
 * preallocation keeping a file contiguous between another file's
 * allocations (and alloc_extent_bytes clipping it), the locality group
 * packing small files, NOPREALLOC for a closed file's tail, and stripe=
 * rounding the group preallocation and aligning a whole-stripe window. */
#include <inttypes.h>

#include "models/block/request.h"
#include "models/fs/fs.h"
#include "tests/models/stack/stack_harness.h"

#define MB_YAML(extra)                                                               \
	"device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"     \
	"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"                    \
	"fs: {kind: ext4, extent_mean_bytes: 1GiB, gap_mean_bytes: 0" extra "}\n"   \
	"writeback: {include: configs/writeback/linux.yaml}\n"

static void expect_norm(uint64_t l, uint64_t len, uint64_t isize, uint64_t start, uint64_t size)
{
	uint64_t st = 99, sz = 99;
	fs_mb_normalize(l, len, isize, &st, &sz);
	assert_int_equal(st, start);
	assert_int_equal(sz, size);
}

static void test_mb_normalize_table(void **state)
{
	(void)state;
	expect_norm(0, 4, 16 << 10, 0, 4);          /* <= 16 KiB: 16 KiB */
	expect_norm(0, 5, 20 << 10, 0, 8);          /* 20 KiB -> 32 KiB */
	expect_norm(0, 25, 100 << 10, 0, 32);       /* 100 KiB -> 128 KiB */
	expect_norm(0, 256, 1 << 20, 0, 256);       /* 1 MiB exactly */
	expect_norm(600, 100, 3 << 20, 512, 512);   /* <= 4 MiB: 2 MiB aligned */
	expect_norm(1100, 100, 6 << 20, 1024, 1024);/* <= 8 MiB: 4 MiB aligned */
	expect_norm(5000, 1024, 64 << 20, 4096, 2048); /* request <= 8 MiB: 8 MiB aligned */
	expect_norm(5000, 4096, 64 << 20, 5000, 4096); /* larger: exactly the request */
}

/* Two 64 MiB files allocated in turn, 1 MiB at a time (as two files'
 * writeback interleaves). With the 8 MiB windows each file is 8 runs; clipped
 * to 4 KiB, each 1 MiB step is its own run: 64. */
static uint32_t interleaved_extents(const char *yaml)
{
	struct sh *h = sh_new(yaml);
	struct stack_file *a = sh_file(h, "a.bin", 0), *b = sh_file(h, "b.bin", 0);
	a->size = b->size = 64u << 20;
	for (uint64_t p = 256; p <= 16384; p += 256) {
		assert_int_equal(fs_mb_alloc_upto(h->st, a, p), 0);
		assert_int_equal(fs_mb_alloc_upto(h->st, b, p), 0);
	}
	assert_int_equal(a->ei.alloc_pages, 16384);
	uint32_t n = a->ei.next_ext;
	sh_free(h);
	return n;
}

static void test_mb_inode_pa_keeps_file_contiguous(void **state)
{
	(void)state;
	assert_int_equal(interleaved_extents(MB_YAML("")), 8);
	assert_int_equal(interleaved_extents(MB_YAML(", alloc_extent_bytes: 4KiB")), 64);
}

/* Three 20 KiB files (5 blocks, <= mb_stream_req): one after the other in
 * the group PA; without it each takes a 32 KiB window and leaves 12 KiB. */
static void small_files(const char *yaml, uint64_t *gap)
{
	struct sh *h = sh_new(yaml);
	struct stack_file *f[3];
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "s%d", i);
		f[i] = sh_file(h, name, 0);
		f[i]->size = 20 << 10;
		assert_int_equal(fs_mb_alloc_upto(h->st, f[i], 5), 0);
		assert_int_equal(f[i]->ei.next_ext, 1);
	}
	gap[0] = fs_map(f[1], 0, NULL) - fs_map(f[0], 0, NULL);
	gap[1] = fs_map(f[2], 0, NULL) - fs_map(f[1], 0, NULL);
	sh_free(h);
}

static void test_mb_group_pa_packs_small_files(void **state)
{
	(void)state;
	uint64_t gap[2];
	small_files(MB_YAML(""), gap);
	assert_int_equal(gap[0], 40); /* 5 blocks of 8 sectors */
	assert_int_equal(gap[1], 40);
	small_files(MB_YAML(", mb_group_prealloc: 0"), gap);
	assert_int_equal(gap[0], 64); /* a 32 KiB window each */
	assert_int_equal(gap[1], 64);
}

/* A 100 KiB file: open, its tail gets a 128 KiB window (7 blocks left
 * preallocated); closed, exactly its 25 blocks. */
static void test_mb_noprealloc_for_closed_tail(void **state)
{
	(void)state;
	struct sh *h = sh_new(MB_YAML(""));
	struct stack_file *o = sh_file(h, "open", 0), *c = sh_file(h, "closed", 0);
	o->size = c->size = 100 << 10;
	c->ei.write_closed = true;
	assert_int_equal(fs_mb_alloc_upto(h->st, o, 25), 0);
	assert_int_equal(fs_mb_alloc_upto(h->st, c, 25), 0);
	assert_int_equal(o->ei.prealloc_left, 7 * 8);
	assert_int_equal(c->ei.prealloc_left, 0);
	assert_int_equal(fs_map(c, 0, NULL) - fs_map(o, 0, NULL), 32 * 8);
	assert_int_equal(h->st->fs.mb.noprealloc_blocks, 25);
	sh_free(h);
}

/* stripe=384: the group PA becomes 768 blocks (the lowest multiple of the
 * stripe not below 512); with stripe=256 an 8 MiB window (2048 blocks, 8
 * stripes) after a 16 KiB one starts on the next stripe boundary. */
static void test_mb_stripe(void **state)
{
	(void)state;
	struct sh *h = sh_new(MB_YAML(", stripe: 384"));
	assert_int_equal(h->st->fs.mb.p.group_prealloc, 768);
	sh_free(h);
	h = sh_new(MB_YAML(", stripe: 256, mb_group_prealloc: 0"));
	struct stack_file *s = sh_file(h, "s", 0), *a = sh_file(h, "a", 0);
	s->size = 12 << 10; /* a 16 KiB window (no group PA): the cursor is off the stripe */
	assert_int_equal(fs_mb_alloc_upto(h->st, s, 3), 0);
	a->size = 64u << 20;
	assert_int_equal(fs_mb_alloc_upto(h->st, a, 256), 0);
	uint64_t rel = fs_map(a, 0, NULL) - h->st->fs.start_sector;
	assert_int_equal(rel % (256 * 8), 0);
	assert_int_equal(h->st->fs.mb.stripe_aligned, 1);
	assert_int_equal(fs_map(a, 0, NULL) - fs_map(s, 0, NULL), 256 * 8);
	sh_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mb_normalize_table),
		cmocka_unit_test(test_mb_inode_pa_keeps_file_contiguous),
		cmocka_unit_test(test_mb_group_pa_packs_small_files),
		cmocka_unit_test(test_mb_noprealloc_for_closed_tail),
		cmocka_unit_test(test_mb_stripe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
