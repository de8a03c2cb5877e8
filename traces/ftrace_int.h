/* The ftrace text reader's state, shared by its input (traces/ftrace.c) and
 * its line parser (traces/ftrace_parse.c); not for use outside them. */
#ifndef TRACES_FTRACE_INT_H
#define TRACES_FTRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/error.h"
#include "traces/ftrace.h"

struct ftrace_reader {
	FILE *f;
	bool own_file;
	const char *mem;
	size_t mem_len, mem_pos;
	char name[256];

	char *buf;          /* stream input buffer */
	size_t buf_len;     /* bytes held */
	size_t buf_pos;     /* start of the next line */
	bool eof;

	uint64_t lineno;
	int failed;
	struct sim_error saved;
	uint32_t last_skip; /* index of the last skipped name: traces repeat events */
	struct ftrace_stats st;
};

#endif
