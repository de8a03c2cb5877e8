/* `mobisim compare`: run one scenario once per policy set, on the same
 * workload and seed, and tabulate the key metrics against the first set.
 *
 *   mobisim compare SCENARIO.yaml --policies "baseline;expc;boost;expc,boost"
 *           [--set KEY=VALUE]... [--seed N] [--out RESULT.json] [--plugin X.so]... [--quiet]
 *
 * Each run builds a fresh simulator from the scenario (plus --set) with
 * its `policies` key replaced by the set, so the runs differ only in the
 * policies. The table is derived from the runs' result documents (what
 * the JSON says is what the screen says): each region's duration, fg/bg
 * read, fault and fsync latency p50/p99, the largest wait causes per
 * class (total and longest single wait), the background tasks' write throughput (bytes written by
 * background user tasks / their run time), the policies' own counters
 * and device busy time. The JSON
 * is {"runs": {"<set>": RESULT, ...}, "table": [ROW...]} with
 * ROW = {"metric", "unit", "values": {"<set>": x}, "change": {"<set>": rel}},
 * rel = value / first - 1 (null when the first is 0), written atomically.
 *
 * --repeat N runs every set N times, repetition r with the seed
 * sweep_rep_seed(S, r) (S = --seed or the scenario's seed), the same r for
 * every set (common random numbers, as a sweep's repetitions), and reports
 * per metric and set the mean with its 95 % t-interval (stats_sample_*) and,
 * against the first set, the paired difference per repetition: its mean and
 * 95 % interval, flagged "n.s." when the interval includes zero (the runs
 * cannot tell the sets apart). The JSON is then {"repeat", "seeds",
 * "table": [{"metric", "unit", "values": {SET: SUMMARY}, "diff": {SET:
 * {"mean", "ci95", "lo", "hi", "rel", "includes_zero"}}}]} without the runs.
 *
 * --uncertainty N runs every set once per row of a joint design of the
 * scenario's assumptions: (sim/cli/assumptions.h; the same seed for every
 * row and set) and reports per metric and set the median and 5-95 %
 * interval over the rows, and for the change against the first set (per
 * row, relative) its median, interval and the two assumptions with the
 * largest SRRC^2. JSON: {"uncertainty", "design": [{KEY: VALUE}...],
 * "table": [{"metric", "unit", "values": {SET: {"median", "lo", "hi"}},
 * "change": {SET: {"median", "lo", "hi", "shares": {NAME: x}}}}]}.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "models/policies/policy.h"
#include "sim/cli/assumptions.h"
#include "sim/cli/cli.h"
#include "sim/cli/known_misses.h"
#include "sim/cli/plot.h"
#include "sim/cli/progress.h"
#include "sim/cli/rows_out.h"
#include "sim/cli/run_options.h"
#include "sim/cli/sweep.h"
#include "sim/cli/warnings.h"
#include "sim/results.h"
#include "sim/sim.h"
#include "sim/stats.h"

#define COMPARE_MAX_SETS 32
#define COMPARE_TOP_WAITS 6

static void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: mobisim compare SCENARIO.yaml|NAME --policies \"SET[;SET]...\" [options]\n"
		"  --policies LIST     policy sets separated by ';', each a comma list or baseline\n"
		"                      (e.g. \"baseline;expc;boost;expc,boost\")\n"
		"  --set KEY=VALUE     override a scenario value by dotted path (repeatable)\n"
		"  --seed N            run seed for every set (overrides the scenario's seed:)\n"
		"  --uncertainty N     run every set over N rows of a joint design (Sobol) of the\n"
		"                      scenario's assumptions: median and 5-95 %% interval per\n"
		"                      metric, of the change too, with its main assumptions\n"
		"  --uq-seed S         the design's seed (default 1)\n"
		"  --repeat N          run every set N times (derived seeds, the same per repetition\n"
		"                      for every set): mean and 95 %% CI per metric, and the paired\n"
		"                      difference to the first set, n.s. when its CI includes zero\n"
		"  --out FILE          write {\"runs\": {...}, \"table\": [...]} here (atomically)\n"
		"  --plot FILE.png     draw the latency CDFs per class and operation, one curve per\n"
		"                      set (pooled over repetitions); FILE.tsv and FILE.gp beside it\n"
		"  --db FILE.sqlite    write every run's requests, waits and regions to one SQLite\n"
		"                      file (run_id: the set, #rN / #uN for a repetition or design row)\n"
		"  --requests-csv FILE write every run's served requests as CSV\n"
		"  --plugin FILE.so    load policies from a plugin (repeatable)\n"
		"  --quiet             no table on stdout\n");
}

struct compare_set {
	char label[256];           /* as written, trimmed: the key under "runs" */
	char buf[256];
	const char *names[16];
	size_t n;
};

/* ------------------------------------------------------- set parsing */

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

static int compare_parse_sets(const char *spec, const struct policy_registry *reg,
			      struct compare_set *sets, size_t *nsets, struct sim_error *err)
{
	char *copy = strdup(spec);
	if (!copy)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = 0;
	*nsets = 0;
	size_t items = 0;
	for (char *tok = copy; tok;) {
		char *semi = strchr(tok, ';');
		if (semi)
			*semi++ = '\0';
		char *t = trim(tok);
		tok = semi;
		if (!*t && !semi && items > 0)
			break; /* a trailing ';' */
		items++;
		if (*nsets == COMPARE_MAX_SETS) {
			rc = sim_errorf(err, SIM_E_INPUT, "--policies: more than %d sets", COMPARE_MAX_SETS);
			break;
		}
		struct compare_set *cs = &sets[*nsets];
		if (!*t) {
			rc = sim_errorf(err, SIM_E_INPUT, "--policies '%s': empty set (write baseline "
					"for no policy)", spec);
			break;
		}
		if (strlen(t) >= sizeof(cs->label)) {
			rc = sim_errorf(err, SIM_E_INPUT, "--policies: set '%s' is too long", t);
			break;
		}
		snprintf(cs->label, sizeof(cs->label), "%s", t);
		struct sim_error sub;
		if (policy_parse_list(t, cs->buf, sizeof(cs->buf), cs->names, 16, &cs->n, &sub)) {
			rc = sim_errorf(err, SIM_E_INPUT, "--policies: %s", sub.msg);
			break;
		}
		for (size_t i = 0; i < cs->n && !rc; i++) {
			if (!policy_registry_find(reg, cs->names[i])) {
				struct cfg_suggest sg;
				char hint[160];
				cfg_suggest_init(&sg, cs->names[i]);
				for (size_t k = 0; k < policy_registry_count(reg); k++)
					cfg_suggest_add(&sg, policy_registry_at(reg, k)->name);
				rc = sim_errorf(err, SIM_E_INPUT, "--policies: unknown policy '%s' in set "
						"'%s'%s (see `mobisim list policies`)", cs->names[i], t,
						cfg_suggest_hint(&sg, hint, sizeof(hint)));
			}
			for (size_t j = 0; j < i && !rc; j++)
				if (strcmp(cs->names[i], cs->names[j]) == 0)
					rc = sim_errorf(err, SIM_E_INPUT, "--policies: policy '%s' twice "
							"in set '%s'", cs->names[i], t);
		}
		for (size_t j = 0; j < *nsets && !rc; j++)
			if (strcmp(sets[j].label, cs->label) == 0)
				rc = sim_errorf(err, SIM_E_INPUT, "--policies: set '%s' given twice", t);
		if (rc)
			break;
		(*nsets)++;
	}
	if (!rc && items == 0)
		rc = sim_errorf(err, SIM_E_INPUT, "--policies: no set given");
	free(copy);
	return rc;
}

