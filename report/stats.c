/* Statistics of sample sets: summaries, Welch's t-test, Mann-Whitney U. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "common/xmalloc.h"
#include "report/stats.h"

/* Largest side for the exact Mann-Whitney U p, without and with ties. */
#define STATS_MWU_EXACT_MAX	 50
#define STATS_MWU_EXACT_MAX_TIES 25

/* Returns a sorted copy of x; the caller frees it. */
static double *
stats_sorted(const double *x, size_t n)
{
	double *s;

	s = xreallocarray(NULL, n ? n : 1, sizeof *s);
	memcpy(s, x, n * sizeof *s);
	gsl_sort(s, 1, n);
	return s;
}

/* Fills the harmonic and geometric means, NAN when any x <= 0. */
static void
stats_positive_means(const double *x, size_t n, struct stats_summary *s)
{
	double inv = 0, logs = 0;
	size_t i;

	s->hmean = s->gmean = NAN;
	for (i = 0; i < n; i++) {
		if (!(x[i] > 0))
			return;
		inv += 1 / x[i];
		logs += log(x[i]);
	}
	s->hmean = n / inv;
	s->gmean = exp(logs / n);
}

/* Summarizes n samples; returns -1 when there are none. */
int
stats_summarize(const double *x, size_t n, struct stats_summary *s)
{
	double *sorted;

	memset(s, 0, sizeof *s);
	if (n == 0)
		return -1;
	sorted = stats_sorted(x, n);
	s->n = n;
	s->amean = gsl_stats_mean(x, 1, n);
	s->median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->sd = n < 2 ? NAN : gsl_stats_sd_m(x, 1, n, s->amean);
	s->cv = s->amean == 0 ? NAN : 100 * s->sd / s->amean;
	stats_positive_means(x, n, s);
	free(sorted);
	return 0;
}

/* Returns the q quantile (0..1) by linear interpolation, R type 7. */
double
stats_percentile(const double *x, size_t n, double q)
{
	double *sorted, v;

	if (n == 0 || !(q >= 0 && q <= 1))
		return NAN;
	sorted = stats_sorted(x, n);
	v = gsl_stats_quantile_from_sorted_data(sorted, 1, n, q);
	free(sorted);
	return v;
}

/* Marks a test as not run. */
static void
stats_test_clear(struct stats_test *r, enum stats_test_kind kind)
{
	r->kind = kind;
	r->done = 0;
	r->p = r->t = r->nu = r->diff = r->ci_lo = r->ci_hi = NAN;
	r->u = r->z = NAN;
	r->exact = 0;
}

/* x through the test's transform: x, 1/x or ln x. */
static double
stats_transformed(double x, enum stats_test_kind kind)
{
	switch (kind) {
	case STATS_TEST_WELCH_INV:
		return 1 / x;
	case STATS_TEST_WELCH_LOG:
		return log(x);
	default:
		return x;
	}
}

/*
 * The mean and the sample variance of n >= 2 samples through the test's
 * transform, computed as gsl_stats_mean and gsl_stats_variance_m do,
 * without a transformed copy; -1 when a sample is outside its domain.
 */
static int
stats_moments(const double *x, size_t n, enum stats_test_kind kind,
    double *mean, double *var)
{
	long double m = 0, v = 0, d;
	size_t	    i;

	for (i = 0; i < n; i++) {
		if (kind != STATS_TEST_WELCH && !(x[i] > 0))
			return -1;
		m += (stats_transformed(x[i], kind) - m) / (i + 1);
	}
	*mean = (double)m;
	for (i = 0; i < n; i++) {
		d = stats_transformed(x[i], kind) - *mean;
		v += (d * d - v) / (i + 1);
	}
	*var = (double)v * ((double)n / (double)(n - 1));
	return 0;
}

