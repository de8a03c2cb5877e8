/* Plugin fault guard (models/policies/policy_guard.h). A plugin runs in
 * mobisim's own process (dlopen, policy.h), so its fault is the process's:
 * a SIGSEGV in a hook would die as an anonymous crash and a loop would hang
 * a sweep's point forever. While a plugin's hook runs, its name sits in
 * process-wide slots that a signal handler can read; the crash handlers
 * print them and re-raise (the status stays a signal death, which the sweep
 * reports as a crashed point), and a CPU-time timer (ITIMER_VIRTUAL, which
 * counts only this process's user time, so a sleeping or waiting run is
 * never taken for a loop) ends a call that has not returned within the
 * limit with exit 1. These slots are the one piece of global state in the
 * models: a signal handler has no other way to reach them. */
#define _GNU_SOURCE
#include "models/policies/policy_guard.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define GUARD_TICK_US 100000 /* watchdog period: 0.1 s of CPU */

static const char *volatile guard_policy;
static const char *volatile guard_plugin;
static const char *volatile guard_hook;
static volatile sig_atomic_t guard_seq;  /* calls entered so far */
static sig_atomic_t guard_seen_seq;
static volatile sig_atomic_t guard_ticks; /* ticks the current call has run */
static long guard_limit_ticks;
static bool guard_armed;

static const int guard_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
#define GUARD_NSIG (sizeof(guard_signals) / sizeof(guard_signals[0]))
static struct sigaction guard_prev[GUARD_NSIG];

static void put(const char *s)
{
	if (s && write(STDERR_FILENO, s, strlen(s)) < 0)
		return;
}

static void put_long(long v)
{
	char buf[24];
	int i = sizeof(buf);
	buf[--i] = '\0';
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	put(buf + i);
}

static void put_where(void)
{
	put("policy '");
	put(guard_policy);
	put("' (plugin ");
	put(guard_plugin);
	put(") ");
}

static void guard_crash(int sig)
{
	size_t k = 0;
	while (k < GUARD_NSIG && guard_signals[k] != sig)
		k++;
	if (guard_policy) {
		put("mobisim: ");
		put_where();
		put("crashed in its ");
		put(guard_hook);
		put(" hook (signal ");
		put_long(sig);
		put(", ");
		put(sigdescr_np(sig));
		put(")\n");
	}
	/* whatever was there before (the default, or a sanitizer's report) */
	if (k < GUARD_NSIG)
		sigaction(sig, &guard_prev[k], NULL);
	else
		signal(sig, SIG_DFL);
	raise(sig);
}

static void guard_tick(int sig)
{
	(void)sig;
	if (!guard_policy) {
		guard_ticks = 0;
		return;
	}
	if (guard_seq != guard_seen_seq) {
		guard_seen_seq = guard_seq;
		guard_ticks = 0;
	}
	if (++guard_ticks < guard_limit_ticks)
		return;
	put("mobisim: ");
	put_where();
	put("did not return from its ");
	put(guard_hook);
	put(" hook within ");
	put_long(guard_limit_ticks * GUARD_TICK_US / 1000);
	put(" ms of CPU (a loop? MOBISIM_PLUGIN_TIMEOUT sets the limit)\n");
	_exit(1);
}

static void guard_timer_start(void)
{
	struct itimerval it = {
		.it_interval = { .tv_sec = 0, .tv_usec = GUARD_TICK_US },
		.it_value = { .tv_sec = 0, .tv_usec = GUARD_TICK_US },
	};
	setitimer(ITIMER_VIRTUAL, &it, NULL);
}

/* A forked child (a sweep's point) starts without its parent's timer. */
static void guard_atfork_child(void) { guard_timer_start(); }

int policy_guard_arm(void)
{
	if (guard_armed)
		return 0;
	double limit_s = POLICY_GUARD_LIMIT_S;
	const char *env = getenv("MOBISIM_PLUGIN_TIMEOUT");
	if (env && *env) {
		char *end;
		limit_s = strtod(env, &end);
		if (*end || !(limit_s > 0) || limit_s > 1e6) {
			fprintf(stderr, "mobisim: MOBISIM_PLUGIN_TIMEOUT '%s': expected seconds of CPU "
					"(a number > 0)\n", env);
			return -1;
		}
	}
	guard_limit_ticks = (long)(limit_s * 1e6 / GUARD_TICK_US + 0.5);
	if (guard_limit_ticks < 1)
		guard_limit_ticks = 1;
	/* a stack overflow (runaway recursion) needs a stack to report on */
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0 };
	sigaltstack(&ss, NULL);
	for (size_t k = 0; k < GUARD_NSIG; k++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = guard_crash;
		sa.sa_flags = SA_ONSTACK | SA_NODEFER | SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		sigaction(guard_signals[k], &sa, &guard_prev[k]);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = guard_tick;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGVTALRM, &sa, NULL);
	pthread_atfork(NULL, NULL, guard_atfork_child);
	guard_timer_start();
	guard_armed = true;
	return 0;
}

void policy_guard_enter(const char *policy, const char *plugin, const char *hook)
{
	guard_hook = hook;
	guard_plugin = plugin;
	guard_seq = guard_seq + 1;
	guard_policy = policy;
}

void policy_guard_leave(void) { guard_policy = NULL; }
