/* Named random streams over GSL's MT19937 (see rng.h).
 *
 * Streams are kept in a small array searched by name: consumers ask once at
 * set-up and keep the pointer, so lookup cost does not matter, and array
 * order never reaches the output (each stream's seed depends only on its
 * name).
 */
#include "sim/rng.h"

#include <stdlib.h>
#include <string.h>

struct rng_stream {
	char *name;
	gsl_rng *r;
};

struct sim_rng_set {
	uint64_t seed;
	struct rng_stream *s;
	size_t n, cap;
};

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t sim_rng_derive_seed(uint64_t seed, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	return splitmix64(seed ^ h);
}

struct sim_rng_set *sim_rng_set_new(uint64_t seed)
{
	struct sim_rng_set *set = calloc(1, sizeof(*set));
	if (set)
		set->seed = seed;
	return set;
}

void sim_rng_set_free(struct sim_rng_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++) {
		gsl_rng_free(set->s[i].r);
		free(set->s[i].name);
	}
	free(set->s);
	free(set);
}

gsl_rng *sim_rng_stream(struct sim_rng_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->s[i].name, name) == 0)
			return set->s[i].r;
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 8;
		struct rng_stream *s = realloc(set->s, cap * sizeof(*s));
		if (!s)
			return NULL;
		set->s = s;
		set->cap = cap;
	}
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	char *copy = strdup(name);
	if (!r || !copy) {
		gsl_rng_free(r);
		free(copy);
		return NULL;
	}
	/* MT19937 takes an unsigned long seed; 0 would select GSL's default. */
	uint64_t s = sim_rng_derive_seed(set->seed, name);
	gsl_rng_set(r, (unsigned long)(s ? s : 1));
	set->s[set->n].name = copy;
	set->s[set->n].r = r;
	set->n++;
	return r;
}
