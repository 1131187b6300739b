/*
 * Bisections in hilabd (hilabd/bisector.h).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/load.h"
#include "bisect/report.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/bisector.h"
#include "hilabd/sweeper.h"

/* Step jobs that may fail not for their commit before a bisection fails. */
#define BISECTOR_STRAYS 3

/* Logs cause as a warning and frees it. */
static void
bisector_warn(char *cause)
{
	log_warn("bisector", "%s", cause);
	free(cause);
}

/* True if the bisection's newest step job has not ended. */
static bool
bisector_busy(struct db *db, const struct db_bisect *b)
{
	struct db_bisect_step *s;
	struct db_job	      *j;
	char		      *cause = NULL;
	size_t		       n;
	bool		       busy = false;

	if (db_bisect_steps(db, b->id, &s, &n, &cause) == -1) {
		bisector_warn(cause);
		return true;
	}
	if (n > 0 && (j = db_job_get(db, s[n - 1].job, &cause)) != NULL) {
		busy = j->state == DB_QUEUED || j->state == DB_RUNNING;
		db_job_free(j);
	} else if (n > 0)
		bisector_warn(cause);
	free(s);
	return busy;
}

/* The result of a verdict as JSON text (caller frees). */
static char *
bisector_result(const struct bisect_loaded *l, const struct bisect_verdict *v)
{
	json_t *o;
	char   *text;

	o = json_pack("{s:f, s:f, s:f, s:I}", "good", v->good, "bad", v->bad,
	    "sd", v->sd, "samples", (json_int_t)v->samples);
	if (v->state == BISECT_FOUND || v->state == BISECT_UNSURE) {
		json_object_set_new(o, "first",
		    json_integer((json_int_t)v->first));
		json_object_set_new(o, "last",
		    json_integer((json_int_t)v->last));
		json_object_set_new(o, "first_commit",
		    json_string(l->commits[v->first]));
		json_object_set_new(o, "last_commit",
		    json_string(l->commits[v->last]));
		json_object_set_new(o, "mass", json_real(v->mass));
	}
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

/* The sentence an ended bisection's event says (caller frees). */
static char *
bisector_sentence(const struct db_bisect *b, const struct bisect_loaded *l,
    const struct bisect_verdict *v)
{
	char f[13], t[13];

	bisect_short(l->commits[v->first], f);
	bisect_short(l->commits[v->last], t);
	if (v->state == BISECT_FOUND && v->first == v->last)
		return xasprintf("bisection %lld \"%s\": the first bad commit "
				 "is %s \"%s\" (posterior %.3f, %zu samples)",
		    (long long)b->id, b->name, f, l->subjects[v->first],
		    v->mass, v->samples);
	if (v->state == BISECT_FOUND)
		return xasprintf("bisection %lld \"%s\": the first bad commit "
				 "is one of %s..%s: the commits before %s do "
				 "not build or boot (posterior %.3f, %zu "
				 "samples)",
		    (long long)b->id, b->name, f, t, t, v->mass, v->samples);
	if (v->state == BISECT_UNSURE)
		return xasprintf("bisection %lld \"%s\": unsure, the first bad "
				 "commit is between %s and %s: %s",
		    (long long)b->id, b->name, f, t, v->why);
	return xasprintf("bisection %lld \"%s\": no change to bisect: %s",
	    (long long)b->id, b->name, v->why);
}

/*
 * Mails the end of b, started for a sweep, through that sweep: text, then
 * the report with the evidence of l (NULL when b could not be read back).
 */
static void
bisector_mail(struct db *db, const struct db_bisect *b, struct bisect_loaded *l,
    int64_t job, const char *text)
{
	struct db_sweep	 *v = NULL;
	struct db_bisect *now = NULL;
	char		 *subject, *body = NULL, *cause = NULL;
	size_t		  n = 0, i, len = 0;
	FILE		 *fp;

	if (b->sweep == 0)
		return;
	if (db_sweep_list(db, &v, &n, &cause) == -1 ||
	    (now = db_bisect_get(db, b->id, &cause)) == NULL) {
		bisector_warn(cause);
		goto out;
	}
	for (i = 0; i < n && v[i].id != b->sweep; i++)
		;
	if (i == n)
		goto out;
	subject = xasprintf("[hilab] sweep %s: bisection %lld %s: %s %s on %s",
	    v[i].name, (long long)b->id, now->state, b->benchmark, b->metric,
	    b->machine);
	if ((fp = open_memstream(&body, &len)) == NULL)
		fatalx("open_memstream: out of memory");
	fprintf(fp, "%s.\n", text);
	if (l != NULL) {
		fputc('\n', fp);
		bisect_report_print(fp, now, l);
	}
	fclose(fp);
	sweeper_mail(db, &v[i], job, subject, body);
	free(subject);
	free(body);
out:
	db_bisect_free(now);
	db_sweep_list_free(v, n);
}

/* Ends b with the verdict v. */
static void
bisector_end(struct db *db, const struct db_bisect *b, struct bisect_loaded *l,
    const struct bisect_verdict *v)
{
	char *result = bisector_result(l, v), *text, *cause = NULL;

	text = bisector_sentence(b, l, v);
	if (db_bisect_end(db, b->id, bisect_state_name(v->state), result,
		*v->why ? v->why : NULL, &cause) == -1 ||
	    db_bisect_event_add(db, b->id, l->last_job,
		v->state == BISECT_FOUND ? DB_WARN : DB_INFO, &cause, "%s",
		text) == -1)
		bisector_warn(cause);
	else {
		log_info("bisector", "%s", text);
		bisector_mail(db, b, l, l->last_job, text);
	}
	free(text);
	free(result);
}

/*
 * Ends b as state (failed, cancelled), saying why, and mails a failure
 * with the evidence of l so far (l NULL: b could not be read back).
 */
static void
bisector_stop(struct db *db, const struct db_bisect *b, struct bisect_loaded *l,
    int64_t job, const char *state, const char *why)
{
	char *cause = NULL, *text;

	text = xasprintf("bisection %lld \"%s\" %s: %s", (long long)b->id,
	    b->name, state, why);
	if (db_bisect_end(db, b->id, state, NULL, why, &cause) == -1 ||
	    db_bisect_event_add(db, b->id, job, DB_ERROR, &cause, "%s", text) ==
		-1)
		bisector_warn(cause);
	else {
		log_warn("bisector", "%s", text);
		if (strcmp(state, "failed") == 0)
			bisector_mail(db, b, l, job, text);
	}
	free(text);
}

/* The template's kernel k at commit c of l, named by its short id. */
static json_t *
bisector_kernel(const json_t *k, const struct bisect_loaded *l, size_t c)
{
	json_t *o = json_deep_copy(k);
	char	name[13];

	bisect_short(l->commits[c], name);
	json_object_set_new(o, "name", json_string(name));
	json_object_set_new(o, "base", json_string(l->commits[c]));
	return o;
}

/*
 * The template's benchmark under commit c's kernel: as it says, or once
 * (one iteration, no adaptive count) for an end beside a commit.
 */
static json_t *
bisector_bench(const json_t *bench, const struct bisect_loaded *l, size_t c,
    bool once)
{
	json_t *o = json_deep_copy(bench);
	char	name[13];

	bisect_short(l->commits[c], name);
	json_object_set_new(o, "kernel", json_string(name));
	if (once) {
		json_object_set_new(o, "iterations", json_integer(1));
		json_object_del(o, "adaptive");
	}
	return o;
}

/*
 * The step job's spec: commit c measured between one sample of each end,
 * interleaved on the machine in one round (c 0: the ends alone, as the
 * template says), so each step carries the level its commit is judged
 * against.
 */
static char *
bisector_spec(const struct db_bisect *b, const struct bisect_loaded *l,
    size_t c, char **cause)
{
	json_t *o = json_loads(b->spec, 0, NULL), *k, *bench, *ks, *bs;
	char   *text = NULL;

	k = json_array_get(json_object_get(o, "kernels"), 0);
	bench = json_array_get(json_object_get(o, "benchmarks"), 0);
	if (k == NULL || bench == NULL) {
		*cause = xstrdup("its template has no kernel or benchmark");
		goto out;
	}
	ks = json_pack("[o]", bisector_kernel(k, l, 0));
	bs = json_pack("[o]", bisector_bench(bench, l, 0, c != 0));
	if (c != 0) {
		json_array_append_new(ks, bisector_kernel(k, l, c));
		json_array_append_new(bs, bisector_bench(bench, l, c, false));
	}
	json_array_append_new(ks, bisector_kernel(k, l, l->n));
	json_array_append_new(bs, bisector_bench(bench, l, l->n, c != 0));
	json_object_set_new(o, "kernels", ks);
	json_object_set_new(o, "benchmarks", bs);
	json_object_set_new(o, "name", json_sprintf("%s-%zu", b->name, c));
	json_object_set_new(o, "description",
	    c == 0 ? json_sprintf("step of bisection %lld: the ends",
			 (long long)b->id)
		   : json_sprintf("step of bisection %lld: commit %zu of "
				  "%zu, %s, between the ends",
			 (long long)b->id, c, l->n, l->subjects[c]));
	text = json_dumps(o, JSON_COMPACT);
out:
	json_decref(o);
	return text;
}

/* What the step job measures, for its event (caller frees). */
static char *
bisector_what(const struct bisect_loaded *l, size_t c)
{
	if (c == 0)
		return xstrdup("the ends");
	return xasprintf("commit %zu of %zu, %.12s \"%s\", between the ends", c,
	    l->n, l->commits[c], l->subjects[c]);
}

/* Queues the step that measures commit c of b (0: the ends alone). */
static void
bisector_queue(struct db *db, const struct db_bisect *b,
    const struct bisect_loaded *l, size_t c)
{
	char   *spec, *name, *what, *cause = NULL;
	int64_t job;

	if ((spec = bisector_spec(b, l, c, &cause)) == NULL) {
		bisector_stop(db, b, NULL, 0, "failed", cause);
		free(cause);
		return;
	}
	name = xasprintf("%s-%zu", b->name, c);
	what = bisector_what(l, c);
	if ((job = db_job_insert(db, name, NULL, spec, &cause)) == -1 ||
	    db_bisect_step_add(db, b->id, job, (int64_t)c, &cause) == -1 ||
	    db_bisect_event_add(db, b->id, job, DB_INFO, &cause,
		"bisection %lld \"%s\": job %lld measures %s", (long long)b->id,
		b->name, (long long)job, what) == -1)
		bisector_warn(cause);
	free(what);
	free(name);
	free(spec);
}

/* Why the ends' own step failed (caller frees). */
static char *
bisector_end_failed(struct db *db, const struct bisect_loaded *l)
{
	struct db_job *j;
	char	      *cause = NULL, *why, g[13], d[13];

	bisect_short(l->commits[0], g);
	bisect_short(l->commits[l->n], d);
	j = db_job_get(db, l->end_job, &cause);
	why = xasprintf("the good end %s or the bad end %s did not build or "
			"boot in job %lld: %s",
	    g, d, (long long)l->end_job,
	    j != NULL && j->error != NULL ? j->error
		: cause != NULL		  ? cause
					  : "no error stored");
	db_job_free(j);
	free(cause);
	return why;
}

/* Why step job of a bisection failed: its first failed run's error. */
static char *
bisector_run_error(struct db *db, int64_t job)
{
	struct db_run *r = NULL;
	char	      *cause = NULL, *why;
	size_t	       n = 0;

	if (db_run_list_failed(db, job, 1, &r, &n, &cause) == -1)
		return cause;
	why = xstrdup(
	    n > 0 && r[0].error != NULL ? r[0].error : "no error stored");
	db_run_list_free(r, n);
	return why;
}

/*
 * The newest step of b failed, but not for its commit (it built and
 * booted): its machine went away, the benchmark failed.  The commit is
 * measured again, up to BISECTOR_STRAYS such failures in all; then b
 * fails, since a broken machine or job would fail every step alike.
 */
static void
bisector_stray(struct db *db, const struct db_bisect *b,
    struct bisect_loaded *l)
{
	char *error = bisector_run_error(db, l->stray_job), *why, *cause = NULL;
	char  c[13];

	bisect_short(l->commits[l->stray_commit], c);
	if (l->strays >= BISECTOR_STRAYS) {
		why =
		    xasprintf("%zu step jobs failed with commits that built "
			      "and booted, the last job %lld of commit %s: %s",
			l->strays, (long long)l->stray_job, c, error);
		bisector_stop(db, b, l, l->stray_job, "failed", why);
		free(why);
	} else {
		if (db_bisect_event_add(db, b->id, l->stray_job, DB_WARN,
			&cause,
			"bisection %lld \"%s\": job %lld failed, not for "
			"commit %s, which built and booted: %s; measuring it "
			"again",
			(long long)b->id, b->name, (long long)l->stray_job, c,
			error) == -1)
			bisector_warn(cause);
		bisector_queue(db, b, l, l->stray_commit);
	}
	free(error);
}

/* Moves bisection b on by a step, or ends it. */
static void
bisector_one(struct db *db, const struct db_bisect *b)
{
	struct bisect_loaded  l;
	struct bisect_verdict v;
	char		     *cause = NULL, *why;

	if (bisector_busy(db, b))
		return;
	if (bisect_load(db, b, &l, &cause) == -1) {
		bisector_stop(db, b, NULL, 0, "failed", cause);
		free(cause);
		return;
	}
	if (l.cancelled_job != 0) {
		why = xasprintf("its step job %lld was cancelled",
		    (long long)l.cancelled_job);
		bisector_stop(db, b, &l, l.cancelled_job, "cancelled", why);
		free(why);
	} else if (l.stray_job != 0 && l.stray_job == l.last_job)
		bisector_stray(db, b, &l);
	else if (l.end_job != 0 || l.empty_job != 0) {
		why = l.end_job != 0
		    ? bisector_end_failed(db, &l)
		    : xasprintf(
			  "job %lld is done but stored no sample of %s %s "
			  "with \"%s\" on %s",
			  (long long)l.empty_job, b->benchmark, b->metric,
			  b->params, b->machine);
		bisector_stop(db, b, &l, l.end_job ? l.end_job : l.empty_job,
		    "failed", why);
		free(why);
	} else {
		bisect_search_step(l.search, &v);
		if (v.state == BISECT_MEASURE)
			bisector_queue(db, b, &l, v.next);
		else
			bisector_end(db, b, &l, &v);
	}
	bisect_loaded_clear(&l);
}

void
bisector_tick(struct db *db)
{
	struct db_bisect *v;
	char		 *cause = NULL;
	size_t		  n, i;

	if (db_bisect_list(db, true, &v, &n, &cause) == -1) {
		bisector_warn(cause);
		return;
	}
	for (i = 0; i < n; i++)
		bisector_one(db, &v[i]);
	db_bisect_list_free(v, n);
}
