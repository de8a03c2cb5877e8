/* Event engine: radix heap over (when, seq) with intrusive events; see
 * engine.h for the structure and why it is valid.
 *
 * Buckets: b[l * SIM_RADIX_DIGITS + d] holds the pending events whose time
 * first differs from last (the current instant) in digit l, that digit
 * being d; level 0 digit (last & mask) is the current bucket, the events
 * of the current instant. Invariants: every pending event's entry is in
 * the bucket bucket_of(when, last); the current bucket is in seq order
 * from head on, cancelled entries in it become tombstones (ev == NULL) so
 * the order of the others is kept, and it has no bit in map; every other
 * bucket with entries has its bit in map (and its level in levels), its
 * order does not matter until it becomes current, and cancel swaps the
 * last entry into the hole. A level-0 bucket may be out of seq order
 * (filled by a redistribution, or a hole filled by cancel), so it is
 * checked, and sorted if need be, when it becomes current; insertions
 * always carry the largest seq yet and keep order.
 *
 * Speed (goal >= 10 M events/s on the hold model). The cost of
 * a radix heap is the moves of entries between buckets, and each move
 * writes the event's slot and bucket - a cache miss into the owner
 * object: perf put half of the binary radix heap's refill() on those two
 * stores. Changes, each kept because it measured faster:
 *   - multi-bit digits (SIM_RADIX_BITS, 6): an event with a 1 ms delay
 *     moves three times (level 3 -> 2 -> 1 -> 0) instead of about ten in
 *     the binary radix heap, over 704 buckets;
 *   - the seq moved from the entry into the event: 16-byte entries, read
 *     only to sort the rare level-0 bucket with several entries;
 *   - a prefetch of the event eight entries ahead in a redistribution;
 *   - large arrays of emptied buckets given back (memory follows the
 *     pending events: 21 MiB peak RSS instead of 31 MiB in bench_engine),
 *     the largest kept as a spare for the next bucket to grow, instead of
 *     doubling copies;
 *   - the fast path of the next event inlined into run() and step().
 * Hold model (bench/bench_engine.c: 10^5 pending, exponential delays of
 * mean 1 ms, 2*10^7 events), events per CPU second, medians of 5-7
 * alternated runs in one session on the 2-core EPYC VM under a load of
 * 2.5-6 from other builds (absolute figures are low and noisy; compare
 * within a row group):
 *   binary radix heap (before)                      3.9-5.2 M/s
 *   8-bit digits, 24-byte entries                   4.8-5.2 M/s (binary 3.9-4.1)
 *   8-bit, 16-byte entries                          5.1-5.3 M/s (binary 3.9)
 *   8-bit, 16-byte entries, prefetch                5.8-6.3 M/s (binary 4.4)
 *   same, 4 / 5 / 6 / 7 / 8-bit digits              7.4 / 7.6 / 8.4-8.8 / 7.8 / 6.8-7.2 M/s
 *                                                   (binary 5.2; best run of 6-bit 10.0)
 * i.e. 1.6-1.7x the binary radix heap and 2.3-2.8x the 4-ary heap on the
 * same runs. cachegrind on 3*10^6 events (8-bit): 1.92 G instructions and
 * 41.5 M D1 misses before, 1.04 G and 21.7 M after. The 10 M/s goal is
 * reached only by the best runs on this loaded machine; what remains is
 * mostly the hold model's own miss on its holder object and the writes
 * into the destination buckets.
 */
#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>

#include "sim/assert.h"
#include "sim/error.h"

#define DIGIT_MASK (SIM_RADIX_DIGITS - 1u)
/* A bucket above level 0 emptied by a redistribution gives back an array
 * larger than this (entries), so that memory follows the pending events,
 * not the largest size each of the buckets ever had; the largest one
 * given back is kept as the spare that the next bucket to grow past this
 * size takes, instead of growing by doubling copies. */
#define SHRINK_ENTRIES 256u

static inline unsigned level_of(uint64_t x)
{
	return x ? (63u - (unsigned)__builtin_clzll(x)) / SIM_RADIX_BITS : 0u;
}

