/* The "synthetic" workload: tasks described in YAML, each driven by a
 * generator that produces its op stream lazily (memory does not grow with
 * the amount of I/O). Generators:
 *
 *  writer  buffered sequential or random writer of `bytes` in chunks
 *          (optionally O_SYNC, rate-limited, fsync at the end);
 *  video   the same with video-recording defaults: a new file (created),
 *          a stream written at `rate` and fsynced at the end;
 *  reader  sequential or random reader of an existing file;
 *  launch  an app launch: a working set of `bytes` spread over `files`
 *          existing files, touched in runs (exponential, mean `run_bytes`)
 *          separated by untouched gaps so that `file_coverage` of each file
 *          is used; a run is either read() or faulted page by page
 *          (`fault_fraction` of runs); with `variation` > 0 that fraction
 *          of runs touches another place of the file, drawn per
 *          `launch_no` (launch-to-launch differences for the launch
 *          planners); `cpu_total` of computation is spread
 *          evenly between the I/Os it actually issues (counted by a dry
 *          run on a copy of its stream); optional small database writes
 *          with periodic fsync;
 *  recorded an app launch replayed from a recorded cold start: its threads,
 *          requests and CPU gaps from a block trace
 *          (traces/workloads/rec_launch.c, launch_build.c);
 *  app     a multi-threaded app launch (main, RenderThread, image workers,
 *          SQLite worker with Android 5's journal protocol):
 *          traces/workloads/app_launch.c;
 *  kbuild  one job slot of a kernel build (make -j4 is `copies: 4`): per
 *          unit fork/exec CPU, the .c and its headers read, compile CPU,
 *          the .o created and written (traces/workloads/kbuild.c);
 *  burst   a camera burst: `shots` new files of `shot_bytes`, each created
 *          (a new inode and directory entry), written and fsynced, with
 *          `cpu_between` between shots.
 *
 * YAML:   workload: { type: synthetic, tasks: { NAME: { gen: ..., ... } } }
 * Every task has uid, start (a time, or {uniform: [LO, HI]} drawn per seed
 * from the stream "workload.KEY.start", so that launches can be run at
 * random phases of the background work), ioprio_class/ioprio_level, enabled, region
 * (a BEGIN/END pair around the whole stream, recorded in regions[]) and
 * become_fg (the task's uid becomes the foreground uid when it starts),
 * and copies/stagger: N independent instances KEY01..KEYNN (uid + i, their
 * own files and random streams, start + i * stagger), so that "N apps
 * launched together" is one `--set workload.tasks.KEY.copies=N`.
 * The workload's `offset` moves every start (its place in a composite).
 * Random choices come from the stream "workload.NAME", seeded by the run's
 * seed or, with `app_seed`, by the app's own (an app whose files and launch
 * are the same in every run, as on a phone: FAST's and ESL'20's profiles are
 * recorded once and replayed on later launches).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "models/policies/policy.h"
#include "models/stack/stack.h"
#include "sim/rng.h"
#include "sim/sim.h"
#include "sim/workload.h"
#include "traces/workloads/app_launch.h"
#include "traces/workloads/kbuild.h"
#include "traces/workloads/rec_launch.h"

enum gen_kind { GEN_WRITER = 0, GEN_VIDEO, GEN_READER, GEN_LAUNCH, GEN_BURST, GEN_APP, GEN_COPY,
	       GEN_KBUILD, GEN_RECORDED };
static const char *const gen_names[] = { "writer", "video", "reader", "launch", "burst", "app",
					  "copy", "kbuild", "recorded", NULL };
static const char *const ioprio_names[] = { "none", "rt", "be", "idle", NULL };
static const char *const pattern_names[] = { "seq", "random", NULL };

struct task_common {
	int gen;
	bool enabled;
	int64_t uid, pid;
	int64_t start_ns;
	int ioprio_class;
	int64_t ioprio_level;
	const char *region;
	bool become_fg;
	const char *name;
	int64_t copies;
	int64_t stagger_ns;
	int64_t app_seed;
	/* start: fixed (start_ns) or drawn uniformly from [start_ns, start_hi_ns] */
	bool start_random;
	int64_t start_hi_ns;
};

static const struct cfg_param start_param[] = {
	{ "start", CFG_T_TIME, offsetof(struct task_common, start_ns), "s", "0", 0, 1e6, "scenario",
	  "when the task starts: a time, or {uniform: [LO, HI]} drawn per seed from the stream "
	  "workload.KEY.start", NULL },
	CFG_PARAM_END,
};

static const struct cfg_param common_params[] = {
	{ "gen", CFG_T_ENUM, offsetof(struct task_common, gen), "", NULL, CFG_NO_RANGE, "scenario",
	  "generator: writer, video, reader, launch, burst, app, copy, kbuild, recorded", gen_names },
	{ "enabled", CFG_T_BOOL, offsetof(struct task_common, enabled), "", "true", CFG_NO_RANGE,
	  "scenario", "run this task", NULL },
	{ "uid", CFG_T_INT, offsetof(struct task_common, uid), "", "10000", 0, 4294967295.0,
	  "Android: apps have uids from 10000 (AID_APP)", "user id (0 = root, never background)",
	  NULL },
	{ "pid", CFG_T_INT, offsetof(struct task_common, pid), "", "0", 0, 4194304, "scenario",
	  "process id (0 = assigned)", NULL },
	{ "ioprio_class", CFG_T_ENUM, offsetof(struct task_common, ioprio_class), "", "none",
	  CFG_NO_RANGE, "Android apps run with no ioprio set (CFQ: BE from nice)",
	  "I/O class: none, rt, be, idle", ioprio_names },
	{ "ioprio_level", CFG_T_INT, offsetof(struct task_common, ioprio_level), "", "4", 0, 7,
	  "IOPRIO_NORM", "I/O priority level 0 (high) .. 7", NULL },
	{ "region", CFG_T_STRING, offsetof(struct task_common, region), "", "", CFG_NO_RANGE,
	  "scenario", "region name around the whole stream (empty: none)", NULL },
	{ "become_fg", CFG_T_BOOL, offsetof(struct task_common, become_fg), "", "false",
	  CFG_NO_RANGE, "ActivityManager top-app change", "the uid becomes foreground at start",
	  NULL },
	{ "name", CFG_T_STRING, offsetof(struct task_common, name), "", "", CFG_NO_RANGE, "scenario",
	  "comm (default: the task's key)", NULL },
	{ "copies", CFG_T_INT, offsetof(struct task_common, copies), "", "1", 1, 1000, "scenario",
	  "run this many independent instances, named KEY01.. with uid + i, their own files and "
	  "random streams (e.g. N apps launched together)", NULL },
	{ "stagger", CFG_T_TIME, offsetof(struct task_common, stagger_ns), "s", "0", 0, 1e6,
	  "scenario", "copies: instance i starts at start + i * stagger", NULL },
	{ "app_seed", CFG_T_INT, offsetof(struct task_common, app_seed), "", "0", 0,
	  9007199254740991.0,
	  "FAST'11 and ESL'20: an app's launch reads the same blocks every time (docs/papers.md)",
	  "the app's identity: the task's stream workload.KEY (its files and what it touches) "
	  "comes from this seed instead of the run's (0: the run's), so a launch profile recorded "
	  "in one run applies to runs with other seeds; phase (start) and launch-to-launch "
	  "variation still follow the run's seed, and so does the file system's placement unless "
	  "fs.layout_seed is set", NULL },
	CFG_PARAM_END,
};

