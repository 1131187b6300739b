/* The CSV style: one line per case and kernel with every number. */
#include <math.h>
#include <string.h>

#include "report/render.h"

#define RENDER_CSV_HEAD                                                  \
	"benchmark,metric,unit,better,statistic,case,kernel,n,value,"    \
	"amean,hmean,gmean,median,sd,cv,min,max,norm,delta_pct,pct_imp," \
	"test,p,t,nu,u,ci_lo_pct,ci_hi_pct,mark,boots,boot_p\n"

/* Prints one field, quoted when it holds a comma, quote or newline. */
void
render_csv_field(FILE *fp, const char *s)
{
	if (s == NULL)
		s = "";
	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

/* Prints ",number", empty when undefined, zero without a sign. */
static void
render_csv_num(FILE *fp, double v)
{
	if (isnan(v))
		fputc(',', fp);
	else
		fprintf(fp, ",%.10g", v == 0 ? 0.0 : v);
}

/* Prints the numbers of one cell. */
static void
render_csv_numbers(FILE *fp, const struct compare_cell *c, int is_base)
{
	const struct stats_summary *s = &c->sum;
	const struct stats_test	   *r = &c->test;

	fprintf(fp, ",%zu", c->n);
	render_csv_num(fp, c->value);
	render_csv_num(fp, c->n ? s->amean : NAN);
	render_csv_num(fp, c->n ? s->hmean : NAN);
	render_csv_num(fp, c->n ? s->gmean : NAN);
	render_csv_num(fp, c->n ? s->median : NAN);
	render_csv_num(fp, c->n ? s->sd : NAN);
	render_csv_num(fp, c->n ? s->cv : NAN);
	render_csv_num(fp, c->n ? s->min : NAN);
	render_csv_num(fp, c->n ? s->max : NAN);
	render_csv_num(fp, c->norm);
	render_csv_num(fp, c->delta);
	render_csv_num(fp, c->pct_imp);
	fprintf(fp, ",%s", is_base ? "" : stats_test_name(r->kind));
	render_csv_num(fp, r->p);
	render_csv_num(fp, r->t);
	render_csv_num(fp, r->nu);
	render_csv_num(fp, r->u);
	render_csv_num(fp, c->ci_lo);
	render_csv_num(fp, c->ci_hi);
	fprintf(fp, ",%s,%zu", c->mark == ' ' ? "" : (char[]){ c->mark, 0 },
	    c->nboots);
	render_csv_num(fp, c->boot_test.p);
	fputc('\n', fp);
}

/* Prints one line of a cell. */
static void
render_csv_line(const struct compare_table *t, FILE *fp, size_t i, size_t j)
{
	render_csv_field(fp, t->title);
	fputc(',', fp);
	render_csv_field(fp, t->metric);
	fputc(',', fp);
	render_csv_field(fp, t->unit);
	fprintf(fp, ",%s,%s,", compare_dir_name(t->dir),
	    compare_stat_name(t->stat));
	render_csv_field(fp, t->rows[i].name);
	fputc(',', fp);
	render_csv_field(fp, t->columns[j]);
	render_csv_numbers(fp, &t->rows[i].cells[j], j == 0);
}

/* Prints the table as CSV; the footer follows as '#' comment lines. */
int
render_csv_print(const struct compare_table *t, FILE *fp, char **cause)
{
	size_t i, j;

	fputs(RENDER_CSV_HEAD, fp);
	for (i = 0; i < t->nrows; i++)
		for (j = 0; j < t->ncolumns; j++)
			render_csv_line(t, fp, i, j);
	if (t->machine != NULL)
		fprintf(fp, "# machine: %s\n", t->machine);
	render_footer(t, fp, "# ",
	    "delta_pct is the raw change against the base, pct_imp the "
	    "improvement (positive is better, empty when better is unknown)");
	return render_finish(fp, cause);
}
