/* `mobisim calibrate TRACE [-o DEVICE.yaml]`: fit a table device
 * (models/device/table.c) from the D2C times of a recorded block trace.
 *
 * Method. Every D (issue to the device) is matched with the next C
 * (completion) of the same device and start sector; D2C = C - D. Samples
 * go to buckets by request size, powers of two of KiB (bucket b holds
 * sizes in (2^(b-1), 2^b] KiB), reads and writes apart. Each bucket is
 * summarised robustly by its median D2C and its median size (log-linear
 * histograms of sim/stats.h: within 0.4 %, and memory independent of
 * trace length). Buckets without samples between the smallest and the
 * largest measured size of either direction are filled from a weighted
 * least-squares fit across the measured buckets of that direction,
 * latency = a + b * size (gsl_fit_wlinear, weights = sample counts), the
 * affine cost model of a flash command (fixed command/array time plus
 * transfer); a negative slope is clamped to 0. A direction with a single
 * measured bucket gets a second point at twice the size with constant
 * bandwidth (the table model's own rule beyond its last point); a
 * direction without samples copies the other one. Measured medians are
 * written unchanged, so the table reproduces them where it was measured.
 * queue_depth is the largest number of commands the trace had in flight at
 * once, counting only commands that completed: a D whose C never comes
 * (lost with a missing CPU file, cut by the end of the recording, requeued
 * with R, issued again, or outstanding longer than the block layer's
 * request timeout, 30 s: Linux block/blk-mq.c blk_mq_init_allocated_queue,
 * drivers/scsi/sd.h SD_TIMEOUT, drivers/nvme/host/core.c nvme_io_timeout)
 * was not in flight on the device. Counted exactly: each D is held until
 * every older D is resolved, so the overlap at its issue time is known. The
 * value is clamped to the range the table device accepts, with a note.
 * (The table device serves that many at once, each with the curve.)
 *
 * Output: a `model: table` YAML, written atomically (temporary file in the
 * same directory, then rename), with a comment header naming the trace,
 * the fit and every bucket's count; stdout without -o.
 * Memory: the D events still waiting for their C (bounded by the trace's
 * outstanding I/O; at most CALIB_PENDING_MAX, the oldest dropped beyond).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_fit.h>

#include "models/block/request.h"
#include "models/device/device.h"
#include "sim/cli/cli.h"
#include "sim/error.h"
#include "sim/list.h"
#include "sim/rbtree.h"
#include "sim/results.h"
#include "sim/stats.h"
#include "traces/trace.h"

#define CALIB_NBUCKETS 21          /* 1 KiB .. 1 GiB */
#define CALIB_PENDING_MAX (1u << 20)

/* Block layer request timeout (see above), ns. */
#define CALIB_TIMEOUT_NS (30LL * 1000000000LL)

struct calib_pend {
	struct rb_node node;
	struct list_head age;       /* by issue time; completed ones wait here */
	uint64_t dev, sector, seq;
	int64_t t_d;
	uint32_t nr_sectors;
	uint32_t cover;             /* completed commands in flight at t_d (with itself) */
	bool write;
	bool done;                  /* completed: out of the tree, waiting in age */
};

struct calib_bucket {
	struct stats_dist lat;      /* ns */
	struct stats_dist size;     /* bytes */
	double med_us, size_kib;
	bool filled;                /* value from the fit, not measured */
	bool extra;                 /* added to reach two points */
};

struct calib {
	struct calib_bucket b[2][CALIB_NBUCKETS];
	struct rb_root pend;
	struct list_head age;
	uint64_t npend, seq;
	uint32_t max_inflight, qd_limit;
	bool qd_clamped;
	bool strict;                /* --strict: refuse a cut record or missing CPU file */
	uint64_t records, pairs, unmatched_c, dropped, zero_size, lost, requeued;
	double fit_a[2], fit_b[2];
	int fit_n[2];
	const char *format;
};

static const char *const dir_names[2] = { "read", "write" };

static int calib_bucket_of(uint64_t bytes)
{
	uint64_t kib = (bytes + 1023) / 1024;
	int b = 0;
	while (b < CALIB_NBUCKETS - 1 && (1ull << b) < kib)
		b++;
	return b;
}

