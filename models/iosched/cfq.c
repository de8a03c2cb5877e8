/* CFQ, the Completely Fair Queueing I/O scheduler, as in Linux 3.10
 * block/cfq-iosched.c (read in AndreiLux/ref-3.10; the ~4.3 copy in
 * torvalds/linux for the later differences). Facts and numbers carry over
 * with their source; the code is written afresh against models/block/elevator.h.
 * Over ~1,500 lines on purpose: one scheduler, one file (docs/architecture.md
 * §4), laid out like the kernel's own (larger, single) file. The cuts a split
 * would make are not jobs of their own here: the Samsung variant is a branch
 * of cfq_may_dispatch and two tunables, not a scheduler; slice, idle and
 * dispatch logic call each other both ways over cfq_data's state
 * (cfq_select_queue, cfq_should_idle, __cfq_slice_expired, the idle timer);
 * the statistics are counters in cfq_data echoed by one function. bfq, whose
 * kernel source is itself split (bfq-wf2q.c), is two files.
 *
 * Modelled, with the kernel's structure and names:
 *  - one cfq_queue per process for sync I/O (a cfq_io_cq behind
 *    ioc->elv_data), async queues shared per (class, prio) system-wide
 *    (3.10 cfq_data; >= 4.3 per cfq_group, the same with one group),
 *    class NONE -> BE/IOPRIO_NORM; bios without an io_context share one
 *    "kernel" context of class NONE;
 *  - RT/BE/IDLE classes, prio 0..7 slices (cfq_prio_slice), service trees
 *    per class x {ASYNC, SYNC_NOIDLE, SYNC} plus the IDLE tree, rb_key with
 *    cfq_slice_offset and slice_resid, workload class/type selection and
 *    workload slices from target_latency, saved workload context across
 *    expiries, low_latency slice scaling (cfq_scaled_cfqq_slice);
 *  - dispatch rules (cfq_may_dispatch, quantum, async depth ramp after a
 *    delayed sync request), FIFO expiry once per slice, cfq_choose_req's
 *    one-way elevator with back_seek_max/penalty, slice start at the first
 *    completion, idling with the idle timer, wait_busy, group idle on the
 *    root group, close cooperators (selection through the prio trees),
 *    preemption (cfq_should_preempt), think time and seekiness, hw_tag
 *    detection, forced dispatch, ELV_MQUEUE_MUST in may_queue;
 *  - jiffies: every CFQ time is a whole number of jiffies of the
 *    simulated clock (jiffies = now * HZ / 1e9) and the idle timer fires
 *    at the start of a jiffy. A tunable left at its kernel default gets
 *    the kernel's HZ formula (fifo_expire_sync = HZ/8: 12 jiffies at
 *    HZ=100), forced to >= 1 jiffy where cfq_init() does so; any other
 *    value is rounded up like a sysfs store (msecs_to_jiffies);
 *  - kernel_variant 4.4: cfq_registered_queue() sets slice_idle = 0 on a
 *    non-rotational queue;
 *  - kernel_variant 2.6.23 (block/cfq-iosched.c of 2.6.23.17, read in
 *    zheharry/linux-sh4-2.6.23.17_stm23_A18B): what that kernel lacks or
 *    does otherwise, on the 3.10 structure - cfq_dispatch_requests lets a
 *    queue dispatch up to quantum (cfq_quantum = 4 there: set it) per
 *    round and 4 x quantum when it is the only busy queue, async waits for
 *    sync in flight, and nothing else (no drain before idling, no async
 *    depth ramp: low_latency and group idling do not exist, so they are
 *    off whatever the keys say); cfq_should_preempt has no class rule (an
 *    RT request does not preempt a BE slice: RT goes first at the next
 *    selection) and no sync-noidle or empty-queue rules. Kept from 3.10,
 *    not 2.6.23's: the per-class workload trees (2.6.23 has one service
 *    tree ordered by class then rb_key) and their slices, the meta rule
 *    (REQ_PRIO for 2.6.23's rq_is_meta);
 *  - kernel_variant samsung-exynos7420: 3.10 with Samsung's change to
 *    cfq_may_dispatch (jcadduono/android_kernel_samsung_universal7420
 *    4a185d09, the Galaxy S6 kernel; the same code in the community copies
 *    samsungexynos7420/... and grace0x/...-old): async waits behind
 *    in-flight sync only when !hw_tag && throttle_async, and at most
 *    max_async_dispatch async requests are in flight. Not modelled: those
 *    copies also check the fifo before cfq_may_dispatch and let an expired
 *    request through (must_dispatch, as the later ktime-based mainline cfq does); the
 *    stock file could not be read to confirm it is Samsung's.
 *
 * mobisim additions: boost_lba() (thesis elv_boost_lba) marks the queued
 * request covering a sector REQ_PRIO|REQ_BOOSTED and makes it the next
 * request dispatched: its queue preempts the active one (expired with
 * timed_out, as cfq_preempt_queue does) and the request skips the FIFO,
 * the async-behind-sync rule and the async depth ramp. One boost is
 * pending at a time; an earlier one keeps REQ_PRIO only.
 *
 * Foreground-aware mode (tunable fg_aware, off by default; the fgcfq
 * policy turns it on through cfq_set_fg_aware(), models/iosched/cfq.h), after
 * the SNU 2017 thesis "User-centric I/O scheduling for Android
 * smartphones", mechanisms 3 and 4 (docs/papers.md §1):
 *  - An FG-high request is a sync request tagged REQ_FG (the task model
 *    tags every bio of a foreground task; at insert the request is also
 *    tagged when its io_context is foreground now) or a request lifted
 *    with REQ_BOOSTED. So FG sync and boosted async are high; BG sync
 *    (medium) and BG async (low) keep CFQ's own order between them (sync
 *    workloads before async, async depth limits), which is what "ordinary
 *    CFQ" already does.
 *  - A queue holding at least one queued FG-high request is on the FG
 *    list, appended when it gets its first one and removed when its last
 *    one leaves: FIFO by the time the queue became FG-busy, whatever its
 *    class and prio (an RT BG queue waits too). The queue is the unit: it
 *    also serves its untagged requests while it is chosen. An async queue
 *    on the list (it holds boosted requests) serves only those, oldest
 *    first, skipping the async-behind-sync rule and depth ramp as the
 *    boost_lba request does; its BG writes wait for ordinary CFQ. With the
 *    list empty, the scheduler is ordinary CFQ, bit for bit.
 *  - Preemption: FG first. At every dispatch decision, if the list is
 *    non-empty and the active queue is not an FG queue, the active slice
 *    ends at once (expired as timed_out, so it keeps slice_resid as any
 *    preempted CFQ queue does) and the list head gets the device; an FG
 *    insert kicks the queue so that this happens at the same instant even
 *    when the BG queue is idling. Requests already at the device are not
 *    recalled, but an FG queue does not wait for BG async requests in
 *    flight to drain (cfq_may_dispatch's drain-before-idling rule is for
 *    BG queues only). BG requests never preempt an FG queue
 *    (cfq_should_preempt says no), and FG queues never preempt each other
 *    (FIFO). A request lifted by boost_lba keeps its "dispatched next"
 *    rule above all.
 *  - Idling: an FG sync queue whose last FG request was dispatched stays
 *    the FG queue of its slice and idles for its next request by CFQ's own
 *    rules (slice_idle, think time, hw_tag on flash; no close-cooperator
 *    hand-off to a BG queue) only while no other FG queue is waiting;
 *    otherwise the device goes to the next FG queue at once (FIFO). BG
 *    arrivals do not end that idle; the timer does. The mode adds no
 *    idling of its own (`fg_idle: cfq`, the default). `fg_idle: always`
 *    also idles where CFQ would not (flash with tagged queueing, hw_tag):
 *    up to slice_idle unless the task's mean think time is longer, so
 *    that BG requests do not fill the device queue in the FG task's
 *    think-time gaps. `fg_idle: never` ends an FG turn as soon as the
 *    queue runs dry: BG work gets those gaps (FG then waits for the BG
 *    requests on the device). Slices still end FG turns (slice_used),
 *    but the list head is chosen again while it holds FG requests: pure
 *    FIFO.
 *  - Merges never push an FG request back: a bio that is not FG-high may
 *    not merge into an FG-high request (allow_merge and the front-merge
 *    lookup refuse; it gets its own request, so the FG request does not
 *    grow); an FG bio or request merging into a BG request lifts it (a
 *    sync survivor carries REQ_FG; an async survivor that absorbed FG sync
 *    data is marked REQ_BOOSTED, since a task waits on it), including the
 *    insert-time merge of a plugged request, which the core does not
 *    report (detected when the merged-away request is freed). A request
 *    merge keeps the REQ_BOOSTED mark (and, within a queue, the older
 *    FIFO deadline, as before).
 *    Request-to-request merges between FG and BG data of one queue are not
 *    vetoed (the kernel's attempt_merge has no scheduler veto): the
 *    survivor is FG.
 *  - Counters under "fg" in stats_json (only in this mode): FG-high
 *    requests dispatched, FG turns, FG preemptions of an active BG slice,
 *    BG requests delayed (queued in BG queues when an FG queue took the
 *    device: a request waiting through several FG turns counts once per
 *    turn), merges refused and requests lifted.
 *  A mode of CFQ rather than a separate elevator: the mechanism is a
 *  change to CFQ's queue selection, so one code path and one tunable
 *  table serve both (a second ops table would duplicate every hook), a
 *  scenario keeps `scheduler: cfq` and the policy only flips the mode, and
 *  the mode off is CFQ by construction (every change is gated on an FG
 *  mark that only the mode sets).
 *  Simplified: the workload slice state of ordinary CFQ is not saved
 *  across an FG episode (the FG queue's type becomes the serving type);
 *  BG starvation while FG queues stay busy is not bounded (FG first, as
 *  in the thesis; FG bursts are launches and fsyncs).
 *
 * Differences in mechanism: where the kernel calls __blk_run_queue()
 * from inside insert (a preempting or awaited request) or kicks kblockd,
 * this model schedules a run of the queue at the same instant (the core
 * runs after every insert and completion anyway; mainline's kick of an
 * empty driver at completion is left to the core, and the vendor tree
 * read here has that call commented out anyway).
 *
 * Left out: blkio cgroups (one root cfq_group; group vdisktime is not
 * kept since nothing competes with the root group), merging and splitting
 * of cooperating queues (cfq_setup_merge/cfq_merge_cfqqs), the OOM queue,
 * task exit (active_ref: tasks are taken to be alive), nice-derived
 * priorities (class NONE is BE/4, i.e. nice 0), iops_mode charging, and
 * freeing a process's queues before the scheduler exits (they live as
 * long as the elevator: memory grows with processes, not with I/O).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/block/block.h"
#include "models/iosched/cfq.h"
#include "models/block/elevator.h"
#include "models/block/request.h"
#include "sim/assert.h"
#include "sim/config.h"
#include "sim/list.h"
#include "sim/rbtree.h"
#include "sim/sim.h"

/* ============================================================ constants */

/* block/cfq-iosched.c 3.10, top of file. */
#define CFQ_MIN_TT 2            /* jiffies: think time below this is immediate */
#define CFQ_SLICE_SCALE 5
#define CFQ_HW_QUEUE_MIN 5
#define CFQ_HW_TAG_SAMPLES 50
#define CFQ_HIST_DIVISOR 4
#define CFQQ_SEEK_THR (8 * 100)          /* sectors */
#define CFQQ_CLOSE_THR (8 * 1024)        /* sectors */
#define CFQQ_SECT_THR_NONROT (2 * 32)    /* sectors */
#define CFQ_SERVICE_SHIFT 12
#define CFQ_PAGE_SIZE 4096u              /* PAGE_CACHE_SIZE on ARM/x86 */
#define CFQ_NSEC_PER_SEC 1000000000LL
/* Jiffies start here so that 0 keeps meaning "not set" (slice_start) and
 * jiffies - HZ (last_delayed_sync at init) stays positive. */
#define CFQ_JIFFIES_BASE 1000000LL

enum cfq_wl_class { BE_WORKLOAD = 0, RT_WORKLOAD = 1, IDLE_WORKLOAD = 2, CFQ_PRIO_NR };
enum cfq_wl_type { ASYNC_WORKLOAD = 0, SYNC_NOIDLE_WORKLOAD = 1, SYNC_WORKLOAD = 2, CFQ_WL_TYPES };

enum cfq_variant {
	CFQ_KERNEL_3_10 = 0,
	CFQ_KERNEL_4_4 = 1,
	CFQ_KERNEL_SAMSUNG_7420 = 2,
	CFQ_KERNEL_2_6_23 = 3,
};
static const char *const cfq_variant_names[] = { "3.10", "4.4", "samsung-exynos7420", "2.6.23", NULL };
/* Samsung's tunables at their kernel defaults (cfq_max_async_dispatch,
 * cfq_throttle_async in the universal7420 block/cfq-iosched.c). */
#define CFQ_SAMSUNG_MAX_ASYNC_DISPATCH 4
#define CFQ_SAMSUNG_THROTTLE_ASYNC 1
static const char *const cfq_fg_idle_names[] = { "cfq", "always", "never", NULL };
static const char *const cfq_class_names[CFQ_PRIO_NR] = { "be", "rt", "idle" };
static const char *const cfq_type_names[CFQ_WL_TYPES] = { "async", "sync_noidle", "sync" };

/* ================================================================ types */

/* Think-time EWMA, in jiffies (struct cfq_ttime). */
struct cfq_ttime {
	int64_t last_end_request;
	uint64_t ttime_total, ttime_samples, ttime_mean;
};

/* A service tree: queues sorted by rb_key, leftmost cached. */
struct cfq_rb_root {
	struct rb_root_cached rb;
	unsigned count;
	struct cfq_ttime ttime;
};

struct cfq_data;
struct cfq_io_cq;
struct cfq_group;

struct cfq_queue {
	struct cfq_data *cfqd;
	struct cfq_group *cfqg;
	struct list_head all_node;     /* cfqd->all_queues, for exit */

	struct rb_node rb_node;        /* service tree member */
	int64_t rb_key;
	struct cfq_rb_root *service_tree;
	struct rb_node p_node;         /* prio tree member (close cooperators) */
	struct rb_root *p_root;

	struct rb_root sort_list;      /* queued requests by sector */
	struct io_request *next_rq;
	int queued[2];                 /* [sync] */
	int allocated[2];              /* [write] */
	struct list_head fifo;

	int64_t dispatch_start, slice_start, slice_end;
	int64_t allocated_slice, slice_resid;
	unsigned slice_dispatch;
	int prio_pending;
	int dispatched;

	unsigned ioprio, org_ioprio, ioprio_class;
	int32_t pid;
	uint32_t seek_history;
	uint64_t last_request_pos;
	uint64_t nr_sectors;

	bool on_rr, wait_request, must_dispatch, must_alloc_slice, fifo_expire;
	bool idle_window, prio_changed, slice_new, sync, deep, wait_busy;

	/* fg_aware mode: fg_queued FG-high requests queued; on the FG list
	 * while > 0. fg: on the list, or the active sync queue that ran out
	 * of FG requests during its turn (it may idle as FG). */
	struct list_head fg_node;
	int fg_queued;
	bool on_fg_list, fg;
};

/* Per-process state (struct cfq_io_cq), kept behind ioc->elv_data: one
 * per queue the process does I/O on, chained as the kernel's ioc->icq_tree
 * holds one io_cq per request_queue (a RAID0's members each run CFQ). */
