/*
 * The noise-aware search for the first bad commit (bisect/search.h): a
 * probabilistic bisection whose model of the two ends is estimated from
 * every sample by EM over the posterior.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/search.h"
#include "common/xmalloc.h"
#include "report/stats.h"

/* EM iterations over the posterior and the model's estimates. */
#define SEARCH_EM_ROUNDS 4
/* The ends must differ at this level before the search starts. */
#define SEARCH_END_ALPHA 0.05

struct search_sample {
	size_t c;
	size_t g; /* its step job, 0 for none */
	double x;
};

struct bisect_search {
	struct bisect_params  p;
	size_t		      n;
	struct search_sample *s;
	size_t		      ns, cap;
	size_t		     *count;   /* samples per commit, 0..n */
	bool		     *skip;    /* 0..n */
	double		     *w;       /* posterior of the first bad, 1..n */
	double		     *cum;     /* P(first bad <= k), 0..n */
	double		     *lg, *lb; /* log-likelihood sums per commit */
	double		     *off;     /* each step job's drift, 0..ng-1 */
	double		     *var;     /* what off does not know of it */
	size_t		      ng;
	double		      mg, mb, sd;
	bool		      fresh; /* w and cum match the samples */
};

void
bisect_params_default(struct bisect_params *p)
{
	p->confidence = 0.995;
	p->budget = 400;
	p->min_effect = 0.01;
	p->end_min = 4;
	p->end_max = 15;
	p->step_samples = 5;
}

struct bisect_search *
bisect_search_new(size_t n, const struct bisect_params *p)
{
	struct bisect_search *b = xcalloc(1, sizeof *b);

	b->p = *p;
	b->n = n;
	b->count = xcalloc(n + 1, sizeof *b->count);
	b->skip = xcalloc(n + 1, sizeof *b->skip);
	b->w = xcalloc(n + 1, sizeof *b->w);
	b->cum = xcalloc(n + 1, sizeof *b->cum);
	b->lg = xcalloc(n + 1, sizeof *b->lg);
	b->lb = xcalloc(n + 1, sizeof *b->lb);
	return b;
}

void
bisect_search_free(struct bisect_search *b)
{
	if (b == NULL)
		return;
	free(b->s);
	free(b->count);
	free(b->skip);
	free(b->w);
	free(b->cum);
	free(b->lg);
	free(b->lb);
	free(b->off);
	free(b->var);
	free(b);
}

void
bisect_search_add(struct bisect_search *b, size_t c, size_t job, double x)
{
	size_t ng;

	if (c > b->n || !isfinite(x))
		return;
	if (job >= b->ng) {
		ng = job + 16;
		b->off = xreallocarray(b->off, ng, sizeof *b->off);
		b->var = xreallocarray(b->var, ng, sizeof *b->var);
		memset(b->off + b->ng, 0, (ng - b->ng) * sizeof *b->off);
		memset(b->var + b->ng, 0, (ng - b->ng) * sizeof *b->var);
		b->ng = ng;
	}
	if (b->ns == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->s = xreallocarray(b->s, b->cap, sizeof *b->s);
	}
	b->s[b->ns++] = (struct search_sample){ c, job, x };
	b->count[c]++;
	b->fresh = false;
}

void
bisect_search_skip(struct bisect_search *b, size_t c)
{
	if (c > 0 && c < b->n) {
		b->skip[c] = true;
		b->fresh = false;
	}
}

bool
bisect_search_skipped(const struct bisect_search *b, size_t c)
{
	return c <= b->n && b->skip[c];
}

size_t
bisect_search_count(const struct bisect_search *b, size_t c)
{
	return c <= b->n ? b->count[c] : 0;
}

/* The samples of commit c into a new array (caller frees); *n their count. */
static double *
search_values(const struct bisect_search *b, size_t c, size_t *n)
{
	double *x = xcalloc(b->count[c] + 1, sizeof *x);
	size_t	i;

	*n = 0;
	for (i = 0; i < b->ns; i++)
		if (b->s[i].c == c)
			x[(*n)++] = b->s[i].x;
	return x;
}

