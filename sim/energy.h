/* The energy of each region of a run (docs/energy.md): what the device and
 * the CPU drew between a region's begin and end, as the upper stack records
 * it (models/stack/ops.c); serialised into the result's "energy" object. */
#ifndef SIM_ENERGY_H
#define SIM_ENERGY_H

#include <stdint.h>

struct json_t;

struct sim_energy_region {
	char *name;
	char *task;
	int64_t start_ns, duration_ns;
	double device_j, cpu_j;
};

struct sim_energy_log {
	struct sim_energy_region *r;
	uint32_t n, cap;
};

/* Returns 0 or SIM_E_NOMEM. Strings are copied. */
int sim_energy_region(struct sim_energy_log *log, const char *name, const char *task,
		      int64_t start_ns, int64_t duration_ns, double device_j, double cpu_j);
void sim_energy_log_free(struct sim_energy_log *log);
/* [{"name", "task", "start_ns", "duration_ns", "device_j", "cpu_j", "total_j"}] */
struct json_t *sim_energy_regions_json(const struct sim_energy_log *log);

#endif
