/* Hold-model benchmark of the event engine: P events
 * pending; each fired event reschedules itself an exponentially
 * distributed delay later (mean 1 ms, from a precomputed table so that the
 * benchmark measures the queue, not libm), so the queue size stays P.
 * Runs the radix heap of sim/engine.c and, for comparison, the 4-ary heap
 * of bench/heap4_engine.c on the same delays, and prints events per second
 * of CPU time for each.
 * usage: bench_engine [PENDING] [EVENTS] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "bench/heap4_engine.h"
#include "sim/engine.h"
#include "sim/list.h"

#define DELAYS 65536

static int64_t delay_table[DELAYS];

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

struct holder {
	struct sim_event ev;
	struct heap4_event hev;
	uint64_t state;
	struct sim_engine *e;
};

static inline int64_t next_delay(uint64_t *s)
{
	return delay_table[xorshift(s) & (DELAYS - 1)];
}

static void radix_fire(struct sim *sim, struct sim_event *ev) /* sim unused: no owner */
{
	struct holder *h = container_of(ev, struct holder, ev);
	sim_engine_schedule(h->e, ev, h->e->now + next_delay(&h->state));
}

static void heap4_fire(struct heap4_engine *e, struct heap4_event *ev)
{
	struct holder *h = container_of(ev, struct holder, hev);
	heap4_engine_schedule(e, ev, e->now + next_delay(&h->state));
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long pending = argc > 1 ? atol(argv[1]) : 100000;
	long events = argc > 2 ? atol(argv[2]) : 20000000;
	if (pending <= 0 || events <= 0)
		return 2;
	uint64_t s = 88172645463325252ull;
	for (int i = 0; i < DELAYS; i++) {
		double u = (double)(xorshift(&s) >> 11) * 0x1.0p-53;
		delay_table[i] = (int64_t)(-log1p(-u) * 1e6) + 1;
	}
	struct holder *h = calloc((size_t)pending, sizeof(*h));
	struct sim_engine e;
	struct heap4_engine he;
	if (!h || sim_engine_init(&e, NULL, (uint32_t)pending) ||
	    heap4_engine_init(&he, NULL, (uint32_t)pending))
		return 1;

	for (long i = 0; i < pending; i++) {
		h[i].state = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
		h[i].e = &e;
		sim_event_init(&h[i].ev, radix_fire);
		radix_fire(NULL, &h[i].ev);
	}
	e.max_events = (uint64_t)events;
	double t0 = cpu_s();
	sim_engine_run(&e, SIM_TIME_MAX);
	double radix = (double)e.fired / (cpu_s() - t0);

	for (long i = 0; i < pending; i++) {
		h[i].state = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
		h[i].hev.fire = heap4_fire;
		h[i].hev.slot = HEAP4_IDLE;
		heap4_fire(&he, &h[i].hev);
	}
	he.max_events = (uint64_t)events;
	t0 = cpu_s();
	heap4_engine_run(&he, INT64_MAX);
	double heap4 = (double)he.fired / (cpu_s() - t0);

	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("pending %ld events %ld radix_events_per_s %.0f heap4_events_per_s %.0f ratio %.2f "
	       "peak_rss_kib %ld\n",
	       pending, events, radix, heap4, radix / heap4, ru.ru_maxrss);
	sim_engine_free(&e);
	heap4_engine_free(&he);
	free(h);
	return 0;
}
