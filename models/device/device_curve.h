/* Latency-versus-size measurement of a device model by simulation, the way
 * fio or AndroBench measure a phone: a fresh device, a closed loop keeping
 * qd commands outstanding, n commands of one size and direction, and the
 * mean latency and throughput after a warm-up quarter. Used by
 * `mobisim device curve` and by the device tests.
 */
#ifndef MODELS_DEVICE_CURVE_H
#define MODELS_DEVICE_CURVE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/config.h"
#include "sim/error.h"

enum device_curve_pattern {
	DEVICE_CURVE_RANDOM = 0, /* size-aligned offsets drawn uniformly in span_bytes */
	DEVICE_CURVE_SEQ = 1,    /* each command continues the previous one */
};

struct device_curve_opts {
	bool write;
	uint64_t bytes;          /* per command */
	uint32_t qd;             /* commands kept outstanding (capped by the device) */
	uint32_t nreq;           /* commands issued; 0 = auto (>= 256 and >= 256 MiB, at most 65536) */
	enum device_curve_pattern pattern;
	uint64_t span_bytes;     /* 0 = the device's capacity if it has one, else 4 GiB */
	uint64_t seed;
	uint32_t flags;          /* extra enum req_flag bits (REQ_FUA ...) */
};

struct device_curve_result {
	double lat_us;           /* mean latency (dispatch to completion) */
	double mbps;             /* MB/s (10^6 bytes/s) over the measured window */
	uint32_t qd_used;        /* min(qd, device queue depth) */
	uint64_t measured;       /* commands in the window */
	double min_lat_us;       /* fastest command of the run, dispatch to completion */
	uint64_t link_bps;       /* the device's host-link payload rate (0 = unbounded) */
};

/* Build a fresh device from node (a map with `model:`) in a bare simulator
 * and measure one point. node's keys are marked used as device_create
 * does. Returns 0 or the device's construction error. */
int device_curve_measure(struct cfg_node *node, const struct device_curve_opts *opt,
			 struct device_curve_result *out, struct sim_error *err);

#endif
