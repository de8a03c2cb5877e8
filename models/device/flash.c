/* Multi-die managed NAND device: eMMC 4.5-5.1 and UFS 2.x-3.x.
 *
 * What it models. The device is a controller in front of C channels, each
 * a NAND bus shared by dies/C dies of P planes; data is striped over the
 * dies with a stripe unit of one page (LBA page p -> channel p mod C, then
 * die (p / C) mod dies-per-channel, then plane), so consecutive pages land
 * on different channels and dies. A request is split into page operations:
 *   read:  controller overhead -> die array read tR (one tR serves up to P
 *          pages of the same die and stripe row: multi-plane read) -> page
 *          data out over the channel -> host-link transfer, in LBA order,
 *          streamed cut-through one 1 KiB ECC codeword behind the channel;
 *   write: controller overhead -> host-link transfer into the write buffer
 *          (waiting for space when it is full) -> completion; the buffer is
 *          drained in the background in program units of P pages to the
 *          die that frees first: channel data in, then tPROG on the die.
 *          With slc_cache_mib, programs go to an SLC cache at slc_prog_us
 *          while it has room; it empties at slc_fold_mbps in the background.
 *          FUA (or write_cache: false) completes only when the request's
 *          own units are programmed (read_priority: when everything
 *          buffered before it is); a pre-flush (REQ_FLUSH) first drains
 *          everything buffered.
 * Every shared resource (die, channel, host link - one half-duplex bus for
 * eMMC, two directions for UFS - and the controller) is a "busy until"
 * time; a request books its operations when submitted, so resources serve
 * in submission order and contention between concurrent requests is exact
 * for that order. The exception is the drain of the write buffer: with
 * read_priority (default) a full program unit waits in a drain queue and
 * is booked on its die only when its program starts (an event per device),
 * so a read submitted meanwhile goes before the buffered backlog and waits
 * at most for the program in progress, as controllers serve host reads
 * ahead of write-cache flushing; a write that finds the buffer full waits
 * (FIFO) until a program really ends. read_priority: false books every
 * program at admission (reads then wait for the whole backlog). Reads that
 * hit a die busy programming wait for it (read/write interference, SmartIO
 * MobiSys'15), unless program_suspend.
 * Small requests touch few dies, large ones all of them, so bandwidth grows
 * non-linearly with size and saturates at the slowest of link, channels
 * and dies. Times are integer ns; a transfer of b bytes at r bytes/s takes
 * ceil(b * 1e9 / r) ns, so nothing completes before its bytes could cross
 * the link.
 *
 * Sources: interface rates from JEDEC JESD84-B451 (eMMC 5.1: HS200 =
 * 200 MB/s on 8 bits SDR, HS400 = 400 MB/s DDR) and MIPI M-PHY/UniPro as
 * used by JESD220 (UFS: HS-G2/G3/G4 rate B 2915.2/5830.4/11660.8 Mbit/s
 * per lane, 8b/10b coded); AnandTech's Galaxy S6 review (anandtech.com/show/
 * 9146, p.7) for UFS full duplex and command queue. NAND timings are
 * per-preset (configs/devices/). With `ftl: {enabled: true}` a page-mapping
 * FTL (models/device/ftl.c) places each program unit's 4 KiB pages in the chosen
 * die's active block, reads go to the die that holds each page, foreground
 * GC is booked on a die before a program that needs a free block (host
 * writes wait for it through the write buffer), background GC runs in idle
 * time, and REQ_DISCARD trims. Without it, garbage collection is only the
 * amortised rand_write_us cost. Left out: FTL mapping-table misses, read
 * retry, the die time spent folding the SLC cache, power states, read-after-write hits in the
 * buffer, and buffer space freed by a suspended program is released at
 * its original end time.
 */
#include "models/device/flash_int.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/device/device.h"
#include "sim/assert.h"
#include "sim/sim.h"

/* ------------------------------------------------------------ tunables */

static const char *const flash_link_names[] = {
	"emmc_hs200", "emmc_hs400", "ufs_hs_g2", "ufs_hs_g3", "ufs_hs_g4", "ufs_hs_g5", NULL,
};

static const char *const flash_slc_flush_names[] = { "always", "hibern8", NULL };

/* Payload bytes/s of one lane before protocol framing. eMMC: 8 data lines,
 * HS200 200 MHz SDR, HS400 200 MHz DDR (JESD84-B451). UFS: M-PHY rate B,
 * 8b/10b line code, so payload = rate * 8/10 / 8 bits. */
static const double flash_lane_bps[] = {
	200e6, 400e6, 2915.2e6 * 0.8 / 8.0, 5830.4e6 * 0.8 / 8.0, 11660.8e6 * 0.8 / 8.0,
	/* HS-G5 rate B 23321.6 Mbit/s (UFS 4.0, JESD220F; 23.2 Gb/s per lane in
	 * Samsung's UFS 4.0 release), counted with 8b/10b like the lower gears
	 * [RECALL: the G5 line code is not checked] */
	23321.6e6 * 0.8 / 8.0,
};

static bool flash_link_is_ufs(int link) { return link >= FLASH_LINK_UFS_HS_G2; }

#define FL_OFF(f) offsetof(struct flash_dev, f)

