/* Feature extraction for `mobisim workload fit` (traces/tracefit.h): per
 * stream and chunk of time, the feature record of Tarasov et al., FAST'12,
 * plus the summary statistics a fitted model's run is compared on. */
#include "traces/tracefit.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/block/request.h"

#define TFIT_STREAMS_MAX 65536u
#define TFIT_GSIZES 1024u        /* distinct sizes per direction kept for the TVD */

struct tstream {
	int32_t pid;
	char comm[32];
	bool has_uid;
	uint32_t uid;
	int keyed;                    /* KEY_PID, KEY_COMM or KEY_UID */
	struct tfit_thread threads[TFIT_THREADS];
	uint32_t nthreads;
	uint64_t threads_other;
	uint32_t dev_major, dev_minor;
	uint64_t lo, hi;              /* sectors touched: [lo, hi) */
	uint64_t prev_end[2], prev_end_any;
	bool have_prev[2], have_any;
	uint64_t ring[TFIT_RING];
	uint32_t ring_n, ring_pos;
	int64_t last_t;
	bool have_t;
	/* its last request, for think times: completed (at last_c) or not */
	uint64_t last_sector;
	uint32_t last_dev;
	bool last_open, last_done;
	int64_t last_c, last_q;
	uint64_t ios, bytes, aligned;
	/* its chunks: the closed ones kept for the model (in order), then the
	 * open one, the only one a later record can still change */
	struct tfit_chunk *chunks;
	uint32_t nkept, cap;
	struct tfit_chunk cur;
};

struct gsize { uint32_t sectors; uint64_t count; };

/* The footprint as bitmaps of TFIT_FP_REGION_PAGES pages, one per region
 * touched: a dense trace (a phone's, within its partition) costs a bit per
 * page of the span it touches, not 16 bytes per page as a hash set does. */
#define TFIT_FP_REGION_SHIFT 12u /* 4096 pages of 4 KiB: 16 MiB of disk per region */
#define TFIT_FP_REGION_PAGES (1u << TFIT_FP_REGION_SHIFT)
#define TFIT_FP_REGIONS_MAX (1u << 15) /* 16 MiB of bitmaps at most */
struct fpregion { uint64_t key; uint64_t *bits; }; /* key: region + 1, 0 empty */

