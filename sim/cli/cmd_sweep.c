/* `mobisim sweep`: expand a sweep file and run, list, count or collect its
 * points (sim/cli/sweep.h; the file format and cluster recipes are in
 * docs/sweeps.md).
 *
 *   sweep X.yaml [-j N] [--out DIR] [--resume]   run every point locally
 *   sweep X.yaml --count | --list                what would run
 *   sweep X.yaml --point K [--out DIR] [--force] one point (for job arrays)
 *   sweep X.yaml --collect DIR... [--out DIR]    merge points, write summary
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "sim/config.h"

#include "sim/cli/cli.h"
#include "sim/cli/known_misses.h"
#include "sim/cli/plot.h"
#include "sim/cli/sweep.h"

/* The platforms' known validation misses, each distinct note once, from the
 * first KM_POINTS points (a sweep over platforms names them early; loading
 * every point's scenario would cost a large sweep seconds). */
#define KM_POINTS 64

static void note_known_misses(const struct sweep *sw)
{
	char *seen = NULL;
	size_t nseen = 0;
	for (int i = 0; i < sw->npoints && i < KM_POINTS; i++) {
		int nsets = 0;
		char **sets = sweep_point_sets(sw, &sw->points[i], &nsets);
		struct cfg_doc *doc = NULL;
		struct sim_error err;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = sets ? open_memstream(&buf, &len) : NULL;
		if (f && !cli_load_scenario(sw->base, sets, nsets, &doc, &err))
			(void)known_misses_note(f, cfg_root(doc));
		if (f)
			fclose(f);
		cfg_free(doc);
		sweep_free_sets(sets, nsets);
		if (buf && len && (!seen || !strstr(seen, buf))) {
			fputs(buf, stderr);
			char *ns = realloc(seen, nseen + len + 1);
			if (ns) {
				memcpy(ns + nseen, buf, len + 1);
				seen = ns;
				nseen += len;
			}
		}
		free(buf);
	}
	free(seen);
}

static void sweep_usage(FILE *f)
{
	fprintf(f,
		"usage: mobisim sweep SWEEP.yaml [options]\n"
		"  -j, --jobs N        points run at once (default: online CPUs)\n"
		"  -o, --out DIR       output directory (default: SWEEP.out in the current directory)\n"
		"  --resume            skip points whose DIR/points/<id>.json is complete\n"
		"  --count             print the number of points\n"
		"  --list              print one line per point: id<TAB>key=value ...\n"
		"  --point K           run point K only (index or id), write DIR/points/<id>.json;\n"
		"                      does nothing if that file is complete, unless --force\n"
		"  --force             with --point: run even if the point file exists\n"
		"  --collect DIR       merge point files from DIR (repeatable) into DIR/summary.tsv\n"
		"                      of --out, copying the points that --out lacks\n"
		"  --no-fork           run every point from t = 0 (default: points that differ\n"
		"                      only in workload.tasks.KEY.start share their prefix)\n"
		"  --plot DIR          draw each point's latency CDFs as DIR/<id>.png (.tsv, .gp beside)\n"
		"  --db FILE.sqlite    every point's requests, waits and regions in one SQLite\n"
		"                      file (WAL), added as points finish (run_id: the point id);\n"
		"                      with --resume, points already in it are skipped; implies\n"
		"                      --no-fork\n"
		"  --requests-csv FILE with --db: its requests table as CSV once the sweep ends\n"
		"  --quiet             no progress bar\n"
		"  --plugin X.so       load policy plugins (repeatable), as run does; a point\n"
		"                      whose plugin crashes or loops fails alone, named\n");
}

/* Default output directory: the sweep file's name without .yaml, plus .out. */
static char *default_out(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	if (n > 5 && strcmp(b + n - 5, ".yaml") == 0)
		n -= 5;
	else if (n > 4 && strcmp(b + n - 4, ".yml") == 0)
		n -= 4;
	char *out = malloc(n + 5);
	if (out)
		snprintf(out, n + 5, "%.*s.out", (int)n, b);
	return out;
}

static void print_point(const struct sweep *sw, const struct sweep_point *p)
{
	fputs(p->id, stdout);
	sweep_point_print_keys(stdout, sw, p, "\t");
	putchar('\n');
}

/* Hidden: print a result document without its wall-clock fields, so two
 * runs of a point can be compared byte for byte by scripts. */
static int canonical(const char *path)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	if (!doc) {
		fprintf(stderr, "mobisim: %s:%d:%d: %s\n", path, je.line, je.column, je.text);
		return 2;
	}
	sweep_canonicalize(doc);
	int rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	putchar('\n');
	json_decref(doc);
	return rc ? 1 : 0;
}