struct writer_p {
	uint64_t bytes, chunk_bytes, file_bytes;
	int pattern;
	double rate_bps;
	bool fsync_end, osync;
	int64_t cpu_per_chunk_ns;
	const char *file;
	bool direct;
	uint64_t mem_align;
};

#define WRITER_PARAMS(defchunk, defrate, deffsync)                                                \
	{ "bytes", CFG_T_SIZE, offsetof(struct writer_p, bytes), "MiB", "64MiB", 0, 1e9,          \
	  "scenario", "bytes to write", NULL },                                                   \
	{ "chunk_bytes", CFG_T_SIZE, offsetof(struct writer_p, chunk_bytes), "KiB", defchunk, 4,  \
	  1048576, "scenario", "size of each write()", NULL },                                    \
	{ "file_bytes", CFG_T_SIZE, offsetof(struct writer_p, file_bytes), "MiB", "0", 0, 1e9,    \
	  "scenario", "random pattern: size of the existing file (0 = bytes)", NULL },            \
	{ "pattern", CFG_T_ENUM, offsetof(struct writer_p, pattern), "", "seq", CFG_NO_RANGE,     \
	  "scenario", "seq (append to a new file) or random (overwrite an existing one)",        \
	  pattern_names },                                                                        \
	{ "rate", CFG_T_RATE, offsetof(struct writer_p, rate_bps), "MB/s", defrate, 0, 1e6,       \
	  "scenario", "write rate limit (0 = as fast as possible)", NULL },                       \
	{ "fsync_end", CFG_T_BOOL, offsetof(struct writer_p, fsync_end), "", deffsync,            \
	  CFG_NO_RANGE, "scenario", "fsync after the last write", NULL },                         \
	{ "osync", CFG_T_BOOL, offsetof(struct writer_p, osync), "", "false", CFG_NO_RANGE,       \
	  "scenario", "open with O_SYNC", NULL },                                                 \
	{ "cpu_per_chunk", CFG_T_TIME, offsetof(struct writer_p, cpu_per_chunk_ns), "us", "0", 0, \
	  1e9, "scenario", "computation between writes", NULL },                                  \
	{ "file", CFG_T_STRING, offsetof(struct writer_p, file), "", "", CFG_NO_RANGE,            \
	  "scenario", "file name (default: TASK.dat)", NULL },                                    \
	{ "direct", CFG_T_BOOL, offsetof(struct writer_p, direct), "", "false", CFG_NO_RANGE,     \
	  "fio's direct=1 (open O_DIRECT)", "write with O_DIRECT, bypassing the page cache "     \
	  "(models/fs/direct.c)", NULL },                                                         \
	{ "mem_align", CFG_T_SIZE, offsetof(struct writer_p, mem_align), "B", "0", 0, 4095,       \
	  "fio's mem_align: the buffer starts this many bytes past a page boundary",            \
	  "direct: a buffer not aligned to the logical block size gets EINVAL", NULL },          \
	CFG_PARAM_END

static const struct cfg_param writer_params[] = { WRITER_PARAMS("512KiB", "0", "false") };
/* 1080p30 H.264 at ~17 Mbit/s is ~2 MB/s (INFER: typical 2015 phone camera). */
static const struct cfg_param video_params[] = { WRITER_PARAMS("256KiB", "2", "true") };

struct reader_p {
	uint64_t bytes, chunk_bytes, file_bytes;
	int pattern;
	int64_t cpu_per_chunk_ns;
	const char *file;
	bool direct, mmap;
	uint64_t mem_align;
	double warm;
};

static const struct cfg_param reader_params[] = {
	{ "file_bytes", CFG_T_SIZE, offsetof(struct reader_p, file_bytes), "MiB", "64MiB", 0.004,
	  1e9, "scenario", "size of the existing file", NULL },
	{ "bytes", CFG_T_SIZE, offsetof(struct reader_p, bytes), "MiB", "0", 0, 1e9, "scenario",
	  "bytes to read (0 = file_bytes)", NULL },
	{ "chunk_bytes", CFG_T_SIZE, offsetof(struct reader_p, chunk_bytes), "KiB", "4KiB", 0.5,
	  1048576, "AndroBench convention: random 4 KiB", "size of each read()", NULL },
	{ "pattern", CFG_T_ENUM, offsetof(struct reader_p, pattern), "", "seq", CFG_NO_RANGE,
	  "scenario", "seq or random", pattern_names },
	{ "cpu_per_chunk", CFG_T_TIME, offsetof(struct reader_p, cpu_per_chunk_ns), "us", "0", 0,
	  1e9, "scenario", "computation between reads", NULL },
	{ "file", CFG_T_STRING, offsetof(struct reader_p, file), "", "", CFG_NO_RANGE, "scenario",
	  "file name (default: TASK.dat)", NULL },
	{ "direct", CFG_T_BOOL, offsetof(struct reader_p, direct), "", "false", CFG_NO_RANGE,
	  "fio's direct=1 (open O_DIRECT)",
	  "read with O_DIRECT, bypassing the page cache (models/fs/direct.c)", NULL },
	{ "mmap", CFG_T_BOOL, offsetof(struct reader_p, mmap), "", "false", CFG_NO_RANGE,
	  "fio's ioengine=mmap (memcpy from a shared file mapping)",
	  "touch each page of a chunk through a file mapping (page faults) instead of read()",
	  NULL },
	{ "mem_align", CFG_T_SIZE, offsetof(struct reader_p, mem_align), "B", "0", 0, 4095,
	  "fio's mem_align: the buffer starts this many bytes past a page boundary",
	  "direct: a buffer not aligned to the logical block size gets EINVAL", NULL },
	{ "warm", CFG_T_DOUBLE, offsetof(struct reader_p, warm), "", "0", 0, 1,
	  "scenario (fio's invalidate=0 after a previous pass)",
	  "fraction of the file in the page cache at t = 0, from its start", NULL },
	CFG_PARAM_END,
};

struct launch_p {
	uint64_t bytes;
	int64_t files;
	double coverage, fault_fraction;
	uint64_t run_bytes;
	int64_t cpu_total_ns;
	int64_t db_writes, fsync_every;
	uint64_t db_write_bytes, db_file_bytes;
	double variation;
	int64_t launch_no;
	double warm;
};

