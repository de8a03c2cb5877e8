/* Plumbing shared by the launch planners (models/policies/prefetch.c, FAST;
 * models/policies/padding.c, ESL'20): both profile a launch with the
 * launch observer (launchrec.h) into a launch profile (launchprof.h),
 * interpose on the app's op source, and replay a planned op list at the
 * next launch. What is the same in both lives here; what each paper does
 * differently (the plan, who runs it, the figures) stays in the policy.
 * `who` is the policy's name, used as the prefix of its messages.
 */
#ifndef MODELS_LAUNCH_COMMON_H
#define MODELS_LAUNCH_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/launch/launchprof.h"
#include "models/launch/launchrec.h"
#include "models/policies/policy.h"
#include "models/stack/stack.h"
#include "sim/error.h"

struct json_t;
struct sim;

/* One op of a planned load; kind is the policy's own enum. */
struct lcom_step {
	uint8_t kind;
	struct stack_file *file;
	uint64_t off, len;
};

/* Append *s to the array *steps of *n entries and *cap slots (grown by
 * doubling from 64). 0, or SIM_E_NOMEM with the array unchanged. */
int lcom_step_push(struct lcom_step **steps, size_t *n, size_t *cap, const struct lcom_step *s);

/* Load the profile at path into prof once (*loaded says it is done).
 * 0; SIM_E_INPUT "who: ... (record it first with who.mode=record)" when
 * the file cannot be read; other lprof_load errors as they are. */
int lcom_load_profile(struct lprof *prof, bool *loaded, const char *path, struct stack *s,
		      const char *who, struct sim_error *err);

/* The launch is over: stop observing (obs may be NULL) and, in a
 * recording run, save prof to path; a failed save fails the run with
 * "who: <why>". The caller makes sure it runs once per launch. */
void lcom_finish(struct lrec_app *obs, bool record, const struct lprof *prof, const char *path,
		 struct sim *sim, const char *who);

/* Show the app's op to the observer: the files it opens, reads or faults
 * go into its LBA-to-extent tree (out of memory fails the run). True when
 * op ends the launch region (region NULL: never). */
bool lcom_observe(struct lrec_app *obs, const struct stack_op *op, const char *region,
		  struct sim *sim);

/* Add the observer's figures of one launch to o: requests, bytes,
 * avg_request_kib, with helper also prefetch_requests, prefetch_bytes,
 * prefetch_avg_request_kib, then recorded_requests when it recorded. */
void lcom_obs_json(struct json_t *o, const struct lrec_app *r, bool helper);

/* The policy-wide head of the stats: mode, launches,
 * launches_without_profile. */
void lcom_stats_head(struct json_t *obj, const char *mode, uint64_t launches, uint64_t no_profile);

/* The file and offset of the chunk of ws that starts at sector lba (the
 * first such), stored in *file and *off; false, and both untouched, when
 * there is none. A planned read keeps the file of the chunk it starts at. */
bool lcom_ws_origin(const struct policy_working_set *ws, uint64_t lba, struct stack_file **file,
		    uint64_t *off);

/* End a plan_loads hook: on rc == 0, *ws is freed and replaced by *nws;
 * otherwise *nws is freed and *ws kept. Returns rc. */
int lcom_ws_replace(struct policy_working_set *ws, struct policy_working_set *nws, int rc);

#endif
