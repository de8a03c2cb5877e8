/* `mobisim trace stat|convert FILE`: look at a recorded block trace.
 *
 * stat: the format detected from the content, events by action, request
 *   sizes (Q events; D events for a trace with no Q) per direction in
 *   power-of-two KiB buckets, per-process counts (the same events), and
 *   btt-style Q2C / D2C per direction with btt's
 *   MIN / AVG / MAX / N columns (seconds, as btt's "All Devices" table).
 *   I/Os are matched by (device, start sector); merges move the first
 *   queue time to the request's start as btt does. The match table is
 *   fixed (STAT_TRACK_MAX outstanding I/Os); I/Os beyond it are counted
 *   as untracked, so memory does not grow with the trace. A request list
 *   (trace_diag.request_list: no D or C can come) tracks nothing. --fg RULE
 *   (traces/fgrule.c) adds a class column and FG/BG totals; a rule on what
 *   the trace does not record is an error (trace_identity_lacks).
 * convert --to blkparse: the events as Debian's blkparse 1.2.0 prints them
 *   (traces/blkparse_writer.c); --to blktrace: binary (traces/
 *   blktrace_writer.c), one file per CPU when -o names NAME.blktrace.N (so
 *   `blkparse -i NAME` reads it), else one combined stream as `blkparse -d`
 *   writes (btt, `blkparse -i -`); --to mqsim: MQSim/SSDSim ASCII, one line
 *   per queued read or write, which the DiskSim/MQSim reader reads back.
 *
 * Both take --from/--until (a time window), --comm/--pid/--app (only the
 * requests queued by those processes, traces/tracefilter.c) and --max-gap
 * with --gap compress|cut; trace_next() applies them, and stat reports
 * what each removed.
 *
 * Warnings of the reader (a cut last record, a missing CPU file, time going
 * backwards, clock jumps) go to stderr as "mobisim: warning: ..." and, for
 * stat, into a "# warnings" block.
 *
 * Output goes through results_out (sim/results.h): a regular file via an
 * O_EXCL temporary renamed at the end; stdout, a character device or a FIFO,
 * which cannot be taken back, through an unnamed temporary file first, so a
 * bad trace writes nothing there but the message and a pipe is read once.
 * Errors: "mobisim: FILE:LINE: ..." or "mobisim: FILE: byte offset N: ...",
 * exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/block/request.h"
#include "sim/cli/cli.h"
#include "sim/cli/trace_options.h"
#include "sim/error.h"
#include "sim/results.h"
#include "sim/rbtree.h"
#include "traces/trace.h"

#define STAT_TRACK_MAX (1u << 16)
#define STAT_POOL_ALIGN (2u << 20)
#define STAT_PIDS_MAX 1024u
#define STAT_DEVS_MAX 256u
#define STAT_SIZE_BUCKETS 13 /* <=0.5, 1, 2, ... 1024, >1024 KiB */

/* btt's avgs_info: seconds summed as doubles in event order, so AVG
 * prints the digits btt prints. */
struct lat {
	uint64_t n;
	double min, max, total;
};

/* A queued bio (btt's IOP_Q) waiting for the D and C that cover it. One
 * cache line: a full table is walked on every Q, and the tree's key sits
 * beside its links so a step down touches one line. */
struct track {
	struct rb_node node;
	uint64_t start;             /* sectors [start, start + nr) */
	int64_t q_time, d_time;     /* d_time -1 until issued */
	uint32_t nr;
	uint16_t dev;               /* index into stat_state's devs */
	bool write;
} __attribute__((aligned(64)));

/* A Q, D or C waiting in the batch for its turn at the match table. */
struct track_op {
	uint64_t sector;
	int64_t time_ns;
	uint32_t nr;
	uint16_t dev;
	bool issue;                 /* D (else C), for a pairing op */
	bool queue;                 /* Q: track it */
	bool write;
};

/* Ops taken together: their paths down the (cold, when full) tree are
 * walked side by side first, so the cache misses of STAT_BATCH walks
 * overlap instead of following one another; then the ops run one by one
 * in trace order, as before, on nodes now in cache. */
#define STAT_BATCH 8u
/* ... once the table holds this many (1 MiB of nodes, the size of L2) */
#define STAT_BATCH_FROM 16384u

struct pidstat {
	int32_t pid;
	char comm[64];
	uint64_t queued, bytes, fg_queued;
};

struct stat_state {
	uint64_t events, by_action[TRACE_A_NR_BLOCK], messages;
	uint64_t sizes[2][STAT_SIZE_BUCKETS];
	struct pidstat *pids;
	uint32_t npids;
	uint64_t other_pid_queued, other_pid_bytes;
	/* --fg: the foreground rules and what they matched (Q events) */
	const struct trace_fg *fg;
	uint64_t fg_queued, fg_bytes, bg_queued, bg_bytes, unnamed_queued, fg_known_queued;
	struct lat q2c[2], d2c[2], q2c_all, d2c_all;
	uint64_t evicted;           /* Qs dropped from the full table, oldest first */
	bool request_list;          /* trace_diag's: no C can come, so no Q is tracked */
	/* btt's tracking: Qs by start sector in one tree per device, at most
	 * STAT_TRACK_MAX in all */
	struct rb_root roots[STAT_DEVS_MAX];
	struct track *pool;
	/* age order of the tracked Qs, by pool index: a doubly linked ring
	 * through slot STAT_TRACK_MAX, apart from the pool so a track stays
	 * one line; the free slots are a list through age_next */
	uint32_t *age_prev, *age_next;
	uint32_t free;              /* first free slot, STAT_TRACK_MAX when none */
	uint32_t nfree_idx, ntracked;
	uint32_t devs[STAT_DEVS_MAX]; /* devices past btt's pre-culling (first Q or A seen) */
	uint64_t devs_over;         /* events of devices beyond STAT_DEVS_MAX */
	struct track **found;       /* matches of one D or C, in btt's traversal order */
	uint32_t nfound;
	uint32_t ndevs;
	struct track_op batch[STAT_BATCH];
	uint32_t nbatch;
	/* no Q in the whole trace: the size, process and D2C figures are of
	 * its D events (stat_from_d) */
	bool from_d;
};

/* btt's tdelta: a non-positive step counts as 1 ns. */
static double tdelta_s(int64_t from, int64_t to)
{
	return (double)(from < to ? (uint64_t)to - (uint64_t)from : 1u) / 1.0e9;
}

static void lat_add(struct lat *l, double t)
{
	if (l->n++ == 0) {
		l->min = l->max = l->total = t;
		return;
	}
	if (t < l->min)
		l->min = t;
	if (t > l->max)
		l->max = t;
	l->total += t;
}

