/* One job slot of a kernel build (`make -j4`): the `kbuild` generator of
 * the synthetic workload (traces/workloads/synthetic.c); the model and its
 * assumptions are in traces/workloads/kbuild.c. */
#ifndef TRACES_WORKLOADS_KBUILD_H
#define TRACES_WORKLOADS_KBUILD_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "models/stack/stack_op.h"
#include "sim/config.h"
#include "sim/error.h"

struct stack;

struct kbuild_p {
	int64_t units;
	uint64_t source_bytes, header_bytes, object_bytes, write_chunk_bytes;
	int64_t headers, headers_per_unit;
	int64_t cpu_per_unit_ns, fork_exec_ns;
};

extern const struct cfg_param kbuild_params[];

struct kbuild;

/* The slot's files (sources and objects under key/, the tree's headers
 * shared by every slot of the stack) and its plan, drawn from rng. 0 or
 * SIM_E_NOMEM. */
int kbuild_create(struct stack *s, const char *key, const struct kbuild_p *p, gsl_rng *rng,
		  struct kbuild **out, struct sim_error *err);
/* The next op; 0 when the slot's units are done. */
int kbuild_next(struct kbuild *k, struct stack_op *op);
void kbuild_free(struct kbuild *k);

#endif
