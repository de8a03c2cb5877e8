/* A device made of several devices: md RAID0 / dm-stripe (`model: stripe`)
 * and dm-linear / F2FS multi-device (`model: linear`), after Linux 5.10
 * drivers/md/raid0.c, dm-stripe.c, dm-linear.c and fs/f2fs (docs/devices.md).
 *
 * md and dm are bio-based: the array has no scheduler and no tag limit;
 * each bio is split where a chunk (stripe) or a member (linear) ends
 * (raid0_make_request: bio_split + bio_chain; dm: max_io_len), each piece
 * is remapped (models/md/md_map.c) and submitted to its member's own
 * request queue (submit_bio_noacct), where the member's scheduler merges
 * and orders it with everything else that member holds, and the member's
 * device and completion path serve it. The parent completes when its last
 * piece has (bio_chain's __bi_remaining). A pre-flush goes to every member
 * first as an empty flush (md_flush_request: one REQ_PREFLUSH bio per
 * rdev; dm sends it to every target), the data follows without it; FUA
 * stays on every piece (bio_split keeps bi_opf).
 *
 * Here the array sits below the run's request queue (the one the upper
 * stack submits to), which stands in for the bio-based md device: give it
 * noop/none and a large block.nr_requests so that it only passes bios
 * through; its plug still merges what the submitter's plug would merge on
 * the members. The pieces of one array request go to the members under one
 * plug per member (the submitter's current->plug in Linux), so consecutive
 * chunks that land next to each other on a member merge there.
 *
 * Left out: md RAID0's extra strip zones over the larger members (the
 * stripe uses the smallest member's size on all), raid0's discard path
 * (one discard per member over the whole range: here split by chunk like
 * data), md's superblock I/O and resync, dm's suspend and table reloads.
 * A sector past the array's end wraps (counted), as virtio-blk does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/block/elevator.h"
#include "models/completion/completion.h"
#include "models/device/device.h"
#include "models/md/md.h"
#include "models/md/md_map.h"
#include "sim/sim.h"

/* -------------------------------------------------------------- tunables */

struct md_member {
	/* tunables of the member's map */
	uint64_t size_bytes;
	uint64_t offset_bytes;
	/* built */
	struct device *dev;
	struct blk_queue *q;
	struct blk_plug plug;
	bool plugged;
	uint64_t pieces, piece_sectors, flushes;
};

struct md {
	/* tunables */
	uint64_t chunk_bytes;
	uint64_t member_bytes;

	struct device *dev;
	int layout;
	struct md_member *mem;
	uint32_t n;
	struct md_map map;
	struct md_member_map *mm;
	struct bio_pool piece_pool, io_pool;

	uint64_t requests, split_requests, pieces, flushes, wrapped;
};

/* One array request in flight (the parent bio's __bi_remaining). */
struct md_io {
	struct io_request *rq;
	struct md *md;
	uint32_t remaining;
	bool flushed;            /* the pre-flush phase is over */
	void *link;
};

/* One piece submitted to a member (a split, remapped clone). */
struct md_piece {
	struct bio bio;
	struct md_io *io;
	void *link;
};

#define MD_OFF(f) offsetof(struct md, f)
#define MM_OFF(f) offsetof(struct md_member, f)

static const struct cfg_param stripe_params[] = {
	{ "chunk_bytes", CFG_T_SIZE, MD_OFF(chunk_bytes), "KiB", "512KiB", 4, 1048576,
	  "mdadm(8) --chunk: 512 KiB default since mdadm 3.1 [RECALL]; dm-stripe takes it from the "
	  "table (drivers/md/dm-stripe.c stripe_ctr)",
	  "stripe unit: bytes of the array on one member before the next", NULL },
	{ "member_bytes", CFG_T_SIZE, MD_OFF(member_bytes), "GiB", "32GiB", 0.001, 1e9,
	  "assumption: a 32 GB phone UFS/eMMC part (range 16-512 GiB); a member's `size:` overrides",
	  "size of a member whose map gives no size", NULL },
	CFG_PARAM_END,
};

