/*
 * Plots: the 95% intervals against independent numbers, the SVG's marks
 * mapped back to the table's values, its title and axis labels, and the
 * PNG decoded at its size with the series colour at a mark.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <cairo.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "report/compare.h"
#include "report/plot.h"

/* STATS.md V1 (hackbench time) and V2 (throughput). */
static const double v1_base[] = { 2.10, 2.05, 2.20, 2.15, 2.00 };
static const double v1_new[] = { 1.95, 2.00, 1.90, 2.05, 1.98 };
static const double v2_base[] = { 1000, 1020, 980, 1010, 990 };

/* t(0.975, 4) from published tables. */
#define T_975_4 2.776445

/* A hackbench table: rows 1, 2, 4 groups hold V1 times 1, 2 and 4. */
static struct compare_table *
v1_table(void)
{
	struct compare_table *t;
	double		      a[5], b[5];
	size_t		      i, r;
	char		     *name;

	t = compare_table_new("hackbench", "time", "s", COMPARE_LOWER_BETTER,
	    COMPARE_AMEAN);
	compare_table_add_column(t, "base");
	compare_table_add_column(t, "patch 1");
	for (r = 0; r < 3; r++) {
		name = xasprintf("%d-groups", 1 << r);
		compare_table_add_row(t, name);
		free(name);
		for (i = 0; i < 5; i++) {
			a[i] = v1_base[i] * (1 << r);
			b[i] = v1_new[i] * (1 << r);
		}
		compare_table_set_samples(t, r, 0, a, 5);
		compare_table_set_samples(t, r, 1, b, 5);
	}
	compare_table_compute(t);
	return t;
}

static void
test_interval_amean(void **state)
{
	struct compare_table *t = v1_table();
	double		      lo, hi, h = T_975_4 * 0.0790569 / sqrt(5);

	(void)state;
	assert_int_equal(plot_interval(t, compare_table_cell(t, 0, 0), &lo,
			     &hi),
	    0);
	assert_float_equal(lo, 2.1 - h, 1e-5);
	assert_float_equal(hi, 2.1 + h, 1e-5);
	compare_table_free(t);
}

static void
test_interval_hmean(void **state)
{
	struct compare_table *t;
	double		      lo, hi, m = 0, ss = 0, inv[5], h;
	size_t		      i;

	(void)state;
	for (i = 0; i < 5; i++)
		m += (inv[i] = 1 / v2_base[i]) / 5;
	for (i = 0; i < 5; i++)
		ss += (inv[i] - m) * (inv[i] - m);
	h = T_975_4 * sqrt(ss / 4) / sqrt(5);
	t = compare_table_new("stream", "copy", "MB/s", COMPARE_HIGHER_BETTER,
	    COMPARE_HMEAN);
	compare_table_add_column(t, "base");
	compare_table_add_row(t, "Copy");
	compare_table_set_samples(t, 0, 0, v2_base, 5);
	compare_table_compute(t);
	assert_int_equal(plot_interval(t, compare_table_cell(t, 0, 0), &lo,
			     &hi),
	    0);
	assert_float_equal(lo, 1 / (m + h), 1e-6);
	assert_float_equal(hi, 1 / (m - h), 1e-6);
	assert_true(lo < 999.799972 && 999.799972 < hi);
	compare_table_free(t);
}

static void
test_interval_median(void **state)
{
	static const double x20[] = { 12, 3, 17, 8, 1, 20, 6, 15, 10, 19, 2, 14,
		5, 11, 18, 7, 16, 4, 13, 9 };
	static const double x5[] = { 16, 18, 17, 16, 20 };
	struct compare_table *t;
	double		      lo, hi;

	(void)state;
	t = compare_table_new("schbench", "p99", "us", COMPARE_LOWER_BETTER,
	    COMPARE_MEDIAN);
	compare_table_add_column(t, "base");
	compare_table_add_row(t, "20");
	compare_table_add_row(t, "5");
	compare_table_set_samples(t, 0, 0, x20, 20);
	compare_table_set_samples(t, 1, 0, x5, 5);
	compare_table_compute(t);
	/* n = 20: P(B <= 5) = 0.0207, P(B <= 6) = 0.0577: x(6), x(15). */
	assert_int_equal(plot_interval(t, compare_table_cell(t, 0, 0), &lo,
			     &hi),
	    0);
	assert_float_equal(lo, 6, 0);
	assert_float_equal(hi, 15, 0);
	/* n = 5 cannot reach 95%: min and max. */
	assert_int_equal(plot_interval(t, compare_table_cell(t, 1, 0), &lo,
			     &hi),
	    0);
	assert_float_equal(lo, 16, 0);
	assert_float_equal(hi, 20, 0);
	compare_table_free(t);
}

/* A filled square mark found in the SVG. */
struct mark {
	char   fill[64];
	double cx;
	double cy;
};

