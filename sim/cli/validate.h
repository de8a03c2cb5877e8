/* `mobisim validate`'s checks and files as parsed and evaluated
 * (cmd_validate.c), shared with what prints them (validate_out.c). */
#ifndef SIM_CLI_VALIDATE_H
#define SIM_CLI_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "sim/cli/assumptions.h"
#include "sim/cli/sweep.h"
#include "sim/config.h"
#include "sim/error.h"

#define VAL_MAX_COLS 4     /* side-by-side values */
#define VAL_MAX_INDEP 32   /* independent workloads */
#define VAL_DOC_BEGIN "<!-- BEGIN mobisim validate (generated; do not edit by hand) -->"
#define VAL_DOC_END "<!-- END mobisim validate -->"

/* A TSV table as the sweep writes it (summary-agg.tsv, summary.tsv). */
struct agg {
	int ncols, nrows;
	char **cols;
	char **cells; /* nrows * ncols */
};

enum vkind { VK_PREDICTION = 0, VK_FIT, VK_CALIBRATION, VK_REPORT, VK_N };
enum vtol { VTOL_REL, VTOL_ABS, VTOL_SIGN };
extern const char *const vkind_names[VK_N];

struct vfile {
	char *path;
	struct cfg_doc *doc;
	const char *name, *title, *source;
	bool fast;
	struct sweep *sw;           /* NULL: device checks only */
	char *fitted;               /* file-level fitted: "KEY fitted to TARGET; ..." or NULL */
	const char *indep_key;      /* independent: {key} or NULL */
	const char *indep_what;     /* what its values are ("app templates") */
	bool ci_runs;               /* ci: runs (the group's runs are independent replications) */
	const char *sbs_key;        /* side_by_side: {key} or NULL */
	const struct cfg_node *sbs_labels;
	int ncols;                  /* 1 without side_by_side */
	const char *col_val[VAL_MAX_COLS];   /* NULL without side_by_side */
	const char *col_label[VAL_MAX_COLS];
	int nindep;
	const char *indep_val[VAL_MAX_INDEP];
	char out_dir[4096];
	bool ran, failed;
	struct agg agg, runs;       /* summary-agg.tsv, summary.tsv */
	/* --uncertainty: the base scenario's assumptions and the design's
	 * rows (nsamp x as->n coordinates in [0, 1)) */
	struct assumption_set *as;
	double *u;
	int nsamp;
	int failed_rows;            /* design rows with a failed run (said on stderr) */
};

struct vresult {
	double model, ci;           /* ci: 95 % half-width of a mean, else NAN */
	double stat[4];             /* a report row's stats: (stat[0] is model) */
	int nindep;                 /* workloads the value is over (0: one group) */
	const char *why_nan;        /* what was missing */
	bool evaluated, pass;
	char note[160];
};

struct vcheck {
	const struct vfile *vf;
	const struct cfg_node *node, *model;
	const char *name, *unit, *reason, *fitted;
	enum vkind kind;
	bool across_max;            /* independent workloads: their max, not their mean */
	const char *stats[4];       /* a report row's stats: [p50, p95, max]: several of one ref */
	int nstats;
	const char *worst_of;       /* ... and last, the value in the run whose worst_of is largest */
	double paper;               /* NAN for a report row */
	enum vtol tol_kind;
	double tol;
	struct vresult res[VAL_MAX_COLS];
	double *uq[VAL_MAX_COLS];   /* --uncertainty: the value at each design row (vf->nsamp) */
};

/* An interval over the design's rows (validate_uq.c). */
struct vuq {
	int n;                      /* rows with a value */
	double med, lo, hi;         /* median, 5 % and 95 % quantiles */
	bool consistent;            /* the published value lies in [lo, hi] (sign: the interval
	                               reaches the paper's sign) */
	bool informative;           /* hi - lo narrower than the tolerance band (2 x tolerance;
	                               sign: the interval has one sign) */
	int top[2];                 /* the assumptions of largest rank share, -1: none */
	double share[2];
};

/* validate_out.c */
void val_print_table(FILE *f, const struct vcheck *ks, int n);
/* The summary line's counts. With label NULL a check counts once: it passes only when
 * every evaluated column passes, and partial counts those that pass in some columns
 * but not all; with a label, each check's column so labelled counts on its own. */
struct val_counts {
	int pass[VK_N], run[VK_N], partial[VK_N], sign_only, sign_pass;
};
/* label NULL: each check once over its columns; else only the side-by-side columns so labelled */
void val_count(const struct vcheck *ks, int n, const char *label, struct val_counts *c);
void val_summary_line(char *buf, size_t len, const struct val_counts *c);
char *val_markdown(const struct vcheck *ks, int n, const struct vfile *vfs, int nf, bool fast);
/* --doc (the generated block gen between DOC's markers) and --tsv (every
 * check, a row per column), either NULL for none: both written to
 * temporaries and put in place only when both are complete (nothing
 * replaced on a failure). SIM_E_INPUT for a DOC without its markers. */
int val_write_outputs(const char *doc, const char *gen, const char *tsv, const struct vcheck *ks,
		      int n, struct sim_error *err);

/* validate_uq.c */
void val_uq_eval(const struct vcheck *k, int col, struct vuq *q);
void val_uq_print(FILE *f, const struct vcheck *ks, int n, const struct vfile *vfs, int nf,
		  bool markdown);

#endif
