/* F2FS compression (Linux 6.1 fs/f2fs/compress.c): a cluster is stored
 * compressed only when header + data fit in cluster_size - 1 blocks; a
 * full, dirty cluster inside i_size is compressed on writeback, a partial
 * one written raw; the device sees the compressed blocks; a read of a
 * compressed cluster reads its blocks and decompresses on a core (softirq)
 * or in the post-read worker (workqueue). */
#include "models/fs/f2fs_int.h"
#include "tests/models/stack/stack_harness.h"

#define C_YAML(comp) C_YAML_N("2", comp)
#define C_YAML_N(cores, comp)                                                       \
	"device: {model: ideal, service: fixed, mean_us: 100, queue_depth: 1}\n"     \
	"memory: {total_bytes: 512MiB, reserved_bytes: 128MiB}\n"                    \
	"cpu: {cores: " cores "}\n"                                                  \
	"fs: {kind: f2fs, partition_bytes: 2GiB, reserved_segments: 16,"             \
	" extent_mean_bytes: 1GiB, gap_mean_bytes: 0, compress: {" comp "}}\n"       \
	"writeback: {include: configs/writeback/linux.yaml}\nfg: 10050\n"

static struct f2fs *F(const struct sh *h)
{
	return h->st->fs.f2;
}

/* Sectors of dispatched data requests (main area, a data log) with flag. */
static uint64_t data_sectors(const struct sh *h, uint32_t flag)
{
	const struct f2fs *fs = F(h);
	uint64_t n = 0;
	for (uint32_t i = 0; i < h->nd; i++) {
		if (h->d_sectors[i] == 0 || h->d_sector[i] < fs->main_lba)
			continue;
		uint64_t blk = (h->d_sector[i] - fs->main_lba) / F2FS_SECTORS_PER_BLK;
		if (fs->seg[blk / F2FS_BLKS_PER_SEG].log > F2FS_COLD_DATA)
			continue;
		if (flag == REQ_WRITE ? (h->d_flags[i] & REQ_WRITE) : !(h->d_flags[i] & REQ_WRITE))
			n += h->d_sectors[i];
	}
	return n;
}

static void test_cluster_cpages_rule(void **state)
{
	(void)state;
	/* 4-page cluster: at most 3 blocks, header 24 bytes included */
	assert_int_equal(f2fs_cluster_cpages(2, 3 * 4096 - 24), 3);
	assert_int_equal(f2fs_cluster_cpages(2, 3 * 4096 - 23), 0);
	assert_int_equal(f2fs_cluster_cpages(2, 2 * 4096 - 24), 2);
	assert_int_equal(f2fs_cluster_cpages(2, 2 * 4096 - 23), 3);
	assert_int_equal(f2fs_cluster_cpages(2, 8192), 3); /* ratio 2.0 exactly saves one */
	assert_int_equal(f2fs_cluster_cpages(2, 1), 1);
	assert_int_equal(f2fs_cluster_cpages(2, 16384), 0);
	/* 256-page cluster (MAX_COMPRESS_LOG_SIZE 8) */
	assert_int_equal(f2fs_cluster_cpages(8, 255 * 4096 - 24), 255);
	assert_int_equal(f2fs_cluster_cpages(8, 255 * 4096), 0);
}

static void test_cluster_clen_ratio_and_spread(void **state)
{
	(void)state;
	struct f2fs fs;
	memset(&fs, 0, sizeof(fs));
	fs.p.compress_log_size = 2;
	fs.p.compress_algorithm = F2FS_CALG_LZ4;
	fs.p.compress_ratio = 2.0;
	fs.p.compress_ratio_spread = 0;
	assert_int_equal(f2fs_cluster_clen(&fs, 1, 0, 0), 8192);
	fs.p.compress_ratio = 1.0; /* incompressible: no saving, raw */
	assert_int_equal(f2fs_cluster_cpages(2, f2fs_cluster_clen(&fs, 1, 0, 0)), 0);
	/* zstd's Silesia ratio over lz4's: 2.884 / 2.101 */
	fs.p.compress_ratio = 2.0;
	fs.p.compress_algorithm = F2FS_CALG_ZSTD;
	uint64_t z = f2fs_cluster_clen(&fs, 1, 0, 0);
	assert_true(z > 5960 && z < 5970);
	/* a spread stays in its bounds, differs between clusters, repeats */
	fs.p.compress_algorithm = F2FS_CALG_LZ4;
	fs.p.compress_ratio_spread = 0.25;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint64_t c = 0; c < 1000; c++) {
		uint64_t l = f2fs_cluster_clen(&fs, 7, c, 0);
		assert_int_equal(l, f2fs_cluster_clen(&fs, 7, c, 0));
		lo = l < lo ? l : lo;
		hi = l > hi ? l : hi;
	}
	assert_true(lo >= 16384 / 2.5 - 1 && hi <= 16384 / 1.5 + 1);
	assert_true(hi - lo > 2000);
}

