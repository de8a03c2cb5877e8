/* Completion model "dpas": DPAS mode switching (USENIX FAST'26,
 * github.com/DongDongJu/DPAS_FAST26; state machine as described on
 * dpas-lab.pages.dev/en/dpas-intro.html). Four modes - INT (interrupt),
 * CP (classic polling), PAS (adaptive sleep + poll), OL (overloaded) -
 * re-evaluated every n_eval completions from the window's average queue
 * depth and its timer-floor count tf (PAS sleeps that sat at d_init):
 *   PAS -> CP   if cp_enable (param4 >= 1) and avg_qd == 1
 *   PAS -> OL   if tf > tf_max (param1)
 *   CP  -> PAS  after cp_ios I/Os in CP
 *   OL  -> PAS  if avg_qd <= ol_pas_qd (param2)
 *   OL  -> INT  if avg_qd > ol_int_qd (param3)
 *   INT -> OL   after int_ios I/Os in INT
 * Start in PAS. OL waits like PAS while it decides [INFER: the page does
 * not say how OL completes]. The PAS predictor carries across modes.
 * Queue depth of an I/O: commands at the device at its submit, itself
 * included. The values of param1-3 are not given in the sources read:
 * defaults are [INFER].
 */
#include <stddef.h>

#include <jansson.h>

#include "models/completion/completion_int.h"

enum dpas_mode { DPAS_INT = 0, DPAS_CP = 1, DPAS_PAS = 2, DPAS_OL = 3 };
static const char *const dpas_mode_names[] = { "INT", "CP", "PAS", "OL" };

struct cpl_dpas {
	double up, dn;
	int64_t d_init_ns;
	int64_t n_eval, tf_max, cp_ios, int_ios;
	double ol_pas_qd, ol_int_qd;
	bool cp_enable;

	struct cpl_pas pred[CPL_STREAMS][2];
	enum dpas_mode mode;
	int64_t win_n, win_qd_sum, win_tf;
	int64_t in_mode;            /* I/Os completed in the current mode */
	uint64_t transitions;
	uint64_t ios_in[4];
	double last_avg_qd;
};

#define DP_OFF(f) offsetof(struct cpl_dpas, f)

static const struct cfg_param cpl_dpas_params[] = {
	CPL_PAS_PARAMS(DP_OFF),
	{ "n_eval", CFG_T_INT, DP_OFF(n_eval), "", "100", 1, 1e9,
	  "dpas-lab.pages.dev DPAS intro: Neval = 100", "completions per evaluation window", NULL },
	{ "tf_max", CFG_T_INT, DP_OFF(tf_max), "", "50", 0, 1e9,
	  "[INFER] param1, value not given: half the window",
	  "PAS -> OL when more timer-floor hits than this in a window", NULL },
	{ "ol_pas_qd", CFG_T_DOUBLE, DP_OFF(ol_pas_qd), "", "1.5", 0, 1e6,
	  "[INFER] param2, value not given", "OL -> PAS when the average queue depth is at most this",
	  NULL },
	{ "ol_int_qd", CFG_T_DOUBLE, DP_OFF(ol_int_qd), "", "4", 0, 1e6,
	  "[INFER] param3, value not given", "OL -> INT when the average queue depth exceeds this",
	  NULL },
	{ "cp_enable", CFG_T_BOOL, DP_OFF(cp_enable), "", "true", CFG_NO_RANGE,
	  "param4 >= 1 on the DPAS intro page", "allow PAS -> CP at queue depth 1", NULL },
	{ "cp_ios", CFG_T_INT, DP_OFF(cp_ios), "", "1000", 1, 1e12,
	  "dpas-lab.pages.dev DPAS intro: CP -> PAS after 1000 I/Os", "I/Os in CP before PAS again",
	  NULL },
	{ "int_ios", CFG_T_INT, DP_OFF(int_ios), "", "10000", 1, 1e12,
	  "dpas-lab.pages.dev DPAS intro: INT -> OL after 10000 I/Os", "I/Os in INT before OL again",
	  NULL },
	CFG_PARAM_END,
};

static int cpl_dpas_init(struct completion *c, struct sim_error *err)
{
	struct cpl_dpas *d = c->priv;
	(void)err;
	for (int k = 0; k < CPL_STREAMS; k++)
		for (int i = 0; i < 2; i++)
			cpl_pas_reset(&d->pred[k][i], d->up, d->dn, d->d_init_ns);
	d->mode = DPAS_PAS;
	return 0;
}

