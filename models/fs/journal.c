/* Journal: a jbd2-like commit thread (Linux 3.10 fs/jbd2/commit.c,
 * transaction.c; ext4 data=ordered).
 *
 * Handles that change metadata join the running transaction: an inode
 * (its inode-table block), a block bitmap per block group touched by an
 * allocation; inodes that got blocks by delayed allocation go on the
 * transaction's ordered-data list. A commit starts when the transaction
 * is commit_interval old (JBD2_DEFAULT_MAX_COMMIT_AGE 5 s, armed when it
 * gets its first handle) or when fsync asks for it. The commit: (1) the
 * running transaction becomes the committing one and a new one opens;
 * (2) ordered mode: wait for the ordered inodes' data under writeback
 * (journal_finish_inode_data_buffers) - this is where an fsync can wait
 * for a background writer's async writeback. Two kernels, tunable
 * ordered_wait: `whole-file` is 3.10's filemap_fdatawait(mapping), a walk
 * over the whole file in index order that sleeps on every page it finds
 * under writeback, including pages the flusher puts under writeback
 * ahead of the walk while it sleeps (wait_on_page_writeback_range looks
 * the tags up again after each batch), up to i_size - 1 as it was when
 * the wait began: the commit chases a streaming flusher through the
 * writer's whole dirty backlog; `range` waits only for the pages
 * that were under writeback when the commit began (close to the
 * range-scoped filemap_fdatawait_range_keep_errors of 5.3+); each of
 * these sleeps is wait_on_page_writeback by the commit thread and goes
 * through the policies' on_wait_writeback hook with jbd2 as the waiter;
 * (3) write a descriptor block plus one block per metadata block
 * sequentially at the journal head as WRITE_SYNC; (4) after they
 * complete, the commit block with REQ_FLUSH | REQ_FUA (WRITE_FLUSH_FUA,
 * barrier mount). With async_commit (ext4 journal_async_commit, which
 * sets JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT) the commit block goes out
 * with the log blocks as plain WRITE_SYNC, without waiting for them
 * (journal_submit_commit_record before the t_iobuf_list wait), and after
 * all of them complete one empty flush (blkdev_issue_flush) is issued;
 * (5) wake the tasks waiting for this tid. The thread's
 * io_context has its own ioprio (default BE/4: kthreads run at nice 0 and
 * have no ioprio set, so CFQ uses task_nice_ioprio = 4).
 * T_LOCKED (tunable t_locked, default off = 3.11+, where ext4_writepages
 * stops its handle before ext4_io_submit so in the model no handle is open
 * across a sleep; on = 3.10; jbd2_journal_commit_transaction,
 * start_this_handle -> wait_transaction_locked): before (1) the commit
 * locks the running transaction and waits for its open handles
 * (t_updates) to stop; the flusher holds one per run it maps, from
 * ext4_da_writepages' ext4_journal_start through mpage_da_map_and_submit,
 * so a flusher asleep in get_request submitting the run's bios delays
 * the commit. Meanwhile a new handle - a write's ext4_da_write_begin, an
 * fsync's writepages, the flusher's next run - sleeps until the switch
 * (cause journal_locked, also the commit's own wait). Handles of writes
 * and fsync are not counted in t_updates (they sleep in no modelled
 * place while they hold one); file_update_time's ext4_dirty_inode handle
 * and create/unlink handles do not wait.
 * BH_Shadow (tunable shadow_wait, default off only so that results
 * documented before it stay as they are; every jbd2 has it; on in the
 * S6 platform file): from the log write's start (JP_LOG) until its
 * completion (the t_iobuf_list wait) the committing transaction's
 * metadata buffers are shadowed; a write that dirties an inode of that
 * transaction (ext4_dirty_inode -> do_get_write_access) sleeps until then
 * (journal_buffer). Bitmap buffers and create/unlink handles do not wait.
 * What a commit's waiter waits for (tunable wait_by_phase, off by default
 * so that results documented before it stay as they are; on in the S6
 * platform file): an fsync sleeping in jbd2_log_wait_commit is booked
 * under the commit's current step - journal_locked while T_LOCKED waits
 * for open handles, journal_ordered while the ordered-data wait runs,
 * journal for the log and commit-block writes - so the FG's one long
 * commit wait shows which of the commit's steps it was.
 * Discard at commit (tunable discard, ext4 -o discard; default off, on in
 * the S6 platform file, whose fstab has it): in data=ordered ext4_free_blocks
 * does not return freed data blocks at once but hangs them on the running
 * transaction (ext4_mb_free_metadata); after the commit block, the commit
 * callback (ext4_journal_commit_callback -> ext4_free_data_callback) issues
 * one synchronous discard per freed extent (ext4_issue_discard ->
 * sb_issue_discard, which waits). j_commit_sequence has moved on, but the
 * commit's waiters are woken (j_wait_done_commit) only after the callback,
 * so an fsync waits for the discards too (journal_discard with
 * wait_by_phase). 3.10: fs/jbd2/commit.c T_COMMIT_CALLBACK, fs/ext4/mballoc.c.
 * jbd, ext3's journal (2.6.23 fs/jbd/commit.c; models/fs/ext3.c sets it
 * up): ordered_submit makes the commit thread write the ordered inodes'
 * dirty pages itself before waiting for them (jbd_ordered_data below);
 * barrier off sends the commit block without FLUSH|FUA; sync_writes off
 * sends the log and commit blocks as plain WRITE (async to CFQ).
 * Left out: checkpointing (journalled metadata written in place later),
 * revoke records, journal-full stalls, jbd2's ordered-data *submission* of
 * dirty pages that already have blocks (journal_submit_inode_data_buffers;
 * ext4's ->writepage skips delalloc pages anyway), do_get_write_access'
 * lock_buffer waits (a metadata buffer is locked only while it is written
 * in place: checkpointing and the block device's writeback, neither
 * modelled), the immediate discard of data=writeback, and the merging of
 * adjacent freed extents of different handles (ext4_mb_free_metadata merges
 * in its rb-tree; here only a run that continues the last one is merged).
 */
