/* Table-driven cmocka tests: each row of a case table becomes a test of
 * its own, named by the row, so that a failing row is reported by its name
 * ("[  FAILED  ] <name>") and the other rows still run. A row is a struct
 * whose first member is `const char *name`; the test function gets the
 * row as its state. */
#ifndef TESTS_CASE_TABLE_H
#define TESTS_CASE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define CASE_COUNT(cases) (sizeof(cases) / sizeof((cases)[0]))

/* Fill tests[0 .. CASE_COUNT(cases)) with one test of fn per row. */
#define CASE_TESTS(tests, cases, fn)                                                          \
	do {                                                                                    \
		for (size_t case_i_ = 0; case_i_ < CASE_COUNT(cases); case_i_++)                \
			(tests)[case_i_] = (struct CMUnitTest){                                 \
				.name = (cases)[case_i_].name,                                   \
				.test_func = (fn),                                               \
				.initial_state = (void *)(uintptr_t)&(cases)[case_i_],           \
			};                                                                      \
	} while (0)

#endif
