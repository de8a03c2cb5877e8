/* Tests for sim/cli/timeline_proto.c, decoded with traces/protowire.c: the
 * file is a Trace of TracePackets on one sequence whose first packet
 * clears the incremental state; tracks are described once before use with
 * their parent; names are interned once and round-trip; slices rebuilt as
 * trace_processor does (timestamp order, ties in file order, an END closes
 * the innermost open slice) are the timeline's, after its merge and clip
 * rules, with their args; nested regions that start together keep their
 * nesting; counters are double samples on counter tracks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/cli/timeline_proto.h"
#include "sim/timeline.h"
#include "traces/protowire.h"

#define MAXN 64

struct track {
	uint64_t uuid, parent;
	char name[32];
	bool counter;
	int described;
};

/* An event as decoded, in file order. */
struct event {
	uint64_t ts, uuid, type, name_iid;
	int order;
	double value;
	int64_t ns, n, arg;
	char cls[8];
};

/* A slice rebuilt from BEGIN/END. */
struct slice {
	char track[32], name[32];
	uint64_t start, end;
	int depth;
	int64_t ns, n, arg;
	char cls[8];
};

struct decoded {
	struct track tracks[MAXN];
	int ntracks;
	char names[4][MAXN][32]; /* interned tables 1-3, by iid */
	struct event ev[MAXN];
	int nev;
	struct slice sl[MAXN];
	int nsl;
	int packets;
};

static struct track *track_of(struct decoded *d, uint64_t uuid)
{
	for (int i = 0; i < d->ntracks; i++)
		if (d->tracks[i].uuid == uuid)
			return &d->tracks[i];
	return NULL;
}

static void set(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	assert_true(n < cap);
	memmove(dst, src, n + 1);
}

static void copy(char *dst, const struct pw_field *f)
{
	assert_true(f->len < 32);
	memcpy(dst, f->p, f->len);
	dst[f->len] = 0;
}

static void decode_annotation(struct decoded *d, struct event *e, const struct pw_field *a)
{
	struct pw_reader r;
	struct pw_field f;
	const char *name = NULL;
	int64_t iv = 0;
	char sv[8] = "";
	pw_init(&r, a->p, a->len);
	while (pw_next(&r, &f) == 1) {
		if (f.id == 1)
			name = d->names[3][f.v];
		else if (f.id == 4)
			iv = pw_int(f.v);
		else if (f.id == 6)
			copy(sv, &f);
	}
	assert_non_null(name);
	if (!strcmp(name, "ns"))
		e->ns = iv;
	else if (!strcmp(name, "n"))
		e->n = iv;
	else if (!strcmp(name, "class"))
		snprintf(e->cls, sizeof(e->cls), "%s", sv);
	else
		e->arg = iv;
}