#include <stddef.h>
#include <stdlib.h>

#include <jansson.h>

#include "models/fs/fs.h"
#include "sim/assert.h"
#include "sim/sim.h"

static const char *const journal_ordered_wait_names[] = { "range", "whole-file", NULL };

static const struct cfg_param journal_params_table[] = {
	{ "enabled", CFG_T_BOOL, offsetof(struct journal_params, enabled), "", "true", CFG_NO_RANGE,
	  "ext4 with has_journal (Android default)", "model the jbd2 journal", NULL },
	{ "commit_interval_ms", CFG_T_TIME, offsetof(struct journal_params, commit_interval_ns), "ms",
	  "5s", 1, 3.6e6, "include/linux/jbd2.h JBD2_DEFAULT_MAX_COMMIT_AGE 5 (s)",
	  "age at which the running transaction is committed", NULL },
	{ "journal_bytes", CFG_T_SIZE, offsetof(struct journal_params, journal_bytes), "MiB",
	  "128MiB", 1, 1e6, "mke2fs default journal for a 16-128 GiB file system (RECALL)",
	  "size of the circular journal area", NULL },
	{ "ioprio_class", CFG_T_INT, offsetof(struct journal_params, ioprio_class), "", "2", 0, 3,
	  "jbd2 kthread: no ioprio set -> CFQ BE (include/linux/ioprio.h)",
	  "journal thread I/O class (1 RT, 2 BE, 3 IDLE)", NULL },
	{ "ioprio_level", CFG_T_INT, offsetof(struct journal_params, ioprio_level), "", "4", 0, 7,
	  "task_nice_ioprio(nice 0) = 4", "journal thread I/O priority level", NULL },
	{ "ordered", CFG_T_BOOL, offsetof(struct journal_params, ordered), "", "true", CFG_NO_RANGE,
	  "ext4 default data=ordered", "commit waits for the data it allocated", NULL },
	{ "ordered_wait", CFG_T_ENUM, offsetof(struct journal_params, ordered_wait), "", "range",
	  CFG_NO_RANGE,
	  "fs/jbd2/commit.c journal_finish_inode_data_buffers: 3.10 filemap_fdatawait (whole-file); "
	  "5.3+ filemap_fdatawait_range_keep_errors (range)",
	  "whole-file: wait for every page found under writeback in a walk over the file (chases the "
	  "flusher); range: only the pages under writeback when the commit began",
	  journal_ordered_wait_names },
	{ "async_commit", CFG_T_BOOL, offsetof(struct journal_params, async_commit), "", "false",
	  CFG_NO_RANGE, "ext4 mount option journal_async_commit (fs/jbd2/commit.c ASYNC_COMMIT)",
	  "commit block without FLUSH/FUA and without waiting for the log blocks; one empty flush "
	  "after", NULL },
	{ "t_locked", CFG_T_BOOL, offsetof(struct journal_params, t_locked), "", "false", CFG_NO_RANGE,
	  "fs/jbd2/commit.c jbd2_journal_commit_transaction: T_LOCKED, wait for t_updates == 0; "
	  "transaction.c start_this_handle -> wait_transaction_locked; 3.10 fs/ext4/inode.c "
	  "ext4_da_writepages holds a handle across mpage_da_map_and_submit (3.11+ "
	  "ext4_writepages stops it before ext4_io_submit: false)",
	  "the commit waits for open handles (the flusher's, across its bio submission) and new "
	  "handles wait for the commit to switch transactions (journal_locked)", NULL },
	{ "shadow_wait", CFG_T_BOOL, offsetof(struct journal_params, shadow_wait), "", "false",
	  CFG_NO_RANGE,
	  "fs/jbd2/transaction.c do_get_write_access: wait_on_bit(BH_Unshadow) while the "
	  "committing transaction's copy is in the log I/O; commit.c clears BH_Shadow after "
	  "the t_iobuf_list wait",
	  "a write that dirties an inode the commit is writing to the log waits for that write "
	  "(journal_buffer)", NULL },
	{ "wait_by_phase", CFG_T_BOOL, offsetof(struct journal_params, wait_by_phase), "", "false",
	  CFG_NO_RANGE,
	  "fs/jbd2/commit.c jbd2_journal_commit_transaction: a waiter in jbd2_log_wait_commit "
	  "sleeps until j_commit_sequence passes its tid, i.e. through every step of the commit",
	  "book a task's wait for a commit under the step the commit is in: journal_locked "
	  "(T_LOCKED), journal_ordered (ordered-data wait), journal (log and commit block)", NULL },
	{ "discard", CFG_T_BOOL, offsetof(struct journal_params, discard), "", "false", CFG_NO_RANGE,
	  "ext4 mount option discard; 3.10 fs/ext4/mballoc.c ext4_free_data_callback -> "
	  "ext4_issue_discard, run from jbd2's commit callback before j_wait_done_commit",
	  "after a commit, one synchronous discard per data extent freed in it; its waiters wait "
	  "(journal_discard)", NULL },
	{ "ordered_submit", CFG_T_BOOL, offsetof(struct journal_params, ordered_submit), "", "false",
	  CFG_NO_RANGE,
	  "3.10 ext4: ->writepage skips delalloc pages, so jbd2's journal_submit_inode_data_buffers "
	  "submits nothing of note (false); jbd (ext3) journal_submit_data_buffers: true",
	  "the commit thread itself writes the ordered inodes' dirty pages (plain WRITE, its own "
	  "io_context) before waiting for them", NULL },
	{ "barrier", CFG_T_BOOL, offsetof(struct journal_params, barrier), "", "true", CFG_NO_RANGE,
	  "3.10 ext4 default barrier=1 (fs/ext4/super.c set_opt(sb, BARRIER))",
	  "the commit block goes out with FLUSH|FUA", NULL },
	{ "sync_writes", CFG_T_BOOL, offsetof(struct journal_params, sync_writes), "", "true",
	  CFG_NO_RANGE,
	  "3.10 fs/jbd2/commit.c: log blocks WRITE_SYNC, commit block WRITE_FLUSH_FUA",
	  "log and commit blocks are sync requests (false: plain WRITE, async in CFQ)", NULL },
	CFG_PARAM_END,
};

