/* The file-system layer's interface: ext4's placement and journal (fs.c,
 * journal.c), fsync (fsync.c), the fs kinds' ops table (fs_kind.c; f2fs's
 * own state is in f2fs_int.h) and the helpers one fs file offers another.
 * The file table is models/fs/vfs.h (vfs.c). fs calls down into mm and the
 * sched layer (models/sched/sched.h); models/stack/stack_types.h embeds
 * struct fs and struct journal in struct stack, and nothing here includes
 * it (the stack's types are only named by pointer). */
#ifndef MODELS_FS_FS_H
#define MODELS_FS_FS_H

#include <stdbool.h>
#include <stdint.h>

#include "models/fs/vfs.h"
#include "models/mm/mm.h"
#include "models/stack/stack_op.h"
#include "sim/engine.h"
#include "sim/list.h"
#include "sim/rng.h"

struct stack;
struct stack_task;
struct stack_file;

/* Buckets of the file table's name hash (vfs.c). */
#define STACK_FHASH 4096u
/* A new file in the table; meta: the block device's own mapping "(bdev)",
 * which the file system does not set up (vfs.c). NULL when out of memory. */
struct stack_file *stack_file_new(struct stack *s, const char *name, bool meta);
struct stack_bio;
struct bio;
struct sim;
struct cfg_node;
struct cfg_param;
struct sim_error;
struct json_t;

struct fs_params {
	uint64_t partition_bytes;
	uint64_t partition_start_bytes;
	uint64_t extent_mean_bytes;   /* existing files: mean extent (exponential, >= 1 page) */
	uint64_t gap_mean_bytes;      /* hole between a file's extents (other files' data) */
	uint64_t alloc_extent_bytes;  /* delayed allocation: contiguous run the allocator grants */
	uint64_t max_bio_bytes;       /* bio_add_page limit (queue max_sectors) */
	uint64_t group_bytes;         /* ext4 block group */
	bool cold_metadata;           /* inode blocks not cached at start */
	int64_t layout_seed;          /* placement stream's seed (0: the run's) */
	int atime;                    /* enum fs_atime: the mount's atime option */
	int64_t atime_age_ns;         /* files that exist at the start: atime this old */
};

/* The mount's atime rule (fs/atime.c). */
enum fs_atime {
	FS_NOATIME = 0,   /* -o noatime: reads never update atime */
	FS_RELATIME,      /* 2.6.30+ relatime_need_update: atime <= mtime/ctime or a day old */
	FS_STRICTATIME,   /* every read (at 1 s granularity): 2.6.23's default */
};
extern const char *const fs_atime_names[];

struct journal_params {
	bool enabled;
	int64_t commit_interval_ns;
	uint64_t journal_bytes;
	int64_t ioprio_class, ioprio_level;
	bool ordered;                 /* data=ordered: commit waits for the data it allocated */
	int ordered_wait;             /* enum journal_ordered_wait */
	bool async_commit;            /* ext4 journal_async_commit (JBD2 ASYNC_COMMIT) */
	bool t_locked;                /* the commit locks the running tx until its handles stop */
	bool shadow_wait;             /* BH_Shadow: a handle waits for its buffer's log write */
	bool wait_by_phase;           /* book a commit's waiters by what the commit waits for */
	bool discard;                 /* mount -o discard: the commit discards the blocks it freed */
	bool ordered_submit;          /* jbd: the commit writes the ordered inodes' dirty data itself */
	bool barrier;                 /* commit block with FLUSH|FUA (mount -o barrier=1) */
	bool sync_writes;             /* log and commit blocks as WRITE_SYNC (jbd2); else WRITE */
};

/* What the ordered-mode commit waits for in each inode of its list. */
enum journal_ordered_wait {
	JOURNAL_WAIT_RANGE = 0,      /* the pages under writeback when the commit began */
	JOURNAL_WAIT_WHOLE_FILE = 1, /* 3.10 filemap_fdatawait(): walk the whole file */
};

struct fs_extent {
	uint64_t page;     /* first file page */
	uint64_t lba;      /* first sector */
	uint64_t npages;
};

struct journal_tx {
	uint64_t tid;
	uint64_t nr_meta;             /* metadata blocks to log */
	int64_t start_ns;
	bool has_handles;
	struct list_head ordered;     /* inodes (stack_file.ordered_node) */
	struct journal_freed *freed;  /* data extents freed in this tx (ext4_mb_free_metadata) */
	uint32_t nfreed, capfreed;
};

/* A run of sectors a handle freed; reused only after the commit. */
struct journal_freed {
	uint64_t lba, nr_sectors;
};

