/*
 * What every hilab command shares: error messages, the database, jobs that
 * must exist, the inventory and the catalog, the nudge to hilabd, JSON and
 * time output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "benchmarks/catalog.h"
#include "cli/cli.h"
#include "common/control.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/inventory.h"
#include "report/select.h"

/* Prints "hilab: message" to stderr and returns code. */
int
cli_error(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("hilab: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/* Prints a cause as it is (file:line:col lines need no prefix); frees it. */
int
cli_cause(int code, char *cause)
{
	if (cause != NULL)
		fprintf(stderr, "%s\n", cause);
	free(cause);
	return code;
}

/* Prints a JSON value, indented, with a final newline, and frees it. */
void
cli_print_json(json_t *v)
{
	json_dumpf(v, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	fputc('\n', stdout);
	json_decref(v);
}

/* Formats a unix-ms time as local "YYYY-mm-dd HH:MM:SS", or "-" for 0. */
void
cli_time(int64_t ms, char *buf, size_t size)
{
	time_t	  t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms == 0 || localtime_r(&t, &tm) == NULL)
		snprintf(buf, size, "-");
	else
		strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
}

/* A unix-ms time as JSON: null when unset. */
json_t *
cli_time_json(int64_t ms)
{
	return ms != 0 ? json_integer(ms) : json_null();
}

/* A job as JSON, for list, status, wait and report. */
json_t *
cli_job_json(const struct db_job *j)
{
	return json_pack("{s:I, s:s, s:s, s:s?, s:b, s:o, s:o, s:o, s:s?, "
			 "s:{s:i, s:i, s:i, s:i, s:i}}",
	    "id", (json_int_t)j->id, "name", j->name, "state",
	    db_state_name(j->state), "file", j->file, "cancel_requested",
	    j->cancel_requested, "submitted_at", cli_time_json(j->submitted_at),
	    "started_at", cli_time_json(j->started_at), "finished_at",
	    cli_time_json(j->finished_at), "error", j->error, "runs", "queued",
	    j->runs[DB_QUEUED], "running", j->runs[DB_RUNNING], "done",
	    j->runs[DB_DONE], "failed", j->runs[DB_FAILED], "cancelled",
	    j->runs[DB_CANCELLED]);
}

/* An event as JSON, for logs and sweep show. */
json_t *
cli_event_json(const struct db_event *e)
{
	return json_pack("{s:I, s:I, s:o, s:o, s:s?, s:s, s:s}", "id",
	    (json_int_t)e->id, "time", (json_int_t)e->time, "job",
	    e->job ? json_integer(e->job) : json_null(), "run",
	    e->run ? json_integer(e->run) : json_null(), "machine", e->machine,
	    "level", db_level_name(e->level), "message", e->message);
}

/* Opens the database for the CLI; prints why not. */
struct db *
cli_db_open(const struct cli_options *o, bool write)
{
	struct db *db;
	char	  *cause = NULL;

	db = write ? db_open(o->db_path, &cause)
		   : db_open_readonly(o->db_path, &cause);
	if (db == NULL)
		cli_error(CLI_EXIT_UNAVAILABLE, "%s", cause);
	free(cause);
	return db;
}

/* Reads a job that must exist; see cli.h. */
int
cli_job(struct db *db, int64_t id, struct db_job **j)
{
	int64_t missing = 0;
	char   *cause = NULL;
	int	rc;

	*j = NULL;
	if ((rc = db_jobs_missing(db, &id, 1, &missing, &cause)) == 1)
		return cli_error(CLI_EXIT_USAGE, "job %lld: no such job",
		    (long long)id);
	if (rc == 0 && (*j = db_job_get(db, id, &cause)) != NULL)
		return CLI_EXIT_OK;
	rc = cli_error(CLI_EXIT_UNAVAILABLE, "%s", cause);
	free(cause);
	return rc;
}

/* Loads the inventory of dir, printing every error; NULL on failure. */
struct inventory *
cli_inventory(const char *dir)
{
	struct inventory *inv;
	char		 *cause = NULL;

	if ((inv = inventory_load_path(dir, &cause)) == NULL)
		cli_cause(CLI_EXIT_USAGE, cause);
	return inv;
}

/* Loads the catalog, printing every error; NULL on failure. */
struct catalog *
cli_catalog(const struct cli_options *o)
{
	struct catalog *cat;
	char	       *cause = NULL;

	if ((cat = catalog_load(o->catalog_dir, &cause)) == NULL)
		cli_cause(CLI_EXIT_USAGE, cause);
	return cat;
}

/* Warns about parser samples the job's parsers find no metric in. */
static void
cli_job_warn(const char *path, const struct job *job)
{
	char  *w, *line, *save = NULL;
	size_t i;

	for (i = 0; i < job->nbenchmarks; i++) {
		if ((w = plan_check_sample(&job->benchmarks[i])) == NULL)
			continue;
		for (line = strtok_r(w, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(stderr, "%s: warning: %s\n", path, line);
		free(w);
	}
}

/* Loads and validates a job file against the catalog and inventory. */
struct job *
cli_job_load(const struct cli_options *o, const char *path)
{
	struct catalog	 *cat;
	struct inventory *inv = NULL;
	struct job	 *job = NULL;
	char		 *cause = NULL;

	if ((cat = cli_catalog(o)) == NULL ||
	    (inv = cli_inventory(o->machines_dir)) == NULL)
		goto out;
	if ((job = job_load(path, cat, inv, &cause)) != NULL)
		cli_job_warn(path, job);
	else
		cli_cause(CLI_EXIT_USAGE, cause);
out:
	catalog_free(cat);
	inventory_free(inv);
	return job;
}

/* Tells hilabd there is new work; false if it is not running. */
bool
cli_nudge(const struct cli_options *o)
{
	char *reply, *cause = NULL;

	if ((reply = control_call(o->socket_path, "nudge", &cause)) == NULL) {
		free(cause);
		return false;
	}
	free(reply);
	return true;
}

/* The tables of a selection as an array of pointers (caller frees it). */
struct compare_table **
cli_select_tables(const struct select_result *r)
{
	struct compare_table **v = xcalloc(r->n + 1, sizeof *v);
	size_t		       i;

	for (i = 0; i < r->n; i++)
		v[i] = r->v[i].table;
	return v;
}

/* Says that no samples match, and what --benchmark may have meant. */
int
cli_no_samples(const struct cli_options *o, const char *benchmark)
{
	struct catalog *cat;
	char	       *cause = NULL, *hint;

	if (benchmark == NULL ||
	    (cat = catalog_load(o->catalog_dir, &cause)) == NULL) {
		free(cause);
		return cli_error(CLI_EXIT_FAIL, "no samples match");
	}
	hint = catalog_suggest(cat, benchmark);
	cli_error(CLI_EXIT_FAIL, "no samples match --benchmark \"%s\"%s",
	    benchmark, hint);
	free(hint);
	catalog_free(cat);
	return CLI_EXIT_FAIL;
}