static void journal_timer_event(struct sim *sim, struct sim_event *ev);

static void tx_init(struct journal_tx *tx, uint64_t tid)
{
	tx->tid = tid;
	tx->nr_meta = 0;
	tx->start_ns = 0;
	tx->has_handles = false;
	list_init(&tx->ordered);
	tx->freed = NULL;
	tx->nfreed = tx->capfreed = 0;
}

int journal_init(struct stack *s, struct cfg_node *node, struct sim_error *err)
{
	return journal_init_kind(s, node, NULL, "jbd2/sda-8", err);
}

int journal_init_kind(struct stack *s, struct cfg_node *node, const struct cfg_param *kind_table,
		      const char *name, struct sim_error *err)
{
	struct journal *jn = &s->jn;
	int rc = cfg_apply(journal_params_table, node, &jn->p, err);
	if (!rc && kind_table)
		rc = cfg_apply(kind_table, node, &jn->p, err);
	if (rc)
		return rc;
	tx_init(&jn->running, 1);
	tx_init(&jn->committing, 0);
	list_init(&jn->waiters);
	list_init(&jn->locked_waiters);
	list_init(&jn->shadow_waiters);
	jn->commit_cause = SIM_WAIT_JOURNAL;
	sim_event_init(&jn->timer, journal_timer_event);
	jn->start_lba = s->fs.start_sector;
	jn->nr_sectors = jn->p.journal_bytes >> SECTOR_SHIFT;
	jn->head_lba = jn->start_lba;
	uint64_t gsec = s->fs.p.group_bytes >> SECTOR_SHIFT;
	jn->ngroups = (uint32_t)((s->fs.end_sector - s->fs.start_sector + gsec - 1) / gsec) + 1;
	jn->group_tid = calloc(jn->ngroups, sizeof(*jn->group_tid));
	if (!jn->group_tid)
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	if (jn->p.enabled) {
		jn->jbd2 = task_new(s, name, jbd2_run, jn);
		if (!jn->jbd2)
			return sim_errorf(err, SIM_E_NOMEM, "out of memory");
		jn->jbd2->kind = "jbd2";
		task_set_ioprio(jn->jbd2, (uint8_t)jn->p.ioprio_class, (uint8_t)jn->p.ioprio_level);
		jn->jbd2->state = TS_IDLE;
		/* the ordered-mode commit sleeps on data writeback: hear of it */
		s->wb.on_progress = journal_ordered_progress;
	}
	return 0;
}

void journal_free(struct stack *s)
{
	sim_cancel(s->sim, &s->jn.timer);
	free(s->jn.running.freed);
	free(s->jn.committing.freed);
	s->jn.running.freed = s->jn.committing.freed = NULL;
	free(s->jn.group_tid);
	s->jn.group_tid = NULL;
}

uint64_t journal_running_tid(const struct stack *s)
{
	return s->jn.running.tid;
}

static void jbd2_kick(struct stack *s)
{
	struct stack_task *j = s->jn.jbd2;
	if (j && j->state == TS_IDLE) {
		j->state = TS_READY;
		sim_at(s->sim, &j->run_ev, sim_now(s->sim));
	}
}

static void journal_timer_event(struct sim *sim, struct sim_event *ev)
{
	struct journal *jn = container_of(ev, struct journal, timer);
	struct stack *s = container_of(jn, struct stack, jn);
	(void)sim;
	if (jn->running.has_handles && jn->commit_request < jn->running.tid) {
		jn->commit_request = jn->running.tid;
		jn->commits_timer++;
	}
	jbd2_kick(s);
}

/* The running transaction's first handle starts its commit timer (out of
 * line: the per-page callers find it started). */
static __attribute__((noinline)) void tx_open(struct stack *s)
{
	struct journal *jn = &s->jn;
	jn->running.has_handles = true;
	jn->running.start_ns = sim_now(s->sim);
	sim_after(s->sim, &jn->timer, jn->p.commit_interval_ns);
}

static inline void tx_start(struct stack *s)
{
	if (!s->jn.running.has_handles)
		tx_open(s);
}

void journal_dirty_inode(struct stack *s, struct stack_file *f, bool datasync)
{
	struct journal *jn = &s->jn;
	if (!jn->p.enabled || f->is_meta)
		return;
	tx_start(s);
	if (f->ei.meta_tid != jn->running.tid) {
		f->ei.meta_tid = jn->running.tid;
		jn->running.nr_meta++;
	}
	if (datasync)
		f->ei.datasync_tid = jn->running.tid;
}

