/* UFS host controller queueing mode: the legacy single doorbell (SDB, one
 * transfer request list of nutrs slots) or UFSHCI 4.0 multi-circular
 * queues (MCQ: one submission/completion queue pair per hardware queue).
 * Follows drivers/ufs/core/ufshcd.c and ufs-mcq.c of Linux 6.6, the level
 * the android14-6.1 GKI backport carries (see models/device/ufs_host.c).
 *
 * A device map may carry `host: {mode, mcq_supported, maxq, mac, esi,
 * rw_queues, read_queues, poll_queues}`; without it the device has no UFS
 * host model and blk-mq keeps its own `block.nr_hw_queues` (one queue, SDB).
 * The block layer asks ufs_host_config() for the kernel's decision once it
 * knows the CPU count.
 */
#ifndef MODELS_DEVICE_UFS_HOST_H
#define MODELS_DEVICE_UFS_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/config.h"
#include "sim/error.h"

struct json_t;

enum ufs_host_mode { UFS_HOST_AUTO = 0, UFS_HOST_SDB, UFS_HOST_MCQ };

/* blk-mq hardware context types (include/linux/blk-mq.h enum hctx_type). */
enum ufs_hctx_type { UFS_HCTX_DEFAULT = 0, UFS_HCTX_READ, UFS_HCTX_POLL, UFS_HCTX_TYPES };

/* UFSHCD_NUM_RESERVED: one tag kept for device management commands. */
#define UFS_HOST_NUM_RESERVED 1u

struct ufs_host_params {
	int mode;                 /* enum ufs_host_mode */
	bool mcq_supported;       /* CAP.MCQS and the vendor driver's MCQ ops */
	int64_t maxq;             /* MCQCap.MAXQ + 1: queues the controller has */
	int64_t mac;              /* max active commands (get_hba_mac) */
	bool esi;                 /* event-specific interrupts: one vector per CQ */
	int64_t rw_queues, read_queues, poll_queues; /* ufs-mcq.c module parameters */
};

struct ufs_host {
	struct ufs_host_params p;
	struct cfg_node *node;             /* the `host:` map, for messages while setting up */
	/* Resolved by ufs_host_config(). */
	bool mcq;                          /* MCQ in use */
	const char *why;                   /* why SDB when MCQ was possible, or NULL */
	uint32_t nr_queues[UFS_HCTX_TYPES];
	uint32_t nr_hw_queues;             /* sum of nr_queues */
	uint32_t nutrs;                    /* MCQ: min(MAC, bQueueDepth) */
	uint32_t can_queue;                /* host-wide shared tags: nutrs - reserved */
};

/* Build from the device's `host:` map (node may be NULL: returns *out NULL). */
int ufs_host_create(struct cfg_node *node, struct ufs_host **out, struct sim_error *err);
void ufs_host_destroy(struct ufs_host *h);

/* ufshcd's choice for a device of bqueuedepth and nr_cpus possible CPUs:
 * is_mcq_supported(), then ufshcd_alloc_mcq (ufshcd_mcq_decide_queue_depth,
 * ufshcd_mcq_config_nr_queues); a failure falls back to SDB as ufshcd does,
 * unless mode is mcq, which then is an input error. */
int ufs_host_config(struct ufs_host *h, uint32_t bqueuedepth, uint32_t nr_cpus,
		    struct sim_error *err);

/* blk_mq_map_queues() of Linux 6.1 on a phone (no SMT, every possible CPU
 * present): the hardware queue of software queue cpu for a type with nr
 * queues starting at offset. */
static inline uint32_t ufs_map_queue(uint32_t cpu, uint32_t offset, uint32_t nr)
{
	return offset + cpu % nr;
}

/* The resolved mode for the result (the block layer adds it under mq). */
struct json_t *ufs_host_to_json(const struct ufs_host *h);

#endif
