/* Block-event traces in and out: the common record every reader produces,
 * the reader ops table and its registry, and the blkparse text writer.
 *
 * Formats (one file each in traces/):
 *   blktrace      binary struct blk_io_trace records (blktrace 1.x, kernel
 *                 include/uapi/linux/blktrace_api.h, version 7), one file,
 *                 a per-CPU set NAME.blktrace.N, or a combined `blkparse -d`
 *                 dump;
 *   blkparse      blkparse's default text output (blkparse_fmt.c);
 *   disksim       DiskSim / MQSim / SSDSim ASCII request lists;
 *   ftrace        ftrace text (written separately against this header);
 *   systrace      Android systrace/atrace HTML: the ftrace text inside;
 *   csv, fio, perfetto, tracecmd: request lists, Perfetto, trace.dat.
 *
 * Every reader streams: memory is fixed at open and does not grow with the
 * trace. Errors name the place: "file:LINE: ..." for text, "file: byte
 * offset N: ..." for binary, and return SIM_E_INPUT.
 */
#ifndef TRACES_TRACE_H
#define TRACES_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/error.h"

/* ---- the record ------------------------------------------------------- */

/* Actions: the low 16 bits of blktrace's action word (enum blktrace_act,
 * include/uapi/linux/blktrace_api.h), plus mobisim codes >= 0x100 for
 * notify records that blkparse prints ('m') and for non-block events of
 * readers that carry more than the block layer (ftrace). */
enum trace_action {
	TRACE_A_NONE = 0,
	TRACE_A_QUEUE = 1,        /* Q */
	TRACE_A_BACKMERGE = 2,    /* M */
	TRACE_A_FRONTMERGE = 3,   /* F */
	TRACE_A_GETRQ = 4,        /* G */
	TRACE_A_SLEEPRQ = 5,      /* S */
	TRACE_A_REQUEUE = 6,      /* R */
	TRACE_A_ISSUE = 7,        /* D */
	TRACE_A_COMPLETE = 8,     /* C */
	TRACE_A_PLUG = 9,         /* P */
	TRACE_A_UNPLUG_IO = 10,   /* U */
	TRACE_A_UNPLUG_TIMER = 11,/* T */
	TRACE_A_INSERT = 12,      /* I */
	TRACE_A_SPLIT = 13,       /* X */
	TRACE_A_BOUNCE = 14,      /* B */
	TRACE_A_REMAP = 15,       /* A */
	TRACE_A_ABORT = 16,       /* (no blkparse letter; counted, not printed) */
	TRACE_A_DRV_DATA = 17,    /* (blkparse prints nothing by default) */
	TRACE_A_MESSAGE = 0x100,  /* m: BLK_TN_MESSAGE text, in rec->pdu */
	TRACE_A_NR_BLOCK = 18,    /* bound of the block codes, for per-action tables */
};

/* Data direction as blkparse's rwbs first letter (fill_rwbs): N = no data
 * (bytes == 0 and neither write nor discard). */
enum trace_dir {
	TRACE_DIR_NONE = 0,   /* 'N' */
	TRACE_DIR_READ = 1,   /* 'R' */
	TRACE_DIR_WRITE = 2,  /* 'W' */
	TRACE_DIR_DISCARD = 3,/* 'D' */
};

/* Record kinds: block events (all of the above readers); the ftrace reader
 * may add kinds for syscalls, page cache, scheduling, markers (additively). */
enum trace_rec_kind {
	TRACE_REC_BLOCK = 0,
	/* a file-level event (trace_opts.file_events: Perfetto's android_fs
	 * dataread/datawrite/fsync starts): dir READ, WRITE or NONE (fsync),
	 * pid the task, comm its command line, path/file_off/bytes/file_size/ino */
	TRACE_REC_FILE = 1,
};

