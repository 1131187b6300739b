/*
 * Every table style on fixed data sets, byte for byte against the files in
 * golden/ (HILAB_UPDATE_GOLDEN=1 rewrites them), and the JSON style parsed
 * back and checked against the computed numbers.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <cmocka.h>

#include "common/xmalloc.h"
#include "report/compare.h"
#include "report/render.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const double v1_base[] = { 2.10, 2.05, 2.20, 2.15, 2.00 };
static const double v1_new[] = { 1.95, 2.00, 1.90, 2.05, 1.98 };
static const double v2_base[] = { 1000, 1020, 980, 1010, 990 };
static const double v2_new[] = { 1030, 1050, 1045, 1025, 1040 };
static const double v3_base[] = { 16, 18, 17, 16, 20, 17 };
static const double v3_new[] = { 14, 15, 14, 16, 15, 14 };

/* The vectors V1 and V3 as cases of a lower-is-better AMean table. */
static struct compare_table *
table_hackbench(void)
{
	struct compare_table *t;

	t = compare_table_new("hackbench", "time", "seconds",
	    COMPARE_LOWER_BETTER, COMPARE_AMEAN);
	compare_table_add_column(t, "base");
	compare_table_add_column(t, "patch 1");
	compare_table_add_row(t, "1-groups");
	compare_table_add_row(t, "2-groups");
	compare_table_set_samples(t, 0, 0, v1_base, NELEM(v1_base));
	compare_table_set_samples(t, 0, 1, v1_new, NELEM(v1_new));
	compare_table_set_samples(t, 1, 0, v3_base, NELEM(v3_base));
	compare_table_set_samples(t, 1, 1, v3_new, NELEM(v3_new));
	compare_table_add_note(t,
	    "kernel command line differs: base \"quiet\""
	    ", patch 1 \"quiet mitigations=off\"");
	return t;
}

/* V2 both ways round as a higher-is-better HMean table, with boots. */
static struct compare_table *
table_stream(void)
{
	static const double   bb[] = { 1001, 999, 1002 };
	static const double   nb[] = { 1037, 1039, 1038 };
	struct compare_table *t;

	t = compare_table_new("stream-10", "Bandwidth", "MB/s",
	    COMPARE_HIGHER_BETTER, COMPARE_HMEAN);
	compare_table_set_case_label(t, "Test");
	compare_table_add_column(t, "tip");
	compare_table_add_column(t, "push_only");
	compare_table_add_row(t, "Copy");
	compare_table_add_row(t, "Triad");
	compare_table_set_samples(t, 0, 0, v2_base, NELEM(v2_base));
	compare_table_set_samples(t, 0, 1, v2_new, NELEM(v2_new));
	compare_table_set_boots(t, 0, 0, bb, NELEM(bb));
	compare_table_set_boots(t, 0, 1, nb, NELEM(nb));
	compare_table_set_samples(t, 1, 0, v2_new, NELEM(v2_new));
	compare_table_set_samples(t, 1, 1, v2_base, NELEM(v2_base));
	return t;
}

/* Three kernels and medians like seed 0; one small and one empty cell. */
static struct compare_table *
table_rebuild(void)
{
	static const double data[3][3][6] = {
		{ { 13.1, 13.3, 13.28, 13.5, 13.2, 13.4 },
		    { 7.6, 7.7, 7.68, 7.9, 7.5, 7.66 },
		    { 1.2, 1.21, 1.25, 1.19, 1.22, 1.18 } },
		{ { 44.9, 45.1, 44.95, 44.7, 45.3, 44.99 },
		    { 31.0, 30.9, 30.96, 31.2, 30.8, 30.99 },
		    { 13.4, 13.44, 13.5, 13.3, 13.6, 13.45 } },
		{ { 36.8, 36.84, 36.9, 36.7, 37.0, 36.85 },
		    { 28.5, 28.4, 28.48 }, { 0 } },
	};
	static const size_t n[3][3] = { { 6, 6, 6 }, { 6, 6, 6 }, { 6, 3, 0 } };
	static const char  *ops[] = { "change partition root", "cpu offline",
		 "cpu online" };
	struct compare_table *t;
	size_t		      i, j;

	t = compare_table_new("cpuset-rebuild", "time", "ms",
	    COMPARE_LOWER_BETTER, COMPARE_MEDIAN);
	compare_table_set_case_label(t, "operation");
	compare_table_add_column(t, "base");
	compare_table_add_column(t, "patch 1");
	compare_table_add_column(t, "patch 1+2");
	for (i = 0; i < 3; i++) {
		compare_table_add_row(t, ops[i]);
		for (j = 0; j < 3; j++)
			compare_table_set_samples(t, i, j, data[i][j], n[i][j]);
	}
	compare_table_add_note(t, "host \"vm32\": cpufreq governor absent");
	return t;
}

/* Renders a table in a style into a string; the caller frees it. */
static char *
render_string(struct compare_table *t, const char *style)
{
	char  *buf = NULL, *cause = NULL;
	size_t len = 0;
	FILE  *fp;

	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	assert_int_equal(render_print(t, style, fp, &cause), 0);
	fclose(fp);
	return buf;
}

/* Reads a whole file, NULL if absent; the caller frees it. */
static char *
read_all(const char *path)
{
	char  *buf = NULL;
	size_t len = 0;
	FILE  *fp, *out;
	int    c;

	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	out = open_memstream(&buf, &len);
	while ((c = fgetc(fp)) != EOF)
		fputc(c, out);
	fclose(out);
	fclose(fp);
	return buf;
}

