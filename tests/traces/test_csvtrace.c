/* Tests for traces/csvtrace.c: MSR Cambridge lines give Q records with
 * FILETIME converted to ns from the first request, the hostname a device
 * minor (never a process name: the trace records no process),
 * and C records at queue time + ResponseTime in time order;
 * the SNIA header dialect; a --columns mapping with units; fio iolog v2
 * (waits move the clock, files become devices) and v3 (microsecond times);
 * lenient skips with a warning and the same input refused under strict;
 * bad lines are errors naming their line and column; the Pixel 6a phone
 * CSV header is read without a mapping (names, dev_t devices, sectors,
 * seconds, the phase marker row); comm/pid/tid/uid columns; MAJOR:MINOR
 * devices; what each layout records of who issued an I/O; --fg rules.
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
	assert_null(recs[1].comm); /* wdev is the server, not a process */
	assert_int_equal(recs[3].action, TRACE_A_COMPLETE);
	assert_int_equal(recs[3].time_ns, 1000000 + 30000);
	assert_int_equal(recs[0].dir, TRACE_DIR_WRITE);
	assert_true(recs[0].flags & REQ_WRITE);
	assert_int_equal(recs[0].sector, 2836152320ull / 512);
	assert_int_equal(recs[0].nr_sectors, 8);
	assert_null(recs[0].comm);
	assert_int_equal(recs[0].pid, 0);
	assert_int_equal(recs[0].dev_minor, 0);
	/* 10000 ticks of 100 ns later */
	assert_int_equal(recs[2].time_ns, 1000000);
	assert_int_equal(recs[2].dir, TRACE_DIR_READ);
	assert_int_equal(recs[2].dev_major, 2);
	assert_int_equal(recs[2].sector, 2);
	assert_int_equal(recs[2].nr_sectors, 2); /* 1024..2024 covers sectors 2 and 3 */
	assert_int_equal(recs[2].bytes, 1000);
	assert_non_null(strstr(rep, "MSR Cambridge"));
	assert_non_null(strstr(rep, "warnings: 1 lines skipped (first: t.csv:3: column 4 (op): unknown "
				    "operation 'Flush'"));
	assert_non_null(strstr(rep, "hosts:    wdev = device minor 0"));

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
	assert_non_null(strstr(rep, "t.csv:4: column 2 (op): unknown operation '7'"));

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

/* Read text (auto-detected, or through columns) into recs, its diag into d. */
static int read_diag(const char *text, const char *columns, struct trace_diag *d, struct trace_rec *recs,
		     int max, int *n, struct sim_error *err, char *rep, size_t rlen)
{
	struct trace_opts o = { .columns = columns, .diag = d };
	memset(d, 0, sizeof(*d));
	return read_all(columns ? &trace_csv_ops : NULL, text, &o, recs, max, n, err, rep, rlen);
}

