/* Tests for traces/blktrace.c and the blkparse writer on binary input: the
 * shared sample parses with the counts blkparse reports, both byte orders
 * read the same, broken records name their byte offset, per-CPU sets are
 * merged by time, notify records name processes, the text writer
 * reproduces Debian blkparse 1.2.0's output byte for byte, and the binary
 * writer's output reads back to the same events.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "models/block/request.h"
#include "traces/trace.h"

#define SAMPLE "tests/data/blktrace-nvme-readahead/sample.blktrace.0"
#define ORACLE "tests/data/blktrace-nvme-readahead/sample.blkparse.txt"

static char *path_of(const char *rel)
{
	static char buf[4096];
	const char *src = getenv("MOBISIM_SRC");
	snprintf(buf, sizeof(buf), "%s/%s", src ? src : ".", rel);
	return buf;
}

static uint8_t *slurp(const char *rel, size_t *len)
{
	FILE *f = fopen(path_of(rel), "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void put32(uint8_t *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v, bool be)
{
	for (int i = 0; i < 8; i++)
		p[be ? 7 - i : i] = (uint8_t)(v >> (8 * i));
}

static void put16(uint8_t *p, uint16_t v, bool be)
{
	p[be ? 1 : 0] = (uint8_t)v;
	p[be ? 0 : 1] = (uint8_t)(v >> 8);
}

/* Append one record in the given byte order. */
static size_t mkrec(uint8_t *p, bool be, uint32_t seq, uint64_t t, uint64_t sector, uint32_t bytes,
		    uint32_t action, uint32_t pid, uint32_t dev, uint32_t cpu, uint16_t error,
		    const void *pdu, uint16_t pdu_len)
{
	put32(p, 0x65617407u, be);
	put32(p + 4, seq, be);
	put64(p + 8, t, be);
	put64(p + 16, sector, be);
	put32(p + 24, bytes, be);
	put32(p + 28, action, be);
	put32(p + 32, pid, be);
	put32(p + 36, dev, be);
	put32(p + 40, cpu, be);
	put16(p + 44, error, be);
	put16(p + 46, pdu_len, be);
	if (pdu_len)
		memcpy(p + 48, pdu, pdu_len);
	return 48u + pdu_len;
}

#define TC(x) ((uint32_t)(x) << 16)
#define TC_READ 1
#define TC_WRITE 2
#define TC_SYNC 8
#define TC_QUEUE 16
#define TC_ISSUE 64
#define TC_COMPLETE 128
#define TC_NOTIFY 1024

static void test_blktrace_sample_counts(void **state)
{
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	uint64_t n = 0, by[TRACE_A_NR_BLOCK] = { 0 };
	int rc;
	int64_t last = -1;

	(void)state;
	assert_int_equal(trace_open_auto(path_of(SAMPLE), NULL, &r, &err), 0);
	assert_string_equal(r.ops->name, "blktrace");
	while ((rc = trace_next(&r, &rec, &err)) == 1) {
		if (n == 0) {
			/* 259,0 1 1 0.000000000 21279 A RA 2348060440 + 8 <- (259,3) 2345510680 */
			assert_int_equal(rec.action, TRACE_A_REMAP);
			assert_int_equal(rec.time_ns, 0);
			assert_int_equal(rec.dev_major, 259);
			assert_int_equal(rec.from_minor, 3);
			assert_int_equal(rec.from_sector, 2345510680ull);
			assert_int_equal(rec.sector, 2348060440ull);
			assert_int_equal(rec.nr_sectors, 8);
			assert_int_equal(rec.dir, TRACE_DIR_READ);
			assert_true(rec.flags & REQ_RAHEAD);
			assert_false(rec.flags & REQ_WRITE);
			assert_null(rec.comm);
		}
		assert_true(rec.time_ns >= last);
		last = rec.time_ns;
		by[rec.action]++;
		n++;
	}
	assert_int_equal(rc, 0);
	/* The last event: C by pid 10256, named by a process notify record. */
	assert_int_equal(rec.action, TRACE_A_COMPLETE);
	assert_int_equal(rec.pid, 10256);
	assert_string_equal(rec.comm, "VizCompositorTh");
	assert_int_equal(rec.time_ns, 345541853);
	assert_int_equal(n, 6741); /* "Events (259,0): 6741 entries"; notifies are not events */
	for (int a = TRACE_A_QUEUE; a <= TRACE_A_REMAP; a++) {
		bool present = a == TRACE_A_QUEUE || a == TRACE_A_GETRQ || a == TRACE_A_PLUG ||
			       a == TRACE_A_UNPLUG_IO || a == TRACE_A_ISSUE || a == TRACE_A_COMPLETE ||
			       a == TRACE_A_REMAP;
		assert_int_equal(by[a], present ? 963 : 0);
	}
	trace_close(&r);
}

