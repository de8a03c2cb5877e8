/* Sweep expansion: sweep file -> ordered list of points (see sweep.h and
 * docs/sweeps.md for the format). Pure: nothing here runs a simulation.
 *
 * The shape of the file follows what parameter-study tools made familiar
 * (a base plus axes, cartesian or zipped, filters, repetitions); the point
 * order is nested-loop order, first axis outermost, so summary rows come
 * out ready for gnuplot's `every`/`index` and for `plot ... with lines`.
 * Ranges compute every value as from + i*step (never by accumulation), so
 * a float step does not drift and the end is inclusive up to a relative
 * 1e-9 of the step.
 *
 * Note: `include:` is the config loader's file include (a sweep file may
 * include a shared fragment), so the extra points are `include_points:`.
 */
#include "sim/cli/sweep.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "sim/config.h"
#include "sim/rng.h"

/* ------------------------------------------------------------ storage */

static struct sweep_value *value_new(struct sweep *sw, const char *text, const struct cfg_node *n)
{
	if (sw->nvalues == sw->capvalues) {
		int cap = sw->capvalues ? sw->capvalues * 2 : 64;
		struct sweep_value **nv = realloc(sw->values, (size_t)cap * sizeof(*nv));
		if (!nv)
			return NULL;
		sw->values = nv;
		sw->capvalues = cap;
	}
	struct sweep_value *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->text = strdup(text);
	if (!v->text) {
		free(v);
		return NULL;
	}
	v->node = n;
	sw->values[sw->nvalues++] = v;
	return v;
}

void sweep_free(struct sweep *sw)
{
	if (!sw)
		return;
	free(sw->file);
	free(sw->base);
	for (int i = 0; i < sw->nsets; i++)
		free(sw->sets[i]);
	free(sw->sets);
	free(sw->set_nodes);
	for (int i = 0; i < sw->nkeys; i++)
		free(sw->keys[i]);
	free(sw->keys);
	free(sw->key_repeat);
	free(sw->points);
	for (int i = 0; i < sw->nmetrics; i++) {
		free(sw->metrics[i].name);
		free(sw->metrics[i].path);
	}
	free(sw->metrics);
	for (int i = 0; i < sw->nvalues; i++) {
		free(sw->values[i]->text);
		free(sw->values[i]);
	}
	free(sw->values);
	free(sw->valslab);
	cfg_free(sw->doc);
	free(sw);
}

static int oom(struct sim_error *err)
{
	return sim_errorf(err, SIM_E_NOMEM, "out of memory expanding the sweep");
}

/* --------------------------------------------------- value serialising */

