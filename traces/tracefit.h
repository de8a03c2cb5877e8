/* Workload models fitted to block traces (`mobisim workload fit`), after
 * Tarasov et al., "Extracting Flexible, Replayable Models from Large Block
 * Traces", FAST'12: the trace is cut into chunks of time; in every chunk,
 * for every stream (a process, or every process of one name), a feature
 * matrix of what the stream did is kept: I/O count, first and last arrival,
 * reads and writes with their sizes, sync share, sequential share per
 * direction, re-references of a recent request's start and their distance,
 * the jump from the previous request's end, and the inter-arrival times.
 * The model is written as the `model:` map of a replay workload
 * (traces/workloads/fitgen.c turns it back into requests).
 *
 * The same accumulator gives the summary statistics that compare a trace
 * with the run of its model (tfit_stats). Memory: the model (one feature
 * record per stream and chunk, at most keep_nodes' worth: past it the
 * closed chunks are counted, not kept), one open chunk per stream and a
 * footprint of bitmaps per 16 MiB region touched (16 MiB at most); not the
 * trace.
 */
#ifndef TRACES_TRACEFIT_H
#define TRACES_TRACEFIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/error.h"
#include "traces/trace.h"

/* log2 classes: inter-arrival ns, jump sectors, re-reference distance. */
#define TFIT_IAT_BUCKETS 42   /* 0: 0 ns; b: [2^(b-1), 2^b) ns; last: beyond */
#define TFIT_JUMP_BUCKETS 42  /* 0: distance 0; b: [2^(b-1), 2^b) sectors */
#define TFIT_RING 256         /* re-references: the stream's last 256 request starts */
#define TFIT_RDIST_BUCKETS 9  /* b: distance in requests [2^b, 2^(b+1)), 1..256 */
#define TFIT_SIZES 16         /* exact request sizes kept per chunk and direction */
#define TFIT_FOOTPRINT_MAX (1u << 22) /* distinct 4 KiB pages counted */

enum tfit_by { TFIT_BY_PID = 0, TFIT_BY_COMM, TFIT_BY_UID };

#define TFIT_THREADS 16       /* pids kept per stream (by comm or uid) */
struct tfit_thread { int32_t pid; uint64_t count; };

/* A stream's identity: pid, name, uid (has_uid: the recording gave one). */
struct tfit_key {
	int32_t pid;
	const char *comm;
	bool has_uid;
	uint32_t uid;
};

struct tfit_opts {
	int64_t chunk_ns;       /* Tarasov's chunk: 1 s by default */
	enum tfit_by by;
	uint16_t io_action;     /* TRACE_A_QUEUE, or TRACE_A_ISSUE for traces without Q */
	int64_t burst_window_ns;/* window of the index of dispersion (10 ms by default) */
	/* the model kept while it is at most this many YAML nodes (0: no
	 * bound); past it tfit_model_nodes stays exact, tfit_write_model fails */
	uint64_t keep_nodes;
	bool stats_only;        /* no model at all: the statistics of a run */
};

struct tfit_size { uint32_t sectors, count; };

struct tfit_chunk {
	uint32_t idx;            /* which chunk of the trace */
	uint32_t n;              /* requests */
	int64_t first_ns, last_ns; /* arrival of the first and last, from the chunk's start */
	uint32_t dir[2];         /* reads, writes */
	uint32_t sync[2];        /* of those, synchronous */
	uint32_t seq[2];         /* of those, starting where the stream's last one of that direction ended */
	uint32_t reref;          /* not sequential, starting where one of the last TFIT_RING started */
	uint32_t back;           /* jumps backwards */
	uint32_t nsizes[2];
	struct tfit_size sizes[2][TFIT_SIZES];
	uint32_t iat[TFIT_IAT_BUCKETS];
	uint32_t jump[TFIT_JUMP_BUCKETS];
	uint32_t rdist[TFIT_RDIST_BUCKETS];
	/* requests whose completion the trace shows while each was the
	 * stream's latest: queue-to-complete time (log2 ns classes). With the
	 * arrivals this gives the think times (completion to next request) and
	 * which requests overlap their predecessor. */
	uint32_t svc[TFIT_IAT_BUCKETS];
};

/* Summary statistics of a trace (or a run), as `workload fit` compares them. */
struct tfit_stats {
	uint64_t ios, bytes, reads, syncs, seq, reref, streams;
	uint64_t threads;           /* pids over all streams (beyond TFIT_THREADS in one: +1) */
	uint64_t size4k;            /* requests of exactly 4 KiB */
	double duration_s;
	double mean_size_kib[2];    /* reads, writes */
	double iat_mean_s, iat_cv;  /* merged arrival stream */
	double idc;                 /* index of dispersion of counts per burst window */
	double idc_chunk;           /* the same per chunk */
	uint64_t footprint_pages;   /* distinct 4 KiB pages (capped) */
	/* think time: a stream's request after its previous one completed
	 * (think_n, their mean gap from that completion) or before it did */
	uint64_t think_n, think_overlap;
	double think_mean_s;
	bool footprint_capped;
};

struct tfit;

int tfit_create(const struct tfit_opts *o, struct tfit **out, struct sim_error *err);
void tfit_destroy(struct tfit *f);
/* Take one record (only o->io_action records with data count). 0 or SIM_E_NOMEM. */
int tfit_add(struct tfit *f, const struct trace_rec *r, struct sim_error *err);
void tfit_stats(const struct tfit *f, struct tfit_stats *s);
/* Total-variation distance between two fits' request-size distributions
 * (exact sizes, reads and writes apart): 0 same .. 1 disjoint. */
double tfit_size_tvd(const struct tfit *a, const struct tfit *b);
/* Per stream: how many, and the i-th's key, requests and bytes (streams in
 * first-seen order; key->comm points into the fit). */
uint32_t tfit_nstreams(const struct tfit *f);
void tfit_stream_info(const struct tfit *f, uint32_t i, struct tfit_key *key, uint64_t *ios,
		      uint64_t *bytes);
/* The stream the fit's grouping puts key in; -1 if none. */
int tfit_stream_find(const struct tfit *f, const struct tfit_key *key);
/* The uid the fit saw pid issue requests under (the simulated block trace
 * carries none): true and *uid, or false. */
bool tfit_uid_of_pid(const struct tfit *f, int32_t pid, uint32_t *uid);
/* The YAML nodes tfit_write_model writes (the scalars, maps and
 * sequences a reader allocates): what decides whether a model can be read
 * back under the config reader's node limit. */
uint64_t tfit_model_nodes(const struct tfit *f);
/* Write the model as a YAML `model:` map body at indent spaces (the
 * streams and their chunks). Returns 0 or SIM_E_IO. */
int tfit_write_model(const struct tfit *f, FILE *out, int indent, struct sim_error *err);

#endif
