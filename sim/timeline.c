/* Streaming timeline of a run (see timeline.h): the track, merge, clip and
 * counter-rate rules, and the default sink, the Chrome/Perfetto
 * trace-event JSON format. Times are written in microseconds with three
 * decimals, the unit the format prescribes, so nanosecond times survive
 * exactly. */
#include "sim/timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A serial track holds back its latest slice, so that back-to-back
 * slices of one state (a CPU burst cut into per-page costs, say) are
 * written as one. */
struct tl_pending {
	bool on;
	char cat[16], name[48], arg_name[16];
	const char *cls;
	int64_t start, end, ns, arg;
	uint64_t n;
};

struct tl_track {
	int64_t pid, tid;
	int64_t last_end; /* serial tracks: end of the last slice accepted */
	bool named;
	struct tl_pending p;
	struct tl_track *next;
};

struct tl_counter {
	int64_t pid;
	char *name;
	int64_t last_t;    /* time of the last sample written; INT64_MIN: none */
	bool held;         /* a newer sample waits for min_interval */
	int64_t held_t;
	double held_v;
	struct tl_counter *next;
};

#define TL_BUCKETS 256u

struct sim_timeline {
	FILE *f; /* the JSON sink's file */
	bool first;
	const struct sim_timeline_sink *sink;
	void *ctx;
	uint64_t events, clipped;
	struct tl_track *tracks[TL_BUCKETS];
	struct tl_counter *counters;
	bool named_pid[4];
};

static unsigned tl_hash(int64_t pid, int64_t tid)
{
	uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15ull ^ (uint64_t)tid * 0xc2b2ae3d27d4eb4full;
	return (unsigned)(h >> 56) % TL_BUCKETS;
}

static struct tl_track *tl_track_get(struct sim_timeline *tl, int64_t pid, int64_t tid)
{
	unsigned b = tl_hash(pid, tid);
	for (struct tl_track *t = tl->tracks[b]; t; t = t->next)
		if (t->pid == pid && t->tid == tid)
			return t;
	struct tl_track *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->last_end = INT64_MIN;
	t->next = tl->tracks[b];
	tl->tracks[b] = t;
	return t;
}

/* JSON string with the escapes RFC 8259 requires; other bytes pass. */
static void tl_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void tl_us(FILE *f, int64_t ns)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	fprintf(f, "%s%" PRIu64 ".%03" PRIu64, sign, a / 1000, a % 1000);
}

static void tl_begin(struct sim_timeline *tl)
{
	fputs(tl->first ? "\n" : ",\n", tl->f);
	tl->first = false;
}

/* ---- the JSON sink ---------------------------------------------------------- */

static void tlj_meta(struct sim_timeline *tl, const char *what, int64_t pid, const int64_t *tid,
		     const char *name)
{
	tl_begin(tl);
	fprintf(tl->f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRId64, what, pid);
	if (tid)
		fprintf(tl->f, ",\"tid\":%" PRId64, *tid);
	fputs(",\"args\":{\"name\":", tl->f);
	tl_str(tl->f, name);
	fputs("}}", tl->f);
}

static void tlj_process(void *ctx, int64_t pid, const char *name)
{
	tlj_meta(ctx, "process_name", pid, NULL, name);
}

static void tlj_thread(void *ctx, int64_t pid, int64_t tid, const char *name)
{
	tlj_meta(ctx, "thread_name", pid, &tid, name);
}

static void tlj_slice(void *ctx, const struct sim_timeline_slice_rec *r)
{
	struct sim_timeline *tl = ctx;
	tl_begin(tl);
	FILE *f = tl->f;
	fputs("{\"ph\":\"X\",\"name\":", f);
	tl_str(f, r->name);
	fputs(",\"cat\":", f);
	tl_str(f, r->cat);
	fputs(",\"ts\":", f);
	tl_us(f, r->start_ns);
	fputs(",\"dur\":", f);
	tl_us(f, r->end_ns - r->start_ns);
	fprintf(f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"args\":{\"ns\":%" PRId64, r->pid,
		r->tid, r->ns);
	if (r->n > 1)
		fprintf(f, ",\"n\":%" PRIu64, r->n);
	if (r->cls)
		fprintf(f, ",\"class\":\"%s\"", r->cls);
	if (r->arg_name && *r->arg_name) {
		fputc(',', f);
		tl_str(f, r->arg_name);
		fprintf(f, ":%" PRId64, r->arg);
	}
	fputs("}}", f);
}

