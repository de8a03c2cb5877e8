/* `validate --uncertainty`: each check's value over the joint design of
 * its file's assumptions (cmd_validate.c runs the rows) as a median and a
 * 5-95 % interval, whether the published value lies inside it
 * (consistent) and whether it is narrower than the check's tolerance band
 * (informative), and the assumptions that carry most of its variance
 * (squared rank correlation, sim/cli/assumptions.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/cli/validate.h"

void val_uq_eval(const struct vcheck *k, int col, struct vuq *q)
{
	const struct vfile *vf = k->vf;
	memset(q, 0, sizeof(*q));
	q->top[0] = q->top[1] = -1;
	q->med = q->lo = q->hi = NAN;
	const double *y = k->uq[col];
	if (!y || vf->nsamp <= 0)
		return;
	for (int i = 0; i < vf->nsamp; i++)
		q->n += isfinite(y[i]) != 0;
	if (!q->n)
		return;
	q->med = assume_quantile(y, vf->nsamp, 0.5);
	q->lo = assume_quantile(y, vf->nsamp, 0.05);
	q->hi = assume_quantile(y, vf->nsamp, 0.95);
	double p = k->paper, w = q->hi - q->lo;
	switch (k->tol_kind) {
	case VTOL_SIGN:
		q->consistent = p > 0 ? q->hi > 0 : q->lo < 0;
		q->informative = q->lo > 0 || q->hi < 0;
		break;
	case VTOL_REL:
		q->consistent = q->lo <= p + 1e-12 && p <= q->hi + 1e-12;
		q->informative = w < 2 * k->tol * fabs(p);
		break;
	case VTOL_ABS:
		q->consistent = q->lo <= p + 1e-12 && p <= q->hi + 1e-12;
		q->informative = w < 2 * k->tol;
		break;
	}
	double sh[ASSUME_MAX];
	if (!vf->as || assume_rank_shares(vf->u, vf->as->n, y, vf->nsamp, sh))
		return;
	for (int j = 0; j < vf->as->n; j++) {
		double s = sh[j];
		if (!isfinite(s))
			continue;
		if (q->top[0] < 0 || s > q->share[0]) {
			q->top[1] = q->top[0];
			q->share[1] = q->share[0];
			q->top[0] = j;
			q->share[0] = s;
		} else if (q->top[1] < 0 || s > q->share[1]) {
			q->top[1] = j;
			q->share[1] = s;
		}
	}
}

static void fmt_num(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3g", v);
}

static void shares_text(const struct vcheck *k, const struct vuq *q, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < 2 && q->top[i] >= 0 && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s %.0f %%", i ? ", " : "",
				      k->vf->as->a[q->top[i]].name, 100 * q->share[i]);
	if (!buf[0])
		snprintf(buf, len, "-");
}

struct uq_counts {
	const char *label;
	int n[2], consistent[2], informative[2]; /* [0] predictions, [1] fits and calibrations */
};

