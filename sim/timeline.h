/* Timeline of a simulated run in the Chrome/Perfetto trace-event JSON
 * format (the "JSON Array/Object Format" of the Catapult trace-event
 * document, which ui.perfetto.dev and chrome://tracing both import): one
 * track per task with its states as complete ("X") slices, counters ("C")
 * and track names ("M" metadata); or, through a sink, in another format
 * (Perfetto protobuf: sim/cli/timeline_proto.c). Streamed as events happen, so
 * memory grows with the number of tracks and counters, never with the
 * length of the run.
 *
 * Layers call down into this writer through sim->timeline (NULL when the
 * run writes no timeline), so recording costs one pointer test when off.
 */
#ifndef SIM_TIMELINE_H
#define SIM_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct sim_timeline;

/* Start a timeline on f (the caller owns f and closes it after finish). */
struct sim_timeline *sim_timeline_new(FILE *f);

/* What the timeline hands its sink: tracks named, slices as [start, end)
 * after the clip and merge rules (ns: the summed full length, n: how many
 * were merged), counter samples that passed the rate rule. A serial
 * track's slices come in time order; others (regions) nest and come as
 * they end, inner first. The JSON sink is the default;
 * sim/cli/timeline_proto.c writes Perfetto protobuf. */
struct sim_timeline_slice_rec {
	int64_t pid, tid;
	bool serial;
	const char *cat, *name;
	int64_t start_ns, end_ns, ns;
	uint64_t n;
	const char *cls, *arg_name; /* NULL or "": none */
	int64_t arg;
};
struct sim_timeline_sink {
	void (*process)(void *ctx, int64_t pid, const char *name);
	void (*thread)(void *ctx, int64_t pid, int64_t tid, const char *name);
	void (*slice)(void *ctx, const struct sim_timeline_slice_rec *r);
	void (*counter)(void *ctx, int64_t pid, const char *name, int64_t t_ns, double value);
	/* Close the document: 0, or -1 on a write error (errno set). */
	int (*finish)(void *ctx, int64_t end_ns, uint64_t clipped);
	/* NULL, or frees ctx; called when the timeline is freed (after finish or not). */
	void (*free)(void *ctx);
};
/* A timeline that writes through sink (static ops; ctx is the sink's). */
struct sim_timeline *sim_timeline_new_sink(const struct sim_timeline_sink *sink, void *ctx);
/* Flush pending counters, close the JSON document. 0, or -1 on a write error
 * (errno set). Frees tl in both cases. */
int sim_timeline_finish(struct sim_timeline *tl, int64_t end_ns);
void sim_timeline_free(struct sim_timeline *tl);

/* Name a track: pid is the process (group), tid the thread; names are
 * copied. Naming a track again is a no-op. */
void sim_timeline_track(struct sim_timeline *tl, int64_t pid, int64_t tid, const char *process,
			const char *thread);

/* A slice [start, start + dur) named name on track (pid, tid). serial: the
 * track's slices never overlap (a task is in one state at a time); a
 * slice that starts before the previous one ended is shown from that end
 * (its full length stays in args.ns). Otherwise slices must nest, as
 * regions do. Back-to-back slices of one name on a serial track are written
 * as one (args.n counts them). cls is "fg", "bg" or NULL and must outlive
 * the timeline (a static name); arg_* is one optional extra
 * integer argument (arg_name NULL: none). */
void sim_timeline_slice(struct sim_timeline *tl, int64_t pid, int64_t tid, const char *cat,
			const char *name, int64_t start_ns, int64_t dur_ns, bool serial,
			const char *cls, const char *arg_name, int64_t arg);

/* Counter name (in process pid's track group) takes value at t. Samples
 * closer than min_interval_ns to the last one written are dropped, except
 * the very last, which is written at finish so the final value shows. */
void sim_timeline_counter(struct sim_timeline *tl, int64_t pid, const char *name, int64_t t_ns,
			  double value, int64_t min_interval_ns);

/* Counts for the result and the tests. */
uint64_t sim_timeline_events(const struct sim_timeline *tl);
uint64_t sim_timeline_clipped(const struct sim_timeline *tl);

/* Track ids used by the built-in producers. Tasks use (tgid, pid) of their
 * io_context; regions of task pid go on tid TIMELINE_REGION_TID(pid). */
#define TIMELINE_PID_DEVICE 0x7fff0001LL
#define TIMELINE_PID_MEMORY 0x7fff0002LL
#define TIMELINE_PID_KERNEL 0x7fff0003LL
#define TIMELINE_REGION_TID(pid) ((int64_t)(pid) + 0x40000000LL)

#endif