struct strbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void sb_add(struct strbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *ns = realloc(b->s, cap);
		if (!ns) {
			b->failed = true;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_puts(struct strbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* A node as the text cfg_set parses back to the same thing: scalars as
 * written, collections in YAML flow syntax. */
static void node_to_flow(struct strbuf *b, const struct cfg_node *n)
{
	if (n->kind == CFG_SCALAR) {
		sb_puts(b, n->value ? n->value : "");
		return;
	}
	sb_puts(b, n->kind == CFG_SEQ ? "[" : "{");
	for (const struct cfg_node *c = n->child; c; c = c->next) {
		if (c != n->child)
			sb_puts(b, ", ");
		if (n->kind == CFG_MAP) {
			sb_puts(b, c->key);
			sb_puts(b, ": ");
		}
		node_to_flow(b, c);
	}
	sb_puts(b, n->kind == CFG_SEQ ? "]" : "}");
}

static struct sweep_value *value_from_node(struct sweep *sw, const struct cfg_node *n)
{
	struct strbuf b = { 0 };
	node_to_flow(&b, n);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	struct sweep_value *v = value_new(sw, b.s ? b.s : "", n);
	free(b.s);
	return v;
}

/* ---------------------------------------------------------- columns */

static bool key_ok(const char *k)
{
	if (!*k)
		return false;
	for (const char *p = k; *p; p++)
		if (isspace((unsigned char)*p) || *p == '=')
			return false;
	return true;
}

static int col_find(const struct sweep *sw, const char *key)
{
	for (int i = 0; i < sw->nkeys; i++)
		if (strcmp(sw->keys[i], key) == 0)
			return i;
	return -1;
}

static int col_add(struct sweep *sw, const char *key)
{
	char **nk = realloc(sw->keys, (size_t)(sw->nkeys + 1) * sizeof(*nk));
	if (!nk)
		return -1;
	sw->keys = nk;
	sw->keys[sw->nkeys] = strdup(key);
	if (!sw->keys[sw->nkeys])
		return -1;
	return sw->nkeys++;
}

/* ------------------------------------------------------------ tables */

/* Intermediate result of expanding a group: nrows rows over ncols columns
 * (indexes into sw->keys), row-major. */
struct table {
	int ncols;
	int *cols;
	long nrows;
	const struct sweep_value **cells;
};

static void table_free(struct table *t)
{
	free(t->cols);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------ numbers */

/* A number with an optional unit suffix carried through as text ("5ms"). */
struct quantity {
	double v;
	bool is_int;
	long long i;
	char unit[32];
};

static int parse_quantity(const struct cfg_node *n, struct quantity *q, struct sim_error *err)
{
	if (!n || n->kind != CFG_SCALAR || !n->value || !*n->value)
		return cfg_errorf(err, n, "expected a number (optionally with a unit, e.g. 5ms)");
	const char *s = n->value;
	char *end;
	errno = 0;
	q->v = strtod(s, &end);
	if (end == s || errno || !isfinite(q->v))
		return cfg_errorf(err, n, "'%s': expected a number (optionally with a unit, e.g. 5ms)", s);
	char *iend;
	errno = 0;
	q->i = strtoll(s, &iend, 10);
	q->is_int = iend == end && !errno;
	while (*end == ' ')
		end++;
	if (strlen(end) >= sizeof(q->unit))
		return cfg_errorf(err, n, "'%s': unit too long", s);
	snprintf(q->unit, sizeof(q->unit), "%s", end);
	for (const char *p = q->unit; *p; p++)
		if (isspace((unsigned char)*p) || isdigit((unsigned char)*p))
			return cfg_errorf(err, n, "'%s': expected NUMBER[UNIT]", s);
	return 0;
}

/* 15 significant digits hide the last-bit error of from + i*step
 * (0.30000000000000004 prints as 0.3); -0 prints as 0. */
static void fmt_double(char *buf, size_t len, double v, const char *unit)
{
	if (v == 0)
		v = 0;
	snprintf(buf, len, "%.15g%s", v, unit);
}

static int same_unit(const struct cfg_node *n, const struct quantity *a, const struct quantity *b,
		     struct sim_error *err)
{
	if (strcmp(a->unit, b->unit) == 0 || !*b->unit)
		return 0;
	return cfg_errorf(err, n, "unit '%s' differs from '%s' (write from, to and step in one unit)",
			  b->unit, a->unit);
}

/* ------------------------------------------------------------ axes */

static int leaf_values_add(struct sweep *sw, struct table *t, const struct sweep_value *v)
{
	/* grow by doubling: a long range must not cost n^2 copies */
	if ((t->nrows & (t->nrows - 1)) == 0) {
		size_t cap = t->nrows ? (size_t)t->nrows * 2 : 1;
		const struct sweep_value **nc = realloc(t->cells, cap * sizeof(*nc));
		if (!nc)
			return -1;
		t->cells = nc;
	}
	t->cells[t->nrows++] = v;
	return 0;
}

static int add_text(struct sweep *sw, struct table *t, const char *text, const struct cfg_node *n,
		    struct sim_error *err)
{
	if (t->nrows >= SWEEP_MAX_POINTS)
		return cfg_errorf(err, n, "more than %d values", SWEEP_MAX_POINTS);
	struct sweep_value *v = value_new(sw, text, n);
	if (!v || leaf_values_add(sw, t, v))
		return oom(err);
	return 0;
}

static int expand_range(struct sweep *sw, struct table *t, const struct cfg_node *r,
			struct sim_error *err)
{
	if (r->kind != CFG_MAP)
		return cfg_errorf(err, r, "expected {from: A, to: B, step: S}");
	const struct cfg_node *nf = cfg_get(r, "from"), *nt = cfg_get(r, "to"),
			      *ns = cfg_get(r, "step");
	for (const struct cfg_node *c = r->child; c; c = c->next)
		if (strcmp(c->key, "from") && strcmp(c->key, "to") && strcmp(c->key, "step"))
			return cfg_errorf(err, c, "unknown key (expected from, to, step)");
	if (!nf || !nt)
		return cfg_errorf(err, r, "a range needs from and to (step defaults to 1)");
	struct quantity f, to, st = { .v = 1, .is_int = true, .i = 1 };
	int rc = parse_quantity(nf, &f, err);
	if (!rc)
		rc = parse_quantity(nt, &to, err);
	if (!rc && ns)
		rc = parse_quantity(ns, &st, err);
	if (!rc)
		rc = same_unit(nt, &f, &to, err);
	if (!rc && ns)
		rc = same_unit(ns, &f, &st, err);
	if (rc)
		return rc;
	if (st.v == 0)
		return cfg_errorf(err, ns, "step must not be 0");
	char buf[96];
	if (f.is_int && to.is_int && st.is_int) {
		long long d = to.i - f.i;
		if ((d > 0 && st.i < 0) || (d < 0 && st.i > 0))
			return cfg_errorf(err, ns ? ns : r, "step %lld goes away from 'to'", st.i);
		long long n = d / st.i + 1;
		if (n > SWEEP_MAX_POINTS)
			return cfg_errorf(err, r, "%lld values (limit %d)", n, SWEEP_MAX_POINTS);
		for (long long i = 0; i < n; i++) {
			snprintf(buf, sizeof(buf), "%lld%s", f.i + i * st.i, f.unit);
			if ((rc = add_text(sw, t, buf, r, err)))
				return rc;
		}
		return 0;
	}
	double q = (to.v - f.v) / st.v;
	if (q < -1e-9)
		return cfg_errorf(err, ns ? ns : r, "step %g goes away from 'to'", st.v);
	if (q + 1 > SWEEP_MAX_POINTS)
		return cfg_errorf(err, r, "%.0f values (limit %d)", q + 1, SWEEP_MAX_POINTS);
	long n = (long)floor(q + 1e-9) + 1;
	for (long i = 0; i < n; i++) {
		double v = f.v + (double)i * st.v;
		if (i == n - 1 && fabs(v - to.v) <= 1e-9 * fabs(st.v))
			v = to.v; /* the inclusive end exactly as written */
		fmt_double(buf, sizeof(buf), v, f.unit);
		if ((rc = add_text(sw, t, buf, r, err)))
			return rc;
	}
	return 0;
}

static int expand_log(struct sweep *sw, struct table *t, const struct cfg_node *r,
		      struct sim_error *err)
{
	if (r->kind != CFG_MAP)
		return cfg_errorf(err, r, "expected {from: A, to: B, per_decade: N | factor: F}");
	const struct cfg_node *nf = cfg_get(r, "from"), *nt = cfg_get(r, "to"),
			      *npd = cfg_get(r, "per_decade"), *nfa = cfg_get(r, "factor"),
			      *nr = cfg_get(r, "round");
	for (const struct cfg_node *c = r->child; c; c = c->next)
		if (strcmp(c->key, "from") && strcmp(c->key, "to") && strcmp(c->key, "per_decade") &&
		    strcmp(c->key, "factor") && strcmp(c->key, "round"))
			return cfg_errorf(err, c,
					  "unknown key (expected from, to, per_decade or factor, round)");
	if (!nf || !nt || (!npd == !nfa))
		return cfg_errorf(err, r, "a log range needs from, to and one of per_decade, factor");
	struct quantity f, to, step;
	int rc = parse_quantity(nf, &f, err);
	if (!rc)
		rc = parse_quantity(nt, &to, err);
	if (!rc)
		rc = same_unit(nt, &f, &to, err);
	if (!rc)
		rc = parse_quantity(npd ? npd : nfa, &step, err);
	if (rc)
		return rc;
	if (step.unit[0])
		return cfg_errorf(err, npd ? npd : nfa, "takes a plain number, not '%s'", step.unit);
	bool round_int = false;
	if (nr) {
		struct sim_error e2 = { 0 };
		if (nr->kind != CFG_SCALAR || cfg_parse_bool(nr->value, &round_int, &e2))
			return cfg_errorf(err, nr, "expected true or false");
	}
	if (f.v <= 0 || to.v < f.v)
		return cfg_errorf(err, r, "a log range needs 0 < from <= to");
	char buf[96];
	double prev = NAN;
	if (npd) {
		if (!step.is_int || step.i < 1)
			return cfg_errorf(err, npd, "expected a positive integer");
		double q = (double)step.i * log10(to.v / f.v);
		if (q + 1 > SWEEP_MAX_POINTS)
			return cfg_errorf(err, r, "too many values (limit %d)", SWEEP_MAX_POINTS);
		long n = (long)floor(q + 1e-9) + 1;
		for (long i = 0; i < n; i++) {
			double v = f.v * pow(10.0, (double)i / (double)step.i);
			if (round_int)
				v = floor(v + 0.5);
			if (v == prev)
				continue;
			prev = v;
			snprintf(buf, sizeof(buf), "%.6g%s", v, f.unit);
			if (round_int)
				snprintf(buf, sizeof(buf), "%.0f%s", v, f.unit);
			if ((rc = add_text(sw, t, buf, r, err)))
				return rc;
		}
		return 0;
	}
	if (step.v <= 1)
		return cfg_errorf(err, nfa, "factor must be > 1");
	if (f.is_int && step.is_int) {
		for (long long v = f.i; (double)v <= to.v * (1 + 1e-12); v *= step.i) {
			snprintf(buf, sizeof(buf), "%lld%s", v, f.unit);
			if ((rc = add_text(sw, t, buf, r, err)))
				return rc;
			if (v > INT64_MAX / step.i)
				break;
		}
		return 0;
	}
	for (long i = 0;; i++) {
		double v = f.v * pow(step.v, (double)i);
		if (v > to.v * (1 + 1e-9))
			break;
		if (round_int)
			v = floor(v + 0.5);
		if (v == prev)
			continue;
		prev = v;
		if (round_int)
			snprintf(buf, sizeof(buf), "%.0f%s", v, f.unit);
		else
			snprintf(buf, sizeof(buf), "%.12g%s", v, f.unit);
		if ((rc = add_text(sw, t, buf, r, err)))
			return rc;
	}
	return 0;
}

/* One axis: key -> list | scalar | {values|range|log}. */
static int expand_leaf(struct sweep *sw, const struct cfg_node *n, struct table *t,
		       struct sim_error *err)
{
	if (!key_ok(n->key))
		return cfg_errorf(err, n, "'%s' is not a dotted key", n->key);
	int prev = col_find(sw, n->key);
	if (prev >= 0)
		return cfg_errorf(err, n, "'%s' is swept twice", n->key);
	int col = col_add(sw, n->key);
	if (col < 0)
		return oom(err);
	t->ncols = 1;
	t->cols = malloc(sizeof(int));
	if (!t->cols)
		return oom(err);
	t->cols[0] = col;
	int rc = 0;
	const struct cfg_node *vals = n;
	if (n->kind == CFG_MAP) {
		int nspec = 0;
		for (const struct cfg_node *c = n->child; c; c = c->next) {
			if (strcmp(c->key, "values") && strcmp(c->key, "range") && strcmp(c->key, "log"))
				return cfg_errorf(err, c, "unknown key (expected values, range or log)");
			nspec++;
		}
		if (nspec != 1)
			return cfg_errorf(err, n, "give exactly one of values, range, log");
		const struct cfg_node *c = n->child;
		if (strcmp(c->key, "range") == 0)
			rc = expand_range(sw, t, c, err);
		else if (strcmp(c->key, "log") == 0)
			rc = expand_log(sw, t, c, err);
		else
			vals = c;
		if (vals == n)
			goto done;
	}
	if (vals->kind == CFG_SEQ) {
		for (const struct cfg_node *c = vals->child; c && !rc; c = c->next) {
			struct sweep_value *v = value_from_node(sw, c);
			if (!v || leaf_values_add(sw, t, v))
				return oom(err);
		}
	} else if (vals->kind == CFG_SCALAR) {
		if (!vals->quoted && (!vals->value || !*vals->value || !strcmp(vals->value, "~") ||
				      !strcmp(vals->value, "null")))
			return cfg_errorf(err, vals, "axis has no values (expected a list, range or log)");
		struct sweep_value *v = value_from_node(sw, vals);
		if (!v || leaf_values_add(sw, t, v))
			return oom(err);
	} else {
		return cfg_errorf(err, vals, "expected a list of values");
	}
done:
	if (!rc && t->nrows == 0)
		return cfg_errorf(err, n, "axis has no values");
	return rc;
}

static int expand_group(struct sweep *sw, const struct cfg_node *group, bool zip,
			struct table *out, struct sim_error *err);

static int expand_entry(struct sweep *sw, const struct cfg_node *n, struct table *t,
			struct sim_error *err)
{
	if (strcmp(n->key, "zip") == 0 || strcmp(n->key, "grid") == 0)
		return expand_group(sw, n, n->key[0] == 'z', t, err);
	return expand_leaf(sw, n, t, err);
}

/* Combine children tables: zip (same length, side by side) or grid
 * (cartesian, first slowest). */
static int combine(const struct cfg_node *at, struct table *parts, int nparts, bool zip,
		   struct table *out, struct sim_error *err)
{
	memset(out, 0, sizeof(*out));
	long nrows = 1;
	int ncols = 0;
	for (int i = 0; i < nparts; i++) {
		ncols += parts[i].ncols;
		if (zip) {
			nrows = parts[0].nrows; /* lengths checked by the caller */
		} else {
			if (parts[i].nrows > SWEEP_MAX_POINTS / nrows)
				return cfg_errorf(err, at, "the grid has more than %d points",
						  SWEEP_MAX_POINTS);
			nrows *= parts[i].nrows;
		}
	}
	out->ncols = ncols;
	out->nrows = nrows;
	out->cols = malloc((size_t)(ncols ? ncols : 1) * sizeof(int));
	out->cells = malloc((size_t)(nrows * (ncols ? ncols : 1)) * sizeof(*out->cells));
	if (!out->cols || !out->cells)
		return oom(err);
	int c0 = 0;
	for (int i = 0; i < nparts; i++) {
		memcpy(out->cols + c0, parts[i].cols, (size_t)parts[i].ncols * sizeof(int));
		c0 += parts[i].ncols;
	}
	for (long r = 0; r < nrows; r++) {
		long rem = r;
		int c = ncols;
		/* the last part varies fastest */
		for (int i = nparts - 1; i >= 0; i--) {
			long pr = zip ? r : rem % parts[i].nrows;
			if (!zip)
				rem /= parts[i].nrows;
			c -= parts[i].ncols;
			memcpy(out->cells + r * ncols + c, parts[i].cells + pr * parts[i].ncols,
			       (size_t)parts[i].ncols * sizeof(*out->cells));
		}
	}
	return 0;
}

/* The entries of a group: children of a map, or of each map in a list. */
static int group_entries(const struct cfg_node *g, const struct cfg_node **ents, int max,
			 struct sim_error *err)
{
	int n = 0;
	if (g->kind == CFG_MAP) {
		for (const struct cfg_node *c = g->child; c; c = c->next) {
			if (n == max)
				return cfg_errorf(err, c, "too many axes (limit %d)", max);
			ents[n++] = c;
		}
	} else if (g->kind == CFG_SEQ) {
		for (const struct cfg_node *item = g->child; item; item = item->next) {
			if (item->kind != CFG_MAP)
				return cfg_errorf(err, item,
						  "expected KEY: VALUES (or zip:/grid: with axes)");
			for (const struct cfg_node *c = item->child; c; c = c->next) {
				if (n == max)
					return cfg_errorf(err, c, "too many axes (limit %d)", max);
				ents[n++] = c;
			}
		}
	} else {
		return cfg_errorf(err, g, "expected a map (or list) of axes");
	}
	return n;
}

#define SWEEP_MAX_AXES 64

static int expand_group(struct sweep *sw, const struct cfg_node *group, bool zip,
			struct table *out, struct sim_error *err)
{
	const struct cfg_node *ents[SWEEP_MAX_AXES];
	int n = group_entries(group, ents, SWEEP_MAX_AXES, err);
	if (n < 0)
		return n;
	struct table parts[SWEEP_MAX_AXES];
	memset(parts, 0, sizeof(parts));
	int rc = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = expand_entry(sw, ents[i], &parts[i], err);
	if (!rc && zip) {
		for (int i = 1; i < n; i++) {
			if (parts[i].nrows != parts[0].nrows) {
				rc = cfg_errorf(err, ents[i],
						"has %ld values but '%s' has %ld (zipped axes need the same length)",
						parts[i].nrows, ents[0]->key, parts[0].nrows);
				break;
			}
		}
	}
	if (!rc)
		rc = combine(group, parts, n, zip, out, err);
	for (int i = 0; i < n; i++)
		table_free(&parts[i]);
	if (rc)
		table_free(out);
	return rc;
}

/* -------------------------------------------------- include / exclude */

static bool num_of(const char *s, double *v)
{
	char *end;
	errno = 0;
	if (!*s)
		return false;
	*v = strtod(s, &end);
	return *end == '\0' && !errno && end != s;
}

static bool value_eq(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return true;
	double x, y;
	return num_of(a, &x) && num_of(b, &y) && x == y;
}

static bool cell_matches(const struct sweep_value *cell, const struct cfg_node *want)
{
	if (!cell)
		return false;
	if (want->kind == CFG_SEQ) { /* any of */
		for (const struct cfg_node *c = want->child; c; c = c->next)
			if (cell_matches(cell, c))
				return true;
		return false;
	}
	struct strbuf b = { 0 };
	node_to_flow(&b, want);
	bool eq = !b.failed && value_eq(cell->text, b.s ? b.s : "");
	free(b.s);
	return eq;
}

static int check_filter_list(const struct sweep *sw, const struct cfg_node *list, bool need_cols,
			     struct sim_error *err)
{
	if (list->kind != CFG_SEQ)
		return cfg_errorf(err, list, "expected a list of {KEY: VALUE, ...} maps");
	for (const struct cfg_node *e = list->child; e; e = e->next) {
		if (e->kind != CFG_MAP || !e->child)
			return cfg_errorf(err, e, "expected a map {KEY: VALUE, ...}");
		for (const struct cfg_node *c = e->child; c; c = c->next) {
			if (!key_ok(c->key))
				return cfg_errorf(err, c, "'%s' is not a dotted key", c->key);
			if (need_cols && col_find(sw, c->key) < 0)
				return cfg_errorf(err, c, "'%s' is not a swept key", c->key);
		}
	}
	return 0;
}

static bool row_excluded(const struct sweep *sw, const struct sweep_value *const *row,
			 const struct cfg_node *excl)
{
	for (const struct cfg_node *e = excl ? excl->child : NULL; e; e = e->next) {
		bool all = true;
		for (const struct cfg_node *c = e->child; c && all; c = c->next)
			all = cell_matches(row[col_find(sw, c->key)], c);
		if (all)
			return true;
	}
	return false;
}

/* ------------------------------------------------------------- ids */

static void fnv_add(uint64_t *h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		*h ^= *p;
		*h *= 0x100000001b3ull;
	}
}

/* FNV-1a over "key=value\n" in key order (so reordering the file's axes
 * keeps ids' hash part) and "rep=N\n" when there are repetitions. order
 * is scratch space for nkeys column indexes. */
static uint32_t point_hash(const struct sweep *sw, const struct sweep_point *p, int *order)
{
	int n = 0;
	for (int c = 0; c < sw->nkeys; c++) {
		if (!p->vals[c])
			continue;
		/* insertion sort by key: few keys, and no qsort context needed */
		int j = n++;
		while (j > 0 && strcmp(sw->keys[order[j - 1]], sw->keys[c]) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = c;
	}
	uint64_t h = 0xcbf29ce484222325ull;
	for (int i = 0; i < n; i++) {
		fnv_add(&h, sw->keys[order[i]]);
		fnv_add(&h, "=");
		fnv_add(&h, p->vals[order[i]]->text);
		fnv_add(&h, "\n");
	}
	if (sw->repetitions > 1) {
		char rep[32];
		snprintf(rep, sizeof(rep), "rep=%d\n", p->rep);
		fnv_add(&h, rep);
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* ------------------------------------------------------------ metrics */

static int parse_metrics(struct sweep *sw, const struct cfg_node *m, struct sim_error *err)
{
	if (m->kind != CFG_MAP)
		return cfg_errorf(err, m, "expected NAME: JSON.PATH or NAME: {path: P, scale: X}");
	int n = 0;
	for (const struct cfg_node *c = m->child; c; c = c->next)
		n++;
	sw->metrics = calloc((size_t)(n ? n : 1), sizeof(*sw->metrics));
	if (!sw->metrics)
		return oom(err);
	for (const struct cfg_node *c = m->child; c; c = c->next) {
		struct sweep_metric *mt = &sw->metrics[sw->nmetrics];
		const struct cfg_node *pn = c, *sn = NULL;
		if (!key_ok(c->key))
			return cfg_errorf(err, c, "metric name '%s' must have no blanks or '='", c->key);
		if (c->kind == CFG_MAP) {
			for (const struct cfg_node *k = c->child; k; k = k->next)
				if (strcmp(k->key, "path") && strcmp(k->key, "scale") &&
				    strcmp(k->key, "missing"))
					return cfg_errorf(err, k, "unknown key (expected path, scale, missing)");
			pn = cfg_get(c, "path");
			sn = cfg_get(c, "scale");
			const struct cfg_node *mn = cfg_get(c, "missing");
			if (mn) {
				struct sim_error e2 = { 0 };
				if (mn->kind != CFG_SCALAR || cfg_parse_double(mn->value, &mt->missing, &e2))
					return cfg_errorf(err, mn, "expected a number");
				mt->has_missing = true;
			}
			if (!pn)
				return cfg_errorf(err, c, "a metric needs a path");
		}
		if (pn->kind != CFG_SCALAR || !pn->value || !*pn->value)
			return cfg_errorf(err, pn, "expected a JSON path such as classes.fg.read.lat_ns.p99");
		char part[SWEEP_PATH_MAX];
		for (const char *cur = pn->value; sweep_path_next(&cur, part, sizeof(part));) {
			const char *why = *part ? sweep_json_path_check(part) : "empty term in a sum";
			if (why)
				return cfg_errorf(err, pn, "'%s': %s", part, why);
		}
		mt->scale = 1.0;
		if (sn) {
			struct sim_error e2 = { 0 };
			if (sn->kind != CFG_SCALAR || cfg_parse_double(sn->value, &mt->scale, &e2))
				return cfg_errorf(err, sn, "expected a number");
		}
		mt->name = strdup(c->key);
		mt->path = strdup(pn->value);
		mt->node = c;
		sw->nmetrics++;
		if (!mt->name || !mt->path)
			return oom(err);
	}
	return 0;
}

/* ---------------------------------------------------------- fixed sets */

static int add_set(struct sweep *sw, const char *key, const struct cfg_node *val,
		   struct sim_error *err)
{
	if (val->kind == CFG_MAP && val->child) { /* nested maps flatten to dotted keys */
		for (const struct cfg_node *c = val->child; c; c = c->next) {
			char k[512];
			if ((size_t)snprintf(k, sizeof(k), "%s.%s", key, c->key) >= sizeof(k))
				return cfg_errorf(err, c, "key too long");
			int rc = add_set(sw, k, c, err);
			if (rc)
				return rc;
		}
		return 0;
	}
	if (!key_ok(key))
		return cfg_errorf(err, val, "'%s' is not a dotted key", key);
	struct strbuf b = { 0 };
	sb_puts(&b, key);
	sb_puts(&b, "=");
	node_to_flow(&b, val);
	char **ns = realloc(sw->sets, (size_t)(sw->nsets + 1) * sizeof(*ns));
	const struct cfg_node **nn =
		realloc(sw->set_nodes, (size_t)(sw->nsets + 1) * sizeof(*nn));
	if (ns)
		sw->sets = ns;
	if (nn)
		sw->set_nodes = nn;
	if (b.failed || !ns || !nn) {
		free(b.s);
		return oom(err);
	}
	sw->sets[sw->nsets] = b.s;
	sw->set_nodes[sw->nsets++] = val;
	return 0;
}

/* ------------------------------------------------------------- load */

uint64_t sweep_rep_seed(uint64_t base, int rep)
{
	char name[32];
	snprintf(name, sizeof(name), "rep/%d", rep);
	return sim_rng_derive_seed(base, name) & ((UINT64_C(1) << 53) - 1);
}

static const char *const top_keys[] = {
	"name", "description", "base", "set", "axes", "combine", "include_points",
	"exclude_points", "exclude", "repetitions", "repeat", "seed", "metrics", NULL,
};

static int resolve_base(struct sweep *sw, const struct cfg_node *b, const char *name,
			struct sim_error *err)
{
	if (!b || b->kind != CFG_SCALAR || !b->value || !*b->value)
		return cfg_errorf(err, b ? b : cfg_root(sw->doc),
				  "base: expected the path of a scenario, relative to this file");
	const char *slash = strrchr(name, '/');
	size_t need = strlen(b->value) + (slash ? (size_t)(slash - name) + 2 : 1);
	sw->base = malloc(need);
	if (!sw->base)
		return oom(err);
	if (b->value[0] == '/' || !slash)
		snprintf(sw->base, need, "%s", b->value);
	else
		snprintf(sw->base, need, "%.*s/%s", (int)(slash - name), name, b->value);
	return 0;
}

/* Seed of the base scenario (after the fixed sets), 1 when it has none. */
static int base_seed_of(struct sweep *sw, uint64_t *seed, struct sim_error *err)
{
	struct cfg_doc *d;
	int rc = cfg_load_file(sw->base, &d, err);
	if (rc)
		return rc == SIM_E_IO ? (err->code = SIM_E_INPUT) : rc;
	for (int i = 0; i < sw->nsets && !rc; i++)
		rc = cfg_set(d, sw->sets[i], err);
	const struct cfg_node *s = rc ? NULL : cfg_get(cfg_root(d), "seed");
	int64_t v = 1;
	if (s && s->kind == CFG_SCALAR && cfg_parse_int(s->value, &v, err))
		rc = cfg_errorf(err, s, "expected an integer seed");
	*seed = (uint64_t)v;
	cfg_free(d);
	return rc;
}

static int sweep_build(struct sweep *sw, struct cfg_node *root, const char *name, bool read_base,
		       struct sim_error *err)
{
	int rc;
	if (!root || root->kind != CFG_MAP)
		return sim_errorf(err, SIM_E_INPUT, "%s:1:1: expected a map with base: and axes:",
				  name);
	for (const struct cfg_node *c = root->child; c; c = c->next) {
		bool known = false;
		for (int i = 0; top_keys[i]; i++)
			known |= strcmp(c->key, top_keys[i]) == 0;
		if (!known)
			return cfg_errorf(err, c,
					  "unknown key (expected base, set, axes, combine, include_points, exclude_points, repetitions, repeat, seed, metrics)");
	}
	if ((rc = resolve_base(sw, cfg_get(root, "base"), name, err)))
		return rc;
	if (read_base && access(sw->base, R_OK) != 0)
		return cfg_errorf(err, cfg_get(root, "base"), "cannot read '%s': %s", sw->base,
				  strerror(errno));

	const struct cfg_node *set = cfg_get(root, "set");
	if (set) {
		if (set->kind != CFG_MAP)
			return cfg_errorf(err, set, "expected a map {dotted.key: value}");
		for (const struct cfg_node *c = set->child; c; c = c->next)
			if ((rc = add_set(sw, c->key, c, err)))
				return rc;
	}

	sw->repetitions = 1;
	const struct cfg_node *reps = cfg_get(root, "repetitions");
	if (reps) {
		int64_t v;
		if (reps->kind != CFG_SCALAR || cfg_parse_int(reps->value, &v, err) || v < 1 ||
		    v > 100000)
			return cfg_errorf(err, reps, "expected an integer from 1 to 100000");
		sw->repetitions = (int)v;
	}
	const struct cfg_node *seed = cfg_get(root, "seed");
	if (seed) {
		int64_t v;
		if (seed->kind != CFG_SCALAR || cfg_parse_int(seed->value, &v, err) || v < 0)
			return cfg_errorf(err, seed, "expected a non-negative integer");
		sw->base_seed = (uint64_t)v;
	}
	sw->seeds_derived = seed || sw->repetitions > 1;
	if (sw->seeds_derived && !seed) {
		sw->base_seed = 1;
		if (read_base && (rc = base_seed_of(sw, &sw->base_seed, err)))
			return rc;
	}

	bool zip = false;
	const struct cfg_node *comb = cfg_get(root, "combine");
	if (comb) {
		if (comb->kind != CFG_SCALAR || (strcmp(comb->value, "grid") && strcmp(comb->value, "zip")))
			return cfg_errorf(err, comb, "expected grid or zip");
		zip = strcmp(comb->value, "zip") == 0;
	}

	struct table t = { 0 };
	const struct cfg_node *axes = cfg_get(root, "axes");
	if (axes && !(axes->kind == CFG_SCALAR && !*axes->value)) {
		if ((rc = expand_group(sw, axes, zip, &t, err)))
			return rc;
	} else {
		t.nrows = 1; /* no axes: the base scenario alone */
		t.cells = calloc(1, sizeof(*t.cells));
		t.cols = calloc(1, sizeof(int));
		if (!t.cells || !t.cols) {
			table_free(&t);
			return oom(err);
		}
	}
	/* repeat: axes are aggregated over; a grid crossed inside each assignment */
	struct table rt = { 0 };
	const struct cfg_node *rep_axes = cfg_get(root, "repeat");
	int first_rep_col = sw->nkeys;
	if (rep_axes && !(rep_axes->kind == CFG_SCALAR && !*rep_axes->value)) {
		if ((rc = expand_group(sw, rep_axes, false, &rt, err))) {
			table_free(&t);
			return rc;
		}
	}
	if (rt.nrows == 0) {
		rt.nrows = 1;
		rt.ncols = 0;
	}
	sw->repeat_rows = (int)(rt.nrows < SWEEP_MAX_POINTS ? rt.nrows : SWEEP_MAX_POINTS);
	int nrepcols = sw->nkeys - first_rep_col;
	if (col_find(sw, "seed") >= 0 && sw->seeds_derived) {
		table_free(&rt);
		table_free(&t);
		return cfg_errorf(err, reps ? reps : seed,
				  "the axis 'seed' and derived seeds (repetitions, seed:) exclude each other");
	}

	const struct cfg_node *excl = cfg_get(root, "exclude_points");
	const struct cfg_node *excl2 = cfg_get(root, "exclude");
	if (excl && excl2) {
		table_free(&t);
		table_free(&rt);
		return cfg_errorf(err, excl2, "give exclude or exclude_points, not both");
	}
	if (!excl)
		excl = excl2;
	const struct cfg_node *incl = cfg_get(root, "include_points");
	if ((excl && (rc = check_filter_list(sw, excl, true, err))) ||
	    (incl && (rc = check_filter_list(sw, incl, false, err)))) {
		table_free(&t);
		table_free(&rt);
		return rc;
	}
	/* a repeat: value is averaged over, so no filter may pin it */
	for (int pass = 0; pass < 2; pass++)
		for (const struct cfg_node *e = (pass ? incl : excl) ? (pass ? incl : excl)->child : NULL;
		     e; e = e->next)
			for (const struct cfg_node *k = e->child; k; k = k->next) {
				int col = col_find(sw, k->key);
				if (col >= first_rep_col && col < first_rep_col + nrepcols) {
					table_free(&t);
					table_free(&rt);
					return cfg_errorf(err, k, "'%s' is a repeat: axis (aggregated over); filters take the ordinary axes", k->key);
				}
			}
	/* include_points may name keys no axis sweeps: they become columns */
	for (const struct cfg_node *e = incl ? incl->child : NULL; e; e = e->next)
		for (const struct cfg_node *c = e->child; c; c = c->next)
			if (col_find(sw, c->key) < 0 && col_add(sw, c->key) < 0) {
				table_free(&t);
				table_free(&rt);
				return oom(err);
			}

	/* rows: kept expanded rows, then include_points not already present */
	int nk = sw->nkeys;
	long ninc = 0;
	for (const struct cfg_node *e = incl ? incl->child : NULL; e; e = e->next)
		ninc++;
	long cap = t.nrows + ninc;
	const struct sweep_value **rows = calloc((size_t)(cap * (nk ? nk : 1)), sizeof(*rows));
	if (!rows) {
		table_free(&t);
		table_free(&rt);
		return oom(err);
	}
	long nrows = 0;
	for (long r = 0; r < t.nrows; r++) {
		const struct sweep_value **row = rows + nrows * nk;
		for (int c = 0; c < t.ncols; c++)
			row[t.cols[c]] = t.cells[r * t.ncols + c];
		if (row_excluded(sw, row, excl)) {
			memset(row, 0, (size_t)nk * sizeof(*row));
			continue;
		}
		nrows++;
	}
	table_free(&t);
	for (const struct cfg_node *e = incl ? incl->child : NULL; e; e = e->next) {
		const struct sweep_value **row = rows + nrows * nk;
		for (const struct cfg_node *c = e->child; c; c = c->next) {
			row[col_find(sw, c->key)] = value_from_node(sw, c);
			if (!row[col_find(sw, c->key)]) {
				free(rows);
				table_free(&rt);
				return oom(err);
			}
		}
		bool dup = false;
		for (long r = 0; r < nrows && !dup; r++) {
			dup = true;
			for (int c = 0; c < nk && dup; c++) {
				const struct sweep_value *a = rows[r * nk + c], *b = row[c];
				dup = (!a && !b) || (a && b && value_eq(a->text, b->text));
			}
		}
		if (dup)
			memset(row, 0, (size_t)nk * sizeof(*row));
		else
			nrows++;
	}

	long per_group = (long)sw->repeat_rows * sw->repetitions;
	if (nrows * per_group > SWEEP_MAX_POINTS) {
		free(rows);
		table_free(&rt);
		return cfg_errorf(err, reps ? reps : root, "more than %d points", SWEEP_MAX_POINTS);
	}
	sw->key_repeat = calloc((size_t)(nk ? nk : 1), sizeof(bool));
	if (!sw->key_repeat) {
		free(rows);
		table_free(&rt);
		return oom(err);
	}
	for (int c = first_rep_col; c < first_rep_col + nrepcols; c++)
		sw->key_repeat[c] = true;
	sw->ngroups = (int)nrows;
	sw->npoints = (int)(nrows * per_group);
	sw->points = calloc((size_t)(sw->npoints ? sw->npoints : 1), sizeof(*sw->points));
	sw->valslab = calloc((size_t)sw->npoints * (size_t)(nk ? nk : 1), sizeof(*sw->valslab));
	int *order = malloc((size_t)(nk ? nk : 1) * sizeof(int));
	if (!sw->points || !sw->valslab || !order) {
		free(order);
		free(rows);
		table_free(&rt);
		return oom(err);
	}
	int width = 4;
	for (long lim = 10000; sw->npoints - 1 >= lim && width < 12; lim *= 10)
		width++;
	for (int i = 0; i < sw->npoints; i++) {
		struct sweep_point *p = &sw->points[i];
		long r = i / per_group, rr = (i / sw->repetitions) % sw->repeat_rows;
		p->index = i;
		p->group = (int)r;
		p->rep = i % sw->repetitions;
		p->vals = sw->valslab + (size_t)i * (size_t)(nk ? nk : 1);
		memcpy(p->vals, rows + r * nk, (size_t)nk * sizeof(*p->vals));
		for (int c = 0; c < rt.ncols; c++)
			p->vals[rt.cols[c]] = rt.cells[rr * rt.ncols + c];
		p->seed_set = sw->seeds_derived;
		if (p->seed_set)
			p->seed = sweep_rep_seed(sw->base_seed, p->rep);
		snprintf(p->id, sizeof(p->id), "%0*d-%08x", width, i, point_hash(sw, p, order));
	}
	free(order);
	free(rows);
	table_free(&rt);

	const struct cfg_node *m = cfg_get(root, "metrics");
	if (m && (rc = parse_metrics(sw, m, err)))
		return rc;
	return 0;
}

/* `include:` belongs to the config loader (files); someone writing the
 * extra points there gets told where they go. */
static void include_hint(struct sim_error *err)
{
	size_t n = strlen(err->msg);
	if (strstr(err->msg, "include") && strstr(err->msg, "expected a file name") &&
	    n + 60 < sizeof(err->msg))
		snprintf(err->msg + n, sizeof(err->msg) - n,
			 " (extra sweep points go under include_points:)");
}

static int sweep_load_common(struct cfg_doc *doc, struct cfg_node *root, const char *name,
			     bool read_base, struct sweep **out, struct sim_error *err)
{
	struct sweep *sw = calloc(1, sizeof(*sw));
	if (!sw) {
		cfg_free(doc);
		return oom(err);
	}
	sw->doc = doc;
	sw->file = strdup(name);
	int rc = sw->file ? sweep_build(sw, root ? root : cfg_root(doc), name, read_base, err)
			  : oom(err);
	if (rc) {
		sweep_free(sw);
		return rc;
	}
	*out = sw;
	return 0;
}

int sweep_load_file(const char *path, struct sweep **out, struct sim_error *err)
{
	struct cfg_doc *doc;
	*out = NULL;
	int rc = cfg_load_file(path, &doc, err);
	if (rc) {
		include_hint(err);
		return rc == SIM_E_IO ? (err->code = SIM_E_INPUT) : rc;
	}
	return sweep_load_common(doc, NULL, path, true, out, err);
}

int sweep_load_subtree(const char *path, const char *key, struct sweep **out,
		       struct sim_error *err)
{
	struct cfg_doc *doc;
	*out = NULL;
	int rc = cfg_load_file(path, &doc, err);
	if (rc)
		return rc == SIM_E_IO ? (err->code = SIM_E_INPUT) : rc;
	struct cfg_node *n = cfg_get(cfg_root(doc), key);
	if (!n || n->kind != CFG_MAP) {
		rc = cfg_errorf(err, n ? n : cfg_root(doc), "expected '%s:' to be a sweep (a map with base:)",
				key);
		cfg_free(doc);
		return rc;
	}
	return sweep_load_common(doc, n, path, true, out, err);
}

int sweep_load_string(const char *text, size_t len, const char *name, struct sweep **out,
		      struct sim_error *err)
{
	struct cfg_doc *doc;
	*out = NULL;
	int rc = cfg_load_string(text, len, name, &doc, err);
	if (rc) {
		include_hint(err);
		return rc;
	}
	return sweep_load_common(doc, NULL, name ? name : "<string>", false, out, err);
}

/* ------------------------------------------------------------ queries */

int sweep_find_point(const struct sweep *sw, const char *spec, struct sim_error *err)
{
	bool digits = *spec != '\0';
	for (const char *p = spec; *p; p++)
		digits &= isdigit((unsigned char)*p) != 0;
	if (digits) {
		errno = 0;
		long v = strtol(spec, NULL, 10);
		if (!errno && v >= 0 && v < sw->npoints)
			return (int)v;
		sim_errorf(err, SIM_E_INPUT, "%s: --point %s: the sweep has points 0 to %d", sw->file,
			   spec, sw->npoints - 1);
		return -1;
	}
	for (int i = 0; i < sw->npoints; i++)
		if (strcmp(sw->points[i].id, spec) == 0)
			return i;
	sim_errorf(err, SIM_E_INPUT, "%s: --point %s: no point has this id (see --list)", sw->file,
		   spec);
	return -1;
}

char **sweep_point_sets(const struct sweep *sw, const struct sweep_point *p, int *n)
{
	char **v = calloc((size_t)(sw->nsets + sw->nkeys + 1), sizeof(char *));
	int k = 0;
	if (!v)
		return NULL;
	for (int i = 0; i < sw->nsets; i++)
		if (!(v[k++] = strdup(sw->sets[i])))
			goto fail;
	for (int c = 0; c < sw->nkeys; c++) {
		if (!p->vals[c])
			continue;
		size_t len = strlen(sw->keys[c]) + strlen(p->vals[c]->text) + 2;
		if (!(v[k] = malloc(len)))
			goto fail;
		snprintf(v[k++], len, "%s=%s", sw->keys[c], p->vals[c]->text);
	}
	*n = k;
	return v;
fail:
	sweep_free_sets(v, k);
	return NULL;
}

bool sweep_point_print_keys(FILE *f, const struct sweep *sw, const struct sweep_point *p,
			    const char *first)
{
	bool any = false;
	for (int c = 0; c < sw->nkeys; c++) {
		if (!p->vals[c])
			continue;
		fprintf(f, "%s%s=%s", any ? " " : first, sw->keys[c], p->vals[c]->text);
		any = true;
	}
	if (sw->repetitions > 1)
		fprintf(f, "%srep=%d", any ? " " : first, p->rep), any = true;
	if (p->seed_set)
		fprintf(f, "%sseed=%llu", any ? " " : first, (unsigned long long)p->seed), any = true;
	return any;
}

void sweep_free_sets(char **sets, int n)
{
	for (int i = 0; sets && i < n; i++)
		free(sets[i]);
	free(sets);
}

/* A value typed the way cfg_to_json types scalars (integers, reals,
 * booleans, else a string). */
static json_t *typed(const char *s)
{
	if (!strcmp(s, "true"))
		return json_true();
	if (!strcmp(s, "false"))
		return json_false();
	char *end;
	errno = 0;
	long long i = strtoll(s, &end, 10);
	if (*s && !*end && !errno)
		return json_integer((json_int_t)i);
	bool plain = *s != '\0';
	for (const char *p = s; *p; p++)
		plain &= isdigit((unsigned char)*p) || strchr("+-.eE", *p);
	double d;
	if (plain && num_of(s, &d) && isfinite(d))
		return json_real(d);
	return json_string(s);
}

json_t *sweep_point_assignment_json(const struct sweep *sw, const struct sweep_point *p)
{
	json_t *o = json_object();
	for (int c = 0; o && c < sw->nkeys; c++)
		if (p->vals[c])
			json_object_set_new(o, sw->keys[c], typed(p->vals[c]->text));
	return o;
}

/* ------------------------------------------------------------ JSON paths */

/* First element of array arr that is an object whose fields match every
 * FIELD=VALUE of the comma-separated sel (numbers compare numerically). */
static const json_t *select_elem(const json_t *arr, const char *sel)
{
	size_t i;
	json_t *el;
	if (!json_is_array(arr))
		return NULL;
	json_array_foreach((json_t *)arr, i, el) {
		bool all = json_is_object(el);
		char tmp[256], *save = NULL;
		snprintf(tmp, sizeof(tmp), "%s", sel);
		for (char *c = strtok_r(tmp, ",", &save); c && all; c = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(c, '=');
			*eq = '\0';
			const json_t *f = json_object_get(el, c);
			char vb[64];
			const char *fv = NULL;
			if (json_is_string(f)) {
				fv = json_string_value(f);
			} else if (json_is_integer(f)) {
				snprintf(vb, sizeof(vb), "%lld", (long long)json_integer_value(f));
				fv = vb;
			} else if (json_is_real(f)) {
				snprintf(vb, sizeof(vb), "%.17g", json_real_value(f));
				fv = vb;
			} else if (json_is_boolean(f)) {
				fv = json_is_true(f) ? "true" : "false";
			}
			all = fv && value_eq(fv, eq + 1);
		}
		if (all)
			return el;
	}
	return NULL;
}

/* Walk path; with doc NULL only the syntax is checked. */
static const json_t *path_walk(const json_t *doc, const char *path, bool check_only,
			       const char **why)
{
	const char *s = path;
	const json_t *cur = doc;
	char key[256];
	*why = NULL;
	if (!*s) {
		*why = "empty path";
		return NULL;
	}
	while (*s) {
		if (*s == '[') {
			const char *close;
			s++;
			if (*s == '"') {
				close = strchr(s + 1, '"');
				if (!close || close[1] != ']') {
					*why = "expected [\"KEY\"]";
					return NULL;
				}
				snprintf(key, sizeof(key), "%.*s", (int)(close - s - 1), s + 1);
				if (!check_only)
					cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
				s = close + 2;
			} else {
				close = strchr(s, ']');
				if (!close || close == s) {
					*why = "expected [INDEX], [FIELD=VALUE] or [\"KEY\"]";
					return NULL;
				}
				size_t n = (size_t)(close - s);
				bool digits = true;
				for (size_t i = 0; i < n; i++)
					digits &= isdigit((unsigned char)s[i]) != 0;
				if (digits) {
					if (!check_only)
						cur = json_is_array(cur)
							      ? json_array_get(cur, (size_t)strtoul(s, NULL, 10))
							      : NULL;
				} else {
					/* selector list f=v[,f=v] */
					char sel[256];
					if (n >= sizeof(sel)) {
						*why = "selector too long";
						return NULL;
					}
					memcpy(sel, s, n);
					sel[n] = '\0';
					for (char *c = sel; c; c = strchr(c, ',')) {
						if (*c == ',')
							c++;
						char *eq = strchr(c, '=');
						char *comma = strchr(c, ',');
						if (!eq || eq == c || (comma && eq > comma)) {
							*why = "expected [FIELD=VALUE,...]";
							return NULL;
						}
					}
					if (!check_only)
						cur = select_elem(cur, sel);
				}
				s = close + 1;
			}
		} else {
			size_t n = strcspn(s, ".[");
			if (n == 0) {
				*why = "empty key in path";
				return NULL;
			}
			if (n >= sizeof(key)) {
				*why = "key too long";
				return NULL;
			}
			memcpy(key, s, n);
			key[n] = '\0';
			if (!check_only)
				cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
			s += n;
		}
		if (*s == '.') {
			s++;
			if (!*s || *s == '.' || *s == '[') {
				*why = "expected a key after '.'";
				return NULL;
			}
		} else if (*s && *s != '[') {
			*why = "expected '.' or '[' after ']'";
			return NULL;
		}
		if (!check_only && !cur)
			return NULL;
	}
	return check_only ? NULL : cur;
}

const json_t *sweep_json_lookup(const json_t *doc, const char *path, const char **why)
{
	const char *w;
	const json_t *r = path_walk(doc, path, false, &w);
	if (why)
		*why = w;
	return r;
}

const char *sweep_json_path_check(const char *path)
{
	const char *why;
	path_walk(NULL, path, true, &why);
	return why;
}

bool sweep_path_next(const char **cur, char *buf, size_t len)
{
	const char *p = *cur;
	if (!p)
		return false;
	const char *plus = strstr(p, " + ");
	size_t n = plus ? (size_t)(plus - p) : strlen(p);
	while (n > 0 && p[n - 1] == ' ')
		n--;
	while (n > 0 && *p == ' ')
		p++, n--;
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	*cur = plus ? plus + 3 : NULL;
	return true;
}

/* %.12g with -0 printed as 0, so a zero wait reads the same either sign. */
static void format_number(char *buf, size_t len, double d)
{
	snprintf(buf, len, "%.12g", d == 0 ? 0 : d);
}

/* "P1 + P2 + ...": the sum of numbers, an absent term counting as
 * `missing` (or making the sum NaN without it). */
static bool metric_sum(const struct sweep_metric *m, const json_t *doc, char *buf, size_t len)
{
	char part[SWEEP_PATH_MAX];
	double sum = 0;
	for (const char *cur = m->path; sweep_path_next(&cur, part, sizeof(part));) {
		const json_t *v = sweep_json_lookup(doc, part, NULL);
		if (json_is_number(v))
			sum += json_number_value(v);
		else if (!v && m->has_missing)
			sum += m->missing;
		else {
			snprintf(buf, len, "NaN");
			return false;
		}
	}
	format_number(buf, len, sum * m->scale);
	return true;
}

bool sweep_metric_format(const struct sweep_metric *m, const json_t *doc, char *buf, size_t len)
{
	if (strstr(m->path, " + "))
		return metric_sum(m, doc, buf, len);
	const json_t *v = sweep_json_lookup(doc, m->path, NULL);
	if (json_is_integer(v) && m->scale == 1.0) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	} else if (json_is_number(v)) {
		format_number(buf, len, json_number_value(v) * m->scale);
	} else if (json_is_boolean(v)) {
		snprintf(buf, len, "%d", json_is_true(v) ? 1 : 0);
	} else if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
		for (char *p = buf; *p; p++)
			if (isspace((unsigned char)*p))
				*p = '_';
		if (!*buf)
			snprintf(buf, len, "-");
	} else if (m->has_missing) {
		/* an absent wait cause or counter is a zero, not a hole */
		format_number(buf, len, m->missing);
	} else {
		snprintf(buf, len, "NaN");
		return false;
	}
	return true;
}
