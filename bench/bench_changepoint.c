/*
 * bench_changepoint: the sweeps' change point detector (report/changepoint.h)
 * on a seeded simulation corpus, run as a sweep runs it: after each new
 * point, on the points since the last change found.  Series of 100 points
 * at a CV of 1-8% that stay flat, that have lone 5-sigma outliers, that
 * step by 1-10% after 30 points, or that drift.  Prints the false alerts
 * per 100 points (a change found where none was planted) and the points
 * after a step it takes to find it.
 *
 *	bench_changepoint [-n SERIES] [-s SEED] [-a ALPHA] [-e MIN_EFFECT]
 *	    [-w WINDOW] [-k MIN_SEGMENT]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "report/changepoint.h"

#define BENCH_POINTS  100
#define BENCH_STEP_AT 30

/* A planted series: its points and where (if anywhere) it steps. */
struct bench_series {
	double x[BENCH_POINTS];
	int    step_at; /* -1: none */
};

/* What the detector did on one series. */
struct bench_run {
	int false_alerts; /* changes found where none was planted */
	int delay;	  /* points after the step when found, -1 missed */
};

static uint64_t bench_state;

/* A uniform number in (0, 1) (splitmix64). */
static double
bench_uniform(void)
{
	uint64_t z = (bench_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

/* A standard normal number (Box-Muller). */
static double
bench_normal(void)
{
	return sqrt(-2 * log(bench_uniform())) *
	    cos(2 * M_PI * bench_uniform());
}

/*
 * Fills s: level 100, noise of cv percent, a step of step percent at
 * BENCH_STEP_AT (0: none), a drift of drift percent per point, and a lone
 * 5-sigma outlier every outlier_every points (0: none).
 */
static void
bench_make(struct bench_series *s, double cv, double step, double drift,
    int outlier_every)
{
	double level;
	int    i;

	s->step_at = step != 0 ? BENCH_STEP_AT : -1;
	for (i = 0; i < BENCH_POINTS; i++) {
		level = 100 * (1 + drift / 100 * i);
		if (step != 0 && i >= BENCH_STEP_AT)
			level *= 1 + step / 100;
		s->x[i] = level * (1 + cv / 100 * bench_normal());
		if (outlier_every > 0 && i % outlier_every == outlier_every / 2)
			s->x[i] += (bench_uniform() < 0.5 ? -5 : 5) * cv;
	}
}

/*
 * Runs the detector over s point by point as a sweep would; a change is
 * the planted one when it is found at most 5 points from the step.
 */
static struct bench_run
bench_detect(const struct bench_series *s, const struct changepoint_params *p)
{
	struct bench_run   r = { 0, -1 };
	struct changepoint c;
	int		   start = 0, t, at;

	for (t = 1; t <= BENCH_POINTS; t++) {
		if (!changepoint_find(s->x + start, (size_t)(t - start),
			COMPARE_LOWER_BETTER, p, &c))
			continue;
		at = start + (int)c.index;
		if (s->step_at >= 0 && r.delay < 0 && abs(at - s->step_at) <= 5)
			r.delay = t - s->step_at;
		else
			r.false_alerts++;
		start = at;
	}
	return r;
}

/* Sorts ints for the percentiles of delays. */
static int
bench_int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Runs n series of one kind; prints false alerts per 100 points, and for
 * steps the share found and the median and 90th percentile delay.
 */
static double
bench_kind(const char *what, int n, double cv, double step, double drift,
    int outliers, const struct changepoint_params *p, int *median)
{
	struct bench_series s;
	struct bench_run    r;
	int		   *delays = xcalloc((size_t)n, sizeof *delays);
	int		    i, found = 0, fa = 0;
	double		    rate;

	for (i = 0; i < n; i++) {
		bench_make(&s, cv, step, drift, outliers);
		r = bench_detect(&s, p);
		fa += r.false_alerts;
		if (r.delay >= 0)
			delays[found++] = r.delay;
	}
	qsort(delays, (size_t)found, sizeof *delays, bench_int_cmp);
	rate = 100.0 * fa / ((double)n * BENCH_POINTS);
	printf("%-22s cv %4.1f%%  %s/100 points %5.2f", what, cv,
	    drift != 0 ? "changes found" : " false alerts", rate);
	if (step != 0)
		printf("  found %3.0f%%  delay median %2d p90 %2d",
		    100.0 * found / n, found ? delays[found / 2] : -1,
		    found ? delays[found * 9 / 10] : -1);
	printf("\n");
	if (median != NULL)
		*median = found * 2 > n ? delays[found / 2] : -1;
	free(delays);
	return rate;
}

/* Reads the options into p and the series count. */
static void
bench_options(int argc, char **argv, struct changepoint_params *p, int *n)
{
	int c;

	while ((c = getopt(argc, argv, "n:s:a:e:w:k:")) != -1) {
		switch (c) {
		case 'n':
			*n = atoi(optarg);
			break;
		case 's':
			bench_state = strtoull(optarg, NULL, 0);
			break;
		case 'a':
			p->alpha = atof(optarg);
			break;
		case 'e':
			p->min_effect_pct = atof(optarg);
			break;
		case 'w':
			p->window = (size_t)atoi(optarg);
			break;
		case 'k':
			p->min_segment = (size_t)atoi(optarg);
			break;
		default:
			fprintf(stderr,
			    "usage: bench_changepoint [-n SERIES] "
			    "[-s SEED] [-a ALPHA] [-e MIN_EFFECT] "
			    "[-w WINDOW] [-k MIN_SEGMENT]\n");
			exit(2);
		}
	}
}

int
main(int argc, char **argv)
{
	static const double cvs[] = { 1, 2, 4, 8 }, steps[] = { 1, 2, 5, 10 };
	struct changepoint_params p = changepoint_defaults;
	char			  what[64];
	double			  fa = 0, worst = 0, r;
	int			  n = 100, i, j, kinds = 0, delay22 = -1, d;

	bench_state = 1;
	bench_options(argc, argv, &p, &n);
	printf("window %zu, min segment %zu, alpha %g, min effect %g%%, %u "
	       "permutations, %d series of %d points per line\n",
	    p.window, p.min_segment, p.alpha, p.min_effect_pct, p.permutations,
	    n, BENCH_POINTS);
	for (i = 0; i < 4; i++) {
		r = bench_kind("flat", n, cvs[i], 0, 0, 0, &p, NULL);
		fa += r, worst = fmax(worst, r), kinds++;
		r = bench_kind("flat, 5-sigma outliers", n, cvs[i], 0, 0, 10,
		    &p, NULL);
		fa += r, worst = fmax(worst, r), kinds++;
	}
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++) {
			snprintf(what, sizeof what, "step %+.0f%%",
			    j % 2 ? steps[i] : -steps[i]);
			r = bench_kind(what, n, cvs[j],
			    j % 2 ? steps[i] : -steps[i], 0, 0, &p, &d);
			if (steps[i] == 2 && cvs[j] == 2)
				delay22 = d;
		}
	for (i = 0; i < 4; i++)
		bench_kind("drift +0.1%/point", n, cvs[i], 0, 0.1, 0, &p, NULL);
	printf("\nfalse alerts per 100 points per series: mean %.2f, worst "
	       "%.2f (goal <= 1)\n",
	    fa / kinds, worst);
	printf("points to find a 2%% step at cv 2%%: median %d (goal <= 6)\n",
	    delay22);
	return 0;
}
