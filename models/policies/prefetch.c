/* prefetch: FAST, the launch prefetcher of Joo, Ryu, Park and Shin
 * (USENIX FAST 2011) with the launch-sequence optimisations of Joo's 2013
 * dissertation (docs/papers.md §2; docs/references.md §4.5).
 *
 * A cold launch issues the same block requests every time. FAST profiles
 * one launch with blktrace, maps each LBA back to (file, offset) with a
 * per-app LBA-to-inode red-black tree, and at the next launch runs a
 * prefetcher - a user-level thread of the app's uid - that issues the
 * whole sequence with posix_fadvise(WILLNEED) while the app computes, so
 * the launch tends to max(t_io, t_cpu) instead of their sum.
 *
 * In mobisim, two runs of the CLI:
 *   mode: record  the profiling run: the launch's read requests (block
 *                 trace point D of the app's pid, the simulated blktrace) are
 *                 mapped through the tree of the files the app opens and
 *                 saved to `profile` (TSV, atomic) when the launch ends.
 *   mode: replay  the measured run: at launch start the profile is turned
 *                 into the prefetch sequence (models/launch/pfplan.c: sort by LBA,
 *                 merge, gap filling below gap_kib, metadata shifted before
 *                 the data it locates) and a prefetch task with the app's
 *                 uid opens each file and issues WILLNEED for each extent,
 *                 inside one plug (blk_start_plug/blk_finish_plug around the
 *                 batch; the plug still flushes at 16 requests and whenever
 *                 the thread sleeps). The app's own reads and faults then
 *                 hit the page cache or wait on the page in flight.
 * level: user is FAST'11's prefetcher as above, started by its execve
 * wrapper (spawn_us after the exec), paying a system call per fadvise and
 * per open (syscall_us, open_us, page_probe_ns per page probed); its open()
 * of a file waits for the inode block, so a cold inode splits the batch.
 * level: kernel is the dissertation's in-kernel prefetcher: the same plan
 * issued from inside the kernel at exec, with no system call, no open (the
 * inode blocks are in the plan as metadata extents) and no probe cost
 * (models/launch/pflevel.c). Both run as a thread of the app's uid at the
 * same CPU and I/O priority.
 * One profile file holds every app of a scenario (keyed by task name).
 * Two phases in one simulation would need an app to launch twice with a
 * dropped cache in between, which the workloads do not describe; two
 * invocations are also what FAST did (a learning launch, then launches
 * with the generated prefetcher).
 *
 * Figures per app: launch requests and bytes of the app and of the
 * prefetcher (average I/O size), pages the app touched that were in the
 * prefetch set (hits: ready, still in flight, or gone by then) or not
 * (misses), and prefetched pages the app never touched (unused).
 * Left out: the syscall profiler and launch detection (the workload says
 * when an app launches), exploiting several cores with several prefetch
 * threads, and prefetching through an SSD's internal parallelism beyond
 * what the device model does with the requests it is given.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/policies/launch_common.h"
#include "models/launch/launchprof.h"
#include "models/launch/launchrec.h"
#include "models/launch/pflevel.h"
#include "models/launch/pfplan.h"
#include "models/policies/policy.h"
#include "models/stack/stack.h"
#include "sim/rbtree.h"
#include "sim/sim.h"

enum pf_mode { PF_RECORD = 0, PF_REPLAY };
static const char *const pf_mode_names[] = { "record", "replay", NULL };
static const char *const pf_level_names[] = { "user", "kernel", NULL };

struct pf_params {
	const char *profile;
	int mode;
	uint64_t gap_bytes;
	uint64_t max_bytes;
	bool shift_meta;
	bool plug;
	bool open_files;
	int level; /* enum pflevel */
	struct pflevel_costs cost;
};

/* A page of the app's working set, for the hit/miss figures. */
enum { PFP_PREFETCHED = 1, PFP_TOUCHED = 2 };
struct pf_page {
	struct rb_node rb;
	struct stack_file *file;
	uint64_t index;
	uint8_t flags;
};

/* kinds of the prefetcher's struct lcom_step */
enum pf_step_kind { PFS_PLUG, PFS_UNPLUG, PFS_OPEN, PFS_WILLNEED, PFS_CPU };