/* Extra per-record bits that are not request flags. */
enum trace_rec_tflag {
	TRACE_T_PC = 1u << 0,     /* SCSI passthrough (BLK_TC_PC): pdu holds the CDB */
	TRACE_T_HAS_SEQ = 1u << 1,/* seq comes from the trace (else the writer numbers it) */
	TRACE_T_HAS_UID = 1u << 2,/* uid is the recording's (else unknown) */
	TRACE_T_HAS_TID = 1u << 3,/* tid is the recording's thread; pid is then its process */
	TRACE_T_FG_KNOWN = 1u << 4,/* the recording says whether the process was foreground */
	TRACE_T_FG = 1u << 5,     /* ... and it was (Perfetto: oom_score_adj 0, the top app) */
};

/* Who issued the I/O, as far as a format records it (struct trace_diag's
 * identity, set when the reader opens): a trace without TRACE_ID_COMM
 * cannot be classified by process name, one without TRACE_ID_PID not by
 * pid (its records' pid is 0 or a number the reader gave each name). */
enum trace_identity {
	TRACE_ID_PID = 1u << 0,   /* the recording's process or thread ids */
	TRACE_ID_COMM = 1u << 1,  /* process names */
	TRACE_ID_UID = 1u << 2,   /* user ids (Android: the app) */
	TRACE_ID_TID = 1u << 3,   /* thread ids apart from process ids */
	TRACE_ID_FG = 1u << 4,    /* the recording's own foreground state (TRACE_T_FG_KNOWN) */
};

/* One event. Owned by the reader; every pointer in it stays valid until the
 * next next()/close() on the same reader. */
struct trace_rec {
	uint16_t kind;            /* enum trace_rec_kind */
	uint16_t action;          /* enum trace_action */
	char act;                 /* blkparse letter: Q M F G S R D C P U T I X B A m, or '?' */
	uint8_t dir;              /* enum trace_dir */
	uint16_t tflags;          /* enum trace_rec_tflag */
	uint32_t flags;           /* models/block/request.h REQ_*: WRITE SYNC META FUA FLUSH RAHEAD */

	int64_t time_ns;          /* since the trace's first event (blktrace: as recorded) */
	uint32_t cpu;
	uint32_t seq;             /* per-CPU sequence number (blktrace t->sequence) */
	int32_t pid;              /* blktrace, ftrace: the thread; csv pid=: the process */
	const char *comm;         /* process name, NULL when the trace does not say */
	int32_t tid;              /* thread (TRACE_T_HAS_TID), else 0 */
	uint32_t uid;             /* user id (TRACE_T_HAS_UID), else 0 */

	uint32_t dev_major, dev_minor;
	uint64_t sector;
	uint32_t nr_sectors;
	uint32_t bytes;           /* bytes of the record; drives R vs N like blkparse */
	int32_t error;            /* C/R: completion error (0 = ok) */

	/* A (remap): where the I/O came from. */
	uint32_t from_major, from_minor;
	uint64_t from_sector;
	/* U/T: requests unplugged; X: the split's new sector. */
	uint64_t pdu_u64;

	/* TRACE_REC_FILE: the file ("" when the recording named none), the
	 * byte offset, the file's size then (i_size) and its inode. */
	const char *path;
	uint64_t file_off, file_size, ino;

	/* Raw payload (message text for 'm', CDB for PC, remap struct...), may
	 * be NULL; for 'm' it is not NUL-terminated, use pdu_len. */
	const uint8_t *pdu;
	uint32_t pdu_len;
};

/* blkparse letter of a block action code; '?' if none. */
char trace_action_letter(uint16_t action);
/* Inverse for the letters blkparse prints; TRACE_A_NONE when unknown. */
uint16_t trace_action_from_letter(char c);
/* Write rec's rwbs string (at most 7 chars + NUL) into buf[8], in
 * blkparse's fill_rwbs order: [F]lush, D|W|R|N, [F]ua, [A]head, [S]ync, [M]eta. */
