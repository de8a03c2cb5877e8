/* F2FS model internals shared by f2fs.c (segments, logs, block mapping,
 * the ops table), f2fs_sync.c (fsync by node chain, atomic writes) and
 * f2fs_gc.c (checkpoint and segment cleaning in the f2fs kernel thread).
 * Reference: Linux 5.15 fs/f2fs (segment.[ch], node.c, checkpoint.c,
 * file.c f2fs_do_sync_file, gc.[ch], data.c). Nothing outside models/fs
 * and its tests includes this. */
#ifndef MODELS_FS_F2FS_INT_H
#define MODELS_FS_F2FS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/fs/fs.h"

/* include/linux/f2fs_fs.h: 4 KiB blocks, 512 per segment (2 MiB). */
#define F2FS_BLKS_PER_SEG 512u
#define F2FS_SECTORS_PER_BLK 8u
/* DEF_ADDRS_PER_INODE 923, DEF_ADDRS_PER_BLOCK 1018 (f2fs_fs.h). */
#define F2FS_ADDRS_PER_INODE 923u
#define F2FS_ADDRS_PER_BLOCK 1018u
/* NAT_ENTRY_PER_BLOCK = 4096 / 9, SIT_ENTRY_PER_BLOCK = 4096 / 74;
 * NAT_JOURNAL_ENTRIES 38 and SIT_JOURNAL_ENTRIES 6 fit in the summary
 * block's journal, so a checkpoint with fewer dirty entries writes no
 * NAT/SIT block (f2fs_fs.h, segment.c f2fs_flush_sit_entries). */
#define F2FS_NAT_PER_BLOCK 455u
#define F2FS_SIT_PER_BLOCK 55u
#define F2FS_NAT_JOURNAL 38u
#define F2FS_SIT_JOURNAL 6u

/* The six logs (segment.h enum CURSEG_*). */
enum f2fs_log {
	F2FS_HOT_DATA = 0,
	F2FS_WARM_DATA,
	F2FS_COLD_DATA,
	F2FS_HOT_NODE,
	F2FS_WARM_NODE,
	F2FS_COLD_NODE,
	F2FS_NR_LOGS
};

enum f2fs_seg_state {
	SEG_FREE = 0,
	SEG_ACTIVE,  /* a log's current segment */
	SEG_DIRTY,   /* written, not active: a cleaning candidate */
	SEG_PREFREE, /* all blocks invalid; free after the next checkpoint */
};

/* A block's owner in the segment summary (SSA): file id + 1 with
 * F2FS_SUM_NODE for node blocks; 0 invalid; F2FS_SUM_ANON valid data of a
 * file the simulation does not know (other apps, at mount). */
#define F2FS_SUM_NODE 0x80000000u
#define F2FS_SUM_ANON 0xffffffffu

struct f2fs_sum {
	uint32_t owner;
	uint32_t index; /* file page, or node number (0 = inode) */
};

struct f2fs_seg {
	uint16_t valid;
	uint16_t next;     /* next block to write while active (LFS append) */
	uint8_t state;
	uint8_t log;
	bool sit_dirty;    /* valid count changed since the last checkpoint */
	int64_t mtime;     /* last write, ns (cost-benefit age) */
	struct f2fs_sum *sum; /* NULL: blocks [0, valid) anonymous, the rest invalid */
};

enum f2fs_fsync_mode { F2FS_FSYNC_POSIX = 0, F2FS_FSYNC_STRICT, F2FS_FSYNC_NOBARRIER };