/* Write the records of a reader through the blkparse writer into memory. */
static char *convert(struct trace_reader *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct trace_blkparse_writer *w;
	struct trace_rec rec;
	struct sim_error err;
	int rc;

	assert_non_null(f);
	assert_int_equal(trace_blkparse_writer_create(f, TRACE_BPW_NUMBER_SEQ, &w, &err), 0);
	while ((rc = trace_next(r, &rec, &err)) == 1)
		assert_int_equal(trace_blkparse_writer_event(w, &rec, &err), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_blkparse_writer_finish(w, &err), 0);
	trace_blkparse_writer_destroy(w);
	fclose(f);
	return buf;
}

static void test_blktrace_writer_matches_blkparse(void **state)
{
	struct trace_reader r;
	struct sim_error err;
	size_t olen, len;

	(void)state;
	uint8_t *oracle = slurp(ORACLE, &olen);
	assert_int_equal(trace_open_auto(path_of(SAMPLE), NULL, &r, &err), 0);
	char *out = convert(&r, &len);
	trace_close(&r);
	assert_int_equal(len, olen);
	assert_memory_equal(out, oracle, olen);
	free(out);
	free(oracle);
}

/* Byte-swap every 48-byte header of a little-endian trace in place;
 * payloads stay (remap/unplug payloads are big-endian in both). */
static void swap_trace(uint8_t *b, size_t len)
{
	static const int widths[] = { 4, 4, 8, 8, 4, 4, 4, 4, 4, 2, 2 };
	size_t off = 0;
	while (off + 48 <= len) {
		uint16_t pdu = (uint16_t)(b[off + 46] | b[off + 47] << 8);
		uint8_t *p = b + off;
		for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
			for (int j = 0; j < widths[i] / 2; j++) {
				uint8_t t = p[j];
				p[j] = p[widths[i] - 1 - j];
				p[widths[i] - 1 - j] = t;
			}
			p += widths[i];
		}
		off += 48u + pdu;
	}
}

static void test_blktrace_both_byte_orders(void **state)
{
	size_t len;
	uint8_t *le = slurp(SAMPLE, &len);
	uint8_t *be = malloc(len);
	struct trace_reader a, b;
	struct trace_rec ra, rb;
	struct sim_error err;
	int x, y;
	uint64_t n = 0;

	(void)state;
	memcpy(be, le, len);
	swap_trace(be, len);
	assert_memory_not_equal(be, le, 48);
	assert_int_equal(trace_open_mem_auto(le, len, "le", NULL, &a, &err), 0);
	assert_int_equal(trace_open_mem_auto(be, len, "be", NULL, &b, &err), 0);
	assert_string_equal(b.ops->name, "blktrace");
	while ((x = trace_next(&a, &ra, &err)) == 1) {
		y = trace_next(&b, &rb, &err);
		assert_int_equal(y, 1);
		assert_int_equal(ra.time_ns, rb.time_ns);
		assert_int_equal(ra.seq, rb.seq);
		assert_int_equal(ra.sector, rb.sector);
		assert_int_equal(ra.nr_sectors, rb.nr_sectors);
		assert_int_equal(ra.action, rb.action);
		assert_int_equal(ra.flags, rb.flags);
		assert_int_equal(ra.pid, rb.pid);
		assert_int_equal(ra.cpu, rb.cpu);
		assert_int_equal(ra.from_sector, rb.from_sector);
		assert_int_equal(ra.pdu_u64, rb.pdu_u64);
		assert_int_equal(ra.comm == NULL, rb.comm == NULL);
		n++;
	}
	assert_int_equal(x, 0);
	assert_int_equal(trace_next(&b, &rb, &err), 0);
	assert_int_equal(n, 6741);
	trace_close(&a);
	trace_close(&b);
	free(le);
	free(be);
}

