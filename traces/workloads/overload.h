/* Open-loop overload guard shared by the open workloads (block replay with
 * replay: open, the Poisson source). An open loop issues at recorded or
 * drawn times whatever the device does, so when the offered load exceeds
 * what the device serves the backlog, and the memory holding it, grows
 * without bound. The guard warns once the backlog passes OVERLOAD_WARN_AT
 * and stops the run with a message naming what was served when it passes
 * the workload's max_outstanding.
 */
#ifndef TRACES_WORKLOADS_OVERLOAD_H
#define TRACES_WORKLOADS_OVERLOAD_H

#include <stdbool.h>
#include <stdint.h>

struct sim;
struct json_t;

/* Far beyond any device or block queue (nr_requests 128, NVMe 1024): a
 * backlog this deep means the device does not keep up. */
#define OVERLOAD_WARN_AT 10000u

struct overload {
	int64_t max;            /* the workload's max_outstanding */
	uint64_t peak;          /* most outstanding at once */
	bool warned;
	int64_t warned_at_ns;
	uint64_t warned_served, warned_issued;
};

/* One more request is outstanding (outstanding counts it). false when the
 * cap is passed: the run has been stopped with sim_fail naming key (the
 * dotted config key of the cap) and the figures. */
bool overload_admit(struct overload *o, struct sim *s, const char *key, uint64_t outstanding,
		    uint64_t served, uint64_t issued);

/* "peak_outstanding" and, after the warning, "warnings": [text]
 * (`mobisim run` prints a workload's warnings on stderr). */
void overload_json(const struct overload *o, struct json_t *obj);

/* Bytes one outstanding request holds, stated in the cap's help. */
#define OVERLOAD_HELP "requests issued and not completed before an open loop stops (250-350 bytes each)"

#endif
