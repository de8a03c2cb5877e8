/* A multi-threaded Android app cold launch (the synthetic workload's `app`
 * generator). One process, several threads, each with its own io_context
 * and so its own CFQ sync queue (Linux 3.10 kernel/fork.c copy_io() shares
 * an io_context only with CLONE_IO, which Android's threads do not use):
 *
 *  main       ActivityThread: bindApplication, Activity.onCreate, layout.
 *             Touches the app's code and resources (ART oat file, .so,
 *             APK resources), mostly by page faults on those mappings
 *             (the kernel's read-around sizes the requests: models/mm/
 *             readahead.c), partly by read(); computation spread evenly
 *             over its I/Os. After bind_share of its I/Os it starts the
 *             SQLite worker and the image workers; when done it waits for
 *             the query's result, hands the first frame to RenderThread,
 *             waits for the frame and (wait_workers) for the images, and
 *             closes the launch region.
 *  render     RenderThread (hwui, new in Android 5.0): loads the EGL shader
 *             cache (a mapped file: faults), then draws the first frame.
 *  workerN    image loaders: open, read() in chunks and decode cached
 *             thumbnails, split round-robin between the workers.
 *  db         SQLite worker (a Loader/AsyncTask): opens the database,
 *             pread()s pages of 4 KiB, then commits db_txns transactions
 *             the way Android 5's SQLite does (below).
 *
 * SQLite on Android 5.0: journal mode PERSIST, synchronous FULL
 * (AOSP frameworks/base core/res/res/values/config.xml, Lollipop:
 * db_default_journal_mode PERSIST, db_default_sync_mode FULL,
 * db_wal_sync_mode FULL, db_wal_autocheckpoint 100; WAL only for databases
 * that enable it), built with -Dfdatasync=fdatasync (external/sqlite/dist/
 * Android.mk) so every sync is fdatasync(). A rollback-journal commit of P
 * pages (SQLite pager.c syncJournal, zeroJournalHdr; file format: journal
 * header of one sector, records of 4 + page + 4 bytes):
 *   write journal header + P records; [FULL] fdatasync(journal);
 *   write nRec (12 B at 0); fdatasync(journal); write P db pages;
 *   fdatasync(db); PERSIST: zero the header (28 B at 0), fdatasync(journal).
 * WAL: append P frames (24 + page bytes) and fdatasync(wal) per commit;
 * every wal_autocheckpoint pages a checkpoint writes them to the db and
 * fdatasyncs it. OFF: the same writes without any sync. DELETE (SQLite's
 * own default, used where an app sets it): the journal is created for
 * each transaction (open O_CREAT: a new inode and directory entry), the
 * directory is fsynced after its first sync (os_unix.c UNIXFILE_DIRSYNC),
 * and it is unlinked at the commit (pager_end_transaction) - on ext4 the
 * new inode makes the journal's first fdatasync commit the jbd2
 * transaction (Lee & Won EMSOFT'12: "creating short-lived files" is part
 * of the at least 11 writes one SQLite insert sends to storage).
 * TRUNCATE: the journal file stays but is truncated to 0 at the commit and,
 * with synchronous FULL, synced again so the new size is on disk
 * (pager_end_transaction); its blocks are allocated anew each transaction.
 *
 * Other foreground writes of an Android 5.0 app, each optional:
 *  SharedPreferences.commit()/apply() (AOSP 5.0 frameworks/base
 *    core/java/android/app/SharedPreferencesImpl.java writeToFile): rename
 *    prefs.xml to prefs.xml.bak, create prefs.xml, write the whole map,
 *    FileUtils.sync() (fsync), close, delete the backup; prefs_commits of
 *    them on the SQLite worker after its transactions (apply() runs them
 *    on QueuedWork's single thread; one background thread of the app
 *    stands in for it);
 *  the image loader's disk cache (DiskLruCache as Glide and Volley use it:
 *    write key.tmp, close, rename to key, append a CLEAN line to its
 *    journal; flush() only, never fsync): cache_writes thumbnails written
 *    by the image workers after decoding, buffered - the flusher writes
 *    them like any other dirty page.
 *
 * Sizes, counts and CPU times of an app are assumptions (each parameter
 * says so); what is sourced is the thread structure, the journal protocol
 * and the sync calls. Every thread's op list is planned at creation from
 * the task's stream (memory: the launch's own ops, a few thousand), so the
 * CPU time is spread over the I/Os each thread actually issues.
 */
#include "traces/workloads/app_launch.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <jansson.h>

#include "models/stack/stack.h"
#include "sim/sim.h"

#define AP_PAGE 4096u
#define AP_MAX_WORKERS 16
/* SQLite on-disk formats (sqlite.org/fileformat2.html): rollback journal
 * header = one sector (SQLITE_DEFAULT_SECTOR_SIZE 4096 in os_unix.c),
 * record = page number + page + checksum; WAL header 32 B, frame header 24 B. */
