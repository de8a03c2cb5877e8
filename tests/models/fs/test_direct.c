/* O_DIRECT (models/fs/direct.c) and the completion path's per-path polling
 * (completion.paths): a direct read bypasses the page cache and leaves it as
 * it was; a direct read of a dirty cached range writes it back first; a
 * direct write drops the cached pages of its range; misaligned offset,
 * length or buffer is EINVAL, counted, and the task goes on; a direct write
 * past the allocated end allocates through ext4 in the running jbd2
 * transaction while an overwrite needs no journal; polling reaches only the
 * paths completion.paths names. */
#include "tests/models/stack/stack_harness.h"

#include "models/completion/completion.h"

#define DIO_DEV "device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 4}\n"
#define DIO_FS "fs: {extent_mean_bytes: 1GiB, gap_mean_bytes: 0}\n"
#define DIO_NOJ "journal: {enabled: false}\n"

static void sh_op_direct(struct sh_script *s, enum stack_op_kind k, struct stack_file *f,
			 uint64_t off, uint64_t len, uint32_t buf_align)
{
	sh_op(s, k, f, off, len, 0);
	s->ops[s->n - 1].flags |= STACK_OPF_DIRECT;
	s->ops[s->n - 1].buf_align = buf_align;
}

static uint32_t count_d(const struct sh *h, uint32_t must, uint32_t must_not)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < h->nd; i++)
		if ((h->d_flags[i] & must) == must && !(h->d_flags[i] & must_not))
			n++;
	return n;
}

/* 64 KiB direct read: 128 sectors straight from the device in REQ_DIRECT
 * bios, no page inserted, the op measured as a read. */
static void test_direct_read_bypasses_cache(void **state)
{
	(void)state;
	struct sh *h = sh_new(DIO_DEV DIO_FS DIO_NOJ);
	struct stack_file *f = sh_file(h, "data", 1 << 20);
	struct sh_script s = { 0 };
	sh_op_direct(&s, STACK_OP_READ, f, 64 << 10, 64 << 10, 0);
	sh_script_task(h, "reader", 10001, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_true(s.exited_at > 0);
	assert_int_equal(stack_file_cached_pages(f), 0);
	assert_int_equal(h->st->pc.inserted, 0);
	assert_int_equal(h->st->pc.misses, 0);
	uint64_t sectors = 0;
	for (uint32_t i = 0; i < h->nd; i++) {
		assert_true(h->d_flags[i] & REQ_DIRECT);
		assert_false(h->d_flags[i] & REQ_PAGECACHE);
		sectors += h->d_sectors[i];
	}
	assert_int_equal(sectors, 128);
	assert_int_equal(h->d_sector[0], stack_file_lba(f, 64 << 10));
	const struct fs_direct *d = &h->st->fs.dio;
	assert_int_equal(d->reads, 1);
	assert_int_equal(d->bytes_read, 64 << 10);
	assert_int_equal(h->sim->metrics.cls[SIM_CLASS_BG].op[SIM_OP_READ].lat.n, 1);
	sh_free(h);
}

/* Buffered write dirties 4 pages; a direct read of them writes them back
 * first (filemap_write_and_wait_range), then reads: the write is dispatched
 * before the read, the pages stay cached and clean. */
static void test_direct_read_writes_back_dirty_range_first(void **state)
{
	(void)state;
	struct sh *h = sh_new(DIO_DEV DIO_FS DIO_NOJ);
	struct stack_file *f = sh_file(h, "data", 1 << 20);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 16 << 10, 0);
	sh_op_direct(&s, STACK_OP_READ, f, 0, 16 << 10, 0);
	sh_script_task(h, "rw", 10001, 0, &s);
	sh_run(h, 100 * MS); /* well before the flusher's 30 s expiry */
	assert_true(s.exited_at > 0);
	assert_int_equal(h->st->fs.dio.flushed_pages, 4);
	assert_true(h->nd >= 2);
	assert_true(h->d_flags[0] & REQ_WRITE);
	assert_false(h->d_flags[0] & REQ_DIRECT);
	assert_int_equal(count_d(h, REQ_DIRECT, REQ_WRITE), 1);
	assert_true(h->d_flags[h->nd - 1] & REQ_DIRECT);
	assert_int_equal(stack_file_cached_pages(f), 4);
	assert_int_equal(f->mapping.nr_dirty, 0);
	/* a range with nothing dirty flushes nothing */
	struct sh *h2 = sh_new(DIO_DEV DIO_FS DIO_NOJ);
	struct stack_file *f2 = sh_file(h2, "data", 1 << 20);
	struct sh_script s2 = { 0 };
	sh_op(&s2, STACK_OP_WRITE, f2, 0, 16 << 10, 0);
	sh_op_direct(&s2, STACK_OP_READ, f2, 64 << 10, 16 << 10, 0);
	sh_script_task(h2, "rw", 10001, 0, &s2);
	sh_run(h2, 100 * MS);
	assert_int_equal(h2->st->fs.dio.flushed_pages, 0);
	assert_int_equal(count_d(h2, REQ_WRITE, 0), 0);
	assert_int_equal(f2->mapping.nr_dirty, 4);
	sh_free(h2);
	sh_free(h);
}

