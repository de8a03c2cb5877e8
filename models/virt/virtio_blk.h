/* The virtio-blk guest disk over a host stack (models/virt/virtio_blk.c):
 * its ops table, registered in the device registry, and what tests and
 * tools may read of it. The virt layer sits above the upper stack
 * (scripts/check-layers): the device it implements contains a whole host
 * stack, reached only through models/stack/stack.h.
 */
#ifndef MODELS_VIRT_VIRTIO_BLK_H
#define MODELS_VIRT_VIRTIO_BLK_H

#include <stdint.h>

struct device;
struct device_ops;
struct stack;

struct virtio_blk_stats {
	uint64_t requests;     /* guest requests served */
	uint64_t host_ops;     /* reads and writes the host workers issued on the image */
	uint64_t flushes;      /* fdatasync of the image (guest REQ_FLUSH / FUA) */
	uint64_t discards;     /* dropped (discard=ignore) */
	uint64_t exits;        /* VM exits charged: kicks, EOI writes */
	uint64_t injections;   /* interrupts injected (interrupt path of the guest) */
	uint64_t timer_wakes;  /* guest hrtimer wake-ups of the halted vCPU */
	uint64_t wrapped;      /* guest sectors past the image (wrapped: image too small) */
	int64_t front_ns;      /* sum: kick exit + back-end wake-up (+ bounce of writes) */
	int64_t host_ns;       /* sum: pop to push on the host worker */
};

extern const struct device_ops virtio_blk_device_ops;

/* NULL when dev is not a virtio-blk device. */
const struct virtio_blk_stats *virtio_blk_stats(const struct device *dev);
struct device *virtio_blk_host_device(const struct device *dev);
struct stack *virtio_blk_host_stack(const struct device *dev);

#endif
