/* Tests of the I/O padding planner (models/launch/padplan.c) and the padding
 * policy (models/policies/padding.c): the DP against brute force over
 * every segmentation, the paper's O(n^3) form against the 1-D form,
 * reorder/merge correctness, and end to end on a simulated launch:
 * padding never loads slower than merging alone on the curve it planned
 * on, and it enlarges the average request.
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

#include "models/device/device.h"
#include "models/launch/padplan.h"
#include "models/policies/policy.h"
#include "sim/config.h"
#include "sim/sim.h"

/* ------------------------------------------------------------ curves */

/* lat(s) = fixed + per_page * ceil(s / page) / par + s / bw: a fixed
 * command cost, NAND page reads spread over par units, a bus transfer. */
struct curve {
	int64_t fixed_ns, page_ns;
	uint64_t page_bytes, par;
	double ns_per_byte;
};

static int64_t curve_ns(void *ctx, uint64_t bytes)
{
	const struct curve *c = ctx;
	uint64_t pages = (bytes + c->page_bytes - 1) / c->page_bytes;
	uint64_t rounds = (pages + c->par - 1) / c->par;
	return c->fixed_ns + (int64_t)rounds * c->page_ns + (int64_t)(c->ns_per_byte * (double)bytes);
}

static const struct curve curves[] = {
	{ 300000, 60000, 16384, 4, 1000.0 / 85.0 },  /* eMMC-like: big fixed cost */
	{ 80000, 50000, 8192, 10, 1000.0 / 250.0 },  /* SATA-SSD-like */
	{ 10000, 0, 4096, 1, 1000.0 / 20.0 },        /* slow bus, small fixed cost */
	{ 1, 0, 4096, 1, 1000.0 / 100.0 },           /* almost pure bandwidth: padding never pays */
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* n disjoint increasing chunks, 4 KiB aligned, random sizes and gaps
 * (some zero, so merging has work). */
static void random_set(uint64_t *seed, struct padplan_chunk *c, size_t n, uint64_t max_gap_pages)
{
	uint64_t lba = 8 * (rnd(seed) % 1000);
	for (size_t i = 0; i < n; i++) {
		c[i].lba = lba;
		c[i].sectors = 8 * (1 + rnd(seed) % 16);
		uint64_t gap = rnd(seed) % 4 == 0 ? 0 : rnd(seed) % (max_gap_pages + 1);
		lba += c[i].sectors + 8 * gap;
	}
}

/* Best sum over all 2^(n-1) segmentations into runs of consecutive chunks. */
static int64_t brute(const struct padplan_chunk *c, size_t n, uint64_t maxs,
		     const struct padplan_cost *cost)
{
	int64_t best = INT64_MAX;
	for (uint64_t mask = 0; mask < (1ull << (n - 1)); mask++) {
		int64_t t = 0;
		size_t s = 0;
		bool ok = true;
		for (size_t i = 0; i < n && ok; i++) {
			bool cut = i == n - 1 || (mask >> i) & 1;
			if (!cut)
				continue;
			int64_t r = padplan_read_ns(c, s, i, maxs, cost);
			if (r == INT64_MAX)
				ok = false;
			else
				t += r;
			s = i + 1;
		}
		if (ok && t < best)
			best = t;
	}
	return best;
}

static void test_padding_dp_matches_brute_force(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	struct padplan_chunk c[12];
	size_t groups[12];
	int64_t scratch[2 * 13], sq[12 * 12];
	int checked = 0;
	for (size_t ci = 0; ci < sizeof(curves) / sizeof(curves[0]); ci++) {
		struct padplan_cost cost = { curve_ns, (void *)&curves[ci] };
		for (int rep = 0; rep < 40; rep++) {
			size_t n = 1 + rnd(&seed) % 12;
			random_set(&seed, c, n, rep % 2 ? 8 : 64);
			uint64_t maxs = rep % 3 == 0 ? 0 : 1024; /* 512 KiB or none */
			int64_t tot;
			size_t ng = padplan_pad(c, n, maxs, &cost, groups, &tot, scratch);
			int64_t b = brute(c, n, maxs, &cost);
			assert_true(b != INT64_MAX);
			assert_int_equal(tot, b);
			assert_int_equal(padplan_interval_dp(c, n, maxs, &cost, sq), b);
			/* the groups are a partition whose cost is the total */
			int64_t sum = 0;
			size_t s = 0;
			for (size_t g = 0; g < ng; g++) {
				assert_true(groups[g] >= s && groups[g] < n);
				int64_t r = padplan_read_ns(c, s, groups[g], maxs, &cost);
				assert_true(r != INT64_MAX);
				sum += r;
				s = groups[g] + 1;
			}
			assert_int_equal(s, n);
			assert_int_equal(sum, tot);
			checked++;
		}
	}
	assert_int_equal(checked, 160);
}

static void test_padding_interval_dp_equals_segmentation_dp(void **state)
{
	(void)state;
	uint64_t seed = 12345;
	enum { N = 60 };
	struct padplan_chunk c[N];
	size_t groups[N];
	int64_t scratch[2 * (N + 1)];
	int64_t *sq = malloc(sizeof(int64_t) * N * N);
	assert_non_null(sq);
	for (size_t ci = 0; ci < sizeof(curves) / sizeof(curves[0]); ci++) {
		struct padplan_cost cost = { curve_ns, (void *)&curves[ci] };
		for (int rep = 0; rep < 5; rep++) {
			size_t n = 20 + rnd(&seed) % (N - 20);
			random_set(&seed, c, n, 32);
			int64_t tot;
			(void)padplan_pad(c, n, 1024, &cost, groups, &tot, scratch);
			assert_int_equal(padplan_interval_dp(c, n, 1024, &cost, sq), tot);
		}
	}
	free(sq);
}

static void test_padding_reorder_sorts_and_clips(void **state)
{
	(void)state;
	struct padplan_chunk c[] = {
		{ 800, 8 }, { 0, 16 }, { 8, 16 }, /* overlaps [8,16) */
		{ 100, 8 }, { 102, 2 },           /* inside the previous one */
		{ 16, 8 },                         /* inside [8, 24) */
		{ 24, 8 },                         /* touches: stays separate */
	};
	size_t n = padplan_reorder(c, sizeof(c) / sizeof(c[0]));
	assert_int_equal(n, 5);
	uint64_t want[][2] = { { 0, 16 }, { 16, 8 }, { 24, 8 }, { 100, 8 }, { 800, 8 } };
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(c[i].lba, want[i][0]);
		assert_int_equal(c[i].sectors, want[i][1]);
	}
}

