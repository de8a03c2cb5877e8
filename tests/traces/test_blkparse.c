/* Tests for traces/blkparse_text.c: the shared blkparse output reads back
 * to the same events as its binary source, round-trips byte for byte
 * through the writer, every line shape blkparse prints is understood,
 * CPUs printed out of time order are put back in order within the window,
 * the summary is skipped and junk lines are errors naming their line.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "models/block/request.h"
#include "traces/trace.h"

#define SAMPLE "tests/data/blktrace-nvme-readahead/sample.blktrace.0"
#define ORACLE "tests/data/blktrace-nvme-readahead/sample.blkparse.txt"

static char *path_of(const char *rel)
{
	static char buf[2][4096];
	static int k;
	const char *src = getenv("MOBISIM_SRC");
	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", src ? src : ".", rel);
	return buf[k];
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

static void test_blkparse_sample_matches_binary(void **state)
{
	struct trace_reader t, b;
	struct trace_rec rt, rb;
	struct sim_error err;
	uint64_t n = 0;
	int x;

	(void)state;
	assert_int_equal(trace_open_auto(path_of(ORACLE), NULL, &t, &err), 0);
	assert_string_equal(t.ops->name, "blkparse");
	assert_int_equal(trace_open_auto(path_of(SAMPLE), NULL, &b, &err), 0);
	while ((x = trace_next(&t, &rt, &err)) == 1) {
		assert_int_equal(trace_next(&b, &rb, &err), 1);
		assert_int_equal(rt.time_ns, rb.time_ns);
		assert_int_equal(rt.action, rb.action);
		assert_int_equal(rt.act, rb.act);
		assert_int_equal(rt.seq, rb.seq);
		assert_int_equal(rt.cpu, rb.cpu);
		assert_int_equal(rt.pid, rb.pid);
		assert_int_equal(rt.dev_major, rb.dev_major);
		assert_int_equal(rt.dev_minor, rb.dev_minor);
		assert_int_equal(rt.sector, rb.sector);
		assert_int_equal(rt.nr_sectors, rb.nr_sectors);
		assert_int_equal(rt.bytes, rb.bytes);
		assert_int_equal(rt.dir, rb.dir);
		assert_int_equal(rt.flags, rb.flags);
		assert_int_equal(rt.error, rb.error);
		assert_int_equal(rt.from_major, rb.from_major);
		assert_int_equal(rt.from_minor, rb.from_minor);
		assert_int_equal(rt.from_sector, rb.from_sector);
		assert_int_equal(rt.pdu_u64, rb.pdu_u64);
		if (rt.act != 'C')
			assert_null(rt.comm); /* "[(null)]": pid 21279 is never named */
		n++;
	}
	assert_int_equal(x, 0);
	assert_int_equal(trace_next(&b, &rb, &err), 0);
	assert_int_equal(n, 6741);
	trace_close(&t);
	trace_close(&b);
}

static void test_blkparse_roundtrip_is_identical(void **state)
{
	size_t olen, len;
	uint8_t *oracle = slurp(ORACLE, &olen);
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	struct trace_reader r;
	struct trace_blkparse_writer *w;
	struct trace_rec rec;
	struct sim_error err;
	int rc;

	(void)state;
	assert_int_equal(trace_open_mem_auto(oracle, olen, "o", NULL, &r, &err), 0);
	assert_int_equal(trace_blkparse_writer_create(f, TRACE_BPW_NUMBER_SEQ, &w, &err), 0);
	while ((rc = trace_next(&r, &rec, &err)) == 1)
		assert_int_equal(trace_blkparse_writer_event(w, &rec, &err), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_blkparse_writer_finish(w, &err), 0);
	trace_blkparse_writer_destroy(w);
	trace_close(&r);
	fclose(f);
	assert_int_equal(len, olen);
	assert_memory_equal(buf, oracle, olen);
	free(buf);
	free(oracle);
}

/* Every line shape of blkparse_fmt.c process_default; the last line lacks
 * its newline. */
