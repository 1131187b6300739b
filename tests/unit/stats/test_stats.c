/* The statistics engine against the reference vectors and edge cases. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/compare.h"
#include "report/render.h"
#include "report/stats.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* V1: hackbench time (s), lower better, AMean. */
static const double v1_base[] = { 2.10, 2.05, 2.20, 2.15, 2.00 };
static const double v1_new[] = { 1.95, 2.00, 1.90, 2.05, 1.98 };
/* V2: throughput, higher better. */
static const double v2_base[] = { 1000, 1020, 980, 1010, 990 };
static const double v2_new[] = { 1030, 1050, 1045, 1025, 1040 };
/* V3: schbench p99 (us), lower better, Median. */
static const double v3_base[] = { 16, 18, 17, 16, 20, 17 };
static const double v3_new[] = { 14, 15, 14, 16, 15, 14 };

/* Asserts that got prints as the reference, to the reference's digits. */
static void
assert_digits(double got, const char *want)
{
	const char *dot = strchr(want, '.');
	int	    decimals = dot ? (int)strlen(dot + 1) : 0;
	char	    buf[64];

	snprintf(buf, sizeof buf, "%.*f", decimals, got);
	if (want[0] == '+' && got >= 0)
		snprintf(buf, sizeof buf, "%+.*f", decimals, got);
	assert_string_equal(buf, want);
}

/* Returns a two-kernel, one-case table of two sample sets. */
static struct compare_table *
table_of(const double *b, size_t nb, const double *x, size_t nx,
    enum compare_dir dir, enum compare_stat stat)
{
	struct compare_table *t;
	size_t		      r;

