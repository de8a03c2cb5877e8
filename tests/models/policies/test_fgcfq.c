/* Tests for CFQ's foreground-aware mode (models/iosched/cfq.c, `fg_aware`; the
 * fgcfq policy, after the SNU 2017 thesis mechanisms 3-4): FG
 * queues are served first and FIFO among themselves, BG never preempts
 * them, boosted async I/O is high, merges never push FG data back, idling
 * follows fg_idle, and with no FG task the mode changes nothing; then the
 * fgcfq policy that switches the mode on. A real block queue over an ideal
 * device (fixed service time, queue depth 1 unless said) is driven by
 * closed-loop streams of bios, as in tests/models/iosched/test_cfq.c; the policy tests
 * run small stack scenarios.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/block/block.h"
#include "models/iosched/cfq.h"
#include "models/device/device.h"
#include "models/block/elevator.h"
#include "models/policies/policy.h"
#include "models/block/request.h"
#include "sim/config.h"
#include "sim/sim.h"
#include "sim/stats.h"


/* A rotational queue: CFQ idles from the start (on flash it waits for
 * hw_tag detection), so the idling rules of the mode are exercised. */
#define CFQ_ROT "nonrot: false\n"
#define FG_ON "fg_aware: true\n"
#define DEV_QD1 "model: ideal\nservice: fixed\nmean_us: 100\nqueue_depth: 1\n"
/* Service time grows with size: 100 us + 2 us per KiB. */
#define DEV_QD1_SIZE "model: ideal\nservice: fixed\nmean_us: 100\nper_kib_ns: 2000\nqueue_depth: 1\n"

#include "tests/models/iosched/sched_harness.h"
#include "tests/models/policies/policy_scenario.h"

/* stats_json "fg" counter (the mode's own object). */
static int64_t h_fg_stat(struct harness *h, const char *key)
{
	json_t *o = h_cfq_stats(h);
	json_t *fg = json_object_get(o, "fg");
	assert_non_null(fg);
	json_t *v = json_object_get(fg, key);
	assert_non_null(v);
	int64_t r = json_integer_value(v);
	json_decref(o);
	return r;
}

/* Trace-sink view: FG-high requests inside the scheduler, and BG
 * requests dispatched while one of them waited. */
struct fg_probe {
	int fg_queued;
	uint64_t fg_dispatched, bg_dispatched, bg_while_fg_queued;
};

static bool ev_fg(const struct blk_trace_event *ev)
{
	return (ev->flags & REQ_FG) && req_is_sync(ev->flags);
}

static void fg_probe_event(void *ctx, const struct blk_trace_event *ev)
{
	struct fg_probe *p = ctx;
	if (ev->action == 'I' && ev_fg(ev)) {
		p->fg_queued++;
	} else if (ev->action == 'D') {
		if (ev_fg(ev)) {
			p->fg_queued--;
			p->fg_dispatched++;
		} else {
			p->bg_dispatched++;
			if (p->fg_queued > 0)
				p->bg_while_fg_queued++;
		}
	}
}

/* ------------------------------------------------------------ tests */

/* An FG sync reader (1 ms think time), a BG sync reader that never
 * thinks and a BG async write flood. Plain CFQ makes the FG reader wait
 * for the BG reader's slices; in the mode no BG request is dispatched
 * while an FG request waits, and FG read latency drops. */
struct mix_result {
	double fg_mean_us, fg_p99_us;
	uint64_t fg_reads, bg_reads, bg_writes;
	struct fg_probe probe;
	int64_t disp, turns, pre, delayed; /* the mode's counters */
};

static void run_mix(const char *cfq_yaml, struct mix_result *r)
{
	struct harness *h = h_new("cfq", DEV_QD1_SIZE, cfq_yaml);
	struct stream fg, bgr, bgw;
	struct blk_trace_sink sink = { .event = fg_probe_event, .ctx = &r->probe };

	memset(r, 0, sizeof(*r));
	blk_set_trace_sink(h->q, &sink);
	stream_init(&fg, h, 1, IOPRIO_CLASS_NONE, 0, REQ_FG, 8, 0, 1, 1 * MS, 0);
	fg.stride = 100003; /* random-ish */
	fg.ioc.fg = true;
	stream_init(&bgr, h, 2, IOPRIO_CLASS_NONE, 0, 0, 64, 50000000, 1, 0, 0);
	stream_init(&bgw, h, 3, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 256, 100000000, 32, 0, 0);
	bgw.stride = 512;
	fg.win_from = 200 * MS;
	fg.win_to = 3000 * MS;
	h_run(h, 3000 * MS);
	r->fg_mean_us = stats_dist_mean(&fg.lat_window) / 1000.0;
	r->fg_p99_us = (double)stats_dist_percentile(&fg.lat_window, 99.0) / 1000.0;
	r->fg_reads = fg.lat_window.n;
	r->bg_reads = bgr.done;
	r->bg_writes = bgw.done;
	/* drain, so that the counters and the probe see the same requests */
	fg.stop_ns = bgr.stop_ns = bgw.stop_ns = 0;
	h_run(h, SIM_TIME_MAX);
	if (strstr(cfq_yaml, "fg_aware")) {
		r->disp = h_fg_stat(h, "dispatched");
		r->turns = h_fg_stat(h, "turns");
		r->pre = h_fg_stat(h, "preemptions");
		r->delayed = h_fg_stat(h, "bg_delayed");
	}
	h_free(h);
}

