/* The scheduler interface moved to the block layer (models/block/elevator.h),
 * where Linux keeps it (block/elevator.c): schedulers sit above the block
 * core, which calls them through that ops table. This forwarding header keeps
 * older includes building; include models/block/elevator.h in new code. */
#include "models/block/elevator.h"
