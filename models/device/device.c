/* Device core: the registry of device models, construction from a YAML map,
 * and the bookkeeping every model shares (docs/architecture.md, models/device/device.h).
 *
 * The core owns what is common to all models - dispatch and completion
 * stamps, the inflight count against queue_depth, request and byte
 * counters, and busy time (time with at least one command in flight, the
 * utilisation figure iostat's %util reports) - so that a model only
 * decides *when* a command completes.
 */
#include "models/device/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/completion/completion.h"
#include "sim/assert.h"
#include "sim/sim.h"

extern const struct device_ops flash_device_ops;
extern const struct device_ops table_device_ops;
extern const struct device_ops ideal_device_ops;

/* One explicit table (docs/architecture.md §6), in the order `mobisim list devices` prints. */
static const struct device_ops *const device_table[] = {
	&flash_device_ops,
	&table_device_ops,
	&ideal_device_ops,
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

/* "flash, table, ideal" for error messages. */
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
	int rc = 0;
	if (ops->params)
		rc = cfg_apply(ops->params, node, dev->priv, err);
	if (rc == 0 && ops->init)
		rc = ops->init(dev, node, err);
	if (rc != 0) {
		/* init either succeeded fully or left nothing to destroy */
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
	completion_destroy(dev->cpl);
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
	if (dev->inflight++ == 0)
		dev->busy_since = now;
	SIM_ASSERT(dev->queue_depth == 0 || dev->inflight <= dev->queue_depth ||
		   dev->ops->can_accept);
	if (dev->cpl)
		completion_submit(dev->cpl, rq);
	dev->ops->submit(dev, rq);
}

void device_complete(struct device *dev, struct io_request *rq)
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
	if (--dev->inflight == 0)
		dev->busy_ns += now - dev->busy_since;
	if (dev->cpl)
		completion_device_done(dev->cpl, rq);
	else if (dev->on_complete)
		dev->on_complete(dev->upper, rq);
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
	if (dev->ops->params) {
		json_t *p = cfg_params_to_json(dev->ops->params, dev->priv);
		if (p)
			json_object_set_new(o, "params", p);
	}
	if (dev->ops->stats_json)
		dev->ops->stats_json(dev, o);
	return o;
}
