/* Table device: service time from a measured latency-versus-size curve, the
 * form in which the I/O-padding paper (Joo et al., IEEE ESL 2020) and
 * `mobisim calibrate` describe a device.
 *
 *   model: table
 *   read:  [[4, 210], [16, 260], [128, 700], [512, 2300]]   # [size_kib, latency_us]
 *   write: [[4, 350], ...]
 *   qd:                         # optional: curves measured at other depths
 *     8: {read: [...], write: [...]}
 *
 * Between points the curve is interpolated with GSL's Steffen spline, which
 * is monotone between data points (Steffen, A&A 239, 1990), so a monotone
 * measurement gives a monotone model (linear when there are only two
 * points). Beyond the last point latency grows at the marginal bandwidth
 * of the last segment; below the first it shrinks at the first segment's
 * marginal bandwidth, but never below constant bandwidth (latency ~ size).
 * The device has queue_depth servers; a command runs at once with the
 * curve of the deepest measured depth not above the number of commands in
 * flight, so the throughput at depth q is q / latency(q), as measured.
 * Left out: any dependence on LBA, mixing of reads and writes, and time
 * (no buffer, no garbage collection).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_interp.h>
#include <jansson.h>

#include "models/device/device.h"
#include "sim/sim.h"

struct table_curve {
	double *x, *y;      /* KiB, us */
	size_t n;
	gsl_interp *interp;
	gsl_interp_accel *acc;
};

struct table_set {
	int64_t qd;
	struct table_curve rd, wr;
};

struct table_dev {
	/* tunables */
	int64_t queue_depth;

	/* state */
	struct table_set *sets; /* sorted by qd, sets[0].qd == 1 */
	size_t nsets;
	uint64_t served_at[8];  /* commands served per set (first 8), for the result */
};

static const struct cfg_param table_params[] = {
	{ "queue_depth", CFG_T_INT, offsetof(struct table_dev, queue_depth), "", "0", 0, 256,
	  "0 = the deepest qd measured (1 without a qd map)", "commands served at once", NULL },
	CFG_PARAM_END,
};

/* ------------------------------------------------------------- parsing */

static int table_number(const struct cfg_node *n, double *out, const char *what,
			struct sim_error *err)
{
	if (!n || n->kind != CFG_SCALAR)
		return cfg_errorf(err, n, "expected a number (%s)", what);
	struct sim_error e2;
	if (cfg_parse_double(n->value, out, &e2) != 0 || !isfinite(*out))
		return cfg_errorf(err, n, "expected a number (%s), got '%s'", what, n->value);
	return 0;
}

static void curve_free(struct table_curve *c)
{
	if (c->interp)
		gsl_interp_free(c->interp);
	if (c->acc)
		gsl_interp_accel_free(c->acc);
	free(c->x);
	free(c->y);
	memset(c, 0, sizeof(*c));
}

/* Parse [[size_kib, latency_us], ...] at node into c. */
static int curve_parse(struct cfg_node *node, struct table_curve *c, struct sim_error *err)
{
	memset(c, 0, sizeof(*c));
	if (!node || node->kind != CFG_SEQ)
		return cfg_errorf(err, node,
				  "expected a list of [size_kib, latency_us] pairs, sizes increasing");
	cfg_mark_used(node, true);
	size_t n = 0;
	for (struct cfg_node *it = node->child; it; it = it->next)
		n++;
	if (n < 2)
		return cfg_errorf(err, node, "needs at least 2 points [size_kib, latency_us], got %zu",
				  n);
	c->x = malloc(n * sizeof(double));
	c->y = malloc(n * sizeof(double));
	if (!c->x || !c->y) {
		curve_free(c);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory reading a latency table");
	}
	size_t i = 0;
	int rc = 0;
	for (struct cfg_node *it = node->child; it && !rc; it = it->next, i++) {
		if (it->kind != CFG_SEQ || !it->child || !it->child->next || it->child->next->next) {
			rc = cfg_errorf(err, it, "expected a pair [size_kib, latency_us]");
			break;
		}
		rc = table_number(it->child, &c->x[i], "size_kib", err);
		if (!rc)
			rc = table_number(it->child->next, &c->y[i], "latency_us", err);
		if (rc)
			break;
		if (c->x[i] <= 0)
			rc = cfg_errorf(err, it->child, "size must be positive, got %g KiB", c->x[i]);
		else if (i > 0 && c->x[i] <= c->x[i - 1])
			rc = cfg_errorf(err, it->child,
					"sizes must increase strictly: %g KiB after %g KiB", c->x[i],
					c->x[i - 1]);
		else if (c->y[i] < 0)
			rc = cfg_errorf(err, it->child->next, "latency must not be negative, got %g us",
					c->y[i]);
	}
	if (rc) {
		curve_free(c);
		return rc;
	}
	c->n = n;
	c->interp = gsl_interp_alloc(n >= 3 ? gsl_interp_steffen : gsl_interp_linear, n);
	c->acc = gsl_interp_accel_alloc();
	if (!c->interp || !c->acc || gsl_interp_init(c->interp, c->x, c->y, n) != 0) {
		curve_free(c);
		return sim_errorf(err, SIM_E_NOMEM, "cannot build the interpolation of a latency table");
	}
	return 0;
}

