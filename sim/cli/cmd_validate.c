/* `mobisim validate`: run every published number the repository holds and
 * hold the model against it.
 *
 *   mobisim validate [FILE.yaml|DIR]... [-j N] [--fast] [--strict]
 *                    [--doc docs/validation.md] [--work DIR] [--quiet]
 *
 * A validation file (configs/validation/NAME.yaml, format in docs/validation.md)
 * names its source, a sweep (the same format as `mobisim sweep`, usually
 * with repeat: launch phases and seed repetitions) and a list of checks:
 * a published value, a model expression over the sweep's summary-agg rows
 * (a metric's mean, p95, max ... in the group whose keys match, or a ratio,
 * change, difference or sum of such) or a device point measured like
 * AndroBench (models/device/device_curve.h), a tolerance and the reason for
 * that tolerance. The sweeps run through the sweep runner's fork pool
 * (-j), one file after the other; the checks are then read from each
 * sweep's summary-agg.tsv, so what the table says is what the files say.
 *
 * What a row proves: every check is tagged kind: prediction, fit or
 * calibration. A calibration is a number a model value was set to
 * reproduce; a fit is a number that a fitted value targets, or any number
 * of an experiment in which something was fitted to another of its
 * numbers (the file says so with fitted: [{value, target}], and then no
 * check of it may be a prediction); a prediction is everything else.
 * Calibrations and fits name what was set (fitted:). Predictions are
 * counted apart: "P of Q predictions within tolerance; C calibration
 * points, F fits".
 *
 * Independent workloads: independent: {key: AXIS} names an ordinary axis
 * whose values are distinct workloads (app templates); a check is then
 * computed per workload (its ratio, change ... within the workload) and
 * the table gives their mean (or max, across: max) with the 95 % CI of the
 * mean over workloads (Student's t). Without it a plain mean shows the CI
 * over the group's runs only where the file says ci: runs (independent
 * replications, as queueing theory's); launch phases and seeds of one
 * synthetic app are not independent evidence, so they get no CI.
 * side_by_side: {key: AXIS, labels: {VALUE: LABEL}} evaluates every check
 * once per value of that axis (the Galaxy S6's two CFQ kernel variants),
 * side by side. reports: rows are numbers without a published value
 * (distributions of stall causes, a decomposition), shown after the checks.
 *
 * Exit status: 0 when everything ran (misses are results, reported, not
 * failures) unless --strict, which exits 1 on a miss; 1 when a point failed
 * to run; 2 on a bad validation file (file:line:col) or usage.
 */
#define _GNU_SOURCE /* nftw's FTW_DEPTH/FTW_PHYS */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "models/device/device_curve.h"
#include "sim/cli/cli.h"
#include "sim/cli/sweep.h"
#include "sim/cli/validate.h"
#include "sim/config.h"
#include "sim/results.h"
#include "sim/sim.h"
#include "sim/stats.h"

#define VAL_MAX_FILES 64
#define VAL_MAX_REFS 8
#define VAL_MAX_EXTRA 3

static void validate_usage(FILE *f)
{
	fprintf(f,
		"usage: mobisim validate [FILE.yaml|DIR]... [options]\n"
		"  (default: every configs/validation/*.yaml under the current directory,\n"
		"  else in the data directory: an installed tree's share/mobisim)\n"
		"  -j, --jobs N      sweep points run at once (default: online CPUs)\n"
		"  --fast            only the files marked fast: true (the CI subset)\n"
		"  --strict          exit 1 when a check misses its tolerance\n"
		"  --doc FILE        write the table into FILE between the markers\n"
		"                    " VAL_DOC_BEGIN "\n"
		"                    and " VAL_DOC_END " (created if missing)\n"
		"  --tsv FILE        write the table as TSV too\n"
		"  --work DIR        keep the sweeps' points and summaries in DIR (default: a\n"
		"                    temporary directory, removed); with --resume reuse them\n"
		"  --resume          with --work: skip points already there\n"
		"  --no-fork         run every point from t = 0 (default: points that differ\n"
		"                    only in a launch's phase share their prefix)\n"
		"  --uncertainty N   also run every file over N rows of a joint design of its\n"
		"                    scenario's assumptions: (docs/validation.md): each check's\n"
		"                    median, 5-95 %% interval, consistent/informative counts\n"
		"  --design D        sobol (default) or lhs (Latin hypercube)\n"
		"  --uq-seed S       the design's seed (default 1)\n"
		"  --quiet           no table on stdout\n");
}

/* ------------------------------------------------------------ agg table */

static void agg_free(struct agg *a)
{
	for (int i = 0; i < a->ncols; i++)
		free(a->cols[i]);
	for (int i = 0; i < a->nrows * a->ncols; i++)
		free(a->cells[i]);
	free(a->cols);
	free(a->cells);
	memset(a, 0, sizeof(*a));
}

/* Split one TSV line into at most max fields (strdup'd). */
static int split_tsv(char *line, char **out, int max)
{
	int n = 0;
	line[strcspn(line, "\r\n")] = '\0';
	for (char *s = line; n < max;) {
		char *tab = strchr(s, '\t');
		if (tab)
			*tab = '\0';
		out[n++] = strdup(s);
		if (!tab)
			break;
		s = tab + 1;
	}
	return n;
}

static int agg_load(const char *path, struct agg *a, struct sim_error *err)
{
	memset(a, 0, sizeof(*a));
	FILE *f = fopen(path, "r");
	if (!f)
		return sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	char *fields[4096];
	if (getline(&line, &cap, f) < 0) {
		free(line);
		fclose(f);
		return sim_errorf(err, SIM_E_IO, "%s: empty", path);
	}
	a->ncols = split_tsv(line, fields, 4096);
	a->cols = malloc((size_t)a->ncols * sizeof(char *));
	memcpy(a->cols, fields, (size_t)a->ncols * sizeof(char *));
	while (getline(&line, &cap, f) >= 0) {
		int n = split_tsv(line, fields, 4096);
		char **nc = realloc(a->cells, (size_t)(a->nrows + 1) * (size_t)a->ncols * sizeof(char *));
		if (!nc)
			break;
		a->cells = nc;
		for (int i = 0; i < a->ncols; i++)
			a->cells[a->nrows * a->ncols + i] = i < n ? fields[i] : strdup("NaN");
		for (int i = a->ncols; i < n; i++)
			free(fields[i]);
		a->nrows++;
	}
	free(line);
	fclose(f);
	return 0;
}

static int agg_col(const struct agg *a, const char *name)
{
	for (int i = 0; i < a->ncols; i++)
		if (strcmp(a->cols[i], name) == 0)
			return i;
	return -1;
}

static bool text_eq(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return true;
	char *e1, *e2;
	double x = strtod(a, &e1), y = strtod(b, &e2);
	return *a && *b && !*e1 && !*e2 && x == y;
}

/* ------------------------------------------------------------- checks */

enum vop { VOP_REF, VOP_RATIO, VOP_CHANGE, VOP_DIFF, VOP_SUM, VOP_DEVICE };

static const char *const stat_names[] = { "mean", "sd", "ci95", "min", "p50", "p95", "max", "n", NULL };

/* key = value constraints a check adds to each reference (the side-by-side
 * column, the independent workload) unless the reference names the key. */
