/* The simulator's run loop (with the pauses of a fork at a phase) and
 * teardown, and where its bundled data is (see sim.h): the assembly's side
 * of struct sim, which knows every layer it tears down. The calls the
 * layers make into the simulator are sim/sim.c.
 */
#include "sim/sim.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "models/block/block.h"
#include "models/device/device.h"
#include "sim/assert.h"
#include "sim/scenario.h"
#include "sim/workload.h"
#include "version.h"

/* Slice of simulated time between done() checks in sim_run. */
#define SIM_DONE_CHECK_NS 1000000

static double monotonic_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool engine_cross(struct sim *s, int64_t when)
{
	bool go = s->on_cross(s, s->pause_ctx, when);
	s->engine.barrier = s->pause_ns;
	return go;
}

/* The pauses within this slice: run the events before each pause's time,
 * then call on_pause. Returns the engine's result when the run ended inside
 * (a stop, the event limit), else SIM_RUN_UNTIL: an empty queue before a
 * held start is not the end of the run, as the start is pending in a run
 * from t = 0. Inline clock moves still go as far as stop, as they do there
 * (a crossing of the pause asks on_cross). */
static enum sim_run_result run_pauses(struct sim *s, int64_t stop)
{
	while (s->pause_ns <= stop && !s->failed && !s->halted) {
		int64_t at = s->pause_ns;
		if (at > sim_now(s)) {
			enum sim_run_result r = sim_engine_run_before(&s->engine, at, stop);
			if (r == SIM_RUN_STOPPED || r == SIM_RUN_LIMIT)
				return r;
			if (s->pause_ns != at)
				continue; /* a crossing moved it */
		}
		if (!s->on_pause(s, s->pause_ctx))
			s->halted = true;
		s->engine.barrier = s->pause_ns;
		SIM_ASSERT(s->halted || s->pause_ns > at);
	}
	return s->halted ? SIM_RUN_STOPPED : SIM_RUN_UNTIL;
}

int sim_run(struct sim *s, struct sim_error *err)
{
	s->run_t0 = monotonic_s();
	if (s->workload)
		s->workload->ops->start(s, s->workload->state);
	enum sim_run_result r = SIM_RUN_EMPTY;
	if (s->on_pause) {
		s->engine.cross = engine_cross;
		s->engine.barrier = s->pause_ns;
	}
	/* Run in slices of simulated time and look at done() between them, so
	 * a workload that never calls sim_workload_progress() still ends within
	 * one slice of finishing although periodic kernel work never lets the
	 * event queue drain. */
	while (!s->failed && !sim_workload_done(s)) {
		int64_t now = sim_now(s);
		int64_t stop = now > s->until_ns - SIM_DONE_CHECK_NS ? s->until_ns
								     : now + SIM_DONE_CHECK_NS;
		/* Skip whole empty slices (done() cannot change without an
		 * event), keeping the slice boundaries where they were: a trace
		 * gap of years must not take 10^15 slices. */
		int64_t next = sim_engine_next_time(&s->engine);
		if (s->pause_ns < next)
			next = s->pause_ns;
		if (next > stop && next != SIM_TIME_MAX && stop < s->until_ns) {
			uint64_t k = ((uint64_t)next - (uint64_t)now - 1) / SIM_DONE_CHECK_NS + 1;
			stop = k > (uint64_t)(s->until_ns - now) / SIM_DONE_CHECK_NS
				       ? s->until_ns
				       : now + (int64_t)k * SIM_DONE_CHECK_NS;
		}
		r = s->pause_ns <= stop ? run_pauses(s, stop) : SIM_RUN_UNTIL;
		if (r == SIM_RUN_UNTIL && !s->halted)
			r = sim_engine_run(&s->engine, stop);
		if (s->halted) {
			s->end_reason = "paused";
			s->wall_s = monotonic_s() - s->run_t0;
			return 0;
		}
		if (s->on_progress)
			s->on_progress(s, s->progress_ctx);
		if (r != SIM_RUN_UNTIL || sim_now(s) >= s->until_ns)
			break;
	}
	s->wall_s = monotonic_s() - s->run_t0;
	bool done = sim_workload_done(s);
	s->end_reason = done ? (s->stop_fg_done ? "fg_done" : "done") : r == SIM_RUN_UNTIL ? "until"
				 : r == SIM_RUN_LIMIT ? "max_events" : "stuck";
	if (s->failed)
		return sim_errorf(err, s->fail.code, "%s", s->fail.msg);
	if (r == SIM_RUN_EMPTY && !done) {
		/* Nothing can ever happen again, yet work is outstanding: a model
		 * lost a wake-up or a completion. Say where the work is stuck. */
		uint64_t outstanding = s->blk ? blk_queue_outstanding(s->blk) : 0;
		return sim_errorf(err, SIM_E_RUNTIME,
				  "deadlock at t=%lld ns: the workload is not finished but no event "
				  "is pending (%llu block requests outstanding, %u commands in the "
				  "device)",
				  (long long)sim_now(s), (unsigned long long)outstanding,
				  s->device ? s->device->inflight : 0);
	}
#ifdef SIM_DEBUG
	if (r == SIM_RUN_EMPTY && s->blk && blk_queue_outstanding(s->blk) != 0)
		return sim_errorf(err, SIM_E_RUNTIME,
				  "request conservation violated: %llu requests never completed",
				  (unsigned long long)blk_queue_outstanding(s->blk));
#endif
	return 0;
}

void sim_destroy(struct sim *s)
{
	if (!s)
		return;
	/* Models still own events in the queue (commands in the device when the
	 * workload finished): empty the queue before their memory goes. */
	sim_engine_free(&s->engine);
	if (s->workload) {
		if (s->workload->ops->destroy)
			s->workload->ops->destroy(s->workload->state);
		free(s->workload);
	}
	scenario_destroy_layers(s);
	if (s->blk)
		blk_queue_destroy(s->blk);
	if (s->device)
		device_destroy(s->device);
	sim_metrics_free(&s->metrics);
	sim_rng_set_free(s->rng);
	cfg_free(s->doc);
	cfg_free(s->prefix_doc);
	cfg_free(s->device_doc);
	free(s);
}

static bool is_dir(const char *p)
{
	struct stat st;
	return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* PREFIX/share/mobisim beside the running PREFIX/bin/mobisim, when it holds
 * configs/: an installed tree finds its own data wherever it was installed
 * (cmake --install --prefix, a moved or packaged tree). */
static const char *exe_datadir(void)
{
	static char dir[4200];
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	char probe[4300];
	snprintf(dir, sizeof(dir), "%s/../share/mobisim", exe);
	snprintf(probe, sizeof(probe), "%s/configs", dir);
	if (!is_dir(probe))
		return NULL;
	char *real = realpath(dir, NULL); /* PREFIX/share/mobisim, not PREFIX/bin/../ */
	if (real && strlen(real) < sizeof(dir))
		memcpy(dir, real, strlen(real) + 1);
	free(real);
	return dir;
}

const char *sim_datadir(void)
{
	const char *env = getenv("MOBISIM_DATADIR");
	if (env && *env)
		return env;
	const char *inst = exe_datadir();
	if (inst)
		return inst;
	if (is_dir(MOBISIM_SOURCE_DIR "/configs"))
		return MOBISIM_SOURCE_DIR;
	return MOBISIM_INSTALL_DATADIR;
}