/* "policies=[a, b]" for cfg_set (flow syntax replaces whatever was there). */
static void compare_assignment(const struct compare_set *cs, char *out, size_t len)
{
	size_t used = (size_t)snprintf(out, len, "policies=[");
	for (size_t i = 0; i < cs->n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", cs->names[i]);
	if (used < len)
		snprintf(out + used, len - used, "]");
}

/* ------------------------------------------------------------- table */

static double jnum(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return v ? json_number_value(v) : 0.0;
}

/* One row: values per run, NAN where a run lacks the metric. */
static void table_row(json_t *table, const char *metric, const char *unit, const double *v,
		      const struct compare_set *sets, size_t nsets)
{
	json_t *row = json_object();
	json_t *vals = json_object(), *chg = json_object();
	for (size_t i = 0; i < nsets; i++) {
		json_object_set_new(vals, sets[i].label, isnan(v[i]) ? json_null() : json_real(v[i]));
		if (i == 0)
			continue;
		if (isnan(v[0]) || isnan(v[i]) || v[0] == 0.0)
			json_object_set_new(chg, sets[i].label, json_null());
		else
			json_object_set_new(chg, sets[i].label, json_real(v[i] / v[0] - 1.0));
	}
	json_object_set_new(row, "metric", json_string(metric));
	json_object_set_new(row, "unit", json_string(unit));
	json_object_set_new(row, "values", vals);
	json_object_set_new(row, "change", chg);
	json_array_append_new(table, row);
}

static json_t *region_in(json_t *regions, const char *name, const char *task, int nth)
{
	size_t i;
	json_t *r;
	int k = 0;
	json_array_foreach(regions, i, r) {
		if (strcmp(json_string_value(json_object_get(r, "name")), name) == 0 &&
		    strcmp(json_string_value(json_object_get(r, "task")), task) == 0 && k++ == nth)
			return r;
	}
	return NULL;
}

static json_t *region_at(json_t *res, const char *name, const char *task, int nth)
{
	return region_in(json_object_get(res, "regions"), name, task, nth);
}

/* The energy of that region (docs/energy.md), NULL without one. */
static json_t *region_energy_at(json_t *res, const char *name, const char *task, int nth)
{
	return region_in(json_object_get(json_object_get(res, "energy"), "regions"), name, task,
			 nth);
}

/* One row per region of the first run, matched in every run by (name, task,
 * occurrence): KEY / DIV of the region AT finds. */
static void region_rows(json_t *table, json_t **res, const struct compare_set *sets, size_t n,
			const char *label, json_t *(*at)(json_t *, const char *, const char *, int),
			const char *key, double div, const char *unit)
{
	double v[COMPARE_MAX_SETS];
	char metric[256];
	json_t *regions = json_object_get(res[0], "regions");
	size_t i;
	json_t *r;
	json_array_foreach(regions, i, r) {
		const char *name = json_string_value(json_object_get(r, "name"));
		const char *task = json_string_value(json_object_get(r, "task"));
		int nth = 0;
		for (size_t j = 0; j < i; j++) {
			json_t *q = json_array_get(regions, j);
			if (strcmp(json_string_value(json_object_get(q, "name")), name) == 0 &&
			    strcmp(json_string_value(json_object_get(q, "task")), task) == 0)
				nth++;
		}
		for (size_t k = 0; k < n; k++) {
			json_t *x = at(res[k], name, task, nth);
			v[k] = x ? jnum(x, key) / div : NAN;
		}
		if (nth)
			snprintf(metric, sizeof(metric), "%s %s (%s) #%d", label, name, task, nth + 1);
		else
			snprintf(metric, sizeof(metric), "%s %s (%s)", label, name, task);
		table_row(table, metric, unit, v, sets, n);
	}
}

static json_t *wait_of(json_t *res, const char *cause, const char *cls)
{
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(res, "waits"), i, w) {
		if (strcmp(json_string_value(json_object_get(w, "cause")), cause) == 0 &&
		    strcmp(json_string_value(json_object_get(w, "class")), cls) == 0)
			return w;
	}
	return NULL;
}

/* Background user tasks (uid neither 0 nor the final fg uid): bytes
 * written and the span from the first start to the last exit (or the end
 * of the run). */
static void bg_figures(json_t *res, double *mbps, double *runtime_s)
{
	json_t *stack = json_object_get(res, "stack");
	*mbps = NAN;
	*runtime_s = NAN;
	if (!stack)
		return;
	json_int_t fg = json_integer_value(json_object_get(stack, "fg_uid"));
	double sim_ns = jnum(json_object_get(res, "engine"), "sim_ns");
	double bytes = 0, start = INFINITY, end = 0;
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(stack, "tasks"), i, t) {
		const char *kind = json_string_value(json_object_get(t, "kind"));
		json_int_t uid = json_integer_value(json_object_get(t, "uid"));
		if (!kind || strcmp(kind, "user") != 0 || uid == 0 || uid == fg)
			continue;
		double b = jnum(t, "bytes_written");
		if (b <= 0)
			continue;
		bytes += b;
		double s = jnum(t, "start_ns");
		json_t *ex = json_object_get(t, "exit_ns");
		double e = json_is_number(ex) ? json_number_value(ex) : sim_ns;
		if (s < start)
			start = s;
		if (e > end)
			end = e;
	}
	if (bytes <= 0 || end <= start)
		return;
	*runtime_s = (end - start) / 1e9;
	*mbps = bytes / 1e6 / *runtime_s;
}

