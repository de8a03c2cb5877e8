/* Page cache: pages per file with uptodate/dirty/writeback/locked state,
 * an active/inactive LRU bounded by the configured memory
 * (Linux 3.10 mm/filemap.c, mm/swap.c, mm/page_alloc.c); reclaim is
 * models/mm/reclaim.c.
 *
 * Memory: the page cache may use total - reserved bytes (the rest is the
 * kernel and the anonymous memory of running apps); free pages are that
 * capacity minus the pages in the cache. Watermarks follow
 * init_per_zone_wmark_min (min_free_kbytes = sqrt(16 * lowmem_kbytes),
 * clamped to [128, 65536], unless the platform sets it) and Android
 * 3.10's __setup_per_zone_wmarks (low = min + extra + min/4, high = min +
 * extra + min/2, extra = extra_free_kbytes), one zone. At t = 0 the cache may hold cached_bytes of clean pages of other
 * files: a phone's memory is rarely empty.
 *
 * LRU: two lists as in 3.10 (active/inactive file). A new page enters the
 * inactive list; mark_page_accessed() sets PG_referenced, and a second
 * access activates it. Inserting a page takes the file's tree_lock (radix
 * insert) and, every PAGEVEC_SIZE pages, zone->lru_lock (pagevec drain);
 * its allocation takes zone->lock once per per-cpu list refill.
 *
 * Lookup is a two-level index per file keyed by page index (struct
 * pc_index, models/mm/mm.h), a flat stand-in for the kernel's radix tree:
 * only lookups and ordered walks matter here.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <jansson.h>

#include "models/mm/mm_inline.h"
#include "models/mm/mm.h"
#include "sim/assert.h"
#include "sim/sim.h"

static const char *const warm_lrus[] = { "inactive-newest", "inactive-oldest", "active", NULL };

static const struct cfg_param mem_params_table[] = {
	{ "total_bytes", CFG_T_SIZE, offsetof(struct mem_params, total_bytes), "MiB", "3GiB", 16,
	  1048576, "Galaxy S6: 3 GB LPDDR4 (Samsung spec sheet)", "RAM", NULL },
	{ "reserved_bytes", CFG_T_SIZE, offsetof(struct mem_params, reserved_bytes), "MiB",
	  "1792MiB", 0, 1048576,
	  "fitted: kernel + running apps' anonymous memory on a phone in use (INFER)",
	  "memory the page cache can never use", NULL },
	{ "cached_bytes", CFG_T_SIZE, offsetof(struct mem_params, cached_bytes), "MiB", "0", 0,
	  1048576, "scenario-specific", "clean page cache of other files at t = 0", NULL },
	{ "min_free_bytes", CFG_T_SIZE, offsetof(struct mem_params, min_free_bytes), "KiB", "0", 0,
	  1048576, "mm/page_alloc.c init_per_zone_wmark_min when 0",
	  "min watermark (min_free_kbytes); 0 = sqrt(16 * RAM in KiB)", NULL },
	{ "extra_free_bytes", CFG_T_SIZE, offsetof(struct mem_params, extra_free_bytes), "KiB",
	  "0", 0, 1048576,
	  "Android 3.10 mm/page_alloc.c: int extra_free_kbytes = 0 (S6 kernel); the framework "
	  "may raise it at run time (assumed not)",
	  "extra_free_kbytes: added to the low and high watermarks, not to min", NULL },
	{ "hz", CFG_T_INT, offsetof(struct mem_params, hz), "1/s", "250", 10, 10000,
	  "kernel/Kconfig.hz default HZ_250; platforms set their CONFIG_HZ",
	  "jiffies per second: congestion_wait(HZ/10), HZ/50 and the HZ throttle", NULL },
	{ "warm_lru", CFG_T_ENUM, offsetof(struct mem_params, warm_lru), "", "inactive-newest",
	  CFG_NO_RANGE,
	  "assumed (range: all three, in the scenarios' assumptions:): 3.10 add_to_page_cache_lru "
	  "puts a page read once at the inactive head and mark_page_accessed activates it on its "
	  "second use; a warm app's pages at the switch may be anywhere between, so the default is "
	  "a page read once by the app used last, newer than memory.cached_bytes' pages",
	  "where a warm start's pages (a task's warm:) sit at t = 0: inactive-newest (inactive "
	  "head, after the other apps' cached pages), inactive-oldest (inactive tail, reclaimed "
	  "first), active (active head)",
	  warm_lrus },
	CFG_PARAM_END,
};

static const struct cfg_param pc_params_table[] = {
	{ "read_copy_ns", CFG_T_TIME, offsetof(struct pc_params, read_copy_ns), "ns", "1000", 0, 1e9,
	  "fitted: copy_to_user of 4 KiB at ~4 GB/s on Cortex-A57 (INFER)",
	  "CPU per page copied by read()", NULL },
	{ "write_copy_ns", CFG_T_TIME, offsetof(struct pc_params, write_copy_ns), "ns", "2000", 0,
	  1e9,
	  "fitted: write_begin (page allocation, radix insert, lru add) + copy + write_end "
	  "per page, ~2 GB/s buffered writes (INFER); a new page's lock holds are inside it, "
	  "their spins are not",
	  "CPU per page written by write()", NULL },
	{ "fault_map_ns", CFG_T_TIME, offsetof(struct pc_params, fault_map_ns), "ns", "1500", 0, 1e9,
	  "fitted: page fault entry + pte install (INFER)", "CPU per file page fault", NULL },
	{ "reclaim_page_ns", CFG_T_TIME, offsetof(struct pc_params, reclaim_page_ns), "ns", "300", 0,
	  1e9, "fitted: shrink_page_list per clean page (INFER)", "CPU per page reclaimed", NULL },
	CFG_PARAM_END,
};

/* ------------------------------------------------------------ the pool */