void journal_dirty_group(struct stack *s, uint32_t group)
{
	struct journal *jn = &s->jn;
	if (!jn->p.enabled || group >= jn->ngroups)
		return;
	tx_start(s);
	if (jn->group_tid[group] != jn->running.tid) {
		jn->group_tid[group] = jn->running.tid;
		jn->running.nr_meta++;
	}
}

void journal_add_ordered(struct stack *s, struct stack_file *f)
{
	struct journal *jn = &s->jn;
	if (!jn->p.enabled || !jn->p.ordered)
		return;
	tx_start(s);
	if (f->ei.ordered_tid == jn->running.tid)
		return;
	if (f->ei.ordered_tid && jn->committing_active && f->ei.ordered_tid == jn->committing.tid) {
		f->ei.ordered_next = true;
		return;
	}
	f->ei.ordered_tid = jn->running.tid;
	list_add_tail(&f->ei.ordered_node, &jn->running.ordered);
}

void journal_free_extent(struct stack *s, uint64_t lba, uint64_t nr_sectors)
{
	struct journal *jn = &s->jn;
	struct journal_tx *tx = &jn->running;
	if (!jn->p.enabled || !jn->p.ordered || !jn->p.discard || !nr_sectors)
		return;
	tx_start(s);
	if (tx->nfreed && tx->freed[tx->nfreed - 1].lba + tx->freed[tx->nfreed - 1].nr_sectors == lba) {
		tx->freed[tx->nfreed - 1].nr_sectors += nr_sectors;
		return;
	}
	if (tx->nfreed == tx->capfreed) {
		uint32_t cap = tx->capfreed ? 2 * tx->capfreed : 16;
		struct journal_freed *n = realloc(tx->freed, cap * sizeof(*n));
		if (!n) {
			sim_fail(s->sim, SIM_E_NOMEM, "out of memory recording freed blocks");
			return;
		}
		tx->freed = n;
		tx->capfreed = cap;
	}
	tx->freed[tx->nfreed++] = (struct journal_freed){ lba, nr_sectors };
}

enum step journal_handle_start(struct stack_task *t, bool hold)
{
	struct journal *jn = &t->stack->jn;
	if (!jn->p.enabled)
		return STEP_DONE;
	if (jn->locked) {
		/* wait_transaction_locked: sleep until the commit has made
		 * the locked transaction the committing one */
		jn->locked_handle_waits++;
		list_add_tail(&t->jwait_node, &jn->locked_waiters);
		task_block(t, SIM_WAIT_JOURNAL_LOCKED);
		return STEP_BLOCK;
	}
	if (hold && !t->jhandle) {
		t->jhandle = true;
		jn->t_updates++;
	}
	return STEP_DONE;
}

enum step journal_get_write_access(struct stack_task *t, struct stack_file *f)
{
	struct journal *jn = &t->stack->jn;
	if (!jn->p.enabled || !jn->shadow || f->is_meta || f->ei.meta_tid != jn->committing.tid)
		return STEP_DONE;
	jn->shadow_waits++;
	list_add_tail(&t->jwait_node, &jn->shadow_waiters);
	task_block(t, SIM_WAIT_JOURNAL_BUFFER);
	return STEP_BLOCK;
}

/* jbd2_journal_stop: the last handle of a T_LOCKED transaction wakes the
 * commit (wake_up(&journal->j_wait_updates)). */
void journal_handle_stop(struct stack_task *t)
{
	struct journal *jn = &t->stack->jn;
	if (!t->jhandle)
		return;
	/* t_updates counts the handles held: this one is among them */
	SIM_ASSERT(jn->t_updates > 0);
	t->jhandle = false;
	if (--jn->t_updates == 0 && jn->locked && jn->jbd2 && jn->jbd2->state == TS_BLOCKED)
		task_wake(jn->jbd2);
}

enum step journal_wait_commit(struct stack_task *t, uint64_t tid)
{
	struct stack *s = t->stack;
	struct journal *jn = &s->jn;
	if (!jn->p.enabled || tid <= jn->committed)
		return STEP_DONE;
	if (jn->commit_request < tid) {
		jn->commit_request = tid;
		jn->commits_fsync++;
	}
	t->wait_tid = tid;
	list_add_tail(&t->jwait_node, &jn->waiters);
	task_block(t, (enum sim_wait)jn->commit_cause);
	jbd2_kick(s);
	return STEP_BLOCK;
}

/* A writeback bio of f completed (its pages' PG_WRITEBACK already
 * cleared): wake the commit if that ends what it sleeps on. */
void journal_ordered_progress(struct stack *s, struct stack_file *f)
{
	struct journal *jn = &s->jn;
	struct stack_task *j = jn->jbd2;
	if (!j || j->state != TS_BLOCKED || j->wb.file != f)
		return;
	if (jn->p.ordered_wait == JOURNAL_WAIT_WHOLE_FILE) {
		struct pc_page *pg = pc_find(f, jn->ow_index);
		if (pg && (pg->flags & PG_WRITEBACK))
			return;
	} else if (f->mapping.wb_old > 0) {
		return;
	}
	task_wake(j);
}

/* The end_io of the log bios (3.10 journal_end_buffer_io_sync via
 * end_bio_bh_io_sync; private: the jbd2 task, as bi_private is the
 * buffer_head). The task wakes when its last bio is done. */
