/* File system kinds by name: `fs: {kind: ext4|ext3|f2fs}` picks the ops
 * table the upper stack calls (struct fs_ops, models/fs/fs.h). ext4 is
 * the Linux 3.10 ext4 + jbd2 model (fs.c, fsync.c, journal.c); ext3 the
 * 2.6.23 ext3 + jbd (kjournald) model over the same code (ext3.c); f2fs is
 * the Linux 5.15 F2FS model (f2fs.c, f2fs_gc.c). */
#include <string.h>

#include "models/fs/fs.h"

static const struct fs_ops *const fs_kinds[] = { &ext4_fs_ops, &ext3_fs_ops, &f2fs_fs_ops };

const struct fs_ops *fs_kind_find(const char *name)
{
	for (size_t i = 0; i < sizeof(fs_kinds) / sizeof(fs_kinds[0]); i++)
		if (strcmp(fs_kinds[i]->name, name) == 0)
			return fs_kinds[i];
	return NULL;
}