/* pc_page_alloc's (models/mm/mm_inline.h) once-a-slab half. */
struct pc_page *pc_page_alloc_slab(struct pagecache *pc)
{
	if (pc->nslabs == pc->cap_slabs) {
		uint32_t cap = pc->cap_slabs ? pc->cap_slabs * 2 : 16;
		struct pc_page **n = realloc(pc->slabs, cap * sizeof(*n));
		if (!n)
			return NULL;
		pc->slabs = n;
		pc->cap_slabs = cap;
	}
	struct pc_page *slab = malloc(PC_SLAB_PAGES * sizeof(*slab));
	if (!slab)
		return NULL;
	pc->slabs[pc->nslabs++] = slab;
	pc->slab_used = 0;
	return &pc->slabs[pc->nslabs - 1][pc->slab_used++];
}

/* ------------------------------------------------------------- lookup */

struct pc_page *pc_find(struct stack_file *f, uint64_t index)
{
	return pc_lookup(f, index);
}

struct pc_page *pc_find_ge(struct stack_file *f, uint64_t index)
{
	if (!f->mapping.last || index > f->mapping.last->index)
		return NULL;
	/* the last page is at or after index: the scan ends by its leaf */
	uint64_t l = index >> PC_LEAF_SHIFT;
	uint64_t m = ~0ull << (index & ((1u << PC_LEAF_SHIFT) - 1));
	for (;; l++, m = ~0ull) {
		struct pc_leaf *lf = f->mapping.pages.leaf[l];
		if (lf && (lf->map & m))
			return lf->slot[__builtin_ctzll(lf->map & m)];
	}
}

struct pc_page *pc_next(struct pc_page *pg)
{
	uint64_t i = (uint64_t)pg->index + 1;
	unsigned b = (unsigned)(i & ((1u << PC_LEAF_SHIFT) - 1));
	if (b) { /* most walks find the next page in pg's own leaf */
		const struct pc_leaf *lf = pg->file->mapping.pages.leaf[pg->index >> PC_LEAF_SHIFT];
		uint64_t m = lf->map & (~0ull << b);
		if (m)
			return lf->slot[__builtin_ctzll(m)];
	}
	return pc_find_ge(pg->file, i);
}

/* pagevec_lookup_tag(PAGECACHE_TAG_WRITEBACK) from from: a leaf's wb word
 * holds the bits of its pages with PG_WRITEBACK, so this is the page a
 * pc_next walk from pc_find_ge(f, from) testing PG_WRITEBACK would stop
 * at, 64 slots per step instead of one page. */
