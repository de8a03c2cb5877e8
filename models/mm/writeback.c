/* Dirty page accounting, dirty throttling and the flusher thread
 * (Linux 3.10 mm/page-writeback.c, fs/fs-writeback.c).
 *
 * Thresholds (global_dirty_limits): dirtyable memory is the page cache's
 * capacity (free + file pages); background = dirty_background_bytes or
 * dirty_background_ratio % of it, limit = dirty_bytes or dirty_ratio %;
 * a background threshold at or above the limit becomes limit/2.
 *
 * Throttling (balance_dirty_pages, IO-less since 3.2), simplified: a task
 * is checked every nr_dirtied_pause pages it dirtied. With
 * D = dirty + writeback pages and freerun = (background + limit)/2, no
 * throttling at or below freerun (nr_dirtied_pause becomes
 * dirty_poll_interval = 2^(ilog2(limit - D)/2)). Above it, the global
 * position control of bdi_position_ratio: setpoint = (freerun + limit)/2,
 * x = (setpoint - D)/(limit - setpoint + 1), pos_ratio = 1 + x^3 clamped to
 * [0, 2]; task_ratelimit = write_bw * pos_ratio pages/s, where write_bw is
 * the flusher's measured bandwidth (bdi_update_write_bandwidth: 200 ms
 * samples, 3 s averaging window, starting at INIT_BW = 100 MiB/s) standing
 * in for bdi->dirty_ratelimit (which converges to it for one writer); the
 * pause is pages_dirtied / task_ratelimit, at most max_pause (MAX_PAUSE =
 * HZ/5 = 200 ms); pauses under min_pause_ns are not slept but carried
 * over. At or over the limit pos_ratio is 0: the task sleeps max_pause
 * and checks again, until D falls below the limit. The per-bdi part of
 * the position control and dirty_ratelimit's own feedback are left out.
 * A writer over the background threshold starts background writeback.
 *
 * Flusher (one bdi writeback thread, a kworker with its own io_context):
 * woken for background writeback, by reclaim, and every dirty_writeback
 * interval while dirty inodes exist (kupdate). 3.10 fs/fs-writeback.c
 * lists: a newly dirtied inode goes on b_dirty with dirtied_when = now;
 * when b_io is empty, queue_io() moves b_more_io and then the b_dirty
 * inodes dirtied before older_than_this (now for background work, now -
 * dirty_expire for kupdate) to b_io, eldest first; writeback_sb_inodes()
 * takes them in that order, FG's and BG's alike, writing at most
 * writeback_chunk_size() pages per inode per turn (3.2+: min(write
 * bandwidth / 2, dirty limit / DIRTY_SCOPE 8) + MIN_WRITEBACK_PAGES 1024,
 * rounded down to a multiple of 1024; MAX_WRITEBACK_PAGES = 1024 is the
 * pre-3.2 constant, kept as a fixed chunk_pages override) from the inode's
 * writeback_index onwards (range cyclic), as async WRITE bios of
 * contiguous blocks under a plug (bios at most max_bio_bytes, split at
 * extent boundaries). A run of dirty pages is mapped once (delayed
 * allocation), then its pages are cleaned and set under writeback a bio
 * at a time, each bio submitted before the next is built (6.1
 * f2fs_write_cache_pages -> f2fs_do_write_data_page ->
 * f2fs_submit_page_write), so while the flusher sleeps submitting one the
 * rest of the run is still dirty; ext4 keeps the whole run locked until
 * its pages are submitted (3.10 write_cache_pages_da ->
 * mpage_da_submit_io -> ext4_bio_write_page), which others wait on as on
 * writeback: its bios are built and marked together (fs_ops.locks_run).
 * requeue_inode(): an inode that used its whole chunk
 * and is still dirty goes to b_more_io (after every inode of this pass);
 * one that stopped early (its pages under writeback) is redirty_tail()ed
 * to b_dirty. So an inode dirtied while the flusher works waits for the
 * pass in progress and the requeued inodes before it is written.
 * Background work stops when dirty pages fall below the background
 * threshold. It sleeps in get_request when the async request list is
 * full, which is what paces it to the device. Pages dirty and under
 * writeback at once are skipped (WB_SYNC_NONE). Blocks of newly written
 * files are allocated here (delayed allocation, fs.c) and the inode joins
 * the running journal transaction's ordered list. Left out: the HZ/10
 * bail-out of writeback_sb_inodes to re-check the thresholds between
 * inodes (checked here between chunks).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include <jansson.h>

#include "models/mm/mm_inline.h"
#include "models/mm/mm.h"
#include "sim/assert.h"
#include "sim/sim.h"
#include "sim/timeline.h"

#define NS_PER_S 1000000000LL
/* mm/page-writeback.c BANDWIDTH_INTERVAL max(HZ/5, 1) */
#define WB_BW_INTERVAL_NS (200 * 1000 * 1000LL)
/* bdi_update_write_bandwidth: period = roundup_pow_of_two(3 * HZ) ~ 3 s */
#define WB_BW_PERIOD_NS (3 * NS_PER_S)
/* Shortest pause actually slept (about one jiffy at HZ=250). */
#define WB_MIN_PAUSE_NS (4 * 1000 * 1000LL)

