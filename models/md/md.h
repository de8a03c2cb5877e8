/* Arrays of devices (models/md/md.c): the `stripe` (md RAID0 / dm-stripe)
 * and `linear` (dm-linear / F2FS multi-device) device models, registered in
 * the device registry, and what tests and tools may read of them. The md
 * layer sits above the block layer and the schedulers (scripts/check-layers):
 * each member has a request queue of its own.
 */
#ifndef MODELS_MD_H
#define MODELS_MD_H

#include <stdint.h>

struct device;
struct device_ops;
struct blk_queue;

extern const struct device_ops stripe_device_ops;
extern const struct device_ops linear_device_ops;

/* 0 / NULL when dev is not an array or i is out of range. */
uint32_t md_members(const struct device *dev);
struct device *md_member_device(const struct device *dev, uint32_t i);
struct blk_queue *md_member_queue(const struct device *dev, uint32_t i);

#endif
