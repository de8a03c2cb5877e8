/* The page-cache locks: spinlocks in simulated time, held on the
 * holder's core.
 *
 * What they stand for. The thesis (docs/papers.md §1) says that getting
 * free pages and inserting valid pages into the page cache takes "a global
 * lock". In Linux 3.10 three spinlocks are on that path:
 * - zone->lru_lock (this file's pglock, s->lock): every page insertion of
 *   every file reaches it from add_to_page_cache_lru() -> lru_cache_add_file()
 *   through a per-CPU pagevec of PAGEVEC_SIZE = 14 pages that
 *   __pagevec_lru_add() drains under the lock; reclaim (shrink_inactive_list)
 *   isolates up to SWAP_CLUSTER_MAX = 32 pages under it and puts the
 *   survivors back under it (models/mm/reclaim.c);
 * - zone->lock (s->zone_lock): the buddy allocator, taken once per per-cpu
 *   list refill (rmqueue_bulk of pcp->batch pages) and drain
 *   (free_pcppages_bulk when a list passes pcp->high);
 * - mapping->tree_lock (per file): the radix insert of every page and the
 *   deletion of every page reclaim frees; lookups are RCU (find_get_page
 *   takes no lock). FG and BG share it only when they share a file.
 * A phone has one zone, so the two zone locks are effectively global
 * (docs/references.md §3.5). Scope "global" is the thesis's literal
 * reading: every lookup, insert and delete takes the one lock as well.
 *
 * Mechanics: a ticket lock serves acquirers in arrival order, and holders
 * never block while holding it, so the instant the lock becomes free is
 * known: an acquirer arriving at t spins max(0, free_at - t) and then
 * holds it for hold_ns. Spinning and holding happen on the task's core
 * (spin_lock_irq disables preemption): lru_lock drains and reclaim's
 * sections run as non-preemptible CPU sections whose acquisition happens
 * when the task gets its core (cpu_run_section); the tree_lock and
 * zone->lock of an insertion join the CPU time the task pays before its
 * next page, acquired at the insertion instant.
 * Hold times: no lock_stat of an Exynos 7420 was found; every hold time is
 * an assumption (tag INFER) with its sensitivity in docs/memory.md.
 * Left out: IRQ-disabled hold inflation, cache-line bouncing costs that
 * grow with the number of spinners, the tree_lock of set_page_dirty and of
 * the writeback tags.
 */
#include <stddef.h>

#include <jansson.h>

#include "models/mm/mm.h"
#include "sim/sim.h"

static const char *const pglock_scopes[] = { "lru", "global", NULL };

static const struct cfg_param pglock_params_table[] = {
	{ "scope", CFG_T_ENUM, offsetof(struct pglock_params, scope), "", "lru", CFG_NO_RANGE,
	  "docs/references.md §3.5: zone->lru_lock is the only lock all inserts share",
	  "lru: zone->lru_lock with pagevec batching; global: every page-cache op takes it",
	  pglock_scopes },
	{ "batch_pages", CFG_T_INT, offsetof(struct pglock_params, batch_pages), "", "14", 1, 512,
	  "include/linux/pagevec.h: PAGEVEC_SIZE 14", "pages inserted per lru_lock acquisition",
	  NULL },
	{ "lru_add_batch_ns", CFG_T_TIME, offsetof(struct pglock_params, lru_add_batch_ns), "ns",
	  "300", 0, 1e9, "fitted: lock handoff + irq save/restore, order of 100s of ns (INFER)",
	  "hold of one __pagevec_lru_add: fixed part", NULL },
	{ "lru_add_page_ns", CFG_T_TIME, offsetof(struct pglock_params, lru_add_page_ns), "ns",
	  "150", 0, 1e9, "fitted: list insertion + stats per page under the lock (INFER)",
	  "hold of one __pagevec_lru_add: per page", NULL },
	{ "reclaim_batch_ns", CFG_T_TIME, offsetof(struct pglock_params, reclaim_batch_ns), "ns",
	  "4000", 0, 1e9, "assumed: isolate_lru_pages of 32 pages, ~125 ns a page (INFER)",
	  "lru_lock hold of one reclaim isolation batch (SWAP_CLUSTER_MAX pages)", NULL },
	{ "putback_batch_ns", CFG_T_TIME, offsetof(struct pglock_params, putback_batch_ns), "ns",
	  "300", 0, 1e9, "assumed: as lru_add_batch_ns, the same lock round trip (INFER)",
	  "lru_lock hold of putback_inactive_pages: fixed part", NULL },
	{ "putback_page_ns", CFG_T_TIME, offsetof(struct pglock_params, putback_page_ns), "ns",
	  "150", 0, 1e9, "assumed: as lru_add_page_ns, one list insertion + stats (INFER)",
	  "lru_lock hold of putback_inactive_pages: per page put back", NULL },
	{ "zone_batch_ns", CFG_T_TIME, offsetof(struct pglock_params, zone_batch_ns), "ns", "300",
	  0, 1e9, "assumed: lock round trip with irqs off (INFER)",
	  "zone->lock hold of rmqueue_bulk / free_pcppages_bulk: fixed part", NULL },
	{ "zone_page_ns", CFG_T_TIME, offsetof(struct pglock_params, zone_page_ns), "ns", "100", 0,
	  1e9, "assumed: __rmqueue / __free_one_page of an order-0 page (INFER)",
	  "zone->lock hold per page moved to or from a per-cpu list", NULL },
	{ "lookup_ns", CFG_T_TIME, offsetof(struct pglock_params, lookup_ns), "ns", "100", 0, 1e9,
	  "fitted (INFER); 3.10 find_get_page is RCU: used only with scope global",
	  "hold per page lookup (scope global)", NULL },
	{ "insert_ns", CFG_T_TIME, offsetof(struct pglock_params, insert_ns), "ns", "250", 0, 1e9,
	  "assumed (INFER): radix_tree_insert under tree_lock",
	  "tree_lock hold per page insert (scope global: the one lock's)", NULL },
	{ "delete_ns", CFG_T_TIME, offsetof(struct pglock_params, delete_ns), "ns", "250", 0, 1e9,
	  "assumed (INFER): __remove_mapping -> __delete_from_page_cache under tree_lock",
	  "tree_lock hold per page reclaim frees (scope global: the one lock's)", NULL },
	CFG_PARAM_END,
};

