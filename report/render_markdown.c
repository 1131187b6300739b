/* The Markdown style: one table, the changes beside the kernels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "report/render.h"

/* Prints s with the characters Markdown tables treat specially escaped. */
static void
render_markdown_text(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|' || *s == '\\')
			fputc('\\', fp);
		fputc(*s, fp);
	}
}

/* Prints the header and alignment rows. */
static void
render_markdown_head(const struct compare_table *t, FILE *fp)
{
	size_t j;

	fputs("| ", fp);
	render_markdown_text(fp, t->case_label);
	for (j = 0; j < t->ncolumns; j++) {
		fputs(" | ", fp);
		render_markdown_text(fp, t->columns[j]);
	}
	for (j = 1; j < t->ncolumns; j++) {
		fputs(" | ", fp);
		render_markdown_text(fp, t->columns[j]);
		fputs(" vs base", fp);
	}
	fputs(" |\n|:---", fp);
	for (j = 1; j < 2 * t->ncolumns; j++)
		fputs("|---:", fp);
	fputs("|\n", fp);
}

/* Prints a kernel's cell: the statistic, CV and n. */
static void
render_markdown_value(FILE *fp, const struct compare_cell *c, int d)
{
	char *v, *cv;

	if (c->n == 0) {
		fputs(" | -", fp);
		return;
	}
	v = render_number(c->value, d, 0, "");
	cv = render_number(c->sum.cv, 2, 0, "%");
	fprintf(fp, " | %s (CV %s, n=%zu)", v, cv, c->n);
	free(v);
	free(cv);
}

/* Prints a change cell: delta%, pct imp, p and the mark. */
static void
render_markdown_change(FILE *fp, const struct compare_cell *c)
{
	char *delta, *imp, *p;

	if (c->n == 0) {
		fputs(" | -", fp);
		return;
	}
	delta = render_number(c->delta, 2, 1, "%");
	imp = render_number(c->pct_imp, 2, 1, "%");
	fprintf(fp, " | %s (imp %s)", delta, imp);
	if (c->test.done) {
		p = render_p(c->test.p);
		fprintf(fp, " %s %c", p, c->mark);
		free(p);
	}
	free(delta);
	free(imp);
}

/* Prints the table as Markdown with a heading and a list of notes. */
int
render_markdown_print(const struct compare_table *t, FILE *fp, char **cause)
{
	char  *title;
	size_t i, j;
	int    d;

	d = compare_table_decimals(t);
	title = render_title(t);
	fputs("### ", fp);
	render_markdown_text(fp, title);
	fputs("\n\n", fp);
	free(title);
	render_markdown_head(t, fp);
	for (i = 0; i < t->nrows; i++) {
		fputs("| ", fp);
		render_markdown_text(fp, t->rows[i].name);
		for (j = 0; j < t->ncolumns; j++)
			render_markdown_value(fp, &t->rows[i].cells[j], d);
		for (j = 1; j < t->ncolumns; j++)
			render_markdown_change(fp, &t->rows[i].cells[j]);
		fputs(" |\n", fp);
	}
	fputc('\n', fp);
	render_footer(t, fp, "- ",
	    "\"vs base\" is the raw change (negative is a smaller number) "
	    "and imp the improvement (positive is better)");
	return render_finish(fp, cause);
}
