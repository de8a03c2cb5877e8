/* The op vocabulary of the upper stack: what a task asks of it (struct
 * stack_op, the system calls and the few pseudo-ops a workload issues), the
 * source that hands a task its ops, and the page size. Shared by every
 * layer of the upper stack like include/uapi's syscall ABI: the stack's
 * public interface (models/stack/stack.h) includes it, the per-task op
 * state embeds struct stack_op (models/sched/task.h) and fs_ops
 * takes the op kind (models/fs/fs.h). Types only, no call.
 */
#ifndef MODELS_STACK_OP_H
#define MODELS_STACK_OP_H

#include <stdint.h>

struct stack_task;
struct stack_file;

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
#define STACK_OPF_DIRECT 4u /* READ, WRITE: the file is open O_DIRECT (models/fs/direct.c):
			     * no page cache; off, len and the buffer (buf_align) must be
			     * multiples of the logical block size, else EINVAL */

struct stack_op {
	enum stack_op_kind kind;
	struct stack_file *file; /* READ WRITE FAULT FSYNC FDATASYNC OPEN CLOSE CREATE UNLINK RENAME TRUNCATE */
	uint64_t off, len;       /* bytes (TRUNCATE: the new size in len) */
	int64_t ns;              /* CPU, SLEEP */
	const char *name;        /* BEGIN/END: region name; must live until the END op completes */
	uint32_t flags;          /* STACK_OPF_* */
	uint32_t buf_align;      /* STACK_OPF_DIRECT: the user buffer's address modulo 4096
				  * (0: page aligned, as fio's default iomem_align) */
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

#endif