	t = compare_table_new("bench", "time", "s", dir, stat);
	compare_table_add_column(t, "base");
	compare_table_add_column(t, "new");
	r = compare_table_add_row(t, "case");
	compare_table_set_samples(t, r, 0, b, nb);
	compare_table_set_samples(t, r, 1, x, nx);
	compare_table_compute(t);
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

static void
test_v1_summary(void **state)
{
	struct stats_summary b, n;

	assert_int_equal(stats_summarize(v1_base, 5, &b), 0);
	assert_int_equal(stats_summarize(v1_new, 5, &n), 0);
	assert_int_equal(b.n, 5);
	assert_digits(b.amean, "2.1");
	assert_digits(b.sd, "0.0790569");
	assert_digits(b.cv, "3.7646");
	assert_digits(n.amean, "1.976");
	assert_digits(n.sd, "0.0559464");
	assert_digits(n.cv, "2.8313");
	assert_digits(b.min, "2.00");
	assert_digits(b.max, "2.20");
	assert_digits(b.median, "2.10");
}

static void
test_v1_change_and_amd(void **state)
{
	struct compare_table	  *t;
	const struct compare_cell *b, *n;
	char			  *out;

	t = table_of(v1_base, 5, v1_new, 5, COMPARE_LOWER_BETTER,
	    COMPARE_AMEAN);
	b = compare_table_cell(t, 0, 0);
	n = compare_table_cell(t, 0, 1);
	assert_digits(n->norm, "0.9410");
	assert_digits(n->pct_imp, "+5.9048");
	assert_digits(n->delta, "-5.9048");
	assert_true(signbit(b->pct_imp));
	assert_int_equal(n->mark, '*');
	out = render_string(t, "amd");
	assert_non_null(strstr(out, "1.00 [ -0.00]( 3.76)"));
	assert_non_null(strstr(out, "0.94 [  5.90]( 2.83)*"));
	free(out);
	compare_table_free(t);
}

static void
test_v1_welch(void **state)
{
	struct stats_test r;

	stats_welch(v1_base, 5, v1_new, 5, STATS_TEST_WELCH, &r);
	assert_true(r.done);
	assert_digits(r.t, "-2.862894");
	assert_digits(r.nu, "7.203068");
	assert_digits(r.p, "0.0235071");
	assert_digits(r.diff, "-0.124");
	/* p < 0.05 exactly when the 95% CI leaves out zero. */
	assert_true(r.ci_lo < r.diff && r.ci_hi < 0);
	assert_digits(r.ci_hi + r.ci_lo, "-0.248000");
	/* t(0.975, 7.2) lies between t(0.975, 8) and t(0.975, 7). */
	assert_true((r.ci_hi - r.diff) / (r.diff / r.t) > 2.306);
	assert_true((r.ci_hi - r.diff) / (r.diff / r.t) < 2.365);
}

static void
test_v1_mwu(void **state)
{
	struct stats_test r;

	stats_mwu(v1_base, 5, v1_new, 5, STATS_MWU_AUTO, &r);
	assert_true(r.done && r.exact);
	assert_digits(r.u, "23");
	assert_digits(r.p, "0.0396825");
	stats_mwu(v1_base, 5, v1_new, 5, STATS_MWU_NORMAL, &r);
	assert_false(r.exact);
	assert_digits(r.p, "0.0355788");
}

static void
test_v2(void **state)
{
	struct compare_table *t;
	struct stats_summary  b, n;
	struct stats_test     r;

	stats_summarize(v2_base, 5, &b);
	stats_summarize(v2_new, 5, &n);
	assert_digits(b.amean, "1000");
	assert_digits(n.amean, "1038");
	assert_digits(b.sd, "15.811388");
	assert_digits(n.sd, "10.368221");
	assert_digits(b.cv, "1.5811");
	assert_digits(n.cv, "0.9989");
	assert_digits(b.hmean, "999.799972");
	assert_digits(n.hmean, "1037.917028");
	t = table_of(v2_base, 5, v2_new, 5, COMPARE_HIGHER_BETTER,
	    COMPARE_AMEAN);
	assert_digits(compare_table_cell(t, 0, 1)->pct_imp, "+3.8000");
	assert_false(signbit(compare_table_cell(t, 0, 0)->pct_imp));
	assert_digits(compare_table_cell(t, 0, 1)->test.t, "4.493974");
	assert_digits(compare_table_cell(t, 0, 1)->test.nu, "6.903199");
	assert_digits(compare_table_cell(t, 0, 1)->test.p, "0.00291818");
	compare_table_free(t);
	t = table_of(v2_base, 5, v2_new, 5, COMPARE_HIGHER_BETTER,
	    COMPARE_HMEAN);
	assert_int_equal(t->test, STATS_TEST_WELCH_INV);
	assert_digits(compare_table_cell(t, 0, 1)->value, "1037.917028");
	assert_digits(compare_table_cell(t, 0, 1)->pct_imp, "+3.8125");
	assert_digits(compare_table_cell(t, 0, 1)->test.p, "0.00348219");
	compare_table_free(t);
	stats_mwu(v2_base, 5, v2_new, 5, STATS_MWU_AUTO, &r);
	assert_digits(r.u, "0");
	assert_true(r.exact);
	assert_digits(r.p, "0.00793651");
}

static void
test_v3(void **state)
{
	struct compare_table	  *t;
	const struct compare_cell *b, *n;
	struct stats_test	   r;

	t = table_of(v3_base, 6, v3_new, 6, COMPARE_LOWER_BETTER,
	    COMPARE_MEDIAN);
	b = compare_table_cell(t, 0, 0);
	n = compare_table_cell(t, 0, 1);
	assert_digits(b->value, "17");
	assert_digits(n->value, "14.5");
	assert_digits(n->norm, "0.8529");
	assert_digits(n->pct_imp, "+14.7059");
	assert_digits(b->sum.cv, "8.6858");
	assert_digits(n->sum.cv, "5.5670");
	assert_int_equal(n->test.kind, STATS_TEST_MWU);
	assert_true(n->test.exact);
	assert_digits(n->test.u, "35");
	assert_digits(n->test.p, "0.00649351");
	assert_true(isnan(n->ci_lo));
	compare_table_free(t);
	stats_mwu(v3_base, 6, v3_new, 6, STATS_MWU_NORMAL, &r);
	assert_digits(r.z, "2.689553");
	assert_digits(r.p, "0.00715478");
	stats_welch(v3_base, 6, v3_new, 6, STATS_TEST_WELCH, &r);
	assert_digits(r.p, "0.00550488");
}

static void
test_percentile(void **state)
{
	static const double x[] = { 7, 1, 10, 4, 2, 9, 3, 8, 5, 6 };

	assert_digits(stats_percentile(x, 10, 0.9), "9.1");
	assert_digits(stats_percentile(x, 10, 0.25), "3.25");
	assert_digits(stats_percentile(x, 10, 0), "1");
	assert_digits(stats_percentile(x, 10, 1), "10");
	assert_digits(stats_percentile(x, 1, 0.5), "7");
	assert_true(isnan(stats_percentile(x, 0, 0.5)));
}

static void
test_n1(void **state)
{
	static const double   one[] = { 3 };
	struct compare_table *t;
	struct stats_summary  s;
	struct stats_test     r;

	assert_int_equal(stats_summarize(one, 0, &s), -1);
	assert_int_equal(stats_summarize(one, 1, &s), 0);
	assert_digits(s.amean, "3");
	assert_digits(s.median, "3");
	assert_true(isnan(s.sd) && isnan(s.cv));
	stats_welch(one, 1, v1_new, 5, STATS_TEST_WELCH, &r);
	assert_false(r.done);
	assert_true(isnan(r.p));
	t = table_of(one, 1, v1_new, 5, COMPARE_LOWER_BETTER, COMPARE_AMEAN);
	assert_int_equal(compare_table_cell(t, 0, 1)->mark, ' ');
	assert_int_equal(t->nwarnings, 1);
	assert_non_null(strstr(t->warnings[0], "\"base\": n=1 in 1 of 1"));
	assert_non_null(strstr(t->warnings[0], "n >= 2"));
	compare_table_free(t);
}

static void
test_all_equal(void **state)
{
	static const double a[] = { 5, 5, 5, 5 }, b[] = { 6, 6, 6 };
	struct stats_test   r;

	stats_welch(a, 4, a, 4, STATS_TEST_WELCH, &r);
	assert_true(r.done);
	assert_true(r.p == 1);
	stats_welch(a, 4, b, 3, STATS_TEST_WELCH, &r);
	assert_true(r.p == 0);
	assert_digits(r.diff, "1");
	stats_mwu(a, 4, a, 4, STATS_MWU_AUTO, &r);
	assert_true(r.done && r.p == 1);
	stats_mwu(a, 4, a, 4, STATS_MWU_NORMAL, &r);
	assert_true(r.p == 1);
	/* Identical sets: the two-sided exact p is capped at 1. */
	stats_mwu(v1_base, 5, v1_base, 5, STATS_MWU_EXACT, &r);
	assert_true(r.p == 1);
}

static void
test_zero_base(void **state)
{
	static const double   z[] = { 0, 0, 0 }, x[] = { 1, 2, 3 };
	struct compare_table *t;
	char		     *out;

	t = table_of(z, 3, x, 3, COMPARE_LOWER_BETTER, COMPARE_AMEAN);
	assert_true(isnan(compare_table_cell(t, 0, 1)->norm));
	assert_true(isnan(compare_table_cell(t, 0, 1)->delta));
	assert_true(isnan(compare_table_cell(t, 0, 0)->sum.cv));
	assert_true(compare_table_cell(t, 0, 1)->test.done);
	out = render_string(t, "pct");
	assert_non_null(strstr(out, "n/a"));
	free(out);
	out = render_string(t, "amd");
	assert_non_null(strstr(out, " n/a [   n/a](  n/a)"));
	free(out);
	compare_table_free(t);
}

static void
test_zero_sign(void **state)
{
	struct compare_table *t;
	char		     *out;

	t = table_of(v1_base, 5, v1_base, 5, COMPARE_LOWER_BETTER,
	    COMPARE_AMEAN);
	assert_int_equal(compare_table_cell(t, 0, 1)->mark, '~');
	out = render_string(t, "amd");
	assert_non_null(strstr(out, "1.00 [ -0.00]( 3.76)~"));
	free(out);
	out = render_string(t, "pct");
	assert_non_null(strstr(out, " 0.0%~"));
	assert_null(strstr(out, "-0.0"));
	free(out);
	out = render_string(t, "meansd");
	assert_non_null(strstr(out, " 0.00~"));
	assert_null(strstr(out, "-0.00"));
	free(out);
	out = render_string(t, "csv");
	assert_null(strstr(out, ",-0,"));
	free(out);
	compare_table_free(t);
	t = table_of(v2_base, 5, v2_base, 5, COMPARE_HIGHER_BETTER,
	    COMPARE_AMEAN);
	out = render_string(t, "amd");
	assert_non_null(strstr(out, "1.00 [  0.00]( 1.58)~"));
	free(out);
	compare_table_free(t);
}

static void
test_negative(void **state)
{
	static const double   x[] = { -1, 2, 3 }, y[] = { 1, 2, 4 };
	struct compare_table *t;
	struct stats_summary  s;
	struct stats_test     r;

	stats_summarize(x, 3, &s);
	assert_true(isnan(s.hmean) && isnan(s.gmean));
	assert_digits(s.amean, "1.333333");
	stats_welch(y, 3, x, 3, STATS_TEST_WELCH_INV, &r);
	assert_false(r.done);
	stats_welch(y, 3, x, 3, STATS_TEST_WELCH_LOG, &r);
	assert_false(r.done);
	t = table_of(y, 3, x, 3, COMPARE_HIGHER_BETTER, COMPARE_HMEAN);
	assert_true(isnan(compare_table_cell(t, 0, 1)->value));
	assert_true(isnan(compare_table_cell(t, 0, 1)->pct_imp));
	assert_int_equal(compare_table_cell(t, 0, 1)->mark, ' ');
	compare_table_free(t);
}

static void
test_welch_log(void **state)
{
	double		      lb[5], ln[5];
	struct stats_test     a, b;
	struct compare_table *t;
	size_t		      i;

	for (i = 0; i < 5; i++) {
		lb[i] = log(v2_base[i]);
		ln[i] = log(v2_new[i]);
	}
	stats_welch(v2_base, 5, v2_new, 5, STATS_TEST_WELCH_LOG, &a);
	stats_welch(lb, 5, ln, 5, STATS_TEST_WELCH, &b);
	assert_true(a.done && a.p == b.p && a.t == b.t);
	t = table_of(v2_base, 5, v2_new, 5, COMPARE_HIGHER_BETTER,
	    COMPARE_GMEAN);
	/* The CI of the change holds the change of the geometric means. */
	assert_true(compare_table_cell(t, 0, 1)->ci_lo <
	    compare_table_cell(t, 0, 1)->delta);
	assert_true(compare_table_cell(t, 0, 1)->ci_hi >
	    compare_table_cell(t, 0, 1)->delta);
	assert_true(compare_table_cell(t, 0, 1)->ci_lo > 0);
	compare_table_free(t);
}

static void
test_mwu_method(void **state)
{
	double		  a[51], b[51];
	struct stats_test r;
	size_t		  i;

	for (i = 0; i < 51; i++) {
		a[i] = (double)i;
		b[i] = i + 0.5;
	}
	stats_mwu(a, 50, b, 50, STATS_MWU_AUTO, &r);
	assert_true(r.exact);
	stats_mwu(a, 51, b, 50, STATS_MWU_AUTO, &r);
	assert_false(r.exact);
	b[0] = 0; /* one tie */
	stats_mwu(a, 25, b, 25, STATS_MWU_AUTO, &r);
	assert_true(r.exact);
	stats_mwu(a, 26, b, 25, STATS_MWU_AUTO, &r);
	assert_false(r.exact);
	/* Large samples: exact and normal agree closely. */
	stats_mwu(a, 40, b + 1, 40, STATS_MWU_EXACT, &r);
	{
		double exact = r.p;

		stats_mwu(a, 40, b + 1, 40, STATS_MWU_NORMAL, &r);
		assert_true(fabs(exact - r.p) < 0.01);
	}
}

/* qsort order of doubles. */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The rank sum and tie term of samples too large for the exact p, with
 * many ties, against the pooled midranks: U from the base's midranks,
 * z from the normal approximation with tie and continuity correction.
 */
static void
test_mwu_ties_large(void **state)
{
	enum { NB = 300, NX = 200, N = NB + NX };
	double all[N], sorted[N], r[N], u = 0, ties = 0, t, mu, sd, d;
	struct stats_test res;
	size_t		  i, j;

	srand(7);
	for (i = 0; i < N; i++)
		all[i] = (double)(rand() % 40) + (i >= NB ? 10 : 0);
	stats_midranks(all, N, r);
	for (i = 0; i < NB; i++)
		u += r[i];
	u -= (double)NB * (NB + 1) / 2;
	memcpy(sorted, all, sizeof all);
	qsort(sorted, N, sizeof *sorted, cmp_double);
	for (i = 0; i < N; i = j) {
		for (j = i + 1; j < N && sorted[j] == sorted[i]; j++)
			;
		t = (double)(j - i);
		ties += t * t * t - t;
	}
	stats_mwu(all, NB, all + NB, NX, STATS_MWU_AUTO, &res);
	assert_false(res.exact);
	assert_true(res.u == u);
	mu = (double)NB * NX / 2;
	sd =
	    sqrt((double)NB * NX / 12 * (N + 1 - ties / ((double)N * (N - 1))));
	d = u - mu;
	d += d > 0 ? -0.5 : 0.5;
	assert_true(fabs(res.z - d / sd) < 1e-12);
	assert_true(res.p < 1e-6); /* x is shifted up by 10 */
	/* The sides swapped: the other U, the same p. */
	{
		double p = res.p;

		stats_mwu(all + NB, NX, all, NB, STATS_MWU_AUTO, &res);
		assert_true(res.u == (double)NB * NX - u);
		assert_true(fabs(res.p - p) < 1e-15);
	}
}

static void
test_small_n_warning(void **state)
{
	static const double   x[] = { 1, 2, 3 };
	struct compare_table *t;

	t = table_of(x, 3, v3_new, 6, COMPARE_LOWER_BETTER, COMPARE_MEDIAN);
	assert_int_equal(t->nwarnings, 1);
	assert_non_null(strstr(t->warnings[0], "Mann-Whitney U needs n >= 4"));
	assert_true(compare_table_cell(t, 0, 1)->test.done);
	compare_table_free(t);
	t = table_of(x, 3, v3_new, 6, COMPARE_LOWER_BETTER, COMPARE_AMEAN);
	assert_int_equal(t->nwarnings, 0);
	compare_table_free(t);
}

static void
test_precision(void **state)
{
	static const double tight[] = { 100, 101, 99, 100, 100, 101, 99, 100,
		100, 100 };
	static const double loose[] = { 50, 150, 80, 120, 60, 140, 70, 130, 90,
		110 };

	/* t(0.975, 9) = 2.262: half-width 2.262 * 0.667 / sqrt(10). */
	assert_digits(stats_ci_halfwidth(tight, 10), "0.477");
	assert_true(
	    stats_precision_reached(tight, 10, STATS_TEST_WELCH, 0.01, 10, 30));
	assert_false(
	    stats_precision_reached(tight, 9, STATS_TEST_WELCH, 0.01, 10, 30));
	assert_false(
	    stats_precision_reached(loose, 10, STATS_TEST_WELCH, 0.01, 10, 30));
	assert_true(
	    stats_precision_reached(loose, 10, STATS_TEST_WELCH, 0.01, 5, 10));
	assert_true(
	    stats_precision_reached(loose, 10, STATS_TEST_WELCH, 0.5, 5, 30));
}

/*
 * The precision of each statistic: its 95% CI half-width relative to it,
 * on the transformed scale for HMean and GMean (t(0.975, 4) = 2.776445),
 * order statistics for the median (n = 6: [x(1), x(6)], none below 6).
 */
static void
test_precision_statistics(void **state)
{
	double lo, hi;

	assert_digits(stats_precision(v1_base, 5, STATS_TEST_WELCH),
	    "0.0467439");
	assert_int_equal(stats_interval(v2_base, 5, STATS_TEST_WELCH_INV, &lo,
			     &hi),
	    0);
	assert_digits(lo, "980.5454");
	assert_digits(hi, "1019.8258");
	assert_digits(stats_precision(v2_base, 5, STATS_TEST_WELCH_INV),
	    "0.0196441");
	assert_digits(stats_precision(v2_base, 5, STATS_TEST_WELCH_LOG),
	    "0.0196363");
	assert_digits(stats_precision(v3_base, 6, STATS_TEST_MWU), "0.117647");
	assert_true(isnan(stats_precision(v3_base, 5, STATS_TEST_MWU)));
	assert_true(isnan(stats_precision(v1_base, 1, STATS_TEST_WELCH)));
	/* Constant samples: an interval of width 0, precision 0. */
	assert_digits(stats_precision((const double[]){ 3, 3, 3 }, 3,
			  STATS_TEST_WELCH),
	    "0.000");
	assert_true(
	    stats_precision_reached(v3_base, 6, STATS_TEST_MWU, 0.12, 6, 30));
	assert_false(
	    stats_precision_reached(v3_base, 6, STATS_TEST_MWU, 0.11, 6, 30));
}

static void
test_boots(void **state)
{
	static const double   bb[] = { 2.1, 2.12, 2.08 };
	static const double   nb[] = { 1.97, 1.99, 1.98 };
	struct compare_table *t;
	char		     *out;

	t = table_of(v1_base, 5, v1_new, 5, COMPARE_LOWER_BETTER,
	    COMPARE_AMEAN);
	compare_table_set_boots(t, 0, 0, bb, 3);
	compare_table_set_boots(t, 0, 1, nb, 2);
	compare_table_compute(t);
	assert_false(compare_table_cell(t, 0, 1)->boot_test.done);
	compare_table_set_boots(t, 0, 1, nb, 3);
	compare_table_compute(t);
	assert_true(compare_table_cell(t, 0, 1)->boot_test.done);
	assert_true(compare_table_cell(t, 0, 1)->boot_test.p < 0.05);
	out = render_string(t, "change");
	assert_non_null(strstr(out, "per-boot means: new case p="));
	free(out);
	compare_table_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1_summary),
		cmocka_unit_test(test_v1_change_and_amd),
		cmocka_unit_test(test_v1_welch),
		cmocka_unit_test(test_v1_mwu),
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_v3),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_n1),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_zero_base),
		cmocka_unit_test(test_zero_sign),
		cmocka_unit_test(test_negative),
		cmocka_unit_test(test_welch_log),
		cmocka_unit_test(test_mwu_method),
		cmocka_unit_test(test_mwu_ties_large),
		cmocka_unit_test(test_small_n_warning),
		cmocka_unit_test(test_precision),
		cmocka_unit_test(test_precision_statistics),
		cmocka_unit_test(test_boots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
