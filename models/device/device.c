/* Device core: the registry of device models, construction from a YAML map,
 * and the bookkeeping every model shares (docs/architecture.md, models/device/device.h).
 *
 * The core owns what is common to all models - dispatch and completion
 * stamps, the inflight count against queue_depth, request and byte
 * counters, and busy time (time with at least one command in flight, the
 * utilisation figure iostat's %util reports) - so that a model only
 * decides *when* a command completes.
 *
 * The host link is a physical bound shared by all models: no command can
 * complete sooner than its bytes take on the link, and the link carries
 * one transfer at a time per direction. The flash model times its link
 * transfers itself; for the others (ideal, table) the core holds a
 * completion back until the bound allows it. Rates are payload rates after
 * line coding, before protocol framing (a model's efficiency factor or a
 * measured curve accounts for that): eMMC 8-bit bus, HS200 SDR 200 MB/s,
 * HS400 DDR 400 MB/s (JESD84-B51); UFS M-PHY HS-Gn rate B per lane, 8b/10b
 * (JESD220, MIPI M-PHY); SATA 1.5/3/6 Gb/s, 8b/10b = 150/300/600 MB/s
 * (SATA 3.x spec); PCIe 2.5/5 GT/s 8b/10b, 8/16/32 GT/s 128b/130b per lane
 * (PCI Express Base Specification 3.0-5.0: 250, 500, 984.6, 1969.2,
 * 3938.5 MB/s per lane); Fast SCSI-2, 8-bit bus at 10 MHz = 10 MB/s
 * (ANSI X3.131-1994), the HP 97560's interface. eMMC, SATA and the SCSI bus
 * are half duplex, UFS (separate TX/RX lanes) and PCIe full duplex.
 */
#include "models/device/device.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/device/ufs_host.h"
#include "sim/assert.h"
#include "sim/sim.h"

/* ------------------------------------------------------------- host link */

struct link_kind {
	const char *name;
	double lane_bps;   /* payload bytes/s per lane */
	int max_lanes;
	bool full_duplex;
};

static const struct link_kind link_kinds[] = {
	{ "none", 0, 1, true },
	{ "emmc_hs200", 200e6, 1, false },
	{ "emmc_hs400", 400e6, 1, false },
	{ "ufs_hs_g2", 2915.2e6 * 8 / 10 / 8, 2, true },
	{ "ufs_hs_g3", 5830.4e6 * 8 / 10 / 8, 2, true },
	{ "ufs_hs_g4", 11660.8e6 * 8 / 10 / 8, 2, true },
	{ "sata1", 1.5e9 * 8 / 10 / 8, 1, false },
	{ "sata2", 3e9 * 8 / 10 / 8, 1, false },
	{ "sata3", 6e9 * 8 / 10 / 8, 1, false },
	{ "pcie_g1", 2.5e9 * 8 / 10 / 8, 16, true },
	{ "pcie_g2", 5e9 * 8 / 10 / 8, 16, true },
	{ "pcie_g3", 8e9 * 128 / 130 / 8, 16, true },
	{ "pcie_g4", 16e9 * 128 / 130 / 8, 16, true },
	{ "pcie_g5", 32e9 * 128 / 130 / 8, 16, true },
	{ "scsi2_fast", 10e6, 1, false },
};
#define NLINK_KINDS (sizeof(link_kinds) / sizeof(link_kinds[0]))

static const char *const link_names[] = {
	"none", "emmc_hs200", "emmc_hs400", "ufs_hs_g2", "ufs_hs_g3", "ufs_hs_g4", "sata1", "sata2",
	"sata3", "pcie_g1", "pcie_g2", "pcie_g3", "pcie_g4", "pcie_g5", "scsi2_fast", NULL,
};

#define LINK_OFF(f) offsetof(struct device_link, f)

static const struct cfg_param device_link_params[] = {
	{ "link", CFG_T_ENUM, LINK_OFF(kind), "", "none", CFG_NO_RANGE,
	  "JESD84-B51 (eMMC), JESD220 + MIPI M-PHY (UFS), SATA 3.x, PCIe Base 3.0-5.0, "
	  "ANSI X3.131-1994 (Fast SCSI-2); "
	  "none = unbounded, the queueing-theory reference",
	  "host interface", link_names },
	{ "lanes", CFG_T_INT, LINK_OFF(lanes), "", "1", 1, 16,
	  "UFS 1-2 lanes per direction, PCIe x1-x16", "lanes of the host link", NULL },
	{ "link_mbps", CFG_T_RATE, LINK_OFF(override_bps), "MB/s", "0", 0, 1e6,
	  "0 = from link and lanes", "host link payload rate override (MB/s)", NULL },
	CFG_PARAM_END,
};

double device_link_rate(const char *kind, int lanes)
{
	for (size_t i = 0; i < NLINK_KINDS; i++)
		if (strcmp(link_kinds[i].name, kind) == 0)
			return link_kinds[i].lane_bps * lanes;
	return 0;
}

