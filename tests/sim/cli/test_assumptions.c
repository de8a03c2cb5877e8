/* Tests for sim/cli/assumptions.c: parsing an assumptions: map (ranges,
 * values, joint labels, bad entries at their line), the designs (Sobol
 * and Latin hypercube fill [0, 1) with one point per stratum, the seed
 * moves the Sobol shift, the same seed gives the same design), the values
 * a row sets, the quantiles, and the variance shares: a response that
 * depends on one assumption only gives it the share and the other none,
 * even when the two columns happen to correlate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#include "sim/cli/assumptions.h"

static char *write_scenario(const char *assumptions)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/mobisim-test-assume-%d.yaml", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "name: t\ndevice: {type: ideal}\nassumptions:\n%s", assumptions);
	fclose(f);
	return path;
}

static void test_parse(void **state)
{
	(void)state;
	char *p = write_scenario(
		"  device.queue_depth: {range: [4, 32], scale: log, reason: \"UFS 2.0 allows 32\"}\n"
		"  device.read_priority: {values: [true, false], reason: r}\n"
		"  dirty:\n"
		"    values:\n"
		"      - {writeback.dirty_bytes: 60MiB, writeback.dirty_background_bytes: 20MiB}\n"
		"      - {writeback.dirty_bytes: 0, writeback.dirty_background_bytes: 0}\n"
		"    reason: retail vs kernel ratios\n"
		"  pagecache_lock.hold_ns: {range: [50ns, 400ns], reason: r}\n");
	struct assumption_set as;
	struct sim_error err = { 0 };
	assert_int_equal(assumptions_load(p, NULL, 0, &as, &err), 0);
	assert_int_equal(as.n, 4);
	assert_false(as.a[0].discrete);
	assert_true(as.a[0].log && as.a[0].integer);
	assert_true(as.a[1].discrete && as.a[1].nvals == 2);
	assert_ptr_equal(assumptions_find(&as, "writeback.dirty_background_bytes"), &as.a[2]);
	assert_null(assumptions_find(&as, "writeback.dirty"));
	assert_string_equal(as.a[3].unit, "ns");
	char buf[200];
	assumption_range_text(&as.a[0], buf, sizeof(buf));
	assert_string_equal(buf, "[4, 32] log");
	/* a row at the range's ends and middle */
	double row[4] = { 0.0, 0.99, 0.6, 0.5 };
	int n = 0;
	char **s = assumptions_row_sets(&as, row, &n);
	assert_non_null(s);
	assert_int_equal(n, 5);
	assert_string_equal(s[0], "device.queue_depth=4");
	assert_string_equal(s[1], "device.read_priority=false");
	assert_string_equal(s[2], "writeback.dirty_bytes=0");
	assert_string_equal(s[3], "writeback.dirty_background_bytes=0");
	assert_string_equal(s[4], "pagecache_lock.hold_ns=225ns");
	for (int i = 0; i < n; i++)
		free(s[i]);
	free(s);
	/* every integer of a linear integer range is reachable, the ends included */
	struct assumption lin = { .lo = 1, .hi = 4, .integer = true };
	assumption_value_text(&lin, 0.999, buf, sizeof(buf));
	assert_string_equal(buf, "4");
	assumption_value_text(&lin, 0.0, buf, sizeof(buf));
	assert_string_equal(buf, "1");
	assumptions_free(&as);
	unlink(p);
}

static void test_bad(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"  device.queue_depth: {range: [4, 32]}\n",                       /* no reason */
		"  device.queue_depth: {range: [4MiB, 32], reason: r}\n",         /* units differ */
		"  device.queue_depth: {range: [32, 4], reason: r}\n",            /* reversed */
		"  device.queue_depth: {range: [0, 4], scale: log, reason: r}\n", /* log of 0 */
		"  label: {values: [1, 2], reason: r}\n",                         /* label, scalars */
		"  device.x: {values: [1], reason: r}\n",                         /* one value */
		"  device.x: {values: [1, 2], range: [1, 2], reason: r}\n",       /* both */
		"  device.x: {values: [1, 2], why: r}\n",                         /* unknown key */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *p = write_scenario(bad[i]);
		struct assumption_set as;
		struct sim_error err = { 0 };
		assert_int_equal(assumptions_load(p, NULL, 0, &as, &err), SIM_E_INPUT);
		assert_non_null(strstr(err.msg, p)); /* names the file */
		assert_int_equal(as.n, 0);
		unlink(p);
	}
}