static void print_mix(const char *name, const struct mix_result *r)
{
	print_message("%-16s fg read mean %5.0f us p99 %5.0f us (%4" PRIu64 " reads); bg reads %5" PRIu64
		      " writes %4" PRIu64 "; bg dispatched while fg waited %" PRIu64 "\n",
		      name, r->fg_mean_us, r->fg_p99_us, r->fg_reads, r->bg_reads, r->bg_writes,
		      r->probe.bg_while_fg_queued);
}

static void test_fgcfq_fg_first_and_lower_latency(void **state)
{
	(void)state;
	struct mix_result plain, fg, noidle;

	run_mix(CFQ_ROT, &plain);
	run_mix(CFQ_ROT FG_ON, &fg);
	run_mix(CFQ_ROT FG_ON "fg_idle: never\n", &noidle);
	print_mix("plain cfq", &plain);
	print_mix("fg-aware", &fg);
	print_mix("fg-aware no idle", &noidle);
	print_message("fg counters: dispatched %" PRId64 " turns %" PRId64 " preemptions %" PRId64
		      " bg_delayed %" PRId64 " (no idle: %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 ")\n",
		      fg.disp, fg.turns, fg.pre, fg.delayed, noidle.disp, noidle.turns, noidle.pre,
		      noidle.delayed);

	/* plain CFQ lets BG requests go while FG reads wait (slices) */
	assert_true(plain.probe.bg_while_fg_queued > 100);
	/* the mode: never */
	assert_int_equal(fg.probe.bg_while_fg_queued, 0);
	assert_int_equal(noidle.probe.bg_while_fg_queued, 0);
	/* FG latency far below plain CFQ's. Idling on the FG reader (1 ms
	 * think time < slice_idle 8 ms) keeps the device free for it: its
	 * own 108 us; without idling it waits for at most the BG request on
	 * the device (<= 356 us) */
	assert_true(fg.fg_mean_us * 5 < plain.fg_mean_us);
	assert_true(noidle.fg_mean_us * 5 < plain.fg_mean_us);
	assert_true(fg.fg_mean_us < 120.0);
	assert_true(noidle.fg_mean_us < 500.0 && noidle.fg_mean_us > fg.fg_mean_us);
	assert_true(fg.fg_reads > plain.fg_reads);
	/* the price: BG gets only what the FG reader leaves; idling leaves
	 * it almost nothing, no idling the think-time gaps */
	assert_true(fg.bg_reads + fg.bg_writes > 0);
	assert_true(noidle.bg_reads > 10 * fg.bg_reads);
	/* counters: each FG read is an FG dispatch; FG turns take the device
	 * from BG slices */
	assert_int_equal((uint64_t)fg.disp, fg.probe.fg_dispatched);
	assert_int_equal((uint64_t)noidle.disp, noidle.probe.fg_dispatched);
	assert_true(fg.pre > 0 && fg.pre <= fg.turns);
	assert_true(noidle.pre > 1000 && noidle.pre <= noidle.turns);
	assert_true(noidle.delayed >= noidle.pre);
}

/* FIFO among FG queues by the time each became busy, whatever the class:
 * A (BE-7) queues 8 reads at 0, B (RT-0) 8 at 10 us, C (BE-0) 8 at 20 us.
 * Plain CFQ lets RT B preempt A; the mode serves A, B, C in turn. */
static void run_three(const char *cfq_yaml, int32_t *first, size_t *n)
{
	struct harness *h = h_new("cfq", DEV_QD1, cfq_yaml);
	struct stream a, b, c;

	stream_init(&a, h, 1, IOPRIO_CLASS_BE, 7, REQ_FG, 8, 0, 8, 0, 0);
	stream_init(&b, h, 2, IOPRIO_CLASS_RT, 0, REQ_FG, 8, 1000000, 8, 0, 10 * US);
	stream_init(&c, h, 3, IOPRIO_CLASS_BE, 0, REQ_FG, 8, 2000000, 8, 0, 20 * US);
	a.stop_ns = b.stop_ns = c.stop_ns = 0; /* one batch each */
	h_run(h, 100 * MS);
	*n = h->norder;
	for (size_t i = 0; i < h->norder && i < 24; i++)
		first[i] = h->order[i];
	h_free(h);
}

