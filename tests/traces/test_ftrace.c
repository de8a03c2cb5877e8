/* Tests for traces/ftrace.c: every line layout the kernel and trace-cmd
 * print (with and without the TGID column, with 4- or 5-character flags
 * or none, comm with spaces and dashes), each decoded event with real
 * example lines, markers, comments and lost-event lines, errors naming
 * file:line:col, streaming over CRLF and a missing final newline, the
 * trace.h adapter, and the shared Android sample.
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

#include "models/block/request.h"
#include "traces/ftrace.h"
#include "traces/trace.h"

struct fx {
	struct ftrace_reader *r;
	struct ftrace_rec rec;
	struct sim_error err;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	assert_int_equal(ftrace_open_mem("", 0, "t.trace", &f->r, &f->err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	ftrace_close(f->r);
	free(f);
	return 0;
}

static int parse(struct fx *f, const char *line)
{
	memset(&f->rec, 0xa5, sizeof(f->rec));
	sim_error_clear(&f->err);
	return ftrace_parse_line(f->r, line, strlen(line), &f->rec, &f->err);
}

/* ---------------------------------------------------------------- layouts */

static void test_ftrace_layout_tgid_five_flags(void **state)
{
	struct fx *f = *state;
	/* Android, record-tgid, 5 flag characters (from the shared sample) */
	assert_int_equal(parse(f, "            kfps-684     (    684) [000] ..... 2900937.099263: "
				  "tracing_mark_write: C|24441|bypass_sf|1|0x5f3300000114"), 1);
	assert_int_equal(f->rec.type, FTRACE_MARK_COUNTER);
	assert_string_equal(f->rec.comm, "kfps");
	assert_int_equal(f->rec.pid, 684);
	assert_int_equal(f->rec.tgid, 684);
	assert_int_equal(f->rec.cpu, 0);
	assert_int_equal(f->rec.time_ns, 2900937099263000LL);
	assert_int_equal(f->rec.u.mark.pid, 24441);
	assert_string_equal(f->rec.u.mark.name, "bypass_sf");
	assert_int_equal(f->rec.u.mark.value, 1);
}

static void test_ftrace_layout_comm_with_spaces_and_dashes(void **state)
{
	struct fx *f = *state;
	assert_int_equal(parse(f, " shell svc 8572-8573    (   1088) [007] d..1. 2900937.482656: "
				  "block_bio_queue: 254,40 R 2048 + 8 [shell svc 8572]"), 1);
	assert_string_equal(f->rec.comm, "shell svc 8572");
	assert_int_equal(f->rec.pid, 8573);
	assert_int_equal(f->rec.tgid, 1088);
	assert_int_equal(f->rec.cpu, 7);
	assert_string_equal(f->rec.u.blk.comm, "shell svc 8572");

	assert_int_equal(parse(f, "      st-fitting-2806    (   2800) [004] ..... 2900937.965847: "
				  "tracing_mark_write: C|2800|board|30511"), 1);
	assert_string_equal(f->rec.comm, "st-fitting");
	assert_int_equal(f->rec.pid, 2806);
	assert_int_equal(f->rec.tgid, 2800);

	assert_int_equal(parse(f, "  Binder:1234_2-5678  (-------) [001] ...1   100.000001: "
				  "block_bio_queue: 179,0 R 2048 + 32 [Binder:1234_2]"), 1);
	assert_string_equal(f->rec.comm, "Binder:1234_2");
	assert_int_equal(f->rec.pid, 5678);
	assert_int_equal(f->rec.tgid, -1); /* unknown tgid */

	assert_int_equal(parse(f, "           <...>-31310   (  31310) [000] ..... 2900938.101648: "
				  "tracing_mark_write: E|31310"), 1);
	assert_string_equal(f->rec.comm, "<...>");
}

static void test_ftrace_layout_four_flags_no_tgid(void **state)
{
	struct fx *f = *state;
	/* trace_pipe of a 3.10-4.x kernel */
	assert_int_equal(parse(f, "     kworker/0:1-123   [000] d..3  6253.302900: block_rq_issue: "
				  "8,0 WS 0 () 1234567 + 8 [kworker/0:1]"), 1);
	assert_int_equal(f->rec.type, FTRACE_BLOCK_RQ_ISSUE);
	assert_string_equal(f->rec.comm, "kworker/0:1");
	assert_int_equal(f->rec.pid, 123);
	assert_int_equal(f->rec.tgid, -1);
	assert_int_equal(f->rec.time_ns, 6253302900000LL);
	assert_int_equal(f->rec.u.blk.major, 8);
	assert_int_equal(f->rec.u.blk.minor, 0);
	assert_string_equal(f->rec.u.blk.rwbs, "WS");
	assert_int_equal(f->rec.u.blk.flags, REQ_WRITE | REQ_SYNC);
	assert_int_equal(f->rec.u.blk.sector, 1234567);
	assert_int_equal(f->rec.u.blk.nr_sectors, 8);
	assert_int_equal(f->rec.u.blk.bytes, 0);
}