void trace_rwbs(const struct trace_rec *rec, char buf[8]);
/* Parse an rwbs string into rec->dir and rec->flags; returns 0 or -1 if a
 * letter is not one blkparse prints (also accepts E secure, ignored). */
int trace_rwbs_parse(const char *s, size_t len, struct trace_rec *rec);

/* ---- readers ---------------------------------------------------------- */

/* Reader options; NULL means defaults (all zero). */
enum trace_disksim_time {
	TRACE_DISKSIM_AUTO = 0,   /* ns integers -> MQSim ns, type 1=read; else DiskSim ms, flags bit0=read */
	TRACE_DISKSIM_MQSIM_NS,   /* arrival in ns, type 1 = read, 0 = write */
	TRACE_DISKSIM_DISKSIM_MS, /* arrival in ms (float), flags bit 0 = read */
};

/* What a reader met and got past, for warnings and the run's result.
 * Readers fill the first block (lenient recovery, where blkparse is
 * lenient); trace_next() fills the second from the records it hands out. */
#define TRACE_DIAG_NOTES 4
#define TRACE_DIAG_NOTE_LEN 200
/* A forward gap between consecutive events longer than this is reported as
 * a likely clock offset between CPUs (assumption: no recording pauses an
 * hour between two events; a per-CPU clock offset of the kind seen in the
 * field is 10^9 s). */
#define TRACE_CLOCK_JUMP_NS (3600LL * 1000000000LL)
struct trace_diag {
	/* enum trace_identity: what the format records of who issued an I/O;
	 * the reader's ops->identity unless the reader sets identity_set
	 * (csv: what its columns hold) */
	uint32_t identity;
	bool identity_set;
	/* the format (or the columns given) holds queued requests only, never
	 * a D or a C (DiskSim/MQSim ASCII, fio iologs, a CSV without a
	 * response column): nothing can pair, so btt-style tracking is moot */
	bool request_list;
	uint64_t unnamed;           /* csv with a comm column: records with an empty name */
	uint32_t files;             /* files read (1, or the CPU files of a set) */
	char set_base[256];         /* a per-CPU set NAME.blktrace.N: NAME ("" otherwise) */
	/* the recording kernel's release (uname -r) where the format keeps it
	 * (Perfetto SystemInfo.utsname.release), else "" */
	char kernel_release[65];
	uint32_t missing_files;     /* gaps in a per-CPU set NAME.blktrace.N */
	uint32_t truncated_files;   /* files whose last record was cut */
	uint64_t truncated_bytes;   /* bytes of cut records skipped */
	uint64_t wrong_cpu;         /* records in NAME.blktrace.N naming another CPU (dropped) */
	uint64_t events;            /* records returned */
	uint64_t other_events;      /* records of other kinds read and not returned
				     * (ftrace syscalls, scheduling, markers...) */
	uint64_t backwards;         /* records earlier than the one before */
	int64_t max_backwards_ns;
	uint64_t jumps;             /* forward gaps longer than TRACE_CLOCK_JUMP_NS */
	int64_t max_jump_ns;
	int64_t min_ns, max_ns, last_ns;
	uint64_t outside_window;    /* records read and not returned: before --from or after --to */
	/* capture segments (trace_opts.segment): records of earlier segments
	 * skipped, the segments begun so far, and whether reading stopped at
	 * the end of the one asked for (the rest not read) */
	uint64_t outside_segment;
	uint32_t segments;
	bool segment_done;
	/* the process filter (trace_opts.keep, traces/tracefilter.c): requests
	 * (Q events, or D where no Q was seen) kept and dropped by the process
	 * that queued them; events not returned (the dropped requests' own and
	 * other processes' plug, unplug, remap... events); completions of no
	 * request seen queued (their process is unknown: dropped) */
	char filter[200];           /* the rules, "" without a filter */
	uint64_t kept_requests, dropped_requests, filtered_events, unowned_events;
	uint64_t filter_evicted;    /* requests forgotten from the full table, oldest first */
	/* gap cutting (trace_opts.gap): gaps longer than the threshold between
	 * consecutive records handed out, the longest, the time removed by
	 * compressing them, or where the trace was cut (ns after its first
	 * record handed out) */
	uint64_t gaps;
	int64_t gap_removed_ns, max_gap_ns;
	bool gap_cut;
	int64_t gap_cut_at_ns;
	const char *format;         /* the reader's name (set at open) */
	unsigned nnotes;            /* notes kept (first TRACE_DIAG_NOTES) */
	uint64_t notes_total;
	char notes[TRACE_DIAG_NOTES][TRACE_DIAG_NOTE_LEN];
};