static void test_fgcfq_fifo_among_fg_queues(void **state)
{
	(void)state;
	int32_t fg[24], plain[24];
	size_t nf, np;

	run_three(CFQ_ROT FG_ON, fg, &nf);
	run_three(CFQ_ROT, plain, &np);
	assert_int_equal(nf, 24);
	assert_int_equal(np, 24);
	for (size_t i = 0; i < 24; i++)
		assert_int_equal(fg[i], (int32_t)(i / 8) + 1);
	/* plain: RT B's reads all complete before A's last */
	size_t last_a = 0, last_b = 0;
	for (size_t i = 0; i < 24; i++) {
		if (plain[i] == 1)
			last_a = i;
		if (plain[i] == 2)
			last_b = i;
	}
	assert_true(last_b < last_a);
}

/* BG never preempts an FG queue, not even RT or REQ_PRIO: an FG batch
 * of 8 reads queued at 0, an RT BG metadata read at 10 us. Plain CFQ
 * serves the RT read next; the mode after the FG batch. */
static size_t rt_position(const char *cfq_yaml)
{
	struct harness *h = h_new("cfq", DEV_QD1, cfq_yaml);
	struct stream fg, rt;
	size_t pos = SIZE_MAX;

	stream_init(&fg, h, 1, IOPRIO_CLASS_NONE, 0, REQ_FG, 8, 0, 8, 0, 0);
	stream_init(&rt, h, 2, IOPRIO_CLASS_RT, 0, REQ_META | REQ_PRIO, 8, 5000000, 1, 0, 10 * US);
	fg.stop_ns = rt.stop_ns = 0;
	h_run(h, 100 * MS);
	assert_int_equal(h->norder, 9);
	for (size_t i = 0; i < h->norder; i++)
		if (h->order[i] == 2)
			pos = i;
	h_free(h);
	return pos;
}

static void test_fgcfq_bg_never_preempts_fg(void **state)
{
	(void)state;
	size_t plain = rt_position(CFQ_ROT), fg = rt_position(CFQ_ROT FG_ON);
	print_message("RT BG read completes as number %zu (plain), %zu (fg-aware) of 9\n", plain + 1, fg + 1);
	assert_int_equal(plain, 1); /* right after the FG read on the device */
	assert_int_equal(fg, 8);
}

/* Boosted async is high: two writes of a starved async queue are lifted
 * by boost_lba. Plain CFQ dispatches the later boost next and leaves the
 * earlier one with REQ_PRIO in the async queue, behind a BG sync reader;
 * the mode serves both at once. */
static void run_two_boosts(const char *cfq_yaml, int64_t *lat_first, int64_t *lat_second)
{
	struct harness *h = h_new("cfq", DEV_QD1, cfq_yaml);
	struct stream r, w;
	const uint64_t base = 10000000;

	stream_init(&r, h, 1, IOPRIO_CLASS_NONE, 0, 0, 8, 0, 1, 0, 0);
	stream_init(&w, h, 2, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 256, base, 16, 0, 0);
	w.stride = 1024;
	w.stop_ns = 1;
	h_run(h, 50 * MS);
	assert_true(w.done < 10);
	int64_t t0 = sim_now(h->sim);
	assert_true(blk_boost_lba(h->q, base + 10 * 1024 + 5));
	assert_true(blk_boost_lba(h->q, base + 15 * 1024 + 5));
	h_run(h, 1000 * MS);
	/* not done within the second: INT64_MAX */
	*lat_first = *lat_second = INT64_MAX;
	for (size_t i = 0; i < h->norder; i++) {
		if (h->osec[i] == base + 10 * 1024)
			*lat_first = h->otime[i] - t0;
		if (h->osec[i] == base + 15 * 1024)
			*lat_second = h->otime[i] - t0;
	}
	h_free(h);
}

static void test_fgcfq_boosted_async_served_high(void **state)
{
	(void)state;
	int64_t pf, ps, ff, fs;

	run_two_boosts(CFQ_ROT, &pf, &ps);
	run_two_boosts(CFQ_ROT FG_ON, &ff, &fs);
	print_message("boosted writes done after the boosts: plain %.3f / %.3f ms, fg-aware %.3f / %.3f ms"
		      " (%.0f: not within 1 s)\n", (double)pf / 1e6, (double)ps / 1e6, (double)ff / 1e6,
		      (double)fs / 1e6, (double)INT64_MAX / 1e6);
	/* the later boost is dispatched next in both */
	assert_true(ps <= 300 * US);
	assert_true(fs <= 300 * US);
	/* the earlier one: in the mode right after it; plain CFQ leaves it
	 * to the async queue's next turn */
	assert_true(ff <= 400 * US);
	assert_true(pf > 100 * MS);
}

