/* Random streams: one GSL generator per named consumer (source, device,
 * workload task ...), seeded from (run seed, consumer name), so adding a
 * consumer or drawing more numbers in one does not shift any other.
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

struct sim_rng_set;

struct sim_rng_set *sim_rng_set_new(uint64_t seed);
void sim_rng_set_free(struct sim_rng_set *set);
/* The stream named name, created on first request; owned by the set.
 * NULL only on allocation failure. */
gsl_rng *sim_rng_stream(struct sim_rng_set *set, const char *name);
/* Seed derived for (seed, name): used by the set and by sweeps for
 * repetitions. splitmix64 of seed xor FNV-1a(name). */
uint64_t sim_rng_derive_seed(uint64_t seed, const char *name);

#endif
