/* What `mobisim validate` prints: the terminal table, the summary line
 * (predictions counted apart from calibration points and fits), the
 * generated part of docs/validation.md (predictions first; side-by-side
 * columns for the S6's two CFQ kernel variants) and the TSV. */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cli/validate.h"
#include "sim/results.h"

static const char *const kind_heading[VK_N] = {
	"Predictions (nothing fitted to the number or its experiment)",
	"Fits (a value of the experiment was fitted to one of its numbers)",
	"Calibration points (a model value was set to reproduce the number)",
	"Reported without a published number",
};

static void fmt_num(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "-");
	else if (x != 0 && (fabs(x) >= 1e5 || fabs(x) < 1e-3))
		snprintf(buf, len, "%.3g", x);
	else
		snprintf(buf, len, "%.4g", x);
}

static void fmt_model(char *buf, size_t len, const struct vresult *r, const struct vcheck *k)
{
	char a[32], b[32];
	if (k->nstats) {
		size_t o = 0;
		buf[0] = '\0';
		for (int i = 0; i < k->nstats && o < len; i++) {
			fmt_num(a, sizeof(a), r->stat[i]);
			o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? " / " : "", a);
		}
		return;
	}
	fmt_num(a, sizeof(a), r->model);
	if (!isnan(r->ci) && !isnan(r->model)) {
		fmt_num(b, sizeof(b), r->ci);
		snprintf(buf, len, "%s ± %s", a, b);
	} else {
		snprintf(buf, len, "%s", a);
	}
}

static void fmt_error(char *buf, size_t len, const struct vcheck *k, const struct vresult *r)
{
	double m = r->model, p = k->paper;
	if (isnan(m) || isnan(p))
		snprintf(buf, len, "-");
	else if (p != 0)
		snprintf(buf, len, "%+.1f %%", 100.0 * (m - p) / fabs(p));
	else
		snprintf(buf, len, "%+.3g", m - p);
}

static void fmt_tol(char *buf, size_t len, const struct vcheck *k)
{
	if (k->kind == VK_REPORT)
		snprintf(buf, len, "-");
	else if (k->tol_kind == VTOL_SIGN)
		snprintf(buf, len, "same sign");
	else if (k->tol_kind == VTOL_REL)
		snprintf(buf, len, "±%g %%", 100.0 * k->tol);
	else
		snprintf(buf, len, "±%g%s%s", k->tol, *k->unit ? " " : "", k->unit);
}

static const char *verdict(const struct vcheck *k, const struct vresult *r)
{
	if (!r->evaluated)
		return "not run";
	if (k->kind == VK_REPORT)
		return isnan(r->model) ? "no value" : "reported";
	return r->pass ? "pass" : "MISS";
}

static void fmt_name(char *buf, size_t len, const struct vcheck *k)
{
	int o = snprintf(buf, len, "%s%s%s%s", k->name, *k->unit ? " (" : "", k->unit, *k->unit ? ")" : "");
	for (int i = 0; i < k->nstats && o > 0 && (size_t)o < len; i++) {
		if (k->worst_of && i == k->nstats - 1)
			o += snprintf(buf + o, len - (size_t)o, " / in the run of largest %s", k->worst_of);
		else
			o += snprintf(buf + o, len - (size_t)o, "%s%s", i ? " / " : ": ", k->stats[i]);
	}
}

