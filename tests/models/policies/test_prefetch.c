/* Tests of the FAST prefetcher: the launch-sequence optimiser
 * (models/launch/pfplan.c), launch profiles and the LBA-to-extent tree
 * (models/launch/launchprof.c), and the prefetch policy end to end: it shortens
 * a launch whose CPU work can overlap its I/O, does no harm to an
 * I/O-only launch, and its pages are the ones the app touches; the user
 * and kernel levels (models/launch/pflevel.c) cost what they say.
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
#include <jansson.h>

#include "models/launch/launchprof.h"
#include "models/launch/pflevel.h"
#include "models/launch/pfplan.h"
#include "models/stack/stack.h"
#include "sim/config.h"
#include "sim/sim.h"

#define NONE UINT64_MAX

static struct pfplan_ext D(uint64_t lba, uint64_t sectors, uint64_t dep)
{
	return (struct pfplan_ext){ .lba = lba, .sectors = sectors, .kind = PFPLAN_DATA, .dep_lba = dep };
}

static struct pfplan_ext M(uint64_t lba, uint64_t sectors)
{
	return (struct pfplan_ext){ .lba = lba, .sectors = sectors, .kind = PFPLAN_META, .dep_lba = NONE };
}

static void test_prefetch_plan_sorts_and_merges(void **state)
{
	(void)state;
	/* issue order is not LBA order; [100,108) and [108,116) touch,
	 * [200,216) and [208,224) overlap, 500 stands alone */
	struct pfplan_ext in[] = { D(500, 8, NONE), D(108, 8, NONE), D(208, 16, NONE),
				   D(100, 8, NONE), D(200, 16, NONE) };
	struct pfplan_opts o = { .gap_sectors = 0, .max_sectors = 1024, .shift_meta = true };
	struct pfplan_ext *out;
	size_t n;
	struct pfplan_stats st;
	assert_int_equal(pfplan_build(in, 5, &o, &out, &n, &st), 0);
	assert_int_equal(n, 3);
	assert_int_equal(out[0].lba, 100);
	assert_int_equal(out[0].sectors, 16);
	assert_int_equal(out[0].nsrc, 2);
	assert_int_equal(out[1].lba, 200);
	assert_int_equal(out[1].sectors, 24);
	assert_int_equal(out[2].lba, 500);
	assert_int_equal(st.merges, 2);
	assert_int_equal(st.gap_fills, 0);
	assert_int_equal(st.out_sectors, 48);
	free(out);
	/* the merge limit: touching 600 + 600 with max 1024 stay apart */
	struct pfplan_ext big[] = { D(0, 600, NONE), D(600, 600, NONE) };
	assert_int_equal(pfplan_build(big, 2, &o, &out, &n, &st), 0);
	assert_int_equal(n, 2);
	free(out);
}

static void test_prefetch_gap_filling_respects_threshold(void **state)
{
	(void)state;
	/* holes of 64 and 72 sectors; threshold 64 sectors (32 KiB) */
	struct pfplan_ext in[] = { D(0, 8, NONE), D(72, 8, NONE), D(152, 8, NONE) };
	struct pfplan_opts o = { .gap_sectors = 64, .max_sectors = 1024, .shift_meta = true };
	struct pfplan_ext *out;
	size_t n;
	struct pfplan_stats st;
	assert_int_equal(pfplan_build(in, 3, &o, &out, &n, &st), 0);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].lba, 0);
	assert_int_equal(out[0].sectors, 80); /* 64-sector hole filled */
	assert_int_equal(out[0].filled, 64);
	assert_int_equal(out[1].lba, 152);    /* 72 > 64: not filled */
	assert_int_equal(st.gap_fills, 1);
	assert_int_equal(st.filled_sectors, 64);
	free(out);
	/* threshold 0: nothing filled; threshold 72: everything */
	o.gap_sectors = 0;
	assert_int_equal(pfplan_build(in, 3, &o, &out, &n, &st), 0);
	assert_int_equal(n, 3);
	free(out);
	o.gap_sectors = 72;
	assert_int_equal(pfplan_build(in, 3, &o, &out, &n, &st), 0);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].sectors, 160);
	free(out);
	/* the size limit wins over a small hole */
	o.gap_sectors = 64;
	o.max_sectors = 40;
	assert_int_equal(pfplan_build(in, 3, &o, &out, &n, &st), 0);
	assert_int_equal(n, 3);
	free(out);
}

