/* Sweep expansion (sim/cli/sweep.c): point order for grid, zip and groups,
 * inclusive ranges without float drift, log ranges, include/exclude
 * points, repetitions and their seeds, stable ids, metric paths, and
 * errors that name file:line:col. Nothing here runs a simulation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim/rng.h"
#include "sim/cli/sweep.h"
#include "tests/case_table.h"

static struct sweep *load(const char *text)
{
	struct sim_error err = { 0 };
	struct sweep *sw = NULL;
	int rc = sweep_load_string(text, strlen(text), "dir/sweep.yaml", &sw, &err);
	if (rc)
		fprintf(stderr, "unexpected error: %s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_non_null(sw);
	return sw;
}

/* The error message of a sweep that must not load. */
static const char *load_fails(const char *text)
{
	static struct sim_error err;
	struct sweep *sw = NULL;
	memset(&err, 0, sizeof(err));
	int rc = sweep_load_string(text, strlen(text), "dir/sweep.yaml", &sw, &err);
	assert_int_equal(rc, SIM_E_INPUT);
	assert_null(sw);
	return err.msg;
}

/* Value of key at point i, NULL when the point does not set it. */
static const char *cell(const struct sweep *sw, int i, const char *key)
{
	for (int c = 0; c < sw->nkeys; c++)
		if (strcmp(sw->keys[c], key) == 0)
			return sw->points[i].vals[c] ? sw->points[i].vals[c]->text : NULL;
	fail_msg("no column %s", key);
	return NULL;
}

/* The values of the single axis key, joined with ' '. */
static const char *axis_values(const char *spec)
{
	static char buf[1024];
	char text[512];
	snprintf(text, sizeof(text), "base: b.yaml\naxes:\n  k: %s\n", spec);
	struct sweep *sw = load(text);
	buf[0] = '\0';
	for (int i = 0; i < sw->npoints; i++) {
		if (i)
			strcat(buf, " ");
		strcat(buf, cell(sw, i, "k"));
	}
	sweep_free(sw);
	return buf;
}

static void test_sweep_grid_first_axis_slowest(void **state)
{
	struct sweep *sw = load("base: ../scen/mm1.yaml\n"
				"axes:\n"
				"  a: [1, 2]\n"
				"  b: {values: [x, y, z]}\n");
	assert_int_equal(sw->npoints, 6);
	assert_string_equal(sw->base, "dir/../scen/mm1.yaml");
	const char *want[6][2] = { { "1", "x" }, { "1", "y" }, { "1", "z" },
				   { "2", "x" }, { "2", "y" }, { "2", "z" } };
	for (int i = 0; i < 6; i++) {
		assert_string_equal(cell(sw, i, "a"), want[i][0]);
		assert_string_equal(cell(sw, i, "b"), want[i][1]);
		assert_int_equal(sw->points[i].index, i);
	}
	sweep_free(sw);
}

/* A sweep and the points it expands to: their number and some of their
 * cells (want NULL: the point does not set the key). */
struct points_row {
	const char *name;
	const char *text;
	int npoints;
	struct {
		int i;
		const char *key, *want;
	} cells[10];            /* up to the first with key NULL */
	int nkeys;              /* 0: not checked */
	const char *last_key;   /* the last column, or NULL */
};

