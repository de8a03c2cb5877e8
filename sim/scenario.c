/* Scenario assembly: builds a simulator from a resolved scenario document,
 * bottom-up as docs/architecture.md stacks it: device, block queue (when the
 * workload needs it or a scheduler is named), upper stack, workload.
 *
 * Top-level keys consumed here: name, description, seed, device,
 * scheduler, block, the scheduler sections (cfq:, deadline:, noop:),
 * run, source, workload; models/policies/policy.c consumes policies: and the
 * policies' own sections. Layers consume their own sections (the stack:
 * cpu, memory, pagecache, readahead, writeback, fs, journal, fg); whatever
 * no one consumed is reported as an unknown key at the end.
 */
#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/block/block.h"
#include "models/completion/completion.h"
#include "models/device/device.h"
#include "models/block/elevator.h"
#include "models/policies/policy.h"
#include "models/stack/stack.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/workload.h"

struct run_limits {
	int64_t until_ns;
	int64_t max_events;
	int stop;
	bool per_event;
};

static const char *const stop_names[] = { "done", "fg_done", NULL };

static const struct cfg_param run_params[] = {
	{ "until_s", CFG_T_TIME, offsetof(struct run_limits, until_ns), "s", "0", 0, 1e9,
	  "0 = until the workload is done", "stop the simulated clock here", NULL },
	{ "max_events", CFG_T_INT, offsetof(struct run_limits, max_events), "", "0", 0, 1e15,
	  "0 = unlimited", "stop after this many events", NULL },
	{ "stop", CFG_T_ENUM, offsetof(struct run_limits, stop), "", "done", CFG_NO_RANGE,
	  "scenario: a launch study measures the launch only (docs/workloads.md)",
	  "end of the run: done (every task finished and the workload's input used up) or "
	  "fg_done (every foreground task finished: a task whose uid is in fg: or that has "
	  "become_fg; the background work is cut off there)", stop_names },
	{ "per_event", CFG_T_BOOL, offsetof(struct run_limits, per_event), "", "false", CFG_NO_RANGE,
	  "debug switch, not a model parameter: results are the same either way "
	  "(tests/integration/batch_same.sh)",
	  "every CPU burst is an event of its own, even where nothing else can happen before "
	  "it ends (the per-step path the inline one is checked against)", NULL },
	CFG_PARAM_END,
};

/* `device: NAME` with no such preset: the nearest bundled one. */
static int unknown_preset(const struct cfg_node *node, const char *v, struct sim_error *err)
{
	char dir[4096], hint[160];
	struct cfg_suggest sg;
	cfg_suggest_init(&sg, v);
	snprintf(dir, sizeof(dir), "%s/configs/devices", sim_datadir());
	DIR *d = opendir(dir);
	char names[64][64];
	int n = 0;
	for (struct dirent *e; d && n < 64 && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l > 5 && l - 5 < sizeof(names[0]) && strcmp(e->d_name + l - 5, ".yaml") == 0) {
			snprintf(names[n], sizeof(names[n]), "%.*s", (int)(l - 5), e->d_name);
			cfg_suggest_add(&sg, names[n++]);
		}
	}
	if (d)
		closedir(d);
	return cfg_errorf(err, node, "unknown device preset '%s'%s (see `mobisim list devices`; "
			  "a file is named with .yaml or a /)", v, cfg_suggest_hint(&sg, hint, sizeof(hint)));
}

/* Resolve `device: NAME` (a preset in configs/devices/), `device: FILE.yaml`
 * (relative to the scenario), or an inline map. */
static int scenario_device(struct sim *s, struct cfg_node *root, const char *scenario_path,
			   struct sim_error *err)
{
	struct cfg_node *node = cfg_get(root, "device");
	if (!node)
		return cfg_errorf(err, root, "missing `device:` (a preset name such as ufs20, or a map with model:)");
	if (node->kind == CFG_MAP)
		return device_create(s, node, &s->device, err);
	if (node->kind != CFG_SCALAR)
		return cfg_errorf(err, node, "expected a preset name or a map");
	cfg_mark_used(node, false);

	char path[4096];
	const char *v = node->value;
	size_t len = strlen(v);
	if (strchr(v, '/') || (len > 5 && strcmp(v + len - 5, ".yaml") == 0)) {
		if (v[0] == '/' || !scenario_path) {
			snprintf(path, sizeof(path), "%s", v);
		} else {
			char dir[4096];
			snprintf(dir, sizeof(dir), "%s", scenario_path);
			snprintf(path, sizeof(path), "%s/%s", dirname(dir), v);
		}
	} else {
		for (const char *c = v; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' ||
			      *c == '_'))
				return cfg_errorf(err, node, "'%s' is not a preset name "
						  "(see `mobisim list devices`)", v);
		snprintf(path, sizeof(path), "%s/configs/devices/%s.yaml", sim_datadir(), v);
		if (access(path, F_OK) != 0)
			return unknown_preset(node, v, err);
	}
	struct sim_error sub;
	int rc = cfg_load_file(path, &s->device_doc, &sub);
	if (rc)
		return cfg_errorf(err, node, "device preset '%s': %s", v, sub.msg);
	rc = device_create(s, cfg_root(s->device_doc), &s->device, err);
	if (rc)
		return rc;
	s->device->preset = node->value;
	return cfg_check_unused(cfg_root(s->device_doc), err);
}