/* BG-into-FG merge does not delay the FG request: one process's FG read
 * R is queued behind a request on the device; the same process then
 * reads the next 64 KiB untagged (BG). Plain CFQ back-merges it into R,
 * which grows and completes later; the mode refuses the merge and R
 * completes exactly as if the BG read had not come. */
static int64_t run_bg_into_fg(const char *cfq_yaml, bool with_bg, uint64_t *dev_requests,
			      int64_t *refused)
{
	struct harness *h = h_new("cfq", DEV_QD1_SIZE, cfq_yaml);
	struct stream busy, p, pbg;
	struct tio tr, tb;

	stream_init(&busy, h, 9, IOPRIO_CLASS_NONE, 0, 0, 256, 0, 1, 0, 0);
	busy.stop_ns = 1;
	stream_init(&p, h, 1, IOPRIO_CLASS_NONE, 0, REQ_FG, 8, 1000000, 0, 0, 0);
	stream_init(&pbg, h, 1, IOPRIO_CLASS_NONE, 0, 0, 128, 1000008, 0, 0, 0);
	pbg.iocp = &p.ioc; /* the same process, its later untagged I/O */
	p.stop_ns = pbg.stop_ns = 0;
	h_run(h, 10 * US);
	tio_init(&tr, &p);
	tio_init(&tb, &pbg);
	stream_issue(&p, &tr);
	if (with_bg)
		stream_issue(&pbg, &tb);
	h_run(h, 100 * MS);
	assert_int_equal(p.done, 1);
	*dev_requests = h->dev->requests;
	*refused = 0;
	if (strstr(cfq_yaml, "fg_aware"))
		*refused = h_fg_stat(h, "merges_refused");
	int64_t done = tr.t_done;
	h_free(h);
	return done;
}

static void test_fgcfq_bg_merge_does_not_delay_fg(void **state)
{
	(void)state;
	uint64_t n_alone, n_fg, n_plain;
	int64_t r_alone, r_fg, r_plain;

	int64_t alone = run_bg_into_fg(CFQ_ROT FG_ON, false, &n_alone, &r_alone);
	int64_t fg = run_bg_into_fg(CFQ_ROT FG_ON, true, &n_fg, &r_fg);
	int64_t plain = run_bg_into_fg(CFQ_ROT, true, &n_plain, &r_plain);
	print_message("FG read done at: alone %.3f ms, with BG read (fg-aware) %.3f ms, (plain) %.3f ms; "
		      "device requests %" PRIu64 " / %" PRIu64 " / %" PRIu64 "\n",
		      (double)alone / 1e6, (double)fg / 1e6, (double)plain / 1e6, n_alone, n_fg, n_plain);
	assert_int_equal(fg, alone);
	assert_true(r_fg >= 1);
	assert_int_equal(n_fg, 3);   /* busy, R, the BG read on its own */
	assert_int_equal(n_plain, 2); /* busy, R+BG merged */
	/* the merged request carries 64 KiB more: 128 us later */
	assert_true(plain >= alone + 120 * US);
}

/* An FG bio merging into a BG request lifts it: process P's untagged read
 * waits behind BG reader Q's slice; P (now FG) reads the adjacent sectors,
 * which back-merge into it; the mode serves it at once. */
static int64_t run_fg_into_bg(const char *cfq_yaml, int64_t *lifted)
{
	struct harness *h = h_new("cfq", DEV_QD1, cfq_yaml);
	struct stream q, p, pfg;
	struct tio tb, tf;

	stream_init(&q, h, 2, IOPRIO_CLASS_NONE, 0, 0, 8, 50000000, 1, 0, 0);
	stream_init(&p, h, 1, IOPRIO_CLASS_NONE, 0, 0, 8, 1000000, 0, 0, 0);
	stream_init(&pfg, h, 1, IOPRIO_CLASS_NONE, 0, REQ_FG, 8, 1000008, 0, 0, 0);
	pfg.iocp = &p.ioc;
	p.stop_ns = pfg.stop_ns = 0;
	h_run(h, 5 * MS);             /* Q holds its slice */
	tio_init(&tb, &p);
	tio_init(&tf, &pfg);
	int64_t t0 = sim_now(h->sim);
	stream_issue(&p, &tb);
	h_run(h, t0 + 1 * US);
	assert_int_equal(p.done, 0); /* it waits for Q's slice */
	stream_issue(&pfg, &tf);     /* back-merges into P's request */
	q.stop_ns = t0 + 300 * MS;
	h_run(h, t0 + 500 * MS);
	assert_int_equal(p.done + pfg.done, 2);
	assert_int_equal(tb.t_done, tf.t_done); /* one request */
	*lifted = strstr(cfq_yaml, "fg_aware") ? h_fg_stat(h, "lifted") : 0;
	int64_t lat = tf.t_done - t0;
	h_free(h);
	return lat;
}

