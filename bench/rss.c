/* Resource figures of one command, for scripts/bench where GNU time may be
 * absent: runs COMMAND, waits for it, and prints to stderr
 *
 *     rss: wall_s W user_s U sys_s S cpu_s C peak_rss_kib K exit X
 *
 * from wait4()'s rusage of the child (ru_maxrss is the child's own peak
 * resident set, in KiB on Linux). The command's stdout and stderr pass
 * through untouched. Exit status: the child's (128 + signal if killed),
 * 127 when it could not be started.
 *
 * usage: rss COMMAND [ARG]...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double rss_tv(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rss COMMAND [ARG]...\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("rss: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "rss: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("rss: wait4");
			return 127;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	double user = rss_tv(ru.ru_utime), sys = rss_tv(ru.ru_stime);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(stderr, "rss: wall_s %.6f user_s %.6f sys_s %.6f cpu_s %.6f peak_rss_kib %ld exit %d\n",
		wall, user, sys, user + sys, ru.ru_maxrss, code);
	return code;
}
