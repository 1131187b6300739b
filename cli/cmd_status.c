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

/* A job as JSON, for --json listings. */
static json_t *
status_job_json(const struct db_job *j)
{
	return json_pack("{s:I, s:s, s:s, s:s?, s:b, s:I, s:I, s:I, s:s?, "
			 "s:{s:i, s:i, s:i, s:i, s:i}}",
	    "id", (json_int_t)j->id, "name", j->name, "state",
	    db_state_name(j->state), "file", j->file, "cancel_requested",
	    j->cancel_requested, "submitted_at", (json_int_t)j->submitted_at,
	    "started_at", (json_int_t)j->started_at, "finished_at",
	    (json_int_t)j->finished_at, "error", j->error, "runs", "queued",
	    j->runs[DB_QUEUED], "running", j->runs[DB_RUNNING], "done",
	    j->runs[DB_DONE], "failed", j->runs[DB_FAILED], "cancelled",
	    j->runs[DB_CANCELLED]);
}

int
cmd_list(const struct cli_options *o, int argc, char **argv)
{
	struct db_job *v;
	struct db     *db;
	char	      *cause = NULL, when[32];
	json_t	      *arr;
	size_t	       n, i;

	if (argc != 1)
		return cli_usage_error("usage: hilab list");
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_job_list(db, &v, &n, &cause) == -1) {
		db_close(db);
		return cli_error(CLI_EXIT_UNAVAILABLE, "%s", cause);
	}
	arr = json_array();
	if (!o->json)
		printf("%5s  %-9s %-9s %-19s  %s\n", "JOB", "STATE", "RUNS",
		    "SUBMITTED", "NAME");
	for (i = 0; i < n; i++) {
		cli_time(v[i].submitted_at, when, sizeof when);
		json_array_append_new(arr, status_job_json(&v[i]));
		if (!o->json)
			printf("%5lld  %-9s %4d/%-4d %-19s  %s\n",
			    (long long)v[i].id, db_state_name(v[i].state),
			    v[i].runs[DB_DONE], status_total(&v[i]), when,
			    v[i].name);
	}
	if (o->json)
		cli_print_json(arr);
	json_decref(arr);
	db_job_list_free(v, n);
	db_close(db);
	return CLI_EXIT_OK;
}

/* A run as JSON. */
static json_t *
status_run_json(const struct db_run *r)
{
	return json_pack("{s:I, s:s, s:I, s:s, s:s, s:i, s:i, s:i, s:s, s:s?, "
			 "s:s?, s:o}",
	    "id", (json_int_t)r->id, "machine", r->machine, "kernel",
	    (json_int_t)r->kernel, "benchmark", r->benchmark, "params",
	    r->params, "round", r->round, "boot", r->boot, "position",
	    r->position, "state", db_state_name(r->state), "agent_run_id",
	    r->agent_run_id, "error", r->error, "boot_tries",
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
	json_t *o = status_job_json(j), *arr = json_array();
	size_t	i;

	for (i = 0; i < n; i++)
		json_array_append_new(arr, status_run_json(&runs[i]));
	json_object_set_new(o, "run_list", arr);
	cli_print_json(o);
	json_decref(o);
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

int
cmd_status(const struct cli_options *o, int argc, char **argv)
{
	struct db_machine *mv = NULL;
	struct db_run	  *runs = NULL;
	struct db_job	  *j = NULL;
	struct db	  *db;
	char		  *cause = NULL;
	size_t		   n = 0, mn = 0;
	int64_t		   id;
	int		   rc = CLI_EXIT_OK;

	if (argc != 2 || (id = cli_job_id(argv[1])) == -1)
		return cli_usage_error("usage: hilab status JOB");
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((j = db_job_get(db, id, &cause)) == NULL ||
	    db_run_list(db, id, &runs, &n, &cause) == -1 ||
	    db_machine_list(db, &mv, &mn, &cause) == -1) {
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
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

int
cmd_cancel(const struct cli_options *o, int argc, char **argv)
{
	struct db *db;
	char	  *cause = NULL;
	int64_t	   id;
	int	   rc = CLI_EXIT_OK;

	if (argc != 2 || (id = cli_job_id(argv[1])) == -1)
		return cli_usage_error("usage: hilab cancel JOB");
	if ((db = cli_db_open(o, true)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_job_cancel_request(db, id, &cause) == -1)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else {
		printf("job %lld: cancel requested\n", (long long)id);
		cli_nudge(o);
	}
	free(cause);
	db_close(db);
	return rc;
}
