/* `mobisim device curve DEVICE.yaml`: the latency-versus-size curve of a
 * device model, measured by simulating it (models/device/device_curve.c), as TSV
 * for gnuplot (docs/architecture.md §5): one block per queue depth, separated by two
 * blank lines so that gnuplot's `index 0` is QD1 and `index 1` the deeper
 * depth (absent for a device that accepts one command at a time).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/device/device.h"
#include "models/device/device_curve.h"
#include "sim/cli/cli.h"
#include "sim/sim.h"

static void device_usage(FILE *f)
{
	fprintf(f,
		"usage: mobisim device curve DEVICE.yaml|PRESET [options]\n"
		"  --qd N              deeper queue depth to measure (default 32, capped by the device)\n"
		"  --set KEY=VALUE     override a device value (repeatable), e.g. --set dies=8\n"
		"  --requests N        commands per point (default: >= 256 and >= 256 MiB)\n"
		"  --pattern P         random (size-aligned random offsets, default) or seq\n"
		"  --seed N            seed of the offset stream (default 1)\n"
		"Prints TSV: size_kib read_us write_us read_mbps write_mbps (MB/s = 10^6 B/s)\n"
		"for 4 KiB ... 1 MiB; block 0 at QD1, block 1 at the deeper depth.\n");
}

static int parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (*s == '\0' || *end != '\0' || *s == '-' || v > max) {
		fprintf(stderr, "mobisim: %s: '%s' is not an integer in 0..%llu\n", opt, s,
			(unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

/* A bare preset name resolves to DATADIR/devices/NAME.yaml. */
static void resolve_device_path(const char *arg, char *buf, size_t len)
{
	size_t n = strlen(arg);
	if (strchr(arg, '/') || (n > 5 && strcmp(arg + n - 5, ".yaml") == 0))
		snprintf(buf, len, "%s", arg);
	else
		snprintf(buf, len, "%s/configs/devices/%s.yaml", sim_datadir(), arg);
}

static const char *preset_name(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (snprintf(buf, len, "%s", base) >= (int)len) /* a long name is cut: it only labels the output */
		buf[len - 1] = '\0';
	size_t n = strlen(buf);
	if (n > 5 && strcmp(buf + n - 5, ".yaml") == 0)
		buf[n - 5] = '\0';
	return buf;
}

static int curve_block(FILE *f, struct cfg_node *root, uint32_t qd, uint32_t nreq,
		       enum device_curve_pattern pat, uint64_t seed, struct sim_error *err)
{
	fprintf(f, "# qd=%u\n# size_kib\tread_us\twrite_us\tread_mbps\twrite_mbps\n", qd);
	for (uint64_t kib = 4; kib <= 1024; kib *= 2) {
		struct device_curve_result r, w;
		struct device_curve_opts o = {
			.write = false, .bytes = kib << 10, .qd = qd, .nreq = nreq,
			.pattern = pat, .seed = seed,
		};
		int rc = device_curve_measure(root, &o, &r, err);
		if (rc)
			return rc;
		o.write = true;
		rc = device_curve_measure(root, &o, &w, err);
		if (rc)
			return rc;
		fprintf(f, "%llu\t%.2f\t%.2f\t%.2f\t%.2f\n", (unsigned long long)kib, r.lat_us,
			w.lat_us, r.mbps, w.mbps);
	}
	return 0;
}

static int device_curve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "qd", required_argument, NULL, 'q' },
		{ "set", required_argument, NULL, 's' },
		{ "requests", required_argument, NULL, 'n' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char **sets = calloc((size_t)argc + 1, sizeof(char *));
	int nsets = 0, c, status = 2;
	uint64_t qd = 32, nreq = 0, seed = 1;
	enum device_curve_pattern pat = DEVICE_CURVE_RANDOM;

	if (!sets)
		return 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "q:s:n:p:S:h", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			if (parse_u64("--qd", optarg, 256, &qd) || qd == 0) {
				if (qd == 0)
					fprintf(stderr, "mobisim: --qd: must be at least 1\n");
				goto done;
			}
			break;
		case 's':
			sets[nsets++] = optarg;
			break;
		case 'n':
			if (parse_u64("--requests", optarg, 1u << 24, &nreq))
				goto done;
			break;
		case 'p':
			if (strcmp(optarg, "random") == 0)
				pat = DEVICE_CURVE_RANDOM;
			else if (strcmp(optarg, "seq") == 0)
				pat = DEVICE_CURVE_SEQ;
			else {
				fprintf(stderr, "mobisim: --pattern: expected random or seq, got '%s'\n",
					optarg);
				goto done;
			}
			break;
		case 'S': {
			struct sim_error serr;
			if (sim_seed_parse(optarg, &seed, &serr)) {
				cli_report(&serr);
				goto done;
			}
			break;
		}
		case 'h':
			device_usage(stdout);
			status = 0;
			goto done;
		default:
			device_usage(stderr);
			goto done;
		}
	}
	if (optind != argc - 1) {
		device_usage(stderr);
		goto done;
	}

	char path[4096], name[256];
	resolve_device_path(argv[optind], path, sizeof(path));
	struct sim_error err = { 0 };
	struct cfg_doc *doc = NULL;
	int rc = cli_load_scenario(path, sets, nsets, &doc, &err);
	struct sim *probe = NULL;
	struct device *dev = NULL;
	if (!rc) {
		/* build once to validate (and learn the queue depth) before printing */
		probe = sim_new_bare(seed);
		rc = probe ? device_create(probe, cfg_root(doc), &dev, &err)
			   : sim_errorf(&err, SIM_E_NOMEM, "out of memory");
	}
	if (!rc)
		rc = cfg_check_unused(cfg_root(doc), &err);
	if (rc) {
		status = cli_report(&err);
		goto out;
	}
	uint32_t devqd = dev->queue_depth;
	uint32_t deep = (uint32_t)qd;
	if (devqd && deep > devqd)
		deep = devqd;
	char link[64] = "unbounded";
	if (dev->link_bps)
		snprintf(link, sizeof(link), "%.1f MB/s", (double)dev->link_bps / 1e6);
	char blocks[96];
	if (deep > 1)
		snprintf(blocks, sizeof(blocks), ", block 1 = QD%u (gnuplot index 1)", deep);
	else
		snprintf(blocks, sizeof(blocks), " only (%s)",
			 devqd == 1 ? "the device accepts one command" : "--qd 1");
	printf("# mobisim device curve: %s (model %s, device queue depth %u, host link %s), %s offsets, seed %llu;"
	       " block 0 = QD1%s\n",
	       preset_name(path, name, sizeof(name)), dev->ops->name, devqd, link,
	       pat == DEVICE_CURVE_SEQ ? "sequential" : "random aligned", (unsigned long long)seed,
	       blocks);
	rc = curve_block(stdout, cfg_root(doc), 1, (uint32_t)nreq, pat, seed, &err);
	if (!rc && deep > 1) {
		printf("\n\n");
		rc = curve_block(stdout, cfg_root(doc), deep, (uint32_t)nreq, pat, seed, &err);
	}
	status = rc ? cli_report(&err) : 0;
out:
	if (dev)
		device_destroy(dev);
	if (probe)
		sim_destroy(probe);
	cfg_free(doc);
done:
	free(sets);
	return status;
}

int cmd_device(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "curve") == 0)
		return device_curve(argc - 1, argv + 1);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		device_usage(stdout);
		return 0;
	}
	device_usage(stderr);
	return 2;
}
