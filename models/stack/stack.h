/* The upper I/O stack: tasks, CPU, page cache with its global lock,
 * readahead, dirty accounting and writeback, fsync, a file system with a
 * jbd2-like journal (docs/architecture.md, the part above the block layer).
 *
 * Who calls what:
 *  - sim/scenario.c calls stack_create() with the scenario's root map; the
 *    stack reads its own sections (`cpu:`, `memory:`, `pagecache:`,
 *    `pagecache_lock:`, `readahead:`, `writeback:`, `fs:`, `journal:`,
 *    `fg:`) and talks to sim->blk through models/block/block.h.
 *  - Workload sources (traces/workloads/synthetic.c, ftrace replay) create files and
 *    tasks and feed each task an op stream through a struct stack_op_source.
 *  - Policies fill struct stack_hooks (stack_hooks(); its hook points are
 *    models/policies/policy_hooks.h).
 *  - results.c puts stack_to_json() under "pagecache" and
 *    stack_stats_json() under "stack".
 *
 * A task executes one op at a time as a state machine over events; every
 * interval in which it is not running is accounted to one wait cause
 * (sim_metrics_wait) and every read/write/fsync/fault to its op latency
 * (sim_metrics_op), under the task's class (fg when its uid is the
 * current fg_uid; everything else, kernel threads included, is bg).
 */
#ifndef MODELS_STACK_H
#define MODELS_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "models/block/request.h"
#include "models/fs/vfs.h"
#include "models/policies/policy_hooks.h"
#include "models/stack/stack_op.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/metrics.h"

struct sim;
struct stack;
struct stack_task;
struct stack_file;
struct json_t;

struct stack_task_attr {
	const char *name;     /* comm; copied */
	int32_t pid, tid;     /* 0: assigned by the stack */
	uint32_t uid;         /* 0 = root: never background */
	uint8_t ioprio_class; /* enum ioprio_class; NONE means BE at IOPRIO_NORM */
	uint8_t ioprio_level; /* 0..7 */
};

/* ---------------------------------------------------------------- hooks */

/* struct stack_hooks, the policies' hook points: models/policies/policy_hooks.h. */

/* ---------------------------------------------------------------- stack */

/* Build the stack from the scenario root (its sections may be absent:
 * defaults). Needs sim->blk for I/O. Returns 0, SIM_E_INPUT naming the
 * node, or SIM_E_NOMEM. */
int stack_create(struct sim *sim, struct cfg_node *root, struct stack **out, struct sim_error *err);
/* A second stack in the same run over its own block queue q (a VM host's
 * under a guest's virtual disk, models/virt/virtio_blk.c): the same layers
 * from root's sections, but its ops, waits and btt stay out of the run's
 * fg/bg metrics (its owner reports it), it leaves sim->cpu_ops to the
 * run's own stack, and its pids start at 1000001. Freed with stack_destroy. */
int stack_create_nested(struct sim *sim, struct blk_queue *q, struct cfg_node *root,
			struct stack **out, struct sim_error *err);
void stack_destroy(struct stack *s);

struct stack_hooks *stack_hooks(struct stack *s);
/* The journal (jbd2) kernel thread, or NULL when the journal is off
 * (for policies that change its io_context, e.g. jprio). */
struct stack_task *stack_journal_task(struct stack *s);
/* A foreground task sleeps in fsync waiting for a jbd2 commit (for a
 * policy that sees the commit's own waits, e.g. boost's ordered data). */
bool stack_journal_fg_waiting(const struct stack *s);

/* I/O contexts of the kernel threads (NULL when absent), for policies that
 * change their ioprio (jprio: the journal thread in the RT class). */
struct io_context *stack_journal_ioc(struct stack *s);
struct io_context *stack_flusher_ioc(struct stack *s);

/* The result's "pagecache" object: lock_wait_ns, lock_acquisitions, hits,
 * misses, plus reclaim and readahead counters. Caller owns. */
struct json_t *stack_to_json(const struct stack *s);
/* The result's "stack" object: parameters as resolved, cpu, writeback,
 * journal, fs counters, and per-task figures. Caller owns. */
