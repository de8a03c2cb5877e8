/* F2FS: the log-structured file system of Android's /data since about
 * 2018 (Linux 5.15 fs/f2fs: segment.c, node.c, data.c, super.c; mkfs.f2fs
 * for the layout). This file: on-disk layout, the segment manager with
 * its six logs, out-of-place and in-place data writes, node blocks and the
 * ops table; f2fs_sync.c has fsync and atomic writes, f2fs_gc.c the
 * checkpoint and segment cleaning.
 *
 * Layout: [superblock | checkpoint x2 | SIT x2 | NAT x2 | SSA | main],
 * main in 2 MiB segments of 512 blocks. Six logs append to their own
 * current segment (multi-head logging): hot/warm/cold data and hot/warm/
 * cold node (segment.c __get_segment_type_6: regular files' data is warm,
 * files whose extension is on the hot list (mkfs default "db") and atomic
 * files hot, files on the cold (media) list and blocks moved by cleaning
 * cold; regular files' inode and direct node blocks warm, directories' hot).
 * A rewritten page goes to a new block in its log (out-of-place update,
 * OPU) and the old block becomes invalid, which dirties the direct node
 * that maps the page; the node block is itself written out of place at
 * fsync (node chain) or at the checkpoint. In-place update (IPU) is used
 * only as ipu_policy=F2FS_IPU_FSYNC allows: while fsync writes a file with
 * at most min_fsync_blocks (8) dirty pages, or for fdatasync
 * (file.c f2fs_do_sync_file sets FI_NEED_IPU).
 *
 * Mount state (aging): the first initial_used_ratio of the main area holds
 * data, each segment initial_valid_ratio valid on average (uniform spread,
 * seeded stream "fs"); files that exist at start are placed there in
 * extents like the ext4 model's (extent_mean_bytes, gap_mean_bytes).
 * Left out: directories and dentry blocks (hot data), inline data and
 * xattrs, indirect node blocks (cold node; every file is mapped by its
 * inode and direct nodes), slack space recycling (SSR) and the adaptive
 * switch to it, sections of more than one segment, zoned
 * devices, the extent cache and NAT/SIT block placement (each written as
 * one run at the head of its area). Compression: f2fs_compress.c.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "models/fs/f2fs_int.h"
#include "sim/sim.h"

static const char *const f2fs_fsync_modes[] = { "posix", "strict", "nobarrier", NULL };

#define F2P(field) offsetof(struct f2fs_params, field)

static const struct cfg_param f2fs_params_table[] = {
	{ "partition_bytes", CFG_T_SIZE, F2P(base.partition_bytes), "GiB", "24GiB", 0.01, 65536,
	  "userdata partition (the platform names its own)", "size of the data partition", NULL },
	{ "partition_start_bytes", CFG_T_SIZE, F2P(base.partition_start_bytes), "MiB", "4GiB", 0,
	  1e9, "INFER: system and other partitions come first", "offset of the partition", NULL },
	{ "extent_mean_bytes", CFG_T_SIZE, F2P(base.extent_mean_bytes), "KiB", "1MiB", 4, 1e9,
	  "as the ext4 model (INFER)", "mean extent of files that exist at start", NULL },
	{ "gap_mean_bytes", CFG_T_SIZE, F2P(base.gap_mean_bytes), "KiB", "512KiB", 0, 1e9,
	  "as the ext4 model (INFER)", "mean hole between such extents", NULL },
	{ "max_bio_bytes", CFG_T_SIZE, F2P(base.max_bio_bytes), "KiB", "512", 4, 1 << 20,
	  "BLK_DEF_MAX_SECTORS 1024 = 512 KiB; f2fs merges a log's blocks up to it",
	  "largest bio the file system builds", NULL },
	{ "cold_metadata", CFG_T_BOOL, F2P(base.cold_metadata), "", "true", CFG_NO_RANGE,
	  "cold launch: inodes not in the cache", "open() of an uncached inode reads its node block",
	  NULL },
	{ "layout_seed", CFG_T_INT, F2P(base.layout_seed), "", "0", 0, 9007199254740991.0,
	  "as the ext4 model", "seed of the placement of existing files and of the aged segments "
	  "(0: the run's)", NULL },
	{ "active_logs", CFG_T_INT, F2P(active_logs), "", "6", 2, 6,
	  "super.c: active_logs=6 default (2 and 4 allowed)", "number of logs (2, 4 or 6)", NULL },
	{ "reserved_segments", CFG_T_INT, F2P(reserved_segments), "", "208", 0, 1e7,
	  "mkfs.f2fs: (2 * (100 / ovp + 1) + 6) segments at ovp 1 % (RECALL)",
	  "free segments kept for cleaning: foreground cleaning starts at this many", NULL },
	{ "initial_used_ratio", CFG_T_DOUBLE, F2P(initial_used_ratio), "", "0.5", 0, 0.98,
	  "INFER: a half-full /data", "share of the main area written before the run", NULL },
	{ "initial_valid_ratio", CFG_T_DOUBLE, F2P(initial_valid_ratio), "", "0.85", 0.5, 1,
	  "INFER: aged segments keep most blocks valid", "mean valid share of those segments",
	  NULL },
	{ "cp_interval_ms", CFG_T_TIME, F2P(cp_interval_ns), "ms", "60s", 1, 3.6e6,
	  "f2fs.h DEF_CP_INTERVAL 60 (s)", "a checkpoint at most this long after the last", NULL },
	{ "gc_min_sleep_ms", CFG_T_TIME, F2P(gc_min_sleep_ns), "ms", "30s", 1, 3.6e6,
	  "gc.h DEF_GC_THREAD_MIN_SLEEP_TIME 30000 (ms)", "background cleaning: shortest sleep",
	  NULL },
	{ "gc_max_sleep_ms", CFG_T_TIME, F2P(gc_max_sleep_ns), "ms", "60s", 1, 3.6e6,
	  "gc.h DEF_GC_THREAD_MAX_SLEEP_TIME 60000 (ms)", "background cleaning: longest sleep",
	  NULL },
	{ "gc_nogc_sleep_ms", CFG_T_TIME, F2P(gc_nogc_sleep_ns), "ms", "300s", 1, 3.6e7,
	  "gc.h DEF_GC_THREAD_NOGC_SLEEP_TIME 300000 (ms)", "sleep when there is no victim", NULL },
	{ "idle_interval_ms", CFG_T_TIME, F2P(idle_interval_ns), "ms", "5s", 0, 3.6e6,
	  "f2fs.h DEF_IDLE_INTERVAL 5 (s)", "no request for this long = idle for cleaning", NULL },
	{ "background_gc", CFG_T_BOOL, F2P(background_gc), "", "true", CFG_NO_RANGE,
	  "mount option background_gc=on (default)", "run the background cleaning thread", NULL },
	{ "fsync_mode", CFG_T_ENUM, F2P(fsync_mode), "", "posix", CFG_NO_RANGE,
	  "mount option fsync_mode=posix (default)", "nobarrier: fsync issues no cache flush",
	  f2fs_fsync_modes },
	{ "ipu_fsync", CFG_T_BOOL, F2P(ipu_fsync), "", "true", CFG_NO_RANGE,
	  "segment.c: ipu_policy = BIT(F2FS_IPU_FSYNC) outside LFS mode",
	  "in-place update of small fsync / fdatasync writes", NULL },
	{ "min_fsync_blocks", CFG_T_INT, F2P(min_fsync_blocks), "", "8", 0, 1e6,
	  "segment.h DEF_MIN_FSYNC_BLOCKS 8", "fsync of at most this many dirty pages updates in place",
	  NULL },
	{ "discard", CFG_T_BOOL, F2P(discard), "", "true", CFG_NO_RANGE,
	  "mount option discard (Android fstab)", "trim segments freed by a checkpoint", NULL },
	{ "ioprio_class", CFG_T_INT, F2P(ioprio_class), "", "2", 0, 3,
	  "kthreads: no ioprio set -> BE", "f2fs thread I/O class", NULL },
	{ "ioprio_level", CFG_T_INT, F2P(ioprio_level), "", "4", 0, 7,
	  "task_nice_ioprio(nice 0) = 4", "f2fs thread I/O priority level", NULL },
	CFG_PARAM_END,
};

/* `fs: {compress: {...}}` (f2fs_compress.c); without the section nothing
 * is compressed, as on an f2fs made without -O compression. */
