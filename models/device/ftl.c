/* Page-mapping FTL with garbage collection, wear levelling and TRIM, for
 * the multi-die flash model (models/device/flash.c).
 *
 * What it models. The mapping unit is a 4 KiB logical page (lpn); a NAND
 * page of page_kib holds page_kib / 4 of them ("slots"). A die's block is
 * a multi-plane block: one block in each plane erased together and
 * programmed a row at a time (one page per plane = the flash model's
 * program unit), so a block holds pages_per_block x planes x slots-per-page
 * slots. Each die has one active block that takes host writes and GC
 * copies in slot order (log-structured); flash.c chooses the die of each
 * program unit (the least-loaded die: the one whose timeline frees first,
 * ties in channel-first round-robin order), and this file vetoes a die
 * whose valid data is at its limit. Over-provisioning is a % of raw
 * capacity (Desnoyers' spare factor): raw = logical / (1 - op_pct/100).
 *
 * GC. Before a program on a die whose free blocks are <= gc_free_blocks,
 * foreground GC collects victims until it has more (the host program, and
 * through the write buffer the host writes behind it, wait: that is the
 * GC-induced latency). Victims: greedy (fewest valid pages) or cost-benefit
 * (max age * (1 - u) / (1 + u), Rosenblum & Ousterhout, "The Design and
 * Implementation of a Log-Structured File System", TOCS 1992, sec. 3.6;
 * age = host writes since the block was closed). Valid pages are copied
 * inside the die (copyback): one tR per multi-plane row holding valid
 * data, one tPROG per program unit of copies, then tBERS. Background GC
 * runs in idle time (see flash.c) up to bg_gc_free_blocks. Free blocks are
 * allocated lowest erase count first (dynamic WL); static WL collects the
 * least-erased full block when a die's erase-count spread exceeds
 * wl_threshold, so cold data moves onto worn blocks.
 *
 * Left out: mapping-table caching (DFTL-style misses), hot/cold stream
 * separation of host and GC writes, partial-page programming, read-modify-
 * write of sub-4 KiB writes (a partial 4 KiB page counts as a whole one),
 * bad blocks, read disturb and retention, GC preemption by host I/O (a
 * started foreground victim completes), and the per-plane placement of a
 * copy (copies are counted in program units, not aligned to rows).
 *
 * Memory: l2p (4 B per logical page) and p2l (4 B per physical slot) are
 * calloc'ed, so the kernel maps their pages lazily: a 32 GiB device needs
 * 32 MiB + 34 MiB only as far as it is written. Block state is 16 B per
 * block.
 */
#include "models/device/ftl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "sim/assert.h"
#include "sim/rng.h"
#include "sim/stats.h"

/* ------------------------------------------------------------ tunables */

static const char *const ftl_victim_names[] = { "greedy", "cost_benefit", NULL };
static const char *const ftl_pc_names[] = { "steady", "simulate", NULL };

#define FT_OFF(f) offsetof(struct ftl_cfg, f)

const struct cfg_param ftl_params[] = {
	{ "enabled", CFG_T_BOOL, FT_OFF(enabled), "", "false", CFG_NO_RANGE,
	  "off by default: the presets are calibrated with the amortised rand_write_us",
	  "model mapping and garbage collection", NULL },
	{ "capacity_gib", CFG_T_SIZE, FT_OFF(capacity_bytes), "GiB", "32", 0.0001, 65536,
	  "32 GB class phones of 2015-18; smaller for fast runs (LBAs wrap modulo it)",
	  "logical capacity simulated", NULL },
	{ "op_pct", CFG_T_DOUBLE, FT_OFF(op_pct), "%", "7", 0.5, 75,
	  "[RECALL] 7 % = the GiB/GB difference consumer parts keep; Desnoyers (SYSTOR'12) spare factor",
	  "over-provisioning, % of raw capacity", NULL },
	{ "pages_per_block", CFG_T_INT, FT_OFF(pages_per_block), "", "512", 4, 4096,
	  "Micron MT29F128G08CBECB datasheet (128 Gbit MLC, ONFI 3.2): 16,384 B pages, 512 pages "
	  "per block; its 8 KiB-page predecessor MT29F64G08CBAB: 256",
	  "NAND pages per block (per plane)", NULL },
	{ "blocks_per_die", CFG_T_INT, FT_OFF(blocks_per_die), "", "0", 0, 1 << 20,
	  "0 = from capacity_gib and op_pct; MT29F128G08CBECB: 2 planes x 1048 blocks per 128 Gbit die",
	  "multi-plane blocks per die (set: capacity = raw x (1 - op))", NULL },
	{ "erase_us", CFG_T_TIME, FT_OFF(erase_ns), "us", "3000", 0, 1e6,
	  "MT29F128G08CBECB and MT29F64G08CBAB datasheets: erase block 3 ms (typ)",
	  "block erase time tBERS", NULL },
	{ "gc_free_blocks", CFG_T_INT, FT_OFF(gc_free_blocks), "", "2", 1, 1 << 16,
	  "[INFER] a few blocks per die kept back; MQSim's GC_Hard_Threshold is 0.5 % of blocks [RECALL]",
	  "foreground GC when a die's free blocks fall to this", NULL },
	{ "gc_incremental", CFG_T_BOOL, FT_OFF(gc_incremental), "", "true", CFG_NO_RANGE,
	  "preemptible GC: Lee et al., TCAD 2013 (and MQSim's GC preemption); false = a victim is "
	  "collected whole, blocking its die for ~valid x tPROG / planes",
	  "copy a victim's valid pages a few at a time, before each host program on the die", NULL },
	{ "bg_gc_free_blocks", CFG_T_INT, FT_OFF(bg_gc_free_blocks), "", "8", 0, 1 << 16,
	  "[INFER] MQSim's GC_Exec_Threshold is 5 % of blocks [RECALL]",
	  "background GC collects until a die has this many free blocks", NULL },
	{ "bg_gc_idle_ms", CFG_T_TIME, FT_OFF(bg_gc_idle_ns), "ms", "100", 0, 1e7,
	  "[INFER] idle-time GC after ~100 ms (Android's idle maintenance is minutes; devices act sooner)",
	  "device idle time before background GC; 0 = no background GC", NULL },
	{ "victim", CFG_T_ENUM, FT_OFF(victim), "", "greedy", CFG_NO_RANGE,
	  "greedy; cost_benefit = Rosenblum & Ousterhout TOCS'92 age*(1-u)/(1+u)",
	  "GC victim selection", ftl_victim_names },
	{ "wl_threshold", CFG_T_INT, FT_OFF(wl_threshold), "", "64", 0, 1e9,
	  "[INFER] static WL threshold; 3K P/E MLC parts level within a few % of endurance",
	  "static wear levelling when a die's erase-count spread exceeds it; 0 = off", NULL },
	{ "precondition", CFG_T_BOOL, FT_OFF(precondition), "", "false", CFG_NO_RANGE,
	  "SNIA SSS PTS: sequential fill, then random overwrite, before steady-state tests",
	  "start from a filled, randomly overwritten device", NULL },
	{ "precondition_mode", CFG_T_ENUM, FT_OFF(precondition_mode), "", "steady", CFG_NO_RANGE,
	  "steady: FIFO-cleaning steady state (Desnoyers SYSTOR'12), which greedy tracks within "
	  "a few % (tests/models/device/test_ftl.c); simulate: the fill and overwrite page by page",
	  "how preconditioning builds the tables", ftl_pc_names },
	{ "precondition_overwrite", CFG_T_DOUBLE, FT_OFF(precondition_overwrite), "", "2", 0, 100,
	  "SNIA SSS PTS fills twice the capacity; 2x random overwrite is near steady state",
	  "random overwrite after the fill, as a multiple of the logical pages", NULL },
	{ "seed", CFG_T_INT, FT_OFF(seed), "", "1", 0, 1e18,
	  "fixed so that preconditioning is a pure function of the config",
	  "seed of the preconditioning's random overwrite", NULL },
	CFG_PARAM_END,
};

