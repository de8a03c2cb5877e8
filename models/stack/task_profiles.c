/* Android's FG/BG I/O controls of the GKI era: task profiles that move
 * app processes between blkio cgroups as the activity manager changes
 * their state (AOSP system/core/libprocessgroup/profiles/task_profiles.json
 * and system/core/rootdir/init.rc of Android 12-14).
 *
 * task_profiles.json: SCHED_SP_TOP_APP includes MaxIoPriority,
 * SCHED_SP_FOREGROUND HighIoPriority, SCHED_SP_BACKGROUND LowIoPriority;
 * Max/High/NormalIoPriority join the blkio root group, LowIoPriority joins
 * /dev/blkio/background. None of them sets an ioprio. init.rc gives the
 * root group blkio.weight 1000, the background group blkio.weight 200 and
 * blkio.bfq.weight 10, group_idle 0; later AOSP (the Android 17 init.rc)
 * adds `blkio.prio.class restrict-to-be` for the background group
 * (bg_prio_class here, default no-change as in 12-14).
 *
 * The model: with `task_profiles: {enabled: true}` every user task with an
 * app uid (>= 10000, AID_APP_START) is placed when it is created and at
 * every fg switch: the fg uid is top-app (root group), uids listed in
 * foreground_uids (apps with a foreground service, e.g. a download) are
 * foreground (root group), every other app is background (background
 * group). System uids and kernel threads stay in the root group. The
 * placement is written to the task's io_context (blkcg_*), which the
 * block layer's group-aware schedulers and blk-ioprio read
 * (models/block/request.h ioc_io_class). Left out: cgroup v2 io.weight
 * (Android 12-14 mount blkio as v1), cgroup writeback (a task's dirty
 * pages are written by the flusher in the root group, as on Android's v1
 * hierarchy), the per-thread profiles of the framework (render thread,
 * audio), and the timer slack / cpuset parts of the same profiles.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/stack/stack_int.h"
#include "sim/sim.h"

static const char *const tp_prio_names[] = { "no-change", "none-to-rt", "restrict-to-be", "idle",
					     NULL };

#define TP_OFF(f) offsetof(struct tp_params, f)

static const struct cfg_param tp_params_table[] = {
	{ "enabled", CFG_T_BOOL, TP_OFF(enabled), "", "false", CFG_NO_RANGE,
	  "built-in but off: the thesis's Galaxy S6 (Android 5) predates task profiles",
	  "place app tasks in blkio groups by their process state", NULL },
	{ "root_blkio_weight", CFG_T_INT, TP_OFF(root_weight), "", "1000", 10, 1000,
	  "AOSP init.rc: write /dev/blkio/blkio.weight 1000", "root group blkio.weight", NULL },
	{ "bg_blkio_weight", CFG_T_INT, TP_OFF(bg_weight), "", "200", 10, 1000,
	  "AOSP init.rc: write /dev/blkio/background/blkio.weight 200",
	  "background group blkio.weight (CFQ-style group weight)", NULL },
	{ "bg_bfq_weight", CFG_T_INT, TP_OFF(bg_bfq_weight), "", "10", 1, 1000,
	  "AOSP init.rc: write /dev/blkio/background/blkio.bfq.weight 10",
	  "background group blkio.bfq.weight", NULL },
	{ "bg_prio_class", CFG_T_ENUM, TP_OFF(bg_prio_policy), "", "no-change", CFG_NO_RANGE,
	  "Android 12-14 init.rc sets none; the Android 17 init.rc writes restrict-to-be",
	  "background group blkio.prio.class (blk-ioprio policy)", tp_prio_names },
	{ "foreground_uids", CFG_T_STRING, TP_OFF(foreground_uids), "", "", CFG_NO_RANGE,
	  "scenario: apps with a foreground service are SCHED_SP_FOREGROUND",
	  "comma-separated uids in the foreground (not background) state", NULL },
	CFG_PARAM_END,
};

/* AID_APP_START (system/core/libcutils/include/private/android_filesystem_config.h) */
#define TP_AID_APP_START 10000u

static bool uid_listed(const char *list, uint32_t uid)
{
	const char *p = list;
	while (p && *p) {
		char *end = NULL;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p)
			return false;
		if (v == uid)
			return true;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return false;
}

int task_profiles_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	struct task_profiles *tp = calloc(1, sizeof(*tp));
	if (!tp)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	s->tp = tp;
	int rc = cfg_apply(tp_params_table, node, &tp->p, err);
	if (rc)
		return rc;
	const char *p = tp->p.foreground_uids;
	while (p && *p) {
		char *end = NULL;
		(void)strtoul(p, &end, 10);
		if (end == p)
			return cfg_errorf(err, cfg_get(node, "foreground_uids"),
					  "expected comma-separated uids");
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return 0;
}

enum tp_state { TP_SYSTEM = 0, TP_TOP_APP, TP_FOREGROUND, TP_BACKGROUND };

static enum tp_state task_state(const struct stack *s, const struct stack_task *t)
{
	if (t->kthread || t->uid < TP_AID_APP_START)
		return TP_SYSTEM;
	if (t->uid == s->fg_uid)
		return TP_TOP_APP;
	if (uid_listed(s->tp->p.foreground_uids, t->uid))
		return TP_FOREGROUND;
	return TP_BACKGROUND;
}

void task_profiles_apply(struct stack *s, struct stack_task *t)
{
	struct task_profiles *tp = s->tp;
	if (!tp->p.enabled)
		return;
	struct io_context *ioc = &t->ioc;
	bool bg = task_state(s, t) == TP_BACKGROUND;
	uint16_t id = bg ? 1 : 0;
	if (ioc->blkcg_id != id || ioc->blkcg_weight == 0)
		tp->moves++;
	ioc->blkcg_id = id;
	ioc->blkcg_weight = (uint16_t)(bg ? tp->p.bg_weight : tp->p.root_weight);
	ioc->blkcg_bfq_weight = (uint16_t)(bg ? tp->p.bg_bfq_weight : 0);
	ioc->blkcg_prio_policy = (uint8_t)(bg ? tp->p.bg_prio_policy : 0);
}

void task_profiles_apply_all(struct stack *s)
{
	struct list_head *pos;
	list_for_each(pos, &s->tasks)
		task_profiles_apply(s, list_entry(pos, struct stack_task, all_node));
}

struct json_t *task_profiles_to_json(const struct stack *s)
{
	const struct task_profiles *tp = s->tp;
	json_t *o = json_object();
	json_object_set_new(o, "moves", json_integer((json_int_t)tp->moves));
	json_object_set_new(o, "params", cfg_params_to_json(tp_params_table, &tp->p));
	return o;
}
