/* Tests for traces/workloads/replay.c: closed loop delays a pid's next I/O until its
 * sync predecessor completed in the simulation plus the recorded think
 * time, open loop keeps recorded times, async writes and I/Os the trace
 * shows overlapping do not block, D-only traces replay their D events,
 * the top-level `replay:` key wins, fg comes from process-name patterns,
 * and the live I/O objects stay bounded over a long generated trace.
 *
 * Traces are written as ftrace text (pids and names on every line) into a
 * temporary file; the device is the ideal fixed-service model, one
 * server, so every latency is predictable to the nanosecond.
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

#include "sim/config.h"
#include "sim/metrics.h"
#include "sim/sim.h"
#include "sim/workload.h"
#include "tests/case_table.h"

#define US 1000LL

struct tf {
	char path[64];
	FILE *f;
};

static void tf_open(struct tf *t)
{
	snprintf(t->path, sizeof(t->path), "/tmp/mobisim-replay-XXXXXX");
	int fd = mkstemp(t->path);
	assert_true(fd >= 0);
	t->f = fdopen(fd, "w");
	assert_non_null(t->f);
	fprintf(t->f, "# tracer: nop\n");
}

/* One ftrace block event at t_us for pid/comm. */
static void ev(struct tf *t, const char *comm, int pid, double t_us, const char *what,
	       const char *rwbs, uint64_t sector, uint32_t nr)
{
	double s = 100.0 + t_us / 1e6;
	if (!strcmp(what, "Q"))
		fprintf(t->f, "  %s-%d [000] .... %.6f: block_bio_queue: 8,0 %s %llu + %u [%s]\n", comm,
			pid, s, rwbs, (unsigned long long)sector, nr, comm);
	else if (!strcmp(what, "D"))
		fprintf(t->f, "  %s-%d [000] .... %.6f: block_rq_issue: 8,0 %s 0 () %llu + %u [%s]\n",
			comm, pid, s, rwbs, (unsigned long long)sector, nr, comm);
	else
		fprintf(t->f, "  <idle>-0 [000] d.h. %.6f: block_rq_complete: 8,0 %s () %llu + %u [0]\n",
			s, rwbs, (unsigned long long)sector, nr);
}

static void tf_close(struct tf *t)
{
	fclose(t->f);
}

struct run {
	struct sim *s;
	json_t *stats;
};

/* Build and run a replay scenario over trace with a fixed-service device. */
static void run_replay(struct run *out, const char *trace, const char *extra_top,
		       const char *extra_wl, int64_t service_us)
{
	char yaml[4096];
	snprintf(yaml, sizeof(yaml),
		 "seed: 1\n"
		 "device: {model: ideal, service: fixed, mean_us: %lld, servers: 1}\n"
		 "scheduler: noop\n"
		 "%s"
		 "workload:\n"
		 "  type: replay\n"
		 "  trace: %s\n"
		 "%s",
		 (long long)service_us, extra_top ? extra_top : "", trace, extra_wl ? extra_wl : "");
	struct cfg_doc *doc;
	struct sim_error err;
	if (cfg_load_string(yaml, strlen(yaml), "test.yaml", &doc, &err))
		fail_msg("%s", err.msg);
	struct sim_options opt = { .seed = 1, .quiet = true };
	if (sim_create(doc, "test.yaml", &opt, &out->s, &err))
		fail_msg("%s", err.msg);
	if (sim_run(out->s, &err))
		fail_msg("%s", err.msg);
	out->stats = json_object();
	out->s->workload->ops->stats_json(out->s, out->s->workload->state, out->stats);
}

static void run_free(struct run *r)
{
	json_decref(r->stats);
	sim_destroy(r->s);
}

static int64_t stat_int(const struct run *r, const char *key)
{
	json_t *v = json_object_get(r->stats, key);
	assert_non_null(v);
	return (int64_t)json_integer_value(v);
}

static const struct sim_opstat *op(const struct run *r, enum sim_class c, enum sim_op o)
{
	return &r->s->metrics.cls[c].op[o];
}

/* A four-event trace replayed on the fixed-service device, and what the
 * run must show. The checks are a list, so that each row states exactly
 * what it asserts. */