static const struct cfg_param wb_params_table[] = {
	{ "dirty_background_ratio", CFG_T_INT, offsetof(struct wb_params, dirty_background_ratio),
	  "%", "10", 0, 100, "mm/page-writeback.c dirty_background_ratio = 10",
	  "background writeback starts above this % of dirtyable memory", NULL },
	{ "dirty_background_bytes", CFG_T_SIZE, offsetof(struct wb_params, dirty_background_bytes),
	  "B", "0", 0, 1.1e12, "mm/page-writeback.c (0 = use the ratio)",
	  "absolute background threshold", NULL },
	{ "dirty_ratio", CFG_T_INT, offsetof(struct wb_params, dirty_ratio), "%", "20", 1, 100,
	  "mm/page-writeback.c vm_dirty_ratio = 20", "dirty limit in % of dirtyable memory", NULL },
	{ "dirty_bytes", CFG_T_SIZE, offsetof(struct wb_params, dirty_bytes), "B", "0", 0, 1.1e12,
	  "mm/page-writeback.c (0 = use the ratio)", "absolute dirty limit", NULL },
	{ "dirty_expire_ms", CFG_T_TIME, offsetof(struct wb_params, dirty_expire_ns), "ms", "30s", 0,
	  3.6e6, "mm/page-writeback.c dirty_expire_interval = 30 * 100 centisecs",
	  "kupdate writes inodes dirtied longer ago than this", NULL },
	{ "dirty_writeback_ms", CFG_T_TIME, offsetof(struct wb_params, dirty_writeback_ns), "ms",
	  "5s", 1, 3.6e6, "mm/page-writeback.c dirty_writeback_interval = 5 * 100 centisecs",
	  "period of the flusher's kupdate wake-up", NULL },
	{ "max_pause_ms", CFG_T_TIME, offsetof(struct wb_params, max_pause_ns), "ms", "200", 1,
	  10000, "mm/page-writeback.c MAX_PAUSE = max(HZ/5, 1)",
	  "longest balance_dirty_pages sleep", NULL },
	{ "chunk_pages", CFG_T_INT, offsetof(struct wb_params, chunk_pages), "pages", "0", 0,
	  1 << 20,
	  "fs/fs-writeback.c writeback_chunk_size (3.2+; 0 = computed); MAX_WRITEBACK_PAGES 1024 "
	  "before 3.2",
	  "pages written per inode per flusher turn (0: min(bw/2, limit/8) + 1024 rounded down to "
	  "1024, as 3.2+)", NULL },
	{ "init_bw", CFG_T_RATE, offsetof(struct wb_params, init_bw_bps), "MiB/s", "100", 0.001,
	  1e6, "mm/page-writeback.c INIT_BW = 100 MB/s", "initial write bandwidth estimate", NULL },
	{ "throttle", CFG_T_BOOL, offsetof(struct wb_params, throttle), "", "true", CFG_NO_RANGE,
	  "mm/page-writeback.c balance_dirty_pages", "throttle dirtying tasks", NULL },
	{ "flusher_ioprio_class", CFG_T_INT, offsetof(struct wb_params, ioprio_class), "", "2", 0, 3,
	  "kworker: no ioprio set -> CFQ uses BE (include/linux/ioprio.h)",
	  "flusher I/O class (1 RT, 2 BE, 3 IDLE)", NULL },
	{ "flusher_ioprio_level", CFG_T_INT, offsetof(struct wb_params, ioprio_level), "", "4", 0, 7,
	  "task_nice_ioprio(nice 0) = (0 + 20) / 5 = 4", "flusher I/O priority level", NULL },
	CFG_PARAM_END,
};

static void wb_periodic_event(struct sim *sim, struct sim_event *ev);