struct pc_page *pc_find_writeback(const struct stack_file *f, uint64_t from, uint64_t last)
{
	if (!f->mapping.last)
		return NULL;
	if (last > f->mapping.last->index)
		last = f->mapping.last->index; /* so every leaf up to last's is in the directory */
	if (from > last)
		return NULL;
	uint64_t l = from >> PC_LEAF_SHIFT, le = last >> PC_LEAF_SHIFT;
	uint64_t m = ~0ull << (from & ((1u << PC_LEAF_SHIFT) - 1));
	for (; l <= le; l++, m = ~0ull) {
		const struct pc_leaf *lf = f->mapping.pages.leaf[l];
		uint64_t w = lf ? lf->wb & m : 0;
		if (w) {
			struct pc_page *pg = lf->slot[__builtin_ctzll(w)];
			return pg->index <= last ? pg : NULL;
		}
	}
	return NULL;
}

/* The flusher's and fsync's run of contiguous writable pages: the walk
 * q = pc_next(q) while q->index == start + n, a leaf's slots read in place
 * (a hole ends the run either way; the map gives the present stretch). */
uint64_t pc_dirty_run(const struct stack_file *f, uint64_t start, uint64_t lim)
{
	uint64_t n = 1, i = start + 1;
	while (n < lim) {
		uint64_t l = i >> PC_LEAF_SHIFT;
		if (l >= f->mapping.pages.nleaf || !f->mapping.pages.leaf[l])
			return n;
		const struct pc_leaf *lf = f->mapping.pages.leaf[l];
		unsigned b = (unsigned)(i & ((1u << PC_LEAF_SHIFT) - 1));
		/* present slots from b on: the ones of map >> b up to its first zero */
		uint64_t gaps = ~(lf->map >> b);
		unsigned present = gaps ? (unsigned)__builtin_ctzll(gaps) : 64u;
		uint64_t k = lim - n < present ? lim - n : present, j = 0;
		struct pc_page *const *sl = &lf->slot[b];
		/* runs are chunks of thousands of pages: four per loop test */
#pragma GCC unroll 4
		for (; j < k; j++)
			if ((sl[j]->flags & (PG_DIRTY | PG_WRITEBACK)) != PG_DIRTY)
				break;
		n += j;
		if (j < k || (k == present && b + present < (1u << PC_LEAF_SHIFT)))
			return n; /* a page not to write, or a hole */
		i += k;
	}
	return n;
}

/* The page of highest index <= index, or NULL (last not consulted). */
static struct pc_page *find_le(struct stack_file *f, uint64_t index)
{
	uint64_t l = index >> PC_LEAF_SHIFT;
	unsigned b = (unsigned)(index & ((1u << PC_LEAF_SHIFT) - 1));
	uint64_t m = b == 63 ? ~0ull : (2ull << b) - 1;
	if (l >= f->mapping.pages.nleaf) {
		l = f->mapping.pages.nleaf;
		m = ~0ull;
		if (l-- == 0)
			return NULL;
	}
	for (;; m = ~0ull) {
		struct pc_leaf *lf = f->mapping.pages.leaf[l];
		if (lf && (lf->map & m))
			return lf->slot[63 - __builtin_clzll(lf->map & m)];
		if (l-- == 0)
			return NULL;
	}
}

/* pc_index_insert's (models/mm/mm_inline.h) once-a-leaf half. */
struct pc_leaf *pc_index_leaf(struct stack_file *f, uint64_t l)
{
	struct pc_index *ix = &f->mapping.pages;
	if (l >= ix->nleaf) {
		uint64_t n = ix->nleaf ? (uint64_t)ix->nleaf * 2 : 16;
		if (n < l + 1)
			n = l + 1;
		struct pc_leaf **d = realloc(ix->leaf, n * sizeof(*d));
		if (!d)
			return NULL;
		for (uint64_t i = ix->nleaf; i < n; i++)
			d[i] = NULL;
		ix->leaf = d;
		ix->nleaf = (uint32_t)n;
	}
	struct pc_leaf *lf = ix->leaf[l];
	if (!lf) {
		lf = calloc(1, sizeof(*lf));
		if (!lf)
			return NULL;
		ix->leaf[l] = lf;
	}
	return lf;
}

/* The end of a run of removals from one leaf of f: bits were its pages'
 * slots (already cleared) and n their number. Page by page the leaf would
 * be freed with its last page and f->last, the page of the highest index,
 * moved down to the highest one left whenever it went: after the whole
 * run that is the same leaf freed and the same highest page left. */
