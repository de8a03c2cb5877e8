/* gnuplot for the commands (sim/cli/plot.h): finding and running it, the
 * terminal lines every generated script starts with, and the latency CDF
 * figure of `compare --plot` and `sweep --plot`.
 *
 * The CDF points are the latency histograms' bucket edges
 * (stats_dist_cdf): the fraction of operations at or below each edge is
 * exact, and the edges are exact below 256 ns and at most 1/128 (0.78 %)
 * of the latency apart above, so a curve is drawn at that resolution from
 * what the run keeps anyway, not from buffered samples.
 */
#define _GNU_SOURCE
#include "sim/cli/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/results.h"
#include "sim/stats.h"

/* ---------------------------------------------------------- gnuplot */

bool cli_gnuplot_found(void)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char buf[4200];
	for (const char *p = path; *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0)
			snprintf(buf, sizeof(buf), "gnuplot");
		else
			snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)n, p);
		struct stat st;
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return true;
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}

void cli_gnuplot_terminal(FILE *f, int width, int height)
{
	fprintf(f,
		"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size %d,%d noenhanced } \\\n"
		"else { set terminal png size %d,%d noenhanced }\n",
		width, height, width, height);
}

int cli_gnuplot_run(const char *dir, const char *expr, const char *script, int errfd)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		if (errfd >= 0)
			dup2(errfd, STDERR_FILENO);
		if (dir && chdir(dir) != 0)
			_exit(126);
		if (expr)
			execlp("gnuplot", "gnuplot", "-e", expr, script, (char *)NULL);
		else
			execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ----------------------------------------------------------- series */

void cli_cdf_series_init(struct cli_cdf_series *s, const char *label)
{
	snprintf(s->label, sizeof(s->label), "%s", label);
	for (int c = 0; c < SIM_NCLASS; c++)
		for (int o = 0; o < SIM_NOP; o++)
			stats_dist_init(&s->lat[c][o]);
}

void cli_cdf_series_free(struct cli_cdf_series *s)
{
	for (int c = 0; c < SIM_NCLASS; c++)
		for (int o = 0; o < SIM_NOP; o++)
			stats_dist_free(&s->lat[c][o]);
}

int cli_cdf_series_add(struct cli_cdf_series *s, const struct sim_metrics *m)
{
	for (int c = 0; c < SIM_NCLASS; c++)
		for (int o = 0; o < SIM_NOP; o++)
			if (stats_dist_merge(&s->lat[c][o], &m->cls[c].op[o].lat))
				return SIM_E_NOMEM;
	return 0;
}

/* ----------------------------------------------------------- figure */

/* s in a gnuplot single-quoted string: ' doubled, newlines dropped */
static void gp_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if (*s != '\n' && *s != '\r')
			fputc(*s, f);
	}
	fputc('\'', f);
}

