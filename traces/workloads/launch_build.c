/* A launch from a recorded cold start (launch_build.h): the app's read
 * requests of a block trace (blktrace, blkparse text, or any format the
 * readers take that records completions), turned into what each thread
 * did between its I/Os.
 *
 * Per thread, requests queued while one of the thread's earlier requests
 * was still in flight belong to one batch (a read and its readahead, a
 * plugged group, pages faulted together): the thread submitted them, then
 * waited. The CPU time before a batch is the recorded gap between the
 * previous batch's last completion and this batch's first queue event
 * (blktrace Q; D where the trace has no Q), the same think time btt
 * reports as a thread's Q2Q minus its Q2C; inside a batch the gaps
 * between queue events are kept too. A request is replayed exactly as
 * recorded (FETCH: fadvise(WILLNEED) of its range, no readahead window on
 * top, as force_page_cache_readahead in Linux 3.10 mm/readahead.c) and
 * then waited on and copied (WAIT), so a replay without a planner issues
 * the recording's requests and a prefetcher's pages are hits.
 *
 * What a block trace does not hold, and is assumed: the files (reads
 * closer than file_gap_bytes on the disk are one file; the simulated file
 * system places them anew), whose start a thread's first read of a file
 * opens; how threads depend on one another (a thread is spawned by the
 * main thread at the point of the main thread's recorded timeline where
 * its first request came, so a faster main thread starts it earlier);
 * when the launch ends (at its threads' last recorded completion plus
 * their last op). Metadata reads (REQ_META) are left to the simulated
 * file system, which issues its own on open; writes are counted and not
 * replayed.
 *
 * Launch-to-launch variation is a stated assumption (a fraction of reads
 * touching another place of their file, a jitter of every CPU gap), drawn
 * from a per-launch stream, since no bundled recording holds repeated
 * launches of one app (docs/workloads.md).
 */
#include "traces/workloads/launch_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/block/request.h"
#include "traces/trace.h"

#define LB_PAGE 4096ull
#define LB_SECTOR 512ull

static uint64_t page_down(uint64_t b) { return b & ~(LB_PAGE - 1); }
static uint64_t page_up(uint64_t b) { return (b + LB_PAGE - 1) & ~(LB_PAGE - 1); }

/* ------------------------------------------------------------ recording */

int lb_recording_push(struct lb_recording *r, const struct lb_req *q, const char *comm)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct lb_req *v = realloc(r->req, cap * sizeof(*v));
		if (!v)
			return SIM_E_NOMEM;
		r->req = v;
		r->cap = cap;
	}
	r->req[r->n++] = *q;
	for (size_t i = 0; i < r->nth; i++)
		if (r->th[i].tid == q->tid)
			return 0;
	if (r->nth == r->cap_th) {
		size_t cap = r->cap_th ? r->cap_th * 2 : 8;
		struct lb_thread_rec *v = realloc(r->th, cap * sizeof(*v));
		if (!v)
			return SIM_E_NOMEM;
		r->th = v;
		r->cap_th = cap;
	}
	struct lb_thread_rec *t = &r->th[r->nth++];
	t->tid = q->tid;
	snprintf(t->comm, sizeof(t->comm), "%s",
		 comm && comm[0] && strcmp(comm, "(null)") ? comm : "");
	if (!t->comm[0])
		snprintf(t->comm, sizeof(t->comm), "tid-%d", (int)q->tid);
	return 0;
}

void lb_recording_free(struct lb_recording *r)
{
	free(r->req);
	free(r->th);
	memset(r, 0, sizeof(*r));
}

