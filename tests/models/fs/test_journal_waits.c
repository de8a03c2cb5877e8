/* Wait causes around the journal and the page lock (issue 33 parts 4-5):
 * page_lock (a lock_page on a page whose locker has not submitted its
 * read yet) against read_io (the read bio is in flight); journal_locked
 * (3.10 T_LOCKED: the commit waits for the flusher's handle, held across
 * its bio submission, and new handles wait for the commit's switch);
 * journal_buffer (BH_Shadow: a write dirtying an inode whose buffer the
 * commit is writing to the log waits for that write); journal_ordered
 * (wait_by_phase: an fsync's commit wait booked under the commit's step);
 * journal_discard (-o discard: the commit callback discards the blocks the
 * transaction freed before the commit's waiters wake). */
#include <inttypes.h>

#include "tests/models/stack/stack_harness.h"

#define W_YAML(dev, extra)                                                          \
	"device: {" dev "}\n"                                                        \
	"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"                    \
	"fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\n"                         \
	"writeback: {include: configs/writeback/linux.yaml}\nfg: 10050\n" extra

/* A background reader's readahead fill inserts a 128 KiB window of
 * locked pages, paying CPU per page, and submits the reads after the
 * last insert; a foreground reader that asks for the window's first page
 * meanwhile sleeps on its lock first for the filler (page_lock), then,
 * from the filler's submit_bio, for the read (read_io). */
static void page_lock_run(int64_t fg_start, int64_t *pl, int64_t *rio, int64_t *lat,
			  int64_t *submit)
{
	struct sh *h = sh_new(W_YAML("model: ideal, service: fixed, mean_us: 100, queue_depth: 1", ""));
	struct stack_file *f = sh_file(h, "data.bin", 4 << 20);
	struct sh_script a = { 0 }, b = { 0 };
	sh_op(&a, STACK_OP_READ, f, 0, 128 << 10, 0);
	sh_op(&b, STACK_OP_READ, f, 0, 4096, 0);
	sh_script_task(h, "bgreader", 10060, 0, &a);
	sh_script_task(h, "app", 10050, fg_start, &b);
	sh_run(h, SIM_TIME_MAX);
	*pl = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_PAGE_LOCK);
	*rio = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_READ_IO);
	*lat = b.exited_at - fg_start;
	assert_true(h->nd >= 1);
	*submit = h->d_time[0]; /* idle ideal device: dispatched at submit */
	sh_free(h);
}

static void test_page_lock_before_submit(void **state)
{
	(void)state;
	int64_t pl0, rio0, lat0, sub0, pl1, rio1, lat1, sub1;
	page_lock_run(2000, &pl0, &rio0, &lat0, &sub0);
	page_lock_run(12000, &pl1, &rio1, &lat1, &sub1);
	/* the window's read is submitted after its 32 inserts, some 35 us in */
	assert_int_equal(sub0, sub1);
	assert_true(sub0 > 12000);
	/* page_lock: from the lock_page to the filler's submit_bio (the FG
	 * task's own lookup CPU before it is the rest of the gap) */
	assert_true(pl0 > 0 && pl1 > 0);
	assert_int_equal(pl0 - pl1, 10000);
	assert_true(sub0 - 2000 - pl0 >= 0 && sub0 - 2000 - pl0 < 2000);
	/* read_io: the bio in flight, one 100 us service, nothing more */
	assert_int_equal(rio0, 100000);
	assert_int_equal(rio1, 100000);
	assert_true(pl0 + rio0 <= lat0 && lat0 - pl0 - rio0 < 3000);
}

struct locked_res {
	int64_t fg_locked, lock_start, lock_max, app1_lat;
	uint64_t handle_waits, locked_commits;
};

/* A background writer streams a big file through the flusher on a slow
 * device, so the flusher often sleeps in get_request holding the handle
 * of the run it maps. At 3 s app1 fsyncs a small file: the commit locks
 * the transaction and waits for that handle; app2 writes 1 ms later and
 * waits in wait_transaction_locked until the commit switches. */
static void locked_run(const char *jn, struct locked_res *r)
{
	char yaml[1024];
	snprintf(yaml, sizeof(yaml),
		 W_YAML("model: ideal, service: fixed, mean_us: 2000, queue_depth: 4, servers: 1",
			"block: {nr_requests: 4}\njournal: {t_locked: %s}\n"), jn);
	struct sh *h = sh_new(yaml);
	struct stack_file *big = sh_file(h, "big.bin", 0), *db = sh_file(h, "app.db", 0),
			  *db2 = sh_file(h, "app2.db", 0);
	struct sh_gen g = { .kind = STACK_OP_WRITE, .f = big, .len = 1 << 20, .count = 1536 };
	struct sh_script s1 = { 0 }, s2 = { 0 };
	sh_gen_task(h, "bg", 10060, 0, &g);
	sh_op(&s1, STACK_OP_WRITE, db, 0, 4096, 0);
	sh_op(&s1, STACK_OP_FSYNC, db, 0, 0, 0);
	sh_script_task(h, "app1", 10050, 3 * SEC, &s1);
	sh_op(&s2, STACK_OP_WRITE, db2, 0, 4096, 0);
	sh_script_task(h, "app2", 10050, 3 * SEC + 15 * MS, &s2);
	sh_run(h, 4 * SEC);
	r->fg_locked = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_JOURNAL_LOCKED);
	r->lock_start = h->st->jn.locked_start_ns;
	r->lock_max = h->st->jn.locked_ns_max;
	r->handle_waits = h->st->jn.locked_handle_waits;
	r->locked_commits = h->st->jn.locked_commits;
	r->app1_lat = s1.exited_at - 3 * SEC;
	sh_free(h);
}