static size_t pos_of(const struct pfplan_ext *e, size_t n, uint64_t lba, uint8_t kind)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].kind == kind && e[i].lba <= lba && lba < e[i].lba + e[i].sectors)
			return i;
	fail_msg("lba %llu not in plan", (unsigned long long)lba);
	return 0;
}

static void test_prefetch_metadata_shifted_before_dependents(void **state)
{
	(void)state;
	/* inode block at 9000 locates data at 100 and 5000; the inode block
	 * at 9008 locates data at 6000; data at 50 depends on nothing. In LBA
	 * order the metadata would come last. Metadata never merges with
	 * data, even touching. */
	struct pfplan_ext in[] = { D(5000, 8, 9000), M(9000, 8), D(50, 8, NONE), D(100, 8, 9000),
				   D(6000, 8, 9016), M(9016, 8), D(9024, 8, NONE) };
	struct pfplan_opts o = { .gap_sectors = 0, .max_sectors = 1024, .shift_meta = true };
	struct pfplan_ext *out;
	size_t n;
	struct pfplan_stats st;
	assert_int_equal(pfplan_build(in, 7, &o, &out, &n, &st), 0);
	assert_int_equal(n, 7);
	size_t m1 = pos_of(out, n, 9000, PFPLAN_META), m2 = pos_of(out, n, 9016, PFPLAN_META);
	assert_true(m1 < pos_of(out, n, 100, PFPLAN_DATA));
	assert_true(m1 < pos_of(out, n, 5000, PFPLAN_DATA));
	assert_true(m1 > pos_of(out, n, 50, PFPLAN_DATA)); /* just before its first dependent */
	assert_true(m2 < pos_of(out, n, 6000, PFPLAN_DATA));
	assert_true(m2 > pos_of(out, n, 5000, PFPLAN_DATA));
	assert_true(out[m1].shifted && out[m2].shifted);
	assert_int_equal(st.meta_shifted, 2);
	/* data otherwise stays in LBA order */
	uint64_t last = 0;
	for (size_t i = 0; i < n; i++)
		if (out[i].kind == PFPLAN_DATA) {
			assert_true(out[i].lba >= last);
			last = out[i].lba;
		}
	free(out);
	/* off: pure LBA order, metadata after the data it locates */
	o.shift_meta = false;
	assert_int_equal(pfplan_build(in, 7, &o, &out, &n, &st), 0);
	assert_true(pos_of(out, n, 9000, PFPLAN_META) > pos_of(out, n, 5000, PFPLAN_DATA));
	assert_int_equal(st.meta_shifted, 0);
	free(out);
	/* metadata already earlier than its data is not moved */
	struct pfplan_ext early[] = { M(10, 8), D(100, 8, 10) };
	o.shift_meta = true;
	assert_int_equal(pfplan_build(early, 2, &o, &out, &n, &st), 0);
	assert_int_equal(out[0].kind, PFPLAN_META);
	assert_int_equal(st.meta_shifted, 0);
	free(out);
}

/* --------------------------------------------------- sim-based tests */

static struct sim *make_sim(const char *yaml)
{
	struct cfg_doc *doc;
	struct sim_error err;
	struct sim *sim;
	if (cfg_load_string(yaml, strlen(yaml), "pf.yaml", &doc, &err))
		fail_msg("%s", err.msg);
	struct sim_options opt = { .seed = 1, .quiet = true };
	if (sim_create(doc, "pf.yaml", &opt, &sim, &err))
		fail_msg("%s", err.msg);
	return sim;
}

static const char *DEV =
	"{model: flash, link: emmc_hs200, channels: 1, dies: 2, planes: 2, page_kib: 16, "
	"read_us: 60, channel_mbps: 85.19, cmd_read_us: 294.16, prog_us: 3985.89, cmd_write_us: 100, "
	"rand_write_us: 5377.51, flush_us: 200, wbuf_kib: 512, write_cache: true, cmdq: false}";

