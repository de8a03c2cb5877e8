/* Tests for sim/engine.c: (when, seq) ordering, FIFO ties, cancel and
 * reschedule anywhere in the heap, run limits (until, max_events, stop),
 * the inline clock advance (sim_engine_advance) and a randomized
 * comparison with a sorted-array reference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_rng.h>

#include "sim/engine.h"
#include "sim/list.h"

/* ---- fixture: events that log their firing ---------------------------- */

struct ctx {
	struct sim_engine e;
	int log[4096];
	int64_t log_when[4096];
	int nlog;
	int stop_at;   /* id whose handler calls sim_engine_stop, or -1 */
};

struct tev {
	struct sim_event ev;
	struct ctx *ctx;
	int id;
};

static void tev_fire(struct sim *sim, struct sim_event *ev)
{
	struct tev *t = container_of(ev, struct tev, ev);
	struct ctx *c = t->ctx;
	assert_null(sim); /* owner is NULL in these tests */
	assert_false(sim_event_pending(ev)); /* popped before fire */
	assert_true(c->nlog < 4096);
	c->log_when[c->nlog] = sim_engine_now(&c->e);
	c->log[c->nlog++] = t->id;
	if (t->id == c->stop_at)
		sim_engine_stop(&c->e);
}

static void ctx_init(struct ctx *c, struct tev *evs, int n, uint32_t cap)
{
	memset(c, 0, sizeof(*c));
	c->stop_at = -1;
	assert_int_equal(sim_engine_init(&c->e, NULL, cap), 0);
	for (int i = 0; i < n; i++) {
		evs[i].ctx = c;
		evs[i].id = i;
		sim_event_init(&evs[i].ev, tev_fire);
	}
}

static void sched(struct ctx *c, struct tev *t, int64_t when)
{
	assert_int_equal(sim_engine_schedule(&c->e, &t->ev, when), 0);
}

