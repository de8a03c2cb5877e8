/* Tests for sim/config.c: YAML tree and positions, include merging, --set,
 * unit parsers, tunable tables, unknown-key and error messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim/config.h"

/* ---------------------------------------------------------------- helpers */

static struct cfg_doc *load(const char *text, struct sim_error *err)
{
	struct cfg_doc *doc = NULL;
	int rc = cfg_load_string(text, strlen(text), "t.yaml", &doc, err);
	if (rc)
		fail_msg("load failed: %s", err->msg);
	return doc;
}

static int load_err(const char *text, struct sim_error *err)
{
	struct cfg_doc *doc = NULL;
	int rc = cfg_load_string(text, strlen(text), "t.yaml", &doc, err);
	assert_null(doc);
	return rc;
}

static char *dump(const struct cfg_node *n)
{
	json_t *j = cfg_to_json(n);
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

static void assert_json(const struct cfg_node *n, const char *want)
{
	char *s = dump(n);
	assert_string_equal(s, want);
	free(s);
}

/* A scratch directory of files for include tests; removed at teardown. */
struct scratch {
	char dir[64];
	char files[16][128];
	int n;
};

static const char *scratch_write(struct scratch *s, const char *rel, const char *text)
{
	assert_true(s->n < (int)(sizeof(s->files) / sizeof(s->files[0])));
	char *p = s->files[s->n++];
	char full[sizeof(s->files[0])];
	snprintf(full, sizeof(full), "%s/%s", s->dir, rel);
	memcpy(p, full, sizeof(full));
	char *slash = strrchr(p, '/');
	*slash = '\0';
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
	*slash = '/';
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static int scratch_setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/mobisim-cfgtest-XXXXXX");
	if (!mkdtemp(s->dir))
		return -1;
	*state = s;
	return 0;
}

static int scratch_teardown(void **state)
{
	struct scratch *s = *state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	int rc = system(cmd);
	free(s);
	return rc == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ units */

static void test_config_time_units(void **state)
{
	struct sim_error err;
	int64_t v;
	static const struct {
		const char *s, *bare;
		int64_t ns;
	} good[] = {
		{ "100us", "ns", 100000 },
		{ "8 ms", "ns", 8000000 },
		{ "1.5s", "ns", 1500000000 },
		{ "2min", "ns", 120000000000LL },
		{ "7", "us", 7000 },         /* bare number in the bare unit */
		{ "7", "ms", 7000000 },
		{ "0.25", "ms", 250000 },    /* fraction in bare unit */
		{ "3\xc2\xb5s", "ns", 3000 }, /* micro sign */
		{ "3\xce\xbcs", "ns", 3000 }, /* Greek mu */
		{ "  42ns  ", "us", 42 },    /* explicit unit beats bare unit */
		{ "1e3us", "ns", 1000000 },
		{ "1.5ns", "ns", 2 },        /* rounded to integral ns */
		{ "-5ms", "ns", -5000000 },  /* sign is the caller's range check */
		{ "9223372036854775807ns", "ns", INT64_MAX },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = -123;
		int rc = cfg_parse_time_ns(good[i].s, good[i].bare, &v, &err);
		if (rc)
			fail_msg("'%s' rejected: %s", good[i].s, err.msg);
		assert_int_equal(v, good[i].ns);
	}
	static const char *const bad[] = { "", "abc", "10 parsecs", "ms", "1.2.3s", "5 m s",
					   "0x10us", "1e400s" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cfg_parse_time_ns(bad[i], "us", &v, &err), SIM_E_INPUT);
		assert_non_null(strstr(err.msg, "expected a time like 100us, 8ms, 2s"));
	}
	/* overflow of int64 ns: 10^10 s = 10^19 ns */
	assert_int_equal(cfg_parse_time_ns("10000000000s", "us", &v, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "too large"));
	assert_int_equal(cfg_parse_time_ns("9223372036854775808ns", "ns", &v, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "too large"));
}

static void test_config_size_units(void **state)
{
	struct sim_error err;
	uint64_t v;
	static const struct {
		const char *s, *bare;
		uint64_t b;
	} good[] = {
		{ "4096", "B", 4096 },
		{ "4KiB", "B", 4096 },
		{ "4 KiB", "B", 4096 },
		{ "512", "KiB", 524288 },
		{ "1MiB", "B", 1048576 },
		{ "1GiB", "B", 1073741824ULL },
		{ "1TiB", "B", 1099511627776ULL },
		{ "1KB", "B", 1000 },
		{ "1MB", "B", 1000000 },
		{ "2GB", "B", 2000000000ULL },
		{ "8sectors", "B", 4096 },
		{ "8", "sectors", 4096 },
		{ "1.5KiB", "B", 1536 },
		{ "0", "MiB", 0 },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int rc = cfg_parse_size_bytes(good[i].s, good[i].bare, &v, &err);
		if (rc)
			fail_msg("'%s' rejected: %s", good[i].s, err.msg);
		assert_int_equal(v, good[i].b);
	}
	static const char *const bad[] = { "", "big", "4 KIB", "4kib", "1EiB", "4K" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cfg_parse_size_bytes(bad[i], "B", &v, &err), SIM_E_INPUT);
		assert_non_null(strstr(err.msg, "expected a size like"));
	}
	assert_int_equal(cfg_parse_size_bytes("-1", "B", &v, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "negative"));
	/* 2^34 GiB = 2^64 bytes: one past uint64 */
	assert_int_equal(cfg_parse_size_bytes("17179869184GiB", "B", &v, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "too large"));
	assert_int_equal(cfg_parse_size_bytes("17179869183GiB", "B", &v, &err), 0);
	assert_int_equal(v, 17179869183ULL << 30);
}