void val_print_table(FILE *f, const struct vcheck *ks, int n)
{
	int wn = 5, wf = 4, wl = 0;
	for (int i = 0; i < n; i++) {
		char name[300];
		fmt_name(name, sizeof(name), &ks[i]);
		int l = (int)strlen(name);
		wn = l > wn ? l : wn;
		l = (int)strlen(ks[i].vf->name);
		wf = l > wf ? l : wf;
		for (int c = 0; c < ks[i].vf->ncols; c++) {
			l = ks[i].vf->col_label[c] ? (int)strlen(ks[i].vf->col_label[c]) : 0;
			wl = l > wl ? l : wl;
		}
	}
	for (int kind = 0; kind < VK_N; kind++) {
		bool any = false;
		for (int i = 0; i < n; i++)
			any |= ks[i].kind == (enum vkind)kind;
		if (!any)
			continue;
		fprintf(f, "%s== %s\n", kind ? "\n" : "", kind_heading[kind]);
		fprintf(f, "%-*s  %-*s  %s%-*s%s%10s  %-22s  %9s  %-11s  %s\n", wf, "file", wn, "check",
			wl ? "" : "", wl, wl ? "column" : "", wl ? "  " : "", "paper", "model (± 95 % CI)",
			"error", "tolerance", "result");
		for (int i = 0; i < n; i++) {
			const struct vcheck *k = &ks[i];
			if (k->kind != (enum vkind)kind)
				continue;
			for (int c = 0; c < k->vf->ncols; c++) {
				const struct vresult *r = &k->res[c];
				char name[300], p[32], m[64], e[32], t[48];
				fmt_name(name, sizeof(name), k);
				fmt_num(p, sizeof(p), k->paper);
				fmt_model(m, sizeof(m), r, k);
				fmt_error(e, sizeof(e), k, r);
				fmt_tol(t, sizeof(t), k);
				const char *lab = k->vf->col_label[c] ? k->vf->col_label[c] : "";
				fprintf(f, "%-*s  %-*s  %-*s%s%10s  %-*s  %9s  %-*s  %s%s%s\n", wf, k->vf->name,
					wn, name, wl, lab, wl ? "  " : "", p, 22 + (strstr(m, "±") ? 1 : 0), m,
					e, 11 + (strstr(t, "±") ? 1 : 0), t, verdict(k, r),
					r->note[0] ? ": " : "", r->note);
			}
		}
	}
}

void val_count(const struct vcheck *ks, int n, const char *label, struct val_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < n; i++) {
		const struct vcheck *k = &ks[i];
		int ran = 0, passed = 0;
		for (int col = 0; col < k->vf->ncols; col++) {
			const struct vresult *r = &k->res[col];
			if (!r->evaluated)
				continue;
			if (label && (!k->vf->col_label[col] || strcmp(label, k->vf->col_label[col])))
				continue;
			ran++;
			passed += r->pass;
		}
		if (!ran)
			continue;
		/* with a label: that column alone; without: the check once, over its columns */
		bool pass = passed == ran;
		c->run[k->kind]++;
		c->pass[k->kind] += pass;
		c->partial[k->kind] += !pass && passed > 0;
		if (k->kind == VK_PREDICTION && k->tol_kind == VTOL_SIGN) {
			c->sign_only++;
			c->sign_pass += pass;
		}
	}
}

void val_summary_line(char *buf, size_t len, const struct val_counts *c)
{
	char pp[64] = "", pf[64] = "";
	if (c->partial[VK_PREDICTION])
		snprintf(pp, sizeof(pp), "; %d more pass in one variant only", c->partial[VK_PREDICTION]);
	if (c->partial[VK_FIT])
		snprintf(pf, sizeof(pf), ", %d more in one variant only", c->partial[VK_FIT]);
	snprintf(buf, len,
		 "%d of %d predictions within tolerance (%d of %d only by direction)%s; "
		 "%d calibration points (%d within), %d fits (%d within%s)",
		 c->pass[VK_PREDICTION], c->run[VK_PREDICTION], c->sign_pass, c->sign_only, pp,
		 c->run[VK_CALIBRATION], c->pass[VK_CALIBRATION], c->run[VK_FIT], c->pass[VK_FIT], pf);
}