struct extra {
	const char *key[VAL_MAX_EXTRA], *val[VAL_MAX_EXTRA];
	int n;
	const char *stat;           /* overrides the reference's stat: (a report's stats:) */
	const char *at_max;         /* overrides at_max_of: (a report's worst_of:) */
};

static bool where_names(const struct cfg_node *w, const char *key)
{
	for (const struct cfg_node *c = w ? w->child : NULL; c; c = c->next)
		if (!strcmp(c->key, key))
			return true;
	return false;
}

/* Does row of table a match where: and the extra constraints? */
static bool row_matches(const struct agg *a, int row, const struct cfg_node *w, const struct extra *x)
{
	for (const struct cfg_node *c = w ? w->child : NULL; c; c = c->next) {
		int k = agg_col(a, c->key);
		if (k < 0 || c->kind != CFG_SCALAR ||
		    !text_eq(a->cells[row * a->ncols + k], c->value ? c->value : ""))
			return false;
	}
	for (int i = 0; x && i < x->n; i++) {
		if (where_names(w, x->key[i]))
			continue;
		int k = agg_col(a, x->key[i]);
		if (k < 0 || !text_eq(a->cells[row * a->ncols + k], x->val[i]))
			return false;
	}
	return true;
}

/* A ref {metric: NAME, where: {KEY: VALUE}, stat: mean} is the group row's
 * NAME.stat; {metric: NAME, where: ..., at_max_of: M} is NAME (a metric
 * or any column of summary.tsv, e.g. a repeat key) in the group's run
 * whose M is largest. With v == NULL only the syntax is checked. */
static int eval_ref(const struct vfile *vf, const struct cfg_node *r, const struct extra *x,
		    double *v, double *ci, const char **why, struct sim_error *err)
{
	if (!r || r->kind != CFG_MAP)
		return cfg_errorf(err, r, "expected {metric: NAME, where: {KEY: VALUE}, stat: mean|p50|p95|max|...}");
	const struct cfg_node *m = NULL, *w = NULL, *s = NULL, *am = NULL;
	for (const struct cfg_node *c = r->child; c; c = c->next) {
		if (!strcmp(c->key, "metric"))
			m = c;
		else if (!strcmp(c->key, "where"))
			w = c;
		else if (!strcmp(c->key, "stat"))
			s = c;
		else if (!strcmp(c->key, "at_max_of"))
			am = c;
		else
			return cfg_errorf(err, c, "unknown key (expected metric, where, stat, at_max_of)");
	}
	if (!m || m->kind != CFG_SCALAR)
		return cfg_errorf(err, r, "a reference needs metric: NAME (one of the sweep's metrics)");
	const char *stat = s && s->kind == CFG_SCALAR ? s->value : "mean";
	if (x && x->stat)
		stat = x->stat;
	bool known = false;
	for (int i = 0; stat_names[i]; i++)
		known |= strcmp(stat, stat_names[i]) == 0;
	if (!known)
		return cfg_errorf(err, s, "unknown stat '%s' (expected mean, sd, ci95, min, p50, p95, max, n)",
				  stat);
	if (am && s)
		return cfg_errorf(err, am, "at_max_of picks one run: no stat: with it");
	if (am && am->kind != CFG_SCALAR)
		return cfg_errorf(err, am, "expected a metric name");
	if (w && w->kind != CFG_MAP)
		return cfg_errorf(err, w, "expected a map {KEY: VALUE} of the sweep's axes");
	if (vf->sw) {
		bool found = false, found_am = !am;
		for (int i = 0; i < vf->sw->nmetrics; i++) {
			found |= strcmp(vf->sw->metrics[i].name, m->value) == 0;
			found_am |= am && strcmp(vf->sw->metrics[i].name, am->value) == 0;
		}
		for (int i = 0; am && i < vf->sw->nkeys; i++)
			found |= strcmp(vf->sw->keys[i], m->value) == 0;
		if (!found)
			return cfg_errorf(err, m, "'%s' is not a metric of this file's sweep%s", m->value,
					  am ? " (nor one of its keys)" : "");
		if (!found_am)
			return cfg_errorf(err, am, "'%s' is not a metric of this file's sweep", am->value);
		for (const struct cfg_node *c = w ? w->child : NULL; c; c = c->next) {
			int k = -1;
			for (int i = 0; i < vf->sw->nkeys; i++)
				if (strcmp(vf->sw->keys[i], c->key) == 0 && !vf->sw->key_repeat[i])
					k = i;
			if (k < 0)
				return cfg_errorf(err, c, "'%s' is not an ordinary axis of the sweep", c->key);
		}
	}
	if (!v)
		return 0;
	*v = NAN;
	const char *am_name = x && x->at_max ? x->at_max : am ? am->value : NULL;
	if (am_name) {
		const struct agg *a = &vf->runs;
		int cv = agg_col(a, m->value), cm = agg_col(a, am_name);
		double best = -INFINITY;
		bool any = false;
		for (int row = 0; cv >= 0 && cm >= 0 && row < a->nrows; row++) {
			if (!row_matches(a, row, w, x))
				continue;
			any = true;
			double y = strtod(a->cells[row * a->ncols + cm], NULL);
			if (!isnan(y) && y > best) {
				best = y;
				*v = strtod(a->cells[row * a->ncols + cv], NULL);
			}
		}
		if (!any)
			*why = "no run of the sweep matches where:";
		else if (isnan(*v))
			*why = "the metric is missing in the runs";
		return 0;
	}
	const struct agg *a = &vf->agg;
	char col[300];
	snprintf(col, sizeof(col), "%s.%s", m->value, stat);
	int cv = agg_col(a, col);
	snprintf(col, sizeof(col), "%s.ci95", m->value);
	int cc = agg_col(a, col);
	for (int row = 0; row < a->nrows; row++) {
		if (!row_matches(a, row, w, x))
			continue;
		if (cv >= 0)
			*v = strtod(a->cells[row * a->ncols + cv], NULL);
		if (ci && cc >= 0 && !strcmp(stat, "mean"))
			*ci = strtod(a->cells[row * a->ncols + cc], NULL);
		if (isnan(*v))
			*why = "the metric is missing in the runs";
		return 0;
	}
	*why = "no group of the sweep matches where:";
	return 0;
}

static int parse_op(const struct cfg_node *model, enum vop *op, const struct cfg_node **arg,
		    struct sim_error *err)
{
	static const char *const ops[] = { "ratio", "change", "diff", "sum", "device", NULL };
	if (!model || model->kind != CFG_MAP || !model->child)
		return cfg_errorf(err, model, "expected a reference {metric, where, stat} or "
				  "{ratio|change|diff|sum: [REF, REF...]} or {device: {...}}");
	for (int i = 0; ops[i]; i++)
		if (strcmp(model->child->key, ops[i]) == 0) {
			if (model->child->next)
				return cfg_errorf(err, model->child->next, "one operation per model");
			*op = (enum vop)(VOP_RATIO + i);
			*arg = model->child;
			return 0;
		}
	*op = VOP_REF;
	*arg = model;
	return 0;
}
/* device: {preset: ../devices/ufs20.yaml, rw: read|write, size_kib: 4, qd: 1,
 * pattern: random|seq} -> MB/s (10^6 B/s), measured as `mobisim device
 * curve` does. */
