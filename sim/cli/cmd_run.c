/* `mobisim run`: load a scenario, apply --set overrides, run it, print a
 * summary and write the result document atomically. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "sim/cli/cli.h"
#include "sim/cli/progress.h"
#include "sim/cli/rows_out.h"
#include "sim/cli/run_options.h"
#include "sim/results.h"
#include "sim/sim.h"
#include "sim/cli/summary.h"
#include "sim/cli/timeline_out.h"
#include "sim/cli/trace_out.h"
#include "sim/cli/known_misses.h"
#include "sim/config.h"
#include "sim/cli/warnings.h"

int cli_report(const struct sim_error *err)
{
	fprintf(stderr, "mobisim: %s\n", err->msg);
	return sim_error_exit_status(err->code);
}

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: mobisim run SCENARIO.yaml|NAME [options]   (NAME: see `mobisim list scenarios`)\n"
		"  --set KEY=VALUE     override a scenario value by dotted path (repeatable)\n"
		"  --seed N            run seed (overrides the scenario's seed:)\n"
		"  --out FILE          write the result JSON here (atomically; - for stdout)\n"
		"  --trace-out FILE    write the simulated block trace as blkparse text\n"
		"  --timeline FILE     write the run as Chrome/Perfetto trace-event JSON, or as a\n"
		"                      Perfetto protobuf trace when FILE ends in .pftrace or\n"
		"                      .perfetto-trace\n"
		"  --timeline-format json|proto  the --timeline format whatever FILE's name\n"
		"  --db FILE.sqlite    write runs, requests, waits and regions to an SQLite file\n"
		"  --requests-csv FILE write one row per served request as CSV\n"
		"  --plugin FILE.so    load policies from a plugin (repeatable)\n"
		"  --lenient           a replay that classifies by process a trace recording none\n"
		"                      runs (every request background) with a counted warning\n"
		"  --quiet             no summary on stdout\n");
}

/* Shared by run and the commands built on it: parse SCENARIO and --set. */
const char *cli_scenario_path(const char *arg, char *buf, size_t len)
{
	struct stat st;
	if (strchr(arg, '/') || stat(arg, &st) == 0)
		return arg;
	size_t n = strlen(arg);
	bool ext = n > 5 && strcmp(arg + n - 5, ".yaml") == 0;
	snprintf(buf, len, "%s/configs/scenarios/%s%s", sim_datadir(), arg, ext ? "" : ".yaml");
	return stat(buf, &st) == 0 ? buf : arg;
}

bool cli_outputs_clash(const char *const *pairs)
{
	for (int i = 0; pairs[i]; i += 2)
		for (int j = i + 2; pairs[i + 1] && pairs[j]; j += 2)
			if (pairs[j + 1] && results_same_output(pairs[i + 1], pairs[j + 1])) {
				fprintf(stderr, "mobisim: %s and %s name the same file '%s'\n", pairs[i],
					pairs[j], pairs[i + 1]);
				return true;
			}
	return false;
}

char *cli_sets_json(char *const *sets, int nsets)
{
	json_t *o = json_object();
	for (int i = 0; o && i < nsets; i++) {
		const char *eq = strchr(sets[i], '=');
		if (!eq)
			continue;
		char key[512];
		snprintf(key, sizeof(key), "%.*s", (int)(eq - sets[i]), sets[i]);
		json_object_set_new(o, key, json_string(eq + 1));
	}
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}

int cli_load_scenario(const char *path, char **sets, int nsets, struct cfg_doc **out,
		      struct sim_error *err)
{
	int rc = cfg_load_file(path, out, err);
	if (rc == SIM_E_IO) {
		rc = err->code = SIM_E_INPUT; /* a scenario that cannot be read is bad usage */
		if (!strchr(path, '/')) {
			char msg[SIM_ERRMSG_MAX];
			snprintf(msg, sizeof(msg), "%.700s (not a bundled scenario either: "
				 "`mobisim list scenarios` names them)", err->msg);
			snprintf(err->msg, sizeof(err->msg), "%s", msg);
		}
	}
	if (rc)
		return rc;
	for (int i = 0; i < nsets; i++) {
		rc = cfg_set(*out, sets[i], err);
		if (rc) {
			cfg_free(*out);
			*out = NULL;
			return rc;
		}
	}
	return 0;
}