static const struct cfg_param linear_params[] = {
	{ "member_bytes", CFG_T_SIZE, MD_OFF(member_bytes), "GiB", "32GiB", 0.001, 1e9,
	  "assumption: a 32 GB phone UFS/eMMC part (range 16-512 GiB); a member's `size:` overrides",
	  "size of a member whose map gives no size (where the next member begins)", NULL },
	CFG_PARAM_END,
};

static const struct cfg_param member_params[] = {
	{ "size", CFG_T_SIZE, MM_OFF(size_bytes), "GiB", "0", 0, 1e9,
	  "scenario: dm table target length / the member's capacity (0: the device's own capacity, "
	  "else the array's member_bytes)",
	  "bytes this member contributes", NULL },
	{ "offset", CFG_T_SIZE, MM_OFF(offset_bytes), "MiB", "0", 0, 1e9,
	  "dm table physical_start; md's data_offset (mdadm 1.2 metadata puts data after the "
	  "superblock, typically 1-128 MiB [RECALL])",
	  "where the member's part begins on it", NULL },
	CFG_PARAM_END,
};

/* --------------------------------------------------------------- helpers */

static void md_step(struct sim *sim, struct sim_event *ev);

/* A piece is done: the parent goes on when it was the last. Its next step
 * runs as an event, out of the member queue's completion. */
static void md_piece_end_io(struct sim *sim, struct bio *bio)
{
	struct md_piece *p = container_of(bio, struct md_piece, bio);
	struct md_io *io = p->io;
	bio_pool_free(&io->md->piece_pool, p);
	if (--io->remaining > 0)
		return;
	sim_event_init(&io->rq->dev_event, md_step);
	sim_at(sim, &io->rq->dev_event, sim_now(sim));
}

static void md_queue_piece(struct md *md, struct md_io *io, uint32_t i, uint64_t sector,
			   uint32_t nr, uint32_t flags)
{
	struct md_member *mb = &md->mem[i];
	struct md_piece *p = bio_pool_alloc(&md->piece_pool);
	if (!p) {
		sim_fail(md->dev->sim, SIM_E_NOMEM, "out of memory splitting an array request");
		return;
	}
	p->io = io;
	p->bio.sector = sector;
	p->bio.nr_sectors = nr;
	p->bio.flags = flags;
	p->bio.ioc = io->rq->ioc;
	p->bio.end_io = md_piece_end_io;
	p->bio.private = io;
	io->remaining++;
	mb->pieces++;
	mb->piece_sectors += nr;
	if (!mb->plugged) {
		blk_start_plug(&mb->plug, io->rq->ioc);
		mb->plugged = true;
	}
	blk_submit_bio(mb->q, &mb->plug, &p->bio, NULL);
}

static void md_unplug_all(struct md *md)
{
	for (uint32_t i = 0; i < md->n; i++) {
		if (!md->mem[i].plugged)
			continue;
		md->mem[i].plugged = false;
		blk_finish_plug(md->mem[i].q, &md->mem[i].plug);
	}
}

/* The data of rq, split at chunk / member ends and remapped. */
static void md_submit_data(struct md *md, struct md_io *io)
{
	struct io_request *rq = io->rq;
	uint32_t flags = rq->flags & ~(uint32_t)REQ_FLUSH;
	uint64_t sector = rq->sector, left = rq->nr_sectors;
	if (sector + left > md->map.sectors) {
		md->wrapped++;
		sector = (sector % (md->map.sectors - left)) & ~7ull;
	}
	uint32_t pieces = 0;
	io->remaining++; /* held until every piece is queued */
	while (left > 0) {
		uint32_t i;
		uint64_t msector, max;
		if (!md_map_sector(&md->map, sector, &i, &msector, &max))
			break;
		uint64_t nr = left < max ? left : max;
		md_queue_piece(md, io, i, msector, (uint32_t)nr, flags);
		sector += nr;
		left -= nr;
		pieces++;
	}
	md->pieces += pieces;
	if (pieces > 1)
		md->split_requests++;
	md_unplug_all(md);
	if (--io->remaining == 0) {
		sim_event_init(&rq->dev_event, md_step);
		sim_at(md->dev->sim, &rq->dev_event, sim_now(md->dev->sim));
	}
}

