/* Tests for traces/workloads/launch_build.c, the launch built from a
 * recorded cold start: the CPU gap before a batch is the thread's next
 * request minus its previous batch's last completion, per thread; requests
 * queued while one is in flight are one batch; another thread is spawned
 * from the main thread at the recorded point with the rest as lead CPU;
 * the variation stays in its stated range, is the same for a stream and
 * moves reads only inside their file; recordings of repeated launches
 * share one file set; a recording without completions and
 * a broken trace line are bad input naming the file (and the line); on the
 * real NVMe readahead trace (tests/data/blktrace-nvme-readahead, one
 * dependent reader) CPU plus batch times add up to the recorded span. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_rng.h>

#include "traces/trace.h"
#include "traces/workloads/launch_build.h"

#define US 1000LL

static const struct lb_params defaults = {
	.file_gap_bytes = 256 * 1024, .file_extra = 1.0, .cpu_jitter = 0, .variation = 0,
};

static void push(struct lb_recording *r, int32_t tid, int64_t q, int64_t c, uint64_t sector,
		 uint32_t nsect)
{
	struct lb_req x = { .tid = tid, .q_ns = q, .c_ns = c, .sector = sector, .nsect = nsect };
	assert_int_equal(lb_recording_push(r, &x, tid == 10 ? "app" : "worker"), 0);
}

/* The CPU ops of a thread's plan, in order, into v (at most cap); returns how many. */
static size_t cpus(const struct lb_tplan *t, int64_t *v, size_t cap)
{
	size_t n = 0;
	for (size_t k = 0; k < t->n; k++)
		if (t->v[k].kind == LB_CPU && n < cap)
			v[n++] = t->v[k].ns;
	return n;
}

static void two_threads(struct lb_recording *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->src, sizeof(r->src), "mem");
	/* main (tid 10): r1; 200 us; r2; 10 us; r3 and r4 together (r4
	 * queued 40 us later, while r3 is in flight); 400 us; r5 */
	push(r, 10, 0, 100 * US, 0, 8);
	push(r, 10, 300 * US, 400 * US, 8, 8);
	push(r, 20, 350 * US, 450 * US, 10000000, 16); /* worker's first, while main waits on r2 */
	push(r, 10, 410 * US, 500 * US, 16, 8);
	push(r, 10, 450 * US, 600 * US, 24, 8);
	push(r, 20, 700 * US, 800 * US, 10000016, 16);
	push(r, 10, 1000 * US, 1100 * US, 32, 8);
}