static int dev_index(struct stat_state *s, uint32_t dev, bool clears)
{
	for (uint32_t i = 0; i < s->ndevs; i++)
		if (s->devs[i] == dev)
			return (int)i;
	if (!clears)
		return -1;
	if (s->ndevs == STAT_DEVS_MAX) {
		s->devs_over++;
		return -1;
	}
	s->devs[s->ndevs] = dev;
	s->roots[s->ndevs] = RB_ROOT;
	return (int)s->ndevs++;
}

static void track_del(struct stat_state *s, struct track *t)
{
	uint32_t i = (uint32_t)(t - s->pool);
	rb_erase(&t->node, &s->roots[t->dev]);
	s->age_next[s->age_prev[i]] = s->age_next[i];
	s->age_prev[s->age_next[i]] = s->age_prev[i];
	s->age_next[i] = s->free;
	s->free = i;
	s->ntracked--;
}

/* A free slot; when the table is full, the oldest Q's (it has almost surely
 * lost its C), which may reshape the tree: *reshaped says so. */
static struct track *track_alloc(struct stat_state *s, bool *reshaped)
{
	*reshaped = false;
	if (s->free == STAT_TRACK_MAX && s->nfree_idx == STAT_TRACK_MAX) {
		track_del(s, &s->pool[s->age_next[STAT_TRACK_MAX]]);
		s->evicted++;
		*reshaped = true;
	}
	uint32_t i;
	if (s->free != STAT_TRACK_MAX) {
		i = s->free;
		s->free = s->age_next[i];
	} else {
		i = s->nfree_idx++;
	}
	return &s->pool[i];
}

/* The left (0) or right (1) link of n, chosen by arithmetic: with random
 * sectors a branch on the comparison is mispredicted every other level. */
static inline struct rb_node **child_link(struct rb_node *n, bool right)
{
	return (struct rb_node **)((char *)&n->left + (size_t)right * sizeof(n->left));
}

/* btt's rb_insert (dip_rb.c): a Q whose start sector is already tracked
 * on its device is not tracked; the first one stays. */
static void track_queue(struct stat_state *s, int d, const struct track_op *r)
{
	struct rb_node **link = &s->roots[d].node, *parent = NULL;
	/* the last nodes the walk left to the right and to the left: the
	 * tracked Qs just below and just above the new start */
	struct rb_node *below = NULL, *above = NULL;
	while (*link) {
		struct track *x = rb_entry(*link, struct track, node);
		if (r->sector == x->start)
			return;
		parent = *link;
		bool right = r->sector > x->start;
		below = right ? parent : below;
		above = right ? above : parent;
		link = child_link(parent, right);
	}
	bool reshaped;
	struct track *t = track_alloc(s, &reshaped);
	/* An eviction keeps every other node and the order of the keys, and
	 * a BST has one empty link between two neighbours in that order: the
	 * one found stays right while the evicted Q was neither neighbour and
	 * the link is still empty. Else walk again (rotations moved it). */
	if (reshaped && (&t->node == below || &t->node == above || *link)) {
		link = &s->roots[d].node;
		parent = NULL;
		while (*link) {
			struct track *x = rb_entry(*link, struct track, node);
			parent = *link;
			link = child_link(parent, r->sector > x->start);
		}
	}
	t->start = r->sector;
	t->nr = r->nr;
	t->q_time = r->time_ns;
	t->d_time = -1;
	t->dev = (uint16_t)d;
	t->write = r->write;
	rb_link_node(&t->node, parent, link);
	rb_insert_color(&t->node, &s->roots[d]);
	uint32_t i = (uint32_t)(t - s->pool), tail = s->age_prev[STAT_TRACK_MAX];
	s->age_prev[i] = tail;
	s->age_next[i] = STAT_TRACK_MAX;
	s->age_next[tail] = i;
	s->age_prev[STAT_TRACK_MAX] = i;
	s->ntracked++;
}

/* btt's rb_foreach: the Qs inside [start, end), visiting a node, then its
 * left subtree when start < node start, then its right subtree when the
 * node ends before end. The pruning can miss a Q inside the range below an
 * overlapping one (a split bio's remainder under the split bio): btt
 * misses it too, and we count what btt counts. */
static void track_range(struct stat_state *s, struct rb_node *n, uint64_t start, uint64_t end)
{
	while (n) {
		struct track *t = rb_entry(n, struct track, node);
		uint64_t t_end = t->start + t->nr;
		if (start <= t->start && t_end <= end && s->nfound < STAT_TRACK_MAX)
			s->found[s->nfound++] = t;
		bool left = start < t->start, right = t_end < end;
		if (left && right)
			track_range(s, n->left, start, end);
		n = right ? n->right : left ? n->left : NULL;
	}
}

static int stat_init(struct stat_state *s)
{
	memset(s, 0, sizeof(*s));
	/* 4 MiB walked at random on every Q of a full table: on 2 MiB pages
	 * where the kernel has them, so a step down costs no TLB walk */
	s->pool = aligned_alloc(STAT_POOL_ALIGN, STAT_TRACK_MAX * sizeof(*s->pool));
	if (s->pool)
		(void)madvise(s->pool, STAT_TRACK_MAX * sizeof(*s->pool), MADV_HUGEPAGE);
	s->age_prev = malloc((STAT_TRACK_MAX + 1) * sizeof(*s->age_prev));
	s->age_next = malloc((STAT_TRACK_MAX + 1) * sizeof(*s->age_next));
	s->found = calloc(STAT_TRACK_MAX, sizeof(*s->found));
	s->pids = calloc(STAT_PIDS_MAX, sizeof(*s->pids));
	if (!s->pool || !s->age_prev || !s->age_next || !s->pids || !s->found)
		return SIM_E_NOMEM;
	s->age_prev[STAT_TRACK_MAX] = s->age_next[STAT_TRACK_MAX] = STAT_TRACK_MAX;
	s->free = STAT_TRACK_MAX;
	return 0;
}

static void stat_free(struct stat_state *s)
{
	free(s->pool);
	free(s->age_prev);
	free(s->age_next);
	free(s->found);
	free(s->pids);
}

static unsigned size_bucket(uint32_t bytes)
{
	unsigned b = 0;
	uint64_t lim = 512;
	while (b < STAT_SIZE_BUCKETS - 1 && bytes > lim) {
		b++;
		lim <<= 1;
	}
	return b;
}

