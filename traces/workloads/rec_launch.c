/* The `recorded` generator: an app launch replayed from a recorded cold
 * start (rec_launch.h) instead of an assumed template. The recording's
 * app threads become one process of as many tasks; each runs the op list
 * traces/workloads/launch_build.c made of its recorded requests (FETCH as
 * STACK_OP_WILLNEED of exactly the recorded range, WAIT as a read() of it
 * that waits for the pages, OPEN at a thread's first touch of a file) and
 * the recorded CPU time between them. The main thread opens the launch
 * region, spawns the other threads where the recording places their first
 * requests, and closes the region when all have finished.
 *
 * Launch planners (prefetch, padding) hear of the launch through the main
 * thread and profile its I/O only, as for the `app` generator.
 */
#include "traces/workloads/rec_launch.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/stack/stack.h"
#include "sim/sim.h"
#include "traces/trace.h"
#include "traces/workloads/launch_build.h"
#include "traces/workloads/replay_common.h"

#define RL_MAX_RECORDINGS 16

struct rec_p {
	const char *comm;
	int64_t sel_pid;
	int64_t main_tid;
	uint64_t file_gap_bytes;
	double file_extra;
	double cpu_jitter;
	double variation;
	int64_t launch_no;
};

#define RO(f) offsetof(struct rec_p, f)
static const struct cfg_param rec_params[] = {
	{ "comm", CFG_T_STRING, RO(comm), "", "", CFG_NO_RANGE, "scenario",
	  "the app's threads in the trace: a POSIX extended regex on the recorded comm (a "
	  "thread's own name in blktrace)", NULL },
	{ "select_pid", CFG_T_INT, RO(sel_pid), "", "0", 0, 4194304, "scenario",
	  "also (or instead) the requests of this recorded pid", NULL },
	{ "main_tid", CFG_T_INT, RO(main_tid), "", "0", 0, 4194304, "scenario",
	  "the recorded thread that is the main thread (0: the thread of the first request)", NULL },
	{ "file_gap", CFG_T_SIZE, RO(file_gap_bytes), "KiB", "256KiB", 0, 1048576,
	  "assumed: a block trace names no files; reads closer than this on the disk are taken "
	  "as one file (range 0-1 MiB)",
	  "reads closer than this on the recorded disk form one file", NULL },
	{ "file_extra", CFG_T_DOUBLE, RO(file_extra), "", "1", 0, 100,
	  "assumed: the untouched part of a file another launch may read (range 0-4)",
	  "each file is this much larger than its recorded span", NULL },
	{ "cpu_jitter", CFG_T_DOUBLE, RO(cpu_jitter), "", "0", 0, 1,
	  "assumed launch-to-launch variation (range 0-0.2): every recorded CPU gap scaled by "
	  "1 + U(-j, j), drawn per launch_no", "relative jitter of the recorded CPU gaps", NULL },
	{ "variation", CFG_T_DOUBLE, RO(variation), "", "0", 0, 1,
	  "assumed launch-to-launch variation (range 0-0.2; FAST'11: launch sequences are nearly, "
	  "not exactly, the same)",
	  "fraction of the recorded reads that touch another place of their file, drawn per "
	  "launch_no", NULL },
	{ "launch_no", CFG_T_INT, RO(launch_no), "", "1", 1, 1e9, "scenario",
	  "which launch of the app this is: its variation comes from stream "
	  "workload.KEY.launchN; with a list of recordings, launch N replays recording "
	  "(N - 1) mod the list's length", NULL },
	CFG_PARAM_END,
};

struct rl_thread {
	struct rec_launch *app;
	struct stack_task *t;
	const struct lb_tplan *plan;
	size_t i;
	bool started, exited, waiting, fg_done, began, ended;
	char name[64];
	uint64_t by_kind[STACK_NOPKIND];
};