/* A time window over a trace (--from/--to): records outside it are read
 * and not returned. A bound is relative to the trace's first record
 * (TRACE_WIN_*_ABS clear) or on the recording's own clock. */
enum {
	TRACE_WIN_FROM = 1u << 0,
	TRACE_WIN_TO = 1u << 1,
	TRACE_WIN_FROM_ABS = 1u << 2,
	TRACE_WIN_TO_ABS = 1u << 3,
};
struct trace_window {
	unsigned flags;
	int64_t from_ns, to_ns;
};
/* Parse "--from"/"--to" text into w: a time ("10s", "250ms": from the first
 * record) or "@TIME" (the recording's clock). to: true for the upper bound.
 * 0 or SIM_E_INPUT naming opt. */
int trace_window_parse(struct trace_window *w, bool to, const char *text, const char *opt,
		       struct sim_error *err);

/* "--segment N" (a capture segment, 1-based) into *seg; 0 or SIM_E_INPUT
 * naming opt. */
int trace_segment_parse(uint32_t *seg, const char *text, const char *opt, struct sim_error *err);

/* Gap cutting (--max-gap, --gap): a gap longer than max_ns between two
 * consecutive records is compressed to max_ns (every later time moves back
 * by the excess) or ends the trace there. */
enum trace_gap_mode { TRACE_GAP_COMPRESS = 0, TRACE_GAP_CUT = 1 };
struct trace_gap {
	int64_t max_ns;             /* 0 = off */
	int mode;                   /* enum trace_gap_mode */
};

struct trace_opts {
	enum trace_disksim_time disksim_time;
	/* records outside this window are read and not returned (diag counts them) */
	struct trace_window window;
	/* process filter (--comm, --pid, --app): only the requests whose Q
	 * matches a rule, with their later events, are returned; NULL = all.
	 * The caller's; it must outlive the reader. */
	const struct trace_fg *keep;
	/* after the window and the filter */
	struct trace_gap gap;
	/* Capture segments: a trace of several recordings joined end to end
	 * (or one paused) is cut wherever consecutive records lie more than
	 * segment_gap_ns apart, forward or back (a reboot restarts the clock);
	 * only segment `segment` (1-based; 0 = the whole trace) is returned, and
	 * relative window bounds count from its first record. segment_gap_ns 0:
	 * gap.max_ns if set, else TRACE_CLOCK_JUMP_NS. */
	uint32_t segment;
	int64_t segment_gap_ns;
	/* Refuse (SIM_E_INPUT with file and offset) what the default reads
	 * past with a warning: a cut last record, a missing CPU file, what the
	 * csv, fio and perfetto readers skip (docs/traces.md). */
	bool strict;
	/* Where readers report (trace_open_auto points it at the reader's own
	 * struct trace_reader.diag when NULL). */
	struct trace_diag *diag;
	/* blkparse text: how many events the reader may hold to put CPUs that
	 * were printed out of time order back in order (0 = the default, 512,
	 * blkparse's own batch; 1 = input order; at most 65536). */
	uint32_t blkparse_reorder_window;
	/* csv: column mapping for text formats the reader does not know
	 * (traces/csvtrace.c, docs/traces.md); NULL = detect MSR/SNIA and
	 * the phone-trace headers. */
	const char *columns;
	/* perfetto: also return android_fs file events as TRACE_REC_FILE
	 * records (the file-level replay, traces/workloads/ftrace_replay.c);
	 * by default they are counted only. */
	bool file_events;
};