static void journal_end_io(struct sim *sim, struct bio *bio)
{
	struct stack_bio *sb = container_of(bio, struct stack_bio, bio);
	struct stack_task *t = bio->private;
	(void)sim;
	if (t && t->wb.left > 0 && --t->wb.left == 0)
		task_wake(t);
	sbio_free(sb->stack, sb);
}

/* The end of the commit thread's pending bio list. */
static struct stack_bio **pend_tail(struct stack_task *j)
{
	struct stack_bio **tail = &j->wb.pend;
	while (*tail)
		tail = &(*tail)->free_next;
	return tail;
}

/* Append one journal bio to *tail; false (and the run failed) when out of memory. */
static bool journal_queue_bio(struct stack *s, struct stack_task *j, struct stack_bio ***tail,
			      uint64_t sector, uint32_t nr_sectors, uint32_t flags)
{
	struct stack_bio *sb = sbio_alloc(s);
	if (!sb) {
		sim_fail(s->sim, SIM_E_NOMEM, "out of memory allocating a bio");
		return false;
	}
	sb->bio.end_io = journal_end_io;
	sb->bio.private = j;
	sb->bio.sector = sector;
	sb->bio.nr_sectors = nr_sectors;
	sb->bio.flags = flags;
	j->wb.left++;
	**tail = sb;
	*tail = &sb->free_next;
	return true;
}

/* Queue journal bios of nblocks at the head (wrapping), flags per bio. */
static void journal_build(struct stack *s, struct stack_task *j, uint64_t nblocks, uint32_t flags)
{
	struct journal *jn = &s->jn;
	uint64_t maxs = s->fs.p.max_bio_bytes >> SECTOR_SHIFT;
	uint64_t left = nblocks << (STACK_PAGE_SHIFT - SECTOR_SHIFT);
	struct stack_bio **tail = pend_tail(j);
	while (left > 0) {
		if (jn->head_lba >= jn->start_lba + jn->nr_sectors)
			jn->head_lba = jn->start_lba;
		uint64_t room = jn->start_lba + jn->nr_sectors - jn->head_lba;
		uint64_t n = left < maxs ? left : maxs;
		if (n > room)
			n = room;
		if (!journal_queue_bio(s, j, &tail, jn->head_lba, (uint32_t)n, flags))
			return;
		jn->head_lba += n;
		left -= n;
	}
	jn->blocks_written += nblocks;
}

/* blkdev_issue_flush(): an empty WRITE_FLUSH bio. */
static void journal_flush(struct stack *s, struct stack_task *j)
{
	struct stack_bio **tail = pend_tail(j);
	journal_queue_bio(s, j, &tail, 0, 0, REQ_WRITE | REQ_SYNC | REQ_FLUSH);
}

/* The log's and the commit block's request flags: 3.10 jbd2 WRITE_SYNC
 * with REQ_META; 2.6.23 jbd submit_bh(WRITE) and sync_dirty_buffer's
 * WRITE, neither sync nor meta to CFQ (rq_is_sync, rq_is_meta). */
static uint32_t log_flags(const struct journal *jn)
{
	return jn->p.sync_writes ? REQ_WRITE | REQ_SYNC | REQ_META | REQ_JOURNAL
				 : REQ_WRITE | REQ_JOURNAL;
}

static enum step jbd2_submit(struct stack_task *j)
{
	while (j->wb.pend) {
		struct stack_bio *sb = j->wb.pend;
		j->wb.pend = sb->free_next;
		sb->free_next = NULL;
		if (task_submit_bio(j, sb) == STEP_BLOCK)
			return STEP_BLOCK;
	}
	return STEP_DONE;
}

static void journal_wake_waiters(struct stack *s)
{
	struct journal *jn = &s->jn;
	struct list_head *pos, *tmp;
	list_for_each_safe(pos, tmp, &jn->waiters) {
		struct stack_task *t = list_entry(pos, struct stack_task, jwait_node);
		if (t->wait_tid <= jn->committed)
			task_wake(t);
	}
}

/* journal_finish_inode_data_buffers -> filemap_fdatawait ->
 * wait_on_page_writeback: the commit thread itself sleeps on the page, so
 * the wait goes through the same hook as a task's (a policy sees who
 * waits: the thesis's boost lifts only foreground waiters). */
static void ordered_wait_hook(struct stack *s, struct stack_task *j, struct pc_page *pg)
{
	if (s->hooks.on_wait_writeback && !(pg->flags & PG_SYNCWB))
		s->hooks.on_wait_writeback(j, fs_map(pg->file, pg->index, NULL), s->hooks.ctx);
}

/* The commit moves to a step that waits for something else: its waiters'
 * time from now is booked under that (wait_by_phase). */
static void commit_waiters_rebook(struct journal *jn, enum sim_wait cause)
{
	if (!jn->p.wait_by_phase || jn->commit_cause == (int)cause)
		return;
	jn->commit_cause = cause;
	struct list_head *pos;
	list_for_each(pos, &jn->waiters)
		task_rebook_wait(list_entry(pos, struct stack_task, jwait_node), cause);
}

/* sb_issue_discard of one freed extent: discard bios of at most
 * max_discard_sectors each (UFS/eMMC hosts advertise far more than an
 * extent of a phone's file, so in practice one). */
#define JOURNAL_MAX_DISCARD_SECTORS (1u << 20)

