/* `mobisim workload fit TRACE [-o FIT.yaml]`: a synthetic workload fitted
 * to a recorded block trace, and how well its run reproduces the trace.
 *
 * Method: Tarasov et al., "Extracting Flexible, Replayable Models from
 * Large Block Traces", FAST'12 - the trace is cut into chunks of time and,
 * per chunk and stream (process), a feature record is kept (traces/
 * tracefit.h); the model is the list of those records, written as the
 * `model:` of a replay workload (FIT.workload.yaml) and a scenario that
 * runs it (FIT.yaml). The model is then run here, on the scenario's
 * device, and the run's block trace (its Q events, as --trace-out writes
 * them) is measured like the original: every statistic with its error and
 * the tolerance the method holds it to (docs/workloads.md, "Fitted
 * models"). --check makes a statistic outside its tolerance an error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/block/block.h"
#include "sim/cli/cli.h"
#include "sim/cli/fit_era.h"
#include "sim/cli/trace_options.h"
#include "sim/config.h"
#include "sim/results.h"
#include "sim/sim.h"
#include "traces/trace.h"
#include "traces/tracefit.h"

#define FIT_PRESCAN 50000u
#define FIT_STREAM_ROWS 8u

static void workload_usage(FILE *f)
{
	fprintf(f,
		"usage: mobisim workload fit TRACE [-o FIT.yaml] [options]\n"
		"  Fit a synthetic workload to a block trace (any format `trace stat` reads):\n"
		"  per stream and chunk of time (Tarasov et al., FAST'12), sizes, read/write and\n"
		"  sync mix, sequential and re-referenced requests, jumps, inter-arrival times.\n"
		"  Writes FIT.yaml (a scenario) and FIT.workload.yaml (the workload: include it\n"
		"  as a composite source), runs the model and prints each statistic of the run\n"
		"  against the trace with its error and tolerance.\n"
		"  -o, --out FIT.yaml      where to write (default: a temporary, removed after)\n"
		"  --chunk TIME            chunk length (default 100ms; 10ms keeps burstiness finer)\n"
		"  --from T, --until T     fit only the records from T to T after the first, or @T\n"
		"                          on the recording's clock\n"
		"  --segment N             fit only capture segment N (cut at gaps longer than\n"
		"                          --max-gap, default an hour)\n"
		"  --comm REGEX, --pid N, --app PACKAGE\n"
		"                          fit only the requests these processes queued (repeatable)\n"
		"  --max-gap T [--gap compress|cut]\n"
		"                          compress gaps longer than T to T, or end the trace there\n"
		"  --by pid|comm|uid       one stream per process id (default), process name or\n"
		"                          uid (Android: the app; where the trace records uids)\n"
		"  --device NAME|FILE      device of the scenario (default: emmc51 for an MMC\n"
		"                          device (major 179), else ufs21)\n"
		"  --scheduler NAME        I/O scheduler of the scenario (default: mq-deadline on\n"
		"                          blk-mq when the trace was recorded on Linux 5.0 or\n"
		"                          later (Perfetto keeps uname), else cfq)\n"
		"  --seed N                seed of the scenario and of the check run (default 1)\n"
		"  --set KEY=VALUE         a key of the scenario (repeatable): written into FIT.yaml,\n"
		"                          so the check run and later runs use it\n"
		"  --no-run                write the model only\n"
		"  --check                 exit 1 when a statistic is outside its tolerance\n"
		"  --format NAME, --columns SPEC, --strict   as for `mobisim trace stat`\n");
}

struct fit_args {
	const char *trace, *out, *device, *scheduler, *format;
	char **sets;                /* --set KEY=VALUE, into the scenario */
	int nsets;
	int64_t chunk_ns;
	uint64_t seed;
	enum tfit_by by;
	bool no_run, check, chunk_given, device_given, scheduler_given;
	struct trace_opts topts;
};

/* The model's YAML nodes at most: half the config reader's CFG_MAX_NODES
 * (sim/config_int.h, 2^20), so the scenario around it and the check run
 * always read it back. */
#define FIT_MODEL_NODES (1u << 19)

/* The legacy (single-queue) schedulers; any other runs on blk-mq. */
static bool legacy_scheduler(const char *s)
{
	return !strcmp(s, "cfq") || !strcmp(s, "deadline") || !strcmp(s, "noop");
}