int pglock_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	struct pglock *l = &s->lock;
	return cfg_apply(pglock_params_table, node, &l->p, err);
}

/* The first instant >= t at which hold_ns fits between the periodic
 * holds to come (none left: t). */
static int64_t periodic_fit(struct mm_lock *l, int64_t t, int64_t hold_ns)
{
	if (l->per_n == 0)
		return t;
	if (t >= mm_lock_periodic_end(l)) {
		l->per_n = 0;
		return t;
	}
	int64_t i = t < l->per_start ? -1 : (t - l->per_start) / l->per_period;
	for (; i < (int64_t)l->per_n; i++) {
		if (i >= 0) {
			int64_t rs = l->per_start + i * l->per_period;
			if (t < rs + l->per_hold)
				t = rs + l->per_hold;
		}
		if (i + 1 >= (int64_t)l->per_n)
			break;
		if (t + hold_ns <= l->per_start + (i + 1) * l->per_period)
			break;
	}
	return t;
}

int64_t mm_lock_acquire_slow(struct mm_lock *l, int64_t now, int64_t hold_ns, enum sim_class c)
{
	int64_t t = l->free_at > now ? l->free_at : now;
	t = periodic_fit(l, t, hold_ns);
	int64_t wait = t - now;
	if (t + hold_ns > l->free_at)
		l->free_at = t + hold_ns;
	mm_lock_count(l, wait, hold_ns, c, 1);
	return wait;
}

int64_t mm_lock_reserve_periodic(struct mm_lock *l, int64_t start, int64_t period_ns,
				 int64_t hold_ns, uint32_t n, enum sim_class c)
{
	if (n == 0)
		return 0;
	if (n == 1)
		return mm_lock_acquire(l, start, hold_ns, c);
	int64_t t = l->free_at > start ? l->free_at : start;
	if (l->per_n && t < mm_lock_periodic_end(l)) /* another reclaimer's holds: start after them */
		t = mm_lock_periodic_end(l);
	l->per_start = t;
	l->per_period = period_ns > hold_ns ? period_ns : hold_ns;
	l->per_hold = hold_ns;
	l->per_n = n;
	if (t + hold_ns > l->free_at)
		l->free_at = t + hold_ns;
	mm_lock_count(l, t - start, hold_ns, c, n);
	return t - start;
}

static int64_t pglock_section(struct stack_task *t, int64_t now)
{
	struct stack *s = t->stack;
	int64_t wait = mm_lock_acquire(&s->lock.l, now, t->sect_hold, task_class(t));
	task_charge(t, SIM_WAIT_PAGECACHE_LOCK, wait);
	return wait + t->sect_hold;
}

enum step pglock_take(struct stack_task *t, int64_t hold_ns)
{
	t->sect_hold = hold_ns;
	t->sect_cpu = 0;
	(void)cpu_run_section(t, pglock_section, false);
	return STEP_BLOCK;
}

struct json_t *mm_lock_to_json(const struct mm_lock *l)
{
	json_t *o = json_object();
	json_object_set_new(o, "acquisitions", json_integer((json_int_t)l->acquisitions));
	json_object_set_new(o, "contended", json_integer((json_int_t)l->contended));
	json_object_set_new(o, "wait_ns", json_integer(l->wait_ns));
	json_object_set_new(o, "max_wait_ns", json_integer(l->max_wait_ns));
	json_object_set_new(o, "hold_ns", json_integer(l->hold_ns));
	json_object_set_new(o, "fg_wait_ns", json_integer(l->wait_cls_ns[SIM_CLASS_FG]));
	json_object_set_new(o, "bg_wait_ns", json_integer(l->wait_cls_ns[SIM_CLASS_BG]));
	json_object_set_new(o, "fg_acquisitions", json_integer((json_int_t)l->acq_cls[SIM_CLASS_FG]));
	json_object_set_new(o, "bg_acquisitions", json_integer((json_int_t)l->acq_cls[SIM_CLASS_BG]));
	return o;
}

struct json_t *pglock_to_json(const struct pglock *l)
{
	json_t *o = mm_lock_to_json(&l->l);
	json_object_set_new(o, "scope", json_string(pglock_scopes[l->p.scope]));
	json_object_set_new(o, "params", cfg_params_to_json(pglock_params_table, &l->p));
	return o;
}