static json_t *compare_table(json_t **res, const struct compare_set *sets, size_t n)
{
	json_t *table = json_array();
	double v[COMPARE_MAX_SETS];
	char metric[256];

	region_rows(table, res, sets, n, "region", region_at, "duration_ns", 1e9, "s");

	/* latency percentiles */
	static const char *const classes[] = { "fg", "bg" };
	static const char *const ops[] = { "read", "fault", "fsync" };
	static const char *const pcts[] = { "p50", "p99" };
	for (int c = 0; c < 2; c++)
		for (int o = 0; o < 3; o++) {
			bool any = false;
			for (size_t k = 0; k < n; k++) {
				json_t *op = json_object_get(json_object_get(json_object_get(res[k], "classes"),
									     classes[c]), ops[o]);
				any |= op && jnum(op, "count") > 0;
			}
			if (!any)
				continue;
			for (int p = 0; p < 2; p++) {
				for (size_t k = 0; k < n; k++) {
					json_t *op = json_object_get(
						json_object_get(json_object_get(res[k], "classes"), classes[c]),
						ops[o]);
					v[k] = op && jnum(op, "count") > 0
						       ? jnum(json_object_get(op, "lat_ns"), pcts[p]) / 1e6
						       : NAN;
				}
				snprintf(metric, sizeof(metric), "%s %s %s", classes[c], ops[o], pcts[p]);
				table_row(table, metric, "ms", v, sets, n);
			}
		}

	/* the largest wait causes per class, over all runs */
	for (int c = 0; c < 2; c++) {
		const char *chosen[COMPARE_TOP_WAITS];
		int nchosen = 0;
		for (int round = 0; round < COMPARE_TOP_WAITS; round++) {
			const char *best = NULL;
			double best_ns = 0;
			for (size_t k = 0; k < n; k++) {
				size_t i;
				json_t *w;
				json_array_foreach(json_object_get(res[k], "waits"), i, w) {
					const char *cause = json_string_value(json_object_get(w, "cause"));
					if (strcmp(json_string_value(json_object_get(w, "class")), classes[c]))
						continue;
					bool taken = false;
					for (int x = 0; x < nchosen; x++)
						taken |= strcmp(chosen[x], cause) == 0;
					double t = jnum(w, "total_ns");
					/* ties: the earlier cause in the table order wins */
					if (!taken && t > best_ns) {
						best = cause;
						best_ns = t;
					}
				}
			}
			if (!best)
				break;
			chosen[nchosen++] = best;
		}
		for (int x = 0; x < nchosen; x++) {
			for (size_t k = 0; k < n; k++) {
				json_t *w = wait_of(res[k], chosen[x], classes[c]);
				v[k] = w ? jnum(w, "total_ns") / 1e9 : 0.0;
			}
			snprintf(metric, sizeof(metric), "%s wait %s", classes[c], chosen[x]);
			table_row(table, metric, "s", v, sets, n);
			/* LatencyTOP's other column: the longest single wait */
			for (size_t k = 0; k < n; k++) {
				json_t *w = wait_of(res[k], chosen[x], classes[c]);
				v[k] = w ? jnum(w, "max_ns") / 1e6 : 0.0;
			}
			snprintf(metric, sizeof(metric), "%s wait %s max", classes[c], chosen[x]);
			table_row(table, metric, "ms", v, sets, n);
		}
	}

	/* background throughput and run time */
	double rt[COMPARE_MAX_SETS];
	bool any = false;
	for (size_t k = 0; k < n; k++) {
		bg_figures(res[k], &v[k], &rt[k]);
		any |= !isnan(v[k]);
	}
	if (any) {
		/* what the BG apps' write() calls returned per second (into the page
		 * cache), which is not what reached the device: */
		table_row(table, "bg write() throughput (buffered)", "MB/s", v, sets, n);
		table_row(table, "bg run time", "s", rt, sets, n);
	}
	for (size_t k = 0; k < n; k++) {
		double ns = jnum(json_object_get(res[k], "engine"), "sim_ns");
		double wb = jnum(json_object_get(res[k], "device"), "write_bytes");
		v[k] = ns > 0 && !isnan(wb) ? wb / (ns * 1e-9) / 1e6 : NAN;
	}
	table_row(table, "device write throughput (whole run)", "MB/s", v, sets, n);

	/* each policy's own counters (numbers at the top of its object), in
	 * the order the runs first show them */
	for (size_t k0 = 0; k0 < n; k0++) {
		json_t *pol = json_object_get(res[k0], "policies");
		json_t *names = json_object_get(pol, "names");
		size_t pi;
		json_t *pn;
		json_array_foreach(names, pi, pn) {
			const char *name = json_string_value(pn);
			bool earlier = false;
			for (size_t k = 0; k < k0 && !earlier; k++)
				earlier = json_object_get(json_object_get(res[k], "policies"), name) != NULL;
			if (earlier)
				continue;
			const char *key;
			json_t *val;
			json_object_foreach(json_object_get(pol, name), key, val) {
				if (!json_is_number(val))
					continue;
				for (size_t k = 0; k < n; k++) {
					json_t *x = json_object_get(
						json_object_get(json_object_get(res[k], "policies"), name), key);
					v[k] = json_is_number(x) ? json_number_value(x) : NAN;
				}
				snprintf(metric, sizeof(metric), "%s.%s", name, key);
				table_row(table, metric, "", v, sets, n);
			}
		}
	}

	/* warm starts (pagecache.warm): what reclaim left of the warm apps'
	 * pages, in total and, with more than one warm app, per app */
	static const char *const warm_keys[] = { "prefilled", "reclaimed_before_use", "hits",
						 "misses", "reclaimed_unused" };
	json_t *warm0 = NULL;
	for (size_t k = 0; k < n && !warm0; k++)
		warm0 = json_object_get(json_object_get(res[k], "pagecache"), "warm");
	if (warm0) {
		for (size_t w = 0; w < sizeof(warm_keys) / sizeof(warm_keys[0]); w++) {
			for (size_t k = 0; k < n; k++) {
				json_t *x = json_object_get(json_object_get(res[k], "pagecache"), "warm");
				v[k] = x ? jnum(x, warm_keys[w]) : NAN;
			}
			snprintf(metric, sizeof(metric), "warm pages %s", warm_keys[w]);
			table_row(table, metric, "pages", v, sets, n);
		}
		json_t *apps = json_object_get(warm0, "apps");
		size_t ai;
		json_t *app;
		if (json_array_size(apps) > 1)
			json_array_foreach(apps, ai, app) {
				json_int_t uid = json_integer_value(json_object_get(app, "uid"));
				for (size_t w = 0; w < sizeof(warm_keys) / sizeof(warm_keys[0]); w++) {
					for (size_t k = 0; k < n; k++) {
						json_t *x = json_object_get(
							json_object_get(res[k], "pagecache"), "warm");
						json_t *e, *hit = NULL;
						size_t ei;
						json_array_foreach(json_object_get(x, "apps"), ei, e)
							if (json_integer_value(json_object_get(e, "uid")) == uid)
								hit = e;
						v[k] = hit ? jnum(hit, warm_keys[w]) : NAN;
					}
					snprintf(metric, sizeof(metric), "warm uid %lld %s", (long long)uid,
						 warm_keys[w]);
					table_row(table, metric, "pages", v, sets, n);
				}
			}
	}

	/* device */
	for (size_t k = 0; k < n; k++) {
		json_t *d = json_object_get(res[k], "device");
		v[k] = d ? jnum(d, "busy_ns") / 1e9 : NAN;
	}
	table_row(table, "device busy", "s", v, sets, n);
	for (size_t k = 0; k < n; k++) {
		json_t *d = json_object_get(res[k], "device");
		double sim_ns = jnum(json_object_get(res[k], "engine"), "sim_ns");
		v[k] = d && sim_ns > 0 ? 100.0 * jnum(d, "busy_ns") / sim_ns : NAN;
	}
	table_row(table, "device busy share", "%", v, sets, n);

	/* energy (docs/energy.md): each region's, then the run's */
	region_rows(table, res, sets, n, "energy region", region_energy_at, "total_j", 1.0, "J");
	static const char *const ekeys[][2] = {
		{ "total_j", "energy (whole run)" },
		{ "device_j", "energy device" },
		{ "cpu_j", "energy cpu" },
	};
	for (size_t e = 0; e < sizeof(ekeys) / sizeof(ekeys[0]); e++) {
		for (size_t k = 0; k < n; k++) {
			json_t *en = json_object_get(res[k], "energy");
			v[k] = en ? jnum(en, ekeys[e][0]) : NAN;
		}
		table_row(table, ekeys[e][1], "J", v, sets, n);
	}
	return table;
}

