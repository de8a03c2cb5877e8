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
#include "sim/config.h"
#include "sim/results.h"
#include "sim/sim.h"

#define VAL_MAX_FILES 64
#define VAL_MAX_REFS 8
#define VAL_DOC_BEGIN "<!-- BEGIN mobisim validate (generated; do not edit by hand) -->"
#define VAL_DOC_END "<!-- END mobisim validate -->"

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
		"  --quiet           no table on stdout\n");
}

/* ------------------------------------------------------------ agg table */

struct agg {
	int ncols, nrows;
	char **cols;
	char **cells; /* nrows * ncols */
};

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
enum vtol { VTOL_REL, VTOL_ABS, VTOL_SIGN };

static const char *const stat_names[] = { "mean", "sd", "ci95", "min", "p50", "p95", "max", "n", NULL };

struct vfile {
	char *path;
	struct cfg_doc *doc;
	const char *name, *title, *source;
	bool fast;
	struct sweep *sw;           /* NULL: device checks only */
	char out_dir[4096];
	bool ran, failed;
	struct agg agg;
};

struct vresult {
	double model, ci;           /* ci: 95 % half-width of a plain mean, else NAN */
	const char *why_nan;        /* what was missing */
};

/* A ref {metric: NAME, where: {KEY: VALUE}, stat: mean}: the group row's
 * NAME.stat. With a == NULL only the syntax is checked. */
