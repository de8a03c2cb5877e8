/* Hard disk drive: the mechanism and controller of Ruemmler & Wilkes, "An
 * introduction to disk drive modeling" (IEEE Computer 27(3), 1994), with the
 * HP 97560 of that paper as the default drive (docs/hdd.md).
 *
 *   seek      a + b*sqrt(d) below the boundary distance, c + e*d above it
 *             (d in cylinders), or the same curve fitted to a datasheet's
 *             track-to-track, average and full-stroke figures; a head
 *             switch inside a cylinder; a write after a seek adds a settle
 *   layout    cylinders x surfaces, zones of equal cylinder count whose
 *             sectors per track fall linearly from OD to ID (zoned bit
 *             recording); LBA 0 at the outer edge, a cylinder's tracks in
 *             surface order; each track starts skewed (track and cylinder
 *             skew) so that a sequential stream crosses to the next track
 *             without waiting a revolution
 *   rotation  the platter's angle is simulated time / revolution (phase 0 at
 *             t = 0): a command waits for its first sector to come under
 *             the head, nothing is drawn at random
 *   transfer  one sector per sector time of its zone; the host link (the
 *             core's `link:`) bounds the rate, and the last sector still has
 *             to cross it after the media read ends
 *   cache     `segments` read segments of cache_kib / segments, LRU; a read
 *             wholly in a segment is served from the buffer; after a media
 *             read the drive keeps reading ahead until the next command
 *             needs the mechanism, so a read that continues the stream is
 *             served as the stream passes it; writes go through to the
 *             media unless write_cache is on (then they are buffered up to
 *             the cache size and destaged when the mechanism has nothing
 *             else to do; FUA writes and flushes wait for the media)
 *   queueing  queue_depth commands accepted; the mechanism serves them one
 *             at a time, first come first served or shortest positioning
 *             time first (seek + rotational wait from where the head is),
 *             as NCQ / SCSI tagged queueing drives do
 * Left out: spare sectors and defect slipping, thermal recalibration, seek
 * distance direction, zone-dependent skew beyond the per-zone derivation,
 * SPTF aging (a request can starve under a steady stream elsewhere).
 */
#include "models/device/hdd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <jansson.h>

#include "models/device/device.h"
#include "sim/sim.h"

enum hdd_sched { HDD_FCFS, HDD_SPTF };
static const char *const hdd_sched_names[] = { "fcfs", "sptf", NULL };

struct hdd_zone {
	uint64_t lba0, c0, ncyl;
	uint32_t spt, tskew, cskew;
	double st;              /* sector time, ns */
};

struct hdd_seg {
	uint64_t start, end;    /* cached LBAs [start, end) */
	uint64_t stamp;         /* LRU */
	bool valid;
};

struct hdd_extent {
	uint64_t lba;
	uint32_t n;
};

/* Where the heads are: over (cyl, head), free from time t (ns). */
struct hdd_pos {
	uint64_t cyl;
	uint32_t head;
	double t;
};

struct hdd_dev {
	/* tunables */
	double rpm;
	int64_t cylinders, surfaces, zones, spt_outer, spt_inner;
	int64_t track_skew, cyl_skew;
	double seek_a_ms, seek_b_ms, seek_c_ms, seek_e_ms;
	int64_t seek_boundary;
	double t2t_ms, avg_ms, full_ms;
	int64_t head_switch_ns, write_settle_ns, overhead_ns, hit_overhead_ns;
	uint64_t cache_bytes;
	int64_t segments;
	bool readahead;
	uint64_t readahead_bytes;
	bool write_cache;
	int64_t queue_depth;
	int scheduler;

	/* derived */
	struct hdd_zone *zone;
	size_t nzones;
	uint64_t total_sectors;
	double rev_ns;
	double a, b, c, e;      /* seek curve, ns and ns per sqrt(cyl) / per cyl */
	uint64_t boundary;
	double avg_seek_ns;     /* the datasheet average (weighted over all seek pairs) */
	uint64_t seg_sectors, ra_max, wbuf_sectors;

	/* state */
	struct device *dev;         /* back to the core's device, for the mechanism's event */
	struct list_head queue;
	uint32_t nqueued, flush_waiting;
	struct hdd_pos pos;
	bool busy;
	struct sim_event mech_ev;
	struct io_request *op_rq;   /* NULL: a destage */
	bool op_read, op_stream;
	uint64_t op_start_lba, op_end_lba;
	struct hdd_pos op_end_pos;
	bool ra;                    /* reading ahead */
	uint64_t ra_lba0, ra_limit; /* next LBA of the stream, where it stops */
	struct hdd_pos ra_pos0;     /* the heads just after reading ra_lba0 - 1 */
	int ra_seg;
	struct hdd_seg *seg;
	uint64_t stamp;
	struct hdd_extent *dirty;
	size_t ndirty, dirty_cap;
	uint64_t dirty_sectors;

	/* counters */
	uint64_t hits, stream_hits, media_reads, media_writes, buffered, destages;
	uint64_t seeks, seek_cyl_sum;
	double seek_ns_sum, rot_ns_sum;
	uint64_t positioned;
};

#define HDD_OFF(f) offsetof(struct hdd_dev, f)

/* Defaults: the HP 97560 of Ruemmler & Wilkes 1994 (R&W), Table 1 and the
 * seek curve; the drive's product description (HP 5960-0116, 1991) for what
 * the paper does not give. "assumed" marks a value with no published figure. */
