/* Results from agents into SQLite: raw output first, then samples. */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/ingest.h"
#include "jobs/plan.h"
#include "machines/agent_client.h"

char *
ingest_facts_json(const struct agent_facts *facts)
{
	json_t *o = json_object();
	char   *s;
	size_t	i;

	for (i = 0; i < facts->n; i++)
		json_object_set_new(o, facts->v[i].key,
		    facts->v[i].value ? json_string(facts->v[i].value)
				      : json_null());
	s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(o);
	return s;
}

/* The last non-empty line of an output, cut to 120 bytes (caller frees). */
static char *
ingest_last_line(const char *out, size_t len)
{
	const char *end = out + len, *start;

	while (end > out && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > out && start[-1] != '\n')
		start--;
	return xstrndup(start, end - start > 120 ? 120 : end - start);
}

/* Says why an iteration did not go well, or NULL if it did. */
static char *
ingest_exit_problem(const struct agent_result *r)
{
	char *last, *p;

	if (r->exit_status == 0 && !r->timed_out)
		return NULL;
	last = ingest_last_line(r->output, r->output_len);
	if (r->timed_out)
		p = xasprintf("iteration %llu timed out: \"%s\"",
		    (unsigned long long)r->seq, last);
	else if (r->exit_status < 0)
		p = xasprintf("iteration %llu killed by signal %lld: \"%s\"",
		    (unsigned long long)r->seq, (long long)-r->exit_status,
		    last);
	else
		p = xasprintf("iteration %llu exited with status %lld: \"%s\"",
		    (unsigned long long)r->seq, (long long)r->exit_status,
		    last);
	free(last);
	return p;
}

/* How many values of name came before index i in the parse result. */
static int64_t
ingest_repeat(const struct parse_result *res, size_t i)
{
	int64_t n = 0;
	size_t	j;

	for (j = 0; j < i; j++)
		n += strcmp(res->v[j].name, res->v[i].name) == 0;
	return n;
}

/*
 * Says which required metrics of the run res lacks (all of them when res
 * is NULL: the parser failed), or NULL: the first in full, the others by
 * name.
 */
static char *
ingest_missing(const struct plan_run *p, const struct parse_result *res)
{
	char  *first = NULL, *more = NULL, *next, *msg;
	size_t i;

	for (i = 0; p->metrics != NULL && p->metrics[i] != NULL; i++) {
		if (parse_result_has(res, p->metrics[i]))
			continue;
		if (first == NULL) {
			first = plan_missing(p->parser, p->parser_args,
			    p->metrics[i]);
			continue;
		}
		next = xasprintf("%s%s\"%s\"", more ? more : "",
		    more ? ", " : "", p->metrics[i]);
		free(more);
		more = next;
	}
	if (first == NULL || more == NULL)
		return first;
	msg = xasprintf("%s (nor of %s)", first, more);
	free(first);
	free(more);
	return msg;
}

/*
 * Says why a measured iteration's output is not good enough: the parser
 * failed (why), or it lacks a required metric (in an output cut to its
 * head and tail, said so); NULL if neither.
 */
static char *
ingest_parse_problem(const struct plan_run *p, const struct agent_result *r,
    const struct parse_result *res, const char *why)
{
	char	   *miss = ingest_missing(p, why != NULL ? NULL : res), *s;
	const char *cut = r->truncated
	    ? " (the output passed 4 MiB: only its head and its tail were kept)"
	    : "";

	if (why == NULL && miss == NULL)
		return NULL;
	if (miss == NULL)
		s = xasprintf("iteration %llu: %s%s",
		    (unsigned long long)r->seq, why, cut);
	else if (why == NULL)
		s = xasprintf("iteration %llu: %s in the output%s",
		    (unsigned long long)r->seq, miss, cut);
	else
		s = xasprintf("iteration %llu: %s in the output%s: %s",
		    (unsigned long long)r->seq, miss, cut, why);
	free(miss);
	return s;
}

