/* F2FS compression (Linux 5.10-6.6 fs/f2fs/compress.c, data.c, f2fs.h):
 * a compressed file is written in clusters of 2^compress_log_size pages;
 * writeback of a whole cluster (every page dirty, none past i_size:
 * cluster_may_compress) compresses it (f2fs_compress_pages), and when the
 * 24-byte header plus the compressed data fit in cluster_size - 1 blocks
 * the cluster is written as those blocks (f2fs_write_compressed_pages:
 * node slot 0 becomes COMPRESS_ADDR, slots 1..n the compressed blocks,
 * written out of place, the rest NEW_ADDR - markers, no I/O); otherwise
 * it is written raw (f2fs_write_raw_pages), its compression CPU spent.
 * A read of any page of a compressed cluster reads the cluster's blocks
 * and decompresses all of it (f2fs_read_multi_pages): in the bio's end_io
 * (softirq) since Linux 6.0 [RECALL: the release; android14-6.1 has it]
 * ("f2fs: handle decompress only post processing in softirq", D. Jeong,
 * 2022; data.c f2fs_read_end_io), in the f2fs_post_read_wq workqueue
 * before (5.10-5.19).
 *
 * The simulator has no data bytes: a cluster's compressed size is its raw
 * size over compress_ratio (the workload's compressibility, an assumption),
 * spread per cluster by a hash of file and cluster. CPU per KiB comes from
 * lzbench figures (zstd README, v1.4.5 table: Core i9-9900K at 5.0 GHz,
 * Silesia) turned into cycles per byte and scaled to the phone core's
 * clock and a cycles-per-byte factor (assumed, with a range).
 *
 * Compression runs on the writer (the flusher kworker or an fsync) as a
 * burst on the CPU model, which takes an idle core when there is one and
 * otherwise queues with the tasks (CFS); it is preemptible, and its time
 * is booked to the core it began on. Softirq decompression takes an
 * idle core when there is one; when none is, it runs anyway on a busy one
 * (a softirq preempts), charged as kernel time - the preempted task's loss
 * is not modelled. The workqueue's worker is a kernel thread competing on
 * the CPU model like any task.
 *
 * Left out: the compress_cache, compress_chksum, compress_mode=user and the
 * (de)compress ioctls, F2FS_IOC_RELEASE_COMPRESS_BLOCKS (space: a
 * compressed cluster keeps its NEW_ADDR slots reserved), fs-verity and
 * encryption steps, the read-modify-write of a partly overwritten
 * compressed cluster (f2fs_prepare_compress_overwrite: the model writes the
 * dirty pages raw and maps the cluster's other pages raw without I/O,
 * counted as clusters.overwritten), readahead widened to cluster
 * boundaries, a cluster whose blocks are not contiguous (read as one run
 * from its first block), and compression of cleaning's moved blocks
 * (moved as they are, block by block, as f2fs does).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "models/fs/f2fs_int.h"
#include "sim/sim.h"

const char *const f2fs_calg_names[] = { "off", "lzo", "lz4", "zstd", "lzo-rle", NULL };
const char *const f2fs_dctx_names[] = { "softirq", "workqueue", NULL };

/* lzbench on the Silesia corpus, Core i9-9900K at 5.0 GHz, gcc 9.3 (zstd
 * README, v1.4.5 benchmark table): ratio, compression and decompression
 * MB/s. f2fs uses lzo1x_1_compress (lzo1x -1), LZ4_compress_default (lz4)
 * and zstd level F2FS_ZSTD_DEFAULT_CLEVEL 1. lzo-rle: the lzo figures -
 * lib/lzo's RLE path changes little on data without zero runs and is
 * 1.1-4.8x faster with many (D. Rodgman, Arm, "lib/lzo: performance
 * improvements", LKML 2018-11). */
static const struct {
	double ratio, c_mbps, d_mbps;
} f2fs_calg_fig[F2FS_CALG_N] = {
	[F2FS_CALG_LZO] = { 2.106, 690, 820 },
	[F2FS_CALG_LZ4] = { 2.101, 740, 4530 },
	[F2FS_CALG_ZSTD] = { 2.884, 500, 1660 },
	[F2FS_CALG_LZORLE] = { 2.106, 690, 820 },
};
#define F2FS_FIG_MHZ 5000.0 /* the measurement's clock */

