/* Configuration, includes and overrides: `include:` expansion (maps merge
 * recursively, the including map wins, cycles and depth are refused) and
 * `--set dotted.path=value` overrides applied to the loaded tree. */
#include "sim/config.h"
#include "sim/config_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		struct cfg_node *mine = cfg_node_find(dst, c->key);
		if (mine) {
			if (mine->kind == CFG_MAP && c->kind == CFG_MAP) {
				merge_maps(mine, c, mode, false, NULL);
				cfg_node_free_one(c);
			} else if (mode == MERGE_SRC_WINS) {
				cfg_node_replace(mine, c);
			} else {
				cfg_node_free_one(c);
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
			cfg_node_append(dst, c);
		}
	}
}

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
		return cfg_node_errorf(err, SIM_E_INPUT, inc, false, "empty include file name");
	if (inc->value[0] == '/') {
		snprintf(path, sizeof(path), "%s", inc->value);
	} else {
		dir_of(inc->file, dir, sizeof(dir));
		if (strcmp(dir, ".") == 0)
			snprintf(path, sizeof(path), "%s", inc->value);
		else if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, inc->value) >= sizeof(path))
			return cfg_node_errorf(err, SIM_E_INPUT, inc, false, "include path too long");
	}
	char *real = realpath(path, NULL);
	if (!real)
		return cfg_node_errorf(err, SIM_E_INPUT, inc, false, "cannot include '%s': %s", path,
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
			return cfg_node_errorf(err, SIM_E_INPUT, inc, false, "include cycle: %s%s",
					   chain, path);
		}
	}
	if (st->n >= CFG_MAX_INCLUDE_DEPTH) {
		free(real);
		return cfg_node_errorf(err, SIM_E_INPUT, inc, false,
				   "includes nested deeper than %d files", CFG_MAX_INCLUDE_DEPTH);
	}
	const char *shown = cfg_doc_intern(doc, path);
	if (!shown) {
		free(real);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	char *text;
	size_t len;
	int rc = cfg_read_file(doc, path, &text, &len, why, sizeof(why));
	if (rc) {
		free(real);
		return cfg_node_errorf(err, rc == SIM_E_NOMEM ? SIM_E_NOMEM : SIM_E_INPUT, inc, false,
				   "cannot include '%s': %s", path, why);
	}
	struct cfg_node *root = NULL;
	rc = cfg_parse_text(doc, text, len, shown, 0, true, &root, err);
	free(text);
	if (!rc) {
		st->real[st->n] = real;
		st->shown[st->n] = shown;
		st->n++;
		rc = cfg_expand_tree(doc, root, st, err);
		st->n--;
	}
	free(real);
	if (rc) {
		cfg_node_free_one(root);
		cfg_err_append(err, " (included from %s:%d:%d)", inc->file, inc->line, inc->col);
		return rc;
	}
	*out = root;
	return 0;
}

/* Expand the include node of map (if any): load its files, merge them. */
static int expand_map_include(struct cfg_doc *doc, struct cfg_node *map, struct cfg_incstack *st,
			      struct sim_error *err)
{
	struct cfg_node *inc = cfg_node_find(map, "include");
	if (!inc)
		return 0;
	struct cfg_node *combined = cfg_node_new(doc, CFG_MAP, inc->file, inc->line, inc->col);
	if (!combined)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = 0;
	if (inc->kind == CFG_SCALAR) {
		struct cfg_node *r;
		rc = load_include(doc, inc, st, &r, err);
		if (!rc) {
			merge_maps(combined, r, MERGE_SRC_WINS, false, NULL);
			cfg_node_free_one(r);
		}
	} else if (inc->kind == CFG_SEQ) {
		for (struct cfg_node *c = inc->child; c && !rc; c = c->next) {
			if (c->kind != CFG_SCALAR) {
				rc = cfg_errorf(err, c, "expected a file name, not %s",
						cfg_kind_name(c->kind));
				break;
			}
			struct cfg_node *r;
			rc = load_include(doc, c, st, &r, err);
			if (!rc) {
				merge_maps(combined, r, MERGE_SRC_WINS, false, NULL);
				cfg_node_free_one(r);
			}
		}
	} else {
		rc = cfg_errorf(err, inc, "expected a file name or a list of file names, not a map");
	}
	if (rc) {
		cfg_node_free_one(combined);
		return rc;
	}
	/* included keys take the place of the include key */
	struct cfg_node *before = NULL;
	for (struct cfg_node *c = map->child; c && c != inc; c = c->next)
		before = c;
	cfg_node_unlink(inc);
	cfg_node_free_one(inc);
	merge_maps(map, combined, MERGE_DST_WINS, true, before);
	cfg_node_free_one(combined);
	return 0;
}