static void test_phone_header(void **state)
{
	/* the layout of the Pixel 6a eBPF traces: process name first, the
	 * device a kernel dev_t (8388608 = 8:0), sectors of 512 B, seconds
	 * with more digits than ns, the installation/run marker row */
	static const char text[] = "proces,device,rw_flag,sector,size,timestamp\n"
				   "com.whatsapp,8388608,W,128,8,5218128.1812390005\n"
				   "kworker/u16:2,271581185,R,136,16,5218128.2\n"
				   "\"preconditioning_ended\"\n"
				   "com.whatsapp,8388608,R,4000,32,5218130\n"
				   ",8388608,R,2000,8,5218130.5\n";
	struct trace_rec recs[8];
	struct trace_diag d;
	struct sim_error err;
	char rep[2048];
	int n;

	(void)state;
	assert_int_equal(read_diag(text, NULL, &d, recs, 8, &n, &err, rep, sizeof(rep)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(recs[0].time_ns, 0);
	assert_string_equal(recs[0].comm, "com.whatsapp");
	assert_int_equal(recs[0].pid, 1); /* the reader's number for the first name */
	assert_int_equal(recs[0].dev_major, 8);
	assert_int_equal(recs[0].dev_minor, 0);
	assert_int_equal(recs[0].sector, 128);
	assert_int_equal(recs[0].nr_sectors, 8);
	assert_int_equal(recs[0].bytes, 4096);
	assert_int_equal(recs[0].dir, TRACE_DIR_WRITE);
	assert_string_equal(recs[1].comm, "kworker/u16:2");
	assert_int_equal(recs[1].pid, 2);
	assert_int_equal(recs[1].dev_major, 259); /* 259 << 20 | 1 */
	assert_int_equal(recs[1].dev_minor, 1);
	/* .2 s - .1812390005 s: each time rounded to the nearest ns (half up) */
	assert_int_equal(recs[1].time_ns, 18760999);
	assert_int_equal(recs[2].pid, 1);            /* the same name, the same pid */
	assert_int_equal(recs[2].nr_sectors, 32);
	assert_null(recs[3].comm);                   /* an empty name: counted, pid 0 */
	assert_int_equal(recs[3].pid, 0);
	assert_int_equal(d.unnamed, 1);
	assert_int_equal(d.identity, TRACE_ID_COMM);
	assert_non_null(strstr(rep, "phone block CSV"));
	assert_non_null(strstr(rep, "4=offset (512 B sectors) 5=size (512 B sectors) 6=time (s)"));
	assert_non_null(strstr(rep, "phase markers: 1 (\"preconditioning_ended\" first at line 4"));
	assert_non_null(strstr(rep, "requests with an empty process name (pid 0, no name): 1"));

	/* the README's spelling of the first column, and a bad row */
	static const char bad[] = "process,device,rw_flag,sector,size,timestamp\n"
				  "app,8388608,R,12x,8,1.0\n";
	assert_int_equal(read_diag(bad, NULL, &d, recs, 8, &n, &err, NULL, 0), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.csv:2: column 4 (offset): '12x' is not a non-negative number"));
}

/* The recorder's first column is ftrace's "comm-tid": the name and the
 * thread id apart ("kworker/u17:0-21515": the name may hold '-' and ':'),
 * "<...>" ftrace's unknown name (the thread keeps its id), a bare name
 * numbered as before; --columns comm=N:tid does the same for any CSV. */
static void test_phone_comm_tid(void **state)
{
	static const char text[] = "proces,device,rw_flag,sector,size,timestamp\n"
				   "egram.messenger-2951,8388608,R,128,8,10.0\n"
				   "kworker/u17:0-21515,8388608,W,256,8,10.1\n"
				   "<...>-21515,8388608,W,264,8,10.2\n"
				   "com.whatsapp,8388608,R,512,8,10.3\n"
				   "my-app-,8388608,R,640,8,10.4\n";
	struct trace_rec recs[8];
	struct trace_diag d;
	struct sim_error err;
	char rep[2048];
	int n;

	(void)state;
	assert_int_equal(read_diag(text, NULL, &d, recs, 8, &n, &err, rep, sizeof(rep)), 0);
	assert_int_equal(n, 5);
	assert_string_equal(recs[0].comm, "egram.messenger");
	assert_int_equal(recs[0].pid, 2951);
	assert_int_equal(recs[0].tid, 2951);
	assert_true(recs[0].tflags & TRACE_T_HAS_TID);
	assert_string_equal(recs[1].comm, "kworker/u17:0");
	assert_int_equal(recs[1].pid, 21515);
	assert_null(recs[2].comm); /* "<...>": no name, the same thread */
	assert_int_equal(recs[2].pid, 21515);
	assert_string_equal(recs[3].comm, "com.whatsapp"); /* no -TID: numbered by name */
	assert_int_equal(recs[3].pid, 1);
	assert_string_equal(recs[4].comm, "my-app-"); /* a '-' with no digits is the name's */
	assert_int_equal(recs[4].pid, 2);
	assert_true(d.identity & TRACE_ID_PID);
	assert_non_null(strstr(rep, "comm-tid split: 3 rows"));
	assert_non_null(strstr(rep, "\"<...>-TID\": no name): 1"));
	assert_null(strstr(rep, "requests with an empty process name"));

	static const char map[] = "time=1:s,op=2,offset=3:sector,size=4:sector,comm=5:tid";
	static const char mapped[] = "0.5,R,100,8,RenderThread-3125\n";
	assert_int_equal(read_diag(mapped, map, &d, recs, 8, &n, &err, NULL, 0), 0);
	assert_string_equal(recs[0].comm, "RenderThread");
	assert_int_equal(recs[0].tid, 3125);
	assert_int_equal(read_diag(mapped, "time=1:s,op=2,offset=3:sector,size=4:sector,comm=5:pid",
				   &d, recs, 8, &n, &err, NULL, 0), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "comm: unknown unit 'pid'"));
}

static void test_identity_columns(void **state)
{
	static const char map[] = "time=1:s,op=2,offset=3:sector,size=4:sector,comm=5,pid=6,tid=7,"
				  "uid=8,dev=9,sep=semicolon";
	static const char text[] = "0.5;R;100;8;com.app;3120;3125;10123;259:3\n"
				   "1.0;W;200;8;com.app;3120;3130;10123;259:3\n";
	struct trace_rec recs[4];
	struct trace_diag d;
	struct sim_error err;
	int n;

	(void)state;
	assert_int_equal(read_diag(text, map, &d, recs, 4, &n, &err, NULL, 0), 0);
	assert_int_equal(n, 2);
	assert_int_equal(recs[0].pid, 3120);
	assert_int_equal(recs[0].tid, 3125);
	assert_int_equal(recs[1].tid, 3130);
	assert_int_equal(recs[0].uid, 10123);
	assert_true(recs[0].tflags & TRACE_T_HAS_UID);
	assert_true(recs[0].tflags & TRACE_T_HAS_TID);
	assert_int_equal(recs[0].dev_major, 259);
	assert_int_equal(recs[0].dev_minor, 3);
	assert_string_equal(recs[0].comm, "com.app");
	assert_int_equal(d.identity, TRACE_ID_COMM | TRACE_ID_PID | TRACE_ID_TID | TRACE_ID_UID);

	/* a pid that is not one, a device that is not one: line and column */
	assert_int_equal(read_diag("0.5;R;100;8;com.app;31x0;1;1;259:3\n", map, &d, recs, 4, &n, &err,
				   NULL, 0), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.csv:1: column 6 (pid): '31x0'"));
	assert_int_equal(read_diag("0.5;R;100;8;com.app;3;1;1;259:x\n", map, &d, recs, 4, &n, &err,
				   NULL, 0), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.csv:1: column 9 (dev): '259:x'"));
	/* two keys on one column */
	void *st = NULL;
	struct trace_opts dup = { .columns = "time=1,op=2,offset=3,size=4,pid=4" };
	assert_int_equal(trace_csv_ops.open_mem(text, strlen(text), "t.csv", &dup, &st, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "size and pid both name column 4"));

	/* MSR records no process: a rule on names cannot be answered */
	static const char msr[] = "128166372003061629,usr,0,Write,0,4096,1\n"
				  "128166372003061639,src1,1,Read,4096,4096,10\n";
	assert_int_equal(read_diag(msr, NULL, &d, recs, 4, &n, &err, NULL, 0), 0);
	assert_int_equal(d.identity, 0);
	assert_int_equal(recs[2].dev_major, 1);
	assert_int_equal(recs[2].dev_minor, 1); /* the second host */
	char lacks[128];
	struct trace_fg *fg = NULL;
	assert_int_equal(trace_fg_add(&fg, "comm=chrome", &err), 0);
	assert_true(trace_identity_lacks(trace_fg_needs(fg), d.identity, lacks, sizeof(lacks)));
	assert_string_equal(lacks, "process names");
	trace_fg_free(fg);
}

static void test_fg_rules(void **state)
{
	struct trace_fg *fg = NULL;
	struct sim_error err;

	(void)state;
	assert_int_equal(trace_fg_add(&fg, "comm=^com\\.whatsapp$", &err), 0);
	assert_int_equal(trace_fg_add(&fg, "uid=10123", &err), 0);
	assert_int_equal(trace_fg_add(&fg, "pid=42", &err), 0);
	struct trace_rec r = { .comm = "com.whatsapp", .pid = 7 };
	assert_true(trace_fg_match(fg, &r));
	r.comm = "com.whatsapp:sync"; /* anchored: another process of the app is not it */
	assert_false(trace_fg_match(fg, &r));
	r.uid = 10123; /* a uid counts only when the trace records it */
	assert_false(trace_fg_match(fg, &r));
	r.tflags = TRACE_T_HAS_UID;
	assert_true(trace_fg_match(fg, &r));
	r = (struct trace_rec){ .pid = 42 };
	assert_true(trace_fg_match(fg, &r));
	assert_int_equal(trace_fg_needs(fg), TRACE_ID_COMM | TRACE_ID_UID | TRACE_ID_PID);
	char d[256];
	trace_fg_describe(fg, d, sizeof(d));
	assert_string_equal(d, "comm=^com\\.whatsapp$ or uid=10123 or pid=42");
	assert_int_equal(trace_fg_add(&fg, "comm=(", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "bad regular expression"));
	/* back-references backtrack without bound in glibc: refused; a backslash
	 * digit inside brackets or after an escaped backslash is not one */
	assert_int_equal(trace_fg_add(&fg, "comm=^(a*)*\\1b$", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "back-reference"));
	assert_int_equal(trace_fg_add(&fg, "comm=[[:alpha:]]\\2", &err), SIM_E_INPUT);
	assert_int_equal(trace_fg_add(&fg, "comm=a[\\1]b", &err), 0);
	assert_int_equal(trace_fg_add(&fg, "comm=x\\\\1", &err), 0);
	assert_int_equal(trace_fg_add(&fg, "comm=[]\\1]", &err), 0);
	assert_int_equal(trace_fg_add(&fg, "gid=3", &err), SIM_E_INPUT);
	assert_int_equal(trace_fg_add(&fg, "pid=-1", &err), SIM_E_INPUT);
	trace_fg_free(fg);

	/* app=: the main thread's comm (libutils androidSetThreadName: the
	 * last 15 characters of a long dotted name) or the package itself */
	fg = NULL;
	assert_int_equal(trace_fg_add(&fg, "app=org.telegram.messenger", &err), 0);
	assert_int_equal(trace_fg_add(&fg, "app=com.whatsapp", &err), 0);
	r = (struct trace_rec){ .comm = "egram.messenger" };
	assert_true(trace_fg_match(fg, &r));
	r.comm = "org.telegram.messenger";
	assert_true(trace_fg_match(fg, &r));
	r.comm = "org.telegram.me"; /* the head is the kernel's cut, not Android's */
	assert_false(trace_fg_match(fg, &r));
	r.comm = "com.whatsapp"; /* shorter than 15: the whole name */
	assert_true(trace_fg_match(fg, &r));
	r.comm = "RenderThread";
	assert_false(trace_fg_match(fg, &r));
	assert_int_equal(trace_fg_needs(fg), TRACE_ID_COMM);
	trace_fg_describe(fg, d, sizeof(d));
	assert_string_equal(d, "app=org.telegram.messenger (comm 'egram.messenger' or "
			       "'org.telegram.messenger') or app=com.whatsapp (comm 'com.whatsapp')");
	trace_fg_free(fg);
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
		cmocka_unit_test(test_phone_header),
		cmocka_unit_test(test_phone_comm_tid),
		cmocka_unit_test(test_identity_columns),
		cmocka_unit_test(test_fg_rules),
		cmocka_unit_test(test_fio_v2_v3),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