static void test_config_rate_units(void **state)
{
	struct sim_error err;
	double v;
	static const struct {
		const char *s, *bare;
		double bps;
	} good[] = {
		{ "400MB/s", "B/s", 400e6 },
		{ "400", "MB/s", 400e6 },
		{ "1.5GiB/s", "B/s", 1.5 * 1073741824.0 },
		{ "10KiB/s", "B/s", 10240 },
		{ "100Mbps", "B/s", 12.5e6 }, /* bits */
		{ "1Gbps", "MB/s", 125e6 },
		{ "3 GB/s", "B/s", 3e9 },
		{ "250KB/s", "B/s", 250e3 },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int rc = cfg_parse_rate_bps(good[i].s, good[i].bare, &v, &err);
		if (rc)
			fail_msg("'%s' rejected: %s", good[i].s, err.msg);
		assert_float_equal(v, good[i].bps, good[i].bps * 1e-12);
	}
	static const char *const bad[] = { "", "fast", "400MB", "1e400MB/s", "5 MB /s" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cfg_parse_rate_bps(bad[i], "B/s", &v, &err), SIM_E_INPUT);
		assert_non_null(strstr(err.msg, "expected a rate like"));
	}
}

static void test_config_scalar_parsers(void **state)
{
	struct sim_error err;
	int64_t i;
	double d;
	bool b;

	assert_int_equal(cfg_parse_int("42", &i, &err), 0);
	assert_int_equal(i, 42);
	assert_int_equal(cfg_parse_int("-1", &i, &err), 0);
	assert_int_equal(i, -1);
	assert_int_equal(cfg_parse_int("0x1f", &i, &err), 0);
	assert_int_equal(i, 31);
	assert_int_equal(cfg_parse_int("9223372036854775807", &i, &err), 0);
	assert_int_equal(i, INT64_MAX);
	assert_int_equal(cfg_parse_int("9223372036854775808", &i, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "out of range"));
	assert_int_equal(cfg_parse_int("-9223372036854775809", &i, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "out of range"));
	static const char *const badint[] = { "", "1.5", "12abc", "ten", "0x", "--1", "1e3" };
	for (size_t k = 0; k < sizeof(badint) / sizeof(badint[0]); k++) {
		assert_int_equal(cfg_parse_int(badint[k], &i, &err), SIM_E_INPUT);
		assert_non_null(strstr(err.msg, "expected an integer"));
	}

	assert_int_equal(cfg_parse_double("0.5", &d, &err), 0);
	assert_float_equal(d, 0.5, 0);
	assert_int_equal(cfg_parse_double("1e-3", &d, &err), 0);
	assert_float_equal(d, 1e-3, 1e-18);
	assert_int_equal(cfg_parse_double("-3", &d, &err), 0);
	assert_float_equal(d, -3, 0);
	static const char *const baddbl[] = { "", "inf", "nan", "1e400", "0.5x", "infinity" };
	for (size_t k = 0; k < sizeof(baddbl) / sizeof(baddbl[0]); k++) {
		assert_int_equal(cfg_parse_double(baddbl[k], &d, &err), SIM_E_INPUT);
		assert_non_null(strstr(err.msg, "expected a finite number"));
	}

	static const char *const yes[] = { "true", "yes", "on", "1", "True", "YES" };
	static const char *const no[] = { "false", "no", "off", "0", "False", "OFF" };
	for (size_t k = 0; k < 6; k++) {
		b = false;
		assert_int_equal(cfg_parse_bool(yes[k], &b, &err), 0);
		assert_true(b);
		assert_int_equal(cfg_parse_bool(no[k], &b, &err), 0);
		assert_false(b);
	}
	assert_int_equal(cfg_parse_bool("maybe", &b, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "expected a boolean"));
	assert_int_equal(cfg_parse_bool("2", &b, &err), SIM_E_INPUT);
}

/* ----------------------------------------------------------- param tables */

struct demo {
	int64_t slice_idle_ns;
	uint64_t max_bytes;
	double bw_bps;
	int sched;
	bool low_latency;
	const char *name;
	int64_t depth;
	double weight;
};

static const char *const demo_scheds[] = { "noop", "deadline", "cfq", NULL };