static struct cpl_plan cpl_dpas_plan(struct completion *c, const struct io_request *rq,
				     uint32_t qd)
{
	struct cpl_dpas *d = c->priv;
	(void)qd;
	switch (d->mode) {
	case DPAS_INT:
		return (struct cpl_plan){ .kind = CPL_PLAN_IRQ };
	case DPAS_CP:
		return (struct cpl_plan){ .kind = CPL_PLAN_POLL };
	case DPAS_PAS:
	case DPAS_OL:
		break;
	}
	return (struct cpl_plan){ .kind = CPL_PLAN_SLEEP_POLL,
				  .sleep_ns = d->pred[cpl_stream_of(rq)][req_is_write(rq->flags)].dur_ns };
}

static void dpas_switch(struct cpl_dpas *d, enum dpas_mode to)
{
	if (to == d->mode)
		return;
	d->mode = to;
	d->in_mode = 0;
	d->transitions++;
}

static void dpas_evaluate(struct cpl_dpas *d)
{
	double avg_qd = (double)d->win_qd_sum / (double)d->win_n;
	d->last_avg_qd = avg_qd;
	switch (d->mode) {
	case DPAS_PAS:
		if (d->cp_enable && avg_qd <= 1.0)
			dpas_switch(d, DPAS_CP);
		else if (d->win_tf > d->tf_max)
			dpas_switch(d, DPAS_OL);
		break;
	case DPAS_CP:
		if (d->in_mode >= d->cp_ios)
			dpas_switch(d, DPAS_PAS);
		break;
	case DPAS_OL:
		if (avg_qd <= d->ol_pas_qd)
			dpas_switch(d, DPAS_PAS);
		else if (avg_qd > d->ol_int_qd)
			dpas_switch(d, DPAS_INT);
		break;
	case DPAS_INT:
		if (d->in_mode >= d->int_ios)
			dpas_switch(d, DPAS_OL);
		break;
	}
	d->win_n = d->win_qd_sum = d->win_tf = 0;
}

static void cpl_dpas_done(struct completion *c, const struct cpl_outcome *o)
{
	struct cpl_dpas *d = c->priv;
	if (o->plan.kind == CPL_PLAN_SLEEP_POLL &&
	    cpl_pas_feedback(&d->pred[o->stream][o->write], o->under))
		d->win_tf++;
	d->win_n++;
	d->win_qd_sum += o->qd;
	d->in_mode++;
	d->ios_in[d->mode]++;
	if (d->win_n >= d->n_eval)
		dpas_evaluate(d);
}

static const char *cpl_dpas_mode(const struct completion *c)
{
	const struct cpl_dpas *d = c->priv;
	return dpas_mode_names[d->mode];
}

static void cpl_dpas_json(const struct completion *c, json_t *obj)
{
	const struct cpl_dpas *d = c->priv;
	json_t *o = json_object();
	json_object_set_new(o, "mode", json_string(dpas_mode_names[d->mode]));
	json_object_set_new(o, "transitions", json_integer((json_int_t)d->transitions));
	json_object_set_new(o, "last_avg_qd", json_real(d->last_avg_qd));
	json_t *in = json_object();
	for (int i = 0; i < 4; i++)
		json_object_set_new(in, dpas_mode_names[i], json_integer((json_int_t)d->ios_in[i]));
	json_object_set_new(o, "ios_in_mode", in);
	uint32_t k = 0;
	while (k + 1 < CPL_STREAMS && d->pred[k][0].updates == 0 && d->pred[k][1].updates == 0)
		k++;
	cpl_pas_json(&d->pred[k][0], o, "read");
	cpl_pas_json(&d->pred[k][1], o, "write");
	json_object_set_new(obj, "dpas", o);
}

const struct completion_ops cpl_dpas_ops = {
	.name = "dpas",
	.summary = "DPAS: INT / CP / PAS / OL chosen every n_eval I/Os by queue depth and timer floor",
	.params = cpl_dpas_params,
	.priv_size = sizeof(struct cpl_dpas),
	.init = cpl_dpas_init,
	.plan = cpl_dpas_plan,
	.done = cpl_dpas_done,
	.mode_name = cpl_dpas_mode,
	.stats_json = cpl_dpas_json,
};
