/* Replaying a fitted model (Tarasov et al., FAST'12: a chunked trace's
 * feature matrices are replayed chunk by chunk): every stream's chunk gives
 * exactly its recorded number of requests between its recorded first and
 * last arrival; the direction, sync flag, size, placement (sequential,
 * re-reference, jump) and inter-arrival gap of each are drawn without
 * replacement from that chunk's counts, so every chunk's marginals are
 * kept and only the order inside a chunk (and the joint of the features
 * beyond direction) is random. Gaps are drawn from their log2 classes and
 * scaled to span the chunk's first-to-last arrival. Streams are merged in
 * time order (a heap), so the replay reads the result like a trace.
 */
#include "traces/workloads/fitgen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "models/block/request.h"
#include "sim/sim.h"
#include "traces/tracefit.h"

/* Requests of one chunk at most: their arrival times are held (8 B each). */
#define FITGEN_CHUNK_MAX (1u << 24)

struct gstream {
	int64_t pid, dev_major, dev_minor, lo, hi, align, uid;
	/* a stream of several pids: each request goes to the pid furthest
	 * behind its share, so every pid gets its recorded count */
	struct tfit_thread threads[TFIT_THREADS];
	uint64_t assigned[TFIT_THREADS];
	uint32_t nthreads;
	uint64_t thread_total, made;
	const char *comm;
	struct tfit_chunk *chunks;
	uint32_t nchunks, k;
	struct tfit_chunk rem;         /* what is left of the current chunk */
	uint32_t jumps_left;
	int64_t *times;
	uint32_t ntimes, ti, tcap;
	uint64_t prev_end[2], prev_end_any;
	/* the last request, whose completion may be due before the next one */
	bool has_last, pending;
	int64_t c_at;                 /* the last request's completion, -1: none */
	struct trace_rec last, pc;    /* pc: the completion due before the next request */
	bool have_prev[2], have_any;
	uint64_t ring[TFIT_RING];
	uint32_t ring_n, ring_pos;
	gsl_rng *rng;
	uint32_t index;
};

struct fitgen {
	int64_t chunk_ns;
	bool has_think;                /* the model has completion times: C records are made */
	struct gstream *s;
	uint32_t ns;
	uint32_t *heap, nheap;         /* streams with requests left, by next arrival */
	char comm_buf[64];
};

static int64_t next_time(const struct gstream *g)
{
	return g->pending ? g->pc.time_ns : g->times[g->ti];
}

static bool heap_less(const struct fitgen *f, uint32_t a, uint32_t b)
{
	int64_t ta = next_time(&f->s[a]), tb = next_time(&f->s[b]);
	return ta < tb || (ta == tb && a < b);
}

