/* The values a scenario assumes (not measured on the platform it names),
 * each a range or a set of values with the reason for its ends, read from
 * the scenario's `assumptions:` map (merged over its includes: a platform
 * file's, then the scenario's own), and the space-filling designs that
 * sample them jointly for `validate --uncertainty` and `compare
 * --uncertainty` (format in docs/validation.md).
 *
 *   assumptions:
 *     device.read_priority: {values: [true, false], reason: "..."}
 *     device.queue_depth: {range: [4, 32], scale: log, reason: "..."}
 *     dirty_limits:                       # a label: each value sets several keys
 *       values: [{writeback.dirty_bytes: 60MiB}, {writeback.dirty_bytes: 0}]
 *       reason: "..."
 */
#ifndef SIM_CLI_ASSUMPTIONS_H
#define SIM_CLI_ASSUMPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

#define ASSUME_MAX 64

struct assumption {
	char *name;              /* the dotted key, or a label when values are maps */
	char *reason;
	char *file;              /* where it was declared */
	int line;
	bool discrete;
	int nvals;               /* discrete: values (each one or more "key=value") */
	char ***vsets;           /* [nvals][nvset[i]] "key=value" */
	int *nvset;
	char **vtext;            /* [nvals] the value as written (for tables) */
	double lo, hi;           /* continuous: in the unit written */
	char unit[24];           /* the suffix both ends share ("MiB", "ms", "") */
	bool log, integer;
};

struct assumption_set {
	int n;
	struct assumption a[ASSUME_MAX];
};

/* The assumptions of the scenario at path with sets applied (the sweep's
 * or the command line's); none is fine (n = 0). Bad entries: SIM_E_INPUT
 * at file:line. */
int assumptions_load(const char *scenario, char *const *sets, int nsets,
		     struct assumption_set *out, struct sim_error *err);
void assumptions_free(struct assumption_set *as);

/* The assumption whose name or one of whose values' keys is key, or NULL. */
const struct assumption *assumptions_find(const struct assumption_set *as, const char *key);

/* "[4, 32] log" or "{true, false}" */
void assumption_range_text(const struct assumption *a, char *buf, size_t len);

enum assume_design { ASSUME_SOBOL, ASSUME_LHS };

/* n samples x as->n coordinates in [0, 1) into u (row-major): GSL's Sobol
 * sequence (at most 40 dimensions) shifted by a seeded uniform offset per
 * dimension (Cranley-Patterson rotation), or a Latin hypercube from the
 * seed. The same (n, dims, seed, design) give the same design. */
int assumptions_design(const struct assumption_set *as, int n, uint64_t seed,
		       enum assume_design design, double *u, struct sim_error *err);

/* The "key=value" assignments of one design row (as->n coordinates),
 * malloc'd; *count gets how many. NULL when out of memory. */
char **assumptions_row_sets(const struct assumption_set *as, const double *row, int *count);

/* The value assumption j takes at coordinate x, as text (for tables). */
void assumption_value_text(const struct assumption *a, double x, char *buf, size_t len);

/* ------------------------------------------------------------- statistics */

/* Linear-interpolation quantile (p in [0, 1]) of the finite values of
 * v[0..n-1]; NAN when none. Does not change v. */
double assume_quantile(const double *v, int n, double p);

/* Squared Spearman rank correlation of design column j (stride dims) with
 * y over the rows where y is finite: with independent, space-filling
 * inputs, the share of y's variance (in ranks) that assumption j explains
 * alone — a first-order index for monotone effects. NAN under 3 rows or a
 * constant column. */
double assume_rank_share(const double *u, int dims, int j, const double *y, int n);

/* Every assumption's share at once: the squared standardized rank
 * regression coefficient of y's ranks on all of the design's columns'
 * ranks (SRRC^2), which separates assumptions whose sampled values happen
 * to correlate; with fewer than 2 (assumptions + 1) rows, or when a
 * coefficient comes out above 1 (the sample's columns correlated), the
 * marginal assume_rank_share of each. share[dims]. 0, or -1 when out of
 * memory. */
int assume_rank_shares(const double *u, int dims, const double *y, int n, double *share);

#endif
