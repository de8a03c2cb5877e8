/* Page-mapping flash translation layer with garbage collection, used by the
 * multi-die flash model (models/device/flash.c) when its `ftl: {enabled: true}`.
 *
 * The FTL owns the mapping and the block state; it knows nothing of time
 * except the die-time a GC costs (tR, tPROG, tBERS), which it returns so
 * that flash.c books it on the die's "busy until" timeline. flash.c calls:
 *   ftl_stage()          for each logical 4 KiB page entering the open
 *                        program unit of the write buffer;
 *   ftl_pick_die()       to veto a die whose valid data is at its limit;
 *   ftl_fg_gc()          before booking a program on a die (foreground GC
 *                        when the die's free blocks are at the threshold);
 *   ftl_commit()         when the unit is booked: the staged pages land in
 *                        the die's active block;
 *   ftl_lookup()         per 4 KiB page of a read, to find its die;
 *   ftl_bg_gc()          when the device has been idle for bg_gc_idle_ms;
 *   ftl_trim()           for REQ_DISCARD.
 */
#ifndef MODELS_FTL_H
#define MODELS_FTL_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/config.h"
#include "sim/error.h"

struct json_t;
struct cfg_node;
struct ftl;

#define FTL_LPAGE_SHIFT 12
#define FTL_LPAGE_BYTES (1u << FTL_LPAGE_SHIFT) /* the mapping unit: 4 KiB */

enum ftl_victim { FTL_VICTIM_GREEDY = 0, FTL_VICTIM_COST_BENEFIT };
/* steady: the tables are built at the analytic steady state of uniform
 * random overwrite; simulate: fill and overwrite page by page (with GC). */
enum ftl_pc_mode { FTL_PC_STEADY = 0, FTL_PC_SIMULATE };

/* Tunables of the `ftl:` map of a flash device (ftl_params). */
struct ftl_cfg {
	bool enabled;
	uint64_t capacity_bytes;    /* logical (user) capacity simulated */
	double op_pct;              /* over-provisioning, % of raw capacity */
	int64_t pages_per_block;    /* NAND pages per block (per plane) */
	int64_t blocks_per_die;     /* 0 = derived from capacity and op_pct */
	int64_t erase_ns;           /* tBERS */
	int64_t gc_free_blocks;     /* foreground GC when free blocks per die <= this */
	bool gc_incremental;        /* spread a victim's copies over the host programs */
	int64_t bg_gc_free_blocks;  /* background GC collects until this many are free */
	int64_t bg_gc_idle_ns;      /* idle time before background GC starts */
	int victim;                 /* enum ftl_victim */
	int64_t wl_threshold;       /* static WL when max - min erase count > this; 0 = off */
	bool precondition;          /* fill + random overwrite before the run */
	int precondition_mode;      /* enum ftl_pc_mode */
	double precondition_overwrite; /* fraction of logical pages overwritten at random */
	int64_t seed;               /* precondition's random stream */
};

/* Geometry and timing the FTL takes from the flash model. */
struct ftl_geom {
	uint32_t ndies;
	uint32_t planes;
	uint64_t page_bytes;        /* a multiple of 4 KiB */
	int64_t read_ns;            /* tR */
	int64_t prog_ns;            /* tPROG of one multi-plane program */
};

/* Die time a GC took: array reads of rows holding valid data, programs of
 * the copies (copyback inside the die: no channel time), erases. */
struct ftl_work {
	uint64_t reads, programs, erases;
	int64_t ns;
};

extern const struct cfg_param ftl_params[];

/* Apply the `ftl:` map (node may be NULL: defaults, disabled) into cfg and
 * mark it used. Returns 0 or SIM_E_INPUT naming the node. */
int ftl_parse(struct cfg_node *node, struct ftl_cfg *cfg, struct sim_error *err);

