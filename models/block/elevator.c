/* Elevator core: scheduler registry, the back-merge hash, the dispatch
 * list helpers and the merge look-up the block core runs before it
 * allocates a request. Follows block/elevator.c of Linux 3.10-4.4
 * (elv_merge, elv_attempt_insert_merge, elv_merge_requests,
 * elv_dispatch_sort, elv_dispatch_add_tail, elv_rqhash_*, elv_rb_*).
 * Left out: elevator switching at run time, sysfs, the noxmerges knob.
 */
#include <stdlib.h>
#include <string.h>

#include "models/block/blk_int.h"
#include "models/block/elevator.h"
#include "sim/assert.h"

/* ------------------------------------------------------------ registry */

extern const struct elevator_ops noop_elevator_ops;
extern const struct elevator_ops deadline_elevator_ops;
extern const struct elevator_ops cfq_elevator_ops;
extern const struct elevator_ops none_elevator_ops;
extern const struct elevator_ops mq_deadline_elevator_ops;
extern const struct elevator_ops kyber_elevator_ops;
extern const struct elevator_ops bfq_elevator_ops;

/* One explicit table (docs/architecture.md §6); `mobisim list schedulers` prints it. */
static const struct elevator_ops *const elevator_table[] = {
	&noop_elevator_ops,
	&deadline_elevator_ops,
	&cfq_elevator_ops,
	&none_elevator_ops,
	&mq_deadline_elevator_ops,
	&kyber_elevator_ops,
	&bfq_elevator_ops,
	NULL,
};

const struct elevator_ops *const *elevator_registry(void)
{
	return elevator_table;
}

const struct elevator_ops *elevator_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct elevator_ops *const *p = elevator_table; *p; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}

/* ------------------------------------------------------- init and exit */

int elv_init(struct blk_queue *q, const struct elevator_ops *ops, struct cfg_node *sched_cfg,
	     struct sim_error *err)
{
	struct elevator *e = &q->elv;
	int rc;

	memset(e, 0, sizeof(*e));
	e->ops = ops;
	e->q = q;
	if (ops->priv_size) {
		e->priv = calloc(1, ops->priv_size);
		if (!e->priv)
			return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", ops->name);
	}
	if (ops->params) {
		rc = cfg_apply(ops->params, sched_cfg, e->priv, err);
		if (rc)
			goto fail;
	}
	if (ops->init) {
		rc = ops->init(e, err);
		if (rc)
			goto fail;
	}
	q->elv_inited = true;
	return 0;
fail:
	free(e->priv);
	e->priv = NULL;
	return rc;
}

void elv_exit(struct blk_queue *q)
{
	struct elevator *e = &q->elv;

	if (q->elv_inited && e->ops->exit)
		e->ops->exit(e);
	q->elv_inited = false;
	free(e->priv);
	e->priv = NULL;
}

/* ------------------------------------------------------ back-merge hash */

/* Keyed by the end sector, so a bio starting there finds its request
 * (rq_hash_key() in block/elevator.c). */
static inline uint32_t elv_hash_bucket(uint64_t end_sector)
{
	/* Fibonacci hashing of the key: deterministic, not pointer-based. */
	return (uint32_t)((end_sector * 0x9E3779B97F4A7C15ull) >> 58) & (BLK_HASH_BUCKETS - 1);
}

void elv_rqhash_add(struct blk_queue *q, struct io_request *rq)
{
	struct blk_rq *br = blk_rq_of(rq);

	SIM_ASSERT(!br->hashed);
	/* hash_add() pushes at the head: the newest request is found first. */
	list_add(&rq->hash, &q->hash[elv_hash_bucket(rq_end_sector(rq))]);
	br->hashed = true;
}

void elv_rqhash_del(struct blk_queue *q, struct io_request *rq)
{
	struct blk_rq *br = blk_rq_of(rq);

	(void)q;
	if (br->hashed) {
		list_del_init(&rq->hash);
		br->hashed = false;
	}
}

void elv_rqhash_reposition(struct blk_queue *q, struct io_request *rq)
{
	elv_rqhash_del(q, rq);
	elv_rqhash_add(q, rq);
}

struct io_request *elv_rqhash_find(struct blk_queue *q, uint64_t end_sector)
{
	struct list_head *h = &q->hash[elv_hash_bucket(end_sector)];
	struct list_head *pos, *tmp;

	list_for_each_safe(pos, tmp, h) {
		struct io_request *rq = list_entry(pos, struct io_request, hash);

		/* Requests that stopped being mergeable leave lazily. */
		if (blk_rq_of(rq)->nomerge) {
			elv_rqhash_del(q, rq);
			continue;
		}
		if (rq_end_sector(rq) == end_sector)
			return rq;
	}
	return NULL;
}

/* ------------------------------------------------------------- merging */

bool elv_rq_merge_ok(struct elevator *e, struct io_request *rq, struct bio *bio)
{
	if (!blk_rq_merge_ok(rq, bio))
		return false;
	if (e->ops->allow_merge && !e->ops->allow_merge(e, rq, bio))
		return false;
	return true;
}

enum elv_merge elv_merge(struct blk_queue *q, struct io_request **out, struct bio *bio)
{
	struct elevator *e = &q->elv;
	struct io_request *rq;

	/* One-hit cache first: sequential streams hit it almost always. */
	if (q->last_merge && elv_rq_merge_ok(e, q->last_merge, bio)) {
		enum elv_merge ret = blk_try_merge(q->last_merge, bio);

		if (ret != ELV_NO_MERGE) {
			*out = q->last_merge;
			return ret;
		}
	}
	rq = elv_rqhash_find(q, bio->sector);
	if (rq && elv_rq_merge_ok(e, rq, bio)) {
		*out = rq;
		return ELV_BACK_MERGE;
	}
	if (e->ops->merge)
		return e->ops->merge(e, bio, out);
	return ELV_NO_MERGE;
}

