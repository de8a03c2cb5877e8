/* Fork at a phase: the points of a sweep that differ only in when a task
 * starts (workload.tasks.KEY.start, a launch's phase) share everything the
 * simulation does before that start. A family master (one process per such
 * family) builds the run once, holds those starts back, runs the shared
 * prefix and, when the clock reaches a point's start, forks: the child
 * (copy-on-write) starts the held task there and runs on to the end; the
 * master runs on towards the next phase. N phases cost one prefix plus N
 * launches instead of N prefixes.
 *
 * Why the result is the run from t = 0, byte for byte: the master is made
 * from the family's first point (set-up does not read the start: the fs
 * layout, the files and every random stream drawn at set-up are the same
 * for all points); the held start reserves the event number its start
 * would have taken at t = 0 (workload hold/release, sim_engine_schedule_seq),
 * so at its instant it fires before or after the other events of that
 * instant exactly as in a run from t = 0; the run pauses before any event of
 * that instant fires, and the pause counts as a pending event for the
 * run's slicing (sim_run). What cannot be forked is refused with the
 * reason (a random start is drawn per seed at set-up; a launch planner hears
 * of the start at t = 0; a workload without hold) and runs the plain way.
 * tests/integration/sweep_fork.sh compares the two byte for byte.
 *
 * Memory: at most -j runs are alive at once, whichever family they are of
 * (a pipe holds a byte per free slot; a master takes one before each fork,
 * whoever reaps the run gives it back), plus one master: a master that has
 * forked its last point ends at once, its runs go on under the main
 * process (a subreaper), and the next family's master starts. The main
 * process hears of each fork and of each end its master reaped (a pipe of
 * struct fork_rec), reaps the rest itself, and names every failed run
 * (sweep_report_child) as the pool does; it reads the pipe before it looks
 * a reaped run up. MOBISIM_TEST_FORK_LATE_REPORTS (a test hook, set by
 * tests/integration/sweep_fork.sh only) delays that reading as late as it
 * can go. Its list of live runs holds at most -j (struct grand): each reap
 * looks through -j entries, as the pool does, and neither its memory nor
 * its cost per run grows with the number of points (10^6 points: the same
 * -j entries).
 */
#define _GNU_SOURCE /* mremap */
#include "sim/cli/sweep_fork.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/cli/sweep.h"
#include "sim/config.h"
#include "sim/results.h"
#include "sim/sim.h"
#include "sim/workload.h"

#define FORK_MAX_PHASES 8

/* A key of the form workload.tasks.KEY.start: its task's KEY, else NULL. */
static const char *phase_task(const char *key, char *buf, size_t len)
{
	static const char pre[] = "workload.tasks.", suf[] = ".start";
	size_t n = strlen(key), lp = sizeof(pre) - 1, ls = sizeof(suf) - 1;
	if (n <= lp + ls || strncmp(key, pre, lp) || strcmp(key + n - ls, suf))
		return NULL;
	size_t k = n - lp - ls;
	if (k >= len || memchr(key + lp, '.', k) || memchr(key + lp, '[', k))
		return NULL;
	memcpy(buf, key + lp, k);
	buf[k] = '\0';
	return buf;
}

struct fork_family {
	int *pts; /* point indices */
	int n;
};

struct fork_plan {
	int nph;
	int col[FORK_MAX_PHASES];
	char task[FORK_MAX_PHASES][128];
	struct fork_family *fam;
	int nfam;
};

static void plan_free(struct fork_plan *pl)
{
	for (int f = 0; f < pl->nfam; f++)
		free(pl->fam[f].pts);
	free(pl->fam);
	pl->fam = NULL;
	pl->nfam = 0;
}

static bool is_phase_col(const struct fork_plan *pl, int c)
{
	for (int k = 0; k < pl->nph; k++)
		if (pl->col[k] == c)
			return true;
	return false;
}

/* Do points a and b differ only in their phases (and share their seed)? */
static bool same_prefix(const struct sweep *sw, const struct fork_plan *pl, const struct sweep_point *a,
			const struct sweep_point *b)
{
	if (a->seed_set != b->seed_set || (a->seed_set && a->seed != b->seed))
		return false;
	for (int c = 0; c < sw->nkeys; c++) {
		if (is_phase_col(pl, c))
			continue;
		const struct sweep_value *x = a->vals[c], *y = b->vals[c];
		if ((x == NULL) != (y == NULL) || (x && strcmp(x->text, y->text)))
			return false;
	}
	return true;
}

/* The static part of the decision: which columns are phases, and the
 * families. false with *why when nothing can be forked. */
