/* Error records: formatting and mapping to exit status (see error.h). */
#include "sim/error.h"

#include <stdarg.h>
#include <stdio.h>

int sim_errorf(struct sim_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

int sim_error_exit_status(int code)
{
	if (code == SIM_OK)
		return 0;
	if (code == SIM_E_INPUT)
		return 2;
	return 1;
}

void sim_error_clear(struct sim_error *err)
{
	if (err) {
		err->code = SIM_OK;
		err->msg[0] = '\0';
	}
}
