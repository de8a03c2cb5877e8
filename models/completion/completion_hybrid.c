/* Completion model "hybrid": Linux hybrid polling (v4.10 block/blk-mq.c
 * blk_mq_poll_hybrid_sleep / blk_mq_poll_nsecs, io_poll_delay = 0): sleep
 * on an hrtimer for half the mean completion time of the previous
 * statistics window, then spin. With no statistics yet (the first epoch)
 * it does not sleep (classic polling), as blk_mq_poll_nsecs returns 0.
 *
 * The kernel's window is time-based (BLK_STAT_NSEC = 2^27 ns, ~134 ms, in
 * 4.10 block/blk-stat.h) and keeps one statistic per direction; mobisim
 * closes an epoch after epoch_ios completions (at 10-100 us per I/O, 134
 * ms is 1300-13000 I/Os) and keeps reads and writes apart as the kernel
 * does. The mean is of the latency the poller measured, which includes
 * any oversleep: the "latency shelving" feedback the DPAS authors
 * describe (oversleep -> larger mean -> longer sleep) is reproduced.
 * Left out: the 4.10 quirk that a device interrupt may still complete the
 * request during the sleep (polled queues have interrupts masked since
 * 5.0; use timer-irq for the armed-interrupt variant).
 */
#include <stddef.h>

#include <jansson.h>

#include "models/completion/completion.h"

struct cpl_hybrid {
	int64_t epoch_ios;
	double attenuation;
	/* per direction: 0 read, 1 write */
	int64_t sleep_ns[2];
	int64_t sum_ns[2];
	int64_t n[2];
	uint64_t epochs[2];
};

#define HY_OFF(f) offsetof(struct cpl_hybrid, f)

static const struct cfg_param cpl_hybrid_params[] = {
	{ "epoch_ios", CFG_T_INT, HY_OFF(epoch_ios), "", "1000", 1, 1e9,
	  "[INFER] stands for the kernel's 134 ms window (4.10 block/blk-stat.h BLK_STAT_NSEC)",
	  "completions per statistics epoch", NULL },
	{ "attenuation", CFG_T_DOUBLE, HY_OFF(attenuation), "", "0.5", 0, 1,
	  "block/blk-mq.c v4.10 blk_mq_poll_nsecs: (mean + 1) / 2",
	  "fraction of the previous epoch's mean latency to sleep", NULL },
	CFG_PARAM_END,
};

static struct cpl_plan cpl_hybrid_plan(struct completion *c, const struct io_request *rq,
				       uint32_t qd)
{
	const struct cpl_hybrid *h = c->priv;
	(void)qd;
	int dir = req_is_write(rq->flags) ? 1 : 0;
	return (struct cpl_plan){ .kind = CPL_PLAN_SLEEP_POLL, .sleep_ns = h->sleep_ns[dir] };
}

static void cpl_hybrid_done(struct completion *c, const struct cpl_outcome *o)
{
	struct cpl_hybrid *h = c->priv;
	int dir = o->write ? 1 : 0;
	h->sum_ns[dir] += o->latency_ns;
	if (++h->n[dir] >= h->epoch_ios) {
		double mean = (double)h->sum_ns[dir] / (double)h->n[dir];
		h->sleep_ns[dir] = (int64_t)((mean + 1.0) * h->attenuation);
		h->sum_ns[dir] = 0;
		h->n[dir] = 0;
		h->epochs[dir]++;
	}
}

static void cpl_hybrid_json(const struct completion *c, json_t *obj)
{
	const struct cpl_hybrid *h = c->priv;
	json_t *o = json_object();
	json_object_set_new(o, "read_sleep_ns", json_integer(h->sleep_ns[0]));
	json_object_set_new(o, "write_sleep_ns", json_integer(h->sleep_ns[1]));
	json_object_set_new(o, "read_epochs", json_integer((json_int_t)h->epochs[0]));
	json_object_set_new(o, "write_epochs", json_integer((json_int_t)h->epochs[1]));
	json_object_set_new(obj, "hybrid", o);
}

const struct completion_ops cpl_hybrid_ops = {
	.name = "hybrid",
	.summary = "Linux hybrid polling (4.10): sleep half the last epoch's mean, then poll",
	.params = cpl_hybrid_params,
	.priv_size = sizeof(struct cpl_hybrid),
	.plan = cpl_hybrid_plan,
	.done = cpl_hybrid_done,
	.stats_json = cpl_hybrid_json,
};