static int link_init(struct device *dev, struct cfg_node *node, struct sim_error *err)
{
	int rc = cfg_apply(device_link_params, node, &dev->link, err);
	if (rc)
		return rc;
	const struct link_kind *k = &link_kinds[dev->link.kind];
	if (dev->link.lanes > k->max_lanes)
		return cfg_errorf(err, cfg_get(node, "lanes") ? cfg_get(node, "lanes") : node,
				  "link %s has at most %d lane%s", k->name, k->max_lanes,
				  k->max_lanes > 1 ? "s" : "");
	double rate = dev->link.override_bps > 0 ? dev->link.override_bps
						 : k->lane_bps * (double)dev->link.lanes;
	dev->link_bps = rate > 0 && rate < 1 ? 1 : (uint64_t)(rate + 0.5);
	dev->link_full_duplex = k->full_duplex;
	return 0;
}

/* Time bytes take on a link of bps bytes/s, rounded up. */
static int64_t link_ns(uint64_t bytes, uint64_t bps)
{
	return (int64_t)(((unsigned __int128)bytes * 1000000000u + bps - 1) / bps);
}

/* ---------------------------------------------------------------- models */

extern const struct device_ops flash_device_ops;
extern const struct device_ops table_device_ops;
extern const struct device_ops ideal_device_ops;
extern const struct device_ops hdd_device_ops;
extern const struct device_ops virtio_blk_device_ops; /* models/virt/virtio_blk.c */
extern const struct device_ops stripe_device_ops;     /* models/md/md.c */
extern const struct device_ops linear_device_ops;     /* models/md/md.c */

/* One explicit table (docs/architecture.md §6), in the order `mobisim list devices` prints. */
static const struct device_ops *const device_table[] = {
	&flash_device_ops,
	&table_device_ops,
	&ideal_device_ops,
	&hdd_device_ops,
	&virtio_blk_device_ops,
	&stripe_device_ops,
	&linear_device_ops,
	NULL,
};

const struct device_ops *device_find(const char *name)
{
	if (!name)
		return NULL;
	for (const struct device_ops *const *d = device_table; *d; d++)
		if (strcmp((*d)->name, name) == 0)
			return *d;
	return NULL;
}

const struct device_ops *const *device_registry(void)
{
	return device_table;
}