/* ---------------------------------------------------------------- state */

enum ftl_bstate { FTL_B_FREE = 0, FTL_B_ACTIVE, FTL_B_USED };

struct ftl_block {
	uint32_t valid;   /* slots holding the current copy of some lpn */
	uint32_t wp;      /* slots written since the erase */
	uint32_t ec;      /* erase count */
	uint8_t state;
	uint64_t closed;  /* host-write clock when it filled (cost-benefit age) */
};

struct ftl_die {
	uint32_t active;  /* block index inside the die */
	uint32_t nfree;
	uint64_t valid;   /* valid slots on the die */
	uint32_t ec_max;  /* largest erase count on the die */
	uint32_t ec_min;  /* a lower bound of the smallest (exact after a WL scan) */
	uint32_t gc_victim; /* incremental GC in progress on this block, or UINT32_MAX */
	uint32_t gc_cursor; /* next slot of it to look at */
	uint64_t gc_quota;  /* valid slots to copy per host program */
};

struct ftl {
	struct ftl_cfg cfg;
	struct ftl_geom g;
	uint32_t spp;        /* slots per NAND page */
	uint32_t spu;        /* slots per program unit (row) */
	uint32_t spb;        /* slots per block */
	uint32_t bpd;        /* blocks per die */
	uint64_t nlpn;       /* logical pages */
	uint64_t nppn;       /* physical slots */
	uint64_t die_limit;  /* valid slots a die may hold (ftl_die_ok) */

	uint32_t *l2p;       /* lpn -> ppn + 1; 0 = unmapped */
	uint32_t *p2l;       /* ppn -> lpn + 1; 0 = free or stale */
	struct ftl_block *blk;
	struct ftl_die *die;
	uint64_t *stage;
	uint32_t nstage, capstage;
	uint64_t clock;      /* host pages written, ever (ages for cost-benefit) */

	struct ftl_stats st;
	struct stats_dist blocked_w, blocked_r;
	uint64_t blocked_w_n, blocked_r_n; /* requests that waited at all */
};

/* -------------------------------------------------------------- helpers */

/* Zeroed table of n entries, mapped lazily; huge pages where the kernel
 * allows them (madvise mode), since every access is random. Debug builds
 * use calloc so that the sanitizers see the bounds. NULL on failure. */
static uint32_t *ftl_table_alloc(uint64_t n)
{
#ifdef SIM_DEBUG
	return calloc(n, sizeof(uint32_t));
#endif
	size_t len = (size_t)n * sizeof(uint32_t);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
}

static void ftl_table_free(uint32_t *t, uint64_t n)
{
#ifdef SIM_DEBUG
	(void)n;
	free(t);
	return;
#endif
	if (t)
		munmap(t, (size_t)n * sizeof(uint32_t));
}

static inline struct ftl_block *ftl_blk(struct ftl *f, uint32_t die, uint32_t b)
{
	return &f->blk[(uint64_t)die * f->bpd + b];
}

static inline uint64_t ftl_ppn(const struct ftl *f, uint32_t die, uint32_t b, uint32_t slot)
{
	return ((uint64_t)die * f->bpd + b) * f->spb + slot;
}

