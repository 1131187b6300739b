/* hilab list, status and cancel: what the queue holds and what it did. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "common/xmalloc.h"
#include "db/db.h"

/* Total number of runs of a job, whatever their state. */
static int
status_total(const struct db_job *j)
{
	int i, n = 0;

	for (i = 0; i < DB_NSTATES; i++)
		n += j->runs[i];
	return n;
}

/* hilab list: every job, oldest first. */
int
cmd_list(const struct cli_options *o, const struct args *a)
{
	struct db_job *v;
	struct db     *db;
	char	      *cause = NULL, when[32];
	json_t	      *arr;
	size_t	       n, i;

	(void)a;
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_job_list(db, &v, &n, &cause) == -1) {
		cli_error(CLI_EXIT_UNAVAILABLE, "%s", cause);
		free(cause);
		db_close(db);
		return CLI_EXIT_UNAVAILABLE;
	}
	arr = json_array();
	if (!o->json)
		printf("%5s  %-9s %-9s %-19s  %s\n", "JOB", "STATE", "RUNS",
		    "SUBMITTED", "NAME");
	for (i = 0; i < n; i++) {
		cli_time(v[i].submitted_at, when, sizeof when);
		json_array_append_new(arr, cli_job_json(&v[i]));
		if (!o->json)
			printf("%5lld  %-9s %4d/%-4d %-19s  %s\n",
			    (long long)v[i].id, db_state_name(v[i].state),
			    v[i].runs[DB_DONE], status_total(&v[i]), when,
			    v[i].name);
	}
	if (o->json)
		cli_print_json(arr);
	else
		json_decref(arr);
	db_job_list_free(v, n);
	db_close(db);
	return CLI_EXIT_OK;
}

/* A run as JSON. */
static json_t *
status_run_json(const struct db_run *r)
{
	return json_pack("{s:I, s:s, s:I, s:s, s:s, s:i, s:i, s:i, s:i, s:i, "
			 "s:s, s:s?, s:o, s:o, s:s?, s:o}",
	    "id", (json_int_t)r->id, "machine", r->machine, "kernel",
	    (json_int_t)r->kernel, "benchmark", r->benchmark, "params",
	    r->params, "round", r->round, "boot", r->boot, "position",
	    r->position, "iterations", r->iterations, "warmups", r->warmups,
	    "state", db_state_name(r->state), "agent_run_id", r->agent_run_id,
	    "started_at", cli_time_json(r->started_at), "finished_at",
	    cli_time_json(r->finished_at), "error", r->error, "boot_tries",
	    r->boot_tries > 0 ? json_integer(r->boot_tries) : json_null());
}

/* The boots a run's kernel took, "-" when it booted none. */
static const char *
status_boots(const struct db_run *r, char *buf, size_t len)
{
	if (r->boot_tries < 1)
		return "-";
	snprintf(buf, len, "%d", r->boot_tries);
	return buf;
}

/* Prints one job and its runs. */
static void
status_print(const struct db_job *j, const struct db_run *runs, size_t n)
{
	char   when[32], boots[16];
	size_t i;

	cli_time(j->submitted_at, when, sizeof when);
	printf("job %lld: %s\nstate: %s%s\nfile: %s\nsubmitted: %s\n",
	    (long long)j->id, j->name, db_state_name(j->state),
	    j->cancel_requested ? " (cancel requested)" : "",
	    j->file ? j->file : "-", when);
	if (j->error != NULL)
		printf("error: %s\n", j->error);
	printf("runs: %d done, %d running, %d queued, %d failed, "
	       "%d cancelled\n\n",
	    j->runs[DB_DONE], j->runs[DB_RUNNING], j->runs[DB_QUEUED],
	    j->runs[DB_FAILED], j->runs[DB_CANCELLED]);
	printf("%6s  %-12s %5s %5s %-14s %-20s %-9s %s\n", "RUN", "MACHINE",
	    "ROUND", "BOOTS", "BENCHMARK", "PARAMS", "STATE", "ERROR");
	for (i = 0; i < n; i++)
		printf("%6lld  %-12s %5d %5s %-14s %-20s %-9s %s\n",
		    (long long)runs[i].id, runs[i].machine, runs[i].round,
		    status_boots(&runs[i], boots, sizeof boots),
		    runs[i].benchmark, runs[i].params,
		    db_state_name(runs[i].state),
		    runs[i].error ? runs[i].error : "");
}

