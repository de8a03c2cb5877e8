/* mq-deadline's calls beyond its elevator ops table
 * (models/iosched/mq_deadline.c): what a policy may ask of it.
 */
#ifndef MODELS_MQ_DEADLINE_H
#define MODELS_MQ_DEADLINE_H

#include <stdbool.h>

#include "models/block/elevator.h"

extern const struct elevator_ops mq_deadline_elevator_ops;

/* Is e an instance of mq-deadline? (NULL: no.) */
bool dd_is(const struct elevator *e);

/* Switch the foreground-aware mode (the thesis's mechanism 4 ported to
 * mq-deadline; the fgcfq policy calls it at set-up). 0, or SIM_E_INPUT
 * when e is not mq-deadline. */
int dd_set_fg_aware(struct elevator *e, bool on);

#endif
