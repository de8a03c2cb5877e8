/* The row observer of --db and --requests-csv (sim/cli/rows_out.h): turns
 * the device's served requests and the tasks' charged waits into rows.
 *
 * A request's times are the block layer's btt stamps on it: queue_ns is Q
 * (its first bio entered the block layer; a direct source's arrival),
 * dispatch_ns D, complete_ns C as the device finished it, so latency_ns
 * is btt's Q2C and the rows' figures are the result's classes.*.btt.
 * Its class is the one btt counts it in (REQ_FG, or an issuer in the
 * foreground at completion); pid is the issuer's process (tgid), tid its
 * thread, comm the thread's name ("kworker" for kernel I/O without a task,
 * as --trace-out names it), app the name of the process's main thread when
 * the upper stack has that task.
 */
#include "sim/cli/rows_out.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/block/request.h"
#include "models/device/device.h"
#include "models/stack/stack_int.h"
#include "sim/results.h"
#include "sim/sim.h"

struct rows_csv {
	struct results_out *out;
	FILE *f;
};

/* Process id to its main thread's name; entries for processes without one
 * remember how many tasks there were when looked for, so the task list is
 * walked again only when it grew. */
struct app_ent {
	int32_t tgid;
	const char *name;
	uint32_t ntasks_seen;
};

struct rows_out {
	struct sim *sim;
	struct rdb *db;
	struct rows_csv *csv;
	char *run_id;
	uint64_t seq;
	const char *device;
	struct sim_observer obs;
	struct app_ent *apps;
	size_t napps, capapps, last;
	bool nomem;
};

int rows_csv_open(const char *path, struct rows_csv **out, struct sim_error *err)
{
	*out = NULL;
	struct rows_csv *c = calloc(1, sizeof(*c));
	if (!c)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = results_out_open(path, &c->out, err);
	if (rc) {
		free(c);
		return rc;
	}
	c->f = results_out_file(c->out);
	rdb_csv_header(c->f);
	*out = c;
	return 0;
}

FILE *rows_csv_file(struct rows_csv *c)
{
	return c->f;
}

int rows_csv_close(struct rows_csv *c, struct sim_error *err)
{
	int rc = results_out_commit(c->out, err);
	free(c);
	return rc;
}

void rows_csv_abort(struct rows_csv *c)
{
	if (!c)
		return;
	results_out_abort(c->out);
	free(c);
}

static const char *app_scan(const struct stack *st, int32_t tgid)
{
	const struct list_head *pos;
	list_for_each(pos, &st->tasks) {
		const struct stack_task *t = container_of(pos, struct stack_task, all_node);
		if (!t->kthread && t->ioc.pid == tgid)
			return t->name;
	}
	return NULL;
}

static const char *app_of(struct rows_out *o, const struct io_context *ioc)
{
	const struct stack *st = o->sim->stack;
	if (!ioc || !st)
		return NULL;
	struct app_ent *e = NULL;
	if (o->last < o->napps && o->apps[o->last].tgid == ioc->tgid) {
		e = &o->apps[o->last];
	} else {
		for (size_t i = 0; i < o->napps; i++)
			if (o->apps[i].tgid == ioc->tgid) {
				e = &o->apps[i];
				o->last = i;
				break;
			}
	}
	if (e && (e->name || e->ntasks_seen == st->ntasks))
		return e->name;
	if (!e) {
		if (o->napps == o->capapps) {
			size_t cap = o->capapps ? 2 * o->capapps : 16;
			struct app_ent *a = realloc(o->apps, cap * sizeof(*a));
			if (!a) {
				o->nomem = true;
				return NULL;
			}
			o->apps = a;
			o->capapps = cap;
		}
		e = &o->apps[o->napps];
		o->last = o->napps++;
		e->tgid = ioc->tgid;
	}
	e->name = app_scan(st, ioc->tgid);
	e->ntasks_seen = st->ntasks;
	return e->name;
}

static void rows_request(void *ctx, const struct io_request *rq)
{
	struct rows_out *o = ctx;
	const struct io_context *ioc = rq->ioc;
	struct rdb_request q = {
		.queue_ns = rq->t_queue,
		.dispatch_ns = rq->t_dispatch,
		.complete_ns = rq->t_complete,
		.op = rq->flags & REQ_DISCARD			      ? "discard"
		      : rq->nr_sectors == 0 && (rq->flags & REQ_FLUSH) ? "flush"
		      : req_is_write(rq->flags)			      ? "write"
									      : "read",
		.sync = req_is_sync(rq->flags),
		.sector = rq->sector,
		.size_bytes = rq_bytes(rq),
		/* as blk_account_completion classes it for btt */
		.cls = (rq->flags & REQ_FG) || (ioc && ioc->fg) ? "fg" : "bg",
		.pid = ioc ? ioc->tgid : 0,
		.tid = ioc ? ioc->pid : 0,
		.comm = ioc && ioc->comm ? ioc->comm : "kworker",
		.app = app_of(o, ioc),
		.device = o->device,
	};
	if (o->db)
		rdb_add_request(o->db, &q);
	if (o->csv)
		rdb_csv_row(o->csv->f, o->run_id, o->seq, &q);
	o->seq++;
}

static void rows_wait(void *ctx, const struct sim_wait_rec *w)
{
	struct rows_out *o = ctx;
	if (!o->db)
		return;
	struct rdb_wait r = {
		.task = w->task,
		.pid = w->pid,
		.tid = w->tid,
		.cls = w->kernel ? "kernel" : sim_class_names[w->cls],
		.cause = sim_wait_names[w->cause],
		.start_ns = w->start_ns,
		.end_ns = w->start_ns + w->ns,
	};
	rdb_add_wait(o->db, &r);
}

void rows_out_free(struct rows_out *o)
{
	if (!o)
		return;
	if (o->sim->observer == &o->obs)
		o->sim->observer = NULL;
	free(o->apps);
	free(o->run_id);
	free(o);
}

int rows_out_attach(struct sim *s, struct rdb *db, struct rows_csv *csv, const struct rdb_run *r,
		    struct rows_out **out, struct sim_error *err)
{
	*out = NULL;
	struct rows_out *o = calloc(1, sizeof(*o));
	if (!o || !(o->run_id = strdup(r->run_id))) {
		free(o);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	o->sim = s;
	o->db = db;
	o->csv = csv;
	const struct device *dev = s->device;
	o->device = !dev ? NULL : dev->preset && strcmp(dev->preset, "inline") ? dev->preset
									     : dev->ops->name;
	if (db) {
		int rc = rdb_run_begin(db, r, err);
		if (rc) {
			rows_out_free(o);
			return rc;
		}
	}
	o->obs = (struct sim_observer){ .request_done = rows_request, .task_wait = rows_wait,
					.ctx = o };
	s->observer = &o->obs;
	*out = o;
	return 0;
}

int rows_out_finish(struct rows_out *o, const json_t *result, struct sim_error *err)
{
	int rc = 0;
	o->sim->observer = NULL;
	if (o->nomem)
		rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
	if (!rc && o->db)
		rc = rdb_run_end(o->db, result, err);
	if (!rc && o->csv && ferror(o->csv->f))
		rc = sim_errorf(err, SIM_E_IO, "--requests-csv: write error");
	rows_out_free(o);
	return rc;
}
