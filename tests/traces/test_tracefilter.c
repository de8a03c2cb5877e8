/* Tests for traces/tracefilter.c and trace_next()'s gap cutting: a process
 * filter decides each request at its Q and keeps or drops its D and C by
 * the request (device and sector), whichever task they name; a D with no Q
 * stands in for it; a C of no request seen is dropped and counted; a rule
 * on what the trace does not record is refused; gaps are compressed or cut
 * with their count and the time removed; the clock-jump guess names CPUs
 * only for formats that record them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "traces/trace.h"

/* One blkparse text line: time in us, pid, action, rwbs, sector, sectors, comm. */
static void line(char *buf, size_t len, size_t *at, long us, int pid, const char *act,
		 const char *rwbs, long sector, int n, const char *comm)
{
	static unsigned seq;
	int w = snprintf(buf + *at, len - *at, "  8,0    0 %8u %5ld.%09ld %5d  %s %3s %ld + %d [%s]\n",
			 ++seq, us / 1000000, (us % 1000000) * 1000, pid, act, rwbs, sector, n, comm);
	assert_true(w > 0 && (size_t)w < len - *at);
	*at += (size_t)w;
}

struct got {
	char act[64];
	long sector[64];
	int pid[64];
	unsigned n;
};

/* Read every record of text through a filter of the given rules. */
static int read_all(const char *text, const char *const *keys, const char *const *vals,
		    unsigned nrules, struct trace_reader *r, struct got *g, struct sim_error *err)
{
	static struct trace_fg *keep;
	trace_fg_free(keep);
	keep = NULL;
	for (unsigned i = 0; i < nrules; i++)
		assert_int_equal(trace_keep_add(&keep, keys[i], vals[i], "--test", err), 0);
	struct trace_opts o = { .keep = keep };
	assert_int_equal(trace_open_mem_auto(text, strlen(text), "mem.txt", &o, r, err), 0);
	struct trace_rec rec;
	int rc;
	memset(g, 0, sizeof(*g));
	while ((rc = trace_next(r, &rec, err)) == 1) {
		assert_true(g->n < 63);
		g->act[g->n] = rec.act;
		g->sector[g->n] = (long)rec.sector;
		g->pid[g->n] = rec.pid;
		g->n++;
	}
	if (rc)
		fprintf(stderr, "%s\n", err->msg);
	return rc;
}

static void test_filter_follows_the_queueing_process(void **state)
{
	(void)state;
	char t[4096];
	size_t at = 0;
	/* app queues 1000 (and back-merges 1008); other queues 2000 */
	line(t, sizeof(t), &at, 10, 100, "Q", "R", 1000, 8, "app");
	line(t, sizeof(t), &at, 11, 100, "G", "R", 1000, 8, "app");
	line(t, sizeof(t), &at, 12, 100, "Q", "R", 1008, 8, "app");
	line(t, sizeof(t), &at, 13, 100, "M", "R", 1008, 8, "app");
	line(t, sizeof(t), &at, 20, 200, "Q", "W", 2000, 8, "other");
	/* kblockd issues app's request; app's context issues other's */
	line(t, sizeof(t), &at, 30, 50, "D", "R", 1000, 16, "kworker/0:1");
	line(t, sizeof(t), &at, 31, 100, "D", "W", 2000, 8, "app");
	/* both complete in interrupt context (blkparse prints a C's error, not its comm) */
	line(t, sizeof(t), &at, 40, 0, "C", "R", 1000, 16, "0");
	line(t, sizeof(t), &at, 41, 0, "C", "W", 2000, 8, "0");
	struct trace_reader r;
	struct got g;
	struct sim_error err;
	const char *k[] = { "comm" }, *v[] = { "^app$" };
	assert_int_equal(read_all(t, k, v, 1, &r, &g, &err), 0);
	assert_int_equal(g.n, 6);
	assert_memory_equal(g.act, "QGQMDC", 6);
	assert_int_equal(g.sector[4], 1000);
	assert_int_equal(g.pid[4], 50); /* the D of app's request, logged under kworker */
	assert_int_equal(g.pid[5], 0);  /* its C, logged under the idle task */
	assert_int_equal(r.diag.kept_requests, 2);
	assert_int_equal(r.diag.dropped_requests, 1);
	assert_int_equal(r.diag.filtered_events, 3);
	assert_int_equal(r.diag.unowned_events, 0);
	assert_false(trace_filter_kept_nothing(&r.diag));
	assert_string_equal(r.diag.filter, "comm=^app$");
	trace_close(&r);

	/* the other process by pid: its Q, the D in app's context, its C */
	const char *k2[] = { "pid" }, *v2[] = { "200" };
	assert_int_equal(read_all(t, k2, v2, 1, &r, &g, &err), 0);
	assert_int_equal(g.n, 3);
	assert_memory_equal(g.act, "QDC", 3);
	assert_int_equal(g.pid[1], 100);
	assert_int_equal(g.sector[2], 2000);
	trace_close(&r);

	/* repeated rules: any match keeps */
	const char *k3[] = { "comm", "pid" }, *v3[] = { "^app$", "200" };
	assert_int_equal(read_all(t, k3, v3, 2, &r, &g, &err), 0);
	assert_int_equal(g.n, 9);
	trace_close(&r);
}

