/* fasttrack: foreground app-aware I/O management after Hahn, Lee, Yee,
 * Ryu, Kim, "FastTrack", USENIX ATC 2018 (docs/papers.md; the thesis's
 * successor). The paper places the FG/BG I/O-priority inversions in the
 * page cache and the flash device, and its scheme preempts background I/O
 * in the whole stack, the device included, and keeps the foreground app's
 * data in the page cache. Built here from that design, one switchable
 * mechanism per layer, each with its own counters (the paper's results are
 * kept out of the repository on purpose; nothing here is tuned to them):
 *
 *  pagecache  page-cache preemption: a background task about to insert a
 *             page (allocate page-cache memory) sleeps while the foreground
 *             app is active, i.e. it inserted a page, submitted a bio or had
 *             a request complete less than active_window_us ago, and asks
 *             again after the rest of the window. (expc is the thesis's fixed 100 us variant.)
 *  sched      block layer and scheduler: the scheduler's FG-first mode (CFQ's
 *             fg_aware list, or mq-deadline's FG level on blk-mq), the same
 *             switch fgcfq throws; FG requests are served before every BG
 *             queue and an FG arrival ends a BG slice.
 *  device     the device's own queue: while FG requests are at the device,
 *             or within active_window_us of the last FG bio, a BG request
 *             is not issued to it beyond device_bg_depth BG requests in
 *             flight, so FG commands do not queue behind a refilled device
 *             queue (blk_set_issue_gate; journal and flush requests are never
 *             held). What cannot be modelled: aborting a BG program already
 *             in the device (eMMC HPI); the flash model's own read_priority
 *             already serves reads ahead of buffered programs. Single queue
 *             only; on blk-mq it stays inert and says so.
 *  protect    foreground pages protected from reclaim: a clean page of a
 *             file whose owner (first non-root inserter) is the foreground
 *             uid is activated instead of freed, while that uid is in front
 *             (a BG app's pages, and the pages of an app that went to the
 *             background, are reclaimed as usual). The FG task's own direct
 *             reclaim may still free them, so reclaim cannot run out of
 *             victims because of the protection alone.
 *
 * The FG app is the stack's fg_uid timeline (the activity manager's top
 * uid, as the thesis's mechanism 1). Inert parts say why in "inert".
 */
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/iosched/cfq.h"
#include "models/iosched/mq_deadline.h"
#include "models/policies/policy.h"
#include "models/stack/stack.h"
#include "sim/sim.h"

struct fasttrack {
	/* tunables */
	bool pagecache, sched, device, protect;
	int64_t window_ns;          /* active_window_us */
	int64_t bg_depth;           /* device_bg_depth */
	/* state */
	int64_t last_fg;            /* last FG page insert or bio, INT64_MIN never */
	bool sched_on, device_on;
	const char *sched_why, *device_why;
	/* counters */
	uint64_t pc_bg_checks, pc_bg_sleeps;
	int64_t pc_bg_delay_ns;
	uint64_t dev_holds, dev_timed_holds;
	uint64_t prot_kept, prot_fg_reclaim;
};

/* The FG app's last sign of I/O: a page insert, a bio, or (single queue)
 * the completion of one of its requests. */
static int64_t ft_last_fg(const struct policy *p)
{
	const struct fasttrack *f = p->priv;
	int64_t t = f->last_fg;
	if (p->sim->blk) {
		int64_t d = blk_queue_last_fg_done(p->sim->blk);
		if (d > t)
			t = d;
	}
	return t;
}

static bool ft_fg_active(const struct policy *p, int64_t now, int64_t *until)
{
	const struct fasttrack *f = p->priv;
	int64_t t = ft_last_fg(p);
	if (t == INT64_MIN || now - t >= f->window_ns)
		return false;
	*until = t + f->window_ns;
	return true;
}

/* ---------------------------------------------------------- pagecache */

static void ft_page_insert(struct policy *p, struct stack_task *t)
{
	struct fasttrack *f = p->priv;
	if (stack_task_is_fg(t))
		f->last_fg = sim_now(p->sim);
}

static void ft_classify(struct policy *p, struct stack_task *t, struct bio *bio)
{
	struct fasttrack *f = p->priv;
	(void)bio;
	if (stack_task_is_fg(t))
		f->last_fg = sim_now(p->sim);
}

