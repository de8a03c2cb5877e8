/* Tests for the repeated-run summary of sim/stats.c: a fixed sample whose
 * mean, sd, t quantile and type-7 percentiles are worked out by hand, the
 * t quantiles against printed tables, NaN skipping and small n, and the
 * coverage of the 95 % interval on normal samples of known mean.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/stats.h"

static void test_known_sample(void **state)
{
	(void)state;
	/* sum 40, mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32 */
	const double x[] = { 9, 4, 2, 4, 5, 7, 4, 5 };
	struct stats_sample s;
	assert_int_equal(stats_sample_summarize(x, 8, &s), 0);
	assert_int_equal(s.n, 8);
	assert_float_equal(s.mean, 5.0, 1e-12);
	assert_float_equal(s.sd, sqrt(32.0 / 7.0), 1e-12);
	/* t_{0.975, 7} = 2.364624 (Student's t table) */
	assert_float_equal(s.ci95, 2.364624252 * sqrt(32.0 / 7.0) / sqrt(8.0), 1e-8);
	assert_float_equal(s.min, 2, 0);
	assert_float_equal(s.max, 9, 0);
	/* sorted 2 4 4 4 5 5 7 9; type 7: h = (n - 1) p */
	assert_float_equal(s.p50, 4.5, 1e-12);           /* h = 3.5 */
	assert_float_equal(s.p95, 7 + 0.65 * 2, 1e-12);  /* h = 6.65 */
	assert_float_equal(x[0], 9, 0); /* input untouched */
}

static void test_t_table(void **state)
{
	(void)state;
	assert_float_equal(stats_t_quantile(0.975, 1), 12.70620474, 1e-6);
	assert_float_equal(stats_t_quantile(0.975, 9), 2.262157163, 1e-8);
	assert_float_equal(stats_t_quantile(0.975, 29), 2.045229642, 1e-8);
	assert_float_equal(stats_t_quantile(0.975, 1e7), 1.959963985, 1e-6);
}

static void test_nan_and_small(void **state)
{
	(void)state;
	struct stats_sample s;
	const double x[] = { NAN, 3.5, NAN };
	assert_int_equal(stats_sample_summarize(x, 3, &s), 0);
	assert_int_equal(s.n, 1);
	assert_float_equal(s.mean, 3.5, 0);
	assert_float_equal(s.p95, 3.5, 0);
	assert_true(isnan(s.sd));
	assert_true(isnan(s.ci95));
	assert_int_equal(stats_sample_summarize(x, 1, &s), 0);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.mean) && isnan(s.max));
	const double c[] = { 2, 2, 2 };
	assert_int_equal(stats_sample_summarize(c, 3, &s), 0);
	assert_float_equal(s.sd, 0, 0);
	assert_float_equal(s.ci95, 0, 0);
}

/* 4000 samples of 10 draws from N(mu, 3^2): the interval must cover mu in
 * 95 % of them; the binomial sd of the rate is 0.34 %, so [93.5, 96.5] %
 * fails a correct interval with probability about 1e-5 (and a z interval,
 * which covers about 92.2 % at n = 10, or a population sd, fails). */
static void test_coverage(void **state)
{
	(void)state;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 12345);
	const double mu = 7.0;
	int covered = 0, trials = 4000;
	for (int t = 0; t < trials; t++) {
		double x[10];
		for (int i = 0; i < 10; i++)
			x[i] = mu + gsl_ran_gaussian(r, 3.0);
		struct stats_sample s;
		assert_int_equal(stats_sample_summarize(x, 10, &s), 0);
		covered += fabs(s.mean - mu) <= s.ci95;
	}
	gsl_rng_free(r);
	double rate = (double)covered / trials;
	assert_true(rate >= 0.935 && rate <= 0.965);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_sample),
		cmocka_unit_test(test_t_table),
		cmocka_unit_test(test_nan_and_small),
		cmocka_unit_test(test_coverage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