struct cfq_io_cq {
	struct cfq_data *cfqd;
	struct io_context *ioc;
	struct cfq_io_cq *ioc_next;    /* the ioc's io_cq of another queue */
	struct list_head node;         /* cfqd->cics */
	struct cfq_queue *cfqq[2];     /* [sync] */
	struct cfq_ttime ttime;
	int ioprio;                    /* class << 8 | level, as last seen */
};

struct cfq_group {
	int nr_cfqq;                   /* queues on its service trees */
	unsigned busy_queues_avg[CFQ_PRIO_NR];
	struct cfq_rb_root service_trees[2][CFQ_WL_TYPES];
	struct cfq_rb_root service_tree_idle;
	int64_t saved_wl_slice;
	enum cfq_wl_type saved_wl_type;
	enum cfq_wl_class saved_wl_class;
	int dispatched;
	struct cfq_ttime ttime;
	unsigned vfraction;            /* 1 << CFQ_SERVICE_SHIFT: the only group */
};

struct cfq_stats {
	uint64_t slices, slices_expired_timed_out;
	uint64_t idle_waits, idle_timer_fired;
	int64_t idle_wait_ns;
	uint64_t preemptions, fifo_expired, wait_busy;
	uint64_t dispatched[CFQ_PRIO_NR][CFQ_WL_TYPES];
	uint64_t forced_dispatches, close_cooperators;
	uint64_t boost_hits, boost_misses, boost_preempts;
	uint64_t front_merges, merged_requests;
	/* fg_aware mode */
	uint64_t fg_dispatched, fg_turns, fg_preemptions, fg_bg_delayed;
	uint64_t fg_merges_refused, fg_lifted;
	/* samsung-exynos7420: async dispatches refused by its two rules */
	uint64_t async_cap_waits, async_sync_waits;
};

struct cfq_data {
	/* ---- tunables, filled from cfq_params before init (ns/bytes) */
	int64_t quantum;
	int64_t fifo_expire_sync_ns, fifo_expire_async_ns;
	uint64_t back_seek_max_bytes;
	int64_t back_seek_penalty;
	int64_t slice_sync_ns, slice_async_ns;
	int64_t slice_async_rq;
	int64_t slice_idle_ns, group_idle_ns;
	bool low_latency;
	int64_t target_latency_ns;
	int64_t hz;
	int kernel_variant;
	int64_t max_async_dispatch;    /* samsung-exynos7420 only */
	int64_t throttle_async;        /* samsung-exynos7420 only */
	bool nonrot;
	bool fg_aware;
	int fg_idle;                   /* enum cfq_fg_idle */

	/* ---- the same in jiffies, as struct cfq_data keeps them */
	unsigned cfq_quantum;
	int64_t cfq_fifo_expire[2];    /* [sync] */
	uint64_t cfq_back_max;         /* KiB */
	unsigned cfq_back_penalty;
	int64_t cfq_slice[2];          /* [sync] */
	unsigned cfq_slice_async_rq;
	int64_t cfq_slice_idle, cfq_group_idle;
	bool cfq_latency;
	int64_t cfq_target_latency;

	/* ---- state */
	struct elevator *e;
	struct sim *sim;
	struct cfq_group root_group;
	enum cfq_wl_class serving_wl_class;
	enum cfq_wl_type serving_wl_type;
	int64_t workload_expires;
	struct rb_root prio_trees[IOPRIO_BE_NR];
	unsigned busy_queues, busy_sync_queues;
	int rq_in_driver;
	int rq_in_flight[2];
	int rq_queued;
	int hw_tag;                    /* -1 unknown, 0 no NCQ, 1 NCQ */
	int hw_tag_est_depth;
	unsigned hw_tag_samples;
	struct cfq_queue *active_queue;
	struct cfq_io_cq *active_cic;
	struct cfq_queue *async_cfqq[2][IOPRIO_BE_NR]; /* [0] RT, [1] BE */
	struct cfq_queue *async_idle_cfqq;
	uint64_t last_position;
	int64_t last_delayed_sync;

	struct sim_event idle_timer;   /* idle_slice_timer */
	struct sim_event kick;         /* unplug_work: run the queue soon */
	bool idling;                   /* idle_timer armed: for the idle-wait figure */
	int64_t idle_since_ns;

	struct io_request *boost_rq;   /* lifted by boost_lba, dispatched next */
	struct list_head fg_list;      /* fg_aware: FG queues, FIFO */

	struct list_head all_queues;
	struct list_head cics;
	struct io_context kernel_ioc;  /* for bios without a submitter */
	struct cfq_io_cq *kernel_cic;

	struct cfq_stats st;
};

/* elv_priv[1] holds the cic; its two low bits (a calloc'd cic is
 * aligned) carry CFQ's per-request marks: counted as FG-high in its
 * queue's fg_queued, and went through add_request. */
#define CFQ_RQ_FG_COUNTED ((uintptr_t)1)
#define CFQ_RQ_ADDED ((uintptr_t)2)
#define CFQ_RQ_MARKS (CFQ_RQ_FG_COUNTED | CFQ_RQ_ADDED)
#define RQ_CFQQ(rq) ((struct cfq_queue *)(rq)->elv_priv[0])
#define RQ_CIC(rq) ((struct cfq_io_cq *)((uintptr_t)(rq)->elv_priv[1] & ~CFQ_RQ_MARKS))

static inline bool cfq_rq_mark(const struct io_request *rq, uintptr_t m)
{
	return (uintptr_t)rq->elv_priv[1] & m;
}

static inline void cfq_rq_set_mark(struct io_request *rq, uintptr_t m, bool on)
{
	uintptr_t v = (uintptr_t)rq->elv_priv[1];
	rq->elv_priv[1] = (void *)(on ? v | m : v & ~m);
}

/* ============================================================= jiffies */

static int64_t cfq_jiffies(const struct cfq_data *cfqd)
{
	__int128 t = (__int128)sim_now(cfqd->sim) * cfqd->hz;
	return CFQ_JIFFIES_BASE + (int64_t)(t / CFQ_NSEC_PER_SEC);
}

/* Simulated time (ns) at which jiffy j begins: the timer tick that makes
 * jiffies == j. */
static int64_t cfq_jiffy_ns(const struct cfq_data *cfqd, int64_t j)
{
	__int128 x = (__int128)(j - CFQ_JIFFIES_BASE) * CFQ_NSEC_PER_SEC;
	if (x <= 0)
		return 0;
	return (int64_t)((x + cfqd->hz - 1) / cfqd->hz);
}

/* msecs_to_jiffies() for a value written by the user: rounds up. */
static int64_t cfq_ns_to_jiffies(int64_t ns, int64_t hz)
{
	__int128 x = (__int128)ns * hz;
	return (int64_t)((x + CFQ_NSEC_PER_SEC - 1) / CFQ_NSEC_PER_SEC);
}

static inline bool time_before_j(int64_t a, int64_t b) { return a < b; }
static inline bool time_after_j(int64_t a, int64_t b) { return a > b; }

/* ============================================================= helpers */

static inline bool cfq_class_idle(const struct cfq_queue *cfqq)
{
	return cfqq->ioprio_class == IOPRIO_CLASS_IDLE;
}

static inline bool cfq_class_rt(const struct cfq_queue *cfqq)
{
	return cfqq->ioprio_class == IOPRIO_CLASS_RT;
}

static inline bool rq_sync(const struct io_request *rq) { return req_is_sync(rq->flags); }
static inline bool rq_write(const struct io_request *rq) { return req_is_write(rq->flags); }
static inline bool sample_valid(uint64_t samples) { return samples > 80; }

static inline enum cfq_wl_class cfqq_class(const struct cfq_queue *cfqq)
{
	if (cfq_class_idle(cfqq))
		return IDLE_WORKLOAD;
	if (cfq_class_rt(cfqq))
		return RT_WORKLOAD;
	return BE_WORKLOAD;
}

static inline enum cfq_wl_type cfqq_type(const struct cfq_queue *cfqq)
{
	if (!cfqq->sync)
		return ASYNC_WORKLOAD;
	if (!cfqq->idle_window)
		return SYNC_NOIDLE_WORKLOAD;
	return SYNC_WORKLOAD;
}

static struct cfq_rb_root *st_for(struct cfq_group *cfqg, enum cfq_wl_class c, enum cfq_wl_type t)
{
	if (!cfqg)
		return NULL;
	if (c == IDLE_WORKLOAD)
		return &cfqg->service_tree_idle;
	return &cfqg->service_trees[c][t];
}

static unsigned cfq_group_busy_queues_wl(enum cfq_wl_class c, const struct cfq_group *cfqg)
{
	if (c == IDLE_WORKLOAD)
		return cfqg->service_tree_idle.count;
	return cfqg->service_trees[c][ASYNC_WORKLOAD].count +
	       cfqg->service_trees[c][SYNC_NOIDLE_WORKLOAD].count +
	       cfqg->service_trees[c][SYNC_WORKLOAD].count;
}

static unsigned cfqg_busy_async_queues(const struct cfq_group *cfqg)
{
	return cfqg->service_trees[RT_WORKLOAD][ASYNC_WORKLOAD].count +
	       cfqg->service_trees[BE_WORKLOAD][ASYNC_WORKLOAD].count;
}

/* Is the device non-rotational with tagged queueing (or not yet known:
 * hw_tag -1 counts as "yes", as in the kernel)? Then CFQ does not idle. */
static inline bool cfq_nonrot_hw_tag(const struct cfq_data *cfqd)
{
	return cfqd->nonrot && cfqd->hw_tag != 0;
}

static inline bool cfq_io_thinktime_big(const struct cfq_data *cfqd, const struct cfq_ttime *tt,
					bool group_idle)
{
	if (!sample_valid(tt->ttime_samples))
		return false;
	return (int64_t)tt->ttime_mean > (group_idle ? cfqd->cfq_group_idle : cfqd->cfq_slice_idle);
}

/* cfq_prio_slice: base + base/5 * (4 - prio): prio 0 gets 1.8x, 7 0.4x. */
static inline int64_t cfq_prio_slice(const struct cfq_data *cfqd, bool sync, unsigned prio)
{
	int64_t base = cfqd->cfq_slice[sync];
	SIM_ASSERT(prio < IOPRIO_BE_NR);
	return base + (base / CFQ_SLICE_SCALE * (4 - (int64_t)prio));
}

static inline int64_t cfq_prio_to_slice(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	return cfq_prio_slice(cfqd, cfqq->sync, cfqq->ioprio);
}

/* Busy-queue average per class: follows increases fast, decays slowly. */
static unsigned cfq_group_get_avg_queues(struct cfq_group *cfqg, bool rt)
{
	unsigned mult = CFQ_HIST_DIVISOR - 1, round = CFQ_HIST_DIVISOR / 2;
	unsigned busy = cfq_group_busy_queues_wl(rt ? RT_WORKLOAD : BE_WORKLOAD, cfqg);
	unsigned avg = cfqg->busy_queues_avg[rt];
	unsigned min_q = avg < busy ? avg : busy, max_q = avg > busy ? avg : busy;
	cfqg->busy_queues_avg[rt] = (mult * max_q + min_q + round) / CFQ_HIST_DIVISOR;
	return cfqg->busy_queues_avg[rt];
}

static inline int64_t cfq_group_slice(const struct cfq_data *cfqd, const struct cfq_group *cfqg)
{
	return (cfqd->cfq_target_latency * cfqg->vfraction) >> CFQ_SERVICE_SHIFT;
}

/* low_latency: shrink the slice so that all queues of the class fit in
 * target_latency, but not below 2 * slice_idle (scaled by prio). */
static int64_t cfq_scaled_cfqq_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	int64_t slice = cfq_prio_to_slice(cfqd, cfqq);
	if (cfqd->cfq_latency) {
		unsigned iq = cfq_group_get_avg_queues(cfqq->cfqg, cfq_class_rt(cfqq));
		int64_t sync_slice = cfqd->cfq_slice[1];
		int64_t expect_latency = sync_slice * iq;
		int64_t group_slice = cfq_group_slice(cfqd, cfqq->cfqg);

		if (expect_latency > group_slice) {
			int64_t base_low_slice = 2 * cfqd->cfq_slice_idle;
			int64_t low_slice = base_low_slice * slice / sync_slice;
			if (low_slice > slice)
				low_slice = slice;
			slice = slice * group_slice / expect_latency;
			if (slice < low_slice)
				slice = low_slice;
		}
	}
	return slice;
}

static void cfq_set_prio_slice(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	int64_t slice = cfq_scaled_cfqq_slice(cfqd, cfqq);
	int64_t now = cfq_jiffies(cfqd);
	cfqq->slice_start = now;
	cfqq->slice_end = now + slice;
	cfqq->allocated_slice = slice;
}

/* slice_end is only valid once the first request of the slice completed. */
static bool cfq_slice_used(const struct cfq_queue *cfqq)
{
	if (cfqq->slice_new)
		return false;
	if (time_before_j(cfq_jiffies(cfqq->cfqd), cfqq->slice_end))
		return false;
	return true;
}

/* Which of rq1 and rq2 to serve next from head position last: sync
 * before async, REQ_PRIO before the rest, then the closest in a one-way
 * elevator that allows backward seeks up to back_max at back_penalty
 * times the cost (cfq_choose_req, after AS). */
static struct io_request *cfq_choose_req(const struct cfq_data *cfqd, struct io_request *rq1,
					 struct io_request *rq2, uint64_t last)
{
	uint64_t s1, s2, d1 = 0, d2 = 0, back_max;
	bool wrap1 = false, wrap2 = false;

	if (!rq1 || rq1 == rq2)
		return rq2;
	if (!rq2)
		return rq1;
	if (rq_sync(rq1) != rq_sync(rq2))
		return rq_sync(rq1) ? rq1 : rq2;
	if ((rq1->flags ^ rq2->flags) & REQ_PRIO)
		return (rq1->flags & REQ_PRIO) ? rq1 : rq2;

	s1 = rq1->sector;
	s2 = rq2->sector;
	back_max = cfqd->cfq_back_max * 2; /* KiB -> sectors */

	if (s1 >= last)
		d1 = s1 - last;
	else if (s1 + back_max >= last)
		d1 = (last - s1) * cfqd->cfq_back_penalty;
	else
		wrap1 = true;

	if (s2 >= last)
		d2 = s2 - last;
	else if (s2 + back_max >= last)
		d2 = (last - s2) * cfqd->cfq_back_penalty;
	else
		wrap2 = true;

	if (!wrap1 && !wrap2) {
		if (d1 < d2)
			return rq1;
		if (d2 < d1)
			return rq2;
		return s1 >= s2 ? rq1 : rq2;
	}
	if (wrap2 && !wrap1)
		return rq1;
	if (wrap1 && !wrap2)
		return rq2;
	/* Both behind the head: start with the one furthest back, so that
	 * only one backward seek is needed. */
	return s1 <= s2 ? rq1 : rq2;
}

/* ------------------------------------------------------- request rbtree */

/* The sort list is the elevator's shared tree (models/block/elevator.c
 * elv_rb_*), as 3.10 cfq-iosched.c uses elv_rb_add/elv_rb_del/elv_rb_find. */

