/* --timeline: the simulated run as a Chrome/Perfetto trace-event JSON file
 * (sim/timeline.h) or a Perfetto protobuf trace (sim/cli/timeline_proto.h),
 * the second for a path ending in .pftrace or .perfetto-trace or with
 * --timeline-format proto: the models feed task, region and memory tracks through
 * sim->timeline; this adapter adds the device's command slots and queue
 * counters from the block layer's trace points and owns the file, which is
 * renamed into place only when the run succeeded. */
#ifndef SIM_CLI_TIMELINE_OUT_H
#define SIM_CLI_TIMELINE_OUT_H

#include "sim/error.h"

struct sim;
struct sim_timeline_out;

enum { TIMELINE_AUTO, TIMELINE_JSON, TIMELINE_PROTO };
/* --timeline-format's value: TIMELINE_JSON or _PROTO, -1 if unknown. */
int sim_timeline_out_format(const char *name);
/* format: TIMELINE_AUTO chooses by the path's extension. */
int sim_timeline_out_open(struct sim *s, const char *path, int format, struct sim_error *err);
/* Close the document and move it into place; 0 or an error. No-op when the
 * run has no timeline. */
int sim_timeline_out_finish(struct sim *s, struct sim_error *err);
void sim_timeline_out_free(struct sim_timeline_out *t);

#endif
