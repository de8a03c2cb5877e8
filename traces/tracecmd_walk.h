/* Structural check of a trace-cmd trace.dat before libtracecmd reads it
 * (traces/tracecmd_walk.c). */
#ifndef MOBISIM_TRACES_TRACECMD_WALK_H
#define MOBISIM_TRACES_TRACECMD_WALK_H

#include <stdint.h>

#include "sim/error.h"

/* Checks one event format file (its bytes, its byte offset for messages);
 * 0 or SIM_E_INPUT. */
typedef int (*tracecmd_format_check_fn)(const char *sys, const uint8_t *fmt, uint64_t size,
					uint64_t off, const char *name, struct sim_error *err);

/* Walks the whole file in p[0..len): 0, SIM_E_INPUT naming a byte offset,
 * or SIM_E_NOMEM. check may be NULL. */
int tracecmd_walk(const uint8_t *p, uint64_t len, const char *name, tracecmd_format_check_fn check,
		  struct sim_error *err);

#endif