static const struct cfg_param demo_params[] = {
	{ .key = "slice_idle_us", .type = CFG_T_TIME, .offset = offsetof(struct demo, slice_idle_ns),
	  .unit = "us", .def = "8ms", .min = 0, .max = 1000000, .source = "test", .help = "idle" },
	{ .key = "max_kib", .type = CFG_T_SIZE, .offset = offsetof(struct demo, max_bytes),
	  .unit = "KiB", .def = "512", .min = 4, .max = 32768, .source = "test", .help = "max" },
	{ .key = "bw_mbps", .type = CFG_T_RATE, .offset = offsetof(struct demo, bw_bps),
	  .unit = "MB/s", .def = "400", CFG_NO_RANGE, .source = "test", .help = "bw" },
	{ .key = "sched", .type = CFG_T_ENUM, .offset = offsetof(struct demo, sched), .unit = "",
	  .def = "cfq", CFG_NO_RANGE, .source = "test", .help = "s", .choices = demo_scheds },
	{ .key = "low_latency", .type = CFG_T_BOOL, .offset = offsetof(struct demo, low_latency),
	  .unit = "", .def = "yes", CFG_NO_RANGE, .source = "test", .help = "ll" },
	{ .key = "name", .type = CFG_T_STRING, .offset = offsetof(struct demo, name), .unit = "",
	  .def = "anon", CFG_NO_RANGE, .source = "test", .help = "n" },
	{ .key = "depth", .type = CFG_T_INT, .offset = offsetof(struct demo, depth), .unit = "",
	  .def = "32", .min = 1, .max = 256, .source = "test", .help = "d" },
	{ .key = "weight", .type = CFG_T_DOUBLE, .offset = offsetof(struct demo, weight),
	  .unit = "", .def = "0.5", .min = 0, .max = 1, .source = "test", .help = "w" },
	CFG_PARAM_END
};

static void test_config_apply_defaults_and_values(void **state)
{
	struct sim_error err;
	struct demo d;
	memset(&d, 0xff, sizeof(d));
	assert_int_equal(cfg_apply(demo_params, NULL, &d, &err), 0);
	assert_int_equal(d.slice_idle_ns, 8000000);
	assert_int_equal(d.max_bytes, 512 * 1024);
	assert_float_equal(d.bw_bps, 400e6, 1e-3);
	assert_int_equal(d.sched, 2);
	assert_true(d.low_latency);
	assert_string_equal(d.name, "anon");
	assert_int_equal(d.depth, 32);

	struct cfg_doc *doc = load("cfq:\n"
				   "  slice_idle_us: 100\n"
				   "  max_kib: 1MiB\n"
				   "  bw_mbps: 1Gbps\n"
				   "  sched: deadline\n"
				   "  low_latency: off\n"
				   "  name: emmc\n"
				   "  depth: 0x10\n",
				   &err);
	struct cfg_node *cfq = cfg_get(cfg_root(doc), "cfq");
	assert_int_equal(cfg_apply(demo_params, cfq, &d, &err), 0);
	assert_int_equal(d.slice_idle_ns, 100000); /* bare number in us */
	assert_int_equal(d.max_bytes, 1048576);
	assert_float_equal(d.bw_bps, 125e6, 1e-3);
	assert_int_equal(d.sched, 1);
	assert_false(d.low_latency);
	assert_ptr_equal(d.name, cfg_get(cfq, "name")->value); /* points into the doc */
	assert_int_equal(d.depth, 16);
	assert_float_equal(d.weight, 0.5, 0);
	assert_true(cfg_get(cfq, "depth")->used);
	assert_int_equal(cfg_check_unused(cfg_root(doc), &err), 0);

	/* echo in the table's units */
	json_t *j = cfg_params_to_json(demo_params, &d);
	char *s = json_dumps(j, JSON_COMPACT);
	assert_string_equal(s, "{\"slice_idle_us\":100,\"max_kib\":1024,\"bw_mbps\":125.0,"
			       "\"sched\":\"deadline\",\"low_latency\":false,\"name\":\"emmc\","
			       "\"depth\":16,\"weight\":0.5}");
	free(s);
	json_decref(j);

	/* the help table names every key with its prefix, aligned */
	char buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	cfg_params_print(demo_params, "cfq", f);
	fclose(f);
	assert_non_null(strstr(buf, "cfq.slice_idle_us"));
	assert_non_null(strstr(buf, "[0, 1000000]"));
	assert_non_null(strstr(buf, "noop|deadline|cfq"));
	char *l1 = strstr(buf, "\ncfq.slice_idle_us"), *l2 = strstr(buf, "\ncfq.max_kib");
	assert_non_null(l1);
	assert_non_null(l2);
	assert_int_equal(strstr(l1, "8ms") - l1, strstr(l2, "512") - l2); /* aligned column */
	cfg_free(doc);
}