struct tfit {
	struct tfit_opts o;
	struct tstream *s;
	uint32_t ns, scap;
	uint32_t *hash;               /* stream index + 1 by key, open addressing */
	uint32_t hcap;
	bool have_t0;
	int64_t t0, tmin, tmax, tlast;
	struct tfit_stats st;
	double iat_sum, iat_sq;       /* merged arrivals */
	uint64_t niat;
	/* index of dispersion: [0] burst window, [1] the chunk */
	int64_t win[2];
	uint64_t win_count[2], nwin[2];
	double win_sum[2], win_sq[2];
	struct gsize gs[2][TFIT_GSIZES];
	uint32_t ngs[2];
	uint64_t gs_other[2];
	uint64_t size_sum[2];
	double think_sum;             /* completion of a stream's request to its next one */
	uint64_t svc_n;               /* completions matched to their stream's latest request */
	uint64_t think_n, think_overlap;
	struct fpregion *fp;          /* footprint regions, open addressing */
	uint64_t fpcap, fpn;          /* slots; distinct pages */
	uint32_t nregions;
	/* the model's YAML nodes of the closed chunks (svc apart: written
	 * only when the trace has completions); past o.keep_nodes the
	 * closed chunks are dropped (the model could not be written) */
	uint64_t closed_nodes, closed_svc_nodes;
	bool dropped;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

int tfit_create(const struct tfit_opts *o, struct tfit **out, struct sim_error *err)
{
	struct tfit *f = calloc(1, sizeof(*f));
	if (!f)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	f->o = *o;
	if (f->o.chunk_ns <= 0)
		f->o.chunk_ns = 1000000000LL;
	if (f->o.burst_window_ns <= 0)
		f->o.burst_window_ns = 10000000LL;
	if (!f->o.io_action)
		f->o.io_action = TRACE_A_QUEUE;
	f->hcap = 1024;
	f->hash = calloc(f->hcap, sizeof(*f->hash));
	f->fpcap = 64;
	f->fp = calloc(f->fpcap, sizeof(*f->fp));
	if (!f->hash || !f->fp) {
		tfit_destroy(f);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	*out = f;
	return 0;
}

void tfit_destroy(struct tfit *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->ns; i++)
		free(f->s[i].chunks);
	free(f->s);
	free(f->hash);
	for (uint64_t i = 0; f->fp && i < f->fpcap; i++)
		free(f->fp[i].bits);
	free(f->fp);
	free(f);
}

/* What a stream is keyed by: its uid (--by uid, when the record has one),
 * its name (--by comm, when it has one), else its pid. */
enum { KEY_PID = 0, KEY_COMM, KEY_UID };

static int key_kind(const struct tfit *f, const struct tfit_key *k)
{
	if (f->o.by == TFIT_BY_UID && k->has_uid)
		return KEY_UID;
	if (f->o.by == TFIT_BY_COMM && k->comm && *k->comm)
		return KEY_COMM;
	return KEY_PID;
}

static uint64_t stream_key(const struct tfit *f, const struct tfit_key *k)
{
	switch (key_kind(f, k)) {
	case KEY_UID: return hash64((uint64_t)k->uid) ^ 0x27d4eb2fu;
	case KEY_COMM: return str_hash(k->comm);
	default: return hash64((uint64_t)(uint32_t)k->pid) ^ 0x5bd1e995u;
	}
}

static bool stream_is(const struct tfit *f, const struct tstream *s, const struct tfit_key *k)
{
	int kind = key_kind(f, k);
	if (kind != s->keyed)
		return false;
	switch (kind) {
	case KEY_UID: return s->uid == k->uid;
	case KEY_COMM: return !strncmp(s->comm, k->comm, sizeof(s->comm) - 1);
	default: return s->pid == k->pid;
	}
}

static void stream_key_of(const struct tstream *s, struct tfit_key *k)
{
	k->pid = s->pid;
	k->comm = s->comm;
	k->has_uid = s->has_uid;
	k->uid = s->uid;
}

int tfit_stream_find(const struct tfit *f, const struct tfit_key *k)
{
	uint64_t h = stream_key(f, k);
	for (uint32_t i = (uint32_t)(h & (f->hcap - 1));; i = (i + 1) & (f->hcap - 1)) {
		if (!f->hash[i])
			return -1;
		if (stream_is(f, &f->s[f->hash[i] - 1], k))
			return (int)(f->hash[i] - 1);
	}
}

static int rehash(struct tfit *f)
{
	uint32_t cap = f->hcap * 2;
	uint32_t *h = calloc(cap, sizeof(*h));
	if (!h)
		return -1;
	for (uint32_t j = 0; j < f->ns; j++) {
		struct tfit_key k;
		stream_key_of(&f->s[j], &k);
		uint32_t i = (uint32_t)(stream_key(f, &k) & (cap - 1));
		while (h[i])
			i = (i + 1) & (cap - 1);
		h[i] = j + 1;
	}
	free(f->hash);
	f->hash = h;
	f->hcap = cap;
	return 0;
}

/* A stream's threads (its pids, when it groups several): counted per pid. */
static void stream_thread(struct tstream *s, int32_t pid)
{
	for (uint32_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].pid == pid) {
			s->threads[i].count++;
			return;
		}
	if (s->nthreads < TFIT_THREADS)
		s->threads[s->nthreads++] = (struct tfit_thread){ pid, 1 };
	else
		s->threads_other++;
}