static int eval_device(const struct vfile *vf, const struct cfg_node *d, double *v,
		       struct sim_error *err)
{
	if (d->kind != CFG_MAP)
		return cfg_errorf(err, d, "expected {preset: FILE, rw: read|write, size_kib: N, qd: N, pattern: random|seq}");
	const char *preset = NULL;
	struct device_curve_opts o = { .bytes = 4096, .qd = 1, .pattern = DEVICE_CURVE_RANDOM, .seed = 1 };
	for (const struct cfg_node *c = d->child; c; c = c->next) {
		struct sim_error e2 = { 0 };
		int64_t iv;
		if (c->kind != CFG_SCALAR)
			return cfg_errorf(err, c, "expected a scalar");
		if (!strcmp(c->key, "preset")) {
			preset = c->value;
		} else if (!strcmp(c->key, "rw")) {
			if (strcmp(c->value, "read") && strcmp(c->value, "write"))
				return cfg_errorf(err, c, "expected read or write");
			o.write = c->value[0] == 'w';
		} else if (!strcmp(c->key, "pattern")) {
			if (strcmp(c->value, "random") && strcmp(c->value, "seq"))
				return cfg_errorf(err, c, "expected random or seq");
			o.pattern = c->value[0] == 's' ? DEVICE_CURVE_SEQ : DEVICE_CURVE_RANDOM;
		} else if (!strcmp(c->key, "size_kib") || !strcmp(c->key, "qd")) {
			if (cfg_parse_int(c->value, &iv, &e2) || iv < 1 || iv > 1 << 20)
				return cfg_errorf(err, c, "expected a positive integer");
			if (c->key[0] == 's')
				o.bytes = (uint64_t)iv << 10;
			else
				o.qd = (uint32_t)iv;
		} else {
			return cfg_errorf(err, c, "unknown key (expected preset, rw, size_kib, qd, pattern)");
		}
	}
	if (!preset)
		return cfg_errorf(err, d, "device: needs preset: (a device file, relative to this file)");
	char path[4096];
	const char *slash = strrchr(vf->path, '/');
	if (preset[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", preset);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - vf->path), vf->path, preset);
	if (access(path, R_OK) != 0)
		return cfg_errorf(err, d, "cannot read '%s': %s", path, strerror(errno));
	if (!v)
		return 0;
	struct cfg_doc *doc;
	int rc = cli_load_scenario(path, NULL, 0, &doc, err);
	if (rc)
		return rc;
	struct device_curve_result r;
	rc = device_curve_measure(cfg_root(doc), &o, &r, err);
	cfg_free(doc);
	*v = rc ? NAN : r.mbps;
	return rc;
}

/* The model side of a check under the extra constraints x; res == NULL
 * checks the syntax only. */
static int eval_model_at(const struct vfile *vf, const struct cfg_node *model, const struct extra *x,
			 struct vresult *res, int depth, struct sim_error *err)
{
	enum vop op;
	const struct cfg_node *arg;
	int rc = parse_op(model, &op, &arg, err);
	if (rc)
		return rc;
	if (res) {
		res->model = res->ci = NAN;
		res->why_nan = NULL;
	}
	if (op == VOP_DEVICE)
		return eval_device(vf, arg, res ? &res->model : NULL, err);
	if (op == VOP_REF)
		return eval_ref(vf, arg, x, res ? &res->model : NULL, res ? &res->ci : NULL,
				res ? &res->why_nan : NULL, err);
	if (arg->kind != CFG_SEQ)
		return cfg_errorf(err, arg, "expected a list of references");
	double v[VAL_MAX_REFS];
	int n = 0;
	for (const struct cfg_node *c = arg->child; c; c = c->next) {
		if (n == VAL_MAX_REFS)
			return cfg_errorf(err, c, "at most %d references", VAL_MAX_REFS);
		if (depth > 4)
			return cfg_errorf(err, c, "operations nest at most 4 deep");
		/* an item is a reference or itself an operation (a share of a
		 * saving is a ratio of two differences) */
		struct vresult sub;
		if ((rc = eval_model_at(vf, c, x, res ? &sub : NULL, depth + 1, err)))
			return rc;
		v[n] = res ? sub.model : NAN;
		if (res && sub.why_nan && !res->why_nan)
			res->why_nan = sub.why_nan;
		n++;
	}
	if (op != VOP_SUM && n != 2)
		return cfg_errorf(err, arg, "%s takes two references (A, B)", arg->key);
	if (n < 1)
		return cfg_errorf(err, arg, "sum takes at least one reference");
	if (!res)
		return 0;
	switch (op) {
	case VOP_RATIO:
		res->model = v[0] / v[1];
		break;
	case VOP_CHANGE:
		res->model = v[0] / v[1] - 1.0;
		break;
	case VOP_DIFF:
		res->model = v[0] - v[1];
		break;
	default:
		res->model = 0;
		for (int i = 0; i < n; i++)
			res->model += v[i];
		break;
	}
	return 0;
}

static int eval_model(const struct vfile *vf, const struct cfg_node *model, const struct extra *x,
		      struct vresult *res, struct sim_error *err)
{
	return eval_model_at(vf, model, x, res, 0, err);
}

/* Does any where: under node name key? */
static bool model_names(const struct cfg_node *node, const char *key)
{
	for (const struct cfg_node *c = node ? node->child : NULL; c; c = c->next) {
		if (c->key && !strcmp(c->key, "where") && where_names(c, key))
			return true;
		if (model_names(c, key))
			return true;
	}
	return false;
}

/* Column col of check k: once, or per independent workload and then their
 * mean with the 95 % CI over workloads (or their max). */
static int eval_column(struct vcheck *k, int col, struct sim_error *err)
{
	const struct vfile *vf = k->vf;
	struct vresult *r = &k->res[col];
	struct extra x = { .n = 0 };
	if (vf->sbs_key && vf->col_val[col]) {
		x.key[x.n] = vf->sbs_key;
		x.val[x.n++] = vf->col_val[col];
	}
	r->nindep = 0;
	if (k->nstats) {
		for (int i = 0; i < k->nstats; i++) {
			struct vresult one;
			bool worst = k->worst_of && i == k->nstats - 1;
			x.stat = worst ? NULL : k->stats[i];
			x.at_max = worst ? k->worst_of : NULL;
			int rc = eval_model(vf, k->model, &x, &one, err);
			if (rc)
				return rc;
			r->stat[i] = one.model;
			if (i == 0) {
				r->model = one.model;
				r->why_nan = one.why_nan;
			}
		}
		r->ci = NAN;
		return 0;
	}
	if (!vf->indep_key || vf->nindep == 0 || model_names(k->model, vf->indep_key)) {
		int rc = eval_model(vf, k->model, &x, r, err);
		if (!vf->ci_runs)
			r->ci = NAN; /* phases and seeds of one workload are not independent evidence */
		return rc;
	}
	double v[VAL_MAX_INDEP];
	int n = 0;
	const char *why = NULL;
	x.key[x.n] = vf->indep_key;
	for (int i = 0; i < vf->nindep; i++) {
		struct vresult one;
		x.val[x.n] = vf->indep_val[i];
		x.n++;
		int rc = eval_model(vf, k->model, &x, &one, err);
		x.n--;
		if (rc)
			return rc;
		if (isnan(one.model) || isinf(one.model)) {
			why = one.why_nan ? one.why_nan : "no model value for a workload";
			continue;
		}
		v[n++] = one.model;
	}
	r->nindep = n;
	r->model = r->ci = NAN;
	r->why_nan = n < vf->nindep ? why : NULL;
	if (n < vf->nindep || n == 0)
		return 0; /* a workload without a value: no mean over the others */
	if (k->across_max) {
		r->model = v[0];
		for (int i = 1; i < n; i++)
			r->model = v[i] > r->model ? v[i] : r->model;
		return 0;
	}
	double sum = 0, ss = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	r->model = sum / n;
	for (int i = 0; i < n; i++)
		ss += (v[i] - r->model) * (v[i] - r->model);
	if (n > 1)
		r->ci = stats_t_quantile(0.975, (double)(n - 1)) * sqrt(ss / (n - 1)) / sqrt((double)n);
	return 0;
}

const char *const vkind_names[VK_N] = { "prediction", "fit", "calibration", "report" };

static int parse_check(const struct vfile *vf, const struct cfg_node *c, bool report,
		       struct vcheck *k, struct sim_error *err)
{
	memset(k, 0, sizeof(*k));
	k->vf = vf;
	k->node = c;
	k->unit = "";
	k->paper = NAN;
	k->kind = VK_REPORT;
	if (c->kind != CFG_MAP)
		return cfg_errorf(err, c, report ? "expected a report row {name, unit, model, reason}"
					  : "expected a check {name, kind, paper, unit, model, tolerance, reason}");
	const struct cfg_node *paper = NULL, *tol = NULL, *kind = NULL, *fitted = NULL, *across = NULL;
	const struct cfg_node *stats = NULL, *worst = NULL;
	for (const struct cfg_node *f = c->child; f; f = f->next) {
		if (!strcmp(f->key, "name") && f->kind == CFG_SCALAR)
			k->name = f->value;
		else if (!strcmp(f->key, "unit") && f->kind == CFG_SCALAR)
			k->unit = f->value ? f->value : "";
		else if (!strcmp(f->key, "reason") && f->kind == CFG_SCALAR)
			k->reason = f->value;
		else if (!strcmp(f->key, "model"))
			k->model = f;
		else if (!strcmp(f->key, "across"))
			across = f;
		else if (report && !strcmp(f->key, "stats"))
			stats = f;
		else if (report && !strcmp(f->key, "worst_of"))
			worst = f;
		else if (!report && !strcmp(f->key, "paper"))
			paper = f;
		else if (!report && !strcmp(f->key, "tolerance"))
			tol = f;
		else if (!report && !strcmp(f->key, "kind"))
			kind = f;
		else if (!report && !strcmp(f->key, "fitted"))
			fitted = f;
		else
			return cfg_errorf(err, f, report ? "unknown key (expected name, unit, model, stats, worst_of, across, reason)"
						  : "unknown key (expected name, kind, fitted, paper, unit, model, "
						    "tolerance, across, reason)");
	}
	if (!k->name || !*k->name)
		return cfg_errorf(err, c, "a %s needs name:", report ? "report row" : "check");
	if (!k->model)
		return cfg_errorf(err, c, "'%s' needs model:", k->name);
	if (across) {
		if (across->kind != CFG_SCALAR || (strcmp(across->value, "mean") && strcmp(across->value, "max")))
			return cfg_errorf(err, across, "across: expected mean or max (how the independent "
					  "workloads' values combine)");
		if (!vf->indep_key)
			return cfg_errorf(err, across, "across: needs the file's independent: axis");
		k->across_max = across->value[0] == 'm' && across->value[1] == 'a';
	}
	if (stats) {
		enum vop op;
		const struct cfg_node *arg;
		if (stats->kind != CFG_SEQ || !stats->child)
			return cfg_errorf(err, stats, "stats: expected a list such as [p50, p95, max]");
		if (parse_op(k->model, &op, &arg, err) || op != VOP_REF || cfg_get(k->model, "stat") ||
		    cfg_get(k->model, "at_max_of"))
			return cfg_errorf(err, stats, "stats: needs a plain reference {metric, where} as model");
		for (const struct cfg_node *st = stats->child; st; st = st->next) {
			bool known = false;
			for (int i = 0; st->kind == CFG_SCALAR && stat_names[i]; i++)
				known |= !strcmp(st->value, stat_names[i]);
			if (!known || k->nstats == 4)
				return cfg_errorf(err, st, known ? "at most 4 stats" : "expected a stat (mean, sd, "
						  "ci95, min, p50, p95, max, n)");
			k->stats[k->nstats++] = st->value;
		}
	}
	if (worst) {
		/* one more value: the reference's metric in the run whose METRIC is largest */
		if (!stats || worst->kind != CFG_SCALAR || !worst->value)
			return cfg_errorf(err, worst, "worst_of: METRIC goes with stats: (the value in the run "
					  "whose METRIC is largest, after the stats)");
		if (k->nstats == 4)
			return cfg_errorf(err, worst, "at most 3 stats with worst_of:");
		bool found = false;
		for (int i = 0; vf->sw && i < vf->sw->nmetrics; i++)
			found |= !strcmp(vf->sw->metrics[i].name, worst->value);
		if (!found)
			return cfg_errorf(err, worst, "'%s' is not a metric of this file's sweep", worst->value);
		k->worst_of = worst->value;
		k->stats[k->nstats++] = "worst";
	}
	if (report) {
		if (!k->reason || !*k->reason)
			return cfg_errorf(err, c, "report row '%s' needs reason: (what it shows)", k->name);
		return eval_model(vf, k->model, NULL, NULL, err);
	}
	if (!kind || kind->kind != CFG_SCALAR || !kind->value)
		return cfg_errorf(err, kind ? kind : c, "check '%s' needs kind: prediction, fit or "
				  "calibration (what its agreement proves)", k->name);
	int kk = -1;
	for (int i = 0; i < VK_REPORT; i++)
		if (!strcmp(kind->value, vkind_names[i]))
			kk = i;
	if (kk < 0)
		return cfg_errorf(err, kind, "kind: '%s': expected prediction, fit or calibration",
				  kind->value);
	k->kind = (enum vkind)kk;
	if (fitted && (fitted->kind != CFG_SCALAR || !fitted->value || !*fitted->value))
		return cfg_errorf(err, fitted, "fitted: expected the value set and the number it was "
				  "set to reproduce");
	k->fitted = fitted ? fitted->value : NULL;
	if (k->kind == VK_PREDICTION && k->fitted)
		return cfg_errorf(err, fitted, "check '%s': a prediction has nothing fitted to it "
				  "(kind: fit or calibration)", k->name);
	if (k->kind == VK_PREDICTION && vf->fitted)
		return cfg_errorf(err, kind, "check '%s' cannot be a prediction: this file's experiment "
				  "has a fitted value (%s); kind: fit", k->name, vf->fitted);
	if (k->kind == VK_FIT && !k->fitted)
		k->fitted = vf->fitted;
	if (k->kind != VK_PREDICTION && !k->fitted)
		return cfg_errorf(err, kind, "check '%s' is a %s: fitted: must name the value set and "
				  "its target (or the file's fitted: list)", k->name, vkind_names[k->kind]);
	if (!paper || paper->kind != CFG_SCALAR)
		return cfg_errorf(err, c, "check '%s' needs paper: (the published number)", k->name);
	struct sim_error e2 = { 0 };
	if (cfg_parse_double(paper->value, &k->paper, &e2))
		return cfg_errorf(err, paper, "expected a number");
	if (!k->reason || !*k->reason)
		return cfg_errorf(err, c, "check '%s' needs reason: (why this tolerance)", k->name);
	/* tolerance: 40% | 0.2 (absolute, in unit) | sign */
	if (!tol || tol->kind != CFG_SCALAR || !tol->value)
		return cfg_errorf(err, tol ? tol : c, "tolerance: expected N%% (relative), a number (absolute) or sign");
	const char *t = tol->value;
	size_t tl = strlen(t);
	if (!strcmp(t, "sign")) {
		k->tol_kind = VTOL_SIGN;
	} else {
		char buf[64];
		snprintf(buf, sizeof(buf), "%s", t);
		k->tol_kind = VTOL_ABS;
		if (tl > 0 && buf[tl - 1] == '%') {
			buf[tl - 1] = '\0';
			k->tol_kind = VTOL_REL;
		}
		if (cfg_parse_double(buf, &k->tol, &e2) || k->tol < 0)
			return cfg_errorf(err, tol, "expected N%% (relative), a number (absolute) or sign");
		if (k->tol_kind == VTOL_REL)
			k->tol /= 100.0;
	}
	return eval_model(vf, k->model, NULL, NULL, err);
}

static void check_judge(struct vcheck *k, int col)
{
	struct vresult *r = &k->res[col];
	double m = r->model, p = k->paper;
	r->evaluated = true;
	if (isnan(m) || isinf(m)) {
		r->pass = false;
		snprintf(r->note, sizeof(r->note), "%s", r->why_nan ? r->why_nan : "no model value");
		return;
	}
	if (k->kind == VK_REPORT) {
		r->pass = true;
		return;
	}
	switch (k->tol_kind) {
	case VTOL_REL:
		r->pass = fabs(m - p) <= k->tol * fabs(p) + 1e-12;
		break;
	case VTOL_ABS:
		r->pass = fabs(m - p) <= k->tol + 1e-12;
		break;
	case VTOL_SIGN:
		r->pass = (m > 0 && p > 0) || (m < 0 && p < 0);
		break;
	}
}

/* ------------------------------------------------------------- files */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_path(char **paths, int *n, const char *p, struct sim_error *err)
{
	struct stat st;
	if (stat(p, &st) != 0)
		return sim_errorf(err, SIM_E_INPUT, "%s: %s", p, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (*n == VAL_MAX_FILES)
			return sim_errorf(err, SIM_E_INPUT, "more than %d validation files", VAL_MAX_FILES);
		paths[(*n)++] = strdup(p);
		return 0;
	}
	DIR *d = opendir(p);
	if (!d)
		return sim_errorf(err, SIM_E_INPUT, "%s: %s", p, strerror(errno));
	int first = *n;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l < 6 || strcmp(e->d_name + l - 5, ".yaml"))
			continue;
		if (*n == VAL_MAX_FILES) {
			closedir(d);
			return sim_errorf(err, SIM_E_INPUT, "more than %d validation files", VAL_MAX_FILES);
		}
		char buf[4096];
		snprintf(buf, sizeof(buf), "%s/%s", p, e->d_name);
		paths[(*n)++] = strdup(buf);
	}
	closedir(d);
	qsort(paths + first, (size_t)(*n - first), sizeof(char *), cmp_str);
	return 0;
}

