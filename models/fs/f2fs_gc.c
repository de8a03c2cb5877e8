/* F2FS checkpoint and segment cleaning, run by one f2fs kernel thread
 * (Linux 5.15 fs/f2fs/checkpoint.c f2fs_write_checkpoint/do_checkpoint,
 * gc.c gc_thread_func/f2fs_gc/get_victim_by_default, segment.c
 * f2fs_balance_fs; mount option checkpoint_merge, Android's default since
 * 5.10, runs checkpoints in the f2fs_ckpt thread as the model does).
 *
 * Checkpoint - asked for by fsync when need_do_checkpoint() holds, by
 * cleaning (prefree segments become free only after one), and every
 * cp_interval (60 s) when anything is dirty: (1) block_operations: every
 * dirty node page goes to its log (REQ_SYNC), waited for; (2) NAT and SIT
 * blocks whose entries changed, unless they fit in the summary journal
 * (38 NAT / 6 SIT entries), then the checkpoint pack's head and three
 * data-summary blocks, waited for; (3) the pack's last block with
 * REQ_PREFLUSH | REQ_FUA (META_FLUSH). Then prefree segments are free and,
 * with `discard`, trimmed.
 * Foreground cleaning - a writer finds free segments at or below
 * reserved_segments (+ the segments dirty node pages will need):
 * f2fs_balance_fs makes it wait while the thread checkpoints away prefree
 * segments, then cleans greedy victims (fewest valid blocks) one segment
 * at a time, each read and rewritten with REQ_SYNC into the cold data log
 * (data) or the node log, until enough are free, and checkpoints.
 * Background cleaning - the thread sleeps gc_min_sleep (30 s), longer
 * (+30 s up to 60 s) while the device is busy or little is invalid,
 * shorter when much is, 300 s when there is no victim; when the device
 * has been idle for idle_interval (no request in flight and none from
 * the file system in 5 s) it cleans one cost-benefit victim
 * ((1 - u) * age / (1 + u)) with async writes.
 * Left out: the writer itself doing the cleaning under gc_lock (here the
 * thread does it at its own ioprio and the writer waits), cleaning by
 * moving pages through the page cache (BG moves are written at once),
 * urgent/idle GC modes, SSR, orphan blocks, and the flusher's own
 * balance_fs (writeback does not stop for cleaning).
 */
#include <jansson.h>

#include "models/fs/f2fs_int.h"
#include "sim/sim.h"

enum {
	K_IDLE = 0,
	K_GC_PICK,
	K_GC_READ,
	K_GC_READ_WAIT,
	K_GC_WRITE,
	K_GC_WRITE_WAIT,
	K_CP_NODES,
	K_CP_NODES_WAIT,
	K_CP_META,
	K_CP_META_WAIT,
	K_CP_COMMIT_WAIT,
};

/* checkpoint.c do_checkpoint: cp head, 3 data summaries (no compaction),
 * cp tail. */
#define F2FS_CP_SUMMARY_BLOCKS 3u

static void kt_kick(struct stack *s)
{
	struct stack_task *k = s->fs.f2->kt;
	if (k && k->state == TS_IDLE) {
		k->state = TS_READY;
		sim_at(s->sim, &k->run_ev, sim_now(s->sim));
	}
}

void f2fs_note_request(struct stack *s)
{
	s->fs.f2->last_req_ns = sim_now(s->sim);
}

static bool anything_dirty(const struct f2fs *fs)
{
	return fs->dirty_nodes || fs->dirty_nat || fs->dirty_sit || fs->prefree_segs;
}

static void cp_timer_event(struct sim *sim, struct sim_event *ev)
{
	struct f2fs *fs = container_of(ev, struct f2fs, cp_timer);
	struct stack *s = fs->kt->stack;
	if (anything_dirty(fs) && fs->cp_request <= fs->cp_done) {
		fs->cp_request = fs->cp_done + 1;
		fs->cp_timer_n++;
		kt_kick(s);
	}
	sim_after(sim, &fs->cp_timer, fs->p.cp_interval_ns);
}

static void gc_timer_event(struct sim *sim, struct sim_event *ev)
{
	struct f2fs *fs = container_of(ev, struct f2fs, gc_timer);
	(void)sim;
	fs->bg_gc_due = true;
	kt_kick(fs->kt->stack);
}

