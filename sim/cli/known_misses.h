/* Known validation misses of a platform's device, noted on stderr by `mobisim run` (table from docs/validation.md's generated Results). */
#ifndef SIM_CLI_KNOWN_MISSES_H
#define SIM_CLI_KNOWN_MISSES_H

#include <stddef.h>
#include <stdio.h>

struct cfg_node;

/* One row of `mobisim validate` that misses its tolerance. */
struct known_miss {
	const char *platform; /* stem of configs/platforms/NAME.yaml; NULL: any platform */
	const char *device;   /* stem of configs/devices/NAME.yaml the run's device is; NULL: any */
	const char *file;     /* the configs/validation/ file holding the check */
	const char *check;    /* the check's name there */
	const char *paper;    /* published value, with its unit */
	const char *model;    /* the model's value, same unit */
	const char *error;    /* as validate prints it */
};

/* The table, ended by a row of NULLs (for tests and docs). */
const struct known_miss *known_misses_table(void);

/* When root (a resolved scenario) takes keys from a platform file
 * (configs/platforms/NAME.yaml, through `include:`) and the table has rows
 * for it and for its device preset, print one line on f:
 * "mobisim: note: platform NAME (device PRESET): known validation misses
 * (docs/validation.md): CHECK: PAPER published, MODEL modelled (ERROR); ...".
 * Returns how many rows it named (0: nothing printed). Prints nothing for
 * a scenario without a platform. */
size_t known_misses_note(FILE *f, const struct cfg_node *root);

#endif
