/* Tests for traces/perfetto.c over traces built with the protowire
 * encoder: block events of two CPU bundles come out in time order with
 * device, sector, direction and names (the bundle's comm, else the
 * process tree's); atrace B/E prints and track-event slices pair into
 * regions; compact sched and package lists are counted; a cut last packet
 * is a warning, refused under strict; a bad top-level field is an error at
 * its byte offset. The real Pixel trace in tests/data parses with its
 * counts. process_stats and oom_score_adj_update give the recording's own
 * foreground (oom_score_adj 0) that `--fg recorded` follows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "traces/protowire.h"
#include "traces/trace.h"

#define DEV_SDA ((8u << 20) | 0u)

/* Put msg into dst as field id, then free msg (it is copied). */
static void nest(struct pw_buf *dst, uint32_t id, struct pw_buf *msg)
{
	pw_put_msg(dst, id, msg);
	pw_buf_free(msg);
}

/* The fields every block event starts with: device, sector, sectors. */
static void blk_fields(struct pw_buf *x, uint64_t sector, uint64_t nr)
{
	pw_put_uint(x, 1, DEV_SDA);
	pw_put_uint(x, 2, sector);
	pw_put_uint(x, 3, nr);
}

static void packet(struct pw_buf *trace, struct pw_buf *pkt)
{
	pw_put_uint(pkt, 10, 1); /* trusted_packet_sequence_id */
	nest(trace, 1, pkt);
}

/* A packet whose field id is msg (both freed once written). */
static void packet_msg(struct pw_buf *trace, struct pw_buf *pkt, uint32_t id, struct pw_buf *msg)
{
	nest(pkt, id, msg);
	packet(trace, pkt);
}

static void event(struct pw_buf *bundle, uint64_t ts, uint32_t pid, uint32_t id, struct pw_buf *payload)
{
	struct pw_buf e = { 0 };
	pw_put_uint(&e, 1, ts);
	pw_put_uint(&e, 2, pid);
	pw_put_msg(&e, id, payload);
	nest(bundle, 2, &e);
	pw_buf_free(payload);
}

static void print_ev(struct pw_buf *bundle, uint64_t ts, uint32_t pid, const char *text)
{
	struct pw_buf p = { 0 };
	pw_put_uint(&p, 1, 0xffff0000);
	pw_put_str(&p, 2, text);
	event(bundle, ts, pid, 3, &p);
}

static void build(struct pw_buf *t)
{
	struct pw_buf pkt = { 0 }, m = { 0 }, x = { 0 }, b = { 0 }, cs = { 0 }, arr = { 0 };

	/* packages_list */
	pw_put_str(&x, 1, "com.example.app");
	pw_put_uint(&x, 2, 10123);
	nest(&m, 1, &x);
	packet_msg(t, &pkt, 47, &m);
	/* process_tree: the app (uid 10123) and its render thread */
	pw_put_uint(&x, 1, 4000);
	pw_put_str(&x, 3, "com.example.app");
	pw_put_uint(&x, 5, 10123);
	nest(&m, 1, &x);
	pw_put_uint(&x, 1, 4001);
	pw_put_str(&x, 2, "RenderThread");
	pw_put_uint(&x, 3, 4000);
	nest(&m, 2, &x);
	packet_msg(t, &pkt, 2, &m);
	/* CPU 1 bundle, written first: issue and complete */
	pw_put_uint(&b, 1, 1);
	blk_fields(&x, 100, 8);
	pw_put_uint(&x, 4, 4096);
	pw_put_str(&x, 5, "RS");
	pw_put_str(&x, 6, "kworker/1:1");
	event(&b, 2000, 4001, 45, &x);
	blk_fields(&x, 100, 8);
	pw_put_str(&x, 5, "RS");
	event(&b, 5000, 0, 125, &x);
	packet_msg(t, &pkt, 1, &b);
	/* CPU 0 bundle: the queue event before them, a slice, compact sched */
	pw_put_uint(&b, 1, 0);
	blk_fields(&x, 100, 8);
	pw_put_str(&x, 4, "RS");
	event(&b, 1000, 4001, 119, &x);
	print_ev(&b, 1500, 4001, "B|4000|bindApplication\n");
	print_ev(&b, 6000, 4001, "E|4000\n");
	print_ev(&b, 6001, 4001, "C|4000|counter|5\n");
	pw_put_varint(&arr, 1000);
	pw_put_varint(&arr, 50);
	nest(&cs, 1, &arr);
	pw_put_varint(&arr, 4002);
	pw_put_varint(&arr, 0);
	nest(&cs, 3, &arr);
	pw_put_str(&cs, 5, "worker");
	pw_put_str(&cs, 5, "swapper/0");
	pw_put_varint(&arr, 0);
	pw_put_varint(&arr, 1);
	nest(&cs, 6, &arr);
	nest(&b, 4, &cs);
	packet_msg(t, &pkt, 1, &b);
	/* a thread track and a track-event slice on it */
	pw_put_uint(&x, 1, 4000);
	pw_put_uint(&x, 2, 4000);
	pw_put_uint(&m, 1, 77);
	nest(&m, 4, &x);
	packet_msg(t, &pkt, 60, &m);
	pw_put_uint(&pkt, 8, 7000);
	pw_put_uint(&m, 9, 1);
	pw_put_uint(&m, 11, 77);
	pw_put_str(&m, 23, "inflate");
	packet_msg(t, &pkt, 11, &m);
	pw_put_uint(&pkt, 8, 9000);
	pw_put_uint(&m, 9, 2);
	pw_put_uint(&m, 11, 77);
	packet_msg(t, &pkt, 11, &m);
	assert_false(t->oom);
}

