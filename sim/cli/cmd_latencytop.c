/* `mobisim latencytop`: LatencyTOP's table (cause, maximum, average) of a
 * result, of a compare output's runs, or of a scenario run once per policy
 * set - the view of the LKML October 2007 journal-priority thread.
 *
 *   mobisim latencytop RESULT.json|COMPARE.json
 *   mobisim latencytop SCENARIO.yaml|NAME [--policies "baseline;jprio"] [--set K=V]...
 *                      [--class fg|bg|all]
 *
 * The numbers are the result's stack.latencytop (models/sched/latencytop.c):
 * a scenario is run with latencytop.enabled=true; a result without the table
 * is an error. Columns: one pair (max ms, avg ms) per run; rows: the causes
 * in LatencyTOP's order, "-" where a run has none.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/sched/latencytop.h"
#include "sim/cli/cli.h"
#include "sim/config.h"
#include "sim/sim.h"

#define LT_MAX_RUNS 16
#define LT_MAX_SETS 64

static void lt_usage(FILE *f)
{
	fprintf(f, "usage: mobisim latencytop RESULT.json|COMPARE.json\n"
		   "       mobisim latencytop SCENARIO.yaml|NAME [--policies \"SET;SET\"] "
		   "[--set KEY=VALUE]... [--class fg|bg|all]\n");
}

static bool lt_is_json(const char *arg)
{
	size_t n = strlen(arg);
	return n > 5 && strcmp(arg + n - 5, ".json") == 0;
}

/* A run's row for (cause, cls): max and avg in ms summed over the classes
 * asked for (max of maxima, total / count). false when absent. */
static bool lt_row(json_t *res, const char *cause, const char *cls, double *max_ms, double *avg_ms)
{
	json_t *a = json_object_get(json_object_get(res, "stack"), "latencytop");
	double mx = 0, tot = 0, n = 0;
	size_t i;
	json_t *r;
	json_array_foreach(a, i, r) {
		const char *c = json_string_value(json_object_get(r, "cause"));
		const char *k = json_string_value(json_object_get(r, "class"));
		if (!c || !k || strcmp(c, cause) != 0 || (strcmp(cls, "all") != 0 && strcmp(cls, k) != 0))
			continue;
		double m = (double)json_integer_value(json_object_get(r, "max_ns")) / 1e6;
		if (m > mx)
			mx = m;
		tot += (double)json_integer_value(json_object_get(r, "total_ns")) / 1e6;
		n += (double)json_integer_value(json_object_get(r, "count"));
	}
	if (n == 0)
		return false;
	*max_ms = mx;
	*avg_ms = tot / n;
	return true;
}

static int lt_print(json_t *const *res, char *const *labels, int n, const char *cls)
{
	for (int k = 0; k < n; k++)
		if (!json_object_get(json_object_get(res[k], "stack"), "latencytop")) {
			fprintf(stderr, "mobisim: latencytop: run '%s' has no stack.latencytop (run the "
					"scenario with --set latencytop.enabled=true)\n",
				labels[k]);
			return 1;
		}
	printf("# LatencyTOP view, class %s: per cause the longest single sleep and the average (ms)\n",
	       cls);
	printf("%-32s", "Cause");
	for (int k = 0; k < n; k++)
		printf("  %20s", labels[k]);
	printf("\n%-32s", "");
	for (int k = 0; k < n; k++)
		printf("  %9s %10s", "Maximum", "Average");
	printf("\n");
	for (int c = 0; c < LT_NREASON; c++) {
		bool any = false;
		double mx[LT_MAX_RUNS], av[LT_MAX_RUNS];
		bool has[LT_MAX_RUNS];
		for (int k = 0; k < n; k++)
			any |= has[k] = lt_row(res[k], latencytop_names[c], cls, &mx[k], &av[k]);
		if (!any)
			continue;
		printf("%-32s", latencytop_names[c]);
		for (int k = 0; k < n; k++) {
			if (has[k])
				printf("  %9.1f %10.2f", mx[k], av[k]);
			else
				printf("  %9s %10s", "-", "-");
		}
		printf("\n");
	}
	return 0;
}

