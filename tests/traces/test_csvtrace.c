/* Tests for traces/csvtrace.c: MSR Cambridge lines give Q records with
 * FILETIME converted to ns from the first request and the hostname as comm,
 * and C records at queue time + ResponseTime in time order;
 * the SNIA header dialect; a --columns mapping with units; fio iolog v2
 * (waits move the clock, files become devices) and v3 (microsecond times);
 * lenient skips with a warning and the same input refused under strict;
 * bad lines are errors naming their line.
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
#include "traces/trace.h"

/* Read all of text with ops (NULL = auto); returns next()'s last code. */
static int read_all(const struct trace_reader_ops *ops, const char *text, const struct trace_opts *o,
		    struct trace_rec *recs, int max, int *n, struct sim_error *err, char *report,
		    size_t rlen)
{
	struct trace_reader r = { .ops = NULL };
	int rc;

	if (ops) {
		r.ops = ops;
		rc = ops->open_mem(text, strlen(text), "t.csv", o, &r.state, err);
	} else {
		rc = trace_open_mem_auto(text, strlen(text), "t.csv", o, &r, err);
	}
	if (rc)
		return rc;
	*n = 0;
	struct trace_rec rec;
	static char comms[16][64]; /* rec.comm lives only until the next call */
	while ((rc = trace_next(&r, &rec, err)) == 1) {
		if (*n < max && *n < 16) {
			recs[*n] = rec;
			if (rec.comm) {
				snprintf(comms[*n], sizeof(comms[0]), "%s", rec.comm);
				recs[*n].comm = comms[*n];
			}
		}
		(*n)++;
	}
	if (report) {
		FILE *f = fmemopen(report, rlen, "w");
		assert_non_null(f);
		r.ops->report(r.state, f);
		fclose(f);
	}
	trace_close(&r);
	return rc;
}

