/* Atomic output files and the signal handlers that clean up after them
 * (the rules are in sim/results.h): what every writer of a result, trace or
 * profile uses, whatever layer it is in. The result document itself is
 * sim/results.c.
 */
#define _GNU_SOURCE /* mkostemp */
#include "sim/results.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

/* ------------------------------------------------------------ output files
 *
 * Why the rules of results.h: mobisim runs as root on lab machines, so
 * renaming a temporary over whatever a path names would replace /dev/null
 * or a symlink with a regular file, and a predictable temporary name opened
 * without O_EXCL lets anyone who can write the directory plant a symlink
 * that mobisim then writes through. */

/* Temporaries to remove on a signal: a list the handler only walks. Nodes
 * are published fully written and never freed, only marked unused and
 * reused, so the handler never sees a half-made entry; there is no fixed
 * limit (a per-CPU blktrace set has a temporary per CPU). owner is the pid
 * that created the file, so a forked sweep worker does not remove its
 * parent's temporaries. */
struct tmp_node {
	struct tmp_node *next;
	volatile sig_atomic_t used;
	pid_t owner;
	size_t cap;
	char path[];
};
static struct tmp_node *volatile tmp_head;

static struct tmp_node *tmp_register(const char *path)
{
	size_t n = strlen(path) + 1;
	struct tmp_node *t;
	for (t = tmp_head; t; t = t->next)
		if (!t->used && t->cap >= n)
			break;
	if (!t) {
		t = malloc(sizeof(*t) + n);
		if (!t)
			return NULL; /* the file is still removed on errors and aborts */
		t->used = 0;
		t->cap = n;
		t->next = tmp_head;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		tmp_head = t;
	}
	memcpy(t->path, path, n);
	t->owner = getpid();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->used = 1;
	return t;
}

static void tmp_unregister(struct tmp_node *t)
{
	if (t)
		t->used = 0;
}

/* Child processes that stop with this one (a sweep's pool, set with
 * results_signal_children): the handler forwards the signal to each and
 * waits for it, so no worker outlives the parent and every worker removes
 * its own temporaries. */
static volatile pid_t *sig_children;
static volatile size_t sig_nchildren;
static volatile sig_atomic_t sig_quiet;

void results_signal_children(volatile pid_t *pids, size_t n)
{
	sig_nchildren = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sig_children = pids;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sig_nchildren = pids ? n : 0;
}

void results_signal_quiet(void)
{
	sig_quiet = 1;
}

static void put_str(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	ssize_t w = write(STDERR_FILENO, s, n);
	(void)w;
}

static void on_signal(int sig)
{
	pid_t self = getpid();
	const char *name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
	size_t nk = sig_nchildren, stopped = 0;
	for (size_t i = 0; i < nk; i++)
		if (sig_children[i] > 0)
			kill(sig_children[i], sig);
	if (!sig_quiet) {
		put_str("mobisim: interrupted by ");
		put_str(name);
	}
	for (struct tmp_node *t = tmp_head; t; t = t->next) {
		if (!t->used || t->owner != self)
			continue;
		unlink(t->path);
		if (!sig_quiet) {
			put_str("; removed the unfinished ");
			put_str(t->path);
		}
	}
	for (size_t i = 0; i < nk; i++) {
		pid_t c = sig_children[i];
		if (c <= 0)
			continue;
		while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
			;
		stopped++;
	}
	if (stopped && !sig_quiet) {
		char num[24], *p = num + sizeof(num) - 1;
		*p = '\0';
		do
			*--p = (char)('0' + stopped % 10);
		while ((stopped /= 10) > 0);
		put_str("; stopped ");
		put_str(p);
		put_str(" running worker(s), each removing its unfinished file (--resume continues)");
	}
	if (!sig_quiet)
		put_str("\n");
	_exit(128 + sig);
}

void results_install_signal_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa;
		/* nohup and background jobs ignore some: keep that */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t j = 0; j < sizeof(sigs) / sizeof(sigs[0]); j++)
			sigaddset(&sa.sa_mask, sigs[j]);
		sigaction(sigs[i], &sa, NULL);
	}
}

int results_finish_stdout(int status)
{
	/* ferror catches a write that failed earlier; the flush, what is left */
	errno = 0;
	bool bad = ferror(stdout) != 0;
	int e = errno;
	if (fflush(stdout) != 0) {
		bad = true;
		e = errno;
	}
	if (!bad)
		return status;
	/* a failed buffered write leaves no errno behind: try once more */
	if (e == 0) {
		clearerr(stdout);
		if (fputc('\n', stdout) == EOF || fflush(stdout) != 0)
			e = errno;
	}
	fprintf(stderr, "mobisim: stdout: %s\n", e ? strerror(e) : "write error");
	return status ? status : 1;
}

