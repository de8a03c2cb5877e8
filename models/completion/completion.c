/* Completion path core: the registry of completion models, the shared host
 * costs, and the per-I/O state machine that executes a model's plan
 * (models/completion/completion.h).
 *
 * Timeline of one I/O submitted at t0 and finished by the device at td:
 *  IRQ         the task sleeps (context switch out); the interrupt handler
 *              runs at td (irq), wakes the task, which runs after wakeup
 *              and a context switch in: resumes at td + irq + wakeup + ctxsw.
 *              CPU: irq + 2 ctxsw.
 *  POLL        the task spins from t0, checking the completion queue every
 *              poll_check: resumes at the first check at or after td.
 *              CPU: the whole spin (a core is held for it).
 *  SLEEP_POLL  hrtimer sleep: the timer fires at tw = t0 + sleep + slack,
 *              its interrupt (timer) wakes the task, which runs at
 *              ts = tw + timer + wakeup + ctxsw and spins from there (UNDER
 *              if td > ts) or finds the I/O done at once (OVER). The device
 *              interrupt is masked (polled queues).
 *              CPU: timer + 2 ctxsw + spin.
 *  TIMER_IRQ   as SLEEP_POLL with the device interrupt armed too: if it
 *              comes before the timer, the timer is cancelled and the IRQ
 *              path is taken (OVER); if the timer comes first the task
 *              polls (UNDER), and an interrupt arriving while it wakes
 *              completes the I/O in its handler.
 * Costs are the kernel's path on an idle core: C-state exit, cache and TLB
 * effects, interrupt coalescing and IRQ affinity are not modelled beyond
 * what the constants carry. The upcall (the block layer's completion) is
 * made when the task resumes, not when the handler runs: for a task-issued
 * sync I/O the difference is invisible; for queued I/O behind it the next
 * dispatch is late by wakeup + ctxsw on the interrupt path (kept simple).
 */
#include "models/completion/completion.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/device/device.h"
#include "sim/assert.h"
#include "sim/sim.h"

extern const struct completion_ops cpl_interrupt_ops;
extern const struct completion_ops cpl_poll_ops;
extern const struct completion_ops cpl_hybrid_ops;
extern const struct completion_ops cpl_pas_ops;
extern const struct completion_ops cpl_dpas_ops;
extern const struct completion_ops cpl_timer_irq_ops;

static const struct completion_ops *const completion_table[] = {
	&cpl_interrupt_ops,
	&cpl_poll_ops,
	&cpl_hybrid_ops,
	&cpl_pas_ops,
	&cpl_dpas_ops,
	&cpl_timer_irq_ops,
	NULL,
};

const char *const cpl_plan_names[CPL_NPLAN] = { "irq", "poll", "sleep_poll", "timer_irq" };

#define CC_OFF(f) offsetof(struct cpl_costs, f)

static const char *const cpl_path_names[] = { "direct", "direct+readahead",
					       "direct+readahead+mmap", "all", NULL };

/* Anchor for the interrupt-path defaults: Yang, Minturn, Hady, "When poll
 * is better than interrupt", FAST'12: a 512 B I/O took 4.4 us polled and
 * 9.0 us by interrupt on a 2.9 GHz Xeon, i.e. ~4.6 us of interrupt,
 * scheduling and context-switch cost [RECALL: figures from memory of the
 * paper]; split here as irq 1.5 + wakeup 1.0 + ctxsw 1.5 (latency 4 us,
 * CPU 4.5 us). Mobile SoCs are slower (docs/references.md §4.6: ~5-20 us). */
