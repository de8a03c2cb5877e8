/* Perfetto protobuf timeline sink (see timeline_proto.h). Field numbers are
 * those of perfetto's protos/perfetto/trace (google/perfetto at ec5d16b):
 *
 *   trace.proto          Trace: packet 1 (each packet framed as field 1,
 *                        length-delimited, so the file is a Trace).
 *   trace_packet.proto   TracePacket: timestamp 8 (ns, the default clock),
 *                        trusted_packet_sequence_id 10, track_event 11,
 *                        interned_data 12, sequence_flags 13
 *                        (SEQ_INCREMENTAL_STATE_CLEARED 1,
 *                        SEQ_NEEDS_INCREMENTAL_STATE 2), track_descriptor 60.
 *   track_event/track_descriptor.proto  TrackDescriptor: uuid 1, name 2,
 *                        parent_uuid 5, counter 8 (CounterDescriptor, empty).
 *   track_event/track_event.proto  TrackEvent: category_iids 3,
 *                        debug_annotations 4, type 9 (TYPE_SLICE_BEGIN 1,
 *                        TYPE_SLICE_END 2, TYPE_COUNTER 4), name_iid 10,
 *                        track_uuid 11, double_counter_value 44;
 *                        EventCategory / EventName: iid 1, name 2.
 *   track_event/debug_annotation.proto  DebugAnnotation: name_iid 1,
 *                        int_value 4, string_value 6; DebugAnnotationName:
 *                        iid 1, name 2.
 *   interned_data/interned_data.proto  InternedData: event_categories 1,
 *                        event_names 2, debug_annotation_names 3.
 *
 * One packet sequence (id 1); its first packet clears the incremental state
 * and every packet that uses interned names says it needs it. A name is
 * interned in the packet that first uses it. Tracks: a root track per
 * process (the JSON's pid), a child per thread (pid, tid) and per counter
 * (pid, name); uuids are handed out in order of first use, so the same run
 * gives the same bytes. A JSON complete slice becomes a SLICE_BEGIN at its
 * shown start and a SLICE_END at its end, with the JSON's args (n, class,
 * the extra argument) as debug annotations; ns, the full length, only where
 * it is not the slice's (a clipped slice), which is most of them and a
 * tenth of the file.
 *
 * trace_processor sorts packets by timestamp, equal timestamps in file
 * order (src/trace_processor/sorter/trace_sorter.h, TimestampedEvent), and
 * an END closes the track's innermost open slice. A serial track's slices
 * come in time order, so writing each at once is right. Nested slices
 * (regions) come as they end, inner first: an outer one that starts with
 * its first child would be opened after it and closed in its place. So a
 * nesting track's slices are held (at most TLP_HELD_MAX per track) and
 * written at the end in start order, outer first, each END before the next
 * BEGIN it does not enclose. Memory holds the tracks, the distinct names
 * and those held slices, never the run's other events. */
#include "sim/cli/timeline_proto.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/timeline.h"
#include "traces/protowire.h"

enum {
	PK_TIMESTAMP = 8,
	PK_SEQ_ID = 10,
	PK_TRACK_EVENT = 11,
	PK_INTERNED = 12,
	PK_SEQ_FLAGS = 13,
	PK_TRACK_DESC = 60,
	SEQ_CLEARED = 1,
	SEQ_NEEDS = 2,
	TD_UUID = 1,
	TD_NAME = 2,
	TD_PARENT = 5,
	TD_COUNTER = 8,
	TE_CATEGORY_IIDS = 3,
	TE_ANNOTATIONS = 4,
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	TE_DOUBLE_VALUE = 44,
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_COUNTER = 4,
	DA_NAME_IID = 1,
	DA_INT = 4,
	DA_STRING = 6,
	ID_CATEGORIES = 1,
	ID_NAMES = 2,
	ID_ANNOTATION_NAMES = 3,
	SEQUENCE_ID = 1,
};

enum tlp_kind { TK_PROCESS, TK_THREAD, TK_COUNTER };

/* Interned strings of one InternedData table; iids start at 1. */
struct tlp_str {
	uint8_t table;
	bool sent; /* its InternedData entry is in the file */
	char *s;
	uint64_t iid;
	struct tlp_str *next;
};

/* A nested slice held back until the end (see the top of the file). */
struct tlp_held {
	int64_t start, end, ns, arg;
	uint64_t n, order;
	struct tlp_str *cat, *name, *arg_name;
	const char *cls;
};

/* More than any run's regions per task; beyond it the held slices are
 * written early, and one that starts with a later outer one may show in
 * its place. */
#define TLP_HELD_MAX 4096u