static inline unsigned digit_of(int64_t when, unsigned l)
{
	return (unsigned)(((uint64_t)when >> (l * SIM_RADIX_BITS)) & DIGIT_MASK);
}

static inline unsigned bucket_of(int64_t when, int64_t last)
{
	unsigned l = level_of((uint64_t)when ^ (uint64_t)last);
	return l * SIM_RADIX_DIGITS + digit_of(when, l);
}

static inline unsigned cur_index(const struct sim_engine *e)
{
	return (unsigned)((uint64_t)e->last & DIGIT_MASK);
}

/* map is [level][word]; the word and bit of bucket bi: */
static inline unsigned map_word(unsigned bi)
{
	return (bi / SIM_RADIX_DIGITS) * SIM_RADIX_WORDS + (bi % SIM_RADIX_DIGITS) / 64;
}

static inline uint64_t map_bit(unsigned bi)
{
	return 1ull << (bi % SIM_RADIX_DIGITS % 64);
}

static inline void map_set(struct sim_engine *e, unsigned bi)
{
	(&e->map[0][0])[map_word(bi)] |= map_bit(bi);
	e->levels |= 1u << (bi / SIM_RADIX_DIGITS);
}

static inline void map_clear(struct sim_engine *e, unsigned bi)
{
	uint64_t *w = &(&e->map[0][0])[map_word(bi)];
	if ((*w &= ~map_bit(bi)))
		return;
	unsigned l = bi / SIM_RADIX_DIGITS;
	for (unsigned k = 0; k < SIM_RADIX_WORDS; k++)
		if (e->map[l][k])
			return;
	e->levels &= ~(1u << l);
}

static inline void entry_put(struct sim_bucket *b, unsigned bi, uint32_t idx,
			     struct sim_heap_entry ent)
{
	b->e[idx] = ent;
	ent.ev->slot = idx;
	ent.ev->bucket = (uint16_t)bi;
}

static int bucket_reserve(struct sim_engine *e, struct sim_bucket *b, uint32_t need)
{
	if (need <= b->cap)
		return 0;
	if (need > SHRINK_ENTRIES && e->spare && e->spare_cap >= need) {
		memcpy(e->spare, b->e, sizeof(*b->e) * b->n);
		free(b->e);
		b->e = e->spare;
		b->cap = e->spare_cap;
		e->spare = NULL;
		e->spare_cap = 0;
		return 0;
	}
	uint32_t cap = b->cap ? b->cap : 16;
	while (cap < need)
		cap *= 2;
	struct sim_heap_entry *a = realloc(b->e, sizeof(*a) * cap);
	if (!a)
		return SIM_E_NOMEM;
	b->e = a;
	b->cap = cap;
	return 0;
}

/* Give back the array of an emptied bucket if it is large. */
static void bucket_shrink(struct sim_engine *e, struct sim_bucket *b)
{
	if (b->cap <= SHRINK_ENTRIES)
		return;
	if (b->cap > e->spare_cap) {
		free(e->spare);
		e->spare = b->e;
		e->spare_cap = b->cap;
	} else {
		free(b->e);
	}
	b->e = NULL;
	b->cap = 0;
}

/* Append ent to bucket bi and keep map true. */
static inline int bucket_append(struct sim_engine *e, unsigned bi, struct sim_heap_entry ent)
{
	struct sim_bucket *b = &e->b[bi];
	if (b->n == b->cap && bucket_reserve(e, b, b->n + 1))
		return SIM_E_NOMEM;
	entry_put(b, bi, b->n++, ent);
	if (bi != cur_index(e))
		map_set(e, bi);
	return 0;
}

int sim_engine_init(struct sim_engine *e, struct sim *owner, uint32_t initial_cap)
{
	memset(e, 0, sizeof(*e));
	e->owner = owner;
	e->barrier = SIM_TIME_MAX;
	e->adv_max = INT64_MIN;
	e->b = calloc(SIM_NBUCKETS, sizeof(*e->b));
	return e->b ? 0 : SIM_E_NOMEM;
}

