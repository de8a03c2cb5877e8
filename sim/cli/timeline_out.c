/* --timeline adapter (see timeline_out.h). Device command slots: a request
 * takes the lowest free slot at D (issue to the device) and leaves it at C,
 * so a track per slot shows what the device was doing, as a logic analyser
 * on the command queue would. Requests are matched at C by start sector and
 * size, the key blkparse itself uses. */
#include "sim/cli/timeline_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/block/block.h"
#include "sim/cli/blk_sink_out.h"
#include "sim/cli/timeline_proto.h"
#include "sim/sim.h"
#include "sim/timeline.h"

/* More slots than any preset's queue depth; a request beyond them is
 * still counted, on the last slot's track. */
#define TLO_SLOTS 256

struct tlo_slot {
	bool busy;
	uint64_t sector;
	uint32_t nr_sectors;
	uint32_t flags;
	int32_t pid;
	int64_t start;
};

struct sim_timeline_out {
	struct blk_sink_out o;
	struct tlo_slot slot[TLO_SLOTS];
	int64_t inflight, queued;
};

static void tlo_counters(struct sim_timeline_out *t, int64_t now)
{
	sim_timeline_counter(t->o.sim->timeline, TIMELINE_PID_DEVICE, "device in flight", now,
			     (double)t->inflight, 0);
	sim_timeline_counter(t->o.sim->timeline, TIMELINE_PID_DEVICE, "scheduler queued", now,
			     (double)(t->queued > 0 ? t->queued : 0), 0);
}

static void tlo_issue(struct sim_timeline_out *t, const struct blk_trace_event *ev)
{
	int i;
	for (i = 0; i < TLO_SLOTS - 1 && t->slot[i].busy; i++)
		;
	struct tlo_slot *s = &t->slot[i];
	if (!s->busy) {
		char name[32];
		snprintf(name, sizeof(name), "slot %d", i);
		sim_timeline_track(t->o.sim->timeline, TIMELINE_PID_DEVICE, i, NULL, name);
	}
	*s = (struct tlo_slot){ true, ev->sector, ev->nr_sectors, ev->flags, ev->pid, ev->time_ns };
}

static void tlo_complete(struct sim_timeline_out *t, const struct blk_trace_event *ev)
{
	for (int i = 0; i < TLO_SLOTS; i++) {
		struct tlo_slot *s = &t->slot[i];
		if (!s->busy || s->sector != ev->sector || s->nr_sectors != ev->nr_sectors)
			continue;
		char name[48];
		const char *dir = s->nr_sectors == 0 && (s->flags & REQ_FLUSH) ? "flush"
				  : req_is_write(s->flags)			  ? "write"
										  : "read";
		snprintf(name, sizeof(name), "%s %u KiB%s", dir, s->nr_sectors / 2,
			 s->flags & REQ_SYNC ? " sync" : "");
		sim_timeline_slice(t->o.sim->timeline, TIMELINE_PID_DEVICE, i, "device", name, s->start,
				   ev->time_ns - s->start, true, NULL, "sector", (int64_t)s->sector);
		s->busy = false;
		return;
	}
}

static void tlo_event(void *ctx, const struct blk_trace_event *ev)
{
	struct sim_timeline_out *t = ctx;
	switch (ev->action) {
	case 'I':
		t->queued++;
		break;
	case 'D':
		t->queued--;
		t->inflight++;
		tlo_issue(t, ev);
		break;
	case 'R': /* requeue: back from the device to the scheduler */
		t->inflight--;
		t->queued++;
		break;
	case 'C':
		t->inflight--;
		tlo_complete(t, ev);
		break;
	default:
		return;
	}
	tlo_counters(t, ev->time_ns);
}

void sim_timeline_out_free(struct sim_timeline_out *t)
{
	if (!t)
		return;
	if (t->o.sim->timeline) {
		sim_timeline_free(t->o.sim->timeline);
		t->o.sim->timeline = NULL;
	}
	blk_sink_out_release(&t->o);
	free(t);
}

int sim_timeline_out_format(const char *name)
{
	if (!strcmp(name, "json"))
		return TIMELINE_JSON;
	if (!strcmp(name, "proto"))
		return TIMELINE_PROTO;
	return -1;
}

/* The names Perfetto gives its protobuf traces: the UI saves
 * .perfetto-trace (perfetto/ui/src/frontend/trace_actions.ts, TRACE_SUFFIX),
 * its documentation uses .pftrace (perfetto/docs/analysis/batch-trace-processor.md). */
static bool tlo_proto_name(const char *path)
{
	static const char *const ext[] = { ".pftrace", ".perfetto-trace" };
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);
		if (n > e && !strcmp(path + n - e, ext[i]))
			return true;
	}
	return false;
}

int sim_timeline_out_open(struct sim *s, const char *path, int format, struct sim_error *err)
{
	struct sim_timeline_out *t = calloc(1, sizeof(*t));
	if (!t)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	int rc = blk_sink_out_open(&t->o, s, path, err);
	if (rc) {
		free(t);
		return rc;
	}
	if (format == TIMELINE_AUTO)
		format = tlo_proto_name(path) ? TIMELINE_PROTO : TIMELINE_JSON;
	FILE *f = blk_sink_out_file(&t->o);
	s->timeline = format == TIMELINE_PROTO ? timeline_proto_new(f) : sim_timeline_new(f);
	if (!s->timeline) {
		sim_timeline_out_free(t);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	if (s->blk) {
		rc = blk_sink_out_hook(&t->o, tlo_event, t, "--timeline", err);
		if (rc) {
			sim_timeline_out_free(t);
			return rc;
		}
	}
	s->timeline_out = t;
	return 0;
}

int sim_timeline_out_finish(struct sim *s, struct sim_error *err)
{
	struct sim_timeline_out *t = s->timeline_out;
	if (!t)
		return 0;
	int rc = 0;
	/* requests still at the device when the run stopped */
	for (int i = 0; i < TLO_SLOTS; i++)
		if (t->slot[i].busy)
			sim_timeline_slice(s->timeline, TIMELINE_PID_DEVICE, i, "device", "(in flight)",
					   t->slot[i].start, sim_now(s) - t->slot[i].start, true, NULL,
					   "sector", (int64_t)t->slot[i].sector);
	sim_timeline_finish(s->timeline, sim_now(s));
	s->timeline = NULL;
	rc = blk_sink_out_commit(&t->o, err); /* names the file and errno on a write error */
	sim_timeline_out_free(t);
	s->timeline_out = NULL;
	return rc;
}
