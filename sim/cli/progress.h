/* The progress line of `run` and `compare`: on a terminal, for runs longer
 * than about two seconds, at most once a second on stderr: simulated time,
 * events per second and, when the run has a known end (run.until), the
 * time left. Nothing is printed when stderr is not a terminal, unless
 * MOBISIM_PROGRESS=1 asks for it (tests, logs). */
#ifndef SIM_CLI_PROGRESS_H
#define SIM_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct sim;

struct cli_progress {
	const char *label;  /* e.g. the policy set of a compare run; may be NULL */
	double t0, last;    /* wall clock: start, last line printed */
	double after_s;     /* first line after this long */
	uint64_t events0;
	bool shown;
};

/* Attach to s (before sim_run) when progress is wanted. */
void cli_progress_attach(struct cli_progress *p, struct sim *s, const char *label);
/* Clear the line after sim_run (no-op when nothing was shown). */
void cli_progress_done(struct cli_progress *p);

#endif
