/* Set-up shared by the two replay workloads (see replay_common.h): the
 * trace file's path and the foreground's process-name patterns, read
 * from the scenario the same way by traces/workloads/replay.c and
 * traces/workloads/ftrace_replay.c.
 */
#include "traces/workloads/replay_common.h"

const char *const rpc_class_names[] = { "auto", "fg", "bg", NULL };

#include <errno.h>
#include <fnmatch.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

/* A readable file, or the base name of a per-CPU set NAME.blktrace.N
 * (what `trace stat NAME` takes). */
static bool trace_readable(const char *p)
{
	char first[4200];
	if (access(p, R_OK) == 0)
		return true;
	snprintf(first, sizeof(first), "%s.blktrace.0", p);
	return access(first, R_OK) == 0;
}

int rpc_resolve_path(const char *v, const struct cfg_node *node, char *path, size_t size,
		     struct sim_error *err)
{
	snprintf(path, size, "%s", v);
	if (v[0] != '/' && node && node->file && strcmp(node->file, "--set") != 0) {
		/* dirname() may modify its argument: work on a copy */
		char dir[4096], rel[4096];
		snprintf(dir, sizeof(dir), "%s", node->file);
		snprintf(rel, sizeof(rel), "%s/%s", dirname(dir), v);
		if (trace_readable(rel))
			snprintf(path, size, "%s", rel);
	}
	if (!trace_readable(path)) {
		int e = errno;
		return cfg_errorf(err, node, "trace '%s' cannot be read: %s (nor is there a per-CPU "
				  "set '%s.blktrace.N')", path, strerror(e), path);
	}
	return 0;
}

int rpc_parse_fg_comm(struct cfg_node *wl, const char **pats, uint32_t *n, uint32_t cap,
		      struct sim_error *err)
{
	struct cfg_node *fc = cfg_get(wl, "fg_comm");
	if (!fc)
		return 0;
	cfg_mark_used(fc, true);
	if (fc->kind == CFG_SCALAR) {
		if (*n == cap)
			return cfg_errorf(err, fc, "at most %u patterns", cap);
		pats[(*n)++] = fc->value;
	} else if (fc->kind == CFG_SEQ) {
		for (struct cfg_node *c = fc->child; c; c = c->next) {
			if (c->kind != CFG_SCALAR)
				return cfg_errorf(err, c, "expected a process-name pattern");
			if (*n == cap)
				return cfg_errorf(err, c, "at most %u patterns", cap);
			pats[(*n)++] = c->value;
		}
	} else {
		return cfg_errorf(err, fc, "expected a pattern or a list of patterns");
	}
	return 0;
}

int rpc_parse_id_list(struct cfg_node *wl, const char *key, int64_t max, int64_t *vals,
		      uint32_t *n, uint32_t cap, struct sim_error *err)
{
	struct cfg_node *k = cfg_get(wl, key);
	if (!k)
		return 0;
	cfg_mark_used(k, true);
	struct cfg_node *one = k->kind == CFG_SCALAR ? k : k->child;
	for (struct cfg_node *c = one; c; c = k->kind == CFG_SCALAR ? NULL : c->next) {
		int64_t v;
		struct sim_error sub;
		if (c->kind != CFG_SCALAR || cfg_parse_int(c->value, &v, &sub) || v < 0 || v > max)
			return cfg_errorf(err, c, "expected a non-negative integer");
		if (*n == cap)
			return cfg_errorf(err, c, "at most %u %s values", cap, key);
		if (vals)
			vals[*n] = v;
		(*n)++;
	}
	return 0;
}

bool rpc_comm_matches(const char *const *pats, uint32_t n, const char *comm)
{
	for (uint32_t i = 0; i < n; i++)
		if (fnmatch(pats[i], comm, 0) == 0)
			return true;
	return false;
}

void rpc_json_warning(json_t *obj, const char *msg)
{
	json_t *w = json_object_get(obj, "warnings");
	if (!json_is_array(w)) {
		w = json_array();
		json_object_set_new(obj, "warnings", w);
	}
	json_array_append_new(w, json_string(msg));
}
