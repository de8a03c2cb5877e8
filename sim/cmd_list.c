/* `mobisim list`: what is registered (schedulers, device models,
 * workloads) and what is bundled (device presets, scenarios). Files are
 * listed in sorted order so the output is stable. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/device.h"
#include "models/elevator.h"
#include "sim/cli.h"
#include "sim/sim.h"
#include "sim/workload.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Print the .yaml files of datadir/sub, sorted, without the extension. */
static void list_yaml(const char *sub, const char *indent)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/%s", sim_datadir(), sub);
	DIR *d = opendir(dir);
	if (!d) {
		printf("%s(no %s directory at %s)\n", indent, sub, dir);
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0 || e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn)
				break;
			names = nn;
		}
		names[n] = strndup(e->d_name, len - 5);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		printf("%s%s\n", indent, names[i]);
		free(names[i]);
	}
	free(names);
}

int cmd_list(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mobisim list schedulers|devices|scenarios|workloads\n");
		return 2;
	}
	const char *what = argv[1];
	if (strcmp(what, "schedulers") == 0) {
		for (const struct elevator_ops *const *e = elevator_registry(); *e; e++)
			printf("%-10s %s\n", (*e)->name, (*e)->summary ? (*e)->summary : "");
	} else if (strcmp(what, "devices") == 0) {
		printf("models:\n");
		for (const struct device_ops *const *d = device_registry(); *d; d++)
			printf("  %-8s %s\n", (*d)->name, (*d)->summary ? (*d)->summary : "");
		printf("presets (device: NAME):\n");
		list_yaml("devices", "  ");
	} else if (strcmp(what, "scenarios") == 0) {
		list_yaml("scenarios", "");
	} else if (strcmp(what, "workloads") == 0) {
		for (const struct workload_ops *const *w = workload_registry(); *w; w++)
			printf("%-10s %s\n", (*w)->name, (*w)->summary ? (*w)->summary : "");
	} else {
		fprintf(stderr, "mobisim: list: unknown category '%s' "
				"(schedulers, devices, scenarios, workloads)\n", what);
		return 2;
	}
	return 0;
}
