/* noop: one FIFO, no reordering beyond the sorted insert into the dispatch
 * list and the block core's merges. Follows block/noop-iosched.c of Linux
 * 3.10-4.4; boost_lba (mobisim's policy hook) moves the request covering a
 * sector to the head of the FIFO.
 */
#include <stdlib.h>

#include <jansson.h>

#include "models/block/elevator.h"
#include "sim/list.h"

struct noop_data {
	struct list_head queue;
	uint64_t boosted;
};

static int noop_init(struct elevator *e, struct sim_error *err)
{
	struct noop_data *nd = e->priv;

	(void)err;
	list_init(&nd->queue);
	return 0;
}

static void noop_merged_requests(struct elevator *e, struct io_request *rq, struct io_request *next)
{
	(void)e;
	(void)rq;
	list_del_init(&next->queuelist);
}

/* One request per call, sorted into the dispatch list (noop_dispatch). */
static int noop_dispatch(struct elevator *e, bool force)
{
	struct noop_data *nd = e->priv;
	struct io_request *rq;

	(void)force;
	if (list_empty(&nd->queue))
		return 0;
	rq = list_first_entry(&nd->queue, struct io_request, queuelist);
	list_del_init(&rq->queuelist);
	elv_dispatch_sort(e->q, rq);
	return 1;
}

static void noop_add_request(struct elevator *e, struct io_request *rq)
{
	struct noop_data *nd = e->priv;

	list_add_tail(&rq->queuelist, &nd->queue);
}

/* Neighbours are FIFO neighbours, not sector neighbours, as in the kernel. */
static struct io_request *noop_former_request(struct elevator *e, struct io_request *rq)
{
	struct noop_data *nd = e->priv;

	if (rq->queuelist.prev == &nd->queue)
		return NULL;
	return list_entry(rq->queuelist.prev, struct io_request, queuelist);
}

static struct io_request *noop_latter_request(struct elevator *e, struct io_request *rq)
{
	struct noop_data *nd = e->priv;

	if (rq->queuelist.next == &nd->queue)
		return NULL;
	return list_entry(rq->queuelist.next, struct io_request, queuelist);
}

static bool noop_queue_empty(struct elevator *e)
{
	struct noop_data *nd = e->priv;

	return list_empty(&nd->queue);
}

static bool noop_boost_lba(struct elevator *e, uint64_t sector)
{
	struct noop_data *nd = e->priv;
	struct list_head *pos;

	list_for_each(pos, &nd->queue) {
		struct io_request *rq = list_entry(pos, struct io_request, queuelist);

		if (sector >= rq->sector && sector < rq_end_sector(rq)) {
			list_move(&rq->queuelist, &nd->queue);
			rq->flags |= REQ_BOOSTED;
			nd->boosted++;
			return true;
		}
	}
	return false;
}

static void noop_stats_json(const struct elevator *e, struct json_t *obj)
{
	const struct noop_data *nd = e->priv;

	json_object_set_new(obj, "boosted", json_integer((json_int_t)nd->boosted));
}

const struct elevator_ops noop_elevator_ops = {
	.name = "noop",
	.summary = "FIFO with merging only (block/noop-iosched.c)",
	.params = NULL,
	.priv_size = sizeof(struct noop_data),
	.init = noop_init,
	.merged_requests = noop_merged_requests,
	.former_request = noop_former_request,
	.latter_request = noop_latter_request,
	.add_request = noop_add_request,
	.dispatch = noop_dispatch,
	.queue_empty = noop_queue_empty,
	.boost_lba = noop_boost_lba,
	.stats_json = noop_stats_json,
};
