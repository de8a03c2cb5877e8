/* kyber: a token-based scheduler that keeps latency targets by throttling
 * how many requests of each domain may be at the device. Follows
 * block/kyber-iosched.c of Linux 5.10/6.1 (the histogram version of 5.0+):
 * four domains (read, write, discard, other) with device-wide token
 * pools of 256/128/64/16; requests wait in per-CPU lists per domain and
 * are dispatched in batches of 16/8/1/1 per domain, round robin over the
 * domains, each taking a token; completions feed per-domain histograms of
 * total latency (allocation to completion) and I/O latency (dispatch to
 * completion) in eight buckets of a quarter target each; a timer 100 ms
 * after a completion (timer_reduce(HZ / 10)) reads them: a p90 I/O
 * latency past the target in any domain means congestion, and then every
 * domain whose total p99 is within target is throttled, its depth scaled
 * by (p99 bucket + 1) / 4, while a domain with a bad total p99 gets its
 * depth scaled up the same way. Percentiles need 500 samples or a second
 * since the first one. Async requests may take only 75 % of each word of
 * the scheduler tags (kyber_depth_updated of 6.1: per-word shallow depth).
 *
 * Left out: the per-CPU split of the histograms (summed anyway), the
 * sbitmap wait-queue rotation of a domain's token waiters (a token freed
 * at completion reruns the queue, which is what kyber_domain_wake does).
 *
 * mobisim addition: boost_lba (the thesis's elv_boost_lba, the boost
 * policy): the request covering a sector leaves its per-CPU or domain list
 * for a boost list that dispatch serves first, in boost order. It still
 * takes a token of its domain (the token pools are kyber's device-depth
 * control, and the token is what its completion returns); while none is
 * free the other domains are served as usual.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/block/elevator.h"
#include "sim/list.h"
#include "sim/sim.h"

enum { KYBER_READ, KYBER_WRITE, KYBER_DISCARD, KYBER_OTHER, KYBER_NUM_DOMAINS };
enum { KYBER_TOTAL_LATENCY, KYBER_IO_LATENCY };

/* block/kyber-iosched.c */
#define KYBER_ASYNC_PERCENT 75
#define KYBER_LATENCY_SHIFT 2
#define KYBER_GOOD_BUCKETS (1 << KYBER_LATENCY_SHIFT)
#define KYBER_LATENCY_BUCKETS (2 << KYBER_LATENCY_SHIFT)
#define KYBER_TIMER_NS (100 * 1000000LL)   /* timer_reduce(jiffies + HZ / 10) */
#define KYBER_PCT_WINDOW_NS 1000000000LL   /* latency_timeout = jiffies + HZ */
#define KYBER_PCT_MIN_SAMPLES 500
#define KYBER_MAX_CTX 256

static const uint32_t kyber_depth[KYBER_NUM_DOMAINS] = { 256, 128, 64, 16 };
static const uint32_t kyber_batch_size[KYBER_NUM_DOMAINS] = { 16, 8, 1, 1 };
static const char *const kyber_domain_names[KYBER_NUM_DOMAINS] = { "read", "write", "discard",
								     "other" };

struct kyber_data {
	/* tunables */
	int64_t read_lat_ns;
	int64_t write_lat_ns;
	int64_t discard_lat_ns;

	int64_t target[KYBER_OTHER];
	uint32_t depth[KYBER_NUM_DOMAINS];     /* domain_tokens sb.depth */
	uint32_t tokens_used[KYBER_NUM_DOMAINS];
	uint32_t async_depth;
	uint32_t nr_ctx;
	struct list_head *kcq;                  /* [ctx][domain] */
	struct list_head rqs[KYBER_NUM_DOMAINS]; /* flushed, waiting for a token */
	struct list_head boosted;               /* boost_lba: served first */
	uint64_t boost_hits, boost_misses, boost_dispatched;
	uint32_t queued;
	unsigned cur_domain;
	uint32_t batching;
	uint32_t buckets[KYBER_OTHER][2][KYBER_LATENCY_BUCKETS];
	int64_t latency_timeout[KYBER_OTHER];
	int domain_p99[KYBER_OTHER];
	struct sim_event timer;
	struct elevator *e;