/* Latency in us of kib KiB: interpolated inside, bandwidth-linear outside. */
static double curve_eval(const struct table_curve *c, double kib)
{
	size_t n = c->n;
	if (kib >= c->x[n - 1]) {
		double dx = c->x[n - 1] - c->x[n - 2], dy = c->y[n - 1] - c->y[n - 2];
		/* marginal us per KiB; a flat or falling tail keeps the average rate */
		double slope = dy > 0 ? dy / dx : c->y[n - 1] / c->x[n - 1];
		return c->y[n - 1] + (kib - c->x[n - 1]) * slope;
	}
	if (kib <= c->x[0]) {
		double dx = c->x[1] - c->x[0], dy = c->y[1] - c->y[0];
		double slope = dy > 0 ? dy / dx : 0;
		double lin = c->y[0] - (c->x[0] - kib) * slope;
		double floor_bw = c->y[0] * kib / c->x[0];
		return lin > floor_bw ? lin : floor_bw;
	}
	return gsl_interp_eval(c->interp, c->x, c->y, kib, c->acc);
}

static int set_parse(struct cfg_node *map, struct table_set *s, struct sim_error *err)
{
	struct cfg_node *r = cfg_get(map, "read"), *w = cfg_get(map, "write");
	if (!r)
		return cfg_errorf(err, map, "missing key `read` (a list of [size_kib, latency_us])");
	if (!w)
		return cfg_errorf(err, map, "missing key `write` (a list of [size_kib, latency_us])");
	int rc = curve_parse(r, &s->rd, err);
	if (!rc) {
		rc = curve_parse(w, &s->wr, err);
		if (rc)
			curve_free(&s->rd);
	}
	return rc;
}

static int set_cmp(const void *a, const void *b)
{
	const struct table_set *x = a, *y = b;
	return (x->qd > y->qd) - (x->qd < y->qd);
}

/* ---------------------------------------------------------------- hooks */

static void table_destroy(struct device *dev)
{
	struct table_dev *t = dev->priv;
	for (size_t i = 0; i < t->nsets; i++) {
		curve_free(&t->sets[i].rd);
		curve_free(&t->sets[i].wr);
	}
	free(t->sets);
	t->sets = NULL;
	t->nsets = 0;
}

