/* The sector arithmetic of striped and concatenated devices (models/md/md_map.h).
 *
 * Stripe: Linux 5.10 drivers/md/dm-stripe.c stripe_map_sector and
 * drivers/md/raid0.c map_sector for one strip zone (all members the same
 * size): chunk = sector / chunk_sectors; the member is chunk mod n; the
 * sector on it is (chunk / n) * chunk_sectors + sector mod chunk_sectors,
 * plus the member's start (physical_start / data_offset). Both drivers
 * take the power-of-two path with shifts and masks and the general one with
 * sector_div; the results are the same, so one division serves here. A bio
 * is split where its chunk ends (raid0_make_request: sectors = chunk_sects
 * - sector % chunk_sects; dm: ti->max_io_len = chunk_size).
 * Linear: dm-linear's linear_map_sector (start + offset in the target) over
 * a table of targets end to end, split at a target's end (dm core's
 * max_io_len: the target's remaining length), which is also how F2FS maps a
 * block address to the device whose [start_blk, end_blk] holds it
 * (f2fs_target_device) and keeps a bio on one device.
 * Left out: md RAID0's further strip zones over the larger members when
 * sizes differ (here the stripe uses the smallest size on every member).
 */
#include "models/md/md_map.h"

#include <stddef.h>

int md_map_init(struct md_map *map, int layout, uint32_t n, uint64_t chunk_sectors,
		const uint64_t *member_sectors, const uint64_t *offsets, struct md_member_map *m)
{
	map->layout = layout;
	map->n = n;
	map->chunk_sectors = chunk_sectors;
	map->m = m;
	map->sectors = 0;
	if (n == 0)
		return -1;
	if (layout == MD_STRIPE) {
		if (chunk_sectors == 0)
			return -1;
		uint64_t len = UINT64_MAX;
		for (uint32_t i = 0; i < n; i++)
			if (member_sectors[i] < len)
				len = member_sectors[i];
		len -= len % chunk_sectors;
		if (len == 0)
			return -1;
		for (uint32_t i = 0; i < n; i++)
			m[i] = (struct md_member_map){ .start = 0, .sectors = len,
						       .offset = offsets ? offsets[i] : 0 };
		map->sectors = len * n;
		return 0;
	}
	uint64_t start = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (member_sectors[i] == 0)
			return -1;
		m[i] = (struct md_member_map){ .start = start, .sectors = member_sectors[i],
					       .offset = offsets ? offsets[i] : 0 };
		start += member_sectors[i];
	}
	map->sectors = start;
	return 0;
}

bool md_map_sector(const struct md_map *map, uint64_t sector, uint32_t *member, uint64_t *msector,
		   uint64_t *max_len)
{
	if (sector >= map->sectors)
		return false;
	if (map->layout == MD_STRIPE) {
		uint64_t cs = map->chunk_sectors;
		uint64_t chunk = sector / cs, in_chunk = sector % cs;
		uint32_t i = (uint32_t)(chunk % map->n);
		*member = i;
		*msector = map->m[i].offset + (chunk / map->n) * cs + in_chunk;
		*max_len = cs - in_chunk;
		return true;
	}
	/* binary search over the targets' starts, as dm_table_find_target */
	uint32_t lo = 0, hi = map->n;
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (map->m[mid].start <= sector)
			lo = mid;
		else
			hi = mid;
	}
	const struct md_member_map *t = &map->m[lo];
	*member = lo;
	*msector = t->offset + (sector - t->start);
	*max_len = t->start + t->sectors - sector;
	return true;
}