static void test_padding_merge_joins_touching_within_limit(void **state)
{
	(void)state;
	/* three touching 256-sector chunks, a gap, then one of 2000 sectors */
	struct padplan_chunk c[] = { { 0, 256 }, { 256, 256 }, { 512, 256 }, { 776, 8 },
				     { 1000, 2000 } };
	struct padplan_chunk out[16];
	size_t need = 0;
	assert_int_equal(padplan_merge(c, 5, 1024, out, 1, &need), 0); /* too small: reported */
	assert_int_equal(need, 4);
	size_t n = padplan_merge(c, 5, 1024, out, 16, &need);
	assert_int_equal(n, 4);
	assert_int_equal(out[0].lba, 0);
	assert_int_equal(out[0].sectors, 768); /* 3 touching merged */
	assert_int_equal(out[1].lba, 776);     /* a gap of 8: not merged */
	assert_int_equal(out[2].lba, 1000);    /* 2000 split at 1024 */
	assert_int_equal(out[2].sectors, 1024);
	assert_int_equal(out[3].lba, 2024);
	assert_int_equal(out[3].sectors, 976);
	/* the limit stops a merge: 3 x 400 touching with limit 1000 -> 800 + 400 */
	struct padplan_chunk d[] = { { 0, 400 }, { 400, 400 }, { 800, 400 } };
	n = padplan_merge(d, 3, 1000, out, 16, &need);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].sectors, 800);
	assert_int_equal(out[1].lba, 800);
	/* no limit: one chunk */
	assert_int_equal(padplan_merge(d, 3, 0, out, 16, &need), 1);
}

