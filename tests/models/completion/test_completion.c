/* Completion path (models/completion/completion.c and the models): latency and CPU per
 * I/O of interrupt, poll, hybrid, pas, dpas and timer-irq against an ideal
 * device driven closed-loop at a chosen queue depth, DPAS mode switching,
 * the CPU model's held cores, and `completion: none` leaving a run's
 * result unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/completion/completion.h"
#include "models/device/device.h"
#include "models/stack/stack.h"
#include "sim/results.h"
#include "sim/sim.h"

/* ----------------------------------------------------------- harness */

#define H_MAXQD 16

struct harness {
	struct sim *sim;
	struct cfg_doc *ddoc, *cdoc;
	struct device *dev;
	struct completion *cpl;
	struct io_request rq[H_MAXQD];
	uint32_t qd;              /* target outstanding */
	uint32_t outstanding;
	uint64_t submitted, completed, limit;
	uint64_t seq;
	uint64_t measure_from;    /* record latencies of completions after this many */
	struct stats_dist lat;    /* submit (D) -> upcall, as the harness sees it */
	/* DPAS: modes seen, in order */
	char modes[16][8];
	int nmodes;
};

static void h_submit(struct harness *h, struct io_request *rq)
{
	uint64_t sector = (h->seq++ * 7919u % 100000u) * 8u;
	uint32_t flags = 0;
	memset(rq, 0, sizeof(*rq));
	list_init(&rq->queuelist);
	list_init(&rq->dev_node);
	list_init(&rq->hash);
	rq->sector = sector;
	rq->nr_sectors = 8;
	rq->flags = flags;
	h->submitted++;
	h->outstanding++;
	device_submit(h->dev, rq);
}

static void h_fill(struct harness *h)
{
	for (uint32_t i = 0; i < H_MAXQD && h->outstanding < h->qd && h->submitted < h->limit; i++) {
		/* a free slot: t_dispatch == 0 marks never used or done */
		if (h->rq[i].nr_sectors == 0)
			h_submit(h, &h->rq[i]);
	}
}

static void h_done(void *upper, struct io_request *rq)
{
	struct harness *h = upper;
	int64_t now = sim_now(h->sim);
	h->completed++;
	h->outstanding--;
	if (h->completed > h->measure_from)
		assert_int_equal(stats_dist_add(&h->lat, now - rq->t_dispatch), 0);
	rq->nr_sectors = 0;
	if (h->cpl) {
		const char *m = completion_mode_name(h->cpl);
		if (h->nmodes == 0 || strcmp(h->modes[h->nmodes - 1], m) != 0) {
			if (h->nmodes < 16)
				snprintf(h->modes[h->nmodes++], sizeof(h->modes[0]), "%s", m);
		}
	}
	h_fill(h);
}

/* device: YAML of an ideal device; cpl: YAML of the `completion:` value
 * (NULL: none). */
static void h_build(struct harness *h, const char *device, const char *cpl)
{
	struct sim_error err = { 0 };
	memset(h, 0, sizeof(*h));
	h->sim = sim_new_bare(7);
	assert_non_null(h->sim);
	if (cfg_load_string(device, strlen(device), "dev.yaml", &h->ddoc, &err) ||
	    device_create(h->sim, cfg_root(h->ddoc), &h->dev, &err))
		fail_msg("%s", err.msg);
	h->dev->on_complete = h_done;
	h->dev->upper = h;
	if (cpl) {
		if (cfg_load_string(cpl, strlen(cpl), "cpl.yaml", &h->cdoc, &err) ||
		    completion_attach(h->sim, h->dev, cfg_root(h->cdoc), &h->cpl, &err) ||
		    cfg_check_unused(cfg_root(h->cdoc), &err))
			fail_msg("%s", err.msg);
	}
	stats_dist_init(&h->lat);
}

/* Run until limit I/Os in total have completed, at queue depth qd. */
static void h_run(struct harness *h, uint32_t qd, uint64_t limit)
{
	h->qd = qd;
	h->limit = limit;
	h_fill(h);
	while (h->completed < limit && sim_engine_step(&h->sim->engine))
		;
	assert_int_equal(h->completed, limit);
}

static void h_free(struct harness *h)
{
	/* drain what is still in flight so no event refers to freed state */
	h->limit = h->submitted;
	sim_engine_run(&h->sim->engine, SIM_TIME_MAX);
	device_destroy(h->dev);
	cfg_free(h->ddoc);
	cfg_free(h->cdoc);
	stats_dist_free(&h->lat);
	sim_destroy(h->sim);
}

