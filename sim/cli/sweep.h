/* Parameter sweeps: a sweep file names a base scenario and the axes to vary;
 * expansion turns it into an ordered list of points, each a set of
 * `--set KEY=VALUE` assignments (plus a repetition number and seed). The
 * expansion (sim/cli/sweep.c) is pure: it reads the sweep file (and, for the
 * seed of repetitions, the base scenario's `seed:`), never runs anything.
 * Execution lives in sim/cli/sweep_run.c, the command in sim/cli/cmd_sweep.c, the
 * file format in docs/sweeps.md.
 *
 * Point order is the contract the summary and the point ids rest on:
 * grid = cartesian product with the first axis slowest (like nested for
 * loops, the first axis outermost), zip = the i-th values of all axes
 * together; points removed by exclude_points keep no index; the
 * include_points come after the expanded points, in file order; the
 * `repeat:` axes (launch phases and the like: values a result is averaged
 * over, not compared across) are crossed with every assignment inside it,
 * and the seed repetitions are innermost. The points of one assignment of
 * the ordinary axes are consecutive and form its group, which
 * summary-agg.tsv aggregates.
 */
#ifndef SIM_SWEEP_H
#define SIM_SWEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/error.h"

struct json_t;
struct cfg_doc;
struct cfg_node;

/* Hard limit on the number of points of one sweep (a typo in a range
 * should fail loudly, not fill the disk). */
#define SWEEP_MAX_POINTS 1000000
#define SWEEP_ID_MAX 32

/* One value a key takes: the text handed to cfg_set and written to the
 * summary, and the sweep-file node it came from (for error messages). */
struct sweep_value {
	char *text;
	const struct cfg_node *node;
};

struct sweep_point {
	int index;                    /* 0-based position in the point list */
	char id[SWEEP_ID_MAX];        /* "<index, zero-padded>-<8 hex of the assignment>" */
	const struct sweep_value **vals; /* per column (sweep->keys); NULL = not set here */
	int rep;                      /* 0 .. repetitions-1 */
	int group;                    /* assignment of the ordinary axes (summary-agg row) */
	bool seed_set;                /* seed below overrides the scenario's */
	uint64_t seed;
};

/* A metric: a summary column read from each point's result document. */
struct sweep_metric {
	char *name;
	char *path;                   /* JSON path, see sweep_json_lookup() */
	double scale;                 /* multiply numeric values by this (1) */
	bool has_missing;             /* `missing: X`: the value when the path is absent */
	double missing;
	const struct cfg_node *node;
};

struct sweep {
	char *file;                   /* the sweep file as named by the caller */
	char *base;                   /* base scenario path, relative to the cwd */
	int nsets;
	char **sets;                  /* fixed "key=value" overrides, in file order */
	const struct cfg_node **set_nodes;
	int nkeys;
	char **keys;                  /* summary columns: axis keys, repeat keys, include-only keys */
	bool *key_repeat;             /* per key: a `repeat:` axis (aggregated over) */
	int repetitions;
	int repeat_rows;              /* assignments of the repeat: axes (1 without) */
	int ngroups;                  /* points / (repeat_rows * repetitions) */
	bool seeds_derived;           /* repetitions > 1 or an explicit `seed:` */
	uint64_t base_seed;
	int npoints;
	struct sweep_point *points;
	int nmetrics;
	struct sweep_metric *metrics;

	const char *plot_dir;         /* --plot DIR: each point's latency CDFs go there (NULL: none) */
	const char *const *plugins;   /* --plugin paths, NULL-terminated, or NULL */

	struct cfg_doc *doc;          /* the parsed sweep file; owns the nodes */
	/* storage */
	struct sweep_value **values;  /* every value created, freed with the sweep */
	int nvalues, capvalues;
	const struct sweep_value **valslab; /* npoints * nkeys cells */
};

/* Seed of repetition rep: sim_rng_derive_seed(base, "rep/<rep>") cut to
 * 53 bits, so it survives every JSON reader (doubles) and is a valid
 * scenario `seed:` for `mobisim run --seed`. */
uint64_t sweep_rep_seed(uint64_t base, int rep);

/* Parse and expand a sweep file. The base scenario is resolved relative to
 * the sweep file; it is read only to find its `seed:` when repetitions need
 * derived seeds and the sweep has no `seed:` of its own. Errors name
 * file:line:col of the offending node and return SIM_E_INPUT (SIM_E_IO
 * becomes SIM_E_INPUT too: an unreadable sweep is bad usage). */
int sweep_load_file(const char *path, struct sweep **out, struct sim_error *err);

/* A sweep written as the map under top-level key `key` of the file at path
 * (the validation files hold one beside their checks); base paths are
 * relative to that file. */
