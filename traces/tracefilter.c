/* Process filters over a trace's records (--comm, --pid, --app; a replay's
 * workload.filter) and gap cutting (--max-gap, --gap), applied by
 * trace_next() to every reader, so stat, convert, fit and replay share them.
 *
 * A request belongs to the process that queued it. blktrace stamps each
 * event with the task running when it is logged (kernel/trace/blktrace.c,
 * __blk_add_trace: current's pid and comm), so a D dispatched by kblockd or
 * a C logged in interrupt context names whichever task was on the CPU, not
 * the submitter; the ftrace block events and the eBPF phone CSVs do the same.
 * The filter therefore decides at the Q, by the rules of traces/fgrule.c,
 * and remembers the decision per request by device and start sector, as btt
 * (and `trace stat`, the replay) pair Q, D and C: a D, R, I, G, S, M, F or C
 * whose sector range covers remembered Qs follows them (kept when it covers
 * any kept Q: a request that merged bios of a kept and a dropped process
 * carries kept data), and a C takes its Qs out of the table. A D with no Q
 * seen (a D/C-only trace, a request queued before the window) stands in for
 * its Q: judged by its own process and remembered. A C of no remembered
 * request is dropped and counted: its process is unknown. Events that belong
 * to no request (P, U, T, A, X, B, messages, file events) are judged by
 * their own process, as they are logged in the submitter's context.
 *
 * Memory: a fixed table of FILTER_TRACK_MAX requests (the size of `trace
 * stat`'s btt table); when it is full the oldest is forgotten (it has almost
 * surely lost its C) and counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config.h"
#include "sim/list.h"
#include "sim/rbtree.h"
#include "traces/trace.h"
#include "traces/trace_int.h"

#define FILTER_TRACK_MAX (1u << 16)

struct ftrack {
	struct rb_node node;
	struct list_head age;
	uint64_t dev, start, seq;
	bool keep;
};

struct trace_filter {
	const struct trace_fg *keep;
	char name[512];
	const struct trace_diag *id;
	bool checked;               /* the identity check is done (at the first record) */
	struct rb_root root;        /* by (dev, start, seq) */
	struct list_head lru;
	struct ftrack *pool, *free;
	uint32_t used;
	uint64_t seq;
};

int trace_keep_add(struct trace_fg **keep, const char *key, const char *value, const char *opt,
		   struct sim_error *err)
{
	if (strcmp(key, "comm") && strcmp(key, "pid") && strcmp(key, "app"))
		return sim_errorf(err, SIM_E_INPUT, "%s: unknown filter '%s' (comm, pid, app)", opt, key);
	char spec[1024];
	size_t kl = strlen(key), vl = strlen(value);
	if (kl + vl + 2 > sizeof(spec))
		return sim_errorf(err, SIM_E_INPUT, "%s: value longer than %zu", opt, sizeof(spec) - kl - 2);
	memcpy(spec, key, kl);
	spec[kl] = '=';
	memcpy(spec + kl + 1, value, vl + 1);
	return trace_rule_add(keep, spec, opt, value, err);
}

int trace_gap_parse_max(struct trace_gap *g, const char *text, const char *opt, struct sim_error *err)
{
	int64_t ns;
	if (cfg_parse_time_ns(text, "s", &ns, err) || ns <= 0)
		return sim_errorf(err, SIM_E_INPUT, "%s '%s': expected a time above 0 (10s, 500ms)", opt,
				  text);
	g->max_ns = ns;
	return 0;
}

int trace_gap_parse_mode(struct trace_gap *g, const char *text, const char *opt, struct sim_error *err)
{
	if (!strcmp(text, "compress"))
		g->mode = TRACE_GAP_COMPRESS;
	else if (!strcmp(text, "cut"))
		g->mode = TRACE_GAP_CUT;
	else
		return sim_errorf(err, SIM_E_INPUT, "%s '%s': expected compress or cut", opt, text);
	return 0;
}

bool trace_filter_kept_nothing(const struct trace_diag *d)
{
	return d->filter[0] && !d->kept_requests && d->dropped_requests;
}

int trace_filter_create(const struct trace_fg *keep, const char *name, const struct trace_diag *id,
			struct trace_filter **out, struct sim_error *err)
{
	struct trace_filter *f = calloc(1, sizeof(*f));
	if (f)
		f->pool = calloc(FILTER_TRACK_MAX, sizeof(*f->pool));
	if (!f || !f->pool) {
		free(f);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory (process filter)");
	}
	f->keep = keep;
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->id = id;
	f->root = RB_ROOT;
	list_init(&f->lru);
	*out = f;
	return 0;
}

void trace_filter_free(struct trace_filter *f)
{
	if (!f)
		return;
	free(f->pool);
	free(f);
}

static int key_cmp(uint64_t dev, uint64_t start, uint64_t seq, const struct ftrack *b)
{
	if (dev != b->dev)
		return dev < b->dev ? -1 : 1;
	if (start != b->start)
		return start < b->start ? -1 : 1;
	if (seq != b->seq)
		return seq < b->seq ? -1 : 1;
	return 0;
}