static int read_all(const void *buf, size_t len, const struct trace_opts *o, struct trace_rec *recs,
		    char comms[][17], int max, int *n, struct sim_error *err, char *rep, size_t rlen)
{
	struct trace_reader r;
	struct trace_rec rec;
	int rc = trace_open_mem_auto(buf, len, "t.pftrace", o, &r, err);
	if (rc)
		return rc;
	assert_string_equal(r.ops->name, "perfetto");
	*n = 0;
	while ((rc = trace_next(&r, &rec, err)) == 1) {
		if (*n < max) {
			recs[*n] = rec;
			snprintf(comms[*n], 17, "%s", rec.comm ? rec.comm : "");
		}
		(*n)++;
	}
	if (rep) {
		FILE *f = fmemopen(rep, rlen, "w");
		assert_non_null(f);
		r.ops->report(r.state, f);
		fclose(f);
	}
	trace_close(&r);
	return rc;
}

static void test_synthetic(void **state)
{
	struct pw_buf t = { 0 };
	struct trace_rec recs[4];
	char comms[4][17];
	struct sim_error err;
	static char rep[8192];
	int n;

	(void)state;
	build(&t);
	assert_int_equal(read_all(t.p, t.len, NULL, recs, comms, 4, &n, &err, rep, sizeof(rep)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(recs[0].action, TRACE_A_QUEUE);
	assert_int_equal(recs[0].time_ns, 0);
	assert_int_equal(recs[0].cpu, 0);
	assert_string_equal(comms[0], "RenderThread");
	assert_int_equal(recs[1].action, TRACE_A_ISSUE);
	assert_int_equal(recs[1].time_ns, 1000);
	assert_int_equal(recs[1].cpu, 1);
	assert_string_equal(comms[1], "kworker/1:1");
	assert_int_equal(recs[2].action, TRACE_A_COMPLETE);
	assert_int_equal(recs[2].time_ns, 4000);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(recs[i].dev_major, 8);
		assert_int_equal(recs[i].sector, 100);
		assert_int_equal(recs[i].nr_sectors, 8);
		assert_int_equal(recs[i].bytes, 4096);
		assert_int_equal(recs[i].dir, TRACE_DIR_READ);
	}
	assert_non_null(strstr(rep, "regions: 2 closed"));
	assert_non_null(strstr(rep, "compact sched: 2 switch"));
	assert_non_null(strstr(rep, "packages: 1"));
	assert_non_null(strstr(rep, "pid 4000 com.example.app: uid 10123 com.example.app"));
	assert_non_null(strstr(rep, "block_rq_issue"));
	assert_non_null(strstr(rep, "1 counters"));
	assert_null(strstr(rep, "warnings"));

	/* the last packet cut: a warning, refused under strict */
	static char rep2[8192];
	assert_int_equal(read_all(t.p, t.len - 3, NULL, recs, comms, 4, &n, &err, rep2, sizeof(rep2)), 0);
	assert_int_equal(n, 3);
	assert_non_null(strstr(rep2, "warnings: 1 (first: t.pftrace: byte offset"));
	assert_non_null(strstr(rep2, "regions: 1 closed"));
	struct trace_opts strict = { .strict = true };
	assert_int_equal(read_all(t.p, t.len - 3, &strict, recs, comms, 4, &n, &err, NULL, 0), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "cut short"));

	/* a top-level field that is not a packet: error at its offset */
	uint8_t *bad = malloc(t.len + 2);
	memcpy(bad, t.p, t.len);
	bad[t.len] = 0x10; /* field 2, varint */
	bad[t.len + 1] = 0x01;
	assert_int_equal(read_all(bad, t.len + 2, NULL, recs, comms, 4, &n, &err, NULL, 0), SIM_E_INPUT);
	char want[64];
	snprintf(want, sizeof(want), "byte offset %zu: expected a TracePacket", t.len);
	assert_non_null(strstr(err.msg, want));
	free(bad);
	pw_buf_free(&t);
}