static void test_prefetch_lba_tree_maps_back_to_file_offsets(void **state)
{
	(void)state;
	char yaml[2048];
	snprintf(yaml, sizeof(yaml),
		 "device: %s\nfs: {extent_mean_bytes: 64KiB, gap_mean_bytes: 64KiB}\n"
		 "workload: {type: synthetic, tasks: {app: {gen: launch, bytes: 2MiB, files: 3}}}\n",
		 DEV);
	struct sim *sim = make_sim(yaml);
	struct stack_file *f = stack_file_find(sim->stack, "app/ws1");
	struct stack_file *bdev = stack_file_find(sim->stack, "(bdev)");
	assert_non_null(f);
	assert_non_null(bdev);
	assert_true(stack_file_extent_count(f) >= 2);
	struct lprof_map map;
	lprof_map_init(&map);
	assert_int_equal(lprof_map_add_file(&map, f), 0);
	assert_int_equal(lprof_map_add_file(&map, f), 0); /* once per file */
	assert_int_equal(map.nodes, stack_file_extent_count(f));
	/* every page of the file maps back to itself */
	for (uint64_t off = 0; off < stack_file_size(f); off += 4096) {
		struct stack_file *g;
		uint64_t o, run, next;
		assert_true(lprof_map_lookup(&map, stack_file_lba(f, off), &g, &o, &run, &next));
		assert_ptr_equal(g, f);
		assert_int_equal(o, off);
		assert_true(run >= 8);
	}
	/* a request spanning the end of extent 0, the hole and the start of
	 * extent 1 gives three pieces: file, block device, file */
	uint64_t p0, l0, n0, p1, l1, n1;
	stack_file_extent(f, 0, &p0, &l0, &n0);
	stack_file_extent(f, 1, &p1, &l1, &n1);
	if (l1 > l0 + n0 * 8) {
		struct lprof prof = { 0 };
		struct lprof_app *a = lprof_app_get(&prof, "app");
		uint64_t start = l0 + n0 * 8 - 8, end = l1 + 8;
		assert_int_equal(lprof_record_request(a, &map, bdev, start, end - start, false), 0);
		assert_int_equal(a->n, 3);
		assert_ptr_equal(a->p[0].file, f);
		assert_int_equal(a->p[0].off, (p0 + n0 - 1) * 4096);
		assert_ptr_equal(a->p[1].file, bdev);
		assert_int_equal(a->p[1].off, (l0 + n0 * 8) * 512);
		assert_ptr_equal(a->p[2].file, f);
		assert_int_equal(a->p[2].off, p1 * 4096);
		assert_int_equal(a->nreq, 1);
		/* metadata requests go to the block device as metadata */
		assert_int_equal(lprof_record_request(a, &map, bdev, 64, 8, true), 0);
		assert_int_equal(a->p[3].kind, LPROF_META);
		assert_int_equal(a->nreq, 2);

		/* save and load back; lba recomputed from the layout */
		char path[128];
		snprintf(path, sizeof(path), "/tmp/mobisim-pf-rt-%d.prof", (int)getpid());
		struct sim_error err;
		assert_int_equal(lprof_save(&prof, path, &err), 0);
		struct lprof back = { 0 };
		assert_int_equal(lprof_load(&back, path, sim->stack, &err), 0);
		const struct lprof_app *b = lprof_find(&back, "app");
		assert_non_null(b);
		assert_int_equal(b->n, a->n);
		for (size_t i = 0; i < a->n; i++) {
			assert_ptr_equal(b->p[i].file, a->p[i].file);
			assert_int_equal(b->p[i].off, a->p[i].off);
			assert_int_equal(b->p[i].len, a->p[i].len);
			assert_int_equal(b->p[i].lba, a->p[i].lba);
			assert_int_equal(b->p[i].kind, a->p[i].kind);
		}
		lprof_free(&back);
		/* a file this scenario lacks: an app that does not launch here is
		 * fine (a larger recording), one that launches is refused, naming
		 * path:line */
		FILE *fp = fopen(path, "a");
		fprintf(fp, "other\t0\tdata\tother/ws0\t0\t4096\t0\n");
		fprintf(fp, "app\t9\tdata\tno/such/file\t0\t4096\t0\n");
		fclose(fp);
		struct lprof bad = { 0 };
		assert_int_equal(lprof_load(&bad, path, sim->stack, &err), 0);
		assert_int_equal(lprof_find(&bad, "other")->n, 0);
		assert_int_equal(lprof_find(&bad, "app")->n, a->n);
		assert_int_equal(lprof_check_app(lprof_find(&bad, "app"), path, &err), SIM_E_INPUT);
		char want[160];
		snprintf(want, sizeof(want), "%s:8:", path);
		assert_non_null(strstr(err.msg, want));
		assert_non_null(strstr(err.msg, "no/such/file"));
		lprof_free(&bad);
		/* a malformed line is refused at load */
		fp = fopen(path, "a");
		fprintf(fp, "app\t9\tdata\tapp/ws1\tx\t4096\t0\n");
		fclose(fp);
		assert_int_equal(lprof_load(&bad, path, sim->stack, &err), SIM_E_INPUT);
		snprintf(want, sizeof(want), "%s:9:", path);
		assert_non_null(strstr(err.msg, want));
		lprof_free(&bad);
		unlink(path);
		lprof_free(&prof);
	}
	lprof_map_free(&map);
	sim_destroy(sim);
}