static void test_fgcfq_fg_merge_lifts_bg_request(void **state)
{
	(void)state;
	int64_t lifted_fg, lifted_plain;
	int64_t fg = run_fg_into_bg(CFQ_ROT FG_ON, &lifted_fg);
	int64_t plain = run_fg_into_bg(CFQ_ROT, &lifted_plain);
	print_message("BG read lifted by an FG merge: done after %.3f ms (fg-aware), %.3f ms (plain)\n",
		      (double)fg / 1e6, (double)plain / 1e6);
	assert_int_equal(lifted_fg, 1);
	/* the request on the device, then it */
	assert_true(fg <= 300 * US);
	assert_true(plain > 20 * MS);
}

/* The insert-time merge of a plugged request (elv_attempt_insert_merge),
 * which the core does not report to the scheduler: an FG task's sync
 * write lands right after a BG async write and merges into it at unplug
 * (fsync meeting the flusher). The async request is lifted, so the FG
 * data is not left in the starved async queue. */
static int64_t run_fsync_meets_flusher(const char *cfq_yaml, int64_t *lifted)
{
	struct harness *h = h_new("cfq", DEV_QD1, cfq_yaml);
	struct stream r, w, f;
	struct tio tw, tf;
	struct blk_plug plug;

	stream_init(&r, h, 1, IOPRIO_CLASS_NONE, 0, 0, 8, 0, 1, 0, 0); /* BG reader */
	stream_init(&w, h, 2, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 64, 1000000, 0, 0, 0);
	stream_init(&f, h, 3, IOPRIO_CLASS_NONE, 0, REQ_WRITE | REQ_SYNC | REQ_FG, 64, 1000064, 0, 0, 0);
	f.ioc.fg = true;
	w.stop_ns = f.stop_ns = 0;
	h_run(h, 5 * MS);
	tio_init(&tw, &w);
	tio_init(&tf, &f);
	stream_issue(&w, &tw);          /* flusher: async write */
	h_run(h, sim_now(h->sim) + 1 * US);
	int64_t t0 = sim_now(h->sim);
	blk_start_plug(&plug, &f.ioc);
	stream_bio(&f, &tf);
	assert_int_equal(blk_submit_bio(h->q, &plug, &tf.bio, NULL), BLK_SUBMIT_DONE);
	blk_finish_plug(h->q, &plug);   /* insert-merges into the async write */
	r.stop_ns = t0 + 400 * MS;
	h_run(h, t0 + 1000 * MS);
	assert_int_equal(f.done, 1);
	assert_int_equal(tw.t_done, tf.t_done);
	*lifted = strstr(cfq_yaml, "fg_aware") ? h_fg_stat(h, "lifted") : 0;
	int64_t lat = tf.t_done - t0;
	h_free(h);
	return lat;
}

static void test_fgcfq_insert_merge_into_async_lifted(void **state)
{
	(void)state;
	int64_t lf, lp;
	int64_t fg = run_fsync_meets_flusher(CFQ_ROT FG_ON, &lf);
	int64_t plain = run_fsync_meets_flusher(CFQ_ROT, &lp);
	print_message("FG sync write merged into an async one: done after %.3f ms (fg-aware), "
		      "%.3f ms (plain)\n", (double)fg / 1e6, (double)plain / 1e6);
	assert_int_equal(lf, 1);
	assert_true(fg <= 300 * US);
	assert_true(plain > 20 * MS);
}

/* With no FG task the mode changes nothing: the same completions at the
 * same times, and the same scheduler figures apart from its own. */
struct trace_rec {
	uint64_t *v;
	size_t n, cap;
};

static void rec_event(void *ctx, const struct blk_trace_event *ev)
{
	struct trace_rec *r = ctx;
	if (r->n + 4 > r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1 << 16;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		assert_non_null(r->v);
	}
	r->v[r->n++] = (uint64_t)ev->time_ns;
	r->v[r->n++] = (uint64_t)ev->action;
	r->v[r->n++] = ev->sector;
	r->v[r->n++] = (uint64_t)ev->flags << 32 | ev->nr_sectors;
}