/* Prints a job and its runs as JSON. */
static void
status_print_json(const struct db_job *j, const struct db_run *runs, size_t n)
{
	json_t *o = cli_job_json(j), *arr = json_array();
	size_t	i;

	for (i = 0; i < n; i++)
		json_array_append_new(arr, status_run_json(&runs[i]));
	json_object_set_new(o, "run_list", arr);
	cli_print_json(o);
}

/* Why a run waits on a machine that is bad or in maintenance. */
static char *
status_waiting_why(const struct db_machine *m)
{
	if (m->health_reason == NULL)
		return xasprintf("waiting: machine \"%s\" is %s", m->name,
		    db_health_name(m->health));
	return xasprintf("waiting: machine \"%s\" is %s: %s", m->name,
	    db_health_name(m->health), m->health_reason);
}

/*
 * Puts why in place of the error of each queued run whose machine is bad
 * or in maintenance: hilabd leases it no more, so the run waits.
 */
static void
status_waiting(struct db_run *runs, size_t n, const struct db_machine *mv,
    size_t mn)
{
	const struct db_machine *m;
	size_t			 i;

	for (i = 0; i < n; i++) {
		if (runs[i].state != DB_QUEUED ||
		    (m = db_machine_find(mv, mn, runs[i].machine)) == NULL ||
		    (m->health != DB_HEALTH_BAD &&
			m->health != DB_HEALTH_MAINTENANCE))
			continue;
		free(runs[i].error);
		runs[i].error = status_waiting_why(m);
	}
}

/* hilab status JOB: a job and each of its runs. */
int
cmd_status(const struct cli_options *o, const struct args *a)
{
	struct db_machine *mv = NULL;
	struct db_run	  *runs = NULL;
	struct db_job	  *j = NULL;
	struct db	  *db;
	char		  *cause = NULL;
	size_t		   n = 0, mn = 0;
	int64_t		   id = a->pos[0].num;
	int		   rc;

	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((rc = cli_job(db, id, &j)) != CLI_EXIT_OK)
		goto out;
	if (db_run_list(db, id, &runs, &n, &cause) == -1 ||
	    db_machine_list(db, &mv, &mn, &cause) == -1) {
		rc = cli_error(CLI_EXIT_UNAVAILABLE, "%s", cause);
		goto out;
	}
	status_waiting(runs, n, mv, mn);
	if (o->json)
		status_print_json(j, runs, n);
	else
		status_print(j, runs, n);
out:
	free(cause);
	db_machine_list_free(mv, mn);
	db_run_list_free(runs, n);
	db_job_free(j);
	db_close(db);
	return rc;
}

/* Says that a cancel was requested: a line, or JSON. */
static void
status_cancelled(const struct cli_options *o, int64_t id, bool nudged)
{
	if (o->json)
		cli_print_json(json_pack("{s:I, s:b, s:b}", "job",
		    (json_int_t)id, "cancel_requested", 1, "hilabd", nudged));
	else
		printf("job %lld: cancel requested\n", (long long)id);
}

/* hilab cancel JOB: flags a job for hilabd to stop, and nudges it. */
int
cmd_cancel(const struct cli_options *o, const struct args *a)
{
	struct db_job *j = NULL;
	struct db     *db;
	char	      *cause = NULL;
	int64_t	       id = a->pos[0].num;
	int	       rc;

	if ((db = cli_db_open(o, true)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((rc = cli_job(db, id, &j)) != CLI_EXIT_OK)
		goto out;
	if (db_job_cancel_request(db, id, &cause) == -1)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else
		status_cancelled(o, id, cli_nudge(o));
out:
	free(cause);
	db_job_free(j);
	db_close(db);
	return rc;
}