/* The current copy of lpn, if any, goes stale. */
static void ftl_invalidate(struct ftl *f, uint64_t lpn)
{
	uint32_t m = f->l2p[lpn];
	if (!m)
		return;
	uint64_t p = m - 1;
	uint64_t gb = p / f->spb;
	SIM_ASSERT(f->p2l[p] == lpn + 1);
	f->p2l[p] = 0;
	f->l2p[lpn] = 0;
	SIM_ASSERT(f->blk[gb].valid > 0);
	f->blk[gb].valid--;
	f->die[gb / f->bpd].valid--;
}

/* Free block of die with the lowest erase count (lowest index on ties):
 * dynamic wear levelling. UINT32_MAX when none. */
static uint32_t ftl_alloc_block(struct ftl *f, uint32_t die)
{
	uint32_t best = UINT32_MAX;
	for (uint32_t b = 0; b < f->bpd; b++) {
		const struct ftl_block *k = ftl_blk(f, die, b);
		if (k->state == FTL_B_FREE && (best == UINT32_MAX || k->ec < ftl_blk(f, die, best)->ec))
			best = b;
	}
	return best;
}

/* An active block with room on die (closing a full one). Returns false
 * only if no free block is left, which the GC thresholds prevent. */
static bool ftl_ensure_active(struct ftl *f, uint32_t die)
{
	struct ftl_die *d = &f->die[die];
	struct ftl_block *a = d->active != UINT32_MAX ? ftl_blk(f, die, d->active) : NULL;
	if (a && a->wp < f->spb)
		return true;
	if (a) {
		a->state = FTL_B_USED;
		a->closed = f->clock;
	}
	uint32_t b = ftl_alloc_block(f, die);
	if (b == UINT32_MAX) {
		d->active = UINT32_MAX;
		return false;
	}
	ftl_blk(f, die, b)->state = FTL_B_ACTIVE;
	d->active = b;
	d->nfree--;
	return true;
}

/* Next slot of die's active block for lpn (UINT64_MAX = padding). */
static void ftl_place(struct ftl *f, uint32_t die, uint64_t lpn)
{
	bool ok = ftl_ensure_active(f, die);
	SIM_ASSERT(ok);
	if (!ok)
		return;
	struct ftl_die *d = &f->die[die];
	struct ftl_block *a = ftl_blk(f, die, d->active);
	uint64_t p = ftl_ppn(f, die, d->active, a->wp++);
	if (lpn != UINT64_MAX) {
		f->p2l[p] = (uint32_t)(lpn + 1);
		f->l2p[lpn] = (uint32_t)(p + 1);
		a->valid++;
		d->valid++;
	}
}

/* Victim on die by the configured policy among full blocks with at least
 * one stale slot; UINT32_MAX when none. Ties: lowest index. */
static uint32_t ftl_pick_victim(const struct ftl *f, uint32_t die)
{
	uint32_t best = UINT32_MAX;
	double best_score = -1;
	for (uint32_t b = 0; b < f->bpd; b++) {
		const struct ftl_block *k = &f->blk[(uint64_t)die * f->bpd + b];
		if (k->state != FTL_B_USED || k->valid >= f->spb || b == f->die[die].gc_victim)
			continue;
		double score;
		if (f->cfg.victim == FTL_VICTIM_GREEDY) {
			score = (double)(f->spb - k->valid);
		} else {
			double u = (double)k->valid / f->spb;
			double age = (double)(f->clock - k->closed) + 1.0;
			score = age * (1.0 - u) / (1.0 + u);
		}
		if (score > best_score) {
			best_score = score;
			best = b;
		}
	}
	return best;
}

/* Die time and counts of collecting block b of die, without doing it. */
static void ftl_victim_cost(const struct ftl *f, uint32_t die, uint32_t b, struct ftl_work *w)
{
	const struct ftl_block *k = &f->blk[(uint64_t)die * f->bpd + b];
	uint64_t base = ftl_ppn(f, die, b, 0);
	uint64_t rows = 0;
	for (uint32_t r = 0; r < f->spb / f->spu; r++) {
		for (uint32_t s = 0; s < f->spu; s++)
			if (f->p2l[base + (uint64_t)r * f->spu + s]) {
				rows++;
				break;
			}
	}
	w->reads = rows;
	w->programs = (k->valid + f->spu - 1) / f->spu;
	w->erases = 1;
	w->ns = (int64_t)rows * f->g.read_ns + (int64_t)w->programs * f->g.prog_ns +
		f->cfg.erase_ns;
}

static void ftl_work_add(struct ftl_work *acc, const struct ftl_work *w)
{
	acc->reads += w->reads;
	acc->programs += w->programs;
	acc->erases += w->erases;
	acc->ns += w->ns;
}

/* Copy up to max valid slots of block b of die into the die's active
 * block, scanning from *cursor, and erase b once none is left. Adds the
 * work to w: one tR per multi-plane row it read valid data from, one
 * tPROG per program unit of copies, tBERS. Returns true if b was erased. */
static bool ftl_copy_some(struct ftl *f, uint32_t die, uint32_t b, uint32_t *cursor, uint64_t max,
			  struct ftl_work *w)
{
	struct ftl_block *k = ftl_blk(f, die, b);
	uint64_t base = ftl_ppn(f, die, b, 0);
	uint64_t rows = 0, last_row = UINT64_MAX, copied = 0;
	uint32_t s = *cursor;
	for (; s < f->spb && k->valid && copied < max; s++) {
		/* the l2p updates are random: fetch a few slots ahead */
		if (s + 16 < f->spb && f->p2l[base + s + 16])
			__builtin_prefetch(&f->l2p[f->p2l[base + s + 16] - 1], 1);
		uint32_t m = f->p2l[base + s];
		if (!m)
			continue;
		if (s / f->spu != last_row) {
			last_row = s / f->spu;
			rows++;
		}
		/* the copy's old slot is known: no l2p lookup (hot path of
		 * the preconditioning) */
		f->p2l[base + s] = 0;
		k->valid--;
		f->die[die].valid--;
		ftl_place(f, die, m - 1);
		copied++;
	}
	*cursor = s;
	uint64_t progs = (copied + f->spu - 1) / f->spu;
	f->st.copies += copied;
	f->st.nand_pages += copied;
	w->reads += rows;
	w->programs += progs;
	w->ns += (int64_t)rows * f->g.read_ns + (int64_t)progs * f->g.prog_ns;
	if (k->valid)
		return false;
	k->state = FTL_B_FREE;
	k->wp = 0;
	k->ec++;
	if (k->ec > f->die[die].ec_max)
		f->die[die].ec_max = k->ec;
	f->die[die].nfree++;
	f->st.erases++;
	w->erases++;
	w->ns += f->cfg.erase_ns;
	return true;
}