static bool plan_make(const struct sweep *sw, const int *todo, int ntodo, struct fork_plan *pl,
		      char *why, size_t len)
{
	memset(pl, 0, sizeof(*pl));
	for (int c = 0; c < sw->nkeys; c++) {
		char buf[128];
		const char *t = phase_task(sw->keys[c], buf, sizeof(buf));
		if (!t)
			continue;
		if (pl->nph == FORK_MAX_PHASES) {
			snprintf(why, len, "more than %d launch-phase axes", FORK_MAX_PHASES);
			return false;
		}
		pl->col[pl->nph] = c;
		snprintf(pl->task[pl->nph], sizeof(pl->task[0]), "%s", t);
		pl->nph++;
	}
	if (!pl->nph) {
		snprintf(why, len, "no launch-phase axis (workload.tasks.KEY.start)");
		return false;
	}
	for (int i = 0; i < ntodo; i++) {
		const struct sweep_point *p = &sw->points[todo[i]];
		for (int k = 0; k < pl->nph; k++) {
			const struct sweep_value *v = p->vals[pl->col[k]];
			if (!v) {
				snprintf(why, len, "point %s does not set %s", p->id, sw->keys[pl->col[k]]);
				return false;
			}
			if (strchr("{[", v->text[0])) {
				snprintf(why, len,
					 "%s = %s is a random start, drawn per seed at set-up", sw->keys[pl->col[k]],
					 v->text);
				return false;
			}
		}
	}
	pl->fam = calloc((size_t)(ntodo ? ntodo : 1), sizeof(*pl->fam));
	int *fam_of = malloc((size_t)(ntodo ? ntodo : 1) * sizeof(int));
	if (!pl->fam || !fam_of) {
		free(fam_of);
		plan_free(pl);
		snprintf(why, len, "out of memory");
		return false;
	}
	/* families in the order of their first point; a point joins the family
	 * of the last earlier one with its prefix (points of one assignment
	 * are consecutive in the expansion, so this is linear in practice) */
	for (int i = 0; i < ntodo; i++) {
		const struct sweep_point *p = &sw->points[todo[i]];
		int f = -1;
		for (int g = pl->nfam - 1; g >= 0 && f < 0; g--)
			if (same_prefix(sw, pl, &sw->points[pl->fam[g].pts[0]], p))
				f = g;
		if (f < 0) {
			f = pl->nfam++;
			pl->fam[f].pts = malloc((size_t)ntodo * sizeof(int));
			if (!pl->fam[f].pts) {
				free(fam_of);
				plan_free(pl);
				snprintf(why, len, "out of memory");
				return false;
			}
		}
		pl->fam[f].pts[pl->fam[f].n++] = todo[i];
	}
	free(fam_of);
	bool any = false;
	for (int f = 0; f < pl->nfam; f++)
		any |= pl->fam[f].n > 1;
	if (!any) {
		plan_free(pl);
		snprintf(why, len, "no two points differ only in their launch phase");
		return false;
	}
	return true;
}

/* ------------------------------------------ the child's own memory */

/* A forked run writes much of what the prefix built (a Fig. 1 launch's
 * reclaim goes through nearly the whole page cache, so nearly every page
 * record and index leaf), and each first write to a page it shares with
 * the master is a copy-on-write fault: about 2.5 us each on a virtual
 * machine, some 3,000 a run, against about 1.2 us a page to copy the
 * region whole into fresh transparent huge pages (a fault per 2 MiB).
 * So such a child takes its own copy of its large private anonymous
 * regions (the heap) at once and moves it over the old range (mremap):
 * the same bytes at the same addresses, so the run cannot tell. Whether
 * that pays depends on how much a run writes: every OWN_PROBE_EVERY-th
 * run is a probe that copies nothing, and its page faults (wait4), set
 * against the pages a copy takes, decide for the runs forked after it.
 * A copy that cannot be made leaves its region shared as before, which
 * is only slower. */
#define OWN_HUGE ((size_t)2 << 20)
#define OWN_MIN_BYTES ((size_t)1 << 20)
#define OWN_MAX_REGIONS 64
#define OWN_PROBE_EVERY 8

/* Huge pages to be had (enabled is not "never"): else a copy costs a
 * fault a page, as the copy-on-write it saves does. */
static bool own_huge_pages(void)
{
	/* a sanitizer's heap and shadow are its own, and its memcpy would
	 * check the redzones it copies */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	return false;
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
	return false;
#endif
#endif
	/* MOBISIM_FORK_OWN=0: never copy (to measure what the copy saves) */
	const char *env = getenv("MOBISIM_FORK_OWN");
	if (env && !strcmp(env, "0"))
		return false;
	char buf[128] = "";
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return !strstr(buf, "[never]");
}

