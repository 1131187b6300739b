/* The planner: queued jobs become runs; finished jobs get their state. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/builder.h"
#include "hilabd/daemon.h"
#include "hilabd/story.h"
#include "jobs/job.h"
#include "jobs/job_build.h"
#include "jobs/plan.h"
#include "machines/inventory.h"

/*
 * Caches the last declaration of every metric name for people reading the
 * database by hand (tables read each job's own; patterns are not names).
 */
static int
planner_add_metrics(struct db *db, const struct job *job, char **cause)
{
	const struct job_benchmark *b;
	size_t			    i, j;

	for (i = 0; i < job->nbenchmarks; i++) {
		b = &job->benchmarks[i];
		for (j = 0; j < b->nmetrics; j++) {
			if (strchr(b->metrics[j].name, '*') != NULL)
				continue;
			if (db_metric_upsert(db, b->metrics[j].name,
				b->metrics[j].unit, b->metrics[j].direction,
				b->metrics[j].statistic, cause) == -1)
				return -1;
		}
	}
	return 0;
}

/* The modules tarball beside a built image, if the build made one. */
static void
planner_built_modules(json_t *o, const char *image)
{
	const char *slash = strrchr(image, '/');
	char	   *path;

	if (slash == NULL)
		return;
	path = xasprintf("%.*s/modules.tar.gz", (int)(slash - image), image);
	if (access(path, R_OK) == 0)
		json_object_set_new(o, "modules", json_string(path));
	free(path);
}

/* The kernel's description as stored with it (JSON, caller frees). */
static char *
planner_kernel_spec(const struct job_kernel *k, const char *cmdline,
    const struct job_built *built)
{
	json_t *o;
	char   *s;

	o = json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?}",
	    "kind", job_kernel_kind_name(k->kind), "image", k->image, "initrd",
	    k->initrd, "dtb", k->dtb, "modules", k->modules, "git", k->git,
	    "base", k->base, "series", k->series, "cmdline", cmdline);
	if (k->kind == JOB_KERNEL_BUILD)
		json_object_set_new(o, "patches",
		    json_integer((json_int_t)k->npatches));
	if (built != NULL) {
		json_object_set_new(o, "image", json_string(built->image));
		json_object_set_new(o, "build_id",
		    json_string(built->build_id));
		json_object_set_new(o, "release", json_string(built->release));
		json_object_set_new(o, "variant", json_string(built->variant));
		planner_built_modules(o, built->image);
	}
	s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(o);
	return s;
}

/* Adds every kernel of the job; ids[i] gets the id of job->kernels[i]. */
static int
planner_add_kernels(struct db *db, const struct job *job,
    const struct job_built *built, size_t nbuilt, int64_t *ids, char **cause)
{
	const struct job_kernel *k;
	char			*cmdline, *spec;
	size_t			 i;

	for (i = 0; i < job->nkernels; i++) {
		k = &job->kernels[i];
		cmdline = job_kernel_cmdline(job, k);
		spec = planner_kernel_spec(k, cmdline,
		    job_built_find(built, nbuilt, k->name));
		ids[i] = db_kernel_upsert(db, k->name, cmdline, spec, cause);
		free(cmdline);
		free(spec);
		if (ids[i] == -1)
			return -1;
	}
	return 0;
}

/* Checks that every machine of the job is in the inventory. */
static int
planner_check_machines(const struct job *job, const struct inventory *inv,
    char **cause)
{
	size_t i;

	for (i = 0; i < job->nmachines; i++) {
		if (inventory_find(inv, job->machines[i]) == NULL) {
			*cause = xasprintf("machine \"%s\" is not in the "
					   "inventory",
			    job->machines[i]);
			return -1;
		}
	}
	return 0;
}

/* Inserts the runs of a plan. */
static int
planner_add_runs(struct db *db, int64_t job_id, const struct plan *plan,
    const int64_t *kernel_ids, char **cause)
{
	const struct plan_run *p;
	struct db_run	       r;
	size_t		       i;

	for (i = 0; i < plan->n; i++) {
		p = &plan->runs[i];
		memset(&r, 0, sizeof r);
		r.job = job_id;
		r.machine = p->machine;
		r.kernel = kernel_ids[p->kernel_index];
		r.benchmark = p->benchmark;
		r.params = p->params;
		r.round = p->round;
		r.boot = p->round;
		r.position = p->position;
		r.iterations = p->iterations;
		r.warmups = p->warmups;
		if (db_run_insert(db, &r, cause) == -1)
			return -1;
	}
	return 0;
}

/* Records an event of the job's story (story.h) and frees its text. */
static void
planner_event(struct db *db, int64_t job, enum db_level level, char *text)
{
	char *cause = NULL;

	if (db_event_add(db, job, 0, NULL, level, &cause, "%s", text) == -1) {
		log_warn("planner", "job %lld: %s", (long long)job, cause);
		free(cause);
	}
	free(text);
}