static void stat_pid(struct stat_state *s, const struct trace_rec *r)
{
	bool fg = trace_fg_match(s->fg, r);
	if (fg) {
		s->fg_queued++;
		s->fg_bytes += r->bytes;
	} else {
		s->bg_queued++;
		s->bg_bytes += r->bytes;
	}
	if (!r->comm)
		s->unnamed_queued++;
	if (r->tflags & TRACE_T_FG_KNOWN)
		s->fg_known_queued++;
	/* Sorted array by pid: the report is in pid order. */
	uint32_t lo = 0, hi = s->npids;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (s->pids[mid].pid < r->pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->npids && s->pids[lo].pid == r->pid) {
		s->pids[lo].queued++;
		s->pids[lo].fg_queued += fg;
		s->pids[lo].bytes += r->bytes;
		if (!s->pids[lo].comm[0] && r->comm)
			snprintf(s->pids[lo].comm, sizeof(s->pids[lo].comm), "%s", r->comm);
		return;
	}
	if (s->npids == STAT_PIDS_MAX) {
		s->other_pid_queued++;
		s->other_pid_bytes += r->bytes;
		return;
	}
	memmove(&s->pids[lo + 1], &s->pids[lo], (s->npids - lo) * sizeof(*s->pids));
	memset(&s->pids[lo], 0, sizeof(*s->pids));
	s->pids[lo].pid = r->pid;
	s->pids[lo].queued = 1;
	s->pids[lo].fg_queued = fg;
	s->pids[lo].bytes = r->bytes;
	if (r->comm)
		snprintf(s->pids[lo].comm, sizeof(s->pids[lo].comm), "%s", r->comm);
	s->npids++;
}

/* btt 1.2.0's pairing (trace_queue.c, trace_issue.c, trace_complete.c,
 * dip_rb.c): every Q with data is kept by (device, start sector); a D
 * stamps its issue time on every kept Q inside its sector range (again
 * after a requeue, so D2C runs from the last D); a C takes Q2C and D2C of
 * every kept Q inside its range and drops them. Merges, splits and
 * requeues need no rule of their own: a split bio's Q lies in no single D
 * and is never paired, as in btt. Events of a device before its first Q
 * or A are ignored (btt's pre-culling); passthrough records too. */
static void stat_pair(struct stat_state *s, int d, const struct track_op *r)
{
	bool issue = r->issue;

	s->nfound = 0;
	track_range(s, s->roots[d].node, r->sector, r->sector + r->nr);
	for (uint32_t i = 0; i < s->nfound; i++) {
		struct track *t = s->found[i];
		if (issue) {
			t->d_time = r->time_ns;
			continue;
		}
		double q2c = tdelta_s(t->q_time, r->time_ns);
		lat_add(&s->q2c[t->write], q2c);
		lat_add(&s->q2c_all, q2c);
		if (t->d_time >= 0) {
			double d2c = tdelta_s(t->d_time, r->time_ns);
			lat_add(&s->d2c[t->write], d2c);
			lat_add(&s->d2c_all, d2c);
		}
		track_del(s, t);
	}
}

/* The batch's walks side by side (loads of up to STAT_BATCH independent
 * chains in flight at once), and the nodes the next evictions will touch
 * prefetched; then each op in order. Only cache state differs from running
 * the ops at once. */
static void stat_flush(struct stat_state *s)
{
	/* walkers past a leaf rest on a node of their own (no branch on a
	 * value still on its way from memory: a mispredicted one would
	 * cancel the loads behind it and the walks would queue up again) */
	static struct track rest;
	struct rb_node *at[2 * STAT_BATCH];
	uint64_t key[2 * STAT_BATCH];
	uint32_t n = s->nbatch, w = 0;

	for (uint32_t k = 0; k < n; k++) {
		struct rb_node *top = s->roots[s->batch[k].dev].node;
		at[w] = top ? top : &rest.node;
		key[w++] = s->batch[k].sector;
	}
	/* the next evictions: each victim's parent, and the leftmost node of
	 * its right subtree (its successor, which rb_erase moves up) */
	if (s->ntracked == STAT_TRACK_MAX) {
		uint32_t v = s->age_next[STAT_TRACK_MAX];
		for (uint32_t k = 0; k < n && v != STAT_TRACK_MAX; k++, v = s->age_next[v]) {
			const struct rb_node *x = &s->pool[v].node;
			__builtin_prefetch(x->parent);
			at[w] = x->right ? x->right : &rest.node;
			key[w++] = 0; /* always left */
		}
	}
	for (bool live = true; live;) {
		live = false;
		for (uint32_t k = 0; k < w; k++) {
			const struct track *x = rb_entry(at[k], struct track, node);
			struct rb_node *c = *child_link(at[k], key[k] > x->start);
			at[k] = c ? c : &rest.node;
			live |= c != NULL;
		}
	}
	for (uint32_t k = 0; k < n; k++) {
		const struct track_op *op = &s->batch[k];
		if (op->queue)
			track_queue(s, op->dev, op);
		else
			stat_pair(s, op->dev, op);
	}
	s->nbatch = 0;
}

static void stat_push(struct stat_state *s, int d, const struct trace_rec *r, bool queue)
{
	/* a small table stays in cache: no batch to pay for */
	bool direct = s->nbatch == 0 && s->ntracked < STAT_BATCH_FROM;
	struct track_op *op = &s->batch[direct ? 0 : s->nbatch++];
	op->sector = r->sector;
	op->time_ns = r->time_ns;
	op->nr = r->nr_sectors;
	op->dev = (uint16_t)d;
	op->issue = r->action == TRACE_A_ISSUE;
	op->queue = queue;
	op->write = (r->flags & REQ_WRITE) != 0;
	if (direct) {
		if (queue)
			track_queue(s, d, op);
		else
			stat_pair(s, d, op);
	} else if (s->nbatch == STAT_BATCH) {
		stat_flush(s);
	}
}

static void stat_add(struct stat_state *s, const struct trace_rec *r)
{
	uint32_t dev = r->dev_major << 20 | (r->dev_minor & 0xfffff);
	int w = (r->flags & REQ_WRITE) != 0;

	s->events++;
	if (r->action == TRACE_A_MESSAGE) {
		s->messages++;
		return;
	}
	if (r->action < TRACE_A_NR_BLOCK)
		s->by_action[r->action]++;
	if (r->action == TRACE_A_QUEUE) {
		if (r->dir == TRACE_DIR_READ || r->dir == TRACE_DIR_WRITE || r->dir == TRACE_DIR_DISCARD)
			s->sizes[w][size_bucket(r->bytes)]++;
		stat_pid(s, r);
	}
	if (r->tflags & TRACE_T_PC)
		return;
	int d;
	switch (r->action) {
	case TRACE_A_QUEUE:
		if (r->bytes && !s->request_list && (d = dev_index(s, dev, true)) >= 0)
			stat_push(s, d, r, true);
		break;
	case TRACE_A_REMAP:
		(void)dev_index(s, dev, true);
		break;
	case TRACE_A_ISSUE:
	case TRACE_A_COMPLETE:
		if (r->bytes && (d = dev_index(s, dev, false)) >= 0)
			stat_push(s, d, r, false);
		break;
	default:
		break;
	}
}

