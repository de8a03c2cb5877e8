/* Error records returned by library code (docs/architecture.md §6).
 *
 * Library functions never print or exit: they return a negative code from
 * the table below and fill a caller-owned struct sim_error with one line of
 * text that already names the place (file:line:col or byte offset). Only
 * main() prints it and maps the code to an exit status.
 */
#ifndef SIM_ERROR_H
#define SIM_ERROR_H

#include <stddef.h>

enum sim_errcode {
	SIM_OK = 0,
	SIM_E_INPUT = -2,   /* bad usage, config or input: exit 2 */
	SIM_E_RUNTIME = -1, /* the run itself failed: exit 1 */
	SIM_E_NOMEM = -3,   /* allocation failure: exit 1 */
	SIM_E_IO = -4,      /* could not read or write a file: exit 1 */
};

#define SIM_ERRMSG_MAX 1024

struct sim_error {
	int code;
	char msg[SIM_ERRMSG_MAX];
};

/* Fill err (may be NULL) with code and a printf-formatted message; returns code. */
int sim_errorf(struct sim_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Exit status main() uses for a code: 0, 1 or 2. */
int sim_error_exit_status(int code);

void sim_error_clear(struct sim_error *err);

#endif
