/* F2FS (Linux 5.15 fs/f2fs): fsync writes the file's data out of place
 * and its node chain, then one cache flush - no checkpoint, no journal;
 * small fsyncs update in place; need_do_checkpoint (2 logs) turns fsync
 * into a checkpoint; foreground cleaning when free segments run low; the
 * periodic checkpoint ends in REQ_PREFLUSH|FUA; an atomic write holds its
 * pages until commit, then writes data before the node chain, whose last
 * block carries FLUSH|FUA. */
#include "models/fs/f2fs_int.h"
#include "tests/models/stack/stack_harness.h"

#define F_YAML(fs_extra, extra) F_YAML_P("2GiB", fs_extra, extra)
#define F_YAML_P(part, fs_extra, extra)                                              \
	"device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"     \
	"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"                    \
	"fs: {kind: f2fs, partition_bytes: " part ", reserved_segments: 16,"         \
	" extent_mean_bytes: 1GiB, gap_mean_bytes: 0" fs_extra "}\n"                 \
	"writeback: {include: configs/writeback/linux.yaml}\nfg: 10050\n" extra

static struct f2fs *F(const struct sh *h)
{
	return h->st->fs.f2;
}

static bool in_main(const struct sh *h, uint32_t i)
{
	return h->d_sectors[i] > 0 && h->d_sector[i] >= F(h)->main_lba;
}

static bool in_cp(const struct sh *h, uint32_t i)
{
	const struct f2fs *fs = F(h);
	return h->d_sectors[i] > 0 && h->d_sector[i] >= fs->cp_lba &&
	       h->d_sector[i] < fs->cp_lba + 2ull * F2FS_BLKS_PER_SEG * F2FS_SECTORS_PER_BLK;
}

/* Main-area segment log of dispatched request i. */
static int log_of(const struct sh *h, uint32_t i)
{
	const struct f2fs *fs = F(h);
	uint64_t blk = (h->d_sector[i] - fs->main_lba) / F2FS_SECTORS_PER_BLK;
	return fs->seg[blk / F2FS_BLKS_PER_SEG].log;
}

static void test_f2fs_fsync_node_chain_no_checkpoint(void **state)
{
	(void)state;
	struct sh *h = sh_new(F_YAML("", ""));
	struct stack_file *f = sh_file(h, "notes.txt", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 64 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 2 * SEC);
	assert_true(s.exited_at > 0);
	/* data (16 pages, warm data log, sync), then the inode node block in
	 * the warm node log, then an empty FLUSH; nothing in the cp area */
	assert_int_equal(h->nd, 3);
	assert_true(in_main(h, 0));
	assert_int_equal(log_of(h, 0), F2FS_WARM_DATA);
	assert_int_equal(h->d_sectors[0], 16 * 8);
	assert_true(h->d_flags[0] & REQ_SYNC);
	assert_true(in_main(h, 1));
	assert_int_equal(log_of(h, 1), F2FS_WARM_NODE);
	assert_int_equal(h->d_sectors[1], 8);
	assert_false(h->d_flags[1] & (REQ_FLUSH | REQ_FUA));
	assert_int_equal(h->d_sectors[2], 0);
	assert_true(h->d_flags[2] & REQ_FLUSH);
	for (uint32_t i = 0; i < h->nd; i++)
		assert_false(in_cp(h, i));
	assert_int_equal(F(h)->checkpoints, 0);
	assert_int_equal(F(h)->fsync_node_blocks, 1);
	assert_true(sh_wait(h, SIM_CLASS_FG, SIM_WAIT_FSYNC_IO) > 0);
	assert_int_equal(sh_wait(h, SIM_CLASS_FG, SIM_WAIT_CHECKPOINT), 0);
	/* the task returns when the flush completes */
	assert_int_equal(s.exited_at, h->d_time[2] + 100 * 1000);
	sh_free(h);
}

/* A rewrite of 16 pages goes out of place: new blocks, old ones invalid. */
static void test_f2fs_rewrite_out_of_place(void **state)
{
	(void)state;
	struct sh *h = sh_new(F_YAML("", ""));
	struct stack_file *f = sh_file(h, "data.bin", 1 << 20);
	uint64_t before = stack_file_lba(f, 0);
	uint64_t valid0 = F(h)->valid_blocks;
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 64 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 2 * SEC);
	assert_true(stack_file_lba(f, 0) != before);
	assert_int_equal(h->d_sector[0], stack_file_lba(f, 0));
	/* 16 data blocks moved and the inode node rewritten: same valid count */
	assert_int_equal(F(h)->valid_blocks, valid0);
	assert_int_equal(F(h)->opu_blocks, 16);
	sh_free(h);
}