/* ------------------------------------------------------ cluster rules */

uint32_t f2fs_cluster_cpages(uint32_t log, uint64_t clen)
{
	uint64_t cs = 1ull << log;
	/* f2fs_compress_pages: max_len = PAGE_SIZE * (cluster_size - 1) -
	 * COMPRESS_HEADER_SIZE; a longer output is -EAGAIN, written raw */
	uint64_t max_len = STACK_PAGE_SIZE * (cs - 1) - F2FS_COMPRESS_HEADER;
	if (clen == 0 || clen > max_len)
		return 0;
	return (uint32_t)((clen + F2FS_COMPRESS_HEADER + STACK_PAGE_SIZE - 1) / STACK_PAGE_SIZE);
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t f2fs_cluster_clen(const struct f2fs *fs, uint32_t id, uint64_t c, uint64_t gen)
{
	const struct f2fs_params *p = &fs->p;
	uint64_t rlen = STACK_PAGE_SIZE << p->compress_log_size;
	int a = p->compress_algorithm > F2FS_CALG_OFF && p->compress_algorithm < F2FS_CALG_N
			? p->compress_algorithm
			: F2FS_CALG_LZ4;
	/* compress_ratio is lz4's; another algorithm's in proportion to their
	 * Silesia ratios (assumed to carry over to the workload's data) */
	double r = p->compress_ratio * f2fs_calg_fig[a].ratio / f2fs_calg_fig[F2FS_CALG_LZ4].ratio;
	uint64_t h = mix64(mix64(((uint64_t)id << 40) ^ c) ^ (gen * 0x5851f42d4c957f2dull) ^
			   (uint64_t)p->base.layout_seed);
	double u = (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
	r *= 1.0 + p->compress_ratio_spread * (2.0 * u - 1.0);
	if (r < 0.01)
		r = 0.01;
	return (uint64_t)((double)rlen / r + 0.999999);
}

/* ----------------------------------------------------------- set-up */

static bool name_matches(const char *name, const char *list)
{
	if (!list || !*list)
		return false;
	const char *dot = strrchr(name, '.');
	const char *ext = dot ? dot + 1 : "";
	size_t el = strlen(ext);
	for (const char *q = list; *q;) {
		const char *e = strchr(q, ',');
		size_t n = e ? (size_t)(e - q) : strlen(q);
		if ((n == 1 && q[0] == '*') || (n == el && n > 0 && strncasecmp(q, ext, n) == 0))
			return true;
		q += n;
		if (*q == ',')
			q++;
	}
	return false;
}

void f2fs_compress_new_file(struct stack *s, struct stack_file *f)
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_inode *fi = f2fs_i(f);
	if (fi && fs->p.compress_algorithm != F2FS_CALG_OFF) {
		fi->compress = name_matches(f->name, fs->p.compress_extension);
		fi->cl_log = (uint8_t)fs->p.compress_log_size;
	}
}

static void post_read_run(struct stack_task *t);

int f2fs_compress_init(struct stack *s, struct sim_error *err)
{
	struct f2fs *fs = s->fs.f2;
	const struct f2fs_params *p = &fs->p;
	fs->post_tail = &fs->post_head;
	list_init(&fs->dcmp_live);
	if (p->compress_algorithm == F2FS_CALG_OFF)
		return 0;
	/* ns per KiB = 1024 B x (cycles per byte at the measurement x scale)
	 * / the phone core's clock */
	double mhz = (double)p->compress_cpu_mhz;
	double cpb_c = F2FS_FIG_MHZ / f2fs_calg_fig[p->compress_algorithm].c_mbps;
	double cpb_d = F2FS_FIG_MHZ / f2fs_calg_fig[p->compress_algorithm].d_mbps;
	fs->c_ns_per_kib = (int64_t)(1024.0 * cpb_c * p->compress_cpb_scale * 1000.0 / mhz + 0.5);
	fs->d_ns_per_kib = (int64_t)(1024.0 * cpb_d * p->compress_cpb_scale * 1000.0 / mhz + 0.5);
	fs->ncores = stack_cpu_cores(s);
	fs->c_core_ns = calloc(fs->ncores + 1, sizeof(*fs->c_core_ns));
	fs->d_core_ns = calloc(fs->ncores + 1, sizeof(*fs->d_core_ns));
	if (!fs->c_core_ns || !fs->d_core_ns)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	if (p->decompress_context == F2FS_DCTX_WORKQUEUE) {
		/* alloc_workqueue("f2fs_post_read_wq", WQ_UNBOUND | WQ_HIGHPRI, ...) */
		fs->post_read = task_new(s, "kworker/u17:0-f2fs_post_read", post_read_run, fs);
		if (!fs->post_read)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		fs->post_read->kind = "f2fs_post_read";
		fs->post_read->state = TS_IDLE;
	}
	return 0;
}

struct f2fs_dcmp {
	struct sim_event ev;
	struct list_head node;      /* f2fs.dcmp_live: freed at unmount if the run stopped first */
	struct stack *s;
	struct stack_bio *sb;
	int core;
	int64_t ns;
};

void f2fs_compress_free(struct stack *s)
{
	struct f2fs *fs = s->fs.f2;
	while (fs->dcmp_live.next && !list_empty(&fs->dcmp_live)) {
		struct f2fs_dcmp *d = list_first_entry(&fs->dcmp_live, struct f2fs_dcmp, node);
		sim_cancel(s->sim, &d->ev);
		list_del_init(&d->node);
		free(d);
	}
	free(fs->c_core_ns);
	free(fs->d_core_ns);
	fs->c_core_ns = fs->d_core_ns = NULL;
}

/* ----------------------------------------------------------- mapping */

int f2fs_unmap(struct stack_file *f, uint64_t page, uint64_t n)
{
	uint64_t end = page + n;
	uint32_t w = 0;
	for (uint32_t i = 0; i < f->ei.next_ext; i++) {
		struct fs_extent x = f->ei.ext[i];
		uint64_t xe = x.page + x.npages;
		if (xe <= page || x.page >= end) {
			f->ei.ext[w++] = x;
			continue;
		}
		if (x.page < page) /* the part before */
			f->ei.ext[w++] = (struct fs_extent){ x.page, x.lba, page - x.page };
		if (xe > end) { /* the part after: at most one extent splits in two */
			struct fs_extent tail = { end, x.lba + (end - x.page) * F2FS_SECTORS_PER_BLK,
						  xe - end };
			/* entries after this one all start at or after end */
			uint32_t rest = f->ei.next_ext - i - 1;
			if (w + 1 + rest > f->ei.cap_ext) {
				uint32_t cap = f->ei.cap_ext * 2 + 4;
				struct fs_extent *e = realloc(f->ei.ext, cap * sizeof(*e));
				if (!e)
					return SIM_E_NOMEM;
				f->ei.ext = e;
				f->ei.cap_ext = cap;
			}
			memmove(&f->ei.ext[w + 1], &f->ei.ext[i + 1], rest * sizeof(*f->ei.ext));
			f->ei.ext[w] = tail;
			f->ei.next_ext = w + 1 + rest;
			return 0;
		}
	}
	f->ei.next_ext = w;
	return 0;
}

static int cl_grow(struct f2fs_inode *fi, uint64_t need)
{
	if (need <= fi->ncl)
		return 0;
	uint64_t cap = fi->ncl ? fi->ncl : 64;
	while (cap < need)
		cap *= 2;
	uint8_t *b = realloc(fi->cl_blocks, cap);
	if (!b)
		return SIM_E_NOMEM;
	memset(b + fi->ncl, 0, cap - fi->ncl);
	fi->cl_blocks = b;
	fi->ncl = cap;
	return 0;
}

/* f2fs_write_compressed_pages of cluster c, stored in ncp blocks. */
static int write_compressed(struct stack *s, struct stack_file *f, uint64_t c, uint32_t ncp)
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_inode *fi = f2fs_i(f);
	uint32_t log = (uint32_t)fs->p.compress_log_size, cs = 1u << log;
	uint64_t c0 = c << log;
	for (uint32_t i = 0; i < cs; i++) {
		uint64_t old = fs_map(f, c0 + i, NULL);
		if (old != UINT64_MAX) {
			f2fs_invalidate(s, (old - fs->main_lba) / F2FS_SECTORS_PER_BLK);
			if (fi->data_blocks)
				fi->data_blocks--;
		}
	}
	if (f2fs_unmap(f, c0, cs))
		return SIM_E_NOMEM;
	uint64_t run_page = 0, run_lba = 0, run_n = 0;
	for (uint32_t j = 1; j <= ncp; j++) {
		struct f2fs_sum sum = { f->id + 1, (uint32_t)(c0 + j) };
		uint64_t blk = f2fs_alloc_block(s, (enum f2fs_log)fi->log, sum);
		if (blk == UINT64_MAX)
			return SIM_E_RUNTIME;
		uint64_t lba = f2fs_blk_lba(fs, blk);
		fi->data_blocks++;
		fs->opu_blocks++;
		if (run_n && run_lba + run_n * F2FS_SECTORS_PER_BLK == lba) {
			run_n++;
			continue;
		}
		if (run_n && f2fs_remap(f, run_page, run_lba, run_n))
			return SIM_E_NOMEM;
		run_page = c0 + j;
		run_lba = lba;
		run_n = 1;
	}
	if (run_n && f2fs_remap(f, run_page, run_lba, run_n))
		return SIM_E_NOMEM;
	/* COMPRESS_ADDR in slot 0 and the new addresses dirty the dnode(s) */
	f2fs_mark_node_dirty(s, f, f2fs_node_of(c0));
	f2fs_mark_node_dirty(s, f, f2fs_node_of(c0 + cs - 1));
	fi->append_write = true;
	fi->cl_blocks[c] = (uint8_t)ncp;
	fs->cl_compressed++;
	fs->c_blocks_saved += cs - ncp;
	fs->c_write_sectors += (uint64_t)ncp * F2FS_SECTORS_PER_BLK;
	return 0;
}