static void decode_packet(struct decoded *d, const uint8_t *p, size_t len)
{
	struct pw_reader r;
	struct pw_field f, g;
	uint64_t seq = 0, flags = 0, ts = 0;
	bool interned_use = false;
	struct event *e = NULL;
	/* interned names first: a packet may carry them after the event that
	 * uses them (trace_processor reads them first too) */
	pw_init(&r, p, len);
	while (pw_next(&r, &f) == 1) {
		struct pw_reader s;
		if (f.id != 12)
			continue;
		pw_init(&s, f.p, f.len);
		while (pw_next(&s, &g) == 1) {
			struct pw_field iid, name;
			assert_true(g.id >= 1 && g.id <= 3);
			assert_true(pw_find(g.p, g.len, 1, &iid) && pw_find(g.p, g.len, 2, &name));
			assert_true(iid.v > 0 && iid.v < MAXN);
			assert_string_equal(d->names[g.id][iid.v], ""); /* interned once */
			copy(d->names[g.id][iid.v], &name);
		}
	}
	pw_init(&r, p, len);
	while (pw_next(&r, &f) == 1) {
		struct pw_reader s;
		switch (f.id) {
		case 8:
			ts = f.v;
			break;
		case 10:
			seq = f.v;
			break;
		case 13:
			flags = f.v;
			break;
		case 12: /* InternedData, read above: a table's entries {iid 1, name 2} */
			interned_use = true;
			break;
		case 60: { /* TrackDescriptor */
			struct pw_field u;
			assert_true(pw_find(f.p, f.len, 1, &u));
			struct track *t = track_of(d, u.v);
			if (!t) {
				assert_true(d->ntracks < MAXN);
				t = &d->tracks[d->ntracks++];
			}
			t->uuid = u.v;
			t->described++;
			if (pw_find(f.p, f.len, 2, &g))
				copy(t->name, &g);
			if (pw_find(f.p, f.len, 5, &g)) {
				assert_non_null(track_of(d, g.v)); /* the parent comes first */
				t->parent = g.v;
			}
			t->counter = pw_find(f.p, f.len, 8, &g);
			break;
		}
		case 11: { /* TrackEvent */
			assert_true(d->nev < MAXN);
			e = &d->ev[d->nev++];
			memset(e, 0, sizeof(*e));
			e->order = d->nev;
			pw_init(&s, f.p, f.len);
			while (pw_next(&s, &g) == 1) {
				if (g.id == 9)
					e->type = g.v;
				else if (g.id == 11)
					e->uuid = g.v;
				else if (g.id == 10)
					e->name_iid = g.v;
				else if (g.id == 3)
					assert_string_not_equal(d->names[1][g.v], "");
				else if (g.id == 4)
					decode_annotation(d, e, &g);
				else if (g.id == 44) {
					assert_int_equal(g.wt, PW_I64);
					memcpy(&e->value, &g.v, sizeof(e->value));
				}
			}
			assert_non_null(track_of(d, e->uuid)); /* described before use */
			break;
		}
		default:
			fail_msg("unexpected TracePacket field %u", f.id);
		}
	}
	assert_int_equal(seq, 1);
	if (d->packets == 0)
		assert_true(flags & 1); /* SEQ_INCREMENTAL_STATE_CLEARED */
	if (interned_use || (e && e->name_iid))
		assert_true(flags & 2); /* SEQ_NEEDS_INCREMENTAL_STATE */
	if (e)
		e->ts = ts;
	d->packets++;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order - y->order;
}

static void rebuild(struct decoded *d)
{
	qsort(d->ev, (size_t)d->nev, sizeof(d->ev[0]), ev_cmp);
	struct {
		uint64_t uuid;
		int ev;
	} open[MAXN];
	int nopen = 0;
	for (int i = 0; i < d->nev; i++) {
		struct event *e = &d->ev[i];
		if (e->type == 1) {
			open[nopen].uuid = e->uuid;
			open[nopen++].ev = i;
		} else if (e->type == 2) {
			int j = nopen - 1, depth = 0;
			while (j >= 0 && open[j].uuid != e->uuid)
				j--;
			assert_true(j >= 0);
			for (int k = 0; k < j; k++)
				depth += open[k].uuid == e->uuid;
			struct event *b = &d->ev[open[j].ev];
			struct slice *s = &d->sl[d->nsl++];
			set(s->track, sizeof(s->track), track_of(d, e->uuid)->name);
			set(s->name, sizeof(s->name), d->names[2][b->name_iid]);
			s->start = b->ts;
			s->end = e->ts;
			s->depth = depth;
			s->ns = b->ns ? b->ns : (int64_t)(e->ts - b->ts);
			s->n = b->n ? b->n : 1;
			s->arg = b->arg;
			set(s->cls, sizeof(s->cls), b->cls);
			memmove(&open[j], &open[j + 1], (size_t)(nopen - j - 1) * sizeof(open[0]));
			nopen--;
		} else {
			assert_int_equal(e->type, 4);
			assert_true(track_of(d, e->uuid)->counter);
		}
	}
	assert_int_equal(nopen, 0);
}

static void decode(struct decoded *d, const uint8_t *p, size_t len)
{
	memset(d, 0, sizeof(*d));
	struct pw_reader r;
	struct pw_field f;
	pw_init(&r, p, len);
	int rc;
	while ((rc = pw_next(&r, &f)) == 1) {
		assert_int_equal(f.id, 1); /* Trace.packet */
		assert_int_equal(f.wt, PW_LEN);
		decode_packet(d, f.p, f.len);
	}
	assert_int_equal(rc, 0);
	rebuild(d);
}