static void print_lat(FILE *o, const char *name, const struct lat *l)
{
	if (!l->n) {
		fprintf(o, "%-15s %13s %13s %13s %11d\n", name, "-", "-", "-", 0);
		return;
	}
	fprintf(o, "%-15s %13.9f %13.9f %13.9f %11" PRIu64 "\n", name, l->min, l->total / (double)l->n,
		l->max, l->n);
}

static void stat_print(FILE *o, const char *path, const char *format, const struct stat_state *s,
		       const struct trace_reader *r)
{
	const struct trace_diag *dg = &r->diag;
	int64_t gap_ns = r->gap.max_ns;
	uint32_t opts_segment = r->segment;
	int64_t segment_gap_ns = r->segment_gap_ns;
	static const char *const names[TRACE_A_NR_BLOCK] = {
		[TRACE_A_NONE] = "unknown", [TRACE_A_QUEUE] = "queue", [TRACE_A_BACKMERGE] = "backmerge",
		[TRACE_A_FRONTMERGE] = "frontmerge", [TRACE_A_GETRQ] = "getrq",
		[TRACE_A_SLEEPRQ] = "sleeprq", [TRACE_A_REQUEUE] = "requeue", [TRACE_A_ISSUE] = "issue",
		[TRACE_A_COMPLETE] = "complete", [TRACE_A_PLUG] = "plug", [TRACE_A_UNPLUG_IO] = "unplug",
		[TRACE_A_UNPLUG_TIMER] = "unplug_timer", [TRACE_A_INSERT] = "insert",
		[TRACE_A_SPLIT] = "split", [TRACE_A_BOUNCE] = "bounce", [TRACE_A_REMAP] = "remap",
		[TRACE_A_ABORT] = "abort", [TRACE_A_DRV_DATA] = "drv_data",
	};

	fprintf(o, "file:     %s\nformat:   %s\n", path, format);
	if (dg->set_base[0])
		fprintf(o, "files:    %u (%s.blktrace.N, the whole per-CPU set)\n", dg->files, dg->set_base);
	if (dg->other_events)
		fprintf(o, "events:   %" PRIu64 " (%" PRIu64 " block, %" PRIu64 " other)\n",
			s->events + dg->other_events, s->events, dg->other_events);
	else
		fprintf(o, "events:   %" PRIu64 "\n", s->events);
	/* Earliest to latest: never negative, whatever the order. */
	fprintf(o, "duration: %.9f s%s\n",
		s->events ? ((double)dg->max_ns - (double)dg->min_ns) / 1e9 : 0.0,
		dg->jumps ? " (spans a clock jump: see warnings)" : "");
	if (opts_segment)
		fprintf(o, "segment:  %u of %s%u (cut at steps longer than %.9g s): %" PRIu64
			   " records before it (read, not counted)%s\n", opts_segment,
			dg->segment_done ? "at least " : "", dg->segments, (double)segment_gap_ns / 1e9,
			dg->outside_segment, dg->segment_done ? "; the rest not read" : "");
	if (dg->outside_window)
		fprintf(o, "window:   %" PRIu64 " records outside --from/--until (read, not counted)\n",
			dg->outside_window);
	if (dg->filter[0])
		fprintf(o, "filter:   %s: %" PRIu64 " requests kept, %" PRIu64 " dropped (by the process "
			   "that queued each); %" PRIu64 " events not counted, of them %" PRIu64
			   " completions of requests not seen queued\n", dg->filter, dg->kept_requests,
			dg->dropped_requests, dg->filtered_events, dg->unowned_events);
	if (dg->filter_evicted)
		fprintf(o, "filter:   %" PRIu64 " requests forgotten before their completion (more than "
			   "65536 outstanding)\n", dg->filter_evicted);
	if (dg->gap_cut)
		fprintf(o, "gaps:     cut at the first gap longer than --max-gap, %.9f s after the first "
			   "record (the rest not read)\n", (double)dg->gap_cut_at_ns / 1e9);
	else if (gap_ns)
		fprintf(o, "gaps:     %" PRIu64 " longer than %.9f s compressed to it (%.9f s removed; "
			   "longest %.9f s)\n", dg->gaps, (double)gap_ns / 1e9,
			(double)dg->gap_removed_ns / 1e9, (double)dg->max_gap_ns / 1e9);
	fprintf(o, "\n");
	fprintf(o, "# events by action\n");
	for (unsigned a = 0; a < TRACE_A_NR_BLOCK; a++)
		if (s->by_action[a])
			fprintf(o, "%-3s %-13s %12" PRIu64 "\n",
				a == TRACE_A_UNPLUG_TIMER ? "UT" : (char[2]){ trace_action_letter((uint16_t)a), 0 },
				names[a], s->by_action[a]);
	if (s->messages)
		fprintf(o, "%-3s %-13s %12" PRIu64 "\n", "m", "message", s->messages);

	const char *ev = s->from_d ? "D events: the trace has no Q" : "Q events";
	fprintf(o, "\n# request sizes (%s)\n%-12s %12s %12s\n", ev, "size_kib<=", "reads", "writes");
	for (unsigned b = 0; b < STAT_SIZE_BUCKETS; b++) {
		if (!s->sizes[0][b] && !s->sizes[1][b])
			continue;
		char lab[16];
		if (b == 0)
			snprintf(lab, sizeof(lab), "0.5");
		else if (b == STAT_SIZE_BUCKETS - 1)
			snprintf(lab, sizeof(lab), ">%u", 1u << (b - 2));
		else
			snprintf(lab, sizeof(lab), "%u", 1u << (b - 1));
		fprintf(o, "%-12s %12" PRIu64 " %12" PRIu64 "\n", lab, s->sizes[0][b], s->sizes[1][b]);
	}

	fprintf(o, "\n# per process (%s)\n", ev);
	char lacks[160];
	bool no_pid = trace_identity_lacks(TRACE_ID_PID, dg->identity, lacks, sizeof(lacks));
	bool no_comm = trace_identity_lacks(TRACE_ID_COMM, dg->identity, lacks, sizeof(lacks));
	if (no_pid && no_comm)
		fprintf(o, "the trace records no process (format %s): every request is pid 0%s\n", format,
			trace_identity_hint(format));
	else if (no_pid)
		fprintf(o, "the trace records process names, not ids: pid N is the Nth name seen\n");
	bool cls = s->fg != NULL;
	fprintf(o, "%-8s %-16s %12s %14s%s\n", "pid", "comm", "queued", "kib", cls ? "  class" : "");
	for (uint32_t i = 0; i < s->npids; i++) {
		const struct pidstat *p = &s->pids[i];
		fprintf(o, "%-8d %-16s %12" PRIu64 " %14" PRIu64 "%s%s\n", p->pid, p->comm[0] ? p->comm : "-",
			p->queued, p->bytes >> 10, cls ? "  " : "",
			!cls ? "" : p->fg_queued == p->queued ? "fg" : p->fg_queued ? "fg+bg" : "bg");
	}
	if (s->other_pid_queued)
		fprintf(o, "%-8s %-16s %12" PRIu64 " %14" PRIu64 "\n", "other", "-", s->other_pid_queued,
			s->other_pid_bytes >> 10);
	if (s->unnamed_queued && !no_comm)
		fprintf(o, "requests without a process name: %" PRIu64 " (counted under their pid, comm -)\n",
			s->unnamed_queued);
	if (cls) {
		char rules[512];
		trace_fg_describe(s->fg, rules, sizeof(rules));
		fprintf(o, "\n# foreground / background (%s; --fg %s)\n%-12s %12s %14s\n",
			s->from_d ? "D events" : "Q events", rules, "class", "queued", "kib");
		fprintf(o, "%-12s %12" PRIu64 " %14" PRIu64 "\n", "fg", s->fg_queued, s->fg_bytes >> 10);
		fprintf(o, "%-12s %12" PRIu64 " %14" PRIu64 "\n", "bg", s->bg_queued, s->bg_bytes >> 10);
		if (!s->fg_queued && s->bg_queued) {
			/* a rule that matches nothing is a typo or a name the trace
			 * spells otherwise (ftrace's 15-character comms) */
			fprintf(o, "the FG rule matched no request: every request is BG (see the names "
				   "under \"per process\")\n");
			fprintf(stderr, "mobisim: warning: --fg %s matched none of the %" PRIu64
				" requests: all are BG (the names the trace holds are under \"per "
				"process\")\n", rules, s->bg_queued);
		}
		if (trace_fg_needs(s->fg) & TRACE_ID_FG)
			fprintf(o, "requests with the recording's foreground state: %" PRIu64 " of %" PRIu64
				"%s\n", s->fg_known_queued, s->fg_queued + s->bg_queued,
				s->fg_known_queued ? "" : " (the trace has no process_stats or "
				"oom_score_adj_update: record them to use --fg recorded)");
	}

	fprintf(o, "\n# btt-style latencies (seconds)\n");
	fprintf(o, "%-15s %13s %13s %13s %11s\n", "ALL", "MIN", "AVG", "MAX", "N");
	fprintf(o, "--------------- ------------- ------------- ------------- -----------\n");
	print_lat(o, "Q2C", &s->q2c_all);
	print_lat(o, "Q2C read", &s->q2c[0]);
	print_lat(o, "Q2C write", &s->q2c[1]);
	print_lat(o, "D2C", &s->d2c_all);
	print_lat(o, "D2C read", &s->d2c[0]);
	print_lat(o, "D2C write", &s->d2c[1]);
	if (s->from_d)
		fprintf(o, "D2C from the D (issue) and C (complete) events alone: not btt's, which "
			   "pairs through each bio's Q; the trace has none\n");
	else if (!s->q2c_all.n && s->by_action[TRACE_A_COMPLETE])
		fprintf(o, "latencies cannot be computed: the trace has C (complete) events but no Q "
			   "(queue) events to pair them with\n");
	else if (!s->q2c_all.n && s->request_list)
		fprintf(o, "latencies cannot be computed: a %s trace holds queued requests only, no "
			   "completions\n", format);
	else if (!s->q2c_all.n && s->events)
		fprintf(o, "latencies cannot be computed: no Q (queue) event was followed by its C "
			   "(complete)\n");
	if (s->evicted)
		fprintf(o, "untracked I/Os (more than %u outstanding; oldest dropped): %" PRIu64 "\n",
			STAT_TRACK_MAX, s->evicted);

	/* What the reader read past: counted here as well as warned about. */
	if (dg->truncated_files || dg->missing_files || dg->wrong_cpu || dg->backwards || dg->jumps) {
		fprintf(o, "\n# warnings\n");
		if (dg->truncated_files)
			fprintf(o, "cut last records skipped: %u (%" PRIu64 " bytes)\n", dg->truncated_files,
				dg->truncated_bytes);
		if (dg->missing_files)
			fprintf(o, "missing CPU files:        %u\n", dg->missing_files);
		if (dg->wrong_cpu)
			fprintf(o, "records of another CPU:   %" PRIu64 " (dropped, as blkparse)\n", dg->wrong_cpu);
		if (dg->backwards)
			fprintf(o, "time going backwards:     %" PRIu64 " (by up to %.9f s)\n", dg->backwards,
				(double)dg->max_backwards_ns / 1e9);
		if (dg->jumps)
			fprintf(o, "%s > %lld s:      %" PRIu64 " (largest %.0f s)\n",
				trace_reader_find(format) && trace_reader_find(format)->cpus ? "clock jumps"
											       : "gaps       ",
				(long long)(TRACE_CLOCK_JUMP_NS / 1000000000LL), dg->jumps,
				(double)dg->max_jump_ns / 1e9);
	}
}

