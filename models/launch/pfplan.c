/* FAST launch-sequence optimiser: sort, merge, gap fill, shift metadata
 * before the data it locates (see pfplan.h).
 */
#include "models/launch/pfplan.h"

#include <stdlib.h>
#include <string.h>

struct item {
	struct pfplan_ext e;
	size_t key;       /* final-order key */
};

static int ext_cmp(const void *a, const void *b)
{
	const struct pfplan_ext *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->lba != y->lba)
		return x->lba < y->lba ? -1 : 1;
	if (x->sectors != y->sectors)
		return x->sectors < y->sectors ? -1 : 1;
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->e.lba != y->e.lba)
		return x->e.lba < y->e.lba ? -1 : 1;
	return 0;
}

static int lba_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->e.lba != y->e.lba)
		return x->e.lba < y->e.lba ? -1 : 1;
	return x->e.kind < y->e.kind ? 1 : x->e.kind > y->e.kind ? -1 : 0; /* meta first */
}

/* Position of the extent of kind holding sector lba in the LBA-sorted
 * sequence it[0..m), or SIZE_MAX. Extents of one kind are disjoint. */
static size_t find_holding(const struct item *it, size_t m, uint64_t lba, uint8_t kind)
{
	size_t lo = 0, hi = m; /* first position with it.lba > lba */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (it[mid].e.lba <= lba)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t p = lo; p-- > 0;) {
		const struct pfplan_ext *x = &it[p].e;
		if (x->kind != kind)
			continue;
		return lba < x->lba + x->sectors ? p : SIZE_MAX;
	}
	return SIZE_MAX;
}

/* Merge a sorted run of one kind in place; returns the new length. */
static size_t merge_kind(struct pfplan_ext *e, size_t n, const struct pfplan_opts *o,
			 struct pfplan_stats *st)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		struct pfplan_ext x = e[i];
		x.filled = 0;
		x.nsrc = 1;
		x.shifted = false;
		if (x.kind != PFPLAN_DATA)
			x.dep_lba = UINT64_MAX;
		if (w > 0) {
			struct pfplan_ext *c = &e[w - 1];
			uint64_t cend = c->lba + c->sectors, xend = x.lba + x.sectors;
			uint64_t nend = xend > cend ? xend : cend;
			bool fits = o->max_sectors == 0 || nend - c->lba <= o->max_sectors;
			if (x.lba <= cend && (fits || xend <= cend)) {
				c->sectors = nend - c->lba;
				c->nsrc++;
				if (x.dep_lba < c->dep_lba)
					c->dep_lba = x.dep_lba;
				st->merges++;
				continue;
			}
			if (x.lba > cend && x.lba - cend <= o->gap_sectors && fits) {
				c->filled += x.lba - cend;
				st->filled_sectors += x.lba - cend;
				c->sectors = nend - c->lba;
				c->nsrc++;
				if (x.dep_lba < c->dep_lba)
					c->dep_lba = x.dep_lba;
				st->gap_fills++;
				continue;
			}
			if (x.lba < cend) { /* overlaps but would exceed the limit: clip */
				x.sectors = xend - cend;
				x.lba = cend;
			}
		}
		e[w++] = x;
	}
	return w;
}

int pfplan_build(const struct pfplan_ext *in, size_t n, const struct pfplan_opts *o,
		 struct pfplan_ext **out, size_t *nout, struct pfplan_stats *st)
{
	memset(st, 0, sizeof(*st));
	*out = NULL;
	*nout = 0;
	st->in = n;
	if (n == 0)
		return 0;
	struct pfplan_ext *e = malloc(n * sizeof(*e));
	struct item *it = malloc(n * sizeof(*it));
	if (!e || !it) {
		free(e);
		free(it);
		return -1;
	}
	memcpy(e, in, n * sizeof(*e));
	for (size_t i = 0; i < n; i++)
		st->in_sectors += e[i].sectors;
	/* 1 + 2: data first then meta (ext_cmp), each by LBA, merged per kind */
	qsort(e, n, sizeof(*e), ext_cmp);
	size_t nd = 0;
	while (nd < n && e[nd].kind == PFPLAN_DATA)
		nd++;
	size_t md = merge_kind(e, nd, o, st);
	size_t mm = merge_kind(e + nd, n - nd, o, st);
	size_t m = 0;
	for (size_t i = 0; i < md; i++)
		it[m++].e = e[i];
	for (size_t i = 0; i < mm; i++)
		it[m++].e = e[nd + i];
	/* the LBA-sorted sequence of both kinds; position p -> key 2p + 1 */
	qsort(it, m, sizeof(*it), lba_cmp);
	for (size_t p = 0; p < m; p++)
		it[p].key = 2 * p + 1;
	/* 3: a meta extent goes right before its first dependent data extent.
	 * Every source request's own dependency counts (not only the merged
	 * minimum): find the data extent holding each source by binary
	 * search over the LBA-sorted sequence, then the meta extent holding
	 * its dependency, and keep the earliest position per meta extent. */
	if (o->shift_meta) {
		size_t *first = malloc(m * sizeof(*first));
		if (!first) {
			free(e);
			free(it);
			return -1;
		}
		for (size_t q = 0; q < m; q++)
			first[q] = SIZE_MAX;
		for (size_t k = 0; k < n; k++) {
			if (in[k].kind != PFPLAN_DATA || in[k].dep_lba == UINT64_MAX)
				continue;
			size_t pd = find_holding(it, m, in[k].lba, PFPLAN_DATA);
			size_t pm = find_holding(it, m, in[k].dep_lba, PFPLAN_META);
			if (pd != SIZE_MAX && pm != SIZE_MAX && pd < first[pm])
				first[pm] = pd;
		}
		for (size_t q = 0; q < m; q++) {
			if (first[q] != SIZE_MAX && 2 * first[q] + 1 < it[q].key) {
				it[q].key = 2 * first[q]; /* just before it */
				it[q].e.shifted = true;
				st->meta_shifted++;
			}
		}
		free(first);
		qsort(it, m, sizeof(*it), item_cmp);
	}
	for (size_t p = 0; p < m; p++) {
		e[p] = it[p].e;
		st->out_sectors += e[p].sectors;
	}
	free(it);
	st->out = m;
	*out = e;
	*nout = m;
	return 0;
}