struct journal {
	struct journal_params p;
	struct stack_task *jbd2;
	struct journal_tx running, committing;
	bool committing_active;
	uint64_t commit_request;      /* highest tid someone asked to commit */
	uint64_t committed;           /* highest committed tid */
	uint64_t head_lba, start_lba, nr_sectors;
	struct sim_event timer;
	struct list_head waiters;     /* tasks waiting for a commit */
	uint64_t *group_tid;          /* per block group: tx whose bitmap is dirty */
	uint32_t ngroups;
	/* counters */
	uint64_t commits, commits_fsync, commits_timer, blocks_written, ordered_waits;
	int64_t commit_ns_total, commit_ns_max;
	/* whole-file ordered wait: the page it sleeps on (index in ow_file) */
	struct stack_file *ow_file;
	uint64_t ow_index, ow_last;
	uint64_t ordered_pages_waited, flushes;
	int64_t ordered_wait_ns_total, ordered_wait_ns_max;
	int64_t ordered_start_ns;
	/* T_LOCKED: the commit waits for t_updates (open handles) to reach 0,
	 * new handles wait for the switch (wait_transaction_locked) */
	bool locked;
	uint32_t t_updates;
	struct list_head locked_waiters; /* tasks in wait_transaction_locked (jwait_node) */
	int64_t locked_start_ns;
	uint64_t locked_commits, locked_handle_waits;
	int64_t locked_ns_total, locked_ns_max;
	/* BH_Shadow: the committing tx's metadata is being written to the log */
	bool shadow;
	struct list_head shadow_waiters; /* tasks in do_get_write_access (jwait_node) */
	uint64_t shadow_waits;
	/* the cause a task waiting for a commit is booked under now (enum
	 * sim_wait): journal, or with wait_by_phase the commit's own wait */
	int commit_cause;
	uint32_t discard_next;        /* the commit callback's next freed extent */
	uint64_t discards, discard_sectors;
	int64_t discard_ns_total, discard_ns_max, discard_start_ns;
	/* ordered_submit: data pages the commit thread wrote itself */
	uint64_t ordered_pages_submitted;
};

/* O_DIRECT (models/fs/direct.c): the `direct:` section and its counters. */
struct fs_direct_params {
	uint64_t logical_block_bytes; /* the queue's logical block size: alignment unit */
};

struct fs_direct {
	struct fs_direct_params p;
	uint64_t reads, writes;           /* ops that did their I/O (not EINVAL) */
	uint64_t bytes_read, bytes_written;
	uint64_t einval_reads, einval_writes; /* misaligned offset, length or buffer */
	uint64_t bios;
	uint64_t flushed_pages;           /* dirty cached pages written first (write_and_wait) */
	uint64_t invalidated_pages;       /* cached pages dropped after a direct write */
	uint64_t invalidate_busy;         /* pages left (dirtied or under writeback again) */
	uint64_t hole_pages;              /* read from a hole: zeroed, no I/O */
	uint64_t alloc_pages;             /* pages a direct write allocated */
};

struct fs_ops;
struct f2fs;

struct fs {
	const struct fs_ops *ops;     /* ext4 or f2fs (fs: {kind: ...}) */
	struct f2fs *f2;              /* f2fs state (models/fs/f2fs_int.h), NULL for ext4 */
	struct fs_params p;
	uint64_t start_sector, end_sector;
	uint64_t cursor;              /* next free sector for the bump allocator */
	uint64_t meta_start, meta_cursor;
	uint64_t allocated_sectors;
	struct stack_file *meta;      /* block-device mapping for inode blocks */
	gsl_rng *rng;
	struct sim_rng_set *layout_rngs; /* layout_seed: the set rng comes from */
	struct fs_direct dio;         /* O_DIRECT (direct.c) */
	uint64_t atime_updates;       /* touch_atime that dirtied an inode (atime.c) */
};

/* ---------------------------------------------------------- fsync.c */

/* The FSYNC / FDATASYNC op and O_SYNC writes: STEP_DONE when finished. */
enum step fsync_step(struct stack_task *t, struct stack_file *f, bool datasync);

/* ------------------------------------------------------------- fs.c */

