/* The results database (--db) in SQLite and its CSV export: schema,
 * prepared inserts in batched transactions, the atomic file of a single
 * command and the shared WAL file of a sweep (sim/cli/results_db.h;
 * docs/results-db.md has the schema for users).
 *
 * Times are integer nanoseconds of simulated time, as everywhere in
 * mobisim (columns end in _ns), so that the rows are exact and add up to
 * the result document's figures; seconds are a division away in SQL.
 */
#include "sim/cli/results_db.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>
#include <sqlite3.h>

#include "sim/results.h"
#include "sim/sim.h"
#include "version.h"

/* One list of the requests columns for the table, the CSV header and the
 * export, so the three cannot drift apart. */
#define RDB_REQUEST_COLS                                                                  \
	"run_id, seq, queue_ns, dispatch_ns, complete_ns, latency_ns, op, sync, sector, " \
	"size_bytes, class, pid, tid, comm, app, device"

static const char rdb_schema[] =
	"CREATE TABLE IF NOT EXISTS runs ("
	" run_id TEXT PRIMARY KEY, command TEXT NOT NULL, scenario TEXT, point TEXT,"
	" seed INTEGER, policy TEXT, device TEXT, scheduler TEXT, mobisim_version TEXT,"
	" git_revision TEXT, end_reason TEXT, sim_ns INTEGER, requests INTEGER, waits INTEGER);"
	"CREATE TABLE IF NOT EXISTS requests ("
	" run_id TEXT NOT NULL, seq INTEGER NOT NULL, queue_ns INTEGER, dispatch_ns INTEGER,"
	" complete_ns INTEGER, latency_ns INTEGER, op TEXT, sync INTEGER, sector INTEGER,"
	" size_bytes INTEGER, class TEXT, pid INTEGER, tid INTEGER, comm TEXT, app TEXT,"
	" device TEXT);"
	"CREATE INDEX IF NOT EXISTS requests_run ON requests (run_id, seq);"
	"CREATE TABLE IF NOT EXISTS waits ("
	" run_id TEXT NOT NULL, task TEXT, pid INTEGER, tid INTEGER, class TEXT, cause TEXT,"
	" start_ns INTEGER, end_ns INTEGER);"
	"CREATE INDEX IF NOT EXISTS waits_run ON waits (run_id);"
	"CREATE TABLE IF NOT EXISTS regions ("
	" run_id TEXT NOT NULL, name TEXT, task TEXT, start_ns INTEGER, end_ns INTEGER,"
	" duration_ns INTEGER);"
	"CREATE INDEX IF NOT EXISTS regions_run ON regions (run_id);";

static const char *const rdb_tables[] = { "requests", "waits", "regions", "runs" };
#define RDB_NTABLES (sizeof(rdb_tables) / sizeof(rdb_tables[0]))

struct rdb {
	sqlite3 *h;
	enum rdb_mode mode;
	char *path;
	struct results_out *out;   /* RDB_NEW: the temporary being written */
	sqlite3_stmt *ins_req, *ins_wait;
	char *run_id;              /* the run being written, NULL between runs */
	uint64_t nreq, nwait, pending;
	bool in_tx;
	bool failed;
	char why[SIM_ERRMSG_MAX];
};

static int db_err(struct rdb *db, struct sim_error *err, const char *what)
{
	return sim_errorf(err, SIM_E_IO, "%s: %s: %s", db->path, what,
			  db->h ? sqlite3_errmsg(db->h) : "cannot open");
}

static int db_exec(struct rdb *db, const char *sql, struct sim_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	int rc = sim_errorf(err, SIM_E_IO, "%s: %s", db->path, msg ? msg : sqlite3_errmsg(db->h));
	sqlite3_free(msg);
	return rc;
}

/* Run sql with its one parameter ?1 = text. */
static int db_exec1(struct rdb *db, const char *sql, const char *text, struct sim_error *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_err(db, err, "prepare");
	sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : db_err(db, err, "write");
}

static void db_free(struct rdb *db)
{
	if (!db)
		return;
	sqlite3_finalize(db->ins_req);
	sqlite3_finalize(db->ins_wait);
	sqlite3_close(db->h);
	free(db->run_id);
	free(db->path);
	free(db);
}