void wb_update_thresholds(struct stack *s)
{
	struct writeback *wb = &s->wb;
	uint64_t dirtyable = s->pc.capacity;
	uint64_t bg = wb->p.dirty_background_bytes
			      ? pages_of(wb->p.dirty_background_bytes)
			      : dirtyable * (uint64_t)wb->p.dirty_background_ratio / 100;
	uint64_t th = wb->p.dirty_bytes ? pages_of(wb->p.dirty_bytes)
					: dirtyable * (uint64_t)wb->p.dirty_ratio / 100;
	if (th == 0)
		th = 1;
	if (bg >= th)
		bg = th / 2;
	wb->bg_thresh = bg;
	wb->thresh = th;
}

int writeback_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	struct writeback *wb = &s->wb;
	int rc = cfg_apply(wb_params_table, node, &wb->p, err);
	if (rc)
		return rc;
	list_init(&wb->dirty_inodes);
	list_init(&wb->b_io);
	list_init(&wb->b_more_io);
	list_init(&wb->wb_wait);
	sim_event_init(&wb->periodic, wb_periodic_event);
	wb->write_bw_pps = wb->p.init_bw_bps / STACK_PAGE_SIZE;
	wb_update_thresholds(s);
	wb->flusher = task_new(s, "kworker/u16:1", flusher_run, wb);
	if (!wb->flusher)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	wb->flusher->kind = "flusher";
	task_set_ioprio(wb->flusher, (uint8_t)wb->p.ioprio_class, (uint8_t)wb->p.ioprio_level);
	wb->flusher->state = TS_IDLE;
	return 0;
}

void writeback_free(struct stack *s)
{
	sim_cancel(s->sim, &s->wb.periodic);
}

/* ------------------------------------------------------------ waking */

static void wb_arm_periodic(struct stack *s)
{
	struct writeback *wb = &s->wb;
	if (!sim_event_pending(&wb->periodic) && wb->nr_dirty_inodes > 0)
		sim_after(s->sim, &wb->periodic, wb->p.dirty_writeback_ns);
}

static void wb_periodic_event(struct sim *sim, struct sim_event *ev)
{
	struct writeback *wb = container_of(ev, struct writeback, periodic);
	struct stack *s = container_of(wb, struct stack, wb);
	(void)sim;
	wb->kupdate_due = true;
	wb_wake_flusher(s, false);
}

void wb_wake_flusher(struct stack *s, bool background)
{
	struct stack_task *f = s->wb.flusher;
	(void)background; /* the flusher re-reads the thresholds itself */
	if (f && f->state == TS_IDLE) {
		f->state = TS_READY;
		sim_at(s->sim, &f->run_ev, sim_now(s->sim));
	}
}

void wb_wait_any(struct stack_task *t, enum sim_wait cause, int64_t timeout_ns)
{
	struct stack *s = t->stack;
	list_add_tail(&t->waitq_node, &s->wb.wb_wait);
	task_block(t, cause);
	if (timeout_ns > 0)
		sim_after(s->sim, &t->timer_ev, timeout_ns);
}

static void wb_wake_all(struct stack *s)
{
	struct list_head *pos, *tmp;
	list_for_each_safe(pos, tmp, &s->wb.wb_wait) {
		struct stack_task *t = list_entry(pos, struct stack_task, waitq_node);
		task_wake(t);
	}
}

/* ---------------------------------------------------------- dirtying */

/* Sampled at most every millisecond of simulated time: a 4 GiB write
 * dirties a million pages, and the curve is what a reader looks at. */
#define WB_TIMELINE_INTERVAL_NS 1000000LL

static __attribute__((noinline)) void wb_timeline_write(struct stack *s, struct sim_timeline *tl)
{
	int64_t now = sim_now(s->sim);
	sim_timeline_counter(tl, TIMELINE_PID_MEMORY, "dirty pages", now, (double)s->wb.nr_dirty,
			     WB_TIMELINE_INTERVAL_NS);
	sim_timeline_counter(tl, TIMELINE_PID_MEMORY, "writeback pages", now,
			     (double)s->wb.nr_writeback, WB_TIMELINE_INTERVAL_NS);
}

/* per page dirtied and per bio done: the check stays at the caller */
static inline void wb_timeline(struct stack *s)
{
	if (s->sim->timeline)
		wb_timeline_write(s, s->sim->timeline);
}

void wb_dirtied_slow(struct stack *s, struct stack_file *f)
{
	struct writeback *wb = &s->wb;
	wb_timeline(s);
	if (!f->mapping.on_dirty_list) {
		f->mapping.on_dirty_list = true;
		f->mapping.dirtied_when = sim_now(s->sim);
		list_add_tail(&f->mapping.dirty_node, &wb->dirty_inodes);
		wb->nr_dirty_inodes++;
	}
	wb_arm_periodic(s);
}

