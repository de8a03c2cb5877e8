/* expc: foreground-exclusive page cache (user-centric I/O scheduling
 * thesis, SNU 2017, §3.2 / docs/papers.md §1 mechanism 2).
 *
 * Every foreground thread stamps the time at which it inserts a valid
 * page into the page cache. A background thread about to insert a page
 * first checks the stamp: if the last foreground insertion was less than
 * window_us ago it sleeps window_us and checks again, in a loop, so a
 * background writer copying at memory speed stops contending for the page
 * cache (and its lock) while a foreground app is filling it. Root-uid
 * threads (network, UI, kernel threads) are never treated as background
 * (stack_task_is_bg), and foreground threads are never delayed.
 *
 * In the model the stamp is taken when the foreground task inserts the
 * page (pc_add_page), which in the kernel is add_to_page_cache_lru() of a
 * page that is about to be filled; the thesis stamps the same call.
 * Left out: the per-uid task list and the sysfs write of the top uid
 * (the stack's fg_uid timeline stands for them).
 */
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "models/policies/policy.h"
#include "models/stack/stack.h"
#include "sim/metrics.h"
#include "sim/sim.h"

/* ---------------------------------------------------------- tunables */

struct expc {
	int64_t window_ns;         /* tunable window_us */
	/* state */
	int64_t last_fg_insert;    /* INT64_MIN: never */
	/* counters */
	uint64_t fg_stamps;        /* foreground insertions stamped */
	uint64_t bg_checks;        /* background insertions checked */
	uint64_t sleeps;           /* background sleeps of window_ns */
	int64_t delay_ns;          /* total background delay */
	uint64_t root_checks;      /* root-uid insertions let through unchecked */
};

/* ---------------------------------------------------------- hooks */

static void expc_page_insert(struct policy *p, struct stack_task *t)
{
	struct expc *x = p->priv;
	if (!stack_task_is_fg(t))
		return;
	x->last_fg_insert = sim_now(p->sim);
	x->fg_stamps++;
}

static int64_t expc_may_insert(struct policy *p, struct stack_task *t)
{
	struct expc *x = p->priv;
	if (!stack_task_is_bg(t)) {
		if (!stack_task_is_fg(t))
			x->root_checks++;
		return 0;
	}
	x->bg_checks++;
	if (x->last_fg_insert == INT64_MIN || x->window_ns == 0)
		return 0;
	if (sim_now(p->sim) - x->last_fg_insert >= x->window_ns)
		return 0;
	/* Sleep a whole window, then the stack asks again (the loop). */
	x->sleeps++;
	x->delay_ns += x->window_ns;
	return x->window_ns;
}

static int expc_init(struct policy *p, struct sim *sim, struct sim_error *err)
{
	struct expc *x = p->priv;
	(void)sim;
	(void)err;
	x->last_fg_insert = INT64_MIN;
	return 0;
}

static void expc_stats(const struct policy *p, struct json_t *obj)
{
	const struct expc *x = p->priv;
	json_object_set_new(obj, "fg_stamps", json_integer((json_int_t)x->fg_stamps));
	json_object_set_new(obj, "bg_checks", json_integer((json_int_t)x->bg_checks));
	json_object_set_new(obj, "bg_sleeps", json_integer((json_int_t)x->sleeps));
	json_object_set_new(obj, "bg_delay_ns", json_integer(x->delay_ns));
	json_object_set_new(obj, "root_unchecked", json_integer((json_int_t)x->root_checks));
	json_object_set_new(obj, "applied", json_boolean(p->sim->stack != NULL));
}

/* --------------------------------------------------------- params, ops */

static const struct cfg_param expc_params[] = {
	{ "window_us", CFG_T_TIME, offsetof(struct expc, window_ns), "us", "100us", 0, 1e6,
	  "thesis §3.2: BG waits while the last FG insertion is within 100 us",
	  "exclusive window after a foreground page insertion; also the sleep length", NULL },
	CFG_PARAM_END,
};

const struct policy_ops expc_policy_ops = {
	.name = "expc",
	.summary = "foreground-exclusive page cache: BG inserts sleep within window_us of an FG insert (thesis §3.2)",
	.abi = MOBISIM_POLICY_ABI,
	.params = expc_params,
	.priv_size = sizeof(struct expc),
	.init = expc_init,
	.pagecache_may_insert = expc_may_insert,
	.on_page_insert = expc_page_insert,
	.stats_json = expc_stats,
};
