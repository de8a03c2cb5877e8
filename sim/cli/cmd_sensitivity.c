/* `mobisim sensitivity`: one-at-a-time perturbation of a scenario's
 * tunables, ranked by their effect on one metric of the result.
 *
 *   mobisim sensitivity SCENARIO.yaml --metric PATH [--scale X]
 *           [--params KEY,KEY...] [--factors LO,HI] [--set KEY=VALUE]...
 *           [--repeat N] [-j N] [--out DIR] [--top K] [--quiet]
 *
 * Which tunables: building the scenario's simulator once (not running it)
 * with a cfg_apply observer lists every parameter a module read, its dotted
 * key, value and its table's `source` string. By default the study takes
 * those whose source marks them as not measured — assumed, fitted, INFER,
 * [RECALL] — and that the scenario can reach by key. A value set in a
 * config file whose comment on that line names such a tag is tagged by it
 * even when the table's source is a fact: a platform file that assumes a
 * value the code sources for another device (cfq.nonrot on the Galaxy
 * S6's UFS, sourced from the MMC driver) must not hide the assumption (a section that is
 * absent gives defaults at no key; they are counted and named with
 * --params all). Each numeric one runs at value x LO and x HI (default 0.5
 * and 2, clamped to the parameter's declared range, integers rounded),
 * each boolean once flipped; enums and strings are left out.
 *
 * The runs are one in-memory sweep (the base and one include point per
 * perturbed value, `--repeat` seeds each) through the sweep runner's fork
 * pool; the effect of a parameter is the larger |metric(perturbed) -
 * metric(base)| of its two runs (means over the seeds), with --repeat its
 * 95 % half-width from the two means' intervals (conservative: the runs
 * share their seeds), and "noise" when the effect is within it; a half
 * that did not run is named on its tornado label. Output in DIR:
 * sensitivity.tsv (ranked), tornado.gp and tornado.png (gnuplot's pngcairo
 * or png terminal; skipped with a warning when gnuplot is missing), and the
 * sweep's points/ and summaries.
 */
#define _GNU_SOURCE /* strcasestr */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/policies/policy.h"
#include "sim/cli/assumptions.h"
#include "sim/cli/cli.h"
#include "sim/cli/plot.h"
#include "sim/cli/sweep.h"
#include "sim/config.h"
#include "sim/results.h"
#include "sim/sim.h"

#define SENS_MAX_PARAMS 4096

static void sens_usage(FILE *f)
{
	fprintf(f,
		"usage: mobisim sensitivity SCENARIO.yaml --metric PATH [options]\n"
		"  --metric PATH       JSON path into the result (docs/sweeps.md), e.g.\n"
		"                      \"regions[name=launch].duration_ns\"\n"
		"  --scale X           multiply the metric by X (e.g. 1e-9 for ns -> s)\n"
		"  --params LIST       comma list of dotted keys to perturb, or 'all' for every\n"
		"                      numeric or boolean tunable the scenario reaches (default:\n"
		"                      those whose source says assumed, fitted, INFER or RECALL)\n"
		"  --factors LO,HI     multiply each value by LO and by HI (default 0.5,2)\n"
		"  --set KEY=VALUE     override a scenario value first (repeatable)\n"
		"  --repeat N          seeds per run (default 1: the scenario's seed)\n"
		"  -j, --jobs N        runs at once (default: online CPUs)\n"
		"  -o, --out DIR       output directory (default: sensitivity.out)\n"
		"  --top K             parameters in the tornado chart (default 15)\n"
		"  --list              print the tunables found, with source tags, and exit\n"
		"  --quiet             no table on stdout\n");
}

struct sparam {
	char key[320];
	const struct cfg_param *p;
	char text[128];            /* value as applied */
	double bare;               /* in p's unit */
	bool reachable;            /* has a dotted key (its section exists) */
	bool tagged;               /* source says assumed / fitted / INFER / RECALL */
	char origin[200];          /* file:line whose comment tagged the value, or "" */
	bool chosen;
	int nvals;                 /* perturbed values (1 for bools, 0..2 numeric) */
	char vals[2][64];
	int group[2];              /* summary-agg row of each value */
	double metric[2], effect;
	/* 95 % half-width of effect over --repeat seeds (NaN with one seed):
	 * the two means' intervals combined as if independent, which the
	 * shared seeds make conservative */
	double effect_ci;
	bool noise;                /* effect within effect_ci of zero */
	const char *skip;          /* why not perturbed */
	char limit[400];           /* a value moved back inside what the build accepts, and why */
};

struct discovery {
	struct sparam *ps;
	int n;
};

static bool tagged_source(const char *s)
{
	static const char *const tags[] = { "assum", "fitted", "infer", "recall", NULL };
	if (!s)
		return true; /* no source at all: an assumption by definition */
	for (int i = 0; tags[i]; i++)
		if (strcasestr(s, tags[i]))
			return true;
	return false;
}

/* The comment on the line of FILE that set a value ("" if none). Config
 * files are small; each lookup reads the file again. */