void sim_engine_free(struct sim_engine *e)
{
	if (!e->b)
		return;
	unsigned ci = cur_index(e);
	for (unsigned bi = 0; bi < SIM_NBUCKETS; bi++) {
		struct sim_bucket *b = &e->b[bi];
		for (uint32_t i = bi == ci ? e->head : 0; i < b->n; i++)
			if (b->e[i].ev)
				b->e[i].ev->slot = SIM_EVENT_IDLE;
		free(b->e);
	}
	free(e->b);
	free(e->spare);
	e->b = NULL;
	e->spare = NULL;
	e->spare_cap = 0;
	memset(e->map, 0, sizeof(e->map));
	e->levels = 0;
	e->head = 0;
	e->n = 0;
}

/* Remove the entry of a pending event. */
static void entry_remove(struct sim_engine *e, struct sim_event *ev)
{
	unsigned bi = ev->bucket;
	struct sim_bucket *b = &e->b[bi];
	uint32_t i = ev->slot;
	SIM_ASSERT(i < b->n && b->e[i].ev == ev);
	if (bi == cur_index(e)) {
		SIM_ASSERT(i >= e->head);
		b->e[i].ev = NULL;
	} else {
		struct sim_heap_entry lastent = b->e[--b->n];
		if (i != b->n)
			entry_put(b, bi, i, lastent);
		if (b->n == 0)
			map_clear(e, bi);
	}
	ev->slot = SIM_EVENT_IDLE;
	e->n--;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct sim_heap_entry *x = a, *y = b;
	return (x->ev->seq > y->ev->seq) - (x->ev->seq < y->ev->seq);
}

/* The current bucket has just become current (head 0; no tombstones, as
 * only the current bucket has them): put it in seq order - entries that
 * came by a redistribution, or filled a cancel's hole, may not be - and
 * fix the events' indexes. */
static void cur_sort(struct sim_engine *e)
{
	struct sim_bucket *b = &e->b[cur_index(e)];
	SIM_ASSERT(e->head == 0);
	if (b->n < 2)
		return;
	uint32_t i = 1;
	while (i < b->n && b->e[i - 1].ev->seq < b->e[i].ev->seq)
		i++;
	if (i == b->n)
		return;
	qsort(b->e, b->n, sizeof(*b->e), cmp_seq);
	for (i = 0; i < b->n; i++)
		b->e[i].ev->slot = i;
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
	unsigned ci = cur_index(e);
	for (unsigned bi = 0; bi < SIM_NBUCKETS; bi++) {
		struct sim_bucket *b = &e->b[bi];
		for (uint32_t i = bi == ci ? e->head : 0; i < b->n; i++)
			if (b->e[i].ev)
				all[k++] = b->e[i];
		b->n = 0;
	}
	SIM_ASSERT(k == e->n);
	memset(e->map, 0, sizeof(e->map));
	e->levels = 0;
	e->head = 0;
	e->last = new_last;
	/* Appending can fail where a redistribution gave an array back, as
	 * schedule can; the events not placed then are lost to the queue, so
	 * report it (the caller's run is over: SIM_E_NOMEM). */
	int rc = 0;
	for (uint32_t i = 0; i < k && !rc; i++)
		rc = bucket_append(e, bucket_of(all[i].when, new_last), all[i]);
	cur_sort(e);
	free(all);
	return rc;
}

/* Put ev (pending or not) at when with sequence number seq; *bi is the
 * bucket it went to. */
static inline int enqueue(struct sim_engine *e, struct sim_event *ev, int64_t when, uint64_t seq,
			  unsigned *bi)
{
	SIM_ASSERT(when >= e->now);
	SIM_ASSERT(ev->fire != NULL);
	if (sim_event_pending(ev))
		entry_remove(e, ev);
	if (when < e->last && rebase(e, when))
		return SIM_E_NOMEM;
	ev->when = when;
	ev->seq = seq;
	*bi = bucket_of(when, e->last);
	struct sim_heap_entry ent = { .when = when, .ev = ev };
	if (bucket_append(e, *bi, ent)) {
		ev->slot = SIM_EVENT_IDLE;
		return SIM_E_NOMEM;
	}
	e->n++;
	return 0;
}