#define SQL_JHDR 4096u
#define SQL_JREC (4u + AP_PAGE + 4u)
#define SQL_WALHDR 32u
#define SQL_WALFRAME (24u + AP_PAGE)

enum { JM_PERSIST = 0, JM_WAL, JM_OFF, JM_DELETE, JM_TRUNCATE };
enum { SY_FULL = 0, SY_NORMAL, SY_OFF };
enum { SC_FDATASYNC = 0, SC_FSYNC };
static const char *const jm_names[] = { "persist", "wal", "off", "delete", "truncate", NULL };
static const char *const sy_names[] = { "full", "normal", "off", NULL };
static const char *const sc_names[] = { "fdatasync", "fsync", NULL };

struct app_p {
	uint64_t main_bytes, main_run_bytes;
	int64_t main_files;
	double main_coverage, main_fault_fraction, bind_share;
	int64_t main_cpu_ns;
	uint64_t render_bytes;
	int64_t render_cpu_ns;
	int64_t workers, images;
	uint64_t image_bytes, image_chunk;
	int64_t image_cpu_ns;
	uint64_t db_file_bytes;
	int64_t db_reads, db_txns, db_txn_pages, db_cpu_ns, wal_autocheckpoint;
	int journal_mode, sync_mode, sync_call;
	int64_t prefs_commits, cache_writes;
	uint64_t prefs_bytes;
	bool wait_workers;
};

#define AO(f) offsetof(struct app_p, f)
const struct cfg_param app_launch_params[] = {
	{ "main_bytes", CFG_T_SIZE, AO(main_bytes), "MiB", "32MiB", 0.004, 1e6, "assumed",
	  "code and resources the main thread touches (oat, .so, APK resources)", NULL },
	{ "main_files", CFG_T_INT, AO(main_files), "", "40", 1, 100000, "assumed",
	  "files that working set spans", NULL },
	{ "main_coverage", CFG_T_DOUBLE, AO(main_coverage), "", "0.5", 0.01, 1, "assumed",
	  "fraction of each of those files that is touched", NULL },
	{ "main_fault_fraction", CFG_T_DOUBLE, AO(main_fault_fraction), "", "0.8", 0, 1,
	  "ART maps oat and APK and faults them in (docs/references.md §3.3); share assumed",
	  "fraction of main-thread runs touched by page faults instead of read()", NULL },
	{ "main_run_bytes", CFG_T_SIZE, AO(main_run_bytes), "KiB", "32KiB", 4, 1e6, "assumed",
	  "mean length of a touched run (exponential)", NULL },
	{ "main_cpu", CFG_T_TIME, AO(main_cpu_ns), "ms", "1200ms", 0, 1e7, "assumed",
	  "main thread computation, spread evenly over its I/Os", NULL },
	{ "bind_share", CFG_T_DOUBLE, AO(bind_share), "", "0.4", 0, 1, "assumed",
	  "share of the main thread's I/Os done before it starts the workers", NULL },
	{ "render_bytes", CFG_T_SIZE, AO(render_bytes), "KiB", "512KiB", 0, 1e6,
	  "assumed (EGL blob cache file, capped at 2 MiB in egl_cache.cpp [RECALL])",
	  "shader cache RenderThread maps and reads at its first frame (0: none)", NULL },
	{ "render_cpu", CFG_T_TIME, AO(render_cpu_ns), "ms", "50ms", 0, 1e7, "assumed",
	  "first frame: display lists, texture upload", NULL },
	{ "workers", CFG_T_INT, AO(workers), "", "2", 0, AP_MAX_WORKERS, "assumed",
	  "image loader threads", NULL },
	{ "images", CFG_T_INT, AO(images), "", "24", 0, 100000, "assumed",
	  "cached thumbnails read for the first screen", NULL },
	{ "image_bytes", CFG_T_SIZE, AO(image_bytes), "KiB", "48KiB", 0.5, 1e6, "assumed",
	  "size of each cached thumbnail file", NULL },
	{ "image_chunk", CFG_T_SIZE, AO(image_chunk), "KiB", "16KiB", 0.5, 1e6, "assumed",
	  "read() size of the decoder's buffered stream", NULL },
	{ "image_cpu", CFG_T_TIME, AO(image_cpu_ns), "ms", "10ms", 0, 1e7, "assumed",
	  "decode time per thumbnail", NULL },
	{ "db_file_bytes", CFG_T_SIZE, AO(db_file_bytes), "KiB", "2MiB", 4, 1e7, "assumed",
	  "size of the app's database file", NULL },
	{ "db_reads", CFG_T_INT, AO(db_reads), "", "48", 0, 1e6, "assumed",
	  "database pages read by the first query (pread of one 4 KiB page each)", NULL },
	{ "db_txns", CFG_T_INT, AO(db_txns), "", "4", 0, 1e5, "assumed",
	  "write transactions committed during the launch", NULL },
	{ "db_txn_pages", CFG_T_INT, AO(db_txn_pages), "", "3", 1, 1e5, "assumed",
	  "database pages each transaction changes", NULL },
	{ "db_cpu", CFG_T_TIME, AO(db_cpu_ns), "ms", "100ms", 0, 1e7, "assumed",
	  "SQLite worker computation, spread over its I/Os", NULL },
	{ "journal_mode", CFG_T_ENUM, AO(journal_mode), "", "persist", CFG_NO_RANGE,
	  "AOSP 5.0 config.xml db_default_journal_mode PERSIST",
	  "SQLite journal: persist (rollback journal kept), wal, off, delete (created and unlinked "
	  "per transaction), truncate (truncated to 0 per transaction)", jm_names },
	{ "sync_mode", CFG_T_ENUM, AO(sync_mode), "", "full", CFG_NO_RANGE,
	  "AOSP 5.0 config.xml db_default_sync_mode / db_wal_sync_mode FULL",
	  "SQLite synchronous: full, normal, off", sy_names },
	{ "sync_call", CFG_T_ENUM, AO(sync_call), "", "fdatasync", CFG_NO_RANGE,
	  "AOSP 5.0 external/sqlite/dist/Android.mk -Dfdatasync=fdatasync",
	  "system call behind SQLite's syncs", sc_names },
	{ "wal_autocheckpoint", CFG_T_INT, AO(wal_autocheckpoint), "", "100", 1, 1e6,
	  "AOSP 5.0 config.xml db_wal_autocheckpoint", "WAL: checkpoint after this many pages",
	  NULL },
	{ "prefs_commits", CFG_T_INT, AO(prefs_commits), "", "0", 0, 1e5, "assumed",
	  "SharedPreferences writes (rename to .bak, create, write, fsync, unlink .bak; AOSP 5.0 "
	  "SharedPreferencesImpl.writeToFile) on the worker after its transactions", NULL },
	{ "prefs_bytes", CFG_T_SIZE, AO(prefs_bytes), "KiB", "4KiB", 0.001, 1e7, "assumed",
	  "size of the preferences XML file", NULL },
	{ "cache_writes", CFG_T_INT, AO(cache_writes), "", "0", 0, 100000, "assumed",
	  "thumbnails the image workers write into their disk cache (DiskLruCache: tmp file, "
	  "rename, journal line; buffered, no fsync), image_bytes each", NULL },
	{ "wait_workers", CFG_T_BOOL, AO(wait_workers), "", "true", CFG_NO_RANGE, "assumed",
	  "the launch ends when the thumbnails are decoded (else at the first frame)", NULL },
	CFG_PARAM_END,
};

