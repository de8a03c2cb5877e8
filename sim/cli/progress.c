/* Progress line (see progress.h). */
#include "sim/cli/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim.h"

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress_tick(struct sim *s, void *ctx)
{
	struct cli_progress *p = ctx;
	double now = wall_s();
	if (now - p->t0 < p->after_s || (p->shown && now - p->last < 1.0))
		return;
	double el = now - p->t0;
	double sim_s = (double)sim_now(s) * 1e-9;
	double evs = (double)(s->engine.fired - p->events0) / (el > 0 ? el : 1);
	char eta[48] = "";
	if (s->until_ns != SIM_TIME_MAX && sim_now(s) > 0) {
		double left = el * (double)(s->until_ns - sim_now(s)) / (double)sim_now(s);
		snprintf(eta, sizeof(eta), ", ETA %.0f s", left);
	}
	fprintf(stderr, "\rmobisim: %s%ssimulated %.3f s, %.2f M events/s, %.0f s elapsed%s\033[K",
		p->label ? p->label : "", p->label ? ": " : "", sim_s, evs / 1e6, el, eta);
	fflush(stderr);
	p->shown = true;
	p->last = now;
}

void cli_progress_attach(struct cli_progress *p, struct sim *s, const char *label)
{
	memset(p, 0, sizeof(*p));
	const char *force = getenv("MOBISIM_PROGRESS");
	bool on = force ? strcmp(force, "1") == 0 : isatty(STDERR_FILENO);
	if (!on || !s)
		return;
	p->label = label;
	p->t0 = wall_s();
	p->after_s = force ? 0 : 2.0;
	p->events0 = s->engine.fired;
	s->on_progress = progress_tick;
	s->progress_ctx = p;
}

void cli_progress_done(struct cli_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}