static const struct cfg_param flash_params[] = {
	{ "channels", CFG_T_INT, FL_OFF(channels), "", "2", 1, 32,
	  "docs/references.md 1.2 [RECALL]: mobile controllers have 1-4 NAND channels",
	  "NAND channels (independent buses)", NULL },
	{ "dies", CFG_T_INT, FL_OFF(dies), "", "4", 1, 1024,
	  "docs/references.md 1.2 [RECALL]: 2-8 dies in 16-64 GB parts",
	  "NAND dies in total (a multiple of channels)", NULL },
	{ "planes", CFG_T_INT, FL_OFF(planes), "", "2", 1, 8,
	  "docs/references.md 1.2 [RECALL]: 2-plane MLC/TLC", "planes per die (multi-plane read/program)",
	  NULL },
	{ "page_kib", CFG_T_SIZE, FL_OFF(page_bytes), "KiB", "16", 0.5, 256,
	  "docs/references.md 1.2 [RECALL]: 16 KiB pages on 1x/2x nm MLC and TLC V-NAND",
	  "NAND page size = stripe unit", NULL },
	{ "read_us", CFG_T_TIME, FL_OFF(read_ns), "us", "60", 0, 1e5,
	  "docs/references.md 1.2 [RECALL]: tR 50-90 us MLC/TLC", "array read time tR per page", NULL },
	{ "prog_us", CFG_T_TIME, FL_OFF(prog_ns), "us", "1300", 0, 1e6,
	  "[RECALL] MLC tPROG ~1.3 ms; SLC-mode buffers 200-500 us",
	  "program time tPROG of one (multi-plane) page program", NULL },
	{ "slc_cache_mib", CFG_T_SIZE, FL_OFF(slc_bytes), "MiB", "0", 0, 1048576,
	  "0 = none; UFS 3.1 WriteBooster / TLC SLC caches are GiB-sized [RECALL]",
	  "SLC cache that absorbs programs at slc_prog_us while it has room", NULL },
	{ "slc_prog_us", CFG_T_TIME, FL_OFF(slc_prog_ns), "us", "300", 0, 1e6,
	  "[RECALL] SLC-mode tPROG 200-500 us", "program time of a unit into the SLC cache", NULL },
	{ "slc_fold_mbps", CFG_T_RATE, FL_OFF(slc_fold_bps), "MB/s", "50", 0, 1e5,
	  "[RECALL] folding SLC to TLC runs at the TLC program rate, in idle time",
	  "rate at which the SLC cache empties in the background (MB/s)", NULL },
	{ "slc_flush", CFG_T_ENUM, FL_OFF(slc_flush), "", "always", CFG_NO_RANGE,
	  "JESD220E 13.4.14 WriteBooster: the buffer is flushed to TLC on an explicit flag or "
	  "implicitly while in HIBERN8 (Linux ufshcd enables flush during HIBERN8)",
	  "always: fold at slc_fold_mbps all the time; hibern8: only after the device has been "
	  "idle for hibern8_idle_ms", flash_slc_flush_names },
	{ "hibern8_idle_ms", CFG_T_TIME, FL_OFF(hibern8_idle_ns), "ms", "150ms", 0, 1e6,
	  "drivers/ufs/core/ufshcd.c: default auto-hibernate idle timer 150 ms (ufs-qcom: 5 ms)",
	  "idle time after which the link enters HIBERN8", NULL },
	{ "channel_mbps", CFG_T_RATE, FL_OFF(channel_bps), "MB/s", "200", 1, 1e5,
	  "[RECALL] ONFI 2.x / Toggle 1.0 buses 133-200 MB/s, Toggle 2.0 400 MB/s",
	  "NAND channel transfer rate (MB/s)", NULL },
	{ "link", CFG_T_ENUM, FL_OFF(link), "", "emmc_hs400", CFG_NO_RANGE,
	  "JESD84-B451 (eMMC HS200/HS400), JESD220 + MIPI M-PHY (UFS HS-Gn)",
	  "host interface", flash_link_names },
	{ "lanes", CFG_T_INT, FL_OFF(lanes), "", "1", 1, 2,
	  "JESD220: UFS 2.x/3.x define 1 or 2 lanes per direction", "UFS lanes (eMMC: 1)", NULL },
	{ "link_mbps", CFG_T_RATE, FL_OFF(link_bps_override), "MB/s", "0", 0, 1e5,
	  "0 = from link and lanes", "host link payload rate override (MB/s)", NULL },
	{ "link_efficiency", CFG_T_DOUBLE, FL_OFF(link_efficiency), "", "1.0", 0.05, 1.0,
	  "1 = no framing overhead (UPIU/UniPro or CRC+busy time take the rest)",
	  "fraction of the link rate left for payload", NULL },
	{ "cmd_read_us", CFG_T_TIME, FL_OFF(cmd_read_ns), "us", "60", 0, 1e5,
	  "calibrated per preset against 4 KiB QD1 random reads",
	  "controller + command protocol overhead of a read", NULL },
	{ "cmd_write_us", CFG_T_TIME, FL_OFF(cmd_write_ns), "us", "80", 0, 1e6,
	  "calibrated per preset against 4 KiB QD1 random writes",
	  "controller + command protocol overhead of a write", NULL },
	{ "rand_write_us", CFG_T_TIME, FL_OFF(rand_write_ns), "us", "0", 0, 1e6,
	  "calibrated per preset; amortised FTL map update / merge of hybrid-mapping FTLs",
	  "extra controller time of a write that does not continue the previous one", NULL },
	{ "flush_us", CFG_T_TIME, FL_OFF(flush_ns), "us", "100", 0, 1e6,
	  "[RECALL] CMD6 FLUSH_CACHE / SYNCHRONIZE CACHE round trip",
	  "overhead of a cache flush beyond draining the buffer", NULL },
	{ "wbuf_kib", CFG_T_SIZE, FL_OFF(wbuf_bytes), "KiB", "512", 0.5, 1048576,
	  "[RECALL] controller SRAM write buffers of 256 KiB-1 MiB",
	  "write buffer size (>= planes x page)", NULL },
	{ "write_cache", CFG_T_BOOL, FL_OFF(write_cache), "", "true", CFG_NO_RANGE,
	  "eMMC 4.5 added the volatile cache (JESD84-B45); false = every write is FUA",
	  "writes complete when buffered (true) or when programmed (false)", NULL },
	{ "program_suspend", CFG_T_BOOL, FL_OFF(program_suspend), "", "false", CFG_NO_RANGE,
	  "ONFI program suspend; off on most mobile parts of 2013-17 [RECALL]",
	  "a read may suspend a program on its die", NULL },
	{ "suspend_us", CFG_T_TIME, FL_OFF(suspend_ns), "us", "20", 0, 1e5,
	  "[RECALL] tSUS ~10-30 us", "latency to suspend (and later resume) a program", NULL },
	{ "cmdq", CFG_T_BOOL, FL_OFF(cmdq), "", "false", CFG_NO_RANGE,
	  "eMMC 5.1 CMDQ (JESD84-B51, 32 tasks); UFS always queues (SCSI tagged)",
	  "eMMC command queueing", NULL },
	{ "read_priority", CFG_T_BOOL, FL_OFF(read_priority), "", "true", CFG_NO_RANGE,
	  "US patent 10025531 (host reads in a high-priority queue, page programs of buffered writes in a low one, reads interleaved between them); Silicon Motion US 11494113 B2 (reads fetched ahead of queued host writes)",
	  "serve a read before buffered writes whose program has not started (false: "
	  "programs are booked in admission order and reads wait for the backlog)", NULL },
	{ "queue_depth", CFG_T_INT, FL_OFF(queue_depth), "", "0", 0, 256,
	  "0 = auto: eMMC without CMDQ 1, with CMDQ 32; UFS 32 (JESD220 bQueueDepth)",
	  "commands the device accepts at once", NULL },
	CFG_PARAM_END,
};

/* --------------------------------------------------------------- helpers */

/* ECC codeword: the unit a controller corrects and forwards ([RECALL]
 * BCH/LDPC over 1 KiB of data on MLC/TLC parts of 2013-2020). */
#define FLASH_ECC_CODEWORD 1024u

static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ceil(bytes * 1e9 / rate): transfers never round down to earlier. Below
 * 2^34 bytes and 2^40 bytes/s the numerator fits in 64 bits (< 1.72e19 +
 * 1.1e12), so the same quotient comes from a 64-bit division instead of
 * the 128-bit library call (every page and program unit takes one). */
static inline int64_t xfer_ns(uint64_t bytes, uint64_t rate)
{
	if (bytes < (1ull << 34) && rate < (1ull << 40))
		return (int64_t)((bytes * 1000000000u + rate - 1) / rate);
	unsigned __int128 num = (unsigned __int128)bytes * 1000000000u + rate - 1;
	return (int64_t)(num / rate);
}

/* xfer_ns(bytes, rate) through a one-entry memo: the same value. */
static inline int64_t xfer_memo(struct flash_xfer_memo *m, uint64_t bytes, uint64_t rate)
{
	if (m->bytes != bytes) {
		m->ns = xfer_ns(bytes, rate);
		m->bytes = bytes;
	}
	return m->ns;
}

/* log2 of x when x is a power of two, else -1 (x / y then stays a division). */
static int pow2_shift(uint64_t x)
{
	return x && !(x & (x - 1)) ? __builtin_ctzll(x) : -1;
}

static inline uint64_t div_by(uint64_t x, uint64_t y, int shift)
{
	return shift >= 0 ? x >> shift : x / y;
}

static inline uint64_t mod_by(uint64_t x, uint64_t y, int shift)
{
	return shift >= 0 ? x & (y - 1) : x % y;
}

static int tl_init(struct flash_timeline *tl, const struct flash_dev *d)
{
	memset(tl, 0, sizeof(*tl));
	tl->die_free = calloc(d->ndies, sizeof(int64_t));
	tl->die_prog_start = calloc(d->ndies, sizeof(int64_t));
	tl->die_prog_end = calloc(d->ndies, sizeof(int64_t));
	tl->ch_free = calloc((size_t)d->channels, sizeof(int64_t));
	tl->caprel = 64;
	tl->rel = malloc(tl->caprel * sizeof(*tl->rel));
	tl->next_wsector = UINT64_MAX;
	if (!tl->die_free || !tl->die_prog_start || !tl->die_prog_end || !tl->ch_free || !tl->rel)
		return SIM_E_NOMEM;
	return 0;
}

static void tl_free(struct flash_timeline *tl)
{
	free(tl->die_free);
	free(tl->die_prog_start);
	free(tl->die_prog_end);
	free(tl->ch_free);
	free(tl->rel);
	memset(tl, 0, sizeof(*tl));
}

/* An idle device at time 0: all resources free, buffer empty. */
static void tl_reset(struct flash_timeline *tl, const struct flash_dev *d)
{
	memset(tl->die_free, 0, d->ndies * sizeof(int64_t));
	memset(tl->die_prog_start, 0, d->ndies * sizeof(int64_t));
	memset(tl->die_prog_end, 0, d->ndies * sizeof(int64_t));
	memset(tl->ch_free, 0, (size_t)d->channels * sizeof(int64_t));
	tl->link_rx = tl->link_tx = tl->ctrl_free = tl->drain_done = 0;
	tl->wb_used = tl->open_fill = 0;
	tl->open_ready = 0;
	tl->nrel = 0;
	tl->relhead = 0;
	tl->wptr = 0;
	tl->next_wsector = UINT64_MAX;
	tl->slc_used = 0;
	tl->slc_t = 0;
}