/* SystemInfo (packet field 45): utsname.release is the kernel's uname -r,
 * which `workload fit` reads for the stack's era (sim/cli/fit_era.c). */
static void test_system_info_release(void **state)
{
	struct pw_buf t = { 0 }, pkt = { 0 }, si = { 0 }, u = { 0 };
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;

	(void)state;
	pw_put_str(&u, 1, "Linux");
	pw_put_str(&u, 3, "5.10.107-android13-4-00001-g0123");
	pw_put_str(&u, 4, "aarch64");
	nest(&si, 1, &u);
	pw_put_str(&si, 2, "google/bluejay/bluejay:13/TQ3A");
	packet_msg(&t, &pkt, 45, &si);
	build(&t);
	assert_int_equal(trace_open_mem_auto(t.p, t.len, "t.pftrace", NULL, &r, &err), 0);
	int n = 0, rc;
	while ((rc = trace_next(&r, &rec, &err)) == 1)
		n++;
	assert_int_equal(rc, 0);
	assert_int_equal(n, 3);
	assert_string_equal(r.diag.kernel_release, "5.10.107-android13-4-00001-g0123");
	trace_close(&r);
	pw_buf_free(&t);

	/* without it, nothing */
	build(&t);
	assert_int_equal(trace_open_mem_auto(t.p, t.len, "t.pftrace", NULL, &r, &err), 0);
	while (trace_next(&r, &rec, &err) == 1)
		;
	assert_string_equal(r.diag.kernel_release, "");
	trace_close(&r);
	pw_buf_free(&t);
}

/* The recording's own foreground: process_stats gives each process's
 * oom_score_adj, oom_score_adj_update changes it; a block event of a
 * process at 0 (FOREGROUND_APP_ADJ, the top app) is TRACE_T_FG, and
 * `--fg recorded` follows it as the app leaves the foreground. */
