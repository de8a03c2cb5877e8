/* Internals shared by the completion models (models/completion_*.c): the
 * PAS sleep predictor, which pas, dpas and timer-irq all use.
 *
 * PAS (DPAS, USENIX FAST'26, github.com/DongDongJu/DPAS_FAST26; rules as on
 * yongsoojoo.github.io/demo/pas_sim.html and dpas-lab.pages.dev): after
 * every I/O the outcome is UNDER (the device finished after the task was
 * awake and polling) or OVER; from the last two outcomes (older, newer)
 * the adjust factor becomes UU: adj += UP, UO: adj = 1 - DN, OU: adj =
 * 1 + UP, OO: adj -= DN; adj <= 0 is reset to 1; the sleep is multiplied
 * by adj and floored at d_init. The outcome history starts as (OVER, OVER)
 * and adj at 1, as in the kernel port's zeroed per-CPU state.
 */
#ifndef MODELS_COMPLETION_INT_H
#define MODELS_COMPLETION_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "models/completion/completion.h"

struct cpl_pas {
	double up, dn;           /* tunables, fractions */
	int64_t d_init_ns;       /* floor and starting sleep */
	int64_t dur_ns;          /* the next I/O's sleep */
	double adj;
	bool last_under, pnlt_under;
	uint64_t updates, floor_hits;
};

void cpl_pas_reset(struct cpl_pas *p, double up, double dn, int64_t d_init_ns);
/* One outcome: update adj and the sleep. Returns true when the new sleep
 * sits at the floor d_init (DPAS's timer-floor count). */
bool cpl_pas_feedback(struct cpl_pas *p, bool under);

/* Shared JSON of a predictor under obj[key]. */
void cpl_pas_json(const struct cpl_pas *p, struct json_t *obj, const char *key);

/* UP and DN: the DPAS kernel port's per-bucket defaults up = 10000 and
 * dn = 100000 in units of div = 10^6 (as read in a public walk-through of
 * its blk_mq_poll_pas_update_duration); d_init is not given there. */
/* The PAS tunables for a struct with fields up, dn, d_init_ns. */
#define CPL_PAS_PARAMS(OFF)                                                                     \
	{ "up", CFG_T_DOUBLE, OFF(up), "", "0.01", 0, 10,                                       \
	  "DPAS_FAST26 kernel port: stat->up = 10000 / div 10^6", "UP: adjust increment", NULL }, \
	{ "dn", CFG_T_DOUBLE, OFF(dn), "", "0.1", 0, 1,                                         \
	  "DPAS_FAST26 kernel port: stat->dn = 100000 / div 10^6", "DN: adjust decrement", NULL },\
	{ "d_init_us", CFG_T_TIME, OFF(d_init_ns), "us", "1", 0.001, 1e6,                       \
	  "[INFER] not given in the sources read; about one hrtimer wake-up",                   \
	  "sleep floor and starting sleep (d_init)", NULL }

#endif