	uint64_t throttled, timer_runs, congested_runs;
	uint32_t min_depth[KYBER_NUM_DOMAINS];
};

static unsigned kyber_sched_domain(uint32_t flags)
{
	if (flags & REQ_DISCARD)
		return KYBER_DISCARD;
	if (flags & REQ_FLUSH)
		return KYBER_OTHER;
	return req_is_write(flags) ? KYBER_WRITE : KYBER_READ;
}

static struct list_head *kyber_kcq(struct kyber_data *kd, uint32_t ctx, unsigned domain)
{
	return &kd->kcq[ctx * KYBER_NUM_DOMAINS + domain];
}

/* The token a request holds: elv_priv[0] = 1 + domain, NULL = none. */
static void kyber_put_token(struct kyber_data *kd, struct io_request *rq)
{
	if (rq->elv_priv[0]) {
		unsigned d = (unsigned)((intptr_t)rq->elv_priv[0] - 1);

		kd->tokens_used[d]--;
		rq->elv_priv[0] = NULL;
	}
}

/* ------------------------------------------------------------- timer */

/* calculate_percentile(): the bucket holding the given percentile, or -1
 * while there are fewer than 500 samples and the second is not over. */
static int kyber_percentile(struct kyber_data *kd, unsigned domain, int type, unsigned pct,
			    int64_t now)
{
	uint32_t *b = kd->buckets[domain][type];
	uint32_t samples = 0, want;
	int bucket;

	for (int i = 0; i < KYBER_LATENCY_BUCKETS; i++)
		samples += b[i];
	if (!samples)
		return -1;
	if (!kd->latency_timeout[domain])
		kd->latency_timeout[domain] = now + KYBER_PCT_WINDOW_NS;
	if (samples < KYBER_PCT_MIN_SAMPLES && now < kd->latency_timeout[domain])
		return -1;
	kd->latency_timeout[domain] = 0;
	want = (samples * pct + 99) / 100;
	for (bucket = 0; bucket < KYBER_LATENCY_BUCKETS - 1; bucket++) {
		if (b[bucket] >= want)
			break;
		want -= b[bucket];
	}
	memset(b, 0, sizeof(kd->buckets[domain][type]));
	return bucket;
}

static void kyber_resize_domain(struct kyber_data *kd, unsigned domain, uint32_t depth)
{
	if (depth < 1)
		depth = 1;
	if (depth > kyber_depth[domain])
		depth = kyber_depth[domain];
	kd->depth[domain] = depth;
	if (depth < kd->min_depth[domain])
		kd->min_depth[domain] = depth;
}

static void kyber_timer_fn(struct sim *sim, struct sim_event *ev)
{
	struct kyber_data *kd = container_of(ev, struct kyber_data, timer);
	int64_t now = sim_now(sim);
	bool bad = false;

	kd->timer_runs++;
	for (unsigned d = 0; d < KYBER_OTHER; d++)
		if (kyber_percentile(kd, d, KYBER_IO_LATENCY, 90, now) >= KYBER_GOOD_BUCKETS)
			bad = true;
	if (bad)
		kd->congested_runs++;
	for (unsigned d = 0; d < KYBER_OTHER; d++) {
		int p99 = kyber_percentile(kd, d, KYBER_TOTAL_LATENCY, 99, now);

		/* a p99 seen earlier serves the next congestion once */
		if (bad) {
			if (p99 < 0)
				p99 = kd->domain_p99[d];
			kd->domain_p99[d] = -1;
		} else if (p99 >= 0) {
			kd->domain_p99[d] = p99;
		}
		if (p99 < 0)
			continue;
		if (bad || p99 >= KYBER_GOOD_BUCKETS)
			kyber_resize_domain(kd, d, (kd->depth[d] * (uint32_t)(p99 + 1)) >> KYBER_LATENCY_SHIFT);
	}
	/* a larger depth may let waiting requests go */
	elv_mq_run_queue_async(kd->e);
}

/* --------------------------------------------------------------- hooks */