static void test_oom_foreground(void **state)
{
	struct pw_buf t = { 0 }, pkt = { 0 }, m = { 0 }, x = { 0 }, b = { 0 };
	struct trace_rec recs[4];
	char comms[4][17];
	struct sim_error err;
	static char rep[8192];
	int n;

	(void)state;
	/* the app 4000 (uid 10123) and its thread 4001; a service 5000 */
	pw_put_uint(&x, 1, 4000);
	pw_put_str(&x, 3, "com.example.app");
	pw_put_uint(&x, 5, 10123);
	nest(&m, 1, &x);
	pw_put_uint(&x, 1, 4001);
	pw_put_str(&x, 2, "RenderThread");
	pw_put_uint(&x, 3, 4000);
	nest(&m, 2, &x);
	packet_msg(&t, &pkt, 2, &m);
	/* process_stats: the app on top (0), the service cached (900),
	 * system_server -900 (a negative varint) */
	pw_put_uint(&x, 1, 4000);
	pw_put_uint(&x, 10, 0);
	nest(&m, 1, &x);
	pw_put_uint(&x, 1, 5000);
	pw_put_uint(&x, 10, 900);
	nest(&m, 1, &x);
	pw_put_uint(&x, 1, 612);
	pw_put_uint(&x, 10, (uint64_t)(int64_t)-900);
	nest(&m, 1, &x);
	packet_msg(&t, &pkt, 9, &m);
	/* one bundle: the app's queue, the service's, the app sent back
	 * (oom_score_adj_update to 700), the app's queue again */
	pw_put_uint(&b, 1, 0);
	blk_fields(&x, 100, 8);
	pw_put_str(&x, 4, "R");
	event(&b, 1000, 4001, 119, &x);
	blk_fields(&x, 200, 8);
	pw_put_str(&x, 4, "W");
	event(&b, 2000, 5000, 119, &x);
	pw_put_str(&x, 1, "com.example.app");
	pw_put_uint(&x, 2, 700);
	pw_put_uint(&x, 3, 4000);
	event(&b, 3000, 1000, 326, &x);
	blk_fields(&x, 300, 8);
	pw_put_str(&x, 4, "R");
	event(&b, 4000, 4001, 119, &x);
	packet_msg(&t, &pkt, 1, &b);
	assert_false(t.oom);

	assert_int_equal(read_all(t.p, t.len, NULL, recs, comms, 4, &n, &err, rep, sizeof(rep)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(recs[0].tflags & (TRACE_T_FG_KNOWN | TRACE_T_FG), TRACE_T_FG_KNOWN | TRACE_T_FG);
	assert_int_equal(recs[0].uid, 10123);
	assert_int_equal(recs[1].tflags & (TRACE_T_FG_KNOWN | TRACE_T_FG), TRACE_T_FG_KNOWN);
	assert_int_equal(recs[2].tflags & (TRACE_T_FG_KNOWN | TRACE_T_FG), TRACE_T_FG_KNOWN);
	assert_non_null(strstr(rep, "foreground (oom_score_adj 0, the top app): 4 updates"));
	assert_non_null(strstr(rep, "block records with a known state 3, foreground 1"));
	assert_non_null(strstr(rep, "oom_score_adj_update"));

	struct trace_fg *fg = NULL;
	assert_int_equal(trace_fg_add(&fg, "recorded", &err), 0);
	assert_true(trace_fg_match(fg, &recs[0]));
	assert_false(trace_fg_match(fg, &recs[1]));
	assert_false(trace_fg_match(fg, &recs[2]));
	assert_int_equal(trace_fg_needs(fg), TRACE_ID_FG);
	trace_fg_free(fg);
	pw_buf_free(&t);
}

static void test_malformed_packet_skipped(void **state)
{
	struct pw_buf t = { 0 }, pkt = { 0 }, b = { 0 }, x = { 0 };
	struct trace_rec recs[4];
	char comms[4][17];
	struct sim_error err;
	static char rep[8192];
	int n;

	(void)state;
	/* a bundle whose second event claims more bytes than it holds */
	pw_put_uint(&b, 1, 0);
	blk_fields(&x, 8, 8);
	pw_put_str(&x, 4, "W");
	event(&b, 10, 1, 119, &x);
	static const uint8_t cut[] = { 0x08, 0x8f, 0x8f }; /* timestamp varint cut short */
	pw_put_bytes(&b, 2, cut, sizeof(cut));
	packet_msg(&t, &pkt, 1, &b);
	assert_int_equal(read_all(t.p, t.len, NULL, recs, comms, 4, &n, &err, rep, sizeof(rep)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(recs[0].dir, TRACE_DIR_WRITE);
	assert_non_null(strstr(rep, "malformed FtraceEvent"));
	struct trace_opts strict = { .strict = true };
	assert_int_equal(read_all(t.p, t.len, &strict, recs, comms, 4, &n, &err, NULL, 0), SIM_E_INPUT);
	pw_buf_free(&t);
}

static void test_pixel_trace(void **state)
{
	const char *src = getenv("MOBISIM_SRC");
	char path[4096];
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	static char rep[16384];
	int rc, n = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/perfetto-pixel/trace.perfetto-trace", src ? src : ".");
	assert_int_equal(trace_open_auto(path, NULL, &r, &err), 0);
	assert_string_equal(r.ops->name, "perfetto");
	while ((rc = trace_next(&r, &rec, &err)) == 1)
		n++;
	assert_int_equal(rc, 0);
	assert_int_equal(n, 0); /* the recording has no block events */
	FILE *f = fmemopen(rep, sizeof(rep), "w");
	r.ops->report(r.state, f);
	fclose(f);
	trace_close(&r);
	assert_non_null(strstr(rep, "packets:  7676 (ftrace bundles 177"));
	assert_non_null(strstr(rep, "ftrace events: 6246"));
	assert_non_null(strstr(rep, "print"));
	assert_null(strstr(rep, "warnings"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_malformed_packet_skipped),
		cmocka_unit_test(test_oom_foreground),
		cmocka_unit_test(test_pixel_trace),
		cmocka_unit_test(test_system_info_release),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