static struct tstream *stream_get(struct tfit *f, const struct trace_rec *r)
{
	struct tfit_key k = { .pid = r->pid, .comm = r->comm,
			      .has_uid = (r->tflags & TRACE_T_HAS_UID) != 0, .uid = r->uid };
	int j = tfit_stream_find(f, &k);
	if (j >= 0) {
		struct tstream *s = &f->s[j];
		if (!s->comm[0] && r->comm)
			snprintf(s->comm, sizeof(s->comm), "%s", r->comm);
		stream_thread(s, r->pid);
		return s;
	}
	if (f->ns >= TFIT_STREAMS_MAX)
		return NULL;
	if (f->ns == f->scap) {
		uint32_t cap = f->scap ? f->scap * 2 : 16;
		struct tstream *n = realloc(f->s, cap * sizeof(*n));
		if (!n)
			return NULL;
		f->s = n;
		f->scap = cap;
	}
	if ((f->ns + 1) * 2 > f->hcap && rehash(f))
		return NULL;
	struct tstream *s = &f->s[f->ns];
	memset(s, 0, sizeof(*s));
	s->pid = r->pid;
	if (r->comm)
		snprintf(s->comm, sizeof(s->comm), "%s", r->comm);
	s->has_uid = k.has_uid;
	s->uid = r->uid;
	s->keyed = key_kind(f, &k);
	s->dev_major = r->dev_major;
	s->dev_minor = r->dev_minor;
	s->lo = UINT64_MAX;
	stream_thread(s, r->pid);
	uint32_t i = (uint32_t)(stream_key(f, &k) & (f->hcap - 1));
	while (f->hash[i])
		i = (i + 1) & (f->hcap - 1);
	f->hash[i] = ++f->ns;
	return s;
}

static unsigned log2_bucket(uint64_t v, unsigned nb)
{
	if (!v)
		return 0;
	unsigned b = 64 - (unsigned)__builtin_clzll(v); /* v in [2^(b-1), 2^b) */
	return b < nb ? b : nb - 1;
}

static void size_add(struct tfit_chunk *c, int d, uint32_t sectors)
{
	uint32_t n = c->nsizes[d];
	for (uint32_t i = 0; i < n; i++)
		if (c->sizes[d][i].sectors == sectors) {
			c->sizes[d][i].count++;
			return;
		}
	if (n < TFIT_SIZES) {
		c->sizes[d][n] = (struct tfit_size){ sectors, 1 };
		c->nsizes[d]++;
		return;
	}
	/* full: the nearest size kept takes it (sizes beyond the 16 most
	 * frequent of a chunk are rare; the TVD in the report shows the cost) */
	uint32_t best = 0;
	uint64_t bd = UINT64_MAX;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t dd = c->sizes[d][i].sectors > sectors ? c->sizes[d][i].sectors - sectors
							   : sectors - c->sizes[d][i].sectors;
		if (dd < bd) {
			bd = dd;
			best = i;
		}
	}
	c->sizes[d][best].count++;
}

static void gsize_add(struct tfit *f, int d, uint32_t sectors)
{
	for (uint32_t i = 0; i < f->ngs[d]; i++)
		if (f->gs[d][i].sectors == sectors) {
			f->gs[d][i].count++;
			return;
		}
	if (f->ngs[d] < TFIT_GSIZES)
		f->gs[d][f->ngs[d]++] = (struct gsize){ sectors, 1 };
	else
		f->gs_other[d]++;
}

/* The region's slot in the footprint table, made when absent (NULL when
 * the table is at TFIT_FP_REGIONS_MAX or out of memory: *full says which). */
