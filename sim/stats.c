/* Latency distributions: exact moments plus a log-linear histogram (see
 * stats.h).
 *
 * Bucketing is the HdrHistogram / fio "plat" scheme with 2^STATS_SUB_BITS
 * linear sub-buckets per power of two, computed from the position of the
 * highest set bit so that recording a sample costs a clz, a shift and an
 * increment (no integer division, no loop). Groups 0 and 1 (values below
 * 2 * STATS_SUB_BUCKETS) have width 1, so those values are exact.
 * Percentiles follow fio's nearest-rank rule (stat.c:calc_clat_percentiles):
 * the first bucket whose cumulative count reaches ceil(p/100 * N), reported
 * as the bucket's midpoint clamped to the observed [min, max] (rank 1 and
 * rank N report min and max themselves, which are kept exactly).
 *
 * The variance keeps the struct's Welford pair (mean_w, m2) in shifted form:
 * mean_w is an integer shift K near the mean and m2 the sum of squared
 * deviations from K; with the exact 128-bit sum, M2 = m2 - (sum - nK)^2 / n.
 * K is re-centred on the mean whenever n reaches a power of two, so it
 * tracks the mean as Welford's update does (Knuth TAOCP vol. 2, 4.2.2) and
 * the subtraction never cancels badly, without Welford's per-sample divide.
 * Merging uses the pairwise formula of Chan, Golub and LeVeque (1979).
 */
#include "sim/stats.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_sort.h>

/* fio's default percentile_list (options.c, "percentile_list"). The JSON
 * p50/p90/p99/p999 keys reuse entries of this list. */
static const double stats_fio_plist[] = {
	1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0,
	80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
};
#define STATS_FIO_NP (sizeof(stats_fio_plist) / sizeof(stats_fio_plist[0]))
enum { STATS_PI_50 = 6, STATS_PI_90 = 10, STATS_PI_99 = 12, STATS_PI_999 = 14 };

/* ---- buckets ---------------------------------------------------------- */

/* stats_bucket_fast: stats.h (stats_dist_add is inline) */
uint32_t stats_bucket_of(uint64_t v)
{
	return stats_bucket_fast(v);
}

uint64_t stats_bucket_mid(uint32_t idx)
{
	if (idx < 2 * STATS_SUB_BUCKETS)
		return idx; /* width 1: exact */
	uint32_t shift = (idx >> STATS_SUB_BITS) - 1;
	uint64_t lower = (uint64_t)(idx - (shift << STATS_SUB_BITS)) << shift;
	return lower + (UINT64_C(1) << (shift - 1)); /* lower + width / 2 */
}

uint64_t stats_bucket_hi(uint32_t idx)
{
	if (idx < 2 * STATS_SUB_BUCKETS)
		return idx;
	uint32_t shift = (idx >> STATS_SUB_BITS) - 1;
	uint64_t lower = (uint64_t)(idx - (shift << STATS_SUB_BITS)) << shift;
	return lower + ((UINT64_C(1) << shift) - 1); /* lower + width - 1 */
}

static int stats_alloc(struct stats_dist *d)
{
	d->buckets = calloc(STATS_NBUCKETS, sizeof(*d->buckets));
	return d->buckets ? 0 : SIM_E_NOMEM;
}

/* ---- life cycle ------------------------------------------------------- */

void stats_dist_init(struct stats_dist *d)
{
	memset(d, 0, sizeof(*d));
}

void stats_dist_free(struct stats_dist *d)
{
	free(d->buckets);
	stats_dist_init(d);
}

/* Forget every sample but keep the bucket array for reuse. */
void stats_dist_reset(struct stats_dist *d)
{
	uint64_t *b = d->buckets;
	stats_dist_init(d);
	if (b)
		memset(b, 0, STATS_NBUCKETS * sizeof(*b));
	d->buckets = b;
}

/* ---- recording -------------------------------------------------------- */

/* Shift for the variance: an integer-valued double (so that sum - n * K is
 * exact in 128-bit integers) no larger than the largest double below 2^63. */
static double stats_shift_of(long double mean)
{
	long double k = roundl(mean);
	const long double kmax = 9223372036854774784.0L; /* 2^63 - 1024 */
	if (k < 0)
		k = 0;
	if (k > kmax)
		k = kmax;
	return (double)k;
}

/* mean - k, from the exact integer sum of deviations, so that it stays
 * precise when the mean is large and the spread small. */
static long double stats_mean_minus(const struct stats_dist *d, int64_t k)
{
	__int128 s1 = d->sum - (__int128)d->n * k;
	return (long double)s1 / d->n;
}