static char *gp_quote_str(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	gp_quoted(f, s);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The data: per panel (class, op) that any series measured, per series
 * with samples, one block of rows latency_ns, latency_ms, count, cdf.
 * Fills blk[panel][series] with the block's gnuplot index, -1 for none. */
static int write_data(FILE *f, const struct cli_cdf_series *ser, size_t n, int (*panels)[2],
		      int npanels, int *blk)
{
	fprintf(f, "# Latency CDFs (mobisim): one block per panel and curve, separated by two blank\n"
		   "# lines (gnuplot's index). cdf is the exact fraction of the operations at or below\n"
		   "# latency_ns, a histogram bucket edge (exact below 256 ns, within 0.78 %% above);\n"
		   "# each block's first row, at one below the least latency, is 0.\n");
	int64_t *x = NULL;
	uint64_t *cum = NULL;
	int idx = 0, rc = 0;
	for (int p = 0; p < npanels && !rc; p++) {
		int c = panels[p][0], o = panels[p][1];
		for (size_t k = 0; k < n; k++) {
			const struct stats_dist *d = &ser[k].lat[c][o];
			blk[p * (int)n + (int)k] = -1;
			if (d->n == 0)
				continue;
			size_t np = stats_dist_cdf(d, NULL, NULL, 0);
			int64_t *nx = realloc(x, np * sizeof(*x));
			if (nx)
				x = nx;
			uint64_t *nc = nx ? realloc(cum, np * sizeof(*cum)) : NULL;
			if (nc)
				cum = nc;
			if (!nx || !nc) {
				rc = SIM_E_NOMEM;
				break;
			}
			stats_dist_cdf(d, x, cum, np);
			fprintf(f, "%s# index %d: %s %s, %s, n=%llu\n# latency_ns\tlatency_ms\tcount\tcdf\n",
				idx ? "\n\n" : "", idx, sim_class_names[c], sim_op_names[o], ser[k].label,
				(unsigned long long)d->n);
			/* no operation took less than min: the CDF is exactly 0 just below it */
			if (d->min > 0)
				fprintf(f, "%lld\t%.9g\t0\t0\n", (long long)d->min - 1,
					(double)(d->min - 1) / 1e6);
			for (size_t i = 0; i < np; i++)
				fprintf(f, "%lld\t%.9g\t%llu\t%.9g\n", (long long)x[i], (double)x[i] / 1e6,
					(unsigned long long)cum[i],
					cum[i] == d->n ? 1.0 : (double)cum[i] / (double)d->n);
			blk[p * (int)n + (int)k] = idx++;
		}
	}
	free(x);
	free(cum);
	return rc;
}

static void write_script(FILE *f, const char *title, const char *tsv, const char *gp, const char *png,
			 const struct cli_cdf_series *ser, size_t n, int (*panels)[2], int npanels,
			 const int *blk)
{
	int cols = npanels > 1 ? 2 : 1, rows = (npanels + cols - 1) / cols;
	fprintf(f, "# Latency CDFs drawn by mobisim; `gnuplot %s` in this directory redraws %s.\n"
		   "# The data (%s) has one block per panel and curve, as the index comments say;\n"
		   "# restyle freely. -e \"data='...'; out='...'\" picks other files.\n",
		base_name(gp), base_name(png), base_name(tsv));
	fprintf(f, "if (!exists(\"data\")) data = ");
	gp_quoted(f, base_name(tsv));
	fprintf(f, "\nif (!exists(\"out\")) out = ");
	gp_quoted(f, base_name(png));
	fprintf(f, "\n");
	/* wide enough for the title (about 9 px a character at 11 pt) */
	int width = cols == 1 ? 700 : 1200, need = 9 * (int)strlen(title) + 40;
	width = need > width ? (need < 2400 ? need : 2400) : width;
	cli_gnuplot_terminal(f, width, 80 + 380 * rows);
	fprintf(f, "set output out\n"
		   "set datafile separator '\\t'\n"
		   "set datafile commentschars '#'\n"
		   "set logscale x\n"
		   "set format x '%%g'\n"
		   "set xlabel 'latency (ms, log scale; 0 drawn at 1 ns)'\n"
		   "set ylabel 'fraction of operations <= latency'\n"
		   "set yrange [0:1.02]\n"
		   "set grid xtics ytics mxtics lc rgb '#dddddd'\n"
		   "set key bottom right\n"
		   "set multiplot layout %d,%d title ",
		rows, cols);
	gp_quoted(f, title);
	fprintf(f, "\n");
	for (int p = 0; p < npanels; p++) {
		int c = panels[p][0], o = panels[p][1];
		fprintf(f, "set title '%s %s'\nplot ", sim_class_names[c], sim_op_names[o]);
		bool first = true;
		for (size_t k = 0; k < n; k++) {
			int b = blk[p * (int)n + (int)k];
			if (b < 0)
				continue;
			char t[320];
			snprintf(t, sizeof(t), "%s (n=%llu)", ser[k].label,
				 (unsigned long long)ser[k].lat[c][o].n);
			fprintf(f, "%sdata index %d using ($2 > 0 ? $2 : 1e-6):4 with steps lw 2 "
				   "lc %zu dt %zu title ",
				first ? "" : ", \\\n     ", b, k + 1, k % 5 + 1);
			gp_quoted(f, t);
			first = false;
		}
		fprintf(f, "\n");
	}
	fprintf(f, "unset multiplot\n");
}

static char *with_suffix(const char *png, const char *suffix)
{
	size_t n = strlen(png);
	if (n > 4 && strcmp(png + n - 4, ".png") == 0)
		n -= 4;
	char *s = malloc(n + strlen(suffix) + 1);
	if (s)
		sprintf(s, "%.*s%s", (int)n, png, suffix);
	return s;
}

/* The last non-empty line of what f holds (gnuplot's error), into buf. */
static void last_line(FILE *f, char *buf, size_t len)
{
	char line[512];
	buf[0] = '\0';
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[strspn(line, " \t")])
			snprintf(buf, len, "%s", line + strspn(line, " \t"));
	}
}