/* ---------------------------------------------------------------- plans */

enum { AP_SPAWN = STACK_NOPKIND + 1, AP_JOIN };

struct ap_op {
	int kind;                /* enum stack_op_kind, AP_SPAWN or AP_JOIN */
	struct stack_file *file;
	uint64_t off, len;
	int64_t ns;
	uint32_t mask;           /* SPAWN/JOIN: threads by index */
};

struct ap_plan {
	struct ap_op *v;
	uint32_t n, cap;
};

enum { TH_MAIN = 0, TH_RENDER, TH_DB, TH_WORKER };

struct ap_thread {
	struct app_launch *app;
	struct stack_task *t;
	struct ap_plan plan;
	uint32_t i;
	bool started, exited, waiting;
	char name[64];
	uint64_t by_kind[STACK_NOPKIND];
};

struct app_launch {
	struct sim *sim;
	struct app_p p;
	struct app_launch_id id;
	struct stack *stack;
	struct ap_thread th[TH_WORKER + AP_MAX_WORKERS];
	uint32_t nth;
	char *region;
};

static int plan_push(struct ap_plan *pl, int kind, struct stack_file *f, uint64_t off, uint64_t len,
		     int64_t ns, uint32_t mask)
{
	if (pl->n == pl->cap) {
		uint32_t cap = pl->cap ? pl->cap * 2 : 64;
		struct ap_op *v = realloc(pl->v, cap * sizeof(*v));
		if (!v)
			return SIM_E_NOMEM;
		pl->v = v;
		pl->cap = cap;
	}
	pl->v[pl->n++] = (struct ap_op){ kind, f, off, len, ns, mask };
	return 0;
}

static bool is_io(int kind)
{
	return kind == STACK_OP_READ || kind == STACK_OP_WRITE || kind == STACK_OP_FAULT ||
	       kind == STACK_OP_FSYNC || kind == STACK_OP_FDATASYNC;
}

