/* The simulator object: construction of the bare core, scheduling helpers,
 * failure recording, random streams and the workload's progress call (see
 * sim.h), the calls every layer makes. The run loop and teardown are
 * sim/sim_run.c; building the layers from a scenario is sim/scenario.c; the
 * result document is sim/results.c.
 */
#include "sim/sim.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/assert.h"
#include "sim/workload.h"

struct sim *sim_new_bare(uint64_t seed)
{
	struct sim *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (sim_engine_init(&s->engine, s, 1024)) {
		free(s);
		return NULL;
	}
	s->rng = sim_rng_set_new(seed);
	if (!s->rng) {
		sim_engine_free(&s->engine);
		free(s);
		return NULL;
	}
	s->seed = seed;
	sim_metrics_init(&s->metrics);
	s->metrics.clock = &s->engine.now;
	s->until_ns = SIM_TIME_MAX;
	s->pause_ns = SIM_TIME_MAX;
	s->replay = "none";
	return s;
}

void sim_at(struct sim *s, struct sim_event *ev, int64_t when)
{
	int rc;
	if (__builtin_expect(s->at_reserved, 0)) {
		s->at_reserved = false;
		s->reserved_used++;
		rc = sim_engine_schedule_seq(&s->engine, ev, when, s->reserved_seq);
	} else {
		rc = sim_engine_schedule(&s->engine, ev, when);
	}
	if (rc)
		sim_fail(s, SIM_E_NOMEM, "out of memory growing the event heap");
}

void sim_after(struct sim *s, struct sim_event *ev, int64_t delay_ns)
{
	SIM_ASSERT(delay_ns >= 0);
	int64_t now = s->engine.now;
	int64_t when = delay_ns > SIM_TIME_MAX - now ? SIM_TIME_MAX : now + delay_ns;
	sim_at(s, ev, when);
}

void sim_fail(struct sim *s, int code, const char *fmt, ...)
{
	if (s->failed)
		return; /* the first failure is the one worth reporting */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->fail.msg, sizeof(s->fail.msg), fmt, ap);
	va_end(ap);
	s->fail.code = code;
	s->failed = true;
	sim_engine_stop(&s->engine);
}

gsl_rng *sim_rng(struct sim *s, const char *name)
{
	gsl_rng *r = sim_rng_stream(s->rng, name);
	if (!r) {
		fprintf(stderr, "mobisim: out of memory creating random stream %s\n", name);
		abort();
	}
	return r;
}

gsl_rng *sim_rng_fixed(struct sim *s, int64_t seed, const char *name, struct sim_rng_set **own)
{
	*own = NULL;
	if (seed <= 0)
		return sim_rng(s, name);
	*own = sim_rng_set_new((uint64_t)seed);
	return *own ? sim_rng_stream(*own, name) : NULL;
}

bool sim_workload_done(struct sim *s)
{
	if (!s->workload)
		return true;
	if (s->stop_fg_done)
		return s->workload->ops->fg_done(s, s->workload->state);
	return s->workload->ops->done(s, s->workload->state);
}

void sim_workload_progress(struct sim *s)
{
	if (sim_workload_done(s))
		sim_engine_stop(&s->engine);
}
