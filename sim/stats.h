/* Counters and latency distributions.
 *
 * A distribution keeps exact count, sum (128-bit), min, max and a running
 * variance (Welford), plus a log-linear histogram for percentiles: values
 * below 2^STATS_SUB_BITS are exact; above, each power of two is split into
 * 2^STATS_SUB_BITS linear buckets, so a bucket's midpoint is within
 * 2^-(STATS_SUB_BITS+1) (< 0.4 %) of any value in it. Percentiles use fio's
 * nearest-rank definition: the smallest bucket whose cumulative count is at
 * least ceil(p/100 * N), reported as that bucket's midpoint clamped to
 * [min, max] (ranks 1 and N report min and max exactly). The bucket array
 * is allocated on first use.
 */
#ifndef SIM_STATS_H
#define SIM_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_t;

#define STATS_SUB_BITS 7
#define STATS_SUB_BUCKETS (1u << STATS_SUB_BITS)
#define STATS_NBUCKETS ((64 - STATS_SUB_BITS + 1) * STATS_SUB_BUCKETS)

struct stats_dist {
	uint64_t n;
	__int128 sum;
	int64_t min, max;
	/* Variance state: mean_w is an integer shift kept near the mean and m2
	 * the sum of squared deviations from it (see stats.c); use
	 * stats_dist_mean/stddev rather than reading them. */
	double mean_w, m2;
	uint64_t *buckets;  /* STATS_NBUCKETS counts, NULL until the first sample */
};

void stats_dist_init(struct stats_dist *d);
void stats_dist_free(struct stats_dist *d);
void stats_dist_reset(struct stats_dist *d);
/* Group g >= 1 holds [2^(g+SUB_BITS-1), 2^(g+SUB_BITS)) in buckets of width
 * 2^(g-1); with shift = g - 1 the index is shift * SUB_BUCKETS + (v >> shift),
 * and OR-ing in SUB_BUCKETS makes small values land on shift 0 (index v). */
static inline uint32_t stats_bucket_fast(uint64_t v)
{
	uint32_t shift = (uint32_t)(63 - __builtin_clzll(v | STATS_SUB_BUCKETS)) - STATS_SUB_BITS;
	return (shift << STATS_SUB_BITS) + (uint32_t)(v >> shift);
}

/* stats_dist_add's cold parts (stats.c): the first sample (or one before
 * the bucket array is allocated), and the shift moved to the mean when n
 * reaches a power of two. */
int stats_dist_add_slow(struct stats_dist *d, int64_t v);
void stats_dist_recentre(struct stats_dist *d);

/* The sample itself, once d has its buckets and, if it was empty, its
 * first min, max and shift (stats_dist_add_slow). */
static inline int stats_dist_add_sample(struct stats_dist *d, int64_t v)
{
	if (v < 0)
		v = 0;
	d->buckets[stats_bucket_fast((uint64_t)v)]++;
	if (v < d->min)
		d->min = v;
	if (v > d->max)
		d->max = v;
	d->n++;
	d->sum += v;
	double dev = (double)v - d->mean_w;
	d->m2 += dev * dev;
	if (__builtin_expect((d->n & (d->n - 1)) == 0, 0))
		stats_dist_recentre(d);
	return 0;
}

/* Record one value (ns, bytes...); negative values are clamped to 0. Returns
 * 0 or SIM_E_NOMEM on the first sample if the buckets cannot be allocated.
 * Inline: a device replay records six per request.
 * The variance is shifted-data: squared deviations from a shift K (mean_w)
 * accumulate with one multiply-add and no divide (Welford's per-sample
 * divide sits on the dependency chain and tripled the cost of this
 * function). K is re-centred on the exact mean whenever n reaches a power
 * of two, so it tracks the mean as Welford's does and S2 - S1^2/n never
 * cancels badly; that costs log2(n) divides in all (stats.c). */
static inline int stats_dist_add(struct stats_dist *d, int64_t v)
{
	if (__builtin_expect(d->n == 0 || d->buckets == NULL, 0))
		return stats_dist_add_slow(d, v);
	return stats_dist_add_sample(d, v);
}
/* dst += src (exact for count, sum, min, max, variance; histogram bucket-wise). */
int stats_dist_merge(struct stats_dist *dst, const struct stats_dist *src);

double stats_dist_mean(const struct stats_dist *d);   /* exact sum / n; 0 when empty */
double stats_dist_stddev(const struct stats_dist *d); /* population stddev */
/* Nearest-rank percentile, p in (0, 100]; 0 when empty. */
int64_t stats_dist_percentile(const struct stats_dist *d, double p);

/* The empirical CDF at the histogram's bucket edges, for plots: one point
 * per non-empty bucket in ascending order, x[i] the largest value that
 * bucket holds (its upper edge, the last clamped to the exact max) and
 * cum[i] the number of samples <= x[i], so cum[i] / n is exact at x[i] and
 * the last cum is n. The edges are exact below 2 * STATS_SUB_BUCKETS and
 * at most 2^-STATS_SUB_BITS (< 0.8 %) of the value apart above. Writes at
 * most cap points; returns how many the histogram has (0 when empty). */
size_t stats_dist_cdf(const struct stats_dist *d, int64_t *x, uint64_t *cum, size_t cap);

/* fio-style object:
 *   {"N", "min", "max", "mean", "stddev", "p50", "p90", "p99", "p999",
 *    "percentile": {"1.000000": v, "5.000000": v, ..., "99.990000": v}}  */
struct json_t *stats_dist_to_json(const struct stats_dist *d);

/* Bucket index of a value and the midpoint a bucket reports (for tests). */
uint32_t stats_bucket_of(uint64_t v);
uint64_t stats_bucket_mid(uint32_t idx);
uint64_t stats_bucket_hi(uint32_t idx); /* the largest value bucket idx holds */

/* ------------------------------------------- samples of repeated runs */

/* Summary of one metric over repeated runs (seeds, launch phases): n, the
 * mean, the sample standard deviation (n - 1), the half-width of the 95 %
 * confidence interval of the mean from Student's t with n - 1 degrees of
 * freedom (t_{0.975,n-1} sd / sqrt(n)), and min, p50, p95, max with linear
 * interpolation between order statistics (Hyndman and Fan type 7, what
 * GSL, R and numpy use by default). NaNs are skipped (a run that lacks the
 * metric); sd and ci95 are NaN below n = 2, everything is NaN at n = 0. */
struct stats_sample {
	int n;
	double mean, sd, ci95, min, p50, p95, max;
};

/* Summarise x[0..n) (not modified). Returns 0, or SIM_E_NOMEM. */
int stats_sample_summarize(const double *x, int n, struct stats_sample *out);

/* Quantile p of Student's t with dof degrees of freedom (GSL). */
double stats_t_quantile(double p, double dof);

#endif