static uint32_t plan_io(const struct ap_plan *pl)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < pl->n; i++)
		n += is_io(pl->v[i].kind);
	return n;
}

/* out = in with cpu_ns spread evenly after its I/Os (the remainder after
 * the last); hook ops (SPAWN) go after the split_io-th I/O. */
static int plan_with_cpu(const struct ap_plan *in, int64_t cpu_ns, uint32_t split_io,
			 const struct ap_op *hook, struct ap_plan *out)
{
	uint32_t nio = plan_io(in), k = 0;
	int64_t gap = nio ? cpu_ns / nio : 0, spent = 0;
	if (hook && split_io == 0 && plan_push(out, hook->kind, NULL, 0, 0, 0, hook->mask))
		return SIM_E_NOMEM;
	for (uint32_t i = 0; i < in->n; i++) {
		const struct ap_op *o = &in->v[i];
		if (plan_push(out, o->kind, o->file, o->off, o->len, o->ns, o->mask))
			return SIM_E_NOMEM;
		if (!is_io(o->kind))
			continue;
		k++;
		int64_t ns = k == nio ? cpu_ns - spent : gap;
		spent += ns;
		if (ns > 0 && plan_push(out, STACK_OP_CPU, NULL, 0, 0, ns, 0))
			return SIM_E_NOMEM;
		if (hook && k == split_io && plan_push(out, hook->kind, NULL, 0, 0, 0, hook->mask))
			return SIM_E_NOMEM;
	}
	if (nio == 0 && cpu_ns > 0 && plan_push(out, STACK_OP_CPU, NULL, 0, 0, cpu_ns, 0))
		return SIM_E_NOMEM;
	return 0;
}

static struct stack_file *ap_file(struct app_launch *a, const char *what, unsigned i,
				  uint64_t size, struct sim_error *err)
{
	char name[300];
	snprintf(name, sizeof(name), "%s/%s%u", a->id.key, what, i);
	return stack_file_get(a->stack, name, size, err);
}

/* Main thread's code and resources: per file an open, then runs of
 * exponential length (mean main_run_bytes) separated by untouched gaps so
 * that main_coverage of the file is used; a run is one read() or a fault
 * per page. */
static int plan_main_io(struct app_launch *a, gsl_rng *r, struct ap_plan *pl, struct sim_error *err)
{
	struct app_p *p = &a->p;
	double per = (double)p->main_bytes / (double)p->main_files / p->main_coverage;
	for (unsigned i = 0; i < (unsigned)p->main_files; i++) {
		uint64_t size = ((uint64_t)(per * (0.25 + 1.5 * gsl_rng_uniform(r))) + AP_PAGE - 1) &
				~(uint64_t)(AP_PAGE - 1);
		if (size < AP_PAGE)
			size = AP_PAGE;
		struct stack_file *f = ap_file(a, "code", i, size, err);
		if (!f)
			return err->code;
		if (plan_push(pl, STACK_OP_OPEN, f, 0, 0, 0, 0))
			return SIM_E_NOMEM;
		uint64_t pos = 0, touched = 0, want = (uint64_t)((double)size * p->main_coverage);
		double gap_mean = (double)p->main_run_bytes * (1.0 / p->main_coverage - 1.0);
		while (touched < want && pos < size) {
			uint64_t gap = gap_mean > 0 ? (uint64_t)gsl_ran_exponential(r, gap_mean) : 0;
			uint64_t run = (uint64_t)gsl_ran_exponential(r, (double)p->main_run_bytes);
			run = (run + AP_PAGE - 1) & ~(uint64_t)(AP_PAGE - 1);
			if (run == 0)
				run = AP_PAGE;
			if (touched > 0 || gap > 0)
				pos += gap & ~(uint64_t)(AP_PAGE - 1);
			if (pos >= size)
				break;
			if (run > size - pos)
				run = size - pos;
			if (gsl_rng_uniform(r) >= p->main_fault_fraction) {
				if (plan_push(pl, STACK_OP_READ, f, pos, run, 0, 0))
					return SIM_E_NOMEM;
			} else {
				for (uint64_t o = 0; o < run; o += AP_PAGE)
					if (plan_push(pl, STACK_OP_FAULT, f, pos + o, AP_PAGE, 0, 0))
						return SIM_E_NOMEM;
			}
			pos += run;
			touched += run;
		}
	}
	return 0;
}

static int push_sync(struct app_launch *a, struct ap_plan *pl, struct stack_file *f)
{
	int k = a->p.sync_call == SC_FSYNC ? STACK_OP_FSYNC : STACK_OP_FDATASYNC;
	return plan_push(pl, k, f, 0, 0, 0, 0);
}

