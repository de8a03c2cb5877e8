/* The `assumptions:` of a scenario and their joint sampling (designs:
 * GSL's Sobol sequence, gsl_qrng_sobol, with a Cranley-Patterson shift,
 * or a Latin hypercube; McKay, Beckman & Conover 1979). Rank correlation
 * as the variance share: Saltelli et al., Global Sensitivity Analysis
 * (2008) ch. 1, the squared standardized rank coefficient for
 * near-orthogonal inputs. Format: sim/cli/assumptions.h. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multifit.h>
#include <gsl/gsl_qrng.h>
#include <gsl/gsl_rng.h>

#include "sim/cli/assumptions.h"
#include "sim/cli/cli.h"
#include "sim/config.h"
#include "sim/rng.h"

void assumptions_free(struct assumption_set *as)
{
	for (int i = 0; i < as->n; i++) {
		struct assumption *a = &as->a[i];
		for (int v = 0; v < a->nvals; v++) {
			for (int k = 0; k < a->nvset[v]; k++)
				free(a->vsets[v][k]);
			free(a->vsets[v]);
			free(a->vtext[v]);
		}
		free(a->vsets);
		free(a->nvset);
		free(a->vtext);
		free(a->name);
		free(a->reason);
		free(a->file);
	}
	as->n = 0;
}

/* "32MiB" -> 32, "MiB"; integral when written without '.', 'e' */
static bool split_number(const char *s, double *num, char *unit, size_t ulen, bool *integral)
{
	char *end;
	*num = strtod(s, &end);
	if (end == s || !isfinite(*num))
		return false;
	*integral = strcspn(s, ".eE") >= (size_t)(end - s);
	while (isspace((unsigned char)*end))
		end++;
	if (strlen(end) >= ulen)
		return false;
	snprintf(unit, ulen, "%s", end);
	return true;
}

static char *kv(const char *key, const char *val)
{
	size_t n = strlen(key) + strlen(val) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s=%s", key, val);
	return s;
}

