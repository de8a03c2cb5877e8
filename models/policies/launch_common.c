/* Plumbing shared by the launch planners (see launch_common.h): the
 * profile's lazy load and save, the observer's view of the app's ops, the
 * planned op list and the stats both report. FAST (USENIX FAST'11) and the
 * ESL'20 loader profile and replay a launch the same way; only the plan
 * differs.
 */
#include "models/policies/launch_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim/sim.h"

int lcom_step_push(struct lcom_step **steps, size_t *n, size_t *cap, const struct lcom_step *s)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct lcom_step *v = realloc(*steps, nc * sizeof(*v));
		if (!v)
			return SIM_E_NOMEM;
		*steps = v;
		*cap = nc;
	}
	(*steps)[(*n)++] = *s;
	return 0;
}

int lcom_load_profile(struct lprof *prof, bool *loaded, const char *path, struct stack *s,
		      const char *who, struct sim_error *err)
{
	if (*loaded)
		return 0;
	int rc = lprof_load(prof, path, s, err);
	if (rc == SIM_E_IO) {
		/* err->msg is both the reason and the buffer of the new message */
		char why[SIM_ERRMSG_MAX];
		snprintf(why, sizeof(why), "%s", err->msg);
		return sim_errorf(err, SIM_E_INPUT, "%s: %s (record it first with %s.mode=record)",
				  who, why, who);
	}
	if (rc)
		return rc;
	*loaded = true;
	return 0;
}

void lcom_finish(struct lrec_app *obs, bool record, const struct lprof *prof, const char *path,
		 struct sim *sim, const char *who)
{
	if (obs)
		lrec_end(obs);
	if (record) {
		struct sim_error e;
		if (lprof_save(prof, path, &e))
			sim_fail(sim, e.code, "%s: %s", who, e.msg);
	}
}

bool lcom_observe(struct lrec_app *obs, const struct stack_op *op, const char *region,
		  struct sim *sim)
{
	switch (op->kind) {
	case STACK_OP_OPEN:
	case STACK_OP_READ:
	case STACK_OP_FAULT:
		if (obs && lrec_note_file(obs, op->file))
			sim_fail(sim, SIM_E_NOMEM, "out of memory");
		return false;
	case STACK_OP_END:
		return region && op->name && strcmp(op->name, region) == 0;
	default:
		return false;
	}
}

static json_t *avg_kib(uint64_t bytes, uint64_t n)
{
	return json_real(n ? (double)bytes / 1024.0 / (double)n : 0);
}

void lcom_obs_json(json_t *o, const struct lrec_app *r, bool helper)
{
	json_object_set_new(o, "requests", json_integer((json_int_t)r->requests));
	json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
	json_object_set_new(o, "avg_request_kib", avg_kib(r->bytes, r->requests));
	if (helper) {
		json_object_set_new(o, "prefetch_requests", json_integer((json_int_t)r->helper_requests));
		json_object_set_new(o, "prefetch_bytes", json_integer((json_int_t)r->helper_bytes));
		json_object_set_new(o, "prefetch_avg_request_kib",
				    avg_kib(r->helper_bytes, r->helper_requests));
	}
	if (r->prof)
		json_object_set_new(o, "recorded_requests", json_integer(r->prof->nreq));
}

void lcom_stats_head(json_t *obj, const char *mode, uint64_t launches, uint64_t no_profile)
{
	json_object_set_new(obj, "mode", json_string(mode));
	json_object_set_new(obj, "launches", json_integer((json_int_t)launches));
	json_object_set_new(obj, "launches_without_profile", json_integer((json_int_t)no_profile));
}

bool lcom_ws_origin(const struct policy_working_set *ws, uint64_t lba, struct stack_file **file,
		    uint64_t *off)
{
	for (size_t i = 0; i < ws->n; i++)
		if (ws->chunks[i].lba == lba) {
			*file = ws->chunks[i].file;
			*off = ws->chunks[i].off;
			return true;
		}
	return false;
}

int lcom_ws_replace(struct policy_working_set *ws, struct policy_working_set *nws, int rc)
{
	if (rc) {
		policy_ws_free(nws);
		return rc;
	}
	policy_ws_free(ws);
	*ws = *nws;
	return 0;
}