/* The SQLite worker: open, read pages, commit transactions (header). */
static int plan_db_io(struct app_launch *a, gsl_rng *r, struct ap_plan *pl, struct sim_error *err)
{
	struct app_p *p = &a->p;
	uint64_t db_pages = p->db_file_bytes / AP_PAGE;
	if (db_pages == 0)
		db_pages = 1;
	struct stack_file *db = ap_file(a, "app.db", 0, db_pages * AP_PAGE, err);
	if (!db)
		return err->code;
	int rc = plan_push(pl, STACK_OP_OPEN, db, 0, 0, 0, 0);
	struct stack_file *dir = NULL;
	if (p->journal_mode == JM_DELETE) {
		char dname[300];
		snprintf(dname, sizeof(dname), "%s/", a->id.key);
		if (!(dir = stack_file_get(a->stack, dname, 0, err)))
			return err->code;
	}
	for (int64_t i = 0; i < p->db_reads && !rc; i++) {
		uint64_t pg = i == 0 ? 0 : gsl_rng_uniform_int(r, (unsigned long)db_pages);
		rc = plan_push(pl, STACK_OP_READ, db, pg * AP_PAGE, AP_PAGE, 0, 0);
	}
	if (rc || p->db_txns == 0)
		return rc;
	uint64_t jbytes = p->journal_mode == JM_WAL
				  ? SQL_WALHDR + (uint64_t)p->wal_autocheckpoint * SQL_WALFRAME
				  : SQL_JHDR + (uint64_t)p->db_txn_pages * SQL_JREC;
	/* PERSIST keeps the journal: it exists from earlier runs; DELETE
	 * creates one per transaction (a new inode each: j is the first) */
	struct stack_file *j = ap_file(a, p->journal_mode == JM_WAL ? "app.db-wal" : "app.db-journal",
				       0, p->journal_mode == JM_PERSIST ? jbytes : 0, err);
	if (!j)
		return err->code;
	if (p->journal_mode != JM_DELETE)
		rc = plan_push(pl, STACK_OP_OPEN, j, 0, 0, 0, 0);
	bool sync = p->sync_mode != SY_OFF;
	uint64_t wal_off = SQL_WALHDR, wal_pages = 0;
	uint64_t *pages = calloc((size_t)p->db_txn_pages, sizeof(*pages));
	if (!pages)
		return SIM_E_NOMEM;
	for (int64_t t = 0; t < p->db_txns && !rc; t++) {
		for (int64_t k = 0; k < p->db_txn_pages; k++)
			pages[k] = gsl_rng_uniform_int(r, (unsigned long)db_pages);
		uint64_t np = (uint64_t)p->db_txn_pages;
		if (p->journal_mode == JM_WAL) {
			rc = plan_push(pl, STACK_OP_WRITE, j, wal_off, np * SQL_WALFRAME, 0, 0);
			wal_off += np * SQL_WALFRAME;
			wal_pages += np;
			if (!rc && sync)
				rc = push_sync(a, pl, j);
			if (!rc && wal_pages >= (uint64_t)p->wal_autocheckpoint) {
				for (uint64_t k = 0; k < np && !rc; k++)
					rc = plan_push(pl, STACK_OP_WRITE, db, pages[k] * AP_PAGE, AP_PAGE, 0, 0);
				if (!rc && sync)
					rc = push_sync(a, pl, db);
				wal_off = SQL_WALHDR;
				wal_pages = 0;
			}
			continue;
		}
		if (p->journal_mode == JM_DELETE) {
			if (t > 0 && !(j = ap_file(a, "app.db-journal", (unsigned)t, 0, err)))
				rc = err->code;
			if (!rc)
				rc = plan_push(pl, STACK_OP_CREATE, j, 0, 0, 0, 0);
		}
		/* rollback journal: header + original page images */
		if (!rc)
			rc = plan_push(pl, STACK_OP_WRITE, j, 0, SQL_JHDR + np * SQL_JREC, 0, 0);
		if (!rc && sync && p->sync_mode == SY_FULL)
			rc = push_sync(a, pl, j);
		if (!rc && sync && p->journal_mode == JM_DELETE && dir)
			rc = plan_push(pl, STACK_OP_FSYNC, dir, 0, 0, 0, 0);
		if (!rc)
			rc = plan_push(pl, STACK_OP_WRITE, j, 0, 12, 0, 0); /* nRec */
		if (!rc && sync)
			rc = push_sync(a, pl, j);
		for (uint64_t k = 0; k < np && !rc; k++)
			rc = plan_push(pl, STACK_OP_WRITE, db, pages[k] * AP_PAGE, AP_PAGE, 0, 0);
		if (!rc && sync)
			rc = push_sync(a, pl, db);
		if (!rc && p->journal_mode == JM_PERSIST) {
			rc = plan_push(pl, STACK_OP_WRITE, j, 0, 28, 0, 0); /* zeroJournalHdr */
			if (!rc && sync)
				rc = push_sync(a, pl, j);
		}
		if (!rc && p->journal_mode == JM_DELETE)
			rc = plan_push(pl, STACK_OP_UNLINK, j, 0, 0, 0, 0);
		if (!rc && p->journal_mode == JM_TRUNCATE) {
			rc = plan_push(pl, STACK_OP_TRUNCATE, j, 0, 0, 0, 0);
			if (!rc && p->sync_mode == SY_FULL)
				rc = push_sync(a, pl, j);
		}
	}
	free(pages);
	return rc;
}