static const char *scalar_of(const struct cfg_node *root, const char *key)
{
	const struct cfg_node *n = cfg_get(root, key);
	return n && n->kind == CFG_SCALAR ? n->value : NULL;
}

/* An ordinary axis of the file's sweep named by node (a scalar). */
static int axis_key(const struct vfile *vf, const struct cfg_node *n, const char *what,
		    const char **out, struct sim_error *err)
{
	if (!n || n->kind != CFG_SCALAR || !n->value)
		return cfg_errorf(err, n, "%s: expected key: AXIS (an ordinary axis of the sweep)", what);
	if (!vf->sw)
		return cfg_errorf(err, n, "%s: needs a sweep", what);
	for (int i = 0; i < vf->sw->nkeys; i++)
		if (!strcmp(vf->sw->keys[i], n->value) && !vf->sw->key_repeat[i]) {
			*out = n->value;
			return 0;
		}
	return cfg_errorf(err, n, "%s: '%s' is not an ordinary axis of the sweep", what, n->value);
}

/* fitted: [{value: KEY, target: TEXT}, ...] -> "KEY fitted to TEXT; ..." */
static int parse_file_fits(struct vfile *vf, const struct cfg_node *l, struct sim_error *err)
{
	if (l->kind != CFG_SEQ || !l->child)
		return cfg_errorf(err, l, "fitted: expected a list of {value: KEY, target: what it was fitted to}");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	for (const struct cfg_node *c = l->child; c; c = c->next) {
		const char *v = c->kind == CFG_MAP ? scalar_of(c, "value") : NULL;
		const char *t = c->kind == CFG_MAP ? scalar_of(c, "target") : NULL;
		for (const struct cfg_node *k = c->kind == CFG_MAP ? c->child : NULL; k; k = k->next)
			if (strcmp(k->key, "value") && strcmp(k->key, "target")) {
				fclose(f);
				free(buf);
				return cfg_errorf(err, k, "unknown key (expected value, target)");
			}
		if (!v || !*v || !t || !*t) {
			fclose(f);
			free(buf);
			return cfg_errorf(err, c, "expected {value: KEY, target: the number it was fitted to}");
		}
		fprintf(f, "%s%s fitted to %s", c == l->child ? "" : "; ", v, t);
	}
	fclose(f);
	vf->fitted = buf;
	return 0;
}

