/*
 * The change point detector (report/changepoint.h) on seeded series: a
 * planted step is found at its index with the verdict of the metric's
 * direction, a lone outlier and a flat noisy series are not changes, a
 * short series is judged by Welch's test, and the same series gives the
 * same p-value every time.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "report/changepoint.h"

/* A seeded normal number (splitmix64, Box-Muller). */
static double
noise(uint64_t *state)
{
	double	 u[2];
	uint64_t z;
	int	 i;

	for (i = 0; i < 2; i++) {
		z = (*state += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		u[i] = ((double)(z >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* n points at level 100 and cv percent, times 1 + step% from at on. */
static void
series(double *x, size_t n, double cv, size_t at, double step, uint64_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = 100 * (i >= at ? 1 + step / 100 : 1) *
		    (1 + cv / 100 * noise(&seed));
}

/* A 4% step at cv 1% after 30 points: found there, worse for "lower". */
static void
test_step_found(void **state)
{
	struct changepoint c;
	double		   x[40];

	(void)state;
	series(x, 40, 1, 30, 4, 7);
	assert_true(changepoint_find(x, 40, COMPARE_LOWER_BETTER,
	    &changepoint_defaults, &c));
	assert_int_equal(c.index, 30);
	assert_true(c.permuted);
	assert_true(c.p <= changepoint_defaults.alpha);
	assert_true(c.effect_pct > 3 && c.effect_pct < 5);
	assert_true(fabs(c.before - 100) < 1 && fabs(c.after - 104) < 1.5);
	assert_int_equal(c.verdict, CHANGEPOINT_REGRESSION);
}

/* A drop is a regression when higher is better, else an improvement. */
static void
test_direction(void **state)
{
	struct changepoint c;
	double		   x[36];

	(void)state;
	series(x, 36, 2, 28, -6, 11);
	assert_true(changepoint_find(x, 36, COMPARE_HIGHER_BETTER,
	    &changepoint_defaults, &c));
	assert_int_equal(c.index, 28);
	assert_true(c.effect_pct < -4);
	assert_int_equal(c.verdict, CHANGEPOINT_REGRESSION);
	assert_true(changepoint_find(x, 36, COMPARE_LOWER_BETTER,
	    &changepoint_defaults, &c));
	assert_int_equal(c.verdict, CHANGEPOINT_IMPROVEMENT);
	assert_true(changepoint_find(x, 36, COMPARE_DIR_UNKNOWN,
	    &changepoint_defaults, &c));
	assert_int_equal(c.verdict, CHANGEPOINT_UNJUDGED);
}

/*
 * A lone 5-sigma outlier, seen as a sweep sees it (every prefix of the
 * series, the outlier last, then followed by 1, 2, 3... points), is never
 * a change, up or down; the same series staying at the outlier's level
 * from there on is.
 */
static void
test_outlier_not_change(void **state)
{
	struct changepoint c;
	double		   x[40], sign;
	size_t		   n;

	(void)state;
	for (sign = -1; sign <= 1; sign += 2) {
		series(x, 40, 2, 40, 0, 3);
		x[30] += sign * 5 * 2;
		for (n = 6; n <= 40; n++)
			if (changepoint_find(x, n, COMPARE_LOWER_BETTER,
				&changepoint_defaults, &c))
				fail_msg(
				    "outlier %+.0f: a change at %zu of %zu "
				    "(p=%g)",
				    sign, c.index, n, c.p);
	}
	for (n = 31; n < 40; n++)
		x[n] += 10;
	assert_true(changepoint_find(x, 40, COMPARE_LOWER_BETTER,
	    &changepoint_defaults, &c));
	assert_int_equal(c.index, 30);
}

/* A flat series at cv 8% is no change at any length. */
static void
test_flat_not_change(void **state)
{
	struct changepoint c;
	double		   x[50];
	size_t		   n;

	(void)state;
	series(x, 50, 8, 50, 0, 5);
	for (n = 1; n <= 50; n++)
		if (changepoint_find(x, n, COMPARE_LOWER_BETTER,
			&changepoint_defaults, &c))
			fail_msg("a change at %zu of %zu (p=%g)", c.index, n,
			    c.p);
}

/*
 * 3 points then 3 twice as high (a sweep's first jobs): Welch's test
 * finds it; 5 points are too few to tell, and a step below the minimum
 * effect is none however significant.
 */
static void
test_short_series(void **state)
{
	static const double x[] = { 201.2, 200.9, 201.4, 401.0, 401.6, 400.8 };
	static const double tiny[] = { 100.0, 100.01, 100.0, 100.5, 100.51,
		100.5 };
	struct changepoint  c;

	(void)state;
	assert_false(changepoint_find(x, 5, COMPARE_LOWER_BETTER,
	    &changepoint_defaults, &c));
	assert_true(changepoint_find(x, 6, COMPARE_LOWER_BETTER,
	    &changepoint_defaults, &c));
	assert_false(c.permuted);
	assert_int_equal(c.index, 3);
	assert_true(c.p < 0.001);
	assert_true(
	    fabs(c.before - 201.2) < 1e-9 && fabs(c.after - 401.0) < 1e-9);
	assert_false(changepoint_find(tiny, 6, COMPARE_LOWER_BETTER,
	    &changepoint_defaults, &c));
	assert_true(c.p < 0.001 && fabs(c.effect_pct - 0.5) < 0.01);
}

/* The same series gives the same p; another seed may not. */
static void
test_seeded(void **state)
{
	struct changepoint_params p = changepoint_defaults;
	struct changepoint	  a, b;
	double			  x[30];

	(void)state;
	series(x, 30, 2, 20, 1.5, 9);
	p.alpha = 1;
	changepoint_find(x, 30, COMPARE_LOWER_BETTER, &p, &a);
	changepoint_find(x, 30, COMPARE_LOWER_BETTER, &p, &b);
	assert_true(a.permuted);
	assert_true(a.p == b.p && a.index == b.index);
	assert_true(a.p > 0 && a.p < 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_found),
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_outlier_not_change),
		cmocka_unit_test(test_flat_not_change),
		cmocka_unit_test(test_short_series),
		cmocka_unit_test(test_seeded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