int f2fs_kthread_init(struct stack *s, struct sim_error *err)
{
	struct f2fs *fs = s->fs.f2;
	fs->kt = task_new(s, "f2fs_gc-254:48", f2fs_kthread_run, fs);
	if (!fs->kt)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	fs->kt->kind = "fs";
	task_set_ioprio(fs->kt, (uint8_t)fs->p.ioprio_class, (uint8_t)fs->p.ioprio_level);
	fs->kt->state = TS_IDLE;
	sim_event_init(&fs->cp_timer, cp_timer_event);
	sim_event_init(&fs->gc_timer, gc_timer_event);
	sim_after(s->sim, &fs->cp_timer, fs->p.cp_interval_ns);
	fs->gc_wait_ns = fs->p.gc_min_sleep_ns;
	if (fs->p.background_gc)
		sim_after(s->sim, &fs->gc_timer, fs->gc_wait_ns);
	fs->last_req_ns = 0;
	return 0;
}

void f2fs_kthread_free(struct stack *s)
{
	struct f2fs *fs = s->fs.f2;
	sim_cancel(s->sim, &fs->cp_timer);
	sim_cancel(s->sim, &fs->gc_timer);
}

/* ------------------------------------------------------------ waiting */

static void wake_waiters(struct stack *s)
{
	struct f2fs *fs = s->fs.f2;
	struct list_head *pos, *tmp;
	list_for_each_safe(pos, tmp, &fs->waiters) {
		struct stack_task *t = list_entry(pos, struct stack_task, jwait_node);
		bool gc = t->wait_cause == SIM_WAIT_FS_GC;
		if ((gc && t->wait_tid <= fs->fg_gc_done) || (!gc && t->wait_tid <= fs->cp_done))
			task_wake(t);
	}
}

enum step f2fs_wait_checkpoint(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct f2fs *fs = s->fs.f2;
	if (t->wait_tid && t->wait_tid <= fs->cp_done) {
		t->wait_tid = 0;
		return STEP_DONE;
	}
	/* a checkpoint already running may have missed this task's data */
	uint64_t want = fs->cp_done + (fs->kt->os.phase >= K_CP_NODES ? 2 : 1);
	if (fs->cp_request < want)
		fs->cp_request = want;
	t->wait_tid = want;
	list_add_tail(&t->jwait_node, &fs->waiters);
	task_block(t, SIM_WAIT_CHECKPOINT);
	kt_kick(s);
	return STEP_BLOCK;
}

enum step f2fs_balance_fs(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct f2fs *fs = s->fs.f2;
	if (t->wait_tid && t->wait_tid <= fs->fg_gc_done) {
		t->wait_tid = 0; /* one f2fs_gc call per balance, done */
		return STEP_DONE;
	}
	if (!f2fs_low_free(s))
		return STEP_DONE;
	if (!fs->fg_gc_request) {
		fs->fg_gc_request = true;
		fs->gc_fg_calls++;
	}
	t->wait_tid = fs->fg_gc_done + 1;
	list_add_tail(&t->jwait_node, &fs->waiters);
	task_block(t, SIM_WAIT_FS_GC);
	kt_kick(s);
	return STEP_BLOCK;
}

/* ------------------------------------------------------------ victims */

static uint32_t pick_victim(const struct stack *s, bool greedy)
{
	const struct f2fs *fs = s->fs.f2;
	int64_t tmin = INT64_MAX, tmax = INT64_MIN;
	if (!greedy) {
		for (uint32_t i = 0; i < fs->nsegs; i++) {
			const struct f2fs_seg *sg = &fs->seg[i];
			if (sg->state != SEG_DIRTY)
				continue;
			tmin = sg->mtime < tmin ? sg->mtime : tmin;
			tmax = sg->mtime > tmax ? sg->mtime : tmax;
		}
	}
	uint32_t best = UINT32_MAX;
	double best_v = 0;
	for (uint32_t i = 0; i < fs->nsegs; i++) {
		const struct f2fs_seg *sg = &fs->seg[i];
		if (sg->state != SEG_DIRTY || sg->valid >= F2FS_BLKS_PER_SEG)
			continue;
		double v;
		if (greedy) {
			v = -(double)sg->valid;
		} else {
			/* gc.c get_cb_cost: (100 - u) * age / (100 + u) */
			double u = (double)sg->valid / F2FS_BLKS_PER_SEG;
			double age = tmax > tmin ? 1.0 - (double)(sg->mtime - tmin) / (double)(tmax - tmin)
						 : 1.0;
			v = (1 - u) * age / (1 + u);
		}
		if (best == UINT32_MAX || v > best_v) {
			best = i;
			best_v = v;
		}
	}
	return best;
}