static __attribute__((noinline)) int schedule_slow(struct sim_engine *e, struct sim_event *ev,
						   int64_t when)
{
	unsigned bi;
	return enqueue(e, ev, when, e->next_seq++, &bi);
}

int sim_engine_schedule(struct sim_engine *e, struct sim_event *ev, int64_t when)
{
	unsigned bi;
	/* enqueue() of an event not pending, at or after last, into a bucket
	 * with room: nothing to remove, no rebase, no growth */
	if (!sim_event_pending(ev) && when >= e->last) {
		bi = bucket_of(when, e->last);
		struct sim_bucket *b = &e->b[bi];
		if (b->n < b->cap) {
			SIM_ASSERT(when >= e->now);
			SIM_ASSERT(ev->fire != NULL);
			ev->when = when;
			ev->seq = e->next_seq++;
			entry_put(b, bi, b->n++, (struct sim_heap_entry){ .when = when, .ev = ev });
			if (bi != cur_index(e))
				map_set(e, bi);
			e->n++;
			return 0;
		}
	}
	return schedule_slow(e, ev, when);
}

uint64_t sim_engine_reserve_seq(struct sim_engine *e)
{
	return e->next_seq++;
}

int sim_engine_schedule_seq(struct sim_engine *e, struct sim_event *ev, int64_t when,
			    uint64_t seq)
{
	SIM_ASSERT(seq < e->next_seq);
	unsigned bi;
	if (enqueue(e, ev, when, seq, &bi))
		return SIM_E_NOMEM;
	/* next_seq does not move, so keep sim_engine_advance's cached bound a
	 * bound */
	if (when < e->peek_min)
		e->peek_min = when;
	if (when - 1 < e->adv_max)
		e->adv_max = when - 1;
	if (bi != cur_index(e))
		return 0; /* sorted by seq when its bucket becomes current */
	/* The current instant's bucket is consumed in seq order from head:
	 * move the entry back past the later ones (and the tombstones among
	 * them, which keep no order). */
	struct sim_bucket *b = &e->b[bi];
	uint32_t i = b->n - 1;
	while (i > e->head && (!b->e[i - 1].ev || b->e[i - 1].ev->seq > seq)) {
		struct sim_heap_entry prev = b->e[i - 1];
		b->e[i - 1] = b->e[i];
		b->e[i - 1].ev->slot = i - 1;
		b->e[i] = prev;
		if (prev.ev)
			prev.ev->slot = i;
		i--;
	}
	return 0;
}

void sim_engine_cancel(struct sim_engine *e, struct sim_event *ev)
{
	if (sim_event_pending(ev))
		entry_remove(e, ev);
}

/* Move the entries of bucket bi (level l >= 1, the lowest nonempty one)
 * down against its minimum, the new last. */
static void redistribute(struct sim_engine *e, unsigned bi, unsigned l)
{
	struct sim_bucket *b = &e->b[bi];
	struct sim_heap_entry *src = b->e;
	uint32_t n = b->n;
	int64_t min = src[0].when;
	for (uint32_t i = 1; i < n; i++)
		if (src[i].when < min)
			min = src[i].when;
	e->last = min;
	b->n = 0;
	uint64_t *map = &e->map[0][0];
	uint32_t levels = e->levels;
	for (uint32_t i = 0; i < n; i++) {
		struct sim_heap_entry ent = src[i];
		if (i + 8 < n)
			__builtin_prefetch(src[i + 8].ev, 1);
		unsigned tl = level_of((uint64_t)ent.when ^ (uint64_t)min);
		unsigned to = tl * SIM_RADIX_DIGITS + digit_of(ent.when, tl);
		SIM_ASSERT(tl < l);
		struct sim_bucket *d = &e->b[to];
		if (__builtin_expect(d->n == d->cap, 0) && bucket_reserve(e, d, d->n + 1)) {
			/* Growing a lower bucket failed: the entry stays where
			 * it was, out of its place - order may break, the run
			 * does not. */
			entry_put(b, bi, b->n++, ent);
			levels |= 1u << l;
			map[map_word(bi)] |= map_bit(bi);
			continue;
		}
		entry_put(d, to, d->n++, ent);
		map[map_word(to)] |= map_bit(to);
		levels |= 1u << tl;
	}
	e->levels = levels;
	/* The bucket of min itself is now the current one, which has no bit. */
	map_clear(e, cur_index(e));
	if (b->n == 0)
		bucket_shrink(e, b);
	cur_sort(e);
}

