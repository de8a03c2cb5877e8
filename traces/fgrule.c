/* Foreground rules over trace records (`trace stat --fg`, a replay
 * workload's fg:): by process name (POSIX extended regular expression,
 * regcomp(3)), pid or uid, as Android tells the foreground app by its uid
 * (the app's package) and its process name (the package name, from
 * /proc/PID/cmdline); or "recorded": the recording's own state where it
 * has one (Perfetto: the process's oom_score_adj is 0, ActivityManager's
 * FOREGROUND_APP_ADJ for the top app); or app=PACKAGE, the comm its main
 * thread carries (app_thread_name) or the package name itself (traces
 * that name processes by cmdline). An app's other threads carry their own
 * names (RenderThread, Binder:PID_N) and, with no tgid in a block trace,
 * are not found by it. A rule that reads what the trace does not record
 * (trace_identity_lacks) is the caller's error to report, not a silent
 * "nothing matched".
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace.h"

#define FG_RULES_MAX 64

enum fg_kind { FG_COMM, FG_PID, FG_UID, FG_RECORDED, FG_APP };

struct fg_rule {
	enum fg_kind kind;
	int64_t id;
	regex_t re;
	char text[640];
	char pkg[256], thread[16]; /* app=: the package and its main thread's comm */
};

/* The comm an Android app's main thread carries: libutils
 * androidSetThreadName keeps the last 15 characters of a dotted name of 15
 * or more without '@' (the package's tail tells apps apart), the kernel the
 * first 15 of anything else (TASK_COMM_LEN 16). */
static void app_thread_name(const char *pkg, char out[16])
{
	size_t len = strlen(pkg);
	bool dot = strchr(pkg, '.') != NULL, at = strchr(pkg, '@') != NULL;
	const char *s = len < 15 || at || !dot ? pkg : pkg + len - 15;
	snprintf(out, 16, "%s", s);
}

struct trace_fg {
	uint32_t n;
	struct fg_rule r[FG_RULES_MAX];
};

/* opt names the rule in messages ("--fg", "--comm"), shown is what the user
 * wrote after it: one matcher for FG rules and process filters. */
/* glibc's regexec takes \\N in an ERE as a back-reference, which
 * backtracks: `^(a*)*\\1b$` over 200 names of 60 characters ran for
 * minutes. Outside a bracket expression (where a backslash is literal)
 * a backslash and a digit 1-9 is one. */
static bool has_backref(const char *re)
{
	bool bracket = false;
	for (const char *p = re; *p; p++) {
		if (bracket) {
			if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
				const char *e = strchr(p + 2, p[1]);
				while (e && e[1] != ']')
					e = strchr(e + 1, p[1]);
				if (e)
					p = e + 1;
			} else if (*p == ']') {
				bracket = false;
			}
			continue;
		}
		if (*p == '\\') {
			if (p[1] >= '1' && p[1] <= '9')
				return true;
			if (p[1])
				p++;
		} else if (*p == '[') {
			bracket = true;
			if (p[1] == '^')
				p++;
			if (p[1] == ']')
				p++; /* a leading ] is a member */
		}
	}
	return false;
}

