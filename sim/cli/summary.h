/* Human summary of a result document on stdout (aligned tables). */
#ifndef SIM_SUMMARY_H
#define SIM_SUMMARY_H

#include <stdio.h>

struct sim;
struct json_t;

void summary_print(FILE *f, const struct sim *s, const struct json_t *res);

#endif
