/* hilab bisect: the search for the first bad commit, run by hilabd. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/load.h"
#include "bisect/range.h"
#include "bisect/report.h"
#include "bisect/template.h"
#include "cli/cli.h"
#include "common/metric.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "jobs/job.h"

/* What bisect start takes from the job file and the options. */
struct bisect_pick {
	const struct job_kernel	   *kernel;
	const struct job_benchmark *bench;
	const char		   *machine;
	const char		   *metric;
	char			   *params;
};

/*
 * The index of the item of n named by want (NULL: the only one), each
 * name names[i * stride] bytes into base; -1 after a usage error.
 */
static int
bisect_one_of(const char *what, const char *want, const void *base,
    size_t stride, size_t n, const char *path)
{
	const char *name;
	size_t	    i;

	if (want == NULL && n == 1)
		return 0;
	for (i = 0; want != NULL && i < n; i++) {
		memcpy(&name, (const char *)base + i * stride, sizeof name);
		if (strcmp(name, want) == 0)
			return (int)i;
	}
	if (want == NULL)
		cli_error(CLI_EXIT_USAGE, "%s: %zu %ss: name one with --%s",
		    path, n, what, what);
	else
		cli_error(CLI_EXIT_USAGE, "%s: no %s \"%s\" in the job", path,
		    what, want);
	return -1;
}

/* The kernel the commits are built as: the job's one built from git. */
static const struct job_kernel *
bisect_kernel(const struct job *job, const char *path)
{
	const struct job_kernel *k = NULL;
	size_t			 i, n = 0;

	for (i = 0; i < job->nkernels; i++)
		if (job->kernels[i].kind == JOB_KERNEL_BUILD && n++ == 0)
			k = &job->kernels[i];
	if (n != 1)
		cli_error(CLI_EXIT_USAGE,
		    "%s: %zu kernels built from git: a bisection builds its "
		    "commits as one (git, config, fragments)",
		    path, n);
	return n == 1 ? k : NULL;
}

/* The benchmark's parameters as "k=v,k2=v2": one value each, else NULL. */
static char *
bisect_params(const struct job_benchmark *b, const char *path)
{
	char  *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < b->nparams; i++) {
		if (b->params[i].nvalues != 1) {
			cli_error(CLI_EXIT_USAGE,
			    "%s: benchmark \"%s\": parameter \"%s\" has %zu "
			    "values: a bisection measures one",
			    path, b->name, b->params[i].key,
			    b->params[i].nvalues);
			free(s);
			return NULL;
		}
		t = xasprintf("%s%s%s=%s", s, i ? "," : "", b->params[i].key,
		    b->params[i].values[0]);
		free(s);
		s = t;
	}
	return s;
}

/* The metric: --metric if the benchmark declares it, else its first. */
static const char *
bisect_metric(const struct job_benchmark *b, const char *want, const char *path)
{
	size_t i;

	if (b->nmetrics == 0) {
		cli_error(CLI_EXIT_USAGE,
		    "%s: benchmark \"%s\" declares no metric", path, b->name);
		return NULL;
	}
	if (want == NULL)
		return b->metrics[0].name;
	for (i = 0; i < b->nmetrics; i++)
		if (metric_declares(b->metrics[i].name, want) != 0)
			return want;
	cli_error(CLI_EXIT_USAGE,
	    "%s: benchmark \"%s\" declares no metric \"%s\" (it has %s%s)",
	    path, b->name, want, b->metrics[0].name,
	    b->nmetrics > 1 ? " and more" : "");
	return NULL;
}

/* Fills p from the job and the options; 0 or a usage error. */
static int
bisect_choose(const struct job *job, const struct args *a, const char *path,
    struct bisect_pick *p)
{
	int m;

	if ((p->kernel = bisect_kernel(job, path)) == NULL)
		return CLI_EXIT_USAGE;
	if ((m = bisect_one_of("machine", args_text(a, "machine", NULL),
		 job->machines, sizeof *job->machines, job->nmachines, path)) <
	    0)
		return CLI_EXIT_USAGE;
	p->machine = job->machines[m];
	if ((m = bisect_one_of("benchmark", args_text(a, "benchmark", NULL),
		 &job->benchmarks[0].name, sizeof *job->benchmarks,
		 job->nbenchmarks, path)) < 0)
		return CLI_EXIT_USAGE;
	p->bench = &job->benchmarks[m];
	if ((p->metric = bisect_metric(p->bench, args_text(a, "metric", NULL),
		 path)) == NULL ||
	    (p->params = bisect_params(p->bench, path)) == NULL)
		return CLI_EXIT_USAGE;
	return 0;
}

