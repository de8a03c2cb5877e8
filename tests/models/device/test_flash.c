/* Multi-die flash model (models/device/flash.c): the shape of the latency-versus-
 * size curve on every bundled preset, die parallelism up to the link, the
 * host-link lower bound on every completion, queueing and die contention
 * between concurrent commands, the write buffer (full -> slower), FUA and
 * flush draining, reads stuck behind programs (and program suspend), reads
 * served ahead of buffered programs not yet started (read_priority), and
 * configuration errors with positions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_rng.h>

#include "models/device/device.h"
#include "models/device/device_curve.h"
#include "models/device/flash_int.h"
#include "sim/sim.h"

static const char *const presets[] = { "emmc45", "emmc51", "ufs20", "ufs21", "ufs31", "ufs31-wb", "ufs40", NULL };

struct fx {
	struct sim *sim;
	struct cfg_doc *doc;
	struct device *dev;
	uint32_t done;
	int64_t min_slack;   /* min over completions of (latency - link bound) */
	bool check_link;
};

static struct flash_dev *fd(struct fx *f) { return f->dev->priv; }

static int64_t link_bound(const struct flash_dev *d, uint64_t bytes)
{
	unsigned __int128 num = (unsigned __int128)bytes * 1000000000u + d->link_rate - 1;
	return (int64_t)(num / d->link_rate);
}

static void fx_done(void *upper, struct io_request *rq)
{
	struct fx *f = upper;
	f->done++;
	if (f->check_link) {
		int64_t slack = (rq->t_complete - rq->t_dispatch) - link_bound(fd(f), rq_bytes(rq));
		if (slack < f->min_slack)
			f->min_slack = slack;
	}
}

static void fx_build_doc(struct fx *f)
{
	struct sim_error err = { 0 };
	f->sim = sim_new_bare(7);
	assert_non_null(f->sim);
	if (device_create(f->sim, cfg_root(f->doc), &f->dev, &err) ||
	    cfg_check_unused(cfg_root(f->doc), &err))
		fail_msg("%s", err.msg);
	assert_string_equal(f->dev->ops->name, "flash");
	f->dev->on_complete = fx_done;
	f->dev->upper = f;
	f->min_slack = INT64_MAX;
}

static void fx_string(struct fx *f, const char *yaml)
{
	struct sim_error err = { 0 };
	memset(f, 0, sizeof(*f));
	if (cfg_load_string(yaml, strlen(yaml), "flash.yaml", &f->doc, &err))
		fail_msg("%s", err.msg);
	fx_build_doc(f);
}

static void preset_path(const char *name, char *buf, size_t len)
{
	const char *src = getenv("MOBISIM_SRC");
	snprintf(buf, len, "%s/configs/devices/%s.yaml", src ? src : ".", name);
}

static struct cfg_doc *load_preset(const char *name)
{
	char path[4096];
	struct sim_error err = { 0 };
	struct cfg_doc *doc = NULL;
	preset_path(name, path, sizeof(path));
	if (cfg_load_file(path, &doc, &err))
		fail_msg("%s", err.msg);
	return doc;
}

static void fx_preset(struct fx *f, const char *name, const char *const *sets)
{
	struct sim_error err = { 0 };
	memset(f, 0, sizeof(*f));
	f->doc = load_preset(name);
	for (const char *const *s = sets; s && *s; s++)
		if (cfg_set(f->doc, *s, &err))
			fail_msg("%s", err.msg);
	fx_build_doc(f);
}

static void fx_free(struct fx *f)
{
	device_destroy(f->dev);
	cfg_free(f->doc);
	sim_destroy(f->sim);
}

static void rq_init(struct io_request *rq, uint64_t sector, uint32_t sectors, uint32_t flags)
{
	memset(rq, 0, sizeof(*rq));
	list_init(&rq->queuelist);
	list_init(&rq->dev_node);
	list_init(&rq->hash);
	rq->sector = sector;
	rq->nr_sectors = sectors;
	rq->flags = flags;
}