static void test_ftrace_layout_no_flags(void **state)
{
	struct fx *f = *state;
	/* trace-cmd report default and kernels without irq-info */
	assert_int_equal(parse(f, "          <idle>-0     [000]  6253.302811: sched_switch: "
				  "prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> "
				  "next_comm=kworker/0:1 next_pid=123 next_prio=120"), 1);
	assert_int_equal(f->rec.type, FTRACE_SCHED_SWITCH);
	assert_string_equal(f->rec.comm, "<idle>");
	assert_int_equal(f->rec.pid, 0);
	assert_string_equal(f->rec.u.sw.prev_comm, "swapper/0");
	assert_int_equal(f->rec.u.sw.prev_pid, 0);
	assert_string_equal(f->rec.u.sw.prev_state, "R");
	assert_string_equal(f->rec.u.sw.next_comm, "kworker/0:1");
	assert_int_equal(f->rec.u.sw.next_pid, 123);
	assert_int_equal(f->rec.u.sw.next_prio, 120);
}

static void test_ftrace_layout_timestamp_precision(void **state)
{
	struct fx *f = *state;
	assert_int_equal(parse(f, "  a-1 [000] ....    12.123456789: block_plug: [a]"), 1);
	assert_int_equal(f->rec.time_ns, 12123456789LL);
	assert_int_equal(parse(f, "  a-1 [000] ....    12.5: block_plug: [a]"), 1);
	assert_int_equal(f->rec.time_ns, 12500000000LL);
}

/* ---------------------------------------------------------------- events */

static void test_ftrace_block_events(void **state)
{
	struct fx *f = *state;
	assert_int_equal(parse(f, "  Chrome_ChildIOT-123   [003] d..2    77.123456: block_rq_insert: "
				  "254,0 R 0 () 4096 + 256 [Chrome_ChildIOT]"), 1);
	assert_int_equal(f->rec.type, FTRACE_BLOCK_RQ_INSERT);
	assert_string_equal(f->rec.comm, "Chrome_ChildIOT");
	assert_int_equal(f->rec.u.blk.sector, 4096);
	assert_int_equal(f->rec.u.blk.nr_sectors, 256);
	assert_string_equal(f->rec.u.blk.comm, "Chrome_ChildIOT");

	assert_int_equal(parse(f, "          <idle>-0     [002] d.h3  6253.303100: block_rq_complete: "
				  "8,0 WS () 1234567 + 8 [0]"), 1);
	assert_int_equal(f->rec.type, FTRACE_BLOCK_RQ_COMPLETE);
	assert_int_equal(f->rec.u.blk.sector, 1234567);
	assert_int_equal(f->rec.u.blk.error, 0);
	assert_int_equal(parse(f, "          <idle>-0     [002] d.h3  6253.303100: block_rq_complete: "
				  "8,0 R () 100 + 8 [-5]"), 1);
	assert_int_equal(f->rec.u.blk.error, -5);

	/* 6.x: ioprio token before the bracket, bytes of the request */
	assert_int_equal(parse(f, "  fio-4242    [001] ..... 1000.000001: block_rq_issue: "
				  "259,0 RA 4096 () 2048 + 8 none,0,0 [fio]"), 1);
	assert_int_equal(f->rec.u.blk.bytes, 4096);
	assert_int_equal(f->rec.u.blk.sector, 2048);
	assert_int_equal(f->rec.u.blk.flags, REQ_RAHEAD);
	assert_string_equal(f->rec.u.blk.comm, "fio");

	assert_int_equal(parse(f, "  jbd2/sda1-8-301 [000] ...1  10.000002: block_bio_queue: "
				  "8,1 FWFS 5000 + 16 [jbd2/sda1-8]"), 1);
	assert_int_equal(f->rec.type, FTRACE_BLOCK_BIO_QUEUE);
	assert_string_equal(f->rec.comm, "jbd2/sda1-8");
	assert_int_equal(f->rec.pid, 301);
	assert_int_equal(f->rec.u.blk.flags, REQ_FLUSH | REQ_WRITE | REQ_FUA | REQ_SYNC);

	assert_int_equal(parse(f, "  dd-999 [000] ...1  10.500000: block_bio_complete: 8,0 W 64 + 8 [0]"), 1);
	assert_int_equal(f->rec.type, FTRACE_BLOCK_BIO_COMPLETE);

	assert_int_equal(parse(f, "  dd-999 [000] ...1  10.500001: block_plug: [dd]"), 1);
	assert_int_equal(f->rec.type, FTRACE_BLOCK_PLUG);
	assert_string_equal(f->rec.u.blk.comm, "dd");
	assert_int_equal(parse(f, "  dd-999 [000] ...1  10.600000: block_unplug: [dd] 3"), 1);
	assert_int_equal(f->rec.type, FTRACE_BLOCK_UNPLUG);
	assert_int_equal(f->rec.u.blk.nr_rq, 3);
}

