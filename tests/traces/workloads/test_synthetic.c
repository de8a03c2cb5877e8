/* Tests for traces/workloads/synthetic.c and its app generator
 * (traces/workloads/app_launch.c): a launch spends exactly its
 * cpu_total (spread over the I/Os it actually issues); `start:
 * {uniform: [LO, HI]}` draws a start in range, the same for a seed and
 * different across seeds, without changing what the task does; the
 * workload's `offset` moves every start; a bad distribution is refused
 * naming the node; an app launch is one process of several threads with
 * their own streams, Android 5's SQLite commit protocol, exact CPU, the
 * hand-offs between its threads, and is deterministic by seed. The device
 * is the ideal fixed-service model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/stack/stack.h"
#include "sim/config.h"
#include "sim/sim.h"
#include "sim/workload.h"

#define MS 1000000LL

/* Build (and run when run is true) a scenario whose workload tasks are
 * given as YAML text indented under `tasks:`. Returns 0 or the error code. */
static int build(struct sim **out, uint64_t seed, const char *wl_extra, const char *tasks, bool run,
		 struct sim_error *err)
{
	char yaml[4096];
	snprintf(yaml, sizeof(yaml),
		 "device: {model: ideal, service: fixed, mean_us: 100, servers: 1}\n"
		 "scheduler: noop\n"
		 "workload:\n"
		 "  type: synthetic\n"
		 "%s"
		 "  tasks:\n"
		 "%s",
		 wl_extra ? wl_extra : "", tasks);
	struct cfg_doc *doc;
	if (cfg_load_string(yaml, strlen(yaml), "test.yaml", &doc, err))
		return err->code;
	struct sim_options opt = { .seed = seed, .seed_given = true, .quiet = true };
	int rc = sim_create(doc, "test.yaml", &opt, out, err);
	if (rc)
		return rc;
	if (run)
		return sim_run(*out, err);
	return 0;
}

static json_t *task_stats(struct sim *s, const char *name)
{
	json_t *o = json_object();
	s->workload->ops->stats_json(s, s->workload->state, o);
	json_t *tasks = json_object_get(o, "tasks");
	for (size_t i = 0; i < json_array_size(tasks); i++) {
		json_t *t = json_array_get(tasks, i);
		if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0) {
			json_incref(t);
			json_decref(o);
			return t;
		}
	}
	json_decref(o);
	fail_msg("task %s not in the stats", name);
	return NULL;
}

static int64_t start_of(struct sim *s, const char *name)
{
	json_t *t = task_stats(s, name);
	int64_t v = (int64_t)json_integer_value(json_object_get(t, "start_ns"));
	json_decref(t);
	return v;
}

static int64_t cpu_busy_ns(struct sim *s)
{
	json_t *o = stack_stats_json(s->stack);
	int64_t v = (int64_t)json_integer_value(json_object_get(json_object_get(o, "cpu"), "busy_ns"));
	json_decref(o);
	return v;
}

/* The old launch spread cpu_total over the I/O count expected from the
 * means (755 ops here) and so spent 0.6 of it or more; it must spend all. */
static void test_launch_spends_exactly_cpu_total(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, NULL,
			       "    app: {gen: launch, bytes: 4MiB, files: 8, cpu_total: 500ms}\n",
			       true, &err), 0);
	int64_t busy = cpu_busy_ns(s);
	/* the CPU ops sum to cpu_total less < 1 ns per op; the rest is the
	 * stack's own charges (context switches), well under 1 % */
	assert_true(busy >= 499 * MS);
	assert_true(busy <= 505 * MS);
	sim_destroy(s);
}

