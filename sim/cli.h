/* Subcommands of the mobisim program. Each takes argv after its own name
 * (argv[0] is the subcommand) and returns the exit status (0, 1, 2); each
 * prints its own errors as "mobisim: file:line: message" on stderr. */
#ifndef SIM_CLI_H
#define SIM_CLI_H

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_device(int argc, char **argv);    /* device curve DEVICE.yaml */
int cmd_trace(int argc, char **argv);     /* trace stat|convert FILE */
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/* Print err as "mobisim: msg" and return its exit status. */
struct sim_error;
int cli_report(const struct sim_error *err);

#endif