int fs_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* Place journal, inode tables and data once the journal size is known. */
void fs_layout(struct stack *s, uint64_t journal_sectors);
/* Inode placement of a new file. */
void fs_new_file(struct stack *s, struct stack_file *f);
void fs_free(struct stack *s);
/* s->fs.rng: the stream "fs" of the run's seed, or of layout_seed. */
int fs_rng_open(struct stack *s, struct sim_error *err);
/* Allocate blocks for an existing file of npages (fragmented). */
int fs_alloc_existing(struct stack *s, struct stack_file *f, uint64_t npages);
/* Delayed allocation at writeback: cover [alloc_pages, upto). */
int fs_alloc_upto(struct stack *s, struct stack_file *f, uint64_t upto);
/* Sector of page index and pages left in its extent (*run), UINT64_MAX if unallocated. */
uint64_t fs_map(const struct stack_file *f, uint64_t index, uint64_t *run);
struct json_t *fs_to_json(const struct stack *s);

/* ------------------------------------------------ fs kinds (fs_kind.c) */

/* A file system kind, selected by `fs: {kind: NAME}` (models/fs/fs_kind.c).
 * Every hook is called by the upper stack at the point the kernel's VFS
 * calls the file system. */
struct fs_ops {
	const char *name;
	/* Parse `fs:` (and `journal:`, ext4 only) and lay out the partition. */
	int (*init)(struct stack *s, struct cfg_node *fs, struct cfg_node *jn,
		    struct sim_error *err);
	void (*free)(struct stack *s);
	void (*new_file)(struct stack *s, struct stack_file *f);
	int (*alloc_existing)(struct stack *s, struct stack_file *f, uint64_t npages);
	/* ->writepages: pages [index, index + n) are about to be written
	 * (sync: from fsync); give them blocks. */
	int (*map_for_write)(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n,
			     bool sync);
	/* A direct write of pages [index, index + n) needs blocks for them
	 * (ext4_iomap_begin -> ext4_iomap_alloc); NULL: map_for_write. */
	int (*map_direct)(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n);
	/* ->writepages holds the whole run it maps locked until each page goes
	 * into a bio (ext4 3.10 write_cache_pages_da -> mpage_da_submit_io;
	 * 3.11+ mpage_prepare_extent_to_map -> mpage_submit_page), so a task
	 * meeting a page of it waits as for writeback: its bios are built and
	 * marked together. false (f2fs_write_cache_pages): a page is locked,
	 * cleaned and marked as it goes into a bio, the rest stay dirty while
	 * the writer sleeps submitting one. */
	bool locks_run;
	/* ext4 ->writepages' jbd2 handle (journal_handle_start/stop), NULL
	 * without a journal: the flusher starts one per run it maps. */
	enum step (*handle_start)(struct stack_task *t, bool hold);
	void (*handle_stop)(struct stack_task *t);
	/* The sector of page index of f and the pages left in its extent (*run),
	 * UINT64_MAX if unallocated: what readahead and writeback ask the file
	 * system for (a_ops->bmap / the get_block behind readpages, writepages). */
	uint64_t (*bmap)(const struct stack_file *f, uint64_t index, uint64_t *run);
	/* mark_inode_dirty: mtime (datasync false) or size/allocation (true).
	 * A repeat for the same f and datasync changes nothing until another
	 * task has run (what it records - the inode in the running
	 * transaction, f2fs's dirty flags - is undone only by jbd2's commit,
	 * a checkpoint or an fsync): write_step asks it once per step. */
	void (*dirty_inode)(struct stack *s, struct stack_file *f, bool datasync);
	/* file_accessed -> touch_atime at the end of a read() (do_generic_mapping_read);
	 * NULL: atime not modelled. STEP_BLOCK while the handle or the inode
	 * buffer waits. */
	enum step (*accessed)(struct stack_task *t, struct stack_file *f);
	/* ->fsync (and the tail of an O_SYNC write). */
	enum step (*fsync)(struct stack_task *t, struct stack_file *f, bool datasync);
	/* Before write() dirties pages (f2fs_balance_fs); NULL: nothing. */
	enum step (*write_begin)(struct stack_task *t, struct stack_file *f);
	/* F2FS_IOC_START_ATOMIC_WRITE (commit false) / COMMIT (true). */
	enum step (*atomic)(struct stack_task *t, struct stack_file *f, bool commit);
	/* STACK_OP_CREATE / UNLINK / RENAME / TRUNCATE of f (t->os.op); NULL: no
	 * metadata modelled. */
	enum step (*namespace)(struct stack_task *t, struct stack_file *f, enum stack_op_kind kind);
	void (*kthread_run)(struct stack_task *t);   /* TASK_FS */
	struct json_t *(*to_json)(const struct stack *s);
};