static json_t *run_no_fg(const char *cfq_yaml, struct trace_rec *rec)
{
	struct harness *h = h_new("cfq", DEV_QD1_SIZE, cfq_yaml);
	struct blk_trace_sink sink = { .event = rec_event, .ctx = rec };
	struct stream a, b, rt, w, idle, m;

	blk_set_trace_sink(h->q, &sink);
	stream_init(&a, h, 1, IOPRIO_CLASS_NONE, 0, 0, 8, 0, 1, 2 * MS, 0);
	stream_init(&b, h, 2, IOPRIO_CLASS_BE, 2, 0, 64, 30000000, 2, 0, 0);
	stream_init(&rt, h, 3, IOPRIO_CLASS_RT, 4, REQ_META | REQ_PRIO, 8, 60000000, 1, 20 * MS, 5 * MS);
	stream_init(&w, h, 4, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 256, 90000000, 32, 0, 0);
	w.stride = 256; /* contiguous: merges */
	stream_init(&idle, h, 5, IOPRIO_CLASS_IDLE, 7, REQ_WRITE, 64, 120000000, 4, 0, 0);
	stream_init(&m, h, 6, IOPRIO_CLASS_BE, 4, REQ_WRITE | REQ_SYNC, 16, 150000000, 4, 300 * US, 0);
	m.stride = 16;
	h_run(h, 1500 * MS);
	json_t *o = h_cfq_stats(h);
	json_object_set_new(o, "completions", json_integer((json_int_t)h->norder));
	json_object_set_new(o, "device_requests", json_integer((json_int_t)h->dev->requests));
	h_free(h);
	return o;
}

static void test_fgcfq_no_fg_task_identical(void **state)
{
	(void)state;
	struct trace_rec plain = { 0 }, fg = { 0 };
	json_t *sp = run_no_fg(CFQ_ROT, &plain);
	json_t *sf = run_no_fg(CFQ_ROT FG_ON, &fg);

	assert_null(json_object_get(sp, "fg"));
	json_t *own = json_object_get(sf, "fg");
	assert_non_null(own);
	assert_int_equal(json_integer_value(json_object_get(own, "turns")), 0);
	assert_int_equal(json_integer_value(json_object_get(own, "dispatched")), 0);
	json_object_del(sf, "fg");
	char *a = json_dumps(sp, JSON_SORT_KEYS | JSON_COMPACT);
	char *b = json_dumps(sf, JSON_SORT_KEYS | JSON_COMPACT);
	print_message("trace events %zu; stats %s\n", plain.n / 4, a);
	assert_string_equal(a, b);
	assert_true(plain.n > 40000);
	assert_int_equal(plain.n, fg.n);
	assert_memory_equal(plain.v, fg.v, plain.n * sizeof(*plain.v));
	free(a);
	free(b);
	json_decref(sp);
	json_decref(sf);
	free(plain.v);
	free(fg.v);
}

/* cfq_set_fg_aware: only CFQ has the mode. */
static void test_fgcfq_set_only_on_cfq(void **state)
{
	(void)state;
	struct sim *sim = sim_new_bare(1);
	struct cfg_doc *dd = NULL;
	struct device *dev = NULL;
	struct blk_queue *q = NULL;
	struct sim_error err = { 0 };
	const char *dy = DEV_QD1;

	assert_int_equal(cfg_load_string(dy, strlen(dy), "dev", &dd, &err), 0);
	assert_int_equal(device_create(sim, cfg_root(dd), &dev, &err), 0);
	assert_int_equal(blk_queue_create(sim, dev, NULL, "deadline", NULL, &q, &err), 0);
	assert_false(cfq_is(blk_queue_elevator(q)));
	assert_int_equal(cfq_set_fg_aware(blk_queue_elevator(q), true), SIM_E_INPUT);
	assert_int_equal(cfq_set_fg_aware(NULL, true), SIM_E_INPUT);
	blk_queue_destroy(q);
	assert_int_equal(blk_queue_create(sim, dev, NULL, "cfq", NULL, &q, &err), 0);
	assert_true(cfq_is(blk_queue_elevator(q)));
	assert_int_equal(cfq_set_fg_aware(blk_queue_elevator(q), true), 0);
	json_t *o = json_object();
	blk_queue_elevator(q)->ops->stats_json(blk_queue_elevator(q), o);
	assert_non_null(json_object_get(o, "fg"));
	json_decref(o);
	blk_queue_destroy(q);
	device_destroy(dev);
	sim_destroy(sim);
	cfg_free(dd);
}

