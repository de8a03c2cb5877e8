/* Tests for traces/disksim.c: the MQSim samples parse with their request
 * counts and directions, the DiskSim millisecond dialect is detected,
 * comments, blank lines, CRLF and a missing final newline are accepted,
 * and bad lines are errors that name their line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include <cmocka.h>

#include "models/block/request.h"
#include "traces/trace.h"

static char *path_of(const char *rel)
{
	static char buf[4096];
	const char *src = getenv("MOBISIM_SRC");
	snprintf(buf, sizeof(buf), "%s/%s", src ? src : ".", rel);
	return buf;
}

static void count_file(const char *rel, uint64_t *n, uint64_t *reads, struct trace_rec *first,
		       struct trace_rec *last)
{
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	int rc;

	assert_int_equal(trace_open_auto(path_of(rel), NULL, &r, &err), 0);
	assert_string_equal(r.ops->name, "disksim");
	*n = *reads = 0;
	while ((rc = trace_next(&r, &rec, &err)) == 1) {
		if (!*n)
			*first = rec;
		*last = rec;
		(*n)++;
		if (rec.dir == TRACE_DIR_READ)
			(*reads)++;
		assert_int_equal(rec.action, TRACE_A_QUEUE);
		assert_int_equal(rec.bytes, rec.nr_sectors * 512u);
		assert_int_equal(!!(rec.flags & REQ_WRITE), rec.dir == TRACE_DIR_WRITE);
	}
	assert_int_equal(rc, 0);
	trace_close(&r);
}

static void test_disksim_mqsim_samples(void **state)
{
	uint64_t n, reads;
	struct trace_rec first, last;

	(void)state;
	count_file("tests/data/disksim-ascii/tpcc-small.trace", &n, &reads, &first, &last);
	assert_int_equal(n, 6999);
	assert_int_equal(reads, 4381);
	/* "938513000 4 264719034 16 0": ns, device 4, write of 16 sectors. */
	assert_int_equal(first.time_ns, 938513000);
	assert_int_equal(first.dev_major, 4);
	assert_int_equal(first.sector, 264719034);
	assert_int_equal(first.nr_sectors, 16);
	assert_int_equal(first.dir, TRACE_DIR_WRITE);
	assert_int_equal(first.seq, 1);
	assert_int_equal(last.seq, 6999);
	/* No newline after its last line. */
	count_file("tests/data/disksim-ascii/wsrch-small.trace", &n, &reads, &first, &last);
	assert_int_equal(n, 24783);
	assert_true(reads > n / 2);
}

static int drain(const char *text, const struct trace_opts *o, struct trace_rec *recs, int max,
		 int *n, struct sim_error *err)
{
	struct trace_reader r;
	struct trace_rec rec;
	int rc = trace_open_mem_auto(text, strlen(text), "d.trace", o, &r, err);

	*n = 0;
	if (rc)
		return rc;
	while ((rc = trace_next(&r, &rec, err)) == 1) {
		if (*n < max)
			recs[*n] = rec;
		(*n)++;
	}
	trace_close(&r);
	return rc;
}