/* Welch's t-test of two means and the variances of the means. */
static void
stats_welch_raw(double mb, double vb, size_t nb, double mx, double vx,
    size_t nx, struct stats_test *r)
{
	double se, q;

	r->done = 1;
	r->diff = mx - mb;
	if (vb == 0 && vx == 0) {
		/* No spread at all: the means either match or they do not. */
		r->p = mx == mb ? 1 : 0;
		r->t = mx == mb ? 0 : copysign(INFINITY, r->diff);
		r->ci_lo = r->ci_hi = r->diff;
		return;
	}
	se = sqrt(vb + vx);
	r->t = r->diff / se;
	r->nu =
	    (vb + vx) * (vb + vx) / (vb * vb / (nb - 1) + vx * vx / (nx - 1));
	r->p = fmin(1, 2 * gsl_cdf_tdist_Q(fabs(r->t), r->nu));
	q = gsl_cdf_tdist_Qinv(0.025, r->nu);
	r->ci_lo = r->diff - q * se;
	r->ci_hi = r->diff + q * se;
}

/* Welch's t-test of x against base b on x, 1/x or ln x, as kind says. */
void
stats_welch(const double *b, size_t nb, const double *x, size_t nx,
    enum stats_test_kind kind, struct stats_test *r)
{
	double mb, vb, mx, vx;

	stats_test_clear(r, kind);
	if (nb < 2 || nx < 2 || stats_moments(b, nb, kind, &mb, &vb) == -1 ||
	    stats_moments(x, nx, kind, &mx, &vx) == -1)
		return;
	stats_welch_raw(mb, vb / nb, nb, mx, vx / nx, nx, r);
}

/*
 * Pools both samples (base first) and stores each one's doubled midrank,
 * an integer; returns the tie term sum(t^3 - t).
 */
static double
stats_mwu_ranks(const double *b, size_t nb, const double *x, size_t nx,
    long *r2)
{
	size_t	n = nb + nx, i, j, k, *idx;
	double *all, ties = 0, t;

	all = xreallocarray(NULL, n, sizeof *all);
	idx = xreallocarray(NULL, n, sizeof *idx);
	memcpy(all, b, nb * sizeof *all);
	memcpy(all + nb, x, nx * sizeof *all);
	gsl_sort_index(idx, all, 1, n);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && all[idx[j]] == all[idx[i]]; j++)
			;
		for (k = i; k < j; k++)
			r2[idx[k]] = (long)(i + j + 1);
		t = (double)(j - i);
		ties += t * t * t - t;
	}
	free(all);
	free(idx);
	return ties;
}

/* The midranks of x (ties share the mean of their ranks, 1-based). */
void
stats_midranks(const double *x, size_t n, double *r)
{
	long  *r2 = xreallocarray(NULL, n ? n : 1, sizeof *r2);
	size_t i;

	stats_mwu_ranks(x, n, x, 0, r2);
	for (i = 0; i < n; i++)
		r[i] = (double)r2[i] / 2;
	free(r2);
}

/*
 * Exact two-sided p of the doubled base rank sum obs: counts the subsets
 * of size nb of the pooled doubled midranks by their sum.
 */
static double
stats_mwu_exact_p(const long *r2, size_t n, size_t nb, long obs)
{
	long	total = 0, s, lo_bound;
	size_t	i, k, w;
	double *dp, all = 0, lower = 0, upper = 0, c;

	for (i = 0; i < n; i++)
		total += r2[i];
	w = (size_t)total + 1;
	dp = xcalloc((nb + 1) * w, sizeof *dp);
	dp[0] = 1;
	for (i = 0; i < n; i++)
		for (k = nb < i + 1 ? nb : i + 1; k >= 1; k--)
			for (s = total; s >= r2[i]; s--)
				dp[k * w + s] += dp[(k - 1) * w + s - r2[i]];
	lo_bound = obs;
	for (s = 0; s <= total; s++) {
		c = dp[nb * w + s];
		all += c;
		if (s <= lo_bound)
			lower += c;
		if (s >= lo_bound)
			upper += c;
	}
	free(dp);
	return fmin(1, 2 * fmin(lower, upper) / all);
}

/* Normal approximation with tie and continuity correction; sets z. */
static double
stats_mwu_normal_p(size_t nb, size_t nx, double ties, struct stats_test *r)
{
	double n = (double)(nb + nx), mu, sigma, d;

	mu = (double)nb * nx / 2;
	sigma = sqrt((double)nb * nx / 12 * (n + 1 - ties / (n * (n - 1))));
	d = r->u - mu;
	if (d > 0)
		d -= 0.5;
	else if (d < 0)
		d += 0.5;
	r->z = d / sigma;
	return fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(r->z)));
}