static void md_file_heading(FILE *f, const struct vfile *vf)
{
	fprintf(f, "#### %s\n\nSource: %s. File: `configs/validation/%s`", vf->title ? vf->title : vf->name,
		vf->source, strrchr(vf->path, '/') ? strrchr(vf->path, '/') + 1 : vf->path);
	if (vf->sw)
		fprintf(f, "; %d runs (%d groups of %d: %d repeat values x %d seeds)", vf->sw->npoints,
			vf->sw->ngroups, vf->sw->ngroups ? vf->sw->npoints / vf->sw->ngroups : 0,
			vf->sw->repeat_rows, vf->sw->repetitions);
	if (vf->indep_key)
		fprintf(f, "; each value is the mean over %d independent workloads (%s: `%s`) of the "
			   "value within each, ± the 95 %% CI over those workloads", vf->nindep,
			vf->indep_what ? vf->indep_what : "values of", vf->indep_key);
	else if (vf->ci_runs)
		fprintf(f, "; ± the 95 %% CI over the group's runs (independent replications)");
	else if (vf->sw)
		fprintf(f, "; one workload, so no CI (its phases and seeds are not independent workloads)");
	if (vf->fitted)
		fprintf(f, ". Fitted in this experiment: %s", vf->fitted);
	fprintf(f, ".\n\n");
}

static void md_row(FILE *f, const struct vcheck *k)
{
	const struct vfile *vf = k->vf;
	char name[300], p[32];
	fmt_name(name, sizeof(name), k);
	fmt_num(p, sizeof(p), k->paper);
	fprintf(f, "| %s |", name);
	if (k->kind != VK_REPORT)
		fprintf(f, " %s |", p);
	for (int c = 0; c < vf->ncols; c++) {
		const struct vresult *r = &k->res[c];
		char m[96], e[32];
		fmt_model(m, sizeof(m), r, k);
		fmt_error(e, sizeof(e), k, r);
		if (k->kind == VK_REPORT)
			fprintf(f, " %s%s%s |", m, r->note[0] ? " (" : "", r->note[0] ? r->note : "");
		else
			fprintf(f, " %s | %s | %s%s%s |", m, e, r->pass ? "pass" : "**miss**",
				r->note[0] ? ": " : "", r->note);
	}
	if (k->kind == VK_REPORT) {
		fprintf(f, " %s |\n", k->reason);
		return;
	}
	char t[48];
	fmt_tol(t, sizeof(t), k);
	fprintf(f, " %s |", t);
	if (k->kind != VK_PREDICTION)
		fprintf(f, " %s |", k->fitted == vf->fitted ? "the experiment's fit (above)"
				    : k->fitted ? k->fitted : "");
	fprintf(f, " %s |\n", k->reason);
}

static void md_table_head(FILE *f, const struct vfile *vf, enum vkind kind)
{
	fprintf(f, "| %s |", kind == VK_REPORT ? "row" : "check");
	if (kind != VK_REPORT)
		fprintf(f, " paper |");
	for (int c = 0; c < vf->ncols; c++) {
		const char *lab = vf->col_label[c];
		if (kind == VK_REPORT)
			fprintf(f, " %s%smodel |", lab ? lab : "", lab ? ": " : "");
		else
			fprintf(f, " %s%smodel (± 95 %% CI) | error | result |", lab ? lab : "", lab ? ": " : "");
	}
	if (kind == VK_REPORT) {
		fprintf(f, " what it shows |\n|---|");
	} else {
		fprintf(f, " tolerance |%s why this tolerance |\n|---|---|", kind == VK_PREDICTION ? ""
						  : " what was fitted, to what |");
	}
	for (int c = 0; c < vf->ncols; c++)
		fprintf(f, kind == VK_REPORT ? "---|" : "---|---|---|");
	fprintf(f, kind == VK_REPORT ? "---|\n" : (kind == VK_PREDICTION ? "---|---|\n" : "---|---|---|\n"));
}

