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

/* Two sync reads of one pid: C of the first at 100 us, next Q at 150 us
 * (think time 50 us); the device takes 1000 us per I/O. */
static void write_sync_pair(struct tf *t, const char *rwbs)
{
	tf_open(t);
	ev(t, "app", 100, 0, "Q", rwbs, 0, 8);
	ev(t, "app", 100, 100, "C", rwbs, 0, 8);
	ev(t, "app", 100, 150, "Q", rwbs, 1000, 8);
	ev(t, "app", 100, 250, "C", rwbs, 1000, 8);
	tf_close(t);
}

static void test_replay_closed_waits_for_sync_predecessor_plus_think(void **state)
{
	(void)state;
	struct tf t;
	write_sync_pair(&t, "R");
	struct run r;
	run_replay(&r, t.path, NULL, NULL, 1000);
	assert_string_equal(r.s->replay, "closed");
	/* second read issued at 1000 (completion) + 50 (think): both 1000 us, end at 2050 us */
	const struct sim_opstat *rd = op(&r, SIM_CLASS_FG, SIM_OP_READ);
	assert_int_equal(rd->count, 2);
	assert_int_equal(rd->lat.max, 1000 * US);
	assert_int_equal(rd->lat.min, 1000 * US);
	assert_int_equal(sim_now(r.s), 2050 * US);
	const struct sim_waitstat *w = &r.s->metrics.cls[SIM_CLASS_FG].wait[SIM_WAIT_SYNC_IO];
	assert_int_equal(w->count, 1);
	assert_int_equal(w->total_ns, 1000 * US);
	assert_int_equal(stat_int(&r, "dependent_ios"), 1);
	assert_int_equal(stat_int(&r, "ios_injected"), 2);
	assert_int_equal(stat_int(&r, "recorded_completions_matched"), 2);
	run_free(&r);
	unlink(t.path);
}

static void test_replay_open_keeps_recorded_times(void **state)
{
	(void)state;
	struct tf t;
	write_sync_pair(&t, "R");
	struct run r;
	run_replay(&r, t.path, NULL, "  replay: open\n", 1000);
	assert_string_equal(r.s->replay, "open");
	/* second read arrives at 150 us, waits for the server until 1000 us */
	const struct sim_opstat *rd = op(&r, SIM_CLASS_FG, SIM_OP_READ);
	assert_int_equal(rd->count, 2);
	assert_int_equal(rd->lat.min, 1000 * US);
	assert_int_equal(rd->lat.max, 1850 * US);
	assert_int_equal(sim_now(r.s), 2000 * US);
	assert_int_equal(r.s->metrics.cls[SIM_CLASS_FG].wait[SIM_WAIT_SYNC_IO].count, 0);
	run_free(&r);
	unlink(t.path);
}

static void test_replay_top_level_replay_key_wins(void **state)
{
	(void)state;
	struct tf t;
	write_sync_pair(&t, "R");
	struct run r;
	/* what `--set replay=open` produces, against workload.replay: closed */
	run_replay(&r, t.path, "replay: open\n", "  replay: closed\n", 1000);
	assert_string_equal(r.s->replay, "open");
	assert_int_equal(sim_now(r.s), 2000 * US);
	run_free(&r);
	unlink(t.path);
}

static void test_replay_async_write_does_not_block(void **state)
{
	(void)state;
	struct tf t;
	write_sync_pair(&t, "W"); /* async: no S */
	struct run r;
	run_replay(&r, t.path, NULL, NULL, 1000);
	/* the second write follows the first's issue by the recorded 150 us */
	const struct sim_opstat *wr = op(&r, SIM_CLASS_FG, SIM_OP_WRITE);
	assert_int_equal(wr->count, 2);
	assert_int_equal(wr->lat.max, 1850 * US);
	assert_int_equal(sim_now(r.s), 2000 * US);
	run_free(&r);
	unlink(t.path);

	/* the same with sync writes blocks like reads */
	write_sync_pair(&t, "WS");
	run_replay(&r, t.path, NULL, NULL, 1000);
	wr = op(&r, SIM_CLASS_FG, SIM_OP_WRITE);
	assert_int_equal(wr->lat.max, 1000 * US);
	assert_int_equal(sim_now(r.s), 2050 * US);
	run_free(&r);
	unlink(t.path);
}