static void test_filter_d_only_unowned_c_and_mixed_merge(void **state)
{
	(void)state;
	char t[4096];
	size_t at = 0;
	/* a D/C-only trace: the D stands in for its Q */
	line(t, sizeof(t), &at, 10, 100, "D", "R", 1000, 8, "app");
	line(t, sizeof(t), &at, 11, 200, "D", "R", 3000, 8, "other");
	line(t, sizeof(t), &at, 20, 0, "C", "R", 1000, 8, "0");
	line(t, sizeof(t), &at, 21, 0, "C", "R", 3000, 8, "0");
	/* a completion of a request never seen: dropped and counted */
	line(t, sizeof(t), &at, 22, 100, "C", "R", 9000, 8, "0");
	struct trace_reader r;
	struct got g;
	struct sim_error err;
	const char *k[] = { "comm" }, *v[] = { "^app$" };
	assert_int_equal(read_all(t, k, v, 1, &r, &g, &err), 0);
	assert_int_equal(g.n, 2);
	assert_memory_equal(g.act, "DC", 2);
	assert_int_equal(g.sector[1], 1000);
	assert_int_equal(r.diag.kept_requests, 1);
	assert_int_equal(r.diag.dropped_requests, 1);
	assert_int_equal(r.diag.unowned_events, 1);
	trace_close(&r);

	/* one request holding bios of both processes carries kept data */
	at = 0;
	line(t, sizeof(t), &at, 10, 200, "Q", "W", 5000, 8, "other");
	line(t, sizeof(t), &at, 11, 100, "Q", "W", 5008, 8, "app");
	line(t, sizeof(t), &at, 12, 100, "M", "W", 5008, 8, "app");
	line(t, sizeof(t), &at, 20, 50, "D", "W", 5000, 16, "kworker/0:1");
	line(t, sizeof(t), &at, 30, 0, "C", "W", 5000, 16, "0");
	assert_int_equal(read_all(t, k, v, 1, &r, &g, &err), 0);
	assert_int_equal(g.n, 4);
	assert_memory_equal(g.act, "QMDC", 4);
	trace_close(&r);
}

static void test_filter_zero_match_and_identity(void **state)
{
	(void)state;
	char t[1024];
	size_t at = 0;
	line(t, sizeof(t), &at, 10, 100, "Q", "R", 1000, 8, "app");
	line(t, sizeof(t), &at, 20, 0, "C", "R", 1000, 8, "0");
	struct trace_reader r;
	struct got g;
	struct sim_error err;
	const char *k[] = { "app" }, *v[] = { "org.example.nothing" };
	assert_int_equal(read_all(t, k, v, 1, &r, &g, &err), 0);
	assert_int_equal(g.n, 0);
	assert_true(trace_filter_kept_nothing(&r.diag));
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_true(trace_diag_print(&r.diag, "mem.txt", f) >= 1);
	char out[1024] = "";
	rewind(f);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	assert_non_null(strstr(out, "matched none of the 1 requests"));
	trace_close(&r);

	/* DiskSim ASCII names no process: a comm filter is refused */
	const char *ds = "0.0 0 1000 8 1\n1.0 0 2000 8 0\n";
	struct trace_fg *keep = NULL;
	assert_int_equal(trace_keep_add(&keep, "comm", "app", "--comm", &err), 0);
	struct trace_opts o = { .keep = keep };
	assert_int_equal(trace_open_mem_auto(ds, strlen(ds), "ds.txt", &o, &r, &err), 0);
	struct trace_rec rec;
	assert_int_equal(trace_next(&r, &rec, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "records no process names"));
	trace_close(&r);
	trace_fg_free(keep);

	/* option errors name the option */
	keep = NULL;
	assert_int_equal(trace_keep_add(&keep, "comm", "(", "--comm", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "--comm '(': bad regular expression"));
	assert_int_equal(trace_keep_add(&keep, "pid", "x", "--pid", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "--pid 'x'"));
	assert_int_equal(trace_keep_add(&keep, "uid", "1", "workload.filter.uid", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "unknown filter 'uid'"));
	trace_fg_free(keep);
	struct trace_gap gp = { 0 };
	assert_int_equal(trace_gap_parse_max(&gp, "0", "--max-gap", &err), SIM_E_INPUT);
	assert_int_equal(trace_gap_parse_mode(&gp, "drop", "--gap", &err), SIM_E_INPUT);
	assert_int_equal(trace_gap_parse_max(&gp, "10s", "--max-gap", &err), 0);
	assert_int_equal(gp.max_ns, 10000000000LL);
}