/* Validate sections of schedulers that are not selected, so a sweep over
 * `scheduler` can carry tunables for each without tripping unknown-key. */
static int scenario_check_other_schedulers(struct cfg_node *root, const char *selected,
					   struct sim_error *err)
{
	for (const struct elevator_ops *const *e = elevator_registry(); *e; e++) {
		struct cfg_node *sec = cfg_get(root, (*e)->name);
		if (!sec || (selected && strcmp(selected, (*e)->name) == 0) || !(*e)->params)
			continue;
		void *scratch = calloc(1, (*e)->priv_size ? (*e)->priv_size : 1);
		if (!scratch)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		int rc = cfg_apply((*e)->params, sec, scratch, err);
		free(scratch);
		if (rc)
			return rc;
		cfg_mark_used(sec, false);
	}
	return 0;
}

static int scenario_workload(struct sim *s, struct cfg_node *root, struct cfg_node **node_out,
			     const struct workload_ops **ops_out, struct sim_error *err)
{
	struct cfg_node *source = cfg_get(root, "source");
	struct cfg_node *wl = cfg_get(root, "workload");
	if (source && wl)
		return cfg_errorf(err, source, "give either `source:` or `workload:`, not both");
	if (source) {
		if (source->kind != CFG_MAP)
			return cfg_errorf(err, source, "expected a map of Poisson source parameters");
		cfg_mark_used(source, false);
		*node_out = source;
		*ops_out = workload_find("poisson");
		return 0;
	}
	if (!wl)
		return cfg_errorf(err, root, "missing `workload:` (or `source:` for the Poisson reference source)");
	if (wl->kind != CFG_MAP)
		return cfg_errorf(err, wl, "expected a map with a `type:` key");
	cfg_mark_used(wl, false);
	struct cfg_node *type = cfg_get(wl, "type");
	if (!type || type->kind != CFG_SCALAR)
		return cfg_errorf(err, wl, "missing `type:` (see `mobisim list workloads`)");
	cfg_mark_used(type, false);
	*ops_out = workload_find(type->value);
	if (!*ops_out) {
		struct cfg_suggest sg;
		char hint[160];
		cfg_suggest_init(&sg, type->value);
		for (const struct workload_ops *const *w = workload_registry(); *w; w++)
			cfg_suggest_add(&sg, (*w)->name);
		return cfg_errorf(err, type, "unknown workload type '%s'%s (see `mobisim list workloads`)",
				  type->value, cfg_suggest_hint(&sg, hint, sizeof(hint)));
	}
	*node_out = wl;
	return 0;
}

static int scenario_build(struct sim *s, const char *path, const struct sim_options *opt,
			  struct sim_error *err)
{
	struct cfg_node *root = cfg_root(s->doc);
	if (!root || root->kind != CFG_MAP)
		return cfg_errorf(err, root, "a scenario is a map of sections");
	cfg_mark_used(root, false);
	(void)cfg_get_str(root, "name"); /* free text: consumed, echoed via the config */
	(void)cfg_get_str(root, "description");
	(void)cfg_get_str(root, "platform"); /* a label, as name: which platform set-up this is */
	/* the ranges of the values not measured on this platform: read by
	 * `sensitivity --list` and `--uncertainty` (sim/cli/assumptions.c), not by the model */
	struct cfg_node *assumed = cfg_get(root, "assumptions");
	if (assumed)
		cfg_mark_used(assumed, true);

	struct run_limits lim;
	struct cfg_node *run = cfg_get(root, "run");
	if (run)
		cfg_mark_used(run, false);
	int rc = cfg_apply(run_params, run, &lim, err);
	if (rc)
		return rc;
	s->until_ns = lim.until_ns ? lim.until_ns : SIM_TIME_MAX;
	s->engine.max_events = (uint64_t)lim.max_events;
	s->stop_fg_done = lim.stop == 1;
	s->engine.no_advance = lim.per_event;

	rc = scenario_device(s, root, path, err);
	if (rc)
		return rc;
	/* `completion:` (absent or none: no completion model, the device
	 * completes straight into the layer above) */
	struct completion *cpl;
	rc = completion_attach(s, s->device, cfg_get(root, "completion"), &cpl, err);
	if (rc)
		return rc;

	struct cfg_node *wl_node = NULL;
	const struct workload_ops *wl_ops = NULL;
	rc = scenario_workload(s, root, &wl_node, &wl_ops, err);
	if (rc)
		return rc;

