/* Who issues a FAST launch sequence, and what each issue costs: the
 * user-level prefetcher of FAST (USENIX FAST 2011: a generated program,
 * started by a syscall wrapper when the app is exec'd, that open()s each
 * file and calls posix_fadvise(WILLNEED) per extent) against the
 * dissertation's in-kernel prefetcher (Joo 2013: the sequence is issued
 * as block requests from inside the kernel, with no system call, no
 * open() and no per-page page-cache probe of fadvise's path).
 *
 * The pure part: for a step of the plan, the CPU the issuing thread
 * spends before it, and whether a level opens files and waits for a
 * spawn delay. No simulator state is touched; the policy
 * (models/policies/prefetch.c) turns the answers into ops.
 */
#ifndef MODELS_PFLEVEL_H
#define MODELS_PFLEVEL_H

#include <stdbool.h>
#include <stdint.h>

enum pflevel { PFLEVEL_USER = 0, PFLEVEL_KERNEL = 1 };

struct pflevel_costs {
	int64_t spawn_ns;       /* user: exec detected -> prefetcher's first call */
	int64_t syscall_ns;     /* user: one fadvise() call, entry to return, fixed part */
	int64_t page_probe_ns;  /* user: per page of the range (find_get_page in
				 * __do_page_cache_readahead's loop) */
	int64_t open_ns;        /* user: one open() + close() with the dentry cached */
};
/* The work both levels share (allocating and inserting the pages, building
 * and submitting the bios) is charged at neither, as for every reader. */

/* CPU ns the issuing thread spends on one extent of npages pages. */
int64_t pflevel_extent_ns(enum pflevel lv, const struct pflevel_costs *c, uint64_t npages);
/* CPU ns before a file's first extent (user: the open(); kernel: none). */
int64_t pflevel_open_ns(enum pflevel lv, const struct pflevel_costs *c);
/* Whether the level opens files through the VFS (so a file's first extent
 * waits for its inode block). */
bool pflevel_opens_files(enum pflevel lv);
/* Delay from the app's exec to the prefetcher's first issue. */
int64_t pflevel_start_delay_ns(enum pflevel lv, const struct pflevel_costs *c);
/* System calls one extent / one file costs at this level. */
uint64_t pflevel_extent_calls(enum pflevel lv);
uint64_t pflevel_open_calls(enum pflevel lv);

#endif