/* Pending releases: entries are few (at most wbuf / 512). In general a
 * binary min-heap on t. The read_priority timeline (rel_sorted) keeps them
 * instead in a ring sorted on t, ties in push order: its programs are booked
 * when they start, so a new end is nearly always the latest and goes in at
 * the tail, and the earliest leaves from the head. Its only consumer
 * (rp_release) takes every release up to a time and sums what each gives,
 * so the order among equal times does not matter there; wb_reserve, which
 * stops part-way through equal times, only ever sees a heap. Push and pop
 * are inline (one of each per program unit); growing is not. */
static __attribute__((noinline)) bool rel_grow(struct flash_timeline *tl)
{
	struct flash_release *n = malloc(2 * tl->caprel * sizeof(*n));
	if (!n)
		return false;
	for (uint32_t i = 0; i < tl->nrel; i++) /* the ring unwrapped; a heap as it is */
		n[i] = tl->rel[(tl->relhead + i) & (tl->caprel - 1)];
	free(tl->rel);
	tl->rel = n;
	tl->relhead = 0;
	tl->caprel *= 2;
	return true;
}

static inline bool rel_push(struct flash_timeline *tl, int64_t t, uint64_t bytes, int64_t gc_ns)
{
	if (tl->nrel == tl->caprel && !rel_grow(tl))
		return false;
	if (tl->rel_sorted) {
		uint32_t m = tl->caprel - 1, h = tl->relhead, i = tl->nrel++;
		for (; i > 0 && tl->rel[(h + i - 1) & m].t > t; i--)
			tl->rel[(h + i) & m] = tl->rel[(h + i - 1) & m];
		tl->rel[(h + i) & m] = (struct flash_release){ t, bytes, gc_ns };
		return true;
	}
	uint32_t i = tl->nrel++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (tl->rel[p].t <= t)
			break;
		tl->rel[i] = tl->rel[p];
		i = p;
	}
	tl->rel[i] = (struct flash_release){ t, bytes, gc_ns };
	return true;
}

/* The earliest pending release (nrel > 0). */
static inline const struct flash_release *rel_first(const struct flash_timeline *tl)
{
	return &tl->rel[tl->rel_sorted ? tl->relhead : 0];
}

/* Remove the earliest (rel_sorted), returning a copy. */
static inline struct flash_release rel_pop_sorted(struct flash_timeline *tl)
{
	struct flash_release top = tl->rel[tl->relhead];
	tl->relhead = (tl->relhead + 1) & (tl->caprel - 1);
	tl->nrel--;
	return top;
}

static inline struct flash_release rel_pop(struct flash_timeline *tl)
{
	if (tl->rel_sorted)
		return rel_pop_sorted(tl);
	struct flash_release top = tl->rel[0];
	struct flash_release last = tl->rel[--tl->nrel];
	uint32_t i = 0, n = tl->nrel;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && tl->rel[c + 1].t < tl->rel[c].t)
			c++;
		if (tl->rel[c].t >= last.t)
			break;
		tl->rel[i] = tl->rel[c];
		i = c;
	}
	if (n)
		tl->rel[i] = last;
	return top;
}

/* Round-robin positions, channel-first so that successive programs go to
 * different channels: position pos is die (pos % c) * dpc + pos / c (c
 * channels, dpc dies per channel). A walk over the positions from one
 * onwards, wrapping at ndies, keeps pos / c and pos % c as it goes instead
 * of dividing: every program unit's die choice looks at each die, and
 * flash_pick_die with its divisions was 3.9 % of a Fig. 1 launch run's
 * instructions (callgrind). */
struct rr_walk {
	uint32_t pos, q, r;
};

static inline struct rr_walk rr_walk_at(const struct flash_dev *d, uint32_t pos)
{
	uint32_t c = (uint32_t)d->channels;
	pos %= d->ndies;
	return (struct rr_walk){ .pos = pos, .q = pos / c, .r = pos % c };
}

static inline uint32_t rr_walk_die(const struct flash_dev *d, const struct rr_walk *w)
{
	return w->r * (uint32_t)d->dies_per_channel + w->q;
}

static inline void rr_walk_next(const struct flash_dev *d, struct rr_walk *w)
{
	if (++w->pos == d->ndies)
		*w = (struct rr_walk){ 0, 0, 0 };
	else if (++w->r == (uint32_t)d->channels) {
		w->r = 0;
		w->q++;
	}
}

/* Program time of a unit whose data-in ends at t: the SLC cache takes it
 * while it has room (its content folds out at slc_fold_bps; the die time
 * that folding costs is not modelled), else the array's tPROG. Program
 * units are booked in non-decreasing time order per die but not overall,
 * so the occupancy only drains forward in time. */
static int64_t flash_unit_prog_ns(struct flash_dev *d, struct flash_timeline *tl, int64_t t,
				  uint64_t bytes, bool account)
{
	if (!d->slc_bytes)
		return d->prog_ns;
	if (t > tl->slc_t) {
		if (!d->slc_flush) /* hibern8: folded at admission (flash_wb_idle_flush) */
			tl->slc_used -= d->slc_fold_bps * (double)(t - tl->slc_t) / 1e9;
		if (tl->slc_used < 0)
			tl->slc_used = 0;
		tl->slc_t = t;
	}
	if (tl->slc_used + (double)bytes > (double)d->slc_bytes)
		return d->prog_ns;
	tl->slc_used += (double)bytes;
	if (account)
		d->slc_programs++;
	return d->slc_prog_ns;
}

/* The die the next program unit goes to: the one that frees first (ties:
 * round-robin order). With the FTL, a die whose valid data is at its limit
 * is passed over (ftl_die_ok), so GC always has stale pages to gain. *pos
 * is its round-robin position. */
static __attribute__((noinline)) uint32_t
flash_pick_die_ftl(const struct flash_dev *d, const struct flash_timeline *tl, uint32_t *pos_out)
{
	uint32_t n = d->ndies, s = tl->wptr, bi = 0;
	const uint32_t *rr = d->rr_die + s;
	uint32_t best = rr[0];
	bool best_ok = ftl_die_ok(d->ftl, best);
	for (uint32_t i = 1; i < n; i++) {
		uint32_t die = rr[i];
		bool ok = ftl_die_ok(d->ftl, die);
		if ((ok && !best_ok) || (ok == best_ok && tl->die_free[die] < tl->die_free[best])) {
			best = die;
			bi = i;
			best_ok = ok;
		}
	}
	*pos_out = s + bi < n ? s + bi : s + bi - n;
	return best;
}

static inline uint32_t flash_pick_die(const struct flash_dev *d, const struct flash_timeline *tl,
				      bool fl, uint32_t *pos_out)
{
	/* called for every program unit and every drain step: the positions'
	 * dies come from a table that holds the round-robin order twice, so
	 * the walk from wptr (kept below ndies) never wraps; without the FTL
	 * every die is ok and the best time rides in a register */
	if (fl)
		return flash_pick_die_ftl(d, tl, pos_out);
	uint32_t n = d->ndies, s = tl->wptr, bi = 0;
	const uint32_t *rr = d->rr_die + s;
	const int64_t *df = tl->die_free;
	uint32_t best = rr[0];
	int64_t bv = df[best];
	for (uint32_t i = 1; i < n; i++) {
		uint32_t die = rr[i];
		int64_t v = df[die];
		if (v < bv) {
			bv = v;
			best = die;
			bi = i;
		}
	}
	*pos_out = s + bi < n ? s + bi : s + bi - n;
	return best;
}

/* Foreground GC: the die copies and erases before it can take the unit,
 * from when the unit is ready (the need arises) or the die is free,
 * whichever is later. Returns its time. */
static __attribute__((noinline)) int64_t flash_unit_fg_gc(struct flash_dev *d,
							  struct flash_timeline *tl, uint64_t bytes,
							  int64_t ready, uint32_t best)
{
	int64_t gc_ns = ftl_fg_gc(d->ftl, best);
	if (gc_ns) {
		int64_t gs = max64(tl->die_free[best], ready);
		d->gc_start[best] = gs;
		d->gc_end[best] = gs + gc_ns;
		tl->die_free[best] = gs + gc_ns;
	}
	ftl_commit(d->ftl, best, bytes);
	return gc_ns;
}