static void test_ftrace_pagecache_events(void **state)
{
	struct fx *f = *state;
	/* 3.10-4.x: page= and decimal pfn */
	assert_int_equal(parse(f, "  cat-321   [001] ....   200.000100: mm_filemap_add_to_page_cache: "
				  "dev 253:0 ino 1a2b page=ffffea0001234567 pfn=74565 ofs=8192"), 1);
	assert_int_equal(f->rec.type, FTRACE_PAGECACHE_ADD);
	assert_int_equal(f->rec.u.pc.major, 253);
	assert_int_equal(f->rec.u.pc.ino, 0x1a2b);
	assert_int_equal(f->rec.u.pc.pfn, 74565);
	assert_int_equal(f->rec.u.pc.index, 2);
	/* newer: pfn=0x.. and order= */
	assert_int_equal(parse(f, "  cat-321   [001] .....   200.000200: mm_filemap_delete_from_page_cache: "
				  "dev 8:1 ino 2c pfn=0x12345 ofs=4096 order=0"), 1);
	assert_int_equal(f->rec.type, FTRACE_PAGECACHE_DELETE);
	assert_int_equal(f->rec.u.pc.pfn, 0x12345);
	assert_int_equal(f->rec.u.pc.index, 1);
}

static void test_ftrace_writeback_events(void **state)
{
	struct fx *f = *state;
	assert_int_equal(parse(f, "  kworker/u16:2-77  [002] ....   300.000001: writeback_dirty_page: "
				  "bdi 8:0: ino=12 index=5"), 1);
	assert_int_equal(f->rec.type, FTRACE_WRITEBACK);
	assert_string_equal(f->rec.u.wb.name, "dirty_page");
	assert_string_equal(f->rec.u.wb.bdi, "8");
	assert_int_equal(f->rec.u.wb.ino, 12);
	assert_int_equal(f->rec.u.wb.index, 5);
	assert_int_equal(f->rec.u.wb.nr_pages, -1);
	assert_int_equal(parse(f, "  kworker/u16:2-77  [002] ....   300.000002: writeback_written: "
				  "bdi 179:0: sb_dev 0:0 nr_pages=1024 sync_mode=0 kupdate=1 "
				  "range_cyclic=1 background=0 reason=periodic"), 1);
	assert_string_equal(f->rec.u.wb.name, "written");
	assert_int_equal(f->rec.u.wb.nr_pages, 1024);
	assert_string_equal(f->rec.u.wb.reason, "periodic");
	assert_int_equal(parse(f, "  kworker/u16:2-77  [002] ....   300.000003: writeback_start: "
				  "bdi 179:0: sb_dev 0:0 nr_pages=9223372036854775807 sync_mode=0 "
				  "kupdate=0 range_cyclic=1 background=1 reason=background"), 1);
	assert_string_equal(f->rec.u.wb.name, "start");
	assert_string_equal(f->rec.u.wb.reason, "background");
}

static void test_ftrace_sched_events(void **state)
{
	struct fx *f = *state;
	/* comm with a space in sched_switch */
	assert_int_equal(parse(f, "  Thread-3-400 [001] d..3 50.000001: sched_switch: prev_comm=shell svc 1 "
				  "prev_pid=400 prev_prio=120 prev_state=D|K ==> next_comm=swapper/1 "
				  "next_pid=0 next_prio=120"), 1);
	assert_string_equal(f->rec.u.sw.prev_comm, "shell svc 1");
	assert_string_equal(f->rec.u.sw.prev_state, "D|K");
	/* trace-cmd's sched plugin form */
	assert_int_equal(parse(f, "  bash-1234  [001]  50.000002: sched_switch: bash:1234 [120] S ==> "
				  "swapper/1:0 [120]"), 1);
	assert_string_equal(f->rec.u.sw.prev_comm, "bash");
	assert_int_equal(f->rec.u.sw.prev_pid, 1234);
	assert_string_equal(f->rec.u.sw.prev_state, "S");
	assert_string_equal(f->rec.u.sw.next_comm, "swapper/1");
	assert_int_equal(f->rec.u.sw.next_pid, 0);

	assert_int_equal(parse(f, "  <idle>-0 [001] d.h4 50.000003: sched_wakeup: comm=kworker/1:0 "
				  "pid=55 prio=120 target_cpu=001"), 1);
	assert_int_equal(f->rec.type, FTRACE_SCHED_WAKEUP);
	assert_string_equal(f->rec.u.wake.comm, "kworker/1:0");
	assert_int_equal(f->rec.u.wake.pid, 55);
	assert_int_equal(f->rec.u.wake.target_cpu, 1);
	/* 3.10 has success= before target_cpu */
	assert_int_equal(parse(f, "  <idle>-0 [001] d.h4 50.000004: sched_wakeup: comm=RenderThread "
				  "pid=77 prio=112 success=1 target_cpu=002"), 1);
	assert_int_equal(f->rec.u.wake.prio, 112);
	assert_int_equal(f->rec.u.wake.target_cpu, 2);
	assert_int_equal(parse(f, "  bash-1234  [001]  50.000005: sched_wakeup_new: bash:1240 [120] "
				  "success=1 CPU:002"), 1);
	assert_int_equal(f->rec.u.wake.pid, 1240);
	assert_int_equal(f->rec.u.wake.target_cpu, 2);
}