struct tlp_track {
	enum tlp_kind kind;
	int64_t pid, tid;
	char *name;     /* the counter's key, or the name described; NULL: none yet */
	uint64_t uuid, parent; /* parent: the process track's uuid, 0 for one */
	struct tlp_held *held;
	size_t nheld, capheld;
	struct tlp_track *next;
	bool held_listed;
	struct tlp_track *next_held; /* tracks that held slices, in first-use order */
};

#define TLP_BUCKETS 1024u

struct tlp {
	FILE *f;
	bool started;
	uint64_t next_uuid, next_iid[4];
	struct tlp_track *tracks[TLP_BUCKETS];
	struct tlp_track *held_first, **held_last;
	struct tlp_str *strs[TLP_BUCKETS];
	/* reused for every packet: the packet, its event, its interned data,
	 * one annotation, one interned entry */
	struct pw_buf pkt, ev, in, sub, ent;
	bool oom;
};

static unsigned tlp_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	h *= 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 40) % TLP_BUCKETS;
}

/* Frame the packet being built as Trace.packet and write it. */
static void tlp_emit(struct tlp *p)
{
	if (p->pkt.oom) {
		p->oom = true;
		return;
	}
	uint8_t hdr[11]; /* a key byte and a varint of at most 10: h never grows */
	struct pw_buf h = { .p = hdr, .cap = sizeof(hdr) };
	pw_put_key(&h, 1, PW_LEN);
	pw_put_varint(&h, p->pkt.len);
	fwrite(hdr, 1, h.len, p->f);
	fwrite(p->pkt.p, 1, p->pkt.len, p->f);
}

/* Start a packet on the sequence; interned: it uses interned names, the
 * sequence's incremental state (a BEGIN; ENDs, counters and descriptors
 * name only track uuids, which are not incremental state). */
static void tlp_packet(struct tlp *p, bool interned)
{
	pw_buf_clear(&p->pkt);
	pw_buf_clear(&p->ev);
	pw_buf_clear(&p->in);
	pw_put_uint(&p->pkt, PK_SEQ_ID, SEQUENCE_ID);
	uint64_t flags = (p->started ? 0 : SEQ_CLEARED) | (interned ? SEQ_NEEDS : 0);
	if (flags)
		pw_put_uint(&p->pkt, PK_SEQ_FLAGS, flags);
	p->started = true;
}

static struct tlp_str *tlp_str(struct tlp *p, uint8_t table, const char *s)
{
	s = s ? s : "";
	unsigned b = tlp_hash(table, s);
	for (struct tlp_str *e = p->strs[b]; e; e = e->next)
		if (e->table == table && strcmp(e->s, s) == 0)
			return e;
	struct tlp_str *e = calloc(1, sizeof(*e));
	if (!e || !(e->s = strdup(s))) {
		free(e);
		p->oom = true;
		return NULL;
	}
	e->table = table;
	e->iid = ++p->next_iid[table];
	e->next = p->strs[b];
	p->strs[b] = e;
	return e;
}

/* The iid of e in the packet being built, its InternedData entry added
 * there the first time. */
static uint64_t tlp_use(struct tlp *p, struct tlp_str *e)
{
	if (!e)
		return 0;
	if (!e->sent) {
		/* EventCategory, EventName and DebugAnnotationName are all {iid 1, name 2} */
		pw_buf_clear(&p->ent);
		pw_put_uint(&p->ent, 1, e->iid);
		pw_put_str(&p->ent, 2, e->s);
		pw_put_msg(&p->in, e->table, &p->ent);
		e->sent = true;
	}
	return e->iid;
}

static uint64_t tlp_intern(struct tlp *p, uint8_t table, const char *s)
{
	return tlp_use(p, tlp_str(p, table, s));
}

static void tlp_describe(struct tlp *p, const struct tlp_track *t)
{
	tlp_packet(p, false);
	struct pw_buf *d = &p->ev;
	pw_put_uint(d, TD_UUID, t->uuid);
	if (t->name)
		pw_put_str(d, TD_NAME, t->name);
	if (t->parent)
		pw_put_uint(d, TD_PARENT, t->parent);
	if (t->kind == TK_COUNTER)
		pw_put_bytes(d, TD_COUNTER, NULL, 0);
	pw_put_msg(&p->pkt, PK_TRACK_DESC, d);
	tlp_emit(p);
}

/* The track (kind, pid, tid; a counter's also by its name), described on
 * first use, with name (NULL: none yet; a counter's is its key). */