/* gc.h has_enough_invalid_blocks */
static bool enough_invalid(const struct f2fs *fs)
{
	uint64_t user = (uint64_t)fs->nsegs * F2FS_BLKS_PER_SEG;
	uint64_t invalid = user - fs->valid_blocks;
	uint64_t free_user = fs->free_segs > (uint32_t)fs->p.reserved_segments
				     ? (uint64_t)(fs->free_segs - (uint32_t)fs->p.reserved_segments) *
					       F2FS_BLKS_PER_SEG
				     : 0;
	return invalid > user * 40 / 100 && free_user < invalid * 40 / 100;
}

static bool device_idle(const struct stack *s)
{
	const struct f2fs *fs = s->fs.f2;
	if (s->q && (blk_queue_in_flight(s->q, true) || blk_queue_in_flight(s->q, false)))
		return false;
	return sim_now(s->sim) - fs->last_req_ns >= fs->p.idle_interval_ns;
}

static void gc_sleep(struct stack *s)
{
	struct f2fs *fs = s->fs.f2;
	sim_cancel(s->sim, &fs->gc_timer);
	sim_after(s->sim, &fs->gc_timer, fs->gc_wait_ns);
}

/* gc.h increase_sleep_time / decrease_sleep_time */
static void gc_slower(struct f2fs *fs)
{
	if (fs->gc_wait_ns == fs->p.gc_nogc_sleep_ns)
		return;
	fs->gc_wait_ns += fs->p.gc_min_sleep_ns;
	if (fs->gc_wait_ns > fs->p.gc_max_sleep_ns)
		fs->gc_wait_ns = fs->p.gc_max_sleep_ns;
}

static void gc_faster(struct f2fs *fs)
{
	if (fs->gc_wait_ns == fs->p.gc_nogc_sleep_ns)
		fs->gc_wait_ns = fs->p.gc_max_sleep_ns;
	if (fs->gc_wait_ns - fs->p.gc_min_sleep_ns <= fs->p.gc_min_sleep_ns)
		fs->gc_wait_ns = fs->p.gc_min_sleep_ns;
	else
		fs->gc_wait_ns -= fs->p.gc_min_sleep_ns;
}

/* ---------------------------------------------------------- the I/O */

static void queue_bio(struct stack_bio *sb, struct stack_bio ***tail)
{
	**tail = sb;
	*tail = &sb->free_next;
}

static struct stack_bio **pend_tail(struct stack_task *k)
{
	struct stack_bio **tail = &k->wb.pend;
	while (*tail)
		tail = &(*tail)->free_next;
	return tail;
}

/* Runs of valid blocks of the victim, as read bios. */
static void gc_read(struct stack *s, struct stack_task *k, uint32_t v)
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_seg *sg = &fs->seg[v];
	struct stack_bio **tail = pend_tail(k);
	uint64_t maxs = s->fs.p.max_bio_bytes >> SECTOR_SHIFT;
	struct stack_bio *last = NULL;
	for (uint32_t o = 0; o < F2FS_BLKS_PER_SEG; o++) {
		bool valid = sg->sum ? sg->sum[o].owner != 0 : o < sg->valid;
		if (!valid) {
			last = NULL;
			continue;
		}
		uint64_t lba = f2fs_blk_lba(fs, (uint64_t)v * F2FS_BLKS_PER_SEG + o);
		if (last && last->bio.nr_sectors + F2FS_SECTORS_PER_BLK <= maxs) {
			last->bio.nr_sectors += F2FS_SECTORS_PER_BLK;
			continue;
		}
		last = f2fs_bio(s, k, lba, F2FS_SECTORS_PER_BLK, REQ_SYNC);
		if (!last)
			return;
		queue_bio(last, &tail);
	}
}

