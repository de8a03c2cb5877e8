/* Completion model "interrupt": the submitting task sleeps and the device
 * interrupt wakes it - the default path of Linux 3.10-4.4 for every block
 * device (blk_end_request from the driver's IRQ handler, bio end_io,
 * wake_up_process of the waiter). Costs: the shared irq_us, ctxsw_us and
 * wakeup_us of the `completion:` map (models/completion/completion.c). No tunables
 * of its own.
 */
#include "models/completion/completion.h"

static struct cpl_plan cpl_interrupt_plan(struct completion *c, const struct io_request *rq,
					  uint32_t qd)
{
	(void)c;
	(void)rq;
	(void)qd;
	return (struct cpl_plan){ .kind = CPL_PLAN_IRQ };
}

const struct completion_ops cpl_interrupt_ops = {
	.name = "interrupt",
	.summary = "sleep until the device interrupt (IRQ handler + wake-up + context switch)",
	.plan = cpl_interrupt_plan,
};