/* Collect block b of die whole. */
static void ftl_collect(struct ftl *f, uint32_t die, uint32_t b, struct ftl_work *w)
{
	uint32_t cursor = 0;
	bool erased = ftl_copy_some(f, die, b, &cursor, UINT64_MAX, w);
	SIM_ASSERT(erased);
	(void)erased;
}

/* Static wear levelling after an erase on die: when the spread of erase
 * counts exceeds the threshold, collect the least-erased full block (its
 * cold data moves to the active block, itself the least-worn free one). */
static void ftl_wear_level(struct ftl *f, uint32_t die, struct ftl_work *acc)
{
	if (!f->cfg.wl_threshold)
		return;
	/* The minimum only grows, so the cached one is a lower bound: scan
	 * only when the spread might exceed the threshold. */
	struct ftl_die *dd = &f->die[die];
	if (dd->ec_max - dd->ec_min <= (uint64_t)f->cfg.wl_threshold)
		return;
	uint32_t ecmax = 0, ecmin = UINT32_MAX, cold = UINT32_MAX;
	for (uint32_t b = 0; b < f->bpd; b++) {
		const struct ftl_block *k = ftl_blk(f, die, b);
		if (k->ec > ecmax)
			ecmax = k->ec;
		if (k->ec < ecmin)
			ecmin = k->ec;
		if (k->state == FTL_B_USED && b != dd->gc_victim &&
		    (cold == UINT32_MAX || k->ec < ftl_blk(f, die, cold)->ec))
			cold = b;
	}
	dd->ec_min = ecmin;
	if (ecmax - ecmin <= (uint64_t)f->cfg.wl_threshold || cold == UINT32_MAX)
		return;
	/* only worth it if the cold block is the one holding the spread down */
	if (ftl_blk(f, die, cold)->ec > ecmin)
		return;
	struct ftl_work w = { 0 };
	ftl_collect(f, die, cold, &w);
	ftl_work_add(acc, &w);
	f->st.wl_moves++;
}

/* Foreground GC without time accounting (shared by ftl_fg_gc and the
 * preconditioning). */
static void ftl_gc_until_free(struct ftl *f, uint32_t die, uint64_t floor, struct ftl_work *acc)
{
	struct ftl_die *d = &f->die[die];
	if (d->gc_victim != UINT32_MAX && d->nfree <= floor) {
		/* finish the incremental victim first */
		ftl_copy_some(f, die, d->gc_victim, &d->gc_cursor, UINT64_MAX, acc);
		d->gc_victim = UINT32_MAX;
		ftl_wear_level(f, die, acc);
	}
	/* Each collection frees at least one slot net, so the loop ends; the
	 * bound guards against a broken invariant in release builds. */
	for (uint64_t guard = 0; d->nfree <= floor; guard++) {
		if (guard > 4 * (uint64_t)f->bpd * f->spb)
			break;
		uint32_t v = ftl_pick_victim(f, die);
		if (v == UINT32_MAX)
			break;
		struct ftl_work w = { 0 };
		ftl_collect(f, die, v, &w);
		ftl_work_add(acc, &w);
		f->st.gc_fg++;
		ftl_wear_level(f, die, acc);
	}
}

/* ------------------------------------------------------------------ API */

int ftl_parse(struct cfg_node *node, struct ftl_cfg *cfg, struct sim_error *err)
{
	memset(cfg, 0, sizeof(*cfg));
	if (node && node->kind != CFG_MAP)
		return cfg_errorf(err, node, "expected a map of FTL tunables (enabled: true, op_pct: ...)");
	int rc = cfg_apply(ftl_params, node, cfg, err);
	if (rc)
		return rc;
	if (node)
		cfg_mark_used(node, false);
	return 0;
}

uint64_t ftl_logical_pages(const struct ftl *f) { return f->nlpn; }

uint64_t ftl_lpn_of(const struct ftl *f, uint64_t byte) { return (byte >> FTL_LPAGE_SHIFT) % f->nlpn; }

uint32_t ftl_staged(const struct ftl *f) { return f->nstage; }

int64_t ftl_bg_idle_ns(const struct ftl *f) { return f->cfg.bg_gc_idle_ns; }

void ftl_stage(struct ftl *f, uint64_t lpn)
{
	if (f->nstage == f->capstage) {
		uint32_t cap = f->capstage * 2;
		uint64_t *n = realloc(f->stage, cap * sizeof(*n));
		if (!n)
			return; /* the page is dropped from the mapping: its old copy stays */
		f->stage = n;
		f->capstage = cap;
	}
	f->stage[f->nstage++] = lpn;
}

bool ftl_die_ok(const struct ftl *f, uint32_t die) { return f->die[die].valid <= f->die_limit; }