int f2fs_compress_map(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n,
		      int (*raw)(struct stack *, struct stack_file *, uint64_t, uint64_t))
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_inode *fi = f2fs_i(f);
	uint32_t log = (uint32_t)fs->p.compress_log_size, cs = 1u << log;
	uint64_t end = index + n, eof = pages_of(f->size);
	if (cl_grow(fi, ((end + cs - 1) >> log) + 1))
		return SIM_E_NOMEM;
	for (uint64_t p = index; p < end;) {
		uint64_t c = p >> log, c0 = c << log, cend = c0 + cs;
		if (p == c0 && cend <= end && cend <= eof && !f->ei.atomic && !fi->atomic_commit &&
		    pc_dirty_run(f, c0, cs) == cs) {
			/* cluster_may_compress: full, inside i_size, not an
			 * atomic file; the CPU is spent whether or not it saves
			 * a block */
			fs->c_owed_ns += (int64_t)cs * (STACK_PAGE_SIZE / 1024) * fs->c_ns_per_kib;
			uint32_t ncp = f2fs_cluster_cpages(log, f2fs_cluster_clen(fs, f->id, c, 0));
			int rc;
			if (ncp) {
				rc = write_compressed(s, f, c, ncp);
			} else {
				fs->cl_raw++;
				fi->cl_blocks[c] = 0;
				rc = raw(s, f, c0, cs);
			}
			if (rc)
				return rc;
			p = cend;
			continue;
		}
		uint64_t q = cend < end ? cend : end;
		if (fi->cl_blocks[c]) {
			/* part of a compressed cluster: the whole cluster becomes raw */
			fs->cl_overwrite++;
			fi->cl_blocks[c] = 0;
			int rc = raw(s, f, c0, cs);
			if (rc)
				return rc;
		} else {
			if (p == c0 || p == index)
				fs->cl_partial++;
			int rc = raw(s, f, p, q - p);
			if (rc)
				return rc;
		}
		p = q;
	}
	return 0;
}