static const char *const lognormal_dev =
	"model: ideal\nservice: lognormal\nmean_us: 60\ncv: 0.2\nservers: 16\n";
static const char *const fixed_dev = "model: ideal\nservice: fixed\nmean_us: 50\nservers: 16\n";

struct run_figs {
	double lat_mean, cpu_mean, dev_mean, ovh_min, ovh_max;
	int64_t lat_p99;
};

static struct run_figs run_model(const char *device, const char *cpl, uint64_t n)
{
	struct harness h;
	h_build(&h, device, cpl);
	h_run(&h, 1, n);
	const struct cpl_stats *st = completion_stats(h.cpl);
	struct run_figs f = {
		.lat_mean = stats_dist_mean(&st->latency),
		.cpu_mean = stats_dist_mean(&st->cpu),
		.dev_mean = stats_dist_mean(&st->device),
		.ovh_min = (double)st->overhead.min,
		.ovh_max = (double)st->overhead.max,
		.lat_p99 = stats_dist_percentile(&st->latency, 99),
	};
	assert_int_equal(st->ios, n);
	/* what the layer above saw is what the path reports */
	assert_true(stats_dist_mean(&h.lat) > f.lat_mean - 1 && stats_dist_mean(&h.lat) < f.lat_mean + 1);
	h_free(&h);
	return f;
}

/* ------------------------------------------------------------- tests */

static void test_completion_registry_and_errors(void **state)
{
	(void)state;
	const char *want[] = { "interrupt", "poll", "hybrid", "pas", "dpas", "timer-irq" };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_non_null(completion_find(want[i]));
	assert_null(completion_find("none"));

	struct harness h;
	h_build(&h, fixed_dev, "model: none\n");
	assert_null(h.cpl);
	assert_null(h.dev->cpl);
	h_free(&h);

	struct sim_error err = { 0 };
	struct cfg_doc *doc = NULL;
	const char *bad = "model: pol\n";
	assert_int_equal(cfg_load_string(bad, strlen(bad), "bad.yaml", &doc, &err), 0);
	struct sim *sim = sim_new_bare(1);
	struct completion *c = NULL;
	assert_int_equal(completion_attach(sim, NULL, cfg_root(doc), &c, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "bad.yaml:1:"));
	assert_non_null(strstr(err.msg, "'pol'"));
	assert_non_null(strstr(err.msg, "timer-irq"));
	cfg_free(doc);
	sim_destroy(sim);
}

/* Interrupt adds exactly irq + wakeup + ctxsw to every I/O; polling adds
 * at most one check interval, so it is never slower, mean or p99. */
static void test_completion_poll_never_slower_than_interrupt_at_qd1(void **state)
{
	(void)state;
	struct run_figs irq = run_model(lognormal_dev, "model: interrupt\n", 2000);
	struct run_figs poll = run_model(lognormal_dev, "model: poll\n", 2000);
	/* same device stream: same device times */
	assert_true(irq.dev_mean == poll.dev_mean);
	assert_true(irq.ovh_min == 4000 && irq.ovh_max == 4000); /* 1.5 + 1 + 1.5 us */
	assert_true(poll.ovh_min >= 0 && poll.ovh_max <= 100);    /* poll_check_ns */
	assert_true(poll.lat_mean <= irq.lat_mean - 3900);
	assert_true(poll.lat_p99 <= irq.lat_p99);
	/* and with costly interrupts the gap grows by exactly the added cost */
	struct run_figs slow = run_model(lognormal_dev,
					 "model: interrupt\nirq_us: 5\nwakeup_us: 5\nctxsw_us: 5\n", 2000);
	assert_true(slow.ovh_min == 15000 && slow.ovh_max == 15000);
	assert_true(poll.lat_mean < slow.lat_mean - 14900);
}

/* PAS on a fixed 50 us device: after a warm-up the sleep tracks the
 * device time minus the wake-up path and the I/O latency is within a few
 * us of the device's, at a fraction of polling's CPU. */