static void test_padding_never_slower_than_merge_and_respects_limit(void **state)
{
	(void)state;
	uint64_t seed = 777;
	enum { N = 300 };
	struct padplan_chunk c[N], m[N];
	size_t groups[N];
	int64_t scratch[2 * (N + 1)];
	for (size_t ci = 0; ci < sizeof(curves) / sizeof(curves[0]); ci++) {
		struct padplan_cost cost = { curve_ns, (void *)&curves[ci] };
		for (int rep = 0; rep < 10; rep++) {
			random_set(&seed, c, N, 64);
			size_t need;
			size_t nm = padplan_merge(c, N, 1024, m, N, &need);
			int64_t tot;
			size_t ng = padplan_pad(m, nm, 1024, &cost, groups, &tot, scratch);
			assert_true(tot <= padplan_sum_ns(m, nm, &cost));
			assert_true(padplan_sum_ns(m, nm, &cost) <= padplan_sum_ns(c, N, &cost));
			size_t s = 0;
			for (size_t g = 0; g < ng; g++) {
				assert_true(m[groups[g]].lba + m[groups[g]].sectors - m[s].lba <= 1024);
				s = groups[g] + 1;
			}
			/* a curve with a large fixed cost pads: fewer, larger reads */
			if (ci == 0)
				assert_true(ng < nm);
			/* a pure-bandwidth curve never reads a gap */
			if (ci == 3)
				assert_int_equal(ng, nm);
		}
	}
}

/* -------------------------------------------------- end to end (sim) */

static json_t *run_yaml(const char *yaml)
{
	struct cfg_doc *doc;
	struct sim_error err;
	struct sim *sim;
	if (cfg_load_string(yaml, strlen(yaml), "pad.yaml", &doc, &err))
		fail_msg("%s", err.msg);
	struct sim_options opt = { .seed = 1, .quiet = true };
	if (sim_create(doc, "pad.yaml", &opt, &sim, &err))
		fail_msg("%s", err.msg);
	if (sim_run(sim, &err))
		fail_msg("%s", err.msg);
	json_t *r = sim_result_json(sim);
	sim_destroy(sim);
	return r;
}

static const char *device_flash =
	"{model: flash, link: emmc_hs200, channels: 1, dies: 2, planes: 2, page_kib: 16, "
	"read_us: 60, channel_mbps: 85.19, cmd_read_us: 294.16, prog_us: 3985.89, cmd_write_us: 100, "
	"rand_write_us: 5377.51, flush_us: 200, wbuf_kib: 512, write_cache: true, cmdq: false}";
static const char *device_table =
	"{model: table, read: [[4, 400], [16, 450], [64, 900], [128, 1700], [512, 6200]], "
	"write: [[4, 1000], [512, 30000]]}";

static json_t *run_loader(const char *device, const char *mode, const char *prof,
			  const char *loader, const char *cpu)
{
	char yaml[4096], lkey[64] = "";
	if (loader) /* NULL: padding.loader's default */
		snprintf(lkey, sizeof(lkey), ", loader: %s", loader);
	snprintf(yaml, sizeof(yaml),
		 "seed: 3\ndevice: %s\nscheduler: noop\n"
		 "memory: {total_bytes: 1GiB, reserved_bytes: 512MiB}\n"
		 "fs: {extent_mean_bytes: 256KiB, gap_mean_bytes: 64KiB}\n"
		 "policies: [padding]\npadding: {mode: %s, profile: %s%s}\n"
		 "fg: 10050\n"
		 "workload:\n  type: synthetic\n  tasks:\n"
		 "    app: {gen: launch, uid: 10050, become_fg: true, region: launch, bytes: 3MiB,"
		 " files: 6, file_coverage: 0.4, run_bytes: 12KiB, fault_fraction: 0.6,"
		 " cpu_total: %s}\n",
		 device, mode, prof, lkey, cpu);
	return run_yaml(yaml);
}

static json_t *run_mode(const char *device, const char *mode, const char *prof)
{
	return run_loader(device, mode, prof, "app", "20ms");
}

static json_t *app_stats(json_t *r)
{
	json_t *apps = json_object_get(json_object_get(json_object_get(r, "policies"), "padding"),
				       "apps");
	assert_non_null(apps);
	assert_int_equal(json_array_size(apps), 1);
	return json_array_get(apps, 0);
}

