/* The point index of a sweep: OUT/points-index.jsonl, one line per finished
 * point holding what the summary reads of its result (key cells, seed,
 * metric cells, phase key, warnings), appended by the process that wrote
 * the point file, right after the file went in place.
 *
 * Why: the summary and --resume used to parse every point's result again,
 * in the main process and in point order after the pool had finished; at
 * 10^4 points of a 24 KiB result that was 4.3 M instructions a point, most
 * of the main process's work (issue 34). A line is a few hundred bytes.
 *
 * Why it can never give a wrong row: the index is a cache. A line is used
 * only when the point file it names is still the very file it was made
 * from (same inode, size and modification time in ns: a rerun renames a new
 * file over it, an edit changes them) and when it was made under the same
 * summary spec (the keys, the metrics with path, scale and `missing`, the
 * seed column, the binary's version and revision, all hashed). Anything
 * else — no index, a torn last line from a kill or a full disk, a line of
 * an older sweep file — falls back to parsing the point file, as before.
 * It sits beside points/, not in it: points/ holds the point files only.
 * Appends are single write(2)s with O_APPEND, so the pool's workers, or
 * Slurm array tasks running --point into one directory, never interleave
 * within a line; each line starts with a newline, so a torn line cannot
 * swallow the next. The last valid line for an id wins.
 */
#include "sim/cli/sweep_index.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "sim/cli/sweep.h"
#include "sim/cli/warnings.h"
#include "sim/sim.h"
#include "version.h"

struct sweep_index {
	json_t *rows; /* id -> row with "file" identity */
	char spec[17];
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return fnv(h, s ? s : "", (s ? strlen(s) : 0) + 1);
}