/* Q when the trace has any, else D (traces that keep issues only). */
static int choose_action(const struct fit_args *a, uint16_t *act, const char **fmt,
			 struct fit_era *era, struct sim_error *err)
{
	struct trace_reader r;
	struct trace_rec rec;
	uint64_t q = 0, d = 0;
	uint32_t major = 0;
	int rc = trace_open_named(a->trace, a->format, &a->topts, &r, err);
	if (rc)
		return rc;
	*fmt = r.ops->name;
	for (uint32_t i = 0; i < FIT_PRESCAN && (rc = trace_next(&r, &rec, err)) == 1; i++) {
		q += rec.kind == TRACE_REC_BLOCK && rec.action == TRACE_A_QUEUE;
		d += rec.kind == TRACE_REC_BLOCK && rec.action == TRACE_A_ISSUE;
		if (!major && rec.kind == TRACE_REC_BLOCK &&
		    (rec.action == TRACE_A_QUEUE || rec.action == TRACE_A_ISSUE))
			major = rec.dev_major;
		if (q)
			break;
	}
	bool none_kept = trace_filter_kept_nothing(&r.diag);
	fit_era_pick(major, r.diag.kernel_release, era);
	char rules[sizeof(r.diag.filter)];
	snprintf(rules, sizeof(rules), "%s", r.diag.filter);
	trace_close(&r);
	if (rc < 0)
		return rc;
	if (!q && !d && none_kept)
		return sim_errorf(err, SIM_E_INPUT, "%s: the process filter (%s) matched none of the "
				  "requests in its first %u records: nothing to fit (the names and ids it "
				  "holds: `mobisim trace stat %s`)", a->trace, rules, FIT_PRESCAN, a->trace);
	if (!q && !d)
		return sim_errorf(err, SIM_E_INPUT, "%s: no Q or D (block queue or issue) events in its "
				  "first %u records: nothing to fit", a->trace, FIT_PRESCAN);
	*act = q ? TRACE_A_QUEUE : TRACE_A_ISSUE;
	return 0;
}

static int fit_trace(const struct fit_args *a, uint16_t act, bool warn, struct tfit **out,
		     struct sim_error *err)
{
	/* a model past what mobisim reads back is not kept, only measured */
	struct tfit_opts o = { .chunk_ns = a->chunk_ns, .by = a->by, .io_action = act,
			       .keep_nodes = FIT_MODEL_NODES };
	struct trace_reader r;
	struct trace_rec rec;
	int rc = tfit_create(&o, out, err);
	if (rc)
		return rc;
	rc = trace_open_named(a->trace, a->format, &a->topts, &r, err);
	if (rc)
		return rc;
	while ((rc = trace_next(&r, &rec, err)) == 1)
		if ((rc = tfit_add(*out, &rec, err)))
			break;
	if (rc == 0 && warn) /* once: a refit with a wider chunk reads the same records */
		(void)trace_diag_print(&r.diag, a->trace, stderr);
	trace_close(&r);
	return rc;
}