static int db_prepare(struct rdb *db, struct sim_error *err)
{
	static const char req[] = "INSERT INTO requests (" RDB_REQUEST_COLS ") VALUES "
				  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";
	static const char wait[] = "INSERT INTO waits (run_id, task, pid, tid, class, cause, "
				   "start_ns, end_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
	if (sqlite3_prepare_v2(db->h, req, -1, &db->ins_req, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, wait, -1, &db->ins_wait, NULL) != SQLITE_OK)
		return db_err(db, err, "prepare");
	return 0;
}

/* The schema version of an open file: 0 for a new, empty one. */
static int db_user_version(struct rdb *db, const char *schema, int *version,
			   struct sim_error *err)
{
	char sql[64];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql), "PRAGMA %s.user_version", schema);
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
		int code = sqlite3_errcode(db->h);
		int rc = sim_errorf(err, code == SQLITE_NOTADB ? SIM_E_INPUT : SIM_E_IO,
				    "%s: %s", db->path, sqlite3_errmsg(db->h));
		return rc;
	}
	int rc = sqlite3_step(st);
	*version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		int code = sqlite3_errcode(db->h);
		return sim_errorf(err, code == SQLITE_NOTADB ? SIM_E_INPUT : SIM_E_IO, "%s: %s",
				  db->path, sqlite3_errmsg(db->h));
	}
	return 0;
}

/* The tables and this schema's version in an empty database. */
static int db_init_schema(struct rdb *db, struct sim_error *err)
{
	int rc = db_exec(db, rdb_schema, err);
	if (!rc) {
		char sql[64];
		snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", RDB_SCHEMA_VERSION);
		rc = db_exec(db, sql, err);
	}
	return rc;
}

/* No table, index or view at all (a zero-length file is such a database). */
static bool db_is_empty(struct rdb *db)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) != SQLITE_OK)
		return false;
	bool empty = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0;
	sqlite3_finalize(st);
	return empty;
}

static int db_open_new(const char *path, struct rdb *db, struct sim_error *err)
{
	int rc = results_out_open(path, &db->out, err);
	if (rc)
		return rc;
	if (results_out_is_direct(db->out))
		return sim_errorf(err, SIM_E_INPUT, "%s: a results database must be a regular file "
				  "(it is written next to it and renamed)", path);
	/* The empty temporary is a valid empty database; no journal: a failed
	 * run removes the file, it is never rolled back. */
	if (sqlite3_open_v2(results_out_tmp_path(db->out), &db->h, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK)
		return db_err(db, err, "open");
	rc = db_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", err);
	return rc ? rc : db_init_schema(db, err);
}

static int db_open_shared(const char *path, struct rdb *db, struct sim_error *err)
{
	struct stat st;
	int rc;
	if (stat(path, &st) != 0) {
		if (errno != ENOENT)
			return sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(errno));
		/* a new database appears whole, schema and all, or not at all */
		struct rdb *fresh;
		rc = rdb_open(path, RDB_NEW, &fresh, err);
		if (!rc)
			rc = rdb_close(fresh, err);
		if (rc)
			return rc;
	} else if (!S_ISREG(st.st_mode)) {
		return sim_errorf(err, SIM_E_INPUT, "%s: not a regular file", path);
	}
	if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		return db_err(db, err, "open");
	sqlite3_busy_timeout(db->h, 10000);
	int version;
	rc = db_user_version(db, "main", &version, err);
	if (rc)
		return rc;
	if (version == 0 && db_is_empty(db)) {
		/* an empty file (`touch`, or a reader that opened the path before
		 * the sweep made it): nothing to lose, so it takes the schema */
		rc = db_exec(db, "BEGIN IMMEDIATE", err);
		if (!rc)
			rc = db_init_schema(db, err);
		if (!rc)
			rc = db_exec(db, "COMMIT", err);
		if (rc)
			return rc;
		version = RDB_SCHEMA_VERSION;
	}
	if (version != RDB_SCHEMA_VERSION)
		return sim_errorf(err, SIM_E_INPUT, "%s: not a mobisim results database of schema "
				  "version %d (it has %d); give another --db", path,
				  RDB_SCHEMA_VERSION, version);
	/* WAL: readers (a notebook watching the sweep) never block the writer */
	rc = db_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", err);
	if (!rc)
		rc = db_exec(db, rdb_schema, err);
	return rc;
}