	struct cfg_node *sched = cfg_get(root, "scheduler");
	const char *sched_name = NULL;
	if (sched) {
		if (sched->kind != CFG_SCALAR)
			return cfg_errorf(err, sched, "expected a scheduler name (noop, deadline, cfq; "
					  "with block.kind: mq none, mq-deadline, bfq, kyber)");
		cfg_mark_used(sched, false);
		sched_name = sched->value;
		if (!elevator_find(sched_name)) {
			struct cfg_suggest sg;
			char hint[160];
			cfg_suggest_init(&sg, sched_name);
			for (const struct elevator_ops *const *e = elevator_registry(); *e; e++)
				cfg_suggest_add(&sg, (*e)->name);
			return cfg_errorf(err, sched, "unknown scheduler '%s'%s (see `mobisim list schedulers`)",
					  sched_name, cfg_suggest_hint(&sg, hint, sizeof(hint)));
		}
	}
	rc = scenario_check_other_schedulers(root, sched_name, err);
	if (rc)
		return rc;
	if (wl_ops->needs_block || wl_ops->needs_stack || sched_name) {
		struct cfg_node *block = cfg_get(root, "block");
		if (block)
			cfg_mark_used(block, false);
		struct cfg_node *sched_sec = sched_name ? cfg_get(root, sched_name) : NULL;
		if (sched_sec)
			cfg_mark_used(sched_sec, false);
		/* no scheduler named: noop (sq) or the kernel's default (mq) */
		rc = blk_queue_create(s, s->device, block, sched_name, sched_sec, &s->blk, err);
		if (rc)
			return rc;
	}

	if (wl_ops->needs_stack) {
		rc = stack_create(s, root, &s->stack, err);
		if (rc)
			return rc;
	}

	/* Policies hook into the stack and block layer, so they come after
	 * both and before the workload starts any I/O. */
	rc = policy_set_create_with_plugins(s, root, opt ? opt->plugins : NULL, &s->policies, err);
	if (rc)
		return rc;


	s->workload = calloc(1, sizeof(*s->workload));
	if (!s->workload)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	s->workload->ops = wl_ops;
	rc = wl_ops->create(s, wl_node, &s->workload->state, err);
	if (rc)
		return rc;
	if (s->stop_fg_done) {
		/* a run that would end at once, or never at its FG's end, is refused */
		int nfg = wl_ops->fg_count ? wl_ops->fg_count(s, s->workload->state) : -1;
		if (nfg <= 0)
			return cfg_errorf(err, cfg_get(run, "stop"),
					  nfg < 0 ? "run.stop: fg_done: the %s workload cannot tell its "
						    "foreground tasks"
						  : "run.stop: fg_done: the %s workload has no foreground "
						    "task (none has a uid in fg: or become_fg)",
					  wl_ops->name);
	}
	return cfg_check_unused(root, err);
}

/* Below 2^63, so the result records a seed exactly as a JSON integer
 * (jansson's json_int_t is int64). */
static const struct cfg_param seed_param[] = {
	{ "seed", CFG_T_INT, 0, "", "1", 0, (double)SIM_SEED_MAX, "docs/architecture.md §5: seed 1 unless given",
	  "run seed; every random stream derives from it", NULL },
	CFG_PARAM_END,
};

/* `lenient: true` in a scenario (or --set lenient=true, for the commands
 * that have no --lenient): as sim_options.lenient. */
static const struct cfg_param lenient_param[] = {
	{ "lenient", CFG_T_BOOL, 0, "", "false", CFG_NO_RANGE, "choice: refuse by default",
	  "a replay whose fg rules read what its trace does not record runs with a counted warning", NULL },
	CFG_PARAM_END,
};

int sim_seed_parse(const char *text, uint64_t *out, struct sim_error *err)
{
	int64_t v;
	struct sim_error perr;
	if (cfg_parse_int(text, &v, &perr) || v < 0 || (uint64_t)v > SIM_SEED_MAX)
		return sim_errorf(err, SIM_E_INPUT,
				  "--seed: '%.40s%s' is not an integer in [0, %llu] (the range of seed:)",
				  text, strlen(text) > 40 ? "..." : "", (unsigned long long)SIM_SEED_MAX);
	*out = (uint64_t)v;
	return 0;
}

int sim_create(struct cfg_doc *doc, const char *scenario_path, const struct sim_options *opt,
	       struct sim **out, struct sim_error *err)
{
	*out = NULL;
	struct cfg_node *root = cfg_root(doc);
	int64_t seed = 1;
	bool lenient = false;
	if (root && root->kind == CFG_MAP) {
		int rc = cfg_apply(seed_param, root, &seed, err);
		if (!rc && cfg_get(root, "lenient"))
			rc = cfg_apply(lenient_param, root, &lenient, err);
		if (rc) {
			cfg_free(doc);
			return rc;
		}
	}
	if (opt && opt->seed_given)
		seed = (int64_t)opt->seed;
	struct sim *s = sim_new_bare((uint64_t)seed);
	if (!s) {
		cfg_free(doc);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	s->doc = doc;
	s->scenario_path = scenario_path;
	s->lenient = lenient || (opt && opt->lenient);
	int rc = scenario_build(s, scenario_path, opt, err);
	if (rc) {
		sim_destroy(s);
		return rc;
	}
	*out = s;
	return 0;
}

void scenario_destroy_layers(struct sim *s)
{
	policy_set_destroy(s->policies); /* unhooks itself from the stack */
	s->policies = NULL;
	if (s->stack) {
		stack_destroy(s->stack);
		s->stack = NULL;
	}
}
