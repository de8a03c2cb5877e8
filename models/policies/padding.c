/* padding: explicit application loading with I/O reordering, merging and
 * padding (Joo, Seo, Shin, Lim, "Enlarging I/O size for faster loading of
 * mobile applications", IEEE ESL 12, 2020; docs/papers.md §3,
 * docs/references.md §4.4).
 *
 * Demand paging loads an app with many small QD1 reads; on flash a large
 * read costs little more than a small one because it keeps several dies
 * busy. The paper profiles the launch working set with blktrace and, at
 * the next launch, loads it explicitly with pread before the app runs:
 * (1) reordered by LBA, (2) adjacent chunks merged, (3) padded - gaps read
 * too where one larger read beats several small ones, chosen by the exact
 * dynamic program over the device's read-time-versus-size table
 * (models/launch/padplan.c).
 *
 * In mobisim:
 *   mode: record   profiling run (as prefetch's, same profile format):
 *                  the launch's read requests (block trace D),
 *                  mapped to (file, offset).
 *   mode: baseline demand paging, only observed (I/O count and size).
 *   mode: reorder | merge | pad   the loader starts when the launch
 *                  region opens, on a task of the app's uid beside the
 *                  app (loader: thread, the default): explicit loading is
 *                  complementary to demand paging (the paper's abstract),
 *                  so the app runs from the start and its faults on pages
 *                  the loader has in flight sleep on the page lock until
 *                  that read completes (filemap_fault -> lock_page) instead
 *                  of issuing reads of their own; only pages the loader
 *                  has not reached yet are demand-paged. loader: app runs
 *                  the whole load on the app's thread before its own work
 *                  (launch = load + CPU; kept as the serial variant, it
 *                  loses on an idle device: docs/papers.md §3).
 *                  For each planned read, its pieces (file ranges; sectors
 *                  of no app file through the block device) are submitted
 *                  inside one plug so they form one request, then waited
 *                  for and copied - pread on a POSIX_FADV_RANDOM file,
 *                  which reads exactly what is asked (3.10
 *                  page_cache_sync_readahead -> force_page_cache_readahead).
 *                  One read at a time: QD1, as the paper's loader.
 * The cost curve is the device model's idle_latency_ns (a `table` device
 * is the paper's measured table); max_kib bounds a read (max_sectors).
 * Figures: planned reads and bytes, padded bytes, the curve's predicted
 * time for reorder/merge/pad, the measured load time and the launch's
 * requests and average request size (block trace point D of the app);
 * and what the app's own reads and faults met when issued (app_met: absent
 * pages it reads itself, pages in flight it waits for, hits, with the
 * time each class cost), its CPU, when its first I/O and the load began
 * after the launch opened - the figures that say where a launch's time
 * goes (docs/papers.md §3).
 * Left out: the energy figure; background I/O is whatever else the
 * scenario runs. A real pread loader could only pad inside one file; here
 * a read may span files (its pieces are plugged together), which a
 * block-level loader could do.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/device/device.h"
#include "models/policies/launch_common.h"
#include "models/launch/launchprof.h"
#include "models/launch/launchrec.h"
#include "models/launch/padplan.h"
#include "models/policies/policy.h"
#include "models/stack/stack.h"
#include "sim/sim.h"

enum pad_mode { PAD_RECORD = 0, PAD_BASELINE, PAD_REORDER, PAD_MERGE, PAD_PAD };
static const char *const pad_mode_names[] = { "record", "baseline", "reorder", "merge", "pad",
					      NULL };

enum pad_loader { PAD_LOADER_APP = 0, PAD_LOADER_THREAD };
static const char *const pad_loader_names[] = { "app", "thread", NULL };

struct pad_params {
	const char *profile;
	int mode;
	int loader;
	uint64_t max_bytes;
};

/* kinds of the loader's struct lcom_step */
enum pad_step_kind { PDS_PLUG, PDS_UNPLUG, PDS_SUBMIT, PDS_WAIT };