static void index_remove_run_end(struct stack_file *f, uint64_t l, struct pc_leaf *lf,
				 uint64_t bits, uint32_t n)
{
	lf->map &= ~bits;
	if (!lf->map) {
		free(lf);
		f->mapping.pages.leaf[l] = NULL;
	}
	f->mapping.nr_pages -= n;
	/* f had pages, so a last one; it went if it was one of these */
	const struct pc_page *last = f->mapping.last;
	unsigned lb = last->index & ((1u << PC_LEAF_SHIFT) - 1);
	if (last->index >> PC_LEAF_SHIFT == l && (bits >> lb & 1))
		f->mapping.last = last->index ? find_le(f, (uint64_t)last->index - 1) : NULL;
}

void pc_index_free(struct pc_index *ix)
{
	for (uint32_t i = 0; i < ix->nleaf; i++)
		free(ix->leaf[i]);
	free(ix->leaf);
	ix->leaf = NULL;
	ix->nleaf = 0;
}

/* ---------------------------------------------------------------- LRU */

void pc_mark_accessed(struct stack *s, struct pc_page *pg)
{
	pc_accessed(&s->pc, pg);
}

void pc_pages_free_isolated(struct stack *s, struct pc_page *const *pages, uint32_t n)
{
	struct pagecache *pc = &s->pc;
	/* each page goes to the head of the pool, as list_add one by one
	 * would put it: the chain is linked first and joined at the end */
	struct list_head *head = &pc->free_pages, *next = head->next;
	/* the run of pages of one file in one leaf going on (a chunk off the
	 * inactive tail is mostly one file's consecutive pages) */
	struct stack_file *rf = NULL;
	struct pc_leaf *lf = NULL;
	uint64_t rl = 0, bits = 0;
	uint32_t rn = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct pc_page *pg = pages[i];
		struct stack_file *f = pg->file;
		/* __remove_mapping: only a clean, unlocked page not under
		 * writeback leaves the cache */
		SIM_ASSERT(!(pg->flags & (PG_DIRTY | PG_WRITEBACK | PG_LOCKED | PG_ATOMIC)));
		uint64_t l = pg->index >> PC_LEAF_SHIFT;
		if (pg->flags & PG_WARM) {
			/* before the app came to this file, or a page it skipped */
			if (f->mapping.warm_hits || f->mapping.warm_misses)
				f->mapping.warm_unused++;
			else
				f->mapping.warm_reclaimed++;
		}
		if (f != rf || l != rl) {
			if (rf)
				index_remove_run_end(rf, rl, lf, bits, rn);
			rf = f;
			rl = l;
			lf = f->mapping.pages.leaf[l];
			bits = 0;
			rn = 0;
		}
		unsigned b = pg->index & ((1u << PC_LEAF_SHIFT) - 1);
		lf->slot[b] = NULL;
		bits |= 1ull << b;
		rn++;
		pg->file = NULL;
		pg->lru.next = next;
		next->prev = &pg->lru;
		next = &pg->lru;
	}
	if (rf)
		index_remove_run_end(rf, rl, lf, bits, rn);
	head->next = next;
	next->prev = head;
	pc->used -= n;
	pc->evicted += n;
}

void pc_page_free(struct stack *s, struct pc_page *pg)
{
	pc_lru_del(&s->pc, pg);
	pc_pages_free_isolated(s, &pg, 1);
}

/* ------------------------------------------------------------- insert */

/* The body is pc_insert (models/mm/mm_inline.h), inlined here and into
 * the write loop. */
enum step pc_add_page(struct stack_task *t, struct stack_file *f, uint64_t index,
		      struct pc_page **out)
{
	/* ext4's write_begin allocates GFP_NOFS (AOP_FLAG_NOFS) */
	return pc_insert(t, f, index, out, t->os.active && t->os.op.kind == STACK_OP_WRITE);
}

/* ------------------------------------------------------------ waiting */

