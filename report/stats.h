/* Statistics of sample sets and the significance tests between two of them. */
#ifndef HILAB_STATS_H
#define HILAB_STATS_H

#include <stddef.h>

/* Two-sided significance level of every test. */
#define STATS_ALPHA 0.05

/*
 * Summary of one sample set. Undefined values are NAN: sd and cv for
 * n < 2, hmean and gmean when any x <= 0, cv when the mean is 0.
 */
struct stats_summary {
	size_t n;
	double amean;
	double hmean;
	double gmean;
	double median;
	double sd; /* sample sd, n - 1 */
	double cv; /* percent, 100 * sd / amean */
	double min;
	double max;
};

enum stats_test_kind {
	STATS_TEST_NONE,
	STATS_TEST_WELCH,     /* Welch's t-test on x (AMean rows) */
	STATS_TEST_WELCH_INV, /* Welch's t-test on 1/x (HMean rows) */
	STATS_TEST_WELCH_LOG, /* Welch's t-test on ln x (GMean rows) */
	STATS_TEST_MWU	      /* Mann-Whitney U (Median rows) */
};

enum stats_mwu_method {
	STATS_MWU_AUTO, /* exact when small enough, else normal */
	STATS_MWU_EXACT,
	STATS_MWU_NORMAL
};

/*
 * Result of comparing a new sample set against a base one. done is 0 when
 * the test could not run (n < 2 on a side, x outside the transform's
 * domain); every other field is then NAN.
 */
struct stats_test {
	enum stats_test_kind kind;
	int		     done;
	double		     p; /* two-sided, capped at 1 */
	/* Welch, in the transformed scale (x, 1/x or ln x). */
	double t;
	double nu;    /* Welch-Satterthwaite, never floored */
	double diff;  /* mean(new) - mean(base) */
	double ci_lo; /* 95% CI of diff */
	double ci_hi;
	/* Mann-Whitney U. */
	double u;     /* U of the base sample */
	double z;     /* normal approximation, corrected */
	int    exact; /* p from the exact distribution */
};

int	    stats_summarize(const double *, size_t, struct stats_summary *);
double	    stats_percentile(const double *, size_t, double);
void	    stats_welch(const double *, size_t, const double *, size_t,
	   enum stats_test_kind, struct stats_test *);
void	    stats_mwu(const double *, size_t, const double *, size_t,
	   enum stats_mwu_method, struct stats_test *);
void	    stats_test_run(enum stats_test_kind, const double *, size_t,
	   const double *, size_t, struct stats_test *);
size_t	    stats_test_min_n(enum stats_test_kind);
const char *stats_test_name(enum stats_test_kind);
/* The midranks of x into r (ties share the mean of their 1-based ranks). */
void stats_midranks(const double *x, size_t n, double *r);
/* The half-width of the 95% CI of the mean (t), NAN for n < 2. */
double stats_ci_halfwidth(const double *, size_t);
/*
 * The 95% confidence interval of the statistic the test kind compares:
 * Student's t on x (AMean), the same on 1/x inverted (HMean) and on ln x
 * exponentiated (GMean), the distribution-free order-statistic interval
 * of the median [x(l), x(n+1-l)], l the largest with P(B <= l-1) <= 0.025
 * for B ~ Binomial(n, 1/2) (MWU).  Returns 0 with [*lo, *hi], or -1 where
 * there is none: n < 2 (n < 6 for the median), x outside the transform's
 * domain, an interval of 1/x that reaches 0.
 */
int stats_interval(const double *, size_t, enum stats_test_kind, double *lo,
    double *hi);
/*
 * The precision of the statistic: the half-width of its stats_interval
 * relative to it (0.02 for +-2%), NAN where there is no interval or the
 * statistic is 0.
 */
double stats_precision(const double *, size_t, enum stats_test_kind);
/*
 * 1 when runs may stop: n reached max_n, or min_n with stats_precision
 * at most w.  Never looks at another kernel's samples.
 */
int stats_precision_reached(const double *, size_t, enum stats_test_kind,
    double w, size_t min_n, size_t max_n);

#endif
