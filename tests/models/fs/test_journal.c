/* Journal (jbd2, ext4 data=ordered) and the file system layout: fsync
 * commits with log blocks then a FLUSH|FUA commit block in the journal
 * area; the 5 s commit timer; fdatasync of an overwrite skips the commit;
 * fragmented files split requests at extent boundaries. */
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
	assert_true(f->next_ext > 32);
	struct sh_gen g = { .kind = STACK_OP_READ, .f = f, .len = 128 << 10, .count = 64 };
	sh_gen_task(h, "reader", 10050, 0, &g);
	sh_run(h, SIM_TIME_MAX);
	uint64_t total = 0;
	for (uint32_t i = 0; i < h->nd; i++) {
		total += h->d_sectors[i];
		/* no request crosses an extent */
		uint64_t page = 0, run = 0;
		for (uint32_t e = 0; e < f->next_ext; e++)
			if (h->d_sector[i] >= f->ext[e].lba &&
			    h->d_sector[i] < f->ext[e].lba + f->ext[e].npages * 8) {
				page = 1;
				run = f->ext[e].lba + f->ext[e].npages * 8 - h->d_sector[i];
			}
		assert_int_equal(page, 1);
		assert_true(h->d_sectors[i] <= run);
	}
	assert_int_equal(total, (8u << 20) / 512);
	assert_true(h->nd > 64);
	sh_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_journal_fsync_commits_with_flush_fua),
		cmocka_unit_test(test_journal_commit_interval),
		cmocka_unit_test(test_journal_fdatasync_skips_commit_for_overwrite),
		cmocka_unit_test(test_journal_fs_fragmentation_splits_requests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