static void test_random_start_in_range_and_deterministic(void **state)
{
	(void)state;
	const char *tasks = "    bg: {gen: writer, bytes: 1MiB}\n"
			    "    app: {gen: reader, file_bytes: 64KiB, start: {uniform: [2s, 30s]}}\n";
	int64_t first = -1;
	bool differs = false;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct sim *a, *b;
		struct sim_error err;
		assert_int_equal(build(&a, seed, NULL, tasks, false, &err), 0);
		assert_int_equal(build(&b, seed, NULL, tasks, false, &err), 0);
		int64_t sa = start_of(a, "app"), sb = start_of(b, "app");
		assert_int_equal(sa, sb);
		assert_true(sa >= 2000 * MS && sa <= 30000 * MS);
		assert_int_equal(start_of(a, "bg"), 0);
		if (first < 0)
			first = sa;
		else if (sa != first)
			differs = true;
		sim_destroy(a);
		sim_destroy(b);
	}
	assert_true(differs);
}

/* The start's stream is its own: a random phase does not change the
 * launch's working set, so its op count equals that of a fixed start. */
static void test_random_start_keeps_the_task_stream(void **state)
{
	(void)state;
	struct sim *a, *b;
	struct sim_error err;
	assert_int_equal(build(&a, 3, NULL,
			       "    app: {gen: launch, bytes: 2MiB, files: 4, start: 1s}\n", true, &err),
			 0);
	assert_int_equal(build(&b, 3, NULL,
			       "    app: {gen: launch, bytes: 2MiB, files: 4, "
			       "start: {uniform: [1s, 9s]}}\n",
			       true, &err),
			 0);
	json_t *ta = task_stats(a, "app"), *tb = task_stats(b, "app");
	assert_int_equal(json_integer_value(json_object_get(ta, "ops")),
			 json_integer_value(json_object_get(tb, "ops")));
	assert_true(start_of(b, "app") > 1000 * MS);
	json_decref(ta);
	json_decref(tb);
	sim_destroy(a);
	sim_destroy(b);
}

static void test_offset_moves_every_start(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, "  offset: 3s\n",
			       "    a: {gen: reader, file_bytes: 64KiB, start: 1s}\n"
			       "    b: {gen: reader, file_bytes: 64KiB}\n",
			       false, &err),
			 0);
	assert_int_equal(start_of(s, "a"), 4000 * MS);
	assert_int_equal(start_of(s, "b"), 3000 * MS);
	sim_destroy(s);
}

static void test_bad_start_distribution_is_refused(void **state)
{
	(void)state;
	const char *bad[] = {
		"    a: {gen: reader, start: {normal: [1s, 2s]}}\n",
		"    a: {gen: reader, start: {uniform: [3s, 1s]}}\n",
		"    a: {gen: reader, start: {uniform: [1s]}}\n",
		"    a: {gen: reader, start: {uniform: [1s, xs]}}\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sim *s = NULL;
		struct sim_error err;
		assert_int_equal(build(&s, 1, NULL, bad[i], false, &err), SIM_E_INPUT);
		assert_non_null(strstr(err.msg, "test.yaml:"));
		assert_non_null(strstr(err.msg, "start"));
	}
}


/* ------------------------------------------------------------ app launch */

static json_t *threads_of(struct sim *s, const char *task)
{
	json_t *t = task_stats(s, task);
	json_t *th = json_object_get(t, "threads");
	json_incref(th);
	json_decref(t);
	return th;
}

static int64_t thread_ops(json_t *threads, const char *role, const char *kind)
{
	int64_t n = 0;
	for (size_t i = 0; i < json_array_size(threads); i++) {
		json_t *t = json_array_get(threads, i);
		if (strcmp(json_string_value(json_object_get(t, "role")), role) == 0)
			n += (int64_t)json_integer_value(json_object_get(json_object_get(t, "ops"), kind));
	}
	return n;
}

#define APP_SMALL "gen: app, uid: 10050, region: launch, main_bytes: 2MiB, main_files: 4, " \
		  "images: 6, db_reads: 8"

/* One process: main, RenderThread, SQLite worker and `workers` image
 * threads, each its own task with its own tid under the main's tgid. */