/* Best next request after last is served: its neighbours in sector order. */
static struct io_request *cfq_find_next_rq(struct cfq_data *cfqd, struct cfq_queue *cfqq,
					   struct io_request *last)
{
	struct rb_node *rbnext = rb_next(&last->rb_node);
	struct rb_node *rbprev = rb_prev(&last->rb_node);
	struct io_request *next = NULL, *prev = NULL;

	SIM_ASSERT(!RB_EMPTY_NODE(&last->rb_node));
	if (rbprev)
		prev = rb_entry(rbprev, struct io_request, rb_node);
	if (rbnext) {
		next = rb_entry(rbnext, struct io_request, rb_node);
	} else {
		rbnext = rb_first(&cfqq->sort_list);
		if (rbnext && rbnext != &last->rb_node)
			next = rb_entry(rbnext, struct io_request, rb_node);
	}
	return cfq_choose_req(cfqd, next, prev, last->sector);
}

/* ------------------------------------------------------- service trees */

static struct cfq_queue *cfq_rb_first(struct cfq_rb_root *root)
{
	if (!root || !root->count)
		return NULL;
	struct rb_node *n = rb_first_cached(&root->rb);
	return n ? rb_entry(n, struct cfq_queue, rb_node) : NULL;
}

static void cfq_rb_erase(struct rb_node *n, struct cfq_rb_root *root)
{
	rb_erase_cached(n, &root->rb);
	rb_clear_node(n);
	--root->count;
}

static int64_t cfq_slice_offset(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	/* "just an approximation, should be ok" (3.10) */
	return (int64_t)(cfqq->cfqg->nr_cfqq - 1) *
	       (cfq_prio_slice(cfqd, true, 0) - cfq_prio_slice(cfqd, cfqq->sync, cfqq->ioprio));
}

/* The root group joins the (implicit) group tree when its first queue
 * becomes busy and leaves it with the last. */
static void cfq_group_notify_queue_add(struct cfq_group *cfqg)
{
	cfqg->nr_cfqq++;
}

static void cfq_group_notify_queue_del(struct cfq_group *cfqg)
{
	SIM_ASSERT(cfqg->nr_cfqq >= 1);
	cfqg->nr_cfqq--;
	if (cfqg->nr_cfqq)
		return;
	cfqg->saved_wl_slice = 0;
}

/* Insert (or move) cfqq in its service tree. rb_key is the time it should
 * be served: now plus an offset that favours high priorities, minus the
 * slice it did not use; add_front puts it before the first (preemption). */
static void cfq_service_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq, bool add_front)
{
	struct cfq_rb_root *st = st_for(cfqq->cfqg, cfqq_class(cfqq), cfqq_type(cfqq));
	int64_t now = cfq_jiffies(cfqd), rb_key;
	bool new_cfqq = true, leftmost = true;
	struct rb_node **p, *parent = NULL;

	if (cfq_class_idle(cfqq)) {
		rb_key = cfqd->hz / 5; /* CFQ_IDLE_DELAY */
		struct rb_node *last = rb_last(&st->rb.root);
		if (last && last != &cfqq->rb_node)
			rb_key += rb_entry(last, struct cfq_queue, rb_node)->rb_key;
		else
			rb_key += now;
	} else if (!add_front) {
		rb_key = cfq_slice_offset(cfqd, cfqq) + now;
		rb_key -= cfqq->slice_resid;
		cfqq->slice_resid = 0;
	} else {
		struct cfq_queue *first = cfq_rb_first(st);
		rb_key = -cfqd->hz + (first ? first->rb_key : now);
	}

	if (!RB_EMPTY_NODE(&cfqq->rb_node)) {
		new_cfqq = false;
		if (rb_key == cfqq->rb_key && cfqq->service_tree == st)
			return;
		cfq_rb_erase(&cfqq->rb_node, cfqq->service_tree);
		cfqq->service_tree = NULL;
	}

	cfqq->service_tree = st;
	p = &st->rb.root.node;
	while (*p) {
		struct cfq_queue *q = rb_entry(*p, struct cfq_queue, rb_node);
		parent = *p;
		if (time_before_j(rb_key, q->rb_key)) {
			p = &(*p)->left;
		} else {
			p = &(*p)->right;
			leftmost = false;
		}
	}
	cfqq->rb_key = rb_key;
	rb_link_node(&cfqq->rb_node, parent, p);
	rb_insert_color_cached(&cfqq->rb_node, &st->rb, leftmost);
	st->count++;
	if (add_front || !new_cfqq)
		return;
	cfq_group_notify_queue_add(cfqq->cfqg);
}

/* ---------------------------------------------------------- prio trees */

/* Queues of one org_ioprio sorted by the sector of their next request:
 * used to find a queue issuing I/O close to the head (cooperator). */
static struct cfq_queue *cfq_prio_tree_lookup(struct rb_root *root, uint64_t sector,
					      struct rb_node **ret_parent,
					      struct rb_node ***rb_link)
{
	struct rb_node **p = &root->node, *parent = NULL;
	struct cfq_queue *cfqq = NULL;

	while (*p) {
		struct rb_node **n;
		parent = *p;
		cfqq = rb_entry(parent, struct cfq_queue, p_node);
		if (sector > cfqq->next_rq->sector)
			n = &(*p)->right;
		else if (sector < cfqq->next_rq->sector)
			n = &(*p)->left;
		else
			break;
		p = n;
		cfqq = NULL;
	}
	*ret_parent = parent;
	if (rb_link)
		*rb_link = p;
	return cfqq;
}

static void cfq_prio_tree_del(struct cfq_queue *cfqq)
{
	if (cfqq->p_root) {
		rb_erase(&cfqq->p_node, cfqq->p_root);
		cfqq->p_root = NULL;
	}
}

static void cfq_prio_tree_add(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct rb_node **p, *parent;

	cfq_prio_tree_del(cfqq);
	if (cfq_class_idle(cfqq) || !cfqq->next_rq)
		return;
	cfqq->p_root = &cfqd->prio_trees[cfqq->org_ioprio];
	if (!cfq_prio_tree_lookup(cfqq->p_root, cfqq->next_rq->sector, &parent, &p)) {
		rb_link_node(&cfqq->p_node, parent, p);
		rb_insert_color(&cfqq->p_node, cfqq->p_root);
	} else {
		cfqq->p_root = NULL;
	}
}

static void cfq_resort_rr_list(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	if (cfqq->on_rr) {
		cfq_service_tree_add(cfqd, cfqq, false);
		cfq_prio_tree_add(cfqd, cfqq);
	}
}

static void cfq_add_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	SIM_ASSERT(!cfqq->on_rr);
	cfqq->on_rr = true;
	cfqd->busy_queues++;
	if (cfqq->sync)
		cfqd->busy_sync_queues++;
	cfq_resort_rr_list(cfqd, cfqq);
}

static void cfq_del_cfqq_rr(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	SIM_ASSERT(cfqq->on_rr);
	cfqq->on_rr = false;
	if (!RB_EMPTY_NODE(&cfqq->rb_node)) {
		cfq_rb_erase(&cfqq->rb_node, cfqq->service_tree);
		cfqq->service_tree = NULL;
	}
	cfq_prio_tree_del(cfqq);
	cfq_group_notify_queue_del(cfqq->cfqg);
	SIM_ASSERT(cfqd->busy_queues);
	cfqd->busy_queues--;
	if (cfqq->sync)
		cfqd->busy_sync_queues--;
}

/* ------------------------------------------------ requests in a cfqq */

static void cfq_fg_forget(struct cfq_data *cfqd, struct io_request *rq);

static void cfq_del_rq_rb(struct io_request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	bool sync = rq_sync(rq);

	SIM_ASSERT(cfqq->queued[sync]);
	cfqq->queued[sync]--;
	elv_rb_del(&cfqq->sort_list, rq);
	/* Leaves the service tree when it is expired; the prio tree now. */
	if (cfqq->on_rr && RB_EMPTY_ROOT(&cfqq->sort_list))
		cfq_prio_tree_del(cfqq);
}

static void cfq_add_rq_rb(struct io_request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	struct cfq_data *cfqd = cfqq->cfqd;
	struct io_request *prev;

	cfqq->queued[rq_sync(rq)]++;
	elv_rb_add(&cfqq->sort_list, rq);
	if (!cfqq->on_rr)
		cfq_add_cfqq_rr(cfqd, cfqq);

	prev = cfqq->next_rq;
	cfqq->next_rq = cfq_choose_req(cfqd, cfqq->next_rq, rq, cfqd->last_position);
	if (prev != cfqq->next_rq)
		cfq_prio_tree_add(cfqd, cfqq);
	SIM_ASSERT(cfqq->next_rq);
}

static void cfq_reposition_rq_rb(struct cfq_queue *cfqq, struct io_request *rq)
{
	elv_rb_del(&cfqq->sort_list, rq);
	cfqq->queued[rq_sync(rq)]--;
	cfq_add_rq_rb(rq);
}

static void cfq_remove_request(struct io_request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	struct cfq_data *cfqd = cfqq->cfqd;

	if (cfqq->next_rq == rq)
		cfqq->next_rq = cfq_find_next_rq(cfqd, cfqq, rq);
	list_del_init(&rq->queuelist);
	cfq_del_rq_rb(rq);
	cfqd->rq_queued--;
	/* REQ_PRIO may also arrive with a merged bio, uncounted: never below 0 */
	if ((rq->flags & REQ_PRIO) && cfqq->prio_pending)
		cfqq->prio_pending--;
	if (cfqd->boost_rq == rq)
		cfqd->boost_rq = NULL;
	cfq_fg_forget(cfqd, rq);
}

/* ================================================================ timers */

static void cfq_schedule_dispatch(struct cfq_data *cfqd)
{
	/* kblockd_schedule_work(unplug_work): the queue runs "soon", i.e.
	 * after the current event, never from inside a core call. */
	if (cfqd->busy_queues && !sim_event_pending(&cfqd->kick))
		sim_at(cfqd->sim, &cfqd->kick, sim_now(cfqd->sim));
}

static void cfq_idle_end(struct cfq_data *cfqd)
{
	if (cfqd->idling) {
		cfqd->idling = false;
		cfqd->st.idle_wait_ns += sim_now(cfqd->sim) - cfqd->idle_since_ns;
	}
}

static void cfq_del_timer(struct cfq_data *cfqd)
{
	sim_cancel(cfqd->sim, &cfqd->idle_timer);
	cfq_idle_end(cfqd);
}

static void cfq_mod_timer(struct cfq_data *cfqd, int64_t expires_jiffies)
{
	sim_at(cfqd->sim, &cfqd->idle_timer, cfq_jiffy_ns(cfqd, expires_jiffies));
	if (!cfqd->idling) {
		cfqd->idling = true;
		cfqd->idle_since_ns = sim_now(cfqd->sim);
		cfqd->st.idle_waits++;
	}
}

/* ============================================== foreground-aware mode */

/* FG-high: a sync request tagged FG, or one lifted (boost_lba, or FG
 * data merged into it). */
static inline bool cfq_rq_fg_high(const struct io_request *rq)
{
	return (rq->flags & REQ_BOOSTED) || ((rq->flags & REQ_FG) && rq_sync(rq));
}

/* Would bio make an FG-high request of its own? */
static inline bool cfq_bio_fg_high(const struct bio *bio)
{
	return req_is_sync(bio->flags) && ((bio->flags & REQ_FG) || (bio->ioc && bio->ioc->fg));
}

/* Is some FG queue waiting for (or holding) the device? */
static inline bool cfq_fg_pending(const struct cfq_data *cfqd)
{
	return cfqd->fg_aware && !list_empty(&cfqd->fg_list);
}

static void cfq_fg_list_add(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	SIM_ASSERT(!cfqq->on_fg_list && cfqq->on_rr);
	list_add_tail(&cfqq->fg_node, &cfqd->fg_list);
	cfqq->on_fg_list = true;
	cfqq->fg = true;
	/* FG first: take the device from a BG queue at this instant, even
	 * if it idles (cfq_select_queue does the switch). */
	if (!cfqd->active_queue || !cfqd->active_queue->on_fg_list)
		cfq_schedule_dispatch(cfqd);
}

static void cfq_fg_list_del(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	SIM_ASSERT(cfqq->on_fg_list);
	list_del_init(&cfqq->fg_node);
	cfqq->on_fg_list = false;
	/* the active sync queue stays FG for the rest of its turn: it may
	 * idle for its task's next request */
	cfqq->fg = cfqq->sync && cfqq == cfqd->active_queue;
}

/* Count queued rq in its queue's fg_queued once it is FG-high (flags
 * only gain FG-ness while a request is queued). */
static void cfq_fg_count(struct cfq_data *cfqd, struct io_request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	cfq_rq_set_mark(rq, CFQ_RQ_FG_COUNTED, true);
	if (cfqq->fg_queued++ == 0)
		cfq_fg_list_add(cfqd, cfqq);
}

static void cfq_fg_account(struct cfq_data *cfqd, struct io_request *rq)
{
	if (!cfqd->fg_aware || cfq_rq_mark(rq, CFQ_RQ_FG_COUNTED) || !cfq_rq_fg_high(rq))
		return;
	cfq_fg_count(cfqd, rq);
}

/* rq leaves the scheduler (dispatched or merged away). Not gated on
 * fg_aware: counts taken before the mode was switched off unwind. */
static void cfq_fg_forget(struct cfq_data *cfqd, struct io_request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	if (!cfq_rq_mark(rq, CFQ_RQ_FG_COUNTED))
		return;
	cfq_rq_set_mark(rq, CFQ_RQ_FG_COUNTED, false);
	SIM_ASSERT(cfqq->fg_queued > 0);
	if (--cfqq->fg_queued == 0)
		cfq_fg_list_del(cfqd, cfqq);
}

/* Queued rq absorbed a bio or a request; fg_data: what joined it was
 * FG-high. Lift rq to FG-high if it is not: an async request that took
 * in FG sync data is marked REQ_BOOSTED (a task waits on it). */
static void cfq_fg_lift(struct cfq_data *cfqd, struct io_request *rq, bool fg_data)
{
	if (!cfqd->fg_aware || RB_EMPTY_NODE(&rq->rb_node) || cfq_rq_mark(rq, CFQ_RQ_FG_COUNTED))
		return;
	if (fg_data && !cfq_rq_fg_high(rq))
		rq->flags |= REQ_BOOSTED;
	if (!cfq_rq_fg_high(rq))
		return;
	cfqd->st.fg_lifted++;
	cfq_fg_account(cfqd, rq);
}

/* May bio join rq? Not when rq is FG-high and bio is not: the FG
 * request would grow and complete later. */
static bool cfq_fg_merge_ok(struct cfq_data *cfqd, const struct io_request *rq,
			    const struct bio *bio)
{
	if (!cfqd->fg_aware || !cfq_rq_fg_high(rq) || cfq_bio_fg_high(bio))
		return true;
	cfqd->st.fg_merges_refused++;
	return false;
}

/* fg_idle always: will the FG sync queue idle for its next request?
 * Yes unless idling is off or its task thinks longer than slice_idle. */
static bool cfq_fg_idles(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	const struct cfq_io_cq *cic = cfqd->active_cic;

	if (!cfqq->fg || !cfqq->sync || cfqd->fg_idle != CFQ_FG_IDLE_ALWAYS || !cfqd->cfq_slice_idle)
		return false;
	return !(cic && sample_valid(cic->ttime.ttime_samples) &&
		 (int64_t)cic->ttime.ttime_mean > cfqd->cfq_slice_idle);
}