void wb_page_dirtied(struct stack *s, struct pc_page *pg)
{
	wb_dirtied(s, pg);
}

static uint64_t dirty_poll_interval(uint64_t dirty, uint64_t thresh)
{
	if (thresh > dirty) {
		uint64_t d = thresh - dirty;
		int lg = 63 - __builtin_clzll(d);
		return 1ull << (lg >> 1);
	}
	return 1;
}

enum step wb_balance_dirty(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct writeback *wb = &s->wb;
	uint64_t D = wb->nr_dirty + wb->nr_writeback;
	uint64_t freerun = (wb->bg_thresh + wb->thresh) / 2;
	uint64_t limit = wb->thresh;

	if (wb->nr_dirty > wb->bg_thresh)
		wb_wake_flusher(s, true);
	if (!wb->p.throttle || D <= freerun) {
		t->mm.bdp_phase = 0;
		t->mm.nr_dirtied = 0;
		t->mm.nr_dirtied_pause = dirty_poll_interval(D, limit);
		return STEP_DONE;
	}
	bool over = D >= limit;
	if (t->mm.bdp_phase == 1 && !over) {
		/* slept once for these pages */
		t->mm.bdp_phase = 0;
		t->mm.nr_dirtied = 0;
		return STEP_DONE;
	}
	int64_t pause;
	double task_rl = 0;
	if (over) {
		pause = wb->p.max_pause_ns;
	} else {
		uint64_t setpoint = (freerun + limit) / 2;
		double x = ((double)setpoint - (double)D) / ((double)(limit - setpoint) + 1.0);
		double pos = 1.0 + x * x * x;
		if (pos < 0)
			pos = 0;
		if (pos > 2)
			pos = 2;
		task_rl = wb->write_bw_pps * pos;
		uint64_t pages = t->mm.nr_dirtied ? t->mm.nr_dirtied : 1;
		pause = task_rl > 0 ? (int64_t)((double)pages / task_rl * (double)NS_PER_S)
				    : wb->p.max_pause_ns;
		if (pause > wb->p.max_pause_ns)
			pause = wb->p.max_pause_ns;
		if (pause < WB_MIN_PAUSE_NS) {
			/* too short to sleep: carry the pages over to the next check */
			t->mm.nr_dirtied_pause = t->mm.nr_dirtied * 2 > 1 ? t->mm.nr_dirtied * 2 : 2;
			t->mm.bdp_phase = 0;
			return STEP_DONE;
		}
	}
	/* Next check: about half a max pause worth of pages at this rate,
	 * never more than the poll interval allows near the limit. */
	uint64_t next = task_rl > 0 ? (uint64_t)(task_rl * ((double)wb->p.max_pause_ns / 2e9)) : 1;
	uint64_t poll = dirty_poll_interval(D, limit);
	if (next > poll)
		next = poll;
	t->mm.nr_dirtied_pause = next ? next : 1;
	t->mm.bdp_phase = 1;
	wb->throttle_pauses++;
	wb->throttle_ns += pause;
	return task_delay(t, pause, SIM_WAIT_DIRTY_THROTTLE, 0, true);
}

/* --------------------------------------------------------- bio build */

/* The walks over a bio's pages go a leaf at a time: w is the leaf's map
 * from the walk's position on, and its lowest stretch of present slots,
 * cut to the left pages the walk still takes, is what pc_next would visit
 * next, in the same order. Returns its length, its first slot in *lo. */
static inline unsigned wb_stretch(uint64_t w, uint64_t left, unsigned *lo)
{
	unsigned b = (unsigned)__builtin_ctzll(w);
	uint64_t gaps = ~(w >> b);
	unsigned k = gaps ? (unsigned)__builtin_ctzll(gaps) : 64u;
	*lo = b;
	return left < k ? (unsigned)left : k;
}

static inline uint64_t wb_stretch_bits(unsigned lo, unsigned k)
{
	return (k == 64 ? ~0ull : (1ull << k) - 1) << lo;
}

/* The n pages of f from index (if a page is there; holes skipped), a leaf
 * at a time, in index order: start: set_page_writeback (PG_dirty off,
 * bits on, writeback tag set); else end_page_writeback (bits off through
 * pc_clear_flags, whose wake-ups only queue events, tag cleared). */