static void journal_discard_build(struct stack *s, struct stack_task *j, const struct journal_freed *fr)
{
	struct stack_bio **tail = pend_tail(j);
	uint64_t lba = fr->lba, left = fr->nr_sectors;
	while (left > 0) {
		uint32_t n = left > JOURNAL_MAX_DISCARD_SECTORS ? JOURNAL_MAX_DISCARD_SECTORS : (uint32_t)left;
		if (!journal_queue_bio(s, j, &tail, lba, n, REQ_WRITE | REQ_DISCARD))
			return;
		lba += n;
		left -= n;
	}
}

/* jbd's data phase (2.6.23 fs/jbd/commit.c journal_submit_data_buffers,
 * then the t_locked_list wait): the commit thread walks the ordered
 * inodes, writes their dirty pages itself as plain WRITE bios of its own
 * io_context (so CFQ queues them in its async queue: BE/4, or RT with
 * jprio), and then waits for every page of them under writeback, its own
 * and the flusher's (buffers locked by other I/O sit on t_locked_list
 * too). Pages dirtied after the transaction switched are written as well
 * (jbd writes only buffers filed on the committing transaction; a buffer
 * re-dirtied meanwhile is refiled to the running one): an
 * over-approximation of the data the commit carries. fphase of the
 * thread's opstate: 0 start, 1 submitting (ow_file, fcursor), 2 waiting. */
static struct stack_file *ordered_first(struct journal *jn)
{
	struct list_head *h = &jn->committing.ordered;
	return h->next == h ? NULL : list_entry(h->next, struct stack_file, ei.ordered_node);
}

static struct stack_file *ordered_next(struct journal *jn, struct stack_file *f)
{
	struct list_head *n = f->ei.ordered_node.next;
	return n == &jn->committing.ordered ? NULL : list_entry(n, struct stack_file, ei.ordered_node);
}

static enum step jbd_ordered_data(struct stack *s, struct stack_task *j)
{
	struct journal *jn = &s->jn;
	struct task_opstate *os = &j->os;
	if (os->fsync.phase == 0) {
		jn->ordered_start_ns = sim_now(s->sim);
		jn->ow_file = ordered_first(jn);
		os->fsync.cursor = 0;
		os->fsync.phase = 1;
		if (s->q)
			task_start_plug(j);
	}
	while (os->fsync.phase == 1) {
		if (task_submit_pending(j) == STEP_BLOCK)
			return STEP_BLOCK;
		struct stack_file *f = jn->ow_file;
		if (!f) {
			task_finish_plug(j);
			jn->ow_file = ordered_first(jn);
			os->fsync.cursor = 0;
			os->fsync.phase = 2;
			break;
		}
		struct pc_page *pg = pc_find_ge(f, os->fsync.cursor);
		while (pg && !(pg->flags & PG_DIRTY))
			pg = pc_next(pg);
		if (!pg) {
			jn->ow_file = ordered_next(jn, f);
			os->fsync.cursor = 0;
			continue;
		}
		if (pg->flags & PG_WRITEBACK) {
			/* dirty again while under writeback: lock_buffer waits */
			os->fsync.cursor = pg->index;
			ordered_wait_hook(s, j, pg);
			task_wait_page(j, pg, PG_WRITEBACK, SIM_WAIT_WRITEBACK);
			return STEP_BLOCK;
		}
		uint64_t n = pc_dirty_run(f, pg->index, UINT64_MAX);
		if (wb_map_run(s, f, pg->index, n, false))
			return STEP_DONE;
		uint64_t m = wb_build_bios(s, f, pg->index, pg->index + n, false, &j->wb.pend);
		if (!m)
			return STEP_DONE;
		jn->ordered_pages_submitted += m;
		os->fsync.cursor = pg->index + m;
	}
	for (; jn->ow_file; jn->ow_file = ordered_next(jn, jn->ow_file), os->fsync.cursor = 0) {
		struct pc_page *pg = pc_find_writeback(jn->ow_file, os->fsync.cursor, UINT64_MAX);
		if (pg) {
			if (os->fsync.cursor == 0 && jn->ow_file == ordered_first(jn))
				jn->ordered_waits++;
			jn->ordered_pages_waited++;
			os->fsync.cursor = pg->index;
			ordered_wait_hook(s, j, pg);
			commit_waiters_rebook(jn, SIM_WAIT_JOURNAL_ORDERED);
			task_wait_page(j, pg, PG_WRITEBACK, SIM_WAIT_WRITEBACK);
			return STEP_BLOCK;
		}
	}
	int64_t d = sim_now(s->sim) - jn->ordered_start_ns;
	jn->ordered_wait_ns_total += d;
	if (d > jn->ordered_wait_ns_max)
		jn->ordered_wait_ns_max = d;
	os->fsync.phase = 0;
	return STEP_DONE;
}

enum {
	JP_IDLE = 0,
	JP_ORDERED,
	JP_LOG,
	JP_LOG_WAIT,
	JP_COMMIT,
	JP_COMMIT_WAIT,
	JP_LOCKED,
	JP_CALLBACK, /* T_COMMIT_CALLBACK: the freed extents' discards, one at a time */
};