static const struct cfg_param cpl_cost_params[] = {
	{ "irq_us", CFG_T_TIME, CC_OFF(irq_ns), "us", "1.5", 0, 1e4,
	  "[RECALL] FAST'12 Yang et al.: ~4.6 us interrupt-path overhead in total, split [INFER]",
	  "device interrupt handler incl. request completion (CPU and latency)", NULL },
	{ "ctxsw_us", CFG_T_TIME, CC_OFF(ctxsw_ns), "us", "1.5", 0, 1e4,
	  "[RECALL] FAST'12 Yang et al. (see irq_us); Li, Ding, Shen ExpCS'07: a few us direct cost",
	  "one context switch; a sleep/wake cycle costs two (CPU)", NULL },
	{ "wakeup_us", CFG_T_TIME, CC_OFF(wakeup_ns), "us", "1", 0, 1e5,
	  "[RECALL] try_to_wake_up to running on an idle core, no deep C-state",
	  "latency from wake-up to the woken task running (no CPU charged)", NULL },
	{ "timer_us", CFG_T_TIME, CC_OFF(timer_ns), "us", "1", 0, 1e4,
	  "[RECALL] hrtimer interrupt + hrtimer_wakeup", "hrtimer expiry interrupt (CPU and latency)",
	  NULL },
	{ "timer_slack_us", CFG_T_TIME, CC_OFF(timer_slack_ns), "us", "0", 0, 1e5,
	  "[RECALL] block/blk-mq.c v4.10 blk_mq_poll_hybrid_sleep arms the hrtimer with "
	  "hrtimer_set_expires (no range), so the task's 50 us timer_slack_ns does not apply",
	  "delay added to every timer expiry", NULL },
	{ "poll_check_ns", CFG_T_TIME, CC_OFF(poll_check_ns), "ns", "100", 0, 1e7,
	  "[RECALL] nvme_poll: one completion-queue phase-bit read and cpu_relax",
	  "interval between completion checks while spinning (detection granularity)", NULL },
	{ "cores", CFG_T_INT, CC_OFF(cores), "", "8", 1, 1024,
	  "as the stack's cpu.cores default (Exynos 7420: 8 cores)",
	  "cores for the CPU-utilisation figure when the workload has no stack", NULL },
	{ "paths", CFG_T_ENUM, offsetof(struct cpl_costs, paths), "", "direct", CFG_NO_RANGE,
	  "Linux 5.15 fs/iomap/direct-io.c: only a direct I/O's bio is marked polled (IOCB_HIPRI "
	  "-> bio_set_polled); HotStorage'24 adds buffered readahead and mmap read-around",
	  "paths whose I/Os the model plans; the rest complete by interrupt: direct, "
	  "direct+readahead, direct+readahead+mmap, all (every I/O, as before this key)",
	  cpl_path_names },
	CFG_PARAM_END,
};

bool completion_path_polled(int paths, uint32_t f)
{
	if (paths == CPL_PATHS_ALL || !(f & REQ_PAGECACHE))
		return true; /* O_DIRECT, or raw block I/O without a page cache */
	if (f & REQ_PCREAD)
		return paths >= CPL_PATHS_DIRECT_RA;
	if (f & REQ_MMAP)
		return paths >= CPL_PATHS_DIRECT_RA_MMAP;
	return false; /* writeback, journal, metadata, kernel threads' reads */
}

const struct cfg_param *completion_cost_params(void)
{
	return cpl_cost_params;
}

const struct completion_ops *completion_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct completion_ops *const *o = completion_table; *o; o++)
		if (strcmp((*o)->name, name) == 0)
			return *o;
	return NULL;
}

const struct completion_ops *const *completion_registry(void)
{
	return completion_table;
}

/* ------------------------------------------------------------ per-I/O */

enum cpl_state {
	CS_IRQ_WAIT = 0,  /* asleep, the device interrupt will wake it */
	CS_SPIN,          /* polling on a core since spin_from */
	CS_TIMER,         /* asleep, timer event pending */
	CS_WAKING,        /* timer fired, spin-start event pending */
	CS_DELIVER,       /* resume event pending */
};

struct cpl_io {
	struct sim_event ev;
	struct completion *c;
	struct io_request *rq;
	struct cpl_plan plan;
	enum cpl_state state;
	uint32_t qd;
	int64_t t0, t_dev, spin_from;
	int64_t spin_ns, irq_ns, ctxsw_ns, timer_ns;
	int core;                 /* stack core held while spinning, -1 none */
	bool holding;             /* a core (the stack's or our own count) is held */
	bool dev_done, irq_done, polled, under;
	bool path_irq;            /* on a path `paths` does not poll: the model is not told */
	struct cpl_io *next_free, *next_all;
};

static void cpl_event(struct sim *sim, struct sim_event *ev);

static struct cpl_io *cpl_io_get(struct completion *c)
{
	struct cpl_io *io = c->free;
	if (io) {
		c->free = io->next_free;
	} else {
		io = calloc(1, sizeof(*io));
		if (!io)
			return NULL;
		io->next_all = c->all;
		c->all = io;
	}
	struct cpl_io *keep = io->next_all;
	memset(io, 0, sizeof(*io));
	io->next_all = keep;
	io->c = c;
	io->core = -1;
	sim_event_init(&io->ev, cpl_event);
	c->live++;
	return io;
}