static void test_replay_recorded_overlap_does_not_block(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	/* the trace shows the second read queued before the first completed */
	ev(&t, "app", 100, 0, "Q", "R", 0, 8);
	ev(&t, "app", 100, 10, "Q", "R", 5000, 8);
	ev(&t, "app", 100, 100, "C", "R", 0, 8);
	ev(&t, "app", 100, 110, "C", "R", 5000, 8);
	tf_close(&t);
	struct run r;
	run_replay(&r, t.path, NULL, NULL, 1000);
	assert_int_equal(sim_now(r.s), 2000 * US);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_READ)->lat.max, 1990 * US);
	assert_int_equal(stat_int(&r, "overlapped_ios"), 1);
	run_free(&r);
	unlink(t.path);
}

static void test_replay_pids_are_independent(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	/* two processes, one sync read each at t = 0 and t = 10 us; the second
	 * process does not wait for the first */
	ev(&t, "a", 100, 0, "Q", "R", 0, 8);
	ev(&t, "b", 200, 10, "Q", "R", 9000, 8);
	ev(&t, "a", 100, 100, "C", "R", 0, 8);
	ev(&t, "b", 200, 110, "C", "R", 9000, 8);
	tf_close(&t);
	struct run r;
	run_replay(&r, t.path, NULL, NULL, 1000);
	assert_int_equal(sim_now(r.s), 2000 * US);
	assert_int_equal(stat_int(&r, "pids"), 2);
	run_free(&r);
	unlink(t.path);
}

static void test_replay_d_only_trace_uses_d_events(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	ev(&t, "app", 100, 0, "D", "R", 0, 8);
	ev(&t, "app", 100, 100, "C", "R", 0, 8);
	ev(&t, "app", 100, 150, "D", "R", 64, 8);
	ev(&t, "app", 100, 250, "C", "R", 64, 8);
	tf_close(&t);
	struct run r;
	run_replay(&r, t.path, NULL, NULL, 1000);
	assert_string_equal(json_string_value(json_object_get(r.stats, "io_event")), "D");
	assert_int_equal(stat_int(&r, "ios_injected"), 2);
	assert_int_equal(sim_now(r.s), 2050 * US);
	run_free(&r);
	unlink(t.path);
}

static void test_replay_fg_from_process_name_patterns(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	ev(&t, "com.google.android.apps.photos", 100, 0, "Q", "R", 0, 8);
	ev(&t, "kworker/u16:1", 200, 5, "Q", "W", 4096, 8);
	ev(&t, "com.google.android.apps.photos", 100, 100, "C", "R", 0, 8);
	ev(&t, "kworker/u16:1", 200, 105, "C", "W", 4096, 8);
	tf_close(&t);
	struct run r;
	run_replay(&r, t.path, NULL, "  fg_comm: [\"com.google.android.apps.photos*\"]\n", 100);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_READ)->count, 1);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_WRITE)->count, 0);
	assert_int_equal(op(&r, SIM_CLASS_BG, SIM_OP_WRITE)->count, 1);
	assert_int_equal(op(&r, SIM_CLASS_BG, SIM_OP_READ)->count, 0);
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
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_closed_waits_for_sync_predecessor_plus_think),
		cmocka_unit_test(test_replay_open_keeps_recorded_times),
		cmocka_unit_test(test_replay_top_level_replay_key_wins),
		cmocka_unit_test(test_replay_async_write_does_not_block),
		cmocka_unit_test(test_replay_recorded_overlap_does_not_block),
		cmocka_unit_test(test_replay_pids_are_independent),
		cmocka_unit_test(test_replay_d_only_trace_uses_d_events),
		cmocka_unit_test(test_replay_fg_from_process_name_patterns),
		cmocka_unit_test(test_replay_without_recorded_completions_thinks_from_queue_time),
		cmocka_unit_test(test_replay_get_request_sleep_keeps_order),
		cmocka_unit_test(test_replay_memory_bounded_by_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