/* fdatasync of a 1-page overwrite: FI_NEED_IPU -> in place, then only a
 * flush (no node write); fsync also writes the inode (mtime). */
static void test_f2fs_small_fsync_in_place(void **state)
{
	(void)state;
	for (int full = 0; full < 2; full++) {
		struct sh *h = sh_new(F_YAML("", ""));
		struct stack_file *f = sh_file(h, "app.db", 1 << 20);
		uint64_t at = stack_file_lba(f, 64 << 10);
		struct sh_script s = { 0 };
		sh_op(&s, STACK_OP_WRITE, f, 64 << 10, 4096, 0);
		sh_op(&s, full ? STACK_OP_FSYNC : STACK_OP_FDATASYNC, f, 0, 0, 0);
		sh_script_task(h, "app", 10050, 0, &s);
		sh_run(h, 2 * SEC);
		assert_true(s.exited_at > 0);
		assert_int_equal(h->d_sector[0], at);
		assert_int_equal(stack_file_lba(f, 64 << 10), at);
		assert_int_equal(F(h)->ipu_blocks, 1);
		assert_int_equal(h->nd, full ? 3 : 2);
		assert_true(h->d_flags[h->nd - 1] & REQ_FLUSH);
		assert_int_equal(F(h)->fsync_node_blocks, full ? 1 : 0);
		assert_int_equal(F(h)->checkpoints, 0);
		sh_free(h);
	}
}

/* need_do_checkpoint: with active_logs=2 fsync waits for a checkpoint,
 * whose last block is REQ_PREFLUSH | REQ_FUA in the cp area. */
static void test_f2fs_two_logs_fsync_checkpoints(void **state)
{
	(void)state;
	struct sh *h = sh_new(F_YAML(", active_logs: 2", ""));
	struct stack_file *f = sh_file(h, "notes.txt", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 64 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 2 * SEC);
	assert_true(s.exited_at > 0);
	assert_int_equal(F(h)->checkpoints, 1);
	assert_true(sh_wait(h, SIM_CLASS_FG, SIM_WAIT_CHECKPOINT) > 0);
	uint32_t last = h->nd - 1;
	assert_true(in_cp(h, last));
	assert_true(h->d_flags[last] & REQ_FLUSH);
	assert_true(h->d_flags[last] & REQ_FUA);
	assert_int_equal(F(h)->fsync_node_blocks, 0);
	sh_free(h);
}

/* Without fsync, the checkpoint comes every cp_interval (60 s). */
static void test_f2fs_periodic_checkpoint(void **state)
{
	(void)state;
	struct sh *h = sh_new(F_YAML(", background_gc: false", ""));
	struct stack_file *f = sh_file(h, "log.txt", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 4096, 0);
	sh_script_task(h, "app", 10050, 1 * SEC, &s);
	sh_run(h, 59 * SEC);
	assert_int_equal(F(h)->checkpoints, 0);
	sh_run(h, 62 * SEC);
	assert_int_equal(F(h)->checkpoints, 1);
	assert_true(F(h)->cp_node_blocks >= 1);
	bool flush_fua = false;
	for (uint32_t i = 0; i < h->nd; i++)
		if (in_cp(h, i) && (h->d_flags[i] & REQ_FUA) && (h->d_flags[i] & REQ_FLUSH))
			flush_fua = true;
	assert_true(flush_fua);
	sh_free(h);
}

/* A nearly full aged file system: a streaming writer drives free segments
 * to the reserve; foreground cleaning moves valid blocks (reads, then
 * sync writes to the cold data log), the writer waits (fs_gc), and a
 * checkpoint frees the cleaned segments. */
static void test_f2fs_foreground_cleaning(void **state)
{
	(void)state;
	struct sh *h = sh_new(F_YAML_P("1GiB", ", initial_used_ratio: 0.9,"
				       " initial_valid_ratio: 0.6, background_gc: false", ""));
	uint32_t free0 = F(h)->free_segs;
	assert_true(free0 > 16 && free0 < 64);
	struct stack_file *f = sh_file(h, "video.bin", 0);
	struct sh_gen g = { .kind = STACK_OP_WRITE, .f = f, .len = 256 << 10,
			    .count = (uint64_t)(free0 + 40) * 8 };
	sh_gen_task(h, "bg", 10060, 0, &g);
	sh_run(h, 120 * SEC);
	assert_true(g.exited_at > 0);
	assert_true(F(h)->gc_fg_calls >= 1);
	assert_true(F(h)->gc_fg_segs >= 1);
	assert_true(F(h)->gc_moved_blocks > 0);
	assert_true(F(h)->log_blocks[F2FS_COLD_DATA] > 0);
	assert_true(F(h)->checkpoints >= 1);
	assert_true(sh_wait(h, SIM_CLASS_BG, SIM_WAIT_FS_GC) > 0);
	assert_true(F(h)->free_segs + F(h)->prefree_segs > 0);
	/* cleaning reads the victims' valid blocks */
	bool gc_read = false;
	for (uint32_t i = 0; i < h->nd && !gc_read; i++)
		gc_read = !(h->d_flags[i] & REQ_WRITE) && in_main(h, i);
	assert_true(gc_read);
	sh_free(h);
}