static void cpl_io_put(struct completion *c, struct cpl_io *io)
{
	io->next_free = c->free;
	c->free = io;
	c->live--;
}

/* A spinning task takes a core: from the stack's CPU model when there is
 * one (so that it competes with the tasks' computation), else from the
 * path's own count. Every core busy: the spin goes on anyway (the task
 * was running when it submitted) and is counted in spin_no_core. */
static void cpl_hold(struct completion *c, struct cpl_io *io)
{
	struct sim *sim = c->sim;
	io->holding = true;
	if (sim->cpu_ops) {
		io->core = sim->cpu_ops->hold(sim->cpu_ctx);
		if (io->core < 0)
			c->st.spin_no_core++;
	} else if ((int64_t)c->st.held >= c->costs.cores) {
		c->st.spin_no_core++;
	}
	c->st.held++;
	if (c->st.held > c->st.max_held)
		c->st.max_held = c->st.held;
}

static void cpl_release(struct completion *c, struct cpl_io *io)
{
	struct sim *sim = c->sim;
	if (!io->holding)
		return;
	io->holding = false;
	SIM_ASSERT(c->st.held > 0);
	c->st.held--;
	if (sim->cpu_ops) {
		if (io->core >= 0)
			sim->cpu_ops->release(sim->cpu_ctx, io->core, io->spin_ns);
		else
			sim->cpu_ops->charge(sim->cpu_ctx, io->spin_ns);
		io->core = -1;
	}
}

static void cpl_stat_add(struct stats_dist *d, int64_t v, struct sim *sim)
{
	if (stats_dist_add(d, v))
		sim_fail(sim, SIM_E_NOMEM, "completion: out of memory for statistics");
}

/* The task resumes now: account, tell the model, call upward. */
static void cpl_deliver(struct completion *c, struct cpl_io *io)
{
	struct sim *sim = c->sim;
	struct io_request *rq = io->rq;
	struct device *dev = c->dev;
	int64_t now = sim_now(sim);

	cpl_release(c, io);
	int64_t short_cpu = io->irq_ns + io->ctxsw_ns + io->timer_ns;
	if (sim->cpu_ops && short_cpu)
		sim->cpu_ops->charge(sim->cpu_ctx, short_cpu);

	struct cpl_outcome o = {
		.plan = io->plan,
		.qd = io->qd,
		.write = req_is_write(rq->flags),
		.stream = cpl_stream_of(rq),
		.device_ns = io->t_dev - io->t0,
		.latency_ns = now - io->t0,
		.spin_ns = io->spin_ns,
		.cpu_ns = io->spin_ns + short_cpu,
		.polled = io->polled,
		.under = io->under,
	};
	struct cpl_stats *st = &c->st;
	st->ios++;
	st->polled += o.polled;
	if (io->plan.kind == CPL_PLAN_SLEEP_POLL || io->plan.kind == CPL_PLAN_TIMER_IRQ) {
		if (o.under)
			st->under++;
		else
			st->over++;
	}
	cpl_stat_add(&st->latency, o.latency_ns, sim);
	cpl_stat_add(&st->device, o.device_ns, sim);
	cpl_stat_add(&st->overhead, o.latency_ns - o.device_ns, sim);
	cpl_stat_add(&st->cpu, o.cpu_ns, sim);
	st->spin_ns += io->spin_ns;
	st->irq_ns += io->irq_ns;
	st->ctxsw_ns += io->ctxsw_ns;
	st->timer_ns += io->timer_ns;

	rq->cpl_priv = NULL;
	bool learn = !io->path_irq;
	cpl_io_put(c, io);
	if (learn && c->ops->done)
		c->ops->done(c, &o);
	if (dev->on_complete)
		dev->on_complete(dev->upper, rq);
}

static void cpl_deliver_at(struct completion *c, struct cpl_io *io, int64_t when)
{
	if (when <= sim_now(c->sim)) {
		cpl_deliver(c, io);
		return;
	}
	io->state = CS_DELIVER;
	sim_at(c->sim, &io->ev, when);
}

/* Interrupt handler at the current instant completes the I/O and wakes
 * the sleeping task. */
/* The device's own delivery latency of a wake-up (0 on bare metal). */
static int64_t cpl_delivery(struct completion *c, bool timer)
{
	return c->dev->ops->irq_delivery_ns ? c->dev->ops->irq_delivery_ns(c->dev, timer) : 0;
}