static const struct cfg_param f2fs_compress_table[] = {
	{ "algorithm", CFG_T_ENUM, F2P(compress_algorithm), "", "off", CFG_NO_RANGE,
	  "mount option compress_algorithm (super.c default_options: lz4 once mkfs.f2fs -O "
	  "compression); off: no compression feature",
	  "off, lzo, lz4, zstd (level 1) or lzo-rle", f2fs_calg_names },
	{ "log_cluster_size", CFG_T_INT, F2P(compress_log_size), "", "2", F2FS_MIN_COMPRESS_LOG,
	  F2FS_MAX_COMPRESS_LOG,
	  "mount option compress_log_size (super.c: MIN_COMPRESS_LOG_SIZE 2; f2fs.h allows 2..8)",
	  "a cluster is 2^this pages (2: 16 KiB)", NULL },
	{ "extension", CFG_T_STRING, F2P(compress_extension), "", "*", CFG_NO_RANGE,
	  "mount option compress_extension (kernel default none: only files flagged "
	  "FS_COMPR_FL); '*' every file is assumed, the scenario's files being the compressed ones",
	  "comma-separated file extensions that are compressed ('*': all)", NULL },
	{ "ratio", CFG_T_DOUBLE, F2P(compress_ratio), "", "2.0", 0.5, 16,
	  "assumed: the workload's data compressibility (lz4's ratio on it in clusters; range "
	  "1.0-3.0 for app data; Silesia 2.1 in large blocks, zstd README); other algorithms in "
	  "proportion to their Silesia ratios",
	  "raw over compressed size of a cluster, on average (no data bytes are simulated)", NULL },
	{ "ratio_spread", CFG_T_DOUBLE, F2P(compress_ratio_spread), "", "0.2", 0, 0.9,
	  "assumed (range 0-0.5): clusters of one file compress differently",
	  "per-cluster ratio drawn uniformly in ratio x (1 +- this), hashed per file and cluster",
	  NULL },
	{ "cpu_mhz", CFG_T_INT, F2P(compress_cpu_mhz), "MHz", "2600", 100, 10000,
	  "assumed: a Tensor G4 Cortex-A720 mid core at 2.6 GHz (range 1950, its A520, to 3100, "
	  "its X4; Google spec)",
	  "clock of the core that compresses and decompresses", NULL },
	{ "cpb_scale", CFG_T_DOUBLE, F2P(compress_cpb_scale), "", "1.3", 0.3, 10,
	  "assumed (range 1.0 for a big Arm core to 2.5 for an in-order little one): an Arm "
	  "core's cycles per byte over the i9-9900K's in the zstd README's lzbench table",
	  "cycles-per-byte factor applied to the desktop (de)compression figures", NULL },
	{ "decompress_context", CFG_T_ENUM, F2P(decompress_context), "", "softirq", CFG_NO_RANGE,
	  "data.c f2fs_read_end_io: in the bio's end_io (softirq) when decompression is the only "
	  "step, Linux 6.0+; the f2fs_post_read_wq workqueue in 5.10-5.19",
	  "where a read's decompression runs: softirq (6.x) or workqueue (5.10)", f2fs_dctx_names },
	CFG_PARAM_END,
};