int rdb_open(const char *path, enum rdb_mode mode, struct rdb **out, struct sim_error *err)
{
	*out = NULL;
	struct rdb *db = calloc(1, sizeof(*db));
	if (!db || !(db->path = strdup(path))) {
		free(db);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	db->mode = mode;
	int rc = mode == RDB_NEW ? db_open_new(path, db, err) : db_open_shared(path, db, err);
	if (!rc)
		rc = db_prepare(db, err);
	if (rc) {
		rdb_abort(db);
		return rc;
	}
	*out = db;
	return 0;
}

static int db_delete_run(struct rdb *db, const char *schema_prefix, const char *run_id,
			 struct sim_error *err)
{
	char sql[128];
	for (size_t i = 0; i < RDB_NTABLES; i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s%s WHERE run_id = ?1", schema_prefix,
			 rdb_tables[i]);
		int rc = db_exec1(db, sql, run_id, err);
		if (rc)
			return rc;
	}
	return 0;
}

int rdb_run_begin(struct rdb *db, const struct rdb_run *r, struct sim_error *err)
{
	free(db->run_id);
	db->run_id = strdup(r->run_id);
	if (!db->run_id)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	db->nreq = db->nwait = db->pending = 0;
	int rc = db_exec(db, "BEGIN", err);
	if (rc)
		return rc;
	db->in_tx = true;
	rc = db_delete_run(db, "", r->run_id, err);
	if (rc)
		return rc;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h,
			       "INSERT INTO runs (run_id, command, scenario, point, seed, policy, "
			       "mobisim_version, git_revision) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(db, err, "prepare");
	sqlite3_bind_text(st, 1, r->run_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, r->command, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, r->scenario, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, r->point ? r->point : "{}", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)r->seed);
	sqlite3_bind_text(st, 6, r->policy, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, MOBISIM_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, sim_git_revision(), -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(db, err, "write runs");
}

static void db_fail(struct rdb *db, const char *what)
{
	if (db->failed)
		return;
	db->failed = true;
	snprintf(db->why, sizeof(db->why), "%s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
}

const char *rdb_failed(const struct rdb *db)
{
	return db->failed ? db->why : NULL;
}

/* A long run's rows in transactions of RDB_BATCH: one per row would sync
 * per row, one for the whole run would hold a journal of it all. A shared
 * database gets the run in one transaction (it is imported whole). */
static void db_row_done(struct rdb *db)
{
	if (db->mode != RDB_NEW || ++db->pending < RDB_BATCH)
		return;
	db->pending = 0;
	if (sqlite3_exec(db->h, "COMMIT; BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		db_fail(db, "commit");
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

void rdb_add_request(struct rdb *db, const struct rdb_request *q)
{
	if (db->failed || !db->run_id)
		return;
	sqlite3_stmt *st = db->ins_req;
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, db->run_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)db->nreq);
	sqlite3_bind_int64(st, 3, q->queue_ns);
	sqlite3_bind_int64(st, 4, q->dispatch_ns);
	sqlite3_bind_int64(st, 5, q->complete_ns);
	sqlite3_bind_int64(st, 6, q->complete_ns - q->queue_ns);
	sqlite3_bind_text(st, 7, q->op, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 8, q->sync);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)q->sector);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)q->size_bytes);
	sqlite3_bind_text(st, 11, q->cls, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 12, q->pid);
	sqlite3_bind_int(st, 13, q->tid);
	bind_text_or_null(st, 14, q->comm);
	bind_text_or_null(st, 15, q->app);
	bind_text_or_null(st, 16, q->device);
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_fail(db, "write requests");
		return;
	}
	db->nreq++;
	db_row_done(db);
}