static void line_comment(const char *file, int line, char *out, size_t len)
{
	out[0] = '\0';
	FILE *f = file && line > 0 ? fopen(file, "r") : NULL;
	if (!f)
		return;
	char *buf = NULL;
	size_t cap = 0;
	for (int n = 1; getline(&buf, &cap, f) >= 0; n++) {
		if (n < line)
			continue;
		bool quoted = false;
		for (char *c = buf; *c; c++) {
			if (*c == '"' || *c == '\'')
				quoted = !quoted;
			if (*c == '#' && !quoted) {
				snprintf(out, len, "%s", c + 1);
				out[strcspn(out, "\r\n")] = '\0';
				break;
			}
		}
		break;
	}
	free(buf);
	fclose(f);
}

static void observe(void *ctx, const struct cfg_param *p, const struct cfg_node *map,
		    const struct cfg_node *value, const char *text, double bare)
{
	struct discovery *d = ctx;
	char path[240] = "";
	bool reachable = map != NULL;
	if (map)
		cfg_node_path(map, path, sizeof(path));
	if (strchr(path, '['))
		reachable = false; /* list items: --set cannot name them */
	char key[320];
	if (reachable)
		snprintf(key, sizeof(key), "%s%s%.64s", path, *path ? "." : "", p->key);
	else
		snprintf(key, sizeof(key), "(%s%s%.64s)", path, *path ? "." : "defaults of ", p->key);
	for (int i = 0; i < d->n; i++)
		if (strcmp(d->ps[i].key, key) == 0 && d->ps[i].p == p)
			return; /* validation passes apply a table twice */
	if (d->n == SENS_MAX_PARAMS)
		return;
	struct sparam *s = &d->ps[d->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->key, sizeof(s->key), "%s", key);
	s->p = p;
	snprintf(s->text, sizeof(s->text), "%s", text ? text : "");
	s->bare = bare;
	s->reachable = reachable;
	s->tagged = tagged_source(p->source);
	if (!s->tagged && value && value->file) {
		char com[512];
		line_comment(value->file, value->line, com, sizeof(com));
		if (com[0] && tagged_source(com))
			snprintf(s->origin, sizeof(s->origin), "%s:%d", value->file, value->line);
		s->tagged |= com[0] && tagged_source(com);
	}
}

#define SENS_POLICY_SECTIONS 8

/* `NAME={}` for each policy of doc's set with tunables and no section of
 * its own in doc, so that its defaults are read at keys --set can name.
 * Returns how many were written to out. */
static int policy_sections(struct cfg_doc *doc, char **out, char (*buf)[64], int max)
{
	const struct cfg_node *pol = cfg_lookup(cfg_root(doc), "policies");
	char names_buf[1024];
	const char *names[POLICY_SET_MAX];
	size_t n = 0;
	struct sim_error e;
	if (!pol)
		return 0;
	if (pol->kind == CFG_SCALAR && pol->value) {
		if (policy_parse_list(pol->value, names_buf, sizeof(names_buf), names, POLICY_SET_MAX,
				      &n, &e))
			return 0; /* the build names the error */
	} else if (pol->kind == CFG_SEQ) {
		for (const struct cfg_node *c = pol->child; c && n < POLICY_SET_MAX; c = c->next)
			if (c->kind == CFG_SCALAR && c->value)
				names[n++] = c->value;
	}
	struct policy_registry *reg = policy_registry_new();
	int k = 0;
	for (size_t i = 0; reg && i < n && k < max; i++) {
		const struct policy_ops *o = policy_registry_find(reg, names[i]);
		if (!o || !o->params || cfg_lookup(cfg_root(doc), names[i]) ||
		    strlen(names[i]) + 4 > sizeof(buf[k]))
			continue;
		snprintf(buf[k], sizeof(buf[k]), "%s={}", names[i]);
		out[k] = buf[k];
		k++;
	}
	policy_registry_free(reg);
	return k;
}

static double clamp_range(const struct cfg_param *p, double v)
{
	if (p->min <= p->max) {
		if (v < p->min)
			v = p->min;
		if (v > p->max)
			v = p->max;
	}
	return v;
}

/* v as a value of p: in its bare unit, with the unit written where the
 * parser reads it back (a size or time without an exponent), so that the
 * points, the table and the TSV say what they mean. */
static void value_text(const struct cfg_param *p, double v, bool integral, char *buf, size_t len)
{
	snprintf(buf, len, integral ? "%.0f" : "%.6g", v);
	if ((p->type == CFG_T_SIZE || p->type == CFG_T_TIME) && p->unit && *p->unit && !strchr(buf, 'e'))
		snprintf(buf + strlen(buf), len - strlen(buf), "%s", p->unit);
}

static bool value_integral(const struct cfg_param *p)
{
	return p->type == CFG_T_INT ||
	       ((p->type == CFG_T_SIZE || p->type == CFG_T_TIME) && (!p->unit || !*p->unit));
}

