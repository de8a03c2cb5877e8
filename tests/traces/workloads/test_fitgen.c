/* Tests for the fitted workload models (traces/tracefit.c, traces/workloads/
 * fitgen.c): the features of hand-made requests (chunks, sequential runs,
 * a re-reference and its distance, jumps, sizes, sync, inter-arrival
 * classes, think time from a completion); a model written, read back and
 * generated keeps every chunk's counts, sizes, read/write and sync mix and
 * its first and last arrival, its completions in time order with the rest;
 * the same seed gives the same requests; a model whose counts disagree is
 * refused at its line; a bounded fit writes the same model while within its
 * bound and counts the same nodes past it (keeping none); the footprint
 * counts distinct pages across its regions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/block/request.h"
#include "sim/config.h"
#include "sim/sim.h"
#include "traces/trace.h"
#include "traces/tracefit.h"
#include "traces/workloads/fitgen.h"

#define MS 1000000LL

static struct trace_rec req(int64_t t, int32_t pid, bool write, uint64_t sector, uint32_t n,
			    bool sync)
{
	struct trace_rec r = { 0 };
	r.kind = TRACE_REC_BLOCK;
	r.action = TRACE_A_QUEUE;
	r.act = 'Q';
	r.dir = write ? TRACE_DIR_WRITE : TRACE_DIR_READ;
	r.flags = write ? REQ_WRITE | (sync ? REQ_SYNC : 0) : 0;
	r.time_ns = t;
	r.pid = pid;
	r.comm = pid == 10 ? "app" : "kworker";
	r.dev_major = 8;
	r.sector = sector;
	r.nr_sectors = n;
	r.bytes = n * 512;
	return r;
}

static struct tfit *new_fit(void)
{
	struct tfit_opts o = { .chunk_ns = 100 * MS };
	struct tfit *f;
	struct sim_error err;
	assert_int_equal(tfit_create(&o, &f, &err), 0);
	return f;
}

static void add(struct tfit *f, struct trace_rec r)
{
	struct sim_error err;
	assert_int_equal(tfit_add(f, &r, &err), 0);
}

static char *model_text(const struct tfit *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct sim_error err;
	fprintf(m, "model:\n");
	assert_int_equal(tfit_write_model(f, m, 2, &err), 0);
	fclose(m);
	return buf;
}

static void test_features(void **state)
{
	(void)state;
	struct tfit *f = new_fit();
	add(f, req(0, 10, false, 0, 8, false));          /* first: a jump of 0 */
	struct trace_rec c = req(MS / 2, 0, false, 0, 8, false);
	c.action = TRACE_A_COMPLETE;                     /* completes the first: think 0.5 ms */
	add(f, c);
	add(f, req(1 * MS, 10, false, 8, 8, false));     /* sequential */
	add(f, req(2 * MS, 10, false, 16, 8, false));    /* sequential */
	add(f, req(3 * MS, 10, false, 0, 8, false));     /* re-reference, 3 requests back */
	add(f, req(4 * MS, 10, true, 1000, 16, true));   /* jump of 992 from 8 */
	add(f, req(150 * MS, 10, false, 500, 8, false)); /* next chunk: back 516 */
	char *t = model_text(f);
	/* 1 ms = 2^19.9 ns: class 20; reref distance 3: class 1 ([2, 4));
	 * jump 992: class 10; jump 516: class 10 */
	assert_non_null(strstr(t, "- {i: 0, n: 5, first: 0, last: 4000000, r: 4, w: 1, sr: 4, sw: 1, "
				  "qr: 2, qw: 0, reref: 1, back: 0, rsz: {8: 4}, wsz: {16: 1}, "
				  "iat: {20: 4}, jump: {0: 1, 10: 1}, rdist: {1: 1}, "
				  "svc: {19: 1}}"));
	assert_non_null(strstr(t, "- {i: 1, n: 1, first: 50000000, last: 50000000, r: 1, w: 0, "
				  "sr: 1, sw: 0, qr: 0, qw: 0, reref: 0, back: 1, rsz: {8: 1}, wsz: {}, "
				  "iat: {}, jump: {10: 1}, rdist: {}, svc: {}}"));
	assert_non_null(strstr(t, "lba_lo: 0\n"));
	assert_non_null(strstr(t, "lba_hi: 1016\n"));
	assert_non_null(strstr(t, "comm: \"app\""));
	struct tfit_stats s;
	tfit_stats(f, &s);
	assert_int_equal(s.ios, 6);
	assert_int_equal(s.reads, 5);
	assert_int_equal(s.seq, 2);
	assert_int_equal(s.reref, 1);
	assert_int_equal(s.size4k, 5);
	assert_int_equal(s.footprint_pages, 3 + 2 + 2); /* pages 0-2, 125-126, 62-63 */
	/* one request after its predecessor's completion, four before theirs */
	assert_int_equal(s.think_n, 1);
	assert_int_equal(s.think_overlap, 4);
	assert_float_equal(s.think_mean_s, 0.0005, 1e-12);
	free(t);
	tfit_destroy(f);
}

