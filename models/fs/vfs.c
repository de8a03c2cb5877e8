/* The file table (models/fs/vfs.h): files by name in a hash of chains,
 * created on first use with the file system's per-inode set-up
 * (fs_ops->new_file) and, for a file that already exists on disk, its
 * blocks (fs_ops->alloc_existing); the VFS's part of the upper stack
 * (fs/namei.c, fs/inode.c). The table itself lives in struct stack.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "models/fs/vfs.h"
#include "models/fs/fs.h"

static uint32_t name_hash(const char *n)
{
	uint32_t h = 2166136261u;
	for (; *n; n++)
		h = (h ^ (uint8_t)*n) * 16777619u;
	return h;
}

struct stack_file *stack_file_find(struct stack *s, const char *name)
{
	for (struct stack_file *f = s->fhash[name_hash(name) % STACK_FHASH]; f; f = f->hnext)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

struct stack_file *stack_file_new(struct stack *s, const char *name, bool meta)
{
	struct stack_file *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = strdup(name);
	if (!f->name) {
		free(f);
		return NULL;
	}
	f->id = s->next_file_id++;
	f->is_meta = meta;
	f->ra.prev_page = UINT64_MAX;
	list_init(&f->mapping.dirty_node);
	list_init(&f->ei.ordered_node);
	list_add_tail(&f->all_node, &s->files);
	uint32_t b = name_hash(name) % STACK_FHASH;
	f->hnext = s->fhash[b];
	s->fhash[b] = f;
	s->nfiles++;
	if (!meta)
		s->fs.ops->new_file(s, f);
	return f;
}

struct stack_file *stack_file_get(struct stack *s, const char *name, uint64_t size_bytes,
				  struct sim_error *err)
{
	struct stack_file *f = stack_file_find(s, name);
	if (f)
		return f;
	f = stack_file_new(s, name, false);
	if (!f) {
		sim_errorf(err, SIM_E_NOMEM, "out of memory creating file %s", name);
		return NULL;
	}
	if (size_bytes > 0) {
		if (s->fs.ops->alloc_existing(s, f, pages_of(size_bytes))) {
			sim_errorf(err, SIM_E_NOMEM, "out of memory allocating file %s", name);
			return NULL;
		}
		f->size = size_bytes;
	}
	return f;
}

uint64_t stack_file_size(const struct stack_file *f) { return f->size; }
uint64_t stack_file_cached_pages(const struct stack_file *f) { return f->mapping.nr_pages; }

uint64_t stack_file_lba(const struct stack_file *f, uint64_t off)
{
	return fs_map(f, off >> STACK_PAGE_SHIFT, NULL);
}