struct launch_result {
	double launch_ms;
	double hit_ratio, miss_ratio;
	int64_t prefetch_requests;
};

/* Run the one-launch scenario yaml: the launch's duration and what the
 * prefetcher (if any) reports. */
static struct launch_result launch_result_of(const char *yaml)
{
	struct sim *sim = make_sim(yaml);
	struct sim_error err;
	if (sim_run(sim, &err))
		fail_msg("%s", err.msg);
	json_t *r = sim_result_json(sim);
	struct launch_result out = { 0 };
	json_t *reg = json_array_get(json_object_get(r, "regions"), 0);
	assert_non_null(reg);
	out.launch_ms = (double)json_integer_value(json_object_get(reg, "duration_ns")) / 1e6;
	json_t *pf = json_object_get(json_object_get(r, "policies"), "prefetch");
	if (pf) {
		out.hit_ratio = json_number_value(json_object_get(pf, "hit_ratio"));
		out.miss_ratio = json_number_value(json_object_get(pf, "miss_ratio"));
		json_t *a = json_array_get(json_object_get(pf, "apps"), 0);
		out.prefetch_requests = json_integer_value(json_object_get(a, "prefetch_requests"));
	}
	json_decref(r);
	sim_destroy(sim);
	return out;
}

/* A profile path under /tmp for this test (tag) and process, and the
 * policy lines that record it (rp) and replay it (pp). */
static void pf_profile(const char *tag, char prof[128], char rp[256], char pp[256])
{
	snprintf(prof, 128, "/tmp/mobisim-pf-%s-%d.prof", tag, (int)getpid());
	snprintf(rp, 256, "policies: [prefetch]\nprefetch: {mode: record, profile: %s}\n", prof);
	snprintf(pp, 256, "policies: [prefetch]\nprefetch: {mode: replay, profile: %s}\n", prof);
}

static struct launch_result run_launch_var(const char *policy, int64_t cpu_ms, double variation,
					   int launch_no)
{
	char yaml[4096];
	snprintf(yaml, sizeof(yaml),
		 "seed: 2\ndevice: %s\nscheduler: cfq\n"
		 "memory: {total_bytes: 1GiB, reserved_bytes: 512MiB}\n"
		 "%s"
		 "fg: 10050\n"
		 "workload:\n  type: synthetic\n  tasks:\n"
		 "    app: {gen: launch, uid: 10050, become_fg: true, region: launch, bytes: 3MiB,"
		 " files: 6, file_coverage: 0.4, run_bytes: 16KiB, fault_fraction: 0.6,"
		 " cpu_total: %lldms, variation: %g, launch_no: %d}\n",
		 DEV, policy, (long long)cpu_ms, variation, launch_no);
	return launch_result_of(yaml);
}