static void test_app_threads(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, NULL, "    app: {" APP_SMALL ", workers: 3}\n", true, &err), 0);
	json_t *th = threads_of(s, "app");
	assert_int_equal(json_array_size(th), 6);
	int64_t tgid = (int64_t)json_integer_value(json_object_get(json_array_get(th, 0), "tid"));
	for (size_t i = 1; i < json_array_size(th); i++)
		assert_int_equal(json_integer_value(json_object_get(json_array_get(th, i), "tid")),
				 tgid + (int64_t)i);
	/* 6 thumbnails of 48 KiB read in 16 KiB chunks, over 3 workers */
	assert_int_equal(thread_ops(th, "worker", "read"), 6 * 3);
	assert_int_equal(thread_ops(th, "worker", "open"), 6);
	/* the launch region spans the whole launch, on the main thread */
	assert_int_equal(s->metrics.nregions, 1);
	json_decref(th);
	sim_destroy(s);
}

/* Android 5's SQLite: PERSIST journal, synchronous FULL, fdatasync:
 * 4 syncs and 3 journal writes + P page writes per transaction. */
static void test_app_sqlite_persist_full(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, NULL,
			       "    app: {" APP_SMALL ", db_txns: 5, db_txn_pages: 2}\n", true, &err),
			 0);
	json_t *th = threads_of(s, "app");
	assert_int_equal(thread_ops(th, "db", "fdatasync"), 5 * 4);
	assert_int_equal(thread_ops(th, "db", "fsync"), 0);
	assert_int_equal(thread_ops(th, "db", "write"), 5 * (3 + 2));
	assert_int_equal(thread_ops(th, "db", "read"), 8);
	json_decref(th);
	sim_destroy(s);

	/* WAL with FULL: one frame append and one sync per commit; a
	 * checkpoint (pages to the db + a sync) every wal_autocheckpoint pages */
	assert_int_equal(build(&s, 1, NULL,
			       "    app: {" APP_SMALL ", db_txns: 5, db_txn_pages: 2, "
			       "journal_mode: wal, wal_autocheckpoint: 4, sync_call: fsync}\n",
			       true, &err),
			 0);
	th = threads_of(s, "app");
	assert_int_equal(thread_ops(th, "db", "fsync"), 5 + 2);
	assert_int_equal(thread_ops(th, "db", "write"), 5 + 2 * 2);
	json_decref(th);
	sim_destroy(s);
}

/* SQLite DELETE mode: a journal created and unlinked per transaction,
 * the directory synced after the journal's first sync; on ext4 each new
 * journal's first fdatasync commits (the new inode: tests/models/fs). */
static void test_app_sqlite_delete(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, NULL,
			       "    app: {" APP_SMALL ", db_txns: 3, db_txn_pages: 2, "
			       "journal_mode: delete}\n",
			       true, &err),
			 0);
	json_t *th = threads_of(s, "app");
	assert_int_equal(thread_ops(th, "db", "create"), 3);
	assert_int_equal(thread_ops(th, "db", "unlink"), 3);
	assert_int_equal(thread_ops(th, "db", "fdatasync"), 3 * 3);
	assert_int_equal(thread_ops(th, "db", "fsync"), 3); /* the directory */
	assert_int_equal(thread_ops(th, "db", "write"), 3 * (2 + 2));
	json_decref(th);
	sim_destroy(s);

	/* TRUNCATE: truncated to 0 and synced again at each commit (FULL) */
	assert_int_equal(build(&s, 1, NULL,
			       "    app: {" APP_SMALL ", db_txns: 3, db_txn_pages: 2, "
			       "journal_mode: truncate}\n",
			       true, &err),
			 0);
	th = threads_of(s, "app");
	assert_int_equal(thread_ops(th, "db", "truncate"), 3);
	assert_int_equal(thread_ops(th, "db", "fdatasync"), 3 * 4);
	assert_int_equal(thread_ops(th, "db", "create") + thread_ops(th, "db", "unlink"), 0);
	json_decref(th);
	sim_destroy(s);
}