static void tlj_counter(void *ctx, int64_t pid, const char *name, int64_t t_ns, double v)
{
	struct sim_timeline *tl = ctx;
	tl_begin(tl);
	fputs("{\"ph\":\"C\",\"name\":", tl->f);
	tl_str(tl->f, name);
	fputs(",\"ts\":", tl->f);
	tl_us(tl->f, t_ns);
	fprintf(tl->f, ",\"pid\":%" PRId64 ",\"args\":{\"value\":%.17g}}", pid, v);
}

static int tlj_finish(void *ctx, int64_t end_ns, uint64_t clipped)
{
	struct sim_timeline *tl = ctx;
	fprintf(tl->f,
		"\n],\"otherData\":{\"producer\":\"mobisim\",\"end_ns\":%" PRId64
		",\"clipped_slices\":%" PRIu64 "}}\n",
		end_ns, clipped);
	int rc = ferror(tl->f) ? -1 : 0;
	if (rc && !errno)
		errno = EIO;
	return rc;
}

static const struct sim_timeline_sink tl_json_sink = {
	.process = tlj_process,
	.thread = tlj_thread,
	.slice = tlj_slice,
	.counter = tlj_counter,
	.finish = tlj_finish,
};

/* ---- tracks, merging and counters ------------------------------------------- */

struct sim_timeline *sim_timeline_new_sink(const struct sim_timeline_sink *sink, void *ctx)
{
	struct sim_timeline *tl = calloc(1, sizeof(*tl));
	if (!tl)
		return NULL;
	tl->sink = sink;
	tl->ctx = ctx;
	return tl;
}

struct sim_timeline *sim_timeline_new(FILE *f)
{
	struct sim_timeline *tl = sim_timeline_new_sink(&tl_json_sink, NULL);
	if (!tl)
		return NULL;
	tl->ctx = tl;
	tl->f = f;
	tl->first = true;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
	return tl;
}

static void tl_meta(struct sim_timeline *tl, int64_t pid, const int64_t *tid, const char *name)
{
	tl->events++;
	if (tid)
		tl->sink->thread(tl->ctx, pid, *tid, name);
	else
		tl->sink->process(tl->ctx, pid, name);
}

static void tl_name_builtin(struct sim_timeline *tl, int64_t pid)
{
	static const char *const names[] = { "device", "memory", "kernel threads" };
	int64_t i = pid - TIMELINE_PID_DEVICE;
	if (i < 0 || i > 2 || tl->named_pid[i])
		return;
	tl->named_pid[i] = true;
	tl_meta(tl, pid, NULL, names[i]);
}

void sim_timeline_track(struct sim_timeline *tl, int64_t pid, int64_t tid, const char *process,
			const char *thread)
{
	struct tl_track *t = tl_track_get(tl, pid, tid);
	if (!t || t->named)
		return;
	t->named = true;
	tl_name_builtin(tl, pid);
	if (process)
		tl_meta(tl, pid, NULL, process);
	if (thread)
		tl_meta(tl, pid, &tid, thread);
}

static void tl_write_slice(struct sim_timeline *tl, int64_t pid, int64_t tid, bool serial,
			   const char *cat, const char *name, int64_t shown, int64_t end, int64_t ns,
			   uint64_t n, const char *cls, const char *arg_name, int64_t arg)
{
	tl->events++;
	struct sim_timeline_slice_rec r = {
		.pid = pid, .tid = tid, .serial = serial, .cat = cat, .name = name,
		.start_ns = shown, .end_ns = end, .ns = ns, .n = n, .cls = cls,
		.arg_name = arg_name, .arg = arg,
	};
	tl->sink->slice(tl->ctx, &r);
}

static void tl_flush_pending(struct sim_timeline *tl, struct tl_track *t)
{
	struct tl_pending *p = &t->p;
	if (!p->on)
		return;
	tl_write_slice(tl, t->pid, t->tid, true, p->cat, p->name, p->start, p->end, p->ns, p->n, p->cls,
		       p->arg_name, p->arg);
	p->on = false;
}