static struct launch_result run_launch(const char *policy, int64_t cpu_ms, const char *prof)
{
	(void)prof;
	return run_launch_var(policy, cpu_ms, 0, 1);
}

static void launch_pair(int64_t cpu_ms, struct launch_result *base, struct launch_result *rec,
			struct launch_result *pf)
{
	char tag[32], prof[128], rp[256], pp[256];
	snprintf(tag, sizeof(tag), "%lld", (long long)cpu_ms);
	pf_profile(tag, prof, rp, pp);
	*base = run_launch("", cpu_ms, prof);
	*rec = run_launch(rp, cpu_ms, prof);
	*pf = run_launch(pp, cpu_ms, prof);
	unlink(prof);
}

static void test_prefetch_overlaps_cpu_and_io(void **state)
{
	(void)state;
	struct launch_result base, rec, pf;
	launch_pair(150, &base, &rec, &pf);
	/* recording observes without perturbing */
	assert_true(rec.launch_ms == base.launch_ms);
	/* the launch tends to max(t_io, t_cpu): clearly shorter, never below
	 * its CPU time */
	assert_true(pf.launch_ms < 0.85 * base.launch_ms);
	assert_true(pf.launch_ms >= 100.0);
	assert_true(pf.prefetch_requests > 0);
	/* the same launch replayed: every touched page was prefetched */
	assert_true(pf.hit_ratio > 0.99);
	assert_true(pf.miss_ratio < 0.01);
}

static void test_prefetch_harmless_when_io_only(void **state)
{
	(void)state;
	struct launch_result base, rec, pf;
	launch_pair(0, &base, &rec, &pf);
	/* nothing to overlap: the prefetcher only reorders and merges the
	 * same reads, so the launch is not longer (5 % slack for CFQ turns
	 * between the app's and the prefetcher's queues) */
	assert_true(pf.launch_ms <= 1.05 * base.launch_ms);
	assert_true(pf.hit_ratio > 0.99);
}

/* A later launch that differs a little from the recorded one: the pages
 * it touches elsewhere are misses, the rest still hits; without variation
 * the launch number changes nothing. */
static void test_prefetch_misses_when_the_launch_varies(void **state)
{
	(void)state;
	char prof[128], rp[256], pp[256];
	pf_profile("var", prof, rp, pp);
	struct launch_result a = run_launch_var("", 50, 0, 1), b = run_launch_var("", 50, 0, 7);
	assert_true(a.launch_ms == b.launch_ms);
	(void)run_launch_var(rp, 50, 0.1, 1);
	struct launch_result same = run_launch_var(pp, 50, 0.1, 1);
	struct launch_result other = run_launch_var(pp, 50, 0.1, 2);
	assert_true(same.hit_ratio > 0.99);
	assert_true(other.miss_ratio > 0.01);
	assert_true(other.hit_ratio > 0.7);
	assert_true(other.hit_ratio < same.hit_ratio);
	unlink(prof);
}

/* A launch in a run with seed `seed`; app_seed > 0 fixes the app (its files
 * and what it touches) whatever the run's seed. Small extents, so that the
 * file system's placement, which follows the run's seed, splits the files
 * differently in each run. */
static struct launch_result run_launch_seed(const char *policy, int seed, int app_seed)
{
	char yaml[4096];
	snprintf(yaml, sizeof(yaml),
		 "seed: %d\ndevice: %s\nscheduler: cfq\n"
		 "memory: {total_bytes: 1GiB, reserved_bytes: 512MiB}\n"
		 "fs: {extent_mean_bytes: 32KiB, gap_mean_bytes: 64KiB}\n"
		 "%s"
		 "fg: 10050\n"
		 "workload:\n  type: synthetic\n  tasks:\n"
		 "    app: {gen: launch, app_seed: %d, uid: 10050, become_fg: true, region: launch,"
		 " bytes: 3MiB, files: 6, file_coverage: 0.4, run_bytes: 16KiB, fault_fraction: 0.6,"
		 " cpu_total: 150ms}\n",
		 seed, DEV, policy, app_seed);
	return launch_result_of(yaml);
}