int64_t ftl_fg_gc(struct ftl *f, uint32_t die)
{
	struct ftl_die *d = &f->die[die];
	uint64_t thr = (uint64_t)f->cfg.gc_free_blocks;
	struct ftl_work w = { 0 };
	if (f->cfg.gc_incremental) {
		if (d->gc_victim == UINT32_MAX && d->nfree <= thr) {
			uint32_t v = ftl_pick_victim(f, die);
			if (v != UINT32_MAX) {
				/* copy the victim's valid pages in proportion to
				 * the space it frees: done when the host has
				 * written as much as it had stale */
				const struct ftl_block *k = ftl_blk(f, die, v);
				uint64_t stale = f->spb - k->valid;
				d->gc_victim = v;
				d->gc_cursor = 0;
				d->gc_quota = ((uint64_t)k->valid * f->spu + stale - 1) / stale;
				f->st.gc_fg++;
			}
		}
		if (d->gc_victim != UINT32_MAX &&
		    ftl_copy_some(f, die, d->gc_victim, &d->gc_cursor, d->gc_quota, &w)) {
			d->gc_victim = UINT32_MAX;
			ftl_wear_level(f, die, &w);
		}
		/* down to the last free block: block until there are two */
		thr = 1;
	}
	if (d->nfree <= thr)
		ftl_gc_until_free(f, die, thr, &w);
	f->st.gc_fg_ns += (uint64_t)w.ns;
	return w.ns;
}

void ftl_commit(struct ftl *f, uint32_t die, uint64_t bytes)
{
	uint64_t slots = (bytes + FTL_LPAGE_BYTES - 1) / FTL_LPAGE_BYTES;
	if (slots < f->nstage)
		slots = f->nstage;
	slots = (slots + f->spp - 1) / f->spp * f->spp; /* whole NAND pages */
	for (uint32_t i = 0; i < f->nstage; i++) {
		uint64_t lpn = f->stage[i];
		ftl_invalidate(f, lpn);
		ftl_place(f, die, lpn);
	}
	for (uint64_t i = f->nstage; i < slots; i++)
		ftl_place(f, die, UINT64_MAX);
	f->st.host_pages += f->nstage;
	f->st.nand_pages += slots;
	f->clock += f->nstage;
	f->nstage = 0;
}

int64_t ftl_bg_gc(struct ftl *f, uint32_t die, int64_t budget_ns)
{
	int64_t used = 0;
	struct ftl_die *d = &f->die[die];
	if (d->gc_victim != UINT32_MAX) {
		/* finish the foreground victim if it fits (bound: every row read) */
		const struct ftl_block *k = ftl_blk(f, die, d->gc_victim);
		uint64_t units = (k->valid + f->spu - 1) / f->spu;
		int64_t bound = (int64_t)units * (f->g.read_ns + f->g.prog_ns) + f->cfg.erase_ns;
		if (bound > budget_ns)
			return 0;
		struct ftl_work w = { 0 };
		ftl_copy_some(f, die, d->gc_victim, &d->gc_cursor, UINT64_MAX, &w);
		d->gc_victim = UINT32_MAX;
		used += w.ns;
	}
	while (f->die[die].nfree < (uint64_t)f->cfg.bg_gc_free_blocks) {
		uint32_t v = ftl_pick_victim(f, die);
		if (v == UINT32_MAX)
			break;
		struct ftl_work w = { 0 };
		ftl_victim_cost(f, die, v, &w);
		if (used + w.ns > budget_ns)
			break;
		w = (struct ftl_work){ 0 };
		ftl_collect(f, die, v, &w);
		f->st.gc_bg++;
		used += w.ns;
		/* a WL move may copy a whole block: only if that still fits */
		int64_t whole = (int64_t)(f->spb / f->spu) * (f->g.read_ns + f->g.prog_ns) +
				f->cfg.erase_ns;
		if (used + whole <= budget_ns) {
			w = (struct ftl_work){ 0 };
			ftl_wear_level(f, die, &w);
			used += w.ns;
		}
	}
	f->st.gc_bg_ns += (uint64_t)used;
	return used;
}

bool ftl_lookup(const struct ftl *f, uint64_t lpn, uint32_t *die, uint64_t *row)
{
	uint32_t m = f->l2p[lpn];
	if (!m)
		return false;
	uint64_t p = m - 1;
	*die = (uint32_t)(p / ((uint64_t)f->bpd * f->spb));
	*row = p / f->spu;
	return true;
}

void ftl_trim(struct ftl *f, uint64_t byte, uint64_t len)
{
	uint64_t first = (byte + FTL_LPAGE_BYTES - 1) >> FTL_LPAGE_SHIFT;
	uint64_t end = (byte + len) >> FTL_LPAGE_SHIFT;
	if (end - first > f->nlpn && end > first)
		end = first + f->nlpn;
	for (uint64_t l = first; l < end; l++) {
		uint64_t lpn = l % f->nlpn;
		if (f->l2p[lpn]) {
			ftl_invalidate(f, lpn);
			f->st.trimmed++;
		}
	}
}

void ftl_note_blocked(struct ftl *f, bool write, int64_t ns)
{
	if (write) {
		stats_dist_add(&f->blocked_w, ns);
		f->blocked_w_n += ns > 0;
	} else {
		stats_dist_add(&f->blocked_r, ns);
		f->blocked_r_n += ns > 0;
	}
}

/* Sequential fill, then uniform random overwrite of a multiple of the
 * logical pages, straight into the tables: program units of spu pages go
 * to the dies round-robin (as the striped write buffer would), GC runs as
 * in the foreground but costs no simulated time. Counters are then reset;
 * erase counts and block ages stay. */