static double jnum(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!v)
		fail_msg("missing %s", k);
	return json_number_value(v);
}

static void end_to_end(const char *device)
{
	char prof[128];
	snprintf(prof, sizeof(prof), "/tmp/mobisim-pad-%d.prof", (int)getpid());
	json_t *rec = run_mode(device, "record", prof);
	json_t *base = run_mode(device, "baseline", prof);
	json_t *ro = run_mode(device, "reorder", prof);
	json_t *mg = run_mode(device, "merge", prof);
	json_t *pd = run_mode(device, "pad", prof);
	json_t *a_rec = app_stats(rec), *a_base = app_stats(base), *a_ro = app_stats(ro),
	       *a_mg = app_stats(mg), *a_pd = app_stats(pd);
	/* the profiling run is the baseline, observed */
	assert_true(jnum(a_rec, "recorded_requests") > 20);
	assert_int_equal((int)jnum(a_rec, "requests"), (int)jnum(a_base, "requests"));
	/* loaded reads: reorder one per recorded piece, merge and pad fewer */
	assert_true(jnum(a_ro, "reads") >= jnum(a_mg, "reads"));
	assert_true(jnum(a_mg, "reads") >= jnum(a_pd, "reads"));
	/* the curve's prediction: pad <= merge <= reorder, and the measured
	 * load follows it: padding never slower than merging alone */
	assert_true(jnum(a_pd, "predicted_pad_ns") <= jnum(a_pd, "predicted_merge_ns"));
	assert_true(jnum(a_pd, "predicted_merge_ns") <= jnum(a_pd, "predicted_reorder_ns"));
	assert_true(jnum(a_pd, "load_ns") <= jnum(a_mg, "load_ns"));
	assert_true(jnum(a_mg, "load_ns") <= jnum(a_ro, "load_ns"));
	/* padding enlarges the average request of the launch */
	assert_true(jnum(a_pd, "avg_request_kib") > jnum(a_base, "avg_request_kib"));
	assert_true(jnum(a_pd, "avg_request_kib") >= jnum(a_mg, "avg_request_kib"));
	assert_true(jnum(a_pd, "padded_bytes") > 0);
	json_decref(rec);
	json_decref(base);
	json_decref(ro);
	json_decref(mg);
	json_decref(pd);
	unlink(prof);
}

static void test_padding_end_to_end_flash(void **state)
{
	(void)state;
	end_to_end(device_flash);
}

static void test_padding_end_to_end_table(void **state)
{
	(void)state;
	end_to_end(device_table);
}

static double launch_s(json_t *r)
{
	json_t *g = json_array_get(json_object_get(r, "regions"), 0);
	assert_non_null(g);
	return (double)json_integer_value(json_object_get(g, "duration_ns")) / 1e9;
}

/* loader: thread - the plan's reads run on a task beside the app (counted
 * as the loader's, not the app's), so the app's CPU overlaps the load:
 * with a CPU-heavy launch the launch is shorter than with the loader on
 * the app's thread, which pays load + CPU in turn. */
static void test_padding_loader_thread_overlaps_cpu(void **state)
{
	(void)state;
	char prof[128];
	snprintf(prof, sizeof(prof), "/tmp/mobisim-padt-%d.prof", (int)getpid());
	json_decref(run_loader(device_flash, "record", prof, "app", "200ms"));
	json_t *base = run_loader(device_flash, "baseline", prof, "app", "200ms");
	json_t *inl = run_loader(device_flash, "pad", prof, "app", "200ms");
	json_t *thr = run_loader(device_flash, "pad", prof, "thread", "200ms");
	json_t *a_base = app_stats(base), *a_inl = app_stats(inl), *a_thr = app_stats(thr);
	print_message("launch: baseline %.4f s, pad on the app's thread %.4f s (load %.4f s), "
		      "pad on a loader thread %.4f s (load %.4f s; app requests %d, loader %d)\n",
		      launch_s(base), launch_s(inl), jnum(a_inl, "load_ns") / 1e9, launch_s(thr),
		      jnum(a_thr, "load_ns") / 1e9, (int)jnum(a_thr, "requests"),
		      (int)jnum(a_thr, "prefetch_requests"));
	assert_true(jnum(a_thr, "prefetch_requests") > 0);
	assert_true(jnum(a_thr, "requests") < jnum(a_base, "requests"));
	assert_true(jnum(a_thr, "load_ns") > 0);
	/* on the app's thread the launch holds the whole load, then the CPU */
	assert_true(launch_s(inl) >= jnum(a_inl, "load_ns") / 1e9 + 0.2);
	assert_true(launch_s(thr) < launch_s(inl));
	json_decref(base);
	json_decref(inl);
	json_decref(thr);
	unlink(prof);
}

