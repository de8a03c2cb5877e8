/* Plots drawn with gnuplot: the one way the commands find and run it
 * (`sensitivity`'s tornado chart, `compare --plot` and `sweep --plot`'s
 * latency CDFs), and the latency CDF figure itself. */
#ifndef SIM_CLI_PLOT_H
#define SIM_CLI_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sim/error.h"
#include "sim/metrics.h"

/* Whether an executable gnuplot is on PATH. */
bool cli_gnuplot_found(void);

/* The terminal lines of a generated script: pngcairo when this gnuplot
 * has it, else png, at width x height, noenhanced (labels as written). */
void cli_gnuplot_terminal(FILE *f, int width, int height);

/* Run `gnuplot [-e EXPR] SCRIPT` with dir as its working directory (NULL:
 * this one) and its stderr on errfd (-1: this process's). Returns its
 * exit status, or -1 when it could not be started or was killed. */
int cli_gnuplot_run(const char *dir, const char *expr, const char *script, int errfd);

/* One curve set of the latency CDF figure: a label (a policy set, a sweep
 * point) and per class and operation the latency distribution (ns), pooled
 * over every run given to cli_cdf_series_add. */
struct cli_cdf_series {
	char label[256];
	struct stats_dist lat[SIM_NCLASS][SIM_NOP];
};

void cli_cdf_series_init(struct cli_cdf_series *s, const char *label);
void cli_cdf_series_free(struct cli_cdf_series *s);
/* Merge one run's per-class operation latencies in. 0 or SIM_E_NOMEM. */
int cli_cdf_series_add(struct cli_cdf_series *s, const struct sim_metrics *m);

/* Draw the latency CDFs of n series into png (a file name; ".png" is
 * usual): one panel per class and operation that any series measured, one
 * curve per series. Beside it go STEM.tsv (the CDF points: one gnuplot
 * index block per panel and series) and STEM.gp (the script; `gnuplot
 * STEM.gp` in that directory redraws the PNG), STEM being png without its
 * ".png". All three are written to temporaries and renamed only when
 * gnuplot succeeded; on any failure none is left, except that without
 * gnuplot the data and the script are put in place and SIM_E_RUNTIME says
 * so. title heads the figure. */
int cli_plot_latency_cdf(const char *png, const char *title, const struct cli_cdf_series *ser,
			 size_t n, struct sim_error *err);

#endif