static void test_ftrace_raw_syscalls_arm64(void **state)
{
	struct fx *f = *state;
	assert_int_equal(parse(f, "  RenderThread-901 (  880) [002] ..... 60.000001: sys_enter: "
				  "NR 63 (3, 7ffc4d1e2000, 1000, 0, 0, 0)"), 1);
	assert_int_equal(f->rec.type, FTRACE_SYS_ENTER);
	assert_int_equal(f->rec.u.sys.nr, 63);
	assert_int_equal(f->rec.u.sys.call, FTRACE_SYS_READ);
	assert_int_equal(f->rec.u.sys.args[0], 3);
	assert_int_equal(f->rec.u.sys.args[1], 0x7ffc4d1e2000ULL);
	assert_int_equal(f->rec.u.sys.args[2], 0x1000);
	assert_int_equal(parse(f, "  RenderThread-901 (  880) [002] ..... 60.000002: sys_exit: NR 63 = 4096"), 1);
	assert_int_equal(f->rec.type, FTRACE_SYS_EXIT);
	assert_int_equal(f->rec.u.sys.ret, 4096);
	assert_int_equal(parse(f, "  a-1 [000] .... 60.1: sys_exit: NR 56 = -2"), 1);
	assert_int_equal(f->rec.u.sys.call, FTRACE_SYS_OPENAT);
	assert_int_equal(f->rec.u.sys.ret, -2);
	/* the table */
	assert_int_equal(ftrace_syscall_from_nr(64), FTRACE_SYS_WRITE);
	assert_int_equal(ftrace_syscall_from_nr(67), FTRACE_SYS_PREAD64);
	assert_int_equal(ftrace_syscall_from_nr(68), FTRACE_SYS_PWRITE64);
	assert_int_equal(ftrace_syscall_from_nr(82), FTRACE_SYS_FSYNC);
	assert_int_equal(ftrace_syscall_from_nr(83), FTRACE_SYS_FDATASYNC);
	assert_int_equal(ftrace_syscall_from_nr(57), FTRACE_SYS_CLOSE);
	assert_int_equal(ftrace_syscall_from_nr(222), FTRACE_SYS_MMAP);
	assert_int_equal(ftrace_syscall_from_nr(226), FTRACE_SYS_OTHER); /* mprotect */
}

static void test_ftrace_named_syscalls(void **state)
{
	struct fx *f = *state;
	/* trace-cmd report form of syscalls:sys_enter_X / sys_exit_X */
	assert_int_equal(parse(f, "  sqlite-77 [001] .... 70.000001: sys_enter_pread64: fd: 0x00000005, "
				  "buf: 0x7f001000, count: 0x00001000, pos: 0x00002000"), 1);
	assert_int_equal(f->rec.type, FTRACE_SYS_ENTER);
	assert_int_equal(f->rec.u.sys.call, FTRACE_SYS_PREAD64);
	assert_int_equal(f->rec.u.sys.nr, 67);
	assert_int_equal(f->rec.u.sys.args[0], 5);
	assert_int_equal(f->rec.u.sys.args[3], 0x2000);
	assert_int_equal(parse(f, "  sqlite-77 [001] .... 70.000002: sys_exit_pread64: 0x1000"), 1);
	assert_int_equal(f->rec.type, FTRACE_SYS_EXIT);
	assert_int_equal(f->rec.u.sys.ret, 0x1000);
	/* the kernel's own print_syscall_enter/exit form */
	assert_int_equal(parse(f, "  sqlite-77 [001] .... 70.000003: sys_fsync(fd: 7)"), 1);
	assert_int_equal(f->rec.type, FTRACE_SYS_ENTER);
	assert_int_equal(f->rec.u.sys.call, FTRACE_SYS_FSYNC);
	assert_int_equal(f->rec.u.sys.args[0], 7);
	assert_int_equal(parse(f, "  sqlite-77 [001] .... 70.000004: sys_fsync -> 0x0"), 1);
	assert_int_equal(f->rec.type, FTRACE_SYS_EXIT);
	assert_int_equal(f->rec.u.sys.ret, 0);
	assert_int_equal(parse(f, "  sqlite-77 [001] .... 70.000005: sys_enter_newfstatat: dfd: 0xffffff9c, "
				  "filename: 0x7f00, statbuf: 0x7f10, flag: 0x0"), 1);
	assert_int_equal(f->rec.u.sys.call, FTRACE_SYS_OTHER);
}

