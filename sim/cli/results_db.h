/* The results database (--db, docs/results-db.md): runs, per-request rows,
 * task waits and regions of one or many runs in one SQLite file, and the
 * same requests table as CSV (--requests-csv).
 *
 * Two ways a file is written:
 *  - RDB_NEW (run, compare, a sweep point's own file): a temporary next to
 *    the path (results_out, sim/results.h), renamed over it by rdb_close
 *    only when everything was written; rdb_abort removes it. No journal:
 *    the rename is what makes it atomic.
 *  - RDB_SHARED (a sweep's database): opened in place (created, with its
 *    schema, through a temporary first), WAL journal, one writer (the
 *    sweep's master process); every run goes in as one transaction, so a
 *    reader sees a point whole or not at all, and a run_id written again
 *    replaces the old rows.
 * Rows are streamed through prepared statements in transactions of
 * RDB_BATCH rows; nothing is kept per row.
 */
#ifndef SIM_CLI_RESULTS_DB_H
#define SIM_CLI_RESULTS_DB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/error.h"

struct json_t;

#define RDB_BATCH 10000
/* PRAGMA user_version of the schema below; a file with another one is
 * refused rather than mixed with. */
#define RDB_SCHEMA_VERSION 1

enum rdb_mode { RDB_NEW, RDB_SHARED };

struct rdb;

/* What the runs row says about a run (strings copied; NULL: SQL NULL). */
struct rdb_run {
	const char *run_id;
	const char *command;     /* "run", "compare", "sweep" */
	const char *scenario;
	const char *point;       /* the point's keys as a JSON object text */
	uint64_t seed;
	const char *policy;      /* the policy set, "baseline" for none */
};

struct rdb_request {
	int64_t queue_ns, dispatch_ns, complete_ns;
	const char *op;          /* read, write, flush, discard */
	bool sync;
	uint64_t sector, size_bytes;
	const char *cls;         /* fg, bg */
	int32_t pid, tid;
	const char *comm, *app, *device;
};

struct rdb_wait {
	const char *task;
	int32_t pid, tid;
	const char *cls;         /* fg, bg, kernel */
	const char *cause;
	int64_t start_ns, end_ns;
};

/* Open path for writing. SIM_E_INPUT when path cannot hold a database (a
 * directory, a device, stdout; RDB_SHARED: a file that is not a mobisim
 * results database of this schema), SIM_E_IO when it cannot be written. */
int rdb_open(const char *path, enum rdb_mode mode, struct rdb **out, struct sim_error *err);
/* Start run r: its earlier rows (if any) are deleted in the same
 * transaction that writes the new ones. */
int rdb_run_begin(struct rdb *db, const struct rdb_run *r, struct sim_error *err);
/* Rows of the current run. On a database error the first one is kept
 * (rdb_failed) and later rows are dropped. */
void rdb_add_request(struct rdb *db, const struct rdb_request *q);
void rdb_add_wait(struct rdb *db, const struct rdb_wait *w);
const char *rdb_failed(const struct rdb *db);
/* End the current run: the result document's regions, engine end and
 * counts go in, and its transaction commits. */
int rdb_run_end(struct rdb *db, const struct json_t *result, struct sim_error *err);
/* Whether the database holds a finished run run_id. */
bool rdb_has_run(struct rdb *db, const char *run_id);
/* Copy run run_id from the RDB_NEW file at path into db in one
 * transaction, replacing what db had of it. */
int rdb_import(struct rdb *db, const char *path, const char *run_id, struct sim_error *err);
/* Write the requests table to f as CSV (ordered by run, then completion). */
int rdb_export_requests_csv(struct rdb *db, FILE *f, struct sim_error *err);
/* Commit and close; RDB_NEW: move the file into place. Frees db. */
int rdb_close(struct rdb *db, struct sim_error *err);
/* Close and, for RDB_NEW, remove the unfinished file. NULL ok. */
void rdb_abort(struct rdb *db);

/* The requests table's CSV header and one row (RFC 4180 quoting). */
void rdb_csv_header(FILE *f);
void rdb_csv_row(FILE *f, const char *run_id, uint64_t seq, const struct rdb_request *q);

#endif
