/* I/O padding planner (IEEE ESL 2020): reorder, merge, and the exact
 * padding DP over the device's QD1 latency-versus-size curve. See
 * padplan.h for the recurrence and why the 1-D form is exact.
 */
#include "models/launch/padplan.h"

#include <stdbool.h>
#include <stdlib.h>

#define SECTOR_BYTES 512u

const char *const padplan_mode_names[] = { "baseline", "reorder", "merge", "pad", NULL };

static int chunk_cmp(const void *a, const void *b)
{
	const struct padplan_chunk *x = a, *y = b;
	if (x->lba != y->lba)
		return x->lba < y->lba ? -1 : 1;
	if (x->sectors != y->sectors)
		return x->sectors < y->sectors ? -1 : 1;
	return 0;
}

size_t padplan_reorder(struct padplan_chunk *c, size_t n)
{
	if (n == 0)
		return 0;
	qsort(c, n, sizeof(*c), chunk_cmp);
	size_t w = 0;
	uint64_t end = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = c[i].lba, e = c[i].lba + c[i].sectors;
		if (w > 0 && s < end) {
			if (e <= end)
				continue; /* inside what is already read */
			s = end;  /* clip the overlap */
		}
		c[w].lba = s;
		c[w].sectors = e - s;
		end = e;
		w++;
	}
	return w;
}

size_t padplan_merge(const struct padplan_chunk *c, size_t n, uint64_t max_sectors,
		     struct padplan_chunk *out, size_t out_cap, size_t *need)
{
	/* First count, so an undersized out is reported without writing. */
	size_t cnt = 0;
	uint64_t cur_s = 0, cur_e = 0;
	bool open = false;
	for (int pass = 0; pass < 2; pass++) {
		cnt = 0;
		open = false;
		for (size_t i = 0; i <= n; i++) {
			bool flush = i == n;
			if (!flush && open && c[i].lba == cur_e &&
			    (max_sectors == 0 || cur_e + c[i].sectors - cur_s <= max_sectors)) {
				cur_e += c[i].sectors;
				continue;
			}
			if (open) {
				/* emit [cur_s, cur_e) split at max_sectors */
				uint64_t s = cur_s;
				while (s < cur_e) {
					uint64_t len = cur_e - s;
					if (max_sectors && len > max_sectors)
						len = max_sectors;
					if (pass == 1)
						out[cnt] = (struct padplan_chunk){ s, len };
					cnt++;
					s += len;
				}
			}
			if (flush)
				break;
			cur_s = c[i].lba;
			cur_e = c[i].lba + c[i].sectors;
			open = true;
		}
		if (pass == 0) {
			if (need)
				*need = cnt;
			if (cnt > out_cap)
				return 0;
		}
	}
	return cnt;
}

int64_t padplan_read_ns(const struct padplan_chunk *c, size_t i, size_t j, uint64_t max_sectors,
			const struct padplan_cost *cost)
{
	uint64_t span = c[j].lba + c[j].sectors - c[i].lba;
	if (max_sectors && span > max_sectors)
		return INT64_MAX;
	return cost->read_ns(cost->ctx, span * SECTOR_BYTES);
}

int64_t padplan_sum_ns(const struct padplan_chunk *c, size_t n, const struct padplan_cost *cost)
{
	int64_t t = 0;
	for (size_t i = 0; i < n; i++)
		t += cost->read_ns(cost->ctx, c[i].sectors * SECTOR_BYTES);
	return t;
}

size_t padplan_pad(const struct padplan_chunk *c, size_t n, uint64_t max_sectors,
		   const struct padplan_cost *cost, size_t *group_end, int64_t *total_ns,
		   int64_t *scratch)
{
	if (n == 0) {
		*total_ns = 0;
		return 0;
	}
	/* f[j] = best time for chunks 0..j-1; from[j] = first chunk of the
	 * last group of that optimum. */
	int64_t *f = scratch, *from = scratch + n + 1;
	f[0] = 0;
	for (size_t j = 1; j <= n; j++) {
		f[j] = INT64_MAX;
		from[j] = (int64_t)(j - 1);
		for (size_t i = j; i-- > 0;) {
			int64_t r = padplan_read_ns(c, i, j - 1, max_sectors, cost);
			if (r == INT64_MAX)
				break; /* spans only grow as i decreases */
			int64_t v = f[i] + r;
			/* ties: prefer fewer, larger reads (smaller i) */
			if (v <= f[j]) {
				f[j] = v;
				from[j] = (int64_t)i;
			}
		}
	}
	*total_ns = f[n];
	/* walk back, then reverse into group_end[] */
	size_t g = 0;
	for (size_t j = n; j > 0; j = (size_t)from[j])
		group_end[g++] = j - 1;
	for (size_t a = 0, b = g - 1; a < b; a++, b--) {
		size_t tmp = group_end[a];
		group_end[a] = group_end[b];
		group_end[b] = tmp;
	}
	return g;
}

int64_t padplan_interval_dp(const struct padplan_chunk *c, size_t n, uint64_t max_sectors,
			    const struct padplan_cost *cost, int64_t *scratch)
{
	if (n == 0)
		return 0;
	int64_t *t = scratch; /* t[i * n + j] */
	for (size_t len = 1; len <= n; len++) {
		for (size_t i = 0; i + len <= n; i++) {
			size_t j = i + len - 1;
			int64_t best = padplan_read_ns(c, i, j, max_sectors, cost);
			for (size_t s = i; s < j; s++) {
				int64_t a = t[i * n + s], b = t[(s + 1) * n + j];
				if (a != INT64_MAX && b != INT64_MAX && a + b < best)
					best = a + b;
			}
			t[i * n + j] = best;
		}
	}
	return t[n - 1];
}