static void test_ftrace_markers_as_regions(void **state)
{
	struct fx *f = *state;
	assert_int_equal(parse(f, "  ActivityThread-1234 ( 1234) [000] ...1 80.000001: tracing_mark_write: "
				  "B|1234|activityStart"), 1);
	assert_int_equal(f->rec.type, FTRACE_MARK_BEGIN);
	assert_int_equal(f->rec.u.mark.pid, 1234);
	assert_string_equal(f->rec.u.mark.name, "activityStart");
	assert_int_equal(parse(f, "  ActivityThread-1234 ( 1234) [000] ...1 80.000002: tracing_mark_write: E|1234"), 1);
	assert_int_equal(f->rec.type, FTRACE_MARK_END);
	assert_int_equal(f->rec.u.mark.pid, 1234);
	/* bare E: the pid is the task's tgid */
	assert_int_equal(parse(f, "  RenderThread-1240 ( 1234) [000] ...1 80.000003: tracing_mark_write: E"), 1);
	assert_int_equal(f->rec.type, FTRACE_MARK_END);
	assert_int_equal(f->rec.u.mark.pid, 1234);
	assert_int_equal(parse(f, "  system_server-600 [003] ...1 80.000004: tracing_mark_write: "
				  "S|600|launching: com.google.android.apps.photos|42"), 1);
	assert_int_equal(f->rec.type, FTRACE_MARK_ASYNC_BEGIN);
	assert_string_equal(f->rec.u.mark.name, "launching: com.google.android.apps.photos");
	assert_int_equal(f->rec.u.mark.value, 42);
	assert_int_equal(parse(f, "  system_server-600 [003] ...1 80.000005: tracing_mark_write: "
				  "F|600|launching: com.google.android.apps.photos|42"), 1);
	assert_int_equal(f->rec.type, FTRACE_MARK_ASYNC_END);
	/* trace-cmd: the print event */
	assert_int_equal(parse(f, "  app-55 [000] 80.000006: print: tracing_mark_write: B|55|bindApplication"), 1);
	assert_int_equal(f->rec.type, FTRACE_MARK_BEGIN);
	assert_string_equal(f->rec.u.mark.name, "bindApplication");
	assert_int_equal(parse(f, "  app-55 [000] 80.000007: print: S|55|launching: com.a|3"), 1);
	assert_int_equal(f->rec.type, FTRACE_MARK_ASYNC_BEGIN);
	assert_string_equal(f->rec.u.mark.name, "launching: com.a");
	assert_int_equal(parse(f, "  app-55 [000] 80.000008: print: ffffffff8113e0b0s: E|55"), 1);
	assert_int_equal(f->rec.type, FTRACE_MARK_END);
	/* free text is not a marker: skipped and counted */
	uint64_t before = ftrace_get_stats(f->r)->skipped;
	assert_int_equal(parse(f, "  app-55 [000] 80.000007: tracing_mark_write: hello world"), 0);
	assert_int_equal(ftrace_get_stats(f->r)->skipped, before + 1);
}

static void test_ftrace_comments_and_lost_events(void **state)
{
	struct fx *f = *state;
	assert_int_equal(parse(f, "# tracer: nop"), 0);
	assert_int_equal(parse(f, "#           TASK-PID   TGID   CPU#  |||||  TIMESTAMP  FUNCTION"), 0);
	assert_int_equal(parse(f, ""), 0);
	assert_int_equal(parse(f, "version = 6"), 0);
	assert_int_equal(parse(f, "CPU 3 is empty"), 0);
	assert_int_equal(parse(f, "cpus=8"), 0);
	assert_int_equal(parse(f, "CPU:2 [LOST 123 EVENTS]"), 0);
	assert_int_equal(parse(f, "CPU:5 [LOST 7 EVENTS]"), 0);
	const struct ftrace_stats *st = ftrace_get_stats(f->r);
	assert_int_equal(st->comments, 6);
	assert_int_equal(st->lost_markers, 2);
	assert_int_equal(st->lost_events, 130);
	assert_int_equal(st->events, 0);
}

static void test_ftrace_unknown_events_counted_by_name(void **state)
{
	struct fx *f = *state;
	assert_int_equal(parse(f, "  a-1 [000] .... 1.0: foo_bar: x=1"), 0);
	assert_int_equal(parse(f, "  a-1 [000] .... 1.1: binder_transaction: transaction=1"), 0);
	assert_int_equal(parse(f, "  a-1 [000] .... 1.2: foo_bar: x=2"), 0);
	/* function tracer output */
	assert_int_equal(parse(f, "  a-1 [000] .... 1.3: do_sys_open <-SyS_openat"), 0);
	const struct ftrace_stats *st = ftrace_get_stats(f->r);
	assert_int_equal(st->skipped, 4);
	assert_int_equal(st->nskip, 3);
	assert_string_equal(st->skip[0].name, "foo_bar");
	assert_int_equal(st->skip[0].count, 2);
	assert_string_equal(st->skip[1].name, "binder_transaction");
	assert_int_equal(st->skip[1].count, 1);
}

