/* The hook points through which policies reach into the upper stack
 * (docs/architecture.md), as include/linux/lsm_hooks.h lists the security
 * modules' hooks: a table of function pointers the policy set fills
 * (models/policies/policy.c, behind stack_hooks()) and the layers below
 * call where each point is: sched (classify_bio, task_submit_bio), mm
 * (pagecache_may_insert, on_page_insert, reclaim_protect) and fs
 * (on_wait_writeback). Types only, so every layer may include it
 * (scripts/check-layers lists it as shared).
 */
#ifndef MODELS_POLICY_HOOKS_H
#define MODELS_POLICY_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

struct bio;
struct stack_file;
struct stack_task;

/* Any may be NULL. */
struct stack_hooks {
	void *ctx;
	/* A task is about to sleep in wait_on_page_writeback on a page whose
	 * async writeback bio starts at sector page_lba. */
	void (*on_wait_writeback)(struct stack_task *t, uint64_t page_lba, void *ctx);
	/* Before a task inserts a page into the page cache: return 0 to go
	 * on, or a delay in ns after which the check is repeated (the task
	 * sleeps, wait cause SIM_WAIT_POLICY). */
	int64_t (*pagecache_may_insert)(struct stack_task *t, void *ctx);
	/* After a task inserted a valid page (read completion or write). */
	void (*on_page_insert)(struct stack_task *t, void *ctx);
	/* The two insert hooks read only the task, the clock, the block layer
	 * and their policies' own state, and change only that state: so a
	 * writer's run of pages may add the page cache's, the CPU model's and
	 * the locks' counters at the run's end (models/stack/ops.c,
	 * write_append_run) while calling them page by page. Set when every
	 * policy with an insert hook is built in (each of those keeps this);
	 * a plugin's hooks get every counter as it is at each page. */
	bool insert_hooks_local;
	/* A bio is about to enter the block layer from task t (REQ_FG
	 * already set): a policy may add flags (models/policies/policy.h). */
	void (*classify_bio)(struct stack_task *t, struct bio *bio, void *ctx);
	/* Reclaim (kswapd or a direct reclaimer t) is about to free a clean
	 * page of f: true keeps it (it is activated, as a referenced page). */
	bool (*reclaim_protect)(const struct stack_file *f, struct stack_task *t, void *ctx);
};

#endif
