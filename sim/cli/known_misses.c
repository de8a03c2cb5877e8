/* Known validation misses of a platform's device, noted on stderr by `mobisim run` (table from docs/validation.md's generated Results).
 *
 * `mobisim validate` reports a miss and does not hide it (docs/validation.md);
 * a run on a platform whose device preset misses one of the storage checks
 * would not otherwise say so. This is the one table of them: each row is a
 * row of the Results table of docs/validation.md marked **miss** (the
 * numbers as validate printed them there), tied to the device preset its
 * check runs (`model: {device: {preset: ...}}` in the validation file) and,
 * where the check is about one phone only, to that platform.
 * tests/integration/pixel6a_platform.sh holds every row to docs/validation.md,
 * so a regenerated table that no longer misses shows up there.
 *
 * Which platform and which device a run uses is read from the resolved
 * configuration, not from a label: a platform is a file
 * configs/platforms/NAME.yaml some key of the scenario came from (through
 * `include:`), the device preset the file the device's `model:` came from
 * (configs/devices/NAME.yaml), or the preset `device: NAME` names. So
 * `--set device=ufs40` on the Pixel 9 Pro notes ufs40's misses, not
 * ufs31-wb's. The thesis figures' own misses on the Galaxy S6 are not here
 * (they are results of a scenario, not of the platform alone). */
#include "sim/cli/known_misses.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "sim/config.h"

/* ---------------------------------------------------------------- table */

static const struct known_miss known_misses[] = {
	/* configs/validation/pixel-storage.yaml (Android Authority, August 2024) */
	{ .platform = NULL, .device = "ufs31-wb", .file = "pixel-storage.yaml",
	  .check = "Pixel 9 Pro XL sequential read vs ufs31-wb", .paper = "911 MB/s",
	  .model = "1487", .error = "+63.2 %" },
	{ .platform = NULL, .device = "ufs31-wb", .file = "pixel-storage.yaml",
	  .check = "Pixel 9 sequential read vs ufs31-wb", .paper = "980 MB/s", .model = "1487",
	  .error = "+51.7 %" },
	{ .platform = NULL, .device = "ufs40", .file = "pixel-storage.yaml",
	  .check = "Pixel 9 Pro XL sequential read vs ufs40", .paper = "911 MB/s", .model = "2215",
	  .error = "+143.1 %" },
	/* configs/validation/devices-androbench.yaml (AndroBench reviews) */
	{ .platform = NULL, .device = "ufs31", .file = "devices-androbench.yaml",
	  .check = "UFS 3.1 random read 4 KiB", .paper = "146.4 MB/s", .model = "82.65",
	  .error = "-43.5 %" },
	{ .platform = NULL, .device = "ufs21", .file = "devices-androbench.yaml",
	  .check = "UFS 2.1 random read 4 KiB", .paper = "138 MB/s", .model = "74.25",
	  .error = "-46.2 %" },
	{ .platform = NULL, .device = "ufs20", .file = "devices-androbench.yaml",
	  .check = "UFS 2.0 (Galaxy S6) sequential read", .paper = "350 MB/s", .model = "276.9",
	  .error = "-20.9 %" },
	{ 0 },
};

const struct known_miss *known_misses_table(void)
{
	return known_misses;
}

/* -------------------------------------------------------------- helpers */

/* The stem of path (NAME of .../DIR/NAME.yaml) into buf when its directory
 * is named dir, else false. */
static bool stem_in(const char *path, const char *dir, char *buf, size_t len)
{
	if (!path)
		return false;
	size_t n = strlen(path);
	if (n < 6 || strcmp(path + n - 5, ".yaml") != 0)
		return false;
	const char *slash = strrchr(path, '/');
	if (!slash)
		return false;
	const char *base = slash + 1, *d = slash;
	while (d > path && d[-1] != '/')
		d--;
	if ((size_t)(slash - d) != strlen(dir) || strncmp(d, dir, (size_t)(slash - d)) != 0)
		return false;
	size_t sl = (size_t)(path + n - 5 - base);
	if (sl + 1 > len)
		return false;
	memcpy(buf, base, sl);
	buf[sl] = '\0';
	return true;
}

static const struct cfg_node *child(const struct cfg_node *map, const char *key)
{
	if (!map || map->kind != CFG_MAP)
		return NULL;
	for (const struct cfg_node *c = map->child; c; c = c->next)
		if (c->key && !strcmp(c->key, key))
			return c;
	return NULL;
}

/* Platform stems the tree n took keys from, each once, in document order. */
#define KM_MAX_PLATFORMS 4
struct km_platforms {
	char name[KM_MAX_PLATFORMS][128];
	size_t n;
};

static void find_platforms(const struct cfg_node *n, struct km_platforms *p)
{
	for (; n; n = n->next) {
		char stem[128];
		if (stem_in(n->file, "platforms", stem, sizeof(stem))) {
			bool seen = false;
			for (size_t i = 0; i < p->n; i++)
				seen |= !strcmp(p->name[i], stem);
			if (!seen && p->n < KM_MAX_PLATFORMS)
				snprintf(p->name[p->n++], sizeof(p->name[0]), "%s", stem);
		}
		find_platforms(n->child, p);
	}
}

/* The device preset the run's device is, into buf; false for an inline
 * device map (no preset). */
static bool device_preset(const struct cfg_node *root, char *buf, size_t len)
{
	const struct cfg_node *d = child(root, "device");
	if (!d)
		return false;
	if (d->kind == CFG_SCALAR && d->value) {
		const char *v = d->value, *base = strrchr(v, '/');
		base = base ? base + 1 : v;
		size_t sl = strlen(base);
		if (sl > 5 && !strcmp(base + sl - 5, ".yaml"))
			sl -= 5;
		if (sl == 0 || sl + 1 > len)
			return false;
		memcpy(buf, base, sl);
		buf[sl] = '\0';
		return true;
	}
	const struct cfg_node *m = child(d, "model");
	return m && stem_in(m->file, "devices", buf, len);
}

/* ------------------------------------------------------------------ API */

size_t known_misses_note(FILE *f, const struct cfg_node *root)
{
	struct km_platforms p = { .n = 0 };
	if (!root)
		return 0;
	find_platforms(root->child, &p);
	if (p.n == 0)
		return 0;
	char dev[128];
	bool have_dev = device_preset(root, dev, sizeof(dev));
	size_t named = 0;
	for (const struct known_miss *k = known_misses; k->check; k++) {
		if (k->device && (!have_dev || strcmp(k->device, dev) != 0))
			continue;
		if (k->platform) {
			bool on = false;
			for (size_t i = 0; i < p.n; i++)
				on |= !strcmp(k->platform, p.name[i]);
			if (!on)
				continue;
		}
		if (named++ == 0) {
			fprintf(f, "mobisim: note: platform ");
			for (size_t i = 0; i < p.n; i++)
				fprintf(f, "%s%s", i ? "+" : "", p.name[i]);
			if (have_dev)
				fprintf(f, " (device %s)", dev);
			fprintf(f, ": known validation misses (docs/validation.md):");
		}
		fprintf(f, "%s %s: %s published, %s modelled (%s) [%s]", named > 1 ? ";" : "",
			k->check, k->paper, k->model, k->error, k->file);
	}
	if (named)
		fputc('\n', f);
	return named;
}
