/* Issue costs of the user-level (FAST'11, fadvise) and the kernel-level
 * (Joo 2013 dissertation, in-kernel) launch prefetcher: models/launch/pflevel.h. */
#include "models/launch/pflevel.h"

int64_t pflevel_extent_ns(enum pflevel lv, const struct pflevel_costs *c, uint64_t npages)
{
	if (lv == PFLEVEL_KERNEL)
		return 0;
	return c->syscall_ns + (int64_t)npages * c->page_probe_ns;
}

int64_t pflevel_open_ns(enum pflevel lv, const struct pflevel_costs *c)
{
	return lv == PFLEVEL_USER ? c->open_ns : 0;
}

bool pflevel_opens_files(enum pflevel lv)
{
	return lv == PFLEVEL_USER;
}

int64_t pflevel_start_delay_ns(enum pflevel lv, const struct pflevel_costs *c)
{
	return lv == PFLEVEL_USER ? c->spawn_ns : 0;
}

uint64_t pflevel_extent_calls(enum pflevel lv)
{
	return lv == PFLEVEL_USER ? 1 : 0;
}

uint64_t pflevel_open_calls(enum pflevel lv)
{
	return lv == PFLEVEL_USER ? 2 : 0; /* open + close */
}
