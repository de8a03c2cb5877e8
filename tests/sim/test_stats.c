/* Tests for sim/stats.c: bucket geometry, percentile accuracy against exact
 * nearest-rank percentiles of sorted samples, exact moments, the parallel
 * variance merge, edge cases (empty, negative, 2^62) and the fio-like JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "sim/stats.h"

static const double fio_plist[] = {
	1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0,
	80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
};
#define FIO_NP (sizeof(fio_plist) / sizeof(fio_plist[0]))

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Exact nearest-rank percentile of sorted v[0..n): v[ceil(p/100 n) - 1].
 * The rank is computed in integers from p in millionths so that the test
 * does not share the implementation's rounding. */
static int64_t exact_pct(const int64_t *v, size_t n, double p)
{
	uint64_t pm = (uint64_t)llround(p * 1e6);
	uint64_t r = (uint64_t)((pm * (unsigned __int128)n + 99999999u) / 100000000u);
	if (r < 1)
		r = 1;
	return v[r - 1];
}

/* ---- bucket geometry -------------------------------------------------- */

static void test_stats_small_values_exact(void **state)
{
	/* values below 2^SUB_BITS (in fact below 2^(SUB_BITS+1)) have their own bucket */
	for (uint64_t v = 0; v < 2 * STATS_SUB_BUCKETS; v++) {
		assert_int_equal(stats_bucket_of(v), v);
		assert_int_equal(stats_bucket_mid(stats_bucket_of(v)), v);
	}
	/* every percentile of 0..199 (one each) is the exact sample */
	struct stats_dist d;
	stats_dist_init(&d);
	for (int64_t v = 199; v >= 0; v--)
		assert_int_equal(stats_dist_add(&d, v), 0);
	for (int k = 1; k <= 200; k++)
		assert_int_equal(stats_dist_percentile(&d, k * 0.5), k - 1);
	stats_dist_free(&d);
}

static void test_stats_bucket_geometry(void **state)
{
	/* indices are monotone and contiguous across group boundaries */
	uint32_t prev = 0;
	for (uint64_t v = 1; v < (1u << 20); v++) {
		uint32_t b = stats_bucket_of(v);
		assert_true(b == prev || b == prev + 1);
		prev = b;
	}
	assert_int_equal(stats_bucket_of(UINT64_MAX), STATS_NBUCKETS - 1);
	assert_true(stats_bucket_of(INT64_MAX) < STATS_NBUCKETS);
	/* each bucket's midpoint maps back to it and is within 2^-(SUB_BITS+1)
	 * of both ends of the bucket */
	for (uint32_t i = 0; i < STATS_NBUCKETS; i++) {
		uint64_t mid = stats_bucket_mid(i);
		assert_int_equal(stats_bucket_of(mid), i);
	}
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 3);
	for (int k = 0; k < 100000; k++) {
		/* log-uniform over [1, 2^62] */
		uint64_t v = (uint64_t)ldexp(1.0, (int)gsl_rng_uniform_int(r, 62)) +
			     gsl_rng_uniform_int(r, 1ul << 31);
		double mid = (double)stats_bucket_mid(stats_bucket_of(v));
		assert_true(fabs(mid - (double)v) <= (double)v / (2.0 * STATS_SUB_BUCKETS));
	}
	gsl_rng_free(r);
}

/* The CDF at bucket edges: each edge is the largest value of its bucket
 * (the next value starts the next bucket), the counts are exact against a
 * brute-force count of the samples, and the last point is (max, n). */
