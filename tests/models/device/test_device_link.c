/* Physical bounds of every device preset: each has a host link, no
 * throughput on the latency-vs-size curve exceeds the link's payload rate,
 * and no command completes sooner than its bytes take on the link. Also
 * the core's link bound for models without their own link (ideal, table):
 * the PCIe rates, the bound itself, full duplex, and that `link: none`
 * leaves the queueing reference untouched. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/device/device.h"
#include "models/device/device_curve.h"
#include "sim/config.h"
#include "sim/sim.h"

static struct cfg_doc *load(const char *path)
{
	struct sim_error err = { 0 };
	struct cfg_doc *doc = NULL;
	if (cfg_load_file(path, &doc, &err))
		fail_msg("%s", err.msg);
	return doc;
}

static struct cfg_doc *load_string(const char *yaml)
{
	struct sim_error err = { 0 };
	struct cfg_doc *doc = NULL;
	if (cfg_load_string(yaml, strlen(yaml), "dev.yaml", &doc, &err))
		fail_msg("%s", err.msg);
	return doc;
}

static struct device_curve_result measure(struct cfg_doc *doc, bool write, uint64_t bytes,
					  uint32_t qd, uint32_t n)
{
	struct device_curve_opts o = { .write = write, .bytes = bytes, .qd = qd, .nreq = n,
				       .seed = 5 };
	struct device_curve_result r;
	struct sim_error err = { 0 };
	if (device_curve_measure(cfg_root(doc), &o, &r, &err))
		fail_msg("%s", err.msg);
	return r;
}

/* Every preset in configs/devices: a link, and both bounds at QD1 and QD32
 * from 4 KiB to 1 MiB, reads and writes. */
static void test_every_preset_stays_under_its_link(void **state)
{
	(void)state;
	const char *src = getenv("MOBISIM_SRC");
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/configs/devices", src ? src : ".");
	DIR *d = opendir(dir);
	assert_non_null(d);
	int presets = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0)
			continue;
		char path[4400];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct cfg_doc *doc = load(path);
		presets++;
		for (int w = 0; w < 2; w++)
			for (uint64_t kib = 4; kib <= 1024; kib *= 4)
				for (uint32_t qd = 1; qd <= 32; qd *= 32) {
					uint64_t bytes = kib << 10;
					struct device_curve_result r =
						measure(doc, w, bytes, qd, kib >= 256 ? 128 : 512);
					if (r.link_bps == 0)
						fail_msg("%s: no host link", e->d_name);
					double link_mbps = (double)r.link_bps / 1e6;
					if (r.mbps > link_mbps * (1 + 1e-9))
						fail_msg("%s: %s %llu KiB QD%u: %.1f MB/s above its link's %.1f MB/s",
							 e->d_name, w ? "write" : "read",
							 (unsigned long long)kib, qd, r.mbps, link_mbps);
					double floor_us = (double)bytes / (double)r.link_bps * 1e6;
					if (r.min_lat_us < floor_us - 0.001)
						fail_msg("%s: %s %llu KiB QD%u: a command took %.3f us, its bytes need %.3f us on the link",
							 e->d_name, w ? "write" : "read",
							 (unsigned long long)kib, qd, r.min_lat_us, floor_us);
				}
		cfg_free(doc);
	}
	closedir(d);
	assert_true(presets >= 8);
}

/* PCIe 3.0: 8 GT/s with 128b/130b = 984.6 MB/s per lane; SATA 6 Gb/s with
 * 8b/10b = 600 MB/s; eMMC HS400 400 MB/s; UFS HS-G4 rate B x2 = 2332 MB/s. */
static void test_link_rates(void **state)
{
	(void)state;
	assert_float_equal(device_link_rate("pcie_g3", 4), 4 * 8e9 * 128 / 130 / 8, 1);
	assert_float_equal(device_link_rate("pcie_g3", 4) / 1e6, 3938.46, 0.01);
	assert_float_equal(device_link_rate("pcie_g4", 1) / 1e6, 1969.23, 0.01);
	assert_float_equal(device_link_rate("sata3", 1), 600e6, 1);
	assert_float_equal(device_link_rate("emmc_hs400", 1), 400e6, 1);
	assert_float_equal(device_link_rate("ufs_hs_g4", 2) / 1e6, 2332.16, 0.01);
	assert_float_equal(device_link_rate("warp", 1), 0, 0);
}

