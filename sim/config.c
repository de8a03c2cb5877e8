/* Configuration: YAML scenario files -> a tree of cfg_node that remembers
 * file:line:col of every key and value, `include:` expansion, `--set`
 * overrides, typed tunable tables with units, and the "unknown key" check
 * (contract in config.h; docs/architecture.md §6).
 *
 * Parsing uses the libyaml event API, so the tree is built in one pass with
 * bounded recursion. Choices made here (and documented in the messages):
 *  - YAML aliases (*name) are rejected: a scenario is short enough to write
 *    out, and copying aliases is the classic "billion laughs" blow-up.
 *    Anchors alone are accepted and ignored.
 *  - Keys must be non-empty scalars; a duplicate key in one map is an error.
 *  - One document per file; an empty file is an empty map.
 *  - Nesting is bounded (CFG_MAX_DEPTH), as are the bytes read over all
 *    includes and the number of nodes, so hostile input cannot exhaust memory.
 *  - include: a path or a list of paths, relative to the including file.
 *    Later files of a list override earlier ones; the including map's own
 *    keys override all of them; maps merge recursively. The include node is
 *    removed from the tree once expanded (so modules never see it).
 *  - Plain scalars are typed for JSON with the YAML 1.2 core schema
 *    (null, true/false, integers, floats); quoted scalars stay strings.
 */
#include "sim/config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <yaml.h>

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

/* ---------------------------------------------------------------- nodes */

static const char *doc_intern(struct cfg_doc *doc, const char *name)
{
	for (struct cfg_file *f = doc->files; f; f = f->next)
		if (strcmp(f->name, name) == 0)
			return f->name;
	size_t len = strlen(name);
	struct cfg_file *f = malloc(sizeof(*f) + len + 1);
	if (!f)
		return NULL;
	memcpy(f->name, name, len + 1);
	f->next = doc->files;
	doc->files = f;
	return f->name;
}

static struct cfg_node *node_new(struct cfg_doc *doc, enum cfg_node_kind kind, const char *file,
				 int line, int col)
{
	if (doc->nodes >= CFG_MAX_NODES)
		return NULL;
	struct cfg_node *n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	doc->nodes++;
	n->kind = kind;
	n->file = file;
	n->line = line;
	n->col = col;
	return n;
}

static void node_free(struct cfg_node *n)
{
	while (n) {
		struct cfg_node *next = n->next;
		node_free(n->child);
		for (struct cfg_known *k = n->known, *kn; k; k = kn) {
			kn = k->next;
			free(k);
		}
		free(n->key);
		free(n->value);
		free(n);
		n = next;
	}
}

/* Free one node and its subtree, not its siblings. */
static void node_free_one(struct cfg_node *n)
{
	if (n) {
		n->next = NULL;
		node_free(n);
	}
}

static void node_append(struct cfg_node *parent, struct cfg_node *c)
{
	struct cfg_node **pp = &parent->child;
	while (*pp)
		pp = &(*pp)->next;
	c->parent = parent;
	c->next = NULL;
	*pp = c;
}