/* Bytes given to probe(). */
#define TRACE_PROBE_BYTES 4096

struct trace_reader_ops {
	const char *name;         /* "blktrace", "blkparse", "disksim", ... */
	const char *summary;
	uint32_t identity;        /* enum trace_identity the format records */
	bool cpus;                /* records the CPU of each event (a clock jump may be a CPU's offset) */
	/* buf: the first min(len, TRACE_PROBE_BYTES) bytes of the file.
	 * Returns confidence 0 (not this format) .. 100 (certain). */
	int (*probe)(const uint8_t *buf, size_t len);
	/* Open path. Sets *state. Returns 0, SIM_E_INPUT (bad content),
	 * SIM_E_IO (cannot open) or SIM_E_NOMEM, with err filled. */
	int (*open)(const char *path, const struct trace_opts *opts, void **state,
		    struct sim_error *err);
	/* Same over a caller-owned buffer that must outlive the reader (fuzzing,
	 * tests); name is used in messages. */
	int (*open_mem)(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
			void **state, struct sim_error *err);
	/* Optional: read from an already opened source (standard input, a
	 * pipe, decompressed data) whose first bytes were probed; takes over
	 * src (a struct trace_src of traces/trace_int.h) on success. Readers
	 * without it read regular files only. */
	int (*open_src)(void *src, const struct trace_opts *opts, void **state,
			struct sim_error *err);
	/* Next record: 1 = *rec filled, 0 = end of trace, < 0 = error (err filled;
	 * the reader must not be read again). */
	int (*next)(void *state, struct trace_rec *rec, struct sim_error *err);
	void (*close)(void *state);
	/* Optional: "key: value" lines for `trace stat` on what the reader saw
	 * beyond block records (other events, names) and what it skipped with
	 * a warning. NULL when the reader has nothing to add. */
	void (*report)(void *state, FILE *out);
};

struct trace_filter;
struct trace_reader {
	const struct trace_reader_ops *ops;
	void *state;
	struct trace_diag diag;
	struct trace_window window;
	bool have_t0;
	int64_t t0;                 /* the first record's time: relative bounds start here */
	struct trace_filter *filter;/* opts.keep's per-request state, NULL without */
	struct trace_gap gap;
	bool gap_have, gap_done;
	int64_t gap_first, gap_last, gap_shift; /* recorded times; the shift so far */
	uint32_t segment;           /* opts.segment */
	int64_t segment_gap_ns;     /* resolved threshold */
	bool seg_have;
	int64_t seg_last;           /* the previous record's recorded time */
};

extern const struct trace_reader_ops trace_blktrace_ops;
extern const struct trace_reader_ops trace_blkparse_ops;
extern const struct trace_reader_ops trace_disksim_ops;
extern const struct trace_reader_ops trace_ftrace_ops; /* traces/ftrace.c: block events only */
extern const struct trace_reader_ops trace_csv_ops;      /* traces/csvtrace.c: MSR/SNIA CSV, --columns */
extern const struct trace_reader_ops trace_fio_ops;      /* traces/csvtrace.c: fio iolog v2/v3 */
extern const struct trace_reader_ops trace_perfetto_ops; /* traces/perfetto.c: Perfetto protobuf */
extern const struct trace_reader_ops trace_tracecmd_ops; /* traces/tracecmd.c: trace-cmd trace.dat */
/* Whether this build links libtracecmd; without it the trace.dat reader only
 * checks the file's structure and says how to get the library. */