void pc_wake_page(struct stack *s, struct pc_page *pg)
{
	struct pagecache *pc = &s->pc;
	uint32_t b = (pg->file->id * 2654435761u ^ pg->index * 40503u) % STACK_WAITQ_BUCKETS;
	struct list_head *pos, *tmp;
	bool remaining = false;
	list_for_each_safe(pos, tmp, &pc->waitq[b]) {
		struct stack_task *t = list_entry(pos, struct stack_task, waitq_node);
		if (t->wait_page != pg)
			continue;
		if (pg->flags & t->wait_mask) {
			remaining = true;
			continue;
		}
		list_del_init(&t->waitq_node);
		t->wait_page = NULL;
		task_wake(t);
	}
	if (!remaining)
		pg->flags &= (uint16_t)~PG_WAITERS;
}

void pc_page_read_submitted(struct stack *s, struct pc_page *pg)
{
	pg->flags |= PG_READIO;
	if (!(pg->flags & PG_WAITERS))
		return;
	uint32_t b = (pg->file->id * 2654435761u ^ pg->index * 40503u) % STACK_WAITQ_BUCKETS;
	struct list_head *pos;
	list_for_each(pos, &s->pc.waitq[b]) {
		struct stack_task *t = list_entry(pos, struct stack_task, waitq_node);
		if (t->wait_page == pg && t->wait_cause == SIM_WAIT_PAGE_LOCK)
			task_rebook_wait(t, SIM_WAIT_READ_IO);
	}
}

void pc_clear_flags_slow(struct stack *s, struct pc_page *pg, uint16_t bits)
{
	if ((bits & PG_WRITEBACK) && (pg->flags & PG_RECLAIM))
		mm_writeback_end(s, pg);
	pg->flags &= (uint16_t)~bits;
	if (pg->flags & PG_WAITERS)
		pc_wake_page(s, pg);
}

/* --------------------------------------------------------------- setup */

int pagecache_init(struct stack *s, struct cfg_node *mem, struct cfg_node *pcn,
		   struct sim_error *err)
{
	struct pagecache *pc = &s->pc;
	int rc = cfg_apply(mem_params_table, mem, &pc->mp, err);
	if (rc)
		return rc;
	rc = cfg_apply(pc_params_table, pcn, &pc->p, err);
	if (rc)
		return rc;
	if (pc->mp.reserved_bytes >= pc->mp.total_bytes)
		return cfg_errorf(err, mem ? mem : pcn,
				  "memory.reserved_bytes must be below memory.total_bytes");
	pc->capacity = (pc->mp.total_bytes - pc->mp.reserved_bytes) >> STACK_PAGE_SHIFT;
	pc->min_free_seen = pc->capacity;
	pc->kswapd_sleep_free = UINT64_MAX;
	uint64_t min_kib = pc->mp.min_free_bytes >> 10;
	if (min_kib == 0) {
		min_kib = (uint64_t)sqrt((double)(pc->mp.total_bytes >> 10) * 16.0);
		if (min_kib < 128)
			min_kib = 128;
		if (min_kib > 65536)
			min_kib = 65536;
	}
	pc->wmark_min = min_kib >> 2; /* KiB -> pages */
	uint64_t extra = pc->mp.extra_free_bytes >> STACK_PAGE_SHIFT;
	pc->wmark_low = pc->wmark_min + extra + pc->wmark_min / 4;
	pc->wmark_high = pc->wmark_min + extra + pc->wmark_min / 2;
	if (pc->wmark_high * 4 > pc->capacity)
		return cfg_errorf(err, mem ? mem : pcn,
				  "page cache of %llu pages is too small for its watermarks",
				  (unsigned long long)pc->capacity);
	list_init(&pc->inactive);
	list_init(&pc->active);
	list_init(&pc->free_pages);
	list_init(&pc->congestion_wq);
	list_init(&pc->pfmemalloc_wq);
	/* zone_batchsize(): managed/1024 capped at 512 KiB of pages, /4,
	 * rounddown_pow_of_two(b + b/2) - 1; pcp->high = 6 x batch */
	int64_t b = (int64_t)((pc->mp.total_bytes >> STACK_PAGE_SHIFT) / 1024);
	if (b * STACK_PAGE_SIZE > 512 * 1024)
		b = (512 * 1024) / STACK_PAGE_SIZE;
	b /= 4;
	if (b < 1)
		b = 1;
	int64_t r = 1;
	while (r * 2 <= b + b / 2)
		r *= 2;
	pc->pcp_batch = r - 1 > 0 ? r - 1 : 1;
	pc->pcp_high = 6 * pc->pcp_batch;
	for (int i = 0; i < STACK_WAITQ_BUCKETS; i++)
		list_init(&pc->waitq[i]);
	return 0;
}

