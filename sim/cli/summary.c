/* Human summary printed by `mobisim run`: read back from the result
 * document, so the screen and the JSON cannot disagree. */
#include "sim/cli/summary.h"

#include <jansson.h>

#include "sim/metrics.h"
#include "sim/sim.h"

static double num(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return v ? json_number_value(v) : 0.0;
}

static void print_classes(FILE *f, const json_t *classes)
{
	fprintf(f, "%-5s %-6s %10s %10s %10s %10s %10s %10s %10s\n", "class", "op", "count", "MiB",
		"mean_us", "p50_us", "p99_us", "p99.9_us", "max_us");
	for (int c = 0; c < SIM_NCLASS; c++) {
		json_t *cls = json_object_get(classes, sim_class_names[c]);
		for (int op = 0; op < SIM_NOP; op++) {
			json_t *o = json_object_get(cls, sim_op_names[op]);
			if (!o || num(o, "count") == 0)
				continue;
			json_t *lat = json_object_get(o, "lat_ns");
			fprintf(f, "%-5s %-6s %10.0f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n",
				sim_class_names[c], sim_op_names[op], num(o, "count"),
				num(o, "bytes") / 1048576.0, num(lat, "mean") / 1e3,
				num(lat, "p50") / 1e3, num(lat, "p99") / 1e3, num(lat, "p999") / 1e3,
				num(lat, "max") / 1e3);
		}
	}
}

static void print_regions(FILE *f, const json_t *regions)
{
	if (json_array_size(regions) == 0)
		return;
	fprintf(f, "\n%-24s %-24s %12s %12s\n", "region", "task", "start_s", "duration_s");
	size_t i;
	json_t *r;
	json_array_foreach(regions, i, r)
		fprintf(f, "%-24s %-24s %12.6f %12.6f\n", json_string_value(json_object_get(r, "name")),
			json_string_value(json_object_get(r, "task")), num(r, "start_ns") / 1e9,
			num(r, "duration_ns") / 1e9);
}

static void print_waits(FILE *f, const json_t *waits)
{
	if (json_array_size(waits) == 0)
		return;
	fprintf(f, "\n%-16s %-5s %10s %12s %12s %12s\n", "wait cause", "class", "count", "total_ms",
		"avg_ms", "max_ms");
	size_t i;
	json_t *w;
	json_array_foreach(waits, i, w) {
		double n = num(w, "count");
		fprintf(f, "%-16s %-5s %10.0f %12.3f %12.3f %12.3f\n",
			json_string_value(json_object_get(w, "cause")),
			json_string_value(json_object_get(w, "class")), n, num(w, "total_ns") / 1e6,
			n > 0 ? num(w, "total_ns") / n / 1e6 : 0.0, num(w, "max_ns") / 1e6);
	}
}

void summary_print(FILE *f, const struct sim *s, const json_t *res)
{
	json_t *eng = json_object_get(res, "engine");
	json_t *meta = json_object_get(res, "mobisim");
	fprintf(f, "mobisim %s  seed %.0f  replay %s\n",
		json_string_value(json_object_get(meta, "version")), num(meta, "seed"),
		json_string_value(json_object_get(meta, "replay")));
	fprintf(f, "simulated %.6f s in %.3f s wall: %.0f events (%.2f M events/s)\n\n",
		num(eng, "sim_ns") / 1e9, num(eng, "wall_s"), num(eng, "events"),
		num(eng, "events_per_s") / 1e6);
	print_classes(f, json_object_get(res, "classes"));
	print_regions(f, json_object_get(res, "regions"));
	print_waits(f, json_object_get(res, "waits"));
	json_t *dev = json_object_get(res, "device");
	if (dev) {
		double sim_ns = num(eng, "sim_ns");
		fprintf(f, "\ndevice %s: %.0f requests, %.1f MiB, busy %.1f %%\n",
			json_string_value(json_object_get(dev, "model")), num(dev, "requests"),
			num(dev, "bytes") / 1048576.0,
			sim_ns > 0 ? 100.0 * num(dev, "busy_ns") / sim_ns : 0.0);
		/* an array (models/md/md.c): each member's own figures */
		json_t *mem = json_object_get(json_object_get(dev, "md"), "members");
		for (size_t i = 0; i < json_array_size(mem); i++) {
			json_t *md = json_object_get(json_array_get(mem, i), "device");
			fprintf(f, "  member %zu %s: %.0f requests, %.1f MiB, busy %.1f %%\n", i,
				json_string_value(json_object_get(md, "model")), num(md, "requests"),
				num(md, "bytes") / 1048576.0,
				sim_ns > 0 ? 100.0 * num(md, "busy_ns") / sim_ns : 0.0);
		}
	}
	(void)s;
}