/* Unlink c from its parent's child list. */
static void node_unlink(struct cfg_node *c)
{
	if (!c->parent)
		return;
	for (struct cfg_node **pp = &c->parent->child; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	c->next = NULL;
	c->parent = NULL;
}

/* Put repl where old is (same parent, same sibling position, same key) and free old. */
static void node_replace(struct cfg_node *old, struct cfg_node *repl)
{
	struct cfg_node *parent = old->parent;
	for (struct cfg_node **pp = &parent->child; *pp; pp = &(*pp)->next) {
		if (*pp == old) {
			*pp = repl;
			break;
		}
	}
	repl->parent = parent;
	repl->next = old->next;
	free(repl->key);
	repl->key = old->key;
	old->key = NULL;
	node_free_one(old);
}

static bool node_is_null(const struct cfg_node *n)
{
	if (!n || n->kind != CFG_SCALAR || n->quoted)
		return false;
	const char *v = n->value ? n->value : "";
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

static const char *kind_name(enum cfg_node_kind k)
{
	return k == CFG_MAP ? "a map" : k == CFG_SEQ ? "a sequence" : "a scalar";
}

/* ------------------------------------------------------------ public tree */

struct cfg_node *cfg_root(const struct cfg_doc *doc)
{
	return doc ? doc->root : NULL;
}

/* Child of map by key without recording the key as known (the loader's
 * merges and --set, which handle the document's own keys). */
static struct cfg_node *node_find(const struct cfg_node *map, const char *key)
{
	if (!map || map->kind != CFG_MAP || !key)
		return NULL;
	for (struct cfg_node *c = map->child; c; c = c->next)
		if (c->key && strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

/* Remember that a module reads key in map; out of memory only loses a hint. */
static void note_known(const struct cfg_node *map, const char *key)
{
	struct cfg_node *m = (struct cfg_node *)map;
	for (const struct cfg_known *k = m->known; k; k = k->next)
		if (strcmp(k->key, key) == 0)
			return;
	size_t len = strlen(key);
	struct cfg_known *k = malloc(sizeof(*k) + len + 1);
	if (!k)
		return;
	memcpy(k->key, key, len + 1);
	k->next = m->known;
	m->known = k;
}

struct cfg_node *cfg_get(const struct cfg_node *map, const char *key)
{
	if (!map || map->kind != CFG_MAP || !key)
		return NULL;
	note_known(map, key);
	return node_find(map, key);
}

static void mark_up(struct cfg_node *n)
{
	for (; n; n = n->parent)
		n->used = true;
}

static void mark_down(struct cfg_node *n)
{
	n->used = true;
	for (struct cfg_node *c = n->child; c; c = c->next)
		mark_down(c);
}

void cfg_mark_used(struct cfg_node *n, bool recursive)
{
	if (!n)
		return;
	mark_up(n);
	if (recursive)
		mark_down(n);
}

const char *cfg_get_str(const struct cfg_node *map, const char *key)
{
	struct cfg_node *n = cfg_get(map, key);
	if (!n || n->kind != CFG_SCALAR)
		return NULL;
	mark_up(n);
	return n->value ? n->value : "";
}

static int seq_index_of(const struct cfg_node *n)
{
	int i = 0;
	for (const struct cfg_node *c = n->parent->child; c && c != n; c = c->next)
		i++;
	return i;
}

/* Append the path of n to buf at *pos (snprintf-style truncation). */
static void path_build(const struct cfg_node *n, char *buf, size_t len, size_t *pos)
{
	if (!n || !n->parent)
		return;
	path_build(n->parent, buf, len, pos);
	int w;
	size_t room = *pos < len ? len - *pos : 0;
	if (n->parent->kind == CFG_SEQ)
		w = snprintf(buf + (*pos < len ? *pos : 0), room, "[%d]", seq_index_of(n));
	else
		w = snprintf(buf + (*pos < len ? *pos : 0), room, "%s%s", *pos ? "." : "",
			     n->key ? n->key : "?");
	if (w > 0)
		*pos += (size_t)w;
}

const char *cfg_node_path(const struct cfg_node *n, char *buf, size_t len)
{
	if (!buf || !len)
		return "";
	buf[0] = '\0';
	size_t pos = 0;
	path_build(n, buf, len, &pos);
	buf[len - 1] = '\0';
	return buf;
}

static int vnode_errorf(struct sim_error *err, int code, const struct cfg_node *n, bool at_key,
			const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));
static int vnode_errorf(struct sim_error *err, int code, const struct cfg_node *n, bool at_key,
			const char *fmt, va_list ap)
{
	if (!err)
		return code;
	char path[256];
	char msg[SIM_ERRMSG_MAX];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!n)
		return sim_errorf(err, code, "%s", msg);
	int line = n->line, col = n->col;
	if (at_key && n->key_line > 0) {
		line = n->key_line;
		col = n->key_col;
	}
	cfg_node_path(n, path, sizeof(path));
	if (path[0])
		return sim_errorf(err, code, "%s:%d:%d: %s: %s", n->file ? n->file : "?", line,
				  col, path, msg);
	return sim_errorf(err, code, "%s:%d:%d: %s", n->file ? n->file : "?", line, col, msg);
}

static int node_errorf(struct sim_error *err, int code, const struct cfg_node *n, bool at_key,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int node_errorf(struct sim_error *err, int code, const struct cfg_node *n, bool at_key,
		       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vnode_errorf(err, code, n, at_key, fmt, ap);
	va_end(ap);
	return r;
}

int cfg_errorf(struct sim_error *err, const struct cfg_node *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vnode_errorf(err, SIM_E_INPUT, n, false, fmt, ap);
	va_end(ap);
	return r;
}

/* Append " (suffix)" to an error message already set, when it fits. */
static void err_append(struct sim_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void err_append(struct sim_error *err, const char *fmt, ...)
{
	if (!err)
		return;
	size_t used = strlen(err->msg);
	if (used + 1 >= sizeof(err->msg))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg + used, sizeof(err->msg) - used, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- parser */

static int loader_oom(struct cfg_loader *ld)
{
	if (ld->doc->nodes >= CFG_MAX_NODES)
		return sim_errorf(ld->err, SIM_E_INPUT, "%s: too many YAML nodes (limit %u)",
				  ld->file, CFG_MAX_NODES);
	return sim_errorf(ld->err, SIM_E_NOMEM, "%s: out of memory", ld->file);
}

static int loader_mark_error(struct cfg_loader *ld, yaml_mark_t m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int loader_mark_error(struct cfg_loader *ld, yaml_mark_t m, const char *fmt, ...)
{
	char msg[SIM_ERRMSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* libyaml marks are 0-based; for a --set value the line is the override's index */
	int line = ld->fixed_line > 0 ? ld->fixed_line : (int)m.line + 1;
	int col = (int)m.column + 1;
	return sim_errorf(ld->err, SIM_E_INPUT, "%s:%d:%d: %s", ld->file, line, col, msg);
}

static int loader_next(struct cfg_loader *ld, yaml_event_t *ev)
{
	if (yaml_parser_parse(&ld->parser, ev))
		return 0;
	yaml_parser_t *p = &ld->parser;
	const char *problem = p->problem ? p->problem : "malformed YAML";
	if (p->error == YAML_MEMORY_ERROR)
		return sim_errorf(ld->err, SIM_E_NOMEM, "%s: out of memory parsing YAML", ld->file);
	if (p->context)
		return loader_mark_error(ld, p->problem_mark,
					 "YAML syntax error: %s (%s at line %d column %d)",
					 problem, p->context, (int)p->context_mark.line + 1,
					 (int)p->context_mark.column + 1);
	if (p->error == YAML_READER_ERROR)
		return sim_errorf(ld->err, SIM_E_INPUT, "%s: byte %zu: YAML syntax error: %s",
				  ld->file, p->problem_offset, problem);
	return loader_mark_error(ld, p->problem_mark, "YAML syntax error: %s", problem);
}

static void loader_pos(const struct cfg_loader *ld, yaml_mark_t m, int *line, int *col)
{
	if (ld->fixed_line > 0) {
		*line = ld->fixed_line;
		*col = 1;
	} else {
		*line = (int)m.line + 1;
		*col = (int)m.column + 1;
	}
}

static int cmp_keyed(const void *a, const void *b)
{
	const struct cfg_node *x = *(struct cfg_node *const *)a, *y = *(struct cfg_node *const *)b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	/* ties: document order, so the later one is reported as the duplicate */
	if (x->key_line != y->key_line)
		return x->key_line < y->key_line ? -1 : 1;
	return x->key_col < y->key_col ? -1 : x->key_col > y->key_col;
}

/* Duplicate keys of one map, in O(n log n) so that huge maps stay cheap. */
static int check_duplicates(struct cfg_loader *ld, struct cfg_node *map)
{
	size_t n = 0;
	for (struct cfg_node *c = map->child; c; c = c->next)
		n++;
	if (n < 2)
		return 0;
	struct cfg_node **v = malloc(n * sizeof(*v));
	if (!v)
		return sim_errorf(ld->err, SIM_E_NOMEM, "%s: out of memory", ld->file);
	size_t i = 0;
	for (struct cfg_node *c = map->child; c; c = c->next)
		v[i++] = c;
	qsort(v, n, sizeof(*v), cmp_keyed);
	int rc = 0;
	for (i = 1; i < n; i++) {
		if (strcmp(v[i - 1]->key, v[i]->key) == 0) {
			rc = node_errorf(ld->err, SIM_E_INPUT, v[i], true,
					 "duplicate key (first at line %d column %d)",
					 v[i - 1]->key_line, v[i - 1]->key_col);
			break;
		}
	}
	free(v);
	return rc;
}

/* Duplicate keys, checked once the tree is whole so messages carry full paths. */
static int check_tree_duplicates(struct cfg_loader *ld, struct cfg_node *n)
{
	if (n->kind == CFG_MAP) {
		int rc = check_duplicates(ld, n);
		if (rc)
			return rc;
	}
	for (struct cfg_node *c = n->child; c; c = c->next) {
		int rc = check_tree_duplicates(ld, c);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_value(struct cfg_loader *ld, yaml_event_t *ev, int depth, struct cfg_node **out);

/* Append c after *tail (the last child of parent so far): O(1) per item, so
 * a long flat list costs linear time. */
static void node_append_tail(struct cfg_node *parent, struct cfg_node **tail, struct cfg_node *c)
{
	c->parent = parent;
	c->next = NULL;
	if (*tail)
		(*tail)->next = c;
	else
		parent->child = c;
	*tail = c;
}

static int parse_map(struct cfg_loader *ld, struct cfg_node *map, int depth)
{
	struct cfg_node *tail = NULL;
	for (;;) {
		yaml_event_t kev;
		int rc = loader_next(ld, &kev);
		if (rc)
			return rc;
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			return 0;
		}
		if (kev.type == YAML_ALIAS_EVENT) {
			rc = loader_mark_error(ld, kev.start_mark,
					       "YAML aliases (*%s) are not supported; write the value out or use include:",
					       (const char *)kev.data.alias.anchor);
			yaml_event_delete(&kev);
			return rc;
		}
		if (kev.type != YAML_SCALAR_EVENT) {
			rc = loader_mark_error(ld, kev.start_mark,
					       "map keys must be scalars, not %s",
					       kev.type == YAML_MAPPING_START_EVENT ? "maps"
										 : "sequences");
			yaml_event_delete(&kev);
			return rc;
		}
		if (kev.data.scalar.length == 0) {
			rc = loader_mark_error(ld, kev.start_mark, "empty map key");
			yaml_event_delete(&kev);
			return rc;
		}
		int kline, kcol;
		loader_pos(ld, kev.start_mark, &kline, &kcol);
		char *key = strndup((const char *)kev.data.scalar.value, kev.data.scalar.length);
		yaml_event_delete(&kev);
		if (!key)
			return loader_oom(ld);

		yaml_event_t vev;
		rc = loader_next(ld, &vev);
		if (rc) {
			free(key);
			return rc;
		}
		struct cfg_node *c = NULL;
		rc = parse_value(ld, &vev, depth + 1, &c);
		if (rc) {
			free(key);
			return rc;
		}
		c->key = key;
		c->key_line = kline;
		c->key_col = kcol;
		node_append_tail(map, &tail, c);
	}
}

static int parse_seq(struct cfg_loader *ld, struct cfg_node *seq, int depth)
{
	struct cfg_node *tail = NULL;
	for (;;) {
		yaml_event_t ev;
		int rc = loader_next(ld, &ev);
		if (rc)
			return rc;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return 0;
		}
		struct cfg_node *c = NULL;
		rc = parse_value(ld, &ev, depth + 1, &c);
		if (rc)
			return rc;
		node_append_tail(seq, &tail, c);
	}
}

/* Build the node for the value whose first event is *ev (consumed here). */
static int parse_value(struct cfg_loader *ld, yaml_event_t *ev, int depth, struct cfg_node **out)
{
	int line, col, rc;
	loader_pos(ld, ev->start_mark, &line, &col);
	*out = NULL;
	if (depth > CFG_MAX_DEPTH) {
		rc = loader_mark_error(ld, ev->start_mark, "nesting deeper than %d levels",
				       CFG_MAX_DEPTH);
		yaml_event_delete(ev);
		return rc;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		struct cfg_node *n = node_new(ld->doc, CFG_SCALAR, ld->file, line, col);
		if (!n) {
			yaml_event_delete(ev);
			return loader_oom(ld);
		}
		n->value = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		const char *tag = (const char *)ev->data.scalar.tag;
		n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
			    (tag && strcmp(tag, YAML_STR_TAG) == 0);
		yaml_event_delete(ev);
		if (!n->value) {
			node_free_one(n);
			return loader_oom(ld);
		}
		*out = n;
		return 0;
	}
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT: {
		bool is_map = ev->type == YAML_MAPPING_START_EVENT;
		yaml_event_delete(ev);
		struct cfg_node *n = node_new(ld->doc, is_map ? CFG_MAP : CFG_SEQ, ld->file, line, col);
		if (!n)
			return loader_oom(ld);
		rc = is_map ? parse_map(ld, n, depth) : parse_seq(ld, n, depth);
		if (rc) {
			node_free_one(n);
			return rc;
		}
		*out = n;
		return 0;
	}
	case YAML_ALIAS_EVENT:
		rc = loader_mark_error(ld, ev->start_mark,
				       "YAML aliases (*%s) are not supported; write the value out or use include:",
				       (const char *)ev->data.alias.anchor);
		yaml_event_delete(ev);
		return rc;
	default:
		rc = loader_mark_error(ld, ev->start_mark, "unexpected YAML event %d", ev->type);
		yaml_event_delete(ev);
		return rc;
	}
}

/* Parse one YAML document from text into *out. Empty stream -> empty map
 * when want_map, else an empty scalar. */
static int parse_text(struct cfg_doc *doc, const char *text, size_t len, const char *file,
		      int fixed_line, bool want_map, struct cfg_node **out, struct sim_error *err)
{
	struct cfg_loader ld = { .doc = doc, .file = file, .fixed_line = fixed_line, .err = err };
	struct cfg_node *root = NULL;
	yaml_event_t ev;
	int rc;

	*out = NULL;
	if (!yaml_parser_initialize(&ld.parser))
		return sim_errorf(err, SIM_E_NOMEM, "%s: out of memory", file);
	yaml_parser_set_input_string(&ld.parser, (const unsigned char *)text, len);

	rc = loader_next(&ld, &ev); /* STREAM-START */
	if (rc)
		goto out;
	yaml_event_delete(&ev);
	rc = loader_next(&ld, &ev);
	if (rc)
		goto out;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		root = node_new(doc, want_map ? CFG_MAP : CFG_SCALAR, file,
				fixed_line > 0 ? fixed_line : 1, 1);
		if (!root || (!want_map && !(root->value = strdup("")))) {
			rc = loader_oom(&ld);
			goto out;
		}
		goto done;
	}
	yaml_event_delete(&ev); /* DOCUMENT-START */
	rc = loader_next(&ld, &ev);
	if (rc)
		goto out;
	yaml_mark_t root_mark = ev.start_mark;
	rc = parse_value(&ld, &ev, 1, &root);
	if (rc)
		goto out;
	rc = loader_next(&ld, &ev); /* DOCUMENT-END */
	if (rc)
		goto out;
	yaml_event_delete(&ev);
	rc = loader_next(&ld, &ev);
	if (rc)
		goto out;
	if (ev.type != YAML_STREAM_END_EVENT) {
		rc = loader_mark_error(&ld, ev.start_mark,
				       "only one YAML document is allowed (found a second one)");
		yaml_event_delete(&ev);
		goto out;
	}
	yaml_event_delete(&ev);
	rc = check_tree_duplicates(&ld, root);
	if (rc)
		goto out;
	if (want_map) {
		if (node_is_null(root)) {
			root->kind = CFG_MAP;
			free(root->value);
			root->value = NULL;
		} else if (root->kind != CFG_MAP) {
			rc = loader_mark_error(&ld, root_mark,
					       "the top level must be a map of keys, not %s",
					       kind_name(root->kind));
			goto out;
		}
	}
done:
	*out = root;
	root = NULL;
out:
	node_free_one(root);
	yaml_parser_delete(&ld.parser);
	return rc;
}

/* -------------------------------------------------------------- includes */

/* Read a regular file of bounded size. *text is malloc'd, NUL-terminated. */
static int read_file(struct cfg_doc *doc, const char *path, char **text, size_t *len,
		     char *why, size_t why_len)
{
	*text = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, why_len, "%s", strerror(errno));
		return SIM_E_IO;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "not a regular file");
		close(fd);
		return SIM_E_IO;
	}
	if ((uint64_t)st.st_size > CFG_MAX_BYTES - doc->bytes) {
		snprintf(why, why_len, "configuration too large (limit %u bytes in all)",
			 CFG_MAX_BYTES);
		close(fd);
		return SIM_E_INPUT;
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		snprintf(why, why_len, "out of memory");
		return SIM_E_NOMEM;
	}
	for (;;) {
		if (n + 1 >= cap) {
			/* grew while we read it: keep going up to the limit */
			if (cap > CFG_MAX_BYTES - doc->bytes) {
				free(buf);
				close(fd);
				snprintf(why, why_len, "configuration too large");
				return SIM_E_INPUT;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				close(fd);
				snprintf(why, why_len, "out of memory");
				return SIM_E_NOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			snprintf(why, why_len, "%s", strerror(errno));
			free(buf);
			close(fd);
			return SIM_E_IO;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	doc->bytes += n;
	*text = buf;
	*len = n;
	return 0;
}

enum merge_mode { MERGE_DST_WINS, MERGE_SRC_WINS };

/* Merge the children of map src into map dst, emptying src. New keys are
 * inserted after *at (or at the head when *at is NULL and use_at), else
 * appended. When both sides have a map under a key, they merge recursively;
 * otherwise the winner's node stays. */
static void merge_maps(struct cfg_node *dst, struct cfg_node *src, enum merge_mode mode,
		       bool use_at, struct cfg_node *at)
{
	struct cfg_node *c;
	while ((c = src->child) != NULL) {
		src->child = c->next;
		c->next = NULL;
		c->parent = NULL;
		struct cfg_node *mine = node_find(dst, c->key);
		if (mine) {
			if (mine->kind == CFG_MAP && c->kind == CFG_MAP) {
				merge_maps(mine, c, mode, false, NULL);
				node_free_one(c);
			} else if (mode == MERGE_SRC_WINS) {
				node_replace(mine, c);
			} else {
				node_free_one(c);
			}
			continue;
		}
		c->parent = dst;
		if (use_at) {
			if (at) {
				c->next = at->next;
				at->next = c;
			} else {
				c->next = dst->child;
				dst->child = c;
			}
			at = c;
		} else {
			node_append(dst, c);
		}
	}
}

static int expand_tree(struct cfg_doc *doc, struct cfg_node *n, struct cfg_incstack *st,
		       struct sim_error *err);

static void dir_of(const char *file, char *out, size_t len)
{
	const char *slash = strrchr(file, '/');
	if (!slash || strcmp(file, CFG_SET_FILE) == 0)
		snprintf(out, len, ".");
	else if (slash == file)
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(slash - file), file);
}

/* Load one included file named by scalar node inc (relative to inc->file),
 * fully expanded, into *out. */
static int load_include(struct cfg_doc *doc, const struct cfg_node *inc, struct cfg_incstack *st,
			struct cfg_node **out, struct sim_error *err)
{
	char path[PATH_MAX], dir[PATH_MAX], why[256];
	*out = NULL;
	if (!inc->value || !*inc->value)
		return node_errorf(err, SIM_E_INPUT, inc, false, "empty include file name");
	if (inc->value[0] == '/') {
		snprintf(path, sizeof(path), "%s", inc->value);
	} else {
		dir_of(inc->file, dir, sizeof(dir));
		if (strcmp(dir, ".") == 0)
			snprintf(path, sizeof(path), "%s", inc->value);
		else if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, inc->value) >= sizeof(path))
			return node_errorf(err, SIM_E_INPUT, inc, false, "include path too long");
	}
	char *real = realpath(path, NULL);
	if (!real)
		return node_errorf(err, SIM_E_INPUT, inc, false, "cannot include '%s': %s", path,
				   strerror(errno));
	for (int i = 0; i < st->n; i++) {
		if (strcmp(st->real[i], real) == 0) {
			char chain[512];
			size_t pos = 0;
			chain[0] = '\0';
			for (int j = i; j < st->n && pos < sizeof(chain); j++) {
				int w = snprintf(chain + pos, sizeof(chain) - pos, "%s -> ",
						 st->shown[j]);
				if (w > 0)
					pos += (size_t)w;
			}
			free(real);
			return node_errorf(err, SIM_E_INPUT, inc, false, "include cycle: %s%s",
					   chain, path);
		}
	}
	if (st->n >= CFG_MAX_INCLUDE_DEPTH) {
		free(real);
		return node_errorf(err, SIM_E_INPUT, inc, false,
				   "includes nested deeper than %d files", CFG_MAX_INCLUDE_DEPTH);
	}
	const char *shown = doc_intern(doc, path);
	if (!shown) {
		free(real);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	char *text;
	size_t len;
	int rc = read_file(doc, path, &text, &len, why, sizeof(why));
	if (rc) {
		free(real);
		return node_errorf(err, rc == SIM_E_NOMEM ? SIM_E_NOMEM : SIM_E_INPUT, inc, false,
				   "cannot include '%s': %s", path, why);
	}
	struct cfg_node *root = NULL;
	rc = parse_text(doc, text, len, shown, 0, true, &root, err);
	free(text);
	if (!rc) {
		st->real[st->n] = real;
		st->shown[st->n] = shown;
		st->n++;
		rc = expand_tree(doc, root, st, err);
		st->n--;
	}
	free(real);
	if (rc) {
		node_free_one(root);
		err_append(err, " (included from %s:%d:%d)", inc->file, inc->line, inc->col);
		return rc;
	}
	*out = root;
	return 0;
}

/* Expand the include node of map (if any): load its files, merge them. */
static int expand_map_include(struct cfg_doc *doc, struct cfg_node *map, struct cfg_incstack *st,
			      struct sim_error *err)
{
	struct cfg_node *inc = node_find(map, "include");
	if (!inc)
		return 0;
	struct cfg_node *combined = node_new(doc, CFG_MAP, inc->file, inc->line, inc->col);
	if (!combined)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = 0;
	if (inc->kind == CFG_SCALAR) {
		struct cfg_node *r;
		rc = load_include(doc, inc, st, &r, err);
		if (!rc) {
			merge_maps(combined, r, MERGE_SRC_WINS, false, NULL);
			node_free_one(r);
		}
	} else if (inc->kind == CFG_SEQ) {
		for (struct cfg_node *c = inc->child; c && !rc; c = c->next) {
			if (c->kind != CFG_SCALAR) {
				rc = cfg_errorf(err, c, "expected a file name, not %s",
						kind_name(c->kind));
				break;
			}
			struct cfg_node *r;
			rc = load_include(doc, c, st, &r, err);
			if (!rc) {
				merge_maps(combined, r, MERGE_SRC_WINS, false, NULL);
				node_free_one(r);
			}
		}
	} else {
		rc = cfg_errorf(err, inc, "expected a file name or a list of file names, not a map");
	}
	if (rc) {
		node_free_one(combined);
		return rc;
	}
	/* included keys take the place of the include key */
	struct cfg_node *before = NULL;
	for (struct cfg_node *c = map->child; c && c != inc; c = c->next)
		before = c;
	node_unlink(inc);
	node_free_one(inc);
	merge_maps(map, combined, MERGE_DST_WINS, true, before);
	node_free_one(combined);
	return 0;
}

/* Expand includes bottom-up, so a map's own include is resolved after its
 * children's and the parent's include cannot override what a child map
 * resolved for itself. */
static int expand_tree(struct cfg_doc *doc, struct cfg_node *n, struct cfg_incstack *st,
		       struct sim_error *err)
{
	if (n->kind == CFG_SCALAR)
		return 0;
	for (struct cfg_node *c = n->child; c; c = c->next) {
		if (n->kind == CFG_MAP && strcmp(c->key, "include") == 0)
			continue;
		int rc = expand_tree(doc, c, st, err);
		if (rc)
			return rc;
	}
	return n->kind == CFG_MAP ? expand_map_include(doc, n, st, err) : 0;
}

/* ------------------------------------------------------------ load, free */

static struct cfg_doc *doc_new(void)
{
	return calloc(1, sizeof(struct cfg_doc));
}

void cfg_free(struct cfg_doc *doc)
{
	if (!doc)
		return;
	node_free_one(doc->root);
	struct cfg_file *f = doc->files;
	while (f) {
		struct cfg_file *next = f->next;
		free(f);
		f = next;
	}
	free(doc);
}

static int load_common(struct cfg_doc *doc, const char *text, size_t len, const char *name,
		       const char *real, struct sim_error *err)
{
	const char *file = doc_intern(doc, name);
	if (!file)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = parse_text(doc, text, len, file, 0, true, &doc->root, err);
	if (rc)
		return rc;
	struct cfg_incstack st = { .n = 0 };
	if (real) {
		st.real[0] = real;
		st.shown[0] = file;
		st.n = 1;
	}
	return expand_tree(doc, doc->root, &st, err);
}

int cfg_load_string(const char *text, size_t len, const char *name, struct cfg_doc **out,
		    struct sim_error *err)
{
	*out = NULL;
	if (!name)
		name = "<string>";
	if (len > CFG_MAX_BYTES)
		return sim_errorf(err, SIM_E_INPUT, "%s: configuration too large (limit %u bytes)",
				  name, CFG_MAX_BYTES);
	struct cfg_doc *doc = doc_new();
	if (!doc)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	doc->bytes = len;
	int rc = load_common(doc, text ? text : "", text ? len : 0, name, NULL, err);
	if (rc) {
		cfg_free(doc);
		return rc;
	}
	*out = doc;
	return 0;
}

int cfg_load_file(const char *path, struct cfg_doc **out, struct sim_error *err)
{
	*out = NULL;
	struct cfg_doc *doc = doc_new();
	if (!doc)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	char why[256], *text = NULL;
	size_t len = 0;
	int rc = read_file(doc, path, &text, &len, why, sizeof(why));
	if (rc) {
		cfg_free(doc);
		return sim_errorf(err, rc, "%s: cannot read: %s", path, why);
	}
	char *real = realpath(path, NULL);
	rc = load_common(doc, text, len, path, real, err);
	free(real);
	free(text);
	if (rc) {
		cfg_free(doc);
		return rc;
	}
	*out = doc;
	return 0;
}

/* ----------------------------------------------------------------- paths */

struct path_step {
	char key[128]; /* "" for an index step */
	long index;
};

/* Split "a.b[2].c" into steps. Returns number of steps or -1 with why set. */
static int path_split(const char *s, size_t len, struct path_step *steps, int max, const char **why)
{
	int n = 0;
	size_t i = 0;
	if (len == 0) {
		*why = "empty key";
		return -1;
	}
	for (;;) {
		size_t start = i;
		while (i < len && s[i] != '.' && s[i] != '[' && s[i] != ']')
			i++;
		if (i == start) {
			*why = "empty key in path";
			return -1;
		}
		if (n >= max) {
			*why = "path too deep";
			return -1;
		}
		if (i - start >= sizeof(steps[n].key)) {
			*why = "key too long";
			return -1;
		}
		memcpy(steps[n].key, s + start, i - start);
		steps[n].key[i - start] = '\0';
		steps[n].index = -1;
		n++;
		while (i < len && s[i] == '[') {
			i++;
			size_t ds = i;
			long v = 0;
			while (i < len && isdigit((unsigned char)s[i])) {
				if (v > 100000000) {
					*why = "index too large";
					return -1;
				}
				v = v * 10 + (s[i] - '0');
				i++;
			}
			if (i == ds || i >= len || s[i] != ']') {
				*why = "expected [INDEX] with a non-negative integer index";
				return -1;
			}
			i++;
			if (n >= max) {
				*why = "path too deep";
				return -1;
			}
			steps[n].key[0] = '\0';
			steps[n].index = v;
			n++;
		}
		if (i == len)
			return n;
		if (s[i] != '.') {
			*why = "expected '.' or '[' after a key";
			return -1;
		}
		i++;
		if (i == len) {
			*why = "empty key at end of path";
			return -1;
		}
	}
}

static struct cfg_node *seq_item(const struct cfg_node *seq, long index, long *count)
{
	long i = 0;
	struct cfg_node *hit = NULL;
	for (struct cfg_node *c = seq->child; c; c = c->next, i++)
		if (i == index)
			hit = c;
	if (count)
		*count = i;
	return hit;
}

struct cfg_node *cfg_lookup(const struct cfg_node *node, const char *dotted)
{
	struct path_step steps[CFG_MAX_PATH_STEPS];
	const char *why;
	if (!node || !dotted)
		return NULL;
	if (!*dotted)
		return (struct cfg_node *)node;
	int n = path_split(dotted, strlen(dotted), steps, CFG_MAX_PATH_STEPS, &why);
	if (n < 0)
		return NULL;
	struct cfg_node *cur = (struct cfg_node *)node;
	for (int i = 0; i < n && cur; i++) {
		if (steps[i].key[0])
			cur = cfg_get(cur, steps[i].key);
		else
			cur = cur->kind == CFG_SEQ ? seq_item(cur, steps[i].index, NULL) : NULL;
	}
	return cur;
}

/* ------------------------------------------------------------------ --set */

static int node_depth(const struct cfg_node *n)
{
	int d = 0;
	for (; n; n = n->parent)
		d++;
	return d;
}

static void set_pos(struct cfg_node *n, int line)
{
	n->file = CFG_SET_FILE;
	n->line = line;
	n->col = 1;
	if (n->key_line)
		n->key_line = line, n->key_col = 1;
	for (struct cfg_node *c = n->child; c; c = c->next)
		set_pos(c, line);
}

static bool has_include(const struct cfg_node *n)
{
	for (const struct cfg_node *c = n->child; c; c = c->next)
		if ((n->kind == CFG_MAP && strcmp(c->key, "include") == 0) || has_include(c))
			return true;
	return false;
}

static char *trim_dup(const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return strndup(s, len);
}

int cfg_set(struct cfg_doc *doc, const char *assignment, struct sim_error *err)
{
	int idx = ++doc->nset;
	const char *file = doc_intern(doc, CFG_SET_FILE);
	if (!file)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	const char *eq = strchr(assignment, '=');
	if (!eq)
		return sim_errorf(err, SIM_E_INPUT, "%s:%d:1: '%s': expected KEY=VALUE", file, idx,
				  assignment);
	char *key = trim_dup(assignment, (size_t)(eq - assignment));
	char *val = trim_dup(eq + 1, strlen(eq + 1));
	struct cfg_node *nv = NULL, *created = NULL; /* created: first map made for the path */
	int rc = 0;
	if (!key || !val) {
		rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
		goto out;
	}
	struct path_step steps[CFG_MAX_PATH_STEPS];
	const char *why = "";
	int n = path_split(key, strlen(key), steps, CFG_MAX_PATH_STEPS, &why);
	if (n < 0) {
		rc = sim_errorf(err, SIM_E_INPUT, "%s:%d:1: '%s': %s (expected KEY.SUB[INDEX]=VALUE)",
				file, idx, key, why);
		goto out;
	}

	/* the new value: YAML when it looks like flow syntax or is quoted */
	if (val[0] && strchr("[{\"'", val[0])) {
		rc = parse_text(doc, val, strlen(val), file, idx, false, &nv, err);
		if (rc)
			goto out;
		set_pos(nv, idx);
	} else {
		nv = node_new(doc, CFG_SCALAR, file, idx, 1);
		if (!nv || !(nv->value = strdup(val))) {
			rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
			goto out;
		}
	}

	struct cfg_node *cur = doc->root;
	for (int i = 0; i < n; i++) {
		bool last = i == n - 1;
		bool want_seq = !last && !steps[i + 1].key[0];
		char shown[256];
		if (steps[i].key[0]) {
			if (cur->kind != CFG_MAP) {
				rc = sim_errorf(err, SIM_E_INPUT,
						"%s:%d:1: %s: cannot set '%s' inside %s (%s:%d:%d)",
						file, idx, key, steps[i].key, kind_name(cur->kind),
						cur->file, cur->line, cur->col);
				goto out;
			}
			struct cfg_node *c = node_find(cur, steps[i].key);
			if (last) {
				nv->key_line = idx;
				nv->key_col = 1;
				if (c) {
					node_replace(c, nv);
				} else {
					nv->key = strdup(steps[i].key);
					if (!nv->key) {
						rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
						goto out;
					}
					node_append(cur, nv);
				}
				cur = nv;
				nv = NULL;
				break;
			}
			if (c && node_is_null(c) && !want_seq) {
				/* `key:` with no value becomes the map we are filling */
				c->kind = CFG_MAP;
				free(c->value);
				c->value = NULL;
				c->file = file;
				c->line = idx;
				c->col = 1;
			}
			if (!c) {
				if (want_seq) {
					rc = sim_errorf(err, SIM_E_INPUT,
							"%s:%d:1: %s: '%s' does not exist, so it has no index [%ld]",
							file, idx, key, steps[i].key, steps[i + 1].index);
					goto out;
				}
				c = node_new(doc, CFG_MAP, file, idx, 1);
				if (!c || !(c->key = strdup(steps[i].key))) {
					node_free_one(c);
					rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
					goto out;
				}
				c->key_line = idx;
				c->key_col = 1;
				node_append(cur, c);
				if (!created)
					created = c;
			} else if (want_seq ? c->kind != CFG_SEQ : c->kind != CFG_MAP) {
				cfg_node_path(c, shown, sizeof(shown));
				/* `scheduler: cfq`, then --set scheduler.cfq.x: a named
				 * module's tunables are its own top-level section */
				char fix[320] = "";
				const char *rest = strstr(key, steps[i + 1].key);
				if (c->kind == CFG_SCALAR && c->value && steps[i + 1].key[0] &&
				    strcmp(c->value, steps[i + 1].key) == 0 && rest)
					snprintf(fix, sizeof(fix), " (%s's tunables are its own top-level "
						 "section: --set %.120s=%.80s)", c->value, rest, val ? val : "");
				rc = sim_errorf(err, SIM_E_INPUT,
						"%s:%d:1: %s: %s is %s (%s:%d:%d), not %s%s", file, idx,
						key, shown, kind_name(c->kind), c->file, c->line,
						c->col, want_seq ? "a sequence" : "a map", fix);
				goto out;
			}
			cur = c;
		} else {
			long count;
			struct cfg_node *c = seq_item(cur, steps[i].index, &count);
			if (last && !c && steps[i].index == count) {
				node_append(cur, nv); /* [len] appends */
				cur = nv;
				nv = NULL;
				break;
			}
			if (!c) {
				cfg_node_path(cur, shown, sizeof(shown));
				rc = sim_errorf(err, SIM_E_INPUT,
						"%s:%d:1: %s: index [%ld] out of range: %s has %ld items",
						file, idx, key, steps[i].index, shown, count);
				goto out;
			}
			if (last) {
				node_replace(c, nv);
				cur = nv;
				nv = NULL;
				break;
			}
			if (want_seq ? c->kind != CFG_SEQ : c->kind != CFG_MAP) {
				cfg_node_path(c, shown, sizeof(shown));
				rc = sim_errorf(err, SIM_E_INPUT,
						"%s:%d:1: %s: %s is %s, not %s", file, idx, key,
						shown, kind_name(c->kind),
						want_seq ? "a sequence" : "a map");
				goto out;
			}
			cur = c;
		}
	}
	if (node_depth(cur) > CFG_MAX_DEPTH * 2) {
		rc = sim_errorf(err, SIM_E_INPUT, "%s:%d:1: %s: nesting too deep", file, idx, key);
		goto out;
	}
	/* `--set x.include=FILE` or a flow value with include: expand now,
	 * relative to the working directory */
	struct cfg_incstack st = { .n = 0 };
	if (cur->key && strcmp(cur->key, "include") == 0 && cur->parent)
		rc = expand_map_include(doc, cur->parent, &st, err);
	else if (has_include(cur))
		rc = expand_tree(doc, cur, &st, err);
out:
	if (rc && created && nv) {
		/* failed before placing the value: drop the maps made for it */
		node_unlink(created);
		node_free_one(created);
	}
	node_free_one(nv);
	free(key);
	free(val);
	return rc;
}

/* ---------------------------------------------------------- unused check */

static bool any_used(const struct cfg_node *n)
{
	if (n->used)
		return true;
	for (const struct cfg_node *c = n->child; c; c = c->next)
		if (any_used(c))
			return true;
	return false;
}

static const struct cfg_node *first_unused(const struct cfg_node *n)
{
	for (const struct cfg_node *c = n->child; c; c = c->next) {
		if (!any_used(c))
			return c;
		const struct cfg_node *u = first_unused(c);
		if (u)
			return u;
	}
	return NULL;
}

/* Optimal string alignment distance (Levenshtein plus adjacent transposition:
 * slice_idel_ms is one edit from slice_idle_ms). Keys are short; longer
 * ones are not compared. */
#define KEY_DIST_MAX 64
int cfg_key_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > KEY_DIST_MAX || lb > KEY_DIST_MAX)
		return INT_MAX;
	int d[KEY_DIST_MAX + 1][KEY_DIST_MAX + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

/* The keys valid beside unknown key u: those modules looked up in its map
 * and its siblings that something read. Calls fn for each, once. */
static void for_each_valid_key(const struct cfg_node *u,
			       void (*fn)(const char *key, void *ctx), void *ctx)
{
	const struct cfg_node *map = u->parent;
	if (!map)
		return;
	for (const struct cfg_known *k = map->known; k; k = k->next)
		fn(k->key, ctx);
	for (const struct cfg_node *c = map->child; c; c = c->next) {
		if (c == u || !c->key || !any_used(c))
			continue;
		bool seen = false;
		for (const struct cfg_known *k = map->known; k && !seen; k = k->next)
			seen = strcmp(k->key, c->key) == 0;
		if (!seen)
			fn(c->key, ctx);
	}
}

void cfg_suggest_init(struct cfg_suggest *s, const char *want)
{
	s->want = want ? want : "";
	s->best = NULL;
	s->best_d = INT_MAX;
}

void cfg_suggest_add(struct cfg_suggest *s, const char *cand)
{
	if (!cand || strcmp(cand, s->want) == 0)
		return;
	size_t wl = strlen(s->want);
	int d = cfg_key_distance(s->want, cand);
	/* a prefix (samsung for samsung-exynos7420) counts as one edit */
	if (wl >= 3 && strncmp(cand, s->want, wl) == 0 && d > 1)
		d = 1;
	if (d < s->best_d || (d == s->best_d && s->best && strcmp(cand, s->best) < 0)) {
		s->best_d = d;
		s->best = cand;
	}
}

const char *cfg_suggest_best(const struct cfg_suggest *s)
{
	int allowed = (int)strlen(s->want) / 3;
	if (allowed < 1)
		allowed = 1;
	return s->best && s->best_d <= allowed ? s->best : NULL;
}

const char *cfg_suggest_hint(const struct cfg_suggest *s, char *buf, size_t len)
{
	const char *b = cfg_suggest_best(s);
	if (b)
		snprintf(buf, len, " (did you mean '%s'?)", b);
	else if (len)
		buf[0] = '\0';
	return buf;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void near_visit(const char *key, void *ctx)
{
	if (strcmp(key, "include") != 0)
		cfg_suggest_add(ctx, key);
}

struct key_bag {
	const char *skip;
	const char *v[256];
	size_t n;
};

static void bag_visit(const char *key, void *ctx)
{
	struct key_bag *b = ctx;
	if (strcmp(key, b->skip) != 0 && strcmp(key, "include") != 0 &&
	    b->n < sizeof(b->v) / sizeof(b->v[0]))
		b->v[b->n++] = key;
}

/* " (did you mean 'K'?)" when a valid key is a few edits away (at most one
 * edit in three characters, so 'seed' does not suggest 'speed' for 'sd'),
 * else " (keys read here: a, b, ...)", else "". */
static void key_hint(const struct cfg_node *u, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!u->key)
		return;
	struct cfg_suggest kn;
	cfg_suggest_init(&kn, u->key);
	for_each_valid_key(u, near_visit, &kn);
	if (cfg_suggest_best(&kn)) {
		cfg_suggest_hint(&kn, buf, len);
		return;
	}
	struct key_bag b = { .skip = u->key };
	for_each_valid_key(u, bag_visit, &b);
	if (!b.n)
		return;
	qsort(b.v, b.n, sizeof(b.v[0]), cmp_cstr);
	size_t pos = (size_t)snprintf(buf, len, " (keys read here: ");
	for (size_t i = 0; i < b.n && pos < len; i++) {
		int w = snprintf(buf + pos, len - pos, "%s%s", i ? ", " : "", b.v[i]);
		if (w < 0 || pos + (size_t)w + 8 >= len) {
			snprintf(buf + pos, len - pos, ", ...");
			pos = strlen(buf);
			break;
		}
		pos += (size_t)w;
	}
	if (pos < len)
		snprintf(buf + pos, len - pos, ")");
}

int cfg_check_unused(const struct cfg_node *root, struct sim_error *err)
{
	if (!root)
		return 0;
	const struct cfg_node *u = first_unused(root);
	if (!u)
		return 0;
	if (u->parent && u->parent->kind == CFG_SEQ)
		return node_errorf(err, SIM_E_INPUT, u, true, "unused entry (nothing reads it)");
	char hint[640];
	key_hint(u, hint, sizeof(hint));
	return node_errorf(err, SIM_E_INPUT, u, true, "unknown key%s", hint);
}

/* ------------------------------------------------------------------ JSON */

static bool plain_int(const char *s, json_int_t *out)
{
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	int base = 10;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && *s != '-' && *s != '+') {
		base = 16;
		if (!isxdigit((unsigned char)p[2]))
			return false;
	}
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, base);
	if (*end || errno)
		return false;
	*out = (json_int_t)v;
	return true;
}

static bool plain_real(const char *s, double *out)
{
	bool digit = false;
	for (const char *p = s; *p; p++) {
		if (isdigit((unsigned char)*p))
			digit = true;
		else if (!strchr("+-.eE", *p))
			return false;
	}
	if (!digit)
		return false;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (*end || errno || !isfinite(v))
		return false;
	*out = v;
	return true;
}

json_t *cfg_to_json(const struct cfg_node *n)
{
	if (!n)
		return json_null();
	if (n->kind == CFG_MAP) {
		json_t *o = json_object();
		for (const struct cfg_node *c = n->child; o && c; c = c->next)
			json_object_set_new(o, c->key, cfg_to_json(c));
		return o;
	}
	if (n->kind == CFG_SEQ) {
		json_t *a = json_array();
		for (const struct cfg_node *c = n->child; a && c; c = c->next)
			json_array_append_new(a, cfg_to_json(c));
		return a;
	}
	const char *v = n->value ? n->value : "";
	if (n->quoted)
		return json_string(v);
	if (node_is_null(n))
		return json_null();
	if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE"))
		return json_true();
	if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE"))
		return json_false();
	json_int_t i;
	if (plain_int(v, &i))
		return json_integer(i);
	double d;
	if (plain_real(v, &d))
		return json_real(d);
	return json_string(v);
}

/* ----------------------------------------------------------------- units */

struct unit {
	const char *name;
	double mult;   /* base units (ns, bytes, bytes/s) per one of this unit */
};

static const struct unit time_units[] = {
	{ "ns", 1.0 },
	{ "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "\xce\xbcs", 1e3 }, /* micro sign, Greek mu */
	{ "ms", 1e6 },
	{ "s", 1e9 },
	{ "min", 60e9 },
	{ NULL, 0 },
};

static const struct unit size_units[] = {
	{ "B", 1.0 },
	{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	{ "TiB", 1099511627776.0 },
	{ "KB", 1e3 }, { "kB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
	{ "sectors", 512.0 }, { "sector", 512.0 },
	{ NULL, 0 },
};

static const struct unit rate_units[] = {
	{ "B/s", 1.0 },
	{ "KB/s", 1e3 }, { "kB/s", 1e3 }, { "MB/s", 1e6 }, { "GB/s", 1e9 },
	{ "KiB/s", 1024.0 }, { "MiB/s", 1048576.0 }, { "GiB/s", 1073741824.0 },
	{ "bps", 1.0 / 8 }, { "Kbps", 1e3 / 8 }, { "kbps", 1e3 / 8 }, { "Mbps", 1e6 / 8 },
	{ "Gbps", 1e9 / 8 },
	{ NULL, 0 },
};

static const struct unit *unit_find(const struct unit *tab, const char *name)
{
	for (; tab->name; tab++)
		if (strcmp(tab->name, name) == 0)
			return tab;
	return NULL;
}

/* A quantity: decimal number (sign, digits, fraction, exponent), optional
 * blanks, optional unit. On success *num is the number, *is_int says it
 * was written without fraction or exponent (then *inum holds it exactly),
 * and unit receives the (possibly empty) unit text. */
static bool split_quantity(const char *s, double *num, bool *is_int, long long *inum, bool *int_ovf,
			   char *unit, size_t unit_len)
{
	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	const char *digits = p;
	while (isdigit((unsigned char)*p))
		p++;
	bool int_digits = p > digits;
	bool frac = false;
	if (*p == '.') {
		p++;
		const char *fd = p;
		while (isdigit((unsigned char)*p))
			p++;
		if (!int_digits && p == fd)
			return false;
		frac = true;
	} else if (!int_digits) {
		return false;
	}
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		p += 2;
		while (isdigit((unsigned char)*p))
			p++;
		frac = true;
	}
	size_t nlen = (size_t)(p - s);
	char numbuf[64];
	if (nlen >= sizeof(numbuf))
		return false;
	memcpy(numbuf, s, nlen);
	numbuf[nlen] = '\0';
	errno = 0;
	*num = strtod(numbuf, NULL);
	if (!isfinite(*num))
		return false;
	*is_int = !frac;
	*int_ovf = false;
	if (!frac) {
		errno = 0;
		*inum = strtoll(numbuf, NULL, 10);
		*int_ovf = errno == ERANGE;
	}
	while (isspace((unsigned char)*p))
		p++;
	size_t ulen = strlen(p);
	while (ulen && isspace((unsigned char)p[ulen - 1]))
		ulen--;
	if (ulen >= unit_len)
		return false;
	memcpy(unit, p, ulen);
	unit[ulen] = '\0';
	return true;
}

/* Shared by time and size: quantity -> integer count of base units in
 * [lo, hi]. Integers times integral multipliers are computed exactly in
 * 128-bit arithmetic (no reliance on long double being wider than double);
 * fractions go through long double and are rounded to nearest.
 * Returns 0, or 1 for bad syntax/unknown unit, 2 for out of [lo, hi],
 * 3 for negative when !allow_neg, 4 for an unknown bare unit. */
static int parse_integral(const char *s, const struct unit *tab, const char *bare_unit,
			  bool allow_neg, __int128 lo, __int128 hi, __int128 *out)
{
	double num;
	bool is_int, ovf;
	long long inum = 0;
	char unit[32];
	if (!split_quantity(s, &num, &is_int, &inum, &ovf, unit, sizeof(unit)))
		return 1;
	const struct unit *u;
	if (!unit[0]) {
		const char *b = bare_unit && *bare_unit ? bare_unit : tab[0].name;
		u = unit_find(tab, b);
		if (!u)
			return 4;
	} else {
		u = unit_find(tab, unit);
		if (!u)
			return 1;
	}
	if (num < 0 && !allow_neg)
		return 3;
	__int128 v;
	if (is_int && !ovf && u->mult == floor(u->mult) && u->mult < 1e18) {
		v = (__int128)inum * (__int128)(long long)u->mult; /* |v| < 2^123 */
	} else {
		long double x = roundl((long double)num * (long double)u->mult);
		/* compare as long double against powers of two, exact in any format */
		if (!(x > -0x1p100L && x < 0x1p100L))
			return 2;
		v = (__int128)x;
	}
	if (v < lo || v > hi)
		return 2;
	*out = v;
	return 0;
}

int cfg_parse_time_ns(const char *s, const char *bare_unit, int64_t *out, struct sim_error *err)
{
	__int128 v;
	int r = parse_integral(s, time_units, bare_unit, true, INT64_MIN, INT64_MAX, &v);
	switch (r) {
	case 0:
		*out = (int64_t)v;
		return 0;
	case 2:
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s' is too large a time (more than 2^63 ns, about 292 years)", s);
	case 4:
		return sim_errorf(err, SIM_E_INPUT, "unknown bare time unit '%s' (internal)",
				  bare_unit);
	default:
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s': expected a time like 100us, 8ms, 2s (units ns, us, ms, s, min)",
				  s ? s : "");
	}
}

int cfg_parse_size_bytes(const char *s, const char *bare_unit, uint64_t *out, struct sim_error *err)
{
	__int128 v;
	int r = parse_integral(s, size_units, bare_unit, false, 0, UINT64_MAX, &v);
	switch (r) {
	case 0:
		*out = (uint64_t)v;
		return 0;
	case 2:
		return sim_errorf(err, SIM_E_INPUT, "'%s' is too large a size (2^64 bytes or more)",
				  s);
	case 3:
		return sim_errorf(err, SIM_E_INPUT, "'%s': a size cannot be negative", s);
	case 4:
		return sim_errorf(err, SIM_E_INPUT, "unknown bare size unit '%s' (internal)",
				  bare_unit);
	default:
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s': expected a size like 4096, 4KiB, 512MiB, 8sectors (units B, KiB, MiB, GiB, TiB, KB, MB, GB, TB, sectors of 512 B)",
				  s ? s : "");
	}
}

int cfg_parse_rate_bps(const char *s, const char *bare_unit, double *out, struct sim_error *err)
{
	double num;
	bool is_int, ovf;
	long long inum;
	char unit[32];
	const struct unit *u = NULL;
	if (split_quantity(s, &num, &is_int, &inum, &ovf, unit, sizeof(unit))) {
		const char *b = unit[0] ? unit : bare_unit && *bare_unit ? bare_unit : "B/s";
		u = unit_find(rate_units, b);
		if (!u && !unit[0])
			return sim_errorf(err, SIM_E_INPUT, "unknown bare rate unit '%s' (internal)",
					  bare_unit);
	}
	if (!u)
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s': expected a rate like 400MB/s, 1.5GiB/s, 100Mbps (units B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, bps, Kbps, Mbps, Gbps)",
				  s ? s : "");
	double v = num * u->mult;
	if (!isfinite(v))
		return sim_errorf(err, SIM_E_INPUT, "'%s' is too large a rate", s);
	*out = v;
	return 0;
}

