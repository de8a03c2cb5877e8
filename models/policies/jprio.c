/* jprio: the journal thread in the real-time I/O class (LKML, October
 * 2007, "mass priority inversion" under LatencyTOP during a kernel build;
 * docs/papers.md §5). The patch made kjournald set its own I/O priority
 * to IOPRIO_CLASS_RT level 4 when it starts, so CFQ serves the commit's
 * writes ahead of every best-effort queue and tasks waiting for a commit
 * (fsync, and through the journal every metadata update) stop waiting
 * behind bulk writers. It was debated and not merged.
 *
 * In mobisim: at set-up, before any I/O, the jbd2 thread's io_context is
 * put into class RT at `level` (CFQ reads it when the thread's first
 * request arrives, and check_ioprio_changed follows any later change). The
 * LatencyTOP-style waits table of the result shows the effect (cause
 * "journal"). Inert, and it says so, when the scenario has no journal.
 */
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "models/policies/policy.h"
#include "models/block/request.h"
#include "models/stack/stack.h"
#include "sim/sim.h"

struct jprio {
	int64_t level;             /* tunable: RT level 0 (highest) .. 7 */
	bool applied;
	const char *task;
	int old_class, old_level;
};

static int jprio_init(struct policy *p, struct sim *sim, struct sim_error *err)
{
	struct jprio *j = p->priv;
	(void)err;
	struct stack_task *t = sim->stack ? stack_journal_task(sim->stack) : NULL;
	if (!t)
		return 0;
	struct io_context *ioc = stack_task_ioc(t);
	j->old_class = ioc->ioprio_class;
	j->old_level = ioc->ioprio_level;
	ioc->ioprio_class = IOPRIO_CLASS_RT;
	ioc->ioprio_level = (uint8_t)j->level;
	j->task = stack_task_name(t);
	j->applied = true;
	return 0;
}

static void jprio_stats(const struct policy *p, struct json_t *obj)
{
	const struct jprio *j = p->priv;
	json_object_set_new(obj, "applied", json_boolean(j->applied));
	if (!j->applied)
		return;
	json_object_set_new(obj, "task", json_string(j->task));
	json_object_set_new(obj, "old_ioprio_class", json_integer(j->old_class));
	json_object_set_new(obj, "old_ioprio_level", json_integer(j->old_level));
	json_object_set_new(obj, "ioprio_class", json_integer(IOPRIO_CLASS_RT));
	json_object_set_new(obj, "ioprio_level", json_integer(j->level));
}

static const struct cfg_param jprio_params[] = {
	{ "level", CFG_T_INT, offsetof(struct jprio, level), "", "4", 0, 7,
	  "LKML Oct 2007 kjournald patch: IOPRIO_CLASS_RT, level 4",
	  "RT priority level of the journal thread (0 highest)", NULL },
	CFG_PARAM_END,
};

const struct policy_ops jprio_policy_ops = {
	.name = "jprio",
	.summary = "journal thread in the RT I/O class at `level` (LKML 2007 kjournald patch)",
	.abi = MOBISIM_POLICY_ABI,
	.params = jprio_params,
	.priv_size = sizeof(struct jprio),
	.init = jprio_init,
	.stats_json = jprio_stats,
};