static const struct cfg_param hdd_params[] = {
	{ "rpm", CFG_T_DOUBLE, HDD_OFF(rpm), "rpm", "4002", 1000, 20000,
	  "R&W 1994 Table 1 (HP 97560: 4002 rpm)", "spindle speed", NULL },
	{ "cylinders", CFG_T_INT, HDD_OFF(cylinders), "", "1962", 1, 10000000,
	  "R&W 1994 Table 1 (HP 97560: 1962)", "cylinders", NULL },
	{ "surfaces", CFG_T_INT, HDD_OFF(surfaces), "", "19", 1, 64,
	  "R&W 1994 Table 1 (HP 97560: 19 data surfaces = tracks per cylinder)",
	  "recording surfaces (heads)", NULL },
	{ "zones", CFG_T_INT, HDD_OFF(zones), "", "1", 1, 256,
	  "R&W 1994 Table 1 (HP 97560: 1 zone)",
	  "recording zones of equal cylinder count, OD first", NULL },
	{ "spt_outer", CFG_T_INT, HDD_OFF(spt_outer), "sectors", "72", 1, 100000,
	  "R&W 1994 Table 1 (HP 97560: 72 data sectors per track)",
	  "sectors per track in the outermost zone", NULL },
	{ "spt_inner", CFG_T_INT, HDD_OFF(spt_inner), "sectors", "0", 0, 100000,
	  "0 = spt_outer (one zone); zones in between interpolated linearly",
	  "sectors per track in the innermost zone", NULL },
	{ "track_skew", CFG_T_INT, HDD_OFF(track_skew), "sectors", "8", 0, 100000,
	  "R&W 1994 Table 1 (HP 97560: 8); 0 = per zone, the fewest sectors that "
	  "cover head_switch", "offset of a track's first sector after a head switch", NULL },
	{ "cyl_skew", CFG_T_INT, HDD_OFF(cyl_skew), "sectors", "18", 0, 100000,
	  "R&W 1994 Table 1 (HP 97560: 18); 0 = per zone, the fewest sectors that "
	  "cover a one-cylinder seek plus the write settle", "offset of a cylinder's first sector", NULL },
	{ "seek_a_ms", CFG_T_DOUBLE, HDD_OFF(seek_a_ms), "ms", "3.24", 0, 1000,
	  "R&W 1994 (HP 97560 short seeks: 3.24 + 0.400 sqrt(d) ms); all four 0 = fit "
	  "to track_to_track_ms, avg_seek_ms, full_stroke_ms",
	  "short-seek constant a", NULL },
	{ "seek_b_ms", CFG_T_DOUBLE, HDD_OFF(seek_b_ms), "ms/sqrt(cyl)", "0.400", 0, 1000,
	  "R&W 1994 (HP 97560)", "short-seek coefficient b of sqrt(d)", NULL },
	{ "seek_c_ms", CFG_T_DOUBLE, HDD_OFF(seek_c_ms), "ms", "8.00", 0, 1000,
	  "R&W 1994 (HP 97560 long seeks: 8.00 + 0.008 d ms)", "long-seek constant c", NULL },
	{ "seek_e_ms", CFG_T_DOUBLE, HDD_OFF(seek_e_ms), "ms/cyl", "0.008", 0, 1000,
	  "R&W 1994 (HP 97560)", "long-seek coefficient e of d", NULL },
	{ "seek_boundary", CFG_T_INT, HDD_OFF(seek_boundary), "cylinders", "383", 0, 10000000,
	  "R&W 1994 (HP 97560: short below 383 cylinders); 0 = the same fraction "
	  "(383/1962) of the stroke", "distance where the long-seek line starts", NULL },
	{ "track_to_track_ms", CFG_T_DOUBLE, HDD_OFF(t2t_ms), "ms", "0", 0, 1000,
	  "datasheet; used only for the fit", "one-cylinder seek (fit input)", NULL },
	{ "avg_seek_ms", CFG_T_DOUBLE, HDD_OFF(avg_ms), "ms", "0", 0, 1000,
	  "datasheet: the weighted average over all seek pairs; used only for the fit",
	  "average seek (fit input)", NULL },
	{ "full_stroke_ms", CFG_T_DOUBLE, HDD_OFF(full_ms), "ms", "0", 0, 1000,
	  "datasheet; used only for the fit", "full-stroke seek (fit input)", NULL },
	{ "head_switch_ms", CFG_T_TIME, HDD_OFF(head_switch_ns), "ms", "1.6", 0, 100,
	  "derived: R&W's 8-sector track skew at 4002 rpm is 1.67 ms, which a drive "
	  "sets just above its head-switch time; 1.6 ms assumed inside that bound",
	  "head switch inside a cylinder", NULL },
	{ "write_settle_ms", CFG_T_TIME, HDD_OFF(write_settle_ns), "ms", "0", 0, 100,
	  "assumed: R&W give no HP 97560 figure; 0-1 ms on drives of the time",
	  "extra settle before a write after a seek (not after a head switch)", NULL },
	{ "overhead_us", CFG_T_TIME, HDD_OFF(overhead_ns), "us", "1000", 0, 100000,
	  "assumed: R&W give none in the text we hold; SCSI-2 controllers of 1991 "
	  "took 0.3-2.2 ms per command", "controller overhead of a command that goes to the media", NULL },
	{ "hit_overhead_us", CFG_T_TIME, HDD_OFF(hit_overhead_ns), "us", "1000", 0, 100000,
	  "assumed = overhead_us (no separate figure for the HP 97560)",
	  "controller overhead of a command served from the buffer", NULL },
	{ "cache_kib", CFG_T_SIZE, HDD_OFF(cache_bytes), "KiB", "128", 0, 16777216,
	  "assumed: the product description leaves the buffer size blank; 64-256 KiB "
	  "on SCSI drives of 1991", "buffer (read segments and write buffer)", NULL },
	{ "segments", CFG_T_INT, HDD_OFF(segments), "", "2", 1, 256,
	  "assumed: 1-4 segments on drives of the time", "read segments in the buffer", NULL },
	{ "readahead", CFG_T_BOOL, HDD_OFF(readahead), "", "true", CFG_NO_RANGE,
	  "R&W 1994: the HP 97560 reads ahead after a read", "read ahead after a media read", NULL },
	{ "readahead_kib", CFG_T_SIZE, HDD_OFF(readahead_bytes), "KiB", "0", 0, 16777216,
	  "0 = until the segment is full", "read-ahead beyond a read's end", NULL },
	{ "write_cache", CFG_T_BOOL, HDD_OFF(write_cache), "", "false", CFG_NO_RANGE,
	  "write-through: immediate reporting off, as the drive was measured in R&W "
	  "(assumed; the safe policy)", "acknowledge writes from the buffer", NULL },
	{ "queue_depth", CFG_T_INT, HDD_OFF(queue_depth), "", "1", 1, 256,
	  "R&W's HP 97560 served one command at a time; NCQ: 32",
	  "commands the drive accepts", NULL },
	{ "scheduler", CFG_T_ENUM, HDD_OFF(scheduler), "", "sptf", CFG_NO_RANGE,
	  "Seltzer, Chen, Ousterhout 1990 / Worthington, Ganger, Patt 1994: SPTF, "
	  "what queueing drives do; only matters at queue_depth > 1",
	  "order of queued commands", hdd_sched_names },
	CFG_PARAM_END,
};