static double met_ops(json_t *a, const char *cls)
{
	json_t *m = json_object_get(json_object_get(a, "app_met"), cls);
	if (!m)
		fail_msg("missing app_met.%s", cls);
	return json_number_value(json_object_get(m, "ops"));
}

/* ESL'20 as described: by default the loader runs beside the app from the
 * launch's start, and the app's faults on pages it has in flight wait for
 * that read (filemap_fault -> lock_page) instead of reading the pages
 * themselves; with loader: app every op of the app comes after the load
 * and hits. A light CPU (20 ms) makes the app fault faster than the
 * loader reads, so it meets the loader's reads in flight. */
static void test_padding_default_loader_meets_pages_in_flight(void **state)
{
	(void)state;
	char prof[128];
	snprintf(prof, sizeof(prof), "/tmp/mobisim-padf-%d.prof", (int)getpid());
	json_decref(run_loader(device_flash, "record", prof, NULL, "20ms"));
	json_t *base = run_loader(device_flash, "baseline", prof, NULL, "20ms");
	json_t *def = run_loader(device_flash, "pad", prof, NULL, "20ms");
	json_t *ser = run_loader(device_flash, "pad", prof, "app", "20ms");
	json_t *params = json_object_get(json_object_get(json_object_get(def, "policies"), "padding"),
					 "params");
	assert_string_equal(json_string_value(json_object_get(params, "loader")), "thread");
	json_t *a_base = app_stats(base), *a_def = app_stats(def), *a_ser = app_stats(ser);
	print_message("app's misses: baseline %g, pad %g (in flight %g); serial: first I/O %.4f s "
		      "after launch, load %.4f s\n",
		      met_ops(a_base, "absent"), met_ops(a_def, "absent"), met_ops(a_def, "inflight"),
		      jnum(a_ser, "first_io_after_ns") / 1e9, jnum(a_ser, "load_ns") / 1e9);
	/* demand paging reads its pages itself */
	assert_true(met_ops(a_base, "absent") > 10);
	/* beside the loader: it starts with the launch, the app waits for its reads */
	assert_true(jnum(a_def, "load_start_after_ns") == 0);
	assert_true(met_ops(a_def, "inflight") > 0);
	assert_true(met_ops(a_def, "absent") * 5 < met_ops(a_base, "absent"));
	/* the same app CPU in every mode */
	assert_true(jnum(a_def, "app_cpu_ns") == jnum(a_base, "app_cpu_ns"));
	/* serial: nothing in flight or absent, the first I/O after the load */
	assert_true(met_ops(a_ser, "absent") == 0 && met_ops(a_ser, "inflight") == 0);
	assert_true(jnum(a_ser, "first_io_after_ns") >= jnum(a_ser, "load_ns"));
	assert_true(launch_s(def) < launch_s(ser));
	json_decref(base);
	json_decref(def);
	json_decref(ser);
	unlink(prof);
}

static void test_padding_replay_without_profile_is_input_error(void **state)
{
	(void)state;
	char yaml[2048];
	snprintf(yaml, sizeof(yaml),
		 "device: %s\npolicies: [padding]\npadding: {mode: pad, profile: /nonexistent/x.prof}\n"
		 "workload: {type: synthetic, tasks: {app: {gen: launch, region: launch, bytes: 1MiB,"
		 " files: 2}}}\n",
		 device_table);
	struct cfg_doc *doc;
	struct sim_error err;
	struct sim *sim;
	assert_int_equal(cfg_load_string(yaml, strlen(yaml), "p.yaml", &doc, &err), 0);
	struct sim_options opt = { .seed = 1, .quiet = true };
	assert_int_equal(sim_create(doc, "p.yaml", &opt, &sim, &err), 0);
	int rc = sim_run(sim, &err);
	assert_int_equal(rc, SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "/nonexistent/x.prof"));
	assert_non_null(strstr(err.msg, "mode=record"));
	sim_destroy(sim);
}