int cfg_parse_int(const char *s, int64_t *out, struct sim_error *err)
{
	char buf[64];
	size_t len = s ? strlen(s) : 0;
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len || len >= sizeof(buf))
		goto bad;
	memcpy(buf, s, len);
	buf[len] = '\0';
	const char *p = buf;
	if (*p == '+' || *p == '-')
		p++;
	int base = 10;
	if (p == buf && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16;
	if (base == 10 ? !isdigit((unsigned char)*p) : !isxdigit((unsigned char)p[2]))
		goto bad;
	errno = 0;
	char *end;
	long long v = strtoll(buf, &end, base);
	if (*end)
		goto bad;
	if (errno == ERANGE)
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s' is out of range for a 64-bit integer [%lld, %lld]", buf,
				  LLONG_MIN, LLONG_MAX);
	*out = v;
	return 0;
bad:
	return sim_errorf(err, SIM_E_INPUT, "'%s': expected an integer like 42 or -1 or 0x1f",
			  s ? s : "");
}

int cfg_parse_double(const char *s, double *out, struct sim_error *err)
{
	double num;
	bool is_int, ovf;
	long long inum;
	char unit[8];
	if (!split_quantity(s, &num, &is_int, &inum, &ovf, unit, sizeof(unit)) || unit[0])
		return sim_errorf(err, SIM_E_INPUT,
				  "'%s': expected a finite number like 0.5, 3 or 1e-3", s ? s : "");
	*out = num;
	return 0;
}