/* The oldest FG-high request of cfqq (an async FG queue serves only
 * those). O(queued) in the rare case of boosted async requests. */
static struct io_request *cfq_fg_first_rq(struct cfq_queue *cfqq)
{
	struct list_head *pos;

	list_for_each(pos, &cfqq->fifo) {
		struct io_request *rq = list_entry(pos, struct io_request, queuelist);
		if (cfq_rq_mark(rq, CFQ_RQ_FG_COUNTED))
			return rq;
	}
	return NULL;
}

/* =========================================================== slices */

static void __cfq_set_active_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	if (cfqq) {
		cfqq->slice_start = 0;
		cfqq->dispatch_start = cfq_jiffies(cfqd);
		cfqq->allocated_slice = 0;
		cfqq->slice_end = 0;
		cfqq->slice_dispatch = 0;
		cfqq->nr_sectors = 0;
		cfqq->wait_request = false;
		cfqq->must_dispatch = false;
		cfqq->must_alloc_slice = false;
		cfqq->fifo_expire = false;
		cfqq->slice_new = true;
		cfq_del_timer(cfqd);
		cfqd->st.slices++;
	}
	cfqd->active_queue = cfqq;
}

/* The group records the rest of the workload slice when a queue expires
 * (cfq_group_served; vdisktime is not kept with a single group). */
static void cfq_group_served(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	int64_t now = cfq_jiffies(cfqd);
	if (time_after_j(cfqd->workload_expires, now)) {
		cfqg->saved_wl_slice = cfqd->workload_expires - now;
		cfqg->saved_wl_type = cfqd->serving_wl_type;
		cfqg->saved_wl_class = cfqd->serving_wl_class;
	} else {
		cfqg->saved_wl_slice = 0;
	}
}

static void __cfq_slice_expired(struct cfq_data *cfqd, struct cfq_queue *cfqq, bool timed_out)
{
	if (cfqq->wait_request)
		cfq_del_timer(cfqd);
	cfqq->wait_request = false;
	cfqq->wait_busy = false;

	/* Remember what was left of the slice if it idled out or was
	 * preempted; it moves the queue forward in its tree next time. */
	if (timed_out) {
		cfqd->st.slices_expired_timed_out++;
		if (cfqq->slice_new)
			cfqq->slice_resid = cfq_scaled_cfqq_slice(cfqd, cfqq);
		else
			cfqq->slice_resid = cfqq->slice_end - cfq_jiffies(cfqd);
	}

	cfq_group_served(cfqd, cfqq->cfqg);

	if (cfqq->on_rr && RB_EMPTY_ROOT(&cfqq->sort_list))
		cfq_del_cfqq_rr(cfqd, cfqq);
	cfq_resort_rr_list(cfqd, cfqq);

	if (cfqq == cfqd->active_queue)
		cfqd->active_queue = NULL;
	cfqd->active_cic = NULL;
	/* an FG turn ends with the slice */
	cfqq->fg = cfqq->on_fg_list;
}

static void cfq_slice_expired(struct cfq_data *cfqd, bool timed_out)
{
	if (cfqd->active_queue)
		__cfq_slice_expired(cfqd, cfqd->active_queue, timed_out);
}

static struct cfq_queue *cfq_get_next_queue(struct cfq_data *cfqd)
{
	if (!cfqd->rq_queued)
		return NULL;
	return cfq_rb_first(st_for(&cfqd->root_group, cfqd->serving_wl_class, cfqd->serving_wl_type));
}

static struct cfq_queue *cfq_get_next_queue_forced(struct cfq_data *cfqd)
{
	struct cfq_group *cfqg = &cfqd->root_group;
	struct cfq_queue *cfqq;

	if (!cfqd->rq_queued || !cfqg->nr_cfqq)
		return NULL;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < CFQ_WL_TYPES; j++)
			if ((cfqq = cfq_rb_first(&cfqg->service_trees[i][j])))
				return cfqq;
	return cfq_rb_first(&cfqg->service_tree_idle);
}

static struct cfq_queue *cfq_set_active_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	if (!cfqq)
		cfqq = cfq_get_next_queue(cfqd);
	__cfq_set_active_queue(cfqd, cfqq);
	return cfqq;
}

static inline uint64_t cfq_dist_from_last(const struct cfq_data *cfqd, const struct io_request *rq)
{
	if (rq->sector >= cfqd->last_position)
		return rq->sector - cfqd->last_position;
	return cfqd->last_position - rq->sector;
}

static inline bool cfq_rq_close(const struct cfq_data *cfqd, const struct io_request *rq)
{
	return cfq_dist_from_last(cfqd, rq) <= CFQQ_CLOSE_THR;
}

static inline bool cfqq_seeky(const struct cfq_queue *cfqq)
{
	return __builtin_popcount(cfqq->seek_history) > 32 / 8;
}

static struct cfq_queue *cfqq_close(struct cfq_data *cfqd, struct cfq_queue *cur)
{
	struct rb_root *root = &cfqd->prio_trees[cur->org_ioprio];
	struct rb_node *parent, *node;
	struct cfq_queue *q;
	uint64_t sector = cfqd->last_position;

	if (RB_EMPTY_ROOT(root))
		return NULL;
	q = cfq_prio_tree_lookup(root, sector, &parent, NULL);
	if (q)
		return q;
	q = rb_entry(parent, struct cfq_queue, p_node);
	if (cfq_rq_close(cfqd, q->next_rq))
		return q;
	if (q->next_rq->sector < sector)
		node = rb_next(&q->p_node);
	else
		node = rb_prev(&q->p_node);
	if (!node)
		return NULL;
	q = rb_entry(node, struct cfq_queue, p_node);
	if (cfq_rq_close(cfqd, q->next_rq))
		return q;
	return NULL;
}

/* A non-seeky sync queue of the same class whose next request is within
 * CFQQ_CLOSE_THR of the head: serve it instead of idling. */
static struct cfq_queue *cfq_close_cooperator(struct cfq_data *cfqd, struct cfq_queue *cur)
{
	struct cfq_queue *cfqq;

	if (cfq_class_idle(cur) || !cur->sync || cfqq_seeky(cur))
		return NULL;
	if (cur->cfqg->nr_cfqq == 1)
		return NULL;
	cfqq = cfqq_close(cfqd, cur);
	if (!cfqq || cfqq == cur)
		return NULL;
	if (!cfqq->sync || cfqq_seeky(cfqq))
		return NULL;
	if (cfq_class_rt(cfqq) != cfq_class_rt(cur))
		return NULL;
	return cfqq;
}

static bool cfq_should_idle(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct cfq_rb_root *st = cfqq->service_tree;

	SIM_ASSERT(st && st->count);
	if (!cfqd->cfq_slice_idle)
		return false;
	if (cfqq_class(cfqq) == IDLE_WORKLOAD)
		return false;
	if (cfqq->idle_window && !cfq_nonrot_hw_tag(cfqd))
		return true;
	/* Otherwise only the last queue of its tree, if it thinks fast. */
	if (st->count == 1 && cfqq->sync && !cfq_io_thinktime_big(cfqd, &st->ttime, false))
		return true;
	return false;
}

static void cfq_arm_slice_timer(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq = cfqd->active_queue;
	struct cfq_io_cq *cic;
	int64_t sl, group_idle = 0, now = cfq_jiffies(cfqd);

	SIM_ASSERT(RB_EMPTY_ROOT(&cfqq->sort_list));
	/* fg_idle always: an FG queue idles whatever the device */
	if (cfqq->fg && cfqd->fg_idle == CFQ_FG_IDLE_ALWAYS) {
		cic = cfqd->active_cic;
		if (!cfq_fg_idles(cfqd, cfqq) || cfqq->dispatched || !cic)
			return;
		if (sample_valid(cic->ttime.ttime_samples) &&
		    cfqq->slice_end - now < (int64_t)cic->ttime.ttime_mean)
			return;
		cfqq->wait_request = true;
		cfq_mod_timer(cfqd, now + cfqd->cfq_slice_idle);
		return;
	}
	/* SSD with queueing: no idling (sync/async mixing is its problem). */
	if (cfq_nonrot_hw_tag(cfqd))
		return;

	if (!cfq_should_idle(cfqd, cfqq)) {
		if (cfqd->cfq_group_idle)
			group_idle = cfqd->cfq_group_idle;
		else
			return;
	}
	if (cfqq->dispatched)
		return;
	cic = cfqd->active_cic;
	if (!cic)
		return;
	/* Mean think time longer than the rest of the slice: don't. */
	if (sample_valid(cic->ttime.ttime_samples) &&
	    cfqq->slice_end - now < (int64_t)cic->ttime.ttime_mean)
		return;
	if (group_idle && cfqq->cfqg->nr_cfqq > 1)
		return;

	cfqq->wait_request = true;
	sl = group_idle ? cfqd->cfq_group_idle : cfqd->cfq_slice_idle;
	cfq_mod_timer(cfqd, now + sl);
}

static void cfq_dispatch_insert(struct cfq_data *cfqd, struct io_request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	if (cfq_rq_mark(rq, CFQ_RQ_FG_COUNTED))
		cfqd->st.fg_dispatched++;
	cfqq->next_rq = cfq_find_next_rq(cfqd, cfqq, rq);
	cfq_remove_request(rq);
	cfqq->dispatched++;
	cfqq->cfqg->dispatched++;
	cfqd->rq_in_flight[cfqq->sync]++;
	cfqq->nr_sectors += rq->nr_sectors;
	cfqd->st.dispatched[cfqq_class(cfqq)][cfqq_type(cfqq)]++;
	elv_dispatch_sort(cfqd->e->q, rq);
}

/* The oldest request if its deadline passed; checked once per slice. */
static struct io_request *cfq_check_fifo(struct cfq_queue *cfqq)
{
	struct io_request *rq;

	if (cfqq->fifo_expire)
		return NULL;
	cfqq->fifo_expire = true;
	if (list_empty(&cfqq->fifo))
		return NULL;
	rq = list_first_entry(&cfqq->fifo, struct io_request, queuelist);
	if (sim_now(cfqq->cfqd->sim) < rq->fifo_time)
		return NULL;
	cfqq->cfqd->st.fifo_expired++;
	return rq;
}

/* Requests an async queue may dispatch per slice: 4 * (8 - prio). */
static inline unsigned cfq_prio_to_maxrq(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	SIM_ASSERT(cfqq->ioprio < IOPRIO_BE_NR);
	return 2 * cfqd->cfq_slice_async_rq * (IOPRIO_BE_NR - cfqq->ioprio);
}

static enum cfq_wl_type cfq_choose_wl_type(struct cfq_group *cfqg, enum cfq_wl_class wl_class)
{
	enum cfq_wl_type best = SYNC_NOIDLE_WORKLOAD;
	bool key_valid = false;
	int64_t lowest = 0;

	for (int i = 0; i <= SYNC_WORKLOAD; i++) {
		struct cfq_queue *q = cfq_rb_first(st_for(cfqg, wl_class, i));
		if (q && (!key_valid || time_before_j(q->rb_key, lowest))) {
			lowest = q->rb_key;
			best = i;
			key_valid = true;
		}
	}
	return best;
}

static void choose_wl_class_and_type(struct cfq_data *cfqd, struct cfq_group *cfqg)
{
	enum cfq_wl_class original = cfqd->serving_wl_class;
	int64_t now = cfq_jiffies(cfqd), slice, group_slice;
	unsigned count, busy, avg;
	struct cfq_rb_root *st;

	/* Strict class priority: RT > BE > IDLE. */
	if (cfq_group_busy_queues_wl(RT_WORKLOAD, cfqg)) {
		cfqd->serving_wl_class = RT_WORKLOAD;
	} else if (cfq_group_busy_queues_wl(BE_WORKLOAD, cfqg)) {
		cfqd->serving_wl_class = BE_WORKLOAD;
	} else {
		cfqd->serving_wl_class = IDLE_WORKLOAD;
		cfqd->workload_expires = now + 1;
		return;
	}

	if (original == cfqd->serving_wl_class) {
		st = st_for(cfqg, cfqd->serving_wl_class, cfqd->serving_wl_type);
		/* Keep the workload while it has time and queues. */
		if (st->count && !time_after_j(now, cfqd->workload_expires))
			return;
	}

	cfqd->serving_wl_type = cfq_choose_wl_type(cfqg, cfqd->serving_wl_class);
	st = st_for(cfqg, cfqd->serving_wl_class, cfqd->serving_wl_type);
	count = st->count;

	/* A share of target_latency proportional to the queues of this type
	 * among the busy queues of the class. */
	group_slice = cfq_group_slice(cfqd, cfqg);
	busy = cfq_group_busy_queues_wl(cfqd->serving_wl_class, cfqg);
	avg = cfqg->busy_queues_avg[cfqd->serving_wl_class];
	slice = group_slice * count / (avg > busy ? avg : busy);

	if (cfqd->serving_wl_type == ASYNC_WORKLOAD) {
		int64_t tmp = cfqd->cfq_target_latency * cfqg_busy_async_queues(cfqg);
		tmp = tmp / cfqd->busy_queues;
		if (tmp < slice)
			slice = tmp;
		/* scaled down by the async/sync slice ratio */
		slice = slice * cfqd->cfq_slice[0] / cfqd->cfq_slice[1];
	} else if (slice < 2 * cfqd->cfq_slice_idle) {
		slice = 2 * cfqd->cfq_slice_idle;
	}
	if (slice < CFQ_MIN_TT)
		slice = CFQ_MIN_TT;
	cfqd->workload_expires = now + slice;
}

static void cfq_choose_cfqg(struct cfq_data *cfqd)
{
	struct cfq_group *cfqg = &cfqd->root_group;
	int64_t now = cfq_jiffies(cfqd);

	if (cfqg->saved_wl_slice) {
		cfqd->workload_expires = now + cfqg->saved_wl_slice;
		cfqd->serving_wl_type = cfqg->saved_wl_type;
		cfqd->serving_wl_class = cfqg->saved_wl_class;
	} else {
		cfqd->workload_expires = now - 1;
	}
	choose_wl_class_and_type(cfqd, cfqg);
}

/* A queue lifted by boost_lba preempts whatever is active. */
static struct cfq_queue *cfq_select_boosted(struct cfq_data *cfqd)
{
	struct cfq_queue *bq = RQ_CFQQ(cfqd->boost_rq);

	if (cfqd->active_queue == bq)
		return bq;
	if (cfqd->active_queue) {
		cfqd->st.boost_preempts++;
		cfq_slice_expired(cfqd, true);
	}
	cfqd->serving_wl_class = cfqq_class(bq);
	cfqd->serving_wl_type = cfqq_type(bq);
	return cfq_set_active_queue(cfqd, bq);
}

/* fg_aware: the head of the FG list gets the device. An active BG queue
 * is preempted (expired as timed_out, keeping its slice_resid); an
 * active FG queue that ran out of FG requests hands over (FIFO). */
static struct cfq_queue *cfq_fg_take_device(struct cfq_data *cfqd)
{
	struct cfq_queue *head = list_first_entry(&cfqd->fg_list, struct cfq_queue, fg_node);
	struct cfq_queue *active = cfqd->active_queue;
	struct list_head *pos;
	int bg = cfqd->rq_queued;