int cli_plot_latency_cdf(const char *png, const char *title, const struct cli_cdf_series *ser,
			 size_t n, struct sim_error *err)
{
	int panels[SIM_NCLASS * SIM_NOP][2], npanels = 0;
	static const enum sim_op order[] = { SIM_OP_READ, SIM_OP_WRITE, SIM_OP_FSYNC, SIM_OP_FAULT };
	for (int c = 0; c < SIM_NCLASS; c++)
		for (int i = 0; i < SIM_NOP; i++) {
			bool any = false;
			for (size_t k = 0; k < n; k++)
				any |= ser[k].lat[c][order[i]].n > 0;
			if (any) {
				panels[npanels][0] = c;
				panels[npanels++][1] = (int)order[i];
			}
		}
	if (strcmp(png, "-") == 0)
		return sim_errorf(err, SIM_E_INPUT, "--plot: give a file name (FILE.png), not -");
	if (npanels == 0)
		return sim_errorf(err, SIM_E_RUNTIME, "--plot %s: no operation latency was measured "
				  "(no read, write, fsync or fault in any run): nothing to draw", png);
	char *tsv = with_suffix(png, ".tsv"), *gp = with_suffix(png, ".gp");
	int *blk = calloc((size_t)npanels * (n ? n : 1), sizeof(int));
	struct results_out *ot = NULL, *og = NULL, *op = NULL;
	FILE *log = NULL;
	char *expr = NULL, *qd = NULL, *qo = NULL;
	int rc = 0;
	if (!tsv || !gp || !blk) {
		rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
		goto fail;
	}
	if (!rc)
		rc = results_out_open(png, &op, err);
	if (!rc)
		rc = results_out_open(tsv, &ot, err);
	if (!rc)
		rc = results_out_open(gp, &og, err);
	if (rc)
		goto fail;
	if (results_out_is_direct(op) || results_out_is_direct(ot) || results_out_is_direct(og)) {
		rc = sim_errorf(err, SIM_E_INPUT, "--plot %s: the figure, %s and %s must be regular "
				"files (gnuplot writes the PNG, the script reads the data)", png, tsv, gp);
		goto fail;
	}
	if ((rc = write_data(results_out_file(ot), ser, n, panels, npanels, blk))) {
		sim_errorf(err, rc, "out of memory");
		goto fail;
	}
	write_script(results_out_file(og), title, tsv, gp, png, ser, n, panels, npanels, blk);
	if (fflush(results_out_file(ot)) || fflush(results_out_file(og))) {
		rc = sim_errorf(err, SIM_E_IO, "%s: write failed: %s", tsv, strerror(errno));
		goto fail;
	}
	if (!cli_gnuplot_found()) {
		results_out_abort(op);
		op = NULL;
		rc = results_out_commit(ot, err);
		ot = NULL;
		if (!rc)
			rc = results_out_commit(og, err);
		og = NULL;
		if (!rc)
			rc = sim_errorf(err, SIM_E_RUNTIME, "--plot: gnuplot not found, %s not drawn; the "
					"data is in %s and the script in %s (install gnuplot-nox, then run "
					"`gnuplot %s` in that directory)", png, tsv, gp, base_name(gp));
		goto done;
	}
	qd = gp_quote_str(results_out_tmp_path(ot));
	qo = gp_quote_str(results_out_tmp_path(op));
	log = tmpfile();
	if (!qd || !qo || !log || asprintf(&expr, "data=%s; out=%s", qd, qo) < 0) {
		expr = NULL;
		rc = sim_errorf(err, SIM_E_NOMEM, "out of memory");
		goto fail;
	}
	int st = cli_gnuplot_run(NULL, expr, results_out_tmp_path(og), fileno(log));
	struct stat sb;
	if (st != 0 || stat(results_out_tmp_path(op), &sb) != 0 || sb.st_size == 0) {
		char why[400], status[64];
		last_line(log, why, sizeof(why));
		if (st < 0)
			snprintf(status, sizeof(status), "could not run it");
		else if (st)
			snprintf(status, sizeof(status), "exit status %d", st);
		else
			snprintf(status, sizeof(status), "no figure written");
		rc = sim_errorf(err, SIM_E_RUNTIME, "--plot %s: gnuplot failed (%s)%s%s; nothing written",
				png, status, why[0] ? ": " : "", why);
		goto fail;
	}
	rc = results_out_commit(ot, err);
	ot = NULL;
	if (!rc) {
		rc = results_out_commit(og, err);
		og = NULL;
	}
	if (!rc) {
		rc = results_out_commit(op, err);
		op = NULL;
	}
	if (rc) /* a later rename failed: take the earlier ones back */
		goto fail_committed;
	goto done;
fail_committed:
	unlink(tsv);
	unlink(gp);
fail:
	results_out_abort(ot);
	results_out_abort(og);
	results_out_abort(op);
	ot = og = op = NULL;
done:
	if (log)
		fclose(log);
	free(expr);
	free(qd);
	free(qo);
	free(blk);
	free(tsv);
	free(gp);
	return rc;
}
