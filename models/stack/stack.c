/* The upper stack as one object: construction from the scenario's
 * sections (registering with the sched layer the per-task set-up of mm), the stack bios' pool, result JSON
 * (models/stack/stack.h). The models themselves live in models/sched/
 * (task.c, cpu.c), models/mm/, models/fs/ (the file table in vfs.c) and
 * models/stack/ops.c; this file only wires them together.
 *
 * Sections read (each optional, each a map of its module's tunables):
 * cpu, memory, pagecache, pagecache_lock, readahead, writeback, fs,
 * journal, task_profiles, direct (O_DIRECT, models/fs/direct.c); and `fg:` - a uid (foreground from t = 0) or a list of
 * {at, uid} switches (the activity manager's top-app changes).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/device/device.h"
#include "models/stack/stack_int.h"
#include "sim/sim.h"

#define SBIO_SLAB 256u

/* ------------------------------------------------------------- tasks */

/* mm's per-task state of a new task (task_struct's nr_dirtied_pause and
 * the reclaim state). */
static void stack_task_init(struct stack_task *t)
{
	t->mm.nr_dirtied_pause = 32; /* ratelimit_pages (mm/page-writeback.c) */
	mm_reclaim_task_init(&t->mm.rc);
}

/* ------------------------------------------------------- fg timeline */

struct fg_item {
	int64_t at_ns;
	int64_t uid;
};

static const struct cfg_param fg_item_params[] = {
	{ "at", CFG_T_TIME, offsetof(struct fg_item, at_ns), "s", "0", 0, 1e9,
	  "scenario", "when this uid becomes the foreground app", NULL },
	{ "uid", CFG_T_INT, offsetof(struct fg_item, uid), "", NULL, 0, 4294967295.0,
	  "scenario", "the top activity's uid", NULL },
	CFG_PARAM_END,
};

static void fg_event(struct sim *sim, struct sim_event *ev)
{
	struct stack *s = container_of(ev, struct stack, fg_ev);
	while (s->fg_next < s->fg_n && s->fg_tl[s->fg_next].at <= sim_now(sim))
		stack_set_fg_uid(s, s->fg_tl[s->fg_next++].uid);
	if (s->fg_next < s->fg_n)
		sim_at(sim, &s->fg_ev, s->fg_tl[s->fg_next].at);
}

static int fg_parse(struct stack *s, struct cfg_node *fg, struct sim_error *err)
{
	sim_event_init(&s->fg_ev, fg_event);
	if (!fg)
		return 0;
	cfg_mark_used(fg, false);
	if (fg->kind == CFG_SCALAR) {
		int64_t uid;
		if (cfg_parse_int(fg->value, &uid, err) || uid < 0)
			return cfg_errorf(err, fg, "expected a uid or a list of {at, uid}");
		s->fg_uid = (uint32_t)uid;
		return 0;
	}
	if (fg->kind != CFG_SEQ)
		return cfg_errorf(err, fg, "expected a uid or a list of {at, uid}");
	uint32_t n = 0;
	for (struct cfg_node *c = fg->child; c; c = c->next)
		n++;
	s->fg_tl = calloc(n ? n : 1, sizeof(*s->fg_tl));
	if (!s->fg_tl)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int64_t last = 0;
	for (struct cfg_node *c = fg->child; c; c = c->next) {
		if (c->kind != CFG_MAP)
			return cfg_errorf(err, c, "expected {at: TIME, uid: N}");
		cfg_mark_used(c, false);
		struct fg_item it;
		int rc = cfg_apply(fg_item_params, c, &it, err);
		if (rc)
			return rc;
		if (it.at_ns < last)
			return cfg_errorf(err, c, "fg switches must be in time order");
		last = it.at_ns;
		s->fg_tl[s->fg_n].at = it.at_ns;
		s->fg_tl[s->fg_n].uid = (uint32_t)it.uid;
		s->fg_n++;
	}
	/* Switches at t = 0 apply before any task exists. */
	while (s->fg_next < s->fg_n && s->fg_tl[s->fg_next].at <= 0)
		s->fg_uid = s->fg_tl[s->fg_next++].uid;
	if (s->fg_next < s->fg_n)
		sim_at(s->sim, &s->fg_ev, s->fg_tl[s->fg_next].at);
	return 0;
}

