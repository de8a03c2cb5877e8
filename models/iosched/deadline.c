/* deadline: per-direction sort trees and FIFOs. Requests are served in
 * ascending sector order in batches of fifo_batch; a new batch starts
 * from the oldest request of its direction when that one has expired
 * (read_expire / write_expire). Reads are preferred, but a pending write
 * batch is started after reads were chosen over writes writes_starved
 * times. Follows block/deadline-iosched.c of Linux 3.10-4.4
 * (deadline_dispatch_requests, deadline_check_fifo, deadline_move_request,
 * deadline_merge, deadline_merged_requests).
 *
 * Expiry is in nanoseconds rather than jiffies: the kernel rounds
 * read_expire to HZ/2 jiffies, which at any HZ is exactly 500 ms.
 * boost_lba (mobisim's policy hook) makes the request covering a sector
 * the next one dispatched.
 */
#include <stddef.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/block/elevator.h"
#include "sim/list.h"
#include "sim/rbtree.h"
#include "sim/sim.h"

enum { DD_READ = 0, DD_WRITE = 1 };

struct deadline_data {
	/* tunables */
	int64_t read_expire_ns;
	int64_t write_expire_ns;
	int64_t fifo_batch;
	int64_t writes_starved;
	bool front_merges;

	struct rb_root sort_list[2];
	struct list_head fifo_list[2];
	struct io_request *next_rq[2]; /* next in sort order, for batching */
	int64_t batching;              /* requests dispatched in this batch */
	int64_t starved;               /* times reads were chosen over waiting writes */
	struct io_request *boost_rq;   /* dispatched next, ahead of everything */

	uint64_t dispatched[2];
	uint64_t expired_starts;       /* batches started because a request expired */
	uint64_t write_starts_starved; /* write batches forced by writes_starved */
	uint64_t boosted;
};

static inline int dd_dir(const struct io_request *rq)
{
	return req_is_write(rq->flags) ? DD_WRITE : DD_READ;
}

/* ------------------------------------------------------------- helpers */

static void deadline_del_rq_rb(struct deadline_data *dd, struct io_request *rq)
{
	int dir = dd_dir(rq);

	if (dd->next_rq[dir] == rq)
		dd->next_rq[dir] = elv_rb_latter_request(rq);
	elv_rb_del(&dd->sort_list[dir], rq);
}

static void deadline_remove_request(struct deadline_data *dd, struct io_request *rq)
{
	list_del_init(&rq->queuelist);
	deadline_del_rq_rb(dd, rq);
	if (dd->boost_rq == rq)
		dd->boost_rq = NULL;
}

/* Hand rq to the dispatch list and remember where the sweep goes on. */
static void deadline_move_request(struct elevator *e, struct deadline_data *dd,
				  struct io_request *rq)
{
	int dir = dd_dir(rq);

	dd->next_rq[DD_READ] = NULL;
	dd->next_rq[DD_WRITE] = NULL;
	dd->next_rq[dir] = elv_rb_latter_request(rq);
	deadline_remove_request(dd, rq);
	elv_dispatch_add_tail(e->q, rq);
	dd->dispatched[dir]++;
}

/* Has the oldest request of dir expired? */
static bool deadline_check_fifo(struct elevator *e, struct deadline_data *dd, int dir)
{
	struct io_request *rq = list_first_entry(&dd->fifo_list[dir], struct io_request, queuelist);

	return sim_now(blk_queue_sim(e->q)) >= rq->fifo_time;
}

/* --------------------------------------------------------------- hooks */

static int deadline_init(struct elevator *e, struct sim_error *err)
{
	struct deadline_data *dd = e->priv;

	(void)err;
	for (int d = 0; d < 2; d++) {
		dd->sort_list[d] = RB_ROOT;
		list_init(&dd->fifo_list[d]);
	}
	return 0;
}

