/* Disk drive model (models/device/hdd.c, Ruemmler & Wilkes 1994): the seek
 * curve at chosen distances and monotone, a random read's mean service
 * against seek + half a revolution + transfer derived from the parameters,
 * sequential 4 KiB reads streaming at the media rate from the read-ahead
 * buffer, SPTF against FCFS at depth, outer zone against inner, and write
 * caching and flush. Each expected figure is computed here from the
 * published parameters, not read back from the model. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "models/device/device.h"
#include "models/device/hdd.h"
#include "sim/sim.h"

struct hx {
	struct sim *sim;
	struct cfg_doc *doc;
	struct device *dev;
	gsl_rng *rng;
	struct io_request rqs[64];
	struct io_request *free_rq[64];
	uint32_t nfree, qd;
	uint32_t n, issued, done, warm;
	bool seq, write;
	uint32_t sectors;
	uint64_t next, span_units, base;
	double lat_sum, lat_max;
	uint64_t measured;
	int64_t t0, t1;
};

static void hx_issue(struct hx *h);

static void hx_done(void *upper, struct io_request *rq)
{
	struct hx *h = upper;
	h->done++;
	double lat = (double)(rq->t_complete - rq->t_dispatch);
	if (h->done == h->warm)
		h->t0 = rq->t_complete;
	if (h->done > h->warm) {
		h->lat_sum += lat;
		if (lat > h->lat_max)
			h->lat_max = lat;
		h->measured++;
		h->t1 = rq->t_complete;
	}
	h->free_rq[h->nfree++] = rq;
	hx_issue(h);
}

static void hx_issue(struct hx *h)
{
	while (h->issued < h->n && h->nfree && device_can_accept(h->dev, NULL)) {
		struct io_request *rq = h->free_rq[--h->nfree];
		memset(rq, 0, sizeof(*rq));
		list_init(&rq->queuelist);
		list_init(&rq->hash);
		list_init(&rq->dev_node);
		rq->id = ++h->issued;
		if (h->seq) {
			rq->sector = h->base + h->next;
			h->next += h->sectors;
		} else {
			rq->sector = (uint64_t)gsl_rng_uniform_int(h->rng, h->span_units) * h->sectors;
		}
		rq->nr_sectors = h->sectors;
		rq->nr_segments = 1;
		rq->flags = h->write ? REQ_WRITE : 0;
		device_submit(h->dev, rq);
	}
}

static void hx_build(struct hx *h, const char *yaml)
{
	struct sim_error err = { 0 };
	memset(h, 0, sizeof(*h));
	h->sim = sim_new_bare(3);
	assert_non_null(h->sim);
	if (cfg_load_string(yaml, strlen(yaml), "hdd.yaml", &h->doc, &err) ||
	    device_create(h->sim, cfg_root(h->doc), &h->dev, &err) ||
	    cfg_check_unused(cfg_root(h->doc), &err))
		fail_msg("%s", err.msg);
	assert_string_equal(h->dev->ops->name, "hdd");
	h->dev->on_complete = hx_done;
	h->dev->upper = h;
	h->rng = sim_rng(h->sim, "test.hdd");
}

static void hx_free(struct hx *h)
{
	device_destroy(h->dev);
	cfg_free(h->doc);
	sim_destroy(h->sim);
}

/* Run n commands of kib KiB at depth qd; mean latency (ns) after a warm-up tenth. */
static void hx_run(struct hx *h, bool seq, bool write, uint32_t kib, uint32_t qd, uint32_t n,
		   uint64_t base)
{
	h->seq = seq;
	h->write = write;
	h->sectors = kib * 2;
	h->qd = qd;
	h->n = n;
	h->warm = n / 10;
	h->base = base;
	h->span_units = (h->dev->capacity_bytes >> 9) / h->sectors;
	for (uint32_t i = 0; i < qd && i < 64; i++)
		h->free_rq[h->nfree++] = &h->rqs[i];
	hx_issue(h);
	sim_engine_run(&h->sim->engine, SIM_TIME_MAX);
	assert_int_equal(h->done, n);
}

static double hx_mbps(const struct hx *h)
{
	return (double)h->measured * h->sectors * 512.0 / ((double)(h->t1 - h->t0) / 1e9) / 1e6;
}

static double hx_iops(const struct hx *h)
{
	return (double)h->measured / ((double)(h->t1 - h->t0) / 1e9);
}

static json_int_t hx_stat(const struct hx *h, const char *key)
{
	json_t *o = device_to_json(h->dev);
	json_int_t v = json_integer_value(json_object_get(json_object_get(o, "hdd"), key));
	json_decref(o);
	return v;
}

