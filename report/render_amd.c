/* The AMD style: normalised statistic, [pct imp] and (CV) per kernel. */
#include <math.h>
#include <stdlib.h>

#include "common/xmalloc.h"
#include "report/render.h"

#define RENDER_AMD_RULE \
	"=================================================================="

/* Formats x as printf's %*.2f would, or "n/a" in the same width. */
static char *
render_amd_num(double x, int width)
{
	if (isnan(x))
		return xasprintf("%*s", width, "n/a");
	return xasprintf("%*.2f", width, x);
}

/*
 * Returns one cell, "1.00 [ -0.00]( 3.76)": %4.2f [%6.2f](%5.2f) of the
 * normalised statistic, pct imp and CV, followed by its mark.
 */
static char *
render_amd_cell(const struct compare_cell *c, int is_base)
{
	char *norm, *imp, *cv, *s;

	if (c->n == 0)
		return xstrdup("- ");
	norm = render_amd_num(c->norm, 4);
	imp = render_amd_num(c->pct_imp, 6);
	cv = render_amd_num(c->sum.cv, 5);
	s = xasprintf("%s [%s](%s)%c", norm, imp, cv, is_base ? ' ' : c->mark);
	free(norm);
	free(imp);
	free(cv);
	return s;
}

/* Prints the header block naming the test, units and statistic. */
static void
render_amd_header(const struct compare_table *t, FILE *fp)
{
	fprintf(fp, "%s\n", RENDER_AMD_RULE);
	fprintf(fp, "%-14s: %s\n", "Test", t->title);
	if (t->unit != NULL)
		fprintf(fp, "%-14s: Normalized %s in %s\n", "Units", t->metric,
		    t->unit);
	else
		fprintf(fp, "%-14s: Normalized %s\n", "Units", t->metric);
	fprintf(fp, "%-14s: %s\n", "Interpretation",
	    t->dir == COMPARE_LOWER_BETTER	  ? "Lower is better"
		: t->dir == COMPARE_HIGHER_BETTER ? "Higher is better"
						  : "Unknown: the job does not "
						    "declare a direction");
	fprintf(fp, "%-14s: %s\n", "Statistic", compare_stat_name(t->stat));
	if (t->machine != NULL)
		fprintf(fp, "%-14s: %s\n", "Machine", t->machine);
	fprintf(fp, "%s\n", RENDER_AMD_RULE);
}

/* Prints the table in the AMD style. */
int
render_amd_print(const struct compare_table *t, FILE *fp, char **cause)
{
	struct render_grid *g;
	char		   *align;
	size_t		    i, j;

	render_amd_header(t, fp);
	g = render_grid_new(t->nrows + 1, t->ncolumns + 1);
	align = xcalloc(t->ncolumns + 2, 1);
	render_grid_take(g, 0, 0, xasprintf("%s:", t->case_label));
	align[0] = 'l';
	for (j = 0; j < t->ncolumns; j++) {
		render_grid_take(g, 0, j + 1,
		    xasprintf("%s[pct imp](CV) ", t->columns[j]));
		align[j + 1] = 'r';
	}
	for (i = 0; i < t->nrows; i++) {
		render_grid_take(g, i + 1, 0, xstrdup(t->rows[i].name));
		for (j = 0; j < t->ncolumns; j++)
			render_grid_take(g, i + 1, j + 1,
			    render_amd_cell(&t->rows[i].cells[j], j == 0));
	}
	render_grid_print(g, fp, "  ", align);
	render_grid_free(g);
	free(align);
	fputc('\n', fp);
	render_footer(t, fp, "",
	    t->dir == COMPARE_DIR_UNKNOWN
		? "[pct imp] n/a without a direction; (CV) in %"
		: "[pct imp] is the change against the base, positive is "
		  "better; (CV) in %");
	return render_finish(fp, cause);
}
