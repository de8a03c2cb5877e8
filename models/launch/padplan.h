/* I/O padding planner: the pure algorithm of explicit application loading
 * (Joo, Seo, Shin, Lim, "Enlarging I/O size for faster loading of mobile
 * applications", IEEE Embedded Systems Letters 12, 2020).
 *
 * A launch working set W = (b_0 .. b_{n-1}) of device extents is loaded
 * with explicit reads in three steps: (1) reorder by LBA, (2) merge
 * adjacent chunks, (3) pad: also read the unneeded sectors between
 * non-contiguous chunks when one larger read is faster than several
 * smaller ones. The optimum is the paper's dynamic program
 *
 *   t(i, j) = min{ read(i, j), min_{i <= s < j} t(i, s) + t(s+1, j) }
 *
 * where read(i, j) is the time of one I/O spanning b_i .. b_j (its start
 * to its end, gaps included) on the device's QD1 latency-versus-size
 * curve. With the block layer's max_sectors limit, read(i, j) is infinite
 * when the span exceeds it.
 *
 * Equivalence used by padplan_pad(): every value t(i, j) is the minimum,
 * over the partitions of b_i..b_j into runs of consecutive chunks, of the
 * sum of read() over the runs. (Induction on j - i: a leaf of the
 * recursion is one run; a split at s concatenates a partition of i..s
 * and one of s+1..j, and every partition with >= 2 runs arises from the
 * split at the end of its first run.) Hence t(0, n-1) equals the 1-D
 * segmentation recurrence f(j) = min_i f(i-1) + read(i, j), which is
 * O(n * k) with k the most chunks one max_sectors span can hold.
 * padplan_interval_dp() is the paper's O(n^3) form, kept for the tests.
 *
 * Units: sectors of 512 bytes for positions, ns for times. Nothing here
 * touches the simulator: the cost curve is a callback.
 */
#ifndef MODELS_PADPLAN_H
#define MODELS_PADPLAN_H

#include <stddef.h>
#include <stdint.h>

struct padplan_chunk {
	uint64_t lba;      /* first sector */
	uint64_t sectors;  /* > 0 */
};

/* Time of one read of bytes at QD1 on an idle device, ns (> 0). */
struct padplan_cost {
	int64_t (*read_ns)(void *ctx, uint64_t bytes);
	void *ctx;
};

enum padplan_mode {
	PADPLAN_BASELINE = 0, /* no explicit loading (demand paging) */
	PADPLAN_REORDER,      /* one read per recorded chunk, in LBA order */
	PADPLAN_MERGE,        /* ... adjacent chunks merged */
	PADPLAN_PAD,          /* ... and gaps padded where the curve says so */
	PADPLAN_NMODES
};

extern const char *const padplan_mode_names[]; /* NULL-terminated, enum order */

/* Step 1: sort by LBA (ties: shorter first) and clip overlaps, so that the
 * chunks are disjoint and increasing. Adjacent chunks stay separate.
 * Returns the new count (<= n; a chunk fully inside another is dropped). */
size_t padplan_reorder(struct padplan_chunk *c, size_t n);

/* Step 2 on a padplan_reorder() output: merge chunks that touch (next.lba
 * == end) while the result stays <= max_sectors, and split any chunk
 * longer than max_sectors (the block layer would). 0 = no limit.
 * Works in place when out has room; returns the count written, or 0 and
 * sets *need when out_cap is too small. */
size_t padplan_merge(const struct padplan_chunk *c, size_t n, uint64_t max_sectors,
		     struct padplan_chunk *out, size_t out_cap, size_t *need);

/* Step 3 on a padplan_merge() output (disjoint, increasing, each <=
 * max_sectors): the optimal grouping. group_end[g] is the index of the
 * last chunk of group g; returns the number of groups (>= 1 for n >= 1),
 * and *total_ns their summed read time. scratch must hold 2 * (n + 1)
 * int64_t. A group of one chunk is always feasible, so a plan exists. */
size_t padplan_pad(const struct padplan_chunk *c, size_t n, uint64_t max_sectors,
		   const struct padplan_cost *cost, size_t *group_end, int64_t *total_ns,
		   int64_t *scratch);

/* The paper's O(n^3) interval DP t(0, n-1), for tests (n <= a few hundred;
 * scratch holds n * n int64_t). */
int64_t padplan_interval_dp(const struct padplan_chunk *c, size_t n, uint64_t max_sectors,
			    const struct padplan_cost *cost, int64_t *scratch);

/* Read time of chunks c[i..j] as one I/O, or INT64_MAX when the span
 * exceeds max_sectors (0 = no limit). */
int64_t padplan_read_ns(const struct padplan_chunk *c, size_t i, size_t j, uint64_t max_sectors,
			const struct padplan_cost *cost);

/* Sum of read times of n chunks read one by one. */
int64_t padplan_sum_ns(const struct padplan_chunk *c, size_t n, const struct padplan_cost *cost);

#endif
