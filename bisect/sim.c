/*
 * The seeded simulation of bisections (bisect/sim.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "bisect/sim.h"
#include "common/xmalloc.h"

/* One trial's range: where it steps, what does not build, the noise. */
struct sim_range {
	const struct bisect_sim *s;
	uint64_t		*rng;
	size_t			 culprit; /* the first bad commit, 1..n */
	bool			*skip;	  /* 0..n */
};

/* A uniform number in (0, 1) (splitmix64). */
static double
sim_uniform(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

double
bisect_sim_normal(uint64_t *state)
{
	return sqrt(-2 * log(sim_uniform(state))) *
	    cos(2 * M_PI * sim_uniform(state));
}

/* The level of commit c in r: 100, or 100 + step% from the culprit on. */
static double
sim_level(size_t c, void *arg)
{
	const struct sim_range *r = arg;

	return c >= r->culprit ? 100 * (1 + r->s->step / 100) : 100;
}

/* One sample at level with the job's drift. */
static double
sim_sample(const struct bisect_sim *s, double level, double drift,
    uint64_t *rng)
{
	return level * (1 + s->cv / 100 * bisect_sim_normal(rng)) + drift;
}

void
bisect_sim_job(struct bisect_search *b, size_t n, size_t next, size_t job,
    const struct bisect_sim *s, bisect_sim_level level, void *arg,
    uint64_t *rng)
{
	double drift = s->drift * bisect_sim_normal(rng);
	size_t per_job = s->per_job > 0 ? s->per_job : 1, i;
	size_t k = next == 0 ? per_job : 1;

	for (i = 0; i < k; i++)
		bisect_search_add(b, 0, job,
		    sim_sample(s, level(0, arg), drift, rng));
	for (i = 0; next != 0 && i < per_job; i++)
		bisect_search_add(b, next, job,
		    sim_sample(s, level(next, arg), drift, rng));
	for (i = 0; i < k; i++)
		bisect_search_add(b, n, job,
		    sim_sample(s, level(n, arg), drift, rng));
}

/* The search of bisect/search.h on r; counts into res. */
static void
sim_search(struct sim_range *r, struct bisect_sim_result *res)
{
	struct bisect_search *b = bisect_search_new(r->s->n, &r->s->p);
	struct bisect_verdict v;
	size_t		      c, job = 0;

	for (c = 1; c < r->s->n; c++)
		if (r->skip[c])
			bisect_search_skip(b, c);
	for (bisect_search_step(b, &v); v.state == BISECT_MEASURE;
	     bisect_search_step(b, &v))
		bisect_sim_job(b, r->s->n, v.next, ++job, r->s, sim_level, r,
		    r->rng);
	if (v.state != BISECT_FOUND)
		res->unsure++;
	else if (r->culprit >= v.first && r->culprit <= v.last)
		res->right++;
	else
		res->wrong++;
	res->samples += (double)v.samples;
	bisect_search_free(b);
}

/* The mean of k samples of commit c in a job of its own. */
static double
sim_mean(struct sim_range *r, size_t c, size_t k)
{
	double drift = r->s->drift * bisect_sim_normal(r->rng), s = 0;
	size_t i;

	for (i = 0; i < k; i++)
		s += sim_sample(r->s, sim_level(c, r), drift, r->rng);
	return s / (double)k;
}

/* The buildable commit in (lo, hi) nearest to their middle, or 0. */
static size_t
sim_fixed_pick(const struct sim_range *r, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2, d;

	for (d = 0; d < mid - lo || mid + d < hi; d++) {
		if (d < mid - lo && !r->skip[mid - d])
			return mid - d;
		if (mid + d < hi && !r->skip[mid + d])
			return mid + d;
	}
	return 0;
}

/* The fixed bisection on r; counts into res. */
static void
sim_fixed(struct sim_range *r, struct bisect_sim_result *res)
{
	size_t k = r->s->per_step, lo = 0, hi = r->s->n, m, used = 2 * k;
	double good = sim_mean(r, 0, k), bad = sim_mean(r, hi, k), x;

	while (hi - lo > 1 && (m = sim_fixed_pick(r, lo, hi)) != 0) {
		x = sim_mean(r, m, k);
		used += k;
		if (fabs(x - bad) < fabs(x - good))
			hi = m;
		else
			lo = m;
	}
	/* The first bad is one of lo + 1..hi (more than one: skipped). */
	if (r->culprit > lo && r->culprit <= hi)
		res->fixed_right++;
	res->fixed_samples += (double)used;
}

void
bisect_sim_run(const struct bisect_sim *s, struct bisect_sim_result *res)
{
	uint64_t	 rng = s->seed;
	struct sim_range r = { s, &rng, 0, xcalloc(s->n + 1, sizeof(bool)) };
	size_t		 t, c;

	*res = (struct bisect_sim_result){ .trials = s->trials };
	for (t = 0; t < s->trials; t++) {
		r.culprit = 1 + (size_t)(sim_uniform(&rng) * (double)s->n);
		if (r.culprit > s->n)
			r.culprit = s->n;
		for (c = 1; c < s->n; c++)
			r.skip[c] = sim_uniform(&rng) < s->skip;
		sim_search(&r, res);
		sim_fixed(&r, res);
	}
	res->samples /= (double)s->trials;
	res->fixed_samples /= (double)s->trials;
	free(r.skip);
}