/* SharedPreferencesImpl.writeToFile (AOSP 5.0), prefs_commits times:
 * version k replaces version k - 1. */
static int plan_prefs(struct app_launch *a, struct ap_plan *pl, struct sim_error *err)
{
	struct app_p *p = &a->p;
	if (p->prefs_commits == 0)
		return 0;
	struct stack_file *old = ap_file(a, "prefs.xml.", 0, p->prefs_bytes, err);
	if (!old)
		return err->code;
	int rc = 0;
	for (int64_t k = 1; k <= p->prefs_commits && !rc; k++) {
		struct stack_file *nf = ap_file(a, "prefs.xml.", (unsigned)k, 0, err);
		if (!nf)
			return err->code;
		rc = plan_push(pl, STACK_OP_RENAME, old, 0, 0, 0, 0); /* to prefs.xml.bak */
		if (!rc)
			rc = plan_push(pl, STACK_OP_CREATE, nf, 0, 0, 0, 0);
		if (!rc)
			rc = plan_push(pl, STACK_OP_WRITE, nf, 0, p->prefs_bytes, 0, 0);
		if (!rc)
			rc = plan_push(pl, STACK_OP_FSYNC, nf, 0, 0, 0, 0); /* FileUtils.sync */
		if (!rc)
			rc = plan_push(pl, STACK_OP_CLOSE, nf, 0, 0, 0, 0);
		if (!rc)
			rc = plan_push(pl, STACK_OP_UNLINK, old, 0, 0, 0, 0); /* mBackupFile.delete() */
		old = nf;
	}
	return rc;
}

/* Thumbnails, round-robin over the workers: open, read in chunks, close;
 * the decode time follows each image. */
static int plan_images(struct app_launch *a, struct sim_error *err)
{
	struct app_p *p = &a->p;
	if (p->workers == 0)
		return 0;
	for (int64_t i = 0; i < p->images; i++) {
		struct ap_plan *pl = &a->th[TH_WORKER + (uint32_t)(i % p->workers)].plan;
		struct stack_file *f = ap_file(a, "thumb", (unsigned)i, p->image_bytes, err);
		if (!f)
			return err->code;
		int rc = plan_push(pl, STACK_OP_OPEN, f, 0, 0, 0, 0);
		for (uint64_t o = 0; o < p->image_bytes && !rc; o += p->image_chunk) {
			uint64_t len = p->image_bytes - o < p->image_chunk ? p->image_bytes - o : p->image_chunk;
			rc = plan_push(pl, STACK_OP_READ, f, o, len, 0, 0);
		}
		if (!rc)
			rc = plan_push(pl, STACK_OP_CLOSE, f, 0, 0, 0, 0);
		if (!rc && p->image_cpu_ns > 0)
			rc = plan_push(pl, STACK_OP_CPU, NULL, 0, 0, p->image_cpu_ns, 0);
		if (rc)
			return rc;
	}
	/* new thumbnails into the disk cache: DiskLruCache.Editor writes
	 * key.tmp, commit() renames it and appends "CLEAN key size" to the
	 * cache's journal (a BufferedWriter, flushed, never synced) */
	struct stack_file *cj = NULL;
	uint64_t cj_off = 0;
	if (p->cache_writes > 0 && !(cj = ap_file(a, "cache_journal", 0, AP_PAGE, err)))
		return err->code;
	for (int64_t i = 0; i < p->cache_writes; i++) {
		struct ap_plan *pl = &a->th[TH_WORKER + (uint32_t)(i % p->workers)].plan;
		struct stack_file *f = ap_file(a, "cache", (unsigned)i, 0, err);
		if (!f)
			return err->code;
		int rc = p->image_cpu_ns > 0 ? plan_push(pl, STACK_OP_CPU, NULL, 0, 0, p->image_cpu_ns, 0)
					     : 0;
		if (!rc)
			rc = plan_push(pl, STACK_OP_CREATE, f, 0, 0, 0, 0);
		for (uint64_t o = 0; o < p->image_bytes && !rc; o += p->image_chunk) {
			uint64_t len = p->image_bytes - o < p->image_chunk ? p->image_bytes - o : p->image_chunk;
			rc = plan_push(pl, STACK_OP_WRITE, f, o, len, 0, 0);
		}
		if (!rc)
			rc = plan_push(pl, STACK_OP_CLOSE, f, 0, 0, 0, 0);
		if (!rc)
			rc = plan_push(pl, STACK_OP_RENAME, f, 0, 0, 0, 0);
		if (!rc)
			rc = plan_push(pl, STACK_OP_WRITE, cj, cj_off, 64, 0, 0); /* assumed line length */
		cj_off += 64;
		if (rc)
			return rc;
	}
	return 0;
}