int f2fs_compress_existing_page(struct stack *s, struct stack_file *f, uint64_t npages,
				 uint64_t page)
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_inode *fi = f2fs_i(f);
	uint32_t log = fi->cl_log, cs = 1u << log;
	uint64_t c = page >> log, c0 = c << log;
	if (page == c0) {
		if (cl_grow(fi, c + 1))
			return -1;
		fi->cl_blocks[c] = (uint8_t)(c0 + cs <= npages ? f2fs_cluster_cpages(
						     log, f2fs_cluster_clen(fs, f->id, c, 0))
							     : 0);
	}
	uint32_t ncp = c < fi->ncl ? fi->cl_blocks[c] : 0;
	return !ncp || (page > c0 && page <= c0 + ncp);
}

bool f2fs_cluster_map(const struct stack_file *f, uint64_t index, struct fs_cluster_map *m)
{
	const struct f2fs_inode *fi = f2fs_i(f);
	if (!fi || !fi->cl_blocks)
		return false;
	uint32_t log = fi->cl_log;
	uint64_t c = index >> log;
	if (c >= fi->ncl || !fi->cl_blocks[c])
		return false;
	m->first = c << log;
	m->npages = 1u << log;
	m->lba = fs_map(f, m->first + 1, NULL);
	m->nsect = (uint32_t)fi->cl_blocks[c] * F2FS_SECTORS_PER_BLK;
	return m->lba != UINT64_MAX;
}

