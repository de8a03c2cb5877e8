/* `mobisim list`: what is registered (policies, schedulers, device models,
 * workloads) and what is bundled (device presets, scenarios, platforms). Files are
 * listed in sorted order so the output is stable. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/completion/completion.h"
#include "models/device/device.h"
#include "models/block/elevator.h"
#include "models/policies/policy.h"
#include "sim/cli/cli.h"
#include "sim/config.h"
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
	snprintf(dir, sizeof(dir), "%s/configs/%s", sim_datadir(), sub);
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

/* `list policies [--plugin X.so]...`: built-ins, then what the plugins
 * register, each with its tunables. */
static int list_policies(int argc, char **argv)
{
	struct policy_registry *reg = policy_registry_new();
	if (!reg) {
		fprintf(stderr, "mobisim: out of memory\n");
		return 1;
	}
	size_t builtin = policy_registry_count(reg);
	for (int i = 2; i < argc; i++) {
		const char *path = NULL;
		if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strncmp(argv[i], "--plugin=", 9) == 0)
			path = argv[i] + 9;
		if (!path) {
			fprintf(stderr, "usage: mobisim list policies [--plugin X.so]...\n");
			policy_registry_free(reg);
			return 2;
		}
		struct sim_error err = { 0 };
		if (policy_registry_load_plugin(reg, path, &err)) {
			policy_registry_free(reg);
			return cli_report(&err);
		}
	}
	printf("%-10s %s\n", "baseline", "no policy (the unmodified stack)");
	for (size_t i = 0; i < policy_registry_count(reg); i++) {
		const struct policy_ops *o = policy_registry_at(reg, i);
		printf("%-10s %s%s\n", o->name, o->summary ? o->summary : "",
		       i >= builtin ? " [plugin]" : "");
		for (const struct cfg_param *p = o->params; p && p->key; p++) {
			char key[160];
			snprintf(key, sizeof(key), "%s.%s", o->name, p->key);
			printf("  %-24s default %-8s %s (%s)\n", key, p->def ? p->def : "(required)",
			       p->help ? p->help : "", p->source ? p->source : "");
		}
	}
	policy_registry_free(reg);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: mobisim list policies|schedulers|devices|scenarios|platforms|workloads|completions\n");
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "policies") == 0)
		return list_policies(argc, argv);
	if (argc != 2) {
		fprintf(stderr, "usage: mobisim list policies|schedulers|devices|scenarios|platforms|workloads|completions\n");
		return 2;
	}
	const char *what = argv[1];
	if (strcmp(what, "schedulers") == 0) {
		for (const struct elevator_ops *const *e = elevator_registry(); *e; e++) {
			printf("%-12s %-3s %s\n", (*e)->name, (*e)->mq ? "mq" : "sq",
			       (*e)->summary ? (*e)->summary : "");
			/* the tunables (scheduler: {KEY: VALUE} in a config) */
			for (const struct cfg_param *p = (*e)->params; p && p->key; p++)
				printf("  %-24s default %-8s %-10s %s (%s)\n", p->key, p->def ? p->def : "",
				       p->unit ? p->unit : "", p->help ? p->help : "",
				       p->source ? p->source : "");
		}
	} else if (strcmp(what, "devices") == 0) {
		printf("models:\n");
		for (const struct device_ops *const *d = device_registry(); *d; d++)
			printf("  %-10s %s\n", (*d)->name, (*d)->summary ? (*d)->summary : "");
		printf("presets (device: NAME):\n");
		list_yaml("devices", "  ");
	} else if (strcmp(what, "scenarios") == 0) {
		list_yaml("scenarios", "");
	} else if (strcmp(what, "platforms") == 0) {
		/* phones as they shipped, for a scenario's `include:` (docs/platforms.md) */
		list_yaml("platforms", "");
	} else if (strcmp(what, "completions") == 0) {
		/* completion: {model: NAME, ...}: shared costs, then each model */
		printf("%-10s %s\n", "none", "no completion model: the device completes into the layer above (default)");
		for (const struct completion_ops *const *o = completion_registry(); *o; o++) {
			printf("%-10s %s\n", (*o)->name, (*o)->summary ? (*o)->summary : "");
			for (const struct cfg_param *p = (*o)->params; p && p->key; p++)
				printf("  %-24s default %-8s %s (%s)\n", p->key, p->def ? p->def : "(required)",
				       p->help ? p->help : "", p->source ? p->source : "");
		}
		printf("shared (every model):\n");
		for (const struct cfg_param *p = completion_cost_params(); p->key; p++)
			printf("  %-24s default %-8s %s (%s)\n", p->key, p->def ? p->def : "(required)",
			       p->help ? p->help : "", p->source ? p->source : "");
	} else if (strcmp(what, "workloads") == 0) {
		for (const struct workload_ops *const *w = workload_registry(); *w; w++)
			printf("%-10s %s\n", (*w)->name, (*w)->summary ? (*w)->summary : "");
	} else {
		static const char *const cats[] = { "policies", "schedulers", "devices", "scenarios",
						    "platforms", "workloads", "completions" };
		struct cfg_suggest sg;
		char hint[160];
		cfg_suggest_init(&sg, what);
		for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
			cfg_suggest_add(&sg, cats[i]);
		fprintf(stderr, "mobisim: list: unknown category '%s'%s "
				"(policies, schedulers, devices, scenarios, platforms, workloads, completions)\n", what,
			cfg_suggest_hint(&sg, hint, sizeof(hint)));
		return 2;
	}
	return 0;
}
