/* Tests for the file-level replay of Perfetto's android_fs events
 * (traces/perfetto.c with trace_opts.file_events, traces/workloads/
 * ftrace_replay.c): the reader returns dataread/datawrite/fsync starts as
 * file records with path, offset, bytes, i_size, pid and command line
 * (only when asked: by default they are counted); replayed, a read of a
 * named file misses once and hits the simulated page cache the second
 * time, a write is buffered until its fsync, which waits for the device;
 * an event without a path is counted and left to the block level; block
 * events are counted, not replayed. The trace is built with the protowire
 * encoder; the device is the ideal fixed-service model (1000 us). The same
 * events as ftrace text (android_fs_* and f2fs_data*_start lines, the
 * kernel's TP_printk form) replay the same way.
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
#include "traces/protowire.h"
#include "traces/trace.h"

#define MS 1000000ULL
#define US 1000LL

static void nest(struct pw_buf *dst, uint32_t id, struct pw_buf *msg)
{
	pw_put_msg(dst, id, msg);
	pw_buf_free(msg);
}

/* An android_fs data start event (id 432 read, 434 write) or fsync (436). */
static void fs_event(struct pw_buf *bundle, uint64_t ts, uint32_t pid, uint32_t id, const char *path,
		     uint64_t off, uint32_t bytes, uint64_t isize, const char *cmd)
{
	struct pw_buf x = { 0 }, e = { 0 };
	bool fsync = id == 436;
	if (!fsync)
		pw_put_uint(&x, 1, bytes);
	pw_put_str(&x, fsync ? 1 : 2, cmd);
	pw_put_uint(&x, fsync ? 2 : 3, isize);
	pw_put_uint(&x, fsync ? 3 : 4, 4242);
	if (!fsync)
		pw_put_uint(&x, 5, off);
	if (path)
		pw_put_str(&x, fsync ? 4 : 6, path);
	pw_put_uint(&x, fsync ? 5 : 7, pid);
	pw_put_uint(&e, 1, ts);
	pw_put_uint(&e, 2, pid);
	nest(&e, id, &x);
	nest(bundle, 2, &e);
}

static void build(struct pw_buf *trace)
{
	struct pw_buf pkt = { 0 }, b = { 0 }, x = { 0 }, e = { 0 };
	pw_put_uint(&b, 1, 0); /* cpu */
	fs_event(&b, 1 * MS, 100, 432, "/data/app/base.apk", 0, 65536, 1 << 20, "com.example.app");
	fs_event(&b, 20 * MS, 100, 432, "/data/app/base.apk", 0, 65536, 1 << 20, "com.example.app");
	fs_event(&b, 30 * MS, 101, 434, "/data/data/com.example.app/db", 0, 4096, 0, "com.example.app");
	fs_event(&b, 31 * MS, 101, 436, "/data/data/com.example.app/db", 0, 0, 4096, "com.example.app");
	fs_event(&b, 40 * MS, 100, 432, NULL, 8192, 4096, 1 << 20, "com.example.app");
	/* a block event: counted, the simulation makes its own */
	pw_put_uint(&x, 1, 8u << 20);
	pw_put_uint(&x, 2, 2048);
	pw_put_uint(&x, 3, 128);
	pw_put_str(&x, 4, "R");
	pw_put_uint(&e, 1, 2 * MS);
	pw_put_uint(&e, 2, 100);
	nest(&e, 119, &x);
	nest(&b, 2, &e);
	nest(&pkt, 1, &b);
	pw_put_uint(&pkt, 10, 1);
	nest(trace, 1, &pkt);
}