static struct fpregion *fp_region(struct tfit *f, uint64_t region, bool *full)
{
	uint64_t key = region + 1;
	uint64_t j = hash64(key) & (f->fpcap - 1);
	while (f->fp[j].key) {
		if (f->fp[j].key == key)
			return &f->fp[j];
		j = (j + 1) & (f->fpcap - 1);
	}
	if (f->nregions >= TFIT_FP_REGIONS_MAX) {
		*full = true;
		return NULL;
	}
	if ((f->nregions + 1) * 2 > f->fpcap) {
		uint64_t cap = f->fpcap * 2;
		struct fpregion *n = calloc(cap, sizeof(*n));
		if (!n)
			return NULL;
		for (uint64_t i = 0; i < f->fpcap; i++) {
			if (!f->fp[i].key)
				continue;
			uint64_t k = hash64(f->fp[i].key) & (cap - 1);
			while (n[k].key)
				k = (k + 1) & (cap - 1);
			n[k] = f->fp[i];
		}
		free(f->fp);
		f->fp = n;
		f->fpcap = cap;
		j = hash64(key) & (cap - 1);
		while (f->fp[j].key)
			j = (j + 1) & (cap - 1);
	}
	uint64_t *bits = calloc(TFIT_FP_REGION_PAGES / 64, sizeof(*bits));
	if (!bits)
		return NULL;
	f->fp[j] = (struct fpregion){ key, bits };
	f->nregions++;
	return &f->fp[j];
}

static int fp_insert(struct tfit *f, uint64_t page)
{
	if (f->fpn >= TFIT_FOOTPRINT_MAX) {
		f->st.footprint_capped = true;
		return 0;
	}
	bool full = false;
	struct fpregion *r = fp_region(f, page >> TFIT_FP_REGION_SHIFT, &full);
	if (!r) {
		if (!full)
			return -1;
		f->st.footprint_capped = true; /* a new region past the table's bound: not counted */
		return 0;
	}
	uint64_t bit = page & (TFIT_FP_REGION_PAGES - 1);
	uint64_t m = 1ULL << (bit & 63);
	if (!(r->bits[bit >> 6] & m)) {
		r->bits[bit >> 6] |= m;
		f->fpn++;
	}
	return 0;
}

static void burst_close_until(struct tfit *f, int k, int64_t w)
{
	/* the current window is complete; those between it and w were empty */
	double c = (double)f->win_count[k];
	f->win_sum[k] += c;
	f->win_sq[k] += c * c;
	f->nwin[k] += (uint64_t)(w - f->win[k]);
	f->win_count[k] = 0;
	f->win[k] = w;
}

static double idc_of(const struct tfit *f, int k)
{
	/* the last window counts too */
	double c = (double)f->win_count[k];
	double ws = f->win_sum[k] + c, wq = f->win_sq[k] + c * c;
	double nw = (double)f->nwin[k] + (f->st.ios ? 1 : 0);
	if (nw <= 1)
		return 0.0;
	double m = ws / nw, v = wq / nw - m * m;
	return m > 0 ? (v > 0 ? v : 0) / m : 0.0;
}

static uint64_t hist_nodes(const uint32_t *h, unsigned n)
{
	uint64_t k = 2; /* the key and its map */
	for (unsigned b = 0; b < n; b++)
		k += h[b] ? 2 : 0;
	return k;
}

/* The YAML nodes of a chunk's record, its svc map apart (*svc). */
static uint64_t chunk_nodes(const struct tfit_chunk *c, uint64_t *svc)
{
	/* the chunk's map, its twelve scalars and the five or six maps */
	uint64_t n = 1 + 24 + 4 + 2 * (uint64_t)(c->nsizes[0] + c->nsizes[1]);
	n += hist_nodes(c->iat, TFIT_IAT_BUCKETS) + hist_nodes(c->jump, TFIT_JUMP_BUCKETS) +
	     hist_nodes(c->rdist, TFIT_RDIST_BUCKETS);
	*svc = hist_nodes(c->svc, TFIT_IAT_BUCKETS);
	return n;
}

/* The stream's open chunk is complete (a later record starts another; no
 * record changes a closed one): counted, and kept for the model until the
 * model is past what it could write. Then every kept chunk goes: memory is
 * bounded by the model that can be written, not by the trace. */
