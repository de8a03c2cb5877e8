/* Tests for sim/cli/cmd_calibrate.c: a trace made from a known device (D2C
 * per size bucket with a spread around a known median) is calibrated into
 * a table device; the YAML reproduces each measured median, fills the
 * empty buckets inside the range from the fit (between its neighbours),
 * and - the docs/architecture.md §5 fidelity figure - replaying the trace on the
 * fitted device gives back each bucket's recorded D2C median within 10 %.
 * The same loop runs on the shared NVMe blktrace sample when present.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#include "models/block/block.h"
#include "sim/cli/cli.h"
#include "sim/config.h"
#include "sim/sim.h"
#include "sim/stats.h"

struct spec {
	bool write;
	uint32_t kib;
	double lat_us;
};

/* A known device: reads 4/16/128 KiB, writes 4/64 KiB. */
static const struct spec known[] = {
	{ false, 4, 100 }, { false, 16, 150 }, { false, 128, 500 },
	{ true, 4, 300 }, { true, 64, 900 },
};
#define NKNOWN (sizeof(known) / sizeof(known[0]))
#define PER_BUCKET 55

/* ftrace text with D and C only, one I/O at a time, D2C = lat * spread
 * where the spread cycles 0.8 .. 1.2 so that the median is lat. */
static void write_known_trace(const char *path)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	static const double spread[] = { 0.8, 0.9, 1.0, 1.1, 1.2 };
	double t_us = 0;
	uint64_t sector = 0;
	for (int k = 0; k < PER_BUCKET; k++)
		for (size_t i = 0; i < NKNOWN; i++) {
			const struct spec *s = &known[i];
			uint32_t nr = s->kib * 2;
			const char *rw = s->write ? "WS" : "R";
			double d2c = s->lat_us * spread[(k + i) % 5];
			fprintf(f, "  app-100 [000] .... %.6f: block_rq_issue: 8,0 %s 0 () %llu + %u [app]\n",
				1.0 + t_us / 1e6, rw, (unsigned long long)sector, nr);
			fprintf(f, "  <idle>-0 [000] d.h. %.6f: block_rq_complete: 8,0 %s () %llu + %u [0]\n",
				1.0 + (t_us + d2c) / 1e6, rw, (unsigned long long)sector, nr);
			t_us += d2c + 50;
			sector += 100000;
		}
	fclose(f);
}

static int calibrate(const char *trace, const char *out)
{
	char *argv[] = { "calibrate", (char *)trace, "-o", (char *)out, NULL };
	return cmd_calibrate(4, argv);
}

/* The [size_kib, latency_us] points of one curve. */
static size_t curve(struct cfg_doc *doc, const char *key, double *x, double *y, size_t cap)
{
	struct cfg_node *c = cfg_get(cfg_root(doc), key);
	assert_non_null(c);
	size_t n = 0;
	for (struct cfg_node *p = c->child; p && n < cap; p = p->next, n++) {
		x[n] = strtod(p->child->value, NULL);
		y[n] = strtod(p->child->next->value, NULL);
	}
	return n;
}

static double at_size(const double *x, const double *y, size_t n, double kib)
{
	for (size_t i = 0; i < n; i++)
		if (x[i] > kib * 0.999 && x[i] < kib * 1.001)
			return y[i];
	fail_msg("no point at %g KiB", kib);
	return 0;
}