static void test_gaps_per_thread(void **st)
{
	(void)st;
	struct lb_recording r;
	two_threads(&r);
	struct lb_plan p;
	struct sim_error err;
	assert_int_equal(lb_build(&r, &defaults, NULL, &p, &err), 0);
	assert_int_equal(p.nth, 2);
	assert_int_equal(p.th[0].tid, 10);
	assert_int_equal(p.th[1].tid, 20);
	assert_int_equal(p.nfiles, 2); /* sectors 0..40 and 10^7..: far apart */
	int64_t c[8];
	size_t n = cpus(&p.th[0], c, 8);
	assert_int_equal(n, 4);
	assert_int_equal(c[0], 200 * US); /* r2 queued 200 us after r1 completed */
	assert_int_equal(c[1], 10 * US);  /* r3 after r2's completion */
	assert_int_equal(c[2], 40 * US);  /* r4 inside the batch: queue to queue */
	assert_int_equal(c[3], 400 * US); /* r5 after the batch's last completion (r4, 600 us) */
	assert_int_equal(p.th[0].batches, 4);
	n = cpus(&p.th[1], c, 8);
	assert_int_equal(n, 2);
	assert_int_equal(c[0], 50 * US);  /* spawned when main queued r2 (300 us): 50 us lead */
	assert_int_equal(c[1], 250 * US); /* its own gap: 700 - 450 */
	/* the main thread: the spawn right before it waits on r2, a join at the end */
	const struct lb_tplan *m = &p.th[0];
	size_t spawn = m->n;
	for (size_t k = 0; k < m->n; k++)
		if (m->v[k].kind == LB_SPAWN)
			spawn = k;
	assert_true(spawn < m->n);
	assert_int_equal(m->v[spawn].arg, 1);
	assert_int_equal(m->v[spawn - 1].kind, LB_FETCH);
	assert_int_equal(m->v[spawn - 1].off, 8 * 512 / 4096 * 4096);
	assert_int_equal(m->v[spawn + 1].kind, LB_WAIT);
	assert_int_equal(m->v[m->n - 1].kind, LB_JOIN);
	/* a batch's requests are all submitted before the thread waits */
	size_t k3 = 0;
	for (size_t k = 0, f = 0; k < m->n; k++)
		if (m->v[k].kind == LB_FETCH && ++f == 3)
			k3 = k;
	assert_int_equal(m->v[k3 + 1].kind, LB_CPU);
	assert_int_equal(m->v[k3 + 2].kind, LB_FETCH);
	assert_int_equal(m->v[k3 + 3].kind, LB_WAIT);
	assert_int_equal(m->v[k3 + 4].kind, LB_WAIT);
	/* exactly the recorded ranges, page-rounded */
	assert_int_equal(m->v[k3].len, 4096);
	assert_int_equal(p.files[1].span_bytes, 32 * 512);
	assert_int_equal(p.files[1].size_bytes, 2 * 32 * 512);
	assert_int_equal(p.span_ns, 1100 * US);
	lb_plan_free(&p);
	/* another main thread: the worker leads, main is spawned from it */
	struct lb_params pm = defaults;
	pm.main_tid = 20;
	assert_int_equal(lb_build(&r, &pm, NULL, &p, &err), 0);
	assert_int_equal(p.th[0].tid, 20);
	lb_plan_free(&p);
	pm.main_tid = 99;
	assert_int_equal(lb_build(&r, &pm, NULL, &p, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "main thread 99"));
	lb_recording_free(&r);
}

static bool same_ops(const struct lb_tplan *x, const struct lb_tplan *y)
{
	if (x->n != y->n)
		return false;
	for (size_t k = 0; k < x->n; k++) {
		const struct lb_op *a = &x->v[k], *b = &y->v[k];
		if (a->kind != b->kind || a->file != b->file || a->off != b->off || a->len != b->len ||
		    a->ns != b->ns || a->arg != b->arg)
			return false;
	}
	return true;
}

static void many(struct lb_recording *r, size_t n)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		push(r, 10, (int64_t)i * 1000 * US, (int64_t)i * 1000 * US + 100 * US, i * 64, 8);
}

static void test_variation_range(void **st)
{
	(void)st;
	struct lb_recording r;
	many(&r, 1000);
	struct lb_params p = defaults;
	p.variation = 0.1;
	p.cpu_jitter = 0.2;
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, 7);
	struct lb_plan a, b, base;
	struct sim_error err;
	assert_int_equal(lb_build(&r, &defaults, NULL, &base, &err), 0);
	assert_int_equal(base.moved, 0);
	assert_int_equal(lb_build(&r, &p, g, &a, &err), 0);
	/* binomial(1000, 0.1): mean 100, sd 9.5 */
	assert_in_range(a.moved, 60, 140);
	assert_int_equal(a.nfiles, 1); /* 32 KiB apart: one file */
	int64_t cb[1000], ca[1000];
	size_t nb = cpus(&base.th[0], cb, 1000), na = cpus(&a.th[0], ca, 1000);
	assert_int_equal(nb, 999);
	assert_int_equal(na, nb);
	bool differ = false;
	for (size_t k = 0; k < na; k++) {
		assert_int_equal(cb[k], 900 * US);
		assert_true(ca[k] >= (int64_t)(0.8 * 900 * US) && ca[k] <= (int64_t)(1.2 * 900 * US));
		differ |= ca[k] != cb[k];
	}
	assert_true(differ);
	/* moved reads stay inside their file, whole pages */
	uint64_t size = a.files[0].size_bytes;
	for (size_t k = 0; k < a.th[0].n; k++) {
		const struct lb_op *o = &a.th[0].v[k];
		if (o->kind == LB_FETCH || o->kind == LB_WAIT) {
			assert_true(o->off + o->len <= size);
			assert_int_equal(o->off % 4096, 0);
		}
	}
	/* the same stream: the same launch; another: another */
	gsl_rng_set(g, 7);
	assert_int_equal(lb_build(&r, &p, g, &b, &err), 0);
	assert_int_equal(a.th[0].n, b.th[0].n);
	assert_true(same_ops(&a.th[0], &b.th[0]));
	lb_plan_free(&b);
	gsl_rng_set(g, 8);
	assert_int_equal(lb_build(&r, &p, g, &b, &err), 0);
	assert_false(same_ops(&a.th[0], &b.th[0]));
	lb_plan_free(&a);
	lb_plan_free(&b);
	lb_plan_free(&base);
	gsl_rng_free(g);
	lb_recording_free(&r);
}