static int kyber_init(struct elevator *e, struct sim_error *err)
{
	struct kyber_data *kd = e->priv;

	kd->e = e;
	kd->target[KYBER_READ] = kd->read_lat_ns;
	kd->target[KYBER_WRITE] = kd->write_lat_ns;
	kd->target[KYBER_DISCARD] = kd->discard_lat_ns;
	for (unsigned d = 0; d < KYBER_NUM_DOMAINS; d++) {
		kd->depth[d] = kd->min_depth[d] = kyber_depth[d];
		list_init(&kd->rqs[d]);
	}
	list_init(&kd->boosted);
	for (unsigned d = 0; d < KYBER_OTHER; d++)
		kd->domain_p99[d] = -1;
	kd->nr_ctx = elv_mq_nr_ctx(e);
	kd->kcq = calloc((size_t)kd->nr_ctx * KYBER_NUM_DOMAINS, sizeof(*kd->kcq));
	if (!kd->kcq)
		return sim_errorf(err, SIM_E_NOMEM, "kyber: out of memory");
	for (uint32_t i = 0; i < kd->nr_ctx * KYBER_NUM_DOMAINS; i++)
		list_init(&kd->kcq[i]);
	sim_event_init(&kd->timer, kyber_timer_fn);
	return 0;
}

static void kyber_exit(struct elevator *e)
{
	struct kyber_data *kd = e->priv;

	sim_cancel(blk_queue_sim(e->q), &kd->timer);
	free(kd->kcq);
}

/* kyber_depth_updated() of 6.1: 75 % of a word of the scheduler tags. */
static void kyber_depth_updated(struct elevator *e, uint32_t nr_requests, uint32_t word_shift)
{
	struct kyber_data *kd = e->priv;

	(void)nr_requests;
	kd->async_depth = (1u << word_shift) * KYBER_ASYNC_PERCENT / 100u;
	elv_mq_min_shallow_depth(e, kd->async_depth);
}

static uint32_t kyber_limit_depth(struct elevator *e, uint32_t flags, const struct io_context *ioc)
{
	struct kyber_data *kd = e->priv;

	(void)ioc;
	return req_is_sync(flags) ? 0 : kd->async_depth;
}

static int kyber_prepare_request(struct elevator *e, struct io_request *rq, struct bio *bio)
{
	(void)e;
	(void)bio;
	rq->elv_priv[0] = NULL;
	return 0;
}

static void kyber_finish_request(struct elevator *e, struct io_request *rq)
{
	kyber_put_token(e->priv, rq);
}

/* kyber_bio_merge(): the last requests of this CPU's list of the domain. */
static bool kyber_bio_merge(struct elevator *e, struct bio *bio, uint32_t ctx)
{
	struct kyber_data *kd = e->priv;

	return elv_mq_bio_list_merge(e, kyber_kcq(kd, ctx, kyber_sched_domain(bio->flags)), bio);
}

static void kyber_merged_requests(struct elevator *e, struct io_request *rq, struct io_request *next)
{
	struct kyber_data *kd = e->priv;

	(void)rq;
	list_del_init(&next->queuelist);
	kd->queued--;
}

static void kyber_insert_requests(struct elevator *e, struct list_head *list, bool at_head)
{
	struct kyber_data *kd = e->priv;

	while (!list_empty(list)) {
		struct io_request *rq = list_first_entry(list, struct io_request, queuelist);
		struct list_head *head = kyber_kcq(kd, elv_mq_rq_ctx(rq), kyber_sched_domain(rq->flags));

		list_del_init(&rq->queuelist);
		if (at_head)
			list_add(&rq->queuelist, head);
		else
			list_add_tail(&rq->queuelist, head);
		kd->queued++;
	}
}

