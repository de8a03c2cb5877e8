/* Region energy records (sim/energy.h): a growing array, as the regions of
 * sim/metrics.c, one entry per region the workload declares. */
#include "sim/energy.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim/error.h"

int sim_energy_region(struct sim_energy_log *log, const char *name, const char *task,
		      int64_t start_ns, int64_t duration_ns, double device_j, double cpu_j)
{
	if (log->n == log->cap) {
		uint32_t cap = log->cap ? 2 * log->cap : 8;
		struct sim_energy_region *r = realloc(log->r, sizeof(*r) * cap);
		if (!r)
			return SIM_E_NOMEM;
		log->r = r;
		log->cap = cap;
	}
	struct sim_energy_region *r = &log->r[log->n];
	r->name = strdup(name ? name : "");
	r->task = strdup(task ? task : "");
	if (!r->name || !r->task) {
		free(r->name);
		free(r->task);
		return SIM_E_NOMEM;
	}
	r->start_ns = start_ns;
	r->duration_ns = duration_ns;
	r->device_j = device_j;
	r->cpu_j = cpu_j;
	log->n++;
	return 0;
}

void sim_energy_log_free(struct sim_energy_log *log)
{
	for (uint32_t i = 0; i < log->n; i++) {
		free(log->r[i].name);
		free(log->r[i].task);
	}
	free(log->r);
	memset(log, 0, sizeof(*log));
}

json_t *sim_energy_regions_json(const struct sim_energy_log *log)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < log->n; i++) {
		const struct sim_energy_region *r = &log->r[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(r->name));
		json_object_set_new(o, "task", json_string(r->task));
		json_object_set_new(o, "start_ns", json_integer((json_int_t)r->start_ns));
		json_object_set_new(o, "duration_ns", json_integer((json_int_t)r->duration_ns));
		json_object_set_new(o, "device_j", json_real(r->device_j));
		json_object_set_new(o, "cpu_j", json_real(r->cpu_j));
		json_object_set_new(o, "total_j", json_real(r->device_j + r->cpu_j));
		json_array_append_new(a, o);
	}
	return a;
}