/* The framework's plan_loads hook: a working set of 4 KiB chunks with
 * 4 KiB holes becomes fewer, larger reads that cover every chunk and stay
 * within max_kib; merge alone only joins touching chunks. */
static void test_padding_plan_loads_hook(void **state)
{
	(void)state;
	const struct policy_ops *ops = NULL;
	for (const struct policy_ops *const *o = policy_builtin_registry(); *o; o++)
		if (strcmp((*o)->name, "padding") == 0)
			ops = *o;
	assert_non_null(ops);
	assert_non_null(ops->plan_loads);
	struct sim *sim = sim_new_bare(1);
	struct cfg_doc *doc;
	struct sim_error err;
	assert_int_equal(cfg_load_string(device_table, strlen(device_table), "dev", &doc, &err), 0);
	struct device *dev;
	assert_int_equal(device_create(sim, cfg_root(doc), &dev, &err), 0);
	for (int mode = 0; mode < 2; mode++) {
		struct policy p = { .ops = ops, .priv = calloc(1, ops->priv_size) };
		assert_non_null(p.priv);
		char y[64];
		snprintf(y, sizeof(y), "{mode: %s}", mode ? "pad" : "merge");
		struct cfg_doc *pd;
		assert_int_equal(cfg_load_string(y, strlen(y), "p", &pd, &err), 0);
		assert_int_equal(cfg_apply(ops->params, cfg_root(pd), p.priv, &err), 0);
		struct policy_working_set ws;
		policy_ws_init(&ws, dev);
		/* 200 chunks of 4 KiB, every third followed by a 4 KiB hole, in reverse order */
		uint64_t lba = 1 << 20;
		uint64_t want[200];
		for (int i = 0; i < 200; i++) {
			want[i] = lba;
			lba += 8 + (i % 3 == 0 ? 8 : 0);
		}
		for (int i = 199; i >= 0; i--) {
			struct policy_chunk c = { .lba = want[i], .len = 4096 };
			assert_int_equal(policy_ws_push(&ws, &c, &err), 0);
		}
		assert_int_equal(ops->plan_loads(&p, &ws, dev, &err), 0);
		assert_true(ws.n < 200);
		if (mode == 1)
			assert_true(ws.n < 10); /* 4 KiB holes are worth reading on this table */
		else
			assert_int_equal(ws.n, 68); /* runs of touching chunks */
		for (size_t k = 0; k < ws.n; k++) {
			assert_true(ws.chunks[k].len <= 512 * 1024);
			if (k)
				assert_true(ws.chunks[k].lba >= ws.chunks[k - 1].lba +
								 ws.chunks[k - 1].len / 512);
		}
		for (int i = 0; i < 200; i++) {
			bool covered = false;
			for (size_t k = 0; k < ws.n && !covered; k++)
				covered = want[i] >= ws.chunks[k].lba &&
					  want[i] + 8 <= ws.chunks[k].lba + ws.chunks[k].len / 512;
			assert_true(covered);
		}
		policy_ws_free(&ws);
		free(p.priv);
		cfg_free(pd);
	}
	device_destroy(dev);
	cfg_free(doc);
	sim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_padding_dp_matches_brute_force),
		cmocka_unit_test(test_padding_interval_dp_equals_segmentation_dp),
		cmocka_unit_test(test_padding_reorder_sorts_and_clips),
		cmocka_unit_test(test_padding_merge_joins_touching_within_limit),
		cmocka_unit_test(test_padding_never_slower_than_merge_and_respects_limit),
		cmocka_unit_test(test_padding_end_to_end_flash),
		cmocka_unit_test(test_padding_end_to_end_table),
		cmocka_unit_test(test_padding_loader_thread_overlaps_cpu),
		cmocka_unit_test(test_padding_default_loader_meets_pages_in_flight),
		cmocka_unit_test(test_padding_replay_without_profile_is_input_error),
		cmocka_unit_test(test_padding_plan_loads_hook),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