static int parse_values(struct assumption *a, const struct cfg_node *vals, struct sim_error *err)
{
	int n = 0;
	for (const struct cfg_node *v = vals->child; v; v = v->next)
		n++;
	if (n < 2)
		return cfg_errorf(err, vals, "values: give at least two (the assumption's ends)");
	a->vsets = calloc((size_t)n, sizeof(*a->vsets));
	a->nvset = calloc((size_t)n, sizeof(*a->nvset));
	a->vtext = calloc((size_t)n, sizeof(*a->vtext));
	if (!a->vsets || !a->nvset || !a->vtext)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	a->discrete = true;
	for (const struct cfg_node *v = vals->child; v; v = v->next, a->nvals++) {
		int i = a->nvals;
		if (v->kind == CFG_SCALAR) {
			if (strchr(a->name, '.') == NULL)
				return cfg_errorf(err, v, "'%s' is a label, not a dotted key: each value "
						  "must be a map of the keys it sets", a->name);
			a->vsets[i] = calloc(1, sizeof(char *));
			a->vtext[i] = strdup(v->value);
			if (!a->vsets[i] || !(a->vsets[i][0] = kv(a->name, v->value)) || !a->vtext[i])
				return sim_errorf(err, SIM_E_NOMEM, "out of memory");
			a->nvset[i] = 1;
			continue;
		}
		if (v->kind != CFG_MAP || !v->child)
			return cfg_errorf(err, v, "a value is a scalar or a map of KEY: VALUE set together");
		int m = 0;
		for (const struct cfg_node *c = v->child; c; c = c->next)
			m++;
		a->vsets[i] = calloc((size_t)m, sizeof(char *));
		char text[512] = "";
		size_t tl = 0;
		for (const struct cfg_node *c = v->child; c; c = c->next) {
			if (c->kind != CFG_SCALAR)
				return cfg_errorf(err, c, "expected a scalar value for %s", c->key);
			if (!a->vsets[i] || !(a->vsets[i][a->nvset[i]++] = kv(c->key, c->value)))
				return sim_errorf(err, SIM_E_NOMEM, "out of memory");
			if (tl < sizeof(text))
				tl += (size_t)snprintf(text + tl, sizeof(text) - tl, "%s%s=%s",
						       tl ? " " : "", c->key, c->value);
		}
		if (!(a->vtext[i] = strdup(text)))
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	return 0;
}

static int parse_range(struct assumption *a, const struct cfg_node *r, const struct cfg_node *scale,
		       struct sim_error *err)
{
	const struct cfg_node *l = r->child, *h = l ? l->next : NULL;
	if (r->kind != CFG_SEQ || !l || !h || h->next || l->kind != CFG_SCALAR || h->kind != CFG_SCALAR)
		return cfg_errorf(err, r, "range: expected [LOW, HIGH]");
	char u2[sizeof(a->unit)];
	bool i1, i2;
	if (!split_number(l->value, &a->lo, a->unit, sizeof(a->unit), &i1))
		return cfg_errorf(err, l, "range: '%s' is not a number with an optional unit", l->value);
	if (!split_number(h->value, &a->hi, u2, sizeof(u2), &i2))
		return cfg_errorf(err, h, "range: '%s' is not a number with an optional unit", h->value);
	if (strcmp(a->unit, u2) != 0)
		return cfg_errorf(err, r, "range: write both ends in the same unit ('%s', '%s')",
				  a->unit, u2);
	if (!(a->hi > a->lo))
		return cfg_errorf(err, r, "range: HIGH must be above LOW");
	a->integer = i1 && i2;
	if (scale) {
		if (scale->kind != CFG_SCALAR ||
		    (strcmp(scale->value, "log") != 0 && strcmp(scale->value, "linear") != 0))
			return cfg_errorf(err, scale, "scale: expected linear or log");
		a->log = strcmp(scale->value, "log") == 0;
		if (a->log && !(a->lo > 0))
			return cfg_errorf(err, scale, "scale: log needs a range above 0");
	}
	return 0;
}

static int parse_one(struct assumption *a, const struct cfg_node *c, struct sim_error *err)
{
	memset(a, 0, sizeof(*a));
	a->name = strdup(c->key);
	a->file = strdup(c->file ? c->file : "");
	a->line = c->key_line ? c->key_line : c->line;
	if (!a->name || !a->file)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	if (c->kind != CFG_MAP)
		return cfg_errorf(err, c, "assumption %s: expected {values: [...]} or {range: [LOW, "
				  "HIGH]} with a reason", c->key);
	const struct cfg_node *vals = NULL, *range = NULL, *scale = NULL, *reason = NULL;
	for (const struct cfg_node *k = c->child; k; k = k->next) {
		if (strcmp(k->key, "values") == 0)
			vals = k;
		else if (strcmp(k->key, "range") == 0)
			range = k;
		else if (strcmp(k->key, "scale") == 0)
			scale = k;
		else if (strcmp(k->key, "reason") == 0)
			reason = k;
		else
			return cfg_errorf(err, k, "assumption %s: unknown key '%s' (values, range, "
					  "scale, reason)", c->key, k->key);
	}
	if (!reason || reason->kind != CFG_SCALAR || !reason->value[0])
		return cfg_errorf(err, c, "assumption %s: give the reason for its ends (reason:)", c->key);
	if (!(a->reason = strdup(reason->value)))
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	if (!!vals == !!range)
		return cfg_errorf(err, c, "assumption %s: give values: or range:, one of them", c->key);
	if (vals) {
		if (scale)
			return cfg_errorf(err, scale, "scale: only for a range");
		if (vals->kind != CFG_SEQ)
			return cfg_errorf(err, vals, "values: expected a list");
		return parse_values(a, vals, err);
	}
	if (!strchr(a->name, '.'))
		return cfg_errorf(err, c, "assumption %s: a range needs a dotted key", c->key);
	return parse_range(a, range, scale, err);
}

int assumptions_load(const char *scenario, char *const *sets, int nsets,
		     struct assumption_set *out, struct sim_error *err)
{
	memset(out, 0, sizeof(*out));
	struct cfg_doc *doc = NULL;
	int rc = cli_load_scenario(scenario, (char **)sets, nsets, &doc, err);
	if (rc)
		return rc;
	const struct cfg_node *as = cfg_get(cfg_root(doc), "assumptions");
	if (as && as->kind != CFG_MAP)
		rc = cfg_errorf(err, as, "assumptions: expected a map of KEY: {values|range, reason}");
	for (const struct cfg_node *c = as ? as->child : NULL; c && !rc; c = c->next) {
		if (out->n == ASSUME_MAX) {
			rc = cfg_errorf(err, c, "more than %d assumptions", ASSUME_MAX);
			break;
		}
		rc = parse_one(&out->a[out->n], c, err);
		out->n++; /* parsed or not, its allocations are freed with the set */
	}
	cfg_free(doc);
	if (rc)
		assumptions_free(out);
	return rc;
}

const struct assumption *assumptions_find(const struct assumption_set *as, const char *key)
{
	size_t kl = strlen(key);
	for (int i = 0; i < as->n; i++) {
		const struct assumption *a = &as->a[i];
		if (strcmp(a->name, key) == 0)
			return a;
		for (int v = 0; v < a->nvals; v++)
			for (int k = 0; k < a->nvset[v]; k++)
				if (strncmp(a->vsets[v][k], key, kl) == 0 && a->vsets[v][k][kl] == '=')
					return a;
	}
	return NULL;
}

void assumption_range_text(const struct assumption *a, char *buf, size_t len)
{
	if (!a->discrete) {
		snprintf(buf, len, "[%g%s, %g%s]%s", a->lo, a->unit, a->hi, a->unit,
			 a->log ? " log" : "");
		return;
	}
	size_t n = (size_t)snprintf(buf, len, "{");
	for (int v = 0; v < a->nvals && n < len; v++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", v ? " | " : "", a->vtext[v]);
	if (n < len)
		snprintf(buf + n, len - n, "}");
}

int assumptions_design(const struct assumption_set *as, int n, uint64_t seed,
		       enum assume_design design, double *u, struct sim_error *err)
{
	int d = as->n;
	if (d == 0 || n <= 0)
		return 0;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	gsl_rng_set(r, (unsigned long)sim_rng_derive_seed(seed, "uncertainty/design"));
	if (design == ASSUME_SOBOL) {
		if (d > 40) {
			gsl_rng_free(r);
			return sim_errorf(err, SIM_E_INPUT, "%d assumptions: GSL's Sobol sequence has at "
					  "most 40 dimensions (use the Latin hypercube)", d);
		}
		gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)d);
		if (!q) {
			gsl_rng_free(r);
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		}
		double shift[ASSUME_MAX], x[ASSUME_MAX];
		for (int j = 0; j < d; j++)
			shift[j] = gsl_rng_uniform(r);
		for (int i = 0; i < n; i++) {
			/* GSL starts after the sequence's origin; with it the first 2^m
			 * rows are a (t, m, s)-net (each axis once per 1/2^m stratum) */
			if (i == 0)
				memset(x, 0, sizeof(x));
			else
				gsl_qrng_get(q, x);
			for (int j = 0; j < d; j++) {
				double v = x[j] + shift[j];
				u[i * d + j] = v - floor(v);
			}
		}
		gsl_qrng_free(q);
	} else {
		int *perm = malloc((size_t)n * sizeof(int));
		if (!perm) {
			gsl_rng_free(r);
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		}
		for (int j = 0; j < d; j++) {
			for (int i = 0; i < n; i++)
				perm[i] = i;
			for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
				int k = (int)gsl_rng_uniform_int(r, (unsigned long)i + 1);
				int t = perm[i];
				perm[i] = perm[k];
				perm[k] = t;
			}
			for (int i = 0; i < n; i++)
				u[i * d + j] = (perm[i] + gsl_rng_uniform(r)) / n;
		}
		free(perm);
	}
	gsl_rng_free(r);
	return 0;
}