static void print_value(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "-");
	else if (x == 0.0)
		snprintf(buf, len, "0");
	else if (x == floor(x) && fabs(x) < 1e15)
		snprintf(buf, len, "%.0f", x); /* counters */
	else if (fabs(x) >= 1000)
		snprintf(buf, len, "%.1f", x);
	else if (fabs(x) >= 1)
		snprintf(buf, len, "%.3f", x);
	else
		snprintf(buf, len, "%.3g", x);
}

static void compare_print(FILE *f, const char *path, uint64_t seed, json_t *table,
			  const struct compare_set *sets, size_t n)
{
	int wm = 6, wc[COMPARE_MAX_SETS];
	size_t i;
	json_t *row;
	json_array_foreach(table, i, row) {
		int l = (int)strlen(json_string_value(json_object_get(row, "metric")));
		wm = l > wm ? l : wm;
	}
	for (size_t k = 0; k < n; k++) {
		int l = (int)strlen(sets[k].label);
		wc[k] = l > (k ? 20 : 10) ? l : (k ? 20 : 10);
	}
	fprintf(f, "mobisim compare %s  seed %llu  (change against %s)\n\n", path,
		(unsigned long long)seed, sets[0].label);
	fprintf(f, "%-*s %-5s", wm, "metric", "unit");
	for (size_t k = 0; k < n; k++)
		fprintf(f, " %*s", wc[k], sets[k].label);
	fprintf(f, "\n");
	json_array_foreach(table, i, row) {
		fprintf(f, "%-*s %-5s", wm, json_string_value(json_object_get(row, "metric")),
			json_string_value(json_object_get(row, "unit")));
		json_t *vals = json_object_get(row, "values"), *chg = json_object_get(row, "change");
		for (size_t k = 0; k < n; k++) {
			json_t *x = json_object_get(vals, sets[k].label);
			char vb[64], cell[96];
			print_value(vb, sizeof(vb), json_is_number(x) ? json_number_value(x) : NAN);
			json_t *c = k ? json_object_get(chg, sets[k].label) : NULL;
			if (json_is_number(c))
				snprintf(cell, sizeof(cell), "%s (%+.1f%%)", vb, 100.0 * json_number_value(c));
			else
				snprintf(cell, sizeof(cell), "%s", vb);
			fprintf(f, " %*s", wc[k], cell);
		}
		fprintf(f, "\n");
	}
}

/* ---------------------------------------------------------- repeats */

static json_t *sample_json(const struct stats_sample *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "n", json_integer(s->n));
#define NUM(k, v) json_object_set_new(o, k, isnan(v) ? json_null() : json_real(v))
	NUM("mean", s->mean);
	NUM("sd", s->sd);
	NUM("ci95", s->ci95);
	NUM("min", s->min);
	NUM("p50", s->p50);
	NUM("p95", s->p95);
	NUM("max", s->max);
#undef NUM
	return o;
}

/* Value of metric in set label of one repetition's table; NAN if absent. */
static double table_value(json_t *table, const char *metric, const char *label)
{
	size_t i;
	json_t *row;
	json_array_foreach(table, i, row) {
		if (strcmp(json_string_value(json_object_get(row, "metric")), metric))
			continue;
		json_t *v = json_object_get(json_object_get(row, "values"), label);
		return json_is_number(v) ? json_number_value(v) : NAN;
	}
	return NAN;
}