struct tev {
	const char *comm;
	int pid;
	double t_us;
	const char *what, *rwbs;
	uint64_t sector;
};

enum chk_kind { CHK_END = 1, CHK_MODE, CHK_COUNT, CHK_LAT_MIN, CHK_LAT_MAX, CHK_SYNC_WAITS,
		CHK_SYNC_WAIT_NS, CHK_STAT, CHK_IO_EVENT };

struct chk {
	enum chk_kind k;
	enum sim_class cls;
	enum sim_op op;
	const char *key;  /* CHK_STAT: the stats key; CHK_MODE, CHK_IO_EVENT: the value */
	int64_t v;
};

#define END(us) { .k = CHK_END, .v = (us) * US }
#define MODE(m) { .k = CHK_MODE, .key = (m) }
#define COUNT(c, o, n) { .k = CHK_COUNT, .cls = SIM_CLASS_##c, .op = SIM_OP_##o, .v = (n) }
#define LAT_MIN(c, o, us) { .k = CHK_LAT_MIN, .cls = SIM_CLASS_##c, .op = SIM_OP_##o, .v = (us) * US }
#define LAT_MAX(c, o, us) { .k = CHK_LAT_MAX, .cls = SIM_CLASS_##c, .op = SIM_OP_##o, .v = (us) * US }
#define SYNC_WAITS(n) { .k = CHK_SYNC_WAITS, .v = (n) }
#define SYNC_WAIT_NS(us) { .k = CHK_SYNC_WAIT_NS, .v = (us) * US }
#define STAT(name, n) { .k = CHK_STAT, .key = (name), .v = (n) }
#define IO_EVENT(e) { .k = CHK_IO_EVENT, .key = (e) }

struct replay_row {
	const char *name;
	struct tev ev[4];
	const char *top, *wl;  /* scenario lines at the top level and under workload: */
	int64_t service_us;
	struct chk chk[10];     /* up to the first with k == 0 */
};

/* Two sync I/Os of one pid: C of the first at 100 us, next Q at 150 us
 * (think time 50 us); the device takes 1000 us per I/O. */
#define SYNC_PAIR(rwbs)                                                                          \
	{ { "app", 100, 0, "Q", rwbs, 0 }, { "app", 100, 100, "C", rwbs, 0 },                     \
	  { "app", 100, 150, "Q", rwbs, 1000 }, { "app", 100, 250, "C", rwbs, 1000 } }