static const char *preset(const char *name)
{
	static char buf[8192];
	char path[4096];
	const char *src = getenv("MOBISIM_SRC");
	snprintf(path, sizeof(path), "%s/configs/devices/%s.yaml", src ? src : ".", name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* The HP 97560 curve of R&W 1994, written out here. */
static double rw_seek_ms(double d)
{
	if (d == 0)
		return 0;
	return d < 383 ? 3.24 + 0.400 * sqrt(d) : 8.00 + 0.008 * d;
}

static void test_seek_curve_matches_and_is_monotone(void **state)
{
	(void)state;
	struct hx h;
	hx_build(&h, preset("hdd-hp97560"));
	const uint64_t at[] = { 1, 2, 10, 100, 382, 383, 1000, 1961 };
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		assert_float_equal(hdd_seek_ns(h.dev, at[i], false) / 1e6, rw_seek_ms((double)at[i]), 1e-9);
	assert_float_equal(hdd_seek_ns(h.dev, 0, false), 0, 0);
	double prev = 0;
	for (uint64_t d = 0; d < hdd_cylinders(h.dev); d++) {
		double s = hdd_seek_ns(h.dev, d, false);
		if (s < prev)
			fail_msg("seek time falls at %llu cylinders", (unsigned long long)d);
		prev = s;
	}
	hx_free(&h);

	/* the fitted desktop curve: monotone, through the datasheet's three figures */
	hx_build(&h, preset("hdd-barracuda-7200-12"));
	uint64_t n = hdd_cylinders(h.dev);
	assert_float_equal(hdd_seek_ns(h.dev, 1, false) / 1e6, 0.8, 1e-6);
	assert_float_equal(hdd_seek_ns(h.dev, n - 1, false) / 1e6, 16.0, 1e-6);
	double sum = 0, w = 0;
	prev = 0;
	for (uint64_t d = 1; d < n; d++) {
		double s = hdd_seek_ns(h.dev, d, false);
		if (s < prev)
			fail_msg("fitted seek time falls at %llu cylinders", (unsigned long long)d);
		prev = s;
		sum += (double)(n - d) * s;
		w += (double)(n - d);
	}
	assert_float_equal(sum / w / 1e6, 8.5, 1e-6);
	/* a write settles 1 ms longer after a seek */
	assert_float_equal(hdd_seek_ns(h.dev, 1000, true) - hdd_seek_ns(h.dev, 1000, false), 1e6, 1e-3);
	hx_free(&h);
}

/* Random 4 KiB reads over the whole HP 97560 at QD1: mean service =
 * overhead + E[seek] + half a revolution + 8 sector times + the last sector
 * on the 10 MB/s bus, with E[seek] over uniformly placed start and end
 * cylinders: P(d) = 2 (N - d) / N^2 for d > 0. */
static void test_random_read_mean_service(void **state)
{
	(void)state;
	struct hx h;
	hx_build(&h, preset("hdd-hp97560"));
	hx_run(&h, false, false, 4, 1, 4000, 0);
	const double N = 1962, rev = 60e3 / 4002, st = rev / 72;
	double es = 0;
	for (int d = 1; d < 1962; d++)
		es += 2 * (N - d) / (N * N) * rw_seek_ms(d);
	double expect = 1.0 + es + rev / 2 + 8 * st + 512 / 10e6 * 1e3;
	double got = h.lat_sum / (double)h.measured / 1e6;
	if (fabs(got / expect - 1) > 0.02)
		fail_msg("random 4 KiB read: %.3f ms, expected %.3f ms (seek %.3f + rot %.3f + xfer %.3f + 1 ms)",
			 got, expect, es, rev / 2, 8 * st);
	assert_true(hx_stat(&h, "cache_hits") + hx_stat(&h, "stream_hits") < 10);
	hx_free(&h);
}

/* Sequential 4 KiB reads at QD1 come from the read-ahead stream: the rate is
 * the media rate with its track and cylinder skews (19 tracks of 72 sectors
 * per 19 revolutions + 18 x 8 + 18 skew sectors), no revolution lost. */
static void test_sequential_reads_stream(void **state)
{
	(void)state;
	struct hx h;
	hx_build(&h, preset("hdd-hp97560"));
	hx_run(&h, true, false, 4, 1, 3000, 0);
	const double rev = 60e3 / 4002, st = rev / 72;
	double cyl_ms = 19 * rev + (18 * 8 + 18) * st;
	double expect = 19 * 72 * 512 / (cyl_ms / 1e3) / 1e6;
	double got = hx_mbps(&h);
	if (fabs(got / expect - 1) > 0.01)
		fail_msg("sequential 4 KiB reads: %.4f MB/s, media rate %.4f MB/s", got, expect);
	/* no command waits anything like a revolution */
	assert_true(h.lat_max < rev * 1e6 / 2);
	assert_int_equal(hx_stat(&h, "media_reads"), 1);
	assert_true(hx_stat(&h, "stream_hits") + hx_stat(&h, "cache_hits") == 2999);
	hx_free(&h);

	/* without read-ahead every command waits most of a revolution */
	char yaml[8192];
	snprintf(yaml, sizeof(yaml), "%sreadahead: false\n", preset("hdd-hp97560"));
	char *ra = strstr(yaml, "readahead: true");
	memcpy(ra, "#eadahead", 9);
	hx_build(&h, yaml);
	hx_run(&h, true, false, 4, 1, 500, 0);
	assert_true(hx_mbps(&h) < expect / 3);
	hx_free(&h);
}

/* At QD32 the drive picks the command it can reach soonest: more random
 * 4 KiB reads per second than FCFS, which gains nothing from depth. */
static void test_sptf_beats_fcfs(void **state)
{
	(void)state;
	char yaml[8192];
	struct hx h;
	hx_build(&h, preset("hdd-barracuda-7200-12"));
	hx_run(&h, false, false, 4, 1, 1500, 0);
	double qd1 = hx_iops(&h);
	hx_free(&h);
	hx_build(&h, preset("hdd-barracuda-7200-12"));
	hx_run(&h, false, false, 4, 32, 3000, 0);
	double sptf = hx_iops(&h);
	hx_free(&h);
	snprintf(yaml, sizeof(yaml), "%s", preset("hdd-barracuda-7200-12"));
	char *s = strstr(yaml, "scheduler: sptf");
	assert_non_null(s);
	memcpy(s, "scheduler: fcfs", 15);
	hx_build(&h, yaml);
	hx_run(&h, false, false, 4, 32, 3000, 0);
	double fcfs = hx_iops(&h);
	hx_free(&h);
	print_message("random 4 KiB read IOPS: QD1 %.1f, QD32 FCFS %.1f, QD32 SPTF %.1f\n", qd1,
		      fcfs, sptf);
	assert_true(fabs(fcfs / qd1 - 1) < 0.1);
	assert_true(sptf > 1.8 * fcfs);
}

/* The outer zone has twice the sectors per track of the inner one, so the
 * sequential rate there is twice as high. */
static void test_outer_zone_faster(void **state)
{
	(void)state;
	struct hx h;
	hx_build(&h, preset("hdd-barracuda-7200-12"));
	hx_run(&h, true, false, 64, 1, 2000, 0);
	double od = hx_mbps(&h);
	uint64_t last = h.dev->capacity_bytes >> 9;
	uint32_t spt_od = hdd_spt_at(h.dev, 0), spt_id = hdd_spt_at(h.dev, last - 1);
	hx_free(&h);
	hx_build(&h, preset("hdd-barracuda-7200-12"));
	hx_run(&h, true, false, 64, 1, 2000, last - 2000 * 128 - 4096);
	double id = hx_mbps(&h);
	hx_free(&h);
	print_message("sequential 64 KiB: OD %.1f MB/s, ID %.1f MB/s\n", od, id);
	assert_true(od > id);
	double ratio = (double)spt_od / spt_id;
	assert_true(fabs(od / id / ratio - 1) < 0.05);
	assert_float_equal(od, 125.0, 1.5); /* the datasheet's OD rate it was calibrated to */
}

/* Write-through: each sequential 4 KiB write at QD1 misses its sector and
 * waits almost a revolution. Write-back: it completes from the buffer. A
 * flush behind buffered writes waits for them to reach the media. */
static void test_write_cache_and_flush(void **state)
{
	(void)state;
	struct hx h;
	hx_build(&h, preset("hdd-hp97560"));
	hx_run(&h, true, true, 4, 1, 200, 0);
	double rev = 60e9 / 4002;
	double wt = h.lat_sum / (double)h.measured;
	assert_true(wt > 0.8 * rev);
	hx_free(&h);

	char yaml[8192];
	snprintf(yaml, sizeof(yaml), "%s", preset("hdd-hp97560"));
	char *s = strstr(yaml, "write_cache: false");
	memcpy(s, "write_cache: true ", 18);
	/* five commands at once: the drive must accept them (device_submit's
	 * contract; the block layer asks can_accept first) */
	s = strstr(yaml, "queue_depth: 1 ");
	assert_non_null(s);
	memcpy(s, "queue_depth: 8 ", 15);
	hx_build(&h, yaml);
	struct io_request w[4], fl;
	memset(w, 0, sizeof(w));
	memset(&fl, 0, sizeof(fl));
	for (int i = 0; i < 4; i++) {
		list_init(&w[i].dev_node);
		w[i].sector = 100000 + 5000 * (uint64_t)i;
		w[i].nr_sectors = 8;
		w[i].flags = REQ_WRITE;
		device_submit(h.dev, &w[i]);
	}
	list_init(&fl.dev_node);
	fl.flags = REQ_WRITE | REQ_FLUSH;
	device_submit(h.dev, &fl);
	sim_engine_run(&h.sim->engine, SIM_TIME_MAX);
	for (int i = 0; i < 4; i++)
		/* overhead + its turn on the shared 10 MB/s bus, no media time */
		assert_true(w[i].t_complete - w[i].t_dispatch < 1000000 + (i + 1) * 409600 + 1000);
	/* four destages, each at least a seek from the last */
	assert_true(fl.t_complete > 4 * 3640000);
	assert_int_equal(hx_stat(&h, "destages"), 4);
	hx_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seek_curve_matches_and_is_monotone),
		cmocka_unit_test(test_random_read_mean_service),
		cmocka_unit_test(test_sequential_reads_stream),
		cmocka_unit_test(test_sptf_beats_fcfs),
		cmocka_unit_test(test_outer_zone_faster),
		cmocka_unit_test(test_write_cache_and_flush),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