/* ------------------------------------------------------------- geometry */

static const struct hdd_zone *zone_of(const struct hdd_dev *d, uint64_t lba)
{
	size_t lo = 0, hi = d->nzones;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (d->zone[mid].lba0 <= lba)
			lo = mid;
		else
			hi = mid;
	}
	return &d->zone[lo];
}

/* Physical place of lba: track (cyl, head), index on the track, and the
 * angular slot its start passes under the head. */
static void locate(const struct hdd_dev *d, uint64_t lba, const struct hdd_zone **zp,
		   uint64_t *cyl, uint32_t *head, uint32_t *k, uint32_t *slot)
{
	const struct hdd_zone *z = zone_of(d, lba);
	uint64_t off = lba - z->lba0;
	uint64_t track = off / z->spt;
	*k = (uint32_t)(off % z->spt);
	*cyl = z->c0 + track / (uint64_t)d->surfaces;
	*head = (uint32_t)(track % (uint64_t)d->surfaces);
	/* tracks before this one since cylinder 0: head switches and cylinder switches */
	uint64_t heads = *cyl * (uint64_t)(d->surfaces - 1) + *head;
	uint64_t skew = (heads % z->spt) * z->tskew + (*cyl % z->spt) * z->cskew;
	*slot = (uint32_t)((*k + skew) % z->spt);
	*zp = z;
}

static double seek_raw(const struct hdd_dev *d, uint64_t dist)
{
	if (dist == 0)
		return 0;
	if (dist < d->boundary)
		return d->a + d->b * sqrt((double)dist);
	return d->c + d->e * (double)dist;
}

/* Earliest time >= t at which slot of a track of spt slots starts under the head. */
static double slot_time(const struct hdd_dev *d, const struct hdd_zone *z, uint32_t slot, double t)
{
	double phase = fmod(t, d->rev_ns);
	double w = (double)slot * z->st - phase;
	/* a stream that ends one sector and starts the next lands here with w
	 * a rounding error below 0: that is no lost revolution */
	if (w < -1e-3 * z->st)
		w += d->rev_ns;
	return t + (w > 0 ? w : 0);
}

/* Move the heads from p to lba's track, ready at p->t; returns when lba's
 * first sector starts under the head (p is left at the target track). */
static double position(struct hdd_dev *d, struct hdd_pos *p, uint64_t lba, bool write,
		       double *seek_out)
{
	const struct hdd_zone *z;
	uint64_t cyl;
	uint32_t head, k, slot;
	locate(d, lba, &z, &cyl, &head, &k, &slot);
	double t = p->t, s = 0;
	uint64_t dist = cyl > p->cyl ? cyl - p->cyl : p->cyl - cyl;
	if (dist)
		s = seek_raw(d, dist) + (write ? (double)d->write_settle_ns : 0);
	else if (head != p->head)
		s = (double)d->head_switch_ns; /* the same servo track, no extra settle */
	if (seek_out)
		*seek_out = s;
	t += s;
	p->cyl = cyl;
	p->head = head;
	return slot_time(d, z, slot, t);
}

/* Read or write n sectors from lba with the heads at p (free at p->t),
 * track by track; stop early at the last whole sector done by t_limit
 * (< 0: no limit). p is left after the last sector done; returns the
 * sectors done. */
static uint64_t walk(struct hdd_dev *d, struct hdd_pos *p, uint64_t lba, uint64_t n, bool write,
		     double t_limit)
{
	uint64_t done = 0;
	while (done < n) {
		const struct hdd_zone *z = zone_of(d, lba);
		uint32_t k = (uint32_t)((lba - z->lba0) % z->spt);
		struct hdd_pos q = *p;
		double ts = position(d, &q, lba, write, NULL);
		uint64_t chunk = z->spt - k;
		if (chunk > n - done)
			chunk = n - done;
		if (t_limit >= 0 && ts + (double)chunk * z->st > t_limit) {
			double m = t_limit > ts ? floor((t_limit - ts) / z->st) : 0;
			uint64_t mm = (uint64_t)m;
			if (mm) {
				*p = q;
				p->t = ts + (double)mm * z->st;
			}
			return done + mm;
		}
		*p = q;
		p->t = ts + (double)chunk * z->st;
		lba += chunk;
		done += chunk;
	}
	return done;
}

/* ---------------------------------------------------------------- cache */