/* The rows of the first repetition's table, each summarised over all. */
static json_t *repeat_table(json_t **tables, int nrep, const struct compare_set *sets, size_t n)
{
	json_t *out = json_array();
	double *x = malloc((size_t)nrep * sizeof(double)), *d = malloc((size_t)nrep * sizeof(double));
	size_t i;
	json_t *row;
	json_array_foreach(tables[0], i, row) {
		const char *metric = json_string_value(json_object_get(row, "metric"));
		json_t *o = json_object(), *vals = json_object(), *diff = json_object();
		struct stats_sample base = { 0 };
		for (size_t k = 0; k < n; k++) {
			for (int r = 0; r < nrep; r++)
				x[r] = table_value(tables[r], metric, sets[k].label);
			struct stats_sample s;
			stats_sample_summarize(x, nrep, &s);
			if (k == 0)
				base = s;
			json_object_set_new(vals, sets[k].label, sample_json(&s));
			if (k == 0)
				continue;
			for (int r = 0; r < nrep; r++)
				d[r] = x[r] - table_value(tables[r], metric, sets[0].label);
			struct stats_sample ds;
			stats_sample_summarize(d, nrep, &ds);
			json_t *dj = json_object();
			json_object_set_new(dj, "n", json_integer(ds.n));
			json_object_set_new(dj, "mean", isnan(ds.mean) ? json_null() : json_real(ds.mean));
			json_object_set_new(dj, "ci95", isnan(ds.ci95) ? json_null() : json_real(ds.ci95));
			json_object_set_new(dj, "lo", isnan(ds.ci95) ? json_null() : json_real(ds.mean - ds.ci95));
			json_object_set_new(dj, "hi", isnan(ds.ci95) ? json_null() : json_real(ds.mean + ds.ci95));
			bool rel_ok = !isnan(ds.mean) && !isnan(base.mean) && base.mean != 0;
			json_object_set_new(dj, "rel", rel_ok ? json_real(ds.mean / base.mean) : json_null());
			/* a zero-width interval around 0 (identical runs) includes zero too */
			bool inc = isnan(ds.ci95) || (ds.mean - ds.ci95 <= 0 && 0 <= ds.mean + ds.ci95);
			json_object_set_new(dj, "includes_zero", ds.n ? json_boolean(inc) : json_null());
			json_object_set_new(diff, sets[k].label, dj);
		}
		json_object_set_new(o, "metric", json_string(metric));
		json_object_set_new(o, "unit", json_incref(json_object_get(row, "unit")));
		json_object_set_new(o, "values", vals);
		json_object_set_new(o, "diff", diff);
		json_array_append_new(out, o);
	}
	free(x);
	free(d);
	return out;
}

/* Whether every repetition gave every set the same value of every metric:
 * nothing the seed draws moves the scenario (a replay and fixed starts are
 * one phase), so the repetitions are one run and their CI says nothing. */
static bool repeats_identical(json_t **tables, int nrep, const struct compare_set *sets, size_t n)
{
	size_t i;
	json_t *row;
	json_array_foreach(tables[0], i, row) {
		const char *metric = json_string_value(json_object_get(row, "metric"));
		for (size_t k = 0; k < n; k++) {
			double v0 = table_value(tables[0], metric, sets[k].label);
			for (int r = 1; r < nrep; r++) {
				double v = table_value(tables[r], metric, sets[k].label);
				if (!(v == v0 || (isnan(v) && isnan(v0))))
					return false;
			}
		}
	}
	return true;
}

static void repeat_print(FILE *f, const char *path, int nrep, json_t *table,
			 const struct compare_set *sets, size_t n)
{
	int wm = 6, wc[COMPARE_MAX_SETS];
	size_t i;
	json_t *row;
	json_array_foreach(table, i, row) {
		int l = (int)strlen(json_string_value(json_object_get(row, "metric")));
		wm = l > wm ? l : wm;
	}
	for (size_t k = 0; k < n; k++) {
		int l = (int)strlen(sets[k].label);
		wc[k] = l > (k ? 30 : 18) ? l : (k ? 30 : 18);
	}
	fprintf(f, "mobisim compare %s  %d repetitions: mean ± 95 %% CI; change against %s, "
		   "n.s. when its 95 %% CI includes zero\n\n", path, nrep, sets[0].label);
	fprintf(f, "%-*s %-5s", wm, "metric", "unit");
	for (size_t k = 0; k < n; k++)
		fprintf(f, " %*s", wc[k], sets[k].label);
	fprintf(f, "\n");
	json_array_foreach(table, i, row) {
		fprintf(f, "%-*s %-5s", wm, json_string_value(json_object_get(row, "metric")),
			json_string_value(json_object_get(row, "unit")));
		for (size_t k = 0; k < n; k++) {
			json_t *s = json_object_get(json_object_get(row, "values"), sets[k].label);
			json_t *m = json_object_get(s, "mean"), *ci = json_object_get(s, "ci95");
			char vb[64], cb[64], cell[200];
			print_value(vb, sizeof(vb), json_is_number(m) ? json_number_value(m) : NAN);
			print_value(cb, sizeof(cb), json_is_number(ci) ? json_number_value(ci) : NAN);
			int len = snprintf(cell, sizeof(cell), "%s±%s", vb, cb);
			json_t *d = k ? json_object_get(json_object_get(row, "diff"), sets[k].label) : NULL;
			json_t *rel = json_object_get(d, "rel");
			if (d && json_is_number(rel))
				snprintf(cell + len, sizeof(cell) - (size_t)len, " (%+.1f%%%s)",
					 100.0 * json_number_value(rel),
					 json_is_true(json_object_get(d, "includes_zero")) ? " n.s." : "");
			else if (d && json_is_true(json_object_get(d, "includes_zero")))
				snprintf(cell + len, sizeof(cell) - (size_t)len, " (n.s.)");
			fprintf(f, " %*s", wc[k] + 1, cell); /* ± is two bytes */
		}
		fprintf(f, "\n");
	}
}

static json_t *band_json(const double *v, int n)
{
	json_t *o = json_object();
	double q[3] = { assume_quantile(v, n, 0.5), assume_quantile(v, n, 0.05),
			assume_quantile(v, n, 0.95) };
	const char *names[3] = { "median", "lo", "hi" };
	for (int i = 0; i < 3; i++)
		json_object_set_new(o, names[i], isfinite(q[i]) ? json_real(q[i]) : json_null());
	return o;
}