static void test_config_apply_out_of_range(void **state)
{
	struct sim_error err;
	struct demo d;
	struct cfg_doc *doc = load("x: 1\ncfq:\n  slice_idle_us: 2000000\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_string_equal(err.msg,
			    "t.yaml:3:18: cfq.slice_idle_us: 2000000 is out of range [0, 1000000] us");
	cfg_free(doc);

	/* a value with a unit is checked in the bare unit */
	doc = load("cfq: {slice_idle_us: 2s}\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "2000000 is out of range [0, 1000000] us"));
	cfg_free(doc);

	/* negative time: rejected even though the parser accepts the sign */
	doc = load("cfq: {slice_idle_us: -1ms}\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.yaml:1:22: cfq.slice_idle_us:"));
	cfg_free(doc);

	doc = load("cfq: {max_kib: 2}\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:1:16: cfq.max_kib: 2 is out of range [4, 32768] KiB");
	cfg_free(doc);

	doc = load("cfq: {weight: 1.5}\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:1:15: cfq.weight: 1.5 is out of range [0, 1]");
	cfg_free(doc);

	/* the parser's message keeps its "expected" hint behind the location */
	doc = load("cfq:\n  slice_idle_us: soon\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.yaml:2:18: cfq.slice_idle_us: 'soon': expected a time"));
	cfg_free(doc);
}

static void test_config_apply_enum_and_shape_errors(void **state)
{
	struct sim_error err;
	struct demo d;
	struct cfg_doc *doc = load("cfq:\n  sched: bfq\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:2:10: cfq.sched: 'bfq' is not one of: noop, deadline, cfq "
				     "(did you mean 'cfq'?)");
	cfg_free(doc);
	/* nothing near: the list alone */
	doc = load("cfq:\n  sched: kyber\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:2:10: cfq.sched: 'kyber' is not one of: noop, deadline, cfq");
	cfg_free(doc);

	doc = load("cfq:\n  depth: [1, 2]\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:2:10: cfq.depth: expected an integer, not a sequence");
	cfg_free(doc);

	doc = load("cfq:\n  name:\n    first: a\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:3:5: cfq.name: expected a string, not a map");
	cfg_free(doc);

	doc = load("cfq: 5\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:1:6: cfq: expected a map of parameters, not a scalar");
	cfg_free(doc);

	/* an empty section means all defaults */
	doc = load("cfq:\n", &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err), 0);
	assert_int_equal(d.depth, 32);
	assert_int_equal(cfg_check_unused(cfg_root(doc), &err), 0);
	cfg_free(doc);
}

static void test_config_apply_bad_default_and_required(void **state)
{
	struct sim_error err;
	struct { int64_t t; } o;
	static const struct cfg_param bad[] = {
		{ .key = "timeout_ms", .type = CFG_T_TIME, .offset = 0, .unit = "ms", .def = "soon",
		  CFG_NO_RANGE, .source = "test", .help = "t" },
		CFG_PARAM_END
	};
	assert_int_equal(cfg_apply(bad, NULL, &o, &err), SIM_E_RUNTIME);
	assert_non_null(strstr(err.msg, "timeout_ms"));
	assert_non_null(strstr(err.msg, "default"));

	static const struct cfg_param outside[] = {
		{ .key = "timeout_ms", .type = CFG_T_TIME, .offset = 0, .unit = "ms", .def = "5s",
		  .min = 0, .max = 100, .source = "test", .help = "t" },
		CFG_PARAM_END
	};
	assert_int_equal(cfg_apply(outside, NULL, &o, &err), SIM_E_RUNTIME);
	assert_non_null(strstr(err.msg, "timeout_ms"));

	static const struct cfg_param badunit[] = {
		{ .key = "timeout_kib", .type = CFG_T_TIME, .offset = 0, .unit = "KiB", .def = "1",
		  CFG_NO_RANGE, .source = "test", .help = "t" },
		CFG_PARAM_END
	};
	assert_int_equal(cfg_apply(badunit, NULL, &o, &err), SIM_E_RUNTIME);
	assert_non_null(strstr(err.msg, "'timeout_kib' has unknown unit 'KiB'"));

	static const struct cfg_param req[] = {
		{ .key = "timeout_ms", .type = CFG_T_TIME, .offset = 0, .unit = "ms", .def = NULL,
		  CFG_NO_RANGE, .source = "test", .help = "how long" },
		CFG_PARAM_END
	};
	struct cfg_doc *doc = load("x:\n  other: 1\n", &err);
	assert_int_equal(cfg_apply(req, cfg_get(cfg_root(doc), "x"), &o, &err), SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:1:1: x: missing required key 'timeout_ms' (how long)");
	cfg_free(doc);
}

/* ------------------------------------------------------- tree and errors */

static void test_config_positions_and_paths(void **state)
{
	struct sim_error err;
	struct cfg_doc *doc = load("# comment\n"
				   "workload:\n"
				   "  tasks:\n"
				   "    - name: app\n"
				   "    - name: bg\n"
				   "      nice: 10\n",
				   &err);
	struct cfg_node *n = cfg_lookup(cfg_root(doc), "workload.tasks[1].nice");
	assert_non_null(n);
	assert_string_equal(n->value, "10");
	assert_int_equal(n->line, 6);
	assert_int_equal(n->col, 13);
	assert_int_equal(n->key_line, 6);
	assert_int_equal(n->key_col, 7);
	assert_string_equal(n->file, "t.yaml");
	char buf[128];
	assert_string_equal(cfg_node_path(n, buf, sizeof(buf)), "workload.tasks[1].nice");
	assert_null(cfg_lookup(cfg_root(doc), "workload.tasks[2]"));
	assert_null(cfg_lookup(cfg_root(doc), "workload.tasks.name"));
	assert_null(cfg_lookup(cfg_root(doc), "workload..tasks"));
	assert_null(cfg_get(n, "x")); /* not a map */

	/* cfg_get_str marks the node and its ancestors used */
	struct cfg_node *t0 = cfg_lookup(cfg_root(doc), "workload.tasks[0]");
	assert_string_equal(cfg_get_str(t0, "name"), "app");
	assert_true(cfg_get(t0, "name")->used);
	assert_true(cfg_get(cfg_root(doc), "workload")->used);
	assert_null(cfg_get_str(t0, "absent"));
	cfg_free(doc);
}

static void test_config_unknown_key(void **state)
{
	struct sim_error err;
	struct demo d;
	struct cfg_doc *doc = load("cfq:\n"
				   "  slice_idle_us: 0\n"
				   "  slice_idel_us: 5\n"
				   "extra:\n"
				   "  a: 1\n",
				   &err);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err), 0);
	/* a child of a consumed map is reported at its key, in document order */
	assert_int_equal(cfg_check_unused(cfg_root(doc), &err), SIM_E_INPUT);
	/* with the nearest key the module reads there (one transposition) */
	assert_string_equal(err.msg,
			    "t.yaml:3:3: cfq.slice_idel_us: unknown key (did you mean 'slice_idle_us'?)");
	cfg_mark_used(cfg_lookup(cfg_root(doc), "cfq.slice_idel_us"), false);
	/* a whole unconsumed map is reported at its own key, not its children */
	assert_int_equal(cfg_check_unused(cfg_root(doc), &err), SIM_E_INPUT);
	/* nothing near: the keys read there */
	assert_string_equal(err.msg, "t.yaml:4:1: extra: unknown key (keys read here: cfq)");
	cfg_mark_used(cfg_get(cfg_root(doc), "extra"), true);
	assert_int_equal(cfg_check_unused(cfg_root(doc), &err), 0);
	cfg_free(doc);
}