static int seg_new(struct hdd_dev *d, uint64_t start, uint64_t end)
{
	int best = 0;
	for (int i = 0; i < (int)d->segments; i++) {
		if (!d->seg[i].valid) {
			best = i;
			break;
		}
		if (d->seg[i].stamp < d->seg[best].stamp)
			best = i;
	}
	if (d->ra && best == d->ra_seg)
		d->ra = false; /* the caller stopped the stream already; keep it honest */
	d->seg[best] = (struct hdd_seg){ start, end, ++d->stamp, true };
	return best;
}

/* How far the read-ahead stream has read by now. */
static uint64_t ra_end_at(struct hdd_dev *d, double now)
{
	if (!d->ra)
		return 0;
	uint64_t n = d->ra_limit > d->ra_lba0 ? d->ra_limit - d->ra_lba0 : 0;
	struct hdd_pos p = d->ra_pos0;
	return d->ra_lba0 + walk(d, &p, d->ra_lba0, n, false, now);
}

static void seg_bounds(struct hdd_dev *d, int i, double now, uint64_t *s, uint64_t *e)
{
	*e = d->seg[i].end;
	if (d->ra && i == d->ra_seg) {
		uint64_t r = ra_end_at(d, now);
		if (r > *e)
			*e = r;
	}
	*s = d->seg[i].start;
	if (*e - *s > d->seg_sectors)
		*s = *e - d->seg_sectors;
}

static bool cache_hit(struct hdd_dev *d, uint64_t s, uint64_t e, double now)
{
	for (int i = 0; i < (int)d->segments; i++) {
		if (!d->seg[i].valid)
			continue;
		uint64_t a, b;
		seg_bounds(d, i, now, &a, &b);
		if (s >= a && e <= b) {
			d->seg[i].stamp = ++d->stamp;
			return true;
		}
	}
	return false;
}

/* Stop reading ahead at now: what was read stays in the segment, the heads
 * stay on the track of the last sector read. */
static void ra_stop(struct hdd_dev *d, double now)
{
	if (!d->ra)
		return;
	uint64_t n = d->ra_limit > d->ra_lba0 ? d->ra_limit - d->ra_lba0 : 0;
	struct hdd_pos p = d->ra_pos0;
	uint64_t got = walk(d, &p, d->ra_lba0, n, false, now);
	if (d->seg[d->ra_seg].end < d->ra_lba0 + got)
		d->seg[d->ra_seg].end = d->ra_lba0 + got;
	d->pos = p;
	if (d->pos.t < now)
		d->pos.t = now;
	d->ra = false;
}

/* A read the stream will reach: its start is in the segment or ahead of it
 * within the read-ahead window. */
static bool in_stream(struct hdd_dev *d, const struct io_request *rq, double now)
{
	if (!d->ra || req_is_write(rq->flags))
		return false;
	uint64_t a, b;
	seg_bounds(d, d->ra_seg, now, &a, &b);
	return rq->sector >= a && rq->sector <= d->ra_limit;
}

/* A write makes overlapping read data stale. */
static void cache_write(struct hdd_dev *d, uint64_t s, uint64_t e, double now)
{
	for (int i = 0; i < (int)d->segments; i++) {
		if (!d->seg[i].valid)
			continue;
		uint64_t a, b;
		seg_bounds(d, i, now, &a, &b);
		if (s < b && e > a) {
			if (d->ra && i == d->ra_seg)
				ra_stop(d, now);
			d->seg[i].valid = false;
		}
	}
	if (d->segments > 0 && e - s <= d->seg_sectors)
		seg_new(d, s, e); /* the written data is in the buffer */
}

/* ------------------------------------------------------------- commands */

static double link_time(const struct device *dev, uint64_t bytes)
{
	return dev->link_bps ? (double)bytes * 1e9 / (double)dev->link_bps : 0;
}

static void hdd_done(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	struct io_request *rq = container_of(ev, struct io_request, dev_event);
	device_complete(rq->dev_priv, rq);
}

static void complete_at(struct device *dev, struct io_request *rq, double t)
{
	int64_t when = (int64_t)ceil(t);
	if (when < sim_now(dev->sim))
		when = sim_now(dev->sim);
	sim_at(dev->sim, &rq->dev_event, when);
}

static void dispatch(struct device *dev);

static void mech_done(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	struct hdd_dev *d = container_of(ev, struct hdd_dev, mech_ev);
	d->busy = false;
	d->pos = d->op_end_pos;
	if (d->op_read) {
		/* a write into the stream's segment may have stopped it meanwhile */
		if (d->op_stream && d->ra && d->seg[d->ra_seg].valid) {
			if (d->seg[d->ra_seg].end < d->op_end_lba)
				d->seg[d->ra_seg].end = d->op_end_lba;
		} else {
			d->ra = false;
			d->ra_seg = seg_new(d, d->op_start_lba, d->op_end_lba);
			d->ra_limit = d->op_end_lba + d->ra_max;
		}
		if (d->ra_limit > d->total_sectors)
			d->ra_limit = d->total_sectors;
		d->ra_lba0 = d->op_end_lba;
		d->ra_pos0 = d->op_end_pos;
		d->ra = d->readahead && d->ra_limit > d->ra_lba0;
	}
	d->op_rq = NULL;
	d->op_stream = false;
	dispatch(d->dev);
}