static int calib_cmp(uint64_t dev, uint64_t sector, uint64_t seq, const struct calib_pend *p)
{
	if (dev != p->dev)
		return dev < p->dev ? -1 : 1;
	if (sector != p->sector)
		return sector < p->sector ? -1 : 1;
	if (seq != p->seq)
		return seq < p->seq ? -1 : 1;
	return 0;
}

/* Oldest pending D on (dev, sector), or NULL. */
static struct calib_pend *calib_find(struct calib *c, uint64_t dev, uint64_t sector)
{
	struct rb_node *n = c->pend.node;
	struct calib_pend *best = NULL;
	while (n) {
		struct calib_pend *p = rb_entry(n, struct calib_pend, node);
		int k = calib_cmp(dev, sector, 0, p);
		if (k <= 0) {
			if (p->dev == dev && p->sector == sector)
				best = p;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return best;
}

/* Free p: a completed one has its overlap count final. */
static void calib_free_pend(struct calib *c, struct calib_pend *p)
{
	if (p->done && p->cover > c->max_inflight)
		c->max_inflight = p->cover;
	if (!p->done)
		rb_erase(&p->node, &c->pend);
	list_del_init(&p->age);
	c->npend--;
	free(p);
}

/* Completed Ds whose older Ds are all resolved have their final count. */
static void calib_settle(struct calib *c)
{
	while (!list_empty(&c->age)) {
		struct calib_pend *h = list_first_entry(&c->age, struct calib_pend, age);
		if (!h->done)
			return;
		calib_free_pend(c, h);
	}
}

/* A D that will not complete: it was never in flight for the count. */
static void calib_lost(struct calib *c, struct calib_pend *p)
{
	calib_free_pend(c, p);
	calib_settle(c);
}

/* Ds outstanding past the request timeout at time now are lost. */
static void calib_expire(struct calib *c, int64_t now)
{
	while (!list_empty(&c->age)) {
		struct calib_pend *h = list_first_entry(&c->age, struct calib_pend, age);
		if (h->done || (__int128)now - h->t_d <= CALIB_TIMEOUT_NS)
			return;
		c->lost++;
		calib_lost(c, h);
	}
}

static int calib_issue(struct calib *c, const struct trace_rec *rec, uint64_t dev,
		       struct sim_error *err)
{
	/* Issued again without a C (its R may be in a missing file): the
	 * first issue did not complete; D2C runs from the last D, as btt's. */
	struct calib_pend *old = calib_find(c, dev, rec->sector);
	if (old && old->nr_sectors == rec->nr_sectors) {
		c->requeued++;
		calib_lost(c, old);
	}
	if (c->npend >= CALIB_PENDING_MAX) {
		calib_lost(c, list_first_entry(&c->age, struct calib_pend, age));
		c->dropped++;
	}
	struct calib_pend *p = calloc(1, sizeof(*p));
	if (!p)
		return sim_errorf(err, SIM_E_NOMEM, "calibrate: out of memory");
	p->dev = dev;
	p->sector = rec->sector;
	p->seq = ++c->seq;
	p->t_d = rec->time_ns;
	p->nr_sectors = rec->nr_sectors;
	p->write = rec->dir == TRACE_DIR_WRITE || rec->dir == TRACE_DIR_DISCARD;
	struct rb_node **link = &c->pend.node, *parent = NULL;
	while (*link) {
		parent = *link;
		link = calib_cmp(p->dev, p->sector, p->seq, rb_entry(parent, struct calib_pend, node)) < 0
			       ? &parent->left : &parent->right;
	}
	rb_link_node(&p->node, parent, link);
	rb_insert_color(&p->node, &c->pend);
	list_add_tail(&p->age, &c->age);
	c->npend++;
	return 0;
}

/* R: the request went back to the queue; that issue never completes. */
static void calib_requeue(struct calib *c, const struct trace_rec *rec, uint64_t dev)
{
	struct calib_pend *p = calib_find(c, dev, rec->sector);
	if (p) {
		c->requeued++;
		calib_lost(c, p);
	}
}

static int calib_complete(struct calib *c, const struct trace_rec *rec, uint64_t dev,
			  struct sim_error *err)
{
	struct calib_pend *p = calib_find(c, dev, rec->sector);
	if (!p) {
		c->unmatched_c++;
		return 0;
	}
	__int128 d2c_wide = (__int128)rec->time_ns - p->t_d;
	int64_t d2c = d2c_wide > INT64_MAX ? -1 : (int64_t)d2c_wide; /* beyond 292 years: not a sample */
	uint64_t bytes = (uint64_t)p->nr_sectors << SECTOR_SHIFT;
	struct calib_bucket *b = &c->b[p->write][calib_bucket_of(bytes)];
	if (d2c >= 0 && (stats_dist_add(&b->lat, d2c) || stats_dist_add(&b->size, (int64_t)bytes)))
		return sim_errorf(err, SIM_E_NOMEM, "calibrate: out of memory");
	c->pairs++;
	/* p was in flight from t_d to now, and so over the issue time of
	 * every D still held from p on (all issued before now). */
	rb_erase(&p->node, &c->pend);
	p->done = true;
	for (struct list_head *l = &p->age; l != &c->age; l = l->next)
		list_entry(l, struct calib_pend, age)->cover++;
	calib_settle(c);
	return 0;
}

static int calib_read(struct calib *c, const char *path, struct sim_error *err)
{
	struct trace_reader rd;
	struct trace_opts o = { .strict = c->strict };
	int rc = trace_open_auto(path, &o, &rd, err);
	if (rc)
		return rc;
	c->format = rd.ops->name;
	struct trace_rec rec;
	while ((rc = trace_next(&rd, &rec, err)) == 1) {
		c->records++;
		if (rec.kind != TRACE_REC_BLOCK)
			continue;
		uint64_t dev = ((uint64_t)rec.dev_major << 32) | rec.dev_minor;
		int frc = 0;
		calib_expire(c, rec.time_ns);
		if (rec.action == TRACE_A_REQUEUE) {
			calib_requeue(c, &rec, dev);
		} else if (rec.action == TRACE_A_ISSUE) {
			if (rec.nr_sectors == 0 || rec.dir == TRACE_DIR_NONE) {
				c->zero_size++;
				continue;
			}
			frc = calib_issue(c, &rec, dev, err);
		} else if (rec.action == TRACE_A_COMPLETE) {
			frc = calib_complete(c, &rec, dev, err);
		}
		if (frc) {
			rc = frc;
			break;
		}
	}
	/* The end of the recording: what is still outstanding was not seen to
	 * complete. */
	while (!list_empty(&c->age)) {
		struct calib_pend *h = list_first_entry(&c->age, struct calib_pend, age);
		if (!h->done)
			c->lost++;
		calib_lost(c, h);
	}
	if (rc == 0)
		(void)trace_diag_print(&rd.diag, path, stderr);
	trace_close(&rd);
	return rc < 0 ? rc : 0;
}

/* Medians, then the fit and the filled buckets of one direction. Returns
 * the number of measured buckets. */
static int calib_fit_dir(struct calib *c, int d, int lo, int hi)
{
	double x[CALIB_NBUCKETS], y[CALIB_NBUCKETS], w[CALIB_NBUCKETS];
	int n = 0;
	for (int i = 0; i < CALIB_NBUCKETS; i++) {
		struct calib_bucket *b = &c->b[d][i];
		if (!b->lat.n)
			continue;
		b->med_us = (double)stats_dist_percentile(&b->lat, 50) / 1000.0;
		/* sizes are whole sectors: round the histogram's midpoint */
		double sz = (double)stats_dist_percentile(&b->size, 50);
		b->size_kib = round(sz / SECTOR_SIZE) * SECTOR_SIZE / 1024.0;
		x[n] = b->size_kib;
		y[n] = b->med_us;
		w[n] = (double)b->lat.n;
		n++;
	}
	c->fit_n[d] = n;
	if (n == 0)
		return 0;
	double a = y[0], slope = 0;
	if (n >= 2) {
		double cov00, cov01, cov11, chisq;
		gsl_fit_wlinear(x, 1, w, 1, y, 1, (size_t)n, &a, &slope, &cov00, &cov01, &cov11,
				&chisq);
		if (slope < 0 || !isfinite(slope)) {
			double sw = 0, swy = 0;
			for (int i = 0; i < n; i++) {
				sw += w[i];
				swy += w[i] * y[i];
			}
			slope = 0;
			a = swy / sw;
		}
	}
	c->fit_a[d] = a;
	c->fit_b[d] = slope;
	if (n >= 2) {
		for (int i = lo; i <= hi; i++) {
			struct calib_bucket *b = &c->b[d][i];
			if (b->lat.n)
				continue;
			double kib = (double)(1ull << i);
			double v = a + slope * kib;
			if (v < 1.0)
				v = 1.0;
			b->size_kib = kib;
			b->med_us = v;
			b->filled = true;
		}
	} else {
		/* one bucket: a second point at twice the size, constant bandwidth */
		for (int i = 0; i < CALIB_NBUCKETS - 1; i++) {
			struct calib_bucket *b = &c->b[d][i];
			if (!b->lat.n)
				continue;
			struct calib_bucket *e = &c->b[d][i + 1];
			e->size_kib = b->size_kib * 2;
			e->med_us = b->med_us * 2;
			e->extra = true;
			break;
		}
	}
	return n;
}

static bool calib_has_point(const struct calib_bucket *b)
{
	return b->lat.n || b->filled || b->extra;
}

/* Write the curve measured for direction d under key. */
static void calib_write_curve(FILE *f, const struct calib *c, const char *key, int d)
{
	fprintf(f, "%s: [", key);
	bool first = true;
	for (int i = 0; i < CALIB_NBUCKETS; i++) {
		const struct calib_bucket *b = &c->b[d][i];
		if (!calib_has_point(b))
			continue;
		fprintf(f, "%s[%g, %.3f]", first ? "" : ", ", b->size_kib, b->med_us);
		first = false;
	}
	fprintf(f, "]\n");
}

static int calib_write(FILE *f, const struct calib *c, const char *trace, bool copied[2])
{
	fprintf(f, "# Table device fitted by `mobisim calibrate` from %s (%s format).\n", trace,
		c->format ? c->format : "?");
	fprintf(f, "# D2C (issue to completion) per request-size bucket, powers of two of KiB,\n"
		   "# reads and writes apart; a measured point is the bucket's median size and\n"
		   "# median D2C. Empty buckets inside the measured range come from a weighted\n"
		   "# least-squares fit latency = a + b * size across the measured medians\n"
		   "# (weights = sample counts, GSL gsl_fit_wlinear).\n");
	for (int d = 0; d < 2; d++) {
		if (copied[d])
			fprintf(f, "#   %-5s: no samples; curve copied from %s\n", dir_names[d],
				dir_names[!d]);
		else if (c->fit_n[d] >= 2)
			fprintf(f, "#   %-5s: a = %.3f us, b = %.4f us/KiB over %d buckets\n", dir_names[d],
				c->fit_a[d], c->fit_b[d], c->fit_n[d]);
		else
			fprintf(f, "#   %-5s: one bucket; second point assumes constant bandwidth\n",
				dir_names[d]);
	}
	fprintf(f, "# %llu records, %llu D/C pairs, %llu C without D, %llu D dropped, %llu D without data,\n"
		   "# %llu D never completed, %llu D requeued or issued again;\n"
		   "# at most %u completed command(s) in flight at once%s.\n",
		(unsigned long long)c->records, (unsigned long long)c->pairs,
		(unsigned long long)c->unmatched_c, (unsigned long long)c->dropped,
		(unsigned long long)c->zero_size, (unsigned long long)c->lost,
		(unsigned long long)c->requeued, c->max_inflight,
		c->qd_clamped ? " (queue_depth clamped to the table device's limit)" : "");
	fprintf(f, "#\n#   dir    bucket_kib      count   size_kib    median_us  source\n");
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < CALIB_NBUCKETS; i++) {
			const struct calib_bucket *b = &c->b[d][i];
			if (!calib_has_point(b))
				continue;
			fprintf(f, "#   %-5s  %10llu %10llu %10g %12.3f  %s\n", dir_names[d],
				1ull << i, (unsigned long long)b->lat.n, b->size_kib, b->med_us,
				b->lat.n ? "measured" : b->filled ? "fit" : "assumed");
		}
	fprintf(f, "model: table\n");
	uint32_t qd = c->max_inflight ? c->max_inflight : 1;
	fprintf(f, "queue_depth: %u\n", qd > c->qd_limit ? c->qd_limit : qd);
	for (int d = 0; d < 2; d++)
		calib_write_curve(f, c, dir_names[d], copied[d] ? !d : d);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

static void calib_free(struct calib *c)
{
	while (!list_empty(&c->age))
		calib_free_pend(c, list_first_entry(&c->age, struct calib_pend, age));
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < CALIB_NBUCKETS; i++) {
			stats_dist_free(&c->b[d][i].lat);
			stats_dist_free(&c->b[d][i].size);
		}
}

static void calib_usage(FILE *f)
{
	fprintf(f, "usage: mobisim calibrate TRACE [-o DEVICE.yaml] [--strict]\n"
		   "Fit a table device (model: table) from the D2C times of a recorded block trace\n"
		   "(blktrace, blkparse text, ftrace; format detected from content): median per\n"
		   "power-of-two size bucket, reads and writes apart, empty buckets filled by a\n"
		   "weighted least-squares fit latency = a + b * size. Writes YAML to DEVICE.yaml\n"
		   "(atomically) or stdout.\n");
}

int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "strict", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	bool strict = false;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'o': out = optarg; break;
		case 'S': strict = true; break;
		case 'h': calib_usage(stdout); return 0;
		default: calib_usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		calib_usage(stderr);
		return 2;
	}
	const char *trace = argv[optind];

	struct calib *c = calloc(1, sizeof(*c));
	if (!c) {
		fprintf(stderr, "mobisim: out of memory\n");
		return 1;
	}
	c->pend = RB_ROOT;
	c->strict = strict;
	list_init(&c->age);
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < CALIB_NBUCKETS; i++) {
			stats_dist_init(&c->b[d][i].lat);
			stats_dist_init(&c->b[d][i].size);
		}
	struct sim_error err;
	sim_error_clear(&err);
	int status = 0;
	if (out) {
		/* An unwritable -o is found before the trace is read. */
		char d[4096];
		snprintf(d, sizeof(d), "%s", out);
		if (access(dirname(d), W_OK | X_OK)) {
			fprintf(stderr, "mobisim: %s: cannot write there: %s\n", out, strerror(errno));
			status = 1;
			goto done;
		}
	}
	int rc = calib_read(c, trace, &err);
	if (rc) {
		status = cli_report(&err);
		goto done;
	}
	if (c->pairs == 0) {
		fprintf(stderr, "mobisim: %s: no D/C pairs (issue and completion events) to fit\n",
			trace);
		status = 2;
		goto done;
	}
	/* the range both curves cover: smallest to largest measured bucket */
	int lo = CALIB_NBUCKETS, hi = -1;
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < CALIB_NBUCKETS; i++)
			if (c->b[d][i].lat.n) {
				lo = i < lo ? i : lo;
				hi = i > hi ? i : hi;
			}
	/* The range the table device accepts (its queue_depth parameter). */
	c->qd_limit = UINT32_MAX;
	const struct device_ops *tab = device_find("table");
	for (const struct cfg_param *p = tab ? tab->params : NULL; p && p->key; p++)
		if (!strcmp(p->key, "queue_depth") && p->max >= p->min)
			c->qd_limit = (uint32_t)p->max;
	if (c->max_inflight > c->qd_limit) {
		c->qd_clamped = true;
		fprintf(stderr, "mobisim: warning: %s: %u commands in flight at once; the table device "
				"takes at most %u: queue_depth clamped\n", trace, c->max_inflight, c->qd_limit);
	}
	bool copied[2] = { false, false };
	for (int d = 0; d < 2; d++)
		copied[d] = calib_fit_dir(c, d, lo, hi) == 0;

	struct results_out *o;
	if (results_out_open(out ? out : "-", &o, &err)) {
		status = cli_report(&err);
		goto done;
	}
	if (calib_write(results_out_file(o), c, trace, copied)) {
		fprintf(stderr, "mobisim: %s: write failed: %s\n", out ? out : "stdout", strerror(errno));
		results_out_abort(o);
		status = 1;
	} else if (results_out_commit(o, &err)) {
		status = cli_report(&err);
	}
done:
	calib_free(c);
	free(c);
	return status;
}