/* mkfs.f2fs default extension lists (f2fs-tools mkfs/f2fs_format.c;
 * RECALL, abbreviated): a file whose name has ".EXT..." with EXT on the
 * cold list is cold, "db" is hot. */
static const char *const f2fs_cold_ext[] = { "mp",  "wm",  "og",  "jp",  "avi", "m4v", "mkv",
					     "mov", "webm", "wav", "m4a", "3gp", "opus", "flac",
					     "gif", "png", "webp", "apk", "so", "odex", "vdex",
					     NULL };
static const char *const f2fs_hot_ext[] = { "db", NULL };

static bool has_ext(const char *name, const char *const *list)
{
	size_t n = strlen(name);
	for (size_t i = 1; i + 1 < n; i++) {
		if (name[i] != '.')
			continue;
		for (const char *const *e = list; *e; e++)
			if (strncasecmp(name + i + 1, *e, strlen(*e)) == 0)
				return true;
	}
	return false;
}

/* The log a block of this temperature goes to with active_logs logs
 * (segment.c __get_segment_type_2/_4/_6). */
static enum f2fs_log log_for(const struct f2fs *fs, enum f2fs_log want)
{
	bool node = want >= F2FS_HOT_NODE;
	if (fs->p.active_logs <= 2)
		return node ? F2FS_HOT_NODE : F2FS_HOT_DATA;
	if (fs->p.active_logs <= 4) {
		if (node)
			return want == F2FS_HOT_NODE ? F2FS_HOT_NODE : F2FS_COLD_NODE;
		return want == F2FS_HOT_DATA ? F2FS_HOT_DATA : F2FS_COLD_DATA;
	}
	return want;
}

/* ------------------------------------------------------------ segments */

int f2fs_seg_sum(struct f2fs_seg *sg)
{
	if (sg->sum)
		return 0;
	sg->sum = calloc(F2FS_BLKS_PER_SEG, sizeof(*sg->sum));
	if (!sg->sum)
		return SIM_E_NOMEM;
	for (uint32_t i = 0; i < sg->valid && i < F2FS_BLKS_PER_SEG; i++)
		sg->sum[i].owner = F2FS_SUM_ANON;
	return 0;
}

static void seg_sit_dirty(struct f2fs *fs, struct f2fs_seg *sg)
{
	if (!sg->sit_dirty) {
		sg->sit_dirty = true;
		fs->dirty_sit++;
	}
}

/* A full or closed segment becomes a cleaning candidate, or prefree when
 * nothing in it is valid (segment.c locate_dirty_segment). */
static void seg_close(struct f2fs *fs, struct f2fs_seg *sg)
{
	if (sg->valid == 0) {
		sg->state = SEG_PREFREE;
		fs->prefree_segs++;
	} else {
		sg->state = SEG_DIRTY;
	}
}

static int log_open(struct stack *s, enum f2fs_log log)
{
	struct f2fs *fs = s->fs.f2;
	uint32_t from = fs->log_seg[log] == UINT32_MAX ? fs->aged_segs : fs->log_seg[log] + 1;
	for (uint32_t k = 0; k < fs->nsegs; k++) {
		uint32_t i = (from + k) % fs->nsegs;
		struct f2fs_seg *sg = &fs->seg[i];
		if (sg->state != SEG_FREE)
			continue;
		if (f2fs_seg_sum(sg))
			return SIM_E_NOMEM;
		memset(sg->sum, 0, F2FS_BLKS_PER_SEG * sizeof(*sg->sum));
		sg->state = SEG_ACTIVE;
		sg->log = (uint8_t)log;
		sg->valid = 0;
		sg->next = 0;
		fs->free_segs--;
		fs->log_seg[log] = i;
		return 0;
	}
	return SIM_E_RUNTIME;
}

