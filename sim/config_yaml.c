/* Configuration, reading YAML: libyaml events -> a cfg_node tree with the
 * file:line:col of every key and value, bounded in depth, bytes and nodes;
 * loading a file or a string (choices listed at the top of config.c). */
#include "sim/config.h"
#include "sim/config_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

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
			rc = cfg_node_errorf(ld->err, SIM_E_INPUT, v[i], true,
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
		struct cfg_node *n = cfg_node_new(ld->doc, CFG_SCALAR, ld->file, line, col);
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
			cfg_node_free_one(n);
			return loader_oom(ld);
		}
		*out = n;
		return 0;
	}
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT: {
		bool is_map = ev->type == YAML_MAPPING_START_EVENT;
		yaml_event_delete(ev);
		struct cfg_node *n = cfg_node_new(ld->doc, is_map ? CFG_MAP : CFG_SEQ, ld->file, line, col);
		if (!n)
			return loader_oom(ld);
		rc = is_map ? parse_map(ld, n, depth) : parse_seq(ld, n, depth);
		if (rc) {
			cfg_node_free_one(n);
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
int cfg_parse_text(struct cfg_doc *doc, const char *text, size_t len, const char *file,
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
		root = cfg_node_new(doc, want_map ? CFG_MAP : CFG_SCALAR, file,
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
		if (cfg_node_is_null(root)) {
			root->kind = CFG_MAP;
			free(root->value);
			root->value = NULL;
		} else if (root->kind != CFG_MAP) {
			rc = loader_mark_error(&ld, root_mark,
					       "the top level must be a map of keys, not %s",
					       cfg_kind_name(root->kind));
			goto out;
		}
	}
done:
	*out = root;
	root = NULL;
out:
	cfg_node_free_one(root);
	yaml_parser_delete(&ld.parser);
	return rc;
}

/* Read a regular file of bounded size. *text is malloc'd, NUL-terminated. */
int cfg_read_file(struct cfg_doc *doc, const char *path, char **text, size_t *len,
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

static int load_common(struct cfg_doc *doc, const char *text, size_t len, const char *name,
		       const char *real, struct sim_error *err)
{
	const char *file = cfg_doc_intern(doc, name);
	if (!file)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = cfg_parse_text(doc, text, len, file, 0, true, &doc->root, err);
	if (rc)
		return rc;
	struct cfg_incstack st = { .n = 0 };
	if (real) {
		st.real[0] = real;
		st.shown[0] = file;
		st.n = 1;
	}
	return cfg_expand_tree(doc, doc->root, &st, err);
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
	struct cfg_doc *doc = cfg_doc_new();
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
	struct cfg_doc *doc = cfg_doc_new();
	if (!doc)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	char why[256], *text = NULL;
	size_t len = 0;
	int rc = cfg_read_file(doc, path, &text, &len, why, sizeof(why));
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