/* Returns whether the exact distribution applies to these sizes. */
static int
stats_mwu_use_exact(size_t nb, size_t nx, int tied)
{
	size_t max = tied ? STATS_MWU_EXACT_MAX_TIES : STATS_MWU_EXACT_MAX;

	return nb <= max && nx <= max;
}

/*
 * The doubled rank sum of b in b and x pooled (midranks for ties) and the
 * tie term sum(t^3 - t), by merging sorted copies of each: the same
 * numbers as stats_mwu_ranks in a third of its memory.
 */
static double
stats_mwu_base_sum(const double *b, size_t nb, const double *x, size_t nx,
    long *sum2)
{
	double *sb = stats_sorted(b, nb), *sx = stats_sorted(x, nx), v, t,
	       ties = 0;
	size_t i = 0, j = 0, kb, kx, pos = 0;

	*sum2 = 0;
	while (i < nb || j < nx) {
		kb = kx = 0;
		if (i < nb && (j >= nx || sb[i] <= sx[j]))
			v = sb[i++], kb = 1;
		else
			v = sx[j++], kx = 1;
		for (; i < nb && sb[i] == v; i++)
			kb++;
		for (; j < nx && sx[j] == v; j++)
			kx++;
		*sum2 += (long)kb * (long)(2 * pos + kb + kx + 1);
		t = (double)(kb + kx);
		ties += t * t * t - t;
		pos += kb + kx;
	}
	free(sb);
	free(sx);
	return ties;
}

/* Mann-Whitney U test of x against base b with pooled midranks. */
void
stats_mwu(const double *b, size_t nb, const double *x, size_t nx,
    enum stats_mwu_method method, struct stats_test *r)
{
	size_t n = nb + nx;
	long  *r2, sum2;
	double ties;

	stats_test_clear(r, STATS_TEST_MWU);
	if (nb == 0 || nx == 0)
		return;
	ties = stats_mwu_base_sum(b, nb, x, nx, &sum2);
	r->done = 1;
	r->u = (sum2 - (double)nb * (nb + 1)) / 2;
	if (ties == (double)n * n * n - n) {
		/* Every value equal: nothing to tell apart. */
		r->p = 1;
		r->z = 0;
	} else if (method == STATS_MWU_EXACT ||
	    (method == STATS_MWU_AUTO &&
		stats_mwu_use_exact(nb, nx, ties > 0))) {
		r->exact = 1;
		r2 = xreallocarray(NULL, n, sizeof *r2);
		stats_mwu_ranks(b, nb, x, nx, r2);
		r->p = stats_mwu_exact_p(r2, n, nb, sum2);
		free(r2);
	} else
		r->p = stats_mwu_normal_p(nb, nx, ties, r);
}

/* Runs the test of the given kind of x against base b. */
void
stats_test_run(enum stats_test_kind kind, const double *b, size_t nb,
    const double *x, size_t nx, struct stats_test *r)
{
	switch (kind) {
	case STATS_TEST_WELCH:
	case STATS_TEST_WELCH_INV:
	case STATS_TEST_WELCH_LOG:
		stats_welch(b, nb, x, nx, kind, r);
		break;
	case STATS_TEST_MWU:
		stats_mwu(b, nb, x, nx, STATS_MWU_AUTO, r);
		break;
	default:
		stats_test_clear(r, STATS_TEST_NONE);
		break;
	}
}

/* Returns the smallest n per side with which the test can reach alpha. */
size_t
stats_test_min_n(enum stats_test_kind kind)
{
	switch (kind) {
	case STATS_TEST_MWU:
		return 4;
	case STATS_TEST_NONE:
		return 0;
	default:
		return 2;
	}
}

/* Returns the test's name as printed under tables. */
const char *
stats_test_name(enum stats_test_kind kind)
{
	switch (kind) {
	case STATS_TEST_WELCH:
		return "Welch's t-test";
	case STATS_TEST_WELCH_INV:
		return "Welch's t-test on 1/x";
	case STATS_TEST_WELCH_LOG:
		return "Welch's t-test on ln x";
	case STATS_TEST_MWU:
		return "Mann-Whitney U";
	default:
		return "none";
	}
}