/* Submit one command now, run until it completes; returns its latency. */
static int64_t one(struct fx *f, uint64_t sector, uint32_t sectors, uint32_t flags)
{
	struct io_request rq;
	rq_init(&rq, sector, sectors, flags);
	uint32_t before = f->done;
	device_submit(f->dev, &rq);
	/* only until it completes: the buffer's drain goes on behind it */
	while (f->done == before && sim_engine_step(&f->sim->engine))
		;
	assert_int_equal(f->done, before + 1);
	return rq.t_complete - rq.t_dispatch;
}

static double curve(struct cfg_doc *doc, bool write, uint64_t kib, uint32_t qd, uint32_t n,
		    enum device_curve_pattern pat)
{
	struct device_curve_opts o = { .write = write, .bytes = kib << 10, .qd = qd, .nreq = n,
				       .pattern = pat, .seed = 3 };
	struct device_curve_result r;
	struct sim_error err = { 0 };
	if (device_curve_measure(cfg_root(doc), &o, &r, &err))
		fail_msg("%s", err.msg);
	return r.mbps;
}

/* ------------------------------------------------------------- shape */

static void test_flash_latency_monotone_in_size(void **state)
{
	(void)state;
	for (const char *const *p = presets; *p; p++) {
		struct fx f;
		fx_preset(&f, *p, NULL);
		for (int w = 0; w < 2; w++) {
			int64_t prev = 0;
			for (uint64_t b = 4096; b <= (1u << 20); b += 4096) {
				int64_t l = f.dev->ops->idle_latency_ns(f.dev, w, b);
				if (l < prev)
					fail_msg("%s %s: idle latency falls from %lld to %lld ns at %llu B",
						 *p, w ? "write" : "read", (long long)prev, (long long)l,
						 (unsigned long long)b);
				prev = l;
			}
		}
		/* measured QD1 latency (simulated, random offsets) rises with size */
		double prev_us = 0;
		for (uint64_t kib = 4; kib <= 1024; kib *= 2) {
			struct device_curve_opts o = { .bytes = kib << 10, .qd = 1, .nreq = 64,
						       .seed = 5 };
			struct device_curve_result r;
			struct sim_error err = { 0 };
			if (device_curve_measure(cfg_root(f.doc), &o, &r, &err))
				fail_msg("%s", err.msg);
			if (!(r.lat_us > prev_us))
				fail_msg("%s: QD1 read latency %.1f us at %llu KiB not above %.1f", *p,
					 r.lat_us, (unsigned long long)kib, prev_us);
			prev_us = r.lat_us;
		}
		fx_free(&f);
	}
}

static void test_flash_presets_512k_bandwidth_4x_4k(void **state)
{
	(void)state;
	for (const char *const *p = presets; *p; p++) {
		struct cfg_doc *doc = load_preset(*p);
		for (int w = 0; w < 2; w++) {
			double small = curve(doc, w, 4, 1, w ? 2048 : 256, DEVICE_CURVE_RANDOM);
			double big = curve(doc, w, 512, 1, 256, DEVICE_CURVE_RANDOM);
			if (!(big >= 4.0 * small))
				fail_msg("%s %s: QD1 %.1f MB/s at 512 KiB < 4 x %.1f MB/s at 4 KiB", *p,
					 w ? "write" : "read", big, small);
		}
		cfg_free(doc);
	}
}

static void test_flash_idle_latency_is_first_command(void **state)
{
	(void)state;
	for (const char *const *p = presets; *p; p++) {
		struct fx f;
		fx_preset(&f, *p, NULL);
		int64_t idle = f.dev->ops->idle_latency_ns(f.dev, false, 65536);
		/* the scratch copy does not disturb the device itself */
		assert_int_equal(one(&f, 0, 128, 0), idle);
		fx_free(&f);
	}
}

/* Die-bound device: 1 page per die per (tR + page out); the UFS G4 x2
 * link (2332 MB/s) caps it at 16 dies. */