int lb_read_trace(const char *path, const struct trace_fg *sel, struct lb_recording *r,
		  struct sim_error *err)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->src, sizeof(r->src), "%s", path);
	struct trace_opts o;
	memset(&o, 0, sizeof(o));
	o.keep = sel;
	struct trace_reader rd;
	int rc = trace_open_auto(path, &o, &rd, err);
	if (rc)
		return rc;
	size_t *pend = NULL, npend = 0, cappend = 0;
	bool saw_q = false, have_t0 = false;
	int64_t t0 = 0;
	uint64_t completions = 0;
	struct trace_rec rec;
	while ((rc = trace_next(&rd, &rec, err)) > 0) {
		if (rec.kind != TRACE_REC_BLOCK)
			continue;
		if (rec.action == TRACE_A_COMPLETE) {
			uint64_t lo = rec.sector, hi = rec.sector + rec.nr_sectors;
			for (size_t k = 0; k < npend;) {
				struct lb_req *q = &r->req[pend[k]];
				if (q->sector >= lo && q->sector + q->nsect <= hi) {
					q->c_ns = rec.time_ns - t0;
					completions += !q->write;
					pend[k] = pend[--npend];
				} else {
					k++;
				}
			}
			continue;
		}
		bool is_q = rec.action == TRACE_A_QUEUE;
		if (!is_q && !(rec.action == TRACE_A_ISSUE && !saw_q))
			continue;
		saw_q |= is_q;
		if (rec.nr_sectors == 0 ||
		    (rec.dir != TRACE_DIR_READ && rec.dir != TRACE_DIR_WRITE))
			continue;
		if (rec.flags & REQ_META)
			continue;
		if (!have_t0) {
			have_t0 = true;
			t0 = rec.time_ns;
		}
		struct lb_req q = {
			.tid = (rec.tflags & TRACE_T_HAS_TID) ? rec.tid : rec.pid,
			.q_ns = rec.time_ns - t0,
			.c_ns = -1,
			.sector = rec.sector,
			.nsect = rec.nr_sectors,
			.write = rec.dir == TRACE_DIR_WRITE,
		};
		if (q.write) {
			r->writes++;
			continue;
		}
		if (npend == cappend) {
			size_t cap = cappend ? cappend * 2 : 64;
			size_t *v = realloc(pend, cap * sizeof(*v));
			if (!v) {
				rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
				break;
			}
			pend = v;
			cappend = cap;
		}
		if (lb_recording_push(r, &q, rec.comm)) {
			rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
			break;
		}
		pend[npend++] = r->n - 1;
	}
	free(pend);
	trace_close(&rd);
	if (rc < 0)
		return rc;
	if (r->n == 0)
		return sim_errorf(err, SIM_E_INPUT,
				  "%s: no read request of the selected processes (check comm/pid: "
				  "a thread's comm in blktrace is its own name)", path);
	if (completions == 0)
		return sim_errorf(err, SIM_E_INPUT,
				  "%s: none of the app's %zu reads has a completion (C event): "
				  "the CPU time between a thread's I/Os cannot be measured "
				  "(a request list such as DiskSim ASCII has none)", path, r->n);
	r->uncompleted = r->n - completions;
	return 0;
}

/* ----------------------------------------------------------------- plan */

static int op_push(struct lb_tplan *t, const struct lb_op *o)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct lb_op *v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return SIM_E_NOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *o;
	return 0;
}

/* The main thread's ops with the recorded time each ends at, for placing
 * the other threads' spawns. */
struct tl {
	int64_t *end;
	size_t cap;
};

static int tl_set(struct tl *tl, size_t i, int64_t t)
{
	if (i >= tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : 64;
		while (cap <= i)
			cap *= 2;
		int64_t *v = realloc(tl->end, cap * sizeof(*v));
		if (!v)
			return SIM_E_NOMEM;
		tl->end = v;
		tl->cap = cap;
	}
	tl->end[i] = t;
	return 0;
}

