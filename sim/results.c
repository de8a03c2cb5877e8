/* Result document assembly (sim_result_json); the atomic output files it
 * is written with are sim/output.c.
 *
 * Key order is fixed by construction (jansson keeps insertion order), so
 * the same run gives the same bytes; only engine.wall_s, events_per_s and
 * peak_rss_kib depend on the machine.
 */
#define _GNU_SOURCE /* mkostemp */
#include "sim/results.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/completion/completion.h"
#include "models/device/device.h"
#include "models/policies/policy.h"
#include "models/sched/sched.h"
#include "models/stack/stack.h"
#include "models/stack/stack_int.h"
#include "sim/sim.h"
#include "sim/workload.h"
#include "version.h"

long results_peak_rss_kib(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ru.ru_maxrss; /* KiB on Linux */
}

static json_t *engine_json(const struct sim *s)
{
	json_t *o = json_object();
	double wall = s->wall_s > 0 ? s->wall_s : 0;
	json_object_set_new(o, "events", json_integer((json_int_t)s->engine.fired));
	json_object_set_new(o, "sim_ns", json_integer((json_int_t)sim_now(s)));
	json_object_set_new(o, "wall_s", json_real(wall));
	json_object_set_new(o, "events_per_s",
			    json_real(wall > 0 ? (double)s->engine.fired / wall : 0.0));
	json_object_set_new(o, "peak_rss_kib", json_integer(results_peak_rss_kib()));
	json_object_set_new(o, "pending_at_end", json_integer(sim_engine_pending(&s->engine)));
	json_object_set_new(o, "end", json_string(s->end_reason ? s->end_reason : "not run"));
	return o;
}

static json_t *pagecache_json(const struct sim *s)
{
	if (s->stack)
		return stack_to_json(s->stack);
	/* No page cache in this run; the contract's keys exist always. */
	json_t *o = json_object();
	json_object_set_new(o, "lock_wait_ns", json_integer(0));
	json_object_set_new(o, "lock_acquisitions", json_integer(0));
	json_object_set_new(o, "hits", json_integer(0));
	json_object_set_new(o, "misses", json_integer(0));
	return o;
}

/* The "energy" object (docs/energy.md): totals, by class, the device's and
 * the CPU's parts, and each region's. fg/bg: the requests and task CPU time
 * of that class; kernel: the completion path's CPU time; idle: what the
 * device drew idle and asleep and the CPUs idle, no class's. */
static json_t *energy_json(const struct sim *s)
{
	int64_t now = sim_now(s);
	struct device_energy_total d = { 0 };
	struct cpu_energy_total c = { 0 };
	if (s->device)
		device_energy_at(&s->device->energy, now, &d);
	if (s->stack)
		cpu_energy_at(&s->stack->cpu, now, &c);
	double dev_j = device_energy_total_j(&d), cpu_j = c.active_j + c.idle_j;
	json_t *o = json_object();
	json_object_set_new(o, "total_j", json_real(dev_j + cpu_j));
	json_object_set_new(o, "device_j", json_real(dev_j));
	json_object_set_new(o, "cpu_j", json_real(cpu_j));
	json_t *bc = json_object();
	for (int k = 0; k < SIM_NCLASS; k++) {
		json_t *x = json_object();
		json_object_set_new(x, "device_j", json_real(d.by_class_j[k]));
		json_object_set_new(x, "cpu_j", json_real(c.by_who_j[k == SIM_CLASS_FG ? CPU_BUSY_FG
											 : CPU_BUSY_BG]));
		json_object_set_new(bc, sim_class_names[k], x);
	}
	json_t *x = json_object();
	json_object_set_new(x, "device_j", json_real(0));
	json_object_set_new(x, "cpu_j", json_real(c.by_who_j[CPU_BUSY_KERNEL]));
	json_object_set_new(bc, "kernel", x);
	x = json_object();
	json_object_set_new(x, "device_j", json_real(d.idle_j + d.sleep_j + d.wake_j));
	json_object_set_new(x, "cpu_j", json_real(c.idle_j));
	json_object_set_new(bc, "idle", x);
	json_object_set_new(o, "by_class", bc);
	if (s->device)
		json_object_set_new(o, "device", device_energy_json(&s->device->energy, now));
	if (s->stack)
		json_object_set_new(o, "cpu", cpu_energy_json(&s->stack->cpu, now));
	json_object_set_new(o, "regions", sim_metrics_region_energy_json(&s->metrics));
	return o;
}

json_t *sim_result_json(struct sim *s)
{
	json_t *doc = json_object();
	json_t *meta = json_object();
	json_object_set_new(meta, "version", json_string(MOBISIM_VERSION));
	json_object_set_new(meta, "seed", json_integer((json_int_t)s->seed));
	json_object_set_new(meta, "replay", json_string(s->replay));
	if (s->scenario_path)
		json_object_set_new(meta, "scenario", json_string(s->scenario_path));
	json_object_set_new(doc, "mobisim", meta);
	json_object_set_new(doc, "config", cfg_to_json(cfg_root(s->doc)));
	json_object_set_new(doc, "engine", engine_json(s));
	json_object_set_new(doc, "classes", sim_metrics_classes_json(&s->metrics));
	json_object_set_new(doc, "regions", sim_metrics_regions_json(&s->metrics));
	if (s->device)
		json_object_set_new(doc, "device", device_to_json(s->device));
	if (s->blk)
		json_object_set_new(doc, "block", blk_queue_to_json(s->blk));
	if (s->device && s->device->cpl)
		json_object_set_new(doc, "completion", completion_to_json(s->device->cpl));
	json_object_set_new(doc, "pagecache", pagecache_json(s));
	json_object_set_new(doc, "waits", sim_metrics_waits_json(&s->metrics));
	if (s->stack)
		json_object_set_new(doc, "stack", stack_stats_json(s->stack));
	if (policy_set_count(s->policies) > 0)
		json_object_set_new(doc, "policies", policy_set_json(s->policies));
	if (s->workload && s->workload->ops->stats_json) {
		json_t *w = json_object();
		json_object_set_new(w, "type", json_string(s->workload->ops->name));
		s->workload->ops->stats_json(s, s->workload->state, w);
		json_object_set_new(doc, "workload", w);
	}
	json_object_set_new(doc, "energy", energy_json(s));
	return doc;
}