static void tl_copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

void sim_timeline_slice(struct sim_timeline *tl, int64_t pid, int64_t tid, const char *cat,
			const char *name, int64_t start_ns, int64_t dur_ns, bool serial,
			const char *cls, const char *arg_name, int64_t arg)
{
	if (dur_ns < 0)
		return;
	struct tl_track *t = tl_track_get(tl, pid, tid);
	int64_t shown = start_ns, end = start_ns + dur_ns;
	if (!t || !serial) {
		tl_write_slice(tl, pid, tid, serial, cat, name, shown, end, dur_ns, 1, cls, arg_name,
			       arg);
		return;
	}
	if (shown < t->last_end) {
		tl->clipped++;
		shown = t->last_end;
	}
	if (end <= shown && dur_ns > 0)
		return; /* wholly inside what the track already shows */
	t->last_end = end;
	struct tl_pending *p = &t->p;
	if (p->on && p->end == shown && p->cls == cls && !arg_name && !p->arg_name[0] &&
	    strcmp(p->name, name) == 0 && strcmp(p->cat, cat) == 0) {
		p->end = end;
		p->ns += dur_ns;
		p->n++;
		return;
	}
	tl_flush_pending(tl, t);
	p->on = true;
	tl_copy(p->cat, sizeof(p->cat), cat);
	tl_copy(p->name, sizeof(p->name), name);
	tl_copy(p->arg_name, sizeof(p->arg_name), arg_name);
	p->cls = cls;
	p->start = shown;
	p->end = end;
	p->ns = dur_ns;
	p->arg = arg;
	p->n = 1;
}

static void tl_counter_write(struct sim_timeline *tl, const struct tl_counter *c, int64_t t,
			     double v)
{
	tl->events++;
	tl->sink->counter(tl->ctx, c->pid, c->name, t, v);
}

void sim_timeline_counter(struct sim_timeline *tl, int64_t pid, const char *name, int64_t t_ns,
			  double value, int64_t min_interval_ns)
{
	struct tl_counter *c;
	for (c = tl->counters; c; c = c->next)
		if (c->pid == pid && strcmp(c->name, name) == 0)
			break;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return;
		c->name = strdup(name);
		if (!c->name) {
			free(c);
			return;
		}
		c->pid = pid;
		c->last_t = INT64_MIN;
		c->next = tl->counters;
		tl->counters = c;
		tl_name_builtin(tl, pid);
	}
	if (c->last_t != INT64_MIN && t_ns - c->last_t < min_interval_ns) {
		c->held = true;
		c->held_t = t_ns;
		c->held_v = value;
		return;
	}
	c->held = false;
	tl_counter_write(tl, c, t_ns, value);
	c->last_t = t_ns;
}

uint64_t sim_timeline_events(const struct sim_timeline *tl)
{
	return tl->events;
}

uint64_t sim_timeline_clipped(const struct sim_timeline *tl)
{
	return tl->clipped;
}

void sim_timeline_free(struct sim_timeline *tl)
{
	if (!tl)
		return;
	for (unsigned b = 0; b < TL_BUCKETS; b++)
		while (tl->tracks[b]) {
			struct tl_track *t = tl->tracks[b];
			tl->tracks[b] = t->next;
			free(t);
		}
	while (tl->counters) {
		struct tl_counter *c = tl->counters;
		tl->counters = c->next;
		free(c->name);
		free(c);
	}
	if (tl->sink->free)
		tl->sink->free(tl->ctx);
	free(tl);
}

int sim_timeline_finish(struct sim_timeline *tl, int64_t end_ns)
{
	for (unsigned b = 0; b < TL_BUCKETS; b++)
		for (struct tl_track *t = tl->tracks[b]; t; t = t->next)
			tl_flush_pending(tl, t);
	for (struct tl_counter *c = tl->counters; c; c = c->next)
		if (c->held)
			tl_counter_write(tl, c, c->held_t, c->held_v);
	int rc = tl->sink->finish(tl->ctx, end_ns, tl->clipped);
	sim_timeline_free(tl);
	return rc;
}
