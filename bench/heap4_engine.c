/* Reference for the engine benchmark: the 4-ary min-heap keyed by
 * (when, seq) that sim/engine.c used before the radix heap. Kept so that
 * scripts/bench engine measures both on the same machine and run.
 *
 * A 4-ary heap halves the depth of a binary heap and keeps the four
 * children of a node in one or two cache lines (24-byte entries), which
 * matters more than the extra comparisons for the hold-model workloads of
 * a simulator (pop the minimum, push an event slightly later). The
 * engine it was measured against is sim/engine.c.
 */
#include "bench/heap4_engine.h"

#include <stdlib.h>
#include <string.h>

#define HEAP_ARITY 4

static inline bool entry_less(const struct heap4_entry *a, const struct heap4_entry *b)
{
	return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static inline void heap_put(struct heap4_engine *e, uint32_t i, struct heap4_entry ent)
{
	e->heap[i] = ent;
	ent.ev->slot = i;
}

static void sift_up(struct heap4_engine *e, uint32_t i, struct heap4_entry ent)
{
	while (i > 0) {
		uint32_t parent = (i - 1) / HEAP_ARITY;
		if (!entry_less(&ent, &e->heap[parent]))
			break;
		heap_put(e, i, e->heap[parent]);
		i = parent;
	}
	heap_put(e, i, ent);
}

static void sift_down(struct heap4_engine *e, uint32_t i, struct heap4_entry ent)
{
	uint32_t n = e->n;
	for (;;) {
		uint32_t first = i * HEAP_ARITY + 1;
		if (first >= n)
			break;
		uint32_t last = first + HEAP_ARITY;
		if (last > n)
			last = n;
		uint32_t best = first;
		for (uint32_t c = first + 1; c < last; c++)
			if (entry_less(&e->heap[c], &e->heap[best]))
				best = c;
		if (!entry_less(&e->heap[best], &ent))
			break;
		heap_put(e, i, e->heap[best]);
		i = best;
	}
	heap_put(e, i, ent);
}

int heap4_engine_init(struct heap4_engine *e, void *owner, uint32_t initial_cap)
{
	memset(e, 0, sizeof(*e));
	(void)owner;
	e->cap = initial_cap ? initial_cap : 1024;
	e->heap = malloc(sizeof(*e->heap) * e->cap);
	return e->heap ? 0 : -3;
}

void heap4_engine_free(struct heap4_engine *e)
{
	for (uint32_t i = 0; i < e->n; i++)
		e->heap[i].ev->slot = HEAP4_IDLE;
	free(e->heap);
	e->heap = NULL;
	e->n = e->cap = 0;
}

static void heap_remove_at(struct heap4_engine *e, uint32_t i)
{
	struct heap4_event *gone = e->heap[i].ev;
	gone->slot = HEAP4_IDLE;
	e->n--;
	if (i == e->n)
		return;
	struct heap4_entry last = e->heap[e->n];
	if (i > 0 && entry_less(&last, &e->heap[(i - 1) / HEAP_ARITY]))
		sift_up(e, i, last);
	else
		sift_down(e, i, last);
}

int heap4_engine_schedule(struct heap4_engine *e, struct heap4_event *ev, int64_t when)
{
	HEAP4_ASSERT(when >= e->now);
	HEAP4_ASSERT(ev->fire != NULL);
	if (heap4_event_pending(ev))
		heap_remove_at(e, ev->slot);
	if (e->n == e->cap) {
		uint32_t cap = e->cap * 2;
		struct heap4_entry *h = realloc(e->heap, sizeof(*h) * cap);
		if (!h)
			return -3;
		e->heap = h;
		e->cap = cap;
	}
	ev->when = when;
	struct heap4_entry ent = { .when = when, .seq = e->next_seq++, .ev = ev };
	sift_up(e, e->n++, ent);
	return 0;
}

void heap4_engine_cancel(struct heap4_engine *e, struct heap4_event *ev)
{
	if (heap4_event_pending(ev)) {
		HEAP4_ASSERT(ev->slot < e->n && e->heap[ev->slot].ev == ev);
		heap_remove_at(e, ev->slot);
	}
}

static inline struct heap4_event *heap_pop(struct heap4_engine *e)
{
	struct heap4_event *ev = e->heap[0].ev;
	ev->slot = HEAP4_IDLE;
	if (--e->n > 0)
		sift_down(e, 0, e->heap[e->n]);
	return ev;
}

bool heap4_engine_step(struct heap4_engine *e)
{
	if (e->n == 0)
		return false;
	int64_t when = e->heap[0].when;
	HEAP4_ASSERT(when >= e->now);
	struct heap4_event *ev = heap_pop(e);
	e->now = when;
	e->fired++;
	ev->fire(e, ev);
	return true;
}

enum heap4_run_result heap4_engine_run(struct heap4_engine *e, int64_t until)
{
	e->stop = false;
	for (;;) {
		if (e->stop)
			return HEAP4_RUN_STOPPED;
		if (e->max_events && e->fired >= e->max_events)
			return HEAP4_RUN_LIMIT;
		if (e->n == 0)
			return HEAP4_RUN_EMPTY;
		if (e->heap[0].when > until) {
			if (until > e->now)
				e->now = until;
			return HEAP4_RUN_UNTIL;
		}
		heap4_engine_step(e);
	}
}