static void test_disksim_dialects(void **state)
{
	struct trace_rec recs[8];
	struct sim_error err;
	int n;

	(void)state;
	/* DiskSim: ms as float, flags bit 0 = read; comments, blanks, CRLF. */
	assert_int_equal(drain("# DiskSim ascii\n\n0.500 0 100 8 1\r\n  2.25\t1 200 16 0\n10 0 300 8 3", NULL,
			       recs, 8, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(recs[0].time_ns, 500000);
	assert_int_equal(recs[0].dir, TRACE_DIR_READ);
	assert_int_equal(recs[1].time_ns, 2250000);
	assert_int_equal(recs[1].dev_major, 1);
	assert_int_equal(recs[1].dir, TRACE_DIR_WRITE);
	assert_int_equal(recs[2].time_ns, 10000000); /* the file's dialect is fixed by its first line */
	assert_int_equal(recs[2].dir, TRACE_DIR_READ); /* flags 3: bit 0 set */
	/* MQSim: integer ns. */
	assert_int_equal(drain("1000 0 8 8 1\n2000 0 16 8 0\n", NULL, recs, 8, &n, &err), 0);
	assert_int_equal(recs[0].time_ns, 1000);
	assert_int_equal(recs[1].dir, TRACE_DIR_WRITE);
	/* Forced ms on integers. */
	struct trace_opts ms = { .disksim_time = TRACE_DISKSIM_DISKSIM_MS };
	assert_int_equal(drain("3 0 8 8 1\n", &ms, recs, 8, &n, &err), 0);
	assert_int_equal(recs[0].time_ns, 3000000);
	/* Forced ns refuses a float time. */
	struct trace_opts ns = { .disksim_time = TRACE_DISKSIM_MQSIM_NS };
	assert_int_equal(drain("1000 0 8 8 1\n1.5 0 8 8 1\n", &ns, recs, 8, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "d.trace:2: arrival time"));
}

static void test_disksim_bad_lines(void **state)
{
	struct trace_rec recs[4];
	struct sim_error err;
	int n;

	(void)state;
	assert_int_equal(drain("1000 0 8 8 1\n2000 0 16 -8 0\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	assert_int_equal(n, 1);
	assert_non_null(strstr(err.msg, "d.trace:2: size '-8'"));
	assert_int_equal(drain("1000 0 8 8 1\n# c\n2000 0 16 8\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "d.trace:3: expected 5 fields"));
	assert_int_equal(drain("1000 0 8 0 1\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "d.trace:1: size 0 sectors"));
	assert_int_equal(drain("1000 0 8 8 2\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "d.trace:1: type 2"));
	assert_int_equal(drain("1000 0 8 8 1\n1000 0 x 8 1\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "d.trace:2: lba 'x'"));
	assert_int_equal(drain("1000 0 8 8 1 7\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
}

/* The exact millisecond parser (no strtod for "I.F" with short parts)
 * gives what llround(strtod(s) * 1e6) gives, on random times of every
 * length it takes and on the edges of its range. */
static void test_disksim_ms_fast_path_matches_strtod(void **state)
{
	static const char *const edge[] = { "0", "0.", "0.000001", "999999999.999999", "1000000000",
					    "1000000000.5", "0.0000005", "0.0000015", "12.3456789",
					    "1e3", "5.", "0.100", "123456789.000001" };
	char text[64 * 1024];
	size_t off = 0;
	int64_t want[1200];
	int nwant = 0;
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s 0 8 8 1\n", edge[i]);
		want[nwant++] = llround(strtod(edge[i], NULL) * 1e6);
	}
	for (int i = 0; i < 1000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		char t[64];
		unsigned idig = 1 + (unsigned)(x % 9), fdig = (unsigned)((x >> 8) % 7);
		uint64_t ip = (x >> 16) % 1000000000ull, fp = (x >> 20) % 1000000ull;
		for (unsigned k = idig; k < 9; k++)
			ip /= 10;
		for (unsigned k = fdig; k < 6; k++)
			fp /= 10;
		if (fdig)
			snprintf(t, sizeof(t), "%llu.%0*llu", (unsigned long long)ip, (int)fdig,
				 (unsigned long long)fp);
		else
			snprintf(t, sizeof(t), "%llu", (unsigned long long)ip);
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s 0 8 8 1\n", t);
		want[nwant++] = llround(strtod(t, NULL) * 1e6);
	}
	static struct trace_rec recs[1200];
	struct trace_opts ms = { .disksim_time = TRACE_DISKSIM_DISKSIM_MS };
	struct sim_error err;
	int n;
	assert_int_equal(drain(text, &ms, recs, 1200, &n, &err), 0);
	assert_int_equal(n, nwant);
	for (int i = 0; i < n; i++)
		assert_int_equal(recs[i].time_ns, want[i]);
}

/* Numeric limits: the largest arrival in ns and the largest request are
 * accepted as they are, one past either is an error naming the line, as is
 * a request whose last sector would pass 2^64, and
 * millisecond times whose nanoseconds would not fit in int64 are refused. */
static void test_disksim_numeric_limits(void **state)
{
	struct trace_rec recs[4];
	struct sim_error err;
	int n;

	(void)state;
	assert_int_equal(drain("9223372036854775807 0 18446744073701163008 8388607 1\n", NULL, recs, 4,
			       &n, &err), 0);
	assert_int_equal(recs[0].time_ns, INT64_MAX);
	assert_true(recs[0].sector == UINT64_MAX - 8388607);
	assert_int_equal(recs[0].nr_sectors, 8388607);
	assert_int_equal(recs[0].bytes, 8388607u << 9); /* fits in uint32 */
	assert_int_equal(drain("9223372036854775808 0 8 8 1\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "d.trace:1: arrival time"));
	assert_int_equal(drain("18446744073709551616 0 8 8 1\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	assert_int_equal(drain("1000 0 18446744073709551616 8 1\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "d.trace:1: lba"));
	assert_int_equal(drain("1000 0 18446744073701163009 8388607 1\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "passes 2^64"));
	assert_int_equal(drain("1000 0 8 8388608 1\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "size 8388608 sectors out of range"));
	assert_int_equal(drain("1000 0 8 4294967295 1\n", NULL, recs, 4, &n, &err), SIM_E_INPUT);
	struct trace_opts ms = { .disksim_time = TRACE_DISKSIM_DISKSIM_MS };
	assert_int_equal(drain("9200000000000 0 8 8 1\n", &ms, recs, 4, &n, &err), 0);
	assert_int_equal(recs[0].time_ns, 9200000000000000000);
	assert_int_equal(drain("9300000000000 0 8 8 1\n", &ms, recs, 4, &n, &err), SIM_E_INPUT);
	assert_int_equal(drain("1e300 0 8 8 1\n", &ms, recs, 4, &n, &err), SIM_E_INPUT);
	/* found by fuzz_blkparse/fuzz_blktrace (UBSan): digit runs too long for
	 * the exact parser overflowed it before it gave up; they now take the
	 * strtod path (and are refused as too large, or parsed) with no UB */
	assert_int_equal(drain("5555555555555555555 0 8 8 1\n", &ms, recs, 4, &n, &err), SIM_E_INPUT);
	assert_int_equal(drain("9223372036854775806.25 0 8 8 1\n", &ms, recs, 4, &n, &err), SIM_E_INPUT);
	assert_int_equal(drain("1.22222222222222222222 0 8 8 1\n", &ms, recs, 4, &n, &err), 0);
	assert_int_equal(recs[0].time_ns, 1222222);
}

/* The disksim reader itself, without the probe (which would refuse a
 * first line that is not five numbers). */
static int drain_disksim(const char *text, struct trace_rec *recs, int max, int *n, struct sim_error *err)
{
	void *st = NULL;
	struct trace_rec rec;
	int rc = trace_disksim_ops.open_mem(text, strlen(text), "d.trace", NULL, &st, err);

	*n = 0;
	if (rc)
		return rc;
	while ((rc = trace_disksim_ops.next(st, &rec, err)) == 1) {
		if (*n < max)
			recs[*n] = rec;
		(*n)++;
	}
	trace_disksim_ops.close(st);
	return rc;
}

/* A line after the first takes the one-pass parser when it is plain (its
 * dialect is known); the first line always takes the careful one. Every
 * line must give the same record either way, or an error of the same text
 * but for the line number. In the DiskSim dialect the arrival is written
 * with a '.' so that the lone line is read in that dialect too. */
static void test_disksim_one_pass_matches_careful(void **state)
{
	static const char *const lines[] = {
		"1000 0 8 8 1", "1000\t0\t8\t8\t0", "  1000   1 8 8 1  ", "1000 0 8 8 1\r",
		"1000 4095 18446744073701163008 8388607 1", "1000 4096 8 8 1", "1000 0 8 0 1",
		"1000 0 8 8 2", "1000 0 8 8 3", "1000 0 8 8388608 1", "1000 0 18446744073701163009 8388607 1",
		"1000 0 0018446744073709551615 8 1", "1000 0 18446744073709551616 8 1",
		"1000 0 1844674407370955161 8 1", "1000 0 8 8", "1000 0 8 8 1 9", "1000 0 8x 8 1",
		"1000 0 +8 8 1", "1000 0 -0 8 1", "1000 0 8 8 01",
		"9223372036854775807 0 8 8 1", "9223372036854775808 0 8 8 1", "01000 0 8 8 1",
	};
	static const char *const first[2] = { "1 0 8 8 1\n", "1.5 0 8 8 1\n" };
	int fast_paths = 0;
	for (int d = 0; d < 2; d++)
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
			char line[128], lone[160], after[256];
			struct trace_rec r1[2], r2[3];
			struct sim_error e1, e2;
			int n1, n2;
			if (d == 1 && strncmp(lines[i], "1000 ", 5))
				continue; /* a lone integer arrival would be MQSim's */
			snprintf(line, sizeof(line), "%s%s", d ? "1000.25" : "", lines[i] + (d ? 4 : 0));
			snprintf(lone, sizeof(lone), "%s\n", line);
			snprintf(after, sizeof(after), "%s%s\n", first[d], line);
			int c1 = drain_disksim(lone, r1, 2, &n1, &e1);
			int c2 = drain_disksim(after, r2, 3, &n2, &e2);
			assert_int_equal(c1, c2);
			assert_int_equal(n1 + 1, n2);
			if (c1) {
				const char *a = strchr(e1.msg, ' '), *b = strchr(e2.msg, ' ');
				assert_non_null(a);
				assert_non_null(b);
				assert_string_equal(a, b);
				continue;
			}
			fast_paths++;
			assert_int_equal(r1[0].time_ns, r2[1].time_ns);
			assert_true(r1[0].sector == r2[1].sector);
			assert_int_equal(r1[0].nr_sectors, r2[1].nr_sectors);
			assert_int_equal(r1[0].dev_major, r2[1].dev_major);
			assert_int_equal(r1[0].dir, r2[1].dir);
			assert_int_equal(r1[0].flags, r2[1].flags);
			assert_int_equal(r1[0].seq + 1, r2[1].seq);
		}
	assert_true(fast_paths >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disksim_mqsim_samples),
		cmocka_unit_test(test_disksim_dialects),
		cmocka_unit_test(test_disksim_bad_lines),
		cmocka_unit_test(test_disksim_ms_fast_path_matches_strtod),
		cmocka_unit_test(test_disksim_numeric_limits),
		cmocka_unit_test(test_disksim_one_pass_matches_careful),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