struct rec_launch {
	struct sim *sim;
	struct rec_p p;
	struct app_launch_id id;
	char *region;
	char path[RL_MAX_RECORDINGS][4096];
	struct lb_recording rec[RL_MAX_RECORDINGS];
	size_t nrec, used;
	struct lb_plan plan;
	struct stack_file **files;
	struct rl_thread *th;
	size_t nth;
};

static void rl_op(struct stack_op *op, enum stack_op_kind k, struct stack_file *f, uint64_t off,
		  uint64_t len)
{
	memset(op, 0, sizeof(*op));
	op->kind = k;
	op->file = f;
	op->off = off;
	op->len = len;
}

static int rl_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	struct rl_thread *th = ctx;
	struct rec_launch *a = th->app;
	(void)t;
	bool is_main = th == &a->th[0];
	if (is_main && a->id.become_fg && !th->fg_done) {
		th->fg_done = true;
		rl_op(op, STACK_OP_FG, NULL, 0, a->id.uid);
		return 1;
	}
	if (is_main && !th->began) {
		th->began = true;
		if (a->region) {
			rl_op(op, STACK_OP_BEGIN, NULL, 0, 0);
			op->name = a->region;
			return 1;
		}
	}
	while (th->i < th->plan->n) {
		const struct lb_op *o = &th->plan->v[th->i];
		switch (o->kind) {
		case LB_SPAWN: {
			struct rl_thread *c = &a->th[o->arg];
			if (!c->started) {
				c->started = true;
				stack_task_start(c->t, sim_now(a->sim));
			}
			th->i++;
			continue;
		}
		case LB_JOIN:
			for (size_t k = 1; k < a->nth; k++)
				if (!a->th[k].exited) {
					th->waiting = true;
					return -1;
				}
			th->i++;
			continue;
		case LB_CPU:
			rl_op(op, STACK_OP_CPU, NULL, 0, 0);
			op->ns = o->ns;
			break;
		case LB_OPEN:
			rl_op(op, STACK_OP_OPEN, a->files[o->file], 0, 0);
			break;
		case LB_FETCH:
			rl_op(op, STACK_OP_WILLNEED, a->files[o->file], o->off, o->len);
			break;
		default: /* LB_WAIT */
			rl_op(op, STACK_OP_READ, a->files[o->file], o->off, o->len);
			break;
		}
		th->by_kind[op->kind]++;
		th->i++;
		if (op->kind == STACK_OP_CPU && op->ns <= 0)
			continue;
		return 1;
	}
	if (is_main && a->region && !th->ended) {
		th->ended = true;
		rl_op(op, STACK_OP_END, NULL, 0, 0);
		op->name = a->region;
		return 1;
	}
	return 0;
}

static void rl_exited(struct stack_task *t, void *ctx)
{
	struct rl_thread *th = ctx;
	struct rec_launch *a = th->app;
	(void)t;
	th->exited = true;
	if (a->th[0].waiting && !a->th[0].exited) {
		a->th[0].waiting = false;
		stack_task_kick(a->th[0].t);
	}
}

/* The selection rules of n as the trace filter's (traces/tracefilter.c). */
static int rl_select(struct rec_launch *a, struct cfg_node *n, struct trace_fg **sel,
		     struct sim_error *err)
{
	struct sim_error sub;
	char v[32];
	if (a->p.comm[0] && trace_keep_add(sel, "comm", a->p.comm, "comm", &sub))
		return cfg_errorf(err, cfg_get(n, "comm"), "%s", sub.msg);
	if (a->p.sel_pid) {
		snprintf(v, sizeof(v), "%lld", (long long)a->p.sel_pid);
		if (trace_keep_add(sel, "pid", v, "select_pid", &sub))
			return cfg_errorf(err, cfg_get(n, "select_pid"), "%s", sub.msg);
	}
	if (!*sel)
		return cfg_errorf(err, n, "a recorded launch needs `comm:` (a regex on the app's "
				  "threads' names) or `select_pid:` to pick the app out of the trace");
	return 0;
}