static int64_t ft_may_insert(struct policy *p, struct stack_task *t)
{
	struct fasttrack *f = p->priv;
	int64_t now = sim_now(p->sim);
	if (!f->pagecache || !stack_task_is_bg(t))
		return 0;
	int64_t until;
	f->pc_bg_checks++;
	if (!ft_fg_active(p, now, &until))
		return 0;
	int64_t d = until - now;
	f->pc_bg_sleeps++;
	f->pc_bg_delay_ns += d;
	return d;
}

/* ------------------------------------------------------------ device */

static int64_t ft_gate(void *ctx, const struct blk_queue *q, const struct io_request *rq)
{
	struct policy *p = ctx;
	struct fasttrack *f = p->priv;
	if (rq->flags & (REQ_FG | REQ_JOURNAL | REQ_FLUSH | REQ_BOOSTED))
		return 0;
	if (blk_queue_in_flight(q, false) + blk_queue_in_flight(q, true) -
		    blk_queue_fg_in_flight(q) <
	    (uint64_t)f->bg_depth)
		return 0;
	if (blk_queue_fg_in_flight(q)) {
		f->dev_holds++;
		return -1; /* until a completion runs the queue */
	}
	int64_t now = sim_now(p->sim), until;
	if (ft_fg_active(p, now, &until)) {
		f->dev_timed_holds++;
		return until;
	}
	return 0;
}

/* ------------------------------------------------------------ protect */

static bool ft_protect(struct policy *p, const struct stack_file *file, struct stack_task *t)
{
	struct fasttrack *f = p->priv;
	struct stack *st = p->sim->stack;
	uint32_t owner;
	if (!f->protect || !st)
		return false;
	owner = stack_file_owner_uid(file);
	if (!owner || owner != stack_fg_uid(st))
		return false;
	if (t && stack_task_is_fg(t)) {
		f->prot_fg_reclaim++;
		return false;
	}
	f->prot_kept++;
	return true;
}

/* --------------------------------------------------------------- init */

static int ft_init(struct policy *p, struct sim *sim, struct sim_error *err)
{
	struct fasttrack *f = p->priv;
	struct elevator *e;
	f->last_fg = INT64_MIN;
	if (!sim->blk) {
		f->sched_why = f->device_why = "no block layer";
		return 0;
	}
	e = blk_queue_elevator(sim->blk);
	if (f->sched) {
		if (dd_is(e)) {
			if (dd_set_fg_aware(e, true))
				return sim_errorf(err, SIM_E_RUNTIME,
						  "policy fasttrack: cannot switch mq-deadline's fg_aware mode");
			f->sched_on = true;
		} else if (cfq_is(e)) {
			if (cfq_set_fg_aware(e, true))
				return sim_errorf(err, SIM_E_RUNTIME,
						  "policy fasttrack: cannot switch cfq's fg_aware mode");
			f->sched_on = true;
		} else {
			f->sched_why = "scheduler has no foreground-aware mode (cfq or mq-deadline)";
		}
	} else {
		f->sched_why = "fasttrack.sched: false";
	}
	if (f->device) {
		if (blk_set_issue_gate(sim->blk, ft_gate, p) == 0)
			f->device_on = true;
		else
			f->device_why = "blk-mq: no issue gate (single queue only)";
	} else {
		f->device_why = "fasttrack.device: false";
	}
	return 0;
}

static void ft_destroy(struct policy *p)
{
	/* the queue (and its gate) may already be gone with the layers */
	(void)p;
}