static void test_completion_pas_converges_on_fixed_device(void **state)
{
	(void)state;
	struct harness h;
	h_build(&h, fixed_dev, "model: pas\n");
	h.measure_from = 1000;
	h_run(&h, 1, 3000);
	double tail = stats_dist_mean(&h.lat);
	assert_true(tail >= 50000);
	assert_true(tail < 50000 + 3000);
	assert_true(h.lat.max < 50000 + 8000);
	json_t *j = completion_to_json(h.cpl);
	json_int_t sleep = json_integer_value(json_object_get(
		json_object_get(json_object_get(j, "pas"), "read"), "sleep_ns"));
	/* wake path = timer 1 + wakeup 1 + ctxsw 1.5 = 3.5 us: converged sleep
	 * sits within DN (10 %) below 46.5 us, never far above */
	assert_true(sleep > 46500 * 0.85 && sleep < 46500 * 1.05);
	const struct cpl_stats *st = completion_stats(h.cpl);
	assert_true(st->under > 0 && st->over > 0); /* it oscillates around the target */
	assert_true(stats_dist_mean(&st->cpu) < 15000); /* poll would spin ~50 us */
	json_decref(j);
	h_free(&h);

	/* from a start far below (d_init 0.5 us) it climbs there too (UU accelerates) */
	h_build(&h, fixed_dev, "model: pas\nd_init_us: 0.5\n");
	h.measure_from = 1000;
	h_run(&h, 1, 2000);
	assert_true(stats_dist_mean(&h.lat) < 50000 + 3000);
	h_free(&h);
}

/* Hybrid: the first epoch polls (no statistics), then every I/O sleeps
 * half the previous epoch's mean latency. */
static void test_completion_hybrid_sleeps_half_the_mean(void **state)
{
	(void)state;
	struct harness h;
	h_build(&h, fixed_dev, "model: hybrid\nepoch_ios: 200\n");
	h_run(&h, 1, 1000);
	const struct cpl_stats *st = completion_stats(h.cpl);
	assert_int_equal(st->plans[CPL_PLAN_POLL], 200);
	assert_int_equal(st->plans[CPL_PLAN_SLEEP_POLL], 800);
	double mean_lat_after = 50000; /* sleep 25 us < 46.5: always UNDER, latency ~ device */
	double sleep = stats_dist_mean(&st->sleep);
	assert_true(sleep > 0.5 * mean_lat_after - 100 && sleep < 0.5 * mean_lat_after + 100);
	assert_int_equal(st->under, 800);
	/* CPU: about half a poll's spin, plus timer and two switches */
	double cpu = stats_dist_mean(&st->cpu);
	assert_true(cpu > 0.2 * 50000 + 0.8 * (25000 - 3500) && cpu < 0.2 * 50100 + 0.8 * 27000);
	h_free(&h);

	/* attenuation 1: sleeping the whole mean oversleeps, and the oversleep
	 * feeds the next epoch's mean (latency shelving): latency rises */
	h_build(&h, lognormal_dev, "model: hybrid\nepoch_ios: 200\nattenuation: 1\n");
	h.measure_from = 600;
	h_run(&h, 1, 1400);
	const struct cpl_stats *st2 = completion_stats(h.cpl);
	assert_true(st2->over > st2->under);
	assert_true(stats_dist_mean(&h.lat) > stats_dist_mean(&st2->device) + 5000);
	h_free(&h);
}

/* DPAS: at queue depth 8 on a device faster than the wake-up path, PAS
 * sleeps sit at the floor -> OL -> (avg QD 8 > 4) INT; back at QD1, INT
 * -> OL after int_ios, OL -> PAS (avg QD 1 <= 1.5), PAS -> CP. */
static void test_completion_dpas_switches_mode_with_queue_depth(void **state)
{
	(void)state;
	struct harness h;
	h_build(&h, "model: ideal\nservice: fixed\nmean_us: 2\nservers: 16\n",
		"model: dpas\nint_ios: 500\ncp_ios: 300\n");
	assert_string_equal(completion_mode_name(h.cpl), "PAS");
	h_run(&h, 8, 400);
	assert_string_equal(completion_mode_name(h.cpl), "INT");
	/* the rest of the queue drains at QD<8 and the QD1 phase starts */
	h_run(&h, 1, 400 + 300 + 100 + 100 + 200);
	assert_string_equal(completion_mode_name(h.cpl), "CP");
	const char *want[] = { "PAS", "OL", "INT", "OL", "PAS", "CP" };
	assert_int_equal(h.nmodes, 6);
	for (int i = 0; i < 6; i++)
		assert_string_equal(h.modes[i], want[i]);
	/* CP lasts cp_ios, then PAS is tried again */
	h_run(&h, 1, 1500);
	assert_string_equal(h.modes[6], "PAS");
	const struct cpl_stats *st = completion_stats(h.cpl);
	assert_true(st->plans[CPL_PLAN_IRQ] >= 450); /* planned at submit: in flight at a switch keep their plan */
	assert_true(st->plans[CPL_PLAN_POLL] >= 300);
	h_free(&h);
}

