/* Tests for the fasttrack policy (models/policies/fasttrack.c, after Hahn
 * et al., USENIX ATC'18): registered with its tunables; each mechanism
 * switchable and counted on its own; the block layer's issue gate holds BG
 * requests while FG ones are at the device; reclaim keeps the FG app's
 * pages; a warm launch task finds its pages; and the direction of effect
 * (the FG app's load not longer than baseline's). Small stack scenarios
 * on the QD1 eMMC preset (tests/models/policies/policy_scenario.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "models/policies/policy.h"
#include "sim/config.h"
#include "sim/sim.h"
#include "tests/models/policies/policy_scenario.h"

/* A warm switch under memory pressure: Gallery's working set is cached at
 * t = 0; a BG writer then fills memory well past the cache before the
 * switch, with the FG (camera) app in front meanwhile. */
static const char *const SC_WARM =
	"seed: 1\ndevice: emmc45\nscheduler: cfq\n"
	"memory: {total_bytes: 512MiB, reserved_bytes: 384MiB, cached_bytes: 16MiB}\n"
	"fg: [{at: 0s, uid: 10070}]\n"
	"workload:\n  type: synthetic\n  tasks:\n"
	"    bg: {gen: writer, uid: 10060, start: 0s, bytes: 256MiB, chunk_bytes: 512KiB}\n"
	"    gallery: {gen: launch, uid: 10080, start: 3s, become_fg: true, region: switch,"
	" bytes: 4MiB, files: 8, cpu_total: 20ms, warm: 1}\n";

static json_int_t ft_counter(const json_t *res, const char *mech, const char *key)
{
	json_t *m = json_object_get(json_object_get(json_object_get(res, "policies"), "fasttrack"), mech);
	assert_non_null(m);
	json_t *v = json_object_get(m, key);
	assert_non_null(v);
	return json_is_boolean(v) ? json_is_true(v) : json_integer_value(v);
}

static void test_fasttrack_registered(void **state)
{
	(void)state;
	struct policy_registry *r = policy_registry_new();
	const struct policy_ops *o = policy_registry_find(r, "fasttrack");
	assert_non_null(o);
	assert_non_null(o->reclaim_protect);
	assert_non_null(o->pagecache_may_insert);
	size_t n = 0;
	for (const struct cfg_param *p = o->params; p->key; p++, n++) {
		assert_non_null(p->source);
		assert_true(strlen(p->source) > 0);
	}
	assert_int_equal(n, 6);
	policy_registry_free(r);
}

/* Every mechanism on: each counts, and the FG load is not longer. */
static void test_fasttrack_counts_and_direction(void **state)
{
	(void)state;
	json_t *base = sc_run_ok(SC_FG_VS_BG, (const char *const[]){ "policies=baseline", NULL });
	json_t *ft = sc_run_ok(SC_FG_VS_BG, (const char *const[]){ "policies=fasttrack", NULL });
	print_message("FG load: baseline %.4f s, fasttrack %.4f s; pc sleeps %lld, dev holds %lld+%lld\n",
		      region_s(base), region_s(ft), (long long)ft_counter(ft, "pagecache", "bg_sleeps"),
		      (long long)ft_counter(ft, "device", "bg_held_fg_at_device"),
		      (long long)ft_counter(ft, "device", "bg_held_fg_active"));
	assert_true(ft_counter(ft, "sched", "enabled"));
	assert_true(ft_counter(ft, "device", "enabled"));
	assert_true(ft_counter(ft, "pagecache", "bg_sleeps") > 0);
	assert_true(region_s(ft) < region_s(base));
	json_decref(base);
	json_decref(ft);
}

/* The device-queue mechanism alone (the FG-first scheduler would keep BG
 * requests off the dispatch list while FG is active): BG requests held,
 * and the FG load not longer than with the gate off. */