static const struct points_row points_rows[] = {
	{ "zip pairs values",
	  "base: b.yaml\ncombine: zip\naxes:\n  source.rate_per_s: [1000, 2000, 4000]\n"
	  "  device.mean_us: [400, 200, 100]\n",
	  3,
	  { { 2, "source.rate_per_s", "4000" }, { 2, "device.mean_us", "100" },
	    { 0, "device.mean_us", "400" } } , 0, NULL },
	/* A list keeps the order explicit and allows several groups. */
	{ "a grid of a zip group and an axis",
	  "base: b.yaml\naxes:\n  - zip:\n      a: [1, 2, 3]\n      b: [10, 20, 30]\n  - c: [p, q]\n",
	  6,
	  { { 0, "a", "1" }, { 0, "b", "10" }, { 1, "c", "q" }, { 1, "b", "10" }, { 5, "a", "3" },
	    { 5, "b", "30" }, { 5, "c", "q" } } , 0, NULL },
	{ "exclude and include points",
	  "base: b.yaml\naxes:\n  a: [1, 2]\n  b: [x, y]\nexclude_points:\n  - {a: 2, b: y}\n"
	  "include_points:\n  - {a: 3, b: x}\n"
	  "  - {a: 1.0, b: x}\n" /* already there (1 == 1.0): not added twice */
	  "  - {c: 9}\n",
	  5,
	  { { 0, "b", "x" }, { 1, "b", "y" },
	    { 2, "a", "2" }, { 2, "b", "x" }, /* (2, x) kept, (2, y) gone */
	    { 3, "a", "3" }, { 3, "c", NULL }, { 4, "c", "9" }, { 4, "a", NULL } },
	  3, "c" },
	/* A list value in an exclude matches any of its values. */
	{ "an exclude with a list value",
	  "base: b.yaml\naxes: {a: [1, 2, 3], b: [x, y]}\nexclude: [{a: [1, 3]}]\n", 2,
	  { { 0, "a", "2" }, { 1, "a", "2" } } , 0, NULL },
};

static void test_sweep_points_row(void **state)
{
	const struct points_row *row = *state;
	struct sweep *sw = load(row->text);

	if (sw->npoints != row->npoints)
		fail_msg("%s: %d points, expected %d", row->name, sw->npoints, row->npoints);
	for (int c = 0; c < 10 && row->cells[c].key; c++) {
		const char *got = cell(sw, row->cells[c].i, row->cells[c].key);
		const char *want = row->cells[c].want;

		if (want ? !got || strcmp(got, want) : got != NULL)
			fail_msg("%s: point %d %s is %s, expected %s", row->name, row->cells[c].i,
				 row->cells[c].key, got ? got : "(unset)", want ? want : "(unset)");
	}
	if (row->nkeys && sw->nkeys != row->nkeys)
		fail_msg("%s: %d keys, expected %d", row->name, sw->nkeys, row->nkeys);
	if (row->last_key && strcmp(sw->keys[sw->nkeys - 1], row->last_key))
		fail_msg("%s: last key %s, expected %s", row->name, sw->keys[sw->nkeys - 1], row->last_key);
	sweep_free(sw);
}

/* One axis spec and the values it expands to, in order. */
struct axis_row {
	const char *name;
	const char *spec;
	const char *want;
};

static const struct axis_row axis_rows[] = {
	/* ranges include their end */
	{ "range 1..9 step 2", "{range: {from: 1, to: 9, step: 2}}", "1 3 5 7 9" },
	{ "range 1..8 step 2", "{range: {from: 1, to: 8, step: 2}}", "1 3 5 7" },
	{ "range 10..0 step -5", "{range: {from: 10, to: 0, step: -5}}", "10 5 0" },
	{ "range 3..5 default step", "{range: {from: 3, to: 5}}", "3 4 5" },
	{ "range 4..4", "{range: {from: 4, to: 4, step: 1}}", "4" },
	/* Accumulating 0.1 ten times gives 0.9999999999999999 and would drop
	 * the end; from + i*step with the end snapped does not. */
	{ "range 0..1 step 0.1 without drift", "{range: {from: 0, to: 1, step: 0.1}}",
	  "0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1" },
	{ "range 0..2 step 0.7", "{range: {from: 0, to: 2, step: 0.7}}", "0 0.7 1.4" },
	{ "range 0.5..0.2 step -0.1", "{range: {from: 0.5, to: 0.2, step: -0.1}}", "0.5 0.4 0.3 0.2" },
	/* units are carried */
	{ "range in ms", "{range: {from: 1ms, to: 3ms, step: 1ms}}", "1ms 2ms 3ms" },
	{ "range in ms, bare step", "{range: {from: 0.5ms, to: 1.5ms, step: 0.5}}", "0.5ms 1ms 1.5ms" },
	/* log ranges */
	{ "log per decade 1", "{log: {from: 1, to: 1000, per_decade: 1}}", "1 10 100 1000" },
	{ "log per decade 3", "{log: {from: 1, to: 10, per_decade: 3}}", "1 2.15443 4.64159 10" },
	{ "log factor 2", "{log: {from: 1, to: 64, factor: 2}}", "1 2 4 8 16 32 64" },
	{ "log factor 2 short of the end", "{log: {from: 3, to: 20, factor: 2}}", "3 6 12" },
	{ "log factor 4 in KiB", "{log: {from: 4KiB, to: 64KiB, factor: 4}}", "4KiB 16KiB 64KiB" },
	/* rounding to integers drops the duplicates it creates */
	{ "log rounded", "{log: {from: 1, to: 10, per_decade: 10, round: true}}", "1 2 3 4 5 6 8 10" },
};