struct pf_app {
	struct prefetch *pf;
	char *name;
	const char *region;
	struct stack_task *task;
	struct stack_op_source orig;
	struct lrec_app *obs;
	bool done;
	/* replay */
	struct lcom_step *steps;
	size_t nsteps, cur;
	struct stack_task *helper;
	int64_t helper_start_ns, helper_end_ns;
	struct pfplan_stats plan;
	/* the issuing thread's work at its level: system calls, CPU, opens */
	uint64_t calls, files_opened;
	int64_t cpu_ns, start_delay_ns;
	struct rb_root pages;
	uint64_t prefetched_pages;
	/* first touches; hit_gone: prefetched but not in the cache at the
	 * first touch (not issued yet, or evicted) */
	uint64_t touched, hit_ready, hit_inflight, hit_gone, miss;
	struct pf_app *next;
};

struct prefetch {
	struct pf_params p;
	struct sim *sim;
	struct lprof prof;
	bool loaded;
	struct lrec rec;
	struct pf_app *apps, *tail;
	uint64_t launches, no_profile;
};

/* ---------------------------------------------------------- page set */

static struct pf_page *page_get(struct pf_app *a, struct stack_file *f, uint64_t index,
				bool create)
{
	struct rb_node **link = &a->pages.node, *parent = NULL;
	while (*link) {
		parent = *link;
		struct pf_page *x = rb_entry(parent, struct pf_page, rb);
		int c = f != x->file ? ((uintptr_t)f < (uintptr_t)x->file ? -1 : 1)
				     : index < x->index ? -1 : index > x->index ? 1 : 0;
		if (c == 0)
			return x;
		link = c < 0 ? &parent->left : &parent->right;
	}
	if (!create)
		return NULL;
	struct pf_page *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->file = f;
	x->index = index;
	rb_link_node(&x->rb, parent, link);
	rb_insert_color(&x->rb, &a->pages);
	return x;
}

static void pages_free(struct pf_app *a)
{
	struct rb_node *n;
	while ((n = a->pages.node) != NULL) {
		rb_erase(n, &a->pages);
		free(rb_entry(n, struct pf_page, rb));
	}
}

/* The app touches [off, off+len) of f (read or fault), as its op is
 * fetched: count first touches by whether the prefetcher had them. */
static void note_touch(struct pf_app *a, struct stack_file *f, uint64_t off, uint64_t len)
{
	if (!f || stack_file_is_blockdev(f) || a->nsteps == 0)
		return;
	uint64_t size = stack_file_size(f);
	uint64_t end = off + (len ? len : 1);
	if (end > size)
		end = size;
	for (uint64_t i = off >> 12; (i << 12) < end; i++) {
		struct pf_page *pg = page_get(a, f, i, true);
		if (!pg) {
			sim_fail(a->pf->sim, SIM_E_NOMEM, "out of memory");
			return;
		}
		if (pg->flags & PFP_TOUCHED)
			continue;
		pg->flags |= PFP_TOUCHED;
		a->touched++;
		if (!(pg->flags & PFP_PREFETCHED)) {
			a->miss++;
			continue;
		}
		switch (stack_file_page_state(f, i)) {
		case STACK_PAGE_UPTODATE: a->hit_ready++; break;
		case STACK_PAGE_INFLIGHT: a->hit_inflight++; break;
		default: a->hit_gone++; break;
		}
	}
}

/* ------------------------------------------------------- interposer */

static void app_finish(struct pf_app *a)
{
	if (a->done)
		return;
	a->done = true;
	struct prefetch *pf = a->pf;
	lcom_finish(a->obs, pf->p.mode == PF_RECORD, &pf->prof, pf->p.profile, pf->sim, "prefetch");
}

static int app_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	struct pf_app *a = ctx;
	int r = a->orig.next(t, op, a->orig.ctx);
	if (r != 1 || a->done) {
		if (r == 0)
			app_finish(a);
		return r;
	}
	if (lcom_observe(a->obs, op, a->region, a->pf->sim))
		app_finish(a);
	if (op->kind == STACK_OP_READ || op->kind == STACK_OP_FAULT)
		note_touch(a, op->file, op->off, op->kind == STACK_OP_FAULT ? 4096 : op->len);
	return r;
}

static void app_exited(struct stack_task *t, void *ctx)
{
	struct pf_app *a = ctx;
	app_finish(a);
	if (a->orig.exited)
		a->orig.exited(t, a->orig.ctx);
}