/* The rows of the first design row's table, each over all rows. */
static json_t *uq_table(json_t **tables, int nrow, const struct compare_set *sets, size_t n,
			const struct assumption_set *as, const double *u)
{
	json_t *out = json_array();
	double *x = malloc((size_t)nrow * sizeof(double)), *d = malloc((size_t)nrow * sizeof(double));
	size_t i;
	json_t *row;
	json_array_foreach(tables[0], i, row) {
		const char *metric = json_string_value(json_object_get(row, "metric"));
		json_t *o = json_object(), *vals = json_object(), *chg = json_object();
		for (size_t k = 0; k < n; k++) {
			for (int r = 0; r < nrow; r++)
				x[r] = table_value(tables[r], metric, sets[k].label);
			json_object_set_new(vals, sets[k].label, band_json(x, nrow));
			if (k == 0)
				continue;
			for (int r = 0; r < nrow; r++) {
				double b = table_value(tables[r], metric, sets[0].label);
				d[r] = b != 0 ? x[r] / b - 1 : NAN;
			}
			json_t *c = band_json(d, nrow);
			double sh[ASSUME_MAX];
			json_t *shares = json_object();
			if (as->n && assume_rank_shares(u, as->n, d, nrow, sh) == 0)
				for (int j = 0; j < as->n; j++)
					if (isfinite(sh[j]))
						json_object_set_new(shares, as->a[j].name, json_real(sh[j]));
			json_object_set_new(c, "shares", shares);
			json_object_set_new(chg, sets[k].label, c);
		}
		json_object_set_new(o, "metric", json_string(metric));
		json_object_set_new(o, "unit", json_incref(json_object_get(row, "unit")));
		json_object_set_new(o, "values", vals);
		json_object_set_new(o, "change", chg);
		json_array_append_new(out, o);
	}
	free(x);
	free(d);
	return out;
}

