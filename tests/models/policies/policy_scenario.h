/* Shared rig for the policy tests (test_fgcfq.c, test_fasttrack.c): small
 * stack scenarios on the QD1 eMMC preset, well under a second of simulated
 * time, where an FG app reads a cold file while one BG app writes through
 * the page cache and another streams a file; and the helpers that build and
 * run a scenario text with `--set` overrides. Include after cmocka.h.
 */
#ifndef MOBISIM_TESTS_POLICY_SCENARIO_H
#define MOBISIM_TESTS_POLICY_SCENARIO_H

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "sim/config.h"
#include "sim/sim.h"

#define SC_COMMON                                                                              \
	"seed: 1\n"                                                                            \
	"device: emmc45\n"                                                                     \
	"scheduler: cfq\n"                                                                     \
	"cfq: {nonrot: false}\n"                                                               \
	"memory: {total_bytes: 1GiB, reserved_bytes: 512MiB, cached_bytes: 64MiB}\n"           \
	"writeback: {dirty_background_ratio: 5, dirty_ratio: 20, dirty_expire_ms: 2s,"         \
	" dirty_writeback_ms: 5s}\n"

static const char *const SC_FG_VS_BG =
	SC_COMMON "fg: 10050\n"
	"workload:\n  type: synthetic\n  tasks:\n"
	"    bgw: {gen: writer, uid: 10060, start: 0s, bytes: 48MiB, chunk_bytes: 512KiB}\n"
	"    bgr: {gen: reader, uid: 10061, start: 0s, file_bytes: 48MiB, chunk_bytes: 128KiB}\n"
	"    app: {gen: reader, uid: 10050, start: 20ms, file_bytes: 8MiB, chunk_bytes: 128KiB,"
	" region: load}\n";

/* Build and run yaml with sets applied; NULL with *rc and msg set when the
 * build refuses (a run error fails the test). */
static inline json_t *sc_run(const char *yaml, const char *const *sets, int *rc, char *msg,
			     size_t msglen)
{
	struct cfg_doc *doc = NULL;
	struct sim_error err = { 0 };
	struct sim_options opt = { .quiet = true };
	struct sim *s = NULL;
	json_t *res = NULL;

	assert_int_equal(cfg_load_string(yaml, strlen(yaml), "policy-test.yaml", &doc, &err), 0);
	for (size_t i = 0; sets && sets[i]; i++)
		if (cfg_set(doc, sets[i], &err))
			fail_msg("%s: %s", sets[i], err.msg);
	*rc = sim_create(doc, NULL, &opt, &s, &err);
	if (*rc) {
		if (snprintf(msg, msglen, "%s", err.msg) >= (int)msglen)
			msg[msglen - 1] = '\0'; /* a cut message still names the error */
		return NULL;
	}
	if (sim_run(s, &err))
		fail_msg("run: %s", err.msg);
	res = sim_result_json(s);
	sim_destroy(s);
	return res;
}

static inline json_t *sc_run_ok(const char *yaml, const char *const *sets)
{
	int rc;
	char msg[512];
	json_t *r = sc_run(yaml, sets, &rc, msg, sizeof(msg));
	if (rc)
		fail_msg("build: %s", msg);
	return r;
}

/* The first region's duration in seconds. */
static inline double region_s(const json_t *res)
{
	json_t *r = json_array_get(json_object_get(res, "regions"), 0);
	assert_non_null(r);
	return (double)json_integer_value(json_object_get(r, "duration_ns")) / 1e9;
}

#endif
