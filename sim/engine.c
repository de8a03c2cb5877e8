/* Event engine: radix heap over (when, seq) with intrusive events; see
 * engine.h for the structure and why it is valid.
 *
 * Invariants: every pending event's entry is in bucket msb(when ^ last)
 * (bucket 0 when when == last); bucket 0 is in seq order from head on
 * (entries reach it either by redistribution, after which it is sorted,
 * or by insertion with when == last, which carries the largest seq yet);
 * cancelled bucket-0 entries become tombstones (ev == NULL) so the order
 * of the others is kept; in the other buckets order does not matter and
 * cancel swaps the last entry into the hole.
 */
#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>

#include "sim/assert.h"
#include "sim/error.h"

static inline unsigned bucket_of(int64_t when, int64_t last)
{
	uint64_t x = (uint64_t)when ^ (uint64_t)last;
	return x ? 64u - (unsigned)__builtin_clzll(x) : 0u;
}

static inline void entry_put(struct sim_bucket *b, unsigned bi, uint32_t idx,
			     struct sim_heap_entry ent)
{
	b->e[idx] = ent;
	ent.ev->slot = idx;
	ent.ev->bucket = (uint8_t)bi;
}

static int bucket_reserve(struct sim_bucket *b, uint32_t need)
{
	if (need <= b->cap)
		return 0;
	uint32_t cap = b->cap ? b->cap : 16;
	while (cap < need)
		cap *= 2;
	struct sim_heap_entry *e = realloc(b->e, sizeof(*e) * cap);
	if (!e)
		return SIM_E_NOMEM;
	b->e = e;
	b->cap = cap;
	return 0;
}

/* Append without checks beyond capacity; bucket 0 appends after head. */
static inline int bucket_append(struct sim_engine *e, unsigned bi, struct sim_heap_entry ent)
{
	struct sim_bucket *b = &e->b[bi];
	if (b->n == b->cap && bucket_reserve(b, b->n + 1))
		return SIM_E_NOMEM;
	entry_put(b, bi, b->n++, ent);
	if (bi)
		e->nonempty |= 1ull << bi;
	return 0;
}

int sim_engine_init(struct sim_engine *e, struct sim *owner, uint32_t initial_cap)
{
	memset(e, 0, sizeof(*e));
	e->owner = owner;
	/* Most entries of a loaded queue sit in the few buckets just below the
	 * typical scheduling horizon; give bucket 0 and the rest a start. */
	uint32_t cap = initial_cap ? initial_cap : 1024;
	return bucket_reserve(&e->b[0], cap < 64 ? 64 : cap / 4);
}

void sim_engine_free(struct sim_engine *e)
{
	for (unsigned bi = 0; bi < SIM_NBUCKETS; bi++) {
		struct sim_bucket *b = &e->b[bi];
		for (uint32_t i = bi ? 0 : b->head; i < b->n; i++)
			if (b->e[i].ev)
				b->e[i].ev->slot = SIM_EVENT_IDLE;
		free(b->e);
	}
	memset(e->b, 0, sizeof(e->b));
	e->n = 0;
	e->nonempty = 0;
}

