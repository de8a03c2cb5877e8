/* Sector mapping of a device built from several (models/md/md_map.c):
 * striped as Linux 5.10 drivers/md/raid0.c (one strip zone) and
 * drivers/md/dm-stripe.c map a sector, or concatenated as
 * drivers/md/dm-linear.c and F2FS's multi-device support
 * (fs/f2fs/data.c f2fs_target_device) do. Pure functions: no simulator.
 */
#ifndef MODELS_MD_MAP_H
#define MODELS_MD_MAP_H

#include <stdbool.h>
#include <stdint.h>

enum md_layout {
	MD_STRIPE = 0, /* md RAID0 / dm-stripe: chunk i on member i mod n */
	MD_LINEAR,     /* dm-linear / F2FS multi-device: members end to end */
};

struct md_member_map {
	uint64_t start;   /* first sector of the member's part in the array's space */
	uint64_t sectors; /* sectors the member contributes */
	uint64_t offset;  /* sector on the member where its part begins (dm's
	                   * physical_start, md's data_offset) */
};

struct md_map {
	int layout;             /* enum md_layout */
	uint32_t n;
	uint64_t chunk_sectors; /* stripe only */
	struct md_member_map *m;
	uint64_t sectors;       /* capacity of the array */
};

/* Lay out n members of member_sectors[i] sectors each, their parts
 * starting at offsets[i] (NULL: 0). A stripe uses the same length on every
 * member, the smallest rounded down to a whole chunk (dm-stripe's table
 * length / stripes; raid0 rounds each rdev down to a chunk), so its
 * capacity is n times that. m must hold n entries. Returns 0, or -1 when
 * nothing is left (no member, a zero chunk, a member smaller than a chunk). */
int md_map_init(struct md_map *map, int layout, uint32_t n, uint64_t chunk_sectors,
		const uint64_t *member_sectors, const uint64_t *offsets, struct md_member_map *m);

/* Where sector of the array lives: *member, the sector on it (*msector),
 * and how many sectors from sector stay on that member without crossing a
 * chunk (stripe) or member (linear) boundary (*max_len), the length at
 * which raid0_make_request / dm's max_io_len split a bio. false when
 * sector is past the array's end. */
bool md_map_sector(const struct md_map *map, uint64_t sector, uint32_t *member, uint64_t *msector,
		   uint64_t *max_len);

#endif