static const struct slice *find(const struct decoded *d, const char *track, const char *name,
				uint64_t start)
{
	for (int i = 0; i < d->nsl; i++)
		if (!strcmp(d->sl[i].track, track) && !strcmp(d->sl[i].name, name) &&
		    d->sl[i].start == start)
			return &d->sl[i];
	fail_msg("no slice %s on %s at %llu", name, track, (unsigned long long)start);
	return NULL;
}

struct doc {
	char *buf;
	size_t len;
	FILE *f;
	struct sim_timeline *tl;
	struct decoded d;
};

static void doc_open(struct doc *x)
{
	memset(x, 0, sizeof(*x));
	x->f = open_memstream(&x->buf, &x->len);
	assert_non_null(x->f);
	x->tl = timeline_proto_new(x->f);
	assert_non_null(x->tl);
}

static struct decoded *doc_close(struct doc *x, int64_t end)
{
	assert_int_equal(sim_timeline_finish(x->tl, end), 0);
	fclose(x->f);
	decode(&x->d, (const uint8_t *)x->buf, x->len);
	return &x->d;
}

static void test_tracks_slices_args(void **state)
{
	(void)state;
	struct doc x;
	doc_open(&x);
	sim_timeline_track(x.tl, 10, 11, "app", "main");
	sim_timeline_track(x.tl, 10, 12, "app", "worker");
	/* merged: one slice of n 2; clipped: shown from 1000 with its full ns */
	sim_timeline_slice(x.tl, 10, 11, "cpu", "running", 0, 500, true, "fg", NULL, 0);
	sim_timeline_slice(x.tl, 10, 11, "cpu", "running", 500, 500, true, "fg", NULL, 0);
	sim_timeline_slice(x.tl, 10, 11, "wait", "read_io", 900, 600, true, "fg", NULL, 0);
	sim_timeline_slice(x.tl, 10, 12, "wait", "read_io", 0, 100, true, "bg", "sector", -7);
	sim_timeline_track(x.tl, TIMELINE_PID_DEVICE, 0, NULL, "slot 0");
	sim_timeline_slice(x.tl, TIMELINE_PID_DEVICE, 0, "device", "write 4 KiB", 0, 50, true, NULL,
			   "sector", 4096);
	struct decoded *d = doc_close(&x, 2000);

	/* tracks: app with two threads, device (named by the timeline) with a slot */
	assert_int_equal(d->ntracks, 5);
	for (int i = 0; i < d->ntracks; i++)
		assert_int_equal(d->tracks[i].described, 1);
	struct track *app = NULL, *main_t = NULL, *dev = NULL, *slot = NULL;
	for (int i = 0; i < d->ntracks; i++) {
		struct track *t = &d->tracks[i];
		if (!strcmp(t->name, "app"))
			app = t;
		else if (!strcmp(t->name, "main"))
			main_t = t;
		else if (!strcmp(t->name, "device"))
			dev = t;
		else if (!strcmp(t->name, "slot 0"))
			slot = t;
	}
	assert_non_null(app);
	assert_non_null(main_t);
	assert_non_null(dev);
	assert_non_null(slot);
	assert_int_equal(app->parent, 0);
	assert_int_equal(main_t->parent, app->uuid);
	assert_int_equal(slot->parent, dev->uuid);

	assert_int_equal(d->nsl, 4);
	const struct slice *s = find(d, "main", "running", 0);
	assert_int_equal(s->end, 1000);
	assert_int_equal(s->n, 2);
	assert_string_equal(s->cls, "fg");
	s = find(d, "main", "read_io", 1000);
	assert_int_equal(s->end, 1500);
	assert_int_equal(s->ns, 600);
	s = find(d, "worker", "read_io", 0);
	assert_int_equal(s->arg, -7);
	assert_string_equal(s->cls, "bg");
	s = find(d, "slot 0", "write 4 KiB", 0);
	assert_int_equal(s->arg, 4096);
	assert_string_equal(s->cls, "");
	/* names interned once each (decode checks): running, read_io, write 4 KiB */
	int seen = 0;
	for (int i = 1; i <= 3; i++)
		seen |= (!strcmp(d->names[2][i], "running") ? 1 : 0) |
			(!strcmp(d->names[2][i], "read_io") ? 2 : 0) |
			(!strcmp(d->names[2][i], "write 4 KiB") ? 4 : 0);
	assert_int_equal(seen, 7);
	assert_string_equal(d->names[2][4], "");
	free(x.buf);
}

