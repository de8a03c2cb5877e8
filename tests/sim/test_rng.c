/* Named random streams: reproducible per (seed, name), independent of each
 * other and of creation order, so adding a consumer shifts nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim/rng.h"

#define N 64

static void draw(gsl_rng *r, unsigned long *out)
{
	for (int i = 0; i < N; i++)
		out[i] = gsl_rng_get(r);
}

static void test_rng_same_seed_same_sequence(void **state)
{
	struct sim_rng_set *a = sim_rng_set_new(42), *b = sim_rng_set_new(42);
	unsigned long x[N], y[N];
	draw(sim_rng_stream(a, "device"), x);
	draw(sim_rng_stream(b, "device"), y);
	assert_memory_equal(x, y, sizeof(x));
	sim_rng_set_free(a);
	sim_rng_set_free(b);
}

static void test_rng_adding_a_consumer_shifts_nothing(void **state)
{
	struct sim_rng_set *a = sim_rng_set_new(7), *b = sim_rng_set_new(7);
	unsigned long x[N], y[N], junk[N];
	draw(sim_rng_stream(a, "workload"), x);
	/* b creates another stream first and draws from it heavily. */
	for (int i = 0; i < 100; i++)
		draw(sim_rng_stream(b, "newcomer"), junk);
	draw(sim_rng_stream(b, "workload"), y);
	assert_memory_equal(x, y, sizeof(x));
	sim_rng_set_free(a);
	sim_rng_set_free(b);
}

static void test_rng_streams_differ_by_name_and_seed(void **state)
{
	struct sim_rng_set *a = sim_rng_set_new(7), *b = sim_rng_set_new(8);
	unsigned long x[N], y[N], z[N];
	draw(sim_rng_stream(a, "one"), x);
	draw(sim_rng_stream(a, "two"), y);
	draw(sim_rng_stream(b, "one"), z);
	assert_memory_not_equal(x, y, sizeof(x));
	assert_memory_not_equal(x, z, sizeof(x));
	assert_ptr_equal(sim_rng_stream(a, "one"), sim_rng_stream(a, "one"));
	assert_int_not_equal(sim_rng_derive_seed(1, "a"), sim_rng_derive_seed(1, "b"));
	assert_int_not_equal(sim_rng_derive_seed(1, "a"), sim_rng_derive_seed(2, "a"));
	sim_rng_set_free(a);
	sim_rng_set_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_same_seed_same_sequence),
		cmocka_unit_test(test_rng_adding_a_consumer_shifts_nothing),
		cmocka_unit_test(test_rng_streams_differ_by_name_and_seed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