static inline void wb_pages(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n,
			    uint16_t bits, bool start)
{
	if (!pc_find(f, index))
		return;
	uint64_t left = n, l = index >> PC_LEAF_SHIFT, lend = f->mapping.last->index >> PC_LEAF_SHIFT;
	uint64_t m = ~0ull << (index & ((1u << PC_LEAF_SHIFT) - 1));
	for (; left && l <= lend; l++, m = ~0ull) {
		struct pc_leaf *lf = f->mapping.pages.leaf[l];
		if (!lf)
			continue;
		uint64_t w = lf->map & m, tag = 0;
		while (w && left) {
			unsigned lo, k = wb_stretch(w, left, &lo);
			/* a stretch is usually the whole leaf: four pages per loop test */
#pragma GCC unroll 4
			for (unsigned j = lo; j < lo + k; j++) {
				struct pc_page *pg = lf->slot[j];
				/* set_page_writeback on a dirty page not under
				 * writeback, its tag clear; end_page_writeback on one
				 * under writeback, its tag set */
				SIM_ASSERT(start ? (pg->flags & (PG_DIRTY | PG_WRITEBACK)) == PG_DIRTY
						 : (pg->flags & PG_WRITEBACK) != 0);
				SIM_ASSERT(((lf->wb >> j) & 1) == (uint64_t)!start);
				if (start)
					pg->flags = (uint16_t)((pg->flags & ~(PG_DIRTY | PG_SYNCWB)) | bits);
				else
					pc_clear_flags(s, pg, bits);
			}
			uint64_t b = wb_stretch_bits(lo, k);
			tag |= b;
			w &= ~b;
			left -= k;
		}
		if (start)
			lf->wb |= tag;
		else
			lf->wb &= ~tag;
	}
}

int wb_map_run(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n, bool sync)
{
	if (s->fs.ops->map_for_write(s, f, index, n, sync)) {
		sim_fail(s->sim, SIM_E_RUNTIME, "file system full writing %s", f->name);
		return -1;
	}
	return 0;
}

static void wb_end_io(struct sim *sim, struct bio *bio);
static void wb_end_io_async(struct sim *sim, struct bio *bio);

/* 3.10 mpage_da_submit_io -> ext4_bio_write_page, 6.1 f2fs_write_cache_pages
 * -> f2fs_do_write_data_page: a page is cleaned and set under writeback as
 * it goes into the bio being built, and that bio is submitted (where the
 * writer may sleep for a request or tag) before the next page is added;
 * the pages after it stay dirty meanwhile. */
static uint64_t wb_build_bio(struct stack *s, struct stack_file *f, uint64_t index, uint64_t n,
			     bool sync, bool locked, struct stack_bio **tail)
{
	struct writeback *wb = &s->wb;
	uint64_t maxp = s->fs.p.max_bio_bytes >> STACK_PAGE_SHIFT;
	uint64_t run = 0;
	/* f2fs_write_compressed_pages: a compressed cluster's pages go out as
	 * its compressed blocks, in one bio here */
	struct fs_cluster_map cm;
	bool cl = s->fs.ops->cluster_map && s->fs.ops->cluster_map(f, index, &cm);
	uint64_t lba = cl ? cm.lba : s->fs.ops->bmap(f, index, &run);
	if (cl) {
		run = cm.first + cm.npages - index;
		maxp = run;
	}
	/* a locked run is dirty to its end; otherwise another task may have
	 * written some of it while this one slept */
	uint64_t m = n < maxp ? n : maxp;
	if (!locked)
		m = pc_dirty_run(f, index, m);
	if (m > run)
		m = run;
	if (lba == UINT64_MAX || m == 0) {
		sim_fail(s->sim, SIM_E_RUNTIME, "writeback of unallocated page %llu of %s",
			 (unsigned long long)index, f->name);
		return 0;
	}
	struct stack_bio *sb = sbio_alloc(s);
	if (!sb) {
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory allocating a bio");
		return 0;
	}
	/* set_page_writeback on the bio's pages (a run of present dirty pages) */
	wb_pages(s, f, index, m, (uint16_t)(PG_WRITEBACK | (sync ? PG_SYNCWB : 0)), true);
	SIM_ASSERT(wb->nr_dirty >= m && f->mapping.nr_dirty >= m);
	wb->nr_dirty -= m;
	f->mapping.nr_dirty -= m;
	wb->nr_writeback += m;
	f->mapping.nr_writeback += m;
	f->mapping.wb_cur += m;
	if (f->mapping.nr_dirty == 0 && f->mapping.on_dirty_list) {
		list_del_init(&f->mapping.dirty_node);
		f->mapping.on_dirty_list = false;
		wb->nr_dirty_inodes--;
	}
	sb->bio.end_io = sync ? wb_end_io : wb_end_io_async;
	sb->file = f;
	sb->index = index;
	sb->npages = (uint32_t)m;
	sb->epoch = f->mapping.wb_epoch;
	sb->bio.sector = lba;
	sb->bio.nr_sectors = cl ? cm.nsect : (uint32_t)(m << (STACK_PAGE_SHIFT - SECTOR_SHIFT));
	sb->bio.flags = REQ_WRITE | (sync ? REQ_SYNC : 0);
	if (sync) {
		wb->pages_sync += m;
		wb->bios_sync++;
	} else {
		wb->pages_async += m;
		wb->bios_async++;
	}
	*tail = sb;
	return m;
}