char *val_markdown(const struct vcheck *ks, int n, const struct vfile *vfs, int nf, bool fast)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	struct val_counts all;
	char line[400];
	val_count(ks, n, NULL, &all);
	val_summary_line(line, sizeof(line), &all);
	fprintf(f, "%s\n\n", VAL_DOC_BEGIN);
	fprintf(f, "`mobisim validate%s --doc docs/validation.md`: **%s**%s.\n\n", fast ? " --fast" : "",
		line, fast ? " (fast subset)" : "");
	/* per side-by-side label (the kernel variants): their own counts */
	const char *labels[16];
	int nl = 0;
	for (int v = 0; v < nf; v++)
		for (int c = 0; vfs[v].sbs_key && c < vfs[v].ncols; c++) {
			bool seen = false;
			for (int i = 0; i < nl; i++)
				seen |= vfs[v].col_label[c] && !strcmp(labels[i], vfs[v].col_label[c]);
			if (!seen && vfs[v].col_label[c] && nl < 16)
				labels[nl++] = vfs[v].col_label[c];
		}
	for (int i = 0; i < nl; i++) {
		struct val_counts c;
		val_count(ks, n, labels[i], &c);
		/* only the kinds the side-by-side files have */
		int o = snprintf(line, sizeof(line), "%d of %d predictions within tolerance (%d of %d only by "
				 "direction)", c.pass[VK_PREDICTION], c.run[VK_PREDICTION], c.sign_pass,
				 c.sign_only);
		if (c.run[VK_CALIBRATION] && o > 0 && (size_t)o < sizeof(line))
			o += snprintf(line + o, sizeof(line) - (size_t)o, "; %d calibration points (%d within)",
				      c.run[VK_CALIBRATION], c.pass[VK_CALIBRATION]);
		if (c.run[VK_FIT] && o > 0 && (size_t)o < sizeof(line))
			snprintf(line + o, sizeof(line) - (size_t)o, "; %d fits (%d within)", c.run[VK_FIT],
				 c.pass[VK_FIT]);
		fprintf(f, "%s- %s: %s.\n", i ? "" : "Side by side, over the files that compare them:\n\n",
			labels[i], line);
	}
	if (nl)
		fputc('\n', f);
	for (int kind = 0; kind < VK_N; kind++) {
		bool any = false;
		for (int i = 0; i < n; i++)
			any |= ks[i].kind == (enum vkind)kind && ks[i].res[0].evaluated;
		if (!any)
			continue;
		fprintf(f, "### %s\n\n", kind_heading[kind]);
		for (int v = 0; v < nf; v++) {
			const struct vfile *vf = &vfs[v];
			bool has = false;
			for (int i = 0; i < n; i++)
				has |= ks[i].vf == vf && ks[i].kind == (enum vkind)kind && ks[i].res[0].evaluated;
			if (!has)
				continue;
			md_file_heading(f, vf);
			md_table_head(f, vf, (enum vkind)kind);
			for (int i = 0; i < n; i++)
				if (ks[i].vf == vf && ks[i].kind == (enum vkind)kind && ks[i].res[0].evaluated)
					md_row(f, &ks[i]);
			fputc('\n', f);
		}
	}
	fprintf(f, "%s\n", VAL_DOC_END);
	fclose(f);
	return buf;
}

/* What path becomes with gen between its markers (a new file: a heading
 * and gen); *out is the caller's to free. */
