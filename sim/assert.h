/* Invariants that are loud in debug builds and free in release (docs/architecture.md §6). */
#ifndef SIM_ASSERT_H
#define SIM_ASSERT_H

#include <stdio.h>
#include <stdlib.h>

#ifdef SIM_DEBUG
#define SIM_ASSERT(cond)                                                          \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, \
				__LINE__, #cond);                                 \
			abort();                                                  \
		}                                                                 \
	} while (0)
#else
#define SIM_ASSERT(cond) ((void)0)
#endif

#endif