static int chunk_close(struct tfit *f, struct tstream *s)
{
	uint64_t svc;
	f->closed_nodes += chunk_nodes(&s->cur, &svc);
	f->closed_svc_nodes += svc;
	if (f->dropped || f->o.stats_only)
		return 0;
	/* closed nodes only grow, so a model past the bound now stays past it */
	if (f->o.keep_nodes && f->closed_nodes + (f->svc_n ? f->closed_svc_nodes : 0) > f->o.keep_nodes) {
		for (uint32_t i = 0; i < f->ns; i++) {
			free(f->s[i].chunks);
			f->s[i].chunks = NULL;
			f->s[i].nkept = f->s[i].cap = 0;
		}
		f->dropped = true;
		return 0;
	}
	if (s->nkept == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 4;
		struct tfit_chunk *n = realloc(s->chunks, cap * sizeof(*n));
		if (!n)
			return -1;
		s->chunks = n;
		s->cap = cap;
	}
	s->chunks[s->nkept++] = s->cur;
	return 0;
}

/* A completion: the stream whose last request it ends (streams are few;
 * a completion of an older request, or of a merged one's later bio, is
 * not matched). */
static void tfit_complete(struct tfit *f, const struct trace_rec *r)
{
	if (!f->have_t0)
		return;
	uint32_t dev = r->dev_major << 20 | (r->dev_minor & 0xfffff);
	for (uint32_t i = 0; i < f->ns; i++) {
		struct tstream *s = &f->s[i];
		if (s->last_open && !s->last_done && s->last_sector == r->sector && s->last_dev == dev) {
			s->last_done = true;
			s->last_c = r->time_ns - f->t0;
			/* its request is in the stream's latest chunk, the open one */
			int64_t q2c = s->last_c - s->last_q;
			s->cur.svc[log2_bucket((uint64_t)(q2c > 0 ? q2c : 0),
								  TFIT_IAT_BUCKETS)]++;
			f->svc_n++;
			return;
		}
	}
}