/* An ideal device of 32 instant servers behind SATA 6 Gb/s: the link alone
 * sets the rate; a single 1 MiB command takes at least its 1.748 ms. */
static void test_core_bound_on_ideal(void **state)
{
	(void)state;
	struct cfg_doc *doc = load_string("model: ideal\nservice: fixed\nmean_us: 0.001\n"
					  "servers: 32\nqueue_depth: 32\nlink: sata3\n");
	struct device_curve_result r = measure(doc, false, 1 << 20, 32, 256);
	assert_float_equal(r.mbps, 600.0, 0.5);
	assert_true(r.min_lat_us >= 1048576.0 / 600e6 * 1e6 - 0.001);
	cfg_free(doc);
}

/* Full duplex: PCIe carries reads and writes at once, so a mixed stream
 * could reach twice one direction; half duplex (SATA) cannot. Checked on
 * the bound's bookkeeping directly. */
static int done_count;
static void on_done(void *upper, struct io_request *rq)
{
	(void)upper;
	(void)rq;
	done_count++;
}

static int64_t mixed_span(const char *yaml)
{
	struct cfg_doc *doc = load_string(yaml);
	struct sim *sim = sim_new_bare(1);
	struct device *dev;
	struct sim_error err = { 0 };
	if (device_create(sim, cfg_root(doc), &dev, &err))
		fail_msg("%s", err.msg);
	dev->on_complete = on_done;
	struct io_request rq[2];
	memset(rq, 0, sizeof(rq));
	done_count = 0;
	for (int i = 0; i < 2; i++) {
		list_init(&rq[i].queuelist);
		list_init(&rq[i].hash);
		list_init(&rq[i].dev_node);
		rq[i].id = (uint64_t)i + 1;
		rq[i].sector = (uint64_t)i * 4096;
		rq[i].nr_sectors = 2048; /* 1 MiB */
		rq[i].nr_segments = 1;
		rq[i].flags = i ? REQ_WRITE : 0;
		device_submit(dev, &rq[i]);
	}
	sim_engine_run(&sim->engine, SIM_TIME_MAX);
	assert_int_equal(done_count, 2);
	int64_t span = rq[0].t_complete > rq[1].t_complete ? rq[0].t_complete : rq[1].t_complete;
	device_destroy(dev);
	sim_destroy(sim);
	cfg_free(doc);
	return span;
}

static void test_duplex(void **state)
{
	(void)state;
	const char *pcie = "model: ideal\nservice: fixed\nmean_us: 0.001\nservers: 2\n"
			   "link: pcie_g1\n"; /* 250 MB/s: 1 MiB = 4194.304 us */
	const char *sata = "model: ideal\nservice: fixed\nmean_us: 0.001\nservers: 2\n"
			   "link: sata1\n"; /* 150 MB/s: 1 MiB = 6990.507 us */
	assert_int_equal(mixed_span(pcie), 4194304);
	assert_int_equal(mixed_span(sata), 2 * 6990507);
}

/* link: none (the ideal model's default) leaves the M/M/1 reference as it
 * was: a 4 KiB command at 100 us fixed service completes in 100 us. */
static void test_no_link_leaves_ideal_alone(void **state)
{
	(void)state;
	struct cfg_doc *doc = load_string("model: ideal\nservice: fixed\nmean_us: 1\nservers: 1\n");
	struct device_curve_result r = measure(doc, false, 1 << 20, 1, 64);
	assert_int_equal(r.link_bps, 0);
	assert_float_equal(r.min_lat_us, 1.0, 1e-9);
	cfg_free(doc);
}

static void test_bad_lanes(void **state)
{
	(void)state;
	struct cfg_doc *doc = load_string("model: ideal\nlink: sata3\nlanes: 4\n");
	struct sim *sim = sim_new_bare(1);
	struct device *dev = NULL;
	struct sim_error err = { 0 };
	assert_int_equal(device_create(sim, cfg_root(doc), &dev, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "dev.yaml:3:"));
	assert_non_null(strstr(err.msg, "at most 1 lane"));
	sim_destroy(sim);
	cfg_free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_rates),
		cmocka_unit_test(test_core_bound_on_ideal),
		cmocka_unit_test(test_duplex),
		cmocka_unit_test(test_no_link_leaves_ideal_alone),
		cmocka_unit_test(test_bad_lanes),
		cmocka_unit_test(test_every_preset_stays_under_its_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