/* 64 KiB read buffered (16 pages cached), then a direct write of the first
 * 16 KiB: those 4 pages leave the cache; a buffered re-read of page 0
 * misses and goes to the device, page 4 still hits. */
static void test_direct_write_invalidates_cached_pages(void **state)
{
	(void)state;
	struct sh *h = sh_new(DIO_DEV DIO_FS DIO_NOJ "readahead: {read_ahead_kib: 0}\n");
	struct stack_file *f = sh_file(h, "data", 1 << 20);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_READ, f, 0, 64 << 10, 0);
	sh_op_direct(&s, STACK_OP_WRITE, f, 0, 16 << 10, 0);
	sh_script_task(h, "rw", 10001, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(stack_file_cached_pages(f), 12);
	assert_int_equal(h->st->fs.dio.invalidated_pages, 4);
	assert_int_equal(h->st->fs.dio.writes, 1);
	assert_int_equal(count_d(h, REQ_DIRECT | REQ_WRITE | REQ_SYNC, 0), 1);
	assert_int_equal(stack_file_page_state(f, 0), STACK_PAGE_ABSENT);
	assert_int_equal(stack_file_page_state(f, 4), STACK_PAGE_UPTODATE);
	uint64_t misses = h->st->pc.misses;
	struct sh_script s2 = { 0 };
	sh_op(&s2, STACK_OP_READ, f, 0, 4096, 0);
	sh_op(&s2, STACK_OP_READ, f, 4 << 12, 4096, 0);
	sh_script_task(h, "again", 10001, sim_now(h->sim), &s2);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->st->pc.misses, misses + 1);
	assert_int_equal(stack_file_cached_pages(f), 13);
	sh_free(h);
}

/* Offset, length and buffer must be multiples of the logical block size:
 * with 4096, off 512, len 1000 and a buffer 8 bytes past a page are EINVAL
 * (nothing issued, not measured, the task goes on); with 512, a 512-byte
 * read at byte 1536 is one sector-aligned bio inside the first page. */
