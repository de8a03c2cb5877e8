/* Sweep execution: one point per forked process, a local pool of at most
 * -j processes, atomic point files, resume, and the gnuplot summary.
 *
 * Why fork per point rather than threads or one process: a point that
 * crashes (a model bug, an assertion in a Debug build, OOM) takes only its
 * own process down, the pool reports it and carries on, and nothing a run
 * allocates outlives it. fork() of the small parent costs well under a
 * millisecond, against the tens of milliseconds of the smallest useful
 * point. The same single-point path (`--point K`) is what GNU parallel,
 * Slurm job arrays and HTCondor run, so the local pool and the cluster
 * produce identical point files.
 *
 * Determinism: the pool only decides *when* a point runs, never what it
 * computes (its seed and config come from the expansion), and the summary
 * is built afterwards from the point files in point order, so it is the
 * same bytes for any -j and across --resume. Wall-clock fields of the
 * result (engine.wall_s, events_per_s, peak_rss_kib) vary, and are not
 * written to the summary unless a metric asks for them.
 */
#include "sim/cli/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "sim/cli/cli.h"
#include "sim/cli/plot.h"
#include "sim/cli/results_db.h"
#include "sim/cli/rows_out.h"
#include "sim/cli/sweep_fork.h"
#include "sim/cli/sweep_index.h"
#include "sim/cli/warnings.h"
#include "sim/config.h"
#include "sim/results.h"
#include "sim/sim.h"
#include "sim/stats.h"

/* ------------------------------------------------------------- paths */