static int parse_axis_opt(struct vfile *vf, const struct cfg_node *n, bool sbs, struct sim_error *err)
{
	const char *what = sbs ? "side_by_side" : "independent";
	if (n->kind != CFG_MAP)
		return cfg_errorf(err, n, sbs ? "side_by_side: expected {key: AXIS, labels: {VALUE: LABEL}}"
					 : "independent: expected {key: AXIS, what: TEXT}");
	for (const struct cfg_node *c = n->child; c; c = c->next)
		if (strcmp(c->key, "key") && strcmp(c->key, sbs ? "labels" : "what"))
			return cfg_errorf(err, c, "unknown key (expected key, %s)", sbs ? "labels" : "what");
	int rc = axis_key(vf, cfg_get(n, "key"), what, sbs ? &vf->sbs_key : &vf->indep_key, err);
	if (rc)
		return rc;
	if (sbs) {
		vf->sbs_labels = cfg_get(n, "labels");
		if (vf->sbs_labels && vf->sbs_labels->kind != CFG_MAP)
			return cfg_errorf(err, vf->sbs_labels, "labels: expected {VALUE: LABEL}");
	} else {
		vf->indep_what = scalar_of(n, "what");
	}
	return 0;
}

static int load_vfile(struct vfile *vf, struct vcheck **checks, int *nchecks,
		      struct sim_error *err)
{
	int rc = cfg_load_file(vf->path, &vf->doc, err);
	if (rc)
		return rc == SIM_E_IO ? (err->code = SIM_E_INPUT) : rc;
	struct cfg_node *root = cfg_root(vf->doc);
	if (!root || root->kind != CFG_MAP)
		return sim_errorf(err, SIM_E_INPUT, "%s:1:1: expected a map with name:, checks:", vf->path);
	static const char *const keys[] = { "name", "title", "source", "fast", "sweep", "fitted",
					    "independent", "ci", "side_by_side", "checks", "reports",
					    NULL };
	for (const struct cfg_node *c = root->child; c; c = c->next) {
		bool ok = false;
		for (int i = 0; keys[i]; i++)
			ok |= strcmp(c->key, keys[i]) == 0;
		if (!ok)
			return cfg_errorf(err, c, "unknown key (expected name, title, source, fast, sweep, "
					  "fitted, independent, ci, side_by_side, checks, reports)");
	}
	vf->name = scalar_of(root, "name");
	vf->title = scalar_of(root, "title");
	vf->source = scalar_of(root, "source");
	vf->ncols = 1;
	if (!vf->name || !vf->source)
		return cfg_errorf(err, root, "a validation file needs name: and source: (where the numbers are published)");
	const struct cfg_node *fast = cfg_get(root, "fast");
	struct sim_error e2 = { 0 };
	if (fast && (fast->kind != CFG_SCALAR || cfg_parse_bool(fast->value, &vf->fast, &e2)))
		return cfg_errorf(err, fast, "expected true or false");
	if (cfg_get(root, "sweep") && (rc = sweep_load_subtree(vf->path, "sweep", &vf->sw, err)))
		return rc;
	const struct cfg_node *n;
	if ((n = cfg_get(root, "fitted")) && (rc = parse_file_fits(vf, n, err)))
		return rc;
	if ((n = cfg_get(root, "independent")) && (rc = parse_axis_opt(vf, n, false, err)))
		return rc;
	if ((n = cfg_get(root, "side_by_side")) && (rc = parse_axis_opt(vf, n, true, err)))
		return rc;
	if ((n = cfg_get(root, "ci"))) {
		if (n->kind != CFG_SCALAR || !n->value || strcmp(n->value, "runs"))
			return cfg_errorf(err, n, "ci: expected runs (the group's runs are independent "
					  "replications: a CI of their mean is shown)");
		if (vf->indep_key)
			return cfg_errorf(err, n, "ci: runs and independent: exclude each other");
		vf->ci_runs = true;
	}
	const struct cfg_node *cl = cfg_get(root, "checks");
	if (!cl || cl->kind != CFG_SEQ || !cl->child)
		return cfg_errorf(err, cl ? cl : root, "checks: expected a list of checks");
	const struct cfg_node *rl = cfg_get(root, "reports");
	if (rl && (rl->kind != CFG_SEQ || !rl->child))
		return cfg_errorf(err, rl, "reports: expected a list of {name, unit, model, reason}");
	for (int pass = 0; pass < 2; pass++)
		for (const struct cfg_node *c = pass ? (rl ? rl->child : NULL) : cl->child; c; c = c->next) {
			struct vcheck *nk = realloc(*checks, (size_t)(*nchecks + 1) * sizeof(**checks));
			if (!nk)
				return sim_errorf(err, SIM_E_NOMEM, "out of memory");
			*checks = nk;
			if ((rc = parse_check(vf, c, pass == 1, &nk[*nchecks], err)))
				return rc;
			if (!vf->sw) {
				enum vop op;
				const struct cfg_node *arg;
				parse_op(nk[*nchecks].model, &op, &arg, err);
				if (op != VOP_DEVICE)
					return cfg_errorf(err, nk[*nchecks].model,
							  "this file has no sweep: only device: checks are possible");
			}
			(*nchecks)++;
		}
	return 0;
}