/* Generate every request of the model in text; return them in a new fit. */
static struct tfit *regenerate(const char *text, uint64_t seed, uint64_t *hash)
{
	struct cfg_doc *doc;
	struct sim_error err;
	assert_int_equal(cfg_load_string(text, strlen(text), "model.yaml", &doc, &err), 0);
	struct sim *sim = sim_new_bare(seed);
	struct trace_reader r;
	int rc = fitgen_open(sim, cfg_get(cfg_root(doc), "model"), &r, &err);
	if (rc)
		fail_msg("%s", err.msg);
	struct tfit *g = new_fit();
	struct trace_rec rec;
	int64_t last = 0;
	*hash = 1469598103934665603ULL;
	while ((rc = trace_next(&r, &rec, &err)) == 1) {
		assert_true(rec.time_ns >= last); /* merged in time order */
		last = rec.time_ns;
		*hash = (*hash ^ (rec.sector * 31 + (uint64_t)rec.time_ns + rec.nr_sectors)) * 1099511628211ULL;
		add(g, rec);
	}
	assert_int_equal(rc, 0);
	trace_close(&r);
	sim_destroy(sim);
	cfg_free(doc);
	return g;
}

static void test_round_trip(void **state)
{
	(void)state;
	struct tfit *f = new_fit();
	/* two streams over 2 s: a reader of random 4 KiB pages with runs, a
	 * writer of 128 KiB and 4 KiB requests, some sync */
	uint64_t x = 12345, rs = 0, ws = 1 << 20;
	for (int i = 0; i < 3000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		int64_t t = (int64_t)(i * 2 * 1000000000LL / 3000) + (int64_t)(x >> 54);
		if (i % 3) {
			rs = (x >> 40) % 7 ? rs + 8 : ((x >> 20) % 100000) * 8;
			add(f, req(t, 10, false, rs, 8, false));
			/* completed 100 us later: the model gets completion times */
			struct trace_rec c = req(t + 100000, 0, false, rs, 8, false);
			c.action = TRACE_A_COMPLETE;
			add(f, c);
		} else {
			uint32_t n = (x >> 33) % 4 ? 256 : 8;
			add(f, req(t, 20, true, ws, n, (x >> 30) % 5 == 0));
			ws += n;
		}
	}
	char *t = model_text(f);
	assert_non_null(strstr(t, "svc: {17: "));  /* 100 us: [2^16, 2^17) ns */
	uint64_t h1, h2, h3;
	struct tfit *g = regenerate(t, 7, &h1);
	struct tfit_stats a, b;
	tfit_stats(f, &a);
	tfit_stats(g, &b);
	/* kept exactly: per chunk counts, sizes, mix, first and last arrival */
	assert_int_equal(a.ios, b.ios);
	assert_int_equal(a.bytes, b.bytes);
	assert_int_equal(a.reads, b.reads);
	assert_int_equal(a.syncs, b.syncs);
	assert_int_equal(a.size4k, b.size4k);
	assert_int_equal(a.streams, b.streams);
	assert_true(tfit_size_tvd(f, g) == 0.0);
	assert_float_equal(a.duration_s, b.duration_s, 1e-9);
	assert_float_equal(a.idc_chunk, b.idc_chunk, 1e-9 * (1 + a.idc_chunk));
	/* drawn per chunk from the counts: close */
	assert_float_equal((double)b.seq / (double)b.ios, (double)a.seq / (double)a.ios, 0.05);
	assert_float_equal(b.iat_mean_s, a.iat_mean_s, 0.02 * a.iat_mean_s);
	/* the model of the generated requests has the same per-chunk header */
	char *t2 = model_text(g);
	const char *p = t, *q = t2;
	while ((p = strstr(p, "- {i: ")) && (q = strstr(q, "- {i: "))) {
		const char *pe = strstr(p, ", qr:"), *qe = strstr(q, ", qr:");
		assert_non_null(pe);
		assert_non_null(qe);
		assert_int_equal(pe - p, qe - q);
		assert_memory_equal(p, q, (size_t)(pe - p));
		p = pe;
		q = qe;
	}
	/* the same seed, the same requests; another seed, others */
	tfit_destroy(regenerate(t, 7, &h2));
	tfit_destroy(regenerate(t, 8, &h3));
	assert_true(h1 == h2);
	assert_true(h1 != h3);
	free(t);
	free(t2);
	tfit_destroy(f);
	tfit_destroy(g);
}