static void ftl_precondition(struct ftl *f)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r)
		return;
	gsl_rng_set(r, sim_rng_derive_seed((uint64_t)f->cfg.seed, "ftl.precondition"));
	uint64_t over = (uint64_t)(f->cfg.precondition_overwrite * (double)f->nlpn);
	uint64_t total = f->nlpn + over;
	uint32_t die = 0;
	struct ftl_work w = { 0 };
	/* The random lpns are drawn FTL_PC_AHEAD in advance so that their l2p
	 * entries, then their old p2l slots, are prefetched (the tables are
	 * far larger than the caches: this is what makes it fast). */
	enum { FTL_PC_AHEAD = 64 };
	uint64_t ring[FTL_PC_AHEAD];
	for (uint64_t i = 0; i < total; i++) {
		uint64_t lpn;
		if (i < f->nlpn) {
			lpn = i;
		} else {
			uint64_t j = i - f->nlpn;
			if (j == 0)
				for (uint64_t k = 0; k < FTL_PC_AHEAD && k < over; k++)
					ring[k] = (((uint64_t)gsl_rng_get(r) << 32) | gsl_rng_get(r)) % f->nlpn;
			lpn = ring[j % FTL_PC_AHEAD];
			if (j + FTL_PC_AHEAD < over) {
				/* 64-bit uniform from two draws of the 32-bit generator */
				uint64_t x = ((uint64_t)gsl_rng_get(r) << 32) | gsl_rng_get(r);
				ring[j % FTL_PC_AHEAD] = x % f->nlpn;
				__builtin_prefetch(&f->l2p[ring[j % FTL_PC_AHEAD]], 1);
			}
			uint64_t mid = ring[(j + FTL_PC_AHEAD / 2) % FTL_PC_AHEAD];
			if (j + FTL_PC_AHEAD / 2 < over && f->l2p[mid])
				__builtin_prefetch(&f->p2l[f->l2p[mid] - 1], 1);
		}
		ftl_stage(f, lpn);
		if (f->nstage == f->spu || i + 1 == total) {
			for (uint32_t k = 0; k < f->g.ndies && !ftl_die_ok(f, die); k++)
				die = (die + 1) % f->g.ndies;
			ftl_gc_until_free(f, die, (uint64_t)f->cfg.gc_free_blocks, &w);
			ftl_commit(f, die, (uint64_t)f->nstage * FTL_LPAGE_BYTES);
			die = (die + 1) % f->g.ndies;
		}
	}
	gsl_rng_free(r);
	ftl_reset_stats(f);
}

/* Utilisation decay of FIFO cleaning: blocks of age t in [0, 1] (newest
 * to oldest) hold u(t) = exp(-lambda t) valid, with mean rho (the fill of
 * the used blocks): (1 - exp(-lambda)) / lambda = rho. Bisection. */
static double ftl_fifo_lambda(double rho)
{
	if (rho >= 1.0)
		return 0;
	double lo = 1e-12, hi = 200;
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);
		if ((1.0 - exp(-mid)) / mid > rho)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* Steady state of uniform random overwrite, built in one sequential pass:
 * program units of spu logical pages go to the dies round-robin (as a
 * sequential fill would put them); on each die all but gc_free_blocks + 1
 * blocks are full, with valid fractions falling exponentially with age as
 * FIFO cleaning leaves them (greedy's WA is within a few % of FIFO's at
 * these block sizes, tests/models/device/test_ftl.c), valid slots spread evenly inside a
 * block and filled in logical order. Every block gets the erase count the
 * fill plus precondition_overwrite x the logical pages would have cost at
 * that WA. Simplified: logical neighbours share a block and an age (a
 * really overwritten device scatters them). */
static void ftl_precondition_steady(struct ftl *f)
{
	uint32_t keep_free = (uint32_t)f->cfg.gc_free_blocks + 1;
	uint32_t n = f->bpd - keep_free; /* full blocks per die */
	uint64_t chunks = (f->nlpn + f->spu - 1) / f->spu;
	double wa_sum = 0;
	f->clock = (uint64_t)(n + 1) * f->spb;
	for (uint32_t d = 0; d < f->g.ndies; d++) {
		/* this die's logical pages: chunks d, d + ndies, ... */
		uint64_t nch = chunks > d ? (chunks - d + f->g.ndies - 1) / f->g.ndies : 0;
		uint64_t vd = nch * f->spu;
		if (nch && (nch - 1) * f->g.ndies + d == chunks - 1)
			vd -= chunks * f->spu - f->nlpn; /* the last chunk is short */
		double rho = (double)vd / ((double)n * f->spb);
		double lam = ftl_fifo_lambda(rho);
		double uv = exp(-lam);
		wa_sum += uv < 1.0 ? 1.0 / (1.0 - uv) : 1.0;
		double norm = 0;
		for (uint32_t i = 0; i < n; i++)
			norm += exp(-lam * (i + 0.5) / n);
		uint64_t ch = d, in_ch = 0, placed = 0;
		double cum = 0;
		for (uint32_t i = 0; i < n; i++) {
			cum += exp(-lam * (i + 0.5) / n);
			uint64_t upto = (uint64_t)llround((double)vd * cum / norm);
			if (upto > vd || i + 1 == n)
				upto = vd;
			uint32_t v = (uint32_t)(upto - placed);
			if (v > f->spb)
				v = f->spb;
			struct ftl_block *k = ftl_blk(f, d, i);
			uint64_t base = ftl_ppn(f, d, i, 0);
			for (uint32_t j = 0; j < v; j++) {
				uint64_t lpn = ch * f->spu + in_ch;
				uint64_t p = base + (uint64_t)j * f->spb / v;
				f->p2l[p] = (uint32_t)(lpn + 1);
				f->l2p[lpn] = (uint32_t)(p + 1);
				if (++in_ch == f->spu || lpn + 1 == f->nlpn) {
					in_ch = 0;
					ch += f->g.ndies;
				}
			}
			placed += v;
			SIM_ASSERT(i + 1 < n || placed == vd);
			k->valid = v;
			k->wp = f->spb;
			k->state = FTL_B_USED;
			k->closed = f->clock - (uint64_t)((i + 1) * (1.0 - uv) * f->spb);
		}
		f->die[d].valid = placed;
		f->die[d].nfree = keep_free;
	}
	double wa = wa_sum / f->g.ndies;
	double programmed = (double)f->nlpn * (1.0 + f->cfg.precondition_overwrite * wa);
	uint32_t ec = (uint32_t)llround(programmed / ((double)f->nppn));
	for (uint64_t b = 0; b < (uint64_t)f->g.ndies * f->bpd; b++)
		f->blk[b].ec = ec;
	for (uint32_t d = 0; d < f->g.ndies; d++)
		f->die[d].ec_max = f->die[d].ec_min = ec;
}

