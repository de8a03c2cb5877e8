/* `mobisim trace stat|convert FILE`: look at a recorded block trace.
 *
 * stat: the format detected from the content, events by action, request
 *   sizes (Q events) per direction in power-of-two KiB buckets, per-process
 *   counts (Q events), and btt-style Q2C / D2C per direction with btt's
 *   MIN / AVG / MAX / N columns (seconds, as btt's "All Devices" table).
 *   I/Os are matched by (device, start sector); merges move the first
 *   queue time to the request's start as btt does. The match table is
 *   fixed (STAT_TRACK_MAX outstanding I/Os); I/Os beyond it are counted
 *   as untracked, so memory does not grow with the trace.
 * convert --to blkparse: the events as Debian's blkparse 1.2.0 prints them
 *   (traces/blkparse_writer.c); --to ops: one line per queued I/O,
 *   "time_ns pid R|W sector nr_sectors sync" (sync 1/0, REQ_SYNC or read);
 *   discards and data-less records are left out; --to blktrace: a combined
 *   binary stream (traces/blktrace_writer.c) that btt and blkparse read.
 *
 * Output files are written to a temporary name in the same directory and
 * renamed at the end; when writing to stdout the input is read twice, the
 * first time only to find errors, so a bad trace prints nothing but the
 * message. Errors: "mobisim: FILE:LINE: ..." or "mobisim: FILE: byte
 * offset N: ...", exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/block/request.h"
#include "sim/cli/cli.h"
#include "sim/error.h"
#include "traces/trace.h"

#define STAT_TRACK_BITS 16
#define STAT_TRACK_MAX (1u << STAT_TRACK_BITS)
#define STAT_PIDS_MAX 1024u
#define STAT_SIZE_BUCKETS 13 /* <=0.5, 1, 2, ... 1024, >1024 KiB */

struct lat {
	uint64_t n;
	int64_t min, max;
	__int128 sum;
};

struct track {
	uint64_t key_sector;
	uint32_t dev;
	int64_t q_time, d_time;     /* -1 when not seen */
	uint32_t next;              /* chain; UINT32_MAX = end */
	bool used;
};

struct pidstat {
	int32_t pid;
	char comm[17];
	uint64_t queued, bytes;
};

struct stat_state {
	uint64_t events, by_action[TRACE_A_NR_BLOCK], messages;
	uint64_t sizes[2][STAT_SIZE_BUCKETS];
	struct pidstat *pids;
	uint32_t npids;
	uint64_t other_pid_queued, other_pid_bytes;
	struct lat q2c[2], d2c[2];
	uint64_t untracked;
	int64_t first_ns, last_ns;
	/* match table */
	uint32_t *heads;
	struct track *nodes;
	uint32_t free_head, nfree;
};

static void lat_add(struct lat *l, int64_t v)
{
	if (v < 0)
		return;
	if (!l->n || v < l->min)
		l->min = v;
	if (!l->n || v > l->max)
		l->max = v;
	l->sum += v;
	l->n++;
}

static uint32_t track_hash(uint32_t dev, uint64_t sector)
{
	uint64_t h = (sector ^ ((uint64_t)dev << 40)) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> (64 - STAT_TRACK_BITS));
}

static struct track *track_find(struct stat_state *s, uint32_t dev, uint64_t sector, uint32_t **link)
{
	uint32_t *l = &s->heads[track_hash(dev, sector)];
	while (*l != UINT32_MAX) {
		struct track *t = &s->nodes[*l];
		if (t->dev == dev && t->key_sector == sector) {
			if (link)
				*link = l;
			return t;
		}
		l = &t->next;
	}
	return NULL;
}