struct f2fs_params {
	struct fs_params base;       /* partition, fragmentation, bio size (shared keys) */
	int64_t active_logs;         /* 2, 4 or 6 */
	int64_t reserved_segments;
	double initial_used_ratio;   /* share of the main area holding data at mount */
	double initial_valid_ratio;  /* valid share of those segments */
	int64_t cp_interval_ns;
	int64_t gc_min_sleep_ns, gc_max_sleep_ns, gc_nogc_sleep_ns;
	int64_t idle_interval_ns;
	bool background_gc;
	int fsync_mode;
	bool ipu_fsync;
	int64_t min_fsync_blocks;
	bool discard;
	int64_t ioprio_class, ioprio_level;
	/* compression (f2fs_compress.c) */
	int compress_algorithm;      /* enum f2fs_calg; F2FS_CALG_OFF: no compression */
	int64_t compress_log_size;   /* log2 pages per cluster */
	const char *compress_extension; /* comma-separated; "*" every file */
	double compress_ratio;       /* lz4's ratio on the workload's data, per cluster */
	double compress_ratio_spread; /* per-cluster relative half-width */
	int64_t compress_cpu_mhz;    /* clock of the core that (de)compresses */
	double compress_cpb_scale;   /* its cycles per byte over the desktop figures */
	int decompress_context;      /* enum f2fs_dctx */
};

/* fs/f2fs/f2fs.h enum compress_algorithm_type order (lzo 0, lz4 1, zstd 2,
 * lzo-rle 3), "off" first here. */
enum f2fs_calg { F2FS_CALG_OFF = 0, F2FS_CALG_LZO, F2FS_CALG_LZ4, F2FS_CALG_ZSTD,
		 F2FS_CALG_LZORLE, F2FS_CALG_N };
/* Where a read's decompression runs (data.c f2fs_read_end_io). */
enum f2fs_dctx { F2FS_DCTX_SOFTIRQ = 0, F2FS_DCTX_WORKQUEUE };

/* include/linux/f2fs_fs.h / f2fs.h: MIN_COMPRESS_LOG_SIZE 2,
 * MAX_COMPRESS_LOG_SIZE 8; COMPRESS_HEADER_SIZE = sizeof(struct
 * compress_data) without cdata: clen, chksum, reserved[4] = 24 bytes. */
#define F2FS_MIN_COMPRESS_LOG 2
#define F2FS_MAX_COMPRESS_LOG 8
#define F2FS_COMPRESS_HEADER 24u

/* Per-inode state (stack_file.fs_priv). Node 0 is the inode block (it
 * maps the first 923 pages), node k >= 1 the k-th direct node. */
struct f2fs_inode {
	uint64_t *node_blk;       /* main-area block of each node, UINT64_MAX none */
	uint8_t *node_dirty;
	uint32_t nnodes, ndirty_nodes;
	uint8_t log;              /* data log (temperature) */
	bool append_write;        /* FI_APPEND_WRITE: new blocks since the last node sync */
	bool update_write;        /* FI_UPDATE_WRITE: in-place updates since then */
	bool inode_dirty;         /* mtime/size not yet in the inode block */
	bool size_dirty;          /* i_size changed (fdatasync must write the inode) */
	bool need_ipu;            /* FI_NEED_IPU during fsync's data write */
	bool in_fsync;
	uint64_t data_blocks;     /* valid data blocks */
	/* compression: per cluster, the compressed blocks it is stored in (0:
	 * written raw or not written); NULL for a file that is not compressed */
	bool compress;            /* FI_COMPRESSED_FILE */
	uint8_t cl_log;           /* its i_log_cluster_size */
	bool atomic_commit;       /* an atomic commit writes its pages (raw) */
	uint8_t *cl_blocks;
	uint64_t ncl;
	struct list_head dirty_node; /* f2fs.dirty_inodes: has dirty node pages */
	struct stack_file *file;
};

struct f2fs {
	struct f2fs_params p;
	uint64_t cp_lba;            /* two checkpoint packs, one segment each */
	uint64_t nat_lba, sit_lba;
	uint64_t main_lba;          /* first sector of segment 0 */
	uint32_t nsegs;
	struct f2fs_seg *seg;
	uint32_t log_seg[F2FS_NR_LOGS];
	uint32_t free_segs, prefree_segs;
	uint64_t valid_blocks;
	uint32_t aged_segs;         /* [0, aged_segs) hold data at mount */
	uint64_t exist_blk;         /* cursor for files that exist at mount */