uint64_t f2fs_alloc_block(struct stack *s, enum f2fs_log want, struct f2fs_sum sum)
{
	struct f2fs *fs = s->fs.f2;
	enum f2fs_log log = log_for(fs, want);
	struct f2fs_seg *sg = fs->log_seg[log] == UINT32_MAX ? NULL : &fs->seg[fs->log_seg[log]];
	if (!sg || sg->next >= F2FS_BLKS_PER_SEG) {
		if (sg)
			seg_close(fs, sg);
		if (log_open(s, log))
			return UINT64_MAX;
		sg = &fs->seg[fs->log_seg[log]];
	}
	uint64_t blk = (uint64_t)fs->log_seg[log] * F2FS_BLKS_PER_SEG + sg->next;
	sg->sum[sg->next++] = sum;
	sg->valid++;
	sg->mtime = sim_now(s->sim);
	seg_sit_dirty(fs, sg);
	fs->valid_blocks++;
	fs->log_blocks[log]++;
	return blk;
}

void f2fs_invalidate(struct stack *s, uint64_t blk)
{
	struct f2fs *fs = s->fs.f2;
	if (blk / F2FS_BLKS_PER_SEG >= fs->nsegs)
		return;
	struct f2fs_seg *sg = &fs->seg[blk / F2FS_BLKS_PER_SEG];
	uint32_t off = (uint32_t)(blk % F2FS_BLKS_PER_SEG);
	if (f2fs_seg_sum(sg)) {
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory (f2fs summary)");
		return;
	}
	if (sg->sum[off].owner == 0 || sg->valid == 0)
		return;
	sg->sum[off].owner = 0;
	sg->valid--;
	fs->valid_blocks--;
	seg_sit_dirty(fs, sg);
	if (sg->valid == 0 && sg->state == SEG_DIRTY) {
		sg->state = SEG_PREFREE;
		fs->prefree_segs++;
	}
}

bool f2fs_low_free(const struct stack *s)
{
	const struct f2fs *fs = s->fs.f2;
	uint64_t node_segs = (fs->dirty_nodes + F2FS_BLKS_PER_SEG - 1) / F2FS_BLKS_PER_SEG;
	return (uint64_t)fs->free_segs <= (uint64_t)fs->p.reserved_segments + node_segs;
}

/* ------------------------------------------------------------- mapping */

int f2fs_remap(struct stack_file *f, uint64_t page, uint64_t lba, uint64_t n)
{
	uint64_t end = page + n;
	uint32_t lo = 0, hi = f->ei.next_ext;
	while (lo < hi) { /* first extent ending after page */
		uint32_t mid = (lo + hi) / 2;
		if (f->ei.ext[mid].page + f->ei.ext[mid].npages > page)
			hi = mid;
		else
			lo = mid + 1;
	}
	uint32_t i = lo, j = lo;
	while (j < f->ei.next_ext && f->ei.ext[j].page < end)
		j++;
	struct fs_extent add[3];
	uint32_t k = 0;
	if (i < j && f->ei.ext[i].page < page)
		add[k++] = (struct fs_extent){ f->ei.ext[i].page, f->ei.ext[i].lba, page - f->ei.ext[i].page };
	add[k++] = (struct fs_extent){ page, lba, n };
	if (i < j) {
		const struct fs_extent *l = &f->ei.ext[j - 1];
		if (l->page + l->npages > end)
			add[k++] = (struct fs_extent){
				end, l->lba + (end - l->page) * F2FS_SECTORS_PER_BLK,
				l->page + l->npages - end };
	}
	uint32_t nn = f->ei.next_ext - (j - i) + k;
	if (nn > f->ei.cap_ext) {
		uint32_t cap = f->ei.cap_ext ? f->ei.cap_ext : 4;
		while (cap < nn)
			cap *= 2;
		struct fs_extent *x = realloc(f->ei.ext, cap * sizeof(*x));
		if (!x)
			return SIM_E_NOMEM;
		f->ei.ext = x;
		f->ei.cap_ext = cap;
	}
	memmove(&f->ei.ext[i + k], &f->ei.ext[j], (f->ei.next_ext - j) * sizeof(*f->ei.ext));
	memcpy(&f->ei.ext[i], add, k * sizeof(*add));
	f->ei.next_ext = nn;
	/* merge the new run with physically contiguous neighbours */
	uint32_t a = i > 0 ? i - 1 : 0, b = i + k < nn ? i + k : nn - 1;
	for (uint32_t x = b; x > a; x--) {
		struct fs_extent *p = &f->ei.ext[x - 1], *q = &f->ei.ext[x];
		if (p->page + p->npages == q->page &&
		    p->lba + p->npages * F2FS_SECTORS_PER_BLK == q->lba) {
			p->npages += q->npages;
			memmove(q, q + 1, (f->ei.next_ext - x - 1) * sizeof(*q));
			f->ei.next_ext--;
		}
	}
	if (end > f->ei.alloc_pages)
		f->ei.alloc_pages = end;
	return 0;
}