/* The template of the steps: p's machine, kernel (from tree) and benchmark. */
static char *
bisect_job_template(const struct job *job, const struct bisect_pick *p,
    const char *tree)
{
	char   *text = job_to_json(job);
	json_t *o = json_loads(text, 0, NULL);

	free(text);
	text = bisect_template(o,
	    json_array_get(json_object_get(o, "kernels"),
		(size_t)(p->kernel - job->kernels)),
	    json_array_get(json_object_get(o, "benchmarks"),
		(size_t)(p->bench - job->benchmarks)),
	    p->machine, tree);
	json_decref(o);
	return text;
}

/* Stores the bisection and says what it will do; an exit code. */
static int
bisect_store(const struct cli_options *o, struct db_bisect *b, size_t n, int it)
{
	struct db *db;
	char	  *cause = NULL;
	int64_t	   id;

	if ((db = cli_db_open(o, true)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((id = db_bisect_add(db, b, &cause)) == -1) {
		db_close(db);
		return cli_cause(CLI_EXIT_FAIL, cause);
	}
	db_close(db);
	cli_nudge(o);
	if (o->json) {
		cli_print_json(json_pack("{s:I, s:s, s:I, s:I}", "id",
		    (json_int_t)id, "name", b->name, "commits", (json_int_t)n,
		    "budget", (json_int_t)b->budget));
		return CLI_EXIT_OK;
	}
	printf("bisection %lld \"%s\": %zu commits after the good end on %s, "
	       "%s %s%s%s; at most %lld samples (%lld step jobs, each %d "
	       "iterations of a commit between one of each end, 3 boots)\n",
	    (long long)id, b->name, n, b->machine, b->benchmark, b->metric,
	    *b->params ? " " : "", b->params, (long long)b->budget,
	    (long long)(b->budget / (it + 2)), it);
	return CLI_EXIT_OK;
}

/* The confidence option as a fraction in (0.5, 1), or NAN. */
static double
bisect_confidence(const char *text)
{
	char  *end;
	double c = strtod(text, &end);

	if (end == text || *end != '\0' || !(c > 0.5 && c < 1))
		return NAN;
	return c;
}

/*
 * hilab bisect start FILE --good A --bad B [--machine M] [--benchmark X]
 * [--metric Y] [--tree T] [--budget N] [--confidence C] [--name NAME].
 */
int
cmd_bisect_start(const struct cli_options *o, const struct args *a)
{
	const char	   *path = a->pos[0].text;
	struct bisect_pick  p = { 0 };
	struct db_bisect    b = { 0 };
	struct job	   *job;
	struct bisect_range r = { 0 };
	char		   *cause = NULL;
	int		    rc;

	b.confidence = bisect_confidence(args_text(a, "confidence", "0.995"));
	b.budget = args_num(a, "budget", 400);
	if (isnan(b.confidence) || b.budget < 10)
		return cli_error(CLI_EXIT_USAGE,
		    "--confidence must be above 0.5 and below 1, --budget 10 "
		    "samples or more");
	if ((job = cli_job_load(o, path)) == NULL)
		return CLI_EXIT_USAGE;
	if ((rc = bisect_choose(job, a, path, &p)) != 0)
		goto out;
	b.tree = (char *)args_text(a, "tree", p.kernel->git);
	if (bisect_range_read(b.tree, args_text(a, "good", ""),
		args_text(a, "bad", ""), &r, &cause) == -1) {
		rc = cli_error(CLI_EXIT_USAGE, "%s", cause);
		free(cause);
		goto out;
	}
	b.name = (char *)args_text(a, "name", job->name);
	b.machine = (char *)p.machine;
	b.benchmark = p.bench->name;
	b.metric = (char *)p.metric;
	b.params = p.params;
	b.spec = bisect_job_template(job, &p, b.tree);
	b.commits = r.commits;
	b.subjects = r.subjects;
	rc = bisect_store(o, &b, r.n,
	    p.bench->iterations > 0 ? p.bench->iterations : 1);
	free(b.spec);
out:
	bisect_range_clear(&r);
	free(p.params);
	job_free(job);
	return rc;
}

/*
 * Opens the database and reads the bisection the argument names; NULL
 * after an error, whose exit code is in *rc.
 */
static struct db_bisect *
bisect_get(const struct cli_options *o, const struct args *a, bool write,
    struct db **db, int *rc)
{
	struct db_bisect *b;
	char		 *cause = NULL;

	*rc = CLI_EXIT_UNAVAILABLE;
	if ((*db = cli_db_open(o, write)) == NULL)
		return NULL;
	if ((b = db_bisect_get(*db, (int64_t)a->pos[0].num, &cause)) == NULL) {
		*rc = cli_cause(CLI_EXIT_USAGE, cause);
		db_close(*db);
	}
	return b;
}

/* A bisection as JSON, with its evidence when l is given. */
static json_t *
bisect_json(const struct db_bisect *b, struct bisect_loaded *l)
{
	json_t *o, *ev;
	size_t	c;

	o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:f, "
		      "s:o, s:s?, s:o}",
	    "id", (json_int_t)b->id, "name", b->name, "state", b->state,
	    "machine", b->machine, "benchmark", b->benchmark, "metric",
	    b->metric, "params", b->params, "tree", b->tree, "budget",
	    (json_int_t)b->budget, "confidence", b->confidence, "result",
	    b->result ? json_loads(b->result, 0, NULL) : json_null(), "why",
	    b->why, "created", cli_time_json(b->created));
	if (l == NULL)
		return o;
	ev = json_array();
	for (c = 0; c <= l->n; c++)
		json_array_append_new(ev,
		    json_pack("{s:I, s:s, s:s, s:I, s:o, s:f, s:s}", "index",
			(json_int_t)c, "commit", l->commits[c], "subject",
			l->subjects[c], "n",
			(json_int_t)bisect_search_count(l->search, c), "mean",
			bisect_search_count(l->search, c)
			    ? json_real(bisect_search_mean(l->search, c))
			    : json_null(),
			"p_bad", bisect_search_p_bad(l->search, c), "verdict",
			bisect_verdict_of(l, c)));
	json_object_set_new(o, "commits", ev);
	return o;
}

/* hilab bisect show ID: the bisection, its evidence and its events. */
int
cmd_bisect_show(const struct cli_options *o, const struct args *a)
{
	struct db	    *db;
	struct db_bisect    *b;
	struct bisect_loaded l;
	struct db_event	    *ev = NULL;
	char		    *cause = NULL;
	size_t		     nev = 0, i;
	int		     rc = CLI_EXIT_FAIL;

	if ((b = bisect_get(o, a, false, &db, &rc)) == NULL)
		return rc;
	if (bisect_load(db, b, &l, &cause) == -1 ||
	    db_bisect_events(db, b->id, &ev, &nev, &cause) == -1) {
		rc = cli_cause(CLI_EXIT_FAIL, cause);
		goto out;
	}
	if (o->json) {
		cli_print_json(bisect_json(b, &l));
		bisect_loaded_clear(&l);
		rc = CLI_EXIT_OK;
		goto out;
	}
	bisect_report_print(stdout, b, &l);
	for (i = 0; i < nev; i++)
		printf("%s%s\n", i == 0 ? "\n" : "", ev[i].message);
	bisect_loaded_clear(&l);
	rc = CLI_EXIT_OK;
out:
	db_event_list_free(ev, nev);
	db_bisect_free(b);
	db_close(db);
	return rc;
}

/* hilab bisect list: every bisection and where it stands. */
int
cmd_bisect_list(const struct cli_options *o, const struct args *a)
{
	struct db_bisect *v;
	struct db	 *db;
	char		 *cause = NULL;
	size_t		  n, i;

	(void)a;
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_bisect_list(db, false, &v, &n, &cause) == -1) {
		db_close(db);
		return cli_cause(CLI_EXIT_FAIL, cause);
	}
	if (o->json) {
		json_t *arr = json_array();

		for (i = 0; i < n; i++)
			json_array_append_new(arr, bisect_json(&v[i], NULL));
		cli_print_json(arr);
	}
	for (i = 0; !o->json && i < n; i++)
		printf("%4lld %-24s %-9s %s %s %s on %s\n", (long long)v[i].id,
		    v[i].name, v[i].state, v[i].benchmark, v[i].metric,
		    v[i].params, v[i].machine);
	db_bisect_list_free(v, n);
	db_close(db);
	return CLI_EXIT_OK;
}

/* hilab bisect cancel ID: ends it; its step job is cancelled. */
int
cmd_bisect_cancel(const struct cli_options *o, const struct args *a)
{
	struct db_bisect      *b;
	struct db_bisect_step *s = NULL;
	struct db	      *db;
	char		      *cause = NULL;
	size_t		       n = 0;
	int		       ended, rc;

	if ((b = bisect_get(o, a, true, &db, &rc)) == NULL)
		return rc;
	if ((ended = db_bisect_end(db, b->id, "cancelled", NULL,
		 "cancelled by hilab bisect cancel", &cause)) == -1 ||
	    db_bisect_steps(db, b->id, &s, &n, &cause) == -1) {
		db_bisect_free(b);
		db_close(db);
		return cli_cause(CLI_EXIT_FAIL, cause);
	}
	if (n > 0)
		(void)db_job_cancel_request(db, s[n - 1].job, &cause);
	free(cause);
	free(s);
	printf("bisection %lld \"%s\": %s\n", (long long)b->id, b->name,
	    ended ? "cancelled" : b->state);
	db_bisect_free(b);
	db_close(db);
	cli_nudge(o);
	return CLI_EXIT_OK;
}