static double jget(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void uq_print(FILE *f, const char *path, int nrow, json_t *table,
		     const struct compare_set *sets, size_t n)
{
	fprintf(f, "mobisim compare %s  over %d rows of the assumptions' joint design: median "
		   "[5 %%, 95 %%]; change against %s per row\n\n", path, nrow, sets[0].label);
	size_t i;
	json_t *row;
	json_array_foreach(table, i, row) {
		const char *metric = json_string_value(json_object_get(row, "metric"));
		const char *unit = json_string_value(json_object_get(row, "unit"));
		fprintf(f, "%s (%s)\n", metric, unit ? unit : "");
		for (size_t k = 0; k < n; k++) {
			json_t *v = json_object_get(json_object_get(row, "values"), sets[k].label);
			char m[64], lo[64], hi[64];
			print_value(m, sizeof(m), jget(v, "median"));
			print_value(lo, sizeof(lo), jget(v, "lo"));
			print_value(hi, sizeof(hi), jget(v, "hi"));
			fprintf(f, "  %-28s %10s [%s, %s]", sets[k].label, m, lo, hi);
			json_t *c = k ? json_object_get(json_object_get(row, "change"), sets[k].label) : NULL;
			if (c && isfinite(jget(c, "median"))) {
				fprintf(f, "  change %+.1f %% [%+.1f, %+.1f]", 100 * jget(c, "median"),
					100 * jget(c, "lo"), 100 * jget(c, "hi"));
				const char *best[2] = { NULL, NULL };
				double bs[2] = { -1, -1 };
				const char *key;
				json_t *sv;
				json_object_foreach(json_object_get(c, "shares"), key, sv) {
					double x = json_number_value(sv);
					if (x > bs[0]) {
						best[1] = best[0], bs[1] = bs[0];
						best[0] = key, bs[0] = x;
					} else if (x > bs[1]) {
						best[1] = key, bs[1] = x;
					}
				}
				for (int b = 0; b < 2 && best[b]; b++)
					fprintf(f, "%s%s %.0f %%", b ? ", " : "  from ", best[b], 100 * bs[b]);
			}
			fprintf(f, "\n");
		}
	}
}

/* -------------------------------------------------------------- main */

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_RUN_OPTIONS,
		{ "policies", required_argument, NULL, 'p' },
		{ "repeat", required_argument, NULL, 'R' },
		{ "uncertainty", required_argument, NULL, 'U' },
		{ "uq-seed", required_argument, NULL, 'E' },
		{ "plot", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char **sets_kv = calloc((size_t)argc + 2 + 4 * ASSUME_MAX, sizeof(char *));
	const char **plugins = calloc((size_t)argc + 1, sizeof(char *));
	struct compare_set *sets = calloc(COMPARE_MAX_SETS, sizeof(*sets));
	json_t *res[COMPARE_MAX_SETS] = { 0 };
	int nkv = 0, c, status = 2;
	const char *policies = NULL, *out = NULL, *plot = NULL, *db_path = NULL, *csv_path = NULL;
	struct cli_cdf_series *cdf = NULL; /* --plot: per set, every run's latencies */
	struct rdb *db = NULL;
	struct rows_csv *csv = NULL;
	struct sim_options so = { 0 };
	size_t nsets = 0;
	struct sim_error err = { 0 };
	json_t *doc = NULL, *tally = NULL;
	int nrep = 0, nuq = 0, uq_nrow = 0;
	char **uq_row = NULL;
	json_t *design = NULL;
	unsigned long long uq_seed = 1;
	struct assumption_set as = { 0 };
	double *u = NULL;
	json_t **tables = NULL;
	char phase_key[300] = "";
	if (!sets_kv || !plugins || !sets) {
		fprintf(stderr, "mobisim: out of memory\n");
		status = 1;
		goto done;
	}
	so.plugins = plugins;
	so.quiet = true; /* the runs print nothing themselves */
	bool quiet = false;
	optind = 1;
	struct cli_run_options ro = { .sets = sets_kv, .plugins = plugins, .so = &so };
	while ((c = getopt_long(argc, argv, "p:s:o:qh", opts, NULL)) != -1) {
		struct sim_error oerr;
		int k = cli_run_option(&ro, c, optarg, &oerr);
		if (k < 0) {
			cli_report(&oerr);
			goto done;
		}
		if (k)
			continue;
		switch (c) {
		case 'p':
			policies = optarg;
			break;
		case 'R': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 2 || v > 100000) {
				fprintf(stderr, "mobisim: --repeat: '%s' is not an integer from 2 to 100000\n",
					optarg);
				goto done;
			}
			nrep = (int)v;
			break;
		}
		case 'U':
		case 'E': {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (*optarg == '\0' || *optarg == '-' || *end != '\0' ||
			    (c == 'U' && (v < 2 || v > 4096))) {
				fprintf(stderr, "mobisim: %s: '%s' is not %s\n",
					c == 'U' ? "--uncertainty" : "--uq-seed", optarg,
					c == 'U' ? "an integer from 2 to 4096" : "a non-negative integer");
				goto done;
			}
			if (c == 'U')
				nuq = (int)v;
			else
				uq_seed = v;
			break;
		}
		case 'G':
			plot = optarg;
			break;
		case 'h':
			compare_usage(stdout);
			status = 0;
			goto done;
		default:
			compare_usage(stderr);
			goto done;
		}
	}
	nkv = ro.nsets;
	out = ro.out;
	db_path = ro.db_path;
	csv_path = ro.csv_path;
	quiet = ro.quiet;
	if (optind != argc - 1 || !policies) {
		if (!policies && optind == argc - 1)
			fprintf(stderr, "mobisim: compare: --policies is required\n");
		compare_usage(stderr);
		goto done;
	}
	if (nuq && nrep) {
		fprintf(stderr, "mobisim: compare: --uncertainty and --repeat: give one (the design's "
			"rows share the seed)\n");
		goto done;
	}
	if (cli_outputs_clash((const char *[]){ "--out", out, "--db", db_path, "--requests-csv",
						csv_path, NULL }) ||
	    (db_path && cli_out_unwritable("--db", db_path)) ||
	    (csv_path && cli_out_unwritable("--requests-csv", csv_path)))
		goto done;
	char pathbuf[4096];
	const char *path = cli_scenario_path(argv[optind], pathbuf, sizeof(pathbuf));
	if (nuq) {
		struct sim_error aerr = { 0 };
		int arc = assumptions_load(path, sets_kv, nkv, &as, &aerr);
		if (!arc && !as.n)
			arc = sim_errorf(&aerr, SIM_E_INPUT, "%s declares no assumptions: (nothing to "
					 "sample; docs/validation.md)", path);
		if (!arc && !(u = calloc((size_t)nuq * (size_t)as.n, sizeof(double))))
			arc = sim_errorf(&aerr, SIM_E_NOMEM, "out of memory");
		if (!arc)
			arc = assumptions_design(&as, nuq, (uint64_t)uq_seed, ASSUME_SOBOL, u, &aerr);
		if (arc) {
			status = cli_report(&aerr);
			goto done;
		}
	}

	/* Names are checked against the registry (with plugins) before any run. */
	struct policy_registry *reg = policy_registry_new();
	if (!reg) {
		status = cli_report(&(struct sim_error){ SIM_E_NOMEM, "out of memory" });
		goto done;
	}
	int rc = policy_registry_load_plugins(reg, plugins, &err);
	if (!rc)
		rc = compare_parse_sets(policies, reg, sets, &nsets, &err);
	policy_registry_free(reg);
	if (rc) {
		status = cli_report(&err);
		goto done;
	}

	if (plot && !(cdf = calloc(nsets, sizeof(*cdf)))) {
		status = cli_report(&(struct sim_error){ SIM_E_NOMEM, "out of memory" });
		goto done;
	}
	for (size_t k = 0; cdf && k < nsets; k++)
		cli_cdf_series_init(&cdf[k], sets[k].label);
	/* the row files are opened before any run: a bad path fails at once */
	rc = db_path ? rdb_open(db_path, RDB_NEW, &db, &err) : 0;
	if (!rc && csv_path)
		rc = rows_csv_open(csv_path, &csv, &err);
	if (rc) {
		status = cli_report(&err);
		goto done;
	}
	bool progress = isatty(STDERR_FILENO) && !quiet;
	uint64_t seed = 0, base_seed = so.seed;
	char assign[1024];
	sets_kv[nkv] = assign; /* the policies override goes last */
	int reps = nuq ? nuq : nrep ? nrep : 1;
	design = json_array();
	tables = calloc((size_t)reps, sizeof(*tables));
	json_t *seeds = json_array();
	/* every run's warnings: each distinct text once, with how many runs */
	tally = json_object();
	if (!tables || !seeds || !tally) {
		json_decref(seeds);
		status = cli_report(&(struct sim_error){ SIM_E_NOMEM, "out of memory" });
		goto done;
	}
	if (nrep && !so.seed_given) {
		/* repetitions derive their seeds from the scenario's own */
		struct cfg_doc *cd;
		struct sim *s = NULL;
		rc = cli_load_scenario(path, sets_kv, nkv, &cd, &err);
		if (!rc)
			rc = sim_create(cd, path, &so, &s, &err);
		if (rc) {
			json_decref(seeds);
			status = cli_report(&err);
			goto done;
		}
		base_seed = s->seed;
		sim_destroy(s);
	}
	for (int r = 0; r < reps; r++) {
		if (nrep) {
			so.seed = sweep_rep_seed(base_seed, r);
			so.seed_given = true;
			json_array_append_new(seeds, json_integer((json_int_t)so.seed));
		}
		/* a design row's assumptions, after --set, before the policies */
		int nrow = 0;
		sweep_free_sets(uq_row, uq_nrow);
		uq_row = NULL;
		uq_nrow = 0;
		if (nuq) {
			char **row = uq_row = assumptions_row_sets(&as, &u[r * as.n], &nrow);
			uq_nrow = nrow;
			if (!row || nkv + nrow + 1 > argc + 2 + 4 * ASSUME_MAX) {
				json_decref(seeds);
				status = cli_report(&(struct sim_error){ SIM_E_NOMEM, "too many assumed keys" });
				goto done;
			}
			for (int i = 0; i < nrow; i++)
				sets_kv[nkv + i] = row[i];
			json_t *dj = json_object();
			for (int i = 0; i < nrow; i++) {
				char *eq = strchr(row[i], '=');
				if (eq) {
					*eq = '\0';
					json_object_set_new(dj, row[i], json_string(eq + 1));
					*eq = '=';
				}
			}
			json_array_append_new(design, dj);
		}
		sets_kv[nkv + nrow] = assign;
		for (size_t k = 0; k < nsets; k++) {
			if (progress && nuq)
				fprintf(stderr, "\rmobisim: compare: design row %d/%d, run %zu/%zu: %s\033[K",
					r + 1, nuq, k + 1, nsets, sets[k].label);
			else if (progress && nrep)
				fprintf(stderr, "\rmobisim: compare: repetition %d/%d, run %zu/%zu: %s\033[K",
					r + 1, nrep, k + 1, nsets, sets[k].label);
			else if (progress)
				fprintf(stderr, "mobisim: compare: run %zu/%zu: %s\n", k + 1, nsets,
					sets[k].label);
			compare_assignment(&sets[k], assign, sizeof(assign));
			struct cfg_doc *cd;
			struct sim *s = NULL;
			rc = cli_load_scenario(path, sets_kv, nkv + nrow + 1, &cd, &err);
			if (!rc)
				rc = sim_create(cd, path, &so, &s, &err);
			/* the sets share the platform: its known misses once */
			if (!rc && r == 0 && k == 0)
				(void)known_misses_note(stderr, cfg_root(s->doc));
			struct rows_out *rows = NULL;
			if (!rc && (db || csv)) {
				/* the set, and which repetition or design row */
				char run_id[300];
				if (nrep || nuq)
					snprintf(run_id, sizeof(run_id), "%s#%c%d", sets[k].label,
						 nrep ? 'r' : 'u', r + 1);
				else
					snprintf(run_id, sizeof(run_id), "%s", sets[k].label);
				char *point = cli_sets_json(sets_kv, nkv + nrow + 1);
				struct rdb_run rr = { .run_id = run_id, .command = "compare",
						      .scenario = path, .point = point, .seed = s->seed,
						      .policy = sets[k].label };
				rc = rows_out_attach(s, db, csv, &rr, &rows, &err);
				free(point);
			}
			if (!rc) {
				struct cli_progress prog;
				cli_progress_attach(&prog, s, sets[k].label);
				rc = sim_run(s, &err);
				cli_progress_done(&prog);
			}
			if (!rc) {
				res[k] = sim_result_json(s);
				rc = rows ? rows_out_finish(rows, res[k], &err) : 0;
				rows = NULL;
			}
			rows_out_free(rows);
			if (rc) {
				sim_destroy(s);
				json_decref(seeds);
				if (progress && nrep)
					fputc('\n', stderr);
				fprintf(stderr, "mobisim: compare: set '%s':\n", sets[k].label);
				status = cli_report(&err);
				goto done;
			}
			seed = s->seed;
			if (cdf && cli_cdf_series_add(&cdf[k], &s->metrics)) {
				sim_destroy(s);
				json_decref(seeds);
				status = cli_report(&(struct sim_error){ SIM_E_NOMEM, "out of memory" });
				goto done;
			}
			sim_destroy(s);
			json_t *w = cli_result_warnings(res[k]);
			char runlabel[300];
			if (nrep)
				snprintf(runlabel, sizeof(runlabel), "set '%s' repetition %d",
					 sets[k].label, r + 1);
			else
				snprintf(runlabel, sizeof(runlabel), "set '%s'", sets[k].label);
			cli_warn_tally_add(tally, w, runlabel);
			json_decref(w);
		}
		if (!nrep && !nuq)
			break;
		tables[r] = compare_table(res, sets, nsets);
		if (r == 0)
			cli_phase_key(res[0], phase_key, sizeof(phase_key));
		for (size_t k = 0; k < nsets; k++) {
			json_decref(res[k]);
			res[k] = NULL;
		}
	}
	if (progress && nrep)
		fputc('\n', stderr);
	cli_warn_tally_print(stderr, "mobisim: warning: ", tally, nsets * (size_t)reps, "runs", 20);

	doc = json_object();
	if (nuq) {
		json_t *table = uq_table(tables, nuq, sets, nsets, &as, u);
		if (!quiet)
			uq_print(stdout, path, nuq, table, sets, nsets);
		json_decref(seeds);
		json_object_set_new(doc, "uncertainty", json_integer(nuq));
		json_object_set_new(doc, "design", design);
		design = NULL;
		json_object_set_new(doc, "table", table);
	} else if (nrep) {
		json_t *table = repeat_table(tables, nrep, sets, nsets);
		if (!quiet)
			repeat_print(stdout, path, nrep, table, sets, nsets);
		if (repeats_identical(tables, nrep, sets, nsets)) {
			char w[800];
			snprintf(w, sizeof(w), "the %d repetitions gave every set the same value of every "
				 "metric: nothing the seed draws moves this scenario (fixed starts are one "
				 "phase); %s%s%s to sample phases", nrep,
				 phase_key[0] ? "draw a start, e.g. --set '" : "draw a start (start: "
									      "{uniform: [0s, 5s]})",
				 phase_key, phase_key[0] ? "={uniform: [0s, 5s]}'" : "");
			fprintf(stderr, "mobisim: warning: %s\n", w);
			json_object_set_new(doc, "repeat_identical", json_string(w));
		}
		json_object_set_new(doc, "repeat", json_integer(nrep));
		json_object_set_new(doc, "seeds", seeds);
		json_object_set_new(doc, "table", table);
	} else {
		json_decref(seeds);
		json_t *table = compare_table(res, sets, nsets);
		if (!quiet)
			compare_print(stdout, path, seed, table, sets, nsets);
		json_t *runs = json_object();
		for (size_t k = 0; k < nsets; k++) {
			json_object_set_new(runs, sets[k].label, res[k]);
			res[k] = NULL;
		}
		json_object_set_new(doc, "runs", runs);
		json_object_set_new(doc, "table", table);
	}
	if (json_object_size(tally))
		json_object_set_new(doc, "warnings", cli_warn_tally_json(tally));
	status = 0;
	/* --db, --requests-csv and --out appear together or not at all */
	results_hold_begin();
	rc = db ? rdb_close(db, &err) : 0;
	db = NULL;
	if (!rc && csv) {
		rc = rows_csv_close(csv, &err);
		csv = NULL;
	}
	if (!rc && out)
		rc = results_write_atomic(out, doc, &err);
	if (results_hold_end(rc == 0, rc ? NULL : &err) && !rc)
		rc = -1;
	if (rc)
		status = cli_report(&err);
	/* the plot after: without gnuplot its data and script stay for later */
	if (plot && status == 0) {
		char title[600];
		if (nrep || nuq)
			snprintf(title, sizeof(title), "mobisim compare %s: latency CDFs, %d %s pooled per set",
				 path, reps, nrep ? "repetitions" : "design rows");
		else
			snprintf(title, sizeof(title), "mobisim compare %s: latency CDFs, seed %llu", path,
				 (unsigned long long)seed);
		if (cli_plot_latency_cdf(plot, title, cdf, nsets, &err))
			status = cli_report(&err);
	}
done:
	for (size_t k = 0; cdf && k < nsets; k++)
		cli_cdf_series_free(&cdf[k]);
	free(cdf);
	rdb_abort(db);
	rows_csv_abort(csv);
	for (size_t k = 0; k < COMPARE_MAX_SETS; k++)
		json_decref(res[k]);
	json_decref(doc);
	for (int r = 0; tables && r < (nuq ? nuq : nrep); r++)
		json_decref(tables[r]);
	sweep_free_sets(uq_row, uq_nrow);
	json_decref(design);
	assumptions_free(&as);
	free(u);
	free(tables);
	free(sets);
	free(plugins);
	free(sets_kv);
	json_decref(tally);
	return status;
}
