/* Sector mapping of arrays (models/md/md_map.c) against the kernel's
 * arithmetic worked by hand: dm-stripe's stripe_map_sector / raid0's
 * map_sector for one zone (chunk i on member i mod n at (i / n) * chunk),
 * the split length at a chunk end (raid0_make_request), power-of-two and
 * other chunk sizes, physical_start offsets, the smallest member bounding a
 * stripe, dm-linear's targets end to end and the end of the array. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "models/md/md_map.h"

static void expect_map(const struct md_map *map, uint64_t sector, uint32_t member,
		       uint64_t msector, uint64_t max_len)
{
	uint32_t i = 99;
	uint64_t ms = 0, max = 0;
	assert_true(md_map_sector(map, sector, &i, &ms, &max));
	assert_int_equal(i, member);
	assert_int_equal(ms, msector);
	assert_int_equal(max, max_len);
}

/* Two members, 512 KiB = 1024-sector chunks. */
static void test_stripe_two_members(void **state)
{
	(void)state;
	struct md_member_map m[2];
	struct md_map map;
	uint64_t sz[2] = { 1u << 20, 1u << 20 };
	assert_int_equal(md_map_init(&map, MD_STRIPE, 2, 1024, sz, NULL, m), 0);
	assert_int_equal(map.sectors, 2u << 20);
	expect_map(&map, 0, 0, 0, 1024);
	expect_map(&map, 1023, 0, 1023, 1);        /* last sector of chunk 0 */
	expect_map(&map, 1024, 1, 0, 1024);        /* chunk 1: member 1, its first chunk */
	expect_map(&map, 2048, 0, 1024, 1024);     /* chunk 2: member 0, its second chunk */
	expect_map(&map, 3000, 0, 1024 + 952, 72); /* chunk 2 (2048..3071): 72 left */
}

/* Three members, 64 KiB chunks: member = chunk mod 3, row = chunk / 3. */
static void test_stripe_chunk_index(void **state)
{
	(void)state;
	struct md_member_map m[3];
	struct md_map map;
	uint64_t sz[3] = { 10240, 10240, 10240 };
	assert_int_equal(md_map_init(&map, MD_STRIPE, 3, 128, sz, NULL, m), 0);
	/* sector 1000: chunk 7 (896..1023), member 7 % 3 = 1, row 7 / 3 = 2,
	 * sector on member 2 * 128 + 104 = 360, 24 sectors left in the chunk */
	expect_map(&map, 1000, 1, 360, 24);
	/* sector 384: chunk 3 -> member 0, row 1 */
	expect_map(&map, 384, 0, 128, 128);
}

/* A chunk that is no power of two (both drivers' sector_div path): 96 sectors. */
static void test_stripe_non_power_of_two(void **state)
{
	(void)state;
	struct md_member_map m[2];
	struct md_map map;
	uint64_t sz[2] = { 960, 1000 };
	assert_int_equal(md_map_init(&map, MD_STRIPE, 2, 96, sz, NULL, m), 0);
	/* smallest member 960 = 10 chunks, the other bounded to it */
	assert_int_equal(map.sectors, 1920);
	/* sector 500: chunk 5 (480..575), member 1, row 2: 192 + 20, 76 left */
	expect_map(&map, 500, 1, 212, 76);
	uint32_t i;
	uint64_t ms, max;
	assert_false(md_map_sector(&map, 1920, &i, &ms, &max));
}

/* physical_start: a member's part begins past its offset. */
static void test_stripe_offsets(void **state)
{
	(void)state;
	struct md_member_map m[2];
	struct md_map map;
	uint64_t sz[2] = { 4096, 4096 }, off[2] = { 2048, 8 };
	assert_int_equal(md_map_init(&map, MD_STRIPE, 2, 1024, sz, off, m), 0);
	expect_map(&map, 10, 0, 2058, 1014);
	expect_map(&map, 1030, 1, 14, 1018);
}

/* Members smaller than a chunk leave nothing; zero chunk or members refused. */
static void test_stripe_refuses_degenerate(void **state)
{
	(void)state;
	struct md_member_map m[2];
	struct md_map map;
	uint64_t sz[2] = { 512, 4096 };
	assert_int_equal(md_map_init(&map, MD_STRIPE, 2, 1024, sz, NULL, m), -1);
	assert_int_equal(md_map_init(&map, MD_STRIPE, 2, 0, sz, NULL, m), -1);
	assert_int_equal(md_map_init(&map, MD_STRIPE, 0, 8, sz, NULL, m), -1);
}

/* dm-linear: members end to end of different sizes; a piece ends at its member's end. */
static void test_linear_concatenates(void **state)
{
	(void)state;
	struct md_member_map m[3];
	struct md_map map;
	uint64_t sz[3] = { 1000, 24, 5000 }, off[3] = { 0, 100, 0 };
	assert_int_equal(md_map_init(&map, MD_LINEAR, 3, 0, sz, off, m), 0);
	assert_int_equal(map.sectors, 6024);
	expect_map(&map, 0, 0, 0, 1000);
	expect_map(&map, 999, 0, 999, 1);
	expect_map(&map, 1000, 1, 100, 24);
	expect_map(&map, 1023, 1, 123, 1);
	expect_map(&map, 1024, 2, 0, 5000);
	expect_map(&map, 6023, 2, 4999, 1);
	uint32_t i;
	uint64_t ms, max;
	assert_false(md_map_sector(&map, 6024, &i, &ms, &max));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stripe_two_members),
		cmocka_unit_test(test_stripe_chunk_index),
		cmocka_unit_test(test_stripe_non_power_of_two),
		cmocka_unit_test(test_stripe_offsets),
		cmocka_unit_test(test_stripe_refuses_degenerate),
		cmocka_unit_test(test_linear_concatenates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