static void test_flash_doubling_dies_doubles_large_reads(void **state)
{
	(void)state;
	static const char *base =
		"model: flash\nlink: ufs_hs_g4\nlanes: 2\nplanes: 1\npage_kib: 16\n"
		"read_us: 100\nchannel_mbps: 1600\ncmd_read_us: 5\nwbuf_kib: 64\n";
	double prev = 0;
	double link_mbps = 2.0 * 11660.8e6 * 0.8 / 8 / 1e6;
	for (int dies = 1; dies <= 64; dies *= 2) {
		char yaml[512];
		snprintf(yaml, sizeof(yaml), "%schannels: %d\ndies: %d\n", base, dies < 8 ? dies : 8,
			 dies);
		struct cfg_doc *doc;
		struct sim_error err = { 0 };
		if (cfg_load_string(yaml, strlen(yaml), "dies.yaml", &doc, &err))
			fail_msg("%s", err.msg);
		double bw = curve(doc, false, 1024, 1, 32, DEVICE_CURVE_SEQ);
		cfg_free(doc);
		assert_true(bw <= link_mbps * 1.0001);
		if (dies > 1 && dies <= 8) {
			if (bw < 1.8 * prev)
				fail_msg("%d dies: %.1f MB/s, not ~2 x %.1f", dies, bw, prev);
		}
		if (dies == 64) /* saturated: no more than a few % over 32 dies */
			assert_true(bw < 1.05 * prev && bw > 0.8 * link_mbps);
		prev = bw;
	}
}

/* ------------------------------------------------------ link, queueing */

static void test_flash_never_completes_before_link(void **state)
{
	(void)state;
	for (const char *const *p = presets; *p; p++) {
		struct fx f;
		fx_preset(&f, *p, NULL);
		f.check_link = true;
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
		gsl_rng_set(r, 11);
		enum { N = 64 };
		struct io_request rq[N];
		/* bursts of concurrent mixed commands, up to the queue depth */
		for (int round = 0; round < 8; round++) {
			uint32_t k = f.dev->queue_depth < N ? f.dev->queue_depth : N;
			for (uint32_t i = 0; i < k; i++) {
				uint32_t sectors = 8u << gsl_rng_uniform_int(r, 9); /* 4K..1M */
				uint32_t flags = gsl_rng_uniform_int(r, 2) ? REQ_WRITE : 0;
				if ((flags & REQ_WRITE) && gsl_rng_uniform_int(r, 4) == 0)
					flags |= REQ_FUA;
				rq_init(&rq[i], gsl_rng_uniform_int(r, 1u << 22) * 8, sectors, flags);
				device_submit(f.dev, &rq[i]);
			}
			sim_engine_run(&f.sim->engine, SIM_TIME_MAX);
		}
		gsl_rng_free(r);
		assert_true(f.done >= 8);
		if (f.min_slack < 0)
			fail_msg("%s: a command completed %lld ns before its bytes crossed the link", *p,
				 (long long)-f.min_slack);
		fx_free(&f);
	}
}

#define UFS_BASE                                                                      \
	"model: flash\nlink: ufs_hs_g3\nlanes: 2\nchannels: 2\ndies: 4\nplanes: 2\n"          \
	"page_kib: 16\nread_us: 50\nchannel_mbps: 400\ncmd_read_us: 5\nprog_us: 1000\n"      \
	"cmd_write_us: 10\nflush_us: 50\n"
static const char *const ufs_cfg = UFS_BASE "wbuf_kib: 1024\n";

static void test_flash_concurrent_requests_overlap_or_contend(void **state)
{
	(void)state;
	struct fx f;
	fx_string(&f, ufs_cfg);
	assert_int_equal(f.dev->queue_depth, 32);
	int64_t idle = f.dev->ops->idle_latency_ns(f.dev, false, 4096);
	struct flash_dev *d = fd(&f);
	uint64_t page_sectors = d->page_bytes >> SECTOR_SHIFT;

	/* different dies (pages 0 and 1: channels 0 and 1): they overlap */
	struct io_request a, b;
	rq_init(&a, 0, 8, 0);
	rq_init(&b, page_sectors, 8, 0);
	device_submit(f.dev, &a);
	device_submit(f.dev, &b);
	sim_engine_run(&f.sim->engine, SIM_TIME_MAX);
	int64_t t0 = a.t_dispatch;
	assert_true(b.t_complete - t0 < idle + idle / 2);

	/* the same die, another stripe row: the second waits for the first's tR */
	uint64_t row = (uint64_t)d->ndies * (uint64_t)d->planes * page_sectors;
	int64_t start = sim_now(f.sim);
	rq_init(&a, 10 * row, 8, 0);
	rq_init(&b, 11 * row, 8, 0);
	device_submit(f.dev, &a);
	device_submit(f.dev, &b);
	sim_engine_run(&f.sim->engine, SIM_TIME_MAX);
	assert_int_equal(a.t_complete - start, idle);
	assert_true(b.t_complete - start >= idle + d->read_ns);
	fx_free(&f);

	/* eMMC: one command in flight; the model still serialises the bus */
	fx_preset(&f, "emmc45", NULL);
	assert_int_equal(f.dev->queue_depth, 1);
	rq_init(&a, 0, 8, 0);
	device_submit(f.dev, &a);
	assert_false(device_can_accept(f.dev, &b));
	sim_engine_run(&f.sim->engine, SIM_TIME_MAX);
	assert_true(device_can_accept(f.dev, &b));
	fx_free(&f);
}