static void test_msr(void **state)
{
	static const char text[] =
		"128166372003061629,wdev,0,Write,2836152320,4096,1057\r\n"
		"128166372003071629,wdev,2,Read,1024,1000,300\n"
		"128166372003081629,wdev,0,Flush,0,0,0\n";
	struct trace_rec recs[4];
	struct sim_error err;
	char rep[1024];
	int n;

	(void)state;
	assert_int_equal(read_all(NULL, text, NULL, recs, 4, &n, &err, rep, sizeof(rep)), 0);
	assert_int_equal(n, 4); /* Q, its C (1057 ticks later), Q, C */
	assert_int_equal(recs[0].time_ns, 0);
	assert_int_equal(recs[1].action, TRACE_A_COMPLETE);
	assert_int_equal(recs[1].time_ns, 105700);
	assert_int_equal(recs[1].sector, recs[0].sector);
	assert_string_equal(recs[1].comm, "wdev");
	assert_int_equal(recs[3].action, TRACE_A_COMPLETE);
	assert_int_equal(recs[3].time_ns, 1000000 + 30000);
	assert_int_equal(recs[0].dir, TRACE_DIR_WRITE);
	assert_true(recs[0].flags & REQ_WRITE);
	assert_int_equal(recs[0].sector, 2836152320ull / 512);
	assert_int_equal(recs[0].nr_sectors, 8);
	assert_string_equal(recs[0].comm, "wdev");
	/* 10000 ticks of 100 ns later */
	assert_int_equal(recs[2].time_ns, 1000000);
	assert_int_equal(recs[2].dir, TRACE_DIR_READ);
	assert_int_equal(recs[2].dev_major, 2);
	assert_int_equal(recs[2].sector, 2);
	assert_int_equal(recs[2].nr_sectors, 2); /* 1024..2024 covers sectors 2 and 3 */
	assert_int_equal(recs[2].bytes, 1000);
	assert_non_null(strstr(rep, "MSR Cambridge"));
	assert_non_null(strstr(rep, "warnings: 1 lines skipped (first: t.csv:3: unknown operation 'Flush'"));

	struct trace_opts strict = { .strict = true };
	assert_int_equal(read_all(NULL, text, &strict, recs, 4, &n, &err, NULL, 0), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.csv:3:"));
	assert_non_null(strstr(err.msg, "--strict"));
}

static void test_msr_cut_last_line(void **state)
{
	static const char text[] = "128166372003061629,wdev,0,Write,0,4096,1\n128166372003061630,wd";
	static const char bad[] = "128166372003061629,wdev,0,Write,0,4096,1\n128166372003061630,wd\n"
				  "128166372003061631,wdev,0,Write,0,4096,1\n";
	struct trace_rec recs[2];
	struct sim_error err;
	int n;

	(void)state;
	assert_int_equal(read_all(NULL, text, NULL, recs, 2, &n, &err, NULL, 0), 0);
	assert_int_equal(n, 2); /* the whole line's Q and C */
	assert_int_equal(read_all(NULL, bad, NULL, recs, 2, &n, &err, NULL, 0), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.csv:2: expected 7 fields, found 2"));
}

static void test_snia_header(void **state)
{
	static const char text[] = "Timestamp,Response,IOType,LUN,Offset,Size\n"
				   "1487586463.5,0.000103,R,3,8192,4096\n"
				   "1487586463.750001,0.000203,W,3,0,512\n";
	struct trace_rec recs[4];
	struct sim_error err;
	int n;

	(void)state;
	assert_int_equal(read_all(NULL, text, NULL, recs, 4, &n, &err, NULL, 0), 0);
	assert_int_equal(n, 4);
	assert_int_equal(recs[0].dev_major, 3);
	assert_int_equal(recs[1].action, TRACE_A_COMPLETE);
	assert_int_equal(recs[1].time_ns, 103000);
	assert_int_equal(recs[2].time_ns, 250001000);
	assert_int_equal(recs[2].dir, TRACE_DIR_WRITE);
	assert_int_equal(recs[3].time_ns, 250001000 + 203000);
}

static void test_columns(void **state)
{
	static const char text[] = "t op lba n\n0.5 0 100 2\n1.25 1 200 1\n2 7 0 1\n";
	struct trace_opts o = { .columns = "time=1:ms,op=2,offset=3:sector,size=4:4KiB,sep=ws,skip=1,"
					   "read=0,write=1" };
	struct trace_rec recs[3];
	struct sim_error err;
	char rep[512];
	int n;

	(void)state;
	assert_int_equal(read_all(&trace_csv_ops, text, &o, recs, 3, &n, &err, rep, sizeof(rep)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(recs[0].dir, TRACE_DIR_READ);
	assert_int_equal(recs[0].sector, 100);
	assert_int_equal(recs[0].nr_sectors, 16);
	assert_int_equal(recs[1].time_ns, 750000);
	assert_int_equal(recs[1].dir, TRACE_DIR_WRITE);
	assert_non_null(strstr(rep, "t.csv:4: unknown operation '7'"));

	static const char *const bad[] = {
		"time=1,op=2,offset=3", "time=1:parsec,op=2,offset=3,size=4", "time=0,op=2,offset=3,size=4",
		"time=1,op=2,offset=3,size=4,read=R", "time=1,op=2,offset=3,size=4,colour=red",
		"time=1,op=2,offset=3:ms,size=4", "time=1,op=2,offset=3,size=4,sep=pipe",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct trace_opts b = { .columns = bad[i] };
		void *st = NULL;
		assert_int_equal(trace_csv_ops.open_mem(text, strlen(text), "t.csv", &b, &st, &err),
				 SIM_E_INPUT);
		assert_non_null(strstr(err.msg, "--columns"));
	}
}

static void test_completion_order(void **state)
{
	/* the first request takes long: the second's completion comes first */
	static const char text[] = "0 R 0 8 500\n100 W 64 8 10\n1000 R 128 8 0\n";
	struct trace_opts o = { .columns = "time=1:ns,op=2,offset=3:sector,size=4:sector,response=5:ns,sep=ws" };
	struct trace_rec recs[6];
	struct sim_error err;
	int n;
	static const struct { char act; int64_t t; uint64_t sector; } want[] = {
		{ 'Q', 0, 0 }, { 'Q', 100, 64 }, { 'C', 110, 64 }, { 'C', 500, 0 }, { 'Q', 1000, 128 },
		{ 'C', 1000, 128 },
	};

	(void)state;
	assert_int_equal(read_all(&trace_csv_ops, text, &o, recs, 6, &n, &err, NULL, 0), 0);
	assert_int_equal(n, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(recs[i].act, want[i].act);
		assert_int_equal(recs[i].time_ns, want[i].t);
		assert_int_equal(recs[i].sector, want[i].sector);
	}
}

static void test_fio_v2_v3(void **state)
{
	static const char v2[] = "fio version 2 iolog\n/dev/sdb add\n/dev/sdc add\n/dev/sdb open\n"
				 "/dev/sdb read 4096 4096\n/dev/sdb wait 5 0\n/dev/sdc write 8192 8192\n"
				 "/dev/sdb sync 0 0\n/dev/sdb fadvise 0 0\n/dev/sdb close\n";
	static const char v3[] = "fio version 3 iolog\n0 /dev/sdb add\n10 /dev/sdb open\n"
				 "100 /dev/sdb read 0 4096\n250 /dev/sdb trim 8192 8192\n";
	struct trace_rec recs[3];
	struct sim_error err;
	char rep[1024];
	int n;

	(void)state;
	assert_int_equal(read_all(NULL, v2, NULL, recs, 3, &n, &err, rep, sizeof(rep)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(recs[0].time_ns, 0);
	assert_int_equal(recs[0].sector, 8);
	assert_int_equal(recs[1].time_ns, 5000000);
	assert_int_equal(recs[1].dev_major, 1);
	assert_int_equal(recs[1].dir, TRACE_DIR_WRITE);
	assert_non_null(strstr(rep, "fio iolog v2"));
	assert_non_null(strstr(rep, "files 2, file actions 4, waits 1, sync/datasync 1"));
	assert_non_null(strstr(rep, "unknown action 'fadvise'"));

	assert_int_equal(read_all(NULL, v3, NULL, recs, 3, &n, &err, NULL, 0), 0);
	assert_int_equal(n, 2);
	assert_int_equal(recs[1].time_ns, 150000);
	assert_int_equal(recs[1].dir, TRACE_DIR_DISCARD);

	assert_int_equal(read_all(&trace_fio_ops, "fio version 1 iolog\n", NULL, recs, 3, &n, &err, NULL, 0),
			 SIM_E_INPUT);
	assert_int_equal(read_all(NULL, "fio version 3 iolog\n0 /a add\n5 /a read 0\n", NULL, recs, 3, &n,
				  &err, NULL, 0), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.csv:3:"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msr),
		cmocka_unit_test(test_msr_cut_last_line),
		cmocka_unit_test(test_snia_header),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_completion_order),
		cmocka_unit_test(test_fio_v2_v3),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