/* Regions end inner first; an outer one that starts with its first child
 * must still be the outer one once the file is sorted. */
static void test_nested_same_start(void **state)
{
	(void)state;
	struct doc x;
	doc_open(&x);
	int64_t rt = TIMELINE_REGION_TID(11);
	sim_timeline_track(x.tl, 10, rt, NULL, "app regions");
	sim_timeline_slice(x.tl, 10, rt, "region", "inner", 100, 200, false, "fg", NULL, 0);
	sim_timeline_slice(x.tl, 10, rt, "region", "second", 300, 100, false, "fg", NULL, 0);
	sim_timeline_slice(x.tl, 10, rt, "region", "outer", 100, 300, false, "fg", NULL, 0);
	sim_timeline_slice(x.tl, 10, rt, "region", "later", 400, 0, false, "fg", NULL, 0);
	struct decoded *d = doc_close(&x, 1000);
	assert_int_equal(d->nsl, 4);
	assert_int_equal(find(d, "app regions", "outer", 100)->depth, 0);
	assert_int_equal(find(d, "app regions", "outer", 100)->end, 400);
	assert_int_equal(find(d, "app regions", "inner", 100)->depth, 1);
	assert_int_equal(find(d, "app regions", "inner", 100)->end, 300);
	assert_int_equal(find(d, "app regions", "second", 300)->depth, 1);
	assert_int_equal(find(d, "app regions", "second", 300)->end, 400);
	assert_int_equal(find(d, "app regions", "later", 400)->depth, 0);
	free(x.buf);
}

static void test_counters(void **state)
{
	(void)state;
	struct doc x;
	doc_open(&x);
	sim_timeline_counter(x.tl, TIMELINE_PID_MEMORY, "dirty pages", 0, 1.5, 0);
	sim_timeline_counter(x.tl, TIMELINE_PID_MEMORY, "writeback pages", 5, 3, 0);
	sim_timeline_counter(x.tl, TIMELINE_PID_MEMORY, "dirty pages", 10, 0.25, 0);
	struct decoded *d = doc_close(&x, 20);
	assert_int_equal(d->ntracks, 3); /* memory and its two counters */
	int n = 0;
	for (int i = 0; i < d->nev; i++) {
		const struct event *e = &d->ev[i];
		const struct track *t = track_of(d, e->uuid);
		assert_true(t->counter);
		assert_string_equal(track_of(d, t->parent)->name, "memory");
		if (e->ts == 10) {
			assert_string_equal(t->name, "dirty pages");
			assert_true(e->value == 0.25);
			n++;
		}
	}
	assert_int_equal(d->nev, 3);
	assert_int_equal(n, 1);
	free(x.buf);
}

/* A track used before it is named has no name, as in the JSON; named
 * later, it is described again under its uuid. */
static void test_rename(void **state)
{
	(void)state;
	struct doc x;
	doc_open(&x);
	sim_timeline_slice(x.tl, 20, 21, "cpu", "running", 0, 10, true, NULL, NULL, 0);
	sim_timeline_slice(x.tl, 20, 21, "cpu", "idle", 20, 10, true, NULL, NULL, 0);
	sim_timeline_track(x.tl, 20, 21, "late", "named");
	struct decoded *d = doc_close(&x, 40);
	assert_int_equal(d->ntracks, 2);
	assert_int_equal(d->tracks[0].described, 2); /* the process: unnamed, then "late" */
	assert_int_equal(d->tracks[1].described, 2);
	assert_string_equal(d->tracks[0].name, "late");
	assert_string_equal(find(d, "named", "running", 0)->name, "running");
	free(x.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracks_slices_args),
		cmocka_unit_test(test_nested_same_start),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_rename),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