int tfit_add(struct tfit *f, const struct trace_rec *r, struct sim_error *err)
{
	if (r->kind == TRACE_REC_BLOCK && r->action == TRACE_A_COMPLETE && r->nr_sectors) {
		tfit_complete(f, r);
		return 0;
	}
	if (r->kind != TRACE_REC_BLOCK || r->action != f->o.io_action || !r->nr_sectors ||
	    (r->dir != TRACE_DIR_READ && r->dir != TRACE_DIR_WRITE))
		return 0;
	if (!f->have_t0) {
		f->have_t0 = true;
		f->t0 = f->tmin = f->tmax = f->tlast = r->time_ns;
	}
	int64_t t = r->time_ns - f->t0;
	if (t < 0)
		t = 0; /* before the first record: counted in the first chunk */
	struct tstream *s = stream_get(f, r);
	if (!s)
		return sim_errorf(err, SIM_E_NOMEM, "workload fit: out of memory (or more than %u streams)",
				  TFIT_STREAMS_MAX);
	int d = r->dir == TRACE_DIR_WRITE;
	bool sync = req_is_sync(r->flags);
	uint64_t start = r->sector, end = r->sector + r->nr_sectors;

	/* the stream's chunk (a stream just made has none open: cur.n 0) */
	uint32_t idx = (uint32_t)(t / f->o.chunk_ns);
	bool open = s->cur.n > 0;
	if (open && idx < s->cur.idx)
		idx = s->cur.idx; /* time went back: the chunk it is in */
	struct tfit_chunk *c = &s->cur;
	bool same_chunk = open && c->idx == idx;
	if (!same_chunk) {
		if (open && chunk_close(f, s))
			return sim_errorf(err, SIM_E_NOMEM, "workload fit: out of memory");
		memset(c, 0, sizeof(*c));
		c->idx = idx;
		c->first_ns = c->last_ns = t - (int64_t)idx * f->o.chunk_ns;
	}
	int64_t off = t - (int64_t)idx * f->o.chunk_ns;
	if (off < c->first_ns)
		c->first_ns = off;
	if (off > c->last_ns)
		c->last_ns = off;
	if (same_chunk && s->have_t)
		c->iat[log2_bucket((uint64_t)(t > s->last_t ? t - s->last_t : 0), TFIT_IAT_BUCKETS)]++;
	c->n++;
	c->dir[d]++;
	c->sync[d] += sync;
	size_add(c, d, r->nr_sectors);

	/* where it starts: sequential, a re-reference, or a jump */
	bool seq = s->have_prev[d] && start == s->prev_end[d];
	bool reref = false;
	if (seq) {
		c->seq[d]++;
		f->st.seq++;
	} else {
		for (uint32_t k = 1; k <= s->ring_n; k++) {
			uint32_t at = (s->ring_pos + TFIT_RING - k) % TFIT_RING;
			if (s->ring[at] == start) {
				reref = true;
				unsigned b = log2_bucket(k, TFIT_RDIST_BUCKETS + 1) - 1;
				c->rdist[b]++;
				break;
			}
		}
		if (reref) {
			c->reref++;
			f->st.reref++;
		} else {
			uint64_t from = s->have_any ? s->prev_end_any : start;
			uint64_t dist = start >= from ? start - from : from - start;
			c->jump[log2_bucket(dist, TFIT_JUMP_BUCKETS)]++;
			c->back += start < from;
		}
	}
	s->ring[s->ring_pos] = start;
	s->ring_pos = (s->ring_pos + 1) % TFIT_RING;
	if (s->ring_n < TFIT_RING)
		s->ring_n++;
	s->prev_end[d] = end;
	s->have_prev[d] = true;
	s->prev_end_any = end;
	/* think time: from the completion of the stream's last request */
	if (s->last_open) {
		if (s->last_done && s->last_c <= t) {
			f->think_sum += (double)(t - s->last_c) / 1e9;
			f->think_n++;
		} else {
			f->think_overlap++;
		}
	}
	s->last_open = true;
	s->last_done = false;
	s->last_sector = start;
	s->last_q = t;
	s->last_dev = r->dev_major << 20 | (r->dev_minor & 0xfffff);
	s->have_any = true;
	s->last_t = t > s->last_t || !s->have_t ? t : s->last_t;
	s->have_t = true;
	if (start < s->lo)
		s->lo = start;
	if (end > s->hi)
		s->hi = end;
	s->ios++;
	s->bytes += (uint64_t)r->nr_sectors << SECTOR_SHIFT;
	s->aligned += (start & 7) == 0;

	/* the whole trace */
	f->st.ios++;
	f->st.bytes += (uint64_t)r->nr_sectors << SECTOR_SHIFT;
	f->st.reads += !d;
	f->st.syncs += sync;
	f->st.size4k += r->nr_sectors == 8;
	f->size_sum[d] += r->nr_sectors;
	gsize_add(f, d, r->nr_sectors);
	if (f->st.ios > 1) {
		double g = (double)(r->time_ns > f->tlast ? r->time_ns - f->tlast : 0) / 1e9;
		f->iat_sum += g;
		f->iat_sq += g * g;
		f->niat++;
	}
	if (r->time_ns > f->tlast)
		f->tlast = r->time_ns;
	if (r->time_ns < f->tmin)
		f->tmin = r->time_ns;
	if (r->time_ns > f->tmax)
		f->tmax = r->time_ns;
	for (int k = 0; k < 2; k++) {
		int64_t w = t / (k ? f->o.chunk_ns : f->o.burst_window_ns);
		if (w > f->win[k])
			burst_close_until(f, k, w);
		f->win_count[k]++;
	}
	uint64_t dev = (uint64_t)r->dev_major << 52 ^ (uint64_t)r->dev_minor << 40;
	for (uint64_t p = start >> 3; p <= (end - 1) >> 3; p++)
		if (fp_insert(f, dev ^ p))
			return sim_errorf(err, SIM_E_NOMEM, "workload fit: out of memory");
	return 0;
}