/* Half-duplex eMMC link: a read waits for a concurrent write's data on
 * the bus; full-duplex UFS does not. */
static void test_flash_emmc_link_is_half_duplex(void **state)
{
	(void)state;
	int64_t extra[2];
	for (int ufs = 0; ufs < 2; ufs++) {
		char yaml[512];
		snprintf(yaml, sizeof(yaml),
			 "model: flash\nlink: %s\nqueue_depth: 32\nchannels: 2\ndies: 4\n"
			 "planes: 4\npage_kib: 256\nread_us: 50\ncmd_read_us: 0\ncmd_write_us: 0\n"
			 "wbuf_kib: 4096\n",
			 ufs ? "ufs_hs_g3" : "emmc_hs400");
		struct fx f;
		fx_string(&f, yaml);
		int64_t idle = f.dev->ops->idle_latency_ns(f.dev, false, 65536);
		struct io_request w, r;
		/* just under one 1 MiB program unit: it stays in the buffer, so
		 * only the link is shared, no die */
		rq_init(&w, 1u << 20, 2047, REQ_WRITE);
		rq_init(&r, 0, 128, 0);
		device_submit(f.dev, &w);
		device_submit(f.dev, &r);
		sim_engine_run(&f.sim->engine, SIM_TIME_MAX);
		extra[ufs] = (r.t_complete - r.t_dispatch) - idle;
		fx_free(&f);
	}
	assert_int_equal(extra[1], 0);
	/* ~1 MiB at 400 MB/s = 2.6 ms on the bus, less the read's own tR */
	assert_true(extra[0] > 2000000);
}

/* --------------------------------------------------- buffer, FUA, flush */

static void test_flash_write_buffer_full_makes_writes_slower(void **state)
{
	(void)state;
	int64_t mean[2];
	uint64_t stalls[2];
	for (int small = 0; small < 2; small++) {
		/* small: exactly one program unit (2 planes x 16 KiB) */
		struct fx f;
		fx_string(&f, small ? UFS_BASE "wbuf_kib: 32\n" : ufs_cfg);
		int64_t sum = 0;
		for (int i = 0; i < 16; i++) /* 1 MiB of sequential 64 KiB writes, QD1 */
			sum += one(&f, (uint64_t)i * 128, 128, REQ_WRITE);
		mean[small] = sum / 16;
		stalls[small] = fd(&f)->buffer_stalls;
		fx_free(&f);
	}
	/* 1 MiB fits in the big buffer: link speed; the small one waits for tPROG */
	assert_int_equal(stalls[0], 0);
	assert_true(stalls[1] > 0);
	assert_true(mean[1] > 4 * mean[0]);
}

/* An SLC cache (WriteBooster) absorbs a burst at slc_prog_us; once full,
 * programs fall back to the array's tPROG and writes slow down. */
static void test_flash_slc_cache_absorbs_then_exhausts(void **state)
{
	(void)state;
	struct fx f;
	fx_string(&f, UFS_BASE "wbuf_kib: 1024\nslc_cache_mib: 4\nslc_prog_us: 150\n"
				"slc_fold_mbps: 0\n");
	struct flash_dev *d = fd(&f);
	int64_t first = 0, last = 0;
	for (int i = 0; i < 64; i++) { /* 16 MiB of sequential 256 KiB writes */
		int64_t l = one(&f, (uint64_t)i * 512, 512, REQ_WRITE);
		if (i >= 4 && i < 12)
			first += l;
		if (i >= 56)
			last += l;
	}
	assert_int_equal(d->slc_programs, (4u << 20) / d->unit_bytes);
	assert_true(last > 3 * first);
	fx_free(&f);
}