/* Records at 0, 1, 100, 101 and 1000 s: gaps of 99 and 899 s. */
static const char *gap_trace(char *t, size_t len)
{
	static const long s[] = { 0, 1, 100, 101, 1000 };
	size_t at = 0;
	for (unsigned i = 0; i < 5; i++)
		line(t, len, &at, s[i] * 1000000L, 100, "Q", "R", 1000 + 8 * (long)i, 8, "app");
	return t;
}

static void test_gap_compress_and_cut(void **state)
{
	(void)state;
	char t[2048];
	gap_trace(t, sizeof(t));
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	struct trace_opts o = { .gap = { .max_ns = 10000000000LL, .mode = TRACE_GAP_COMPRESS } };
	static const int64_t want[] = { 0, 1, 11, 12, 22 };
	assert_int_equal(trace_open_mem_auto(t, strlen(t), "gap.txt", &o, &r, &err), 0);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(trace_next(&r, &rec, &err), 1);
		assert_int_equal(rec.time_ns, want[i] * 1000000000LL);
	}
	assert_int_equal(trace_next(&r, &rec, &err), 0);
	assert_int_equal(r.diag.gaps, 2);
	assert_int_equal(r.diag.gap_removed_ns, (89LL + 889LL) * 1000000000LL);
	assert_int_equal(r.diag.max_gap_ns, 899LL * 1000000000LL);
	assert_int_equal(r.diag.max_ns - r.diag.min_ns, 22LL * 1000000000LL);
	assert_int_equal(r.diag.jumps, 0);
	trace_close(&r);

	o.gap.mode = TRACE_GAP_CUT;
	assert_int_equal(trace_open_mem_auto(t, strlen(t), "gap.txt", &o, &r, &err), 0);
	assert_int_equal(trace_next(&r, &rec, &err), 1);
	assert_int_equal(trace_next(&r, &rec, &err), 1);
	assert_int_equal(trace_next(&r, &rec, &err), 0);
	assert_int_equal(trace_next(&r, &rec, &err), 0);
	assert_true(r.diag.gap_cut);
	assert_int_equal(r.diag.gaps, 1);
	assert_int_equal(r.diag.gap_cut_at_ns, 1000000000LL);
	assert_int_equal(r.diag.events, 2);
	trace_close(&r);

	/* off: the times as recorded */
	o.gap.max_ns = 0;
	assert_int_equal(trace_open_mem_auto(t, strlen(t), "gap.txt", &o, &r, &err), 0);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(trace_next(&r, &rec, &err), 1);
	assert_int_equal(rec.time_ns, 1000LL * 1000000000LL);
	assert_int_equal(r.diag.gaps, 0);
	trace_close(&r);
}

static void test_jump_guess_by_format(void **state)
{
	(void)state;
	assert_non_null(strstr(trace_jump_guess("blktrace"), "between CPUs"));
	assert_non_null(strstr(trace_jump_guess("blkparse"), "between CPUs"));
	assert_null(strstr(trace_jump_guess("csv"), "CPU"));
	assert_null(strstr(trace_jump_guess("disksim"), "CPU"));
	assert_null(strstr(trace_jump_guess(NULL), "CPU"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_follows_the_queueing_process),
		cmocka_unit_test(test_filter_d_only_unowned_c_and_mixed_merge),
		cmocka_unit_test(test_filter_zero_match_and_identity),
		cmocka_unit_test(test_gap_compress_and_cut),
		cmocka_unit_test(test_jump_guess_by_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