static const struct cfg_param launch_params[] = {
	{ "bytes", CFG_T_SIZE, offsetof(struct launch_p, bytes), "MiB", "32MiB", 0.004, 1e6,
	  "fitted", "working set touched during the launch", NULL },
	{ "files", CFG_T_INT, offsetof(struct launch_p, files), "", "40", 1, 100000, "fitted",
	  "files the working set spans (APK, odex, .so, resources)", NULL },
	{ "warm", CFG_T_DOUBLE, offsetof(struct launch_p, warm), "", "0", 0, 1,
	  "scenario (0: a cold start; a switch back to an app that ran before: state it, sourced or "
	  "assumed with a range)",
	  "fraction of each working-set file in the page cache at t = 0, owned by the task's uid "
	  "(the app ran before); reclaim then takes what it takes", NULL },
	{ "file_coverage", CFG_T_DOUBLE, offsetof(struct launch_p, coverage), "", "0.5", 0.01, 1,
	  "fitted", "fraction of each file that is touched", NULL },
	{ "fault_fraction", CFG_T_DOUBLE, offsetof(struct launch_p, fault_fraction), "", "0.7", 0,
	  1, "docs/references.md §3.3: launch is dominated by mmap faults (INFER share)",
	  "fraction of runs touched by page faults instead of read()", NULL },
	{ "run_bytes", CFG_T_SIZE, offsetof(struct launch_p, run_bytes), "KiB", "32KiB", 4, 1e6,
	  "fitted", "mean length of a touched run", NULL },
	{ "cpu_total", CFG_T_TIME, offsetof(struct launch_p, cpu_total_ns), "ms", "1500ms", 0, 1e7,
	  "fitted", "computation spread between the launch's I/Os", NULL },
	{ "db_writes", CFG_T_INT, offsetof(struct launch_p, db_writes), "", "0", 0, 1e6, "fitted",
	  "small database writes during the launch", NULL },
	{ "db_write_bytes", CFG_T_SIZE, offsetof(struct launch_p, db_write_bytes), "KiB", "4KiB", 0.5,
	  1048576, "SQLite page 4 KiB", "size of each database write", NULL },
	{ "db_file_bytes", CFG_T_SIZE, offsetof(struct launch_p, db_file_bytes), "KiB", "1MiB", 4,
	  1e6, "fitted", "size of the existing database file", NULL },
	{ "fsync_every", CFG_T_INT, offsetof(struct launch_p, fsync_every), "", "1", 1, 1e6,
	  "SQLite commits fsync each transaction", "fsync after this many database writes", NULL },
	{ "variation", CFG_T_DOUBLE, offsetof(struct launch_p, variation), "", "0", 0, 1,
	  "scenario (FAST'11: launch sequences are nearly, not exactly, the same)",
	  "fraction of runs that touch another place of the file in this launch", NULL },
	{ "launch_no", CFG_T_INT, offsetof(struct launch_p, launch_no), "", "1", 1, 1e9,
	  "scenario", "which launch of the app this is: with variation > 0 each number "
	  "varies differently (the rest of the working set is the same)", NULL },
	CFG_PARAM_END,
};

struct burst_p {
	int64_t shots;
	uint64_t shot_bytes, chunk_bytes;
	int64_t cpu_between_ns;
};

static const struct cfg_param burst_params[] = {
	{ "shots", CFG_T_INT, offsetof(struct burst_p, shots), "", "20", 1, 100000,
	  "Galaxy S6 burst shot: up to 30 pictures (INFER)", "pictures in the burst", NULL },
	{ "shot_bytes", CFG_T_SIZE, offsetof(struct burst_p, shot_bytes), "KiB", "3MiB", 4, 1e7,
	  "16 MP JPEG ~3 MB (INFER)", "size of each picture file", NULL },
	{ "chunk_bytes", CFG_T_SIZE, offsetof(struct burst_p, chunk_bytes), "KiB", "256KiB", 4,
	  1048576, "scenario", "size of each write()", NULL },
	{ "cpu_between", CFG_T_TIME, offsetof(struct burst_p, cpu_between_ns), "ms", "30ms", 0, 1e7,
	  "fitted", "capture/encode time per shot", NULL },
	CFG_PARAM_END,
};

/* cp of small files (coreutils cp: open the source, create the target,
 * read()/write() in buffer-sized chunks, close both; no fsync unless asked). */
struct copy_p {
	int64_t files;
	uint64_t file_bytes, chunk_bytes;
	bool fsync_each;
	double warm;
};

static const struct cfg_param copy_params[] = {
	{ "files", CFG_T_INT, offsetof(struct copy_p, files), "", "1000", 1, 1e7, "scenario",
	  "files copied", NULL },
	{ "file_bytes", CFG_T_SIZE, offsetof(struct copy_p, file_bytes), "KiB", "16KiB", 0.5, 1e9,
	  "scenario", "size of each source file (existing, blocks allocated)", NULL },
	{ "chunk_bytes", CFG_T_SIZE, offsetof(struct copy_p, chunk_bytes), "KiB", "128KiB", 0.5,
	  1048576, "[RECALL] coreutils cp's io_blksize: 128 KiB buffers",
	  "size of each read() and write()", NULL },
	{ "fsync_each", CFG_T_BOOL, offsetof(struct copy_p, fsync_each), "", "false", CFG_NO_RANGE,
	  "cp does not fsync", "fsync each target before closing it", NULL },
	{ "warm", CFG_T_DOUBLE, offsetof(struct copy_p, warm), "", "0", 0, 1, "scenario",
	  "fraction of each source file in the page cache at t = 0", NULL },
	CFG_PARAM_END,
};

/* ---------------------------------------------------------------- state */

struct wl_file {
	struct stack_file *f;
	uint64_t size;
};

struct wl_task {
	struct wl_state *ws;
	struct task_common c;
	char *key;
	union {
		struct writer_p w;
		struct reader_p r;
		struct launch_p l;
		struct burst_p b;
		struct copy_p cp;
		struct kbuild_p k;
	} p;
	struct kbuild *kb;           /* kbuild */
	struct stack_task *t;
	struct app_launch *app;      /* app: the multi-threaded launch (t is its main thread) */
	struct rec_launch *rl;       /* recorded: the launch from a recording (t: its main thread) */
	gsl_rng *rng;
	struct sim_rng_set *app_rngs; /* app_seed: the set rng comes from (else the sim's) */
	struct stack_file *file;     /* writer, reader */
	struct stack_file *db;       /* launch */
	struct wl_file *files;       /* launch: working set; burst: shots */
	uint32_t nfiles;
	/* generator progress */
	int phase;
	uint64_t done_bytes, pos, run_left, touched, target;
	uint64_t run_cur;            /* launch: where the current run touches */
	gsl_rng *var_rng;            /* launch: variation between launches */
	uint32_t fi;
	int64_t t0;
	bool cpu_next;
	bool created;              /* video: the recording's file was created */
	int64_t cpu_gap_ns;
	uint64_t io_ops, next_db_at, db_done;
	bool last_io_db;
	uint64_t ops;
	bool fg;                     /* a foreground task (run.stop: fg_done) */
	bool held;                   /* fork at a phase: start() leaves it to release */
	uint64_t held_seq;           /* the event number its start would have taken */
};

struct wl_state {
	struct sim *sim;
	struct stack *stack;
	int64_t offset_ns; /* `offset`: every task's start moves by this much */
	struct wl_task *tasks;
	uint32_t ntasks, exited;
};

/* ------------------------------------------------------------ helpers */

static uint64_t rnd_page_rng(gsl_rng *r, uint64_t limit_bytes, uint64_t align)
{
	uint64_t slots = limit_bytes / align;
	if (slots <= 1)
		return 0;
	return (uint64_t)gsl_rng_uniform_int(r, (unsigned long)slots) * align;
}

static uint64_t rnd_page(struct wl_task *wt, uint64_t limit_bytes, uint64_t align)
{
	return rnd_page_rng(wt->rng, limit_bytes, align);
}

static void op_set(struct stack_op *op, enum stack_op_kind k, struct stack_file *f, uint64_t off,
		   uint64_t len)
{
	memset(op, 0, sizeof(*op));
	op->kind = k;
	op->file = f;
	op->off = off;
	op->len = len;
}