static const char shapes[] =
	"Input file run.blktrace.0 added\n"
	"179,0    0        1     0.000000000   120  Q  WS 2048 + 16 [kworker/u8:1]\n"
	"179,0    0        2     0.000001000   120  M  WS 2064 + 8 [kworker/u8:1]\n"
	"179,0    0        3     0.000002000   120  F  WS 2040 + 8 [kworker/u8:1]\n"
	"179,0    0        4     0.000003000   120  G  WS 2048 + 16 [kworker/u8:1]\n"
	"179,0    0        5     0.000004000   120  S  WS 2048 + 16 [kworker/u8:1]\n"
	"179,0    0        6     0.000005000   120  P   N [kworker/u8:1]\n"
	"179,0    0        7     0.000006000   120  I  WS 2040 + 32 [kworker/u8:1]\n"
	"179,0    0        8     0.000007000   120  U   N [kworker/u8:1] 3\n"
	"179,0    0        9     0.000008000   120 UT   N [kworker/u8:1] 1\n"
	"179,0    0       10     0.000009000   311  D  WS 2040 + 32 [mmcqd/0]\n"
	"179,0    0       11     0.000010000   311  X  WS 2040 / 2056 [mmcqd/0]\n"
	"179,0    0       12     0.000011000     0  C  WS 2040 + 32 [-5]\n"
	"179,0    0       13     0.000012000     0  R  WS 2040 + 32 [0]\n"
	"179,0    0       14     0.000013000     0  C FWFSM 0 [0]\n"
	"179,0    0        0     0.000014000     0  m   N cfq311 dispatched a request\n"
	"179,0    0       15     0.000015000   311  A  RA 9000 + 8 <- (179,3) 1000\n"
	"  8,0    1       16     0.000016000   500  D   R 36 (12 01 00 00 fe 00 ..) [scsi_id]\n"
	"  8,0    1       17     0.000017000   500  Q  RM 64 + 8 (     250) [my prog]\n"
	"179,0    0       18     0.000018000   311  B  DS 8 + 8 [mmcqd/0]";

static void test_blkparse_line_shapes(void **state)
{
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;

	(void)state;
	assert_int_equal(trace_open_mem_auto(shapes, sizeof(shapes) - 1, "s", NULL, &r, &err), 0);
	assert_string_equal(r.ops->name, "blkparse");
#define NEXT() assert_int_equal(trace_next(&r, &rec, &err), 1)
	NEXT();
	assert_int_equal(rec.action, TRACE_A_QUEUE);
	assert_int_equal(rec.dev_major, 179);
	assert_int_equal(rec.sector, 2048);
	assert_int_equal(rec.nr_sectors, 16);
	assert_int_equal(rec.bytes, 16 * 512);
	assert_int_equal(rec.dir, TRACE_DIR_WRITE);
	assert_int_equal(rec.flags, REQ_WRITE | REQ_SYNC);
	assert_int_equal(rec.pid, 120);
	assert_string_equal(rec.comm, "kworker/u8:1");
	NEXT();
	assert_int_equal(rec.action, TRACE_A_BACKMERGE);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_FRONTMERGE);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_GETRQ);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_SLEEPRQ);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_PLUG);
	assert_int_equal(rec.dir, TRACE_DIR_NONE);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_INSERT);
	assert_int_equal(rec.nr_sectors, 32);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_UNPLUG_IO);
	assert_int_equal(rec.pdu_u64, 3);
	assert_string_equal(rec.comm, "kworker/u8:1");
	NEXT();
	assert_int_equal(rec.action, TRACE_A_UNPLUG_TIMER);
	assert_int_equal(rec.pdu_u64, 1);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_ISSUE);
	assert_string_equal(rec.comm, "mmcqd/0");
	NEXT();
	assert_int_equal(rec.action, TRACE_A_SPLIT);
	assert_int_equal(rec.sector, 2040);
	assert_int_equal(rec.pdu_u64, 2056);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_COMPLETE);
	assert_int_equal(rec.error, -5);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_REQUEUE);
	NEXT();
	/* A flush + FUA + sync + meta write with no data. */
	assert_int_equal(rec.action, TRACE_A_COMPLETE);
	assert_int_equal(rec.flags, REQ_FLUSH | REQ_WRITE | REQ_FUA | REQ_SYNC | REQ_META);
	assert_int_equal(rec.nr_sectors, 0);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_MESSAGE);
	assert_int_equal(rec.pdu_len, strlen("cfq311 dispatched a request"));
	assert_memory_equal(rec.pdu, "cfq311 dispatched a request", rec.pdu_len);
	NEXT();
	assert_int_equal(rec.action, TRACE_A_REMAP);
	assert_int_equal(rec.from_major, 179);
	assert_int_equal(rec.from_minor, 3);
	assert_int_equal(rec.from_sector, 1000);
	assert_int_equal(rec.flags, REQ_RAHEAD);
	NEXT();
	/* SCSI passthrough: "bytes (cdb) [comm]". */
	assert_int_equal(rec.action, TRACE_A_ISSUE);
	assert_true(rec.tflags & TRACE_T_PC);
	assert_int_equal(rec.bytes, 36);
	assert_string_equal(rec.comm, "scsi_id");
	NEXT();
	/* blkparse -t elapsed field, comm with a space. */
	assert_int_equal(rec.sector, 64);
	assert_int_equal(rec.flags, REQ_META);
	assert_string_equal(rec.comm, "my prog");
	NEXT();
	assert_int_equal(rec.action, TRACE_A_BOUNCE);
	assert_int_equal(rec.dir, TRACE_DIR_DISCARD);
	assert_int_equal(trace_next(&r, &rec, &err), 0);
