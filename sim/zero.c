/* sim_zero: see sim/zero.h. In a file of its own so that no caller's
 * constant size reaches the memset below (no LTO in this build). */
#include "sim/zero.h"

#include <string.h>

void sim_zero(void *p, size_t n)
{
	memset(p, 0, n);
}