struct stack_file *f2fs_file_by_id(const struct f2fs *fs, uint32_t id)
{
	return id < fs->cap_files ? fs->files[id] : NULL;
}

static int node_grow(struct f2fs_inode *fi, uint32_t need)
{
	if (need <= fi->nnodes)
		return 0;
	uint64_t *b = realloc(fi->node_blk, need * sizeof(*b));
	if (!b)
		return SIM_E_NOMEM;
	fi->node_blk = b;
	uint8_t *d = realloc(fi->node_dirty, need);
	if (!d)
		return SIM_E_NOMEM;
	fi->node_dirty = d;
	for (uint32_t i = fi->nnodes; i < need; i++) {
		fi->node_blk[i] = UINT64_MAX;
		fi->node_dirty[i] = 0;
	}
	fi->nnodes = need;
	return 0;
}

void f2fs_mark_node_dirty(struct stack *s, struct stack_file *f, uint32_t node)
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_inode *fi = f2fs_i(f);
	if (!fi)
		return;
	if (node_grow(fi, node + 1)) {
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory (f2fs node)");
		return;
	}
	if (fi->node_dirty[node])
		return;
	fi->node_dirty[node] = 1;
	fi->ndirty_nodes++;
	fs->dirty_nodes++;
	if (list_empty(&fi->dirty_node))
		list_add_tail(&fi->dirty_node, &fs->dirty_inodes);
}

/* ---------------------------------------------------------------- ops */

static void f2fs_new_file(struct stack *s, struct stack_file *f)
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_inode *fi = calloc(1, sizeof(*fi));
	if (!fi || node_grow(fi, 1)) {
		if (fi)
			free(fi->node_blk);
		free(fi);
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory (f2fs inode)");
		return;
	}
	list_init(&fi->dirty_node);
	fi->file = f;
	fi->log = has_ext(f->name, f2fs_cold_ext)  ? F2FS_COLD_DATA
		  : has_ext(f->name, f2fs_hot_ext) ? F2FS_HOT_DATA
						   : F2FS_WARM_DATA;
	f->ei.fs_priv = fi;
	f->ei.inode_cached = true; /* created now: its inode is in memory */
	f2fs_compress_new_file(s, f);
	if (f->id >= fs->cap_files) {
		uint32_t cap = fs->cap_files ? fs->cap_files : 64;
		while (cap <= f->id)
			cap *= 2;
		struct stack_file **x = realloc(fs->files, cap * sizeof(*x));
		if (!x) {
			sim_fail(s->sim, SIM_E_NOMEM, "out of memory (f2fs files)");
			return;
		}
		memset(x + fs->cap_files, 0, (cap - fs->cap_files) * sizeof(*x));
		fs->files = x;
		fs->cap_files = cap;
	}
	fs->files[f->id] = f;
}

/* Place one block of a file that exists at start at the aging cursor. */
static uint64_t exist_take(struct f2fs *fs, struct f2fs_sum sum, bool *err)
{
	for (;;) {
		uint64_t blk = fs->exist_blk++;
		uint32_t si = (uint32_t)((blk / F2FS_BLKS_PER_SEG) % fs->nsegs);
		struct f2fs_seg *sg = &fs->seg[si];
		uint32_t off = (uint32_t)(blk % F2FS_BLKS_PER_SEG);
		if (sg->state == SEG_ACTIVE || sg->state == SEG_PREFREE) {
			fs->exist_blk += F2FS_BLKS_PER_SEG - off;
			continue;
		}
		if (sg->state == SEG_FREE) {
			sg->state = SEG_DIRTY;
			sg->valid = 0;
			fs->free_segs--;
		}
		if (f2fs_seg_sum(sg)) {
			*err = true;
			return UINT64_MAX;
		}
		if (sg->sum[off].owner == 0) {
			sg->valid++;
			fs->valid_blocks++;
		}
		sg->sum[off] = sum;
		return (uint64_t)si * F2FS_BLKS_PER_SEG + off;
	}
}

