/* Launch profiles, shared by the prefetch (FAST) and padding (ESL'20)
 * policies: the block requests one launch issued, mapped back to (file,
 * offset) through a per-app LBA-to-extent red-black tree (FAST's
 * LBA-to-inode map), kept in memory and saved to / loaded from a small TSV
 * file so that a recording run and a replaying run can be two invocations
 * of the CLI.
 *
 * File format (tab-separated, '#' comments, one line per piece; a request
 * that spans files gives several pieces with the same seq):
 *   # mobisim launch profile 1
 *   # app  seq  kind  file  off_bytes  len_bytes  lba
 *   app    0    meta  (bdev)  4296278016  4096  8391168
 *   app    1    data  app/ws0 0  131072  8523776
 * kind is data or meta; file "(bdev)" is the block device (metadata and
 * sectors of no file the app opened). lba is informative: on load the
 * sector is recomputed from the file's current layout.
 */
#ifndef MODELS_LAUNCHPROF_H
#define MODELS_LAUNCHPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/error.h"
#include "sim/rbtree.h"

struct stack;
struct stack_file;

enum lprof_kind { LPROF_DATA = 0, LPROF_META = 1 };

struct lprof_piece {
	struct stack_file *file;
	uint64_t off, len;   /* bytes, page aligned */
	uint64_t lba;        /* first sector */
	uint32_t seq;        /* request number in the launch */
	uint8_t kind;        /* enum lprof_kind */
};

struct lprof_app {
	char *name;
	struct lprof_piece *p;
	size_t n, cap;
	uint32_t nreq;       /* requests recorded */
	/* lprof_load: pieces naming a file this scenario does not have (the
	 * first one's line and name, for the error when the app launches) */
	uint32_t unresolved;
	int missing_line;
	char *missing_file;
};

struct lprof {
	struct lprof_app **apps;     /* stable pointers: recorders keep them */
	size_t napps, cap;
};

/* The app named name, created when absent (NULL on allocation failure). */
struct lprof_app *lprof_app_get(struct lprof *pr, const char *name);
const struct lprof_app *lprof_find(const struct lprof *pr, const char *name);
int lprof_push(struct lprof_app *a, const struct lprof_piece *pc);
/* Forget an app's records (a new recording replaces the old). */
void lprof_app_clear(struct lprof_app *a);
void lprof_free(struct lprof *pr);

/* Write every app to path atomically (path.tmp + rename). 0 or SIM_E_IO. */
int lprof_save(const struct lprof *pr, const char *path, struct sim_error *err);
/* Read path, resolving file names in s. SIM_E_IO when it cannot be
 * opened, SIM_E_INPUT naming path:line for a bad line. A line naming a
 * file s does not have is skipped and counted in its app's unresolved
 * (an app of a larger recording that this run does not launch is fine;
 * lprof_check_app() refuses an app that launches with such pieces). */
int lprof_load(struct lprof *pr, const char *path, struct stack *s, struct sim_error *err);

/* 0, or SIM_E_INPUT naming path:line of the app's first unknown file. */
int lprof_check_app(const struct lprof_app *a, const char *path, struct sim_error *err);

/* ------------------------------------------------ LBA-to-extent tree */

struct lprof_map {
	struct rb_root root;
	size_t nodes;
	struct stack_file **files;   /* files added, in order */
	size_t nfiles, cap;
};

void lprof_map_init(struct lprof_map *m);
/* Add every extent of f (once per file). 0 or SIM_E_NOMEM. */
int lprof_map_add_file(struct lprof_map *m, struct stack_file *f);
bool lprof_map_has_file(const struct lprof_map *m, const struct stack_file *f);
/* The extent holding sector lba: its file, the byte offset of lba in it
 * and the sectors left in the extent. Returns false when no added file
 * holds lba; *next_lba is then the next sector some file holds
 * (UINT64_MAX none). */
bool lprof_map_lookup(const struct lprof_map *m, uint64_t lba, struct stack_file **f,
		      uint64_t *off, uint64_t *run, uint64_t *next_lba);
void lprof_map_free(struct lprof_map *m);

/* Map one request (sector, nr_sectors, meta flag) through m and append
 * its pieces to a; unmapped sectors go to bdev (metadata when meta). */
int lprof_record_request(struct lprof_app *a, const struct lprof_map *m, struct stack_file *bdev,
			 uint64_t sector, uint64_t nr_sectors, bool meta);

#endif