static double continuous_at(const struct assumption *a, double x)
{
	double v = a->log ? exp(log(a->lo) + x * (log(a->hi) - log(a->lo)))
			  : a->lo + x * (a->hi - a->lo);
	if (a->integer) {
		/* integers: each of the integers in the range equally likely */
		double lo = ceil(a->lo), hi = floor(a->hi);
		v = a->log ? floor(v + 0.5) : floor(lo + x * (hi - lo + 1));
		v = v < lo ? lo : v > hi ? hi : v;
	}
	return v;
}

static int discrete_at(const struct assumption *a, double x)
{
	int i = (int)(x * a->nvals);
	return i < 0 ? 0 : i >= a->nvals ? a->nvals - 1 : i;
}

void assumption_value_text(const struct assumption *a, double x, char *buf, size_t len)
{
	if (a->discrete)
		snprintf(buf, len, "%s", a->vtext[discrete_at(a, x)]);
	else
		snprintf(buf, len, a->integer ? "%.0f%s" : "%.6g%s", continuous_at(a, x), a->unit);
}

char **assumptions_row_sets(const struct assumption_set *as, const double *row, int *count)
{
	int n = 0;
	for (int j = 0; j < as->n; j++)
		n += as->a[j].discrete ? as->a[j].nvset[discrete_at(&as->a[j], row[j])] : 1;
	char **s = calloc((size_t)n + 1, sizeof(char *));
	if (!s)
		return NULL;
	int k = 0;
	for (int j = 0; j < as->n; j++) {
		const struct assumption *a = &as->a[j];
		if (a->discrete) {
			int v = discrete_at(a, row[j]);
			for (int m = 0; m < a->nvset[v]; m++)
				s[k++] = strdup(a->vsets[v][m]);
		} else {
			char val[64];
			assumption_value_text(a, row[j], val, sizeof(val));
			s[k++] = kv(a->name, val);
		}
	}
	*count = k;
	for (int i = 0; i < k; i++)
		if (!s[i]) {
			for (int m = 0; m < k; m++)
				free(s[m]);
			free(s);
			return NULL;
		}
	return s;
}

