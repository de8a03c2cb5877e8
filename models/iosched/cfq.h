/* CFQ's calls beyond its elevator ops table (models/iosched/cfq.c): what a
 * policy may ask of the scheduler it runs on.
 */
#ifndef MODELS_CFQ_H
#define MODELS_CFQ_H

#include <stdbool.h>

#include "models/block/elevator.h"

extern const struct elevator_ops cfq_elevator_ops;

/* How an FG queue idles for its next request (tunable fg_idle). */
enum cfq_fg_idle {
	CFQ_FG_IDLE_CFQ = 0,    /* by CFQ's own rules */
	CFQ_FG_IDLE_ALWAYS = 1, /* also where CFQ would not (flash with NCQ) */
	CFQ_FG_IDLE_NEVER = 2,  /* an FG turn ends when the queue runs dry */
};

/* Is e an instance of CFQ? (NULL: no.) */
bool cfq_is(const struct elevator *e);

/* Switch the foreground-aware mode (the `fg_aware` tunable, thesis
 * mechanism 4) on or off. Meant for a policy's init, before I/O starts;
 * switching later is safe (requests counted as FG still unwind).
 * 0, or SIM_E_INPUT when e is not CFQ. */
int cfq_set_fg_aware(struct elevator *e, bool on);
/* Set fg_idle. 0, or SIM_E_INPUT when e is not CFQ or idle is unknown. */
int cfq_set_fg_idle(struct elevator *e, enum cfq_fg_idle idle);

#endif