int cmd_sweep(int argc, char **argv)
{
	enum { O_RESUME = 256, O_COUNT, O_LIST, O_POINT, O_FORCE, O_COLLECT, O_QUIET, O_CANON, O_NOFORK,
	       O_PLOT, O_DB, O_CSV, O_PLUGIN };
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "resume", no_argument, NULL, O_RESUME },
		{ "count", no_argument, NULL, O_COUNT },
		{ "list", no_argument, NULL, O_LIST },
		{ "point", required_argument, NULL, O_POINT },
		{ "force", no_argument, NULL, O_FORCE },
		{ "collect", required_argument, NULL, O_COLLECT },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "no-fork", no_argument, NULL, O_NOFORK },
		{ "plot", required_argument, NULL, O_PLOT },
		{ "db", required_argument, NULL, O_DB },
		{ "requests-csv", required_argument, NULL, O_CSV },
		{ "canonical", required_argument, NULL, O_CANON },
		{ "plugin", required_argument, NULL, O_PLUGIN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char **collect = calloc((size_t)argc, sizeof(char *));
	const char **plugins = calloc((size_t)argc + 1, sizeof(char *));
	int ncollect = 0, nplugins = 0, c, status = 2, modes = 0;
	const char *out = NULL, *point = NULL, *plot = NULL, *db = NULL, *csv = NULL;
	bool resume = false, count = false, list = false, force = false, quiet = false;
	bool no_fork = false;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	char *out_alloc = NULL;
	struct sweep *sw = NULL;
	if (!collect || !plugins) {
		free(collect);
		free(plugins);
		return 1;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "j:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': {
			char *end;
			jobs = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || jobs < 1 || jobs > 4096) {
				fprintf(stderr, "mobisim: -j: '%s' is not a number of jobs (1-4096)\n",
					optarg);
				goto done;
			}
			break;
		}
		case 'o':
			out = optarg;
			break;
		case O_RESUME:
			resume = true;
			break;
		case O_NOFORK:
			no_fork = true;
			break;
		case O_DB:
			db = optarg;
			break;
		case O_CSV:
			csv = optarg;
			break;
		case O_COUNT:
			count = true;
			modes++;
			break;
		case O_LIST:
			list = true;
			modes++;
			break;
		case O_POINT:
			point = optarg;
			modes++;
			break;
		case O_FORCE:
			force = true;
			break;
		case O_COLLECT:
			if (ncollect == 0)
				modes++;
			collect[ncollect++] = optarg;
			break;
		case O_QUIET:
			quiet = true;
			break;
		case O_PLUGIN:
			plugins[nplugins++] = optarg;
			break;
		case O_PLOT:
			plot = optarg;
			break;
		case O_CANON:
			status = canonical(optarg);
			goto done;
		case 'h':
			sweep_usage(stdout);
			status = 0;
			goto done;
		default:
			sweep_usage(stderr);
			goto done;
		}
	}
	if (optind != argc - 1 || modes > 1) {
		if (modes > 1)
			fprintf(stderr, "mobisim: sweep: give at most one of --count, --list, --point, --collect\n");
		sweep_usage(stderr);
		goto done;
	}
	/* one writer per database: the local pool's master; a cluster's
	 * --point jobs and --collect would each need their own */
	if ((db || csv) && (point || ncollect)) {
		fprintf(stderr, "mobisim: sweep: --db and --requests-csv are for a local sweep, not "
			"with --point or --collect\n");
		goto done;
	}
	if (csv && !db) {
		fprintf(stderr, "mobisim: sweep: --requests-csv is the --db database's requests "
			"table: give --db too\n");
		goto done;
	}
	if (cli_outputs_clash((const char *[]){ "--db", db, "--requests-csv", csv, NULL }) ||
	    (db && cli_out_unwritable("--db", db)) ||
	    (csv && cli_out_unwritable("--requests-csv", csv)))
		goto done;
	if (jobs < 1)
		jobs = 1;
	const char *path = argv[optind];
	struct sim_error err = { 0 };
	int rc = sweep_load_file(path, &sw, &err);
	if (rc) {
		status = cli_report(&err);
		goto done;
	}
	sw->plugins = nplugins ? plugins : NULL;
	if (count) {
		printf("%d\n", sw->npoints);
		status = 0;
		goto done;
	}
	if (list) {
		for (int i = 0; i < sw->npoints; i++)
			print_point(sw, &sw->points[i]);
		status = fflush(stdout) ? 1 : 0;
		goto done;
	}
	if (plot && ncollect) {
		fprintf(stderr, "mobisim: sweep: --plot draws the points a run runs; --collect runs none\n");
		status = 2;
		goto done;
	}
	if (plot && !cli_gnuplot_found()) {
		fprintf(stderr, "mobisim: sweep: --plot: gnuplot not found (install gnuplot-nox); "
			"no point run\n");
		status = 1;
		goto done;
	}
	sw->plot_dir = plot;
	/* a wrong metric path fails here, before any point runs */
	if ((rc = sweep_check_metrics(sw, &err))) {
		status = cli_report(&err);
		goto done;
	}
	if (!out)
		out = out_alloc = default_out(path);
	if (!out) {
		status = 1;
		goto done;
	}
	if (point) {
		int k = sweep_find_point(sw, point, &err);
		bool skipped;
		rc = k < 0 ? err.code : sweep_run_point(sw, k, out, force, &skipped, &err);
		status = rc ? cli_report(&err) : 0;
		goto done;
	}
	if (ncollect) {
		int nmissing = 0;
		rc = sweep_write_summary(sw, out, collect, ncollect, true, stderr, &nmissing, &err);
		if (!rc && nmissing)
			rc = sim_errorf(&err, SIM_E_RUNTIME,
					"%s: %d of %d points missing; summary.tsv has the other %d",
					path, nmissing, sw->npoints, sw->npoints - nmissing);
		status = rc ? cli_report(&err) : 0;
		goto done;
	}
	struct sweep_run_opts ro = {
		.out_dir = out,
		.jobs = (int)jobs,
		.resume = resume,
		.progress = !quiet && isatty(STDERR_FILENO),
		.log = stderr,
		.no_fork = no_fork,
		.db = db,
		.requests_csv = csv,
	};
	int nfailed;
	if (!quiet)
		note_known_misses(sw);
	rc = sweep_run_all(sw, &ro, &nfailed, &err);
	status = rc ? cli_report(&err) : 0;
done:
	sweep_free(sw);
	free(out_alloc);
	free(collect);
	free(plugins);
	return status;
}