	struct stack_file **files;  /* by id */
	uint32_t cap_files;
	struct list_head dirty_inodes;
	uint64_t dirty_nodes;       /* node pages waiting for a checkpoint or fsync */
	uint64_t dirty_nat;         /* NAT entries changed since the last checkpoint */
	uint32_t dirty_sit;         /* segments whose SIT entry changed */
	uint32_t cp_pack;

	/* the kernel thread: checkpoints (checkpoint_merge) and cleaning */
	struct stack_task *kt;
	uint64_t cp_request, cp_done;   /* checkpoint sequence numbers */
	bool fg_gc_request;
	uint64_t fg_gc_done;            /* completed foreground cleaning rounds */
	bool bg_gc_due;
	int64_t gc_wait_ns;
	struct sim_event cp_timer, gc_timer;
	struct list_head waiters;       /* tasks waiting for cp_done / fg_gc_done (jwait_node) */
	int64_t last_req_ns;            /* f2fs_update_time(REQ_TIME) */
	int64_t cp_last_ns;
	/* cleaning in progress */
	uint32_t victim;
	bool gc_fg;
	uint32_t gc_freed;

	/* counters */
	uint64_t checkpoints, cp_fsync, cp_timer_n, cp_gc, cp_blocks, cp_node_blocks;
	int64_t cp_ns_total, cp_ns_max;
	uint64_t fsyncs, fsync_node_blocks, fsync_flushes, fsync_ipu_blocks, fsync_no_io;
	uint64_t opu_blocks, ipu_blocks;
	uint64_t gc_fg_segs, gc_bg_segs, gc_moved_blocks, gc_fg_calls, gc_bg_skipped_busy;
	int64_t gc_fg_wait_ns;
	uint64_t discards;
	uint64_t atomic_commits, atomic_pages;
	uint64_t log_blocks[F2FS_NR_LOGS];

	/* compression (f2fs_compress.c) */
	int64_t c_ns_per_kib, d_ns_per_kib; /* CPU per KiB of raw data */
	uint64_t cl_compressed, cl_raw, cl_partial, cl_overwrite, cl_reads, cl_race;
	uint64_t c_blocks_saved;            /* blocks not written against raw */
	uint64_t c_write_sectors;           /* sectors the compressed clusters took */
	int64_t c_owed_ns;                  /* left by the last map_for_write */
	int64_t c_cpu_ns, d_cpu_ns, d_wait_ns;
	int64_t *c_core_ns, *d_core_ns;     /* by core; [cores]: no core was free */
	uint32_t ncores;
	uint64_t d_softirq_nocore;
	struct stack_task *post_read;       /* f2fs_post_read_wq's worker (5.10) */
	struct stack_bio *post_head, **post_tail; /* bios waiting for it */
	struct stack_bio *post_cur;         /* the bio it is decompressing */
	struct list_head dcmp_live;         /* softirq decompressions in progress */
};

static inline struct f2fs_inode *f2fs_i(const struct stack_file *f)
{
	return (struct f2fs_inode *)f->ei.fs_priv;
}

static inline uint64_t f2fs_blk_lba(const struct f2fs *fs, uint64_t blk)
{
	return fs->main_lba + blk * F2FS_SECTORS_PER_BLK;
}

static inline uint32_t f2fs_node_of(uint64_t page)
{
	return page < F2FS_ADDRS_PER_INODE
		       ? 0
		       : 1 + (uint32_t)((page - F2FS_ADDRS_PER_INODE) / F2FS_ADDRS_PER_BLOCK);
}

/* f2fs.c */
/* Give sg its summary (entries [0, valid) anonymous) if it has none. */
int f2fs_seg_sum(struct f2fs_seg *sg);
/* Next block of log (opening a new segment when the current one is
 * full), owned by sum; UINT64_MAX when no segment is free. */