struct results_out {
	char *path;   /* as given, for messages */
	char *target; /* what is renamed over (path, or a symlink's target) */
	char *tmp;    /* NULL when direct */
	struct tmp_node *slot;
	FILE *f;
	bool is_stdout;
};

bool results_out_is_direct(const struct results_out *o)
{
	return o->tmp == NULL;
}

const char *results_out_tmp_path(const struct results_out *o)
{
	return o->tmp;
}

FILE *results_out_file(struct results_out *o)
{
	return o->f;
}

static void out_free(struct results_out *o)
{
	free(o->path);
	free(o->target);
	free(o->tmp);
	free(o);
}

void results_out_abort(struct results_out *o)
{
	if (!o)
		return;
	if (o->f && !o->is_stdout)
		fclose(o->f);
	if (o->tmp) {
		unlink(o->tmp);
		tmp_unregister(o->slot);
	}
	out_free(o);
}

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
									 : "not a regular file";
}

/* The temporary: ".NAME.XXXXXX" next to target, created O_EXCL (so not
 * through anything planted there), with the mode the final file should
 * have: the replaced file's, or 0666 less the umask. */
static int out_make_tmp(struct results_out *o, const struct stat *old, struct sim_error *err)
{
	const char *slash = strrchr(o->target, '/');
	const char *base = slash ? slash + 1 : o->target;
	int dlen = slash ? (int)(slash - o->target) : 0;
	size_t n = strlen(o->target) + 16;
	o->tmp = malloc(n);
	if (!o->tmp)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	/* NAME_MAX: keep the temporary's name within it */
	if (slash)
		snprintf(o->tmp, n, "%.*s/.%.200s.XXXXXX", dlen, o->target, base);
	else
		snprintf(o->tmp, n, ".%.200s.XXXXXX", base);
	/* A signal between creating the file and listing it would leave it
	 * behind: hold the three signals over both steps. */
	sigset_t sigs, oldmask;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, &oldmask);
	int fd = mkostemp(o->tmp, O_CLOEXEC);
	int mk_errno = errno;
	if (fd >= 0)
		o->slot = tmp_register(o->tmp);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return sim_errorf(err, SIM_E_IO, "%s: cannot create a temporary file next to it: %s",
				  o->path, strerror(mk_errno));
	}
	if (old) {
		(void)fchmod(fd, old->st_mode & 07777);
		if (geteuid() == 0) /* root replacing someone's file keeps it theirs */
			(void)fchown(fd, old->st_uid, old->st_gid);
	} else {
		mode_t mask = umask(0);
		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;
		close(fd);
		return sim_errorf(err, SIM_E_IO, "%s: %s", o->path, strerror(e));
	}
	return 0;
}

int results_out_open(const char *path, struct results_out **out, struct sim_error *err)
{
	*out = NULL;
	struct results_out *o = calloc(1, sizeof(*o));
	if (!o)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	o->path = strdup(path);
	if (!o->path) {
		out_free(o);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	if (strcmp(path, "-") == 0) {
		o->is_stdout = true;
		o->f = stdout;
		*out = o;
		return 0;
	}
	struct stat lst, st;
	int rc = 0;
	if (lstat(path, &lst) != 0) {
		if (errno != ENOENT) {
			rc = sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(errno));
		} else if (!(o->target = strdup(path))) {
			rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
		} else {
			rc = out_make_tmp(o, NULL, err);
		}
	} else if (stat(path, &st) != 0) {
		rc = sim_errorf(err, SIM_E_INPUT, "%s: %s (a dangling symbolic link is not replaced)",
				path, strerror(errno));
	} else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
			rc = sim_errorf(err, SIM_E_IO, "%s: cannot open: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
		}
	} else if (S_ISREG(st.st_mode)) {
		o->target = S_ISLNK(lst.st_mode) ? realpath(path, NULL) : strdup(path);
		if (!o->target)
			rc = sim_errorf(err, SIM_E_IO, "%s: %s", path, strerror(errno));
		else
			rc = out_make_tmp(o, &st, err);
	} else {
		rc = sim_errorf(err, SIM_E_INPUT,
				"%s: is %s; output goes to a regular file, a character device, a FIFO or -",
				path, kind_of(st.st_mode));
	}
	if (rc) {
		results_out_abort(o);
		return rc;
	}
	*out = o;
	return 0;
}

int results_out_ready(struct results_out *o, struct sim_error *err)
{
	const char *name = o->is_stdout ? "stdout" : o->path;
	if (ferror(o->f) || fflush(o->f) != 0)
		return sim_errorf(err, SIM_E_IO, "%s: write failed: %s", name,
				  errno ? strerror(errno) : "write error");
	if (o->tmp && fsync(fileno(o->f)) != 0)
		return sim_errorf(err, SIM_E_IO, "%s: write failed: %s", name, strerror(errno));
	return 0;
}