/* SharedPreferences writeToFile (rename to .bak, create, write, fsync,
 * unlink .bak) on the worker; DiskLruCache thumbnails on the image
 * workers: create, buffered writes, rename, a journal line, no sync. */
static void test_app_prefs_and_cache_writes(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, NULL,
			       "    app: {" APP_SMALL ", db_txns: 0, prefs_commits: 2, cache_writes: 4, "
			       "workers: 2}\n",
			       true, &err),
			 0);
	json_t *th = threads_of(s, "app");
	assert_int_equal(thread_ops(th, "db", "rename"), 2);
	assert_int_equal(thread_ops(th, "db", "create"), 2);
	assert_int_equal(thread_ops(th, "db", "unlink"), 2);
	assert_int_equal(thread_ops(th, "db", "fsync"), 2);
	assert_int_equal(thread_ops(th, "db", "write"), 2);
	assert_int_equal(thread_ops(th, "worker", "create"), 4);
	assert_int_equal(thread_ops(th, "worker", "rename"), 4);
	/* 48 KiB in 16 KiB writes + one journal line each; never synced */
	assert_int_equal(thread_ops(th, "worker", "write"), 4 * (3 + 1));
	assert_int_equal(thread_ops(th, "worker", "fsync") + thread_ops(th, "worker", "fdatasync"), 0);
	json_decref(th);
	/* the cache files stay in the page cache for the flusher */
	struct stack_file *c0 = stack_file_find(s->stack, "app/cache0");
	assert_non_null(c0);
	assert_int_equal(stack_file_cached_pages(c0), 12);
	sim_destroy(s);
}

/* The camera's new files: a video recording's file and each burst shot
 * are created (ext4_create: the parent directory joins the journal). */
static void test_camera_files_are_created(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, NULL,
			       "    cam: {gen: video, uid: 10070, bytes: 1MiB, rate: 10MB/s}\n"
			       "    burst: {gen: burst, uid: 10071, shots: 3, shot_bytes: 64KiB}\n",
			       true, &err),
			 0);
	/* cam.dat sits in "/", the shots in "burst/" */
	assert_non_null(stack_file_find(s->stack, "/"));
	assert_non_null(stack_file_find(s->stack, "burst/"));
	sim_destroy(s);
	/* no generator creates anything: no directory was looked up */
	assert_int_equal(build(&s, 1, NULL,
			       "    w: {gen: writer, uid: 10060, bytes: 1MiB}\n", true, &err),
			 0);
	assert_null(stack_file_find(s->stack, "/"));
	sim_destroy(s);
}

/* cp of small files: each source read and each target written in
 * chunk-sized pieces (20 KiB in 8 KiB chunks: 8, 8, 4), the targets end
 * the sources' size, and nothing else is read or written. */
static void test_copy_reads_and_writes_each_file(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, NULL,
			       "    cp: {gen: copy, uid: 10080, files: 3, file_bytes: 20KiB,\n"
			       "         chunk_bytes: 8KiB}\n",
			       true, &err),
			 0);
	json_t *o = stack_stats_json(s->stack), *tasks = json_object_get(o, "tasks"), *io = NULL;
	for (size_t i = 0; i < json_array_size(tasks); i++)
		if (strcmp(json_string_value(json_object_get(json_array_get(tasks, i), "name")),
			   "cp") == 0)
			io = json_object_get(json_array_get(tasks, i), "io");
	assert_non_null(io);
	json_t *rd = json_object_get(io, "read"), *wr = json_object_get(io, "write");
	assert_int_equal(json_integer_value(json_object_get(rd, "count")), 9);
	assert_int_equal(json_integer_value(json_object_get(wr, "count")), 9);
	assert_int_equal(json_integer_value(json_object_get(rd, "bytes")), 3 * 20480);
	assert_int_equal(json_integer_value(json_object_get(wr, "bytes")), 3 * 20480);
	for (int i = 0; i < 3; i++) {
		char name[64];
		snprintf(name, sizeof(name), "cp/dst/f%d", i);
		struct stack_file *f = stack_file_find(s->stack, name);
		assert_non_null(f);
		assert_int_equal(stack_file_size(f), 20480);
	}
	json_decref(o);
	sim_destroy(s);
}