/* Phases shared by all generators: 0 = fg switch, 1 = region begin,
 * 2.. = body, then the generator returns END_PHASE. */
enum { PH_FG = 0, PH_BEGIN, PH_BODY, PH_END, PH_EXIT };

static int writer_next(struct wl_task *wt, struct stack_op *op)
{
	struct writer_p *p = &wt->p.w;
	struct sim *sim = wt->ws->sim;
	if (wt->cpu_next && p->cpu_per_chunk_ns > 0) {
		wt->cpu_next = false;
		op_set(op, STACK_OP_CPU, NULL, 0, 0);
		op->ns = p->cpu_per_chunk_ns;
		return 1;
	}
	wt->cpu_next = false;
	if (wt->c.gen == GEN_VIDEO && !wt->created) {
		/* MediaRecorder's output file is new (the app opens it O_CREAT) */
		wt->created = true;
		op_set(op, STACK_OP_CREATE, wt->file, 0, 0);
		return 1;
	}
	if (wt->done_bytes < p->bytes) {
		if (p->rate_bps > 0) {
			int64_t due = wt->t0 + (int64_t)((double)wt->done_bytes / p->rate_bps * 1e9);
			if (due > sim_now(sim)) {
				op_set(op, STACK_OP_SLEEP, NULL, 0, 0);
				op->ns = due - sim_now(sim);
				return 1;
			}
		}
		uint64_t len = p->chunk_bytes;
		if (len > p->bytes - wt->done_bytes)
			len = p->bytes - wt->done_bytes;
		uint64_t off = wt->done_bytes;
		if (p->pattern == 1)
			off = rnd_page(wt, p->file_bytes ? p->file_bytes : p->bytes, p->chunk_bytes);
		op_set(op, STACK_OP_WRITE, wt->file, off, len);
		if (p->osync)
			op->flags |= STACK_OPF_SYNC;
		if (p->direct) {
			op->flags |= STACK_OPF_DIRECT;
			op->buf_align = (uint32_t)p->mem_align;
		}
		wt->done_bytes += len;
		wt->cpu_next = true;
		return 1;
	}
	if (p->fsync_end && wt->phase == PH_BODY) {
		wt->phase = PH_BODY + 1;
		op_set(op, STACK_OP_FSYNC, wt->file, 0, 0);
		return 1;
	}
	return 0;
}

static int reader_next(struct wl_task *wt, struct stack_op *op)
{
	struct reader_p *p = &wt->p.r;
	uint64_t total = p->bytes ? p->bytes : p->file_bytes;
	if (wt->cpu_next && p->cpu_per_chunk_ns > 0) {
		wt->cpu_next = false;
		op_set(op, STACK_OP_CPU, NULL, 0, 0);
		op->ns = p->cpu_per_chunk_ns;
		return 1;
	}
	wt->cpu_next = false;
	if (wt->run_left > 0) {
		/* mmap: the chunk's next page */
		op_set(op, STACK_OP_FAULT, wt->file, wt->run_cur, STACK_PAGE_SIZE);
		wt->run_cur += STACK_PAGE_SIZE;
		if (--wt->run_left == 0)
			wt->cpu_next = true;
		return 1;
	}
	if (wt->done_bytes >= total)
		return 0;
	uint64_t len = p->chunk_bytes;
	if (len > total - wt->done_bytes)
		len = total - wt->done_bytes;
	uint64_t off = p->pattern == 1 ? rnd_page(wt, p->file_bytes, p->chunk_bytes)
				       : wt->done_bytes % p->file_bytes;
	wt->done_bytes += len;
	if (p->mmap) {
		/* memcpy from the mapping: one fault per page the chunk spans */
		uint64_t first = off & ~(uint64_t)(STACK_PAGE_SIZE - 1);
		uint64_t pages = (off + len - first + STACK_PAGE_SIZE - 1) >> STACK_PAGE_SHIFT;
		op_set(op, STACK_OP_FAULT, wt->file, first, STACK_PAGE_SIZE);
		wt->run_cur = first + STACK_PAGE_SIZE;
		wt->run_left = pages - 1;
		wt->cpu_next = wt->run_left == 0;
		return 1;
	}
	op_set(op, STACK_OP_READ, wt->file, off, len);
	if (p->direct) {
		op->flags |= STACK_OPF_DIRECT;
		op->buf_align = (uint32_t)p->mem_align;
	}
	wt->cpu_next = true;
	return 1;
}

/* Launch: per file OPEN, then runs; CPU gaps after every I/O op; a
 * database write (and fsync) whenever the I/O count crosses the next
 * share. */
static int launch_next(struct wl_task *wt, struct stack_op *op)
{
	struct launch_p *p = &wt->p.l;
	if (wt->cpu_next) {
		wt->cpu_next = false;
		if (wt->cpu_gap_ns > 0) {
			op_set(op, STACK_OP_CPU, NULL, 0, 0);
			op->ns = wt->cpu_gap_ns;
			return 1;
		}
	}
	if (wt->last_io_db) {
		wt->last_io_db = false;
		if (wt->db_done % (uint64_t)p->fsync_every == 0) {
			op_set(op, STACK_OP_FSYNC, wt->db, 0, 0);
			return 1;
		}
	}
	if (p->db_writes > 0 && wt->db_done < (uint64_t)p->db_writes && wt->io_ops >= wt->next_db_at) {
		uint64_t every = wt->target / (uint64_t)(p->db_writes + 1);
		wt->next_db_at += every ? every : 1;
		wt->db_done++;
		wt->last_io_db = true;
		op_set(op, STACK_OP_WRITE, wt->db, rnd_page(wt, p->db_file_bytes, p->db_write_bytes),
		       p->db_write_bytes);
		return 1;
	}
	for (;;) {
		if (wt->fi >= wt->nfiles) {
			if (p->db_writes > 0 && wt->db_done < (uint64_t)p->db_writes) {
				wt->next_db_at = 0; /* flush the remaining db writes */
				wt->io_ops = UINT64_MAX / 2;
				return launch_next(wt, op);
			}
			return 0;
		}
		struct wl_file *lf = &wt->files[wt->fi];
		if (wt->pos == UINT64_MAX) {
			/* first touch of this file */
			wt->pos = 0;
			wt->touched = 0;
			wt->run_left = 0;
			op_set(op, STACK_OP_OPEN, lf->f, 0, 0);
			return 1;
		}
		uint64_t want = (uint64_t)((double)lf->size * p->coverage);
		if (wt->run_left == 0) {
			if (wt->touched >= want || wt->pos >= lf->size) {
				wt->fi++;
				wt->pos = UINT64_MAX;
				continue;
			}
			double gap_mean = (double)p->run_bytes * (1.0 / p->coverage - 1.0);
			uint64_t gap = gap_mean > 0 ? (uint64_t)gsl_ran_exponential(wt->rng, gap_mean) : 0;
			uint64_t run = (uint64_t)gsl_ran_exponential(wt->rng, (double)p->run_bytes);
			run = (run + 4095) & ~4095ull;
			if (run == 0)
				run = 4096;
			if (wt->touched > 0 || gap > 0)
				wt->pos += gap & ~4095ull;
			if (wt->pos >= lf->size) {
				wt->fi++;
				wt->pos = UINT64_MAX;
				continue;
			}
			if (run > lf->size - wt->pos)
				run = lf->size - wt->pos;
			wt->run_left = run;
			/* launch-to-launch variation: this run touches another
			 * place; the base stream (wt->rng) is drawn as always */
			wt->run_cur = wt->pos;
			if (wt->var_rng && gsl_rng_uniform(wt->var_rng) < p->variation)
				wt->run_cur = rnd_page_rng(wt->var_rng, lf->size - run + 4096, 4096);
			/* fault or read: decided once per run */
			wt->cpu_next = false;
			if (gsl_rng_uniform(wt->rng) >= p->fault_fraction) {
				op_set(op, STACK_OP_READ, lf->f, wt->run_cur, run);
				wt->pos += run;
				wt->touched += run;
				wt->run_left = 0;
				wt->io_ops++;
				wt->cpu_next = true;
				return 1;
			}
		}
		/* fault the run page by page */
		op_set(op, STACK_OP_FAULT, lf->f, wt->run_cur, 4096);
		wt->run_cur += 4096;
		wt->pos += 4096;
		wt->touched += 4096;
		wt->run_left = wt->run_left > 4096 ? wt->run_left - 4096 : 0;
		wt->io_ops++;
		wt->cpu_next = true;
		return 1;
	}
}