/* The private writable anonymous regions of OWN_MIN_BYTES or more
 * (neighbours joined), read whole before anything changes the map and
 * without allocating (the heap is what a child copies). */
static int own_regions(uintptr_t *lo, uintptr_t *hi)
{
	char maps[1 << 16]; /* on the stack, which is not copied */
	int nr = 0;
	int fd = open("/proc/self/maps", O_RDONLY);
	if (fd < 0)
		return 0;
	size_t n = 0;
	ssize_t r;
	while (n + 1 < sizeof(maps) &&
	       ((r = read(fd, maps + n, sizeof(maps) - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
		if (r > 0)
			n += (size_t)r;
	close(fd);
	maps[n] = '\0';
	for (char *line = maps; *line && nr < OWN_MAX_REGIONS;) {
		char *end = strchr(line, '\n');
		if (!end)
			break; /* a cut line: the buffer was full */
		*end = '\0';
		unsigned long a, b, ino;
		char perm[8], path[32] = "";
		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu %31s", &a, &b, perm, &ino, path) >= 4 &&
		    !strcmp(perm, "rw-p") && ino == 0 && (!path[0] || !strcmp(path, "[heap]"))) {
			if (nr && hi[nr - 1] == a)
				hi[nr - 1] = b;
			else {
				lo[nr] = a;
				hi[nr++] = b;
			}
		}
		line = end + 1;
	}
	int k = 0;
	for (int i = 0; i < nr; i++)
		if (hi[i] - lo[i] >= OWN_MIN_BYTES) {
			lo[k] = lo[i];
			hi[k++] = hi[i];
		}
	return k;
}

/* Pages a child's copy would take (the master's map is the child's). */
static uint64_t own_pages(void)
{
	uintptr_t lo[OWN_MAX_REGIONS], hi[OWN_MAX_REGIONS];
	int nr = own_regions(lo, hi);
	uint64_t pages = 0;
	for (int i = 0; i < nr; i++)
		pages += (hi[i] - lo[i]) / 4096;
	return pages;
}

static void own_copy(uintptr_t lo, uintptr_t hi)
{
	/* dst lies at lo's offset in a 2 MiB block, in a mapping of whole
	 * blocks: every block can be a huge page, and the move keeps the
	 * blocks inside the region mapped whole (fewer TLB misses, a
	 * cheaper exit); the two cut at its ends are split */
	size_t len = hi - lo, off = lo & (OWN_HUGE - 1);
	size_t cap = (off + len + OWN_HUGE - 1) & ~(OWN_HUGE - 1);
	char *raw = mmap(NULL, cap + OWN_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return;
	char *base = (char *)(((uintptr_t)raw + OWN_HUGE - 1) & ~(uintptr_t)(OWN_HUGE - 1));
	if (base > raw)
		munmap(raw, (size_t)(base - raw));
	munmap(base + cap, (size_t)(raw + OWN_HUGE - base));
	madvise(base, cap, MADV_HUGEPAGE);
	char *dst = base + off;
	/* a page never touched reads as zeros, as dst does: copy the
	 * resident runs only (reading an absent page would fault) */
	unsigned char res[1 << 12];
	for (size_t at = 0; at < len;) {
		size_t span = len - at < sizeof(res) * 4096 ? len - at : sizeof(res) * 4096;
		size_t np = span / 4096;
		if (mincore((void *)(lo + at), span, res)) {
			memcpy(dst + at, (const void *)(lo + at), span);
		} else {
			for (size_t p = 0; p < np;) {
				size_t q = p;
				while (q < np && (res[q] & 1))
					q++;
				if (q > p)
					memcpy(dst + at + p * 4096, (const void *)(lo + at + p * 4096), (q - p) * 4096);
				p = q + 1;
			}
		}
		at += span;
	}
	if (mremap(dst, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) == MAP_FAILED) {
		/* it may have unmapped lo before it failed: put the copy back
		 * the slow way, or end the run rather than go on without it */
		if (mmap((void *)lo, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED) {
			static const char msg[] = "mobisim: fork at a phase: lost a memory region\n";
			ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
			(void)w;
			_exit(sim_error_exit_status(SIM_E_NOMEM));
		}
		memcpy((void *)lo, dst, len);
		munmap(base, cap);
		return;
	}
	if (off)
		munmap(base, off);
	if (off + len < cap)
		munmap(dst + len, cap - off - len);
}

/* Signals wait: their handler reads the heap being moved. */
static void own_memory(void)
{
	uintptr_t lo[OWN_MAX_REGIONS], hi[OWN_MAX_REGIONS];
	sigset_t old;
	sweep_pool_signals(SIG_BLOCK, &old);
	int nr = own_regions(lo, hi);
	for (int i = 0; i < nr; i++)
		own_copy(lo[i], hi[i]);
	sweep_pool_signals(SIG_SETMASK, &old);
}

/* ------------------------------------------------------- the master */

struct fpoint {
	int index;
	int64_t at[FORK_MAX_PHASES]; /* each held task's start */
	int64_t fork_at;             /* the earliest of them */
};

struct master {
	const struct sweep *sw;
	const struct fork_plan *pl;
	const struct sweep_run_opts *o;
	struct sim *s;
	struct fpoint *fp;
	int n, next;                 /* points, the next to fork */
	volatile pid_t *pids;        /* live children, o->jobs slots */
	int *slot_point;
	int live;
	int report_fd;               /* forks and ends (struct fork_rec) go to the main process */
	int token_rd, token_wr;      /* a byte per free job slot, shared by every family */
	/* the child's own memory (own_memory) */
	bool own_ok;                 /* huge pages to be had */
	bool own_pays;               /* the latest probe says a copy pays */
	bool own_now;                /* the run being forked copies */
	uint64_t forks;
	bool *slot_probe;            /* per job slot: its run is a probe */
	/* in a child */
	int me;                      /* -1 in the master */
};

static int cmp_fork_at(const void *a, const void *b)
{
	const struct fpoint *x = a, *y = b;
	if (x->fork_at != y->fork_at)
		return x->fork_at < y->fork_at ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* What a master tells the main process: point index forked as pid, or
 * (ended) that it reaped pid with status. */
struct fork_rec {
	int index;
	pid_t pid;
	int ended;
	int status;
};

/* A child of ours ended: tell the main process (which names it if it
 * failed and takes it off its list), then give its job slot back. */
static void child_ended(struct master *m, pid_t pid, int status, const struct rusage *ru)
{
	for (int k = 0; k < m->o->jobs; k++) {
		if (m->pids[k] != pid)
			continue;
		m->pids[k] = 0;
		m->live--;
		if (m->slot_probe[k]) {
			/* a copy of a page costs about half a fault: it pays when
			 * the run writes more than some 60 % of what it copies */
			m->own_pays = (uint64_t)ru->ru_minflt * 5 >= own_pages() * 3;
			m->slot_probe[k] = false;
		}
		struct fork_rec rec = { .index = m->slot_point[k], .pid = pid, .ended = 1, .status = status };
		if (write(m->report_fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec))
			m->n = m->next; /* the main process is gone */
		char t = 't';
		while (write(m->token_wr, &t, 1) < 0 && errno == EINTR)
			;
		return;
	}
}

/* Take a job slot: at most -j children run, this family's and the ones
 * an earlier family's master left to the main process. */
static void take_slot(struct master *m)
{
	for (;;) {
		int status;
		pid_t pid;
		struct rusage ru;
		while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0)
			child_ended(m, pid, status, &ru);
		char t;
		if (read(m->token_rd, &t, 1) == 1)
			return;
		if (m->live > 0) {
			if ((pid = wait4(-1, &status, 0, &ru)) > 0)
				child_ended(m, pid, status, &ru);
			continue;
		}
		struct pollfd pfd = { .fd = m->token_rd, .events = POLLIN };
		(void)poll(&pfd, 1, -1);
	}
}

/* The child's later starts (a point with several phase tasks). */
static int64_t child_next_at(const struct master *m, int64_t after)
{
	int64_t best = SIM_TIME_MAX;
	const struct fpoint *p = &m->fp[m->me];
	for (int k = 0; k < m->pl->nph; k++)
		if (p->at[k] > after && p->at[k] < best)
			best = p->at[k];
	return best;
}

static bool release_at(struct master *m, int64_t at)
{
	struct sim *s = m->s;
	const struct fpoint *p = &m->fp[m->me];
	for (int k = 0; k < m->pl->nph; k++)
		if (p->at[k] == at && !s->workload->ops->release(s, s->workload->state, m->pl->task[k], at)) {
			sim_fail(s, SIM_E_RUNTIME,
				 "fork at a phase: task '%s' did not start with exactly its held event",
				 m->pl->task[k]);
			return false;
		}
	return true;
}

static bool child_pause(struct sim *s, void *ctx)
{
	struct master *m = ctx;
	int64_t at = s->pause_ns;
	s->pause_ns = child_next_at(m, at);
	release_at(m, at);
	return true;
}

/* A child's held start is pending in its run from t = 0: no inline clock
 * move reaches past it. */
static bool child_cross(struct sim *s, void *ctx, int64_t when)
{
	(void)s;
	(void)ctx;
	(void)when;
	return false;
}

/* In the new child: become point fp[i]'s run from t = 0, its first start
 * held until fork_at (released now when the clock is there). */
static void become_point(struct master *m, int i, bool at_start)
{
	if (m->own_now)
		own_memory();
	struct sim *s = m->s;
	const struct sweep_point *p = &m->sw->points[m->fp[i].index];
	m->me = i;
	close(m->report_fd);
	close(m->token_rd);
	close(m->token_wr);
	/* its config echo: the prefix's resolved doc with this point's phases */
	for (int k = 0; k < m->pl->nph; k++) {
		const char *key = m->sw->keys[m->pl->col[k]];
		size_t len = strlen(key) + strlen(p->vals[m->pl->col[k]]->text) + 2;
		char *set = malloc(len);
		struct sim_error err;
		if (!set) {
			sim_fail(s, SIM_E_NOMEM, "out of memory");
			return;
		}
		snprintf(set, len, "%s=%s", key, p->vals[m->pl->col[k]]->text);
		if (cfg_set(s->doc, set, &err))
			sim_fail(s, err.code, "%s", err.msg);
		free(set);
	}
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->run_t0 = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	s->on_pause = child_pause;
	s->on_cross = child_cross;
	if (at_start) {
		s->pause_ns = child_next_at(m, m->fp[i].fork_at);
		release_at(m, m->fp[i].fork_at);
	} else {
		s->pause_ns = m->fp[i].fork_at;
	}
	s->engine.barrier = s->pause_ns;
}

/* Fork the next point (m->next); true in the child. */
static bool fork_next(struct master *m, bool at_start)
{
	for (;;) {
		take_slot(m);
		int k = 0;
		while (m->pids[k])
			k++;
		int i = m->next;
		bool probe = m->own_ok && m->forks % OWN_PROBE_EVERY == 0;
		m->own_now = m->own_ok && !probe && m->own_pays;
		pid_t pid = sweep_pool_fork(&m->pids[k], true);
		if (pid == 0) {
			become_point(m, i, at_start);
			return true;
		}
		if (pid > 0) {
			m->slot_point[k] = m->fp[i].index;
			m->slot_probe[k] = probe;
			m->forks++;
			m->live++;
		}
		if (pid < 0) {
			char t = 't';
			while (write(m->token_wr, &t, 1) < 0 && errno == EINTR)
				;
			if (m->live == 0) {
				/* cannot fork at all: the rest run the plain way */
				m->n = m->next;
				return false;
			}
			int status;
			struct rusage ru;
			if ((pid = wait4(-1, &status, 0, &ru)) > 0)
				child_ended(m, pid, status, &ru);
			continue;
		}
		m->next++;
		struct fork_rec rec = { .index = m->fp[i].index, .pid = pid };
		if (write(m->report_fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec))
			m->n = m->next; /* the main process is gone */
		return false;
	}
}

/* Past the last point the master has nothing left to do. */
static void master_next_pause(struct master *m)
{
	if (m->next < m->n)
		m->s->pause_ns = m->fp[m->next].fork_at;
	else {
		m->s->pause_ns = SIM_TIME_MAX;
		sim_halt(m->s);
	}
	m->s->engine.barrier = m->s->pause_ns;
}

static bool master_pause(struct sim *s, void *ctx)
{
	struct master *m = ctx;
	int64_t at = s->pause_ns;
	while (m->next < m->n && m->fp[m->next].fork_at == at)
		if (fork_next(m, true))
			return true;
	master_next_pause(m);
	return !s->halted;
}

/* An inline clock move to when: the runs whose start is at or before when
 * would refuse it (their start is pending): fork them here, refusing;
 * then let the prefix, which stands for the later starts, go on. */
static bool master_cross(struct sim *s, void *ctx, int64_t when)
{
	struct master *m = ctx;
	while (m->next < m->n && m->fp[m->next].fork_at <= when)
		if (fork_next(m, false))
			return false;
	master_next_pause(m);
	if (s->halted)
		return false; /* nothing left: refuse, and the master stops at once */
	return true;
}

/* The family master, in its own process: exit status 0 (it forked what it
 * could; the main process hears how each run ended), 3 (could not hold:
 * the reason on why_fd; the main process runs the family the plain way). */
static void __attribute__((noreturn))
master_main(const struct sweep *sw, const struct fork_plan *pl, const struct fork_family *fam,
	    const struct sweep_run_opts *o, int report_fd, int why_fd, const int tok[2])
{
	struct master m = { .sw = sw, .pl = pl, .o = o, .n = fam->n, .report_fd = report_fd,
			    .token_rd = tok[0], .token_wr = tok[1], .me = -1 };
	struct sim_error err = { 0 };
	char why[SIM_ERRMSG_MAX] = "";
	m.fp = calloc((size_t)fam->n, sizeof(*m.fp));
	m.pids = calloc((size_t)o->jobs, sizeof(*m.pids));
	m.slot_point = calloc((size_t)o->jobs, sizeof(*m.slot_point));
	m.slot_probe = calloc((size_t)o->jobs, sizeof(*m.slot_probe));
	if (!m.fp || !m.pids || !m.slot_point || !m.slot_probe)
		_exit(3);
	if (sweep_point_create(sw, &sw->points[fam->pts[0]], &m.s, &err)) {
		snprintf(why, sizeof(why), "%s", err.msg);
		goto refuse;
	}
	struct sim *s = m.s;
	const struct workload_ops *w = s->workload ? s->workload->ops : NULL;
	if (!w || !w->hold || !w->held_start || !w->release) {
		snprintf(why, sizeof(why), "the %s workload cannot hold a task's start",
			 w ? w->name : "(none)");
		goto refuse;
	}
	if (s->timeline || s->trace_out) {
		snprintf(why, sizeof(why), "a streaming output (timeline, trace-out) records from t = 0");
		goto refuse;
	}
	for (int k = 0; k < pl->nph; k++)
		if (w->hold(s, s->workload->state, pl->task[k], &err)) {
			snprintf(why, sizeof(why), "%s", err.msg);
			goto refuse;
		}
	for (int i = 0; i < fam->n; i++) {
		const struct sweep_point *p = &sw->points[fam->pts[i]];
		m.fp[i].index = fam->pts[i];
		m.fp[i].fork_at = SIM_TIME_MAX;
		for (int k = 0; k < pl->nph; k++) {
			if (w->held_start(s, s->workload->state, pl->task[k], p->vals[pl->col[k]]->text,
					  &m.fp[i].at[k], &err)) {
				snprintf(why, sizeof(why), "%.200s = %.100s: %.700s", sw->keys[pl->col[k]],
					 p->vals[pl->col[k]]->text, err.msg);
				goto refuse;
			}
			if (m.fp[i].at[k] < m.fp[i].fork_at)
				m.fp[i].fork_at = m.fp[i].at[k];
		}
	}
	qsort(m.fp, (size_t)fam->n, sizeof(*m.fp), cmp_fork_at);
	close(why_fd);
	fcntl(m.token_rd, F_SETFL, fcntl(m.token_rd, F_GETFL) | O_NONBLOCK);
	results_signal_children(m.pids, (size_t)o->jobs);
	m.own_ok = own_huge_pages();
	s->on_pause = master_pause;
	s->on_cross = master_cross;
	s->pause_ctx = &m;
	s->pause_ns = m.fp[0].fork_at;
	int rc = sim_run(s, &err);
	if (m.me >= 0) {
		/* a child: the point's run is over */
		const struct sweep_point *p = &sw->points[m.fp[m.me].index];
		if (!rc)
			rc = sweep_point_write(sw, p, s, o->out_dir, &err);
		if (rc && o->log) {
			fprintf(o->log, "mobisim: point %s: %s\n", p->id, err.msg);
			fflush(o->log);
		}
		_exit(rc ? sim_error_exit_status(rc) : 0);
	}
	/* the master: the prefix ended (its last fork, or the run ended before
	 * a phase: those points were not forked and run the plain way). Its
	 * children still running go to the main process (a subreaper), which
	 * gives their slots back, so the next family starts now. */
	int status;
	pid_t pid;
	struct rusage ru;
	while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0)
		child_ended(&m, pid, status, &ru);
	_exit(0);
refuse:
	if (write(why_fd, why, strlen(why)) < 0)
		_exit(3);
	_exit(3);
}

/* The main process's view of the forked runs: which point each live
 * one is, for the signal handler and the failure message. A run is listed
 * from its master's report of the fork until its master reports its end
 * or the main process reaps it (it came to us when its master ended
 * first). The reports come in the order the master did things, and a run
 * holds a job slot until its end is reported or reaped, so at most -j runs
 * are listed: cap is 1 + -j whatever the number of points. */
struct grand {
	volatile pid_t *pids;  /* [0]: the master; then the runs, 0 when gone */
	int *point;
	int cap;
	int tok_wr;
	int rep_fd;            /* the running family's reports (non-blocking), -1: none */
	bool rep_eof;          /* its master and runs have all closed it */
	bool *forked;          /* per point: a master forked it */
	int worst;             /* SIM_E_INPUT when every failed run exited 2, else SIM_E_RUNTIME */
};

/* The entry of pid from k = first on (pid 0: a free one); cap if none. */
static int grand_find(const struct grand *g, pid_t pid, int first)
{
	int k = first;
	while (k < g->cap && g->pids[k] != pid)
		k++;
	return k;
}

/* A forked run ended: how the pool counts it (sweep_run.c). */
static void grand_ended(const struct sweep *sw, const struct sweep_run_opts *o, struct grand *g,
			int point, int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	int code = WIFEXITED(status) && WEXITSTATUS(status) == 2 ? SIM_E_INPUT : SIM_E_RUNTIME;
	if (g->worst == 0 || code == SIM_E_RUNTIME)
		g->worst = code;
	sweep_report_child(o->log, sw, &sw->points[point], status);
}

/* Take in what the running family's master has reported so far. */
static void grand_read(const struct sweep *sw, const struct sweep_run_opts *o, struct grand *g)
{
	while (g->rep_fd >= 0 && !g->rep_eof) {
		/* each record is one write of less than PIPE_BUF: whole
		 * records come out of a read of a multiple of their size */
		struct fork_rec rec[64];
		ssize_t r = read(g->rep_fd, rec, sizeof(rec));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			g->rep_eof = r == 0 || errno != EAGAIN;
			return;
		}
		for (size_t i = 0; i < (size_t)r / sizeof(rec[0]); i++) {
			if (rec[i].index < 0 || rec[i].index >= sw->npoints)
				continue;
			/* a fork takes a free entry (there is one, by the
			 * bound above), an end gives its entry back */
			int k = grand_find(g, rec[i].ended ? rec[i].pid : 0, 1);
			if (k < g->cap) {
				sigset_t old;
				sweep_pool_signals(SIG_BLOCK, &old);
				g->pids[k] = rec[i].ended ? 0 : rec[i].pid;
				g->point[k] = rec[i].index;
				sweep_pool_signals(SIG_SETMASK, &old);
			}
			if (rec[i].ended)
				grand_ended(sw, o, g, rec[i].index, rec[i].status);
			else
				g->forked[rec[i].index] = true;
		}
	}
}

/* Reap what has ended: a run that came to us gives its slot back and, if
 * it failed, is reported like any other. The master's status goes to
 * *mstatus. block: wait for one at least. false when no child is left. */
static bool main_reap(const struct sweep *sw, const struct sweep_run_opts *o, struct grand *g,
		      bool block, int *mstatus)
{
	for (;;) {
		/* Wait without reaping, so the pid stays valid for the signal
		 * handler until it leaves g->pids (as the pool does). */
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT | (block ? 0 : WNOHANG)) < 0) {
			if (errno == EINTR)
				continue;
			return errno != ECHILD;
		}
		pid_t pid = si.si_pid;
		if (pid == 0)
			return true; /* WNOHANG: nothing has ended */
		block = false;
		/* A run we reap here came to us when its master ended, so the
		 * master's report of it (written before it ended) is in the
		 * pipe by now: read it before looking the run up, or a run
		 * that ends before we read its report goes unnamed. */
		if (pid != g->pids[0])
			grand_read(sw, o, g);
		int k = grand_find(g, pid, 0);
		int status;
		pid_t got = sweep_pool_reap(pid, k < g->cap ? &g->pids[k] : NULL, &status);
		if (got != pid)
			continue;
		if (k == 0) {
			*mstatus = status;
			continue;
		}
		/* every other child of ours is a forked run: it held a slot */
		char t = 't';
		while (write(g->tok_wr, &t, 1) < 0 && errno == EINTR)
			;
		if (k < g->cap)
			grand_ended(sw, o, g, g->point[k], status);
	}
}

/* Run one family through its master; g->forked gets the points it forked.
 * Returns when the master has ended (its last runs may go on). */
static int family_run(const struct sweep *sw, const struct fork_plan *pl, const struct fork_family *fam,
		      const struct sweep_run_opts *o, struct grand *g, const int tok[2], char *why,
		      size_t whylen)
{
	int rep[2], wp[2];
	if (pipe(rep))
		return -1;
	if (pipe(wp)) {
		close(rep[0]);
		close(rep[1]);
		return -1;
	}
	pid_t pid = sweep_pool_fork(&g->pids[0], false);
	if (pid == 0) {
		close(rep[0]);
		close(wp[0]);
		master_main(sw, pl, fam, o, rep[1], wp[1], tok);
	}
	close(rep[1]);
	close(wp[1]);
	if (pid < 0) {
		close(rep[0]);
		close(wp[0]);
		return -1;
	}
	/* the forked runs as the master reports them, reaping meanwhile what
	 * earlier families left us (their slots are what the master waits for) */
	int mstatus = 0;
	fcntl(rep[0], F_SETFL, fcntl(rep[0], F_GETFL) | O_NONBLOCK);
	g->rep_fd = rep[0];
	g->rep_eof = false;
	/* Test hook (tests/integration/sweep_fork.sh sets it, nothing else
	 * does; docs/sweeps.md): read no report before the master and every
	 * run have ended, the latest a report can be read, so that every run
	 * the master left us is reaped before its report is read and must
	 * still be named. The pipe must hold every report meanwhile (a few
	 * thousand points), or the master waits for us forever. */
	const char *late = getenv("MOBISIM_TEST_FORK_LATE_REPORTS");
	if (late && *late)
		while (main_reap(sw, o, g, true, &mstatus))
			;
	struct pollfd pfd = { .fd = rep[0], .events = POLLIN };
	while (!g->rep_eof) {
		main_reap(sw, o, g, false, &mstatus);
		if (poll(&pfd, 1, 20) > 0)
			grand_read(sw, o, g);
	}
	g->rep_fd = -1;
	close(rep[0]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < whylen && ((r = read(wp[0], why + n, whylen - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
		if (r > 0)
			n += (size_t)r;
	why[n] = '\0';
	close(wp[0]);
	while (g->pids[0] && main_reap(sw, o, g, true, &mstatus))
		;
	/* a master killed (the OOM killer's SIGKILL): -(128 + signal) */
	return WIFEXITED(mstatus) ? WEXITSTATUS(mstatus)
	       : WIFSIGNALED(mstatus) ? -(128 + WTERMSIG(mstatus)) : -1;
}

int sweep_fork_run(const struct sweep *sw, const struct sweep_run_opts *o, int *todo, int *ntodo,
		   int *nforked, int *worst, struct sim_error *err)
{
	char why[SIM_ERRMSG_MAX];
	struct fork_plan pl;
	*nforked = 0;
	*worst = 0;
	if (o->no_fork || *ntodo < 2)
		return 0; /* nothing to share (a resumed sweep with a point left) */
	if (!plan_make(sw, todo, *ntodo, &pl, why, sizeof(why))) {
		if (o->log && pl.nph) /* a sweep without a phase axis has nothing to fork */
			fprintf(o->log, "mobisim: %s: every point runs from t = 0: %s\n", sw->file, why);
		return 0;
	}
	bool *forked = calloc((size_t)sw->npoints, sizeof(bool));
	struct grand g = { .cap = 1 + o->jobs, .rep_fd = -1, .forked = forked };
	g.pids = calloc((size_t)g.cap, sizeof(*g.pids));
	g.point = calloc((size_t)g.cap, sizeof(*g.point));
	int tok[2] = { -1, -1 };
	if (!forked || !g.pids || !g.point || pipe(tok)) {
		free(forked);
		free((void *)g.pids);
		free(g.point);
		plan_free(&pl);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	g.tok_wr = tok[1];
	for (int j = 0; j < o->jobs; j++)
		if (write(tok[1], "t", 1) != 1)
			break;
	/* a master's runs still going when it ends come to us */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	results_signal_children(g.pids, (size_t)g.cap);
	bool said = false;
	for (int f = 0; f < pl.nfam; f++) {
		if (pl.fam[f].n < 2)
			continue;
		why[0] = '\0';
		int code = family_run(sw, &pl, &pl.fam[f], o, &g, tok, why, sizeof(why));
		if (code < -128 && o->log) {
			/* not a failed point (each is forked or runs from t = 0 below,
			 * the same result), but memory or a bug the user should know of */
			int sig = -code - 128, left = 0;
			for (int i = 0; i < pl.fam[f].n; i++)
				left += !forked[pl.fam[f].pts[i]];
			fprintf(o->log, "mobisim: %s: the run forking %d points at their phases was killed "
				"(signal %d, %s) after %d of them; the other %d run from t = 0\n", sw->file,
				pl.fam[f].n, sig, strsignal(sig), pl.fam[f].n - left, left);
		}
		if (code == 3 && !said && o->log) {
			fprintf(o->log, "mobisim: %s: runs from t = 0 where it cannot fork: %s\n", sw->file,
				why[0] ? why : "the prefix could not be built");
			said = true;
		}
	}
	/* the last families' runs */
	int mstatus = 0;
	while (main_reap(sw, o, &g, true, &mstatus))
		;
	close(tok[0]);
	close(tok[1]);
	results_signal_children(NULL, 0);
	free((void *)g.pids);
	free(g.point);
	*worst = g.worst;
	/* what was forked is done (or failed and said so); the rest runs the
	 * plain way */
	int k = 0;
	for (int i = 0; i < *ntodo; i++) {
		if (forked[todo[i]])
			(*nforked)++;
		else
			todo[k++] = todo[i];
	}
	*ntodo = k;
	free(forked);
	plan_free(&pl);
	return 0;
}
