/* mobisim: the program. Parses the global options and hands argv to the
 * subcommand (sim/cli/cli.h). Exit status: 0 ok, 1 runtime failure, 2 bad
 * usage, config or input. */
#include <stdio.h>
#include <string.h>

#include "sim/cli/cli.h"
#include "sim/config.h"
#include "sim/results.h"
#include "sim/sim.h"
#include "traces/trace.h"
#include "version.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *synopsis;
};

static const struct subcommand subcommands[] = {
	{ "run", cmd_run, "run SCENARIO.yaml|NAME [--set KEY=VALUE]... [--seed N] [--out RESULT.json]\n"
			  "              [--trace-out SIM.blkparse|SIM.blktrace] [--timeline RUN.json]\n"
			  "              [--plugin X.so]... [--quiet]" },
	{ "compare", cmd_compare, "compare SCENARIO.yaml|NAME --policies \"baseline;expc;expc,boost\" [--set KEY=VALUE]...\n"
				  "              [--seed N] [--repeat N] [--out RESULT.json] [--plugin X.so]..." },
	{ "list", cmd_list, "list policies|schedulers|devices|scenarios|platforms|workloads|completions [--plugin X.so]..." },
	{ "device", cmd_device, "device curve DEVICE.yaml [--qd N] [--set KEY=VALUE]..." },
	{ "sweep", cmd_sweep, "sweep SWEEP.yaml [-j N] [--out DIR] [--resume] [--count|--list|--point K|--collect DIR]" },
	{ "validate", cmd_validate, "validate [FILE.yaml|DIR]... [-j N] [--fast] [--strict] [--doc FILE.md] [--tsv FILE]" },
	{ "sensitivity", cmd_sensitivity, "sensitivity SCENARIO.yaml|NAME --metric PATH [--params LIST|all] [--factors LO,HI] [-j N] [--out DIR]" },
	{ "latencytop", cmd_latencytop, "latencytop RESULT.json|COMPARE.json|SCENARIO.yaml [--policies \"baseline;jprio\"] [--set KEY=VALUE]... [--class fg|bg|all]" },
	{ "calibrate", cmd_calibrate, "calibrate TRACE [-o DEVICE.yaml]" },
	{ "workload", cmd_workload, "workload fit TRACE [-o FIT.yaml] [--chunk TIME] [--by pid|comm|uid] [--check]" },
	{ "trace", cmd_trace, "trace stat FILE|NAME|- | trace convert FILE --to blkparse|blktrace|mqsim [-o OUT]" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mobisim COMMAND [ARGS]\n\n"
		   "Trace-driven simulator of the mobile (Android/Linux) I/O stack.\n\n"
		   "commands:\n");
	for (const struct subcommand *c = subcommands; c->name; c++)
		fprintf(f, "  mobisim %s\n", c->synopsis);
	fprintf(f, "  mobisim --help | --version\n\n"
		   "`mobisim COMMAND --help` describes a command. The manual: `man mobisim` once\n"
		   "installed, `man -l docs/mobisim.1` in the source tree. SCENARIO is a file or a\n"
		   "name from `mobisim list scenarios`; bundled data: %s\n"
		   "Exit status: 0 ok, 1 runtime failure, 2 bad usage, config or input.\n",
		sim_datadir());
}

static int run_command(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("mobisim %s\n", MOBISIM_VERSION);
		printf("revision: %s\n", sim_git_revision());
		printf("trace.dat reader: %s\n", trace_tracecmd_built ? "yes (libtracecmd)"
							  : "no (built without libtracecmd)");
		return 0;
	}
	for (const struct subcommand *c = subcommands; c->name; c++)
		if (strcmp(argv[1], c->name) == 0)
			return c->fn(argc - 1, argv + 1);
	struct cfg_suggest sg;
	char hint[160];
	cfg_suggest_init(&sg, argv[1]);
	for (const struct subcommand *c = subcommands; c->name; c++)
		cfg_suggest_add(&sg, c->name);
	fprintf(stderr, "mobisim: unknown command '%s'%s\n", argv[1],
		cfg_suggest_hint(&sg, hint, sizeof(hint)));
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	results_install_signal_handlers();
	/* every command's stdout is checked once, here: a full disk or a
	 * closed pipe must not pass for success */
	return results_finish_stdout(run_command(argc, argv));
}