static void deadline_add_request(struct elevator *e, struct io_request *rq)
{
	struct deadline_data *dd = e->priv;
	int dir = dd_dir(rq);

	elv_rb_add(&dd->sort_list[dir], rq);
	rq->fifo_time = sim_now(blk_queue_sim(e->q)) +
			(dir == DD_READ ? dd->read_expire_ns : dd->write_expire_ns);
	list_add_tail(&rq->queuelist, &dd->fifo_list[dir]);
}

/* Front merge through the sort tree; the core has tried the back-merge hash. */
static enum elv_merge deadline_merge(struct elevator *e, struct bio *bio, struct io_request **out)
{
	struct deadline_data *dd = e->priv;
	struct io_request *rq;

	if (!dd->front_merges)
		return ELV_NO_MERGE;
	rq = elv_rb_find(&dd->sort_list[req_is_write(bio->flags) ? DD_WRITE : DD_READ],
			 bio->sector + bio->nr_sectors);
	if (rq && elv_rq_merge_ok(e, rq, bio)) {
		*out = rq;
		return ELV_FRONT_MERGE;
	}
	return ELV_NO_MERGE;
}

static void deadline_merged(struct elevator *e, struct io_request *rq, enum elv_merge type)
{
	struct deadline_data *dd = e->priv;

	/* A front merge changed the sort key. */
	if (type == ELV_FRONT_MERGE) {
		elv_rb_del(&dd->sort_list[dd_dir(rq)], rq);
		elv_rb_add(&dd->sort_list[dd_dir(rq)], rq);
	}
}

static void deadline_merged_requests(struct elevator *e, struct io_request *rq,
				     struct io_request *next)
{
	struct deadline_data *dd = e->priv;

	/* rq takes over next's place in the FIFO if next was older. */
	if (!list_empty(&rq->queuelist) && !list_empty(&next->queuelist) &&
	    next->fifo_time < rq->fifo_time) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	if (dd->boost_rq == next)
		dd->boost_rq = rq;
	deadline_remove_request(dd, next);
}

static int deadline_dispatch(struct elevator *e, bool force)
{
	struct deadline_data *dd = e->priv;
	bool reads = !list_empty(&dd->fifo_list[DD_READ]);
	bool writes = !list_empty(&dd->fifo_list[DD_WRITE]);
	struct io_request *rq;
	int dir;

	(void)force;
	if (dd->boost_rq) {
		rq = dd->boost_rq;
		dd->boost_rq = NULL;
		deadline_move_request(e, dd, rq);
		return 1;
	}

	/* A batch runs in one direction while it has a next request. */
	rq = dd->next_rq[DD_WRITE] ? dd->next_rq[DD_WRITE] : dd->next_rq[DD_READ];
	if (rq && dd->batching < dd->fifo_batch)
		goto dispatch_request;

	if (reads) {
		if (writes && dd->starved++ >= dd->writes_starved) {
			dd->write_starts_starved++;
			goto dispatch_writes;
		}
		dir = DD_READ;
		goto dispatch_find_request;
	}
	if (writes) {
dispatch_writes:
		dd->starved = 0;
		dir = DD_WRITE;
		goto dispatch_find_request;
	}
	return 0;

dispatch_find_request:
	/* An expired request, a change of direction, or the end of the sweep:
	 * restart from the oldest request; else carry on in sector order. */
	if (deadline_check_fifo(e, dd, dir) || !dd->next_rq[dir]) {
		if (deadline_check_fifo(e, dd, dir))
			dd->expired_starts++;
		rq = list_first_entry(&dd->fifo_list[dir], struct io_request, queuelist);
	} else {
		rq = dd->next_rq[dir];
	}
	dd->batching = 0;

dispatch_request:
	dd->batching++;
	deadline_move_request(e, dd, rq);
	return 1;
}

static struct io_request *deadline_former_request(struct elevator *e, struct io_request *rq)
{
	(void)e;
	return elv_rb_former_request(rq);
}

