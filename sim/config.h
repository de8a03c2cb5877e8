/* Configuration: YAML (libyaml) -> a tree of nodes that remember file:line:col,
 * then typed values through declared tunable tables (docs/architecture.md §6).
 *
 * Flow: cfg_load_file() parses a scenario, expanding `include:` (a string or
 * list of paths relative to the including file; keys of the including map
 * override included ones, maps merge recursively); cfg_set() applies
 * `--set a.b.c=value` overrides (creating keys, which are then checked like
 * any other); each module calls cfg_apply() with its parameter table on its
 * map, which fills defaults, parses units, checks ranges and marks the keys
 * it consumed; finally cfg_check_unused() reports the first key nobody
 * consumed as "unknown key". All messages have the form
 *   FILE:LINE:COL: KEY.PATH: what is wrong (expected ...)
 */
#ifndef SIM_CONFIG_H
#define SIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"

struct json_t;

/* ------------------------------------------------------------------ tree */

enum cfg_node_kind { CFG_SCALAR, CFG_MAP, CFG_SEQ };

struct cfg_node {
	enum cfg_node_kind kind;
	char *key;               /* key in the parent map; NULL for seq items and root */
	char *value;             /* scalar text; NULL for maps and sequences */
	struct cfg_node *parent;
	struct cfg_node *child;  /* first child, document order */
	struct cfg_node *next;   /* next sibling */
	const char *file;        /* owned by the document */
	int line, col;           /* 1-based position of the value (or key for --set) */
	bool used;               /* consumed by some module */
	int key_line, key_col;   /* 1-based position of the key; 0 for seq items and root */
	bool quoted;             /* scalar was quoted or tagged !!str: always a string */
	struct cfg_known *known; /* keys modules looked up in this map: the "did you mean" candidates */
};

struct cfg_doc;
struct cfg_known;

/* Parse path (and its includes). On error returns SIM_E_INPUT (or SIM_E_IO
 * when the file cannot be read, message still "path: ...") and *out is NULL. */
int cfg_load_file(const char *path, struct cfg_doc **out, struct sim_error *err);
/* Parse text held in memory; name is used in messages. */
int cfg_load_string(const char *text, size_t len, const char *name, struct cfg_doc **out,
		    struct sim_error *err);
void cfg_free(struct cfg_doc *doc);
struct cfg_node *cfg_root(const struct cfg_doc *doc);

/* Apply "dotted.path=value". Intermediate maps are created; a scalar replaces
 * a map or scalar at that path; a value that is itself YAML flow syntax
 * ("[1, 2]", "{a: 1}") is parsed as YAML. Position of new nodes: file
 * "--set", line = index of the override (1-based), col = 1. */
int cfg_set(struct cfg_doc *doc, const char *assignment, struct sim_error *err);

/* Direct child of a map by key, or NULL (also NULL if map is NULL or not a map). */
struct cfg_node *cfg_get(const struct cfg_node *map, const char *key);
/* Node at a dotted path from node, or NULL. */
struct cfg_node *cfg_lookup(const struct cfg_node *node, const char *dotted);
/* Scalar text of a child, or NULL when absent. Marks it used. */
const char *cfg_get_str(const struct cfg_node *map, const char *key);
/* Dotted path of a node from the root ("device.dies", "workload.tasks[2].name"). */
const char *cfg_node_path(const struct cfg_node *n, char *buf, size_t len);
/* Mark a node (and its subtree) consumed. */
void cfg_mark_used(struct cfg_node *n, bool recursive);