static void assert_log(const struct ctx *c, const int *ids, int n)
{
	assert_int_equal(c->nlog, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(c->log[i], ids[i]);
}

/* ---- tests ------------------------------------------------------------ */

static void test_engine_orders_by_time(void **state)
{
	struct ctx c;
	struct tev ev[6];
	ctx_init(&c, ev, 6, 2); /* tiny capacity: the heap must grow */
	const int64_t when[6] = { 50, 10, 40, 20, 60, 30 };
	for (int i = 0; i < 6; i++)
		sched(&c, &ev[i], when[i]);
	assert_int_equal(sim_engine_pending(&c.e), 6);
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	const int order[6] = { 1, 3, 5, 2, 0, 4 };
	assert_log(&c, order, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(c.log_when[i], when[order[i]]); /* clock = event time */
	assert_int_equal(sim_engine_now(&c.e), 60);
	assert_int_equal(c.e.fired, 6);
	assert_false(sim_engine_step(&c.e)); /* empty */
	sim_engine_free(&c.e);
}

static void test_engine_ties_fifo(void **state)
{
	struct ctx c;
	struct tev ev[8];
	ctx_init(&c, ev, 8, 0);
	/* same instant, scheduled in a scrambled id order */
	const int ids[8] = { 5, 2, 7, 0, 3, 6, 1, 4 };
	for (int i = 0; i < 8; i++)
		sched(&c, &ev[ids[i]], 100);
	sim_engine_run(&c.e, SIM_TIME_MAX);
	assert_log(&c, ids, 8);
	sim_engine_free(&c.e);
}

static void test_engine_cancel_head_middle_last(void **state)
{
	struct ctx c;
	struct tev ev[10];
	ctx_init(&c, ev, 10, 0);
	for (int i = 0; i < 10; i++)
		sched(&c, &ev[i], 10 * (i + 1));
	sim_engine_cancel(&c.e, &ev[0].ev); /* head */
	sim_engine_cancel(&c.e, &ev[5].ev); /* middle */
	sim_engine_cancel(&c.e, &ev[9].ev); /* last in time */
	assert_false(sim_event_pending(&ev[0].ev));
	assert_false(sim_event_pending(&ev[5].ev));
	assert_int_equal(sim_engine_pending(&c.e), 7);
	sim_engine_cancel(&c.e, &ev[5].ev); /* idle: a no-op */
	assert_int_equal(sim_engine_pending(&c.e), 7);
	sim_engine_run(&c.e, SIM_TIME_MAX);
	const int order[7] = { 1, 2, 3, 4, 6, 7, 8 };
	assert_log(&c, order, 7);
	sim_engine_free(&c.e);
}

/* Cancel the most recently scheduled event and an event due now (both
 * ends of whatever array the queue keeps), then schedule again at the
 * same instants: the order stays (when, seq). */
static void test_engine_cancel_recent_and_due(void **state)
{
	struct ctx c;
	struct tev ev[6];
	ctx_init(&c, ev, 6, 0);
	for (int i = 0; i < 5; i++)
		sched(&c, &ev[i], 100 - i); /* each new one becomes the minimum */
	sim_engine_cancel(&c.e, &ev[4].ev); /* newest, and the minimum */
	sim_engine_cancel(&c.e, &ev[0].ev); /* oldest, and the latest */
	sched(&c, &ev[5], 98);             /* ties with ev[2], after it */
	sched(&c, &ev[4], 98);             /* re-added, after ev[5] */
	assert_int_equal(sim_engine_pending(&c.e), 5);
	assert_int_equal(sim_engine_run(&c.e, 97), SIM_RUN_UNTIL);
	const int first[1] = { 3 };
	assert_log(&c, first, 1);
	/* move two events to the current instant and cancel the first of
	 * them: it sits among entries due now, next to fired ones */
	sched(&c, &ev[5], 97);
	sched(&c, &ev[0], 97);
	sim_engine_cancel(&c.e, &ev[5].ev);
	assert_int_equal(sim_engine_pending(&c.e), 4);
	sim_engine_run(&c.e, SIM_TIME_MAX);
	const int order[5] = { 3, 0, 2, 4, 1 };
	assert_log(&c, order, 5);
	sim_engine_free(&c.e);
}

static void test_engine_reschedule_moves_and_resequences(void **state)
{
	struct ctx c;
	struct tev ev[4];
	ctx_init(&c, ev, 4, 0);
	sched(&c, &ev[0], 10);
	sched(&c, &ev[1], 20);
	sched(&c, &ev[2], 20);
	sched(&c, &ev[3], 30);
	/* move 0 later, to the same instant as 1 and 2: it goes after them */
	sched(&c, &ev[0], 20);
	/* move 3 earlier than everything */
	sched(&c, &ev[3], 5);
	/* rescheduling 1 to its own time re-sequences it behind 2 and 0 */
	sched(&c, &ev[1], 20);
	assert_int_equal(sim_engine_pending(&c.e), 4); /* moved, not duplicated */
	sim_engine_run(&c.e, SIM_TIME_MAX);
	const int order[4] = { 3, 2, 0, 1 };
	assert_log(&c, order, 4);
	assert_int_equal(c.log_when[0], 5);
	assert_int_equal(c.log_when[3], 20);
	sim_engine_free(&c.e);
}

static void test_engine_run_until(void **state)
{
	struct ctx c;
	struct tev ev[4];
	ctx_init(&c, ev, 4, 0);
	sched(&c, &ev[0], 100);
	sched(&c, &ev[1], 200);
	sched(&c, &ev[2], 300);
	sched(&c, &ev[3], 400);
	/* events at exactly until fire; the clock then stands at until */
	assert_int_equal(sim_engine_run(&c.e, 200), SIM_RUN_UNTIL);
	const int first[2] = { 0, 1 };
	assert_log(&c, first, 2);
	assert_int_equal(sim_engine_now(&c.e), 200);
	assert_int_equal(sim_engine_run(&c.e, 250), SIM_RUN_UNTIL);
	assert_int_equal(sim_engine_now(&c.e), 250); /* advanced with nothing fired */
	assert_int_equal(c.nlog, 2);
	assert_int_equal(sim_engine_pending(&c.e), 2);
	assert_true(sim_event_pending(&ev[2].ev) && sim_event_pending(&ev[3].ev));
	/* an until in the past does not move the clock back */
	assert_int_equal(sim_engine_run(&c.e, 10), SIM_RUN_UNTIL);
	assert_int_equal(sim_engine_now(&c.e), 250);
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	assert_int_equal(sim_engine_now(&c.e), 400);
	sim_engine_free(&c.e);
}

static void test_engine_max_events(void **state)
{
	struct ctx c;
	struct tev ev[10];
	ctx_init(&c, ev, 10, 0);
	for (int i = 0; i < 10; i++)
		sched(&c, &ev[i], i);
	c.e.max_events = 4;
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_LIMIT);
	assert_int_equal(c.nlog, 4);
	assert_int_equal(c.e.fired, 4);
	assert_int_equal(sim_engine_pending(&c.e), 6);
	assert_int_equal(sim_engine_now(&c.e), 3);
	/* the limit counts since init, so raising it lets the run go on */
	c.e.max_events = 7;
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_LIMIT);
	assert_int_equal(c.nlog, 7);
	c.e.max_events = 0;
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	assert_int_equal(c.nlog, 10);
	sim_engine_free(&c.e);
}

