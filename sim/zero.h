/* Zeroing of the structs a request path resets (trace records, requests,
 * replay I/Os), without the "rep stos" GCC expands a constant-size
 * memset of more than a few words into: on the 2-core EPYC that
 * instruction's start-up cost was a tenth of a device replay's time
 * (perf, cpu-clock samples), against a few vector stores in libc's memset.
 */
#ifndef SIM_ZERO_H
#define SIM_ZERO_H

#include <stddef.h>

/* memset(p, 0, n), called out of line (sim/zero.c) so that the size is
 * not a constant at the call and libc's memset does the work. */
void sim_zero(void *p, size_t n);

#endif