static void test_reader_file_records(void **state)
{
	(void)state;
	struct pw_buf t = { 0 };
	build(&t);
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	/* default: block records only */
	assert_int_equal(trace_open_mem_auto(t.p, t.len, "fs.pftrace", NULL, &r, &err), 0);
	int n = 0, rc;
	while ((rc = trace_next(&r, &rec, &err)) == 1) {
		assert_int_equal(rec.kind, TRACE_REC_BLOCK);
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 1);
	trace_close(&r);
	/* asked for: the five file events in time order, with their fields */
	struct trace_opts o = { .file_events = true };
	assert_int_equal(trace_open_mem_auto(t.p, t.len, "fs.pftrace", &o, &r, &err), 0);
	int files = 0, blocks = 0;
	while ((rc = trace_next(&r, &rec, &err)) == 1) {
		if (rec.kind == TRACE_REC_BLOCK) {
			blocks++;
			continue;
		}
		assert_int_equal(rec.kind, TRACE_REC_FILE);
		files++;
		if (files == 1) {
			assert_string_equal(rec.path, "/data/app/base.apk");
			assert_int_equal(rec.dir, TRACE_DIR_READ);
			assert_int_equal(rec.bytes, 65536);
			assert_int_equal(rec.file_off, 0);
			assert_int_equal(rec.file_size, 1 << 20);
			assert_int_equal(rec.ino, 4242);
			assert_int_equal(rec.pid, 100);
			assert_string_equal(rec.comm, "com.example.app");
			assert_int_equal(rec.time_ns, 0);
		} else if (files == 3) {
			assert_int_equal(rec.dir, TRACE_DIR_WRITE);
			assert_int_equal(rec.pid, 101);
		} else if (files == 4) {
			assert_int_equal(rec.dir, TRACE_DIR_NONE);
			assert_string_equal(rec.path, "/data/data/com.example.app/db");
		} else if (files == 5) {
			assert_string_equal(rec.path, "");
			assert_int_equal(rec.file_off, 8192);
		}
	}
	assert_int_equal(rc, 0);
	assert_int_equal(files, 5);
	assert_int_equal(blocks, 1);
	trace_close(&r);
	pw_buf_free(&t);
}

/* Replay trace through the ideal device with the app in the foreground;
 * *stats gets the workload's result object. */
static struct sim *run_trace(const char *trace, json_t **stats)
{
	char yaml[1024];
	snprintf(yaml, sizeof(yaml),
		 "seed: 1\n"
		 "device: {model: ideal, service: fixed, mean_us: 1000, servers: 1}\n"
		 "scheduler: noop\n"
		 "fs: {cold_metadata: false}\n"
		 "workload: {type: ftrace, trace: %s, fg_comm: [\"com.example.app\"]}\n", trace);
	struct cfg_doc *doc;
	struct sim_error err = { 0 };
	if (cfg_load_string(yaml, strlen(yaml), "test.yaml", &doc, &err))
		fail_msg("%s", err.msg);
	struct sim_options opt = { .seed = 1, .quiet = true };
	struct sim *s;
	if (sim_create(doc, "test.yaml", &opt, &s, &err) || sim_run(s, &err))
		fail_msg("%s", err.msg);
	*stats = json_object();
	s->workload->ops->stats_json(s, s->workload->state, *stats);
	return s;
}

