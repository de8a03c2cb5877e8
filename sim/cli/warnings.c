/* Warnings of a run's result (see warnings.h). They are in the result
 * document already; this turns them into the lines `mobisim run` prints,
 * so compare, sweep, sensitivity and validate say the same, once per
 * source and once per distinct text over many runs.
 */
#include "sim/cli/warnings.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "traces/trace.h"

static void add_text(json_t *out, const char *prefix, const char *text)
{
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s%s", prefix, text);
	json_array_append_new(out, json_string(buf));
}

static json_int_t get_int(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? json_integer_value(v) : 0;
}

/* One workload object (or a composite's source) into out. */
static void workload_warnings(const json_t *wl, const char *prefix, json_t *out)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(wl, "warnings"), i, v)
		if (json_is_string(v))
			add_text(out, prefix, json_string_value(v));
	const json_t *rw = json_object_get(wl, "reader_warnings");
	if (json_is_object(rw)) {
		const char *trace = json_string_value(json_object_get(wl, "trace"));
		char buf[512];
		json_array_foreach(json_object_get(rw, "notes"), i, v)
			if (json_is_string(v))
				add_text(out, prefix, json_string_value(v));
		json_int_t more = get_int(rw, "notes_total") -
				  (json_int_t)json_array_size(json_object_get(rw, "notes"));
		if (more > 0) {
			snprintf(buf, sizeof(buf), "%s: %" JSON_INTEGER_FORMAT " more warnings like these",
				 trace ? trace : "trace", more);
			add_text(out, prefix, buf);
		}
		json_int_t back = get_int(rw, "time_backwards");
		if (back > 0) {
			snprintf(buf, sizeof(buf), "%s: time goes backwards %" JSON_INTEGER_FORMAT " times",
				 trace ? trace : "trace", back);
			add_text(out, prefix, buf);
		}
		json_int_t jumps = get_int(rw, "clock_jumps");
		if (jumps > 0) {
			snprintf(buf, sizeof(buf),
				 "%s: %" JSON_INTEGER_FORMAT " gaps longer than %lld s between consecutive "
				 "events: %s", trace ? trace : "trace", jumps,
				 (long long)(TRACE_CLOCK_JUMP_NS / 1000000000LL),
				 trace_jump_guess(json_string_value(json_object_get(wl, "format"))));
			add_text(out, prefix, buf);
		}
	}
	const char *name;
	json_object_foreach((json_t *)json_object_get(wl, "sources"), name, v) {
		char sub[256];
		snprintf(sub, sizeof(sub), "%ssource %s: ", prefix, name);
		workload_warnings(v, sub, out);
	}
}

/* Whether every number under o (params aside) is 0: the policy's counters
 * say it never acted. False when there is no number at all. */
static bool all_zero(const json_t *o, bool *any)
{
	const char *k;
	json_t *v;
	size_t i;
	if (json_is_number(o)) {
		*any = true;
		return json_number_value(o) == 0;
	}
	if (json_is_object(o)) {
		json_object_foreach((json_t *)o, k, v)
			if (strcmp(k, "params") != 0 && !all_zero(v, any))
				return false;
	} else if (json_is_array(o)) {
		json_array_foreach(o, i, v)
			if (!all_zero(v, any))
				return false;
	}
	return true;
}

/* Why a policy could not act, from what the scenario built. */
static const char *inert_reason(const json_t *res, const json_t *pol)
{
	const char *why = json_string_value(json_object_get(pol, "inert"));
	if (why)
		return why;
	if (!json_object_get(res, "stack"))
		return "it acts above the block layer (page cache, file system, tasks), which "
		       "this scenario does not have: a block-level replay or a device-level "
		       "source feeds the block layer directly";
	if (!json_object_get(res, "block"))
		return "the scenario has no block layer";
	return NULL;
}

/* Policies in the set that had nothing to act on: not applied (the
 * scenario lacks the layer they work in) or every counter 0. A compare
 * whose columns are identical then says why instead of looking like a
 * finding. */
static void policy_warnings(const json_t *res, json_t *out)
{
	const json_t *pols = json_object_get(res, "policies");
	size_t i;
	json_t *n;
	json_array_foreach(json_object_get(pols, "names"), i, n) {
		const char *name = json_string_value(n);
		const json_t *pol = name ? json_object_get(pols, name) : NULL;
		if (!json_is_object(pol))
			continue;
		const json_t *applied = json_object_get(pol, "applied");
		bool any = false, zero = all_zero(pol, &any);
		const char *why = inert_reason(res, pol);
		char buf[768];
		if (json_is_false(applied))
			snprintf(buf, sizeof(buf), "policy %s had nothing to act on: %s", name,
				 why ? why : "it found nothing to change when the run was set up");
		else if (any && zero)
			snprintf(buf, sizeof(buf), "policy %s had nothing to act on: its counters are all "
				 "0%s%s", name, why ? ": " : " (nothing in this run triggered it)",
				 why ? why : "");
		else
			continue;
		json_array_append_new(out, json_string(buf));
	}
}