static void check_strata(const double *u, int n, int d)
{
	for (int j = 0; j < d; j++) {
		int hit[64] = { 0 };
		for (int i = 0; i < n; i++) {
			assert_true(u[i * d + j] >= 0 && u[i * d + j] < 1);
			hit[(int)(u[i * d + j] * n)]++;
		}
		for (int b = 0; b < n; b++)
			assert_int_equal(hit[b], 1); /* one point per 1/n stratum of each axis */
	}
}

static void test_design(void **state)
{
	(void)state;
	struct assumption_set as = { .n = 5 };
	struct sim_error err = { 0 };
	double a[16 * 5], b[16 * 5], c[16 * 5];
	assert_int_equal(assumptions_design(&as, 16, 7, ASSUME_LHS, a, &err), 0);
	check_strata(a, 16, 5);
	assert_int_equal(assumptions_design(&as, 16, 7, ASSUME_SOBOL, b, &err), 0);
	check_strata(b, 16, 5); /* a shifted (0, m, s)-net keeps its 1-D stratification */
	assert_int_equal(assumptions_design(&as, 16, 7, ASSUME_SOBOL, c, &err), 0);
	assert_memory_equal(b, c, sizeof(b));
	assert_int_equal(assumptions_design(&as, 16, 8, ASSUME_SOBOL, c, &err), 0);
	assert_true(memcmp(b, c, sizeof(b)) != 0);
	struct assumption_set big = { .n = 41 };
	double *u = calloc(41 * 4, sizeof(double));
	assert_int_equal(assumptions_design(&big, 4, 1, ASSUME_SOBOL, u, &err), SIM_E_INPUT);
	assert_int_equal(assumptions_design(&big, 4, 1, ASSUME_LHS, u, &err), 0);
	free(u);
}

static void test_stats(void **state)
{
	(void)state;
	double v[] = { 5, 1, NAN, 3, 2, 4 };
	assert_true(fabs(assume_quantile(v, 6, 0.5) - 3) < 1e-12);
	assert_true(fabs(assume_quantile(v, 6, 0.0) - 1) < 1e-12);
	assert_true(fabs(assume_quantile(v, 6, 0.95) - 4.8) < 1e-12);
	assert_true(isnan(assume_quantile(v + 2, 1, 0.5)));

	/* y depends on column 0 only (non-linearly, monotone); column 1 is
	 * built to correlate with column 0 in this sample but has no effect */
	struct assumption_set as = { .n = 3 };
	struct sim_error err = { 0 };
	double u[32 * 3], y[32], sh[3];
	assert_int_equal(assumptions_design(&as, 32, 3, ASSUME_LHS, u, &err), 0);
	for (int i = 0; i < 32; i++) {
		u[i * 3 + 1] = 0.7 * u[i * 3] + 0.3 * u[i * 3 + 2];
		y[i] = exp(4 * u[i * 3]);
	}
	assert_int_equal(assume_rank_shares(u, 3, y, 32, sh), 0);
	assert_true(sh[0] > 0.9);
	assert_true(sh[1] < 0.01 && sh[2] < 0.01);
	/* the marginal share alone credits the correlated column too */
	assert_true(assume_rank_share(u, 3, 1, y, 32) > 0.5);
	/* 8 rows over 4 assumptions: too few to fit 5 coefficients; each
	 * share is its marginal one, never above 1 */
	{
		struct assumption_set as4 = { .n = 4 };
		double u4[8 * 4], y4[8], sh4[4];
		assert_int_equal(assumptions_design(&as4, 8, 4, ASSUME_SOBOL, u4, &err), 0);
		for (int i = 0; i < 8; i++)
			y4[i] = u4[i * 4] + 0.5 * u4[i * 4 + 1] * u4[i * 4 + 3];
		assert_int_equal(assume_rank_shares(u4, 4, y4, 8, sh4), 0);
		for (int j = 0; j < 4; j++) {
			assert_true(sh4[j] >= 0 && sh4[j] <= 1);
			assert_true(fabs(sh4[j] - assume_rank_share(u4, 4, j, y4, 8)) < 1e-12);
		}
	}
	/* a constant response: no share */
	for (int i = 0; i < 32; i++)
		y[i] = 1;
	assert_int_equal(assume_rank_shares(u, 3, y, 32, sh), 0);
	assert_true(sh[0] == 0 && sh[1] == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_design),
		cmocka_unit_test(test_stats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
