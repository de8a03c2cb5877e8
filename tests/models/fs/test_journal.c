/* Journal (jbd2, ext4 data=ordered) and the file system layout: fsync
 * commits with log blocks then a FLUSH|FUA commit block in the journal
 * area; the 5 s commit timer; fdatasync of an overwrite skips the commit;
 * fragmented files split requests at extent boundaries; async_commit
 * (journal_async_commit) trades the FLUSH|FUA commit block for a plain one
 * plus an empty flush; the 3.10 whole-file ordered wait chases a streaming
 * flusher where the range wait does not. */
#include <inttypes.h>

#include "tests/models/stack/stack_harness.h"

#define J_YAML(extra)                                                               \
	"device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"     \
	"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"                    \
	"fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\n"                         \
	"writeback: {include: configs/writeback/linux.yaml}\nfg: 10050\n" extra

static bool in_journal(const struct sh *h, uint32_t i)
{
	const struct journal *jn = &h->st->jn;
	return h->d_sector[i] >= jn->start_lba && h->d_sector[i] < jn->start_lba + jn->nr_sectors;
}

static void test_journal_fsync_commits_with_flush_fua(void **state)
{
	(void)state;
	struct sh *h = sh_new(J_YAML(""));
	struct stack_file *f = sh_file(h, "app.db", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 64 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	/* data first (sync, in place), then the log, then the commit block */
	assert_true(h->nd >= 3);
	assert_true(h->d_flags[0] & REQ_WRITE);
	assert_true(h->d_flags[0] & REQ_SYNC);
	assert_false(in_journal(h, 0));
	uint32_t last = h->nd - 1;
	assert_true(in_journal(h, last));
	assert_true(h->d_flags[last] & REQ_FUA);
	assert_true(h->d_flags[last] & REQ_FLUSH);
	assert_int_equal(h->d_sectors[last], 8);
	assert_true(in_journal(h, last - 1));
	assert_false(h->d_flags[last - 1] & REQ_FUA);
	assert_true(h->st->jn.commits >= 1);
	assert_true(sh_wait(h, SIM_CLASS_FG, SIM_WAIT_JOURNAL) > 0);
	assert_int_equal(s.exited_at, h->d_time[last] + 100 * 1000);
	sh_free(h);
}

/* journal_async_commit: the commit block goes out with the log blocks as a
 * plain sync write (no FLUSH, no FUA) and one empty flush follows. */
static void test_journal_async_commit_no_fua(void **state)
{
	(void)state;
	struct sh *h = sh_new(J_YAML("journal: {async_commit: true}\n"));
	struct stack_file *f = sh_file(h, "app.db", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 64 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_true(h->nd >= 3);
	uint32_t last = h->nd - 1, fua = 0;
	for (uint32_t i = 0; i < h->nd; i++)
		fua += (h->d_flags[i] & REQ_FUA) != 0;
	assert_int_equal(fua, 0);
	/* the last request is the empty flush, after the commit block */
	assert_true(h->d_flags[last] & REQ_FLUSH);
	assert_int_equal(h->d_sectors[last], 0);
	assert_true(in_journal(h, last - 1));
	assert_false(h->d_flags[last - 1] & REQ_FLUSH);
	assert_true(h->st->jn.commits >= 1);
	assert_int_equal(h->st->jn.flushes, h->st->jn.commits);
	sh_free(h);
}

/* A background writer streams a large file through the flusher; at 3 s a
 * foreground app fsyncs a small file. The commit's ordered list holds the
 * big file (its blocks were allocated in this transaction), so the
 * 3.10 whole-file wait (filemap_fdatawait up to i_size) keeps finding
 * pages the flusher puts under writeback ahead of it, while the range
 * wait sleeps only on those under writeback when the commit began. */
static int64_t fsync_behind_flusher(const char *wait,
				    void (*hook)(struct stack_task *, uint64_t, void *),
				    uint64_t *pages_waited)
{
	char yaml[1024];
	snprintf(yaml, sizeof(yaml),
		 "device: {model: ideal, service: fixed, mean_us: 2000, queue_depth: 4, servers: 1}\n"
		 "memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"
		 "fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\n"
		 "writeback: {include: configs/writeback/linux.yaml}\nfg: 10050\n"
		 "journal: {ordered_wait: %s}\n", wait);
	struct sh *h = sh_new(yaml);
	if (hook) {
		struct stack_hooks *hk = stack_hooks(h->st);
		hk->ctx = h->st;
		hk->on_wait_writeback = hook;
	}
	struct stack_file *big = sh_file(h, "big.bin", 0), *db = sh_file(h, "app.db", 0);
	struct sh_gen g = { .kind = STACK_OP_WRITE, .f = big, .len = 1 << 20, .count = 1536 };
	struct sh_script s = { 0 };
	sh_gen_task(h, "bg", 10060, 0, &g);
	sh_op(&s, STACK_OP_WRITE, db, 0, 4096, 0);
	sh_op(&s, STACK_OP_FSYNC, db, 0, 0, 0);
	sh_script_task(h, "app", 10050, 3 * SEC, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_true(s.exited_at > 0);
	*pages_waited = h->st->jn.ordered_pages_waited;
	int64_t d = s.exited_at - 3 * SEC;
	sh_free(h);
	return d;
}

static void test_journal_whole_file_wait_chases_flusher(void **state)
{
	(void)state;
	uint64_t pw_range = 0, pw_whole = 0;
	int64_t range = fsync_behind_flusher("range", NULL, &pw_range);
	int64_t whole = fsync_behind_flusher("whole-file", NULL, &pw_whole);
	print_message("fsync behind the flusher: range %.1f ms, whole-file %.1f ms (%" PRIu64
		      " waits)\n", (double)range / 1e6, (double)whole / 1e6, pw_whole);
	assert_int_equal(pw_range, 0);
	assert_true(pw_whole > 1);
	/* it stops at i_size as it was when the wait began: the writer's
	 * dirty backlog (dirty_ratio of memory, ~80 MB here, ~0.3 s of
	 * writeback), not the whole 1.5 GiB */
	assert_true(whole > range + 100 * MS);
	assert_true(whole < 2 * SEC);
}

/* Without fsync the running transaction commits when it is 5 s old. */
static void test_journal_commit_interval(void **state)
{
	(void)state;
	struct sh *h = sh_new(J_YAML(""));
	struct stack_file *f = sh_file(h, "log.txt", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 4096, 0);
	sh_script_task(h, "app", 10050, 1 * SEC, &s);
	sh_run(h, SIM_TIME_MAX);
	uint32_t first_j = UINT32_MAX;
	for (uint32_t i = 0; i < h->nd && first_j == UINT32_MAX; i++)
		if (in_journal(h, i))
			first_j = i;
	assert_true(first_j != UINT32_MAX);
	assert_int_equal(h->d_time[first_j], 6 * SEC);
	assert_true(h->st->jn.commits_timer >= 1);
	sh_free(h);
}

/* fdatasync of an overwrite inside the file (no size or block change)
 * needs no commit; fsync does (the mtime update). */
static void test_journal_fdatasync_skips_commit_for_overwrite(void **state)
{
	(void)state;
	for (int full = 0; full < 2; full++) {
		struct sh *h = sh_new(J_YAML(""));
		struct stack_file *f = sh_file(h, "app.db", 1 << 20);
		struct sh_script s = { 0 };
		sh_op(&s, STACK_OP_WRITE, f, 64 << 10, 4096, 0);
		sh_op(&s, full ? STACK_OP_FSYNC : STACK_OP_FDATASYNC, f, 0, 0, 0);
		sh_script_task(h, "app", 10050, 0, &s);
		sh_run(h, 1 * SEC); /* before the 5 s timer */
		assert_true(s.exited_at > 0);
		int64_t jw = sh_wait(h, SIM_CLASS_FG, SIM_WAIT_JOURNAL);
		if (full)
			assert_true(jw > 0);
		else
			assert_int_equal(jw, 0);
		sh_free(h);
	}
}

/* Fragmented existing files: a sequential read is split at extent
 * boundaries, so requests are smaller and land far apart. */
static void test_journal_fs_fragmentation_splits_requests(void **state)
{
	(void)state;
	struct sh *h = sh_new("device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"
			      "memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"
			      "fs: {extent_mean_bytes: 64KiB, gap_mean_bytes: 1MiB}\n");
	struct stack_file *f = sh_file(h, "frag.apk", 8 << 20);
	assert_true(f->ei.next_ext > 32);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 128 << 10, .count = 64 };
	sh_gen_task(h, "reader", 10050, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	uint64_t total = 0;
	for (uint32_t i = 0; i < h->nd; i++) {
		total += h->d_sectors[i];
		/* no request crosses an extent */
		uint64_t page = 0, run = 0;
		for (uint32_t e = 0; e < f->ei.next_ext; e++)
			if (h->d_sector[i] >= f->ei.ext[e].lba &&
			    h->d_sector[i] < f->ei.ext[e].lba + f->ei.ext[e].npages * 8) {
				page = 1;
				run = f->ei.ext[e].lba + f->ei.ext[e].npages * 8 - h->d_sector[i];
			}
		assert_int_equal(page, 1);
		assert_true(h->d_sectors[i] <= run);
	}
	assert_int_equal(total, (8u << 20) / 512);
	assert_true(h->nd > 64);
	sh_free(h);
}

/* A created file's first fdatasync commits the transaction holding its
 * inode and directory entry (ext4_new_inode sets i_datasync_tid), an
 * existing file's overwrite does not; unlink and rename put the directory
 * and inode into the running transaction. */
static void test_journal_create_unlink_rename_metadata(void **state)
{
	(void)state;
	struct sh *h = sh_new(J_YAML(""));
	struct stack_file *nf = sh_file(h, "app/prefs.xml.1", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_CREATE, nf, 0, 0, 0);
	sh_op(&s, STACK_OP_WRITE, nf, 0, 4096, 0);
	sh_op(&s, STACK_OP_FDATASYNC, nf, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 1 * SEC);
	assert_true(s.exited_at > 0);
	assert_true(sh_wait(h, SIM_CLASS_FG, SIM_WAIT_JOURNAL) > 0);
	assert_int_equal(h->st->jn.commits, 1);
	/* descriptor + new inode + directory + inode/block bitmaps */
	assert_true(h->st->jn.blocks_written >= 1 + 3 + 1);
	struct stack_file *dir = stack_file_find(h->st, "app/");
	assert_non_null(dir);
	assert_true(dir->ei.meta_tid == 1);
	sh_free(h);

	/* rename and unlink: the directory and the inode join the running
	 * transaction (no I/O of their own until a commit) */
	h = sh_new(J_YAML(""));
	struct stack_file *old = sh_file(h, "app/prefs.xml.0", 8192);
	struct sh_script u = { 0 };
	sh_op(&u, STACK_OP_RENAME, old, 0, 0, 0);
	sh_op(&u, STACK_OP_UNLINK, old, 0, 0, 0);
	sh_script_task(h, "app", 10050, 1 * MS, &u);
	sh_run(h, 1 * SEC);
	assert_true(u.exited_at > 0);
	assert_int_equal(old->ei.meta_tid, h->st->jn.running.tid);
	assert_true(h->st->jn.running.nr_meta >= 3);
	assert_int_equal(h->st->jn.commits, 0);
	sh_free(h);
}

/* ftruncate to 0 (SQLite's TRUNCATE journal mode): the blocks are freed,
 * the size change joins the transaction, and the next write needs new
 * blocks, so its fdatasync commits. */
static void test_journal_truncate_frees_blocks(void **state)
{
	(void)state;
	struct sh *h = sh_new(J_YAML(""));
	struct stack_file *j = sh_file(h, "app/app.db-journal", 64 << 10);
	assert_int_equal(j->ei.alloc_pages, 16);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_TRUNCATE, j, 0, 0, 0);
	sh_script_task(h, "app", 10050, 1 * MS, &s);
	sh_run(h, 1 * SEC);
	assert_true(s.exited_at > 0);
	assert_int_equal(stack_file_size(j), 0);
	assert_int_equal(j->ei.alloc_pages, 0);
	assert_int_equal(stack_file_lba(j, 0), UINT64_MAX);
	assert_int_equal(j->ei.datasync_tid, h->st->jn.running.tid);
	assert_int_equal(h->st->jn.commits, 0);
	sh_free(h);

	h = sh_new(J_YAML(""));
	j = sh_file(h, "app/app.db-journal", 64 << 10);
	struct sh_script w = { 0 };
	sh_op(&w, STACK_OP_TRUNCATE, j, 0, 0, 0);
	sh_op(&w, STACK_OP_WRITE, j, 0, 8192, 0);
	sh_op(&w, STACK_OP_FDATASYNC, j, 0, 0, 0);
	sh_script_task(h, "app", 10050, 1 * MS, &w);
	sh_run(h, 1 * SEC);
	assert_true(w.exited_at > 0);
	assert_int_equal(h->st->jn.commits, 1);
	assert_true(stack_file_lba(j, 0) != UINT64_MAX);
	sh_free(h);
}

/* truncate_inode_pages: unlink of a file whose pages the flusher holds
 * under async writeback waits for them (wait_on_page_writeback), and the
 * policies' hook sees the wait. */
static int hook_calls, hook_jbd2_calls;
static void count_hook(struct stack_task *t, uint64_t lba, void *ctx)
{
	struct stack *st = ctx;
	(void)lba;
	if (t == stack_journal_task(st))
		hook_jbd2_calls++;
	else
		hook_calls++;
}

static void test_journal_unlink_waits_writeback(void **state)
{
	(void)state;
	struct sh *h = sh_new(
		"device: {model: ideal, service: fixed, mean_us: 2000, queue_depth: 1}\n"
		"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"
		"fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\n"
		"writeback: {dirty_background_bytes: 1MiB, dirty_bytes: 200MiB, throttle: false}\n"
		"fg: 10050\n");
	struct stack_hooks *hk = stack_hooks(h->st);
	hk->ctx = h->st;
	hk->on_wait_writeback = count_hook;
	hook_calls = hook_jbd2_calls = 0;
	struct stack_file *tmp = sh_file(h, "app/cache.tmp", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_CREATE, tmp, 0, 0, 0);
	sh_op(&s, STACK_OP_WRITE, tmp, 0, 16 << 20, 0);
	sh_op(&s, STACK_OP_SLEEP, NULL, 0, 0, 50 * MS); /* the flusher takes it */
	sh_op(&s, STACK_OP_UNLINK, tmp, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_true(s.exited_at > 0);
	assert_true(sh_wait(h, SIM_CLASS_FG, SIM_WAIT_WRITEBACK) > 0);
	assert_true(hook_calls > 0);
	assert_int_equal(tmp->mapping.nr_writeback, 0);
	sh_free(h);
}

/* The 3.10 ordered-data wait is jbd2's own wait_on_page_writeback: the
 * hook is called with the journal thread as the waiter. */
static void test_journal_ordered_wait_calls_hook(void **state)
{
	(void)state;
	hook_calls = hook_jbd2_calls = 0;
	uint64_t waited = 0;
	fsync_behind_flusher("whole-file", count_hook, &waited);
	assert_true(waited > 1);
	assert_int_equal((uint64_t)hook_jbd2_calls, waited);
}

/* fs_ops.dirty_inode's contract that write_step relies on (it marks the
 * inode dirty once per step, not per page): a repeat for the same inode
 * records nothing new until jbd2 has started a new transaction; after
 * that the inode joins the new one. */
static void test_journal_dirty_inode_repeat_is_a_no_op(void **state)
{
	(void)state;
	struct sh *h = sh_new(J_YAML(""));
	struct stack *st = h->st;
	struct stack_file *f = sh_file(h, "app.db", 0);
	const struct journal *jn = &st->jn;
	st->fs.ops->dirty_inode(st, f, true);
	struct journal_tx tx = jn->running;
	uint64_t meta = f->ei.meta_tid, ds = f->ei.datasync_tid;
	int64_t timer = jn->timer.when;
	assert_true(tx.has_handles);
	assert_int_equal(meta, tx.tid);
	assert_int_equal(ds, tx.tid);
	for (int i = 0; i < 3; i++) {
		st->fs.ops->dirty_inode(st, f, true);
		st->fs.ops->dirty_inode(st, f, false);
	}
	assert_int_equal(jn->running.tid, tx.tid);
	assert_int_equal(jn->running.nr_meta, tx.nr_meta);
	assert_int_equal(jn->running.start_ns, tx.start_ns);
	assert_int_equal(jn->timer.when, timer);
	assert_int_equal(f->ei.meta_tid, meta);
	assert_int_equal(f->ei.datasync_tid, ds);
	/* the commit timer runs jbd2 (another task): the next call joins the
	 * new transaction */
	sh_run(h, SIM_TIME_MAX);
	assert_true(jn->running.tid > tx.tid);
	st->fs.ops->dirty_inode(st, f, true);
	assert_int_equal(f->ei.meta_tid, jn->running.tid);
	assert_int_equal(f->ei.datasync_tid, jn->running.tid);
	assert_int_equal(jn->running.nr_meta, 1);
	sh_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_journal_create_unlink_rename_metadata),
		cmocka_unit_test(test_journal_unlink_waits_writeback),
		cmocka_unit_test(test_journal_truncate_frees_blocks),
		cmocka_unit_test(test_journal_ordered_wait_calls_hook),
		cmocka_unit_test(test_journal_fsync_commits_with_flush_fua),
		cmocka_unit_test(test_journal_commit_interval),
		cmocka_unit_test(test_journal_async_commit_no_fua),
		cmocka_unit_test(test_journal_whole_file_wait_chases_flusher),
		cmocka_unit_test(test_journal_fdatasync_skips_commit_for_overwrite),
		cmocka_unit_test(test_journal_fs_fragmentation_splits_requests),
		cmocka_unit_test(test_journal_dirty_inode_repeat_is_a_no_op),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