/* CPU per I/O at QD1 on a 50 us device: poll spins the whole device time,
 * hybrid about half, pas and timer-irq a few us of spin, interrupt only
 * its handler and two switches: poll highest, interrupt lowest. */
static void test_completion_cpu_per_io_ordering_at_low_load(void **state)
{
	(void)state;
	const char *models[] = { "poll", "hybrid", "pas", "timer-irq", "dpas", "interrupt" };
	double cpu[6], lat[6];
	for (int i = 0; i < 6; i++) {
		char y[96];
		snprintf(y, sizeof(y), "model: %s\n%s", models[i],
			 strcmp(models[i], "hybrid") == 0 ? "epoch_ios: 100\n" : "");
		struct run_figs f = run_model(lognormal_dev, y, 2000);
		cpu[i] = f.cpu_mean;
		lat[i] = f.lat_mean;
	}
	assert_true(cpu[0] > 55000);                 /* ~ the device time */
	assert_true(cpu[5] == 4500);                 /* irq 1.5 + 2 x ctxsw 1.5 */
	for (int i = 1; i < 5; i++) {
		assert_true(cpu[i] < cpu[0]);
		assert_true(cpu[i] > cpu[5]);
	}
	assert_true(cpu[1] > cpu[2]);                /* hybrid spins more than pas */
	/* latency: poll lowest; every sleep-then-poll below interrupt here */
	for (int i = 1; i < 6; i++)
		assert_true(lat[0] <= lat[i]);
	assert_true(lat[2] < lat[5] && lat[3] < lat[5]);
}

/* timer-irq bounds a long misprediction by the interrupt path; sleep-poll
 * pays the whole oversleep. */
static void test_completion_timer_irq_caps_oversleep(void **state)
{
	(void)state;
	/* d_init 200 us on a 50 us device: the first sleeps are far too long */
	struct harness h;
	h_build(&h, fixed_dev, "model: timer-irq\nd_init_us: 200\n");
	h_run(&h, 1, 1);
	assert_int_equal(completion_stats(h.cpl)->latency.max, 50000 + 4000);
	h_free(&h);
	h_build(&h, fixed_dev, "model: pas\nd_init_us: 200\n");
	h_run(&h, 1, 1);
	assert_int_equal(completion_stats(h.cpl)->latency.max, 200000 + 3500);
	h_free(&h);
}

/* ---------------------------------------------------- whole scenarios */

static struct sim *run_doc(const char *yaml)
{
	struct sim_error err = { 0 };
	struct cfg_doc *doc = NULL;
	if (cfg_load_string(yaml, strlen(yaml), "scn.yaml", &doc, &err))
		fail_msg("%s", err.msg);
	struct sim_options opt = { .quiet = true };
	struct sim *sim = NULL;
	if (sim_create(doc, NULL, &opt, &sim, &err))
		fail_msg("%s", err.msg);
	if (sim_run(sim, &err))
		fail_msg("%s", err.msg);
	return sim;
}

static char *result_without(struct sim *s)
{
	json_t *j = sim_result_json(s);
	json_t *e = json_object_get(j, "engine");
	json_object_del(e, "wall_s");
	json_object_del(e, "events_per_s");
	json_object_del(e, "peak_rss_kib");
	json_object_del(json_object_get(j, "config"), "completion");
	char *txt = json_dumps(j, JSON_SORT_KEYS);
	json_decref(j);
	return txt;
}

/* `completion: none` is the run without the key, byte for byte (the
 * config echo aside), for a device-level source and for the full stack. */