/* Fill the cache with clean pages of a file: one nobody uses (other apps'
 * data), so that reclaim has something to take before it reaches the
 * workload's pages, or a warm start's (stack_file_prefill, PG_WARM). */
int pagecache_prefill(struct stack *s, struct stack_file *f, uint64_t npages, int lru,
		      uint16_t extra_flags, struct sim_error *err)
{
	struct pagecache *pc = &s->pc;
	if (npages + pc->wmark_high > pc->capacity)
		npages = pc->capacity > 2 * pc->wmark_high ? pc->capacity - 2 * pc->wmark_high : 0;
	/* Every cached page is a record here (with its index slot); a config
	 * asking for more records than this machine - or this process's
	 * address-space limit - can hold would allocate for minutes and die out
	 * of memory, so refuse it at once with the figure it asks for. */
	size_t rec = sizeof(struct pc_page) + sizeof(struct pc_leaf) / (1u << PC_LEAF_SHIFT);
	double need = (double)npages * (double)rec;
	long phys_pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	double phys = phys_pages > 0 && psize > 0 ? (double)phys_pages * (double)psize : 0;
	struct rlimit as;
	bool limited = getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
		       (phys <= 0 || (double)as.rlim_cur < phys);
	if (limited)
		phys = (double)as.rlim_cur;
	if (phys > 0 && need > phys / 2)
		return sim_errorf(err, SIM_E_INPUT,
				  "memory.cached_bytes: %llu MiB of cached pages asks for %llu page records "
				  "of %zu bytes = %.1f GiB of simulator memory, more than half of this "
				  "%s %.1f GiB (the page cache is simulated page by page); lower "
				  "memory.cached_bytes",
				  (unsigned long long)(npages >> (20 - STACK_PAGE_SHIFT)),
				  (unsigned long long)npages, rec, need / 1073741824.0,
				  limited ? "process's address-space limit (ulimit -v) of" : "machine's",
				  phys / 1073741824.0);
	/* Page by page: a record, its index slot (the leaf made at its first
	 * page), the inactive head. Here a leaf's map bits are set once it is
	 * full, the pages are chained and joined at the inactive head, the
	 * counts added and f->last, the highest page, set at the end: the
	 * same records, leaves, list and counts in the same order. */
	bool active = lru == PC_WARM_ACTIVE, tail = lru == PC_WARM_INACTIVE_OLDEST;
	struct list_head *head = active ? &pc->active : &pc->inactive;
	/* the chain is built back to front and joined after at: the list's
	 * head (the newest end) or, for the tail, after its last page */
	struct list_head *at = tail ? head->prev : head, *next = at->next;
	struct pc_leaf *lf = NULL;
	struct pc_page *pg = NULL;
	uint64_t bits = 0, done = 0;
	int rc = 0;
	for (; done < npages; done++) {
		unsigned b = (unsigned)(done & ((1u << PC_LEAF_SHIFT) - 1));
		struct pc_page *p = pc_page_alloc(pc);
		if (!p) {
			rc = SIM_E_NOMEM;
			break;
		}
		if (!lf || b == 0) {
			if (lf)
				lf->map |= bits;
			uint64_t l = done >> PC_LEAF_SHIFT;
			lf = l < f->mapping.pages.nleaf ? f->mapping.pages.leaf[l] : NULL;
			bits = 0;
			if (!lf && !(lf = pc_index_leaf(f, l))) {
				list_add(&p->lru, &pc->free_pages);
				rc = SIM_E_NOMEM;
				break;
			}
		}
		pg = p;
		pg->file = f;
		pg->index = (uint32_t)done;
		pg->flags = (uint16_t)(PG_UPTODATE | extra_flags | (active ? PG_ACTIVE : 0));
		pg->lru_list = active ? PC_LRU_ACTIVE : PC_LRU_INACTIVE;
		lf->slot[b] = pg;
		bits |= 1ull << b;
		pg->lru.next = next;
		next->prev = &pg->lru;
		next = &pg->lru;
	}
	if (lf)
		lf->map |= bits;
	at->next = next;
	next->prev = at;
	f->mapping.nr_pages += done;
	pc->used += done;
	if (active)
		pc->nr_active += done;
	else
		pc->nr_inactive += done;
	if (extra_flags & PG_WARM)
		f->mapping.warm_prefilled += done;
	if (pg && (!f->mapping.last || pg->index > f->mapping.last->index))
		f->mapping.last = pg;
	if (rc)
		return sim_errorf(err, rc, "out of memory");
	if (f->size < npages << STACK_PAGE_SHIFT)
		f->size = npages << STACK_PAGE_SHIFT;
	pc->peak_used = pc->used;
	return 0;
}