const struct fs_ops *fs_kind_find(const char *name);
extern const struct fs_ops ext4_fs_ops;
extern const struct fs_ops ext3_fs_ops;
/* fs.c: create/unlink/rename/truncate, shared by ext4 and ext3 (the same
 * inode, directory and bitmap updates in a handle). */
enum step ext4_namespace(struct stack_task *t, struct stack_file *f, enum stack_op_kind kind);

/* ------------------------------------------------------- atime.c */

/* touch_atime of f by t's read (fs_ops.accessed of ext4 and ext3). */
enum step fs_touch_atime(struct stack_task *t, struct stack_file *f);
/* file_update_time: f's mtime and ctime are now. */
void fs_update_mtime(struct stack *s, struct stack_file *f);
extern const struct fs_ops f2fs_fs_ops;

/* fsync.c: filemap_write_and_wait_range over the whole file (fphase 0..2);
 * STEP_DONE with fphase 3 when every dirty page is written and waited. */
enum step fsync_write_and_wait(struct stack_task *t, struct stack_file *f);
/* The same over pages [first, last] only (a direct I/O's range). */
enum step fs_write_and_wait_range(struct stack_task *t, struct stack_file *f, uint64_t first,
				  uint64_t last);

/* ------------------------------------------------------- direct.c */

/* The `direct:` section (NULL: defaults). */
int fs_direct_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* A READ or WRITE op with STACK_OPF_DIRECT (t->os.op): STEP_DONE when it
 * returned (t->os.einval when it failed with EINVAL). */
enum step fs_direct_step(struct stack_task *t);
/* The result's stack.direct object, NULL when no direct op was issued. */
struct json_t *fs_direct_to_json(const struct stack *s);
/* Submit the bios chained on t->pend in order; STEP_BLOCK if one slept. */
enum step task_submit_pending(struct stack_task *t);

/* -------------------------------------------------------- journal.c */

int journal_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* journal_init for a kind whose defaults differ: kind_table holds the keys
 * whose defaults (and sources) are the kind's, applied over the shared
 * table; name is the commit thread's (jbd2/sda-8, kjournald). */
int journal_init_kind(struct stack *s, struct cfg_node *node, const struct cfg_param *kind_table,
		      const char *name, struct sim_error *err);
void journal_free(struct stack *s);
/* A handle dirtied f's inode (and, if alloc, a bitmap of group): joins the running tx. */
void journal_dirty_inode(struct stack *s, struct stack_file *f, bool datasync);
void journal_dirty_group(struct stack *s, uint32_t group);
/* Delayed allocation for f happened in the running tx (ordered data). */
void journal_add_ordered(struct stack *s, struct stack_file *f);
/* end_io of a file system thread's bios (jbd2's log, f2fs's node and meta
 * writes): bio->private is the task counting its bios down in wb_left,
 * woken at the last, or NULL. Frees the bio. */
void fs_task_bio_end_io(struct sim *sim, struct bio *bio);
/* ext4_free_blocks in data=ordered: the sectors go back to the allocator
 * after the running tx commits (and are discarded then with -o discard). */
void journal_free_extent(struct stack *s, uint64_t lba, uint64_t nr_sectors);
/* Ask for tid to be committed; STEP_BLOCK with t waiting (SIM_WAIT_JOURNAL). */
enum step journal_wait_commit(struct stack_task *t, uint64_t tid);
uint64_t journal_running_tid(const struct stack *s);
/* start_this_handle: STEP_BLOCK with t in wait_transaction_locked
 * (SIM_WAIT_JOURNAL_LOCKED) while the running tx is T_LOCKED; else
 * STEP_DONE, and with hold the handle counts in t_updates until
 * journal_handle_stop. */
enum step journal_handle_start(struct stack_task *t, bool hold);
void journal_handle_stop(struct stack_task *t);
/* do_get_write_access on f's inode buffer: STEP_BLOCK with t waiting
 * (SIM_WAIT_JOURNAL_BUFFER) while the committing transaction's copy of
 * it is being written to the log (BH_Shadow); else STEP_DONE. */
enum step journal_get_write_access(struct stack_task *t, struct stack_file *f);
void jbd2_run(struct stack_task *t);
/* f's writeback from before the last epoch flip has drained. */
void journal_ordered_progress(struct stack *s, struct stack_file *f);
struct json_t *journal_to_json(const struct stack *s);

/* truncate_inode_pages: wait for every page of f under writeback, in index
 * order from t->os.fcursor (wait_on_page_writeback; the boost hook sees
 * the async ones). STEP_BLOCK while waiting, STEP_DONE when none is left. */
enum step fs_wait_all_writeback(struct stack_task *t, struct stack_file *f);

#endif