int ftl_create(const struct ftl_cfg *cfg, const struct ftl_geom *g, const struct cfg_node *at,
	       struct ftl **out, struct sim_error *err)
{
	*out = NULL;
	if (g->page_bytes % FTL_LPAGE_BYTES)
		return cfg_errorf(err, at, "the FTL maps 4 KiB pages: page_kib must be a multiple of 4");
	struct ftl *f = calloc(1, sizeof(*f));
	if (!f)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory building the FTL");
	f->cfg = *cfg;
	f->g = *g;
	f->spp = (uint32_t)(g->page_bytes / FTL_LPAGE_BYTES);
	f->spu = f->spp * g->planes;
	f->spb = f->spu * (uint32_t)cfg->pages_per_block;
	double spare = cfg->op_pct / 100.0;
	if (cfg->blocks_per_die > 0) {
		f->bpd = (uint32_t)cfg->blocks_per_die;
		f->nppn = (uint64_t)g->ndies * f->bpd * f->spb;
		f->nlpn = (uint64_t)((double)f->nppn * (1.0 - spare));
	} else {
		f->nlpn = cfg->capacity_bytes / FTL_LPAGE_BYTES;
		double raw = ceil((double)f->nlpn / (1.0 - spare));
		uint64_t per_die = (uint64_t)ceil(raw / g->ndies);
		f->bpd = (uint32_t)((per_die + f->spb - 1) / f->spb);
		f->nppn = (uint64_t)g->ndies * f->bpd * f->spb;
	}
	int rc = 0;
	/* A die may fill with valid data up to all but gc_free_blocks + 3
	 * blocks: then GC on it always finds stale slots to gain and a free
	 * block to copy into (one for the copies, one for the unit in flight,
	 * one of slack). */
	uint64_t reserve = (uint64_t)cfg->gc_free_blocks + 3;
	if (f->nlpn == 0)
		rc = cfg_errorf(err, at, "capacity_gib is smaller than one 4 KiB page");
	else if (f->nppn >= UINT32_MAX || f->nlpn >= UINT32_MAX)
		rc = cfg_errorf(err, at, "the simulated device is too large (at most 16 TiB of 4 KiB pages)");
	else if (f->bpd <= reserve ||
		 f->nlpn > (uint64_t)g->ndies * (f->bpd - reserve) * f->spb)
		rc = cfg_errorf(err, at,
				"over-provisioning too small: %u blocks per die of %u KiB leave no "
				"room for gc_free_blocks + 3 = %llu spare blocks per die (raise "
				"op_pct or capacity_gib, or lower pages_per_block)",
				f->bpd, f->spb * 4, (unsigned long long)reserve);
	if (rc) {
		free(f);
		return rc;
	}
	f->die_limit = (uint64_t)(f->bpd - reserve) * f->spb;
	f->capstage = f->spu * 2 + 2;
	f->l2p = ftl_table_alloc(f->nlpn);
	f->p2l = ftl_table_alloc(f->nppn);
	f->blk = calloc((uint64_t)g->ndies * f->bpd, sizeof(*f->blk));
	f->die = calloc(g->ndies, sizeof(*f->die));
	f->stage = malloc(f->capstage * sizeof(*f->stage));
	if (!f->l2p || !f->p2l || !f->blk || !f->die || !f->stage) {
		ftl_destroy(f);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory for the FTL tables (%llu pages)",
				  (unsigned long long)f->nppn);
	}
	for (uint32_t d = 0; d < g->ndies; d++) {
		f->die[d].active = UINT32_MAX;
		f->die[d].gc_victim = UINT32_MAX;
		f->die[d].nfree = f->bpd;
	}
	stats_dist_init(&f->blocked_w);
	stats_dist_init(&f->blocked_r);
	if (cfg->precondition && cfg->precondition_mode == FTL_PC_STEADY)
		ftl_precondition_steady(f);
	else if (cfg->precondition)
		ftl_precondition(f);
	*out = f;
	return 0;
}

void ftl_destroy(struct ftl *f)
{
	if (!f)
		return;
	ftl_table_free(f->l2p, f->nlpn);
	ftl_table_free(f->p2l, f->nppn);
	free(f->blk);
	free(f->die);
	free(f->stage);
	stats_dist_free(&f->blocked_w);
	stats_dist_free(&f->blocked_r);
	free(f);
}