/* Dry run of launch_next over a copy of the task with a cloned stream:
 * how many I/O ops (reads and faults) the real run will issue. */
static uint64_t launch_count_io(const struct wl_task *wt)
{
	struct wl_task d = *wt;
	d.rng = gsl_rng_clone(wt->rng);
	if (!d.rng)
		return 1;
	d.var_rng = NULL; /* variation moves runs, it does not change their number */
	d.p.l.db_writes = 0;
	d.cpu_gap_ns = 0;
	d.cpu_next = false;
	d.last_io_db = false;
	d.fi = 0;
	d.pos = UINT64_MAX;
	d.io_ops = 0;
	struct stack_op op;
	while (launch_next(&d, &op) > 0)
		;
	gsl_rng_free(d.rng);
	return d.io_ops;
}

/* Copy: files[2i] is source i, files[2i + 1] its target. */
static int copy_next(struct wl_task *wt, struct stack_op *op)
{
	struct copy_p *p = &wt->p.cp;
	for (;;) {
		if (wt->fi >= (uint64_t)p->files)
			return 0;
		struct stack_file *src = wt->files[2 * wt->fi].f, *dst = wt->files[2 * wt->fi + 1].f;
		switch (wt->run_left) { /* per-file step */
		case 0:
			wt->run_left = 1;
			wt->done_bytes = 0;
			wt->cpu_next = false; /* here: the chunk read, its write next */
			op_set(op, STACK_OP_OPEN, src, 0, 0);
			return 1;
		case 1:
			wt->run_left = 2;
			op_set(op, STACK_OP_CREATE, dst, 0, 0);
			return 1;
		case 2:
			if (wt->done_bytes < p->file_bytes) {
				uint64_t len = p->chunk_bytes;
				if (len > p->file_bytes - wt->done_bytes)
					len = p->file_bytes - wt->done_bytes;
				if (!wt->cpu_next) {
					wt->cpu_next = true;
					op_set(op, STACK_OP_READ, src, wt->done_bytes, len);
					return 1;
				}
				wt->cpu_next = false;
				op_set(op, STACK_OP_WRITE, dst, wt->done_bytes, len);
				wt->done_bytes += len;
				return 1;
			}
			wt->run_left = 3;
			op_set(op, STACK_OP_CLOSE, src, 0, 0);
			return 1;
		case 3:
			wt->run_left = 4;
			if (p->fsync_each) {
				op_set(op, STACK_OP_FSYNC, dst, 0, 0);
				return 1;
			}
			continue;
		default:
			wt->run_left = 0;
			wt->fi++;
			op_set(op, STACK_OP_CLOSE, dst, 0, 0);
			return 1;
		}
	}
}

static int burst_next(struct wl_task *wt, struct stack_op *op)
{
	struct burst_p *p = &wt->p.b;
	if (wt->fi >= wt->nfiles)
		return 0;
	struct wl_file *sf = &wt->files[wt->fi];
	switch (wt->run_left) { /* per-shot step */
	case 0:
		wt->run_left = 1;
		wt->done_bytes = 0;
		/* Camera's Storage.writeFile: new FileOutputStream(path), a file
		 * that did not exist (open O_CREAT): a new inode and entry */
		op_set(op, STACK_OP_CREATE, sf->f, 0, 0);
		return 1;
	case 1:
		if (wt->done_bytes < p->shot_bytes) {
			uint64_t len = p->chunk_bytes;
			if (len > p->shot_bytes - wt->done_bytes)
				len = p->shot_bytes - wt->done_bytes;
			op_set(op, STACK_OP_WRITE, sf->f, wt->done_bytes, len);
			wt->done_bytes += len;
			return 1;
		}
		wt->run_left = 2;
		op_set(op, STACK_OP_FSYNC, sf->f, 0, 0);
		return 1;
	case 2:
		wt->run_left = 3;
		op_set(op, STACK_OP_CLOSE, sf->f, 0, 0);
		return 1;
	default:
		wt->run_left = 0;
		wt->fi++;
		op_set(op, STACK_OP_CPU, NULL, 0, 0);
		op->ns = p->cpu_between_ns;
		if (op->ns == 0)
			return burst_next(wt, op);
		return 1;
	}
}

static int wl_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	struct wl_task *wt = ctx;
	(void)t;
	wt->ops++;
	for (;;) {
		switch (wt->phase) {
		case PH_FG:
			wt->phase = PH_BEGIN;
			wt->t0 = sim_now(wt->ws->sim);
			if (wt->c.become_fg) {
				op_set(op, STACK_OP_FG, NULL, 0, (uint64_t)wt->c.uid);
				return 1;
			}
			continue;
		case PH_BEGIN:
			wt->phase = PH_BODY;
			if (wt->c.region && wt->c.region[0]) {
				op_set(op, STACK_OP_BEGIN, NULL, 0, 0);
				op->name = wt->c.region;
				return 1;
			}
			continue;
		case PH_END:
			wt->phase = PH_EXIT;
			if (wt->c.region && wt->c.region[0]) {
				op_set(op, STACK_OP_END, NULL, 0, 0);
				op->name = wt->c.region;
				return 1;
			}
			continue;
		case PH_EXIT:
			return 0;
		default: {
			int r;
			switch (wt->c.gen) {
			case GEN_WRITER:
			case GEN_VIDEO:
				r = writer_next(wt, op);
				break;
			case GEN_READER:
				r = reader_next(wt, op);
				break;
			case GEN_LAUNCH:
				r = launch_next(wt, op);
				break;
			case GEN_COPY:
				r = copy_next(wt, op);
				break;
			case GEN_KBUILD:
				r = kbuild_next(wt->kb, op);
				break;
			default:
				r = burst_next(wt, op);
				break;
			}
			if (r)
				return r;
			wt->phase = PH_END;
			continue;
		}
		}
	}
}

static void wl_exited(struct stack_task *t, void *ctx)
{
	struct wl_task *wt = ctx;
	(void)t;
	wt->ws->exited++;
}

