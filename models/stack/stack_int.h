/* The stack core, shared by the files of models/stack/ only: the op state
 * machines a user task runs (ops.c), task profiles (task_profiles.c) and
 * the launch ops (stack_launch.c).
 * The layers below declare their own interfaces (models/sched/sched.h,
 * models/mm/mm.h, models/fs/fs.h); the structures are the sched layer's
 * models/sched/task.h, with each layer's parts; the public interface is
 * models/stack/stack.h.
 */
#ifndef MODELS_STACK_INT_H
#define MODELS_STACK_INT_H

#include "models/fs/fs.h"
#include "models/mm/mm.h"
#include "models/sched/task.h"
#include "models/stack/stack.h"

/* ---------------------------------------------------------- ops.c */

/* A user task's thread function: takes ops from its source and runs them. */
void stack_user_run(struct stack_task *t);

/* ------------------------------------------------- task_profiles.c */

struct tp_params {
	bool enabled;
	int64_t root_weight, bg_weight, bg_bfq_weight;
	int bg_prio_policy;
	const char *foreground_uids;
};

struct task_profiles {
	struct tp_params p;
	uint64_t moves;               /* group changes applied */
};

int task_profiles_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* Place t in its blkio group for its current state (no-op when disabled). */
void task_profiles_apply(struct stack *s, struct stack_task *t);
void task_profiles_apply_all(struct stack *s);
struct json_t *task_profiles_to_json(const struct stack *s);

/* -------------------------------------------------- stack_launch.c */

/* The WILLNEED, PLUG and UNPLUG ops. */
enum step launch_op_step(struct stack_task *t);

#endif
