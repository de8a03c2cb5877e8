/* Interfaces of the file-system layer beyond struct fs_ops (which lives in
 * models/stack/stack_int.h with the structures the upper stack shares):
 * helpers one fs file offers another. */
#ifndef MODELS_FS_FS_H
#define MODELS_FS_FS_H

#include "models/stack/stack_int.h"

/* truncate_inode_pages: wait for every page of f under writeback, in index
 * order from t->os.fcursor (wait_on_page_writeback; the boost hook sees
 * the async ones). STEP_BLOCK while waiting, STEP_DONE when none is left. */
enum step fs_wait_all_writeback(struct stack_task *t, struct stack_file *f);

#endif
