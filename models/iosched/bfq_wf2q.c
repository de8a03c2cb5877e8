/* bfq's scheduling of service (block/bfq-wf2q.c of Linux 6.1) and its
 * groups (block/bfq-cgroup.c): B-WF2Q+ per class over the entities of a
 * group's service trees - virtual start and finish times, the eligible
 * entity with the smallest finish served next, service charged up the
 * path - and the bfq_group of a blkio cgroup, with a sync queue moving to
 * its task's new group. What each step means for the scheduler as a whole
 * is at the top of models/iosched/bfq.c.
 */
#include <stdlib.h>

#include "models/iosched/bfq_int.h"

/* ------------------------------------------------------------ B-WF2Q+ */

/* bfq_update_fin_time_enqueue(): an entity joins its parent's active
 * tree at max(V, its old finish) - it cannot claim service it did not
 * use while idle - and finishes one budget / weight later. */
void bfq_entity_enqueue(struct bfq_entity *ent)
{
	struct bfq_group *g = ent->parent;
	uint64_t v = g->vtime[ent->cls];

	ent->busy = true;
	ent->start = ent->finish > v ? ent->finish : v;
	ent->finish = ent->start + bfq_delta(ent->budget, ent->weight);
	g->wsum[ent->cls] += ent->weight;
	list_add_tail(&ent->busy_node, &g->busy[ent->cls]);
	g->busy_children++;
}

static void bfq_entity_dequeue(struct bfq_entity *ent)
{
	struct bfq_group *g = ent->parent;

	ent->busy = false;
	g->wsum[ent->cls] -= ent->weight;
	list_del_init(&ent->busy_node);
	g->busy_children--;
}

/* __bfq_lookup_next_entity(): V catches up with the smallest start when
 * nothing is eligible; then the eligible entity with the smallest finish. */
static struct bfq_entity *bfq_lookup_class(struct bfq_group *g, int cls,
					   const struct bfq_entity *exclude, bool update)
{
	struct bfq_entity *ent, *best = NULL;
	uint64_t min_start = UINT64_MAX, v = g->vtime[cls];

	bfq_for_each(ent, &g->busy[cls], struct bfq_entity, busy_node)
		if (ent != exclude && ent->start < min_start)
			min_start = ent->start;
	if (min_start == UINT64_MAX)
		return NULL;
	if (v < min_start)
		v = min_start;
	if (update)
		g->vtime[cls] = v;
	bfq_for_each(ent, &g->busy[cls], struct bfq_entity, busy_node)
		if (ent != exclude && ent->start <= v && (!best || ent->finish < best->finish))
			best = ent;
	return best;
}

/* bfq_lookup_next_entity() of one group: classes in strict order, the
 * idle class once per BFQ_CL_IDLE_TIMEOUT (per sched_data). */
static struct bfq_entity *bfq_lookup_group(struct bfq_data *bfqd, struct bfq_group *g,
					   const struct bfq_entity *exclude, bool update)
{
	int64_t now = bfq_now(bfqd);

	if (!list_empty(&g->busy[2]) && now > g->last_idle_class_service + BFQ_CL_IDLE_TIMEOUT_NS) {
		struct bfq_entity *ent = bfq_lookup_class(g, 2, exclude, update);

		if (ent) {
			if (update)
				g->last_idle_class_service = now;
			return ent;
		}
	}
	for (int c = 0; c < BFQ_NCLASS; c++) {
		struct bfq_entity *ent = bfq_lookup_class(g, c, exclude, update);

		if (ent) {
			if (c == 2 && update)
				g->last_idle_class_service = now;
			return ent;
		}
	}
	return NULL;
}

/* bfq_update_parent_budget(): a group entity is enqueued with the budget
 * of the child that would be served first inside it. */
uint64_t bfq_group_next_budget(struct bfq_data *bfqd, struct bfq_group *g)
{
	struct bfq_entity *ent = bfq_lookup_group(bfqd, g, NULL, false);

	return ent ? ent->budget : bfq_min_budget(bfqd);
}

/* The ancestor of ent scheduled in the root group. */
struct bfq_entity *bfq_top_entity(struct bfq_data *bfqd, struct bfq_entity *ent)
{
	while (ent->parent != bfqd->root)
		ent = &ent->parent->entity;
	return ent;
}

/* bfq_activate_bfqq(): a queue becomes busy; the groups above it that
 * were idle become active in their parents too. */
static void bfq_activate(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_entity *ent = &bfqq->entity;

	bfq_entity_enqueue(ent);
	while (ent->parent != bfqd->root && !ent->parent->entity.busy) {
		struct bfq_group *g = ent->parent;

		g->entity.budget = ent->budget;
		ent = &g->entity;
		bfq_entity_enqueue(ent);
	}
}

/* bfq_deactivate_entity(): a queue leaves; so does every group above it
 * left without an active child. */
static void bfq_deactivate(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	struct bfq_entity *ent = &bfqq->entity;

	bfq_entity_dequeue(ent);
	while (ent->parent != bfqd->root && ent->parent->busy_children == 0 && ent->parent->entity.busy) {
		ent = &ent->parent->entity;
		bfq_entity_dequeue(ent);
	}
}