/* Atomic write: nothing reaches the device before commit (not even after
 * the 30 s dirty expiry); at commit the data (hot data log) completes
 * before the first node block is dispatched, the last node block carries
 * FLUSH|FUA, no separate flush and no checkpoint. */
static void test_f2fs_atomic_commit_ordering(void **state)
{
	(void)state;
	struct sh *h = sh_new(F_YAML(", background_gc: false", ""));
	struct stack_file *f = sh_file(h, "app.db", 1 << 20);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_ATOMIC_START, f, 0, 0, 0);
	sh_op(&s, STACK_OP_WRITE, f, 0, 4096, 0);
	sh_op(&s, STACK_OP_WRITE, f, 128 << 10, 4096, 0);
	sh_op(&s, STACK_OP_WRITE, f, 512 << 10, 8192, 0);
	sh_op(&s, STACK_OP_SLEEP, NULL, 0, 0, 40 * SEC);
	sh_op(&s, STACK_OP_ATOMIC_COMMIT, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 39 * SEC);
	assert_int_equal(h->nd, 0);
	assert_int_equal(f->ei.nr_atomic, 4);
	sh_run(h, 42 * SEC);
	assert_true(s.exited_at > 0);
	assert_int_equal(F(h)->atomic_commits, 1);
	assert_int_equal(F(h)->atomic_pages, 4);
	uint32_t first_node = UINT32_MAX, last_data = 0, last = h->nd - 1;
	for (uint32_t i = 0; i < h->nd; i++) {
		assert_true(in_main(h, i));
		if (log_of(h, i) == F2FS_WARM_NODE && first_node == UINT32_MAX)
			first_node = i;
		if (log_of(h, i) == F2FS_HOT_DATA)
			last_data = i;
	}
	assert_true(first_node != UINT32_MAX);
	assert_true(last_data < first_node);
	/* data completed (100 us service) before the node chain started */
	assert_true(h->d_time[first_node] >= h->d_time[last_data] + 100 * 1000);
	assert_int_equal(log_of(h, last), F2FS_WARM_NODE);
	assert_true(h->d_flags[last] & REQ_FUA);
	assert_true(h->d_flags[last] & REQ_FLUSH);
	for (uint32_t i = 0; i < h->nd; i++)
		assert_true(h->d_sectors[i] > 0);
	assert_int_equal(F(h)->checkpoints, 0);
	/* commit returns without waiting for the node chain */
	assert_true(s.exited_at <= h->d_time[last]);
	sh_free(h);
}

static void test_f2fs_bad_kind(void **state)
{
	(void)state;
	struct sim_error err = { 0 };
	struct cfg_doc *doc = NULL;
	const char *y = "device: {model: ideal, service: fixed, mean_us: 100}\nfs: {kind: xfs}\n";
	assert_int_equal(cfg_load_string(y, strlen(y), "t.yaml", &doc, &err), 0);
	struct sim *sim = sim_new_bare(1);
	sim->doc = doc;
	struct cfg_node *dev = cfg_get(cfg_root(doc), "device");
	cfg_mark_used(dev, false);
	assert_int_equal(device_create(sim, dev, &sim->device, &err), 0);
	assert_int_equal(blk_queue_create(sim, sim->device, NULL, "noop", NULL, &sim->blk, &err), 0);
	assert_int_equal(stack_create(sim, cfg_root(doc), &sim->stack, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "ext4, ext3 or f2fs"));
	sim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_f2fs_fsync_node_chain_no_checkpoint),
		cmocka_unit_test(test_f2fs_rewrite_out_of_place),
		cmocka_unit_test(test_f2fs_small_fsync_in_place),
		cmocka_unit_test(test_f2fs_two_logs_fsync_checkpoints),
		cmocka_unit_test(test_f2fs_periodic_checkpoint),
		cmocka_unit_test(test_f2fs_foreground_cleaning),
		cmocka_unit_test(test_f2fs_atomic_commit_ordering),
		cmocka_unit_test(test_f2fs_bad_kind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