/* Expands one job into runs in one transaction. */
static int
planner_expand(struct db *db, const struct db_job *dj, const struct job *job,
    const struct inventory *inv, const struct job_built *built, size_t nbuilt,
    char **cause)
{
	struct plan plan = { 0 };
	char	   *ignore = NULL;
	int64_t	   *ids = NULL;
	int	    rc = -1;

	if (planner_check_machines(job, inv, cause) == -1 ||
	    plan_build(job, &plan, cause) == -1)
		goto out;
	ids = xcalloc(job->nkernels, sizeof *ids);
	if (db_begin(db, cause) == -1)
		goto out;
	if (planner_add_metrics(db, job, cause) == -1 ||
	    planner_add_kernels(db, job, built, nbuilt, ids, cause) == -1 ||
	    planner_add_runs(db, dj->id, &plan, ids, cause) == -1 ||
	    db_job_set_state(db, dj->id, DB_RUNNING, NULL, cause) == -1) {
		db_rollback(db, &ignore);
		free(ignore);
		goto out;
	}
	rc = db_commit(db, cause);
	if (rc == 0) {
		log_info("planner", "job %lld \"%s\": %zu runs planned",
		    (long long)dj->id, dj->name, plan.n);
		planner_event(db, dj->id, DB_INFO, story_planned(job, plan.n));
	}
out:
	free(ids);
	plan_free(&plan);
	return rc;
}

/* Fails a job that cannot be planned. */
static void
planner_fail(struct db *db, const struct db_job *dj, const char *why)
{
	char *ignore = NULL;

	log_warn("planner", "job %lld: %s", (long long)dj->id, why);
	db_event_add(db, dj->id, 0, NULL, DB_ERROR, &ignore,
	    "job not planned: %s", why);
	free(ignore);
	ignore = NULL;
	db_job_set_state(db, dj->id, DB_FAILED, why, &ignore);
	free(ignore);
}

/* Returns whether a job names kernels to build. */
static bool
planner_builds(const struct job *job)
{
	size_t i;

	for (i = 0; i < job->nkernels; i++)
		if (job->kernels[i].kind == JOB_KERNEL_BUILD)
			return true;
	return false;
}

/*
 * Plans one queued job once its kernels are built: the build's failure
 * fails the job, and nothing is queued for a kernel that did not build.
 * Returns whether runs were queued.
 */
static bool
planner_queued(struct daemon *d, struct db *db, const struct db_job *dj)
{
	struct job_built *built = NULL;
	char		 *cause = NULL, *ignore = NULL;
	struct job	 *job;
	size_t		  n = 0;
	bool		  queued = false;

	if (dj->cancel_requested) {
		builder_forget(d->builder, dj->id);
		if (db_job_set_state(db, dj->id, DB_CANCELLED, NULL, &ignore) ==
		    0)
			planner_event(db, dj->id, DB_INFO,
			    xstrdup("cancelled before it was planned"));
		free(ignore);
		return false;
	}
	if ((job = job_from_json(dj->spec, &cause)) == NULL)
		goto out;
	/* Busy: planned at a later tick; failed: cause is set. */
	if (planner_builds(job) &&
	    builder_poll(d->builder, dj->id, dj->spec, &built, &n, &cause) !=
		BUILDER_READY)
		goto out;
	queued =
	    planner_expand(db, dj, job, d->inventory, built, n, &cause) == 0;
out:
	if (cause != NULL)
		planner_fail(db, dj, cause);
	free(cause);
	job_free(job);
	job_built_free(built, n);
	return queued;
}

/* Settles a running job: cancel requests, and its end state. */
static void
planner_settle(struct db *db, const struct db_job *dj)
{
	char	     *cause = NULL;
	enum db_state end;

	if (dj->cancel_requested && dj->runs[DB_QUEUED] > 0)
		db_run_cancel_queued(db, dj->id, &cause);
	else if (dj->runs[DB_QUEUED] == 0 && dj->runs[DB_RUNNING] == 0) {
		if (dj->cancel_requested || dj->runs[DB_CANCELLED] > 0)
			end = DB_CANCELLED;
		else
			end = dj->runs[DB_FAILED] > 0 ? DB_FAILED : DB_DONE;
		if (db_job_set_state(db, dj->id, end,
			end == DB_FAILED ? "some runs failed (hilab logs)"
					 : NULL,
			&cause) == 0) {
			log_info("planner", "job %lld \"%s\": %s",
			    (long long)dj->id, dj->name, db_state_name(end));
			planner_event(db, dj->id,
			    end == DB_FAILED ? DB_ERROR : DB_INFO,
			    story_job_end(dj, end));
		}
	}
	if (cause != NULL) {
		log_warn("planner", "job %lld: %s", (long long)dj->id, cause);
		free(cause);
	}
}

bool
planner_tick(struct daemon *d, struct db *db)
{
	struct db_job *jobs;
	size_t	       n, i;
	char	      *cause = NULL;
	bool	       queued = false;

	if (db_job_list_active(db, &jobs, &n, &cause) == -1) {
		log_warn("planner", "%s", cause);
		free(cause);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (jobs[i].state == DB_QUEUED)
			queued |= planner_queued(d, db, &jobs[i]);
		else if (jobs[i].state == DB_RUNNING)
			planner_settle(db, &jobs[i]);
	}
	db_job_list_free(jobs, n);
	return queued;
}
