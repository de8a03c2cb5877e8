/* Storage device interface (docs/architecture.md) and the device registry.
 *
 * The block layer hands a request to device_submit() when device_can_accept()
 * says there is a free command slot; the model schedules its own events and
 * eventually calls device_complete(), which stamps C, updates the counters
 * and calls back into the block layer. A model never calls upward itself.
 * Queue depth: eMMC without CMDQ accepts one command at a time; eMMC 5.1
 * CMDQ and UFS up to 32 tagged commands.
 */
#ifndef MODELS_DEVICE_H
#define MODELS_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/block/request.h"
#include "models/device/energy.h"
#include "sim/config.h"
#include "sim/error.h"

struct sim;
struct device;
struct completion;
struct ufs_host;
struct json_t;

struct device_ops {
	const char *name;
	const char *summary;
	/* Tunables, applied by the core to a zeroed priv of priv_size bytes
	 * before init is called. Their values are echoed in the result. */
	const struct cfg_param *params;
	size_t priv_size;
	/* Derive internal state; node is the device's YAML map (for anything
	 * the table cannot express, e.g. a measured table). Set
	 * dev->queue_depth. Returns 0 or a negative code with err filled. */
	int (*init)(struct device *dev, struct cfg_node *node, struct sim_error *err);
	void (*destroy)(struct device *dev);
	/* NULL: accept while inflight < queue_depth (0 = unlimited). */
	bool (*can_accept)(const struct device *dev, const struct io_request *rq);
	/* Start serving rq; must lead to exactly one device_complete(dev, rq). */
	void (*submit)(struct device *dev, struct io_request *rq);
	/* Optional: service time of one request of bytes at an idle device
	 * (QD1, no queueing), for the latency-vs-size curve and planners. */
	int64_t (*idle_latency_ns)(struct device *dev, bool write, uint64_t bytes);
	/* Optional: latency from the device raising its completion interrupt
	 * (timer: an hrtimer expiring instead) to the handler starting on a
	 * sleeping CPU, added by the completion path to its interrupt and
	 * timer wake-ups; NULL = 0, the bare-metal MSI. A virtual disk's
	 * interrupt injection and vCPU wake-up (models/virt/virtio_blk.c). */
	int64_t (*irq_delivery_ns)(struct device *dev, bool timer);
	/* Optional: add model-specific figures to the result's "device" object. */
	void (*stats_json)(const struct device *dev, struct json_t *obj);
	/* The model times its own host-link transfers (flash) and sets
	 * dev->link_bps in init; otherwise the core applies the shared link
	 * keys (link, lanes, link_mbps) and bounds completions by them. */
	bool models_link;
};

/* The host link: the interface every byte crosses between host and device.
 * Its payload rate is a physical bound no model may beat. */
struct device_link {
	int kind;                /* index into the core's table; 0 = none */
	int64_t lanes;
	double override_bps;     /* link_mbps; 0 = from kind and lanes */
};

/* Entry points of the host completion path, registered with it by
 * completion_attach (models/completion/completion.c), so that the device
 * core calls up into the path it owns without naming that layer. */
struct device_cpl_ops {
	void (*submit)(struct completion *c, struct io_request *rq);      /* host issues rq */
	void (*device_done)(struct completion *c, struct io_request *rq); /* device finished rq */
	void (*destroy)(struct completion *c);
};

struct device {
	const struct device_ops *ops;
	struct sim *sim;
	void *priv;
	const char *preset;      /* preset name, or "inline" */
	uint32_t queue_depth;    /* max commands in flight; 0 = unlimited */
	uint32_t inflight;
	/* Addressable bytes when the model has a geometry (hdd), else 0: a
	 * measurement's random offsets then span the whole device. */
	uint64_t capacity_bytes;

	/* Completion path upward (set by the block layer or a direct source). */
	void (*on_complete)(void *upper, struct io_request *rq);
	void *upper;
	/* Host completion path between the model and on_complete
	 * (models/completion/completion.h); NULL = call on_complete at once. Owned. */
	struct completion *cpl;
	const struct device_cpl_ops *cpl_ops; /* its entry points, set with cpl */
	/* UFS host controller mode (models/device/ufs_host.h) from the map's
	 * `host:` key; NULL without one. Owned. */
	struct ufs_host *host;

	/* Host link (models/device/device.c): payload bytes/s (0 = unbounded,
	 * the `ideal` queueing reference), and for the core's bound the end
	 * of the last transfer in each direction (one when half duplex). */
	struct device_link link;
	uint64_t link_bps;
	bool link_full_duplex;
	int64_t link_free[2];
	uint64_t link_delayed;   /* completions the link held back */
	int64_t link_delay_ns;

	/* Counters reported in the result's "device" object. */
	uint64_t requests, bytes, reads, writes, read_bytes, write_bytes;
	int64_t busy_ns;         /* time with at least one command in flight */
	int64_t busy_since;

	/* What the device drew (models/device/energy.h), from the map's
	 * `energy:` keys; told of busy/idle edges and served requests. */
	struct device_energy energy;
};

/* Registry (models/device/device.c): one explicit table, looked up by name. */
const struct device_ops *device_find(const char *name);
/* NULL-terminated list for `mobisim list`. */
const struct device_ops *const *device_registry(void);

/* Build a device from a map with a `model:` key (flash, table, ideal, hdd) plus
 * the model's tunables. Returns 0 or SIM_E_INPUT naming the node. */
int device_create(struct sim *sim, struct cfg_node *node, struct device **out,
		  struct sim_error *err);
void device_destroy(struct device *dev);

bool device_can_accept(const struct device *dev, const struct io_request *rq);
/* Stamps D if not already set, counts, and calls ops->submit. */
void device_submit(struct device *dev, struct io_request *rq);
/* Called by models when rq is done: stamps C, counts, calls on_complete.
 * For a model without its own link the core first holds the completion
 * until its bytes could have crossed the link: not before dispatch +
 * bytes/rate, nor before the previous transfer in that direction ended
 * plus bytes/rate. */
void device_complete(struct device *dev, struct io_request *rq);

/* Link payload rate of a named link kind and lane count, bytes/s; 0 for an
 * unknown name. For tests and tools. */
double device_link_rate(const char *kind, int lanes);

/* The "device" object of the result: busy_ns, requests, bytes, params, model figures. */
struct json_t *device_to_json(const struct device *dev);

#endif
