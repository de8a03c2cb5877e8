/* Discrete-event engine: integer-nanosecond clock and a monotone priority
 * queue of intrusive events (docs/architecture.md §6).
 *
 * An event is embedded in the object that owns it; scheduling allocates
 * nothing once the buckets have grown to the peak number of pending events.
 * Ties in time break by a sequence number taken when the event is
 * scheduled, so a run is a pure function of its inputs.
 *
 * The queue is a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) with
 * 6-bit digits, valid because simulated time never goes backwards: an
 * event whose time first differs from the last extracted minimum in digit
 * l (bits 6l..6l+5) waits in bucket (l, that digit), so inserting is O(1)
 * and each event moves down at most 10 levels in its life - three with a
 * 1 ms delay, against about ten moves in a binary radix heap. Level-0
 * buckets each hold a single instant; the one of the current instant is
 * consumed from its head in sequence order. Buckets are arrays of
 * (when, event) entries, and each event remembers its bucket and
 * index for O(1) cancel and reschedule. Figures against the binary radix
 * heap and the 4-ary heap it replaced (bench/heap4_engine.c) are in
 * sim/engine.c.
 */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

struct sim;
struct sim_event;

typedef void (*sim_event_fn)(struct sim *sim, struct sim_event *ev);

#define SIM_EVENT_IDLE UINT32_MAX
#define SIM_TIME_MAX INT64_MAX

struct sim_event {
	int64_t when;       /* ns; valid while pending */
	sim_event_fn fire;  /* called once when the clock reaches when */
	uint64_t seq;       /* schedule order, breaks ties in when; valid while pending */
	uint32_t slot;      /* index in its bucket, SIM_EVENT_IDLE when not pending */
	uint16_t bucket;    /* level * SIM_RADIX_DIGITS + digit */
};

struct sim_heap_entry {
	int64_t when;
	struct sim_event *ev; /* NULL: a cancelled entry left in the current bucket to keep its order */
};

struct sim_bucket {
	struct sim_heap_entry *e;
	uint32_t n, cap;
};

#ifndef SIM_RADIX_BITS
#define SIM_RADIX_BITS 6    /* digit width; sim/engine.c has the figures for other widths */
#endif
#define SIM_RADIX_DIGITS (1u << SIM_RADIX_BITS)
#define SIM_RADIX_LEVELS ((64 + SIM_RADIX_BITS - 1) / SIM_RADIX_BITS)
#define SIM_NBUCKETS (SIM_RADIX_LEVELS * SIM_RADIX_DIGITS)
#define SIM_RADIX_WORDS ((SIM_RADIX_DIGITS + 63) / 64)

enum sim_run_result {
	SIM_RUN_EMPTY = 0,   /* no event left */
	SIM_RUN_UNTIL = 1,   /* next event is later than the time limit */
	SIM_RUN_LIMIT = 2,   /* the event-count limit was reached */
	SIM_RUN_STOPPED = 3, /* a handler called sim_engine_stop() */
};

struct sim_engine {
	struct sim_bucket *b;  /* SIM_NBUCKETS, allocated by init */
	uint64_t map[SIM_RADIX_LEVELS][SIM_RADIX_WORDS]; /* bit set: bucket has entries */
	struct sim_heap_entry *spare; /* a large array given back by a redistribution */
	uint32_t spare_cap;
	uint32_t levels;     /* bit l set: level l has a nonempty bucket */
	uint32_t head;       /* current bucket: entries before head have fired */
	int64_t last;        /* time of the last extracted minimum (the current instant) */
	uint32_t n;          /* pending events */
	int64_t now;
	uint64_t next_seq;
	uint64_t fired;      /* events fired since init */
	uint64_t max_events; /* 0 = unlimited */
	bool stop;
	struct sim *owner;   /* passed to every fire() */
	/* sim_engine_advance (after the fields fire() uses, which keep their place) */
	int64_t until;       /* time limit of the run in progress */
	uint64_t skipped;    /* clock advances that replaced an event */
	int64_t peek_min;    /* a lower bound of the earliest pending time ... */
	uint64_t peek_seq;   /* ... valid while next_seq is this (nothing scheduled since) */
	bool no_advance;     /* always refuse (run.per_event) */
	/* While peek_seq is next_seq, an advance up to adv_max before barrier
	 * needs no other test: the smaller of until and peek_min - 1, taken
	 * by sim_engine_advance_slow when no_advance, stop and max_events let
	 * it advance; INT64_MIN after anything that may have changed those
	 * (a run's start, a stop, step). no_advance and max_events are set
	 * between runs only. */
	int64_t adv_max;
	/* Fork at a phase: an advance to barrier or past it asks cross(owner,
	 * when) first (true: advance); SIM_TIME_MAX: none. */
	int64_t barrier;
	bool (*cross)(struct sim *owner, int64_t when);
};