/* Build an FTL for g from cfg (cfg->enabled must be true). Runs the
 * preconditioning when asked. at names the YAML node for messages.
 * Returns 0 with *out set, or SIM_E_INPUT / SIM_E_NOMEM with err filled. */
int ftl_create(const struct ftl_cfg *cfg, const struct ftl_geom *g, const struct cfg_node *at,
	       struct ftl **out, struct sim_error *err);
void ftl_destroy(struct ftl *f);

/* Logical pages (4 KiB) the FTL maps; host LBAs wrap modulo this. */
uint64_t ftl_logical_pages(const struct ftl *f);
/* Logical page of a byte address (wrapped into the simulated capacity). */
uint64_t ftl_lpn_of(const struct ftl *f, uint64_t byte);

/* Queue logical page lpn for the next ftl_commit(). */
void ftl_stage(struct ftl *f, uint64_t lpn);
/* Pages staged and not yet committed. */
uint32_t ftl_staged(const struct ftl *f);
/* May die take another program unit? False when its valid data is at the
 * limit past which GC could not free a block. */
bool ftl_die_ok(const struct ftl *f, uint32_t die);
/* Foreground GC on die before a program: collects victims while the die's
 * free blocks are <= gc_free_blocks. Returns the die time it costs (0 when
 * no GC was needed). */
int64_t ftl_fg_gc(struct ftl *f, uint32_t die);
/* Write the staged pages into die's active block; a unit of bytes that is
 * not a whole number of NAND pages is padded to one (the padding counts as
 * programmed). */
void ftl_commit(struct ftl *f, uint32_t die, uint64_t bytes);
/* Background GC on die with budget_ns of idle die time: collects whole
 * victims while the die has fewer than bg_gc_free_blocks free and the next
 * victim fits in the budget. Returns the die time used. */
int64_t ftl_bg_gc(struct ftl *f, uint32_t die, int64_t budget_ns);
/* Physical location of lpn: true and *die, *row (a key unique to the
 * multi-plane page row, for multi-plane reads) when mapped. */
bool ftl_lookup(const struct ftl *f, uint64_t lpn, uint32_t *die, uint64_t *row);
/* Unmap every logical page wholly inside [byte, byte + len). */
void ftl_trim(struct ftl *f, uint64_t byte, uint64_t len);

/* Record the time a host request spent blocked by GC (0 included). */
void ftl_note_blocked(struct ftl *f, bool write, int64_t ns);
/* Idle time before background GC (bg_gc_idle_ms); 0 = never. */
int64_t ftl_bg_idle_ns(const struct ftl *f);

/* Check the mapping: every mapped logical page points at a valid physical
 * page that points back, valid counts match. Returns 0 or a negative code
 * with err naming the first violation (tests, debug). */
int ftl_check(const struct ftl *f, struct sim_error *err);

/* Figures (for tests and the result). */
struct ftl_stats {
	uint64_t host_pages;        /* logical pages written by the host */
	uint64_t nand_pages;        /* 4 KiB slots programmed: host + padding + copies */
	uint64_t copies;            /* valid pages moved by GC and WL */
	uint64_t erases;
	uint64_t gc_fg, gc_bg;      /* victim blocks collected */
	uint64_t wl_moves;          /* blocks collected by static wear levelling */
	uint64_t trimmed;           /* logical pages unmapped by TRIM */
	uint32_t ec_max, ec_min;    /* erase counts over all blocks */
	double ec_mean;
	uint64_t gc_fg_ns;          /* die time of foreground GC */
	uint64_t gc_bg_ns;
};
void ftl_get_stats(const struct ftl *f, struct ftl_stats *st);
/* Write amplification nand_pages / host_pages (1 when nothing was written). */
double ftl_write_amplification(const struct ftl *f);
/* Zero the counters (not the erase counts): called after preconditioning. */
void ftl_reset_stats(struct ftl *f);
/* The "ftl" object of the device's stats: params, counters, distributions. */
void ftl_stats_json(const struct ftl *f, struct json_t *obj);

#endif