/* Book a unit of bytes, in the buffer since ready, on die best (round-robin
 * position best_pos; the FTL's staged pages are committed to it). Returns
 * the end of the program. */
static inline __attribute__((always_inline)) int64_t
flash_book_unit(struct flash_dev *d, struct flash_timeline *tl, uint64_t bytes, int64_t ready,
		uint32_t best, uint32_t best_pos, bool account)
{
	d->tl_gen++;
	tl->wptr = best_pos + 1 < d->ndies ? best_pos + 1 : 0; /* every use takes it mod ndies */
	int64_t gc_ns = d->ftl && account ? flash_unit_fg_gc(d, tl, bytes, ready, best) : 0;
	d->unit_gc_ns = gc_ns;
	uint32_t ch = best / (uint32_t)d->dies_per_channel;
	/* a full unit is planes pages: its channel time is the same every time */
	int64_t ch_ns = bytes == d->unit_bytes
				? d->unit_ch_ns
				: xfer_ns((bytes + d->page_bytes - 1) / d->page_bytes * d->page_bytes,
					  d->ch_rate);
	int64_t cs = max64(ready, max64(tl->ch_free[ch], tl->die_free[best]));
	int64_t ce = cs + ch_ns;
	int64_t pe = ce + (d->slc_bytes ? flash_unit_prog_ns(d, tl, ce, bytes, account) : d->prog_ns);
	tl->ch_free[ch] = ce;
	tl->die_free[best] = pe;
	tl->die_prog_start[best] = ce;
	tl->die_prog_end[best] = pe;
	tl->drain_done = max64(tl->drain_done, pe);
	if (!rel_push(tl, pe, bytes, gc_ns)) {
		/* cannot track the release: treat the space as freed at once */
		SIM_ASSERT(tl->wb_used >= bytes);
		tl->wb_used -= bytes;
	}
	if (account)
		d->programs++;
	return pe;
}

/* Program the open unit now (read_priority: false, and the idle copy):
 * booked at once, after everything booked before. Returns its end. */
static int64_t flash_program_unit(struct flash_dev *d, struct flash_timeline *tl, bool account)
{
	uint64_t bytes = tl->open_fill;
	if (!bytes)
		return 0;
	uint32_t pos;
	uint32_t die = flash_pick_die(d, tl, d->ftl && account, &pos);
	int64_t pe = flash_book_unit(d, tl, bytes, tl->open_ready, die, pos, account);
	tl->open_fill = 0;
	tl->open_ready = 0;
	return pe;
}

/* Earliest time >= a at which need more bytes fit in the buffer. Link
 * admissions are booked in non-decreasing time order, so releases up to a
 * can be forgotten for good. */
static int64_t wb_reserve(struct flash_dev *d, struct flash_timeline *tl, int64_t a,
			  uint64_t need, bool account)
{
	int64_t a0 = a;
	while (tl->nrel && rel_first(tl)->t <= a)
		tl->wb_used -= rel_pop(tl).bytes;
	while (tl->wb_used + need > d->wbuf_bytes) {
		if (!tl->nrel) {
			/* only the open unit holds space: drain it (cannot happen
			 * while wbuf >= unit, kept for safety) */
			if (!tl->open_fill)
				break;
			flash_program_unit(d, tl, account);
			continue;
		}
		struct flash_release r = rel_pop(tl);
		/* the part of this wait the GC before that program added */
		if (account && r.t > a)
			d->req_gc_ns += r.t - a < r.gc_ns ? r.t - a : r.gc_ns;
		a = max64(a, r.t);
		tl->wb_used -= r.bytes;
	}
	if (account && a > a0) {
		d->buffer_stalls++;
		d->buffer_stall_ns += a - a0;
	}
	return a;
}

static int64_t flash_book_read(struct flash_dev *d, struct flash_timeline *tl, int64_t now,
			       uint64_t sector, uint32_t nr_sectors, bool account)
{
	d->tl_gen++;
	int64_t t0 = max64(now, tl->ctrl_free) + d->cmd_read_ns;
	tl->ctrl_free = t0;
	int64_t done = t0;
	uint64_t pos = sector << SECTOR_SHIFT, end = pos + ((uint64_t)nr_sectors << SECTOR_SHIFT);
	uint64_t c = (uint64_t)d->channels, dpc = d->ndies / c;
	uint64_t row_pages = (uint64_t)d->ndies * (uint64_t)d->planes;
	uint64_t gen = ++d->gen;
	bool fl = d->ftl && account;
	int64_t gc_wait = 0;

	while (pos < end) {
		uint64_t p = div_by(pos, d->page_bytes, d->page_shift);
		uint64_t pend = (p + 1) * d->page_bytes;
		if (fl) {
			/* the FTL maps 4 KiB pages: each may sit on another die */
			uint64_t lend = ((pos >> FTL_LPAGE_SHIFT) + 1) << FTL_LPAGE_SHIFT;
			if (lend < pend)
				pend = lend;
		}
		if (pend > end)
			pend = end;
		uint64_t bytes = pend - pos;
		uint32_t ch = (uint32_t)mod_by(p, c, d->ch_shift);
		uint32_t die = (uint32_t)(ch * dpc + mod_by(div_by(p, c, d->ch_shift), dpc, d->dpc_shift));
		uint64_t key = div_by(p, row_pages, d->row_shift);
		uint32_t fdie;
		uint64_t row;
		/* unwritten pages read as if striped (a fresh device's layout) */
		if (fl && ftl_lookup(d->ftl, ftl_lpn_of(d->ftl, pos), &fdie, &row)) {
			die = fdie;
			ch = (uint32_t)(die / dpc);
			key = row | (1ull << 63); /* apart from the striped keys */
		}

		if (d->round_gen[die] != gen || d->round_key[die] != key) {
			int64_t start = max64(t0, tl->die_free[die]);
			if (fl && start > t0) {
				/* overlap of the wait with the die's last GC */
				int64_t gs = max64(t0, d->gc_start[die]);
				int64_t ge = start < d->gc_end[die] ? start : d->gc_end[die];
				if (ge > gs)
					gc_wait += ge - gs;
			}
			bool programming = start > t0 && tl->die_free[die] == tl->die_prog_end[die];
			if (programming && d->program_suspend) {
				int64_t rs = max64(t0, tl->die_prog_start[die]) + d->suspend_ns;
				if (rs < start) {
					int64_t held = d->suspend_ns + d->read_ns +
						       xfer_ns(d->unit_bytes, d->ch_rate);
					tl->die_free[die] += held;
					tl->die_prog_end[die] = tl->die_free[die];
					start = rs;
					if (account)
						d->suspends++;
				}
			} else if (programming && account) {
				d->prog_waits++;
				d->prog_wait_ns += start - t0;
			}
			d->round_ready[die] = start + d->read_ns;
			d->round_key[die] = key;
			d->round_gen[die] = gen;
			if (account)
				d->page_reads++;
		}
		int64_t cs = max64(d->round_ready[die], tl->ch_free[ch]);
		int64_t ce = cs + xfer_memo(&d->xm_ch, bytes, d->ch_rate);
		tl->ch_free[ch] = ce;
		tl->die_free[die] = max64(tl->die_free[die], ce);
		/* Cut-through: the controller streams each ECC codeword to the
		 * host as soon as it is corrected, so the link may start one
		 * codeword after the channel and ends no earlier than one
		 * codeword after it (nor before its own full transfer). */
		uint64_t cw = bytes < FLASH_ECC_CODEWORD ? bytes : FLASH_ECC_CODEWORD;
		int64_t ls = max64(cs + xfer_memo(&d->xm_ch_cw, cw, d->ch_rate), tl->link_rx);
		int64_t le = max64(ls + xfer_memo(&d->xm_link, bytes, d->link_rate),
				   ce + xfer_memo(&d->xm_link_cw, cw, d->link_rate));
		tl->link_rx = le;
		done = le;
		pos = pend;
	}
	if (fl)
		ftl_note_blocked(d->ftl, false, gc_wait);
	return done;
}

