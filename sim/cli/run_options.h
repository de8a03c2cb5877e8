/* The options that say how to run a scenario and where its results go,
 * shared by `run` and `compare` (one table, one parser): --set, --seed,
 * --out, --db, --requests-csv, --plugin, --quiet. */
#ifndef SIM_CLI_RUN_OPTIONS_H
#define SIM_CLI_RUN_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>

#include "sim/error.h"
#include "sim/sim.h"

/* Entries for a command's struct option table; the short codes are the
 * letters both commands already took (-s, -o, -q). */
#define CLI_RUN_OPTIONS                                                     \
	{ "set", required_argument, NULL, 's' },                            \
	{ "seed", required_argument, NULL, 'S' },                           \
	{ "out", required_argument, NULL, 'o' },                            \
	{ "db", required_argument, NULL, 'D' },                             \
	{ "requests-csv", required_argument, NULL, 'C' },                   \
	{ "plugin", required_argument, NULL, 'P' },                         \
	{ "quiet", no_argument, NULL, 'q' }

struct cli_run_options {
	char **sets;               /* --set KEY=VALUE, in order (room for argc) */
	int nsets;
	const char **plugins;      /* --plugin PATH, in order (room for argc) */
	int nplugins;
	struct sim_options *so;    /* --seed goes here */
	const char *out, *db_path, *csv_path;
	bool quiet;
};

/* c one of CLI_RUN_OPTIONS' codes: take arg into r. 1 when c is one of
 * them, 0 when it is not, SIM_E_INPUT with err when its value is bad. */
int cli_run_option(struct cli_run_options *r, int c, char *arg, struct sim_error *err);

#endif