static void test_ftrace_junk_is_an_error_with_position(void **state)
{
	struct fx *f = *state;
	assert_int_equal(parse(f, "hello world"), SIM_E_INPUT);
	assert_non_null(strstr(f->err.msg, "t.trace:"));
	assert_non_null(strstr(f->err.msg, "expected an ftrace event line"));
	/* 6 flag characters */
	assert_int_equal(parse(f, "  a-1 [000] d...xx 1.0: block_plug: [a]"), SIM_E_INPUT);
	assert_non_null(strstr(f->err.msg, "flags column"));
	assert_non_null(strstr(f->err.msg, ":13:")); /* column of the flags */
	assert_int_equal(parse(f, "  a-1 [000] .... abc: block_plug: [a]"), SIM_E_INPUT);
	assert_non_null(strstr(f->err.msg, "timestamp"));
	/* a known event with a broken body */
	assert_int_equal(parse(f, "  a-1 [000] .... 1.0: block_rq_issue: garbage"), SIM_E_INPUT);
	assert_non_null(strstr(f->err.msg, "MAJOR,MINOR"));
	assert_int_equal(parse(f, "  a-1 [000] .... 1.0: block_rq_issue: 8,0 W 0 () 12 - 8 [a]"),
			 SIM_E_INPUT);
	assert_int_equal(parse(f, "  a-1 [000] .... 1.0: tracing_mark_write: B|12x|name"), SIM_E_INPUT);
	assert_int_equal(parse(f, "  a-1 [000] .... 1.0: sys_enter: NR 63 (3, zz)"), SIM_E_INPUT);
	assert_int_equal(parse(f, "  a-1 [000] .... 1.0: sched_switch: prev_comm=a ==> b"), SIM_E_INPUT);
}

/* Out-of-range fields are refused with the line, as the DiskSim reader
 * refuses them: a request past 2^64 sectors or larger than 32-bit bytes, a
 * read returning more than MAX_RW_COUNT, a pid above PID_MAX_LIMIT, a NUL. */
static void test_ftrace_out_of_range_fields(void **state)
{
	struct fx *f = *state;
	assert_int_equal(parse(f, "  a-1 [000] .... 1.0: block_rq_issue: 8,0 R 0 () "
				  "18446744073709551608 + 4096 [a]"), SIM_E_INPUT);
	assert_non_null(strstr(f->err.msg, "passes 2^64"));
	assert_int_equal(parse(f, "  a-1 [000] .... 1.0: block_rq_issue: 8,0 R 0 () 0 + 4294967295 [a]"),
			 SIM_E_INPUT);
	assert_non_null(strstr(f->err.msg, "sector count out of range"));
	assert_int_equal(parse(f, "  a-1 [000] .... 1.0: sys_exit: NR 67 = 9223372036854775807"),
			 SIM_E_INPUT);
	assert_non_null(strstr(f->err.msg, "MAX_RW_COUNT"));
	assert_int_equal(parse(f, "  a-1 [000] .... 1.0: sys_exit: NR 67 = 4096"), 1);
	assert_int_equal(parse(f, "  a-99999999 [000] .... 1.0: block_plug: [a]"), SIM_E_INPUT);
	assert_non_null(strstr(f->err.msg, "pid out of range"));
	static const char nul[] = "  a-1 [000] .... 1.0: block_plug: [a\0b]";
	assert_int_equal(ftrace_parse_line(f->r, nul, sizeof(nul) - 1, &f->rec, &f->err), SIM_E_INPUT);
	assert_non_null(strstr(f->err.msg, "NUL byte"));
}