/* ------------------------------------------------------- prefetcher */

static int helper_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	struct pf_app *a = ctx;
	(void)t;
	if (a->cur == 0)
		a->helper_start_ns = sim_now(a->pf->sim);
	if (a->cur >= a->nsteps)
		return 0;
	const struct lcom_step *s = &a->steps[a->cur++];
	memset(op, 0, sizeof(*op));
	switch (s->kind) {
	case PFS_PLUG: op->kind = STACK_OP_PLUG; break;
	case PFS_UNPLUG: op->kind = STACK_OP_UNPLUG; break;
	case PFS_OPEN: op->kind = STACK_OP_OPEN; break;
	case PFS_CPU:
		op->kind = STACK_OP_CPU;
		op->ns = (int64_t)s->len;
		return 1;
	default: op->kind = STACK_OP_WILLNEED; break;
	}
	op->file = s->file;
	op->off = s->off;
	op->len = s->len;
	return 1;
}

static void helper_exited(struct stack_task *t, void *ctx)
{
	struct pf_app *a = ctx;
	(void)t;
	a->helper_end_ns = sim_now(a->pf->sim);
}

static int step_push(struct pf_app *a, size_t *cap, const struct lcom_step *s)
{
	return lcom_step_push(&a->steps, &a->nsteps, cap, s);
}

/* The issuing thread's CPU before its next step (none when 0). */
static int cpu_push(struct pf_app *a, size_t *cap, int64_t ns)
{
	if (ns <= 0)
		return 0;
	a->cpu_ns += ns;
	return step_push(a, cap, &(struct lcom_step){ .kind = PFS_CPU, .len = (uint64_t)ns });
}