/* An output that cannot be written is found before the run, not after it:
 * a directory, or a directory we may not create files in. Devices and
 * "-" are left to the writer. Prints the message; true when unwritable. */
bool cli_out_unwritable(const char *opt, const char *out)
{
	struct stat st;
	char dir[4096];

	if (!strcmp(out, "-"))
		return false;
	if (stat(out, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "mobisim: %s %s: is a directory\n", opt, out);
			return true;
		}
		if (!S_ISREG(st.st_mode))
			return false;
	}
	snprintf(dir, sizeof(dir), "%s", out);
	const char *d = dirname(dir);
	if (access(d, W_OK | X_OK)) {
		fprintf(stderr, "mobisim: %s %s: cannot write in %s: %s\n", opt, out, d, strerror(errno));
		return true;
	}
	return false;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_RUN_OPTIONS,
		{ "trace-out", required_argument, NULL, 't' },
		{ "timeline", required_argument, NULL, 'T' },
		{ "timeline-format", required_argument, NULL, 'F' },
		{ "lenient", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char **sets = calloc((size_t)argc, sizeof(char *));
	const char **plugins = calloc((size_t)argc + 1, sizeof(char *));
	int nsets = 0;
	struct sim_options so = { 0 };
	if (!sets || !plugins) {
		fprintf(stderr, "mobisim: out of memory\n");
		free(sets);
		free(plugins);
		return 1;
	}
	so.plugins = plugins;
	const char *out = NULL, *trace_out = NULL, *timeline = NULL, *db_path = NULL, *csv_path = NULL;
	int c, status = 2, tl_format = TIMELINE_AUTO;
	optind = 1;
	struct cli_run_options ro = { .sets = sets, .plugins = plugins, .so = &so };
	while ((c = getopt_long(argc, argv, "s:o:qh", opts, NULL)) != -1) {
		struct sim_error oerr;
		int k = cli_run_option(&ro, c, optarg, &oerr);
		if (k < 0) {
			cli_report(&oerr);
			goto done;
		}
		if (k)
			continue;
		switch (c) {
		case 't':
			trace_out = optarg;
			break;
		case 'T':
			timeline = optarg;
			break;
		case 'F':
			tl_format = sim_timeline_out_format(optarg);
			if (tl_format < 0) {
				fprintf(stderr, "mobisim: --timeline-format '%s': expected json or proto\n",
					optarg);
				goto done;
			}
			break;
		case 'L':
			so.lenient = true;
			break;
		case 'h':
			run_usage(stdout);
			status = 0;
			goto done;
		default:
			run_usage(stderr);
			goto done;
		}
	}
	nsets = ro.nsets;
	out = ro.out;
	db_path = ro.db_path;
	csv_path = ro.csv_path;
	so.quiet = ro.quiet;
	if (optind != argc - 1) {
		run_usage(stderr);
		goto done;
	}
	if (tl_format != TIMELINE_AUTO && !timeline) {
		fprintf(stderr, "mobisim: --timeline-format needs --timeline FILE\n");
		goto done;
	}
	if (out && trace_out && results_same_output(out, trace_out)) {
		fprintf(stderr, "mobisim: --out and --trace-out name the same file '%s'\n", out);
		goto done;
	}
	if (timeline && ((out && results_same_output(out, timeline)) ||
			 (trace_out && results_same_output(trace_out, timeline)))) {
		fprintf(stderr, "mobisim: --timeline names the same file as --out or --trace-out '%s'\n",
			timeline);
		goto done;
	}
	if (cli_outputs_clash((const char *[]){ "--out", out, "--trace-out", trace_out,
						"--timeline", timeline, "--db", db_path,
						"--requests-csv", csv_path, NULL }))
		goto done;
	char pathbuf[4096];
	const char *path = cli_scenario_path(argv[optind], pathbuf, sizeof(pathbuf));
	if ((out && cli_out_unwritable("--out", out)) ||
	    (db_path && cli_out_unwritable("--db", db_path)) ||
	    (csv_path && cli_out_unwritable("--requests-csv", csv_path))) {
		status = 2;
		goto done;
	}
	struct sim_error err = { 0 };
	struct cfg_doc *doc;
	struct sim *s = NULL;
	struct rdb *db = NULL;
	struct rows_csv *csv = NULL;
	struct rows_out *rows = NULL;
	int rc = cli_load_scenario(path, sets, nsets, &doc, &err);
	if (!rc)
		rc = sim_create(doc, path, &so, &s, &err);
	if (!rc && trace_out)
		rc = sim_trace_out_open(s, trace_out, &err);
	if (!rc && timeline)
		rc = sim_timeline_out_open(s, timeline, tl_format, &err);
	if (!rc && db_path)
		rc = rdb_open(db_path, RDB_NEW, &db, &err);
	if (!rc && csv_path)
		rc = rows_csv_open(csv_path, &csv, &err);
	char *point = NULL;
	if (!rc && (db || csv)) {
		point = cli_sets_json(sets, nsets);
		struct rdb_run rr = { .run_id = "run", .command = "run", .scenario = path,
				      .point = point, .seed = s->seed };
		rc = rows_out_attach(s, db, csv, &rr, &rows, &err);
	}
	free(point);
	struct cli_progress prog;
	if (!rc) {
		cli_progress_attach(&prog, s, NULL);
		rc = sim_run(s, &err);
		cli_progress_done(&prog);
	}
	/* every output file appears when all are complete, or none does */
	bool held = !rc;
	if (held)
		results_hold_begin();
	if (!rc)
		rc = sim_trace_out_finish(s, &err);
	if (!rc)
		rc = sim_timeline_out_finish(s, &err);
	if (rc) {
		if (held)
			(void)results_hold_end(false, NULL);
		status = cli_report(&err);
		if (s) {
			sim_trace_out_free(s->trace_out);
			sim_timeline_out_free(s->timeline_out);
		}
		rows_out_free(rows);
		rdb_abort(db);
		rows_csv_abort(csv);
		sim_destroy(s);
		goto done;
	}
	/* A run cut short is not a normal end: say so (the summary follows). */
	if (s->end_reason && !strcmp(s->end_reason, "max_events"))
		fprintf(stderr, "mobisim: stopped early: run.max_events reached at t = %.6f s before the "
				"workload finished\n", (double)sim_now(s) / 1e9);
	json_t *res = sim_result_json(s);
	/* a workload's and its reader's warnings (open-loop overload, a cut
	 * record ...) are in the result; say them too */
	json_t *warns = cli_result_warnings(res);
	cli_warnings_print(stderr, NULL, warns);
	json_decref(warns);
	/* a platform whose device misses a validate check says so (stderr only:
	 * the result document stays as it was) */
	(void)known_misses_note(stderr, cfg_root(s->doc));
	if (!so.quiet)
		summary_print(stdout, s, res);
	rc = rows ? rows_out_finish(rows, res, &err) : 0;
	rows = NULL;
	if (!rc && db) {
		rc = rdb_close(db, &err);
		db = NULL;
	}
	if (!rc && csv) {
		rc = rows_csv_close(csv, &err);
		csv = NULL;
	}
	rdb_abort(db);
	rows_csv_abort(csv);
	if (!rc && out)
		rc = results_write_atomic(out, res, &err);
	int hrc = results_hold_end(rc == 0, rc ? NULL : &err);
	if (!rc)
		rc = hrc;
	json_decref(res);
	sim_destroy(s);
	status = rc ? cli_report(&err) : 0;
done:
	free(sets);
	free(plugins);
	return status;
}