/* The end samples of each step job: sum[e][g], cnt[e][g], e 0 good, 1 bad. */
struct search_job_ends {
	double *sum[2];
	double *cnt[2];
};

/* Sums the end samples of every step job into e (free with the next). */
static void
search_job_ends_read(const struct bisect_search *b, struct search_job_ends *e)
{
	size_t i, k;

	for (k = 0; k < 2; k++) {
		e->sum[k] = xcalloc(b->ng + 1, sizeof *e->sum[k]);
		e->cnt[k] = xcalloc(b->ng + 1, sizeof *e->cnt[k]);
	}
	for (i = 0; i < b->ns; i++)
		if ((b->s[i].c == 0 || b->s[i].c == b->n) && b->s[i].g != 0) {
			k = b->s[i].c != 0;
			e->sum[k][b->s[i].g] += b->s[i].x;
			e->cnt[k][b->s[i].g]++;
		}
}

/* Frees what search_job_ends_read made. */
static void
search_job_ends_free(struct search_job_ends *e)
{
	size_t k;

	for (k = 0; k < 2; k++) {
		free(e->sum[k]);
		free(e->cnt[k]);
	}
}

/*
 * The samples of end c (0 or n) less the middle of their job's two ends
 * (a job without both as they are): the drift between jobs taken out of
 * the ends' difference.  A new array (caller frees); *n its count.
 */
static double *
search_centered(const struct bisect_search *b, size_t c, size_t *n)
{
	double		      *x = search_values(b, c, n);
	struct search_job_ends e;
	size_t		       i, g, j = 0;

	search_job_ends_read(b, &e);
	for (i = 0; i < b->ns; i++) {
		if (b->s[i].c != c)
			continue;
		g = b->s[i].g;
		if (g != 0 && e.cnt[0][g] > 0 && e.cnt[1][g] > 0)
			x[j] -= (e.sum[0][g] / e.cnt[0][g] +
				    e.sum[1][g] / e.cnt[1][g]) /
			    2;
		j++;
	}
	search_job_ends_free(&e);
	return x;
}