	SIM_ASSERT(active != head);
	if (active) {
		bool was_bg = !active->fg;
		if (was_bg)
			cfqd->st.fg_preemptions++;
		cfq_slice_expired(cfqd, was_bg);
	}
	list_for_each(pos, &cfqd->fg_list) {
		struct cfq_queue *q = list_entry(pos, struct cfq_queue, fg_node);
		bg -= q->queued[0] + q->queued[1];
	}
	cfqd->st.fg_bg_delayed += (uint64_t)bg;
	cfqd->st.fg_turns++;
	cfqd->serving_wl_class = cfqq_class(head);
	cfqd->serving_wl_type = cfqq_type(head);
	return cfq_set_active_queue(cfqd, head);
}

/* Keep serving the active queue, idle on it, or expire it and pick the
 * next one (cfq_select_queue). NULL: dispatch nothing now. */
static struct cfq_queue *cfq_select_queue(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq, *new_cfqq = NULL;
	int64_t now = cfq_jiffies(cfqd);

	if (cfqd->boost_rq)
		return cfq_select_boosted(cfqd);
	/* FG first: only an FG queue keeps the device while one waits */
	if (cfq_fg_pending(cfqd) && (!cfqd->active_queue || !cfqd->active_queue->on_fg_list))
		return cfq_fg_take_device(cfqd);

	cfqq = cfqd->active_queue;
	if (!cfqq)
		goto new_queue;
	if (!cfqd->rq_queued)
		return NULL;

	/* Waited for the group to get backlogged: expire. */
	if (cfqq->wait_busy && !RB_EMPTY_ROOT(&cfqq->sort_list))
		goto expire;

	if (cfq_slice_used(cfqq) && !cfqq->must_dispatch) {
		/* Used up, but it idled all along: let the last request
		 * complete while the group stays backlogged. */
		if (cfqq->cfqg->nr_cfqq == 1 && RB_EMPTY_ROOT(&cfqq->sort_list) &&
		    cfqq->dispatched && cfq_should_idle(cfqd, cfqq))
			return NULL;
		goto check_group_idle;
	}

	if (!RB_EMPTY_ROOT(&cfqq->sort_list))
		return cfqq;

	/* fg_idle never: an FG turn ends when the queue runs dry */
	if (cfqq->fg && cfqd->fg_idle == CFQ_FG_IDLE_NEVER)
		goto expire;
	/* an FG queue idles for its own task rather than hand the device
	 * to a BG cooperator */
	if (!cfqq->fg)
		new_cfqq = cfq_close_cooperator(cfqd, cfqq);
	if (new_cfqq) {
		cfqd->st.close_cooperators++;
		goto expire;
	}

	/* Nothing queued: idling or waiting for in-flight requests. */
	if (sim_event_pending(&cfqd->idle_timer))
		return NULL;

	/* Seeky but deep queue on a device faster than the queue: stop idling. */
	if (cfqq_seeky(cfqq) && cfqq->idle_window &&
	    (cfqq->slice_new || (cfqq->slice_end - now > now - cfqq->slice_start))) {
		cfqq->deep = false;
		cfqq->idle_window = false;
	}

	if (cfqq->dispatched && cfq_should_idle(cfqd, cfqq))
		return NULL;
	/* fg_idle always: wait for the FG request in flight, then idle */
	if (cfqq->dispatched && cfq_fg_idles(cfqd, cfqq))
		return NULL;

check_group_idle:
	if (cfqd->cfq_group_idle && cfqq->cfqg->nr_cfqq == 1 && cfqq->cfqg->dispatched &&
	    !cfq_io_thinktime_big(cfqd, &cfqq->cfqg->ttime, true))
		return NULL;

expire:
	cfq_slice_expired(cfqd, false);
new_queue:
	if (cfq_fg_pending(cfqd))
		return cfq_fg_take_device(cfqd);
	if (!new_cfqq)
		cfq_choose_cfqg(cfqd);
	return cfq_set_active_queue(cfqd, new_cfqq);
}

static int __cfq_forced_dispatch_cfqq(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	int dispatched = 0;
	while (cfqq->next_rq) {
		cfq_dispatch_insert(cfqd, cfqq->next_rq);
		dispatched++;
	}
	SIM_ASSERT(list_empty(&cfqq->fifo));
	__cfq_slice_expired(cfqd, cfqq, false);
	return dispatched;
}

static int cfq_forced_dispatch(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq;
	int dispatched = 0;

	cfq_slice_expired(cfqd, false);
	while ((cfqq = cfq_get_next_queue_forced(cfqd))) {
		__cfq_set_active_queue(cfqd, cfqq);
		dispatched += __cfq_forced_dispatch_cfqq(cfqd, cfqq);
	}
	SIM_ASSERT(!cfqd->busy_queues);
	cfqd->st.forced_dispatches++;
	return dispatched;
}

static bool cfq_slice_used_soon(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	if (cfqq->slice_new)
		return true;
	return time_after_j(cfq_jiffies(cfqd) + cfqd->cfq_slice_idle * cfqq->dispatched,
			    cfqq->slice_end);
}

/* 2.6.23 cfq_dispatch_requests' per-queue limits. */
static bool cfq_may_dispatch_2623(const struct cfq_data *cfqd, const struct cfq_queue *cfqq)
{
	unsigned max_dispatch = cfq_class_idle(cfqq) ? 1 : cfqd->cfq_quantum;
	if (cfqd->rq_in_flight[1] && !cfqq->sync)
		return false;
	if ((unsigned)cfqq->dispatched >= max_dispatch &&
	    (cfqd->busy_queues > 1 || (unsigned)cfqq->dispatched >= 4 * max_dispatch))
		return false;
	return true;
}

static bool cfq_may_dispatch(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	unsigned max_dispatch;

	if (cfqd->kernel_variant == CFQ_KERNEL_2_6_23)
		return cfq_may_dispatch_2623(cfqd, cfqq);

	/* Drain async requests before starting sync I/O we will idle on.
	 * Not for an FG queue: FG first, it does not wait for BG writes. */
	if (!cfqq->fg && cfq_should_idle(cfqd, cfqq) && cfqd->rq_in_flight[0])
		return false;
	if (cfqd->kernel_variant == CFQ_KERNEL_SAMSUNG_7420) {
		/* Samsung: async waits behind in-flight sync only on a queue
		 * without tagged queueing (hw_tag 0) and with throttle_async
		 * set; and never more than max_async_dispatch async requests
		 * in flight, whatever the queue depth. */
		if (!cfqq->sync && cfqd->rq_in_flight[1] && !cfqd->hw_tag && cfqd->throttle_async) {
			cfqd->st.async_sync_waits++;
			return false;
		}
		if (!cfqq->sync && cfqd->rq_in_flight[0] >= cfqd->max_async_dispatch) {
			cfqd->st.async_cap_waits++;
			return false;
		}
	} else if (cfqd->rq_in_flight[1] && !cfqq->sync) {
		/* mainline: async waits while any sync request is in flight */
		return false;
	}

	max_dispatch = cfqd->cfq_quantum / 2 > 1 ? cfqd->cfq_quantum / 2 : 1;
	if (cfq_class_idle(cfqq))
		max_dispatch = 1;

	if ((unsigned)cfqq->dispatched >= max_dispatch) {
		bool promote_sync = false;

		if (cfq_class_idle(cfqq))
			return false;
		/* The only sync queue may go deeper: it can preempt async anyway. */
		if (cfqq->sync && cfqd->busy_sync_queues == 1)
			promote_sync = true;
		if (cfqd->busy_queues > 1 && cfq_slice_used_soon(cfqd, cfqq) && !promote_sync)
			return false;
		if (cfqd->busy_queues == 1 || promote_sync)
			max_dispatch = UINT32_MAX;
		else
			max_dispatch = cfqd->cfq_quantum;
	}

	/* low_latency: async depth ramps up with the time since a sync
	 * request last waited longer than fifo_expire_sync. */
	if (!cfqq->sync && cfqd->cfq_latency) {
		int64_t last_sync = cfq_jiffies(cfqd) - cfqd->last_delayed_sync;
		int64_t depth = last_sync / cfqd->cfq_slice[1];
		if (!depth && !cfqq->dispatched)
			depth = 1;
		if (depth < (int64_t)max_dispatch)
			max_dispatch = (unsigned)depth;
	}
	return (unsigned)cfqq->dispatched < max_dispatch;
}

static bool cfq_dispatch_request(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct io_request *rq;

	SIM_ASSERT(!RB_EMPTY_ROOT(&cfqq->sort_list));
	if (cfqd->boost_rq && RQ_CFQQ(cfqd->boost_rq) == cfqq) {
		/* The boosted request skips the fifo and the async rules:
		 * a task is blocked on it. */
		rq = cfqd->boost_rq;
		cfqd->boost_rq = NULL;
	} else if (cfqq->on_fg_list && !cfqq->sync) {
		/* an async queue is FG for its boosted requests only; they
		 * skip the async rules as the boost_lba request does */
		rq = cfq_fg_first_rq(cfqq);
		SIM_ASSERT(rq);
	} else {
		if (!cfq_may_dispatch(cfqd, cfqq))
			return false;
		rq = cfq_check_fifo(cfqq);
		if (!rq)
			rq = cfqq->next_rq;
	}
	cfq_dispatch_insert(cfqd, rq);
	if (!cfqd->active_cic)
		cfqd->active_cic = RQ_CIC(rq);
	return true;
}

/* ============================================================ queues */

static void cfq_init_prio_data(struct cfq_queue *cfqq, struct cfq_io_cq *cic)
{
	int cls, lvl;

	if (!cfqq->prio_changed)
		return;
	cls = cic->ioprio >> 8;
	lvl = cic->ioprio & 0xff;
	switch (cls) {
	default:
	case IOPRIO_CLASS_NONE:
		/* inherit from CPU nice: task_nice_ioprio(nice 0) = 4, BE */
		cfqq->ioprio = IOPRIO_NORM;
		cfqq->ioprio_class = IOPRIO_CLASS_BE;
		break;
	case IOPRIO_CLASS_RT:
		cfqq->ioprio = (unsigned)lvl;
		cfqq->ioprio_class = IOPRIO_CLASS_RT;
		break;
	case IOPRIO_CLASS_BE:
		cfqq->ioprio = (unsigned)lvl;
		cfqq->ioprio_class = IOPRIO_CLASS_BE;
		break;
	case IOPRIO_CLASS_IDLE:
		cfqq->ioprio_class = IOPRIO_CLASS_IDLE;
		cfqq->ioprio = 7;
		cfqq->idle_window = false;
		break;
	}
	cfqq->org_ioprio = cfqq->ioprio;
	cfqq->prio_changed = false;
}

static struct cfq_queue *cfq_alloc_queue(struct cfq_data *cfqd, bool sync, struct cfq_io_cq *cic)
{
	struct cfq_queue *cfqq = calloc(1, sizeof(*cfqq));
	if (!cfqq)
		return NULL;
	cfqq->cfqd = cfqd;
	cfqq->cfqg = &cfqd->root_group;
	rb_clear_node(&cfqq->rb_node);
	rb_clear_node(&cfqq->p_node);
	cfqq->sort_list = RB_ROOT;
	list_init(&cfqq->fifo);
	list_init(&cfqq->fg_node);
	cfqq->prio_changed = true;
	/* init_cfqq marks idle_window before prio data is known, and
	 * init_prio_data clears it again for the IDLE class. */
	if (sync) {
		cfqq->idle_window = true;
		cfqq->sync = true;
	}
	cfqq->pid = cic->ioc ? cic->ioc->pid : 0;
	cfq_init_prio_data(cfqq, cic);
	list_add_tail(&cfqq->all_node, &cfqd->all_queues);
	return cfqq;
}

static struct cfq_queue **cfq_async_queue_prio(struct cfq_data *cfqd, int cls, int lvl)
{
	switch (cls) {
	case IOPRIO_CLASS_RT:
		return &cfqd->async_cfqq[0][lvl];
	case IOPRIO_CLASS_IDLE:
		return &cfqd->async_idle_cfqq;
	case IOPRIO_CLASS_NONE:
		lvl = IOPRIO_NORM;
		/* fall through */
	case IOPRIO_CLASS_BE:
	default:
		return &cfqd->async_cfqq[1][lvl];
	}
}

/* cfq_get_queue: the per-process sync queue, or the shared async queue of
 * the process's (class, prio). NULL on allocation failure. */
static struct cfq_queue *cfq_get_queue(struct cfq_data *cfqd, bool sync, struct cfq_io_cq *cic)
{
	struct cfq_queue **slot = NULL, *cfqq = NULL;

	if (!sync) {
		slot = cfq_async_queue_prio(cfqd, cic->ioprio >> 8, cic->ioprio & 0xff);
		cfqq = *slot;
	}
	if (!cfqq)
		cfqq = cfq_alloc_queue(cfqd, sync, cic);
	if (cfqq && slot && !*slot)
		*slot = cfqq;
	return cfqq;
}

static int cfq_ioc_prio(const struct io_context *ioc)
{
	unsigned lvl = ioc->ioprio_level < IOPRIO_BE_NR ? ioc->ioprio_level : IOPRIO_BE_NR - 1;
	unsigned cls = ioc->ioprio_class <= IOPRIO_CLASS_IDLE ? ioc->ioprio_class : IOPRIO_CLASS_NONE;
	return (int)(cls << 8 | lvl);
}

static struct cfq_io_cq *cfq_cic_lookup(struct cfq_data *cfqd, struct io_context *ioc)
{
	if (!ioc)
		return cfqd->kernel_cic;
	struct cfq_io_cq *cic = ioc->elv_data;
	while (cic && cic->cfqd != cfqd)
		cic = cic->ioc_next;
	return cic;
}

static struct cfq_io_cq *cfq_cic_create(struct cfq_data *cfqd, struct io_context *ioc)
{
	struct cfq_io_cq *cic = calloc(1, sizeof(*cic));
	if (!cic)
		return NULL;
	/* its pointer's low bits carry per-request marks (RQ_CIC) */
	SIM_ASSERT(((uintptr_t)cic & CFQ_RQ_MARKS) == 0);
	cic->cfqd = cfqd;
	cic->ioc = ioc;
	cic->ioprio = cfq_ioc_prio(ioc);
	cic->ttime.last_end_request = cfq_jiffies(cfqd);
	list_add_tail(&cic->node, &cfqd->cics);
	if (ioc != &cfqd->kernel_ioc) {
		cic->ioc_next = ioc->elv_data;
		ioc->elv_data = cic;
	}
	return cic;
}

/* The ioc's priority changed since its queues were set up: move its
 * async I/O to the shared queue of the new (class, prio) and re-read the
 * sync queue's priority at its next insert. */
static void cfq_check_ioprio_changed(struct cfq_data *cfqd, struct cfq_io_cq *cic)
{
	int ioprio = cfq_ioc_prio(cic->ioc);

	if (cic->ioprio == ioprio)
		return;
	cic->ioprio = ioprio;
	if (cic->cfqq[0]) {
		struct cfq_queue *nq = cfq_get_queue(cfqd, false, cic);
		if (nq)
			cic->cfqq[0] = nq;
	}
	if (cic->cfqq[1])
		cic->cfqq[1]->prio_changed = true;
}

