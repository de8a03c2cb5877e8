/* boost: foreground-blocking async I/O boost (user-centric I/O
 * scheduling thesis, SNU 2017, §3.3 / docs/papers.md §1 mechanism 3).
 *
 * When writeback assigns a page to an async bio the page's LBA is
 * remembered (the thesis keeps it in the buffer head; in mobisim the
 * stack passes the page's sector, fixed once its blocks are allocated, to
 * on_wait_writeback). When a foreground task is about to block in
 * wait_on_page_writeback() on such a page, the LBA goes down through
 * blk_boost_lba() to the scheduler (CFQ's boost_lba, the thesis's
 * elv_boost_lba -> lookup_lba), which moves the request that carries it
 * to the front with top priority. If the scheduler does not hold it the
 * request is still in a plug list or already dispatched, and the task
 * waits as usual; the miss is counted by its reason (blk_locate_sector).
 * Background and root tasks waiting on writeback are left alone.
 *
 * The journal: an FG fsync that needs a jbd2 commit sleeps on the commit
 * (wait cause journal), not on a page; in data=ordered mode the commit
 * thread then sleeps in wait_on_page_writeback on the ordered inodes' data
 * (in 3.10 the whole BG file the flusher is streaming). That page wait is
 * jbd2's, not a foreground task's, so the thesis's boost does not lift
 * it: the FG's journal wait stays whole. It is counted (journal_waits;
 * journal_waits_fg_behind when an FG task was waiting for that commit).
 * `journal: true` is an extension, not the thesis: it also lifts the page
 * the commit waits on while an FG task waits for the commit.
 *
 * On blk-mq (block.kind: mq) blk_boost_lba looks wherever blk-mq holds the
 * request (models/block/blk_mq.c blk_mq_boost_lba): a plugged request is
 * marked and lifted by the scheduler when the plug is flushed, a queued
 * one by the scheduler's boost_lba (mq-deadline, kyber, bfq; with none it
 * goes from its software queue to the head of hctx->dispatch), one on
 * hctx->dispatch moves to its head; at the device nothing can be done.
 * Hits and misses are counted by where the request was found.
 */
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/policies/policy.h"
#include "models/stack/stack.h"
#include "sim/sim.h"

/* ---------------------------------------------------------- state */

enum boost_miss {
	BOOST_MISS_UNMAPPED = 0,   /* the page has no LBA (cannot happen under writeback) */
	BOOST_MISS_PLUGGED,        /* still in a plug list (single queue) */
	BOOST_MISS_DISPATCHED,     /* already on the dispatch list (single queue) */
	BOOST_MISS_DEVICE,         /* already at the device */
	BOOST_MISS_WAITING,        /* its bio sleeps in get_request: not a request yet */
	BOOST_MISS_SCHEDULER,      /* in the scheduler, but it has no boost_lba */
	BOOST_MISS_UNKNOWN,        /* not found anywhere in the block layer */
	BOOST_NMISS
};

static const char *const boost_miss_names[BOOST_NMISS] = {
	"unmapped", "plugged", "dispatched", "device", "waiting_request", "scheduler_no_boost",
	"not_found",
};

/* Where a hit found the request. */
enum boost_hit { BOOST_HIT_SCHEDULER = 0, BOOST_HIT_PLUGGED, BOOST_HIT_DISPATCH_LIST, BOOST_NHIT };
static const char *const boost_hit_names[BOOST_NHIT] = { "scheduler", "plugged", "dispatch_list" };

struct boost {
	bool fg_only;              /* tunable: boost only for foreground waiters (thesis) */
	bool journal;              /* tunable: also for a commit an FG task waits on (extension) */
	uint64_t waits_fg, waits_other, hits;
	uint64_t journal_waits, journal_waits_fg, journal_hits;
	uint64_t hit[BOOST_NHIT];
	uint64_t miss[BOOST_NMISS];
};

/* ---------------------------------------------------------- hooks */

static enum boost_miss boost_miss_reason(enum blk_where where)
{
	switch (where) {
	case BLK_WHERE_PLUGGED: return BOOST_MISS_PLUGGED;
	case BLK_WHERE_DISPATCHED: return BOOST_MISS_DISPATCHED;
	case BLK_WHERE_DEVICE: return BOOST_MISS_DEVICE;
	case BLK_WHERE_WAITING: return BOOST_MISS_WAITING;
	case BLK_WHERE_SCHEDULER: return BOOST_MISS_SCHEDULER;
	default: return BOOST_MISS_UNKNOWN;
	}
}

