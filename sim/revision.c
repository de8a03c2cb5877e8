/* The git revision this binary was built from (cmake/revision.cmake writes
 * revision.h at build time), kept in one object so that a new revision
 * recompiles only this file. The result JSON does not carry it, so that two
 * builds of the same model give the same result bytes; --version and the
 * results database (`runs.git_revision`) do. */
#include "sim/sim.h"

#include "revision.h"

const char *sim_git_revision(void)
{
	return MOBISIM_GIT_REVISION;
}