/* fg_idle on flash with tagged queueing (hw_tag = 1): CFQ does not idle
 * there, so in the FG reader's 1 ms think time BG writes fill the
 * device's 32-deep FIFO and the next FG read waits behind them; `always`
 * keeps the FG turn through the think time and the read finds the device
 * nearly free. */
static void run_deep(const char *cfq_yaml, double *fg_mean_us, uint64_t *bg_writes, int64_t *hw_tag)
{
	struct harness *h = h_new("cfq", "model: ideal\nservice: fixed\nmean_us: 100\nper_kib_ns: 2000\n"
				  "servers: 1\nqueue_depth: 32\n", cfq_yaml);
	struct stream fg, w;

	stream_init(&fg, h, 1, IOPRIO_CLASS_NONE, 0, REQ_FG, 8, 0, 1, 1 * MS, 0);
	fg.stride = 100003;
	stream_init(&w, h, 2, IOPRIO_CLASS_NONE, 0, REQ_WRITE, 256, 100000000, 48, 0, 0);
	w.stride = 512;
	fg.win_from = 500 * MS;
	fg.win_to = 2000 * MS;
	h_run(h, 2000 * MS);
	*fg_mean_us = stats_dist_mean(&fg.lat_window) / 1000.0;
	*bg_writes = w.done;
	json_t *o = h_cfq_stats(h);
	*hw_tag = json_integer_value(json_object_get(o, "hw_tag"));
	json_decref(o);
	h_free(h);
}

static void test_fgcfq_idle_always_on_tagged_flash(void **state)
{
	(void)state;
	double plain, cfq, always;
	uint64_t wp, wc, wa;
	int64_t hp, hc, ha;

	run_deep("nonrot: true\n", &plain, &wp, &hp);
	run_deep("nonrot: true\n" FG_ON, &cfq, &wc, &hc);
	run_deep("nonrot: true\n" FG_ON "fg_idle: always\n", &always, &wa, &ha);
	print_message("QD32 FIFO flash: fg read mean plain %.0f us, fg_idle cfq %.0f us, always %.0f us;"
		      " bg writes %" PRIu64 " / %" PRIu64 " / %" PRIu64 "\n",
		      plain, cfq, always, wp, wc, wa);
	assert_int_equal(hp, 1);
	assert_int_equal(hc, 1);
	/* CFQ's rules: no idling with hw_tag, the FG read queues behind BG
	 * writes in the device whatever the scheduler does */
	assert_true(cfq > 2000.0);
	assert_true(plain > 2000.0);
	/* always: at most the write on the device before it */
	assert_true(always < 600.0);
	assert_true(always * 4 < cfq);
	assert_true(wa > 0);
}

/* ------------------------------------------------- the fgcfq policy */

/* The rig: tests/models/policies/policy_scenario.h. */

static json_t *sched_fg(const json_t *res)
{
	return json_object_get(json_object_get(json_object_get(res, "block"), "scheduler_stats"), "fg");
}

/* The policy switches CFQ's mode on at init: the scheduler's FG counters
 * appear and the FG app's load gets shorter. */
static void test_fgcfq_policy_switches_cfq_mode(void **state)
{
	(void)state;
	json_t *base = sc_run_ok(SC_FG_VS_BG, (const char *const[]){ "policies=baseline", NULL });
	json_t *fg = sc_run_ok(SC_FG_VS_BG, (const char *const[]){ "policies=fgcfq", NULL });
	json_t *p = json_object_get(json_object_get(fg, "policies"), "fgcfq");

	assert_non_null(p);
	assert_true(json_is_true(json_object_get(p, "applied")));
	assert_null(sched_fg(base));
	assert_non_null(sched_fg(fg));
	json_int_t disp = json_integer_value(json_object_get(sched_fg(fg), "dispatched"));
	json_int_t pre = json_integer_value(json_object_get(sched_fg(fg), "preemptions"));
	print_message("FG load: baseline %.3f s, fgcfq %.3f s; fg dispatched %lld, preemptions %lld\n",
		      region_s(base), region_s(fg), (long long)disp, (long long)pre);
	assert_true(disp > 10);
	assert_true(region_s(fg) < region_s(base));
	json_decref(base);
	json_decref(fg);
}

/* With no FG task the policy changes nothing: the same behaviour, apart
 * from the echo of the mode and its own counters. */
static void strip_mode(json_t *res)
{
	json_t *blk = json_object_get(res, "block");
	json_object_del(json_object_get(blk, "scheduler_stats"), "fg");
	json_object_del(json_object_get(blk, "scheduler_params"), "fg_aware");
}