struct pad_app {
	struct padding *pd;
	char *name;
	const char *region;
	struct stack_op_source orig;
	struct lrec_app *obs;
	bool began, done;
	struct stack_task *helper; /* loader: thread: the loader's own task */
	int32_t uid;
	struct lcom_step *steps;
	size_t nsteps, cur;
	int64_t load_start_ns, load_end_ns;
	/* plan figures */
	size_t chunks, reads;
	uint64_t ws_bytes, read_bytes;
	int64_t pred_reorder_ns, pred_merge_ns, pred_pad_ns, pred_ns;
	/* what the app's own ops met (instrumentation, every mode): each
	 * read or fault classed, when it is issued, by the worst state of
	 * its pages (absent: the app's own I/O; in flight: it waits for a
	 * read already submitted, the loader's or its own readahead; up to
	 * date: a hit), and the time until the app's next op by that class */
	int64_t begin_ns;           /* the launch region opened */
	int64_t first_io_ns;        /* the app's first own read or fault, -1: none yet */
	int pend_class;             /* class of the op in progress, -1: none */
	int64_t pend_ns;            /* when it was issued */
	uint64_t met_ops[3], met_pages[3];
	int64_t met_ns[3];
	int64_t app_cpu_ns;         /* the app's own CPU ops */
	struct pad_app *next;
};

struct padding {
	struct pad_params p;
	struct sim *sim;
	struct lprof prof;
	bool loaded;
	struct lrec rec;
	struct pad_app *apps, *tail;
	uint64_t launches, no_profile;
};

/* --------------------------------------------------------- the curve */

static int64_t dev_read_ns(void *ctx, uint64_t bytes)
{
	struct device *dev = ctx;
	int64_t t = dev->ops->idle_latency_ns(dev, false, bytes);
	return t > 0 ? t : 1;
}

/* ------------------------------------------------------- interposer */

static void app_finish(struct pad_app *a)
{
	if (a->done)
		return;
	a->done = true;
	struct padding *pd = a->pd;
	lcom_finish(a->obs, pd->p.mode == PAD_RECORD, &pd->prof, pd->p.profile, pd->sim, "padding");
}

static int load_next(struct pad_app *a, struct stack_op *op)
{
	const struct lcom_step *s = &a->steps[a->cur++];
	memset(op, 0, sizeof(*op));
	switch (s->kind) {
	case PDS_PLUG: op->kind = STACK_OP_PLUG; break;
	case PDS_UNPLUG: op->kind = STACK_OP_UNPLUG; break;
	case PDS_WAIT:
		op->kind = STACK_OP_WILLNEED;
		op->flags = STACK_OPF_WAIT;
		break;
	default: op->kind = STACK_OP_WILLNEED; break;
	}
	op->file = s->file;
	op->off = s->off;
	op->len = s->len;
	return 1;
}

/* loader: thread - the plan's reads on a task of their own, beside the
 * app, which meets pages still in flight through the page cache. */
static int helper_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	struct pad_app *a = ctx;
	(void)t;
	if (a->cur == 0)
		a->load_start_ns = sim_now(a->pd->sim);
	if (a->cur >= a->nsteps)
		return 0;
	return load_next(a, op);
}

static void helper_exited(struct stack_task *t, void *ctx)
{
	struct pad_app *a = ctx;
	(void)t;
	a->load_end_ns = sim_now(a->pd->sim);
}

static void start_loader(struct pad_app *a)
{
	if (a->helper && a->began) {
		stack_task_start(a->helper, sim_now(a->pd->sim));
		a->helper = NULL; /* started once */
	}
}

static const char *const met_names[] = { "absent", "inflight", "uptodate" };

/* The class of an app op by the worst state of the pages it touches, now:
 * 0 absent, 1 in flight, 2 up to date; -1 for ops that touch no page. */
static int met_class(struct pad_app *a, const struct stack_op *op)
{
	if ((op->kind != STACK_OP_FAULT && op->kind != STACK_OP_READ) || !op->file)
		return -1;
	uint64_t first = op->off >> STACK_PAGE_SHIFT, n;
	if (op->kind == STACK_OP_FAULT)
		n = op->len > STACK_PAGE_SIZE ? (op->len + STACK_PAGE_SIZE - 1) >> STACK_PAGE_SHIFT : 1;
	else
		n = op->len ? ((op->off + op->len - 1) >> STACK_PAGE_SHIFT) - first + 1 : 0;
	int worst = 2;
	for (uint64_t i = 0; i < n; i++) {
		enum stack_page_state st = stack_file_page_state(op->file, first + i);
		int c = st == STACK_PAGE_ABSENT ? 0 : st == STACK_PAGE_INFLIGHT ? 1 : 2;
		a->met_pages[c]++;
		if (c < worst)
			worst = c;
	}
	return n ? worst : -1;
}