static int op_insert(struct lb_tplan *t, struct tl *tl, size_t at, const struct lb_op *o,
		     int64_t end)
{
	if (op_push(t, o) || tl_set(tl, t->n - 1, 0))
		return SIM_E_NOMEM;
	memmove(&t->v[at + 1], &t->v[at], (t->n - 1 - at) * sizeof(*t->v));
	memmove(&tl->end[at + 1], &tl->end[at], (t->n - 1 - at) * sizeof(*tl->end));
	t->v[at] = *o;
	tl->end[at] = end;
	return 0;
}

struct range {
	uint64_t lo, hi;
};

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static uint32_t file_of(const struct lb_plan *p, uint64_t sector)
{
	size_t lo = 0, hi = p->nfiles;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (p->files[mid].sector <= sector)
			lo = mid;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

static int build_files(const struct lb_recording *const *recs, size_t nrec,
		       const struct lb_params *prm, struct lb_plan *p)
{
	size_t n = 0;
	for (size_t k = 0; k < nrec; k++)
		n += recs[k]->n;
	struct range *v = malloc(n * sizeof(*v));
	if (!v)
		return SIM_E_NOMEM;
	n = 0;
	for (size_t k = 0; k < nrec; k++)
		for (size_t i = 0; i < recs[k]->n; i++) {
			const struct lb_req *q = &recs[k]->req[i];
			v[n++] = (struct range){ q->sector, q->sector + q->nsect };
		}
	qsort(v, n, sizeof(*v), range_cmp);
	p->files = calloc(n, sizeof(*p->files));
	if (!p->files) {
		free(v);
		return SIM_E_NOMEM;
	}
	uint64_t gap = prm->file_gap_bytes / LB_SECTOR;
	uint64_t lo = v[0].lo, hi = v[0].hi;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && v[i].lo <= hi + gap) {
			if (v[i].hi > hi)
				hi = v[i].hi;
			continue;
		}
		struct lb_file *f = &p->files[p->nfiles++];
		f->sector = lo;
		f->span_bytes = page_up((hi - lo) * LB_SECTOR);
		f->size_bytes = f->span_bytes + page_up((uint64_t)((double)f->span_bytes * prm->file_extra));
		if (i < n) {
			lo = v[i].lo;
			hi = v[i].hi;
		}
	}
	free(v);
	return 0;
}

/* Where request q lies in its file, moved by the variation with
 * probability prm->variation. */
static void place(const struct lb_plan *p, const struct lb_req *q, const struct lb_params *prm,
		  gsl_rng *var, uint32_t *file, uint64_t *off, uint64_t *len, bool *moved)
{
	uint32_t fi = file_of(p, q->sector);
	const struct lb_file *f = &p->files[fi];
	uint64_t o = page_down((q->sector - f->sector) * LB_SECTOR);
	uint64_t e = page_up((q->sector + q->nsect - f->sector) * LB_SECTOR);
	*file = fi;
	*len = e - o;
	*off = o;
	*moved = false;
	if (var && prm->variation > 0 && gsl_rng_uniform(var) < prm->variation) {
		uint64_t slots = (f->size_bytes - *len) / LB_PAGE + 1;
		*off = slots > 1 ? (uint64_t)gsl_rng_uniform_int(var, (unsigned long)slots) * LB_PAGE : 0;
		*moved = true;
	}
}

/* One thread's batches (see the top of the file); tl, when not NULL,
 * receives the recorded end time of every op. */
static int build_thread(const struct lb_recording *r, const struct lb_params *prm, gsl_rng *var,
			struct lb_plan *p, struct lb_tplan *t, struct tl *tl)
{
	size_t m = 0;
	for (size_t i = 0; i < r->n; i++)
		m += r->req[i].tid == t->tid;
	size_t *ix = malloc((m ? m : 1) * sizeof(*ix));
	struct lb_op *pl = calloc(m ? m : 1, sizeof(*pl));
	bool *opened = calloc(p->nfiles, sizeof(*opened));
	if (!ix || !pl || !opened) {
		free(ix);
		free(pl);
		free(opened);
		return SIM_E_NOMEM;
	}
	m = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->req[i].tid == t->tid)
			ix[m++] = i;
	for (size_t k = 0; k < m; k++) {
		bool moved;
		pl[k].kind = LB_FETCH;
		place(p, &r->req[ix[k]], prm, var, &pl[k].file, &pl[k].off, &pl[k].len, &moved);
		p->moved += moved;
	}
	int rc = 0;
	int64_t prev_end = -1;
	t->first_q_ns = m ? r->req[ix[0]].q_ns : 0;
