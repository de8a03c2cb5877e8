/* Tests for sim/cli/fit_era.c: the stack `workload fit` infers from a trace.
 * An MMC major picks eMMC; SCSI majors keep the default but say why; a
 * release of 5.0 or later picks mq-deadline, one before 4.16 cfq, and the
 * releases between (either block layer could run) and an unparsable or
 * absent release pick nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim/cli/fit_era.h"

static void test_device_from_major(void **state)
{
	struct fit_era e;
	(void)state;
	fit_era_pick(179, "", &e);
	assert_string_equal(e.device, "emmc51");
	assert_non_null(strstr(e.device_why, "179"));
	assert_null(e.scheduler);
	assert_string_equal(e.scheduler_why, "");
	for (uint32_t m = 0; m < 300; m++) {
		fit_era_pick(m, NULL, &e);
		bool scsi = m == 8 || (m >= 65 && m <= 71) || (m >= 128 && m <= 135);
		if (m != 179)
			assert_null(e.device);
		assert_int_equal(e.device_why[0] != '\0', scsi || m == 179);
	}
	fit_era_pick(259, "", &e); /* NVMe or a high mmcblk partition: says nothing */
	assert_null(e.device);
}

static void test_scheduler_from_release(void **state)
{
	static const struct {
		const char *rel, *sched;
		bool why;
	} cases[] = {
		{ "5.10.107-android13-4", "mq-deadline", true },
		{ "6.1.25", "mq-deadline", true },
		{ "5.0.0", "mq-deadline", true },
		{ "4.19.157-perf", NULL, true },
		{ "4.16.0", NULL, true },
		{ "4.15.18", "cfq", true },
		{ "3.10.61-4497880", "cfq", true },
		{ "2.6.23", "cfq", true },
		{ "android", NULL, false },
		{ "", NULL, false },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fit_era e;
		fit_era_pick(8, cases[i].rel, &e);
		if (cases[i].sched)
			assert_string_equal(e.scheduler, cases[i].sched);
		else
			assert_null(e.scheduler);
		assert_int_equal(e.scheduler_why[0] != '\0', cases[i].why);
		if (cases[i].why)
			assert_non_null(strstr(e.scheduler_why, cases[i].rel));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_from_major),
		cmocka_unit_test(test_scheduler_from_release),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