static void test_ftrace_markers_pair_into_regions(void **state)
{
	(void)state;
	static const char text[] =
		"  main-1234 ( 1234) [000] ...1 10.000000: tracing_mark_write: B|1234|activityStart\n"
		"  main-1234 ( 1234) [000] ...1 10.000100: tracing_mark_write: B|1234|inflate\n"
		"  rt-1240   ( 1234) [001] ...1 10.000150: tracing_mark_write: B|1240|draw\n"
		"  main-1234 ( 1234) [000] ...1 10.000300: tracing_mark_write: E|1234\n"
		"  rt-1240   ( 1234) [001] ...1 10.000350: tracing_mark_write: E|1240\n"
		"  main-1234 ( 1234) [000] ...1 10.001000: tracing_mark_write: E|1234\n"
		"  main-1234 ( 1234) [000] ...1 10.001001: tracing_mark_write: E|1234\n"
		"  ss-600    (  600) [002] ...1 10.000000: tracing_mark_write: S|600|launching: com.a|7\n"
		"  ss-600    (  600) [002] ...1 10.002000: tracing_mark_write: F|600|launching: com.a|7\n";
	struct ftrace_reader *r;
	struct sim_error err;
	struct ftrace_rec rec;
	struct ftrace_region reg[8];
	int nreg = 0;
	struct ftrace_regions *t = ftrace_regions_new();
	assert_non_null(t);
	assert_int_equal(ftrace_open_mem(text, sizeof(text) - 1, "m", &r, &err), 0);
	while (ftrace_next(r, &rec, &err) == 1)
		nreg += ftrace_regions_feed(t, &rec, &reg[nreg]);
	ftrace_close(r);
	assert_int_equal(nreg, 4);
	/* innermost first; per-pid stacks keep threads apart */
	assert_string_equal(reg[0].name, "inflate");
	assert_int_equal(reg[0].duration_ns, 200000);
	assert_string_equal(reg[1].name, "draw");
	assert_int_equal(reg[1].pid, 1240);
	assert_string_equal(reg[2].name, "activityStart");
	assert_int_equal(reg[2].start_ns, 10000000000LL);
	assert_int_equal(reg[2].duration_ns, 1000000);
	assert_true(reg[3].async);
	assert_string_equal(reg[3].name, "launching: com.a");
	assert_int_equal(reg[3].duration_ns, 2000000);
	assert_int_equal(ftrace_regions_dropped(t), 1); /* the unmatched E */
	assert_int_equal(ftrace_regions_open(t), 0);
	ftrace_regions_free(t);
}

/* ---------------------------------------------------------------- streaming */

static void test_ftrace_stream_crlf_no_final_newline(void **state)
{
	(void)state;
	static const char text[] =
		"# tracer: nop\r\n"
		"#\r\n"
		"  dd-999 [000] ...1  10.000001: block_bio_queue: 8,0 W 64 + 8 [dd]\r\n"
		"CPU:0 [LOST 3 EVENTS]\r\n"
		"  dd-999 [000] ...1  10.000002: block_rq_issue: 8,0 W 4096 () 64 + 8 [dd]\r\n"
		"  <idle>-0 [000] d.h1  10.000100: block_rq_complete: 8,0 W () 64 + 8 [0]";
	struct ftrace_reader *r;
	struct sim_error err;
	struct ftrace_rec rec;
	assert_int_equal(ftrace_open_mem(text, sizeof(text) - 1, "mem", &r, &err), 0);
	enum ftrace_type want[] = { FTRACE_BLOCK_BIO_QUEUE, FTRACE_BLOCK_RQ_ISSUE,
				    FTRACE_BLOCK_RQ_COMPLETE };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ftrace_next(r, &rec, &err), 1);
		assert_int_equal(rec.type, want[i]);
	}
	assert_int_equal(rec.line, 6);
	assert_int_equal(rec.time_ns, 10000100000LL);
	assert_int_equal(ftrace_next(r, &rec, &err), 0);
	assert_int_equal(ftrace_get_stats(r)->lost_events, 3);
	ftrace_close(r);
}

static void test_ftrace_error_names_line_and_sticks(void **state)
{
	(void)state;
	static const char text[] = "  dd-999 [000] ...1  10.000001: block_plug: [dd]\n"
				   "\n"
				   "garbage here\n"
				   "  dd-999 [000] ...1  10.000002: block_plug: [dd]\n";
	struct ftrace_reader *r;
	struct sim_error err;
	struct ftrace_rec rec;
	assert_int_equal(ftrace_open_mem(text, sizeof(text) - 1, "x.trace", &r, &err), 0);
	assert_int_equal(ftrace_next(r, &rec, &err), 1);
	assert_int_equal(ftrace_next(r, &rec, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "x.trace:3:1:"));
	assert_int_equal(ftrace_next(r, &rec, &err), SIM_E_INPUT);
	ftrace_close(r);
}

static void test_ftrace_probe_tells_formats_apart(void **state)
{
	(void)state;
	const char *ft = "            kfps-684     (    684) [000] ..... 2900937.099263: "
			 "tracing_mark_write: C|24441|bypass_sf|1|0x5f3300000114\n";
	const char *hdr = "# tracer: nop\n#\n";
	const char *bp = "259,0    1        1     0.000000000  4162  Q  RA 3768960 + 8 [cat]\n";
	const char *ds = "0 1 2048 8 1\n100000 1 4096 8 0\n";
	assert_true(ftrace_probe(ft, strlen(ft)));
	assert_true(ftrace_probe(hdr, strlen(hdr)));
	assert_false(ftrace_probe(bp, strlen(bp)));
	assert_false(ftrace_probe(ds, strlen(ds)));
}

