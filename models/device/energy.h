/* Device energy (models/device/energy.c, docs/energy.md): what a storage
 * device draws while it serves requests, while it idles awake and while it
 * sleeps after its power management's idle timeout. An accounting observer
 * of the device core: it is told when the device turns busy and idle and
 * what each served request was, and never changes when anything happens.
 */
#ifndef MODELS_DEVICE_ENERGY_H
#define MODELS_DEVICE_ENERGY_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/config.h"
#include "sim/error.h"
#include "sim/metrics.h"

struct json_t;

struct device_energy_params {
	double read_nj_per_kib;    /* array + controller + link energy per KiB read */
	double write_nj_per_kib;   /* the same per KiB written */
	double cmd_read_uj;        /* per read command, whatever its size */
	double cmd_write_uj;       /* per write command (and flush, discard) */
	double idle_mw;            /* awake with no command in flight */
	double sleep_mw;           /* in the sleep / hibernate state */
	int64_t sleep_after_ns;    /* idle time before the sleep state; 0 = never sleeps */
	double wake_uj;            /* one exit from the sleep state */
};

struct device_energy {
	struct device_energy_params p;
	int64_t idle_since;        /* start of the open idle period (valid while idle) */
	bool idle;                 /* no command in flight */
	/* Closed periods and served requests so far (J; ns). */
	double active_j[SIM_NCLASS];
	double idle_j, sleep_j, wake_j;
	int64_t idle_ns, sleep_ns;
	uint64_t sleeps;           /* idle periods that reached the sleep state */
	uint64_t requests[SIM_NCLASS];
};

extern const struct cfg_param device_energy_params_table[];

/* Parameters from the device map's `energy:` map (NULL: defaults); the
 * device is idle from t = 0. Returns 0 or SIM_E_INPUT naming the node. */
int device_energy_init(struct device_energy *e, struct cfg_node *node, struct sim_error *err);
/* The device took its first command in flight at now: the idle period ends. */
void device_energy_busy(struct device_energy *e, int64_t now);
/* Its last command completed at now: an idle period starts. */
void device_energy_idle(struct device_energy *e, int64_t now);
/* One served request of bytes (a flush or discard counts its command only). */
void device_energy_request(struct device_energy *e, bool write, uint64_t bytes,
			   enum sim_class cls);
/* Energy of one request as device_energy_request books it (J). */
double device_energy_request_j(const struct device_energy_params *p, bool write,
			       uint64_t bytes);
/* Energy of an idle period of ns: awake until the timeout, asleep after it (J). */
double device_energy_idle_period_j(const struct device_energy_params *p, int64_t ns);

/* Energy from t = 0 until now, the open idle period included (J). */
struct device_energy_total {
	double active_j, idle_j, sleep_j, wake_j;
	double by_class_j[SIM_NCLASS];
	int64_t idle_ns, sleep_ns;
	uint64_t sleeps;
};
void device_energy_at(const struct device_energy *e, int64_t now, struct device_energy_total *t);
double device_energy_total_j(const struct device_energy_total *t);

/* The "device" part of the result's "energy" object. */
struct json_t *device_energy_json(const struct device_energy *e, int64_t now);

#endif
