/* Tests for sim/metrics.c: name tables, recording by class, region storage
 * and the docs/architecture.md §5 "classes", "waits" and "regions" JSON.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim/metrics.h"

static void test_metrics_names(void **state)
{
	const char *cls[] = { "fg", "bg" };
	const char *ops[] = { "read", "write", "fsync", "fault" };
	const char *btt[] = { "q2g_ns", "g2i_ns", "i2d_ns", "d2c_ns", "q2c_ns" };
	const char *waits[] = { "pagecache_lock", "read_io",  "writeback", "get_request",
				"dirty_throttle", "direct_reclaim", "fsync_io", "journal",
				"cpu",            "policy",   "sync_io", "checkpoint", "fs_gc",
				"congestion_wait", "isolation_throttle", "vm_writeout_throttle",
				"reclaim_throttle", "zone_lock", "tree_lock", "page_lock",
				"journal_locked", "journal_buffer", "journal_ordered",
				"journal_discard" };
	assert_int_equal(SIM_NCLASS, 2);
	assert_int_equal(SIM_NOP, 4);
	assert_int_equal(SIM_NBTT, 5);
	assert_int_equal(SIM_NWAIT, sizeof(waits) / sizeof(waits[0]));
	for (int i = 0; i < SIM_NCLASS; i++)
		assert_string_equal(sim_class_names[i], cls[i]);
	for (int i = 0; i < SIM_NOP; i++)
		assert_string_equal(sim_op_names[i], ops[i]);
	for (int i = 0; i < SIM_NBTT; i++)
		assert_string_equal(sim_btt_names[i], btt[i]);
	for (int i = 0; i < SIM_NWAIT; i++)
		assert_string_equal(sim_wait_names[i], waits[i]);
	assert_string_equal(sim_wait_names[SIM_WAIT_JOURNAL], "journal");
	assert_string_equal(sim_wait_names[SIM_WAIT_SYNC_IO], "sync_io");
}

static void test_metrics_init_free(void **state)
{
	struct sim_metrics m;
	memset(&m, 0xa5, sizeof(m));
	sim_metrics_init(&m);
	assert_int_equal(m.nregions, 0);
	assert_null(m.regions);
	assert_int_equal(m.error, 0);
	for (int c = 0; c < SIM_NCLASS; c++) {
		for (int op = 0; op < SIM_NOP; op++) {
			assert_int_equal(m.cls[c].op[op].count, 0);
			assert_null(m.cls[c].op[op].lat.buckets); /* no memory until used */
		}
		for (int w = 0; w < SIM_NWAIT; w++)
			assert_int_equal(m.cls[c].wait[w].count, 0);
	}
	sim_metrics_op(&m, SIM_CLASS_FG, SIM_OP_READ, 4096, 1000);
	sim_metrics_region(&m, "a", "t", 0, 1, 0, 0);
	sim_metrics_free(&m); /* ASan checks that everything is released */
	assert_null(m.regions);
	assert_null(m.cls[SIM_CLASS_FG].op[SIM_OP_READ].lat.buckets);
}

static void test_metrics_record_by_class(void **state)
{
	struct sim_metrics m;
	sim_metrics_init(&m);
	sim_metrics_op(&m, SIM_CLASS_FG, SIM_OP_READ, 4096, 100000);
	sim_metrics_op(&m, SIM_CLASS_FG, SIM_OP_READ, 8192, 300000);
	sim_metrics_op(&m, SIM_CLASS_BG, SIM_OP_WRITE, 1 << 20, 5000000);
	sim_metrics_wait(&m, SIM_CLASS_FG, SIM_WAIT_GET_REQUEST, 20);
	sim_metrics_wait(&m, SIM_CLASS_FG, SIM_WAIT_GET_REQUEST, 70);
	sim_metrics_wait(&m, SIM_CLASS_FG, SIM_WAIT_GET_REQUEST, 10);
	sim_metrics_btt(&m, SIM_CLASS_BG, SIM_BTT_D2C, 250000);

	const struct sim_opstat *r = &m.cls[SIM_CLASS_FG].op[SIM_OP_READ];
	assert_int_equal(r->count, 2);
	assert_int_equal(r->bytes, 12288);
	assert_int_equal(r->lat.n, 2);
	assert_int_equal(r->lat.min, 100000);
	assert_int_equal(r->lat.max, 300000);
	assert_true(stats_dist_mean(&r->lat) == 200000.0);
	/* the other class and the other ops are untouched */
	assert_int_equal(m.cls[SIM_CLASS_BG].op[SIM_OP_READ].count, 0);
	assert_int_equal(m.cls[SIM_CLASS_FG].op[SIM_OP_WRITE].count, 0);
	assert_int_equal(m.cls[SIM_CLASS_BG].op[SIM_OP_WRITE].bytes, 1 << 20);

	const struct sim_waitstat *w = &m.cls[SIM_CLASS_FG].wait[SIM_WAIT_GET_REQUEST];
	assert_int_equal(w->count, 3);
	assert_int_equal(w->total_ns, 100);
	assert_int_equal(w->max_ns, 70);
	assert_int_equal(m.cls[SIM_CLASS_BG].wait[SIM_WAIT_GET_REQUEST].count, 0);

	assert_int_equal(m.cls[SIM_CLASS_BG].btt[SIM_BTT_D2C].n, 1);
	assert_int_equal(m.cls[SIM_CLASS_BG].btt[SIM_BTT_D2C].max, 250000);
	assert_int_equal(m.cls[SIM_CLASS_FG].btt[SIM_BTT_D2C].n, 0);
	assert_int_equal(m.error, 0);
	sim_metrics_free(&m);
}

