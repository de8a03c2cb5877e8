/* The trace-reading options of `trace stat|convert` and `workload fit`
 * (sim/cli/trace_options.h): one parser, so each command reads a trace's
 * window, processes and gaps the same way (traces/trace.h does the work). */
#include "sim/cli/trace_options.h"

#include <stdio.h>

int cli_trace_option(struct cli_trace_options *t, int c, const char *arg, struct sim_error *err)
{
	switch (c) {
	case TOPT_FROM:
	case TOPT_UNTIL:
		return trace_window_parse(&t->opts->window, c == TOPT_UNTIL, arg,
					  c == TOPT_UNTIL ? "--until" : "--from", err) ? SIM_E_INPUT : 1;
	case TOPT_COMM:
	case TOPT_PID:
	case TOPT_APP: {
		const char *key = c == TOPT_COMM ? "comm" : c == TOPT_PID ? "pid" : "app";
		char opt[8];
		snprintf(opt, sizeof(opt), "--%s", key);
		if (trace_keep_add(&t->keep, key, arg, opt, err))
			return SIM_E_INPUT;
		t->opts->keep = t->keep;
		return 1;
	}
	case TOPT_MAX_GAP:
		return trace_gap_parse_max(&t->opts->gap, arg, "--max-gap", err) ? SIM_E_INPUT : 1;
	case TOPT_GAP:
		if (trace_gap_parse_mode(&t->opts->gap, arg, "--gap", err))
			return SIM_E_INPUT;
		t->gap_mode = true;
		return 1;
	case TOPT_COLUMNS:
		t->opts->columns = arg;
		return 1;
	case TOPT_SEGMENT:
		return trace_segment_parse(&t->opts->segment, arg, "--segment", err) ? SIM_E_INPUT : 1;
	case TOPT_STRICT:
		t->opts->strict = true;
		return 1;
	default:
		return 0;
	}
}

int cli_trace_options_check(const struct cli_trace_options *t, const char *cmd,
			    struct sim_error *err)
{
	if (t->gap_mode && !t->opts->gap.max_ns)
		return sim_errorf(err, SIM_E_INPUT, "%s: --gap needs --max-gap T (the longest gap kept)",
				  cmd);
	return 0;
}
