/* The file table (the VFS's part of the upper stack, fs/namei.c and
 * fs/inode.c's role): files by name, created on first use, with their size,
 * cached pages and sectors. Implemented in models/fs/vfs.c; part of the
 * stack's public interface (models/stack/stack.h includes it), so workloads
 * and policies call it as before.
 */
#ifndef MODELS_FS_VFS_H
#define MODELS_FS_VFS_H

#include <stdint.h>

#include "sim/error.h"

struct stack;
struct stack_file;

/* The file named name, created when absent. size_bytes > 0 for a new file
 * means it already exists on disk with that much data (blocks allocated
 * now, pages not cached); 0 makes an empty file whose blocks are allocated
 * at writeback (delayed allocation). Names are copied. NULL on allocation
 * failure (err filled). */
struct stack_file *stack_file_get(struct stack *s, const char *name, uint64_t size_bytes,
				  struct sim_error *err);
struct stack_file *stack_file_find(struct stack *s, const char *name);
uint64_t stack_file_size(const struct stack_file *f);
/* Device sector of byte offset off in f, or UINT64_MAX if not allocated. */
uint64_t stack_file_lba(const struct stack_file *f, uint64_t off);
/* Pages of f in the page cache now. */
uint64_t stack_file_cached_pages(const struct stack_file *f);

#endif
