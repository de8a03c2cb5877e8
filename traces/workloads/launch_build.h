/* A launch built from a recorded cold start (the `recorded` generator of
 * the synthetic workload; traces/workloads/rec_launch.c runs it): the
 * app's read requests read from a block trace, grouped into per-thread
 * batches, with the CPU time between I/Os taken from the recording (a
 * thread's next request minus the completion of its previous batch), and
 * optionally varied from launch to launch. Pure: no simulator. */
#ifndef TRACES_WORKLOADS_LAUNCH_BUILD_H
#define TRACES_WORKLOADS_LAUNCH_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "sim/error.h"

struct trace_fg;

/* One recorded request of the app: queued at q_ns (ns from the app's first
 * request), completed at c_ns (-1: no completion seen). */
struct lb_req {
	int32_t tid;
	int64_t q_ns, c_ns;
	uint64_t sector;
	uint32_t nsect;
	bool write;
};

struct lb_thread_rec {
	int32_t tid;
	char comm[64];
};

struct lb_recording {
	struct lb_req *req;             /* in queue order */
	size_t n, cap;
	struct lb_thread_rec *th;       /* in order of first request */
	size_t nth, cap_th;
	uint64_t writes;                /* write requests (not replayed) */
	uint64_t uncompleted;           /* reads without a completion (replayed as async) */
	char src[512];                  /* the trace, for messages */
};

/* Add a request (its thread with comm on its first one). 0 or SIM_E_NOMEM. */
int lb_recording_push(struct lb_recording *r, const struct lb_req *q, const char *comm);
/* Read the requests of the processes sel keeps (traces/tracefilter.c) from
 * the trace at path, pairing each queued request (Q; D where the trace
 * has no Q) with the completion (C) whose range covers it. Times become
 * relative to the first kept request. 0; SIM_E_INPUT with "path:LINE: ..."
 * from the reader, or naming path when no read request was kept or none has
 * a completion (a gap cannot be measured then); SIM_E_NOMEM. */
int lb_read_trace(const char *path, const struct trace_fg *sel, struct lb_recording *r,
		  struct sim_error *err);
void lb_recording_free(struct lb_recording *r);

struct lb_params {
	uint64_t file_gap_bytes;  /* reads closer than this on the disk are one file */
	double file_extra;        /* a file is this much larger than its recorded span */
	double cpu_jitter;        /* every CPU gap scaled by 1 + U(-j, j) per launch */
	double variation;         /* fraction of reads that touch another place of their file */
	int32_t main_tid;         /* the main thread (0: the thread of the first request) */
};

enum lb_kind {
	LB_CPU = 0,   /* ns of computation */
	LB_FETCH,     /* submit the request (fadvise-like, exactly the recorded range) */
	LB_WAIT,      /* read the range: wait for its pages and copy them */
	LB_OPEN,      /* first touch of a file by this thread */
	LB_SPAWN,     /* start thread `arg` */
	LB_JOIN,      /* main: wait for every other thread */
};

struct lb_op {
	uint8_t kind;
	uint32_t file;            /* FETCH WAIT OPEN */
	uint64_t off, len;        /* bytes */
	int64_t ns;               /* CPU */
	uint32_t arg;             /* SPAWN: thread index */
};

struct lb_file {
	uint64_t sector;          /* recorded start */
	uint64_t span_bytes;      /* recorded extent, page-rounded */
	uint64_t size_bytes;      /* the simulated file: span * (1 + file_extra) */
};

struct lb_tplan {
	int32_t tid;
	char comm[64];
	struct lb_op *v;
	size_t n, cap;
	int64_t first_q_ns;       /* its first request in the recording */
	uint64_t reads, read_bytes, batches;
	int64_t cpu_ns;           /* CPU ops in total */
};

struct lb_plan {
	struct lb_file *files;
	size_t nfiles;
	struct lb_tplan *th;      /* th[0] is the main thread */
	size_t nth;
	uint64_t moved;           /* reads the variation moved */
	int64_t span_ns;          /* first request to last completion, recorded */
};

/* Build the per-thread op lists of r. var draws the launch's variation
 * (NULL: none, the recording as it is); draws are made in thread order and
 * then request order, so the same stream gives the same launch. 0,
 * SIM_E_INPUT (main_tid not in the recording, an empty recording) or
 * SIM_E_NOMEM. */
int lb_build(const struct lb_recording *r, const struct lb_params *p, gsl_rng *var,
	     struct lb_plan *out, struct sim_error *err);
/* The same for launch recs[which] of a set of recordings of one app's
 * repeated launches: the files are built from the union of every
 * recording's sectors, so that each launch reads the same files (a launch
 * profile of one applies to the next) and the recordings' own differences
 * are the variation. */
int lb_build_set(const struct lb_recording *const *recs, size_t nrec, size_t which,
		 const struct lb_params *p, gsl_rng *var, struct lb_plan *out,
		 struct sim_error *err);
void lb_plan_free(struct lb_plan *p);

#endif
