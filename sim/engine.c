/* Event engine: 4-ary min-heap keyed by (when, seq); see engine.h.
 *
 * A 4-ary heap halves the depth of a binary heap and keeps the four
 * children of a node in one or two cache lines (24-byte entries), which
 * matters more than the extra comparisons for the hold-model workloads of
 * a simulator (pop the minimum, push an event slightly later). The
 * alternatives measured are in scripts/bench engine and the README.
 */
#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>

#include "sim/assert.h"
#include "sim/error.h"

#define HEAP_ARITY 4

static inline bool entry_less(const struct sim_heap_entry *a, const struct sim_heap_entry *b)
{
	return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static inline void heap_put(struct sim_engine *e, uint32_t i, struct sim_heap_entry ent)
{
	e->heap[i] = ent;
	ent.ev->slot = i;
}

static void sift_up(struct sim_engine *e, uint32_t i, struct sim_heap_entry ent)
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

static void sift_down(struct sim_engine *e, uint32_t i, struct sim_heap_entry ent)
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

int sim_engine_init(struct sim_engine *e, struct sim *owner, uint32_t initial_cap)
{
	memset(e, 0, sizeof(*e));
	e->owner = owner;
	e->cap = initial_cap ? initial_cap : 1024;
	e->heap = malloc(sizeof(*e->heap) * e->cap);
	return e->heap ? 0 : SIM_E_NOMEM;
}

void sim_engine_free(struct sim_engine *e)
{
	for (uint32_t i = 0; i < e->n; i++)
		e->heap[i].ev->slot = SIM_EVENT_IDLE;
	free(e->heap);
	e->heap = NULL;
	e->n = e->cap = 0;
}

static void heap_remove_at(struct sim_engine *e, uint32_t i)
{
	struct sim_event *gone = e->heap[i].ev;
	gone->slot = SIM_EVENT_IDLE;
	e->n--;
	if (i == e->n)
		return;
	struct sim_heap_entry last = e->heap[e->n];
	if (i > 0 && entry_less(&last, &e->heap[(i - 1) / HEAP_ARITY]))
		sift_up(e, i, last);
	else
		sift_down(e, i, last);
}

int sim_engine_schedule(struct sim_engine *e, struct sim_event *ev, int64_t when)
{
	SIM_ASSERT(when >= e->now);
	SIM_ASSERT(ev->fire != NULL);
	if (sim_event_pending(ev))
		heap_remove_at(e, ev->slot);
	if (e->n == e->cap) {
		uint32_t cap = e->cap * 2;
		struct sim_heap_entry *h = realloc(e->heap, sizeof(*h) * cap);
		if (!h)
			return SIM_E_NOMEM;
		e->heap = h;
		e->cap = cap;
	}
	ev->when = when;
	struct sim_heap_entry ent = { .when = when, .seq = e->next_seq++, .ev = ev };
	sift_up(e, e->n++, ent);
	return 0;
}

void sim_engine_cancel(struct sim_engine *e, struct sim_event *ev)
{
	if (sim_event_pending(ev)) {
		SIM_ASSERT(ev->slot < e->n && e->heap[ev->slot].ev == ev);
		heap_remove_at(e, ev->slot);
	}
}

static inline struct sim_event *heap_pop(struct sim_engine *e)
{
	struct sim_event *ev = e->heap[0].ev;
	ev->slot = SIM_EVENT_IDLE;
	if (--e->n > 0)
		sift_down(e, 0, e->heap[e->n]);
	return ev;
}

bool sim_engine_step(struct sim_engine *e)
{
	if (e->n == 0)
		return false;
	int64_t when = e->heap[0].when;
	SIM_ASSERT(when >= e->now);
	struct sim_event *ev = heap_pop(e);
	e->now = when;
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
		if (e->n == 0)
			return SIM_RUN_EMPTY;
		if (e->heap[0].when > until) {
			if (until > e->now)
				e->now = until;
			return SIM_RUN_UNTIL;
		}
		sim_engine_step(e);
	}
}
