/* The 4-ary heap event queue kept as the benchmark's reference (see
 * heap4_engine.c). Same contract as sim/engine.h, own names. */
#ifndef BENCH_HEAP4_ENGINE_H
#define BENCH_HEAP4_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#define HEAP4_ASSERT(c) ((void)0)
#define HEAP4_IDLE UINT32_MAX

struct heap4_engine;
struct heap4_event {
	int64_t when;
	void (*fire)(struct heap4_engine *e, struct heap4_event *ev);
	uint32_t slot;
};

struct heap4_entry {
	int64_t when;
	uint64_t seq;
	struct heap4_event *ev;
};

enum heap4_run_result { HEAP4_RUN_EMPTY, HEAP4_RUN_UNTIL, HEAP4_RUN_LIMIT, HEAP4_RUN_STOPPED };

struct heap4_engine {
	struct heap4_entry *heap;
	uint32_t n, cap;
	int64_t now;
	uint64_t next_seq, fired, max_events;
	bool stop;
};

static inline bool heap4_event_pending(const struct heap4_event *ev) { return ev->slot != HEAP4_IDLE; }

int heap4_engine_init(struct heap4_engine *e, void *owner, uint32_t initial_cap);
void heap4_engine_free(struct heap4_engine *e);
int heap4_engine_schedule(struct heap4_engine *e, struct heap4_event *ev, int64_t when);
void heap4_engine_cancel(struct heap4_engine *e, struct heap4_event *ev);
bool heap4_engine_step(struct heap4_engine *e);
enum heap4_run_result heap4_engine_run(struct heap4_engine *e, int64_t until);

#endif