uint64_t wb_build_bios(struct stack *s, struct stack_file *f, uint64_t index, uint64_t end,
		       bool sync, struct stack_bio **list)
{
	struct stack_bio **tail = list;
	while (*tail)
		tail = &(*tail)->free_next;
	uint64_t i = index;
	bool locked = s->fs.ops->locks_run;
	do {
		uint64_t m = wb_build_bio(s, f, i, end - i, sync, locked, tail);
		if (!m)
			break;
		tail = &(*tail)->free_next;
		i += m;
	} while (locked && i < end);
	wb_timeline(s);
	return i - index;
}

/* end_page_writeback of a written bio's pages, and the bdi's bandwidth. */
static void wb_bio_done(struct stack *s, struct stack_bio *sb)
{
	struct writeback *wb = &s->wb;
	struct stack_file *f = sb->file;
	uint64_t n = sb->npages;
	/* end_page_writeback on the bio's pages in index order (the pages
	 * wb_build_bio tagged: nothing frees a page under writeback) */
	wb_pages(s, f, sb->index, n, PG_WRITEBACK | PG_SYNCWB, false);
	SIM_ASSERT(wb->nr_writeback >= n && f->mapping.nr_writeback >= n);
	SIM_ASSERT(sb->epoch == f->mapping.wb_epoch ? f->mapping.wb_cur >= n : f->mapping.wb_old >= n);
	wb->nr_writeback -= n;
	f->mapping.nr_writeback -= n;
	wb_timeline(s);
	if (sb->epoch == f->mapping.wb_epoch)
		f->mapping.wb_cur -= n;
	else
		f->mapping.wb_old -= n;
	if (wb->on_progress)
		wb->on_progress(s, f);

	/* bdi_update_write_bandwidth */
	int64_t now = sim_now(s->sim);
	wb->written_since += n;
	wb->written_total += n;
	int64_t el = now - wb->bw_stamp;
	if (el >= WB_BW_INTERVAL_NS) {
		double bw = (double)wb->written_since * NS_PER_S / (double)el;
		if (el > WB_BW_PERIOD_NS)
			el = WB_BW_PERIOD_NS;
		wb->write_bw_pps = (wb->write_bw_pps * (double)(WB_BW_PERIOD_NS - el) +
				    bw * (double)el) / (double)WB_BW_PERIOD_NS;
		wb->written_since = 0;
		wb->bw_stamp = now;
	}
	wb_wake_all(s);
}

/* The writeback bios' end_io (3.10 ext4_end_bio; f2fs_write_end_io for
 * f2fs's data pages). */
static void wb_end_io(struct sim *sim, struct bio *bio)
{
	struct stack_bio *sb = container_of(bio, struct stack_bio, bio);
	(void)sim;
	wb_bio_done(sb->stack, sb);
	sbio_free(sb->stack, sb);
}

/* An async one also lets congestion_wait sleepers go (mm_async_write_done). */
static void wb_end_io_async(struct sim *sim, struct bio *bio)
{
	struct stack_bio *sb = container_of(bio, struct stack_bio, bio);
	struct stack *s = sb->stack;
	(void)sim;
	wb_bio_done(s, sb);
	mm_async_write_done(s);
	sbio_free(s, sb);
}

/* ------------------------------------------------------------ flusher */

/* queue_io(): b_more_io, then the b_dirty inodes dirtied at or before
 * older (eldest first), go to the end of b_io. */
static void wb_queue_io(struct writeback *wb, int64_t older)
{
	list_splice_tail_init(&wb->b_more_io, &wb->b_io);
	while (!list_empty(&wb->dirty_inodes)) {
		struct stack_file *f = list_first_entry(&wb->dirty_inodes, struct stack_file, mapping.dirty_node);
		if (f->mapping.dirtied_when > older)
			break;
		list_move_tail(&f->mapping.dirty_node, &wb->b_io);
	}
}