static struct track *track_get(struct stat_state *s, uint32_t dev, uint64_t sector)
{
	struct track *t = track_find(s, dev, sector, NULL);
	if (t)
		return t;
	if (!s->nfree) {
		s->untracked++;
		return NULL;
	}
	uint32_t i = s->free_head;
	t = &s->nodes[i];
	s->free_head = t->next;
	s->nfree--;
	uint32_t *h = &s->heads[track_hash(dev, sector)];
	t->dev = dev;
	t->key_sector = sector;
	t->q_time = t->d_time = -1;
	t->used = true;
	t->next = *h;
	*h = i;
	return t;
}

static void track_del(struct stat_state *s, uint32_t dev, uint64_t sector)
{
	uint32_t *link;
	struct track *t = track_find(s, dev, sector, &link);
	if (!t)
		return;
	uint32_t i = *link;
	*link = t->next;
	t->used = false;
	t->next = s->free_head;
	s->free_head = i;
	s->nfree++;
}

static int stat_init(struct stat_state *s)
{
	memset(s, 0, sizeof(*s));
	s->heads = malloc(STAT_TRACK_MAX * sizeof(*s->heads));
	s->nodes = calloc(STAT_TRACK_MAX, sizeof(*s->nodes));
	s->pids = calloc(STAT_PIDS_MAX, sizeof(*s->pids));
	if (!s->heads || !s->nodes || !s->pids)
		return SIM_E_NOMEM;
	for (uint32_t i = 0; i < STAT_TRACK_MAX; i++) {
		s->heads[i] = UINT32_MAX;
		s->nodes[i].next = i + 1 < STAT_TRACK_MAX ? i + 1 : UINT32_MAX;
	}
	s->free_head = 0;
	s->nfree = STAT_TRACK_MAX;
	return 0;
}

static void stat_free(struct stat_state *s)
{
	free(s->heads);
	free(s->nodes);
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
	s->pids[lo].bytes = r->bytes;
	if (r->comm)
		snprintf(s->pids[lo].comm, sizeof(s->pids[lo].comm), "%s", r->comm);
	s->npids++;
}