/* The lowest nonempty bucket of level l (levels below l empty, level l
 * not): the earliest pending times outside the current bucket. */
static unsigned lowest_bucket(const struct sim_engine *e, unsigned l)
{
	/* Digits below last's own at this level are empty (their times
	 * would be before last): start the search there. */
	unsigned w = digit_of(e->last, l) / 64;
	while (!e->map[l][w])
		w++;
	return l * SIM_RADIX_DIGITS + w * 64 + (unsigned)__builtin_ctzll(e->map[l][w]);
}

/* The head of refill(): 1 when the current bucket holds the earliest
 * pending event at head (after skipping its tombstones, or after moving
 * the single entry of the lowest bucket above level 0 into it), 0 when
 * nothing is pending, -1 when the lowest nonempty bucket (*bi, of level
 * *l, its map bit cleared) must become current or be redistributed. */
static inline __attribute__((always_inline)) int refill_head(struct sim_engine *e, unsigned *bi,
							      unsigned *l)
{
	struct sim_bucket *c = &e->b[cur_index(e)];
	while (e->head < c->n && !c->e[e->head].ev)
		e->head++;
	if (e->head < c->n)
		return 1;
	c->n = 0;
	e->head = 0;
	if (!e->levels)
		return 0;
	*l = (unsigned)__builtin_ctz(e->levels);
	*bi = lowest_bucket(e, *l);
	map_clear(e, *bi);
	if (*l == 0)
		return -1;
	struct sim_bucket *b = &e->b[*bi];
	struct sim_bucket *nc = &e->b[b->e[0].when & DIGIT_MASK];
	if (b->n != 1 || !nc->cap)
		return -1;
	/* redistribute() of a single entry: it is the minimum, the new last,
	 * and goes to the new current bucket (level 0, empty: level l is the
	 * lowest with entries and the old current one was just emptied),
	 * whose map bit redistribute would set and clear again; a bucket of
	 * one is in order */
	struct sim_heap_entry ent = b->e[0];
	e->last = ent.when;
	b->n = 0;
	entry_put(nc, cur_index(e), 0, ent);
	nc->n = 1;
	bucket_shrink(e, b);
	return 1;
}

/* refill() from a bucket that must move (refill_head returned -1). */
static __attribute__((noinline)) bool refill_moves(struct sim_engine *e, unsigned bi, unsigned l)
{
	for (;;) {
		if (l == 0) {
			/* The next instant of this level-0 block: no entry moves. */
			e->last = (int64_t)(((uint64_t)e->last & ~(uint64_t)DIGIT_MASK) |
					    (bi % SIM_RADIX_DIGITS));
			cur_sort(e);
		} else {
			redistribute(e, bi, l);
		}
		int r = refill_head(e, &bi, &l);
		if (r >= 0)
			return r;
	}
}

/* Make the current bucket hold the earliest pending event at head; false
 * when nothing is pending. Called when the current bucket is used up or
 * its head is a tombstone. */
static bool refill(struct sim_engine *e)
{
	unsigned bi, l;
	int r = refill_head(e, &bi, &l);
	return r >= 0 ? r : refill_moves(e, bi, l);
}

