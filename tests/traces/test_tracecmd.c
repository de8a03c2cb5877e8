/* Tests for traces/tracecmd.c: the v6 and v7 (zstd) trace.dat fixtures in
 * tests/data/tracecmd (made by make_tracedat.py, v7 by `trace-cmd convert`)
 * give the block records `trace-cmd report` prints, CPUs merged in time
 * order; other events are counted by name; cut and corrupt headers are
 * errors naming a byte offset before the library sees them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "traces/trace.h"

static const char *path_of(const char *rel)
{
	static char buf[4096];
	const char *src = getenv("MOBISIM_SRC");
	snprintf(buf, sizeof(buf), "%s/%s", src ? src : ".", rel);
	return buf;
}

static void check_fixture(const char *rel)
{
	static const struct { char act; int64_t t; uint32_t cpu; int32_t pid; uint64_t sector;
			      uint32_t nr; uint8_t dir; const char *comm; } want[] = {
		{ 'Q', 0, 0, 4001, 2048, 8, TRACE_DIR_READ, "RenderThread" },
		{ 'Q', 1000, 1, 4100, 4096, 16, TRACE_DIR_WRITE, "kworker/u16:2" },
		{ 'I', 2000, 0, 4001, 2048, 8, TRACE_DIR_READ, "RenderThread" },
		{ 'D', 2500, 0, 4001, 2048, 8, TRACE_DIR_READ, "RenderThread" },
		{ 'D', 3000, 1, 4100, 4096, 16, TRACE_DIR_WRITE, "kworker/u16:2" },
		{ 'C', 51000, 1, 0, 2048, 8, TRACE_DIR_READ, NULL },
		{ 'C', 60000, 1, 0, 4096, 16, TRACE_DIR_WRITE, NULL },
	};
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	int rc, n = 0;

	assert_int_equal(trace_open_auto(path_of(rel), NULL, &r, &err), 0);
	assert_string_equal(r.ops->name, "tracecmd");
	while ((rc = trace_next(&r, &rec, &err)) == 1) {
		assert_true(n < 7);
		assert_int_equal(rec.act, want[n].act);
		assert_int_equal(rec.time_ns, want[n].t);
		assert_int_equal(rec.cpu, want[n].cpu);
		assert_int_equal(rec.pid, want[n].pid);
		assert_int_equal(rec.dev_major, 259);
		assert_int_equal(rec.dev_minor, 0);
		assert_int_equal(rec.sector, want[n].sector);
		assert_int_equal(rec.nr_sectors, want[n].nr);
		assert_int_equal(rec.dir, want[n].dir);
		if (want[n].comm)
			assert_string_equal(rec.comm, want[n].comm);
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 7);
	char rep[2048];
	FILE *f = fmemopen(rep, sizeof(rep), "w");
	r.ops->report(r.state, f);
	fclose(f);
	assert_non_null(strstr(rep, "records:  8 on 2 CPUs"));
	assert_non_null(strstr(rep, "sched_switch"));
	trace_close(&r);
}

static void test_v6(void **state)
{
	if (!trace_tracecmd_built)
		skip(); /* reading records needs libtracecmd */
	(void)state;
	check_fixture("tests/data/tracecmd/block-v6.dat");
}

static void test_v7_zstd(void **state)
{
	if (!trace_tracecmd_built)
		skip(); /* reading records needs libtracecmd */
	(void)state;
	check_fixture("tests/data/tracecmd/block-v7.dat");
}

/* trace-cmd's own v6 layout (`trace-cmd convert --file-version 6`): a
 * CPUCOUNT option and the trace clock text after the CPU table */
static void test_v6_written_by_trace_cmd(void **state)
{
	if (!trace_tracecmd_built)
		skip(); /* reading records needs libtracecmd */
	(void)state;
	check_fixture("tests/data/tracecmd/block-v6-tc.dat");
}