static struct stack_file *wb_pick_inode(struct stack *s, bool *background)
{
	struct writeback *wb = &s->wb;
	int64_t now = sim_now(s->sim);
	if (wb->nr_dirty_inodes == 0)
		return NULL;
	if (wb->nr_dirty > wb->bg_thresh || wb->reclaim_request > 0) {
		*background = true;
		if (list_empty(&wb->b_io))
			wb_queue_io(wb, now);
		if (!list_empty(&wb->b_io))
			return list_first_entry(&wb->b_io, struct stack_file, mapping.dirty_node);
		return NULL;
	}
	if (wb->kupdate_due) {
		if (list_empty(&wb->b_io))
			wb_queue_io(wb, now - wb->p.dirty_expire_ns);
		if (!list_empty(&wb->b_io)) {
			*background = false;
			return list_first_entry(&wb->b_io, struct stack_file, mapping.dirty_node);
		}
		wb->kupdate_due = false;
		wb->kupdate_runs++;
	}
	return NULL;
}

/* writeback_chunk_size() for WB_SYNC_NONE work (3.2+). */
static uint64_t wb_chunk_size(const struct writeback *wb)
{
	const uint64_t min_pages = 1024; /* MIN_WRITEBACK_PAGES: 4 MiB of 4 KiB pages */
	if (wb->p.chunk_pages > 0)
		return (uint64_t)wb->p.chunk_pages;
	uint64_t pages = (uint64_t)(wb->write_bw_pps / 2);
	uint64_t scope = wb->thresh / 8; /* global_dirty_limit / DIRTY_SCOPE */
	if (scope < pages)
		pages = scope;
	return (pages + min_pages) / min_pages * min_pages;
}

static void wb_end_chunk(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct writeback *wb = &s->wb;
	struct stack_file *f = t->wb.file;
	task_finish_plug(t);
	f->mapping.writeback_index = t->wb.cursor;
	wb->chunks++;
	if (wb->reclaim_request > 0)
		wb->reclaim_request = wb->reclaim_request > t->wb.wrote
					      ? wb->reclaim_request - t->wb.wrote
					      : 0;
	/* requeue_inode(): slice used up -> b_more_io; stopped early (pages
	 * under writeback) -> redirty_tail to b_dirty */
	if (f->mapping.on_dirty_list && f->mapping.nr_dirty > 0) {
		if (t->wb.left == 0) {
			list_move_tail(&f->mapping.dirty_node, &wb->b_more_io);
		} else {
			if (!list_empty(&wb->dirty_inodes)) {
				struct stack_file *newest =
					list_entry(wb->dirty_inodes.prev, struct stack_file, mapping.dirty_node);
				if (f->mapping.dirtied_when < newest->mapping.dirtied_when)
					f->mapping.dirtied_when = sim_now(s->sim);
			}
			list_move_tail(&f->mapping.dirty_node, &wb->dirty_inodes);
		}
	}
	if (t->wb.wrote == 0)
		t->wb.zero_chunks++;
	else
		t->wb.zero_chunks = 0;
	t->wb.file = NULL;
}