/* Two recordings of repeated launches share one file set (the union of
 * their sectors): a sector both read is the same file and offset in both
 * launches' plans; launch 2 is recording 2's requests and gaps. */
static void test_recording_set(void **st)
{
	(void)st;
	struct lb_recording r1, r2;
	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	push(&r1, 10, 0, 100 * US, 0, 8);
	push(&r1, 10, 300 * US, 400 * US, 5000000, 8);
	push(&r2, 11, 0, 100 * US, 0, 8);
	push(&r2, 11, 500 * US, 600 * US, 9000000, 8); /* only launch 2 reads here */
	push(&r2, 11, 700 * US, 800 * US, 5000000, 8);
	const struct lb_recording *set[2] = { &r1, &r2 };
	struct lb_plan a, b;
	struct sim_error err;
	assert_int_equal(lb_build_set(set, 2, 0, &defaults, NULL, &a, &err), 0);
	assert_int_equal(lb_build_set(set, 2, 1, &defaults, NULL, &b, &err), 0);
	assert_int_equal(a.nfiles, 3);
	assert_int_equal(b.nfiles, 3);
	assert_int_equal(a.th[0].reads, 2);
	assert_int_equal(b.th[0].reads, 3);
	int64_t c[4];
	assert_int_equal(cpus(&b.th[0], c, 4), 2);
	assert_int_equal(c[0], 400 * US);
	assert_int_equal(c[1], 100 * US);
	/* sector 5000000: the same file in both */
	uint32_t fa = UINT32_MAX, fb = UINT32_MAX;
	for (size_t k = 0; k < a.th[0].n; k++)
		if (a.th[0].v[k].kind == LB_FETCH)
			fa = a.th[0].v[k].file;
	for (size_t k = 0; k < b.th[0].n; k++)
		if (b.th[0].v[k].kind == LB_FETCH)
			fb = b.th[0].v[k].file;
	assert_int_equal(fa, fb);
	assert_int_equal(a.files[fa].sector, 5000000);
	lb_plan_free(&a);
	lb_plan_free(&b);
	assert_int_equal(lb_build_set(set, 2, 2, &defaults, NULL, &a, &err), SIM_E_INPUT);
	lb_recording_free(&r1);
	lb_recording_free(&r2);
}