/* ------------------------------------------------------------- create */

static int task_setup(struct wl_state *ws, struct wl_task *wt, struct cfg_node *n,
		      struct sim_error *err)
{
	struct stack *s = ws->stack;
	char name[256];
	int rc;
	switch (wt->c.gen) {
	case GEN_WRITER:
	case GEN_VIDEO: {
		rc = cfg_apply(wt->c.gen == GEN_WRITER ? writer_params : video_params, n, &wt->p.w, err);
		if (rc)
			return rc;
		struct writer_p *p = &wt->p.w;
		snprintf(name, sizeof(name), "%s", p->file[0] ? p->file : wt->key);
		if (!p->file[0])
			snprintf(name, sizeof(name), "%s.dat", wt->key);
		uint64_t exist = 0;
		if (p->pattern == 1)
			exist = p->file_bytes ? p->file_bytes : p->bytes;
		wt->file = stack_file_get(s, name, exist, err);
		if (!wt->file)
			return err->code;
		break;
	}
	case GEN_READER: {
		rc = cfg_apply(reader_params, n, &wt->p.r, err);
		if (rc)
			return rc;
		struct reader_p *p = &wt->p.r;
		if (p->file[0])
			snprintf(name, sizeof(name), "%s", p->file);
		else
			snprintf(name, sizeof(name), "%s.dat", wt->key);
		wt->file = stack_file_get(s, name, p->file_bytes, err);
		if (!wt->file)
			return err->code;
		if (p->direct && p->mmap)
			return cfg_errorf(err, cfg_get(n, "mmap"),
					  "a reader is either direct or mmap (fio: one ioengine)");
		if (p->warm > 0) {
			uint64_t np = (uint64_t)(p->warm * (double)(p->file_bytes >> STACK_PAGE_SHIFT) + 0.5);
			rc = stack_file_prefill(s, wt->file, np, (uint32_t)wt->c.uid, err);
			if (rc)
				return rc;
		}
		break;
	}
	case GEN_LAUNCH: {
		rc = cfg_apply(launch_params, n, &wt->p.l, err);
		if (rc)
			return rc;
		struct launch_p *p = &wt->p.l;
		wt->nfiles = (uint32_t)p->files;
		wt->files = calloc(wt->nfiles, sizeof(*wt->files));
		if (!wt->files)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		double per = (double)p->bytes / (double)p->files / p->coverage;
		for (uint32_t i = 0; i < wt->nfiles; i++) {
			double sz = per * (0.25 + 1.5 * gsl_rng_uniform(wt->rng));
			uint64_t b = ((uint64_t)sz + 4095) & ~4095ull;
			if (b < 4096)
				b = 4096;
			snprintf(name, sizeof(name), "%s/ws%u", wt->key, i);
			wt->files[i].f = stack_file_get(s, name, b, err);
			if (!wt->files[i].f)
				return err->code;
			wt->files[i].size = b;
			if (p->warm > 0) {
				uint64_t np = (uint64_t)(p->warm * (double)(b >> STACK_PAGE_SHIFT) + 0.5);
				rc = stack_file_prefill(s, wt->files[i].f, np, (uint32_t)wt->c.uid, err);
				if (rc)
					return rc;
			}
		}
		if (p->db_writes > 0) {
			snprintf(name, sizeof(name), "%s/app.db", wt->key);
			wt->db = stack_file_get(s, name, p->db_file_bytes, err);
			if (!wt->db)
				return err->code;
		}
		/* The I/O ops this launch will issue, counted by a dry run of
		 * the generator on a copy of its stream, so that cpu_total is
		 * spread over the actual ops (an estimate from the means left
		 * part of it unspent or overspent) and db writes evenly. */
		wt->pos = UINT64_MAX;
		uint64_t ops = launch_count_io(wt);
		wt->target = ops > 1 ? ops : 1;
		wt->cpu_gap_ns = (int64_t)((double)p->cpu_total_ns / (double)wt->target);
		wt->next_db_at = wt->target / (uint64_t)(p->db_writes + 1);
		if (p->variation > 0) {
			snprintf(name, sizeof(name), "workload.%s.launch%lld", wt->key,
				 (long long)p->launch_no);
			wt->var_rng = sim_rng(ws->sim, name);
		}
		break;
	}
	case GEN_APP:
	case GEN_RECORDED:
		break; /* app_launch_create, rec_launch_create read their keys */
	case GEN_COPY: {
		rc = cfg_apply(copy_params, n, &wt->p.cp, err);
		if (rc)
			return rc;
		struct copy_p *p = &wt->p.cp;
		wt->nfiles = (uint32_t)(2 * p->files);
		wt->files = calloc(wt->nfiles, sizeof(*wt->files));
		if (!wt->files)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		for (uint32_t i = 0; i < (uint32_t)p->files; i++) {
			snprintf(name, sizeof(name), "%s/src/f%u", wt->key, i);
			wt->files[2 * i].f = stack_file_get(s, name, p->file_bytes, err);
			snprintf(name, sizeof(name), "%s/dst/f%u", wt->key, i);
			wt->files[2 * i + 1].f = stack_file_get(s, name, 0, err);
			if (!wt->files[2 * i].f || !wt->files[2 * i + 1].f)
				return err->code;
			if (p->warm > 0) {
				uint64_t np = (uint64_t)(p->warm * (double)((p->file_bytes + STACK_PAGE_SIZE - 1) >> STACK_PAGE_SHIFT) + 0.5);
				rc = stack_file_prefill(s, wt->files[2 * i].f, np, (uint32_t)wt->c.uid, err);
				if (rc)
					return rc;
			}
		}
		break;
	}
	case GEN_KBUILD:
		rc = cfg_apply(kbuild_params, n, &wt->p.k, err);
		if (rc)
			return rc;
		return kbuild_create(s, wt->key, &wt->p.k, wt->rng, &wt->kb, err);
	case GEN_BURST: {
		rc = cfg_apply(burst_params, n, &wt->p.b, err);
		if (rc)
			return rc;
		wt->nfiles = (uint32_t)wt->p.b.shots;
		wt->files = calloc(wt->nfiles, sizeof(*wt->files));
		if (!wt->files)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		for (uint32_t i = 0; i < wt->nfiles; i++) {
			snprintf(name, sizeof(name), "%s/IMG_%04u.jpg", wt->key, i);
			wt->files[i].f = stack_file_get(s, name, 0, err);
			if (!wt->files[i].f)
				return err->code;
		}
		break;
	}
	}
	return 0;
}

/* A task's common keys; `start` may be a time or a distribution. A random
 * start is drawn later, per instance, from its own stream (task_create_one)
 * so that moving the launch's phase does not change what the launch does. */
