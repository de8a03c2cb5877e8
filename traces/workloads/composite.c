/* The "composite" workload: several sources in one scenario, e.g. a
 * recorded foreground launch (ftrace or block replay) under a synthetic
 * background writer and a replayed background trace. Each source is any
 * registered workload that goes through the block layer, written as that
 * workload's own map under `sources:`; its identity keys are its own:
 * synthetic tasks carry uid/become_fg and the workload an `offset`; the
 * replays take `offset` (their first recorded op lands there), `time_scale`,
 * `class` (auto: their fg rules; fg or bg: every thread), `bg_uid` and
 * `pid_offset` (recorded pids moved clear of the other sources'). The
 * composite starts every source at once, is done when all are, and
 * reports each source's figures under workload.sources.NAME.
 *
 *   workload:
 *     type: composite
 *     sources:
 *       launch: {type: ftrace, trace: launch.trace, offset: 2s, fg_uid: [10050]}
 *       bg: {type: synthetic, tasks: {writer: {gen: writer, uid: 10060, bytes: 4GiB}}}
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim/sim.h"
#include "sim/workload.h"

struct comp_src {
	const char *name;
	const struct workload_ops *ops;
	void *state;
};

struct comp {
	struct comp_src *v;
	uint32_t n;
	const char *replay;
};

static void comp_destroy(void *state)
{
	struct comp *c = state;
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++)
		if (c->v[i].ops && c->v[i].ops->destroy)
			c->v[i].ops->destroy(c->v[i].state);
	free(c->v);
	free(c);
}

static int comp_create(struct sim *sim, struct cfg_node *node, void **state, struct sim_error *err)
{
	*state = NULL;
	struct comp *c = calloc(1, sizeof(*c));
	if (!c)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	*state = c;
	cfg_mark_used(node, false);
	(void)cfg_get_str(node, "type");
	struct cfg_node *srcs = cfg_get(node, "sources");
	if (!srcs || srcs->kind != CFG_MAP || !srcs->child)
		return cfg_errorf(err, srcs ? srcs : node,
				  "expected `sources:`, a map of source name -> {type: ..., ...}");
	cfg_mark_used(srcs, false);
	uint32_t n = 0;
	for (struct cfg_node *s = srcs->child; s; s = s->next)
		n++;
	c->v = calloc(n, sizeof(*c->v));
	if (!c->v)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	for (struct cfg_node *s = srcs->child; s; s = s->next) {
		if (s->kind != CFG_MAP)
			return cfg_errorf(err, s, "expected a map {type: ..., ...}");
		cfg_mark_used(s, false);
		struct cfg_node *type = cfg_get(s, "type");
		if (!type || type->kind != CFG_SCALAR)
			return cfg_errorf(err, s, "missing `type:` (see `mobisim list workloads`)");
		cfg_mark_used(type, false);
		const struct workload_ops *ops = workload_find(type->value);
		if (!ops)
			return cfg_errorf(err, type,
					  "unknown workload type '%s' (see `mobisim list workloads`)",
					  type->value);
		if (strcmp(ops->name, "composite") == 0 || !ops->needs_block)
			return cfg_errorf(err, type,
					  "a composite source must go through the block layer "
					  "(synthetic, ftrace, replay), not '%s'",
					  type->value);
		if (ops->needs_stack && !sim->stack)
			return cfg_errorf(err, type, "'%s' needs the upper stack", type->value);
		struct comp_src *cs = &c->v[c->n++];
		cs->name = s->key;
		cs->ops = ops;
		sim->replay = "none";
		int rc = ops->create(sim, s, &cs->state, err);
		if (rc)
			return rc;
		/* the sources' loops: one name if they agree */
		if (strcmp(sim->replay, "none") != 0) {
			if (!c->replay)
				c->replay = sim->replay;
			else if (strcmp(c->replay, sim->replay) != 0)
				c->replay = "mixed";
		}
	}
	sim->replay = c->replay ? c->replay : "closed";
	return 0;
}

static void comp_start(struct sim *sim, void *state)
{
	struct comp *c = state;
	for (uint32_t i = 0; i < c->n; i++)
		c->v[i].ops->start(sim, c->v[i].state);
}

static bool comp_done(struct sim *sim, void *state)
{
	struct comp *c = state;
	for (uint32_t i = 0; i < c->n; i++)
		if (!c->v[i].ops->done(sim, c->v[i].state))
			return false;
	return true;
}

static void comp_stats_json(struct sim *sim, void *state, json_t *obj)
{
	struct comp *c = state;
	json_t *all = json_object();
	for (uint32_t i = 0; i < c->n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "type", json_string(c->v[i].ops->name));
		if (c->v[i].ops->stats_json)
			c->v[i].ops->stats_json(sim, c->v[i].state, o);
		json_object_set_new(all, c->v[i].name, o);
	}
	json_object_set_new(obj, "sources", all);
}

const struct workload_ops composite_workload_ops = {
	.name = "composite",
	.summary = "several sources at once (recorded launch + synthetic or replayed background)",
	.create = comp_create,
	.start = comp_start,
	.done = comp_done,
	.stats_json = comp_stats_json,
	.destroy = comp_destroy,
	.needs_block = true,
	.needs_stack = true,
};