static int64_t flash_book_write(struct flash_dev *d, struct flash_timeline *tl, int64_t now,
				uint32_t flags, uint64_t sector, uint32_t nr_sectors,
				bool account)
{
	int64_t *tx = d->full_duplex ? &tl->link_tx : &tl->link_rx;
	int64_t t0 = max64(now, tl->ctrl_free) + d->cmd_write_ns;
	if (nr_sectors) {
		if (sector != tl->next_wsector)
			t0 += d->rand_write_ns;
		tl->next_wsector = sector + nr_sectors;
	}
	tl->ctrl_free = t0;
	if (flags & REQ_FLUSH) {
		if (tl->open_fill)
			flash_program_unit(d, tl, account);
		t0 = max64(t0, tl->drain_done) + d->flush_ns;
	}
	if (!nr_sectors)
		return t0;

	bool fua = (flags & REQ_FUA) || !d->write_cache;
	uint64_t rem = (uint64_t)nr_sectors << SECTOR_SHIFT;
	int64_t done = t0, own_end = 0, own_gc = 0;
	bool fl = d->ftl && account;
	uint64_t wbeg = sector << SECTOR_SHIFT, wend = wbeg + rem, cur = wbeg;
	d->req_gc_ns = 0;
	while (rem) {
		uint64_t piece = d->unit_bytes - tl->open_fill;
		if (piece > rem)
			piece = rem;
		int64_t a = wb_reserve(d, tl, max64(t0, *tx), piece, account);
		int64_t le = a + xfer_ns(piece, d->link_rate);
		*tx = le;
		tl->wb_used += piece;
		if (account && tl->wb_used > d->wb_peak)
			d->wb_peak = tl->wb_used;
		tl->open_fill += piece;
		tl->open_ready = max64(tl->open_ready, le);
		done = le;
		rem -= piece;
		/* stage each 4 KiB page in the unit that receives its last byte */
		while (fl && cur < wend - rem) {
			uint64_t e = ((cur >> FTL_LPAGE_SHIFT) + 1) << FTL_LPAGE_SHIFT;
			if (e > wend)
				e = wend;
			if (e > wend - rem)
				break;
			ftl_stage(d->ftl, ftl_lpn_of(d->ftl, cur));
			cur = e;
		}
		if (tl->open_fill == d->unit_bytes) {
			own_end = max64(own_end, flash_program_unit(d, tl, account));
			own_gc += d->unit_gc_ns;
		}
	}
	if (fua) {
		if (tl->open_fill) {
			own_end = max64(own_end, flash_program_unit(d, tl, account));
			own_gc += d->unit_gc_ns;
		}
		done = max64(done, own_end);
		d->req_gc_ns += own_gc;
	}
	if (fl)
		ftl_note_blocked(d->ftl, true, d->req_gc_ns);
	return done;
}

/* A discard (TRIM / UNMAP / eMMC ERASE with TRIM arg) costs the controller
 * a write command's overhead and no NAND time: the FTL only unmaps. */
static int64_t flash_book_discard(struct flash_dev *d, struct flash_timeline *tl, int64_t now,
				  uint64_t sector, uint32_t nr_sectors, bool account)
{
	d->tl_gen++;
	int64_t t0 = max64(now, tl->ctrl_free) + d->cmd_write_ns;
	tl->ctrl_free = t0;
	if (d->ftl && account)
		ftl_trim(d->ftl, sector << SECTOR_SHIFT, (uint64_t)nr_sectors << SECTOR_SHIFT);
	return t0;
}

/* Background GC: when nothing has been booked on the device for
 * bg_gc_idle_ms before now, each die collects victims in the idle time it
 * had from then until now (only whole victims that end by now, so a host
 * command never waits for background GC). */
static void flash_bg_gc(struct flash_dev *d, int64_t now)
{
	d->tl_gen++;
	struct flash_timeline *tl = &d->tl;
	int64_t idle = ftl_bg_idle_ns(d->ftl);
	if (!idle)
		return;
	int64_t since = max64(max64(tl->ctrl_free, tl->drain_done), max64(tl->link_rx, tl->link_tx));
	for (uint32_t i = 0; i < d->ndies; i++)
		since = max64(since, tl->die_free[i]);
	for (int64_t i = 0; i < d->channels; i++)
		since = max64(since, tl->ch_free[i]);
	if (now - since < idle)
		return;
	for (uint32_t i = 0; i < d->ndies; i++) {
		int64_t start = max64(tl->die_free[i], since + idle);
		int64_t used = ftl_bg_gc(d->ftl, i, now - start);
		if (used)
			tl->die_free[i] = start + used;
	}
}

int64_t flash_book(struct flash_dev *d, struct flash_timeline *tl, int64_t now, bool write,
		   uint32_t flags, uint64_t sector, uint32_t nr_sectors, bool account)
{
	if (flags & REQ_DISCARD)
		return flash_book_discard(d, tl, now, sector, nr_sectors, account);
	/* a flush is a write-direction command even when the caller left
	 * REQ_WRITE off (the kernel's WRITE_FLUSH has it) */
	if (write || (flags & REQ_FLUSH))
		return flash_book_write(d, tl, now, flags, sector, nr_sectors, account);
	return flash_book_read(d, tl, now, sector, nr_sectors, account);
}

/* ------------------------------------------------------- read priority */

/* With read_priority (the default), a full program unit is not booked when
 * it fills: it waits in the drain queue (FIFO) and is booked on its die only
 * when its program would start, i.e. when the die and channel are free and
 * the data is in. A read submitted meanwhile books the die first, so it
 * waits at most for the program in progress (or suspends it), never for the
 * buffered backlog. Buffer space frees when a program really ends; a write
 * that does not fit waits in the admission FIFO and its completion is
 * scheduled when its last byte is admitted. One event (drain_ev) per device
 * fires at the next program start or, while writes wait, the next release.
 * Without reads in between, every program starts at the time the booking
 * at admission (read_priority: false) gives it. */

#define RP_NO_MEMO (UINT32_MAX - 1) /* rp_memo: no answer */

static int64_t rp_drain_slow(struct flash_dev *d, int64_t now, bool force, uint32_t die,
			     uint32_t pos);

/* Releases of buffer space up to time a; the part of e's wait for space
 * that foreground GC before the released program caused is charged to e. */
static void rp_release(struct flash_dev *d, int64_t a, struct flash_wreq *e)
{
	struct flash_timeline *tl = &d->tl;
	while (tl->nrel && tl->rel[tl->relhead].t <= a) { /* rel_sorted: see rel_push */
		struct flash_release r = rel_pop_sorted(tl);
		if (r.gc_ns && e->wait_from >= 0 && r.t > e->wait_from) { /* else it adds 0 */
			int64_t w = r.t - e->wait_from;
			e->gc_ns += w < r.gc_ns ? w : r.gc_ns;
		}
		SIM_ASSERT(tl->wb_used >= r.bytes);
		tl->wb_used -= r.bytes;
	}
}

/* The open unit joins the drain queue (a full queue books its head now). */
static inline void rp_close_open(struct flash_dev *d)
{
	struct flash_timeline *tl = &d->tl;
	if (!tl->open_fill)
		return;
	if (d->qn == d->qcap) /* cannot happen while units are full; kept for safety */
		rp_drain_slow(d, 0, true, RP_NO_MEMO, 0);
	if (!d->qn)
		d->tl_gen++; /* a new head: rp_choose's memo was about another unit */
	uint32_t tail = d->qhead + d->qn; /* both below qcap */
	struct flash_unit *u = &d->q[tail < d->qcap ? tail : tail - d->qcap];
	u->bytes = tl->open_fill;
	u->ready = tl->open_ready;
	u->nlpn = d->open_nlpn;
	d->qn++;
	d->open_nlpn = 0;
	tl->open_fill = 0;
	tl->open_ready = 0;
}

/* rp_choose remembers its last refusal of the head unit: each unit
 * admitted, each drain step and the next drain event ask again about the
 * same head. memo_die is the die it would take (the one that frees first)
 * and memo_next when it can start there, or memo_die is UINT32_MAX for the
 * FTL walk's refusal at memo_now (memo_next: the earliest start on any
 * die). The memo holds while tl_gen has not moved: it is bumped by
 * everything that books or frees a die, a channel or FTL space, and when a
 * unit becomes the head of an empty queue (the head changes otherwise only
 * by a booking, and a queued unit's ready never changes). */