static void test_sweep_axis_row(void **state)
{
	const struct axis_row *row = *state;

	assert_string_equal(axis_values(row->spec), row->want);
}

/* A sweep that must not load, and what its message must contain: the
 * place (file:line:), when given, and the words that say what is wrong. */
struct error_row {
	const char *name;
	const char *text;
	const char *where;
	const char *what;
};

static const struct error_row error_rows[] = {
	{ "zip of unequal lengths", "base: b.yaml\ncombine: zip\naxes:\n  a: [1, 2, 3]\n  b: [4, 5]\n",
	  "dir/sweep.yaml:5:", "same length" },
	{ "a key swept twice", "base: b.yaml\naxes:\n  a: [1]\n  grid:\n    a: [2]\n", NULL,
	  "swept twice" },
	{ "range ends in other units", "base: b.yaml\naxes:\n  k: {range: {from: 1ms, to: 3us, step: 1ms}}\n",
	  "dir/sweep.yaml:3:", "unit" },
	{ "range stepping away", "base: b.yaml\naxes:\n  k: {range: {from: 1, to: 5, step: -1}}\n", NULL,
	  "goes away" },
	{ "range step 0", "base: b.yaml\naxes:\n  k: {range: {from: 1, to: 5, step: 0}}\n", NULL,
	  "must not be 0" },
	{ "range too long", "base: b.yaml\naxes:\n  k: {range: {from: 0, to: 1e9}}\n", NULL, "limit" },
	{ "log from 0", "base: b.yaml\naxes:\n  k: {log: {from: 0, to: 10, factor: 2}}\n", NULL,
	  "0 < from" },
	{ "log with factor and per_decade",
	  "base: b.yaml\naxes:\n  k: {log: {from: 1, to: 10, factor: 2, per_decade: 2}}\n", NULL,
	  "one of per_decade, factor" },
	{ "exclude of a key not swept", "base: b.yaml\naxes: {a: [1]}\nexclude_points:\n  - {z: 1}\n",
	  "dir/sweep.yaml:4:", "not a swept key" },
	{ "repetitions and a seed axis", "base: b.yaml\nrepetitions: 2\naxes: {seed: [1, 2]}\n", NULL,
	  "exclude each other" },
	{ "repetitions 0", "base: b.yaml\nrepetitions: 0\n", "dir/sweep.yaml:2:", NULL },
	{ "a bad metric path", "base: b.yaml\nmetrics:\n  x: 1\n  y: a..b\n", "dir/sweep.yaml:4:", NULL },
	{ "an unknown key", "base: b.yaml\naxis: {a: [1]}\n", "dir/sweep.yaml:2:", "unknown key" },
	{ "no base", "axes: {a: [1]}\n", NULL, "base" },
	{ "values and range", "base: b.yaml\naxes:\n  a: {values: [1], range: {from: 1, to: 2}}\n",
	  "dir/sweep.yaml:3:", "exactly one" },
	{ "an empty axis", "base: b.yaml\naxes:\n  a: []\n", NULL, "no values" },
	{ "an axis without values", "base: b.yaml\naxes:\n  a:\n  b: [1]\n", NULL, "no values" },
	{ "include for include_points", "base: b.yaml\naxes: {a: [1]}\ninclude:\n  - {a: 2}\n",
	  "dir/sweep.yaml:4:", "include_points" },
	{ "an unknown combine", "base: b.yaml\ncombine: diagonal\n", NULL, "grid or zip" },
	{ "a range from a word", "base: b.yaml\naxes:\n  a: {range: {from: x, to: 2}}\n",
	  "dir/sweep.yaml:3:", NULL },
	/* the grid limit is checked before anything big is allocated */
	{ "a grid over the limit",
	  "base: b.yaml\naxes:\n  a: {range: {from: 1, to: 1000}}\n  b: {range: {from: 1, to: 1000}}\n"
	  "  c: {range: {from: 1, to: 1000}}\n",
	  NULL, "more than" },
};

