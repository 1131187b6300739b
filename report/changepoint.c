/* Change points in a series: E-Divisive means with a permutation test. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "report/changepoint.h"
#include "report/stats.h"

/*
 * What sweeps use, tuned on the simulation of bench/bench_changepoint.c
 * (its figures are in the README): 50 points, 3 each side, p <= 0.02 from
 * 999 permutations, and a change of the medians of 1% or more.  A lower
 * alpha finds a 1-sigma step later (0.005: 13 points after it at the
 * median, 0.02: 8), a higher one alerts more on noise (0.03: 1.1 false
 * alerts per 100 points in the worst kind of series).
 */
const struct changepoint_params changepoint_defaults = { 50, 3, 0.02, 1.0, 999,
	0x5eedc0de };

/* The next number of a splitmix64 sequence. */
static uint64_t
changepoint_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Shuffles y in place (Fisher-Yates). */
static void
changepoint_shuffle(double *y, size_t m, uint64_t *state)
{
	size_t i, j;
	double t;

	for (i = m - 1; i > 0; i--) {
		j = (size_t)(changepoint_rand(state) % (i + 1));
		t = y[i];
		y[i] = y[j];
		y[j] = t;
	}
}

/*
 * The scaled E-statistic (alpha 1) of splitting y before t, from the sums
 * of distances within the left part (l), the right part (r) and all (all).
 */
static double
changepoint_q(size_t m, size_t t, double l, double r, double all)
{
	double a = (double)t, b = (double)(m - t), between = all - l - r;

	return a * b / (double)m *
	    (2 * between / (a * b) - 2 * l / (a * (a - 1)) -
		2 * r / (b * (b - 1)));
}

/*
 * The split of y (m points) with the largest E-statistic among those with
 * k points or more each side; its statistic in *best.  scratch holds 2m.
 */
static size_t
changepoint_scan(const double *y, size_t m, size_t k, double *scratch,
    double *best)
{
	double *up = scratch, *down = scratch + m, l = 0, r = 0, all = 0, q;
	size_t	i, j, t, at = k;

	memset(scratch, 0, 2 * m * sizeof *scratch);
	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++) {
			q = fabs(y[i] - y[j]);
			up[j] += q;   /* to the points before j */
			down[i] += q; /* to the points after i */
			all += q;
		}
	for (i = 0; i < k; i++)
		l += up[i];
	for (i = k; i < m; i++)
		r += down[i];
	*best = -INFINITY;
	for (t = k; t + k <= m; t++) {
		if ((q = changepoint_q(m, t, l, r, all)) > *best) {
			*best = q;
			at = t;
		}
		l += up[t];
		r -= down[t];
	}
	return at;
}

/*
 * The permutation p of statistic q0 of the ranks r: the share of seeded
 * shuffles whose best split scores as high.  Stops once p cannot reach
 * alpha any more, returning a lower bound above alpha.
 */
static double
changepoint_perm_p(const double *r, size_t m,
    const struct changepoint_params *p, double q0, double *scratch)
{
	double	*y = xreallocarray(NULL, m, sizeof *y), q;
	uint64_t state = p->seed;
	unsigned i, hits = 0;
	double	 stop = p->alpha * (p->permutations + 1);

	memcpy(y, r, m * sizeof *y);
	for (i = 0; i < p->permutations && hits + 1 <= stop; i++) {
		changepoint_shuffle(y, m, &state);
		changepoint_scan(y, m, p->min_segment, scratch, &q);
		if (q >= q0 * (1 - 1e-12))
			hits++;
	}
	free(y);
	return (hits + 1.0) / (p->permutations + 1.0);
}

/* The split of y with the smallest Welch p, Bonferroni-corrected. */
static size_t
changepoint_welch(const double *y, size_t m, size_t k, double *p)
{
	struct stats_test t;
	size_t		  at = k, tau, tried = 0;
	double		  best = 2;

	for (tau = k; tau + k <= m; tau++, tried++) {
		stats_welch(y, tau, y + tau, m - tau, STATS_TEST_WELCH, &t);
		if (t.done && t.p < best) {
			best = t.p;
			at = tau;
		}
	}
	*p = fmin(1, best * (double)tried);
	return at;
}

/* Whether a change of effect_pct is worse, better, or unjudged for dir. */
static enum changepoint_verdict
changepoint_judge(double effect_pct, enum compare_dir dir)
{
	if (dir == COMPARE_DIR_UNKNOWN)
		return CHANGEPOINT_UNJUDGED;
	if ((effect_pct > 0) == (dir == COMPARE_LOWER_BETTER))
		return CHANGEPOINT_REGRESSION;
	return CHANGEPOINT_IMPROVEMENT;
}

/* Fills the medians, effect and verdict of out's split of y at tau. */
static void
changepoint_effect(const double *y, size_t m, size_t tau, enum compare_dir dir,
    struct changepoint *out)
{
	struct stats_summary b, a;

	stats_summarize(y, tau, &b);
	stats_summarize(y + tau, m - tau, &a);
	out->before = b.median;
	out->after = a.median;
	out->effect_pct =
	    b.median != 0 ? 100 * (a.median - b.median) / fabs(b.median) : NAN;
	out->verdict = changepoint_judge(out->effect_pct, dir);
}

/* Looks for a change; see report/changepoint.h. */
bool
changepoint_find(const double *x, size_t n, enum compare_dir dir,
    const struct changepoint_params *p, struct changepoint *out)
{
	size_t	m = n < p->window ? n : p->window, k = p->min_segment, tau;
	double *r, *scratch, q0;

	memset(out, 0, sizeof *out);
	out->p = 1;
	if (k < 2 || m < 2 * k)
		return false;
	x += n - m;
	r = xreallocarray(NULL, m, sizeof *r);
	scratch = xreallocarray(NULL, 2 * m, sizeof *scratch);
	out->permuted = m >= CHANGEPOINT_PERM_MIN;
	if (out->permuted) {
		stats_midranks(x, m, r);
		tau = changepoint_scan(r, m, k, scratch, &q0);
		out->p = changepoint_perm_p(r, m, p, q0, scratch);
	} else
		tau = changepoint_welch(x, m, k, &out->p);
	changepoint_effect(x, m, tau, dir, out);
	out->index = n - m + tau;
	out->found =
	    out->p <= p->alpha && fabs(out->effect_pct) >= p->min_effect_pct;
	free(scratch);
	free(r);
	return out->found;
}

/* The word of a verdict in events. */
const char *
changepoint_verdict_name(enum changepoint_verdict v)
{
	switch (v) {
	case CHANGEPOINT_REGRESSION:
		return "regression";
	case CHANGEPOINT_IMPROVEMENT:
		return "improvement";
	default:
		return "change";
	}
}