static const struct replay_row replay_rows[] = {
	/* second read issued at 1000 (completion) + 50 (think): both 1000 us,
	 * end at 2050 us */
	{ "closed loop waits for the sync predecessor plus think time", SYNC_PAIR("R"), NULL, NULL, 1000,
	  { MODE("closed"), COUNT(FG, READ, 2), LAT_MAX(FG, READ, 1000), LAT_MIN(FG, READ, 1000),
	    END(2050), SYNC_WAITS(1), SYNC_WAIT_NS(1000), STAT("dependent_ios", 1),
	    STAT("ios_injected", 2), STAT("recorded_completions_matched", 2) } },
	/* second read arrives at 150 us, waits for the server until 1000 us */
	{ "open loop keeps the recorded times", SYNC_PAIR("R"), NULL, "  replay: open\n", 1000,
	  { MODE("open"), COUNT(FG, READ, 2), LAT_MIN(FG, READ, 1000), LAT_MAX(FG, READ, 1850),
	    END(2000), SYNC_WAITS(0) } },
	/* what `--set replay=open` produces, against workload.replay: closed */
	{ "the top-level replay key wins", SYNC_PAIR("R"), "replay: open\n", "  replay: closed\n", 1000,
	  { MODE("open"), END(2000) } },
	/* async: no S; the second write follows the first's issue by the
	 * recorded 150 us */
	{ "an async write does not block", SYNC_PAIR("W"), NULL, NULL, 1000,
	  { COUNT(FG, WRITE, 2), LAT_MAX(FG, WRITE, 1850), END(2000) } },
	/* the same with sync writes blocks like reads */
	{ "a sync write blocks like a read", SYNC_PAIR("WS"), NULL, NULL, 1000,
	  { LAT_MAX(FG, WRITE, 1000), END(2050) } },
	/* the trace shows the second read queued before the first completed */
	{ "an overlap in the recording does not block",
	  { { "app", 100, 0, "Q", "R", 0 }, { "app", 100, 10, "Q", "R", 5000 },
	    { "app", 100, 100, "C", "R", 0 }, { "app", 100, 110, "C", "R", 5000 } },
	  NULL, NULL, 1000, { END(2000), LAT_MAX(FG, READ, 1990), STAT("overlapped_ios", 1) } },
	/* two processes, one sync read each at t = 0 and t = 10 us; the second
	 * process does not wait for the first */
	{ "pids are independent",
	  { { "a", 100, 0, "Q", "R", 0 }, { "b", 200, 10, "Q", "R", 9000 },
	    { "a", 100, 100, "C", "R", 0 }, { "b", 200, 110, "C", "R", 9000 } },
	  NULL, NULL, 1000, { END(2000), STAT("pids", 2) } },
	{ "a D-only trace replays its D events",
	  { { "app", 100, 0, "D", "R", 0 }, { "app", 100, 100, "C", "R", 0 },
	    { "app", 100, 150, "D", "R", 64 }, { "app", 100, 250, "C", "R", 64 } },
	  NULL, NULL, 1000, { IO_EVENT("D"), STAT("ios_injected", 2), END(2050) } },
	{ "fg comes from process-name patterns",
	  { { "com.google.android.apps.photos", 100, 0, "Q", "R", 0 },
	    { "kworker/u16:1", 200, 5, "Q", "W", 4096 },
	    { "com.google.android.apps.photos", 100, 100, "C", "R", 0 },
	    { "kworker/u16:1", 200, 105, "C", "W", 4096 } },
	  NULL, "  fg_comm: [\"com.google.android.apps.photos*\"]\n", 100,
	  { COUNT(FG, READ, 1), COUNT(FG, WRITE, 0), COUNT(BG, WRITE, 1), COUNT(BG, READ, 0) } },
};

static void expect(const struct replay_row *row, const char *what, int64_t got, int64_t want)
{
	if (got != want)
		fail_msg("%s: %s is %lld, expected %lld", row->name, what, (long long)got, (long long)want);
}

static void test_replay_row(void **state)
{
	const struct replay_row *row = *state;
	const struct sim_waitstat *w;
	struct tf t;
	struct run r;

	tf_open(&t);
	for (int i = 0; i < 4; i++)
		ev(&t, row->ev[i].comm, row->ev[i].pid, row->ev[i].t_us, row->ev[i].what, row->ev[i].rwbs,
		   row->ev[i].sector, 8);
	tf_close(&t);
	run_replay(&r, t.path, row->top, row->wl, row->service_us);
	w = &r.s->metrics.cls[SIM_CLASS_FG].wait[SIM_WAIT_SYNC_IO];
	for (const struct chk *c = row->chk; c < row->chk + 10 && c->k; c++) {
		switch (c->k) {
		case CHK_END:
			expect(row, "the end time", sim_now(r.s), c->v);
			break;
		case CHK_MODE:
			if (!r.s->replay || strcmp(r.s->replay, c->key))
				fail_msg("%s: replay is %s, expected %s", row->name,
					 r.s->replay ? r.s->replay : "(none)", c->key);
			break;
		case CHK_COUNT:
			expect(row, "an I/O count", (int64_t)op(&r, c->cls, c->op)->count, c->v);
			break;
		case CHK_LAT_MIN:
			expect(row, "the shortest latency", op(&r, c->cls, c->op)->lat.min, c->v);
			break;
		case CHK_LAT_MAX:
			expect(row, "the longest latency", op(&r, c->cls, c->op)->lat.max, c->v);
			break;
		case CHK_SYNC_WAITS:
			expect(row, "the FG sync I/O waits", (int64_t)w->count, c->v);
			break;
		case CHK_SYNC_WAIT_NS:
			expect(row, "the FG sync I/O wait time", w->total_ns, c->v);
			break;
		case CHK_STAT:
			expect(row, c->key, stat_int(&r, c->key), c->v);
			break;
		case CHK_IO_EVENT: {
			const char *e = json_string_value(json_object_get(r.stats, "io_event"));

			if (!e || strcmp(e, c->key))
				fail_msg("%s: io_event is %s, expected %s", row->name, e ? e : "(none)", c->key);
			break;
		}
		}
	}
	run_free(&r);
	unlink(t.path);
}