static void cpl_irq_path(struct completion *c, struct cpl_io *io)
{
	const struct cpl_costs *k = &c->costs;
	io->irq_ns += k->irq_ns;
	io->ctxsw_ns += k->ctxsw_ns;  /* switch in; the switch out was charged at sleep */
	io->polled = false;
	cpl_deliver_at(c, io, sim_now(c->sim) + cpl_delivery(c, false) + k->irq_ns + k->wakeup_ns +
				      k->ctxsw_ns);
}

/* The device finished while the task spins: it sees it at the next check. */
static void cpl_spin_detect(struct completion *c, struct cpl_io *io)
{
	int64_t now = sim_now(c->sim), chk = c->costs.poll_check_ns;
	int64_t waited = now - io->spin_from, det = io->spin_from;
	if (waited > 0)
		det += chk > 0 ? (waited + chk - 1) / chk * chk : waited;
	io->spin_ns += det - io->spin_from;
	io->polled = true;
	cpl_deliver_at(c, io, det);
}

static void cpl_start_spin(struct completion *c, struct cpl_io *io)
{
	io->state = CS_SPIN;
	io->spin_from = sim_now(c->sim);
	cpl_hold(c, io);
}

static void cpl_event(struct sim *sim, struct sim_event *ev)
{
	struct cpl_io *io = container_of(ev, struct cpl_io, ev);
	struct completion *c = io->c;
	const struct cpl_costs *k = &c->costs;
	int64_t now = sim_now(sim);

	switch (io->state) {
	case CS_TIMER:
		/* hrtimer expiry: its interrupt wakes the task */
		io->timer_ns += k->timer_ns;
		io->ctxsw_ns += k->ctxsw_ns;
		io->state = CS_WAKING;
		sim_at(sim, &io->ev, now + cpl_delivery(c, true) + k->timer_ns + k->wakeup_ns +
					     k->ctxsw_ns);
		return;
	case CS_WAKING:
		if (io->dev_done) {
			/* overslept: the first check finds it (or the interrupt
			 * handler already completed it while the task woke) */
			io->under = false;
			io->polled = !io->irq_done;
			int64_t at = now;
			int64_t irq_at = io->t_dev + cpl_delivery(c, false) + k->irq_ns;
			if (io->irq_done && irq_at > at)
				at = irq_at;
			cpl_deliver_at(c, io, at);
			return;
		}
		io->under = true;
		cpl_start_spin(c, io);
		return;
	case CS_DELIVER:
		cpl_deliver(c, io);
		return;
	case CS_IRQ_WAIT:
	case CS_SPIN:
		break;
	}
	sim_fail(sim, SIM_E_RUNTIME, "completion: event in state %d", (int)io->state);
}

void completion_submit(struct completion *c, struct io_request *rq)
{
	struct cpl_io *io = cpl_io_get(c);
	if (!io) {
		rq->cpl_priv = NULL;
		sim_fail(c->sim, SIM_E_NOMEM, "completion: out of memory");
		return;
	}
	const struct cpl_costs *k = &c->costs;
	int64_t now = sim_now(c->sim);
	io->rq = rq;
	io->t0 = now;
	io->qd = c->dev->inflight;
	rq->cpl_priv = io;
	if (completion_path_polled(k->paths, rq->flags)) {
		io->plan = c->ops->plan(c, rq, io->qd);
	} else {
		io->plan = (struct cpl_plan){ .kind = CPL_PLAN_IRQ };
		io->path_irq = true;
		c->st.path_irq++;
	}
	if ((io->plan.kind == CPL_PLAN_SLEEP_POLL || io->plan.kind == CPL_PLAN_TIMER_IRQ) &&
	    io->plan.sleep_ns <= 0)
		io->plan = (struct cpl_plan){ .kind = CPL_PLAN_POLL }; /* no sleep: classic poll */
	c->st.plans[io->plan.kind]++;

	switch (io->plan.kind) {
	case CPL_PLAN_IRQ:
		io->state = CS_IRQ_WAIT;
		io->ctxsw_ns += k->ctxsw_ns;
		break;
	case CPL_PLAN_POLL:
		cpl_start_spin(c, io);
		break;
	case CPL_PLAN_SLEEP_POLL:
	case CPL_PLAN_TIMER_IRQ:
		io->state = CS_TIMER;
		io->ctxsw_ns += k->ctxsw_ns;
		cpl_stat_add(&c->st.sleep, io->plan.sleep_ns, c->sim);
		sim_at(c->sim, &io->ev, now + io->plan.sleep_ns + k->timer_slack_ns);
		break;
	case CPL_NPLAN:
		SIM_ASSERT(0);
		break;
	}
}