static void stat_add(struct stat_state *s, const struct trace_rec *r)
{
	uint32_t dev = r->dev_major << 20 | (r->dev_minor & 0xfffff);
	int w = (r->flags & REQ_WRITE) != 0;

	if (!s->events)
		s->first_ns = r->time_ns;
	s->events++;
	s->last_ns = r->time_ns;
	if (r->action == TRACE_A_MESSAGE) {
		s->messages++;
		return;
	}
	if (r->action < TRACE_A_NR_BLOCK)
		s->by_action[r->action]++;
	if (r->tflags & TRACE_T_PC)
		return;
	struct track *t;
	switch (r->action) {
	case TRACE_A_QUEUE:
		if (r->dir == TRACE_DIR_READ || r->dir == TRACE_DIR_WRITE || r->dir == TRACE_DIR_DISCARD)
			s->sizes[w][size_bucket(r->bytes)]++;
		stat_pid(s, r);
		t = track_get(s, dev, r->sector);
		if (t)
			t->q_time = r->time_ns;
		break;
	case TRACE_A_BACKMERGE:
		/* The bio joined a request that started earlier: its own Q entry goes. */
		track_del(s, dev, r->sector);
		break;
	case TRACE_A_FRONTMERGE: {
		/* The request now starts at this bio; keep the older queue time. */
		struct track *old = track_find(s, dev, r->sector + r->nr_sectors, NULL);
		int64_t q = old ? old->q_time : -1;
		if (old)
			track_del(s, dev, r->sector + r->nr_sectors);
		t = track_find(s, dev, r->sector, NULL);
		if (t && q >= 0 && (t->q_time < 0 || q < t->q_time))
			t->q_time = q;
		break;
	}
	case TRACE_A_ISSUE:
		t = track_get(s, dev, r->sector);
		if (t)
			t->d_time = r->time_ns;
		break;
	case TRACE_A_COMPLETE:
		t = track_find(s, dev, r->sector, NULL);
		if (t) {
			if (t->q_time >= 0)
				lat_add(&s->q2c[w], r->time_ns - t->q_time);
			if (t->d_time >= 0)
				lat_add(&s->d2c[w], r->time_ns - t->d_time);
			track_del(s, dev, r->sector);
		}
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
	double avg = (double)l->sum / (double)l->n;
	fprintf(o, "%-15s %13.9f %13.9f %13.9f %11" PRIu64 "\n", name, (double)l->min / 1e9, avg / 1e9,
		(double)l->max / 1e9, l->n);
}

static struct lat lat_sum(const struct lat *a, const struct lat *b)
{
	struct lat r = *a;
	if (b->n) {
		if (!r.n || b->min < r.min)
			r.min = b->min;
		if (!r.n || b->max > r.max)
			r.max = b->max;
		r.n += b->n;
		r.sum += b->sum;
	}
	return r;
}

static void stat_print(FILE *o, const char *path, const char *format, const struct stat_state *s)
{
	static const char *const names[TRACE_A_NR_BLOCK] = {
		[TRACE_A_NONE] = "unknown", [TRACE_A_QUEUE] = "queue", [TRACE_A_BACKMERGE] = "backmerge",
		[TRACE_A_FRONTMERGE] = "frontmerge", [TRACE_A_GETRQ] = "getrq",
		[TRACE_A_SLEEPRQ] = "sleeprq", [TRACE_A_REQUEUE] = "requeue", [TRACE_A_ISSUE] = "issue",
		[TRACE_A_COMPLETE] = "complete", [TRACE_A_PLUG] = "plug", [TRACE_A_UNPLUG_IO] = "unplug",
		[TRACE_A_UNPLUG_TIMER] = "unplug_timer", [TRACE_A_INSERT] = "insert",
		[TRACE_A_SPLIT] = "split", [TRACE_A_BOUNCE] = "bounce", [TRACE_A_REMAP] = "remap",
		[TRACE_A_ABORT] = "abort", [TRACE_A_DRV_DATA] = "drv_data",
	};

	fprintf(o, "file:     %s\nformat:   %s\nevents:   %" PRIu64 "\nduration: %.9f s\n\n", path, format,
		s->events, s->events ? (double)(s->last_ns - s->first_ns) / 1e9 : 0.0);
	fprintf(o, "# events by action\n");
	for (unsigned a = 0; a < TRACE_A_NR_BLOCK; a++)
		if (s->by_action[a])
			fprintf(o, "%-3s %-13s %12" PRIu64 "\n",
				a == TRACE_A_UNPLUG_TIMER ? "UT" : (char[2]){ trace_action_letter((uint16_t)a), 0 },
				names[a], s->by_action[a]);
	if (s->messages)
		fprintf(o, "%-3s %-13s %12" PRIu64 "\n", "m", "message", s->messages);

	fprintf(o, "\n# request sizes (Q events)\n%-12s %12s %12s\n", "size_kib<=", "reads", "writes");
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

	fprintf(o, "\n# per process (Q events)\n%-8s %-16s %12s %14s\n", "pid", "comm", "queued", "kib");
	for (uint32_t i = 0; i < s->npids; i++)
		fprintf(o, "%-8d %-16s %12" PRIu64 " %14" PRIu64 "\n", s->pids[i].pid,
			s->pids[i].comm[0] ? s->pids[i].comm : "-", s->pids[i].queued,
			s->pids[i].bytes >> 10);
	if (s->other_pid_queued)
		fprintf(o, "%-8s %-16s %12" PRIu64 " %14" PRIu64 "\n", "other", "-", s->other_pid_queued,
			s->other_pid_bytes >> 10);

	struct lat q2c = lat_sum(&s->q2c[0], &s->q2c[1]), d2c = lat_sum(&s->d2c[0], &s->d2c[1]);
	fprintf(o, "\n# btt-style latencies (seconds)\n");
	fprintf(o, "%-15s %13s %13s %13s %11s\n", "ALL", "MIN", "AVG", "MAX", "N");
	fprintf(o, "--------------- ------------- ------------- ------------- -----------\n");
	print_lat(o, "Q2C", &q2c);
	print_lat(o, "Q2C read", &s->q2c[0]);
	print_lat(o, "Q2C write", &s->q2c[1]);
	print_lat(o, "D2C", &d2c);
	print_lat(o, "D2C read", &s->d2c[0]);
	print_lat(o, "D2C write", &s->d2c[1]);
	if (s->untracked)
		fprintf(o, "untracked I/Os (more than %u outstanding): %" PRIu64 "\n", STAT_TRACK_MAX,
			s->untracked);
}

/* ---- command ---------------------------------------------------------- */

static void trace_usage(FILE *f)
{
	fprintf(f,
		"usage: mobisim trace stat FILE [options]\n"
		"       mobisim trace convert FILE --to blkparse|ops|blktrace [-o OUT] [options]\n"
		"  FILE may be a blktrace file, the base NAME of a per-CPU set NAME.blktrace.N,\n"
		"  blkparse text or DiskSim/MQSim ASCII; the format is detected from the content.\n"
		"  --format NAME          force a reader (blktrace, blkparse, disksim)\n"
		"  --disksim-time ns|ms   DiskSim/MQSim time unit (default: ns for integers,\n"
		"                         ms for decimals)\n"
		"  --window N             blkparse text: reorder window in events (1 = input order)\n"
		"  -o, --out FILE         write here (atomically) instead of stdout\n");
}

static int open_reader(const char *path, const char *format, const struct trace_opts *opts,
		       struct trace_reader *r, struct sim_error *err)
{
	if (!format)
		return trace_open_auto(path, opts, r, err);
	const struct trace_reader_ops *ops = trace_reader_find(format);
	if (!ops)
		return sim_errorf(err, SIM_E_INPUT, "unknown trace format '%s'", format);
	r->ops = ops;
	r->state = NULL;
	int rc = ops->open(path, opts, &r->state, err);
	if (rc)
		r->ops = NULL;
	return rc;
}

enum conv_to { CONV_NONE, CONV_BLKPARSE, CONV_OPS, CONV_BLKTRACE };

/* One pass over the trace; out NULL = validate only. */
static int convert_pass(const char *path, const char *format, const struct trace_opts *opts,
			enum conv_to to, FILE *out, struct sim_error *err)
{
	struct trace_reader r;
	struct trace_blkparse_writer *w = NULL;
	struct trace_blktrace_writer *bw = NULL;
	struct trace_rec rec;
	int rc = open_reader(path, format, opts, &r, err);

	if (rc)
		return rc;
	if (to == CONV_BLKPARSE && out) {
		rc = trace_blkparse_writer_create(out, TRACE_BPW_NUMBER_SEQ, &w, err);
		if (rc)
			goto done;
	}
	if (to == CONV_BLKTRACE && out) {
		rc = trace_blktrace_writer_create(out, &bw, err);
		if (rc)
			goto done;
	}
	if (to == CONV_OPS && out)
		fprintf(out, "# time_ns pid dir sector nr_sectors sync\n");
	while ((rc = trace_next(&r, &rec, err)) == 1) {
		if (!out)
			continue;
		if (w || bw) {
			rc = w ? trace_blkparse_writer_event(w, &rec, err)
			       : trace_blktrace_writer_event(bw, &rec, err);
			if (rc)
				goto done;
		} else if (rec.action == TRACE_A_QUEUE && rec.nr_sectors &&
			   (rec.dir == TRACE_DIR_READ || rec.dir == TRACE_DIR_WRITE)) {
			bool wr = rec.dir == TRACE_DIR_WRITE;
			fprintf(out, "%" PRId64 " %d %c %" PRIu64 " %u %d\n", rec.time_ns, rec.pid,
				wr ? 'W' : 'R', rec.sector, rec.nr_sectors, req_is_sync(rec.flags));
		}
	}
	if (rc == 0 && w)
		rc = trace_blkparse_writer_finish(w, err);
	if (rc == 0 && bw)
		rc = trace_blktrace_writer_finish(bw, err);
	if (rc == 0 && out && (fflush(out) || ferror(out)))
		rc = sim_errorf(err, SIM_E_IO, "write error: %s", strerror(errno));
done:
	trace_blkparse_writer_destroy(w);
	trace_blktrace_writer_destroy(bw);
	trace_close(&r);
	return rc;
}

static int do_convert(const char *path, const char *format, const struct trace_opts *opts,
		      enum conv_to to, const char *outpath, struct sim_error *err)
{
	if (!outpath || !strcmp(outpath, "-")) {
		int rc = convert_pass(path, format, opts, to, NULL, err);
		if (rc)
			return rc;
		return convert_pass(path, format, opts, to, stdout, err);
	}
	size_t l = strlen(outpath);
	char *tmp = malloc(l + 16);
	if (!tmp)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	snprintf(tmp, l + 16, "%s.tmp.XXXXXX", outpath);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int rc = sim_errorf(err, SIM_E_IO, "%s: %s", outpath, strerror(errno));
		free(tmp);
		return rc;
	}
	/* mkstemp makes the file 0600; results are ordinary files. */
	(void)fchmod(fd, 0644);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		free(tmp);
		return sim_errorf(err, SIM_E_IO, "%s: %s", outpath, strerror(errno));
	}
	int rc = convert_pass(path, format, opts, to, f, err);
	if (fclose(f) && !rc)
		rc = sim_errorf(err, SIM_E_IO, "%s: %s", outpath, strerror(errno));
	if (!rc && rename(tmp, outpath))
		rc = sim_errorf(err, SIM_E_IO, "%s: %s", outpath, strerror(errno));
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