static inline uint32_t rp_refuse(struct flash_dev *d, int64_t now, uint32_t die, uint32_t pos,
				 int64_t next)
{
	d->memo_gen = d->tl_gen;
	d->memo_now = now;
	d->memo_next = next;
	d->memo_die = die;
	d->memo_pos = pos;
	return UINT32_MAX;
}

/* rp_choose's answer for the head at now from the memo: UINT32_MAX refused
 * (*next set), a die (*pos_out set), or RP_NO_MEMO. Without the FTL the die
 * that frees first and the start there do not depend on now, so the memo
 * also answers at a later now (the next drain event): only the start is
 * compared with it. The FTL walk compares other dies with now, so its
 * refusal holds at that now only. */
static inline uint32_t rp_memo(const struct flash_dev *d, int64_t now, uint32_t *pos_out,
			       int64_t *next)
{
	if (d->memo_gen != d->tl_gen)
		return RP_NO_MEMO;
	if (d->memo_die == UINT32_MAX) {
		if (d->memo_now != now)
			return RP_NO_MEMO;
	} else if (d->memo_next <= now) {
		*pos_out = d->memo_pos;
		return d->memo_die;
	}
	*next = d->memo_next;
	return UINT32_MAX;
}

/* With the FTL: the preferred die is busy; a die free by now instead. */
static __attribute__((noinline)) uint32_t rp_choose_ftl(struct flash_dev *d,
							const struct flash_unit *u, int64_t now,
							uint32_t *pos_out, int64_t *next)
{
	struct flash_timeline *tl = &d->tl;
	uint32_t dpc = (uint32_t)d->dies_per_channel;
	uint32_t best = UINT32_MAX;
	struct rr_walk w = rr_walk_at(d, tl->wptr);
	for (uint32_t i = 0; i < d->ndies; i++, rr_walk_next(d, &w)) {
		uint32_t pos = w.pos;
		uint32_t k = rr_walk_die(d, &w);
		int64_t c = max64(u->ready, max64(tl->ch_free[k / dpc], tl->die_free[k]));
		if (c > now) {
			if (c < *next)
				*next = c;
			continue;
		}
		if (best == UINT32_MAX || tl->die_free[k] < tl->die_free[best]) {
			best = k;
			*pos_out = pos;
		}
	}
	return best == UINT32_MAX ? rp_refuse(d, now, UINT32_MAX, 0, *next) : best;
}

/* The die the head unit u starts on by now, or UINT32_MAX with *next set
 * to the earliest time one may be free. The rule is flash_pick_die's, so
 * that without reads every program starts where and when booking at
 * admission puts it. With the FTL, when the die it prefers (valid data
 * below its limit) is busy - typically collecting a victim - a die free
 * now takes the unit instead of every unit queueing behind the preferred
 * one (booking at admission spreads them because each commit moves the
 * preference; a drain that waits does not). */
static inline __attribute__((always_inline)) uint32_t
rp_choose_slow(struct flash_dev *d, const struct flash_unit *u, int64_t now, uint32_t *pos_out,
	       int64_t *next)
{
	struct flash_timeline *tl = &d->tl;
	uint32_t die = flash_pick_die(d, tl, d->ftl != NULL, pos_out);
	int64_t cs = max64(u->ready,
			   max64(tl->ch_free[die / (uint32_t)d->dies_per_channel], tl->die_free[die]));
	if (cs <= now)
		return die;
	*next = cs;
	if (!d->ftl)
		return rp_refuse(d, now, die, *pos_out, cs);
	return rp_choose_ftl(d, u, now, pos_out, next);
}

static inline uint32_t rp_choose(struct flash_dev *d, const struct flash_unit *u, int64_t now,
				 uint32_t *pos_out, int64_t *next)
{
	uint32_t die = rp_memo(d, now, pos_out, next);
	return die != RP_NO_MEMO ? die : rp_choose_slow(d, u, now, pos_out, next);
}

/* Book the queued units whose program starts by now (force: all of them,
 * as a flush or FUA needs). Returns the foreground GC booked before them.
 * die and pos: rp_choose's answer for the head when the caller has it
 * (RP_NO_MEMO: ask). */
static inline __attribute__((always_inline)) int64_t
rp_drain_units(struct flash_dev *d, int64_t now, bool force, uint32_t die, uint32_t pos)
{
	struct flash_timeline *tl = &d->tl;
	int64_t gc = 0;
	while (d->qn) {
		struct flash_unit *u = &d->q[d->qhead];
		int64_t next;
		if (force)
			die = flash_pick_die(d, tl, d->ftl != NULL, &pos);
		else if (die == RP_NO_MEMO && (die = rp_choose(d, u, now, &pos, &next)) == UINT32_MAX)
			break;
		for (uint32_t i = 0; d->ftl && i < u->nlpn; i++) {
			SIM_ASSERT(d->ln > 0);
			ftl_stage(d->ftl, d->lpn_ring[d->lhead]);
			d->lhead = (d->lhead + 1) % d->lcap;
			d->ln--;
		}
		flash_book_unit(d, tl, u->bytes, u->ready, die, pos, true);
		gc += d->unit_gc_ns;
		d->qhead = d->qhead + 1 < d->qcap ? d->qhead + 1 : 0;
		d->qn--;
		die = RP_NO_MEMO;
	}
	return gc;
}

static int64_t rp_drain_slow(struct flash_dev *d, int64_t now, bool force, uint32_t die,
			     uint32_t pos)
{
	return rp_drain_units(d, now, force, die, pos);
}

static inline int64_t rp_drain(struct flash_dev *d, int64_t now, bool force)
{
	if (!d->qn)
		return 0;
	uint32_t pos = 0, die = RP_NO_MEMO;
	int64_t next;
	if (!force && (die = rp_memo(d, now, &pos, &next)) == UINT32_MAX)
		return 0;
	return rp_drain_slow(d, now, force, die, pos);
}

/* Admit as much of e as fits; true when all of it is in (its completion
 * time is then e->done). */
static bool rp_admit_one(struct flash_dev *d, struct flash_wreq *e, int64_t now)
{
	struct flash_timeline *tl = &d->tl;
	int64_t *tx = d->full_duplex ? &tl->link_tx : &tl->link_rx;
	if (!e->flushed) {
		e->flushed = true;
		if (e->flags & REQ_FLUSH) {
			/* a pre-flush drains everything buffered before it */
			rp_close_open(d);
			rp_drain(d, now, true);
			e->t0 = max64(e->t0, tl->drain_done) + d->flush_ns;
		}
		e->done = e->t0;
	}
	while (e->pos < e->end) {
		uint64_t piece = d->unit_bytes - tl->open_fill;
		if (piece > e->end - e->pos)
			piece = e->end - e->pos;
		int64_t a = max64(max64(e->t0, *tx), now);
		rp_release(d, a, e);
		if (tl->wb_used + piece > d->wbuf_bytes && (tl->nrel || d->qn)) {
			if (e->wait_from < 0)
				e->wait_from = a;
			return false;
		}
		if (e->wait_from >= 0) {
			d->buffer_stalls++;
			d->buffer_stall_ns += a - e->wait_from;
			e->wait_from = -1;
		}
		/* a whole unit's link time is the same every time */
		int64_t le = a + (piece == d->unit_bytes ? d->unit_link_ns
							 : xfer_ns(piece, d->link_rate));
		*tx = le;
		tl->wb_used += piece;
		if (tl->wb_used > d->wb_peak)
			d->wb_peak = tl->wb_used;
		SIM_ASSERT(tl->wb_used <= d->wbuf_bytes);
		tl->open_fill += piece;
		tl->open_ready = max64(tl->open_ready, le);
		e->done = le;
		e->pos += piece;
		/* stage each 4 KiB page in the unit that receives its last byte */
		while (d->ftl && e->cur < e->pos) {
			uint64_t x = ((e->cur >> FTL_LPAGE_SHIFT) + 1) << FTL_LPAGE_SHIFT;
			if (x > e->end)
				x = e->end;
			if (x > e->pos)
				break;
			SIM_ASSERT(d->ln < d->lcap);
			d->lpn_ring[(d->lhead + d->ln) % d->lcap] = ftl_lpn_of(d->ftl, e->cur);
			d->ln++;
			d->open_nlpn++;
			e->cur = x;
		}
		if (tl->open_fill == d->unit_bytes) {
			rp_close_open(d);
			rp_drain(d, now, false);
		}
	}
	if ((e->flags & REQ_FUA) || !d->write_cache) {
		/* durable: after the programs of everything buffered so far */
		rp_close_open(d);
		e->gc_ns += rp_drain(d, now, true);
		e->done = max64(e->done, tl->drain_done);
	}
	return true;
}

