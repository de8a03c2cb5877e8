/* Configuration internals shared by the config files (not part of the public
 * contract in config.h): limits, the document and loader structures, and the
 * helpers one job's file lends another. */
#ifndef SIM_CONFIG_INT_H
#define SIM_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#include "sim/config.h"

/* ----------------------------------------------------------------- types */

#define CFG_MAX_DEPTH 64                 /* nesting levels within one file or value */
#define CFG_MAX_INCLUDE_DEPTH 16         /* include chain length */
#define CFG_MAX_BYTES (16u << 20)        /* bytes of YAML read, over all includes */
#define CFG_MAX_NODES (1u << 20)         /* nodes ever allocated in one doc */
#define CFG_MAX_PATH_STEPS 64            /* steps in a dotted --set / lookup path */
#define CFG_SET_FILE "--set"

struct cfg_file {
	struct cfg_file *next;
	char name[];
};

/* A key some module asked a map for (cfg_get): the valid keys at that path,
 * whether or not the document has them. */
struct cfg_known {
	struct cfg_known *next;
	char key[];
};

struct cfg_doc {
	struct cfg_node *root;
	struct cfg_file *files;   /* interned file names, freed with the doc */
	int nset;                 /* overrides applied so far (line of --set nodes) */
	size_t bytes;             /* YAML bytes read so far */
	size_t nodes;             /* nodes allocated so far */
};

/* Files being loaded, innermost last: detects include cycles. */
struct cfg_incstack {
	const char *real[CFG_MAX_INCLUDE_DEPTH + 1];
	const char *shown[CFG_MAX_INCLUDE_DEPTH + 1];
	int n;
};

struct cfg_loader {
	yaml_parser_t parser;
	struct cfg_doc *doc;
	const char *file;         /* interned */
	int fixed_line;           /* >0: every node gets this line, col 1 (--set values) */
	struct sim_error *err;
};

/* One step of a dotted path "a.b[2].c". */
struct path_step {
	char key[128]; /* "" for an index step */
	long index;
};

/* config.c: the tree */
const char *cfg_doc_intern(struct cfg_doc *doc, const char *name);
void cfg_err_append(struct sim_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *cfg_kind_name(enum cfg_node_kind k);
void cfg_node_append(struct cfg_node *parent, struct cfg_node *c);
int cfg_node_errorf(struct sim_error *err, int code, const struct cfg_node *n, bool at_key,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
struct cfg_node *cfg_node_find(const struct cfg_node *map, const char *key);
void cfg_node_free_one(struct cfg_node *n);
bool cfg_node_is_null(const struct cfg_node *n);
struct cfg_node *cfg_node_new(struct cfg_doc *doc, enum cfg_node_kind kind, const char *file,
			      int line, int col);
void cfg_node_replace(struct cfg_node *old, struct cfg_node *repl);
void cfg_node_unlink(struct cfg_node *c);
int cfg_path_split(const char *s, size_t len, struct path_step *steps, int max, const char **why);
struct cfg_node *cfg_seq_item(const struct cfg_node *seq, long index, long *count);
void cfg_mark_up(struct cfg_node *n);
struct cfg_doc *cfg_doc_new(void);

/* config_yaml.c: reading YAML */
int cfg_parse_text(struct cfg_doc *doc, const char *text, size_t len, const char *file,
		   int fixed_line, bool want_map, struct cfg_node **out, struct sim_error *err);
int cfg_read_file(struct cfg_doc *doc, const char *path, char **text, size_t *len,
		  char *why, size_t why_len);

/* config_include.c: includes and overrides */
int cfg_expand_tree(struct cfg_doc *doc, struct cfg_node *n, struct cfg_incstack *st,
		    struct sim_error *err);

/* config_units.c: units */
bool cfg_unit_known(const struct cfg_param *p);
double cfg_unit_mult(const struct cfg_param *p);

#endif