/* FAST profiles a launch once and replays it on later launches, in which the
 * app reads the same blocks. With app_seed the app is the same in runs with
 * other seeds, so a profile recorded with seed 2 replays with seed 9 without
 * a miss, although the file system placed the files elsewhere (the profile's
 * (file, offset) pieces are re-split at the new extents); without it each
 * seed is another app and the profile misses. */
static void test_prefetch_profile_applies_to_other_seeds(void **state)
{
	(void)state;
	char prof[128], rp[256], pp[256];
	pf_profile("seed", prof, rp, pp);

	/* the placement differs between the seeds, the app does not */
#define SEED_YAML                                                                                  \
	"seed: %d\ndevice: %s\nfs: {extent_mean_bytes: 32KiB, gap_mean_bytes: 64KiB}\n"            \
	"workload: {type: synthetic, tasks: {app: {gen: launch, app_seed: %d, bytes: 3MiB,"        \
	" files: 6, file_coverage: 0.4}}}\n"
	char y2[2048], y9[2048], y9own[2048];
	snprintf(y2, sizeof(y2), SEED_YAML, 2, DEV, 1);
	snprintf(y9, sizeof(y9), SEED_YAML, 9, DEV, 1);
	snprintf(y9own, sizeof(y9own), SEED_YAML, 9, DEV, 0);
#undef SEED_YAML
	struct sim *s2 = make_sim(y2), *s9 = make_sim(y9), *s9own = make_sim(y9own);
	bool moved = false, resized = false;
	for (int i = 0; i < 6; i++) {
		char name[32];
		snprintf(name, sizeof(name), "app/ws%d", i);
		struct stack_file *a = stack_file_find(s2->stack, name), *b = stack_file_find(s9->stack, name);
		struct stack_file *c = stack_file_find(s9own->stack, name);
		assert_non_null(a);
		assert_non_null(b);
		assert_non_null(c);
		assert_int_equal(stack_file_size(a), stack_file_size(b));
		resized |= stack_file_size(a) != stack_file_size(c);
		for (uint64_t off = 0; off < stack_file_size(a); off += 4096)
			moved |= stack_file_lba(a, off) != stack_file_lba(b, off);
	}
	assert_true(moved);
	assert_true(resized);
	sim_destroy(s2);
	sim_destroy(s9);
	sim_destroy(s9own);
	/* fs.layout_seed: the same placement whatever the run's seed */
#define FIXED_YAML                                                                                 \
	"seed: %d\ndevice: %s\n"                                                                    \
	"fs: {extent_mean_bytes: 32KiB, gap_mean_bytes: 64KiB, layout_seed: 1}\n"                  \
	"workload: {type: synthetic, tasks: {app: {gen: launch, app_seed: 1, bytes: 3MiB,"         \
	" files: 6, file_coverage: 0.4}}}\n"
	char f2[2048], f9[2048];
	snprintf(f2, sizeof(f2), FIXED_YAML, 2, DEV);
	snprintf(f9, sizeof(f9), FIXED_YAML, 9, DEV);
#undef FIXED_YAML
	s2 = make_sim(f2);
	s9 = make_sim(f9);
	struct stack_file *a = stack_file_find(s2->stack, "app/ws3"), *b = stack_file_find(s9->stack, "app/ws3");
	assert_non_null(a);
	assert_non_null(b);
	for (uint64_t off = 0; off < stack_file_size(a); off += 4096)
		assert_int_equal(stack_file_lba(a, off), stack_file_lba(b, off));
	sim_destroy(s2);
	sim_destroy(s9);

	(void)run_launch_seed(rp, 2, 1);
	struct launch_result cold = run_launch_seed("", 9, 1);
	struct launch_result other = run_launch_seed(pp, 9, 1);
	assert_true(other.hit_ratio > 0.999);
	assert_true(other.miss_ratio < 0.001);
	assert_true(other.launch_ms < cold.launch_ms * 0.95);
	/* the run's seed draws the app: another seed's profile misses */
	(void)run_launch_seed(rp, 2, 0);
	struct launch_result own = run_launch_seed(pp, 9, 0);
	assert_true(own.miss_ratio > 0.05);
	unlink(prof);
}

/* N apps launched together (workload copies), each recorded and each with
 * its own prefetcher; more apps than the profile's first allocation. */