#undef NEXT
	trace_close(&r);
}

static const char ooo[] =
	"  8,0    1        1     0.000000200   10  Q   R 100 + 8 [a]\n"
	"  8,0    1        2     0.000000400   10  Q   R 108 + 8 [a]\n"
	"  8,0    0        1     0.000000100   11  Q   W 500 + 8 [b]\n"
	"  8,0    0        2     0.000000300   11  Q   W 508 + 8 [b]\n";

static void test_blkparse_out_of_order_cpus(void **state)
{
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	struct trace_opts o = { .blkparse_reorder_window = 1 };
	static const int64_t sorted[] = { 100, 200, 300, 400 };
	static const int64_t input[] = { 200, 400, 100, 300 };

	(void)state;
	/* Default window: merged by time. */
	assert_int_equal(trace_open_mem_auto(ooo, sizeof(ooo) - 1, "o", NULL, &r, &err), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(trace_next(&r, &rec, &err), 1);
		assert_int_equal(rec.time_ns, sorted[i]);
	}
	assert_int_equal(trace_next(&r, &rec, &err), 0);
	trace_close(&r);
	/* Window 1: input order. */
	assert_int_equal(trace_open_mem_auto(ooo, sizeof(ooo) - 1, "o", &o, &r, &err), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(trace_next(&r, &rec, &err), 1);
		assert_int_equal(rec.time_ns, input[i]);
	}
	trace_close(&r);
}

/* The window against its definition: of the next `window` events still
 * unread, the one smallest by (time, input order) comes out next. Random
 * displacements of up to ~3 windows, runs in order and ties in time, for
 * several window sizes (the in-order FIFO beside the heap must not change
 * this order). */
static void test_blkparse_window_order_matches_definition(void **state)
{
	enum { N = 3000 };
	static char text[N * 80];
	static int64_t t_in[N], want[N];
	static bool used[N];
	struct trace_reader r;
	struct trace_rec rec;
	struct sim_error err;
	static const uint32_t windows[] = { 1, 2, 7, 64, 512 };
	uint64_t rng = 12345;

	(void)state;
	size_t off = 0;
	for (int i = 0; i < N; i++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		unsigned k = (unsigned)(rng >> 33);
		/* mostly in order; some ties; some displaced back by up to 150 events */
		int64_t t = (int64_t)(i / 2) * 10;
		if (k % 7 == 0)
			t -= (int64_t)(k % 1500);
		if (t < 0)
			t = 0;
		t_in[i] = t;
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"  8,0    0 %8d %5lld.%09lld   10  Q   R %d + 8 [a]\n", i + 1,
					(long long)(t / 1000000000), (long long)(t % 1000000000), i * 8);
	}
	for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		struct trace_opts o = { .blkparse_reorder_window = windows[w] };
		/* the definition, by selection over the window */
		memset(used, 0, sizeof(used));
		int next_in = 0, held = 0;
		for (int out = 0; out < N; out++) {
			while (next_in < N && held < (int)windows[w]) {
				next_in++;
				held++;
			}
			int best = -1;
			for (int i = 0; i < next_in; i++)
				if (!used[i] && (best < 0 || t_in[i] < t_in[best]))
					best = i;
			used[best] = true;
			held--;
			want[out] = (int64_t)best;
		}
		assert_int_equal(trace_open_mem_auto(text, off, "w.txt", &o, &r, &err), 0);
		for (int out = 0; out < N; out++) {
			assert_int_equal(trace_next(&r, &rec, &err), 1);
			assert_int_equal(rec.sector, (uint64_t)want[out] * 8);
		}
		assert_int_equal(trace_next(&r, &rec, &err), 0);
		trace_close(&r);
	}
}