/* The half-width of the 95% t interval of a mean of n with variance var. */
static double
stats_halfwidth(double var, size_t n)
{
	return gsl_cdf_tdist_Qinv(0.025, (double)(n - 1)) * sqrt(var) / sqrt(n);
}

/* Returns the half-width of the 95% CI of the mean, NAN for n < 2. */
double
stats_ci_halfwidth(const double *x, size_t n)
{
	double m, v;

	if (n < 2 || stats_moments(x, n, STATS_TEST_WELCH, &m, &v) == -1)
		return NAN;
	return stats_halfwidth(v, n);
}

/* The t interval of the mean of x through the test's transform. */
static int
stats_t_interval(const double *x, size_t n, enum stats_test_kind kind,
    double *lo, double *hi)
{
	double m, v, h;

	if (n < 2 || stats_moments(x, n, kind, &m, &v) == -1)
		return -1;
	h = stats_halfwidth(v, n);
	*lo = m - h;
	*hi = m + h;
	return isfinite(*lo) && isfinite(*hi) ? 0 : -1;
}

/*
 * The order-statistic interval of the median: [x(l), x(n+1-l)], l the
 * largest with P(B <= l-1) <= 0.025 for B ~ Binomial(n, 1/2); -1 for
 * n < 6, where no pair of order statistics reaches 95%.
 */
static int
stats_median_interval(const double *x, size_t n, double *lo, double *hi)
{
	double *s;
	size_t	l = 0;

	while (l + 1 <= n / 2 &&
	    gsl_cdf_binomial_P((unsigned)l, 0.5, (unsigned)n) <= 0.025)
		l++;
	if (l == 0)
		return -1;
	s = stats_sorted(x, n);
	*lo = s[l - 1];
	*hi = s[n - l];
	free(s);
	return 0;
}

/* The 95% CI of the statistic the test kind compares; see stats.h. */
int
stats_interval(const double *x, size_t n, enum stats_test_kind kind, double *lo,
    double *hi)
{
	double a = NAN, b = NAN;
	int    rc;

	if (kind == STATS_TEST_MWU)
		return stats_median_interval(x, n, lo, hi);
	if (kind == STATS_TEST_NONE)
		return -1;
	rc = stats_t_interval(x, n, kind, &a, &b);
	if (rc == -1 || kind == STATS_TEST_WELCH) {
		*lo = a;
		*hi = b;
		return rc;
	}
	if (kind == STATS_TEST_WELCH_LOG) {
		*lo = exp(a);
		*hi = exp(b);
		return 0;
	}
	if (!(a > 0))
		return -1; /* the interval of 1/x reaches 0: no upper end */
	*lo = 1 / b;
	*hi = 1 / a;
	return 0;
}

/* The statistic the test kind compares, of a summary. */
static double
stats_statistic(const struct stats_summary *s, enum stats_test_kind kind)
{
	switch (kind) {
	case STATS_TEST_WELCH_INV:
		return s->hmean;
	case STATS_TEST_WELCH_LOG:
		return s->gmean;
	case STATS_TEST_MWU:
		return s->median;
	default:
		return s->amean;
	}
}

/* The relative half-width of the statistic's 95% CI; see stats.h. */
double
stats_precision(const double *x, size_t n, enum stats_test_kind kind)
{
	struct stats_summary s;
	double		     lo, hi, v;

	if (stats_interval(x, n, kind, &lo, &hi) == -1 ||
	    stats_summarize(x, n, &s) == -1)
		return NAN;
	v = stats_statistic(&s, kind);
	if (!(fabs(v) > 0))
		return NAN;
	return (hi - lo) / 2 / fabs(v);
}

/*
 * Returns 1 when a kernel's runs may stop: n reached max_n, or n reached
 * min_n and the statistic's 95% CI half-width is within w (a fraction) of
 * it.  Never looks at another kernel's samples.
 */
int
stats_precision_reached(const double *x, size_t n, enum stats_test_kind kind,
    double w, size_t min_n, size_t max_n)
{
	double p;

	if (n >= max_n)
		return 1;
	if (n < min_n)
		return 0;
	p = stats_precision(x, n, kind);
	return !isnan(p) && p <= w;
}