static void test_sweep_error_row(void **state)
{
	const struct error_row *row = *state;
	const char *msg = load_fails(row->text);

	if (row->where && !strstr(msg, row->where))
		fail_msg("%s: message '%s' does not name %s", row->name, msg, row->where);
	if (row->what && !strstr(msg, row->what))
		fail_msg("%s: message '%s' does not say '%s'", row->name, msg, row->what);
}

static void test_sweep_range_float_long(void **state)
{
	/* a long float range keeps its count: 1000 steps of 0.001 */
	struct sweep *sw = load("base: b.yaml\naxes:\n  k: {range: {from: 0, to: 1, step: 0.001}}\n");
	assert_int_equal(sw->npoints, 1001);
	assert_string_equal(cell(sw, 1000, "k"), "1");
	assert_string_equal(cell(sw, 300, "k"), "0.3");
	sweep_free(sw);
}

static void test_sweep_repetitions_derive_seeds(void **state)
{
	struct sweep *sw = load("base: b.yaml\nseed: 7\nrepetitions: 3\naxes: {a: [1, 2]}\n");
	assert_int_equal(sw->npoints, 6);
	for (int i = 0; i < 6; i++) {
		char name[16];
		snprintf(name, sizeof(name), "rep/%d", i % 3);
		assert_int_equal(sw->points[i].rep, i % 3);
		assert_true(sw->points[i].seed_set);
		assert_true(sw->points[i].seed == (sim_rng_derive_seed(7, name) & ((1ull << 53) - 1)));
		assert_true(sw->points[i].seed == sweep_rep_seed(7, i % 3));
	}
	/* repetitions are innermost; rep r has the same seed at every point
	 * (common random numbers across the axes), and reps differ */
	assert_string_equal(cell(sw, 2, "a"), "1");
	assert_string_equal(cell(sw, 3, "a"), "2");
	assert_true(sw->points[0].seed == sw->points[3].seed);
	assert_true(sw->points[0].seed != sw->points[1].seed);
	assert_true(sw->points[1].seed != sw->points[2].seed);
	/* ids differ per repetition */
	assert_string_not_equal(sw->points[0].id + 5, sw->points[1].id + 5);
	sweep_free(sw);

	/* without repetitions or seed: the scenario's own seed is used */
	sw = load("base: b.yaml\naxes: {a: [1]}\n");
	assert_false(sw->points[0].seed_set);
	sweep_free(sw);
}

static void test_sweep_base_seed_from_scenario(void **state)
{
	char dir[] = "/tmp/test_sweep_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char base[128], sweepf[128];
	snprintf(base, sizeof(base), "%s/base.yaml", dir);
	snprintf(sweepf, sizeof(sweepf), "%s/s.yaml", dir);
	FILE *f = fopen(base, "w");
	fputs("seed: 42\ndevice: {model: ideal}\n", f);
	fclose(f);
	f = fopen(sweepf, "w");
	fputs("base: base.yaml\nrepetitions: 2\n", f);
	fclose(f);
	struct sim_error err = { 0 };
	struct sweep *sw;
	assert_int_equal(sweep_load_file(sweepf, &sw, &err), 0);
	assert_string_equal(sw->base, base);
	assert_int_equal(sw->npoints, 2);
	assert_true(sw->points[1].seed == sweep_rep_seed(42, 1));
	assert_true(sweep_rep_seed(42, 1) != sweep_rep_seed(43, 1));
	sweep_free(sw);
	/* a base that does not exist is named at the base: line */
	f = fopen(sweepf, "w");
	fputs("# comment\nbase: nothere.yaml\n", f);
	fclose(f);
	assert_int_equal(sweep_load_file(sweepf, &sw, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "s.yaml:2:7:"));
	assert_non_null(strstr(err.msg, "nothere.yaml"));
	unlink(base);
	unlink(sweepf);
	rmdir(dir);
}