static void test_calibrate_reproduces_medians_and_fills_gaps(void **state)
{
	(void)state;
	char trace[] = "/tmp/mobisim-cal-XXXXXX";
	int fd = mkstemp(trace);
	assert_true(fd >= 0);
	close(fd);
	write_known_trace(trace);
	char out[64];
	snprintf(out, sizeof(out), "%s.yaml", trace);
	assert_int_equal(calibrate(trace, out), 0);

	struct cfg_doc *doc;
	struct sim_error err;
	if (cfg_load_file(out, &doc, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(cfg_get(cfg_root(doc), "model")->value, "table");
	double x[32], y[32];
	size_t n = curve(doc, "read", x, y, 32);
	for (size_t i = 0; i < NKNOWN; i++)
		if (!known[i].write)
			assert_true(fabs(at_size(x, y, n, known[i].kib) / known[i].lat_us - 1) < 0.01);
	/* 8, 32 and 64 KiB came from the fit: between their neighbours */
	double r8 = at_size(x, y, n, 8), r32 = at_size(x, y, n, 32), r64 = at_size(x, y, n, 64);
	assert_true(r8 > 0 && r32 > 150 && r32 < 500 && r64 > r32 && r64 < 500);
	for (size_t i = 1; i < n; i++)
		assert_true(x[i] > x[i - 1]);
	n = curve(doc, "write", x, y, 32);
	for (size_t i = 0; i < NKNOWN; i++)
		if (known[i].write)
			assert_true(fabs(at_size(x, y, n, known[i].kib) / known[i].lat_us - 1) < 0.01);
	/* the write curve covers the whole measured range of both directions */
	assert_true(x[n - 1] >= 128 * 0.999);
	cfg_free(doc);

	/* the header names the trace and the bucket counts */
	FILE *f = fopen(out, "r");
	char buf[8192];
	size_t got = fread(buf, 1, sizeof(buf) - 1, f);
	buf[got] = '\0';
	fclose(f);
	assert_non_null(strstr(buf, trace));
	assert_non_null(strstr(buf, "measured"));
	char cnt[32];
	snprintf(cnt, sizeof(cnt), " %d ", PER_BUCKET);
	assert_non_null(strstr(buf, cnt));
	unlink(out);
	unlink(trace);
}

static void test_calibrate_rejects_trace_without_pairs(void **state)
{
	(void)state;
	char trace[] = "/tmp/mobisim-cal-XXXXXX";
	int fd = mkstemp(trace);
	assert_true(fd >= 0);
	dprintf(fd, "0 1 2048 8 1\n1000 1 4096 8 0\n"); /* DiskSim: arrivals only */
	close(fd);
	char out[64];
	snprintf(out, sizeof(out), "%s.yaml", trace);
	assert_int_equal(calibrate(trace, out), 2);
	assert_int_equal(access(out, F_OK), -1); /* nothing half-written */
	unlink(trace);
}

/* Write n_conc commands in flight together (D at t0 + i us, all C at
 * t0 + 500 us), then lost Ds that never complete, one every 10 us. */
static void write_inflight_trace(const char *path, int n_conc, int n_lost)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	double t = 1.0;
	for (int i = 0; i < n_conc; i++)
		fprintf(f, "  app-100 [000] .... %.6f: block_rq_issue: 8,0 R 0 () %d + 8 [app]\n",
			t + i * 1e-6, 1000 + i * 8);
	for (int i = 0; i < n_conc; i++)
		fprintf(f, "  <idle>-0 [000] d.h. %.6f: block_rq_complete: 8,0 R () %d + 8 [0]\n",
			t + 500e-6 + i * 1e-6, 1000 + i * 8);
	for (int i = 0; i < n_lost; i++)
		fprintf(f, "  app-100 [000] .... %.6f: block_rq_issue: 8,0 R 0 () %d + 8 [app]\n",
			t + 1e-3 + i * 10e-6, 900000 + i * 8);
	/* and later two more that complete, overlapping the lost ones */
	fprintf(f, "  app-100 [000] .... %.6f: block_rq_issue: 8,0 R 0 () 5000 + 8 [app]\n", t + 0.5);
	fprintf(f, "  app-100 [000] .... %.6f: block_rq_issue: 8,0 R 0 () 6000 + 8 [app]\n", t + 0.5);
	fprintf(f, "  <idle>-0 [000] d.h. %.6f: block_rq_complete: 8,0 R () 5000 + 8 [0]\n", t + 0.5001);
	fprintf(f, "  <idle>-0 [000] d.h. %.6f: block_rq_complete: 8,0 R () 6000 + 8 [0]\n", t + 0.5002);
	fclose(f);
}

static long queue_depth_of(const char *yaml)
{
	struct cfg_doc *doc;
	struct sim_error err;
	if (cfg_load_file(yaml, &doc, &err))
		fail_msg("%s", err.msg);
	long qd = strtol(cfg_get(cfg_root(doc), "queue_depth")->value, NULL, 10);
	cfg_free(doc);
	return qd;
}

/* Ds that never complete were not in flight: queue_depth is what completed
 * commands overlapped (the field trace gave 46904, which `run` refuses). */
static void test_calibrate_queue_depth_counts_completed_only(void **state)
{
	(void)state;
	char trace[] = "/tmp/mobisim-cal-XXXXXX";
	int fd = mkstemp(trace);
	assert_true(fd >= 0);
	close(fd);
	char out[64];
	snprintf(out, sizeof(out), "%s.yaml", trace);

	write_inflight_trace(trace, 4, 1000);
	assert_int_equal(calibrate(trace, out), 0);
	assert_int_equal(queue_depth_of(out), 4);

	/* more than the table device takes: clamped to its limit, with a note */
	write_inflight_trace(trace, 300, 0);
	assert_int_equal(calibrate(trace, out), 0);
	assert_int_equal(queue_depth_of(out), 256);
	FILE *f = fopen(out, "r");
	char buf[8192];
	size_t got = fread(buf, 1, sizeof(buf) - 1, f);
	buf[got] = '\0';
	fclose(f);
	assert_non_null(strstr(buf, "clamped"));
	assert_non_null(strstr(buf, "at most 300 completed"));
	unlink(out);
	unlink(trace);
}

/* ------------------------------------------------ replay on the fitted device */

#define MAXB 24

struct d2c_sink {
	uint64_t sector[1 << 14];
	int64_t t_d[1 << 14];
	struct stats_dist per[2][MAXB];
};

static int bucket_of(uint32_t nr_sectors)
{
	uint64_t kib = ((uint64_t)nr_sectors * 512 + 1023) / 1024;
	int b = 0;
	while ((1ull << b) < kib)
		b++;
	return b;
}

static void sink_event(void *ctx, const struct blk_trace_event *ev)
{
	struct d2c_sink *s = ctx;
	uint32_t h = (uint32_t)(ev->sector * 2654435761u) & ((1 << 14) - 1);
	if (ev->action == 'D') {
		s->sector[h] = ev->sector;
		s->t_d[h] = ev->time_ns;
	} else if (ev->action == 'C' && s->sector[h] == ev->sector) {
		int w = (ev->flags & REQ_WRITE) != 0;
		stats_dist_add(&s->per[w][bucket_of(ev->nr_sectors)], ev->time_ns - s->t_d[h]);
	}
}

/* Replay trace open loop on device yaml; return per-bucket D2C medians. */
static void replay_d2c(const char *trace, const char *device_yaml, struct d2c_sink *s)
{
	char yaml[1024];
	snprintf(yaml, sizeof(yaml),
		 "seed: 1\ndevice: %s\nscheduler: noop\nreplay: open\n"
		 "workload: {type: replay, trace: %s}\n", device_yaml, trace);
	struct cfg_doc *doc;
	struct sim_error err;
	struct sim *sim;
	if (cfg_load_string(yaml, strlen(yaml), "cal.yaml", &doc, &err))
		fail_msg("%s", err.msg);
	struct sim_options opt = { .seed = 1, .quiet = true };
	if (sim_create(doc, "cal.yaml", &opt, &sim, &err))
		fail_msg("%s", err.msg);
	struct blk_trace_sink sink = { .event = sink_event, .ctx = s };
	assert_int_equal(blk_add_trace_sink(sim->blk, &sink), 0);
	if (sim_run(sim, &err))
		fail_msg("%s", err.msg);
	sim_destroy(sim);
}

/* Recorded D2C medians of a trace, straight from the trace reader via
 * calibrate's own output (the "measured" rows), compared bucket by bucket
 * with the replay on the calibrated device. */
static void check_fidelity(const char *trace)
{
	char out[64];
	snprintf(out, sizeof(out), "/tmp/mobisim-cal-fid-%d.yaml", (int)getpid());
	assert_int_equal(calibrate(trace, out), 0);
	struct cfg_doc *doc;
	struct sim_error err;
	if (cfg_load_file(out, &doc, &err))
		fail_msg("%s", err.msg);
	struct d2c_sink *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	for (int w = 0; w < 2; w++)
		for (int b = 0; b < MAXB; b++)
			stats_dist_init(&s->per[w][b]);
	replay_d2c(trace, out, s);

	/* the measured rows of the header: "#   read  BUCKET COUNT SIZE MEDIAN measured" */
	FILE *f = fopen(out, "r");
	char line[512];
	int checked = 0;
	while (fgets(line, sizeof(line), f)) {
		char dir[8], src[16];
		unsigned long long bk, count;
		double size, med;
		if (sscanf(line, "# %7s %llu %llu %lf %lf %15s", dir, &bk, &count, &size, &med, src) != 6 ||
		    strcmp(src, "measured"))
			continue;
		int w = !strcmp(dir, "write");
		int b = 0;
		while ((1ull << b) < bk)
			b++;
		const struct stats_dist *d = &s->per[w][b];
		assert_true(d->n > 0);
		double sim_med = (double)stats_dist_percentile(d, 50) / 1000.0;
		if (fabs(sim_med / med - 1) > 0.10)
			fail_msg("%s %llu KiB: replayed D2C median %.1f us vs recorded %.1f us", dir, bk,
				 sim_med, med);
		checked++;
	}
	fclose(f);
	assert_true(checked > 0);
	for (int w = 0; w < 2; w++)
		for (int b = 0; b < MAXB; b++)
			stats_dist_free(&s->per[w][b]);
	free(s);
	cfg_free(doc);
	unlink(out);
}

static void test_calibrate_replay_reproduces_recorded_d2c(void **state)
{
	(void)state;
	char trace[] = "/tmp/mobisim-cal-XXXXXX";
	int fd = mkstemp(trace);
	assert_true(fd >= 0);
	close(fd);
	write_known_trace(trace);
	check_fidelity(trace);
	unlink(trace);

	/* the shared real sample, copied into the tree with its licence */
	const char *sample = "tests/data/blktrace-nvme-readahead/sample.blktrace.0";
	assert_int_equal(access(sample, R_OK), 0);
	check_fidelity(sample);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibrate_reproduces_medians_and_fills_gaps),
		cmocka_unit_test(test_calibrate_rejects_trace_without_pairs),
		cmocka_unit_test(test_calibrate_queue_depth_counts_completed_only),
		cmocka_unit_test(test_calibrate_replay_reproduces_recorded_d2c),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