/* ---- command ---------------------------------------------------------- */

static void trace_usage(FILE *f)
{
	fprintf(f,
		"usage: mobisim trace stat FILE [options]\n"
		"       mobisim trace convert FILE --to blkparse|blktrace|mqsim [-o OUT] [options]\n"
		"  FILE: blktrace (one file, a per-CPU set by its base NAME or any NAME.blktrace.N,\n"
		"  a blkparse -d dump), blkparse text, DiskSim/MQSim ASCII, ftrace text, systrace\n"
		"  HTML, Perfetto, trace-cmd trace.dat, MSR/SNIA CSV, the phone block CSV\n"
		"  (proces,device,rw_flag,...) or a fio iolog; '-' or a pipe for standard\n"
		"  input; gzip, xz and zstd are decompressed. The format is detected from the\n"
		"  content.\n"
		"  --to blkparse          text as Debian's blkparse 1.2.0 prints it\n"
		"  --to blktrace          binary: -o NAME.blktrace.0 writes a per-CPU set\n"
		"                         NAME.blktrace.N (`blkparse -i NAME`); any other name or\n"
		"                         stdout one combined stream (`blkparse -i -`, `btt -i`)\n"
		"  --to mqsim             MQSim/SSDSim ASCII: time_ns devno lba sectors 1=read|0=write\n"
		"                         (mobisim reads it back)\n"
		"  --format NAME          force a reader (blktrace, blkparse, disksim, ftrace, csv, fio,\n"
		"                         perfetto, tracecmd, systrace)\n"
		"  --disksim-time ns|ms   DiskSim/MQSim time unit (default: ns for integers,\n"
		"                         ms for decimals)\n"
		"  --window N             blkparse text: reorder window in events (1 = input order)\n"
		"  --columns SPEC         text request lists: which column holds what, e.g.\n"
		"                         time=1:us,op=2,offset=3:sector,size=4:sector,sep=ws\n"
		"  --columns keys         time op offset size (required), dev[:devt] response comm pid\n"
		"                         tid uid, sep=comma|semicolon|tab|ws, skip=N, read=X,write=Y\n"
		"  --from T, --until T    only the records from T to T after the first (10s, 250ms),\n"
		"                         or @T on the recording's clock (@5218130s)\n"
		"  --segment N            only capture segment N (1 = the first): the trace is cut\n"
		"                         where consecutive records lie more than --max-gap (default\n"
		"                         an hour) apart, either way; --from/--until count from its\n"
		"                         start (convert's --to names the output format, so the\n"
		"                         window's end is --until everywhere)\n"
		"  --comm REGEX, --pid N, --app PACKAGE\n"
		"                         keep only the requests queued by these processes (with\n"
		"                         their D and C, whichever task those name); repeatable, any\n"
		"                         match keeps a request\n"
		"  --max-gap T            a gap between consecutive records longer than T (10s) is\n"
		"                         compressed to T (later times move back), or with\n"
		"  --gap cut              ends the trace there (default --gap compress)\n"
		"  --fg RULE              stat: foreground by comm=REGEX, pid=N, uid=N, app=PACKAGE, or\n"
		"                         recorded\n"
		"                         (Perfetto's oom_score_adj 0: the top app); repeatable, any\n"
		"                         rule matching makes a request foreground\n"
		"  --strict               refuse a cut last record, a missing CPU file and what the\n"
		"                         readers otherwise skip with a warning (as blkparse does)\n"
		"  -o, --out FILE         write here (atomically) instead of stdout\n");
}