bool elv_attempt_insert_merge(struct blk_queue *q, struct io_request *rq)
{
	struct io_request *prev;
	bool ret = false;

	if (q->last_merge && blk_attempt_req_merge(q, q->last_merge, rq))
		return true;
	/* A merged request may in turn back-merge into another one. */
	for (;;) {
		prev = elv_rqhash_find(q, rq->sector);
		if (!prev || !blk_attempt_req_merge(q, prev, rq))
			break;
		ret = true;
		rq = prev;
	}
	return ret;
}

void elv_merge_requests(struct blk_queue *q, struct io_request *rq, struct io_request *next)
{
	struct elevator *e = &q->elv;
	bool next_sorted = blk_rq_of(next)->state == BLK_RQ_SORTED;

	if (next_sorted && e->ops->merged_requests)
		e->ops->merged_requests(e, rq, next);
	if (blk_rq_of(rq)->hashed)
		elv_rqhash_reposition(q, rq);
	if (next_sorted) {
		elv_rqhash_del(q, next);
		SIM_ASSERT(q->nr_sorted > 0);
		q->nr_sorted--;
	}
	q->last_merge = rq;
}

void elv_merged_request(struct blk_queue *q, struct io_request *rq, enum elv_merge type)
{
	struct elevator *e = &q->elv;

	if (e->ops->merged)
		e->ops->merged(e, rq, type);
	if (type == ELV_BACK_MERGE && blk_rq_of(rq)->hashed)
		elv_rqhash_reposition(q, rq);
	q->last_merge = rq;
}

/* ------------------------------------------------------- dispatch list */

/* The request leaves the scheduler: no more merges through the core. */
void elv_leave_scheduler(struct blk_queue *q, struct io_request *rq)
{
	struct blk_rq *br = blk_rq_of(rq);

	if (q->last_merge == rq)
		q->last_merge = NULL;
	elv_rqhash_del(q, rq);
	if (br->state == BLK_RQ_SORTED) {
		SIM_ASSERT(q->nr_sorted > 0);
		q->nr_sorted--;
	}
	br->state = BLK_RQ_DISPATCH;
}

void elv_rq_no_merge(struct elevator *e, struct io_request *rq)
{
	struct blk_queue *q = e->q;

	if (q->last_merge == rq)
		q->last_merge = NULL;
	elv_rqhash_del(q, rq);
}

void elv_dispatch_sort(struct blk_queue *q, struct io_request *rq)
{
	uint64_t boundary = q->end_sector;
	struct list_head *entry;

	elv_leave_scheduler(q, rq);
	/* Walk back from the tail: insert in ascending sector order among
	 * same-direction requests, those at or past the boundary (where the
	 * head goes next) before those behind it; never pass a barrier or a
	 * request of the other direction. */
	for (entry = q->queue_head.prev; entry != &q->queue_head; entry = entry->prev) {
		struct io_request *pos = list_entry(entry, struct io_request, queuelist);

		if (req_is_write(rq->flags) != req_is_write(pos->flags))
			break;
		if (blk_rq_of(pos)->softbarrier)
			break;
		if (rq->sector >= boundary) {
			if (pos->sector < boundary)
				continue;
		} else {
			if (pos->sector >= boundary)
				break;
		}
		if (rq->sector >= pos->sector)
			break;
	}
	list_add(&rq->queuelist, entry);
}

void elv_dispatch_add_tail(struct blk_queue *q, struct io_request *rq)
{
	elv_leave_scheduler(q, rq);
	q->end_sector = rq_end_sector(rq);
	list_add_tail(&rq->queuelist, &q->queue_head);
}

/* ----------------------------------------------------------- sort trees */

void elv_rb_add(struct rb_root *root, struct io_request *rq)
{
	struct rb_node **p = &root->node, *parent = NULL;

	while (*p) {
		struct io_request *cur = rb_entry(*p, struct io_request, rb_node);

		parent = *p;
		if (rq->sector < cur->sector)
			p = &(*p)->left;
		else
			p = &(*p)->right;
	}
	rb_link_node(&rq->rb_node, parent, p);
	rb_insert_color(&rq->rb_node, root);
}

void elv_rb_del(struct rb_root *root, struct io_request *rq)
{
	SIM_ASSERT(!RB_EMPTY_NODE(&rq->rb_node));
	rb_erase(&rq->rb_node, root);
	rb_clear_node(&rq->rb_node);
}

struct io_request *elv_rb_find(const struct rb_root *root, uint64_t sector)
{
	struct rb_node *n = root->node;

	while (n) {
		struct io_request *rq = rb_entry(n, struct io_request, rb_node);

		if (sector < rq->sector)
			n = n->left;
		else if (sector > rq->sector)
			n = n->right;
		else
			return rq;
	}
	return NULL;
}

struct io_request *elv_rb_cover(const struct rb_root *root, uint64_t sector)
{
	struct rb_node *n = root->node;
	struct io_request *best = NULL;

	while (n) {
		struct io_request *rq = rb_entry(n, struct io_request, rb_node);

		if (rq->sector <= sector) {
			best = rq;
			n = n->right;
		} else {
			n = n->left;
		}
	}
	return best && sector < rq_end_sector(best) ? best : NULL;
}

struct io_request *elv_rb_former_request(struct io_request *rq)
{
	struct rb_node *n = rb_prev(&rq->rb_node);

	return n ? rb_entry(n, struct io_request, rb_node) : NULL;
}

struct io_request *elv_rb_latter_request(struct io_request *rq)
{
	struct rb_node *n = rb_next(&rq->rb_node);

	return n ? rb_entry(n, struct io_request, rb_node) : NULL;
}
