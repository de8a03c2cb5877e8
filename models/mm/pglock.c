/* The page-cache lock: one FIFO (ticket) spinlock in simulated time.
 *
 * What it stands for. The thesis (docs/papers.md §1) says that getting
 * free pages and inserting valid pages into the page cache takes "a global
 * lock", so a background writer inserting pages at memory speed delays a
 * foreground reader. In Linux 3.10 the per-file mapping->tree_lock guards
 * the radix tree (per file, so FG and BG rarely share it) and lookups are
 * RCU (find_get_page takes no lock); the lock every page insertion of
 * every file ends up taking is zone->lru_lock, reached from
 * add_to_page_cache_lru() -> lru_cache_add_file() through a per-CPU
 * pagevec of PAGEVEC_SIZE = 14 pages that __pagevec_lru_add() drains under
 * the lock; reclaim (shrink_inactive_list) isolates SWAP_CLUSTER_MAX = 32
 * pages under the same lock. A phone has one zone (or two), so it is
 * effectively global (docs/references.md §3.5). The default scope "lru" models
 * exactly that: one acquisition per 14 inserted pages (fixed + per-page
 * hold), one per reclaim batch; lookups and deletions take nothing. Scope
 * "global" is the thesis's literal reading: every lookup, insert and
 * delete takes the one lock for its own hold time as well.
 *
 * Mechanics: a ticket lock serves acquirers in arrival order, and holders
 * here never block while holding it, so the instant the lock becomes free
 * is known: an acquirer arriving at t waits max(0, free_at - t) and then
 * holds it for hold_ns; free_at advances by the hold. This is exact FIFO
 * behaviour as long as acquisitions are processed in time order, which the
 * event loop guarantees (every acquisition is a step of its own).
 * Left out: IRQ-disabled hold inflation, cache-line bouncing costs that grow
 * with the number of spinners, and the CPU time burnt spinning.
 */
#include <stddef.h>

#include <jansson.h>

#include "models/stack/stack_int.h"
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
	  "4000", 0, 1e9, "fitted: isolate_lru_pages of 32 pages (INFER)",
	  "hold of one reclaim isolation batch (SWAP_CLUSTER_MAX pages)", NULL },
	{ "lookup_ns", CFG_T_TIME, offsetof(struct pglock_params, lookup_ns), "ns", "100", 0, 1e9,
	  "fitted (INFER); 3.10 find_get_page is RCU: used only with scope global",
	  "hold per page lookup (scope global)", NULL },
	{ "insert_ns", CFG_T_TIME, offsetof(struct pglock_params, insert_ns), "ns", "250", 0, 1e9,
	  "fitted (INFER): radix_tree_insert under tree_lock; used only with scope global",
	  "hold per page insert (scope global)", NULL },
	{ "delete_ns", CFG_T_TIME, offsetof(struct pglock_params, delete_ns), "ns", "250", 0, 1e9,
	  "fitted (INFER): __delete_from_page_cache; used only with scope global",
	  "hold per page delete (scope global)", NULL },
	CFG_PARAM_END,
};

int pglock_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	struct pglock *l = &s->lock;
	return cfg_apply(pglock_params_table, node, &l->p, err);
}

int64_t pglock_acquire(struct pglock *l, int64_t now, int64_t hold_ns, enum sim_class c)
{
	int64_t wait = l->free_at > now ? l->free_at - now : 0;
	l->free_at = now + wait + hold_ns;
	l->acquisitions++;
	l->acq_cls[c]++;
	l->hold_ns += hold_ns;
	if (wait > 0) {
		l->contended++;
		l->wait_ns += wait;
		l->wait_cls_ns[c] += wait;
		if (wait > l->max_wait_ns)
			l->max_wait_ns = wait;
	}
	return wait;
}

enum step pglock_take(struct stack_task *t, int64_t hold_ns)
{
	struct stack *s = t->stack;
	int64_t wait = pglock_acquire(&s->lock, sim_now(s->sim), hold_ns, task_class(t));
	return task_delay(t, wait, SIM_WAIT_PAGECACHE_LOCK, hold_ns, false);
}

struct json_t *pglock_to_json(const struct pglock *l)
{
	json_t *o = json_object();
	json_object_set_new(o, "scope", json_string(pglock_scopes[l->p.scope]));
	json_object_set_new(o, "acquisitions", json_integer((json_int_t)l->acquisitions));
	json_object_set_new(o, "contended", json_integer((json_int_t)l->contended));
	json_object_set_new(o, "wait_ns", json_integer(l->wait_ns));
	json_object_set_new(o, "max_wait_ns", json_integer(l->max_wait_ns));
	json_object_set_new(o, "hold_ns", json_integer(l->hold_ns));
	json_object_set_new(o, "fg_wait_ns", json_integer(l->wait_cls_ns[SIM_CLASS_FG]));
	json_object_set_new(o, "bg_wait_ns", json_integer(l->wait_cls_ns[SIM_CLASS_BG]));
	json_object_set_new(o, "fg_acquisitions", json_integer((json_int_t)l->acq_cls[SIM_CLASS_FG]));
	json_object_set_new(o, "bg_acquisitions", json_integer((json_int_t)l->acq_cls[SIM_CLASS_BG]));
	json_object_set_new(o, "params", cfg_params_to_json(pglock_params_table, &l->p));
	return o;
}
