/*
 * The run planner: expands a job into machines x rounds x kernels x
 * benchmarks x parameter combinations, in the order plan.h documents.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/conf.h"
#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/plan.h"

/* One step of splitmix64: a small, portable, well-mixed generator. */
static uint64_t
plan_random_next(uint64_t *state)
{
	uint64_t z;

	*state += 0x9e3779b97f4a7c15ULL;
	z = *state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fills order[0..nkernels) with the kernel indices of round r. */
void
plan_round_order(const struct job *job, int round, size_t *order)
{
	uint64_t state;
	size_t	 i, j, tmp, n = job->nkernels;

	for (i = 0; i < n; i++)
		order[i] = i;
	if (job->order == JOB_ORDER_ALTERNATE && round % 2 == 1)
		for (i = 0; i < n; i++)
			order[i] = n - 1 - i;
	if (job->order != JOB_ORDER_RANDOM)
		return;
	state = ((uint64_t)job->seed << 32) ^ (uint64_t)round;
	for (i = n; i > 1; i--) {
		j = (size_t)(plan_random_next(&state) % i);
		tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
}

/* a * b, or SIZE_MAX when that does not fit. */
static size_t
plan_mul(size_t a, size_t b)
{
	return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

/* a + b, or SIZE_MAX when that does not fit. */
static size_t
plan_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Returns the number of parameter combinations of a benchmark. */
static size_t
plan_combinations(const struct job_benchmark *b)
{
	size_t i, n = 1;

	for (i = 0; i < b->nparams; i++)
		n = plan_mul(n, b->params[i].nvalues);
	return n;
}

/* The kernels of the job benchmark b runs under. */
static size_t
plan_kernels_of(const struct job *job, const struct job_benchmark *b)
{
	size_t k, n = 0;

	for (k = 0; k < job->nkernels; k++)
		n += job_benchmark_runs_on(b, &job->kernels[k]);
	return n;
}

/*
 * The runs of one machine and round: each kernel's combinations of the
 * benchmarks that run under it.
 */
static size_t
plan_count_per_round(const struct job *job)
{
	const struct job_benchmark *b;
	size_t			    i, n = 0;

	for (i = 0; i < job->nbenchmarks; i++) {
		b = &job->benchmarks[i];
		n = plan_add(n,
		    plan_mul(plan_kernels_of(job, b), plan_combinations(b)));
	}
	return n;
}

/* Returns the number of runs the job expands to, per machine. */
size_t
plan_count_per_machine(const struct job *job)
{
	return plan_mul(plan_count_per_round(job), (size_t)job->rounds);
}

/*
 * The rounds b may run in: the job's, and with adaptive iterations those
 * that may follow, each adding a round's worth or more (the last less).
 */
static size_t
plan_rounds_max(const struct job *job, const struct job_benchmark *b)
{
	size_t rounds = (size_t)job->rounds;
	int    base = plan_iterations(job, b);

	if (b->adaptive.precision > 0 && base > 0 &&
	    b->adaptive.max > b->adaptive.min)
		rounds +=
		    (size_t)((b->adaptive.max - b->adaptive.min + base - 1) /
			base);
	return rounds;
}

/* Runs the job may come to on all its machines; see plan.h. */
size_t
plan_count_max(const struct job *job)
{
	const struct job_benchmark *b;
	size_t			    i, n = 0;

	for (i = 0; i < job->nbenchmarks; i++) {
		b = &job->benchmarks[i];
		n = plan_add(n,
		    plan_mul(plan_mul(plan_kernels_of(job, b),
				 plan_combinations(b)),
			plan_rounds_max(job, b)));
	}
	return plan_mul(n, job->nmachines);
}

/* Refuses a job of more than JOB_MAX_RUNS runs; see plan.h. */
int
plan_check_count(const struct job *job, char **cause)
{
	size_t n = plan_count_max(job);

	if (n <= JOB_MAX_RUNS)
		return 0;
	if (n == SIZE_MAX)
		*cause = xasprintf("job \"%s\": expands to more than %zu runs, "
				   "the limit is %d",
		    job->name, n - 1, JOB_MAX_RUNS);
	else
		*cause = xasprintf("job \"%s\": expands to %zu runs, the "
				   "limit is %d",
		    job->name, n, JOB_MAX_RUNS);
	return -1;
}

/* Iterations per run of a benchmark; see plan.h. */
int
plan_iterations(const struct job *job, const struct job_benchmark *b)
{
	if (b->adaptive.precision <= 0 || job->rounds < 1)
		return b->iterations;
	return (b->adaptive.min + job->rounds - 1) / job->rounds;
}

/* Frees a NULL-terminated argv; NULL is fine. */
void
plan_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

/* Appends len bytes of s to the growing string *out. */
static void
plan_append(char **out, size_t *len, const char *s, size_t n)
{
	*out = xreallocarray(*out, *len + n + 1, 1);
	memcpy(*out + *len, s, n);
	*len += n;
	(*out)[*len] = '\0';
}

/* Returns the index of the parameter called name (len bytes), or -1. */
static long
plan_key_index(const char *name, size_t len, const char *const *keys,
    size_t nparams)
{
	size_t i;

	for (i = 0; i < nparams; i++)
		if (strlen(keys[i]) == len && strncmp(keys[i], name, len) == 0)
			return (long)i;
	return -1;
}

/* Returns the length of the placeholder name after '{', or 0 if none. */
static size_t
plan_placeholder(const char *t)
{
	const char *close = strchr(t, '}');
	size_t	    len;

	if (close == NULL)
		return 0;
	len = close - t - 1;
	if (len == 0 ||
	    strspn(t + 1,
		"abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != len)
		return 0;
	return len;
}

/* Whether word (maybe a path) names a POSIX-style shell. */
static bool
plan_is_shell(const char *word)
{
	static const char *const shells[] = { "sh", "bash", "dash", "ash",
		"ksh", "mksh", "zsh", NULL };
	const char		*base = strrchr(word, '/');
	size_t			 i;

	base = base != NULL ? base + 1 : word;
	for (i = 0; shells[i] != NULL; i++)
		if (strcmp(base, shells[i]) == 0)
			return true;
	return false;
}

/* The index of the script a shell at argv[i] runs with -c, or -1. */
static long
plan_shell_at(char *const *argv, size_t i)
{
	const char *o;
	bool	    c = false;

	while (argv[++i] != NULL && (argv[i][0] == '-' || argv[i][0] == '+')) {
		o = argv[i];
		if (strcmp(o, "--") == 0 || strcmp(o, "-") == 0) {
			i++;
			break;
		}
		if (o[1] == '-')
			continue; /* --login, --norc... */
		c |= strchr(o + 1, 'c') != NULL;
		/* -o NAME, +O NAME: the name is not the script. */
		if (strchr("oO", o[strlen(o) - 1]) != NULL &&
		    argv[i + 1] != NULL)
			i++;
	}
	return c && argv[i] != NULL ? (long)i : -1;
}

/* See plan.h. */
long
plan_shell_script(char *const *argv)
{
	size_t i;
	long   s;

	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		if (plan_is_shell(argv[i]) &&
		    (s = plan_shell_at(argv, i)) != -1)
			return s;
	return -1;
}

/* Expands (or with values NULL, checks) one template argument. */
int
plan_expand_arg(const char *t, const char *const *keys,
    const char *const *values, size_t nparams, bool *used, char **out,
    char **cause)
{
	char  *buf = xstrdup("");
	size_t len = 0, n;
	long   i;

	while (*t != '\0') {
		if ((t[0] == '{' && t[1] == '{') ||
		    (t[0] == '}' && t[1] == '}')) {
			plan_append(&buf, &len, t, 1);
			t += 2;
			continue;
		}
		if (*t != '{' && *t != '}') {
			plan_append(&buf, &len, t++, 1);
			continue;
		}
		if (*t == '}' || (n = plan_placeholder(t)) == 0) {
			*cause = xasprintf("lone \"%c\" (write \"%c%c\" for a "
					   "brace)",
			    *t, *t, *t);
			goto fail;
		}
		if ((i = plan_key_index(t + 1, n, keys, nparams)) == -1) {
			*cause = xasprintf("placeholder \"%.*s\" is not a "
					   "parameter",
			    (int)n + 2, t);
			goto fail;
		}
		if (used != NULL)
			used[i] = true;
		if (values != NULL)
			plan_append(&buf, &len, values[i], strlen(values[i]));
		t += n + 2;
	}
	if (out != NULL)
		*out = buf;
	else
		free(buf);
	return 0;
fail:
	free(buf);
	return -1;
}

/* Replaces each {key} in the template with its value from params. */
char **
plan_expand_argv(char *const *tmpl, const char *const *keys,
    const char *const *values, size_t nparams, char **cause)
{
	char **argv;
	size_t n, i;

	for (n = 0; tmpl[n] != NULL; n++)
		;
	argv = xcalloc(n + 1, sizeof *argv);
	for (i = 0; i < n; i++)
		if (plan_expand_arg(tmpl[i], keys, values, nparams, NULL,
			&argv[i], cause) == -1) {
			plan_argv_free(argv);
			return NULL;
		}
	return argv;
}

/* Returns the canonical text of one combination: "a=1,b=2". */
static char *
plan_params_text(const struct job_benchmark *b, const char **values)
{
	char  *out = xstrdup(""), *next;
	size_t i;

	for (i = 0; i < b->nparams; i++) {
		next = xasprintf("%s%s%s=%s", out, i ? "," : "",
		    b->params[i].key, values[i]);
		free(out);
		out = next;
	}
	return out;
}

/* Picks the values of combination c: the last key varies fastest. */
static void
plan_combination(const struct job_benchmark *b, size_t c, const char **keys,
    const char **values)
{
	size_t i;

	for (i = b->nparams; i-- > 0;) {
		keys[i] = b->params[i].key;
		values[i] = b->params[i].values[c % b->params[i].nvalues];
		c /= b->params[i].nvalues;
	}
}

/* Returns the names of the metrics b requires, NULL-terminated. */
static char **
plan_required(const struct job_benchmark *b)
{
	char **v = xcalloc(b->nmetrics + 1, sizeof *v);
	size_t i, n = 0;

	for (i = 0; i < b->nmetrics; i++)
		if (job_metric_required(&b->metrics[i]))
			v[n++] = xstrdup(b->metrics[i].name);
	return v;
}

/* Fills one run of benchmark b at combination c; -1 with *cause. */
static int
plan_fill_run(const struct job *job, const struct job_benchmark *b, size_t c,
    struct plan_run *run, char **cause)
{
	const char **keys, **values;
	int	     rc = -1;

	keys = xcalloc(b->nparams + 1, sizeof *keys);
	values = xcalloc(b->nparams + 1, sizeof *values);
	plan_combination(b, c, keys, values);
	run->argv = plan_expand_argv(b->argv, keys, values, b->nparams, cause);
	if (run->argv == NULL)
		goto out;
	run->benchmark = xstrdup(b->name);
	run->params = plan_params_text(b, values);
	run->iterations = plan_iterations(job, b);
	run->warmups = b->warmups;
	run->timeout_ms = b->timeout_ms;
	run->parser = xstrdup(b->parser);
	run->parser_args = b->parser_args ? xstrdup(b->parser_args) : NULL;
	run->metrics = plan_required(b);
	run->probes = conf_strv_dup(b->probes);
	run->probe_method = b->probe_method ? xstrdup(b->probe_method) : NULL;
	run->monitors = conf_strv_dup(b->monitors);
	rc = 0;
out:
	free(keys);
	free(values);
	return rc;
}

/* Adds every run of one machine and round to plan. */
static int
plan_add_round(const struct job *job, size_t m, int r, size_t *order,
    struct plan *plan, char **cause)
{
	const struct job_benchmark *b;
	struct plan_run		   *run;
	size_t			    k, i, c;
	int			    position = 0;

	plan_round_order(job, r, order);
	for (k = 0; k < job->nkernels; k++)
		for (i = 0; i < job->nbenchmarks; i++) {
			b = &job->benchmarks[i];
			if (!job_benchmark_runs_on(b, &job->kernels[order[k]]))
				continue;
			for (c = 0; c < plan_combinations(b); c++) {
				run = &plan->runs[plan->n];
				if (plan_fill_run(job, b, c, run, cause) == -1)
					return -1;
				plan->n++;
				run->machine = xstrdup(job->machines[m]);
				run->kernel =
				    xstrdup(job->kernels[order[k]].name);
				run->round = r;
				run->position = position++;
				run->machine_index = m;
				run->kernel_index = order[k];
				run->benchmark_index = i;
			}
		}
	return 0;
}

/* Checks that every benchmark is resolved; -1 with *cause. */
static int
plan_check(const struct job *job, char **cause)
{
	size_t i;

	for (i = 0; i < job->nbenchmarks; i++)
		if (!job->benchmarks[i].resolved) {
			*cause = xasprintf("benchmark \"%s\": not resolved "
					   "against the catalog",
			    job->benchmarks[i].name);
			return -1;
		}
	if (job->nmachines == 0 || job->nkernels == 0 || job->rounds < 1) {
		*cause = xstrdup("job has no machines, kernels or rounds");
		return -1;
	}
	return plan_check_count(job, cause);
}

/* Expands job into plan. */
int
plan_build(const struct job *job, struct plan *plan, char **cause)
{
	return plan_build_rounds(job, 0, job->rounds, plan, cause);
}

/* Expands rounds [first, last) of job into plan; see plan.h. */
int
plan_build_rounds(const struct job *job, int first, int last, struct plan *plan,
    char **cause)
{
	size_t *order = NULL, m;
	int	r, rc = -1;

	memset(plan, 0, sizeof *plan);
	if (plan_check(job, cause) == -1)
		return -1;
	if (first < 0 || last < first) {
		*cause = xasprintf("job \"%s\": no rounds %d to %d", job->name,
		    first, last - 1);
		return -1;
	}
	plan->runs = xcalloc(plan_count_per_round(job) *
		    (size_t)(last - first) * job->nmachines +
		1,
	    sizeof *plan->runs);
	order = xcalloc(job->nkernels, sizeof *order);
	for (m = 0; m < job->nmachines; m++)
		for (r = first; r < last; r++)
			if (plan_add_round(job, m, r, order, plan, cause) == -1)
				goto out;
	rc = 0;
out:
	free(order);
	if (rc == -1)
		plan_free(plan);
	return rc;
}

/* Frees the runs of plan and leaves it empty; NULL is fine. */
void
plan_free(struct plan *plan)
{
	struct plan_run *run;
	size_t		 i;

	if (plan == NULL)
		return;
	for (i = 0; i < plan->n; i++) {
		run = &plan->runs[i];
		free(run->machine);
		free(run->kernel);
		free(run->benchmark);
		free(run->params);
		plan_argv_free(run->argv);
		free(run->parser);
		free(run->parser_args);
		plan_argv_free(run->metrics);
		plan_argv_free(run->probes);
		free(run->probe_method);
		plan_argv_free(run->monitors);
	}
	free(plan->runs);
	memset(plan, 0, sizeof *plan);
}

/*
 * Returns the line of a "regex" parser's args that defines metric
 * ("name=REGEX" or "name[unit]=REGEX", as parse_generic.c reads them), or
 * NULL (caller frees).
 */
static char *
plan_regex_line(const char *args, const char *metric)
{
	const char *line, *end, *eq, *br;
	size_t	    len;

	for (line = args; line != NULL && *line != '\0'; line = end) {
		if ((end = strchr(line, '\n')) == NULL)
			end = line + strlen(line);
		len = (size_t)(end - line);
		if (*end == '\n')
			end++;
		if ((eq = memchr(line, '=', len)) == NULL)
			continue;
		br = memchr(line, '[', (size_t)(eq - line));
		if (br == NULL || eq[-1] != ']')
			br = eq;
		if ((size_t)(br - line) == strlen(metric) &&
		    strncmp(line, metric, strlen(metric)) == 0)
			return xstrndup(line, len);
	}
	return NULL;
}

/* Says that parser finds no value of a declared metric. */
char *
plan_missing(const char *parser, const char *parser_args, const char *metric)
{
	char *line, *s;

	if (strcmp(parser, "regex") != 0)
		return xasprintf("declared metric \"%s\": parser \"%s\" finds "
				 "no value of it",
		    metric, parser);
	if ((line = plan_regex_line(parser_args, metric)) == NULL)
		return xasprintf("declared metric \"%s\": parser \"regex\" "
				 "(no line \"%s=REGEX\" in parser_args) finds "
				 "no value of it",
		    metric, metric);
	s = xasprintf("declared metric \"%s\": parser \"regex\" (%s) finds no "
		      "value of it",
	    metric, line);
	free(line);
	return s;
}

/* Appends a line to the growing message *out. */
static void
plan_add_line(char **out, char *line)
{
	char *next;

	if (*out == NULL) {
		*out = line;
		return;
	}
	next = xasprintf("%s\n%s", *out, line);
	free(*out);
	free(line);
	*out = next;
}

/* Parses a benchmark's parser_sample: the required metrics it lacks. */
char *
plan_check_sample(const struct job_benchmark *b)
{
	struct parse_result res;
	char		   *text, *why = NULL, *out = NULL, *miss;
	size_t		    i;

	if (b->parser_sample == NULL || b->parser == NULL)
		return NULL;
	text = xasprintf("%s\n", b->parser_sample);
	parse_output(b->parser, b->parser_args, text, strlen(text), &res, &why);
	for (i = 0; i < b->nmetrics; i++) {
		if (!job_metric_required(&b->metrics[i]) ||
		    parse_result_has(&res, b->metrics[i].name))
			continue;
		miss =
		    plan_missing(b->parser, b->parser_args, b->metrics[i].name);
		plan_add_line(&out,
		    xasprintf("benchmark \"%s\": %s in parser_sample "
			      "\"%s\"%s%s%s",
			b->name, miss, b->parser_sample, why ? " (" : "",
			why ? why : "", why ? ")" : ""));
		free(miss);
	}
	if (out == NULL && why != NULL)
		out = xasprintf("benchmark \"%s\": parser_sample \"%s\": %s",
		    b->name, b->parser_sample, why);
	parse_result_clear(&res);
	free(why);
	free(text);
	return out;
}
