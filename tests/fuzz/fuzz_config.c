/* libFuzzer harness for sim/config.c: arbitrary bytes as a scenario file,
 * then one fixed --set override, a table apply and the unknown-key check.
 * Must never crash, leak, hang or read out of bounds; errors are fine.
 * Build: CC=clang cmake -S . -B build-fuzz -DMOBISIM_FUZZ=ON && cmake --build build-fuzz
 * --target fuzz_config; run: build-fuzz/fuzz_config tests/fuzz/corpus/config */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "sim/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_params {
	int64_t idle_ns;
	uint64_t max_bytes;
	double rate;
	int sched;
	bool flag;
	const char *name;
};

static const char *const fuzz_choices[] = { "noop", "deadline", "cfq", NULL };

static const struct cfg_param fuzz_table[] = {
	{ .key = "slice_idle_us", .type = CFG_T_TIME, .offset = offsetof(struct fuzz_params, idle_ns),
	  .unit = "us", .def = "8ms", .min = 0, .max = 1000000, .source = "fuzz", .help = "" },
	{ .key = "max_kib", .type = CFG_T_SIZE, .offset = offsetof(struct fuzz_params, max_bytes),
	  .unit = "KiB", .def = "512", CFG_NO_RANGE, .source = "fuzz", .help = "" },
	{ .key = "bw_mbps", .type = CFG_T_RATE, .offset = offsetof(struct fuzz_params, rate),
	  .unit = "MB/s", .def = "400", CFG_NO_RANGE, .source = "fuzz", .help = "" },
	{ .key = "sched", .type = CFG_T_ENUM, .offset = offsetof(struct fuzz_params, sched),
	  .unit = "", .def = "cfq", CFG_NO_RANGE, .source = "fuzz", .help = "",
	  .choices = fuzz_choices },
	{ .key = "flag", .type = CFG_T_BOOL, .offset = offsetof(struct fuzz_params, flag),
	  .unit = "", .def = "no", CFG_NO_RANGE, .source = "fuzz", .help = "" },
	{ .key = "name", .type = CFG_T_STRING, .offset = offsetof(struct fuzz_params, name),
	  .unit = "", .def = "x", CFG_NO_RANGE, .source = "fuzz", .help = "" },
	CFG_PARAM_END
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_error err;
	struct cfg_doc *doc = NULL;
	if (cfg_load_string((const char *)data, size, "fuzz.yaml", &doc, &err) != 0)
		return 0;
	struct fuzz_params p;
	struct cfg_node *root = cfg_root(doc);
	(void)cfg_set(doc, "cfq.slice_idle_us=[1, {a: 2}]", &err);
	(void)cfg_set(doc, "device.dies=8", &err);
	(void)cfg_apply(fuzz_table, cfg_get(root, "cfq"), &p, &err);
	(void)cfg_apply(fuzz_table, cfg_get(root, "x"), &p, &err);
	(void)cfg_check_unused(root, &err);
	json_t *j = cfg_to_json(root);
	char *s = json_dumps(j, JSON_COMPACT);
	free(s);
	json_decref(j);
	cfg_free(doc);
	return 0;
}