static inline void sim_event_init(struct sim_event *ev, sim_event_fn fire)
{
	ev->when = 0;
	ev->fire = fire;
	ev->slot = SIM_EVENT_IDLE;
}

static inline bool sim_event_pending(const struct sim_event *ev)
{
	return ev->slot != SIM_EVENT_IDLE;
}

/* Returns 0 or SIM_E_NOMEM. owner may be NULL in unit tests;
 * initial_cap is a hint for the number of pending events. */
int sim_engine_init(struct sim_engine *e, struct sim *owner, uint32_t initial_cap);
void sim_engine_free(struct sim_engine *e);

/* Schedule ev at absolute time when (>= now). If ev is already pending it is
 * moved (reschedule) and takes a new sequence number, i.e. it sorts after
 * events already scheduled for the same instant. Returns 0 or SIM_E_NOMEM. */
int sim_engine_schedule(struct sim_engine *e, struct sim_event *ev, int64_t when);

/* Take the sequence number the next schedule would have, so that an event
 * scheduled later with sim_engine_schedule_seq() sorts among those of its
 * instant as if it had been scheduled now (fork at a phase: a start held
 * back in a shared prefix keeps its place). */
uint64_t sim_engine_reserve_seq(struct sim_engine *e);
/* Schedule ev (not pending) at when with a sequence number reserved
 * earlier. Returns 0 or SIM_E_NOMEM. */
int sim_engine_schedule_seq(struct sim_engine *e, struct sim_event *ev, int64_t when,
			    uint64_t seq);

/* Remove ev if pending; a no-op otherwise. */
void sim_engine_cancel(struct sim_engine *e, struct sim_event *ev);

/* Fire events in (when, seq) order until none is left, the next one is later
 * than until (the clock then advances to until), max_events is reached, or a
 * handler stops the run. */
enum sim_run_result sim_engine_run(struct sim_engine *e, int64_t until);

/* The same, but fire only the events before at (> now; the clock stays at
 * the last one fired), while sim_engine_advance still goes as far as until
 * (>= at): a pause before an instant that does not limit what the events
 * before it do. */
enum sim_run_result sim_engine_run_before(struct sim_engine *e, int64_t at, int64_t until);

/* Time of the earliest pending event, SIM_TIME_MAX when none is pending.
 * Fires nothing (it may reorganise the queue, as run() does before it
 * returns at its time limit). */
int64_t sim_engine_next_time(struct sim_engine *e);

/* Fire the single earliest event; false when no event is pending. */
bool sim_engine_step(struct sim_engine *e);

/* For a handler about to schedule an event of its own at when (>= now)
 * and to do nothing until it fires: when that event would be the next to
 * fire (every pending event is later than when, when is within the run's
 * time limit, no stop was asked, no event-count limit is set), advance the
 * clock to when and return true - the caller then does the event's work
 * inline, exactly as its handler would have, since nothing can come in
 * between. Counted in skipped, not fired. False: schedule as usual. */
bool sim_engine_advance_slow(struct sim_engine *e, int64_t when);
/* sim_engine_advance's own test, without refreshing its cached bound: the
 * bound still holds (nothing scheduled since it was taken) and no barrier
 * is crossed - advance and return true; false: nothing changed (the
 * caller may still ask sim_engine_advance). */
static inline bool sim_engine_advance_fast(struct sim_engine *e, int64_t when)
{
	if (e->peek_seq == e->next_seq && when <= e->adv_max && when < e->barrier &&
	    when >= e->now) {
		e->now = when;
		e->skipped++;
		return true;
	}
	return false;
}
static inline bool sim_engine_advance(struct sim_engine *e, int64_t when)
{
	/* asked for every CPU burst: the fast test, else the full check */
	return sim_engine_advance_fast(e, when) || sim_engine_advance_slow(e, when);
}

static inline void sim_engine_stop(struct sim_engine *e)
{
	e->stop = true;
	e->adv_max = INT64_MIN;
}
static inline int64_t sim_engine_now(const struct sim_engine *e) { return e->now; }
static inline uint32_t sim_engine_pending(const struct sim_engine *e) { return e->n; }

#endif