bool stack_uid_named_fg(const struct stack *s, uint32_t uid)
{
	if (uid == 0)
		return false;
	if (uid == s->fg_uid)
		return true;
	for (uint32_t i = 0; i < s->fg_n; i++)
		if (s->fg_tl[i].uid == uid)
			return true;
	return false;
}

/* ------------------------------------------------------------ create */

static int section(struct cfg_node *root, const char *key, struct cfg_node **out,
		   struct sim_error *err)
{
	struct cfg_node *n = cfg_get(root, key);
	*out = NULL;
	if (!n)
		return 0;
	if (n->kind != CFG_MAP)
		return cfg_errorf(err, n, "expected a map of %s tunables", key);
	cfg_mark_used(n, false);
	*out = n;
	return 0;
}

static int stack_build(struct sim *sim, struct blk_queue *q, struct cfg_node *root, bool nested,
		       struct stack **out, struct sim_error *err)
{
	*out = NULL;
	if (!q)
		return cfg_errorf(err, root, "the upper stack needs a block queue (name a `scheduler:`)");
	struct stack *s = calloc(1, sizeof(*s));
	if (!s)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	s->sim = sim;
	s->q = q;
	s->nested = nested;
	/* idle before any module init can fail: stack_destroy cancels them */
	sim_event_init(&s->fg_ev, fg_event);
	sim_event_init(&s->wb.periodic, NULL);
	sim_event_init(&s->jn.timer, NULL);
	/* a nested (host) stack's pids stay clear of the run's own on the timeline */
	s->next_pid = nested ? 1000000 : 100;
	/* each submitter sets its bios' end_io (models/sched/task.h) */
	bio_pool_init(&s->bios, sizeof(struct stack_bio), offsetof(struct stack_bio, free_next),
		      SBIO_SLAB);
	/* the per-task set-up above sched, before the first task_new
	 * (models/sched/sched.h) */
	s->task_init = stack_task_init;
	list_init(&s->tasks);
	list_init(&s->files);
	s->fhash = calloc(STACK_FHASH, sizeof(*s->fhash));
	if (!s->fhash) {
		free(s);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	struct cfg_node *n_cpu, *n_mem, *n_pc, *n_lock, *n_ra, *n_wb, *n_fs, *n_jn, *n_tp, *n_dio, *n_lt;
	int rc;
	if ((rc = section(root, "cpu", &n_cpu, err)) || (rc = section(root, "memory", &n_mem, err)) ||
	    (rc = section(root, "pagecache", &n_pc, err)) ||
	    (rc = section(root, "pagecache_lock", &n_lock, err)) ||
	    (rc = section(root, "readahead", &n_ra, err)) ||
	    (rc = section(root, "writeback", &n_wb, err)) || (rc = section(root, "fs", &n_fs, err)) ||
	    (rc = section(root, "journal", &n_jn, err)) ||
	    (rc = section(root, "task_profiles", &n_tp, err)) ||
	    (rc = section(root, "direct", &n_dio, err)) ||
	    (rc = section(root, "latencytop", &n_lt, err)) || (rc = latencytop_init(s, n_lt, err)))
		goto fail;
	s->fs.ops = &ext4_fs_ops;
	if (n_fs && cfg_get(n_fs, "kind")) {
		struct cfg_node *k = cfg_get(n_fs, "kind");
		const char *kind = cfg_get_str(n_fs, "kind");
		cfg_mark_used(k, false);
		s->fs.ops = kind ? fs_kind_find(kind) : NULL;
		if (!s->fs.ops) {
			s->fs.ops = &ext4_fs_ops;
			rc = cfg_errorf(err, k, "unknown file system kind (expected ext4, ext3 or f2fs)");
			goto fail;
		}
	}
	if ((rc = cpu_init(s, n_cpu, err)) || (rc = pagecache_init(s, n_mem, n_pc, err)) ||
	    (rc = pglock_init(s, n_lock, err)) || (rc = readahead_init(s, n_ra, err)) ||
	    (rc = s->fs.ops->init(s, n_fs, n_jn, err)) || (rc = task_profiles_init(s, n_tp, err)) ||
	    (rc = fs_direct_init(s, n_dio, err)))
		goto fail;
	if ((rc = writeback_init(s, n_wb, err)) || (rc = fg_parse(s, cfg_get(root, "fg"), err)))
		goto fail;
	s->pc.kswapd = mm_kswapd_new(s);
	s->fs.meta = stack_file_new(s, "(bdev)", true);
	if (!s->pc.kswapd || !s->fs.meta) {
		rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
		goto fail;
	}
	if (s->pc.mp.cached_bytes > 0) {
		struct stack_file *other = stack_file_new(s, "(other apps)", false);
		if (!other) {
			rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
			goto fail;
		}
		rc = pagecache_prefill(s, other, s->pc.mp.cached_bytes >> STACK_PAGE_SHIFT,
				       PC_WARM_INACTIVE_NEWEST, 0, err);
		if (rc)
			goto fail;
	}
	*out = s;
	if (!nested) {
		sim->cpu_ops = &stack_cpu_ops;
		sim->cpu_ctx = s;
	}
	return 0;
fail:
	stack_destroy(s);
	return rc;
}

int stack_create(struct sim *sim, struct cfg_node *root, struct stack **out, struct sim_error *err)
{
	return stack_build(sim, sim->blk, root, false, out, err);
}

int stack_create_nested(struct sim *sim, struct blk_queue *q, struct cfg_node *root,
			struct stack **out, struct sim_error *err)
{
	return stack_build(sim, q, root, true, out, err);
}

void stack_destroy(struct stack *s)
{
	if (!s)
		return;
	if (s->sim && s->sim->cpu_ctx == s) {
		s->sim->cpu_ops = NULL;
		s->sim->cpu_ctx = NULL;
	}
	struct list_head *pos, *tmp;
	list_for_each_safe(pos, tmp, &s->tasks) {
		struct stack_task *t = list_entry(pos, struct stack_task, all_node);
		/* a run stopped early can leave a task asleep in get_request:
		 * leave the block layer's wait list before the task goes */
		if (!list_empty(&t->waiter.node))
			list_del_init(&t->waiter.node);
		task_free(t);
	}
	if (s->fs.ops)
		s->fs.ops->free(s); /* before the files: it frees their fs_priv */
	list_for_each_safe(pos, tmp, &s->files) {
		struct stack_file *f = list_entry(pos, struct stack_file, all_node);
		free(f->name);
		free(f->ei.ext);
		pc_index_free(&f->mapping.pages);
		free(f);
	}
	if (s->sim)
		sim_cancel(s->sim, &s->fg_ev);
	writeback_free(s);
	pagecache_free(s);
	cpu_free(s);
	bio_pool_destroy(&s->bios);
	free(s->fhash);
	free(s->fg_tl);
	free(s->tp);
	free(s);
}

struct stack_hooks *stack_hooks(struct stack *s)
{
	return &s->hooks;
}

struct stack_task *stack_journal_task(struct stack *s)
{
	return s->jn.p.enabled ? s->jn.jbd2 : NULL;
}

bool stack_journal_fg_waiting(const struct stack *s)
{
	const struct list_head *pos;
	list_for_each(pos, &s->jn.waiters) {
		const struct stack_task *t = list_entry(pos, struct stack_task, jwait_node);
		if (t->ioc.fg)
			return true;
	}
	return false;
}

struct io_context *stack_journal_ioc(struct stack *s)
{
	return s->jn.jbd2 ? &s->jn.jbd2->ioc : NULL;
}

struct io_context *stack_flusher_ioc(struct stack *s)
{
	return s->wb.flusher ? &s->wb.flusher->ioc : NULL;
}

/* -------------------------------------------------------------- JSON */

struct json_t *stack_to_json(const struct stack *s)
{
	return pagecache_to_json(s);
}

/* fio-style numbers of one task over its life (start to exit, or to now). */
static json_t *task_io_json(const struct stack *s, const struct stack_task *t)
{
	int64_t end = t->state == TS_EXITED ? t->exit_ns : sim_now(s->sim);
	int64_t runtime = end > t->start_ns ? end - t->start_ns : 0;
	json_t *o = json_object();
	for (int op = 0; op < SIM_NOP; op++) {
		const struct task_iostat *io = &t->io[op];
		json_t *d = json_object(), *clat = json_object();
		json_object_set_new(clat, "N", json_integer((json_int_t)io->count));
		json_object_set_new(clat, "min", json_integer(io->count ? io->lat_min : 0));
		json_object_set_new(clat, "max", json_integer(io->lat_max));
		json_object_set_new(clat, "mean",
				    json_real(io->count ? io->lat_sum / (double)io->count : 0));
		json_object_set_new(d, "count", json_integer((json_int_t)io->count));
		json_object_set_new(d, "bytes", json_integer((json_int_t)io->bytes));
		json_object_set_new(d, "clat_ns", clat);
		sim_metrics_fio_keys(d, io->count, io->bytes, runtime);
		json_object_set_new(o, sim_op_names[op], d);
	}
	return o;
}

struct json_t *stack_stats_json(const struct stack *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "fg_uid", json_integer(s->fg_uid));
	json_object_set_new(o, "cpu", cpu_to_json(&s->cpu));
	json_object_set_new(o, "writeback", writeback_to_json(s));
	if (s->fs.ops == &ext4_fs_ops || s->fs.ops == &ext3_fs_ops)
		json_object_set_new(o, "journal", journal_to_json(s));
	json_object_set_new(o, "fs", s->fs.ops->to_json(s));
	json_object_set_new(o, "task_profiles", task_profiles_to_json(s));
	json_t *lt = latencytop_to_json(s); /* only with latencytop.enabled */
	if (lt)
		json_object_set_new(o, "latencytop", lt);
	json_t *dio = fs_direct_to_json(s); /* only when a direct op was issued */
	if (dio)
		json_object_set_new(o, "direct", dio);
	json_t *tasks = json_array();
	struct list_head *pos;
	list_for_each(pos, &s->tasks) {
		const struct stack_task *t = list_entry(pos, struct stack_task, all_node);
		json_t *j = json_object();
		json_object_set_new(j, "name", json_string(t->name));
		json_object_set_new(j, "kind", json_string(t->kind));
		json_object_set_new(j, "pid", json_integer(t->ioc.pid));
		json_object_set_new(j, "uid", json_integer(t->uid));
		json_object_set_new(j, "ioprio_class", json_integer(t->ioc.ioprio_class));
		json_object_set_new(j, "ioprio_level", json_integer(t->ioc.ioprio_level));
		json_object_set_new(j, "blkcg", json_integer(t->ioc.blkcg_id));
		json_object_set_new(j, "ops", json_integer((json_int_t)t->ops_done));
		json_object_set_new(j, "bytes_read", json_integer((json_int_t)t->bytes_read));
		json_object_set_new(j, "bytes_written", json_integer((json_int_t)t->bytes_written));
		if (t->dio_einval)
			json_object_set_new(j, "direct_einval", json_integer((json_int_t)t->dio_einval));
		if (!t->kthread) {
			json_object_set_new(j, "start_ns", json_integer(t->start_ns));
			/* null until it exits: the key is there before the run, so a
			 * sweep can check a metric path against it (sim/cli/sweep_check.c) */
			json_object_set_new(j, "exit_ns", t->state == TS_EXITED
								  ? json_integer(t->exit_ns)
								  : json_null());
		}
		json_t *w = json_object();
		for (int c = 0; c < SIM_NWAIT; c++)
			if (t->wait_total[c] > 0)
				json_object_set_new(w, sim_wait_names[c], json_integer(t->wait_total[c]));
		json_object_set_new(j, "wait_ns", w);
		if (!t->kthread)
			json_object_set_new(j, "io", task_io_json(s, t));
		json_array_append_new(tasks, j);
	}
	json_object_set_new(o, "tasks", tasks);
	return o;
}

json_t *stack_op_counts_json(const uint64_t by_kind[STACK_NOPKIND])
{
	json_t *ops = json_object();
	for (int k = 0; k < STACK_NOPKIND; k++)
		if (by_kind[k])
			json_object_set_new(ops, stack_op_names[k], json_integer((json_int_t)by_kind[k]));
	return ops;
}

void stack_energy_now(const struct stack *s, double *device_j, double *cpu_j)
{
	int64_t now = sim_now(s->sim);
	*device_j = 0;
	if (s->sim->device) {
		struct device_energy_total d;
		device_energy_at(&s->sim->device->energy, now, &d);
		*device_j = device_energy_total_j(&d);
	}
	struct cpu_energy_total c;
	cpu_energy_at(&s->cpu, now, &c);
	*cpu_j = c.active_j + c.idle_j;
}