static void test_stats_cdf(void **state)
{
	(void)state;
	struct stats_dist d;
	stats_dist_init(&d);
	assert_int_equal(stats_dist_cdf(&d, NULL, NULL, 0), 0);
	for (uint32_t i = 0; i + 1 < STATS_NBUCKETS; i++)
		assert_int_equal(stats_bucket_of(stats_bucket_hi(i) + 1), i + 1);
	enum { N = 20000 };
	int64_t *v = malloc(N * sizeof(*v));
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 5);
	for (int k = 0; k < N; k++) {
		v[k] = (int64_t)(gsl_ran_exponential(r, 2e6) + 100);
		assert_int_equal(stats_dist_add(&d, v[k]), 0);
	}
	size_t n = stats_dist_cdf(&d, NULL, NULL, 0);
	assert_true(n > 100 && n < STATS_NBUCKETS);
	int64_t *x = malloc(n * sizeof(*x));
	uint64_t *cum = malloc(n * sizeof(*cum));
	assert_int_equal(stats_dist_cdf(&d, x, cum, n), n);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = 0;
		for (int k = 0; k < N; k++)
			c += v[k] <= x[i];
		assert_int_equal(c, cum[i]);
		if (i)
			assert_true(x[i] > x[i - 1] && cum[i] > cum[i - 1]);
	}
	assert_int_equal(x[n - 1], d.max);
	assert_int_equal(cum[n - 1], N);
	free(x);
	free(cum);
	free(v);
	gsl_rng_free(r);
	stats_dist_free(&d);
}

/* ---- accuracy --------------------------------------------------------- */

enum sample_kind { UNIFORM, EXPONENTIAL, LOGNORMAL };

static void check_accuracy(enum sample_kind kind, unsigned long seed)
{
	enum { N = 100000 };
	int64_t *v = malloc(N * sizeof(*v));
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	struct stats_dist d;
	stats_dist_init(&d);
	__int128 sum = 0;

	for (size_t i = 0; i < N; i++) {
		double x;
		switch (kind) {
		case UNIFORM: x = 1000.0 + gsl_rng_uniform(r) * 1e6; break;  /* ns */
		case EXPONENTIAL: x = gsl_ran_exponential(r, 2e5); break;   /* mean 200 us */
		default: x = gsl_ran_lognormal(r, log(1e5), 1.5); break;     /* heavy tail */
		}
		v[i] = (int64_t)x;
		sum += v[i];
		assert_int_equal(stats_dist_add(&d, v[i]), 0);
	}
	/* two-pass reference variance */
	long double mean = (long double)sum / N, ss = 0;
	for (size_t i = 0; i < N; i++)
		ss += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	double sd = (double)sqrtl(ss / N);

	qsort(v, N, sizeof(*v), cmp_i64);
	assert_int_equal(d.n, N);
	assert_true(d.sum == sum);
	assert_int_equal(d.min, v[0]);
	assert_int_equal(d.max, v[N - 1]);
	assert_true(stats_dist_mean(&d) == (double)mean);
	assert_true(fabs(stats_dist_stddev(&d) - sd) <= 1e-9 * sd);
	assert_int_equal(stats_dist_percentile(&d, 100.0), v[N - 1]);

	for (size_t k = 0; k < FIO_NP; k++) {
		double ex = (double)exact_pct(v, N, fio_plist[k]);
		double got = (double)stats_dist_percentile(&d, fio_plist[k]);
		/* the bucket bound is 0.39 %; 1 % is the contract */
		assert_true(fabs(got - ex) <= 0.01 * ex);
		assert_true(fabs(got - ex) <= ex / (2.0 * STATS_SUB_BUCKETS) + 1.0);
	}
	stats_dist_free(&d);
	gsl_rng_free(r);
	free(v);
}

static void test_stats_accuracy_uniform(void **state) { check_accuracy(UNIFORM, 11); }
static void test_stats_accuracy_exponential(void **state) { check_accuracy(EXPONENTIAL, 12); }
static void test_stats_accuracy_lognormal(void **state) { check_accuracy(LOGNORMAL, 13); }

/* The variance must not cancel for a large offset with a tiny spread,
 * even when the first sample (the initial shift) is an outlier. */