/* Move every still-valid block of the victim to a new block and write. */
static void gc_write(struct stack *s, struct stack_task *k, uint32_t v, bool fg)
{
	struct f2fs *fs = s->fs.f2;
	struct f2fs_seg *sg = &fs->seg[v];
	if (sg->state != SEG_DIRTY)
		return;
	if (f2fs_seg_sum(sg)) {
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory (f2fs summary)");
		return;
	}
	struct stack_bio **tail = pend_tail(k);
	uint64_t maxs = s->fs.p.max_bio_bytes >> SECTOR_SHIFT;
	struct stack_bio *last = NULL;
	uint32_t flags = REQ_WRITE | (fg ? REQ_SYNC : 0);
	for (uint32_t o = 0; o < F2FS_BLKS_PER_SEG && sg->valid > 0; o++) {
		struct f2fs_sum sum = sg->sum[o];
		if (sum.owner == 0)
			continue;
		uint64_t old = (uint64_t)v * F2FS_BLKS_PER_SEG + o;
		bool node = sum.owner != F2FS_SUM_ANON && (sum.owner & F2FS_SUM_NODE);
		uint64_t blk = f2fs_alloc_block(s, node ? F2FS_WARM_NODE : F2FS_COLD_DATA, sum);
		if (blk == UINT64_MAX) {
			sim_fail(s->sim, SIM_E_RUNTIME, "f2fs: no free segment while cleaning");
			return;
		}
		struct stack_file *f =
			sum.owner == F2FS_SUM_ANON
				? NULL
				: f2fs_file_by_id(fs, (sum.owner & ~F2FS_SUM_NODE) - 1);
		struct f2fs_inode *fi = f ? f2fs_i(f) : NULL;
		if (fi && node) {
			if (sum.index < fi->nnodes && fi->node_blk[sum.index] == old) {
				fi->node_blk[sum.index] = blk;
				if (sum.index == 0)
					f->ei.inode_lba = f2fs_blk_lba(fs, blk);
			}
			fs->dirty_nat++;
		} else if (fi) {
			if (fs_map(f, sum.index, NULL) == f2fs_blk_lba(fs, old)) {
				if (f2fs_remap(f, sum.index, f2fs_blk_lba(fs, blk), 1)) {
					sim_fail(s->sim, SIM_E_NOMEM, "out of memory (f2fs remap)");
					return;
				}
				f2fs_mark_node_dirty(s, f, f2fs_node_of(sum.index));
			}
		}
		f2fs_invalidate(s, old);
		fs->gc_moved_blocks++;
		uint64_t lba = f2fs_blk_lba(fs, blk);
		if (last && last->bio.sector + last->bio.nr_sectors == lba &&
		    last->bio.nr_sectors + F2FS_SECTORS_PER_BLK <= maxs) {
			last->bio.nr_sectors += F2FS_SECTORS_PER_BLK;
			continue;
		}
		last = f2fs_bio(s, k, lba, F2FS_SECTORS_PER_BLK, flags);
		if (!last)
			return;
		queue_bio(last, &tail);
	}
}

static uint32_t write_run(struct stack *s, struct stack_task *k, uint64_t lba, uint64_t nblk,
			  uint32_t flags)
{
	struct stack_bio **tail = pend_tail(k);
	uint64_t maxs = s->fs.p.max_bio_bytes >> SECTOR_SHIFT;
	uint64_t left = nblk * F2FS_SECTORS_PER_BLK;
	uint32_t nb = 0;
	while (left > 0) {
		uint64_t n = left < maxs ? left : maxs;
		struct stack_bio *sb = f2fs_bio(s, k, lba, (uint32_t)n, flags);
		if (!sb)
			return nb;
		queue_bio(sb, &tail);
		lba += n;
		left -= n;
		nb++;
	}
	return nb;
}