static void test_metrics_regions_grow_and_copy(void **state)
{
	struct sim_metrics m;
	sim_metrics_init(&m);
	char name[32], task[32];
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "launch%d", i);
		snprintf(task, sizeof(task), "com.app%d", i);
		assert_int_equal(sim_metrics_region(&m, name, task, i * 1000, i, 0, 0), 0);
	}
	strcpy(name, "clobbered"); /* the metrics own copies */
	assert_int_equal(m.nregions, 100);
	assert_true(m.cap_regions >= 100 && m.cap_regions <= 256);
	assert_string_equal(m.regions[0].name, "launch0");
	assert_string_equal(m.regions[99].name, "launch99");
	assert_string_equal(m.regions[42].task, "com.app42");
	assert_int_equal(m.regions[42].start_ns, 42000);
	assert_int_equal(m.regions[42].duration_ns, 42);
	/* a region without a task is recorded with an empty one */
	assert_int_equal(sim_metrics_region(&m, "boot", NULL, 0, 5, 0, 0), 0);
	assert_string_equal(m.regions[100].task, "");
	sim_metrics_free(&m);
}

static void test_metrics_classes_json(void **state)
{
	struct sim_metrics m;
	sim_metrics_init(&m);
	for (int i = 1; i <= 1000; i++)
		sim_metrics_op(&m, SIM_CLASS_FG, SIM_OP_READ, 4096, i * 1000);
	sim_metrics_op(&m, SIM_CLASS_BG, SIM_OP_FSYNC, 0, 7000000);
	sim_metrics_btt(&m, SIM_CLASS_FG, SIM_BTT_Q2C, 123);

	json_t *j = sim_metrics_classes_json(&m);
	assert_non_null(j);
	assert_int_equal(json_object_size(j), SIM_NCLASS);
	for (int c = 0; c < SIM_NCLASS; c++) {
		json_t *cls = json_object_get(j, sim_class_names[c]);
		assert_true(json_is_object(cls));
		for (int op = 0; op < SIM_NOP; op++) {
			json_t *o = json_object_get(cls, sim_op_names[op]);
			assert_true(json_is_integer(json_object_get(o, "count")));
			assert_true(json_is_integer(json_object_get(o, "bytes")));
			json_t *lat = json_object_get(o, "lat_ns");
			assert_true(json_is_real(json_object_get(lat, "mean")));
			const char *dk[] = { "p50", "p90", "p99", "p999", "max" };
			for (size_t k = 0; k < 5; k++)
				assert_true(json_is_integer(json_object_get(lat, dk[k])));
		}
		json_t *btt = json_object_get(cls, "btt");
		assert_int_equal(json_object_size(btt), SIM_NBTT);
		for (int b = 0; b < SIM_NBTT; b++)
			assert_true(json_is_object(json_object_get(btt, sim_btt_names[b])));
	}
	json_t *rd = json_object_get(json_object_get(j, "fg"), "read");
	assert_int_equal(json_integer_value(json_object_get(rd, "count")), 1000);
	assert_int_equal(json_integer_value(json_object_get(rd, "bytes")), 4096000);
	json_t *lat = json_object_get(rd, "lat_ns");
	assert_true(json_real_value(json_object_get(lat, "mean")) == 500500.0);
	assert_int_equal(json_integer_value(json_object_get(lat, "max")), 1000000);
	int64_t p50 = json_integer_value(json_object_get(lat, "p50"));
	assert_true(p50 >= 500000 * 0.99 && p50 <= 500000 * 1.01);
	json_t *fs = json_object_get(json_object_get(j, "bg"), "fsync");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(fs, "lat_ns"), "p99")),
			 7000000);
	json_t *q2c = json_object_get(json_object_get(json_object_get(j, "fg"), "btt"), "q2c_ns");
	assert_int_equal(json_integer_value(json_object_get(q2c, "max")), 123);
	json_decref(j);
	sim_metrics_free(&m);
}

/* fio's keys: 100 reads of 8 KiB, each 1 ms, back to back from t = 2 s:
 * runtime 100 ms, 1000 IOPS, 8192000 B/s, 8000 KiB/s; clat_ns = lat_ns. */
