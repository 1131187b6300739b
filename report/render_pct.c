/* The pct style: base, each patch and its pct improvement. */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "report/render.h"

/* Returns the pct improvement of a cell, "+11.5%", and its mark. */
static char *
render_pct_imp(const struct compare_cell *c)
{
	char *num, *s;

	if (c->n == 0)
		return xstrdup("-");
	num = render_number(c->pct_imp, 1, 1, "%");
	s = xasprintf("%s%c", num, c->mark);
	free(num);
	return s;
}

/* Returns the grid column of kernel col: base, then value/pct pairs. */
static size_t
render_pct_col(size_t col)
{
	return col == 0 ? 1 : 2 * col;
}

/* Fills the header row: case label, base, then kernel and pct. */
static void
render_pct_head(const struct compare_table *t, struct render_grid *g,
    char *align)
{
	size_t j, k;

	render_grid_take(g, 0, 0, xstrdup(t->case_label));
	align[0] = 'l';
	for (j = 0; j < t->ncolumns; j++) {
		k = render_pct_col(j);
		render_grid_take(g, 0, k, xstrdup(t->columns[j]));
		align[k] = 'r';
		if (j == 0)
			continue;
		render_grid_take(g, 0, k + 1, xstrdup("pct "));
		align[k + 1] = 'r';
	}
}

/* Fills one case's row. */
static void
render_pct_row(const struct compare_table *t, size_t i, struct render_grid *g,
    int d)
{
	const struct compare_cell *c;
	size_t			   j, k;

	render_grid_take(g, i + 1, 0, xstrdup(t->rows[i].name));
	for (j = 0; j < t->ncolumns; j++) {
		c = &t->rows[i].cells[j];
		k = render_pct_col(j);
		render_grid_take(g, i + 1, k,
		    c->n == 0 ? xstrdup("-")
			      : render_number(c->value, d, 0, ""));
		if (j > 0)
			render_grid_take(g, i + 1, k + 1, render_pct_imp(c));
	}
}

/* Prints the table in the pct style under a "title:" line. */
int
render_pct_print(const struct compare_table *t, FILE *fp, char **cause)
{
	struct render_grid *g;
	char		   *align, *title;
	size_t		    i, ncols;
	int		    d;

	d = compare_table_decimals(t);
	ncols = t->ncolumns ? 2 * t->ncolumns : 1;
	g = render_grid_new(t->nrows + 1, ncols);
	align = xcalloc(ncols + 1, 1);
	render_pct_head(t, g, align);
	for (i = 0; i < t->nrows; i++)
		render_pct_row(t, i, g, d);
	title = render_title(t);
	fprintf(fp, "%s\n", title);
	free(title);
	render_grid_print(g, fp, " ", align);
	render_grid_free(g);
	free(align);
	fputc('\n', fp);
	render_footer(t, fp, "",
	    t->dir == COMPARE_DIR_UNKNOWN
		? "pct is n/a without a direction"
		: "pct is the improvement against the base: positive is "
		  "better");
	return render_finish(fp, cause);
}