static void cfq_update_ttime(struct cfq_ttime *tt, int64_t now, int64_t slice_idle)
{
	int64_t elapsed = now - tt->last_end_request;
	if (elapsed > 2 * slice_idle)
		elapsed = 2 * slice_idle;
	if (elapsed < 0)
		elapsed = 0;
	tt->ttime_samples = (7 * tt->ttime_samples + 256) / 8;
	tt->ttime_total = (7 * tt->ttime_total + 256 * (uint64_t)elapsed) / 8;
	tt->ttime_mean = (tt->ttime_total + 128) / tt->ttime_samples;
}

static void cfq_update_io_thinktime(struct cfq_data *cfqd, struct cfq_queue *cfqq,
				    struct cfq_io_cq *cic)
{
	int64_t now = cfq_jiffies(cfqd);
	if (cfqq->sync) {
		cfq_update_ttime(&cic->ttime, now, cfqd->cfq_slice_idle);
		cfq_update_ttime(&cfqq->service_tree->ttime, now, cfqd->cfq_slice_idle);
	}
	cfq_update_ttime(&cfqq->cfqg->ttime, now, cfqd->cfq_group_idle);
}

static void cfq_update_io_seektime(struct cfq_data *cfqd, struct cfq_queue *cfqq,
				   const struct io_request *rq)
{
	uint64_t sdist = 0;
	if (cfqq->last_request_pos) {
		if (cfqq->last_request_pos < rq->sector)
			sdist = rq->sector - cfqq->last_request_pos;
		else
			sdist = cfqq->last_request_pos - rq->sector;
	}
	cfqq->seek_history <<= 1;
	if (cfqd->nonrot)
		cfqq->seek_history |= (rq->nr_sectors < CFQQ_SECT_THR_NONROT);
	else
		cfqq->seek_history |= (sdist > CFQQ_SEEK_THR);
}

/* Idle window off for REQ_NOIDLE, seeky shallow queues, slice_idle 0, or
 * a mean think time above slice_idle. */
static void cfq_update_idle_window(struct cfq_data *cfqd, struct cfq_queue *cfqq,
				   struct cfq_io_cq *cic)
{
	bool enable_idle;

	if (!cfqq->sync || cfq_class_idle(cfqq))
		return;
	enable_idle = cfqq->idle_window;
	if (cfqq->queued[0] + cfqq->queued[1] >= 4)
		cfqq->deep = true;

	if (cfqq->next_rq && (cfqq->next_rq->flags & REQ_NOIDLE))
		enable_idle = false;
	else if (!cfqd->cfq_slice_idle || (!cfqq->deep && cfqq_seeky(cfqq)))
		enable_idle = false;
	else if (sample_valid(cic->ttime.ttime_samples))
		enable_idle = (int64_t)cic->ttime.ttime_mean <= cfqd->cfq_slice_idle;
	cfqq->idle_window = enable_idle;
}

/* Should new_cfqq, which just got rq, take the device from the active
 * queue? (cfq_should_preempt) */
static bool cfq_should_preempt(struct cfq_data *cfqd, struct cfq_queue *new_cfqq,
			       const struct io_request *rq)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	if (!cfqq)
		return false;
	/* fg_aware: BG never preempts an FG queue, FG queues never preempt
	 * each other, and FG takes the device from BG in cfq_select_queue */
	if (cfqq->fg || new_cfqq->on_fg_list)
		return false;
	if (cfqd->kernel_variant == CFQ_KERNEL_2_6_23) {
		/* 2.6.23: slice used, idle class, sync over async, and a
		 * request close to the one it idles for; no class rule */
		if (cfq_slice_used(cfqq))
			return true;
		if (cfq_class_idle(new_cfqq))
			return false;
		if (cfq_class_idle(cfqq))
			return true;
		if (rq_sync(rq) && !cfqq->sync)
			return true;
		if ((rq->flags & REQ_PRIO) && !cfqq->prio_pending)
			return true;
		if (!cfqd->active_cic || !cfqq->wait_request)
			return false;
		return cfq_rq_close(cfqd, rq);
	}
	if (cfq_class_idle(new_cfqq))
		return false;
	if (cfq_class_idle(cfqq))
		return true;
	/* A non-RT request never preempts an RT slice. */
	if (cfq_class_rt(cfqq) && !cfq_class_rt(new_cfqq))
		return false;
	/* Sync beats an async slice. */
	if (rq_sync(rq) && !cfqq->sync)
		return true;
	if (new_cfqq->cfqg != cfqq->cfqg)
		return false;
	if (cfq_slice_used(cfqq))
		return true;
	/* Idling on the sync-noidle tree with one other queue in it. */
	if (cfqd->serving_wl_type == SYNC_NOIDLE_WORKLOAD &&
	    cfqq_type(new_cfqq) == SYNC_NOIDLE_WORKLOAD && new_cfqq->service_tree->count == 2 &&
	    RB_EMPTY_ROOT(&cfqq->sort_list))
		return true;
	/* Metadata (REQ_PRIO) beats regular I/O. */
	if ((rq->flags & REQ_PRIO) && !cfqq->prio_pending)
		return true;
	if (cfq_class_rt(new_cfqq) && !cfq_class_rt(cfqq))
		return true;
	if (RB_EMPTY_ROOT(&cfqq->sort_list) && !cfq_should_idle(cfqd, cfqq))
		return true;
	if (!cfqd->active_cic || !cfqq->wait_request)
		return false;
	/* As good as what we are waiting for: close to the head. */
	return cfq_rq_close(cfqd, rq);
}

static void cfq_preempt_queue(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	enum cfq_wl_type old_type = cfqq_type(cfqd->active_queue);

	cfqd->st.preemptions++;
	cfq_slice_expired(cfqd, true);
	/* Workload type changes: drop the saved slice or the preemption
	 * would not take effect. */
	if (old_type != cfqq_type(cfqq))
		cfqq->cfqg->saved_wl_slice = 0;
	SIM_ASSERT(cfqq->on_rr);
	cfq_service_tree_add(cfqd, cfqq, true);
	cfqq->slice_end = 0;
	cfqq->slice_new = true;
}

static void cfq_rq_enqueued(struct cfq_data *cfqd, struct cfq_queue *cfqq, struct io_request *rq)
{
	struct cfq_io_cq *cic = RQ_CIC(rq);

	cfqd->rq_queued++;
	if (rq->flags & REQ_PRIO)
		cfqq->prio_pending++;

	cfq_update_io_thinktime(cfqd, cfqq, cic);
	cfq_update_io_seektime(cfqd, cfqq, rq);
	cfq_update_idle_window(cfqd, cfqq, cic);
	cfqq->last_request_pos = rq_end_sector(rq);

	if (cfqq == cfqd->active_queue) {
		/* The request we idled for. Dispatch now if it is bigger than
		 * a page or others wait; otherwise hold it a little so that
		 * plugging and merging can grow it. */
		if (cfqq->wait_request) {
			if (rq_bytes(rq) > CFQ_PAGE_SIZE || cfqd->busy_queues > 1) {
				cfq_del_timer(cfqd);
				cfqq->wait_request = false;
				cfq_schedule_dispatch(cfqd);
			} else {
				cfq_idle_end(cfqd);
				cfqq->must_dispatch = true;
			}
		}
	} else if (cfq_should_preempt(cfqd, cfqq, rq)) {
		cfq_preempt_queue(cfqd, cfqq);
		cfq_schedule_dispatch(cfqd);
	}
}

/* hw_tag: did the driver ever hold >= CFQ_HW_QUEUE_MIN requests over 50
 * samples taken under enough load? */
static void cfq_update_hw_tag(struct cfq_data *cfqd)
{
	struct cfq_queue *cfqq = cfqd->active_queue;

	if (cfqd->rq_in_driver > cfqd->hw_tag_est_depth)
		cfqd->hw_tag_est_depth = cfqd->rq_in_driver;
	if (cfqd->hw_tag == 1)
		return;
	if (cfqd->rq_queued <= CFQ_HW_QUEUE_MIN && cfqd->rq_in_driver <= CFQ_HW_QUEUE_MIN)
		return;
	/* An idling queue may not give the driver enough to detect depth. */
	if (cfqq && cfqq->idle_window &&
	    cfqq->dispatched + cfqq->queued[0] + cfqq->queued[1] < CFQ_HW_QUEUE_MIN &&
	    cfqd->rq_in_driver < CFQ_HW_QUEUE_MIN)
		return;
	if (cfqd->hw_tag_samples++ < CFQ_HW_TAG_SAMPLES)
		return;
	cfqd->hw_tag = cfqd->hw_tag_est_depth >= CFQ_HW_QUEUE_MIN ? 1 : 0;
}

/* Extend the slice by slice_idle when the lone queue of its group will
 * likely issue again before the group loses its turn. */
static bool cfq_should_wait_busy(struct cfq_data *cfqd, struct cfq_queue *cfqq)
{
	struct cfq_io_cq *cic = cfqd->active_cic;
	int64_t now = cfq_jiffies(cfqd);

	if (!RB_EMPTY_ROOT(&cfqq->sort_list))
		return false;
	if (cfqq->cfqg->nr_cfqq > 1)
		return false;
	if (cfq_io_thinktime_big(cfqd, &cfqq->cfqg->ttime, true))
		return false;
	if (cfq_slice_used(cfqq))
		return true;
	if (cic && sample_valid(cic->ttime.ttime_samples) &&
	    cfqq->slice_end - now < (int64_t)cic->ttime.ttime_mean)
		return true;
	/* think time below a jiffy: one jiffy left is as good as none */
	if (cfqq->slice_end - now == 1)
		return true;
	return false;
}

/* ================================================================ hooks */

static void cfq_idle_timer_fire(struct sim *sim, struct sim_event *ev)
{
	struct cfq_data *cfqd = container_of(ev, struct cfq_data, idle_timer);
	struct cfq_queue *cfqq = cfqd->active_queue;
	bool timed_out = true;

	(void)sim;
	cfqd->st.idle_timer_fired++;
	cfq_idle_end(cfqd);
	if (cfqq) {
		timed_out = false;
		/* A request came in before the timer: let it through. */
		if (cfqq->must_dispatch)
			goto out_kick;
		if (cfq_slice_used(cfqq))
			goto expire;
		/* Only expire if others have work. */
		if (!cfqd->busy_queues)
			return;
		if (!RB_EMPTY_ROOT(&cfqq->sort_list))
			goto out_kick;
		/* The idle did not pay off: forget the depth. */
		cfqq->deep = false;
	}
expire:
	cfq_slice_expired(cfqd, timed_out);
out_kick:
	if (cfqd->busy_queues)
		blk_run_queue(cfqd->e->q);
}

static void cfq_kick_fire(struct sim *sim, struct sim_event *ev)
{
	struct cfq_data *cfqd = container_of(ev, struct cfq_data, kick);
	(void)sim;
	blk_run_queue(cfqd->e->q);
}

static void cfq_defaults_to_jiffies(struct cfq_data *cfqd)
{
	int64_t hz = cfqd->hz;
#define CFQ_J(field, def_ms, formula)                                                          \
	((field) == (int64_t)(def_ms) * 1000000 ? (int64_t)(formula)                             \
						: cfq_ns_to_jiffies((field), hz))
	cfqd->cfq_quantum = (unsigned)cfqd->quantum;
	cfqd->cfq_fifo_expire[1] = CFQ_J(cfqd->fifo_expire_sync_ns, 125, hz / 8);
	cfqd->cfq_fifo_expire[0] = CFQ_J(cfqd->fifo_expire_async_ns, 250, hz / 4);
	cfqd->cfq_back_max = cfqd->back_seek_max_bytes / 1024;
	cfqd->cfq_back_penalty = (unsigned)cfqd->back_seek_penalty;
	cfqd->cfq_slice[1] = CFQ_J(cfqd->slice_sync_ns, 100, hz / 10);
	cfqd->cfq_slice[0] = CFQ_J(cfqd->slice_async_ns, 40, hz / 25);
	cfqd->cfq_slice_async_rq = (unsigned)cfqd->slice_async_rq;
	cfqd->cfq_slice_idle = CFQ_J(cfqd->slice_idle_ns, 8, hz / 125);
	cfqd->cfq_group_idle = CFQ_J(cfqd->group_idle_ns, 8, hz / 125);
	cfqd->cfq_latency = cfqd->low_latency;
	if (cfqd->kernel_variant == CFQ_KERNEL_2_6_23) {
		/* neither low_latency (2.6.32) nor group idling (2.6.33) exists */
		cfqd->cfq_latency = false;
		cfqd->group_idle_ns = 0;
		cfqd->cfq_group_idle = 0;
	}
	cfqd->cfq_target_latency = CFQ_J(cfqd->target_latency_ns, 300, hz * 3 / 10);
#undef CFQ_J
	/* cfq_init(): "could be 0 on HZ < 1000 setups" - the defaults are
	 * forced to one jiffy; a value the user wrote as 0 stays 0. */
	if (!cfqd->cfq_slice[0] && cfqd->slice_async_ns)
		cfqd->cfq_slice[0] = 1;
	if (!cfqd->cfq_slice_idle && cfqd->slice_idle_ns)
		cfqd->cfq_slice_idle = 1;
	if (!cfqd->cfq_group_idle && cfqd->group_idle_ns)
		cfqd->cfq_group_idle = 1;
	if (cfqd->cfq_slice[1] < 1)
		cfqd->cfq_slice[1] = 1;
	if (cfqd->cfq_target_latency < 1)
		cfqd->cfq_target_latency = 1;
	/* >= 4.x cfq_registered_queue(): non-rotational queues get
	 * slice_idle = 0 (no idling; iops mode when hw_tag). */
	if (cfqd->kernel_variant == CFQ_KERNEL_4_4 && cfqd->nonrot)
		cfqd->cfq_slice_idle = 0;
}

static int cfq_init(struct elevator *e, struct sim_error *err)
{
	struct cfq_data *cfqd = e->priv;

	cfqd->e = e;
	cfqd->sim = blk_queue_sim(e->q);
	if (!cfqd->sim)
		return sim_errorf(err, SIM_E_RUNTIME, "cfq: queue has no simulator");
	/* max_async_dispatch and throttle_async are sysfs files of Samsung's
	 * kernel only; a mainline variant has nothing that reads them. */
	if (cfqd->kernel_variant != CFQ_KERNEL_SAMSUNG_7420 &&
	    (cfqd->max_async_dispatch != CFQ_SAMSUNG_MAX_ASYNC_DISPATCH ||
	     cfqd->throttle_async != CFQ_SAMSUNG_THROTTLE_ASYNC))
		return sim_errorf(err, SIM_E_INPUT,
				  "cfq: max_async_dispatch and throttle_async exist only in "
				  "kernel_variant samsung-exynos7420 (kernel_variant is %s)",
				  cfq_variant_names[cfqd->kernel_variant]);
	cfq_defaults_to_jiffies(cfqd);

	for (int i = 0; i < 2; i++)
		for (int j = 0; j < CFQ_WL_TYPES; j++) {
			cfqd->root_group.service_trees[i][j].rb = RB_ROOT_CACHED;
			cfqd->root_group.service_trees[i][j].ttime.last_end_request = cfq_jiffies(cfqd);
		}
	cfqd->root_group.service_tree_idle.rb = RB_ROOT_CACHED;
	cfqd->root_group.service_tree_idle.ttime.last_end_request = cfq_jiffies(cfqd);
	cfqd->root_group.ttime.last_end_request = cfq_jiffies(cfqd);
	cfqd->root_group.vfraction = 1u << CFQ_SERVICE_SHIFT;
	for (int i = 0; i < IOPRIO_BE_NR; i++)
		cfqd->prio_trees[i] = RB_ROOT;
	list_init(&cfqd->all_queues);
	list_init(&cfqd->cics);
	list_init(&cfqd->fg_list);
	sim_event_init(&cfqd->idle_timer, cfq_idle_timer_fire);
	sim_event_init(&cfqd->kick, cfq_kick_fire);
	cfqd->hw_tag = -1;
	/* "assume sync ops weren't delayed in last second" */
	cfqd->last_delayed_sync = cfq_jiffies(cfqd) - cfqd->hz;

	cfqd->kernel_ioc.pid = 0;
	cfqd->kernel_ioc.comm = "kernel";
	cfqd->kernel_ioc.ioprio_class = IOPRIO_CLASS_NONE;
	cfqd->kernel_cic = cfq_cic_create(cfqd, &cfqd->kernel_ioc);
	if (!cfqd->kernel_cic)
		return sim_errorf(err, SIM_E_NOMEM, "cfq: out of memory");
	return 0;
}