static void heap_down(struct fitgen *f, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		if (l < f->nheap && heap_less(f, f->heap[l], f->heap[m]))
			m = l;
		if (l + 1 < f->nheap && heap_less(f, f->heap[l + 1], f->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		uint32_t t = f->heap[i];
		f->heap[i] = f->heap[m];
		f->heap[m] = t;
		i = m;
	}
}

static void heap_up(struct fitgen *f, uint32_t i)
{
	while (i && heap_less(f, f->heap[i], f->heap[(i - 1) / 2])) {
		uint32_t p = (i - 1) / 2, t = f->heap[i];
		f->heap[i] = f->heap[p];
		f->heap[p] = t;
		i = p;
	}
}

/* Index drawn from counts c[0..n) in proportion to them, and taken out. */
static unsigned draw_take(gsl_rng *rng, uint32_t *c, unsigned n)
{
	uint64_t tot = 0;
	for (unsigned i = 0; i < n; i++)
		tot += c[i];
	if (!tot)
		return 0;
	uint64_t x = gsl_rng_uniform_int(rng, tot);
	for (unsigned i = 0; i < n; i++) {
		if (x < c[i]) {
			c[i]--;
			return i;
		}
		x -= c[i];
	}
	return n - 1;
}

static bool bernoulli_take(gsl_rng *rng, uint32_t *yes, uint32_t of)
{
	if (!of || !*yes)
		return false;
	if (gsl_rng_uniform_int(rng, of) < *yes) {
		(*yes)--;
		return true;
	}
	return false;
}

/* A value of log2 class b: 0 for class 0, else uniform in [2^(b-1), 2^b). */
static uint64_t class_value(gsl_rng *rng, unsigned b)
{
	if (!b)
		return 0;
	uint64_t lo = 1ULL << (b - 1);
	return lo + (uint64_t)(gsl_rng_uniform(rng) * (double)lo);
}

/* Start the stream's chunk k: its arrival times. 0 or -1 (memory). */
static int chunk_begin(struct fitgen *f, struct gstream *g)
{
	const struct tfit_chunk *c = &g->chunks[g->k];
	g->rem = *c;
	g->jumps_left = 0;
	for (unsigned b = 0; b < TFIT_JUMP_BUCKETS; b++)
		g->jumps_left += c->jump[b];
	if (c->n > g->tcap) {
		int64_t *t = realloc(g->times, c->n * sizeof(*t));
		if (!t)
			return -1;
		g->times = t;
		g->tcap = c->n;
	}
	int64_t base = (int64_t)c->idx * f->chunk_ns;
	g->times[0] = base + c->first_ns;
	if (c->n > 1) {
		double sum = 0.0;
		uint32_t iat[TFIT_IAT_BUCKETS];
		memcpy(iat, c->iat, sizeof(iat));
		/* gaps in times[1..n) first, as values; then scaled to the span */
		for (uint32_t i = 1; i < c->n; i++) {
			double v = (double)class_value(g->rng, draw_take(g->rng, iat, TFIT_IAT_BUCKETS));
			g->times[i] = (int64_t)v;
			sum += v;
		}
		double span = (double)(c->last_ns - c->first_ns), acc = 0.0;
		for (uint32_t i = 1; i < c->n; i++) {
			acc += sum > 0 ? (double)g->times[i] * span / sum : span / (double)(c->n - 1);
			g->times[i] = base + c->first_ns + (int64_t)(acc + 0.5);
		}
		g->times[c->n - 1] = base + c->last_ns;
	}
	g->ntimes = c->n;
	g->ti = 0;
	return 0;
}

/* Make the request of the stream's next arrival. */
static void make_request(struct fitgen *f, struct gstream *g, struct trace_rec *rec)
{
	struct tfit_chunk *r = &g->rem;
	gsl_rng *rng = g->rng;
	uint32_t left = r->dir[0] + r->dir[1];
	int d = left && gsl_rng_uniform_int(rng, left) >= r->dir[0];
	uint32_t of = r->dir[d];
	bool sync = bernoulli_take(rng, &r->sync[d], of);
	bool seq = bernoulli_take(rng, &r->seq[d], of);
	r->dir[d]--;

	uint32_t cnt[TFIT_SIZES];
	for (uint32_t i = 0; i < r->nsizes[d]; i++)
		cnt[i] = r->sizes[d][i].count;
	uint32_t sectors = 8;
	if (r->nsizes[d]) {
		unsigned i = draw_take(rng, cnt, r->nsizes[d]);
		sectors = r->sizes[d][i].sectors;
		r->sizes[d][i].count = cnt[i];
	}

	uint64_t start;
	if (seq && g->have_prev[d]) {
		start = g->prev_end[d];
	} else {
		uint32_t other = r->reref + g->jumps_left;
		bool reref = !seq && g->ring_n && bernoulli_take(rng, &r->reref, other);
		if (reref) {
			unsigned b = draw_take(rng, r->rdist, TFIT_RDIST_BUCKETS);
			uint64_t lo = 1ULL << b, hi = (2ULL << b) - 1;
			uint64_t k = lo + gsl_rng_uniform_int(rng, hi - lo + 1);
			if (k > g->ring_n)
				k = g->ring_n;
			start = g->ring[(g->ring_pos + TFIT_RING - k) % TFIT_RING];
		} else {
			uint64_t from = g->have_any ? g->prev_end_any : (uint64_t)g->lo;
			uint64_t mag = 0;
			bool back = false;
			if (!seq && g->jumps_left) {
				back = bernoulli_take(rng, &r->back, g->jumps_left);
				mag = class_value(rng, draw_take(rng, r->jump, TFIT_JUMP_BUCKETS));
				g->jumps_left--;
			}
			/* signed: a backward jump past sector 0 wraps below */
			int64_t at = back ? (int64_t)from - (int64_t)mag : (int64_t)(from + mag);
			if (mag && g->align > 1)
				at -= ((at % g->align) + g->align) % g->align;
			start = (uint64_t)at;
		}
	}
	/* a jump past either end of the stream's range wraps round (clamping
	 * would pile requests on the ends: false re-references) */
	uint64_t lo = (uint64_t)g->lo, hi = (uint64_t)g->hi;
	uint64_t room = hi > lo + sectors ? hi - lo - sectors : 0;
	if ((int64_t)start < (int64_t)lo || start - lo > room) {
		uint64_t span = room + 1;
		int64_t rel = (int64_t)start - (int64_t)lo; /* negative below lo */
		int64_t m = rel % (int64_t)span;
		start = lo + (uint64_t)(m < 0 ? m + (int64_t)span : m);
		if (g->align > 1 && start - start % (uint64_t)g->align >= lo)
			start -= start % (uint64_t)g->align;
	}

	g->ring[g->ring_pos] = start;
	g->ring_pos = (g->ring_pos + 1) % TFIT_RING;
	if (g->ring_n < TFIT_RING)
		g->ring_n++;
	g->prev_end[d] = start + sectors;
	g->have_prev[d] = true;
	g->prev_end_any = start + sectors;
	g->have_any = true;

	memset(rec, 0, sizeof(*rec));
	rec->kind = TRACE_REC_BLOCK;
	rec->action = TRACE_A_QUEUE;
	rec->act = 'Q';
	rec->dir = d ? TRACE_DIR_WRITE : TRACE_DIR_READ;
	rec->flags = d ? REQ_WRITE | (sync ? REQ_SYNC : 0) : 0;
	rec->time_ns = next_time(g);
	rec->pid = (int32_t)g->pid;
	if (g->nthreads > 1) {
		uint32_t best = 0;
		double most = -1e300;
		g->made++;
		for (uint32_t i = 0; i < g->nthreads; i++) {
			double behind = (double)g->threads[i].count * (double)g->made /
					(double)g->thread_total - (double)g->assigned[i];
			if (behind > most) {
				most = behind;
				best = i;
			}
		}
		g->assigned[best]++;
		rec->pid = g->threads[best].pid;
	}
	if (g->uid >= 0) {
		rec->uid = (uint32_t)g->uid;
		rec->tflags |= TRACE_T_HAS_UID;
	}
	snprintf(f->comm_buf, sizeof(f->comm_buf), "%s", g->comm);
	rec->comm = f->comm_buf;
	rec->dev_major = (uint32_t)g->dev_major;
	rec->dev_minor = (uint32_t)g->dev_minor;
	rec->sector = start;
	rec->nr_sectors = sectors;
	rec->bytes = sectors << SECTOR_SHIFT;
	g->last = *rec;
	g->last.comm = NULL;
	g->has_last = true;
}

/* The completion of the request just made, where the model has completion
 * times: drawn without replacement from its chunk (requests whose
 * completion the trace did not show get none). Due at its arrival plus the
 * drawn queue-to-complete time. */
static void draw_completion(struct gstream *g)
{
	struct tfit_chunk *r = &g->rem;
	uint32_t nsvc = 0;
	for (unsigned b = 0; b < TFIT_IAT_BUCKETS; b++)
		nsvc += r->svc[b];
	g->c_at = -1;
	/* r->n counts the chunk's requests not yet made, this one included */
	if (!nsvc || !bernoulli_take(g->rng, &nsvc, r->n))
		return;
	g->c_at = g->last.time_ns +
		  (int64_t)class_value(g->rng, draw_take(g->rng, r->svc, TFIT_IAT_BUCKETS));
}

/* Once the stream's next request is known: if the last one completes
 * before it, that completion comes first (the replay's closed loop then
 * waits for the simulated completion plus the think time); one that
 * completes later, or not at all, overlaps the next (no completion: the
 * next follows its issue as recorded). */
static void plan_completion(struct gstream *g)
{
	if (!g->has_last || g->c_at < 0 || g->c_at > g->times[g->ti])
		return;
	g->pc = g->last;
	g->pc.action = TRACE_A_COMPLETE;
	g->pc.act = 'C';
	g->pc.time_ns = g->c_at;
	g->pending = true;
}

static int fitgen_next(void *state, struct trace_rec *rec, struct sim_error *err)
{
	struct fitgen *f = state;
	if (!f->nheap)
		return 0;
	struct gstream *g = &f->s[f->heap[0]];
	if (g->pending) {
		/* a completion due before the stream's next request */
		*rec = g->pc;
		g->pending = false;
		heap_down(f, 0);
		return 1;
	}
	make_request(f, g, rec);
	if (f->has_think) {
		draw_completion(g);
		g->rem.n--;
	}
	bool more = true;
	if (++g->ti == g->ntimes) {
		/* the next chunk with requests, or the stream is done */
		while (++g->k < g->nchunks && !g->chunks[g->k].n)
			;
		if (g->k == g->nchunks) {
			f->heap[0] = f->heap[--f->nheap];
			more = false;
		} else if (chunk_begin(f, g)) {
			return sim_errorf(err, SIM_E_NOMEM, "model: out of memory");
		}
	}
	if (more && f->has_think)
		plan_completion(g);
	if (f->nheap)
		heap_down(f, 0);
	return 1;
}

static void fitgen_close(void *state)
{
	struct fitgen *f = state;
	for (uint32_t i = 0; i < f->ns; i++) {
		free(f->s[i].chunks);
		free(f->s[i].times);
	}
	free(f->s);
	free(f->heap);
	free(f);
}

static const struct trace_reader_ops fitgen_ops = {
	.name = "model",
	.summary = "requests generated from a fitted workload model",
	.next = fitgen_next,
	.close = fitgen_close,
};

/* ---- parsing ---------------------------------------------------------- */

static int int_of(const struct cfg_node *n, int64_t min, int64_t max, int64_t *out,
		  struct sim_error *err)
{
	if (n->kind != CFG_SCALAR || cfg_parse_int(n->value, out, err) || *out < min || *out > max)
		return cfg_errorf(err, n, "expected an integer in [%" PRId64 ", %" PRId64 "]", min, max);
	return 0;
}

/* A {class: count} map into h[0..nb). */
static int hist_of(struct cfg_node *n, uint32_t *h, unsigned nb, uint64_t *sum, struct sim_error *err)
{
	if (n->kind != CFG_MAP)
		return cfg_errorf(err, n, "expected a map {class: count}");
	*sum = 0;
	for (struct cfg_node *c = n->child; c; c = c->next) {
		int64_t b, v;
		if (cfg_parse_int(c->key, &b, err) || b < 0 || b >= (int64_t)nb)
			return cfg_errorf(err, c, "class '%s': expected 0..%u", c->key, nb - 1);
		if (int_of(c, 0, UINT32_MAX, &v, err))
			return SIM_E_INPUT;
		h[b] += (uint32_t)v;
		*sum += (uint64_t)v;
	}
	cfg_mark_used(n, true);
	return 0;
}

static int sizes_of(struct cfg_node *n, struct tfit_chunk *c, int d, uint64_t *sum,
		    struct sim_error *err)
{
	if (n->kind != CFG_MAP)
		return cfg_errorf(err, n, "expected a map {sectors: count}");
	*sum = 0;
	for (struct cfg_node *x = n->child; x; x = x->next) {
		int64_t s, v;
		if (cfg_parse_int(x->key, &s, err) || s < 1 || s > 65536)
			return cfg_errorf(err, x, "size '%s': expected 1..65536 sectors", x->key);
		if (int_of(x, 0, UINT32_MAX, &v, err))
			return SIM_E_INPUT;
		if (c->nsizes[d] == TFIT_SIZES)
			return cfg_errorf(err, x, "more than %u sizes in a chunk", TFIT_SIZES);
		c->sizes[d][c->nsizes[d]++] = (struct tfit_size){ (uint32_t)s, (uint32_t)v };
		*sum += (uint64_t)v;
	}
	cfg_mark_used(n, true);
	return 0;
}

static int chunk_of(struct cfg_node *n, int64_t chunk_ns, struct tfit_chunk *c, struct sim_error *err)
{
	static const char *const ints[] = { "i", "n", "first", "last", "r", "w", "sr", "sw",
					     "qr", "qw", "reref", "back", NULL };
	int64_t v[12];
	uint64_t rs = 0, ws = 0, is = 0, js = 0, ds = 0;
	if (n->kind != CFG_MAP)
		return cfg_errorf(err, n, "expected a chunk map {i: .., n: .., ...}");
	memset(c, 0, sizeof(*c));
	for (int k = 0; ints[k]; k++) {
		struct cfg_node *x = cfg_get(n, ints[k]);
		if (!x)
			return cfg_errorf(err, n, "chunk without '%s'", ints[k]);
		if (int_of(x, 0, k == 2 || k == 3 ? chunk_ns - 1 : UINT32_MAX, &v[k], err))
			return SIM_E_INPUT;
		cfg_mark_used(x, true);
	}
	/* bounds: the chunk's start must be a simulated time (2^62 ns), and
	 * one chunk's arrival times are held at once */
	if (v[0] > (INT64_C(1) << 62) / chunk_ns)
		return cfg_errorf(err, cfg_get(n, "i"), "chunk %" PRId64 " starts beyond 2^62 ns", v[0]);
	if (v[1] > FITGEN_CHUNK_MAX)
		return cfg_errorf(err, cfg_get(n, "n"), "more than %u requests in one chunk",
				  FITGEN_CHUNK_MAX);
	c->idx = (uint32_t)v[0];
	c->n = (uint32_t)v[1];
	c->first_ns = v[2];
	c->last_ns = v[3];
	c->dir[0] = (uint32_t)v[4];
	c->dir[1] = (uint32_t)v[5];
	c->sync[0] = (uint32_t)v[6];
	c->sync[1] = (uint32_t)v[7];
	c->seq[0] = (uint32_t)v[8];
	c->seq[1] = (uint32_t)v[9];
	c->reref = (uint32_t)v[10];
	c->back = (uint32_t)v[11];
	struct cfg_node *x;
	int rc = 0;
	if ((x = cfg_get(n, "rsz")))
		rc = sizes_of(x, c, 0, &rs, err);
	if (!rc && (x = cfg_get(n, "wsz")))
		rc = sizes_of(x, c, 1, &ws, err);
	if (!rc && (x = cfg_get(n, "iat")))
		rc = hist_of(x, c->iat, TFIT_IAT_BUCKETS, &is, err);
	if (!rc && (x = cfg_get(n, "jump")))
		rc = hist_of(x, c->jump, TFIT_JUMP_BUCKETS, &js, err);
	if (!rc && (x = cfg_get(n, "rdist")))
		rc = hist_of(x, c->rdist, TFIT_RDIST_BUCKETS, &ds, err);
	uint64_t ts = 0;
	if (!rc && (x = cfg_get(n, "svc")))
		rc = hist_of(x, c->svc, TFIT_IAT_BUCKETS, &ts, err);
	if (rc)
		return rc;
	if (ts > c->n)
		return cfg_errorf(err, n, "svc counts %" PRIu64 " completions, more than n (%u)", ts,
				  c->n);
	/* the counts of one chunk must describe the same requests */
	if (c->dir[0] + (uint64_t)c->dir[1] != c->n)
		return cfg_errorf(err, n, "r + w (%u + %u) is not n (%u)", c->dir[0], c->dir[1], c->n);
	if (rs != c->dir[0] || ws != c->dir[1])
		return cfg_errorf(err, n, "the sizes count %" PRIu64 " reads and %" PRIu64
			       " writes, not r = %u and w = %u", rs, ws, c->dir[0], c->dir[1]);
	if (c->sync[0] > c->dir[0] || c->sync[1] > c->dir[1] || c->seq[0] > c->dir[0] ||
	    c->seq[1] > c->dir[1])
		return cfg_errorf(err, n, "more sync or sequential requests (sr, sw, qr, qw) than r or w");
	if (c->n && is != c->n - 1)
		return cfg_errorf(err, n, "iat counts %" PRIu64 " gaps, not n - 1 = %u", is, c->n - 1);
	if (ds != c->reref || c->back > js ||
	    (uint64_t)c->seq[0] + c->seq[1] + c->reref + js != c->n)
		return cfg_errorf(err, n, "qr + qw + reref + the jumps (%" PRIu64 ") is not n (%u), or "
			       "rdist does not count reref, or back exceeds the jumps",
			       (uint64_t)c->seq[0] + c->seq[1] + c->reref + js, c->n);
	if (c->first_ns > c->last_ns)
		return cfg_errorf(err, n, "first (%" PRId64 ") after last (%" PRId64 ")", c->first_ns,
				  c->last_ns);
	return 0;
}

struct stream_p {
	int64_t pid, dev_major, dev_minor, lo, hi, align, uid;
	const char *comm;
};

static const struct cfg_param stream_params[] = {
	{ "pid", CFG_T_INT, offsetof(struct stream_p, pid), "", NULL, 0, 4194304, "the trace",
	  "process id of the stream", NULL },
	{ "comm", CFG_T_STRING, offsetof(struct stream_p, comm), "", "-", CFG_NO_RANGE, "the trace",
	  "process name", NULL },
	{ "dev_major", CFG_T_INT, offsetof(struct stream_p, dev_major), "", "8", 0, 4095,
	  "the trace", "device major", NULL },
	{ "dev_minor", CFG_T_INT, offsetof(struct stream_p, dev_minor), "", "0", 0, 1048575,
	  "the trace", "device minor", NULL },
	{ "lba_lo", CFG_T_INT, offsetof(struct stream_p, lo), "sectors", NULL, 0, 4e18, "the trace",
	  "lowest sector the stream touched", NULL },
	{ "lba_hi", CFG_T_INT, offsetof(struct stream_p, hi), "sectors", NULL, 1, 4e18, "the trace",
	  "one past the highest sector it touched", NULL },
	{ "align", CFG_T_INT, offsetof(struct stream_p, align), "sectors", "1", 1, 4096, "the trace",
	  "jumps land on multiples of this (8: the stream's starts were 4 KiB-aligned)", NULL },
	{ "uid", CFG_T_INT, offsetof(struct stream_p, uid), "", "-1", -1, 4294967295.0, "the trace",
	  "the stream's uid where the recording gave one (-1: none)", NULL },
	CFG_PARAM_END,
};

struct model_p {
	int64_t chunk_ns;
};

static const struct cfg_param model_params[] = {
	{ "chunk", CFG_T_TIME, offsetof(struct model_p, chunk_ns), "s", NULL, 1e-6, 1e6,
	  "Tarasov et al., FAST'12: the trace is modelled chunk by chunk of time",
	  "length of a chunk", NULL },
	CFG_PARAM_END,
};

bool fitgen_has_completions(const struct trace_reader *r)
{
	return r->ops == &fitgen_ops && ((const struct fitgen *)r->state)->has_think;
}

int fitgen_open(struct sim *sim, struct cfg_node *model, struct trace_reader *r,
		struct sim_error *err)
{
	if (model->kind != CFG_MAP)
		return cfg_errorf(err, model, "expected a model map (chunk, streams)");
	struct model_p mp;
	int rc = cfg_apply(model_params, model, &mp, err);
	if (rc)
		return rc;
	struct cfg_node *streams = cfg_get(model, "streams");
	if (!streams || streams->kind != CFG_SEQ)
		return cfg_errorf(err, streams ? streams : model, "expected streams: a list of streams");
	cfg_mark_used(streams, false);
	struct fitgen *f = calloc(1, sizeof(*f));
	if (!f)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	f->chunk_ns = mp.chunk_ns;
	uint32_t n = 0;
	for (struct cfg_node *c = streams->child; c; c = c->next)
		n++;
	f->s = calloc(n ? n : 1, sizeof(*f->s));
	f->heap = calloc(n ? n : 1, sizeof(*f->heap));
	if (!f->s || !f->heap) {
		fitgen_close(f);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	char base[512], name[600];
	cfg_node_path(model, base, sizeof(base));
	for (struct cfg_node *c = streams->child; c; c = c->next) {
		struct gstream *g = &f->s[f->ns];
		struct stream_p sp;
		g->index = f->ns++;
		if (c->kind != CFG_MAP) {
			rc = cfg_errorf(err, c, "expected a stream map (pid, comm, lba_lo, lba_hi, chunks)");
			goto fail;
		}
		cfg_mark_used(c, false);
		rc = cfg_apply(stream_params, c, &sp, err);
		if (rc)
			goto fail;
		if (sp.hi <= sp.lo) {
			rc = cfg_errorf(err, c, "lba_hi (%" PRId64 ") must be above lba_lo (%" PRId64 ")",
					sp.hi, sp.lo);
			goto fail;
		}
		g->pid = sp.pid;
		g->comm = sp.comm;
		g->dev_major = sp.dev_major;
		g->dev_minor = sp.dev_minor;
		g->lo = sp.lo;
		g->hi = sp.hi;
		g->align = sp.align;
		g->uid = sp.uid;
		struct cfg_node *tn = cfg_get(c, "threads");
		if (tn) {
			if (tn->kind != CFG_MAP) {
				rc = cfg_errorf(err, tn, "expected a map {pid: requests}");
				goto fail;
			}
			for (struct cfg_node *x = tn->child; x; x = x->next) {
				int64_t tp, tc;
				if (cfg_parse_int(x->key, &tp, err) || tp < 0 || tp > 4194304) {
					rc = cfg_errorf(err, x, "pid '%s': expected 0..4194304", x->key);
					goto fail;
				}
				if (int_of(x, 1, INT64_MAX, &tc, err)) {
					rc = SIM_E_INPUT;
					goto fail;
				}
				if (g->nthreads == TFIT_THREADS) {
					rc = cfg_errorf(err, x, "more than %u threads", TFIT_THREADS);
					goto fail;
				}
				g->threads[g->nthreads++] = (struct tfit_thread){ (int32_t)tp, (uint64_t)tc };
				g->thread_total += (uint64_t)tc;
			}
			cfg_mark_used(tn, true);
		}
		struct cfg_node *ch = cfg_get(c, "chunks");
		if (!ch || ch->kind != CFG_SEQ) {
			rc = cfg_errorf(err, ch ? ch : c, "expected chunks: a list of chunk maps");
			goto fail;
		}
		cfg_mark_used(ch, false);
		uint32_t m = 0;
		for (struct cfg_node *x = ch->child; x; x = x->next)
			m++;
		g->chunks = calloc(m ? m : 1, sizeof(*g->chunks));
		if (!g->chunks) {
			rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
			goto fail;
		}
		for (struct cfg_node *x = ch->child; x; x = x->next) {
			struct tfit_chunk *k = &g->chunks[g->nchunks];
			cfg_mark_used(x, false);
			rc = chunk_of(x, f->chunk_ns, k, err);
			if (rc)
				goto fail;
			if (g->nchunks && k->idx <= g->chunks[g->nchunks - 1].idx) {
				rc = cfg_errorf(err, x, "chunk i = %u does not follow i = %u", k->idx,
						g->chunks[g->nchunks - 1].idx);
				goto fail;
			}
			for (unsigned b = 0; b < TFIT_IAT_BUCKETS && !f->has_think; b++)
				f->has_think = k->svc[b] != 0;
			g->nchunks++;
		}
		snprintf(name, sizeof(name), "%s.s%u", base, g->index);
		g->rng = sim_rng(sim, name);
		while (g->k < g->nchunks && !g->chunks[g->k].n)
			g->k++;
		if (g->k == g->nchunks)
			continue;
		if (chunk_begin(f, g)) {
			rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
			goto fail;
		}
		f->heap[f->nheap] = g->index;
		heap_up(f, f->nheap++);
	}
	memset(r, 0, sizeof(*r));
	r->ops = &fitgen_ops;
	r->state = f;
	r->diag.min_ns = INT64_MAX;
	return 0;
fail:
	fitgen_close(f);
	return rc;
}