void jbd2_run(struct stack_task *j)
{
	struct stack *s = j->stack;
	struct journal *jn = &s->jn;
	struct task_opstate *os = &j->os;
	for (;;) {
		switch (os->phase) {
		case JP_IDLE: {
			if (jn->commit_request < jn->running.tid || !jn->running.has_handles)
				return;
			os->start_ns = sim_now(s->sim);
			if (jn->p.t_locked) {
				/* T_LOCKED: no new handle joins; wait for t_updates */
				jn->locked = true;
				jn->locked_start_ns = os->start_ns;
			}
			os->phase = JP_LOCKED;
			break;
		}
		case JP_LOCKED: {
			if (jn->locked && jn->t_updates > 0) {
				commit_waiters_rebook(jn, SIM_WAIT_JOURNAL_LOCKED);
				task_block(j, SIM_WAIT_JOURNAL_LOCKED);
				return;
			}
			if (jn->locked) {
				int64_t d = sim_now(s->sim) - jn->locked_start_ns;
				jn->locked = false;
				jn->locked_commits += d > 0;
				jn->locked_ns_total += d;
				if (d > jn->locked_ns_max)
					jn->locked_ns_max = d;
				/* T_FLUSH: wake_up(&journal->j_wait_transaction_locked) */
				struct list_head *lp, *lt;
				list_for_each_safe(lp, lt, &jn->locked_waiters)
					task_wake(list_entry(lp, struct stack_task, jwait_node));
			}
			sim_cancel(s->sim, &jn->timer);
			jn->committing = jn->running;
			list_init(&jn->committing.ordered);
			list_splice_tail_init(&jn->running.ordered, &jn->committing.ordered);
			jn->committing_active = true;
			tx_init(&jn->running, jn->committing.tid + 1);
			struct list_head *pos;
			list_for_each(pos, &jn->committing.ordered) {
				struct stack_file *f = list_entry(pos, struct stack_file, ei.ordered_node);
				f->mapping.wb_old += f->mapping.wb_cur;
				f->mapping.wb_cur = 0;
				f->mapping.wb_epoch++;
			}
			os->phase = JP_ORDERED;
			break;
		}
		case JP_ORDERED: {
			struct list_head *pos;
			if (jn->p.ordered_submit) {
				if (jbd_ordered_data(s, j) == STEP_BLOCK)
					return;
				os->phase = JP_LOG;
				break;
			}
			if (!j->wb.file)
				jn->ordered_start_ns = sim_now(s->sim);
			if (jn->p.ordered_wait == JOURNAL_WAIT_WHOLE_FILE) {
				/* inodes in list order; the walk resumes where it slept */
				bool resumed = jn->ow_file != NULL;
				uint64_t from = resumed ? jn->ow_index : 0;
				pos = resumed ? &jn->ow_file->ei.ordered_node : jn->committing.ordered.next;
				for (; pos != &jn->committing.ordered;
				     pos = pos->next, from = 0, resumed = false) {
					struct stack_file *f = list_entry(pos, struct stack_file, ei.ordered_node);
					if (!resumed) {
						if (!f->size)
							continue;
						jn->ow_last = (f->size - 1) >> STACK_PAGE_SHIFT;
					}
					/* filemap_fdatawait over the whole file, from the
					 * walk's position: the first page at or after it under
					 * writeback, or none once the walk has passed the last
					 * page (i_size - 1 when the wait on this file began:
					 * filemap_fdatawait_range(mapping, 0, i_size - 1), so
					 * the chase ends where the writer was, however far it
					 * has written since) */
					struct pc_page *pg = pc_find_writeback(f, from, jn->ow_last);
					if (!pg)
						continue;
					if (!j->wb.file)
						jn->ordered_waits++;
					jn->ordered_pages_waited++;
					jn->ow_file = f;
					jn->ow_index = pg->index;
					j->wb.file = f;
					ordered_wait_hook(s, j, pg);
					commit_waiters_rebook(jn, SIM_WAIT_JOURNAL_ORDERED);
					task_block(j, SIM_WAIT_WRITEBACK);
					return;
				}
				jn->ow_file = NULL;
			} else {
				list_for_each(pos, &jn->committing.ordered) {
					struct stack_file *f = list_entry(pos, struct stack_file, ei.ordered_node);
					if (f->mapping.wb_old > 0) {
						if (!j->wb.file)
							jn->ordered_waits++;
						j->wb.file = f;
						struct pc_page *pg = pc_find_writeback(f, 0, UINT64_MAX);
						if (pg)
							ordered_wait_hook(s, j, pg);
						commit_waiters_rebook(jn, SIM_WAIT_JOURNAL_ORDERED);
						task_block(j, SIM_WAIT_WRITEBACK);
						return;
					}
				}
			}
			if (j->wb.file) {
				int64_t d = sim_now(s->sim) - jn->ordered_start_ns;
				jn->ordered_wait_ns_total += d;
				if (d > jn->ordered_wait_ns_max)
					jn->ordered_wait_ns_max = d;
			}
			j->wb.file = NULL;
			os->phase = JP_LOG;
			break;
		}
		case JP_LOG:
			commit_waiters_rebook(jn, SIM_WAIT_JOURNAL);
			/* jbd2_journal_write_metadata_buffer: the buffers go to
			 * the log as shadow copies (BH_Shadow) */
			jn->shadow = jn->p.shadow_wait;
			j->wb.left = 0;
			if (s->q)
				task_start_plug(j);
			journal_build(s, j, 1 + jn->committing.nr_meta, log_flags(jn));
			/* async commit: the commit block rides along, no barrier */
			if (jn->p.async_commit)
				journal_build(s, j, 1, log_flags(jn));
			os->phase = JP_LOG_WAIT;
			break;
		case JP_LOG_WAIT:
			if (jbd2_submit(j) == STEP_BLOCK)
				return;
			task_finish_plug(j);
			if (j->wb.left > 0) {
				task_block(j, SIM_WAIT_SYNC_IO);
				return;
			}
			if (jn->shadow) {
				/* t_iobuf_list done: clear_buffer_shadow, wake_up_bit(BH_Unshadow) */
				jn->shadow = false;
				struct list_head *lp, *lt;
				list_for_each_safe(lp, lt, &jn->shadow_waiters)
					task_wake(list_entry(lp, struct stack_task, jwait_node));
			}
			os->phase = JP_COMMIT;
			break;
		case JP_COMMIT:
			if (jn->p.async_commit)
				journal_flush(s, j);
			else
				journal_build(s, j, 1,
					      log_flags(jn) |
						      (jn->p.barrier ? REQ_FLUSH | REQ_FUA : 0u));
			jn->flushes += jn->p.async_commit || jn->p.barrier;
			os->phase = JP_COMMIT_WAIT;
			break;
		case JP_COMMIT_WAIT: {
			if (jbd2_submit(j) == STEP_BLOCK)
				return;
			if (j->wb.left > 0) {
				task_block(j, SIM_WAIT_SYNC_IO);
				return;
			}
			jn->committed = jn->committing.tid;
			jn->committing_active = false;
			jn->commits++;
			int64_t d = sim_now(s->sim) - os->start_ns;
			jn->commit_ns_total += d;
			if (d > jn->commit_ns_max)
				jn->commit_ns_max = d;
			struct list_head *pos, *tmp;
			list_for_each_safe(pos, tmp, &jn->committing.ordered) {
				struct stack_file *f = list_entry(pos, struct stack_file, ei.ordered_node);
				list_del_init(&f->ei.ordered_node);
				f->ei.ordered_tid = 0;
				if (f->ei.ordered_next) {
					f->ei.ordered_next = false;
					journal_add_ordered(s, f);
				}
			}
			if (jn->committing.nfreed) {
				jn->discard_next = 0;
				jn->discard_start_ns = sim_now(s->sim);
				os->phase = JP_CALLBACK;
				break;
			}
			journal_wake_waiters(s);
			os->phase = JP_IDLE;
			break;
		}
		case JP_CALLBACK: {
			if (jbd2_submit(j) == STEP_BLOCK)
				return;
			if (j->wb.left > 0) {
				task_block(j, SIM_WAIT_SYNC_IO);
				return;
			}
			struct journal_tx *tx = &jn->committing;
			if (jn->discard_next < tx->nfreed) {
				const struct journal_freed *fr = &tx->freed[jn->discard_next++];
				commit_waiters_rebook(jn, SIM_WAIT_JOURNAL_DISCARD);
				journal_discard_build(s, j, fr);
				jn->discards++;
				jn->discard_sectors += fr->nr_sectors;
				break;
			}
			int64_t d = sim_now(s->sim) - jn->discard_start_ns;
			jn->discard_ns_total += d;
			if (d > jn->discard_ns_max)
				jn->discard_ns_max = d;
			free(tx->freed);
			tx->freed = NULL;
			tx->nfreed = tx->capfreed = 0;
			commit_waiters_rebook(jn, SIM_WAIT_JOURNAL);
			journal_wake_waiters(s);
			os->phase = JP_IDLE;
			break;
		}
		}
	}
}

