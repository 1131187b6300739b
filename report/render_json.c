/* The JSON style: the table with every number, undefined ones as null. */
#include <math.h>
#include <stdlib.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "report/render.h"

/* Returns a JSON number, zero without a sign, or null when undefined. */
static json_t *
render_json_num(double v)
{
	if (isnan(v) || isinf(v))
		return json_null();
	return json_real(v == 0 ? 0.0 : v);
}

/* Returns the test of a cell as an object, or null when it did not run. */
static json_t *
render_json_test(const struct stats_test *r)
{
	if (!r->done)
		return json_null();
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}",
	    "name", stats_test_name(r->kind), "p", render_json_num(r->p), "t",
	    render_json_num(r->t), "nu", render_json_num(r->nu), "diff",
	    render_json_num(r->diff), "ci_lo", render_json_num(r->ci_lo),
	    "ci_hi", render_json_num(r->ci_hi), "u", render_json_num(r->u),
	    "exact", r->exact);
}

/* Returns the summary of a cell's samples. */
static json_t *
render_json_summary(const struct compare_cell *c)
{
	const struct stats_summary *s = &c->sum;

	if (c->n == 0)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "amean",
	    render_json_num(s->amean), "hmean", render_json_num(s->hmean),
	    "gmean", render_json_num(s->gmean), "median",
	    render_json_num(s->median), "sd", render_json_num(s->sd), "cv",
	    render_json_num(s->cv), "min", render_json_num(s->min), "max",
	    render_json_num(s->max));
}

/* Returns one cell as an object. */
static json_t *
render_json_cell(const struct compare_table *t, size_t j,
    const struct compare_cell *c)
{
	char mark[2] = { c->mark == ' ' ? '\0' : c->mark, '\0' };

	return json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
			 "s:o, s:s, s:b, s:I, s:o}",
	    "kernel", t->columns[j], "n", (json_int_t)c->n, "value",
	    render_json_num(c->value), "summary", render_json_summary(c),
	    "norm", render_json_num(c->norm), "delta_pct",
	    render_json_num(c->delta), "pct_imp", render_json_num(c->pct_imp),
	    "ci_lo_pct", render_json_num(c->ci_lo), "ci_hi_pct",
	    render_json_num(c->ci_hi), "test", render_json_test(&c->test),
	    "mark", mark, "significant", c->mark == '*', "boots",
	    (json_int_t)c->nboots, "boot_test",
	    render_json_test(&c->boot_test));
}

/* Returns an array of strings. */
static json_t *
render_json_strings(char **v, size_t n)
{
	json_t *a = json_array();
	size_t	i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* Returns the machines behind each column (null where not known). */
static json_t *
render_json_machines(const struct compare_table *t)
{
	json_t *a = json_array();
	size_t	i;

	for (i = 0; i < t->ncolumns; i++)
		json_array_append_new(a,
		    t->machines[i] != NULL ? json_string(t->machines[i])
					   : json_null());
	return a;
}

/* Returns the rows, each with its cells. */
static json_t *
render_json_rows(const struct compare_table *t)
{
	json_t *rows = json_array(), *cells;
	size_t	i, j;

	for (i = 0; i < t->nrows; i++) {
		cells = json_array();
		for (j = 0; j < t->ncolumns; j++)
			json_array_append_new(cells,
			    render_json_cell(t, j, &t->rows[i].cells[j]));
		json_array_append_new(rows,
		    json_pack("{s:s, s:o}", "case", t->rows[i].name, "cells",
			cells));
	}
	return rows;
}

/* The table as one JSON object (see render.h). */
json_t *
render_json_table(const struct compare_table *t)
{
	return json_pack("{s:s, s:s, s:s?, s:s, s:s?, s:o, s:s, s:s, s:f, s:s, "
			 "s:o, s:o, s:o, s:o}",
	    "benchmark", t->title, "metric", t->metric, "unit", t->unit,
	    "better", compare_dir_name(t->dir), "machine", t->machine,
	    "machines", render_json_machines(t), "statistic",
	    compare_stat_name(t->stat), "test", stats_test_name(t->test),
	    "alpha", STATS_ALPHA, "case_label", t->case_label, "columns",
	    render_json_strings(t->columns, t->ncolumns), "rows",
	    render_json_rows(t), "warnings",
	    render_json_strings(t->warnings, t->nwarnings), "notes",
	    render_json_strings(t->notes, t->nnotes));
}

/* Prints a JSON value as every json style prints, and frees it. */
static int
render_json_dump(json_t *o, FILE *fp, char **cause)
{
	int rc;

	if (o == NULL) {
		*cause = xstrdup("json table: cannot build");
		return -1;
	}
	rc = json_dumpf(o, fp,
	    JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	json_decref(o);
	fputc('\n', fp);
	if (rc != 0) {
		*cause = xstrdup("json table: write failed");
		return -1;
	}
	return render_finish(fp, cause);
}

/* Prints the table as one JSON object. */
int
render_json_print(const struct compare_table *t, FILE *fp, char **cause)
{
	return render_json_dump(render_json_table(t), fp, cause);
}

/* n tables, computed first if need be, as one JSON array. */
json_t *
render_json_tables(struct compare_table *const *v, size_t n)
{
	json_t *a = json_array();
	size_t	i;

	for (i = 0; i < n; i++) {
		if (!v[i]->computed)
			compare_table_compute(v[i]);
		json_array_append_new(a, render_json_table(v[i]));
	}
	return a;
}

/* Prints n tables as one JSON array. */
int
render_json_print_all(struct compare_table *const *v, size_t n, FILE *fp,
    char **cause)
{
	return render_json_dump(render_json_tables(v, n), fp, cause);
}