static void test_engine_stop_from_handler(void **state)
{
	struct ctx c;
	struct tev ev[5];
	ctx_init(&c, ev, 5, 0);
	for (int i = 0; i < 5; i++)
		sched(&c, &ev[i], 10 * i);
	c.stop_at = 2;
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_STOPPED);
	const int first[3] = { 0, 1, 2 }; /* the stopping handler's event did fire */
	assert_log(&c, first, 3);
	assert_int_equal(sim_engine_now(&c.e), 20);
	assert_int_equal(sim_engine_pending(&c.e), 2);
	/* the flag is per run: the next run continues */
	c.stop_at = -1;
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	assert_int_equal(c.nlog, 5);
	sim_engine_free(&c.e);
}

/* A handler that advances the clock inline to a time (adv_to), as a CPU
 * burst with nothing else to wait for does. */
struct adv {
	struct sim_event ev;
	struct ctx *ctx;
	int64_t adv_to;
	bool ok;
	int64_t now_after;
};

static void adv_fire(struct sim *sim, struct sim_event *ev)
{
	struct adv *a = container_of(ev, struct adv, ev);
	(void)sim;
	a->ok = sim_engine_advance(&a->ctx->e, a->adv_to);
	a->now_after = sim_engine_now(&a->ctx->e);
}

static void test_engine_advance(void **state)
{
	struct ctx c;
	struct tev ev[2];
	ctx_init(&c, ev, 2, 0);
	struct adv a = { .ctx = &c };
	sim_event_init(&a.ev, adv_fire);
	/* nothing pending before the target: the clock moves, nothing fires */
	sched(&c, &ev[0], 5000);
	assert_int_equal(sim_engine_schedule(&c.e, &a.ev, 1000), 0);
	a.adv_to = 4999;
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	assert_true(a.ok);
	assert_int_equal(a.now_after, 4999);
	assert_int_equal(c.e.skipped, 1);
	assert_int_equal(c.e.fired, 2);
	assert_int_equal(c.log_when[0], 5000);
	/* a pending event at the target itself would fire first: refused */
	sched(&c, &ev[0], 9000);
	assert_int_equal(sim_engine_schedule(&c.e, &a.ev, 6000), 0);
	a.adv_to = 9000;
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	assert_false(a.ok);
	assert_int_equal(a.now_after, 6000);
	/* a cancelled event no longer stands in the way */
	sched(&c, &ev[0], 12000);
	sched(&c, &ev[1], 11000);
	sim_engine_cancel(&c.e, &ev[1].ev);
	assert_int_equal(sim_engine_schedule(&c.e, &a.ev, 10000), 0);
	a.adv_to = 11500;
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	assert_true(a.ok);
	/* not past the run's time limit */
	assert_int_equal(sim_engine_schedule(&c.e, &a.ev, 20000), 0);
	a.adv_to = 20100;
	assert_int_equal(sim_engine_run(&c.e, 20050), SIM_RUN_EMPTY);
	assert_false(a.ok);
	/* not with an event-count limit (it counts events), nor when switched off */
	c.e.max_events = 1000;
	assert_int_equal(sim_engine_schedule(&c.e, &a.ev, 30000), 0);
	a.adv_to = 30100;
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	assert_false(a.ok);
	c.e.max_events = 0;
	c.e.no_advance = true;
	assert_int_equal(sim_engine_schedule(&c.e, &a.ev, 40000), 0);
	a.adv_to = 40100;
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	assert_false(a.ok);
	assert_int_equal(c.e.skipped, 2);
	sim_engine_free(&c.e);
}