struct json_t *journal_to_json(const struct stack *s)
{
	const struct journal *jn = &s->jn;
	json_t *o = json_object();
	json_object_set_new(o, "commits", json_integer((json_int_t)jn->commits));
	json_object_set_new(o, "commit_requests_fsync", json_integer((json_int_t)jn->commits_fsync));
	json_object_set_new(o, "commit_requests_timer", json_integer((json_int_t)jn->commits_timer));
	json_object_set_new(o, "blocks_written", json_integer((json_int_t)jn->blocks_written));
	json_object_set_new(o, "ordered_waits", json_integer((json_int_t)jn->ordered_waits));
	json_object_set_new(o, "commit_ns_mean",
			    json_real(jn->commits ? (double)jn->commit_ns_total / (double)jn->commits : 0));
	json_object_set_new(o, "commit_ns_max", json_integer(jn->commit_ns_max));
	json_object_set_new(o, "ordered_pages_waited", json_integer((json_int_t)jn->ordered_pages_waited));
	json_object_set_new(o, "ordered_wait_ns_mean",
			    json_real(jn->ordered_waits ? (double)jn->ordered_wait_ns_total /
								  (double)jn->ordered_waits
							: 0));
	json_object_set_new(o, "ordered_wait_ns_max", json_integer(jn->ordered_wait_ns_max));
	json_object_set_new(o, "flushes", json_integer((json_int_t)jn->flushes));
	if (jn->p.ordered_submit)
		json_object_set_new(o, "ordered_pages_submitted",
				    json_integer((json_int_t)jn->ordered_pages_submitted));
	json_object_set_new(o, "locked_commits", json_integer((json_int_t)jn->locked_commits));
	json_object_set_new(o, "locked_handle_waits", json_integer((json_int_t)jn->locked_handle_waits));
	json_object_set_new(o, "locked_ns_mean",
			    json_real(jn->locked_commits ? (double)jn->locked_ns_total /
								   (double)jn->locked_commits
							 : 0));
	json_object_set_new(o, "locked_ns_max", json_integer(jn->locked_ns_max));
	json_object_set_new(o, "shadow_waits", json_integer((json_int_t)jn->shadow_waits));
	json_object_set_new(o, "discards", json_integer((json_int_t)jn->discards));
	json_object_set_new(o, "discard_sectors", json_integer((json_int_t)jn->discard_sectors));
	json_object_set_new(o, "discard_ns_max", json_integer(jn->discard_ns_max));
	json_object_set_new(o, "params", cfg_params_to_json(journal_params_table, &jn->p));
	return o;
}