/* An empty pre-flush to every member (md_flush_request). */
static void md_submit_flush(struct md *md, struct md_io *io)
{
	uint32_t flags = REQ_WRITE | REQ_SYNC | REQ_FLUSH | (io->rq->flags & REQ_FG);
	md->flushes++;
	io->remaining++;
	for (uint32_t i = 0; i < md->n; i++) {
		md->mem[i].flushes++;
		md_queue_piece(md, io, i, 0, 0, flags);
	}
	md_unplug_all(md);
	if (--io->remaining == 0) {
		sim_event_init(&io->rq->dev_event, md_step);
		sim_at(md->dev->sim, &io->rq->dev_event, sim_now(md->dev->sim));
	}
}

static void md_step(struct sim *sim, struct sim_event *ev)
{
	(void)sim;
	struct io_request *rq = container_of(ev, struct io_request, dev_event);
	struct md_io *io = rq->dev_priv;
	struct md *md = io->md;
	if (!io->flushed) {
		io->flushed = true;
		if (rq->nr_sectors > 0) {
			md_submit_data(md, io);
			return;
		}
	}
	bio_pool_free(&md->io_pool, io);
	device_complete(md->dev, rq);
}

/* ----------------------------------------------------------------- hooks */

static void md_submit(struct device *dev, struct io_request *rq)
{
	struct md *md = dev->priv;
	struct md_io *io = bio_pool_alloc(&md->io_pool);
	if (!io) {
		sim_fail(dev->sim, SIM_E_NOMEM, "out of memory in the array");
		return;
	}
	io->rq = rq;
	io->md = md;
	io->remaining = 0;
	rq->dev_priv = io;
	md->requests++;
	if (rq->flags & REQ_FLUSH) {
		io->flushed = false;
		md_submit_flush(md, io);
		return;
	}
	io->flushed = true;
	md_submit_data(md, io);
}

static void md_destroy(struct device *dev)
{
	struct md *md = dev->priv;
	for (uint32_t i = 0; md->mem && i < md->n; i++) {
		if (md->mem[i].q)
			blk_queue_destroy(md->mem[i].q);
		if (md->mem[i].dev)
			device_destroy(md->mem[i].dev);
	}
	free(md->mem);
	free(md->mm);
	md->mem = NULL;
	md->mm = NULL;
	bio_pool_destroy(&md->piece_pool);
	bio_pool_destroy(&md->io_pool);
}

/* A member: its device, completion path, block queue and scheduler, from
 * the member's map (the keys a scenario's top level has for one device). */
static int md_member_create(struct md *md, struct md_member *mb, struct cfg_node *node,
			    struct sim_error *err)
{
	struct sim *sim = md->dev->sim;
	if (!node || node->kind != CFG_MAP)
		return cfg_errorf(err, node, "a member is a map: {device: {...}, scheduler: NAME, "
				  "block: {...}, completion: ..., size: BYTES, offset: BYTES}");
	cfg_mark_used(node, false);
	int rc = cfg_apply(member_params, node, mb, err);
	if (rc)
		return rc;
	struct cfg_node *dn = cfg_get(node, "device");
	if (!dn || dn->kind != CFG_MAP)
		return cfg_errorf(err, dn ? dn : node, "member needs `device:`, a device map "
				  "(e.g. {include: ../devices/ufs21.yaml})");
	cfg_mark_used(dn, false);
	if ((rc = device_create(sim, dn, &mb->dev, err)))
		return rc;
	struct completion *cpl;
	if ((rc = completion_attach(sim, mb->dev, cfg_get(node, "completion"), &cpl, err)))
		return rc;
	const char *sched = NULL;
	struct cfg_node *sn = cfg_get(node, "scheduler"), *ssec = NULL;
	if (sn) {
		sched = cfg_get_str(node, "scheduler");
		if (!sched || !elevator_find(sched))
			return cfg_errorf(err, sn, "unknown scheduler (see `mobisim list schedulers`)");
		if ((ssec = cfg_get(node, sched)))
			cfg_mark_used(ssec, false);
	}
	struct cfg_node *bn = cfg_get(node, "block");
	if (bn)
		cfg_mark_used(bn, false);
	if ((rc = blk_queue_create(sim, mb->dev, bn, sched, ssec, &mb->q, err))) {
		/* a message without a position (e.g. an sq scheduler on mq) gets the member's */
		if (rc == SIM_E_INPUT && node->file &&
		    strncmp(err->msg, node->file, strlen(node->file)) != 0) {
			char msg[sizeof(err->msg)];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			return cfg_errorf(err, sn ? sn : node, "%s", msg);
		}
		return rc;
	}
	/* the run's btt is the array's queue's (what the upper stack waited on) */
	blk_queue_set_nested(mb->q);
	return 0;
}