static int task_common_apply(struct cfg_node *c, struct task_common *tc, struct sim_error *err)
{
	int rc = cfg_apply(common_params, c, tc, err);
	if (rc)
		return rc;
	tc->start_random = false;
	tc->start_hi_ns = 0;
	struct cfg_node *sn = cfg_get(c, "start");
	if (!sn || sn->kind == CFG_SCALAR)
		return cfg_apply(start_param, c, tc, err);
	struct cfg_node *u = sn->kind == CFG_MAP ? cfg_get(sn, "uniform") : NULL;
	if (!u || sn->child->next || u->kind != CFG_SEQ || !u->child || !u->child->next ||
	    u->child->next->next || u->child->kind != CFG_SCALAR ||
	    u->child->next->kind != CFG_SCALAR)
		return cfg_errorf(err, sn, "expected a time or {uniform: [LO, HI]}");
	int64_t v[2];
	struct cfg_node *x = u->child;
	for (int i = 0; i < 2; i++, x = x->next) {
		if (cfg_parse_time_ns(x->value, "s", &v[i], err)) {
			char msg[sizeof(err->msg)];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			return cfg_errorf(err, x, "%s", msg);
		}
		if (v[i] < 0 || v[i] > (int64_t)1e15)
			return cfg_errorf(err, x, "expected a time in [0, 1e6 s]");
	}
	if (v[1] < v[0])
		return cfg_errorf(err, u, "uniform: HI is below LO");
	cfg_mark_used(sn, true);
	tc->start_ns = v[0];
	tc->start_hi_ns = v[1];
	tc->start_random = v[1] > v[0];
	return 0;
}

/* Instance k of copies of the task described by map c (common keys
 * already applied into tc). */
static int task_create_one(struct wl_state *ws, struct cfg_node *c, const struct task_common *tc,
			   int64_t k, int64_t copies, struct sim_error *err)
{
	struct sim *sim = ws->sim;
	cfg_mark_used(c, false);
	struct wl_task *wt = &ws->tasks[ws->ntasks++];
	wt->ws = ws;
	char kbuf[300];
	if (copies > 1)
		snprintf(kbuf, sizeof(kbuf), "%s%02lld", c->key, (long long)k + 1);
	else
		snprintf(kbuf, sizeof(kbuf), "%s", c->key);
	wt->key = strdup(kbuf);
	if (!wt->key)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	wt->c = *tc;
	if (copies > 1) {
		if (wt->c.uid != 0)
			wt->c.uid += k;
		if (wt->c.pid != 0)
			wt->c.pid += k;
		wt->c.start_ns += k * wt->c.stagger_ns;
		wt->c.name = "";
	}
	char rname[300];
	if (wt->c.start_random) {
		snprintf(rname, sizeof(rname), "workload.%s.start", wt->key);
		gsl_rng *sr = sim_rng(sim, rname);
		double span = (double)(wt->c.start_hi_ns - wt->c.start_ns);
		wt->c.start_ns += (int64_t)(gsl_rng_uniform(sr) * span);
	}
	wt->c.start_ns += ws->offset_ns;
	snprintf(rname, sizeof(rname), "workload.%s", wt->key);
	wt->rng = sim_rng_fixed(sim, wt->c.app_seed, rname, &wt->app_rngs);
	if (!wt->rng)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	if (!wt->c.enabled) {
		/* consume its keys so that a disabled task is not "unknown" */
		cfg_mark_used(c, true);
		return 0;
	}
	int rc = task_setup(ws, wt, c, err);
	if (rc)
		return rc;
	struct stack_task_attr a = {
		.name = wt->c.name[0] ? wt->c.name : wt->key,
		.pid = (int32_t)wt->c.pid,
		.uid = (uint32_t)wt->c.uid,
		.ioprio_class = (uint8_t)wt->c.ioprio_class,
		.ioprio_level = (uint8_t)wt->c.ioprio_level,
	};
	if (wt->c.gen == GEN_APP) {
		struct app_launch_id id = {
			.key = wt->key,
			.comm = wt->c.name,
			.uid = (uint32_t)wt->c.uid,
			.pid = (int32_t)wt->c.pid,
			.ioprio_class = (uint8_t)wt->c.ioprio_class,
			.ioprio_level = (uint8_t)wt->c.ioprio_level,
			.region = wt->c.region,
			.become_fg = wt->c.become_fg,
		};
		rc = app_launch_create(sim, ws->stack, c, &id, wt->rng, &wt->app, err);
		if (rc)
			return rc;
		wt->t = app_launch_main(wt->app);
		return 0;
	}
	if (wt->c.gen == GEN_RECORDED) {
		struct app_launch_id id = {
			.key = wt->key,
			.comm = wt->c.name,
			.uid = (uint32_t)wt->c.uid,
			.pid = (int32_t)wt->c.pid,
			.ioprio_class = (uint8_t)wt->c.ioprio_class,
			.ioprio_level = (uint8_t)wt->c.ioprio_level,
			.region = wt->c.region,
			.become_fg = wt->c.become_fg,
		};
		rc = rec_launch_create(sim, ws->stack, c, &id, &wt->rl, err);
		if (rc)
			return rc;
		wt->t = rec_launch_main(wt->rl);
		return 0;
	}
	struct stack_op_source src = { .next = wl_next, .exited = wl_exited, .ctx = wt };
	wt->t = stack_task_create(ws->stack, &a, &src, err);
	if (!wt->t)
		return err->code;
	return 0;
}

static const struct cfg_param wl_params[] = {
	{ "offset", CFG_T_TIME, offsetof(struct wl_state, offset_ns), "s", "0", 0, 1e6, "scenario",
	  "move every task's start by this much (a source's place in a composite workload)",
	  NULL },
	CFG_PARAM_END,
};

static void wl_destroy(void *state);

