/* Completion model "timer-irq": arm both a timer at the predicted
 * completion time and the device interrupt at submit, and take whichever
 * fires first (docs/papers.md §4: the hybrid-interrupt patent, 2026).
 * Timer first: the task wakes and polls until the completion (UNDER);
 * interrupt first: the timer is cancelled and the interrupt path wakes the
 * task (OVER), so a mispredicted long sleep costs no more than the
 * interrupt path. The prediction is the PAS predictor
 * (models/completion/completion_int.h) fed with these outcomes [INFER: the patent's
 * own predictor was not available]. Tunables: up, dn, d_init_us as pas.
 */
#include <stddef.h>

#include <jansson.h>

#include "models/completion/completion_int.h"

struct cpl_timer_irq {
	double up, dn;
	int64_t d_init_ns;
	struct cpl_pas pred[CPL_STREAMS][2];
	uint64_t timer_first, irq_first;
};

#define TI_OFF(f) offsetof(struct cpl_timer_irq, f)

static const struct cfg_param cpl_timer_irq_params[] = {
	CPL_PAS_PARAMS(TI_OFF),
	CFG_PARAM_END,
};

static int cpl_timer_irq_init(struct completion *c, struct sim_error *err)
{
	struct cpl_timer_irq *t = c->priv;
	(void)err;
	for (int k = 0; k < CPL_STREAMS; k++)
		for (int i = 0; i < 2; i++)
			cpl_pas_reset(&t->pred[k][i], t->up, t->dn, t->d_init_ns);
	return 0;
}

static struct cpl_plan cpl_timer_irq_plan(struct completion *c, const struct io_request *rq,
					  uint32_t qd)
{
	struct cpl_timer_irq *t = c->priv;
	(void)qd;
	return (struct cpl_plan){ .kind = CPL_PLAN_TIMER_IRQ,
				  .sleep_ns = t->pred[cpl_stream_of(rq)][req_is_write(rq->flags)].dur_ns };
}

static void cpl_timer_irq_done(struct completion *c, const struct cpl_outcome *o)
{
	struct cpl_timer_irq *t = c->priv;
	if (o->plan.kind != CPL_PLAN_TIMER_IRQ)
		return;
	if (o->polled)
		t->timer_first++;
	else
		t->irq_first++;
	cpl_pas_feedback(&t->pred[o->stream][o->write], o->under);
}

static void cpl_timer_irq_json(const struct completion *c, json_t *obj)
{
	const struct cpl_timer_irq *t = c->priv;
	json_t *o = json_object();
	json_object_set_new(o, "timer_first", json_integer((json_int_t)t->timer_first));
	json_object_set_new(o, "irq_first", json_integer((json_int_t)t->irq_first));
	uint32_t k = 0;
	while (k + 1 < CPL_STREAMS && t->pred[k][0].updates == 0 && t->pred[k][1].updates == 0)
		k++;
	cpl_pas_json(&t->pred[k][0], o, "read");
	cpl_pas_json(&t->pred[k][1], o, "write");
	json_object_set_new(obj, "timer_irq", o);
}

const struct completion_ops cpl_timer_irq_ops = {
	.name = "timer-irq",
	.summary = "arm a predicted-time timer and the interrupt at submit; first one wakes the task",
	.params = cpl_timer_irq_params,
	.priv_size = sizeof(struct cpl_timer_irq),
	.init = cpl_timer_irq_init,
	.plan = cpl_timer_irq_plan,
	.done = cpl_timer_irq_done,
	.stats_json = cpl_timer_irq_json,
};
