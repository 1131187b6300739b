/*
 * Change points in a series of points (one statistic per sweep job, in
 * job order): E-Divisive means (Matteson & James 2014, alpha 1) on the
 * ranks of the newest points locates the split that best separates the
 * points before from those after; a permutation test of that statistic
 * (seeded, so the same series gives the same answer) says whether it is
 * more than noise.  With fewer points than a permutation test needs to
 * reach the level (CHANGEPOINT_PERM_MIN), the split is the one with the
 * smallest Welch p between the two sides' points, times the number of
 * splits tried (Bonferroni).  A change also needs a minimum effect between
 * the medians of the two sides and min_segment points on each side, so a
 * lone outlier (one rank, one point) is not a change.
 */
#ifndef HILAB_CHANGEPOINT_H
#define HILAB_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/compare.h"

/* Below this many points the p-value is Welch's, Bonferroni-corrected. */
#define CHANGEPOINT_PERM_MIN 16

/* How the detector decides; changepoint_defaults are what sweeps use. */
struct changepoint_params {
	size_t	 window;	 /* the newest points looked at */
	size_t	 min_segment;	 /* points each side of a change, 2 or more */
	double	 alpha;		 /* p at most this */
	double	 min_effect_pct; /* |change of the medians| at least this */
	unsigned permutations;	 /* of the permutation test */
	uint64_t seed;		 /* of the permutations */
};

extern const struct changepoint_params changepoint_defaults;

enum changepoint_verdict {
	CHANGEPOINT_REGRESSION,
	CHANGEPOINT_IMPROVEMENT,
	CHANGEPOINT_UNJUDGED /* the metric has no declared direction */
};

/* The best split of a series and whether it is a change. */
struct changepoint {
	bool   found;	   /* significant, large enough, long enough */
	size_t index;	   /* the first point after the split, in x */
	double before;	   /* the median of the points before it */
	double after;	   /* and from it on (within the window) */
	double effect_pct; /* raw: 100 * (after - before) / before */
	double p;
	bool   permuted; /* p from permutations (else Welch) */
	enum changepoint_verdict verdict;
};

/*
 * Looks for the most likely change in the newest p->window points of x
 * (n of them, oldest first) of a metric whose better way is dir.  Fills
 * *out (found false when there is none, or too few points to tell: fewer
 * than 2 * min_segment).  Returns out->found.
 */
bool changepoint_find(const double *x, size_t n, enum compare_dir dir,
    const struct changepoint_params *p, struct changepoint *out);
/* "regression", "improvement" or "change". */
const char *changepoint_verdict_name(enum changepoint_verdict);

#endif