/* Sum of squared deviations from the mean, M2 = S2 - n (mean - K)^2, where
 * S2 is the sum of squared deviations from the shift K (d->m2). */
static long double stats_m2(const struct stats_dist *d)
{
	if (d->n == 0)
		return 0;
	long double off = stats_mean_minus(d, (int64_t)d->mean_w);
	long double m2 = (long double)d->m2 - (long double)d->n * off * off;
	return m2 > 0 ? m2 : 0;
}

/* Express M2 around a new shift near the mean: S2' = M2 + n (mean - K')^2. */
static void stats_set_shift(struct stats_dist *d, long double m2)
{
	double k = stats_shift_of((long double)d->sum / d->n);
	long double off = stats_mean_minus(d, (int64_t)k);
	d->m2 = (double)(m2 + (long double)d->n * off * off);
	d->mean_w = k;
}

static void stats_recentre(struct stats_dist *d)
{
	stats_set_shift(d, stats_m2(d));
}

/* stats_dist_add (stats.h) when the sample is the first since init or
 * reset, or the bucket array is still to be allocated: the whole update. */
int stats_dist_add_slow(struct stats_dist *d, int64_t v)
{
	if (d->buckets == NULL && stats_alloc(d))
		return SIM_E_NOMEM;
	if (d->n == 0) {
		int64_t c = v < 0 ? 0 : v;
		d->min = d->max = c;
		d->mean_w = stats_shift_of(c);
		d->m2 = 0;
	}
	return stats_dist_add_sample(d, v);
}

void stats_dist_recentre(struct stats_dist *d)
{
	stats_recentre(d);
}

int stats_dist_merge(struct stats_dist *dst, const struct stats_dist *src)
{
	if (src->n == 0)
		return 0;
	if (!dst->buckets && stats_alloc(dst))
		return SIM_E_NOMEM;
	for (uint32_t i = 0; i < STATS_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	if (dst->n == 0) {
		dst->min = src->min;
		dst->max = src->max;
		dst->mean_w = src->mean_w;
		dst->m2 = src->m2;
		dst->n = src->n;
		dst->sum = src->sum;
		return 0;
	}
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	/* Chan, Golub and LeVeque: M2 = M2a + M2b + delta^2 * na * nb / n, with
	 * both means taken relative to dst's shift to keep delta precise */
	int64_t k = (int64_t)dst->mean_w;
	long double na = (long double)dst->n, nb = (long double)src->n, n = na + nb;
	long double delta = stats_mean_minus(src, k) - stats_mean_minus(dst, k);
	long double m2 = stats_m2(dst) + stats_m2(src) + delta * delta * (na * nb / n);
	dst->n += src->n;
	dst->sum += src->sum;
	stats_set_shift(dst, m2);
	return 0;
}

/* ---- queries ---------------------------------------------------------- */

double stats_dist_mean(const struct stats_dist *d)
{
	if (d->n == 0)
		return 0.0;
	return (double)((long double)d->sum / (long double)d->n);
}

double stats_dist_stddev(const struct stats_dist *d)
{
	if (d->n == 0)
		return 0.0;
	return (double)sqrtl(stats_m2(d) / d->n);
}

/* Nearest rank ceil(p/100 * n), at least 1 and at most n. p is taken to six
 * decimals (as fio prints it) and the rank computed in integers, so that
 * p = 99.9 with n = 1000 gives rank 999, not 1000 from 99.9's binary
 * representation lying slightly above 99.9. */
static uint64_t stats_rank(uint64_t n, double p)
{
	if (!(p > 0.0))
		return 1;
	if (p >= 100.0)
		return n;
	unsigned __int128 pm = (unsigned __int128)llround(p * 1e6); /* p * 10^6 */
	unsigned __int128 den = 100000000u;                           /* 100 * 10^6 */
	uint64_t r = (uint64_t)((pm * n + den - 1) / den);
	if (r < 1)
		r = 1;
	return r > n ? n : r;
}

static int64_t stats_clamp_mid(const struct stats_dist *d, uint32_t idx)
{
	uint64_t mid = stats_bucket_mid(idx);
	if (mid < (uint64_t)d->min)
		return d->min;
	if (mid > (uint64_t)d->max)
		return d->max;
	return (int64_t)mid;
}

/* Fill out[i] with the p[i] percentile, p ascending, in one bucket scan. */
static void stats_percentiles(const struct stats_dist *d, const double *p, unsigned np,
			      int64_t *out)
{
	unsigned j = 0;
	if (d->n == 0 || !d->buckets) {
		for (j = 0; j < np; j++)
			out[j] = 0;
		return;
	}
	uint64_t cum = 0, rank = stats_rank(d->n, p[0]);
	for (uint32_t i = 0; i < STATS_NBUCKETS && j < np; i++) {
		cum += d->buckets[i];
		while (j < np && cum >= rank) {
			/* the extreme ranks are known exactly */
			if (rank == d->n)
				out[j++] = d->max;
			else if (rank == 1)
				out[j++] = d->min;
			else
				out[j++] = stats_clamp_mid(d, i);
			if (j < np)
				rank = stats_rank(d->n, p[j]);
		}
	}
	for (; j < np; j++) /* unreachable while the buckets sum to n */
		out[j] = d->max;
}

int64_t stats_dist_percentile(const struct stats_dist *d, double p)
{
	int64_t v;
	stats_percentiles(d, &p, 1, &v);
	return v;
}

size_t stats_dist_cdf(const struct stats_dist *d, int64_t *x, uint64_t *cum, size_t cap)
{
	size_t k = 0;
	uint64_t c = 0;
	if (d->n == 0 || !d->buckets)
		return 0;
	for (uint32_t i = 0; i < STATS_NBUCKETS && c < d->n; i++) {
		if (!d->buckets[i])
			continue;
		c += d->buckets[i];
		if (k < cap) {
			uint64_t hi = stats_bucket_hi(i);
			x[k] = c == d->n || hi > (uint64_t)d->max ? d->max : (int64_t)hi;
			cum[k] = c;
		}
		k++;
	}
	return k;
}

/* ---- JSON ------------------------------------------------------------- */

static int stats_set(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v); /* v == NULL gives -1 */
}