static void start_media(struct device *dev, struct io_request *rq, uint64_t lba, uint32_t n,
			bool write, double t_ready)
{
	struct hdd_dev *d = dev->priv;
	struct hdd_pos p = d->pos;
	p.t = t_ready;
	double seek, t0;
	uint64_t from = p.cyl;
	t0 = position(d, &p, lba, write, &seek);
	d->positioned++;
	d->seek_ns_sum += seek;
	d->rot_ns_sum += t0 - t_ready - seek;
	if (p.cyl != from) {
		d->seeks++;
		d->seek_cyl_sum += p.cyl > from ? p.cyl - from : from - p.cyl;
	}
	struct hdd_pos q = d->pos;
	q.t = t_ready;
	walk(d, &q, lba, n, write, -1);
	d->busy = true;
	d->op_rq = rq;
	d->op_read = !write;
	d->op_stream = false;
	d->op_start_lba = lba;
	d->op_end_lba = lba + n;
	d->op_end_pos = q;
	sim_at(dev->sim, &d->mech_ev, (int64_t)ceil(q.t));
	if (rq)
		complete_at(dev, rq, write ? q.t : q.t + link_time(dev, SECTOR_SIZE));
}

/* A read the read-ahead stream serves: done when the stream passes its end. */
static void start_stream(struct device *dev, struct io_request *rq, double now)
{
	struct hdd_dev *d = dev->priv;
	uint64_t end = rq_end_sector(rq);
	struct hdd_pos q = d->ra_pos0;
	double t_end = q.t;
	if (end > d->ra_lba0) {
		walk(d, &q, d->ra_lba0, end - d->ra_lba0, false, -1);
		t_end = q.t;
	}
	d->stream_hits++;
	if (t_end < now)
		t_end = now;
	q.t = t_end;
	if (d->ra_limit < end + d->ra_max)
		d->ra_limit = end + d->ra_max < d->total_sectors ? end + d->ra_max : d->total_sectors;
	d->busy = true;
	d->op_rq = rq;
	d->op_read = true;
	d->op_stream = true;
	d->op_start_lba = rq->sector;
	d->op_end_lba = end > d->ra_lba0 ? end : d->ra_lba0;
	d->op_end_pos = end > d->ra_lba0 ? q : d->ra_pos0;
	sim_at(dev->sim, &d->mech_ev, (int64_t)ceil(t_end));
	double host = now + (double)d->hit_overhead_ns + link_time(dev, rq_bytes(rq));
	double media = t_end + link_time(dev, SECTOR_SIZE);
	complete_at(dev, rq, host > media ? host : media);
}

/* Time until rq's first sector is under the head, from the heads' place now. */
static double positioning_cost(struct device *dev, const struct io_request *rq, double now)
{
	struct hdd_dev *d = dev->priv;
	if (in_stream(d, rq, now))
		return 0;
	struct hdd_pos p = d->pos;
	if (d->ra) {
		/* where the stream would be stopped */
		uint64_t n = d->ra_limit > d->ra_lba0 ? d->ra_limit - d->ra_lba0 : 0;
		p = d->ra_pos0;
		walk(d, &p, d->ra_lba0, n, false, now);
	}
	bool write = req_is_write(rq->flags);
	double ready = (double)rq->t_dispatch + (double)d->overhead_ns;
	if (write)
		ready += link_time(dev, SECTOR_SIZE);
	p.t = ready > now ? ready : now;
	return position(d, &p, rq->sector, write, NULL) - now;
}

static struct io_request *pick(struct device *dev, double now)
{
	struct hdd_dev *d = dev->priv;
	struct io_request *best = NULL;
	double best_cost = 0;
	struct list_head *it;
	list_for_each(it, &d->queue) {
		struct io_request *rq = list_entry(it, struct io_request, dev_node);
		/* a flush waits until the buffer is on the media */
		if ((rq->flags & REQ_FLUSH) && d->ndirty)
			continue;
		/* a write the buffer takes once a destage makes room waits for it */
		if (req_is_write(rq->flags) && d->write_cache && !(rq->flags & REQ_FUA) && d->ndirty &&
		    d->dirty_sectors + rq->nr_sectors > d->wbuf_sectors &&
		    rq->nr_sectors <= d->wbuf_sectors)
			continue;
		if (d->scheduler == HDD_FCFS || d->queue_depth == 1)
			return rq;
		double cost = positioning_cost(dev, rq, now);
		if (!best || cost < best_cost) {
			best = rq;
			best_cost = cost;
		}
	}
	return best;
}

static bool buffer_write(struct device *dev, struct io_request *rq, double now)
{
	struct hdd_dev *d = dev->priv;
	if (!d->write_cache || (rq->flags & REQ_FUA) ||
	    d->dirty_sectors + rq->nr_sectors > d->wbuf_sectors)
		return false;
	if (d->ndirty == d->dirty_cap) {
		size_t cap = d->dirty_cap ? 2 * d->dirty_cap : 64;
		struct hdd_extent *x = realloc(d->dirty, cap * sizeof(*x));
		if (!x)
			return false;
		d->dirty = x;
		d->dirty_cap = cap;
	}
	struct hdd_extent *last = d->ndirty ? &d->dirty[d->ndirty - 1] : NULL;
	/* a write that continues the last buffered one joins it, so that a
	 * sequential stream destages as one media write */
	if (last && last->lba + last->n == rq->sector && last->n <= UINT32_MAX - rq->nr_sectors)
		last->n += rq->nr_sectors;
	else
		d->dirty[d->ndirty++] = (struct hdd_extent){ rq->sector, rq->nr_sectors };
	d->dirty_sectors += rq->nr_sectors;
	d->buffered++;
	cache_write(d, rq->sector, rq_end_sector(rq), now);
	complete_at(dev, rq, now + (double)d->hit_overhead_ns + link_time(dev, rq_bytes(rq)));
	return true;
}