/* One run of path with sets plus the latencytop switch and the policy set. */
static json_t *lt_run(const char *path, char **sets, int nsets, const char *policy,
		      struct sim_error *err)
{
	char pol[512], lt[] = "latencytop.enabled=true";
	char **kv = calloc((size_t)nsets + 2, sizeof(*kv));
	if (!kv) {
		sim_errorf(err, SIM_E_NOMEM, "out of memory");
		return NULL;
	}
	for (int i = 0; i < nsets; i++)
		kv[i] = sets[i];
	int n = nsets;
	kv[n++] = lt;
	if (policy) {
		if (strcmp(policy, "baseline") == 0)
			snprintf(pol, sizeof(pol), "policies=baseline");
		else
			snprintf(pol, sizeof(pol), "policies=[%s]", policy);
		kv[n++] = pol;
	}
	struct cfg_doc *doc = NULL;
	struct sim *s = NULL;
	struct sim_options so = { 0 };
	json_t *res = NULL;
	int rc = cli_load_scenario(path, kv, n, &doc, err);
	free(kv);
	if (!rc)
		rc = sim_create(doc, path, &so, &s, err);
	if (!rc)
		rc = sim_run(s, err);
	if (!rc)
		res = sim_result_json(s);
	sim_destroy(s);
	return res;
}

int cmd_latencytop(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policies", required_argument, NULL, 'p' },
		{ "set", required_argument, NULL, 's' },
		{ "class", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policies = NULL, *cls = "fg";
	char *sets[LT_MAX_SETS];
	int nsets = 0, ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			policies = optarg;
			break;
		case 's':
			if (nsets == LT_MAX_SETS) {
				fprintf(stderr, "mobisim: latencytop: too many --set\n");
				return 2;
			}
			sets[nsets++] = optarg;
			break;
		case 'c':
			cls = optarg;
			break;
		case 'h':
			lt_usage(stdout);
			return 0;
		default:
			lt_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 ||
	    (strcmp(cls, "fg") != 0 && strcmp(cls, "bg") != 0 && strcmp(cls, "all") != 0)) {
		lt_usage(stderr);
		return 2;
	}
	const char *arg = argv[optind];
	json_t *res[LT_MAX_RUNS] = { 0 };
	char *labels[LT_MAX_RUNS] = { 0 };
	int n = 0, status = 0;
	if (lt_is_json(arg)) {
		if (policies || nsets) {
			fprintf(stderr, "mobisim: latencytop: --policies and --set need a scenario\n");
			return 2;
		}
		json_error_t je;
		json_t *doc = json_load_file(arg, 0, &je);
		if (!doc) {
			fprintf(stderr, "mobisim: %s:%d: %s\n", arg, je.line, je.text);
			return 2;
		}
		json_t *runs = json_object_get(doc, "runs");
		if (runs) {
			const char *key;
			json_t *v;
			json_object_foreach(runs, key, v) {
				if (n == LT_MAX_RUNS)
					break;
				res[n] = json_incref(v);
				labels[n++] = strdup(key);
			}
		} else {
			res[n] = json_incref(doc);
			labels[n++] = strdup("result");
		}
		json_decref(doc);
	} else {
		char buf[4096];
		const char *path = cli_scenario_path(arg, buf, sizeof(buf));
		char *list = strdup(policies ? policies : "");
		char *save = NULL;
		for (char *t = policies ? strtok_r(list, ";", &save) : NULL; ; t = strtok_r(NULL, ";", &save)) {
			if (policies && !t)
				break;
			if (n == LT_MAX_RUNS)
				break;
			struct sim_error err = { 0 };
			res[n] = lt_run(path, sets, nsets, t, &err);
			if (!res[n]) {
				status = cli_report(&err);
				break;
			}
			labels[n++] = strdup(t ? t : "scenario");
			if (!policies)
				break;
		}
		free(list);
	}
	if (!status)
		status = lt_print(res, labels, n, cls);
	for (int k = 0; k < n; k++) {
		json_decref(res[k]);
		free(labels[k]);
	}
	return status;
}