static int plan_all(struct app_launch *a, gsl_rng *r, struct sim_error *err)
{
	struct app_p *p = &a->p;
	uint32_t workers_mask = 0;
	for (uint32_t w = 0; w < (uint32_t)p->workers; w++)
		workers_mask |= 1u << (TH_WORKER + w);
	uint32_t db_mask = 1u << TH_DB, render_mask = 1u << TH_RENDER;

	/* main */
	struct ap_plan io = { 0 }, *m = &a->th[TH_MAIN].plan;
	int rc = plan_main_io(a, r, &io, err);
	if (!rc && a->id.become_fg)
		rc = plan_push(m, STACK_OP_FG, NULL, 0, a->id.uid, 0, 0);
	if (!rc && a->region)
		rc = plan_push(m, STACK_OP_BEGIN, NULL, 0, 0, 0, 0);
	struct ap_op spawn = { .kind = AP_SPAWN, .mask = db_mask | workers_mask };
	uint32_t split = (uint32_t)(p->bind_share * (double)plan_io(&io) + 0.5);
	if (!rc)
		rc = plan_with_cpu(&io, p->main_cpu_ns, split, &spawn, m);
	free(io.v);
	if (!rc)
		rc = plan_push(m, AP_JOIN, NULL, 0, 0, 0, db_mask);
	if (!rc)
		rc = plan_push(m, AP_SPAWN, NULL, 0, 0, 0, render_mask);
	if (!rc)
		rc = plan_push(m, AP_JOIN, NULL, 0, 0, 0, render_mask);
	if (!rc && p->wait_workers && workers_mask)
		rc = plan_push(m, AP_JOIN, NULL, 0, 0, 0, workers_mask);
	if (!rc && a->region)
		rc = plan_push(m, STACK_OP_END, NULL, 0, 0, 0, 0);
	if (rc)
		return rc;

	/* render: map the shader cache and read it through, then the frame */
	struct ap_plan *rp = &a->th[TH_RENDER].plan;
	if (p->render_bytes > 0) {
		uint64_t size = (p->render_bytes + AP_PAGE - 1) & ~(uint64_t)(AP_PAGE - 1);
		struct stack_file *f = ap_file(a, "shader_cache", 0, size, err);
		if (!f)
			return err->code;
		rc = plan_push(rp, STACK_OP_OPEN, f, 0, 0, 0, 0);
		for (uint64_t o = 0; o < size && !rc; o += AP_PAGE)
			rc = plan_push(rp, STACK_OP_FAULT, f, o, AP_PAGE, 0, 0);
	}
	if (!rc && p->render_cpu_ns > 0)
		rc = plan_push(rp, STACK_OP_CPU, NULL, 0, 0, p->render_cpu_ns, 0);
	if (rc)
		return rc;

	/* db */
	struct ap_plan dio = { 0 };
	rc = plan_db_io(a, r, &dio, err);
	if (!rc)
		rc = plan_prefs(a, &dio, err);
	if (!rc)
		rc = plan_with_cpu(&dio, p->db_cpu_ns, 0, NULL, &a->th[TH_DB].plan);
	free(dio.v);
	if (rc)
		return rc;
	return plan_images(a, err);
}

/* ---------------------------------------------------------- execution */

static int ap_next(struct stack_task *t, struct stack_op *op, void *ctx)
{
	struct ap_thread *th = ctx;
	struct app_launch *a = th->app;
	(void)t;
	while (th->i < th->plan.n) {
		const struct ap_op *o = &th->plan.v[th->i];
		if (o->kind == AP_SPAWN) {
			for (uint32_t k = 0; k < a->nth; k++)
				if ((o->mask >> k & 1u) && !a->th[k].started) {
					a->th[k].started = true;
					stack_task_start(a->th[k].t, sim_now(a->sim));
				}
			th->i++;
			continue;
		}
		if (o->kind == AP_JOIN) {
			bool all = true;
			for (uint32_t k = 0; k < a->nth; k++)
				if ((o->mask >> k & 1u) && !a->th[k].exited)
					all = false;
			if (!all) {
				th->waiting = true;
				return -1;
			}
			th->i++;
			continue;
		}
		memset(op, 0, sizeof(*op));
		op->kind = (enum stack_op_kind)o->kind;
		op->file = o->file;
		op->off = o->off;
		op->len = o->len;
		op->ns = o->ns;
		if (o->kind == STACK_OP_BEGIN || o->kind == STACK_OP_END)
			op->name = a->region;
		th->by_kind[o->kind]++;
		th->i++;
		return 1;
	}
	return 0;
}

