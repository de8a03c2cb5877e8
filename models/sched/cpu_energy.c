/* CPU energy: each core's busy time at its cluster's active power and the
 * rest of its time at the cluster's idle power (docs/energy.md). An
 * accounting view of the CPU model (cpu.c), which books every busy
 * nanosecond by whose work it was and by the core's cluster; nothing here
 * changes when anything runs.
 *
 * Two clusters as on the Galaxy S6's Exynos 7420 (4x Cortex-A57 at up to
 * 2.1 GHz, 4x Cortex-A53 at up to 1.5 GHz): the model's cores
 * [0, big_cores) are the big cluster's. cpu.c gives a task the first free
 * core, so the big cluster fills first, standing for the HMP scheduler
 * moving a busy foreground thread up to the big cores (an assumption:
 * docs/energy.md). Active power is AnandTech's "load power" (the device's
 * power under a CPU power virus less its idle power; Frumusanu, "Exynos
 * 7420 deep dive", anandtech.com/show/9330, p. 5): four A57 at 2.1 GHz
 * 5.49 W, 1.37 W a core; at 1.9 GHz 4.12 W, 1.03 W a core. A power virus
 * is the most a core draws at that frequency; real loads draw 80-90 % of
 * it (same page). The platform is taken to run at its top frequency while
 * busy (an app launch is boosted), so these are upper figures. Because
 * load power is measured over the device's idle power, a core's idle power
 * is within that baseline and defaults to 0.
 * Left out: frequency scaling, cluster power beside the cores (L2, CCI:
 * inside AnandTech's per-core figure), wake-up energy of a core, the
 * kernel threads that run off the model's cores (cpu.c).
 */
#include <stddef.h>
#include <string.h>

#include <jansson.h>

#include "models/sched/sched.h"
#include "models/sched/task.h"

#define EP_OFF(f) offsetof(struct cpu_energy_params, f)

const struct cfg_param cpu_energy_params_table[] = {
	{ "big_cores", CFG_T_INT, EP_OFF(big_cores), "", "4", 0, 1024,
	  "Exynos 7420: 4x Cortex-A57 (Samsung spec sheet; cpu.cores' source)",
	  "cores of the big cluster (the first ones the model fills)", NULL },
	{ "big_active_mw", CFG_T_DOUBLE, EP_OFF(big_active_mw), "mW", "1372", 0, 1e5,
	  "AnandTech show/9330 p. 5: 4x A57 at 2.1 GHz, 5.49 W load power (power virus) -> "
	  "1372 mW a core; 1030 mW at 1.9 GHz; real loads 80-90 % of it",
	  "power of a busy big core", NULL },
	{ "big_idle_mw", CFG_T_DOUBLE, EP_OFF(big_idle_mw), "mW", "0", 0, 1e5,
	  "AnandTech's load power is over the device's idle power, which holds the idle cores; "
	  "ASSUMED 0-30 for a model that counts it",
	  "power of an idle big core", NULL },
	{ "little_active_mw", CFG_T_DOUBLE, EP_OFF(little_active_mw), "mW", "250", 0, 1e5,
	  "ASSUMED 150-450: the A53 cluster's curve on the same AnandTech page was not read "
	  "(docs/energy.md); a fifth of the A57's",
	  "power of a busy little core", NULL },
	{ "little_idle_mw", CFG_T_DOUBLE, EP_OFF(little_idle_mw), "mW", "0", 0, 1e5,
	  "ASSUMED 0-30, as big_idle_mw: AnandTech's load power is over the device's idle power",
	  "power of an idle little core", NULL },
	CFG_PARAM_END,
};

int cpu_energy_init(struct cpu_model *c, struct cfg_node *node, struct sim_error *err)
{
	if (node && node->kind != CFG_MAP)
		return cfg_errorf(err, node, "`cpu.energy` must be a map of the CPU's energy keys");
	memset(c->busy_by, 0, sizeof(c->busy_by));
	return cfg_apply(cpu_energy_params_table, node, &c->ep, err);
}

static int64_t cluster_cores(const struct cpu_model *c, int k)
{
	int64_t big = c->ep.big_cores < c->p.cores ? c->ep.big_cores : c->p.cores;
	return k == 0 ? big : c->p.cores - big;
}

void cpu_energy_at(const struct cpu_model *c, int64_t now, struct cpu_energy_total *t)
{
	memset(t, 0, sizeof(*t));
	int64_t busy[CPU_BUSY_N][CPU_NCLUSTERS];
	memcpy(busy, c->busy_by, sizeof(busy));
	/* the slices on cores at now, up to now (cpu.c books a slice at its end) */
	for (int i = 0; c->core && i < (int)c->p.cores; i++) {
		const struct stack_task *u = c->core[i];
		if (!u || now <= u->slice_start)
			continue;
		int64_t ran = now - u->slice_start;
		if (ran > u->slice_len)
			ran = u->slice_len;
		busy[u->ioc.fg ? CPU_BUSY_FG : CPU_BUSY_BG][cpu_energy_cluster(c, i)] += ran;
	}
	const double act[CPU_NCLUSTERS] = { c->ep.big_active_mw, c->ep.little_active_mw };
	const double idl[CPU_NCLUSTERS] = { c->ep.big_idle_mw, c->ep.little_idle_mw };
	for (int k = 0; k < CPU_NCLUSTERS; k++) {
		int64_t b = 0;
		for (int w = 0; w < CPU_BUSY_N; w++) {
			double j = act[k] * 1e-3 * (double)busy[w][k] * 1e-9;
			t->by_who_j[w] += j;
			t->cluster_active_j[k] += j;
			b += busy[w][k];
		}
		int64_t idle = cluster_cores(c, k) * now - b;
		if (idle < 0) /* stack_cpu_charge's time beside a running task */
			idle = 0;
		t->cluster_busy_ns[k] = b;
		t->cluster_idle_j[k] = idl[k] * 1e-3 * (double)idle * 1e-9;
		t->active_j += t->cluster_active_j[k];
		t->idle_j += t->cluster_idle_j[k];
	}
}

json_t *cpu_energy_json(const struct cpu_model *c, int64_t now)
{
	static const char *const names[CPU_NCLUSTERS] = { "big", "little" };
	struct cpu_energy_total t;
	cpu_energy_at(c, now, &t);
	json_t *o = json_object();
	json_object_set_new(o, "total_j", json_real(t.active_j + t.idle_j));
	json_object_set_new(o, "active_j", json_real(t.active_j));
	json_object_set_new(o, "idle_j", json_real(t.idle_j));
	json_t *cl = json_array();
	for (int k = 0; k < CPU_NCLUSTERS; k++) {
		json_t *x = json_object();
		json_object_set_new(x, "name", json_string(names[k]));
		json_object_set_new(x, "cores", json_integer((json_int_t)cluster_cores(c, k)));
		json_object_set_new(x, "busy_ns", json_integer((json_int_t)t.cluster_busy_ns[k]));
		json_object_set_new(x, "active_j", json_real(t.cluster_active_j[k]));
		json_object_set_new(x, "idle_j", json_real(t.cluster_idle_j[k]));
		json_array_append_new(cl, x);
	}
	json_object_set_new(o, "clusters", cl);
	json_object_set_new(o, "params", cfg_params_to_json(cpu_energy_params_table, &c->ep));
	return o;
}
