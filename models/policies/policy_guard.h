/* A guard around a plugin policy's code (models/policies/policy_guard.c):
 * a plugin that crashes or never returns from a hook ends the run with its
 * name and the hook it was in, instead of an anonymous signal or a hang. */
#ifndef MODELS_POLICY_GUARD_H
#define MODELS_POLICY_GUARD_H

/* The CPU time one call into a plugin may take before the run is ended
 * (a loop): MOBISIM_PLUGIN_TIMEOUT seconds in the environment, else this.
 * A choice: the built-in policies' hooks take microseconds. */
#define POLICY_GUARD_LIMIT_S 10.0

/* Install the crash handlers and the CPU-time watchdog (once per process;
 * a forked child re-arms its own). 0, or -1 when the environment's limit
 * is not a positive number (message on stderr). */
int policy_guard_arm(void);
/* About to run policy's hook (strings must outlive the call). */
void policy_guard_enter(const char *policy, const char *plugin, const char *hook);
void policy_guard_leave(void);

#endif