static void test_config_duplicate_key(void **state)
{
	struct sim_error err;
	assert_int_equal(load_err("a: 1\nb:\n  x: 1\n  y: 2\n  x: 3\n", &err), SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:5:3: b.x: duplicate key (first at line 3 column 3)");
	assert_int_equal(load_err("{a: 1, a: 2}", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.yaml:1:8: a: duplicate key"));
}

static void test_config_bad_yaml(void **state)
{
	struct sim_error err;
	/* unclosed flow sequence: libyaml's 0-based mark becomes 2:2 */
	assert_int_equal(load_err("a: [1, 2\nb: 3\n", &err), SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:2:2: YAML syntax error: did not find expected ',' or ']' "
				     "(while parsing a flow sequence at line 1 column 4)");
	/* a tab used for indentation */
	assert_int_equal(load_err("a:\n\tb: 1\n", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.yaml:2:1: YAML syntax error"));
	/* bad indentation */
	assert_int_equal(load_err("a: 1\n b: 2\n", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.yaml:2:3: YAML syntax error: mapping values"));
	/* unterminated quote */
	assert_int_equal(load_err("a: \"abc\n", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "quoted scalar at line 1 column 4"));
	/* aliases are rejected with a reason */
	assert_int_equal(load_err("x: &a 1\ny: *a\n", &err), SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:2:4: YAML aliases (*a) are not supported; "
				     "write the value out or use include:");
	/* non-scalar key */
	assert_int_equal(load_err("? [1]\n: 2\n", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "map keys must be scalars"));
	/* two documents; top level not a map */
	assert_int_equal(load_err("a: 1\n---\nb: 2\n", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.yaml:2:1: only one YAML document"));
	assert_int_equal(load_err("- 1\n- 2\n", &err), SIM_E_INPUT);
	assert_string_equal(err.msg, "t.yaml:1:1: the top level must be a map of keys, not a sequence");
	/* invalid UTF-8 is a reader error with a byte offset */
	assert_int_equal(load_err("a: \xff\xfe\n", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "t.yaml: byte 3:"));

	/* nesting is bounded: 100 levels of [ */
	char deep[256];
	memset(deep, '[', 100);
	strcpy(deep + 100, "1");
	memset(deep + 101, ']', 100);
	deep[201] = '\0';
	char text[300];
	snprintf(text, sizeof(text), "a: %s\n", deep);
	assert_int_equal(load_err(text, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "nesting deeper than 64 levels"));

	/* empty input is an empty map */
	struct cfg_doc *doc = load("# nothing\n", &err);
	assert_int_equal(cfg_root(doc)->kind, CFG_MAP);
	assert_null(cfg_root(doc)->child);
	cfg_free(doc);

	/* missing file */
	assert_int_equal(cfg_load_file("/nonexistent/x.yaml", &doc, &err), SIM_E_IO);
	assert_null(doc);
	assert_non_null(strstr(err.msg, "/nonexistent/x.yaml: cannot read"));
}

static void test_config_to_json_typing(void **state)
{
	struct sim_error err;
	struct cfg_doc *doc = load("i: 42\n"
				   "neg: -7\n"
				   "hex: 0x10\n"
				   "r: 2.5\n"
				   "e: 1e3\n"
				   "t: true\n"
				   "f: False\n"
				   "n: ~\n"
				   "empty:\n"
				   "q: '42'\n"
				   "tagged: !!str 7\n"
				   "s: hello\n"
				   "unit: 8ms\n"
				   "yes_word: yes\n"
				   "big: 99999999999999999999\n"
				   "l: [1, a, {k: null}]\n",
				   &err);
	assert_json(cfg_root(doc), "{\"i\":42,\"neg\":-7,\"hex\":16,\"r\":2.5,\"e\":1000.0,\"t\":true,"
				   "\"f\":false,\"n\":null,\"empty\":null,\"q\":\"42\",\"tagged\":\"7\","
				   "\"s\":\"hello\",\"unit\":\"8ms\",\"yes_word\":\"yes\","
				   "\"big\":1e20,\"l\":[1,\"a\",{\"k\":null}]}");
	cfg_free(doc);
}

static void test_config_key_order_deterministic(void **state)
{
	struct sim_error err;
	const char *text = "zeta: 1\nalpha: 2\nmid: {c: 1, b: 2, a: 3}\n";
	struct cfg_doc *a = load(text, &err), *b = load(text, &err);
	/* document order, not sorted, not hashed; same bytes twice */
	char *sa = dump(cfg_root(a)), *sb = dump(cfg_root(b));
	assert_string_equal(sa, "{\"zeta\":1,\"alpha\":2,\"mid\":{\"c\":1,\"b\":2,\"a\":3}}");
	assert_string_equal(sa, sb);
	free(sa);
	free(sb);
	cfg_free(a);
	cfg_free(b);
}

/* ---------------------------------------------------------------- include */

static void test_config_include_merge(void **state)
{
	struct scratch *s = *state;
	struct sim_error err;
	scratch_write(s, "devices/ufs20.yaml",
		      "type: ufs\n"
		      "dies: 4\n"
		      "timing:\n"
		      "  read_us: 50\n"
		      "  write_us: 300\n"
		      "channels: [1, 2]\n");
	const char *top = scratch_write(s, "scenarios/s.yaml",
					"seed: 1\n"
					"device: {include: ../devices/ufs20.yaml, dies: 8, timing: {write_us: 200}}\n"
					"tail: 2\n");
	struct cfg_doc *doc;
	assert_int_equal(cfg_load_file(top, &doc, &err), 0);
	/* included keys take the include's place; the including map wins;
	 * nested maps merge key by key; include itself is gone */
	assert_json(cfg_root(doc), "{\"seed\":1,\"device\":{\"type\":\"ufs\",\"channels\":[1,2],"
				   "\"dies\":8,\"timing\":{\"write_us\":200,\"read_us\":50}},\"tail\":2}");
	struct cfg_node *rd = cfg_lookup(cfg_root(doc), "device.timing.read_us");
	assert_non_null(strstr(rd->file, "devices/ufs20.yaml"));
	assert_int_equal(rd->line, 4);
	assert_int_equal(rd->col, 12);
	struct cfg_node *dies = cfg_lookup(cfg_root(doc), "device.dies");
	assert_string_equal(dies->file, top);
	assert_null(cfg_lookup(cfg_root(doc), "device.include"));
	/* nothing left to report once consumed: include keys are not "unknown" */
	cfg_mark_used(cfg_root(doc), true);
	assert_int_equal(cfg_check_unused(cfg_root(doc), &err), 0);
	cfg_free(doc);
}

static void test_config_include_list_order(void **state)
{
	struct scratch *s = *state;
	struct sim_error err;
	scratch_write(s, "a.yaml", "x: a\ny: a\nm: {p: a}\n");
	scratch_write(s, "b.yaml", "y: b\nz: b\nm: {q: b}\n");
	scratch_write(s, "inner/c.yaml", "include: ../a.yaml\nx: c\n");
	const char *top = scratch_write(s, "top.yaml", "include: [a.yaml, b.yaml]\nz: top\n");
	struct cfg_doc *doc;
	assert_int_equal(cfg_load_file(top, &doc, &err), 0);
	/* later files override earlier ones; the including file overrides all */
	assert_json(cfg_root(doc), "{\"x\":\"a\",\"y\":\"b\",\"m\":{\"p\":\"a\",\"q\":\"b\"},\"z\":\"top\"}");
	cfg_free(doc);

	/* includes nest, each relative to its own file; included keys take
	 * the include's place, the including file's keys keep theirs */
	top = scratch_write(s, "top2.yaml", "include: inner/c.yaml\n");
	assert_int_equal(cfg_load_file(top, &doc, &err), 0);
	assert_json(cfg_root(doc), "{\"y\":\"a\",\"m\":{\"p\":\"a\"},\"x\":\"c\"}");
	cfg_free(doc);
}

static void test_config_include_cycle_and_missing(void **state)
{
	struct scratch *s = *state;
	struct sim_error err;
	const char *a = scratch_write(s, "cyc/a.yaml", "k: 1\ninclude: b.yaml\n");
	scratch_write(s, "cyc/b.yaml", "sub:\n  include: a.yaml\n");
	struct cfg_doc *doc;
	assert_int_equal(cfg_load_file(a, &doc, &err), SIM_E_INPUT);
	assert_null(doc);
	/* names the include line that closes the cycle, and where it came from */
	assert_non_null(strstr(err.msg, "cyc/b.yaml:2:12: sub.include: include cycle: "));
	assert_non_null(strstr(err.msg, "a.yaml -> "));
	assert_non_null(strstr(err.msg, "(included from "));

	const char *self = scratch_write(s, "self.yaml", "include: [self.yaml]\n");
	assert_int_equal(cfg_load_file(self, &doc, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "self.yaml:1:11: include[0]: include cycle"));

	const char *m = scratch_write(s, "missing.yaml", "a: 1\ndevice:\n  include: nope.yaml\n");
	assert_int_equal(cfg_load_file(m, &doc, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "missing.yaml:3:12: device.include: cannot include '"));
	assert_non_null(strstr(err.msg, "nope.yaml': No such file or directory"));

	const char *bad = scratch_write(s, "bad.yaml", "include: {a: 1}\n");
	assert_int_equal(cfg_load_file(bad, &doc, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "expected a file name or a list of file names"));

	/* an error inside an included file names that file */
	scratch_write(s, "broken.yaml", "a: [1\n");
	const char *inc = scratch_write(s, "incbroken.yaml", "x: 1\ninclude: broken.yaml\n");
	assert_int_equal(cfg_load_file(inc, &doc, &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "broken.yaml:2:1: YAML syntax error"));
	assert_non_null(strstr(err.msg, "incbroken.yaml:2:10)"));

	/* a diamond (same file twice, no cycle) is fine */
	scratch_write(s, "leaf.yaml", "v: 1\n");
	const char *dia = scratch_write(s, "dia.yaml", "p: {include: leaf.yaml}\nq: {include: leaf.yaml}\n");
	assert_int_equal(cfg_load_file(dia, &doc, &err), 0);
	assert_json(cfg_root(doc), "{\"p\":{\"v\":1},\"q\":{\"v\":1}}");
	cfg_free(doc);
}

/* ------------------------------------------------------------------ --set */

static void test_config_set_creates_and_replaces(void **state)
{
	struct sim_error err;
	struct cfg_doc *doc = load("device:\n  dies: 4\n  timing: {read_us: 50}\n"
				   "policies: [baseline, expc]\nempty:\n",
				   &err);
	assert_int_equal(cfg_set(doc, "device.dies=8", &err), 0);
	assert_int_equal(cfg_set(doc, "cfq.slice_idle_us=0", &err), 0);       /* creates cfq */
	assert_int_equal(cfg_set(doc, "device.timing=fast", &err), 0);        /* map -> scalar */
	assert_int_equal(cfg_set(doc, "policies[1]=boost", &err), 0);         /* list item */
	assert_int_equal(cfg_set(doc, "policies[2]=expc", &err), 0);          /* append */
	assert_int_equal(cfg_set(doc, "empty.x = 1", &err), 0);               /* null -> map */
	assert_int_equal(cfg_set(doc, "workload={tasks: [{name: a}], n: 2}", &err), 0);
	assert_int_equal(cfg_set(doc, "workload.tasks[0].name=b", &err), 0);
	assert_int_equal(cfg_set(doc, "list=[1, 2]", &err), 0);
	assert_int_equal(cfg_set(doc, "label='007'", &err), 0);               /* quoted stays a string */
	assert_json(cfg_root(doc),
		    "{\"device\":{\"dies\":8,\"timing\":\"fast\"},\"policies\":[\"baseline\",\"boost\",\"expc\"],"
		    "\"empty\":{\"x\":1},\"cfq\":{\"slice_idle_us\":0},"
		    "\"workload\":{\"tasks\":[{\"name\":\"b\"}],\"n\":2},\"list\":[1,2],\"label\":\"007\"}");
	/* replaced in place keeps document order; new nodes carry --set:N */
	struct cfg_node *dies = cfg_lookup(cfg_root(doc), "device.dies");
	assert_string_equal(dies->file, "--set");
	assert_int_equal(dies->line, 1);
	assert_int_equal(dies->col, 1);
	struct cfg_node *n = cfg_lookup(cfg_root(doc), "workload.n");
	assert_string_equal(n->file, "--set");
	assert_int_equal(n->line, 7);
	/* a value with a unit is kept as text and parsed by the module */
	assert_int_equal(cfg_set(doc, "cfq.slice_idle_us=8ms", &err), 0);
	assert_string_equal(cfg_lookup(cfg_root(doc), "cfq.slice_idle_us")->value, "8ms");
	cfg_free(doc);
}

static void test_config_set_errors(void **state)
{
	struct sim_error err;
	struct cfg_doc *doc = load("device: ufs20\nl: [1, 2]\nm: {a: 1}\n", &err);
	assert_int_equal(cfg_set(doc, "device.dies", &err), SIM_E_INPUT);
	assert_string_equal(err.msg, "--set:1:1: 'device.dies': expected KEY=VALUE");
	assert_int_equal(cfg_set(doc, "=3", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "--set:2:1: '': empty key"));
	assert_int_equal(cfg_set(doc, "a..b=3", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "--set:3:1: 'a..b': empty key"));
	assert_int_equal(cfg_set(doc, "a.=3", &err), SIM_E_INPUT);
	assert_int_equal(cfg_set(doc, "l[x]=3", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "INDEX"));
	assert_int_equal(cfg_set(doc, "l[5]=3", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "index [5] out of range: l has 2 items"));
	assert_int_equal(cfg_set(doc, "m[0]=3", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "m is a map"));
	/* a scalar in the middle of the path is not silently thrown away */
	assert_int_equal(cfg_set(doc, "device.dies=8", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "device is a scalar (t.yaml:1:9), not a map"));
	/* bad flow syntax is reported at the override */
	assert_int_equal(cfg_set(doc, "m=[1, 2", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "--set:9:"));
	assert_non_null(strstr(err.msg, "YAML syntax error"));
	/* a failure deep in the path leaves no half-made maps behind */
	assert_int_equal(cfg_set(doc, "new.x[0]=1", &err), SIM_E_INPUT);
	assert_non_null(strstr(err.msg, "--set:10:1: new.x[0]: 'x' does not exist"));
	/* the tree is unchanged by the failures */
	assert_json(cfg_root(doc), "{\"device\":\"ufs20\",\"l\":[1,2],\"m\":{\"a\":1}}");
	cfg_free(doc);
}

static void test_config_set_unknown_key(void **state)
{
	struct sim_error err;
	struct demo d;
	struct cfg_doc *doc = load("cfq:\n  slice_idle_us: 10\n", &err);
	assert_int_equal(cfg_set(doc, "cfq.slice_idle_us=20", &err), 0);
	assert_int_equal(cfg_set(doc, "cfq.bogus_us=1", &err), 0);
	assert_int_equal(cfg_set(doc, "nosuchmodule.x=1", &err), 0);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err), 0);
	assert_int_equal(d.slice_idle_ns, 20000); /* the override wins */
	assert_int_equal(cfg_check_unused(cfg_root(doc), &err), SIM_E_INPUT);
	assert_string_equal(err.msg, "--set:2:1: cfq.bogus_us: unknown key (keys read here: bw_mbps, "
				     "depth, low_latency, max_kib, name, sched, slice_idle_us, weight)");
	cfg_mark_used(cfg_lookup(cfg_root(doc), "cfq.bogus_us"), false);
	assert_int_equal(cfg_check_unused(cfg_root(doc), &err), SIM_E_INPUT);
	assert_string_equal(err.msg, "--set:3:1: nosuchmodule: unknown key (keys read here: cfq)");
	cfg_free(doc);

	/* an out-of-range override is reported at the override */
	doc = load("cfq: {}\n", &err);
	assert_int_equal(cfg_set(doc, "cfq.slice_idle_us=5s", &err), 0);
	assert_int_equal(cfg_apply(demo_params, cfg_get(cfg_root(doc), "cfq"), &d, &err),
			 SIM_E_INPUT);
	assert_string_equal(err.msg,
			    "--set:1:1: cfq.slice_idle_us: 5000000 is out of range [0, 1000000] us");
	cfg_free(doc);
}

static void test_config_set_include(void **state)
{
	struct scratch *s = *state;
	struct sim_error err;
	const char *dev = scratch_write(s, "dev.yaml", "dies: 4\nplanes: 2\n");
	struct cfg_doc *doc = load("device:\n  dies: 16\n", &err);
	char assign[256];
	snprintf(assign, sizeof(assign), "device.include=%s", dev);
	assert_int_equal(cfg_set(doc, assign, &err), 0);
	/* the scenario's own key still wins over the included preset */
	assert_json(cfg_root(doc), "{\"device\":{\"dies\":16,\"planes\":2}}");
	cfg_free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_time_units),
		cmocka_unit_test(test_config_size_units),
		cmocka_unit_test(test_config_rate_units),
		cmocka_unit_test(test_config_scalar_parsers),
		cmocka_unit_test(test_config_apply_defaults_and_values),
		cmocka_unit_test(test_config_apply_out_of_range),
		cmocka_unit_test(test_config_apply_enum_and_shape_errors),
		cmocka_unit_test(test_config_apply_bad_default_and_required),
		cmocka_unit_test(test_config_positions_and_paths),
		cmocka_unit_test(test_config_unknown_key),
		cmocka_unit_test(test_config_duplicate_key),
		cmocka_unit_test(test_config_bad_yaml),
		cmocka_unit_test(test_config_to_json_typing),
		cmocka_unit_test(test_config_key_order_deterministic),
		cmocka_unit_test_setup_teardown(test_config_include_merge, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_config_include_list_order, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_config_include_cycle_and_missing, scratch_setup,
						scratch_teardown),
		cmocka_unit_test(test_config_set_creates_and_replaces),
		cmocka_unit_test(test_config_set_errors),
		cmocka_unit_test(test_config_set_unknown_key),
		cmocka_unit_test_setup_teardown(test_config_set_include, scratch_setup,
						scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