static int md_build(struct device *dev, struct cfg_node *node, struct sim_error *err)
{
	struct md *md = dev->priv;
	struct cfg_node *ms = cfg_get(node, "members");
	if (!ms || ms->kind != CFG_SEQ || !ms->child)
		return cfg_errorf(err, ms ? ms : node, "%s needs `members:`, a list of member maps",
				  dev->ops->name);
	cfg_mark_used(ms, false);
	for (struct cfg_node *c = ms->child; c; c = c->next)
		md->n++;
	if (md->n > 64)
		return cfg_errorf(err, ms, "at most 64 members (got %u)", md->n);
	md->mem = calloc(md->n, sizeof(*md->mem));
	md->mm = calloc(md->n, sizeof(*md->mm));
	if (!md->mem || !md->mm)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	uint64_t sz[64], off[64];
	uint32_t i = 0;
	for (struct cfg_node *c = ms->child; c; c = c->next, i++) {
		int rc = md_member_create(md, &md->mem[i], c, err);
		if (rc)
			return rc;
		uint64_t b = md->mem[i].size_bytes ? md->mem[i].size_bytes
			   : md->mem[i].dev->capacity_bytes ? md->mem[i].dev->capacity_bytes
			   : md->member_bytes;
		sz[i] = b >> SECTOR_SHIFT;
		off[i] = md->mem[i].offset_bytes >> SECTOR_SHIFT;
	}
	uint64_t chunk = md->layout == MD_STRIPE ? md->chunk_bytes >> SECTOR_SHIFT : 0;
	if (md->layout == MD_STRIPE && md->chunk_bytes % 4096)
		return cfg_errorf(err, cfg_get(node, "chunk_bytes") ? cfg_get(node, "chunk_bytes") : node,
				  "chunk_bytes must be a multiple of 4 KiB (the page; mdadm and "
				  "dm-stripe refuse smaller units)");
	if (md_map_init(&md->map, md->layout, md->n, chunk, sz, off, md->mm))
		return cfg_errorf(err, ms, "members too small for one chunk");
	dev->capacity_bytes = md->map.sectors << SECTOR_SHIFT;
	return 0;
}

static int md_init_layout(struct device *dev, struct cfg_node *node, struct sim_error *err,
			  int layout)
{
	struct md *md = dev->priv;
	md->dev = dev;
	md->layout = layout;
	dev->queue_depth = 0;    /* bio-based: no tag limit of its own */
	dev->link_bps = 0;       /* the members' links bound their transfers */
	bio_pool_init(&md->piece_pool, sizeof(struct md_piece), offsetof(struct md_piece, link), 256);
	bio_pool_init(&md->io_pool, sizeof(struct md_io), offsetof(struct md_io, link), 256);
	int rc = md_build(dev, node, err);
	if (rc)
		md_destroy(dev); /* the core frees priv without calling destroy */
	return rc;
}

static int stripe_init(struct device *dev, struct cfg_node *node, struct sim_error *err)
{
	return md_init_layout(dev, node, err, MD_STRIPE);
}