static struct tlp_track *tlp_track(struct tlp *p, enum tlp_kind kind, int64_t pid, int64_t tid,
				   const char *name)
{
	const char *key = kind == TK_COUNTER ? name : NULL;
	unsigned b = tlp_hash((uint64_t)kind * 0x51ed27ull ^ (uint64_t)pid * 0x9e3779b97f4a7c15ull ^
				      (uint64_t)tid,
			      key);
	for (struct tlp_track *t = p->tracks[b]; t; t = t->next)
		if (t->kind == kind && t->pid == pid && t->tid == tid &&
		    (!key || strcmp(t->name, key) == 0))
			return t;
	struct tlp_track *parent = NULL;
	if (kind != TK_PROCESS && !(parent = tlp_track(p, TK_PROCESS, pid, 0, NULL)))
		return NULL;
	struct tlp_track *t = calloc(1, sizeof(*t));
	if (!t || (name && !(t->name = strdup(name)))) {
		free(t);
		p->oom = true;
		return NULL;
	}
	t->kind = kind;
	t->pid = pid;
	t->tid = tid;
	t->uuid = ++p->next_uuid;
	t->parent = parent ? parent->uuid : 0;
	t->next = p->tracks[b];
	p->tracks[b] = t;
	tlp_describe(p, t);
	return t;
}

/* A (re)named process or thread track: described again when the name
 * changes, as the JSON's metadata event would rename it. */
static void tlp_name(struct tlp *p, enum tlp_kind kind, int64_t pid, int64_t tid,
		     const char *name)
{
	struct tlp_track *t = tlp_track(p, kind, pid, tid, name);
	if (!t || (t->name && strcmp(t->name, name) == 0))
		return;
	char *n = strdup(name);
	if (!n) {
		p->oom = true;
		return;
	}
	free(t->name);
	t->name = n;
	tlp_describe(p, t);
}

static void tlp_process(void *ctx, int64_t pid, const char *name)
{
	tlp_name(ctx, TK_PROCESS, pid, 0, name);
}

static void tlp_thread(void *ctx, int64_t pid, int64_t tid, const char *name)
{
	tlp_name(ctx, TK_THREAD, pid, tid, name);
}

static void tlp_annotation_int(struct tlp *p, struct tlp_str *name, int64_t v)
{
	pw_buf_clear(&p->sub);
	pw_put_uint(&p->sub, DA_NAME_IID, tlp_use(p, name));
	pw_put_uint(&p->sub, DA_INT, (uint64_t)v);
	pw_put_msg(&p->ev, TE_ANNOTATIONS, &p->sub);
}

static uint64_t tlp_ts(int64_t ns)
{
	return ns > 0 ? (uint64_t)ns : 0; /* the run's clock starts at 0 */
}

static void tlp_begin_end(struct tlp *p, const struct tlp_track *t, const struct tlp_held *h,
			  bool begin)
{
	tlp_packet(p, begin);
	pw_put_uint(&p->pkt, PK_TIMESTAMP, tlp_ts(begin ? h->start : h->end));
	pw_put_uint(&p->ev, TE_TYPE, begin ? TYPE_SLICE_BEGIN : TYPE_SLICE_END);
	pw_put_uint(&p->ev, TE_TRACK_UUID, t->uuid);
	if (begin) {
		pw_put_uint(&p->ev, TE_CATEGORY_IIDS, tlp_use(p, h->cat));
		pw_put_uint(&p->ev, TE_NAME_IID, tlp_use(p, h->name));
		if (h->ns != h->end - h->start) /* a clipped slice's full length */
			tlp_annotation_int(p, tlp_str(p, ID_ANNOTATION_NAMES, "ns"), h->ns);
		if (h->n > 1)
			tlp_annotation_int(p, tlp_str(p, ID_ANNOTATION_NAMES, "n"), (int64_t)h->n);
		if (h->cls) {
			pw_buf_clear(&p->sub);
			pw_put_uint(&p->sub, DA_NAME_IID, tlp_intern(p, ID_ANNOTATION_NAMES, "class"));
			pw_put_str(&p->sub, DA_STRING, h->cls);
			pw_put_msg(&p->ev, TE_ANNOTATIONS, &p->sub);
		}
		if (h->arg_name)
			tlp_annotation_int(p, h->arg_name, h->arg);
	}
	pw_put_msg(&p->pkt, PK_TRACK_EVENT, &p->ev);
	if (p->in.len)
		pw_put_msg(&p->pkt, PK_INTERNED, &p->in);
	tlp_emit(p);
}

/* Held slices in start order, the outer of two that start together first
 * (the longer; of equal ones the later to arrive, which ended after). */
static int tlp_held_cmp(const void *a, const void *b)
{
	const struct tlp_held *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->order > y->order ? -1 : x->order < y->order;
}

/* Write a track's held slices: BEGINs in that order, each open slice's END
 * written before the first BEGIN past its end (a stack, as they nest). */