/* ------------------------------------------------------------- CPU */

static int64_t compress_section(struct stack_task *t, int64_t now)
{
	struct f2fs *fs = t->stack->fs.f2;
	(void)now;
	fs->c_core_ns[t->core >= 0 && (uint32_t)t->core < fs->ncores ? (uint32_t)t->core
								    : fs->ncores] += t->sect_cpu;
	return t->sect_cpu;
}

enum step f2fs_writeback_cpu(struct stack_task *t)
{
	struct f2fs *fs = t->stack->fs.f2;
	if (fs->c_owed_ns <= 0)
		return STEP_DONE;
	t->sect_hold = 0;
	t->sect_cpu = fs->c_owed_ns;
	fs->c_cpu_ns += fs->c_owed_ns;
	fs->c_owed_ns = 0;
	if (cpu_run_section(t, compress_section, true))
		return STEP_DONE;
	/* f2fs_write_cache_pages is preemptible kernel code: the burst
	 * slices and yields like a task's (booked to the core it began on) */
	t->nopreempt = false;
	return STEP_BLOCK;
}

static int64_t cluster_dcmp_ns(const struct f2fs *fs)
{
	return (int64_t)(STACK_PAGE_SIZE / 1024 << fs->p.compress_log_size) * fs->d_ns_per_kib;
}

static void softirq_done(struct sim *sim, struct sim_event *ev)
{
	struct f2fs_dcmp *d = container_of(ev, struct f2fs_dcmp, ev);
	(void)sim;
	list_del_init(&d->node);
	if (d->core >= 0)
		stack_cpu_release(d->s, d->core, d->ns);
	mpage_read_done(d->s, d->sb);
	free(d);
}

static void post_wake(struct stack *s, struct stack_task *k)
{
	if (k->state == TS_IDLE) {
		k->state = TS_READY;
		sim_at(s->sim, &k->run_ev, sim_now(s->sim));
	}
}

bool f2fs_read_post(struct stack *s, struct stack_bio *sb)
{
	struct f2fs *fs = s->fs.f2;
	int64_t ns = cluster_dcmp_ns(fs);
	fs->cl_reads++;
	fs->d_cpu_ns += ns;
	if (fs->p.decompress_context == F2FS_DCTX_WORKQUEUE && fs->post_read) {
		sb->free_next = NULL;
		*fs->post_tail = sb;
		fs->post_tail = &sb->free_next;
		post_wake(s, fs->post_read);
		return true;
	}
	struct f2fs_dcmp *d = calloc(1, sizeof(*d));
	if (!d) {
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory (f2fs decompression)");
		return false;
	}
	d->s = s;
	d->sb = sb;
	d->ns = ns;
	d->core = stack_cpu_hold(s);
	if (d->core < 0) {
		/* no idle core: the softirq runs on a busy one */
		fs->d_softirq_nocore++;
		stack_cpu_charge(s, ns);
	}
	fs->d_core_ns[d->core >= 0 ? (uint32_t)d->core : fs->ncores] += ns;
	list_add_tail(&d->node, &fs->dcmp_live);
	sim_event_init(&d->ev, softirq_done);
	sim_after(s->sim, &d->ev, ns);
	return true;
}

