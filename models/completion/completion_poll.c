/* Completion model "poll": classic polling (Linux 4.4 blk_poll with
 * io_poll = 1, io_poll_delay = -1; NVMe nvme_poll): the submitting task
 * spins on its core from submit until it finds the completion, checking
 * every poll_check_ns. Lowest latency (device time + at most one check
 * interval), and a core held for the whole device time. No tunables of its
 * own.
 */
#include "models/completion/completion.h"

static struct cpl_plan cpl_poll_plan(struct completion *c, const struct io_request *rq,
				     uint32_t qd)
{
	(void)c;
	(void)rq;
	(void)qd;
	return (struct cpl_plan){ .kind = CPL_PLAN_POLL };
}

const struct completion_ops cpl_poll_ops = {
	.name = "poll",
	.summary = "classic polling: spin on a core from submit until completion",
	.plan = cpl_poll_plan,
};
