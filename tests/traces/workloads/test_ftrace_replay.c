/* Tests for traces/workloads/ftrace_replay.c, the full-stack ftrace replay: a read
 * syscall becomes a page-cache read of its returned size whose latency
 * lands in the thread's class; closed loop delays a thread's next op until
 * the simulated previous one finished plus the recorded gap, open loop
 * issues at the recorded time; B/E markers become regions; fsync becomes
 * an fsync op; mmap plus page-cache adds become one fault; sched_switch
 * splits a gap into CPU and think time; VFS kprobes (the Android sample's
 * form) become reads of regular files only; unknown events are counted by
 * name; a broken line is a file:LINE: error (exit 2 through `mobisim run`);
 * the read-ahead window bounds memory on a long trace.
 *
 * Traces are hand-written ftrace text in a temporary file; the device is
 * the ideal fixed-service model (1000 us, one server) and inodes are
 * cached (fs.cold_metadata: false), so every I/O takes one device time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/device/device.h"
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
	snprintf(t->path, sizeof(t->path), "/tmp/mobisim-ftreplay-XXXXXX");
	int fd = mkstemp(t->path);
	assert_true(fd >= 0);
	t->f = fdopen(fd, "w");
	assert_non_null(t->f);
	fprintf(t->f, "# tracer: nop\n#\n");
}

/* One event line of comm-tid (tgid) at t_us after 100 s. */
static void ev(struct tf *t, const char *comm, int tid, int tgid, double t_us, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static void ev(struct tf *t, const char *comm, int tid, int tgid, double t_us, const char *fmt, ...)
{
	fprintf(t->f, "  %16s-%-5d (%5d) [000] ..... %.6f: ", comm, tid, tgid, 100.0 + t_us / 1e6);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(t->f, fmt, ap);
	va_end(ap);
	fputc('\n', t->f);
}

/* openat(AT_FDCWD, ptr, flags) = fd over [t0, t1] */
static void ev_open(struct tf *t, const char *comm, int tid, int tgid, double t0, double t1, int fd)
{
	ev(t, comm, tid, tgid, t0, "sys_enter: NR 56 (ffffff9c, 7ffd1000, 0, 0, 0, 0)");
	ev(t, comm, tid, tgid, t1, "sys_exit: NR 56 = %d", fd);
}

/* read(fd, buf, count) = ret */
static void ev_read(struct tf *t, const char *comm, int tid, int tgid, double t0, double t1, int fd,
		    unsigned count, int ret)
{
	ev(t, comm, tid, tgid, t0, "sys_enter: NR 63 (%x, 7ffd2000, %x, 0, 0, 0)", fd, count);
	ev(t, comm, tid, tgid, t1, "sys_exit: NR 63 = %d", ret);
}

/* pread64(fd, buf, count, pos) = count */
static void ev_pread(struct tf *t, const char *comm, int tid, int tgid, double t0, double t1, int fd,
		     unsigned count, unsigned long long pos)
{
	ev(t, comm, tid, tgid, t0, "sys_enter: NR 67 (%x, 7ffd2000, %x, %llx, 0, 0)", fd, count, pos);
	ev(t, comm, tid, tgid, t1, "sys_exit: NR 67 = %u", count);
}

static void tf_close(struct tf *t)
{
	fclose(t->f);
}

struct run {
	struct sim *s;
	json_t *stats;
};

static void scenario_yaml(char *yaml, size_t cap, const char *trace, const char *extra_top,
			  const char *extra_wl)
{
	snprintf(yaml, cap,
		 "seed: 1\n"
		 "device: {model: ideal, service: fixed, mean_us: 1000, servers: 1}\n"
		 "scheduler: noop\n"
		 "fs: {cold_metadata: false}\n"
		 "%s"
		 "workload:\n"
		 "  type: ftrace\n"
		 "  trace: %s\n"
		 "%s",
		 extra_top ? extra_top : "", trace, extra_wl ? extra_wl : "");
}

/* Build a simulator over trace; returns sim_run's code (0 expected unless
 * the test looks at errors), err filled. */
static int run_ftrace(struct run *out, const char *trace, const char *extra_top,
		      const char *extra_wl, struct sim_error *err)
{
	char yaml[4096];
	scenario_yaml(yaml, sizeof(yaml), trace, extra_top, extra_wl);
	struct cfg_doc *doc;
	if (cfg_load_string(yaml, strlen(yaml), "test.yaml", &doc, err))
		fail_msg("%s", err->msg);
	struct sim_options opt = { .seed = 1, .quiet = true };
	if (sim_create(doc, "test.yaml", &opt, &out->s, err))
		fail_msg("%s", err->msg);
	int rc = sim_run(out->s, err);
	out->stats = json_object();
	out->s->workload->ops->stats_json(out->s, out->s->workload->state, out->stats);
	return rc;
}

static void run_ok(struct run *out, const char *trace, const char *extra_top, const char *extra_wl)
{
	struct sim_error err = { 0 };
	if (run_ftrace(out, trace, extra_top, extra_wl, &err))
		fail_msg("%s", err.msg);
}

static void run_free(struct run *r)
{
	json_decref(r->stats);
	sim_destroy(r->s);
}

static int64_t stat_int(const struct run *r, const char *obj, const char *key)
{
	json_t *o = obj ? json_object_get(r->stats, obj) : r->stats;
	assert_non_null(o);
	json_t *v = json_object_get(o, key);
	return v ? (int64_t)json_integer_value(v) : 0;
}

static const struct sim_opstat *op(const struct run *r, enum sim_class c, enum sim_op o)
{
	return &r->s->metrics.cls[c].op[o];
}

static const struct sim_region *region(const struct run *r, const char *name)
{
	for (uint32_t i = 0; i < r->s->metrics.nregions; i++)
		if (strcmp(r->s->metrics.regions[i].name, name) == 0)
			return &r->s->metrics.regions[i];
	fail_msg("no region %s", name);
	return NULL;
}

/* ------------------------------------------------------------------ tests */

static void test_ftrace_replay_read_syscall_is_pagecache_read_in_class(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	/* app asks for 16 KiB and gets 8 KiB; bgsvc reads 4 KiB of another file */
	ev_open(&t, "app", 100, 100, 0, 5, 3);
	ev_read(&t, "app", 100, 100, 10, 20, 3, 0x4000, 8192);
	ev_open(&t, "bgsvc", 200, 200, 30, 35, 3);
	ev_read(&t, "bgsvc", 200, 200, 40, 50, 3, 0x1000, 4096);
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, "  fg_comm: [\"app\"]\n");
	assert_string_equal(r.s->replay, "closed");
	const struct sim_opstat *fg = op(&r, SIM_CLASS_FG, SIM_OP_READ);
	const struct sim_opstat *bg = op(&r, SIM_CLASS_BG, SIM_OP_READ);
	assert_int_equal(fg->count, 1);
	assert_int_equal(fg->bytes, 8192); /* the returned count, not the asked one */
	assert_int_equal(bg->count, 1);
	assert_int_equal(bg->bytes, 4096);
	/* a miss: at least one device time, within the stack's CPU overheads */
	assert_true(fg->lat.min >= 1000 * US);
	assert_true(fg->lat.max < 1500 * US);
	assert_true(bg->lat.min >= 1000 * US);
	assert_int_equal(stat_int(&r, NULL, "tasks"), 2);
	assert_int_equal(stat_int(&r, "ops", "read"), 2);
	assert_int_equal(stat_int(&r, "ops", "open"), 2);
	/* fds are per process: fd 3 of app and of bgsvc are two files */
	assert_int_equal(stat_int(&r, NULL, "files"), 2);
	run_free(&r);
	unlink(t.path);
}