/* bfq_group_pending(): num_queues_with_pending_reqs of the queue's group
 * (a queue counts while busy or with requests at the device; 6.1 counts
 * the root group too). */
void bfq_update_pending(struct bfq_queue *bfqq)
{
	bool want = bfqq->entity.busy || bfqq->dispatched > 0;

	if (want == bfqq->pending)
		return;
	bfqq->pending = want;
	if (want)
		bfqq->bfqg->queues_with_pending++;
	else
		bfqq->bfqg->queues_with_pending--;
}

void bfq_add_busy(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfq_activate(bfqd, bfqq);
	bfqd->busy_queues++;
	bfqd->busy_per_class[bfqq->cls]++;
	if (bfqq->wr_coeff > 1)
		bfqd->wr_busy_queues++;
	bfq_update_pending(bfqq);
}

void bfq_del_busy(struct bfq_data *bfqd, struct bfq_queue *bfqq)
{
	bfq_deactivate(bfqd, bfqq);
	bfqd->busy_queues--;
	bfqd->busy_per_class[bfqq->cls]--;
	if (bfqq->wr_coeff > 1)
		bfqd->wr_busy_queues--;
	bfq_update_pending(bfqq);
}

/* bfq_bfqq_served(): the service goes to the queue and every group
 * above it, and advances each level's virtual time. */
void bfq_served(struct bfq_data *bfqd, struct bfq_queue *bfqq, uint64_t charge)
{
	for (struct bfq_entity *ent = &bfqq->entity;; ent = &ent->parent->entity) {
		struct bfq_group *g = ent->parent;
		uint64_t w = g->wsum[ent->cls];

		ent->service += charge;
		g->vtime[ent->cls] += bfq_delta(charge, (uint32_t)(w ? w : 1));
		if (g == bfqd->root)
			break;
	}
}

/* sd->next_in_service of the root group: who would be served after the
 * queue in service (its root-level entity stays a candidate while other
 * children of its group are active, bfq_no_longer_next_in_service). */
struct bfq_entity *bfq_peek_next_root(struct bfq_data *bfqd, struct bfq_queue *in)
{
	struct bfq_entity *top = bfq_top_entity(bfqd, &in->entity);
	bool keep = top->my_group && top->my_group->busy_children > 1;

	return bfq_lookup_group(bfqd, bfqd->root, keep ? NULL : top, false);
}

struct bfq_queue *bfq_lookup_next(struct bfq_data *bfqd)
{
	struct bfq_group *g = bfqd->root;

	for (;;) {
		struct bfq_entity *ent = bfq_lookup_group(bfqd, g, NULL, true);

		if (!ent)
			return NULL;
		ent->service = 0;
		if (ent->bfqq)
			return ent->bfqq;
		g = ent->my_group;
	}
}

/* ------------------------------------------------------------- groups */

/* bfq_find_set_group(): the group of the issuing task's blkio cgroup,
 * created on its first request; a cgroup's blkio.bfq.weight is read when
 * the group is not active (bfq_group_set_weight applies a new weight at
 * the next activation). Android's blkio hierarchy is flat (/background
 * under the root), so every group's parent is the root group. */
struct bfq_group *bfq_group_of(struct bfq_data *bfqd, const struct io_context *ioc)
{
	struct bfq_group *g;
	uint32_t w;

	if (!bfqd->group_iosched || !ioc || ioc->blkcg_id == 0)
		return bfqd->root;
	w = ioc->blkcg_bfq_weight ? ioc->blkcg_bfq_weight : (uint32_t)bfqd->group_weight_default;
	bfq_for_each(g, &bfqd->groups, struct bfq_group, node)
		if (g->id == ioc->blkcg_id) {
			if (!g->entity.busy)
				g->weight = g->entity.weight = w;
			return g;
		}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->id = ioc->blkcg_id;
	g->weight = w;
	for (int c = 0; c < BFQ_NCLASS; c++)
		list_init(&g->busy[c]);
	list_init(&g->entity.busy_node);
	g->entity.parent = bfqd->root;
	g->entity.my_group = g;
	g->entity.cls = 1;           /* BFQ_DEFAULT_GRP_CLASS: best effort */
	g->entity.weight = w;
	list_add_tail(&g->node, &bfqd->groups);
	return g;
}


/* bfq_bfqq_move(): a task changed cgroup (an fg switch); its sync queue
 * follows it with its requests, expired first if in service, and starts
 * afresh in the new group's virtual time. */
void bfq_move_queue(struct bfq_data *bfqd, struct bfq_queue *bfqq, struct bfq_group *g)
{
	bool busy = bfqq->entity.busy;

	if (bfqd->in_service == bfqq)
		bfq_expire(bfqd, bfqq, BFQQE_PREEMPTED);
	busy = bfqq->entity.busy;
	if (busy)
		bfq_deactivate(bfqd, bfqq);
	if (bfqq->pending) {
		bfqq->bfqg->queues_with_pending--;
		g->queues_with_pending++;
	}
	bfqq->bfqg = g;
	bfqq->entity.parent = g;
	bfqq->entity.finish = 0;
	if (busy)
		bfq_activate(bfqd, bfqq);
	bfqd->group_moves++;
}