json_t *cli_result_warnings(const json_t *res)
{
	json_t *out = json_array();
	if (out) {
		workload_warnings(json_object_get(res, "workload"), "", out);
		policy_warnings(res, out);
	}
	return out;
}

size_t cli_warnings_print(FILE *f, const char *label, const json_t *warnings)
{
	size_t i;
	json_t *v;
	json_array_foreach(warnings, i, v)
		fprintf(f, "mobisim: warning: %s%s%s\n", label ? label : "", label ? ": " : "",
			json_string_value(v));
	return json_array_size(warnings);
}

/* The tally: an object keyed by the text ({"runs", "first"}), in the
 * order first seen (jansson keeps insertion order), so a text is found
 * in constant time however many runs there are. */
void cli_warn_tally_add(json_t *tally, const json_t *warnings, const char *label)
{
	size_t i;
	json_t *v;
	json_array_foreach(warnings, i, v) {
		const char *text = json_string_value(v);
		json_t *e = json_object_get(tally, text);
		if (e)
			json_object_set_new(e, "runs", json_integer(get_int(e, "runs") + 1));
		else
			json_object_set_new(tally, text,
					    json_pack("{s:I, s:s}", "runs", (json_int_t)1, "first", label));
	}
}

json_t *cli_warn_tally_json(const json_t *tally)
{
	json_t *out = json_array();
	const char *text;
	json_t *e;
	json_object_foreach((json_t *)tally, text, e)
		json_array_append_new(out, json_pack("{s:s, s:I, s:O}", "warning", text, "runs",
						     get_int(e, "runs"), "first",
						     json_object_get(e, "first")));
	return out;
}

size_t cli_warn_tally_print(FILE *f, const char *lead, const json_t *tally, size_t total,
			    const char *what, size_t max)
{
	size_t i = 0, n = json_object_size(tally);
	const char *text;
	json_t *e;
	json_object_foreach((json_t *)tally, text, e) {
		if (i++ == max) {
			fprintf(f, "%s%zu more distinct warnings (see each result's workload)\n", lead,
				n - max);
			break;
		}
		fprintf(f, "%s%s (%" JSON_INTEGER_FORMAT " of %zu %s, first %s)\n", lead, text,
			get_int(e, "runs"), total, what, json_string_value(json_object_get(e, "first")));
	}
	return n;
}

/* The best task with a fixed start under tasks (a map NAME: {gen, start ...})
 * at key prefix pre: *score 2 for a launching task, 1 for another. */
static void phase_pick(const json_t *tasks, const char *pre, char *best, size_t len, int *score)
{
	const char *name;
	json_t *t;
	json_object_foreach((json_t *)tasks, name, t) {
		json_t *start = json_object_get(t, "start");
		if (!json_is_object(t) || json_is_object(start) || json_is_array(start))
			continue; /* already drawn */
		const char *gen = json_string_value(json_object_get(t, "gen"));
		int sc = (gen && (!strcmp(gen, "app") || !strcmp(gen, "launch"))) ||
				 json_object_get(t, "region")
			 ? 2
			 : 1;
		if (sc > *score) {
			*score = sc;
			snprintf(best, len, "%stasks.%s.start", pre, name);
		}
	}
}

bool cli_phase_key(const json_t *res, char *buf, size_t len)
{
	const json_t *w = json_object_get(json_object_get(res, "config"), "workload");
	char best[300] = "";
	int score = 0;
	const char *type = json_string_value(json_object_get(w, "type"));
	if (type && !strcmp(type, "synthetic")) {
		phase_pick(json_object_get(w, "tasks"), "workload.", best, sizeof(best), &score);
	} else if (type && !strcmp(type, "composite")) {
		const char *src;
		json_t *sv;
		json_object_foreach(json_object_get(w, "sources"), src, sv) {
			const char *st = json_string_value(json_object_get(sv, "type"));
			if (!st || strcmp(st, "synthetic"))
				continue;
			char pre[200];
			snprintf(pre, sizeof(pre), "workload.sources.%s.", src);
			phase_pick(json_object_get(sv, "tasks"), pre, best, sizeof(best), &score);
		}
	}
	snprintf(buf, len, "%s", score ? best : "");
	return score > 0;
}