/* Start the next thing the mechanism does, if it is free. */
static void dispatch(struct device *dev)
{
	struct hdd_dev *d = dev->priv;
	double now = (double)sim_now(dev->sim);
	while (!d->busy) {
		if (d->flush_waiting && d->ndirty) {
			/* a waiting flush drains the buffer first */
		} else if (d->nqueued) {
			struct io_request *rq = pick(dev, now);
			if (rq) {
				list_del_init(&rq->dev_node);
				d->nqueued--;
				if (rq->flags & REQ_FLUSH)
					d->flush_waiting--;
				double ready = (double)rq->t_dispatch + (double)d->overhead_ns;
				if (rq->nr_sectors == 0 || (rq->flags & REQ_DISCARD)) {
					complete_at(dev, rq, ready > now ? ready : now);
					continue;
				}
				if (!req_is_write(rq->flags)) {
					if (in_stream(d, rq, now)) {
						start_stream(dev, rq, now);
						return;
					}
					ra_stop(d, now);
					if (cache_hit(d, rq->sector, rq_end_sector(rq), now)) {
						d->hits++;
						complete_at(dev, rq, now + (double)d->hit_overhead_ns +
									 link_time(dev, rq_bytes(rq)));
						continue;
					}
					d->media_reads++;
					start_media(dev, rq, rq->sector, rq->nr_sectors, false,
						    ready > now ? ready : now);
					return;
				}
				ra_stop(d, now);
				if (buffer_write(dev, rq, now))
					continue;
				cache_write(d, rq->sector, rq_end_sector(rq), now);
				d->media_writes++;
				ready += link_time(dev, SECTOR_SIZE);
				start_media(dev, rq, rq->sector, rq->nr_sectors, true,
					    ready > now ? ready : now);
				return;
			}
		}
		if (!d->ndirty)
			return;
		/* destage a buffered write: the oldest, or with SPTF the nearest
		 * among the oldest queue_depth (the drive's reordering window) */
		ra_stop(d, now);
		size_t pickx = 0;
		if (d->scheduler == HDD_SPTF && d->queue_depth > 1) {
			double best = 0;
			size_t win = d->ndirty < (size_t)d->queue_depth ? d->ndirty : (size_t)d->queue_depth;
			for (size_t i = 0; i < win; i++) {
				struct hdd_pos p = d->pos;
				p.t = now;
				double cost = position(d, &p, d->dirty[i].lba, true, NULL) - now;
				if (i == 0 || cost < best) {
					best = cost;
					pickx = i;
				}
			}
		}
		/* at most a segment at a time from the front of the extent, so
		 * that commands are not held behind a long stream and the rest
		 * stays contiguous with what was just written */
		struct hdd_extent x = d->dirty[pickx];
		if (x.n > d->seg_sectors && d->seg_sectors) {
			x.n = (uint32_t)d->seg_sectors;
			d->dirty[pickx].lba += x.n;
			d->dirty[pickx].n -= x.n;
		} else {
			memmove(d->dirty + pickx, d->dirty + pickx + 1,
				(d->ndirty - pickx - 1) * sizeof(*d->dirty));
			d->ndirty--;
		}
		d->dirty_sectors -= x.n;
		d->destages++;
		start_media(dev, NULL, x.lba, x.n, true, now);
		return;
	}
}

static void hdd_submit(struct device *dev, struct io_request *rq)
{
	struct hdd_dev *d = dev->priv;
	double now = (double)sim_now(dev->sim);
	rq->dev_priv = dev;
	sim_event_init(&rq->dev_event, hdd_done);
	if (rq_end_sector(rq) > d->total_sectors && !(rq->flags & REQ_DISCARD)) {
		sim_fail(dev->sim, SIM_E_INPUT,
			 "hdd: request at sector %llu + %u beyond the drive's %llu sectors",
			 (unsigned long long)rq->sector, rq->nr_sectors,
			 (unsigned long long)d->total_sectors);
		complete_at(dev, rq, now);
		return;
	}
	if (rq->flags & REQ_DISCARD) {
		/* a disk has nothing to trim; stale read data goes */
		cache_write(d, rq->sector, rq_end_sector(rq), now);
		complete_at(dev, rq, now + (double)d->hit_overhead_ns);
		return;
	}
	bool flush = (rq->flags & REQ_FLUSH) && d->ndirty;
	if (!flush && !req_is_write(rq->flags) && rq->nr_sectors &&
	    cache_hit(d, rq->sector, rq_end_sector(rq), now)) {
		/* served from the buffer while the mechanism goes on */
		d->hits++;
		complete_at(dev, rq, now + (double)d->hit_overhead_ns + link_time(dev, rq_bytes(rq)));
		return;
	}
	if (!flush && req_is_write(rq->flags) && !d->nqueued && buffer_write(dev, rq, now)) {
		dispatch(dev); /* destage now if the mechanism is free */
		return;
	}
	list_add_tail(&rq->dev_node, &d->queue);
	d->nqueued++;
	if (rq->flags & REQ_FLUSH)
		d->flush_waiting++;
	dispatch(dev);
}

/* ---------------------------------------------------------------- setup */

/* Fit a, b, c, e to the datasheet's track-to-track t1, average tavg (the
 * weighted average over all seek pairs, weight max+1-d) and full stroke
 * tfull, with the curve continuous at the boundary B: four linear equations. */
