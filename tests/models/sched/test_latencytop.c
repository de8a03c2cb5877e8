/* LatencyTOP's cause names (models/sched/latencytop.c): a sleep is named by
 * the op it happens in, a read's journal waits are its atime update, and
 * runnable or spinning time is not recorded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "models/sched/latencytop.h"

static void test_latencytop_reasons(void **state)
{
	(void)state;
	assert_int_equal(latencytop_reason(true, STACK_OP_READ, SIM_WAIT_READ_IO), LT_READ);
	assert_int_equal(latencytop_reason(true, STACK_OP_READ, SIM_WAIT_JOURNAL_BUFFER), LT_ATIME);
	assert_int_equal(latencytop_reason(true, STACK_OP_READ, SIM_WAIT_JOURNAL_LOCKED), LT_ATIME);
	assert_int_equal(latencytop_reason(true, STACK_OP_WRITE, SIM_WAIT_DIRTY_THROTTLE), LT_WRITE);
	assert_int_equal(latencytop_reason(true, STACK_OP_WRITE, SIM_WAIT_JOURNAL_BUFFER), LT_WRITE);
	assert_int_equal(latencytop_reason(true, STACK_OP_FSYNC, SIM_WAIT_JOURNAL), LT_FSYNC);
	assert_int_equal(latencytop_reason(true, STACK_OP_FDATASYNC, SIM_WAIT_FSYNC_IO), LT_FSYNC);
	assert_int_equal(latencytop_reason(true, STACK_OP_OPEN, SIM_WAIT_READ_IO), LT_OPEN);
	assert_int_equal(latencytop_reason(false, STACK_OP_READ, SIM_WAIT_READ_IO), LT_OTHER);
	assert_int_equal(latencytop_reason(true, STACK_OP_READ, SIM_WAIT_CPU), LT_NREASON);
	assert_int_equal(latencytop_reason(true, STACK_OP_READ, SIM_WAIT_PAGECACHE_LOCK), LT_NREASON);
	assert_string_equal(latencytop_names[LT_READ], "Reading from file");
	assert_string_equal(latencytop_names[LT_FSYNC], "fsync() on a file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latencytop_reasons),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