void completion_device_done(struct completion *c, struct io_request *rq)
{
	struct cpl_io *io = rq->cpl_priv;
	if (!io) {
		/* submitted before the path was attached, or allocation failed */
		if (c->dev->on_complete)
			c->dev->on_complete(c->dev->upper, rq);
		return;
	}
	SIM_ASSERT(!io->dev_done);
	io->dev_done = true;
	io->t_dev = sim_now(c->sim);
	switch (io->state) {
	case CS_IRQ_WAIT:
		cpl_irq_path(c, io);
		break;
	case CS_SPIN:
		cpl_spin_detect(c, io);
		break;
	case CS_TIMER:
		if (io->plan.kind == CPL_PLAN_TIMER_IRQ) {
			/* the interrupt beats the timer: cancel it, take the IRQ path */
			sim_cancel(c->sim, &io->ev);
			io->under = false;
			cpl_irq_path(c, io);
		}
		/* SLEEP_POLL: overslept; the timer will find it done */
		break;
	case CS_WAKING:
		if (io->plan.kind == CPL_PLAN_TIMER_IRQ) {
			io->irq_done = true;
			io->irq_ns += c->costs.irq_ns;
		}
		break;
	case CS_DELIVER:
		SIM_ASSERT(0);
		break;
	}
}

/* ------------------------------------------------------ create, destroy */

static void completion_names(char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "none");
	for (const struct completion_ops *const *o = completion_table; *o && off < len; o++)
		off += (size_t)snprintf(buf + off, len - off, ", %s", (*o)->name);
}

int completion_attach(struct sim *sim, struct device *dev, struct cfg_node *node,
		      struct completion **out, struct sim_error *err)
{
	char names[160];
	const char *model;
	struct cfg_node *mnode;

	*out = NULL;
	completion_names(names, sizeof(names));
	if (!node)
		return 0;
	if (node->kind == CFG_SCALAR) {
		cfg_mark_used(node, false);
		mnode = node;
		model = node->value;
	} else if (node->kind == CFG_MAP) {
		cfg_mark_used(node, false);
		mnode = cfg_get(node, "model");
		if (!mnode)
			return cfg_errorf(err, node, "missing key `model` (one of %s)", names);
		model = cfg_get_str(node, "model");
		if (!model || mnode->kind != CFG_SCALAR)
			return cfg_errorf(err, mnode, "expected a completion model (one of %s)", names);
	} else {
		return cfg_errorf(err, node, "expected a completion model name or a map with `model:`");
	}
	if (strcmp(model, "none") == 0)
		return 0;
	const struct completion_ops *ops = completion_find(model);
	if (!ops)
		return cfg_errorf(err, mnode, "unknown completion model '%s' (expected one of %s)", model,
				  names);