static void test_completion_none_leaves_results_identical(void **state)
{
	(void)state;
	const char *base[] = {
		"seed: 3\ndevice: {model: ideal, service: exponential, mean_us: 100}\n"
		"source: {rate_per_s: 5000, requests: 3000, size_kib: 4}\n",
		"seed: 3\ndevice: {model: ideal, service: lognormal, mean_us: 80, cv: 0.3, servers: 4}\n"
		"scheduler: cfq\nworkload:\n  type: synthetic\n  tasks:\n"
		"    r: {gen: reader, file_bytes: 64MiB, bytes: 2MiB, pattern: random}\n"
		"    w: {gen: writer, bytes: 4MiB, chunk_bytes: 64KiB}\n",
	};
	for (int i = 0; i < 2; i++) {
		char with[1024];
		snprintf(with, sizeof(with), "%scompletion: none\n", base[i]);
		struct sim *a = run_doc(base[i]), *b = run_doc(with);
		assert_null(a->device->cpl);
		assert_null(b->device->cpl);
		char *ta = result_without(a), *tb = result_without(b);
		assert_string_equal(ta, tb);
		assert_null(strstr(ta, "\"completion\""));
		free(ta);
		free(tb);
		sim_destroy(a);
		sim_destroy(b);
	}
}

/* Through the whole stack: a task's read() is faster with polling than
 * with interrupts by about the interrupt path, and a polling reader's spin
 * holds the only core, so a computing task waits for the CPU longer. */
static void test_completion_stack_latency_and_cpu_competition(void **state)
{
	(void)state;
#define STACK_FMT \
		"seed: 1\ndevice: {model: ideal, service: fixed, mean_us: 80}\n" \
		"cpu: {cores: 1}\ncompletion: %s\nworkload:\n  type: synthetic\n  tasks:\n" \
		"    r: {gen: reader, uid: 10001, become_fg: true, file_bytes: 256MiB, bytes: 2MiB," \
		" pattern: random}\n" \
		"    c: {gen: reader, uid: 10002, file_bytes: 256MiB, bytes: 2MiB, pattern: random," \
		" cpu_per_chunk: 200us}\n"
	char y[1024];
	snprintf(y, sizeof(y), STACK_FMT, "interrupt");
	struct sim *irq = run_doc(y);
	snprintf(y, sizeof(y), STACK_FMT, "{model: poll, paths: direct+readahead}");
	struct sim *poll = run_doc(y);
	const struct stats_dist *ri = &irq->metrics.cls[SIM_CLASS_FG].op[SIM_OP_READ].lat;
	const struct stats_dist *rp = &poll->metrics.cls[SIM_CLASS_FG].op[SIM_OP_READ].lat;
	assert_int_equal(ri->n, 512);
	assert_int_equal(rp->n, 512);
	assert_true(stats_dist_mean(rp) < stats_dist_mean(ri));
	const struct sim_waitstat *wi = &irq->metrics.cls[SIM_CLASS_BG].wait[SIM_WAIT_CPU];
	const struct sim_waitstat *wp = &poll->metrics.cls[SIM_CLASS_BG].wait[SIM_WAIT_CPU];
	/* with interrupts the core is free while r waits; polling takes it */
	assert_true(wp->total_ns > 2 * wi->total_ns);
	/* the spin is CPU busy time of the stack's cores */
	json_t *ji = stack_stats_json(irq->stack), *jp = stack_stats_json(poll->stack);
	json_int_t bi = json_integer_value(json_object_get(json_object_get(ji, "cpu"), "busy_ns"));
	json_int_t bp = json_integer_value(json_object_get(json_object_get(jp, "cpu"), "busy_ns"));
	int64_t spin = completion_stats(poll->device->cpl)->spin_ns;
	assert_true(spin > 1000 * 80000 * 9 / 10);
	assert_true(bp - bi > spin * 9 / 10);
	json_decref(ji);
	json_decref(jp);
	/* two spinning readers, one core: the second spins without one (counted) */
	assert_true(completion_stats(poll->device->cpl)->max_held == 2);
	assert_true(completion_stats(poll->device->cpl)->spin_no_core > 0);
	sim_destroy(irq);
	sim_destroy(poll);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_completion_registry_and_errors),
		cmocka_unit_test(test_completion_poll_never_slower_than_interrupt_at_qd1),
		cmocka_unit_test(test_completion_pas_converges_on_fixed_device),
		cmocka_unit_test(test_completion_hybrid_sleeps_half_the_mean),
		cmocka_unit_test(test_completion_dpas_switches_mode_with_queue_depth),
		cmocka_unit_test(test_completion_cpu_per_io_ordering_at_low_load),
		cmocka_unit_test(test_completion_timer_irq_caps_oversleep),
		cmocka_unit_test(test_completion_none_leaves_results_identical),
		cmocka_unit_test(test_completion_stack_latency_and_cpu_competition),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
