/* The options that say which part of a trace to read, shared by `trace stat`,
 * `trace convert` and `workload fit` (one table, one parser): --from/--until,
 * --segment, --comm/--pid/--app, --max-gap/--gap, --columns, --strict. */
#ifndef SIM_CLI_TRACE_OPTIONS_H
#define SIM_CLI_TRACE_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>

#include "sim/error.h"
#include "traces/trace.h"

/* getopt codes above every short option */
enum {
	TOPT_FROM = 0x200,
	TOPT_UNTIL,
	TOPT_COMM,
	TOPT_PID,
	TOPT_APP,
	TOPT_MAX_GAP,
	TOPT_GAP,
	TOPT_COLUMNS,
	TOPT_STRICT,
	TOPT_SEGMENT,
};

/* Entries for a command's struct option table. */
#define CLI_TRACE_OPTIONS                                                   \
	{ "from", required_argument, NULL, TOPT_FROM },                     \
	{ "until", required_argument, NULL, TOPT_UNTIL },                   \
	{ "comm", required_argument, NULL, TOPT_COMM },                     \
	{ "pid", required_argument, NULL, TOPT_PID },                       \
	{ "app", required_argument, NULL, TOPT_APP },                       \
	{ "max-gap", required_argument, NULL, TOPT_MAX_GAP },               \
	{ "gap", required_argument, NULL, TOPT_GAP },                       \
	{ "columns", required_argument, NULL, TOPT_COLUMNS },               \
	{ "strict", no_argument, NULL, TOPT_STRICT },                       \
	{ "segment", required_argument, NULL, TOPT_SEGMENT }

struct cli_trace_options {
	struct trace_opts *opts;    /* where the values go */
	struct trace_fg *keep;      /* the process filter: the caller frees it */
	bool gap_mode;              /* --gap given */
};

/* c one of the TOPT_ codes: parse arg into t. 1 when c is one of them, 0
 * when it is not, SIM_E_INPUT with err when its value is bad. */
int cli_trace_option(struct cli_trace_options *t, int c, const char *arg, struct sim_error *err);
/* After the options: what they need of each other (--gap needs --max-gap).
 * 0, or SIM_E_INPUT naming cmd. */
int cli_trace_options_check(const struct cli_trace_options *t, const char *cmd,
			    struct sim_error *err);

#endif
