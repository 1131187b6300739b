/*
 * A seeded simulation of bisections, for the tests and bench/: ranges of n
 * commits with a planted step at a random commit, samples with a given
 * CV, some commits that do not build, a level that drifts from job to
 * job; the search of bisect/search.h, each step a job of per_job samples
 * of its commit and one of each end, against a fixed bisection that
 * measures each step per_step times in a job of its own and takes the
 * end its mean is nearer to (`git bisect run` with a script that repeats
 * the benchmark), the ends measured per_step times first.
 */
#ifndef HILAB_BISECT_SIM_H
#define HILAB_BISECT_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "bisect/search.h"

struct bisect_sim {
	size_t		     n;	      /* commits after the good end */
	double		     cv;      /* sample CV, percent */
	double		     step;    /* the planted step, percent */
	double		     skip;    /* chance a commit does not build */
	double		     drift;   /* sd of a job's level, percent */
	size_t		     per_job; /* the search's samples of a step */
	size_t		     trials;
	uint64_t	     seed;
	size_t		     per_step; /* the fixed bisection's repeats */
	struct bisect_params p;
};

struct bisect_sim_result {
	size_t trials;
	size_t right;	    /* found, the planted commit in the range */
	size_t wrong;	    /* found, the planted commit not in it */
	size_t unsure;	    /* unsure or no change */
	double samples;	    /* mean samples per trial, ends included */
	size_t fixed_right; /* the same, for the fixed bisection */
	double fixed_samples;
};

/* A seeded standard normal number (splitmix64, Box-Muller). */
double bisect_sim_normal(uint64_t *state);

/*
 * The level of commit c (100 or 100 + step%, say) for bisect_sim_job.
 */
typedef double (*bisect_sim_level)(size_t c, void *arg);

/*
 * Feeds b the samples of the step job the verdict's next asks for, as job
 * number job: per_job of each end when next is 0, else per_job of next
 * and one of each end; each sample its commit's level times (1 + cv%
 * noise) plus the job's drift (drift% of 100, one draw a job).
 */
void bisect_sim_job(struct bisect_search *b, size_t n, size_t next, size_t job,
    const struct bisect_sim *s, bisect_sim_level level, void *arg,
    uint64_t *rng);

/* Runs s->trials trials of both bisections. */
void bisect_sim_run(const struct bisect_sim *, struct bisect_sim_result *);

#endif