/* ------------------------------------------------------------- statistics */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double assume_quantile(const double *v, int n, double p)
{
	double *s = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
	int m = 0;
	if (!s)
		return NAN;
	for (int i = 0; i < n; i++)
		if (isfinite(v[i]))
			s[m++] = v[i];
	double q = NAN;
	if (m) {
		qsort(s, (size_t)m, sizeof(double), cmp_double);
		double h = p * (m - 1);
		int lo = (int)floor(h);
		int hi = lo + 1 < m ? lo + 1 : lo;
		q = s[lo] + (h - lo) * (s[hi] - s[lo]);
	}
	free(s);
	return q;
}

/* average ranks (ties share their mean rank) */
static void ranks(const double *x, int n, double *r)
{
	int *idx = malloc((size_t)n * sizeof(int));
	if (!idx)
		return;
	for (int i = 0; i < n; i++)
		idx[i] = i;
	for (int i = 1; i < n; i++) /* insertion sort: n is a few dozen samples */
		for (int k = i; k > 0 && x[idx[k - 1]] > x[idx[k]]; k--) {
			int t = idx[k];
			idx[k] = idx[k - 1];
			idx[k - 1] = t;
		}
	for (int i = 0; i < n;) {
		int k = i;
		while (k + 1 < n && x[idx[k + 1]] == x[idx[i]])
			k++;
		for (int m = i; m <= k; m++)
			r[idx[m]] = (i + k) / 2.0 + 1;
		i = k + 1;
	}
	free(idx);
}

double assume_rank_share(const double *u, int dims, int j, const double *y, int n)
{
	double *xs = malloc((size_t)(n > 0 ? n : 1) * sizeof(double) * 4);
	if (!xs)
		return NAN;
	double *ys = xs + n, *rx = ys + n, *ry = rx + n;
	int m = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(y[i])) {
			xs[m] = u[i * dims + j];
			ys[m++] = y[i];
		}
	double share = NAN;
	if (m >= 3) {
		ranks(xs, m, rx);
		ranks(ys, m, ry);
		double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
		for (int i = 0; i < m; i++) {
			mx += rx[i];
			my += ry[i];
		}
		mx /= m;
		my /= m;
		for (int i = 0; i < m; i++) {
			sxy += (rx[i] - mx) * (ry[i] - my);
			sxx += (rx[i] - mx) * (rx[i] - mx);
			syy += (ry[i] - my) * (ry[i] - my);
		}
		if (sxx > 0 && syy > 0)
			share = sxy * sxy / (sxx * syy);
		else if (sxx > 0)
			share = 0; /* y did not move */
	}
	free(xs);
	return share;
}

