/* --db and --requests-csv: the adapter between a run and the results
 * database (sim/cli/results_db.h). It attaches to a created simulator as
 * its row observer (struct sim_observer, sim/sim.h): every request the
 * device served becomes a requests row, every wait a task was charged a
 * waits row, streamed as the run goes; rows_out_finish adds what the
 * result document holds (regions, the run's end). A run without it pays
 * nothing (sim->observer NULL). */
#ifndef SIM_CLI_ROWS_OUT_H
#define SIM_CLI_ROWS_OUT_H

#include "sim/cli/results_db.h"
#include "sim/error.h"

struct sim;
struct json_t;
struct rows_out;

/* A --requests-csv file (header written at open), shared by the runs of
 * one command; written through results_out, so it appears only on success. */
struct rows_csv;
int rows_csv_open(const char *path, struct rows_csv **out, struct sim_error *err);
int rows_csv_close(struct rows_csv *c, struct sim_error *err);
void rows_csv_abort(struct rows_csv *c);
FILE *rows_csv_file(struct rows_csv *c);

/* Record run s (created, not yet run) into db and/or csv (either may be
 * NULL, not both); r is its runs row. */
int rows_out_attach(struct sim *s, struct rdb *db, struct rows_csv *csv, const struct rdb_run *r,
		    struct rows_out **out, struct sim_error *err);
/* After sim_run: detach and end the run in the database with result. */
int rows_out_finish(struct rows_out *o, const struct json_t *result, struct sim_error *err);
/* Detach without ending the run (it failed). NULL ok. */
void rows_out_free(struct rows_out *o);

#endif