/* The perturbed values of s, as text in the parameter's bare unit. */
static void perturb(struct sparam *s, double lo, double hi)
{
	const struct cfg_param *p = s->p;
	s->nvals = 0;
	if (!s->reachable) {
		s->skip = "its section is absent (defaults only)";
		return;
	}
	if (p->type == CFG_T_BOOL) {
		snprintf(s->vals[0], sizeof(s->vals[0]), "%s", s->bare != 0 ? "false" : "true");
		s->nvals = 1;
		return;
	}
	if (p->type == CFG_T_ENUM || p->type == CFG_T_STRING) {
		s->skip = "not numeric";
		return;
	}
	if (s->bare == 0) {
		s->skip = "value 0 (a factor does not move it)";
		return;
	}
	double f[2] = { lo, hi };
	bool integral = value_integral(p);
	for (int i = 0; i < 2; i++) {
		double v = clamp_range(p, s->bare * f[i]);
		if (integral)
			v = floor(v + 0.5);
		if (v == s->bare)
			continue;
		bool dup = false;
		for (int k = 0; k < s->nvals; k++)
			dup |= strtod(s->vals[k], NULL) == v;
		if (dup)
			continue;
		value_text(p, v, integral, s->vals[s->nvals++], sizeof(s->vals[0]));
	}
	if (!s->nvals)
		s->skip = "its range does not let it move";
}

/* Does the scenario build (not run) with key=value over sets? err says
 * why not. A limit across keys (memory.reserved_bytes below
 * memory.total_bytes) is known only to the module that reads both. */
static bool builds_with(const char *scenario, char **sets, int nsets, const char *key, const char *value,
			struct sim_error *err)
{
	char **all = calloc((size_t)nsets + 1, sizeof(char *));
	size_t len = strlen(key) + strlen(value) + 2;
	char *kv = malloc(len);
	struct cfg_doc *doc;
	struct sim *s = NULL;
	struct sim_options so = { .quiet = true };
	int rc = SIM_E_NOMEM;
	if (all && kv) {
		snprintf(kv, len, "%s=%s", key, value);
		for (int i = 0; i < nsets; i++)
			all[i] = sets[i];
		all[nsets] = kv;
		rc = cli_load_scenario(scenario, all, nsets + 1, &doc, err);
		if (!rc)
			rc = sim_create(doc, scenario, &so, &s, err);
		sim_destroy(s);
	}
	free(kv);
	free(all);
	return rc == 0;
}

/* Keep each perturbed value of s inside what the build accepts: a value
 * refused (a limit of another key, the platform's memory) is moved toward
 * the base by bisection (12 steps) to the farthest one that builds, or
 * dropped when none does; s->limit says which and the build's reason. */
static void fit_limits(struct sparam *s, const char *scenario, char **sets, int nsets)
{
	const struct cfg_param *p = s->p;
	if (p->type == CFG_T_BOOL)
		return;
	bool integral = value_integral(p);
	for (int k = 0; k < s->nvals; k++) {
		struct sim_error err = { 0 }, e2;
		if (builds_with(scenario, sets, nsets, s->key, s->vals[k], &err))
			continue;
		if (err.code != SIM_E_INPUT)
			continue; /* not a limit: the run will report it */
		double good = s->bare, bad = strtod(s->vals[k], NULL);
		char buf[64];
		for (int it = 0; it < 12; it++) {
			double mid = (good + bad) / 2;
			if (integral)
				mid = floor(mid + 0.5);
			if (mid == good || mid == bad)
				break;
			value_text(p, mid, integral, buf, sizeof(buf));
			if (builds_with(scenario, sets, nsets, s->key, buf, &e2))
				good = mid;
			else
				bad = mid;
		}
		/* the build's message from the key on, past its file and section */
		const char *why = strstr(err.msg, s->p->key) ? strstr(err.msg, s->p->key) : err.msg;
		const char *side = strtod(s->vals[k], NULL) > s->bare ? "high" : "low";
		size_t at = strlen(s->limit); /* both values refused: both said */
		if (at && at + 2 < sizeof(s->limit)) {
			memcpy(s->limit + at, "; ", 3);
			at += 2;
		}
		if (good == s->bare) {
			snprintf(s->limit + at, sizeof(s->limit) - at, "%s %s refused, none toward it builds: %.160s",
				 side, s->vals[k], why);
			for (int j = k; j + 1 < s->nvals; j++)
				memcpy(s->vals[j], s->vals[j + 1], sizeof(s->vals[j]));
			s->nvals--;
			k--;
			continue;
		}
		value_text(p, good, integral, buf, sizeof(buf));
		snprintf(s->limit + at, sizeof(s->limit) - at, "%s %s refused, %s used: %.160s",
			 side, s->vals[k], buf, why);
		snprintf(s->vals[k], sizeof(s->vals[k]), "%s", buf);
	}
	if (!s->nvals && !s->skip)
		s->skip = s->limit;
}

/* Whether a key of the path ends in suffix (lat_ns.p99: the unit is ns). */
static bool path_has_unit(const char *metric, const char *suffix)
{
	size_t sl = strlen(suffix);
	for (const char *p = strstr(metric, suffix); p; p = strstr(p + 1, suffix))
		if (p[sl] == '\0' || p[sl] == '.' || p[sl] == '[')
			return true;
	return false;
}

