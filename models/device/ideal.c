/* Ideal device: k identical servers in front of one FIFO, service times
 * drawn from a configured distribution. It has no physics; it exists to
 * validate the engine and the statistics against queueing theory (M/M/1,
 * M/D/1 by Pollaczek-Khinchine, M/M/k by Erlang C) and to stand in for a
 * real device in scheduler tests where only ordering matters.
 *
 * Commands beyond the free servers wait inside the device in arrival
 * order; queue_depth bounds how many the host may have outstanding
 * (0 = unlimited, the textbook queue).
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <jansson.h>

#include "models/device/device.h"
#include "sim/sim.h"

enum ideal_service {
	IDEAL_FIXED,
	IDEAL_EXPONENTIAL,
	IDEAL_GAMMA,
	IDEAL_LOGNORMAL,
	IDEAL_UNIFORM,
};

static const char *const ideal_service_names[] = {
	"fixed", "exponential", "gamma", "lognormal", "uniform", NULL,
};

struct ideal_dev {
	/* tunables */
	int service;
	int64_t mean_ns;
	int64_t write_mean_ns; /* 0 = same as reads */
	double cv;             /* coefficient of variation for gamma, lognormal, uniform */
	int64_t servers;
	int64_t queue_depth;
	int64_t per_kib_ns;    /* size-dependent part, added to every draw */

	/* state */
	gsl_rng *rng;
	int64_t busy_servers;
	struct list_head waiting;
	uint64_t nr_waiting, max_waiting;
};

#define IDEAL_OFF(f) offsetof(struct ideal_dev, f)

static const struct cfg_param ideal_params[] = {
	{ "service", CFG_T_ENUM, IDEAL_OFF(service), "", "exponential", CFG_NO_RANGE,
	  "queueing-theory reference model", "service-time distribution", ideal_service_names },
	{ "mean_us", CFG_T_TIME, IDEAL_OFF(mean_ns), "us", "100", 0.001, 1e9,
	  "choice: a 100 us service is of the order of a flash page read", "mean read service time", NULL },
	{ "write_mean_us", CFG_T_TIME, IDEAL_OFF(write_mean_ns), "us", "0", 0, 1e9,
	  "0 = same as reads", "mean write service time", NULL },
	{ "cv", CFG_T_DOUBLE, IDEAL_OFF(cv), "", "0.5", 0.0, 10.0,
	  "choice", "coefficient of variation for gamma, lognormal and uniform", NULL },
	{ "servers", CFG_T_INT, IDEAL_OFF(servers), "", "1", 1, 4096,
	  "M/M/k: k", "identical servers working in parallel", NULL },
	{ "queue_depth", CFG_T_INT, IDEAL_OFF(queue_depth), "", "0", 0, 65536,
	  "0 = unbounded, as in the textbook queue", "commands the host may have outstanding", NULL },
	{ "per_kib_ns", CFG_T_TIME, IDEAL_OFF(per_kib_ns), "ns", "0", 0, 1e9,
	  "0 = size-independent", "service time added per KiB of the request", NULL },
	CFG_PARAM_END,
};

static int ideal_init(struct device *dev, struct cfg_node *node, struct sim_error *err)
{
	struct ideal_dev *d = dev->priv;
	if (d->service == IDEAL_UNIFORM && d->cv > 1.0 / sqrt(3.0))
		return cfg_errorf(err, cfg_get(node, "cv"),
				  "uniform service needs cv <= 0.577 (service times must stay >= 0)");
	d->rng = sim_rng(dev->sim, "device.ideal");
	list_init(&d->waiting);
	dev->queue_depth = (uint32_t)d->queue_depth;
	return 0;
}

static int64_t ideal_draw(struct ideal_dev *d, const struct io_request *rq)
{
	double mean = (double)((req_is_write(rq->flags) && d->write_mean_ns) ? d->write_mean_ns
									    : d->mean_ns);
	double t;
	switch (d->service) {
	case IDEAL_FIXED:
		t = mean;
		break;
	case IDEAL_EXPONENTIAL:
		t = gsl_ran_exponential(d->rng, mean);
		break;
	case IDEAL_GAMMA: {
		/* cv 0 is the limit, a fixed service: shape 1/cv^2 would be
		 * infinite, and gsl_ran_gamma gives 0 there */
		if (d->cv == 0) {
			t = mean;
			break;
		}
		double k = 1.0 / (d->cv * d->cv);
		t = gsl_ran_gamma(d->rng, k, mean / k);
		break;
	}
	case IDEAL_LOGNORMAL: {
		double s2 = log1p(d->cv * d->cv);
		t = gsl_ran_lognormal(d->rng, log(mean) - s2 / 2, sqrt(s2));
		break;
	}
	default: { /* uniform with the given mean and cv */
		double half = mean * d->cv * sqrt(3.0);
		t = gsl_ran_flat(d->rng, mean - half, mean + half);
		break;
	}
	}
	t += (double)d->per_kib_ns * (double)rq_bytes(rq) / 1024.0;
	int64_t ns = llround(t);
	return ns > 0 ? ns : 1;
}

static void ideal_start(struct device *dev, struct io_request *rq)
{
	struct ideal_dev *d = dev->priv;
	d->busy_servers++;
	sim_after(dev->sim, &rq->dev_event, ideal_draw(d, rq));
}

static void ideal_done(struct sim *sim, struct sim_event *ev)
{
	struct io_request *rq = container_of(ev, struct io_request, dev_event);
	struct device *dev = rq->dev_priv;
	struct ideal_dev *d = dev->priv;
	d->busy_servers--;
	if (!list_empty(&d->waiting)) {
		struct io_request *next = list_first_entry(&d->waiting, struct io_request, dev_node);
		list_del_init(&next->dev_node);
		d->nr_waiting--;
		ideal_start(dev, next);
	}
	device_complete(dev, rq);
}

static void ideal_submit(struct device *dev, struct io_request *rq)
{
	struct ideal_dev *d = dev->priv;
	rq->dev_priv = dev;
	sim_event_init(&rq->dev_event, ideal_done);
	if (d->busy_servers < d->servers) {
		ideal_start(dev, rq);
		return;
	}
	list_add_tail(&rq->dev_node, &d->waiting);
	if (++d->nr_waiting > d->max_waiting)
		d->max_waiting = d->nr_waiting;
}

static void ideal_stats_json(const struct device *dev, json_t *obj)
{
	const struct ideal_dev *d = dev->priv;
	json_object_set_new(obj, "max_waiting", json_integer((json_int_t)d->max_waiting));
}

static int64_t ideal_idle_latency(struct device *dev, bool write, uint64_t bytes)
{
	struct ideal_dev *d = dev->priv;
	int64_t mean = (write && d->write_mean_ns) ? d->write_mean_ns : d->mean_ns;
	return mean + (int64_t)((double)d->per_kib_ns * (double)bytes / 1024.0);
}

const struct device_ops ideal_device_ops = {
	.name = "ideal",
	.summary = "k servers, fixed/exponential/gamma/lognormal/uniform service (validation model)",
	.params = ideal_params,
	.priv_size = sizeof(struct ideal_dev),
	.init = ideal_init,
	.submit = ideal_submit,
	.idle_latency_ns = ideal_idle_latency,
	.stats_json = ideal_stats_json,
};