/* Turn the app's profile into the prefetcher's op list. */
static int build_plan(struct prefetch *pf, struct pf_app *a, const struct lprof_app *pa,
		      struct sim_error *err)
{
	struct stack *s = pf->sim->stack;
	struct stack_file *bdev = stack_file_find(s, "(bdev)");
	struct pfplan_ext *in = calloc(pa->n ? pa->n : 1, sizeof(*in));
	struct lprof_map map;
	lprof_map_init(&map);
	if (!in)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	for (size_t i = 0; i < pa->n; i++) {
		const struct lprof_piece *p = &pa->p[i];
		in[i].lba = p->lba;
		in[i].sectors = p->len >> SECTOR_SHIFT;
		in[i].kind = p->kind == LPROF_META ? PFPLAN_META : PFPLAN_DATA;
		in[i].dep_lba = UINT64_MAX;
		if (!stack_file_is_blockdev(p->file)) {
			in[i].dep_lba = stack_file_inode_lba(p->file);
			if (lprof_map_add_file(&map, p->file)) {
				free(in);
				lprof_map_free(&map);
				return sim_errorf(err, SIM_E_NOMEM, "out of memory");
			}
		}
	}
	struct pfplan_opts o = { .gap_sectors = pf->p.gap_bytes >> SECTOR_SHIFT,
				 .max_sectors = pf->p.max_bytes >> SECTOR_SHIFT,
				 .shift_meta = pf->p.shift_meta };
	struct pfplan_ext *out = NULL;
	size_t nout = 0;
	int rc = pfplan_build(in, pa->n, &o, &out, &nout, &a->plan);
	free(in);
	if (rc) {
		lprof_map_free(&map);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	size_t cap = 0;
	enum pflevel lv = (enum pflevel)pf->p.level;
	rc = 0;
	if (pf->p.plug)
		rc = step_push(a, &cap, &(struct lcom_step){ .kind = PFS_PLUG });
	/* files opened by the prefetcher, in first-use order */
	struct lprof_map opened;
	lprof_map_init(&opened);
	for (size_t k = 0; k < nout && !rc; k++) {
		uint64_t lba = out[k].lba, end = out[k].lba + out[k].sectors;
		while (lba < end && !rc) {
			struct stack_file *f = NULL;
			uint64_t off = 0, run = 0, next = UINT64_MAX, n;
			if (out[k].kind == PFPLAN_DATA && lprof_map_lookup(&map, lba, &f, &off, &run, &next)) {
				n = run < end - lba ? run : end - lba;
				if (pf->p.open_files && pflevel_opens_files(lv) &&
				    !lprof_map_has_file(&opened, f)) {
					rc = lprof_map_add_file(&opened, f);
					if (!rc)
						rc = cpu_push(a, &cap, pflevel_open_ns(lv, &pf->p.cost));
					if (!rc)
						rc = step_push(a, &cap,
							       &(struct lcom_step){ .kind = PFS_OPEN, .file = f });
					a->files_opened++;
					a->calls += pflevel_open_calls(lv);
				}
			} else {
				n = (out[k].kind == PFPLAN_DATA && next < end ? next : end) - lba;
				f = bdev;
				off = lba << SECTOR_SHIFT;
			}
			if (!rc)
				rc = cpu_push(a, &cap,
					      pflevel_extent_ns(lv, &pf->p.cost,
								((n << SECTOR_SHIFT) + 4095) >> 12));
			a->calls += pflevel_extent_calls(lv);
			if (!rc)
				rc = step_push(a, &cap,
					       &(struct lcom_step){ .kind = PFS_WILLNEED, .file = f, .off = off,
								  .len = n << SECTOR_SHIFT });
			if (!rc && !stack_file_is_blockdev(f)) {
				for (uint64_t i = off >> 12; i < (off + (n << SECTOR_SHIFT) + 4095) >> 12; i++) {
					struct pf_page *pg = page_get(a, f, i, true);
					if (!pg) {
						rc = SIM_E_NOMEM;
						break;
					}
					if (!(pg->flags & PFP_PREFETCHED))
						a->prefetched_pages++;
					pg->flags |= PFP_PREFETCHED;
				}
			}
			lba += n;
		}
	}
	if (!rc && pf->p.plug)
		rc = step_push(a, &cap, &(struct lcom_step){ .kind = PFS_UNPLUG });
	free(out);
	lprof_map_free(&opened);
	lprof_map_free(&map);
	if (rc)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	return 0;
}

/* -------------------------------------------------------------- hooks */

static int prefetch_init(struct policy *p, struct sim *sim, struct sim_error *err)
{
	struct prefetch *pf = p->priv;
	pf->sim = sim;
	if (!pf->p.profile || !pf->p.profile[0])
		return cfg_errorf(err, p->node ? p->node : cfg_root(sim->doc),
				  "prefetch.profile: a profile path is needed (record writes it, "
				  "replay reads it)");
	lrec_init(&pf->rec, sim, &pf->prof);
	return 0;
}

static int prefetch_before_launch(struct policy *p, const struct policy_app *app,
				  struct sim_error *err)
{
	struct prefetch *pf = p->priv;
	struct sim *sim = pf->sim;
	if (!app->task || !sim->stack || !sim->blk)
		return 0; /* nothing to prefetch into */
	if (pf->p.mode == PF_REPLAY) {
		int rc = lcom_load_profile(&pf->prof, &pf->loaded, pf->p.profile, sim->stack, "prefetch",
					   err);
		if (rc)
			return rc;
	}
	struct pf_app *a = calloc(1, sizeof(*a));
	if (!a)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	a->pf = pf;
	a->task = app->task;
	a->name = strdup(app->name ? app->name : stack_task_name(app->task));
	a->region = app->region;
	a->pages = RB_ROOT;
	if (!a->name) {
		free(a);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	if (pf->tail)
		pf->tail->next = a;
	else
		pf->apps = a;
	pf->tail = a;
	pf->launches++;
	a->obs = lrec_begin(&pf->rec, a->name, stack_task_pid(app->task), pf->p.mode == PF_RECORD);
	if (!a->obs)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	struct stack_op_source src = { .next = app_next, .exited = app_exited, .ctx = a };
	stack_task_set_source(app->task, &src, &a->orig);
	if (pf->p.mode != PF_REPLAY)
		return 0;

	const struct lprof_app *pa = lprof_find(&pf->prof, a->name);
	int rc = lprof_check_app(pa, pf->p.profile, err);
	if (rc)
		return rc;
	if (!pa || pa->n == 0) {
		pf->no_profile++;
		return 0;
	}
	rc = build_plan(pf, a, pa, err);
	if (rc)
		return rc;
	char name[256];
	snprintf(name, sizeof(name), pf->p.level == PFLEVEL_KERNEL ? "%s.kprefetch" : "%s.prefetch",
		 a->name);
	struct stack_task_attr attr = { .name = name, .uid = app->uid };
	struct stack_op_source hs = { .next = helper_next, .exited = helper_exited, .ctx = a };
	a->helper = stack_task_create(sim->stack, &attr, &hs, err);
	if (!a->helper)
		return err->code;
	lrec_add_helper(a->obs, stack_task_pid(a->helper));
	a->start_delay_ns = pflevel_start_delay_ns((enum pflevel)pf->p.level, &pf->p.cost);
	stack_task_start(a->helper, (app->start_ns > sim_now(sim) ? app->start_ns : sim_now(sim)) +
					    a->start_delay_ns);
	return 0;
}

/* The framework's planner hook: sort, merge and gap-fill a working set in
 * place (data chunks only; files keep their first chunk's file). */
static int prefetch_plan_loads(struct policy *p, struct policy_working_set *ws, struct device *dev,
			       struct sim_error *err)
{
	struct prefetch *pf = p->priv;
	(void)dev;
	if (ws->n == 0)
		return 0;
	struct pfplan_ext *in = calloc(ws->n, sizeof(*in));
	if (!in)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	size_t m = 0;
	for (size_t i = 0; i < ws->n; i++) {
		if (ws->chunks[i].lba == UINT64_MAX || ws->chunks[i].len == 0)
			continue;
		in[m].lba = ws->chunks[i].lba;
		in[m].sectors = (ws->chunks[i].len + SECTOR_SIZE - 1) >> SECTOR_SHIFT;
		in[m].kind = PFPLAN_DATA;
		in[m].dep_lba = UINT64_MAX;
		m++;
	}
	struct pfplan_opts o = { .gap_sectors = pf->p.gap_bytes >> SECTOR_SHIFT,
				 .max_sectors = pf->p.max_bytes >> SECTOR_SHIFT,
				 .shift_meta = pf->p.shift_meta };
	struct pfplan_ext *out = NULL;
	size_t nout = 0;
	struct pfplan_stats st;
	int rc = pfplan_build(in, m, &o, &out, &nout, &st);
	free(in);
	if (rc)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	struct policy_working_set nws;
	policy_ws_init(&nws, ws->device);
	nws.idle_latency_ns = ws->idle_latency_ns;
	for (size_t k = 0; k < nout && !rc; k++) {
		struct policy_chunk c = { .file = NULL, .off = 0, .len = out[k].sectors << SECTOR_SHIFT,
					  .lba = out[k].lba };
		(void)lcom_ws_origin(ws, out[k].lba, &c.file, &c.off);
		rc = policy_ws_push(&nws, &c, err);
	}
	free(out);
	return lcom_ws_replace(ws, &nws, rc);
}

static json_t *ratio(uint64_t a, uint64_t b)
{
	return json_real(b ? (double)a / (double)b : 0.0);
}

static void prefetch_stats(const struct policy *p, struct json_t *obj)
{
	const struct prefetch *pf = p->priv;
	lcom_stats_head(obj, pf_mode_names[pf->p.mode], pf->launches, pf->no_profile);
	json_t *arr = json_array();
	uint64_t th = 0, tt = 0, tm = 0, tu = 0, tp = 0, tc = 0;
	int64_t tcpu = 0;
	for (const struct pf_app *a = pf->apps; a; a = a->next) {
		json_t *o = json_object();
		json_object_set_new(o, "app", json_string(a->name));
		if (a->obs) {
			lcom_obs_json(o, a->obs, true);
		}
		if (a->nsteps) {
			uint64_t hits = a->hit_ready + a->hit_inflight + a->hit_gone;
			uint64_t used = hits;
			uint64_t unused = a->prefetched_pages > used ? a->prefetched_pages - used : 0;
			json_t *pl = json_object();
			json_object_set_new(pl, "recorded_extents", json_integer((json_int_t)a->plan.in));
			json_object_set_new(pl, "extents", json_integer((json_int_t)a->plan.out));
			json_object_set_new(pl, "merges", json_integer((json_int_t)a->plan.merges));
			json_object_set_new(pl, "gap_fills", json_integer((json_int_t)a->plan.gap_fills));
			json_object_set_new(pl, "filled_bytes",
					    json_integer((json_int_t)(a->plan.filled_sectors << SECTOR_SHIFT)));
			json_object_set_new(pl, "meta_shifted", json_integer((json_int_t)a->plan.meta_shifted));
			json_object_set_new(pl, "bytes",
					    json_integer((json_int_t)(a->plan.out_sectors << SECTOR_SHIFT)));
			json_object_set_new(o, "plan", pl);
			json_object_set_new(o, "prefetched_pages", json_integer((json_int_t)a->prefetched_pages));
			json_object_set_new(o, "prefetch_syscalls", json_integer((json_int_t)a->calls));
			json_object_set_new(o, "prefetch_files_opened",
					    json_integer((json_int_t)a->files_opened));
			json_object_set_new(o, "prefetch_cpu_ns", json_integer((json_int_t)a->cpu_ns));
			json_object_set_new(o, "prefetch_start_delay_ns",
					    json_integer((json_int_t)a->start_delay_ns));
			json_object_set_new(o, "touched_pages", json_integer((json_int_t)a->touched));
			json_object_set_new(o, "hit_pages", json_integer((json_int_t)hits));
			json_object_set_new(o, "hit_ready_pages", json_integer((json_int_t)a->hit_ready));
			json_object_set_new(o, "hit_inflight_pages", json_integer((json_int_t)a->hit_inflight));
			json_object_set_new(o, "hit_absent_pages", json_integer((json_int_t)a->hit_gone));
			json_object_set_new(o, "miss_pages", json_integer((json_int_t)a->miss));
			json_object_set_new(o, "unused_pages", json_integer((json_int_t)unused));
			json_object_set_new(o, "hit_ratio", ratio(hits, a->touched));
			json_object_set_new(o, "miss_ratio", ratio(a->miss, a->touched));
			json_object_set_new(o, "unused_ratio", ratio(unused, a->prefetched_pages));
			if (a->helper_end_ns)
				json_object_set_new(o, "prefetch_ns",
						    json_integer(a->helper_end_ns - a->helper_start_ns));
			th += hits;
			tt += a->touched;
			tm += a->miss;
			tu += unused;
			tp += a->prefetched_pages;
			tc += a->calls;
			tcpu += a->cpu_ns;
		}
		json_array_append_new(arr, o);
	}
	json_object_set_new(obj, "apps", arr);
	json_object_set_new(obj, "level", json_string(pf_level_names[pf->p.level]));
	json_object_set_new(obj, "prefetch_syscalls", json_integer((json_int_t)tc));
	json_object_set_new(obj, "prefetch_cpu_ns", json_integer((json_int_t)tcpu));
	json_object_set_new(obj, "hit_ratio", ratio(th, tt));
	json_object_set_new(obj, "miss_ratio", ratio(tm, tt));
	json_object_set_new(obj, "unused_ratio", ratio(tu, tp));
}

static void prefetch_destroy(struct policy *p)
{
	struct prefetch *pf = p->priv;
	lrec_destroy(&pf->rec);
	struct pf_app *a = pf->apps;
	while (a) {
		struct pf_app *n = a->next;
		pages_free(a);
		free(a->steps);
		free(a->name);
		free(a);
		a = n;
	}
	pf->apps = pf->tail = NULL;
	lprof_free(&pf->prof);
}

static const struct cfg_param prefetch_params[] = {
	{ "profile", CFG_T_STRING, offsetof(struct prefetch, p.profile), "", "out/launch.prof",
	  CFG_NO_RANGE, "scenario", "launch profile file (TSV): record writes it, replay reads it",
	  NULL },
	{ "mode", CFG_T_ENUM, offsetof(struct prefetch, p.mode), "", "replay", CFG_NO_RANGE,
	  "FAST'11: a profiling (learning) launch, then launches with the prefetcher",
	  "record: profile the launch; replay: prefetch it", pf_mode_names },
	{ "gap_kib", CFG_T_SIZE, offsetof(struct prefetch, p.gap_bytes), "KiB", "32KiB", 0, 65536,
	  "INFER: a hole is worth reading while its transfer (~32 KiB at 250 MB/s = 130 us) "
	  "costs less than a request's overhead on a SATA SSD (dissertation's value not checked)",
	  "fill holes up to this size between extents (0: merge only touching ones)", NULL },
	{ "max_kib", CFG_T_SIZE, offsetof(struct prefetch, p.max_bytes), "KiB", "512KiB", 4, 65536,
	  "BLK_DEF_MAX_SECTORS 1024 = 512 KiB (max_sectors_kb)",
	  "largest extent the plan builds by merging and gap filling", NULL },
	{ "shift_meta", CFG_T_BOOL, offsetof(struct prefetch, p.shift_meta), "", "true",
	  CFG_NO_RANGE, "Joo 2013 dissertation: metadata before the data it locates",
	  "move metadata extents before their first dependent data extent", NULL },
	{ "plug", CFG_T_BOOL, offsetof(struct prefetch, p.plug), "", "true", CFG_NO_RANGE,
	  "Joo 2013 dissertation: blk_start_plug/blk_finish_plug around the batch",
	  "issue the whole sequence inside one plug", NULL },
	{ "open_files", CFG_T_BOOL, offsetof(struct prefetch, p.open_files), "", "true",
	  CFG_NO_RANGE, "posix_fadvise needs an open file: open() reads the inode",
	  "the prefetcher opens each file before its first fadvise", NULL },
	{ "level", CFG_T_ENUM, offsetof(struct prefetch, p.level), "", "user", CFG_NO_RANGE,
	  "FAST'11: a user-level prefetcher (open + posix_fadvise); Joo 2013 dissertation: an "
	  "in-kernel prefetcher issuing the sequence as block requests",
	  "user: a helper process of the app's uid opens each file and fadvises each extent; "
	  "kernel: the sequence is issued from inside the kernel, without system calls or opens",
	  pf_level_names },
	{ "spawn_us", CFG_T_TIME, offsetof(struct prefetch, p.cost.spawn_ns), "us", "0", 0, 1e8,
	  "0 = not charged (the model before levels; fast-prefetch/fast-multi keep it); the FAST "
	  "experiment scenarios set ASSUMED 500 us, range 200 us-2 ms [INFER]: "
	  "fork + exec of the generated prefetcher by FAST's execve wrapper (lmbench "
	  "fork+exec on 2000s x86 [RECALL])",
	  "level user: from the app's exec to the prefetcher's first call", NULL },
	{ "syscall_us", CFG_T_TIME, offsetof(struct prefetch, p.cost.syscall_ns), "us", "0", 0, 1e8,
	  "0 = not charged (as spawn_us); the experiments set ASSUMED 1 us, range 0.3-5 us [INFER]: "
	  "null system call 0.1-0.3 us on a Core 2 (lmbench lat_syscall "
	  "[RECALL]) plus fdget, fadvise64 and force_page_cache_readahead's set-up",
	  "level user: CPU of one posix_fadvise call, fixed part", NULL },
	{ "page_probe_ns", CFG_T_TIME, offsetof(struct prefetch, p.cost.page_probe_ns), "ns", "0",
	  0, 1e8,
	  "0 = not charged (as spawn_us); the experiments set ASSUMED 100 ns, range 50-300 ns [INFER]: "
	  "2.6.32 __do_page_cache_readahead probes every page of the "
	  "range (radix_tree_lookup under RCU), as pagecache.lookup_ns",
	  "level user: CPU per page of a fadvised range", NULL },
	{ "open_us", CFG_T_TIME, offsetof(struct prefetch, p.cost.open_ns), "us", "0", 0, 1e8,
	  "0 = not charged (as spawn_us); the experiments set ASSUMED 5 us, range 2-20 us [INFER]: "
	  "open + close with the dentry cached (lmbench lat_syscall open "
	  "on 2000s x86 [RECALL]); the inode block it may read is modelled as I/O",
	  "level user: CPU of the open() and close() around a file's extents", NULL },
	CFG_PARAM_END,
};

const struct policy_ops prefetch_policy_ops = {
	.name = "prefetch",
	.summary = "FAST launch prefetcher: profiled launch sequence fadvised by a prefetch thread "
		   "(USENIX FAST'11, Joo 2013)",
	.abi = MOBISIM_POLICY_ABI,
	.params = prefetch_params,
	.priv_size = sizeof(struct prefetch),
	.init = prefetch_init,
	.destroy = prefetch_destroy,
	.before_launch = prefetch_before_launch,
	.plan_loads = prefetch_plan_loads,
	.stats_json = prefetch_stats,
};