static int drain(const char *text, uint64_t *n, struct sim_error *err)
{
	struct trace_reader r;
	struct trace_rec rec;
	int rc = trace_open_mem_auto(text, strlen(text), "x.txt", NULL, &r, err);

	*n = 0;
	if (rc)
		return rc;
	while ((rc = trace_next(&r, &rec, err)) == 1)
		(*n)++;
	trace_close(&r);
	return rc;
}

static void test_blkparse_summary_and_junk(void **state)
{
	struct sim_error err;
	uint64_t n;

	(void)state;
	/* A pid that wrapped to 1569325055 before; a request past 2^64. */
	assert_int_equal(drain("  8,0    1        1     0.000000100   10  Q   R 90 + 8 [a]\n"
			       "  8,0    1        2     0.000000200 99999999999999999  Q   R 100 + 8 [a]\n",
			       &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "pid out of range"));
	assert_int_equal(drain("  8,0    1        1     0.000000100   10  Q   R 90 + 8 [a]\n"
			       "  8,0    1        2     0.000000200   10  Q   R 18446744073709551615 + 8 [a]\n",
			       &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "passes 2^64"));
	/* Summary blocks of two CPUs, Total, Throughput, Events, Skips. */
	static const char with_summary[] =
		"  8,0    1        1     0.000000200   10  Q   R 100 + 8 [a]\n"
		"  8,0    0        1     0.000000300   10  Q   R 108 + 8 [a]\n"
		"CPU0 (8,0):\n"
		" Reads Queued:           1,        4KiB\t Writes Queued:           0,        0KiB\n"
		" IO unplugs:             0        \t Timer unplugs:           0\n"
		"CPU1 (8,0):\n"
		" Reads Queued:           1,        4KiB\t Writes Queued:           0,        0KiB\n"
		"\n"
		"Total (8,0):\n"
		" Reads Queued:           2,        8KiB\t Writes Queued:           0,        0KiB\n"
		"\n"
		"Throughput (R/W): 0KiB/s / 0KiB/s\n"
		"Events (8,0): 2 entries\n"
		"Skips: 0 forward (0 -   0.0%)\n";
	assert_int_equal(drain(with_summary, &n, &err), 0);
	assert_int_equal(n, 2);
	/* Events only, no summary. */
	assert_int_equal(drain("  8,0    0        1     0.000000300   10  Q   R 108 + 8 [a]\n", &n, &err), 0);
	assert_int_equal(n, 1);
	/* A junk line names its line number. */
	assert_int_equal(drain("  8,0    0        1     0.000000300   10  Q   R 108 + 8 [a]\n"
			       "\n"
			       "  8,0    0        2     0.000000400   10  Q   R 116 + [a]\n", &n, &err),
			 SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "x.txt:3: "));
	assert_int_equal(drain("  8,0    0        1     0.000000300   10  Q   R 108 + 8 [a]\n"
			       "hello world\n", &n, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "x.txt:2: "));
	/* Unknown action and bad rwbs. */
	assert_int_equal(drain("  8,0    0        1     0.000000300   10  Q   R 108 + 8 [a]\n"
			       "  8,0    0        2     0.000000300   10  Z   R 108 + 8 [a]\n", &n, &err),
			 SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "x.txt:2: unknown action"));
	assert_int_equal(drain("  8,0    0        1     0.000000300   10  Q   R 108 + 8 [a]\n"
			       "  8,0    0        2     0.000000300   10  Q  RQ 108 + 8 [a]\n", &n, &err),
			 SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "x.txt:2: bad rwbs"));
}

/* The writer formats lines by hand: every field, at its extremes (negative
 * after blkparse's int casts, 2^64 - 1 sectors, long names, seconds past
 * INT_MAX), prints the characters blkparse_fmt.c's printf formats give. */