static void test_fasttrack_device_gate_alone(void **state)
{
	(void)state;
	json_t *on = sc_run_ok(SC_FG_VS_BG, (const char *const[]){ "policies=fasttrack",
							       "fasttrack.sched=false",
							       "fasttrack.pagecache=false", NULL });
	json_t *off = sc_run_ok(SC_FG_VS_BG, (const char *const[]){ "policies=fasttrack",
								"fasttrack.sched=false",
								"fasttrack.pagecache=false",
								"fasttrack.device=false", NULL });
	json_int_t holds = ft_counter(on, "device", "bg_held_fg_at_device") +
			   ft_counter(on, "device", "bg_held_fg_active");
	print_message("device gate alone: %.4f s (holds %lld), off %.4f s\n", region_s(on),
		      (long long)holds, region_s(off));
	assert_true(holds > 0);
	assert_true(region_s(on) <= region_s(off));
	json_decref(on);
	json_decref(off);
}

/* Each switch turns its mechanism off: its counters stay 0, and with all
 * four off the run is the baseline's. */
static void test_fasttrack_switches(void **state)
{
	(void)state;
	json_t *base = sc_run_ok(SC_FG_VS_BG, (const char *const[]){ "policies=baseline", NULL });
	json_t *off = sc_run_ok(SC_FG_VS_BG,
				(const char *const[]){ "policies=fasttrack", "fasttrack.pagecache=false",
						       "fasttrack.sched=false", "fasttrack.device=false",
						       "fasttrack.protect=false", NULL });
	assert_int_equal(ft_counter(off, "pagecache", "bg_sleeps"), 0);
	assert_false(ft_counter(off, "sched", "enabled"));
	assert_false(ft_counter(off, "device", "enabled"));
	assert_int_equal(ft_counter(off, "protect", "pages_kept"), 0);
	assert_true(region_s(off) == region_s(base));
	json_decref(base);
	json_decref(off);
}

/* Warm start: with no reclaim pressure on it the switch reads nothing;
 * cold, it reads its working set. */
static void test_fasttrack_warm_switch(void **state)
{
	(void)state;
	json_t *warm = sc_run_ok(SC_WARM, (const char *const[]){ "workload.tasks.bg.enabled=false", NULL });
	json_t *cold = sc_run_ok(SC_WARM, (const char *const[]){ "workload.tasks.bg.enabled=false",
								  "workload.tasks.gallery.warm=0", NULL });
	print_message("switch alone: warm %.4f s, cold %.4f s\n", region_s(warm), region_s(cold));
	assert_true(region_s(warm) < region_s(cold));
	json_decref(warm);
	json_decref(cold);
}

/* protect keeps the FG app's pages: camera in front owns nothing here,
 * so count on the warm scenario with Gallery in front from the start. */
static void test_fasttrack_protect_keeps_fg_pages(void **state)
{
	(void)state;
	json_t *ft = sc_run_ok(SC_WARM, (const char *const[]){ "policies=fasttrack",
								"fg=[{at: 0s, uid: 10080}]", NULL });
	json_t *np = sc_run_ok(SC_WARM, (const char *const[]){ "policies=fasttrack", "fasttrack.protect=false",
								"fg=[{at: 0s, uid: 10080}]", NULL });
	print_message("switch with Gallery in front throughout: protect %.4f s, without %.4f s, kept %lld\n",
		      region_s(ft), region_s(np), (long long)ft_counter(ft, "protect", "pages_kept"));
	assert_true(ft_counter(ft, "protect", "pages_kept") > 0);
	assert_true(region_s(ft) <= region_s(np));
	json_decref(ft);
	json_decref(np);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fasttrack_registered),
		cmocka_unit_test(test_fasttrack_counts_and_direction),
		cmocka_unit_test(test_fasttrack_device_gate_alone),
		cmocka_unit_test(test_fasttrack_switches),
		cmocka_unit_test(test_fasttrack_warm_switch),
		cmocka_unit_test(test_fasttrack_protect_keeps_fg_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