static void test_prefetch_many_apps_launched_together(void **state)
{
	(void)state;
	char prof[128], yaml[4096];
	snprintf(prof, sizeof(prof), "/tmp/mobisim-pf-many-%d.prof", (int)getpid());
	struct lprof stable = { 0 };
	struct lprof_app *first = lprof_app_get(&stable, "a0");
	for (int i = 1; i < 40; i++) {
		char nm[8];
		snprintf(nm, sizeof(nm), "a%d", i);
		assert_non_null(lprof_app_get(&stable, nm));
	}
	assert_ptr_equal(lprof_app_get(&stable, "a0"), first); /* pointers stay valid */
	lprof_free(&stable);
	for (int mode = 0; mode < 2; mode++) {
		snprintf(yaml, sizeof(yaml),
			 "seed: 4\ndevice: %s\nscheduler: cfq\ncpu: {cores: 4}\n"
			 "memory: {total_bytes: 1GiB, reserved_bytes: 256MiB}\n"
			 "policies: [prefetch]\nprefetch: {mode: %s, profile: %s}\n"
			 "workload: {type: synthetic, tasks: {app: {gen: launch, copies: 12, uid: 1000,"
			 " region: launch, bytes: 512KiB, files: 3, cpu_total: 20ms}}}\n",
			 DEV, mode ? "replay" : "record", prof);
		struct sim *sim = make_sim(yaml);
		struct sim_error err;
		if (sim_run(sim, &err))
			fail_msg("%s", err.msg);
		json_t *r = sim_result_json(sim);
		assert_int_equal(json_array_size(json_object_get(r, "regions")), 12);
		json_t *pf = json_object_get(json_object_get(r, "policies"), "prefetch");
		json_t *apps = json_object_get(pf, "apps");
		assert_int_equal(json_array_size(apps), 12);
		for (size_t i = 0; i < 12; i++) {
			json_t *a = json_array_get(apps, i);
			char want[16];
			snprintf(want, sizeof(want), "app%02zu", i + 1);
			assert_string_equal(json_string_value(json_object_get(a, "app")), want);
			if (mode == 0)
				assert_true(json_integer_value(json_object_get(a, "recorded_requests")) > 0);
			else
				assert_true(json_number_value(json_object_get(a, "hit_ratio")) > 0.99);
		}
		json_decref(r);
		sim_destroy(sim);
	}
	unlink(prof);
}

/* The issue costs of the two levels (models/launch/pflevel.c). */
static void test_prefetch_level_costs(void **state)
{
	(void)state;
	struct pflevel_costs c = { .spawn_ns = 500000, .syscall_ns = 1000, .page_probe_ns = 100,
				   .open_ns = 5000 };
	assert_int_equal(pflevel_extent_ns(PFLEVEL_USER, &c, 32), 1000 + 32 * 100);
	assert_int_equal(pflevel_extent_ns(PFLEVEL_KERNEL, &c, 32), 0);
	assert_int_equal(pflevel_open_ns(PFLEVEL_USER, &c), 5000);
	assert_int_equal(pflevel_open_ns(PFLEVEL_KERNEL, &c), 0);
	assert_true(pflevel_opens_files(PFLEVEL_USER));
	assert_false(pflevel_opens_files(PFLEVEL_KERNEL));
	assert_int_equal(pflevel_start_delay_ns(PFLEVEL_USER, &c), 500000);
	assert_int_equal(pflevel_start_delay_ns(PFLEVEL_KERNEL, &c), 0);
	assert_int_equal(pflevel_extent_calls(PFLEVEL_USER), 1);
	assert_int_equal(pflevel_open_calls(PFLEVEL_USER), 2);
	assert_int_equal(pflevel_extent_calls(PFLEVEL_KERNEL) + pflevel_open_calls(PFLEVEL_KERNEL), 0);
}

/* The same profile replayed at both levels: the user-level prefetcher
 * makes a system call per extent and two per file, spends CPU on them and
 * starts spawn_us late; the kernel one makes none, opens nothing, starts at
 * the launch, and is done issuing earlier. Both cover the launch. */
