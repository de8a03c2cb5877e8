/* --timeline in Perfetto's native format: a timeline sink (sim/timeline.h)
 * that streams protobuf TracePackets (perfetto's protos/perfetto/trace:
 * trace.proto, trace_packet.proto and the track_event protos) to a FILE, so that
 * ui.perfetto.dev and trace_processor read the same tracks, slices and
 * counters as the trace-event JSON carries, in a fraction of the bytes. */
#ifndef SIM_CLI_TIMELINE_PROTO_H
#define SIM_CLI_TIMELINE_PROTO_H

#include <stdio.h>

struct sim_timeline;

/* A timeline writing Perfetto protobuf to f (the caller owns f and closes it
 * after sim_timeline_finish; finish or sim_timeline_free also frees the
 * writer). NULL when out of memory. */
struct sim_timeline *timeline_proto_new(FILE *f);

#endif