/* Admit waiting writes in FIFO order; each fully admitted one completes. */
static void rp_admit(struct flash_dev *d, int64_t now)
{
	while (d->wn) {
		struct flash_wreq *e = &d->wq[d->whead];
		if (!rp_admit_one(d, e, now))
			break;
		if (d->ftl)
			ftl_note_blocked(d->ftl, true, e->gc_ns);
		SIM_ASSERT(e->done >= now);
		sim_at(d->dev->sim, &e->rq->dev_event, e->done);
		d->whead = d->whead + 1 < d->wcap ? d->whead + 1 : 0;
		d->wn--;
	}
}

/* Arm drain_ev for the next program start, or the next release of space
 * while a write waits for it. */
static inline __attribute__((always_inline)) void rp_arm(struct flash_dev *d, int64_t now)
{
	struct flash_timeline *tl = &d->tl;
	int64_t t = INT64_MAX;
	if (d->qn) {
		uint32_t pos;
		int64_t next = now;
		/* rp_drain left the head waiting: no die takes it by now */
		if (rp_choose(d, &d->q[d->qhead], now, &pos, &next) == UINT32_MAX)
			t = next;
		else
			t = now;
	}
	if (d->wn && tl->nrel && tl->rel[tl->relhead].t < t) /* rel_sorted */
		t = tl->rel[tl->relhead].t;
	if (t == INT64_MAX) {
		if (sim_event_pending(&d->drain_ev))
			sim_cancel(d->dev->sim, &d->drain_ev);
		return;
	}
	t = max64(t, now);
	if (!sim_event_pending(&d->drain_ev) || d->drain_ev.when != t)
		sim_at(d->dev->sim, &d->drain_ev, t);
}

static void rp_step(struct flash_dev *d, int64_t now)
{
	/* rp_drain with the drain loop in line: a drain event books here */
	uint32_t pos = 0, die;
	int64_t next;
	if (d->qn && (die = rp_memo(d, now, &pos, &next)) != UINT32_MAX)
		rp_drain_units(d, now, false, die, pos);
	rp_admit(d, now);
	rp_arm(d, now);
}

static void rp_fire(struct sim *sim, struct sim_event *ev)
{
	struct flash_dev *d = container_of(ev, struct flash_dev, drain_ev);
	rp_step(d, sim_now(sim));
}

/* A write or flush under read_priority: the command overhead now, then it
 * joins the admission FIFO. Returns SIM_E_NOMEM if the FIFO cannot grow. */
static int rp_submit_write(struct flash_dev *d, struct io_request *rq, int64_t now)
{
	struct flash_timeline *tl = &d->tl;
	if (d->wn == d->wcap) {
		uint32_t cap = d->wcap * 2;
		struct flash_wreq *n = malloc(cap * sizeof(*n));
		if (!n)
			return SIM_E_NOMEM;
		for (uint32_t i = 0; i < d->wn; i++)
			n[i] = d->wq[(d->whead + i) % d->wcap];
		free(d->wq);
		d->wq = n;
		d->wcap = cap;
		d->whead = 0;
	}
	int64_t t0 = max64(now, tl->ctrl_free) + d->cmd_write_ns;
	if (rq->nr_sectors) {
		if (rq->sector != tl->next_wsector)
			t0 += d->rand_write_ns;
		tl->next_wsector = rq->sector + rq->nr_sectors;
	}
	tl->ctrl_free = t0;
	struct flash_wreq *e = &d->wq[(d->whead + d->wn) % d->wcap];
	memset(e, 0, sizeof(*e));
	e->rq = rq;
	e->pos = e->cur = rq->sector << SECTOR_SHIFT;
	e->end = e->pos + ((uint64_t)rq->nr_sectors << SECTOR_SHIFT);
	e->t0 = t0;
	e->wait_from = -1;
	e->flags = rq->flags;
	d->wn++;
	return 0;
}

static int rp_init(struct flash_dev *d, struct device *dev)
{
	d->dev = dev;
	d->tl_gen = 1; /* rp_choose's memo (memo_gen 0) holds nothing yet */
	sim_event_init(&d->drain_ev, rp_fire);
	/* queued units are full ones (partial units are only closed by a
	 * flush or FUA, which books them at once) */
	d->qcap = (uint32_t)(d->wbuf_bytes / d->unit_bytes) + 2;
	d->q = calloc(d->qcap, sizeof(*d->q));
	d->wcap = dev->queue_depth ? dev->queue_depth : 32;
	d->wq = calloc(d->wcap, sizeof(*d->wq));
	if (!d->q || !d->wq)
		return SIM_E_NOMEM;
	if (d->ftl_cfg.enabled) {
		/* a unit holds the last bytes of at most ceil(unit / 4 KiB) + 1 pages */
		uint64_t per = ((d->unit_bytes + FTL_LPAGE_BYTES - 1) >> FTL_LPAGE_SHIFT) + 1;
		d->lcap = (uint32_t)((d->qcap + 1) * per);
		d->lpn_ring = calloc(d->lcap, sizeof(*d->lpn_ring));
		if (!d->lpn_ring)
			return SIM_E_NOMEM;
	}
	return 0;
}

static void rp_free(struct flash_dev *d)
{
	if (d->dev && sim_event_pending(&d->drain_ev))
		sim_cancel(d->dev->sim, &d->drain_ev);
	free(d->q);
	free(d->wq);
	free(d->lpn_ring);
	d->q = NULL;
	d->wq = NULL;
	d->lpn_ring = NULL;
}

/* ----------------------------------------------------------------- hooks */

static void flash_destroy(struct device *dev);