/* Region a around read A (recorded 0..10 us), region b around pread B at
 * 5000 us: B's region starts when B is issued. */
static void write_two_reads(struct tf *t)
{
	tf_open(t);
	ev(t, "app", 100, 100, 0, "tracing_mark_write: B|100|a");
	ev_read(t, "app", 100, 100, 0, 10, 3, 0x2000, 8192);
	ev(t, "app", 100, 100, 10, "tracing_mark_write: E|100");
	ev(t, "app", 100, 100, 5000, "tracing_mark_write: B|100|b");
	ev_pread(t, "app", 100, 100, 5000, 5010, 3, 0x2000, 0x100000);
	ev(t, "app", 100, 100, 5010, "tracing_mark_write: E|100");
	tf_close(t);
}

static void test_ftrace_replay_trace_cmd_syscall_form(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	/* trace-cmd report of syscalls:sys_enter_X / sys_exit_X, no TGID column */
	fprintf(t.f, "  sqlite-77 [001] .... 100.000001: sys_enter_openat: dfd: 0xffffff9c, "
		"filename: 0x7f001000, flags: 0x00000002, mode: 0x00000000\n");
	fprintf(t.f, "  sqlite-77 [001] .... 100.000002: sys_exit_openat: 0x5\n");
	fprintf(t.f, "  sqlite-77 [001] .... 100.000010: sys_enter_pread64: fd: 0x00000005, "
		"buf: 0x7f002000, count: 0x00001000, pos: 0x00002000\n");
	fprintf(t.f, "  sqlite-77 [001] .... 100.000020: sys_exit_pread64: 0x1000\n");
	fprintf(t.f, "  sqlite-77 [001] .... 100.000030: sys_enter_pwrite64: fd: 0x00000005, "
		"buf: 0x7f002000, count: 0x00000200, pos: 0x00002000\n");
	fprintf(t.f, "  sqlite-77 [001] .... 100.000040: sys_exit_pwrite64: 0x200\n");
	fprintf(t.f, "  sqlite-77 [001] .... 100.000050: sys_enter_fdatasync: fd: 0x00000005\n");
	fprintf(t.f, "  sqlite-77 [001] .... 100.000060: sys_exit_fdatasync: 0x0\n");
	fprintf(t.f, "  sqlite-77 [001] .... 100.000070: sys_enter_close: fd: 0x00000005\n");
	fprintf(t.f, "  sqlite-77 [001] .... 100.000080: sys_exit_close: 0x0\n");
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, NULL);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_READ)->bytes, 4096);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_WRITE)->bytes, 512);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_FSYNC)->count, 1);
	/* the 512-byte write lands in the page the pread brought in: one device read,
	 * then the fdatasync's write */
	assert_int_equal(r.s->device->reads, 1);
	assert_true(r.s->device->writes >= 1);
	assert_int_equal(stat_int(&r, "ops", "open"), 1);
	assert_int_equal(stat_int(&r, "ops", "close"), 1);
	assert_int_equal(stat_int(&r, NULL, "skipped_total"), 0);
	json_t *per = json_object_get(r.stats, "per_thread");
	assert_string_equal(json_string_value(json_object_get(json_array_get(per, 0), "comm")), "sqlite");
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_closed_waits_for_completion_plus_gap(void **state)
{
	(void)state;
	struct tf t;
	write_two_reads(&t);
	struct run r;
	run_ok(&r, t.path, NULL, "  unopened_fds: file\n");
	const struct sim_region *a = region(&r, "a"), *b = region(&r, "b");
	assert_int_equal(a->start_ns, 0);
	assert_true(a->duration_ns >= 1000 * US); /* the simulated read, not the recorded 10 us */
	/* B follows A's simulated completion by the recorded gap of 4990 us */
	assert_int_equal(b->start_ns, a->start_ns + a->duration_ns + 4990 * US);
	assert_true(b->duration_ns >= 1000 * US);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_READ)->count, 2);
	assert_int_equal(stat_int(&r, "ops", "sleep"), 1);
	assert_int_equal(stat_int(&r, NULL, "fds_opened_before_trace"), 1);
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_open_issues_at_recorded_time(void **state)
{
	(void)state;
	struct tf t;
	write_two_reads(&t);
	struct run r;
	/* what --set replay=open sets */
	run_ok(&r, t.path, "replay: open\n", "  unopened_fds: file\n");
	assert_string_equal(r.s->replay, "open");
	const struct sim_region *a = region(&r, "a"), *b = region(&r, "b");
	assert_true(a->start_ns + a->duration_ns < 5000 * US);
	assert_int_equal(b->start_ns, 5000 * US); /* the recorded time, not completion + gap */
	assert_int_equal(stat_int(&r, "ops", "sleep"), 0);
	json_t *w = json_object_get(r.stats, "replay");
	assert_string_equal(json_string_value(w), "open");
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_open_serialises_a_thread(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	/* B is recorded 100 us after A, but A takes 1000 us in the simulation */
	ev_open(&t, "app", 100, 100, 0, 0, 3);
	ev(&t, "app", 100, 100, 0, "tracing_mark_write: B|100|a");
	ev_read(&t, "app", 100, 100, 0, 10, 3, 0x1000, 4096);
	ev(&t, "app", 100, 100, 10, "tracing_mark_write: E|100");
	ev(&t, "app", 100, 100, 100, "tracing_mark_write: B|100|b");
	ev_pread(&t, "app", 100, 100, 100, 110, 3, 0x1000, 0x200000);
	ev(&t, "app", 100, 100, 110, "tracing_mark_write: E|100");
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, "replay: open\n", NULL);
	const struct sim_region *a = region(&r, "a"), *b = region(&r, "b");
	assert_int_equal(b->start_ns, a->start_ns + a->duration_ns);
	assert_true(b->start_ns > 100 * US);
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_markers_become_regions(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	ev(&t, "ActivityThread", 300, 300, 0, "tracing_mark_write: B|300|launch");
	ev(&t, "ActivityThread", 300, 300, 100, "tracing_mark_write: B|300|inflate");
	ev(&t, "ActivityThread", 300, 300, 400, "tracing_mark_write: E|300");
	ev(&t, "ActivityThread", 300, 300, 1000, "tracing_mark_write: E|300");
	ev(&t, "ActivityThread", 300, 300, 1100, "tracing_mark_write: E|300"); /* no begin */
	ev(&t, "ActivityThread", 300, 300, 1200, "tracing_mark_write: C|300|counter|5");
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, NULL);
	assert_int_equal(r.s->metrics.nregions, 2);
	const struct sim_region *l = region(&r, "launch"), *in = region(&r, "inflate");
	assert_string_equal(l->task, "ActivityThread");
	assert_int_equal(l->start_ns, 0);
	assert_int_equal(l->duration_ns, 1000 * US); /* think time only: as recorded */
	assert_int_equal(in->start_ns, 100 * US);
	assert_int_equal(in->duration_ns, 300 * US);
	assert_int_equal(stat_int(&r, NULL, "regions_begun"), 2);
	/* as recorded, in the order they closed */
	json_t *rr = json_object_get(r.stats, "recorded_regions");
	assert_int_equal(json_array_size(rr), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(rr, 0), "name")), "inflate");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rr, 1), "duration_ns")),
			 1000 * US);
	assert_int_equal(stat_int(&r, "skipped", "end_marker_without_begin"), 1);
	assert_int_equal(stat_int(&r, "skipped", "counter_or_async_markers"), 1);
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_fsync_becomes_fsync_op(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	ev_open(&t, "sqlite", 400, 400, 0, 5, 7);
	ev(&t, "sqlite", 400, 400, 10, "sys_enter: NR 64 (7, 7ffd3000, 1000, 0, 0, 0)");
	ev(&t, "sqlite", 400, 400, 15, "sys_exit: NR 64 = 4096");
	ev(&t, "sqlite", 400, 400, 20, "sys_enter: NR 82 (7, 0, 0, 0, 0, 0)");
	ev(&t, "sqlite", 400, 400, 900, "sys_exit: NR 82 = 0");
	ev(&t, "sqlite", 400, 400, 1000, "sys_enter: NR 83 (7, 0, 0, 0, 0, 0)");
	ev(&t, "sqlite", 400, 400, 1001, "sys_exit: NR 83 = 0");
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, NULL);
	const struct sim_opstat *w = op(&r, SIM_CLASS_FG, SIM_OP_WRITE);
	const struct sim_opstat *fs = op(&r, SIM_CLASS_FG, SIM_OP_FSYNC);
	assert_int_equal(w->count, 1);
	assert_int_equal(w->bytes, 4096);
	assert_true(w->lat.max < 1000 * US); /* buffered: no device wait */
	assert_int_equal(fs->count, 2);       /* fsync and fdatasync */
	assert_true(fs->lat.max >= 1000 * US); /* the first writes the dirty page back */
	assert_int_equal(stat_int(&r, "ops", "fsync"), 1);
	assert_int_equal(stat_int(&r, "ops", "fdatasync"), 1);
	assert_true(r.s->device->requests >= 1);
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_odsync_open_makes_sync_writes(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	/* openat(..., O_WRONLY|O_DSYNC) = 7, then a 4 KiB write */
	ev(&t, "sqlite", 400, 400, 0, "sys_enter: NR 56 (ffffff9c, 7ffd1000, 1001, 0, 0, 0)");
	ev(&t, "sqlite", 400, 400, 5, "sys_exit: NR 56 = 7");
	ev(&t, "sqlite", 400, 400, 10, "sys_enter: NR 64 (7, 7ffd3000, 1000, 0, 0, 0)");
	ev(&t, "sqlite", 400, 400, 15, "sys_exit: NR 64 = 4096");
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, NULL);
	const struct sim_opstat *w = op(&r, SIM_CLASS_FG, SIM_OP_WRITE);
	assert_int_equal(w->count, 1);
	assert_true(w->lat.min >= 1000 * US); /* waits for its own writeback */
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_mmap_pagecache_adds_become_one_fault(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	ev_open(&t, "app", 100, 100, 0, 5, 4);
	/* mmap(NULL, 64 KiB, PROT_READ, MAP_PRIVATE, 4, 0) */
	ev(&t, "app", 100, 100, 10, "sys_enter: NR 222 (0, 10000, 1, 2, 4, 0)");
	ev(&t, "app", 100, 100, 12, "sys_exit: NR 222 = 548000000");
	/* a fault's read-around: three consecutive pages at once */
	for (int i = 0; i < 3; i++)
		ev(&t, "app", 100, 100, 100 + i,
		   "mm_filemap_add_to_page_cache: dev 253:0 ino 1a2b page=ffffea0001234567 pfn=74565 ofs=%d",
		   i * 4096);
	/* a read whose own page-cache add is part of the read, not a fault */
	ev_open(&t, "app", 100, 100, 200, 201, 5);
	ev(&t, "app", 100, 100, 210, "sys_enter: NR 63 (5, 7ffd2000, 1000, 0, 0, 0)");
	ev(&t, "app", 100, 100, 211,
	   "mm_filemap_add_to_page_cache: dev 253:0 ino 77 page=ffffea0001234568 pfn=74566 ofs=0");
	ev(&t, "app", 100, 100, 220, "sys_exit: NR 63 = 4096");
	/* another process never mapped a file: its adds are not faults */
	ev(&t, "kworker/u16:1", 50, 50, 300,
	   "mm_filemap_add_to_page_cache: dev 253:0 ino 99 page=ffffea0001234569 pfn=74567 ofs=0");
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, NULL);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_FAULT)->count, 1);
	assert_true(op(&r, SIM_CLASS_FG, SIM_OP_FAULT)->lat.min >= 1000 * US);
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_READ)->count, 1);
	assert_int_equal(stat_int(&r, NULL, "fault_pages_coalesced"), 2);
	assert_int_equal(stat_int(&r, "skipped", "pagecache_add_inside_a_syscall"), 1);
	assert_int_equal(stat_int(&r, "skipped", "pagecache_add_without_file_mmap"), 1);
	assert_int_equal(stat_int(&r, "skipped", "mmap_noted_for_faults"), 1);
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_sched_switch_splits_gap_into_cpu_and_sleep(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	ev_open(&t, "app", 100, 100, 0, 10, 3);
	/* on the CPU from 10 us until 210 us, then off until the next open */
	fprintf(t.f, "  %16s-%-5d (%5d) [000] d..3. %.6f: sched_switch: prev_comm=app prev_pid=100 "
		"prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n",
		"app", 100, 100, 100.0 + 210 / 1e6);
	fprintf(t.f, "  %16s-%-5d (%5d) [000] d..3. %.6f: sched_switch: prev_comm=swapper/0 prev_pid=0 "
		"prev_prio=120 prev_state=R ==> next_comm=app next_pid=100 next_prio=120\n",
		"<idle>", 0, 0, 100.0 + 900 / 1e6);
	ev(&t, "app", 100, 100, 1000, "tracing_mark_write: B|100|next");
	ev_open(&t, "app", 100, 100, 1000, 1010, 4);
	ev(&t, "app", 100, 100, 1010, "tracing_mark_write: E|100");
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, NULL);
	/* gap 990 us: 200 + 100 us on the CPU, 690 us asleep */
	assert_int_equal(stat_int(&r, "ops", "cpu"), 1);
	assert_int_equal(stat_int(&r, "ops", "sleep"), 1);
	assert_true(json_is_true(json_object_get(r.stats, "sched_switch_seen")));
	/* the opens cost no I/O (cached inodes), the CPU is free: the next op
	 * starts after the first open, 300 us of CPU and 690 us of sleep */
	const struct sim_region *n = region(&r, "next");
	assert_true(n->start_ns >= 990 * US);
	assert_true(n->start_ns < 1050 * US);
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_vfs_kprobes_regular_files_only(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	/* the SliceDroid form: kprobes on vfs_read / vfs_write */
	ev(&t, "cleaned_trace_s", 8577, 8577, 0,
	   "read_probe: (vfs_read+0x0/0x488) file=0xffffff817ec292c0 buf=0xb400007439e334b8 "
	   "count=0x1000 inode=57626 k__dev=0 s_dev_inode=266338357 i_mode=33206 kuid=2000 "
	   "kgid=2000 pathname=\"events_to_enable.txt\"");
	ev(&t, "cleaned_trace_s", 8577, 8577, 50,
	   "read_probe: (vfs_read+0x0/0x488) file=0xffffff817ec292c0 buf=0xb400007439e334b8 "
	   "count=0x1000 inode=57626 k__dev=0 s_dev_inode=266338357 i_mode=33206 kuid=2000 "
	   "kgid=2000 pathname=\"events_to_enable.txt\"");
	ev(&t, "cleaned_trace_s", 8577, 8577, 100,
	   "write_probe: (vfs_write+0x0/0x40c) file=0xffffff805d2cfcc0 buf=0xb400007369e37828 "
	   "count=0x7f inode=17610550 k__dev=0 s_dev_inode=7 i_mode=49663 uid_inode=2000 "
	   "uid_writer=2000 gid_writer=1441862 pathname=\"UNIX-STREAM\"");
	ev(&t, "cleaned_trace_s", 8577, 8577, 150,
	   "write_probe: (vfs_write+0x0/0x40c) file=0xffffff817ec29b80 buf=0xb400007439e334b8 "
	   "count=0x2 inode=17635300 k__dev=0 s_dev_inode=11 i_mode=33188 uid_inode=0 "
	   "uid_writer=2000 gid_writer=0 pathname=\"enable\"");
	ev(&t, "cleaned_trace_s", 8577, 8577, 200,
	   "__arm64_sys_mprotect: (__arm64_sys_mprotect+0x0/0x34) start=0xffffffc06a363eb0 len=0xe2 "
	   "prot=0xffffffe3708d67b8");
	tf_close(&t);
	struct run r;
	/* the uid comes from uid_writer=, so fg_uid selects the thread */
	run_ok(&r, t.path, NULL, "  fg_uid: 2000\n");
	const struct sim_opstat *rd = op(&r, SIM_CLASS_BG, SIM_OP_READ);
	const struct sim_opstat *fgrd = op(&r, SIM_CLASS_FG, SIM_OP_READ);
	/* the task was created at its first read, before any uid was seen */
	assert_int_equal(rd->count + fgrd->count, 2);
	assert_int_equal(rd->bytes + fgrd->bytes, 8192);
	/* sequential: the second read continues the first, in the page cache */
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_WRITE)->count + op(&r, SIM_CLASS_BG, SIM_OP_WRITE)->count, 1);
	assert_int_equal(stat_int(&r, "skipped", "vfs_kprobe_not_a_regular_file"), 1);
	assert_int_equal(stat_int(&r, "vfs_kprobes", "read_probe"), 2);
	assert_int_equal(stat_int(&r, "vfs_kprobes", "write_probe"), 2);
	assert_int_equal(stat_int(&r, "unknown_events", "__arm64_sys_mprotect"), 1);
	assert_int_equal(stat_int(&r, "unknown_events", "read_probe"), 0);
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_fg_comm_matches_process_name(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	/* the app's main thread names the process; RenderThread belongs to it */
	ev_open(&t, "com.example.app", 300, 300, 0, 5, 3);
	ev_open(&t, "RenderThread", 301, 300, 10, 15, 4);
	ev_read(&t, "RenderThread", 301, 300, 20, 30, 4, 0x1000, 4096);
	ev_open(&t, "RenderThread", 401, 400, 40, 45, 3); /* same comm, other process */
	ev_read(&t, "RenderThread", 401, 400, 50, 60, 3, 0x1000, 4096);
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, "  fg_comm: \"com.example.*\"\n");
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_READ)->count, 1);
	assert_int_equal(op(&r, SIM_CLASS_BG, SIM_OP_READ)->count, 1);
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_fg_uid_from_kprobe_writer(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	/* a write first: its uid_writer= names the process's uid */
	ev(&t, "shell", 900, 900, 0,
	   "write_probe: (vfs_write+0x0/0x40c) file=0xffffff817ec29b80 buf=0x1 count=0x1000 "
	   "inode=5 k__dev=0 s_dev_inode=266338357 i_mode=33188 uid_inode=0 uid_writer=2000 "
	   "gid_writer=0 pathname=\"x\"");
	ev(&t, "other", 901, 901, 10,
	   "write_probe: (vfs_write+0x0/0x40c) file=0xffffff817ec29b81 buf=0x1 count=0x1000 "
	   "inode=6 k__dev=0 s_dev_inode=266338357 i_mode=33188 uid_inode=0 uid_writer=1000 "
	   "gid_writer=0 pathname=\"y\"");
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, "  fg_uid: [2000]\n");
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_WRITE)->count, 1);
	assert_int_equal(op(&r, SIM_CLASS_BG, SIM_OP_WRITE)->count, 1);
	json_t *per = json_object_get(r.stats, "per_thread");
	assert_int_equal(json_array_size(per), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(per, 1), "uid")), 1000);
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_unknown_events_counted(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	ev(&t, "app", 100, 100, 0, "foo_event: bar=1");
	ev(&t, "app", 100, 100, 1, "foo_event: bar=2");
	ev(&t, "app", 100, 100, 2, "binder_transaction: transaction=1 dest_node=2");
	ev(&t, "app", 100, 100, 3, "block_rq_issue: 8,0 R 4096 () 100 + 8 [app]");
	ev(&t, "app", 100, 100, 4, "writeback_dirty_page: bdi 8:0: ino=5 index=0");
	ev(&t, "app", 100, 100, 5, "sys_enter: NR 172 (0, 0, 0, 0, 0, 0)"); /* getpid */
	ev(&t, "app", 100, 100, 6, "sys_exit: NR 172 = 100");
	ev(&t, "app", 100, 100, 7, "sys_exit: NR 63 = 5"); /* no enter */
	ev(&t, "app", 100, 100, 8, "sys_enter: NR 63 (9, 0, 10, 0, 0, 0)");
	ev(&t, "app", 100, 100, 9, "sys_exit: NR 63 = 10"); /* fd 9 never opened */
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, NULL);
	assert_int_equal(stat_int(&r, "unknown_events", "foo_event"), 2);
	assert_int_equal(stat_int(&r, "unknown_events", "binder_transaction"), 1);
	assert_int_equal(stat_int(&r, NULL, "unknown_total"), 3);
	assert_int_equal(stat_int(&r, "skipped", "block_events_simulated_by_the_model"), 1);
	assert_int_equal(stat_int(&r, "skipped", "writeback_events_simulated_by_the_model"), 1);
	assert_int_equal(stat_int(&r, "skipped", "syscall_not_file_io"), 1);
	assert_int_equal(stat_int(&r, "skipped", "syscall_enter_exit_unpaired"), 1);
	assert_int_equal(stat_int(&r, "skipped", "io_on_fd_not_opened_in_trace"), 1);
	assert_int_equal(stat_int(&r, NULL, "ops_total"), 0);
	run_free(&r);
	unlink(t.path);
}