int cfg_parse_bool(const char *s, bool *out, struct sim_error *err)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };
	if (s) {
		for (int i = 0; yes[i]; i++) {
			if (strcasecmp(s, yes[i]) == 0) {
				*out = true;
				return 0;
			}
			if (strcasecmp(s, no[i]) == 0) {
				*out = false;
				return 0;
			}
		}
	}
	return sim_errorf(err, SIM_E_INPUT, "'%s': expected a boolean (true/false, yes/no, on/off, 1/0)",
			  s ? s : "");
}

/* ---------------------------------------------------------- tunable tables */

/* Multiplier of a table unit in base units (1 if unknown or empty). */
static double unit_mult(const struct cfg_param *p)
{
	const struct unit *tab = p->type == CFG_T_TIME ? time_units :
				 p->type == CFG_T_SIZE ? size_units :
				 p->type == CFG_T_RATE ? rate_units : NULL;
	if (!tab || !p->unit || !*p->unit)
		return 1.0;
	const struct unit *u = unit_find(tab, p->unit);
	return u ? u->mult : 1.0;
}

/* A time, size or rate parameter must name a unit its parser knows. */
static bool unit_known(const struct cfg_param *p)
{
	const struct unit *tab = p->type == CFG_T_TIME ? time_units :
				 p->type == CFG_T_SIZE ? size_units :
				 p->type == CFG_T_RATE ? rate_units : NULL;
	return !tab || !p->unit || !*p->unit || unit_find(tab, p->unit);
}