/* Compares a rendering with its golden file, or rewrites the file. */
static void
check_golden(struct compare_table *t, const char *name, const char *style)
{
	const char *src = getenv("HILAB_SRCDIR");
	char	   *path, *got, *want;
	FILE	   *fp;

	assert_non_null(src);
	path = xasprintf("%s/tests/unit/stats/golden/%s.%s", src, name, style);
	got = render_string(t, style);
	if (getenv("HILAB_UPDATE_GOLDEN") != NULL) {
		assert_non_null(fp = fopen(path, "w"));
		fputs(got, fp);
		fclose(fp);
	}
	want = read_all(path);
	if (want == NULL)
		fail_msg("%s: missing", path);
	if (strcmp(got, want) != 0)
		fail_msg("%s: differs, got:\n%s", path, got);
	free(want);
	free(got);
	free(path);
}

/* Checks every style of one table against the goldens. */
static void
check_all_styles(struct compare_table *(*make)(void), const char *name)
{
	const struct render_style *s;
	struct compare_table	  *t;

	t = make();
	for (s = render_styles; s->name != NULL; s++)
		check_golden(t, name, s->name);
	compare_table_free(t);
}

static void
test_golden_hackbench(void **state)
{
	check_all_styles(table_hackbench, "hackbench");
}

static void
test_golden_stream(void **state)
{
	check_all_styles(table_stream, "stream");
}

static void
test_golden_rebuild(void **state)
{
	check_all_styles(table_rebuild, "rebuild");
}

/* Asserts that a JSON value carries the number v, or null for NAN. */
static void
assert_json_num(json_t *j, double v)
{
	if (isnan(v)) {
		assert_true(json_is_null(j));
		return;
	}
	assert_true(json_is_number(j));
	if (fabs(json_number_value(j) - v) > 1e-12 * fmax(1, fabs(v)))
		fail_msg("json %.17g, computed %.17g", json_number_value(j), v);
}

/* Checks one JSON cell against the computed one. */
static void
check_json_cell(json_t *jc, const struct compare_cell *c, const char *kernel)
{
	json_t *test = json_object_get(jc, "test");

	assert_string_equal(json_string_value(json_object_get(jc, "kernel")),
	    kernel);
	assert_int_equal(json_integer_value(json_object_get(jc, "n")), c->n);
	assert_json_num(json_object_get(jc, "value"), c->value);
	assert_json_num(json_object_get(jc, "norm"), c->norm);
	assert_json_num(json_object_get(jc, "delta_pct"), c->delta);
	assert_json_num(json_object_get(jc, "pct_imp"), c->pct_imp);
	assert_json_num(json_object_get(jc, "ci_lo_pct"), c->ci_lo);
	assert_true(json_is_boolean(json_object_get(jc, "significant")));
	assert_int_equal(json_is_true(json_object_get(jc, "significant")),
	    c->mark == '*');
	if (!c->test.done) {
		assert_true(json_is_null(test));
		return;
	}
	assert_json_num(json_object_get(test, "p"), c->test.p);
	assert_json_num(json_object_get(test, "t"), c->test.t);
	assert_json_num(json_object_get(test, "u"), c->test.u);
	if (c->n > 0)
		assert_json_num(json_object_get(json_object_get(jc, "summary"),
				    "cv"),
		    c->sum.cv);
}

/* Parses a table's JSON rendering and checks every cell. */
static void
check_json(struct compare_table *(*make)(void))
{
	struct compare_table *t = make();
	json_error_t	      err;
	json_t		     *o, *rows, *cells;
	char		     *out;
	size_t		      i, j;

	out = render_string(t, "json");
	o = json_loads(out, 0, &err);
	if (o == NULL)
		fail_msg("json: line %d: %s", err.line, err.text);
	assert_string_equal(json_string_value(json_object_get(o, "statistic")),
	    compare_stat_name(t->stat));
	assert_int_equal(json_array_size(json_object_get(o, "warnings")),
	    t->nwarnings);
	assert_int_equal(json_array_size(json_object_get(o, "notes")),
	    t->nnotes);
	rows = json_object_get(o, "rows");
	assert_int_equal(json_array_size(rows), t->nrows);
	for (i = 0; i < t->nrows; i++) {
		cells = json_object_get(json_array_get(rows, i), "cells");
		assert_int_equal(json_array_size(cells), t->ncolumns);
		for (j = 0; j < t->ncolumns; j++)
			check_json_cell(json_array_get(cells, j),
			    compare_table_cell(t, i, j), t->columns[j]);
	}
	json_decref(o);
	free(out);
	compare_table_free(t);
}

static void
test_json(void **state)
{
	check_json(table_hackbench);
	check_json(table_stream);
	check_json(table_rebuild);
}

static void
test_unknown_style(void **state)
{
	struct compare_table *t = table_hackbench();
	char		     *cause = NULL;

	assert_int_equal(render_print(t, "html", stdout, &cause), -1);
	assert_string_equal(cause, "style \"html\": unknown");
	free(cause);
	compare_table_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_hackbench),
		cmocka_unit_test(test_golden_stream),
		cmocka_unit_test(test_golden_rebuild),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_unknown_style),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
