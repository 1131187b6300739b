/* The change style: the statistic per kernel, then the last one's change. */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "report/render.h"

/* Returns the raw change of a cell against base, "-91%", and its mark. */
static char *
render_change_delta(const struct compare_cell *c)
{
	char *num, *s;

	if (c->n == 0)
		return xstrdup("-");
	num = render_number(c->delta, 0, 0, "%");
	s = xasprintf("%s%c", num, c->mark);
	free(num);
	return s;
}

/* Fills the header row: case label, kernels, an unnamed change column. */
static void
render_change_head(const struct compare_table *t, struct render_grid *g,
    char *align)
{
	size_t j;

	render_grid_take(g, 0, 0, xstrdup(t->case_label));
	align[0] = 'l';
	for (j = 0; j < t->ncolumns; j++) {
		render_grid_take(g, 0, j + 1, render_kernel_header(t, j));
		align[j + 1] = 'r';
	}
	align[t->ncolumns + 1] = 'r';
}

/* Prints the table in the change style. */
int
render_change_print(const struct compare_table *t, FILE *fp, char **cause)
{
	const struct compare_cell *c;
	struct render_grid	  *g;
	char			  *align, *title;
	size_t			   i, j, last;
	int			   d;

	d = compare_table_decimals(t);
	title = render_title(t);
	fprintf(fp, "%s\n", title);
	free(title);
	last = t->ncolumns ? t->ncolumns - 1 : 0;
	g = render_grid_new(t->nrows + 1, t->ncolumns + 2);
	align = xcalloc(t->ncolumns + 3, 1);
	render_change_head(t, g, align);
	for (i = 0; i < t->nrows; i++) {
		render_grid_take(g, i + 1, 0, xstrdup(t->rows[i].name));
		for (j = 0; j < t->ncolumns; j++) {
			c = &t->rows[i].cells[j];
			render_grid_take(g, i + 1, j + 1,
			    c->n == 0 ? xstrdup("-")
				      : render_number(c->value, d, 0, ""));
		}
		if (last > 0)
			render_grid_take(g, i + 1, t->ncolumns + 1,
			    render_change_delta(&t->rows[i].cells[last]));
	}
	render_grid_print(g, fp, " ", align);
	render_grid_free(g);
	free(align);
	fputc('\n', fp);
	render_footer(t, fp, "",
	    "the last column is the raw change of the last kernel against "
	    "the base: negative is a smaller number, whatever is better");
	return render_finish(fp, cause);
}