static int wl_create(struct sim *sim, struct cfg_node *node, void **state, struct sim_error *err)
{
	*state = NULL;
	if (!sim->stack)
		return cfg_errorf(err, node, "the synthetic workload needs the upper stack");
	struct wl_state *ws = calloc(1, sizeof(*ws));
	if (!ws)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	ws->sim = sim;
	ws->stack = sim->stack;
	/* each task issues its next op when the previous one completed */
	sim->replay = "closed";
	*state = ws;
	cfg_mark_used(node, false);
	(void)cfg_get_str(node, "type");
	int rc0 = cfg_apply(wl_params, node, ws, err);
	if (rc0)
		return rc0;
	struct cfg_node *tasks = cfg_get(node, "tasks");
	if (!tasks || tasks->kind != CFG_MAP || !tasks->child)
		return cfg_errorf(err, tasks ? tasks : node,
				  "expected `tasks:`, a map of task name -> {gen: ..., ...}");
	cfg_mark_used(tasks, false);
	uint32_t n = 0;
	for (struct cfg_node *c = tasks->child; c; c = c->next) {
		if (c->kind != CFG_MAP)
			return cfg_errorf(err, c, "expected a map {gen: ..., ...}");
		struct task_common tc;
		int rc = task_common_apply(c, &tc, err);
		if (rc)
			return rc;
		n += tc.enabled ? (uint32_t)tc.copies : 1;
	}
	ws->tasks = calloc(n, sizeof(*ws->tasks));
	if (!ws->tasks)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	for (struct cfg_node *c = tasks->child; c; c = c->next) {
		struct task_common tc;
		int rc = task_common_apply(c, &tc, err);
		if (rc)
			return rc;
		int64_t copies = tc.enabled ? tc.copies : 1;
		for (int64_t k = 0; k < copies; k++) {
			rc = task_create_one(ws, c, &tc, k, copies, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Launch planners (prefetch, padding: models/policies/policy.h) hear of every app
 * launch before its first op, with the launch region's name. */
/* A launch a planner policy hears of (with its start) at t = 0. */
static bool planned_launch(const struct sim *sim, const struct wl_task *wt)
{
	return (wt->c.gen == GEN_LAUNCH || wt->c.gen == GEN_APP || wt->c.gen == GEN_RECORDED) &&
	       policy_set_has_planner(sim->policies);
}

static void wl_start(struct sim *sim, void *state)
{
	struct wl_state *ws = state;
	for (uint32_t i = 0; i < ws->ntasks; i++) {
		struct wl_task *wt = &ws->tasks[i];
		if (!wt->t)
			continue;
		if (wt->held) {
			wt->held_seq = sim_reserve_seq(sim);
			continue;
		}
		if (planned_launch(sim, wt)) {
			struct policy_app app = {
				.task = wt->t,
				.name = stack_task_name(wt->t),
				.region = wt->c.region && wt->c.region[0] ? wt->c.region : NULL,
				.uid = (uint32_t)wt->c.uid,
				.start_ns = wt->c.start_ns,
			};
			struct sim_error err;
			sim_error_clear(&err);
			if (policy_set_before_launch(sim->policies, &app, &err))
				sim_fail(sim, err.code, "%s", err.msg);
		}
		if (wt->app)
			app_launch_start(wt->app, wt->c.start_ns);
		else if (wt->rl)
			rec_launch_start(wt->rl, wt->c.start_ns);
		else
			stack_task_start(wt->t, wt->c.start_ns);
	}
}

/* ------------------------------------------------- fork at a phase */

static struct wl_task *task_by_key(struct wl_state *ws, const char *key)
{
	for (uint32_t i = 0; i < ws->ntasks; i++)
		if (!strcmp(ws->tasks[i].key, key))
			return &ws->tasks[i];
	return NULL;
}

static int wl_hold(struct sim *sim, void *state, const char *task, struct sim_error *err)
{
	struct wl_task *wt = task_by_key(state, task);
	if (!wt)
		return sim_errorf(err, SIM_E_INPUT,
				  "no task '%s' (a task with copies has its instances' names)", task);
	if (!wt->t)
		return sim_errorf(err, SIM_E_INPUT, "task '%s' is disabled", task);
	if (wt->c.start_random)
		return sim_errorf(err, SIM_E_INPUT,
				  "task '%s' has a random start, drawn per seed at set-up", task);
	if (planned_launch(sim, wt))
		return sim_errorf(err, SIM_E_INPUT,
				  "a launch planner hears of task '%s' (and its start) at t = 0", task);
	wt->held = true;
	return 0;
}

static int wl_held_start(struct sim *sim, void *state, const char *task, const char *value,
			 int64_t *at_ns, struct sim_error *err)
{
	struct wl_state *ws = state;
	(void)sim;
	(void)task;
	int64_t v;
	if (cfg_parse_time_ns(value, "s", &v, err))
		return err->code;
	if (v < 0 || v > (int64_t)1e15)
		return sim_errorf(err, SIM_E_INPUT, "'%s': expected a time in [0, 1e6 s]", value);
	*at_ns = v + ws->offset_ns;
	return 0;
}

static bool wl_release(struct sim *sim, void *state, const char *task, int64_t at_ns)
{
	struct wl_task *wt = task_by_key(state, task);
	if (!wt || !wt->held)
		return false;
	wt->held = false;
	wt->c.start_ns = at_ns;
	uint32_t used = sim->reserved_used;
	uint64_t seq = sim->engine.next_seq; /* another event would take a new number */
	sim_at_reserved(sim, wt->held_seq);
	if (wt->app)
		app_launch_start(wt->app, at_ns);
	else if (wt->rl)
		rec_launch_start(wt->rl, at_ns);
	else
		stack_task_start(wt->t, at_ns);
	bool one = !sim->at_reserved && sim->reserved_used == used + 1 &&
		   sim->engine.next_seq == seq;
	sim->at_reserved = false;
	return one;
}

static bool task_done(const struct wl_task *wt)
{
	if (wt->app)
		return app_launch_done(wt->app);
	if (wt->rl)
		return rec_launch_done(wt->rl);
	return !wt->t || stack_task_exited(wt->t);
}

static bool wl_done(struct sim *sim, void *state)
{
	struct wl_state *ws = state;
	(void)sim;
	for (uint32_t i = 0; i < ws->ntasks; i++)
		if (!task_done(&ws->tasks[i]))
			return false;
	return true;
}

static int wl_fg_count(struct sim *sim, void *state)
{
	struct wl_state *ws = state;
	(void)sim;
	int n = 0;
	for (uint32_t i = 0; i < ws->ntasks; i++) {
		struct wl_task *wt = &ws->tasks[i];
		wt->fg = wt->t && wt->c.uid != 0 &&
			 (wt->c.become_fg || stack_uid_named_fg(ws->stack, (uint32_t)wt->c.uid));
		n += wt->fg;
	}
	return n;
}

/* run.stop: fg_done: the launch (every foreground task, with all of an
 * app's threads) is over, whatever the background tasks still do. */
static bool wl_fg_done(struct sim *sim, void *state)
{
	struct wl_state *ws = state;
	(void)sim;
	for (uint32_t i = 0; i < ws->ntasks; i++)
		if (ws->tasks[i].fg && !task_done(&ws->tasks[i]))
			return false;
	return true;
}

static void wl_stats_json(struct sim *sim, void *state, struct json_t *obj)
{
	struct wl_state *ws = state;
	(void)sim;
	json_t *arr = json_array();
	for (uint32_t i = 0; i < ws->ntasks; i++) {
		struct wl_task *wt = &ws->tasks[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(wt->key));
		json_object_set_new(o, "gen", json_string(gen_names[wt->c.gen]));
		json_object_set_new(o, "enabled", json_boolean(wt->c.enabled));
		json_object_set_new(o, "uid", json_integer(wt->c.uid));
		if (wt->t) {
			json_object_set_new(o, "pid", json_integer(stack_task_pid(wt->t)));
			json_object_set_new(o, "start_ns", json_integer(wt->c.start_ns));
			json_object_set_new(o, "ops", json_integer((json_int_t)wt->ops));
		}
		if (wt->app)
			app_launch_stats_json(wt->app, o);
		if (wt->rl)
			rec_launch_stats_json(wt->rl, o);
		json_array_append_new(arr, o);
	}
	json_object_set_new(obj, "tasks", arr);
}

static void wl_destroy(void *state)
{
	struct wl_state *ws = state;
	if (!ws)
		return;
	for (uint32_t i = 0; i < ws->ntasks; i++) {
		free(ws->tasks[i].key);
		free(ws->tasks[i].files);
		kbuild_free(ws->tasks[i].kb);
		sim_rng_set_free(ws->tasks[i].app_rngs);
		app_launch_destroy(ws->tasks[i].app);
		rec_launch_destroy(ws->tasks[i].rl);
	}
	free(ws->tasks);
	free(ws);
}

const struct workload_ops synthetic_workload_ops = {
	.name = "synthetic",
	.summary = "YAML task list: writer, video, reader, launch, burst, app, kbuild, recorded generators",
	.create = wl_create,
	.start = wl_start,
	.done = wl_done,
	.fg_count = wl_fg_count,
	.fg_done = wl_fg_done,
	.hold = wl_hold,
	.held_start = wl_held_start,
	.release = wl_release,
	.stats_json = wl_stats_json,
	.destroy = wl_destroy,
	.needs_block = true,
	.needs_stack = true,
};