/* The trace.h adapter: block events as Q/D/C records, times relative. */
static void test_ftrace_block_adapter(void **state)
{
	(void)state;
	static const char text[] =
		"  app-77 (   70) [000] ....   5.000000: sched_wakeup: comm=a pid=1 prio=120 target_cpu=000\n"
		"  app-77 (   70) [000] ....   5.000010: block_bio_queue: 179,0 RS 2048 + 16 [app]\n"
		"  app-77 (   70) [000] ....   5.000020: block_rq_issue: 179,0 RS 8192 () 2048 + 16 [app]\n"
		"  <idle>-0 (    0) [000] d.h.   5.000520: block_rq_complete: 179,0 RS () 2048 + 16 [0]\n";
	void *st = NULL;
	struct sim_error err;
	struct trace_rec rec;
	assert_int_equal(trace_ftrace_ops.open_mem(text, sizeof(text) - 1, "a", NULL, &st, &err), 0);
	char want[] = { 'Q', 'D', 'C' };
	int64_t t[] = { 10000, 20000, 520000 };
	for (int i = 0; i < 3; i++) {
		assert_int_equal(trace_ftrace_ops.next(st, &rec, &err), 1);
		assert_int_equal(rec.act, want[i]);
		assert_int_equal(rec.time_ns, t[i]);
		assert_int_equal(rec.sector, 2048);
		assert_int_equal(rec.nr_sectors, 16);
		assert_int_equal(rec.dir, TRACE_DIR_READ);
		assert_int_equal(rec.dev_major, 179);
	}
	assert_int_equal(rec.pid, 0);
	assert_int_equal(trace_ftrace_ops.next(st, &rec, &err), 0);
	trace_ftrace_ops.close(st);
	assert_true(trace_ftrace_ops.probe((const uint8_t *)text, sizeof(text) - 1) > 0);
}

/* ---------------------------------------------------------------- shared sample */

static void count_file(const char *path, uint64_t *events, uint64_t *skipped, uint64_t *lines,
		       const struct ftrace_stats **keep, struct ftrace_reader **rk)
{
	struct ftrace_reader *r;
	struct sim_error err;
	struct ftrace_rec rec;
	assert_int_equal(ftrace_open(path, &r, &err), 0);
	int rc;
	*events = 0;
	while ((rc = ftrace_next(r, &rec, &err)) == 1)
		(*events)++;
	if (rc != 0)
		fail_msg("%s", err.msg);
	*skipped = ftrace_get_stats(r)->skipped;
	*lines = ftrace_get_stats(r)->lines;
	*keep = ftrace_get_stats(r);
	*rk = r;
}

static void test_ftrace_android_sample(void **state)
{
	(void)state;
	uint64_t ev, sk, ln;
	const struct ftrace_stats *st;
	struct ftrace_reader *r;
	/* checked-in cut: 2000 lines, 34 blank, 3 counter markers, 1963 kprobe events */
	count_file("tests/data/android-ftrace/trace-head2000.trace", &ev, &sk, &ln, &st, &r);
	assert_int_equal(ln, 2000);
	assert_int_equal(ev, 3);
	assert_int_equal(st->by_type[FTRACE_MARK_COUNTER], 3);
	assert_int_equal(sk, 1963);
	assert_int_equal(st->comments, 34);
	bool found = false;
	for (uint32_t i = 0; i < st->nskip; i++)
		if (!strcmp(st->skip[i].name, "read_probe")) {
			assert_int_equal(st->skip[i].count, 1040);
			found = true;
		}
	assert_true(found);
	ftrace_close(r);

	const char *full = "/work/shared/traces/android-ftrace/trace.trace";
	if (access(full, R_OK) == 0) {
		count_file(full, &ev, &sk, &ln, &st, &r);
		assert_int_equal(ln, 10559);
		assert_int_equal(ev, 32);
		assert_int_equal(ev + sk + st->comments, ln);
		ftrace_close(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ftrace_layout_tgid_five_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_layout_comm_with_spaces_and_dashes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_layout_four_flags_no_tgid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_layout_no_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_layout_timestamp_precision, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_block_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_pagecache_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_writeback_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_sched_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_raw_syscalls_arm64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_named_syscalls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_markers_as_regions, setup, teardown),
		cmocka_unit_test(test_ftrace_markers_pair_into_regions),
		cmocka_unit_test_setup_teardown(test_ftrace_comments_and_lost_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_unknown_events_counted_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_junk_is_an_error_with_position, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ftrace_out_of_range_fields, setup, teardown),
		cmocka_unit_test(test_ftrace_stream_crlf_no_final_newline),
		cmocka_unit_test(test_ftrace_error_names_line_and_sticks),
		cmocka_unit_test(test_ftrace_probe_tells_formats_apart),
		cmocka_unit_test(test_ftrace_block_adapter),
		cmocka_unit_test(test_ftrace_android_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