extern const bool trace_tracecmd_built;
extern const struct trace_reader_ops trace_systrace_ops; /* traces/systrace.c: systrace/atrace HTML */

/* NULL-terminated table of every reader, in probe order. */
const struct trace_reader_ops *const *trace_reader_registry(void);
const struct trace_reader_ops *trace_reader_find(const char *name);

/* Open path with the reader whose probe is most confident about its first
 * bytes (ties: registry order). path may also be the base NAME of a
 * per-CPU set NAME.blktrace.N, "-" for standard input, a pipe, or a gzip,
 * xz or zstd file (detected from content); the start of a stream is probed
 * in the reader's own buffer, never read twice. Returns 0 or a negative
 * code with err ("file: not a known trace format" is SIM_E_INPUT; a
 * missing file is SIM_E_INPUT too: it is bad usage). */
int trace_open_auto(const char *path, const struct trace_opts *opts, struct trace_reader *r,
		    struct sim_error *err);
/* The same with a named reader (format NULL: detect). */
int trace_open_named(const char *path, const char *format, const struct trace_opts *opts,
		     struct trace_reader *r, struct sim_error *err);
/* The same over memory (no per-CPU sets; compressed memory is decompressed). */
int trace_open_mem_auto(const void *buf, size_t len, const char *name, const struct trace_opts *opts,
			struct trace_reader *r, struct sim_error *err);
/* Next record (1), end (0) or an error; also keeps r->diag's time checks. */
int trace_next(struct trace_reader *r, struct trace_rec *rec, struct sim_error *err);
/* What a forward gap of more than TRACE_CLOCK_JUMP_NS may be in a trace of
 * this format: a CPU's clock offset where the format records CPUs, else a
 * pause or traces joined end to end; with the option that deals with it. */
const char *trace_jump_guess(const char *format);
/* Print r->diag's warnings as "mobisim: warning: ..." lines on f (the
 * command-line layer's job; prefix names the input): the reader's, time
 * going backwards, clock jumps, a process filter that kept nothing.
 * Returns how many. */
int trace_diag_print(const struct trace_diag *d, const char *prefix, FILE *f);
void trace_close(struct trace_reader *r);

/* ---- foreground rules -------------------------------------------------- */

/* Which records are the foreground app's, by rule (`--fg`, a replay
 * workload's fg:): "comm=REGEX" (POSIX extended, unanchored: anchor with
 * ^...$ for a whole name), "pid=N", "uid=N", or "recorded" (the
 * recording's own state, TRACE_T_FG); a record is foreground when any
 * rule matches (traces/fgrule.c). */
struct trace_fg;

/* Add one rule, creating *fg on the first. 0 or SIM_E_INPUT ("--fg: ...")
 * / SIM_E_NOMEM. */
int trace_fg_add(struct trace_fg **fg, const char *spec, struct sim_error *err);
/* Whether rec matches a rule (NULL fg: nothing is foreground). */
bool trace_fg_match(const struct trace_fg *fg, const struct trace_rec *rec);
/* The enum trace_identity bits the rules read. */
uint32_t trace_fg_needs(const struct trace_fg *fg);
/* The rules as given, "comm=^com\.whatsapp$ or uid=10123", into buf. */
void trace_fg_describe(const struct trace_fg *fg, char *buf, size_t len);
void trace_fg_free(struct trace_fg *fg);

/* What of need (enum trace_identity) a trace of identity have lacks, in
 * words ("process names, uids"), into buf; false when nothing lacks. */
bool trace_identity_lacks(uint32_t need, uint32_t have, char *buf, size_t len);
/* Why a format has no process identity, for the message that says so
 * (MSR: its Hostname and DiskNumber name the server and disk), or "". */
const char *trace_identity_hint(const char *format);

/* The same rule set for another option: messages name opt ("--comm") and
 * shown (what followed it) instead of "--fg SPEC". */
int trace_rule_add(struct trace_fg **fg, const char *spec, const char *opt, const char *shown,
		   struct sim_error *err);