/* The main thread spends main_cpu exactly, spread over its I/Os: with
 * everything else off, busy CPU = main_cpu + the first frame. */
static void test_app_main_cpu_exact(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, NULL,
			       "    app: {" APP_SMALL ", main_cpu: 300ms, render_cpu: 20ms, "
			       "db_cpu: 0, image_cpu: 0}\n",
			       true, &err),
			 0);
	int64_t busy = cpu_busy_ns(s);
	assert_true(busy >= 320 * MS && busy <= 323 * MS);
	sim_destroy(s);
}

/* Same seed, same launch; another seed, another working set. */
static void test_app_deterministic(void **state)
{
	(void)state;
	int64_t dur[3], faults[3];
	uint64_t seeds[3] = { 7, 7, 8 };
	for (int i = 0; i < 3; i++) {
		struct sim *s;
		struct sim_error err;
		assert_int_equal(build(&s, seeds[i], NULL, "    app: {" APP_SMALL "}\n", true, &err), 0);
		dur[i] = s->metrics.regions[0].duration_ns;
		json_t *th = threads_of(s, "app");
		faults[i] = thread_ops(th, "main", "fault") * 100000 + thread_ops(th, "main", "read");
		json_decref(th);
		sim_destroy(s);
	}
	assert_int_equal(dur[0], dur[1]);
	assert_int_equal(faults[0], faults[1]);
	assert_true(faults[0] != faults[2] || dur[0] != dur[2]);
}

/* The workers start only when the main thread has done bind_share of its
 * I/Os: with bind_share 1 they start after all of main's I/O. */
static void test_app_spawn_order(void **state)
{
	(void)state;
	struct sim *s;
	struct sim_error err;
	assert_int_equal(build(&s, 1, NULL,
			       "    app: {" APP_SMALL ", bind_share: 1, main_cpu: 200ms}\n", true,
			       &err),
			 0);
	json_t *st = stack_stats_json(s->stack);
	json_t *tasks = json_object_get(st, "tasks");
	int64_t main_start = -1, db_start = -1, render_start = -1;
	for (size_t i = 0; i < json_array_size(tasks); i++) {
		json_t *t = json_array_get(tasks, i);
		const char *n = json_string_value(json_object_get(t, "name"));
		int64_t v = (int64_t)json_integer_value(json_object_get(t, "start_ns"));
		if (strcmp(n, "app") == 0)
			main_start = v;
		else if (strcmp(n, "AsyncTask #1") == 0)
			db_start = v;
		else if (strcmp(n, "RenderThread") == 0)
			render_start = v;
	}
	assert_int_equal(main_start, 0);
	assert_true(db_start >= 200 * MS); /* after all of main's CPU */
	assert_true(render_start >= db_start);
	json_decref(st);
	sim_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_spends_exactly_cpu_total),
		cmocka_unit_test(test_random_start_in_range_and_deterministic),
		cmocka_unit_test(test_random_start_keeps_the_task_stream),
		cmocka_unit_test(test_offset_moves_every_start),
		cmocka_unit_test(test_bad_start_distribution_is_refused),
		cmocka_unit_test(test_app_threads),
		cmocka_unit_test(test_app_sqlite_persist_full),
		cmocka_unit_test(test_app_sqlite_delete),
		cmocka_unit_test(test_app_prefs_and_cache_writes),
		cmocka_unit_test(test_camera_files_are_created),
		cmocka_unit_test(test_app_main_cpu_exact),
		cmocka_unit_test(test_app_deterministic),
		cmocka_unit_test(test_app_spawn_order),
		cmocka_unit_test(test_copy_reads_and_writes_each_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
