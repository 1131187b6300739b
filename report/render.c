/* The table of renderers and the layout helpers they share. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "report/render.h"

const struct render_style render_styles[] = {
	{ "amd", "normalised [pct imp](CV) per kernel, AMD style",
	    render_amd_print },
	{ "change", "statistic per kernel and the raw change of the last",
	    render_change_print },
	{ "pct", "base, patch and pct improvement", render_pct_print },
	{ "meansd", "statistic +- sd per kernel and delta%",
	    render_meansd_print },
	{ "markdown", "Markdown table", render_markdown_print },
	{ "csv", "one line per case and kernel", render_csv_print },
	{ "json", "every number, as JSON", render_json_print },
	{ NULL, NULL, NULL }
};

/* Returns the style of that name, or NULL. */
const struct render_style *
render_find(const char *name)
{
	const struct render_style *s;

	for (s = render_styles; s->name != NULL; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

/* Computes the table if needed and prints it in the named style. */
int
render_print(struct compare_table *t, const char *style, FILE *fp, char **cause)
{
	const struct render_style *s;

	if ((s = render_find(style)) == NULL) {
		*cause = xasprintf("style \"%s\": unknown", style);
		return -1;
	}
	if (!t->computed)
		compare_table_compute(t);
	return s->print(t, fp, cause);
}

/* Returns a grid of empty strings. */
struct render_grid *
render_grid_new(size_t nrows, size_t ncols)
{
	struct render_grid *g;
	size_t		    i;

	g = xcalloc(1, sizeof *g);
	g->nrows = nrows;
	g->ncols = ncols;
	g->cells = xcalloc(nrows * ncols + 1, sizeof *g->cells);
	for (i = 0; i < nrows * ncols; i++)
		g->cells[i] = xstrdup("");
	return g;
}

/* Frees a grid; accepts NULL. */
void
render_grid_free(struct render_grid *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->nrows * g->ncols; i++)
		free(g->cells[i]);
	free(g->cells);
	free(g);
}

/* Stores s, which the grid now owns, at row r and column c. */
void
render_grid_take(struct render_grid *g, size_t r, size_t c, char *s)
{
	free(g->cells[r * g->ncols + c]);
	g->cells[r * g->ncols + c] = s;
}

/* Returns the width of a UTF-8 string in characters. */
size_t
render_width(const char *s)
{
	size_t w = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Prints one line without its trailing blanks. */
void
render_line(FILE *fp, const char *s)
{
	size_t len = strlen(s);

	while (len > 0 && s[len - 1] == ' ')
		len--;
	fwrite(s, 1, len, fp);
	fputc('\n', fp);
}

/* Returns the width of each column; the caller frees it. */
static size_t *
render_grid_widths(const struct render_grid *g)
{
	size_t *w, r, c, cw;

	w = xcalloc(g->ncols + 1, sizeof *w);
	for (r = 0; r < g->nrows; r++)
		for (c = 0; c < g->ncols; c++) {
			cw = render_width(g->cells[r * g->ncols + c]);
			if (cw > w[c])
				w[c] = cw;
		}
	return w;
}

/* Appends s padded to width w, left or right aligned, to line. */
static void
render_pad(char **line, const char *s, size_t w, char align)
{
	size_t pad = w - render_width(s);
	char  *old = *line;

	if (align == 'r')
		*line = xasprintf("%s%*s%s", old, (int)pad, "", s);
	else
		*line = xasprintf("%s%s%*s", old, s, (int)pad, "");
	free(old);
}

/* Appends a literal to line. */
static void
render_append(char **line, const char *s)
{
	char *old = *line;

	*line = xasprintf("%s%s", old, s);
	free(old);
}

/* Prints a grid in columns joined by sep; align has 'l' or 'r' per column. */
void
render_grid_print(const struct render_grid *g, FILE *fp, const char *sep,
    const char *align)
{
	size_t *w, r, c;
	char   *line;

	w = render_grid_widths(g);
	for (r = 0; r < g->nrows; r++) {
		line = xstrdup("");
		for (c = 0; c < g->ncols; c++) {
			if (c > 0)
				render_append(&line, sep);
			render_pad(&line, g->cells[r * g->ncols + c], w[c],
			    align[c]);
		}
		render_line(fp, line);
		free(line);
	}
	free(w);
}

/* Prints a +---+ rule of the grid's widths, with fill '-' or '='. */
static void
render_grid_rule(const size_t *w, size_t ncols, FILE *fp, char fill)
{
	size_t c, i;

	for (c = 0; c < ncols; c++) {
		fputc('+', fp);
		for (i = 0; i < w[c] + 2; i++)
			fputc(fill, fp);
	}
	fputs("+\n", fp);
}

/* Prints a grid boxed as a grid table, the first row as the header. */
void
render_grid_print_boxed(const struct render_grid *g, FILE *fp,
    const char *align)
{
	size_t *w, r, c;
	char   *line;

	w = render_grid_widths(g);
	render_grid_rule(w, g->ncols, fp, '-');
	for (r = 0; r < g->nrows; r++) {
		line = xstrdup("|");
		for (c = 0; c < g->ncols; c++) {
			render_append(&line, " ");
			render_pad(&line, g->cells[r * g->ncols + c], w[c],
			    align[c]);
			render_append(&line, " |");
		}
		fprintf(fp, "%s\n", line);
		free(line);
		if (r == 0)
			render_grid_rule(w, g->ncols, fp, '=');
	}
	render_grid_rule(w, g->ncols, fp, '-');
	free(w);
}

/*
 * Formats v with the given decimals, a '+' on positive values if plus,
 * and a suffix. A value that prints as zero prints without a sign; NAN
 * prints as "n/a".
 */
char *
render_number(double v, int decimals, int plus, const char *suffix)
{
	char *s, *out;

	if (isnan(v))
		return xstrdup("n/a");
	s = xasprintf(plus ? "%+.*f" : "%.*f", decimals, v);
	if (strspn(s, "+-0.") == strlen(s)) {
		free(s);
		s = xasprintf("%.*f", decimals, 0.0);
	}
	out = xasprintf("%s%s", s, suffix);
	free(s);
	return out;
}

/* Which way is better, as the tables say it. */
const char *
render_better(const struct compare_table *t)
{
	switch (t->dir) {
	case COMPARE_LOWER_BETTER:
		return "lower is better";
	case COMPARE_HIGHER_BETTER:
		return "higher is better";
	default:
		return "direction unknown (the job does not declare it)";
	}
}

/*
 * What a table is: "hackbench: time (s), lower is better, AMean" and the
 * machine when the table has one of several.
 */
char *
render_title(const struct compare_table *t)
{
	return xasprintf("%s: %s%s%s%s, %s, %s%s%s", t->title, t->metric,
	    t->unit ? " (" : "", t->unit ? t->unit : "", t->unit ? ")" : "",
	    render_better(t), compare_stat_name(t->stat),
	    t->machine ? ", machine " : "", t->machine ? t->machine : "");
}

/* A p-value as printed: "p=0.0123", "p<0.001". */
char *
render_p(double p)
{
	if (isnan(p))
		return xstrdup("p=n/a");
	if (p < 0.001)
		return xstrdup("p<0.001");
	return xasprintf("p=%.4f", p);
}

/* Returns a column header, the kernel with the unit: "base (ms)". */
char *
render_kernel_header(const struct compare_table *t, size_t col)
{
	if (t->unit == NULL)
		return xstrdup(t->columns[col]);
	return xasprintf("%s (%s)", t->columns[col], t->unit);
}

/*
 * Returns the n of each cell, or their range per kernel (empty cells left
 * out) when they differ.
 */
char *
render_n_summary(const struct compare_table *t)
{
	size_t i, j, n, lo, hi, all_lo = SIZE_MAX, all_hi = 0;
	char  *s, *old, *part;

	s = xstrdup("n per cell:");
	for (j = 0; j < t->ncolumns; j++) {
		lo = SIZE_MAX;
		hi = 0;
		for (i = 0; i < t->nrows; i++) {
			if ((n = t->rows[i].cells[j].n) == 0)
				continue;
			lo = n < lo ? n : lo;
			hi = n > hi ? n : hi;
		}
		if (hi == 0)
			lo = 0;
		all_lo = lo < all_lo ? lo : all_lo;
		all_hi = hi > all_hi ? hi : all_hi;
		part = lo == hi ? xasprintf("%zu", lo)
				: xasprintf("%zu-%zu", lo, hi);
		old = s;
		s = xasprintf("%s%s %s %s", old, j ? "," : "", t->columns[j],
		    part);
		free(old);
		free(part);
	}
	if (all_lo != all_hi || t->nrows == 0)
		return s;
	free(s);
	return xasprintf("n=%zu per cell", all_lo);
}

/* Prints the per-boot tests, one line per cell that has one. */
static void
render_boot_lines(const struct compare_table *t, FILE *fp, const char *pre)
{
	const struct compare_cell *c;
	size_t			   i, j;

	for (i = 0; i < t->nrows; i++)
		for (j = 1; j < t->ncolumns; j++) {
			c = &t->rows[i].cells[j];
			if (!c->boot_test.done)
				continue;
			fprintf(fp,
			    "%sper-boot means: %s %s p=%.4g (%zu vs "
			    "%zu boots)%s\n",
			    pre, t->columns[j], t->rows[i].name, c->boot_test.p,
			    t->rows[i].cells[0].nboots, c->nboots,
			    c->boot_test.p < STATS_ALPHA ? " *" : "");
		}
}

/*
 * Prints which machines each column's samples come from, when a column is
 * not itself a machine and the table is not of one machine.
 */
static void
render_machines_line(const struct compare_table *t, FILE *fp, const char *pre)
{
	size_t j, differ = 0;

	if (!t->show_machines || t->machine != NULL)
		return;
	for (j = 0; j < t->ncolumns; j++)
		differ += t->machines[j] != NULL &&
		    strcmp(t->machines[j], t->columns[j]) != 0;
	if (differ == 0)
		return;
	fprintf(fp, "%smachines:", pre);
	for (j = 0; j < t->ncolumns; j++)
		fprintf(fp, "%s %s on %s", j ? ";" : "", t->columns[j],
		    t->machines[j] ? t->machines[j] : "?");
	fputc('\n', fp);
}

/*
 * Prints what stands under every table: samples per cell, the meaning of
 * the marks, the style's signs (legend, or NULL), the machines of the
 * columns, per-boot tests, too-small-n warnings and environment notes;
 * each line starts with pre.
 */
void
render_footer(const struct compare_table *t, FILE *fp, const char *pre,
    const char *legend)
{
	char  *n;
	size_t i;

	n = render_n_summary(t);
	fprintf(fp, "%s%s; * p < %.2f, ~ not significant (%s, two-sided)\n",
	    pre, n, STATS_ALPHA, stats_test_name(t->test));
	free(n);
	if (legend != NULL)
		fprintf(fp, "%ssigns: %s\n", pre, legend);
	render_machines_line(t, fp, pre);
	render_boot_lines(t, fp, pre);
	for (i = 0; i < t->nwarnings; i++)
		fprintf(fp, "%swarning: %s\n", pre, t->warnings[i]);
	for (i = 0; i < t->nnotes; i++)
		fprintf(fp, "%snote: %s\n", pre, t->notes[i]);
}

/* Checks that everything reached the stream. */
int
render_finish(FILE *fp, char **cause)
{
	if (fflush(fp) == 0 && !ferror(fp))
		return 0;
	*cause = xasprintf("write table: %s", strerror(errno));
	return -1;
}