static void expect_bad(const char *text, const char *what)
{
	struct cfg_doc *doc;
	struct sim_error err;
	assert_int_equal(cfg_load_string(text, strlen(text), "bad.yaml", &doc, &err), 0);
	struct sim *sim = sim_new_bare(1);
	struct trace_reader r;
	assert_int_equal(fitgen_open(sim, cfg_get(cfg_root(doc), "model"), &r, &err), SIM_E_INPUT);
	if (!strstr(err.msg, what))
		fail_msg("expected '%s' in: %s", what, err.msg);
	sim_destroy(sim);
	cfg_free(doc);
}

static void test_bad_models(void **state)
{
	(void)state;
	const char *head = "model:\n  chunk: 100ms\n  streams:\n    - pid: 1\n      lba_lo: 0\n"
			   "      lba_hi: 800\n      chunks:\n";
	char buf[2048];
	snprintf(buf, sizeof(buf), "%s        - {i: 0, n: 2, first: 0, last: 5, r: 1, w: 0, sr: 0, "
		 "sw: 0, qr: 0, qw: 0, reref: 0, back: 0, rsz: {8: 1}, wsz: {}, iat: {1: 1}, "
		 "jump: {0: 1}, rdist: {}}\n", head);
	expect_bad(buf, "bad.yaml:8:");
	expect_bad(buf, "r + w (1 + 0) is not n (2)");
	snprintf(buf, sizeof(buf), "%s        - {i: 0, n: 1, first: 0, last: 0, r: 1, w: 0, sr: 0, "
		 "sw: 0, qr: 0, qw: 0, reref: 0, back: 0, rsz: {8: 1}, wsz: {}, iat: {}, "
		 "jump: {}, rdist: {}}\n", head);
	expect_bad(buf, "is not n (1)");
	snprintf(buf, sizeof(buf), "%s        - {i: 0, n: 1, first: 0, last: 200000000, r: 1, w: 0, "
		 "sr: 0, sw: 0, qr: 0, qw: 0, reref: 0, back: 0, rsz: {8: 1}, wsz: {}, iat: {}, "
		 "jump: {0: 1}, rdist: {}}\n", head);
	expect_bad(buf, "expected an integer in [0, 99999999]");
	expect_bad("model:\n  chunk: 1s\n", "expected streams");
	/* 50000 chunks of 10^5 s: past 2^62 ns */
	snprintf(buf, sizeof(buf), "model:\n  chunk: 100000s\n  streams:\n    - pid: 1\n      lba_lo: 0\n"
		 "      lba_hi: 800\n      chunks:\n        - {i: 50000, n: 1, first: 0, last: 0, r: 1, "
		 "w: 0, sr: 0, sw: 0, qr: 0, qw: 0, reref: 0, back: 0, rsz: {8: 1}, wsz: {}, iat: {}, "
		 "jump: {0: 1}, rdist: {}}\n");
	expect_bad(buf, "starts beyond 2^62 ns");
	snprintf(buf, sizeof(buf), "%s        - {i: 0, n: 20000000, first: 0, last: 0, r: 20000000, "
		 "w: 0, sr: 0, sw: 0, qr: 0, qw: 0, reref: 0, back: 0, rsz: {8: 20000000}, wsz: {}, "
		 "iat: {0: 19999999}, jump: {0: 20000000}, rdist: {}}\n", head);
	expect_bad(buf, "more than 16777216 requests in one chunk");
}