static void ap_exited(struct stack_task *t, void *ctx)
{
	struct ap_thread *th = ctx;
	struct app_launch *a = th->app;
	(void)t;
	th->exited = true;
	for (uint32_t k = 0; k < a->nth; k++)
		if (a->th[k].waiting && !a->th[k].exited) {
			a->th[k].waiting = false;
			stack_task_kick(a->th[k].t);
		}
}

/* ------------------------------------------------------------- public */

static const char *const role_names[] = { "main", "render", "db" };

int app_launch_create(struct sim *sim, struct stack *s, struct cfg_node *n,
		      const struct app_launch_id *id, gsl_rng *rng, struct app_launch **out,
		      struct sim_error *err)
{
	*out = NULL;
	struct app_launch *a = calloc(1, sizeof(*a));
	if (!a)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	*out = a;
	a->sim = sim;
	a->stack = s;
	a->id = *id;
	int rc = cfg_apply(app_launch_params, n, &a->p, err);
	if (rc)
		return rc;
	if (id->region && id->region[0]) {
		a->region = strdup(id->region);
		if (!a->region)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	a->nth = TH_WORKER + (uint32_t)a->p.workers;
	for (uint32_t k = 0; k < a->nth; k++) {
		struct ap_thread *th = &a->th[k];
		th->app = a;
		if (k == TH_MAIN)
			snprintf(th->name, sizeof(th->name), "%s", id->comm && id->comm[0] ? id->comm
											  : id->key);
		else if (k < TH_WORKER)
			snprintf(th->name, sizeof(th->name), "%s", k == TH_RENDER ? "RenderThread"
										 : "AsyncTask #1");
		else
			snprintf(th->name, sizeof(th->name), "worker-%u", k - TH_WORKER + 1);
	}
	rc = plan_all(a, rng, err);
	if (rc)
		return rc == SIM_E_NOMEM ? sim_errorf(err, SIM_E_NOMEM, "out of memory") : rc;
	/* threads of one process: the main thread's pid is the tgid, the
	 * others get the following thread ids */
	int32_t pid = id->pid;
	for (uint32_t k = 0; k < a->nth; k++) {
		struct ap_thread *th = &a->th[k];
		struct stack_task_attr at = {
			.name = th->name,
			.pid = pid,
			.tid = k == TH_MAIN || pid <= 0 ? 0 : pid + (int32_t)k,
			.uid = id->uid,
			.ioprio_class = id->ioprio_class,
			.ioprio_level = id->ioprio_level,
		};
		struct stack_op_source src = { .next = ap_next, .exited = ap_exited, .ctx = th };
		th->t = stack_task_create(s, &at, &src, err);
		if (!th->t)
			return err->code;
		if (k == TH_MAIN)
			pid = stack_task_pid(th->t);
	}
	return 0;
}

void app_launch_start(struct app_launch *a, int64_t at_ns)
{
	a->th[TH_MAIN].started = true;
	stack_task_start(a->th[TH_MAIN].t, at_ns);
}

bool app_launch_done(const struct app_launch *a)
{
	/* a thread never spawned (the main thread ended early) is done too */
	for (uint32_t k = 0; k < a->nth; k++)
		if (a->th[k].started && !a->th[k].exited)
			return false;
	return a->th[TH_MAIN].exited;
}

struct stack_task *app_launch_main(struct app_launch *a)
{
	return a->th[TH_MAIN].t;
}

void app_launch_stats_json(const struct app_launch *a, json_t *obj)
{
	json_t *arr = json_array();
	for (uint32_t k = 0; k < a->nth; k++) {
		const struct ap_thread *th = &a->th[k];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(th->name));
		json_object_set_new(o, "role", json_string(k < TH_WORKER ? role_names[k] : "worker"));
		if (th->t)
			json_object_set_new(o, "tid", json_integer(stack_task_pid(th->t)));
		json_object_set_new(o, "ops", stack_op_counts_json(th->by_kind));
		json_array_append_new(arr, o);
	}
	json_object_set_new(obj, "threads", arr);
}

void app_launch_destroy(struct app_launch *a)
{
	if (!a)
		return;
	for (uint32_t k = 0; k < TH_WORKER + AP_MAX_WORKERS; k++)
		free(a->th[k].plan.v);
	free(a->region);
	free(a);
}