struct json_t *stats_dist_to_json(const struct stats_dist *d)
{
	int64_t pv[STATS_FIO_NP];
	json_t *o = json_object(), *pct = json_object();
	int err = 0;

	if (!o || !pct)
		goto fail;
	stats_percentiles(d, stats_fio_plist, STATS_FIO_NP, pv);
	err |= stats_set(o, "N", json_integer((json_int_t)d->n));
	err |= stats_set(o, "min", json_integer(d->n ? d->min : 0));
	err |= stats_set(o, "max", json_integer(d->n ? d->max : 0));
	err |= stats_set(o, "mean", json_real(stats_dist_mean(d)));
	err |= stats_set(o, "stddev", json_real(stats_dist_stddev(d)));
	err |= stats_set(o, "p50", json_integer(pv[STATS_PI_50]));
	err |= stats_set(o, "p90", json_integer(pv[STATS_PI_90]));
	err |= stats_set(o, "p99", json_integer(pv[STATS_PI_99]));
	err |= stats_set(o, "p999", json_integer(pv[STATS_PI_999]));
	for (unsigned i = 0; i < STATS_FIO_NP; i++) {
		char key[32];
		snprintf(key, sizeof(key), "%f", stats_fio_plist[i]);
		err |= stats_set(pct, key, json_integer(pv[i]));
	}
	err |= stats_set(o, "percentile", pct);
	pct = NULL; /* owned by o now, even on failure */
	if (err)
		goto fail;
	return o;
fail:
	json_decref(pct);
	json_decref(o);
	return NULL;
}

/* ------------------------------------------- samples of repeated runs */

double stats_t_quantile(double p, double dof)
{
	return gsl_cdf_tdist_Pinv(p, dof);
}

int stats_sample_summarize(const double *x, int n, struct stats_sample *out)
{
	double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(*v));
	if (!v)
		return SIM_E_NOMEM;
	int k = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(x[i]))
			v[k++] = x[i];
	out->n = k;
	out->mean = out->sd = out->ci95 = out->min = out->p50 = out->p95 = out->max = NAN;
	if (k > 0) {
		gsl_sort(v, 1, (size_t)k);
		out->mean = gsl_stats_mean(v, 1, (size_t)k);
		out->min = v[0];
		out->max = v[k - 1];
		out->p50 = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)k, 0.50);
		out->p95 = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)k, 0.95);
	}
	if (k > 1) {
		/* gsl_stats_sd_m is the n - 1 form */
		out->sd = gsl_stats_sd_m(v, 1, (size_t)k, out->mean);
		out->ci95 = stats_t_quantile(0.975, (double)(k - 1)) * out->sd / sqrt((double)k);
	}
	free(v);
	return 0;
}