/* 4 clusters written and fsynced at ratio 4: 2 blocks each reach the
 * device instead of 4, and the compression CPU ran on a core. */
static void test_writeback_compresses_full_clusters(void **state)
{
	(void)state;
	struct sh *h = sh_new(C_YAML("algorithm: lz4, ratio: 4, ratio_spread: 0"));
	struct stack_file *f = sh_file(h, "notes.db", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 64 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 2 * SEC);
	assert_true(s.exited_at > 0);
	assert_int_equal(F(h)->cl_compressed, 4);
	assert_int_equal(F(h)->c_blocks_saved, 8);
	assert_int_equal(data_sectors(h, REQ_WRITE), 4 * 2 * 8);
	/* 16 KiB per cluster at the lz4 cost per KiB, on core 0 or 1 */
	assert_int_equal(F(h)->c_cpu_ns, 4 * 16 * F(h)->c_ns_per_kib);
	assert_int_equal(F(h)->c_core_ns[0] + F(h)->c_core_ns[1], F(h)->c_cpu_ns);
	/* slot 0 unmapped (COMPRESS_ADDR), 1..2 the blocks, 3 NEW_ADDR */
	assert_true(fs_map(f, 0, NULL) == UINT64_MAX);
	assert_true(fs_map(f, 1, NULL) != UINT64_MAX);
	assert_true(fs_map(f, 2, NULL) != UINT64_MAX);
	assert_true(fs_map(f, 3, NULL) == UINT64_MAX);
	sh_free(h);
}

/* Incompressible data: compression is tried (CPU spent), the clusters are
 * written raw, all 16 blocks. */
static void test_no_saving_written_raw(void **state)
{
	(void)state;
	struct sh *h = sh_new(C_YAML("algorithm: lz4, ratio: 1.2, ratio_spread: 0"));
	struct stack_file *f = sh_file(h, "photo.bin", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 64 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 2 * SEC);
	assert_int_equal(F(h)->cl_compressed, 0);
	assert_int_equal(F(h)->cl_raw, 4);
	assert_int_equal(data_sectors(h, REQ_WRITE), 16 * 8);
	assert_true(F(h)->c_cpu_ns > 0);
	sh_free(h);
}

/* 24 KiB: cluster 0 is full and compressed; cluster 1 has pages past
 * i_size (cluster_has_invalid_data) and is written raw; a file whose
 * extension is not listed is not compressed at all. */
static void test_partial_cluster_and_extension(void **state)
{
	(void)state;
	struct sh *h = sh_new(C_YAML("algorithm: lz4, ratio: 4, ratio_spread: 0, extension: db"));
	struct stack_file *f = sh_file(h, "a.db", 0);
	struct stack_file *g = sh_file(h, "b.log", 0);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 24 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_op(&s, STACK_OP_WRITE, g, 0, 64 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, g, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 2 * SEC);
	assert_int_equal(F(h)->cl_compressed, 1);
	assert_int_equal(F(h)->cl_partial, 1);
	assert_false(f2fs_i(g)->compress);
	assert_int_equal(data_sectors(h, REQ_WRITE), (2 + 2 + 16) * 8);
	sh_free(h);
}

/* A cold read of an existing compressed file reads fewer sectors than its
 * size and decompresses every cluster it touches, on a core. */
static void read_compressed(const char *ctx)
{
	char y[512];
	snprintf(y, sizeof(y), C_YAML("algorithm: lz4, ratio: 4, ratio_spread: 0, "
				      "decompress_context: %s"),
		 ctx);
	struct sh *h = sh_new(y);
	struct stack_file *f = sh_file(h, "old.db", 1 << 20);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_READ, f, 0, 1 << 20, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 2 * SEC);
	assert_true(s.exited_at > 0);
	assert_int_equal(f->mapping.nr_pages, 256);
	/* 64 clusters of 2 blocks */
	assert_int_equal(F(h)->cl_reads, 64);
	assert_int_equal(data_sectors(h, 0), 64 * 2 * 8);
	assert_int_equal(F(h)->d_cpu_ns, 64 * 16 * F(h)->d_ns_per_kib);
	int64_t by_core = 0;
	for (uint32_t i = 0; i <= F(h)->ncores; i++)
		by_core += F(h)->d_core_ns[i];
	assert_int_equal(by_core, F(h)->d_cpu_ns);
	sh_free(h);
}

