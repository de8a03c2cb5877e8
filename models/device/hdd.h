/* Hard disk drive model (models/device/hdd.c): the few figures of the
 * mechanism that tests and tools read directly. Source of the model: Ruemmler
 * & Wilkes, "An introduction to disk drive modeling", IEEE Computer 27(3), 1994.
 */
#ifndef MODELS_DEVICE_HDD_H
#define MODELS_DEVICE_HDD_H

#include <stdbool.h>
#include <stdint.h>

struct device;

/* Seek time over dist cylinders from the drive's seek curve (0 for 0),
 * plus the write settle for a write, in ns. dev must be an hdd device. */
double hdd_seek_ns(const struct device *dev, uint64_t dist, bool write);
/* One revolution, ns. */
double hdd_rev_ns(const struct device *dev);
/* Sectors per track, cylinders and surfaces of the zone holding lba. */
uint32_t hdd_spt_at(const struct device *dev, uint64_t lba);
uint64_t hdd_cylinders(const struct device *dev);
uint32_t hdd_surfaces(const struct device *dev);
/* Track and cylinder skew (sectors) of the zone holding lba. */
uint32_t hdd_track_skew_at(const struct device *dev, uint64_t lba);
uint32_t hdd_cyl_skew_at(const struct device *dev, uint64_t lba);

#endif