void pagecache_free(struct stack *s)
{
	struct pagecache *pc = &s->pc;
	for (uint32_t i = 0; i < pc->nslabs; i++)
		free(pc->slabs[i]);
	free(pc->slabs);
	pc->slabs = NULL;
	pc->nslabs = pc->cap_slabs = 0;
}

/* The warm starts' accounting (stack_file_prefill): in total and by app
 * (the files' owner uid, in the order their files were made); NULL when
 * no task started warm. */
static json_t *warm_counts(uint64_t files, uint64_t pre, uint64_t rec, uint64_t unused,
			   uint64_t hit, uint64_t miss)
{
	json_t *o = json_object();
	json_object_set_new(o, "files", json_integer((json_int_t)files));
	json_object_set_new(o, "prefilled", json_integer((json_int_t)pre));
	json_object_set_new(o, "reclaimed_before_use", json_integer((json_int_t)rec));
	json_object_set_new(o, "reclaimed_unused", json_integer((json_int_t)unused));
	json_object_set_new(o, "hits", json_integer((json_int_t)hit));
	json_object_set_new(o, "misses", json_integer((json_int_t)miss));
	return o;
}

static json_t *pagecache_warm_json(const struct stack *s)
{
	enum { MAXAPPS = 64 };
	struct { uint32_t uid; uint64_t n, pre, rec, unused, hit, miss; } app[MAXAPPS];
	uint32_t napp = 0;
	uint64_t n = 0, pre = 0, rec = 0, unused = 0, hit = 0, miss = 0;
	const struct list_head *pos;
	list_for_each(pos, &s->files) {
		const struct stack_file *f = list_entry(pos, struct stack_file, all_node);
		if (!f->mapping.warm_prefilled)
			continue;
		n++;
		pre += f->mapping.warm_prefilled;
		rec += f->mapping.warm_reclaimed;
		unused += f->mapping.warm_unused;
		hit += f->mapping.warm_hits;
		miss += f->mapping.warm_misses;
		uint32_t i = 0;
		while (i < napp && app[i].uid != f->owner_uid)
			i++;
		if (i == napp) {
			if (napp == MAXAPPS)
				continue; /* the total still counts it */
			app[napp++] = (typeof(app[0])){ .uid = f->owner_uid };
		}
		app[i].n++;
		app[i].pre += f->mapping.warm_prefilled;
		app[i].rec += f->mapping.warm_reclaimed;
		app[i].unused += f->mapping.warm_unused;
		app[i].hit += f->mapping.warm_hits;
		app[i].miss += f->mapping.warm_misses;
	}
	if (!n)
		return NULL;
	json_t *o = warm_counts(n, pre, rec, unused, hit, miss);
	json_object_set_new(o, "lru", json_string(warm_lrus[s->pc.mp.warm_lru]));
	json_t *a = json_array();
	for (uint32_t i = 0; i < napp; i++) {
		json_t *e = warm_counts(app[i].n, app[i].pre, app[i].rec, app[i].unused, app[i].hit,
					app[i].miss);
		json_object_set_new(e, "uid", json_integer(app[i].uid));
		json_array_append_new(a, e);
	}
	json_object_set_new(o, "apps", a);
	return o;
}

