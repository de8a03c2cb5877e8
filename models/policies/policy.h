/* Policies (docs/architecture.md): the mechanisms of the papers in
 * docs/papers.md, each a `struct policy_ops` that reaches into
 * the stack only through named hook points.
 *
 * Who calls what:
 *  - sim/scenario.c builds a policy_set from the scenario's `policies:`
 *    key (a YAML list of names, or a comma string "expc,boost"; absent,
 *    empty or "baseline" = none) after the upper stack and before the
 *    workload, and destroys it in scenario_destroy_layers.
 *  - The set composes its policies behind the stack's single struct
 *    stack_hooks slot: each hook is called in list order; for
 *    pagecache_may_insert the largest delay wins. A hook no policy has
 *    stays NULL in the stack, so a set without hooks leaves the run
 *    exactly as the baseline.
 *  - Each policy's tunables live in a top-level YAML section named after
 *    it (`expc: {window_us: 100}`), applied through its cfg_param table to
 *    a zeroed private block of priv_size bytes before init. Sections of
 *    registered policies that are not in the set are still validated, so
 *    `mobisim compare` can carry every policy's tunables in one scenario.
 *  - Launch planners (prefetch, padding) are asked by the workload through
 *    policy_set_before_launch() and policy_set_plan_loads().
 *  - results.c puts policy_set_json() under "policies".
 *
 * Plugins: `--plugin path.so` dlopens a shared object (RTLD_NOW |
 * RTLD_LOCAL) and calls its `mobisim_policy_register(struct
 * policy_registry *)`, which calls policy_registry_add() once per policy
 * it provides. The object resolves mobisim_* symbols against the program
 * (which exports them). examples/plugin/ is a complete one. A plugin's
 * calls run under models/policies/policy_guard.h (a crash or a loop ends
 * the run naming it), and every policy's hook values are checked by the
 * set (policy.c: a negative delay, a bio changed beyond its flags, a
 * failure without a message end the run naming the policy).
 */
#ifndef MODELS_POLICY_H
#define MODELS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/block/request.h"
#include "sim/config.h"
#include "sim/error.h"

struct sim;
struct device;
struct stack_task;
struct stack_file;
struct json_t;
struct policy;
struct policy_set;
struct policy_registry;

/* Bumped when struct policy_ops or the hook contracts change; a plugin
 * built against another version is refused at registration. */
#define MOBISIM_POLICY_ABI 2 /* 2: reclaim_protect */

/* --------------------------------------------------- launch planning */

/* One piece of a launch working set: len bytes of file at byte offset
 * off, starting at device sector lba (UINT64_MAX if not allocated). */
struct policy_chunk {
	struct stack_file *file;
	uint64_t off, len;
	uint64_t lba;
};

/* A launch working set, as recorded by a profiling run, and the device it
 * will be loaded from. Chunks are in recorded (access) order until a
 * planner reorders them. The set owns chunks[] (policy_ws_*). */
struct policy_working_set {
	struct policy_chunk *chunks;
	size_t n, cap;
	struct device *device;
	/* The device's idle service time of one request of bytes (QD1, no
	 * queueing): device_ops.idle_latency_ns, NULL when the model has
	 * none. Call through policy_ws_latency_ns(). */
	int64_t (*idle_latency_ns)(struct device *dev, bool write, uint64_t bytes);
};

/* An app about to launch (before its first op runs). */
struct policy_app {
	struct stack_task *task;  /* the launching task (NULL if not a stack task) */
	const char *name;         /* task/app name */
	const char *region;       /* region name of the launch, may be NULL */
	uint32_t uid;
	int64_t start_ns;
};

void policy_ws_init(struct policy_working_set *ws, struct device *dev);
/* Append a chunk. 0 or SIM_E_NOMEM (err filled). */
int policy_ws_push(struct policy_working_set *ws, const struct policy_chunk *c,
		   struct sim_error *err);
void policy_ws_free(struct policy_working_set *ws);
/* Idle read (write) time of one request of bytes, or -1 when the device
 * model cannot tell. */
int64_t policy_ws_latency_ns(const struct policy_working_set *ws, bool write, uint64_t bytes);

/* ------------------------------------------------------------ the ops */

struct policy_ops {
	const char *name;          /* also the name of its YAML section */
	const char *summary;       /* one line for `mobisim list policies` */
	int abi;                   /* MOBISIM_POLICY_ABI (checked for plugins; 0 ok for built-ins) */
	const struct cfg_param *params; /* applied to priv (zeroed, priv_size) before init; may be NULL */
	size_t priv_size;

	/* Set up against the built simulator (sim->stack, sim->blk,
	 * sim->device may be NULL when the scenario has no such layer; a
	 * policy whose mechanism needs one stays inert and says so in its
	 * stats). Returns 0 or a negative code with err filled. */
	int (*init)(struct policy *p, struct sim *sim, struct sim_error *err);
	void (*destroy)(struct policy *p);

