/* fgcfq: foreground-aware CFQ (user-centric I/O scheduling thesis, SNU
 * 2017, docs/papers.md §1 mechanism 4, with the FG request tag of
 * mechanism 3).
 *
 * The mechanism lives in the scheduler, as in the thesis: this policy
 * switches CFQ's foreground-aware mode on at set-up (models/iosched/cfq.c,
 * tunable `cfq.fg_aware`; see the top of that file for the rules). Sync
 * I/O of foreground tasks is already tagged REQ_FG down to the request by
 * the task model (and CFQ tags a request whose io_context is foreground
 * when it arrives), so no classify_request hook is needed. In short:
 *  - CFQ keeps a list of FG queues (queues holding FG sync or boosted
 *    requests), served before any other queue, FIFO by the time each
 *    became busy; with the list empty it is ordinary CFQ;
 *  - FG sync and boosted async are high, BG sync medium, BG async low
 *    (CFQ's own sync-before-async rules between the last two);
 *  - FG first: an FG arrival ends the active BG slice at once; BG never
 *    preempts an FG queue; FG queues do not preempt each other;
 *  - idling: an FG queue idles by CFQ's rules while no other FG queue
 *    waits (`cfq.fg_idle: cfq`; `always` also on flash with NCQ, `never`
 *    not at all; the policy's `idle` tunable sets it);
 *  - merges never push an FG request back: BG bios may not join an FG
 *    request, FG data merging into a BG request lifts it.
 * The scheduler reports its counters under block.scheduler_stats.fg; this
 * policy reports whether it applied, and a copy of those counters.
 *
 * On flash with tagged queueing (UFS: CFQ learns hw_tag = 1) CFQ does not
 * idle, so between two FG requests BG writes fill the device queue and
 * the next FG read waits inside the device, where no scheduler reaches:
 * FG first then changes little (thesis-fig12-launch: launch time within
 * 0.1 %). `idle: always` holds the device for the FG task's think time
 * (up to slice_idle) and is the variant that helps there (launch -20 %,
 * -33 % with expc and boost; BG run time +8 %).
 *
 * On blk-mq the same policy switches on mq-deadline's foreground-aware
 * mode (models/iosched/mq_deadline.c, dd_set_fg_aware; see the top of
 * that file): FG-high requests, by the same test, in a level of their own
 * served first, the other levels waiting while it has requests queued
 * (not while they are in flight: CFQ on tagged flash does not idle), no
 * merges between FG-high and BG, and optionally (mq-deadline.fg_bg_depth,
 * off) the S6 CFQ's bound on BG writes at the device while FG is active. What it cannot port: CFQ's per-queue FIFO among
 * FG tasks (deadline has no per-task queues) and idling (mq-deadline has
 * none), so `idle` other than `scheduler` is refused there.
 *
 * Inert (and it says so) when the scenario has no block layer; an error
 * when the scheduler has no FG-aware mode (not cfq, not mq-deadline:
 * noop, deadline, none, kyber, bfq), unless `require_cfq: false`.
 */
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/iosched/cfq.h"
#include "models/iosched/mq_deadline.h"
#include "models/policies/policy.h"
#include "sim/sim.h"

/* ---------------------------------------------------------- state */

enum fgcfq_idle { FGCFQ_IDLE_SCHEDULER = 0, FGCFQ_IDLE_CFQ, FGCFQ_IDLE_ALWAYS, FGCFQ_IDLE_NEVER };
static const char *const fgcfq_idle_names[] = { "scheduler", "cfq", "always", "never", NULL };

struct fgcfq {
	bool require_cfq;          /* tunable */
	int idle;                  /* tunable: enum fgcfq_idle */
	bool applied;
	const char *why_not;
};

/* ---------------------------------------------------------- hooks */

