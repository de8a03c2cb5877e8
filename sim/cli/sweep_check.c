/* A sweep's metric paths checked before any point runs: a typo in a path
 * used to write a NaN column and exit 0. The reference is the result
 * document of a created, not yet run point (its keys are fixed by the
 * configuration), with waits[] holding every cause and class (the run adds
 * only those that occurred). */
#include "sim/cli/sweep.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim/config.h"
#include "sim/metrics.h"
#include "sim/sim.h"

#define CHECK_POINTS 8 /* documents tried before a path is called wrong */
#define NEAREST 3

/* The result document point p will have, before its run. */
static json_t *reference_doc(const struct sweep *sw, const struct sweep_point *p)
{
	struct sim *s;
	struct sim_error err = { 0 };
	if (sweep_point_create(sw, p, &s, &err))
		return NULL; /* the run reports it, with the other failed points */
	json_t *doc = sim_result_json(s);
	sim_destroy(s);
	json_t *waits = json_array();
	for (int w = 0; w < SIM_NWAIT && waits; w++)
		for (int c = 0; c < SIM_NCLASS; c++)
			json_array_append_new(waits, json_pack("{s:s, s:s, s:i, s:i, s:i}", "cause",
							       sim_wait_names[w], "class",
							       sim_class_names[c], "count", 0,
							       "total_ns", 0, "max_ns", 0));
	if (doc && waits)
		json_object_set(doc, "waits", waits);
	json_decref(waits);
	return doc;
}

/* Length of the first step of path: a key up to '.' or '[', or a [...]
 * (with a quoted key inside). */
static size_t step_len(const char *s)
{
	if (*s != '[')
		return strcspn(s, ".[");
	const char *close = s[1] == '"' ? strchr(s + 2, '"') : s;
	close = close ? strchr(close, ']') : NULL;
	return close ? (size_t)(close - s) + 1 : strlen(s);
}

struct near {
	const char *v[NEAREST];
	int d[NEAREST];
	int n;
};

static void near_add(struct near *nr, const char *want, const char *cand)
{
	int d = cfg_key_distance(want, cand);
	for (int i = 0; i < nr->n; i++)
		if (strcmp(nr->v[i], cand) == 0)
			return;
	int at = nr->n < NEAREST ? nr->n++ : NEAREST;
	while (at > 0 && (nr->d[at - 1] > d || (nr->d[at - 1] == d && strcmp(nr->v[at - 1], cand) > 0))) {
		if (at < NEAREST) {
			nr->v[at] = nr->v[at - 1];
			nr->d[at] = nr->d[at - 1];
		}
		at--;
	}
	if (at < NEAREST) {
		nr->v[at] = cand;
		nr->d[at] = d;
	}
}

static void near_print(const struct near *nr, char *buf, size_t len)
{
	size_t pos = 0;
	buf[0] = '\0';
	for (int i = 0; i < nr->n && pos < len; i++)
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", i ? ", " : "", nr->v[i]);
}