struct json_t *pagecache_to_json(const struct stack *s)
{
	const struct pagecache *pc = &s->pc;
	json_t *o = json_object();
	json_object_set_new(o, "lock_wait_ns", json_integer(s->lock.l.wait_ns));
	json_object_set_new(o, "lock_acquisitions", json_integer((json_int_t)s->lock.l.acquisitions));
	json_object_set_new(o, "hits", json_integer((json_int_t)pc->hits));
	json_object_set_new(o, "misses", json_integer((json_int_t)pc->misses));
	json_object_set_new(o, "lock", pglock_to_json(&s->lock));
	json_object_set_new(o, "capacity_pages", json_integer((json_int_t)pc->capacity));
	json_object_set_new(o, "used_pages", json_integer((json_int_t)pc->used));
	json_object_set_new(o, "peak_used_pages", json_integer((json_int_t)pc->peak_used));
	json_object_set_new(o, "wmark_min_pages", json_integer((json_int_t)pc->wmark_min));
	json_object_set_new(o, "wmark_low_pages", json_integer((json_int_t)pc->wmark_low));
	json_object_set_new(o, "wmark_high_pages", json_integer((json_int_t)pc->wmark_high));
	json_object_set_new(o, "inserted", json_integer((json_int_t)pc->inserted));
	json_object_set_new(o, "evicted", json_integer((json_int_t)pc->evicted));
	json_object_set_new(o, "activations", json_integer((json_int_t)pc->activations));
	json_object_set_new(o, "rotated", json_integer((json_int_t)pc->rotated));
	json_object_set_new(o, "kswapd_batches", json_integer((json_int_t)pc->kswapd_batches));
	json_object_set_new(o, "direct_reclaim_batches", json_integer((json_int_t)pc->direct_batches));
	json_object_set_new(o, "direct_reclaim_stalls", json_integer((json_int_t)pc->direct_stalls));
	json_object_set_new(o, "reclaim", mm_reclaim_to_json(s));
	json_object_set_new(o, "zone_lock", mm_lock_to_json(&s->zone_lock));
	/* tree_lock: the sum over files, and the FG/BG split */
	struct mm_lock tl = { 0 };
	const struct list_head *pos;
	list_for_each(pos, &s->files) {
		const struct stack_file *f = list_entry(pos, struct stack_file, all_node);
		tl.acquisitions += f->mapping.tree_lock.acquisitions;
		tl.contended += f->mapping.tree_lock.contended;
		tl.wait_ns += f->mapping.tree_lock.wait_ns;
		tl.hold_ns += f->mapping.tree_lock.hold_ns;
		if (f->mapping.tree_lock.max_wait_ns > tl.max_wait_ns)
			tl.max_wait_ns = f->mapping.tree_lock.max_wait_ns;
		for (int c = 0; c < SIM_NCLASS; c++) {
			tl.wait_cls_ns[c] += f->mapping.tree_lock.wait_cls_ns[c];
			tl.acq_cls[c] += f->mapping.tree_lock.acq_cls[c];
		}
	}
	json_object_set_new(o, "tree_lock", mm_lock_to_json(&tl));
	json_t *ra = json_object();
	json_object_set_new(ra, "sync", json_integer((json_int_t)pc->ra_sync));
	json_object_set_new(ra, "async", json_integer((json_int_t)pc->ra_async));
	json_object_set_new(ra, "readaround", json_integer((json_int_t)pc->ra_readaround));
	json_object_set_new(ra, "single_page_reads", json_integer((json_int_t)pc->ra_single));
	json_object_set_new(ra, "pages", json_integer((json_int_t)pc->ra_pages));
	json_object_set_new(ra, "read_bios", json_integer((json_int_t)pc->read_bios));
	json_object_set_new(ra, "read_pages", json_integer((json_int_t)pc->read_pages));
	json_object_set_new(o, "readahead", ra);
	json_t *warm = pagecache_warm_json(s);
	if (warm)
		json_object_set_new(o, "warm", warm);
	json_object_set_new(o, "memory", cfg_params_to_json(mem_params_table, &pc->mp));
	json_object_set_new(o, "params", cfg_params_to_json(pc_params_table, &pc->p));
	return o;
}

/* wait_on_page_bit (mm/filemap.c): the task joins the page's hashed wait
 * queue; pc_wake_page wakes it. */
void task_wait_page(struct stack_task *t, struct pc_page *pg, uint16_t mask, enum sim_wait cause)
{
	struct stack *s = t->stack;
	uint32_t b = (pg->file->id * 2654435761u ^ pg->index * 40503u) % STACK_WAITQ_BUCKETS;
	pg->flags |= PG_WAITERS;
	t->wait_page = pg;
	t->wait_mask = mask;
	list_add_tail(&t->waitq_node, &s->pc.waitq[b]);
	task_block(t, cause);
}