static const char *type_expect(const struct cfg_param *p)
{
	switch (p->type) {
	case CFG_T_BOOL: return "a boolean";
	case CFG_T_INT: return "an integer";
	case CFG_T_DOUBLE: return "a number";
	case CFG_T_TIME: return "a time";
	case CFG_T_SIZE: return "a size";
	case CFG_T_RATE: return "a rate";
	case CFG_T_ENUM: return "one of the choices";
	case CFG_T_STRING: return "a string";
	}
	return "a scalar";
}

union cfg_value {
	bool b;
	int64_t i;
	uint64_t u;
	double d;
	int e;
	const char *s;
};

static void fmt_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.15g", v);
}

/* Parse text for p into *v; *bare is the value in p's unit (for range checks).
 * Errors go to err without location. */
static int param_parse(const struct cfg_param *p, const char *text, union cfg_value *v,
		       double *bare, struct sim_error *err)
{
	int rc;
	switch (p->type) {
	case CFG_T_BOOL:
		rc = cfg_parse_bool(text, &v->b, err);
		*bare = v->b;
		return rc;
	case CFG_T_INT:
		rc = cfg_parse_int(text, &v->i, err);
		*bare = (double)v->i;
		return rc;
	case CFG_T_DOUBLE:
		rc = cfg_parse_double(text, &v->d, err);
		*bare = v->d;
		return rc;
	case CFG_T_TIME:
		rc = cfg_parse_time_ns(text, p->unit, &v->i, err);
		*bare = (double)v->i / unit_mult(p);
		if (!rc && v->i < 0 && !(p->min <= p->max && p->min < 0))
			return sim_errorf(err, SIM_E_INPUT, "'%s': a time cannot be negative", text);
		return rc;
	case CFG_T_SIZE:
		rc = cfg_parse_size_bytes(text, p->unit, &v->u, err);
		*bare = (double)v->u / unit_mult(p);
		return rc;
	case CFG_T_RATE:
		rc = cfg_parse_rate_bps(text, p->unit, &v->d, err);
		*bare = v->d / unit_mult(p);
		if (!rc && v->d < 0 && !(p->min <= p->max && p->min < 0))
			return sim_errorf(err, SIM_E_INPUT, "'%s': a rate cannot be negative", text);
		return rc;
	case CFG_T_ENUM:
		for (int i = 0; p->choices && p->choices[i]; i++) {
			if (strcmp(p->choices[i], text) == 0) {
				v->e = i;
				*bare = i;
				return 0;
			}
		}
		{
			char list[512];
			size_t pos = 0;
			list[0] = '\0';
			for (int i = 0; p->choices && p->choices[i] && pos < sizeof(list); i++) {
				int w = snprintf(list + pos, sizeof(list) - pos, "%s%s",
						 i ? ", " : "", p->choices[i]);
				if (w > 0)
					pos += (size_t)w;
			}
			struct cfg_suggest sg;
			char hint[160];
			cfg_suggest_init(&sg, text);
			for (int i = 0; p->choices && p->choices[i]; i++)
				cfg_suggest_add(&sg, p->choices[i]);
			return sim_errorf(err, SIM_E_INPUT, "'%s' is not one of: %s%s", text, list,
					  cfg_suggest_hint(&sg, hint, sizeof(hint)));
		}
	case CFG_T_STRING:
		v->s = text;
		*bare = 0;
		return 0;
	}
	return sim_errorf(err, SIM_E_RUNTIME, "unknown parameter type %d", p->type);
}

