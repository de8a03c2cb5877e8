/* The warnings a run's result carries, as lines of text, for every command
 * that runs a simulation (run, compare, sweep, sensitivity, validate). */
#ifndef SIM_CLI_WARNINGS_H
#define SIM_CLI_WARNINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_t;

/* A new array of strings (maybe empty) from res's workload: its
 * "warnings" (open-loop overload ...), what its trace reader read past
 * ("reader_warnings": the reader's notes, how many more there were, time
 * going backwards, clock jumps, as `trace stat` prints them), and the same
 * for each source of a composite workload, prefixed "source NAME: "; then
 * one for each policy of the set that had nothing to act on ("applied":
 * false, or all its counters 0) and why (expc on a block-level replay:
 * no page cache). */
struct json_t *cli_result_warnings(const struct json_t *res);

/* Print each as "mobisim: warning: [LABEL: ]TEXT" on f; how many. */
size_t cli_warnings_print(FILE *f, const char *label, const struct json_t *warnings);

/* Warnings of several runs, each distinct text once: tally is a JSON
 * object (json_object()) the runs' warnings are added to, label naming
 * the run; cli_warn_tally_json gives it as an array of {"warning", "runs"
 * (how many runs had it), "first" (the first run's label)}, in the order
 * first seen, for a result document. */
void cli_warn_tally_add(struct json_t *tally, const struct json_t *warnings, const char *label);
struct json_t *cli_warn_tally_json(const struct json_t *tally);
/* Print the tally on f, a line each: "LEAD TEXT (N of TOTAL WHAT, first
 * LABEL)" (lead e.g. "mobisim: warning: "), the first max entries and a
 * count of the rest; how many distinct texts there are. */
size_t cli_warn_tally_print(FILE *f, const char *lead, const struct json_t *tally, size_t total,
			    const char *what, size_t max);

/* For runs that repetitions cannot tell apart (every source starts at a
 * fixed time: one phase): the key of a task of res's workload (its config
 * echo) whose start is fixed and could be drawn per seed, the launching one
 * first (gen app or launch, or one with a region), e.g.
 * "workload.tasks.app.start" or "workload.sources.bg.tasks.w.start";
 * false and "" when there is none (a replayed trace). */
bool cli_phase_key(const struct json_t *res, char *buf, size_t len);

#endif