/* The axis label: the metric and the unit its values are in after --scale
 * (a duration_ns scaled by 1e-9 is in seconds, not ns). */
static void metric_label(char *buf, size_t len, const char *metric, double scale)
{
	static const struct {
		const char *suffix;
		double scale;
		const char *unit;
	} conv[] = {
		{ "_ns", 1, "ns" },   { "_ns", 1e-3, "us" }, { "_ns", 1e-6, "ms" },
		{ "_ns", 1e-9, "s" }, { "_kib", 1, "KiB" },  { "_kib", 1.0 / 1024, "MiB" },
	};
	for (size_t i = 0; i < sizeof(conv) / sizeof(conv[0]); i++) {
		if (path_has_unit(metric, conv[i].suffix) && fabs(scale / conv[i].scale - 1) < 1e-9) {
			snprintf(buf, len, "%s (%s)", metric, conv[i].unit);
			return;
		}
	}
	if (scale != 1)
		snprintf(buf, len, "%s x %g", metric, scale);
	else
		snprintf(buf, len, "%s", metric);
}

static int write_tornado(const char *dir, struct sparam **rank, int n, double base,
			 const char *metric, double scale, double lo, double hi, FILE *log)
{
	char label[600];
	metric_label(label, sizeof(label), metric, scale);
	char path[4300];
	char *text = NULL;
	size_t len = 0;
	struct sim_error err;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return -1;
	/* y from the top: the largest effect first */
	fprintf(f, "y\tparam\tlow\thigh\tvalue_low\tvalue_high\n");
	for (int i = 0; i < n; i++) {
		struct sparam *s = rank[i];
		double a = s->metric[0], b = s->nvals > 1 ? s->metric[1] : NAN;
		/* a half that did not run has no bar: the label says so */
		fprintf(f, "%d\t%s%s%s%s\t%.12g\t%.12g\t%s\t%s\n", n - i, s->key,
			isnan(a) ? " (x lo failed)" : "", s->nvals > 1 && isnan(b) ? " (x hi failed)" : "",
			s->noise ? " (noise)" : "", a, b, s->vals[0], s->nvals > 1 ? s->vals[1] : "-");
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/tornado.tsv", dir);
	int rc = results_write_text_atomic(path, text, len, &err);
	free(text);
	text = NULL;
	if (rc) {
		if (log)
			fprintf(log, "mobisim: warning: %s: no tornado chart\n", err.msg);
		return -1;
	}
	f = open_memstream(&text, &len);
	if (!f)
		return -1;
	fprintf(f,
		"# Tornado chart of `mobisim sensitivity` (regenerate: gnuplot tornado.gp in this\n"
		"# directory). Bars run from the base run's metric to the perturbed run's.\n");
	cli_gnuplot_terminal(f, 1000, 120 + 32 * n);
	fprintf(f,
		"set output 'tornado.png'\n"
		"set datafile separator '\\t'\n"
		"set title 'one at a time: each tunable x%g and x%g (base %.6g)'\n"
		"set xlabel '%s'\n"
		"set yrange [0.3:%d.7]\n"
		"set ytics nomirror\n"
		"set grid xtics\n"
		"set key bottom right\n"
		"set style fill solid 0.8 border -1\n"
		"base = %.12g\n"
		"set arrow from base, graph 0 to base, graph 1 nohead dt 2 lc rgb 'black'\n"
		"plot 'tornado.tsv' skip 1 using (($3 + base) / 2):1:(base < $3 ? base : $3):(base < $3 ? $3 : base):($1 - 0.35):($1 + 0.01):ytic(2) "
		"with boxxyerror lc rgb '#4477aa' title 'x%g (or flipped)', \\\n"
		"     '' skip 1 using (($4 + base) / 2):1:(base < $4 ? base : $4):(base < $4 ? $4 : base):($1 - 0.01):($1 + 0.35) "
		"with boxxyerror lc rgb '#cc6677' title 'x%g'\n",
		lo, hi, base, label, n, base, lo, hi);
	fclose(f);
	snprintf(path, sizeof(path), "%s/tornado.gp", dir);
	rc = results_write_text_atomic(path, text, len, &err);
	free(text);
	if (rc) {
		if (log)
			fprintf(log, "mobisim: warning: %s: no tornado chart\n", err.msg);
		return -1;
	}
	if (!cli_gnuplot_found()) {
		if (log)
			fprintf(log, "mobisim: warning: gnuplot not found: %s/tornado.png not drawn\n", dir);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/tornado.gp.log", dir);
	int errfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (cli_gnuplot_run(dir, NULL, "tornado.gp", errfd) != 0 && log)
		fprintf(log, "mobisim: warning: gnuplot failed (see %s/tornado.gp.log)\n", dir);
	if (errfd >= 0)
		close(errfd);
	return 0;
}

static int cmp_effect(const void *a, const void *b)
{
	const struct sparam *x = *(struct sparam *const *)a, *y = *(struct sparam *const *)b;
	double ex = isnan(x->effect) ? -1 : x->effect, ey = isnan(y->effect) ? -1 : y->effect;
	if (ex != ey)
		return ex < ey ? 1 : -1;
	return strcmp(x->key, y->key);
}

int cmd_sensitivity(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "scale", required_argument, NULL, 'x' },
		{ "params", required_argument, NULL, 'p' },
		{ "factors", required_argument, NULL, 'f' },
		{ "set", required_argument, NULL, 's' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, 'T' },
		{ "list", no_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *metric = NULL, *params = NULL, *out = "sensitivity.out";
	double scale = 1.0, flo = 0.5, fhi = 2.0;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN), reps = 1, top = 15;
	bool list = false, quiet = false;
	char **sets = calloc((size_t)argc + 1, sizeof(char *));
	int nsets = 0, c, status = 2;
	struct discovery d = { .ps = calloc(SENS_MAX_PARAMS, sizeof(struct sparam)) };
	struct sweep *sw = NULL;
	char *text = NULL;
	struct sparam **rank = NULL;
	struct sim_error err = { 0 };
	if (!sets || !d.ps) {
		fprintf(stderr, "mobisim: out of memory\n");
		status = 1;
		goto done;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "m:j:o:qh", opts, NULL)) != -1) {
		char *end = NULL;
		switch (c) {
		case 'm':
			metric = optarg;
			break;
		case 'x':
			scale = strtod(optarg, &end);
			if (end == optarg || *end || !isfinite(scale) || scale == 0) {
				fprintf(stderr, "mobisim: --scale: '%s' is not a non-zero number\n", optarg);
				goto done;
			}
			break;
		case 'p':
			params = optarg;
			break;
		case 'f':
			if (sscanf(optarg, "%lf,%lf", &flo, &fhi) != 2 || !(flo > 0) || !(fhi > 0) ||
			    flo == 1 || fhi == 1 || flo == fhi) {
				fprintf(stderr, "mobisim: --factors: '%s': expected LO,HI (positive, not 1), "
					"e.g. 0.5,2\n", optarg);
				goto done;
			}
			break;
		case 's':
			sets[nsets++] = optarg;
			break;
		case 'R':
		case 'j':
		case 'T': {
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 1 || v > 100000) {
				fprintf(stderr, "mobisim: %s: '%s' is not a positive integer\n",
					c == 'R' ? "--repeat" : c == 'j' ? "-j" : "--top", optarg);
				goto done;
			}
			*(c == 'R' ? &reps : c == 'j' ? &jobs : &top) = v;
			break;
		}
		case 'o':
			out = optarg;
			break;
		case 'l':
			list = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			sens_usage(stdout);
			status = 0;
			goto done;
		default:
			sens_usage(stderr);
			goto done;
		}
	}
	if (optind != argc - 1 || (!metric && !list)) {
		if (optind == argc - 1)
			fprintf(stderr, "mobisim: sensitivity: --metric is required\n");
		sens_usage(stderr);
		goto done;
	}
	if (metric && sweep_json_path_check(metric)) {
		fprintf(stderr, "mobisim: --metric '%s': %s\n", metric, sweep_json_path_check(metric));
		goto done;
	}
	char scnbuf[4096];
	const char *scenario = cli_scenario_path(argv[optind], scnbuf, sizeof(scnbuf));
	char abs_scn[4096];
	if (scenario[0] != '/' && getcwd(abs_scn, sizeof(abs_scn)))
		snprintf(abs_scn + strlen(abs_scn), sizeof(abs_scn) - strlen(abs_scn), "/%s", scenario);
	else
		snprintf(abs_scn, sizeof(abs_scn), "%s", scenario);

	/* discovery: build the simulator once (not run), watching every tunable
	 * it reads. A section the scenario leaves out gives its defaults at no
	 * key, so the sections a module may read are added empty (`cfq: {}`,
	 * all defaults); those that nothing reads are dropped again (the
	 * build's error names them) and the build retried. */
	static const char *const sections[] = {
		"block", "cfq", "deadline", "mq_deadline", "kyber", "cpu", "memory", "pagecache",
		"pagecache_lock", "readahead", "writeback", "fs", "journal", "device.ftl", NULL,
	};
	bool drop[32] = { false };
	char polbuf[SENS_POLICY_SECTIONS][64];
	char **dsets = calloc((size_t)nsets + 32 + SENS_POLICY_SECTIONS, sizeof(char *));
	char setbuf[32][64];
	int rc = 0;
	if (!dsets) {
		status = 1;
		goto done;
	}
	for (int attempt = 0; attempt < 32; attempt++) {
		struct cfg_doc *doc;
		struct sim *s = NULL;
		struct sim_options so = { .quiet = true };
		int nd = 0;
		rc = cli_load_scenario(scenario, sets, nsets, &doc, &err);
		if (rc)
			break;
		for (int i = 0; i < nsets; i++)
			dsets[nd++] = sets[i];
		for (int i = 0; sections[i]; i++) {
			if (drop[i] || cfg_lookup(cfg_root(doc), sections[i]))
				continue; /* present: its keys are reachable as they are */
			snprintf(setbuf[i], sizeof(setbuf[i]), "%s={}", sections[i]);
			dsets[nd++] = setbuf[i];
		}
		/* and the sections of the policies in the set (`fasttrack: {}`) */
		nd += policy_sections(doc, dsets + nd, polbuf, SENS_POLICY_SECTIONS);
		cfg_free(doc);
		d.n = 0;
		cfg_set_apply_observer(observe, &d);
		rc = cli_load_scenario(scenario, dsets, nd, &doc, &err);
		if (!rc)
			rc = sim_create(doc, scenario, &so, &s, &err);
		cfg_set_apply_observer(NULL, NULL);
		sim_destroy(s);
		if (!rc)
			break;
		bool dropped = false; /* a section we added that the build refused */
		for (int i = 0; sections[i] && !dropped && strncmp(err.msg, "--set:", 6) == 0; i++) {
			char needle[96];
			snprintf(needle, sizeof(needle), " %s: ", sections[i]);
			if (!drop[i] && strstr(err.msg, needle))
				drop[i] = dropped = true;
		}
		if (!dropped)
			break; /* the scenario's own error */
	}
	free(dsets);
	if (rc) {
		status = cli_report(&err);
		goto done;
	}

	/* choose */
	int nchosen = 0, nunreach = 0;
	bool all = params && strcmp(params, "all") == 0;
	if (params && !all) {
		char *copy = strdup(params);
		for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			while (isspace((unsigned char)*t))
				t++;
			bool found = false;
			for (int i = 0; i < d.n; i++)
				if (strcmp(d.ps[i].key, t) == 0) {
					d.ps[i].chosen = found = true;
				}
			if (!found) {
				fprintf(stderr, "mobisim: --params: '%s' is not a tunable this scenario reads "
					"(see --list)\n", t);
				free(copy);
				goto done;
			}
		}
		free(copy);
	} else {
		for (int i = 0; i < d.n; i++)
			d.ps[i].chosen = all || d.ps[i].tagged;
	}
	for (int i = 0; i < d.n; i++) {
		if (!d.ps[i].chosen)
			continue;
		perturb(&d.ps[i], flo, fhi);
		if (!d.ps[i].reachable)
			nunreach++;
		if (d.ps[i].nvals)
			nchosen++;
	}
	if (list) {
		struct assumption_set as;
		if (assumptions_load(scenario, sets, nsets, &as, &err)) {
			status = cli_report(&err);
			goto done;
		}
		printf("# tunables read by %s: key, value, unit, tag, source, range, why that range "
		       "(the scenario's assumptions:)\n", scenario);
		bool *seen = calloc((size_t)as.n + 1, sizeof(bool));
		for (int i = 0; i < d.n; i++) {
			const struct sparam *p = &d.ps[i];
			const struct assumption *a = assumptions_find(&as, p->key);
			char range[600] = "-";
			if (a) {
				assumption_range_text(a, range, sizeof(range));
				if (seen)
					seen[a - as.a] = true;
			}
			printf("%s\t%s\t%s\t%s\t%s%s%s%s\t%s\t%s\n", p->key, p->text,
			       p->p->unit && *p->p->unit ? p->p->unit : "-",
			       p->tagged || a ? "assumed" : "sourced", p->origin[0] ? "assumed at " : "",
			       p->origin, p->origin[0] ? "; the table's: " : "",
			       p->p->source ? p->p->source : "(none)", range, a ? a->reason : "-");
		}
		/* a joint assumption (a label) or one whose key no module read:
		 * a tunable of a policy outside this run's set says which */
		struct policy_registry *reg = policy_registry_new();
		for (int i = 0; i < as.n; i++) {
			if (seen && seen[i])
				continue;
			char range[600], why[200];
			assumption_range_text(&as.a[i], range, sizeof(range));
			const char *dot = strchr(as.a[i].name, '.');
			snprintf(why, sizeof(why), "%s", as.a[i].discrete && !dot ?
				 " (sets several keys)" : " (no module read this key)");
			if (dot && reg) {
				char sec[64];
				size_t l = (size_t)(dot - as.a[i].name);
				if (l < sizeof(sec)) {
					memcpy(sec, as.a[i].name, l);
					sec[l] = '\0';
					if (policy_registry_find(reg, sec))
						snprintf(why, sizeof(why), " (read when policies include %s)", sec);
				}
			}
			printf("%s\t-\t-\tassumed\t%s:%d%s\t%s\t%s\n", as.a[i].name, as.a[i].file,
			       as.a[i].line, why, range, as.a[i].reason);
		}
		policy_registry_free(reg);
		free(seen);
		assumptions_free(&as);
		status = 0;
		goto done;
	}
	/* values the build refuses come back inside its limits, said in the table */
	nchosen = 0;
	for (int i = 0; i < d.n; i++) {
		if (!d.ps[i].chosen || !d.ps[i].nvals)
			continue;
		fit_limits(&d.ps[i], scenario, sets, nsets);
		if (d.ps[i].limit[0] && !quiet)
			fprintf(stderr, "mobisim: sensitivity: %s: %s\n", d.ps[i].key, d.ps[i].limit);
		if (d.ps[i].nvals)
			nchosen++;
	}
	if (!nchosen) {
		fprintf(stderr, "mobisim: sensitivity: no tunable to perturb (see --list)\n");
		goto done;
	}

	/* one sweep: the base, then one include point per perturbed value */
	size_t tlen = 0;
	FILE *t = open_memstream(&text, &tlen);
	fprintf(t, "base: \"%s\"\n", abs_scn);
	if (nsets) {
		fprintf(t, "set:\n");
		for (int i = 0; i < nsets; i++) {
			const char *eq = strchr(sets[i], '=');
			if (!eq) {
				fclose(t);
				fprintf(stderr, "mobisim: --set '%s': expected KEY=VALUE\n", sets[i]);
				goto done;
			}
			fprintf(t, "  \"%.*s\": \"%s\"\n", (int)(eq - sets[i]), sets[i], eq + 1);
		}
	}
	if (reps > 1)
		fprintf(t, "repetitions: %ld\n", reps);
	fprintf(t, "include_points:\n");
	int group = 1;
	for (int i = 0; i < d.n; i++)
		for (int k = 0; k < d.ps[i].nvals; k++) {
			fputs("  - {\"", t);
			fputs(d.ps[i].key, t);
			fprintf(t, "\": \"%s\"}\n", d.ps[i].vals[k]);
			d.ps[i].group[k] = group++;
		}
	fprintf(t, "metrics:\n  m: {path: '%s', scale: %.17g}\n", metric, scale);
	fclose(t);
	char name[4200];
	snprintf(name, sizeof(name), "%s/sensitivity-sweep.yaml", out);
	rc = sweep_load_string(text, tlen, name, &sw, &err);
	if (rc) {
		status = cli_report(&err);
		goto done;
	}
	/* a wrong --metric fails here, before any run */
	char why[SIM_ERRMSG_MAX];
	if (sweep_check_metric_path(sw, metric, why, sizeof(why))) {
		fprintf(stderr, "mobisim: --metric '%s' is not in the result: %.700s\n", metric, why);
		goto done;
	}
	if (sw->ngroups != group) {
		fprintf(stderr, "mobisim: sensitivity: internal: %d groups for %d runs\n", sw->ngroups,
			group);
		status = 1;
		goto done;
	}
	if (!quiet)
		fprintf(stderr, "mobisim: sensitivity: %d tunables, %d runs%s\n", nchosen, sw->npoints,
			nunreach ? " (some chosen tunables have no key: see the table)" : "");
	struct sweep_run_opts o = { .out_dir = out, .jobs = (int)jobs, .progress = !quiet && isatty(2),
				    .log = stderr };
	int nfailed = 0;
	rc = sweep_run_all(sw, &o, &nfailed, &err);
	if (rc && nfailed == sw->npoints) {
		status = cli_report(&err);
		goto done;
	}
	if (rc)
		fprintf(stderr, "mobisim: sensitivity: %s (their parameters get NaN)\n", err.msg);
	results_write_text_atomic(name, text, tlen, &err); /* what ran, for --collect and reruns */

	/* read the means back */
	char aggp[4300];
	snprintf(aggp, sizeof(aggp), "%s/summary-agg.tsv", out);
	FILE *a = fopen(aggp, "r");
	double *mean = calloc((size_t)group, sizeof(double));
	double *ci = calloc((size_t)group, sizeof(double));
	if (!a || !mean || !ci) {
		fprintf(stderr, "mobisim: %s: %s\n", aggp, strerror(errno));
		free(mean);
		free(ci);
		if (a)
			fclose(a);
		status = 1;
		goto done;
	}
	char *line = NULL;
	size_t cap = 0;
	int mcol = -1, ccol = -1;
	for (int row = -1; getline(&line, &cap, a) >= 0; row++) {
		line[strcspn(line, "\n")] = '\0';
		int col = 0;
		for (char *save = NULL, *f = strtok_r(line, "\t", &save); f; f = strtok_r(NULL, "\t", &save), col++) {
			if (row < 0 && strcmp(f, "m.mean") == 0)
				mcol = col;
			if (row < 0 && strcmp(f, "m.ci95") == 0)
				ccol = col;
			if (row >= 0 && row < group && col == mcol)
				mean[row] = strtod(f, NULL);
			if (row >= 0 && row < group && col == ccol)
				ci[row] = reps > 1 ? strtod(f, NULL) : NAN;
		}
	}
	free(line);
	fclose(a);
	double base = mean[0];
	rank = calloc((size_t)d.n + 1, sizeof(*rank));
	int nr = 0;
	for (int i = 0; i < d.n; i++) {
		struct sparam *p = &d.ps[i];
		if (!p->chosen)
			continue;
		p->effect = p->effect_ci = NAN;
		for (int k = 0; k < p->nvals; k++) {
			p->metric[k] = mean[p->group[k]];
			double e = fabs(p->metric[k] - base);
			if (isnan(e)) {
				p->skip = k ? "the high value did not run (see above)"
					    : "the low value did not run (see above)";
			} else if (isnan(p->effect) || e > p->effect) {
				p->effect = e;
				p->effect_ci = sqrt(ci[0] * ci[0] + ci[p->group[k]] * ci[p->group[k]]);
			}
		}
		p->noise = !isnan(p->effect_ci) && p->effect <= p->effect_ci;
		rank[nr++] = p;
	}
	double base_ci = ci[0];
	free(mean);
	free(ci);
	qsort(rank, (size_t)nr, sizeof(*rank), cmp_effect);

	/* sensitivity.tsv */
	char *tsv = NULL;
	size_t tsvlen = 0;
	FILE *ts = open_memstream(&tsv, &tsvlen);
	fprintf(ts, "# mobisim sensitivity %s --metric %s (scale %g), base %.12g, factors x%g x%g, "
		    "%ld seed(s) per run\n", scenario, metric, scale, base, flo, fhi, reps);
	fprintf(ts, "rank\tparam\ttag\tvalue\tunit\tvalue_low\tvalue_high\tmetric_low\tmetric_high\t"
		    "effect\teffect_ci95\teffect_rel\tsource\n");
	for (int i = 0; i < nr; i++) {
		struct sparam *p = rank[i];
		fprintf(ts, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.12g\t%.12g\t%.6g\t%.6g\t%.4g\t%s\n", i + 1,
			p->key, p->tagged ? "assumed" : "sourced", p->text,
			p->p->unit && *p->p->unit ? p->p->unit : "-", p->nvals ? p->vals[0] : "-",
			p->nvals > 1 ? p->vals[1] : "-", p->nvals ? p->metric[0] : NAN,
			p->nvals > 1 ? p->metric[1] : NAN, p->effect, p->effect_ci,
			base != 0 ? p->effect / fabs(base) : NAN,
			p->skip ? p->skip : p->limit[0] ? p->limit : (p->p->source ? p->p->source : "(none)"));
	}
	fclose(ts);
	snprintf(aggp, sizeof(aggp), "%s/sensitivity.tsv", out);
	if (results_write_text_atomic(aggp, tsv, tsvlen, &err)) {
		free(tsv);
		status = cli_report(&err);
		goto done;
	}
	free(tsv);
	int ntop = 0;
	while (ntop < nr && ntop < top && rank[ntop]->nvals && !isnan(rank[ntop]->effect))
		ntop++;
	/* its files are mobisim's output: a failure to write them is exit 1 */
	int trc = write_tornado(out, rank, ntop, base, metric, scale, flo, fhi, quiet ? NULL : stderr);
	if (trc < 0 && quiet)
		fprintf(stderr, "mobisim: sensitivity: %s/tornado.tsv and tornado.gp not written\n", out);
	if (!quiet) {
		if (reps > 1)
			printf("mobisim sensitivity %s: %s = %.6g +- %.3g (95 %% CI, %ld seeds) at the base; "
			       "each tunable x%g and x%g\n\n", scenario, metric, base, base_ci, reps, flo, fhi);
		else
			printf("mobisim sensitivity %s: %s = %.6g at the base (one seed: the effects carry "
			       "no interval; --repeat N gives each one); each tunable x%g and x%g\n\n",
			       scenario, metric, base, flo, fhi);
		printf("%4s  %-44s %-12s %12s %12s %10s %9s  %s\n", "rank", "tunable", "value", "metric lo",
		       "metric hi", "effect", "+-95%", "");
		for (int i = 0; i < nr; i++) {
			struct sparam *p = rank[i];
			char lo[32] = "-", hi[32] = "-";
			if (p->nvals)
				snprintf(lo, sizeof(lo), "%.6g", p->metric[0]);
			if (p->nvals > 1)
				snprintf(hi, sizeof(hi), "%.6g", p->metric[1]);
			char pm[32] = "-";
			if (!isnan(p->effect_ci) && base != 0)
				snprintf(pm, sizeof(pm), "%.1f%%", 100.0 * p->effect_ci / fabs(base));
			const char *note = p->skip ? p->skip : p->limit[0] ? p->limit : "";
			printf("%4d  %-44s %-12s %12s %12s %9.1f%% %9s  %s%s%s\n", i + 1, p->key, p->text, lo, hi,
			       base != 0 ? 100.0 * p->effect / fabs(base) : NAN, pm,
			       p->noise ? "within the seeds' noise" : "", p->noise && *note ? "; " : "", note);
		}
		printf("\n%s/sensitivity.tsv, %s/tornado.png\n", out, out);
	}
	/* perturbed values a module refuses (out of a cross-field range) are
	 * reported above and ranked last; only a base that did not run fails */
	status = isnan(base) || trc < 0 ? 1 : 0;
done:
	cfg_set_apply_observer(NULL, NULL);
	sweep_free(sw);
	free(text);
	free(rank);
	free(d.ps);
	free(sets);
	return status;
}