static void test_fgcfq_policy_no_fg_task_changes_nothing(void **state)
{
	(void)state;
	const char *sets_b[] = { "policies=baseline", "fg=99999", NULL };
	const char *sets_f[] = { "policies=fgcfq", "fg=99999", NULL };
	json_t *base = sc_run_ok(SC_FG_VS_BG, sets_b);
	json_t *fg = sc_run_ok(SC_FG_VS_BG, sets_f);

	assert_int_equal(json_integer_value(json_object_get(sched_fg(fg), "turns")), 0);
	strip_mode(base);
	strip_mode(fg);
	static const char *const keys[] = { "classes", "regions", "device", "block", "pagecache",
					     "waits", "stack", "workload" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *x = json_dumps(json_object_get(base, keys[i]), JSON_SORT_KEYS | JSON_COMPACT);
		char *y = json_dumps(json_object_get(fg, keys[i]), JSON_SORT_KEYS | JSON_COMPACT);
		if (!x || !y || strcmp(x, y) != 0)
			fail_msg("section '%s' differs", keys[i]);
		free(x);
		free(y);
	}
	assert_int_equal(json_integer_value(json_object_get(json_object_get(base, "engine"), "events")),
			 json_integer_value(json_object_get(json_object_get(fg, "engine"), "events")));
	json_decref(base);
	json_decref(fg);
}

/* The mechanism is CFQ's: another scheduler is an input error, unless
 * require_cfq is off (then the policy is inert and says so). */
static void test_fgcfq_policy_needs_cfq(void **state)
{
	(void)state;
	int rc;
	char msg[512] = "";
	json_t *r = sc_run(SC_FG_VS_BG, (const char *const[]){ "policies=fgcfq", "scheduler=deadline", NULL },
			   &rc, msg, sizeof(msg));
	assert_null(r);
	assert_int_equal(rc, SIM_E_INPUT);
	assert_non_null(strstr(msg, "scheduler deadline has no foreground-aware mode"));
	r = sc_run_ok(SC_FG_VS_BG, (const char *const[]){ "policies=fgcfq", "scheduler=deadline",
							  "fgcfq.require_cfq=false", NULL });
	json_t *p = json_object_get(json_object_get(r, "policies"), "fgcfq");
	assert_false(json_is_true(json_object_get(p, "applied")));
	assert_non_null(strstr(json_string_value(json_object_get(p, "inert")),
			       "no foreground-aware mode"));
	json_decref(r);
	/* blk-mq: kyber has no such mode either; mq-deadline has one, without idling */
	r = sc_run(SC_FG_VS_BG, (const char *const[]){ "policies=fgcfq", "block.kind=mq", "scheduler=kyber",
						       NULL }, &rc, msg, sizeof(msg));
	assert_null(r);
	assert_int_equal(rc, SIM_E_INPUT);
	assert_non_null(strstr(msg, "scheduler kyber has no foreground-aware mode"));
	r = sc_run(SC_FG_VS_BG, (const char *const[]){ "policies=fgcfq", "block.kind=mq",
						       "scheduler=mq-deadline", "fgcfq.idle=always", NULL },
		   &rc, msg, sizeof(msg));
	assert_null(r);
	assert_int_equal(rc, SIM_E_INPUT);
	assert_non_null(strstr(msg, "mq-deadline does not idle"));
	r = sc_run_ok(SC_FG_VS_BG, (const char *const[]){ "policies=fgcfq", "block.kind=mq",
							  "scheduler=mq-deadline", NULL });
	p = json_object_get(json_object_get(r, "policies"), "fgcfq");
	assert_true(json_is_true(json_object_get(p, "applied")));
	assert_true(json_integer_value(json_object_get(p, "dispatched")) > 0);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fgcfq_fg_first_and_lower_latency),
		cmocka_unit_test(test_fgcfq_fifo_among_fg_queues),
		cmocka_unit_test(test_fgcfq_bg_never_preempts_fg),
		cmocka_unit_test(test_fgcfq_boosted_async_served_high),
		cmocka_unit_test(test_fgcfq_bg_merge_does_not_delay_fg),
		cmocka_unit_test(test_fgcfq_fg_merge_lifts_bg_request),
		cmocka_unit_test(test_fgcfq_insert_merge_into_async_lifted),
		cmocka_unit_test(test_fgcfq_no_fg_task_identical),
		cmocka_unit_test(test_fgcfq_set_only_on_cfq),
		cmocka_unit_test(test_fgcfq_idle_always_on_tagged_flash),
		cmocka_unit_test(test_fgcfq_policy_switches_cfq_mode),
		cmocka_unit_test(test_fgcfq_policy_no_fg_task_changes_nothing),
		cmocka_unit_test(test_fgcfq_policy_needs_cfq),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