static int64_t post_read_section(struct stack_task *t, int64_t now)
{
	struct f2fs *fs = t->data;
	(void)now;
	fs->d_core_ns[t->core >= 0 && (uint32_t)t->core < fs->ncores ? (uint32_t)t->core
								    : fs->ncores] += t->sect_cpu;
	return t->sect_cpu;
}

/* f2fs_post_read_work: one bio's clusters at a time, then its pages end. */
static void post_read_run(struct stack_task *t)
{
	struct f2fs *fs = t->data;
	struct stack *s = t->stack;
	for (;;) {
		if (fs->post_cur) {
			struct stack_bio *sb = fs->post_cur;
			fs->post_cur = NULL;
			mpage_read_done(s, sb);
		}
		struct stack_bio *sb = fs->post_head;
		if (!sb)
			return;
		fs->post_head = sb->free_next;
		if (!fs->post_head)
			fs->post_tail = &fs->post_head;
	list_init(&fs->dcmp_live);
		sb->free_next = NULL;
		fs->post_cur = sb;
		t->sect_hold = 0;
		t->sect_cpu = cluster_dcmp_ns(fs);
		if (!cpu_run_section(t, post_read_section, true)) {
			t->nopreempt = false; /* a kworker: preemptible */
			return; /* resumed at the burst's end */
		}
	}
}

/* ------------------------------------------------------------ result */

static json_t *core_array(const int64_t *v, uint32_t n)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

struct json_t *f2fs_compress_json(const struct stack *s)
{
	const struct f2fs *fs = s->fs.f2;
	const struct f2fs_params *p = &fs->p;
	json_t *o = json_object();
	json_object_set_new(o, "algorithm", json_string(f2fs_calg_names[p->compress_algorithm]));
	json_object_set_new(o, "log_cluster_size", json_integer(p->compress_log_size));
	json_object_set_new(o, "decompress_context",
			    json_string(f2fs_dctx_names[p->decompress_context]));
	json_object_set_new(o, "compress_ns_per_kib", json_integer(fs->c_ns_per_kib));
	json_object_set_new(o, "decompress_ns_per_kib", json_integer(fs->d_ns_per_kib));
	json_t *cl = json_object();
	json_object_set_new(cl, "compressed", json_integer((json_int_t)fs->cl_compressed));
	json_object_set_new(cl, "raw_no_saving", json_integer((json_int_t)fs->cl_raw));
	json_object_set_new(cl, "raw_partial", json_integer((json_int_t)fs->cl_partial));
	json_object_set_new(cl, "overwritten", json_integer((json_int_t)fs->cl_overwrite));
	json_object_set_new(cl, "reads", json_integer((json_int_t)fs->cl_reads));
	json_object_set_new(o, "clusters", cl);
	json_object_set_new(o, "blocks_saved", json_integer((json_int_t)fs->c_blocks_saved));
	json_object_set_new(o, "bytes_saved",
			    json_integer((json_int_t)(fs->c_blocks_saved * STACK_PAGE_SIZE)));
	json_object_set_new(o, "compressed_write_bytes",
			    json_integer((json_int_t)(fs->c_write_sectors << SECTOR_SHIFT)));
	json_object_set_new(o, "compress_cpu_ns", json_integer(fs->c_cpu_ns));
	json_object_set_new(o, "decompress_cpu_ns", json_integer(fs->d_cpu_ns));
	/* by core; the last entry: no core was idle (softirq on a busy one) */
	json_object_set_new(o, "compress_cpu_ns_by_core", core_array(fs->c_core_ns, fs->ncores + 1));
	json_object_set_new(o, "decompress_cpu_ns_by_core",
			    core_array(fs->d_core_ns, fs->ncores + 1));
	json_object_set_new(o, "decompress_softirq_no_idle_core",
			    json_integer((json_int_t)fs->d_softirq_nocore));
	return o;
}
