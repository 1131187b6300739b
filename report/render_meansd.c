/* The meansd style: a grid table of statistic +- sd and delta%. */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "report/render.h"

/* Returns the grid column of kernel col: kernels first, then deltas. */
static size_t
render_meansd_delta_col(const struct compare_table *t, size_t col)
{
	return t->ncolumns + col;
}

/* Fills the header row: case label, "kernel (unit)", then delta%. */
static void
render_meansd_head(const struct compare_table *t, struct render_grid *g,
    char *align)
{
	size_t j, k;

	render_grid_take(g, 0, 0, xstrdup(t->case_label));
	align[0] = 'r';
	for (j = 0; j < t->ncolumns; j++) {
		render_grid_take(g, 0, j + 1, render_kernel_header(t, j));
		align[j + 1] = 'l';
		if (j == 0)
			continue;
		k = render_meansd_delta_col(t, j);
		render_grid_take(g, 0, k,
		    t->ncolumns == 2 ? xstrdup("delta% ")
				     : xasprintf("delta%% %s ", t->columns[j]));
		align[k] = 'r';
	}
}

/* Returns the widest formatted statistic of a column. */
static size_t
render_meansd_width(const struct compare_table *t, size_t col, int d)
{
	size_t i, w = 0, len;
	char  *s;

	for (i = 0; i < t->nrows; i++) {
		s = render_number(t->rows[i].cells[col].value, d, 0, "");
		len = strlen(s);
		w = len > w ? len : w;
		free(s);
	}
	return w;
}

/* Returns "4384.728 ± 21.085" with the statistic right-aligned to w. */
static char *
render_meansd_cell(const struct compare_cell *c, int d, size_t w)
{
	char *v, *sd, *s;

	if (c->n == 0)
		return xstrdup("-");
	v = render_number(c->value, d, 0, "");
	sd = render_number(c->sum.sd, d, 0, "");
	s = xasprintf("%*s \xc2\xb1 %s", (int)w, v, sd);
	free(v);
	free(sd);
	return s;
}

/* Returns delta% of a cell, "-12.35", and its mark. */
static char *
render_meansd_delta(const struct compare_cell *c)
{
	char *num, *s;

	if (c->n == 0)
		return xstrdup("- ");
	num = render_number(c->delta, 2, 0, "");
	s = xasprintf("%s%c", num, c->mark);
	free(num);
	return s;
}

/* Fills one case's row. */
static void
render_meansd_row(const struct compare_table *t, size_t i,
    struct render_grid *g, int d, const size_t *w)
{
	const struct compare_cell *c;
	size_t			   j;

	render_grid_take(g, i + 1, 0, xstrdup(t->rows[i].name));
	for (j = 0; j < t->ncolumns; j++) {
		c = &t->rows[i].cells[j];
		render_grid_take(g, i + 1, j + 1,
		    render_meansd_cell(c, d, w[j]));
		if (j > 0)
			render_grid_take(g, i + 1,
			    render_meansd_delta_col(t, j),
			    render_meansd_delta(c));
	}
}

/* Prints the table in the meansd style. */
int
render_meansd_print(const struct compare_table *t, FILE *fp, char **cause)
{
	struct render_grid *g;
	char		   *align, *title, *legend;
	size_t		    i, j, ncols, *w;
	int		    d;

	d = compare_table_decimals(t);
	title = render_title(t);
	fprintf(fp, "%s\n", title);
	free(title);
	ncols = t->ncolumns ? 2 * t->ncolumns : 1;
	g = render_grid_new(t->nrows + 1, ncols);
	align = xcalloc(ncols + 1, 1);
	w = xcalloc(t->ncolumns + 1, sizeof *w);
	for (j = 0; j < t->ncolumns; j++)
		w[j] = render_meansd_width(t, j, d);
	render_meansd_head(t, g, align);
	for (i = 0; i < t->nrows; i++)
		render_meansd_row(t, i, g, d, w);
	render_grid_print_boxed(g, fp, align);
	render_grid_free(g);
	free(align);
	free(w);
	fputc('\n', fp);
	legend = xasprintf("cells are %s \xc2\xb1 sd; delta%% is the raw "
			   "change of the %s against the base: negative is a "
			   "smaller number, whatever is better",
	    compare_stat_name(t->stat), compare_stat_name(t->stat));
	render_footer(t, fp, "", legend);
	free(legend);
	return render_finish(fp, cause);
}