/* Read a whole buffer; return the final code and leave the message in err. */
static struct trace_diag last_diag;

static int drain_opts(const uint8_t *buf, size_t len, bool strict, uint64_t *n, struct sim_error *err)
{
	struct trace_reader r;
	struct trace_rec rec;
	struct trace_opts o = { .strict = strict };
	int rc = trace_open_mem_auto(buf, len, "t.bin", &o, &r, err);

	*n = 0;
	if (rc)
		return rc;
	while ((rc = trace_next(&r, &rec, err)) == 1)
		(*n)++;
	last_diag = r.diag;
	trace_close(&r);
	return rc;
}

/* Strict: what the lenient default reads past is an error. */
static int drain(const uint8_t *buf, size_t len, uint64_t *n, struct sim_error *err)
{
	return drain_opts(buf, len, true, n, err);
}

static void test_blktrace_errors_name_byte_offset(void **state)
{
	size_t len;
	uint8_t *b = slurp(SAMPLE, &len);
	struct sim_error err;
	uint64_t n;

	(void)state;
	/* Record 0 is A with a 16-byte remap payload (0..63), record 1 a Q (64..111). */
	assert_int_equal(drain(b, 112 + 20, &n, &err), SIM_E_INPUT);
	assert_int_equal(n, 2);
	assert_non_null(strstr(err.msg, "t.bin: byte offset 112: truncated record"));

	assert_int_equal(drain(b, 50, &n, &err), SIM_E_INPUT);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.msg, "byte offset 0: truncated record (50 of 64 bytes)"));

	/* Lenient (the default, as blkparse): the complete records, then a
	 * warning that names the cut record, counted. */
	assert_int_equal(drain_opts(b, 112 + 20, false, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(last_diag.truncated_files, 1);
	assert_int_equal(last_diag.truncated_bytes, 20);
	assert_int_equal(last_diag.nnotes, 1);
	assert_non_null(strstr(last_diag.notes[0], "t.bin: byte offset 112: last record cut (20 of 48 bytes)"));

	/* Out-of-range fields: a pid above PID_MAX_LIMIT, a request past 2^64. */
	uint8_t keep[8];
	memcpy(keep, b + 64 + 32, 4);
	b[64 + 32] = 0xff; b[64 + 33] = 0xff; b[64 + 34] = 0xff; b[64 + 35] = 0x7f;
	assert_int_equal(drain(b, len, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "byte offset 64: pid 2147483647 out of range"));
	memcpy(b + 64 + 32, keep, 4);
	memcpy(keep, b + 64 + 16, 8);
	memset(b + 64 + 16, 0xff, 8);
	assert_int_equal(drain(b, len, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "byte offset 64: sector 18446744073709551615 + "));
	memcpy(b + 64 + 16, keep, 8);

	uint8_t save = b[64 + 3];
	b[64 + 3] = 0x12; /* magic's top byte */
	assert_int_equal(drain(b, len, &n, &err), SIM_E_INPUT);
	assert_int_equal(n, 1);
	assert_non_null(strstr(err.msg, "byte offset 64: bad magic"));
	b[64 + 3] = save;

	b[64] = 0x06; /* version */
	assert_int_equal(drain(b, len, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "byte offset 64: unsupported trace version 6"));
	b[64] = 0x07;

	b[64 + 46] = 0x60;
	b[64 + 47] = 0xea; /* pdu_len 60000 */
	assert_int_equal(drain(b, len, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "byte offset 64: payload length 60000 too large"));
	b[64 + 46] = b[64 + 47] = 0;

	/* Not a blktrace file at all. */
	assert_int_equal(drain((const uint8_t *)"\x01\x02\x03\x04\x05", 5, &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "byte offset 0"));
	free(b);
}

static void test_blktrace_notify_records(void **state)
{
	uint8_t buf[1024];
	size_t off = 0;
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	uint32_t dev = 179u << 20 | 0;
	uint8_t ts[8] = { 0 };

	(void)state;
	off += mkrec(buf + off, false, 0, 900, 0, 0, TC(TC_NOTIFY) | 0, 42, dev, 0, 0, "mmcqd/0\0", 8);
	off += mkrec(buf + off, false, 0, 900, 0, 0, TC(TC_NOTIFY) | 1, 0, dev, 0, 0, ts, 8);
	off += mkrec(buf + off, false, 1, 1000, 64, 4096, TC(TC_WRITE | TC_SYNC | TC_QUEUE) | 1, 42,
		     dev, 0, 0, NULL, 0);
	off += mkrec(buf + off, false, 0, 1500, 0, 0, TC(TC_NOTIFY) | 2, 0, dev, 0, 0, "cfq hello", 9);
	/* A second name for the same pid: blkparse keeps the first. */
	off += mkrec(buf + off, false, 0, 1600, 0, 0, TC(TC_NOTIFY) | 0, 42, dev, 0, 0, "other\0", 6);
	off += mkrec(buf + off, false, 2, 2000, 64, 4096, TC(TC_WRITE | TC_SYNC | TC_COMPLETE) | 8, 42,
		     dev, 0, 5, NULL, 0);
	assert_int_equal(trace_open_mem_auto(buf, off, "n", NULL, &r, &err), 0);

	assert_int_equal(trace_next(&r, &rec, &err), 1);
	assert_int_equal(rec.action, TRACE_A_QUEUE);
	assert_int_equal(rec.time_ns, 0); /* the first event is the origin */
	assert_string_equal(rec.comm, "mmcqd/0");
	assert_int_equal(rec.dir, TRACE_DIR_WRITE);
	assert_int_equal(rec.flags, REQ_WRITE | REQ_SYNC);

	assert_int_equal(trace_next(&r, &rec, &err), 1);
	assert_int_equal(rec.action, TRACE_A_MESSAGE);
	assert_int_equal(rec.act, 'm');
	assert_int_equal(rec.time_ns, 500);
	assert_int_equal(rec.pdu_len, 9);
	assert_memory_equal(rec.pdu, "cfq hello", 9);

	assert_int_equal(trace_next(&r, &rec, &err), 1);
	assert_int_equal(rec.action, TRACE_A_COMPLETE);
	assert_int_equal(rec.error, 5);
	assert_string_equal(rec.comm, "mmcqd/0");
	assert_int_equal(trace_next(&r, &rec, &err), 0);
	trace_close(&r);
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

static void test_blktrace_percpu_merge_by_time(void **state)
{
	char dir[] = "/tmp/mobisim-bt-XXXXXX";
	char base[256], p[300];
	uint8_t buf[3][4096];
	size_t len[3] = { 0, 0, 0 };
	uint32_t dev = 8u << 20;
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(base, sizeof(base), "%s/run", dir);
	/* cpu c writes events at times 10*k + c for k = 0..9; cpu 2 also a
	 * tie with cpu 0 at t=50. blkparse's stream list (ms_sort/ms_resort)
	 * keeps printing the head while its next event is no later than the
	 * second stream's: cpu 2 has just printed 42 and is the head, so its
	 * 50 comes before cpu 0's 50 (not the lower CPU first). Big-endian cpu 1. */
	for (uint32_t c = 0; c < 3; c++)
		for (uint32_t k = 0; k < 10; k++)
			len[c] += mkrec(buf[c] + len[c], c == 1, k + 1, 1000 + 10 * k + (c == 2 && k == 5 ? 0 : c),
					8 * (100 * c + k), 4096, TC(TC_READ | TC_QUEUE) | 1, 100 + c, dev, c, 0,
					NULL, 0);
	for (uint32_t c = 0; c < 3; c++) {
		snprintf(p, sizeof(p), "%s.blktrace.%u", base, c);
		write_file(p, buf[c], len[c]);
	}
	for (int how = 0; how < 2; how++) {
		/* By base name, and by the name of one of the files. */
		if (how == 0)
			snprintf(p, sizeof(p), "%s", base);
		else
			snprintf(p, sizeof(p), "%s.blktrace.2", base);
		assert_int_equal(trace_open_auto(p, NULL, &r, &err), 0);
		int64_t last = -1;
		uint32_t lastcpu = 0, n = 0, seen[3] = { 0 };
		int rc;
		while ((rc = trace_next(&r, &rec, &err)) == 1) {
			assert_true(rec.time_ns >= last);
			if (rec.time_ns == last) {
				assert_int_equal(lastcpu, 2);
				assert_int_equal(rec.cpu, 0);
			}
			/* Each CPU's own order is kept. */
			assert_int_equal(rec.seq, ++seen[rec.cpu]);
			assert_int_equal(rec.pid, 100 + (int32_t)rec.cpu);
			last = rec.time_ns;
			lastcpu = rec.cpu;
			n++;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(n, 30);
		trace_close(&r);
	}
	/* A single file outside a set is read alone and in file order. */
	snprintf(p, sizeof(p), "%s/alone.bin", dir);
	write_file(p, buf[1], len[1]);
	assert_int_equal(trace_open_auto(p, NULL, &r, &err), 0);
	uint32_t n = 0;
	while (trace_next(&r, &rec, &err) == 1)
		assert_int_equal(rec.cpu, 1), n++;
	assert_int_equal(n, 10);
	trace_close(&r);
	for (uint32_t c = 0; c < 3; c++) {
		snprintf(p, sizeof(p), "%s.blktrace.%u", base, c);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/alone.bin", dir);
	unlink(p);
	rmdir(dir);
}

/* The binary writer's output reads back to the same events (names of the
 * pids that have one included), and to the same blkparse text. */
static void test_blktrace_writer_roundtrip(void **state)
{
	struct trace_reader a, b;
	struct trace_blktrace_writer *w;
	struct trace_rec ra, rb;
	struct sim_error err;
	char *bin = NULL;
	size_t blen, olen, tlen;
	FILE *f = open_memstream(&bin, &blen);
	int rc;
	uint64_t n = 0;

	(void)state;
	assert_int_equal(trace_open_auto(path_of(SAMPLE), NULL, &a, &err), 0);
	assert_int_equal(trace_blktrace_writer_create(f, &w, &err), 0);
	while ((rc = trace_next(&a, &ra, &err)) == 1)
		assert_int_equal(trace_blktrace_writer_event(w, &ra, &err), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_blktrace_writer_finish(w, &err), 0);
	trace_blktrace_writer_destroy(w);
	trace_close(&a);
	fclose(f);
	/* Same size as the original: one process notify per named pid, the
	 * same payloads. */
	assert_int_equal(blen, 346808);

	assert_int_equal(trace_open_auto(path_of(SAMPLE), NULL, &a, &err), 0);
	assert_int_equal(trace_open_mem_auto(bin, blen, "rt", NULL, &b, &err), 0);
	while ((rc = trace_next(&a, &ra, &err)) == 1) {
		assert_int_equal(trace_next(&b, &rb, &err), 1);
		assert_int_equal(ra.time_ns, rb.time_ns);
		assert_int_equal(ra.action, rb.action);
		assert_int_equal(ra.seq, rb.seq);
		assert_int_equal(ra.sector, rb.sector);
		assert_int_equal(ra.bytes, rb.bytes);
		assert_int_equal(ra.dir, rb.dir);
		assert_int_equal(ra.flags, rb.flags);
		assert_int_equal(ra.pid, rb.pid);
		assert_int_equal(ra.from_sector, rb.from_sector);
		assert_int_equal(ra.pdu_u64, rb.pdu_u64);
		if (ra.comm)
			assert_string_equal(ra.comm, rb.comm);
		else
			assert_null(rb.comm);
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 6741);
	trace_close(&a);
	trace_close(&b);

	uint8_t *oracle = slurp(ORACLE, &olen);
	assert_int_equal(trace_open_mem_auto(bin, blen, "rt", NULL, &b, &err), 0);
	char *text = convert(&b, &tlen);
	trace_close(&b);
	assert_int_equal(tlen, olen);
	assert_memory_equal(text, oracle, olen);
	free(text);
	free(oracle);
	free(bin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blktrace_sample_counts),
		cmocka_unit_test(test_blktrace_writer_matches_blkparse),
		cmocka_unit_test(test_blktrace_both_byte_orders),
		cmocka_unit_test(test_blktrace_errors_name_byte_offset),
		cmocka_unit_test(test_blktrace_notify_records),
		cmocka_unit_test(test_blktrace_percpu_merge_by_time),
		cmocka_unit_test(test_blktrace_writer_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
