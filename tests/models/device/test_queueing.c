/* Engine validation against queueing theory: 10^6
 * requests through the Poisson source and the ideal device reproduce the
 * analytic mean response time of M/M/1, M/D/1 (Pollaczek-Khinchine) and
 * M/M/k (Erlang C) within 1 %, for the bundled scenarios and for other
 * stable loads set with --set style overrides; the same seed gives the
 * same result document twice. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim/sim.h"

static struct sim *run_scenario(const char *path, const char *const *sets)
{
	struct sim_error err = { 0 };
	struct cfg_doc *doc = NULL;
	int rc = cfg_load_file(path, &doc, &err);
	if (rc)
		fail_msg("%s", err.msg);
	for (const char *const *s = sets; s && *s; s++) {
		rc = cfg_set(doc, *s, &err);
		if (rc)
			fail_msg("%s", err.msg);
	}
	struct sim *sim = NULL;
	rc = sim_create(doc, path, NULL, &sim, &err);
	if (rc)
		fail_msg("%s", err.msg);
	rc = sim_run(sim, &err);
	if (rc)
		fail_msg("%s", err.msg);
	return sim;
}

static double mean_response_us(struct sim *s)
{
	const struct stats_dist *d = &s->metrics.cls[SIM_CLASS_FG].op[SIM_OP_READ].lat;
	assert_int_equal(d->n, 1000000);
	return stats_dist_mean(d) / 1e3;
}

static double erlang_c(int k, double a)
{
	double sum = 0, term = 1;
	for (int n = 0; n < k; n++) {
		if (n > 0)
			term *= a / n;
		sum += term;
	}
	double top = term * a / k / (1 - a / k);
	return top / (sum + top);
}

static void assert_within(double got, double want, double rel)
{
	if (fabs(got - want) > rel * want)
		fail_msg("got %.3f, theory %.3f (%.2f %% off, allowed %.1f %%)", got, want,
			 100 * (got - want) / want, 100 * rel);
}

static void test_queueing_mm1_matches_theory(void **state)
{
	struct sim *s = run_scenario("configs/scenarios/mm1.yaml", NULL);
	assert_within(mean_response_us(s), 1e6 / (1e4 - 5000), 0.01); /* 200 us */
	sim_destroy(s);
}

static void test_queueing_mm1_other_load(void **state)
{
	/* rho = 0.6 at a different service time, through the override path. */
	const char *sets[] = { "source.rate_per_s=12000", "device.mean_us=50", NULL };
	struct sim *s = run_scenario("configs/scenarios/mm1.yaml", sets);
	double mu = 1e6 / 50.0;
	assert_within(mean_response_us(s), 1e6 / (mu - 12000), 0.01);
	sim_destroy(s);
}

static void test_queueing_md1_matches_pollaczek_khinchine(void **state)
{
	struct sim *s = run_scenario("configs/scenarios/md1.yaml", NULL);
	double mu = 1e4, lam = 5000, rho = lam / mu;
	double w = 1 / mu + rho / (2 * mu * (1 - rho));
	assert_within(mean_response_us(s), w * 1e6, 0.01); /* 150 us */
	/* Deterministic service: nothing is faster than the service time. */
	assert_true(s->metrics.cls[SIM_CLASS_FG].op[SIM_OP_READ].lat.min >= 100000);
	sim_destroy(s);
}

static void test_queueing_gamma_cv0_is_md1(void **state)
{
	/* cv -> 0 is deterministic service for every shape of the ideal
	 * device: gamma at cv 0 must give M/D/1, not a zero service time */
	static const char *const services[] = { "gamma", "lognormal", "uniform" };
	(void)state;
	for (int i = 0; i < 3; i++) {
		char svc[64];
		snprintf(svc, sizeof(svc), "device.service=%s", services[i]);
		const char *sets[] = { svc, "device.cv=0", NULL };
		struct sim *s = run_scenario("configs/scenarios/md1.yaml", sets);
		double mu = 1e4, lam = 5000, rho = lam / mu;
		assert_within(mean_response_us(s), (1 / mu + rho / (2 * mu * (1 - rho))) * 1e6, 0.01);
		assert_true(s->metrics.cls[SIM_CLASS_FG].op[SIM_OP_READ].lat.min >= 100000);
		sim_destroy(s);
	}
}

static void test_queueing_mmk_matches_erlang_c(void **state)
{
	struct sim *s = run_scenario("configs/scenarios/mmk.yaml", NULL);
	double mu = 1e4, lam = 28000;
	int k = 4;
	double w = erlang_c(k, lam / mu) / (k * mu - lam) + 1 / mu;
	assert_within(mean_response_us(s), w * 1e6, 0.01); /* 135.7 us */
	sim_destroy(s);
}

static char *result_without_wall_clock(struct sim *s)
{
	json_t *res = sim_result_json(s);
	json_t *eng = json_object_get(res, "engine");
	json_object_del(eng, "wall_s");
	json_object_del(eng, "events_per_s");
	json_object_del(eng, "peak_rss_kib");
	char *text = json_dumps(res, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	json_decref(res);
	return text;
}

static void test_queueing_same_seed_same_bytes(void **state)
{
	const char *sets[] = { "source.requests=50000", NULL };
	struct sim *a = run_scenario("configs/scenarios/mm1.yaml", sets);
	struct sim *b = run_scenario("configs/scenarios/mm1.yaml", sets);
	char *ta = result_without_wall_clock(a), *tb = result_without_wall_clock(b);
	assert_string_equal(ta, tb);
	/* A different seed must change the result, or the seed is not used. */
	const char *sets2[] = { "source.requests=50000", "seed=2", NULL };
	struct sim *c = run_scenario("configs/scenarios/mm1.yaml", sets2);
	char *tc = result_without_wall_clock(c);
	assert_string_not_equal(ta, tc);
	free(ta);
	free(tb);
	free(tc);
	sim_destroy(a);
	sim_destroy(b);
	sim_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queueing_mm1_matches_theory),
		cmocka_unit_test(test_queueing_mm1_other_load),
		cmocka_unit_test(test_queueing_md1_matches_pollaczek_khinchine),
		cmocka_unit_test(test_queueing_gamma_cv0_is_md1),
		cmocka_unit_test(test_queueing_mmk_matches_erlang_c),
		cmocka_unit_test(test_queueing_same_seed_same_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