static void noop_event(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	(void)ev;
}

/* Let the device sit idle for ns (after everything drained). */
static void idle_for(struct fx *f, int64_t ns)
{
	struct sim_event ev;
	sim_engine_run(&f->sim->engine, SIM_TIME_MAX);
	sim_event_init(&ev, noop_event);
	sim_at(f->sim, &ev, sim_now(f->sim) + ns);
	sim_engine_run(&f->sim->engine, SIM_TIME_MAX);
}

/* WriteBooster (JESD220E 13.4.14) flushed only in HIBERN8: writes are fast
 * until the buffer fills, then slow; a pause shorter than the HIBERN8
 * entry delay restores nothing, a long idle period flushes the buffer and
 * writes are fast again. */
static void test_flash_writebooster_flush_in_hibern8(void **state)
{
	(void)state;
	struct fx f;
	fx_string(&f, UFS_BASE "wbuf_kib: 1024\nslc_cache_mib: 4\nslc_prog_us: 150\n"
				"slc_fold_mbps: 400\nslc_flush: hibern8\nhibern8_idle_ms: 150\n");
	int64_t fast = 0, slow = 0;
	uint64_t sec = 0;
	for (int i = 0; i < 24; i++, sec += 2048) { /* 24 MiB of 1 MiB writes, QD1 */
		int64_t l = one(&f, sec, 2048, REQ_WRITE);
		if (i >= 1 && i < 3)
			fast += l / 2;
		if (i >= 20)
			slow += l / 4;
	}
	assert_true(slow > 2 * fast);
	/* a 100 ms pause: the link has not reached HIBERN8, nothing flushed */
	idle_for(&f, 100 * 1000 * 1000LL);
	int64_t after_short = 0, after_long = 0;
	for (int i = 0; i < 4; i++, sec += 2048) {
		int64_t l = one(&f, sec, 2048, REQ_WRITE);
		after_short += i >= 2 ? l / 2 : 0; /* past the 1 MiB write buffer */
	}
	assert_true(after_short > 2 * fast);
	assert_int_equal(fd(&f)->wb_idle_flushes, 0);
	/* 1 s idle: 850 ms in HIBERN8 at 400 MB/s empties the 4 MiB buffer */
	idle_for(&f, 1000 * 1000 * 1000LL);
	for (int i = 0; i < 4; i++, sec += 2048) {
		int64_t l = one(&f, sec, 2048, REQ_WRITE);
		after_long += i >= 2 ? l / 2 : 0;
	}
	assert_true(after_long * 2 < slow);
	assert_true(fd(&f)->wb_idle_flushes >= 1);
	fx_free(&f);
}

static void test_flash_fua_and_flush_drain(void **state)
{
	(void)state;
	struct fx f;
	fx_string(&f, ufs_cfg);
	struct flash_dev *d = fd(&f);
	int64_t plain = one(&f, 0, 8, REQ_WRITE);
	assert_true(plain < d->prog_ns);
	sim_engine_run(&f.sim->engine, SIM_TIME_MAX);
	int64_t fua = one(&f, 8, 8, REQ_WRITE | REQ_FUA);
	assert_true(fua >= d->prog_ns);

	/* buffered writes, then an empty pre-flush: completes after the drain */
	for (int i = 0; i < 6; i++)
		one(&f, 1000 + (uint64_t)i * 8, 8, REQ_WRITE);
	int64_t flush = one(&f, 0, 0, REQ_WRITE | REQ_FLUSH);
	assert_true(flush >= d->prog_ns + d->flush_ns);
	/* nothing left to drain: a second flush costs only the command */
	int64_t again = one(&f, 0, 0, REQ_WRITE | REQ_FLUSH);
	assert_true(again < d->prog_ns);
	/* a flush without the direction bit still drains */
	one(&f, 5000, 8, REQ_WRITE);
	assert_true(one(&f, 0, 0, REQ_FLUSH) >= d->prog_ns);
	fx_free(&f);

	/* write_cache: false = every write waits for its program */
	const char *const sets[] = { "write_cache=false", NULL };
	fx_preset(&f, "ufs21", sets);
	assert_true(one(&f, 0, 8, REQ_WRITE) >= fd(&f)->prog_ns);
	fx_free(&f);
}