/* Frees every queue and per-process record. The io_contexts themselves
 * belong to the task model and are not touched: their elv_data is stale
 * once the elevator is gone. */
static void cfq_exit(struct elevator *e)
{
	struct cfq_data *cfqd = e->priv;
	struct list_head *pos, *tmp;

	if (!cfqd || !cfqd->sim)
		return;
	sim_cancel(cfqd->sim, &cfqd->idle_timer);
	sim_cancel(cfqd->sim, &cfqd->kick);
	list_for_each_safe(pos, tmp, &cfqd->all_queues) {
		struct cfq_queue *cfqq = list_entry(pos, struct cfq_queue, all_node);
		list_del_init(pos);
		free(cfqq);
	}
	list_for_each_safe(pos, tmp, &cfqd->cics) {
		struct cfq_io_cq *cic = list_entry(pos, struct cfq_io_cq, node);
		list_del_init(pos);
		free(cic);
	}
	cfqd->active_queue = NULL;
}

static bool cfq_bio_sync(const struct bio *bio) { return req_is_sync(bio->flags); }

static enum elv_merge cfq_merge(struct elevator *e, struct bio *bio, struct io_request **out)
{
	struct cfq_data *cfqd = e->priv;
	struct cfq_io_cq *cic = cfq_cic_lookup(cfqd, bio->ioc);
	struct cfq_queue *cfqq;
	struct io_request *rq;

	if (!cic)
		return ELV_NO_MERGE;
	cfqq = cic->cfqq[cfq_bio_sync(bio)];
	if (!cfqq)
		return ELV_NO_MERGE;
	/* front merge: a request that starts where the bio ends */
	rq = elv_rb_find(&cfqq->sort_list, bio->sector + bio->nr_sectors);
	if (!rq || req_is_write(rq->flags) != req_is_write(bio->flags))
		return ELV_NO_MERGE;
	if (cfq_bio_sync(bio) && !rq_sync(rq))
		return ELV_NO_MERGE;
	if (!cfq_fg_merge_ok(cfqd, rq, bio))
		return ELV_NO_MERGE;
	*out = rq;
	return ELV_FRONT_MERGE;
}

static bool cfq_allow_merge(struct elevator *e, struct io_request *rq, struct bio *bio)
{
	struct cfq_data *cfqd = e->priv;
	struct cfq_io_cq *cic;

	/* never a sync bio into an async request */
	if (cfq_bio_sync(bio) && !rq_sync(rq))
		return false;
	cic = cfq_cic_lookup(cfqd, bio->ioc);
	if (!cic)
		return false;
	if (cic->cfqq[cfq_bio_sync(bio)] != RQ_CFQQ(rq))
		return false;
	return cfq_fg_merge_ok(cfqd, rq, bio);
}

static void cfq_merged(struct elevator *e, struct io_request *rq, enum elv_merge type)
{
	struct cfq_data *cfqd = e->priv;
	if (type == ELV_FRONT_MERGE && RQ_CFQQ(rq) && !RB_EMPTY_NODE(&rq->rb_node)) {
		cfqd->st.front_merges++;
		cfq_reposition_rq_rb(RQ_CFQQ(rq), rq);
	}
	/* an FG bio brought REQ_FG along (blk_merge.c BLK_MERGE_INHERIT) */
	if (RQ_CFQQ(rq))
		cfq_fg_lift(cfqd, rq, false);
}

static void cfq_merged_requests(struct elevator *e, struct io_request *rq, struct io_request *next)
{
	struct cfq_data *cfqd = e->priv;
	struct cfq_queue *cfqq = RQ_CFQQ(rq), *nq = RQ_CFQQ(next);
	bool boosted;

	cfqd->st.merged_requests++;
	/* next was older: rq takes its place and deadline in the fifo */
	if (!list_empty(&rq->queuelist) && !list_empty(&next->queuelist) &&
	    next->fifo_time < rq->fifo_time && cfqq == nq) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	if (cfqq->next_rq == next)
		cfqq->next_rq = rq;
	if (cfqd->fg_aware) {
		/* merges never push FG data back: rq keeps next's boost and
		 * becomes FG-high before next leaves (so a queue that keeps
		 * FG work keeps its place on the FG list) */
		if (next->flags & REQ_BOOSTED) {
			if (!(rq->flags & REQ_PRIO))
				cfqq->prio_pending++;
			rq->flags |= REQ_PRIO | REQ_BOOSTED;
		}
		cfq_fg_lift(cfqd, rq, cfq_rq_mark(next, CFQ_RQ_FG_COUNTED));
	}
	boosted = cfqd->boost_rq == next;
	cfq_remove_request(next);
	if (boosted) {
		/* the boost follows the data into the surviving request */
		if (!(rq->flags & REQ_PRIO))
			cfqq->prio_pending++;
		rq->flags |= REQ_PRIO | REQ_BOOSTED;
		cfqd->boost_rq = rq;
	}

	/* all of nq's requests merged away: off the service tree, unless it
	 * is the active queue (dispatch decides to expire or idle) */
	if (nq->on_rr && RB_EMPTY_ROOT(&nq->sort_list) && nq != cfqd->active_queue)
		cfq_del_cfqq_rr(cfqd, nq);
}

static struct io_request *cfq_former_request(struct elevator *e, struct io_request *rq)
{
	(void)e;
	if (RB_EMPTY_NODE(&rq->rb_node))
		return NULL;
	return elv_rb_former_request(rq);
}

static struct io_request *cfq_latter_request(struct elevator *e, struct io_request *rq)
{
	(void)e;
	if (RB_EMPTY_NODE(&rq->rb_node))
		return NULL;
	return elv_rb_latter_request(rq);
}

static int cfq_set_request(struct elevator *e, struct io_request *rq, struct bio *bio)
{
	struct cfq_data *cfqd = e->priv;
	struct io_context *ioc = bio ? bio->ioc : rq->ioc;
	struct cfq_io_cq *cic = cfq_cic_lookup(cfqd, ioc);
	bool sync = rq_sync(rq);
	struct cfq_queue *cfqq;

	if (!cic) {
		cic = cfq_cic_create(cfqd, ioc);
		if (!cic)
			return SIM_E_NOMEM;
	}
	cfq_check_ioprio_changed(cfqd, cic);
	cfqq = cic->cfqq[sync];
	if (!cfqq) {
		cfqq = cfq_get_queue(cfqd, sync, cic);
		if (!cfqq)
			return SIM_E_NOMEM;
		cic->cfqq[sync] = cfqq;
	}
	cfqq->allocated[rq_write(rq)]++;
	rq->elv_priv[0] = cfqq;
	rq->elv_priv[1] = cic;
	rb_clear_node(&rq->rb_node);
	return 0;
}

static struct io_request *cfq_find_queued(struct cfq_data *cfqd, uint64_t sector);

static void cfq_put_request(struct elevator *e, struct io_request *rq)
{
	struct cfq_data *cfqd = e->priv;
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	/* Never added: it merged into a queued request when its plug was
	 * flushed (elv_attempt_insert_merge), which the core does not
	 * report. FG data went there: lift the request that now covers it. */
	if (cfqq && cfqd->fg_aware && !cfq_rq_mark(rq, CFQ_RQ_ADDED) &&
	    (cfq_rq_fg_high(rq) || (rq_sync(rq) && rq->ioc && rq->ioc->fg))) {
		struct io_request *into = cfq_find_queued(cfqd, rq->sector);
		if (into)
			cfq_fg_lift(cfqd, into, true);
	}
	if (cfqq) {
		SIM_ASSERT(!cfq_rq_mark(rq, CFQ_RQ_FG_COUNTED));
		SIM_ASSERT(cfqq->allocated[rq_write(rq)]);
		cfqq->allocated[rq_write(rq)]--;
		rq->elv_priv[0] = NULL;
		rq->elv_priv[1] = NULL;
	}
}

/* cfq_may_queue: true = ELV_MQUEUE_MUST. A queue idling for its next
 * request may allocate past nr_requests, once per slice. */
static bool cfq_may_queue(struct elevator *e, struct io_context *ioc, uint32_t flags)
{
	struct cfq_data *cfqd = e->priv;
	struct cfq_io_cq *cic = cfq_cic_lookup(cfqd, ioc);
	struct cfq_queue *cfqq;

	if (!cic)
		return false;
	cfqq = cic->cfqq[req_is_sync(flags)];
	if (!cfqq)
		return false;
	cfq_init_prio_data(cfqq, cic);
	if (cfqq->wait_request && !cfqq->must_alloc_slice) {
		cfqq->must_alloc_slice = true;
		return true;
	}
	return false;
}

static void cfq_insert_request(struct elevator *e, struct io_request *rq)
{
	struct cfq_data *cfqd = e->priv;
	struct cfq_queue *cfqq;
	bool sync = rq_sync(rq);

	if (!RQ_CFQQ(rq) && cfq_set_request(e, rq, rq->bio) != 0) {
		sim_fail(cfqd->sim, SIM_E_NOMEM, "cfq: out of memory");
		return;
	}
	cfqq = RQ_CFQQ(rq);
	cfq_rq_set_mark(rq, CFQ_RQ_ADDED, true);
	/* sync I/O of a task that is foreground now is FG down to the request */
	if (cfqd->fg_aware && rq->ioc && rq->ioc->fg)
		rq->flags |= REQ_FG;
	cfq_init_prio_data(cfqq, RQ_CIC(rq));
	rq->fifo_time = cfq_jiffy_ns(cfqd, cfq_jiffies(cfqd) + cfqd->cfq_fifo_expire[sync]);
	list_add_tail(&rq->queuelist, &cfqq->fifo);
	cfq_add_rq_rb(rq);
	cfq_fg_account(cfqd, rq);
	cfq_rq_enqueued(cfqd, cfqq, rq);
}

static int cfq_dispatch_requests(struct elevator *e, bool force)
{
	struct cfq_data *cfqd = e->priv;
	struct cfq_queue *cfqq;

	if (!cfqd->busy_queues)
		return 0;
	if (force)
		return cfq_forced_dispatch(cfqd);

	cfqq = cfq_select_queue(cfqd);
	if (!cfqq)
		return 0;
	if (!cfq_dispatch_request(cfqd, cfqq))
		return 0;
	cfqq->slice_dispatch++;
	cfqq->must_dispatch = false;

	/* Async queues end after their request budget; IDLE after one. */
	if (cfqd->busy_queues > 1 &&
	    ((!cfqq->sync && cfqq->slice_dispatch >= cfq_prio_to_maxrq(cfqd, cfqq)) ||
	     cfq_class_idle(cfqq))) {
		cfqq->slice_end = cfq_jiffies(cfqd) + 1;
		cfq_slice_expired(cfqd, false);
	}
	return 1;
}

static void cfq_activate_request(struct elevator *e, struct io_request *rq)
{
	struct cfq_data *cfqd = e->priv;
	if (!RQ_CFQQ(rq))
		return;
	cfqd->rq_in_driver++;
	cfqd->last_position = rq_end_sector(rq);
}

static void cfq_completed_request(struct elevator *e, struct io_request *rq)
{
	struct cfq_data *cfqd = e->priv;
	struct cfq_queue *cfqq = RQ_CFQQ(rq);
	bool sync = rq_sync(rq);
	int64_t now;

	if (!cfqq)
		return;
	now = cfq_jiffies(cfqd);
	cfq_update_hw_tag(cfqd);

	SIM_ASSERT(cfqd->rq_in_driver > 0 && cfqq->dispatched > 0);
	cfqd->rq_in_driver--;
	cfqq->dispatched--;
	cfqq->cfqg->dispatched--;
	cfqd->rq_in_flight[cfqq->sync]--;

	if (sync) {
		struct cfq_rb_root *st;
		RQ_CIC(rq)->ttime.last_end_request = now;
		if (cfqq->on_rr)
			st = cfqq->service_tree;
		else
			st = st_for(cfqq->cfqg, cfqq_class(cfqq), cfqq_type(cfqq));
		st->ttime.last_end_request = now;
		/* a sync request that waited fifo_expire_sync or more */
		int64_t start_j = CFQ_JIFFIES_BASE +
				  (int64_t)(((__int128)rq->t_getrq * cfqd->hz) / CFQ_NSEC_PER_SEC);
		if (!time_after_j(start_j + cfqd->cfq_fifo_expire[1], now))
			cfqd->last_delayed_sync = now;
	}
	cfqq->cfqg->ttime.last_end_request = now;

	if (cfqd->active_queue == cfqq) {
		bool empty = RB_EMPTY_ROOT(&cfqq->sort_list);

		/* the slice starts at its first completion */
		if (cfqq->slice_new) {
			cfq_set_prio_slice(cfqd, cfqq);
			cfqq->slice_new = false;
		}
		if (cfq_should_wait_busy(cfqd, cfqq)) {
			int64_t extend = cfqd->cfq_slice_idle ? cfqd->cfq_slice_idle
							      : cfqd->cfq_group_idle;
			cfqq->slice_end = now + extend;
			cfqq->wait_busy = true;
			cfqd->st.wait_busy++;
		}
		/* No idling for used-up slices, the IDLE class, async queues,
		 * queues with work left, or when a close cooperator exists. */
		if (cfq_slice_used(cfqq) || cfq_class_idle(cfqq))
			cfq_slice_expired(cfqd, true);
		else if (sync && empty && cfqq->fg) {
			/* FG: idle only while no other FG queue waits */
			if (cfqd->fg_idle != CFQ_FG_IDLE_NEVER && !cfq_fg_pending(cfqd))
				cfq_arm_slice_timer(cfqd);
		} else if (sync && empty && !cfq_close_cooperator(cfqd, cfqq))
			cfq_arm_slice_timer(cfqd);
	}
	/* Mainline kicks the queue here when the driver is empty
	 * (cfq_schedule_dispatch); the block core runs the queue after
	 * every completion, which is the same at the same instant. */
}

static bool cfq_queue_empty(struct elevator *e)
{
	const struct cfq_data *cfqd = e->priv;
	return cfqd->rq_queued == 0;
}