int trace_rule_add(struct trace_fg **fgp, const char *spec, const char *opt, const char *shown,
		   struct sim_error *err)
{
	const char *eq = strchr(spec, '=');
	bool recorded = !strcmp(spec, "recorded");
	if (!eq && !recorded)
		return sim_errorf(err, SIM_E_INPUT, "%s '%s': expected comm=REGEX, pid=N, uid=N or recorded",
				  opt, shown);
	size_t kl = eq ? (size_t)(eq - spec) : 0;
	const char *v = eq ? eq + 1 : "-";
	enum fg_kind kind;
	if (recorded)
		kind = FG_RECORDED;
	else if (kl == 4 && !strncmp(spec, "comm", 4))
		kind = FG_COMM;
	else if (kl == 3 && !strncmp(spec, "pid", 3))
		kind = FG_PID;
	else if (kl == 3 && !strncmp(spec, "uid", 3))
		kind = FG_UID;
	else if (kl == 3 && !strncmp(spec, "app", 3))
		kind = FG_APP;
	else
		return sim_errorf(err, SIM_E_INPUT, "%s '%s': unknown key '%.*s' (comm=REGEX, pid=N, uid=N, "
				  "app=PACKAGE)", opt, shown, (int)kl, spec);
	if (!*v)
		return sim_errorf(err, SIM_E_INPUT, "%s '%s': empty value", opt, shown);
	if (!*fgp) {
		*fgp = calloc(1, sizeof(**fgp));
		if (!*fgp)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	struct trace_fg *fg = *fgp;
	if (fg->n == FG_RULES_MAX)
		return sim_errorf(err, SIM_E_INPUT, "%s: at most %d rules", opt, FG_RULES_MAX);
	struct fg_rule *r = &fg->r[fg->n];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	snprintf(r->text, sizeof(r->text), "%s", spec);
	if (kind == FG_APP) {
		if (strlen(v) >= sizeof(r->pkg))
			return sim_errorf(err, SIM_E_INPUT, "%s '%s': package name longer than %zu", opt, shown,
					  sizeof(r->pkg) - 1);
		snprintf(r->pkg, sizeof(r->pkg), "%s", v);
		app_thread_name(v, r->thread);
		/* say what it matches: the rule as used */
		char used[sizeof(r->text)];
		bool differ = strcmp(r->thread, r->pkg) != 0;
		snprintf(used, sizeof(used), "app=%s (comm '%s'%s%s%s)", r->pkg, r->thread,
			 differ ? " or '" : "", differ ? r->pkg : "", differ ? "'" : "");
		memcpy(r->text, used, sizeof(r->text));
	} else if (kind == FG_COMM) {
		if (has_backref(v))
			return sim_errorf(err, SIM_E_INPUT, "%s '%s': a back-reference (\\1 ... \\9) is not "
					  "POSIX extended syntax and can take exponential time on long "
					  "names; write the alternatives out", opt, shown);
		int rc = regcomp(&r->re, v, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char why[160];
			regerror(rc, &r->re, why, sizeof(why));
			return sim_errorf(err, SIM_E_INPUT, "%s '%s': bad regular expression: %s", opt, shown,
					  why);
		}
	} else if (kind != FG_RECORDED) {
		char *e;
		long long x = strtoll(v, &e, 10);
		long long max = kind == FG_PID ? INT32_MAX : UINT32_MAX;
		if (*e || e == v || x < 0 || x > max)
			return sim_errorf(err, SIM_E_INPUT, "%s '%s': expected an integer 0..%lld", opt, shown,
					  max);
		r->id = x;
	}
	fg->n++;
	return 0;
}

int trace_fg_add(struct trace_fg **fgp, const char *spec, struct sim_error *err)
{
	return trace_rule_add(fgp, spec, "--fg", spec, err);
}

bool trace_fg_match(const struct trace_fg *fg, const struct trace_rec *rec)
{
	if (!fg)
		return false;
	for (uint32_t i = 0; i < fg->n; i++) {
		const struct fg_rule *r = &fg->r[i];
		switch (r->kind) {
		case FG_COMM:
			if (rec->comm && regexec(&r->re, rec->comm, 0, NULL, 0) == 0)
				return true;
			break;
		case FG_PID:
			if (rec->pid == r->id)
				return true;
			break;
		case FG_UID:
			if ((rec->tflags & TRACE_T_HAS_UID) && rec->uid == r->id)
				return true;
			break;
		case FG_RECORDED:
			if (rec->tflags & TRACE_T_FG)
				return true;
			break;
		case FG_APP:
			if (rec->comm && (!strcmp(rec->comm, r->thread) || !strcmp(rec->comm, r->pkg)))
				return true;
			break;
		}
	}
	return false;
}

uint32_t trace_fg_needs(const struct trace_fg *fg)
{
	static const uint32_t need[] = { [FG_COMM] = TRACE_ID_COMM, [FG_PID] = TRACE_ID_PID,
					 [FG_UID] = TRACE_ID_UID, [FG_RECORDED] = TRACE_ID_FG,
					 [FG_APP] = TRACE_ID_COMM };
	uint32_t n = 0;
	for (uint32_t i = 0; fg && i < fg->n; i++)
		n |= need[fg->r[i].kind];
	return n;
}

void trace_fg_describe(const struct trace_fg *fg, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (uint32_t i = 0; fg && i < fg->n && at < len; i++) {
		int w = snprintf(buf + at, len - at, "%s%s", i ? " or " : "", fg->r[i].text);
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

void trace_fg_free(struct trace_fg *fg)
{
	for (uint32_t i = 0; fg && i < fg->n; i++)
		if (fg->r[i].kind == FG_COMM)
			regfree(&fg->r[i].re);
	free(fg);
}

bool trace_identity_lacks(uint32_t need, uint32_t have, char *buf, size_t len)
{
	static const struct { uint32_t bit; const char *what; } words[] = {
		{ TRACE_ID_COMM, "process names" }, { TRACE_ID_PID, "process ids" },
		{ TRACE_ID_UID, "user ids (uids)" }, { TRACE_ID_TID, "thread ids" },
		{ TRACE_ID_FG, "foreground state (Perfetto's oom_score_adj)" },
	};
	uint32_t lack = need & ~have;
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (lack & words[i].bit) {
			int w = snprintf(buf + at, len > at ? len - at : 0, "%s%s", at ? ", " : "", words[i].what);
			if (w > 0)
				at += (size_t)w;
		}
	return lack != 0;
}

const char *trace_identity_hint(const char *format)
{
	if (!format)
		return "";
	if (!strcmp(format, "csv"))
		return " (MSR Cambridge CSV: Hostname is the server and DiskNumber the disk, both "
		       "read as the device; SNIA CSV: none; another layout: map its columns with "
		       "--columns comm=N,pid=N,uid=N)";
	if (!strcmp(format, "disksim"))
		return " (DiskSim/MQSim ASCII records no process)";
	if (!strcmp(format, "fio"))
		return " (a fio iolog records files, not processes)";
	return "";
}