static void tlp_held_flush(struct tlp *p, struct tlp_track *t)
{
	if (!t->nheld)
		return;
	qsort(t->held, t->nheld, sizeof(t->held[0]), tlp_held_cmp);
	size_t *stack = malloc(t->nheld * sizeof(*stack)), depth = 0;
	if (!stack) {
		p->oom = true;
		t->nheld = 0;
		return;
	}
	for (size_t i = 0; i < t->nheld; i++) {
		while (depth && t->held[stack[depth - 1]].end <= t->held[i].start)
			tlp_begin_end(p, t, &t->held[stack[--depth]], false);
		tlp_begin_end(p, t, &t->held[i], true);
		stack[depth++] = i;
	}
	while (depth)
		tlp_begin_end(p, t, &t->held[stack[--depth]], false);
	free(stack);
	t->nheld = 0;
}

static void tlp_slice(void *ctx, const struct sim_timeline_slice_rec *r)
{
	struct tlp *p = ctx;
	struct tlp_track *t = tlp_track(p, TK_THREAD, r->pid, r->tid, NULL);
	if (!t)
		return;
	struct tlp_held h = {
		.start = r->start_ns, .end = r->end_ns, .ns = r->ns, .arg = r->arg, .n = r->n,
		.cat = tlp_str(p, ID_CATEGORIES, r->cat), .name = tlp_str(p, ID_NAMES, r->name),
		.arg_name = r->arg_name && *r->arg_name ? tlp_str(p, ID_ANNOTATION_NAMES, r->arg_name)
							: NULL,
		.cls = r->cls,
	};
	if (r->serial) {
		tlp_begin_end(p, t, &h, true);
		tlp_begin_end(p, t, &h, false);
		return;
	}
	if (t->nheld == TLP_HELD_MAX)
		tlp_held_flush(p, t);
	if (t->nheld == t->capheld) {
		size_t cap = t->capheld ? 2 * t->capheld : 16;
		struct tlp_held *nh = realloc(t->held, cap * sizeof(*nh));
		if (!nh) {
			p->oom = true;
			return;
		}
		t->held = nh;
		t->capheld = cap;
	}
	if (!t->held_listed) {
		t->held_listed = true;
		*p->held_last = t;
		p->held_last = &t->next_held;
	}
	h.order = t->nheld;
	t->held[t->nheld++] = h;
}

static void tlp_counter(void *ctx, int64_t pid, const char *name, int64_t t_ns, double v)
{
	struct tlp *p = ctx;
	struct tlp_track *t = tlp_track(p, TK_COUNTER, pid, 0, name);
	if (!t)
		return;
	tlp_packet(p, false);
	pw_put_uint(&p->pkt, PK_TIMESTAMP, tlp_ts(t_ns));
	pw_put_uint(&p->ev, TE_TYPE, TYPE_COUNTER);
	pw_put_uint(&p->ev, TE_TRACK_UUID, t->uuid);
	pw_put_double(&p->ev, TE_DOUBLE_VALUE, v);
	pw_put_msg(&p->pkt, PK_TRACK_EVENT, &p->ev);
	tlp_emit(p);
}

static int tlp_finish(void *ctx, int64_t end_ns, uint64_t clipped)
{
	struct tlp *p = ctx;
	(void)end_ns;
	(void)clipped;
	for (struct tlp_track *t = p->held_first; t; t = t->next_held)
		tlp_held_flush(p, t);
	if (p->oom || p->pkt.oom || p->ev.oom || p->in.oom || p->sub.oom || p->ent.oom) {
		errno = ENOMEM;
		return -1;
	}
	if (ferror(p->f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

static void tlp_free(void *ctx)
{
	struct tlp *p = ctx;
	for (unsigned b = 0; b < TLP_BUCKETS; b++) {
		while (p->tracks[b]) {
			struct tlp_track *t = p->tracks[b];
			p->tracks[b] = t->next;
			free(t->held);
			free(t->name);
			free(t);
		}
		while (p->strs[b]) {
			struct tlp_str *e = p->strs[b];
			p->strs[b] = e->next;
			free(e->s);
			free(e);
		}
	}
	pw_buf_free(&p->pkt);
	pw_buf_free(&p->ev);
	pw_buf_free(&p->in);
	pw_buf_free(&p->sub);
	pw_buf_free(&p->ent);
	free(p);
}

static const struct sim_timeline_sink tlp_sink = {
	.process = tlp_process,
	.thread = tlp_thread,
	.slice = tlp_slice,
	.counter = tlp_counter,
	.finish = tlp_finish,
	.free = tlp_free,
};

struct sim_timeline *timeline_proto_new(FILE *f)
{
	struct tlp *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->f = f;
	p->held_last = &p->held_first;
	struct sim_timeline *tl = sim_timeline_new_sink(&tlp_sink, p);
	if (!tl)
		free(p);
	return tl;
}