int sweep_load_subtree(const char *path, const char *key, struct sweep **out,
		       struct sim_error *err);

/* The same from text in memory; name is used in messages and as the
 * directory base paths are relative to. The base scenario is never read:
 * derived seeds start from the sweep's `seed:` or 1. */
int sweep_load_string(const char *text, size_t len, const char *name, struct sweep **out,
		      struct sim_error *err);

void sweep_free(struct sweep *sw);

/* Point index of spec: a decimal index ("7") or a point id. -1 and a
 * message in err (SIM_E_INPUT) when there is no such point. */
int sweep_find_point(const struct sweep *sw, const char *spec, struct sim_error *err);

/* "key=value" assignments of point p (fixed sets first, then the point's
 * own), in the order they are applied. Caller frees each string and the
 * array with sweep_free_sets(). *n gets the count; NULL on allocation
 * failure. */
char **sweep_point_sets(const struct sweep *sw, const struct sweep_point *p, int *n);
void sweep_free_sets(char **sets, int n);

/* Point p's own keys as `mobisim sweep --list` prints them: "key=value"
 * separated by blanks (rep= and seed= when they vary), the first preceded
 * by first; nothing (false) when the point sets no key. */
bool sweep_point_print_keys(FILE *f, const struct sweep *sw, const struct sweep_point *p,
			    const char *first);

/* The point's assignment as a JSON object {key: typed value}, typed like
 * cfg_to_json types scalars. Caller owns. */
struct json_t *sweep_point_assignment_json(const struct sweep *sw, const struct sweep_point *p);

/* Resolve path in a JSON document. Syntax: keys separated by '.',
 * `[N]` indexes an array, `[field=value]` picks the first element of an
 * array of objects whose field equals value (`[a=x,b=y]`: all must match;
 * numbers compare numerically), `["key"]` is a key that contains dots
 * (fio's "99.000000"). Returns the node (borrowed) or NULL; on a syntax
 * error NULL and *why says what was expected. */
const struct json_t *sweep_json_lookup(const struct json_t *doc, const char *path,
				       const char **why);

/* Check the syntax of a path (the part of sweep_json_lookup that does
 * not need a document). NULL when fine, else what is wrong. */
const char *sweep_json_path_check(const char *path);

/* A metric path may be a sum of paths, "P1 + P2": copy the next term of
 * *cur into buf and advance; false after the last. */
#define SWEEP_PATH_MAX 512
bool sweep_path_next(const char **cur, char *buf, size_t len);

/* Format metric m of result document doc into buf: numbers scaled and
 * printed with %.12g (integers unscaled print exactly), booleans as 1/0,
 * strings as-is with blanks turned to '_'. Returns false (buf = "NaN")
 * when the path does not resolve to a scalar. */
bool sweep_metric_format(const struct sweep_metric *m, const struct json_t *doc, char *buf,
			 size_t len);

/* ------------------------------------------------------------ execution */

struct sim;
/* Build point p's scenario and create (not run) its simulator; errors name
 * the point and, for its assignments, the sweep file's line. */
int sweep_point_create(const struct sweep *sw, const struct sweep_point *p, struct sim **out,
		       struct sim_error *err);

/* Check every metric path against the result document the points will
 * write, before any runs: the document of a created, not yet run point
 * (sim_result_json), with every wait cause and class in waits[]. A path is
 * fine when it resolves to a scalar in the document of point 0 or of one
 * of a few points spread over the sweep (an axis may change what the
 * result holds), or when it goes under an array or object that is empty
 * before the run (regions[], filled by the run). Otherwise SIM_E_INPUT at
 * the metric's line: the path, where it stops and the nearest valid keys
 * or values there. Points that cannot be created are left to the run. */
int sweep_check_metrics(const struct sweep *sw, struct sim_error *err);

/* The same for one path (sensitivity's --metric): 0, or SIM_E_INPUT and
 * the reason in why (no location). */
int sweep_check_metric_path(const struct sweep *sw, const char *path, char *why, size_t len);

struct sweep_run_opts {
	const char *out_dir;          /* points go to OUT/points/<id>.json */
	int jobs;                     /* concurrent points (>= 1) */
	bool resume;                  /* skip points whose file exists and parses */
	bool force;                   /* --point: rerun even if the file exists */
	bool progress;                /* progress bar on log (a terminal) */
	FILE *log;                    /* failures and warnings; NULL: silent */
	bool no_fork;                 /* --no-fork: every point from t = 0 (sweep_fork.c) */
	/* --db: the points' rows go into this results database
	 * (sim/cli/results_db.h), written by this process alone as points
	 * finish; each worker writes its point's rows to OUT/points/<id>.sqlite,
	 * which is imported in one transaction and removed. Implies no_fork:
	 * a forked point's rows would start in its family master. */
	const char *db;
	const char *requests_csv;     /* with db: its requests table as CSV at the end */
};