static char *write_tmp(const char *text)
{
	static char path[] = "/tmp/test_launch_build_XXXXXX";
	strcpy(path, "/tmp/test_launch_build_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_bad_input(void **st)
{
	(void)st;
	struct trace_fg *sel = NULL;
	struct sim_error err;
	assert_int_equal(trace_keep_add(&sel, "comm", "^app", "comm", &err), 0);
	struct lb_recording r;
	/* a broken line: the reader names file:line */
	char *p = write_tmp("  8,0    0        1     0.000000000  2001  Q   R 2048 + 8 [app]\n"
			    "  8,0    0        2     0.000100000     0  C   R 2048 + 8 [0]\n"
			    "  8,0    0        3     0.0001x0000  2001  Q   R 4096 + 8 [app]\n");
	char want[300];
	snprintf(want, sizeof(want), "%s:3", p);
	assert_int_equal(lb_read_trace(p, sel, &r, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, want));
	lb_recording_free(&r);
	remove(p);
	/* queued requests only: no gap can be measured */
	p = write_tmp("  8,0    0        1     0.000000000  2001  Q   R 2048 + 8 [app]\n"
		      "  8,0    0        2     0.000100000  2001  Q   R 4096 + 8 [app]\n");
	assert_int_equal(lb_read_trace(p, sel, &r, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, p));
	assert_non_null(strstr(err.msg, "completion"));
	lb_recording_free(&r);
	remove(p);
	/* nothing of the app */
	p = write_tmp("  8,0    0        1     0.000000000  2001  Q   R 2048 + 8 [other]\n"
		      "  8,0    0        2     0.000100000     0  C   R 2048 + 8 [0]\n");
	assert_int_equal(lb_read_trace(p, sel, &r, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "no read request"));
	lb_recording_free(&r);
	remove(p);
	trace_fg_free(sel);
}

/* Pairing: merged requests complete with the C that covers them; other
 * processes and writes are left out. */
static void test_read_pairs_completions(void **st)
{
	(void)st;
	struct trace_fg *sel = NULL;
	struct sim_error err;
	assert_int_equal(trace_keep_add(&sel, "comm", "^app", "comm", &err), 0);
	char *p = write_tmp("  8,0    0        1     0.000000000  2001  Q   R 2048 + 8 [app]\n"
			    "  8,0    0        2     0.000001000  2001  Q   R 2056 + 8 [app]\n"
			    "  8,0    0        3     0.000002000   900  Q   R 9000 + 8 [other]\n"
			    "  8,0    0        4     0.000003000  2001  D   R 2048 + 16 [app]\n"
			    "  8,0    0        5     0.000200000     0  C   R 2048 + 16 [0]\n"
			    "  8,0    0        6     0.000210000     0  C   R 9000 + 8 [0]\n"
			    "  8,0    0        7     0.000300000  2002  Q  WS 7000 + 8 [app-db]\n"
			    "  8,0    0        8     0.000500000  2002  Q   R 5000 + 8 [app-db]\n"
			    "  8,0    0        9     0.000600000     0  C   R 5000 + 8 [0]\n");
	struct lb_recording r;
	assert_int_equal(lb_read_trace(p, sel, &r, &err), 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.writes, 1);
	assert_int_equal(r.nth, 2);
	assert_int_equal(r.req[0].c_ns, 200 * US);
	assert_int_equal(r.req[1].c_ns, 200 * US);
	assert_int_equal(r.req[2].q_ns, 500 * US);
	assert_int_equal(r.req[2].c_ns, 600 * US);
	assert_string_equal(r.th[1].comm, "app-db");
	lb_recording_free(&r);
	remove(p);
	trace_fg_free(sel);
}

static void test_real_nvme_trace(void **st)
{
	(void)st;
	struct trace_fg *sel = NULL;
	struct sim_error err;
	assert_int_equal(trace_keep_add(&sel, "pid", "21279", "pid", &err), 0);
	struct lb_recording r;
	assert_int_equal(lb_read_trace("tests/data/blktrace-nvme-readahead/sample.blkparse.txt", sel,
				       &r, &err), 0);
	assert_int_equal(r.n, 963);
	assert_int_equal(r.uncompleted, 0);
	struct lb_plan p;
	assert_int_equal(lb_build(&r, &defaults, NULL, &p, &err), 0);
	assert_int_equal(p.nth, 1);
	/* a dependent reader: one request per batch, and CPU plus each
	 * batch's queue-to-completion add up to the recorded span */
	assert_int_equal(p.th[0].batches, 963);
	int64_t q2c = 0;
	for (size_t i = 0; i < r.n; i++)
		q2c += r.req[i].c_ns - r.req[i].q_ns;
	assert_int_equal(p.th[0].cpu_ns + q2c, p.span_ns);
	assert_in_range(p.span_ns, 340000000, 350000000); /* 0.3455 s (docs/workloads.md) */
	lb_plan_free(&p);
	lb_recording_free(&r);
	trace_fg_free(sel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gaps_per_thread),
		cmocka_unit_test(test_variation_range),
		cmocka_unit_test(test_recording_set),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_read_pairs_completions),
		cmocka_unit_test(test_real_nvme_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