	struct completion *c = calloc(1, sizeof(*c));
	if (!c)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	c->ops = ops;
	c->sim = sim;
	c->dev = dev;
	if (ops->priv_size && !(c->priv = calloc(1, ops->priv_size))) {
		free(c);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	struct cfg_node *map = node->kind == CFG_MAP ? node : NULL;
	int rc = cfg_apply(cpl_cost_params, map, &c->costs, err);
	if (rc == 0 && ops->params)
		rc = cfg_apply(ops->params, map, c->priv, err);
	if (rc == 0 && ops->init)
		rc = ops->init(c, err);
	if (rc) {
		free(c->priv);
		free(c);
		return rc;
	}
	stats_dist_init(&c->st.latency);
	stats_dist_init(&c->st.device);
	stats_dist_init(&c->st.overhead);
	stats_dist_init(&c->st.cpu);
	stats_dist_init(&c->st.sleep);
	static const struct device_cpl_ops cpl_ops = {
		.submit = completion_submit,
		.device_done = completion_device_done,
		.destroy = completion_destroy,
	};
	dev->cpl = c;
	dev->cpl_ops = &cpl_ops;
	*out = c;
	return 0;
}

void completion_destroy(struct completion *c)
{
	if (!c)
		return;
	struct cpl_io *io = c->all;
	while (io) {
		struct cpl_io *next = io->next_all;
		if (sim_event_pending(&io->ev))
			sim_cancel(c->sim, &io->ev);
		free(io);
		io = next;
	}
	stats_dist_free(&c->st.latency);
	stats_dist_free(&c->st.device);
	stats_dist_free(&c->st.overhead);
	stats_dist_free(&c->st.cpu);
	stats_dist_free(&c->st.sleep);
	free(c->priv);
	free(c);
}

/* ---------------------------------------------------------------- report */

const struct cpl_stats *completion_stats(const struct completion *c)
{
	return &c->st;
}

const char *completion_mode_name(const struct completion *c)
{
	return c->ops->mode_name ? c->ops->mode_name(c) : c->ops->name;
}

static json_t *cpl_dist_json(const struct stats_dist *d)
{
	json_t *o = json_object();
	json_object_set_new(o, "mean", json_real(stats_dist_mean(d)));
	json_object_set_new(o, "p50", json_integer((json_int_t)stats_dist_percentile(d, 50)));
	json_object_set_new(o, "p90", json_integer((json_int_t)stats_dist_percentile(d, 90)));
	json_object_set_new(o, "p99", json_integer((json_int_t)stats_dist_percentile(d, 99)));
	json_object_set_new(o, "p999", json_integer((json_int_t)stats_dist_percentile(d, 99.9)));
	json_object_set_new(o, "max", json_integer((json_int_t)(d->n ? d->max : 0)));
	return o;
}

json_t *completion_to_json(const struct completion *c)
{
	const struct cpl_stats *st = &c->st;
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "model", json_string(c->ops->name));
	json_object_set_new(o, "mode", json_string(completion_mode_name(c)));
	json_t *p = cfg_params_to_json(cpl_cost_params, &c->costs);
	if (p && c->ops->params) {
		json_t *mp = cfg_params_to_json(c->ops->params, c->priv);
		if (mp)
			json_object_update(p, mp);
		json_decref(mp);
	}
	if (p)
		json_object_set_new(o, "params", p);
	json_object_set_new(o, "ios", json_integer((json_int_t)st->ios));
	json_t *plans = json_object();
	for (int i = 0; i < CPL_NPLAN; i++)
		json_object_set_new(plans, cpl_plan_names[i], json_integer((json_int_t)st->plans[i]));
	json_object_set_new(o, "plans", plans);
	json_object_set_new(o, "polled", json_integer((json_int_t)st->polled));
	json_object_set_new(o, "under", json_integer((json_int_t)st->under));
	json_object_set_new(o, "over", json_integer((json_int_t)st->over));
	json_object_set_new(o, "path_irq", json_integer((json_int_t)st->path_irq));
	json_object_set_new(o, "latency_ns", cpl_dist_json(&st->latency));
	json_object_set_new(o, "device_ns", cpl_dist_json(&st->device));
	json_object_set_new(o, "overhead_ns", cpl_dist_json(&st->overhead));
	json_object_set_new(o, "cpu_per_io_ns", cpl_dist_json(&st->cpu));
	json_object_set_new(o, "sleep_ns", cpl_dist_json(&st->sleep));
	json_t *cpu = json_object();
	int64_t total = st->spin_ns + st->irq_ns + st->ctxsw_ns + st->timer_ns;
	json_object_set_new(cpu, "spin_ns", json_integer(st->spin_ns));
	json_object_set_new(cpu, "irq_ns", json_integer(st->irq_ns));
	json_object_set_new(cpu, "ctxsw_ns", json_integer(st->ctxsw_ns));
	json_object_set_new(cpu, "timer_ns", json_integer(st->timer_ns));
	json_object_set_new(cpu, "total_ns", json_integer(total));
	int64_t cores = c->sim->cpu_ops ? (int64_t)c->sim->cpu_ops->cores(c->sim->cpu_ctx)
					 : c->costs.cores;
	int64_t span = sim_now(c->sim);
	json_object_set_new(cpu, "cores", json_integer(cores));
	json_object_set_new(cpu, "utilisation",
			    json_real(span > 0 && cores > 0 ? (double)total / ((double)span * (double)cores) : 0.0));
	json_object_set_new(cpu, "spin_no_core", json_integer((json_int_t)st->spin_no_core));
	json_object_set_new(cpu, "max_cores_held", json_integer(st->max_held));
	json_object_set_new(o, "cpu", cpu);
	if (c->ops->stats_json)
		c->ops->stats_json(c, o);
	return o;
}