/* The app's previous op is over when it asks for the next one. */
static void met_close(struct pad_app *a)
{
	if (a->pend_class < 0)
		return;
	a->met_ns[a->pend_class] += sim_now(a->pd->sim) - a->pend_ns;
	a->pend_class = -1;
}

static void met_open(struct pad_app *a, const struct stack_op *op)
{
	if (!a->began || a->done)
		return;
	if (op->kind == STACK_OP_CPU) {
		a->app_cpu_ns += op->ns;
		return;
	}
	int c = met_class(a, op);
	if (c < 0)
		return;
	if (a->first_io_ns < 0)
		a->first_io_ns = sim_now(a->pd->sim);
	a->met_ops[c]++;
	a->pend_class = c;
	a->pend_ns = sim_now(a->pd->sim);
}

static int app_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	struct pad_app *a = ctx;
	met_close(a);
	if (!a->region && !a->began) {
		a->began = true; /* no region: load before the first op */
		a->begin_ns = sim_now(a->pd->sim);
	}
	start_loader(a);
	if (a->pd->p.loader == PAD_LOADER_APP && a->began && a->cur < a->nsteps) {
		if (a->cur == 0)
			a->load_start_ns = sim_now(a->pd->sim);
		return load_next(a, op);
	}
	if (a->pd->p.loader == PAD_LOADER_APP && a->began && a->nsteps && !a->load_end_ns)
		a->load_end_ns = sim_now(a->pd->sim);
	int r = a->orig.next(t, op, a->orig.ctx);
	if (r != 1) {
		if (r == 0)
			app_finish(a);
		return r;
	}
	/* the loader runs right after the launch region opens */
	if (!a->began && op->kind == STACK_OP_BEGIN && op->name && strcmp(op->name, a->region) == 0) {
		a->began = true;
		a->begin_ns = sim_now(a->pd->sim);
		start_loader(a);
	}
	met_open(a, op);
	if (lcom_observe(a->obs, op, a->region, a->pd->sim))
		app_finish(a);
	return r;
}

static void app_exited(struct stack_task *t, void *ctx)
{
	struct pad_app *a = ctx;
	app_finish(a);
	if (a->orig.exited)
		a->orig.exited(t, a->orig.ctx);
}

/* ------------------------------------------------------------ plan */

static int step_push(struct pad_app *a, size_t *cap, const struct lcom_step *s)
{
	return lcom_step_push(&a->steps, &a->nsteps, cap, s);
}

/* Pieces of the sector span [lba, end) through the app's files, else the
 * block device: one SUBMIT each inside a plug, then one WAIT each. */
static int push_read(struct pad_app *a, size_t *cap, const struct lprof_map *map,
		     struct stack_file *bdev, uint64_t lba, uint64_t end)
{
	size_t first = a->nsteps;
	int rc = step_push(a, cap, &(struct lcom_step){ .kind = PDS_PLUG });
	while (!rc && lba < end) {
		struct stack_file *f = NULL;
		uint64_t off = 0, run = 0, next = UINT64_MAX, n;
		if (lprof_map_lookup(map, lba, &f, &off, &run, &next)) {
			n = run < end - lba ? run : end - lba;
		} else {
			n = (next < end ? next : end) - lba;
			f = bdev;
			off = lba << SECTOR_SHIFT;
		}
		rc = step_push(a, cap, &(struct lcom_step){ .kind = PDS_SUBMIT, .file = f, .off = off,
							  .len = n << SECTOR_SHIFT });
		lba += n;
	}
	if (!rc)
		rc = step_push(a, cap, &(struct lcom_step){ .kind = PDS_UNPLUG });
	size_t last = a->nsteps;
	for (size_t i = first; !rc && i < last; i++) {
		if (a->steps[i].kind != PDS_SUBMIT)
			continue;
		struct lcom_step w = a->steps[i];
		w.kind = PDS_WAIT;
		rc = step_push(a, cap, &w);
	}
	return rc;
}

