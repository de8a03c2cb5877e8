/* Launch observer (see launchrec.h): the simulated blktrace of a launch,
 * as FAST and the ESL'20 loader profile a cold start.
 */
#include "models/launch/launchrec.h"

#include <stdlib.h>
#include <string.h>

#include "models/block/block.h"
#include "models/stack/stack.h"
#include "sim/sim.h"

static bool app_has_pid(const struct lrec_app *a, int32_t pid, bool *helper)
{
	for (int i = 0; i < LREC_MAX_PIDS; i++)
		if (a->pids[i] && a->pids[i] == pid) {
			*helper = i > 0;
			return true;
		}
	return false;
}

static void lrec_event(void *ctx, const struct blk_trace_event *ev)
{
	struct lrec *r = ctx;
	if (ev->action != 'D' || req_is_write(ev->flags) ||
	    ev->nr_sectors == 0)
		return;
	for (struct lrec_app *a = r->apps; a; a = a->next) {
		bool helper = false;
		if (!a->watching || !app_has_pid(a, ev->pid, &helper))
			continue;
		if (ev->action != 'D')
			return;
		uint64_t b = (uint64_t)ev->nr_sectors << SECTOR_SHIFT;
		if (helper) {
			a->helper_requests++;
			a->helper_bytes += b;
		} else {
			a->requests++;
			a->bytes += b;
		}
		if (a->recording && !helper) {
			if (lprof_record_request(a->prof, &a->map, r->bdev, ev->sector, ev->nr_sectors,
						 (ev->flags & REQ_META) != 0))
				sim_fail(r->sim, SIM_E_NOMEM, "out of memory recording a launch");
		}
		return;
	}
}

void lrec_init(struct lrec *r, struct sim *sim, struct lprof *prof)
{
	memset(r, 0, sizeof(*r));
	r->sim = sim;
	r->q = sim->blk;
	r->prof = prof;
	if (sim->stack)
		r->bdev = stack_file_find(sim->stack, "(bdev)");
}

static void lrec_install(struct lrec *r)
{
	if (r->installed || !r->q)
		return;
	struct blk_trace_sink s = { .event = lrec_event, .ctx = r };
	if (blk_add_trace_sink(r->q, &s) == 0)
		r->installed = true;
}

struct lrec_app *lrec_begin(struct lrec *r, const char *name, int32_t pid, bool record)
{
	struct lrec_app *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->name = strdup(name);
	if (!a->name) {
		free(a);
		return NULL;
	}
	a->rec = r;
	a->pids[0] = pid;
	lprof_map_init(&a->map);
	a->watching = true;
	a->start_ns = sim_now(r->sim);
	if (record && r->prof && r->bdev) {
		a->prof = lprof_app_get(r->prof, name);
		if (!a->prof) {
			free(a->name);
			free(a);
			return NULL;
		}
		lprof_app_clear(a->prof);
		a->recording = true;
	}
	if (r->tail)
		r->tail->next = a;
	else
		r->apps = a;
	r->tail = a;
	lrec_install(r);
	return a;
}

void lrec_add_helper(struct lrec_app *a, int32_t pid)
{
	for (int i = 1; i < LREC_MAX_PIDS; i++)
		if (!a->pids[i]) {
			a->pids[i] = pid;
			return;
		}
}

int lrec_note_file(struct lrec_app *a, struct stack_file *f)
{
	if (!a->recording || !f || stack_file_is_blockdev(f))
		return 0;
	return lprof_map_add_file(&a->map, f);
}

void lrec_end(struct lrec_app *a)
{
	a->recording = false;
	a->watching = false;
	a->end_ns = sim_now(a->rec->sim);
}

void lrec_destroy(struct lrec *r)
{
	if (r->installed && r->q)
		blk_remove_trace_sink(r->q, r);
	struct lrec_app *a = r->apps;
	while (a) {
		struct lrec_app *n = a->next;
		lprof_map_free(&a->map);
		free(a->name);
		free(a);
		a = n;
	}
	memset(r, 0, sizeof(*r));
}
