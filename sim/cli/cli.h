/* Subcommands of the mobisim program. Each takes argv after its own name
 * (argv[0] is the subcommand) and returns the exit status (0, 1, 2); each
 * prints its own errors as "mobisim: file:line: message" on stderr. */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#include <stdbool.h>
#include <stddef.h>

struct sim_error;

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_device(int argc, char **argv);    /* device curve DEVICE.yaml */
int cmd_trace(int argc, char **argv);     /* trace stat|convert FILE */
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_workload(int argc, char **argv);  /* workload fit TRACE */
int cmd_latencytop(int argc, char **argv); /* latencytop RESULT|SCENARIO */
int cmd_sensitivity(int argc, char **argv); /* sensitivity SCENARIO --metric PATH */   /* validate [FILES] [-j N] [--fast] */

/* The scenario file arg names: arg itself when it is a file or a path,
 * else the bundled scenario of that name (what `mobisim list scenarios`
 * prints, with or without .yaml) in the data directory, written into buf. */
const char *cli_scenario_path(const char *arg, char *buf, size_t len);
/* Output options as NULL-terminated (option, path) pairs, a NULL path for
 * one not given: true (and a message) when two name the same file. */
bool cli_outputs_clash(const char *const *pairs);
/* Whether output path of option opt cannot be written (a directory, or in
 * a directory that is missing or not writable): says so and returns true,
 * found before a run rather than after it. */
bool cli_out_unwritable(const char *opt, const char *path);
/* --set KEY=VALUE assignments as a JSON object text {"KEY": "VALUE"}, for
 * the results database's runs.point; NULL on allocation failure. */
char *cli_sets_json(char *const *sets, int nsets);

/* Load SCENARIO and apply nsets "--set" assignments in order. */
struct cfg_doc;
int cli_load_scenario(const char *path, char **sets, int nsets, struct cfg_doc **out,
		      struct sim_error *err);

/* Print err as "mobisim: msg" and return its exit status. */
int cli_report(const struct sim_error *err);

#endif