/* Several advances inside one handler, the later ones by the bound the
 * first one cached (adv_max): whatever may have lowered the bound since -
 * an event placed with a reserved sequence number, a stop, a barrier -
 * refuses. */
static bool cross_calls_refuse(struct sim *owner, int64_t when)
{
	(void)owner;
	(void)when;
	return false;
}

struct adv_seq {
	struct sim_event ev;
	struct ctx *ctx;
	struct tev *late;
	uint64_t seq;
	bool ok[8];
};

static void adv_seq_fire(struct sim *sim, struct sim_event *ev)
{
	struct adv_seq *a = container_of(ev, struct adv_seq, ev);
	struct sim_engine *e = &a->ctx->e;
	(void)sim;
	a->ok[0] = sim_engine_advance(e, 2000);
	a->ok[1] = sim_engine_advance(e, 3000); /* by the cached bound */
	assert_int_equal(sim_engine_schedule_seq(e, &a->late->ev, 5000, a->seq), 0);
	a->ok[2] = sim_engine_advance(e, 6000); /* the late event comes first */
	a->ok[3] = sim_engine_advance(e, 4000);
	e->cross = cross_calls_refuse;
	e->barrier = 4500; /* as cross would set it */
	a->ok[4] = sim_engine_advance(e, 4600);
	e->barrier = SIM_TIME_MAX;
	a->ok[5] = sim_engine_advance(e, 4200);
	sim_engine_stop(e);
	a->ok[6] = sim_engine_advance(e, 4300);
}

