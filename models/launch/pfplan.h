/* Launch-sequence optimiser of the FAST prefetcher: the pure algorithm
 * (Joo, Ryu, Park, Shin, "FAST: quick application launch on solid-state
 * drives", USENIX FAST 2011, and Joo's 2013 SNU dissertation on
 * execution-time prefetching, which adds the steps below).
 *
 * Input: the block requests one profiled launch issued, each tagged data
 * or metadata (inode/extent blocks of the file system); a data request
 * names the metadata sector that locates its file (its inode block), so
 * that it cannot be read before that block on a cold start.
 * Output: the prefetch sequence:
 *   1. sort by LBA and merge overlapping or touching requests of a kind;
 *   2. distance-based merging with gap filling: two extents of a kind
 *      whose hole is at most gap_sectors become one extent that also
 *      reads the hole, while the result stays <= max_sectors;
 *   3. metadata dependencies: a metadata extent is shifted to just before
 *      the first data extent (in the sorted sequence) that depends on it,
 *      if it is not already earlier.
 * Units: 512-byte sectors. No simulator state is touched.
 */
#ifndef MODELS_PFPLAN_H
#define MODELS_PFPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pfplan_kind { PFPLAN_DATA = 0, PFPLAN_META = 1 };

struct pfplan_ext {
	uint64_t lba;       /* first sector */
	uint64_t sectors;   /* > 0 */
	uint8_t kind;       /* enum pfplan_kind */
	uint64_t dep_lba;   /* DATA input: sector of the metadata block that
			     * locates it, UINT64_MAX none. Output: the lowest
			     * of its sources' dependencies. */
	/* output only */
	uint64_t filled;    /* hole sectors read in by gap filling */
	uint32_t nsrc;      /* input requests merged into this extent */
	bool shifted;       /* META: moved before a dependent data extent */
};

struct pfplan_opts {
	uint64_t gap_sectors;  /* fill holes up to this many sectors (0: merge only touching) */
	uint64_t max_sectors;  /* largest extent (0: no limit) */
	bool shift_meta;       /* step 3 on */
};

struct pfplan_stats {
	size_t in, out;
	size_t merges;            /* touching/overlapping merges */
	size_t gap_fills;         /* merges across a hole */
	uint64_t filled_sectors;
	size_t meta_shifted;
	uint64_t in_sectors, out_sectors;
};

/* Build the prefetch sequence from n requests (any order). *out is
 * malloc'ed (caller frees), *nout its length. Returns 0 or -1 on
 * allocation failure. */
int pfplan_build(const struct pfplan_ext *in, size_t n, const struct pfplan_opts *o,
		 struct pfplan_ext **out, size_t *nout, struct pfplan_stats *st);

#endif