void tfit_stats(const struct tfit *f, struct tfit_stats *out)
{
	*out = f->st;
	out->streams = f->ns;
	out->threads = 0;
	for (uint32_t i = 0; i < f->ns; i++)
		out->threads += f->s[i].nthreads + (f->s[i].threads_other ? 1 : 0);
	out->duration_s = f->st.ios ? (double)(f->tmax - f->tmin) / 1e9 : 0.0;
	uint64_t n[2] = { f->st.reads, f->st.ios - f->st.reads };
	for (int d = 0; d < 2; d++)
		out->mean_size_kib[d] = n[d] ? (double)f->size_sum[d] * 512.0 / 1024.0 / (double)n[d] : 0.0;
	if (f->niat) {
		double m = f->iat_sum / (double)f->niat;
		double v = f->iat_sq / (double)f->niat - m * m;
		out->iat_mean_s = m;
		out->iat_cv = m > 0 ? sqrt(v > 0 ? v : 0) / m : 0.0;
	}
	out->idc = idc_of(f, 0);
	out->idc_chunk = idc_of(f, 1);
	out->footprint_pages = f->fpn;
	out->think_n = f->think_n;
	out->think_overlap = f->think_overlap;
	out->think_mean_s = f->think_n ? f->think_sum / (double)f->think_n : 0.0;
}

static uint64_t gs_count(const struct tfit *f, int d, uint32_t sectors)
{
	for (uint32_t i = 0; i < f->ngs[d]; i++)
		if (f->gs[d][i].sectors == sectors)
			return f->gs[d][i].count;
	return 0;
}

double tfit_size_tvd(const struct tfit *a, const struct tfit *b)
{
	if (!a->st.ios || !b->st.ios)
		return a->st.ios == b->st.ios ? 0.0 : 1.0;
	double na = (double)a->st.ios, nb = (double)b->st.ios, sum = 0.0;
	for (int d = 0; d < 2; d++) {
		for (uint32_t i = 0; i < a->ngs[d]; i++)
			sum += fabs((double)a->gs[d][i].count / na -
				    (double)gs_count(b, d, a->gs[d][i].sectors) / nb);
		for (uint32_t i = 0; i < b->ngs[d]; i++)
			if (!gs_count(a, d, b->gs[d][i].sectors))
				sum += (double)b->gs[d][i].count / nb;
		sum += fabs((double)a->gs_other[d] / na - (double)b->gs_other[d] / nb);
	}
	return sum / 2.0;
}

bool tfit_uid_of_pid(const struct tfit *f, int32_t pid, uint32_t *uid)
{
	for (uint32_t i = 0; i < f->ns; i++) {
		const struct tstream *s = &f->s[i];
		if (!s->has_uid)
			continue;
		for (uint32_t t = 0; t < s->nthreads; t++)
			if (s->threads[t].pid == pid) {
				*uid = s->uid;
				return true;
			}
	}
	return false;
}

uint32_t tfit_nstreams(const struct tfit *f)
{
	return f->ns;
}

void tfit_stream_info(const struct tfit *f, uint32_t i, struct tfit_key *key, uint64_t *ios,
		      uint64_t *bytes)
{
	const struct tstream *s = &f->s[i];
	stream_key_of(s, key);
	*ios = s->ios;
	*bytes = s->bytes;
}

/* ---- the model as YAML ------------------------------------------------ */

static void yaml_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(o, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(o, "\\x%02x", ch);
		else
			fputc(ch, o);
	}
	fputc('"', o);
}

static void yaml_hist(FILE *o, const char *key, const uint32_t *h, unsigned n)
{
	fprintf(o, ", %s: {", key);
	bool first = true;
	for (unsigned b = 0; b < n; b++)
		if (h[b]) {
			fprintf(o, "%s%u: %u", first ? "" : ", ", b, h[b]);
			first = false;
		}
	fputc('}', o);
}

uint64_t tfit_model_nodes(const struct tfit *f)
{
	uint64_t n = 4 + f->closed_nodes + (f->svc_n ? f->closed_svc_nodes : 0);
	for (uint32_t i = 0; i < f->ns; i++) {
		const struct tstream *s = &f->s[i];
		uint64_t svc;
		n += 20 + 2 * (uint64_t)s->nthreads + chunk_nodes(&s->cur, &svc);
		if (f->svc_n)
			n += svc;
	}
	return n;
}