static void test_bad_headers(void **state)
{
	static const struct { const char *file, *msg; } cases[] = {
		{ "cut-in-header-page", "byte offset 30: header_page of 205 bytes passes the end" },
		{ "version-9", "byte offset 10: trace.dat version '9'" },
		{ "bad-page-size", "byte offset 14: page size 1000" },
		{ "cut-in-data", "passes the end of the file" },
		{ "zero-cpus", "0 CPUs" },
		/* libtraceevent 1.7.1 crashed on this cut print fmt (fuzzing) */
		{ "found-print-fmt-cut", "byte offset 2908: an event format's print fmt is not" },
		/* and on "->" after anything but REC ("RECchar[16]->dev") */
		{ "found-print-fmt-arrow", "byte offset 2063: an event format's print fmt is not" },
		/* libtracecmd callocs these counts: 3.7 and 12.9 GB (fuzzing) */
		{ "found-v7-buffer-cpu-id", "byte offset 8375: CPU id 154887424 (at most 4095)" },
		{ "found-v7-chunk-count", "byte offset 4096: CPU 0 has 536870944 compressed chunks" },
		/* read_metadata_strings reallocs a STRINGS section's size: 4 GB (fuzzing) */
		{ "found-v7-strings-size", "byte offset 16491: STRINGS section of 18446744073709551508 bytes" },
		/* options the library crashes on or allocates GBs for
		 * (make_bad_tracedat.py says which) */
		{ "opt-text-no-nul-v6", "byte offset 4814: a text option without its terminating NUL" },
		{ "opt-text-no-nul-v7", "byte offset 8569: a text option without its terminating NUL" },
		{ "opt-clock-brackets-v6", "byte offset 4814: a trace clock whose current clock" },
		{ "opt-clock-brackets-v7", "byte offset 8569: a trace clock whose current clock" },
		{ "opt-clock-data-size-v6", "byte offset 8958: trace clock of 3221225472 bytes passes the end" },
		{ "opt-hook-v6", "byte offset 4814: an event-hook option (trace-cmd record -H)" },
		{ "opt-cpustat-empty-v7", "byte offset 8569: an empty CPUSTAT option" },
		{ "opt-procmaps-count-v6", "byte offset 4814: a PROCMAPS option announces 268435455 libraries" },
		{ "opt-time-shift-cpus-v7", "byte offset 8569: a TIME_SHIFT option announces more CPUs" },
		{ "opt-time-shift-samples-v6", "byte offset 4830: a TIME_SHIFT option announces more samples" },
		{ "opt-guest-vcpus-v6", "byte offset 4825: a GUEST option announces more vCPUs" },
		{ "printk-short-format-v6", "byte offset 4749: a printk format line is not" },
		{ "printk-no-colon-v6", "byte offset 4749: a printk format line is not" },
		{ "opt-cpucount-v6", "byte offset 4814: CPUCOUNT 100000 (expected 1..4096)" },
		/* v7 sections and compressed CPU data are walked too */
		{ "v7-section-print-fmt-cut", "byte offset 9249: an event format's print fmt is not" },
		{ "v7-section-bad-zstd", "byte offset 377: EVENT FORMATS section does not uncompress" },
		{ "v7-zlib-print-fmt-cut", "EVENT FORMATS section at byte offset 8840, uncompressed: byte "
					   "offset 686: an event format's print fmt is not" },
		{ "v7-chunk-page-commit", "CPU 0 chunk at byte offset 8551, uncompressed: byte offset 8: "
					  "CPU 0 data page holds 134217727 bytes" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char rel[256];
		struct trace_reader r;
		struct sim_error err;
		snprintf(rel, sizeof(rel), "tests/fuzz/corpus/tracecmd/%s", cases[i].file);
		assert_int_equal(trace_open_auto(path_of(rel), NULL, &r, &err), SIM_E_INPUT);
		/* without libtracecmd the event-format checks (tc_check_format)
		 * are not built: the walk refuses such a file further on, or it
		 * is refused for want of the library, still naming an offset */
		if (trace_tracecmd_built ? !strstr(err.msg, cases[i].msg) : !strstr(err.msg, "byte offset"))
			fail_msg("%s: %s", cases[i].file, err.msg);
	}
}

/* libtraceevent returned the same record forever on this page (fuzzing:
 * `trace stat` hung); the read must end with an error naming the CPU */
static void test_record_that_repeats(void **state)
{
	if (!trace_tracecmd_built)
		skip(); /* reading records needs libtracecmd */
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	int rc, n = 0;
	(void)state;
	assert_int_equal(trace_open_auto(path_of("tests/fuzz/corpus/tracecmd/found-record-repeats"), NULL,
					 &r, &err), 0);
	while ((rc = trace_next(&r, &rec, &err)) == 1)
		assert_true(++n < 1000);
	assert_int_equal(rc, SIM_E_INPUT);
	if (!strstr(err.msg, "byte offset 12484: CPU 1: libtracecmd read a ring-buffer record that "
			     "does not follow"))
		fail_msg("%s", err.msg);
	trace_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v6),
		cmocka_unit_test(test_v7_zstd),
		cmocka_unit_test(test_v6_written_by_trace_cmd),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_record_that_repeats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