static int fgcfq_init(struct policy *p, struct sim *sim, struct sim_error *err)
{
	struct fgcfq *f = p->priv;
	struct elevator *e;

	if (!sim->blk) {
		f->why_not = "no block layer";
		return 0;
	}
	e = blk_queue_elevator(sim->blk);
	if (dd_is(e)) {
		if (f->idle != FGCFQ_IDLE_SCHEDULER)
			return sim_errorf(err, SIM_E_INPUT,
					  "policy fgcfq: fgcfq.idle: %s needs cfq; mq-deadline does not idle "
					  "(leave fgcfq.idle at scheduler)",
					  fgcfq_idle_names[f->idle]);
		if (dd_set_fg_aware(e, true))
			return sim_errorf(err, SIM_E_RUNTIME,
					  "policy fgcfq: cannot switch mq-deadline's fg_aware mode");
		f->applied = true;
		return 0;
	}
	if (!cfq_is(e)) {
		if (f->require_cfq)
			return sim_errorf(err, SIM_E_INPUT,
					  "policy fgcfq: scheduler %s has no foreground-aware mode; it needs cfq "
					  "(block.kind: sq) or mq-deadline (block.kind: mq) "
					  "(or set fgcfq.require_cfq: false to run without it)",
					  e && e->ops ? e->ops->name : "none");
		f->why_not = "scheduler has no foreground-aware mode (cfq or mq-deadline)";
		return 0;
	}
	if (cfq_set_fg_aware(e, true))
		return sim_errorf(err, SIM_E_RUNTIME, "policy fgcfq: cannot switch cfq's fg_aware mode");
	if (f->idle != FGCFQ_IDLE_SCHEDULER) {
		static const enum cfq_fg_idle map[] = {
			[FGCFQ_IDLE_CFQ] = CFQ_FG_IDLE_CFQ,
			[FGCFQ_IDLE_ALWAYS] = CFQ_FG_IDLE_ALWAYS,
			[FGCFQ_IDLE_NEVER] = CFQ_FG_IDLE_NEVER,
		};
		if (cfq_set_fg_idle(e, map[f->idle]))
			return sim_errorf(err, SIM_E_RUNTIME, "policy fgcfq: cannot set cfq's fg_idle");
	}
	f->applied = true;
	return 0;
}

static void fgcfq_destroy(struct policy *p)
{
	/* The elevator may already be gone (the set is destroyed with the
	 * layers); the mode dies with it. */
	(void)p;
}

/* The scheduler's FG counters (block.scheduler_stats.fg) are copied
 * here too, so that `mobisim compare` tables them with the policy. */
static void fgcfq_stats(const struct policy *p, struct json_t *obj)
{
	const struct fgcfq *f = p->priv;
	struct elevator *e = f->applied && p->sim && p->sim->blk ? blk_queue_elevator(p->sim->blk) : NULL;

	json_object_set_new(obj, "applied", json_boolean(f->applied));
	if (!f->applied) {
		json_object_set_new(obj, "inert", json_string(f->why_not ? f->why_not : "unknown"));
		return;
	}
	if (e && e->ops->stats_json) {
		json_t *st = json_object(), *fg, *v;
		const char *key;
		e->ops->stats_json(e, st);
		fg = json_object_get(st, "fg");
		json_object_foreach(fg, key, v)
			json_object_set(obj, key, v);
		json_decref(st);
	}
}

/* ------------------------------------------------------ parameters */

static const struct cfg_param fgcfq_params[] = {
	{ .key = "require_cfq", .type = CFG_T_BOOL, .offset = offsetof(struct fgcfq, require_cfq),
	  .unit = "", .def = "true", .min = 1, .max = 0,
	  .source = "thesis §1 mechanism 4: the mechanism is a CFQ modification (ported to mq-deadline)",
	  .help = "fail when the scheduler is neither cfq nor mq-deadline (false: stay inert and say so)" },
	{ .key = "idle", .type = CFG_T_ENUM, .offset = offsetof(struct fgcfq, idle), .unit = "",
	  .def = "scheduler", .min = 1, .max = 0, .choices = fgcfq_idle_names,
	  .source = "mobisim choice (the thesis is silent on idling)",
	  .help = "how FG queues idle: scheduler = leave cfq.fg_idle, or cfq | always | never" },
	CFG_PARAM_END,
};

const struct policy_ops fgcfq_policy_ops = {
	.name = "fgcfq",
	.summary = "foreground-aware CFQ (or mq-deadline on blk-mq): FG first; boosted async high; merges never delay FG",
	.abi = MOBISIM_POLICY_ABI,
	.params = fgcfq_params,
	.priv_size = sizeof(struct fgcfq),
	.init = fgcfq_init,
	.destroy = fgcfq_destroy,
	.stats_json = fgcfq_stats,
};