/* Why the selector [f=v,...] matches no element of arr. */
static void selector_why(const json_t *arr, const char *prefix, const char *sel, size_t n,
			 char *why, size_t len)
{
	char tmp[256], *save = NULL;
	snprintf(tmp, sizeof(tmp), "%.*s", (int)(n < sizeof(tmp) ? n : sizeof(tmp) - 1), sel);
	for (char *c = strtok_r(tmp, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(c, '=');
		if (!eq)
			continue;
		*eq = '\0';
		struct near fields = { .n = 0 }, vals = { .n = 0 };
		bool has_field = false, has_val = false;
		size_t i;
		json_t *el;
		json_array_foreach((json_t *)arr, i, el) {
			const char *k;
			json_t *v;
			json_object_foreach(el, k, v) {
				near_add(&fields, c, k);
				if (strcmp(k, c) != 0)
					continue;
				has_field = true;
				char vb[64];
				const char *fv = json_is_string(v) ? json_string_value(v) : NULL;
				if (json_is_integer(v)) {
					snprintf(vb, sizeof(vb), "%lld", (long long)json_integer_value(v));
					fv = vb;
				}
				if (fv && strcmp(fv, eq + 1) == 0)
					has_val = true;
				else if (json_is_string(v))
					near_add(&vals, eq + 1, json_string_value(v));
			}
		}
		char list[256];
		if (!has_field) {
			near_print(&fields, list, sizeof(list));
			snprintf(why, len, "the elements of %.200s have no field '%.100s' (nearest: %.300s)", prefix, c,
				 list);
			return;
		}
		if (!has_val) {
			near_print(&vals, list, sizeof(list));
			snprintf(why, len, "no element of %.200s has %.100s=%.100s (nearest: %.300s)", prefix, c, eq + 1,
				 list);
			return;
		}
	}
	snprintf(why, len, "no element of %.200s matches [%.*s]", prefix, (int)(n < 200 ? n : 200), sel);
}

/* 0 when path resolves to a scalar in doc or stops under an array or object
 * that is empty before the run; else 1 and why. */
static int check_in(const json_t *doc, const char *path, char *why, size_t len)
{
	char prefix[1024];
	const json_t *cur = doc;
	size_t at = 0;
	while (path[at]) {
		if (path[at] == '.')
			at++;
		size_t n = step_len(path + at);
		snprintf(prefix, sizeof(prefix), "%.*s", (int)at, path);
		if (at && prefix[at - 1] == '.')
			prefix[at - 1] = '\0';
		char upto[1024];
		snprintf(upto, sizeof(upto), "%.*s", (int)(at + n), path);
		const json_t *next = sweep_json_lookup(doc, upto, NULL);
		if (!next) {
			const char *where = prefix[0] ? prefix : "the result";
			if ((json_is_array(cur) && json_array_size(cur) == 0) ||
			    (json_is_object(cur) && json_object_size(cur) == 0))
				return 0; /* filled by the run: nothing to check against */
			if (json_is_array(cur) && path[at] == '[' && path[at + 1] != '"') {
				const char *sel = path + at + 1;
				if (strchr(sel, '=') && strchr(sel, '=') < path + at + n) {
					selector_why(cur, where, sel, n - 2, why, len);
					return 1;
				}
				return 0; /* an index: the length is the run's */
			}
			if (json_is_object(cur)) {
				char key[256];
				if (path[at] == '[')
					snprintf(key, sizeof(key), "%.*s", (int)(n > 4 ? n - 4 : 0), path + at + 2);
				else
					snprintf(key, sizeof(key), "%.*s", (int)n, path + at);
				struct near nr = { .n = 0 };
				const char *k;
				json_t *v;
				json_object_foreach((json_t *)cur, k, v)
					near_add(&nr, key, k);
				char list[256];
				near_print(&nr, list, sizeof(list));
				snprintf(why, len, "%.200s has no key '%.100s' (nearest: %.300s)", where, key, list);
				return 1;
			}
			snprintf(why, len, "%.200s is %s, not an object or array", where,
				 json_is_string(cur) ? "a string" : "a number");
			return 1;
		}
		cur = next;
		at += n;
	}
	if (json_is_object(cur) || json_is_array(cur)) {
		char list[256] = "";
		size_t pos = 0, i = 0;
		const char *k;
		json_t *v;
		if (json_is_object(cur))
			json_object_foreach((json_t *)cur, k, v)
				if (i++ < 6 && pos < sizeof(list))
					pos += (size_t)snprintf(list + pos, sizeof(list) - pos, "%s%s",
								i > 1 ? ", " : "", k);
		snprintf(why, len, "%.200s is %s, not a number%s%.200s%s", path,
			 json_is_object(cur) ? "an object" : "an array", i ? " (keys: " : "", list,
			 i > 6 ? ", ...)" : i ? ")" : "");
		return 1;
	}
	return 0;
}

/* The documents to check against: point 0 first, then up to
 * CHECK_POINTS - 1 more spread over the sweep, made when first needed. */
struct refs {
	const struct sweep *sw;
	json_t *doc[CHECK_POINTS];
	bool tried[CHECK_POINTS];
	int n;
};

static const json_t *ref_at(struct refs *r, int i)
{
	if (!r->tried[i]) {
		r->tried[i] = true;
		int k = r->n > 1 ? (int)((long long)i * (r->sw->npoints - 1) / (r->n - 1)) : 0;
		r->doc[i] = reference_doc(r->sw, &r->sw->points[k]);
	}
	return r->doc[i];
}

static int check_path(struct refs *r, const char *path, char *why, size_t len)
{
	bool any = false;
	for (int i = 0; i < r->n; i++) {
		const json_t *d = ref_at(r, i);
		if (!d)
			continue;
		char w[SIM_ERRMSG_MAX];
		if (!check_in(d, path, w, sizeof(w)))
			return 0;
		if (!any)
			snprintf(why, len, "%s", w); /* point 0's reason, the most typical */
		any = true;
	}
	return any ? SIM_E_INPUT : 0; /* no point could be created: the run says why */
}

static void refs_init(struct refs *r, const struct sweep *sw)
{
	memset(r, 0, sizeof(*r));
	r->sw = sw;
	r->n = sw->npoints < CHECK_POINTS ? sw->npoints : CHECK_POINTS;
}

static void refs_free(struct refs *r)
{
	for (int i = 0; i < CHECK_POINTS; i++)
		json_decref(r->doc[i]);
}

int sweep_check_metric_path(const struct sweep *sw, const char *path, char *why, size_t len)
{
	struct refs r;
	refs_init(&r, sw);
	int rc = check_path(&r, path, why, len);
	refs_free(&r);
	return rc;
}

int sweep_check_metrics(const struct sweep *sw, struct sim_error *err)
{
	struct refs r;
	refs_init(&r, sw);
	int rc = 0;
	for (int i = 0; i < sw->nmetrics && !rc; i++) {
		const struct sweep_metric *m = &sw->metrics[i];
		char why[SIM_ERRMSG_MAX], part[SWEEP_PATH_MAX];
		for (const char *cur = m->path; !rc && sweep_path_next(&cur, part, sizeof(part));) {
			if (!check_path(&r, part, why, sizeof(why)))
				continue;
			const struct cfg_node *pn = m->node;
			if (pn && pn->kind == CFG_MAP && cfg_get(pn, "path"))
				pn = cfg_get(pn, "path");
			rc = cfg_errorf(err, pn, "'%s' is not in the result: %.700s", part, why);
		}
	}
	refs_free(&r);
	return rc;
}