/* kyber_completed_request(): histogram samples, timer within 100 ms. */
static void kyber_completed_request(struct elevator *e, struct io_request *rq)
{
	struct kyber_data *kd = e->priv;
	unsigned d = kyber_sched_domain(rq->flags);
	int64_t now = sim_now(blk_queue_sim(e->q));
	int64_t lat[2] = { now - rq->t_getrq, now - rq->t_dispatch };

	if (d == KYBER_OTHER)
		return;
	for (int type = 0; type < 2; type++) {
		int64_t div = kd->target[d] >> KYBER_LATENCY_SHIFT;
		int64_t b = lat[type] > 0 ? (lat[type] - 1) / (div > 0 ? div : 1) : 0;

		kd->buckets[d][type][b < KYBER_LATENCY_BUCKETS - 1 ? b : KYBER_LATENCY_BUCKETS - 1]++;
	}
	if (!sim_event_pending(&kd->timer) || kd->timer.when > now + KYBER_TIMER_NS)
		sim_at(blk_queue_sim(e->q), &kd->timer, now + KYBER_TIMER_NS);
}

/* kyber_dispatch_cur_domain(): a waiting request of the current domain,
 * if a token is free (flushing the per-CPU lists when none is waiting). */
static struct io_request *kyber_dispatch_cur_domain(struct kyber_data *kd)
{
	unsigned d = kd->cur_domain;
	struct list_head *rqs = &kd->rqs[d];
	bool pending = !list_empty(rqs);

	if (!pending)
		for (uint32_t c = 0; c < kd->nr_ctx && !pending; c++)
			pending = !list_empty(kyber_kcq(kd, c, d));
	if (!pending)
		return NULL;
	if (kd->tokens_used[d] >= kd->depth[d]) {
		kd->throttled++;
		return NULL;
	}
	if (list_empty(rqs))
		for (uint32_t c = 0; c < kd->nr_ctx; c++)
			list_splice_tail_init(kyber_kcq(kd, c, d), rqs);
	struct io_request *rq = list_first_entry(rqs, struct io_request, queuelist);

	list_del_init(&rq->queuelist);
	kd->tokens_used[d]++;
	rq->elv_priv[0] = (void *)(intptr_t)(d + 1);
	kd->batching++;
	kd->queued--;
	return rq;
}

static struct io_request *kyber_dispatch_request(struct elevator *e)
{
	struct kyber_data *kd = e->priv;
	struct io_request *rq;

	if (!list_empty(&kd->boosted)) {
		unsigned d;

		rq = list_first_entry(&kd->boosted, struct io_request, queuelist);
		d = kyber_sched_domain(rq->flags);
		if (kd->tokens_used[d] < kd->depth[d]) {
			list_del_init(&rq->queuelist);
			kd->tokens_used[d]++;
			rq->elv_priv[0] = (void *)(intptr_t)(d + 1);
			kd->queued--;
			kd->boost_dispatched++;
			return rq;
		}
	}

	if (kd->batching < kyber_batch_size[kd->cur_domain]) {
		rq = kyber_dispatch_cur_domain(kd);
		if (rq)
			return rq;
	}
	/* a new batch, wrapping round to the original domain */
	kd->batching = 0;
	for (int i = 0; i < KYBER_NUM_DOMAINS; i++) {
		kd->cur_domain = (kd->cur_domain + 1) % KYBER_NUM_DOMAINS;
		rq = kyber_dispatch_cur_domain(kd);
		if (rq)
			return rq;
	}
	return NULL;
}

static bool kyber_cover(const struct io_request *rq, uint64_t sector)
{
	return sector >= rq->sector && sector < rq_end_sector(rq);
}

/* boost_lba: see the top of the file. O(queued). */
static bool kyber_boost_lba(struct elevator *e, uint64_t sector)
{
	struct kyber_data *kd = e->priv;
	struct list_head *pos;

	list_for_each(pos, &kd->boosted)
		if (kyber_cover(list_entry(pos, struct io_request, queuelist), sector)) {
			kd->boost_hits++;
			return true;
		}
	for (uint32_t i = 0; i < (kd->nr_ctx + 1) * KYBER_NUM_DOMAINS; i++) {
		struct list_head *h = i < KYBER_NUM_DOMAINS ? &kd->rqs[i] : &kd->kcq[i - KYBER_NUM_DOMAINS];

		list_for_each(pos, h) {
			struct io_request *rq = list_entry(pos, struct io_request, queuelist);

			if (kyber_cover(rq, sector)) {
				list_move_tail(&rq->queuelist, &kd->boosted);
				rq->flags |= REQ_PRIO | REQ_BOOSTED;
				kd->boost_hits++;
				return true;
			}
		}
	}
	kd->boost_misses++;
	return false;
}