static void test_sweep_ids_stable_and_findable(void **state)
{
	const char *text = "base: b.yaml\naxes:\n  a: [1, 2]\n  b: [x, y]\n";
	struct sweep *s1 = load(text), *s2 = load(text);
	/* same assignment, axes in the other order: same hash part */
	struct sweep *s3 = load("base: b.yaml\naxes:\n  b: [x, y]\n  a: [1, 2]\n");
	for (int i = 0; i < s1->npoints; i++) {
		assert_string_equal(s1->points[i].id, s2->points[i].id);
		assert_int_equal(strlen(s1->points[i].id), 13);
		assert_int_equal(s1->points[i].id[4], '-');
		for (int j = 0; j < i; j++)
			assert_string_not_equal(s1->points[i].id + 5, s1->points[j].id + 5);
	}
	/* s1 point 1 is (a=1, b=y); in s3 that is point 2 (b=y slowest ... a=1) */
	assert_string_equal(s1->points[1].id + 5, s3->points[2].id + 5);
	struct sim_error err = { 0 };
	assert_int_equal(sweep_find_point(s1, "3", &err), 3);
	assert_int_equal(sweep_find_point(s1, s1->points[2].id, &err), 2);
	assert_int_equal(sweep_find_point(s1, "4", &err), -1);
	assert_int_equal(err.code, SIM_E_INPUT);
	assert_int_equal(sweep_find_point(s1, "0002-00000000", &err), -1);
	sweep_free(s1);
	sweep_free(s2);
	sweep_free(s3);
}

static void test_sweep_sets_fixed_first_then_point(void **state)
{
	struct sweep *sw = load("base: b.yaml\n"
				"set:\n"
				"  source: {requests: 2000}\n"
				"  policies: [expc, boost]\n"
				"axes:\n"
				"  scheduler: [noop, cfq]\n");
	int n;
	char **sets = sweep_point_sets(sw, &sw->points[1], &n);
	assert_int_equal(n, 3);
	assert_string_equal(sets[0], "source.requests=2000");
	assert_string_equal(sets[1], "policies=[expc, boost]");
	assert_string_equal(sets[2], "scheduler=cfq");
	sweep_free_sets(sets, n);
	json_t *a = sweep_point_assignment_json(sw, &sw->points[0]);
	assert_string_equal(json_string_value(json_object_get(a, "scheduler")), "noop");
	json_decref(a);
	sweep_free(sw);
}

