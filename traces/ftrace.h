/* Streaming reader of ftrace text: the kernel's `trace` / `trace_pipe`
 * files and `trace-cmd report` output, as recorded on Linux 3.10-6.x and
 * Android (atrace/systrace dumps).
 *
 * One line is one event. The reader finds the common prefix in any of the
 * layouts the kernel and trace-cmd print (kernel/trace/trace_output.c,
 * trace_print_context / lat_print_generic):
 *
 *   COMM-PID [CPU] TIMESTAMP: EVENT: BODY                  (no irq-info)
 *   COMM-PID [CPU] FLAGS TIMESTAMP: EVENT: BODY            (4 or 5 flag chars)
 *   COMM-PID (TGID) [CPU] FLAGS TIMESTAMP: EVENT: BODY     (record-tgid; "(-----)" = unknown)
 *
 * COMM may contain spaces and dashes ("shell svc 8572-8573"), the PID is
 * the digits after the last dash before the CPU field. Comment lines
 * ("# ..."), blank lines, trace-cmd headers ("version = 6", "cpus=8",
 * "CPU 3 is empty") and "CPU:N [LOST M EVENTS]" are consumed and counted;
 * any other line that does not have the prefix is an error naming
 * file:line. Events the reader understands are decoded into struct
 * ftrace_rec; every other event is skipped and counted by name.
 *
 * Memory is one line buffer (lines up to FTRACE_LINE_MAX bytes) plus the
 * table of skipped event names (at most FTRACE_MAX_SKIP_NAMES names; more
 * are counted under "(other)"): independent of trace length.
 */
#ifndef TRACES_FTRACE_H
#define TRACES_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/error.h"

#define FTRACE_LINE_MAX (64 * 1024)
#define FTRACE_COMM_MAX 64   /* bytes incl. NUL; the kernel's TASK_COMM_LEN is 16 */
#define FTRACE_NAME_MAX 128  /* marker and writeback names, incl. NUL */
#define FTRACE_MAX_SKIP_NAMES 256

enum ftrace_type {
	FTRACE_NONE = 0,
	FTRACE_BLOCK_RQ_INSERT,     /* blkparse I */
	FTRACE_BLOCK_RQ_ISSUE,      /* blkparse D */
	FTRACE_BLOCK_RQ_COMPLETE,   /* blkparse C */
	FTRACE_BLOCK_BIO_QUEUE,     /* blkparse Q */
	FTRACE_BLOCK_BIO_COMPLETE,  /* blkparse C, bio level */
	FTRACE_BLOCK_PLUG,          /* blkparse P */
	FTRACE_BLOCK_UNPLUG,        /* blkparse U; blk.nr_rq = depth */
	FTRACE_PAGECACHE_ADD,       /* mm_filemap_add_to_page_cache */
	FTRACE_PAGECACHE_DELETE,    /* mm_filemap_delete_from_page_cache */
	FTRACE_WRITEBACK,           /* any writeback_*: wb.name says which */
	FTRACE_SCHED_SWITCH,
	FTRACE_SCHED_WAKEUP,        /* sched_wakeup and sched_wakeup_new */
	FTRACE_SYS_ENTER,           /* sys.nr, sys.call, sys.args */
	FTRACE_SYS_EXIT,            /* sys.nr, sys.call, sys.ret */
	FTRACE_MARK_BEGIN,          /* tracing_mark_write B|pid|name */
	FTRACE_MARK_END,            /* tracing_mark_write E|pid */
	FTRACE_MARK_COUNTER,        /* tracing_mark_write C|pid|name|value */
	FTRACE_MARK_ASYNC_BEGIN,    /* S|pid|name|cookie */
	FTRACE_MARK_ASYNC_END,      /* F|pid|name|cookie */
	FTRACE_NTYPES
};

/* System calls the replay cares about; FTRACE_SYS_OTHER for the rest
 * (still reported, with the raw number). */
