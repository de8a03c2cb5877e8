/* ext3 with kjournald (models/fs/ext3.c, journal.c ordered_submit) and the
 * atime rules (models/fs/atime.c): the ordered commit writes the data of
 * every inode a write() put on the transaction, itself, and waits for it
 * before the log and the commit block, which go out as plain writes with no
 * barrier; ext4 (delalloc) leaves an unallocated writer's data to the
 * flusher. strictatime updates once per second of reads, relatime only
 * after a write, noatime never. */
#include <inttypes.h>

#include "models/block/request.h"
#include "tests/models/stack/stack_harness.h"

#define E3_YAML(kind, extra)                                                          \
	"device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"      \
	"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"                     \
	"fs: {kind: " kind ", extent_mean_bytes: 1GiB, gap_mean_bytes: 0" extra "}\n" \
	"writeback: {include: configs/writeback/linux.yaml}\nfg: 10050\n"

struct order_res {
	uint32_t a_first, a_last, j_first, nj, a_n;
	bool j_sync, j_flush;
	uint64_t submitted, a_dirty;
};

/* bg writes 64 KiB of a.bin (never fsynced); at 100 ms app writes b.db
 * and fsyncs it, which commits the transaction holding both inodes. */
static void order_run(const char *kind_yaml, struct order_res *r)
{
	struct sh *h = sh_new(kind_yaml);
	struct stack_file *a = sh_file(h, "a.bin", 0), *b = sh_file(h, "b.db", 0);
	struct sh_script s1 = { 0 }, s2 = { 0 };
	sh_op(&s1, STACK_OP_WRITE, a, 0, 64 << 10, 0);
	sh_script_task(h, "bg", 10060, 0, &s1);
	sh_op(&s2, STACK_OP_WRITE, b, 0, 4096, 0);
	sh_op(&s2, STACK_OP_FSYNC, b, 0, 0, 0);
	sh_script_task(h, "app", 10050, 100 * MS, &s2);
	sh_run(h, 2 * SEC);
	memset(r, 0, sizeof(*r));
	r->a_first = r->j_first = UINT32_MAX;
	uint64_t alba = fs_map(a, 0, NULL);
	for (uint32_t i = 0; i < h->nd; i++) {
		bool in_a = alba != UINT64_MAX && h->d_sector[i] >= alba && h->d_sector[i] < alba + 128;
		if (in_a) {
			r->a_n++;
			if (r->a_first == UINT32_MAX)
				r->a_first = i;
			r->a_last = i;
		}
		if (h->d_flags[i] & REQ_JOURNAL) {
			if (r->j_first == UINT32_MAX)
				r->j_first = i;
			r->nj++;
			r->j_sync |= (h->d_flags[i] & REQ_SYNC) != 0;
			r->j_flush |= (h->d_flags[i] & (REQ_FLUSH | REQ_FUA)) != 0;
		}
	}
	r->submitted = h->st->jn.ordered_pages_submitted;
	r->a_dirty = a->mapping.nr_dirty;
	assert_true(s2.exited_at > 0);
	sh_free(h);
}

static void test_ext3_ordered_commit_writes_data_first(void **state)
{
	(void)state;
	struct order_res e3, e4;
	order_run(E3_YAML("ext3", ""), &e3);
	order_run(E3_YAML("ext4", ""), &e4);
	/* ext3: kjournald wrote a.bin's 16 pages, all before its first log block */
	assert_int_equal(e3.submitted, 16);
	assert_int_equal(e3.a_dirty, 0);
	assert_true(e3.a_n >= 1);
	assert_true(e3.j_first != UINT32_MAX && e3.a_last < e3.j_first);
	/* log and commit block: plain WRITE, no barrier (2.6.23 defaults) */
	assert_true(e3.nj >= 2);
	assert_false(e3.j_sync);
	assert_false(e3.j_flush);
	/* ext4: a.bin has no blocks yet, so the commit does not touch it; the
	 * commit block carries FLUSH|FUA and the log is WRITE_SYNC */
	assert_int_equal(e4.submitted, 0);
	assert_int_equal(e4.a_dirty, 16);
	assert_int_equal(e4.a_n, 0);
	assert_true(e4.j_sync && e4.j_flush);
}

/* Reads of an existing 8 KiB file at the given times (ns from 0), one per
 * entry; an optional write of it first. Returns the atime updates. */
static uint64_t atime_run(const char *yaml, bool write_first, const int64_t *at, int n,
			  uint64_t *meta_tid, uint64_t *running)
{
	struct sh *h = sh_new(yaml);
	struct stack_file *f = sh_file(h, "src.c", 8192);
	struct sh_script s = { 0 };
	int64_t now = 0;
	if (write_first)
		sh_op(&s, STACK_OP_WRITE, f, 0, 4096, 0);
	for (int i = 0; i < n; i++) {
		if (at[i] > now)
			sh_op(&s, STACK_OP_SLEEP, NULL, 0, 0, at[i] - now);
		sh_op(&s, STACK_OP_READ, f, 0, 8192, 0);
		now = at[i];
	}
	sh_script_task(h, "cc", 10050, 0, &s);
	sh_run(h, 5 * SEC);
	uint64_t u = h->st->fs.atime_updates;
	if (meta_tid)
		*meta_tid = f->ei.meta_tid;
	if (running)
		*running = h->st->jn.running.tid;
	sh_free(h);
	return u;
}

static void test_atime_rules(void **state)
{
	(void)state;
	const int64_t at[] = { 10 * MS, 500 * MS, 1200 * MS, 2500 * MS };
	uint64_t tid = 0, run = 0;
	/* strictatime: the second read is in the same second as the first */
	assert_int_equal(atime_run(E3_YAML("ext3", ""), false, at, 4, &tid, &run), 3);
	assert_true(tid != 0);
	/* relatime: atime newer than mtime and under a day old: none; after a
	 * write in second 0 the 10 ms read sets atime to second 0 = mtime, so
	 * the 1.2 s read updates again (atime <= mtime), then none */
	assert_int_equal(atime_run(E3_YAML("ext3", ", atime: relatime"), false, at, 4, NULL, NULL), 0);
	assert_int_equal(atime_run(E3_YAML("ext3", ", atime: relatime"), true, at, 4, NULL, NULL), 2);
	/* relatime's day rule: atime older than a day at the start */
	assert_int_equal(atime_run(E3_YAML("ext3", ", atime: relatime, atime_age_ms: 2000min"), false,
				   at, 4, NULL, NULL),
			 1);
	/* noatime, and ext4's default (noatime, Android) */
	assert_int_equal(atime_run(E3_YAML("ext3", ", atime: noatime"), false, at, 4, NULL, NULL), 0);
	assert_int_equal(atime_run(E3_YAML("ext4", ""), false, at, 4, NULL, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ext3_ordered_commit_writes_data_first),
		cmocka_unit_test(test_atime_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