static void test_blkparse_writer_digits_match_printf(void **state)
{
	static const char acts[] = "QMFGSRDCIBPUTAX";
	static const char *const names[] = { "kworker/u8:1", "", "a-very-long-process-name-"
					     "that-no-kernel-comm-would-hold-but-a-csv-can-0123456789" };
	uint64_t x = 88172645463325252ull;
	(void)state;
	for (int i = 0; i < 20000; i++) {
		struct trace_rec r;
		memset(&r, 0, sizeof(r));
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		r.kind = TRACE_REC_BLOCK;
		r.act = acts[x % (sizeof(acts) - 1)];
		r.action = trace_action_from_letter(r.act);
		if (r.act == 'U' && (x >> 8) % 2)
			r.action = TRACE_A_UNPLUG_TIMER;
		uint64_t big = (x >> 12) % 3 == 0 ? UINT64_MAX - (x >> 40) : x >> 20;
		r.dev_major = (uint32_t)(i % 7 == 0 ? x >> 1 : (x >> 3) % 300);
		r.dev_minor = (uint32_t)((x >> 5) % (i % 11 == 0 ? 0x100000u : 40u));
		r.cpu = (uint32_t)((x >> 7) % 128);
		r.seq = (uint32_t)(x >> 9);
		r.time_ns = (int64_t)((x >> 2) % (i % 5 == 0 ? INT64_MAX : 100000000000000ull));
		r.pid = (int32_t)(x >> 23);
		r.flags = (uint32_t)(x >> 30) & (REQ_WRITE | REQ_SYNC | REQ_META);
		r.dir = (uint8_t)((x >> 33) % 3);
		r.sector = big;
		r.bytes = (uint32_t)((x >> 35) % 5 == 0 ? 0 : ((x >> 37) % 4096) << 9);
		r.nr_sectors = r.bytes >> 9;
		r.error = (int32_t)((x >> 41) % 3) - 1;
		r.pdu_u64 = x >> 17;
		r.from_major = (uint32_t)(x >> 45) % 260;
		r.from_minor = (uint32_t)(x >> 50) % 70;
		r.from_sector = x >> 3;
		r.comm = i % 13 == 0 ? NULL : names[(x >> 52) % 3];

		char *buf = NULL, want[512], rwbs[8];
		size_t len;
		FILE *f = open_memstream(&buf, &len);
		struct trace_blkparse_writer *w;
		struct sim_error err;
		assert_int_equal(trace_blkparse_writer_create(f, 0, &w, &err), 0);
		assert_int_equal(trace_blkparse_writer_event(w, &r, &err), 0);
		trace_blkparse_writer_destroy(w);
		fclose(f);

		const char *name = r.comm ? r.comm : "(null)";
		uint64_t t = (uint64_t)r.time_ns;
		unsigned nsec = r.bytes >> 9;
		trace_rwbs(&r, rwbs);
		int n = snprintf(want, sizeof(want), "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s ",
				 (int)r.dev_major, (int)r.dev_minor, (int)r.cpu, (int)r.seq,
				 (int)(t / 1000000000u), (unsigned long)(t % 1000000000u), (unsigned)r.pid,
				 r.action == TRACE_A_UNPLUG_TIMER ? "UT" : (char[2]){ r.act, 0 }, rwbs);
		char *p = want + n;
		size_t room = sizeof(want) - (size_t)n;
		switch (r.act) {
		case 'R': case 'C':
			if (nsec)
				snprintf(p, room, "%" PRIu64 " + %u [%d]\n", r.sector, nsec, r.error);
			else
				snprintf(p, room, "%" PRIu64 " [%d]\n", r.sector, r.error);
			break;
		case 'P':
			snprintf(p, room, "[%s]\n", name);
			break;
		case 'U': case 'T':
			snprintf(p, room, "[%s] %u\n", name, (unsigned)r.pdu_u64);
			break;
		case 'A':
			snprintf(p, room, "%" PRIu64 " + %u <- (%d,%d) %" PRIu64 "\n", r.sector, nsec,
				 (int)r.from_major, (int)r.from_minor, r.from_sector);
			break;
		case 'X':
			snprintf(p, room, "%" PRIu64 " / %u [%s]\n", r.sector, (unsigned)r.pdu_u64, name);
			break;
		default:
			if (nsec)
				snprintf(p, room, "%" PRIu64 " + %u [%s]\n", r.sector, nsec, name);
			else
				snprintf(p, room, "[%s]\n", name);
			break;
		}
		/* the first line is the event; the summary follows */
		char *nl = strchr(buf, '\n');
		assert_non_null(nl);
		nl[1] = '\0';
		assert_string_equal(buf, want);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blkparse_sample_matches_binary),
		cmocka_unit_test(test_blkparse_roundtrip_is_identical),
		cmocka_unit_test(test_blkparse_writer_digits_match_printf),
		cmocka_unit_test(test_blkparse_line_shapes),
		cmocka_unit_test(test_blkparse_out_of_order_cpus),
		cmocka_unit_test(test_blkparse_window_order_matches_definition),
		cmocka_unit_test(test_blkparse_summary_and_junk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