static int open_reader(const char *path, const char *format, const struct trace_opts *opts,
		       struct trace_reader *r, struct sim_error *err)
{
	return trace_open_named(path, format, opts, r, err);
}

static void report_warnings(const struct trace_reader *r, const char *path)
{
	(void)trace_diag_print(&r->diag, path, stderr);
}

enum conv_to { CONV_NONE, CONV_BLKPARSE, CONV_MQSIM, CONV_BLKTRACE };

/* Per-CPU blktrace output: one writer and one results_out (an O_EXCL
 * temporary registered for removal on a signal) per CPU. */
#define CONV_MAX_CPUS 4096u
struct percpu_out {
	char base[4096];
	uint32_t ncpu;                         /* one past the highest CPU seen */
	struct results_out **o;
	struct trace_blktrace_writer **w;
};

static int percpu_open_cpu(struct percpu_out *p, uint32_t cpu, struct sim_error *err)
{
	if (cpu >= CONV_MAX_CPUS)
		return sim_errorf(err, SIM_E_INPUT, "cpu %u out of range for a per-CPU set (max %u)", cpu,
				  CONV_MAX_CPUS - 1);
	for (; p->ncpu <= cpu; p->ncpu++) {
		uint32_t c = p->ncpu;
		char name[4200];
		snprintf(name, sizeof(name), "%s.blktrace.%u", p->base, c);
		int rc = results_out_open(name, &p->o[c], err);
		if (!rc)
			rc = trace_blktrace_writer_create(results_out_file(p->o[c]), &p->w[c], err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Finish every writer; on success put every file in place (and remove
 * higher CPU files of an older set, which blkparse would merge in), else
 * remove every temporary. */
static int percpu_finish(struct percpu_out *p, int rc, struct sim_error *err)
{
	for (uint32_t c = 0; c < p->ncpu; c++) {
		if (!rc && p->w[c])
			rc = trace_blktrace_writer_finish(p->w[c], err);
		trace_blktrace_writer_destroy(p->w[c]);
	}
	for (uint32_t c = 0; c < p->ncpu; c++) {
		if (!rc && p->o[c])
			rc = results_out_commit(p->o[c], err);
		else
			results_out_abort(p->o[c]);
	}
	if (!rc)
		for (uint32_t c = p->ncpu; c < CONV_MAX_CPUS; c++) {
			char name[4200];
			snprintf(name, sizeof(name), "%s.blktrace.%u", p->base, c);
			if (unlink(name) && errno == ENOENT)
				break;
		}
	free(p->o);
	free(p->w);
	return rc;
}

/* One pass over the trace into out (or the per-CPU set pc). */
/* A writer's write error does not know the file: name it. */
static int name_write_error(int rc, const char *outname, struct sim_error *err)
{
	if (rc == SIM_E_IO && outname) {
		char msg[SIM_ERRMSG_MAX];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		sim_errorf(err, rc, "%s: %.900s", outname, msg);
	}
	return rc;
}

static int convert_pass(const char *path, const char *format, const struct trace_opts *opts,
			enum conv_to to, FILE *out, struct percpu_out *pc, const char *outname,
			struct sim_error *err)
{
	struct trace_reader r;
	struct trace_blkparse_writer *w = NULL;
	struct trace_blktrace_writer *bw = NULL;
	struct trace_rec rec;
	int rc = open_reader(path, format, opts, &r, err);

	if (rc)
		return rc;
	if (to == CONV_BLKPARSE) {
		rc = trace_blkparse_writer_create(out, TRACE_BPW_NUMBER_SEQ, &w, err);
		if (rc)
			goto done;
		/* A per-CPU set read whole: label it as `blkparse -i NAME` does. */
		if (r.diag.set_base[0] && !r.diag.missing_files) {
			const char *b = strrchr(r.diag.set_base, '/');
			trace_blkparse_writer_set_input(w, b ? b + 1 : r.diag.set_base, r.diag.files);
		}
	}
	if (to == CONV_BLKTRACE && !pc) {
		rc = trace_blktrace_writer_create(out, &bw, err);
		if (rc)
			goto done;
	}
	if (to == CONV_MQSIM)
		fprintf(out, "# MQSim ASCII: arrival_ns devno lba size_sectors type(1=read,0=write)\n");
	while ((rc = trace_next(&r, &rec, err)) == 1) {
		rc = 0;
		if (w) {
			rc = name_write_error(trace_blkparse_writer_event(w, &rec, err), outname, err);
		} else if (bw) {
			rc = name_write_error(trace_blktrace_writer_event(bw, &rec, err), outname, err);
		} else if (pc) {
			rc = percpu_open_cpu(pc, rec.cpu, err);
			if (!rc)
				rc = trace_blktrace_writer_event(pc->w[rec.cpu], &rec, err);
		} else if (rec.action == TRACE_A_QUEUE && rec.nr_sectors &&
			   (rec.dir == TRACE_DIR_READ || rec.dir == TRACE_DIR_WRITE)) {
			fprintf(out, "%" PRId64 " %u %" PRIu64 " %u %d\n", rec.time_ns, rec.dev_major,
				rec.sector, rec.nr_sectors, rec.dir == TRACE_DIR_READ);
		}
		if (rc)
			goto done;
	}
	if (rc == 0 && w)
		rc = name_write_error(trace_blkparse_writer_finish(w, err), outname, err);
	if (rc == 0 && bw)
		rc = name_write_error(trace_blktrace_writer_finish(bw, err), outname, err);
	if (rc == 0 && out && (fflush(out) || ferror(out)))
		rc = sim_errorf(err, SIM_E_IO, "%s: write failed: %s", outname ? outname : "output",
				strerror(errno));
	if (rc == 0)
		report_warnings(&r, path);
done:
	trace_blkparse_writer_destroy(w);
	trace_blktrace_writer_destroy(bw);
	trace_close(&r);
	return rc;
}

/* Is outpath writable? Checked before reading a byte of the trace, so a
 * long conversion does not fail at its end. */
static int check_out(const char *outpath, struct sim_error *err)
{
	struct stat st;
	char dir[4096];

	if (stat(outpath, &st) == 0 && S_ISDIR(st.st_mode))
		return sim_errorf(err, SIM_E_INPUT, "%s: is a directory", outpath);
	snprintf(dir, sizeof(dir), "%s", outpath);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK))
		return sim_errorf(err, SIM_E_IO, "%s: cannot write in %s: %s", outpath, dir,
				  strerror(errno));
	return 0;
}

/* Copy a finished temporary stream to dst (stdout, a device, a FIFO). */
static int copy_out(FILE *tmp, FILE *dst, const char *name, struct sim_error *err)
{
	char buf[65536];
	size_t n;

	rewind(tmp);
	while ((n = fread(buf, 1, sizeof(buf), tmp)) > 0)
		if (fwrite(buf, 1, n, dst) != n)
			return sim_errorf(err, SIM_E_IO, "%s: write failed: %s", name, strerror(errno));
	if (ferror(tmp))
		return sim_errorf(err, SIM_E_IO, "temporary file: %s", strerror(errno));
	if (fflush(dst) || ferror(dst))
		return sim_errorf(err, SIM_E_IO, "%s: write failed: %s", name, strerror(errno));
	return 0;
}

static int do_convert(const char *path, const char *format, const struct trace_opts *opts,
		      enum conv_to to, const char *outpath, struct sim_error *err)
{
	if (!outpath)
		outpath = "-";
	int rc = strcmp(outpath, "-") ? check_out(outpath, err) : 0;
	if (rc)
		return rc;
	char base[4096];
	size_t l = strlen(outpath);
	const char *tag = strstr(outpath, ".blktrace.");
	if (to == CONV_BLKTRACE && tag && strspn(tag + 10, "0123456789") == strlen(tag + 10) &&
	    tag[10] && l < sizeof(base)) {
		struct percpu_out pc;
		memset(&pc, 0, sizeof(pc));
		snprintf(base, sizeof(base), "%.*s", (int)(tag - outpath), outpath);
		snprintf(pc.base, sizeof(pc.base), "%s", base);
		pc.o = calloc(CONV_MAX_CPUS, sizeof(*pc.o));
		pc.w = calloc(CONV_MAX_CPUS, sizeof(*pc.w));
		if (!pc.o || !pc.w)
			rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
		else
			rc = convert_pass(path, format, opts, to, NULL, &pc, outpath, err);
		/* A set always starts at CPU 0 (blkparse stops at a gap). */
		if (!rc && !pc.ncpu)
			rc = percpu_open_cpu(&pc, 0, err);
		return percpu_finish(&pc, rc, err);
	}
	/* results_out (sim/results.h): a regular file through an O_EXCL
	 * temporary renamed into place; stdout, a device or a FIFO directly */
	const char *outname = strcmp(outpath, "-") ? outpath : "stdout";
	struct results_out *o;
	rc = results_out_open(outpath, &o, err);
	if (rc)
		return rc;
	if (results_out_is_direct(o)) {
		/* Into an unnamed temporary file first: a bad trace writes
		 * nothing there, and the input (maybe a pipe) is read once. */
		FILE *tmp = tmpfile();
		if (!tmp) {
			results_out_abort(o);
			return sim_errorf(err, SIM_E_IO, "temporary file: %s", strerror(errno));
		}
		rc = convert_pass(path, format, opts, to, tmp, NULL, "temporary file", err);
		if (!rc)
			rc = copy_out(tmp, results_out_file(o), outname, err);
		fclose(tmp);
	} else {
		rc = convert_pass(path, format, opts, to, results_out_file(o), NULL, outname, err);
	}
	if (rc) {
		results_out_abort(o);
		return rc;
	}
	return results_out_commit(o, err);
}

/* A trace with D and C but no Q (a recording of block_rq_issue and
 * block_rq_complete only): each D stands in for its request's Q in a
 * second state, fed until the first Q appears; at the end, if none did,
 * its sizes, processes and D2C (its "Q2C") replace the empty ones. */
static void stat_d_feed(struct stat_state *ds, const struct trace_rec *r)
{
	if (r->action == TRACE_A_ISSUE) {
		struct trace_rec q = *r;
		q.action = TRACE_A_QUEUE;
		stat_add(ds, &q);
	} else if (r->action == TRACE_A_COMPLETE) {
		stat_add(ds, r);
	}
}

static void stat_from_d(struct stat_state *s, struct stat_state *ds)
{
	memcpy(s->sizes, ds->sizes, sizeof(s->sizes));
	struct pidstat *p = s->pids;
	s->pids = ds->pids;
	ds->pids = p;
	s->npids = ds->npids;
	s->other_pid_queued = ds->other_pid_queued;
	s->other_pid_bytes = ds->other_pid_bytes;
	s->fg_queued = ds->fg_queued;
	s->fg_bytes = ds->fg_bytes;
	s->bg_queued = ds->bg_queued;
	s->bg_bytes = ds->bg_bytes;
	s->unnamed_queued = ds->unnamed_queued;
	s->fg_known_queued = ds->fg_known_queued;
	memcpy(s->d2c, ds->q2c, sizeof(s->d2c));
	s->d2c_all = ds->q2c_all;
	s->evicted = ds->evicted;
	s->from_d = true;
}

static int do_stat(const char *path, const char *format, const struct trace_opts *opts,
		   const struct trace_fg *fg, struct sim_error *err)
{
	struct stat_state s;
	struct trace_reader r;
	struct trace_rec rec;
	int rc;

	if (stat_init(&s)) {
		stat_free(&s);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	s.fg = fg;
	rc = open_reader(path, format, opts, &r, err);
	if (rc) {
		stat_free(&s);
		return rc;
	}
	s.request_list = r.diag.request_list;
	/* A rule on what the trace does not record would match nothing and
	 * call every request background: say so instead. */
	char lacks[160];
	if (trace_identity_lacks(trace_fg_needs(fg), r.diag.identity, lacks, sizeof(lacks))) {
		rc = sim_errorf(err, SIM_E_INPUT, "%s: this %s trace records no %s%s, so --fg would call "
				"every request background", path, r.ops->name, lacks,
				trace_identity_hint(r.ops->name));
		trace_close(&r);
		stat_free(&s);
		return rc;
	}
	struct stat_state ds;
	bool dfeed = stat_init(&ds) == 0;
	ds.fg = fg;
	while ((rc = trace_next(&r, &rec, err)) == 1) {
		stat_add(&s, &rec);
		if (dfeed && rec.action == TRACE_A_QUEUE) {
			dfeed = false; /* the trace has Qs: btt's figures stand */
			stat_free(&ds);
		} else if (dfeed) {
			stat_d_feed(&ds, &rec);
		}
	}
	stat_flush(&s);
	if (dfeed)
		stat_flush(&ds);
	if (dfeed && ds.by_action[TRACE_A_QUEUE])
		stat_from_d(&s, &ds);
	if (dfeed)
		stat_free(&ds);
	if (rc == 0) {
		stat_print(stdout, path, r.ops->name, &s, &r);
		if (fflush(stdout) || ferror(stdout))
			rc = sim_errorf(err, SIM_E_IO, "stdout: %s", strerror(errno));
		if (r.ops->report) {
			fprintf(stdout, "\n# %s reader\n", r.ops->name);
			r.ops->report(r.state, stdout);
		}
		report_warnings(&r, path);
	}
	trace_close(&r);
	stat_free(&s);
	return rc;
}

int cmd_trace(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "disksim-time", required_argument, NULL, 'T' },
		{ "window", required_argument, NULL, 'w' },
		{ "fg", required_argument, NULL, 'F' },
		CLI_TRACE_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trace_opts opts = { 0 };
	struct cli_trace_options topt = { .opts = &opts };
	struct trace_fg *fg = NULL;
	struct sim_error err;
	const char *to = NULL, *out = NULL, *format = NULL;
	int c;

	sim_error_clear(&err);
	if (argc < 2) {
		trace_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		trace_usage(stdout);
		return 0;
	}
	const char *sub = argv[1];
	optind = 1;
	/* getopt over argv[1..]: the subcommand word is argv[0] of that. */
	while ((c = getopt_long(argc - 1, argv + 1, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't': to = optarg; break;
		case 'o': out = optarg; break;
		case 'f': format = optarg; break;
		case 'T':
			if (!strcmp(optarg, "ns"))
				opts.disksim_time = TRACE_DISKSIM_MQSIM_NS;
			else if (!strcmp(optarg, "ms"))
				opts.disksim_time = TRACE_DISKSIM_DISKSIM_MS;
			else if (!strcmp(optarg, "auto"))
				opts.disksim_time = TRACE_DISKSIM_AUTO;
			else {
				fprintf(stderr, "mobisim: --disksim-time: expected ns, ms or auto\n");
				return 2;
			}
			break;
		case 'w': {
			char *e;
			unsigned long v = strtoul(optarg, &e, 10);
			if (*e || !v || v > 65536) {
				fprintf(stderr, "mobisim: --window: expected 1..65536\n");
				return 2;
			}
			opts.blkparse_reorder_window = (uint32_t)v;
			break;
		}
		case 'F':
			if (trace_fg_add(&fg, optarg, &err))
				goto bad;
			break;
		case 'h':
			trace_usage(stdout);
			trace_fg_free(fg);
			trace_fg_free(topt.keep);
			return 0;
		default: {
			int t = cli_trace_option(&topt, c, optarg, &err);
			if (t < 0)
				goto bad;
			if (t == 0) {
				trace_usage(stderr);
				goto usage;
			}
			break;
		}
		}
	}
	char cmd[32];
	snprintf(cmd, sizeof(cmd), "trace %.20s", sub);
	if (cli_trace_options_check(&topt, cmd, &err))
		goto bad;
	int first = optind + 1;
	if (first != argc - 1) {
		fprintf(stderr, "mobisim: trace %s: expected one FILE\n", sub);
		trace_usage(stderr);
		goto usage;
	}
	const char *path = argv[first];
	int rc;
	if (opts.columns && !format)
		format = "csv";
	if (!strcmp(sub, "stat")) {
		if (to || out) {
			fprintf(stderr, "mobisim: trace stat: --to and -o belong to trace convert\n");
			goto usage;
		}
		rc = do_stat(path, format, &opts, fg, &err);
	} else if (!strcmp(sub, "convert")) {
		enum conv_to ct;
		if (fg) {
			fprintf(stderr, "mobisim: trace convert: --fg belongs to trace stat (a converted "
					"trace keeps every process)\n");
			goto usage;
		}
		if (!to) {
			fprintf(stderr, "mobisim: trace convert: --to blkparse|blktrace|mqsim is required\n");
			goto usage;
		}
		if (!strcmp(to, "blkparse"))
			ct = CONV_BLKPARSE;
		else if (!strcmp(to, "mqsim"))
			ct = CONV_MQSIM;
		else if (!strcmp(to, "blktrace"))
			ct = CONV_BLKTRACE;
		else if (!strcmp(to, "ops")) {
			fprintf(stderr, "mobisim: trace convert: --to ops was removed (no reader took it); "
					"use --to mqsim, which mobisim, MQSim and SSDSim read\n");
			goto usage;
		} else {
			fprintf(stderr, "mobisim: trace convert: --to: expected blkparse, blktrace or mqsim\n");
			goto usage;
		}
		rc = do_convert(path, format, &opts, ct, out, &err);
	} else {
		fprintf(stderr, "mobisim: trace: unknown subcommand '%s' (stat, convert)\n", sub);
		trace_usage(stderr);
		goto usage;
	}
	trace_fg_free(fg);
	trace_fg_free(topt.keep);
	if (rc)
		return cli_report(&err);
	return 0;
bad:
	trace_fg_free(fg);
	trace_fg_free(topt.keep);
	return cli_report(&err);
usage:
	trace_fg_free(fg);
	trace_fg_free(topt.keep);
	return 2;
}