static void track_del(struct trace_filter *f, struct ftrack *t)
{
	rb_erase(&t->node, &f->root);
	list_del_init(&t->age);
	t->node.parent = (struct rb_node *)f->free;
	f->free = t;
}

/* Remember a request decided at its Q (or its D when no Q came), and count it. */
static void track_add(struct trace_filter *f, uint64_t dev, uint64_t start, bool keep,
		      struct trace_diag *d)
{
	struct ftrack *t;
	if (!f->free && f->used == FILTER_TRACK_MAX) {
		track_del(f, list_first_entry(&f->lru, struct ftrack, age));
		d->filter_evicted++;
	}
	if (f->free) {
		t = f->free;
		f->free = (struct ftrack *)t->node.parent;
	} else {
		t = &f->pool[f->used++];
	}
	memset(t, 0, sizeof(*t));
	t->dev = dev;
	t->start = start;
	t->seq = ++f->seq;
	t->keep = keep;
	struct rb_node **link = &f->root.node, *parent = NULL;
	while (*link) {
		parent = *link;
		link = key_cmp(dev, start, t->seq, rb_entry(parent, struct ftrack, node)) < 0 ?
			       &parent->left : &parent->right;
	}
	rb_link_node(&t->node, parent, link);
	rb_insert_color(&t->node, &f->root);
	list_add_tail(&t->age, &f->lru);
	if (keep)
		d->kept_requests++;
	else
		d->dropped_requests++;
}

/* The remembered requests starting in [start, end) on dev: *found how many,
 * the result whether any was kept; a completion (drop) forgets them. */
static bool track_cover(struct trace_filter *f, uint64_t dev, uint64_t start, uint64_t end,
			bool drop, uint32_t *found)
{
	struct rb_node *n = f->root.node, *best = NULL;
	while (n) {
		struct ftrack *t = rb_entry(n, struct ftrack, node);
		if (key_cmp(dev, start, 0, t) <= 0) {
			best = n;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	bool keep = false;
	*found = 0;
	while (best) {
		struct ftrack *t = rb_entry(best, struct ftrack, node);
		if (t->dev != dev || t->start >= end)
			break;
		best = rb_next(best);
		keep |= t->keep;
		(*found)++;
		if (drop)
			track_del(f, t);
	}
	return keep;
}

/* A rule on what the trace does not record would keep nothing, or worse
 * (a CSV without pids numbers its names: pid=2 would be the second name
 * seen): refused. Checked at the first record, as a CSV learns from its
 * rows whether its names carry thread ids (comm-tid). */
static int check_identity(struct trace_filter *f, struct sim_error *err)
{
	char lacks[160];
	f->checked = true;
	if (!trace_identity_lacks(trace_fg_needs(f->keep), f->id->identity, lacks, sizeof(lacks)))
		return 0;
	const char *fmt = f->id->format ? f->id->format : "?";
	return sim_errorf(err, SIM_E_INPUT, "%s: this %s trace records no %s%s, so the process filter "
			  "would keep nothing", f->name, fmt, lacks, trace_identity_hint(fmt));
}

int trace_filter_pass(struct trace_filter *f, const struct trace_rec *rec, struct trace_diag *d,
		      struct sim_error *err)
{
	bool keep;
	if (!f->checked) {
		int rc = check_identity(f, err);
		if (rc)
			return rc;
	}
	if (rec->kind != TRACE_REC_BLOCK) {
		keep = trace_fg_match(f->keep, rec);
		goto out;
	}
	uint64_t dev = (uint64_t)rec->dev_major << 32 | rec->dev_minor;
	uint64_t end = rec->sector + (rec->nr_sectors ? rec->nr_sectors : 1);
	uint32_t found = 0;
	switch (rec->action) {
	case TRACE_A_QUEUE:
		keep = trace_fg_match(f->keep, rec);
		track_add(f, dev, rec->sector, keep, d);
		break;
	case TRACE_A_COMPLETE:
		keep = track_cover(f, dev, rec->sector, end, true, &found);
		if (!found)
			d->unowned_events++;
		break;
	case TRACE_A_ISSUE:
	case TRACE_A_REQUEUE:
	case TRACE_A_INSERT:
	case TRACE_A_GETRQ:
	case TRACE_A_SLEEPRQ:
	case TRACE_A_BACKMERGE:
	case TRACE_A_FRONTMERGE:
		keep = track_cover(f, dev, rec->sector, end, false, &found);
		if (found)
			break;
		keep = trace_fg_match(f->keep, rec);
		if (rec->action == TRACE_A_ISSUE)
			track_add(f, dev, rec->sector, keep, d); /* no Q seen: the D stands in */
		break;
	default:
		keep = trace_fg_match(f->keep, rec);
		break;
	}
out:
	if (!keep)
		d->filtered_events++;
	return keep;
}