static struct tfit *fit_with(uint64_t keep_nodes, bool stats_only)
{
	struct tfit_opts o = { .chunk_ns = 10 * MS, .keep_nodes = keep_nodes, .stats_only = stats_only };
	struct tfit *f;
	struct sim_error err;
	assert_int_equal(tfit_create(&o, &f, &err), 0);
	/* two streams over 50 chunks of 10 ms, one completion (svc written) */
	for (int k = 0; k < 200; k++) {
		add(f, req(k * MS * 5 / 2, k % 3 ? 10 : 20, k % 4 == 0, (uint64_t)k * 64, 8 + k % 5 * 8,
			   k % 2));
		if (k == 7) {
			struct trace_rec c = req(k * MS * 5 / 2 + MS, 0, false, 7 * 64, 8, false);
			c.action = TRACE_A_COMPLETE;
			add(f, c);
		}
	}
	return f;
}

static void test_bounded_model(void **state)
{
	(void)state;
	struct tfit *all = fit_with(0, false);
	uint64_t nodes = tfit_model_nodes(all);
	char *want = model_text(all);
	/* within the bound: the same text */
	struct tfit *in = fit_with(nodes, false);
	assert_int_equal(tfit_model_nodes(in), nodes);
	char *got = model_text(in);
	assert_string_equal(got, want);
	/* past it (and with no model at all): the same count, no model */
	struct tfit *past = fit_with(nodes / 2, false), *none = fit_with(0, true);
	assert_int_equal(tfit_model_nodes(past), nodes);
	assert_int_equal(tfit_model_nodes(none), nodes);
	struct sim_error err;
	FILE *m = fopen("/dev/null", "w");
	assert_non_null(m);
	assert_int_not_equal(tfit_write_model(past, m, 2, &err), 0);
	assert_non_null(strstr(err.msg, "not kept"));
	assert_int_not_equal(tfit_write_model(none, m, 2, &err), 0);
	fclose(m);
	/* the statistics do not depend on the model kept */
	struct tfit_stats a, b;
	tfit_stats(all, &a);
	tfit_stats(past, &b);
	assert_int_equal(a.ios, b.ios);
	assert_int_equal(a.footprint_pages, b.footprint_pages);
	assert_float_equal(a.idc_chunk, b.idc_chunk, 0);
	free(want);
	free(got);
	tfit_destroy(all);
	tfit_destroy(in);
	tfit_destroy(past);
	tfit_destroy(none);
}

static void test_footprint_regions(void **state)
{
	(void)state;
	struct tfit *f = new_fit();
	/* one region (4096 pages = 32768 sectors) apart, twice; a repeat; the
	 * region's last page and the next one's first; far beyond 2^32 pages */
	for (int k = 0; k < 2; k++)
		for (uint64_t r = 0; r < 100; r++)
			add(f, req((int64_t)r * MS, 10, false, r * 32768, 8, false));
	add(f, req(101 * MS, 10, false, 32768 - 8, 16, false)); /* pages 4095 and 4096 (new: 4095) */
	add(f, req(102 * MS, 10, false, 1ULL << 40, 8, false));
	struct tfit_stats s;
	tfit_stats(f, &s);
	assert_int_equal(s.footprint_pages, 100 + 1 + 1);
	assert_false(s.footprint_capped);
	tfit_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_features),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_models),
		cmocka_unit_test(test_bounded_model),
		cmocka_unit_test(test_footprint_regions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