static int linear_init(struct device *dev, struct cfg_node *node, struct sim_error *err)
{
	return md_init_layout(dev, node, err, MD_LINEAR);
}

static void md_stats_json(const struct device *dev, json_t *obj)
{
	const struct md *md = dev->priv;
	json_t *o = json_object();
	json_object_set_new(o, "members_n", json_integer(md->n));
	json_object_set_new(o, "capacity_bytes",
			    json_integer((json_int_t)(md->map.sectors << SECTOR_SHIFT)));
	if (md->layout == MD_STRIPE)
		json_object_set_new(o, "chunk_bytes", json_integer((json_int_t)md->chunk_bytes));
	json_object_set_new(o, "requests", json_integer((json_int_t)md->requests));
	json_object_set_new(o, "split_requests", json_integer((json_int_t)md->split_requests));
	json_object_set_new(o, "pieces", json_integer((json_int_t)md->pieces));
	json_object_set_new(o, "flushes", json_integer((json_int_t)md->flushes));
	json_object_set_new(o, "wrapped", json_integer((json_int_t)md->wrapped));
	json_t *a = json_array();
	for (uint32_t i = 0; i < md->n; i++) {
		const struct md_member *mb = &md->mem[i];
		json_t *m = json_object();
		json_object_set_new(m, "start_bytes",
				    json_integer((json_int_t)(md->mm[i].start << SECTOR_SHIFT)));
		json_object_set_new(m, "size_bytes",
				    json_integer((json_int_t)(md->mm[i].sectors << SECTOR_SHIFT)));
		json_object_set_new(m, "pieces", json_integer((json_int_t)mb->pieces));
		json_object_set_new(m, "piece_bytes",
				    json_integer((json_int_t)(mb->piece_sectors << SECTOR_SHIFT)));
		json_object_set_new(m, "flushes", json_integer((json_int_t)mb->flushes));
		json_object_set_new(m, "device", device_to_json(mb->dev));
		if (mb->dev->cpl)
			json_object_set_new(m, "completion", completion_to_json(mb->dev->cpl));
		json_object_set_new(m, "block", blk_queue_to_json(mb->q));
		json_array_append_new(a, m);
	}
	json_object_set_new(o, "members", a);
	json_object_set_new(obj, "md", o);
}

/* ------------------------------------------------------------ public API */

static bool md_is(const struct device *dev)
{
	return dev->ops == &stripe_device_ops || dev->ops == &linear_device_ops;
}

uint32_t md_members(const struct device *dev)
{
	return md_is(dev) ? ((const struct md *)dev->priv)->n : 0;
}

struct device *md_member_device(const struct device *dev, uint32_t i)
{
	if (!md_is(dev) || i >= ((const struct md *)dev->priv)->n)
		return NULL;
	return ((const struct md *)dev->priv)->mem[i].dev;
}

struct blk_queue *md_member_queue(const struct device *dev, uint32_t i)
{
	if (!md_is(dev) || i >= ((const struct md *)dev->priv)->n)
		return NULL;
	return ((const struct md *)dev->priv)->mem[i].q;
}

const struct device_ops stripe_device_ops = {
	.name = "stripe",
	.summary = "md RAID0 / dm-stripe over N member devices, each with its own queue and "
		   "scheduler; bios split at chunk boundaries (docs/devices.md)",
	.params = stripe_params,
	.priv_size = sizeof(struct md),
	.init = stripe_init,
	.destroy = md_destroy,
	.submit = md_submit,
	.stats_json = md_stats_json,
	.models_link = true,
};

const struct device_ops linear_device_ops = {
	.name = "linear",
	.summary = "dm-linear / F2FS multi-device: N member devices end to end, each with its own "
		   "queue and scheduler; bios split at member ends (docs/devices.md)",
	.params = linear_params,
	.priv_size = sizeof(struct md),
	.init = linear_init,
	.destroy = md_destroy,
	.submit = md_submit,
	.stats_json = md_stats_json,
	.models_link = true,
};