static int do_stat(const char *path, const char *format, const struct trace_opts *opts,
		   struct sim_error *err)
{
	struct stat_state s;
	struct trace_reader r;
	struct trace_rec rec;
	int rc;

	if (stat_init(&s)) {
		stat_free(&s);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	rc = open_reader(path, format, opts, &r, err);
	if (rc) {
		stat_free(&s);
		return rc;
	}
	while ((rc = trace_next(&r, &rec, err)) == 1)
		stat_add(&s, &rec);
	if (rc == 0)
		stat_print(stdout, path, r.ops->name, &s);
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trace_opts opts = { 0 };
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
		case 'h':
			trace_usage(stdout);
			return 0;
		default:
			trace_usage(stderr);
			return 2;
		}
	}
	int first = optind + 1;
	if (first != argc - 1) {
		fprintf(stderr, "mobisim: trace %s: expected one FILE\n", sub);
		trace_usage(stderr);
		return 2;
	}
	const char *path = argv[first];
	int rc;
	if (!strcmp(sub, "stat")) {
		if (to || out) {
			fprintf(stderr, "mobisim: trace stat: --to and -o belong to trace convert\n");
			return 2;
		}
		rc = do_stat(path, format, &opts, &err);
	} else if (!strcmp(sub, "convert")) {
		enum conv_to ct;
		if (!to) {
			fprintf(stderr, "mobisim: trace convert: --to blkparse|ops|blktrace is required\n");
			return 2;
		}
		if (!strcmp(to, "blkparse"))
			ct = CONV_BLKPARSE;
		else if (!strcmp(to, "ops"))
			ct = CONV_OPS;
		else if (!strcmp(to, "blktrace"))
			ct = CONV_BLKTRACE;
		else {
			fprintf(stderr, "mobisim: trace convert: --to: expected blkparse, ops or blktrace, not '%s'\n", to);
			return 2;
		}
		rc = do_convert(path, format, &opts, ct, out, &err);
	} else {
		fprintf(stderr, "mobisim: trace: unknown subcommand '%s' (stat, convert)\n", sub);
		trace_usage(stderr);
		return 2;
	}
	if (rc)
		return cli_report(&err);
	return 0;
}
