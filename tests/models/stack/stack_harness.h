/* Test harness for the upper stack (included by tests/models/mm/test_pagecache.c,
 * test_readahead.c, test_writeback.c, test_task.c, test_stack_effects.c):
 * a bare simulator with a device, a block queue and the stack built from
 * one YAML text, tasks fed from scripted op lists or generator callbacks,
 * and a block trace sink that records dispatched requests.
 */
#ifndef TESTS_STACK_HARNESS_H
#define TESTS_STACK_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/block/block.h"
#include "models/device/device.h"
#include "models/stack/stack.h"
#include "models/stack/stack_int.h"
#include "sim/config.h"
#include "sim/sim.h"

#define SH_MAX_D 65536

struct sh {
	struct sim *sim;
	struct stack *st;
	/* dispatched requests (D events) */
	uint32_t nd;
	uint64_t d_sector[SH_MAX_D];
	uint32_t d_sectors[SH_MAX_D], d_flags[SH_MAX_D];
	int64_t d_time[SH_MAX_D];
};

static inline void sh_sink(void *ctx, const struct blk_trace_event *e)
{
	struct sh *h = ctx;
	if (e->action != 'D' || h->nd >= SH_MAX_D)
		return;
	h->d_sector[h->nd] = e->sector;
	h->d_sectors[h->nd] = e->nr_sectors;
	h->d_flags[h->nd] = e->flags;
	h->d_time[h->nd] = e->time_ns;
	h->nd++;
}

/* yaml: a scenario-like map with `device:`, optional `scheduler:` and the
 * stack's sections. */
static inline struct sh *sh_new(const char *yaml)
{
	struct sh *h = calloc(1, sizeof(*h));
	struct sim_error err = { 0 };
	struct cfg_doc *doc = NULL;
	assert_non_null(h);
	h->sim = sim_new_bare(1);
	assert_non_null(h->sim);
	if (cfg_load_string(yaml, strlen(yaml), "test.yaml", &doc, &err))
		fail_msg("%s", err.msg);
	h->sim->doc = doc;
	struct cfg_node *root = cfg_root(doc);
	struct cfg_node *dev = cfg_get(root, "device");
	assert_non_null(dev);
	cfg_mark_used(dev, false);
	if (device_create(h->sim, dev, &h->sim->device, &err))
		fail_msg("%s", err.msg);
	const char *sched = cfg_get_str(root, "scheduler");
	if (blk_queue_create(h->sim, h->sim->device, cfg_get(root, "block"), sched ? sched : "noop", NULL,
			     &h->sim->blk, &err))
		fail_msg("%s", err.msg);
	struct blk_trace_sink sink = { .event = sh_sink, .ctx = h };
	blk_set_trace_sink(h->sim->blk, &sink);
	if (stack_create(h->sim, root, &h->sim->stack, &err))
		fail_msg("%s", err.msg);
	h->st = h->sim->stack;
	return h;
}

static inline void sh_free(struct sh *h)
{
	sim_destroy(h->sim);
	free(h);
}

/* Run until nothing is pending (kernel threads go idle once all is clean)
 * or the time limit. */
static inline void sh_run(struct sh *h, int64_t until_ns)
{
	sim_engine_run(&h->sim->engine, until_ns);
	assert_false(h->sim->failed);
}

/* ------------------------------------------------------------ sources */

/* A scripted list of ops. */
struct sh_script {
	struct stack_op ops[256];
	int n, next;
	int64_t exited_at;
};

static inline int sh_script_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	struct sh_script *s = ctx;
	(void)t;
	if (s->next >= s->n)
		return 0;
	*op = s->ops[s->next++];
	return 1;
}

static inline void sh_script_exited(struct stack_task *t, void *ctx)
{
	struct sh_script *s = ctx;
	s->exited_at = sim_now(stack_task_stack(t)->sim);
}

static inline void sh_op(struct sh_script *s, enum stack_op_kind k, struct stack_file *f, uint64_t off,
		  uint64_t len, int64_t ns)
{
	assert_true(s->n < 256);
	struct stack_op *op = &s->ops[s->n++];
	memset(op, 0, sizeof(*op));
	op->kind = k;
	op->file = f;
	op->off = off;
	op->len = len;
	op->ns = ns;
}

/* A streaming generator: `count` ops of `len` bytes, sequential from 0
 * (or at off_fn's choice), optionally rate-limited. */
struct sh_gen {
	enum stack_op_kind kind;
	struct stack_file *f;
	uint64_t len, count, done;
	uint64_t stride;          /* 0: sequential; else offset = (i * stride) % wrap */
	uint64_t wrap;
	double rate_bps;          /* 0: as fast as possible */
	int64_t t0;
	bool sleep_next;
	int64_t exited_at;
	struct sim *sim;
};

static inline int sh_gen_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	struct sh_gen *g = ctx;
	(void)t;
	if (g->done >= g->count)
		return 0;
	memset(op, 0, sizeof(*op));
	if (g->rate_bps > 0) {
		int64_t due = g->t0 + (int64_t)((double)(g->done * g->len) / g->rate_bps * 1e9);
		if (due > sim_now(g->sim)) {
			op->kind = STACK_OP_SLEEP;
			op->ns = due - sim_now(g->sim);
			return 1;
		}
	}
	op->kind = g->kind;
	op->file = g->f;
	op->len = g->len;
	op->off = g->stride ? (g->done * g->stride) % g->wrap : g->done * g->len;
	g->done++;
	return 1;
}

static inline void sh_gen_exited(struct stack_task *t, void *ctx)
{
	struct sh_gen *g = ctx;
	g->exited_at = sim_now(stack_task_stack(t)->sim);
}

static inline struct stack_task *sh_task(struct sh *h, const char *name, uint32_t uid, int64_t start,
				  struct stack_op_source src)
{
	struct sim_error err = { 0 };
	struct stack_task_attr a = { .name = name, .uid = uid };
	struct stack_task *t = stack_task_create(h->st, &a, &src, &err);
	if (!t)
		fail_msg("%s", err.msg);
	stack_task_start(t, start);
	return t;
}

static inline struct stack_task *sh_script_task(struct sh *h, const char *name, uint32_t uid,
					 int64_t start, struct sh_script *s)
{
	struct stack_op_source src = { .next = sh_script_next, .exited = sh_script_exited, .ctx = s };
	s->exited_at = -1;
	return sh_task(h, name, uid, start, src);
}

static inline struct stack_task *sh_gen_task(struct sh *h, const char *name, uint32_t uid, int64_t start,
				      struct sh_gen *g)
{
	struct stack_op_source src = { .next = sh_gen_next, .exited = sh_gen_exited, .ctx = g };
	g->sim = h->sim;
	g->t0 = start;
	g->exited_at = -1;
	return sh_task(h, name, uid, start, src);
}

static inline struct stack_file *sh_file(struct sh *h, const char *name, uint64_t size)
{
	struct sim_error err = { 0 };
	struct stack_file *f = stack_file_get(h->st, name, size, &err);
	if (!f)
		fail_msg("%s", err.msg);
	return f;
}

static inline int64_t sh_wait(struct sh *h, enum sim_class c, enum sim_wait w)
{
	return h->sim->metrics.cls[c].wait[w].total_ns;
}

#define MS 1000000LL
#define SEC 1000000000LL

#endif