static void test_stats_stddev_large_offset(void **state)
{
	enum { N = 1 << 17 };
	int64_t *v = malloc(N * sizeof(*v));
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 21);
	struct stats_dist d;
	stats_dist_init(&d);
	__int128 sum = 0;
	for (int i = 0; i < N; i++) {
		v[i] = i == 0 ? 0 : INT64_C(1000000000000000) + (int64_t)gsl_rng_uniform_int(r, 100);
		sum += v[i];
		stats_dist_add(&d, v[i]);
	}
	long double mean = (long double)sum / N, ss = 0;
	for (int i = 0; i < N; i++)
		ss += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	double sd = (double)sqrtl(ss / N); /* ~2.8e12 from the outlier */
	assert_true(fabs(stats_dist_stddev(&d) - sd) <= 1e-9 * sd);

	/* without the outlier: sd ~ 28.9 on top of 1e15 */
	stats_dist_reset(&d);
	sum = 0;
	for (int i = 1; i < N; i++) {
		sum += v[i];
		stats_dist_add(&d, v[i]);
	}
	mean = (long double)sum / (N - 1);
	ss = 0;
	for (int i = 1; i < N; i++)
		ss += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	sd = (double)sqrtl(ss / (N - 1));
	assert_true(sd > 28 && sd < 30);
	assert_true(fabs(stats_dist_stddev(&d) - sd) <= 1e-9 * sd);

	/* constant samples have no spread at all */
	stats_dist_reset(&d);
	for (int i = 0; i < 1000; i++)
		stats_dist_add(&d, INT64_C(1) << 62);
	assert_true(stats_dist_stddev(&d) == 0.0);
	stats_dist_free(&d);
	gsl_rng_free(r);
	free(v);
}

/* fio's nearest rank: with 1000 samples p99.9 is the 999th, not the
 * 1000th, even though 99.9 is not exact in binary. */
static void test_stats_nearest_rank(void **state)
{
	struct stats_dist d;
	stats_dist_init(&d);
	for (int i = 0; i < 998; i++)
		stats_dist_add(&d, 10);
	stats_dist_add(&d, 100);
	stats_dist_add(&d, 200);
	assert_int_equal(stats_dist_percentile(&d, 99.8), 10);   /* rank 998 */
	assert_int_equal(stats_dist_percentile(&d, 99.85), 100); /* rank ceil(998.5) = 999 */
	assert_int_equal(stats_dist_percentile(&d, 99.9), 100);  /* rank 999 */
	assert_int_equal(stats_dist_percentile(&d, 99.95), 200); /* rank 1000 */
	assert_int_equal(stats_dist_percentile(&d, 100.0), 200);
	assert_int_equal(stats_dist_percentile(&d, 0.0001), 10); /* rank at least 1 */
	assert_int_equal(stats_dist_percentile(&d, 50.0), 10);
	stats_dist_free(&d);
}

/* Percentiles are bucket midpoints clamped to [min, max]: a single sample
 * of a wide bucket reports itself, not the midpoint. */
static void test_stats_midpoint_clamped(void **state)
{
	struct stats_dist d;
	stats_dist_init(&d);
	int64_t v = 1000003; /* bucket width 2^12 here */
	stats_dist_add(&d, v);
	assert_true(stats_bucket_mid(stats_bucket_of((uint64_t)v)) != (uint64_t)v);
	assert_int_equal(stats_dist_percentile(&d, 50.0), v);
	assert_int_equal(stats_dist_percentile(&d, 99.0), v);
	stats_dist_free(&d);
}

/* ---- merge ------------------------------------------------------------ */