static int mkdir_p(const char *dir, struct sim_error *err)
{
	char buf[4096];
	if ((size_t)snprintf(buf, sizeof(buf), "%s", dir) >= sizeof(buf))
		return sim_errorf(err, SIM_E_IO, "%s: path too long", dir);
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return sim_errorf(err, SIM_E_IO, "%s: cannot create directory: %s", buf,
					  strerror(errno));
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

static void point_path(char *buf, size_t len, const char *points_dir, const struct sweep_point *p)
{
	snprintf(buf, len, "%s/%s.json", points_dir, p->id);
}

/* The point's own rows database, which its worker writes for --db. */
static void point_rows_path(char *buf, size_t len, const char *points_dir,
			    const struct sweep_point *p)
{
	snprintf(buf, len, "%s/%s.sqlite", points_dir, p->id);
}

static char *read_text(const char *path, size_t *len);

/* A result document read whole and parsed from memory (json_load_file reads
 * a byte at a time through getc: 12 % of a summary's instructions). */
static json_t *load_doc(const char *path)
{
	size_t len = 0;
	char *text = read_text(path, &len);
	if (!text)
		return NULL;
	json_error_t je;
	json_t *doc = json_loadb(text, len, 0, &je);
	free(text);
	return doc;
}

static json_t *load_point(const struct sweep_point *p, const char *path)
{
	json_t *doc = load_doc(path);
	const json_t *id = json_object_get(json_object_get(doc, "sweep"), "id");
	if (json_is_string(id) && strcmp(json_string_value(id), p->id) == 0)
		return doc;
	json_decref(doc);
	return NULL;
}

bool sweep_point_file_ok(const struct sweep_point *p, const char *path)
{
	json_t *doc = load_point(p, path);
	json_decref(doc);
	return doc != NULL;
}

/* Whether path holds p's finished result: its index row says so, else a
 * parse does. */
static bool point_done(struct sweep_index *ix, const struct sweep_point *p, const char *path)
{
	json_t *row = sweep_index_row(ix, p, path);
	json_decref(row);
	return row || sweep_point_file_ok(p, path);
}

/* ------------------------------------------------------- one point */

/* The sweep-file node behind the n-th (1-based) --set of point p. */
static const struct cfg_node *set_origin(const struct sweep *sw, const struct sweep_point *p, int n)
{
	if (n >= 1 && n <= sw->nsets)
		return sw->set_nodes[n - 1];
	int k = sw->nsets;
	for (int c = 0; c < sw->nkeys; c++)
		if (p->vals[c] && ++k == n)
			return p->vals[c]->node;
	return NULL;
}

/* Errors from cfg_set'd values say "--set:N:1:"; point them at the line of
 * the sweep file the value came from, and name the point. */
static void error_in_point(const struct sweep *sw, const struct sweep_point *p,
			   struct sim_error *err)
{
	char msg[SIM_ERRMSG_MAX];
	int n = 0, used = 0;
	const struct cfg_node *o = NULL;
	if (sscanf(err->msg, "--set:%d:1:%n", &n, &used) == 1 && used > 0)
		o = set_origin(sw, p, n);
	if (o)
		snprintf(msg, sizeof(msg), "%.200s:%d:%d: point %s:%.700s", o->file, o->line, o->col, p->id,
			 err->msg + used);
	else
		snprintf(msg, sizeof(msg), "point %s: %.900s", p->id, err->msg);
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
}

int sweep_point_create(const struct sweep *sw, const struct sweep_point *p, struct sim **out,
			struct sim_error *err)
{
	int nsets = 0;
	char **sets = sweep_point_sets(sw, p, &nsets);
	if (!sets)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	struct sim_options so = { .quiet = true, .seed = p->seed, .seed_given = p->seed_set,
				  .plugins = sw->plugins };
	struct cfg_doc *doc;
	*out = NULL;
	int rc = cli_load_scenario(sw->base, sets, nsets, &doc, err);
	if (!rc)
		rc = sim_create(doc, sw->base, &so, out, err);
	sweep_free_sets(sets, nsets);
	if (rc)
		error_in_point(sw, p, err);
	return rc;
}

/* Run the point; with rows, its rows go to OUT/points/<id>.sqlite first
 * (the result file last, so a point whose result is there has its rows). */
static int run_point(const struct sweep *sw, int index, const char *out_dir, bool force,
		     bool rows, bool *skipped, struct sim_error *err);

int sweep_run_point(const struct sweep *sw, int index, const char *out_dir, bool force,
		    bool *skipped, struct sim_error *err)
{
	return run_point(sw, index, out_dir, force, false, skipped, err);
}

static int run_point(const struct sweep *sw, int index, const char *out_dir, bool force,
		     bool rows, bool *skipped, struct sim_error *err)
{
	const struct sweep_point *p = &sw->points[index];
	char dir[4096], path[4200];
	*skipped = false;
	snprintf(dir, sizeof(dir), "%s/points", out_dir);
	point_path(path, sizeof(path), dir, p);
	if (!force && sweep_point_file_ok(p, path)) {
		*skipped = true;
		return 0;
	}
	int rc = mkdir_p(dir, err);
	if (rc)
		return rc;
	struct sim *s;
	rc = sweep_point_create(sw, p, &s, err);
	if (rc)
		return rc;
	struct rdb *db = NULL;
	struct rows_out *ro = NULL;
	if (rows) {
		char rpath[4200];
		point_rows_path(rpath, sizeof(rpath), dir, p);
		json_t *a = sweep_point_assignment_json(sw, p);
		char *point = a ? json_dumps(a, JSON_COMPACT) : NULL;
		json_decref(a);
		struct rdb_run rr = { .run_id = p->id, .command = "sweep", .scenario = sw->base,
				      .point = point, .seed = s->seed };
		rc = rdb_open(rpath, RDB_NEW, &db, err);
		if (!rc)
			rc = rows_out_attach(s, db, NULL, &rr, &ro, err);
		free(point);
	}
	if (!rc) {
		rc = sim_run(s, err);
		if (rc)
			error_in_point(sw, p, err);
	}
	if (!rc && ro) {
		json_t *res = sim_result_json(s);
		rc = rows_out_finish(ro, res, err);
		ro = NULL;
		json_decref(res);
		if (!rc)
			rc = rdb_close(db, err);
		db = NULL;
	}
	rows_out_free(ro);
	rdb_abort(db);
	if (!rc)
		rc = sweep_point_write(sw, p, s, out_dir, err);
	sim_destroy(s);
	return rc;
}

/* sweep --plot: PLOT_DIR/<id>.png of the point's latency CDFs, titled with
 * its keys. */
static int point_plot(const struct sweep *sw, const struct sweep_point *p, struct sim *s,
		      struct sim_error *err)
{
	char path[4200], *keys = NULL, title[1200];
	size_t klen = 0;
	int rc = mkdir_p(sw->plot_dir, err);
	if (rc)
		return rc;
	FILE *kf = open_memstream(&keys, &klen);
	if (kf) {
		sweep_point_print_keys(kf, sw, p, " ");
		fclose(kf);
	}
	snprintf(title, sizeof(title), "mobisim sweep %s point %s:%.900s", sw->file, p->id,
		 keys ? keys : "");
	free(keys);
	snprintf(path, sizeof(path), "%s/%s.png", sw->plot_dir, p->id);
	struct cli_cdf_series *ser = malloc(sizeof(*ser));
	if (!ser)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	cli_cdf_series_init(ser, p->id);
	rc = cli_cdf_series_add(ser, &s->metrics);
	if (rc)
		sim_errorf(err, rc, "out of memory");
	else if ((rc = cli_plot_latency_cdf(path, title, ser, 1, err)))
		error_in_point(sw, p, err);
	cli_cdf_series_free(ser);
	free(ser);
	return rc;
}

/* Bring point p's rows file into db and remove it. */
static int import_point(struct rdb *db, const char *points_dir, const struct sweep_point *p,
			struct sim_error *err)
{
	char rpath[4200];
	point_rows_path(rpath, sizeof(rpath), points_dir, p);
	int rc = rdb_import(db, rpath, p->id, err);
	if (!rc)
		unlink(rpath);
	return rc;
}

/* Whether db can have point p's rows without running it again: they are
 * in it, or in the point's rows file a stopped sweep did not import yet
 * (imported now). */
static bool point_rows_ok(struct rdb *db, const char *points_dir, const struct sweep_point *p)
{
	char rpath[4200];
	struct stat st;
	if (rdb_has_run(db, p->id))
		return true;
	point_rows_path(rpath, sizeof(rpath), points_dir, p);
	struct sim_error err;
	return stat(rpath, &st) == 0 && import_point(db, points_dir, p, &err) == 0;
}

int sweep_point_write(const struct sweep *sw, const struct sweep_point *p, struct sim *s,
		      const char *out_dir, struct sim_error *err)
{
	char dir[4096], path[4200];
	snprintf(dir, sizeof(dir), "%s/points", out_dir);
	point_path(path, sizeof(path), dir, p);
	if (sw->plot_dir) {
		int prc = point_plot(sw, p, s, err);
		if (prc)
			return prc;
	}
	json_t *res = sim_result_json(s);
	json_t *meta = json_object();
	json_object_set_new(meta, "id", json_string(p->id));
	json_object_set_new(meta, "index", json_integer(p->index));
	json_object_set_new(meta, "assignment", sweep_point_assignment_json(sw, p));
	json_object_set_new(meta, "rep", json_integer(p->rep));
	json_object_set_new(meta, "seed", json_integer((json_int_t)s->seed));
	json_object_set_new(res, "sweep", meta);
	int rc = results_write_atomic(path, res, err);
	if (!rc) {
		json_t *row = sweep_row_from_doc(sw, p, res);
		if (row)
			sweep_index_append(sw, p, out_dir, path, row);
		json_decref(row);
	}
	json_decref(res);
	return rc;
}

/* ----------------------------------------------------------- progress */

struct progress {
	bool on;
	FILE *f;
	int total, done, skipped, failed;
	double start, last;
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Redraw at most once a second, and always when final. */
static void progress_draw(struct progress *pg, bool final)
{
	if (!pg->on)
		return;
	double now = mono_s();
	if (!final && now - pg->last < 1.0)
		return;
	pg->last = now;
	int n = pg->done + pg->skipped + pg->failed;
	int width = 30, fill = pg->total ? (int)((long)width * n / pg->total) : width;
	char bar[64];
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[width] = '\0';
	char eta[32] = "--:--";
	int ran = pg->done + pg->failed, left = pg->total - n;
	if (ran > 0) {
		long s = (long)((now - pg->start) / ran * left + 0.5);
		snprintf(eta, sizeof(eta), "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	}
	fprintf(pg->f, "\r[%s] %d/%d %3d%% ETA %s", bar, n, pg->total,
		pg->total ? (int)(100L * n / pg->total) : 100, eta);
	if (pg->failed)
		fprintf(pg->f, " (%d failed)", pg->failed);
	if (final)
		fputc('\n', pg->f);
	fflush(pg->f);
}

/* --------------------------------------------------------------- pool */

struct slot {
	int point;
};

void sweep_pool_signals(int how, sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(how, how == SIG_SETMASK ? old : &set, how == SIG_SETMASK ? NULL : old);
}

pid_t sweep_pool_fork(volatile pid_t *slot, bool quiet)
{
	fflush(NULL);
	sigset_t old;
	sweep_pool_signals(SIG_BLOCK, &old);
	pid_t pid = fork();
	if (pid == 0) {
		results_signal_children(NULL, 0);
		if (quiet)
			results_signal_quiet();
	} else if (pid > 0 && slot) {
		*slot = pid;
	}
	sweep_pool_signals(SIG_SETMASK, &old);
	return pid;
}

pid_t sweep_pool_reap(pid_t pid, volatile pid_t *slot, int *status)
{
	sigset_t old;
	pid_t got;
	sweep_pool_signals(SIG_BLOCK, &old);
	if (slot)
		*slot = 0;
	while ((got = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	sweep_pool_signals(SIG_SETMASK, &old);
	return got;
}

/* One line, written at once (the log is shared with the running points):
 * the point, its keys, how it ended. A point's own stderr is the sweep's,
 * so what it said comes before this line. */
void sweep_report_child(FILE *log, const struct sweep *sw, const struct sweep_point *p, int status)
{
	if (!log)
		return;
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	FILE *f = m ? m : log;
	fprintf(f, "mobisim: point %s", p->id);
	if (sweep_point_print_keys(f, sw, p, " ("))
		fputc(')', f);
	if (WIFSIGNALED(status))
		fprintf(f, ": crashed (signal %d, %s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		fprintf(f, ": failed (exit status %d)", WEXITSTATUS(status));
	fputs("; its stderr is the sweep's: what it said, if anything, is above\n", f);
	if (m && fclose(m) == 0) {
		fputs(line, log);
		fflush(log);
	}
	free(line);
}

/* In the child: run the point, print its error, leave without touching
 * the parent's stdio buffers or atexit handlers. */
static void __attribute__((noreturn))
child_main(const struct sweep *sw, int index, const struct sweep_run_opts *o)
{
	struct sim_error err = { 0 };
	bool skipped;
	int rc = run_point(sw, index, o->out_dir, true, o->db != NULL, &skipped, &err);
	if (rc && o->log) {
		fprintf(o->log, "mobisim: %s\n", err.msg);
		fflush(o->log);
	}
	_exit(rc ? sim_error_exit_status(rc) : 0);
}

/* Temporaries (".ID.json.XXXXXX", ".ID.sqlite.XXXXXX") a run killed with
 * SIGKILL left in DIR: no handler could remove them, and the pool that
 * starts here is the directory's only writer. */
static void remove_stale_temps(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char path[4400];
	for (struct dirent *e; (e = readdir(d));) {
		const char *n = e->d_name;
		size_t l = strlen(n);
		if (n[0] != '.' || l < 9 || n[l - 7] != '.' || (!strstr(n, ".json.") && !strstr(n, ".sqlite.")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, n);
		unlink(path);
	}
	closedir(d);
}

static int run_all(const struct sweep *sw, const struct sweep_run_opts *o, struct rdb *db,
		   int *nfailed, struct sim_error *err)
{
	char dir[4096], path[4200];
	*nfailed = 0;
	int rc;
	snprintf(dir, sizeof(dir), "%s/points", o->out_dir);
	remove_stale_temps(dir);
	int *todo = malloc((size_t)(sw->npoints ? sw->npoints : 1) * sizeof(int));
	struct slot *slots = calloc((size_t)o->jobs, sizeof(*slots));
	/* the workers' pids, for the signal handler: a parent stopped by a
	 * signal stops them too, and each removes its unfinished point file,
	 * so the directory stays resumable (--resume) */
	volatile pid_t *pids = calloc((size_t)o->jobs, sizeof(*pids));
	if (!todo || !slots || !pids) {
		free(todo);
		free(slots);
		free((void *)pids);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	struct progress pg = { .on = o->progress && o->log, .f = o->log, .total = sw->npoints };
	int ntodo = 0;
	struct sweep_index *ix = o->resume ? sweep_index_load(sw, o->out_dir) : NULL;
	for (int i = 0; i < sw->npoints; i++) {
		point_path(path, sizeof(path), dir, &sw->points[i]);
		/* with --db, a point is done when its rows are in the database too */
		if (o->resume && point_done(ix, &sw->points[i], path) &&
		    (!db || point_rows_ok(db, dir, &sw->points[i])))
			pg.skipped++;
		else
			todo[ntodo++] = i;
	}
	sweep_index_free(ix);
	/* A bad key or value usually breaks every point: catch it once, here,
	 * before forking a pool of failing processes. */
	if (ntodo > 0) {
		struct sim *s;
		rc = sweep_point_create(sw, &sw->points[todo[0]], &s, err);
		sim_destroy(s);
		if (rc) {
			free(todo);
			free(slots);
			free((void *)pids);
			return rc;
		}
	}
	if ((rc = mkdir_p(dir, err))) {
		free(todo);
		free(slots);
		free((void *)pids);
		return rc;
	}
	pg.start = pg.last = mono_s();
	progress_draw(&pg, false);
	/* points that differ only in a launch's phase: one prefix each family */
	int worst = 0;
	bool *plain = calloc((size_t)(sw->npoints ? sw->npoints : 1), sizeof(bool));
	int *orig = malloc((size_t)(ntodo ? ntodo : 1) * sizeof(int));
	int nforked = 0, nall = ntodo, fork_worst = 0;
	rc = plain && orig ? 0 : sim_errorf(err, SIM_E_NOMEM, "out of memory");
	if (!rc) {
		memcpy(orig, todo, (size_t)ntodo * sizeof(int));
		struct sweep_run_opts fo = *o;
		fo.no_fork = o->no_fork || db;
		rc = sweep_fork_run(sw, &fo, todo, &ntodo, &nforked, &fork_worst, err);
	}
	if (rc) {
		free(plain);
		free(orig);
		free(todo);
		free(slots);
		free((void *)pids);
		return rc;
	}
	for (int i = 0; i < ntodo; i++)
		plain[todo[i]] = true;
	ix = nforked ? sweep_index_load(sw, o->out_dir) : NULL;
	for (int i = 0; i < nall && nforked; i++) {
		if (plain[orig[i]])
			continue;
		point_path(path, sizeof(path), dir, &sw->points[orig[i]]);
		if (point_done(ix, &sw->points[orig[i]], path)) {
			pg.done++;
		} else {
			pg.failed++; /* named on the log as it ended */
			worst = fork_worst ? fork_worst : SIM_E_RUNTIME;
		}
	}
	sweep_index_free(ix);
	free(plain);
	free(orig);
	progress_draw(&pg, false);
	results_signal_children(pids, (size_t)o->jobs);
	int next = 0, running = 0;
	while (next < ntodo || running > 0) {
		while (running < o->jobs && next < ntodo) {
			int k = 0;
			while (pids[k])
				k++;
			pid_t pid = sweep_pool_fork(&pids[k], true);
			if (pid == 0)
				child_main(sw, todo[next], o);
			if (pid < 0) {
				if (running > 0)
					break; /* wait for a child to finish, then retry */
				results_signal_children(NULL, 0);
				free(todo);
				free(slots);
				free((void *)pids);
				return sim_errorf(err, SIM_E_RUNTIME, "fork: %s", strerror(errno));
			}
			slots[k].point = todo[next++];
			running++;
		}
		/* Wait without reaping, so the pid stays valid for the signal
		 * handler until it leaves pids[], then reap it. */
		int status;
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: nothing left to wait for */
		}
		pid_t pid = si.si_pid;
		int k = 0;
		while (k < o->jobs && pids[k] != pid)
			k++;
		pid_t got = sweep_pool_reap(pid, k < o->jobs ? &pids[k] : NULL, &status);
		if (k == o->jobs || got != pid)
			continue; /* not ours */
		const struct sweep_point *p = &sw->points[slots[k].point];
		running--;
		struct sim_error ierr;
		bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		/* its rows go in now, while the others run: a notebook reading the
		 * database sees the points that finished */
		if (ok && db && import_point(db, dir, p, &ierr)) {
			pg.failed++;
			worst = SIM_E_RUNTIME;
			if (pg.on)
				fputc('\n', pg.f);
			if (o->log)
				fprintf(o->log, "mobisim: point %s: --db: %s\n", p->id, ierr.msg);
		} else if (ok) {
			pg.done++;
		} else {
			pg.failed++;
			int code = WIFEXITED(status) && WEXITSTATUS(status) == 2 ? SIM_E_INPUT
										   : SIM_E_RUNTIME;
			if (worst == 0 || code == SIM_E_RUNTIME)
				worst = code;
			if (pg.on)
				fputc('\n', pg.f);
			sweep_report_child(o->log, sw, p, status);
		}
		progress_draw(&pg, false);
	}
	progress_draw(&pg, true);
	results_signal_children(NULL, 0);
	free(todo);
	free(slots);
	free((void *)pids);
	*nfailed = pg.failed;
	int nmissing = 0;
	rc = sweep_write_summary(sw, o->out_dir, NULL, 0, false, o->log, &nmissing, err);
	if (rc)
		return rc;
	if (pg.failed)
		return sim_errorf(err, worst, "%s: %d of %d points failed (see above); summary has %d rows",
				  sw->file, pg.failed, sw->npoints, sw->npoints - nmissing);
	if (nmissing)
		return sim_errorf(err, SIM_E_RUNTIME, "%s: %d points have no result file",
				  sw->file, nmissing);
	return 0;
}

int sweep_run_all(const struct sweep *sw, const struct sweep_run_opts *o, int *nfailed,
		  struct sim_error *err)
{
	struct rdb *db = NULL;
	*nfailed = 0;
	int rc = o->db ? rdb_open(o->db, RDB_SHARED, &db, err) : 0;
	if (rc)
		return rc;
	rc = run_all(sw, o, db, nfailed, err);
	/* the CSV is the database's requests table, so it holds every point
	 * the database has, also those of an earlier run resumed */
	if (db && o->requests_csv) {
		struct results_out *ro;
		struct sim_error cerr;
		int crc = results_out_open(o->requests_csv, &ro, &cerr);
		if (!crc) {
			crc = rdb_export_requests_csv(db, results_out_file(ro), &cerr);
			if (!crc)
				crc = results_out_commit(ro, &cerr);
			else
				results_out_abort(ro);
		}
		if (crc && !rc) {
			*err = cerr;
			rc = crc;
		}
	}
	if (db) {
		struct sim_error cerr;
		int crc = rdb_close(db, &cerr);
		if (crc && !rc) {
			*err = cerr;
			rc = crc;
		}
	}
	return rc;
}

/* ------------------------------------------------------------ summary */

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (n < cap)
			break;
		char *nb = realloc(buf, cap * 2);
		if (!nb) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* Load point p's document from the first directory that has a valid one;
 * *from_out tells whether that was out_dir itself. */
static json_t *find_point(const struct sweep_point *p, const char *out_points,
			  char (*dirs)[4200], int ndirs, char *path, size_t plen, bool *from_out)
{
	for (int d = -1; d < ndirs; d++) {
		point_path(path, plen, d < 0 ? out_points : dirs[d], p);
		json_t *doc = load_point(p, path);
		if (doc) {
			*from_out = d < 0;
			return doc;
		}
	}
	return NULL;
}

/* A cell for the TSV: tabs and newlines would split the row. */
static void put_cell(FILE *f, const char *s)
{
	fputc('\t', f);
	if (!*s) {
		fputc('-', f);
		return;
	}
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

/* OUT/warnings.txt: the points' warnings, a line each, made ready in *out
 * for the caller to commit with the summary (*out NULL when there are
 * none: the caller removes the file, so a resumed sweep does not keep stale
 * ones); the first ten on log. */
static int write_warnings(const char *out_dir, const json_t *tally, size_t npoints, FILE *log,
			  struct results_out **out, struct sim_error *err)
{
	char path[4200];
	*out = NULL;
	if (!json_object_size(tally))
		return 0;
	snprintf(path, sizeof(path), "%s/warnings.txt", out_dir);
	if (log)
		cli_warn_tally_print(log, "mobisim: warning: ", tally, npoints, "points", 10);
	int rc = results_out_open(path, out, err);
	if (rc)
		return rc;
	cli_warn_tally_print(results_out_file(*out), "", tally, npoints, "points", SIZE_MAX);
	if ((rc = results_out_ready(*out, err))) {
		results_out_abort(*out);
		*out = NULL;
	}
	return rc;
}

/* Whether repetitions > 1 and every point with a result that is not its
 * assignment's first repetition has its first repetition's metrics
 * (vals: npoints x nmetrics; NaN equals NaN), with at least one such pair. */
static bool reps_identical(const struct sweep *sw, const double *vals, const bool *present)
{
	size_t nm = (size_t)sw->nmetrics, pairs = 0;
	if (sw->repetitions < 2 || nm == 0 || !vals)
		return false;
	for (int i = 0; i < sw->npoints; i++) {
		const struct sweep_point *p = &sw->points[i];
		int j = i - p->rep;
		if (p->rep == 0 || j < 0 || !present[i] || !present[j])
			continue;
		for (size_t m = 0; m < nm; m++) {
			double a = vals[(size_t)i * nm + m], b = vals[(size_t)j * nm + m];
			if (!(a == b || (isnan(a) && isnan(b))))
				return false;
		}
		pairs++;
	}
	return pairs > 0;
}

int sweep_write_summary(const struct sweep *sw, const char *out_dir, const char *const *dirs,
			int ndirs, bool copy, FILE *log, int *nmissing, struct sim_error *err)
{
	char out_points[4096], final[4200], path[4200];
	*nmissing = 0;
	int rc = mkdir_p(out_dir, err);
	if (rc)
		return rc;
	snprintf(out_points, sizeof(out_points), "%s/points", out_dir);
	char (*dpaths)[4200] = calloc((size_t)(ndirs ? ndirs : 1), sizeof(*dpaths));
	if (!dpaths)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	for (int d = 0; d < ndirs; d++) {
		snprintf(dpaths[d], sizeof(dpaths[d]), "%s/points", dirs[d]);
		if (!is_dir(dpaths[d]))
			snprintf(dpaths[d], sizeof(dpaths[d]), "%s", dirs[d]);
		if (!is_dir(dpaths[d])) {
			free(dpaths);
			return sim_errorf(err, SIM_E_INPUT, "--collect %s: not a directory", dirs[d]);
		}
	}
	if (copy && (rc = mkdir_p(out_points, err))) {
		free(dpaths);
		return rc;
	}
	snprintf(final, sizeof(final), "%s/summary.tsv", out_dir);
	struct results_out *out;
	if ((rc = results_out_open(final, &out, err))) {
		free(dpaths);
		return rc;
	}
	FILE *f = results_out_file(out);
	bool reps = sw->repetitions > 1, seeds = sw->seeds_derived;
	fputs("# id", f);
	for (int c = 0; c < sw->nkeys; c++)
		put_cell(f, sw->keys[c]);
	if (reps)
		put_cell(f, "rep");
	if (seeds)
		put_cell(f, "seed");
	for (int m = 0; m < sw->nmetrics; m++)
		put_cell(f, sw->metrics[m].name);
	fputc('\n', f);
	bool *warned = calloc((size_t)(sw->nmetrics ? sw->nmetrics : 1), sizeof(bool));
	/* for summary-agg.tsv: every metric of every point as a number, and the
	 * key cells of each group's first point that has a result */
	size_t nm = (size_t)(sw->nmetrics ? sw->nmetrics : 1);
	double *vals = malloc((size_t)sw->npoints * nm * sizeof(double) + 1);
	char **cells = calloc((size_t)sw->ngroups * (size_t)(sw->nkeys ? sw->nkeys : 1) + 1,
			      sizeof(char *));
	bool *present = calloc((size_t)sw->npoints + 1, sizeof(bool));
	/* the points' warnings, each distinct text once with its count */
	json_t *tally = json_object();
	size_t npresent = 0;
	char phase_key[300] = "";
	if (!vals || !cells || !present || !tally) {
		free(warned);
		warned = NULL;
		rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; vals && i < (size_t)sw->npoints * nm; i++)
		vals[i] = NAN;
	struct sweep_index *ix = sweep_index_load(sw, out_dir);
	for (int i = 0; i < sw->npoints && warned; i++) {
		const struct sweep_point *p = &sw->points[i];
		bool from_out = false;
		point_path(path, sizeof(path), out_points, p);
		json_t *row = sweep_index_row(ix, p, path);
		json_t *doc = row ? NULL : find_point(p, out_points, dpaths, ndirs, path, sizeof(path), &from_out);
		if (!row && !doc) {
			if (log)
				fprintf(log, "mobisim: point %s: no result in %s%s\n", p->id, out_points,
					ndirs ? " or the collected directories" : "");
			(*nmissing)++;
			continue;
		}
		if (doc && copy && !from_out) {
			size_t len = 0;
			char *text = read_text(path, &len);
			char dst[4300];
			point_path(dst, sizeof(dst), out_points, p);
			rc = text ? results_write_text_atomic(dst, text, len, err)
				  : sim_errorf(err, SIM_E_IO, "%s: cannot read", path);
			free(text);
			if (rc) {
				json_decref(doc);
				break;
			}
		}
		if (doc) {
			row = sweep_row_from_doc(sw, p, doc);
			json_decref(doc);
			if (!row) {
				rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
				break;
			}
		}
		const json_t *keys = json_object_get(row, "keys"), *mets = json_object_get(row, "metrics");
		fputs(p->id, f);
		for (int c = 0; c < sw->nkeys; c++)
			put_cell(f, json_string_value(json_array_get(keys, (size_t)c)));
		present[i] = true;
		char **gcells = cells + (size_t)p->group * (size_t)sw->nkeys;
		for (int c = 0; c < sw->nkeys && !gcells[c]; c++)
			gcells[c] = strdup(json_string_value(json_array_get(keys, (size_t)c)));
		char buf[64];
		if (reps) {
			snprintf(buf, sizeof(buf), "%d", p->rep);
			put_cell(f, buf);
		}
		if (seeds)
			put_cell(f, json_string_value(json_object_get(row, "seed")));
		size_t ai;
		json_t *av;
		json_array_foreach(json_object_get(row, "absent"), ai, av) {
			int m = (int)json_integer_value(av);
			if (log && !warned[m]) {
				fprintf(log, "mobisim: warning: %s:%d:%d: metric %s: '%s' is not in the result of point %s (written as NaN)\n",
					sw->metrics[m].node->file, sw->metrics[m].node->line,
					sw->metrics[m].node->col, sw->metrics[m].name,
					sw->metrics[m].path, p->id);
				warned[m] = true;
			}
		}
		for (int m = 0; m < sw->nmetrics; m++) {
			const char *cell = json_string_value(json_array_get(mets, (size_t)m));
			put_cell(f, cell);
			char *end;
			double d = strtod(cell, &end);
			if (end != cell && !*end)
				vals[(size_t)i * nm + (size_t)m] = d;
		}
		fputc('\n', f);
		if (!phase_key[0])
			snprintf(phase_key, sizeof(phase_key), "%s",
				 json_string_value(json_object_get(row, "phase_key")));
		cli_warn_tally_add(tally, json_object_get(row, "warnings"), p->id);
		npresent++;
		json_decref(row);
	}
	sweep_index_free(ix);
	if (!rc && log && reps_identical(sw, vals, present)) {
		fprintf(log, "mobisim: warning: the %d repetitions of every assignment gave the same "
			"value of every metric: nothing the seed draws moves this scenario (fixed starts "
			"are one phase); ", sw->repetitions);
		if (phase_key[0])
			fprintf(log, "draw a start per seed (set: {%s: {uniform: [0s, 5s]}}) or sweep it "
				"as a repeat: axis\n", phase_key);
		else
			fprintf(log, "draw a start (start: {uniform: [0s, 5s]}) or sweep one as a repeat: "
				"axis\n");
	}
	/* said once per distinct text, and kept in OUT/warnings.txt (not in
	 * the summary, whose readers take every '#' line for the header) */
	struct results_out *wout = NULL, *aout = NULL;
	if (!rc)
		rc = write_warnings(out_dir, tally, npresent, log, &wout, err);
	json_decref(tally);
	free(warned);
	free(dpaths);
	if (!rc)
		rc = results_out_ready(out, err);
	if (!rc)
		rc = sweep_write_agg(sw, out_dir, vals, cells, present, &aout, err);
	/* the summary, its aggregate and the warnings go in place together, or
	 * none does (a full disk, a file size limit): only a rename can fail
	 * past here, and then what was renamed goes again */
	if (!rc) {
		char wpath[4200], apath[4200];
		snprintf(wpath, sizeof(wpath), "%s/warnings.txt", out_dir);
		snprintf(apath, sizeof(apath), "%s/summary-agg.tsv", out_dir);
		rc = results_out_commit(aout, err);
		aout = NULL;
		if (!rc) {
			rc = results_out_commit(out, err);
			out = NULL;
			if (rc)
				unlink(apath);
		}
		if (!rc && wout) {
			rc = results_out_commit(wout, err);
			wout = NULL;
			if (rc) {
				unlink(apath);
				unlink(final);
			}
		} else if (!rc && unlink(wpath) && errno != ENOENT) {
			rc = sim_errorf(err, SIM_E_IO, "%s: %s", wpath, strerror(errno));
		}
	}
	results_out_abort(out);
	results_out_abort(aout);
	results_out_abort(wout);
	for (size_t i = 0; cells && i < (size_t)sw->ngroups * (size_t)sw->nkeys; i++)
		free(cells[i]);
	free(cells);
	free(vals);
	free(present);
	return rc;
}

/* ------------------------------------------------------- aggregate */

static void put_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("\tNaN", f);
	else
		fprintf(f, "\t%.12g", v == 0 ? 0.0 : v);
}

int sweep_write_agg(const struct sweep *sw, const char *out_dir, const double *vals,
		    char *const *cells, const bool *present, struct results_out **outp,
		    struct sim_error *err)
{
	*outp = NULL;
	static const char *const stat_names[] = { "mean", "sd", "ci95", "ci_lo", "ci_hi", "min",
						  "p50", "p95", "max", "n", NULL };
	char final[4200];
	snprintf(final, sizeof(final), "%s/summary-agg.tsv", out_dir);
	int per = sw->ngroups ? sw->npoints / sw->ngroups : 0;
	size_t nm = (size_t)(sw->nmetrics ? sw->nmetrics : 1);
	double *col = malloc((size_t)(per ? per : 1) * sizeof(double));
	if (!col)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	struct results_out *out;
	int rc = results_out_open(final, &out, err);
	if (rc) {
		free(col);
		return rc;
	}
	FILE *f = results_out_file(out);
	fputs("group", f);
	for (int c = 0; c < sw->nkeys; c++)
		if (!sw->key_repeat[c])
			put_cell(f, sw->keys[c]);
	put_cell(f, "n");
	for (int m = 0; m < sw->nmetrics; m++)
		for (int s = 0; stat_names[s]; s++) {
			char name[300];
			snprintf(name, sizeof(name), "%s.%s", sw->metrics[m].name, stat_names[s]);
			put_cell(f, name);
		}
	fputc('\n', f);
	rc = 0;
	for (int g = 0; g < sw->ngroups && !rc; g++) {
		int first = g * per, n = 0;
		for (int i = first; i < first + per; i++)
			n += present[i];
		fprintf(f, "%d", g);
		for (int c = 0; c < sw->nkeys; c++)
			if (!sw->key_repeat[c]) {
				const char *cell = cells[(size_t)g * (size_t)sw->nkeys + (size_t)c];
				put_cell(f, cell ? cell : "-");
			}
		fprintf(f, "\t%d", n);
		for (int m = 0; m < sw->nmetrics && !rc; m++) {
			for (int k = 0; k < per; k++)
				col[k] = vals[(size_t)(first + k) * nm + (size_t)m];
			struct stats_sample s;
			if (stats_sample_summarize(col, per, &s)) {
				rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
				break;
			}
			put_num(f, s.mean);
			put_num(f, s.sd);
			put_num(f, s.ci95);
			put_num(f, s.mean - s.ci95);
			put_num(f, s.mean + s.ci95);
			put_num(f, s.min);
			put_num(f, s.p50);
			put_num(f, s.p95);
			put_num(f, s.max);
			fprintf(f, "\t%d", s.n);
		}
		fputc('\n', f);
	}
	free(col);
	if (!rc)
		rc = results_out_ready(out, err);
	if (rc) {
		results_out_abort(out);
		return rc;
	}
	*outp = out;
	return 0;
}

/* ------------------------------------------------------------ canonical */

void sweep_canonicalize(json_t *doc)
{
	static const char *const wall[] = { "wall_s", "events_per_s", "peak_rss_kib", NULL };
	if (json_is_object(doc)) {
		for (int i = 0; wall[i]; i++)
			json_object_del(doc, wall[i]);
		const char *k;
		json_t *v;
		json_object_foreach(doc, k, v)
			sweep_canonicalize(v);
	} else if (json_is_array(doc)) {
		size_t i;
		json_t *v;
		json_array_foreach(doc, i, v)
			sweep_canonicalize(v);
	}
}