static int seek_fit(struct hdd_dev *d, struct cfg_node *node, struct sim_error *err)
{
	uint64_t N = (uint64_t)d->cylinders, B = d->boundary;
	if (d->t2t_ms <= 0 || d->avg_ms <= 0 || d->full_ms <= 0)
		return cfg_errorf(err, node, "hdd: give the seek curve (seek_a_ms ... seek_e_ms) or "
				  "all of track_to_track_ms, avg_seek_ms, full_stroke_ms");
	if (N < 4 || B < 2 || B >= N - 1)
		return cfg_errorf(err, node, "hdd: the seek fit needs 4+ cylinders and a boundary "
				  "inside the stroke");
	double ws = 0, wsq = 0, wl = 0, wld = 0;
	for (uint64_t k = 1; k < N; k++) {
		double w = (double)(N - k);
		if (k < B) {
			ws += w;
			wsq += w * sqrt((double)k);
		} else {
			wl += w;
			wld += w * (double)k;
		}
	}
	double W = ws + wl;
	double m[16] = {
		1, 1, 0, 0,                                       /* t(1) */
		1, sqrt((double)B), -1, -(double)B,               /* continuity at B */
		0, 0, 1, (double)(N - 1),                         /* t(N-1) */
		ws / W, wsq / W, wl / W, wld / W,                 /* weighted average */
	};
	double rhs[4] = { d->t2t_ms, 0, d->full_ms, d->avg_ms };
	double x[4];
	gsl_matrix_view mv = gsl_matrix_view_array(m, 4, 4);
	gsl_vector_view bv = gsl_vector_view_array(rhs, 4);
	gsl_vector_view xv = gsl_vector_view_array(x, 4);
	gsl_permutation *perm = gsl_permutation_alloc(4);
	int sgn, rc = perm ? gsl_linalg_LU_decomp(&mv.matrix, perm, &sgn) : -1;
	if (rc == 0)
		rc = gsl_linalg_LU_solve(&mv.matrix, perm, &bv.vector, &xv.vector);
	gsl_permutation_free(perm);
	if (rc || !(x[0] >= 0 && x[1] > 0 && x[2] >= 0 && x[3] > 0))
		return cfg_errorf(err, node,
				  "hdd: no increasing a + b sqrt(d) / c + e d curve fits track-to-track "
				  "%g, average %g, full stroke %g ms (boundary %llu of %llu cylinders)",
				  d->t2t_ms, d->avg_ms, d->full_ms, (unsigned long long)B,
				  (unsigned long long)N);
	d->seek_a_ms = x[0];
	d->seek_b_ms = x[1];
	d->seek_c_ms = x[2];
	d->seek_e_ms = x[3];
	return 0;
}

static void hdd_destroy(struct device *dev)
{
	struct hdd_dev *d = dev->priv;
	free(d->zone);
	free(d->seg);
	free(d->dirty);
	d->zone = NULL;
	d->seg = NULL;
	d->dirty = NULL;
}

static int hdd_init(struct device *dev, struct cfg_node *node, struct sim_error *err)
{
	struct hdd_dev *d = dev->priv;
	int rc = 0;
	d->rev_ns = 60e9 / d->rpm;
	if (d->zones > d->cylinders)
		return cfg_errorf(err, cfg_get(node, "zones"), "hdd: %lld zones for %lld cylinders",
				  (long long)d->zones, (long long)d->cylinders);
	int64_t inner = d->spt_inner ? d->spt_inner : d->spt_outer;
	d->boundary = d->seek_boundary ? (uint64_t)d->seek_boundary
				       : (uint64_t)llround((double)d->cylinders * 383.0 / 1962.0);
	if (d->seek_a_ms == 0 && d->seek_b_ms == 0 && d->seek_c_ms == 0 && d->seek_e_ms == 0)
		rc = seek_fit(d, node, err);
	if (rc)
		return rc;
	d->a = d->seek_a_ms * 1e6;
	d->b = d->seek_b_ms * 1e6;
	d->c = d->seek_c_ms * 1e6;
	d->e = d->seek_e_ms * 1e6;

	d->nzones = (size_t)d->zones;
	d->zone = calloc(d->nzones, sizeof(*d->zone));
	d->seg = calloc((size_t)d->segments, sizeof(*d->seg));
	if (!d->zone || !d->seg) {
		hdd_destroy(dev);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory building an hdd");
	}
	uint64_t lba = 0;
	double one_cyl = seek_raw(d, 1);
	for (size_t i = 0; i < d->nzones; i++) {
		struct hdd_zone *z = &d->zone[i];
		z->c0 = (uint64_t)d->cylinders * i / d->nzones;
		z->ncyl = (uint64_t)d->cylinders * (i + 1) / d->nzones - z->c0;
		double f = d->nzones > 1 ? (double)i / (double)(d->nzones - 1) : 0;
		z->spt = (uint32_t)llround((double)d->spt_outer + ((double)inner - (double)d->spt_outer) * f);
		if (z->spt < 1)
			z->spt = 1;
		z->st = d->rev_ns / z->spt;
		z->tskew = d->track_skew ? (uint32_t)d->track_skew
					 : (uint32_t)ceil((double)d->head_switch_ns / z->st);
		/* formatted so that reads and writes both cross to the next
		 * cylinder without losing a revolution (datasheets give one
		 * sustained rate for both) */
		double cyl_switch = one_cyl + (double)d->write_settle_ns;
		if (cyl_switch < (double)d->head_switch_ns)
			cyl_switch = (double)d->head_switch_ns;
		z->cskew = d->cyl_skew ? (uint32_t)d->cyl_skew : (uint32_t)ceil(cyl_switch / z->st);
		if (z->tskew >= z->spt || z->cskew >= z->spt) {
			hdd_destroy(dev);
			return cfg_errorf(err, node,
					  "hdd: zone %zu has %u sectors per track, fewer than its skew "
					  "(track %u, cylinder %u)", i, z->spt, z->tskew, z->cskew);
		}
		z->lba0 = lba;
		lba += z->ncyl * (uint64_t)d->surfaces * z->spt;
	}
	d->total_sectors = lba;
	dev->capacity_bytes = lba << SECTOR_SHIFT;

	/* the datasheet's average: over all seek pairs, weight max+1-d */
	double sum = 0, w = 0;
	for (uint64_t k = 1; k < (uint64_t)d->cylinders; k++) {
		double wk = (double)((uint64_t)d->cylinders - k);
		sum += wk * seek_raw(d, k);
		w += wk;
	}
	d->avg_seek_ns = w > 0 ? sum / w : 0;

	d->seg_sectors = (d->cache_bytes / (uint64_t)d->segments) >> SECTOR_SHIFT;
	d->ra_max = d->readahead_bytes ? d->readahead_bytes >> SECTOR_SHIFT : d->seg_sectors;
	if (d->ra_max > d->seg_sectors)
		d->ra_max = d->seg_sectors;
	d->wbuf_sectors = d->cache_bytes >> SECTOR_SHIFT;
	list_init(&d->queue);
	sim_event_init(&d->mech_ev, mech_done);
	d->pos = (struct hdd_pos){ 0, 0, 0 };
	d->dev = dev;
	dev->queue_depth = (uint32_t)d->queue_depth;
	return 0;
}