/* Each assumption's squared rank correlation with y on its own. */
static int marginal_shares(const double *u, int dims, const double *y, int n, double *share)
{
	for (int j = 0; j < dims; j++)
		share[j] = assume_rank_share(u, dims, j, y, n);
	return 0;
}

int assume_rank_shares(const double *u, int dims, const double *y, int n, double *share)
{
	for (int j = 0; j < dims; j++)
		share[j] = NAN;
	int m = 0;
	for (int i = 0; i < n; i++)
		m += isfinite(y[i]) != 0;
	/* Below two rows per coefficient the fit's coefficients are noise (an
	 * 8-row design over 4 assumptions gave SRRC^2 of 1.5): marginal shares */
	if (m < 2 * (dims + 1))
		return marginal_shares(u, dims, y, n, share);
	double *col = malloc((size_t)m * sizeof(double) * 2);
	gsl_matrix *X = gsl_matrix_alloc((size_t)m, (size_t)dims + 1);
	gsl_vector *Y = gsl_vector_alloc((size_t)m), *c = gsl_vector_alloc((size_t)dims + 1);
	gsl_matrix *cov = gsl_matrix_alloc((size_t)dims + 1, (size_t)dims + 1);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc((size_t)m, (size_t)dims + 1);
	int rc = -1;
	if (!col || !X || !Y || !c || !cov || !w)
		goto out;
	double *r = col + m, sy = 0;
	/* standardized ranks: the coefficients are then SRRCs */
	for (int j = -1; j < dims; j++) {
		int k = 0;
		for (int i = 0; i < n; i++)
			if (isfinite(y[i]))
				col[k++] = j < 0 ? y[i] : u[i * dims + j];
		ranks(col, m, r);
		double mean = (m + 1) / 2.0, ss = 0;
		for (int i = 0; i < m; i++)
			ss += (r[i] - mean) * (r[i] - mean);
		double sd = sqrt(ss / m);
		for (int i = 0; i < m; i++) {
			double z = sd > 0 ? (r[i] - mean) / sd : 0;
			if (j < 0)
				gsl_vector_set(Y, (size_t)i, z);
			else
				gsl_matrix_set(X, (size_t)i, (size_t)j + 1, z);
		}
		if (j < 0)
			sy = sd;
	}
	for (int i = 0; i < m; i++)
		gsl_matrix_set(X, (size_t)i, 0, 1.0);
	if (sy == 0) {
		for (int j = 0; j < dims; j++)
			share[j] = 0; /* y did not move */
		rc = 0;
		goto out;
	}
	double chisq;
	size_t rank;
	/* SVD with a tolerance: a column that does not vary (a discrete value never
	 * drawn) gets no share instead of breaking the fit */
	if (gsl_multifit_linear_tsvd(X, Y, 1e-9, c, cov, &chisq, &rank, w) == 0) {
		bool over = false;
		for (int j = 0; j < dims; j++) {
			double b = gsl_vector_get(c, (size_t)j + 1);
			share[j] = b * b;
			over |= share[j] > 1 + 1e-9; /* beyond rounding */
		}
		rc = 0;
		/* a coefficient above 1 means the sampled columns are correlated
		 * (a small design): SRRC^2 is then no share of variance */
		if (over)
			rc = marginal_shares(u, dims, y, n, share);
	}
out:
	free(col);
	gsl_matrix_free(X);
	gsl_vector_free(Y);
	gsl_vector_free(c);
	gsl_matrix_free(cov);
	gsl_multifit_linear_free(w);
	return rc;
}