static int flash_init(struct device *dev, struct cfg_node *node, struct sim_error *err)
{
	struct flash_dev *d = dev->priv;
	int64_t dies = d->dies;

	if (dies % d->channels)
		return cfg_errorf(err, cfg_get(node, "dies") ? cfg_get(node, "dies") : node,
				  "dies (%lld) must be a multiple of channels (%lld)", (long long)dies,
				  (long long)d->channels);
	if (d->page_bytes % SECTOR_SIZE)
		return cfg_errorf(err, cfg_get(node, "page_kib") ? cfg_get(node, "page_kib") : node,
				  "page size must be a multiple of 512 bytes");
	d->ndies = (uint32_t)dies;
	d->dies_per_channel = dies / d->channels;
	d->unit_bytes = d->page_bytes * (uint64_t)d->planes;
	if (d->wbuf_bytes < d->unit_bytes)
		return cfg_errorf(err, cfg_get(node, "wbuf_kib") ? cfg_get(node, "wbuf_kib") : node,
				  "write buffer (%llu B) must hold one program unit of planes x page "
				  "(%llu B)",
				  (unsigned long long)d->wbuf_bytes, (unsigned long long)d->unit_bytes);
	bool ufs = flash_link_is_ufs(d->link);
	if (!ufs && d->lanes != 1)
		return cfg_errorf(err, cfg_get(node, "lanes") ? cfg_get(node, "lanes") : node,
				  "eMMC has one 8-bit bus: lanes must be 1");
	double lane = flash_lane_bps[d->link];
	double rate = d->link_bps_override > 0 ? d->link_bps_override : lane * (double)d->lanes;
	rate *= d->link_efficiency;
	d->link_rate = rate < 1.0 ? 1 : (uint64_t)(rate + 0.5);
	d->ch_rate = d->channel_bps < 1.0 ? 1 : (uint64_t)(d->channel_bps + 0.5);
	d->unit_ch_ns = xfer_ns(d->unit_bytes, d->ch_rate);
	d->unit_link_ns = xfer_ns(d->unit_bytes, d->link_rate);
	d->page_shift = pow2_shift(d->page_bytes);
	d->ch_shift = pow2_shift((uint64_t)d->channels);
	d->dpc_shift = pow2_shift((uint64_t)d->dies_per_channel);
	d->row_shift = pow2_shift((uint64_t)d->ndies * (uint64_t)d->planes);
	/* empty memos: xfer_ns(0, rate) is 0, so they answer 0 bytes rightly too */
	d->xm_ch.bytes = d->xm_ch_cw.bytes = d->xm_link.bytes = d->xm_link_cw.bytes = 0;
	d->full_duplex = ufs;
	dev->link_bps = d->link_rate; /* the core's figure; the model times the link itself */
	dev->link_full_duplex = ufs;

	if (d->queue_depth > 0)
		dev->queue_depth = (uint32_t)d->queue_depth;
	else
		dev->queue_depth = (ufs || d->cmdq) ? 32 : 1;

	struct cfg_node *fnode = cfg_get(node, "ftl");
	int rc = ftl_parse(fnode, &d->ftl_cfg, err);
	if (rc)
		return rc;

	d->round_key = calloc(d->ndies, sizeof(*d->round_key));
	d->round_ready = calloc(d->ndies, sizeof(*d->round_ready));
	d->round_gen = calloc(d->ndies, sizeof(*d->round_gen));
	d->rr_die = calloc(2 * (size_t)d->ndies, sizeof(*d->rr_die));
	if (d->rr_die)
		for (uint32_t pos = 0; pos < 2 * d->ndies; pos++) {
			struct rr_walk w = rr_walk_at(d, pos);
			d->rr_die[pos] = rr_walk_die(d, &w);
		}
	if (!d->round_key || !d->round_ready || !d->round_gen || !d->rr_die || tl_init(&d->tl, d) ||
	    tl_init(&d->scratch, d)) {
		free(d->round_key);
		free(d->round_ready);
		free(d->round_gen);
		free(d->rr_die);
		tl_free(&d->tl);
		tl_free(&d->scratch);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory building the flash device");
	}
	d->tl.rel_sorted = d->read_priority; /* only rp_release takes its releases */
	if (d->ftl_cfg.enabled) {
		struct ftl_geom g = { .ndies = d->ndies, .planes = (uint32_t)d->planes,
				      .page_bytes = d->page_bytes, .read_ns = d->read_ns,
				      .prog_ns = d->prog_ns };
		d->gc_start = calloc(d->ndies, sizeof(*d->gc_start));
		d->gc_end = calloc(d->ndies, sizeof(*d->gc_end));
		rc = (!d->gc_start || !d->gc_end)
			     ? sim_errorf(err, SIM_E_NOMEM, "out of memory building the flash device")
			     : ftl_create(&d->ftl_cfg, &g, fnode ? fnode : node, &d->ftl, err);
		if (rc) {
			free(d->gc_start);
			free(d->gc_end);
			d->gc_start = d->gc_end = NULL;
			free(d->round_key);
			free(d->round_ready);
			free(d->round_gen);
			free(d->rr_die);
			tl_free(&d->tl);
			tl_free(&d->scratch);
			return rc;
		}
	}
	if (rp_init(d, dev)) {
		rp_free(d);
		flash_destroy(dev);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory building the flash device");
	}
	return 0;
}

static void flash_destroy(struct device *dev)
{
	struct flash_dev *d = dev->priv;
	rp_free(d);
	free(d->round_key);
	free(d->round_ready);
	free(d->round_gen);
	free(d->rr_die);
	tl_free(&d->tl);
	tl_free(&d->scratch);
	ftl_destroy(d->ftl);
	free(d->gc_start);
	free(d->gc_end);
}

static void flash_done(struct sim *sim, struct sim_event *ev)
{
	struct io_request *rq = container_of(ev, struct io_request, dev_event);
	struct device *dev = rq->dev_priv;
	struct flash_dev *d = dev->priv;
	device_complete(dev, rq);
	if (dev->inflight == 0) /* idle once the write buffer has drained too */
		d->idle_from = max64(sim_now(sim), d->tl.drain_done);
}

/* WriteBooster flush during HIBERN8: a command that finds the device idle
 * credits the buffer with what the device flushed since it entered
 * HIBERN8 (hibern8_idle after it went idle), at slc_fold_mbps. */
static void flash_wb_idle_flush(struct device *dev, struct flash_dev *d, int64_t now)
{
	if (!d->slc_bytes || !d->slc_flush || dev->inflight != 1)
		return;
	int64_t from = d->idle_from + d->hibern8_idle_ns;
	if (now > from) {
		d->tl.slc_used -= d->slc_fold_bps * (double)(now - from) / 1e9;
		if (d->tl.slc_used < 0)
			d->tl.slc_used = 0;
		d->wb_idle_flushes++;
	}
	d->idle_from = INT64_MAX / 2;
}

static void flash_submit(struct device *dev, struct io_request *rq)
{
	struct flash_dev *d = dev->priv;
	int64_t now = sim_now(dev->sim);
	if (d->ftl && dev->inflight <= 1 && !d->qn && !d->wn)
		flash_bg_gc(d, now);
	flash_wb_idle_flush(dev, d, now);
	rq->dev_priv = dev;
	sim_event_init(&rq->dev_event, flash_done);
	if (d->read_priority) {
		bool write = req_is_write(rq->flags) || (rq->flags & REQ_FLUSH);
		rp_step(d, now);
		if (write && !(rq->flags & REQ_DISCARD)) {
			if (rp_submit_write(d, rq, now)) {
				sim_fail(dev->sim, SIM_E_NOMEM, "flash: out of memory queueing a write");
				return;
			}
			rp_step(d, now);
			return;
		}
		/* a trim must not be undone by buffered copies committed later */
		if ((rq->flags & REQ_DISCARD) && d->ftl)
			rp_drain(d, now, true);
	}
	int64_t done = flash_book(d, &d->tl, now, req_is_write(rq->flags), rq->flags, rq->sector,
				  rq->nr_sectors, true);
	SIM_ASSERT(done >= now);
	sim_at(dev->sim, &rq->dev_event, done);
	if (d->read_priority)
		rp_arm(d, now); /* the read moved the next program start */
}

static int64_t flash_idle_latency(struct device *dev, bool write, uint64_t bytes)
{
	struct flash_dev *d = dev->priv;
	tl_reset(&d->scratch, d);
	uint64_t sectors = (bytes + SECTOR_SIZE - 1) >> SECTOR_SHIFT;
	if (sectors > UINT32_MAX)
		sectors = UINT32_MAX;
	return flash_book(d, &d->scratch, 0, write, write ? REQ_WRITE : 0, 0, (uint32_t)sectors,
			  false);
}

static void flash_stats_json(const struct device *dev, json_t *obj)
{
	const struct flash_dev *d = dev->priv;
	json_t *f = json_object();
	if (!f)
		return;
	json_object_set_new(f, "link_bytes_per_s", json_integer((json_int_t)d->link_rate));
	json_object_set_new(f, "full_duplex", json_boolean(d->full_duplex));
	json_object_set_new(f, "page_reads", json_integer((json_int_t)d->page_reads));
	json_object_set_new(f, "programs", json_integer((json_int_t)d->programs));
	json_object_set_new(f, "slc_programs", json_integer((json_int_t)d->slc_programs));
	json_object_set_new(f, "wb_idle_flushes", json_integer((json_int_t)d->wb_idle_flushes));
	json_object_set_new(f, "buffer_stalls", json_integer((json_int_t)d->buffer_stalls));
	json_object_set_new(f, "buffer_stall_ns", json_integer((json_int_t)d->buffer_stall_ns));
	json_object_set_new(f, "buffer_peak_bytes", json_integer((json_int_t)d->wb_peak));
	json_object_set_new(f, "reads_behind_program", json_integer((json_int_t)d->prog_waits));
	json_object_set_new(f, "read_program_wait_ns", json_integer((json_int_t)d->prog_wait_ns));
	json_object_set_new(f, "program_suspends", json_integer((json_int_t)d->suspends));
	if (d->ftl)
		ftl_stats_json(d->ftl, f);
	json_object_set_new(obj, "flash", f);
}

const struct device_ops flash_device_ops = {
	.name = "flash",
	.summary = "multi-die eMMC/UFS: channels x dies x planes, tR/tPROG, link, write buffer",
	.params = flash_params,
	.priv_size = sizeof(struct flash_dev),
	.init = flash_init,
	.destroy = flash_destroy,
	.submit = flash_submit,
	.idle_latency_ns = flash_idle_latency,
	.stats_json = flash_stats_json,
	.models_link = true,
};