/* The values of column key in table a, in order of first appearance. */
static int distinct_values(const struct agg *a, const char *key, const char **out, int max,
			   const char *file, struct sim_error *err)
{
	int k = agg_col(a, key), n = 0;
	for (int row = 0; k >= 0 && row < a->nrows; row++) {
		const char *v = a->cells[row * a->ncols + k];
		bool seen = false;
		for (int i = 0; i < n; i++)
			seen |= text_eq(out[i], v);
		if (seen)
			continue;
		if (n == max) {
			sim_errorf(err, SIM_E_INPUT, "%s: '%s' has more than %d values", file, key, max);
			return -1;
		}
		out[n++] = v;
	}
	return n;
}

/* After the sweep ran: the side-by-side columns and the independent
 * workloads, as the summary has them. */
static int file_columns(struct vfile *vf, struct sim_error *err)
{
	if (vf->sbs_key) {
		int n = distinct_values(&vf->agg, vf->sbs_key, vf->col_val, VAL_MAX_COLS, vf->path, err);
		if (n < 0)
			return err->code;
		vf->ncols = n ? n : 1;
		for (int i = 0; i < n; i++) {
			vf->col_label[i] = vf->col_val[i];
			for (const struct cfg_node *c = vf->sbs_labels ? vf->sbs_labels->child : NULL; c; c = c->next)
				if (c->kind == CFG_SCALAR && text_eq(c->key, vf->col_val[i]))
					vf->col_label[i] = c->value;
		}
	}
	if (vf->indep_key) {
		int n = distinct_values(&vf->agg, vf->indep_key, vf->indep_val, VAL_MAX_INDEP, vf->path, err);
		if (n < 0)
			return err->code;
		vf->nindep = n;
	}
	return 0;
}

/* ------------------------------------------------------------- work dir */

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* -------------------------------------------------------------- main */

/* --uncertainty: run vf's sweep once per row of a joint design of its base
 * scenario's assumptions (their sets after the sweep's own fixed sets, so
 * an axis that varies a key still wins) and keep each check's value per
 * row. The nominal tables stay vf's; each row's are read, evaluated and
 * dropped. */