static void test_flash_read_waits_behind_program(void **state)
{
	(void)state;
	int64_t lat[2];
	for (int susp = 0; susp < 2; susp++) {
		char yaml[1024];
		snprintf(yaml, sizeof(yaml), "%sprogram_suspend: %s\n", ufs_cfg,
			 susp ? "true" : "false");
		struct fx f;
		fx_string(&f, yaml);
		struct flash_dev *d = fd(&f);
		int64_t idle = f.dev->ops->idle_latency_ns(f.dev, false, 4096);
		/* one full program unit: goes to round-robin die 0 = page 0's die */
		struct io_request w, r;
		rq_init(&w, 1u << 16, (uint32_t)(d->unit_bytes >> SECTOR_SHIFT), REQ_WRITE);
		device_submit(f.dev, &w);
		sim_engine_run(&f.sim->engine, SIM_TIME_MAX);
		rq_init(&r, 0, 8, 0);
		device_submit(f.dev, &r);
		sim_engine_run(&f.sim->engine, SIM_TIME_MAX);
		lat[susp] = r.t_complete - r.t_dispatch;
		if (!susp) {
			assert_true(lat[0] > idle + d->prog_ns / 2);
			assert_int_equal(d->prog_waits, 1);
		} else {
			assert_int_equal(d->suspends, 1);
			/* waits only for the program's data-in, then tSUS */
			int64_t data_in = (int64_t)(d->unit_bytes * 1000000000u / d->ch_rate);
			assert_true(lat[1] <= idle + d->suspend_ns + data_in + 20000);
		}
		fx_free(&f);
	}
	assert_true(lat[1] < lat[0] / 4);
}

/* ------------------------------------------------------ read priority */

/* Submit n sequential writes of sectors each, from sector base, all now. */
static void submit_writes(struct fx *f, struct io_request *w, int n, uint64_t base,
			  uint32_t sectors, uint32_t flags)
{
	for (int i = 0; i < n; i++) {
		rq_init(&w[i], base + (uint64_t)i * sectors, sectors, REQ_WRITE | flags);
		device_submit(f->dev, &w[i]);
	}
}

static void run_until_done(struct fx *f, uint32_t n)
{
	while (f->done < n && sim_engine_step(&f->sim->engine))
		;
	assert_int_equal(f->done, n);
}

/* 32 tagged 128 KiB writes fill a 4 MiB buffer at link speed; a read
 * submitted once they are all in waits at most for the program in
 * progress on its die (data-in + tPROG), not for the ~35 ms backlog of
 * programs not yet started - unless read_priority is off (the old model:
 * every program booked at admission, the read after all of them). */
static void test_flash_read_priority_over_buffered_backlog(void **state)
{
	(void)state;
	int64_t lat[2];
	for (int rp = 0; rp < 2; rp++) {
		char yaml[1024];
		snprintf(yaml, sizeof(yaml), "%swbuf_kib: 4096\nread_priority: %s\n", UFS_BASE,
			 rp ? "true" : "false");
		struct fx f;
		fx_string(&f, yaml);
		struct flash_dev *d = fd(&f);
		int64_t idle = f.dev->ops->idle_latency_ns(f.dev, false, 4096);
		struct io_request w[32], r;
		submit_writes(&f, w, 32, 1u << 20, 256, 0);
		run_until_done(&f, 32);
		int64_t backlog = d->tl.drain_done - sim_now(f.sim);
		rq_init(&r, 0, 8, 0);
		device_submit(f.dev, &r);
		run_until_done(&f, 33);
		lat[rp] = r.t_complete - r.t_dispatch;
		int64_t data_in = (int64_t)(d->unit_bytes * 1000000000u / d->ch_rate);
		if (rp) {
			assert_true(lat[1] <= idle + data_in + d->prog_ns + 20000);
		} else {
			/* waits for most of the backlog booked before it */
			assert_true(backlog > 20 * d->prog_ns);
			assert_true(lat[0] >= 20 * d->prog_ns);
		}
		sim_engine_run(&f.sim->engine, SIM_TIME_MAX);
		/* nothing left waiting for a die or for space */
		assert_int_equal(d->qn + d->wn, 0);
		fx_free(&f);
	}
	print_message("read behind 4 MiB of buffered writes: %.1f us (read_priority: false %.1f us)\n",
		      lat[1] / 1e3, lat[0] / 1e3);
	assert_true(lat[1] * 10 < lat[0]);
}