static bool param_ranged(const struct cfg_param *p)
{
	return p->min <= p->max && p->type != CFG_T_BOOL && p->type != CFG_T_ENUM &&
	       p->type != CFG_T_STRING;
}

static void param_store(const struct cfg_param *p, void *obj, const union cfg_value *v)
{
	char *dst = (char *)obj + p->offset;
	switch (p->type) {
	case CFG_T_BOOL: memcpy(dst, &v->b, sizeof(bool)); break;
	case CFG_T_INT:
	case CFG_T_TIME: memcpy(dst, &v->i, sizeof(int64_t)); break;
	case CFG_T_SIZE: memcpy(dst, &v->u, sizeof(uint64_t)); break;
	case CFG_T_DOUBLE:
	case CFG_T_RATE: memcpy(dst, &v->d, sizeof(double)); break;
	case CFG_T_ENUM: memcpy(dst, &v->e, sizeof(int)); break;
	case CFG_T_STRING: memcpy(dst, &v->s, sizeof(const char *)); break;
	}
}

static cfg_apply_observer_fn apply_observer;
static void *apply_observer_ctx;

void cfg_set_apply_observer(cfg_apply_observer_fn fn, void *ctx)
{
	apply_observer = fn;
	apply_observer_ctx = ctx;
}

int cfg_apply(const struct cfg_param *table, struct cfg_node *map, void *obj,
	      struct sim_error *err)
{
	const struct cfg_node *section = map; /* for the observer: `cfq:` names its section */
	if (map && node_is_null(map)) {
		mark_up(map); /* `cfq:` with nothing under it: all defaults */
		map = NULL;
	}
	if (map && map->kind != CFG_MAP)
		return cfg_errorf(err, map, "expected a map of parameters, not %s",
				  kind_name(map->kind));
	if (map)
		mark_up(map);
	for (const struct cfg_param *p = table; p && p->key; p++) {
		if (!unit_known(p))
			return sim_errorf(err, SIM_E_RUNTIME,
					  "internal: parameter '%s' has unknown unit '%s'", p->key,
					  p->unit);
		struct cfg_node *n = cfg_get(map, p->key);
		union cfg_value v = { .u = 0 };
		double bare = 0;
		struct sim_error perr;
		sim_error_clear(&perr);
		if (n) {
			if (n->kind != CFG_SCALAR)
				return cfg_errorf(err, n, "expected %s, not %s", type_expect(p),
						  kind_name(n->kind));
			if (param_parse(p, n->value ? n->value : "", &v, &bare, &perr))
				return cfg_errorf(err, n, "%s", perr.msg);
			if (param_ranged(p) && (bare < p->min || bare > p->max || isnan(bare))) {
				char a[32], lo[32], hi[32];
				fmt_num(a, sizeof(a), bare);
				fmt_num(lo, sizeof(lo), p->min);
				fmt_num(hi, sizeof(hi), p->max);
				return cfg_errorf(err, n, "%s is out of range [%s, %s]%s%s", a, lo,
						  hi, p->unit && *p->unit ? " " : "",
						  p->unit ? p->unit : "");
			}
			mark_up(n);
		} else if (!p->def) {
			if (map)
				return node_errorf(err, SIM_E_INPUT, map, true,
						   "missing required key '%s' (%s)", p->key,
						   p->help ? p->help : type_expect(p));
			return sim_errorf(err, SIM_E_INPUT, "missing required key '%s' (%s)",
					  p->key, p->help ? p->help : type_expect(p));
		} else {
			if (param_parse(p, p->def, &v, &bare, &perr))
				return sim_errorf(err, SIM_E_RUNTIME,
						  "internal: bad default for parameter '%s': %s",
						  p->key, perr.msg);
			if (param_ranged(p) && (bare < p->min || bare > p->max))
				return sim_errorf(err, SIM_E_RUNTIME,
						  "internal: default of parameter '%s' (%s) is outside its range",
						  p->key, p->def);
		}
		param_store(p, obj, &v);
		if (apply_observer)
			apply_observer(apply_observer_ctx, p, section, n, n ? n->value : p->def, bare);
	}
	return 0;
}