static int table_init(struct device *dev, struct cfg_node *node, struct sim_error *err)
{
	struct table_dev *t = dev->priv;
	struct cfg_node *qd = cfg_get(node, "qd");
	bool top = cfg_get(node, "read") || cfg_get(node, "write");
	size_t cap = 1;
	int rc = 0;

	if (qd) {
		if (qd->kind != CFG_MAP)
			return cfg_errorf(err, qd, "expected a map {depth: {read: ..., write: ...}}");
		cfg_mark_used(qd, false);
		for (struct cfg_node *it = qd->child; it; it = it->next)
			cap++;
	}
	t->sets = calloc(cap, sizeof(*t->sets));
	if (!t->sets)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory reading a latency table");
	if (top) {
		t->sets[0].qd = 1;
		rc = set_parse(node, &t->sets[0], err);
		if (!rc)
			t->nsets = 1;
	}
	for (struct cfg_node *it = qd ? qd->child : NULL; it && !rc; it = it->next) {
		int64_t depth;
		struct sim_error e2;
		if (cfg_parse_int(it->key, &depth, &e2) != 0 || depth < 1 || depth > 256) {
			rc = cfg_errorf(err, it, "queue depth key must be an integer 1..256, got '%s'",
					it->key);
			break;
		}
		for (size_t i = 0; i < t->nsets; i++)
			if (t->sets[i].qd == depth)
				rc = cfg_errorf(err, it, "queue depth %lld given twice%s",
						(long long)depth,
						depth == 1 && top ? " (top-level read/write is qd 1)" : "");
		if (rc)
			break;
		if (it->kind != CFG_MAP) {
			rc = cfg_errorf(err, it, "expected a map {read: ..., write: ...}");
			break;
		}
		cfg_mark_used(it, false);
		t->sets[t->nsets].qd = depth;
		rc = set_parse(it, &t->sets[t->nsets], err);
		if (!rc)
			t->nsets++;
	}
	if (!rc && t->nsets == 0)
		rc = cfg_errorf(err, node, "a table device needs `read` and `write` curves (or `qd`)");
	if (!rc) {
		qsort(t->sets, t->nsets, sizeof(*t->sets), set_cmp);
		if (t->sets[0].qd != 1)
			rc = cfg_errorf(err, qd ? qd : node,
					"the curves must include queue depth 1 (lowest given: %lld)",
					(long long)t->sets[0].qd);
	}
	if (rc) {
		table_destroy(dev);
		return rc;
	}
	dev->queue_depth = t->queue_depth > 0 ? (uint32_t)t->queue_depth
					      : (uint32_t)t->sets[t->nsets - 1].qd;
	return 0;
}

static const struct table_set *table_pick(const struct table_dev *t, uint32_t inflight,
					  size_t *idx)
{
	size_t k = 0;
	while (k + 1 < t->nsets && t->sets[k + 1].qd <= (int64_t)inflight)
		k++;
	*idx = k;
	return &t->sets[k];
}

static int64_t table_latency(const struct table_set *s, bool write, uint64_t bytes)
{
	double us = curve_eval(write ? &s->wr : &s->rd, (double)bytes / 1024.0);
	double ns = ceil(us * 1000.0);
	return ns < 0 ? 0 : (int64_t)ns;
}

static void table_done(struct sim *sim, struct sim_event *ev)
{
	struct io_request *rq = container_of(ev, struct io_request, dev_event);
	device_complete(rq->dev_priv, rq);
}

static void table_submit(struct device *dev, struct io_request *rq)
{
	struct table_dev *t = dev->priv;
	size_t idx;
	/* dev->inflight already counts rq */
	const struct table_set *s = table_pick(t, dev->inflight, &idx);
	if (idx < 8)
		t->served_at[idx]++;
	rq->dev_priv = dev;
	sim_event_init(&rq->dev_event, table_done);
	sim_after(dev->sim, &rq->dev_event, table_latency(s, req_is_write(rq->flags), rq_bytes(rq)));
}

static int64_t table_idle_latency(struct device *dev, bool write, uint64_t bytes)
{
	const struct table_dev *t = dev->priv;
	return table_latency(&t->sets[0], write, bytes);
}

static void table_stats_json(const struct device *dev, json_t *obj)
{
	const struct table_dev *t = dev->priv;
	json_t *a = json_array();
	if (!a)
		return;
	for (size_t i = 0; i < t->nsets; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "qd", json_integer((json_int_t)t->sets[i].qd));
		json_object_set_new(e, "read_points", json_integer((json_int_t)t->sets[i].rd.n));
		json_object_set_new(e, "write_points", json_integer((json_int_t)t->sets[i].wr.n));
		if (i < 8)
			json_object_set_new(e, "served", json_integer((json_int_t)t->served_at[i]));
		json_array_append_new(a, e);
	}
	json_object_set_new(obj, "curves", a);
}

const struct device_ops table_device_ops = {
	.name = "table",
	.summary = "measured latency vs size (per queue depth), monotone Steffen interpolation",
	.params = table_params,
	.priv_size = sizeof(struct table_dev),
	.init = table_init,
	.destroy = table_destroy,
	.submit = table_submit,
	.idle_latency_ns = table_idle_latency,
	.stats_json = table_stats_json,
};