static const char *by_name(enum tfit_by b)
{
	return b == TFIT_BY_COMM ? "comm" : b == TFIT_BY_UID ? "uid" : "pid";
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* FIT.yaml -> FIT.workload.yaml (any other name: NAME.workload.yaml). */
static void workload_path(const char *out, char *buf, size_t n)
{
	size_t l = strlen(out);
	if (l > 5 && !strcmp(out + l - 5, ".yaml"))
		snprintf(buf, n, "%.*s.workload.yaml", (int)(l - 5), out);
	else
		snprintf(buf, n, "%s.workload.yaml", out);
}

/* ---- the scenario's keys ----------------------------------------------
 *
 * The scenario is a list of dotted keys with values (seed, device, block.kind,
 * scheduler, workload.include ...), the --set ones after them: a set on a key
 * the list has replaces its value, a new one is added, and the list is written
 * as nested YAML in first-seen order. So the file runs as the check ran. */
#define SCEN_KEYS_MAX 96
#define SCEN_DEPTH_MAX 8

struct scen_key {
	char path[200];
	const char *comp[SCEN_DEPTH_MAX];
	int ncomp;
	char value[1200];
	bool done;
	char buf[200];              /* path split into NUL-ended components */
};

static int scen_put(struct scen_key *k, int *n, const char *path, const char *value, bool user,
		    struct sim_error *err)
{
	if (strlen(path) >= sizeof(k->path) || strlen(value) >= sizeof(k->value) || !*path ||
	    strpbrk(path, "[]\"\' "))
		return sim_errorf(err, SIM_E_INPUT, "--set '%s=%s': expected KEY.SUB=VALUE (plain keys "
				  "of up to %zu characters)", path, value, sizeof(k->path) - 1);
	size_t pl = strlen(path);
	for (int i = 0; i < *n; i++) {
		size_t ql = strlen(k[i].path);
		if (!strcmp(k[i].path, path)) {
			snprintf(k[i].value, sizeof(k[i].value), "%s", value);
			return 0;
		}
		/* one a prefix of the other: a value and a map at one key */
		const char *lo = pl < ql ? path : k[i].path, *hi = pl < ql ? k[i].path : path;
		size_t ll = pl < ql ? pl : ql;
		if (!strncmp(lo, hi, ll) && hi[ll] == '.')
			return sim_errorf(err, SIM_E_INPUT, "--set %s=%s: the scenario %s %s: %s (give --device "
					  "FILE or --scheduler for a whole section)", path, value,
					  user && pl > ql ? "has a value at" : "has keys under",
					  lo, pl > ql ? k[i].value : "a section");
	}
	if (*n == SCEN_KEYS_MAX)
		return sim_errorf(err, SIM_E_INPUT, "--set: at most %d keys", SCEN_KEYS_MAX - 16);
	struct scen_key *e = &k[(*n)++];
	memset(e, 0, sizeof(*e));
	snprintf(e->path, sizeof(e->path), "%s", path);
	snprintf(e->value, sizeof(e->value), "%s", value);
	snprintf(e->buf, sizeof(e->buf), "%s", path);
	for (char *save = NULL, *c = strtok_r(e->buf, ".", &save); c; c = strtok_r(NULL, ".", &save)) {
		if (e->ncomp == SCEN_DEPTH_MAX) {
			(*n)--;
			return sim_errorf(err, SIM_E_INPUT, "--set %s: deeper than %d keys", path,
					  SCEN_DEPTH_MAX);
		}
		e->comp[e->ncomp++] = c;
	}
	return 0;
}

static bool scen_same_prefix(const struct scen_key *a, const struct scen_key *b, int d)
{
	if (a->ncomp <= d || b->ncomp <= d)
		return false;
	for (int i = 0; i <= d; i++)
		if (strcmp(a->comp[i], b->comp[i]))
			return false;
	return true;
}

/* keys [from, n) that share k[from]'s first d components, at depth d */
static void scen_emit(FILE *o, struct scen_key *k, int n, int from, int d)
{
	for (int i = from; i < n; i++) {
		if (k[i].done || (i != from && d > 0 && !scen_same_prefix(&k[i], &k[from], d - 1)))
			continue;
		fprintf(o, "%*s%s:", 2 * d, "", k[i].comp[d]);
		if (k[i].ncomp == d + 1) {
			fprintf(o, " %s\n", k[i].value);
			k[i].done = true;
			continue;
		}
		fprintf(o, "\n");
		scen_emit(o, k, n, i, d + 1);
		for (int j = i; j < n; j++)
			if (scen_same_prefix(&k[j], &k[i], d))
				k[j].done = true;
	}
}

static int write_files(const struct fit_args *a, const char *fmt, const struct tfit *f,
		       const char *scen, const char *wl, struct sim_error *err)
{
	struct tfit_stats st;
	struct results_out *ow = NULL, *os = NULL;
	tfit_stats(f, &st);
	int rc = results_out_open(wl, &ow, err);
	if (rc)
		return rc;
	FILE *o = results_out_file(ow);
	fprintf(o, "# A workload fitted by `mobisim workload fit` to %s (%s):\n"
		   "# %" PRIu64 " requests of %" PRIu64 " streams (by %s) over %.6f s, chunk %.6f s.\n"
		   "# Method: Tarasov et al., FAST'12 (docs/workloads.md, \"Fitted models\"): per\n"
		   "# stream and chunk, the request count, first and last arrival, reads (r) and\n"
		   "# writes (w), sync ones (sr, sw), sequential ones (qr, qw), re-references of\n"
		   "# one of the stream's last 256 starts (reref, at distance classes rdist),\n"
		   "# jumps from the previous end (log2 sector classes jump, back = backwards),\n"
		   "# sizes in sectors (rsz, wsz) and inter-arrival log2 ns classes (iat).\n"
		   "# Use it as a composite source: sources: {app: {include: %s}}\n",
		base_name(a->trace), fmt, st.ios, st.streams, by_name(a->by),
		st.duration_s, (double)a->chunk_ns / 1e9, base_name(wl));
	fprintf(o, "type: replay\nreplay: open\nmodel:\n");
	rc = tfit_write_model(f, o, 2, err);
	if (rc) {
		results_out_abort(ow);
		return sim_errorf(err, rc, "%s: %s", wl, err->msg);
	}
	rc = results_out_open(scen, &os, err);
	if (rc) {
		results_out_abort(ow);
		return rc;
	}
	o = results_out_file(os);
	static struct scen_key keys[SCEN_KEYS_MAX];
	int nk = 0;
	char v[1200];
	snprintf(v, sizeof(v), "fit-%s", base_name(a->trace));
	rc = scen_put(keys, &nk, "name", v, false, err);
	snprintf(v, sizeof(v), "synthetic workload fitted to %s (Tarasov et al. FAST'12 chunked model)",
		 base_name(a->trace));
	if (!rc)
		rc = scen_put(keys, &nk, "description", v, false, err);
	snprintf(v, sizeof(v), "%" PRIu64, a->seed);
	if (!rc)
		rc = scen_put(keys, &nk, "seed", v, false, err);
	if (!rc)
		rc = scen_put(keys, &nk, "device", a->device, false, err);
	if (!rc && !legacy_scheduler(a->scheduler))
		rc = scen_put(keys, &nk, "block.kind", "mq", false, err);
	if (!rc)
		rc = scen_put(keys, &nk, "scheduler", a->scheduler, false, err);
	if (!rc)
		rc = scen_put(keys, &nk, "workload.include", base_name(wl), false, err);
	for (int i = 0; !rc && i < a->nsets; i++) {
		const char *eq = strchr(a->sets[i], '=');
		char key[256];
		if (!eq || eq == a->sets[i] || (size_t)(eq - a->sets[i]) >= sizeof(key)) {
			rc = sim_errorf(err, SIM_E_INPUT, "--set '%s': expected KEY=VALUE", a->sets[i]);
			break;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(eq - a->sets[i]), a->sets[i]);
		rc = scen_put(keys, &nk, key, eq + 1, true, err);
	}
	if (rc) {
		results_out_abort(ow);
		results_out_abort(os);
		return rc;
	}
	const char *dev = a->device;
	for (int i = 0; i < nk; i++)
		if (!strcmp(keys[i].path, "device"))
			dev = keys[i].value;
	fprintf(o, "# The workload fitted to %s by `mobisim workload fit` on a %s phone stack.\n"
		   "#   mobisim run %s\n",
		base_name(a->trace), dev, base_name(scen));
	for (int i = 0; i < a->nsets; i++)
		fprintf(o, "%s%s%s", i ? " " : "# with --set ", a->sets[i], i == a->nsets - 1 ? "\n" : "");
	scen_emit(o, keys, nk, 0, 0);
	/* both complete before either is put in place: a write error (a full
	 * disk, a file size limit) leaves neither; the scenario, which names
	 * the workload, goes last, and if it cannot the workload goes too */
	if ((rc = results_out_ready(ow, err)) || (rc = results_out_ready(os, err))) {
		results_out_abort(ow);
		results_out_abort(os);
		return rc;
	}
	rc = results_out_commit(ow, err);
	if (rc) {
		results_out_abort(os);
		return rc;
	}
	rc = results_out_commit(os, err);
	if (rc)
		unlink(wl);
	return rc;
}

/* ---- the check run ---------------------------------------------------- */

struct run_sink {
	struct tfit *f;
	const struct tfit *orig;    /* uids by pid: the simulated trace has none */
	struct sim *sim;
	struct sim_error err;
	bool failed;
};

static void run_event(void *ctx, const struct blk_trace_event *ev)
{
	struct run_sink *k = ctx;
	if ((ev->action != 'Q' && ev->action != 'C') || k->failed)
		return;
	struct trace_rec rec = { 0 };
	rec.kind = TRACE_REC_BLOCK;
	rec.action = ev->action == 'Q' ? TRACE_A_QUEUE : TRACE_A_COMPLETE;
	rec.act = ev->action;
	rec.flags = ev->flags;
	rec.dir = ev->nr_sectors == 0 ? TRACE_DIR_NONE
		  : req_is_write(ev->flags) ? TRACE_DIR_WRITE : TRACE_DIR_READ;
	rec.time_ns = ev->time_ns;
	rec.pid = ev->pid;
	rec.comm = ev->comm;
	rec.dev_major = 8;
	rec.sector = ev->sector;
	rec.nr_sectors = ev->nr_sectors;
	rec.bytes = ev->nr_sectors << SECTOR_SHIFT;
	if (tfit_uid_of_pid(k->orig, ev->pid, &rec.uid))
		rec.tflags |= TRACE_T_HAS_UID;
	if (tfit_add(k->f, &rec, &k->err)) {
		k->failed = true;
		sim_fail(k->sim, k->err.code, "%s", k->err.msg);
	}
}

static int run_model(const struct fit_args *a, const char *scen, const struct tfit *orig,
		     struct tfit *f, struct sim_error *err)
{
	struct cfg_doc *doc;
	struct sim *s = NULL;
	struct sim_options so = { .seed = a->seed, .seed_given = true, .quiet = true };
	/* the legacy queue's request limit lifted: the arrivals are the
	 * model's, not the device's back-pressure on an open loop */
	char *lift[] = { "block.nr_requests=1000000" };
	bool legacy = legacy_scheduler(a->scheduler);
	int rc = cli_load_scenario(scen, lift, legacy ? 1 : 0, &doc, err);
	if (!rc)
		rc = sim_create(doc, scen, &so, &s, err);
	if (rc)
		return rc;
	struct run_sink k = { .f = f, .orig = orig, .sim = s };
	struct blk_trace_sink sink = { .event = run_event, .ctx = &k };
	if (!s->blk || blk_add_trace_sink(s->blk, &sink)) {
		sim_destroy(s);
		return sim_errorf(err, SIM_E_RUNTIME, "workload fit: cannot watch the run's block queue");
	}
	rc = sim_run(s, err);
	blk_remove_trace_sink(s->blk, &k);
	sim_destroy(s);
	return rc;
}

/* ---- the report ------------------------------------------------------- */

enum tol_kind { TOL_REL, TOL_ABS };

struct row_ctx {
	FILE *o;
	unsigned out_of_tol, rows;
};

/* tol < 0: shown with its error, held to nothing (what the method does not keep) */
static void row(struct row_ctx *c, const char *name, const char *unit, double orig, double run,
		enum tol_kind k, double tol)
{
	double e;
	char es[32], ts[32];
	if (k == TOL_REL) {
		e = orig != 0 ? (run - orig) / fabs(orig) : (run == 0 ? 0 : INFINITY);
		/* a relative error of a value the trace does not have is none */
		snprintf(es, sizeof(es), isinf(e) ? "(trace 0)" : "%+.2f %%", 100 * e);
		snprintf(ts, sizeof(ts), "%.0f %%", 100 * tol);
	} else {
		e = run - orig;
		snprintf(es, sizeof(es), "%+.4f", e);
		snprintf(ts, sizeof(ts), "%.2f", tol);
	}
	bool ok = fabs(e) <= tol + 1e-12;
	if (tol < 0) {
		fprintf(c->o, "%-24s %-6s %14.6g %14.6g %10s %8s  %s\n", name, unit, orig, run, es, "-",
			"info");
		return;
	}
	c->rows++;
	c->out_of_tol += !ok;
	fprintf(c->o, "%-24s %-6s %14.6g %14.6g %10s %8s  %s\n", name, unit, orig, run, es, ts,
		ok ? "ok" : "OUT");
}

static unsigned report(FILE *o, const struct fit_args *a, const struct tfit *orig,
		       const struct tfit *run)
{
	struct tfit_stats x, y;
	struct row_ctx c = { .o = o };
	tfit_stats(orig, &x);
	tfit_stats(run, &y);
	double xn = x.ios ? (double)x.ios : 1, yn = y.ios ? (double)y.ios : 1;

	fprintf(o, "\n# the model's run (%s, %s, seed %" PRIu64 ") against the trace\n", a->device,
		a->scheduler, a->seed);
	fprintf(o, "%-24s %-6s %14s %14s %10s %8s  %s\n", "statistic", "unit", "trace", "model run",
		"error", "tol", "");
	/* Tolerances (docs/workloads.md): counts, sizes and mixes are kept
	 * exactly per chunk, so they only move by requests the block layer
	 * changes; placement and arrival order inside a chunk are random. */
	row(&c, "requests", "", (double)x.ios, (double)y.ios, TOL_REL, 0.01);
	row(&c, "bytes", "KiB", (double)x.bytes / 1024, (double)y.bytes / 1024, TOL_REL, 0.01);
	row(&c, "streams", "", (double)x.streams, (double)y.streams, TOL_REL, 0.0);
	row(&c, "threads (pids)", "", (double)x.threads, (double)y.threads, TOL_REL, 0.0);
	row(&c, "duration", "s", x.duration_s, y.duration_s, TOL_REL, 0.01);
	row(&c, "read share", "", (double)x.reads / xn, (double)y.reads / yn, TOL_ABS, 0.01);
	row(&c, "sync share", "", (double)x.syncs / xn, (double)y.syncs / yn, TOL_ABS, 0.01);
	row(&c, "mean read size", "KiB", x.mean_size_kib[0], y.mean_size_kib[0], TOL_REL, 0.02);
	row(&c, "mean write size", "KiB", x.mean_size_kib[1], y.mean_size_kib[1], TOL_REL, 0.02);
	row(&c, "4 KiB share", "", (double)x.size4k / xn, (double)y.size4k / yn, TOL_ABS, 0.01);
	double tvd = tfit_size_tvd(orig, run);
	row(&c, "size distance (TVD)", "", 0.0, tvd, TOL_ABS, 0.02);
	row(&c, "sequential share", "", (double)x.seq / xn, (double)y.seq / yn, TOL_ABS, 0.05);
	row(&c, "re-reference share", "", (double)x.reref / xn, (double)y.reref / yn, TOL_ABS, 0.05);
	row(&c, "mean inter-arrival", "s", x.iat_mean_s, y.iat_mean_s, TOL_REL, 0.02);
	row(&c, "inter-arrival CV", "", x.iat_cv, y.iat_cv, TOL_REL, 0.25);
	row(&c, "burstiness (IDC chunk)", "", x.idc_chunk, y.idc_chunk, TOL_REL, 0.05);
	/* below the chunk the order of arrivals is random: shown, held only
	 * when the chunk is the window itself */
	row(&c, "burstiness (IDC 10ms)", "", x.idc, y.idc, TOL_REL,
	    a->chunk_ns <= 10000000LL ? 0.25 : -1);
	/* think times need the trace's completions; the model (open loop)
	 * has none of its own: shown, not held */
	if (x.think_n + x.think_overlap) {
		row(&c, "after a completion", "", (double)x.think_n / (double)(x.think_n + x.think_overlap),
		    y.think_n + y.think_overlap
			    ? (double)y.think_n / (double)(y.think_n + y.think_overlap) : 0.0,
		    TOL_ABS, -1);
		row(&c, "think time (mean)", "s", x.think_mean_s, y.think_mean_s, TOL_REL, -1);
	}
	row(&c, "footprint", "MiB", (double)x.footprint_pages / 256, (double)y.footprint_pages / 256,
	    TOL_REL, 0.25);
	if (x.footprint_capped || y.footprint_capped)
		fprintf(o, "(footprint counted up to %u pages of 4 KiB)\n", TFIT_FOOTPRINT_MAX);

	/* the largest streams */
	uint32_t n = tfit_nstreams(orig), shown = 0;
	fprintf(o, "\n# largest streams (requests; KiB)\n%-8s %-16s %-8s %10s %10s %12s %12s\n",
		"pid", "comm", "uid", "trace", "run", "trace_kib", "run_kib");
	bool *done = calloc(n ? n : 1, sizeof(*done));
	while (done && shown < FIT_STREAM_ROWS && shown < n) {
		uint32_t best = 0;
		uint64_t bi = 0;
		bool any = false;
		struct tfit_key key;
		uint64_t ios, bytes, rios = 0, rbytes = 0;
		for (uint32_t i = 0; i < n; i++) {
			tfit_stream_info(orig, i, &key, &ios, &bytes);
			if (!done[i] && (!any || ios > bi)) {
				best = i;
				bi = ios;
				any = true;
			}
		}
		done[best] = true;
		tfit_stream_info(orig, best, &key, &ios, &bytes);
		int k = tfit_stream_find(run, &key);
		if (k >= 0) {
			struct tfit_key k2;
			tfit_stream_info(run, (uint32_t)k, &k2, &rios, &rbytes);
		}
		char uid[16] = "-";
		if (key.has_uid)
			snprintf(uid, sizeof(uid), "%u", key.uid);
		fprintf(o, "%-8d %-16s %-8s %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
			key.pid, key.comm[0] ? key.comm : "-", uid, ios, rios, bytes >> 10, rbytes >> 10);
		shown++;
	}
	free(done);
	fprintf(o, "\n%u of %u statistics within tolerance\n", c.rows - c.out_of_tol, c.rows);
	return c.out_of_tol;
}

static int do_fit(const struct fit_args *args, struct sim_error *err)
{
	struct fit_args chosen = *args; /* the chunk may be widened below */
	const struct fit_args *a = &chosen;
	uint16_t act = TRACE_A_QUEUE;
	const char *fmt = "?";
	struct tfit *orig = NULL, *run = NULL;
	char tmpdir[] = "/tmp/mobisim-fit-XXXXXX";
	char scen[4096], wl[4200];
	bool tmp = !a->out;
	struct fit_era era;
	int rc = choose_action(a, &act, &fmt, &era, err);
	if (rc)
		return rc;
	/* the stack of the trace's era, where it says so and the user did not */
	if (!a->device_given && era.device)
		chosen.device = era.device;
	if (!a->scheduler_given && era.scheduler)
		chosen.scheduler = era.scheduler;
	rc = fit_trace(a, act, true, &orig, err);
	if (rc)
		goto done;
	/* A model the reader cannot hold back is no model: without --chunk,
	 * widen the chunk (doubling) until it fits, and say so. */
	uint64_t nodes = tfit_model_nodes(orig);
	if (nodes > FIT_MODEL_NODES && !a->chunk_given) {
		int64_t first = a->chunk_ns;
		uint64_t first_nodes = nodes;
		while (nodes > FIT_MODEL_NODES && chosen.chunk_ns < INT64_MAX / 4) {
			uint64_t f = (nodes + FIT_MODEL_NODES - 1) / FIT_MODEL_NODES;
			while (f > 1) {
				chosen.chunk_ns *= 2;
				f = (f + 1) / 2;
			}
			tfit_destroy(orig);
			orig = NULL;
			rc = fit_trace(a, act, false, &orig, err);
			if (rc)
				goto done;
			nodes = tfit_model_nodes(orig);
		}
		printf("chunk:    %.6f s would write a model of %" PRIu64 " YAML nodes, more than "
		       "mobisim reads back (%u); %.6f s chosen (%" PRIu64 " nodes; --chunk sets it)\n",
		       (double)first / 1e9, first_nodes, FIT_MODEL_NODES, (double)a->chunk_ns / 1e9,
		       nodes);
	}
	if (nodes > FIT_MODEL_NODES) {
		rc = sim_errorf(err, SIM_E_INPUT, "--chunk %.6f s: the model would be %" PRIu64
				" YAML nodes, more than mobisim reads back (%u): choose a longer chunk",
				(double)a->chunk_ns / 1e9, nodes, FIT_MODEL_NODES);
		goto done;
	}
	struct tfit_stats st;
	tfit_stats(orig, &st);
	if (!st.ios) {
		rc = sim_errorf(err, SIM_E_INPUT, "%s: no request with data to fit", a->trace);
		goto done;
	}
	if (tmp) {
		if (!mkdtemp(tmpdir)) {
			rc = sim_errorf(err, SIM_E_IO, "temporary directory: %s", strerror(errno));
			goto done;
		}
		snprintf(scen, sizeof(scen), "%s/fit.yaml", tmpdir);
	} else {
		snprintf(scen, sizeof(scen), "%s", a->out);
	}
	workload_path(scen, wl, sizeof(wl));
	rc = write_files(a, fmt, orig, scen, wl, err);
	if (rc)
		goto done;
	printf("trace:    %s (%s, %s events)\n", a->trace, fmt, act == TRACE_A_QUEUE ? "Q" : "D");
	printf("model:    %" PRIu64 " requests, %" PRIu64 " streams by %s, chunk %.6f s%s%s\n", st.ios,
	       st.streams, by_name(a->by), (double)a->chunk_ns / 1e9,
	       tmp ? "" : "\nwritten:  ", tmp ? "" : scen);
	if (!tmp)
		printf("          %s\n", wl);
	if (!a->device_given && era.device_why[0])
		printf("stack:    device %s: %s\n", a->device, era.device_why);
	if (!a->scheduler_given && era.scheduler_why[0])
		printf("stack:    scheduler %s: %s\n", a->scheduler, era.scheduler_why);
	if (a->no_run)
		goto done;
	struct tfit_opts o = { .chunk_ns = a->chunk_ns, .by = a->by, .io_action = TRACE_A_QUEUE,
			       .stats_only = true };
	rc = tfit_create(&o, &run, err);
	if (!rc)
		rc = run_model(a, scen, orig, run, err);
	if (rc) {
		/* what fit wrote does not run: its own fault, not the trace's
		 * (exit 1), and nothing it wrote is left behind */
		if (!tmp) {
			unlink(scen);
			unlink(wl);
		}
		char why[sizeof(err->msg)];
		snprintf(why, sizeof(why), "%s", err->msg);
		/* a --device or --scheduler the stack does not know is the
		 * user's (exit 2); anything else is fit's own output */
		if (rc == SIM_E_INPUT && (strstr(why, " device: ") || strstr(why, " scheduler: ")))
			rc = sim_errorf(err, SIM_E_INPUT, "workload fit: --device %s --scheduler %s: %s%s",
					a->device, a->scheduler, why, tmp ? "" : " (its files were removed)");
		else if (rc == SIM_E_INPUT && a->nsets)
			/* the keys a --set put in the scenario are the user's too */
			rc = sim_errorf(err, SIM_E_INPUT, "workload fit: the scenario with its --set keys "
					"does not run: %s%s", why, tmp ? "" : " (its files were removed)");
		else
			rc = sim_errorf(err, rc == SIM_E_NOMEM ? SIM_E_NOMEM : SIM_E_RUNTIME,
					"workload fit: the model it wrote does not run (%s)%s", why,
					tmp ? "" : "; its files were removed");
		goto done;
	}
	unsigned bad = report(stdout, a, orig, run);
	if (fflush(stdout) || ferror(stdout))
		rc = sim_errorf(err, SIM_E_IO, "stdout: %s", strerror(errno));
	else if (bad && a->check)
		rc = sim_errorf(err, SIM_E_RUNTIME, "workload fit: %u statistics outside their tolerance",
				bad);
done:
	if (tmp && tmpdir[strlen(tmpdir) - 1] != 'X') {
		unlink(scen);
		unlink(wl);
		rmdir(tmpdir);
	}
	tfit_destroy(orig);
	tfit_destroy(run);
	return rc;
}

static int fit_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "by", required_argument, NULL, 'b' },
		{ "device", required_argument, NULL, 'd' },
		{ "scheduler", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "no-run", no_argument, NULL, 'n' },
		{ "check", no_argument, NULL, 'k' },
		{ "format", required_argument, NULL, 'f' },
		CLI_TRACE_OPTIONS,
		{ "set", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fit_args a = { .device = "ufs21", .scheduler = "cfq", .chunk_ns = 100000000LL,
			      .seed = 1 };
	struct sim_error err;
	struct cli_trace_options topt = { .opts = &a.topts };
	int c, rc = 2;
	sim_error_clear(&err);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': a.out = optarg; break;
		case 'c':
			if (cfg_parse_time_ns(optarg, "s", &a.chunk_ns, &err) || a.chunk_ns < 1000) {
				fprintf(stderr, "mobisim: --chunk: expected a time of 1us or more, e.g. 500ms\n");
				goto out;
			}
			a.chunk_given = true;
			break;
		case 'b':
			if (!strcmp(optarg, "pid"))
				a.by = TFIT_BY_PID;
			else if (!strcmp(optarg, "comm"))
				a.by = TFIT_BY_COMM;
			else if (!strcmp(optarg, "uid"))
				a.by = TFIT_BY_UID;
			else {
				fprintf(stderr, "mobisim: --by: expected pid, comm or uid\n");
				goto out;
			}
			break;
		case 'd': a.device = optarg; a.device_given = true; break;
		case 's': a.scheduler = optarg; a.scheduler_given = true; break;
		case 'S':
			if (sim_seed_parse(optarg, &a.seed, &err))
				goto bad;
			break;
		case 'n': a.no_run = true; break;
		case 'k': a.check = true; break;
		case 'f': a.format = optarg; break;
		case 'E': {
			char **ns = realloc(a.sets, (size_t)(a.nsets + 1) * sizeof(*ns));
			if (!ns) {
				fprintf(stderr, "mobisim: out of memory\n");
				goto out;
			}
			a.sets = ns;
			a.sets[a.nsets++] = optarg;
			break;
		}
		case 'h': workload_usage(stdout); rc = 0; goto out;
		default: {
			int t = cli_trace_option(&topt, c, optarg, &err);
			if (t < 0)
				goto bad;
			if (t == 0) {
				workload_usage(stderr);
				goto out;
			}
			break;
		}
		}
	}
	if (cli_trace_options_check(&topt, "workload fit", &err))
		goto bad;
	if (optind != argc - 1) {
		fprintf(stderr, "mobisim: workload fit: expected one TRACE\n");
		workload_usage(stderr);
		goto out;
	}
	a.trace = argv[optind];
	if (a.topts.columns && !a.format)
		a.format = "csv";
	if (a.no_run && !a.out) {
		fprintf(stderr, "mobisim: workload fit: --no-run needs -o (nothing would be kept)\n");
		goto out;
	}
	if (a.no_run && a.check) {
		fprintf(stderr, "mobisim: workload fit: --check needs the run (drop --no-run)\n");
		goto out;
	}
	rc = do_fit(&a, &err) ? cli_report(&err) : 0;
out:
	trace_fg_free(topt.keep);
	free(a.sets);
	return rc;
bad:
	trace_fg_free(topt.keep);
	free(a.sets);
	return cli_report(&err);
}

int cmd_workload(int argc, char **argv)
{
	if (argc < 2) {
		workload_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		workload_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "fit")) {
		fprintf(stderr, "mobisim: workload: unknown subcommand '%s' (fit)\n", argv[1]);
		workload_usage(stderr);
		return 2;
	}
	return fit_main(argc - 1, argv + 1);
}