/* "flash, table, ideal, hdd" for error messages. */
static void device_names(char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (const struct device_ops *const *d = device_table; *d && off < len; d++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", (*d)->name);
}

int device_create(struct sim *sim, struct cfg_node *node, struct device **out,
		  struct sim_error *err)
{
	char names[128];

	*out = NULL;
	device_names(names, sizeof(names));
	if (!node || node->kind != CFG_MAP)
		return cfg_errorf(err, node, "a device must be a map with a `model:` key (one of %s)",
				  names);
	struct cfg_node *mnode = cfg_get(node, "model");
	const char *model = cfg_get_str(node, "model");
	if (!mnode)
		return cfg_errorf(err, node, "missing key `model` (expected one of %s)", names);
	if (!model || mnode->kind != CFG_SCALAR)
		return cfg_errorf(err, mnode, "expected a model name (one of %s)", names);
	const struct device_ops *ops = device_find(model);
	if (!ops)
		return cfg_errorf(err, mnode, "unknown device model '%s' (expected one of %s)", model,
				  names);

	struct device *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory creating device '%s'", model);
	dev->ops = ops;
	dev->sim = sim;
	dev->preset = "inline";
	if (ops->priv_size) {
		dev->priv = calloc(1, ops->priv_size);
		if (!dev->priv) {
			free(dev);
			return sim_errorf(err, SIM_E_NOMEM, "out of memory creating device '%s'", model);
		}
	}
	int rc = ufs_host_create(cfg_get(node, "host"), &dev->host, err);
	if (rc == 0)
		rc = device_energy_init(&dev->energy, cfg_get(node, "energy"), err);
	if (rc == 0 && !ops->models_link)
		rc = link_init(dev, node, err);
	if (rc == 0 && ops->params)
		rc = cfg_apply(ops->params, node, dev->priv, err);
	if (rc == 0 && ops->init)
		rc = ops->init(dev, node, err);
	if (rc != 0) {
		/* init either succeeded fully or left nothing to destroy */
		ufs_host_destroy(dev->host);
		free(dev->priv);
		free(dev);
		return rc;
	}
	*out = dev;
	return 0;
}

void device_destroy(struct device *dev)
{
	if (!dev)
		return;
	if (dev->ops->destroy)
		dev->ops->destroy(dev);
	if (dev->cpl)
		dev->cpl_ops->destroy(dev->cpl);
	ufs_host_destroy(dev->host);
	free(dev->priv);
	free(dev);
}

bool device_can_accept(const struct device *dev, const struct io_request *rq)
{
	if (dev->ops->can_accept)
		return dev->ops->can_accept(dev, rq);
	return dev->queue_depth == 0 || dev->inflight < dev->queue_depth;
}

void device_submit(struct device *dev, struct io_request *rq)
{
	int64_t now = sim_now(dev->sim);

	if (rq->t_dispatch == 0)
		rq->t_dispatch = now;
	if (dev->inflight++ == 0) {
		dev->busy_since = now;
		device_energy_busy(&dev->energy, now);
	}
	SIM_ASSERT(dev->queue_depth == 0 || dev->inflight <= dev->queue_depth ||
		   dev->ops->can_accept);
	if (dev->cpl)
		dev->cpl_ops->submit(dev->cpl, rq);
	dev->ops->submit(dev, rq);
}

static void device_finish(struct device *dev, struct io_request *rq)
{
	int64_t now = sim_now(dev->sim);
	uint64_t bytes = rq_bytes(rq);

	SIM_ASSERT(dev->inflight > 0);
	SIM_ASSERT(now >= rq->t_dispatch);
	rq->t_complete = now;
	dev->requests++;
	dev->bytes += bytes;
	if (req_is_write(rq->flags)) {
		dev->writes++;
		dev->write_bytes += bytes;
	} else {
		dev->reads++;
		dev->read_bytes += bytes;
	}
	if (--dev->inflight == 0) {
		dev->busy_ns += now - dev->busy_since;
		device_energy_idle(&dev->energy, now);
	}
	/* a discard moves no data: its command only */
	device_energy_request(&dev->energy, req_is_write(rq->flags),
			      rq->flags & REQ_DISCARD ? 0 : bytes,
			      (rq->flags & REQ_FG) || (rq->ioc && rq->ioc->fg) ? SIM_CLASS_FG
									       : SIM_CLASS_BG);
	/* every served request, with or without a block layer above (a direct
	 * source), so the per-request rows match the device's counters */
	if (dev->sim->observer && dev->sim->observer->request_done)
		dev->sim->observer->request_done(dev->sim->observer->ctx, rq);
	if (dev->cpl)
		dev->cpl_ops->device_done(dev->cpl, rq);
	else if (dev->on_complete)
		dev->on_complete(dev->upper, rq);
}

static void device_link_done(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	struct io_request *rq = container_of(ev, struct io_request, dev_event);
	device_finish(rq->dev_priv, rq);
}

void device_complete(struct device *dev, struct io_request *rq)
{
	if (dev->link_bps == 0 || dev->ops->models_link) {
		device_finish(dev, rq);
		return;
	}
	int64_t now = sim_now(dev->sim);
	int64_t x = link_ns(rq_bytes(rq), dev->link_bps);
	int dir = dev->link_full_duplex && req_is_write(rq->flags);
	int64_t done = now;
	if (rq->t_dispatch + x > done)
		done = rq->t_dispatch + x;
	if (dev->link_free[dir] + x > done)
		done = dev->link_free[dir] + x;
	dev->link_free[dir] = done;
	if (done == now) {
		device_finish(dev, rq);
		return;
	}
	dev->link_delayed++;
	dev->link_delay_ns += done - now;
	/* the model is done with rq, so its completion timer is free */
	rq->dev_priv = dev;
	sim_event_init(&rq->dev_event, device_link_done);
	sim_at(dev->sim, &rq->dev_event, done);
}

json_t *device_to_json(const struct device *dev)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	int64_t busy = dev->busy_ns;
	/* a run cut short by run.until still counts the open busy period */
	if (dev->inflight && dev->sim)
		busy += sim_now(dev->sim) - dev->busy_since;
	json_object_set_new(o, "model", json_string(dev->ops->name));
	json_object_set_new(o, "preset", json_string(dev->preset ? dev->preset : "inline"));
	json_object_set_new(o, "busy_ns", json_integer((json_int_t)busy));
	json_object_set_new(o, "requests", json_integer((json_int_t)dev->requests));
	json_object_set_new(o, "bytes", json_integer((json_int_t)dev->bytes));
	json_object_set_new(o, "reads", json_integer((json_int_t)dev->reads));
	json_object_set_new(o, "writes", json_integer((json_int_t)dev->writes));
	json_object_set_new(o, "read_bytes", json_integer((json_int_t)dev->read_bytes));
	json_object_set_new(o, "write_bytes", json_integer((json_int_t)dev->write_bytes));
	json_object_set_new(o, "queue_depth", json_integer((json_int_t)dev->queue_depth));
	json_t *l = json_object();
	if (!dev->ops->models_link)
	{
		json_object_set_new(l, "kind", json_string(link_kinds[dev->link.kind].name));
		json_object_set_new(l, "lanes", json_integer((json_int_t)dev->link.lanes));
	}
	json_object_set_new(l, "bytes_per_s", json_integer((json_int_t)dev->link_bps));
	json_object_set_new(l, "full_duplex", json_boolean(dev->link_full_duplex));
	json_object_set_new(l, "delayed", json_integer((json_int_t)dev->link_delayed));
	json_object_set_new(l, "delay_ns", json_integer((json_int_t)dev->link_delay_ns));
	json_object_set_new(o, "link", l);
	if (dev->ops->params) {
		json_t *p = cfg_params_to_json(dev->ops->params, dev->priv);
		if (p)
			json_object_set_new(o, "params", p);
	}
	if (dev->ops->stats_json)
		dev->ops->stats_json(dev, o);
	return o;
}
