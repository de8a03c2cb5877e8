/* The result document (docs/architecture.md §5) and atomic file output. */
#ifndef SIM_RESULTS_H
#define SIM_RESULTS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "sim/error.h"

struct json_t;

/* Output files (docs/output.md). What a path names decides how it is written:
 *  - "-": stdout, directly;
 *  - a character device or a FIFO (also through a symlink, e.g. /dev/null,
 *    /dev/stdout to a pipe): opened and written directly, never replaced;
 *  - a regular file or a missing path: a hidden temporary created with
 *    O_EXCL in the same directory (mkostemp: a planted file or symlink is
 *    never followed), flushed, fsynced and renamed over the path only when
 *    everything was written; a symlink to a regular file keeps the link and
 *    replaces its target the same way;
 *  - anything else (directory, block device, socket, dangling symlink) is
 *    refused with SIM_E_INPUT.
 * While a temporary exists it is registered with the signal handlers of
 * results_install_signal_handlers(), so SIGINT/SIGTERM/SIGHUP remove it. */
struct results_out;

int results_out_open(const char *path, struct results_out **out, struct sim_error *err);
/* The stream to write to (stdout for "-"). */
FILE *results_out_file(struct results_out *o);
/* True if writes reach the path directly (stdout, device, FIFO): nothing can
 * be taken back, so a caller that can validate first should. */
bool results_out_is_direct(const struct results_out *o);
/* The temporary's path while the output is not committed (NULL when direct):
 * for a writer that needs a path rather than the stream (gnuplot drawing a
 * PNG, an SQLite database). */
const char *results_out_tmp_path(const struct results_out *o);
/* Flush and fsync, not yet in place: a command writing several files makes
 * every one ready before it commits any, so a write error (a full disk, a
 * file size limit) leaves all of them unreplaced. SIM_E_IO naming the path;
 * o stays the caller's to commit or abort. */
int results_out_ready(struct results_out *o, struct sim_error *err);
/* Flush, fsync and put the file in place; frees o. Write errors name the
 * path and errno (SIM_E_IO). */
int results_out_commit(struct results_out *o, struct sim_error *err);
/* Drop an unfinished output: the temporary is removed; frees o (NULL ok). */
void results_out_abort(struct results_out *o);
/* Several files that appear together or not at all (a run's --out,
 * --trace-out, --timeline, --db, --requests-csv): between
 * results_hold_begin() and results_hold_end(), results_out_commit writes,
 * fsyncs and closes a file's temporary but leaves it (still removed by a
 * signal). results_hold_end(true) then renames them in commit order;
 * results_hold_end(false), or a rename that fails, removes the ones not
 * yet in place (a file already renamed stays: a rename cannot be undone).
 * One hold per process at a time; 0 or SIM_E_IO naming the path. */
void results_hold_begin(void);
int results_hold_end(bool commit, struct sim_error *err);

/* Write doc (JSON, indented, newline-terminated) or text to path as above. */
int results_write_atomic(const char *path, const struct json_t *doc, struct sim_error *err);
int results_write_text_atomic(const char *path, const char *text, size_t len,
			      struct sim_error *err);

/* True if a and b name the same file (same inode, or the same directory
 * entry for a path that does not exist yet); "-" is stdout. */
bool results_same_output(const char *a, const char *b);

/* SIGINT, SIGTERM and SIGHUP (unless ignored): remove this process's
 * registered temporaries, say the run was interrupted, exit 128+signal. */
void results_install_signal_handlers(void);
/* Also stop these child processes on such a signal: forward it to each
 * pid > 0 of pids[0..n) and wait for them before exiting (pids NULL: none).
 * The caller keeps the array alive and updates it with the signals
 * blocked around fork and reaping. */
void results_signal_children(volatile pid_t *pids, size_t n);
/* In such a child: exit on a signal without a message (the parent says it). */
void results_signal_quiet(void);

/* Check stdout at the end of a command: flush it; on a write error print
 * "mobisim: stdout: <strerror>" and return 1, else return status. */
int results_finish_stdout(int status);

/* Peak resident set of this process in KiB (getrusage). */
long results_peak_rss_kib(void);

#endif