static int eval_ref(const struct vfile *vf, const struct cfg_node *r, double *v, double *ci,
		    const char **why, struct sim_error *err)
{
	if (!r || r->kind != CFG_MAP)
		return cfg_errorf(err, r, "expected {metric: NAME, where: {KEY: VALUE}, stat: mean|p50|p95|max|...}");
	const struct cfg_node *m = NULL, *w = NULL, *s = NULL;
	for (const struct cfg_node *c = r->child; c; c = c->next) {
		if (!strcmp(c->key, "metric"))
			m = c;
		else if (!strcmp(c->key, "where"))
			w = c;
		else if (!strcmp(c->key, "stat"))
			s = c;
		else
			return cfg_errorf(err, c, "unknown key (expected metric, where, stat)");
	}
	if (!m || m->kind != CFG_SCALAR)
		return cfg_errorf(err, r, "a reference needs metric: NAME (one of the sweep's metrics)");
	const char *stat = s && s->kind == CFG_SCALAR ? s->value : "mean";
	bool known = false;
	for (int i = 0; stat_names[i]; i++)
		known |= strcmp(stat, stat_names[i]) == 0;
	if (!known)
		return cfg_errorf(err, s, "unknown stat '%s' (expected mean, sd, ci95, min, p50, p95, max, n)",
				  stat);
	if (w && w->kind != CFG_MAP)
		return cfg_errorf(err, w, "expected a map {KEY: VALUE} of the sweep's axes");
	if (vf->sw) {
		bool found = false;
		for (int i = 0; i < vf->sw->nmetrics; i++)
			found |= strcmp(vf->sw->metrics[i].name, m->value) == 0;
		if (!found)
			return cfg_errorf(err, m, "'%s' is not a metric of this file's sweep", m->value);
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
	const struct agg *a = &vf->agg;
	char col[300];
	snprintf(col, sizeof(col), "%s.%s", m->value, stat);
	int cv = agg_col(a, col);
	snprintf(col, sizeof(col), "%s.ci95", m->value);
	int cc = agg_col(a, col);
	for (int row = 0; row < a->nrows; row++) {
		bool all = true;
		for (const struct cfg_node *c = w ? w->child : NULL; c && all; c = c->next) {
			int k = agg_col(a, c->key);
			all = k >= 0 && c->kind == CFG_SCALAR &&
			      text_eq(a->cells[row * a->ncols + k], c->value ? c->value : "");
		}
		if (!all)
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

/* The model side of a check; v == NULL checks the syntax only. */
static int eval_model(const struct vfile *vf, const struct cfg_node *model, struct vresult *res,
		      struct sim_error *err)
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
		return eval_ref(vf, arg, res ? &res->model : NULL, res ? &res->ci : NULL,
				res ? &res->why_nan : NULL, err);
	if (arg->kind != CFG_SEQ)
		return cfg_errorf(err, arg, "expected a list of references");
	double x[VAL_MAX_REFS];
	int n = 0;
	for (const struct cfg_node *c = arg->child; c; c = c->next) {
		if (n == VAL_MAX_REFS)
			return cfg_errorf(err, c, "at most %d references", VAL_MAX_REFS);
		x[n] = NAN;
		const char *why = NULL;
		if ((rc = eval_ref(vf, c, res ? &x[n] : NULL, NULL, &why, err)))
			return rc;
		if (res && why && !res->why_nan)
			res->why_nan = why;
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
		res->model = x[0] / x[1];
		break;
	case VOP_CHANGE:
		res->model = x[0] / x[1] - 1.0;
		break;
	case VOP_DIFF:
		res->model = x[0] - x[1];
		break;
	default:
		res->model = 0;
		for (int i = 0; i < n; i++)
			res->model += x[i];
		break;
	}
	return 0;
}

struct vcheck {
	const struct vfile *vf;
	const struct cfg_node *node, *model;
	const char *name, *unit, *reason;
	double paper;
	enum vtol tol_kind;
	double tol;
	struct vresult res;
	bool evaluated, pass;
	char note[160];
};

static int parse_check(const struct vfile *vf, const struct cfg_node *c, struct vcheck *k,
		       struct sim_error *err)
{
	memset(k, 0, sizeof(*k));
	k->vf = vf;
	k->node = c;
	k->unit = "";
	if (c->kind != CFG_MAP)
		return cfg_errorf(err, c, "expected a check {name, paper, unit, model, tolerance, reason}");
	const struct cfg_node *paper = NULL, *tol = NULL;
	for (const struct cfg_node *f = c->child; f; f = f->next) {
		if (!strcmp(f->key, "name") && f->kind == CFG_SCALAR)
			k->name = f->value;
		else if (!strcmp(f->key, "unit") && f->kind == CFG_SCALAR)
			k->unit = f->value ? f->value : "";
		else if (!strcmp(f->key, "reason") && f->kind == CFG_SCALAR)
			k->reason = f->value;
		else if (!strcmp(f->key, "paper"))
			paper = f;
		else if (!strcmp(f->key, "tolerance"))
			tol = f;
		else if (!strcmp(f->key, "model"))
			k->model = f;
		else
			return cfg_errorf(err, f, "unknown key (expected name, paper, unit, model, tolerance, reason)");
	}
	if (!k->name || !*k->name)
		return cfg_errorf(err, c, "a check needs name:");
	if (!paper || paper->kind != CFG_SCALAR)
		return cfg_errorf(err, c, "check '%s' needs paper: (the published number)", k->name);
	struct sim_error e2 = { 0 };
	if (cfg_parse_double(paper->value, &k->paper, &e2))
		return cfg_errorf(err, paper, "expected a number");
	if (!k->model)
		return cfg_errorf(err, c, "check '%s' needs model:", k->name);
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
	return eval_model(vf, k->model, NULL, err);
}

static void check_judge(struct vcheck *k)
{
	double m = k->res.model, p = k->paper;
	k->evaluated = true;
	if (isnan(m) || isinf(m)) {
		k->pass = false;
		snprintf(k->note, sizeof(k->note), "%s",
			 k->res.why_nan ? k->res.why_nan : "no model value");
		return;
	}
	switch (k->tol_kind) {
	case VTOL_REL:
		k->pass = fabs(m - p) <= k->tol * fabs(p) + 1e-12;
		break;
	case VTOL_ABS:
		k->pass = fabs(m - p) <= k->tol + 1e-12;
		break;
	case VTOL_SIGN:
		k->pass = (m > 0 && p > 0) || (m < 0 && p < 0);
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

static int load_vfile(struct vfile *vf, struct vcheck **checks, int *nchecks,
		      struct sim_error *err)
{
	int rc = cfg_load_file(vf->path, &vf->doc, err);
	if (rc)
		return rc == SIM_E_IO ? (err->code = SIM_E_INPUT) : rc;
	struct cfg_node *root = cfg_root(vf->doc);
	if (!root || root->kind != CFG_MAP)
		return sim_errorf(err, SIM_E_INPUT, "%s:1:1: expected a map with name:, checks:", vf->path);
	static const char *const keys[] = { "name", "title", "source", "fast", "sweep", "checks", NULL };
	for (const struct cfg_node *c = root->child; c; c = c->next) {
		bool ok = false;
		for (int i = 0; keys[i]; i++)
			ok |= strcmp(c->key, keys[i]) == 0;
		if (!ok)
			return cfg_errorf(err, c, "unknown key (expected name, title, source, fast, sweep, checks)");
	}
	vf->name = scalar_of(root, "name");
	vf->title = scalar_of(root, "title");
	vf->source = scalar_of(root, "source");
	if (!vf->name || !vf->source)
		return cfg_errorf(err, root, "a validation file needs name: and source: (where the numbers are published)");
	const struct cfg_node *fast = cfg_get(root, "fast");
	struct sim_error e2 = { 0 };
	if (fast && (fast->kind != CFG_SCALAR || cfg_parse_bool(fast->value, &vf->fast, &e2)))
		return cfg_errorf(err, fast, "expected true or false");
	if (cfg_get(root, "sweep") && (rc = sweep_load_subtree(vf->path, "sweep", &vf->sw, err)))
		return rc;
	const struct cfg_node *cl = cfg_get(root, "checks");
	if (!cl || cl->kind != CFG_SEQ || !cl->child)
		return cfg_errorf(err, cl ? cl : root, "checks: expected a list of checks");
	for (const struct cfg_node *c = cl->child; c; c = c->next) {
		struct vcheck *nk = realloc(*checks, (size_t)(*nchecks + 1) * sizeof(**checks));
		if (!nk)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		*checks = nk;
		if ((rc = parse_check(vf, c, &nk[*nchecks], err)))
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

/* ------------------------------------------------------------- output */

static void fmt_num(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "-");
	else if (x != 0 && (fabs(x) >= 1e5 || fabs(x) < 1e-3))
		snprintf(buf, len, "%.3g", x);
	else
		snprintf(buf, len, "%.4g", x);
}

static void fmt_model(char *buf, size_t len, const struct vcheck *k)
{
	char a[32], b[32];
	fmt_num(a, sizeof(a), k->res.model);
	if (!isnan(k->res.ci) && !isnan(k->res.model)) {
		fmt_num(b, sizeof(b), k->res.ci);
		snprintf(buf, len, "%s ± %s", a, b);
	} else {
		snprintf(buf, len, "%s", a);
	}
}

static void fmt_error(char *buf, size_t len, const struct vcheck *k)
{
	double m = k->res.model, p = k->paper;
	if (isnan(m))
		snprintf(buf, len, "-");
	else if (p != 0)
		snprintf(buf, len, "%+.1f %%", 100.0 * (m - p) / fabs(p));
	else
		snprintf(buf, len, "%+.3g", m - p);
}

static void fmt_tol(char *buf, size_t len, const struct vcheck *k)
{
	if (k->tol_kind == VTOL_SIGN)
		snprintf(buf, len, "same sign");
	else if (k->tol_kind == VTOL_REL)
		snprintf(buf, len, "±%g %%", 100.0 * k->tol);
	else
		snprintf(buf, len, "±%g%s%s", k->tol, *k->unit ? " " : "", k->unit);
}

static const char *verdict(const struct vcheck *k)
{
	if (!k->evaluated)
		return "not run";
	return k->pass ? "pass" : "MISS";
}

static void print_table(FILE *f, struct vcheck *ks, int n)
{
	int wn = 5, wf = 4;
	for (int i = 0; i < n; i++) {
		int l = (int)strlen(ks[i].name) + (int)strlen(ks[i].unit) + 3;
		wn = l > wn ? l : wn;
		l = (int)strlen(ks[i].vf->name);
		wf = l > wf ? l : wf;
	}
	fprintf(f, "%-*s  %-*s  %10s  %-22s  %9s  %-11s  %s\n", wf, "file", wn, "check", "paper",
		"model (± 95 % CI)", "error", "tolerance", "result");
	for (int i = 0; i < n; i++) {
		const struct vcheck *k = &ks[i];
		char name[300], p[32], m[64], e[32], t[48];
		snprintf(name, sizeof(name), "%s%s%s%s", k->name, *k->unit ? " (" : "", k->unit,
			 *k->unit ? ")" : "");
		fmt_num(p, sizeof(p), k->paper);
		fmt_model(m, sizeof(m), k);
		fmt_error(e, sizeof(e), k);
		fmt_tol(t, sizeof(t), k);
		fprintf(f, "%-*s  %-*s  %10s  %-*s  %9s  %-*s  %s%s%s\n", wf, k->vf->name, wn, name, p,
			22 + (strstr(m, "±") ? 1 : 0), m, e, 11 + (strstr(t, "±") ? 1 : 0), t,
			verdict(k), k->note[0] ? ": " : "", k->note);
	}
}

/* The generated part of docs/validation.md. */
static char *markdown(struct vcheck *ks, int n, struct vfile *vfs, int nf, bool fast)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int pass = 0, run = 0;
	for (int i = 0; i < n; i++) {
		run += ks[i].evaluated;
		pass += ks[i].pass;
	}
	fprintf(f, "%s\n\n", VAL_DOC_BEGIN);
	fprintf(f, "`mobisim validate%s --doc docs/validation.md`: %d of %d checks within their "
		   "tolerance%s.\n\n", fast ? " --fast" : "", pass, run, fast ? " (fast subset)" : "");
	for (int v = 0; v < nf; v++) {
		const struct vfile *vf = &vfs[v];
		bool any = false;
		for (int i = 0; i < n; i++)
			any |= ks[i].vf == vf;
		if (!any)
			continue;
		fprintf(f, "### %s\n\nSource: %s. File: `configs/validation/%s`", vf->title ? vf->title : vf->name,
			vf->source, strrchr(vf->path, '/') ? strrchr(vf->path, '/') + 1 : vf->path);
		if (vf->sw)
			fprintf(f, "; %d runs (%d groups of %d: %d repeat values x %d seeds)",
				vf->sw->npoints, vf->sw->ngroups,
				vf->sw->ngroups ? vf->sw->npoints / vf->sw->ngroups : 0,
				vf->sw->repeat_rows, vf->sw->repetitions);
		fprintf(f, ".\n\n| check | paper | model (± 95 %% CI) | error | tolerance | result | why this tolerance |\n"
			   "|---|---|---|---|---|---|---|\n");
		for (int i = 0; i < n; i++) {
			const struct vcheck *k = &ks[i];
			if (k->vf != vf)
				continue;
			char p[32], m[96], e[32], t[48];
			fmt_num(p, sizeof(p), k->paper);
			fmt_model(m, sizeof(m), k);
			fmt_error(e, sizeof(e), k);
			fmt_tol(t, sizeof(t), k);
			fprintf(f, "| %s%s%s%s | %s | %s | %s | %s | %s%s%s | %s |\n", k->name,
				*k->unit ? " (" : "", k->unit, *k->unit ? ")" : "", p, m, e, t,
				k->pass ? "pass" : "**miss**", k->note[0] ? ": " : "", k->note, k->reason);
		}
		fputc('\n', f);
	}
	fprintf(f, "%s\n", VAL_DOC_END);
	fclose(f);
	return buf;
}

static int write_doc(const char *path, const char *gen, struct sim_error *err)
{
	FILE *f = fopen(path, "r");
	char *old = NULL;
	size_t olen = 0;
	if (f) {
		FILE *m = open_memstream(&old, &olen);
		char b[65536];
		size_t r;
		while (m && (r = fread(b, 1, sizeof(b), f)) > 0)
			fwrite(b, 1, r, m);
		if (m)
			fclose(m);
		fclose(f);
	}
	char *out = NULL;
	size_t outlen = 0;
	FILE *o = open_memstream(&out, &outlen);
	if (!o) {
		free(old);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	char *b = old ? strstr(old, VAL_DOC_BEGIN) : NULL;
	char *e = b ? strstr(b, VAL_DOC_END) : NULL;
	if (old && (!b || !e)) {
		fclose(o);
		free(out);
		free(old);
		return sim_errorf(err, SIM_E_INPUT, "%s: has no '%s' ... '%s' markers; add them where the "
				  "table goes", path, VAL_DOC_BEGIN, VAL_DOC_END);
	}
	if (!old) {
		fputs("# Validation: the model against published numbers\n\n", o);
		fputs(gen, o);
	} else {
		fwrite(old, 1, (size_t)(b - old), o);
		fputs(gen, o);
		const char *rest = e + strlen(VAL_DOC_END);
		if (*rest == '\n')
			rest++;
		fputs(rest, o);
	}
	fclose(o);
	int rc = results_write_text_atomic(path, out, outlen, err);
	free(out);
	free(old);
	return rc;
}

static int write_tsv(const char *path, struct vcheck *ks, int n, struct sim_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	fputs("file\tcheck\tunit\tpaper\tmodel\tci95\terror_rel\ttolerance\tresult\n", f);
	for (int i = 0; i < n; i++) {
		const struct vcheck *k = &ks[i];
		char t[48];
		fmt_tol(t, sizeof(t), k);
		double er = k->paper != 0 ? (k->res.model - k->paper) / fabs(k->paper) : NAN;
		fprintf(f, "%s\t%s\t%s\t%.12g\t%.12g\t%.12g\t%.6g\t%s\t%s\n", k->vf->name, k->name,
			*k->unit ? k->unit : "-", k->paper, k->res.model, k->res.ci, er, t,
			k->evaluated ? (k->pass ? "pass" : "miss") : "not_run");
	}
	fclose(f);
	int rc = results_write_text_atomic(path, buf, len, err);
	free(buf);
	return rc;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	bool fast = false, strict = false, quiet = false, resume = false;
	const char *doc = NULL, *tsv = NULL, *work = NULL;
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
				.progress = false, .log = stderr,
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
			if (agg_load(p, &vf->agg, &err) == 0)
				vf->ran = true;
		} else {
			vf->ran = true;
		}
	}
	for (int i = 0; i < nchecks; i++) {
		struct vcheck *k = &checks[i];
		if (!k->vf->ran)
			continue;
		rc = eval_model(k->vf, k->model, &k->res, &err);
		if (rc) {
			fprintf(stderr, "mobisim: validate: %s: %s\n", k->name, err.msg);
			failed = true;
			continue;
		}
		check_judge(k);
	}
	int misses = 0;
	for (int i = 0; i < nchecks; i++)
		misses += !checks[i].pass;
	if (!quiet) {
		print_table(stdout, checks, nchecks);
		printf("\n%d of %d checks within tolerance (%.0f s)\n", nchecks - misses, nchecks,
		       (double)time(NULL) - t0);
	}
	status = failed ? 1 : (strict && misses ? 1 : 0);
	if (doc) {
		char *md = markdown(checks, nchecks, vfs, nf, fast);
		if (!md || write_doc(doc, md, &err))
			status = cli_report(md ? &err : &(struct sim_error){ SIM_E_NOMEM, "out of memory" });
		free(md);
	}
	if (tsv && write_tsv(tsv, checks, nchecks, &err))
		status = cli_report(&err);
done:
	if (made_tmp)
		nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	for (int v = 0; v < nf; v++) {
		sweep_free(vfs[v].sw);
		cfg_free(vfs[v].doc);
		agg_free(&vfs[v].agg);
	}
	for (int i = 0; i < npaths; i++)
		free(paths[i]);
	free(vfs);
	free(checks);
	return status;
}