/* The pool's pieces the fork at a phase (sweep_fork.c) shares
 * (sweep_run.c): SIGINT, SIGTERM and SIGHUP blocked (SIG_BLOCK, the old
 * mask into *old) or restored (SIG_SETMASK from *old) while the set of
 * running children changes, so the handler (sim/results.c) sees every one;
 * and a child's failure or crash said on log (NULL: nothing) in one line
 * that names the point and its keys. */
void sweep_pool_signals(int how, sigset_t *old);
/* fork() for the pools, with the signals blocked across it so that the
 * child's pid is in *slot (NULL: nowhere), which the handler signals,
 * before any can arrive; the child forgets the parent's children (quiet:
 * and says nothing when signalled) before it takes the caller's mask back.
 * Returns what fork() returned. */
pid_t sweep_pool_fork(volatile pid_t *slot, bool quiet);
/* Reap pid, clearing *slot (NULL: none) with the signals blocked, so the
 * handler never signals a pid that may have been reused. Returns what
 * waitpid() returned, *status its status. */
pid_t sweep_pool_reap(pid_t pid, volatile pid_t *slot, int *status);
void sweep_report_child(FILE *log, const struct sweep *sw, const struct sweep_point *p, int status);

/* Run point index in this process and write OUT/points/<id>.json
 * atomically (creating the directories): the result document plus
 * "sweep": {id, index, assignment, rep, seed}. When the file already holds
 * this point and !force, does nothing and sets *skipped. Returns 0 or the
 * run's error (the message names the point). */
int sweep_run_point(const struct sweep *sw, int index, const char *out_dir, bool force,
		    bool *skipped, struct sim_error *err);
/* Write OUT/points/<id>.json for point p from its finished run s; with
 * sw->plot_dir, first that point's latency CDFs as PLOT_DIR/<id>.png, .tsv
 * and .gp (cli_plot_latency_cdf), so a point whose figure failed is not
 * finished and runs again with --resume. */
int sweep_point_write(const struct sweep *sw, const struct sweep_point *p, struct sim *s,
		      const char *out_dir, struct sim_error *err);

/* Whether path holds a finished result of point p (parses as JSON and its
 * sweep.id is p's id). */
bool sweep_point_file_ok(const struct sweep_point *p, const char *path);

/* Run every point (those already finished skipped when o->resume), each in
 * its own forked process, at most o->jobs at once, then write the summary.
 * A point that fails or crashes fails alone: it is reported on o->log and
 * the call returns SIM_E_RUNTIME (SIM_E_INPUT when every failure was bad
 * input) after the others have finished. *nfailed gets the count. */
int sweep_run_all(const struct sweep *sw, const struct sweep_run_opts *o, int *nfailed,
		  struct sim_error *err);

/* Write OUT/summary.tsv atomically from the point files, read one at a time
 * in point order: for each point the first of out_dir/points, then each of
 * dirs[] (a directory holding points/ or the points directory itself) that
 * has it. With copy, a point found only in dirs[] is copied into
 * out_dir/points. Missing points get no row and are counted in *nmissing
 * (and named on log, which may be NULL). Columns: id, the keys, rep (with
 * repetitions), seed (when seeds are derived), the metrics. Cells of keys a point does not
 * assign come from its result's "config" echo, else "-". The points'
 * warnings go to OUT/warnings.txt, each text once with its count of points
 * (the first ten also on log); with none, that file is removed. */
int sweep_write_summary(const struct sweep *sw, const char *out_dir, const char *const *dirs,
			int ndirs, bool copy, FILE *log, int *nmissing, struct sim_error *err);

/* Write OUT/summary-agg.tsv to a temporary, flushed and ready (*out, for
 * the caller to commit with the summary or abort) from vals (npoints x nmetrics,
 * NaN where a point lacks a number; rows of missing points all NaN) and
 * each group's key cells (ngroups x nkeys strings, NULL = "-"): one row
 * per group with the ordinary keys, n (points with a result) and per
 * metric NAME.mean, .sd, .ci95 (half-width), .ci_lo, .ci_hi, .min, .p50,
 * .p95, .max, .n (stats_sample_summarize). The header line has no '#', so
 * gnuplot's `columnheader` and column("NAME.mean") read it. */
struct results_out;
int sweep_write_agg(const struct sweep *sw, const char *out_dir, const double *vals,
		    char *const *cells, const bool *present, struct results_out **out,
		    struct sim_error *err);

/* A result document without its machine-dependent fields (wall_s,
 * events_per_s, peak_rss_kib, anywhere), for comparing runs. Modifies doc. */
void sweep_canonicalize(struct json_t *doc);

#endif