/* The mean of x[0..n-1]. */
static double
search_mean(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

/* Sample i with its step job's drift taken out. */
static double
search_x(const struct bisect_search *b, size_t i)
{
	return b->s[i].x - b->off[b->s[i].g];
}

/* Job g's end samples less their end's mean: the sum; *cnt how many. */
static double
search_residual(const struct bisect_search *b, const struct search_job_ends *e,
    size_t g, double *cnt)
{
	*cnt = e->cnt[0][g] + e->cnt[1][g];
	return e->sum[0][g] - e->cnt[0][g] * b->mg + e->sum[1][g] -
	    e->cnt[1][g] * b->mb;
}

/*
 * Each step job's drift from its end samples: the mean of their residuals
 * from the ends' means, shrunk toward 0 as a random effect whose variance
 * tau^2 is what the jobs' mean residuals vary by beyond the noise sd (a
 * moment estimate), with the variance the estimate leaves, which every
 * sample of the job shares.  No drift between jobs: no offset, nothing
 * lost.
 */
static void
search_offsets(struct bisect_search *b, double sd)
{
	struct search_job_ends e;
	double		       m2 = 0, inv = 0, tau2 = 0, sum, cnt;
	size_t		       g, k = 0;

	search_job_ends_read(b, &e);
	for (g = 1; g < b->ng; g++) {
		sum = search_residual(b, &e, g, &cnt);
		if (cnt > 0) {
			m2 += sum / cnt * (sum / cnt);
			inv += 1 / cnt;
			k++;
		}
	}
	if (k >= 2)
		tau2 = fmax(0, (m2 - sd * sd * inv) / (double)k);
	for (g = 0; g < b->ng; g++) {
		sum = search_residual(b, &e, g, &cnt);
		b->off[g] = tau2 > 0 ? sum / (cnt + sd * sd / tau2) : 0;
		b->var[g] = tau2 > 0 ? 1 / (cnt / (sd * sd) + 1 / tau2) : 0;
	}
	search_job_ends_free(&e);
}

/* A Student t log-likelihood (up to a constant) of z with df degrees. */
static double
search_loglik(double z, double df)
{
	return -(df + 1) / 2 * log1p(z * z / df);
}

/* Adds to c's log-likelihoods an observation x of spread sd. */
static void
search_observe(struct bisect_search *b, size_t c, double x, double sd,
    double df)
{
	b->lg[c] += search_loglik((x - b->mg) / sd, df);
	b->lb[c] += search_loglik((x - b->mb) / sd, df);
}

/*
 * The log-likelihoods of the commits between the ends: each step job's
 * samples of its commit as one mean, since what its drift estimate gets
 * wrong they share (k samples are not k times the evidence then); a
 * sample of no job, or of a second commit in a job, alone.
 */
static void
search_likelihoods(struct bisect_search *b, double sd, double df)
{
	double *sum = xcalloc(b->ng + 1, sizeof *sum);
	size_t *k = xcalloc(b->ng + 1, sizeof *k);
	size_t *cg = xcalloc(b->ng + 1, sizeof *cg);
	size_t	i, g, c;

	for (i = 0; i < b->ns; i++) {
		if ((c = b->s[i].c) == 0 || c == b->n)
			continue;
		g = b->s[i].g;
		if (g == 0 || (cg[g] != 0 && cg[g] != c)) {
			search_observe(b, c, search_x(b, i),
			    sqrt(sd * sd + b->var[g]), df);
			continue;
		}
		cg[g] = c;
		sum[g] += search_x(b, i);
		k[g]++;
	}
	for (g = 1; g < b->ng; g++)
		if (k[g] > 0)
			search_observe(b, cg[g], sum[g] / (double)k[g],
			    sqrt(sd * sd / (double)k[g] + b->var[g]), df);
	free(sum);
	free(k);
	free(cg);
}

/*
 * The posterior of the first bad commit under means mg, mb and spread sd:
 * a sample of commit j is bad-like for every first bad k <= j.
 */
static void
search_posterior(struct bisect_search *b, double sd, double df)
{
	double acc, top = -INFINITY, tot = 0;
	size_t k;

	memset(b->lg, 0, (b->n + 1) * sizeof *b->lg);
	memset(b->lb, 0, (b->n + 1) * sizeof *b->lb);
	search_likelihoods(b, sd, df);
	/* w[k] = sum of lg below k + sum of lb from k on. */
	for (acc = 0, k = 1; k < b->n; k++)
		acc += b->lb[k];
	for (k = 1; k <= b->n; k++) {
		b->w[k] = acc;
		acc += b->lg[k] - (k < b->n ? b->lb[k] : 0);
		if (b->w[k] > top)
			top = b->w[k];
	}
	for (k = 1; k <= b->n; k++)
		tot += (b->w[k] = exp(b->w[k] - top));
	for (acc = 0, k = 1; k <= b->n; k++) {
		b->w[k] /= tot;
		b->cum[k] = (acc += b->w[k]);
	}
	b->cum[0] = 0;
}

/* One M step: the means and spread weighted by the posterior. */
static void
search_estimate(struct bisect_search *b)
{
	double sg = 0, sb = 0, ng = 0, nb = 0, ss = 0, pb, d, x;
	size_t i;

	for (i = 0; i < b->ns; i++) {
		pb = b->s[i].c == 0 ? 0 : b->cum[b->s[i].c];
		x = search_x(b, i);
		sb += pb * x;
		nb += pb;
		sg += (1 - pb) * x;
		ng += 1 - pb;
	}
	b->mg = sg / ng;
	b->mb = sb / nb;
	for (i = 0; i < b->ns; i++) {
		pb = b->s[i].c == 0 ? 0 : b->cum[b->s[i].c];
		x = search_x(b, i);
		d = x - b->mg;
		ss += (1 - pb) * d * d;
		d = x - b->mb;
		ss += pb * d * d;
	}
	b->sd = sqrt(ss / (double)(b->ns > 2 ? b->ns - 2 : 1));
}

/* The ends' means and pooled spread, from their samples alone. */
static void
search_ends(struct bisect_search *b)
{
	struct stats_summary g, d;
	size_t		     n0, n1;
	double		    *x0 = search_values(b, 0, &n0);
	double		    *x1 = search_values(b, b->n, &n1);

	stats_summarize(x0, n0, &g);
	stats_summarize(x1, n1, &d);
	b->mg = g.amean;
	b->mb = d.amean;
	b->sd = sqrt(
	    ((double)(n0 - 1) * g.sd * g.sd + (double)(n1 - 1) * d.sd * d.sd) /
	    (double)(n0 + n1 - 2));
	free(x0);
	free(x1);
}

/* The posterior before the ends are known: every first bad alike. */
static void
search_uniform(struct bisect_search *b)
{
	size_t k;

	b->mg = b->mb = b->sd = NAN;
	for (k = 1; k <= b->n; k++) {
		b->w[k] = 1.0 / (double)b->n;
		b->cum[k] = (double)k / (double)b->n;
	}
	b->fresh = true;
}

/*
 * The posterior that decides, under the step shrunk by one standard error
 * of the ends' difference (never below a tenth of it): the ends were
 * measured until they differed, so their difference is overestimated most
 * where it is small against the noise, and a posterior that trusted it
 * would name a commit with a confidence it does not have.
 */
static void
search_posterior_shrunk(struct bisect_search *b, double sd, double df)
{
	double mg = b->mg, mb = b->mb, mid = (mg + mb) / 2,
	       half = (mb - mg) / 2;
	double se =
	    sd * sqrt(1.0 / (double)b->count[0] + 1.0 / (double)b->count[b->n]);
	double h = fmax(fabs(half) - se / 2, fabs(half) / 10);

	b->mg = mid - copysign(h, half);
	b->mb = mid + copysign(h, half);
	search_posterior(b, sd, df);
	b->mg = mg;
	b->mb = mb;
}

/*
 * Brings the posterior up to date: the ends' model, then EM rounds; the
 * last posterior's spread widened by what the ends' means do not know,
 * with the ends' degrees of freedom, and its step shrunk.
 */
static void
search_update(struct bisect_search *b)
{
	double ne = (double)(b->count[0] + b->count[b->n]);
	double df = ne > 4 ? ne - 2 : 2, floor_sd;
	int    r;

	if (b->fresh)
		return;
	if (b->count[0] < 2 || b->count[b->n] < 2) {
		search_uniform(b);
		return;
	}
	search_ends(b);
	floor_sd = 1e-9 * (fabs(b->mg) + fabs(b->mb)) + 1e-300;
	for (r = 0; r < SEARCH_EM_ROUNDS; r++) {
		search_offsets(b, fmax(b->sd, floor_sd));
		search_posterior(b, fmax(b->sd, floor_sd), df);
		search_estimate(b);
	}
	search_offsets(b, fmax(b->sd, floor_sd));
	search_posterior_shrunk(b, fmax(b->sd, floor_sd) * sqrt(1 + 2 / ne),
	    df);
	b->fresh = true;
}

double
bisect_search_mean(const struct bisect_search *b, size_t c)
{
	double sum = 0;
	size_t i;

	if (c > b->n || b->count[c] == 0)
		return NAN;
	for (i = 0; i < b->ns; i++)
		if (b->s[i].c == c)
			sum += b->s[i].x;
	return sum / (double)b->count[c];
}

double
bisect_search_p_bad(struct bisect_search *b, size_t c)
{
	if (c == 0)
		return 0;
	if (c >= b->n)
		return 1;
	search_update(b);
	return b->cum[c];
}

/*
 * Whether the ends differ enough to search: 1 yes, 0 not yet (measure
 * the ends: *next is 0), -1 never (v says why).
 */
static int
search_ends_differ(struct bisect_search *b, size_t *next,
    struct bisect_verdict *v)
{
	size_t		  n0 = b->count[0], n1 = b->count[b->n];
	double		 *x0, *x1, effect;
	struct stats_test t;

	if (n0 < b->p.end_min || n1 < b->p.end_min) {
		*next = 0;
		return 0;
	}
	x0 = search_values(b, 0, &n0);
	effect = fabs(search_mean(x0, n0));
	free(x0);
	x0 = search_centered(b, 0, &n0);
	x1 = search_centered(b, b->n, &n1);
	stats_welch(x0, n0, x1, n1, STATS_TEST_WELCH, &t);
	effect = t.done ? fabs(t.diff) / effect : 0;
	free(x0);
	free(x1);
	if (t.done && t.p < SEARCH_END_ALPHA && effect >= b->p.min_effect)
		return 1;
	if (n0 < b->p.end_max || n1 < b->p.end_max) {
		*next = 0;
		return 0;
	}
	snprintf(v->why, sizeof v->why,
	    "the ends differ by %.2f%% (p = %.3g) after %zu and %zu samples: "
	    "not %.2f%% at p < %.2f",
	    100 * effect, t.done ? t.p : 1.0, n0, n1, 100 * b->p.min_effect,
	    SEARCH_END_ALPHA);
	return -1;
}

/* The commit 0 < i < n, not skipped, that splits the posterior best. */
static bool
search_query(const struct bisect_search *b, size_t *next)
{
	double best = 2;
	size_t i;

	for (i = 1; i < b->n; i++)
		if (!b->skip[i] && fabs(b->cum[i] - 0.5) < best) {
			best = fabs(b->cum[i] - 0.5);
			*next = i;
		}
	return best < 2;
}

/*
 * The range of first bad commits holding the most posterior: k and the
 * skipped commits from k on with the commit after them (a commit that
 * cannot be measured cannot be told from the one after it).
 */
static void
search_best_range(const struct bisect_search *b, struct bisect_verdict *v)
{
	size_t k = 1, end;
	double mass;

	v->mass = -1;
	while (k <= b->n) {
		for (end = k, mass = b->w[k]; end < b->n && b->skip[end];)
			mass += b->w[++end];
		if (mass > v->mass) {
			v->mass = mass;
			v->first = k;
			v->last = end;
		}
		k = end + 1;
	}
}

/* The central credible range holding the wanted confidence. */
static void
search_credible(const struct bisect_search *b, struct bisect_verdict *v)
{
	double tail = (1 - b->p.confidence) / 2;
	size_t k;

	for (k = 1; k < b->n && b->cum[k] < tail; k++)
		;
	v->first = k;
	for (; k < b->n && b->cum[k] < 1 - tail; k++)
		;
	v->last = k;
	v->mass = b->cum[v->last] - b->cum[v->first - 1];
}

void
bisect_search_step(struct bisect_search *b, struct bisect_verdict *v)
{
	int ends;

	memset(v, 0, sizeof *v);
	v->samples = b->ns;
	v->state = BISECT_MEASURE;
	if ((ends = search_ends_differ(b, &v->next, v)) != 1) {
		if (ends == -1) {
			v->state = BISECT_NO_CHANGE;
			search_ends(b);
			b->fresh = false;
		}
		v->good = b->mg;
		v->bad = b->mb;
		v->sd = b->sd;
		return;
	}
	search_update(b);
	v->good = b->mg;
	v->bad = b->mb;
	v->sd = b->sd;
	search_best_range(b, v);
	if (v->mass >= b->p.confidence) {
		v->state = BISECT_FOUND;
		return;
	}
	if (b->ns + b->p.step_samples > b->p.budget)
		snprintf(v->why, sizeof v->why,
		    "another step of %zu samples would pass the budget of %zu",
		    b->p.step_samples, b->p.budget);
	else if (!search_query(b, &v->next))
		snprintf(v->why, sizeof v->why, "no commit left to measure");
	else
		return;
	v->state = BISECT_UNSURE;
	search_credible(b, v);
}

const char *
bisect_state_name(enum bisect_state s)
{
	static const char *const names[] = { "measure", "found", "unsure",
		"no change" };

	return names[s];
}