static void write_chunk(const struct tfit *f, const struct tfit_chunk *c, FILE *o, int ind)
{
	fprintf(o, "%*s- {i: %u, n: %u, first: %" PRId64 ", last: %" PRId64
		   ", r: %u, w: %u, sr: %u, sw: %u, qr: %u, qw: %u, reref: %u, back: %u",
		ind, "", c->idx, c->n, c->first_ns, c->last_ns, c->dir[0], c->dir[1],
		c->sync[0], c->sync[1], c->seq[0], c->seq[1], c->reref, c->back);
	for (int d = 0; d < 2; d++) {
		fprintf(o, ", %s: {", d ? "wsz" : "rsz");
		for (uint32_t z = 0; z < c->nsizes[d]; z++)
			fprintf(o, "%s%u: %u", z ? ", " : "", c->sizes[d][z].sectors,
				c->sizes[d][z].count);
		fputc('}', o);
	}
	yaml_hist(o, "iat", c->iat, TFIT_IAT_BUCKETS);
	yaml_hist(o, "jump", c->jump, TFIT_JUMP_BUCKETS);
	yaml_hist(o, "rdist", c->rdist, TFIT_RDIST_BUCKETS);
	/* completion times only where the trace had completions */
	if (f->svc_n)
		yaml_hist(o, "svc", c->svc, TFIT_IAT_BUCKETS);
	fprintf(o, "}\n");
}

int tfit_write_model(const struct tfit *f, FILE *o, int ind, struct sim_error *err)
{
	if (f->dropped || f->o.stats_only)
		return sim_errorf(err, SIM_E_RUNTIME, "the model was not kept (%s)",
				  f->o.stats_only ? "statistics only" : "more YAML nodes than its bound");
	fprintf(o, "%*schunk: %" PRId64 "ns\n", ind, "", f->o.chunk_ns);
	fprintf(o, "%*sstreams:\n", ind, "");
	for (uint32_t i = 0; i < f->ns; i++) {
		const struct tstream *s = &f->s[i];
		fprintf(o, "%*s- pid: %d\n", ind + 2, "", s->pid);
		fprintf(o, "%*scomm: ", ind + 4, "");
		yaml_str(o, s->comm[0] ? s->comm : "-");
		fprintf(o, "\n%*sdev_major: %u\n%*sdev_minor: %u\n", ind + 4, "", s->dev_major, ind + 4,
			"", s->dev_minor);
		if (s->has_uid)
			fprintf(o, "%*suid: %u\n", ind + 4, "", s->uid);
		if (s->nthreads > 1) {
			/* the pids of a stream of several, by their requests (those
			 * beyond TFIT_THREADS go to the first) */
			fprintf(o, "%*sthreads: {", ind + 4, "");
			for (uint32_t t = 0; t < s->nthreads; t++)
				fprintf(o, "%s%d: %" PRIu64, t ? ", " : "", s->threads[t].pid,
					s->threads[t].count + (t ? 0 : s->threads_other));
			fprintf(o, "}\n");
		}
		fprintf(o, "%*slba_lo: %" PRIu64 "\n%*slba_hi: %" PRIu64 "\n", ind + 4, "", s->lo, ind + 4,
			"", s->hi);
		/* 4 KiB-aligned starts when nine in ten are (a page-cache stream) */
		fprintf(o, "%*salign: %u\n", ind + 4, "", s->aligned * 10 >= s->ios * 9 ? 8u : 1u);
		fprintf(o, "%*schunks:\n", ind + 4, "");
		for (uint32_t k = 0; k < s->nkept; k++)
			write_chunk(f, &s->chunks[k], o, ind + 6);
		write_chunk(f, &s->cur, o, ind + 6);
	}
	if (ferror(o))
		return sim_errorf(err, SIM_E_IO, "write failed");
	return 0;
}