static int build_plan(struct padding *pd, struct pad_app *a, const struct lprof_app *pa,
		      struct sim_error *err)
{
	struct sim *sim = pd->sim;
	struct stack_file *bdev = stack_file_find(sim->stack, "(bdev)");
	size_t n = pa->n;
	struct padplan_chunk *c = calloc(n ? n : 1, sizeof(*c));
	struct padplan_chunk *m = NULL;
	size_t *groups = NULL;
	int64_t *scratch = NULL;
	struct lprof_map map;
	lprof_map_init(&map);
	int rc = 0;
	if (!c)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		c[i].lba = pa->p[i].lba;
		c[i].sectors = pa->p[i].len >> SECTOR_SHIFT;
		if (!stack_file_is_blockdev(pa->p[i].file) && lprof_map_add_file(&map, pa->p[i].file))
			goto nomem;
	}
	n = padplan_reorder(c, n);
	uint64_t maxs = pd->p.max_bytes >> SECTOR_SHIFT;
	size_t nm = 0, need = 0;
	(void)padplan_merge(c, n, maxs, NULL, 0, &need);
	m = calloc(need ? need : 1, sizeof(*m));
	groups = calloc(need ? need : 1, sizeof(*groups));
	scratch = calloc(2 * (need + 1), sizeof(*scratch));
	if (!m || !groups || !scratch)
		goto nomem;
	nm = padplan_merge(c, n, maxs, m, need, &need);
	a->chunks = n;
	for (size_t i = 0; i < n; i++)
		a->ws_bytes += c[i].sectors << SECTOR_SHIFT;
	bool curve = sim->device && sim->device->ops->idle_latency_ns;
	struct padplan_cost cost = { .read_ns = dev_read_ns, .ctx = sim->device };
	size_t ng = 0;
	int64_t pad_ns = 0;
	if (curve) {
		a->pred_reorder_ns = padplan_sum_ns(c, n, &cost);
		a->pred_merge_ns = padplan_sum_ns(m, nm, &cost);
		ng = padplan_pad(m, nm, maxs, &cost, groups, &pad_ns, scratch);
		a->pred_pad_ns = pad_ns;
	}
	size_t cap = 0;
	switch (pd->p.mode) {
	case PAD_REORDER:
		for (size_t i = 0; i < n && !rc; i++)
			rc = push_read(a, &cap, &map, bdev, c[i].lba, c[i].lba + c[i].sectors);
		a->reads = n;
		a->pred_ns = a->pred_reorder_ns;
		break;
	case PAD_MERGE:
		for (size_t i = 0; i < nm && !rc; i++)
			rc = push_read(a, &cap, &map, bdev, m[i].lba, m[i].lba + m[i].sectors);
		a->reads = nm;
		a->pred_ns = a->pred_merge_ns;
		break;
	default: { /* PAD_PAD: curve checked at init */
		size_t s = 0;
		for (size_t g = 0; g < ng && !rc; g++) {
			size_t e = groups[g];
			rc = push_read(a, &cap, &map, bdev, m[s].lba, m[e].lba + m[e].sectors);
			s = e + 1;
		}
		a->reads = ng;
		a->pred_ns = a->pred_pad_ns;
		break;
	}
	}
	if (rc)
		goto nomem;
	for (size_t i = 0; i < a->nsteps; i++)
		if (a->steps[i].kind == PDS_SUBMIT)
			a->read_bytes += a->steps[i].len;
	free(c);
	free(m);
	free(groups);
	free(scratch);
	lprof_map_free(&map);
	return 0;
nomem:
	free(c);
	free(m);
	free(groups);
	free(scratch);
	lprof_map_free(&map);
	return sim_errorf(err, SIM_E_NOMEM, "out of memory");
}

/* -------------------------------------------------------------- hooks */

