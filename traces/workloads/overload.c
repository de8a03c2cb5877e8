/* Open-loop overload guard (see overload.h). */
#include "traces/workloads/overload.h"

#include <inttypes.h>
#include <stdio.h>

#include <jansson.h>

#include "sim/sim.h"
#include "traces/workloads/replay_common.h"

bool overload_admit(struct overload *o, struct sim *s, const char *key, uint64_t outstanding,
		    uint64_t served, uint64_t issued)
{
	if (outstanding > o->peak)
		o->peak = outstanding;
	if (!o->warned && outstanding >= OVERLOAD_WARN_AT) {
		o->warned = true;
		o->warned_at_ns = sim_now(s);
		o->warned_served = served;
		o->warned_issued = issued;
	}
	if (o->max > 0 && outstanding > (uint64_t)o->max) {
		sim_fail(s, SIM_E_RUNTIME,
			 "open-loop overload: %" PRIu64 " requests outstanding at t = %.6f s passes %s = %" PRId64
			 ": the workload offers more than the device serves; served %" PRIu64 " of %" PRIu64
			 " issued. Lower the offered load, replay closed loop, or raise %s (250-350 bytes a request)",
			 outstanding, (double)sim_now(s) / 1e9, key, o->max, served, issued, key);
		return false;
	}
	return true;
}

void overload_json(const struct overload *o, json_t *obj)
{
	json_object_set_new(obj, "peak_outstanding", json_integer((json_int_t)o->peak));
	if (!o->warned)
		return;
	char msg[320];
	snprintf(msg, sizeof(msg),
		 "open-loop overload: %u requests outstanding at t = %.6f s (served %" PRIu64 " of %" PRIu64
		 " issued, peak %" PRIu64 "): the offered load exceeds what the device serves, so latencies "
		 "grow with the run's length",
		 OVERLOAD_WARN_AT, (double)o->warned_at_ns / 1e9, o->warned_served, o->warned_issued,
		 o->peak);
	rpc_json_warning(obj, msg);
}