static void test_metrics_fio_keys(void **state)
{
	struct sim_metrics m;
	int64_t now = 2000000000;
	sim_metrics_init(&m);
	m.clock = &now;
	for (int i = 0; i < 100; i++) {
		now += 1000000;
		sim_metrics_op(&m, SIM_CLASS_FG, SIM_OP_READ, 8192, 1000000);
	}
	json_t *j = sim_metrics_classes_json(&m);
	json_t *fg = json_object_get(j, "fg");
	assert_int_equal(json_integer_value(json_object_get(fg, "runtime_ns")), 100000000);
	json_t *rd = json_object_get(fg, "read");
	assert_int_equal(json_integer_value(json_object_get(rd, "total_ios")), 100);
	assert_int_equal(json_integer_value(json_object_get(rd, "io_bytes")), 819200);
	assert_int_equal(json_integer_value(json_object_get(rd, "io_kbytes")), 800);
	assert_int_equal(json_integer_value(json_object_get(rd, "runtime")), 100);
	assert_true(fabs(json_real_value(json_object_get(rd, "iops")) - 1000.0) < 1e-9);
	assert_int_equal(json_integer_value(json_object_get(rd, "bw_bytes")), 8192000);
	assert_int_equal(json_integer_value(json_object_get(rd, "bw")), 8000);
	assert_true(json_equal(json_object_get(rd, "clat_ns"), json_object_get(rd, "lat_ns")));
	json_t *pct = json_object_get(json_object_get(rd, "clat_ns"), "percentile");
	assert_int_equal(json_integer_value(json_object_get(pct, "99.000000")), 1000000);
	/* a class with no ops has zero rates, not a division by zero */
	json_t *bw = json_object_get(json_object_get(j, "bg"), "write");
	assert_true(json_real_value(json_object_get(bw, "iops")) == 0.0);
	json_decref(j);
	sim_metrics_free(&m);
}

static void test_metrics_waits_json_order(void **state)
{
	struct sim_metrics m;
	sim_metrics_init(&m);
	json_t *j = sim_metrics_waits_json(&m);
	assert_true(json_is_array(j));
	assert_int_equal(json_array_size(j), 0); /* nothing waited */
	json_decref(j);

	/* recorded out of order on purpose */
	sim_metrics_wait(&m, SIM_CLASS_BG, SIM_WAIT_JOURNAL, 500);
	sim_metrics_wait(&m, SIM_CLASS_FG, SIM_WAIT_JOURNAL, 100);
	sim_metrics_wait(&m, SIM_CLASS_FG, SIM_WAIT_JOURNAL, 300);
	sim_metrics_wait(&m, SIM_CLASS_BG, SIM_WAIT_PAGECACHE_LOCK, 7);
	sim_metrics_wait(&m, SIM_CLASS_FG, SIM_WAIT_SYNC_IO, 9);
	j = sim_metrics_waits_json(&m);
	assert_int_equal(json_array_size(j), 4);
	const char *cause[] = { "pagecache_lock", "journal", "journal", "sync_io" };
	const char *cls[] = { "bg", "fg", "bg", "fg" };
	const int64_t count[] = { 1, 2, 1, 1 }, total[] = { 7, 400, 500, 9 }, max[] = { 7, 300, 500, 9 };
	for (size_t i = 0; i < 4; i++) {
		json_t *e = json_array_get(j, i);
		assert_string_equal(json_string_value(json_object_get(e, "cause")), cause[i]);
		assert_string_equal(json_string_value(json_object_get(e, "class")), cls[i]);
		assert_int_equal(json_integer_value(json_object_get(e, "count")), count[i]);
		assert_int_equal(json_integer_value(json_object_get(e, "total_ns")), total[i]);
		assert_int_equal(json_integer_value(json_object_get(e, "max_ns")), max[i]);
	}
	json_decref(j);
	sim_metrics_free(&m);
}

static void test_metrics_regions_json(void **state)
{
	struct sim_metrics m;
	sim_metrics_init(&m);
	json_t *j = sim_metrics_regions_json(&m);
	assert_int_equal(json_array_size(j), 0);
	json_decref(j);

	sim_metrics_region(&m, "launch", "com.android.camera", 1000000, 250000000, 0, 0);
	sim_metrics_region(&m, "scroll", "\xff\xfe" "bad", 2000000, 5, 0, 0);
	j = sim_metrics_regions_json(&m);
	assert_int_equal(json_array_size(j), 2);
	json_t *e = json_array_get(j, 0);
	assert_string_equal(json_string_value(json_object_get(e, "name")), "launch");
	assert_string_equal(json_string_value(json_object_get(e, "task")), "com.android.camera");
	assert_int_equal(json_integer_value(json_object_get(e, "start_ns")), 1000000);
	assert_int_equal(json_integer_value(json_object_get(e, "duration_ns")), 250000000);
	/* a name that is not UTF-8 (trace comm bytes) still serialises */
	e = json_array_get(j, 1);
	assert_string_equal(json_string_value(json_object_get(e, "task")), "??bad");
	json_decref(j);
	sim_metrics_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_names),
		cmocka_unit_test(test_metrics_init_free),
		cmocka_unit_test(test_metrics_record_by_class),
		cmocka_unit_test(test_metrics_regions_grow_and_copy),
		cmocka_unit_test(test_metrics_classes_json),
		cmocka_unit_test(test_metrics_fio_keys),
		cmocka_unit_test(test_metrics_waits_json_order),
		cmocka_unit_test(test_metrics_regions_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