/* Error at a node: "file:line:col: path: <fmt>". Returns SIM_E_INPUT. */
int cfg_errorf(struct sim_error *err, const struct cfg_node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* First node under root (document order) with used == false -> SIM_E_INPUT
 * "unknown key", with the nearest key looked up at that path by edit
 * distance ("did you mean 'slice_idle_us'?") or, when none is near, the keys
 * that are read there. Returns 0 when everything was consumed. */
int cfg_check_unused(const struct cfg_node *root, struct sim_error *err);

/* Edit distance between two keys (insertions, deletions, substitutions and
 * adjacent transpositions each count 1); INT_MAX past 64 characters. */
int cfg_key_distance(const char *a, const char *b);

/* "Did you mean": feed the valid names, then ask for the nearest one that
 * is close enough to be a typo of want (at most one edit per three
 * characters, or want a prefix of it of 3+ characters), else NULL. */
struct cfg_suggest {
	const char *want;
	const char *best;
	int best_d;
};
void cfg_suggest_init(struct cfg_suggest *s, const char *want);
void cfg_suggest_add(struct cfg_suggest *s, const char *cand);
const char *cfg_suggest_best(const struct cfg_suggest *s);
/* " (did you mean 'X'?)" into buf when there is one, else "". */
const char *cfg_suggest_hint(const struct cfg_suggest *s, char *buf, size_t len);

/* Emit the (resolved, override-applied) tree as JSON, scalars typed as
 * integer/real/bool where they parse so, else string. Caller owns. */
struct json_t *cfg_to_json(const struct cfg_node *n);

/* ----------------------------------------------------------------- units */

/* Each returns 0 or SIM_E_INPUT (err->msg says what was expected, without a
 * location; callers prefix it). bare_unit is the unit of a number written
 * without one, e.g. "us" for a key named slice_idle_us ("" or NULL: the base
 * unit ns, B, B/s). Numbers may have a fraction or exponent and a blank
 * before the unit ("1.5s", "8 ms"); time and size round to whole ns/bytes.
 *   time: ns us µs ms s min     (a sign is accepted; cfg_apply rejects < 0
 *                                unless the parameter's min is negative)
 *   size: B KiB MiB GiB TiB, KB kB MB GB TB (decimal), sectors (512 B)
 *   rate: B/s KB/s kB/s MB/s GB/s KiB/s MiB/s GiB/s, bps Kbps Mbps Gbps (bits)
 *   int:  decimal or 0x hex, int64 overflow rejected; double: finite only;
 *   bool: true/false yes/no on/off 1/0, any case. */
int cfg_parse_time_ns(const char *s, const char *bare_unit, int64_t *out, struct sim_error *err);
int cfg_parse_size_bytes(const char *s, const char *bare_unit, uint64_t *out, struct sim_error *err);
int cfg_parse_rate_bps(const char *s, const char *bare_unit, double *out, struct sim_error *err);
int cfg_parse_int(const char *s, int64_t *out, struct sim_error *err);
int cfg_parse_double(const char *s, double *out, struct sim_error *err);
int cfg_parse_bool(const char *s, bool *out, struct sim_error *err);

/* ------------------------------------------------------- tunable tables */

enum cfg_type {
	CFG_T_BOOL,   /* bool */
	CFG_T_INT,    /* int64_t */
	CFG_T_DOUBLE, /* double */
	CFG_T_TIME,   /* int64_t ns; bare numbers in .unit (ns, us, ms, s) */
	CFG_T_SIZE,   /* uint64_t bytes; bare numbers in .unit (B, KiB, MiB, GiB, sectors) */
	CFG_T_RATE,   /* double bytes/s; bare numbers in .unit (B/s, KB/s, MB/s, MiB/s, GB/s) */
	CFG_T_ENUM,   /* int: index into .choices */
	CFG_T_STRING, /* const char *: points into the doc or the static default */
};

struct cfg_param {
	const char *key;            /* YAML key; unit in the name (slice_idle_us) */
	enum cfg_type type;
	size_t offset;              /* offsetof(target struct, field) */
	const char *unit;           /* unit of bare numbers and of min/max; "" if none */
	const char *def;            /* default, written as in YAML; NULL = required */
	double min, max;            /* inclusive range in .unit; min > max disables */
	const char *source;         /* where the default comes from */
	const char *help;           /* one line */
	const char *const *choices; /* CFG_T_ENUM: NULL-terminated */
};

#define CFG_PARAM_END { .key = NULL }
#define CFG_NO_RANGE 1.0, 0.0

/* Set every field of obj from table: the value in map if present (marking
 * it used), else the default. Keys of map not in the table are left unused
 * (cfg_check_unused reports them). Returns 0 or SIM_E_INPUT naming the node
 * (or, for a bad default, the table). map may be NULL: defaults only. */
int cfg_apply(const struct cfg_param *table, struct cfg_node *map, void *obj,
	      struct sim_error *err);

/* Tools that study the tunables (`mobisim sensitivity`) watch cfg_apply: fn
 * is called for every parameter it sets, with the map it read (or the empty
 * `cfq:` node; NULL when the section is absent: defaults only), the value node (NULL: the default), the
 * text applied and its value in the parameter's unit (bools 0/1, enums the
 * index). One observer per process; NULL removes it. */
typedef void (*cfg_apply_observer_fn)(void *ctx, const struct cfg_param *p,
				      const struct cfg_node *map, const struct cfg_node *value,
				      const char *text, double bare);
void cfg_set_apply_observer(cfg_apply_observer_fn fn, void *ctx);

/* Values of obj as a JSON object in the table's units (echo into results). */
struct json_t *cfg_params_to_json(const struct cfg_param *table, const void *obj);

/* One line per parameter: key, unit, default, range, source, help. */
void cfg_params_print(const struct cfg_param *table, const char *prefix, void *file /* FILE * */);

#endif
