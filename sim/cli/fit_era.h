/* The stack `workload fit` gives a trace's model when the user names none:
 * the device kind from the block device's major number, the block layer
 * and scheduler from the recording kernel's release (sim/cli/fit_era.c). */
#ifndef MOBISIM_CLI_FIT_ERA_H
#define MOBISIM_CLI_FIT_ERA_H

#include <stddef.h>
#include <stdint.h>

struct fit_era {
	const char *device;    /* a preset name, or NULL: the trace does not say */
	const char *scheduler; /* a scheduler name, or NULL */
	char device_why[240], scheduler_why[320];
};

/* major: the first request's device major number (0 = none seen);
 * release: `uname -r` of the recording kernel, "" when the trace lacks it. */
void fit_era_pick(uint32_t major, const char *release, struct fit_era *out);

#endif