/* The entry to fire next, or NULL when nothing is pending. */
static inline struct sim_heap_entry *next_entry(struct sim_engine *e)
{
	struct sim_bucket *c = &e->b[cur_index(e)];
	if (__builtin_expect(e->head < c->n && c->e[e->head].ev != NULL, 1))
		return &c->e[e->head];
	if (e->n == 0 || !refill(e))
		return NULL;
	return &e->b[cur_index(e)].e[e->head];
}

static inline void fire(struct sim_engine *e, struct sim_heap_entry *ent)
{
	struct sim_event *ev = ent->ev;
	e->head++;
	SIM_ASSERT(ev->when >= e->now);
	ev->slot = SIM_EVENT_IDLE;
	e->n--;
	e->now = ev->when;
	e->fired++;
	ev->fire(e->owner, ev);
}

int64_t sim_engine_next_time(struct sim_engine *e)
{
	struct sim_heap_entry *ent = next_entry(e);
	return ent ? ent->when : SIM_TIME_MAX;
}

/* The earliest pending time without reorganising the queue (a refill
 * would move last past now, and every later event scheduled at now would
 * then cost a rebase): the head of the current bucket, else the minimum of
 * the lowest nonempty bucket, which holds the earliest times. */
static int64_t peek_min(struct sim_engine *e)
{
	struct sim_bucket *c = &e->b[cur_index(e)];
	for (uint32_t i = e->head; i < c->n; i++)
		if (c->e[i].ev)
			return c->e[i].when;
	if (!e->levels)
		return SIM_TIME_MAX;
	struct sim_bucket *b = &e->b[lowest_bucket(e, (unsigned)__builtin_ctz(e->levels))];
	int64_t min = SIM_TIME_MAX;
	for (uint32_t i = 0; i < b->n; i++)
		if (b->e[i].when < min)
			min = b->e[i].when;
	return min;
}

bool sim_engine_advance_slow(struct sim_engine *e, int64_t when)
{
	/* taken again below, from the bound as it is then */
	e->adv_max = INT64_MIN;
	if (e->no_advance || e->stop || e->max_events || when > e->until)
		return false;
	/* Cancelling only raises the minimum and firing happens outside a
	 * handler, so a bound taken since the last schedule stays a bound. */
	if (e->peek_seq != e->next_seq || e->peek_min <= when) {
		e->peek_min = peek_min(e);
		e->peek_seq = e->next_seq;
		if (e->peek_min <= when)
			return false;
	}
	/* A held start at barrier would be pending in some of the runs this
	 * one stands for (fork at a phase): those refuse, the others advance */
	if (when >= e->barrier && !e->cross(e->owner, when))
		return false;
	SIM_ASSERT(when >= e->now);
	e->now = when;
	e->skipped++;
	e->adv_max = e->peek_min - 1 < e->until ? e->peek_min - 1 : e->until;
	return true;
}

bool sim_engine_step(struct sim_engine *e)
{
	e->until = SIM_TIME_MAX;
	e->adv_max = INT64_MIN;
	struct sim_heap_entry *ent = next_entry(e);
	if (!ent)
		return false;
	fire(e, ent);
	return true;
}

/* Fire events up to (and including) last; advances may go to until. */
static inline enum sim_run_result run_loop(struct sim_engine *e, int64_t last, int64_t until)
{
	e->stop = false;
	e->until = until;
	e->adv_max = INT64_MIN;
	for (;;) {
		if (e->stop)
			return SIM_RUN_STOPPED;
		if (e->max_events && e->fired >= e->max_events)
			return SIM_RUN_LIMIT;
		struct sim_heap_entry *ent = next_entry(e);
		if (!ent)
			return SIM_RUN_EMPTY;
		if (ent->when > last) {
			if (last == until && until > e->now)
				e->now = until;
			return SIM_RUN_UNTIL;
		}
		fire(e, ent);
	}
}

enum sim_run_result sim_engine_run(struct sim_engine *e, int64_t until)
{
	return run_loop(e, until, until);
}

enum sim_run_result sim_engine_run_before(struct sim_engine *e, int64_t at, int64_t until)
{
	SIM_ASSERT(at > e->now && at <= until);
	return run_loop(e, at - 1, until);
}