static void test_stats_merge_halves_equals_whole(void **state)
{
	enum { N = 50000 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 5);
	struct stats_dist whole, a, b, empty;
	stats_dist_init(&whole);
	stats_dist_init(&a);
	stats_dist_init(&b);
	stats_dist_init(&empty);
	for (int i = 0; i < N; i++) {
		/* halves with very different means stress the merge term */
		int64_t x = i < N / 2 ? (int64_t)gsl_ran_exponential(r, 1e4)
				      : (int64_t)gsl_ran_lognormal(r, log(5e6), 0.5);
		stats_dist_add(&whole, x);
		stats_dist_add(i < N / 2 ? &a : &b, x);
	}
	assert_int_equal(stats_dist_merge(&a, &empty), 0); /* no-op */
	assert_int_equal(stats_dist_merge(&a, &b), 0);
	assert_int_equal(a.n, whole.n);
	assert_true(a.sum == whole.sum);
	assert_int_equal(a.min, whole.min);
	assert_int_equal(a.max, whole.max);
	assert_memory_equal(a.buckets, whole.buckets, STATS_NBUCKETS * sizeof(uint64_t));
	assert_true(stats_dist_mean(&a) == stats_dist_mean(&whole));
	double sw = stats_dist_stddev(&whole);
	assert_true(fabs(stats_dist_stddev(&a) - sw) <= 1e-9 * sw);
	for (size_t k = 0; k < FIO_NP; k++)
		assert_int_equal(stats_dist_percentile(&a, fio_plist[k]),
				 stats_dist_percentile(&whole, fio_plist[k]));

	/* merging into an empty distribution copies */
	assert_int_equal(stats_dist_merge(&empty, &whole), 0);
	assert_int_equal(empty.n, whole.n);
	assert_int_equal(empty.min, whole.min);
	assert_true(stats_dist_stddev(&empty) == sw);
	assert_memory_equal(empty.buckets, whole.buckets, STATS_NBUCKETS * sizeof(uint64_t));

	/* reset forgets samples, keeps the array */
	stats_dist_reset(&a);
	assert_int_equal(a.n, 0);
	assert_non_null(a.buckets);
	assert_int_equal(stats_dist_percentile(&a, 50.0), 0);
	stats_dist_add(&a, 7);
	assert_int_equal(stats_dist_percentile(&a, 50.0), 7);
	assert_int_equal(a.min, 7);

	stats_dist_free(&whole);
	stats_dist_free(&a);
	stats_dist_free(&b);
	stats_dist_free(&empty);
	gsl_rng_free(r);
}

/* ---- edge cases ------------------------------------------------------- */

static void test_stats_empty(void **state)
{
	struct stats_dist d;
	stats_dist_init(&d);
	assert_null(d.buckets); /* allocated on first use only */
	assert_int_equal(d.n, 0);
	assert_true(stats_dist_mean(&d) == 0.0);
	assert_true(stats_dist_stddev(&d) == 0.0);
	assert_int_equal(stats_dist_percentile(&d, 50.0), 0);
	json_t *j = stats_dist_to_json(&d);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "N")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "max")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "p99")), 0);
	assert_true(json_is_real(json_object_get(j, "mean")));
	json_decref(j);
	stats_dist_free(&d);
}

static void test_stats_huge_values(void **state)
{
	struct stats_dist d;
	stats_dist_init(&d);
	const int64_t big = INT64_C(1) << 62;
	for (int i = 0; i < 4; i++)
		stats_dist_add(&d, big + i);
	stats_dist_add(&d, INT64_MAX);
	stats_dist_add(&d, 1);
	assert_int_equal(d.n, 6);
	assert_true(d.sum == (__int128)4 * big + 6 + INT64_MAX + 1);
	assert_int_equal(d.min, 1);
	assert_int_equal(d.max, INT64_MAX);
	assert_int_equal(stats_dist_percentile(&d, 100.0), INT64_MAX);
	assert_int_equal(stats_dist_percentile(&d, 10.0), 1);
	int64_t p50 = stats_dist_percentile(&d, 50.0);
	assert_true(fabs((double)p50 - (double)big) <= (double)big / 256.0);
	double mean = stats_dist_mean(&d);
	assert_true(fabs(mean - (4.0 * (double)big + (double)INT64_MAX) / 6.0) <= 1e-12 * mean);
	assert_true(isfinite(stats_dist_stddev(&d)) && stats_dist_stddev(&d) > 0);
	json_t *j = stats_dist_to_json(&d);
	assert_int_equal(json_integer_value(json_object_get(j, "max")), INT64_MAX);
	json_decref(j);
	stats_dist_free(&d);
}