static void test_ftrace_replay_broken_line_is_file_line_error(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t); /* lines 1-2: comments */
	ev_open(&t, "app", 100, 100, 0, 5, 3); /* lines 3-4 */
	fprintf(t.f, "this is not an ftrace line\n"); /* line 5 */
	tf_close(&t);
	struct run r;
	struct sim_error err = { 0 };
	int rc = run_ftrace(&r, t.path, NULL, NULL, &err);
	assert_int_equal(rc, SIM_E_INPUT);
	char want[128];
	snprintf(want, sizeof(want), "%s:5:", t.path);
	assert_non_null(strstr(err.msg, want));
	run_free(&r);

	/* and through the program: exit status 2, the message on stderr */
	const char *bin = getenv("MOBISIM_BIN");
	if (bin && *bin) {
		char ypath[64];
		snprintf(ypath, sizeof(ypath), "/tmp/mobisim-ftreplay-y-XXXXXX");
		int fd = mkstemp(ypath);
		assert_true(fd >= 0);
		char yaml[4096];
		scenario_yaml(yaml, sizeof(yaml), t.path, NULL, NULL);
		assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
		close(fd);
		char cmd[512];
		snprintf(cmd, sizeof(cmd), "'%s' run '%s' --quiet 2>&1", bin, ypath);
		FILE *p = popen(cmd, "r");
		assert_non_null(p);
		char out[4096] = { 0 };
		size_t n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = 0;
		int st = pclose(p);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 2);
		assert_non_null(strstr(out, want));
		unlink(ypath);
	}
	unlink(t.path);
}