static int f2fs_alloc_existing(struct stack *s, struct stack_file *f, uint64_t npages)
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_inode *fi = f2fs_i(f);
	if (!fi)
		return SIM_E_NOMEM;
	double mean = (double)(fs->p.base.extent_mean_bytes >> STACK_PAGE_SHIFT);
	double gap = (double)(fs->p.base.gap_mean_bytes >> STACK_PAGE_SHIFT);
	bool err = false;
	uint64_t page = 0;
	while (page < npages) {
		uint64_t len = 1 + (uint64_t)gsl_ran_exponential(s->fs.rng, mean > 1 ? mean - 1 : 0.5);
		if (len > npages - page)
			len = npages - page;
		if (gap > 0 && page > 0)
			fs->exist_blk += (uint64_t)gsl_ran_exponential(s->fs.rng, gap);
		for (uint64_t i = 0; i < len; i++) {
			/* a compressed file was written compressed before the run */
			int has = fi->compress ? f2fs_compress_existing_page(s, f, npages, page + i) : 1;
			if (has < 0)
				return SIM_E_NOMEM;
			if (!has)
				continue;
			fi->data_blocks += fi->compress;
			struct f2fs_sum sum = { f->id + 1, (uint32_t)(page + i) };
			uint64_t blk = exist_take(fs, sum, &err);
			if (err || f2fs_remap(f, page + i, f2fs_blk_lba(fs, blk), 1))
				return SIM_E_NOMEM;
		}
		page += len;
	}
	if (!fi->compress)
		fi->data_blocks = npages;
	uint32_t nn = npages ? f2fs_node_of(npages - 1) + 1 : 1;
	if (node_grow(fi, nn))
		return SIM_E_NOMEM;
	for (uint32_t k = 0; k < nn; k++) {
		struct f2fs_sum sum = { (f->id + 1) | F2FS_SUM_NODE, k };
		fi->node_blk[k] = exist_take(fs, sum, &err);
		if (err)
			return SIM_E_NOMEM;
	}
	f->ei.inode_lba = f2fs_blk_lba(fs, fi->node_blk[0]);
	f->ei.inode_cached = !fs->p.base.cold_metadata;
	f->ei.alloc_pages = npages;
	return 0;
}

/* ->writepages: f2fs_do_write_data_page. IPU while fsync asked for it and
 * the page has a block; otherwise a new block in the file's data log,
 * which invalidates the old one and dirties the direct node. */
static int f2fs_map_raw(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n)
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_inode *fi = f2fs_i(f);
	uint64_t run_page = 0, run_lba = 0, run_n = 0;
	for (uint64_t p = index; p < index + n; p++) {
		uint64_t old = fs_map(f, p, NULL);
		if (old != UINT64_MAX && fi->need_ipu && fs->p.ipu_fsync) {
			fs->ipu_blocks++;
			fi->update_write = true;
			continue;
		}
		struct f2fs_sum sum = { f->id + 1, (uint32_t)p };
		uint64_t blk = f2fs_alloc_block(s, (enum f2fs_log)fi->log, sum);
		if (blk == UINT64_MAX)
			return SIM_E_RUNTIME;
		if (old != UINT64_MAX)
			f2fs_invalidate(s, (old - fs->main_lba) / F2FS_SECTORS_PER_BLK);
		else
			fi->data_blocks++;
		fs->opu_blocks++;
		fi->append_write = true;
		f2fs_mark_node_dirty(s, f, f2fs_node_of(p));
		uint64_t lba = f2fs_blk_lba(fs, blk);
		if (run_n && run_page + run_n == p && run_lba + run_n * F2FS_SECTORS_PER_BLK == lba) {
			run_n++;
			continue;
		}
		if (run_n && f2fs_remap(f, run_page, run_lba, run_n))
			return SIM_E_NOMEM;
		run_page = p;
		run_lba = lba;
		run_n = 1;
	}
	if (run_n && f2fs_remap(f, run_page, run_lba, run_n))
		return SIM_E_NOMEM;
	return 0;
}

static int f2fs_map_for_write(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n,
			      bool sync)
{
	struct f2fs_inode *fi = f2fs_i(f);
	(void)sync;
	if (!fi)
		return SIM_E_NOMEM;
	if (fi->compress)
		return f2fs_compress_map(s, f, index, n, f2fs_map_raw);
	return f2fs_map_raw(s, f, index, n);
}

static void f2fs_dirty_inode(struct stack *s, struct stack_file *f, bool datasync)
{
	struct f2fs_inode *fi = f2fs_i(f);
	(void)s;
	if (!fi || f->is_meta)
		return;
	fi->inode_dirty = true;
	if (datasync)
		fi->size_dirty = true;
}

static enum step f2fs_write_begin(struct stack_task *t, struct stack_file *f)
{
	(void)f;
	f2fs_note_request(t->stack);
	return f2fs_balance_fs(t);
}

/* The end_io of f2fs's node, meta and cleaning writes (f2fs_write_end_io):
 * private is the fsyncing or f2fs task counting its bios down in wb_left,
 * woken at the last, or NULL when nobody waits. */
static void f2fs_write_end_io(struct sim *sim, struct bio *bio)
{
	struct stack_bio *sb = container_of(bio, struct stack_bio, bio);
	struct stack_task *t = bio->private;
	(void)sim;
	if (t && t->wb.left > 0 && --t->wb.left == 0)
		task_wake(t);
	sbio_free(sb->stack, sb);
}

struct stack_bio *f2fs_bio(struct stack *s, struct stack_task *owner, uint64_t lba,
			   uint32_t nsect, uint32_t flags)
{
	struct stack_bio *sb = sbio_alloc(s);
	if (!sb) {
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory allocating a bio");
		return NULL;
	}
	sb->bio.end_io = f2fs_write_end_io;
	sb->bio.private = owner;
	sb->bio.sector = lba;
	sb->bio.nr_sectors = nsect;
	sb->bio.flags = flags;
	if (owner)
		owner->wb.left++;
	return sb;
}

/* ------------------------------------------------------------- set-up */

