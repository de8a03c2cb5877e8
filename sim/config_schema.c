/* Configuration, schema and errors: typed tunable tables (cfg_apply fills
 * defaults, parses units, checks ranges, marks keys used; their JSON and
 * listing), the unknown-key check and its "did you mean" suggestions. */
#include "sim/config.h"
#include "sim/config_int.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

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
		return cfg_node_errorf(err, SIM_E_INPUT, u, true, "unused entry (nothing reads it)");
	char hint[640];
	key_hint(u, hint, sizeof(hint));
	return cfg_node_errorf(err, SIM_E_INPUT, u, true, "unknown key%s", hint);
}

/* ---------------------------------------------------------- tunable tables */

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
		*bare = (double)v->i / cfg_unit_mult(p);
		if (!rc && v->i < 0 && !(p->min <= p->max && p->min < 0))
			return sim_errorf(err, SIM_E_INPUT, "'%s': a time cannot be negative", text);
		return rc;
	case CFG_T_SIZE:
		rc = cfg_parse_size_bytes(text, p->unit, &v->u, err);
		*bare = (double)v->u / cfg_unit_mult(p);
		return rc;
	case CFG_T_RATE:
		rc = cfg_parse_rate_bps(text, p->unit, &v->d, err);
		*bare = v->d / cfg_unit_mult(p);
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
	if (map && cfg_node_is_null(map)) {
		cfg_mark_up(map); /* `cfq:` with nothing under it: all defaults */
		map = NULL;
	}
	if (map && map->kind != CFG_MAP)
		return cfg_errorf(err, map, "expected a map of parameters, not %s",
				  cfg_kind_name(map->kind));
	if (map)
		cfg_mark_up(map);
	for (const struct cfg_param *p = table; p && p->key; p++) {
		if (!cfg_unit_known(p))
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
						  cfg_kind_name(n->kind));
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
			cfg_mark_up(n);
		} else if (!p->def) {
			if (map)
				return cfg_node_errorf(err, SIM_E_INPUT, map, true,
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
		double m = cfg_unit_mult(p), x;
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
		return json_real(d / cfg_unit_mult(p));
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