static void boost_wait_writeback(struct policy *p, struct stack_task *t, uint64_t page_lba)
{
	struct boost *b = p->priv;
	struct blk_queue *q = p->sim->blk;
	enum blk_where where;

	struct stack *st = p->sim->stack;
	bool jbd2 = st && t == stack_journal_task(st);
	if (jbd2) {
		bool fg_behind = stack_journal_fg_waiting(st);
		b->journal_waits++;
		b->journal_waits_fg += fg_behind;
		if (!(b->journal && fg_behind) && b->fg_only)
			return;
	} else if (b->fg_only && !stack_task_is_fg(t)) {
		b->waits_other++;
		return;
	}
	b->waits_fg++;
	if (!q)
		return;
	if (page_lba == UINT64_MAX) {
		b->miss[BOOST_MISS_UNMAPPED]++;
		return;
	}
	/* where first: a hit moves the request */
	where = blk_locate_sector(q, page_lba);
	if (blk_boost_lba(q, page_lba)) {
		b->hits++;
		b->journal_hits += jbd2;
		b->hit[where == BLK_WHERE_PLUGGED ? BOOST_HIT_PLUGGED
		       : where == BLK_WHERE_DISPATCHED ? BOOST_HIT_DISPATCH_LIST
						       : BOOST_HIT_SCHEDULER]++;
		return;
	}
	b->miss[boost_miss_reason(where)]++;
}

static void boost_stats(const struct policy *p, struct json_t *obj)
{
	const struct boost *b = p->priv;
	uint64_t misses = 0;
	json_t *m = json_object();
	for (int i = 0; i < BOOST_NMISS; i++) {
		misses += b->miss[i];
		json_object_set_new(m, boost_miss_names[i], json_integer((json_int_t)b->miss[i]));
	}
	json_object_set_new(obj, "waits_boosted_class", json_integer((json_int_t)b->waits_fg));
	json_object_set_new(obj, "waits_ignored", json_integer((json_int_t)b->waits_other));
	json_object_set_new(obj, "journal_waits", json_integer((json_int_t)b->journal_waits));
	json_object_set_new(obj, "journal_waits_fg_behind",
			    json_integer((json_int_t)b->journal_waits_fg));
	json_object_set_new(obj, "journal_hits", json_integer((json_int_t)b->journal_hits));
	json_object_set_new(obj, "hits", json_integer((json_int_t)b->hits));
	json_object_set_new(obj, "misses", json_integer((json_int_t)misses));
	json_object_set_new(obj, "miss_reasons", m);
	m = json_object();
	for (int i = 0; i < BOOST_NHIT; i++)
		json_object_set_new(m, boost_hit_names[i], json_integer((json_int_t)b->hit[i]));
	json_object_set_new(obj, "hits_where", m);
	json_object_set_new(obj, "applied", json_boolean(p->sim->stack && p->sim->blk));
}

/* --------------------------------------------------------- params, ops */

static const struct cfg_param boost_params[] = {
	{ "fg_only", CFG_T_BOOL, offsetof(struct boost, fg_only), "", "true", CFG_NO_RANGE,
	  "thesis §3.3: only a foreground task blocking in wait_on_page_writeback boosts",
	  "boost only for foreground waiters (false: for every waiter, an ablation)", NULL },
	{ "journal", CFG_T_BOOL, offsetof(struct boost, journal), "", "false", CFG_NO_RANGE,
	  "extension (not in the thesis, §3.3 boosts only a foreground task's own page wait)",
	  "also lift the ordered-data page a jbd2 commit waits on while a foreground task waits "
	  "for that commit", NULL },
	CFG_PARAM_END,
};

const struct policy_ops boost_policy_ops = {
	.name = "boost",
	.summary = "FG-blocking async I/O boost: lift the request of a page an FG task waits on (thesis §3.3)",
	.abi = MOBISIM_POLICY_ABI,
	.params = boost_params,
	.priv_size = sizeof(struct boost),
	.on_wait_writeback = boost_wait_writeback,
	.stats_json = boost_stats,
};