static struct io_request *deadline_latter_request(struct elevator *e, struct io_request *rq)
{
	(void)e;
	return elv_rb_latter_request(rq);
}

static bool deadline_queue_empty(struct elevator *e)
{
	struct deadline_data *dd = e->priv;

	return list_empty(&dd->fifo_list[DD_READ]) && list_empty(&dd->fifo_list[DD_WRITE]);
}

static bool deadline_boost_lba(struct elevator *e, uint64_t sector)
{
	struct deadline_data *dd = e->priv;

	for (int d = 0; d < 2; d++) {
		struct io_request *rq = elv_rb_cover(&dd->sort_list[d], sector);

		if (rq) {
			rq->flags |= REQ_BOOSTED;
			dd->boost_rq = rq;
			dd->boosted++;
			return true;
		}
	}
	return false;
}

static void deadline_stats_json(const struct elevator *e, struct json_t *obj)
{
	const struct deadline_data *dd = e->priv;

	json_object_set_new(obj, "dispatched_reads", json_integer((json_int_t)dd->dispatched[DD_READ]));
	json_object_set_new(obj, "dispatched_writes", json_integer((json_int_t)dd->dispatched[DD_WRITE]));
	json_object_set_new(obj, "expired_batch_starts", json_integer((json_int_t)dd->expired_starts));
	json_object_set_new(obj, "starved_write_batches",
			    json_integer((json_int_t)dd->write_starts_starved));
	json_object_set_new(obj, "boosted", json_integer((json_int_t)dd->boosted));
}

/* ---------------------------------------------------------- parameters */

#define DD_SRC "block/deadline-iosched.c (Linux 3.10-4.4)"

static const struct cfg_param deadline_params[] = {
	{ .key = "read_expire_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct deadline_data, read_expire_ns), .unit = "ms", .def = "500",
	  .min = 0, .max = 600000, .source = DD_SRC " read_expire = HZ / 2",
	  .help = "time after which a queued read is served before sector order" },
	{ .key = "write_expire_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct deadline_data, write_expire_ns), .unit = "ms", .def = "5000",
	  .min = 0, .max = 600000, .source = DD_SRC " write_expire = 5 * HZ",
	  .help = "same for writes (a soft limit)" },
	{ .key = "fifo_batch", .type = CFG_T_INT,
	  .offset = offsetof(struct deadline_data, fifo_batch), .unit = "", .def = "16",
	  .min = 1, .max = 1000000, .source = DD_SRC " fifo_batch = 16",
	  .help = "requests dispatched in sector order before expiry is checked again" },
	{ .key = "writes_starved", .type = CFG_T_INT,
	  .offset = offsetof(struct deadline_data, writes_starved), .unit = "", .def = "2",
	  .min = 0, .max = 1000000, .source = DD_SRC " writes_starved = 2",
	  .help = "read batches that may pass waiting writes before a write batch" },
	{ .key = "front_merges", .type = CFG_T_BOOL,
	  .offset = offsetof(struct deadline_data, front_merges), .unit = "", .def = "true",
	  .min = 1, .max = 0, .source = DD_SRC " dd->front_merges = 1",
	  .help = "look for front merges in the sort tree" },
	CFG_PARAM_END,
};

const struct elevator_ops deadline_elevator_ops = {
	.name = "deadline",
	.summary = "sector-sorted batches with read/write expiry (block/deadline-iosched.c)",
	.params = deadline_params,
	.priv_size = sizeof(struct deadline_data),
	.init = deadline_init,
	.merge = deadline_merge,
	.merged = deadline_merged,
	.merged_requests = deadline_merged_requests,
	.former_request = deadline_former_request,
	.latter_request = deadline_latter_request,
	.add_request = deadline_add_request,
	.dispatch = deadline_dispatch,
	.queue_empty = deadline_queue_empty,
	.boost_lba = deadline_boost_lba,
	.stats_json = deadline_stats_json,
};
