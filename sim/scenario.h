/* Scenario assembly: which top-level keys build which layer (private to
 * sim.c and scenario.c). */
#ifndef SIM_SCENARIO_H
#define SIM_SCENARIO_H

struct sim;

/* Tear down the layers scenario.c built above the block layer (stack,
 * policies). The device, block queue and workload are freed by sim_destroy. */
void scenario_destroy_layers(struct sim *s);

#endif
