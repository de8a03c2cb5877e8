/* What a run measures, by task class: per-operation latency, btt-style
 * block latencies, wait causes (LatencyTOP-like) and regions. Filled by the
 * models, serialised by results.c into the docs/architecture.md §5 document.
 */
#ifndef SIM_METRICS_H
#define SIM_METRICS_H

#include <stdint.h>

#include "sim/stats.h"

enum sim_class { SIM_CLASS_FG = 0, SIM_CLASS_BG = 1, SIM_NCLASS };
enum sim_op { SIM_OP_READ = 0, SIM_OP_WRITE, SIM_OP_FSYNC, SIM_OP_FAULT, SIM_NOP };
enum sim_btt { SIM_BTT_Q2G = 0, SIM_BTT_G2I, SIM_BTT_I2D, SIM_BTT_D2C, SIM_BTT_Q2C, SIM_NBTT };

/* Why a task was not running. Names are the JSON "cause" strings. */
enum sim_wait {
	SIM_WAIT_PAGECACHE_LOCK = 0, /* spinning on the page-cache (lru) lock */
	SIM_WAIT_READ_IO,            /* waiting for a read bio in flight (page lock) */
	SIM_WAIT_WRITEBACK,          /* wait_on_page_writeback */
	SIM_WAIT_GET_REQUEST,        /* request list full (get_request sleep) */
	SIM_WAIT_DIRTY_THROTTLE,     /* balance_dirty_pages pause */
	SIM_WAIT_DIRECT_RECLAIM,     /* allocation stalled in direct reclaim */
	SIM_WAIT_FSYNC_IO,           /* waiting for its own sync writes */
	SIM_WAIT_JOURNAL,            /* waiting for a jbd2 commit */
	SIM_WAIT_CPU,                /* runnable, waiting for a core */
	SIM_WAIT_POLICY,             /* a policy made the task sleep (expc) */
	SIM_WAIT_SYNC_IO,            /* closed-loop replay: previous sync I/O */
	SIM_WAIT_CHECKPOINT,         /* waiting for an f2fs checkpoint */
	SIM_WAIT_FS_GC,              /* waiting for f2fs foreground segment cleaning */
	SIM_WAIT_CONGESTION,         /* reclaim: wait_iff_congested / allocation retry nap */
	SIM_WAIT_ISOLATION,          /* reclaim: too_many_isolated -> congestion_wait */
	SIM_WAIT_VM_WRITEOUT,        /* reclaim: throttle_vm_writeout -> congestion_wait */
	SIM_WAIT_RECLAIM_THROTTLE,   /* throttle_direct_reclaim: waiting for kswapd */
	SIM_WAIT_ZONE_LOCK,          /* spinning on zone->lock (per-cpu list refill/drain) */
	SIM_WAIT_TREE_LOCK,          /* spinning on a file's mapping->tree_lock */
	SIM_WAIT_PAGE_LOCK,          /* lock_page on a page locked with no read bio in flight yet */
	SIM_WAIT_JOURNAL_LOCKED,     /* start_this_handle: wait_transaction_locked (T_LOCKED) */
	SIM_WAIT_JOURNAL_BUFFER,     /* do_get_write_access: BH_Shadow, buffer being journalled */
	SIM_WAIT_JOURNAL_ORDERED,    /* waiting for a commit that waits for ordered data */
	SIM_WAIT_JOURNAL_DISCARD,    /* waiting for a commit that discards the blocks it freed */
	SIM_NWAIT
};

struct sim_opstat {
	uint64_t count, bytes;
	struct stats_dist lat;
};

struct sim_waitstat {
	uint64_t count;
	int64_t total_ns, max_ns;
};

struct sim_class_metrics {
	struct sim_opstat op[SIM_NOP];
	/* span from the first op's start to the last op's end (fio's runtime
	 * of the class); INT64_MAX / INT64_MIN while no op was measured */
	int64_t first_ns, last_ns;
	struct stats_dist btt[SIM_NBTT];
	struct sim_waitstat wait[SIM_NWAIT];
};

struct sim_region {
	char *name;
	char *task;
	int64_t start_ns, duration_ns;
	double device_j, cpu_j; /* drawn between begin and end (docs/energy.md) */
};

struct sim_metrics {
	struct sim_class_metrics cls[SIM_NCLASS];
	struct sim_region *regions;
	uint32_t nregions, cap_regions;
	int error; /* first histogram allocation failure (SIM_E_NOMEM) of a void recorder, or 0 */
	const int64_t *clock; /* the run's clock (ns), for the class spans; NULL: no spans */
};

extern const char *const sim_class_names[SIM_NCLASS];
extern const char *const sim_op_names[SIM_NOP];
extern const char *const sim_btt_names[SIM_NBTT];  /* "q2g_ns" ... */
extern const char *const sim_wait_names[SIM_NWAIT]; /* "pagecache_lock" ... */

void sim_metrics_init(struct sim_metrics *m);
void sim_metrics_free(struct sim_metrics *m);
void sim_metrics_op(struct sim_metrics *m, enum sim_class c, enum sim_op op, uint64_t bytes,
		    int64_t lat_ns);
void sim_metrics_wait(struct sim_metrics *m, enum sim_class c, enum sim_wait w, int64_t ns);
/* Inline, with stats_dist_add: five per request of a replay. A histogram
 * allocation failure cannot be returned from it; the first is kept in
 * m->error for the caller to check. */
static inline void sim_metrics_btt(struct sim_metrics *m, enum sim_class c, enum sim_btt b, int64_t ns)
{
	int rc = stats_dist_add(&m->cls[c].btt[b], ns);
	if (__builtin_expect(rc != 0, 0) && m->error == 0)
		m->error = rc;
}
/* Returns 0 or SIM_E_NOMEM. Strings are copied. */
int sim_metrics_region(struct sim_metrics *m, const char *name, const char *task, int64_t start_ns,
		       int64_t duration_ns, double device_j, double cpu_j);

/* The keys fio's JSON output gives one direction of a job, for tools that
 * post-process fio: total_ios, io_bytes, io_kbytes, runtime (ms), iops,
 * bw_bytes, bw (KiB/s), over runtime_ns (0: rates are 0). */
int sim_metrics_fio_keys(struct json_t *o, uint64_t count, uint64_t bytes, int64_t runtime_ns);

/* docs/architecture.md §5 result pieces (caller owns the returned JSON). */
struct json_t;
struct json_t *sim_metrics_classes_json(const struct sim_metrics *m);
/* One CLASS object, e.g. for the per-task breakdown. */
struct json_t *sim_metrics_class_json(const struct sim_class_metrics *cm);
struct json_t *sim_metrics_waits_json(const struct sim_metrics *m);
struct json_t *sim_metrics_regions_json(const struct sim_metrics *m);
/* The result's energy.regions: [{"name", "task", "start_ns", "duration_ns",
 * "device_j", "cpu_j", "total_j"}] */
struct json_t *sim_metrics_region_energy_json(const struct sim_metrics *m);

#endif
