/* Completion model "pas": per-I/O adaptive sleep (DPAS, USENIX FAST'26;
 * github.com/DongDongJu/DPAS_FAST26). Every I/O sleeps for the predicted
 * duration on an hrtimer, then polls; the outcome (UNDER: the device
 * finished after the task was awake and polling, i.e. wake_time = sleep +
 * wake-up overhead < device time; OVER otherwise) updates the prediction
 * multiplicatively from the last two outcomes (models/completion/completion_int.h).
 * The kernel port keeps one predictor per CPU and per (direction, size)
 * bucket; mobisim keeps one per submitter (CPL_STREAMS slots by pid) and
 * direction. Also the shared predictor used by dpas and timer-irq.
 */
#include <stddef.h>

#include <jansson.h>

#include "models/completion/completion_int.h"

/* ------------------------------------------------------------ predictor */

void cpl_pas_reset(struct cpl_pas *p, double up, double dn, int64_t d_init_ns)
{
	p->up = up;
	p->dn = dn;
	p->d_init_ns = d_init_ns > 0 ? d_init_ns : 1;
	p->dur_ns = p->d_init_ns;
	p->adj = 1.0;
	p->last_under = p->pnlt_under = false;
	p->updates = p->floor_hits = 0;
}

bool cpl_pas_feedback(struct cpl_pas *p, bool under)
{
	p->pnlt_under = p->last_under;
	p->last_under = under;
	if (p->pnlt_under && p->last_under)
		p->adj += p->up;               /* UU: accelerate the increase */
	else if (p->pnlt_under)
		p->adj = 1.0 - p->dn;          /* UO: slight decrease */
	else if (p->last_under)
		p->adj = 1.0 + p->up;          /* OU: slight increase */
	else
		p->adj -= p->dn;               /* OO: accelerate the decrease */
	if (p->adj <= 0)
		p->adj = 1.0;
	double d = (double)p->dur_ns * p->adj;
	p->dur_ns = d > 9e18 ? INT64_MAX / 2 : (int64_t)d;
	p->updates++;
	if (p->dur_ns <= p->d_init_ns) {
		p->dur_ns = p->d_init_ns;
		p->floor_hits++;
		return true;
	}
	return false;
}

void cpl_pas_json(const struct cpl_pas *p, json_t *obj, const char *key)
{
	json_t *o = json_object();
	json_object_set_new(o, "sleep_ns", json_integer(p->dur_ns));
	json_object_set_new(o, "adjust", json_real(p->adj));
	json_object_set_new(o, "updates", json_integer((json_int_t)p->updates));
	json_object_set_new(o, "floor_hits", json_integer((json_int_t)p->floor_hits));
	json_object_set_new(obj, key, o);
}

/* ----------------------------------------------------------------- model */

struct cpl_pas_model {
	double up, dn;
	int64_t d_init_ns;
	struct cpl_pas pred[CPL_STREAMS][2];  /* per submitter: read, write */
};

#define PAS_OFF(f) offsetof(struct cpl_pas_model, f)

static const struct cfg_param cpl_pas_params[] = {
	CPL_PAS_PARAMS(PAS_OFF),
	CFG_PARAM_END,
};

static int cpl_pas_init(struct completion *c, struct sim_error *err)
{
	struct cpl_pas_model *m = c->priv;
	(void)err;
	for (int k = 0; k < CPL_STREAMS; k++)
		for (int i = 0; i < 2; i++)
			cpl_pas_reset(&m->pred[k][i], m->up, m->dn, m->d_init_ns);
	return 0;
}

static struct cpl_plan cpl_pas_plan(struct completion *c, const struct io_request *rq,
				    uint32_t qd)
{
	struct cpl_pas_model *m = c->priv;
	(void)qd;
	return (struct cpl_plan){ .kind = CPL_PLAN_SLEEP_POLL,
				  .sleep_ns = m->pred[cpl_stream_of(rq)][req_is_write(rq->flags)].dur_ns };
}

static void cpl_pas_done(struct completion *c, const struct cpl_outcome *o)
{
	struct cpl_pas_model *m = c->priv;
	if (o->plan.kind == CPL_PLAN_SLEEP_POLL)
		cpl_pas_feedback(&m->pred[o->stream][o->write], o->under);
}

static void cpl_pas_stats(const struct completion *c, json_t *obj)
{
	const struct cpl_pas_model *m = c->priv;
	json_t *o = json_object();
	/* the first submitter's predictors (slot 0 without a stack) */
	uint32_t k = 0;
	while (k + 1 < CPL_STREAMS && m->pred[k][0].updates == 0 && m->pred[k][1].updates == 0)
		k++;
	cpl_pas_json(&m->pred[k][0], o, "read");
	cpl_pas_json(&m->pred[k][1], o, "write");
	json_object_set_new(obj, "pas", o);
}

const struct completion_ops cpl_pas_ops = {
	.name = "pas",
	.summary = "per-I/O adaptive sleep then poll (PAS, UU/UO/OU/OO multiplicative update)",
	.params = cpl_pas_params,
	.priv_size = sizeof(struct cpl_pas_model),
	.init = cpl_pas_init,
	.plan = cpl_pas_plan,
	.done = cpl_pas_done,
	.stats_json = cpl_pas_stats,
};
