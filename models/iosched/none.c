/* none: blk-mq without an I/O scheduler (Linux 5.0+ "none", the default
 * for devices with several hardware queues: block/elevator.c
 * elevator_get_default of 5.10-6.1). It has no hooks on purpose: with it
 * the block layer allocates driver tags directly, merges bios into the
 * software queues and issues requests to the device directly when the
 * hardware queue is not busy (models/block/blk_mq.c). The boost policy's
 * hook is the core's for the same reason: a request in a software queue
 * is moved to the head of hctx->dispatch (blk_mq_boost_lba).
 */
#include "models/block/elevator.h"

const struct elevator_ops none_elevator_ops = {
	.name = "none",
	.summary = "[blk-mq] no scheduler: software queues, direct issue (Linux 5.0+)",
	.mq = true,
};