static void test_ftrace_replay_window_bounds_read_ahead(void **state)
{
	(void)state;
	struct tf t;
	tf_open(&t);
	ev_open(&t, "a", 100, 100, 0, 1, 3);
	ev_open(&t, "b", 200, 200, 0, 1, 3);
	/* 3000 reads each, recorded 1 us apart: the simulation lags far behind */
	for (int i = 0; i < 3000; i++) {
		ev_pread(&t, "a", 100, 100, 10 + 3 * i, 11 + 3 * i, 3, 4096, (unsigned long long)i << 20);
		ev_pread(&t, "b", 200, 200, 11 + 3 * i, 12 + 3 * i, 3, 4096, (unsigned long long)i << 20);
	}
	tf_close(&t);
	struct run r;
	run_ok(&r, t.path, NULL, "  window_ops: 64\n  file_bytes: 4GiB\n");
	assert_int_equal(op(&r, SIM_CLASS_FG, SIM_OP_READ)->count, 6000);
	assert_true(stat_int(&r, NULL, "peak_read_ahead_ops") <= 64 + 4);
	run_free(&r);
	unlink(t.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftrace_replay_read_syscall_is_pagecache_read_in_class),
		cmocka_unit_test(test_ftrace_replay_trace_cmd_syscall_form),
		cmocka_unit_test(test_ftrace_replay_closed_waits_for_completion_plus_gap),
		cmocka_unit_test(test_ftrace_replay_open_issues_at_recorded_time),
		cmocka_unit_test(test_ftrace_replay_open_serialises_a_thread),
		cmocka_unit_test(test_ftrace_replay_markers_become_regions),
		cmocka_unit_test(test_ftrace_replay_fsync_becomes_fsync_op),
		cmocka_unit_test(test_ftrace_replay_odsync_open_makes_sync_writes),
		cmocka_unit_test(test_ftrace_replay_mmap_pagecache_adds_become_one_fault),
		cmocka_unit_test(test_ftrace_replay_sched_switch_splits_gap_into_cpu_and_sleep),
		cmocka_unit_test(test_ftrace_replay_vfs_kprobes_regular_files_only),
		cmocka_unit_test(test_ftrace_replay_fg_comm_matches_process_name),
		cmocka_unit_test(test_ftrace_replay_fg_uid_from_kprobe_writer),
		cmocka_unit_test(test_ftrace_replay_unknown_events_counted),
		cmocka_unit_test(test_ftrace_replay_broken_line_is_file_line_error),
		cmocka_unit_test(test_ftrace_replay_window_bounds_read_ahead),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