static int f2fs_init(struct stack *s, struct cfg_node *node, struct cfg_node *jn,
		     struct sim_error *err)
{
	if (jn)
		return cfg_errorf(err, jn, "f2fs has no journal: remove the `journal:` section");
	struct f2fs *fs = calloc(1, sizeof(*fs));
	if (!fs)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	s->fs.f2 = fs;
	list_init(&fs->dirty_inodes);
	list_init(&fs->waiters);
	sim_event_init(&fs->cp_timer, NULL);
	sim_event_init(&fs->gc_timer, NULL);
	int rc = cfg_apply(f2fs_params_table, node, &fs->p, err);
	if (rc == 0)
		rc = cfg_apply(f2fs_compress_table, cfg_get(node, "compress"), &fs->p, err);
	if (rc)
		return rc;
	if (fs->p.active_logs != 2 && fs->p.active_logs != 4 && fs->p.active_logs != 6)
		return cfg_errorf(err, cfg_get(node, "active_logs"), "active_logs must be 2, 4 or 6");
	s->fs.p = fs->p.base;
	s->fs.p.group_bytes = 128ull << 20; /* unused by f2fs; the journal's groups */
	s->fs.p.alloc_extent_bytes = 2ull << 20;
	s->fs.start_sector = fs->p.base.partition_start_bytes >> SECTOR_SHIFT;
	s->fs.end_sector = s->fs.start_sector + (fs->p.base.partition_bytes >> SECTOR_SHIFT);
	rc = fs_rng_open(s, err);
	if (rc)
		return rc;

	uint64_t seg_sect = (uint64_t)F2FS_BLKS_PER_SEG * F2FS_SECTORS_PER_BLK;
	uint64_t total = (s->fs.end_sector - s->fs.start_sector) / seg_sect;
	uint64_t sit_blk = (total + F2FS_SIT_PER_BLOCK - 1) / F2FS_SIT_PER_BLOCK;
	uint64_t sit_segs = 2 * ((sit_blk + F2FS_BLKS_PER_SEG - 1) / F2FS_BLKS_PER_SEG);
	uint64_t nat_blk = (total * F2FS_BLKS_PER_SEG / 8 + F2FS_NAT_PER_BLOCK - 1) /
			   F2FS_NAT_PER_BLOCK;
	uint64_t nat_segs = 2 * ((nat_blk + F2FS_BLKS_PER_SEG - 1) / F2FS_BLKS_PER_SEG);
	uint64_t ssa_segs = (total + F2FS_BLKS_PER_SEG - 1) / F2FS_BLKS_PER_SEG;
	uint64_t meta = 1 + 2 + sit_segs + nat_segs + ssa_segs;
	if (total < meta + (uint64_t)fs->p.reserved_segments + 16)
		return cfg_errorf(err, node, "partition too small for f2fs (%llu segments)",
				  (unsigned long long)total);
	fs->cp_lba = s->fs.start_sector + seg_sect;
	fs->sit_lba = fs->cp_lba + 2 * seg_sect;
	fs->nat_lba = fs->sit_lba + sit_segs * seg_sect;
	fs->main_lba = s->fs.start_sector + meta * seg_sect;
	fs->nsegs = (uint32_t)(total - meta);
	fs->seg = calloc(fs->nsegs, sizeof(*fs->seg));
	if (!fs->seg)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	fs->aged_segs = (uint32_t)((double)fs->nsegs * fs->p.initial_used_ratio);
	double v = fs->p.initial_valid_ratio;
	for (uint32_t i = 0; i < fs->aged_segs; i++) {
		double u = (2 * v - 1) + gsl_rng_uniform(s->fs.rng) * (2 - 2 * v);
		uint32_t valid = (uint32_t)(u * F2FS_BLKS_PER_SEG + 0.5);
		if (valid > F2FS_BLKS_PER_SEG)
			valid = F2FS_BLKS_PER_SEG;
		fs->seg[i].valid = (uint16_t)valid;
		fs->seg[i].state = valid ? SEG_DIRTY : SEG_PREFREE;
		fs->prefree_segs += valid ? 0 : 1;
		fs->valid_blocks += valid;
	}
	fs->free_segs = fs->nsegs - fs->aged_segs;
	for (int l = 0; l < F2FS_NR_LOGS; l++)
		fs->log_seg[l] = UINT32_MAX;
	for (int l = 0; l < F2FS_NR_LOGS; l++)
		if (log_for(fs, (enum f2fs_log)l) == (enum f2fs_log)l && log_open(s, (enum f2fs_log)l))
			return sim_errorf(err, SIM_E_NOMEM, "f2fs: no free segment for the logs");
	rc = f2fs_compress_init(s, err);
	if (rc)
		return rc;
	return f2fs_kthread_init(s, err);
}