/* Remove the entry of a pending event. */
static void entry_remove(struct sim_engine *e, struct sim_event *ev)
{
	unsigned bi = ev->bucket;
	struct sim_bucket *b = &e->b[bi];
	uint32_t i = ev->slot;
	SIM_ASSERT(i < b->n && b->e[i].ev == ev);
	if (bi == 0) {
		b->e[i].ev = NULL;
	} else {
		struct sim_heap_entry lastent = b->e[--b->n];
		if (i != b->n)
			entry_put(b, bi, i, lastent);
		if (b->n == 0)
			e->nonempty &= ~(1ull << bi);
	}
	ev->slot = SIM_EVENT_IDLE;
	e->n--;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct sim_heap_entry *x = a, *y = b;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Sort bucket 0 (which holds only entries of one time) by seq and fix the
 * events' indexes; called only right after a redistribution filled it. */
static void bucket0_sort(struct sim_engine *e)
{
	struct sim_bucket *b = &e->b[0];
	SIM_ASSERT(b->head == 0);
	if (b->n > 1) {
		qsort(b->e, b->n, sizeof(*b->e), cmp_seq);
		for (uint32_t i = 0; i < b->n; i++)
			b->e[i].ev->slot = i;
	}
}

/* Re-bucket everything against a new, smaller last. Needed only when an
 * event is scheduled before the last extracted minimum, which happens
 * after sim_engine_run() returned at its time limit. O(pending). */
static int rebase(struct sim_engine *e, int64_t new_last)
{
	struct sim_heap_entry *all = malloc(sizeof(*all) * (e->n ? e->n : 1));
	if (!all)
		return SIM_E_NOMEM;
	uint32_t k = 0;
	for (unsigned bi = 0; bi < SIM_NBUCKETS; bi++) {
		struct sim_bucket *b = &e->b[bi];
		for (uint32_t i = bi ? 0 : b->head; i < b->n; i++)
			if (b->e[i].ev)
				all[k++] = b->e[i];
		b->n = b->head = 0;
	}
	SIM_ASSERT(k == e->n);
	e->nonempty = 0;
	e->last = new_last;
	/* Capacity only ever grows, and the entries fit where they were. */
	for (uint32_t i = 0; i < k; i++) {
		unsigned bi = bucket_of(all[i].when, new_last);
		if (bucket_append(e, bi, all[i])) {
			free(all);
			return SIM_E_NOMEM;
		}
	}
	if (e->b[0].n > 1)
		bucket0_sort(e);
	free(all);
	return 0;
}

int sim_engine_schedule(struct sim_engine *e, struct sim_event *ev, int64_t when)
{
	SIM_ASSERT(when >= e->now);
	SIM_ASSERT(ev->fire != NULL);
	if (sim_event_pending(ev))
		entry_remove(e, ev);
	if (when < e->last && rebase(e, when))
		return SIM_E_NOMEM;
	ev->when = when;
	struct sim_heap_entry ent = { .when = when, .seq = e->next_seq++, .ev = ev };
	if (bucket_append(e, bucket_of(when, e->last), ent)) {
		ev->slot = SIM_EVENT_IDLE;
		return SIM_E_NOMEM;
	}
	e->n++;
	return 0;
}

void sim_engine_cancel(struct sim_engine *e, struct sim_event *ev)
{
	if (sim_event_pending(ev))
		entry_remove(e, ev);
}

/* Make bucket 0 hold the earliest pending event at its head; false when
 * nothing is pending. */
static bool refill(struct sim_engine *e)
{
	struct sim_bucket *b0 = &e->b[0];
	for (;;) {
		while (b0->head < b0->n && !b0->e[b0->head].ev)
			b0->head++;
		if (b0->head < b0->n)
			return true;
		b0->head = b0->n = 0;
		if (!e->nonempty)
			return false;
		unsigned bi = (unsigned)__builtin_ctzll(e->nonempty);
		struct sim_bucket *b = &e->b[bi];
		int64_t min = b->e[0].when;
		for (uint32_t i = 1; i < b->n; i++)
			if (b->e[i].when < min)
				min = b->e[i].when;
		e->last = min;
		uint32_t n = b->n;
		b->n = 0;
		e->nonempty &= ~(1ull << bi);
		for (uint32_t i = 0; i < n; i++) {
			unsigned to = bucket_of(b->e[i].when, min);
			SIM_ASSERT(to < bi);
			/* Growing a lower bucket can fail; the entry then stays
			 * where it was, which breaks nothing but the bound. */
			if (bucket_append(e, to, b->e[i])) {
				entry_put(b, bi, b->n++, b->e[i]);
				e->nonempty |= 1ull << bi;
			}
		}
		bucket0_sort(e);
	}
}

bool sim_engine_step(struct sim_engine *e)
{
	if (e->n == 0 || !refill(e))
		return false;
	struct sim_bucket *b0 = &e->b[0];
	struct sim_event *ev = b0->e[b0->head++].ev;
	SIM_ASSERT(ev->when >= e->now);
	ev->slot = SIM_EVENT_IDLE;
	e->n--;
	e->now = ev->when;
	e->fired++;
	ev->fire(e->owner, ev);
	return true;
}

enum sim_run_result sim_engine_run(struct sim_engine *e, int64_t until)
{
	e->stop = false;
	for (;;) {
		if (e->stop)
			return SIM_RUN_STOPPED;
		if (e->max_events && e->fired >= e->max_events)
			return SIM_RUN_LIMIT;
		if (e->n == 0 || !refill(e))
			return SIM_RUN_EMPTY;
		if (e->b[0].e[e->b[0].head].when > until) {
			if (until > e->now)
				e->now = until;
			return SIM_RUN_UNTIL;
		}
		sim_engine_step(e);
	}
}