/*
 * Parses a measured iteration's output into samples, repeats numbered;
 * the samples found are kept even when a required metric is missing.
 */
static int
ingest_samples(struct db *db, int64_t run, const struct plan_run *p,
    const struct agent_result *r, char **problem, char **cause)
{
	struct parse_result res = { 0 };
	struct db_sample   *s;
	char		   *why = NULL;
	size_t		    i, n = 0;
	int		    rc = 0;

	if (parse_output(p->parser, p->parser_args, r->output, r->output_len,
		&res, &why) == -1) {
		*problem = ingest_parse_problem(p, r, NULL, why);
		free(why);
		return 0;
	}
	s = xcalloc(res.n, sizeof *s);
	for (i = 0; i < res.n; i++) {
		s[n].run = run;
		s[n].metric = res.v[i].name;
		s[n].iteration = (int64_t)r->seq - p->warmups;
		s[n].repeat = ingest_repeat(&res, i);
		s[n].value = res.v[i].value;
		n++;
	}
	if (db_samples_insert(db, s, n, cause) == -1)
		rc = -1;
	else
		*problem = ingest_parse_problem(p, r, &res, NULL);
	free(s);
	parse_result_clear(&res);
	return rc;
}

/*
 * Stores the "metric=value" samples the agent's probes and monitors took
 * beside an iteration (a name that repeats is numbered as repeats); one
 * whose value is not a finite number is left out and said.
 */
static int
ingest_observed(struct db *db, int64_t run, const struct plan_run *p,
    const struct agent_result *r, char **problem, char **cause)
{
	struct db_sample *s = xcalloc(r->nsamples + 1, sizeof *s);
	const char	 *eq;
	char		 *end;
	size_t		  i, j, n = 0;
	int		  rc;

	for (i = 0; i < r->nsamples; i++) {
		eq = strchr(r->samples[i], '=');
		s[n].value = strtod(eq + 1, &end);
		if (eq[1] == '\0' || *end != '\0' || !isfinite(s[n].value)) {
			if (*problem == NULL)
				*problem = xasprintf("iteration %llu: the "
						     "agent's sample \"%s\" "
						     "is not a number",
				    (unsigned long long)r->seq, r->samples[i]);
			continue;
		}
		s[n].run = run;
		s[n].metric =
		    xstrndup(r->samples[i], (size_t)(eq - r->samples[i]));
		s[n].iteration = (int64_t)r->seq - p->warmups;
		for (j = 0; j < n; j++)
			s[n].repeat += strcmp(s[j].metric, s[n].metric) == 0;
		n++;
	}
	rc = db_samples_insert(db, s, n, cause) == -1 ? -1 : 0;
	for (i = 0; i < n; i++)
		free((char *)s[i].metric);
	free(s);
	return rc;
}

int
ingest_result(struct db *db, int64_t run, const struct plan_run *p,
    const struct agent_result *r, char **problem, char **cause)
{
	struct db_result dr = {
		.run = run,
		.seq = r->seq,
		.warmup = r->warmup,
		.exit_status = r->exit_status,
		.timed_out = r->timed_out,
		.wall_ns = r->wall_ns,
		.utime_us = r->utime_us,
		.stime_us = r->stime_us,
		.maxrss_kb = r->maxrss_kb,
		.output = r->output,
		.output_len = r->output_len,
		.truncated = r->truncated,
	};
	char *ignore = NULL;

	*problem = NULL;
	if (db_begin(db, cause) == -1)
		return -1;
	if (db_run_result_insert(db, &dr, cause) == -1)
		goto fail;
	*problem = ingest_exit_problem(r);
	if (*problem == NULL && !r->warmup &&
	    (ingest_samples(db, run, p, r, problem, cause) == -1 ||
		ingest_observed(db, run, p, r, problem, cause) == -1))
		goto fail;
	return db_commit(db, cause);
fail:
	free(*problem);
	*problem = NULL;
	db_rollback(db, &ignore);
	free(ignore);
	return -1;
}
