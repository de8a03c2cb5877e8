/* A sweep's point index: what the summary reads of each point's result,
 * kept beside the point files so a summary of 10^4 points does not parse
 * 10^4 result documents again (see sweep_index.c). */
#ifndef MOBISIM_CLI_SWEEP_INDEX_H
#define MOBISIM_CLI_SWEEP_INDEX_H

#include <stdbool.h>

struct json_t;
struct sweep;
struct sweep_point;
struct sweep_index;

/* The row of point p as the summary needs it, computed from its result doc:
 * {"keys": [cell per sweep key], "seed": cell (seeds derived only),
 *  "metrics": [cell per metric], "absent": [indices of metrics not in doc],
 *  "phase_key": the first task start key or "", "warnings": [...]}.
 * NULL when out of memory. */
struct json_t *sweep_row_from_doc(const struct sweep *sw, const struct sweep_point *p,
				  const struct json_t *doc);

/* Append point p's row to OUT/points-index.jsonl, tagged with the identity
 * of point_file (inode, size, modification time) as it stands now and with
 * the summary's spec. Best effort: the index is a cache, a failure costs a
 * parse later, never a wrong row. */
void sweep_index_append(const struct sweep *sw, const struct sweep_point *p,
			const char *out_dir, const char *point_file, const struct json_t *row);

/* The index of sweep output directory OUT (empty when there is none or it is unreadable). */
struct sweep_index *sweep_index_load(const struct sweep *sw, const char *out_dir);

/* Point p's row (a new reference) when the index has one written under
 * this summary spec and point_file is still the file it was written for;
 * else NULL. ix may be NULL. */
struct json_t *sweep_index_row(struct sweep_index *ix, const struct sweep_point *p,
			       const char *point_file);

void sweep_index_free(struct sweep_index *ix);

#endif