uint64_t f2fs_alloc_block(struct stack *s, enum f2fs_log log, struct f2fs_sum sum);
/* The block no longer holds live data (overwritten out of place, moved). */
void f2fs_invalidate(struct stack *s, uint64_t blk);
/* Map pages [page, page + n) of f to blocks starting at blk. */
int f2fs_remap(struct stack_file *f, uint64_t page, uint64_t lba, uint64_t n);
struct stack_file *f2fs_file_by_id(const struct f2fs *fs, uint32_t id);
void f2fs_mark_node_dirty(struct stack *s, struct stack_file *f, uint32_t node);
/* has_not_enough_free_secs(sbi, 0, 0) */
bool f2fs_low_free(const struct stack *s);
/* Build a write bio of nblk blocks at blk for the kernel thread or an
 * fsyncing task (owner: wb_left counts down). */
struct stack_bio *f2fs_bio(struct stack *s, struct stack_task *owner, uint64_t lba,
			   uint32_t nsect, uint32_t flags);

/* f2fs_sync.c */
enum step f2fs_fsync(struct stack_task *t, struct stack_file *f, bool datasync);
enum step f2fs_atomic(struct stack_task *t, struct stack_file *f, bool commit);
/* Write the dirty node blocks of f into their log; bios appended to
 * owner->pend. Returns the number of blocks. fsync_mark: the last one
 * carries the fsync mark (flags_last added to its bio). */
uint32_t f2fs_write_nodes(struct stack *s, struct stack_task *owner, struct stack_file *f,
			  uint32_t flags, uint32_t flags_last);

/* f2fs_compress.c */
extern const char *const f2fs_calg_names[];
extern const char *const f2fs_dctx_names[];
int f2fs_compress_init(struct stack *s, struct sim_error *err);
void f2fs_compress_free(struct stack *s);
/* The new (or existing) file's compression flag: its name matches
 * compress_extension while an algorithm is set. */
void f2fs_compress_new_file(struct stack *s, struct stack_file *f);
/* Pages of a cluster of 2^log pages the compressor's output of clen bytes
 * is stored in, 0 when it is written raw (f2fs_compress_pages: the
 * header and data must fit in cluster_size - 1 blocks). */
uint32_t f2fs_cluster_cpages(uint32_t log, uint64_t clen);
/* Compressed length of cluster c of file id: the raw size over the
 * algorithm's ratio, spread per cluster by a hash (no data bytes). */
uint64_t f2fs_cluster_clen(const struct f2fs *fs, uint32_t id, uint64_t c, uint64_t gen);
/* map_for_write of a compressed file: clusters [index, index + n) fully
 * dirty and inside i_size are compressed; the rest as raw pages through
 * raw(). */
int f2fs_compress_map(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n,
		      int (*raw)(struct stack *, struct stack_file *, uint64_t, uint64_t));
/* alloc_existing of a compressed file, page by page in index order: 1
 * when the page holds a block (a raw cluster's page, or slot 1..n of a
 * cluster compressed into n blocks), 0 when not, -1 out of memory. */
int f2fs_compress_existing_page(struct stack *s, struct stack_file *f, uint64_t npages,
				uint64_t page);
bool f2fs_cluster_map(const struct stack_file *f, uint64_t index, struct fs_cluster_map *m);
bool f2fs_read_post(struct stack *s, struct stack_bio *sb);
enum step f2fs_writeback_cpu(struct stack_task *t);
/* Remove pages [page, page + n) of f from its block map. */
int f2fs_unmap(struct stack_file *f, uint64_t page, uint64_t n);
struct json_t *f2fs_compress_json(const struct stack *s);

/* f2fs_gc.c */
int f2fs_kthread_init(struct stack *s, struct sim_error *err);
void f2fs_kthread_free(struct stack *s);
void f2fs_kthread_run(struct stack_task *t);
/* Ask for a checkpoint and sleep until it is done (wait cause checkpoint). */
enum step f2fs_wait_checkpoint(struct stack_task *t);
/* f2fs_balance_fs: if free space is low, sleep until foreground cleaning made room. */
enum step f2fs_balance_fs(struct stack_task *t);
void f2fs_note_request(struct stack *s);

#endif
