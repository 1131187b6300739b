/*
 * bench_bisect: the noise-aware bisection (bisect/search.h) against a
 * fixed bisection of per_step repeats a step, on the seeded simulation of
 * bisect/sim.h: per range size, CV and share of commits that do not
 * build, how often each names the planted commit and the samples each
 * used (ends included), and the ratio of samples.
 *
 *	bench_bisect [-t TRIALS] [-r SEED] [-s STEP%] [-k PER_STEP]
 *	    [-j PER_JOB] [-d DRIFT%] [-n N] [-c CV%] [-x SKIP] [-p CONFIDENCE]
 *
 * Each step of the search is a job of PER_JOB (3) samples of its commit
 * and one of each end; each job of either bisection has a level of its
 * own, DRIFT% (0) of the mean apart from job to job.
 *
 * -n, -c and -x give one configuration; without them a grid of 16, 64,
 * 256 and 1024 commits, CV 1, 2, 4 and 8%, and 0 or 5% unbuildable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bisect/sim.h"

/* Runs one configuration and prints its line. */
static void
bench_one(struct bisect_sim *s, size_t n, double cv, double skip)
{
	struct bisect_sim_result r;

	s->n = n;
	s->cv = cv;
	s->skip = skip;
	bisect_sim_run(s, &r);
	printf("%5zu %5.1f%% %4.0f%% | %6.1f%% %5.1f%% %7.1f | %6.1f%% %7.1f "
	       "| %5.2f\n",
	    n, cv, 100 * skip, 100.0 * (double)r.right / (double)r.trials,
	    100.0 * (double)r.wrong / (double)r.trials, r.samples,
	    100.0 * (double)r.fixed_right / (double)r.trials, r.fixed_samples,
	    r.samples / r.fixed_samples);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	static const size_t ns[] = { 16, 64, 256, 1024 };
	static const double cvs[] = { 1, 2, 4, 8 }, skips[] = { 0, 0.05 };
	struct bisect_sim   s = { .step = 3,
		  .trials = 200,
		  .seed = 1,
		  .per_step = 10,
		  .per_job = 3 };
	size_t		    n = 0, i, j, k;
	double		    cv = 0, skip = -1;
	int		    ch;

	bisect_params_default(&s.p);
	while ((ch = getopt(argc, argv, "t:r:s:k:j:d:n:c:x:p:")) != -1) {
		switch (ch) {
		case 't':
			s.trials = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			s.seed = strtoull(optarg, NULL, 10);
			break;
		case 's':
			s.step = strtod(optarg, NULL);
			break;
		case 'k':
			s.per_step = strtoul(optarg, NULL, 10);
			break;
		case 'j':
			s.per_job = strtoul(optarg, NULL, 10);
			break;
		case 'd':
			s.drift = strtod(optarg, NULL);
			break;
		case 'n':
			n = strtoul(optarg, NULL, 10);
			break;
		case 'c':
			cv = strtod(optarg, NULL);
			break;
		case 'x':
			skip = strtod(optarg, NULL);
			break;
		case 'p':
			s.p.confidence = strtod(optarg, NULL);
			break;
		default:
			fprintf(stderr,
			    "usage: bench_bisect [-t trials] "
			    "[-r seed] [-s step%%] [-k per_step] "
			    "[-j per_job] [-d drift%%] "
			    "[-n N] [-c cv%%] [-x skip] "
			    "[-p confidence]\n");
			return 2;
		}
	}
	printf("# step %.1f%%, drift %.1f%%, %zu trials, search: %zu a step "
	       "and one of each end, fixed: %zu a step; right and wrong of "
	       "trials, samples a trial\n",
	    s.step, s.drift, s.trials, s.per_job, s.per_step);
	printf("    n    cv skip |  right wrong samples | fixed samples | "
	       "ratio\n");
	if (n != 0 || cv != 0 || skip >= 0) {
		bench_one(&s, n ? n : 1024, cv ? cv : 2, skip >= 0 ? skip : 0);
		return 0;
	}
	for (i = 0; i < sizeof ns / sizeof *ns; i++)
		for (j = 0; j < sizeof cvs / sizeof *cvs; j++)
			for (k = 0; k < 2; k++)
				bench_one(&s, ns[i], cvs[j], skips[k]);
	return 0;
}