static bool kyber_has_work(struct elevator *e)
{
	struct kyber_data *kd = e->priv;

	return kd->queued > 0;
}

static bool kyber_queue_empty(struct elevator *e)
{
	return !kyber_has_work(e);
}

static void kyber_stats_json(const struct elevator *e, struct json_t *obj)
{
	const struct kyber_data *kd = e->priv;
	json_t *d = json_object(), *m = json_object();

	for (unsigned i = 0; i < KYBER_NUM_DOMAINS; i++) {
		json_object_set_new(d, kyber_domain_names[i], json_integer(kd->depth[i]));
		json_object_set_new(m, kyber_domain_names[i], json_integer(kd->min_depth[i]));
	}
	json_object_set_new(obj, "domain_depth", d);
	json_object_set_new(obj, "domain_min_depth", m);
	json_object_set_new(obj, "async_depth", json_integer(kd->async_depth));
	json_object_set_new(obj, "throttled", json_integer((json_int_t)kd->throttled));
	if (kd->boost_hits + kd->boost_misses) {
		json_object_set_new(obj, "boost_hits", json_integer((json_int_t)kd->boost_hits));
		json_object_set_new(obj, "boost_misses", json_integer((json_int_t)kd->boost_misses));
		json_object_set_new(obj, "boost_dispatched", json_integer((json_int_t)kd->boost_dispatched));
	}
	json_object_set_new(obj, "timer_runs", json_integer((json_int_t)kd->timer_runs));
	json_object_set_new(obj, "congested_runs", json_integer((json_int_t)kd->congested_runs));
}

/* ---------------------------------------------------------- parameters */

#define KY_SRC "block/kyber-iosched.c kyber_latency_targets[] (Linux 5.0-6.1)"

static const struct cfg_param kyber_params[] = {
	{ .key = "read_lat_nsec", .type = CFG_T_TIME,
	  .offset = offsetof(struct kyber_data, read_lat_ns), .unit = "ns", .def = "2000000",
	  .min = 1, .max = 1e12, .source = KY_SRC " [KYBER_READ] = 2 ms",
	  .help = "read latency target (sysfs read_lat_nsec)" },
	{ .key = "write_lat_nsec", .type = CFG_T_TIME,
	  .offset = offsetof(struct kyber_data, write_lat_ns), .unit = "ns", .def = "10000000",
	  .min = 1, .max = 1e12, .source = KY_SRC " [KYBER_WRITE] = 10 ms",
	  .help = "write latency target (sysfs write_lat_nsec)" },
	{ .key = "discard_lat_nsec", .type = CFG_T_TIME,
	  .offset = offsetof(struct kyber_data, discard_lat_ns), .unit = "ns", .def = "5000000000",
	  .min = 1, .max = 1e12, .source = KY_SRC " [KYBER_DISCARD] = 5 s (no sysfs knob)",
	  .help = "discard latency target" },
	CFG_PARAM_END,
};

const struct elevator_ops kyber_elevator_ops = {
	.name = "kyber",
	.summary = "[blk-mq] token depths per domain tuned to latency targets (block/kyber-iosched.c)",
	.params = kyber_params,
	.priv_size = sizeof(struct kyber_data),
	.mq = true,
	.init = kyber_init,
	.exit = kyber_exit,
	.depth_updated = kyber_depth_updated,
	.limit_depth = kyber_limit_depth,
	.set_request = kyber_prepare_request,
	.put_request = kyber_finish_request,
	.bio_merge = kyber_bio_merge,
	.merged_requests = kyber_merged_requests,
	.insert_requests = kyber_insert_requests,
	.dispatch_request = kyber_dispatch_request,
	.has_work = kyber_has_work,
	.queue_empty = kyber_queue_empty,
	.completed_request = kyber_completed_request,
	.boost_lba = kyber_boost_lba,
	.stats_json = kyber_stats_json,
};
