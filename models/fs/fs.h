/* The file-system layer's interface: ext4's placement and journal (fs.c,
 * journal.c), fsync (fsync.c), the fs kinds' ops table (fs_kind.c; f2fs's
 * own state is in f2fs_int.h) and the helpers one fs file offers another.
 * The file table is models/fs/vfs.h (vfs.c). fs calls down into mm and the
 * sched layer (models/sched/sched.h). Its structures are in
 * models/fs/fs_types.h (embedded in struct stack, its tasks and files by
 * models/sched/task.h). */
#ifndef MODELS_FS_FS_H
#define MODELS_FS_FS_H

#include <stdbool.h>
#include <stdint.h>

#include "models/fs/fs_types.h"
#include "models/fs/vfs.h"
#include "models/mm/mm.h"
#include "models/stack/stack_op.h"
#include "sim/engine.h"
#include "sim/list.h"
#include "sim/rng.h"

struct cfg_param;

extern const char *const fs_atime_names[]; /* enum fs_atime (fs.c) */

/* Buckets of the file table's name hash (vfs.c). */
#define STACK_FHASH 4096u
/* A new file in the table; meta: the block device's own mapping "(bdev)",
 * which the file system does not set up (vfs.c). NULL when out of memory. */
struct stack_file *stack_file_new(struct stack *s, const char *name, bool meta);

/* ---------------------------------------------------------- fsync.c */

/* The FSYNC / FDATASYNC op and O_SYNC writes: STEP_DONE when finished. */
enum step fsync_step(struct stack_task *t, struct stack_file *f, bool datasync);

/* ------------------------------------------------------------- fs.c */

int fs_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* Place journal, inode tables and data once the journal size is known. */
void fs_layout(struct stack *s, uint64_t journal_sectors);
/* Inode placement of a new file. */
void fs_new_file(struct stack *s, struct stack_file *f);
void fs_free(struct stack *s);
/* s->fs.rng: the stream "fs" of the run's seed, or of layout_seed. */
int fs_rng_open(struct stack *s, struct sim_error *err);
/* Allocate blocks for an existing file of npages (fragmented). */
int fs_alloc_existing(struct stack *s, struct stack_file *f, uint64_t npages);
/* Delayed allocation at writeback: cover [alloc_pages, upto) from a window
 * of alloc_extent_bytes at the cursor (ext3's reservation window). */
int fs_alloc_upto(struct stack *s, struct stack_file *f, uint64_t upto);
/* The bump allocator's cursor: take sectors there (wrapping to the data
 * start); append an extent to f's map; the block group of a sector. */
uint64_t fs_take(struct fs *fs, uint64_t sectors);
int fs_add_extent(struct stack_file *f, uint64_t page, uint64_t lba, uint64_t npages);
uint32_t fs_group_of(const struct stack *s, uint64_t lba);

/* ------------------------------------------------------------ mballoc.c */

/* ext4's mballoc: read `fs:`'s mb_* and stripe keys (ext4 only). */
int fs_mb_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* Cover [alloc_pages, upto) as ext4_mb_new_blocks would: inode or
 * locality-group preallocation, normalised request, stripe alignment. */
int fs_mb_alloc_upto(struct stack *s, struct stack_file *f, uint64_t upto);
/* ext4_mb_normalize_request's window for a request of len blocks at
 * logical block lblk of a file of isize bytes: *start and *size in
 * blocks (before the clip to blocks already allocated). For tests. */
void fs_mb_normalize(uint64_t lblk, uint64_t len, uint64_t isize, uint64_t *start,
		     uint64_t *size);
/* The "mballoc" object of the fs result (NULL when not ext4's). */
struct json_t *fs_mb_to_json(const struct stack *s);
/* Sector of page index and pages left in its extent (*run), UINT64_MAX if unallocated. */
uint64_t fs_map(const struct stack_file *f, uint64_t index, uint64_t *run);
struct json_t *fs_to_json(const struct stack *s);


const struct fs_ops *fs_kind_find(const char *name);
extern const struct fs_ops ext4_fs_ops;
extern const struct fs_ops ext3_fs_ops;
/* fs.c: create/unlink/rename/truncate, shared by ext4 and ext3 (the same
 * inode, directory and bitmap updates in a handle). */
