/* Set-up shared by the two replay workloads (traces/workloads/replay.c, block
 * traces; traces/workloads/ftrace_replay.c, ftrace text): where the trace file is,
 * and the fg_comm process-name patterns that choose the foreground.
 * The pid and uid rules stay in each workload: a block trace has pids
 * only and no uid, an ftrace trace has threads of processes and uids.
 * Not for use outside traces/.
 */
#ifndef TRACES_REPLAY_COMMON_H
#define TRACES_REPLAY_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/config.h"
#include "sim/error.h"

/* The trace path v as written at node (node may be NULL), into path of
 * size bytes: a relative path written in a scenario file is taken
 * relative to that file when it is readable there, so the bundled
 * scenarios work from any directory; one given with --set, or not found
 * there, is relative to the working directory. 0, or SIM_E_INPUT at node
 * when the result cannot be read. */
int rpc_resolve_path(const char *v, const struct cfg_node *node, char *path, size_t size,
		     struct sim_error *err);

/* Parse the fg_comm key of wl (absent: nothing), a pattern or a list of
 * patterns, appending to pats[*n] (cap slots in all). The patterns point
 * into the document. 0, or SIM_E_INPUT at the offending node. */
int rpc_parse_fg_comm(struct cfg_node *wl, const char **pats, uint32_t *n, uint32_t cap,
		      struct sim_error *err);

/* Whether comm matches any of the n patterns (fnmatch, no flags). */
bool rpc_comm_matches(const char *const *pats, uint32_t n, const char *comm);

#endif
