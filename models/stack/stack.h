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
 *  - Policies fill struct stack_hooks (stack_hooks()).
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
#include "sim/config.h"
#include "sim/error.h"
#include "sim/metrics.h"

struct sim;
struct stack;
struct stack_task;
struct stack_file;
struct json_t;

#define STACK_PAGE_SIZE 4096u
#define STACK_PAGE_SHIFT 12

/* ------------------------------------------------------------------ ops */

enum stack_op_kind {
	STACK_OP_READ = 0,  /* read(file, off, len): buffered, with readahead */
	STACK_OP_WRITE,     /* write(file, off, len): buffered (O_SYNC: flags) */
	STACK_OP_FAULT,     /* page fault on a file mapping at off (len: pages touched, >= 1 page) */
	STACK_OP_FSYNC,
	STACK_OP_FDATASYNC,
	STACK_OP_CPU,       /* ns of computation on a core */
	STACK_OP_SLEEP,     /* ns of voluntary sleep (think time; not a wait cause) */
	STACK_OP_BEGIN,     /* open region name */
	STACK_OP_END,       /* close region name -> sim_metrics_region */
	STACK_OP_OPEN,      /* open(file): reads the inode block if not cached */
	STACK_OP_CLOSE,
	STACK_OP_FG,        /* make uid (op.len) the foreground uid from now on */
	STACK_OP_WILLNEED,  /* posix_fadvise(WILLNEED) / force_page_cache_readahead of
			     * [off, off+len): missing pages are added and their reads
			     * submitted exactly as asked (no readahead window), without
			     * waiting for them */
	STACK_OP_PLUG,      /* blk_start_plug: hold this task's requests ... */
	STACK_OP_UNPLUG,    /* ... until blk_finish_plug (a sleep still flushes) */
	STACK_OP_ATOMIC_START,  /* ioctl(F2FS_IOC_START_ATOMIC_WRITE): later writes are held */
	STACK_OP_ATOMIC_COMMIT, /* ioctl(F2FS_IOC_COMMIT_ATOMIC_WRITE) */
	STACK_OP_CREATE,    /* open(O_CREAT) of a file that does not exist: a new inode and
			     * directory entry (ext4_create) */
	STACK_OP_UNLINK,    /* unlink(file), last link: truncate_inode_pages waits for its
			     * pages under writeback; inode, directory and bitmaps change */
	STACK_OP_RENAME,    /* rename(file, new name in the same directory): directory entries
			     * and the inode's ctime change */
	STACK_OP_TRUNCATE,  /* ftruncate(file, len) to a smaller size: waits for pages under
			     * writeback, frees the blocks past len */
	STACK_NOPKIND
};

#define STACK_OPF_SYNC 1u /* WRITE: O_SYNC (generic_write_sync after the copy) */
#define STACK_OPF_WAIT 2u /* WILLNEED: then wait for the range and copy it out, like
			   * pread() on a POSIX_FADV_RANDOM file (explicit loading) */

struct stack_op {
	enum stack_op_kind kind;
	struct stack_file *file; /* READ WRITE FAULT FSYNC FDATASYNC OPEN CLOSE CREATE UNLINK RENAME TRUNCATE */
	uint64_t off, len;       /* bytes (TRUNCATE: the new size in len) */
	int64_t ns;              /* CPU, SLEEP */
	const char *name;        /* BEGIN/END: region name; must live until the END op completes */
	uint32_t flags;          /* STACK_OPF_* */
};

extern const char *const stack_op_names[STACK_NOPKIND];

/* Where a task's ops come from. next() fills *op and returns 1; returns 0
 * when the stream has ended (the task exits); returns -1 when no op is
 * available yet, after which the source calls stack_task_kick(). The
 * source must not block or call back into the stack from next(). */
struct stack_op_source {
	int (*next)(struct stack_task *t, struct stack_op *op, void *ctx);
	/* Optional: the task has exited (after its last op completed). */
	void (*exited)(struct stack_task *t, void *ctx);
	void *ctx;
};

struct stack_task_attr {
	const char *name;     /* comm; copied */
	int32_t pid, tid;     /* 0: assigned by the stack */
	uint32_t uid;         /* 0 = root: never background */
	uint8_t ioprio_class; /* enum ioprio_class; NONE means BE at IOPRIO_NORM */
	uint8_t ioprio_level; /* 0..7 */
};

/* ---------------------------------------------------------------- hooks */

/* Policy hook points (docs/architecture.md). Any may be NULL. */
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
	/* A bio is about to enter the block layer from task t (REQ_FG
	 * already set): a policy may add flags (models/policies/policy.h). */
	void (*classify_bio)(struct stack_task *t, struct bio *bio, void *ctx);
};

/* ---------------------------------------------------------------- stack */

/* Build the stack from the scenario root (its sections may be absent:
 * defaults). Needs sim->blk for I/O. Returns 0, SIM_E_INPUT naming the
 * node, or SIM_E_NOMEM. */
int stack_create(struct sim *sim, struct cfg_node *root, struct stack **out, struct sim_error *err);
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

/* True when every user task has exited (kernel threads do not count). */
bool stack_tasks_done(const struct stack *s);

/* Foreground uid from now on (the activity manager's sysfs write). */
void stack_set_fg_uid(struct stack *s, uint32_t uid);
uint32_t stack_fg_uid(const struct stack *s);

/* ------------------------------------------------------------------ cpu */

/* CPU time of the I/O completion path (models/completion/completion.c, which
 * reaches these through struct sim's cpu_ops, registered by stack_create), so
 * that it competes with the tasks' computation. stack_cpu_hold() takes a free
 * core for a task that busy-polls for its I/O (no task is dispatched to
 * it until stack_cpu_release); returns the core, or -1 when every core is
 * running a task (the caller then only charges the time). release gives
 * the core back, counts busy_ns as CPU busy time and lets a queued task
 * run. stack_cpu_charge() counts short work (interrupt handlers, context
 * switches) as busy time without taking a core. */
int stack_cpu_hold(struct stack *s);
void stack_cpu_release(struct stack *s, int core, int64_t busy_ns);
void stack_cpu_charge(struct stack *s, int64_t ns);
uint32_t stack_cpu_cores(const struct stack *s);

/* ---------------------------------------------------------------- files */

/* The file named name, created when absent. size_bytes > 0 for a new file
 * means it already exists on disk with that much data (blocks allocated
 * now, pages not cached); 0 makes an empty file whose blocks are allocated
 * at writeback (delayed allocation). Names are copied. NULL on allocation
 * failure (err filled). */
struct stack_file *stack_file_get(struct stack *s, const char *name, uint64_t size_bytes,
				  struct sim_error *err);
struct stack_file *stack_file_find(struct stack *s, const char *name);
uint64_t stack_file_size(const struct stack_file *f);
/* Device sector of byte offset off in f, or UINT64_MAX if not allocated. */
uint64_t stack_file_lba(const struct stack_file *f, uint64_t off);
/* Pages of f in the page cache now. */
uint64_t stack_file_cached_pages(const struct stack_file *f);
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
