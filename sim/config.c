/* Configuration, the tree: cfg_node and the document that owns it (create,
 * link, free, find, mark used, dotted lookup, positions and messages) and the
 * tree as JSON (contract in config.h; docs/architecture.md §6). The other
 * jobs: config_yaml.c reads YAML, config_include.c expands includes and
 * --set overrides, config_units.c parses units, config_schema.c applies
 * tunable tables and reports unknown keys; config_int.h is what they share.
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
#include "sim/config_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* ---------------------------------------------------------------- nodes */

const char *cfg_doc_intern(struct cfg_doc *doc, const char *name)
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

struct cfg_node *cfg_node_new(struct cfg_doc *doc, enum cfg_node_kind kind, const char *file,
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
void cfg_node_free_one(struct cfg_node *n)
{
	if (n) {
		n->next = NULL;
		node_free(n);
	}
}

void cfg_node_append(struct cfg_node *parent, struct cfg_node *c)
{
	struct cfg_node **pp = &parent->child;
	while (*pp)
		pp = &(*pp)->next;
	c->parent = parent;
	c->next = NULL;
	*pp = c;
}

/* Unlink c from its parent's child list. */
void cfg_node_unlink(struct cfg_node *c)
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
void cfg_node_replace(struct cfg_node *old, struct cfg_node *repl)
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
	cfg_node_free_one(old);
}

bool cfg_node_is_null(const struct cfg_node *n)
{
	if (!n || n->kind != CFG_SCALAR || n->quoted)
		return false;
	const char *v = n->value ? n->value : "";
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

const char *cfg_kind_name(enum cfg_node_kind k)
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
struct cfg_node *cfg_node_find(const struct cfg_node *map, const char *key)
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
	return cfg_node_find(map, key);
}

void cfg_mark_up(struct cfg_node *n)
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
	cfg_mark_up(n);
	if (recursive)
		mark_down(n);
}

const char *cfg_get_str(const struct cfg_node *map, const char *key)
{
	struct cfg_node *n = cfg_get(map, key);
	if (!n || n->kind != CFG_SCALAR)
		return NULL;
	cfg_mark_up(n);
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

int cfg_node_errorf(struct sim_error *err, int code, const struct cfg_node *n, bool at_key,
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
void cfg_err_append(struct sim_error *err, const char *fmt, ...)
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

/* ------------------------------------------------------------ load, free */

struct cfg_doc *cfg_doc_new(void)
{
	return calloc(1, sizeof(struct cfg_doc));
}

void cfg_free(struct cfg_doc *doc)
{
	if (!doc)
		return;
	cfg_node_free_one(doc->root);
	struct cfg_file *f = doc->files;
	while (f) {
		struct cfg_file *next = f->next;
		free(f);
		f = next;
	}
	free(doc);
}
/* ----------------------------------------------------------------- paths */

/* Split "a.b[2].c" into steps. Returns number of steps or -1 with why set. */
int cfg_path_split(const char *s, size_t len, struct path_step *steps, int max, const char **why)
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

struct cfg_node *cfg_seq_item(const struct cfg_node *seq, long index, long *count)
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
	int n = cfg_path_split(dotted, strlen(dotted), steps, CFG_MAX_PATH_STEPS, &why);
	if (n < 0)
		return NULL;
	struct cfg_node *cur = (struct cfg_node *)node;
	for (int i = 0; i < n && cur; i++) {
		if (steps[i].key[0])
			cur = cfg_get(cur, steps[i].key);
		else
			cur = cur->kind == CFG_SEQ ? cfg_seq_item(cur, steps[i].index, NULL) : NULL;
	}
	return cur;
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
	if (cfg_node_is_null(n))
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

