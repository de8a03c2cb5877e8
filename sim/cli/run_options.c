/* The run options of `run` and `compare` (sim/cli/run_options.h): one
 * parser, so both commands read a scenario's overrides, seed, plugins and
 * outputs the same way. */
#include "sim/cli/run_options.h"

int cli_run_option(struct cli_run_options *r, int c, char *arg, struct sim_error *err)
{
	switch (c) {
	case 's':
		r->sets[r->nsets++] = arg;
		return 1;
	case 'S':
		if (sim_seed_parse(arg, &r->so->seed, err))
			return SIM_E_INPUT;
		r->so->seed_given = true;
		return 1;
	case 'o':
		r->out = arg;
		return 1;
	case 'D':
		r->db_path = arg;
		return 1;
	case 'C':
		r->csv_path = arg;
		return 1;
	case 'P':
		r->plugins[r->nplugins++] = arg;
		return 1;
	case 'q':
		r->quiet = true;
		return 1;
	default:
		return 0;
	}
}