/* QD1 service at an idle drive, on average: overhead, the average seek, half
 * a revolution, the transfer at the mean zone rate, the last sector on the link. */
static int64_t hdd_idle_latency(struct device *dev, bool write, uint64_t bytes)
{
	struct hdd_dev *d = dev->priv;
	double st = 0;
	for (size_t i = 0; i < d->nzones; i++)
		st += d->zone[i].st * (double)d->zone[i].ncyl;
	st /= (double)d->cylinders;
	double t = (double)d->overhead_ns + d->avg_seek_ns + d->rev_ns / 2 +
		   (double)(bytes >> SECTOR_SHIFT) * st + link_time(dev, SECTOR_SIZE);
	if (write)
		t += (double)d->write_settle_ns;
	return (int64_t)ceil(t);
}

static void hdd_stats_json(const struct device *dev, json_t *obj)
{
	const struct hdd_dev *d = dev->priv;
	json_t *o = json_object();
	json_object_set_new(o, "capacity_bytes", json_integer((json_int_t)dev->capacity_bytes));
	json_object_set_new(o, "avg_seek_ms", json_real(d->avg_seek_ns / 1e6));
	json_object_set_new(o, "full_stroke_ms", json_real(seek_raw(d, (uint64_t)d->cylinders - 1) / 1e6));
	json_object_set_new(o, "revolution_ms", json_real(d->rev_ns / 1e6));
	json_object_set_new(o, "seek_curve_ms",
			    json_pack("{s:f,s:f,s:f,s:f,s:I}", "a", d->seek_a_ms, "b", d->seek_b_ms,
				      "c", d->seek_c_ms, "e", d->seek_e_ms, "boundary",
				      (json_int_t)d->boundary));
	json_object_set_new(o, "od_mbps", json_real(d->zone[0].spt * 512.0 / d->rev_ns * 1e3));
	json_object_set_new(o, "id_mbps",
			    json_real(d->zone[d->nzones - 1].spt * 512.0 / d->rev_ns * 1e3));
	json_object_set_new(o, "cache_hits", json_integer((json_int_t)d->hits));
	json_object_set_new(o, "stream_hits", json_integer((json_int_t)d->stream_hits));
	json_object_set_new(o, "media_reads", json_integer((json_int_t)d->media_reads));
	json_object_set_new(o, "media_writes", json_integer((json_int_t)d->media_writes));
	json_object_set_new(o, "buffered_writes", json_integer((json_int_t)d->buffered));
	json_object_set_new(o, "destages", json_integer((json_int_t)d->destages));
	json_object_set_new(o, "seeks", json_integer((json_int_t)d->seeks));
	json_object_set_new(o, "mean_seek_cylinders",
			    json_real(d->seeks ? (double)d->seek_cyl_sum / (double)d->seeks : 0));
	json_object_set_new(o, "mean_seek_ms",
			    json_real(d->positioned ? d->seek_ns_sum / (double)d->positioned / 1e6 : 0));
	json_object_set_new(o, "mean_rotation_ms",
			    json_real(d->positioned ? d->rot_ns_sum / (double)d->positioned / 1e6 : 0));
	json_object_set_new(obj, "hdd", o);
}

const struct device_ops hdd_device_ops = {
	.name = "hdd",
	.summary = "disk drive: seek curve, rotation, zones, read-ahead cache, FCFS/SPTF queue (Ruemmler & Wilkes 1994)",
	.params = hdd_params,
	.priv_size = sizeof(struct hdd_dev),
	.init = hdd_init,
	.destroy = hdd_destroy,
	.submit = hdd_submit,
	.idle_latency_ns = hdd_idle_latency,
	.stats_json = hdd_stats_json,
};

/* ------------------------------------------------------ for tests, tools */

double hdd_seek_ns(const struct device *dev, uint64_t dist, bool write)
{
	const struct hdd_dev *d = dev->priv;
	double s = seek_raw(d, dist);
	return write && dist ? s + (double)d->write_settle_ns : s;
}

double hdd_rev_ns(const struct device *dev)
{
	return ((const struct hdd_dev *)dev->priv)->rev_ns;
}

uint32_t hdd_spt_at(const struct device *dev, uint64_t lba)
{
	return zone_of(dev->priv, lba)->spt;
}

uint64_t hdd_cylinders(const struct device *dev)
{
	return (uint64_t)((const struct hdd_dev *)dev->priv)->cylinders;
}

uint32_t hdd_surfaces(const struct device *dev)
{
	return (uint32_t)((const struct hdd_dev *)dev->priv)->surfaces;
}

uint32_t hdd_track_skew_at(const struct device *dev, uint64_t lba)
{
	return zone_of(dev->priv, lba)->tskew;
}

uint32_t hdd_cyl_skew_at(const struct device *dev, uint64_t lba)
{
	return zone_of(dev->priv, lba)->cskew;
}