void rdb_add_wait(struct rdb *db, const struct rdb_wait *w)
{
	if (db->failed || !db->run_id)
		return;
	sqlite3_stmt *st = db->ins_wait;
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, db->run_id, -1, SQLITE_STATIC);
	bind_text_or_null(st, 2, w->task);
	sqlite3_bind_int(st, 3, w->pid);
	sqlite3_bind_int(st, 4, w->tid);
	sqlite3_bind_text(st, 5, w->cls, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, w->cause, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, w->start_ns);
	sqlite3_bind_int64(st, 8, w->end_ns);
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_fail(db, "write waits");
		return;
	}
	db->nwait++;
	db_row_done(db);
}

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* "expc,boost" from the result's policies.names, "baseline" without. */
static char *policy_label(const json_t *result)
{
	const json_t *names = json_object_get(json_object_get(result, "policies"), "names");
	size_t n = json_array_size(names), len = 1;
	for (size_t i = 0; i < n; i++)
		len += strlen(json_string_value(json_array_get(names, i)) ?: "") + 1;
	if (n == 0)
		return strdup("baseline");
	char *s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, json_string_value(json_array_get(names, i)) ?: "");
	}
	return s;
}

static int db_regions(struct rdb *db, const json_t *result, struct sim_error *err)
{
	const json_t *regions = json_object_get(result, "regions");
	if (!json_array_size(regions))
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "INSERT INTO regions (run_id, name, task, start_ns, end_ns, "
			       "duration_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, NULL) != SQLITE_OK)
		return db_err(db, err, "prepare");
	size_t i;
	const json_t *r;
	int rc = 0;
	json_array_foreach(regions, i, r) {
		json_int_t start = json_integer_value(json_object_get(r, "start_ns"));
		json_int_t dur = json_integer_value(json_object_get(r, "duration_ns"));
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, db->run_id, -1, SQLITE_STATIC);
		bind_text_or_null(st, 2, jstr(r, "name"));
		bind_text_or_null(st, 3, jstr(r, "task"));
		sqlite3_bind_int64(st, 4, start);
		sqlite3_bind_int64(st, 5, start + dur);
		sqlite3_bind_int64(st, 6, dur);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = db_err(db, err, "write regions");
			break;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

int rdb_run_end(struct rdb *db, const json_t *result, struct sim_error *err)
{
	if (db->failed)
		return sim_errorf(err, SIM_E_IO, "%s", db->why);
	int rc = db_regions(db, result, err);
	if (rc)
		return rc;
	const json_t *dev = json_object_get(result, "device");
	const json_t *engine = json_object_get(result, "engine");
	char device[256];
	const char *preset = jstr(dev, "preset");
	snprintf(device, sizeof(device), "%s", preset && strcmp(preset, "inline") ? preset
									  : jstr(dev, "model") ?: "");
	char *policy = policy_label(result);
	sqlite3_stmt *st;
	if (!policy)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	if (sqlite3_prepare_v2(db->h, "UPDATE runs SET policy = COALESCE(policy, ?2), device = ?3, "
			       "scheduler = ?4, end_reason = ?5, sim_ns = ?6, requests = ?7, waits = ?8 "
			       "WHERE run_id = ?1", -1, &st, NULL) != SQLITE_OK) {
		free(policy);
		return db_err(db, err, "prepare");
	}
	sqlite3_bind_text(st, 1, db->run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, policy, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, device, -1, SQLITE_STATIC);
	bind_text_or_null(st, 4, jstr(json_object_get(result, "block"), "scheduler"));
	bind_text_or_null(st, 5, jstr(engine, "end"));
	sqlite3_bind_int64(st, 6, json_integer_value(json_object_get(engine, "sim_ns")));
	sqlite3_bind_int64(st, 7, (sqlite3_int64)db->nreq);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)db->nwait);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_err(db, err, "write runs");
	sqlite3_finalize(st);
	free(policy);
	if (!rc)
		rc = db_exec(db, "COMMIT", err);
	db->in_tx = false;
	free(db->run_id);
	db->run_id = NULL;
	return rc;
}

bool rdb_has_run(struct rdb *db, const char *run_id)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT 1 FROM runs WHERE run_id = ?1 AND requests IS NOT NULL",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
	bool has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return has;
}