enum ftrace_syscall {
	FTRACE_SYS_OTHER = 0,
	FTRACE_SYS_READ,
	FTRACE_SYS_PREAD64,
	FTRACE_SYS_WRITE,
	FTRACE_SYS_PWRITE64,
	FTRACE_SYS_FSYNC,
	FTRACE_SYS_FDATASYNC,
	FTRACE_SYS_OPENAT,
	FTRACE_SYS_CLOSE,
	FTRACE_SYS_MMAP,
	FTRACE_NSYSCALLS
};

/* One decoded event. Strings are copied (truncated to their arrays). */
struct ftrace_rec {
	enum ftrace_type type;
	int64_t time_ns;
	int32_t pid;                 /* of the task that hit the event */
	int32_t tgid;                /* -1 when the layout has no TGID or it is unknown */
	int32_t cpu;
	uint64_t line;               /* 1-based line in the input */
	char comm[FTRACE_COMM_MAX];

	union {
		struct {             /* block_* */
			uint32_t major, minor;
			char rwbs[16];       /* "R", "WS", "FWFS", "RA", ... */
			uint32_t flags;      /* enum req_flag from rwbs */
			uint64_t sector;     /* UINT64_MAX when the event has none (plug) */
			uint32_t nr_sectors;
			uint32_t bytes;      /* rq_insert/issue: bytes of a passthrough rq, else 0 */
			int32_t error;       /* *_complete */
			uint32_t nr_rq;      /* unplug depth */
			char comm[FTRACE_COMM_MAX]; /* [comm] of the submitter, when printed */
		} blk;
		struct {             /* mm_filemap_* */
			uint32_t major, minor;
			uint64_t ino;
			uint64_t pfn;
			uint64_t index;      /* page index in the file (ofs >> 12) */
		} pc;
		struct {             /* writeback_* */
			char name[FTRACE_NAME_MAX]; /* event name without "writeback_" */
			char bdi[32];
			uint64_t ino;        /* 0 when absent */
			uint64_t index;
			int64_t nr_pages;    /* nr_pages= or wrote=, -1 when absent */
			char reason[32];
		} wb;
		struct {             /* sched_switch */
			char prev_comm[FTRACE_COMM_MAX];
			int32_t prev_pid, prev_prio;
			char prev_state[8];
			char next_comm[FTRACE_COMM_MAX];
			int32_t next_pid, next_prio;
		} sw;
		struct {             /* sched_wakeup */
			char comm[FTRACE_COMM_MAX];
			int32_t pid, prio, target_cpu;
		} wake;
		struct {             /* sys_enter / sys_exit */
			int32_t nr;          /* arm64 number; -1 when given by name only */
			enum ftrace_syscall call;
			uint64_t args[6];
			int64_t ret;
		} sys;
		struct {             /* tracing_mark_write */
			int32_t pid;         /* from the marker; the task's pid when absent */
			char name[FTRACE_NAME_MAX];
			int64_t value;       /* counter value or async cookie */
		} mark;
	} u;
};

struct ftrace_skip {
	char name[48];
	uint32_t len;                /* strlen(name) */
	uint64_t count;
};

struct ftrace_stats {
	uint64_t lines;
	uint64_t events;             /* decoded records returned */
	uint64_t by_type[FTRACE_NTYPES];
	uint64_t comments;           /* "#" lines, blank lines, trace-cmd headers */
	uint64_t lost_events;        /* sum of M in CPU:N [LOST M EVENTS] */
	uint64_t lost_markers;       /* number of such lines */
	uint64_t skipped;            /* events of unknown names */
	uint32_t nskip;              /* entries used in skip[] */
	struct ftrace_skip skip[FTRACE_MAX_SKIP_NAMES]; /* in order of first sight */
	uint64_t skipped_other;      /* skipped events whose name did not fit in skip[] */
};

struct ftrace_reader;

/* Open path for reading. Returns 0, SIM_E_IO (cannot open) or SIM_E_NOMEM. */
int ftrace_open(const char *path, struct ftrace_reader **out, struct sim_error *err);
/* Read from an open stream; name is used in messages. The stream is not closed. */
int ftrace_open_stream(FILE *f, const char *name, struct ftrace_reader **out,
		       struct sim_error *err);