#define PUSH(o, tend)                                                                        \
	do {                                                                                 \
		if (op_push(t, &(o)) || (tl && tl_set(tl, t->n - 1, (tend)))) {              \
			rc = SIM_E_NOMEM;                                                    \
			goto out;                                                            \
		}                                                                            \
	} while (0)
	for (size_t i = 0; i < m;) {
		const struct lb_req *first = &r->req[ix[i]];
		int64_t bend = first->c_ns >= 0 ? first->c_ns : first->q_ns;
		size_t j = i + 1;
		while (j < m && r->req[ix[j]].q_ns < bend) {
			const struct lb_req *q = &r->req[ix[j]];
			int64_t e = q->c_ns >= 0 ? q->c_ns : q->q_ns;
			if (e > bend)
				bend = e;
			j++;
		}
		t->batches++;
		if (prev_end >= 0 && first->q_ns > prev_end) {
			struct lb_op c = { .kind = LB_CPU, .ns = first->q_ns - prev_end };
			PUSH(c, first->q_ns);
		}
		for (size_t k = i; k < j; k++) {
			const struct lb_req *q = &r->req[ix[k]];
			if (k > i && q->q_ns > r->req[ix[k - 1]].q_ns) {
				struct lb_op c = { .kind = LB_CPU, .ns = q->q_ns - r->req[ix[k - 1]].q_ns };
				PUSH(c, q->q_ns);
			}
			if (!opened[pl[k].file]) {
				opened[pl[k].file] = true;
				struct lb_op o = { .kind = LB_OPEN, .file = pl[k].file };
				PUSH(o, q->q_ns);
			}
			PUSH(pl[k], q->q_ns);
			t->reads++;
			t->read_bytes += pl[k].len;
		}
		for (size_t k = i; k < j; k++) {
			if (r->req[ix[k]].c_ns < 0)
				continue; /* no completion seen: not waited on */
			struct lb_op w = pl[k];
			w.kind = LB_WAIT;
			PUSH(w, bend);
		}
		prev_end = bend;
		if (bend > p->span_ns)
			p->span_ns = bend;
		i = j;
	}
#undef PUSH
out:
	free(ix);
	free(pl);
	free(opened);
	return rc;
}

/* Spawn thread c of the plan from the main thread at the point of the
 * main thread's recorded timeline where c's first request came. */
static int place_spawn(struct lb_plan *p, struct tl *tl, uint32_t c)
{
	struct lb_tplan *mt = &p->th[0];
	int64_t T = p->th[c].first_q_ns;
	size_t k = 0;
	while (k < mt->n && tl->end[k] <= T)
		k++;
	int64_t lead;
	struct lb_op s = { .kind = LB_SPAWN, .arg = c };
	if (k < mt->n && mt->v[k].kind == LB_CPU && tl->end[k] - mt->v[k].ns < T) {
		/* split the main thread's computation at T */
		int64_t start = tl->end[k] - mt->v[k].ns;
		struct lb_op rest = { .kind = LB_CPU, .ns = tl->end[k] - T };
		mt->v[k].ns = T - start;
		int64_t end = tl->end[k];
		tl->end[k] = T;
		if (op_insert(mt, tl, k + 1, &s, T) || op_insert(mt, tl, k + 2, &rest, end))
			return SIM_E_NOMEM;
		lead = 0;
	} else {
		int64_t before = k > 0 ? tl->end[k - 1] : mt->first_q_ns;
		if (op_insert(mt, tl, k, &s, before))
			return SIM_E_NOMEM;
		lead = T > before ? T - before : 0;
	}
	if (lead > 0) {
		struct lb_tplan *ct = &p->th[c];
		struct lb_op o = { .kind = LB_CPU, .ns = lead };
		if (op_push(ct, &o))
			return SIM_E_NOMEM;
		memmove(&ct->v[1], &ct->v[0], (ct->n - 1) * sizeof(*ct->v));
		ct->v[0] = o;
	}
	return 0;
}

