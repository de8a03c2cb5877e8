/* Tests for sim/timeline.c: the document is valid JSON with the fields the
 * trace-event format needs; back-to-back slices of one state merge; an
 * overlapping slice on a serial track is shown from the previous end but
 * keeps its full length in args.ns; nested (region) slices are written as
 * given; counters are held back to their interval and the last value is
 * never lost; names are escaped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim/timeline.h"

struct doc {
	char *buf;
	size_t len;
	FILE *f;
	struct sim_timeline *tl;
	json_t *root;
};

static void doc_open(struct doc *d)
{
	memset(d, 0, sizeof(*d));
	d->f = open_memstream(&d->buf, &d->len);
	assert_non_null(d->f);
	d->tl = sim_timeline_new(d->f);
	assert_non_null(d->tl);
}

static json_t *doc_close(struct doc *d, int64_t end)
{
	assert_int_equal(sim_timeline_finish(d->tl, end), 0);
	fclose(d->f);
	json_error_t je;
	d->root = json_loadb(d->buf, d->len, 0, &je);
	if (!d->root)
		fail_msg("not JSON: %s at %d: %.*s", je.text, je.position, (int)d->len, d->buf);
	return json_object_get(d->root, "traceEvents");
}

static void doc_free(struct doc *d)
{
	json_decref(d->root);
	free(d->buf);
}

/* The i-th event of phase ph. */
static json_t *nth(json_t *ev, const char *ph, size_t n)
{
	size_t i;
	json_t *e;
	json_array_foreach(ev, i, e)
	{
		if (strcmp(json_string_value(json_object_get(e, "ph")), ph) == 0 && n-- == 0)
			return e;
	}
	return NULL;
}

static size_t count(json_t *ev, const char *ph)
{
	size_t n = 0;
	while (nth(ev, ph, n))
		n++;
	return n;
}

static double num(json_t *e, const char *k)
{
	return json_number_value(json_object_get(e, k));
}

static int64_t arg(json_t *e, const char *k)
{
	return json_integer_value(json_object_get(json_object_get(e, "args"), k));
}

static void test_merge_and_clip(void **state)
{
	(void)state;
	struct doc d;
	doc_open(&d);
	sim_timeline_track(d.tl, 10, 11, "app", "main");
	/* three back-to-back running bursts: one slice */
	sim_timeline_slice(d.tl, 10, 11, "cpu", "running", 1000, 500, true, "fg", NULL, 0);
	sim_timeline_slice(d.tl, 10, 11, "cpu", "running", 1500, 500, true, "fg", NULL, 0);
	sim_timeline_slice(d.tl, 10, 11, "cpu", "running", 2000, 250, true, "fg", NULL, 0);
	/* a wait charged from before the burst ended: shown from 2250 */
	sim_timeline_slice(d.tl, 10, 11, "wait", "read_io", 2200, 800, true, "fg", NULL, 0);
	/* a gap, then the same state again: not merged across the gap */
	sim_timeline_slice(d.tl, 10, 11, "cpu", "running", 5000, 100, true, "bg", NULL, 0);
	json_t *ev = doc_close(&d, 6000);
	assert_int_equal(count(ev, "X"), 3);
	json_t *run = nth(ev, "X", 0);
	assert_string_equal(json_string_value(json_object_get(run, "name")), "running");
	assert_true(num(run, "ts") == 1.0 && num(run, "dur") == 1.25);
	assert_int_equal(arg(run, "ns"), 1250);
	assert_int_equal(arg(run, "n"), 3);
	json_t *wait = nth(ev, "X", 1);
	assert_true(num(wait, "ts") == 2.25 && num(wait, "dur") == 0.75);
	assert_int_equal(arg(wait, "ns"), 800);
	assert_string_equal(json_string_value(json_object_get(json_object_get(wait, "args"), "class")),
			    "fg");
	assert_int_equal(count(ev, "M"), 2);
	doc_free(&d);
}

static void test_nested_regions_kept(void **state)
{
	(void)state;
	struct doc d;
	doc_open(&d);
	/* inner ends first, outer written second and starts earlier */
	sim_timeline_slice(d.tl, 1, TIMELINE_REGION_TID(1), "region", "inner", 2000, 1000, false,
			   NULL, NULL, 0);
	sim_timeline_slice(d.tl, 1, TIMELINE_REGION_TID(1), "region", "outer", 1000, 5000, false,
			   NULL, NULL, 0);
	json_t *ev = doc_close(&d, 6000);
	assert_int_equal(count(ev, "X"), 2);
	assert_true(num(nth(ev, "X", 1), "ts") == 1.0 && num(nth(ev, "X", 1), "dur") == 5.0);
	doc_free(&d);
}

static void test_counter_interval(void **state)
{
	(void)state;
	struct doc d;
	doc_open(&d);
	for (int64_t t = 0; t <= 10000; t += 100)
		sim_timeline_counter(d.tl, TIMELINE_PID_MEMORY, "dirty pages", t, (double)t, 1000);
	sim_timeline_counter(d.tl, TIMELINE_PID_MEMORY, "dirty pages", 10050, 7, 1000);
	json_t *ev = doc_close(&d, 20000);
	size_t n = count(ev, "C");
	assert_true(n >= 11 && n <= 13);
	json_t *last = nth(ev, "C", n - 1);
	assert_true(num(last, "ts") == 10.05);
	assert_true(json_number_value(json_object_get(json_object_get(last, "args"), "value")) == 7);
	/* the builtin process is named once */
	assert_int_equal(count(ev, "M"), 1);
	doc_free(&d);
}

static void test_escaping(void **state)
{
	(void)state;
	struct doc d;
	doc_open(&d);
	sim_timeline_track(d.tl, 5, 5, "a\"b\\c", "tab\there\x01");
	sim_timeline_slice(d.tl, 5, 5, "wait", "x\"y", 0, 10, true, NULL, "sec\"tor", 42);
	json_t *ev = doc_close(&d, 10);
	json_t *m = nth(ev, "M", 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(m, "args"), "name")),
			    "a\"b\\c");
	assert_int_equal(arg(nth(ev, "X", 0), "sec\"tor"), 42);
	doc_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_and_clip),
		cmocka_unit_test(test_nested_regions_kept),
		cmocka_unit_test(test_counter_interval),
		cmocka_unit_test(test_escaping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