static int doc_text(const char *path, const char *gen, char **outp, size_t *outlenp,
		    struct sim_error *err)
{
	FILE *f = fopen(path, "r");
	char *old = NULL;
	size_t olen = 0;
	if (f) {
		FILE *m = open_memstream(&old, &olen);
		char b[65536];
		size_t r;
		while (m && (r = fread(b, 1, sizeof(b), f)) > 0)
			fwrite(b, 1, r, m);
		if (m)
			fclose(m);
		fclose(f);
	}
	char *out = NULL;
	size_t outlen = 0;
	FILE *o = open_memstream(&out, &outlen);
	if (!o) {
		free(old);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	char *b = old ? strstr(old, VAL_DOC_BEGIN) : NULL;
	char *e = b ? strstr(b, VAL_DOC_END) : NULL;
	if (old && (!b || !e)) {
		fclose(o);
		free(out);
		free(old);
		return sim_errorf(err, SIM_E_INPUT, "%s: has no '%s' ... '%s' markers; add them where the "
				  "table goes", path, VAL_DOC_BEGIN, VAL_DOC_END);
	}
	if (!old) {
		fputs("# Validation: the model against published numbers\n\n", o);
		fputs(gen, o);
	} else {
		fwrite(old, 1, (size_t)(b - old), o);
		fputs(gen, o);
		const char *rest = e + strlen(VAL_DOC_END);
		if (*rest == '\n')
			rest++;
		fputs(rest, o);
	}
	fclose(o);
	free(old);
	*outp = out;
	*outlenp = outlen;
	return 0;
}

static char *tsv_text(const struct vcheck *ks, int n, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fputs("file\tcheck\tunit\tpaper\tmodel\tci95\terror_rel\ttolerance\tresult\tkind\tcolumn\tworkloads\n", f);
	for (int i = 0; i < n; i++) {
		const struct vcheck *k = &ks[i];
		char t[48];
		fmt_tol(t, sizeof(t), k);
		for (int c = 0; c < k->vf->ncols; c++) {
			const struct vresult *r = &k->res[c];
			double er = k->paper != 0 ? (r->model - k->paper) / fabs(k->paper) : NAN;
			const char *res = !r->evaluated ? "not_run" : k->kind == VK_REPORT ? "reported"
								  : r->pass ? "pass" : "miss";
			fprintf(f, "%s\t%s\t%s\t%.12g\t%.12g\t%.12g\t%.6g\t%s\t%s\t%s\t%s\t%d\n", k->vf->name,
				k->name, *k->unit ? k->unit : "-", k->paper, r->model, r->ci, er, t, res,
				vkind_names[k->kind], k->vf->col_val[c] ? k->vf->col_val[c] : "-", r->nindep);
		}
	}
	fclose(f);
	*lenp = len;
	return buf;
}

/* One text into an open output; the output is aborted on failure. */
static int out_text(const char *path, const char *text, size_t len, struct results_out **o,
		    struct sim_error *err)
{
	int rc = results_out_open(path, o, err);
	if (rc)
		return rc;
	if (len && fwrite(text, 1, len, results_out_file(*o)) != len) {
		int e = errno;
		results_out_abort(*o);
		*o = NULL;
		return sim_errorf(err, SIM_E_IO, "%s: write failed: %s", path, strerror(e));
	}
	if ((rc = results_out_ready(*o, err))) {
		results_out_abort(*o);
		*o = NULL;
	}
	return rc;
}

int val_write_outputs(const char *doc, const char *gen, const char *tsv, const struct vcheck *ks,
		      int n, struct sim_error *err)
{
	char *dtext = NULL, *ttext = NULL;
	size_t dlen = 0, tlen = 0;
	struct results_out *od = NULL, *ot = NULL;
	int rc = 0;
	if (doc && (rc = doc_text(doc, gen, &dtext, &dlen, err)))
		return rc;
	if (tsv && !(ttext = tsv_text(ks, n, &tlen))) {
		free(dtext);
		return sim_errorf(err, SIM_E_NOMEM, "out of memory");
	}
	/* both written and flushed before either is put in place; the TSV
	 * first, as it is removed again if the document cannot be replaced
	 * (the document, often the repository's own, never is) */
	if (doc)
		rc = out_text(doc, dtext, dlen, &od, err);
	if (!rc && tsv)
		rc = out_text(tsv, ttext, tlen, &ot, err);
	if (!rc && ot) {
		rc = results_out_commit(ot, err);
		ot = NULL;
		if (!rc && od) {
			rc = results_out_commit(od, err);
			od = NULL;
			if (rc && !results_same_output(doc, tsv))
				unlink(tsv);
		}
	} else if (!rc && od) {
		rc = results_out_commit(od, err);
		od = NULL;
	}
	results_out_abort(od);
	results_out_abort(ot);
	free(dtext);
	free(ttext);
	return rc;
}