int rdb_import(struct rdb *db, const char *path, const char *run_id, struct sim_error *err)
{
	int rc = db_exec1(db, "ATTACH DATABASE ?1 AS pt", path, err);
	if (rc)
		return rc;
	int version;
	rc = db_user_version(db, "pt", &version, err);
	if (!rc && version != RDB_SCHEMA_VERSION)
		rc = sim_errorf(err, SIM_E_RUNTIME, "%s: schema version %d, not %d", path, version,
				RDB_SCHEMA_VERSION);
	if (!rc)
		rc = db_exec(db, "BEGIN", err);
	if (!rc)
		rc = db_delete_run(db, "main.", run_id, err);
	char sql[256];
	for (size_t i = RDB_NTABLES; !rc && i-- > 0;) {
		snprintf(sql, sizeof(sql), "INSERT INTO main.%s SELECT * FROM pt.%s WHERE run_id = ?1",
			 rdb_tables[i], rdb_tables[i]);
		rc = db_exec1(db, sql, run_id, err);
		/* the runs row goes first: a file without it is not this point's */
		if (!rc && !strcmp(rdb_tables[i], "runs") && sqlite3_changes(db->h) != 1)
			rc = sim_errorf(err, SIM_E_RUNTIME, "%s: holds no run %s", path, run_id);
	}
	if (!rc)
		rc = db_exec(db, "COMMIT", err);
	else
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	struct sim_error derr;
	int drc = db_exec(db, "DETACH DATABASE pt", &derr);
	if (!rc && drc)
		*err = derr, rc = drc;
	return rc;
}

/* ---------------------------------------------------------------- CSV */

static void csv_text(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void rdb_csv_header(FILE *f)
{
	/* the column list without its blanks */
	for (const char *c = RDB_REQUEST_COLS; *c; c++)
		if (*c != ' ')
			fputc(*c, f);
	fputc('\n', f);
}

void rdb_csv_row(FILE *f, const char *run_id, uint64_t seq, const struct rdb_request *q)
{
	csv_text(f, run_id);
	fprintf(f, ",%llu,%lld,%lld,%lld,%lld,", (unsigned long long)seq, (long long)q->queue_ns,
		(long long)q->dispatch_ns, (long long)q->complete_ns,
		(long long)(q->complete_ns - q->queue_ns));
	csv_text(f, q->op);
	fprintf(f, ",%d,%llu,%llu,", q->sync, (unsigned long long)q->sector,
		(unsigned long long)q->size_bytes);
	csv_text(f, q->cls);
	fprintf(f, ",%d,%d,", q->pid, q->tid);
	csv_text(f, q->comm);
	fputc(',', f);
	csv_text(f, q->app);
	fputc(',', f);
	csv_text(f, q->device);
	fputc('\n', f);
}

int rdb_export_requests_csv(struct rdb *db, FILE *f, struct sim_error *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db->h, "SELECT " RDB_REQUEST_COLS " FROM requests ORDER BY run_id, seq",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(db, err, "prepare");
	rdb_csv_header(f);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int n = sqlite3_column_count(st);
		for (int i = 0; i < n; i++) {
			if (i)
				fputc(',', f);
			if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
				fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i));
			else
				csv_text(f, (const char *)sqlite3_column_text(st, i));
		}
		fputc('\n', f);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(db, err, "read requests");
}

/* -------------------------------------------------------------- close */

int rdb_close(struct rdb *db, struct sim_error *err)
{
	int rc = 0;
	if (db->failed)
		rc = sim_errorf(err, SIM_E_IO, "%s", db->why);
	else if (db->in_tx)
		rc = db_exec(db, "COMMIT", err);
	if (rc) {
		rdb_abort(db);
		return rc;
	}
	sqlite3_finalize(db->ins_req);
	sqlite3_finalize(db->ins_wait);
	db->ins_req = db->ins_wait = NULL;
	if (sqlite3_close(db->h) != SQLITE_OK) {
		rc = db_err(db, err, "close");
		rdb_abort(db);
		return rc;
	}
	db->h = NULL;
	if (db->out) {
		rc = results_out_commit(db->out, err);
		db->out = NULL;
	}
	db_free(db);
	return rc;
}

void rdb_abort(struct rdb *db)
{
	if (!db)
		return;
	sqlite3_finalize(db->ins_req);
	sqlite3_finalize(db->ins_wait);
	db->ins_req = db->ins_wait = NULL;
	sqlite3_close(db->h);
	db->h = NULL;
	results_out_abort(db->out);
	db->out = NULL;
	db_free(db);
}