static void test_engine_advance_cached(void **state)
{
	struct ctx c;
	struct tev ev[2];
	ctx_init(&c, ev, 2, 0);
	struct adv_seq a = { .ctx = &c, .late = &ev[1] };
	sim_event_init(&a.ev, adv_seq_fire);
	sched(&c, &ev[0], 10000);
	a.seq = sim_engine_reserve_seq(&c.e);
	assert_int_equal(sim_engine_schedule(&c.e, &a.ev, 1000), 0);
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_STOPPED);
	const bool want[7] = { true, true, false, true, false, true, false };
	for (int i = 0; i < 7; i++)
		assert_int_equal(a.ok[i], want[i]);
	assert_int_equal(sim_engine_now(&c.e), 4200);
	assert_int_equal(c.e.skipped, 4);
	/* a new run's time limit holds for the bound taken in the last one */
	assert_int_equal(sim_engine_run(&c.e, 4800), SIM_RUN_UNTIL);
	assert_int_equal(c.nlog, 0);
	a.ok[0] = sim_engine_advance(&c.e, 4900);
	assert_false(a.ok[0]);
	assert_int_equal(sim_engine_run(&c.e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	const int order[2] = { 1, 0 };
	assert_log(&c, order, 2);
	sim_engine_free(&c.e);
}

/* A handler that reschedules itself (a periodic timer) and schedules a
 * peer at the current instant: the peer runs after events already due now. */
struct chain {
	struct sim_event ev;
	struct ctx *ctx;
	struct tev *peer;
	int left;
};

static void chain_fire(struct sim *sim, struct sim_event *ev)
{
	struct chain *ch = container_of(ev, struct chain, ev);
	struct ctx *c = ch->ctx;
	c->log_when[c->nlog] = sim_engine_now(&c->e);
	c->log[c->nlog++] = 100;
	if (ch->peer && !sim_event_pending(&ch->peer->ev))
		sim_engine_schedule(&c->e, &ch->peer->ev, sim_engine_now(&c->e));
	if (--ch->left > 0)
		sim_engine_schedule(&c->e, ev, sim_engine_now(&c->e) + 1000);
}

static void test_engine_handler_schedules(void **state)
{
	struct ctx c;
	struct tev ev[2];
	ctx_init(&c, ev, 2, 0);
	struct chain ch = { .ctx = &c, .peer = &ev[1], .left = 3 };
	sim_event_init(&ch.ev, chain_fire);
	sched(&c, &ev[0], 1000); /* due when the chain first re-arms */
	assert_int_equal(sim_engine_schedule(&c.e, &ch.ev, 0), 0);
	sim_engine_run(&c.e, SIM_TIME_MAX);
	/* t=0 chain, t=0 peer(1), t=1000 ev0 (scheduled before the chain's
	 * re-arm), t=1000 chain, t=1000 peer, t=2000 chain, t=2000 peer */
	const int order[7] = { 100, 1, 0, 100, 1, 100, 1 };
	const int64_t when[7] = { 0, 0, 1000, 1000, 1000, 2000, 2000 };
	assert_log(&c, order, 7);
	for (int i = 0; i < 7; i++)
		assert_int_equal(c.log_when[i], when[i]);
	sim_engine_free(&c.e);
}

static void test_engine_free_idles_pending(void **state)
{
	struct ctx c;
	struct tev ev[3];
	ctx_init(&c, ev, 3, 0);
	for (int i = 0; i < 3; i++)
		sched(&c, &ev[i], 5);
	sim_engine_free(&c.e);
	for (int i = 0; i < 3; i++)
		assert_false(sim_event_pending(&ev[i].ev));
}

/* ---- randomized against a sorted array ------------------------------- */

struct ref_ent {
	int64_t when;
	uint64_t seq;
	int id;
};

static int ref_cmp(const struct ref_ent *a, int64_t when, uint64_t seq)
{
	if (a->when != when)
		return a->when < when ? -1 : 1;
	return a->seq < seq ? -1 : a->seq > seq;
}

/* Position of (when, seq) in the sorted array (insertion point). */
static size_t ref_find(const struct ref_ent *r, size_t n, int64_t when, uint64_t seq)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ref_cmp(&r[mid], when, seq) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void test_engine_random_vs_sorted_reference(void **state)
{
	enum { NEV = 2000, OPS = 100000 };
	struct ctx *c = malloc(sizeof(*c));
	struct tev *ev = calloc(NEV, sizeof(*ev));
	struct ref_ent *ref = calloc(NEV, sizeof(*ref));
	int64_t *ev_when = calloc(NEV, sizeof(*ev_when));
	uint64_t *ev_seq = calloc(NEV, sizeof(*ev_seq));
	size_t nref = 0;
	uint64_t seq = 0; /* mirrors the engine's: one per schedule call */
	ctx_init(c, ev, NEV, 16);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 99);
	int fired = 0;

	for (int op = 0; op < OPS; op++) {
		struct tev *t = &ev[gsl_rng_uniform_int(r, NEV)];
		double u = gsl_rng_uniform(r);
		if (u < 0.45) {
			/* schedule, or reschedule when pending: mostly small delays
			 * (ties, the current instant), some spanning up to 2^40 ns */
			double w = gsl_rng_uniform(r);
			uint64_t span = w < 0.7 ? 50 : w < 0.9 ? 1000000 : UINT64_C(1) << 40;
			uint64_t d = span <= UINT32_MAX ? gsl_rng_uniform_int(r, span)
							 : (uint64_t)(gsl_rng_uniform(r) * (double)span);
			int64_t when = sim_engine_now(&c->e) + (int64_t)d;
			if (sim_event_pending(&t->ev)) {
				size_t k = ref_find(ref, nref, ev_when[t->id], ev_seq[t->id]);
				assert_int_equal(ref[k].id, t->id);
				memmove(&ref[k], &ref[k + 1], (nref - k - 1) * sizeof(*ref));
				nref--;
			}
			sched(c, t, when);
			ev_when[t->id] = when;
			ev_seq[t->id] = seq++;
			size_t k = ref_find(ref, nref, when, ev_seq[t->id]);
			memmove(&ref[k + 1], &ref[k], (nref - k) * sizeof(*ref));
			ref[k] = (struct ref_ent){ when, ev_seq[t->id], t->id };
			nref++;
		} else if (u < 0.5) {
			/* an inline advance: allowed exactly when every pending
			 * event is later than the target (ties go to them) */
			int64_t now = sim_engine_now(&c->e);
			int64_t when = now + (int64_t)gsl_rng_uniform_int(r, gsl_rng_uniform(r) < 0.8 ? 50 : 100000);
			bool ok = sim_engine_advance(&c->e, when);
			assert_int_equal(ok, c->e.until >= when && (nref == 0 || ref[0].when > when));
			assert_int_equal(sim_engine_now(&c->e), ok ? when : now);
		} else if (u < 0.6) {
			bool was = sim_event_pending(&t->ev);
			sim_engine_cancel(&c->e, &t->ev);
			assert_false(sim_event_pending(&t->ev));
			if (was) {
				size_t k = ref_find(ref, nref, ev_when[t->id], ev_seq[t->id]);
				assert_int_equal(ref[k].id, t->id);
				memmove(&ref[k], &ref[k + 1], (nref - k - 1) * sizeof(*ref));
				nref--;
			}
		} else {
			/* fire the earliest; it must be the reference's head */
			c->nlog = 0;
			bool stepped = sim_engine_step(&c->e);
			assert_int_equal(stepped, nref > 0);
			if (stepped) {
				assert_int_equal(c->log[0], ref[0].id);
				assert_int_equal(sim_engine_now(&c->e), ref[0].when);
				memmove(&ref[0], &ref[1], (nref - 1) * sizeof(*ref));
				nref--;
				fired++;
			}
		}
		assert_int_equal(sim_engine_pending(&c->e), nref);
	}
	/* drain in order */
	c->nlog = 0;
	size_t left = nref;
	assert_int_equal(sim_engine_run(&c->e, SIM_TIME_MAX), SIM_RUN_EMPTY);
	assert_int_equal(c->nlog, left);
	for (size_t i = 0; i < left; i++)
		assert_int_equal(c->log[i], ref[i].id);
	assert_true(fired > 10000);
	sim_engine_free(&c->e);
	gsl_rng_free(r);
	free(ev_seq);
	free(ev_when);
	free(ref);
	free(ev);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine_orders_by_time),
		cmocka_unit_test(test_engine_ties_fifo),
		cmocka_unit_test(test_engine_cancel_head_middle_last),
		cmocka_unit_test(test_engine_cancel_recent_and_due),
		cmocka_unit_test(test_engine_reschedule_moves_and_resequences),
		cmocka_unit_test(test_engine_run_until),
		cmocka_unit_test(test_engine_max_events),
		cmocka_unit_test(test_engine_stop_from_handler),
		cmocka_unit_test(test_engine_handler_schedules),
		cmocka_unit_test(test_engine_advance),
		cmocka_unit_test(test_engine_advance_cached),
		cmocka_unit_test(test_engine_free_idles_pending),
		cmocka_unit_test(test_engine_random_vs_sorted_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