void val_uq_print(FILE *f, const struct vcheck *ks, int n, const struct vfile *vfs, int nf,
		  bool md)
{
	int nsamp = 0;
	for (int v = 0; v < nf; v++)
		nsamp = vfs[v].nsamp > nsamp ? vfs[v].nsamp : nsamp;
	if (md) {
		fprintf(f, "\n### Intervals over the assumptions (`--uncertainty %d`)\n\n", nsamp);
		fprintf(f, "Each file's `assumptions:` (its base scenario's and its platform's) sampled "
			   "jointly, %d rows of a shifted Sobol design; median and 5-95 %% interval of each "
			   "check; *consistent*: the published value lies inside the interval; "
			   "*informative*: the interval is narrower than the tolerance band (2 x the "
			   "tolerance; a sign check: the interval has one sign); the two assumptions with "
			   "the largest squared standardized rank regression coefficient (SRRC^2: the "
			   "first-order share of the value's rank variance each explains; with fewer than "
			   "2 (assumptions + 1) rows, or a coefficient above 1 (a small sample's columns "
			   "correlated), the squared rank correlation of each alone).\n\n", nsamp);
		for (int v = 0; v < nf; v++) {
			const struct vfile *vf = &vfs[v];
			if (!vf->as || !vf->nsamp)
				continue;
			fprintf(f, "- %s: ", vf->name);
			for (int j = 0; j < vf->as->n; j++) {
				char r[400];
				assumption_range_text(&vf->as->a[j], r, sizeof(r));
				fprintf(f, "%s`%s` %s", j ? "; " : "", vf->as->a[j].name, r);
			}
			fprintf(f, "\n");
		}
		fprintf(f, "\n| check | column | kind | paper | median [5 %%, 95 %%] | consistent | "
			   "informative | most of its variance |\n|---|---|---|---|---|---|---|---|\n");
	} else {
		fprintf(f, "\nIntervals over the assumptions (%d design rows per file): median [5 %%, "
			   "95 %%]; C consistent, I informative\n", nsamp);
		fprintf(f, "%-52s %-14s %10s  %-28s %s %s  %s\n", "check", "column", "paper",
			"median [5 %, 95 %]", "C", "I", "most of its variance (SRRC^2)");
	}
	struct uq_counts cnt[16];
	int ncnt = 0;
	for (int i = 0; i < n; i++) {
		const struct vcheck *k = &ks[i];
		if (k->kind == VK_REPORT || !k->vf->nsamp)
			continue;
		for (int col = 0; col < k->vf->ncols; col++) {
			struct vuq q;
			val_uq_eval(k, col, &q);
			if (!q.n)
				continue;
			const char *label = k->vf->col_label[col] ? k->vf->col_label[col] : "one set-up";
			char med[32], lo[32], hi[32], paper[32], sh[300];
			fmt_num(med, sizeof(med), q.med);
			fmt_num(lo, sizeof(lo), q.lo);
			fmt_num(hi, sizeof(hi), q.hi);
			fmt_num(paper, sizeof(paper), k->paper);
			shares_text(k, &q, sh, sizeof(sh));
			/* rows whose run failed are left out: the interval says over how many */
			char over[48] = "";
			if (q.n < k->vf->nsamp)
				snprintf(over, sizeof(over), " (%d of %d rows)", q.n, k->vf->nsamp);
			if (md)
				fprintf(f, "| %s | %s | %s | %s | %s [%s, %s]%s | %s | %s | %s |\n", k->name,
					label, vkind_names[k->kind], paper, med, lo, hi, over,
					q.consistent ? "yes" : "no", q.informative ? "yes" : "no", sh);
			else {
				char iv[160];
				snprintf(iv, sizeof(iv), "%s [%s, %s]%s", med, lo, hi, over);
				fprintf(f, "%-52.52s %-14.14s %10s  %-28s %s %s  %s\n", k->name, label,
					paper, iv, q.consistent ? "y" : "n", q.informative ? "y" : "n", sh);
			}
			int c = 0;
			while (c < ncnt && strcmp(cnt[c].label, label))
				c++;
			if (c == ncnt) {
				if (ncnt == 16)
					continue;
				memset(&cnt[ncnt], 0, sizeof(cnt[0]));
				cnt[ncnt++].label = label;
			}
			int kind = k->kind == VK_PREDICTION ? 0 : 1;
			cnt[c].n[kind]++;
			cnt[c].consistent[kind] += q.consistent;
			cnt[c].informative[kind] += q.informative;
		}
	}
	fprintf(f, "\n");
	for (int v = 0; v < nf; v++)
		if (vfs[v].failed_rows)
			fprintf(f, "%s%s: %d of %d design rows had a failed run (stderr names their values); "
				   "its intervals leave those runs out\n", md ? "- " : "", vfs[v].name,
				vfs[v].failed_rows, vfs[v].nsamp);
	for (int c = 0; c < ncnt; c++)
		fprintf(f, "%s%s: predictions %d consistent, %d informative, of %d; fits and "
			   "calibrations %d consistent, %d informative, of %d\n", md ? "- " : "",
			cnt[c].label, cnt[c].consistent[0], cnt[c].informative[0], cnt[c].n[0],
			cnt[c].consistent[1], cnt[c].informative[1], cnt[c].n[1]);
}