static void f2fs_free(struct stack *s)
{
	struct f2fs *fs = s->fs.f2;
	fs_free(s); /* the layout stream */
	if (!fs)
		return;
	f2fs_kthread_free(s);
	f2fs_compress_free(s);
	struct list_head *pos;
	list_for_each(pos, &s->files) {
		struct stack_file *f = list_entry(pos, struct stack_file, all_node);
		struct f2fs_inode *fi = f2fs_i(f);
		if (fi) {
			free(fi->node_blk);
			free(fi->node_dirty);
			free(fi->cl_blocks);
			free(fi);
			f->ei.fs_priv = NULL;
		}
	}
	for (uint32_t i = 0; fs->seg && i < fs->nsegs; i++)
		free(fs->seg[i].sum);
	free(fs->seg);
	free(fs->files);
	free(fs);
	s->fs.f2 = NULL;
}

static struct json_t *f2fs_to_json(const struct stack *s)
{
	const struct f2fs *fs = s->fs.f2;
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string("f2fs"));
	json_object_set_new(o, "files", json_integer(s->nfiles));
	json_object_set_new(o, "main_segments", json_integer(fs->nsegs));
	json_object_set_new(o, "free_segments", json_integer(fs->free_segs));
	json_object_set_new(o, "prefree_segments", json_integer(fs->prefree_segs));
	json_object_set_new(o, "valid_blocks", json_integer((json_int_t)fs->valid_blocks));
	json_object_set_new(o, "opu_blocks", json_integer((json_int_t)fs->opu_blocks));
	json_object_set_new(o, "ipu_blocks", json_integer((json_int_t)fs->ipu_blocks));
	static const char *const logn[] = { "hot_data", "warm_data", "cold_data",
					    "hot_node", "warm_node", "cold_node" };
	json_t *l = json_object();
	for (int i = 0; i < F2FS_NR_LOGS; i++)
		json_object_set_new(l, logn[i], json_integer((json_int_t)fs->log_blocks[i]));
	json_object_set_new(o, "log_blocks", l);
	json_t *cp = json_object();
	json_object_set_new(cp, "count", json_integer((json_int_t)fs->checkpoints));
	json_object_set_new(cp, "requests_fsync", json_integer((json_int_t)fs->cp_fsync));
	json_object_set_new(cp, "requests_timer", json_integer((json_int_t)fs->cp_timer_n));
	json_object_set_new(cp, "requests_gc", json_integer((json_int_t)fs->cp_gc));
	json_object_set_new(cp, "blocks", json_integer((json_int_t)fs->cp_blocks));
	json_object_set_new(cp, "node_blocks", json_integer((json_int_t)fs->cp_node_blocks));
	json_object_set_new(cp, "ns_mean", json_real(fs->checkpoints ? (double)fs->cp_ns_total /
								     (double)fs->checkpoints
								 : 0));
	json_object_set_new(cp, "ns_max", json_integer(fs->cp_ns_max));
	json_object_set_new(o, "checkpoint", cp);
	json_t *fy = json_object();
	json_object_set_new(fy, "count", json_integer((json_int_t)fs->fsyncs));
	json_object_set_new(fy, "node_blocks", json_integer((json_int_t)fs->fsync_node_blocks));
	json_object_set_new(fy, "flushes", json_integer((json_int_t)fs->fsync_flushes));
	json_object_set_new(fy, "no_io", json_integer((json_int_t)fs->fsync_no_io));
	json_object_set_new(o, "fsync", fy);
	json_t *gc = json_object();
	json_object_set_new(gc, "fg_calls", json_integer((json_int_t)fs->gc_fg_calls));
	json_object_set_new(gc, "fg_segments", json_integer((json_int_t)fs->gc_fg_segs));
	json_object_set_new(gc, "bg_segments", json_integer((json_int_t)fs->gc_bg_segs));
	json_object_set_new(gc, "moved_blocks", json_integer((json_int_t)fs->gc_moved_blocks));
	json_object_set_new(gc, "bg_skipped_busy", json_integer((json_int_t)fs->gc_bg_skipped_busy));
	json_object_set_new(o, "gc", gc);
	json_object_set_new(o, "discards", json_integer((json_int_t)fs->discards));
	json_object_set_new(o, "atomic_commits", json_integer((json_int_t)fs->atomic_commits));
	json_object_set_new(o, "atomic_pages", json_integer((json_int_t)fs->atomic_pages));
	json_object_set_new(o, "params", cfg_params_to_json(f2fs_params_table, &fs->p));
	if (fs->p.compress_algorithm != F2FS_CALG_OFF) {
		json_t *c = f2fs_compress_json(s);
		json_object_set_new(c, "params", cfg_params_to_json(f2fs_compress_table, &fs->p));
		json_object_set_new(o, "compression", c);
	}
	return o;
}

const struct fs_ops f2fs_fs_ops = {
	.name = "f2fs",
	.init = f2fs_init,
	.free = f2fs_free,
	.new_file = f2fs_new_file,
	.alloc_existing = f2fs_alloc_existing,
	.map_for_write = f2fs_map_for_write,
	.bmap = fs_map,
	.cluster_map = f2fs_cluster_map,
	.read_post = f2fs_read_post,
	.writeback_cpu = f2fs_writeback_cpu,
	.dirty_inode = f2fs_dirty_inode,
	.fsync = f2fs_fsync,
	.write_begin = f2fs_write_begin,
	.atomic = f2fs_atomic,
	.to_json = f2fs_to_json,
};
