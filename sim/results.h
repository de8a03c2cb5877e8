/* The result document (CONTRACT.md "Result JSON") and atomic file output. */
#ifndef SIM_RESULTS_H
#define SIM_RESULTS_H

#include "sim/error.h"

struct json_t;

/* Write doc to path atomically: a temporary file in the same directory,
 * flushed and fsynced, then renamed over path. On failure nothing is left
 * behind and SIM_E_IO is returned. path "-" writes to stdout. */
int results_write_atomic(const char *path, const struct json_t *doc, struct sim_error *err);

/* Write text (len bytes) to path with the same guarantees. */
int results_write_text_atomic(const char *path, const char *text, size_t len,
			      struct sim_error *err);

/* The temporary file an atomic write of path goes through: ".NAME.tmp.PID"
 * in path's directory, so the final rename stays on one file system.
 * malloc'd; NULL on allocation failure. */
char *results_tmp_path(const char *path);

/* Peak resident set of this process in KiB (getrusage). */
long results_peak_rss_kib(void);

#endif