/* The summary spec: what, beside the point file, decides a row. */
static void spec_hash(const struct sweep *sw, char out[17])
{
	char num[64];
	uint64_t h = fnv_str(1469598103934665603ULL, "mobisim sweep index 1");
	h = fnv_str(h, MOBISIM_VERSION);
	h = fnv_str(h, sim_git_revision());
	snprintf(num, sizeof(num), "%d %d %d", sw->nkeys, sw->nmetrics, sw->seeds_derived);
	h = fnv_str(h, num);
	for (int c = 0; c < sw->nkeys; c++)
		h = fnv_str(h, sw->keys[c]);
	for (int m = 0; m < sw->nmetrics; m++) {
		const struct sweep_metric *sm = &sw->metrics[m];
		snprintf(num, sizeof(num), "%.17g %d %.17g", sm->scale, sm->has_missing, sm->missing);
		h = fnv_str(fnv_str(fnv_str(h, sm->name), sm->path), num);
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static json_t *file_identity(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	char buf[96];
	snprintf(buf, sizeof(buf), "%llu %lld %lld.%09ld", (unsigned long long)st.st_ino,
		 (long long)st.st_size, (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
	return json_string(buf);
}

json_t *sweep_row_from_doc(const struct sweep *sw, const struct sweep_point *p, const json_t *doc)
{
	json_t *row = json_object(), *keys = json_array(), *mets = json_array(),
	       *absent = json_array();
	char buf[512];
	if (!row || !keys || !mets || !absent) {
		json_decref(row);
		json_decref(keys);
		json_decref(mets);
		json_decref(absent);
		return NULL;
	}
	const json_t *config = json_object_get(doc, "config");
	for (int c = 0; c < sw->nkeys; c++) {
		if (p->vals[c]) {
			json_array_append_new(keys, json_string(p->vals[c]->text));
			continue;
		}
		/* not assigned here: what the point ran with */
		struct sweep_metric m = { .path = sw->keys[c], .scale = 1.0 };
		if (!sweep_metric_format(&m, config, buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "-");
		json_array_append_new(keys, json_string(buf));
	}
	json_object_set_new(row, "keys", keys);
	if (sw->seeds_derived) {
		struct sweep_metric m = { .path = "mobisim.seed", .scale = 1.0 };
		sweep_metric_format(&m, doc, buf, sizeof(buf));
		json_object_set_new(row, "seed", json_string(buf));
	}
	for (int m = 0; m < sw->nmetrics; m++) {
		if (!sweep_metric_format(&sw->metrics[m], doc, buf, sizeof(buf)))
			json_array_append_new(absent, json_integer(m));
		json_array_append_new(mets, json_string(buf));
	}
	json_object_set_new(row, "metrics", mets);
	json_object_set_new(row, "absent", absent);
	buf[0] = '\0';
	cli_phase_key(doc, buf, sizeof(buf));
	json_object_set_new(row, "phase_key", json_string(buf));
	json_t *w = cli_result_warnings(doc);
	json_object_set_new(row, "warnings", w ? w : json_array());
	return row;
}

void sweep_index_append(const struct sweep *sw, const struct sweep_point *p,
			const char *out_dir, const char *point_file, const json_t *row)
{
	json_t *id = file_identity(point_file);
	json_t *line = id ? json_deep_copy(row) : NULL;
	char spec[17], path[4200];
	if (!line) {
		json_decref(id);
		return;
	}
	spec_hash(sw, spec);
	json_object_set_new(line, "id", json_string(p->id));
	json_object_set_new(line, "file", id);
	json_object_set_new(line, "spec", json_string(spec));
	char *text = json_dumps(line, JSON_COMPACT);
	json_decref(line);
	size_t n = text ? strlen(text) : 0;
	char *rec = text ? malloc(n + 3) : NULL;
	if (rec) {
		rec[0] = '\n';
		memcpy(rec + 1, text, n);
		rec[n + 1] = '\n';
		snprintf(path, sizeof(path), "%s/points-index.jsonl", out_dir);
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
		if (fd >= 0) {
			/* one write: a short one leaves a torn line, which is skipped */
			ssize_t w = write(fd, rec, n + 2);
			(void)w;
			close(fd);
		}
	}
	free(rec);
	free(text);
}

static bool all_strings(const json_t *a, size_t n)
{
	if (!json_is_array(a) || json_array_size(a) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!json_is_string(json_array_get(a, i)))
			return false;
	return true;
}

/* The shape sweep_write_summary reads: a line edited by hand is not used. */
static bool row_ok(const struct sweep *sw, const json_t *row)
{
	const json_t *absent = json_object_get(row, "absent");
	size_t i;
	json_t *v;
	if (!all_strings(json_object_get(row, "keys"), (size_t)sw->nkeys) ||
	    !all_strings(json_object_get(row, "metrics"), (size_t)sw->nmetrics) ||
	    !json_is_array(absent) || !json_is_string(json_object_get(row, "phase_key")) ||
	    !json_is_array(json_object_get(row, "warnings")) ||
	    (sw->seeds_derived && !json_is_string(json_object_get(row, "seed"))))
		return false;
	json_array_foreach(absent, i, v)
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= sw->nmetrics)
			return false;
	json_array_foreach(json_object_get(row, "warnings"), i, v)
		if (!json_is_string(v))
			return false;
	return true;
}

struct sweep_index *sweep_index_load(const struct sweep *sw, const char *out_dir)
{
	struct sweep_index *ix = calloc(1, sizeof(*ix));
	if (!ix)
		return NULL;
	ix->rows = json_object();
	if (!ix->rows) {
		free(ix);
		return NULL;
	}
	spec_hash(sw, ix->spec);
	char path[4200];
	snprintf(path, sizeof(path), "%s/points-index.jsonl", out_dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return ix;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (len < 2)
			continue;
		json_error_t je;
		json_t *row = json_loadb(line, (size_t)len, 0, &je);
		const char *id = json_string_value(json_object_get(row, "id"));
		const char *spec = json_string_value(json_object_get(row, "spec"));
		if (id && spec && !strcmp(spec, ix->spec) &&
		    json_is_string(json_object_get(row, "file")) && row_ok(sw, row))
			json_object_set(ix->rows, id, row);
		json_decref(row);
	}
	free(line);
	fclose(f);
	return ix;
}

json_t *sweep_index_row(struct sweep_index *ix, const struct sweep_point *p, const char *point_file)
{
	json_t *row = ix ? json_object_get(ix->rows, p->id) : NULL;
	if (!row)
		return NULL;
	json_t *now = file_identity(point_file);
	bool same = now && json_equal(now, json_object_get(row, "file"));
	json_decref(now);
	return same ? json_incref(row) : NULL;
}

void sweep_index_free(struct sweep_index *ix)
{
	if (!ix)
		return;
	json_decref(ix->rows);
	free(ix);
}