int ftl_check(const struct ftl *f, struct sim_error *err)
{
	uint64_t nblk = (uint64_t)f->g.ndies * f->bpd;
	uint64_t mapped = 0, valid = 0;
	for (uint64_t l = 0; l < f->nlpn; l++) {
		uint32_t m = f->l2p[l];
		if (!m)
			continue;
		mapped++;
		uint64_t p = m - 1;
		if (p >= f->nppn || f->p2l[p] != l + 1)
			return sim_errorf(err, SIM_E_RUNTIME, "lpn %llu maps to ppn %llu which maps to %lld",
					  (unsigned long long)l, (unsigned long long)p,
					  p < f->nppn ? (long long)f->p2l[p] - 1 : -2);
	}
	for (uint64_t b = 0; b < nblk; b++) {
		uint32_t v = 0;
		for (uint32_t s = 0; s < f->spb; s++) {
			uint32_t m = f->p2l[b * f->spb + s];
			if (!m)
				continue;
			if (s >= f->blk[b].wp || f->blk[b].state == FTL_B_FREE)
				return sim_errorf(err, SIM_E_RUNTIME, "block %llu: valid slot %u past its write "
						  "pointer or in a free block", (unsigned long long)b, s);
			if (m - 1 >= f->nlpn || f->l2p[m - 1] != b * f->spb + s + 1)
				return sim_errorf(err, SIM_E_RUNTIME, "ppn %llu holds lpn %u which maps elsewhere",
						  (unsigned long long)(b * f->spb + s), m - 1);
			v++;
		}
		if (v != f->blk[b].valid)
			return sim_errorf(err, SIM_E_RUNTIME, "block %llu: valid count %u, counted %u",
					  (unsigned long long)b, f->blk[b].valid, v);
		valid += v;
	}
	if (valid != mapped)
		return sim_errorf(err, SIM_E_RUNTIME, "%llu valid physical pages for %llu mapped logical pages",
				  (unsigned long long)valid, (unsigned long long)mapped);
	for (uint32_t d = 0; d < f->g.ndies; d++) {
		uint64_t dv = 0, nfree = 0;
		for (uint32_t b = 0; b < f->bpd; b++) {
			dv += f->blk[(uint64_t)d * f->bpd + b].valid;
			nfree += f->blk[(uint64_t)d * f->bpd + b].state == FTL_B_FREE;
		}
		if (dv != f->die[d].valid || nfree != f->die[d].nfree)
			return sim_errorf(err, SIM_E_RUNTIME, "die %u: valid %llu/%llu free %llu/%u", d,
					  (unsigned long long)dv, (unsigned long long)f->die[d].valid,
					  (unsigned long long)nfree, f->die[d].nfree);
	}
	return 0;
}

void ftl_get_stats(const struct ftl *f, struct ftl_stats *st)
{
	*st = f->st;
	uint64_t nblk = (uint64_t)f->g.ndies * f->bpd, sum = 0;
	st->ec_max = 0;
	st->ec_min = UINT32_MAX;
	for (uint64_t b = 0; b < nblk; b++) {
		uint32_t ec = f->blk[b].ec;
		sum += ec;
		if (ec > st->ec_max)
			st->ec_max = ec;
		if (ec < st->ec_min)
			st->ec_min = ec;
	}
	st->ec_mean = nblk ? (double)sum / (double)nblk : 0;
}

double ftl_write_amplification(const struct ftl *f)
{
	if (!f->st.host_pages)
		return 1.0;
	return (double)f->st.nand_pages / (double)f->st.host_pages;
}

void ftl_reset_stats(struct ftl *f)
{
	memset(&f->st, 0, sizeof(f->st));
	stats_dist_reset(&f->blocked_w);
	stats_dist_reset(&f->blocked_r);
	f->blocked_w_n = f->blocked_r_n = 0;
}

void ftl_stats_json(const struct ftl *f, json_t *obj)
{
	struct ftl_stats st;
	ftl_get_stats(f, &st);
	json_t *o = json_object();
	if (!o)
		return;
	json_object_set_new(o, "params", cfg_params_to_json(ftl_params, &f->cfg));
	json_object_set_new(o, "logical_pages", json_integer((json_int_t)f->nlpn));
	json_object_set_new(o, "physical_pages", json_integer((json_int_t)f->nppn));
	json_object_set_new(o, "blocks_per_die", json_integer((json_int_t)f->bpd));
	json_object_set_new(o, "block_kib", json_integer((json_int_t)f->spb * 4));
	json_object_set_new(o, "write_amplification", json_real(ftl_write_amplification(f)));
	json_object_set_new(o, "host_pages", json_integer((json_int_t)st.host_pages));
	json_object_set_new(o, "nand_pages", json_integer((json_int_t)st.nand_pages));
	json_object_set_new(o, "gc_fg", json_integer((json_int_t)st.gc_fg));
	json_object_set_new(o, "gc_bg", json_integer((json_int_t)st.gc_bg));
	json_object_set_new(o, "gc_fg_die_ns", json_integer((json_int_t)st.gc_fg_ns));
	json_object_set_new(o, "gc_bg_die_ns", json_integer((json_int_t)st.gc_bg_ns));
	json_object_set_new(o, "pages_copied", json_integer((json_int_t)st.copies));
	json_object_set_new(o, "erases", json_integer((json_int_t)st.erases));
	json_object_set_new(o, "wl_moves", json_integer((json_int_t)st.wl_moves));
	json_object_set_new(o, "trimmed_pages", json_integer((json_int_t)st.trimmed));
	json_object_set_new(o, "erase_count_max", json_integer((json_int_t)st.ec_max));
	json_object_set_new(o, "erase_count_min", json_integer((json_int_t)st.ec_min));
	json_object_set_new(o, "erase_count_mean", json_real(st.ec_mean));
	json_object_set_new(o, "writes_blocked_by_gc", json_integer((json_int_t)f->blocked_w_n));
	json_object_set_new(o, "reads_blocked_by_gc", json_integer((json_int_t)f->blocked_r_n));
	json_object_set_new(o, "write_gc_blocked_ns", stats_dist_to_json(&f->blocked_w));
	json_object_set_new(o, "read_gc_blocked_ns", stats_dist_to_json(&f->blocked_r));
	json_object_set_new(obj, "ftl", o);
}
