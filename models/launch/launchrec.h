/* Launch observer for the launch planners: watches the block layer's trace
 * points (the simulated blktrace) for the pids of launching apps, records
 * the read requests they issue to the device (D, after plug and elevator
 * merging: what blktrace shows of a launch) into a launch profile through
 * the app's LBA-to-extent tree (profiling run), and counts those requests
 * and their bytes, for the average I/O size of a launch.
 *
 * The queue has one trace sink; the observer installs itself when the
 * first launch is watched and forwards every event to the sink that was
 * there (--trace-out), so both see the same stream.
 */
#ifndef MODELS_LAUNCHREC_H
#define MODELS_LAUNCHREC_H

#include <stdbool.h>
#include <stdint.h>

#include "models/block/block.h"
#include "models/launch/launchprof.h"

struct sim;

#define LREC_MAX_PIDS 2

struct lrec_app {
	struct lrec *rec;
	char *name;
	int32_t pids[LREC_MAX_PIDS]; /* the app and its helper (prefetcher); 0 unused */
	bool recording;              /* Q events go into prof */
	bool watching;               /* D events are counted */
	struct lprof_app *prof;      /* recording target */
	struct lprof_map map;        /* the app's files */
	/* figures */
	uint64_t requests, bytes;    /* dispatched reads of the watched pids */
	uint64_t helper_requests, helper_bytes;
	int64_t start_ns, end_ns;
	struct lrec_app *next;
};

struct lrec {
	struct sim *sim;
	struct blk_queue *q;
	bool installed;
	struct stack_file *bdev;
	struct lprof *prof;          /* where recordings go (owned by the policy) */
	struct lrec_app *apps, *tail;
};

void lrec_init(struct lrec *r, struct sim *sim, struct lprof *prof);
/* Start watching app name run by pid (recording when record is true; the
 * app's previous records in prof are dropped). NULL on allocation failure. */
struct lrec_app *lrec_begin(struct lrec *r, const char *name, int32_t pid, bool record);
/* Also count the requests of a helper task (the prefetcher). */
void lrec_add_helper(struct lrec_app *a, int32_t pid);
/* The app is about to touch f: put f's extents in its LBA-to-extent tree. */
int lrec_note_file(struct lrec_app *a, struct stack_file *f);
/* Stop recording and counting. */
void lrec_end(struct lrec_app *a);
/* Restore the previous sink and free everything. */
void lrec_destroy(struct lrec *r);

#endif