static int uq_run_file(struct vfile *vf, struct vcheck *checks, int nchecks, int nsamp,
		       uint64_t seed, enum assume_design design, const char *work, int jobs,
		       bool resume, bool no_fork, bool quiet, struct sim_error *err)
{
	struct sweep *sw = vf->sw;
	vf->as = calloc(1, sizeof(*vf->as));
	if (!vf->as)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = assumptions_load(sw->base, sw->sets, sw->nsets, vf->as, err);
	if (rc)
		return rc;
	if (!vf->as->n) {
		if (!quiet)
			fprintf(stderr, "mobisim: validate: %s: its scenario declares no assumptions: "
				"no intervals\n", vf->name);
		return 0;
	}
	vf->u = calloc((size_t)nsamp * (size_t)vf->as->n, sizeof(double));
	for (int i = 0; vf->u && i < nchecks; i++)
		for (int col = 0; checks[i].vf == vf && col < vf->ncols; col++) {
			checks[i].uq[col] = malloc((size_t)nsamp * sizeof(double));
			if (!checks[i].uq[col])
				return sim_errorf(err, SIM_E_NOMEM, "out of memory");
			for (int s = 0; s < nsamp; s++)
				checks[i].uq[col][s] = NAN;
		}
	if (!vf->u)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	if ((rc = assumptions_design(vf->as, nsamp, seed, design, vf->u, err)))
		return rc;
	vf->nsamp = nsamp;
	/* the design as run, one row per line: what each interval is over */
	char dpath[4200];
	snprintf(dpath, sizeof(dpath), "%s/%s.uq-design.tsv", work, vf->name);
	struct results_out *dout;
	if ((rc = results_out_open(dpath, &dout, err)))
		return rc;
	FILE *df = results_out_file(dout);
	fprintf(df, "row");
	for (int j = 0; j < vf->as->n; j++)
		fprintf(df, "\t%s", vf->as->a[j].name);
	for (int s = 0; s < nsamp; s++) {
		fprintf(df, "\n%d", s);
		for (int j = 0; j < vf->as->n; j++) {
			char val[600];
			assumption_value_text(&vf->as->a[j], vf->u[s * vf->as->n + j], val, sizeof(val));
			fprintf(df, "\t%s", val);
		}
	}
	fprintf(df, "\n");
	if ((rc = results_out_commit(dout, err)))
		return rc;
	if (!quiet)
		fprintf(stderr, "mobisim: validate: %s: %d assumptions x %d design rows, %d runs each\n",
			vf->name, vf->as->n, nsamp, sw->npoints);
	int base_nsets = sw->nsets;
	struct agg agg = vf->agg, runs = vf->runs;
	for (int s = 0; s < nsamp && !rc; s++) {
		int nrow = 0;
		char **row = assumptions_row_sets(vf->as, &vf->u[s * vf->as->n], &nrow);
		char **ns = row ? realloc(sw->sets, (size_t)(base_nsets + nrow) * sizeof(char *)) : NULL;
		if (ns)
			sw->sets = ns;
		const struct cfg_node **nn =
			ns ? realloc(sw->set_nodes, (size_t)(base_nsets + nrow) * sizeof(*nn)) : NULL;
		if (nn)
			sw->set_nodes = nn;
		if (!row || !ns || !nn) {
			sweep_free_sets(row, nrow);
			rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
			break;
		}
		for (int i = 0; i < nrow; i++) {
			sw->sets[base_nsets + i] = row[i];
			sw->set_nodes[base_nsets + i] = NULL;
		}
		free(row);
		sw->nsets = base_nsets + nrow;
		char dir[4200];
		snprintf(dir, sizeof(dir), "%s/%s.uq%03d", work, vf->name, s);
		struct sweep_run_opts o = { .out_dir = dir, .jobs = jobs, .resume = resume,
					    .log = stderr, .no_fork = no_fork };
		int nfailed = 0;
		rc = sweep_run_all(sw, &o, &nfailed, err);
		for (int i = base_nsets; i < sw->nsets; i++)
			free(sw->sets[i]);
		sw->nsets = base_nsets;
		/* a row whose values the build refuses (an assumption's range past a
		 * key's limits) fails before any run: the same as all failing */
		if (rc && nfailed == 0 && err->code == SIM_E_INPUT)
			nfailed = sw->npoints;
		if (rc && nfailed > 0) {
			/* some or all points failed: their checks get NaN in this row,
			 * left out of the intervals and counted (val_uq_print); the
			 * row's values say what was run */
			char vals[1200] = "";
			size_t used = 0;
			for (int j = 0; j < vf->as->n && used < sizeof(vals) - 1; j++) {
				char val[600];
				assumption_value_text(&vf->as->a[j], vf->u[s * vf->as->n + j], val, sizeof(val));
				int w = snprintf(vals + used, sizeof(vals) - used, "%s%s=%s", j ? ", " : "",
						 vf->as->a[j].name, val);
				used += w > 0 ? (size_t)w : 0;
			}
			fprintf(stderr, "mobisim: validate: %s: design row %d (%.1000s): %d of %d runs failed, "
				"left out of the intervals: %s\n", vf->name, s, vals, nfailed, sw->npoints,
				err->msg);
			vf->failed_rows++;
			rc = 0;
			if (nfailed == sw->npoints)
				continue; /* no summary to read */
		}
		if (rc)
			break;
		char p[4300];
		struct agg ra, rr;
		snprintf(p, sizeof(p), "%s/summary-agg.tsv", dir);
		if ((rc = agg_load(p, &ra, err)))
			break;
		snprintf(p, sizeof(p), "%s/summary.tsv", dir);
		if ((rc = agg_load(p, &rr, err))) {
			agg_free(&ra);
			break;
		}
		vf->agg = ra;
		vf->runs = rr;
		for (int i = 0; i < nchecks; i++) {
			struct vcheck *k = &checks[i];
			for (int col = 0; k->vf == vf && k->kind != VK_REPORT && col < vf->ncols; col++) {
				struct vresult keep = k->res[col];
				if (eval_column(k, col, err) == 0)
					k->uq[col][s] = k->res[col].model;
				k->res[col] = keep;
			}
		}
		agg_free(&vf->agg);
		agg_free(&vf->runs);
		vf->agg = agg;
		vf->runs = runs;
	}
	return rc;
}

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "fast", no_argument, NULL, 'F' },
		{ "strict", no_argument, NULL, 'S' },
		{ "doc", required_argument, NULL, 'd' },
		{ "tsv", required_argument, NULL, 't' },
		{ "work", required_argument, NULL, 'w' },
		{ "resume", no_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-fork", no_argument, NULL, 'N' },
		{ "uncertainty", required_argument, NULL, 'U' },
		{ "design", required_argument, NULL, 'D' },
		{ "uq-seed", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	bool fast = false, strict = false, quiet = false, resume = false, no_fork = false;
	const char *doc = NULL, *tsv = NULL, *work = NULL;
	long nsamp = 0;
	unsigned long long uq_seed = 1;
	enum assume_design design = ASSUME_SOBOL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': {
			char *end;
			jobs = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end || jobs < 1 || jobs > 4096) {
				fprintf(stderr, "mobisim: -j: '%s' is not a positive integer\n", optarg);
				return 2;
			}
			break;
		}
		case 'F':
			fast = true;
			break;
		case 'S':
			strict = true;
			break;
		case 'd':
			doc = optarg;
			break;
		case 't':
			tsv = optarg;
			break;
		case 'w':
			work = optarg;
			break;
		case 'r':
			resume = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'N':
			no_fork = true;
			break;
		case 'U':
		case 'E': {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (*optarg == '\0' || *optarg == '-' || *end || (c == 'U' && (v < 1 || v > 4096))) {
				fprintf(stderr, "mobisim: %s: '%s' is not a %s\n",
					c == 'U' ? "--uncertainty" : "--uq-seed", optarg,
					c == 'U' ? "number of rows (1-4096)" : "non-negative integer");
				return 2;
			}
			if (c == 'U')
				nsamp = (long)v;
			else
				uq_seed = v;
			break;
		}
		case 'D':
			if (strcmp(optarg, "sobol") == 0)
				design = ASSUME_SOBOL;
			else if (strcmp(optarg, "lhs") == 0)
				design = ASSUME_LHS;
			else {
				fprintf(stderr, "mobisim: --design: '%s': expected sobol or lhs\n", optarg);
				return 2;
			}
			break;
		case 'h':
			validate_usage(stdout);
			return 0;
		default:
			validate_usage(stderr);
			return 2;
		}
	}
	if (resume && !work) {
		fprintf(stderr, "mobisim: validate: --resume needs --work DIR\n");
		return 2;
	}
	if (jobs < 1)
		jobs = 1;

	struct sim_error err = { 0 };
	char *paths[VAL_MAX_FILES];
	int npaths = 0, status = 2, rc = 0;
	struct vfile *vfs = NULL;
	struct vcheck *checks = NULL;
	int nchecks = 0, nf = 0;
	char tmpdir[] = "/tmp/mobisim-validate.XXXXXX";
	bool made_tmp = false;
	for (int i = optind; i < argc && !rc; i++)
		rc = add_path(paths, &npaths, argv[i], &err);
	char vdir[4096] = "configs/validation";
	if (!rc && optind == argc) {
		/* the current tree's, else the data directory's (an install) */
		if (access(vdir, R_OK) != 0)
			snprintf(vdir, sizeof(vdir), "%s/configs/validation", sim_datadir());
		if (access(vdir, R_OK) != 0)
			rc = sim_errorf(&err, SIM_E_INPUT, "%s: %s (not in the current directory nor "
					"the data directory; name the validation files)", vdir,
					strerror(errno));
		else
			rc = add_path(paths, &npaths, vdir, &err);
	}
	if (rc) {
		status = cli_report(&err);
		goto done;
	}
	vfs = calloc((size_t)(npaths ? npaths : 1), sizeof(*vfs));
	if (!vfs) {
		status = cli_report(&(struct sim_error){ SIM_E_NOMEM, "out of memory" });
		goto done;
	}
	/* everything is parsed and checked before anything runs */
	for (int i = 0; i < npaths; i++) {
		struct vfile *vf = &vfs[nf];
		vf->path = paths[i];
		int before = nchecks;
		if ((rc = load_vfile(vf, &checks, &nchecks, &err))) {
			nf++;
			status = cli_report(&err);
			goto done;
		}
		nf++;
		if (fast && !vf->fast)
			nchecks = before; /* not in the subset: parsed (so errors show), not run */
	}
	if (!work) {
		if (!mkdtemp(tmpdir)) {
			status = cli_report(&(struct sim_error){ SIM_E_IO, "mkdtemp failed" });
			goto done;
		}
		made_tmp = true;
		work = tmpdir;
	}
	/* checks of skipped files were dropped; nchecks holds the rest, but a
	 * dropped file's checks may sit between kept ones: run what is kept */
	bool failed = false;
	double t0 = (double)time(NULL);
	for (int v = 0; v < nf; v++) {
		struct vfile *vf = &vfs[v];
		bool wanted = false;
		for (int i = 0; i < nchecks; i++)
			wanted |= checks[i].vf == vf;
		if (!wanted)
			continue;
		if (vf->sw) {
			snprintf(vf->out_dir, sizeof(vf->out_dir), "%s/%s", work, vf->name);
			struct sweep_run_opts o = {
				.out_dir = vf->out_dir, .jobs = (int)jobs, .resume = resume,
				.progress = false, .log = stderr, .no_fork = no_fork,
			};
			if (!quiet)
				fprintf(stderr, "mobisim: validate: %s: %d runs\n", vf->name, vf->sw->npoints);
			int nfailed = 0;
			rc = sweep_run_all(vf->sw, &o, &nfailed, &err);
			if (rc) {
				fprintf(stderr, "mobisim: validate: %s: %s\n", vf->name, err.msg);
				vf->failed = failed = true;
				if (rc == SIM_E_INPUT && nfailed == vf->sw->npoints) {
					status = 2;
					goto done;
				}
			}
			char p[4300];
			snprintf(p, sizeof(p), "%s/summary-agg.tsv", vf->out_dir);
			if (agg_load(p, &vf->agg, &err) == 0) {
				snprintf(p, sizeof(p), "%s/summary.tsv", vf->out_dir);
				vf->ran = agg_load(p, &vf->runs, &err) == 0;
			}
			if (vf->ran && file_columns(vf, &err)) {
				status = cli_report(&err);
				goto done;
			}
		} else {
			vf->ran = true;
		}
	}
	int misses = 0;
	for (int i = 0; i < nchecks; i++) {
		struct vcheck *k = &checks[i];
		for (int col = 0; k->vf->ran && col < k->vf->ncols; col++) {
			rc = eval_column(k, col, &err);
			if (rc) {
				fprintf(stderr, "mobisim: validate: %s: %s\n", k->name, err.msg);
				failed = true;
				continue;
			}
			check_judge(k, col);
		}
		for (int col = 0; col < k->vf->ncols; col++)
			misses += k->kind != VK_REPORT && !k->res[col].pass;
	}
	for (int v = 0; nsamp && v < nf; v++) {
		struct vfile *vf = &vfs[v];
		bool wanted = false;
		for (int i = 0; i < nchecks; i++)
			wanted |= checks[i].vf == vf && checks[i].kind != VK_REPORT;
		if (!wanted || !vf->sw || !vf->ran)
			continue;
		rc = uq_run_file(vf, checks, nchecks, (int)nsamp, (uint64_t)uq_seed, design, work,
				 (int)jobs, resume, no_fork, quiet, &err);
		if (rc == SIM_E_INPUT) {
			status = cli_report(&err);
			goto done;
		}
		if (rc) {
			fprintf(stderr, "mobisim: validate: %s: --uncertainty: %s\n", vf->name, err.msg);
			failed = true;
		}
	}
	if (!quiet) {
		val_print_table(stdout, checks, nchecks);
		struct val_counts cn;
		char line[400];
		val_count(checks, nchecks, NULL, &cn);
		val_summary_line(line, sizeof(line), &cn);
		printf("\n%s (%.0f s)\n", line, (double)time(NULL) - t0);
		if (nsamp)
			val_uq_print(stdout, checks, nchecks, vfs, nf, false);
	}
	status = failed ? 1 : (strict && misses ? 1 : 0);
	char *md = NULL;
	if (doc) {
		md = val_markdown(checks, nchecks, vfs, nf, fast);
		if (md && nsamp) {
			/* the intervals go inside the generated block, before its end marker */
			char *mark = strstr(md, VAL_DOC_END);
			char *uq = NULL;
			size_t ulen = 0;
			FILE *mf = open_memstream(&uq, &ulen);
			if (mf && mark) {
				fprintf(mf, "%.*s", (int)(mark - md), md);
				val_uq_print(mf, checks, nchecks, vfs, nf, true);
				fprintf(mf, "\n%s", mark);
			}
			if (mf)
				fclose(mf);
			free(md);
			md = mark ? uq : NULL;
			if (!mark)
				free(uq);
		}
	}
	/* --doc and --tsv together: neither is replaced unless both can be,
	 * nor when a run failed (its checks would read as not run, the
	 * counts as misses: mobisim's failure, not the model's) */
	if (failed && (doc || tsv))
		fprintf(stderr, "mobisim: validate: a run failed (above): %s%s%s not written\n",
			doc ? doc : "", doc && tsv ? " and " : "", tsv ? tsv : "");
	else if (doc && !md)
		status = cli_report(&(struct sim_error){ SIM_E_NOMEM, "out of memory" });
	else if ((doc || tsv) && val_write_outputs(doc, md, tsv, checks, nchecks, &err))
		status = cli_report(&err);
	free(md);
done:
	if (made_tmp)
		nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	for (int i = 0; i < nchecks; i++)
		for (int col = 0; col < VAL_MAX_COLS; col++)
			free(checks[i].uq[col]);
	for (int v = 0; v < nf; v++) {
		if (vfs[v].as)
			assumptions_free(vfs[v].as);
		free(vfs[v].as);
		free(vfs[v].u);
		sweep_free(vfs[v].sw);
		cfg_free(vfs[v].doc);
		agg_free(&vfs[v].agg);
		agg_free(&vfs[v].runs);
		free(vfs[v].fitted);
	}
	for (int i = 0; i < npaths; i++)
		free(paths[i]);
	free(vfs);
	free(checks);
	return status;
}