static void test_replay_through_page_cache(void **state)
{
	(void)state;
	struct pw_buf t = { 0 };
	build(&t);
	char path[] = "/tmp/mobisim-fsreplay-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, t.p, t.len), (ssize_t)t.len);
	close(fd);
	pw_buf_free(&t);

	json_t *st;
	struct sim *s = run_trace(path, &st);
	assert_string_equal(json_string_value(json_object_get(st, "format")), "perfetto");
	assert_int_equal(json_integer_value(json_object_get(st, "android_fs_events")), 5);
	json_t *ops = json_object_get(st, "ops"), *sk = json_object_get(st, "skipped");
	assert_int_equal(json_integer_value(json_object_get(ops, "read")), 2);
	assert_int_equal(json_integer_value(json_object_get(ops, "write")), 1);
	assert_int_equal(json_integer_value(json_object_get(ops, "fsync")), 1);
	assert_int_equal(json_integer_value(json_object_get(
				 sk, "android_fs_event_without_path_kept_at_block_level")), 1);
	assert_int_equal(json_integer_value(json_object_get(sk, "block_events_simulated_by_the_model")), 1);

	const struct sim_opstat *rd = &s->metrics.cls[SIM_CLASS_FG].op[SIM_OP_READ];
	assert_int_equal(rd->count, 2);
	assert_int_equal(rd->bytes, 131072);
	/* the first misses (the device), the second hits the page cache */
	assert_true(rd->lat.max >= 1000 * US);
	assert_true(rd->lat.min < 100 * US);
	/* the buffered write returns at once; its fsync waits for the device */
	const struct sim_opstat *wr = &s->metrics.cls[SIM_CLASS_FG].op[SIM_OP_WRITE];
	const struct sim_opstat *fs = &s->metrics.cls[SIM_CLASS_FG].op[SIM_OP_FSYNC];
	assert_int_equal(wr->count, 1);
	assert_true(wr->lat.max < 100 * US);
	assert_int_equal(fs->count, 1);
	assert_true(fs->lat.min >= 1000 * US);
	json_decref(st);
	sim_destroy(s);
	unlink(path);
}

static void test_replay_text_events(void **state)
{
	(void)state;
	char path[] = "/tmp/mobisim-fstext-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	const char *pre = "  com.example.app-100   (  100) [000] .....   ";
	const char *pre2 = "  AsyncTask_#1-101   (  100) [001] .....   ";
	fprintf(f, "# tracer: nop\n#\n");
	fprintf(f, "%s100.001000: android_fs_dataread_start: entry_name /data/app/base.apk, offset 0, "
		   "bytes 65536, cmdline com.example.app, pid 100, i_size 1048576, ino 4242\n", pre);
	fprintf(f, "%s100.020000: android_fs_dataread_start: entry_name /data/app/base.apk, offset 0, "
		   "bytes 65536, cmdline com.example.app, pid 100, i_size 1048576, ino 4242\n", pre);
	fprintf(f, "%s100.030000: f2fs_datawrite_start: entry_name /data/data/com.example.app/db, "
		   "offset 0, bytes 4096, cmdline com.example.app, pid 101, i_size 0, ino 77\n", pre2);
	fprintf(f, "%s100.031000: android_fs_fsync_start: entry_name /data/data/com.example.app/db, "
		   "cmdline com.example.app, pid 101, i_size 4096, ino 77\n", pre2);
	fprintf(f, "%s100.040000: android_fs_dataread_start: entry_name , offset 8192, bytes 4096, "
		   "cmdline com.example.app, pid 100, i_size 1048576, ino 4242\n", pre);
	fclose(f);
	json_t *st;
	struct sim *s = run_trace(path, &st);
	assert_string_equal(json_string_value(json_object_get(st, "format")), "ftrace");
	assert_int_equal(json_integer_value(json_object_get(st, "android_fs_events")), 5);
	assert_int_equal(json_integer_value(json_object_get(st, "unknown_total")), 0);
	const struct sim_opstat *rd = &s->metrics.cls[SIM_CLASS_FG].op[SIM_OP_READ];
	const struct sim_opstat *fs = &s->metrics.cls[SIM_CLASS_FG].op[SIM_OP_FSYNC];
	assert_int_equal(rd->count, 2);
	assert_true(rd->lat.max >= 1000 * US);
	assert_true(rd->lat.min < 100 * US);
	assert_int_equal(s->metrics.cls[SIM_CLASS_FG].op[SIM_OP_WRITE].count, 1);
	assert_int_equal(fs->count, 1);
	assert_true(fs->lat.min >= 1000 * US);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "skipped"),
				 "android_fs_event_without_path_kept_at_block_level")), 1);
	json_decref(st);
	sim_destroy(s);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_file_records),
		cmocka_unit_test(test_replay_through_page_cache),
		cmocka_unit_test(test_replay_text_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