static void test_prefetch_user_and_kernel_levels(void **state)
{
	(void)state;
	char prof[128], rp[256], pp[256];
	pf_profile("level", prof, rp, pp);
	(void)run_launch_var(rp, 50, 0, 1);
	json_t *st[2];
	for (int k = 0; k < 2; k++) {
		char yaml[4096];
		snprintf(yaml, sizeof(yaml),
			 "seed: 2\ndevice: %s\nscheduler: cfq\n"
			 "memory: {total_bytes: 1GiB, reserved_bytes: 512MiB}\n"
			 "policies: [prefetch]\nprefetch: {mode: replay, profile: %s, level: %s,"
			 " spawn_us: 2ms, syscall_us: 20us}\n"
			 "fg: 10050\n"
			 "workload:\n  type: synthetic\n  tasks:\n"
			 "    app: {gen: launch, uid: 10050, become_fg: true, region: launch, bytes: 3MiB,"
			 " files: 6, file_coverage: 0.4, run_bytes: 16KiB, fault_fraction: 0.6,"
			 " cpu_total: 50ms}\n",
			 DEV, prof, k ? "kernel" : "user");
		struct sim *sim = make_sim(yaml);
		struct sim_error err;
		if (sim_run(sim, &err))
			fail_msg("%s", err.msg);
		json_t *r = sim_result_json(sim);
		st[k] = json_incref(json_object_get(json_object_get(r, "policies"), "prefetch"));
		json_decref(r);
		sim_destroy(sim);
	}
	json_t *u = json_array_get(json_object_get(st[0], "apps"), 0);
	json_t *kn = json_array_get(json_object_get(st[1], "apps"), 0);
	assert_string_equal(json_string_value(json_object_get(st[0], "level")), "user");
	assert_string_equal(json_string_value(json_object_get(st[1], "level")), "kernel");
	int64_t ext = json_integer_value(json_object_get(json_object_get(u, "plan"), "extents"));
	int64_t files = json_integer_value(json_object_get(u, "prefetch_files_opened"));
	assert_true(files >= 1 && files <= 6);
	/* a plan extent spanning several files is one fadvise per file run */
	int64_t fadvises = json_integer_value(json_object_get(u, "prefetch_syscalls")) - 2 * files;
	assert_true(fadvises >= ext);
	assert_true(json_integer_value(json_object_get(u, "prefetch_cpu_ns")) >= fadvises * 20000);
	assert_int_equal(json_integer_value(json_object_get(u, "prefetch_start_delay_ns")), 2000000);
	assert_int_equal(json_integer_value(json_object_get(kn, "prefetch_syscalls")), 0);
	assert_int_equal(json_integer_value(json_object_get(kn, "prefetch_files_opened")), 0);
	assert_int_equal(json_integer_value(json_object_get(kn, "prefetch_cpu_ns")), 0);
	assert_int_equal(json_integer_value(json_object_get(kn, "prefetch_start_delay_ns")), 0);
	assert_true(json_integer_value(json_object_get(kn, "prefetch_ns")) <
		    json_integer_value(json_object_get(u, "prefetch_ns")));
	assert_true(json_number_value(json_object_get(u, "hit_ratio")) > 0.99);
	assert_true(json_number_value(json_object_get(kn, "hit_ratio")) > 0.99);
	json_decref(st[0]);
	json_decref(st[1]);
	unlink(prof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefetch_plan_sorts_and_merges),
		cmocka_unit_test(test_prefetch_gap_filling_respects_threshold),
		cmocka_unit_test(test_prefetch_metadata_shifted_before_dependents),
		cmocka_unit_test(test_prefetch_lba_tree_maps_back_to_file_offsets),
		cmocka_unit_test(test_prefetch_overlaps_cpu_and_io),
		cmocka_unit_test(test_prefetch_harmless_when_io_only),
		cmocka_unit_test(test_prefetch_many_apps_launched_together),
		cmocka_unit_test(test_prefetch_misses_when_the_launch_varies),
		cmocka_unit_test(test_prefetch_profile_applies_to_other_seeds),
		cmocka_unit_test(test_prefetch_level_costs),
		cmocka_unit_test(test_prefetch_user_and_kernel_levels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