int lb_build(const struct lb_recording *r, const struct lb_params *prm, gsl_rng *var,
	     struct lb_plan *p, struct sim_error *err)
{
	return lb_build_set(&r, 1, 0, prm, var, p, err);
}

int lb_build_set(const struct lb_recording *const *recs, size_t nrec, size_t which,
		 const struct lb_params *prm, gsl_rng *var, struct lb_plan *p,
		 struct sim_error *err)
{
	memset(p, 0, sizeof(*p));
	for (size_t k = 0; k < nrec; k++)
		if (recs[k]->n == 0 || recs[k]->nth == 0)
			return sim_errorf(err, SIM_E_INPUT, "%s: the recording has no read request",
					  recs[k]->src);
	if (which >= nrec)
		return sim_errorf(err, SIM_E_INPUT, "launch %zu of %zu recordings", which + 1, nrec);
	const struct lb_recording *r = recs[which];
	size_t main = 0;
	if (prm->main_tid) {
		while (main < r->nth && r->th[main].tid != prm->main_tid)
			main++;
		if (main == r->nth)
			return sim_errorf(err, SIM_E_INPUT,
					  "%s: main thread %d issued no read request of the app",
					  r->src, (int)prm->main_tid);
	}
	int rc = build_files(recs, nrec, prm, p);
	if (rc)
		goto nomem;
	p->th = calloc(r->nth, sizeof(*p->th));
	if (!p->th)
		goto nomem;
	p->nth = r->nth;
	/* th[0] the main thread, then the others in order of first request */
	for (size_t i = 0, k = 1; i < r->nth; i++) {
		struct lb_tplan *t = &p->th[i == main ? 0 : k++];
		t->tid = r->th[i].tid;
		snprintf(t->comm, sizeof(t->comm), "%s", r->th[i].comm);
	}
	struct tl tl = { 0 };
	for (size_t i = 0; i < p->nth; i++) {
		rc = build_thread(r, prm, var, p, &p->th[i], i == 0 ? &tl : NULL);
		if (rc) {
			free(tl.end);
			goto nomem;
		}
	}
	for (uint32_t c = 1; c < p->nth; c++) {
		if (place_spawn(p, &tl, c)) {
			free(tl.end);
			goto nomem;
		}
	}
	free(tl.end);
	if (p->nth > 1) {
		struct lb_op j = { .kind = LB_JOIN };
		if (op_push(&p->th[0], &j))
			goto nomem;
	}
	/* the jitter last, over every thread's CPU ops in order */
	for (size_t i = 0; i < p->nth; i++) {
		struct lb_tplan *t = &p->th[i];
		for (size_t k = 0; k < t->n; k++) {
			if (t->v[k].kind != LB_CPU)
				continue;
			if (var && prm->cpu_jitter > 0) {
				double f = 1.0 + prm->cpu_jitter * (2.0 * gsl_rng_uniform(var) - 1.0);
				t->v[k].ns = (int64_t)((double)t->v[k].ns * f);
			}
			t->cpu_ns += t->v[k].ns;
		}
	}
	return 0;
nomem:
	lb_plan_free(p);
	return sim_errorf(err, SIM_E_NOMEM, "out of memory");
}

void lb_plan_free(struct lb_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nth; i++)
		free(p->th[i].v);
	free(p->th);
	free(p->files);
	memset(p, 0, sizeof(*p));
}
