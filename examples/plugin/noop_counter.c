/* example-noop-counter: the smallest out-of-tree mobisim policy. It
 * changes nothing in the simulated system; it counts how often each hook
 * of models/policies/policy.h is called and reports the counts in the result's
 * "policies.example-noop-counter" object. Start a real plugin from here.
 *
 * Build against an installed mobisim (cmake --install build --prefix P):
 *   cc -shared -fPIC -I P/include/mobisim noop_counter.c -o noop_counter.so
 * or with this directory's CMakeLists.txt / Makefile. Use it with
 *   mobisim run SCENARIO.yaml --plugin ./noop_counter.so \
 *       --set policies=example-noop-counter
 *   mobisim list policies --plugin ./noop_counter.so
 * The object is loaded with dlopen and resolves mobisim's own functions
 * (stack_task_is_fg, policy_registry_add ...) and jansson against the
 * mobisim program, so it links against neither.
 */
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "models/policies/policy.h"
#include "models/stack/stack.h"

struct counter {
	const char *tag;           /* tunable: echoed in the result */
	uint64_t may_insert, may_insert_fg, page_insert, wait_writeback, classify;
};

static int64_t counter_may_insert(struct policy *p, struct stack_task *t)
{
	struct counter *c = p->priv;
	c->may_insert++;
	if (t && stack_task_is_fg(t))
		c->may_insert_fg++;
	return 0; /* never delay */
}

static void counter_page_insert(struct policy *p, struct stack_task *t)
{
	(void)t;
	((struct counter *)p->priv)->page_insert++;
}

static void counter_wait_writeback(struct policy *p, struct stack_task *t, uint64_t page_lba)
{
	(void)t;
	(void)page_lba;
	((struct counter *)p->priv)->wait_writeback++;
}

static void counter_classify(struct policy *p, struct stack_task *t, struct bio *bio)
{
	(void)t;
	(void)bio;
	((struct counter *)p->priv)->classify++;
}

static void counter_stats(const struct policy *p, json_t *obj)
{
	const struct counter *c = p->priv;
	json_object_set_new(obj, "tag", json_string(c->tag));
	json_object_set_new(obj, "pagecache_may_insert", json_integer((json_int_t)c->may_insert));
	json_object_set_new(obj, "pagecache_may_insert_fg", json_integer((json_int_t)c->may_insert_fg));
	json_object_set_new(obj, "on_page_insert", json_integer((json_int_t)c->page_insert));
	json_object_set_new(obj, "on_wait_writeback", json_integer((json_int_t)c->wait_writeback));
	json_object_set_new(obj, "classify_request", json_integer((json_int_t)c->classify));
}

static const struct cfg_param counter_params[] = {
	{ "tag", CFG_T_STRING, offsetof(struct counter, tag), "", "example", CFG_NO_RANGE,
	  "examples/plugin", "free text echoed in the result", NULL },
	CFG_PARAM_END,
};

static const struct policy_ops counter_ops = {
	.name = "example-noop-counter",
	.summary = "counts policy hook calls, changes nothing (examples/plugin)",
	.abi = MOBISIM_POLICY_ABI,
	.params = counter_params,
	.priv_size = sizeof(struct counter),
	.pagecache_may_insert = counter_may_insert,
	.on_page_insert = counter_page_insert,
	.on_wait_writeback = counter_wait_writeback,
	.classify_request = counter_classify,
	.stats_json = counter_stats,
};

/* The one symbol mobisim looks up. Return 0, or non-zero to refuse. */
int mobisim_policy_register(struct policy_registry *reg);

int mobisim_policy_register(struct policy_registry *reg)
{
	return policy_registry_add(reg, &counter_ops);
}