static void test_direct_misaligned_is_einval(void **state)
{
	(void)state;
	struct sh *h = sh_new(DIO_DEV DIO_FS DIO_NOJ "direct: {logical_block_bytes: 4096}\n");
	struct stack_file *f = sh_file(h, "data", 1 << 20);
	struct sh_script s = { 0 };
	sh_op_direct(&s, STACK_OP_READ, f, 512, 4096, 0);
	sh_op_direct(&s, STACK_OP_READ, f, 0, 1000, 0);
	sh_op_direct(&s, STACK_OP_WRITE, f, 0, 4096, 8);
	sh_op_direct(&s, STACK_OP_READ, f, 8192, 4096, 0);
	struct stack_task *t = sh_script_task(h, "r", 10001, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_true(s.exited_at > 0);
	const struct fs_direct *d = &h->st->fs.dio;
	assert_int_equal(d->einval_reads, 2);
	assert_int_equal(d->einval_writes, 1);
	assert_int_equal(t->dio_einval, 3);
	assert_int_equal(d->reads, 1);
	assert_int_equal(d->writes, 0);
	assert_int_equal(h->nd, 1);
	assert_int_equal(h->sim->metrics.cls[SIM_CLASS_BG].op[SIM_OP_READ].lat.n, 1);
	assert_int_equal(h->sim->metrics.cls[SIM_CLASS_BG].op[SIM_OP_WRITE].lat.n, 0);
	json_t *j = fs_direct_to_json(h->st);
	assert_int_equal(json_integer_value(json_object_get(j, "einval_reads")), 2);
	json_decref(j);
	sh_free(h);

	h = sh_new(DIO_DEV DIO_FS DIO_NOJ);
	f = sh_file(h, "data", 1 << 20);
	struct sh_script s2 = { 0 };
	sh_op_direct(&s2, STACK_OP_READ, f, 1536, 512, 512);
	sh_script_task(h, "r", 10001, 0, &s2);
	sh_run(h, SIM_TIME_MAX);
	assert_int_equal(h->st->fs.dio.einval_reads, 0);
	assert_int_equal(h->nd, 1);
	assert_int_equal(h->d_sector[0], stack_file_lba(f, 0) + 3);
	assert_int_equal(h->d_sectors[0], 1);
	sh_free(h);
}

/* ext4 with its journal: a direct write to a new file allocates its blocks
 * (fs allocator) and the allocation joins the running transaction as
 * metadata (datasync_tid), not as ordered data; an overwrite of allocated
 * blocks allocates nothing and leaves datasync_tid alone. */
static void test_direct_write_allocates_through_ext4_journal(void **state)
{
	(void)state;
	struct sh *h = sh_new(DIO_DEV DIO_FS);
	struct stack_file *f = sh_file(h, "new", 0);
	struct sh_script s = { 0 };
	sh_op_direct(&s, STACK_OP_WRITE, f, 0, 64 << 10, 0);
	sh_script_task(h, "w", 10001, 0, &s);
	sh_run(h, 100 * MS);
	assert_true(s.exited_at > 0);
	assert_int_equal(f->ei.alloc_pages, 16);
	assert_int_equal(h->st->fs.dio.alloc_pages, 16);
	assert_int_equal(stack_file_size(f), 64 << 10);
	assert_true(f->ei.datasync_tid != 0);
	assert_int_equal(f->ei.ordered_tid, 0);
	assert_int_equal(stack_file_cached_pages(f), 0);
	assert_int_equal(count_d(h, REQ_DIRECT | REQ_WRITE, 0), 1);
	assert_int_equal(h->d_sector[0], stack_file_lba(f, 0));
	sh_free(h);

	h = sh_new(DIO_DEV DIO_FS);
	f = sh_file(h, "old", 1 << 20);
	uint64_t alloc = f->ei.alloc_pages;
	struct sh_script s2 = { 0 };
	sh_op_direct(&s2, STACK_OP_WRITE, f, 0, 64 << 10, 0);
	sh_script_task(h, "w", 10001, 0, &s2);
	sh_run(h, 100 * MS);
	assert_int_equal(f->ei.alloc_pages, alloc);
	assert_int_equal(h->st->fs.dio.alloc_pages, 0);
	assert_int_equal(f->ei.datasync_tid, 0);
	assert_int_equal(stack_file_size(f), 1 << 20);
	sh_free(h);
}

/* The path rule alone: raw and O_DIRECT requests are the direct path;
 * page-cache fills poll from direct+readahead (reads) and
 * direct+readahead+mmap (faults); writeback and metadata only under all. */
static void test_completion_path_rule(void **state)
{
	(void)state;
	const uint32_t raw = 0, dio = REQ_DIRECT, dwr = REQ_DIRECT | REQ_WRITE | REQ_SYNC;
	const uint32_t rd = REQ_PAGECACHE | REQ_PCREAD, mm = REQ_PAGECACHE | REQ_MMAP;
	const uint32_t wb = REQ_PAGECACHE | REQ_WRITE, meta = REQ_PAGECACHE | REQ_META;
	const uint32_t all[] = { raw, dio, dwr, rd, mm, wb, meta };
	/* expected per paths value, in all[]'s order */
	const bool want[4][7] = {
		{ 1, 1, 1, 0, 0, 0, 0 },
		{ 1, 1, 1, 1, 0, 0, 0 },
		{ 1, 1, 1, 1, 1, 0, 0 },
		{ 1, 1, 1, 1, 1, 1, 1 },
	};
	for (int p = 0; p < 4; p++)
		for (int i = 0; i < 7; i++)
			assert_int_equal(completion_path_polled(p, all[i]), want[p][i]);
}

/* Through the stack with `completion: {model: poll, paths: P}`: a direct
 * read, a buffered read miss and a fault miss on three files; which of
 * them are polled follows P, the rest take the interrupt path. */
static void run_paths(const char *paths, uint64_t *polled, uint64_t *path_irq, uint64_t *ios)
{
	struct sh *h = sh_new(DIO_DEV DIO_FS DIO_NOJ "readahead: {read_ahead_kib: 0}\n");
	char y[128];
	snprintf(y, sizeof(y), "model: poll\npaths: %s\n", paths);
	struct cfg_doc *doc = NULL;
	struct sim_error err = { 0 };
	struct completion *c = NULL;
	assert_int_equal(cfg_load_string(y, strlen(y), "cpl.yaml", &doc, &err), 0);
	assert_int_equal(completion_attach(h->sim, h->sim->device, cfg_root(doc), &c, &err), 0);
	assert_non_null(c);
	struct stack_file *a = sh_file(h, "a", 1 << 20), *b = sh_file(h, "b", 1 << 20);
	struct stack_file *m = sh_file(h, "m", 1 << 20);
	struct sh_script s = { 0 };
	sh_op_direct(&s, STACK_OP_READ, a, 0, 4096, 0);
	sh_op(&s, STACK_OP_READ, b, 8192, 4096, 0);
	sh_op(&s, STACK_OP_FAULT, m, 8192, 4096, 0);
	sh_script_task(h, "r", 10001, 0, &s);
	sh_run(h, SIM_TIME_MAX);
	assert_true(s.exited_at > 0);
	const struct cpl_stats *st = completion_stats(c);
	*polled = st->polled;
	*path_irq = st->path_irq;
	*ios = st->ios;
	sh_free(h);
	cfg_free(doc);
}

static void test_completion_polls_only_chosen_paths(void **state)
{
	(void)state;
	static const char *const paths[] = { "direct", "direct+readahead", "direct+readahead+mmap",
					     "all" };
	for (int p = 0; p < 4; p++) {
		uint64_t polled, irq, ios;
		run_paths(paths[p], &polled, &irq, &ios);
		assert_true(ios >= 3);
		/* the direct read always; + the buffered miss; + the fault's read */
		uint64_t want = p == 3 ? ios : (uint64_t)(1 + (p >= 1) + (p >= 2));
		assert_int_equal(polled, want);
		assert_int_equal(irq, ios - want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct_read_bypasses_cache),
		cmocka_unit_test(test_direct_read_writes_back_dirty_range_first),
		cmocka_unit_test(test_direct_write_invalidates_cached_pages),
		cmocka_unit_test(test_direct_misaligned_is_einval),
		cmocka_unit_test(test_direct_write_allocates_through_ext4_journal),
		cmocka_unit_test(test_completion_path_rule),
		cmocka_unit_test(test_completion_polls_only_chosen_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