/* Read from memory (fuzzing, tests); buf must outlive the reader. */
int ftrace_open_mem(const void *buf, size_t len, const char *name, struct ftrace_reader **out,
		    struct sim_error *err);
void ftrace_close(struct ftrace_reader *r);

/* Next decoded event into *rec. Returns 1 with a record, 0 at end of
 * input, or SIM_E_INPUT ("name:LINE: what", err filled) / SIM_E_IO. After
 * an error the reader stays failed and returns the same code. */
int ftrace_next(struct ftrace_reader *r, struct ftrace_rec *rec, struct sim_error *err);

const struct ftrace_stats *ftrace_get_stats(const struct ftrace_reader *r);

/* Does buf (the first bytes of a file) look like ftrace text? True when the
 * first non-comment line has the ftrace prefix, or the comments are
 * ftrace's ("# tracer:", "#           TASK-PID"). */
bool ftrace_probe(const void *buf, size_t len);

/* Parse one line (without its newline) in isolation, for tests. Returns 1
 * (record), 0 (line consumed without a record: comment, lost marker,
 * unknown event; stats updated) or SIM_E_INPUT. */
int ftrace_parse_line(struct ftrace_reader *r, const char *line, size_t len,
		      struct ftrace_rec *rec, struct sim_error *err);

/* ---- markers as regions ------------------------------------------------ */

/* Pairs atrace markers into regions: B|pid|name ... E|pid (a per-pid stack,
 * nesting as in systrace) and S|pid|name|cookie ... F|pid|name|cookie
 * (async, matched by pid, name and cookie). Memory is bounded: at most
 * FTRACE_REGION_PIDS pids with open slices, FTRACE_REGION_DEPTH nested
 * slices each and FTRACE_REGION_ASYNC open async slices; markers beyond
 * that, and E/F without a begin, are counted in dropped. */
#define FTRACE_REGION_PIDS 1024
#define FTRACE_REGION_DEPTH 32
#define FTRACE_REGION_ASYNC 1024

struct ftrace_region {
	int32_t pid;                 /* the marker's pid (the app's tgid) */
	int32_t tid;                 /* thread that closed it */
	bool async;
	char name[FTRACE_NAME_MAX];
	int64_t start_ns, duration_ns;
};

struct ftrace_regions;

struct ftrace_regions *ftrace_regions_new(void);
void ftrace_regions_free(struct ftrace_regions *t);
/* Feed one record. Returns 1 when it closes a region (then *out is
 * filled), 0 otherwise (non-marker records are ignored). */
int ftrace_regions_feed(struct ftrace_regions *t, const struct ftrace_rec *rec,
			struct ftrace_region *out);
/* Markers that could not be paired or kept (see above). */
uint64_t ftrace_regions_dropped(const struct ftrace_regions *t);
/* Slices still open (begun, not ended). */
uint64_t ftrace_regions_open(const struct ftrace_regions *t);

/* The block events of an ftrace text through the common reader interface
 * (traces/trace.h): Q I D C P U records; everything else is skipped. */
struct trace_reader_ops;
extern const struct trace_reader_ops trace_ftrace_ops;
/* The same reader state over an open stream (not closed by it: systrace
 * HTML's extracted text, traces/systrace.c); next/close through
 * trace_ftrace_ops. */
struct trace_opts;
int ftrace_block_open_stream(FILE *f, const char *name, const struct trace_opts *opts, void **state,
			     struct sim_error *err);
/* The ftrace text inside a systrace/atrace HTML page (traces/systrace.c)
 * as a stdio stream of its own (fclose frees it); a page that is plain,
 * gzip, xz or zstd. A bad page reads as a read error. */
int systrace_text_fopen(const char *path, FILE **out, struct sim_error *err);

/* Names for messages and JSON. */
const char *ftrace_type_name(enum ftrace_type t);
const char *ftrace_syscall_name(enum ftrace_syscall c);
/* arm64 (asm-generic) syscall number -> call, FTRACE_SYS_OTHER if not one of ours. */
enum ftrace_syscall ftrace_syscall_from_nr(int32_t nr);

#endif