int rec_launch_create(struct sim *sim, struct stack *s, struct cfg_node *n,
		      const struct app_launch_id *id, struct rec_launch **out,
		      struct sim_error *err)
{
	*out = NULL;
	struct rec_launch *a = calloc(1, sizeof(*a));
	if (!a)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	*out = a;
	a->sim = sim;
	a->id = *id;
	int rc = cfg_apply(rec_params, n, &a->p, err);
	if (rc)
		return rc;
	if (id->region && id->region[0]) {
		a->region = strdup(id->region);
		if (!a->region)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	/* `trace`: the recorded cold start, or a list of recordings of
	 * repeated cold starts of the app (not in the tunables table: a
	 * string or a sequence) */
	struct cfg_node *tn = cfg_get(n, "trace");
	if (!tn)
		return cfg_errorf(err, n, "a recorded launch needs `trace:`, the recorded cold start "
				  "(a block trace with completions), or a list of recordings of "
				  "repeated cold starts");
	cfg_mark_used(tn, true);
	struct cfg_node *items = tn->kind == CFG_SEQ ? tn->child : tn;
	for (struct cfg_node *c = items; c; c = tn->kind == CFG_SEQ ? c->next : NULL) {
		if (c->kind != CFG_SCALAR || !c->value || !c->value[0])
			return cfg_errorf(err, c, "expected a trace path");
		if (a->nrec == RL_MAX_RECORDINGS)
			return cfg_errorf(err, c, "at most %d recordings", RL_MAX_RECORDINGS);
		rc = rpc_resolve_path(c->value, c, a->path[a->nrec], sizeof(a->path[0]), err);
		if (rc)
			return rc;
		a->nrec++;
	}
	if (a->nrec == 0)
		return cfg_errorf(err, tn, "expected a trace path or a list of them");
	struct trace_fg *sel = NULL;
	rc = rl_select(a, n, &sel, err);
	for (size_t k = 0; !rc && k < a->nrec; k++)
		rc = lb_read_trace(a->path[k], sel, &a->rec[k], err);
	trace_fg_free(sel);
	if (rc)
		return rc;
	a->used = (size_t)(a->p.launch_no - 1) % a->nrec;
	gsl_rng *var = NULL;
	if (a->p.variation > 0 || a->p.cpu_jitter > 0) {
		char name[300];
		snprintf(name, sizeof(name), "workload.%s.launch%lld", id->key,
			 (long long)a->p.launch_no);
		var = sim_rng(sim, name);
	}
	struct lb_params bp = {
		.file_gap_bytes = a->p.file_gap_bytes,
		.file_extra = a->p.file_extra,
		.cpu_jitter = a->p.cpu_jitter,
		.variation = a->p.variation,
		.main_tid = (int32_t)a->p.main_tid,
	};
	const struct lb_recording *recs[RL_MAX_RECORDINGS];
	for (size_t k = 0; k < a->nrec; k++)
		recs[k] = &a->rec[k];
	rc = lb_build_set(recs, a->nrec, a->used, &bp, var, &a->plan, err);
	if (rc) {
		if (rc == SIM_E_INPUT) {
			char msg[SIM_ERRMSG_MAX];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			return cfg_errorf(err, cfg_get(n, "main_tid"), "%s", msg);
		}
		return rc;
	}
	a->files = calloc(a->plan.nfiles, sizeof(*a->files));
	a->nth = a->plan.nth;
	a->th = calloc(a->nth, sizeof(*a->th));
	if (!a->files || !a->th)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	for (size_t i = 0; i < a->plan.nfiles; i++) {
		char name[300];
		snprintf(name, sizeof(name), "%s/rf%zu", id->key, i);
		a->files[i] = stack_file_get(s, name, a->plan.files[i].size_bytes, err);
		if (!a->files[i])
			return err->code;
	}
	/* threads of one process: the main thread's pid is the tgid, the
	 * others get the following thread ids (as in app_launch.c) */
	int32_t pid = id->pid;
	for (size_t k = 0; k < a->nth; k++) {
		struct rl_thread *th = &a->th[k];
		th->app = a;
		th->plan = &a->plan.th[k];
		if (k == 0)
			snprintf(th->name, sizeof(th->name), "%s",
				 id->comm && id->comm[0] ? id->comm : id->key);
		else
			snprintf(th->name, sizeof(th->name), "%s", th->plan->comm);
		struct stack_task_attr at = {
			.name = th->name,
			.pid = pid,
			.tid = k == 0 || pid <= 0 ? 0 : pid + (int32_t)k,
			.uid = id->uid,
			.ioprio_class = id->ioprio_class,
			.ioprio_level = id->ioprio_level,
		};
		struct stack_op_source src = { .next = rl_next, .exited = rl_exited, .ctx = th };
		th->t = stack_task_create(s, &at, &src, err);
		if (!th->t)
			return err->code;
		if (k == 0)
			pid = stack_task_pid(th->t);
	}
	return 0;
}

void rec_launch_start(struct rec_launch *a, int64_t at_ns)
{
	a->th[0].started = true;
	stack_task_start(a->th[0].t, at_ns);
}

bool rec_launch_done(const struct rec_launch *a)
{
	for (size_t k = 0; k < a->nth; k++)
		if (a->th[k].started && !a->th[k].exited)
			return false;
	return a->th[0].exited;
}

struct stack_task *rec_launch_main(struct rec_launch *a)
{
	return a->th[0].t;
}

void rec_launch_stats_json(const struct rec_launch *a, json_t *obj)
{
	json_t *r = json_object();
	const struct lb_recording *rec = &a->rec[a->used];
	json_object_set_new(r, "trace", json_string(a->path[a->used]));
	json_object_set_new(r, "recordings", json_integer((json_int_t)a->nrec));
	json_object_set_new(r, "launch_no", json_integer(a->p.launch_no));
	json_object_set_new(r, "reads", json_integer((json_int_t)rec->n));
	json_object_set_new(r, "reads_without_completion", json_integer((json_int_t)rec->uncompleted));
	json_object_set_new(r, "writes_not_replayed", json_integer((json_int_t)rec->writes));
	json_object_set_new(r, "files", json_integer((json_int_t)a->plan.nfiles));
	json_object_set_new(r, "reads_moved", json_integer((json_int_t)a->plan.moved));
	json_object_set_new(r, "recorded_span_ns", json_integer(a->plan.span_ns));
	json_object_set_new(obj, "recording", r);
	json_t *arr = json_array();
	for (size_t k = 0; k < a->nth; k++) {
		const struct rl_thread *th = &a->th[k];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(th->name));
		json_object_set_new(o, "role", json_string(k == 0 ? "main" : "thread"));
		json_object_set_new(o, "recorded_tid", json_integer(th->plan->tid));
		if (th->t)
			json_object_set_new(o, "tid", json_integer(stack_task_pid(th->t)));
		json_object_set_new(o, "reads", json_integer((json_int_t)th->plan->reads));
		json_object_set_new(o, "read_bytes", json_integer((json_int_t)th->plan->read_bytes));
		json_object_set_new(o, "batches", json_integer((json_int_t)th->plan->batches));
		json_object_set_new(o, "cpu_ns", json_integer(th->plan->cpu_ns));
		json_object_set_new(o, "ops", stack_op_counts_json(th->by_kind));
		json_array_append_new(arr, o);
	}
	json_object_set_new(obj, "threads", arr);
}

void rec_launch_destroy(struct rec_launch *a)
{
	if (!a)
		return;
	lb_plan_free(&a->plan);
	for (size_t k = 0; k < a->nrec; k++)
		lb_recording_free(&a->rec[k]);
	free(a->files);
	free(a->th);
	free(a->region);
	free(a);
}