/* ---- process filters and gap cutting (traces/tracefilter.c) ------------ */

/* Add a process filter, key "comm" (REGEX), "pid" (N) or "app" (PACKAGE),
 * to *keep (the fgrule matcher); opt names it in messages ("--comm",
 * "workload.filter.comm"). 0 or SIM_E_INPUT / SIM_E_NOMEM. */
int trace_keep_add(struct trace_fg **keep, const char *key, const char *value, const char *opt,
		   struct sim_error *err);
/* "--max-gap T" (a time > 0: 10s, 500ms) and "--gap compress|cut" into g.
 * 0 or SIM_E_INPUT naming opt. */
int trace_gap_parse_max(struct trace_gap *g, const char *text, const char *opt, struct sim_error *err);
int trace_gap_parse_mode(struct trace_gap *g, const char *text, const char *opt, struct sim_error *err);
/* Whether the filter of r kept nothing of a trace that had requests (the
 * caller warns, or a replay fails unless lenient). */
bool trace_filter_kept_nothing(const struct trace_diag *d);

/* ---- blkparse text writer --------------------------------------------- */

/* Writes records as Debian's blkparse 1.2.0 prints them by default
 * (`blkparse -i -`): one line per event in the order given, then, at
 * finish, the per-CPU and Total statistics blocks, the Throughput line and
 * the per-device "Events" / "Skips" lines. Memory: per device and CPU
 * counters, bounded by the devices and CPUs seen. */
struct trace_blkparse_writer;

enum trace_blkparse_wflag {
	/* Number events per CPU from 1 instead of printing rec->seq (the
	 * simulator's --trace-out); records with TRACE_T_HAS_SEQ keep theirs. */
	TRACE_BPW_NUMBER_SEQ = 1u << 0,
	/* No summary at finish. */
	TRACE_BPW_NO_SUMMARY = 1u << 1,
};

/* out stays the caller's (not closed). Returns 0 or SIM_E_NOMEM. */
int trace_blkparse_writer_create(FILE *out, uint32_t wflags, struct trace_blkparse_writer **w,
				 struct sim_error *err);
/* Print one event. Returns 0 or SIM_E_IO (write failed). */
int trace_blkparse_writer_event(struct trace_blkparse_writer *w, const struct trace_rec *rec,
				struct sim_error *err);
/* The events come from the per-CPU set NAME.blktrace.0 .. nfiles-1, read
 * as `blkparse -i NAME` reads it (labels, skips and the file list follow). */
void trace_blkparse_writer_set_input(struct trace_blkparse_writer *w, const char *name,
				     uint32_t nfiles);
/* Print the summary (unless TRACE_BPW_NO_SUMMARY) and flush. Returns 0 or SIM_E_IO. */
int trace_blkparse_writer_finish(struct trace_blkparse_writer *w, struct sim_error *err);
void trace_blkparse_writer_destroy(struct trace_blkparse_writer *w);

/* ---- blktrace binary writer ------------------------------------------- */

/* Writes records as struct blk_io_trace v7 (little-endian, one combined
 * stream as `blkparse -d` makes), for btt, blkparse and iowatcher. A
 * BLK_TN_PROCESS notify precedes each named pid's first event; records
 * without TRACE_T_HAS_SEQ are numbered per CPU from 1. out stays the
 * caller's. All return 0 or a negative code with err. */
struct trace_blktrace_writer;
int trace_blktrace_writer_create(FILE *out, struct trace_blktrace_writer **w, struct sim_error *err);
int trace_blktrace_writer_event(struct trace_blktrace_writer *w, const struct trace_rec *rec,
				struct sim_error *err);
int trace_blktrace_writer_finish(struct trace_blktrace_writer *w, struct sim_error *err);
void trace_blktrace_writer_destroy(struct trace_blktrace_writer *w);

#endif