static void test_stats_negative_clamped(void **state)
{
	struct stats_dist d;
	stats_dist_init(&d);
	stats_dist_add(&d, -5);
	stats_dist_add(&d, INT64_MIN);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.min, 0);
	assert_int_equal(d.max, 0);
	assert_true(d.sum == 0);
	assert_int_equal(stats_dist_percentile(&d, 99.0), 0);
	stats_dist_add(&d, 10);
	assert_int_equal(d.min, 0);
	assert_int_equal(d.max, 10);
	stats_dist_free(&d);
}

/* ---- JSON ------------------------------------------------------------- */

static void test_stats_json_keys(void **state)
{
	struct stats_dist d;
	stats_dist_init(&d);
	for (int64_t v = 1; v <= 100000; v++)
		stats_dist_add(&d, v * 100);
	json_t *j = stats_dist_to_json(&d);
	assert_non_null(j);
	const char *ints[] = { "N", "min", "max", "p50", "p90", "p99", "p999" };
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		assert_true(json_is_integer(json_object_get(j, ints[i])));
	assert_true(json_is_real(json_object_get(j, "mean")));
	assert_true(json_is_real(json_object_get(j, "stddev")));
	assert_int_equal(json_integer_value(json_object_get(j, "N")), 100000);
	assert_int_equal(json_integer_value(json_object_get(j, "min")), 100);
	assert_int_equal(json_integer_value(json_object_get(j, "max")), 10000000);
	assert_true(json_real_value(json_object_get(j, "mean")) == 5000050.0);

	json_t *pct = json_object_get(j, "percentile");
	assert_true(json_is_object(pct));
	assert_int_equal(json_object_size(pct), FIO_NP);
	const char *keys[] = { "1.000000", "5.000000", "50.000000", "99.000000", "99.500000",
			       "99.900000", "99.950000", "99.990000" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_true(json_is_integer(json_object_get(pct, keys[i])));
	/* the short keys agree with the fio list and with the query */
	assert_int_equal(json_integer_value(json_object_get(j, "p99")),
			 json_integer_value(json_object_get(pct, "99.000000")));
	assert_int_equal(json_integer_value(json_object_get(j, "p999")),
			 json_integer_value(json_object_get(pct, "99.900000")));
	assert_int_equal(json_integer_value(json_object_get(j, "p50")),
			 stats_dist_percentile(&d, 50.0));
	/* and are ascending */
	int64_t prev = 0;
	const char *key;
	json_t *val;
	json_object_foreach(pct, key, val) {
		assert_true(json_integer_value(val) >= prev);
		prev = json_integer_value(val);
	}
	json_decref(j);
	stats_dist_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_small_values_exact),
		cmocka_unit_test(test_stats_bucket_geometry),
		cmocka_unit_test(test_stats_accuracy_uniform),
		cmocka_unit_test(test_stats_accuracy_exponential),
		cmocka_unit_test(test_stats_accuracy_lognormal),
		cmocka_unit_test(test_stats_stddev_large_offset),
		cmocka_unit_test(test_stats_nearest_rank),
		cmocka_unit_test(test_stats_midpoint_clamped),
		cmocka_unit_test(test_stats_merge_halves_equals_whole),
		cmocka_unit_test(test_stats_empty),
		cmocka_unit_test(test_stats_huge_values),
		cmocka_unit_test(test_stats_negative_clamped),
		cmocka_unit_test(test_stats_json_keys),
		cmocka_unit_test(test_stats_cdf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