static void test_replay_without_recorded_completions_thinks_from_queue_time(void **state)
{
	(void)state;
	/* DiskSim/MQSim ASCII: arrivals only (ns, dev, lba, sectors, 1 = read) */
	char path[] = "/tmp/mobisim-replay-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	dprintf(fd, "1000000 0 0 8 1\n1150000 0 4096 8 1\n");
	close(fd);
	struct run r;
	run_replay(&r, path, NULL, NULL, 1000);
	/* the gap counts from the first read's queue time: 1000 + 150 us */
	assert_int_equal(sim_now(r.s), 2150 * US);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_READ)->lat.max, 1000 * US);
	run_free(&r);
	unlink(path);
}

static void test_replay_get_request_sleep_keeps_order(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	/* a burst of 20 async writes, far apart on disk, with room for 4 requests */
	for (int i = 0; i < 20; i++)
		ev(&t, "flusher", 300, i, "Q", "W", (uint64_t)i * 100000, 8);
	tf_close(&t);
	struct run r;
	char top[] = "block: {nr_requests: 4}\n";
	run_replay(&r, t.path, top, "  replay: open\n", 100);
	assert_int_equal(stat_int(&r, "ios_completed"), 20);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_WRITE)->count, 20);
	/* one server of 100 us: the device ran back to back */
	assert_int_equal(sim_now(r.s), 2000 * US);
	assert_true(r.s->metrics.cls[SIM_CLASS_FG].wait[SIM_WAIT_GET_REQUEST].count > 0);
	run_free(&r);
	unlink(t.path);
}

/* A long trace, 4 pids of sync reads, on a device 10x slower than the
 * recording: the simulation falls ever further behind the recorded
 * clock, yet the live I/O objects stay within the read-ahead window. */
static int64_t long_run_peak(int n, int64_t *completed)
{
	struct tf t;
	tf_open(&t);
	double now = 0;
	for (int i = 0; i < n; i++) {
		int pid = 100 + i % 4;
		char comm[16];
		snprintf(comm, sizeof(comm), "w%d", pid);
		uint64_t sec = (uint64_t)i * 8;
		ev(&t, comm, pid, now, "Q", "R", sec, 8);
		ev(&t, comm, pid, now + 20, "C", "R", sec, 8);
		now += 25;
	}
	tf_close(&t);
	struct run r;
	run_replay(&r, t.path, NULL, "  window_ios: 256\n", 200);
	*completed = stat_int(&r, "ios_completed");
	int64_t peak = stat_int(&r, "peak_live_ios");
	run_free(&r);
	unlink(t.path);
	return peak;
}

static void test_replay_memory_bounded_by_window(void **state)
{
	(void)state;
	int64_t done_short, done_long;
	int64_t peak_short = long_run_peak(2000, &done_short);
	int64_t peak_long = long_run_peak(40000, &done_long);
	assert_int_equal(done_short, 2000);
	assert_int_equal(done_long, 40000);
	/* window + the I/Os in flight (one per pid) + their anchors */
	assert_true(peak_long <= 256 + 8);
	assert_true(peak_long <= peak_short + 8);
}

int main(void)
{
	const struct CMUnitTest named[] = {
		cmocka_unit_test(test_replay_without_recorded_completions_thinks_from_queue_time),
		cmocka_unit_test(test_replay_get_request_sleep_keeps_order),
		cmocka_unit_test(test_replay_memory_bounded_by_window),
	};
	struct CMUnitTest tests[CASE_COUNT(replay_rows) + CASE_COUNT(named)];

	CASE_TESTS(tests, replay_rows, test_replay_row);
	memcpy(tests + CASE_COUNT(replay_rows), named, sizeof(named));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