/* Reads a whole file (caller frees). */
static char *
slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *s;
	long  n;

	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	s = xcalloc(1, (size_t)n + 1);
	assert_int_equal(fread(s, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	return s;
}

/* Finds every filled PLOT_MARKER square path and its colour. */
static size_t
find_marks(const char *svg, struct mark *m, size_t max)
{
	const char *p = svg, *fill, *d;
	double	    x[4], y[4];
	size_t	    n = 0;

	while ((p = strstr(p, "<path style=\"")) != NULL) {
		p += 13;
		fill = strstr(p, "fill:rgb(");
		d = strstr(p, "d=\"");
		if (fill == NULL || d == NULL || fill > d ||
		    sscanf(d, "d=\"M %lf %lf L %lf %lf L %lf %lf L %lf %lf Z",
			&x[0], &y[0], &x[1], &y[1], &x[2], &y[2], &x[3],
			&y[3]) != 8)
			continue;
		if (fabs(x[1] - x[0] - PLOT_MARKER) > 1e-6 ||
		    fabs(y[2] - y[1] - PLOT_MARKER) > 1e-6 ||
		    strncmp(fill, "fill:rgb(0%,0%,0%)", 18) == 0)
			continue;
		assert_true(n < max);
		snprintf(m[n].fill, sizeof m[n].fill, "%.*s",
		    (int)strcspn(fill, ";"), fill);
		m[n].cx = x[0] + PLOT_MARKER / 2.0;
		m[n].cy = y[0] + PLOT_MARKER / 2.0;
		n++;
	}
	return n;
}

/* A temporary file name with a suffix (caller unlinks and frees). */
static char *
tmp_path(const char *ext)
{
	char *p = xasprintf("/tmp/hilab-plot-XXXXXX");
	int   fd = mkstemp(p);
	char *q;

	assert_true(fd >= 0);
	close(fd);
	unlink(p);
	q = xasprintf("%s.%s", p, ext);
	free(p);
	return q;
}

static void
test_svg_marks(void **state)
{
	struct compare_table *t = v1_table();
	struct plot_layout    l;
	struct mark	      m[16];
	char		     *path = tmp_path("svg"), *cause = NULL, *svg;
	char		     *ticks[] = { "1", "2", "4" };
	const char	     *col_fill[2] = { NULL, NULL };
	double		      v;
	size_t		      n, i, row[2] = { 0, 0 }, c;

	(void)state;
	assert_int_equal(plot_write(t, "groups", ticks, PLOT_SVG, path, &cause),
	    0);
	svg = slurp(path);
	assert_non_null(strstr(svg,
	    "<title>hackbench: time (AMean, lower "
	    "is better)</title>"));
	assert_non_null(strstr(svg,
	    "<desc>x: groups; y: time (s); series: "
	    "base, patch 1</desc>"));
	n = find_marks(svg, m, 16);
	assert_int_equal(n, 6); /* one per kernel and parameter */
	plot_layout(t, PLOT_WIDTH, PLOT_HEIGHT, &l);
	for (i = 0; i < n; i++) {
		/* Series are drawn in column order, rows left to right. */
		c = i < 3 ? 0 : 1;
		if (col_fill[c] == NULL)
			col_fill[c] = m[i].fill;
		assert_string_equal(m[i].fill, col_fill[c]);
		v = l.ymin +
		    (l.bottom - m[i].cy) / (l.bottom - l.top) *
			(l.ymax - l.ymin);
		assert_float_equal(v, compare_table_cell(t, row[c], c)->value,
		    1e-3);
		if (row[c] > 0)
			assert_true(m[i].cx > m[i - 1].cx);
		row[c]++;
	}
	assert_string_not_equal(col_fill[0], col_fill[1]);
	/* The axis spans every value and interval. */
	assert_true(l.ymin <= 1.9 && l.ymax >= 8.8);
	unlink(path);
	free(path);
	free(svg);
	compare_table_free(t);
}

static void
test_png_decodes(void **state)
{
	struct compare_table *t = v1_table();
	struct plot_layout    l;
	cairo_surface_t	     *s;
	unsigned char	     *px;
	uint32_t	      argb;
	char		     *path = tmp_path("png"), *cause = NULL;
	int		      x, y;

	(void)state;
	assert_int_equal(plot_write(t, NULL, NULL, PLOT_PNG, path, &cause), 0);
	s = cairo_image_surface_create_from_png(path);
	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(s), PLOT_WIDTH);
	assert_int_equal(cairo_image_surface_get_height(s), PLOT_HEIGHT);
	/* The centre of the base mark of 4-groups is the first colour. */
	plot_layout(t, PLOT_WIDTH, PLOT_HEIGHT, &l);
	x = (int)plot_x(&l, t, 2, 0);
	y = (int)plot_y(&l, compare_table_cell(t, 2, 0)->value);
	px = cairo_image_surface_get_data(s);
	memcpy(&argb, px + y * cairo_image_surface_get_stride(s) + x * 4, 4);
	assert_int_equal((argb >> 16) & 0xff, 31); /* 0.122 * 255 */
	assert_int_equal((argb >> 8) & 0xff, 119);
	assert_int_equal(argb & 0xff, 180);
	cairo_surface_destroy(s);
	unlink(path);
	free(path);
	compare_table_free(t);
}

static void
test_write_error(void **state)
{
	struct compare_table *t = v1_table();
	char		     *cause = NULL;

	(void)state;
	assert_int_equal(plot_write(t, NULL, NULL, PLOT_SVG,
			     "/nonexistent/dir/x.svg", &cause),
	    -1);
	assert_non_null(strstr(cause, "\"/nonexistent/dir/x.svg\": "));
	free(cause);
	compare_table_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_amean),
		cmocka_unit_test(test_interval_hmean),
		cmocka_unit_test(test_interval_median),
		cmocka_unit_test(test_svg_marks),
		cmocka_unit_test(test_png_decodes),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
