/* Set-up shared by the two replay workloads (traces/workloads/replay.c, block
 * traces; traces/workloads/ftrace_replay.c, ftrace text): where the trace file is,
 * the fg_comm process-name patterns and the fg_pid / fg_uid id lists that
 * choose the foreground, and the workload's warnings array; what the ids match stays in each
 * workload: a block trace has pids only and no uid, an ftrace trace has
 * threads of processes and uids.
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

/* Parse the key of wl (absent: nothing), a non-negative integer or a list
 * of them, each at most max, appending to vals[*n] (cap slots in all;
 * vals NULL: only counted). 0, or SIM_E_INPUT at the offending node. */
int rpc_parse_id_list(struct cfg_node *wl, const char *key, int64_t max, int64_t *vals,
		      uint32_t *n, uint32_t cap, struct sim_error *err);

/* Whether comm matches any of the n patterns (fnmatch, no flags). */
bool rpc_comm_matches(const char *const *pats, uint32_t n, const char *comm);

/* Append msg to obj's "warnings" array (created on first use): the
 * workload warnings sim/cli/warnings.c prints and counts. */
struct json_t;
void rpc_json_warning(struct json_t *obj, const char *msg);

/* A replayed source's identity in a scenario that holds several sources
 * (traces/workloads/composite.c): where its first recorded op lands, who
 * is foreground, and pids moved clear of the other sources'. */
enum { RPC_CLASS_AUTO = 0, RPC_CLASS_FG, RPC_CLASS_BG };
extern const char *const rpc_class_names[];
struct rpc_ident {
	int64_t offset_ns;
	int cls;
	int64_t uid;
	int64_t pid_offset;
};
/* Its tunables, for a state struct T holding a struct rpc_ident F; the
 * default uid is given per workload. */
#define RPC_IDENT_PARAMS(T, F, defuid, uidsrc)                                                  \
	{ "offset", CFG_T_TIME, offsetof(T, F.offset_ns), "s", "0", 0, 1e6, "scenario",           \
	  "the trace's first record lands at this simulated time", NULL },                       \
	{ "class", CFG_T_ENUM, offsetof(T, F.cls), "", "auto", CFG_NO_RANGE, "scenario",          \
	  "auto: the fg_* rules decide; fg or bg: every process of this trace", rpc_class_names }, \
	{ "uid", CFG_T_INT, offsetof(T, F.uid), "", defuid, 0, 4294967295.0, uidsrc,             \
	  "uid of the trace's background processes (the trace has none)", NULL },                \
	{ "pid_offset", CFG_T_INT, offsetof(T, F.pid_offset), "", "0", 0, 4194304, "scenario",   \
	  "added to every recorded pid and tid (keeps sources' pids apart)", NULL }

#endif