struct timed_read {
	struct sim_event ev;
	struct io_request rq;
	struct fx *f;
};

static void timed_read_fire(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	struct timed_read *t = (struct timed_read *)((char *)ev - offsetof(struct timed_read, ev));
	device_submit(t->f->dev, &t->rq);
}

/* 8 MiB of buffered writes through a 1 MiB buffer (it stays full: writes
 * wait for space), with and without 16 reads of 4 KiB spread over the
 * drain. Without reads the drain ends exactly when the old model (every
 * program booked at admission) ends it; the reads delay it by no more
 * than their own die time, each waits at most one program, and the buffer
 * never holds more than its size. */
static void test_flash_reads_cost_writes_only_their_die_time(void **state)
{
	(void)state;
	enum { NW = 64, NR = 16 };
	int64_t end[3], last_w[3], max_rlat = 0;
	int64_t idle = 0, data_in = 0, read_die = 0, prog_ns = 0;
	for (int run = 0; run < 3; run++) {
		/* 0: old model, no reads; 1: read priority, no reads; 2: with reads */
		char yaml[1024];
		snprintf(yaml, sizeof(yaml), "%sread_priority: %s\n", ufs_cfg,
			 run ? "true" : "false");
		struct fx f;
		fx_string(&f, yaml);
		struct flash_dev *d = fd(&f);
		idle = f.dev->ops->idle_latency_ns(f.dev, false, 4096);
		data_in = (int64_t)(d->unit_bytes * 1000000000u / d->ch_rate);
		prog_ns = d->prog_ns;
		/* a read's own die time: tR and its 4 KiB out over the channel */
		read_die = NR * (d->read_ns + (int64_t)(4096 * 1000000000ull / d->ch_rate) + 1);
		struct io_request w[NW];
		struct timed_read tr[NR];
		for (int i = 0; run == 2 && i < NR; i++) {
			tr[i].f = &f;
			/* pages i: every die in turn */
			rq_init(&tr[i].rq, (uint64_t)i * (d->page_bytes >> SECTOR_SHIFT), 8, 0);
			sim_event_init(&tr[i].ev, timed_read_fire);
			sim_at(f.sim, &tr[i].ev, 1000000 + (int64_t)i * 2000000);
		}
		/* writes keep all tags but one busy (the reads, 2 ms apart, take it) */
		int next = 0;
		do {
			while (next < NW && f.dev->inflight + 1 < f.dev->queue_depth) {
				rq_init(&w[next], (1u << 20) + (uint64_t)next * 256, 256, REQ_WRITE);
				device_submit(f.dev, &w[next]);
				next++;
			}
		} while (sim_engine_step(&f.sim->engine));
		assert_int_equal(next, NW);
		assert_int_equal(f.done, run == 2 ? NW + NR : NW);
		end[run] = d->tl.drain_done;
		last_w[run] = 0;
		for (int i = 0; i < NW; i++)
			if (w[i].t_complete > last_w[run])
				last_w[run] = w[i].t_complete;
		for (int i = 0; run == 2 && i < NR; i++) {
			int64_t l = tr[i].rq.t_complete - tr[i].rq.t_dispatch;
			if (l > max_rlat)
				max_rlat = l;
		}
		assert_true(d->buffer_stalls > 0);
		assert_true(d->wb_peak <= d->wbuf_bytes);
		assert_int_equal(d->qn + d->wn, 0);
		assert_int_equal(d->programs, ((uint64_t)NW * 256 * 512) / d->unit_bytes);
		fx_free(&f);
	}
	assert_int_equal(end[1], end[0]);
	assert_int_equal(last_w[1], last_w[0]);
	print_message("8 MiB drain ends %.3f ms, %.3f ms with %d reads (max read %.1f us)\n",
		      end[1] / 1e6, end[2] / 1e6, NR, max_rlat / 1e3);
	assert_true(end[2] >= end[1]);
	assert_true(end[2] - end[1] <= read_die);
	assert_true(last_w[2] - last_w[1] <= read_die);
	assert_true(max_rlat <= idle + data_in + prog_ns + 20000);
}