enum step ext4_namespace(struct stack_task *t, struct stack_file *f, enum stack_op_kind kind);
/* fs.c: ->free of ext4 and ext3 (the journal, then the partition). */
void ext4_free(struct stack *s);

/* ------------------------------------------------------- atime.c */

/* touch_atime of f by t's read (fs_ops.accessed of ext4 and ext3). */
enum step fs_touch_atime(struct stack_task *t, struct stack_file *f);
/* file_update_time: f's mtime and ctime are now. */
void fs_update_mtime(struct stack *s, struct stack_file *f);
extern const struct fs_ops f2fs_fs_ops;

/* fsync.c: filemap_write_and_wait_range over the whole file (fphase 0..2);
 * STEP_DONE with fphase 3 when every dirty page is written and waited. */
enum step fsync_write_and_wait(struct stack_task *t, struct stack_file *f);
/* The same over pages [first, last] only (a direct I/O's range). */
enum step fs_write_and_wait_range(struct stack_task *t, struct stack_file *f, uint64_t first,
				  uint64_t last);

/* ------------------------------------------------------- direct.c */

/* The `direct:` section (NULL: defaults). */
int fs_direct_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* A READ or WRITE op with STACK_OPF_DIRECT (t->os.op): STEP_DONE when it
 * returned (t->os.einval when it failed with EINVAL). */
enum step fs_direct_step(struct stack_task *t);
/* The result's stack.direct object, NULL when no direct op was issued. */
struct json_t *fs_direct_to_json(const struct stack *s);
/* Submit the bios chained on t->pend in order; STEP_BLOCK if one slept. */
enum step task_submit_pending(struct stack_task *t);

/* -------------------------------------------------------- journal.c */

int journal_init(struct stack *s, struct cfg_node *node, struct sim_error *err);
/* journal_init for a kind whose defaults differ: kind_table holds the keys
 * whose defaults (and sources) are the kind's, applied over the shared
 * table; name is the commit thread's (jbd2/sda-8, kjournald). */
int journal_init_kind(struct stack *s, struct cfg_node *node, const struct cfg_param *kind_table,
		      const char *name, struct sim_error *err);
void journal_free(struct stack *s);
/* A handle dirtied f's inode (and, if alloc, a bitmap of group): joins the running tx. */
void journal_dirty_inode(struct stack *s, struct stack_file *f, bool datasync);
void journal_dirty_group(struct stack *s, uint32_t group);
/* Delayed allocation for f happened in the running tx (ordered data). */
void journal_add_ordered(struct stack *s, struct stack_file *f);
/* ext4_free_blocks in data=ordered: the sectors go back to the allocator
 * after the running tx commits (and are discarded then with -o discard). */
void journal_free_extent(struct stack *s, uint64_t lba, uint64_t nr_sectors);
/* Ask for tid to be committed; STEP_BLOCK with t waiting (SIM_WAIT_JOURNAL). */
enum step journal_wait_commit(struct stack_task *t, uint64_t tid);
uint64_t journal_running_tid(const struct stack *s);
/* start_this_handle: STEP_BLOCK with t in wait_transaction_locked
 * (SIM_WAIT_JOURNAL_LOCKED) while the running tx is T_LOCKED; else
 * STEP_DONE, and with hold the handle counts in t_updates until
 * journal_handle_stop. */
enum step journal_handle_start(struct stack_task *t, bool hold);
void journal_handle_stop(struct stack_task *t);
/* do_get_write_access on f's inode buffer: STEP_BLOCK with t waiting
 * (SIM_WAIT_JOURNAL_BUFFER) while the committing transaction's copy of
 * it is being written to the log (BH_Shadow); else STEP_DONE. */
enum step journal_get_write_access(struct stack_task *t, struct stack_file *f);
void jbd2_run(struct stack_task *t);
/* f's writeback from before the last epoch flip has drained. */
void journal_ordered_progress(struct stack *s, struct stack_file *f);
struct json_t *journal_to_json(const struct stack *s);

/* truncate_inode_pages: wait for every page of f under writeback, in index
 * order from t->os.fcursor (wait_on_page_writeback; the boost hook sees
 * the async ones). STEP_BLOCK while waiting, STEP_DONE when none is left. */
enum step fs_wait_all_writeback(struct stack_task *t, struct stack_file *f);

#endif
