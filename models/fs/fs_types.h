/* The file-system layer's structures, types only: ext4's parameters,
 * journal and O_DIRECT state, the fs kinds' ops table (models/fs/fs.h
 * declares the calls), and fs's parts of a task and of an inode, which
 * models/sched/task.h embeds in struct stack_task and struct stack_file as
 * Linux's inode is embedded in ext4_inode_info. scripts/check-layers lists
 * this header as a part the sched layer's task may embed and checks that
 * it declares no call.
 */
#ifndef MODELS_FS_TYPES_H
#define MODELS_FS_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "models/mm/mm_types.h"
#include "models/sched/sched.h"
#include "models/stack/stack_op.h"
#include "sim/engine.h"
#include "sim/list.h"
#include "sim/rng.h"

struct stack;
struct stack_task;
struct stack_file;

struct stack_bio;
struct bio;
struct sim;
struct cfg_node;
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

/* ext4's multiblock allocator (models/fs/mballoc.c): its sysfs tunables
 * and mount option, in 4 KiB blocks as the kernel keeps them. */
struct fs_mb_params {
	int64_t stream_req;           /* s_mb_stream_request: files up to this use the group PA */
	int64_t group_prealloc;       /* s_mb_group_prealloc (0: no group PA, all stream) */
	int64_t stripe;               /* s_stripe, mount -o stripe= (0: none) */
};

/* mballoc's state: the locality group's preallocation and the counters. */
struct fs_mb {
	struct fs_mb_params p;
	bool enabled;                 /* ext4; ext3 keeps its reservation window */
	uint64_t lg_lba, lg_left;     /* the locality group's PA: next sector, sectors left */
	uint64_t inode_pas, group_pas;           /* preallocations made */
	uint64_t inode_pa_blocks, group_pa_blocks; /* blocks handed out of them */
	uint64_t pa_blocks;           /* blocks reserved by all PAs made */
	uint64_t noprealloc_blocks;   /* blocks given exactly (closed file's tail) */
	uint64_t stripe_aligned;      /* allocations moved to a stripe boundary */
};

/* The mount's atime rule (fs/atime.c). */
enum fs_atime {
	FS_NOATIME = 0,   /* -o noatime: reads never update atime */
	FS_RELATIME,      /* 2.6.30+ relatime_need_update: atime <= mtime/ctime or a day old */
	FS_STRICTATIME,   /* every read (at 1 s granularity): 2.6.23's default */
};

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

/* A compressed cluster as writeback and readahead see it (fs_ops.cluster_map). */
struct fs_cluster_map {
	uint64_t first;      /* the cluster's first page */
	uint32_t npages;     /* pages in the cluster (cluster_size) */
	uint64_t lba;        /* first sector of its compressed blocks */
	uint32_t nsect;      /* sectors on disk (compressed blocks x 8) */
};

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
	struct fs_mb mb;              /* ext4's mballoc (mballoc.c) */
};

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
	/* A compressed cluster holds page index (f2fs compression; NULL: none):
	 * true with the cluster's on-disk run in *m (writeback: its bio carries
	 * the cluster's pages in m->nsect sectors; readahead: the bio reads the
	 * compressed blocks, m->post true). */
	bool (*cluster_map)(const struct stack_file *f, uint64_t index, struct fs_cluster_map *m);
	/* The end_io of a read bio with post-read work (decompression): true
	 * when the file system took the bio and ends it later through
	 * mpage_read_done (models/mm/mm.h); false: end it now. */
	bool (*read_post)(struct stack *s, struct stack_bio *sb);
	/* CPU the last map_for_write left for the writer (f2fs compresses a
	 * cluster as writeback maps it), run by t on a core: STEP_BLOCK while
	 * it waits or runs; NULL: none. */
	enum step (*writeback_cpu)(struct stack_task *t);
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
	struct json_t *(*to_json)(const struct stack *s);
};

/* ------------------------------------------------ fs's part of a task */

/* Where an fsync (or the tail of an O_SYNC write) is in
 * filemap_write_and_wait_range and the file system's ->fsync
 * (models/fs/fsync.c, f2fs_sync.c). */
struct fsync_cursor {
	int phase;                 /* fsync machine (also after an O_SYNC write) */
	uint64_t cursor;
	uint64_t map_start, map_end; /* run mapped, its bios built one at a time */
};

/* ---------------------------------------------- fs's part of an inode */

/* What the file system keeps per inode (ext4_inode_info: the block map,
 * the inode's place, its journal transactions and ordered list, mballoc's
 * preallocation; f2fs's atomic write state and its own fs_priv). */
struct fs_inode {
	struct fs_extent *ext;     /* sorted by page */
	uint32_t next_ext, cap_ext;
	uint64_t alloc_pages;      /* pages [0, alloc_pages) have blocks */
	uint64_t inode_lba;
	uint32_t inode_group;
	bool inode_cached;
	/* journal */
	uint64_t meta_tid;         /* transaction holding this inode's metadata, 0 none */
	uint64_t datasync_tid;     /* last tx that changed size/allocation */
	uint64_t ordered_tid;      /* tx whose ordered list holds this inode */
	struct list_head ordered_node;
	bool ordered_next;         /* allocated again while its tx commits: join the next one */
	uint64_t prealloc_lba, prealloc_left; /* mballoc-like per-inode preallocation (sectors) */
	bool write_closed;         /* closed after its last write: no writer holds it open */
	bool atomic;               /* inside F2FS_IOC_START_ATOMIC_WRITE .. COMMIT */
	uint64_t nr_atomic;        /* pages held (PG_ATOMIC) */
	void *fs_priv;             /* the file system's per-inode state (f2fs) */
	/* atime and mtime (= ctime), ns of the run's clock (models/fs/atime.c);
	 * times_set false: not yet given (a file that exists at the start) */
	int64_t atime_ns, mtime_ns;
	bool times_set;
};

#endif