static void cp_finish(struct stack *s)
{
	struct f2fs *fs = s->fs.f2;
	struct stack_task *k = fs->kt;
	/* prefree -> free, trimmed (segment.c f2fs_clear_prefree_segments) */
	uint32_t run_start = 0, run_n = 0;
	for (uint32_t i = 0; i <= fs->nsegs; i++) {
		bool pf = i < fs->nsegs && fs->seg[i].state == SEG_PREFREE;
		if (pf) {
			struct f2fs_seg *sg = &fs->seg[i];
			sg->state = SEG_FREE;
			sg->valid = 0;
			sg->next = 0;
			fs->prefree_segs--;
			fs->free_segs++;
			if (run_n == 0)
				run_start = i;
			run_n++;
			continue;
		}
		if (run_n && fs->p.discard) {
			uint64_t lba = f2fs_blk_lba(fs, (uint64_t)run_start * F2FS_BLKS_PER_SEG);
			uint64_t sect = (uint64_t)run_n * F2FS_BLKS_PER_SEG * F2FS_SECTORS_PER_BLK;
			while (sect > 0) {
				uint32_t n = sect > (1u << 20) ? (1u << 20) : (uint32_t)sect;
				struct stack_bio *sb = f2fs_bio(s, NULL, lba, n, REQ_WRITE | REQ_DISCARD);
				if (!sb)
					break;
				sb->free_next = k->wb.pend;
				k->wb.pend = sb;
				fs->discards++;
				lba += n;
				sect -= n;
			}
		}
		run_n = 0;
	}
	for (uint32_t i = 0; i < fs->nsegs; i++)
		fs->seg[i].sit_dirty = false;
	fs->dirty_sit = 0;
	fs->dirty_nat = 0;
	/* the checkpoint makes every inode durable: APPEND/UPDATE_INO released */
	struct list_head *pos;
	list_for_each(pos, &s->files) {
		struct stack_file *f = list_entry(pos, struct stack_file, all_node);
		struct f2fs_inode *fi = f2fs_i(f);
		if (fi) {
			fi->append_write = fi->update_write = false;
			fi->inode_dirty = fi->size_dirty = false;
		}
	}
	fs->checkpoints++;
	int64_t d = sim_now(s->sim) - k->os.start_ns;
	fs->cp_ns_total += d;
	if (d > fs->cp_ns_max)
		fs->cp_ns_max = d;
	fs->cp_last_ns = sim_now(s->sim);
	fs->cp_done = k->os.tid;
	fs->cp_pack ^= 1;
	wake_waiters(s);
}

static void fg_round_done(struct stack *s)
{
	struct f2fs *fs = s->fs.f2;
	fs->fg_gc_request = false;
	fs->gc_fg = false;
	fs->gc_freed = 0;
	fs->fg_gc_done++;
	wake_waiters(s);
}

/* Submit what is pending and wait for the counted bios. */
static enum step kt_io(struct stack_task *k)
{
	if (task_submit_pending(k) == STEP_BLOCK)
		return STEP_BLOCK;
	task_finish_plug(k);
	if (k->wb.left > 0) {
		task_block(k, SIM_WAIT_SYNC_IO);
		return STEP_BLOCK;
	}
	return STEP_DONE;
}

static void start_cp(struct stack *s, struct stack_task *k)
{
	struct f2fs *fs = s->fs.f2;
	k->os.tid = fs->cp_request > fs->cp_done ? fs->cp_request : fs->cp_done + 1;
	k->os.start_ns = sim_now(s->sim);
	k->os.phase = K_CP_NODES;
}