/* Value of p in obj, in p's unit. */
static json_t *param_json(const struct cfg_param *p, const void *obj)
{
	const char *src = (const char *)obj + p->offset;
	bool b;
	int64_t i;
	uint64_t u;
	double d;
	int e;
	const char *s;
	switch (p->type) {
	case CFG_T_BOOL:
		memcpy(&b, src, sizeof(b));
		return json_boolean(b);
	case CFG_T_INT:
		memcpy(&i, src, sizeof(i));
		return json_integer(i);
	case CFG_T_DOUBLE:
		memcpy(&d, src, sizeof(d));
		return json_real(d);
	case CFG_T_TIME:
	case CFG_T_SIZE: {
		double m = unit_mult(p), x;
		if (p->type == CFG_T_TIME) {
			memcpy(&i, src, sizeof(i));
			x = (double)i / m;
			if (m >= 1 && i % (int64_t)m == 0)
				return json_integer(i / (int64_t)m);
		} else {
			memcpy(&u, src, sizeof(u));
			x = (double)u / m;
			if (m >= 1 && u % (uint64_t)m == 0 && u / (uint64_t)m <= INT64_MAX)
				return json_integer((json_int_t)(u / (uint64_t)m));
		}
		return json_real(x);
	}
	case CFG_T_RATE:
		memcpy(&d, src, sizeof(d));
		return json_real(d / unit_mult(p));
	case CFG_T_ENUM:
		memcpy(&e, src, sizeof(e));
		for (int k = 0; p->choices && p->choices[k]; k++)
			if (k == e)
				return json_string(p->choices[k]);
		return json_integer(e);
	case CFG_T_STRING:
		memcpy(&s, src, sizeof(s));
		return s ? json_string(s) : json_null();
	}
	return json_null();
}

