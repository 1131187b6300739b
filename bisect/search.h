/*
 * The noise-aware search for the first bad commit of a range: commits
 * 0..n in order, 0 the good end, n the bad end, every commit from the
 * first bad one on behaving like the bad end (one step).  Each sample of a
 * commit updates a posterior over where the step is (a probabilistic
 * bisection): a sample is drawn from the good end's distribution or the bad
 * end's, both normal with one spread, their means and spread estimated
 * from every sample (EM over the posterior) and the likelihood a Student t
 * for what the estimates do not know yet.  The next commit to measure is
 * the one that splits the posterior most evenly.  Each step is one job
 * that measures that commit beside one sample of each end, interleaved on
 * the machine: a level that drifts between jobs (a neighbour's load, a
 * warmer machine) shows in the job's end samples and is taken out of its
 * commit's (a random effect per job, shrunk by the drift the ends show
 * between jobs, so without drift no precision is lost).  The search ends when
 * one commit (or one range of commits that do not build and the commit after
 * them) holds the wanted confidence, or when the budget is spent.  Two
 * hypotheses, never "differs at all": a large n cannot make a tiny
 * difference a regression, and the ends must differ by min_effect first.
 */
#ifndef HILAB_BISECT_SEARCH_H
#define HILAB_BISECT_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

struct bisect_params {
	double confidence;   /* posterior to name the first bad: 0.995 */
	size_t budget;	     /* samples at most, ends included */
	double min_effect;   /* |bad - good| / |good| to bisect at all */
	size_t end_min;	     /* samples of each end before the search */
	size_t end_max;	     /* of each end, to show they differ */
	size_t step_samples; /* samples a step job adds, ends included */
};

/*
 * The defaults: 0.995, 400 samples, 1%, 4 and 15 samples an end, step
 * jobs of 5 samples (3 of the commit, one of each end).
 */
void bisect_params_default(struct bisect_params *);

enum bisect_state {
	BISECT_MEASURE,	  /* measure commit next */
	BISECT_FOUND,	  /* the first bad is first (or one of first..last) */
	BISECT_UNSURE,	  /* between first and last; why says why */
	BISECT_NO_CHANGE, /* the ends do not differ; why says how */
};

struct bisect_verdict {
	enum bisect_state state;
	size_t		  next; /* MEASURE: the commit to measure
				   beside the ends; 0: the ends */
	size_t first, last;	/* FOUND, UNSURE: the range */
	double mass;		/* the posterior of first..last */
	double good, bad;	/* the ends' means as estimated */
	double sd;		/* the spread as estimated */
	size_t samples;		/* used so far */
	char   why[160];
};

struct bisect_search;

/* A search over commits 0..n (n >= 1); free with bisect_search_free. */
struct bisect_search *bisect_search_new(size_t n, const struct bisect_params *);
void		      bisect_search_free(struct bisect_search *);

/*
 * Adds a sample of commit c (0..n) measured by step job `job` (1, 2, ...
 * in the order they ran; 0 for a sample of no job).
 */
void bisect_search_add(struct bisect_search *, size_t c, size_t job, double x);

/* Marks commit c (0 < c < n) as one that does not build or boot. */
void bisect_search_skip(struct bisect_search *, size_t c);

/* True if commit c was marked as not building or booting. */
bool bisect_search_skipped(const struct bisect_search *, size_t c);

/* Samples of commit c so far. */
size_t bisect_search_count(const struct bisect_search *, size_t c);

/* The mean of commit c's samples (NAN without one). */
double bisect_search_mean(const struct bisect_search *, size_t c);

/* The posterior probability that commit c behaves like the bad end. */
double bisect_search_p_bad(struct bisect_search *, size_t c);

/* What to do next, or the result (see enum bisect_state). */
void bisect_search_step(struct bisect_search *, struct bisect_verdict *);

/* "measure", "found", "unsure", "no change". */
const char *bisect_state_name(enum bisect_state);

#endif