void flusher_run(struct stack_task *t)
{
	struct stack *s = t->stack;
	struct writeback *wb = &s->wb;
	for (;;) {
		/* submit what the last step built */
		while (t->wb.pend) {
			struct stack_bio *sb = t->wb.pend;
			t->wb.pend = sb->free_next;
			sb->free_next = NULL;
			if (task_submit_bio(t, sb) == STEP_BLOCK)
				return;
		}
		/* 3.10 ext4_da_writepages: the handle started for a run is
		 * stopped once its bios are submitted (after
		 * mpage_da_map_and_submit) */
		if (t->jhandle && !(t->wb.file && t->wb.left > 0 && t->wb.file->mapping.nr_dirty > 0 &&
				    t->wb.cursor < t->wb.map_end))
			s->fs.ops->handle_stop(t);
		if (t->wb.file) {
			struct stack_file *f = t->wb.file;
			if (t->wb.left == 0 || f->mapping.nr_dirty == 0) {
				wb_end_chunk(t);
				continue;
			}
			struct pc_page *pg = pc_find_ge(f, t->wb.cursor);
			while (pg && (!(pg->flags & PG_DIRTY) || (pg->flags & PG_WRITEBACK)))
				pg = pc_next(pg);
			if (!pg || (t->wb.wrapped && pg->index >= f->mapping.writeback_index)) {
				if (!pg && !t->wb.wrapped && f->mapping.writeback_index > 0) {
					t->wb.wrapped = true;
					t->wb.cursor = 0;
					continue;
				}
				wb_end_chunk(t);
				continue;
			}
			uint64_t start = pg->index;
			if (start < t->wb.map_start || start >= t->wb.map_end) {
				/* f2fs_write_single_data_page -> f2fs_balance_fs: the
				 * flusher too waits for foreground cleaning when space
				 * is low */
				if (s->fs.ops->write_begin && s->fs.ops->write_begin(t, f) == STEP_BLOCK)
					return;
				/* a new run of dirty pages from pg, at most the chunk
				 * left and, wrapped, not past writeback_index (pg is
				 * before it), mapped before its first bio is built */
				uint64_t lim = t->wb.left;
				if (t->wb.wrapped && f->mapping.writeback_index - start < lim)
					lim = f->mapping.writeback_index - start;
				/* ext4_journal_start_with_reserve: waits while the
				 * running transaction is T_LOCKED, then holds a handle
				 * across the mapping and the run's bio submission */
				if (s->fs.ops->handle_start &&
				    s->fs.ops->handle_start(t, true) == STEP_BLOCK)
					return;
				uint64_t n = pc_dirty_run(f, start, lim);
				if (wb_map_run(s, f, start, n, false))
					return; /* file system full: sim_fail stops the run */
				t->wb.map_start = start;
				t->wb.map_end = start + n;
				/* f2fs compresses the run's clusters as it maps
				 * them: that CPU first, on a core */
				if (s->fs.ops->writeback_cpu && s->fs.ops->writeback_cpu(t) == STEP_BLOCK)
					return;
			}
			/* its next bio (or all of a locked run), submitted at the
			 * loop's top before the following one is built */
			uint64_t n = wb_build_bios(s, f, start, t->wb.map_end, false, &t->wb.pend);
			if (s->sim->failed)
				return;
			t->wb.cursor = start + n;
			t->wb.left -= n;
			t->wb.wrote += n;
			continue;
		}
		bool background = false;
		struct stack_file *f = wb_pick_inode(s, &background);
		if (f && t->wb.zero_chunks > wb->nr_dirty_inodes) {
			/* every dirty page is also under writeback: wait for completions */
			t->wb.zero_chunks = 0;
			wb_wait_any(t, SIM_NWAIT, wb->p.dirty_writeback_ns);
			return;
		}
		if (!f) {
			wb_arm_periodic(s);
			return; /* idle until woken */
		}
		if (background)
			wb->bg_runs++;
		t->wb.file = f;
		t->wb.cursor = f->mapping.writeback_index;
		t->wb.left = wb_chunk_size(wb);
		t->wb.wrote = 0;
		t->wb.wrapped = false;
		t->wb.map_start = t->wb.map_end = 0;
		if (s->q)
			task_start_plug(t);
	}
}

struct json_t *writeback_to_json(const struct stack *s)
{
	const struct writeback *wb = &s->wb;
	json_t *o = json_object();
	json_object_set_new(o, "bg_thresh_pages", json_integer((json_int_t)wb->bg_thresh));
	json_object_set_new(o, "thresh_pages", json_integer((json_int_t)wb->thresh));
	json_object_set_new(o, "peak_dirty_pages", json_integer((json_int_t)wb->peak_dirty));
	json_object_set_new(o, "dirty_pages", json_integer((json_int_t)wb->nr_dirty));
	json_object_set_new(o, "writeback_pages", json_integer((json_int_t)wb->nr_writeback));
	json_object_set_new(o, "pages_async", json_integer((json_int_t)wb->pages_async));
	json_object_set_new(o, "pages_sync", json_integer((json_int_t)wb->pages_sync));
	json_object_set_new(o, "bios_async", json_integer((json_int_t)wb->bios_async));
	json_object_set_new(o, "bios_sync", json_integer((json_int_t)wb->bios_sync));
	json_object_set_new(o, "chunks", json_integer((json_int_t)wb->chunks));
	json_object_set_new(o, "chunk_pages", json_integer((json_int_t)wb_chunk_size(wb)));
	json_object_set_new(o, "background_turns", json_integer((json_int_t)wb->bg_runs));
	json_object_set_new(o, "kupdate_runs", json_integer((json_int_t)wb->kupdate_runs));
	json_object_set_new(o, "throttle_pauses", json_integer((json_int_t)wb->throttle_pauses));
	json_object_set_new(o, "throttle_ns", json_integer(wb->throttle_ns));
	json_object_set_new(o, "write_bw_bps", json_real(wb->write_bw_pps * STACK_PAGE_SIZE));
	json_object_set_new(o, "params", cfg_params_to_json(wb_params_table, &wb->p));
	return o;
}