json_t *cfg_params_to_json(const struct cfg_param *table, const void *obj)
{
	json_t *o = json_object();
	for (const struct cfg_param *p = table; o && p && p->key; p++)
		json_object_set_new(o, p->key, param_json(p, obj));
	return o;
}

static const char *type_short(enum cfg_type t)
{
	switch (t) {
	case CFG_T_BOOL: return "bool";
	case CFG_T_INT: return "int";
	case CFG_T_DOUBLE: return "real";
	case CFG_T_TIME: return "time";
	case CFG_T_SIZE: return "size";
	case CFG_T_RATE: return "rate";
	case CFG_T_ENUM: return "enum";
	case CFG_T_STRING: return "string";
	}
	return "?";
}

static void param_range(const struct cfg_param *p, char *buf, size_t len)
{
	if (p->type == CFG_T_ENUM) {
		size_t pos = 0;
		buf[0] = '\0';
		for (int i = 0; p->choices && p->choices[i] && pos < len; i++) {
			int w = snprintf(buf + pos, len - pos, "%s%s", i ? "|" : "", p->choices[i]);
			if (w > 0)
				pos += (size_t)w;
		}
	} else if (param_ranged(p)) {
		char lo[32], hi[32];
		fmt_num(lo, sizeof(lo), p->min);
		fmt_num(hi, sizeof(hi), p->max);
		snprintf(buf, len, "[%s, %s]", lo, hi);
	} else {
		snprintf(buf, len, "-");
	}
}

void cfg_params_print(const struct cfg_param *table, const char *prefix, void *file)
{
	FILE *f = file;
	if (!f)
		return;
	int wk = 3, wu = 4, wd = 7, wr = 5;
	char key[256], range[256];
	const char *pre = prefix ? prefix : "";
	for (const struct cfg_param *p = table; p && p->key; p++) {
		int l = snprintf(key, sizeof(key), "%s%s%s", pre, *pre ? "." : "", p->key);
		wk = l > wk ? l : wk;
		char ut[64];
		l = snprintf(ut, sizeof(ut), "%s%s%s", type_short(p->type),
			     p->unit && *p->unit ? " " : "", p->unit ? p->unit : "");
		wu = l > wu ? l : wu;
		l = (int)strlen(p->def ? p->def : "(required)");
		wd = l > wd ? l : wd;
		param_range(p, range, sizeof(range));
		l = (int)strlen(range);
		wr = l > wr ? l : wr;
	}
	fprintf(f, "%-*s  %-*s  %-*s  %-*s  %s\n", wk, "key", wu, "type", wd, "default", wr,
		"range", "source / help");
	for (const struct cfg_param *p = table; p && p->key; p++) {
		char ut[64];
		snprintf(key, sizeof(key), "%s%s%s", pre, *pre ? "." : "", p->key);
		snprintf(ut, sizeof(ut), "%s%s%s", type_short(p->type),
			 p->unit && *p->unit ? " " : "", p->unit ? p->unit : "");
		param_range(p, range, sizeof(range));
		fprintf(f, "%-*s  %-*s  %-*s  %-*s  %s%s%s\n", wk, key, wu, ut, wd,
			p->def ? p->def : "(required)", wr, range, p->source ? p->source : "",
			p->help && *p->help ? " -- " : "", p->help ? p->help : "");
	}
}