void f2fs_kthread_run(struct stack_task *k)
{
	struct stack *s = k->stack;
	struct f2fs *fs = s->fs.f2;
	struct task_opstate *os = &k->os;
	for (;;) {
		switch (os->phase) {
		case K_IDLE:
			if (task_submit_pending(k) == STEP_BLOCK) /* discards */
				return;
			if (fs->fg_gc_request) {
				fs->gc_fg = true;
				fs->gc_freed = 0;
				/* prefree segments first: a checkpoint frees them */
				if (fs->prefree_segs > 0) {
					fs->cp_gc++;
					start_cp(s, k);
				} else {
					os->phase = K_GC_PICK;
				}
				break;
			}
			if (fs->cp_request > fs->cp_done) {
				start_cp(s, k);
				break;
			}
			if (fs->bg_gc_due) {
				fs->bg_gc_due = false;
				if (!device_idle(s)) {
					fs->gc_bg_skipped_busy++;
					gc_slower(fs);
					gc_sleep(s);
					break;
				}
				if (enough_invalid(fs))
					gc_faster(fs);
				else
					gc_slower(fs);
				uint32_t v = pick_victim(s, false);
				if (v == UINT32_MAX) {
					fs->gc_wait_ns = fs->p.gc_nogc_sleep_ns;
					gc_sleep(s);
					break;
				}
				fs->victim = v;
				fs->gc_fg = false;
				os->phase = K_GC_READ;
				break;
			}
			return;
		case K_GC_PICK: {
			uint64_t node_segs = (fs->dirty_nodes + F2FS_BLKS_PER_SEG - 1) / F2FS_BLKS_PER_SEG;
			bool low = (uint64_t)fs->free_segs + fs->gc_freed <=
				   (uint64_t)fs->p.reserved_segments + node_segs;
			if (!low) {
				if (fs->gc_freed > 0) {
					fs->gc_freed = 0;
					fs->cp_gc++;
					start_cp(s, k);
				} else {
					fg_round_done(s);
					os->phase = K_IDLE;
				}
				break;
			}
			uint32_t v = pick_victim(s, true);
			if (v == UINT32_MAX) {
				fg_round_done(s); /* nothing to clean: the writer goes on */
				os->phase = K_IDLE;
				break;
			}
			fs->victim = v;
			os->phase = K_GC_READ;
			break;
		}
		case K_GC_READ:
			k->wb.left = 0;
			if (s->q)
				task_start_plug(k);
			gc_read(s, k, fs->victim);
			os->phase = K_GC_READ_WAIT;
			break;
		case K_GC_READ_WAIT:
			if (kt_io(k) == STEP_BLOCK)
				return;
			os->phase = K_GC_WRITE;
			break;
		case K_GC_WRITE:
			k->wb.left = 0;
			if (s->q)
				task_start_plug(k);
			gc_write(s, k, fs->victim, fs->gc_fg);
			os->phase = K_GC_WRITE_WAIT;
			break;
		case K_GC_WRITE_WAIT:
			if (kt_io(k) == STEP_BLOCK)
				return;
			if (fs->gc_fg) {
				fs->gc_fg_segs++;
				if (fs->seg[fs->victim].state == SEG_PREFREE)
					fs->gc_freed++;
				os->phase = K_GC_PICK;
			} else {
				fs->gc_bg_segs++;
				gc_sleep(s);
				os->phase = K_IDLE;
			}
			break;
		case K_CP_NODES: {
			k->wb.left = 0;
			if (s->q)
				task_start_plug(k);
			struct list_head *pos, *tmp;
			list_for_each_safe(pos, tmp, &fs->dirty_inodes) {
				struct f2fs_inode *fi = list_entry(pos, struct f2fs_inode, dirty_node);
				fs->cp_node_blocks +=
					f2fs_write_nodes(s, k, fi->file, REQ_WRITE | REQ_SYNC, 0);
			}
			os->phase = K_CP_NODES_WAIT;
			break;
		}
		case K_CP_NODES_WAIT:
			if (kt_io(k) == STEP_BLOCK)
				return;
			os->phase = K_CP_META;
			break;
		case K_CP_META: {
			k->wb.left = 0;
			if (s->q)
				task_start_plug(k);
			uint32_t meta = REQ_WRITE | REQ_SYNC | REQ_META | REQ_PRIO;
			uint64_t nat = fs->dirty_nat > F2FS_NAT_JOURNAL
					       ? (fs->dirty_nat + F2FS_NAT_PER_BLOCK - 1) / F2FS_NAT_PER_BLOCK
					       : 0;
			uint64_t sit = fs->dirty_sit > F2FS_SIT_JOURNAL
					       ? (fs->dirty_sit + F2FS_SIT_PER_BLOCK - 1) / F2FS_SIT_PER_BLOCK
					       : 0;
			if (nat)
				write_run(s, k, fs->nat_lba, nat, meta);
			if (sit)
				write_run(s, k, fs->sit_lba, sit, meta);
			uint64_t pack = fs->cp_lba + (uint64_t)fs->cp_pack * F2FS_BLKS_PER_SEG *
							     F2FS_SECTORS_PER_BLK;
			write_run(s, k, pack, 1 + F2FS_CP_SUMMARY_BLOCKS, meta);
			fs->cp_blocks += nat + sit + 1 + F2FS_CP_SUMMARY_BLOCKS + 1;
			os->phase = K_CP_META_WAIT;
			break;
		}
		case K_CP_META_WAIT: {
			if (kt_io(k) == STEP_BLOCK)
				return;
			uint64_t pack = fs->cp_lba + (uint64_t)fs->cp_pack * F2FS_BLKS_PER_SEG *
							     F2FS_SECTORS_PER_BLK;
			write_run(s, k, pack + (1 + F2FS_CP_SUMMARY_BLOCKS) * F2FS_SECTORS_PER_BLK, 1,
				  REQ_WRITE | REQ_SYNC | REQ_META | REQ_PRIO | REQ_FLUSH | REQ_FUA);
			os->phase = K_CP_COMMIT_WAIT;
			break;
		}
		case K_CP_COMMIT_WAIT:
			if (kt_io(k) == STEP_BLOCK)
				return;
			cp_finish(s);
			os->phase = fs->gc_fg ? K_GC_PICK : K_IDLE;
			break;
		}
	}
}