static void test_journal_locked_waits_for_flusher_handle(void **state)
{
	(void)state;
	struct locked_res on, off;
	locked_run("true", &on);
	locked_run("false", &off);
	/* the commit at ~3.01 s found the flusher's handle open and waited */
	assert_true(on.locked_commits >= 1);
	assert_true(on.lock_start > 3 * SEC && on.lock_start < 3 * SEC + 15 * MS);
	assert_true(on.lock_max > 15 * MS);
	/* app2's write_begin handle waited from 3.015 s to the switch */
	assert_true(on.handle_waits >= 1);
	assert_int_equal(on.fg_locked, on.lock_start + on.lock_max - (3 * SEC + 15 * MS));
	/* t_locked off: no lock, no such wait */
	assert_int_equal(off.locked_commits, 0);
	assert_int_equal(off.handle_waits, 0);
	assert_int_equal(off.fg_locked, 0);
}

/* app1 writes a new file and fsyncs it: its data, then the commit's log
 * blocks (one 2 ms service), then the FLUSH|FUA commit block. app2 writes
 * the same file while the log blocks are at the device: ext4_dirty_inode
 * -> do_get_write_access finds the inode's buffer shadowed and waits
 * until the log write completes (journal_buffer), when the commit block
 * goes out. */
static void shadow_run(const char *on, int64_t app2_at, int64_t *wait, int64_t *log_done,
		       uint64_t *waits)
{
	char yaml[1024];
	snprintf(yaml, sizeof(yaml),
		 W_YAML("model: ideal, service: fixed, mean_us: 2000, queue_depth: 1",
			"journal: {shadow_wait: %s}\n"), on);
	struct sh *h = sh_new(yaml);
	struct stack_file *db = sh_file(h, "app.db", 0);
	struct sh_script s1 = { 0 }, s2 = { 0 };
	sh_op(&s1, STACK_OP_WRITE, db, 0, 4096, 0);
	sh_op(&s1, STACK_OP_FSYNC, db, 0, 0, 0);
	sh_script_task(h, "app1", 10050, 0, &s1);
	sh_op(&s2, STACK_OP_WRITE, db, 4096, 4096, 0);
	sh_script_task(h, "app2", 10050, app2_at, &s2);
	sh_run(h, SIM_TIME_MAX);
	*wait = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_JOURNAL_BUFFER);
	*waits = h->st->jn.shadow_waits;
	/* the first FUA request is the commit block, sent when the log is done */
	*log_done = -1;
	for (uint32_t i = 0; i < h->nd; i++)
		if (h->d_flags[i] & REQ_FUA) {
			*log_done = h->d_time[i];
			break;
		}
	sh_free(h);
}

static void test_journal_buffer_waits_for_shadow(void **state)
{
	(void)state;
	int64_t w, done, w0, done0;
	uint64_t n, n0;
	shadow_run("true", 3 * MS, &w, &done, &n);
	shadow_run("false", 3 * MS, &w0, &done0, &n0);
	assert_true(done > 3 * MS);
	assert_int_equal(n, 1);
	assert_int_equal(w, done - 3 * MS);
	assert_int_equal(n0, 0);
	assert_int_equal(w0, 0);
}

struct phase_res {
	int64_t journal, ordered, locked, lat, ordered_max;
};

/* A background writer streams a big file (delalloc: it is on the
 * transaction's ordered list); at 3 s app1 fsyncs a small file, and the
 * commit that carries it waits for the big file's writeback first (3.10
 * whole-file ordered wait) and for the flusher's handle (T_LOCKED). */