/* The temporaries of a hold, in commit order (results_hold_begin). */
struct held_out {
	char *tmp, *target, *path;
	struct tmp_node *slot;
};
static struct {
	bool on;
	struct held_out *v;
	size_t n, cap;
} hold;

void results_hold_begin(void)
{
	hold.on = true;
	hold.n = 0;
}

int results_hold_end(bool commit, struct sim_error *err)
{
	int rc = 0;
	for (size_t i = 0; i < hold.n; i++) {
		struct held_out *h = &hold.v[i];
		if (commit && !rc && rename(h->tmp, h->target) != 0)
			rc = sim_errorf(err, SIM_E_IO, "%s: cannot replace: %s", h->path, strerror(errno));
		else if (!commit || rc)
			unlink(h->tmp);
		tmp_unregister(h->slot);
		free(h->tmp);
		free(h->target);
		free(h->path);
	}
	free(hold.v);
	hold.v = NULL;
	hold.n = hold.cap = 0;
	hold.on = false;
	return rc;
}

/* Keep o's closed temporary for results_hold_end; false when out of memory
 * (then the caller renames it at once). */
static bool hold_keep(struct results_out *o)
{
	if (hold.n == hold.cap) {
		size_t cap = hold.cap ? 2 * hold.cap : 8;
		struct held_out *v = realloc(hold.v, cap * sizeof(*v));
		if (!v)
			return false;
		hold.v = v;
		hold.cap = cap;
	}
	hold.v[hold.n++] = (struct held_out){ o->tmp, o->target, o->path, o->slot };
	o->tmp = o->target = o->path = NULL;
	return true;
}

int results_out_commit(struct results_out *o, struct sim_error *err)
{
	if (o->is_stdout) {
		int bad = ferror(stdout) || fflush(stdout) != 0;
		int e = errno;
		out_free(o);
		return bad ? sim_errorf(err, SIM_E_IO, "stdout: %s", strerror(e)) : 0;
	}
	int rc = 0;
	if (ferror(o->f) || fflush(o->f) != 0)
		rc = sim_errorf(err, SIM_E_IO, "%s: write failed: %s", o->path, strerror(errno));
	else if (o->tmp && fsync(fileno(o->f)) != 0)
		rc = sim_errorf(err, SIM_E_IO, "%s: write failed: %s", o->path, strerror(errno));
	int closed = fclose(o->f);
	o->f = NULL;
	if (!rc && closed != 0)
		rc = sim_errorf(err, SIM_E_IO, "%s: write failed: %s", o->path, strerror(errno));
	if (!rc && o->tmp && hold.on && hold_keep(o)) {
		out_free(o);
		return 0;
	}
	if (!rc && o->tmp && rename(o->tmp, o->target) != 0)
		rc = sim_errorf(err, SIM_E_IO, "%s: cannot replace: %s", o->path, strerror(errno));
	if (o->tmp) {
		if (rc)
			unlink(o->tmp);
		tmp_unregister(o->slot);
	}
	out_free(o);
	return rc;
}

int results_write_text_atomic(const char *path, const char *text, size_t len,
			      struct sim_error *err)
{
	struct results_out *o;
	int rc = results_out_open(path, &o, err);
	if (rc)
		return rc;
	if (len && fwrite(text, 1, len, results_out_file(o)) != len) {
		int e = errno;
		results_out_abort(o);
		return sim_errorf(err, SIM_E_IO, "%s: write failed: %s", strcmp(path, "-") ? path : "stdout",
				  strerror(e));
	}
	return results_out_commit(o, err);
}

bool results_same_output(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return true;
	if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return false;
	struct stat sa, sb;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	/* one does not exist yet: the same name in the same directory? */
	char da[PATH_MAX], db[PATH_MAX];
	snprintf(da, sizeof(da), "%s", a);
	snprintf(db, sizeof(db), "%s", b);
	const char *ba = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
	const char *bb = strrchr(b, '/') ? strrchr(b, '/') + 1 : b;
	if (strcmp(ba, bb) != 0)
		return false;
	char *ra = realpath(dirname(da), NULL), *rb = realpath(dirname(db), NULL);
	bool same = ra && rb && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

int results_write_atomic(const char *path, const json_t *doc, struct sim_error *err)
{
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	if (!text)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory serialising the result");
	size_t len = strlen(text);
	/* A trailing newline makes the file friendly to diff and cat. */
	char *nl = realloc(text, len + 2);
	if (!nl) {
		free(text);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory serialising the result");
	}
	nl[len] = '\n';
	nl[len + 1] = '\0';
	int rc = results_write_text_atomic(path, nl, len + 1, err);
	free(nl);
	return rc;
}