	/* Hooks (any may be NULL), called from the stack in task context.
	 * pagecache_may_insert: before t inserts a page into the page cache:
	 * 0 to go on, or a delay in ns after which the stack asks again (the
	 * task sleeps, wait cause "policy"). */
	int64_t (*pagecache_may_insert)(struct policy *p, struct stack_task *t);
	/* After t inserted a page that becomes valid (read fill or write).
	 * A built-in policy's two insert hooks read only t, the clock, the
	 * block layer and its own state (stack_hooks.insert_hooks_local). */
	void (*on_page_insert)(struct policy *p, struct stack_task *t);
	/* t is about to sleep in wait_on_page_writeback on a page under
	 * async writeback at device sector page_lba (UINT64_MAX unmapped). */
	void (*on_wait_writeback)(struct policy *p, struct stack_task *t, uint64_t page_lba);
	/* A bio is about to enter the block layer from task t (its REQ_FG
	 * tag already set): a policy may add request flags or retag it. */
	void (*classify_request)(struct policy *p, struct stack_task *t, struct bio *bio);
	/* Reclaim (kswapd, or the direct reclaimer t) is about to free a
	 * clean page of file f: true keeps it (activated). Any policy
	 * keeping it keeps it. */
	bool (*reclaim_protect)(struct policy *p, const struct stack_file *f, struct stack_task *t);
	/* An app launch is about to start. 0 or a negative code. */
	int (*before_launch)(struct policy *p, const struct policy_app *app, struct sim_error *err);
	/* Rewrite a launch working set into the loads to issue (reorder,
	 * merge, pad, shift): ws is replaced in place. 0 or a negative code. */
	int (*plan_loads)(struct policy *p, struct policy_working_set *ws, struct device *dev,
			  struct sim_error *err);

	/* Figures for the result's "policies.<name>" object (params are
	 * added by the set). */
	void (*stats_json)(const struct policy *p, struct json_t *obj);
};

/* One instance in a set. */
struct policy {
	const struct policy_ops *ops;
	struct sim *sim;
	void *priv;                /* priv_size bytes, tunables filled */
	struct cfg_node *node;     /* its YAML section, or NULL */
};

/* ----------------------------------------------------------- registry */

/* Built-in policies plus those loaded from plugins. NULL on allocation
 * failure. */
struct policy_registry *policy_registry_new(void);
void policy_registry_free(struct policy_registry *r);
/* Register ops (a plugin calls this from mobisim_policy_register). ops
 * must outlive the registry. SIM_E_INPUT when the name is taken, empty,
 * or a plugin's ABI differs. */
int policy_registry_add(struct policy_registry *r, const struct policy_ops *ops);
/* dlopen path and call its mobisim_policy_register. SIM_E_INPUT naming
 * path for a missing file, a missing symbol, a failed or duplicate
 * registration. The handle is closed by policy_registry_free. */
int policy_registry_load_plugin(struct policy_registry *r, const char *path,
				struct sim_error *err);
/* Load each path of a NULL-terminated list (may be NULL). */
int policy_registry_load_plugins(struct policy_registry *r, const char *const *paths,
				 struct sim_error *err);
const struct policy_ops *policy_registry_find(const struct policy_registry *r, const char *name);
/* Registered policies in registration order (built-ins first). */
size_t policy_registry_count(const struct policy_registry *r);
const struct policy_ops *policy_registry_at(const struct policy_registry *r, size_t i);

/* The built-in table, NULL-terminated. */
const struct policy_ops *const *policy_builtin_registry(void);

/* ---------------------------------------------------------- policy set */

/* Policies in one set at most. */
#define POLICY_SET_MAX 16

/* Parse a set spec: a comma string ("expc,boost", blanks ignored;
 * "" or "baseline" = none). Fills names[] (pointers into buf, which the
 * function fills with a copy of spec) and *n. SIM_E_INPUT for an empty
 * item or more than max names. */
int policy_parse_list(const char *spec, char *buf, size_t buflen, const char **names,
		      size_t max, size_t *n, struct sim_error *err);

/* Build the set named by root's `policies:` key and install its hooks in
 * sim->stack (if any). Takes ownership of reg (may be NULL: built-ins
 * only). Unknown names, duplicates and bad tunables are SIM_E_INPUT
 * naming the node. *out is NULL for a set of no policies only if
 * allocation failed; an empty set is a valid object. */
int policy_set_create(struct sim *sim, struct cfg_node *root, struct policy_registry *reg,
		      struct policy_set **out, struct sim_error *err);
/* policy_set_create with a registry of the built-ins plus the plugins at
 * paths (NULL-terminated, may be NULL): what sim/scenario.c calls. */
int policy_set_create_with_plugins(struct sim *sim, struct cfg_node *root,
				   const char *const *paths, struct policy_set **out,
				   struct sim_error *err);
/* Uninstall hooks, destroy policies, close plugins. NULL is fine. */
void policy_set_destroy(struct policy_set *ps);

size_t policy_set_count(const struct policy_set *ps);
struct policy *policy_set_at(struct policy_set *ps, size_t i);
/* The instance named name, or NULL. */
struct policy *policy_set_find(struct policy_set *ps, const char *name);

/* Dispatchers for the hooks that are not stack hooks (each policy in
 * list order; the first error stops). ps may be NULL. */
int policy_set_before_launch(struct policy_set *ps, const struct policy_app *app,
			     struct sim_error *err);
int policy_set_plan_loads(struct policy_set *ps, struct policy_working_set *ws,
			  struct sim_error *err);
/* Does some policy of the set plan loads / watch launches? */
bool policy_set_has_planner(const struct policy_set *ps);

/* {"names": [...], "<name>": {"params": {...}, stats...}, ...}. Caller owns. */
struct json_t *policy_set_json(const struct policy_set *ps);

#endif