/* FUA behind buffered writes completes only when everything buffered
 * before it is programmed (here: the last program of the device). */
static void test_flash_fua_waits_for_all_before_it(void **state)
{
	(void)state;
	struct fx f;
	fx_string(&f, ufs_cfg);
	struct flash_dev *d = fd(&f);
	struct io_request w[16], fua;
	submit_writes(&f, w, 16, 1u << 20, 128, 0); /* 1 MiB */
	rq_init(&fua, 0, 8, REQ_WRITE | REQ_FUA);
	device_submit(f.dev, &fua);
	sim_engine_run(&f.sim->engine, SIM_TIME_MAX);
	assert_int_equal(f.done, 17);
	assert_int_equal(fua.t_complete, d->tl.drain_done);
	for (int i = 0; i < 16; i++)
		assert_true(fua.t_complete >= w[i].t_complete + d->prog_ns);
	/* 32 units over 4 dies: at least 8 programs in a row on some die */
	assert_true(fua.t_complete >= 8 * d->prog_ns);
	fx_free(&f);
}

static void test_flash_bad_config_names_line_col(void **state)
{
	(void)state;
	static const struct {
		const char *yaml, *where, *what;
	} cases[] = {
		{ "model: flash\ndies: many\n", "bad.yaml:2:7", "dies" },
		{ "model: flash\nchannels: 4\ndies: 6\n", "bad.yaml:3:7", "multiple of channels" },
		{ "model: flash\npage_kib: 1.7\n", "bad.yaml:2:11", "512" },
		{ "model: flash\nlink: ufs_hs_g9\n", "bad.yaml:2:7", "ufs_hs_g4" },
		{ "model: flash\nprog_us: 2 parsecs\n", "bad.yaml:2:10", "prog_us" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_error err = { 0 };
		struct cfg_doc *doc;
		struct device *dev = NULL;
		struct sim *sim = sim_new_bare(1);
		if (cfg_load_string(cases[i].yaml, strlen(cases[i].yaml), "bad.yaml", &doc, &err))
			fail_msg("%s", err.msg);
		int rc = device_create(sim, cfg_root(doc), &dev, &err);
		assert_int_equal(rc, SIM_E_INPUT);
		assert_null(dev);
		if (!strstr(err.msg, cases[i].where) || !strstr(err.msg, cases[i].what))
			fail_msg("case %zu: expected '%s' and '%s' in: %s", i, cases[i].where,
				 cases[i].what, err.msg);
		cfg_free(doc);
		sim_destroy(sim);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flash_latency_monotone_in_size),
		cmocka_unit_test(test_flash_presets_512k_bandwidth_4x_4k),
		cmocka_unit_test(test_flash_idle_latency_is_first_command),
		cmocka_unit_test(test_flash_doubling_dies_doubles_large_reads),
		cmocka_unit_test(test_flash_never_completes_before_link),
		cmocka_unit_test(test_flash_concurrent_requests_overlap_or_contend),
		cmocka_unit_test(test_flash_emmc_link_is_half_duplex),
		cmocka_unit_test(test_flash_write_buffer_full_makes_writes_slower),
		cmocka_unit_test(test_flash_slc_cache_absorbs_then_exhausts),
		cmocka_unit_test(test_flash_writebooster_flush_in_hibern8),
		cmocka_unit_test(test_flash_fua_and_flush_drain),
		cmocka_unit_test(test_flash_read_waits_behind_program),
		cmocka_unit_test(test_flash_read_priority_over_buffered_backlog),
		cmocka_unit_test(test_flash_reads_cost_writes_only_their_die_time),
		cmocka_unit_test(test_flash_fua_waits_for_all_before_it),
		cmocka_unit_test(test_flash_bad_config_names_line_col),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