/* Expand includes bottom-up, so a map's own include is resolved after its
 * children's and the parent's include cannot override what a child map
 * resolved for itself. */
int cfg_expand_tree(struct cfg_doc *doc, struct cfg_node *n, struct cfg_incstack *st,
		    struct sim_error *err)
{
	if (n->kind == CFG_SCALAR)
		return 0;
	for (struct cfg_node *c = n->child; c; c = c->next) {
		if (n->kind == CFG_MAP && strcmp(c->key, "include") == 0)
			continue;
		int rc = cfg_expand_tree(doc, c, st, err);
		if (rc)
			return rc;
	}
	return n->kind == CFG_MAP ? expand_map_include(doc, n, st, err) : 0;
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
	const char *file = cfg_doc_intern(doc, CFG_SET_FILE);
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
	int n = cfg_path_split(key, strlen(key), steps, CFG_MAX_PATH_STEPS, &why);
	if (n < 0) {
		rc = sim_errorf(err, SIM_E_INPUT, "%s:%d:1: '%s': %s (expected KEY.SUB[INDEX]=VALUE)",
				file, idx, key, why);
		goto out;
	}

	/* the new value: YAML when it looks like flow syntax or is quoted */
	if (val[0] && strchr("[{\"'", val[0])) {
		rc = cfg_parse_text(doc, val, strlen(val), file, idx, false, &nv, err);
		if (rc)
			goto out;
		set_pos(nv, idx);
	} else {
		nv = cfg_node_new(doc, CFG_SCALAR, file, idx, 1);
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
						file, idx, key, steps[i].key, cfg_kind_name(cur->kind),
						cur->file, cur->line, cur->col);
				goto out;
			}
			struct cfg_node *c = cfg_node_find(cur, steps[i].key);
			if (last) {
				nv->key_line = idx;
				nv->key_col = 1;
				if (c) {
					cfg_node_replace(c, nv);
				} else {
					nv->key = strdup(steps[i].key);
					if (!nv->key) {
						rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
						goto out;
					}
					cfg_node_append(cur, nv);
				}
				cur = nv;
				nv = NULL;
				break;
			}
			if (c && cfg_node_is_null(c) && !want_seq) {
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
				c = cfg_node_new(doc, CFG_MAP, file, idx, 1);
				if (!c || !(c->key = strdup(steps[i].key))) {
					cfg_node_free_one(c);
					rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
					goto out;
				}
				c->key_line = idx;
				c->key_col = 1;
				cfg_node_append(cur, c);
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
						key, shown, cfg_kind_name(c->kind), c->file, c->line,
						c->col, want_seq ? "a sequence" : "a map", fix);
				goto out;
			}
			cur = c;
		} else {
			long count;
			struct cfg_node *c = cfg_seq_item(cur, steps[i].index, &count);
			if (last && !c && steps[i].index == count) {
				cfg_node_append(cur, nv); /* [len] appends */
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
				cfg_node_replace(c, nv);
				cur = nv;
				nv = NULL;
				break;
			}
			if (want_seq ? c->kind != CFG_SEQ : c->kind != CFG_MAP) {
				cfg_node_path(c, shown, sizeof(shown));
				rc = sim_errorf(err, SIM_E_INPUT,
						"%s:%d:1: %s: %s is %s, not %s", file, idx, key,
						shown, cfg_kind_name(c->kind),
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
		rc = cfg_expand_tree(doc, cur, &st, err);
out:
	if (rc && created && nv) {
		/* failed before placing the value: drop the maps made for it */
		cfg_node_unlink(created);
		cfg_node_free_one(created);
	}
	cfg_node_free_one(nv);
	free(key);
	free(val);
	return rc;
}