struct json_t *stack_stats_json(const struct stack *s);
/* {"OP": count} of the op kinds counted in by_kind (kinds never seen left
 * out): a workload's per-thread or per-trace "ops" object. */
struct json_t *stack_op_counts_json(const uint64_t by_kind[STACK_NOPKIND]);
/* Energy the device and the CPU drew from t = 0 until now (J;
 * docs/energy.md), for a region's begin and end. */
void stack_energy_now(const struct stack *s, double *device_j, double *cpu_j);

/* True when every user task has exited (kernel threads do not count). */
bool stack_tasks_done(const struct stack *s);

/* Foreground uid from now on (the activity manager's sysfs write). */
void stack_set_fg_uid(struct stack *s, uint32_t uid);
uint32_t stack_fg_uid(const struct stack *s);
/* Whether the scenario's fg: names uid (nonzero), in front at set-up or at
 * one of its switches; asked before the run starts. */
bool stack_uid_named_fg(const struct stack *s, uint32_t uid);

/* ---------------------------------------------------------------- files */

/* The file table (stack_file_get, _find, _size, _lba, _cached_pages) is the
 * VFS's: models/fs/vfs.h, included above. */
/* For launch planners (models/stack/stack_launch.c). The block device's own
 * mapping (metadata blocks, index = sector / 8) is the file "(bdev)". */
const char *stack_file_name(const struct stack_file *f);
bool stack_file_is_blockdev(const struct stack_file *f);
/* Extents of f in file-page order: i < stack_file_extent_count(f). */
uint32_t stack_file_extent_count(const struct stack_file *f);
void stack_file_extent(const struct stack_file *f, uint32_t i, uint64_t *page, uint64_t *lba,
		       uint64_t *npages);
/* Sector of the inode-table block holding f's inode. */
uint64_t stack_file_inode_lba(const struct stack_file *f);
/* The uid of the app whose page f is (its first non-root inserter), 0 none. */
uint32_t stack_file_owner_uid(const struct stack_file *f);
/* A warm start: npages clean pages of f from index 0 put in the page cache
 * now (at set-up, f holding none yet), where memory.warm_lru says (the
 * inactive list's head by default), owned by uid; reclaim then treats them
 * as any other page, and pagecache.warm counts what became of them. 0 or a
 * negative code. */
int stack_file_prefill(struct stack *s, struct stack_file *f, uint64_t npages, uint32_t uid,
		       struct sim_error *err);
enum stack_page_state { STACK_PAGE_ABSENT = 0, STACK_PAGE_INFLIGHT, STACK_PAGE_UPTODATE };
enum stack_page_state stack_file_page_state(struct stack_file *f, uint64_t index);

/* ---------------------------------------------------------------- tasks */

/* Create a user task; it runs from stack_task_start(). The source's ctx
 * must outlive the task. */
struct stack_task *stack_task_create(struct stack *s, const struct stack_task_attr *attr,
				     const struct stack_op_source *src, struct sim_error *err);
/* First op fetched at absolute time at_ns (>= now). */
void stack_task_start(struct stack_task *t, int64_t at_ns);
/* The source has more ops for a task whose next() returned -1. */
void stack_task_kick(struct stack_task *t);
/* Interpose: t takes its ops from src from now on; *prev receives the
 * source it had, which src may delegate to (policies that watch a task's
 * ops or inject their own, e.g. explicit loading at launch start). */
void stack_task_set_source(struct stack_task *t, const struct stack_op_source *src,
			   struct stack_op_source *prev);

const char *stack_task_name(const struct stack_task *t);
uint32_t stack_task_uid(const struct stack_task *t);
int32_t stack_task_pid(const struct stack_task *t);
bool stack_task_exited(const struct stack_task *t);
/* Foreground: uid == fg_uid. Background (for policies): neither
 * foreground nor root (root-uid threads are never treated as background). */
bool stack_task_is_fg(const struct stack_task *t);
bool stack_task_is_bg(const struct stack_task *t);
struct io_context *stack_task_ioc(struct stack_task *t);
struct stack *stack_task_stack(const struct stack_task *t);

#endif