static void test_sweep_metric_paths(void **state)
{
	json_error_t je;
	json_t *doc = json_loads(
		"{\"classes\": {\"fg\": {\"read\": {\"lat_ns\": {\"p99\": 12345, \"mean\": 1.5,"
		"   \"percentile\": {\"99.000000\": 42}}}}},"
		" \"regions\": [{\"name\": \"boot\", \"duration_ns\": 5},"
		"              {\"name\": \"launch\", \"duration_ns\": 7000}],"
		" \"waits\": [{\"cause\": \"read_io\", \"class\": \"bg\", \"count\": 1},"
		"           {\"cause\": \"read_io\", \"class\": \"fg\", \"count\": 3}],"
		" \"engine\": {\"end\": \"done\", \"ok\": true}}",
		0, &je);
	assert_non_null(doc);
	struct { const char *path; double scale; const char *want; bool ok; } cases[] = {
		{ "classes.fg.read.lat_ns.p99", 1, "12345", true },
		{ "classes.fg.read.lat_ns.p99", 1e-3, "12.345", true },
		{ "classes.fg.read.lat_ns.mean", 2, "3", true },
		{ "classes.fg.read.lat_ns.percentile[\"99.000000\"]", 1, "42", true },
		{ "regions[name=launch].duration_ns", 1, "7000", true },
		{ "regions[1].duration_ns", 1, "7000", true },
		{ "regions[0].duration_ns", 1, "5", true },
		{ "waits[cause=read_io,class=fg].count", 1, "3", true },
		{ "waits[class=fg].count", 1, "3", true },
		{ "waits[count=1.0].class", 1, "bg", true },
		{ "engine.end", 1, "done", true },
		{ "engine.ok", 1, "1", true },
		{ "regions[name=fsync].duration_ns", 1, "NaN", false },
		{ "regions[7].duration_ns", 1, "NaN", false },
		{ "classes.bg.read.lat_ns.p99", 1, "NaN", false },
		{ "classes.fg.read", 1, "NaN", false }, /* not a scalar */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sweep_metric m = { .path = (char *)cases[i].path, .scale = cases[i].scale };
		char buf[64];
		assert_true(sweep_json_path_check(cases[i].path) == NULL);
		bool ok = sweep_metric_format(&m, doc, buf, sizeof(buf));
		if (ok != cases[i].ok || strcmp(buf, cases[i].want))
			fail_msg("%s: got %s, want %s", cases[i].path, buf, cases[i].want);
	}
	json_decref(doc);
	assert_non_null(sweep_json_path_check("a..b"));
	assert_non_null(sweep_json_path_check("a[1"));
	assert_non_null(sweep_json_path_check("a[=x]"));
	assert_non_null(sweep_json_path_check("a[1]b"));

	/* metrics in a sweep file: scale and bad paths with their line */
	struct sweep *sw = load("base: b.yaml\n"
				"metrics:\n"
				"  fg_p99_us: {path: classes.fg.read.lat_ns.p99, scale: 1e-3}\n"
				"  launch_ns: regions[name=launch].duration_ns\n");
	assert_int_equal(sw->nmetrics, 2);
	assert_true(sw->metrics[0].scale == 1e-3);
	assert_string_equal(sw->metrics[1].path, "regions[name=launch].duration_ns");
	sweep_free(sw);
}

static void test_sweep_no_axes_is_one_point(void **state)
{
	struct sweep *sw = load("base: b.yaml\nset: {source.requests: 10}\n");
	assert_int_equal(sw->npoints, 1);
	assert_int_equal(sw->nkeys, 0);
	assert_int_equal(sw->nsets, 1);
	assert_string_equal(sw->sets[0], "source.requests=10");
	sweep_free(sw);
}

int main(void)
{
	const struct CMUnitTest named[] = {
		cmocka_unit_test(test_sweep_grid_first_axis_slowest),
		cmocka_unit_test(test_sweep_range_float_long),
		cmocka_unit_test(test_sweep_repetitions_derive_seeds),
		cmocka_unit_test(test_sweep_base_seed_from_scenario),
		cmocka_unit_test(test_sweep_ids_stable_and_findable),
		cmocka_unit_test(test_sweep_sets_fixed_first_then_point),
		cmocka_unit_test(test_sweep_metric_paths),
		cmocka_unit_test(test_sweep_no_axes_is_one_point),
	};
	struct CMUnitTest tests[CASE_COUNT(named) + CASE_COUNT(points_rows) + CASE_COUNT(axis_rows) +
				CASE_COUNT(error_rows)];
	struct CMUnitTest *t = tests;

	memcpy(t, named, sizeof(named));
	t += CASE_COUNT(named);
	CASE_TESTS(t, points_rows, test_sweep_points_row);
	t += CASE_COUNT(points_rows);
	CASE_TESTS(t, axis_rows, test_sweep_axis_row);
	t += CASE_COUNT(axis_rows);
	CASE_TESTS(t, error_rows, test_sweep_error_row);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