/* Mark rq boosted and make it the next request CFQ dispatches. */
static void cfq_boost_rq(struct cfq_data *cfqd, struct io_request *rq)
{
	struct cfq_queue *cfqq = RQ_CFQQ(rq);

	if (!(rq->flags & REQ_PRIO))
		cfqq->prio_pending++;
	rq->flags |= REQ_PRIO | REQ_BOOSTED;
	cfqq->next_rq = rq;
	cfq_prio_tree_add(cfqd, cfqq);
	cfqd->boost_rq = rq;
	/* fg_aware: boosted is FG-high; it stays so if a later boost takes
	 * the "next" slot */
	cfq_fg_account(cfqd, rq);
	if (cfqd->active_queue && cfqd->active_queue->wait_request) {
		cfq_del_timer(cfqd);
		cfqd->active_queue->wait_request = false;
	}
	cfq_schedule_dispatch(cfqd);
}

/* The queued request covering sector, looked for in the async queues
 * first (shared, where buffered writeback lands), then in every busy
 * queue: O(queues x log n). NULL if none. */
static struct io_request *cfq_find_queued(struct cfq_data *cfqd, uint64_t sector)
{
	struct io_request *rq = NULL;
	struct cfq_group *cfqg = &cfqd->root_group;

	for (int c = 0; c < 2 && !rq; c++)
		for (int p = 0; p < IOPRIO_BE_NR && !rq; p++)
			if (cfqd->async_cfqq[c][p])
				rq = elv_rb_cover(&cfqd->async_cfqq[c][p]->sort_list, sector);
	if (!rq && cfqd->async_idle_cfqq)
		rq = elv_rb_cover(&cfqd->async_idle_cfqq->sort_list, sector);
	/* then every busy queue: they are all on service trees */
	for (int i = 0; i <= IDLE_WORKLOAD && !rq; i++)
		for (int j = 0; j < CFQ_WL_TYPES && !rq; j++) {
			struct cfq_rb_root *st = i == IDLE_WORKLOAD ? (j ? NULL : &cfqg->service_tree_idle)
								    : &cfqg->service_trees[i][j];
			if (!st)
				continue;
			for (struct rb_node *n = rb_first_cached(&st->rb); n && !rq; n = rb_next(n)) {
				struct cfq_queue *q = rb_entry(n, struct cfq_queue, rb_node);
				rq = elv_rb_cover(&q->sort_list, sector);
			}
		}
	return rq;
}

static bool cfq_boost_lba(struct elevator *e, uint64_t sector)
{
	struct cfq_data *cfqd = e->priv;
	struct io_request *rq = cfq_find_queued(cfqd, sector);

	if (!rq) {
		cfqd->st.boost_misses++;
		return false;
	}
	cfqd->st.boost_hits++;
	cfq_boost_rq(cfqd, rq);
	return true;
}

static void cfq_stats_json(const struct elevator *e, struct json_t *obj)
{
	const struct cfq_data *cfqd = e->priv;
	const struct cfq_stats *s = &cfqd->st;
	json_t *disp = json_object();

	json_object_set_new(obj, "hz", json_integer(cfqd->hz));
	json_object_set_new(obj, "slice_idle_jiffies", json_integer(cfqd->cfq_slice_idle));
	json_object_set_new(obj, "slices", json_integer((json_int_t)s->slices));
	json_object_set_new(obj, "slices_timed_out", json_integer((json_int_t)s->slices_expired_timed_out));
	json_object_set_new(obj, "idle_waits", json_integer((json_int_t)s->idle_waits));
	json_object_set_new(obj, "idle_wait_ns", json_integer(s->idle_wait_ns));
	json_object_set_new(obj, "idle_timer_fired", json_integer((json_int_t)s->idle_timer_fired));
	json_object_set_new(obj, "preemptions", json_integer((json_int_t)s->preemptions));
	json_object_set_new(obj, "fifo_expired", json_integer((json_int_t)s->fifo_expired));
	json_object_set_new(obj, "wait_busy", json_integer((json_int_t)s->wait_busy));
	json_object_set_new(obj, "close_cooperators", json_integer((json_int_t)s->close_cooperators));
	json_object_set_new(obj, "forced_dispatches", json_integer((json_int_t)s->forced_dispatches));
	json_object_set_new(obj, "front_merges", json_integer((json_int_t)s->front_merges));
	json_object_set_new(obj, "merged_requests", json_integer((json_int_t)s->merged_requests));
	json_object_set_new(obj, "boost_hits", json_integer((json_int_t)s->boost_hits));
	json_object_set_new(obj, "boost_misses", json_integer((json_int_t)s->boost_misses));
	json_object_set_new(obj, "boost_preempts", json_integer((json_int_t)s->boost_preempts));
	json_object_set_new(obj, "hw_tag", json_integer(cfqd->hw_tag));
	if (cfqd->kernel_variant == CFQ_KERNEL_SAMSUNG_7420) {
		json_object_set_new(obj, "async_cap_waits", json_integer((json_int_t)s->async_cap_waits));
		json_object_set_new(obj, "async_sync_waits", json_integer((json_int_t)s->async_sync_waits));
	}
	for (int c = 0; c < CFQ_PRIO_NR; c++)
		for (int t = 0; t < CFQ_WL_TYPES; t++) {
			char key[32];
			if (c == IDLE_WORKLOAD && t == SYNC_WORKLOAD)
				continue;
			snprintf(key, sizeof(key), "%s_%s", cfq_class_names[c], cfq_type_names[t]);
			json_object_set_new(disp, key, json_integer((json_int_t)s->dispatched[c][t]));
		}
	json_object_set_new(obj, "dispatched", disp);
	if (cfqd->fg_aware) {
		json_t *fg = json_object();
		json_object_set_new(fg, "dispatched", json_integer((json_int_t)s->fg_dispatched));
		json_object_set_new(fg, "turns", json_integer((json_int_t)s->fg_turns));
		json_object_set_new(fg, "preemptions", json_integer((json_int_t)s->fg_preemptions));
		json_object_set_new(fg, "bg_delayed", json_integer((json_int_t)s->fg_bg_delayed));
		json_object_set_new(fg, "merges_refused", json_integer((json_int_t)s->fg_merges_refused));
		json_object_set_new(fg, "lifted", json_integer((json_int_t)s->fg_lifted));
		json_object_set_new(obj, "fg", fg);
	}
}

/* ============================================================ public */

bool cfq_is(const struct elevator *e)
{
	return e && e->ops == &cfq_elevator_ops;
}

int cfq_set_fg_aware(struct elevator *e, bool on)
{
	struct cfq_data *cfqd;

	if (!cfq_is(e))
		return SIM_E_INPUT;
	cfqd = e->priv;
	cfqd->fg_aware = on;
	return 0;
}

int cfq_set_fg_idle(struct elevator *e, enum cfq_fg_idle idle)
{
	struct cfq_data *cfqd;

	if (!cfq_is(e) || (idle != CFQ_FG_IDLE_CFQ && idle != CFQ_FG_IDLE_ALWAYS &&
			   idle != CFQ_FG_IDLE_NEVER))
		return SIM_E_INPUT;
	cfqd = e->priv;
	cfqd->fg_idle = (int)idle;
	return 0;
}

/* ========================================================= parameters */

#define CFQ_SRC "block/cfq-iosched.c (Linux 3.10)"

static const struct cfg_param cfq_params[] = {
	{ .key = "quantum", .type = CFG_T_INT, .offset = offsetof(struct cfq_data, quantum),
	  .unit = "", .def = "8", .min = 1, .max = 1024, .source = CFQ_SRC " cfq_quantum",
	  .help = "max requests per queue per round (a queue normally stops at quantum/2)" },
	{ .key = "fifo_expire_sync_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct cfq_data, fifo_expire_sync_ns), .unit = "ms", .def = "125",
	  .min = 0.001, .max = 1e6, .source = CFQ_SRC " cfq_fifo_expire[1] = HZ/8",
	  .help = "sync request deadline; the default is HZ/8 jiffies" },
	{ .key = "fifo_expire_async_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct cfq_data, fifo_expire_async_ns), .unit = "ms", .def = "250",
	  .min = 0.001, .max = 1e6, .source = CFQ_SRC " cfq_fifo_expire[0] = HZ/4",
	  .help = "async request deadline; the default is HZ/4 jiffies" },
	{ .key = "back_seek_max_kib", .type = CFG_T_SIZE,
	  .offset = offsetof(struct cfq_data, back_seek_max_bytes), .unit = "KiB", .def = "16384",
	  .min = 0, .max = 1e9, .source = CFQ_SRC " cfq_back_max = 16*1024",
	  .help = "longest backward seek the elevator takes" },
	{ .key = "back_seek_penalty", .type = CFG_T_INT,
	  .offset = offsetof(struct cfq_data, back_seek_penalty), .unit = "", .def = "2", .min = 1,
	  .max = 1000, .source = CFQ_SRC " cfq_back_penalty",
	  .help = "cost factor of a backward seek against a forward one" },
	{ .key = "slice_sync_ms", .type = CFG_T_TIME, .offset = offsetof(struct cfq_data, slice_sync_ns),
	  .unit = "ms", .def = "100", .min = 0.001, .max = 1e6,
	  .source = CFQ_SRC " cfq_slice_sync = HZ/10",
	  .help = "base sync slice (prio 4); prio p gets base + base/5*(4-p)" },
	{ .key = "slice_async_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct cfq_data, slice_async_ns), .unit = "ms", .def = "40", .min = 0.001,
	  .max = 1e6, .source = CFQ_SRC " cfq_slice_async = HZ/25",
	  .help = "base async slice; also scales the async workload slice" },
	{ .key = "slice_async_rq", .type = CFG_T_INT,
	  .offset = offsetof(struct cfq_data, slice_async_rq), .unit = "", .def = "2", .min = 1,
	  .max = 1024, .source = CFQ_SRC " cfq_slice_async_rq",
	  .help = "async requests per slice: 2*rq*(8-prio)" },
	{ .key = "slice_idle_ms", .type = CFG_T_TIME, .offset = offsetof(struct cfq_data, slice_idle_ns),
	  .unit = "ms", .def = "8", .min = 0, .max = 1e6,
	  .source = CFQ_SRC " cfq_slice_idle = HZ/125, at least 1 jiffy (cfq_init)",
	  .help = "how long to wait for a sync queue's next request; 0 disables idling" },
	{ .key = "group_idle_ms", .type = CFG_T_TIME, .offset = offsetof(struct cfq_data, group_idle_ns),
	  .unit = "ms", .def = "8", .min = 0, .max = 1e6,
	  .source = CFQ_SRC " cfq_group_idle = HZ/125 (CONFIG_CFQ_GROUP_IOSCHED; else 0)",
	  .help = "idle on the (root) group when queue idling is off" },
	{ .key = "low_latency", .type = CFG_T_BOOL, .offset = offsetof(struct cfq_data, low_latency),
	  .unit = "", .def = "true", .min = 1, .max = 0, .source = CFQ_SRC " cfq_init_queue: cfq_latency = 1",
	  .help = "scale slices to target_latency and ramp async depth" },
	{ .key = "target_latency_ms", .type = CFG_T_TIME,
	  .offset = offsetof(struct cfq_data, target_latency_ns), .unit = "ms", .def = "300",
	  .min = 0.001, .max = 1e6, .source = CFQ_SRC " cfq_target_latency = HZ*3/10",
	  .help = "round length that low_latency fits all queues of a class into" },
	{ .key = "hz", .type = CFG_T_INT, .offset = offsetof(struct cfq_data, hz), .unit = "",
	  .def = "1000", .min = 10, .max = 10000,
	  .source = "CONFIG_HZ (Android ARM kernels often 100, some 300)",
	  .help = "jiffies per second: every CFQ time is a whole number of jiffies" },
	{ .key = "kernel_variant", .type = CFG_T_ENUM, .offset = offsetof(struct cfq_data, kernel_variant),
	  .unit = "", .def = "3.10", .min = 1, .max = 0, .choices = cfq_variant_names,
	  .source = "torvalds/linux block/cfq-iosched.c ~4.3 cfq_registered_queue; "
		    "jcadduono/android_kernel_samsung_universal7420 4a185d09 block/cfq-iosched.c",
	  .help = "4.4: slice_idle forced to 0 on non-rotational queues; samsung-exynos7420: 3.10 "
		  "with Samsung's cfq_may_dispatch (max_async_dispatch, throttle_async); 2.6.23: "
		  "its dispatch limits and preemption rules, no low_latency or group idle" },
	{ .key = "max_async_dispatch", .type = CFG_T_INT,
	  .offset = offsetof(struct cfq_data, max_async_dispatch), .unit = "", .def = "4", .min = 1,
	  .max = 1024,
	  .source = "universal7420 block/cfq-iosched.c cfq_max_async_dispatch = 4 (sysfs "
		    "iosched/max_async_dispatch)",
	  .help = "samsung-exynos7420 only: async requests in flight at most" },
	{ .key = "throttle_async", .type = CFG_T_INT, .offset = offsetof(struct cfq_data, throttle_async),
	  .unit = "", .def = "1", .min = 0, .max = 1,
	  .source = "universal7420 block/cfq-iosched.c cfq_throttle_async = 1 (sysfs "
		    "iosched/throttle_async)",
	  .help = "samsung-exynos7420 only: 1 = async waits behind in-flight sync when hw_tag is 0" },
	{ .key = "nonrot", .type = CFG_T_BOOL, .offset = offsetof(struct cfq_data, nonrot), .unit = "",
	  .def = "true", .min = 1, .max = 0, .source = "drivers/mmc/card/queue.c QUEUE_FLAG_NONROT",
	  .help = "queue is non-rotational (flash): seekiness by size, no idling with hw_tag" },
	{ .key = "fg_aware", .type = CFG_T_BOOL, .offset = offsetof(struct cfq_data, fg_aware), .unit = "",
	  .def = "false", .min = 1, .max = 0,
	  .source = "SNU M.S. thesis 2017, User-centric I/O scheduling for Android, mechanism 4",
	  .help = "foreground-aware mode: FG queues first, FIFO (the fgcfq policy sets it)" },
	{ .key = "fg_idle", .type = CFG_T_ENUM, .offset = offsetof(struct cfq_data, fg_idle), .unit = "",
	  .def = "cfq", .min = 1, .max = 0, .choices = cfq_fg_idle_names,
	  .source = "mobisim choice (thesis silent): cfq = CFQ's own slice idling for FG queues",
	  .help = "fg_aware: an FG sync queue idles for its next request by CFQ's rules (cfq), also "
		  "where CFQ would not, e.g. flash with NCQ (always), or its turn ends when it runs dry "
		  "(never)" },
	CFG_PARAM_END
};

const struct elevator_ops cfq_elevator_ops = {
	.name = "cfq",
	.summary = "Completely Fair Queueing (Linux 3.10 cfq-iosched): per-process slices, idling",
	.params = cfq_params,
	.priv_size = sizeof(struct cfq_data),
	.init = cfq_init,
	.exit = cfq_exit,
	.merge = cfq_merge,
	.allow_merge = cfq_allow_merge,
	.merged = cfq_merged,
	.merged_requests = cfq_merged_requests,
	.former_request = cfq_former_request,
	.latter_request = cfq_latter_request,
	.set_request = cfq_set_request,
	.put_request = cfq_put_request,
	.may_queue = cfq_may_queue,
	.add_request = cfq_insert_request,
	.dispatch = cfq_dispatch_requests,
	.activate_request = cfq_activate_request,
	.completed_request = cfq_completed_request,
	.queue_empty = cfq_queue_empty,
	.boost_lba = cfq_boost_lba,
	.stats_json = cfq_stats_json,
};