static void ft_stats(const struct policy *p, struct json_t *obj)
{
	const struct fasttrack *f = p->priv;
	json_t *pc = json_object(), *sc = json_object(), *dv = json_object(), *pr = json_object();
	json_object_set_new(pc, "enabled", json_boolean(f->pagecache && p->sim->stack));
	json_object_set_new(pc, "bg_checks", json_integer((json_int_t)f->pc_bg_checks));
	json_object_set_new(pc, "bg_sleeps", json_integer((json_int_t)f->pc_bg_sleeps));
	json_object_set_new(pc, "bg_delay_ns", json_integer(f->pc_bg_delay_ns));
	json_object_set_new(obj, "pagecache", pc);

	json_object_set_new(sc, "enabled", json_boolean(f->sched_on));
	if (!f->sched_on)
		json_object_set_new(sc, "inert", json_string(f->sched_why ? f->sched_why : "unknown"));
	else {
		struct elevator *e = p->sim->blk ? blk_queue_elevator(p->sim->blk) : NULL;
		if (e && e->ops->stats_json) {
			json_t *st = json_object();
			e->ops->stats_json(e, st);
			json_t *fg = json_object_get(st, "fg");
			if (fg)
				json_object_set(sc, "scheduler_fg", fg);
			json_decref(st);
		}
	}
	json_object_set_new(obj, "sched", sc);

	json_object_set_new(dv, "enabled", json_boolean(f->device_on));
	if (!f->device_on)
		json_object_set_new(dv, "inert", json_string(f->device_why ? f->device_why : "unknown"));
	json_object_set_new(dv, "bg_held_fg_at_device", json_integer((json_int_t)f->dev_holds));
	json_object_set_new(dv, "bg_held_fg_active", json_integer((json_int_t)f->dev_timed_holds));
	json_object_set_new(obj, "device", dv);

	json_object_set_new(pr, "enabled", json_boolean(f->protect && p->sim->stack));
	json_object_set_new(pr, "pages_kept", json_integer((json_int_t)f->prot_kept));
	json_object_set_new(pr, "fg_own_reclaim_freed", json_integer((json_int_t)f->prot_fg_reclaim));
	json_object_set_new(obj, "protect", pr);
	json_object_set_new(obj, "applied", json_boolean(p->sim->stack != NULL));
}

/* --------------------------------------------------------- params, ops */

static const struct cfg_param ft_params[] = {
	{ "pagecache", CFG_T_BOOL, offsetof(struct fasttrack, pagecache), "", "true", CFG_NO_RANGE,
	  "Hahn et al. ATC'18 (abstract; docs/papers.md): BG I/O preempted in the page cache",
	  "BG page-cache inserts sleep while the FG app is active (false: mechanism off)", NULL },
	{ "sched", CFG_T_BOOL, offsetof(struct fasttrack, sched), "", "true", CFG_NO_RANGE,
	  "Hahn et al. ATC'18: BG I/O preempted in the block layer and the I/O scheduler",
	  "switch the scheduler's FG-first mode on (cfq or mq-deadline; false: off)", NULL },
	{ "device", CFG_T_BOOL, offsetof(struct fasttrack, device), "", "true", CFG_NO_RANGE,
	  "Hahn et al. ATC'18: BG I/O preempted in the storage device's queue",
	  "hold BG requests out of the device queue while FG is at the device or active "
	  "(single queue; false: off)", NULL },
	{ "protect", CFG_T_BOOL, offsetof(struct fasttrack, protect), "", "true", CFG_NO_RANGE,
	  "Hahn et al. ATC'18: the FG app's data kept from being flushed out of the page cache",
	  "reclaim keeps clean pages of files owned by the FG uid (false: off)", NULL },
	{ "active_window_us", CFG_T_TIME, offsetof(struct fasttrack, window_ns), "us", "1000us", 0, 1e6,
	  "assumed (the abstract gives no figure; range 100 us .. 10 ms in the scenarios' assumptions:)",
	  "the FG app counts as active this long after its last page insert or bio", NULL },
	{ "device_bg_depth", CFG_T_INT, offsetof(struct fasttrack, bg_depth), "requests", "0", 0, 64,
	  "assumed (0 = no BG command enters the device queue while FG is active; range 0 .. 4)",
	  "BG requests allowed in flight at the device while FG is active", NULL },
	CFG_PARAM_END,
};

const struct policy_ops fasttrack_policy_ops = {
	.name = "fasttrack",
	.summary = "FastTrack (ATC'18): BG preempted in page cache, scheduler and device queue; FG pages kept from reclaim",
	.abi = MOBISIM_POLICY_ABI,
	.params = ft_params,
	.priv_size = sizeof(struct fasttrack),
	.init = ft_init,
	.destroy = ft_destroy,
	.pagecache_may_insert = ft_may_insert,
	.on_page_insert = ft_page_insert,
	.classify_request = ft_classify,
	.reclaim_protect = ft_protect,
	.stats_json = ft_stats,
};