static void phase_run(const char *on, struct phase_res *r)
{
	char yaml[1024];
	snprintf(yaml, sizeof(yaml),
		 W_YAML("model: ideal, service: fixed, mean_us: 2000, queue_depth: 4, servers: 1",
			"block: {nr_requests: 4}\njournal: {t_locked: true, ordered_wait: whole-file, "
			"wait_by_phase: %s}\n"),
		 on);
	struct sh *h = sh_new(yaml);
	struct stack_file *big = sh_file(h, "big.bin", 0), *db = sh_file(h, "app.db", 0);
	struct sh_gen g = { .kind = STACK_OP_WRITE, .f = big, .len = 1 << 20, .count = 1536 };
	struct sh_script s1 = { 0 };
	sh_gen_task(h, "bg", 10060, 0, &g);
	sh_op(&s1, STACK_OP_WRITE, db, 0, 4096, 0);
	sh_op(&s1, STACK_OP_FSYNC, db, 0, 0, 0);
	sh_script_task(h, "app1", 10050, 3 * SEC, &s1);
	sh_run(h, 6 * SEC);
	r->journal = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_JOURNAL);
	r->ordered = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_JOURNAL_ORDERED);
	r->locked = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_JOURNAL_LOCKED);
	r->lat = s1.exited_at - 3 * SEC;
	r->ordered_max = h->st->jn.ordered_wait_ns_max;
	sh_free(h);
}

static void test_commit_wait_booked_by_phase(void **state)
{
	(void)state;
	struct phase_res on, off;
	phase_run("true", &on);
	phase_run("false", &off);
	/* accounting only: the same run, the same total */
	assert_true(on.lat > 0);
	assert_int_equal(on.lat, off.lat);
	assert_int_equal(on.journal + on.ordered + on.locked, off.journal + off.locked);
	/* off: the one commit wait is journal; on: the ordered-data step is
	 * most of it, and no longer than the commit's own ordered wait */
	assert_int_equal(off.ordered, 0);
	assert_true(on.ordered > 0);
	assert_true(on.ordered <= on.ordered_max);
	assert_true(on.journal < off.journal);
}

struct discard_res {
	int64_t lat, jdiscard, discard_at, fua_at;
	uint32_t ndiscard, discard_sectors;
	uint64_t discards;
};

/* app writes and fsyncs a 1 MiB file (its blocks allocated and
 * committed), unlinks it, then writes and fsyncs a small file: that
 * fsync's commit carries the unlink's freed extent. */
static void discard_run(const char *on, struct discard_res *r)
{
	char yaml[1024];
	snprintf(yaml, sizeof(yaml),
		 W_YAML("model: ideal, service: fixed, mean_us: 2000, queue_depth: 1",
			"journal: {discard: %s, wait_by_phase: true}\n"),
		 on);
	struct sh *h = sh_new(yaml);
	struct stack_file *old = sh_file(h, "app/old.bin", 0), *db = sh_file(h, "app/app.db", 0);
	struct sh_script s1 = { 0 }, s2 = { 0 };
	sh_op(&s1, STACK_OP_WRITE, old, 0, 1 << 20, 0);
	sh_op(&s1, STACK_OP_FSYNC, old, 0, 0, 0);
	sh_op(&s1, STACK_OP_UNLINK, old, 0, 0, 0);
	sh_script_task(h, "app1", 10050, 0, &s1);
	sh_op(&s2, STACK_OP_WRITE, db, 0, 4096, 0);
	sh_op(&s2, STACK_OP_FSYNC, db, 0, 0, 0);
	sh_script_task(h, "app2", 10050, 500 * MS, &s2);
	sh_run(h, SIM_TIME_MAX);
	r->lat = s2.exited_at - 500 * MS;
	r->jdiscard = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_JOURNAL_DISCARD);
	r->discards = h->st->jn.discards;
	r->ndiscard = 0;
	r->discard_sectors = 0;
	r->discard_at = r->fua_at = -1;
	for (uint32_t i = 0; i < h->nd; i++) {
		if (h->d_time[i] < 500 * MS)
			continue;
		if ((h->d_flags[i] & REQ_FUA) && r->fua_at < 0)
			r->fua_at = h->d_time[i];
		if (h->d_flags[i] & REQ_DISCARD) {
			r->ndiscard++;
			r->discard_sectors += h->d_sectors[i];
			r->discard_at = h->d_time[i];
		}
	}
	sh_free(h);
}

static void test_discard_at_commit(void **state)
{
	(void)state;
	struct discard_res on, off;
	discard_run("true", &on);
	discard_run("false", &off);
	/* on: the 1 MiB extent discarded after the commit block, one 2 ms
	 * service the fsync waits for; off: no discard */
	assert_int_equal(on.discards, 1);
	assert_int_equal(on.ndiscard, 1);
	assert_int_equal(on.discard_sectors, 2048);
	assert_true(on.fua_at > 0 && on.discard_at > on.fua_at);
	assert_int_equal(on.jdiscard, 2 * MS);
	assert_int_equal(on.lat - off.lat, 2 * MS);
	assert_int_equal(off.discards, 0);
	assert_int_equal(off.ndiscard, 0);
	assert_int_equal(off.jdiscard, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_lock_before_submit),
		cmocka_unit_test(test_journal_locked_waits_for_flusher_handle),
		cmocka_unit_test(test_journal_buffer_waits_for_shadow),
		cmocka_unit_test(test_commit_wait_booked_by_phase),
		cmocka_unit_test(test_discard_at_commit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