static void test_read_decompress_softirq(void **state)
{
	(void)state;
	read_compressed("softirq");
}

static void test_read_decompress_workqueue(void **state)
{
	(void)state;
	read_compressed("workqueue");
}

/* Overwriting one page of a compressed cluster makes the cluster raw. */
static void test_partial_overwrite(void **state)
{
	(void)state;
	struct sh *h = sh_new(C_YAML("algorithm: lz4, ratio: 4, ratio_spread: 0"));
	struct stack_file *f = sh_file(h, "old.db", 64 << 10);
	assert_int_equal(f2fs_i(f)->cl_blocks[0], 2);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 4096, 4096, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 2 * SEC);
	assert_int_equal(F(h)->cl_overwrite, 1);
	assert_int_equal(f2fs_i(f)->cl_blocks[0], 0);
	for (uint64_t p = 0; p < 4; p++)
		assert_true(fs_map(f, p, NULL) != UINT64_MAX);
	sh_free(h);
}

/* A CPU-bound task holds core 0 from t = 0; an app writes 64 MiB and
 * fsyncs it from 1 ms. With idle cores (3 cores: the app on one, the
 * flusher on another) compression never takes the busy core; with one
 * core it shares it with the hog (CFS) and the fsync returns later. */
static int64_t fsync_beside_cpu_hog(const char *cores, int64_t *c_ns, int64_t *core0_ns)
{
	char y[512];
	snprintf(y, sizeof(y), C_YAML_N("%s", "algorithm: lz4, ratio: 2, ratio_spread: 0"), cores);
	struct sh *h = sh_new(y);
	struct stack_file *f = sh_file(h, "notes.db", 0);
	struct sh_script hog = { 0 }, s = { 0 };
	sh_op(&hog, STACK_OP_CPU, NULL, 0, 0, 5 * SEC);
	sh_script_task(h, "hog", 10060, 0, &hog);
	sh_op(&s, STACK_OP_WRITE, f, 0, 64 << 20, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 1 * MS, &s);
	sh_run(h, 20 * SEC);
	assert_true(s.exited_at > 0);
	*c_ns = F(h)->c_cpu_ns;
	*core0_ns = F(h)->c_core_ns[0];
	int64_t t = s.exited_at;
	sh_free(h);
	return t;
}

static void test_compression_on_idle_core_or_competes(void **state)
{
	(void)state;
	int64_t c3, k3, c1, k1;
	int64_t t3 = fsync_beside_cpu_hog("3", &c3, &k3);
	int64_t t1 = fsync_beside_cpu_hog("1", &c1, &k1);
	assert_true(c3 > 100 * MS && c1 > 100 * MS);
	assert_int_equal(k3, 0);  /* never on the hog's core */
	assert_int_equal(k1, c1); /* the only core */
	assert_true(t1 > t3 + c1 / 4);
}

/* Off (no `compress:`): nothing compressed, no counters in the result. */
static void test_off_by_default(void **state)
{
	(void)state;
	struct sh *h = sh_new(C_YAML(""));
	struct stack_file *f = sh_file(h, "notes.db", 0);
	assert_false(f2fs_i(f)->compress);
	struct sh_script s = { 0 };
	sh_op(&s, STACK_OP_WRITE, f, 0, 64 << 10, 0);
	sh_op(&s, STACK_OP_FSYNC, f, 0, 0, 0);
	sh_script_task(h, "app", 10050, 0, &s);
	sh_run(h, 2 * SEC);
	assert_int_equal(data_sectors(h, REQ_WRITE), 16 * 8);
	struct json_t *j = h->st->fs.ops->to_json(h->st);
	assert_null(json_object_get(j, "compression"));
	json_decref(j);
	sh_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cluster_cpages_rule),
		cmocka_unit_test(test_cluster_clen_ratio_and_spread),
		cmocka_unit_test(test_writeback_compresses_full_clusters),
		cmocka_unit_test(test_no_saving_written_raw),
		cmocka_unit_test(test_partial_cluster_and_extension),
		cmocka_unit_test(test_read_decompress_softirq),
		cmocka_unit_test(test_read_decompress_workqueue),
		cmocka_unit_test(test_partial_overwrite),
		cmocka_unit_test(test_compression_on_idle_core_or_competes),
		cmocka_unit_test(test_off_by_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