static int padding_init(struct policy *p, struct sim *sim, struct sim_error *err)
{
	struct padding *pd = p->priv;
	pd->sim = sim;
	struct cfg_node *where = p->node ? p->node : cfg_root(sim->doc);
	if (pd->p.mode == PAD_PAD && (!sim->device || !sim->device->ops->idle_latency_ns))
		return cfg_errorf(err, where,
				  "padding.mode=pad needs the device's latency-versus-size curve "
				  "(a model with idle_latency_ns: flash, table, ideal, hdd)");
	if ((pd->p.mode == PAD_RECORD || pd->p.mode >= PAD_REORDER) &&
	    (!pd->p.profile || !pd->p.profile[0]))
		return cfg_errorf(err, where, "padding.profile: a profile path is needed");
	lrec_init(&pd->rec, sim, &pd->prof);
	return 0;
}

static int padding_before_launch(struct policy *p, const struct policy_app *app,
				 struct sim_error *err)
{
	struct padding *pd = p->priv;
	struct sim *sim = pd->sim;
	if (!app->task || !sim->stack || !sim->blk)
		return 0;
	if (pd->p.mode >= PAD_REORDER) {
		int rc = lcom_load_profile(&pd->prof, &pd->loaded, pd->p.profile, sim->stack, "padding",
					   err);
		if (rc)
			return rc;
	}
	struct pad_app *a = calloc(1, sizeof(*a));
	if (!a)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	a->pd = pd;
	a->name = strdup(app->name ? app->name : stack_task_name(app->task));
	a->region = app->region;
	a->first_io_ns = -1;
	a->pend_class = -1;
	if (!a->name) {
		free(a);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	if (pd->tail)
		pd->tail->next = a;
	else
		pd->apps = a;
	pd->tail = a;
	pd->launches++;
	a->obs = lrec_begin(&pd->rec, a->name, stack_task_pid(app->task), pd->p.mode == PAD_RECORD);
	if (!a->obs)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	if (pd->p.mode >= PAD_REORDER) {
		const struct lprof_app *pa = lprof_find(&pd->prof, a->name);
		int rc = lprof_check_app(pa, pd->p.profile, err);
		if (rc)
			return rc;
		if (!pa || pa->n == 0)
			pd->no_profile++;
		else if ((rc = build_plan(pd, a, pa, err)) != 0)
			return rc;
		if (pd->p.loader == PAD_LOADER_THREAD && a->nsteps) {
			char name[256];
			snprintf(name, sizeof(name), "%s.loader", a->name);
			struct stack_task_attr attr = { .name = name, .uid = app->uid };
			struct stack_op_source hs = { .next = helper_next, .exited = helper_exited,
						      .ctx = a };
			a->helper = stack_task_create(sim->stack, &attr, &hs, err);
			if (!a->helper)
				return err->code;
			lrec_add_helper(a->obs, stack_task_pid(a->helper));
		}
	}
	struct stack_op_source src = { .next = app_next, .exited = app_exited, .ctx = a };
	stack_task_set_source(app->task, &src, &a->orig);
	return 0;
}

/* The framework's planner hook: the working set's chunks become the
 * planned reads of the configured mode (reorder, merge or pad). */
static int padding_plan_loads(struct policy *p, struct policy_working_set *ws, struct device *dev,
			      struct sim_error *err)
{
	struct padding *pd = p->priv;
	if (ws->n == 0 || pd->p.mode < PAD_REORDER)
		return 0;
	if (pd->p.mode == PAD_PAD && (!dev || !dev->ops->idle_latency_ns))
		return sim_errorf(err, SIM_E_INPUT, "padding: the device has no latency curve");
	size_t n = 0;
	struct padplan_chunk *c = calloc(ws->n, sizeof(*c));
	if (!c)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	for (size_t i = 0; i < ws->n; i++)
		if (ws->chunks[i].lba != UINT64_MAX && ws->chunks[i].len)
			c[n++] = (struct padplan_chunk){ ws->chunks[i].lba,
							  (ws->chunks[i].len + SECTOR_SIZE - 1) >> SECTOR_SHIFT };
	n = padplan_reorder(c, n);
	uint64_t maxs = pd->p.max_bytes >> SECTOR_SHIFT;
	size_t need = 0;
	(void)padplan_merge(c, n, maxs, NULL, 0, &need);
	struct padplan_chunk *m = calloc(need ? need : 1, sizeof(*m));
	size_t *groups = calloc(need ? need : 1, sizeof(*groups));
	int64_t *scratch = calloc(2 * (need + 1), sizeof(*scratch));
	struct policy_working_set nws;
	policy_ws_init(&nws, ws->device);
	nws.idle_latency_ns = ws->idle_latency_ns;
	int rc = 0;
	if (!m || !groups || !scratch) {
		rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
		goto out;
	}
	size_t nm = padplan_merge(c, n, maxs, m, need, &need);
	const struct padplan_chunk *src = pd->p.mode == PAD_REORDER ? c : m;
	size_t ns = pd->p.mode == PAD_REORDER ? n : nm;
	if (pd->p.mode == PAD_PAD) {
		struct padplan_cost cost = { .read_ns = dev_read_ns, .ctx = dev };
		int64_t tot;
		size_t ng = padplan_pad(m, nm, maxs, &cost, groups, &tot, scratch);
		size_t s = 0;
		for (size_t g = 0; g < ng && !rc; g++) {
			size_t e = groups[g];
			struct policy_chunk pc = { .lba = m[s].lba,
						   .len = (m[e].lba + m[e].sectors - m[s].lba) << SECTOR_SHIFT };
			rc = policy_ws_push(&nws, &pc, err);
			s = e + 1;
		}
	} else {
		for (size_t i = 0; i < ns && !rc; i++) {
			struct policy_chunk pc = { .lba = src[i].lba, .len = src[i].sectors << SECTOR_SHIFT };
			rc = policy_ws_push(&nws, &pc, err);
		}
	}
	/* keep the file of the chunk each read starts at */
	for (size_t k = 0; k < nws.n && !rc; k++)
		(void)lcom_ws_origin(ws, nws.chunks[k].lba, &nws.chunks[k].file, &nws.chunks[k].off);
out:
	free(c);
	free(m);
	free(groups);
	free(scratch);
	return lcom_ws_replace(ws, &nws, rc);
}

static void padding_stats(const struct policy *p, struct json_t *obj)
{
	const struct padding *pd = p->priv;
	lcom_stats_head(obj, pad_mode_names[pd->p.mode], pd->launches, pd->no_profile);
	json_t *arr = json_array();
	uint64_t treq = 0, tbytes = 0;
	int64_t tload = 0;
	size_t nload = 0;
	for (const struct pad_app *a = pd->apps; a; a = a->next) {
		json_t *o = json_object();
		json_object_set_new(o, "app", json_string(a->name));
		if (a->obs) {
			const struct lrec_app *r = a->obs;
			lcom_obs_json(o, r, pd->p.loader == PAD_LOADER_THREAD);
			/* the launch's requests: the app's and its loader's */
			treq += r->requests + r->helper_requests;
			tbytes += r->bytes + r->helper_bytes;
		}
		if (a->began) {
			/* what the app's own reads and faults met when issued */
			json_t *met = json_object();
			for (int c = 0; c < 3; c++) {
				json_t *m = json_object();
				json_object_set_new(m, "ops", json_integer((json_int_t)a->met_ops[c]));
				json_object_set_new(m, "pages", json_integer((json_int_t)a->met_pages[c]));
				json_object_set_new(m, "wait_ns", json_integer(a->met_ns[c]));
				json_object_set_new(met, met_names[c], m);
			}
			json_object_set_new(o, "app_met", met);
			json_object_set_new(o, "app_cpu_ns", json_integer(a->app_cpu_ns));
			json_object_set_new(o, "first_io_after_ns",
					    a->first_io_ns >= 0 ? json_integer(a->first_io_ns - a->begin_ns)
								: json_null());
			if (a->load_end_ns)
				json_object_set_new(o, "load_start_after_ns",
						    json_integer(a->load_start_ns - a->begin_ns));
		}
		if (a->nsteps) {
			json_object_set_new(o, "chunks", json_integer((json_int_t)a->chunks));
			json_object_set_new(o, "reads", json_integer((json_int_t)a->reads));
			json_object_set_new(o, "working_set_bytes", json_integer((json_int_t)a->ws_bytes));
			json_object_set_new(o, "read_bytes", json_integer((json_int_t)a->read_bytes));
			json_object_set_new(o, "padded_bytes",
					    json_integer((json_int_t)(a->read_bytes > a->ws_bytes
									       ? a->read_bytes - a->ws_bytes
									       : 0)));
			json_object_set_new(o, "planned_avg_read_kib",
					    json_real(a->reads ? (double)a->read_bytes / 1024.0 / (double)a->reads : 0));
			json_object_set_new(o, "predicted_reorder_ns", json_integer(a->pred_reorder_ns));
			json_object_set_new(o, "predicted_merge_ns", json_integer(a->pred_merge_ns));
			json_object_set_new(o, "predicted_pad_ns", json_integer(a->pred_pad_ns));
			json_object_set_new(o, "predicted_load_ns", json_integer(a->pred_ns));
			if (a->load_end_ns) {
				json_object_set_new(o, "load_ns", json_integer(a->load_end_ns - a->load_start_ns));
				tload += a->load_end_ns - a->load_start_ns;
				nload++;
			}
		}
		json_array_append_new(arr, o);
	}
	json_object_set_new(obj, "apps", arr);
	json_object_set_new(obj, "requests", json_integer((json_int_t)treq));
	json_object_set_new(obj, "bytes", json_integer((json_int_t)tbytes));
	json_object_set_new(obj, "avg_request_kib",
			    json_real(treq ? (double)tbytes / 1024.0 / (double)treq : 0));
	/* null with no load yet: the key is there before the run (sweep_check.c) */
	json_object_set_new(obj, "mean_load_ns",
			    nload ? json_integer(tload / (int64_t)nload) : json_null());
}

static void padding_destroy(struct policy *p)
{
	struct padding *pd = p->priv;
	lrec_destroy(&pd->rec);
	struct pad_app *a = pd->apps;
	while (a) {
		struct pad_app *n = a->next;
		free(a->steps);
		free(a->name);
		free(a);
		a = n;
	}
	pd->apps = pd->tail = NULL;
	lprof_free(&pd->prof);
}

static const struct cfg_param padding_params[] = {
	{ "profile", CFG_T_STRING, offsetof(struct padding, p.profile), "", "out/launch.prof",
	  CFG_NO_RANGE, "scenario", "launch profile file (TSV): record writes it, the loaders read it",
	  NULL },
	{ "mode", CFG_T_ENUM, offsetof(struct padding, p.mode), "", "pad", CFG_NO_RANGE,
	  "ESL'20: baseline, reordering, merging, padding bars",
	  "record (profile), baseline (demand paging), reorder, merge or pad", pad_mode_names },
	{ "loader", CFG_T_ENUM, offsetof(struct padding, p.loader), "", "thread", CFG_NO_RANGE,
	  "ESL'20's abstract: explicit loading is complementary to demand paging, so the app "
	  "runs beside it (thread); app, the loader run to its end before the app's code, is "
	  "the serial variant (no source read puts it there)",
	  "thread: the plan runs at launch on a task of the app's uid beside the app, whose "
	  "faults wait for pages in flight; app: on the app's thread before its own work "
	  "(I/O then CPU)",
	  pad_loader_names },
	{ "max_kib", CFG_T_SIZE, offsetof(struct padding, p.max_bytes), "KiB", "512KiB", 4, 65536,
	  "BLK_DEF_MAX_SECTORS 1024 = 512 KiB (max_sectors_kb)",
	  "largest read the merge and padding steps build", NULL },
	CFG_PARAM_END,
};

const struct policy_ops padding_policy_ops = {
	.name = "padding",
	.summary = "explicit launch loading: reorder, merge, DP padding on the device curve "
		   "(IEEE ESL 2020)",
	.abi = MOBISIM_POLICY_ABI,
	.params = padding_params,
	.priv_size = sizeof(struct padding),
	.init = padding_init,
	.destroy = padding_destroy,
	.before_launch = padding_before_launch,
	.plan_loads = padding_plan_loads,
	.stats_json = padding_stats,
};
